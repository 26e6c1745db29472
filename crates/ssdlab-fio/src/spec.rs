//! The resolved, typed description of a job (plain data, integer units).

use serde::Serialize;

/// A value given either in bytes or as a percentage of the file/device.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum SizeSpec {
    Bytes(u64),
    /// Percent in `0.0..=100.0`.
    Percent(f64),
}

impl SizeSpec {
    /// Bytes for a device (or file) of `total` bytes; percentages round down.
    pub fn resolve(&self, total: u64) -> u64 {
        match *self {
            SizeSpec::Bytes(b) => b,
            SizeSpec::Percent(p) => ((total as f64) * p / 100.0).floor() as u64,
        }
    }
}

/// One value per data direction (read, write, trim).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PerDir<T> {
    pub read: T,
    pub write: T,
    pub trim: T,
}

impl<T: Clone> PerDir<T> {
    pub fn all(v: T) -> Self {
        PerDir {
            read: v.clone(),
            write: v.clone(),
            trim: v,
        }
    }
}

/// `rw=` / `readwrite=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RwMode {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// `rw` / `readwrite`: sequential mixed.
    ReadWrite,
    RandRW,
    Trim,
    RandTrim,
}

impl RwMode {
    pub fn is_random(self) -> bool {
        matches!(
            self,
            RwMode::RandRead | RwMode::RandWrite | RwMode::RandRW | RwMode::RandTrim
        )
    }
    pub fn has_read(self) -> bool {
        matches!(
            self,
            RwMode::Read | RwMode::RandRead | RwMode::ReadWrite | RwMode::RandRW
        )
    }
    pub fn has_write(self) -> bool {
        matches!(
            self,
            RwMode::Write | RwMode::RandWrite | RwMode::ReadWrite | RwMode::RandRW
        )
    }
    pub fn has_trim(self) -> bool {
        matches!(self, RwMode::Trim | RwMode::RandTrim)
    }
    pub fn is_mixed(self) -> bool {
        matches!(self, RwMode::ReadWrite | RwMode::RandRW)
    }
}

/// `rw_sequencer=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RwSequencer {
    Sequential,
    Identical,
}

/// `ioengine=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum IoEngine {
    Sync,
    Psync,
    Vsync,
    Pvsync,
    Pvsync2,
    Libaio,
    IoUring,
    Posixaio,
    Mmap,
    Null,
}

impl IoEngine {
    /// A synchronous engine has exactly one I/O outstanding per job.
    pub fn is_sync(self) -> bool {
        matches!(
            self,
            IoEngine::Sync
                | IoEngine::Psync
                | IoEngine::Vsync
                | IoEngine::Pvsync
                | IoEngine::Pvsync2
                | IoEngine::Mmap
        )
    }
    /// fio's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            IoEngine::Sync => "sync",
            IoEngine::Psync => "psync",
            IoEngine::Vsync => "vsync",
            IoEngine::Pvsync => "pvsync",
            IoEngine::Pvsync2 => "pvsync2",
            IoEngine::Libaio => "libaio",
            IoEngine::IoUring => "io_uring",
            IoEngine::Posixaio => "posixaio",
            IoEngine::Mmap => "mmap",
            IoEngine::Null => "null",
        }
    }
}

/// `rate_process=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RateProcess {
    Linear,
    Poisson,
}

/// Linux I/O priority class (`prioclass`, `cmdprio_class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum PrioClass {
    /// 0: no class set.
    None,
    /// 1: real time.
    Rt,
    /// 2: best effort.
    Be,
    /// 3: idle.
    Idle,
}

impl PrioClass {
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(PrioClass::None),
            1 => Some(PrioClass::Rt),
            2 => Some(PrioClass::Be),
            3 => Some(PrioClass::Idle),
            _ => None,
        }
    }
    pub fn as_u8(self) -> u8 {
        match self {
            PrioClass::None => 0,
            PrioClass::Rt => 1,
            PrioClass::Be => 2,
            PrioClass::Idle => 3,
        }
    }
}

/// `random_distribution=`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum RandomDistribution {
    Random,
    /// Zipf theta (> 0, != 1).
    Zipf(f64),
    /// Pareto power (0 < h < 1).
    Pareto(f64),
    /// Normal (Gaussian) deviation in percent (0 < σ ≤ 100).
    Normal(f64),
    /// `(percent of accesses, percent of range)` pairs, each column summing to 100.
    Zoned(Vec<(u32, u32)>),
    /// `(percent of accesses, bytes)` pairs (`zoned_abs`).
    ZonedAbs(Vec<(u32, u64)>),
}

