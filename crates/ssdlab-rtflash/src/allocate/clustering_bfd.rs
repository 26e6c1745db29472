//! Clustering-BFD (Kim et al., "Dynamic Chip Clustering and Task Allocation for
//! framework): best-fit-decreasing bin packing whose bins, the clusters,
//! are created and resized while packing. Tasks go densest first (density
//! alone on one chip); each goes, in this order of preference:
//!
//! 1. into the existing cluster it fits best without adding chips (least
//!    slack left, i.e. highest resulting density);
//! 2. into a new cluster of the fewest free chips that can hold it alone;
//! 3. into an existing cluster grown by free chips (best fit over cluster
//!    and number of chips added);
//! 4. into the merge of two clusters plus the fewest free chips needed.
//!
//! Chips left over form the NRT-only cluster, or, with `[analysis]
//! leftover_chips = "spread"`, go one by one to the cluster whose space is
//! fullest (our option, docs/rt-flash.md). When no task order succeeds
//! the global and full-isolation layouts are tried as well (a choice of
//! ours, docs/rt-flash.md): the heuristic alone does not always accept a
//! set one of the baselines accepts.

use super::{by_isolated_density, full_isolation, global, layout_failure, Group, Plan};
use crate::analysis::{check_cluster, cluster_space};
use crate::taskset::{LeftoverChips, TaskSet};

/// Clusters being packed and the chips still free.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Packing {
    pub groups: Vec<Group>,
    pub free: u32,
}

impl Packing {
    pub fn new(chips: u32) -> Self {
        Packing {
            groups: Vec::new(),
            free: chips,
        }
    }

    /// Steps 1 to 3, as the online allocator uses them.
    pub fn place_incremental(&mut self, ts: &TaskSet, task: usize) -> bool {
        self.join_existing(ts, task) || self.open_new(ts, task) || self.grow_existing(ts, task)
    }

    /// Steps 1 to 4.
    pub fn place(&mut self, ts: &TaskSet, task: usize) -> bool {
        self.place_incremental(ts, task) || self.merge_two(ts, task)
    }

    /// Hands the free chips out one at a time, each to the cluster whose
    /// space is fullest (`ρ`) among those that still pass with it. NRT data
    /// are striped over every chip and an NRT request waits for its slowest
    /// part, so the fullest cluster's GC sets the NRT bandwidth; a chip
    /// added to a cluster only lowers its per-chip load (fewer pages per
    /// chip, a lower `ρ`, a cheaper GC round), so the check is a safeguard.
    pub fn spread_leftover(&mut self, ts: &TaskSet) {
        while self.free > 0 {
            let fullest = self
                .groups
                .iter()
                .enumerate()
                .filter(|(_, g)| check_cluster(ts, &g.tasks, g.chips + 1).schedulable())
                // Ties go to the cluster packed first.
                .max_by_key(|&(k, g)| (space_share(ts, g), std::cmp::Reverse(k)))
                .map(|(k, _)| k);
            let Some(k) = fullest else { return };
            self.groups[k].chips += 1;
            self.free -= 1;
        }
    }

    fn join_existing(&mut self, ts: &TaskSet, task: usize) -> bool {
        let found = densest(self.groups.iter().enumerate().map(|(k, g)| {
            let tasks = with(&g.tasks, task);
            (density_if_schedulable(ts, &tasks, g.chips), k)
        }));
        found.map(|k| self.groups[k].tasks.push(task)).is_some()
    }

    fn open_new(&mut self, ts: &TaskSet, task: usize) -> bool {
        let Some(n) = (1..=self.free).find(|&n| check_cluster(ts, &[task], n).schedulable()) else {
            return false;
        };
        self.free -= n;
        self.groups.push(Group {
            chips: n,
            tasks: vec![task],
        });
        true
    }

    fn grow_existing(&mut self, ts: &TaskSet, task: usize) -> bool {
        let mut options = Vec::new();
        for (k, g) in self.groups.iter().enumerate() {
            let tasks = with(&g.tasks, task);
            for extra in 1..=self.free {
                options.push((
                    density_if_schedulable(ts, &tasks, g.chips + extra),
                    (k, extra),
                ));
            }
        }
        let Some((k, extra)) = densest(options.into_iter()) else {
            return false;
        };
        self.free -= extra;
        self.groups[k].chips += extra;
        self.groups[k].tasks.push(task);
        true
    }

