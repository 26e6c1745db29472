//! `ssdlab calibrate`: fits preset keys to measured figures. A targets file
//! names the starting preset, the keys to fit with their ranges, and the
//! targets (a job file run with a scheduler at an occupancy, a metric, the
//! value measured on the real drive and a weight). A Nelder–Mead search
//! (the `argmin` crate) over the keys, scaled to the unit cube, minimises
//! the weighted sum of squared relative errors. Every run is a study point
//! in the cache (`point.rs`), so a killed fit resumes where it stopped.

use crate::cache::Cache;
use crate::point::{PointFigures, PointSpec};
use crate::setup::PointParams;
use argmin::core::{CostFunction, Error};
use rayon::prelude::*;
use serde::Deserialize;
use ssdlab_sim::error::InputError;
use ssdlab_sim::preset::Preset;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// A targets file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetsFile {
    /// The starting preset (a name or a TOML file).
    pub device: String,
    /// A host file, or `k2-study`; default: the preset's own.
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(rename = "param")]
    pub params: Vec<Param>,
    #[serde(rename = "target")]
    pub targets: Vec<Target>,
}

fn one() -> u64 {
    1
}

/// A preset key to fit and its range.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// A dotted preset key, e.g. `timing.program_ns`.
    pub key: String,
    pub min: f64,
    pub max: f64,
    /// Where the search starts (default: the preset's own value), so that
    /// a guess needs no edited copy of the preset.
    #[serde(default)]
    pub start: Option<f64>,
}

/// One measured figure to reproduce.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// A fio job file, relative to the targets file.
    pub job: PathBuf,
    #[serde(default = "none")]
    pub scheduler: String,
    /// Percent of the logical space holding data.
    #[serde(default)]
    pub occupancy: f64,
    #[serde(default = "auto")]
    pub precondition: String,
    pub metric: Metric,
    /// The job whose latency a latency metric reads.
    #[serde(default)]
    pub job_name: Option<String>,
    pub value: f64,
    #[serde(default = "unit")]
    pub weight: f64,
}

fn none() -> String {
    "none".into()
}
fn auto() -> String {
    "auto".into()
}
fn unit() -> f64 {
    1.0
}

/// What a target measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// All jobs' bandwidth, MB/s.
    BwMbs,
    /// All jobs' IOPS.
    Iops,
    /// Write amplification.
    Waf,
    /// A job's completion-latency p99.9, µs.
    P999Us,
    /// A job's mean completion latency, µs.
    MeanUs,
}

impl Metric {
    /// The name a targets file uses.
    pub fn name(self) -> &'static str {
        match self {
            Metric::BwMbs => "bw_mbs",
            Metric::Iops => "iops",
            Metric::Waf => "waf",
            Metric::P999Us => "p999_us",
            Metric::MeanUs => "mean_us",
        }
    }

    fn per_job(self) -> bool {
        matches!(self, Metric::P999Us | Metric::MeanUs)
    }

    fn read(self, f: &PointFigures, job: Option<&str>) -> Option<f64> {
        let j = || f.job(job?);
        Some(match self {
            Metric::BwMbs => f.bw_mbs,
            Metric::Iops => f.iops,
            Metric::Waf => f.waf,
            Metric::P999Us => j()?.clat_p999_us,
            Metric::MeanUs => j()?.clat_mean_us,
        })
    }
}

/// A targets file read and checked, with its job files loaded.
pub struct Calibration {
    pub file: TargetsFile,
    /// Each target's job file text, in order.
    jobs: Vec<(String, String)>,
    /// Each key's starting value (its `start`, else the preset's), and
    /// whether it is an integer key.
    start: Vec<(f64, bool)>,
}

impl Calibration {
    /// Reads `path`; every problem names the file and the field.
    pub fn load(path: &Path) -> Result<Calibration, InputError> {
        let name = path.display().to_string();
        let text =
            std::fs::read_to_string(path).map_err(|e| InputError::invalid(&name, e.to_string()))?;
        let mut file: TargetsFile =
            toml::from_str(&text).map_err(|e| InputError::invalid(&name, e.to_string()))?;
        let base = path.parent().unwrap_or(Path::new("."));
        // A preset or host file is named relative to the targets file.
        let local = |f: &str| {
            let p = base.join(f);
            p.is_file().then(|| p.display().to_string())
        };
        if let Some(p) = local(&file.device) {
            file.device = p;
        }
        if let Some(p) = file.host.as_deref().and_then(local) {
            file.host = Some(p);
        }
        Calibration::new(file, base, &name)
    }

