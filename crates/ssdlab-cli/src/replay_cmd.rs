use crate::run_cmd::{execute_and_report, load_device, load_host, Outputs};
use ssdlab_core::error::InputError;
use ssdlab_core::experiment::fio_run::{self, RunSetup};
use ssdlab_core::workload::trace_replay::{ReplayOptions, TraceFeed};
use ssdlab_fio::{IoEngine, JobFile, JobSpec, RwMode};
use ssdlab_trace::{BlkparseAction, Format, ReadOptions, TimeUnit};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The block trace (read as a stream; any size).
    trace: PathBuf,
    /// blkparse, msr, spc, mqsim or fio-iolog.
    #[arg(long)]
    format: String,
    #[arg(long, default_value = "consumer-tlc-250g")]
    device: String,
    #[arg(long, default_value = "none")]
    scheduler: String,
    /// GC scheme applied to the device: pbgc, bbgc or on-demand (default:
    /// the preset's own GC settings).
    #[arg(long)]
    gc: Option<String>,
    /// Percent of the logical space holding data before the replay.
    #[arg(long, default_value_t = 0.0)]
    occupancy: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Divide the recorded inter-arrival times by this (2 = twice as fast).
    #[arg(long, default_value_t = 1.0)]
    time_scale: f64,
    /// Closed loop: keep this many requests outstanding, ignoring recorded
    /// times (default: open loop at the recorded times).
    #[arg(long)]
    qd: Option<u32>,
    /// Replay the trace again until this many bytes were written (k/m/g/t suffixes).
    #[arg(long)]
    loop_write: Option<String>,
    /// Skip malformed lines (counted in the report) instead of stopping.
    #[arg(long)]
    skip_bad_lines: bool,
    /// Keep one device of a multi-device trace (MSR DiskNumber, SPC ASU, blkparse maj,min, …).
    #[arg(long)]
    trace_device: Option<String>,
    /// blkparse event taken as the request: q (queued, default), d (issued), c (completed).
    #[arg(long, default_value = "q", value_parser = ["q", "d", "c"])]
    blkparse_action: String,
    /// Unit of fio iolog v3 timestamps (fio itself writes µs).
    #[arg(long, default_value = "us", value_parser = ["ns", "us", "ms", "s"])]
    fio_time_unit: String,
    #[arg(long, default_value = "normal", value_parser = ["normal", "json"])]
    output_format: String,
    #[arg(long)]
    output: Option<PathBuf>,
    #[arg(long)]
    timeseries: Option<PathBuf>,
    #[arg(long)]
    host: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<(), InputError> {
    let format = crate::trace_cmd::parse_format(&a.format)?;
    if !(a.time_scale > 0.0 && a.time_scale.is_finite()) {
        return Err(InputError::invalid(
            "--time-scale",
            format!("{} must be a positive number", a.time_scale),
        ));
    }
    if !(0.0..=100.0).contains(&a.occupancy) {
        return Err(InputError::invalid(
            "--occupancy",
            format!("{} is outside [0, 100]", a.occupancy),
        ));
    }
    if a.qd == Some(0) {
        return Err(InputError::invalid("--qd", "must be at least 1"));
    }
    let loop_write = a.loop_write.as_deref().map(parse_size).transpose()?;
    let setup = RunSetup {
        device: load_device(&a.device, a.gc.as_deref())?,
        host: load_host(a.host.as_deref())?,
        scheduler: a.scheduler.clone(),
        occupancy: a.occupancy / 100.0,
        seed: a.seed,
        check: false,
    };
    let layout = ssdlab_core::ssd::layout::Layout::new(&setup.device);
    let read = ReadOptions {
        skip_bad_lines: a.skip_bad_lines,
        device: a.trace_device.clone(),
        blkparse_action: match a.blkparse_action.as_str() {
            "d" => BlkparseAction::Issue,
            "c" => BlkparseAction::Complete,
            _ => BlkparseAction::Queue,
        },
        fio_v3_time_unit: match a.fio_time_unit.as_str() {
            "ns" => TimeUnit::Ns,
            "ms" => TimeUnit::Ms,
            "s" => TimeUnit::S,
            _ => TimeUnit::Us,
        },
        ..ReadOptions::default()
    };
    let feed = TraceFeed::open(ReplayOptions {
        path: a.trace.clone(),
        format,
        read,
        time_scale: a.time_scale,
        open_loop: a.qd.is_none(),
        loop_until_write_bytes: loop_write,
        device_bytes: layout.capacity_bytes(),
    })
    .map_err(|e| InputError::invalid(a.trace.display().to_string(), e))?;
    let jobfile = replay_jobfile(&a, format);
    let prepared = fio_run::prepare_with_sources(&jobfile, &setup, vec![Some(Box::new(feed))])?;
    let out = Outputs {
        format: &a.output_format,
        output: a.output.as_deref(),
        timeseries: a.timeseries.as_deref(),
    };
    execute_and_report(prepared, &jobfile, &setup, &out)
}

/// The replay as one fio-style job, for the report.
fn replay_jobfile(a: &Args, format: Format) -> JobFile {
    let name = a
        .trace
        .file_stem()
        .map_or("replay".into(), |s| s.to_string_lossy().into_owned());
    let mut spec = JobSpec::with_defaults(&name, &a.trace.display().to_string(), 0);
    spec.ioengine = IoEngine::Libaio;
    spec.direct = true;
    spec.rw = RwMode::RandRW;
    // Open loop: the trace's own times decide; the depth only needs to be
    // out of the way (the block layer's tags still apply).
    spec.iodepth = a.qd.unwrap_or(1 << 20);
    spec.options = vec![
        ("filename".into(), a.trace.display().to_string()),
        ("rw".into(), "randrw".into()),
        ("ioengine".into(), "libaio".into()),
        ("iodepth".into(), spec.iodepth.to_string()),
        ("bs".into(), "trace".into()),
        ("numjobs".into(), "1".into()),
        ("trace_format".into(), format.name().into()),
    ];
    JobFile {
        global_options: Vec::new(),
        jobs: vec![spec],
        ignored: Vec::new(),
    }
}

fn parse_size(s: &str) -> Result<u64, InputError> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = match t.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((i, _)) => {
            let m = match &t[i..] {
                "k" | "kb" | "kib" => 1u64 << 10,
                "m" | "mb" | "mib" => 1 << 20,
                "g" | "gb" | "gib" => 1 << 30,
                "t" | "tb" | "tib" => 1 << 40,
                _ => {
                    return Err(InputError::invalid(
                        "--loop-write",
                        format!("unknown size suffix in '{s}'"),
                    ))
                }
            };
            (&t[..i], m)
        }
        None => (t.as_str(), 1),
    };
    let n: u64 = num
        .trim()
        .parse()
        .map_err(|_| InputError::invalid("--loop-write", format!("'{s}' is not a size")))?;
    n.checked_mul(mult)
        .ok_or_else(|| InputError::invalid("--loop-write", format!("'{s}' is too large")))
}
