//! fio's buffered I/O (`direct=0`) through the host page cache, as a job
//! on a raw block device sees it (block/fops.c, mm/filemap.c).
//!
//! - A buffered read copies cached pages; missing ones are read from the
//!   device, with on-demand readahead (`readahead.rs`), and the job sleeps
//!   until the pages it asked for arrive.
//! - A buffered write reads a partial page it does not hold, dirties its
//!   pages and returns; over `dirty_ratio` the writer sleeps until
//!   write-back brings the cache under it (balance_dirty_pages).
//! - The flusher writes dirty pages back asynchronously (`PageCache`
//!   decides which), woken by its period while dirty data exists, or kicked
//!   over the background threshold.
//! - fsync/fdatasync write back every dirty page of the device in the
//!   caller's context as REQ_SYNC bios, wait for those and for write-back
//!   already in flight (filemap_write_and_wait), then send an empty FLUSH
//!   (blkdev_issue_flush) and wait for it. An O_SYNC write does the same for
//!   its own range once its pages are dirty.
//! - At the end of the run every dirty page is written back: nothing dirty
//!   is lost.
//!
//! Job operations end after a copy cost per page on the job's CPU; the
//! workload routes them back to the job as completions.

mod device_bios;
mod readahead;

use crate::host::page_cache::Run;
use crate::host::{Bio, BioDone, HostConfig, PageCache, PageCacheCounters, PAGE_BYTES};
use crate::kernel::Ctx;
use readahead::Readahead;
use rustc_hash::FxHashMap;
use serde::Serialize;
use ssdlab_protocol::Device;
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use ssdlab_sched::IoPrio;
use std::collections::VecDeque;

/// Ids of the bios the page cache sends to the device (job bios have the
/// top bit clear).
const DEVICE_BIO: u64 = 1 << 63;

/// What the page cache did for buffered jobs, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct BufferedCounters {
    #[serde(flatten)]
    pub cache: PageCacheCounters,
    /// Pages read from the device beyond what jobs asked for (readahead).
    pub readahead_pages: u64,
    /// Write-back bios sent by the flusher.
    pub writeback_bios: u64,
    /// Periodic flusher wake-ups that found pages to write back.
    pub writeback_wakeups: u64,
    /// Write-back bios sent by fsync and O_SYNC writes (REQ_SYNC).
    pub sync_writeback_bios: u64,
    /// Empty FLUSH bios sent by fsync and O_SYNC writes.
    pub flushes: u64,
}

/// A job operation that has ended: the job sees it at `done.time` (plus a
/// wake-up when it `slept` waiting for the device).
pub struct Finished {
    pub done: BioDone,
    pub slept: bool,
}

/// What a job operation does once nothing holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    Finish,
    Dirty,
    WriteThrough,
    Flush,
    /// A held direct bio goes down.
    Release,
}

struct Op {
    bio: Bio,
    first: u32,
    pages: u32,
    next: Next,
    /// Device bios the operation waits for.
    waiting: u32,
    throttled: bool,
    slept: bool,
    /// A direct bio held until its range is written back.
    direct: bool,
}

#[derive(Debug, Clone, Copy)]
enum DevKind {
    Read { first: u32, pages: u32 },
    Writeback { run: Run, sync: bool },
    Flush,
}

struct DevBio {
    source: u32,
    prio: IoPrio,
    kind: DevKind,
    /// Job operations waiting for this bio.
    waiters: Vec<u64>,
}

/// Bios a source (a job, or the flusher) has still to hand to the block
/// layer: a submitter waiting for a tag sends nothing else meanwhile.
#[derive(Default)]
struct Submitter {
    backlog: VecDeque<u64>,
    blocked: bool,
}

struct JobIo {
    buffered: bool,
    sync_writes: bool,
    readahead: Readahead,
    /// The job's CPU is busy copying until then.
    cpu_free: Ns,
}

pub struct BufferedIo {
    cache: PageCache,
    copy_ns: Ns,
    device_pages: u32,
    bio_max_pages: u32,
    jobs: Vec<JobIo>,
    submitters: Vec<Submitter>,
    ops: FxHashMap<u64, Op>,
    dev: FxHashMap<u64, DevBio>,
    /// Pages being read, and the bio bringing each.
    reading: FxHashMap<u32, u64>,
    next_dev: u64,
    throttled: Vec<u64>,
    flusher_armed: bool,
    flusher_kicked: bool,
    syncing_all: bool,
    finished: Vec<Finished>,
    /// Direct bios whose range was written back, ready to go down.
    released: Vec<Bio>,
    counters: BufferedCounters,
}

