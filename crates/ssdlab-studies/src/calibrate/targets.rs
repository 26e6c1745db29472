//! The targets file of `ssdlab calibrate`: the starting preset, the keys
//! to fit with their ranges, and the figures measured on the drive (a job
//! run with a scheduler at an occupancy, a metric, the value or range
//! measured, a weight). Read, checked field by field, with its job files
//! loaded (from disk, or built in: `k2-study:<op>`, the K2 study's jobs).

use super::metric::JobNameRule;
pub use super::metric::{Metric, TargetValue};
use crate::point::PointSpec;
use crate::setup::{default_precondition, default_scheduler, default_seed, PointParams};
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use ssdlab_sim::preset::Preset;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The prefix of a built-in job: `k2-study:read` is the K2 study's
/// sequential-read job file (examples/k2/read.fio).
const K2_JOB: &str = "k2-study:";

/// The prefix of a data-sheet run's job file (`datasheet:sustained`),
/// as `validate datasheet` runs it.
const DATASHEET_JOB: &str = "datasheet:";

/// A target's `host` that names the preset's own `[host]`.
pub const PRESET_HOST: &str = "preset";

/// A targets file as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetsFile {
    /// The starting preset (a name or a TOML file).
    pub device: String,
    /// A host file, `k2-study`, or `preset` (the preset's own, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// The relative error every target should stay within (0.25: ±25 %),
    /// unless the target sets its own; none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    #[serde(rename = "param")]
    pub params: Vec<Param>,
    #[serde(rename = "target")]
    pub targets: Vec<Target>,
}

/// A preset key to fit and its range.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    /// A dotted preset key, e.g. `timing.program_ns`.
    pub key: String,
    pub min: f64,
    pub max: f64,
    /// Where the search starts (default: the preset's own value), so that
    /// a guess needs no edited copy of the preset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<f64>,
}

/// One measured figure to reproduce.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// A fio job file, relative to the targets file, or a built-in one
    /// (`k2-study:read`, `:randread`, `:write`, `:randwrite`;
    /// `datasheet:seqread`, `:seqwrite`, `:sustained`, `:randread`,
    /// `:randwrite`, `:qd1read`, `:qd1write`, `:sustained-random`).
    pub job: PathBuf,
    /// This run's host: a host file, `k2-study`, or `preset` (the preset's
    /// own `[host]`); default: the file's `host`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Run every job of the file this long, in seconds (replaces the
    /// file's `runtime`); default: the file's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_s: Option<u64>,
    #[serde(default = "default_scheduler")]
    pub scheduler: String,
    /// Percent of the logical space holding data.
    #[serde(default)]
    pub occupancy: f64,
    #[serde(default = "default_precondition")]
    pub precondition: String,
    pub metric: Metric,
    /// The job whose latency a latency metric reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_name: Option<String>,
    /// What the drive measured: a value, or a range `[low, high]` that
    /// counts as met anywhere inside.
    pub value: TargetValue,
    /// How much the target counts in the fit; 0 makes it a check, run and
    /// reported in the residuals but not fitted.
    #[serde(default = "unit")]
    pub weight: f64,
    /// The relative error this target should stay within (default: the
    /// file's `tolerance`). Outside it the excess costs
    /// [`super::OUTSIDE_TOLERANCE_WEIGHT`] times a plain error's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
}

