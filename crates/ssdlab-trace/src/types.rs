use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::ParseFormatError;

/// Bytes per sector / LBA unit in the sector-based formats.
pub const SECTOR_SIZE: u64 = 512;

/// Default cap on one line's length (bytes, without the newline). Longer
/// lines are malformed; the reader's line buffer never grows past this.
pub const DEFAULT_MAX_LINE_LEN: usize = 4096;

/// Direction of one traced request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceOp {
    Read,
    Write,
    Trim,
}

/// One request of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Nanoseconds from the trace start. Relative formats keep the time as
    /// given; absolute formats (MSR FILETIME) are rebased so that the first
    /// record is 0. Not sorted or checked for monotonicity.
    pub time_ns: u64,
    pub op: TraceOp,
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes, always > 0.
    pub len: u32,
    /// REQ_SYNC: a process waits for it. Reads always are; writes and trims
    /// when the format says so (blkparse RWBS `S`, or `F` for FUA and
    /// preflush); formats without the flag mark everything sync, as direct
    /// I/O is.
    pub sync: bool,
    /// 1-based line number in the trace file.
    pub line: u64,
}

pub use crate::formats::Format;

impl Format {
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Whether the format can express [`TraceOp::Trim`].
    pub fn supports_trim(self) -> bool {
        self.spec().supports_trim
    }

    /// Time resolution in ns of what [`crate::write_record`] writes.
    pub fn time_resolution_ns(self) -> u64 {
        self.spec().time_resolution_ns
    }

    /// Unit (bytes) of the offset field.
    pub fn offset_unit(self) -> u64 {
        self.spec().offset_unit
    }

    /// Unit (bytes) of the length field.
    pub fn len_unit(self) -> u64 {
        self.spec().len_unit
    }

    /// The record that reading back `write_record(rec)` yields (with default
    /// [`ReadOptions`]), apart from `line`: time truncated to the format's
    /// resolution, offset rounded down to its unit, and length grown so that
    /// the written extent still covers the original end, rounded up to the
    /// length unit. Lengths that no longer fit `u32` are not representable
    /// (the reader then reports the line as malformed).
    pub fn quantize(self, rec: &TraceRecord) -> TraceRecord {
        let res = self.time_resolution_ns();
        let ou = self.offset_unit();
        let lu = self.len_unit();
        let offset = rec.offset / ou * ou;
        let end = rec.offset as u128 + rec.len as u128;
        let span = end - offset as u128;
        let span = span.div_ceil(lu as u128) * lu as u128;
        TraceRecord {
            time_ns: rec.time_ns / res * res,
            op: rec.op,
            offset,
            len: u32::try_from(span).unwrap_or(u32::MAX),
            sync: !self.spec().has_sync_flag || rec.sync || rec.op == TraceOp::Read,
            line: rec.line,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = ParseFormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| ParseFormatError {
                name: s.to_string(),
                expected: Format::NAMES.join(", "),
            })
    }
}

/// Which blkparse event marks a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlkparseAction {
    /// `Q`: the request arrives at the block layer (default).
    #[default]
    Queue,
    /// `D`: the request is issued to the driver.
    Issue,
    /// `C`: the request completes.
    Complete,
}

impl BlkparseAction {
    pub fn code(self) -> &'static str {
        match self {
            BlkparseAction::Queue => "Q",
            BlkparseAction::Issue => "D",
            BlkparseAction::Complete => "C",
        }
    }
}

/// Unit of a plain integer time field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeUnit {
    Ns,
    Us,
    Ms,
    S,
}

impl TimeUnit {
    pub fn ns(self) -> u64 {
        match self {
            TimeUnit::Ns => 1,
            TimeUnit::Us => 1_000,
            TimeUnit::Ms => 1_000_000,
            TimeUnit::S => 1_000_000_000,
        }
    }
}

/// Reader options.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReadOptions {
    /// Count malformed lines in [`crate::TraceReader::skipped`] and go on,
    /// instead of yielding an error for them.
    pub skip_bad_lines: bool,
    /// Keep only one device: MSR `DiskNumber`, SPC `ASU`, MQSim `device`
    /// (numbers, compared numerically), blkparse `maj,min` (e.g. `"8,0"`),
    /// fio iolog file name (exact). Other devices' lines are skipped silently
    /// (but still validated).
    pub device: Option<String>,
    /// blkparse event kept as the request (default `Q`).
    pub blkparse_action: BlkparseAction,
    /// Unit of the MQSim arrival time (default ns).
    pub mqsim_time_unit: TimeUnit,
    /// Unit of the fio iolog v3 timestamp (default ms). Note: fio ≥ 3.31
    /// itself writes microseconds (`utime_since_now`); use `Us` for logs
    /// recorded by fio.
    pub fio_v3_time_unit: TimeUnit,
    /// Longest accepted line in bytes (default 4096). Longer lines are
    /// malformed; memory stays bounded by this.
    pub max_line_len: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            skip_bad_lines: false,
            device: None,
            blkparse_action: BlkparseAction::Queue,
            mqsim_time_unit: TimeUnit::Ns,
            fio_v3_time_unit: TimeUnit::Ms,
            max_line_len: DEFAULT_MAX_LINE_LEN,
        }
    }
}
