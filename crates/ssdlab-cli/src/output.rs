//! Where a command's files go, checked before any simulation starts.
//!
//! A regular file (or a path that does not exist yet) is replaced
//! atomically: the text goes to a temporary file beside it, renamed over it
//! once complete, so a failed or killed run never leaves half a report. A
//! symlink is followed and its target is what gets written. A character
//! device or FIFO (`/dev/null`, `/dev/stdout`, a named pipe) is written in
//! place, never replaced; `-` is standard output. Directories, block devices
//! and sockets are refused.

use crate::choices::OutputFormat;
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::report;
use ssdlab_sim::workload::replay_setup::{OpenedReplay, ReplayRequest};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// A checked output destination.
#[derive(Debug)]
pub enum Output {
    Stdout,
    /// Written in place (a character device or a FIFO).
    InPlace(PathBuf),
    /// Replaced atomically through `tmp`, created once (and so proven
    /// writable) when the destination was checked, written when the output
    /// is, and removed if never committed.
    Replace {
        path: PathBuf,
        tmp: PathBuf,
    },
}

impl Output {
    /// Checks `path`, given with the command-line option `flag`.
    pub fn check(path: &Path, flag: &str) -> Result<Output, InputError> {
        if path.as_os_str() == "-" {
            return Ok(Output::Stdout);
        }
        let fail = |p: &Path, m: String| InputError::invalid(flag, format!("{}: {m}", p.display()));
        if path.as_os_str().to_string_lossy().ends_with('/') {
            return Err(fail(
                path,
                "names a directory (it ends in /); name a file".into(),
            ));
        }
        let target = follow_links(path).map_err(|m| fail(path, m))?;
        match std::fs::metadata(&target) {
            Ok(meta) => {
                let t = meta.file_type();
                if t.is_dir() {
                    return Err(fail(&target, "is a directory".into()));
                }
                if t.is_block_device() || t.is_socket() {
                    return Err(fail(
                        &target,
                        "is a block device or a socket; write a regular file".into(),
                    ));
                }
                if t.is_char_device() || t.is_fifo() {
                    return Ok(Output::InPlace(target));
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(fail(&target, e.to_string())),
        }
        let tmp = temp_beside(&target).map_err(|m| fail(&target, m))?;
        // Proven writable now, created again when written: a run killed
        // before its end leaves no temporary file behind.
        File::options()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .and_then(|_| std::fs::remove_file(&tmp))
            .map_err(|e| fail(&target, format!("cannot be written: {e}")))?;
        Ok(Output::Replace { path: target, tmp })
    }

    /// The path written in the end (for messages), `-` for stdout.
    pub fn display(&self) -> String {
        match self {
            Output::Stdout => "-".into(),
            Output::InPlace(p) | Output::Replace { path: p, .. } => p.display().to_string(),
        }
    }

    /// Whether two outputs would write the same file, or both standard
    /// output, however their paths are spelled (`r.txt`, `./r.txt`).
    pub fn same_as(&self, other: &Output) -> bool {
        match (self, other) {
            (Output::Stdout, Output::Stdout) => true,
            (Output::InPlace(a), Output::InPlace(b))
            | (Output::Replace { path: a, .. }, Output::Replace { path: b, .. }) => {
                normalized(a) == normalized(b)
            }
            _ => false,
        }
    }

    /// Writes `text` without putting a replaced file in place: a command
    /// with several outputs writes them all, then commits them, so that a
    /// failed write leaves none of them changed.
    pub fn write_uncommitted(&self, text: &str) -> Result<(), InputError> {
        let name = self.display();
        let err = |e: std::io::Error| InputError::invalid(&name, e.to_string());
        let mut w = self.writer()?;
        w.write_all(text.as_bytes()).map_err(err)?;
        w.flush().map_err(err)
    }

    /// A writer for streaming output; call [`Output::commit`] when done.
    pub fn writer(&self) -> Result<Box<dyn Write>, InputError> {
        let err = |e: std::io::Error| InputError::invalid(self.display(), e.to_string());
        Ok(match self {
            Output::Stdout => Box::new(std::io::stdout().lock()),
            Output::InPlace(p) => Box::new(OpenOptions::new().write(true).open(p).map_err(err)?),
            Output::Replace { tmp, .. } => {
                Box::new(std::io::BufWriter::new(File::create(tmp).map_err(err)?))
            }
        })
    }

    /// Puts a replaced file in place (the temporary file is complete).
    pub fn commit(self) -> Result<(), InputError> {
        if let Output::Replace { path, tmp } = &self {
            let err = |e: std::io::Error| InputError::invalid(self.display(), e.to_string());
            File::open(tmp).and_then(|f| f.sync_all()).map_err(err)?;
            std::fs::rename(tmp, path).map_err(err)?;
        }
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Output::Replace { tmp, .. } = self {
            // Gone already once renamed; otherwise the run failed.
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Writes to standard output; a closed or full stdout is an error.
pub fn write_stdout(text: &str) -> Result<(), InputError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| InputError::invalid("stdout", e.to_string()))
}

/// `path` with its directory made absolute and canonical (the directory
/// exists once checked), so that two spellings of one file compare equal.
fn normalized(path: &Path) -> PathBuf {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(dir), path.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => path.to_path_buf(),
    }
}

/// The final target of `path` through any chain of symlinks (a dangling
/// link names the file to create).
fn follow_links(path: &Path) -> Result<PathBuf, String> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p).map_err(|e| e.to_string())?;
                p = match p.parent() {
                    Some(dir) if to.is_relative() => dir.join(to),
                    _ => to,
                };
            }
            _ => return Ok(p),
        }
    }
    Err("too many levels of symbolic links".into())
}

