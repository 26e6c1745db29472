//! The option table itself: every option fio job files may use, with its
//! aliases, value kind and one-line help.

use super::{Kind, OptionDef};

const NS_PER_S: u64 = 1_000_000_000;
const NS_PER_US: u64 = 1_000;

const fn opt(
    name: &'static str,
    aliases: &'static [&'static str],
    kind: Kind,
    help: &'static str,
) -> OptionDef {
    OptionDef {
        name,
        aliases,
        kind,
        help,
    }
}

const U32: i64 = u32::MAX as i64;
const NO: &[&str] = &[];
const IGN: Kind = Kind::Ignored;

/// Every option the parser knows.
pub(super) static OPTIONS: &[OptionDef] = &[
    // Job description
    opt(
        "name",
        NO,
        Kind::Str,
        "job name (overrides the section name)",
    ),
    opt("description", NO, IGN, "free text description"),
    opt(
        "numjobs",
        NO,
        Kind::Int { min: 1, max: 4096 },
        "number of clones of this job",
    ),
    opt(
        "loops",
        NO,
        Kind::Int { min: 1, max: U32 },
        "repeat the workload this many times",
    ),
    opt(
        "kb_base",
        NO,
        Kind::IntOneOf(&[1000, 1024]),
        "1024 (default) or 1000: meaning of k/m/g suffixes",
    ),
    // Time
    opt(
        "runtime",
        &["timeout"],
        Kind::Time { unit_ns: NS_PER_S },
        "limit the run time (seconds by default)",
    ),
    opt(
        "time_based",
        NO,
        Kind::Flag,
        "run for the whole runtime, looping over the workload",
    ),
    opt(
        "startdelay",
        NO,
        Kind::TimeRange { unit_ns: NS_PER_S },
        "delay the job start (seconds by default; lo-hi range allowed)",
    ),
    opt(
        "ramp_time",
        NO,
        Kind::Time { unit_ns: NS_PER_S },
        "run this long before logging statistics (seconds by default)",
    ),
    // Target
    opt(
        "filename",
        NO,
        Kind::Str,
        "target file or device (kept for the report)",
    ),
    opt(
        "size",
        NO,
        Kind::SizeOrPct,
        "total size of I/O region (bytes or %)",
    ),
    opt(
        "io_size",
        &["io_limit"],
        Kind::SizeOrPct,
        "amount of I/O to do (bytes or %)",
    ),
    opt(
        "filesize",
        NO,
        Kind::SizeOrPct,
        "size of each file (bytes or %)",
    ),
    opt(
        "offset",
        &["fileoffset"],
        Kind::SizeOrPct,
        "start offset of the region (bytes or %)",
    ),
    opt(
        "offset_increment",
        NO,
        Kind::SizeOrPct,
        "per-clone extra offset (bytes or %)",
    ),
    opt(
        "number_ios",
        NO,
        Kind::Int {
            min: 0,
            max: i64::MAX,
        },
        "stop after this many I/Os",
    ),
    opt(
        "ioscheduler",
        NO,
        Kind::Str,
        "I/O scheduler to switch the device to",
    ),
    // I/O type
    opt("direct", NO, Kind::Bool, "non-buffered (O_DIRECT) I/O"),
    opt(
        "fsync",
        NO,
        Kind::Int { min: 0, max: U32 },
        "fsync after every N writes (0 = never)",
    ),
    opt(
        "fdatasync",
        NO,
        Kind::Int { min: 0, max: U32 },
        "fdatasync after every N writes (0 = never)",
    ),
    opt(
        "end_fsync",
        NO,
        Kind::Bool,
        "fsync when the job's writes are done",
    ),
    opt(
        "sync",
        NO,
        Kind::Choice(&["none", "0", "sync", "1", "dsync"]),
        "synchronous writes: none/0, sync/1 (O_SYNC) or dsync (O_DSYNC)",
    ),
    opt(
        "buffered",
        NO,
        Kind::Bool,
        "buffered I/O (the opposite of direct)",
    ),
    opt(
        "rw",
        &["readwrite"],
        Kind::Rw,
        "I/O pattern: read, write, trim, randread, randwrite, randtrim, rw, randrw [:N]",
    ),
    opt(
        "rw_sequencer",
        NO,
        Kind::Choice(&["sequential", "identical"]),
        "how the rw :N suffix changes offsets",
    ),
    opt(
        "rwmixread",
        NO,
        Kind::Int { min: 0, max: 100 },
        "percent of a mixed workload that reads",
    ),
    opt(
        "rwmixwrite",
        NO,
        Kind::Int { min: 0, max: 100 },
        "percent of a mixed workload that writes",
    ),
    opt(
        "random_distribution",
        NO,
        Kind::Distribution,
        "random, zipf:θ, pareto:h, normal:σ, zoned:a/r:…, zoned_abs:a/size:…",
    ),
    opt(
        "norandommap",
        NO,
        Kind::Flag,
        "do not track which blocks random I/O has touched",
    ),
    opt(
        "randrepeat",
        NO,
        Kind::Bool,
        "seed the random generator predictably (default 1)",
    ),
    opt(
        "randseed",
        NO,
        Kind::Int {
            min: 0,
            max: i64::MAX,
        },
        "seed of the random generators",
    ),
    // Block size
    opt(
        "bs",
        &["blocksize"],
        Kind::PerDirSize { fields: 3, min: 1 },
        "block size (read,write,trim)",
    ),
    opt(
        "bsrange",
        &["blocksize_range"],
        Kind::PerDirRange,
        "block size range lo-hi (read,write,trim)",
    ),
    opt(
        "bssplit",
        NO,
        Kind::PerDirSplit,
        "weighted block sizes bs/pct:bs/pct (read,write,trim)",
    ),
    // Engine
    opt(
        "ioengine",
        NO,
        Kind::Engine,
        "how I/O is issued: psync (default), sync, libaio, io_uring, …",
    ),
    opt(
        "iodepth",
        NO,
        Kind::Int { min: 1, max: 65536 },
        "I/Os in flight (async engines)",
    ),
    opt(
        "iodepth_low",
        NO,
        Kind::Int { min: 0, max: 65536 },
        "low watermark before refilling the queue",
    ),
    opt(
        "iodepth_batch_submit",
        &["iodepth_batch"],
        Kind::Int { min: 0, max: 65536 },
        "I/Os submitted at once",
    ),
    opt(
        "iodepth_batch_complete_min",
        &["iodepth_batch_complete"],
        Kind::Int { min: 0, max: 65536 },
        "minimum completions reaped at once",
    ),
    opt(
        "iodepth_batch_complete_max",
        NO,
        Kind::Int { min: 0, max: 65536 },
        "maximum completions reaped at once",
    ),
    // Rate and think time
    opt(
        "thinktime",
        NO,
        Kind::Time { unit_ns: NS_PER_US },
        "stall after completions (µs by default)",
    ),
    opt(
        "thinktime_spin",
        NO,
        Kind::Time { unit_ns: NS_PER_US },
        "busy-spin part of thinktime (µs by default)",
    ),
    opt(
        "thinktime_blocks",
        NO,
        Kind::Int { min: 1, max: U32 },
        "I/Os between think times (default 1)",
    ),
    // fio's latency_target search (target.c)
    opt(
        "latency_target",
        NO,
        Kind::Time { unit_ns: NS_PER_US },
        "deepest queue meeting this latency (µs by default)",
    ),
    opt(
        "latency_window",
        NO,
        Kind::Time { unit_ns: NS_PER_US },
        "how long each depth is tried (µs by default)",
    ),
    opt(
        "latency_percentile",
        NO,
        Kind::Percentiles { max: 1 },
        "share of I/O that must meet the target (default 100)",
    ),
    opt(
        "rate",
        NO,
        Kind::PerDirSize { fields: 3, min: 0 },
        "bandwidth cap in bytes/s (read,write,trim)",
    ),
    opt(
        "rate_iops",
        NO,
        Kind::PerDirInt {
            min: 0,
            max: i64::MAX,
            fields: 3,
        },
        "IOPS cap (read,write,trim)",
    ),
    opt(
        "rate_process",
        NO,
        Kind::Choice(&["linear", "poisson"]),
        "arrival process under a rate cap",
    ),
    // Priorities
    opt(
        "prio",
        NO,
        Kind::Int { min: 0, max: 7 },
        "I/O priority level 0-7 (0 highest)",
    ),
    opt(
        "prioclass",
        NO,
        Kind::Int { min: 0, max: 3 },
        "I/O priority class: 1 RT, 2 BE, 3 IDLE",
    ),
    // CPU affinity
    opt(
        "cpumask",
        NO,
        Kind::CpuMask,
        "CPUs the job may run on, as a bit mask",
    ),
    opt(
        "cpus_allowed",
        NO,
        Kind::CpuList,
        "CPUs the job may run on, as a list (0,5,8-15)",
    ),
    opt(
        "cpus_allowed_policy",
        NO,
        Kind::Choice(&["shared", "split"]),
        "shared: every job may use the whole set; split: each job one CPU of it",
    ),
    opt(
        "nice",
        NO,
        Kind::Int { min: -20, max: 19 },
        "CPU nice value",
    ),
    opt(
        "cmdprio_percentage",
        NO,
        Kind::PerDirInt {
            min: 0,
            max: 100,
            fields: 2,
        },
        "percent of I/Os with a per-I/O priority (read,write)",
    ),
    opt(
        "cmdprio_class",
        NO,
        Kind::PerDirInt {
            min: 0,
            max: 3,
            fields: 2,
        },
        "class of prioritised I/Os (read,write)",
    ),
    opt(
        "cmdprio",
        NO,
        Kind::PerDirInt {
            min: 0,
            max: 7,
            fields: 2,
        },
        "level of prioritised I/Os (read,write)",
    ),
    // Reporting
    opt(
        "group_reporting",
        NO,
        Kind::Flag,
        "report a group's jobs together",
    ),
    opt("new_group", NO, Kind::Flag, "start a new reporting group"),
    opt(
        "stonewall",
        &["wait_for_previous"],
        Kind::Flag,
        "wait for earlier jobs, start a new group",
    ),
    opt(
        "percentile_list",
        NO,
        Kind::Percentiles { max: 20 },
        "completion latency percentiles, ':'-separated",
    ),
    opt(
        "lat_percentiles",
        NO,
        Kind::Bool,
        "report total latency percentiles",
    ),
    opt(
        "clat_percentiles",
        NO,
        Kind::Bool,
        "report completion latency percentiles (default 1)",
    ),
    opt(
        "write_lat_log",
        NO,
        Kind::OptStr,
        "write latency logs with this prefix",
    ),
    opt(
        "write_bw_log",
        NO,
        Kind::OptStr,
        "write bandwidth logs with this prefix",
    ),
    opt(
        "write_iops_log",
        NO,
        Kind::OptStr,
        "write IOPS logs with this prefix",
    ),
    opt(
        "log_avg_msec",
        NO,
        Kind::Int { min: 0, max: U32 },
        "average log entries over this many ms",
    ),
    opt(
        "bwavgtime",
        NO,
        Kind::Int { min: 1, max: U32 },
        "the report's bandwidth sample window (ms)",
    ),
    opt(
        "iopsavgtime",
        NO,
        Kind::Int { min: 1, max: U32 },
        "the report's IOPS sample window (ms)",
    ),
    opt(
        "log_max_value",
        NO,
        Kind::Bool,
        "averaged log entries hold the window's maximum",
    ),
    opt("log_offset", NO, Kind::Bool, "log the offset of each I/O"),
    opt("log_prio", NO, Kind::Bool, "log each I/O's priority value"),
    opt(
        "per_job_logs",
        NO,
        Kind::Bool,
        "number log files by job (0: jobs of one name share a file)",
    ),
    // Accepted, no effect on the simulation
    opt(
        "thread",
        NO,
        Kind::Flag,
        "use threads instead of processes (no effect here)",
    ),
    opt(
        "invalidate",
        NO,
        IGN,
        "invalidate page cache before starting",
    ),
    opt("disable_slat", NO, IGN, "do not measure submission latency"),
    opt("disable_clat", NO, IGN, "do not measure completion latency"),
    opt("disable_lat", NO, IGN, "do not measure total latency"),
    opt(
        "disable_bw_measurement",
        &["disable_bw"],
        IGN,
        "do not measure bandwidth",
    ),
    opt("gtod_reduce", NO, IGN, "reduce gettimeofday calls"),
    opt("clocksource", NO, IGN, "timing clock source"),
    opt("filename_format", NO, IGN, "generated file name format"),
    opt("directory", NO, IGN, "directory for generated files"),
    opt(
        "unified_rw_reporting",
        NO,
        IGN,
        "sum directions in the report",
    ),
    opt(
        "allow_mounted_write",
        NO,
        IGN,
        "allow writes to mounted devices",
    ),
    opt("exitall", NO, IGN, "stop all jobs when one finishes"),
    opt("create_serialize", NO, IGN, "serialise file creation"),
    opt(
        "refill_buffers",
        NO,
        IGN,
        "refill I/O buffers on every submit",
    ),
    opt("zero_buffers", NO, IGN, "zero-filled I/O buffers"),
    opt("scramble_buffers", NO, IGN, "scramble I/O buffers"),
    opt("unit_base", NO, IGN, "bits or bytes in reports"),
    opt("significant_figures", NO, IGN, "precision of normal output"),
    opt(
        "fadvise_hint",
        NO,
        Kind::Choice(&["0", "1", "random", "sequential"]),
        "posix_fadvise hint (no effect on direct I/O here)",
    ),
    // Data verification (on a real target; the simulated device carries
    // no data)
    opt(
        "verify",
        NO,
        Kind::Choice(&[
            "none",
            "md5",
            "crc32c",
            "crc32c-intel",
            "crc32",
            "sha256",
            "xxhash",
            "meta",
            "null",
        ]),
        "verify written data with this checksum (real targets)",
    ),
    opt(
        "do_verify",
        NO,
        Kind::Bool,
        "read back and verify once the writes end",
    ),
    opt(
        "verify_fatal",
        NO,
        Kind::Bool,
        "stop at the first verify failure",
    ),
    opt(
        "verify_interval",
        NO,
        Kind::Size,
        "bytes each verify header covers",
    ),
];
