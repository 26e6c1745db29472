//! Worst-case GC cost and per-chip job demand of a cluster (our
//! reconstruction of the cost model of Kim et al., "Dynamic Chip
//! Clustering and Task Allocation for Real-time Flash", DAC 2021;
//! docs/rt-flash.md, "Demand with GC").
//!
//! A cluster of `n` chips holds its tasks' footprints and its share
//! `⌈S_NRT·n/m⌉` of the NRT region, striped page by page. With greedy
//! victims some full block holds at most `u = ⌈ρ·Np⌉` valid pages
//! (pigeonhole over the non-reserved blocks), so one GC round copies `u`
//! pages, erases one block and frees `f = Np − u` pages. A job writing `w`
//! pages on a chip triggers at most `⌈w/f⌉` rounds there.

use super::platform::Platform;
use serde::Serialize;
use ssdlab_protocol::Ns;

/// The space of one cluster and what one GC round on one of its chips
/// costs and frees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClusterSpace {
    pub chips: u32,
    /// Pages of data the cluster holds (tasks' footprints and NRT share).
    pub used_pages: u64,
    /// Pages the cluster's chips may hold (reserved blocks left out).
    pub capacity_pages: u64,
    /// `u`: most valid pages of the greedy victim (capped at a block).
    pub victim_valid_pages: u64,
    /// `f = Np − u`: pages one GC round frees.
    pub freed_pages_per_round: u64,
    /// `g = u·(tR + tPROG + 2·tXFER) + tBERS`.
    pub gc_round_ns: Ns,
}

impl ClusterSpace {
    /// The space of `chips` chips holding `rt_pages` of task data plus
    /// their share of an NRT region of `nrt_pages` striped over all chips.
    pub fn new(p: &Platform, chips: u32, rt_pages: u64, nrt_pages: u64) -> Self {
        let nrt_share = ceil_div(
            u128::from(nrt_pages) * u128::from(chips),
            u128::from(p.chips.max(1)),
        );
        let used = u128::from(rt_pages) + nrt_share;
        let capacity = u128::from(p.usable_pages_per_chip()) * u128::from(chips);
        let np = u128::from(p.pages_per_block);
        let victim = if capacity == 0 {
            np
        } else {
            ceil_div(used * np, capacity).min(np)
        };
        let victim_valid_pages = victim as u64;
        ClusterSpace {
            chips,
            used_pages: u64::try_from(used).unwrap_or(u64::MAX),
            capacity_pages: u64::try_from(capacity).unwrap_or(u64::MAX),
            victim_valid_pages,
            freed_pages_per_round: p.pages_per_block - victim_valid_pages,
            gc_round_ns: victim_valid_pages
                .saturating_mul(p.page_copy_ns())
                .saturating_add(p.erase_ns),
        }
    }

    /// False when `ρ > 1 − 1/Np`: a GC round would free no page.
    pub fn feasible(&self) -> bool {
        self.freed_pages_per_round > 0
    }

    /// ρ in parts per million, rounded up.
    pub fn utilisation_ppm(&self) -> u64 {
        if self.capacity_pages == 0 {
            return u64::MAX;
        }
        let ppm = ceil_div(
            u128::from(self.used_pages) * 1_000_000,
            u128::from(self.capacity_pages),
        );
        u64::try_from(ppm).unwrap_or(u64::MAX)
    }
}

/// The worst-case per-chip demand of one job, split into its parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct JobDemand {
    /// `⌈R/n⌉·(tR + tXFER)`.
    pub read_ns: Ns,
    /// `⌈W/n⌉·(tPROG + tXFER)`.
    pub write_ns: Ns,
    /// `⌈⌈W/n⌉/f⌉` rounds of `g` each.
    pub gc_rounds: u64,
    pub gc_ns: Ns,
}

impl JobDemand {
    /// The job's own I/O (reads and writes, no GC).
    pub fn io_ns(&self) -> Ns {
        self.read_ns.saturating_add(self.write_ns)
    }

    /// `c_i(k)`: the whole per-chip demand.
    pub fn total_ns(&self) -> Ns {
        self.io_ns().saturating_add(self.gc_ns)
    }
}

