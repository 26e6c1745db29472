//! `dynamic`: a flush goes to whichever die takes it first, i.e. to the least
//! busy plane.

use super::{AllocationEntry, AllocationPolicy, Target};
use ssdlab_protocol::Lpn;

pub const ENTRY: AllocationEntry = AllocationEntry {
    name: "dynamic",
    help: "each flush to the first die free to take it (least busy plane)",
    make: |_, _| Box::new(Dynamic),
};

pub struct Dynamic;

impl AllocationPolicy for Dynamic {
    fn name(&self) -> &'static str {
        "dynamic"
    }

    fn target(&self, _lpa: Lpn) -> Target {
        Target::Any
    }
}
