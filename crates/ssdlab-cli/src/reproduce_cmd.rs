use crate::choices::{name_of, K2Occupancy, K2Op};
use crate::dask_bridge::{default_python, DaskBridge};
use ssdlab_sim::error::InputError;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use ssdlab_studies::k2::grid::{parse_full_precondition, Plan};
use ssdlab_studies::k2::reproduce;
use ssdlab_studies::k2::results::{MAX_REPS, MAX_RUNTIME_S};
use ssdlab_studies::k2::runner::{RemoteRunner, StudyOptions};
use ssdlab_studies::setup::{load_host, K2_HOST_NAME};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    study: Study,
}

#[derive(clap::Subcommand)]
enum Study {
    /// The K2 queue-length-bound study (Park and Lee, 2021): four operations ×
    /// partially/fully occupied × none and K2-64 … K2-1.
    K2(K2Args),
    /// The K2 paper's own comparison (RTSS 2019): none, mq-deadline, kyber vs
    /// K2-8/16/32 on the K2 benchmark set-up; best p99.9 reductions and worst
    /// background-throughput penalty next to the paper's headline.
    K2Rtss(RtssArgs),
    /// The on-demand GC study (Lee, Choi, Hong 2023): six application
    /// profiles (synthetic stand-ins) × PBGC, BBGC and on-demand GC on seed004.
    GcOndemand(GcArgs),
    /// The real-time flash study (Kim et al., DAC 2021): the case study under
    /// Clustering-BFD+TBS, Global+BG, Full-Isolation+BG and two ablations,
    /// the worst-case latency breakdown, schedulability curves for 4, 8 and
    /// 16 chips, and NRT bandwidth on accepted sets.
    RtFlash(crate::reproduce_rtflash::RtFlashArgs),
    /// The STB study (Kang, Park, Yoo 2011): five concurrent Postmark
    /// processes under noop, deadline, IRBW-FIFO, IRBW-FIFO-RP and STB, on a
    /// SATA-era MLC SSD with a hybrid log-block FTL and with page mapping.
    Stb(crate::reproduce_stb::StbArgs),
}

#[derive(clap::Args)]
struct GcArgs {
    #[arg(long, default_value = "out/gc-ondemand")]
    out: PathBuf,
    #[arg(long, default_value_t = default_jobs(), value_parser = parse_jobs)]
    jobs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Requests per pass of each synthetic trace (1 to 10^8).
    #[arg(long, default_value_t = 200_000,
          value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    requests: u64,
    /// Offered load of every replay, MB/s (the time compression).
    #[arg(long, default_value_t = 40.0)]
    offered_mbs: f64,
    /// Host writes per run, in multiples of the logical capacity.
    #[arg(long, default_value_t = 2.0)]
    write_volume: f64,
    /// Share of the physical space the traces address, from page 0 (the
    /// data's footprint; GC is enabled at 70 % full).
    #[arg(long, default_value_t = 0.65)]
    footprint: f64,
    /// Fit each profile's locality and overwrite knobs to the paper's
    /// victim table instead of running the study; prints and writes
    /// OUT/fit.md.
    #[arg(long)]
    fit: bool,
    /// With --fit: fit only this profile (repeatable; default: all six).
    #[arg(long = "profile", requires = "fit")]
    profiles: Vec<String>,
}

#[derive(clap::Args)]
struct RtssArgs {
    /// The paper's 10 s per point (default: 4 s).
    #[arg(long)]
    paper: bool,
    #[arg(long, default_value = "out/k2-rtss")]
    out: PathBuf,
    #[command(flatten)]
    common: K2Common,
    /// Override: simulated seconds per point (1 to a simulated day).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_RUNTIME_S))]
    runtime: Option<u64>,
}

