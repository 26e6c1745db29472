//! The host–device protocol: what passes between a host path and a storage
//! device, and nothing else. Every device model (the page-mapped SSD, the
//! hybrid-FTL SSD, the real-time flash chips) implements [`Device`] from
//! below; the host path and the simulation kernel use it from above. This
//! crate depends on no other crate of the workspace, so a device that is not
//! a simulation (a real drive, a recorded trace of one) can implement the
//! protocol without importing anything of the simulator.
//!
//! # The contract
//!
//! - **Time.** Time is integer nanoseconds ([`Ns`]). A device never owns the
//!   clock: every call hands it `now`, which never goes backwards from one
//!   call to the next, and a [`Timers`] on which it schedules its own future
//!   events. An event is scheduled at or after `now`.
//! - **Ownership of a command.** [`Device::submit`] hands the device an
//!   [`IoCommand`] by value: from the doorbell until its completion the
//!   command is the device's. Its `id` is the host's and is unique among the
//!   commands outstanding; the device returns it unchanged in the
//!   [`IoCompletion`]. A command the device cannot execute (no pages, or
//!   pages outside the exported range) is refused at once with a
//!   [`CommandError`], is not owned and never completes.
//! - **Completions.** A command completes exactly once, at a time no earlier
//!   than its submission. Completions arise only while the device handles a
//!   call (`submit` or `handle`); the host collects them with
//!   [`Device::take_completions`] after each call, in the order the device
//!   posted them. [`IoCompletion::time`] is when the completion was posted,
//!   never later than the `now` of the call that produced it.
//! - **Reordering.** The device may execute and complete outstanding
//!   commands in any order (as an NVMe controller may): commands at
//!   overlapping pages have no ordering guarantee between them unless the
//!   host waits for one's completion before it submits the other. The host
//!   path keeps ordering where it needs it.
//! - **FLUSH and FUA.** The protocol's commands are reads, writes and trims
//!   ([`Dir`]). A write completes once the device has taken its data, which
//!   may be into a volatile write buffer; a device with a power-loss
//!   protected buffer treats that as durable. Durability before a flush is
//!   the host's business: the host path models FLUSH and FUA with their
//!   costs, and a device model documents whether its buffer survives power
//!   loss. A device whose completed writes may sit in a volatile cache says
//!   so (`DeviceInfo::volatile_write_cache`) and receives FLUSH as a write
//!   of no pages ([`IoCommand::is_flush`]); every other device refuses a
//!   command of no pages. A device that carries data returns, for a read of a page, the
//!   data of the last write to it that completed before the read was
//!   submitted (the simulated devices carry no data, only time).
//! - **Deadlines.** [`IoCommand::deadline`] is a hint for a device that
//!   serves work by deadline; a device may ignore it.
//!
//! The event queue a simulation runs on ([`engine::EventQueue`], a calendar
//! queue implementing [`Timers`]) lives here too, so that a device model's
//! own tests can drive it without the simulation kernel.

mod command;
mod device;
mod dir;
pub mod engine;
mod time;

pub use command::{CommandError, IoCommand, IoCompletion, Lpn};
pub use device::{Device, DeviceInfo, LiveDevice};
pub use dir::Dir;
pub use time::{parse_duration_ns, Ns, Timers, MAX_TIME_NS};
