//! Where host pages wait at the flash array, by what their die was doing
//! meanwhile (`SimSsd::account_waits`; off unless asked for).
//!
//! For each die the book integrates, over simulated time, the host pages
//! queued for it — reads in its read queue, pages in the flush queues of its
//! planes (a queue several planes serve counts at each die in proportion to
//! the die's planes) — split by the die's operation at that moment: a GC
//! job's page copies, its erase, host reads, programs, or anything else
//! (idle while pages gather, folding, a suspension). By Little's law the
//! integral over the pages that queued is the mean wait per page, and its
//! split says where the wait went. Queues change only while the device
//! handles an event, so the book advances every die to `now` before each.

use super::{DieOp, JobKind, SimSsd};
use ssdlab_protocol::Ns;

/// Page-nanoseconds of host pages queued at their die, by what the die was
/// doing meanwhile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct WaitSplit {
    /// A GC job copying valid pages (the die's read and program of each).
    pub gc_copy: u64,
    /// A GC job erasing its victims.
    pub gc_erase: u64,
    /// Other host I/O: array reads and their read-out.
    pub host_read: u64,
    /// Other host I/O: programs (and their suspension for a read).
    pub host_program: u64,
    /// The die idle (pages gathering, no free block yet), or folding.
    pub other: u64,
}

impl WaitSplit {
    pub fn total(&self) -> u64 {
        self.gc_copy + self.gc_erase + self.host_read + self.host_program + self.other
    }
}

/// Host pages' waits at the flash array over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct HostWaits {
    pub read: WaitSplit,
    pub write: WaitSplit,
    /// Host read pages that queued at a die (buffer hits never do).
    pub read_pages: u64,
    /// Host pages queued for programming.
    pub write_pages: u64,
}

/// The running book: the totals and the time every die is accounted to.
#[derive(Debug, Clone)]
pub(super) struct WaitBook {
    pub(super) totals: HostWaits,
    since: Ns,
    /// Per die: (flush queue, this die's planes on it, planes on it), one
    /// entry per distinct queue of the die's planes.
    die_queues: Vec<Vec<(usize, u64, u64)>>,
    /// This die's share of the shared flush queue: (its planes, all planes).
    shared_share: (u64, u64),
}

/// What a die's operation counts as for the pages waiting on it.
#[derive(Clone, Copy)]
enum Busy {
    Copy,
    Erase,
    Read,
    Program,
    Other,
}

impl SimSsd {
    /// Starts accounting host waits from now (e.g. after preconditioning).
    pub fn account_waits(&mut self) {
        let layout = &self.layout;
        let own = &self.writes.own_queue;
        let mut planes_on = vec![0u64; self.writes.own_flushes.len()];
        for &q in own {
            planes_on[q as usize] += 1;
        }
        let die_queues = layout
            .all_dies()
            .map(|die| {
                let mut queues: Vec<(usize, u64, u64)> = Vec::new();
                for plane in layout.planes_of_die(die) {
                    let q = own[plane.index()] as usize;
                    match queues.iter_mut().find(|e| e.0 == q) {
                        Some(e) => e.1 += 1,
                        None => queues.push((q, 1, planes_on[q])),
                    }
                }
                queues
            })
            .collect();
        self.tally.waits = Some(WaitBook {
            totals: HostWaits::default(),
            since: self.clock,
            die_queues,
            shared_share: (
                layout.planes_per_die as u64,
                layout.all_planes().count() as u64,
            ),
        });
    }

    /// The waits so far, if accounted.
    pub fn host_waits(&self) -> Option<HostWaits> {
        self.tally.waits.as_ref().map(|w| w.totals)
    }

    /// Accounts every die from the book's last time to `now`.
    #[inline]
    pub(super) fn advance_waits(&mut self, now: Ns) {
        let Some(book) = self.tally.waits.as_mut() else {
            return;
        };
        if now <= book.since {
            return;
        }
        let (from, shared) = (book.since, self.writes.shared_flushes.len() as u64);
        for (d, die) in self.array.dies.iter().enumerate() {
            let reads = die.reads.len() as u64;
            let (mine, all) = book.shared_share;
            let mut writes = shared * mine / all;
            for &(q, mine, all) in &book.die_queues[d] {
                writes += self.writes.own_flushes[q].len() as u64 * mine / all;
            }
            if reads == 0 && writes == 0 {
                continue;
            }
            for (busy, ns) in split(&die.op, from, now) {
                add(&mut book.totals.read, busy, reads * ns);
                add(&mut book.totals.write, busy, writes * ns);
            }
        }
        book.since = now;
    }

    /// A host page queued at a die (`write`: for programming).
    #[inline]
    pub(super) fn count_waiting_page(&mut self, write: bool) {
        if let Some(book) = self.tally.waits.as_mut() {
            match write {
                true => book.totals.write_pages += 1,
                false => book.totals.read_pages += 1,
            }
        }
    }
}

fn add(split: &mut WaitSplit, busy: Busy, page_ns: u64) {
    let slot = match busy {
        Busy::Copy => &mut split.gc_copy,
        Busy::Erase => &mut split.gc_erase,
        Busy::Read => &mut split.host_read,
        Busy::Program => &mut split.host_program,
        Busy::Other => &mut split.other,
    };
    *slot += page_ns;
}

/// The die's time from `from` to `to` by kind: a GC job copies until its
/// copies end, then erases.
fn split(op: &DieOp, from: Ns, to: Ns) -> [(Busy, Ns); 2] {
    let all = to - from;
    let whole = |b| [(b, all), (Busy::Other, 0)];
    match op {
        // A pausing job finishes its copy in progress, or (suspended) its
        // erase.
        DieOp::Pausing(job) if job.kind == JobKind::Gc => match job.pages_left {
            0 => whole(Busy::Erase),
            _ => whole(Busy::Copy),
        },
        DieOp::Job(job) if job.kind == JobKind::Gc => {
            let copy_end = job.started + job.pages_left as u64 * job.step_ns;
            let copying = copy_end.clamp(from, to) - from;
            [(Busy::Copy, copying), (Busy::Erase, all - copying)]
        }
        DieOp::Job(_) | DieOp::Pausing(_) | DieOp::Idle => whole(Busy::Other),
        DieOp::Read { .. } | DieOp::ReadOut => whole(Busy::Read),
        DieOp::Program { .. } | DieOp::Suspending => whole(Busy::Program),
    }
}