#[derive(clap::Args)]
struct K2Args {
    /// One repetition, the paper's 100 s on the partially occupied SSD and 150 s on the full one: about five minutes on two cores (default).
    #[arg(long, conflicts_with = "paper")]
    quick: bool,
    /// The paper's plan: 100 s partially / 1000 s fully occupied, five repetitions.
    #[arg(long)]
    paper: bool,
    /// Output directory (results.csv, report.md, report.html, figures, cache/).
    #[arg(long, default_value = "out/k2")]
    out: PathBuf,
    #[command(flatten)]
    common: K2Common,
    /// Only these operations (read, randread, write, randwrite); repeatable.
    #[arg(long = "op", value_enum)]
    ops: Vec<K2Op>,
    /// Only these device states (partial, full); repeatable.
    #[arg(long = "occupancy", value_enum)]
    occupancies: Vec<K2Occupancy>,
    /// Override the plan: simulated seconds per partially occupied run (1
    /// to a simulated day).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_RUNTIME_S))]
    partial_runtime: Option<u64>,
    /// Override the plan: simulated seconds per fully occupied run (1 to a
    /// simulated day).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=MAX_RUNTIME_S))]
    full_runtime: Option<u64>,
    /// How the fully occupied drive's data are laid down: fill (default:
    /// every logical page in order, the spare free), steady, rested,
    /// random, `aged[:N]` or pts (as `ssdlab run --precondition`). The paper does
    /// not give its drive's history; docs/k2-study.md shows what each does.
    #[arg(long, value_name = "MODE", default_value = "fill", value_parser = parse_full_precondition)]
    full_precondition: PreconditionMode,
    /// Override the plan: repetitions per point (1 to 100).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_REPS as i64))]
    reps: Option<u32>,
    /// Run the points not in the cache on this Dask scheduler
    /// (tcp://host:8786) through the Python package; they are kept in its
    /// results store too (docs/cluster.md).
    #[arg(long, value_name = "ADDRESS")]
    dask: Option<String>,
    /// The results store of --dask (default: OUT/store).
    #[arg(long, requires = "dask")]
    store: Option<PathBuf>,
    /// The Python of --dask (default: $SSDLAB_PYTHON, else .venv/bin/python
    /// when present, else python3).
    #[arg(long, requires = "dask")]
    python: Option<PathBuf>,
}

/// What the two K2 recipes share: the device, the seed and the parallelism.
#[derive(clap::Args)]
struct K2Common {
    /// Points run in parallel (each holds one device: about 0.5 GB for consumer-tlc-250g).
    #[arg(long, default_value_t = default_jobs(), value_parser = parse_jobs)]
    jobs: usize,
    #[arg(long, default_value = "consumer-tlc-250g")]
    device: String,
    /// Host settings (TOML, the keys of docs/model.md, "Host path");
    /// default: the K2 study's host, examples/k2/host.toml (built in as
    /// `k2-study`).
    #[arg(long)]
    host: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

impl K2Common {
    fn check(&self) -> Result<(), InputError> {
        if self.jobs == 0 {
            return Err(InputError::invalid("--jobs", "must be at least 1"));
        }
        Ok(())
    }

    /// The device of `--device` and the host of `--host` (else the K2
    /// study's own).
    fn load(&self) -> Result<(SsdConfig, HostConfig), InputError> {
        let device = Preset::load(&self.device)?.device;
        let k2 = PathBuf::from(K2_HOST_NAME);
        let host = load_host(Some(self.host.as_ref().unwrap_or(&k2)), Default::default())?;
        Ok((device, host))
    }
}

pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most points run in parallel: a thread each, and each may hold a
/// whole device.
const MAX_JOBS: usize = 256;

/// `--jobs`: 1 to [`MAX_JOBS`].
pub(crate) fn parse_jobs(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if (1..=MAX_JOBS).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is outside 1..={MAX_JOBS}"))
    }
}

pub fn run(a: Args) -> Result<(), InputError> {
    match a.study {
        Study::K2(a) => run_k2(a),
        Study::K2Rtss(a) => run_rtss(a),
        Study::GcOndemand(a) => run_gc(a),
        Study::RtFlash(a) => crate::reproduce_rtflash::run(a),
        Study::Stb(a) => crate::reproduce_stb::run(a),
    }
}

/// A "points done" bar on stderr, only on a terminal.
pub(crate) struct PointsBar(Option<indicatif::ProgressBar>);

