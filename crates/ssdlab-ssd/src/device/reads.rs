//! Host reads on the flash array: die read queues, array reads (multi-plane,
//! page-register hits, page-type tR), the read-out over channel, decode and
//! host link, and reads preempting background work.

use super::read_ahead::Held;
use super::*;

impl SimSsd {
    /// A read arrived at `die`: start it, or preempt background work for it.
    pub(super) fn wake_for_read(&mut self, die: DieId, now: Ns, q: &mut impl Timers<DevEvent>) {
        match self.array.dies[die.index()].op {
            DieOp::Idle => self.try_start(die, now, q),
            DieOp::Job(job)
                if self.read_preempts(&job) || self.deadline_read_preempts(die, &job) =>
            {
                self.preempt_job(die, job, now, q)
            }
            // Only the array phase (after the data transfer) can be suspended.
            DieOp::Program { end, array_ns, .. }
                if self.cfg.timing.suspend.is_some() && end > now && now + array_ns >= end =>
            {
                self.suspend_program(die, now, q)
            }
            _ => {}
        }
    }

    /// Reads go between the page copies of a non-critical job, except a GC
    /// job in plane-blocking mode (folding is always background work).
    pub(super) fn read_preempts(&self, job: &Job) -> bool {
        !job.critical
            && (job.kind == JobKind::Fold || self.cfg.gc.execution == GcExecution::BlockBlocking)
    }

    /// Starts an array read on `die`: one flash page per plane (several
    /// planes with multi-plane reads), serving every queued read of that flash
    /// page at once. A flash page already in its plane's page register needs
    /// no array time. False when it started no array read (the reads it
    /// looked at were served from the buffer or moved to another die).
    pub(super) fn start_read(
        &mut self,
        die: DieId,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) -> bool {
        let max_planes = if self.cfg.timing.multi_plane {
            self.layout.planes_per_die as usize
        } else {
            1
        };
        if self.policies.by_deadline {
            self.earliest_read_to_front(die);
        }
        // Buffers of finished reads are reused: no allocation per read.
        let (mut txs, mut sensed) = self.array.read_scratch.pop().unwrap_or_default();
        txs.clear();
        sensed.clear();
        let mut array_ns = 0;
        let mut i = 0;
        let mut looked = 0;
        // The flash page (inside its block) of the first read taken: a
        // multi-plane read senses the same one on each plane.
        let mut first_in_block = None;
        // Reads a host waits for go before the controller's own prefetches.
        let demand_only = self.read_ahead.is_some() && self.has_host_read(die);
        while looked < 16 && sensed.len() < max_planes {
            // Reads that cannot join are passed over with no other effect:
            // find the next one that can, within the reads left to look at.
            // Skip on the address the read was queued with; only a read
            // that fits is looked up again.
            let fits = |tx: &ReadTx| {
                !(demand_only && tx.read_for == ReadFor::Prefetch)
                    && may_take_read(&sensed, first_in_block, tx)
            };
            let queue = &self.array.dies[die.index()].reads;
            // A plain loop rather than `position`: this search is the read
            // path's hottest, and the loop stays inlined where the
            // iterator's `try_fold` may not (docs/performance.md).
            let mut found = None;
            for (k, tx) in queue.range(i..).take(16 - looked).enumerate() {
                if fits(tx) {
                    found = Some(k);
                    break;
                }
            }
            let Some(skipped) = found else {
                break;
            };
            looked += skipped + 1;
            i += skipped;
            let tx = queue[i];
            // Re-resolve: the page may have been rewritten or moved since.
            let mapped = if self.writes.buffer.holds(tx.lpa) {
                None
            } else {
                self.ftl.lookup(tx.lpa)
            };
            let Some(ppa) = mapped else {
                self.array.dies[die.index()].reads.remove(i);
                if !tx.read_for.is_prefetch() {
                    self.tally.counters.buffer_read_hits += 1;
                }
                self.deliver(tx, now + self.cfg.controller.dram_ns, q);
                continue;
            };
            let moved = ppa != tx.ppa;
            let tx = if moved {
                tx.moved_to(ppa, &self.layout)
            } else {
                tx
            };
            let owner = self.layout.die_of_plane(tx.plane);
            if owner != die {
                self.array.dies[die.index()].reads.remove(i);
                self.array.dies[owner.index()].reads.push_back(tx);
                self.wake_for_read(owner, now, q);
                continue;
            }
            if moved {
                // Its new address may no longer suit the read being built.
                self.array.dies[die.index()].reads[i] = tx;
                if !may_take_read(&sensed, first_in_block, &tx) {
                    i += 1;
                    continue;
                }
            }
            // One page per plane and operation: a further page of the same
            // flash page follows as a register hit.
            let plane = tx.plane;
            let page = self.layout.flash_page_of(ppa);
            sensed.push((plane, page));
            if !self.cfg.timing.independent_plane_reads {
                first_in_block.get_or_insert(tx.page_in_block);
            }
            if self.array.plane_register[plane.index()] == Some(page) {
                self.tally.counters.register_hits += 1;
            } else {
                self.tally.counters.flash_reads += 1;
                array_ns = array_ns.max(self.read_time(ppa));
            }
            self.array.dies[die.index()].reads.remove(i);
            if let Err(e) = self.ftl.verify_flash_read(tx.lpa) {
                self.tally.integrity_error.get_or_insert(e);
            }
            txs.push(tx);
        }
        if txs.is_empty() {
            self.array.read_scratch.push((txs, sensed));
            return false;
        }
        if sensed.len() > 1 {
            self.tally.counters.multi_plane_ops += 1;
        }
        self.array.dies[die.index()].op = DieOp::Read { txs, sensed };
        q.schedule(
            now + self.cfg.timing.flash_command_ns + array_ns,
            DevEvent::ReadArrayDone(die),
        );
        true
    }

