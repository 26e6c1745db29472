//! The write path: the DRAM buffer, flush queues and gathering, programs
//! (one-shot, multi-plane, erase on open, suspend/resume), commits, and the
//! mapping-table write-back.

use super::*;
use crate::alloc::Target;

impl SimSsd {
    /// Puts one page into the buffer (room was checked).
    pub(super) fn buffer_write(
        &mut self,
        slot: SlotId,
        lpa: Lpn,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        // The data entering the buffer supersedes any copy read ahead.
        if let Some(ra) = self.read_ahead.as_mut() {
            ra.invalidate(lpa);
        }
        let version = self.ftl.next_version(lpa);
        let deadline = self.intake.slots[slot.index()].deadline;
        if self.writes.buffer.insert(slot, lpa, version) {
            self.enqueue_flush(lpa, deadline, now, q);
        } else {
            self.note_rewrite_deadline(lpa, deadline);
        }
        if !self.writes.buffer.write_through() {
            self.page_done(slot, now + self.cfg.controller.dram_ns, q);
        }
    }

    /// Queues a buffered page for programming, with the deadline of the
    /// command that wrote it (`NO_DEADLINE`: none).
    pub(super) fn enqueue_flush(
        &mut self,
        lpa: Lpn,
        deadline: Ns,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        self.arm_gather(now, q);
        self.count_waiting_page(true);
        let entry = (PageData::Host(lpa), now, deadline);
        match self.policies.allocation.target(lpa) {
            Target::Plane(plane) => {
                let own = self.writes.own_queue[plane.index()] as usize;
                self.writes.own_flushes[own].push_back(entry);
                self.wake_for_write(self.layout.die_of_plane(plane), now, q);
            }
            Target::Group(group) => {
                self.writes.own_flushes[group as usize].push_back(entry);
                self.offer_group(group, now, q);
            }
            Target::Any => {
                self.writes.shared_flushes.push_back(entry);
                self.offer_shared(now, q);
            }
        }
    }

    /// Offers a die group's queue to its dies: the idle ones start, in
    /// channel-first order, until it is empty; then, if pages still wait,
    /// the group's busy dies are woken for them (a fold yields, a running
    /// background GC job is paced).
    pub(super) fn offer_group(&mut self, group: u32, now: Ns, q: &mut impl Timers<DevEvent>) {
        let queue = group as usize;
        for idle_only in [true, false] {
            for k in 0..self.array.channel_first.len() {
                if self.writes.own_flushes[queue].is_empty() {
                    return;
                }
                let die = self.array.channel_first[k];
                let idle = matches!(self.array.dies[die.index()].op, DieOp::Idle);
                if self.policies.allocation.die_groups()[die.index()] == group && idle == idle_only
                {
                    self.wake_for_write(die, now, q);
                }
            }
        }
    }

    /// Offers the shared flush queue to the idle dies in channel-first order
    /// until it is empty (an idle die may prefer GC, have no room, or wait to
    /// gather a full program).
    pub(super) fn offer_shared(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        self.start_idle_dies(now, q, |ssd| !ssd.writes.shared_flushes.is_empty());
        // Shared pages concern every die: one running background GC paces
        // it, or (serving by deadline) stops for a page with a deadline.
        if (self.cfg.gc.pacing || self.policies.by_deadline)
            && !self.writes.shared_flushes.is_empty()
        {
            for d in self.layout.all_dies() {
                if matches!(self.array.dies[d.index()].op, DieOp::Job(job) if job.kind == JobKind::Gc)
                {
                    self.wake_for_write(d, now, q);
                }
            }
        }
    }

    pub(super) fn arm_gather(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        let gather = self.cfg.buffer.gather_ns;
        if gather > 0 && !self.writes.gather_armed {
            self.writes.gather_armed = true;
            q.schedule(now + gather, DevEvent::GatherDue);
        }
    }

