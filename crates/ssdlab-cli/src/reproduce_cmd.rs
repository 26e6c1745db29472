use ssdlab_core::error::InputError;
use ssdlab_core::experiment::k2_study::grid::Plan;
use ssdlab_core::experiment::k2_study::reproduce;
use ssdlab_core::experiment::k2_study::runner::StudyOptions;
use ssdlab_core::host::HostConfig;
use ssdlab_core::ssd::config::SsdConfig;
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
}

#[derive(clap::Args)]
struct K2Args {
    /// Short runs, one repetition: the whole grid in about ten minutes on two cores (default).
    #[arg(long, conflicts_with = "paper")]
    quick: bool,
    /// The paper's plan: 100 s partially / 1000 s fully occupied, five repetitions.
    #[arg(long)]
    paper: bool,
    /// Output directory (results.csv, report.md, report.html, figures, cache/).
    #[arg(long, default_value = "out/k2")]
    out: PathBuf,
    /// Points run in parallel (each holds one device: about 0.5 GB for consumer-tlc-250g).
    #[arg(long, default_value_t = default_jobs())]
    jobs: usize,
    #[arg(long, default_value = "consumer-tlc-250g")]
    device: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Only these operations (read, randread, write, randwrite); repeatable.
    #[arg(long = "op", value_parser = ["read", "randread", "write", "randwrite"])]
    ops: Vec<String>,
    /// Only these device states (partial, full); repeatable.
    #[arg(long = "occupancy", value_parser = ["partial", "full"])]
    occupancies: Vec<String>,
    /// Override the plan: simulated seconds per partially occupied run.
    #[arg(long)]
    partial_runtime: Option<u64>,
    /// Override the plan: simulated seconds per fully occupied run.
    #[arg(long)]
    full_runtime: Option<u64>,
    /// Override the plan: repetitions per point.
    #[arg(long)]
    reps: Option<u32>,
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn run(a: Args) -> Result<(), InputError> {
    let Study::K2(a) = a.study;
    if a.jobs == 0 {
        return Err(InputError::invalid("--jobs", "must be at least 1"));
    }
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
    for (name, v) in [
        ("--partial-runtime", plan.partial_runtime_s),
        ("--full-runtime", plan.full_runtime_s),
        ("--reps", plan.reps as u64),
    ] {
        if v == 0 {
            return Err(InputError::invalid(name, "must be at least 1"));
        }
    }
    let opts = StudyOptions {
        plan,
        out: a.out.clone(),
        threads: a.jobs,
        seed: a.seed,
        device: SsdConfig::load(&a.device)?,
        host: HostConfig::default(),
        ops: a.ops,
        occupancies: a.occupancies,
    };
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(1);
        b.set_style(
            indicatif::ProgressStyle::with_template(
                "K2 study [{bar:40}] {pos}/{len} points ({elapsed}, eta {eta})",
            )
            .expect("valid template"),
        );
        b
    });
    let progress = |done: usize, total: usize| {
        if let Some(b) = &bar {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    };
    let out = reproduce(&opts, &progress)?;
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
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
