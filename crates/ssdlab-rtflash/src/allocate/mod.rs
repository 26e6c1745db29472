//! Task-to-cluster allocation: one approach, one file, one registry line.
//! An approach turns a task set into a `Plan` (clusters of chips and their
//! tasks, or the task that fits nowhere); `allocate` turns the plan into
//! the reported `Allocation`.

mod clustering_bfd;
mod full_isolation;
mod global;
mod online;
mod report;

pub use online::{Arrival, OnlineClustering};
pub use report::{Allocation, ClusterReport, LatencyBreakdown, TaskReport};

use super::analysis::check_cluster;
use super::taskset::TaskSet;
use ssdlab_sim::ssd::registry::{Choice, Entry, Registry};

/// A group of chips and the tasks (indices into the task set) it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    pub chips: u32,
    pub tasks: Vec<usize>,
}

/// What an approach decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The clusters with tasks; the chips left over form the NRT-only
    /// cluster.
    pub groups: Vec<Group>,
    /// Tasks the approach could not place.
    pub unplaced: Vec<usize>,
    /// Why the set is unschedulable under this approach, if it is.
    pub failure: Option<String>,
    /// A remark on how the plan was reached (a fallback layout).
    pub note: Option<String>,
}

impl Plan {
    pub fn chips_used(&self) -> u32 {
        self.groups.iter().map(|g| g.chips).sum()
    }
}

/// An approach's constructor: the plan for a task set.
pub type Approach = fn(&TaskSet) -> Plan;

pub const REGISTRY: &[Entry<Approach>] = &[
    Entry {
        name: "clustering",
        help: "Clustering-BFD: clusters made and resized while packing (the proposed approach)",
        make: clustering_bfd::plan,
    },
    Entry {
        name: "global",
        help: "one cluster of all chips shared by every task",
        make: global::plan,
    },
    Entry {
        name: "full-isolation",
        help: "best-fit decreasing onto single chips; a task never spans chips",
        make: full_isolation::plan,
    },
];

/// The allocation approaches, by name.
pub struct Approaches;

impl Registry for Approaches {
    const KIND: &'static str = "allocation approach";
    type Make = Approach;
    const ENTRIES: &'static [Entry<Approach>] = REGISTRY;
}

/// An approach chosen by name.
pub type ApproachChoice = Choice<Approaches>;

/// Allocates the task set with the chosen approach and analyses the result.
pub fn allocate(ts: &TaskSet, approach: ApproachChoice) -> Allocation {
    let plan = (approach.entry().make)(ts);
    report::build(ts, approach.name(), &plan)
}

/// Whether the chosen approach accepts the task set (no report built).
pub fn accepts(ts: &TaskSet, approach: ApproachChoice) -> bool {
    (approach.entry().make)(ts).failure.is_none()
}

/// The tasks in non-increasing order of isolated density (each alone on
/// one chip); an infeasible task counts as densest. Ties keep file order.
pub(crate) fn by_isolated_density(ts: &TaskSet) -> Vec<usize> {
    let mut keyed: Vec<(u128, usize)> = (0..ts.tasks.len())
        .map(|i| (check_cluster(ts, &[i], 1).density_ppb, i))
        .collect();
    keyed.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// The first failing group's reason, for a layout that is not decided by
/// construction (global, fallbacks).
pub(crate) fn layout_failure(ts: &TaskSet, groups: &[Group], chips: u32) -> Option<String> {
    if groups.iter().map(|g| g.chips).sum::<u32>() > chips {
        return Some(format!(
            "the layout needs more than the {chips} chips there are"
        ));
    }
    groups
        .iter()
        .find_map(|g| check_cluster(ts, &g.tasks, g.chips).verdict.err())
}

#[cfg(test)]
mod tests;
