//! The device as the host path sees it.

use crate::{CommandError, IoCommand, IoCompletion, Lpn, Ns, Timers};

/// What the host path needs to know of a device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Preset or model name.
    pub name: String,
    /// Bytes of one logical page (the unit of a command).
    pub page_size: u32,
    /// Logical pages the device exports.
    pub logical_pages: u32,
    /// Whether a completed write may still sit in a volatile cache: the
    /// host must then send FLUSH to the device (an empty flush is a write
    /// of no pages, [`IoCommand::is_flush`]). A device without one (every
    /// simulated model acknowledges a write once it is safe) never receives
    /// a flush: the host ends it itself.
    pub volatile_write_cache: bool,
}

impl DeviceInfo {
    /// Bytes the device exports.
    pub fn capacity_bytes(&self) -> u64 {
        self.logical_pages as u64 * self.page_size as u64
    }
}

/// A storage device as the host path sees it: commands go in, completions
/// come out, and in between the device runs on its own events (the crate's
/// contract says what each side may expect).
pub trait Device {
    /// The device's own events, scheduled through the caller's timers.
    type Event: Copy + std::fmt::Debug;

    fn info(&self) -> DeviceInfo;

    /// The host rings a doorbell for `cmd` at `now`.
    fn submit<Q: Timers<Self::Event>>(
        &mut self,
        cmd: IoCommand,
        now: Ns,
        q: &mut Q,
    ) -> Result<(), CommandError>;

    /// One of the device's own events is due.
    fn handle<Q: Timers<Self::Event>>(&mut self, ev: Self::Event, now: Ns, q: &mut Q);

    /// Moves the commands completed since the last call to the end of `out`.
    fn take_completions(&mut self, out: &mut Vec<IoCompletion>);

    /// The latest time the device was driven at (a new run continues there).
    fn now(&self) -> Ns;

    /// A command at `lpa` will come soon: the device may start bringing
    /// into the CPU's cache what it will look up. A hint for a simulator's
    /// speed only; it changes nothing simulated.
    fn expect_command(&self, _lpa: Lpn) {}
}

/// A device that runs in real time (a real drive). Its clock, not the
/// kernel's event queue, says what time it is: the kernel reads
/// [`LiveDevice::clock`], runs every event that is due, and otherwise waits
/// on the device until its next event is due or a completion can be
/// reaped. The rest of the contract holds as for any device: completions
/// arise while the device handles a call, here the event `wait` returns.
pub trait LiveDevice: Device {
    /// Now on the device's clock: CLOCK_MONOTONIC, in ns since the device
    /// was opened.
    fn clock(&self) -> Ns;

    /// Hands the commands submitted since the last call to the hardware and
    /// blocks until a completion can be reaped (returning the event to hand
    /// to [`Device::handle`]) or the clock reaches `until` (returning None).
    /// With nothing outstanding it sleeps until `until`, or returns None at
    /// once when `until` is None. An error is the device failing, not a
    /// command.
    fn wait(&mut self, until: Option<Ns>) -> Result<Option<Self::Event>, String>;

    /// Commands submitted and not yet completed.
    fn outstanding(&self) -> u32;

    /// The first command that failed (an I/O error, a short transfer),
    /// described with its offset; a run stops at it.
    fn failure(&self) -> Option<&str>;
}
