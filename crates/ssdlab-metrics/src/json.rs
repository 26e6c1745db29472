//! fio 3.x `--output-format=json` layout.
//!
//! The tree is built in fio's key order, then either converted to a
//! `serde_json::Value` ([`Report::to_fio_json`]) or printed the way fio
//! prints it ([`Report::to_fio_json_string`]: two-space indent,
//! `"key" : value`, floats as `%f`). Floats are rounded to six decimals
//! in both forms, i.e. to the value a reader of fio's output gets.

use serde_json::{Map, Number, Value};

use crate::hist::FioHistogram;
use crate::stats::{DirStats, GroupRunStats, IoStat, JobReport, Report};
use ssdlab_protocol::Dir;

/// Options fio-plot needs in job or global options, with fio's defaults.
const REQUIRED_OPTIONS: [(&str, &[&str], &str); 4] = [
    ("rw", &["rw", "readwrite"], "read"),
    ("iodepth", &["iodepth"], "1"),
    ("numjobs", &["numjobs"], "1"),
    ("bs", &["bs", "blocksize"], "4k"),
];

/// An ordered JSON tree.
#[derive(Clone, Debug)]
pub(crate) enum J {
    U(u64),
    I(i64),
    F(f64),
    S(String),
    O(Vec<(String, J)>),
    A(Vec<J>),
    V(Value),
}

fn obj(pairs: Vec<(&str, J)>) -> J {
    J::O(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

fn round6(x: f64) -> f64 {
    if !x.is_finite() {
        return 0.0;
    }
    format!("{x:.6}").parse().unwrap_or(0.0)
}

impl J {
    pub(crate) fn to_value(&self) -> Value {
        match self {
            J::U(u) => Value::from(*u),
            J::I(i) => Value::from(*i),
            J::F(f) => Number::from_f64(round6(*f))
                .map(Value::Number)
                .unwrap_or(Value::from(0)),
            J::S(s) => Value::String(s.clone()),
            J::O(pairs) => {
                let mut m = Map::new();
                for (k, v) in pairs {
                    m.insert(k.clone(), v.to_value());
                }
                Value::Object(m)
            }
            J::A(items) => Value::Array(items.iter().map(J::to_value).collect()),
            J::V(v) => v.clone(),
        }
    }

    pub(crate) fn print(&self, level: usize, out: &mut String) {
        match self {
            J::U(u) => out.push_str(&u.to_string()),
            J::I(i) => out.push_str(&i.to_string()),
            J::F(f) => out.push_str(&format!("{:.6}", round6(*f))),
            J::S(s) => out.push_str(&quote(s)),
            J::O(pairs) => print_object(pairs.iter().map(|(k, v)| (k.as_str(), v)), level, out),
            J::A(items) => {
                out.push_str("[\n");
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(",\n");
                    }
                    indent(level + 1, out);
                    v.print(level + 1, out);
                }
                out.push('\n');
                indent(level, out);
                out.push(']');
            }
            J::V(v) => print_value(v, level, out),
        }
    }
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

fn indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

fn print_object<'a>(pairs: impl Iterator<Item = (&'a str, &'a J)>, level: usize, out: &mut String) {
    out.push_str("{\n");
    for (i, (k, v)) in pairs.enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        indent(level + 1, out);
        out.push_str(&quote(k));
        out.push_str(" : ");
        v.print(level + 1, out);
    }
    out.push('\n');
    indent(level, out);
    out.push('}');
}

fn print_value(v: &Value, level: usize, out: &mut String) {
    match v {
        Value::Object(m) => {
            let items: Vec<(String, J)> = m
                .iter()
                .map(|(k, v)| (k.clone(), J::V(v.clone())))
                .collect();
            print_object(items.iter().map(|(k, v)| (k.as_str(), v)), level, out);
        }
        Value::Array(a) => J::A(a.iter().cloned().map(J::V).collect()).print(level, out),
        other => out.push_str(&other.to_string()),
    }
}

fn opts(list: &[(String, String)]) -> J {
    J::O(
        list.iter()
            .map(|(k, v)| (k.clone(), J::S(v.clone())))
            .collect(),
    )
}

/// fio's `add_ddir_lat_json`.
fn lat_json(stat: &IoStat, hist: &FioHistogram, percentiles: Option<&[f64]>) -> J {
    let (min, max, mean, dev) = stat.calc().unwrap_or((0, 0, 0.0, 0.0));
    let mut pairs = vec![
        ("min", J::U(min)),
        ("max", J::U(max)),
        ("mean", J::F(mean)),
        ("stddev", J::F(dev)),
        ("N", J::U(stat.samples)),
    ];
    if let Some(list) = percentiles {
        if stat.samples > 0 {
            let pct = hist
                .percentiles(list)
                .into_iter()
                .map(|(p, v)| (format!("{p:.6}"), J::U(v)))
                .collect();
            pairs.push(("percentile", J::O(pct)));
        }
    }
    obj(pairs)
}