    /// Pages have waited long enough: idle dies program what there is.
    pub(super) fn on_gather_due(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        self.writes.gather_armed = false;
        self.start_idle_dies(now, q, |_| true);
        // Busy dies too: pages now due preempt folds and pace GC.
        for d in self.layout.all_dies() {
            self.wake_for_write(d, now, q);
        }
        let waiting = !self.writes.shared_flushes.is_empty()
            || self.writes.own_flushes.iter().any(|f| !f.is_empty());
        if waiting {
            self.arm_gather(now, q);
        }
    }

    pub(super) fn wake_for_write(&mut self, die: DieId, now: Ns, q: &mut impl Timers<DevEvent>) {
        match self.array.dies[die.index()].op {
            DieOp::Idle => self.try_start(die, now, q),
            DieOp::Job(job) if job.kind == JobKind::Fold && self.program_ready(die, now) => {
                self.preempt_job(die, job, now, q)
            }
            DieOp::Job(job) if self.deadline_program_preempts(die, &job) => {
                self.preempt_job(die, job, now, q)
            }
            DieOp::Job(job) if job.kind == JobKind::Gc && job.quota.is_none() => {
                self.pace_running_job(die, job, now, q)
            }
            _ => {}
        }
    }

    /// Pages a host program on `plane` writes at once: whole flash pages,
    /// one wordline's worth per SLC-mode program, `one_shot_pages` per
    /// native one.
    pub(super) fn program_pages(&self, plane: PlaneId) -> usize {
        self.host_mode(plane).1
    }

    /// The stream a host program on `plane` writes to now, and its pages.
    fn host_mode(&self, plane: PlaneId) -> (Stream, usize) {
        let units = self.layout.units_per_flash_page;
        let one_shot = self.cfg.timing.one_shot_pages;
        match &self.cfg.slc_cache {
            Some(slc) if self.host_slc(plane) => {
                (Stream::Host, (units * slc.program_pages(one_shot)) as usize)
            }
            _ => (Stream::HostNative, (units * one_shot) as usize),
        }
    }

    /// Whether host programs on `plane` go to the SLC cache now. A
    /// multi-plane program runs all its planes in one mode (NAND cannot pair
    /// an SLC-mode page with a native one-shot), so with multi-plane programs
    /// a die writes its cache only while every plane of it has room, as
    /// firmware that keeps the cache in super-blocks does; a die whose other
    /// plane is full writes natively until a fold frees room there.
    pub(super) fn host_slc(&self, plane: PlaneId) -> bool {
        if !self.cfg.timing.multi_plane {
            return self.ftl.host_goes_to_slc(plane);
        }
        let die = self.layout.die_of_plane(plane);
        self.planes_of(die).all(|p| self.ftl.host_goes_to_slc(p))
    }

    /// Whether `plane` has a full program queued, or pages that waited
    /// `gather_ns` (always, when flushing eagerly).
    pub(super) fn plane_ready(&self, plane: PlaneId, now: Ns) -> bool {
        let own = &self.writes.own_flushes[self.writes.own_queue[plane.index()] as usize];
        let queued = own.len() + self.writes.shared_flushes.len();
        if queued == 0 {
            return false;
        }
        let gather = self.cfg.buffer.gather_ns;
        if gather == 0 || queued >= self.program_pages(plane) {
            return true;
        }
        let oldest = [own.front(), self.writes.shared_flushes.front()]
            .into_iter()
            .flatten()
            .map(|&(_, t, _)| t)
            .min()
            .unwrap_or(now);
        oldest + gather <= now
    }

    pub(super) fn program_ready(&self, die: DieId, now: Ns) -> bool {
        self.planes_of(die).any(|p| self.plane_ready(p, now))
    }

