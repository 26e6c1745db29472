//! `static`: the plane is fixed by the logical page, channel first, then chip,
//! die and plane (MQSim's CWDP static allocation).

use super::{AllocationEntry, AllocationPolicy, Target};
use crate::layout::Layout;
use ssdlab_protocol::Lpn;

pub const ENTRY: AllocationEntry = AllocationEntry {
    name: "static",
    help: "plane fixed by the logical page, channel-first striping (MQSim CWDP)",
    make: |layout, _| {
        Box::new(StaticStripe {
            layout: layout.clone(),
        })
    },
};

pub struct StaticStripe {
    layout: Layout,
}

impl AllocationPolicy for StaticStripe {
    fn name(&self) -> &'static str {
        "static"
    }

    fn target(&self, lpa: Lpn) -> Target {
        Target::Plane(self.layout.static_plane(lpa))
    }
}
