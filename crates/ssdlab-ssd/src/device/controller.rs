//! The controller: submission-queue doorbells, command fetch within the device
//! queue depth, command slots, per-page dispatch and completions, and the
//! device's event handler.

use super::{DevEvent, ReadFor, ReadTx, SimSsd, Slot, NO_DEADLINE};

use crate::ids::SlotId;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::{CommandError, Dir, IoCommand, IoCompletion};
use ssdlab_protocol::{Ns, Timers};

impl SimSsd {
    /// The host rings a submission-queue doorbell. A command outside the
    /// logical space, or of zero pages, is refused.
    pub(super) fn submit_command(
        &mut self,
        cmd: IoCommand,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) -> Result<(), CommandError> {
        let end = cmd.lpa.0 as u64 + cmd.pages as u64;
        if cmd.pages == 0 || end > self.layout.logical_pages as u64 {
            return Err(CommandError {
                id: cmd.id,
                lpa: cmd.lpa,
                pages: cmd.pages,
                logical_pages: self.layout.logical_pages,
            });
        }
        self.advance_waits(now);
        self.clock = now;
        // The lookup comes at CmdReady; its cache miss can overlap the
        // events in between.
        self.prefetch_map_entry(cmd.lpa);
        let sq = cmd.sq as usize % self.intake.sqs.len();
        self.intake.sqs[sq].push_back(cmd);
        self.intake.queued_commands += 1;
        self.fetch(now, q);
        Ok(())
    }

    /// Starts bringing `lpa`'s forward-map entry into the cache: a read's
    /// (or trim's) decode looks it up, and a write's program reads it when
    /// it commits (dropping the hint for writes made GC-bound writes 1.3×
    /// slower: the program's own hint comes too late).
    #[inline]
    pub(super) fn prefetch_map_entry(&self, lpa: Lpn) {
        self.ftl.prefetch(lpa);
    }

    /// Fetches commands round-robin over the submission queues while the
    /// device queue has room. Firmware decode is serial; write data crosses
    /// the host link before the command is ready.
    fn fetch(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        while self.intake.queued_commands > 0
            && self.intake.outstanding < self.cfg.controller.queue_depth
        {
            let n = self.intake.sqs.len();
            let Some(sq) = (self.intake.rr..n)
                .chain(0..self.intake.rr)
                .find(|&i| !self.intake.sqs[i].is_empty())
            else {
                unreachable!("{} commands counted as queued", self.intake.queued_commands);
            };
            self.intake.rr = if sq + 1 == n { 0 } else { sq + 1 };
            let cmd = self.intake.sqs[sq].pop_front().expect("non-empty queue");
            self.intake.queued_commands -= 1;
            self.intake.outstanding += 1;
            self.fold.idle_since = None;
            self.tally.counters.commands += 1;
            let slot = self.alloc_slot(cmd);
            let c = &self.cfg.controller;
            let firmware = c.command_ns
                + match cmd.op {
                    Dir::Read => c.read_command_ns,
                    Dir::Write => c.write_command_ns,
                    Dir::Trim => 0,
                };
            // The submission entry crosses the link before decode starts;
            // a write's data is read from host memory after it.
            let fetched = now + self.cfg.controller.pcie_read_ns;
            let cores = self.intake.ctrl_busy.len();
            let core = &mut self.intake.ctrl_busy[sq % cores];
            *core = (*core).max(fetched) + firmware;
            let mut ready = *core;
            if cmd.op == Dir::Write {
                let per_page = self.intake.slots[slot.index()].link_ns_per_page as u64;
                self.intake.link_in_busy =
                    self.intake.link_in_busy.max(ready) + per_page * cmd.pages as u64;
                ready = self.intake.link_in_busy + self.cfg.controller.pcie_read_ns;
            }
            q.schedule(ready, DevEvent::CmdReady(slot));
        }
    }

    fn alloc_slot(&mut self, cmd: IoCommand) -> SlotId {
        // Whole pages cost exactly `page_link_ns` each: ceil(ceil(n·x)/n)
        // equals ceil(x).
        let page_bytes = self.layout.page_size as u64 * cmd.pages as u64;
        let bytes = (cmd.bytes as u64).min(page_bytes);
        let link = (bytes * 1000).div_ceil(self.cfg.controller.link_mbs);
        let slot = Slot {
            id: cmd.id,
            op: cmd.op,
            lpa: cmd.lpa,
            pages: cmd.pages,
            remaining: cmd.pages,
            link_ns_per_page: link.div_ceil(cmd.pages.max(1) as u64) as u32,
            latest: 0,
            deadline: cmd.deadline.unwrap_or(NO_DEADLINE),
        };
        match self.intake.free_slots.pop() {
            Some(i) => {
                self.intake.slots[i.index()] = slot;
                i
            }
            None => {
                self.intake.slots.push(slot);
                SlotId(self.intake.slots.len() as u32 - 1)
            }
        }
    }

    /// One page of a command is done at `at` (≥ now).
    pub(super) fn page_done(&mut self, slot: SlotId, at: Ns, q: &mut impl Timers<DevEvent>) {
        let s = &mut self.intake.slots[slot.index()];
        s.latest = s.latest.max(at);
        s.remaining -= 1;
        if s.remaining == 0 {
            q.schedule(
                s.latest + self.cfg.controller.completion_ns,
                DevEvent::CmdComplete(slot),
            );
        }
    }

    /// A read page leaves over the host link at `at`.
    pub(super) fn read_page_out(&mut self, slot: SlotId, at: Ns, q: &mut impl Timers<DevEvent>) {
        let per_page = self.intake.slots[slot.index()].link_ns_per_page as u64;
        self.intake.link_out_busy = self.intake.link_out_busy.max(at) + per_page;
        let done = self.intake.link_out_busy;
        self.page_done(slot, done, q);
    }

