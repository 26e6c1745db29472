//! The page cache's own bios: reads (asked-for pages and readahead),
//! write-back (the flusher's, and fsync's and O_SYNC's REQ_SYNC ones) and
//! empty FLUSHes; each source's backlog while it waits for a tag; what a
//! completion releases; and the flusher's wake-ups.

use super::{BufferedIo, DevBio, DevKind};
use crate::host::page_cache::Run;
use crate::host::{Bio, BioDone, PAGE_BYTES};
use crate::kernel::{Ctx, WorkEvent};
use ssdlab_protocol::Device;
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use ssdlab_sched::IoPrio;

impl BufferedIo {
    /// Reads the pages of `lpns` neither cached nor being read, in
    /// contiguous runs; returns how many pages that was.
    pub(super) fn read_pages<D: Device>(
        &mut self,
        job: u32,
        lpns: impl IntoIterator<Item = u32>,
        cx: &mut Ctx<'_, D>,
    ) -> u64 {
        let prio = IoPrio::NONE;
        let mut runs: Vec<(u32, u32)> = Vec::new();
        for lpn in lpns {
            if self.cache.contains(lpn) || self.reading.contains_key(&lpn) {
                continue;
            }
            match runs.last_mut() {
                Some((f, n)) if *f + *n == lpn && *n < self.bio_max_pages => *n += 1,
                _ => runs.push((lpn, 1)),
            }
        }
        let mut total = 0;
        for (first, pages) in runs {
            total += pages as u64;
            let bio = self.new_dev_bio(job, prio, DevKind::Read { first, pages });
            for lpn in first..first + pages {
                self.reading.insert(lpn, bio);
            }
            self.send(job, bio, cx);
        }
        total
    }

    /// Write-back bios for `runs` from `source`; returns their ids.
    pub(super) fn send_writeback<D: Device>(
        &mut self,
        source: u32,
        runs: Vec<Run>,
        sync: bool,
        cx: &mut Ctx<'_, D>,
    ) -> Vec<u64> {
        let mut ids = Vec::with_capacity(runs.len());
        for run in runs {
            if sync {
                self.counters.sync_writeback_bios += 1;
            } else {
                self.counters.writeback_bios += 1;
            }
            let bio = self.new_dev_bio(source, IoPrio::NONE, DevKind::Writeback { run, sync });
            ids.push(bio);
            self.send(source, bio, cx);
        }
        ids
    }

    pub(super) fn new_dev_bio(&mut self, source: u32, prio: IoPrio, kind: DevKind) -> u64 {
        let id = self.next_dev;
        self.next_dev += 1;
        let dev = DevBio {
            source,
            prio,
            kind,
            waiters: Vec::new(),
        };
        self.dev.insert(id, dev);
        id
    }

    pub(super) fn send<D: Device>(&mut self, source: u32, bio: u64, cx: &mut Ctx<'_, D>) {
        self.submitters[source as usize].backlog.push_back(bio);
        self.pump(source, cx);
    }

    /// Hands `source`'s backlog to the block layer until a bio has to wait
    /// for a tag.
    pub(super) fn pump<D: Device>(&mut self, source: u32, cx: &mut Ctx<'_, D>) {
        loop {
            let sub = &mut self.submitters[source as usize];
            if sub.blocked {
                return;
            }
            let Some(id) = sub.backlog.pop_front() else {
                return;
            };
            let bio = self.block_bio(id, cx.now());
            if !cx.submit_bio(bio) {
                self.submitters[source as usize].blocked = true;
            }
        }
    }

    pub(super) fn block_bio(&self, id: u64, now: Ns) -> Bio {
        let dev = &self.dev[&id];
        let page = PAGE_BYTES as u64;
        let (dir, first, pages, sync, flush) = match dev.kind {
            DevKind::Read { first, pages } => (Dir::Read, first, pages, true, false),
            DevKind::Writeback { run, sync } => (Dir::Write, run.first, run.pages, sync, false),
            DevKind::Flush => (Dir::Write, 0, 0, true, true),
        };
        Bio {
            id,
            job: dev.source,
            dir,
            sector: first as u64 * page / 512,
            bytes: (pages as u64 * page) as u32,
            prio: dev.prio,
            sync,
            flush,
            fua: false,
            issue_ns: now,
            submit_ns: now,
        }
    }

