//! `ssdlab calibrate`: fits preset keys to measured figures. A targets file
//! (`targets.rs`; the K2 study's figures are built in, `k2.rs`) names the
//! starting preset, the keys to fit with their ranges, and the targets. A
//! Nelder–Mead search (the `argmin` crate) over the keys, scaled to the
//! unit cube, minimises the weighted sum of squared relative errors. Every
//! run is a study point in the cache (`point.rs`), so a killed fit resumes
//! where it stopped, and targets that read the same run share it. The runs
//! go through the studies' runner, on local threads or on a Dask cluster
//! (`FitOptions::remote`); the first simplex's vertices are evaluated as one
//! batch, so that a cluster runs them at once.

mod datasheet;
mod k2;
mod metric;
mod targets;

pub use datasheet::datasheet_targets;
pub use k2::k2_targets;
pub(crate) use targets::{get_dotted, preset_table};
pub use targets::{Calibration, Metric, Param, Target, TargetValue, TargetsFile, PRESET_HOST};

use crate::point::{PointFigures, PointSpec};
use crate::runner::{run_points, Remote, StudyPoint};
use argmin::core::{CostFunction, Error};
use ssdlab_sim::error::InputError;
use ssdlab_sim::preset::Preset;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The built-in targets: the K2 study's figures of both occupancies on
/// its host, and the data sheet's on the preset's own host.
pub fn builtin_targets() -> TargetsFile {
    let mut file = k2_targets();
    file.targets.extend(datasheet_targets());
    file
}

/// One target's outcome at the fitted keys.
#[derive(Debug, Clone)]
pub struct Residual {
    pub label: String,
    pub measured: f64,
    pub target: TargetValue,
    pub weight: f64,
    /// The relative error it should stay within, if any.
    pub tolerance: Option<f64>,
}

impl Residual {
    pub fn relative_error(&self) -> f64 {
        self.target.relative_error(self.measured)
    }

    /// How far the error is beyond the tolerance (0 within it or without one).
    pub fn excess(&self) -> f64 {
        self.tolerance
            .map_or(0.0, |tol| (self.relative_error().abs() - tol).max(0.0))
    }

    /// The residual's share of the cost: its squared error, and the
    /// excess over its tolerance at a much steeper rate.
    fn cost(&self) -> f64 {
        self.weight
            * (self.relative_error().powi(2) + OUTSIDE_TOLERANCE_WEIGHT * self.excess().powi(2))
    }
}

/// How much more an error beyond a target's tolerance costs than one
/// inside it, per unit squared: steep, so that the search first brings
/// every target inside its band, then trades errors within the bands.
pub const OUTSIDE_TOLERANCE_WEIGHT: f64 = 1000.0;

/// The cost of a point whose keys together make no valid preset.
const INFEASIBLE_COST: f64 = 1e12;

/// The fit's result.
pub struct Fitted {
    pub values: Vec<(String, toml::Value)>,
    pub residuals: Vec<Residual>,
    pub cost: f64,
    /// Runs computed (not from the cache).
    pub runs: usize,
    pub preset_toml: String,
}

/// Search options.
pub struct FitOptions {
    pub cache_dir: PathBuf,
    pub threads: usize,
    pub max_iters: u64,
    /// Where the runs not in the cache go instead of local threads.
    pub remote: Option<Remote>,
}

/// Runs the search. `progress` hears each evaluation: how many so far and
/// the best cost yet.
pub fn fit(
    cal: &Calibration,
    opts: &FitOptions,
    progress: &(dyn Fn(usize, f64) + Sync),
) -> Result<Fitted, InputError> {
    with_objective(cal, opts, progress, |problem| {
        let start = cal.start_point();
        problem.prefetch(&crate::unit_search::first_simplex(&start))?;
        crate::unit_search::minimise(problem, start, opts.max_iters, 1e-6)
            .map_err(|m| InputError::invalid("calibrate", m))
    })
}

/// The targets at the keys' starting values, without a search: how far a
/// preset is from the figures.
pub fn evaluate(cal: &Calibration, opts: &FitOptions) -> Result<Fitted, InputError> {
    with_objective(cal, opts, &|_, _| {}, |_| Ok(cal.start_point()))
}

