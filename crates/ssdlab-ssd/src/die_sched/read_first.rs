//! `read-first`: every read, the host's and the controller's prefetches,
//! goes before programs and background GC; only critical GC (a plane at its
//! host reserve) comes first. Reads see less interference from writes at
//! the price of write bandwidth and of GC that falls behind.

use super::{DieScheduler, DieView, DieWork};

const ORDER: &[DieWork] = &[
    DieWork::CriticalGc,
    DieWork::HostRead,
    DieWork::Prefetch,
    DieWork::PacedHostProgram,
    DieWork::HostProgram,
    DieWork::Gc,
    DieWork::Fold,
];

struct ReadFirst;

impl DieScheduler for ReadFirst {
    fn name(&self) -> &'static str {
        "read-first"
    }

    fn order(&mut self, _: &DieView) -> &'static [DieWork] {
        ORDER
    }
}

pub(super) fn build() -> Box<dyn DieScheduler> {
    Box::new(ReadFirst)
}
