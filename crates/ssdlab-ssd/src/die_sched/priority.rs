//! `priority`, the default: critical GC first (a plane at its host reserve
//! blocks host writes), then host reads (their latency is what users see),
//! then the host program a paced GC job yielded to, background GC, the other
//! host programs, the controller's prefetches (background reads) and, when
//! nothing else waits, SLC folding.

use super::{DieScheduler, DieView, DieWork};

/// The order (also `edf`'s for work without a deadline).
pub(super) const ORDER: &[DieWork] = &[
    DieWork::CriticalGc,
    DieWork::HostRead,
    DieWork::PacedHostProgram,
    DieWork::Gc,
    DieWork::HostProgram,
    DieWork::Prefetch,
    DieWork::Fold,
];

struct Priority;

impl DieScheduler for Priority {
    fn name(&self) -> &'static str {
        "priority"
    }

    fn order(&mut self, _: &DieView) -> &'static [DieWork] {
        ORDER
    }
}

pub(super) fn build() -> Box<dyn DieScheduler> {
    Box::new(Priority)
}