impl PointsBar {
    pub(crate) fn tick(&self, done: usize, total: usize) {
        if let Some(b) = &self.0 {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

pub(crate) fn progress_bar(what: &str) -> PointsBar {
    PointsBar(std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(1);
        let template =
            format!("{what} [{{bar:40}}] {{pos}}/{{len}} points ({{elapsed}}, eta {{eta}})");
        b.set_style(indicatif::ProgressStyle::with_template(&template).expect("valid template"));
        b
    }))
}

fn run_rtss(a: RtssArgs) -> Result<(), InputError> {
    use ssdlab_studies::k2::{rtss, runner::RunEnv};
    a.common.check()?;
    let runtime = a.runtime.unwrap_or(if a.paper { 10 } else { 4 });
    let (device, host) = a.common.load()?;
    let env = RunEnv {
        out: &a.out,
        threads: a.common.jobs,
        seed: a.common.seed,
        device: &device,
        host: &host,
        remote: None,
    };
    let bar = progress_bar("K2 vs Linux");
    let progress = |done: usize, total: usize| bar.tick(done, total);
    let (rows, computed) = rtss::run(&env, runtime, &progress)?;
    bar.finish();
    let preamble = format!(
        "Device `{}`, {}, {runtime} s per point, seed {}; {} points computed, {} from the cache.\n",
        device.name,
        ssdlab_studies::k2::host_description(&host),
        a.common.seed,
        computed,
        rows.len() - computed
    );
    let files = rtss::write_report(&rows, &preamble, &a.out)?;
    let h = rtss::headline(&rows);
    println!(
        "K2 vs Linux schedulers: {} points ({computed} computed) in {}",
        rows.len(),
        a.out.display()
    );
    println!(
        "  best RT read p99.9 reduction   {:>5.1}x (paper: up to {}x)  {}",
        h.read_reduction,
        rtss::PAPER_READ_REDUCTION,
        h.read_where
    );
    println!(
        "  best RT write p99.9 reduction  {:>5.1}x (paper: up to {}x) {}",
        h.write_reduction,
        rtss::PAPER_WRITE_REDUCTION,
        h.write_where
    );
    println!(
        "  worst background penalty       {:>5.1}x (paper: at most {}x) {}",
        h.max_penalty,
        rtss::PAPER_MAX_PENALTY,
        h.penalty_where
    );
    for f in files {
        println!("  {}", f.display());
    }
    Ok(())
}

fn run_gc(a: GcArgs) -> Result<(), InputError> {
    use ssdlab_studies::gc_study::{self, GcStudyOptions};
    if a.jobs == 0 || a.requests == 0 {
        return Err(InputError::invalid(
            "--jobs/--requests",
            "must be at least 1",
        ));
    }
    // A rate a drive can be offered: from 10 kB/s to 10 GB/s.
    if !(0.01..=10_000.0).contains(&a.offered_mbs) {
        return Err(InputError::invalid(
            "--offered-mbs",
            format!("{:?} is outside [0.01, 10000] MB/s", a.offered_mbs),
        ));
    }
    if !(a.write_volume > 0.0 && a.write_volume <= 100.0) {
        return Err(InputError::invalid(
            "--write-volume",
            format!("{} is outside (0, 100]", a.write_volume),
        ));
    }
    // The precondition fills 60 % of the physical space.
    if !(a.footprint >= 0.6 && a.footprint <= 1.0) {
        return Err(InputError::invalid(
            "--footprint",
            format!(
                "{} is outside 0.6..=1 (the run starts 60 % full)",
                a.footprint
            ),
        ));
    }
    let opts = GcStudyOptions {
        out: a.out.clone(),
        threads: a.jobs,
        seed: a.seed,
        requests: a.requests,
        offered_mbs: a.offered_mbs,
        write_volume: a.write_volume,
        footprint: a.footprint,
    };
    if a.fit {
        return fit_gc_profiles(&opts, &fit_profiles(&a.profiles)?);
    }
    let bar = progress_bar("GC study");
    let progress = |done: usize, total: usize| bar.tick(done, total);
    let (rows, computed) = gc_study::run(&opts, &progress)?;
    bar.finish();
    let preamble = format!(
        "Device `seed004` (the simulated SSD of Lee, Choi and Hong, Electronics 12(9):2142, 2023), GC enabled at 70% full, preconditioned to 60% of the physical space (`fill`); \
each profile's synthetic trace ({} requests per pass, seed {}, addressing the first {:.0}% of the physical space) \
replayed open loop at {} MB/s offered until the host has written {}× the logical capacity. Every profile is a **synthetic stand-in** for the paper's traces. \
Schemes: PBGC = eager 70% trigger, greedy, plane-blocking; BBGC = the same, block-blocking; on-demand = \
invalidation-rate trigger, prioritized victims, block-blocking (docs/model.md).\n",
        a.requests,
        a.seed,
        100.0 * a.footprint,
        a.offered_mbs,
        a.write_volume
    );
    let files = gc_study::write_report(&rows, &preamble, &a.out)?;
    println!(
        "GC study: {} points ({computed} computed, {} from the cache) in {}",
        rows.len(),
        rows.len() - computed,
        a.out.display()
    );
    for f in files {
        println!("  {}", f.display());
    }
    Ok(())
}

/// The profiles `--profile` names (all when none), or an error naming the
/// unknown one.
fn fit_profiles(names: &[String]) -> Result<Vec<ssdlab_trace::Profile>, InputError> {
    if names.is_empty() {
        return Ok(ssdlab_trace::PROFILES.to_vec());
    }
    let known: Vec<&str> = ssdlab_trace::PROFILES.iter().map(|p| p.name).collect();
    names
        .iter()
        .map(|n| {
            ssdlab_trace::profile(n).copied().ok_or_else(|| {
                InputError::invalid(
                    "--profile",
                    format!("unknown '{n}' (known: {})", known.join(", ")),
                )
            })
        })
        .collect()
}

/// `reproduce gc-ondemand --fit`: the profiles' knobs fitted to the
/// paper's victim table.
fn fit_gc_profiles(
    opts: &ssdlab_studies::gc_study::GcStudyOptions,
    profiles: &[ssdlab_trace::Profile],
) -> Result<(), InputError> {
    use ssdlab_studies::gc_fit;
    let bar = progress_bar("fitting profiles");
    let progress = |done: usize, total: usize| bar.tick(done, total);
    let fits = gc_fit::fit(profiles, opts, &progress)?;
    bar.finish();
    let table = gc_fit::fit_markdown(&fits);
    let path = opts.out.join("fit.md");
    let text = format!(
        "# Synthetic profiles fitted to the victim table (measured under {})\n\n{table}",
        gc_fit::FIT_SCHEME
    );
    std::fs::write(&path, text)
        .map_err(|e| InputError::invalid(path.display().to_string(), e.to_string()))?;
    print!("{table}");
    println!("  {}", path.display());
    Ok(())
}

fn run_k2(a: K2Args) -> Result<(), InputError> {
    a.common.check()?;
    // --quick is the default; clap rejects it together with --paper.
    let base = if a.paper && !a.quick {
        Plan::PAPER
    } else {
        Plan::QUICK
    };
    let plan = Plan {
        partial_runtime_s: a.partial_runtime.unwrap_or(base.partial_runtime_s),
        full_runtime_s: a.full_runtime.unwrap_or(base.full_runtime_s),
        reps: a.reps.unwrap_or(base.reps),
    };
    let (device, host) = a.common.load()?;
    let opts = StudyOptions {
        plan,
        out: a.out.clone(),
        threads: a.common.jobs,
        seed: a.common.seed,
        host,
        device,
        ops: a.ops.iter().map(name_of).collect(),
        occupancies: a.occupancies.iter().map(name_of).collect(),
        full_precondition: a.full_precondition,
        remote: a.dask.clone().map(|address| -> Box<dyn RemoteRunner> {
            Box::new(DaskBridge {
                address,
                store: a.store.clone().unwrap_or_else(|| a.out.join("store")),
                python: default_python(a.python.clone()),
            })
        }),
    };
    let bar = progress_bar("K2 study");
    let progress = |done: usize, total: usize| bar.tick(done, total);
    let out = reproduce(&opts, &progress)?;
    bar.finish();
    println!(
        "K2 study: {} points ({} repetitions computed, {} from the cache) in {}",
        out.rows.len(),
        out.computed,
        out.cached,
        a.out.display()
    );
    for f in &out.files {
        println!("  {}", f.display());
    }
    Ok(())
}
