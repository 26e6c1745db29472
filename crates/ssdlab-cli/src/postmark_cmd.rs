//! `ssdlab postmark`: the Postmark-like workload over the page cache, the
//! block layer and a device (docs/stb-study.md).

use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::postmark_run::{run_postmark_on, DeviceFigures, PostmarkResult};
use ssdlab_sim::workload::postmark::{looks_like_commands, parse_commands, PostmarkFile};
use ssdlab_studies::setup::{load_device, load_host};
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Workload file: TOML (`[postmark]`, `[page_cache]`) or Postmark's own
    /// commands (`set number 1000`, `set size 500 10000`, `run`, …);
    /// without one, Postmark 1.5's defaults for five processes.
    workload: Option<PathBuf>,
    /// Device preset name or TOML file.
    #[arg(long, default_value = "mlc-sata-8g")]
    device: String,
    /// I/O scheduler spec, e.g. `noop`, `deadline`, `stb:lb_size=auto`.
    #[arg(long, default_value = "noop")]
    scheduler: String,
    /// Host block-layer settings (default: the preset's).
    #[arg(long)]
    host: Option<PathBuf>,
    /// Seed (default: the command file's `set seed`, else 1).
    #[arg(long)]
    seed: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Run with the device's invariant and data-integrity checker (slow).
    #[arg(long)]
    check: bool,
}

pub fn run(a: Args) -> Result<(), InputError> {
    let preset = load_device(&a.device, None, &[])?;
    let host = load_host(a.host.as_deref(), preset.host.clone())?;
    let page_bytes = preset.device.geometry.page_size;
    let workload = match &a.workload {
        Some(path) => {
            let file = path.display().to_string();
            let text = ssdlab_fio::read_input_string(path.as_ref())
                .map_err(|e| InputError::invalid(&file, e.to_string()))?;
            if looks_like_commands(&text) {
                parse_commands(&text, &file)?
            } else {
                PostmarkFile::from_toml(&text, &file, page_bytes)?
            }
        }
        None => PostmarkFile::default(),
    };
    let (res, dev, lb) = run_postmark_on(
        &preset.device,
        &host,
        &a.scheduler,
        &workload,
        a.seed.or(workload.seed).unwrap_or(1),
        a.check,
    )?;
    if a.json {
        let json = serde_json::json!({
            "device": preset.device.name,
            "scheduler": res.scheduler,
            "lb_size": lb,
            "postmark": res.report,
            "device_figures": dev,
            "host": res.host,
            "scheduler_counters": res.scheduler_counters,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&json).expect("plain data")
        );
    } else {
        print!("{}", text_report(&preset.device.name, &res, &dev, lb));
    }
    Ok(())
}

fn text_report(device: &str, res: &PostmarkResult, dev: &DeviceFigures, lb: Option<u64>) -> String {
    let r = &res.report;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "postmark on {device} ({} FTL), scheduler {}",
        dev.mapping, res.scheduler
    );
    if let Some(lb) = lb {
        let _ = writeln!(out, "  lb_size=auto measured {lb} bytes");
    }
    let _ = writeln!(
        out,
        "  {} processes, {} transactions: {:.1} transactions/s; read {:.2} MB/s, write {:.2} MB/s over {:.2} s",
        r.processes, r.transactions, r.transactions_per_s, r.read_mb_s, r.write_mb_s, r.elapsed_s
    );
    let _ = writeln!(
        out,
        "  {:<12} {:>9} {:>11} {:>11} {:>11}",
        "class", "count", "avg (us)", "p99 (us)", "max (us)"
    );
    let classes = [
        ("sync write", &r.sync_write),
        ("async write", &r.async_write),
        ("read", &r.read),
    ];
    let ops = r.ops.iter().map(|(k, f)| (k.as_str(), f));
    for (name, f) in classes.into_iter().chain(ops) {
        let _ = writeln!(
            out,
            "  {name:<12} {:>9} {:>11.1} {:>11.1} {:>11.1}",
            f.count, f.mean_us, f.p99_us, f.max_us
        );
    }
    let pc = &r.page_cache;
    let _ = writeln!(
        out,
        "  page cache: {} read hits, {} misses, {} pages dirtied, {} written back, {} dropped, {} throttled writes, peak {} dirty pages",
        pc.read_hits, pc.read_misses, pc.pages_dirtied, pc.pages_written_back, pc.dirty_pages_dropped, pc.throttled_writes, pc.peak_dirty_pages
    );
    let _ = writeln!(
        out,
        "  device: WAF {:.2}, {} erases, {} pages copied; merges full {} partial {} switch {}",
        dev.waf,
        dev.erases,
        dev.copied_pages,
        dev.full_merges,
        dev.partial_merges,
        dev.switch_merges
    );
    out
}