    /// Programs this die: on each plane (one, or several with multi-plane)
    /// that is ready, up to one program's worth of queued pages, or up to
    /// `cap` pages a plane: the host's share of a program shared with GC
    /// copies, which takes that share of the program time. Returns false
    /// when there was nothing to program.
    pub(super) fn start_program(
        &mut self,
        die: DieId,
        cap: Option<usize>,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) -> bool {
        let max_planes = if self.cfg.timing.multi_plane {
            self.layout.planes_per_die as usize
        } else {
            1
        };
        let mut items = Vec::new();
        let mut planes = 0;
        let mut die_mode = None;
        // The most pages a plane took, and a full program's.
        let (mut most, mut full_program) = (0, 1);
        for plane in self.planes_of(die) {
            if planes == max_planes {
                break;
            }
            if !self.plane_ready(plane, now) {
                continue;
            }
            // With multi-plane programs the mode is the die's, decided before
            // the first page is taken (the pages may use up a plane's cache).
            let (stream, full) = die_mode.unwrap_or_else(|| self.host_mode(plane));
            if self.cfg.timing.multi_plane {
                die_mode = Some((stream, full));
            }
            if !self.ftl.can_write(plane, stream) {
                continue;
            }
            let before = items.len();
            // The cap counts host pages only: mapping-table pages queued
            // with them fill the program (the next GC quota pays for them).
            let mut host = 0;
            while items.len() - before < full && cap.is_none_or(|c| host < c) {
                match self.next_flush(plane, stream) {
                    Some(item) => {
                        host += usize::from(matches!(item.0, PageData::Host(_)));
                        items.push(item);
                    }
                    None => break,
                }
                if !self.ftl.can_write(plane, stream) {
                    break;
                }
            }
            let taken = items.len() - before;
            (most, full_program) = (most.max(taken), full);
            if taken > 0 {
                planes += 1;
            }
        }
        if items.is_empty() {
            return false;
        }
        // The commits at the program's end look these pages up in the
        // forward map: start bringing the entries in now.
        for lpa in host_pages(&items) {
            self.ftl.prefetch(lpa);
        }
        self.tally.counters.flash_programs += planes as u64;
        if planes > 1 {
            self.tally.counters.multi_plane_ops += 1;
        }
        self.clear_registers(die);
        let ch = self.array.dies[die.index()].channel as usize;
        let xfer_end = self.array.channel_busy[ch].max(now + self.cfg.timing.flash_command_ns)
            + self.array.page_xfer_ns * items.len() as u64;
        self.array.channel_busy[ch] = xfer_end;
        // One array time per plane programmed (its first page stands for it).
        let mut prog = 0;
        let mut plane = None;
        for &(_, ppa, _) in &items {
            if Some(self.layout.plane_of(ppa)) != plane {
                plane = Some(self.layout.plane_of(ppa));
                prog = prog.max(self.program_time(ppa));
            }
        }
        let prog =
            self.mixed_program_time(die, cap, (items.len(), planes), (most, full_program), prog)
                + self.open_erase_time(&items);
        self.run_program(die, items, xfer_end + prog, prog, q);
        true
    }

    /// The erase that must precede a program opening new blocks (with
    /// `erase_when_opened`; the planes erase in parallel).
    pub(super) fn open_erase_time(&self, items: &[ProgramItem]) -> Ns {
        if !self.cfg.ftl.erase_when_opened {
            return 0;
        }
        items
            .iter()
            .filter(|&&(_, ppa, _)| self.layout.offset_in_block(ppa) == 0)
            .map(
                |&(_, ppa, _)| match self.slc_mode(self.layout.block_of(ppa)) {
                    Some(s) => s.erase_ns,
                    None => self.cfg.timing.erase_ns,
                },
            )
            .max()
            .unwrap_or(0)
    }

    pub(super) fn program_time(&mut self, ppa: Ppn) -> Ns {
        let nominal = match self.slc_mode(self.layout.block_of(ppa)) {
            Some(s) => s.program_ns,
            None => self.cfg.timing.program_ns,
        };
        self.vary(nominal)
    }