/// A fresh temporary name in the destination's directory (so the rename
/// stays on one file system).
pub(crate) fn temp_beside(target: &Path) -> Result<PathBuf, String> {
    let name = target
        .file_name()
        .ok_or_else(|| "names no file".to_string())?
        .to_string_lossy();
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.is_dir() {
        return Err(format!("directory {} does not exist", dir.display()));
    }
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    Ok(dir.join(format!(".{name}.ssdlab-tmp-{}-{n}", std::process::id())))
}

/// Prints JSON to stdout, pretty and with a trailing newline.
pub fn print_json<T: serde::Serialize>(v: &T) -> Result<(), InputError> {
    let s =
        serde_json::to_string_pretty(v).map_err(|e| InputError::invalid("json", e.to_string()))?;
    println!("{s}");
    Ok(())
}

/// Where a run's report goes.
pub struct Outputs {
    pub format: OutputFormat,
    pub output: Option<Output>,
    pub timeseries: Option<Output>,
}

/// Says on stderr when the time series left seconds out (a run of days).
pub fn warn_if_series_capped(stats: &[ssdlab_sim::workload::job_stats::JobStats], out: &Outputs) {
    let left_out = report::seconds_left_out(stats);
    if out.timeseries.is_some() && left_out > 0 {
        eprintln!(
            "ssdlab: the time series keeps the first {} seconds with I/O of each job and \
             direction; {left_out} later seconds are left out of it (not of the report)",
            ssdlab_metrics::MAX_KEPT_SECONDS
        );
    }
}

/// Writes a report (fio text or JSON, stdout or a file) and its time
/// series. Both are written before either is committed: a failed write
/// leaves neither file changed.
pub fn write_report(
    rep: &ssdlab_metrics::Report,
    timeseries: &str,
    out: Outputs,
) -> Result<(), InputError> {
    let text = match out.format {
        OutputFormat::Json => rep.to_fio_json_string(),
        OutputFormat::Normal => rep.to_normal_text(),
    };
    if let Some(ts) = &out.timeseries {
        ts.write_uncommitted(timeseries)?;
    }
    match &out.output {
        Some(o) => o.write_uncommitted(&text)?,
        None => crate::output::write_stdout(&text)?,
    }
    if let Some(ts) = out.timeseries {
        ts.commit()?;
    }
    match out.output {
        Some(o) => o.commit(),
        None => Ok(()),
    }
}

/// Says on stderr which format was detected, when none was given.
pub fn note_detected(request: &ReplayRequest, opened: &OpenedReplay) {
    if let Some(d) = &opened.detected {
        eprintln!(
            "ssdlab: {}: format {} detected ({} requests in the first {} lines); \
             give --format to choose another",
            request.trace.display(),
            d.format.name(),
            d.records,
            d.lines
        );
    }
}
