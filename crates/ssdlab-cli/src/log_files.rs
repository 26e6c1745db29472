//! The files of fio's logs (`write_lat_log`, `write_bw_log`,
//! `write_iops_log`) for `run`, in simulation and on a target.
//!
//! Each log goes to a temporary file beside its destination, created
//! before the run (so a missing directory fails at once) and filled as the
//! jobs complete I/Os. Only once the run and its report are done are the
//! files put in place: a failed run leaves no log behind, and none half
//! written. What the files hold is `ssdlab_sim::workload::fio_log`'s.

use crate::output::temp_beside;
use ssdlab_fio::{JobFile, JobSpec};
use ssdlab_sim::error::InputError;
use ssdlab_sim::workload::fio_job::FioJob;
use ssdlab_sim::workload::fio_log::{log_files, JobLogs, LogFile, LogKind};
use ssdlab_sim::workload::job_stats::JobStats;
use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Memory for the lines of all the logs together before they go to their
/// files: each log's share, between 8 KiB and 1 MiB.
const BUFFER_BUDGET: usize = 64 << 20;

/// A run's log files, in their temporary form until committed.
#[derive(Default)]
pub struct LogFiles {
    parts: Vec<Part>,
}

/// One job's log file.
struct Part {
    job: usize,
    file: LogFile,
    tmp: PathBuf,
}

impl LogFiles {
    /// A temporary file for every log the jobs write, and for each job
    /// (Some when it writes logs) what writes its logs there.
    pub fn open(jobfile: &JobFile) -> Result<(LogFiles, Vec<Option<JobLogs>>), InputError> {
        // fio numbers its jobs from 1 in file order, clones included.
        let named: Vec<Vec<LogFile>> = (jobfile.jobs.iter().enumerate())
            .map(|(i, spec)| log_files(spec, i + 1))
            .collect();
        let count = named.iter().map(Vec::len).sum::<usize>().max(1);
        let buffer = (BUFFER_BUDGET / count).clamp(8 << 10, 1 << 20);
        let mut files = LogFiles::default();
        let mut logs = Vec::with_capacity(named.len());
        for (job, (spec, named)) in jobfile.jobs.iter().zip(named).enumerate() {
            if named.is_empty() {
                logs.push(None);
                continue;
            }
            let mut writers: Vec<(LogKind, Box<dyn Write + Send>)> = Vec::new();
            for file in named {
                let tmp = create_temp(spec, &file)?;
                let spill = SpillFile {
                    path: tmp.clone(),
                    buf: Vec::new(),
                    cap: buffer,
                };
                writers.push((file.kind, Box::new(spill)));
                files.parts.push(Part { job, file, tmp });
            }
            logs.push(Some(JobLogs::new(spec, writers)));
        }
        Ok((files, logs))
    }

    /// On SIGINT or SIGTERM, removes the temporary files and exits as the
    /// signal would have (a simulated run has no handler of its own and
    /// would leave them behind).
    pub fn remove_on_signal(&self) -> Result<(), InputError> {
        if self.parts.is_empty() {
            return Ok(());
        }
        let tmps: Vec<PathBuf> = self.parts.iter().map(|p| p.tmp.clone()).collect();
        let term = [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];
        let mut signals = signal_hook::iterator::Signals::new(term)
            .map_err(|e| InputError::invalid("signals", e.to_string()))?;
        std::thread::spawn(move || {
            if let Some(sig) = signals.forever().next() {
                for t in &tmps {
                    let _ = fs::remove_file(t);
                }
                std::process::exit(128 + sig);
            }
        });
        Ok(())
    }

    /// Puts the logs in place once the run is over: a job's file is
    /// renamed over its destination; the jobs sharing a file
    /// (`per_job_logs=0`) are appended to it in the order fio writes them.
    pub fn commit(self, jobs: &[FioJob], stats: &[JobStats]) -> Result<(), InputError> {
        for (job, st) in jobs.iter().zip(stats) {
            if let Some(e) = st.logs.as_ref().and_then(JobLogs::error) {
                let what = format!("job '{}': log files", job.spec.name);
                return Err(InputError::invalid(what, e.to_string()));
            }
        }
        let mut by_dest: BTreeMap<&str, Vec<&Part>> = BTreeMap::new();
        for p in &self.parts {
            by_dest.entry(p.file.path.as_str()).or_default().push(p);
        }
        for (dest, mut parts) in by_dest {
            parts.sort_by_key(|p| write_order(p, jobs));
            put_in_place(Path::new(dest), &parts)
                .map_err(|e| InputError::invalid(dest, e.to_string()))?;
        }
        Ok(())
    }
}

