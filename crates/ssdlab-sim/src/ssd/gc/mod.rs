//! Garbage-collection victim policies. One policy, one file; `REGISTRY` maps
//! names to constructors. When to collect (thresholds) is the device's job;
//! a policy only picks the victim among a plane's candidates.

mod cost_benefit;
mod fifo;
mod greedy;
mod prioritized;
mod random;
mod randomized_greedy;
pub mod trigger;

use super::config::choice::{Choice, Entry, Registry};
use super::config::SsdConfig;
use super::ftl::Ftl;
use crate::ssd::ids::{BlockId, PlaneId};
use rand_chacha::ChaCha8Rng;

pub trait GcPolicy: Send {
    fn name(&self) -> &'static str;
    /// Picks a victim among `ftl.candidates(plane)` (settled full blocks with
    /// at least one invalid page), or None when there is none.
    fn select_victim(&mut self, ftl: &Ftl, plane: PlaneId, rng: &mut ChaCha8Rng)
        -> Option<BlockId>;
    /// How much the policy wants `block` collected, to compare victims of
    /// different planes (the global-order variant): fewer valid pages first.
    fn score(&self, ftl: &Ftl, block: BlockId) -> f64 {
        -(ftl.valid(block) as f64)
    }
}

/// The plane's candidate at the position `pick` draws from `0..n`, the
/// candidates being in order of valid pages, fewest first (None when the
/// plane has none). The policies that choose by position share it.
fn candidate_at(ftl: &Ftl, plane: PlaneId, pick: impl FnOnce(usize) -> usize) -> Option<BlockId> {
    let n = ftl.candidates(plane).count();
    if n == 0 {
        return None;
    }
    ftl.candidates(plane).nth(pick(n))
}

/// A victim policy's registry entry.
pub type PolicyEntry = Entry<fn(&SsdConfig) -> Box<dyn GcPolicy>>;

pub const REGISTRY: &[PolicyEntry] = &[
    PolicyEntry {
        name: "greedy",
        help: "fewest valid pages first",
        make: |_| Box::new(greedy::Greedy),
    },
    PolicyEntry {
        name: "cost-benefit",
        help: "max (1-u)/(2u) x age (Rosenblum and Ousterhout, LFS)",
        make: |_| Box::new(cost_benefit::CostBenefit),
    },
    PolicyEntry {
        name: "random",
        help: "uniformly random candidate",
        make: |_| Box::new(random::Random),
    },
    PolicyEntry {
        name: "prioritized",
        help: "max invalid/(copy + erase cost), hot blocks deferred by lambda (on-demand GC, Algorithm 1)",
        make: |cfg| Box::new(prioritized::Prioritized::new(cfg)),
    },
    PolicyEntry {
        name: "randomized-greedy",
        help: "fewest valid pages among gc.rga_samples random candidates (d-choices; MQSim's RGA)",
        make: |cfg| {
            Box::new(randomized_greedy::RandomizedGreedy::new(
                cfg.gc.rga_samples,
                cfg.geometry.blocks_per_plane,
            ))
        },
    },
    PolicyEntry {
        name: "fifo",
        help: "oldest closed block first (log order)",
        make: |_| Box::new(fifo::Fifo),
    },
];

/// The GC policies, as a preset names them (`gc.policy`).
pub struct GcPolicies;

impl Registry for GcPolicies {
    const KIND: &'static str = "GC policy";
    type Make = fn(&SsdConfig) -> Box<dyn GcPolicy>;
    const ENTRIES: &'static [PolicyEntry] = REGISTRY;
}

/// A GC policy chosen by name in a preset.
pub type GcPolicyChoice = Choice<GcPolicies>;

/// Builds the policy the preset chose.
pub fn make_policy(cfg: &SsdConfig) -> Box<dyn GcPolicy> {
    (cfg.gc.policy.entry().make)(cfg)
}
