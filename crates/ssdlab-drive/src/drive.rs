//! The real drive behind the protocol: commands become io_uring requests on
//! the target, completions are reaped when the kernel posts them, and the
//! clock is CLOCK_MONOTONIC.

use crate::ring::{Reaped, Ring};
use crate::target::{Target, TargetKind};
use crate::verify::{Verifier, VerifyCounters, VerifySettings};
use serde::Serialize;
use ssdlab_protocol::{
    CommandError, Device, DeviceInfo, Dir, IoCommand, IoCompletion, LiveDevice, Ns, Timers,
};
use std::collections::VecDeque;
use std::time::Instant;

/// How the engine drives the target.
#[derive(Debug, Clone)]
pub struct DriveOptions {
    /// Commands the engine may have at the target at once (each gets a
    /// registered buffer): at least the host path's outstanding limit.
    pub slots: u16,
    /// Largest command in bytes (the host path's largest request).
    pub max_command_bytes: u32,
    /// Polled completions (IORING_SETUP_IOPOLL).
    pub poll: bool,
    /// Stamp every write and check every read (fio's `verify=`).
    pub verify: Option<VerifySettings>,
}

/// The engine's own event: completions are ready to be reaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reap;

/// What the engine did, for the report (asserted on by tests, not timed).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct DriveCounters {
    pub submitted: u64,
    pub completed: u64,
    /// The most commands at the target at once.
    pub max_outstanding: u32,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub bytes_trimmed: u64,
    /// FLUSHes sent (fio's fsync and fdatasync): an fsync of the target.
    pub flushes: u64,
    /// Calls into the kernel (io_uring_enter), each submitting a batch.
    pub kernel_calls: u64,
}

/// A file or block device driven through io_uring.
pub struct Drive {
    ring: Ring,
    target: Target,
    info: DeviceInfo,
    epoch: Instant,
    free_slots: Vec<u16>,
    /// The command in each slot.
    in_slot: Vec<Option<IoCommand>>,
    /// Commands waiting for a slot.
    waiting: VecDeque<IoCommand>,
    reaped: Vec<Reaped>,
    completions: Vec<IoCompletion>,
    counters: DriveCounters,
    failure: Option<String>,
    last_now: Ns,
    slot_bytes: usize,
    verifier: Option<Verifier>,
    /// For each slot holding a read: the generations its units may show.
    expected: Vec<Vec<u32>>,
}

impl Drive {
    /// Sets up the ring and its buffers on an open target.
    pub fn new(target: Target, opts: DriveOptions) -> std::io::Result<Drive> {
        let slot_bytes = opts.max_command_bytes as usize;
        let ring = Ring::new(&target.file, opts.slots, slot_bytes, opts.poll, &mut |b| {
            crate::pattern::fill(b, 1)
        })?;
        let page_size = page_size(&target);
        let info = DeviceInfo {
            name: target.path.display().to_string(),
            page_size,
            logical_pages: (target.bytes / u64::from(page_size)).min(u64::from(u32::MAX)) as u32,
            // A file's page cache and a drive's own cache: FLUSH must reach it.
            volatile_write_cache: true,
        };
        Ok(Drive {
            ring,
            info,
            epoch: Instant::now(),
            free_slots: (0..opts.slots).rev().collect(),
            in_slot: vec![None; usize::from(opts.slots)],
            waiting: VecDeque::new(),
            reaped: Vec::new(),
            completions: Vec::new(),
            counters: DriveCounters::default(),
            failure: None,
            last_now: 0,
            slot_bytes,
            verifier: opts.verify.map(Verifier::new),
            expected: vec![Vec::new(); usize::from(opts.slots)],
            target,
        })
    }

