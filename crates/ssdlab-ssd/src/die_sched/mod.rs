//! The order in which a die serves its ready flash work. When a die falls
//! idle, the device asks its die scheduler for an order of work kinds and
//! starts the first kind that has something to do. The mechanisms (how a
//! read, a program or a GC job runs, suspension, preemption, pacing) stay in
//! the device; the policy only orders them.
//!
//! One policy, one file; add a line to `DIE_SCHEDULERS` to make it
//! selectable with `[controller] die_scheduler = "name"` in a preset.

use super::registry::{Choice, Entry, Registry};

mod edf;
mod priority;
mod read_first;

/// A kind of work a die may start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DieWork {
    /// GC of a plane at its host reserve: host writes wait for it.
    CriticalGc,
    /// Host reads queued at the die.
    HostRead,
    /// The host program a paced background GC job paused for.
    PacedHostProgram,
    /// Background GC (a plane below its trigger).
    Gc,
    /// Buffered host pages (and mapping-table pages) to program.
    HostProgram,
    /// The controller's read-ahead reads.
    Prefetch,
    /// Folding the SLC cache into native blocks.
    Fold,
}

/// What a die scheduler may look at when it orders a die's work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DieView {
    pub die: crate::ids::DieId,
    /// Reads queued at the die (the host's or the controller's prefetches).
    pub reads_queued: bool,
    /// At least one of them is a host read.
    pub host_read_queued: bool,
    /// A paced GC job paused so that a host program may go.
    pub host_turn: bool,
    /// The earliest deadline of the host reads queued at the die, and of
    /// the pages the die may program (None: no such work has a deadline).
    /// Filled in only for a scheduler that serves by deadline.
    pub read_deadline: Option<ssdlab_protocol::Ns>,
    pub program_deadline: Option<ssdlab_protocol::Ns>,
}

pub trait DieScheduler: Send {
    fn name(&self) -> &'static str;

    /// The work kinds to try, in order. A kind left out is not started.
    fn order(&mut self, view: &DieView) -> &'static [DieWork];

    /// Whether the scheduler serves by deadline: then the device fills in
    /// the view's deadlines, takes the earliest-deadline read and page
    /// first within their kinds, and lets work with a deadline stop a
    /// GC job between two page copies.
    fn by_deadline(&self) -> bool {
        false
    }
}

/// A die scheduler's registry entry.
pub type DieSchedulerEntry = Entry<fn() -> Box<dyn DieScheduler>>;

pub const DIE_SCHEDULERS: &[DieSchedulerEntry] = &[
    Entry {
        name: "priority",
        help: "critical GC > host reads > paced host program > background GC > host programs > prefetches > SLC folding (default)",
        make: priority::build,
    },
    Entry {
        name: "edf",
        help: "earliest command deadline first (reads, programs and the GC a program waits for); work without a deadline in the priority order after",
        make: edf::build,
    },
    Entry {
        name: "read-first",
        help: "critical GC > host reads > prefetches > host programs > background GC > SLC folding",
        make: read_first::build,
    },
];

/// The die schedulers, as a preset names them (`controller.die_scheduler`).
pub struct DieSchedulers;

impl Registry for DieSchedulers {
    const KIND: &'static str = "die scheduler";
    type Make = fn() -> Box<dyn DieScheduler>;
    const ENTRIES: &'static [DieSchedulerEntry] = DIE_SCHEDULERS;
}

/// A die scheduler chosen by name in a preset.
pub type DieSchedulerChoice = Choice<DieSchedulers>;

/// Builds the chosen die scheduler.
pub fn build(choice: DieSchedulerChoice) -> Box<dyn DieScheduler> {
    (choice.entry().make)()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_die_scheduler_builds_under_its_name_and_puts_critical_gc_before_writing_work(
    ) {
        let views = [
            (None, None),
            (Some(1), None),
            (None, Some(1)),
            (Some(2), Some(1)),
        ]
        .map(|(read_deadline, program_deadline)| DieView {
            die: crate::ids::DieId(0),
            reads_queued: true,
            host_read_queued: true,
            host_turn: true,
            read_deadline,
            program_deadline,
        });
        for Entry { name, .. } in DIE_SCHEDULERS {
            let mut s = build(name.parse().unwrap());
            assert_eq!(s.name(), *name);
            // Critical GC keeps the host reserve: work that takes free
            // pages before it could leave the die with no free block,
            // whatever the policy. (A read takes none.)
            for view in &views {
                let order = s.order(view);
                let gc = order.iter().position(|&w| w == DieWork::CriticalGc);
                let writes = order.iter().position(|&w| {
                    !matches!(
                        w,
                        DieWork::CriticalGc | DieWork::HostRead | DieWork::Prefetch
                    )
                });
                assert!(gc.is_some() && gc < writes, "{name}: {order:?}");
            }
        }
        let unknown = DieSchedulerChoice::parse("nope").unwrap_err();
        assert!(unknown.contains("priority"), "{unknown}");
    }
}
