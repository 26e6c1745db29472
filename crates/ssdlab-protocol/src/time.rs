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

/// `500ms`, `2.5us`, `10s`, `100` (in `unit_ns`) → ns.
pub fn parse_duration_ns(v: &str, unit_ns: i64) -> Result<i64, String> {
    let split = v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len());
    let (num, unit) = v.split_at(split);
    let mult = match unit {
        "" => unit_ns as f64,
        "ns" => 1.0,
        "us" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        _ => return Err(format!("unknown time unit '{unit}' (ns, us, ms, s)")),
    };
    let x: f64 = num
        .parse()
        .map_err(|_| format!("'{v}' is not a duration"))?;
    let ns = x * mult;
    if !ns.is_finite() || ns < 0.0 || ns > i64::MAX as f64 {
        return Err(format!("'{v}' is not a valid duration"));
    }
    Ok(ns.round() as i64)
}
