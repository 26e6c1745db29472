//! Schedulability of one chip's job stream under EDF with non-preemptive
//! flash operations: the exact demand-bound test (processor-demand
//! criterion with a blocking term, Baruah, Rosier and Howell; Jeffay,
//! Stanat and Martel for the non-preemptive case), the density shortcut,
//! and the synchronous busy period. All arithmetic is integer; fractions
//! are parts per billion, rounded towards the unsafe side never.

use ssdlab_protocol::Ns;

/// One task's stream on a chip: demand per job, relative deadline, period.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stream {
    pub cost_ns: Ns,
    pub deadline_ns: Ns,
    pub period_ns: Ns,
}

/// One, in parts per billion.
pub const PPB: u128 = 1_000_000_000;

/// Most absolute deadlines the exact test examines; beyond it the set is
/// declared unschedulable (utilisation too close to 1 to be worth it).
pub const MAX_TEST_POINTS: usize = 1_000_000;

/// Most steps of the busy-period fixed point.
const MAX_BUSY_PERIOD_STEPS: usize = 1_000_000;

/// Why the exact test failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Miss {
    /// Utilisation (rounded up) is 1 or more: no busy period ends.
    Overload { utilisation_ppb: u128 },
    /// The demand due by `at_ns`, plus blocking, exceeds `at_ns`; the
    /// deadline at `at_ns` belongs to stream `stream`.
    Deadline {
        stream: usize,
        at_ns: Ns,
        demand_ns: u128,
    },
    /// The testing set is larger than `MAX_TEST_POINTS`.
    TooManyPoints,
}

/// `Σ c/T`, in ppb, each term rounded up.
pub fn utilisation_ppb(streams: &[Stream]) -> u128 {
    streams
        .iter()
        .map(|s| ratio_ppb(s.cost_ns, s.period_ns))
        .sum()
}

/// `Σ c/D + B/min D`, in ppb, each term rounded up.
pub fn density_ppb(streams: &[Stream], blocking_ns: Ns) -> u128 {
    let Some(min_d) = streams.iter().map(|s| s.deadline_ns).min() else {
        return 0;
    };
    let tasks: u128 = streams
        .iter()
        .map(|s| ratio_ppb(s.cost_ns, s.deadline_ns))
        .sum();
    tasks + ratio_ppb(blocking_ns, min_d)
}

/// The sufficient density test: `Σ c/D + B/min D ≤ 1`.
pub fn density_test(streams: &[Stream], blocking_ns: Ns) -> bool {
    density_ppb(streams, blocking_ns) <= PPB
}

/// The demand bound at `t`: `Σ max(0, ⌊(t − D)/T⌋ + 1)·c`.
pub fn demand_bound(streams: &[Stream], t: Ns) -> u128 {
    streams
        .iter()
        .filter(|s| t >= s.deadline_ns)
        .map(|s| {
            let jobs = (t - s.deadline_ns) / s.period_ns.max(1) + 1;
            u128::from(jobs) * u128::from(s.cost_ns)
        })
        .sum()
}

/// The exact EDF-NP test: `dbf(t) + B ≤ t` at every absolute deadline up
/// to the smaller of the busy period and `max(D_max, (B + Σ(T−D)·c/T) /
/// (1 − U))`.
pub fn edf_np_test(streams: &[Stream], blocking_ns: Ns) -> Result<(), Miss> {
    if streams.is_empty() || density_test(streams, blocking_ns) {
        return Ok(());
    }
    let utilisation_ppb = utilisation_ppb(streams);
    if utilisation_ppb >= PPB {
        return Err(Miss::Overload { utilisation_ppb });
    }
    let bound = testing_bound(streams, blocking_ns, utilisation_ppb);
    let points = deadlines_up_to(streams, bound)?;
    for (at_ns, stream) in points {
        let demand_ns = demand_bound(streams, at_ns) + u128::from(blocking_ns);
        if demand_ns > u128::from(at_ns) {
            return Err(Miss::Deadline {
                stream,
                at_ns,
                demand_ns,
            });
        }
    }
    Ok(())
}

fn testing_bound(streams: &[Stream], blocking_ns: Ns, utilisation_ppb: u128) -> Ns {
    let d_max = streams.iter().map(|s| s.deadline_ns).max().unwrap_or(0);
    let slack: u128 = streams
        .iter()
        .map(|s| {
            let gap = u128::from(s.period_ns - s.deadline_ns.min(s.period_ns));
            (gap * u128::from(s.cost_ns)).div_ceil(u128::from(s.period_ns.max(1)))
        })
        .sum();
    let la = ((u128::from(blocking_ns) + slack) * PPB).div_ceil(PPB - utilisation_ppb);
    let la = u64::try_from(la).unwrap_or(u64::MAX).max(d_max);
    match busy_period(streams, blocking_ns) {
        Some(bp) => la.min(bp.max(d_max)),
        None => la,
    }
}