fn unit() -> f64 {
    1.0
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
        let text = ssdlab_fio::read_input_string(path)
            .map_err(|e| InputError::invalid(&name, e.to_string()))?;
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
        // `preset` is a keyword, never a file.
        let host_file = |h: &Option<String>| {
            h.as_deref()
                .filter(|&h| h != PRESET_HOST)
                .and_then(local)
                .or_else(|| h.clone())
        };
        file.host = host_file(&file.host);
        for t in &mut file.targets {
            t.host = host_file(&t.host);
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
        if file.targets.iter().all(|t| t.weight == 0.0) {
            return Err(bad(
                "target".into(),
                "every weight is 0: at least one target must be fitted".into(),
            ));
        }
        let table = preset_table(&file.device).map_err(|e| bad("device".into(), e.to_string()))?;
        let mut start = Vec::new();
        for (i, p) in file.params.iter().enumerate() {
            let field = format!("param[{i}] ({})", p.key);
            // max − min must be finite too: the search scales the range.
            if !(p.min < p.max && (p.max - p.min).is_finite()) {
                return Err(bad(
                    field,
                    format!("min {} must be below max {}, both finite", p.min, p.max),
                ));
            }
            if file.params[..i].iter().any(|q| q.key == p.key) {
                return Err(bad(field, "the key is already a param".into()));
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
        if let Some(tol) = file.tolerance {
            check_tolerance(tol).map_err(|m| bad("tolerance".into(), m))?;
        }
        let mut jobs = Vec::new();
        for (i, t) in file.targets.iter().enumerate() {
            let field = format!("target[{i}]");
            if !t.value.is_valid() {
                return Err(bad(
                    format!("{field}.value"),
                    "must be positive (a range: [low, high] with low ≤ high)".into(),
                ));
            }
            if t.runtime_s == Some(0) {
                return Err(bad(
                    format!("{field}.runtime_s"),
                    "must be at least 1".into(),
                ));
            }
            if !(t.weight.is_finite() && t.weight >= 0.0) {
                return Err(bad(
                    format!("{field}.weight"),
                    "must be at least 0 (0: a check, reported but not fitted)".into(),
                ));
            }
            if let Some(tol) = t.tolerance {
                check_tolerance(tol).map_err(|m| bad(format!("{field}.tolerance"), m))?;
            }
            let rule = t.metric.job_name_rule();
            if (rule == JobNameRule::Needed && t.job_name.is_none())
                || (rule == JobNameRule::None && t.job_name.is_some())
            {
                return Err(bad(
                    format!("{field}.job_name"),
                    "p999_us and mean_us need job_name; bw_mbs and iops may take one; \
                     waf, drop_s, after_cache_mbs, after_cache_iops and cache_gb take none"
                        .into(),
                ));
            }
            let (job_name, text) = job_file(base, &t.job, &format!("{name}: {field}.job"))?;
            let text = match t.runtime_s {
                Some(s) => with_runtime(&text, s),
                None => text,
            };
            jobs.push((job_name, text));
        }
        let cal = Calibration { file, jobs, start };
        let x0 = cal.start_point();
        // Every target's point must resolve at the start (scheduler,
        // occupancy, job file and its job names).
        for i in 0..cal.file.targets.len() {
            let at_target = |e: InputError| bad(format!("target[{i}]"), e.to_string());
            let spec = cal.point(i, &x0).map_err(at_target)?;
            if let Some(job) = &cal.file.targets[i].job_name {
                let jf = ssdlab_fio::parse_str(&spec.job_text, &spec.job_name, &|_| None)
                    .map_err(|e| at_target(ssdlab_sim::error::from_fio(e)))?;
                if !jf.jobs.iter().any(|j| &j.name == job) {
                    return Err(bad(
                        format!("target[{i}].job_name"),
                        format!("no job '{job}' in {}", spec.job_name),
                    ));
                }
            }
        }
        // Each key's range must give a valid preset at both ends (the
        // others at their start), so that the search cannot wander into
        // presets that do not exist.
        for (i, p) in cal.file.params.iter().enumerate() {
            for (end, u) in [("min", 0.0), ("max", 1.0)] {
                let mut x = x0.clone();
                x[i] = u;
                if let Err(e) = cal.point(0, &x) {
                    return Err(bad(format!("param[{i}] ({}).{end}", p.key), e.to_string()));
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
    pub(super) fn point(&self, i: usize, x: &[f64]) -> Result<PointSpec, InputError> {
        let t = &self.file.targets[i];
        let (job_name, job) = &self.jobs[i];
        PointParams {
            job: job.clone(),
            job_name: job_name.clone(),
            device: self.file.device.clone(),
            device_overrides: self.values(x).into_iter().collect::<BTreeMap<_, _>>(),
            gc: None,
            host: match t.host.as_deref().or(self.file.host.as_deref()) {
                Some(PRESET_HOST) | None => None,
                Some(h) => Some(h.to_string()),
            },
            host_overrides: BTreeMap::new(),
            scheduler: t.scheduler.clone(),
            occupancy: t.occupancy,
            precondition: t.precondition.clone(),
            seed: self.file.seed,
        }
        .resolve()
    }
}

/// A tolerance is a relative error: positive and finite.
fn check_tolerance(tol: f64) -> Result<(), String> {
    if tol.is_finite() && tol > 0.0 {
        Ok(())
    } else {
        Err(format!(
            "{tol} is not a relative error above 0 (0.25 is ±25 %)"
        ))
    }
}

/// The starting preset as a TOML table.
pub(crate) fn preset_table(device: &str) -> Result<toml::Table, InputError> {
    let text = Preset::load(device)?
        .to_toml()
        .map_err(|m| InputError::invalid(device, m))?;
    text.parse()
        .map_err(|e: toml::de::Error| InputError::invalid(device, e.to_string()))
}

/// A numeric value at a dotted key, and whether it is an integer.
pub(crate) fn get_dotted(table: &toml::Table, key: &str) -> Option<(f64, bool)> {
    let mut parts = key.split('.').peekable();
    let mut t = table;
    while let Some(part) = parts.next() {
        // A time the preset leaves at zero is left out of its serialized
        // form (`controller.pcie_read_ns`): it reads as 0. A misspelt one
        // fails the range check, where the preset is built.
        let last = parts.peek().is_none();
        let Some(v) = t.get(part) else {
            return (last && part.ends_with("_ns")).then_some((0.0, true));
        };
        if last {
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

/// A target's job file: a built-in one (`k2-study:<op>`,
/// `datasheet:<run>`), or a file relative to the targets file. The name
/// labels errors and reports.
fn job_file(base: &Path, job: &Path, field: &str) -> Result<(String, String), InputError> {
    let given = job.display().to_string();
    if let Some(run) = given.strip_prefix(DATASHEET_JOB) {
        return crate::datasheet::job_text(run)
            .map(|text| (given.clone(), text))
            .ok_or_else(|| {
                let runs = crate::datasheet::runs().collect::<Vec<_>>().join(", ");
                InputError::invalid(
                    field,
                    format!("no built-in job '{given}' (datasheet: {runs})"),
                )
            });
    }
    if let Some(op) = given.strip_prefix(K2_JOB) {
        return match op {
            "read" | "randread" | "write" | "randwrite" => {
                Ok((given.clone(), crate::k2::grid::job_text(op).to_string()))
            }
            _ => Err(InputError::invalid(
                field,
                format!("no built-in job '{given}' (k2-study:read, :randread, :write, :randwrite)"),
            )),
        };
    }
    let path = base.join(job);
    let name = path.display().to_string();
    let text = ssdlab_fio::read_input_string(&path)
        .map_err(|e| InputError::invalid(field, format!("{name}: {e}")))?;
    Ok((name, text))
}

/// The job file with every job running `seconds`: each `runtime` line
/// goes (and `timeout`, fio's other name for it), and every job section
/// (not `[global]`) gets its own, which fio lets win over the global one.
/// Lines are read as fio reads them: from a `;` or `#` on is a comment.
fn with_runtime(text: &str, seconds: u64) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        let code = line.find([';', '#']).map_or(line, |i| &line[..i]).trim();
        let key = code.split('=').next().unwrap_or("").trim();
        if key == "runtime" || key == "timeout" {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if code.starts_with('[') && code.ends_with(']') && code != "[global]" {
            out.push_str(&format!("runtime={seconds}s\n"));
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A target of `job`'s IOPS with every other field plain (fill, no
    /// scheduler, weight 1); tests change what they need.
    pub(in crate::calibrate) fn target(job: &str) -> Target {
        Target {
            job: PathBuf::from(job),
            host: None,
            runtime_s: None,
            scheduler: "none".into(),
            occupancy: 0.0,
            precondition: "fill".into(),
            metric: Metric::Iops,
            job_name: None,
            value: TargetValue::One(1.0),
            weight: 1.0,
            tolerance: None,
        }
    }

    /// A targets file on seed004 (its own host, seed 1) fitting `params`.
    pub(in crate::calibrate) fn file_of(params: Vec<Param>, targets: Vec<Target>) -> TargetsFile {
        TargetsFile {
            device: "seed004".into(),
            host: None,
            seed: 1,
            tolerance: None,
            params,
            targets,
        }
    }

    /// The search range of `key`, starting where the preset has it.
    pub(in crate::calibrate) fn param(key: &str, min: f64, max: f64) -> Param {
        Param {
            key: key.into(),
            min,
            max,
            start: None,
        }
    }

    #[test]
    fn a_runtime_replaces_the_files_in_every_job() {
        let text = "[global]\nruntime=100s\ntime_based\n[a]\nrw=read\n[b]\nruntime=5s\n";
        let out = with_runtime(text, 150);
        assert_eq!(
            out,
            "[global]\ntime_based\n[a]\nruntime=150s\nrw=read\n[b]\nruntime=150s\n"
        );
    }

    #[test]
    fn a_runtime_sees_sections_and_keys_as_fio_reads_them() {
        // A comment after a section header, and `timeout`, fio's other name
        // for `runtime`: both as fio's own parser takes them.
        let text = "[global]\ntimeout=100s\n[rt] ; the RT task\ntimeout = 5s # short\nrw=read\n";
        let out = with_runtime(text, 150);
        assert_eq!(out, "[global]\n[rt] ; the RT task\nruntime=150s\nrw=read\n");
    }

    #[test]
    fn the_built_in_jobs_are_the_k2_studys_and_others_are_refused() {
        let (name, text) = job_file(Path::new("."), Path::new("k2-study:randwrite"), "f").unwrap();
        assert_eq!(name, "k2-study:randwrite");
        assert!(text.contains("rw=randwrite"));
        let e = job_file(Path::new("."), Path::new("k2-study:trim"), "f").unwrap_err();
        assert!(e.to_string().contains("k2-study:trim"), "{e}");
    }

    #[test]
    fn preset_names_the_presets_own_host_in_the_file_or_a_target() {
        let file = |host: Option<&str>, target_host: Option<&str>| TargetsFile {
            host: host.map(str::to_string),
            ..file_of(
                vec![param("timing.program_ns", 1e5, 1e6)],
                vec![Target {
                    host: target_host.map(str::to_string),
                    ..target("datasheet:randread")
                }],
            )
        };
        // A target of weight 0 is a check; a file of nothing but checks
        // fits nothing and is refused, as is a negative weight.
        let weighted = |weights: &[f64]| {
            let mut f = file(None, None);
            let t = f.targets[0].clone();
            f.targets = weights
                .iter()
                .map(|&weight| Target {
                    weight,
                    ..t.clone()
                })
                .collect();
            Calibration::new(f, Path::new("."), "t").map(drop)
        };
        assert!(weighted(&[1.0, 0.0]).is_ok());
        let e = weighted(&[0.0, 0.0]).unwrap_err().to_string();
        assert!(e.contains("every weight is 0"), "{e}");
        let e = weighted(&[1.0, -1.0]).unwrap_err().to_string();
        assert!(e.contains("target[1]") && e.contains("weight"), "{e}");
        let config = |f: TargetsFile| {
            let cal = Calibration::new(f, Path::new("."), "t").unwrap();
            cal.point(0, &cal.start_point())
                .unwrap()
                .config()
                .to_string()
        };
        let own = config(file(None, None));
        assert_eq!(config(file(Some("preset"), None)), own);
        assert_eq!(config(file(Some("k2-study"), Some("preset"))), own);
        assert_ne!(config(file(Some("k2-study"), None)), own);
    }
}