    /// The next page to program on `plane`: its own queue (the plane's, or
    /// its die group's) first, then the shared one. Entries trimmed or
    /// already flushing are dropped.
    pub(super) fn next_flush(&mut self, plane: PlaneId, stream: Stream) -> Option<ProgramItem> {
        if self.policies.by_deadline {
            return self.next_flush_by_deadline(plane, stream);
        }
        let own = self.writes.own_queue[plane.index()] as usize;
        // Older shared entries (mapping-table pages under static allocation)
        // go before the plane's own, so neither starves.
        while self
            .writes
            .shared_flushes
            .front()
            .is_some_and(|&(_, t, _)| {
                self.writes.own_flushes[own]
                    .front()
                    .is_some_and(|&(_, own, _)| t < own)
            })
        {
            let (data, _, _) = self.writes.shared_flushes.pop_front().expect("checked");
            if let Some(item) = self.take_flush(data, plane, stream) {
                return Some(item);
            }
        }
        while let Some((data, _, _)) = self.writes.own_flushes[own].pop_front() {
            if let Some(item) = self.take_flush(data, plane, stream) {
                return Some(item);
            }
        }
        while let Some((data, _, _)) = self.writes.shared_flushes.pop_front() {
            if let Some(item) = self.take_flush(data, plane, stream) {
                return Some(item);
            }
        }
        None
    }

    /// Marks the buffered page as flushing and allocates its flash page.
    /// None when the page no longer needs flushing (trimmed meanwhile).
    pub(super) fn take_flush(
        &mut self,
        data: PageData,
        plane: PlaneId,
        stream: Stream,
    ) -> Option<ProgramItem> {
        let PageData::Host(lpa) = data else {
            let ppa = self.ftl.alloc_page(plane, stream)?;
            return Some((data, ppa, 0));
        };
        let version = self.writes.buffer.start_flush(lpa)?;
        let ppa = self
            .ftl
            .alloc_page(plane, stream)
            .expect("can_write checked");
        Some((data, ppa, version))
    }

    pub(super) fn suspend_program(&mut self, die: DieId, now: Ns, q: &mut impl Timers<DevEvent>) {
        let s = self.cfg.timing.suspend.clone().expect("suspend configured");
        let d = &mut self.array.dies[die.index()];
        if d.suspended.is_some() {
            return;
        }
        let DieOp::Program { items, end, .. } = std::mem::replace(&mut d.op, DieOp::Idle) else {
            unreachable!("suspend_program on a die that is not programming");
        };
        // Only the array phase can be suspended; keep the remaining time.
        let remaining = end.saturating_sub(now) + s.resume_ns;
        d.suspended = Some((items, remaining));
        d.suspend_read_done = false;
        self.tally.counters.suspends += 1;
        self.set_die_op(die, DieOp::Suspending, now + s.suspend_ns, q);
    }

    pub(super) fn resume_program(
        &mut self,
        die: DieId,
        items: Vec<ProgramItem>,
        remaining: Ns,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        self.clear_registers(die);
        self.run_program(die, items, now + remaining, remaining, q);
    }

    /// The die programs `items` until `end`, the last `array_ns` of it in the
    /// array (the part a read may suspend).
    fn run_program(
        &mut self,
        die: DieId,
        items: Vec<ProgramItem>,
        end: Ns,
        array_ns: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let op = DieOp::Program {
            items,
            end,
            array_ns,
        };
        self.set_die_op(die, op, end, q);
    }

    /// A flush program finished: map it, release or re-flush the buffer entry
    /// and let back-pressured writes in.
    pub(super) fn commit_flush(
        &mut self,
        data: PageData,
        ppa: Ppn,
        version: u32,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let PageData::Host(lpa) = data else {
            // The table page supersedes an older copy: count the space as
            // garbage at once (the table is a tiny share of the flash).
            self.ftl.commit_stale(ppa);
            self.tally.counters.map_pages_written += 1;
            return;
        };
        let c = self.writes.buffer.commit(lpa, version);
        if c.trimmed {
            self.ftl.commit_stale(ppa);
        } else {
            self.ftl.commit(lpa, ppa, version);
        }
        for slot in c.done_slots {
            self.page_done(slot, now, q);
        }
        if !c.trimmed {
            self.note_map_update(lpa, now, q);
        }
        if c.flush_again {
            let deadline = self.take_late_deadline(lpa);
            self.enqueue_flush(lpa, deadline, now, q);
        }
        self.admit_waiting(now, q);
    }

