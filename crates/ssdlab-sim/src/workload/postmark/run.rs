//! The Postmark processes and the flusher as one kernel workload.
//!
//! Sources: process `p` is source `p`; the flusher is source `processes`.
//! `Wake(p)` ends a process's CPU step; `Wake(flusher)` is its periodic
//! wake-up and `Submit(flusher)` a kick (dirty data over the background
//! threshold, a throttled writer, the final sync).

use super::config::PostmarkConfig;
use super::fs::{Group, Journal, Layout};
use super::ops::{Directory, OpBuilder, OpBytes, OpKind, Step};
use super::report::{LatencyFigures, PostmarkReport};
use crate::host::page_cache::Run;
use crate::host::{Bio, BioDone, PageCache, PageCacheConfig};
use crate::kernel::{Ctx, WorkEvent, Workload};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxHashMap;
use ssdlab_metrics::hist::FioHistogram;
use ssdlab_protocol::Device;
use ssdlab_protocol::Dir;
use ssdlab_protocol::Ns;
use ssdlab_sched::IoPrio;
use std::collections::VecDeque;

/// Where a process is in its run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Creating the initial pool (files still to create).
    Populate(u32),
    /// Transactions still to run; `second` is the create/delete half of
    /// the current one.
    Transact {
        left: u32,
        second: bool,
    },
    /// Deleting what is left.
    Cleanup,
    Done,
}

struct Process {
    dir: Directory,
    phase: Phase,
    steps: VecDeque<Step>,
    /// Bios the process waits for.
    waiting: u32,
    /// Waiting at the dirty limit.
    throttled: bool,
    /// A CPU step is running.
    busy: bool,
    op: Option<(OpKind, Ns)>,
    transactions_start: Option<Ns>,
    transactions_end: Ns,
}

/// What a bio in flight is for.
#[derive(Debug, Clone)]
enum BioFor {
    Read {
        process: u32,
        first: u32,
        pages: u32,
    },
    SyncWrite {
        process: u32,
        first: u32,
        pages: u32,
    },
    Writeback(Run),
}

pub struct PostmarkWorkload {
    cfg: PostmarkConfig,
    layout: Layout,
    journal: Journal,
    page_bytes: u64,
    cache: PageCache,
    procs: Vec<Process>,
    bios: FxHashMap<u64, BioFor>,
    next_bio: u64,
    flusher_backlog: VecDeque<Run>,
    flusher_blocked: bool,
    flusher_kicked: bool,
    syncing: bool,
    finished: bool,
    start: Ns,
    end: Ns,
    class_hist: [FioHistogram; 3],
    op_hist: [FioHistogram; 4],
    bytes: OpBytes,
    transactions: u64,
    skipped: u64,
    /// Write-back pages submitted per 100 ms since the start.
    writeback_timeline: Vec<u64>,
}

impl PostmarkWorkload {
    /// A workload for a device of `pages` pages of `page_bytes`. Err when
    /// the device cannot hold the layout.
    pub fn new(
        cfg: PostmarkConfig,
        cache: PageCacheConfig,
        pages: u32,
        page_bytes: u32,
        seed: u64,
    ) -> Result<PostmarkWorkload, String> {
        let journal_pages = cfg.journal_bytes.div_ceil(page_bytes as u64);
        let inodes = cfg.files.saturating_add(cfg.transactions);
        let layout = u32::try_from(journal_pages)
            .ok()
            .and_then(|j| Layout::new(pages, cfg.processes, inodes, j))
            .ok_or_else(|| {
                format!(
                    "a device of {pages} pages cannot hold the journal ({} bytes), \
                     the inode tables and {} file groups",
                    cfg.journal_bytes, cfg.processes
                )
            })?;
        let procs = (0..cfg.processes)
            .map(|p| process(&layout, p, cfg.files, seed))
            .collect();
        Ok(PostmarkWorkload {
            journal: Journal::new(&layout),
            layout,
            page_bytes: page_bytes as u64,
            cache: PageCache::new(cache, page_bytes),
            procs,
            bios: FxHashMap::default(),
            next_bio: 1,
            flusher_backlog: VecDeque::new(),
            flusher_blocked: false,
            flusher_kicked: false,
            syncing: false,
            finished: false,
            start: 0,
            end: 0,
            class_hist: Default::default(),
            op_hist: Default::default(),
            bytes: OpBytes::default(),
            transactions: 0,
            skipped: 0,
            writeback_timeline: Vec::new(),
            cfg,
        })
    }

    fn flusher(&self) -> u32 {
        self.cfg.processes
    }

    pub fn cache(&self) -> &PageCache {
        &self.cache
    }