/// The per-chip demand of a job reading `read_pages` and writing
/// `write_pages` in a cluster with space `space`; None when it writes and a
/// GC round frees nothing (the cluster is infeasible).
pub fn job_demand(
    p: &Platform,
    space: &ClusterSpace,
    read_pages: u64,
    write_pages: u64,
) -> Option<JobDemand> {
    let n = u64::from(space.chips.max(1));
    let reads = read_pages.div_ceil(n);
    let writes = write_pages.div_ceil(n);
    let gc_rounds = match (writes, space.freed_pages_per_round) {
        (0, _) => 0,
        (_, 0) => return None,
        (w, f) => w.div_ceil(f),
    };
    Some(JobDemand {
        read_ns: reads.saturating_mul(p.page_read_ns()),
        write_ns: writes.saturating_mul(p.page_write_ns()),
        gc_rounds,
        gc_ns: gc_rounds.saturating_mul(space.gc_round_ns),
    })
}

/// `⌈a/b⌉` for b > 0.
pub(crate) fn ceil_div(a: u128, b: u128) -> u128 {
    a.div_ceil(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn platform() -> Platform {
        Platform::default()
    }

    #[test]
    fn half_full_single_chip() {
        let p = platform();
        // 2046 usable blocks × 128 pages = 261 888 pages; half of them.
        let s = ClusterSpace::new(&p, 1, 130_944, 0);
        assert_eq!(s.utilisation_ppm(), 500_000);
        assert_eq!(s.victim_valid_pages, 64);
        assert_eq!(s.freed_pages_per_round, 64);
        // 64 × 275 µs + 700 µs.
        assert_eq!(s.gc_round_ns, 18_300_000);
        let d = job_demand(&p, &s, 4, 16).unwrap();
        assert_eq!(d.read_ns, 4 * 35_000);
        assert_eq!(d.write_ns, 16 * 240_000);
        assert_eq!(d.gc_rounds, 1);
        assert_eq!(d.total_ns(), 140_000 + 3_840_000 + 18_300_000);
    }

    #[test]
    fn striping_rounds_up_per_chip() {
        let p = platform();
        // Two chips, 10 % full (52 378 of 523 776 pages), plus an NRT
        // region of 1000 pages over four chips: 500 pages land here.
        let s = ClusterSpace::new(&p, 2, 52_378, 1_000);
        assert_eq!(s.used_pages, 52_878);
        // ⌈52 878 · 128 / 523 776⌉ = ⌈12.92⌉ = 13.
        assert_eq!(s.victim_valid_pages, 13);
        assert_eq!(s.freed_pages_per_round, 115);
        let d = job_demand(&p, &s, 3, 5).unwrap();
        assert_eq!(d.read_ns, 2 * 35_000);
        assert_eq!(d.write_ns, 3 * 240_000);
        assert_eq!(d.gc_rounds, 1);
        assert_eq!(d.gc_ns, 13 * 275_000 + 700_000);
    }

    #[test]
    fn many_rounds_when_little_is_freed() {
        let p = platform();
        // ρ = 0.95: u = ⌈121.6⌉ = 122, f = 6; 16 pages need 3 rounds.
        let used = p.usable_pages_per_chip() * 95 / 100;
        let s = ClusterSpace::new(&p, 1, used, 0);
        assert_eq!(s.victim_valid_pages, 122);
        let d = job_demand(&p, &s, 0, 16).unwrap();
        assert_eq!(d.gc_rounds, 3);
        assert_eq!(d.gc_ns, 3 * (122 * 275_000 + 700_000));
    }

    #[test]
    fn full_cluster_is_infeasible_for_writers_only() {
        let p = platform();
        // ρ > 1 − 1/128: every block may be entirely valid.
        let used = p.usable_pages_per_chip() - 100;
        let s = ClusterSpace::new(&p, 1, used, 0);
        assert!(!s.feasible());
        assert!(job_demand(&p, &s, 0, 1).is_none());
        assert_eq!(job_demand(&p, &s, 1, 0).unwrap().total_ns(), 35_000);
        // More data than space also stays capped at one block of copies.
        let over = ClusterSpace::new(&p, 1, u64::MAX / 2, 0);
        assert_eq!(over.victim_valid_pages, 128);
    }
}