fn dir_json(job: &JobReport, d: Dir, rs: &GroupRunStats, plist: &[f64]) -> J {
    let ds: &DirStats = job.dir(d);
    let clat_p = (!job.lat_percentiles).then_some(plist);
    let lat_p = job.lat_percentiles.then_some(plist);
    let mut pairs = vec![
        ("io_bytes", J::U(ds.io_bytes)),
        ("io_kbytes", J::U(ds.io_bytes >> 10)),
        ("bw_bytes", J::U(ds.bw_bytes())),
        ("bw", J::U(ds.bw_kib())),
        ("iops", J::F(ds.iops())),
        ("runtime", J::U(ds.runtime_ms())),
        ("total_ios", J::U(ds.total_ios)),
        ("short_ios", J::U(ds.short_ios)),
        ("drop_ios", J::U(ds.drop_ios)),
        ("slat_ns", lat_json(&ds.slat.stat, &ds.slat, None)),
        ("clat_ns", lat_json(&ds.clat.stat, &ds.clat, clat_p)),
        ("lat_ns", lat_json(&ds.lat.stat, &ds.lat, lat_p)),
    ];
    let prios = job.prios_with_samples(d);
    if prios.len() >= 2 {
        let name = if job.lat_percentiles {
            "lat_ns"
        } else {
            "clat_ns"
        };
        let arr = prios
            .iter()
            .map(|p| {
                obj(vec![
                    ("prioclass", J::U(p.ioprio.class as u64)),
                    ("prio", J::U(p.ioprio.level as u64)),
                    ("priohint", J::U(p.ioprio.hint as u64)),
                    (name, lat_json(&p.hist.stat, &p.hist, Some(plist))),
                ])
            })
            .collect();
        pairs.push(("prios", J::A(arr)));
    }
    let bw = ds.bw_stat();
    let (bmin, bmax, bmean, bdev, bagg) = match bw.calc() {
        Some((mn, mx, mean, dev)) => (mn, mx, mean, dev, rs.bw_percent(d, mean)),
        None => (0, 0, 0.0, 0.0, 0.0),
    };
    pairs.extend([
        ("bw_min", J::U(bmin)),
        ("bw_max", J::U(bmax)),
        ("bw_agg", J::F(bagg)),
        ("bw_mean", J::F(bmean)),
        ("bw_dev", J::F(bdev)),
        ("bw_samples", J::U(bw.samples)),
    ]);
    let io = ds.iops_stat();
    let (imin, imax, imean, idev) = io.calc().unwrap_or((0, 0, 0.0, 0.0));
    pairs.extend([
        ("iops_min", J::U(imin)),
        ("iops_max", J::U(imax)),
        ("iops_mean", J::F(imean)),
        ("iops_stddev", J::F(idev)),
        ("iops_samples", J::U(io.samples)),
    ]);
    obj(pairs)
}

/// fio's `stat_calc_dist`: percent per bucket, at least 0.1 when non-zero.
pub(crate) fn calc_dist(map: &[u64], total: u64) -> Vec<f64> {
    map.iter()
        .map(|&m| {
            if total == 0 {
                return 0.0;
            }
            let p = m as f64 / total as f64 * 100.0;
            if p < 0.1 && m > 0 {
                0.1
            } else {
                p
            }
        })
        .collect()
}

/// fio's `stat_calc_lat`: percent per bucket, at least 0.01 when non-zero.
pub(crate) fn calc_lat(src: &[u64], total: u64) -> Vec<f64> {
    src.iter()
        .map(|&c| {
            if total == 0 {
                return 0.0;
            }
            let p = c as f64 / total as f64 * 100.0;
            if p < 0.01 && c > 0 {
                0.01
            } else {
                p
            }
        })
        .collect()
}

/// The job's coarse latency distribution over all directions (clat).
pub(crate) fn job_lat_dist(job: &JobReport) -> crate::hist::LatDist {
    let mut d = crate::hist::LatDist::default();
    for dir in Dir::ALL {
        d.merge(&job.dir(dir).clat.lat_dist);
    }
    d
}

const LAT_KEYS: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

fn pct_obj(keys: &[&str], vals: &[f64]) -> J {
    J::O(
        keys.iter()
            .zip(vals)
            .map(|(k, v)| (k.to_string(), J::F(*v)))
            .collect(),
    )
}

