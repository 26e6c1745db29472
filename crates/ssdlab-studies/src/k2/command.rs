//! `reproduce k2` and `reproduce k2-rtss`: the K2 studies' commands.

use super::grid::{parse_full_precondition, Plan};
use super::reproduce;
use super::results::{MAX_REPS, MAX_RUNTIME_S};
use super::runner::StudyOptions;
use crate::commands::{default_jobs, name_of, parse_jobs, say_files, Console, Seed, Study};
use crate::dask_bridge::ClusterArgs;
use crate::findings::Finding;
use crate::setup::{load_host, K2_HOST_NAME};
use clap::ValueEnum;
use ssdlab_sim::error::InputError;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use std::path::PathBuf;

/// An operation of the K2 study's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum K2Op {
    Read,
    Randread,
    Write,
    Randwrite,
}

/// A device state of the K2 study's grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum K2Occupancy {
    Partial,
    Full,
}

#[derive(clap::Args)]
pub struct Rtss {
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
    #[command(flatten)]
    cluster: ClusterArgs,
}

#[derive(clap::Args)]
pub struct K2 {
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
    #[command(flatten)]
    cluster: ClusterArgs,
}

/// What the two K2 recipes share: the device, the seed and the parallelism.
#[derive(clap::Args)]
pub(crate) struct K2Common {
    /// Points run in parallel (each holds one device: about 0.5 GB for consumer-tlc-250g).
    #[arg(long, default_value_t = default_jobs(), value_parser = parse_jobs)]
    pub(crate) jobs: usize,
    #[arg(long, default_value = "consumer-tlc-250g")]
    device: String,
    /// Host settings (TOML, the keys of docs/model.md, "Host path");
    /// default: the K2 study's host, examples/k2/host.toml (built in as
    /// `k2-study`).
    #[arg(long)]
    host: Option<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub(crate) seed: u64,
}

impl K2Common {
    /// The device of `--device` and the host of `--host` (else the K2
    /// study's own).
    pub(crate) fn load(&self) -> Result<(SsdConfig, HostConfig), InputError> {
        let device = Preset::load(&self.device)?.device;
        let k2 = PathBuf::from(K2_HOST_NAME);
        let host = load_host(Some(self.host.as_ref().unwrap_or(&k2)), Default::default())?;
        Ok((device, host))
    }
}

impl Study for Rtss {
    const NAME: &'static str = "k2-rtss";
    const ABOUT: &'static str = "The K2 paper's own comparison (RTSS 2019): none, mq-deadline, \
        kyber and bfq against K2-8/16/32 on the K2 benchmark set-up; best p99.9 reductions and \
        worst background-throughput penalty next to the paper's headline";

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        use super::{rtss, runner::RunEnv};
        let a = self;
        let runtime = a.runtime.unwrap_or(if a.paper { 10 } else { 4 });
        let (device, host) = a.common.load()?;
        let remote = a.cluster.remote(&a.out);
        let env = RunEnv {
            out: &a.out,
            threads: a.common.jobs,
            seed: a.common.seed,
            device: &device,
            host: &host,
            remote: remote.as_deref(),
        };
        let progress = |done: usize, total: usize| console.progress("K2 vs Linux", done, total);
        let (rows, computed) = rtss::run(&env, runtime, &progress)?;
        let preamble = format!(
            "Device `{}`, {}, {runtime} s per point, seed {}; {} points computed, {} from the cache.\n",
            device.name,
            super::host_description(&host),
            a.common.seed,
            computed,
            rows.len() - computed
        );
        let files = rtss::write_report(&rows, &preamble, &a.out)?;
        let h = rtss::headline(&rows);
        console.say(&format!(
            "K2 vs Linux schedulers: {} points ({computed} computed) in {}",
            rows.len(),
            a.out.display()
        ));
        console.say(&format!(
            "  best RT read p99.9 reduction   {:>5.1}x (paper: up to {}x)  {}",
            h.read_reduction,
            rtss::PAPER_READ_REDUCTION,
            h.read_where
        ));
        console.say(&format!(
            "  best RT write p99.9 reduction  {:>5.1}x (paper: up to {}x) {}",
            h.write_reduction,
            rtss::PAPER_WRITE_REDUCTION,
            h.write_where
        ));
        console.say(&format!(
            "  worst background penalty       {:>5.1}x (paper: at most {}x) {}",
            h.max_penalty,
            rtss::PAPER_MAX_PENALTY,
            h.penalty_where
        ));
        say_files(console, &files);
        Ok(Vec::new())
    }
}

impl Study for K2 {
    const NAME: &'static str = "k2";
    const ABOUT: &'static str = "The K2 queue-length-bound study (Park and Lee, 2021): four \
        operations × partially/fully occupied × none and K2-64 … K2-1";
    const SEED: Option<Seed> = Some(Seed {
        title: "K2 queue-length bound",
        paper: "Park and Lee, Electronics 10(7):865, 2021",
    });

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        let a = self;
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
            remote: a.cluster.remote(&a.out),
        };
        let progress = |done: usize, total: usize| console.progress("K2 study", done, total);
        let out = reproduce(&opts, &progress)?;
        console.say(&format!(
            "K2 study: {} points ({} repetitions computed, {} from the cache) in {}",
            out.rows.len(),
            out.computed,
            out.cached,
            a.out.display()
        ));
        say_files(console, &out.files);
        Ok(out.findings)
    }
}