    /// Lets back-pressured writes into freed buffer slots, in arrival order.
    pub(super) fn admit_waiting(&mut self, now: Ns, q: &mut impl Timers<DevEvent>) {
        while let Some((slot, lpa)) = self.writes.buffer.next_admitted() {
            self.buffer_write(slot, lpa, now, q);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{SlcCache, SsdConfig};

    /// One die of two planes with a static SLC cache of one block each.
    fn die_with_cache(multi_plane: bool) -> SimSsd {
        let mut cfg = SsdConfig::builtin("seed004").unwrap();
        cfg.geometry.channels = 1;
        cfg.geometry.planes_per_die = 2;
        cfg.geometry.blocks_per_plane = 24;
        cfg.geometry.pages_per_block = Some(16);
        cfg.ftl.over_provisioning = 0.3;
        cfg.timing.multi_plane = multi_plane;
        cfg.slc_cache = Some(SlcCache {
            blocks_per_plane: 1,
            bits_per_cell: 2,
            read_ns: 10_000,
            program_ns: 50_000,
            erase_ns: 300_000,
            fold_idle_ns: 0,
            dynamic_blocks_per_plane: 0,
        });
        cfg.validate().unwrap();
        SimSsd::new(cfg, 1, true)
    }

    /// Fills plane 0's cache; plane 1's stays empty.
    fn fill_cache_of_plane_0(ssd: &mut SimSsd) {
        let mut lpa = 0;
        while ssd.ftl.host_goes_to_slc(PlaneId(0)) {
            let ppa = ssd.ftl.alloc_page(PlaneId(0), Stream::Host).unwrap();
            ssd.ftl.commit(Lpn(lpa), ppa, 0);
            lpa += 1;
        }
        assert!(ssd.ftl.host_goes_to_slc(PlaneId(1)));
    }

    #[test]
    fn a_mixed_program_carries_the_host_share_of_a_wordline() {
        let mut ssd = die_with_cache(true);
        ssd.cfg.slc_cache = None;
        let full = ssd.program_pages(PlaneId(0));
        let job = |copies_per_host_page| Job {
            kind: JobKind::Gc,
            critical: false,
            victims: [None; MAX_PARALLEL_VICTIMS],
            pages_left: 1000,
            step_ns: 1,
            erase_left: 0,
            started: 0,
            copies_per_host_page,
            quota: None,
        };
        // Without mixed programs a paced job lets a whole program go.
        assert_eq!(ssd.paced_host_pages(PlaneId(0), &job(4.0)), full);
        ssd.cfg.gc.mixed_programs = true;
        // Victims 80 % valid: four copies per host page, a fifth of each
        // program is the host's; nearly empty victims leave it all.
        let share = (full as f64 / 5.0).round() as usize;
        assert_eq!(ssd.paced_host_pages(PlaneId(0), &job(4.0)), share.max(1));
        assert_eq!(ssd.paced_host_pages(PlaneId(0), &job(0.0)), full);
        assert_eq!(ssd.paced_host_pages(PlaneId(0), &job(1e6)), 1);
    }

    #[test]
    fn a_die_programs_both_planes_in_one_mode() {
        let mut ssd = die_with_cache(true);
        let native = ssd.layout.units_per_flash_page * ssd.cfg.timing.one_shot_pages;
        assert!(ssd.host_slc(PlaneId(1)));
        fill_cache_of_plane_0(&mut ssd);
        // Plane 1 still has cache room, but a program on this die also
        // takes plane 0, whose cache is full: the die writes natively.
        assert!(!ssd.host_slc(PlaneId(1)));
        assert_eq!(
            ssd.host_mode(PlaneId(1)),
            (Stream::HostNative, native as usize)
        );
        // A native page on plane 1 goes to a native block.
        assert!(ssd.ftl.can_write(PlaneId(1), Stream::HostNative));
        let ppa = ssd.ftl.alloc_page(PlaneId(1), Stream::HostNative).unwrap();
        assert!(!ssd.ftl.is_slc(ssd.layout.block_of(ppa)));
    }

    #[test]
    fn without_multi_plane_programs_each_plane_keeps_its_own_mode() {
        let mut ssd = die_with_cache(false);
        fill_cache_of_plane_0(&mut ssd);
        assert!(!ssd.host_slc(PlaneId(0)));
        assert!(ssd.host_slc(PlaneId(1)));
    }
}
