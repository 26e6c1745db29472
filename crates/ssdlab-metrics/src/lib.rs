//! fio-compatible statistics for ssdlab.
//!
//! Plain data in integer nanoseconds and bytes, rendered the way fio 3.x
//! renders its own statistics (`--output-format=json` and the normal text
//! output). The algorithms follow fio's `stat.c` (histogram bucketing,
//! percentile walk, online mean/variance, group aggregation); the code is
//! an independent implementation.
//!
//! Modules:
//! - [`hist`] — [`FioHistogram`], fio's log-linear latency histogram.
//! - [`stats`] — [`IoStat`], [`DirStats`], [`JobReport`], [`Report`],
//!   [`merge_jobs`] (group_reporting) and [`GroupRunStats`].
//! - [`sampler`] — [`Sampler`], per-window bandwidth / IOPS samples.
//! - [`json`] — `Report::to_fio_json` / `Report::to_fio_json_string`.
//! - [`text`] — `Report::to_normal_text` and fio's `num2str`.
//! - [`csv`] — [`timeseries_csv`].

pub mod csv;
pub mod hist;
pub mod io_stat;
pub mod json;
pub mod sampler;
pub mod stats;
pub mod text;

pub use csv::timeseries_csv;
pub use hist::{
    plat_ext_idx_to_val, plat_idx_to_val, plat_val_to_ext_idx, plat_val_to_idx, FioHistogram,
    LatDist, DEFAULT_PERCENTILES, FIO_IO_U_LIST_MAX_LEN, FIO_IO_U_PLAT_BITS,
    FIO_IO_U_PLAT_GROUP_NR, FIO_IO_U_PLAT_NR, FIO_IO_U_PLAT_VAL,
};
pub use sampler::{
    Folded, SampleSeries, SampleWindow, Sampler, FIO_DEFAULT_AVG_TIME_NS, MAX_KEPT_SECONDS,
    MAX_KEPT_WINDOWS,
};
pub use stats::{
    merge_jobs, DirStats, GroupRunStats, IoDepthDist, IoPrio, IoStat, JobReport, PrioStats, Report,
};
pub use text::{num2str, N2sUnit};