    /// The run's figures (after it is done).
    pub fn report(&self) -> PostmarkReport {
        let elapsed = (self.end.saturating_sub(self.start)) as f64 / 1e9;
        let tx_start = self.procs.iter().filter_map(|p| p.transactions_start).min();
        let tx_end = self
            .procs
            .iter()
            .map(|p| p.transactions_end)
            .max()
            .unwrap_or(0);
        let tx_secs = tx_start.map_or(0.0, |s| tx_end.saturating_sub(s) as f64 / 1e9);
        let per_s = |x: f64, secs: f64| if secs > 0.0 { x / secs } else { 0.0 };
        PostmarkReport {
            processes: self.cfg.processes,
            transactions: self.transactions,
            transactions_per_s: per_s(self.transactions as f64, tx_secs),
            read_mb_s: per_s(self.bytes.read as f64 / 1e6, elapsed),
            write_mb_s: per_s(self.bytes.written as f64 / 1e6, elapsed),
            elapsed_s: elapsed,
            sync_write: LatencyFigures::of(&self.class_hist[0]),
            async_write: LatencyFigures::of(&self.class_hist[1]),
            read: LatencyFigures::of(&self.class_hist[2]),
            ops: OpKind::ALL
                .iter()
                .zip(&self.op_hist)
                .map(|(k, h)| (k.name().to_string(), LatencyFigures::of(h)))
                .collect(),
            page_cache: self.cache.counters().clone(),
            writeback_pages_per_100ms: self.writeback_timeline.clone(),
            skipped_ops: self.skipped,
        }
    }

    fn note_writeback(&mut self, pages: u32, now: Ns) {
        let bin = (now.saturating_sub(self.start) / 100_000_000) as usize;
        if self.writeback_timeline.len() <= bin {
            self.writeback_timeline.resize(bin + 1, 0);
        }
        self.writeback_timeline[bin] += u64::from(pages);
    }

    /// Submits the bio for `purpose`; false when it waits for a tag.
    fn submit<D: Device>(&mut self, purpose: BioFor, cx: &mut Ctx<'_, D>) -> bool {
        let (dir, first, pages, sync, job) = match purpose {
            BioFor::Read {
                process,
                first,
                pages,
            } => (Dir::Read, first, pages, true, process),
            BioFor::SyncWrite {
                process,
                first,
                pages,
            } => (Dir::Write, first, pages, true, process),
            BioFor::Writeback(r) => {
                self.note_writeback(r.pages, cx.now());
                (Dir::Write, r.first, r.pages, false, self.flusher())
            }
        };
        let id = self.next_bio;
        self.next_bio += 1;
        self.bios.insert(id, purpose);
        let bio = Bio {
            id,
            job,
            dir,
            sector: first as u64 * self.page_bytes / 512,
            bytes: (pages as u64 * self.page_bytes) as u32,
            prio: IoPrio::NONE,
            sync,
            flush: false,
            fua: false,
            issue_ns: cx.now(),
            submit_ns: cx.now(),
        };
        cx.submit_bio(bio)
    }

    // ---- processes -------------------------------------------------------

    /// Runs process `p`'s steps until it must wait (CPU, I/O, throttle).
    fn advance<D: Device>(&mut self, p: u32, cx: &mut Ctx<'_, D>) {
        loop {
            let proc = &self.procs[p as usize];
            if proc.waiting > 0 || proc.throttled || proc.busy || proc.phase == Phase::Done {
                return;
            }
            let Some(step) = self.procs[p as usize].steps.pop_front() else {
                self.finish_op(p, cx.now());
                if !self.start_op(p, cx.now()) {
                    self.process_done(cx);
                    return;
                }
                continue;
            };
            self.run_step(p, step, cx);
        }
    }

    fn run_step<D: Device>(&mut self, p: u32, step: Step, cx: &mut Ctx<'_, D>) {
        match step {
            Step::Cpu(ns) => {
                self.procs[p as usize].busy = true;
                cx.schedule(cx.now() + ns, WorkEvent::Wake(p));
            }
            Step::SyncWrite { first, pages } => {
                self.procs[p as usize].waiting += 1;
                self.submit(
                    BioFor::SyncWrite {
                        process: p,
                        first,
                        pages,
                    },
                    cx,
                );
            }
            Step::Read(pages) => self.read_pages(p, &pages, cx),
            Step::Write { pages, partial } => {
                if let Some(page) = partial.filter(|&l| !self.cache.contains(l)) {
                    // Read-modify-write: the page comes in first.
                    self.procs[p as usize].steps.push_front(Step::Write {
                        pages,
                        partial: None,
                    });
                    self.read_pages(p, &[page], cx);
                    return;
                }
                for &l in &pages {
                    self.cache.write(l, cx.now());
                }
                self.after_dirtying(p, cx);
            }
            Step::Drop(pages) => {
                for l in pages {
                    self.cache.drop_page(l);
                }
            }
        }
    }

