use serde::{Deserialize, Serialize};

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
