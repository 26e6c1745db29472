//! Block I/O trace readers and writers for ssdlab.
//!
//! Supported formats ([`Format`]):
//!
//! | name | line layout | time | offset | length | ops |
//! |---|---|---|---|---|---|
//! | `blkparse` | `maj,min cpu seq sec.nsec pid action RWBS sector + nblocks [process]` | seconds.nanoseconds from trace start | 512 B sectors | 512 B blocks | RWBS `D`/`E` trim, `W` write, `R` read; `S` or `F` REQ_SYNC |
//! | `msr` | `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` | Windows FILETIME (100 ns), rebased to the first record | bytes | bytes | `Read` / `Write` |
//! | `spc` | `ASU,LBA,Size,Opcode,Timestamp[,…]` | seconds (decimal) from start | 512 B blocks | bytes | `r` / `w` |
//! | `mqsim` | `arrival_time device start_LBA size type` | ns (configurable) | 512 B sectors | 512 B sectors | `0` write, `1` read |
//! | `fio-iolog` | v2 `file action offset length`, v3 `ts file action offset length` | v2: none (0); v3: ms (configurable) | bytes | bytes | `read` / `write` / `trim` |
//!
//! Readers are streaming ([`TraceReader`]): they hold one bounded line buffer
//! and O(1) state, never the whole trace. Malformed lines produce a
//! [`TraceError`] naming the file, the line and the field, or are counted and
//! skipped with [`ReadOptions::skip_bad_lines`]. No input makes them panic.
//!
//! Writers ([`write_header`], [`write_record`]) produce each format so that
//! reading back gives the same records up to the format's resolution
//! ([`Format::quantize`]).

mod detect;
mod error;
mod lines;
mod parse;
mod reader;
pub mod synth;
mod types;
mod write;

pub use detect::{detect, fits, Detected, Fit, DETECT_LINES};
pub use error::{ParseFormatError, TraceError};

/// The latest time a trace record may carry (100 years in ns, the same
/// limit as job files): a record beyond it is a malformed line.
pub const MAX_TIME_NS: u64 = 100 * 365 * 86_400 * 1_000_000_000;
pub use reader::{open, TraceReader};
pub use synth::{
    profile, write_trace, Profile, Synth, SynthOptions, TraceStats, OVERWRITE_RING, PAGE_BYTES,
    PROFILES,
};
pub use types::{
    BlkparseAction, Format, ReadOptions, TimeUnit, TraceOp, TraceRecord, DEFAULT_MAX_LINE_LEN,
    SECTOR_SIZE,
};
pub use write::{write_header, write_record, FIO_IOLOG_FILENAME, MSR_FILETIME_BASE, MSR_HOSTNAME};
