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
