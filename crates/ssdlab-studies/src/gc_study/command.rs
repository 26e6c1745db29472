//! `reproduce gc-ondemand`: the on-demand GC study and its profile fit.

use crate::commands::{default_jobs, json, parse_jobs, say_files, Console, Points, Seed, Study};
use crate::dask_bridge::ClusterArgs;
use crate::findings::Finding;
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct GcOndemand {
    #[arg(long, default_value = "out/gc-ondemand")]
    out: PathBuf,
    #[arg(long, default_value_t = default_jobs(), value_parser = parse_jobs)]
    jobs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Requests per pass of each synthetic trace (1 to 10^8).
    #[arg(long, default_value_t = super::REQUESTS,
          value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    requests: u64,
    /// The quick load sweep (the default): 20 to 1280 MB/s in steps of ×2,
    /// each limit narrowed by one bisection step.
    #[arg(long, conflicts_with_all = ["paper", "offered_mbs"])]
    quick: bool,
    /// The paper plan: 10 to 1280 MB/s in steps of ×1.41, three bisection
    /// steps.
    #[arg(long, conflicts_with = "offered_mbs")]
    paper: bool,
    /// No sweep: every replay at this load, MB/s (the time compression).
    #[arg(long)]
    offered_mbs: Option<f64>,
    /// Host writes per run, in multiples of the logical capacity.
    #[arg(long, default_value_t = super::WRITE_VOLUME)]
    write_volume: f64,
    /// Share of the physical space the traces address, from page 0 (the
    /// data's footprint; GC is enabled at 70 % full).
    #[arg(long, default_value_t = super::FOOTPRINT)]
    footprint: f64,
    /// Fit each profile's locality and overwrite knobs to the paper's
    /// victim table instead of running the study, each candidate measured
    /// at its own headline load (or at --offered-mbs); prints and writes
    /// OUT/fit.md.
    #[arg(long)]
    fit: bool,
    /// With --fit: fit only this profile (repeatable; default: all six).
    #[arg(long = "profile", requires = "fit")]
    profiles: Vec<String>,
    #[command(flatten)]
    cluster: ClusterArgs,
}

impl Study for GcOndemand {
    const NAME: &'static str = "gc-ondemand";
    const ABOUT: &'static str = "The on-demand GC study (Lee, Choi, Hong 2023): six application \
        profiles (synthetic stand-ins) × PBGC, BBGC and on-demand GC on seed004, from light load \
        to each scheme's limit";
    const SEED: Option<Seed> = Some(Seed {
        title: "On-demand GC with prioritized victims",
        paper: "Lee, Choi and Hong, Electronics 12(9):2142, 2023",
    });
    const POINTS: Option<Points> = Some(Points {
        run: |c| Ok(json(&super::run_config(c)?)),
        grid: |paper, seed, _| Ok(super::grid(paper, seed)),
    });

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        run_gc(self, console)
    }
}

fn run_gc(a: GcOndemand, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
    use super::{self as gc_study, GcStudyOptions, LoadPlan, TRACE_MBS};
    // A rate a drive can be offered: from 10 kB/s to 10 GB/s.
    if let Some(load) = a.offered_mbs.filter(|l| !(0.01..=10_000.0).contains(l)) {
        return Err(InputError::invalid(
            "--offered-mbs",
            format!("{load:?} is outside [0.01, 10000] MB/s"),
        ));
    }
    let plan = match (a.offered_mbs, a.paper) {
        (Some(load), _) => LoadPlan::fixed(load),
        (None, true) => LoadPlan::paper(),
        (None, false) => LoadPlan::quick(),
    };
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
        offered_mbs: a.offered_mbs.unwrap_or(TRACE_MBS),
        write_volume: a.write_volume,
        footprint: a.footprint,
        remote: a.cluster.shared(&a.out),
    };
    if a.fit && opts.remote.is_some() {
        return Err(InputError::invalid(
            "--dask",
            "--fit runs its search on local threads; leave out --dask",
        ));
    }
    if a.fit {
        let at = match a.offered_mbs {
            Some(_) => crate::gc_fit::FitLoad::Fixed,
            None => crate::gc_fit::FitLoad::Headline(plan),
        };
        fit_gc_profiles(&opts, &at, &fit_profiles(&a.profiles)?, console)?;
        return Ok(Vec::new());
    }
    let progress = |done: usize, total: usize| console.progress("GC study", done, total);
    let (sweep, computed) = gc_study::run(&opts, ssdlab_trace::PROFILES, &plan, &progress)?;
    let loads = match a.offered_mbs {
        Some(load) => format!("at {load} MB/s offered"),
        None => format!(
            "at loads from {:.0} MB/s upwards (×{:.2} a step, {} bisection steps at each limit), \
             the headline at {:.0}% of each profile's bounded limit under its slowest scheme",
            plan.ladder[0],
            plan.ladder.get(1).map_or(1.0, |l| l / plan.ladder[0]),
            plan.refine,
            100.0 * gc_study::HEADLINE_SHARE
        ),
    };
    let preamble = format!(
        "Device `seed004` (the simulated SSD of Lee, Choi and Hong, Electronics 12(9):2142, 2023), GC enabled at 70% full, preconditioned to 60% of the physical space (`fill`); \
each profile's synthetic trace ({} requests per pass, seed {}, addressing the first {:.0}% of the physical space) \
replayed open loop {loads} until the host has written {}× the logical capacity. Every profile is a **synthetic stand-in** for the paper's traces. \
Schemes: PBGC = eager 70% trigger, greedy, plane-blocking; BBGC = the same, block-blocking; on-demand = \
invalidation-rate trigger, prioritized victims, block-blocking (docs/model.md).\n",
        a.requests,
        a.seed,
        100.0 * a.footprint,
        a.write_volume
    );
    let files = gc_study::write_report(&sweep, &preamble, &a.out)?;
    let runs = sweep.rows.len();
    console.say(&format!(
        "GC study: {runs} runs ({computed} computed, {} from the cache) in {}",
        runs - computed,
        a.out.display()
    ));
    say_files(console, &files);
    Ok(gc_study::findings::findings(&sweep))
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
    opts: &super::GcStudyOptions,
    at: &crate::gc_fit::FitLoad,
    profiles: &[ssdlab_trace::Profile],
    console: &dyn Console,
) -> Result<(), InputError> {
    use crate::gc_fit;
    let progress = |done: usize, total: usize| console.progress("fitting profiles", done, total);
    let fits = gc_fit::fit(profiles, opts, at, &progress)?;
    let table = gc_fit::fit_markdown(&fits);
    let path = opts.out.join("fit.md");
    let text = format!(
        "# Synthetic profiles fitted to the victim table (measured under {})\n\n{table}",
        gc_fit::FIT_SCHEME
    );
    std::fs::write(&path, text)
        .map_err(|e| InputError::invalid(path.display().to_string(), e.to_string()))?;
    for line in table.lines() {
        console.say(line);
    }
    say_files(console, [&path]);
    Ok(())
}
