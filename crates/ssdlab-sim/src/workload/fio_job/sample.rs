//! What a job's statistics and logs see of a completed I/O.

use super::FioJob;
use crate::host::Bio;
use ssdlab_protocol::{Dir, Ns};
use ssdlab_sched::IoPrio;

/// A completed I/O as the statistics see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoSample {
    pub dir: Dir,
    pub bytes: u32,
    /// Byte offset on the device (fio's `io_u->offset`).
    pub offset: u64,
    pub prio: IoPrio,
    /// The priority as fio keeps it (`io_u->ioprio`: class << 13 | level,
    /// 0 when the job sets none), for the logs' priority column.
    pub ioprio: u16,
    pub done_ns: Ns,
    pub lat_ns: Ns,
    pub clat_ns: Ns,
    /// Submission latency; None for synchronous engines (fio reports none).
    pub slat_ns: Option<Ns>,
    /// An fsync/fdatasync (fio's `sync` statistics), not a read or write.
    pub is_sync_op: bool,
}

impl FioJob {
    /// The sample of bio `b`, seen completed at `now`, when it counts
    /// (after ramp_time).
    pub(super) fn sample_of(&mut self, b: &Bio, now: Ns) -> Option<IoSample> {
        let ioprio = self.ioprio_value_of(b);
        let lat = now - b.issue_ns;
        let (slat, clat) = if self.sync {
            (None, lat)
        } else {
            (Some(b.submit_ns - b.issue_ns), now - b.submit_ns)
        };
        (now >= self.ramp_end_ns).then_some(IoSample {
            dir: b.dir,
            bytes: b.bytes,
            offset: b.sector * 512,
            prio: b.prio,
            ioprio,
            done_ns: now,
            lat_ns: lat,
            clat_ns: clat,
            slat_ns: slat,
            is_sync_op: b.is_empty_flush(),
        })
    }
}