    pub fn counters(&self) -> &DriveCounters {
        &self.counters
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The I/O scheduler the kernel runs for a block device target.
    pub fn kernel_scheduler(&self) -> Option<&str> {
        match &self.target.kind {
            TargetKind::Block { kernel_scheduler } => kernel_scheduler.as_deref(),
            TargetKind::File { .. } => None,
        }
    }

    fn start(&mut self, cmd: IoCommand) {
        if cmd.bytes as usize > self.slot_bytes {
            // The caller sized the buffers for its largest command; a larger
            // one (a trace record beyond it) ends the run, it never panics.
            self.failure.get_or_insert(format!(
                "a command of {} bytes is larger than the engine's buffers of {} bytes",
                cmd.bytes, self.slot_bytes
            ));
            self.completions.push(IoCompletion {
                id: cmd.id,
                time: self.last_now,
            });
            return;
        }
        let Some(slot) = self.free_slots.pop() else {
            self.waiting.push_back(cmd);
            return;
        };
        let offset = offset_of(&cmd, self.info.page_size);
        if let Some(v) = self.verifier.as_mut() {
            let len = cmd.bytes as usize;
            match cmd.op {
                Dir::Write if cmd.is_flush() => {}
                Dir::Write => v.stamp(&mut self.ring.slot_mut(slot)[..len], offset),
                Dir::Read => self.expected[usize::from(slot)] = v.expected(offset, len),
                Dir::Trim => {}
            }
        }
        let user_data = u64::from(slot);
        match cmd.op {
            Dir::Write if cmd.is_flush() => self.ring.push_fsync(user_data),
            Dir::Read => self.ring.push(false, slot, offset, cmd.bytes, user_data),
            Dir::Write => self.ring.push(true, slot, offset, cmd.bytes, user_data),
            Dir::Trim => self.ring.push_trim(offset, cmd.bytes, user_data),
        }
        self.in_slot[usize::from(slot)] = Some(cmd);
        // Submitted at once, as fio's io_uring engine does with its default
        // iodepth_batch_submit=1: a command does not wait for the rest of
        // the events due now.
        self.counters.kernel_calls += 1;
        if let Err(e) = self.ring.enter(0, None) {
            self.failure.get_or_insert(format!("io_uring_enter: {e}"));
        }
        self.counters.submitted += 1;
        let outstanding = self.ring.in_flight();
        self.counters.max_outstanding = self.counters.max_outstanding.max(outstanding);
    }

    /// Checks a completed read's units; a failure under `verify_fatal`
    /// stops the run.
    fn check_read(&mut self, slot: u16, offset: u64, bytes: u32) {
        let Some(v) = self.verifier.as_mut() else {
            return;
        };
        let expected = std::mem::take(&mut self.expected[usize::from(slot)]);
        let buf = &self.ring.slot_mut(slot)[..bytes as usize];
        if !v.check(buf, offset, &expected) && v.fatal() && self.failure.is_none() {
            let f = v
                .counters()
                .first_failures
                .last()
                .expect("a failure was recorded");
            self.failure = Some(format!("verify failed at offset {}: {}", f.offset, f.what));
        }
    }

    /// What verification found, when the run verifies.
    pub fn verify_counters(&self) -> Option<&VerifyCounters> {
        self.verifier.as_ref().map(Verifier::counters)
    }

    /// fio's verify phase: reads back every unit written, in offset order,
    /// with as many reads outstanding as there are slots, and checks each
    /// against the generation last written. Nothing must be outstanding.
    pub fn read_back(&mut self) -> Result<(), String> {
        let Some(v) = self.verifier.as_ref() else {
            return Ok(());
        };
        assert_eq!(
            self.ring.in_flight(),
            0,
            "read-back with commands outstanding"
        );
        let unit = v.unit();
        let mut todo = v.written().into_iter();
        let mut busy: Vec<Option<(u64, u32)>> = vec![None; self.in_slot.len()];
        let mut reaped = Vec::new();
        loop {
            while let Some(slot) = self.free_slots.pop() {
                let Some((offset, generation)) = todo.next() else {
                    self.free_slots.push(slot);
                    break;
                };
                self.ring.push(false, slot, offset, unit, u64::from(slot));
                busy[usize::from(slot)] = Some((offset, generation));
            }
            if self.ring.in_flight() == 0 {
                return Ok(());
            }
            self.ring
                .enter(1, None)
                .map_err(|e| format!("io_uring_enter: {e}"))?;
            self.ring.reap(&mut reaped);
            for r in reaped.drain(..) {
                let slot = r.user_data as u16;
                let (offset, generation) = busy[usize::from(slot)].take().expect("a busy slot");
                self.free_slots.push(slot);
                if r.result != unit as i32 {
                    return Err(format!(
                        "read-back at offset {offset} failed: result {}",
                        r.result
                    ));
                }
                let v = self.verifier.as_mut().expect("verifying");
                let buf = &self.ring.slot_mut(slot)[..unit as usize];
                if !v.check(buf, offset, &[generation]) && v.fatal() {
                    let f = v.counters().first_failures.last().expect("a failure");
                    return Err(format!("verify failed at offset {}: {}", f.offset, f.what));
                }
            }
        }
    }

    fn finish(&mut self, r: Reaped, now: Ns) {
        let slot = r.user_data as u16;
        let cmd = self.in_slot[usize::from(slot)]
            .take()
            .expect("a reaped request names a busy slot");
        self.free_slots.push(slot);
        let short = r.result >= 0 && r.result as u32 != cmd.bytes && cmd.op != Dir::Trim;
        if (r.result < 0 || short) && self.failure.is_none() {
            let offset = u64::from(cmd.lpa.0) * u64::from(self.info.page_size);
            let what = if r.result < 0 {
                std::io::Error::from_raw_os_error(-r.result).to_string()
            } else {
                format!("{} of {} bytes", r.result, cmd.bytes)
            };
            self.failure = Some(format!(
                "{:?} of {} bytes at offset {offset} failed: {what}",
                cmd.op, cmd.bytes
            ));
        }
        if cmd.op == Dir::Read && r.result >= 0 && !short {
            self.check_read(slot, offset_of(&cmd, self.info.page_size), cmd.bytes);
        }
        let moved = u64::from(cmd.bytes);
        if cmd.is_flush() {
            self.counters.flushes += 1;
        }
        match cmd.op {
            Dir::Read => self.counters.bytes_read += moved,
            Dir::Write => self.counters.bytes_written += moved,
            Dir::Trim => self.counters.bytes_trimmed += moved,
        }
        self.counters.completed += 1;
        self.completions.push(IoCompletion {
            id: cmd.id,
            time: now,
        });
    }
}

fn offset_of(cmd: &IoCommand, page_size: u32) -> u64 {
    u64::from(cmd.lpa.0) * u64::from(page_size)
}

/// The protocol's page: the target's logical block, doubled until the
/// page count fits the protocol's 32-bit page numbers.
fn page_size(target: &Target) -> u32 {
    let mut page = target.logical_block.max(512);
    while target.bytes / u64::from(page) > u64::from(u32::MAX) {
        page *= 2;
    }
    page
}

impl Device for Drive {
    type Event = Reap;

