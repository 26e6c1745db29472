//! `clusters`: chip clustering. Each `[[ftl.clusters]]` entry gives a range
//! of the logical space and a set of chips; the range's pages are written
//! only to those chips, to whichever of their dies takes them first (the
//! least busy, as `dynamic` does over the whole device). Pages outside every
//! range go to the chips outside every cluster. GC relocates within a
//! plane, so a cluster's data, and the GC it causes, stay on its chips: a
//! task whose data has its own chips meets no other task's programs or GC
//! there (G. Kim et al., "Dynamic Chip Clustering and Task Allocation for
//! Real-time Flash", DAC 2021).

use super::{AllocationEntry, AllocationPolicy, Target};
use crate::layout::Layout;
use serde::{Deserialize, Serialize};
use ssdlab_protocol::Lpn;

pub const ENTRY: AllocationEntry = AllocationEntry {
    name: "clusters",
    help: "each [[ftl.clusters]] range of the logical space on its own chips; the rest on the other chips",
    make: |layout, clusters| Box::new(Clusters::new(layout, clusters)),
};

/// A chip cluster (`[[ftl.clusters]]`): the logical pages from `from` to
/// `to` (shares of the logical space) live on the chips `chips` only
/// (numbered channel by channel: chip `c` of channel `h` is `h ×
/// chips_per_channel + c`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ChipCluster {
    pub chips: Vec<u32>,
    pub from: f64,
    pub to: f64,
}

/// The logical pages `[start, end)` of each cluster, in the order given
/// (the same rounding for the policy and the preset's checks).
pub fn cluster_ranges(logical_pages: u32, clusters: &[ChipCluster]) -> Vec<(u32, u32)> {
    let at = |share: f64| (share.clamp(0.0, 1.0) * logical_pages as f64).floor() as u32;
    clusters.iter().map(|c| (at(c.from), at(c.to))).collect()
}

pub struct Clusters {
    /// `(start, end, group)`, sorted by start, not overlapping.
    ranges: Vec<(u32, u32, u32)>,
    /// The group of the chips outside every cluster, if there are any.
    rest: Option<u32>,
    /// Each die's group.
    die_groups: Vec<u32>,
}

impl Clusters {
    fn new(layout: &Layout, clusters: &[ChipCluster]) -> Clusters {
        let mut ranges: Vec<(u32, u32, u32)> = cluster_ranges(layout.logical_pages, clusters)
            .into_iter()
            .zip(0..)
            .map(|((start, end), group)| (start, end, group))
            .collect();
        ranges.sort_unstable();
        let chips = layout.channels * layout.chips_per_channel;
        let mut chip_group: Vec<Option<u32>> = vec![None; chips as usize];
        for (group, c) in (0..).zip(clusters) {
            for &chip in &c.chips {
                // Out-of-range chips never pass the preset's checks.
                if let Some(slot) = chip_group.get_mut(chip as usize) {
                    *slot = Some(group);
                }
            }
        }
        let rest_group = clusters.len() as u32;
        let rest = chip_group.iter().any(Option::is_none).then_some(rest_group);
        let die_groups = (0..layout.dies)
            .map(|die| chip_group[(die / layout.dies_per_chip) as usize].unwrap_or(rest_group))
            .collect();
        Clusters {
            ranges,
            rest,
            die_groups,
        }
    }
}

impl AllocationPolicy for Clusters {
    fn name(&self) -> &'static str {
        "clusters"
    }

    fn target(&self, lpa: Lpn) -> Target {
        let i = self.ranges.partition_point(|&(start, _, _)| start <= lpa.0);
        match i.checked_sub(1).map(|i| self.ranges[i]) {
            Some((_, end, group)) if lpa.0 < end => Target::Group(group),
            // The preset's checks give pages outside every range chips of
            // their own; `Any` keeps an unchecked preset from panicking.
            _ => self.rest.map_or(Target::Any, Target::Group),
        }
    }

    fn die_groups(&self) -> &[u32] {
        &self.die_groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ChipCluster, SsdConfig};

    fn cfg(clusters: Vec<ChipCluster>) -> SsdConfig {
        let mut cfg = SsdConfig::builtin("mqsim-64g").unwrap();
        cfg.ftl.clusters = clusters;
        cfg
    }

    #[test]
    fn pages_go_to_their_clusters_chips_and_the_rest_to_the_others() {
        let cfg = cfg(vec![
            ChipCluster {
                chips: vec![0, 1],
                from: 0.5,
                to: 0.75,
            },
            ChipCluster {
                chips: vec![5],
                from: 0.0,
                to: 0.1,
            },
        ]);
        let layout = cfg.layout();
        let p = Clusters::new(&layout, &cfg.ftl.clusters);
        let n = layout.logical_pages;
        let at = |share: f64| Lpn((share * n as f64) as u32);
        assert_eq!(p.target(at(0.6)), Target::Group(0));
        assert_eq!(p.target(Lpn(0)), Target::Group(1));
        assert_eq!(p.target(at(0.2)), Target::Group(2));
        assert_eq!(p.target(Lpn(n - 1)), Target::Group(2));
        // Range ends are exclusive.
        assert_eq!(p.target(Lpn(n / 2 - 1)), Target::Group(2));
        assert_eq!(p.target(Lpn(n / 2)), Target::Group(0));
        let per_chip = layout.dies_per_chip as usize;
        let groups = p.die_groups();
        assert_eq!(groups.len(), layout.dies as usize);
        assert!(groups[..2 * per_chip].iter().all(|&g| g == 0));
        assert!(groups[5 * per_chip..6 * per_chip].iter().all(|&g| g == 1));
        assert_eq!(
            groups.iter().filter(|&&g| g == 2).count(),
            groups.len() - 3 * per_chip
        );
    }

    #[test]
    fn without_other_chips_no_page_is_left_over() {
        let chips = {
            let l = cfg(vec![]).layout();
            l.channels * l.chips_per_channel
        };
        let cfg = cfg(vec![ChipCluster {
            chips: (0..chips).collect(),
            from: 0.0,
            to: 1.0,
        }]);
        let layout = cfg.layout();
        let p = Clusters::new(&layout, &cfg.ftl.clusters);
        assert!(p.rest.is_none());
        assert_eq!(p.target(Lpn(layout.logical_pages - 1)), Target::Group(0));
    }
}
