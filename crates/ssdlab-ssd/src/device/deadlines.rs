//! Serving by deadline (a die scheduler with `by_deadline`, such as `edf`):
//! the earliest deadline of a die's reads and of the pages it may program,
//! taking the earliest-deadline read or page first, and the deadline a page
//! keeps when it is rewritten while being programmed. Work without a
//! deadline carries `NO_DEADLINE` and goes after all work with one.

use super::*;
use crate::alloc::Target;

impl SimSsd {
    /// The deadline of a queued read (a prefetch has none).
    fn read_tx_deadline(&self, tx: &ReadTx) -> Ns {
        match tx.read_for {
            ReadFor::Host(slot) => self.intake.slots[slot.index()].deadline,
            ReadFor::Prefetch | ReadFor::Promoted => NO_DEADLINE,
        }
    }

    /// The earliest deadlines of the reads queued at `die` and of the
    /// pages it may program (out of line: only a deadline scheduler asks).
    #[inline(never)]
    pub(super) fn deadlines_of(&self, die: DieId) -> (Option<Ns>, Option<Ns>) {
        (self.read_deadline(die), self.program_deadline(die))
    }

    /// The earliest deadline of the reads queued at `die`.
    pub(super) fn read_deadline(&self, die: DieId) -> Option<Ns> {
        let d = &self.array.dies[die.index()];
        let earliest = d.reads.iter().map(|tx| self.read_tx_deadline(tx)).min();
        earliest.filter(|&t| t != NO_DEADLINE)
    }

    /// The earliest deadline of the pages `die` may program: its planes'
    /// own queues and the shared one.
    pub(super) fn program_deadline(&self, die: DieId) -> Option<Ns> {
        let earliest = |q: &VecDeque<Flush>| {
            q.iter()
                .map(|&(_, _, deadline)| deadline)
                .min()
                .unwrap_or(NO_DEADLINE)
        };
        // The planes of a die group share one queue: look at it once.
        let mut last = None;
        let mut best = earliest(&self.writes.shared_flushes);
        for plane in self.planes_of(die) {
            let own = self.writes.own_queue[plane.index()] as usize;
            if last != Some(own) {
                last = Some(own);
                best = best.min(earliest(&self.writes.own_flushes[own]));
            }
        }
        (best != NO_DEADLINE).then_some(best)
    }

    /// Moves the earliest-deadline read of `die` to the front of its queue
    /// (the earliest queued among equals), where a read pass starts.
    #[inline(never)]
    pub(super) fn earliest_read_to_front(&mut self, die: DieId) {
        let reads = &self.array.dies[die.index()].reads;
        let Some((i, _)) = reads
            .iter()
            .enumerate()
            .min_by_key(|&(i, tx)| (self.read_tx_deadline(tx), i))
        else {
            return;
        };
        if i > 0 {
            let reads = &mut self.array.dies[die.index()].reads;
            let tx = reads.remove(i).expect("in range");
            reads.push_front(tx);
        }
    }

    /// The next page to program on `plane` by deadline: the earliest of its
    /// own queue and the shared one (the earliest queued among equals).
    pub(super) fn next_flush_by_deadline(
        &mut self,
        plane: PlaneId,
        stream: Stream,
    ) -> Option<ProgramItem> {
        let own = self.writes.own_queue[plane.index()] as usize;
        loop {
            let earliest = |q: &VecDeque<Flush>| {
                q.iter()
                    .enumerate()
                    .min_by_key(|&(i, &(_, queued, deadline))| (deadline, queued, i))
                    .map(|(i, &(_, queued, deadline))| (deadline, queued, i))
            };
            let (data, _, _) = match (
                earliest(&self.writes.own_flushes[own]),
                earliest(&self.writes.shared_flushes),
            ) {
                (None, None) => return None,
                // On a tie the plane's own page goes first, as in
                // arrival order (`next_flush`).
                (Some(a), Some(b)) if (b.0, b.1) < (a.0, a.1) => {
                    self.writes.shared_flushes.remove(b.2)
                }
                (Some(a), _) => self.writes.own_flushes[own].remove(a.2),
                (None, Some(b)) => self.writes.shared_flushes.remove(b.2),
            }
            .expect("in range");
            if let Some(item) = self.take_flush(data, plane, stream) {
                return Some(item);
            }
        }
    }

    /// A write with `deadline` found its page already buffered: the queued
    /// flush of that page takes the earlier deadline; if the page is being
    /// programmed, its next flush will.
    pub(super) fn note_rewrite_deadline(&mut self, lpa: Lpn, deadline: Ns) {
        if !self.policies.by_deadline || deadline == NO_DEADLINE {
            return;
        }
        let queue = match self.policies.allocation.target(lpa) {
            Target::Plane(plane) => {
                &mut self.writes.own_flushes[self.writes.own_queue[plane.index()] as usize]
            }
            Target::Group(group) => &mut self.writes.own_flushes[group as usize],
            Target::Any => &mut self.writes.shared_flushes,
        };
        let queued = queue
            .iter_mut()
            .find(|(data, _, _)| *data == PageData::Host(lpa));
        match queued {
            Some((_, _, d)) => *d = (*d).min(deadline),
            None => {
                let d = self
                    .writes
                    .late_deadlines
                    .entry(lpa.0)
                    .or_insert(NO_DEADLINE);
                *d = (*d).min(deadline);
            }
        }
    }

    /// The deadline a page's re-flush inherits (see `note_rewrite_deadline`).
    pub(super) fn take_late_deadline(&mut self, lpa: Lpn) -> Ns {
        if self.writes.late_deadlines.is_empty() {
            return NO_DEADLINE;
        }
        self.writes
            .late_deadlines
            .remove(&lpa.0)
            .unwrap_or(NO_DEADLINE)
    }

    /// Whether a read with a deadline waits at `die` and the GC job
    /// running there may stop for it: a background job always; a critical
    /// one only for a read due before the programs it collects for (the
    /// read takes no free page; the job resumes before any program).
    pub(super) fn deadline_read_preempts(&self, die: DieId, job: &Job) -> bool {
        if !self.policies.by_deadline || job.kind != JobKind::Gc {
            return false;
        }
        let Some(read) = self.read_deadline(die) else {
            return false;
        };
        !job.critical || read < self.program_deadline(die).unwrap_or(NO_DEADLINE)
    }

    /// A trimmed page needs no second program: it inherits nothing.
    pub(super) fn forget_late_deadline(&mut self, lpa: Lpn) {
        if !self.writes.late_deadlines.is_empty() {
            self.writes.late_deadlines.remove(&lpa.0);
        }
    }

    /// Whether a page with a deadline waits for `die` and the background
    /// GC job running there may stop for it (a critical job is what the
    /// page waits for).
    pub(super) fn deadline_program_preempts(&self, die: DieId, job: &Job) -> bool {
        self.policies.by_deadline
            && job.kind == JobKind::Gc
            && !job.critical
            && self.program_deadline(die).is_some()
    }
}