    /// Whether a host read (or a prefetch one waits for) is among the reads
    /// the die scheduler looks at.
    #[inline]
    pub(super) fn has_host_read(&self, die: DieId) -> bool {
        self.array.dies[die.index()]
            .reads
            .iter()
            .take(16)
            .any(|tx| tx.read_for != ReadFor::Prefetch)
    }

    pub(super) fn read_time(&mut self, ppa: Ppn) -> Ns {
        let nominal = self.nominal_read_time(ppa);
        self.vary(nominal)
    }

    pub(super) fn nominal_read_time(&self, ppa: Ppn) -> Ns {
        match self.slc_mode(self.layout.block_of(ppa)) {
            Some(s) => s.read_ns,
            None => match &self.cfg.timing.read_ns_by_page_type {
                Some(by_type) => {
                    let page = self.layout.flash_page_in_block(ppa) as usize;
                    by_type[page % by_type.len()]
                }
                None => self.cfg.timing.read_ns,
            },
        }
    }

    pub(super) fn on_read_array_done(
        &mut self,
        die: DieId,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let DieOp::Read { txs, sensed } =
            std::mem::replace(&mut self.array.dies[die.index()].op, DieOp::Idle)
        else {
            unreachable!("ReadArrayDone without a read in progress");
        };
        for &(plane, page) in &sensed {
            self.array.plane_register[plane.index()] = Some(page);
        }
        let ch = self.array.dies[die.index()].channel as usize;
        let mut t = self.array.channel_busy[ch].max(now);
        for tx in &txs {
            t += self.array.page_xfer_ns;
            let decode = self.cfg.controller.read_page_ns;
            self.array.decode_busy = self.array.decode_busy.max(t) + decode;
            self.deliver(*tx, self.array.decode_busy, q);
        }
        self.array.channel_busy[ch] = t;
        self.array.read_scratch.push((txs, sensed));
        // The die stays busy until its data has left the chip.
        self.set_die_op(die, DieOp::ReadOut, t, q);
    }

    /// A program or erase on the die overwrites its planes' page registers.
    pub(super) fn clear_registers(&mut self, die: DieId) {
        for plane in self.planes_of(die) {
            self.array.plane_register[plane.index()] = None;
        }
    }

    /// A read's data is decoded at `at`: a host read leaves over the link, a
    /// prefetch lands in the read-ahead buffer and serves its waiters.
    #[inline]
    fn deliver(&mut self, tx: ReadTx, at: Ns, q: &mut impl Timers<DevEvent>) {
        if let ReadFor::Host(slot) = tx.read_for {
            return self.read_page_out(slot, at, q);
        }
        self.deliver_prefetch(tx, at, q);
    }

