//! Clustering-BFD online: tasks arrive and leave one at a time. An
//! arriving task tries steps 1 to 3 on the current clusters and free
//! chips; when that fails and migration is allowed, every task is packed
//! again from scratch (the data moves are not costed). A departing task
//! leaves its cluster; a cluster left empty frees its chips; the other
//! tasks stay where they are.

use super::clustering_bfd::{pack, Packing};
use super::{by_isolated_density, Group};
use crate::taskset::TaskSet;

/// How an arriving task was admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// Placed by steps 1 to 3; no other task moved.
    Incremental,
    /// Every admitted task was packed again.
    Reallocated,
}

/// The admitted tasks (indices into one task set) and their clusters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnlineClustering {
    packing: Packing,
}

impl OnlineClustering {
    /// No task yet; every chip free.
    pub fn new(ts: &TaskSet) -> Self {
        OnlineClustering {
            packing: Packing::new(ts.platform.chips),
        }
    }

    pub fn groups(&self) -> &[Group] {
        &self.packing.groups
    }

    pub fn free_chips(&self) -> u32 {
        self.packing.free
    }

    /// Admits task `task` of `ts`, or says why not (the state unchanged).
    pub fn arrive(&mut self, ts: &TaskSet, task: usize) -> Result<Arrival, String> {
        if self.admitted().contains(&task) {
            return Err(format!(
                "task '{}' is already admitted",
                ts.tasks[task].name
            ));
        }
        if self.packing.place_incremental(ts, task) {
            return Ok(Arrival::Incremental);
        }
        if !ts.analysis.allow_migration {
            return Err(format!(
                "task '{}' fits without moving other tasks nowhere (migration not allowed)",
                ts.tasks[task].name
            ));
        }
        let mut all = self.admitted();
        all.push(task);
        let order: Vec<usize> = by_isolated_density(ts)
            .into_iter()
            .filter(|t| all.contains(t))
            .collect();
        match pack(ts, &order) {
            Ok(p) => {
                self.packing = p;
                Ok(Arrival::Reallocated)
            }
            Err((partial, pos)) => Err(super::clustering_bfd::no_fit_reason(
                ts, &partial, order[pos],
            )),
        }
    }

    /// Removes `task`; false when it was not admitted.
    pub fn depart(&mut self, task: usize) -> bool {
        let Some(k) = self
            .packing
            .groups
            .iter()
            .position(|g| g.tasks.contains(&task))
        else {
            return false;
        };
        self.packing.groups[k].tasks.retain(|&t| t != task);
        if self.packing.groups[k].tasks.is_empty() {
            self.packing.free += self.packing.groups.remove(k).chips;
        }
        true
    }

    /// The admitted tasks, cluster by cluster.
    pub fn admitted(&self) -> Vec<usize> {
        self.packing
            .groups
            .iter()
            .flat_map(|g| g.tasks.iter().copied())
            .collect()
    }
}
