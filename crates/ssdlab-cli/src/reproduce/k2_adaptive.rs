//! `reproduce k2-adaptive`: k2-adaptive against the oracle static bound
//! (docs/k2-study.md, "An adaptive bound").

use super::k2::K2Common;
use crate::dask_bridge::ClusterArgs;
use crate::plumbing::progress_bar;
use ssdlab_sim::error::InputError;
use ssdlab_studies::k2_adaptive::{self, phases, Options, Plan};
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct Args {
    /// Partially occupied cells at 60 s, phases of 30 s: about five minutes on two cores (default).
    #[arg(long, conflicts_with = "paper")]
    quick: bool,
    /// Both occupancies (100 s partially, 300 s fully occupied), phases of 60 s.
    #[arg(long)]
    paper: bool,
    #[arg(long, default_value = "out/k2-adaptive")]
    out: PathBuf,
    #[command(flatten)]
    common: K2Common,
    #[command(flatten)]
    cluster: ClusterArgs,
}

pub(super) fn run(a: Args) -> Result<(), InputError> {
    a.common.check()?;
    let (device, host) = a.common.load()?;
    let opts = Options {
        plan: if a.paper { Plan::PAPER } else { Plan::QUICK },
        out: a.out.clone(),
        threads: a.common.jobs,
        seed: a.common.seed,
        device,
        host,
        remote: a.cluster.remote(&a.out),
    };
    let bar = progress_bar("k2-adaptive study");
    let progress = |done: usize, total: usize| bar.tick(done, total);
    let out = k2_adaptive::reproduce(&opts, &progress)?;
    bar.finish();
    println!(
        "k2-adaptive study: {} runs ({} computed, {} from the cache) in {}",
        out.total,
        out.computed,
        out.total - out.computed,
        a.out.display()
    );
    let feasible: Vec<_> = out
        .cells
        .iter()
        .filter(|c| c.oracle_bound.is_some())
        .collect();
    let good = feasible
        .iter()
        .filter(|c| c.meets && c.value_ratio >= 0.9)
        .count();
    println!(
        "  cells: constraint met and ≥ 90 % of the oracle's value in {good} of {} feasible cell × objective pairs",
        feasible.len()
    );
    let mut names: Vec<&str> = out.phases.iter().map(|s| s.workload.as_str()).collect();
    names.dedup();
    for w in names {
        let wins = phases::adaptive_wins(&out.phases, w);
        println!(
            "  {w}: k2-adaptive {} every static bound",
            if wins { "beats" } else { "does not beat" }
        );
    }
    for f in &out.files {
        println!("  {}", f.display());
    }
    Ok(())
}
