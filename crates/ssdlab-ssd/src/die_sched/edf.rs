//! `edf`: earliest deadline first, for real-time I/O (Kim et al., "Dynamic
//! Chip Clustering and Task Allocation for Real-time Flash", DAC 2021: every
//! chip issues the operation of the job with the earliest absolute
//! deadline, non-preemptively). A command may carry a deadline; the die
//! compares the earliest deadline of its queued host reads with that of the
//! pages it may program, and starts the earlier kind. A program that finds
//! its plane at the host reserve waits for critical GC, so critical GC runs
//! under the deadline of the programs (GC in the writer's context). Work
//! without a deadline (background NRT I/O) goes after all work with one,
//! in the `priority` order. Within a kind the device takes the
//! earliest-deadline read or page first, and a read or a program with a
//! deadline stops a GC job between two page copies (`by_deadline`).

use super::{DieScheduler, DieView, DieWork};

/// A read's deadline is the earliest.
const READ_FIRST: &[DieWork] = &[
    DieWork::HostRead,
    DieWork::CriticalGc,
    DieWork::PacedHostProgram,
    DieWork::HostProgram,
    DieWork::Gc,
    DieWork::Prefetch,
    DieWork::Fold,
];

/// A page to program has the earliest deadline.
const PROGRAM_FIRST: &[DieWork] = &[
    DieWork::CriticalGc,
    DieWork::PacedHostProgram,
    DieWork::HostProgram,
    DieWork::HostRead,
    DieWork::Gc,
    DieWork::Prefetch,
    DieWork::Fold,
];

/// No work with a deadline: the default order.
const BACKGROUND: &[DieWork] = super::priority::ORDER;

struct Edf;

impl DieScheduler for Edf {
    fn name(&self) -> &'static str {
        "edf"
    }

    fn order(&mut self, view: &DieView) -> &'static [DieWork] {
        match (view.read_deadline, view.program_deadline) {
            (None, None) => BACKGROUND,
            (Some(_), None) => READ_FIRST,
            (None, Some(_)) => PROGRAM_FIRST,
            // Ties go to the read: it is short, and it was queued first
            // in the analysis' sense of one operation of blocking.
            (Some(r), Some(p)) if r <= p => READ_FIRST,
            _ => PROGRAM_FIRST,
        }
    }

    fn by_deadline(&self) -> bool {
        true
    }
}

pub(super) fn build() -> Box<dyn DieScheduler> {
    Box::new(Edf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::DieId;

    fn view(read: Option<u64>, program: Option<u64>) -> DieView {
        DieView {
            die: DieId(0),
            reads_queued: read.is_some(),
            host_read_queued: read.is_some(),
            host_turn: false,
            read_deadline: read,
            program_deadline: program,
        }
    }

    #[test]
    fn the_earlier_deadline_goes_first_and_work_without_one_last() {
        let mut s = Edf;
        assert_eq!(s.order(&view(Some(5), Some(9)))[0], DieWork::HostRead);
        assert_eq!(s.order(&view(Some(9), Some(5)))[0], DieWork::CriticalGc);
        assert_eq!(s.order(&view(Some(5), Some(5)))[0], DieWork::HostRead);
        assert_eq!(s.order(&view(None, Some(5)))[0], DieWork::CriticalGc);
        assert_eq!(s.order(&view(Some(5), None))[0], DieWork::HostRead);
        assert_eq!(s.order(&view(None, None)), BACKGROUND);
    }
}
