//! `reproduce gc-ondemand`: the on-demand GC study and its profile fit.

use crate::plumbing::{default_jobs, parse_jobs, progress_bar};
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct GcArgs {
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

pub(super) fn run_gc(a: GcArgs) -> Result<(), InputError> {
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