    /// Checks a targets file whose job paths are relative to `base`.
    pub fn new(file: TargetsFile, base: &Path, name: &str) -> Result<Calibration, InputError> {
        let bad = |field: String, m: String| InputError::invalid(format!("{name}: {field}"), m);
        if file.params.is_empty() || file.targets.is_empty() {
            return Err(bad(
                "param/target".into(),
                "needs at least one of each".into(),
            ));
        }
        let table = preset_table(&file.device)?;
        let mut start = Vec::new();
        for (i, p) in file.params.iter().enumerate() {
            let field = format!("param[{i}] ({})", p.key);
            if !(p.min.is_finite() && p.max.is_finite() && p.min < p.max) {
                return Err(bad(
                    field,
                    format!("min {} must be below max {}", p.min, p.max),
                ));
            }
            let (own, integer) = get_dotted(&table, &p.key)
                .ok_or_else(|| bad(field.clone(), "not a numeric key of the preset".into()))?;
            if let Some(v) = p.start.filter(|v| !(p.min..=p.max).contains(v)) {
                return Err(bad(
                    format!("{field}.start"),
                    format!("{v} is outside [{}, {}]", p.min, p.max),
                ));
            }
            start.push((p.start.unwrap_or(own), integer));
        }
        let mut jobs = Vec::new();
        for (i, t) in file.targets.iter().enumerate() {
            let field = format!("target[{i}]");
            if !(t.value.is_finite() && t.value > 0.0) {
                return Err(bad(format!("{field}.value"), "must be positive".into()));
            }
            if !(t.weight.is_finite() && t.weight > 0.0) {
                return Err(bad(format!("{field}.weight"), "must be positive".into()));
            }
            if t.metric.per_job() != t.job_name.is_some() {
                return Err(bad(
                    format!("{field}.job_name"),
                    "a latency metric needs job_name; bw_mbs, iops and waf take none".into(),
                ));
            }
            let path = base.join(&t.job);
            let job_name = path.display().to_string();
            let text = std::fs::read_to_string(&path)
                .map_err(|e| InputError::invalid(&job_name, e.to_string()))?;
            jobs.push((job_name, text));
        }
        let cal = Calibration { file, jobs, start };
        // Every target's point must resolve at the start (scheduler,
        // occupancy, job file and its job names).
        let x0 = cal.start_point();
        for i in 0..cal.file.targets.len() {
            let spec = cal.point(i, &x0)?;
            if let Some(job) = &cal.file.targets[i].job_name {
                let jf = ssdlab_fio::parse_str(&spec.job_text, &spec.job_name, &|_| None)?;
                if !jf.jobs.iter().any(|j| &j.name == job) {
                    return Err(bad(
                        format!("target[{i}].job_name"),
                        format!("no job '{job}' in {}", spec.job_name),
                    ));
                }
            }
        }
        Ok(cal)
    }

    /// The starting values in the unit cube (clamped into the ranges).
    pub fn start_point(&self) -> Vec<f64> {
        self.file
            .params
            .iter()
            .zip(&self.start)
            .map(|(p, &(v, _))| ((v - p.min) / (p.max - p.min)).clamp(0.0, 1.0))
            .collect()
    }

    /// The key values of a point of the unit cube (integer keys rounded).
    pub fn values(&self, x: &[f64]) -> Vec<(String, toml::Value)> {
        self.file
            .params
            .iter()
            .zip(&self.start)
            .zip(x)
            .map(|((p, &(_, integer)), &u)| {
                let v = p.min + u.clamp(0.0, 1.0) * (p.max - p.min);
                let value = if integer {
                    toml::Value::Integer(v.round() as i64)
                } else {
                    toml::Value::Float((v * 1e6).round() / 1e6)
                };
                (p.key.clone(), value)
            })
            .collect()
    }

    /// Target `i`'s point with the keys at `x`.
    fn point(&self, i: usize, x: &[f64]) -> Result<PointSpec, InputError> {
        let t = &self.file.targets[i];
        let (job_name, job) = &self.jobs[i];
        PointParams {
            job: job.clone(),
            job_name: job_name.clone(),
            device: self.file.device.clone(),
            device_overrides: self.values(x).into_iter().collect::<BTreeMap<_, _>>(),
            gc: None,
            host: self.file.host.clone(),
            host_overrides: BTreeMap::new(),
            scheduler: t.scheduler.clone(),
            occupancy: t.occupancy,
            precondition: t.precondition.clone(),
            seed: self.file.seed,
        }
        .resolve()
    }
}

/// The starting preset as a TOML table.
fn preset_table(device: &str) -> Result<toml::Table, InputError> {
    let text = Preset::load(device)?
        .to_toml()
        .map_err(|m| InputError::invalid(device, m))?;
    text.parse()
        .map_err(|e: toml::de::Error| InputError::invalid(device, e.to_string()))
}