    fn merge_two(&mut self, ts: &TaskSet, task: usize) -> bool {
        let mut options = Vec::new();
        for a in 0..self.groups.len() {
            for b in a + 1..self.groups.len() {
                if let Some(option) = self.merge_option(ts, task, a, b) {
                    options.push(option);
                }
            }
        }
        let Some((a, b, extra)) = densest(options.into_iter()) else {
            return false;
        };
        let second = self.groups.remove(b);
        let first = &mut self.groups[a];
        first.chips += second.chips + extra;
        first.tasks.extend(second.tasks);
        first.tasks.push(task);
        self.free -= extra;
        true
    }

    /// Clusters `a` and `b` merged with the fewest free chips that make
    /// them pass with `task`, and the resulting density.
    fn merge_option(
        &self,
        ts: &TaskSet,
        task: usize,
        a: usize,
        b: usize,
    ) -> Option<(Option<u128>, (usize, usize, u32))> {
        let (ga, gb) = (&self.groups[a], &self.groups[b]);
        let mut tasks = ga.tasks.clone();
        tasks.extend(&gb.tasks);
        tasks.push(task);
        (0..=self.free).find_map(|extra| {
            let d = density_if_schedulable(ts, &tasks, ga.chips + gb.chips + extra)?;
            Some((Some(d), (a, b, extra)))
        })
    }
}

/// The share of a cluster's space its data fill (`ρ`), in ppb.
fn space_share(ts: &TaskSet, g: &Group) -> u128 {
    let space = cluster_space(ts, &g.tasks, g.chips);
    u128::from(space.used_pages) * 1_000_000_000 / u128::from(space.capacity_pages.max(1))
}

fn with(tasks: &[usize], task: usize) -> Vec<usize> {
    let mut out = tasks.to_vec();
    out.push(task);
    out
}

fn density_if_schedulable(ts: &TaskSet, tasks: &[usize], chips: u32) -> Option<u128> {
    let c = check_cluster(ts, tasks, chips);
    c.schedulable().then_some(c.density_ppb)
}

/// The option of highest density among those that pass (the least slack
/// left: best fit); the first on ties.
fn densest<T>(options: impl Iterator<Item = (Option<u128>, T)>) -> Option<T> {
    let mut best: Option<(u128, T)> = None;
    for (d, x) in options {
        if let Some(d) = d {
            if best.as_ref().is_none_or(|(b, _)| d > *b) {
                best = Some((d, x));
            }
        }
    }
    best.map(|(_, x)| x)
}

/// Packs `order` from scratch; on failure, the packing so far and the
/// position in `order` of the task that fits nowhere.
pub(super) fn pack(ts: &TaskSet, order: &[usize]) -> Result<Packing, (Packing, usize)> {
    let mut packing = Packing::new(ts.platform.chips);
    for (pos, &task) in order.iter().enumerate() {
        if !packing.place(ts, task) {
            return Err((packing, pos));
        }
    }
    Ok(packing)
}

/// Why `task` fits nowhere in `packing`.
pub(super) fn no_fit_reason(ts: &TaskSet, packing: &Packing, task: usize) -> String {
    let name = &ts.tasks[task].name;
    if packing.free == 0 {
        return format!(
            "task '{name}' fits in no existing, grown or merged cluster and no chip is free"
        );
    }
    let why = check_cluster(ts, &[task], packing.free)
        .verdict
        .err()
        .unwrap_or_else(|| "it passes alone".into());
    format!(
        "task '{name}' fits in no cluster; alone on the {} free chip(s): {why}",
        packing.free
    )
}

pub(super) fn plan(ts: &TaskSet) -> Plan {
    let order = by_isolated_density(ts);
    let (packing, pos) = match pack(ts, &order) {
        Ok(mut p) => {
            if ts.analysis.leftover_chips == LeftoverChips::Spread {
                p.spread_leftover(ts);
            }
            return plan_of(p.groups, None, None);
        }
        Err(e) => e,
    };
    let global = global::layout(ts);
    if layout_failure(ts, &global, ts.platform.chips).is_none() {
        let note = "Clustering-BFD found no packing; the global layout passes";
        return plan_of(global, None, Some(note.into()));
    }
    let isolated = full_isolation::plan(ts);
    if isolated.failure.is_none() {
        let note = "Clustering-BFD found no packing; the full-isolation layout passes";
        return plan_of(isolated.groups, None, Some(note.into()));
    }
    let reason = no_fit_reason(ts, &packing, order[pos]);
    Plan {
        groups: packing.groups,
        unplaced: order[pos..].to_vec(),
        failure: Some(reason),
        note: None,
    }
}

fn plan_of(groups: Vec<Group>, failure: Option<String>, note: Option<String>) -> Plan {
    Plan {
        groups,
        unplaced: Vec::new(),
        failure,
        note,
    }
}