/// What a job tells the page cache about itself.
pub struct JobMode {
    pub buffered: bool,
    pub sync_writes: bool,
}

impl BufferedIo {
    /// The page cache of a device of `device_bytes` for `jobs` (the flusher
    /// is source `jobs.len()`).
    pub fn new(host: &HostConfig, device_bytes: u64, jobs: &[JobMode]) -> BufferedIo {
        let bio_max_pages = (host.max_request_bytes / PAGE_BYTES).max(1);
        let mut cache_cfg = host.page_cache.clone();
        // Larger write-back bios would be split to max_sectors_kb.
        cache_cfg.writeback_max_bytes = cache_cfg.writeback_max_bytes.min(host.max_request_bytes);
        let ra_pages = (host.read_ahead_kb as u64 * 1024 / PAGE_BYTES as u64) as u32;
        BufferedIo {
            cache: PageCache::new(cache_cfg, PAGE_BYTES).one_file(),
            copy_ns: host.costs.page_copy_ns,
            device_pages: u32::try_from(device_bytes / PAGE_BYTES as u64).unwrap_or(u32::MAX),
            bio_max_pages,
            jobs: jobs
                .iter()
                .map(|m| JobIo {
                    buffered: m.buffered,
                    sync_writes: m.sync_writes,
                    readahead: Readahead::new(ra_pages),
                    cpu_free: 0,
                })
                .collect(),
            submitters: (0..=jobs.len()).map(|_| Submitter::default()).collect(),
            ops: FxHashMap::default(),
            dev: FxHashMap::default(),
            reading: FxHashMap::default(),
            next_dev: DEVICE_BIO,
            throttled: Vec::new(),
            flusher_armed: false,
            flusher_kicked: false,
            syncing_all: false,
            finished: Vec::new(),
            released: Vec::new(),
            counters: BufferedCounters::default(),
        }
    }

    /// The flusher's source index.
    pub fn flusher(&self) -> u32 {
        (self.submitters.len() - 1) as u32
    }

    /// Whether the page cache takes this job bio: a buffered job's reads
    /// and writes, and every fsync (it writes back the whole device's
    /// dirty pages, whoever dirtied them).
    pub fn takes(&self, bio: &Bio) -> bool {
        bio.is_empty_flush() || (self.jobs[bio.job as usize].buffered && bio.dir != Dir::Trim)
    }

    /// Whether `id` is one of the page cache's own device bios.
    pub fn owns(id: u64) -> bool {
        id & DEVICE_BIO != 0
    }

    pub fn counters(&self) -> BufferedCounters {
        BufferedCounters {
            cache: self.cache.counters().clone(),
            ..self.counters.clone()
        }
    }

    /// Operations that ended since the last call, in order.
    pub fn take_finished(&mut self) -> Vec<Finished> {
        std::mem::take(&mut self.finished)
    }

    /// Direct bios released since the last call, in order.
    pub fn take_released(&mut self) -> Vec<Bio> {
        std::mem::take(&mut self.released)
    }

    /// A direct job's read or write while the page cache may hold its
    /// range: as block/fops.c, the range's dirty pages are written back
    /// and waited for first, and a direct write drops the cached copies.
    /// Returns the bio when it may go down now; else it is held and comes
    /// back from `take_released`.
    pub fn direct<D: Device>(&mut self, bio: Bio, cx: &mut Ctx<'_, D>) -> Option<Bio> {
        let (first, pages) = page_span(&bio);
        let end = first.saturating_add(pages);
        if !(first..end).any(|l| self.cache.is_unsafe(l)) {
            if bio.dir == Dir::Write {
                self.drop_range(&bio);
            }
            return Some(bio);
        }
        let id = bio.id;
        let op = Op {
            bio,
            first,
            pages,
            next: Next::WriteThrough,
            waiting: 0,
            throttled: false,
            slept: true,
            direct: true,
        };
        self.ops.insert(id, op);
        self.advance(id, cx);
        None
    }

