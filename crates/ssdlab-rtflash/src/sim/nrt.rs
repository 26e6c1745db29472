//! NRT requests in the real-time simulation: the host's background
//! service on an ordinary device, the split of a request per cluster, and
//! each cluster's Total Bandwidth Server deadline.

use super::load;
use super::{ChipOrder, NrtService, Owner, Sim, SimCluster, SimSetup};
use crate::platform::Platform;
use crate::tbs::TotalBandwidthServer;
use ssdlab_protocol::Ns;

impl Sim<'_> {
    /// An NRT request arrives. An ordinary device has no background class,
    /// so background service is the host's: like BFQ's idle class
    /// (block/bfq-iosched.c, bfq-wf2q.c), NRT requests are dispatched only
    /// while no RT I/O is outstanding, and wait in the host otherwise.
    pub(super) fn issue_nrt(&mut self, now: Ns) {
        if self.host_holds_nrt() {
            self.nrt_held.push_back(now);
            return;
        }
        self.dispatch_nrt(now, now);
    }

    fn host_holds_nrt(&self) -> bool {
        self.host_serves_background && self.rt_open > 0
    }

    /// The last open RT job finished: the host lets the held NRT requests go.
    pub(super) fn release_held_nrt(&mut self, now: Ns) {
        while let Some(arrival) = self.nrt_held.pop_front() {
            self.dispatch_nrt(arrival, now);
        }
    }

    /// Splits an NRT request (arrived at `arrival`) per cluster and queues
    /// its parts on the chips.
    fn dispatch_nrt(&mut self, arrival: Ns, now: Ns) {
        let Some(n) = self.s.nrt.as_ref() else {
            return;
        };
        let Some((start, pages, is_write)) =
            load::draw(n, self.s.platform.page_size, &mut self.rng)
        else {
            return;
        };
        let job = self.new_job(Owner::Nrt, arrival, pages);
        let mut by_cluster: Vec<Vec<u64>> = vec![Vec::new(); self.s.clusters.len()];
        for lpn in self.nrt_base + start..self.nrt_base + start + pages {
            by_cluster[self.cluster_of_chip[self.home_chip(lpn) as usize]].push(lpn);
        }
        for (k, lpns) in by_cluster.iter().enumerate() {
            if !lpns.is_empty() {
                let deadline = self
                    .servers
                    .deadline(self.s, k, lpns.len() as u64, is_write, now);
                self.add_part(job, is_write, deadline, lpns, now);
            }
        }
    }
}

/// Each cluster's Total Bandwidth Server (None: the cluster serves NRT work
/// in the background), as both models assign NRT deadlines.
#[derive(Debug, Clone)]
pub(super) struct NrtServers(Vec<Option<TotalBandwidthServer>>);

impl NrtServers {
    pub fn new(s: &SimSetup) -> Self {
        NrtServers(
            s.clusters
                .iter()
                .map(|c| match c.nrt {
                    NrtService::Background => None,
                    NrtService::Tbs { bandwidth_ppm } => {
                        Some(TotalBandwidthServer::new(bandwidth_ppm))
                    }
                })
                .collect(),
        )
    }

    /// The deadline of an NRT part of `pages` pages on cluster `k` arriving
    /// at `now` (None: background service).
    pub fn deadline(
        &mut self,
        s: &SimSetup,
        k: usize,
        pages: u64,
        is_write: bool,
        now: Ns,
    ) -> Option<Ns> {
        let demand = part_demand(&s.platform, &s.clusters[k], pages, is_write);
        self.0[k].as_mut()?.assign(now, demand)
    }
}

/// Whether background NRT service is the host's: an ordinary device knows
/// no background class, so when no cluster has a server the host holds NRT
/// requests while an RT job is open (BFQ's idle class).
pub(super) fn host_serves_background(s: &SimSetup) -> bool {
    s.order == ChipOrder::Fifo && s.clusters.iter().all(|c| c.nrt == NrtService::Background)
}

/// The per-chip demand of an NRT part of `pages` pages on cluster `c`, as
/// its server charges it: the pages of its most loaded chip, and for
/// writes the worst-case GC rounds they need.
fn part_demand(p: &Platform, c: &SimCluster, pages: u64, is_write: bool) -> Ns {
    let per_chip = pages.div_ceil(c.chips.len() as u64);
    if is_write {
        let rounds = per_chip.div_ceil(c.freed_pages_per_round.max(1));
        per_chip
            .saturating_mul(p.page_write_ns())
            .saturating_add(rounds.saturating_mul(c.gc_round_ns))
    } else {
        per_chip.saturating_mul(p.page_read_ns())
    }
}
