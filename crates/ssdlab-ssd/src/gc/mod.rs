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

use super::ftl::Ftl;
use super::registry::{Choice, Entry, Registry};
use crate::ids::{BlockId, PlaneId};
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

/// What the victim policies are built from: numbers of the preset, taken
/// once when a device is built (`ssd::build`).
#[derive(Debug, Clone, PartialEq)]
pub struct VictimParams {
    /// Blocks of a plane (`geometry.blocks_per_plane`).
    pub blocks_per_plane: u32,
    /// Candidates `randomized-greedy` samples (`gc.rga_samples`).
    pub rga_samples: u32,
    /// Moving one valid page: an array read and a program (tR + tPROG).
    pub copy_ns: u64,
    /// Erasing a block (tBERS).
    pub erase_ns: u64,
    /// `prioritized`: the weight that defers still-hot blocks (λ) and the
    /// horizon over which a hot block is expected to invalidate.
    pub lambda: f64,
    pub hot_horizon_ns: u64,
}

/// A victim policy's registry entry.
pub type PolicyEntry = Entry<fn(&VictimParams) -> Box<dyn GcPolicy>>;

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
        make: |p| Box::new(prioritized::Prioritized::new(p)),
    },
    PolicyEntry {
        name: "randomized-greedy",
        help: "fewest valid pages among gc.rga_samples random candidates (d-choices; MQSim's RGA)",
        make: |p| {
            Box::new(randomized_greedy::RandomizedGreedy::new(
                p.rga_samples,
                p.blocks_per_plane,
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
    type Make = fn(&VictimParams) -> Box<dyn GcPolicy>;
    const ENTRIES: &'static [PolicyEntry] = REGISTRY;
}

/// A GC policy chosen by name in a preset.
pub type GcPolicyChoice = Choice<GcPolicies>;

/// Builds the chosen policy.
pub fn make_policy(choice: GcPolicyChoice, params: &VictimParams) -> Box<dyn GcPolicy> {
    (choice.entry().make)(params)
}