    /// Nothing dirty, under write-back, being read or waiting.
    pub fn is_clean(&self) -> bool {
        self.cache.dirty_pages() == 0
            && self.cache.writeback_pages() == 0
            && self.dev.is_empty()
            && self.ops.is_empty()
    }

    /// A buffered trim (a discard of the device's range) drops the cached
    /// pages it covers, dirty ones included, before it goes down.
    pub fn drop_range(&mut self, bio: &Bio) {
        let (first, pages) = page_span(bio);
        for lpn in first..first.saturating_add(pages) {
            self.cache.drop_page(lpn);
        }
    }

    /// A job operation enters the page cache at `now`.
    pub fn submit<D: Device>(&mut self, mut bio: Bio, cx: &mut Ctx<'_, D>) {
        let now = cx.now();
        bio.submit_ns = now;
        let id = bio.id;
        let (first, pages) = page_span(&bio);
        let next = if bio.is_empty_flush() {
            Next::Flush
        } else if bio.dir == Dir::Write {
            Next::Dirty
        } else {
            Next::Finish
        };
        let op = Op {
            bio,
            first,
            pages,
            next,
            waiting: 0,
            throttled: false,
            slept: false,
            direct: false,
        };
        self.ops.insert(id, op);
        match next {
            Next::Flush => self.start_fsync(id, cx),
            Next::Dirty => self.start_write(id, cx),
            _ => self.start_read(id, cx),
        }
        self.advance(id, cx);
    }

    // ---- job operations --------------------------------------------------

    fn start_read<D: Device>(&mut self, id: u64, cx: &mut Ctx<'_, D>) {
        let op = &self.ops[&id];
        let (first, pages, job) = (op.first, op.pages, op.bio.job);
        let mut missing = Vec::new();
        for lpn in first..first + pages {
            if !self.cache.read(lpn) {
                missing.push(lpn);
            }
        }
        let window = self.jobs[job as usize].readahead.on_read(
            first,
            pages,
            !missing.is_empty(),
            self.device_pages,
        );
        if let Some(w) = window {
            let asked = missing.len() as u64;
            let fresh = self.read_pages(job, w.first..w.first + w.pages, cx);
            self.counters.readahead_pages += fresh.saturating_sub(asked);
        }
        // What the window did not cover is read as asked.
        self.read_pages(job, missing.iter().copied(), cx);
        for lpn in missing {
            let bio = *self
                .reading
                .get(&lpn)
                .expect("a missing page is being read");
            self.wait_on(id, bio);
        }
    }

    fn start_write<D: Device>(&mut self, id: u64, cx: &mut Ctx<'_, D>) {
        let op = &self.ops[&id];
        let (first, pages, job) = (op.first, op.pages, op.bio.job);
        let (head, tail) = partial_pages(&op.bio);
        // A partial page not cached is read first (read-modify-write).
        let partial: Vec<u32> = [head, tail]
            .into_iter()
            .flatten()
            .filter(|&l| !self.cache.contains(l))
            .collect();
        self.read_pages(job, partial, cx);
        // Pages being read are locked until the read ends.
        let busy: Vec<u64> = (first..first + pages)
            .filter_map(|l| self.reading.get(&l).copied())
            .collect();
        for bio in busy {
            self.wait_on(id, bio);
        }
    }

    fn start_fsync<D: Device>(&mut self, id: u64, cx: &mut Ctx<'_, D>) {
        let job = self.ops[&id].bio.job;
        let runs = self.cache.take_writeback(cx.now(), true);
        self.send_writeback(job, runs, true, cx);
        let in_flight: Vec<u64> = self
            .dev
            .iter()
            .filter(|(_, d)| matches!(d.kind, DevKind::Writeback { .. }))
            .map(|(&k, _)| k)
            .collect();
        for bio in in_flight {
            self.wait_on(id, bio);
        }
    }

    /// Runs operation `id` on until it waits for something or ends.
    fn advance<D: Device>(&mut self, id: u64, cx: &mut Ctx<'_, D>) {
        while let Some(op) = self.ops.get(&id) {
            if op.waiting > 0 || op.throttled {
                return;
            }
            let next = op.next;
            match next {
                Next::Finish => return self.finish(id, cx.now()),
                Next::Dirty => self.dirty(id, cx),
                Next::WriteThrough => self.write_through(id, cx),
                Next::Flush => self.send_flush(id, cx),
                Next::Release => return self.release(id),
            }
        }
    }