/// A numeric value at a dotted key, and whether it is an integer.
fn get_dotted(table: &toml::Table, key: &str) -> Option<(f64, bool)> {
    let mut parts = key.split('.').peekable();
    let mut t = table;
    while let Some(part) = parts.next() {
        let v = t.get(part)?;
        if parts.peek().is_none() {
            return match v {
                toml::Value::Integer(i) => Some((*i as f64, true)),
                toml::Value::Float(f) => Some((*f, false)),
                _ => None,
            };
        }
        t = v.as_table()?;
    }
    None
}

/// One target's outcome at the fitted keys.
#[derive(Debug, Clone)]
pub struct Residual {
    pub label: String,
    pub measured: f64,
    pub target: f64,
    pub weight: f64,
}

impl Residual {
    pub fn relative_error(&self) -> f64 {
        (self.measured - self.target) / self.target
    }
}

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
}

/// Runs the search. `progress` hears each evaluation: how many so far and
/// the best cost yet.
pub fn fit(
    cal: &Calibration,
    opts: &FitOptions,
    progress: &(dyn Fn(usize, f64) + Sync),
) -> Result<Fitted, InputError> {
    let cache_err = |e: std::io::Error| {
        InputError::invalid(opts.cache_dir.display().to_string(), e.to_string())
    };
    let cache = Cache::open(&opts.cache_dir).map_err(cache_err)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.max(1))
        .build()
        .map_err(|e| InputError::invalid("--jobs", e.to_string()))?;
    let problem = Objective {
        cal,
        cache: &cache,
        pool: &pool,
        runs: AtomicUsize::new(0),
        evaluations: AtomicUsize::new(0),
        best: Mutex::new(f64::INFINITY),
        progress,
    };
    let best = crate::unit_search::minimise(&problem, cal.start_point(), opts.max_iters, 1e-6)
        .map_err(|m| InputError::invalid("calibrate", m))?;
    let residuals = problem.residuals(&best)?;
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
    residuals
        .iter()
        .map(|r| r.weight * r.relative_error().powi(2))
        .sum()
}

struct Objective<'a> {
    cal: &'a Calibration,
    cache: &'a Cache,
    pool: &'a rayon::ThreadPool,
    runs: AtomicUsize,
    evaluations: AtomicUsize,
    best: Mutex<f64>,
    progress: &'a (dyn Fn(usize, f64) + Sync),
}

impl Objective<'_> {
    /// Every target at `x`, its points run in parallel or read from the
    /// cache.
    fn residuals(&self, x: &[f64]) -> Result<Vec<Residual>, InputError> {
        let n = self.cal.file.targets.len();
        self.pool.install(|| {
            (0..n)
                .into_par_iter()
                .with_max_len(1)
                .map(|i| self.residual(i, x))
                .collect()
        })
    }

    fn residual(&self, i: usize, x: &[f64]) -> Result<Residual, InputError> {
        let t = &self.cal.file.targets[i];
        let spec = self.cal.point(i, x)?;
        let (figures, fresh): (PointFigures, bool) =
            self.cache.get_or_compute(&spec.config(), || spec.run())?;
        if fresh {
            self.runs.fetch_add(1, Ordering::Relaxed);
        }
        let measured = t
            .metric
            .read(&figures, t.job_name.as_deref())
            .ok_or_else(|| InputError::invalid(&spec.job_name, "the job ran no I/O"))?;
        Ok(Residual {
            label: format!(
                "{} {} {}% {}{}",
                t.job.display(),
                t.scheduler,
                t.occupancy,
                t.metric.name(),
                t.job_name
                    .as_deref()
                    .map_or(String::new(), |j| format!(" ({j})"))
            ),
            measured,
            target: t.value,
            weight: t.weight,
        })
    }
}

impl CostFunction for &Objective<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        let cost = cost_of(&self.residuals(x)?);
        let n = self.evaluations.fetch_add(1, Ordering::Relaxed) + 1;
        let mut best = self.best.lock().expect("not poisoned");
        *best = best.min(cost);
        (self.progress)(n, *best);
        Ok(cost)
    }
}

/// The residuals as a markdown table.
pub fn residuals_markdown(f: &Fitted) -> String {
    let mut out =
        String::from("| target | measured | wanted | error | weight |\n|---|---|---|---|---|\n");
    for r in &f.residuals {
        out.push_str(&format!(
            "| {} | {:.4} | {:.4} | {:+.1}% | {} |\n",
            r.label,
            r.measured,
            r.target,
            100.0 * r.relative_error(),
            r.weight
        ));
    }
    out
}
