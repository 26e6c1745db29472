//! The `ssdlab` command line.

mod bench_cmd;
mod bench_compare;
mod calibrate_cmd;
mod choices;
mod log_files;
mod output;
mod plumbing;
mod postmark_cmd;
mod presets_cmd;
mod probe_cmd;
mod replay_cmd;
mod reproduce;
mod rtflash;
mod run_cmd;
mod schedulers_cmd;
mod target_run;
mod trace_cmd;
mod tune_cmd;
mod validate_cmd;
mod validate_fio;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "ssdlab",
    version,
    about = "A deterministic NVMe SSD and I/O-scheduler laboratory"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an fio job file against the simulated host and device; prints
    /// fio's report (text or fio-compatible JSON) plus ssdlab's own section.
    Run(run_cmd::Args),
    /// Replay a block trace (blkparse, MSR, SPC, MQSim, fio iolog) through the
    /// host path and a scheduler to the simulated SSD; same reports as `run`.
    Replay(replay_cmd::Args),
    /// Trace tools: `trace synth` writes a synthetic application trace.
    Trace(trace_cmd::Args),
    /// Reproduce a study: runs its grid in parallel (cached, resumable) and
    /// writes results.csv, report.md, figures and report.html.
    Reproduce(reproduce::Args),
    /// Postmark-like file-system load (concurrent processes, page cache with
    /// write-back) through the block layer and a scheduler to a device.
    Postmark(postmark_cmd::Args),
    /// Real-time flash analysis: `rtflash analyze` allocates RT tasks to
    /// clusters of flash chips and bounds their worst-case latency.
    Rtflash(rtflash::Args),
    /// Choose K2's bound for an objective (O1/O2) from a study's results.csv.
    Tune(tune_cmd::Args),
    /// Fit preset keys to measured figures (a targets file: starting preset,
    /// keys with ranges, jobs and the values measured; or `--measurements`
    /// from `probe`); writes fitted.toml.
    Calibrate(calibrate_cmd::Args),
    /// Measure a real drive (a file or block device) with a fixed plan: QD-1
    /// latency by size, bandwidth against queue depth, the sustained-write
    /// cliff; writes measurements.json for `calibrate --measurements`.
    Probe(probe_cmd::Args),
    /// Measure simulator speed: precondition a device fully, then closed-loop
    /// 4 KiB random reads and GC-bound random writes.
    Bench(bench_cmd::Args),
    /// Check the model against analytical results.
    Validate(validate_cmd::Args),
    /// List the built-in device presets and GC policies, or show one preset.
    Presets(presets_cmd::Args),
    /// List the I/O schedulers with their tunables (name, type, default, range).
    Schedulers(schedulers_cmd::Args),
}

/// `println!` panics when stdout is closed or full (a pipe whose reader
/// left, `>/dev/full`); that is an error of the environment, reported as one
/// with exit code 2, not as a crash. Every other panic keeps the default
/// report.
fn report_stdout_failures() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            eprintln!("ssdlab: error: stdout: {why}");
            std::process::exit(2);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    report_stdout_failures();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => run_cmd::run(a),
        Command::Replay(a) => replay_cmd::run(a),
        Command::Trace(a) => trace_cmd::run(a),
        Command::Reproduce(a) => reproduce::run(a),
        Command::Postmark(a) => postmark_cmd::run(a),
        Command::Rtflash(a) => rtflash::run(a),
        Command::Tune(a) => tune_cmd::run(a),
        Command::Calibrate(a) => calibrate_cmd::run(a),
        Command::Probe(a) => probe_cmd::run(a),
        Command::Bench(a) => bench_cmd::run(a),
        Command::Validate(a) => validate_cmd::run(a),
        Command::Presets(a) => presets_cmd::run(a),
        Command::Schedulers(a) => schedulers_cmd::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            for line in e.to_string().lines() {
                eprintln!("ssdlab: error: {line}");
            }
            ExitCode::from(2)
        }
    }
}
