//! Global (shared): one cluster of all chips holding every task, the way
//! an ordinary SSD stripes every request over all its chips (the baseline
//! "Global" of Kim et al., "Dynamic Chip Clustering and Task Allocation
//! for Real-time Flash", DAC 2021).

use super::{layout_failure, Group, Plan};
use crate::taskset::TaskSet;

pub(super) fn plan(ts: &TaskSet) -> Plan {
    let groups = layout(ts);
    let failure = layout_failure(ts, &groups, ts.platform.chips);
    Plan {
        groups,
        unplaced: Vec::new(),
        failure,
        note: None,
    }
}

/// Every task on every chip (no cluster when there is no task).
pub(super) fn layout(ts: &TaskSet) -> Vec<Group> {
    if ts.tasks.is_empty() {
        return Vec::new();
    }
    vec![Group {
        chips: ts.platform.chips,
        tasks: (0..ts.tasks.len()).collect(),
    }]
}
