//! Per-direction, per-job and per-run statistics, and fio's group
//! aggregation (`group_reporting`).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ssdlab_protocol::Dir;

use crate::hist::{FioHistogram, DEFAULT_PERCENTILES};
pub use crate::io_stat::IoStat;
use crate::sampler::SampleSeries;

mod group;

pub use group::{merge_jobs, GroupRunStats};

/// Statistics of one direction of one job.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DirStats {
    /// Completion latency (issue → completion).
    pub clat: FioHistogram,
    /// Total latency (submission → completion).
    pub lat: FioHistogram,
    /// Submission latency (empty for sync engines, as in fio).
    pub slat: FioHistogram,
    pub io_bytes: u64,
    pub total_ios: u64,
    pub short_ios: u64,
    pub drop_ios: u64,
    /// Time the direction was active, set by the caller.
    pub runtime_ns: u64,
    /// Bandwidth samples in KiB/s, one per sample window with data.
    pub bw_samples: Vec<u64>,
    /// IOPS samples, one per sample window with I/Os.
    pub iops_samples: Vec<u64>,
    /// The statistics of samples folded away before `bw_samples` (a long
    /// run keeps a bounded number of samples).
    pub bw_folded: IoStat,
    pub iops_folded: IoStat,
    /// Set by [`merge_jobs`]: fio adds up bw statistics of group members
    /// (min+min, mean+mean, …); when present it replaces the statistics
    /// computed from `bw_samples`.
    pub bw_stat_override: Option<IoStat>,
    /// Same as `bw_stat_override`, for IOPS.
    pub iops_stat_override: Option<IoStat>,
}

impl DirStats {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runtime in ms as fio accounts it: µs truncated, then rounded up
    /// to whole milliseconds.
    pub fn runtime_ms(&self) -> u64 {
        (self.runtime_ns / 1000).div_ceil(1000)
    }

    /// Bandwidth in bytes/s as fio computes it (`1000 * io_bytes / runtime_ms`).
    pub fn bw_bytes(&self) -> u64 {
        let rt = self.runtime_ms();
        if rt == 0 {
            0
        } else {
            (1000u128 * self.io_bytes as u128 / rt as u128) as u64
        }
    }

    /// Bandwidth in KiB/s (`bw_bytes / 1024`, truncated, as fio).
    pub fn bw_kib(&self) -> u64 {
        self.bw_bytes() / 1024
    }

    /// IOPS as fio's JSON (`1000.0 * total_ios / runtime_ms`).
    pub fn iops(&self) -> f64 {
        let rt = self.runtime_ms();
        if rt == 0 {
            0.0
        } else {
            1000.0 * self.total_ios as f64 / rt as f64
        }
    }

    /// Bandwidth sample statistics (KiB/s).
    pub fn bw_stat(&self) -> IoStat {
        self.bw_stat_override
            .unwrap_or_else(|| IoStat::continued(self.bw_folded, &self.bw_samples))
    }

    /// IOPS sample statistics.
    pub fn iops_stat(&self) -> IoStat {
        self.iops_stat_override
            .unwrap_or_else(|| IoStat::continued(self.iops_folded, &self.iops_samples))
    }

    /// Copy fio's bandwidth and IOPS samples out of a sampler result.
    pub fn fill_samples(&mut self, series: &SampleSeries) {
        self.bw_samples = series.bw_kib_s.clone();
        self.iops_samples = series.iops.clone();
        self.bw_folded = series.folded_bw;
        self.iops_folded = series.folded_iops;
    }

    /// Record one completed I/O (convenience): bytes, counters and the
    /// three latencies. Pass `None` for slat when not measured.
    pub fn record_io(&mut self, bytes: u64, slat_ns: Option<u64>, clat_ns: u64, lat_ns: u64) {
        self.io_bytes += bytes;
        self.total_ios += 1;
        if let Some(s) = slat_ns {
            self.slat.record(s);
        }
        self.clat.record(clat_ns);
        self.lat.record(lat_ns);
    }

    /// fio's `sum_thread_stats` for one direction.
    pub fn merge(&mut self, src: &DirStats) {
        self.clat.merge(&src.clat);
        self.slat.merge(&src.slat);
        self.lat.merge(&src.lat);
        let mut bw = self.bw_stat();
        bw.merge_pure_sum(&src.bw_stat());
        let mut iops = self.iops_stat();
        iops.merge_pure_sum(&src.iops_stat());
        self.bw_stat_override = Some(bw);
        self.iops_stat_override = Some(iops);
        self.bw_samples.extend_from_slice(&src.bw_samples);
        self.iops_samples.extend_from_slice(&src.iops_samples);
        self.io_bytes += src.io_bytes;
        self.total_ios += src.total_ios;
        self.short_ios += src.short_ios;
        self.drop_ios += src.drop_ios;
        self.runtime_ns = self.runtime_ns.max(src.runtime_ns);
    }
}

/// An I/O priority as fio reports it (`prioclass`, `prio`, `priohint`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IoPrio {
    /// 0 none, 1 RT, 2 BE, 3 IDLE.
    pub class: u8,
    /// 0–7.
    pub level: u8,
    pub hint: u8,
}

/// Latency of the I/Os of one priority in one direction. `hist` holds
/// completion latencies, or total latencies when the job has
/// `lat_percentiles` (as in fio).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrioStats {
    pub ioprio: IoPrio,
    pub dir: Dir,
    pub hist: FioHistogram,
}

