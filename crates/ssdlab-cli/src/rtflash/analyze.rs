//! `rtflash analyze`: allocates a real-time task set onto flash chips with
//! one approach and prints the clusters, the worst-case latencies and the
//! verdict (docs/rt-flash.md).

use super::common::{load_task_set, parse_approach, LeftoverArg};
use ssdlab_rtflash::allocate::{ClusterReport, TaskReport};
use ssdlab_rtflash::analysis::{ms, percent};
use ssdlab_rtflash::{allocate, Allocation, LeftoverChips, TaskSet};
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

#[derive(clap::Args)]
pub(super) struct AnalyzeArgs {
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

pub(super) fn analyze(a: AnalyzeArgs) -> Result<(), InputError> {
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
