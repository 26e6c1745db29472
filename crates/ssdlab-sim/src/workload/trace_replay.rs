//! Block-trace replay as a job's I/O source: streaming (one record in memory
//! at a time), with time compression, folding of offsets into the device,
//! looping until a volume of writes, open-loop (recorded times) or
//! closed-loop (the job's queue depth) issue.

use super::fio_job::{IoSource, SourcedIo};
use ssdlab_fio::generator::{IoDir, IoUnit};
use ssdlab_fio::{IoEngine, JobFile, JobSpec, RwMode};
use ssdlab_protocol::{Ns, MAX_TIME_NS};
use ssdlab_trace::{Format, ReadOptions, TraceOp, TraceReader, TraceRecord};
use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

#[derive(Debug, Clone)]
pub struct ReplayOptions {
    pub path: PathBuf,
    pub format: Format,
    pub read: ReadOptions,
    /// Recorded inter-arrival times are divided by this (≥ 1 compresses).
    pub time_scale: f64,
    /// Issue at the recorded (scaled) times; else as fast as the queue depth
    /// allows.
    pub open_loop: bool,
    /// Replay the trace again until at least this many bytes were written.
    pub loop_until_write_bytes: Option<u64>,
    /// The device's logical bytes: offsets fold into it.
    pub device_bytes: u64,
    /// Offsets are aligned down and lengths up to this (512 for a simulated
    /// device; a real target's logical block, which O_DIRECT needs).
    pub align_bytes: u64,
}

/// Counters of a replay, for the report.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReplayCounters {
    pub records: u64,
    /// Malformed lines skipped (`--skip-bad-lines`).
    pub skipped_lines: u64,
    /// Well-formed lines that are not requests (other blkparse events,
    /// flushes, headers, other devices).
    pub ignored_lines: u64,
    pub loops: u64,
    pub written_bytes: u64,
    /// Requests whose offset lay beyond the device, folded into it.
    pub folded: u64,
    /// Requests cut at the end of the device.
    pub clipped: u64,
}

pub struct TraceFeed {
    opts: ReplayOptions,
    reader: TraceReader<BufReader<File>>,
    /// Time added to this pass's records (passes follow one another).
    base_ns: Ns,
    last_ns: Ns,
    records_this_pass: u64,
    written_this_pass: u64,
    pub counters: ReplayCounters,
    error: Option<String>,
}

impl TraceFeed {
    pub fn open(opts: ReplayOptions) -> Result<TraceFeed, String> {
        let reader = ssdlab_trace::open(&opts.path, opts.format, opts.read.clone())
            .map_err(|e| e.to_string())?;
        Ok(TraceFeed {
            opts,
            reader,
            base_ns: 0,
            last_ns: 0,
            records_this_pass: 0,
            written_this_pass: 0,
            counters: ReplayCounters::default(),
            error: None,
        })
    }

    /// Another pass only helps if the last one wrote something.
    fn wants_another_pass(&self) -> bool {
        self.written_this_pass > 0
            && self
                .opts
                .loop_until_write_bytes
                .is_some_and(|b| self.counters.written_bytes < b)
    }

    fn restart(&mut self) -> Result<(), String> {
        self.counters.skipped_lines += self.reader.skipped();
        self.counters.ignored_lines += self.reader.ignored();
        self.reader = ssdlab_trace::open(&self.opts.path, self.opts.format, self.opts.read.clone())
            .map_err(|e| e.to_string())?;
        // The next pass starts a microsecond after the last request.
        self.base_ns = self.last_ns + 1_000;
        self.records_this_pass = 0;
        self.written_this_pass = 0;
        self.counters.loops += 1;
        Ok(())
    }

    /// Why a trace that gave no request is refused: most often it is in
    /// another format than the one given.
    fn no_request_message(&self) -> String {
        let (lines, ignored, skipped) = (
            self.reader.line(),
            self.reader.ignored(),
            self.reader.skipped(),
        );
        let format = self.opts.format.name();
        let mut m = format!(
            "{}: no line is a {format} request ({lines} lines: {ignored} well-formed \
             non-request lines, {skipped} malformed lines skipped)",
            self.opts.path.display()
        );
        let other = File::open(&self.opts.path)
            .ok()
            .and_then(|f| ssdlab_trace::fits(f, &self.opts.read).ok())
            .and_then(|(fits, _)| {
                fits.into_iter()
                    .filter(|f| f.records > 0 && f.format != self.opts.format)
                    .max_by_key(|f| f.records)
            });
        if let Some(f) = other {
            m += &format!(
                "; it reads as {} (--format {})",
                f.format.name(),
                f.format.name()
            );
        }
        m
    }

