use ssdlab_sim::error::InputError;
use ssdlab_studies::waf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// `ssdlab run --target` against fio itself (ioengine=io_uring) on one
    /// file or block device: random and sequential reads and writes at QD 1
    /// and 32, run side by side, medians compared (±15 % marked).
    Fio {
        /// The file (created and laid out if missing) or block device.
        #[arg(long)]
        target: std::path::PathBuf,
        /// Rounds per case; the table gives medians.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=99))]
        rounds: u32,
        /// Seconds per run.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=3600))]
        runtime: u32,
        /// The region the jobs use (fio's size=).
        #[arg(long, default_value = "256m")]
        size: String,
        /// The writing cases may write to a block device (its data is lost).
        #[arg(long)]
        allow_destructive: bool,
        /// The fio binary.
        #[arg(long, default_value = "fio")]
        fio: String,
        #[arg(long)]
        json: bool,
    },
    /// Greedy GC write amplification under uniform random overwrites vs the
    /// Xiang–Kurkoski analytical model, at spare factors 7%, 14%, 28%.
    Waf {
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Overwrites before measuring, in multiples of the logical capacity.
        #[arg(long, default_value_t = 3.0)]
        warmup: f64,
        /// Overwrites measured, in multiples of the logical capacity.
        #[arg(long, default_value_t = 3.0)]
        measure: f64,
        #[arg(long)]
        json: bool,
    },
    /// A preset run against its drive's data sheet: 128 KiB sequential and
    /// 4 KiB random fio jobs at QD 32 on a fresh or half-full drive, beside
    /// the vendor's figures (±25 % marked).
    Datasheet {
        /// The preset (a drive with a known data sheet).
        #[arg(default_value = "consumer-tlc-250g")]
        preset: String,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Runs in parallel.
        #[arg(long, default_value_t = crate::plumbing::default_jobs(), value_parser = crate::plumbing::parse_jobs)]
        jobs: usize,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(a: Args) -> Result<(), InputError> {
    match a.what {
        What::Fio {
            target,
            rounds,
            runtime,
            size,
            allow_destructive,
            fio,
            json,
        } => crate::validate_fio::run(&crate::validate_fio::Settings {
            target,
            rounds,
            runtime_s: runtime,
            size,
            allow_destructive,
            fio,
            json,
        }),
        What::Datasheet {
            preset,
            seed,
            jobs,
            json,
        } => datasheet(&preset, seed, jobs, json),
        What::Waf {
            seed,
            warmup,
            measure,
            json,
        } => {
            // A WAF is a ratio over the measured writes: at least 1 % of
            // the logical capacity (about 5,000 pages) measures one.
            if !(warmup > 0.0 && warmup <= 100.0) {
                let message = format!("{warmup} is outside (0, 100]");
                return Err(InputError::invalid("--warmup", message));
            }
            if !(0.01..=100.0).contains(&measure) {
                let message = format!("{measure} is outside [0.01, 100]");
                return Err(InputError::invalid("--measure", message));
            }
            let points = waf::run(seed, warmup, measure);
            if json {
                return crate::output::print_json(&points);
            }
            println!(
                "Greedy GC, uniform random 4 KiB overwrites (16 planes x 256 blocks x 128 pages)"
            );
            println!(
                "{:>12} {:>14} {:>14} {:>12} {:>10} {:>14}",
                "spare factor",
                "effective rho",
                "simulated WAF",
                "model WAF",
                "error",
                "(1+rho)/2rho"
            );
            for p in &points {
                println!(
                    "{:>11.0}% {:>14.4} {:>14.3} {:>12.3} {:>9.1}% {:>14.3}",
                    p.spare_factor * 100.0,
                    p.effective_rho,
                    p.simulated_waf,
                    p.model_waf,
                    p.error_pct,
                    p.agarwal_waf
                );
            }
            println!("model: Xiang and Kurkoski (2012); see docs/model.md");
            Ok(())
        }
    }
}

fn datasheet(preset: &str, seed: u64, jobs: usize, json: bool) -> Result<(), InputError> {
    use ssdlab_studies::datasheet;
    if jobs == 0 {
        return Err(InputError::invalid("--jobs", "must be at least 1"));
    }
    let rows = datasheet::run(preset, seed, jobs)?;
    if json {
        return crate::output::print_json(&rows);
    }
    println!(
        "{preset} against its data sheet (scheduler none, the preset's own host, seed {seed})"
    );
    println!(
        "{:<74} {:>10} {:>10} {:>7}  within ±{:.0} %",
        "figure",
        "vendor",
        "ssdlab",
        "ratio",
        datasheet::TOLERANCE * 100.0
    );
    for r in &rows {
        println!(
            "{:<74} {:>10} {:>10} {:>7.2}  {}",
            format!("{} ({})", r.figure, r.unit),
            fmt(r.vendor),
            fmt(r.simulated),
            r.ratio,
            if r.within { "yes" } else { "no" }
        );
    }
    let within = rows.iter().filter(|r| r.within).count();
    println!("{within} of {} figures within ±25 %", rows.len());
    Ok(())
}

fn fmt(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