    /// `source` may submit again (its bios waiting for a tag got one).
    pub fn unblocked<D: Device>(&mut self, source: u32, cx: &mut Ctx<'_, D>) {
        let Some(sub) = self.submitters.get_mut(source as usize) else {
            return;
        };
        if sub.blocked && !cx.waiting_for_tag(source) {
            sub.blocked = false;
            self.pump(source, cx);
        }
    }

    /// One of the page cache's device bios has ended.
    pub fn device_done<D: Device>(&mut self, done: BioDone, cx: &mut Ctx<'_, D>) {
        let Some(dev) = self.dev.remove(&done.bio.id) else {
            return;
        };
        match dev.kind {
            DevKind::Read { first, pages } => {
                for lpn in first..first + pages {
                    self.reading.remove(&lpn);
                    self.cache.fill(lpn);
                }
            }
            DevKind::Writeback { run, .. } => {
                self.cache.writeback_done(run);
                self.after_writeback(cx);
            }
            DevKind::Flush => {}
        }
        for op in dev.waiters {
            if let Some(o) = self.ops.get_mut(&op) {
                o.waiting -= 1;
            }
            self.advance(op, cx);
        }
    }

    /// Writers at the dirty limit go on once write-back brought the cache
    /// under it; while it is still over, the flusher keeps writing.
    pub(super) fn after_writeback<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        let flusher = self.flusher() as usize;
        let flusher_idle = self.submitters[flusher].backlog.is_empty();
        if self.cache.over_dirty_limit() {
            if flusher_idle {
                self.kick_flusher(cx);
            }
            return;
        }
        for op in std::mem::take(&mut self.throttled) {
            if let Some(o) = self.ops.get_mut(&op) {
                o.throttled = false;
            }
            self.advance(op, cx);
        }
        if self.syncing_all && flusher_idle && self.cache.dirty_pages() > 0 {
            self.kick_flusher(cx);
        }
    }

    // ---- the flusher -----------------------------------------------------

    /// Dirty data exists: the flusher wakes after its period (the kernel
    /// arms it when an inode is first dirtied).
    pub(super) fn arm_flusher<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        if !self.flusher_armed {
            self.flusher_armed = true;
            let at = cx.now() + self.cache.config().writeback_interval_ns;
            cx.schedule(at, WorkEvent::Wake(self.flusher()));
        }
    }

    pub(super) fn kick_flusher<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        if !self.flusher_kicked {
            self.flusher_kicked = true;
            cx.schedule(cx.now(), WorkEvent::Submit(self.flusher()));
        }
    }

    /// The flusher's own events: its periodic wake-up (`Wake`) and a kick
    /// (`Submit`).
    pub fn flusher_event<D: Device>(&mut self, ev: WorkEvent, cx: &mut Ctx<'_, D>) {
        match ev {
            WorkEvent::Wake(_) => self.flusher_armed = false,
            WorkEvent::Submit(_) => self.flusher_kicked = false,
            WorkEvent::Complete(_) => return,
        }
        let runs = self.cache.take_writeback(cx.now(), self.syncing_all);
        if matches!(ev, WorkEvent::Wake(_)) && !runs.is_empty() {
            self.counters.writeback_wakeups += 1;
        }
        let flusher = self.flusher();
        self.send_writeback(flusher, runs, false, cx);
        if self.cache.dirty_pages() > 0 {
            self.arm_flusher(cx);
        }
    }

    /// Every job is done: write back everything still dirty.
    pub fn sync_all<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        self.syncing_all = true;
        if self.cache.dirty_pages() > 0 {
            self.kick_flusher(cx);
        }
    }
}
