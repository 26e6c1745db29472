//! What a job hands the block layer, and what it gets back.

use ssdlab_protocol::{Dir, Ns};
use ssdlab_sched::IoPrio;

/// One I/O as a job submits it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bio {
    pub id: u64,
    pub job: u32,
    pub dir: Dir,
    /// Start in 512-byte sectors.
    pub sector: u64,
    pub bytes: u32,
    pub prio: IoPrio,
    pub sync: bool,
    /// REQ_PREFLUSH (with no data: an empty flush).
    pub flush: bool,
    /// REQ_FUA.
    pub fua: bool,
    /// When the job issued it (before the submission cost).
    pub issue_ns: Ns,
    /// When it entered the block layer.
    pub submit_ns: Ns,
}

impl Bio {
    /// An empty REQ_PREFLUSH: what fsync sends once the data is down.
    pub fn is_empty_flush(&self) -> bool {
        self.flush && self.bytes == 0
    }
}

/// A bio has ended; the job sees it at `time`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BioDone {
    pub bio: Bio,
    pub time: Ns,
}
