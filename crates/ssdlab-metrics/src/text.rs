//! fio's normal (human) output, plus an ssdlab section rendered from the
//! extras. Figures, labels and unit choices follow fio's `stat.c`
//! (kb_base=1024, unit_base=bytes, sig_figs=4, percentile precision 2).

use std::fmt::Write as _;

use serde_json::Value;

use crate::hist::FioHistogram;
use crate::json::{calc_dist, calc_lat, job_lat_dist};
use crate::stats::{GroupRunStats, IoStat, JobReport, Report};
use ssdlab_protocol::Dir;

const SIG_FIGS: usize = 4;

/// Unit suffixes of fio's `num2str`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum N2sUnit {
    None,
    PerSec,
    Byte,
    Bit,
    BytePerSec,
    BitPerSec,
}

impl N2sUnit {
    fn suffix(self) -> &'static str {
        match self {
            N2sUnit::None => "",
            N2sUnit::PerSec => "/s",
            N2sUnit::Byte => "B",
            N2sUnit::Bit => "bit",
            N2sUnit::BytePerSec => "B/s",
            N2sUnit::BitPerSec => "bit/s",
        }
    }
}

/// fio's `num2str`: shorten `num` to at most `maxlen` digits with an SI
/// (`pow2 = false`) or IEC (`pow2 = true`) prefix, with fio's rounding.
/// `base` is the multiplier `num` is already expressed in (1, 1000, 1024…).
pub fn num2str(num: u64, maxlen: usize, base: u64, pow2: bool, units: N2sUnit) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefix = if pow2 { &IEC } else { &SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let mut num = num;
    let mut base = base;
    let mut post = 0usize;
    while base > 1 {
        base /= thousand;
        post += 1;
    }
    if matches!(units, N2sUnit::Bit | N2sUnit::BitPerSec) {
        num = num.wrapping_mul(8);
    }
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < SI.len() {
        if num.to_string().len() <= maxlen {
            break;
        }
        let m = num % thousand;
        num /= thousand;
        carry = m >= thousand / 2;
        modulo = Some(m);
        post += 1;
    }
    if post >= SI.len() {
        post = 0;
    }
    let done = |n: u64, post: usize| format!("{n}{}{}", prefix[post], units.suffix());
    let Some(modulo) = modulo else {
        return done(num, post);
    };
    let len = num.to_string().len();
    if maxlen as i64 - len as i64 <= 1 {
        if carry {
            num += 1;
        }
        return done(num, post);
    }
    let decimals = maxlen - len - 1;
    let frac = format!("{:.*}", decimals, modulo as f64 / thousand as f64);
    if frac.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}{}", &frac[2..], prefix[post], units.suffix())
}

/// fio's `nsec_to_msec` / `nsec_to_usec` unit choice for a latency line.
fn scale_lat(min: u64, max: u64, mean: f64, dev: f64) -> (&'static str, u64, u64, f64, f64) {
    if min > 2_000_000 && max > 99_999_999 && dev > 1_000_000.0 {
        (
            "msec",
            min / 1_000_000,
            max / 1_000_000,
            mean / 1e6,
            dev / 1e6,
        )
    } else if min > 2000 && max > 99_999 && dev > 1000.0 {
        ("usec", min / 1000, max / 1000, mean / 1e3, dev / 1e3)
    } else {
        ("nsec", min, max, mean, dev)
    }
}

fn display_lat(out: &mut String, name: &str, st: &IoStat) {
    let Some((min, max, mean, dev)) = st.calc() else {
        return;
    };
    let (unit, min, max, mean, dev) = scale_lat(min, max, mean, dev);
    let _ = writeln!(
        out,
        "    {name} ({unit}): min={}, max={}, avg={mean:5.2}, stdev={dev:5.2}",
        num2str(min, 6, 1, false, N2sUnit::None),
        num2str(max, 6, 1, false, N2sUnit::None)
    );
}

/// fio's `show_clat_percentiles` with precision 2.
fn show_percentiles(out: &mut String, hist: &FioHistogram, plist: &[f64], pre: &str) {
    let vals = hist.percentiles(plist);
    if vals.is_empty() {
        return;
    }
    let minv = vals.iter().map(|v| v.1).min().unwrap_or(0);
    let maxv = vals.iter().map(|v| v.1).max().unwrap_or(0);
    let (scale_down, divisor, unit) = if minv > 2_000_000 && maxv > 99_999_999 {
        (2, 1_000_000u64, "msec")
    } else if minv > 2000 && maxv > 99_999 {
        (1, 1000, "usec")
    } else {
        (0, 1, "nsec")
    };
    let _ = write!(out, "    {pre} percentiles ({unit}):\n     |");
    let q = maxv / divisor;
    let digits = if q == 0 { 0 } else { q.to_string().len() };
    let width = digits.max(5);
    let precision = 2;
    let per_line = (80 - 7) / (precision + 10 + width);
    let len = vals.len();
    for (j, (p, v)) in vals.iter().enumerate() {
        if j != 0 && j % per_line == 0 {
            out.push_str("     |");
        }
        let mut v = *v;
        for _ in 0..scale_down {
            v = v.div_ceil(1000);
        }
        let last = j == len - 1;
        let _ = write!(
            out,
            " {p:5.2}th=[{v:width$}]{}",
            if last { '\n' } else { ',' }
        );
        if last {
            break;
        }
        if j % per_line == per_line - 1 {
            out.push('\n');
        }
    }
}

