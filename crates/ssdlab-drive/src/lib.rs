//! A real drive behind ssdlab's host–device protocol: a regular file or a
//! block device, driven through io_uring with O_DIRECT, registered buffers
//! and a registered file, submissions batched between waits.
//!
//! The host path runs unchanged in front of it (the same block layer,
//! schedulers, tags and staging queues as in simulation); only the clock
//! differs. The simulation kernel's live loop (`Simulation::run_live` in
//! ssdlab-sim) reads [`ssdlab_protocol::LiveDevice::clock`]
//! (CLOCK_MONOTONIC), runs the events that are due, and otherwise waits in
//! `io_uring_enter` for the first completion or the next timer.
//!
//! What ssdlab bounds is what it has outstanding: a user-space K2 limits
//! the commands in this engine's ring, not the kernel's own queue for the
//! device. For the two to be the same, the target's kernel scheduler should
//! be `none`; [`Drive::kernel_scheduler`] reports the one it found.
//!
//! Safety: a regular file is created and laid out by ssdlab to what the
//! jobs need and never grows past it; a block device is written only when
//! the caller allows it, and never while mounted, used as swap, held by
//! another driver or holding a partition table or a file system unless the
//! caller forces it ([`target::open`]).

pub mod affinity;
mod drive;
mod pattern;
mod ring;
mod safety;
pub mod target;
mod verify;

pub use drive::{Drive, DriveCounters, DriveOptions, Reap};
pub use target::{Target, TargetError, TargetKind, TargetRequest};
pub use verify::{VerifyCounters, VerifyFailure, VerifySettings, HEADER_BYTES, METHODS};
