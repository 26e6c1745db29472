//! Die scheduling: starting an idle die's next operation in the die
//! scheduler's order, timing variation, and finishing array operations.

use super::{host_pages, DevEvent, DieOp, JobKind, SimSsd};
use crate::config::SlcCache;
use crate::die_sched::{DieView, DieWork};
use crate::ids::{BlockId, DieId, PlaneId};
use rand::Rng;
use ssdlab_protocol::{Ns, Timers};

/// What trying one kind of work on a die did.
enum Tried {
    Started,
    /// There was none.
    Nothing,
    /// A read pass changed the die's queue but started no array read.
    LookAgain,
}

impl SimSsd {
    /// Starts the die's next operation if it is idle: a suspended program
    /// first admits one read, then the die scheduler orders the rest.
    pub(super) fn try_start(&mut self, die: DieId, now: Ns, q: &mut impl Timers<DevEvent>) {
        // A read pass may start nothing yet change the queue (reads served
        // from the buffer, or moved to the die now holding their page): then
        // the die looks again. A loop, not a recursion: a long queue of such
        // reads must not grow the stack.
        while self.try_start_once(die, now, q) {}
    }

    /// One look at an idle die; true when a read pass started nothing and
    /// the die must look again.
    fn try_start_once(&mut self, die: DieId, now: Ns, q: &mut impl Timers<DevEvent>) -> bool {
        if !matches!(self.array.dies[die.index()].op, DieOp::Idle) {
            return false;
        }
        // A suspended program admits one read operation, then resumes (a
        // later read may suspend it again).
        if self.array.dies[die.index()].suspended.is_some() {
            if self.array.dies[die.index()].suspend_read_done
                || self.array.dies[die.index()].reads.is_empty()
                || (self.read_ahead.is_some() && !self.has_host_read(die))
            {
                let (items, rem) = self.array.dies[die.index()]
                    .suspended
                    .take()
                    .expect("checked");
                self.resume_program(die, items, rem, now, q);
                return false;
            }
            self.array.dies[die.index()].suspend_read_done = true;
            return !self.start_read(die, now, q);
        }
        let d = &self.array.dies[die.index()];
        let reads_queued = !d.reads.is_empty();
        // The controller's own prefetches are not host reads.
        let host_read_queued =
            reads_queued && (self.read_ahead.is_none() || self.has_host_read(die));
        let (read_deadline, program_deadline) = if self.policies.by_deadline {
            self.deadlines_of(die)
        } else {
            (None, None)
        };
        // A read with a deadline is a host read wherever it waits in the
        // queue (the earliest goes to the front when a read pass starts).
        let host_read_queued = host_read_queued || read_deadline.is_some();
        let view = DieView {
            die,
            reads_queued,
            host_read_queued,
            host_turn: d.host_turn,
            read_deadline,
            program_deadline,
        };
        // A static order: the device may change while it tries the kinds.
        let order = self.policies.die_scheduler.order(&view);
        for &work in order {
            match self.try_work(die, work, &view, now, q) {
                Tried::Started => return false,
                Tried::LookAgain => return true,
                Tried::Nothing => {}
            }
        }
        false
    }

    /// Starts `work` on the die if there is any.
    fn try_work(
        &mut self,
        die: DieId,
        work: DieWork,
        view: &DieView,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) -> Tried {
        let started = |s: bool| if s { Tried::Started } else { Tried::Nothing };
        let job = match work {
            DieWork::CriticalGc => self.next_gc(die, true),
            DieWork::Gc => self.next_gc(die, false),
            DieWork::Fold => self.next_fold(die),
            DieWork::HostRead | DieWork::Prefetch => {
                let wanted = match work {
                    DieWork::HostRead => view.host_read_queued,
                    _ => view.reads_queued && !view.host_read_queued,
                };
                return match (wanted, wanted && self.start_read(die, now, q)) {
                    (false, _) => Tried::Nothing,
                    (true, true) => Tried::Started,
                    (true, false) => Tried::LookAgain,
                };
            }
            DieWork::PacedHostProgram => {
                let cap = self.mixed_program_cap(die);
                return started(
                    std::mem::take(&mut self.array.dies[die.index()].host_turn)
                        && self.start_program(die, cap, now, q),
                );
            }
            DieWork::HostProgram => return started(self.start_program(die, None, now, q)),
        };
        let Some(job) = job else {
            return Tried::Nothing;
        };
        self.start_job(die, job, now, q);
        Tried::Started
    }

    pub(super) fn planes_of(&self, die: DieId) -> impl Iterator<Item = PlaneId> {
        self.layout.planes_of_die(die)
    }

    /// Gives the die its next operation, ending at `at` (a new generation,
    /// so the event of an operation it replaces is ignored).
    pub(super) fn set_die_op(
        &mut self,
        die: DieId,
        op: DieOp,
        at: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let d = &mut self.array.dies[die.index()];
        d.gen = d.gen.wrapping_add(1);
        d.op = op;
        q.schedule(at, DevEvent::DieDone { die, gen: d.gen });
    }

    /// The SLC-mode times when `block` runs in SLC mode.
    pub(super) fn slc_mode(&self, block: BlockId) -> Option<&SlcCache> {
        self.cfg
            .slc_cache
            .as_ref()
            .filter(|_| self.ftl.is_slc(block))
    }

    /// A nominal array time with the configured spread applied.
    pub(super) fn vary(&mut self, nominal: Ns) -> Ns {
        let spread = self.cfg.timing.spread;
        if spread == 0.0 {
            return nominal;
        }
        let f: f64 = self.policies.rng.gen_range(1.0 - spread..=1.0 + spread);
        (nominal as f64 * f).round() as Ns
    }

    pub(super) fn on_die_done(&mut self, die: DieId, now: Ns, q: &mut impl Timers<DevEvent>) {
        let op = std::mem::replace(&mut self.array.dies[die.index()].op, DieOp::Idle);
        match op {
            DieOp::Program { items, .. } => {
                // The old copies' reverse-map entries, all at once (their
                // forward-map entries were asked for when the program began).
                for lpa in host_pages(&items) {
                    self.ftl.prefetch_commit(lpa);
                }
                for (data, ppa, version) in items {
                    self.commit_flush(data, ppa, version, now, q);
                }
            }
            DieOp::Job(mut job) => match job.quota.take() {
                Some(pages) => {
                    job.pages_left -= pages;
                    self.array.dies[die.index()].paused_gc = Some(job);
                }
                None => {
                    for victim in job.victims.into_iter().flatten() {
                        self.ftl.erase(victim);
                    }
                }
            },
            DieOp::Pausing(job) => {
                let d = &mut self.array.dies[die.index()];
                match job.kind {
                    JobKind::Gc => d.paused_gc = Some(job),
                    JobKind::Fold => d.paused_fold = Some(job),
                }
            }
            DieOp::Read { .. } => unreachable!("array reads end with ReadArrayDone"),
            DieOp::ReadOut | DieOp::Suspending | DieOp::Idle => {}
        }
        self.try_start(die, now, q);
    }
}