impl Drop for LogFiles {
    fn drop(&mut self) {
        for p in &self.parts {
            // Gone already once put in place; otherwise the run failed.
            let _ = fs::remove_file(&p.tmp);
        }
    }
}

/// The option that asked for a log of `kind`.
fn option_of(kind: LogKind) -> &'static str {
    match kind {
        LogKind::Lat | LogKind::Slat | LogKind::Clat => "write_lat_log",
        LogKind::Bw => "write_bw_log",
        LogKind::Iops => "write_iops_log",
    }
}

/// Creates the (empty) temporary file of `file`, proving its directory
/// exists and is writable; an error names the option's line.
fn create_temp(spec: &JobSpec, file: &LogFile) -> Result<PathBuf, InputError> {
    let option = option_of(file.kind);
    let fail = |m: String| {
        let (f, line) = spec.line_of(option);
        InputError::At {
            file: f.to_string(),
            line,
            field: format!("job '{}': {option}", spec.name),
            message: format!("log file {}: {m}", file.path),
        }
    };
    let dest = Path::new(&file.path);
    if dest.is_dir() {
        return Err(fail("is a directory".into()));
    }
    let tmp = temp_beside(dest).map_err(fail)?;
    File::options()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(|e| fail(format!("cannot be written: {e}")))?;
    Ok(tmp)
}

/// When fio writes a part of a shared file: a job's own logs as the job
/// ends (by its end, then its number), the sampled ones when the run ends
/// (by job number).
fn write_order(p: &Part, jobs: &[FioJob]) -> (bool, u64, usize) {
    let end = if p.file.at_run_end {
        0
    } else {
        jobs.get(p.job).map_or(0, |j| j.end_time)
    };
    (p.file.at_run_end, end, p.job)
}

/// Puts the parts of one destination in place: renamed over it when it is
/// one job's; otherwise appended, after what the file already holds when
/// it is shared (fio appends), into a new file renamed over it.
fn put_in_place(dest: &Path, parts: &[&Part]) -> io::Result<()> {
    if let [only] = parts {
        if !only.file.shared {
            File::open(&only.tmp)?.sync_all()?;
            return fs::rename(&only.tmp, dest);
        }
    }
    let joined = temp_beside(dest).map_err(io::Error::other)?;
    let keep_old = parts.iter().any(|p| p.file.shared) && dest.exists();
    let written = join_into(&joined, keep_old.then_some(dest), parts)
        .and_then(|()| fs::rename(&joined, dest));
    if written.is_err() {
        let _ = fs::remove_file(&joined);
    }
    written?;
    for p in parts {
        let _ = fs::remove_file(&p.tmp);
    }
    Ok(())
}

/// Writes `old` (when given) then every part, in order, to a new file `to`.
fn join_into(to: &Path, old: Option<&Path>, parts: &[&Part]) -> io::Result<()> {
    let mut out = BufWriter::new(File::options().write(true).create_new(true).open(to)?);
    let sources = old.into_iter().chain(parts.iter().map(|p| p.tmp.as_path()));
    for src in sources {
        io::copy(&mut File::open(src)?, &mut out)?;
    }
    out.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// A log's lines, gathered in memory and appended to its file a buffer at
/// a time: a file is open only while written, so thousands of jobs' logs
/// need no more file descriptors than one.
struct SpillFile {
    path: PathBuf,
    buf: Vec<u8>,
    cap: usize,
}

impl SpillFile {
    fn spill(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            let mut f = OpenOptions::new().append(true).open(&self.path)?;
            f.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl Write for SpillFile {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= self.cap {
            self.spill()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.spill()
    }
}