    // ---- events --------------------------------------------------------------

    #[inline]
    pub(super) fn handle_event(&mut self, ev: DevEvent, now: Ns, q: &mut impl Timers<DevEvent>) {
        self.advance_waits(now);
        self.clock = now;
        self.ftl.set_now(now);
        match ev {
            DevEvent::CmdReady(slot) => self.on_cmd_ready(slot, now, q),
            DevEvent::ReadArrayDone(die) => self.on_read_array_done(die, now, q),
            DevEvent::DieDone { die, gen } => {
                if self.array.dies[die.index()].gen == gen {
                    self.on_die_done(die, now, q);
                }
            }
            DevEvent::GatherDue => self.on_gather_due(now, q),
            DevEvent::FoldDue => self.on_fold_due(now, q),
            DevEvent::CmdComplete(slot) => {
                let s = &self.intake.slots[slot.index()];
                self.intake.completions.push(IoCompletion {
                    id: s.id,
                    time: now,
                });
                self.intake.free_slots.push(slot);
                self.intake.outstanding -= 1;
                self.fetch(now, q);
                if self.intake.outstanding == 0 {
                    self.drive_idle(now, q);
                }
            }
        }
    }

    /// No command is outstanding from `now`: folding may start once the
    /// drive has stayed idle for `fold_idle_ns`. One check is pending at a
    /// time, so a drive that idles between every request adds no event per
    /// request.
    fn drive_idle(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        self.fold.idle_since = Some(now);
        if self.fold.idle_ns > 0 && !self.fold.due_armed {
            self.fold.due_armed = true;
            q.schedule(now + self.fold.idle_ns, DevEvent::FoldDue);
        }
    }

    /// The pending idle check: idle dies may fold if the drive has been
    /// idle long enough; an idle period that began later is checked at its
    /// own due time; a busy drive waits for its next idle period.
    fn on_fold_due(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        self.fold.due_armed = false;
        let Some(since) = self.fold.idle_since else {
            return;
        };
        let due = since + self.fold.idle_ns;
        if now < due {
            self.fold.due_armed = true;
            q.schedule(due, DevEvent::FoldDue);
            return;
        }
        self.start_idle_dies(now, q, |_| true);
    }

    fn on_cmd_ready(&mut self, slot: SlotId, now: Ns, q: &mut impl Timers<DevEvent>) {
        let (op, lpa0, pages) = {
            let s = &self.intake.slots[slot.index()];
            (s.op, s.lpa, s.pages)
        };
        let dram = now + self.cfg.controller.dram_ns;
        for lpa in (0..pages).map(|i| lpa0 + i) {
            match op {
                Dir::Read => {
                    self.tally.counters.read_pages += 1;
                    self.read_page(slot, lpa, now, q);
                }
                Dir::Write => {
                    self.tally.counters.write_pages += 1;
                    self.write_page(slot, lpa, now, q);
                }
                Dir::Trim => {
                    self.trim_page(lpa, now, q);
                    self.page_done(slot, dram, q);
                }
            }
        }
        // After the command's own reads, so that its prefetches queue
        // behind them.
        if op == Dir::Read && self.read_ahead.is_some() {
            self.read_ahead_issue(lpa0, pages, now, q);
        }
    }

    /// A host read of one page: from the write buffer, the read-ahead buffer
    /// or flash.
    fn read_page(&mut self, slot: SlotId, lpa: Lpn, now: Ns, q: &mut impl Timers<DevEvent>) {
        let dram = now + self.cfg.controller.dram_ns;
        if self.writes.buffer.holds(lpa) {
            self.tally.counters.buffer_read_hits += 1;
            self.read_page_out(slot, dram, q);
            return;
        }
        if self.read_ahead.is_some() && self.read_ahead_lookup(slot, lpa, now, q) {
            return;
        }
        let Some(ppa) = self.ftl.lookup(lpa) else {
            // Never written or trimmed: the controller returns zeroes.
            self.tally.counters.unmapped_reads += 1;
            self.read_page_out(slot, dram, q);
            return;
        };
        let tx = ReadTx::new(ReadFor::Host(slot), lpa, ppa, &self.layout);
        let die = self.layout.die_of_plane(tx.plane);
        self.array.dies[die.index()].reads.push_back(tx);
        self.count_waiting_page(false);
        self.wake_for_read(die, now, q);
    }

    fn write_page(&mut self, slot: SlotId, lpa: Lpn, now: Ns, q: &mut impl Timers<DevEvent>) {
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.invalidate(lpa);
        }
        if self.writes.buffer.must_wait(slot, lpa) {
            self.tally.counters.write_stalls += 1;
            return;
        }
        self.buffer_write(slot, lpa, now, q);
    }

    /// Unmaps a page. A buffered copy not yet flushing is dropped (its
    /// write-through waiters complete: the trim supersedes their data); one
    /// being programmed is marked so that its commit maps nothing.
    fn trim_page(&mut self, lpa: Lpn, now: Ns, q: &mut impl Timers<DevEvent>) {
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.invalidate(lpa);
        }
        let superseded = self.writes.buffer.trim(lpa);
        self.forget_late_deadline(lpa);
        self.ftl.trim(lpa);
        for (slot, _) in superseded {
            self.page_done(slot, now, q);
        }
        self.admit_waiting(now, q);
    }

    /// Offers every idle die, in channel-first order, the chance to start
    /// work (`try_start` leaves a busy die as it is), while `more` holds.
    pub(super) fn start_idle_dies(
        &mut self,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
        more: impl Fn(&Self) -> bool,
    ) {
        for k in 0..self.array.channel_first.len() {
            if !more(self) {
                return;
            }
            self.try_start(self.array.channel_first[k], now, q);
        }
    }
}
