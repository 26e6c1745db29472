//! Background work on a die: GC and SLC-folding jobs, their triggers and
//! victims, pacing against host programs, and preemption by host I/O.

use super::*;

impl SimSsd {
    /// Host programs became ready while a background GC job runs unpaced:
    /// it pauses once it has copied a quota more (paced GC only).
    pub(super) fn pace_running_job(
        &mut self,
        die: DieId,
        mut job: Job,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let Some(quota) = self.pacing_quota(die, &job, now) else {
            return;
        };
        let done = ((now - job.started).div_ceil(job.step_ns) as u32).min(job.pages_left);
        let pause_after = done + quota;
        if pause_after >= job.pages_left {
            return;
        }
        self.yield_after(die, &mut job, pause_after);
        let at = job.started + pause_after as u64 * job.step_ns;
        self.set_die_op(die, DieOp::Job(job), at, q);
    }

    /// The GC job due on this die: with `critical`, only for a plane at its
    /// host reserve; else for any plane below the soft threshold. A paused
    /// job resumes before a new one starts.
    pub(super) fn next_gc(&mut self, die: DieId, critical: bool) -> Option<Job> {
        let reserve = self.ftl.host_reserve_blocks();
        if let Some(job) = self.array.dies[die.index()].paused_gc {
            // Any plane of the die at its reserve makes the paused job run to
            // its end, so that the critical job can follow it.
            let is_critical = self
                .planes_of(die)
                .any(|p| self.ftl.free_blocks(p) <= reserve);
            if critical && !is_critical {
                return None;
            }
            self.array.dies[die.index()].paused_gc = None;
            return Some(Job {
                critical: is_critical,
                ..job
            });
        }
        // Asked on every idle die: no plane at its reserve, no critical job.
        if critical
            && self
                .planes_of(die)
                .all(|p| self.ftl.free_blocks(p) > reserve)
        {
            return None;
        }
        let enabled = self.ftl.used_share() >= self.cfg.gc.enable_at_full;
        let global = !critical && self.cfg.gc.on_demand.global_order;
        let parallel = self.parallel_victims();
        // Fixed arrays: a die asks for GC whenever it falls idle.
        let mut victims = [BlockId(0); MAX_PARALLEL_VICTIMS];
        let mut taken = 0;
        let mut near: [Option<PlaneId>; MAX_PARALLEL_VICTIMS] = [None; MAX_PARALLEL_VICTIMS];
        let mut best: Option<(f64, BlockId)> = None;
        for (i, plane) in self.planes_of(die).enumerate() {
            let due = if critical {
                self.ftl.free_blocks(plane) <= reserve
            } else {
                enabled && self.background_gc_due(plane)
            };
            if !due {
                // A multi-plane job takes the die's other planes along when
                // they are near their own trigger (within twice the soft
                // threshold), as firmware that collects across planes does.
                let close = self.ftl.free_blocks(plane) < 2 * self.policies.soft_blocks;
                if close && !global && i < MAX_PARALLEL_VICTIMS {
                    near[i] = Some(plane);
                }
                continue;
            }
            let Some(victim) = self.collectable_victim(plane) else {
                continue;
            };
            if global {
                let score = self.policies.victim.score(&self.ftl, victim);
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, victim));
                }
            } else if taken < parallel {
                victims[taken] = victim;
                taken += 1;
            }
        }
        if let Some((_, victim)) = best {
            victims[0] = victim;
            taken = 1;
        }
        if taken == 0 {
            return None;
        }
        for plane in near.into_iter().flatten() {
            if taken == parallel {
                break;
            }
            if let Some(victim) = self.collectable_victim(plane) {
                victims[taken] = victim;
                taken += 1;
            }
        }
        Some(self.new_job(JobKind::Gc, &victims[..taken], critical))
    }

    /// The policy's victim on `plane`, if its valid pages fit the plane's
    /// GC frontier.
    fn collectable_victim(&mut self, plane: PlaneId) -> Option<BlockId> {
        collectable(
            self.policies.victim.as_mut(),
            &self.ftl,
            plane,
            &mut self.policies.rng,
        )
    }

    /// Victims a GC job collects at once: one per plane of the die with
    /// multi-plane operations (copy-back within each plane, the planes in
    /// step), else one.
    fn parallel_victims(&self) -> usize {
        if self.cfg.timing.multi_plane {
            (self.layout.planes_per_die as usize).clamp(1, MAX_PARALLEL_VICTIMS)
        } else {
            1
        }
    }

    pub(super) fn background_gc_due(&mut self, plane: PlaneId) -> bool {
        let ctx = TriggerCtx {
            ftl: &self.ftl,
            plane,
            now: self.clock,
            soft_blocks: self.policies.soft_blocks,
        };
        self.policies.trigger.due(&ctx)
    }

    /// Background folding of the SLC cache, when the die has nothing else.
    pub(super) fn next_fold(&mut self, die: DieId) -> Option<Job> {
        if let Some(job) = self.array.dies[die.index()].paused_fold.take() {
            return Some(job);
        }
        let idle = self.drive_idle_long_enough();
        for plane in self.planes_of(die) {
            // A cache with room waits for idle time; a full one folds
            // whenever the die has nothing else to do.
            if !idle && self.host_slc(plane) {
                continue;
            }
            let Some(victim) = self.ftl.fold_candidate(plane) else {
                continue;
            };
            // A fold needs at most one destination block; background GC
            // restores the soft threshold afterwards.
            let valid = self.ftl.valid(victim) as u32;
            let room =
                valid == 0 || self.ftl.free_blocks(plane) > self.ftl.host_reserve_blocks() + 1;
            if room && self.ftl.can_relocate(plane, valid) {
                return Some(self.new_job(JobKind::Fold, &[victim], false));
            }
        }
        None
    }

    /// Whether the drive has been idle for `slc_cache.fold_idle_ns` (always
    /// true when that is 0).
    fn drive_idle_long_enough(&self) -> bool {
        let wait = self.fold.idle_ns;
        wait == 0 || self.fold.idle_since.is_some_and(|t| self.clock >= t + wait)
    }

    /// Relocates the victims' valid pages in the maps now and returns the
    /// job that occupies the die for the copies and the erases. Victims on
    /// different planes are copied in step (multi-plane): the job lasts as
    /// long as its fullest victim's copies.
    pub(super) fn new_job(&mut self, kind: JobKind, victims: &[BlockId], critical: bool) -> Job {
        let t = &self.cfg.timing;
        let (src_read, erase) = match self.slc_mode(victims[0]) {
            Some(s) => (s.read_ns, s.erase_ns),
            None => (t.read_ns, t.erase_ns),
        };
        let bus = if self.cfg.gc.copy_back {
            0
        } else {
            2 * self.array.page_xfer_ns
        };
        // Per mapping page: a share of the flash-page read and of the
        // one-shot program.
        let units = self.layout.units_per_flash_page as u64;
        let page_step_ns = t.flash_command_ns
            + src_read / units
            + bus
            + t.program_ns / (units * t.one_shot_pages as u64);
        let opened_before = self.ftl.opened_blocks();
        let mut capacity = 0.0;
        let (mut pages_left, mut fullest) = (0u32, 0u32);
        let mut slots = [None; MAX_PARALLEL_VICTIMS];
        for (slot, &victim) in slots.iter_mut().zip(victims) {
            capacity += self.ftl.block_capacity(victim) as f64;
            let valid = self.ftl.relocate(victim);
            pages_left += valid;
            fullest = fullest.max(valid);
            *slot = Some(victim);
        }
        // The planes copy in step: `pages_left` steps of this length take
        // as long as the fullest victim's copies one by one.
        let step_ns = (page_step_ns * fullest.max(1) as u64)
            .div_ceil(pages_left.max(1) as u64)
            .max(1);
        let invalid = (capacity - pages_left as f64).max(1.0);
        // Erasing as blocks open: the job erases the destination blocks it
        // opens instead of its victims; the planes erase in parallel.
        let lanes = victims.len() as u64;
        let erase_left = if self.cfg.ftl.erase_when_opened {
            (self.ftl.opened_blocks() - opened_before).div_ceil(lanes) * t.erase_ns
        } else {
            erase
        };
        Job {
            kind,
            critical,
            victims: slots,
            pages_left,
            step_ns,
            erase_left,
            started: 0,
            copies_per_host_page: pages_left as f64 / invalid,
            quota: None,
        }
    }

    pub(super) fn start_job(
        &mut self,
        die: DieId,
        mut job: Job,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        job.started = now;
        self.clear_registers(die);
        let end = now + job.pages_left as u64 * job.step_ns + job.erase_left;
        // Paced: copy the quota, then pause for one host program.
        let at = match self.pacing_quota(die, &job, now) {
            Some(pages) => {
                self.yield_after(die, &mut job, pages);
                now + pages as u64 * job.step_ns
            }
            None => {
                job.quota = None;
                self.array.dies[die.index()].host_turn = false;
                end
            }
        };
        self.set_die_op(die, DieOp::Job(job), at, q);
    }

    /// A paced job pauses after `pages` copies and one host program goes;
    /// the quota that set it paid for the pages earlier programs left unpaid.
    fn yield_after(&mut self, die: DieId, job: &mut Job, pages: u32) {
        job.quota = Some(pages);
        let d = &mut self.array.dies[die.index()];
        d.host_turn = true;
        d.unpaid_pages = 0;
    }

    /// With paced GC, the pages a background job copies before it lets a
    /// waiting host program go: enough for that program's pages to be
    /// covered. None when the job runs to its end (not paced, critical,
    /// nothing waiting, or fewer pages left than the quota).
    pub(super) fn pacing_quota(&self, die: DieId, job: &Job, now: Ns) -> Option<u32> {
        if !self.cfg.gc.pacing || job.critical || job.kind != JobKind::Gc {
            return None;
        }
        if !self.program_ready(die, now) {
            return None;
        }
        let programmed = if self.cfg.timing.multi_plane {
            self.layout.planes_per_die
        } else {
            1
        };
        let first_plane = self.layout.plane_of_die(die, 0);
        let per_plane = self.paced_host_pages(first_plane, job);
        let unpaid = self.array.dies[die.index()].unpaid_pages;
        let host_pages = per_plane as f64 * programmed as f64 + f64::from(unpaid);
        let quota = ((host_pages * job.copies_per_host_page).ceil() as u32).max(1);
        (quota < job.pages_left).then_some(quota)
    }

    /// Host pages per plane that go between two stretches of a paced job's
    /// copies: a whole program's worth, or with mixed programs the host's
    /// share of one program, `P / (1 + copies per host page)` (at least 1).
    pub(super) fn paced_host_pages(&self, plane: PlaneId, job: &Job) -> usize {
        let full = self.program_pages(plane);
        if !self.cfg.gc.mixed_programs {
            return full;
        }
        let share = (full as f64 / (1.0 + job.copies_per_host_page)).round() as usize;
        share.clamp(1, full)
    }

    /// With mixed programs, the host pages a plane may take in the program
    /// a paused GC job lets go.
    pub(super) fn mixed_program_cap(&self, die: DieId) -> Option<usize> {
        if !self.cfg.gc.mixed_programs {
            return None;
        }
        let job = self.array.dies[die.index()].paused_gc.as_ref()?;
        Some(self.paced_host_pages(self.layout.plane_of_die(die, 0), job))
    }

    /// The array time of a program of `items` pages on `planes` planes,
    /// the fullest plane taking `most` of a full program's `full` pages:
    /// with `cap` (a mixed program, the host's share of a program shared
    /// with GC copies) that share of `prog`, and the pages beyond the host
    /// share are left for the next GC quota to pay; otherwise `prog` (a
    /// partial program of the host's own is padded).
    pub(super) fn mixed_program_time(
        &mut self,
        die: DieId,
        cap: Option<usize>,
        (items, planes): (usize, usize),
        (most, full): (usize, usize),
        prog: Ns,
    ) -> Ns {
        let Some(c) = cap else {
            return prog;
        };
        self.array.dies[die.index()].unpaid_pages += items.saturating_sub(c * planes) as u32;
        if most < full {
            prog * most as u64 / full as u64
        } else {
            prog
        }
    }

    /// Host I/O waits for background work only until the page copy in
    /// progress ends (or, with suspend, briefly during the erase).
    pub(super) fn preempt_job(
        &mut self,
        die: DieId,
        mut job: Job,
        now: Ns,
        q: &mut impl Timers<DevEvent>,
    ) {
        let quota = job.quota.take();
        let copy_end = job.started + job.pages_left as u64 * job.step_ns;
        let pause_at = if now < copy_end {
            // Copies stop only between destination programs (whole one-shot
            // programs of the native mode).
            let grain = (self.layout.units_per_flash_page * self.cfg.timing.one_shot_pages) as u64;
            let started = (now - job.started).div_ceil(job.step_ns);
            let done = (started.div_ceil(grain) * grain)
                .min(job.pages_left as u64)
                .min(quota.map_or(u64::MAX, u64::from));
            job.pages_left -= done as u32;
            job.started + done * job.step_ns
        } else if let Some(s) = &self.cfg.timing.suspend {
            let erase_end = copy_end + job.erase_left;
            job.pages_left = 0;
            job.erase_left = erase_end - now + s.resume_ns;
            self.tally.counters.suspends += 1;
            now + s.suspend_ns
        } else {
            return;
        };
        self.tally.counters.gc_preemptions += 1;
        self.set_die_op(die, DieOp::Pausing(job), pause_at, q);
    }
}

/// The policy's victim on `plane`, if its valid pages fit the plane's GC
/// frontier (timed GC, and the untimed GC of preconditioning).
pub(super) fn collectable(
    gc: &mut dyn GcPolicy,
    ftl: &Ftl,
    plane: PlaneId,
    rng: &mut ChaCha8Rng,
) -> Option<BlockId> {
    let victim = gc.select_victim(ftl, plane, rng)?;
    ftl.can_relocate(plane, ftl.valid(victim) as u32)
        .then_some(victim)
}