fn show_ddir_status(out: &mut String, job: &JobReport, d: Dir, rs: &GroupRunStats) {
    let ds = job.dir(d);
    let runt = ds.runtime_ms();
    if runt == 0 {
        return;
    }
    let bw = ds.bw_bytes();
    let iops = (1000u128 * ds.total_ios as u128 / runt as u128) as u64;
    let _ = writeln!(
        out,
        "  {}: IOPS={}, BW={} ({})({}/{}msec)",
        d.name(),
        num2str(iops, SIG_FIGS, 1, false, N2sUnit::None),
        num2str(bw, SIG_FIGS, 1, true, N2sUnit::BytePerSec),
        num2str(bw, SIG_FIGS, 1, false, N2sUnit::BytePerSec),
        num2str(ds.io_bytes, SIG_FIGS, 1, true, N2sUnit::Byte),
        runt
    );
    display_lat(out, "slat", &ds.slat.stat);
    display_lat(out, "clat", &ds.clat.stat);
    display_lat(out, " lat", &ds.lat.stat);
    let clat_type = if job.lat_percentiles { "lat" } else { "clat" };
    let prios = job.prios_with_samples(d);
    if prios.len() >= 2 {
        for p in &prios {
            let name = format!(
                "{clat_type} prio {}/{}/{}",
                p.ioprio.class, p.ioprio.level, p.ioprio.hint
            );
            display_lat(out, &name, &p.hist.stat);
        }
    }
    let plist = job.effective_percentiles();
    let main = if job.lat_percentiles {
        &ds.lat
    } else {
        &ds.clat
    };
    show_percentiles(out, main, &plist, clat_type);
    if prios.len() >= 2 {
        let samples = main.count().max(1);
        for p in &prios {
            let name = format!(
                "{clat_type} prio {}/{}/{} ({:.2}% of IOs)",
                p.ioprio.class,
                p.ioprio.level,
                p.ioprio.hint,
                100.0 * p.hist.count() as f64 / samples as f64
            );
            show_percentiles(out, &p.hist, &plist, &name);
        }
    }
    if let Some((min, max, mean, dev)) = ds.bw_stat().calc() {
        let per = rs.bw_percent(d, mean);
        let (mut min, mut max, mut mean, mut dev) = (min, max, mean, dev);
        let mut unit = "KiB";
        if mean > 1024.0 * 1024.0 {
            min = (min as f64 / 1024.0) as u64;
            max = (max as f64 / 1024.0) as u64;
            mean /= 1024.0;
            dev /= 1024.0;
            unit = "MiB";
        }
        let _ = writeln!(
            out,
            "   bw ({unit:>5}/s): min={min:5}, max={max:5}, per={per:3.2}%, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            ds.bw_stat().samples
        );
    }
    let io = ds.iops_stat();
    if let Some((min, max, mean, dev)) = io.calc() {
        let _ = writeln!(
            out,
            "   iops        : min={min:5}, max={max:5}, avg={mean:5.2}, stdev={dev:5.2}, samples={}",
            io.samples
        );
    }
}

fn show_lat(out: &mut String, vals: &[f64], ranges: &[&str], msg: &str) {
    let mut new_line = true;
    let mut shown = false;
    let mut line = 0;
    for (v, r) in vals.iter().zip(ranges) {
        if *v <= 0.0 {
            continue;
        }
        shown = true;
        if new_line {
            if line > 0 {
                out.push('\n');
            }
            let _ = write!(out, "  lat ({msg})   : ");
            new_line = false;
            line = 0;
        }
        if line > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{r}={v:3.2}%");
        line += 1;
        if line == 5 {
            new_line = true;
        }
    }
    if shown {
        out.push('\n');
    }
}

const RANGES: [&str; 12] = [
    "2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000",
];