    /// Folds the record into the device and scales its time.
    fn unit_of(&mut self, rec: &TraceRecord) -> SourcedIo {
        let dev = self.opts.device_bytes;
        let mut offset = rec.offset;
        if offset.saturating_add(rec.len as u64) > dev {
            self.counters.folded += 1;
            offset %= dev;
        }
        let align = self.opts.align_bytes;
        offset -= offset % align;
        let room = dev - offset;
        let whole = (rec.len as u64).div_ceil(align).saturating_mul(align);
        if whole > room {
            self.counters.clipped += 1;
        }
        let len = whole.min(room).max(align) as u32;
        // `as` saturates: a time too far out for the clock lands on
        // u64::MAX and is refused by the caller.
        let time = self
            .base_ns
            .saturating_add((rec.time_ns as f64 / self.opts.time_scale) as Ns);
        self.last_ns = self.last_ns.max(time);
        let dir = match rec.op {
            TraceOp::Read => IoDir::Read,
            TraceOp::Write => IoDir::Write,
            TraceOp::Trim => IoDir::Trim,
        };
        if dir == IoDir::Write {
            self.counters.written_bytes += len as u64;
            self.written_this_pass += len as u64;
        }
        SourcedIo {
            unit: IoUnit { dir, offset, len },
            not_before: self.opts.open_loop.then_some(time),
            sync: rec.sync,
        }
    }
}

impl IoSource for TraceFeed {
    fn next_io(&mut self) -> Option<SourcedIo> {
        if self.error.is_some() {
            return None;
        }
        loop {
            match self.reader.next() {
                Some(Ok(rec)) => {
                    self.records_this_pass += 1;
                    self.counters.records += 1;
                    let io = self.unit_of(&rec);
                    if self.last_ns > MAX_TIME_NS {
                        self.error = Some(format!(
                            "{}:{}: time: at --time-scale {:?} the request falls {:.0} s into \
                             the run, beyond the longest simulated time (100 years)",
                            self.opts.path.display(),
                            rec.line,
                            self.opts.time_scale,
                            self.last_ns as f64 / 1e9
                        ));
                        return None;
                    }
                    return Some(io);
                }
                Some(Err(e)) => {
                    self.error = Some(e.to_string());
                    return None;
                }
                None if self.wants_another_pass() => {
                    if let Err(e) = self.restart() {
                        self.error = Some(e);
                        return None;
                    }
                }
                None => {
                    if self.counters.records == 0 {
                        self.error = Some(self.no_request_message());
                    }
                    return None;
                }
            }
        }
    }

    fn error(&self) -> Option<String> {
        self.error.clone()
    }

    fn report(&self) -> Option<serde_json::Value> {
        let mut c = self.counters.clone();
        c.skipped_lines += self.reader.skipped();
        c.ignored_lines += self.reader.ignored();
        Some(serde_json::json!({
            "trace": self.opts.path.display().to_string(),
            "format": self.opts.format.name(),
            "time_scale": self.opts.time_scale,
            "open_loop": self.opts.open_loop,
            "counters": c,
        }))
    }
}

/// A replay as one fio-style job named `name`, for the run and its report:
/// direct async I/O keeping at most `qd` requests outstanding (closed loop),
/// or with the depth out of the way (open loop: the trace's times decide,
/// the block layer's tags still apply).
pub fn replay_jobfile(name: &str, trace: &str, format: &str, qd: Option<u32>) -> JobFile {
    let mut spec = JobSpec::with_defaults(name, trace, 0);
    spec.ioengine = IoEngine::Libaio;
    spec.direct = true;
    spec.rw = RwMode::RandRW;
    spec.iodepth = qd.unwrap_or(1 << 20);
    spec.options = vec![
        ("filename".into(), trace.into()),
        ("rw".into(), "randrw".into()),
        ("ioengine".into(), "libaio".into()),
        ("iodepth".into(), spec.iodepth.to_string()),
        ("bs".into(), "trace".into()),
        ("numjobs".into(), "1".into()),
        ("trace_format".into(), format.into()),
    ];
    JobFile {
        global_options: Vec::new(),
        jobs: vec![spec],
        ignored: Vec::new(),
    }
}
