//! Full isolation: every cluster is one chip and a task never spans chips;
//! tasks are packed best-fit decreasing (densest first, into the chip left
//! with the least slack that still passes), a new chip opened when none
//! does (the baseline "Full-Isolation" of Kim et al., "Dynamic Chip
//! Clustering and Task Allocation for Real-time Flash", DAC 2021). A task that passes on no chip still gets a chip of its own while
//! chips are free, so that its worst-case latency can be reported.

use super::{by_isolated_density, Group, Plan};
use crate::analysis::check_cluster;
use crate::taskset::TaskSet;

pub(super) fn plan(ts: &TaskSet) -> Plan {
    let mut plan = Plan {
        groups: Vec::new(),
        unplaced: Vec::new(),
        failure: None,
        note: None,
    };
    for task in by_isolated_density(ts) {
        place(ts, &mut plan, task);
    }
    plan
}

fn place(ts: &TaskSet, plan: &mut Plan, task: usize) {
    if let Some(k) = best_fit(ts, &plan.groups, task) {
        plan.groups[k].tasks.push(task);
        return;
    }
    let name = &ts.tasks[task].name;
    if plan.chips_used() >= ts.platform.chips {
        plan.unplaced.push(task);
        plan.failure
            .get_or_insert_with(|| format!("task '{name}' fits on no chip and no chip is left"));
        return;
    }
    if let Err(why) = check_cluster(ts, &[task], 1).verdict {
        plan.failure
            .get_or_insert_with(|| format!("task '{name}' alone on one chip: {why}"));
    }
    plan.groups.push(Group {
        chips: 1,
        tasks: vec![task],
    });
}

/// The chip that stays schedulable with `task` and has the least slack
/// left (the highest density); the first such chip on ties.
fn best_fit(ts: &TaskSet, groups: &[Group], task: usize) -> Option<usize> {
    let mut best: Option<(u128, usize)> = None;
    for (k, g) in groups.iter().enumerate() {
        let mut tasks = g.tasks.clone();
        tasks.push(task);
        let c = check_cluster(ts, &tasks, 1);
        if c.schedulable() && best.is_none_or(|(d, _)| c.density_ppb > d) {
            best = Some((c.density_ppb, k));
        }
    }
    best.map(|(_, k)| k)
}
