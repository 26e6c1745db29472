use crate::choices::OutputFormat;
use crate::log_files::LogFiles;
use crate::output::{warn_if_series_capped, write_report, Output, Outputs};
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::experiment::live_run;
use ssdlab_sim::experiment::report;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use ssdlab_studies::setup::{load_device, load_host, occupancy_share};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// fio job file.
    jobfile: PathBuf,
    #[command(flatten)]
    sim: SimArgs,
    /// Skip job-file options ssdlab does not know instead of failing.
    #[arg(long)]
    ignore_unknown: bool,
    /// Run with the device's invariant and data-integrity checker (slow).
    #[arg(long, conflicts_with = "target")]
    check: bool,
    /// Parse and check the job file, then exit without running it (as
    /// `fio --parse-only`): exit 0 when ssdlab would run it, 2 with the
    /// file, line and option when not.
    #[arg(long)]
    parse_only: bool,
    #[command(flatten)]
    target: crate::target_run::TargetArgs,
}

/// What `run` and `replay` share: the device, host and scheduler, and where
/// the report goes.
#[derive(clap::Args)]
pub struct SimArgs {
    /// Device preset name or TOML file.
    #[arg(long, default_value = "consumer-tlc-250g")]
    pub(crate) device: String,
    /// I/O scheduler spec, e.g. `none`, `k2:max_inflight=8`, `mq-deadline:read_expire=100ms`.
    #[arg(long, default_value = "none")]
    pub(crate) scheduler: String,
    /// GC scheme applied to the device: pbgc, bbgc or on-demand (default:
    /// the preset's own GC settings).
    #[arg(long)]
    pub(crate) gc: Option<String>,
    /// Percent of the logical space holding data before the run (100 = full, GC at steady state).
    #[arg(long, default_value_t = 0.0)]
    pub(crate) occupancy: f64,
    /// How that data is laid down: auto (fill below 100%, steady at 100%),
    /// fill (sequential), steady (fill, then random overwrites until GC's
    /// free-pool threshold), rested (steady, then idle GC until each plane
    /// has the fill's free blocks back), `aged[:N]` (fill, N drive writes of random
    /// overwrites (default 2), then steady), pts (written twice in order,
    /// then steady, in the manner of SNIA PTS) or random (the steady state
    /// of uniform random overwrites under greedy GC, built directly: about
    /// 20 s for a 250 GB drive where aged:2 takes 2 minutes). The report
    /// names the one used.
    #[arg(long, default_value = "auto", value_parser = parse_precondition)]
    pub(crate) precondition: PreconditionMode,
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
    /// Host block-layer settings (TOML with the keys of docs/model.md, "Host
    /// path"), or `k2-study`: the K2 study's host (examples/k2/host.toml).
    #[arg(long)]
    pub(crate) host: Option<PathBuf>,
    /// normal (fio-like text) or json (fio-compatible).
    #[arg(long, value_enum, default_value_t = OutputFormat::Normal)]
    pub(crate) output_format: OutputFormat,
    /// Write the report here instead of stdout.
    #[arg(long)]
    pub(crate) output: Option<PathBuf>,
    /// Write per-second bandwidth and IOPS per job and direction as CSV.
    #[arg(long)]
    pub(crate) timeseries: Option<PathBuf>,
}

impl SimArgs {
    /// What a run on a real target takes of these flags.
    pub fn live(&self) -> crate::target_run::LiveChoices {
        crate::target_run::LiveChoices {
            host: self.host.clone(),
            scheduler: self.scheduler.clone(),
            seed: self.seed,
        }
    }

    /// The validated run set-up.
    pub fn setup(&self, check: bool) -> Result<RunSetup, InputError> {
        let occupancy = occupancy_share(self.occupancy, "--occupancy")?;
        let preset = load_device(&self.device, self.gc.as_deref(), &[])?;
        Ok(RunSetup {
            host: load_host(self.host.as_deref(), preset.host)?,
            device: preset.device,
            scheduler: self.scheduler.clone(),
            occupancy,
            precondition: self.precondition,
            seed: self.seed,
            check,
        })
    }

