//! `rtflash run`: simulates a real-time task set on its allocation (RT jobs
//! at their worst-case rates, the NRT load in the background or through
//! each cluster's TBS) and prints per task the jobs, deadline misses and
//! response times next to the analysis' worst-case latency.

use ssdlab_rtflash::analysis::ms;
use ssdlab_rtflash::sim::{
    duration_ns, run_task_set, ChipOrder, Model, NrtPolicy, RunOptions, RunOutput,
};
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RunArgs {
    /// The task-set file.
    tasks: PathBuf,
    /// clustering (Clustering-BFD), global or full-isolation.
    #[arg(long, default_value = "clustering")]
    approach: String,
    /// How clusters serve NRT work: through a Total Bandwidth Server, or
    /// only when no RT operation is ready.
    #[arg(long, value_enum, default_value = "tbs")]
    nrt: NrtArg,
    /// How each chip orders its operations: edf (the framework's device,
    /// which the analysis assumes) or fifo (an ordinary SSD: arrival order
    /// for all work, foreground GC runs a round to its end, and background
    /// NRT is held in the host while RT I/O is open).
    #[arg(long, value_enum, default_value = "edf")]
    chip_order: ChipOrderArg,
    /// The device simulated: chips (the analysis' platform: chips running
    /// one flash operation at a time and the analysis' GC round) or ssd
    /// (the full SSD model of the platform's preset, with the clusters as
    /// chip clusters; with --chip-order edf its dies serve commands by
    /// deadline, with fifo as the preset's firmware does).
    #[arg(long, value_enum, default_value = "chips")]
    model: ModelArg,
    /// Simulated seconds of RT releases.
    #[arg(long, default_value_t = 10.0)]
    duration: f64,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// What Clustering-BFD does with the chips no task needs (overrides
    /// the file's `[analysis] leftover_chips`).
    #[arg(long, value_enum)]
    leftover_chips: Option<super::common::LeftoverArg>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ChipOrderArg {
    Edf,
    Fifo,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ModelArg {
    Chips,
    Ssd,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum NrtArg {
    Tbs,
    Background,
}

pub fn run(a: RunArgs) -> Result<(), InputError> {
    let approach = super::common::parse_approach(&a.approach)?;
    let duration_ns = duration_ns(a.duration).map_err(|m| InputError::invalid("--duration", m))?;
    let file = a.tasks.display().to_string();
    let ts = super::common::load_task_set(&file, a.leftover_chips)?;
    let options = RunOptions {
        approach,
        nrt: match a.nrt {
            NrtArg::Tbs => NrtPolicy::Tbs,
            NrtArg::Background => NrtPolicy::Background,
        },
        order: match a.chip_order {
            ChipOrderArg::Edf => ChipOrder::Edf,
            ChipOrderArg::Fifo => ChipOrder::Fifo,
        },
        model: match a.model {
            ModelArg::Chips => Model::Chips,
            ModelArg::Ssd => Model::Ssd,
        },
        duration_ns,
        seed: a.seed,
    };
    let out = run_task_set(&ts, &options).map_err(|m| InputError::invalid(file.clone(), m))?;
    if a.json {
        return crate::output::print_json(&out);
    }
    print_text(&file, &out);
    Ok(())
}

fn print_text(file: &str, o: &RunOutput) {
    let service = match o.nrt_service {
        NrtPolicy::Tbs => "TBS",
        NrtPolicy::Background => "background",
    };
    println!("task set: {file}");
    let order = match (o.model, o.chip_order) {
        (Model::Chips, ChipOrder::Edf) => "chips EDF",
        (Model::Chips, ChipOrder::Fifo) => "chips FIFO",
        (Model::Ssd, ChipOrder::Edf) => "SSD model, dies EDF",
        (Model::Ssd, ChipOrder::Fifo) => "SSD model, the preset's die order",
    };
    println!(
        "approach: {}, NRT served by {service}, {order}, {:.1} s simulated",
        o.approach,
        o.duration_ns as f64 / 1e9
    );
    match &o.reason {
        None => println!("analysis: schedulable"),
        Some(why) => println!("analysis: unschedulable: {why}"),
    }
    println!();
    println!(
        "{:<10} {:>6} {:>12} {:>12} {:>11} {:>11} {:>11} {:>11}",
        "task",
        "jobs",
        "read misses",
        "write misses",
        "deadline",
        "max resp",
        "p99.9 resp",
        "WCL bound"
    );
    for t in &o.tasks {
        let r = &t.observed;
        println!(
            "{:<10} {:>6} {:>12} {:>12} {:>11} {:>11} {:>11} {:>11}",
            r.name,
            r.jobs,
            format!("{}/{}", r.read_misses, r.read_requests),
            format!("{}/{}", r.write_misses, r.write_requests),
            ms(t.deadline_ns),
            ms(r.max_response_ns),
            ms(r.p999_response_ns),
            t.worst_case_latency_ns.map_or("unbounded".into(), ms),
        );
    }
    if o.nrt_service == NrtPolicy::Tbs {
        println!(
            "(the WCL bound is the RT busy period; with NRT through a TBS the server's \
             work may push a job past it, and the guarantee is the deadline)"
        );
    }
    if let Some(n) = &o.nrt {
        println!();
        println!(
            "NRT: {} requests, {:.0} IOPS, {:.2} MB/s, mean response {}",
            n.requests,
            n.iops,
            n.mb_per_s,
            ms(n.mean_response_ns)
        );
    }
    println!(
        "GC: {} rounds, {} pages copied",
        o.gc_rounds, o.gc_copied_pages
    );
}
