//! One job's log files, fed with its completed I/Os.

use super::line::{LineFormat, LogEntry};
use super::window::{Averager, IntervalCounter};
use super::LogKind;
use crate::workload::fio_job::IoSample;
use ssdlab_fio::JobSpec;
use ssdlab_protocol::Ns;
use std::io::{self, Write};

const NS_PER_MS: u64 = 1_000_000;

/// The logs a job writes, each to its own writer, entry by entry as the
/// I/Os complete (nothing is kept but the open windows).
pub struct JobLogs {
    format: LineFormat,
    logs: Vec<Log>,
    /// Log times count from here: the end of the job's ramp time (fio
    /// restarts its clock there, and at a statistics reset).
    origin_ns: Ns,
    /// The first write that failed; later entries are dropped.
    error: Option<io::Error>,
}

struct Log {
    kind: LogKind,
    out: Box<dyn Write + Send>,
    mode: Mode,
}

enum Mode {
    /// `log_avg_msec=0`: an entry per I/O.
    EachIo,
    /// A latency log averaged over windows.
    Averaged(Averager),
    /// Bandwidth or IOPS sampled every period.
    Sampled(IntervalCounter),
}

impl JobLogs {
    /// The logs of `spec`, written to `writers` (one per log file, in the
    /// order `log_files` names them).
    pub fn new(spec: &JobSpec, writers: Vec<(LogKind, Box<dyn Write + Send>)>) -> JobLogs {
        let logs = writers
            .into_iter()
            .map(|(kind, out)| {
                let period = super::log_period_ms(spec, kind);
                // Which logs are sampled is `LogKind::is_sampled`'s to say
                // (the CLI orders shared files by it too).
                let mode = if kind.is_sampled(spec) {
                    Mode::Sampled(IntervalCounter::new(period, kind == LogKind::Bw))
                } else if period == 0 {
                    Mode::EachIo
                } else {
                    Mode::Averaged(Averager::new(period, spec.log_max_value))
                };
                Log { kind, out, mode }
            })
            .collect();
        JobLogs {
            format: LineFormat {
                offset: spec.log_offset,
                prio: spec.log_prio,
            },
            logs,
            origin_ns: 0,
            error: None,
        }
    }

    /// The job's measured period begins at `origin_ns` (the end of its
    /// ramp time, or a statistics reset: entries already written stay).
    pub fn begin(&mut self, origin_ns: Ns) {
        self.origin_ns = origin_ns;
        for log in &mut self.logs {
            if let Mode::Sampled(c) = &mut log.mode {
                c.restart();
            }
        }
    }

    /// A read, write or trim completed (not a sync).
    pub fn record(&mut self, s: &IoSample) {
        let since_ns = s.done_ns.saturating_sub(self.origin_ns);
        let time_ms = since_ns / NS_PER_MS;
        let dir = s.dir.index() as u8;
        for log in &mut self.logs {
            let Some(value) = value_of(log.kind, s) else {
                continue;
            };
            match &mut log.mode {
                Mode::EachIo => {
                    let e = LogEntry {
                        time_ms,
                        value,
                        dir,
                        bs: u64::from(s.bytes),
                        offset: s.offset,
                        ioprio: s.ioprio,
                    };
                    put(self.format, &mut log.out, &e, &mut self.error);
                }
                Mode::Averaged(a) => {
                    if let Some(e) = a.add(time_ms, dir, value) {
                        put(self.format, &mut log.out, &e, &mut self.error);
                    }
                }
                Mode::Sampled(c) => {
                    let amount = match log.kind {
                        LogKind::Bw => u64::from(s.bytes),
                        _ => 1,
                    };
                    for e in c.add(since_ns, dir, amount).into_iter().flatten() {
                        put(self.format, &mut log.out, &e, &mut self.error);
                    }
                }
            }
        }
    }

    /// The job ended at `end_ns`: the open windows' entries are written
    /// and every writer flushed.
    pub fn close(&mut self, end_ns: Ns) {
        let since_ns = end_ns.saturating_sub(self.origin_ns);
        for log in &mut self.logs {
            let last = match &mut log.mode {
                Mode::EachIo => [None; 3],
                Mode::Averaged(a) => a.flush(since_ns / NS_PER_MS),
                Mode::Sampled(c) => c.flush(since_ns),
            };
            for e in last.into_iter().flatten() {
                put(self.format, &mut log.out, &e, &mut self.error);
            }
            if let Err(e) = log.out.flush() {
                self.error.get_or_insert(e);
            }
        }
    }

