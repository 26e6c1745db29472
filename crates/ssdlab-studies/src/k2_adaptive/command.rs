//! `reproduce k2-adaptive`: k2-adaptive against the oracle static bound
//! (docs/k2-study.md, "An adaptive bound").

use super::{phases, Options, Plan};
use crate::commands::{say_files, Console, Study};
use crate::dask_bridge::ClusterArgs;
use crate::findings::Finding;
use crate::k2::command::K2Common;
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct K2Adaptive {
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

impl Study for K2Adaptive {
    const NAME: &'static str = "k2-adaptive";
    const ABOUT: &'static str = "k2-adaptive (K2 choosing its own bound for O1, O2 or an absolute \
        target) against the oracle static bound on every operation × occupancy cell, and on \
        workloads whose phases change the best bound";

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        let a = self;
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
        let progress =
            |done: usize, total: usize| console.progress("k2-adaptive study", done, total);
        let out = super::reproduce(&opts, &progress)?;
        console.say(&format!(
            "k2-adaptive study: {} runs ({} computed, {} from the cache) in {}",
            out.total,
            out.computed,
            out.total - out.computed,
            a.out.display()
        ));
        let feasible: Vec<_> = out
            .cells
            .iter()
            .filter(|c| c.oracle_bound.is_some())
            .collect();
        let good = feasible
            .iter()
            .filter(|c| c.meets && c.value_ratio >= 0.9)
            .count();
        console.say(&format!(
            "  cells: constraint met and ≥ 90 % of the oracle's value in {good} of {} feasible cell × objective pairs",
            feasible.len()
        ));
        let mut names: Vec<&str> = out.phases.iter().map(|s| s.workload.as_str()).collect();
        names.dedup();
        for w in names {
            let wins = phases::adaptive_wins(&out.phases, w);
            console.say(&format!(
                "  {w}: k2-adaptive {} every static bound",
                if wins { "beats" } else { "does not beat" }
            ));
        }
        say_files(console, &out.files);
        Ok(Vec::new())
    }
}