fn has_option(list: &[(String, String)], names: &[&str]) -> bool {
    list.iter().any(|(k, _)| names.contains(&k.as_str()))
}

fn job_json(job: &JobReport, rs: &GroupRunStats, global: &[(String, String)]) -> J {
    let plist = job.effective_percentiles();
    let mut options = job.job_options.clone();
    for (name, aliases, default) in REQUIRED_OPTIONS {
        if !has_option(&options, aliases) && !has_option(global, aliases) {
            options.push((name.to_string(), default.to_string()));
        }
    }
    let mut pairs = vec![
        ("jobname", J::S(job.jobname.clone())),
        ("groupid", J::U(job.groupid as u64)),
        ("error", J::U(u64::from(job.error))),
        ("eta", J::U(0)),
        ("elapsed", J::U(job.elapsed())),
        ("job options", opts(&options)),
    ];
    for d in Dir::ALL {
        pairs.push((d.name(), dir_json(job, d, rs, &plist)));
    }
    pairs.push((
        "sync",
        obj(vec![
            ("total_ios", J::U(job.sync.stat.samples)),
            ("lat_ns", lat_json(&job.sync.stat, &job.sync, Some(&plist))),
        ]),
    ));
    pairs.extend([
        ("job_runtime", J::U(job.job_runtime())),
        ("usr_cpu", J::F(job.usr_cpu)),
        ("sys_cpu", J::F(job.sys_cpu)),
        ("ctx", J::U(job.ctx)),
        ("majf", J::U(job.majf)),
        ("minf", J::U(job.minf)),
    ]);
    let total = job.total_ios();
    let dep = &job.iodepth;
    pairs.push((
        "iodepth_level",
        pct_obj(
            &["1", "2", "4", "8", "16", "32", ">=64"],
            &calc_dist(&dep.level, total),
        ),
    ));
    let batch_keys = ["0", "4", "8", "16", "32", "64", ">=64"];
    pairs.push((
        "iodepth_submit",
        pct_obj(&batch_keys, &calc_dist(&dep.submit, dep.total_submit)),
    ));
    pairs.push((
        "iodepth_complete",
        pct_obj(&batch_keys, &calc_dist(&dep.complete, dep.total_complete)),
    ));
    let ld = job_lat_dist(job);
    pairs.push((
        "latency_ns",
        pct_obj(&LAT_KEYS[..10], &calc_lat(&ld.ns, total)),
    ));
    pairs.push((
        "latency_us",
        pct_obj(&LAT_KEYS[..10], &calc_lat(&ld.us, total)),
    ));
    pairs.push(("latency_ms", pct_obj(&LAT_KEYS, &calc_lat(&ld.ms, total))));
    // fio's latency_target search, in fio's units: the target in ns, the
    // window in µs.
    pairs.push(("latency_depth", J::U(u64::from(job.latency_depth))));
    pairs.push(("latency_target", J::U(job.latency_target_ns)));
    pairs.push(("latency_percentile", J::F(job.latency_percentile)));
    pairs.push(("latency_window", J::U(job.latency_window_ns / 1000)));
    if !job.extras.is_null() {
        pairs.push(("ssdlab", J::V(job.extras.clone())));
    }
    obj(pairs)
}

impl Report {
    pub(crate) fn to_j(&self) -> J {
        let groups = GroupRunStats::all(&self.jobs);
        let mut pairs = vec![
            ("fio version", J::S(self.version.clone())),
            ("timestamp", J::I(self.timestamp)),
            ("timestamp_ms", J::I(self.timestamp_ms)),
            ("time", J::S(self.time.clone())),
        ];
        if !self.global_options.is_empty() {
            pairs.push(("global options", opts(&self.global_options)));
        }
        let jobs = self
            .jobs
            .iter()
            .map(|j| {
                let rs = groups
                    .iter()
                    .find(|g| g.groupid == j.groupid)
                    .cloned()
                    .unwrap_or_default();
                job_json(j, &rs, &self.global_options)
            })
            .collect();
        pairs.push(("jobs", J::A(jobs)));
        pairs.push(("disk_util", J::A(Vec::new())));
        if !self.extras.is_null() {
            pairs.push(("ssdlab", J::V(self.extras.clone())));
        }
        obj(pairs)
    }

    /// fio's JSON document as a `serde_json::Value` (object keys sorted by
    /// serde_json; use [`Report::to_fio_json_string`] for fio's order).
    pub fn to_fio_json(&self) -> Value {
        self.to_j().to_value()
    }

    /// fio's JSON document as text, in fio's key order and layout.
    pub fn to_fio_json_string(&self) -> String {
        let mut out = String::new();
        self.to_j().print(0, &mut out);
        out.push('\n');
        out
    }
}
