//! Opening a target: a regular file that ssdlab creates and sizes, or a
//! block device that it writes only when told it may, and never while it
//! holds something.

use crate::safety;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What a run asks of its target.
#[derive(Debug, Clone)]
pub struct TargetRequest {
    pub path: PathBuf,
    /// Bytes the jobs need (the end of the furthest region given in bytes);
    /// None when some job takes the whole target.
    pub bytes_needed: Option<u64>,
    /// Whether any job writes or trims.
    pub writes: bool,
    /// `--allow-destructive`: a block device may be written.
    pub allow_destructive: bool,
    /// `--force`: a block device may be written even if it looks in use.
    pub force: bool,
}

/// What the target is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetKind {
    /// A regular file; `laid_out` bytes were written to create or extend it.
    File { laid_out: u64 },
    /// A block device, with the I/O scheduler the kernel runs for it.
    Block { kernel_scheduler: Option<String> },
}

/// An open target.
#[derive(Debug)]
pub struct Target {
    pub path: PathBuf,
    /// Opened with O_DIRECT (and O_EXCL for a written block device).
    pub file: File,
    pub kind: TargetKind,
    /// Bytes the target exports.
    pub bytes: u64,
    /// The smallest I/O unit and alignment O_DIRECT accepts.
    pub logical_block: u32,
}

/// A target that cannot be used, and why.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct TargetError {
    pub path: String,
    pub reason: String,
}

