//! `ssdlab reproduce stb`: the STB study (docs/stb-study.md).

use super::{self as stb_study, Plan, StbStudyOptions};
use crate::commands::{default_jobs, json, parse_jobs, say_files, Console, Points, Seed, Study};
use crate::dask_bridge::ClusterArgs;
use crate::findings::Finding;
use ssdlab_sim::error::InputError;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Stb {
    #[arg(long, default_value = "out/stb")]
    out: PathBuf,
    /// The smaller run (the default): 1,000 files and 4,000 transactions per process.
    #[arg(long, conflicts_with = "paper")]
    quick: bool,
    /// 2,000 files and 20,000 transactions per process.
    #[arg(long)]
    paper: bool,
    #[arg(long, default_value_t = default_jobs(), value_parser = parse_jobs)]
    jobs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    cluster: ClusterArgs,
}

impl Study for Stb {
    const NAME: &'static str = "stb";
    const ABOUT: &'static str = "The STB study (Kang, Park, Yoo 2011): five concurrent Postmark \
        processes under noop, deadline, IRBW-FIFO, IRBW-FIFO-RP and STB, on a SATA-era MLC SSD \
        with a hybrid log-block FTL and with page mapping";
    const SEED: Option<Seed> = Some(Seed {
        title: "Selective time-out bundling",
        paper: "Kang, Park and Yoo, 2011",
    });
    const POINTS: Option<Points> = Some(Points {
        run: |c| Ok(json(&stb_study::run_config(c)?)),
        grid: |paper, seed, _| Ok(stb_study::grid(paper, seed)),
    });

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        run(self, console)
    }
}

fn run(a: Stb, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
    let plan = if a.paper { Plan::Paper } else { Plan::Quick };
    let opts = StbStudyOptions {
        out: a.out.clone(),
        threads: a.jobs,
        seed: a.seed,
        plan,
        remote: a.cluster.shared(&a.out),
    };
    let progress = |done: usize, total: usize| console.progress("STB study", done, total);
    let (rows, computed) = stb_study::run(&opts, &progress)?;
    let w = stb_study::workload(plan);
    let preamble = format!(
        "Device `mlc-sata-8g` (a SATA II MLC SSD of 2009: 8 dies, 4 MiB logical blocks, NCQ depth 31) \
with its hybrid log-block FTL (FAST) and with the same flash behind page mapping; host: one hardware \
queue of depth 31, 128 scheduler requests. Workload: {} concurrent Postmark processes, {} files of \
{}–{} bytes and {} transactions each (read/append and create/delete biases {}/{} of 10), over a page \
cache of {} MiB with Linux 2.6.30's write-back (dirty ratios {} % / {} %, expiry {} s, flusher every {} s); \
seed {}. The bundling schedulers gather `lb_size=auto`, measured on each device. \
Response times are block-level (sync write, async write, read) and per Postmark operation, not the \
paper's system-call times (docs/stb-study.md).\n",
        w.postmark.processes,
        w.postmark.files,
        w.postmark.size_min,
        w.postmark.size_max,
        w.postmark.transactions,
        w.postmark.read_bias,
        w.postmark.create_bias,
        w.page_cache.capacity_bytes >> 20,
        w.page_cache.dirty_background_ratio,
        w.page_cache.dirty_ratio,
        w.page_cache.dirty_expire_ns / 1_000_000_000,
        w.page_cache.writeback_interval_ns / 1_000_000_000,
        a.seed,
    );
    let files = stb_study::write_report(&rows, &preamble, &a.out)?;
    console.say(&format!(
        "STB study: {} points ({computed} computed, {} from the cache) in {}",
        rows.len(),
        rows.len() - computed,
        a.out.display()
    ));
    for ftl in stb_study::FTLS {
        if let Some(g) = stb_study::stb_gain(&rows, ftl) {
            console.say(&format!(
                "  {ftl} FTL: STB {:+.1} % transactions/s over the better of noop and deadline",
                100.0 * g
            ));
        }
    }
    say_files(console, &files);
    Ok(stb_study::findings::findings(&rows))
}
