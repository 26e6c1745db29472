//! Block I/O trace readers and writers for ssdlab.
//!
//! Supported formats ([`Format`]): blkparse text, MSR Cambridge CSV, SPC
//! CSV, MQSim ASCII and fio iolog v2/v3. Each lives in one file of
//! `formats/`, whose comment gives its line layout, time, offset and length
//! units and operations, and is named once in the `formats!` registry there.
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
mod formats;
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
pub use formats::{Format, FIO_IOLOG_FILENAME, MSR_FILETIME_BASE, MSR_HOSTNAME};
pub use reader::{open, TraceReader};
pub use synth::{
    profile, write_trace, Profile, Synth, SynthOptions, TraceStats, OVERWRITE_RING, PAGE_BYTES,
    PROFILES,
};
pub use types::{
    BlkparseAction, ReadOptions, TimeUnit, TraceOp, TraceRecord, DEFAULT_MAX_LINE_LEN, SECTOR_SIZE,
};
pub use write::{write_header, write_record};
