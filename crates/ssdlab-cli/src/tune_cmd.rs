use crate::choices::{name_of, K2Occupancy, K2Op, TuneObjective};
use ssdlab_sim::error::InputError;
use ssdlab_studies::k2::report::read_csv;
use ssdlab_studies::k2::results::check_rows;
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
        return crate::output::print_json(&results);
    }
    for t in &results {
        print_one(t);
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
