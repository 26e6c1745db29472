//! Per-second time series as CSV.

use std::fmt::Write as _;

/// One series: job name, direction name and `(second, bytes, ios)` rows
/// (as produced by [`crate::Sampler::per_second_series`]).
pub type Series = (String, String, Vec<(u64, u64, u64)>);

/// CSV with header `job,dir,second,bytes,ios,bw_kib_s,iops`.
/// `bw_kib_s` is `bytes / 1024` (truncated, as fio's KiB/s figures) and
/// `iops` equals `ios` since rows are one second long. Fields containing
/// commas, quotes or line breaks are quoted (RFC 4180).
pub fn timeseries_csv(series: &[Series]) -> String {
    let mut out = String::from("job,dir,second,bytes,ios,bw_kib_s,iops\n");
    for (job, dir, rows) in series {
        let (job, dir) = (field(job), field(dir));
        for &(sec, bytes, ios) in rows {
            let _ = writeln!(
                out,
                "{job},{dir},{sec},{bytes},{ios},{},{ios}",
                bytes / 1024
            );
        }
    }
    out
}

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
