//! From an analysed allocation to a simulation: each cluster of the
//! allocation becomes a chip set, each task runs on its cluster, and every
//! cluster serves NRT work the chosen way (in the background, or through a
//! TBS with the bandwidth the analysis left it).

use super::{NrtService, SimCluster, SimSetup, SimTask};
use crate::allocate::Allocation;
use crate::taskset::TaskSet;
use ssdlab_protocol::Ns;

/// How the clusters serve NRT work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NrtPolicy {
    Background,
    Tbs,
}

/// The most RT jobs one run may release (their responses are kept for the
/// percentiles: 8 bytes each).
pub const MAX_SIMULATED_JOBS: u64 = 20_000_000;

/// The RT jobs a run of `duration_ns` releases: every task at its
/// worst-case rate from its offset.
pub fn released_jobs(ts: &TaskSet, duration_ns: Ns) -> u64 {
    ts.tasks
        .iter()
        .map(|t| duration_ns.saturating_sub(t.offset_ns) / t.period_ns.max(1) + 1)
        .fold(0, u64::saturating_add)
}

/// The simulation of `ts` laid out as `alloc` says. An error names a task
/// the allocation could not place.
pub fn setup_from(
    ts: &TaskSet,
    alloc: &Allocation,
    nrt: NrtPolicy,
    duration_ns: Ns,
    seed: u64,
) -> Result<SimSetup, String> {
    let clusters = alloc
        .clusters
        .iter()
        .map(|c| SimCluster {
            chips: c.chips.clone(),
            nrt: match nrt {
                NrtPolicy::Background => NrtService::Background,
                NrtPolicy::Tbs => NrtService::Tbs {
                    bandwidth_ppm: c.server_bandwidth_ppm,
                },
            },
            gc_round_ns: c.space.gc_round_ns,
            freed_pages_per_round: c.space.freed_pages_per_round,
        })
        .collect();
    let mut tasks = Vec::with_capacity(ts.tasks.len());
    for (t, placed) in ts.tasks.iter().zip(&alloc.tasks) {
        let Some(cluster) = placed.cluster else {
            return Err(format!(
                "task '{}' has no chips under {}: it fits nowhere",
                t.name, alloc.approach
            ));
        };
        tasks.push(SimTask {
            name: t.name.clone(),
            period_ns: t.period_ns,
            deadline_ns: t.deadline_ns,
            offset_ns: t.offset_ns,
            read_pages: u32::try_from(t.read_pages).unwrap_or(u32::MAX),
            write_pages: u32::try_from(t.write_pages).unwrap_or(u32::MAX),
            footprint_pages: t.footprint_pages,
            cluster,
        });
    }
    let jobs = released_jobs(ts, duration_ns);
    if jobs > MAX_SIMULATED_JOBS {
        return Err(format!(
            "the run would release {jobs} RT jobs, above {MAX_SIMULATED_JOBS} \
             (every response is kept for the p99.9): shorten the duration"
        ));
    }
    Ok(SimSetup {
        platform: ts.platform.clone(),
        tasks,
        clusters,
        nrt: ts.nrt.clone(),
        duration_ns,
        seed,
        order: super::ChipOrder::Edf,
    })
}