    fn dirty<D: Device>(&mut self, id: u64, cx: &mut Ctx<'_, D>) {
        let now = cx.now();
        let op = self.ops.get_mut(&id).expect("an operation");
        op.next = if self.jobs[op.bio.job as usize].sync_writes {
            Next::WriteThrough
        } else {
            Next::Finish
        };
        for lpn in op.first..op.first + op.pages {
            self.cache.write(lpn, now);
        }
        if self.cache.over_dirty_limit() {
            op.throttled = true;
            op.slept = true;
            self.cache.note_throttled();
            self.throttled.push(id);
        }
        self.arm_flusher(cx);
        if self.cache.over_background() {
            self.kick_flusher(cx);
        }
    }

    /// An O_SYNC write: its range goes to the device now, and any
    /// write-back of it in flight is waited for; then a FLUSH.
    fn write_through<D: Device>(&mut self, id: u64, cx: &mut Ctx<'_, D>) {
        let op = self.ops.get_mut(&id).expect("an operation");
        // A held direct bio needs no FLUSH: it goes down itself.
        op.next = if op.direct {
            Next::Release
        } else {
            Next::Flush
        };
        let (first, end, job) = (op.first, op.first + op.pages, op.bio.job);
        let overlapping: Vec<u64> = self
            .dev
            .iter()
            .filter(|(_, d)| match d.kind {
                DevKind::Writeback { run, .. } => run.first < end && first < run.first + run.pages,
                _ => false,
            })
            .map(|(&k, _)| k)
            .collect();
        for bio in overlapping {
            self.wait_on(id, bio);
        }
        let runs = self.cache.take_range(first..end);
        let sent = self.send_writeback(job, runs, true, cx);
        for bio in sent {
            self.wait_on(id, bio);
        }
    }

    fn send_flush<D: Device>(&mut self, id: u64, cx: &mut Ctx<'_, D>) {
        let op = self.ops.get_mut(&id).expect("an operation");
        op.next = Next::Finish;
        let (job, prio) = (op.bio.job, op.bio.prio);
        self.counters.flushes += 1;
        let bio = self.new_dev_bio(job, prio, DevKind::Flush);
        self.wait_on(id, bio);
        self.send(job, bio, cx);
    }

    fn release(&mut self, id: u64) {
        let op = self.ops.remove(&id).expect("an operation");
        if op.bio.dir == Dir::Write {
            self.drop_range(&op.bio);
        }
        self.released.push(op.bio);
    }

    /// The operation ends after its copy on the job's CPU.
    fn finish(&mut self, id: u64, now: Ns) {
        let op = self.ops.remove(&id).expect("an operation");
        let job = &mut self.jobs[op.bio.job as usize];
        let copy = if op.bio.bytes == 0 {
            0
        } else {
            self.copy_ns * op.pages as Ns
        };
        let at = job.cpu_free.max(now) + copy;
        job.cpu_free = at;
        self.finished.push(Finished {
            done: BioDone {
                bio: op.bio,
                time: at,
            },
            slept: op.slept,
        });
    }

    fn wait_on(&mut self, op: u64, bio: u64) {
        let dev = self.dev.get_mut(&bio).expect("a device bio");
        if dev.waiters.contains(&op) {
            return;
        }
        dev.waiters.push(op);
        let op = self.ops.get_mut(&op).expect("an operation");
        op.waiting += 1;
        op.slept = true;
    }
}

/// The 4 KiB pages a job bio touches: first page and count.
fn page_span(bio: &Bio) -> (u32, u32) {
    let page = PAGE_BYTES as u64;
    let start = bio.sector * 512;
    let end = start + bio.bytes as u64;
    let first = start / page;
    let last = end.div_ceil(page);
    (first as u32, (last - first) as u32)
}

/// The first and last pages of a write that it covers only in part.
fn partial_pages(bio: &Bio) -> (Option<u32>, Option<u32>) {
    let page = PAGE_BYTES as u64;
    let start = bio.sector * 512;
    let end = start + bio.bytes as u64;
    let head = (!start.is_multiple_of(page)).then_some((start / page) as u32);
    let tail = (!end.is_multiple_of(page)).then_some((end / page) as u32);
    (head, tail)
}
