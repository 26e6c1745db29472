use crate::choices::{BlkparseEvent, IologTimeUnit};
use crate::run_cmd::{execute_and_report, SimArgs};
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run;
use ssdlab_sim::workload::trace_replay::{replay_jobfile, ReplayOptions, TraceFeed};
use ssdlab_trace::ReadOptions;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The block trace (read as a stream; any size).
    trace: PathBuf,
    /// blkparse, msr, spc, mqsim or fio-iolog (default: detected from the
    /// first lines, and said on stderr).
    #[arg(long)]
    format: Option<String>,
    #[command(flatten)]
    sim: SimArgs,
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
    #[arg(long, value_enum, default_value_t = BlkparseEvent::Q)]
    blkparse_action: BlkparseEvent,
    /// Unit of fio iolog v3 timestamps (fio itself writes µs).
    #[arg(long, value_enum, default_value_t = IologTimeUnit::Us)]
    fio_time_unit: IologTimeUnit,
}

pub fn run(a: Args) -> Result<(), InputError> {
    if !(a.time_scale > 0.0 && a.time_scale.is_finite()) {
        return Err(InputError::invalid(
            "--time-scale",
            format!("{} must be a positive number", a.time_scale),
        ));
    }
    if a.qd == Some(0) {
        return Err(InputError::invalid("--qd", "must be at least 1"));
    }
    let loop_write = a
        .loop_write
        .as_deref()
        .map(|s| ssdlab_fio::parse_size(s).map_err(|m| InputError::invalid("--loop-write", m)))
        .transpose()?;
    let setup = a.sim.setup(false)?;
    let outputs = a.sim.outputs()?;
    let layout = ssdlab_sim::ssd::layout::Layout::new(&setup.device);
    let read = ReadOptions {
        skip_bad_lines: a.skip_bad_lines,
        device: a.trace_device.clone(),
        blkparse_action: a.blkparse_action.into(),
        fio_v3_time_unit: a.fio_time_unit.into(),
        ..ReadOptions::default()
    };
    let format = match &a.format {
        Some(name) => crate::trace_cmd::parse_format(name)?,
        None => {
            let d = ssdlab_trace::detect(&a.trace, &read)
                .map_err(|e| InputError::invalid("--format", format!("not given, and {e}")))?;
            eprintln!(
                "ssdlab: {}: format {} detected ({} requests in the first {} lines); \
                 give --format to choose another",
                a.trace.display(),
                d.format.name(),
                d.records,
                d.lines
            );
            d.format
        }
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
    let name = a
        .trace
        .file_stem()
        .map_or("replay".into(), |s| s.to_string_lossy().into_owned());
    let jobfile = replay_jobfile(&name, &a.trace.display().to_string(), format.name(), a.qd);
    let prepared = fio_run::prepare_with_sources(&jobfile, &setup, vec![Some(Box::new(feed))])?;
    execute_and_report(prepared, &jobfile, &setup, outputs)
}