/// Every absolute deadline `D + k·T ≤ bound`, earliest first, with the
/// stream it belongs to (the first stream on ties).
fn deadlines_up_to(streams: &[Stream], bound: Ns) -> Result<Vec<(Ns, usize)>, Miss> {
    let mut points = Vec::new();
    for (i, s) in streams.iter().enumerate() {
        let mut t = s.deadline_ns;
        while t <= bound {
            if points.len() >= MAX_TEST_POINTS {
                return Err(Miss::TooManyPoints);
            }
            points.push((t, i));
            match t.checked_add(s.period_ns.max(1)) {
                Some(next) => t = next,
                None => break,
            }
        }
    }
    points.sort_unstable();
    points.dedup_by_key(|p| p.0);
    Ok(points)
}

/// The synchronous busy period: the least `L = B + Σ ⌈L/T⌉·c`, or None
/// when utilisation is 1 or more or the fixed point does not settle.
pub fn busy_period(streams: &[Stream], blocking_ns: Ns) -> Option<Ns> {
    if utilisation_ppb(streams) >= PPB {
        return None;
    }
    let mut l =
        u128::from(blocking_ns) + streams.iter().map(|s| u128::from(s.cost_ns)).sum::<u128>();
    for _ in 0..MAX_BUSY_PERIOD_STEPS {
        let next = u128::from(blocking_ns)
            + streams
                .iter()
                .map(|s| l.div_ceil(u128::from(s.period_ns.max(1))) * u128::from(s.cost_ns))
                .sum::<u128>();
        if next == l {
            return u64::try_from(l).ok();
        }
        if next > u128::from(u64::MAX) {
            return None;
        }
        l = next;
    }
    None
}

/// Jobs of a stream released in a busy period of length `l`: `⌈l/T⌉`.
pub fn jobs_in(s: &Stream, l: Ns) -> u64 {
    l.div_ceil(s.period_ns.max(1))
}

/// `a/b` in ppb, rounded up (`b = 0` counts as overload).
pub fn ratio_ppb(a: Ns, b: Ns) -> u128 {
    if b == 0 {
        return if a == 0 { 0 } else { PPB * 2 };
    }
    (u128::from(a) * PPB).div_ceil(u128::from(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Ns = 1_000_000;

    fn s(c: Ns, d: Ns, t: Ns) -> Stream {
        Stream {
            cost_ns: c * MS,
            deadline_ns: d * MS,
            period_ns: t * MS,
        }
    }

    #[test]
    fn hand_computed_demand_and_density() {
        let set = [s(2, 5, 10), s(3, 8, 8)];
        // dbf(16) = (⌊11/10⌋+1)·2 + (⌊8/8⌋+1)·3 = 4 + 6 = 10 ms.
        assert_eq!(demand_bound(&set, 16 * MS), u128::from(10 * MS));
        assert_eq!(demand_bound(&set, 4 * MS), 0);
        // 2/5 + 3/8 + 1/5 = 0.975.
        assert_eq!(density_ppb(&set, MS), 975_000_000);
        assert!(density_test(&set, MS));
        assert_eq!(utilisation_ppb(&set), 575_000_000);
    }

    #[test]
    fn busy_period_fixed_point() {
        // L = 1 + ⌈L/10⌉·2 + ⌈L/8⌉·3: 6 → 6 (one job each).
        let set = [s(2, 5, 10), s(3, 8, 8)];
        assert_eq!(busy_period(&set, MS), Some(6 * MS));
        // L = 1 + ⌈L/4⌉·3: 4 → 4.
        assert_eq!(busy_period(&[s(3, 4, 4)], MS), Some(4 * MS));
        // L = 1 + ⌈L/5⌉·3: 4 → 4; then with c = 4: 5 → 5.
        assert_eq!(busy_period(&[s(4, 5, 5)], MS), Some(5 * MS));
        // L = 1 + ⌈L/4⌉·2 + ⌈L/8⌉·3: 6 → 8 → 8.
        assert_eq!(busy_period(&[s(2, 4, 4), s(3, 6, 8)], MS), Some(8 * MS));
        assert_eq!(busy_period(&[s(5, 5, 5)], MS), None);
    }

    #[test]
    fn exact_test_accepts_what_density_rejects_and_finds_misses() {
        // Density 3/4 + 3/8 + 0.1/4 > 1, but EDF-NP holds:
        // dbf(4) + B = 3.1 ≤ 4, dbf(8) + B = 6.1 ≤ 8, dbf(12) = 9.1, …
        let set = [s(3, 4, 8), s(3, 8, 16)];
        let b = MS / 10;
        assert!(!density_test(&set, b));
        assert_eq!(edf_np_test(&set, b), Ok(()));
        // A tight second deadline: dbf(5) + B = 3 + 3 + 0.1 > 5.
        let tight = [s(3, 4, 8), s(3, 5, 16)];
        assert_eq!(
            edf_np_test(&tight, b),
            Err(Miss::Deadline {
                stream: 1,
                at_ns: 5 * MS,
                demand_ns: u128::from(6 * MS + b),
            })
        );
        assert!(matches!(
            edf_np_test(&[s(5, 5, 5)], b),
            Err(Miss::Overload { .. })
        ));
    }
}
