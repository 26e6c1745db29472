//! Commands, their completions, and a command the device refuses.

use crate::{Dir, Ns};
use std::fmt;

/// A logical page: a mapping unit of the address space the host sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Lpn(pub u32);

impl Lpn {
    /// The position in a table indexed by logical page.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Lpn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::ops::Add<u32> for Lpn {
    type Output = Lpn;
    /// The logical page `n` pages further on.
    #[inline]
    fn add(self, n: u32) -> Lpn {
        Lpn(self.0 + n)
    }
}

/// A command as the host submits it: `pages` logical pages from `lpa`.
#[derive(Debug, Clone, Copy)]
pub struct IoCommand {
    /// The host's identifier, unique among outstanding commands.
    pub id: u64,
    pub op: Dir,
    pub lpa: Lpn,
    pub pages: u32,
    /// Bytes that cross the host link (at most `pages` pages: a 4 KiB read
    /// of a 64 KiB page moves 4 KiB over PCIe, not the page).
    pub bytes: u32,
    /// Submission queue (0-based; taken modulo the device's queue count).
    pub sq: u16,
    /// The absolute time by which the command should complete, for a
    /// device that serves work by deadline; None for work with no deadline,
    /// which such a device serves last. Other devices ignore it.
    pub deadline: Option<Ns>,
}

impl IoCommand {
    /// A FLUSH: a write of no pages. It completes once every write that
    /// completed before it was submitted is durable. Only a device with a
    /// volatile write cache receives one (`DeviceInfo::volatile_write_cache`).
    pub fn is_flush(&self) -> bool {
        self.op == Dir::Write && self.pages == 0
    }
}

/// A command the device cannot execute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("command {id}: pages [{lpa}, {lpa} + {pages}) empty or outside the {logical_pages} logical pages")]
pub struct CommandError {
    pub id: u64,
    pub lpa: Lpn,
    pub pages: u32,
    pub logical_pages: u32,
}

/// A command's completion as the device posts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoCompletion {
    /// The command's `id`.
    pub id: u64,
    /// When the completion was posted.
    pub time: Ns,
}
