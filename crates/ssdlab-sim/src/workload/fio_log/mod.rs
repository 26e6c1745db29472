//! fio's per-job log files (`write_lat_log`, `write_bw_log`,
//! `write_iops_log`), with fio 3.33's names, columns and windowing (HOWTO:
//! the options of those names, `log_avg_msec`, `log_max_value`,
//! `log_offset`, `log_prio`, `per_job_logs`, and "Log File Formats").
//!
//! This module decides what each file holds and writes it to whatever
//! writer it is given; where the files go, and that a failed run leaves
//! none, is the caller's (the CLI writes temporary files and renames them).

mod job_logs;
mod line;
mod period;
mod window;

pub use job_logs::JobLogs;
pub use line::{LineFormat, LogEntry};
pub use period::{log_period_ms, report_windows_ms};

use ssdlab_fio::JobSpec;

/// The kinds of log fio writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogKind {
    /// Total latency (ns).
    Lat,
    /// Submission latency (ns); empty for a sync engine, as in fio.
    Slat,
    /// Completion latency (ns).
    Clat,
    /// Bandwidth (KiB/s).
    Bw,
    /// IOPS.
    Iops,
}

impl LogKind {
    /// The name in the file's (`PREFIX_clat.1.log`).
    pub fn name(self) -> &'static str {
        match self {
            LogKind::Lat => "lat",
            LogKind::Slat => "slat",
            LogKind::Clat => "clat",
            LogKind::Bw => "bw",
            LogKind::Iops => "iops",
        }
    }

    /// Whether fio samples the log over intervals (bandwidth and IOPS
    /// with `log_avg_msec` > 0) rather than at each completion.
    pub fn is_sampled(self, spec: &JobSpec) -> bool {
        matches!(self, LogKind::Bw | LogKind::Iops) && log_period_ms(spec, self) > 0
    }
}

/// One log file of a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFile {
    pub kind: LogKind,
    /// As fio names it, relative to the current directory unless the
    /// prefix says otherwise.
    pub path: String,
    /// `per_job_logs=0`: the jobs of one name append to this one file (fio
    /// opens it for appending, so an earlier run's lines stay).
    pub shared: bool,
    /// fio writes it when the whole run ends (a sampled log, written by
    /// its helper thread), not when the job ends.
    pub at_run_end: bool,
}

/// The log files of a job, `number` being its place in the job file
/// counting clones, from 1 (fio's job number): `PREFIX_KIND.N.log`, or
/// `PREFIX_KIND.log` with `per_job_logs=0`. PREFIX is the option's value,
/// or the job's name when the option has none.
pub fn log_files(spec: &JobSpec, number: usize) -> Vec<LogFile> {
    let asked = [
        (
            &spec.write_lat_log,
            &[LogKind::Lat, LogKind::Slat, LogKind::Clat][..],
        ),
        (&spec.write_bw_log, &[LogKind::Bw][..]),
        (&spec.write_iops_log, &[LogKind::Iops][..]),
    ];
    let mut files = Vec::new();
    for (option, kinds) in asked {
        let Some(prefix) = option else { continue };
        let prefix = if prefix.is_empty() {
            &spec.name
        } else {
            prefix
        };
        for &kind in kinds {
            let path = if spec.per_job_logs {
                format!("{prefix}_{}.{number}.log", kind.name())
            } else {
                format!("{prefix}_{}.log", kind.name())
            };
            files.push(LogFile {
                kind,
                path,
                shared: !spec.per_job_logs,
                at_run_end: kind.is_sampled(spec),
            });
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(options: &str) -> JobSpec {
        let text = format!("[global]\n{options}\n[seq]\nrw=read\n[rand]\nrw=randread\nnumjobs=2\n");
        let jf = ssdlab_fio::parse_str(&text, "t.fio", &|_| None).unwrap();
        jf.jobs[2].clone()
    }

    fn paths(files: &[LogFile]) -> Vec<&str> {
        files.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn files_are_named_as_fio_names_them() {
        // The clone of `rand` is the file's third job.
        let s = spec("write_lat_log\nwrite_bw_log=out/x\nwrite_iops_log=");
        assert_eq!(
            paths(&log_files(&s, 3)),
            vec![
                "rand_lat.3.log",
                "rand_slat.3.log",
                "rand_clat.3.log",
                "out/x_bw.3.log",
                "rand_iops.3.log"
            ]
        );
        let files = log_files(&s, 3);
        assert!(files.iter().all(|f| !f.shared && !f.at_run_end));
        assert!(log_files(&spec("rw=read"), 1).is_empty());
    }

    #[test]
    fn without_per_job_logs_the_jobs_of_a_name_share_a_file() {
        let s = spec("write_bw_log=b\nwrite_lat_log=l\nper_job_logs=0\nlog_avg_msec=100");
        let files = log_files(&s, 3);
        assert_eq!(
            paths(&files),
            vec!["l_lat.log", "l_slat.log", "l_clat.log", "b_bw.log"]
        );
        assert!(files.iter().all(|f| f.shared));
        // Averaged bandwidth is sampled, and written when the run ends.
        let at_end: Vec<bool> = files.iter().map(|f| f.at_run_end).collect();
        assert_eq!(at_end, vec![false, false, false, true]);
    }
}