    /// Issues one read per run of pages that miss the cache.
    fn read_pages<D: Device>(&mut self, p: u32, pages: &[u32], cx: &mut Ctx<'_, D>) {
        let missing: Vec<u32> = pages
            .iter()
            .copied()
            .filter(|&l| !self.cache.read(l))
            .collect();
        let mut i = 0;
        while i < missing.len() {
            let first = missing[i];
            let mut n = 1;
            while i + (n as usize) < missing.len() && missing[i + n as usize] == first + n {
                n += 1;
            }
            self.procs[p as usize].waiting += 1;
            let purpose = BioFor::Read {
                process: p,
                first,
                pages: n,
            };
            self.submit(purpose, cx);
            i += n as usize;
        }
    }

    /// balance_dirty_pages: kick the flusher over the background threshold;
    /// over the dirty limit the writer waits for write-back.
    fn after_dirtying<D: Device>(&mut self, p: u32, cx: &mut Ctx<'_, D>) {
        if self.cache.over_dirty_limit() {
            self.cache.note_throttled();
            self.procs[p as usize].throttled = true;
        }
        if self.cache.over_background() {
            self.kick_flusher(cx);
        }
    }

    fn finish_op(&mut self, p: u32, now: Ns) {
        let proc = &mut self.procs[p as usize];
        if let Some((kind, start)) = proc.op.take() {
            let i = OpKind::ALL.iter().position(|&k| k == kind).expect("a kind");
            self.op_hist[i].record(now - start);
        }
        if let Phase::Transact { left, second } = proc.phase {
            if second {
                self.transactions += 1;
                proc.transactions_end = now;
                proc.phase = Phase::Transact {
                    left: left - 1,
                    second: false,
                };
            } else {
                proc.phase = Phase::Transact { left, second: true };
            }
        }
    }

    /// Starts the process's next operation; false when it has none left.
    fn start_op(&mut self, p: u32, now: Ns) -> bool {
        loop {
            let proc = &mut self.procs[p as usize];
            let (kind, next_phase) = match proc.phase {
                Phase::Populate(0) => {
                    proc.phase = Phase::Transact {
                        left: self.cfg.transactions,
                        second: false,
                    };
                    continue;
                }
                Phase::Populate(n) => (OpKind::Create, Phase::Populate(n - 1)),
                Phase::Transact { left: 0, .. } => {
                    proc.phase = Phase::Cleanup;
                    continue;
                }
                Phase::Transact { second, .. } => {
                    proc.transactions_start.get_or_insert(now);
                    let (bias, yes, no) = if second {
                        (self.cfg.create_bias, OpKind::Create, OpKind::Delete)
                    } else {
                        (self.cfg.read_bias, OpKind::Read, OpKind::Append)
                    };
                    let kind = if proc.dir.rng.gen_range(0..10) < bias {
                        yes
                    } else {
                        no
                    };
                    (kind, proc.phase)
                }
                Phase::Cleanup if proc.dir.files.is_empty() => {
                    proc.phase = Phase::Done;
                    return false;
                }
                Phase::Cleanup => (OpKind::Delete, Phase::Cleanup),
                Phase::Done => return false,
            };
            proc.phase = next_phase;
            let cleanup = next_phase == Phase::Cleanup;
            let mut b = OpBuilder {
                cfg: &self.cfg,
                layout: &self.layout,
                journal: &mut self.journal,
                page_bytes: self.page_bytes,
            };
            let (dir, steps) = (&mut proc.dir, &mut proc.steps);
            let done = match kind {
                OpKind::Create => b.create(dir, steps),
                OpKind::Delete => b.delete(dir, cleanup.then_some(0), steps),
                OpKind::Read => b.read(dir, steps),
                OpKind::Append => b.append(dir, steps),
            };
            match done {
                Some(bytes) => {
                    self.bytes.read += bytes.read;
                    self.bytes.written += bytes.written;
                    proc.op = Some((kind, now));
                    return true;
                }
                None => {
                    // Nothing to do (no file, or the group is full): the
                    // operation is counted as done and skipped.
                    self.skipped += 1;
                    proc.op = None;
                    self.finish_op(p, now);
                }
            }
        }
    }

