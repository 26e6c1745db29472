//! The Total Bandwidth Server (Spuri and Buttazzo, "Efficient aperiodic
//! service under earliest deadline scheduling", RTSS 1994; "Scheduling
//! aperiodic tasks in dynamic priority systems", Real-Time Systems 1996)
//! as Kim et al. use it for NRT requests ("Dynamic Chip Clustering and
//! Task Allocation for Real-time Flash", DAC 2021): each cluster gets the bandwidth its RT tasks and
//! the blocking margin leave, and NRT sub-jobs get EDF deadlines paced at
//! that bandwidth. Integer arithmetic; bandwidth in parts per million.

use super::edf::Stream;
use ssdlab_protocol::Ns;

/// One, in parts per million.
pub const PPM: u64 = 1_000_000;

/// `U_s = 1 − Σ c/T − B/min D`, floored at 0, in ppm (each term rounded
/// up, so the bandwidth is never overstated). A cluster with no RT task
/// (the NRT-only cluster) gets all of it.
pub fn server_bandwidth_ppm(streams: &[Stream], blocking_ns: Ns) -> u64 {
    let Some(min_d) = streams.iter().map(|s| s.deadline_ns).min() else {
        return PPM;
    };
    let used: u128 = streams
        .iter()
        .map(|s| ratio_ppm(s.cost_ns, s.period_ns))
        .sum::<u128>()
        + ratio_ppm(blocking_ns, min_d);
    u64::try_from(u128::from(PPM).saturating_sub(used)).unwrap_or(0)
}

fn ratio_ppm(a: Ns, b: Ns) -> u128 {
    if b == 0 {
        return u128::from(PPM);
    }
    (u128::from(a) * u128::from(PPM)).div_ceil(u128::from(b))
}

/// A TBS on one cluster: `d_q = max(r_q, d_{q−1}) + ⌈e_q / U_s⌉`, `d_0 = 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TotalBandwidthServer {
    bandwidth_ppm: u64,
    last_deadline_ns: Ns,
}

impl TotalBandwidthServer {
    pub fn new(bandwidth_ppm: u64) -> Self {
        TotalBandwidthServer {
            bandwidth_ppm: bandwidth_ppm.min(PPM),
            last_deadline_ns: 0,
        }
    }

    pub fn bandwidth_ppm(&self) -> u64 {
        self.bandwidth_ppm
    }

    /// The deadline of a sub-job released at `release_ns` with per-chip
    /// demand `demand_ns`; None when the server has no bandwidth (the
    /// sub-job may then run only in idle time).
    pub fn assign(&mut self, release_ns: Ns, demand_ns: Ns) -> Option<Ns> {
        if self.bandwidth_ppm == 0 {
            return None;
        }
        let budget =
            (u128::from(demand_ns) * u128::from(PPM)).div_ceil(u128::from(self.bandwidth_ppm));
        let start = release_ns.max(self.last_deadline_ns);
        let deadline = start.saturating_add(u64::try_from(budget).unwrap_or(u64::MAX));
        self.last_deadline_ns = deadline;
        Some(deadline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bandwidth_is_what_rt_and_blocking_leave() {
        let s = [
            Stream {
                cost_ns: 2_000_000,
                deadline_ns: 10_000_000,
                period_ns: 10_000_000,
            },
            Stream {
                cost_ns: 3_000_000,
                deadline_ns: 20_000_000,
                period_ns: 30_000_000,
            },
        ];
        // 1 − 0.2 − 0.1 − 0.7/10 = 0.63.
        assert_eq!(server_bandwidth_ppm(&s, 700_000), 630_000);
        assert_eq!(server_bandwidth_ppm(&[], 700_000), PPM);
        assert_eq!(server_bandwidth_ppm(&s, 9_000_000), 0);
    }

    #[test]
    fn deadlines_follow_release_and_previous_deadline() {
        let mut tbs = TotalBandwidthServer::new(250_000);
        // 1 ms of work at a quarter of the chip: 4 ms after release.
        assert_eq!(tbs.assign(0, 1_000_000), Some(4_000_000));
        // Released before the previous deadline: queued behind it.
        assert_eq!(tbs.assign(1_000_000, 500_000), Some(6_000_000));
        // Released after it: counted from its own release.
        assert_eq!(tbs.assign(10_000_000, 1), Some(10_000_004));
        // Rounded up, never early: 1 ns at 333 333 ppm is ⌈3.000003⌉ = 4 ns.
        let mut third = TotalBandwidthServer::new(333_333);
        assert_eq!(third.assign(0, 1), Some(4));
        assert_eq!(TotalBandwidthServer::new(0).assign(5, 5), None);
    }
}
