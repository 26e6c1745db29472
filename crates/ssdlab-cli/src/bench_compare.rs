//! `ssdlab bench --compare OTHER`: this build and another one, run
//! alternately in one invocation on the same machine, so that a speed claim
//! is a ratio measured side by side. Each round runs both builds' `bench
//! --json` with the same options, in turn (ABBA order across rounds, so a
//! drift of the machine's speed falls on both), and the table gives each
//! figure's median, the ratio of medians and the spread of the per-round
//! ratios. The simulated figures of the two builds are compared too: a
//! faster build that simulates something else is not faster.

use serde_json::Value;
use ssdlab_sim::error::InputError;
use std::path::Path;
use std::process::Command;

/// The wall-clock figures compared, with whether more is better.
const FIGURES: &[(&str, &str, bool)] = &[
    ("precondition_s", "precondition (s)", false),
    ("randread_req_per_s", "random reads (req/s)", true),
    (
        "randwrite_gc_req_per_s",
        "random writes with GC (req/s)",
        true,
    ),
    (
        "fio_k2_randread_req_per_s",
        "full stack, fio K2 randread (req/s)",
        true,
    ),
    ("peak_rss_mb", "peak RSS (MiB)", false),
];

/// The simulated (deterministic) parts of the report.
const SIMULATED: &[&str] = &[
    "precondition",
    "randread",
    "randwrite_gc",
    "randwrite_gc_ftl",
    "randwrite_gc_waf",
    "fio_k2_randread",
];

pub fn run(other: &Path, rounds: u32, bench_args: &[String]) -> Result<(), InputError> {
    let this = std::env::current_exe()
        .map_err(|e| InputError::invalid("--compare", format!("cannot find this binary: {e}")))?;
    let mut mine = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..rounds {
        eprintln!("bench --compare: round {} of {rounds}", round + 1);
        if round % 2 == 0 {
            mine.push(bench_json(&this, bench_args)?);
            theirs.push(bench_json(other, bench_args)?);
        } else {
            theirs.push(bench_json(other, bench_args)?);
            mine.push(bench_json(&this, bench_args)?);
        }
    }
    print_table(other, &mine, &theirs);
    Ok(())
}

/// One `bench --json` run of `binary`.
fn bench_json(binary: &Path, args: &[String]) -> Result<Value, InputError> {
    let name = binary.display().to_string();
    let out = Command::new(binary)
        .arg("bench")
        .args(args)
        .arg("--json")
        .output()
        .map_err(|e| InputError::invalid(&name, format!("cannot run: {e}")))?;
    if !out.status.success() {
        return Err(InputError::invalid(
            &name,
            format!(
                "bench failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        ));
    }
    serde_json::from_slice(&out.stdout)
        .map_err(|e| InputError::invalid(&name, format!("bench --json printed no report: {e}")))
}

fn wall(report: &Value, key: &str) -> Option<f64> {
    report.get("wall")?.get(key)?.as_f64()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Rates as whole numbers, seconds and MiB with two decimals.
fn shown(v: f64) -> String {
    if v >= 1000.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

fn print_table(other: &Path, mine: &[Value], theirs: &[Value]) {
    println!(
        "ssdlab bench --compare: this build (A) against {} (B), {} rounds, alternating",
        other.display(),
        mine.len()
    );
    println!();
    println!(
        "  {:<38} {:>14} {:>14} {:>8} {:>17}",
        "figure (median of rounds)", "A", "B", "A / B", "per-round A / B"
    );
    for &(key, label, _) in FIGURES {
        let a: Vec<f64> = mine.iter().filter_map(|r| wall(r, key)).collect();
        let b: Vec<f64> = theirs.iter().filter_map(|r| wall(r, key)).collect();
        if a.len() != mine.len() || b.len() != theirs.len() || a.is_empty() {
            continue;
        }
        let ratios: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x / y).collect();
        let lo = ratios.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (ma, mb) = (median(a), median(b));
        println!(
            "  {label:<38} {:>14} {:>14} {:>8.3} {:>8.3} – {:.3}",
            shown(ma),
            shown(mb),
            ma / mb,
            lo,
            hi
        );
    }
    println!();
    println!("  (for req/s a ratio above 1 means A is faster; for seconds and MiB, below 1)");
    let differ: Vec<&str> = SIMULATED
        .iter()
        .copied()
        .filter(|&k| mine[0].get(k) != theirs[0].get(k))
        .collect();
    if differ.is_empty() {
        println!("  simulated figures: identical");
    } else {
        println!(
            "  simulated figures differ in: {} (the builds do not simulate the same thing)",
            differ.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::median;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