fn refuse(path: &Path, reason: impl Into<String>) -> TargetError {
    TargetError {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

/// Opens (and for a file, creates or extends) the target.
pub fn open(req: &TargetRequest) -> Result<Target, TargetError> {
    let path = &req.path;
    match fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => open_file(req, 0, true),
        Err(e) => Err(refuse(path, e.to_string())),
        Ok(m) if m.file_type().is_block_device() => open_block(req, &m),
        Ok(m) if m.is_file() => open_file(req, m.len(), false),
        Ok(_) => Err(refuse(path, "not a regular file or a block device")),
    }
}

/// A regular file: created (or extended) to what the jobs need and laid
/// out with data, as fio lays out its files, so that reads meet written
/// blocks and not holes. It never grows past what the jobs need.
fn open_file(req: &TargetRequest, len: u64, create: bool) -> Result<Target, TargetError> {
    let path = &req.path;
    let bytes = match (req.bytes_needed, create) {
        (Some(n), _) => n.max(len),
        (None, false) => len,
        (None, true) => {
            return Err(refuse(
                path,
                "does not exist, and a job takes the whole target: give each job a size= \
                 in bytes to create the file (fio needs one too)",
            ))
        }
    };
    if bytes == 0 {
        return Err(refuse(
            path,
            "is empty: give the jobs a size= to lay it out",
        ));
    }
    let laid_out = bytes - len;
    if laid_out > 0 {
        lay_out(path, len, bytes).map_err(|e| refuse(path, format!("laying out: {e}")))?;
    }
    let file = open_direct(path, true, false)?;
    // O_DIRECT on a file aligns to the logical block of the device under
    // its file system; a page when that is unknown.
    let dev = file.metadata().map(|m| m.dev()).unwrap_or(0);
    let logical_block =
        logical_block(&queue_dir(libc::major(dev), libc::minor(dev))).unwrap_or(4096);
    Ok(Target {
        path: path.clone(),
        file,
        kind: TargetKind::File { laid_out },
        bytes,
        logical_block,
    })
}

/// Writes `[from, to)` of the file at `path` with a pattern and syncs it.
fn lay_out(path: &Path, from: u64, to: u64) -> std::io::Result<()> {
    let mut f = OpenOptions::new().create(true).append(true).open(path)?;
    let mut chunk = vec![0u8; 1 << 20];
    crate::pattern::fill(&mut chunk, from);
    let mut at = from;
    while at < to {
        let n = (to - at).min(chunk.len() as u64) as usize;
        f.write_all(&chunk[..n])?;
        at += n as u64;
    }
    f.sync_all()
}

fn open_direct(path: &Path, write: bool, exclusive: bool) -> Result<File, TargetError> {
    let mut flags = libc::O_DIRECT;
    if exclusive {
        flags |= libc::O_EXCL;
    }
    let open = || {
        OpenOptions::new()
            .read(true)
            .write(write)
            .custom_flags(flags)
            .open(path)
    };
    // An io_uring instance lets go of its registered files after its
    // process has exited, so a previous run's exclusive claim on a block
    // device can outlive it by some milliseconds: retry a busy device for
    // up to two seconds.
    let mut result = open();
    for _ in 0..40 {
        match &result {
            Err(e) if exclusive && e.raw_os_error() == Some(libc::EBUSY) => {
                std::thread::sleep(std::time::Duration::from_millis(50));
                result = open();
            }
            _ => break,
        }
    }
    result.map_err(|e| {
        let why = match e.raw_os_error() {
            Some(libc::EINVAL) => format!("{e} (the file system may not support O_DIRECT)"),
            Some(libc::EBUSY) => format!("{e} (another user holds the device)"),
            _ => e.to_string(),
        };
        refuse(path, format!("cannot open with O_DIRECT: {why}"))
    })
}

/// A block device: read-only jobs may use any; jobs that write need
/// `--allow-destructive`, and one in use or holding data needs `--force`.
fn open_block(req: &TargetRequest, m: &fs::Metadata) -> Result<Target, TargetError> {
    let path = &req.path;
    let (major, minor) = (libc::major(m.rdev()), libc::minor(m.rdev()));
    if req.writes {
        check_writable(req, major, minor)?;
    }
    let mut file = open_direct(path, req.writes, req.writes)?;
    let bytes = std::io::Seek::seek(&mut file, std::io::SeekFrom::End(0))
        .map_err(|e| refuse(path, format!("cannot read its size: {e}")))?;
    let queue = queue_dir(major, minor);
    let logical_block = logical_block(&queue).unwrap_or(512);
    if let Some(n) = req.bytes_needed.filter(|&n| n > bytes) {
        return Err(refuse(
            path,
            format!("holds {bytes} bytes, and the jobs need {n}"),
        ));
    }
    Ok(Target {
        path: path.clone(),
        file,
        kind: TargetKind::Block {
            kernel_scheduler: kernel_scheduler(&queue),
        },
        bytes,
        logical_block,
    })
}

fn check_writable(req: &TargetRequest, major: u32, minor: u32) -> Result<(), TargetError> {
    let path = &req.path;
    if !req.allow_destructive {
        return Err(refuse(
            path,
            "is a block device and the jobs write to it: their data is lost; \
             give --allow-destructive to go on",
        ));
    }
    if req.force {
        return Ok(());
    }
    let mut why = safety::in_use(path, major, minor);
    let head = safety::read_head(path).map_err(|e| refuse(path, e.to_string()))?;
    if let Some(s) = safety::signature(&head) {
        why.push(format!("it holds {s}"));
    }
    if why.is_empty() {
        return Ok(());
    }
    Err(refuse(
        path,
        format!(
            "refused: {}; give --force as well if you mean to destroy it",
            why.join("; ")
        ),
    ))
}

/// The `queue/` sysfs directory (a partition's is its disk's).
fn queue_dir(major: u32, minor: u32) -> PathBuf {
    let dir = safety::sysfs_dir(major, minor);
    if dir.join("partition").exists() {
        dir.join("../queue")
    } else {
        dir.join("queue")
    }
}

fn logical_block(queue: &Path) -> Option<u32> {
    let text = fs::read_to_string(queue.join("logical_block_size")).ok()?;
    text.trim().parse().ok()
}

/// The scheduler in brackets in `queue/scheduler` (`[none] mq-deadline`).
fn kernel_scheduler(queue: &Path) -> Option<String> {
    let text = fs::read_to_string(queue.join("scheduler")).ok()?;
    let start = text.find('[')?;
    let end = text[start..].find(']')? + start;
    Some(text[start + 1..end].to_string())
}
