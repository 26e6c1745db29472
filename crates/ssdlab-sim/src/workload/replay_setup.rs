//! A trace replay set up from what a user gives (`ssdlab replay`, Python's
//! `ssdlab.replay`): the format named or detected, the feed opened, and the
//! one-job job file that carries it through the run and its report.

use super::trace_replay::{replay_jobfile, ReplayOptions, TraceFeed};
use crate::error::InputError;
use crate::ssd::config::SsdConfig;
use ssdlab_fio::JobFile;
use ssdlab_trace::{Detected, Format, ReadOptions};
use std::path::PathBuf;

/// A trace and how to replay it.
#[derive(Debug, Clone)]
pub struct ReplayRequest {
    pub trace: PathBuf,
    /// A format name (`blkparse`, `msr`, ...); None: detected.
    pub format: Option<String>,
    pub read: ReadOptions,
    /// Recorded inter-arrival times are divided by this.
    pub time_scale: f64,
    /// Closed loop at this depth; None: open loop at the recorded times.
    pub qd: Option<u32>,
    /// Replay again until this many bytes were written.
    pub loop_write: Option<u64>,
}

/// An opened replay.
pub struct OpenedReplay {
    pub jobfile: JobFile,
    pub feed: TraceFeed,
    /// The format found when none was named.
    pub detected: Option<Detected>,
}

/// A format by name, or an error naming `--format` and the known ones.
pub fn parse_format(name: &str) -> Result<Format, InputError> {
    name.parse().map_err(|_| {
        InputError::invalid(
            "--format",
            format!("unknown '{name}' (known: {})", Format::NAMES.join(", ")),
        )
    })
}

impl ReplayRequest {
    /// The numbers a request must have right, checked before anything is
    /// built.
    pub fn check(&self) -> Result<(), InputError> {
        if !(self.time_scale > 0.0 && self.time_scale.is_finite()) {
            return Err(InputError::invalid(
                "--time-scale",
                format!("{} must be a positive number", self.time_scale),
            ));
        }
        if self.qd == Some(0) {
            return Err(InputError::invalid("--qd", "must be at least 1"));
        }
        Ok(())
    }
}

/// The most host writes `--loop-write` may ask for, in drive writes.
pub const MAX_LOOP_DRIVE_WRITES: u64 = 1_000;

/// Checks the request, finds the format and opens the trace for `device`.
pub fn open_replay(req: &ReplayRequest, device: &SsdConfig) -> Result<OpenedReplay, InputError> {
    open_replay_on(req, device.layout().capacity_bytes(), 512)
}

/// As `open_replay`, for a device of `device_bytes` whose I/O must be
/// aligned to `align_bytes` (a real target).
pub fn open_replay_on(
    req: &ReplayRequest,
    device_bytes: u64,
    align_bytes: u64,
) -> Result<OpenedReplay, InputError> {
    req.check()?;
    // Looping a trace is for driving GC to steady state: a few drive
    // writes. Beyond 1,000 the run would take days.
    if let Some(bytes) = req.loop_write {
        let most = device_bytes.saturating_mul(MAX_LOOP_DRIVE_WRITES);
        if bytes > most {
            return Err(InputError::invalid(
                "--loop-write",
                format!(
                    "{bytes} bytes are more than {MAX_LOOP_DRIVE_WRITES} times the device's \
                     {device_bytes} bytes"
                ),
            ));
        }
    }
    let (format, detected) = match &req.format {
        Some(name) => (parse_format(name)?, None),
        None => {
            let d = ssdlab_trace::detect(&req.trace, &req.read)
                .map_err(|e| InputError::invalid("--format", format!("not given, and {e}")))?;
            (d.format, Some(d))
        }
    };
    let feed = TraceFeed::open(ReplayOptions {
        path: req.trace.clone(),
        format,
        read: req.read.clone(),
        time_scale: req.time_scale,
        open_loop: req.qd.is_none(),
        loop_until_write_bytes: req.loop_write,
        device_bytes,
        align_bytes,
    })
    .map_err(|e| InputError::invalid(req.trace.display().to_string(), e))?;
    let name = req
        .trace
        .file_stem()
        .map_or("replay".into(), |s| s.to_string_lossy().into_owned());
    let trace = req.trace.display().to_string();
    let jobfile = replay_jobfile(&name, &trace, format.name(), req.qd);
    Ok(OpenedReplay {
        jobfile,
        feed,
        detected,
    })
}