    fn process_done<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        if self.procs.iter().all(|p| p.phase == Phase::Done) && !self.syncing {
            self.syncing = true;
            self.kick_flusher(cx);
            self.check_finished(cx.now());
        }
    }

    // ---- the flusher -----------------------------------------------------

    fn kick_flusher<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        if !self.flusher_kicked {
            self.flusher_kicked = true;
            cx.schedule(cx.now(), WorkEvent::Submit(self.flusher()));
        }
    }

    fn flush<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        let runs = self.cache.take_writeback(cx.now(), self.syncing);
        self.flusher_backlog.extend(runs);
        self.pump(cx);
    }

    /// Submits write-back until a bio has to wait for a tag.
    fn pump<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        while !self.flusher_blocked {
            let Some(run) = self.flusher_backlog.pop_front() else {
                return;
            };
            if !self.submit(BioFor::Writeback(run), cx) {
                self.flusher_blocked = true;
            }
        }
    }

    fn check_finished(&mut self, now: Ns) {
        let clean = self.cache.dirty_pages() == 0 && self.cache.writeback_pages() == 0;
        if self.syncing && clean && self.flusher_backlog.is_empty() && self.bios.is_empty() {
            self.finished = true;
            self.end = now;
        }
    }
}

fn process(layout: &Layout, p: u32, files: u32, seed: u64) -> Process {
    let first = layout.data_first + p * layout.group_pages;
    Process {
        dir: Directory {
            group_index: p,
            group: Group::new(first, layout.group_pages),
            files: Vec::new(),
            next_ino: 0,
            rng: ChaCha8Rng::seed_from_u64(
                seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(p as u64 + 1)),
            ),
        },
        phase: Phase::Populate(files),
        steps: VecDeque::new(),
        waiting: 0,
        throttled: false,
        busy: false,
        op: None,
        transactions_start: None,
        transactions_end: 0,
    }
}

impl Workload for PostmarkWorkload {
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        self.start = cx.now();
        let interval = self.cache.config().writeback_interval_ns;
        cx.schedule(cx.now() + interval, WorkEvent::Wake(self.flusher()));
        for p in 0..self.cfg.processes {
            self.advance(p, cx);
        }
    }

    fn on_event<D: Device>(&mut self, ev: WorkEvent, cx: &mut Ctx<'_, D>) {
        let flusher = self.flusher();
        match ev {
            WorkEvent::Wake(s) if s == flusher => {
                let interval = self.cache.config().writeback_interval_ns;
                cx.schedule(cx.now() + interval, WorkEvent::Wake(flusher));
                self.flush(cx);
            }
            WorkEvent::Submit(s) if s == flusher => {
                self.flusher_kicked = false;
                self.flush(cx);
            }
            WorkEvent::Wake(p) => {
                self.procs[p as usize].busy = false;
                self.advance(p, cx);
            }
            WorkEvent::Submit(_) | WorkEvent::Complete(_) => {}
        }
        self.check_finished(cx.now());
    }

    fn bio_done<D: Device>(&mut self, done: BioDone, cx: &mut Ctx<'_, D>) {
        let latency = done.time.saturating_sub(done.bio.submit_ns);
        let Some(purpose) = self.bios.remove(&done.bio.id) else {
            return;
        };
        match purpose {
            BioFor::Read {
                process,
                first,
                pages,
            } => {
                self.class_hist[2].record(latency);
                for l in first..first + pages {
                    self.cache.fill(l);
                }
                self.io_done(process, cx);
            }
            BioFor::SyncWrite { process, .. } => {
                self.class_hist[0].record(latency);
                self.io_done(process, cx);
            }
            BioFor::Writeback(run) => {
                self.class_hist[1].record(latency);
                self.cache.writeback_done(run);
                self.release_throttled(cx);
                if self.syncing && self.flusher_backlog.is_empty() && self.cache.dirty_pages() > 0 {
                    self.kick_flusher(cx);
                }
            }
        }
        self.check_finished(cx.now());
    }

    fn unblocked<D: Device>(&mut self, source: u32, cx: &mut Ctx<'_, D>) {
        if source == self.flusher() {
            self.flusher_blocked = false;
            self.pump(cx);
        }
    }

    fn is_done(&self) -> bool {
        self.finished
    }
}

impl PostmarkWorkload {
    fn io_done<D: Device>(&mut self, p: u32, cx: &mut Ctx<'_, D>) {
        self.procs[p as usize].waiting -= 1;
        self.advance(p, cx);
    }

    /// Writers waiting at the dirty limit go on once write-back brought the
    /// cache under it; while it is still over, the flusher keeps writing.
    fn release_throttled<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        if self.cache.over_dirty_limit() {
            if self.flusher_backlog.is_empty() {
                self.kick_flusher(cx);
            }
            return;
        }
        for p in 0..self.cfg.processes {
            if std::mem::replace(&mut self.procs[p as usize].throttled, false) {
                self.advance(p, cx);
            }
        }
    }
}
