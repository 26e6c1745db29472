//! `ssdlab reproduce rt-flash`: the real-time flash study (Kim et al., DAC
//! 2021) — case study, worst-case latency breakdown, schedulability curves
//! and NRT bandwidth — into results.csv, report.md, figures and report.html.

use super::{self as rtflash, Plan, StudyOptions};
use crate::commands::{default_jobs, json, parse_jobs, say_files, Console, Points, Seed, Study};
use crate::dask_bridge::ClusterArgs;
use crate::findings::Finding;
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RtFlash {
    /// The paper's scale: 1,000 task sets per schedulability point, demand in
    /// steps of 0.05·m, 60 simulated seconds per run (default: the quick plan,
    /// 200 sets, steps of 0.1·m, 20 s).
    #[arg(long, conflicts_with = "quick")]
    paper: bool,
    /// The quick plan (the default).
    #[arg(long)]
    quick: bool,
    #[arg(long, default_value = "out/rt-flash")]
    out: PathBuf,
    /// Points run in parallel.
    #[arg(long, default_value_t = default_jobs(), value_parser = parse_jobs)]
    jobs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Override: random task sets per schedulability point (1 to 100,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    sets: Option<u64>,
    /// Override: accepted sets per approach and demand level simulated on
    /// the SSD model in part 5 (1 to 10,000).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    check_sets: Option<u64>,
    /// Override: simulated seconds of every case-study, bandwidth and
    /// SSD-model check run (1 to 3,600).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=3600))]
    seconds: Option<u64>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

impl Study for RtFlash {
    const NAME: &'static str = "rt-flash";
    const ABOUT: &'static str = "The real-time flash study (Kim et al., DAC 2021): the case study \
        under Clustering-BFD+TBS, Global+BG, Full-Isolation+BG and two ablations, the worst-case \
        latency breakdown, schedulability curves for 4, 8 and 16 chips, and NRT bandwidth on \
        accepted sets";
    const SEED: Option<Seed> = Some(Seed {
        title: "Real-time flash: chip clustering and TBS",
        paper: "Kim et al., DAC 2021",
    });
    const POINTS: Option<Points> = Some(Points {
        run: |c| Ok(json(&rtflash::run_config(c)?)),
        grid: rtflash::grid,
    });

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        run(self, console)
    }
}

fn run(a: RtFlash, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
    let mut plan = if a.paper { Plan::PAPER } else { Plan::QUICK };
    if let Some(sets) = a.sets {
        plan.sets_per_point = sets as usize;
    }
    if let Some(sets) = a.check_sets {
        plan.check_sets = sets as usize;
    }
    if let Some(seconds) = a.seconds {
        plan.case_seconds = seconds;
        plan.bandwidth_seconds = seconds;
        plan.check_seconds = seconds;
    }
    let opts = StudyOptions {
        out: a.out.clone(),
        threads: a.jobs,
        seed: a.seed,
        plan,
        remote: a.cluster.shared(&a.out),
    };
    let progress = |done: usize, total: usize| console.progress("rt-flash study", done, total);
    let (rows, computed) = rtflash::run(&opts, &progress)?;
    let preamble = format!(
        "Kim et al., \"Dynamic Chip Clustering and Task Allocation for Real-time Flash\" (DAC 2021), \
reconstructed as docs/rt-flash.md describes. Plan: {} ({} s per case-study run; {} task sets per \
schedulability point, demand in steps of {}·m; {} accepted sets × {} s per bandwidth point; {} accepted \
sets × {} s per approach and demand level on the SSD model); seed {}. Case studies: {} (4 chips of the \
`seed004` die, 4 RT tasks, a saturating NRT load), on the analysis' chip model and on seed004's SSD model.\n",
        match (
            a.paper,
            a.sets.is_some() || a.seconds.is_some() || a.check_sets.is_some(),
        ) {
            (true, false) => "paper",
            (false, false) => "quick",
            (true, true) => "paper, with overrides",
            (false, true) => "quick, with overrides",
        },
        plan.case_seconds,
        plan.sets_per_point,
        plan.demand_step,
        plan.bandwidth_sets,
        plan.bandwidth_seconds,
        plan.check_sets,
        plan.check_seconds,
        a.seed,
        rtflash::CASE_STUDIES
            .iter()
            .filter(|c| c.model == rtflash::Model::Chips)
            .map(|c| format!("`{}`", c.file))
            .collect::<Vec<_>>()
            .join(" and "),
    );
    let files = rtflash::write_report(&rows, &preamble, &a.out)?;
    console.say(&format!(
        "rt-flash study: {} rows ({computed} points computed, the rest from the cache) in {}",
        rows.len(),
        a.out.display()
    ));
    say_files(console, &files);
    Ok(rtflash::findings::findings(&rows))
}