    /// A prefetch lands in the read-ahead buffer and serves its waiters.
    #[inline(never)]
    fn deliver_prefetch(&mut self, tx: ReadTx, at: Ns, q: &mut impl Timers<DevEvent>) {
        let waiters = match self.read_ahead.as_mut() {
            Some(ra) => ra.complete(tx.lpa, at),
            None => Vec::new(),
        };
        for slot in waiters {
            self.read_page_out(slot, at + self.cfg.controller.dram_ns, q);
        }
    }

    /// Serves a host read from the read-ahead buffer if its page is there or
    /// on its way; returns whether it did.
    #[inline(never)]
    pub(super) fn read_ahead_lookup(
        &mut self,
        slot: SlotId,
        lpa: Lpn,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) -> bool {
        let Some(ra) = self.read_ahead.as_ref() else {
            return false;
        };
        let (version, ready) = match ra.find(lpa) {
            Held::Ready(at, version) => (version, Some(at)),
            Held::Pending(version) => (version, None),
            Held::Absent => return false,
        };
        match ready {
            Some(at) => {
                self.read_ahead.as_mut().expect("read-ahead on").take(lpa);
                let at = at.max(now) + self.cfg.controller.dram_ns;
                self.read_page_out(slot, at, q);
            }
            None => {
                self.read_ahead
                    .as_mut()
                    .expect("read-ahead on")
                    .wait(lpa, slot);
                self.promote_prefetch(lpa, now, q);
            }
        }
        self.tally.counters.read_ahead_hits += 1;
        if version != self.ftl.version(lpa) {
            let e = format!("read-ahead served lpa {lpa} at version {version}, not the latest");
            self.tally.integrity_error.get_or_insert(e);
        }
        true
    }

    /// Issues the prefetches a host read command calls for.
    #[inline(never)]
    pub(super) fn read_ahead_issue(
        &mut self,
        lpa: Lpn,
        pages: u32,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let logical = self.layout.logical_pages;
        let Some(ra) = self.read_ahead.as_mut() else {
            return;
        };
        for next in ra.on_host_read(lpa, pages, logical).map(Lpn) {
            let ra = self.read_ahead.as_mut().expect("read-ahead on");
            if ra.is_known(next) || self.writes.buffer.holds(next) {
                continue;
            }
            let Some(ppa) = self.ftl.lookup(next) else {
                continue;
            };
            if !ra.has_room(now) {
                ra.stop_at(next);
                break;
            }
            ra.issue(next, self.ftl.version(next));
            self.tally.counters.prefetched_pages += 1;
            let tx = ReadTx::new(ReadFor::Prefetch, next, ppa, &self.layout);
            let die = self.layout.die_of_plane(tx.plane);
            self.array.dies[die.index()].reads.push_back(tx);
            // Background work: a prefetch starts an idle die but suspends
            // and preempts nothing.
            if matches!(self.array.dies[die.index()].op, DieOp::Idle) {
                self.try_start(die, now, q);
            }
        }
    }

    /// A host read waits for the prefetch of `lpa`: the prefetch keeps its
    /// place in its die's queue but is now served as a host read.
    fn promote_prefetch(&mut self, lpa: Lpn, now: Ns, q: &mut impl Timers<DevEvent>) {
        let Some(ppa) = self.ftl.lookup(lpa) else {
            return;
        };
        let die = self.layout.die_of_plane(self.layout.plane_of(ppa));
        if let Some(tx) = self.array.dies[die.index()]
            .reads
            .iter_mut()
            .find(|tx| tx.read_for == ReadFor::Prefetch && tx.lpa == lpa)
        {
            tx.read_for = ReadFor::Promoted;
            self.wake_for_read(die, now, q);
        }
    }
}

/// Whether `tx` can join the read being assembled (`sensed`): its plane is
/// not reading yet and its page address suits a multi-plane read (the same
/// flash page inside its block as the first read's, `first_in_block`,
/// unless the planes read independently: then that is None).
#[inline]
fn may_take_read(sensed: &[(PlaneId, u32)], first_in_block: Option<u32>, tx: &ReadTx) -> bool {
    sensed.iter().all(|&(p, _)| p != tx.plane)
        && first_in_block.is_none_or(|first| first == tx.page_in_block)
}