/// fio's I/O depth distributions (`iodepth_level`, `iodepth_submit`,
/// `iodepth_complete`): raw counts per fio bucket. All zero when the
/// simulator does not track them; the JSON keeps fio's shape.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoDepthDist {
    /// Issues per depth bucket 1, 2, 4, 8, 16, 32, >=64.
    pub level: [u64; 7],
    /// Submissions per batch bucket 0, 4, 8, 16, 32, 64, >=64.
    pub submit: [u64; 7],
    /// Completions per batch bucket 0, 4, 8, 16, 32, 64, >=64.
    pub complete: [u64; 7],
    pub total_submit: u64,
    pub total_complete: u64,
}

impl IoDepthDist {
    pub fn merge(&mut self, o: &IoDepthDist) {
        for i in 0..7 {
            self.level[i] += o.level[i];
            self.submit[i] += o.submit[i];
            self.complete[i] += o.complete[i];
        }
        self.total_submit += o.total_submit;
        self.total_complete += o.total_complete;
    }
}

/// Statistics of one job (or one group under group_reporting).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobReport {
    pub jobname: String,
    pub groupid: u32,
    /// Number of jobs summed into this report (fio's "jobs=N").
    pub members: u32,
    /// Options set in the job section, in order, as strings.
    pub job_options: Vec<(String, String)>,
    pub read: DirStats,
    pub write: DirStats,
    pub trim: DirStats,
    /// fsync/fdatasync latencies (issue → completion), fio's `sync` section.
    #[serde(default)]
    pub sync: FioHistogram,
    /// Empty means fio's default list.
    pub percentile_list: Vec<f64>,
    pub lat_percentiles: bool,
    /// CPU usage in percent (0 allowed).
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
    /// Wall-clock run time of the job in ms (`job_runtime`); 0 means
    /// "use the longest direction runtime".
    pub job_runtime_ms: u64,
    /// `elapsed` in seconds; 0 means "derive from the job runtime".
    pub elapsed_s: u64,
    pub iodepth: IoDepthDist,
    /// The job's own priority (used when merging jobs with different priorities).
    pub ioprio: IoPrio,
    /// Per-priority latencies; reported when two or more have samples.
    pub prios: Vec<PrioStats>,
    /// fio's `latency_depth`: the depth its latency_target search runs at,
    /// the job's iodepth while no target is set.
    pub latency_depth: u32,
    /// fio's `latency_target` (0: none), `latency_window` and
    /// `latency_percentile`.
    pub latency_target_ns: u64,
    pub latency_window_ns: u64,
    pub latency_percentile: f64,
    /// fio's `error`: the errno that ended the job (0: none).
    pub error: u32,
    /// ssdlab-specific data, emitted under the key "ssdlab" only.
    pub extras: Value,
}

impl Default for JobReport {
    fn default() -> Self {
        JobReport {
            jobname: String::new(),
            groupid: 0,
            members: 1,
            job_options: Vec::new(),
            read: DirStats::default(),
            write: DirStats::default(),
            trim: DirStats::default(),
            sync: FioHistogram::default(),
            percentile_list: Vec::new(),
            lat_percentiles: false,
            usr_cpu: 0.0,
            sys_cpu: 0.0,
            ctx: 0,
            majf: 0,
            minf: 0,
            job_runtime_ms: 0,
            elapsed_s: 0,
            iodepth: IoDepthDist::default(),
            ioprio: IoPrio::default(),
            prios: Vec::new(),
            latency_depth: 1,
            latency_target_ns: 0,
            latency_window_ns: 0,
            latency_percentile: 100.0,
            error: 0,
            extras: Value::Null,
        }
    }
}

impl JobReport {
    pub fn new(jobname: impl Into<String>, groupid: u32) -> Self {
        JobReport {
            jobname: jobname.into(),
            groupid,
            ..Default::default()
        }
    }

    pub fn dir(&self, d: Dir) -> &DirStats {
        match d {
            Dir::Read => &self.read,
            Dir::Write => &self.write,
            Dir::Trim => &self.trim,
        }
    }

    pub fn dir_mut(&mut self, d: Dir) -> &mut DirStats {
        match d {
            Dir::Read => &mut self.read,
            Dir::Write => &mut self.write,
            Dir::Trim => &mut self.trim,
        }
    }

    /// The percentile list in effect (fio's default when empty).
    pub fn effective_percentiles(&self) -> Vec<f64> {
        if self.percentile_list.is_empty() {
            DEFAULT_PERCENTILES.to_vec()
        } else {
            self.percentile_list.clone()
        }
    }

    /// `job_runtime` in ms.
    pub fn job_runtime(&self) -> u64 {
        if self.job_runtime_ms > 0 {
            self.job_runtime_ms
        } else {
            Dir::ALL
                .iter()
                .map(|&d| self.dir(d).runtime_ms())
                .max()
                .unwrap_or(0)
        }
    }

    /// `elapsed` in seconds.
    pub fn elapsed(&self) -> u64 {
        if self.elapsed_s > 0 {
            self.elapsed_s
        } else {
            self.job_runtime().div_ceil(1000)
        }
    }

    /// Total I/Os over read, write and trim (fio's `ddir_rw_sum(total_io_u)`).
    pub fn total_ios(&self) -> u64 {
        self.read.total_ios + self.write.total_ios + self.trim.total_ios
    }

    /// Priorities of one direction that have samples.
    pub fn prios_with_samples(&self, d: Dir) -> Vec<&PrioStats> {
        self.prios
            .iter()
            .filter(|p| p.dir == d && p.hist.count() > 0)
            .collect()
    }
}

/// A whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// fio version string, e.g. "fio-3.36".
    pub version: String,
    pub timestamp: i64,
    pub timestamp_ms: i64,
    /// ctime-style time string, e.g. "Mon Jan  1 00:00:00 2024".
    pub time: String,
    pub global_options: Vec<(String, String)>,
    pub jobs: Vec<JobReport>,
    /// ssdlab-specific data, emitted under the key "ssdlab" only.
    pub extras: Value,
}