    /// The report's destinations, checked (and proven writable) before
    /// anything runs.
    pub fn outputs(&self) -> Result<Outputs, InputError> {
        let output = self
            .output
            .as_deref()
            .map(|p| Output::check(p, "--output"))
            .transpose()?;
        let timeseries = self
            .timeseries
            .as_deref()
            .map(|p| Output::check(p, "--timeseries"))
            .transpose()?;
        if let Some(ts) = &timeseries {
            // Without --output the report goes to standard output.
            let stdout = Output::Stdout;
            let report = output.as_ref().unwrap_or(&stdout);
            if ts.same_as(report) {
                return Err(InputError::invalid(
                    "--timeseries",
                    format!("{} is also where the report goes", ts.display()),
                ));
            }
        }
        Ok(Outputs {
            format: self.output_format,
            output,
            timeseries,
        })
    }
}

pub fn run(a: Args) -> Result<(), InputError> {
    let setup = a.sim.setup(a.check)?;
    let opts = ssdlab_fio::ParseOptions {
        ignore_unknown: a.ignore_unknown,
    };
    let jobfile = ssdlab_fio::parse_file_with(&a.jobfile, &ssdlab_fio::process_env, &opts)
        .map_err(ssdlab_sim::error::from_fio)?;
    note_ignored(&jobfile);
    if a.parse_only {
        return match a.target.target {
            Some(_) => live_run::check_live_jobs(&jobfile, 512),
            None => fio_run::check_jobs(&jobfile, &setup.device),
        };
    }
    let outputs = a.sim.outputs()?;
    if a.target.target.is_some() {
        return crate::target_run::run(&a.target, &a.sim.live(), &jobfile, outputs);
    }
    // The logs' directories are checked before the device is preconditioned.
    let (logs, job_logs) = LogFiles::open(&jobfile)?;
    logs.remove_on_signal()?;
    let prepared = fio_run::prepare(&jobfile, &setup)?.with_logs(job_logs);
    execute_and_report(prepared, &jobfile, &setup, outputs, logs)
}

/// Runs a prepared run with a progress bar and writes its report (fio text
/// or JSON, stdout or a file), time series and fio log files (`logs`, whose
/// writers the run was prepared with).
pub fn execute_and_report(
    prepared: fio_run::PreparedRun,
    jobfile: &ssdlab_fio::JobFile,
    setup: &RunSetup,
    out: Outputs,
    logs: LogFiles,
) -> Result<(), InputError> {
    let mut bar = Progress::new();
    let mut tick = |f: f64| bar.update(f);
    let result = prepared.execute(Some(&mut tick))?;
    bar.finish();
    let rep = report::build(&result, jobfile, setup);
    let timeseries = report::timeseries_csv(&result.jobs, &result.stats, &result.scheduler_gauges);
    warn_if_series_capped(&result.stats, &out);
    write_report(&rep, &timeseries, out)?;
    logs.commit(&result.jobs, &result.stats)
}

fn parse_precondition(s: &str) -> Result<PreconditionMode, String> {
    s.parse()
}

/// A progress bar on stderr, shown only on a terminal and only once the run
/// has taken more than a second.
pub struct Progress {
    started: Instant,
    bar: Option<indicatif::ProgressBar>,
    enabled: bool,
}

impl Progress {
    pub fn new() -> Self {
        Progress {
            started: Instant::now(),
            bar: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    pub fn update(&mut self, fraction: f64) {
        if !self.enabled || self.started.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = indicatif::ProgressBar::new(1000);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "simulating [{bar:40}] {percent:>3}% ({elapsed}, eta {eta})",
                )
                .expect("valid template"),
            );
            b
        });
        bar.set_position((fraction * 1000.0) as u64);
    }

    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// Says on stderr which job-file options were accepted without effect.
pub fn note_ignored(jobfile: &ssdlab_fio::JobFile) {
    for o in &jobfile.ignored {
        eprintln!(
            "ssdlab: note: {}:{}: option '{}' ignored ({})",
            o.file, o.line, o.option, o.reason
        );
    }
}