/// fio's default `percentile_list`.
pub const DEFAULT_PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

/// One fully resolved job (numjobs clones are separate `JobSpec`s).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobSpec {
    /// Job name: the section name, or the `name=` option when given.
    pub name: String,
    /// 0 for the job itself, k for its k-th numjobs clone.
    pub clone_index: u32,
    /// Reporting group, from stonewall / new_group semantics.
    pub group_id: u32,
    /// File and 1-based line of the job's section header.
    pub file: String,
    pub line: usize,

    pub rw: RwMode,
    pub rw_sequencer: RwSequencer,
    /// Random modes: I/Os per new random offset (`rw=randread:N`). Default 1.
    pub rw_sequencer_n: u64,
    /// Sequential modes: bytes skipped after each I/O (`rw=write:4k`). Default 0.
    pub rw_seq_add: i64,
    /// Percent of a mixed workload that reads (0–100). Default 50.
    pub rwmixread: u8,
    /// Block size per direction in bytes. Default 4096.
    pub bs: PerDir<u64>,
    /// `bssplit` per direction: `(bytes, percent)`; empty when unset.
    pub bssplit: PerDir<Vec<(u64, u32)>>,
    /// `bsrange` per direction: `(min, max)` bytes.
    pub bsrange: PerDir<Option<(u64, u64)>>,

    pub ioengine: IoEngine,
    pub iodepth: u32,
    pub iodepth_low: Option<u32>,
    pub iodepth_batch_submit: u32,
    pub iodepth_batch_complete_min: u32,
    pub iodepth_batch_complete_max: Option<u32>,
    pub direct: bool,
    /// Writes between two fsyncs (`fsync=N`); 0 = none.
    pub fsync_every: u32,
    /// Writes between two fdatasyncs (`fdatasync=N`); 0 = none.
    pub fdatasync_every: u32,
    /// fsync once the job's writes are done (`end_fsync`).
    pub end_fsync: bool,
    /// Writes opened O_SYNC or O_DSYNC (`sync=1`, `sync=dsync`).
    pub sync_writes: bool,
    /// fio's `verify=` method (`md5`, `crc32c`, ...; None: no verification).
    pub verify: Option<String>,
    /// Read back and verify what was written once the writes end
    /// (`do_verify`, fio's default when `verify` is set).
    pub do_verify: bool,
    /// Stop at the first verification failure (`verify_fatal`).
    pub verify_fatal: bool,
    /// Bytes each verification header covers (`verify_interval`; default:
    /// the job's smallest block).
    pub verify_interval: Option<u64>,

    pub numjobs: u32,
    pub loops: u32,
    pub number_ios: Option<u64>,
    pub group_reporting: bool,
    pub stonewall: bool,
    pub new_group: bool,

    pub size: Option<SizeSpec>,
    pub io_size: Option<SizeSpec>,
    pub filesize: Option<SizeSpec>,
    pub offset: SizeSpec,
    pub offset_increment: SizeSpec,
    pub filename: Option<String>,
    pub ioscheduler: Option<String>,

    /// 0 = no limit.
    pub runtime_ns: u64,
    pub time_based: bool,
    pub ramp_time_ns: u64,
    /// `startdelay` (lower bound when given as a range).
    pub startdelay_ns: u64,
    /// Upper bound of a `startdelay` range (equal to `startdelay_ns` otherwise).
    pub startdelay_max_ns: u64,

    pub thinktime_ns: u64,
    pub thinktime_blocks: u32,
    pub thinktime_spin_ns: u64,
    /// fio's latency_target (0: none), its window and percentile.
    pub latency_target_ns: u64,
    pub latency_window_ns: u64,
    pub latency_percentile: f64,

    /// Bytes per second per direction; 0 = unlimited.
    pub rate: PerDir<u64>,
    /// I/Os per second per direction; 0 = unlimited.
    pub rate_iops: PerDir<u64>,
    pub rate_process: RateProcess,

    /// `prio` 0–7 (None = unset).
    pub prio: Option<u8>,
    /// `prioclass` (None = unset).
    pub prioclass: Option<PrioClass>,
    /// Percent of I/Os issued with `cmdprio_class`/`cmdprio` (trim mirrors write).
    pub cmdprio_percentage: PerDir<u8>,
    /// Default: RT, the highest class.
    pub cmdprio_class: PerDir<PrioClass>,
    /// Default: 0.
    pub cmdprio: PerDir<u8>,
    pub nice: i8,
    /// CPUs the job may run on (`cpumask`, `cpus_allowed`; the later
    /// wins); None = any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus_allowed: Option<Vec<u32>>,
    /// `cpus_allowed_policy=split`: each job takes one CPU of the set.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cpus_split: bool,

    pub random_distribution: RandomDistribution,
    /// Optional second float of zipf/pareto/normal (`zipf:1.2:0.25`).
    pub random_center: Option<f64>,
    pub norandommap: bool,
    pub randrepeat: bool,
    pub randseed: Option<u64>,

    pub percentile_list: Vec<f64>,
    pub lat_percentiles: bool,
    pub clat_percentiles: bool,
    /// Log file prefix; `Some("")` when given without a value.
    pub write_lat_log: Option<String>,
    pub write_bw_log: Option<String>,
    pub write_iops_log: Option<String>,
    /// 0: a log entry per I/O; M: entries averaged over M ms windows.
    pub log_avg_msec: u32,
    /// `bwavgtime` and `iopsavgtime` (ms) when set: the report's sample
    /// windows (ssdlab-sim's `fio_log::period` has fio's rules).
    pub bw_avg_msec: Option<u32>,
    pub iops_avg_msec: Option<u32>,
    /// Averaged entries hold the window's maximum instead of its mean.
    pub log_max_value: bool,
    /// Log entries carry the I/O's offset (a column before the priority).
    pub log_offset: bool,
    /// The priority column holds the I/O's priority value, not 1 for RT.
    pub log_prio: bool,
    /// Log file names carry the job's number (fio's default); without it
    /// the jobs of one name append to one file.
    pub per_job_logs: bool,
    pub kb_base: u32,

    /// Raw options set for this job (inherited globals then its own, canonical
    /// names, values as written after `${VAR}` expansion; an option set again
    /// keeps its first position and takes the later value).
    pub options: Vec<(String, String)>,
    /// Where each option's value in effect was written: canonical name →
    /// (file, 1-based line), so an error about a value can point at it.
    pub option_lines: Vec<(String, String, usize)>,
}