    /// The first write that failed, if one did.
    pub fn error(&self) -> Option<&io::Error> {
        self.error.as_ref()
    }
}

/// An I/O's value in a log of `kind`, None when that log has none for it
/// (submission latency of a sync engine). Bandwidth per I/O is fio's
/// `bytes·10⁶/clat_ns`, IOPS per I/O is 1.
fn value_of(kind: LogKind, s: &IoSample) -> Option<u64> {
    match kind {
        LogKind::Lat => Some(s.lat_ns),
        LogKind::Clat => Some(s.clat_ns),
        LogKind::Slat => s.slat_ns,
        LogKind::Bw => Some(
            (u64::from(s.bytes) * 1_000_000)
                .checked_div(s.clat_ns)
                .unwrap_or(0),
        ),
        LogKind::Iops => Some(1),
    }
}

/// Writes one entry unless a write has failed already.
fn put(format: LineFormat, out: &mut dyn Write, e: &LogEntry, error: &mut Option<io::Error>) {
    if error.is_none() {
        if let Err(err) = format.write(e, out) {
            *error = Some(err);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_protocol::Dir;
    use ssdlab_sched::IoPrio;
    use std::sync::{Arc, Mutex};

    /// A writer the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    fn sample(done_ms: u64, dir: Dir, clat_us: u64) -> IoSample {
        IoSample {
            dir,
            bytes: 4096,
            offset: 8192,
            prio: IoPrio::NONE,
            ioprio: 0,
            done_ns: done_ms * NS_PER_MS + 300_000,
            lat_ns: clat_us * 1000 + 2000,
            clat_ns: clat_us * 1000,
            slat_ns: None,
            is_sync_op: false,
        }
    }

    fn logs(options: &str, kinds: &[LogKind]) -> (JobLogs, Vec<Shared>) {
        let text = format!("[j]\nrw=randrw\n{options}\n");
        let spec = ssdlab_fio::parse_str(&text, "t.fio", &|_| None)
            .unwrap()
            .jobs[0]
            .clone();
        let outs: Vec<Shared> = kinds.iter().map(|_| Shared::default()).collect();
        let writers = kinds
            .iter()
            .zip(&outs)
            .map(|(&k, o)| (k, Box::new(o.clone()) as Box<dyn Write + Send>))
            .collect();
        (JobLogs::new(&spec, writers), outs)
    }

    #[test]
    fn each_io_is_a_line_timed_from_the_origin() {
        let kinds = [LogKind::Clat, LogKind::Slat, LogKind::Bw, LogKind::Iops];
        let (mut l, outs) = logs("log_offset=1", &kinds);
        l.begin(5 * NS_PER_MS);
        l.record(&sample(7, Dir::Write, 100));
        l.close(10 * NS_PER_MS);
        assert_eq!(outs[0].text(), "2, 100000, 1, 4096, 8192, 0\n");
        // A sync engine's I/O has no submission latency: no line.
        assert_eq!(outs[1].text(), "");
        // 4096 B in 100 µs: 40,960 (fio's bytes·10⁶/ns).
        assert_eq!(outs[2].text(), "2, 40960, 1, 4096, 8192, 0\n");
        assert_eq!(outs[3].text(), "2, 1, 1, 4096, 8192, 0\n");
    }

    #[test]
    fn averaged_logs_write_windows() {
        let (mut l, outs) = logs("log_avg_msec=100", &[LogKind::Lat, LogKind::Iops]);
        l.begin(0);
        for ms in [10, 50, 120, 130, 250] {
            l.record(&sample(ms, Dir::Read, 100));
        }
        l.close(260 * NS_PER_MS);
        // Latency: 10, 50, 120 close the first window at 120; 130 and 250
        // the next at 250; nothing is left for the end.
        assert_eq!(
            outs[0].text(),
            "120, 102000, 0, 0, 0\n250, 102000, 0, 0, 0\n"
        );
        // IOPS: two I/Os in 0..100 ms, two in 100..200; 200..300 is open
        // at the end.
        assert_eq!(outs[1].text(), "100, 20, 0, 0, 0\n200, 20, 0, 0, 0\n");
    }
}