fn pcts1(vals: &[f64], keys: &[&str]) -> String {
    keys.iter()
        .zip(vals)
        .map(|(k, v)| format!("{k}={v:3.1}%"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn show_job(out: &mut String, job: &JobReport, rs: &GroupRunStats, time: &str) {
    let bytes: u64 = Dir::ALL.iter().map(|&d| job.dir(d).io_bytes).sum();
    if bytes == 0 && job.total_ios() == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err={:2}: pid={}: {}",
        job.jobname,
        job.groupid,
        job.members.max(1),
        job.error,
        0,
        time
    );
    for d in Dir::ALL {
        if job.dir(d).io_bytes > 0 {
            show_ddir_status(out, job, d, rs);
        }
    }
    if job.sync.stat.samples > 0 {
        let _ = writeln!(out, "  fsync/fdatasync/sync_file_range:");
        display_lat(out, "sync", &job.sync.stat);
        show_percentiles(out, &job.sync, &job.effective_percentiles(), "sync");
    }
    let total = job.total_ios();
    let ld = job_lat_dist(job);
    show_lat(out, &calc_lat(&ld.ns, total), &RANGES[..10], "nsec");
    show_lat(out, &calc_lat(&ld.us, total), &RANGES[..10], "usec");
    show_lat(out, &calc_lat(&ld.ms, total), &RANGES, "msec");
    let _ = writeln!(
        out,
        "  cpu          : usr={:3.2}%, sys={:3.2}%, ctx={}, majf={}, minf={}",
        job.usr_cpu, job.sys_cpu, job.ctx, job.majf, job.minf
    );
    let dep = &job.iodepth;
    let _ = writeln!(
        out,
        "  IO depths    : {}",
        pcts1(
            &calc_dist(&dep.level, total),
            &["1", "2", "4", "8", "16", "32", ">=64"]
        )
    );
    let batch = ["0", "4", "8", "16", "32", "64", ">=64"];
    let _ = writeln!(
        out,
        "     submit    : {}",
        pcts1(&calc_dist(&dep.submit, dep.total_submit), &batch)
    );
    let _ = writeln!(
        out,
        "     complete  : {}",
        pcts1(&calc_dist(&dep.complete, dep.total_complete), &batch)
    );
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},{} short={},{},{},0 dropped={},{},{},0",
        job.read.total_ios,
        job.write.total_ios,
        job.trim.total_ios,
        job.sync.stat.samples,
        job.read.short_ios,
        job.write.short_ios,
        job.trim.short_ios,
        job.read.drop_ios,
        job.write.drop_ios,
        job.trim.drop_ios
    );
    // fio's latency_target search: the target in ns, the window in µs.
    let _ = writeln!(
        out,
        "     latency   : target={}, window={}, percentile={:.2}%, depth={}",
        job.latency_target_ns,
        job.latency_window_ns / 1000,
        job.latency_percentile,
        job.latency_depth
    );
}

fn show_group(out: &mut String, rs: &GroupRunStats) {
    let _ = writeln!(out, "\nRun status group {} (all jobs):", rs.groupid);
    for d in Dir::ALL {
        let i = d.index();
        if rs.max_run[i] == 0 {
            continue;
        }
        let label = match d {
            Dir::Read => "   READ",
            Dir::Write => "  WRITE",
            Dir::Trim => "   TRIM",
        };
        let b = |v: u64, p: bool| num2str(v, SIG_FIGS, 1, p, N2sUnit::BytePerSec);
        let _ = writeln!(
            out,
            "{label}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={}-{}msec",
            b(rs.agg[i], true),
            b(rs.agg[i], false),
            b(rs.min_bw[i], true),
            b(rs.max_bw[i], true),
            b(rs.min_bw[i], false),
            b(rs.max_bw[i], false),
            num2str(rs.iobytes[i], SIG_FIGS, 1, true, N2sUnit::Byte),
            num2str(rs.iobytes[i], SIG_FIGS, 1, false, N2sUnit::Byte),
            rs.min_run[i],
            rs.max_run[i]
        );
    }
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Null => {}
        Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        Value::Array(a) if a.iter().any(|x| x.is_object() || x.is_array()) => {
            for (i, v) in a.iter().enumerate() {
                flatten(&format!("{prefix}[{i}]"), v, out);
            }
        }
        Value::String(s) => out.push((prefix.to_string(), s.clone())),
        other => out.push((prefix.to_string(), other.to_string())),
    }
}

fn show_extras(out: &mut String, title: &str, v: &Value) {
    let mut lines = Vec::new();
    flatten("", v, &mut lines);
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title}:");
    for (k, val) in lines {
        let key = if k.is_empty() { "value" } else { k.as_str() };
        let _ = writeln!(out, "  {key}: {val}");
    }
}

impl Report {
    /// fio's normal output for the run, followed by an ssdlab section
    /// rendered from the extras (`key: value` lines, nested keys dotted).
    pub fn to_normal_text(&self) -> String {
        let groups = GroupRunStats::all(&self.jobs);
        let mut out = String::new();
        for job in &self.jobs {
            let rs = groups
                .iter()
                .find(|g| g.groupid == job.groupid)
                .cloned()
                .unwrap_or_default();
            show_job(&mut out, job, &rs, &self.time);
        }
        for rs in &groups {
            show_group(&mut out, rs);
        }
        let has_extras = !self.extras.is_null() || self.jobs.iter().any(|j| !j.extras.is_null());
        if has_extras {
            out.push('\n');
            show_extras(&mut out, "ssdlab", &self.extras);
            for job in &self.jobs {
                show_extras(&mut out, &format!("ssdlab ({})", job.jobname), &job.extras);
            }
        }
        out
    }
}