impl JobSpec {
    /// The one CPU the job runs on, if its affinity names one: a set of a
    /// single CPU, or under `cpus_allowed_policy=split` the CPU of the set
    /// that fio gives the job, the (`job_index` mod size)-th (fio counts
    /// its jobs across the file, clones included). None: the job may run
    /// on several CPUs.
    pub fn pinned_cpu(&self, job_index: u32) -> Option<u32> {
        let set = self.cpus_allowed.as_deref()?;
        match set.len() {
            0 => None,
            1 => Some(set[0]),
            n if self.cpus_split => Some(set[job_index as usize % n]),
            _ => None,
        }
    }

    /// A job with fio's defaults.
    pub fn with_defaults(name: &str, file: &str, line: usize) -> Self {
        JobSpec {
            name: name.to_string(),
            clone_index: 0,
            group_id: 0,
            file: file.to_string(),
            line,
            rw: RwMode::Read,
            rw_sequencer: RwSequencer::Sequential,
            rw_sequencer_n: 1,
            rw_seq_add: 0,
            rwmixread: 50,
            bs: PerDir::all(4096),
            bssplit: PerDir::all(Vec::new()),
            bsrange: PerDir::all(None),
            ioengine: IoEngine::Psync,
            iodepth: 1,
            iodepth_low: None,
            iodepth_batch_submit: 1,
            iodepth_batch_complete_min: 1,
            iodepth_batch_complete_max: None,
            direct: false,
            fsync_every: 0,
            fdatasync_every: 0,
            end_fsync: false,
            sync_writes: false,
            verify: None,
            do_verify: true,
            verify_fatal: false,
            verify_interval: None,
            numjobs: 1,
            loops: 1,
            number_ios: None,
            group_reporting: false,
            stonewall: false,
            new_group: false,
            size: None,
            io_size: None,
            filesize: None,
            offset: SizeSpec::Bytes(0),
            offset_increment: SizeSpec::Bytes(0),
            filename: None,
            ioscheduler: None,
            runtime_ns: 0,
            time_based: false,
            ramp_time_ns: 0,
            startdelay_ns: 0,
            startdelay_max_ns: 0,
            thinktime_ns: 0,
            thinktime_blocks: 1,
            thinktime_spin_ns: 0,
            latency_target_ns: 0,
            latency_window_ns: 0,
            latency_percentile: 100.0,
            rate: PerDir::all(0),
            rate_iops: PerDir::all(0),
            rate_process: RateProcess::Linear,
            prio: None,
            prioclass: None,
            cmdprio_percentage: PerDir::all(0),
            cmdprio_class: PerDir::all(PrioClass::Rt),
            cmdprio: PerDir::all(0),
            nice: 0,
            cpus_allowed: None,
            cpus_split: false,
            random_distribution: RandomDistribution::Random,
            random_center: None,
            norandommap: false,
            randrepeat: true,
            randseed: None,
            percentile_list: DEFAULT_PERCENTILES.to_vec(),
            lat_percentiles: false,
            clat_percentiles: true,
            write_lat_log: None,
            write_bw_log: None,
            write_iops_log: None,
            log_avg_msec: 0,
            bw_avg_msec: None,
            iops_avg_msec: None,
            log_max_value: false,
            log_offset: false,
            log_prio: false,
            per_job_logs: true,
            kb_base: 1024,
            options: Vec::new(),
            option_lines: Vec::new(),
        }
    }

