use ssdlab_sim::error::InputError;
use ssdlab_studies::waf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
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
}

pub fn run(a: Args) -> Result<(), InputError> {
    match a.what {
        What::Waf {
            seed,
            warmup,
            measure,
            json,
        } => {
            for (name, v) in [("--warmup", warmup), ("--measure", measure)] {
                if !(v > 0.0 && v <= 100.0) {
                    return Err(InputError::invalid(
                        name,
                        format!("{v} is outside (0, 100]"),
                    ));
                }
            }
            let points = waf::run(seed, warmup, measure);
            if json {
                return crate::print_json(&points);
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