/// Builds the objective over the cache, lets `search` find a point, and
/// reports the residuals and preset there.
fn with_objective(
    cal: &Calibration,
    opts: &FitOptions,
    progress: &(dyn Fn(usize, f64) + Sync),
    search: impl FnOnce(&Objective) -> Result<Vec<f64>, InputError>,
) -> Result<Fitted, InputError> {
    let problem = Objective {
        cal,
        opts,
        runs: AtomicUsize::new(0),
        evaluations: AtomicUsize::new(0),
        best: Mutex::new(f64::INFINITY),
        progress,
    };
    let best = search(&problem)?;
    // Every target at the result, the checks too.
    let residuals = problem.residuals(&best, Targets::All)?;
    let values = cal.values(&best);
    let preset = Preset::load_with(&cal.file.device, &values)?;
    Ok(Fitted {
        cost: cost_of(&residuals),
        residuals,
        runs: problem.runs.load(Ordering::Relaxed),
        preset_toml: preset
            .to_toml()
            .map_err(|m| InputError::invalid("calibrate", m))?,
        values,
    })
}

fn cost_of(residuals: &[Residual]) -> f64 {
    residuals.iter().map(Residual::cost).sum()
}

/// Which targets an evaluation runs: the search needs only those it fits
/// (a check, of weight 0, adds nothing to the cost), the result every one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Targets {
    Fitted,
    All,
}

struct Objective<'a> {
    cal: &'a Calibration,
    opts: &'a FitOptions,
    runs: AtomicUsize,
    evaluations: AtomicUsize,
    best: Mutex<f64>,
    progress: &'a (dyn Fn(usize, f64) + Sync),
}

impl Objective<'_> {
    /// The targets at `x`. Targets that read the same run (the same job
    /// file, runtime, scheduler, occupancy, preconditioning and host)
    /// share it; the distinct runs go in parallel or come from the cache.
    fn residuals(&self, x: &[f64], which: Targets) -> Result<Vec<Residual>, InputError> {
        self.residuals_of(&self.points(x, which)?)
    }

    /// The points of the targets `which` names at `x`, each with its
    /// target's index; an error when the keys there make no valid preset.
    fn points(&self, x: &[f64], which: Targets) -> Result<Vec<(usize, PointSpec)>, InputError> {
        let targets = &self.cal.file.targets;
        (0..targets.len())
            .filter(|&i| which == Targets::All || targets[i].weight > 0.0)
            .map(|i| Ok((i, self.cal.point(i, x)?)))
            .collect()
    }

    /// The targets measured at their points.
    fn residuals_of(&self, specs: &[(usize, PointSpec)]) -> Result<Vec<Residual>, InputError> {
        // Each target's run among the distinct ones, in order of first use.
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut distinct = Vec::new();
        let run_of: Vec<usize> = specs
            .iter()
            .map(|(_, spec)| {
                *index.entry(spec.config().to_string()).or_insert_with(|| {
                    distinct.push(spec);
                    distinct.len() - 1
                })
            })
            .collect();
        let figures = self.run(&distinct)?;
        specs
            .iter()
            .zip(run_of)
            .map(|((i, spec), run)| self.residual(*i, &spec.job_name, &figures[run]))
            .collect()
    }

    /// The figures of `specs`, from the cache or run (in parallel, or on
    /// the cluster).
    fn run(&self, specs: &[&PointSpec]) -> Result<Vec<PointFigures>, InputError> {
        let points: Vec<StudyPoint<'_, PointFigures>> = specs
            .iter()
            .map(|&spec| StudyPoint {
                config: spec.config(),
                cost: 1,
                compute: Box::new(move || spec.run()),
            })
            .collect();
        let o = self.opts;
        let (figures, computed) = run_points(
            &points,
            &o.cache_dir,
            o.threads,
            o.remote.as_ref(),
            &|_, _| {},
        )?;
        self.runs.fetch_add(computed, Ordering::Relaxed);
        Ok(figures)
    }

    /// Runs every point of `xs` (the feasible ones) as one batch, so that
    /// the search finds them in the cache: the first simplex's vertices do
    /// not depend on each other.
    fn prefetch(&self, xs: &[Vec<f64>]) -> Result<(), InputError> {
        let specs: Vec<(usize, PointSpec)> = xs
            .iter()
            .filter_map(|x| self.points(x, Targets::Fitted).ok())
            .flatten()
            .collect();
        let mut seen = std::collections::HashSet::new();
        let distinct: Vec<&PointSpec> = specs
            .iter()
            .map(|(_, s)| s)
            .filter(|s| seen.insert(s.config().to_string()))
            .collect();
        self.run(&distinct).map(drop)
    }

    fn residual(
        &self,
        i: usize,
        job: &str,
        figures: &PointFigures,
    ) -> Result<Residual, InputError> {
        let t = &self.cal.file.targets[i];
        let measured = t
            .metric
            .read(figures, t.job_name.as_deref())
            .ok_or_else(|| InputError::invalid(job, "the run has no job of that job_name"))?;
        Ok(Residual {
            label: target_label(t),
            measured,
            target: t.value,
            weight: t.weight,
            tolerance: t.tolerance.or(self.cal.file.tolerance),
        })
    }
}