    fn info(&self) -> DeviceInfo {
        self.info.clone()
    }

    fn submit<Q: Timers<Reap>>(
        &mut self,
        cmd: IoCommand,
        now: Ns,
        _q: &mut Q,
    ) -> Result<(), CommandError> {
        let end = u64::from(cmd.lpa.0) + u64::from(cmd.pages);
        if (cmd.pages == 0 && !cmd.is_flush()) || end > u64::from(self.info.logical_pages) {
            return Err(CommandError {
                id: cmd.id,
                lpa: cmd.lpa,
                pages: cmd.pages,
                logical_pages: self.info.logical_pages,
            });
        }
        self.last_now = now;
        self.start(cmd);
        Ok(())
    }

    fn handle<Q: Timers<Reap>>(&mut self, _ev: Reap, now: Ns, _q: &mut Q) {
        self.last_now = now;
        let mut reaped = std::mem::take(&mut self.reaped);
        self.ring.reap(&mut reaped);
        for r in reaped.drain(..) {
            self.finish(r, now);
        }
        self.reaped = reaped;
        while !self.free_slots.is_empty() {
            let Some(cmd) = self.waiting.pop_front() else {
                break;
            };
            self.start(cmd);
        }
    }

    fn take_completions(&mut self, out: &mut Vec<IoCompletion>) {
        out.append(&mut self.completions);
    }

    fn now(&self) -> Ns {
        self.last_now
    }
}

impl LiveDevice for Drive {
    fn clock(&self) -> Ns {
        self.epoch.elapsed().as_nanos() as Ns
    }

    fn wait(&mut self, until: Option<Ns>) -> Result<Option<Reap>, String> {
        let timeout = until.map(|t| t.saturating_sub(self.clock()));
        if self.ring.in_flight() == 0 {
            if let Some(ns) = timeout.filter(|&ns| ns > 0) {
                std::thread::sleep(std::time::Duration::from_nanos(ns));
            }
            return Ok(None);
        }
        let ready = self.ring.has_completions();
        if self.ring.unsubmitted() > 0 || !ready {
            // One call submits the batch queued since the last and, when
            // nothing is ready yet, waits for the first completion.
            self.counters.kernel_calls += 1;
            let want = usize::from(!ready);
            self.ring
                .enter(want, if ready { Some(0) } else { timeout })
                .map_err(|e| format!("io_uring_enter: {e}"))?;
        }
        Ok(self.ring.has_completions().then_some(Reap))
    }

    fn outstanding(&self) -> u32 {
        self.ring.in_flight() + self.waiting.len() as u32
    }

    fn failure(&self) -> Option<&str> {
        self.failure.as_deref()
    }
}
