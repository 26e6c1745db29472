//! `rtflash analyze`: allocates a real-time task set onto flash chips with
//! one approach and prints the clusters, the worst-case latencies and the
//! verdict (docs/rt-flash.md).

use ssdlab_rtflash::allocate::{ApproachChoice, Approaches, ClusterReport, TaskReport};
use ssdlab_rtflash::analysis::{ms, percent};
use ssdlab_rtflash::{allocate, Allocation, LeftoverChips, TaskSet};
use ssdlab_sim::error::InputError;
use ssdlab_sim::ssd::config::choice::Registry;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Allocate a task set (TOML) to chips and print the clusters, each
    /// task's worst-case latency breakdown and the verdict. An
    /// unschedulable set is a result (exit 0); a bad file exits 2.
    Analyze(AnalyzeArgs),
    /// Simulate a task set on its allocation: RT jobs at their worst-case
    /// rates, NRT through TBS or in the background; per task the deadline
    /// misses and response times beside the analysis' bound.
    Run(crate::rtflash_run::RunArgs),
}

#[derive(clap::Args)]
struct AnalyzeArgs {
    /// The task-set file.
    tasks: PathBuf,
    /// clustering (Clustering-BFD), global or full-isolation.
    #[arg(long, default_value = "clustering")]
    approach: String,
    /// What Clustering-BFD does with the chips no task needs: an NRT-only
    /// cluster, or spread over the fullest clusters (overrides the file's
    /// `[analysis] leftover_chips`).
    #[arg(long, value_enum)]
    leftover_chips: Option<LeftoverArg>,
    /// Print the allocation as JSON.
    #[arg(long)]
    json: bool,
}

/// `--leftover-chips` of `analyze` and `run`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LeftoverArg {
    NrtCluster,
    Spread,
}

/// Loads a task set, with `--leftover-chips` applied when given.
pub(crate) fn load_task_set(
    file: &str,
    leftover: Option<LeftoverArg>,
) -> Result<TaskSet, InputError> {
    let mut ts = TaskSet::load(file)?;
    if let Some(l) = leftover {
        ts.analysis.leftover_chips = match l {
            LeftoverArg::NrtCluster => LeftoverChips::NrtCluster,
            LeftoverArg::Spread => LeftoverChips::Spread,
        };
    }
    Ok(ts)
}

pub fn run(a: Args) -> Result<(), InputError> {
    match a.command {
        Command::Analyze(a) => analyze(a),
        Command::Run(a) => crate::rtflash_run::run(a),
    }
}

fn analyze(a: AnalyzeArgs) -> Result<(), InputError> {
    let approach = parse_approach(&a.approach)?;
    let file = a.tasks.display().to_string();
    let ts = load_task_set(&file, a.leftover_chips)?;
    let result = allocate(&ts, approach);
    if a.json {
        return crate::output::print_json(&result);
    }
    print_text(&file, &ts, &result);
    Ok(())
}

/// The `--approach` value of `analyze` and `run`.
pub(crate) fn parse_approach(name: &str) -> Result<ApproachChoice, InputError> {
    ApproachChoice::parse(name).map_err(|m| {
        InputError::invalid(
            "--approach",
            format!("{m}; {}", Approaches::names().join(", ")),
        )
    })
}

fn print_text(file: &str, ts: &TaskSet, r: &Allocation) {
    let p = &ts.platform;
    println!("task set: {file}");
    let from = p
        .preset
        .as_ref()
        .map_or(String::new(), |n| format!(" (preset {n})"));
    println!(
        "platform: {} chips{from}, {} blocks × {} pages of {} B per chip, {} reserved for GC",
        p.chips, p.blocks_per_chip, p.pages_per_block, p.page_size, p.reserved_blocks
    );
    println!(
        "          tR {} ns, tPROG {} ns, tBERS {} ns, tXFER {} ns; blocking B = {}",
        p.read_ns,
        p.program_ns,
        p.erase_ns,
        p.transfer_ns,
        ms(p.blocking_ns())
    );
    let leftover = ts.analysis.leftover_chips;
    if r.approach == "clustering" && leftover != LeftoverChips::NrtCluster {
        println!(
            "approach: {}   test: {}   leftover chips: {}",
            r.approach,
            r.test.name(),
            leftover.name()
        );
    } else {
        println!("approach: {}   test: {}", r.approach, r.test.name());
    }
    if let Some(n) = &r.note {
        println!("note: {n}");
    }
    println!();
    print_clusters(&r.clusters);
    println!();
    print_tasks(&r.tasks);
    println!();
    match &r.reason {
        None => println!("verdict: schedulable"),
        Some(why) => println!("verdict: unschedulable: {why}"),
    }
}

fn print_clusters(clusters: &[ClusterReport]) {
    println!(
        "{:<8} {:<8} {:<22} {:>7} {:>4} {:>4} {:>11} {:>8} {:>8} {:>8} {:>12}",
        "cluster",
        "chips",
        "tasks",
        "space",
        "u",
        "f",
        "GC round",
        "U_rt",
        "density",
        "U_srv",
        "busy period"
    );
    for (k, c) in clusters.iter().enumerate() {
        let tasks = if c.nrt_only {
            "(NRT only)".to_string()
        } else {
            c.tasks.join(",")
        };
        println!(
            "{:<8} {:<8} {:<22} {:>7} {:>4} {:>4} {:>11} {:>8} {:>8} {:>8} {:>12}",
            k,
            join(&c.chips),
            tasks,
            percent(c.space_utilisation_ppm),
            c.space.victim_valid_pages,
            c.space.freed_pages_per_round,
            ms(c.space.gc_round_ns),
            percent(c.rt_utilisation_ppm),
            ppm_or_inf(c.density_ppm),
            percent(c.server_bandwidth_ppm),
            match (c.nrt_only, c.busy_period_ns) {
                (true, _) => "-".to_string(),
                (false, None) => "unbounded".to_string(),
                (false, Some(bp)) => ms(bp),
            },
        );
    }
}

fn print_tasks(tasks: &[TaskReport]) {
    println!(
        "{:<10} {:<8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}  WCL ≤ D",
        "task", "chips", "deadline", "demand", "own I/O", "other I/O", "GC", "blocking", "WCL",
    );
    for t in tasks {
        let chips = if t.chips.is_empty() {
            "-".to_string()
        } else {
            join(&t.chips)
        };
        let demand = t.demand.map_or("-".into(), |d| ms(d.total_ns()));
        let (own, other, gc, b) =
            t.breakdown
                .map_or(("-".into(), "-".into(), "-".into(), "-".into()), |b| {
                    (
                        ms(b.own_io_ns),
                        ms(b.other_io_ns),
                        ms(b.gc_ns),
                        ms(b.blocking_ns),
                    )
                });
        let wcl = match (&t.cluster, t.worst_case_latency_ns) {
            (None, _) => "unplaced".to_string(),
            (Some(_), None) => "unbounded".to_string(),
            (Some(_), Some(w)) => ms(w),
        };
        println!(
            "{:<10} {:<8} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11}  {}",
            t.name,
            chips,
            ms(t.deadline_ns),
            demand,
            own,
            other,
            gc,
            b,
            wcl,
            if t.within_deadline { "yes" } else { "NO" }
        );
    }
}

fn join(chips: &[u32]) -> String {
    chips
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn ppm_or_inf(ppm: u64) -> String {
    if ppm == u64::MAX {
        "inf".into()
    } else {
        format!("{}.{:03}", ppm / 1_000_000, (ppm / 1_000) % 1_000)
    }
}
