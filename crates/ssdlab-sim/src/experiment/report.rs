//! Turns a finished run into fio's report (jobs, groups) plus ssdlab's own
//! section: what only a simulator can see.

use super::fio_run::{RunResult, RunSetup};
use crate::host::GaugeSeries;
use crate::workload::fio_job::FioJob;
use crate::workload::job_stats::JobStats;
use serde_json::json;
use ssdlab_fio::JobFile;
use ssdlab_metrics::{merge_jobs, timeseries_csv as csv, JobReport, Report};
use std::fmt::Write as _;

/// The fio-compatible report of a run.
pub fn build(result: &RunResult, jobfile: &JobFile, setup: &RunSetup) -> Report {
    build_live(&result.jobs, &result.stats, jobfile, extras(result, setup))
}

/// The fio-compatible report of jobs and their statistics, with `extras`
/// in ssdlab's section (a live run's: the target, the engine's counters).
pub fn build_live(
    jobs: &[FioJob],
    stats: &[JobStats],
    jobfile: &JobFile,
    extras: serde_json::Value,
) -> Report {
    let now = report_time_ms();
    Report {
        version: format!("ssdlab-{} (fio-3.x compatible)", env!("CARGO_PKG_VERSION")),
        timestamp: now / 1000,
        timestamp_ms: now,
        time: String::new(),
        global_options: jobfile.global_options.clone(),
        jobs: grouped_jobs(jobs, stats),
        extras,
    }
}

/// The report's `timestamp` (ms): fio's wall clock, or `SOURCE_DATE_EPOCH`
/// (seconds) when set, so that a run's report can be the same bytes each
/// time (the reproducible-builds convention; everything else in a
/// simulated run's report already is).
fn report_time_ms() -> i64 {
    let pinned = std::env::var("SOURCE_DATE_EPOCH").ok();
    match pinned.and_then(|s| s.trim().parse::<i64>().ok()) {
        Some(secs) => secs.saturating_mul(1000),
        None => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64),
    }
}

/// One report per job, except jobs of a group with group_reporting, which
/// are summed into one (named after the first).
fn grouped_jobs(jobs: &[FioJob], stats: &[JobStats]) -> Vec<JobReport> {
    let mut out: Vec<JobReport> = Vec::new();
    let mut i = 0;
    while i < jobs.len() {
        let spec = &jobs[i].spec;
        if !spec.group_reporting {
            out.push(stats[i].report.clone());
            i += 1;
            continue;
        }
        let g = spec.group_id;
        let members: Vec<JobReport> = (i..jobs.len())
            .take_while(|&k| jobs[k].spec.group_id == g && jobs[k].spec.group_reporting)
            .map(|k| stats[k].report.clone())
            .collect();
        i += members.len();
        out.push(merge_jobs(&members));
    }
    out
}

fn extras(result: &RunResult, setup: &RunSetup) -> serde_json::Value {
    let f = &result.ftl;
    let waf = f.waf();
    let mut out = json!({
        "device": setup.device.name,
        "scheduler": setup.scheduler,
        "occupancy_pct": setup.occupancy * 100.0,
        "seed": setup.seed,
        "simulated_s": (result.sim_end_ns as f64) / 1e9,
        "events": result.events,
        "waf": (waf * 1000.0).round() / 1000.0,
        "gc": {
            "invocations": f.gc_invocations,
            "pages_moved": f.gc_pages_moved,
            "erases": f.erases,
            "victims_ge70_invalid": f.victims_ge70_invalid,
            "victims_ge90_invalid": f.victims_ge90_invalid,
            "slc_folds": f.folds,
            "slc_fold_pages": f.fold_pages_moved,
        },
        "device_counters": result.device,
        "host_counters": result.host,
        "scheduler_counters": result.scheduler_counters,
        "precondition": result.precondition,
        "replay": result.jobs.iter().find_map(|j| j.source_report()),
    });
    // Only runs with a buffered job have a page cache to report.
    if let Some(pc) = &result.page_cache {
        out["page_cache"] = json!(pc);
    }
    out
}

/// Per-second bandwidth and IOPS of every job and direction, as CSV, then
/// the scheduler's gauges (rows `scheduler,<gauge>,second` with the value
/// in a last column, `value`, present only when there are gauges).
pub fn timeseries_csv(jobs: &[FioJob], stats: &[JobStats], gauges: &GaugeSeries) -> String {
    let dirs = ["read", "write", "trim"];
    let mut series = Vec::new();
    for (job, st) in jobs.iter().zip(stats) {
        for (k, s) in st.samplers.iter().enumerate() {
            let rows = s.per_second_series();
            if !rows.is_empty() {
                series.push((job.spec.name.clone(), dirs[k].to_string(), rows));
            }
        }
    }
    let text = csv(&series);
    if gauges.names.is_empty() {
        return text;
    }
    // Seconds count from the end of ramp time, as the jobs' rows do.
    let origin = stats
        .iter()
        .flat_map(|s| s.samplers.iter())
        .map(|s| s.start_ns)
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        out.push_str(line);
        out.push_str(if i == 0 { ",value\n" } else { ",\n" });
    }
    for (k, name) in gauges.names.iter().enumerate() {
        for (t, values) in gauges.samples.iter().filter(|(t, _)| *t >= origin) {
            let second = (t - origin) / 1_000_000_000;
            let _ = writeln!(out, "scheduler,{name},{second},,,,,{}", values[k]);
        }
    }
    out
}

/// Seconds with I/O that the time series left out: a run's per-second
/// series keeps at most `ssdlab_metrics::MAX_KEPT_SECONDS` per job and
/// direction.
pub fn seconds_left_out(stats: &[JobStats]) -> u64 {
    stats
        .iter()
        .flat_map(|s| s.samplers.iter())
        .map(|s| s.seconds_dropped)
        .sum()
}
