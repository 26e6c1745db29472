use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::closed_loop::LoadFigures;
use ssdlab_studies::bench::{self, BenchOptions, BenchReport};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Device preset name or TOML file.
    #[arg(long, default_value = "mqsim-64g")]
    device: String,
    /// Requests per load (1 to 10^9).
    #[arg(long, default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000_000))]
    requests: u64,
    /// Outstanding commands (closed loop; 1 to 65,536).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    qd: u32,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Simulated seconds of the full-stack figure (fio K2 random-read job on
    /// consumer-tlc-250g); 0 skips it; at most a simulated day.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=86_400))]
    fio_seconds: u64,
    /// Print one JSON object instead of tables.
    #[arg(long, conflicts_with = "compare")]
    json: bool,
    /// Run this build and another ssdlab binary alternately with the same
    /// options and print each speed figure's ratio with its spread.
    #[arg(long, value_name = "OTHER_BINARY")]
    compare: Option<PathBuf>,
    /// Rounds of `--compare` (each runs both builds once).
    #[arg(long, default_value_t = 3, requires = "compare",
          value_parser = clap::value_parser!(u32).range(1..=100))]
    rounds: u32,
}

pub fn run(a: Args) -> Result<(), InputError> {
    if let Some(other) = &a.compare {
        let forwarded = [
            format!("--device={}", a.device),
            format!("--requests={}", a.requests),
            format!("--qd={}", a.qd),
            format!("--seed={}", a.seed),
            format!("--fio-seconds={}", a.fio_seconds),
        ];
        return crate::bench_compare::run(other, a.rounds, &forwarded);
    }
    let opts = BenchOptions {
        device: a.device,
        requests: a.requests,
        qd: a.qd,
        seed: a.seed,
        fio_seconds: a.fio_seconds,
    };
    let r = bench::run(&opts)?;
    if a.json {
        return crate::output::print_json(&r);
    }
    print_tables(&r);
    Ok(())
}

fn print_tables(r: &BenchReport) {
    println!(
        "ssdlab bench — device {}, QD {}, {} requests per load, seed {}",
        r.device, r.qd, r.requests, r.seed
    );
    println!();
    println!("Preconditioning (fully occupied, free pool at the GC threshold)");
    println!(
        "  filled {} pages, {} steady-state overwrites, {} GC page moves, {} erases",
        r.precondition.filled_pages,
        r.precondition.steady_state_pages,
        r.precondition.gc_pages_moved,
        r.precondition.erases
    );
    println!();
    println!("Simulated device (deterministic)");
    println!(
        "  {:<14} {:>11} {:>10} {:>10} {:>10} {:>10} {:>11}",
        "load", "IOPS", "mean µs", "p50 µs", "p99 µs", "p99.9 µs", "max µs"
    );
    row("randread 4K", &r.randread);
    row("randwrite 4K", &r.randwrite_gc);
    let f = &r.randwrite_gc_ftl;
    println!(
        "  random writes: WAF {:.2}, {} GC invocations, {} pages moved, {} erases, {} buffer-full stalls",
        r.randwrite_gc_waf, f.gc_invocations, f.gc_pages_moved, f.erases, r.randwrite_gc_device.write_stalls
    );
    println!();
    let w = &r.wall;
    println!("Simulator speed (wall clock, this machine)");
    println!("  precondition            {:>12.2} s", w.precondition_s);
    println!(
        "  random reads            {:>12.0} requests/s  ({:.0} events/s)",
        w.randread_req_per_s, w.randread_events_per_s
    );
    println!(
        "  random writes with GC   {:>12.0} requests/s  ({:.0} events/s)",
        w.randwrite_gc_req_per_s, w.randwrite_gc_events_per_s
    );
    println!("  peak RSS                {:>12.0} MiB", w.peak_rss_mb);
    if let (Some(f), Some(rps)) = (&r.fio_k2_randread, w.fio_k2_randread_req_per_s) {
        println!(
            "  fio K2 randread, none   {:>12.0} requests/s  ({} on {}, {} s simulated, {} requests)",
            rps, f.scheduler, f.device, f.simulated_s, f.requests
        );
        println!(
            "                          total {:.0} MB/s, RT p99.9 {:.0} µs (simulated); peak RSS {:.0} MiB",
            f.total_bw_mbs,
            f.rt_p999_us,
            w.fio_peak_rss_mb.unwrap_or(0.0)
        );
    }
}

fn row(name: &str, f: &LoadFigures) {
    println!(
        "  {:<14} {:>11.0} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>11.1}",
        name, f.iops, f.mean_us, f.p50_us, f.p99_us, f.p999_us, f.max_us
    );
}