    /// Where option `name` (canonical) was set — file and line — or the
    /// job's section header when it was not.
    pub fn line_of(&self, name: &str) -> (&str, usize) {
        self.option_lines
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .map_or((&self.file, self.line), |(_, f, l)| (f, *l))
    }

    /// I/Os this job can have outstanding: 1 for a synchronous engine, and for
    /// libaio without `direct=1` (buffered libaio submits synchronously);
    /// `iodepth` otherwise.
    pub fn effective_iodepth(&self) -> u32 {
        if self.ioengine.is_sync() || (self.ioengine == IoEngine::Libaio && !self.direct) {
            1
        } else {
            self.iodepth
        }
    }

    /// Writes between two syncs (fsync or fdatasync, the more frequent);
    /// 0 = none. On a block device both write back the same pages and
    /// send the same flush.
    pub fn sync_every(&self) -> u32 {
        match (self.fsync_every, self.fdatasync_every) {
            (0, n) | (n, 0) => n,
            (a, b) => a.min(b),
        }
    }

    /// Smallest block size used by any active direction.
    pub fn min_bs(&self) -> u64 {
        let dirs = [
            (
                self.rw.has_read(),
                &self.bs.read,
                &self.bssplit.read,
                self.bsrange.read,
            ),
            (
                self.rw.has_write(),
                &self.bs.write,
                &self.bssplit.write,
                self.bsrange.write,
            ),
            (
                self.rw.has_trim(),
                &self.bs.trim,
                &self.bssplit.trim,
                self.bsrange.trim,
            ),
        ];
        let mut min = u64::MAX;
        for (active, bs, split, range) in dirs {
            if !active {
                continue;
            }
            let m = if let Some(s) = split.iter().map(|&(b, _)| b).min() {
                s
            } else if let Some((lo, _)) = range {
                lo
            } else {
                *bs
            };
            min = min.min(m);
        }
        if min == u64::MAX {
            self.bs.read
        } else {
            min
        }
    }

    /// The byte region `(start, length)` this job works on for a device or
    /// file of `total` bytes: `offset` (percentages aligned up to the minimum
    /// block size) plus `offset_increment × clone_index`, and `size` (whole
    /// remainder when unset), capped at the end of the device and rounded
    /// down to a multiple of the minimum block size.
    pub fn region(&self, total: u64) -> (u64, u64) {
        let align = self.min_bs().max(1);
        let align_up = |v: u64| v.div_ceil(align).saturating_mul(align);
        let base = match self.offset {
            SizeSpec::Bytes(b) => b,
            p @ SizeSpec::Percent(_) => align_up(p.resolve(total)),
        };
        let inc = match self.offset_increment {
            SizeSpec::Bytes(b) => b,
            p @ SizeSpec::Percent(_) => align_up(p.resolve(total)),
        };
        let start = base
            .saturating_add(inc.saturating_mul(u64::from(self.clone_index)))
            .min(total);
        let avail = total - start;
        let len = match self.size {
            Some(s) => s.resolve(total).min(avail),
            None => avail,
        };
        (start, len - len % align)
    }
}

/// One parsed job file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct JobFile {
    /// The `[global]` options as written (all global sections merged in file
    /// order, canonical names), for the JSON report.
    pub global_options: Vec<(String, String)>,
    /// Jobs in file order, numjobs clones expanded right after their job.
    pub jobs: Vec<JobSpec>,
    /// Options skipped because `ParseOptions::ignore_unknown` was set.
    pub ignored: Vec<IgnoredOption>,
}

/// An unknown or unsupported option skipped under `ignore_unknown`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IgnoredOption {
    pub file: String,
    pub line: usize,
    pub option: String,
    pub reason: String,
}
