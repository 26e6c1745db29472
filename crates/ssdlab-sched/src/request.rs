//! The block request as a scheduler sees it.

use ssdlab_protocol::Ns;

/// A request's direction (a discard is `Trim`): the one read/write/trim
/// enum of the workspace.
use ssdlab_protocol::Dir;

/// Index of the read lists of the deadline elevators.
pub(crate) const READ: usize = 0;
/// Index of their write lists (discards included).
pub(crate) const WRITE: usize = 1;

/// The kernel's `rq_data_dir` as a list index: the deadline elevators keep
/// reads and writes apart, and a discard is a write to them.
pub(crate) fn data_dir(dir: Dir) -> usize {
    match dir {
        Dir::Read => READ,
        Dir::Write | Dir::Trim => WRITE,
    }
}

/// I/O priority class, as `ioprio_set(2)`: NONE derives from the submitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoClass {
    None,
    Rt,
    Be,
    Idle,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IoPrio {
    pub class: IoClass,
    /// 0 (highest) to 7.
    pub level: u8,
}

impl IoPrio {
    pub const NONE: IoPrio = IoPrio {
        class: IoClass::None,
        level: 4,
    };
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeKind {
    /// The bio extends the request at its end.
    Back,
    /// The bio extends the request at its start.
    Front,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub id: u64,
    pub dir: Dir,
    /// Start in 512-byte sectors.
    pub sector: u64,
    pub bytes: u32,
    pub prio: IoPrio,
    /// Synchronous (a reader or O_SYNC/O_DIRECT writer waits for it).
    pub sync: bool,
    /// REQ_PREFLUSH: the device's volatile cache is flushed before the
    /// request; with no data (`bytes == 0`) the request is an empty flush,
    /// as fsync ends. Bundling schedulers close their open bundle on it.
    pub flush: bool,
    /// REQ_FUA: the data is durable when the request completes.
    pub fua: bool,
    /// Submitting job (process), for per-process policies.
    pub job: u32,
    /// When the request entered the block layer.
    pub submit_ns: Ns,
    /// When it entered the scheduler.
    pub insert_ns: Ns,
    /// When it was dispatched to the driver (0 until then).
    pub dispatch_ns: Ns,
}

impl Request {
    /// First sector after the request.
    pub fn end_sector(&self) -> u64 {
        self.sector + (self.bytes as u64).div_ceil(512)
    }

    /// A flush that carries no data (fsync's cache flush).
    pub fn is_empty_flush(&self) -> bool {
        self.flush && self.bytes == 0
    }
}
