//! Simulated (or measured) time, and where a device puts its future events.

/// Time in nanoseconds.
pub type Ns = u64;

/// The longest time a run may reach (100 years). Job files and traces refuse
/// times beyond it, and a run whose clock would pass it stops with an error,
/// so sums of times never overflow the clock.
pub const MAX_TIME_NS: Ns = 100 * 365 * 24 * 3600 * 1_000_000_000;

/// Anything that can schedule a device's events. The device never owns the
/// clock: it is handed `now` and a place to put future events.
pub trait Timers<E> {
    fn schedule(&mut self, at: Ns, event: E);
}
