use crate::choices::{BlkparseEvent, IologTimeUnit};
use crate::run_cmd::{execute_and_report, SimArgs};
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run;
use ssdlab_sim::workload::replay_setup::{open_replay, ReplayRequest};
use ssdlab_trace::ReadOptions;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The block trace (read as a stream; any size).
    trace: PathBuf,
    /// The trace's format (default: detected from the first lines, and
    /// said on stderr).
    #[arg(long, ignore_case = true,
          value_parser = clap::builder::PossibleValuesParser::new(ssdlab_trace::Format::NAMES))]
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
    #[command(flatten)]
    target: crate::target_run::TargetArgs,
}

pub fn run(a: Args) -> Result<(), InputError> {
    let loop_write = a
        .loop_write
        .as_deref()
        .map(|s| ssdlab_fio::parse_size(s).map_err(|m| InputError::invalid("--loop-write", m)))
        .transpose()?;
    let request = ReplayRequest {
        trace: a.trace.clone(),
        format: a.format.clone(),
        read: ReadOptions {
            skip_bad_lines: a.skip_bad_lines,
            device: a.trace_device.clone(),
            blkparse_action: a.blkparse_action.into(),
            fio_v3_time_unit: a.fio_time_unit.into(),
            ..ReadOptions::default()
        },
        time_scale: a.time_scale,
        qd: a.qd,
        loop_write,
    };
    request.check()?;
    let outputs = a.sim.outputs()?;
    if a.target.target.is_some() {
        return crate::target_run::replay(&a.target, &a.sim.live(), &request, outputs);
    }
    let setup = a.sim.setup(false)?;
    let opened = open_replay(&request, &setup.device)?;
    crate::output::note_detected(&request, &opened);
    let jobfile = opened.jobfile;
    let feed: Box<dyn ssdlab_sim::workload::fio_job::IoSource> = Box::new(opened.feed);
    let prepared = fio_run::prepare_with_sources(&jobfile, &setup, vec![Some(feed)])?;
    // A trace's job writes no fio logs.
    let logs = crate::log_files::LogFiles::default();
    execute_and_report(prepared, &jobfile, &setup, outputs, logs)
}