/// How the residuals table names a target.
fn target_label(t: &Target) -> String {
    let runtime = t.runtime_s.map_or(String::new(), |s| format!(" {s}s"));
    let job = t
        .job_name
        .as_deref()
        .map_or(String::new(), |j| format!(" ({j})"));
    let host = t
        .host
        .as_deref()
        .map_or(String::new(), |h| format!(" on {h}"));
    format!(
        "{} {} {}%{runtime}{host} {}{job}",
        t.job.display(),
        t.scheduler,
        t.occupancy,
        t.metric.name()
    )
}

impl CostFunction for &Objective<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        // A point whose keys together make no valid preset (each key's
        // range was checked alone) is a point the search must leave, not
        // an error that ends it. A run or cache that fails still ends it.
        let cost = match self.points(x, Targets::Fitted) {
            Ok(specs) => cost_of(&self.residuals_of(&specs)?),
            Err(_) => INFEASIBLE_COST,
        };
        let n = self.evaluations.fetch_add(1, Ordering::Relaxed) + 1;
        let mut best = self.best.lock().expect("not poisoned");
        *best = best.min(cost);
        (self.progress)(n, *best);
        Ok(cost)
    }
}

/// The residuals as a markdown table; with tolerances, whether each
/// target is within its own and how many are.
pub fn residuals_markdown(f: &Fitted) -> String {
    let banded = f.residuals.iter().any(|r| r.tolerance.is_some());
    let mut out = String::from("| target | measured | wanted | error | weight |");
    out.push_str(if banded {
        " within tolerance |\n|---|---|---|---|---|---|\n"
    } else {
        "\n|---|---|---|---|---|\n"
    });
    for r in &f.residuals {
        out.push_str(&format!(
            "| {} | {:.4} | {} | {:+.1}% | {} |",
            r.label,
            r.measured,
            r.target,
            100.0 * r.relative_error(),
            r.weight
        ));
        if banded {
            out.push_str(&match r.tolerance {
                Some(tol) if r.excess() > 0.0 => format!(" no (±{:.0}%) |", 100.0 * tol),
                Some(tol) => format!(" yes (±{:.0}%) |", 100.0 * tol),
                None => " – |".to_string(),
            });
        }
        out.push('\n');
    }
    if banded {
        // Fitted targets and checks (weight 0) are counted apart: a check
        // says what the fit did not try to meet.
        let (fitted, checks): (Vec<&Residual>, Vec<&Residual>) = f
            .residuals
            .iter()
            .filter(|r| r.tolerance.is_some())
            .partition(|r| r.weight > 0.0);
        let within = |rs: &[&Residual]| rs.iter().filter(|r| r.excess() == 0.0).count();
        out.push_str(&format!(
            "\n{} of {} targets within their tolerance.\n",
            within(&fitted),
            fitted.len()
        ));
        if !checks.is_empty() {
            out.push_str(&format!(
                "Checks (weight 0, not fitted): {} of {} within.\n",
                within(&checks),
                checks.len()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::targets::tests::{file_of, param, target};
    use super::*;

    /// The fit's objective on `cal`, one thread, one iteration, its cache
    /// in `cache_dir` (made only if a point runs).
    fn objective<'a>(cal: &'a Calibration, opts: &'a FitOptions) -> Objective<'a> {
        Objective {
            cal,
            opts,
            runs: AtomicUsize::new(0),
            evaluations: AtomicUsize::new(0),
            best: Mutex::new(f64::INFINITY),
            progress: &|_, _| {},
        }
    }

    fn one_thread(cache_dir: std::path::PathBuf) -> FitOptions {
        FitOptions {
            cache_dir,
            threads: 1,
            max_iters: 1,
            remote: None,
        }
    }

    /// The K2 study's random reads at 50 % occupancy, their bandwidth.
    fn k2_randread(runtime_s: u64, weight: f64) -> Target {
        Target {
            runtime_s: Some(runtime_s),
            occupancy: 50.0,
            metric: Metric::BwMbs,
            value: TargetValue::One(100.0),
            weight,
            ..target("k2-study:randread")
        }
    }

    fn residual(measured: f64, tolerance: Option<f64>) -> Residual {
        Residual {
            label: "t".into(),
            measured,
            target: TargetValue::One(100.0),
            weight: 2.0,
            tolerance,
        }
    }

    #[test]
    fn an_error_beyond_the_tolerance_costs_steeply_and_inside_it_plainly() {
        let inside = residual(120.0, Some(0.25));
        assert_eq!(inside.excess(), 0.0);
        assert!((inside.cost() - 2.0 * 0.04).abs() < 1e-12);
        let outside = residual(130.0, Some(0.25));
        assert!((outside.excess() - 0.05).abs() < 1e-12);
        let steep = 2.0 * (0.09 + OUTSIDE_TOLERANCE_WEIGHT * 0.0025);
        assert!((outside.cost() - steep).abs() < 1e-9);
        // Below the value as above it; without a tolerance, plain.
        assert!((residual(70.0, Some(0.25)).excess() - 0.05).abs() < 1e-12);
        assert!((residual(130.0, None).cost() - 2.0 * 0.09).abs() < 1e-12);
    }

    #[test]
    fn a_point_whose_keys_make_no_valid_preset_is_infeasible_not_an_error() {
        // Each range is valid at both ends with the other key at its start,
        // but a soft GC threshold at its least with the hard one at its
        // most is not a preset (hard must not exceed soft).
        let from = |key: &str, min, max, start| Param {
            start: Some(start),
            ..param(key, min, max)
        };
        let file = file_of(
            vec![
                from("gc.soft_threshold", 0.02, 0.06, 0.06),
                from("gc.hard_threshold", 0.005, 0.05, 0.005),
            ],
            vec![k2_randread(1, 1.0)],
        );
        let cal = Calibration::new(file, std::path::Path::new("."), "t").unwrap();
        let dir =
            std::env::temp_dir().join(format!("ssdlab-cal-infeasible-{}", std::process::id()));
        let opts = one_thread(dir.clone());
        let problem = objective(&cal, &opts);
        assert_eq!((&problem).cost(&vec![0.0, 1.0]).unwrap(), INFEASIBLE_COST);
        assert_eq!(problem.runs.load(Ordering::Relaxed), 0, "nothing was run");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_search_runs_the_fitted_targets_and_the_result_the_checks_too() {
        let file = file_of(
            vec![param("timing.program_ns", 1e5, 1e6)],
            vec![
                k2_randread(1, 0.0),
                k2_randread(2, 1.0),
                k2_randread(3, 0.0),
            ],
        );
        let cal = Calibration::new(file, std::path::Path::new("."), "t").unwrap();
        let opts = one_thread(std::env::temp_dir().join("ssdlab-cal-checks-unused"));
        let problem = objective(&cal, &opts);
        let x = cal.start_point();
        let indices = |which| -> Vec<usize> {
            problem
                .points(&x, which)
                .unwrap()
                .into_iter()
                .map(|(i, _)| i)
                .collect()
        };
        // A check adds nothing to the cost: the search does not run it.
        assert_eq!(indices(Targets::Fitted), [1]);
        assert_eq!(indices(Targets::All), [0, 1, 2]);
    }

    #[test]
    fn the_table_says_which_targets_are_within_their_tolerance() {
        let residuals = vec![
            residual(120.0, Some(0.25)),
            residual(130.0, Some(0.25)),
            residual(300.0, None),
        ];
        let fitted = Fitted {
            values: vec![],
            cost: cost_of(&residuals),
            residuals,
            runs: 0,
            preset_toml: String::new(),
        };
        let table = residuals_markdown(&fitted);
        assert!(table.contains("| within tolerance |"), "{table}");
        assert!(table.contains("| +20.0% | 2 | yes (±25%) |"), "{table}");
        assert!(table.contains("| +30.0% | 2 | no (±25%) |"), "{table}");
        assert!(table.contains("| +200.0% | 2 | – |"), "{table}");
        assert!(
            table.contains("1 of 2 targets within their tolerance."),
            "{table}"
        );
        assert!(!table.contains("Checks"), "{table}");
        // A target of weight 0 is a check, counted apart.
        let mut with_check = fitted.residuals.clone();
        with_check.push(Residual {
            weight: 0.0,
            ..residual(200.0, Some(0.25))
        });
        let checked = Fitted {
            values: vec![],
            cost: cost_of(&with_check),
            residuals: with_check,
            runs: 0,
            preset_toml: String::new(),
        };
        let table = residuals_markdown(&checked);
        assert!(table.contains("1 of 2 targets within"), "{table}");
        assert!(
            table.contains("Checks (weight 0, not fitted): 0 of 1 within."),
            "{table}"
        );
        // Without tolerances the table is as before.
        let plain = Fitted {
            residuals: vec![residual(120.0, None)],
            ..fitted
        };
        let table = residuals_markdown(&plain);
        assert!(!table.contains("within"), "{table}");
    }
}
