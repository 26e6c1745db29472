use crate::choices::{name_of, K2Occupancy, K2Op, TuneObjective};
use ssdlab_sim::error::InputError;
use ssdlab_studies::k2::report::read_csv;
use ssdlab_studies::k2::results::PointRow;
use ssdlab_studies::k2::tune::{tune_all, Objective, TuneResult};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// o1: maximise bandwidth with RT p99.9 ≤ α% of none's; o2: minimise RT
    /// p99.9 with bandwidth ≥ β% of none's.
    #[arg(long, value_enum)]
    objective: TuneObjective,
    /// α in percent (O1).
    #[arg(long)]
    alpha: Option<f64>,
    /// β in percent (O2).
    #[arg(long)]
    beta: Option<f64>,
    /// A results.csv written by `ssdlab reproduce k2`.
    #[arg(long)]
    results: PathBuf,
    /// Only this operation's cells.
    #[arg(long, value_enum)]
    op: Option<K2Op>,
    /// Only this occupancy's cells.
    #[arg(long, value_enum)]
    occupancy: Option<K2Occupancy>,
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<(), InputError> {
    let objective = match (a.objective, a.alpha, a.beta) {
        (TuneObjective::O1, Some(alpha), None) => Objective::O1 {
            alpha: pct("--alpha", alpha)?,
        },
        (TuneObjective::O2, None, Some(beta)) => Objective::O2 {
            beta: pct("--beta", beta)?,
        },
        (TuneObjective::O1, _, _) => {
            return Err(InputError::invalid(
                "--objective o1",
                "needs --alpha PCT (and no --beta)",
            ))
        }
        _ => {
            return Err(InputError::invalid(
                "--objective o2",
                "needs --beta PCT (and no --alpha)",
            ))
        }
    };
    let file = a.results.display().to_string();
    if !a.results.is_file() {
        return Err(InputError::invalid(
            "--results",
            format!("{file} is not a regular file"),
        ));
    }
    let rows = read_csv(&a.results).map_err(|e| {
        let line = e.position().map_or(0, |p| p.line() as usize);
        InputError::At {
            file: file.clone(),
            line,
            field: "results".into(),
            message: e.to_string(),
        }
    })?;
    check_rows(&rows, &file)?;
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| a.op.is_none_or(|o| r.op == name_of(&o)))
        .filter(|r| a.occupancy.is_none_or(|o| r.occupancy == name_of(&o)))
        .collect();
    let results = tune_all(&rows, objective);
    if results.is_empty() {
        return Err(InputError::invalid(
            file,
            "no (operation, occupancy) cell with both none and K2 rows",
        ));
    }
    if a.json {
        return crate::print_json(&results);
    }
    for t in &results {
        print_one(t);
    }
    Ok(())
}

/// Every row as `reproduce k2` writes it: a known operation, occupancy
/// and scheduler, a bound with K2 only (at least 1), finite non-negative
/// figures, and one row per cell and bound. The error names the line.
fn check_rows(rows: &[PointRow], file: &str) -> Result<(), InputError> {
    let mut seen = std::collections::BTreeSet::new();
    for (i, r) in rows.iter().enumerate() {
        let at = |field: &str, message: String| InputError::At {
            file: file.to_string(),
            // Line 1 is the header.
            line: i + 2,
            field: field.to_string(),
            message,
        };
        if !["read", "randread", "write", "randwrite"].contains(&r.op.as_str()) {
            return Err(at("op", format!("unknown operation '{}'", r.op)));
        }
        if !["partial", "full"].contains(&r.occupancy.as_str()) {
            let message = format!("unknown occupancy '{}'", r.occupancy);
            return Err(at("occupancy", message));
        }
        match (r.scheduler.as_str(), r.bound) {
            ("none", None) => {}
            ("k2", Some(b)) if b >= 1 => {}
            ("none", Some(_)) => return Err(at("bound", "none has no bound".into())),
            ("k2", _) => return Err(at("bound", "K2 needs a bound of at least 1".into())),
            (other, _) => return Err(at("scheduler", format!("unknown scheduler '{other}'"))),
        }
        for (field, v) in [
            ("rt_p999_us", r.rt_p999_us),
            ("total_bw_mbs", r.total_bw_mbs),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(at(
                    field,
                    format!("{v} is not a finite non-negative figure"),
                ));
            }
        }
        let cell = (r.op.as_str(), r.occupancy.as_str(), r.bound);
        if !seen.insert(cell) {
            return Err(at(
                "bound",
                "a second row for this operation, occupancy and bound".into(),
            ));
        }
    }
    Ok(())
}

fn pct(name: &str, v: f64) -> Result<f64, InputError> {
    if v > 0.0 && v <= 100.0 {
        Ok(v)
    } else {
        Err(InputError::invalid(
            name,
            format!("{v} is outside (0, 100]"),
        ))
    }
}

fn print_one(t: &TuneResult) {
    let constraint = match t.objective {
        Objective::O1 { alpha } => {
            format!("RT p99.9 ≤ {alpha}% of none's {:.0} µs", t.none_p999_us)
        }
        Objective::O2 { beta } => format!(
            "total bandwidth ≥ {beta}% of none's {:.0} MB/s",
            t.none_bw_mbs
        ),
    };
    let feasible: Vec<String> = t.feasible.iter().map(|b| format!("K2-{b}")).collect();
    let answer = match (t.chosen, t.closest) {
        (Some(b), _) => format!("K2-{b}"),
        (None, Some(c)) => format!("infeasible (closest: K2-{c})"),
        (None, None) => "infeasible".into(),
    };
    println!("{} / {}: {constraint}", t.op, t.occupancy);
    println!(
        "  feasible: {}",
        if feasible.is_empty() {
            "none".to_string()
        } else {
            feasible.join(", ")
        }
    );
    println!("  chosen:   {answer}");
}
