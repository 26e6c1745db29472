//! The checks of `[[ftl.clusters]]` (the `clusters` allocation): each
//! cluster a range of the logical space and chips that exist, no chip in
//! two clusters, no page in two ranges, and every cluster (and the chips
//! outside them) no fuller than the device as a whole.

use super::check::Problem;
use super::{Mapping, SsdConfig};
use crate::alloc::cluster_ranges;
use crate::layout::Layout;

impl SsdConfig {
    pub(super) fn check_clusters(&self, problems: &mut Vec<Problem>) {
        let mut err = |k: String, m: String| problems.push((k, m));
        let clustered = self.ftl.allocation.entry().name == "clusters";
        let given = !self.ftl.clusters.is_empty();
        if clustered && !given {
            err(
                "ftl.allocation".into(),
                "\"clusters\" needs at least one [[ftl.clusters]] table".into(),
            );
        }
        if given && !clustered {
            err(
                "ftl.clusters.1".into(),
                "chip clusters need allocation = \"clusters\"".into(),
            );
        }
        if !(clustered && given) {
            return;
        }
        if self.ftl.mapping != Mapping::Page {
            err(
                "ftl.mapping".into(),
                "chip clusters need the page mapping".into(),
            );
        }
        let layout = self.layout();
        let chips = layout.channels * layout.chips_per_channel;
        let mut owner: Vec<Option<usize>> = vec![None; chips as usize];
        for (i, c) in self.ftl.clusters.iter().enumerate() {
            let key = |field: &str| format!("ftl.clusters.{}.{field}", i + 1);
            if !(c.from.is_finite()
                && c.to.is_finite()
                && 0.0 <= c.from
                && c.from < c.to
                && c.to <= 1.0)
            {
                err(
                    key("from"),
                    format!(
                        "cluster {}: from = {} and to = {} must be shares of the logical space with 0 <= from < to <= 1",
                        i + 1,
                        c.from,
                        c.to
                    ),
                );
            }
            if c.chips.is_empty() {
                err(
                    key("chips"),
                    format!("cluster {}: give at least one chip", i + 1),
                );
            }
            for &chip in &c.chips {
                match owner.get_mut(chip as usize) {
                    None => err(
                        key("chips"),
                        format!(
                            "cluster {}: chip {chip} does not exist (the device has chips 0 to {})",
                            i + 1,
                            chips - 1
                        ),
                    ),
                    Some(Some(j)) => err(
                        key("chips"),
                        format!(
                            "cluster {}: chip {chip} is already in cluster {}",
                            i + 1,
                            *j + 1
                        ),
                    ),
                    Some(slot) => *slot = Some(i),
                }
            }
        }
        if !problems.is_empty() {
            return;
        }
        self.check_cluster_space(&layout, &owner, problems);
    }

    /// No two ranges share a page, and every cluster's pages (and the
    /// rest's) fit its chips with room for GC: the blocks per plane the
    /// device-wide check asks of the spare (the host reserve, two
    /// frontiers and one block to collect, besides the SLC cache).
    fn check_cluster_space(
        &self,
        layout: &Layout,
        owner: &[Option<usize>],
        problems: &mut Vec<Problem>,
    ) {
        let mut err = |k: String, m: String| problems.push((k, m));
        let chips = owner.len() as u64;
        let logical = layout.logical_pages as u64;
        let ranges = cluster_ranges(layout.logical_pages, &self.ftl.clusters);
        let mut sorted: Vec<(u32, u32, usize)> = ranges
            .iter()
            .zip(0..)
            .map(|(&(s, e), i)| (s, e, i))
            .collect();
        sorted.sort_unstable();
        let mut overlap = false;
        for w in sorted.windows(2) {
            if w[1].0 < w[0].1 {
                overlap = true;
                err(
                    format!("ftl.clusters.{}.from", w[1].2 + 1),
                    format!(
                        "clusters {} and {} share logical pages",
                        w[0].2 + 1,
                        w[1].2 + 1
                    ),
                );
            }
        }
        // The room each range needs is only known once they are apart.
        if overlap {
            return;
        }
        let room = self.pages_per_chip_for_data(layout);
        let share = |pages: u64| 100.0 * pages as f64 / logical as f64;
        for (i, c) in self.ftl.clusters.iter().enumerate() {
            let (start, end) = ranges[i];
            let (pages, n) = ((end - start) as u64, c.chips.len() as u64);
            if pages == 0 {
                err(
                    format!("ftl.clusters.{}.to", i + 1),
                    format!(
                        "cluster {}: from {} to {} covers no logical page",
                        i + 1,
                        c.from,
                        c.to
                    ),
                );
            }
            if pages > n * room {
                err(
                    format!("ftl.clusters.{}.to", i + 1),
                    format!(
                        "cluster {}: {:.1} % of the logical space ({pages} pages) does not fit {n} chip(s), \
                         which hold {} pages besides GC's room",
                        i + 1,
                        share(pages),
                        n * room
                    ),
                );
            }
        }
        let rest_chips = owner.iter().filter(|o| o.is_none()).count() as u64;
        let clustered: u64 = ranges.iter().map(|&(s, e)| (e - s) as u64).sum();
        let rest = logical.saturating_sub(clustered);
        self.check_dynamic_cache(&ranges, rest, rest_chips, chips, logical, problems);
        let mut err = |k: String, m: String| problems.push((k, m));
        if rest > rest_chips * room {
            err(
                "ftl.clusters.1".into(),
                format!(
                    "the {:.1} % of the logical space outside every cluster ({rest} pages) goes to the \
                     {rest_chips} of {chips} chips outside them, which hold {} pages besides GC's room",
                    share(rest),
                    rest_chips * room
                ),
            );
        }
    }

    /// The pages of data one chip can hold and still collect: its native
    /// blocks less the host reserve, two frontiers and one block per plane.
    pub fn pages_per_chip_for_data(&self, layout: &Layout) -> u64 {
        let native = self.geometry.blocks_per_plane as u64 - self.slc_blocks_per_plane();
        let blocks = native.saturating_sub(self.gc_blocks_per_plane());
        blocks
            * layout.pages_per_block as u64
            * (layout.dies_per_chip * layout.planes_per_die) as u64
    }

    /// The SLC cache's dynamic part lends a plane's free blocks beyond the
    /// device's spare per plane; a cluster fuller than the device would lend
    /// the room its own data needs, so with a dynamic part no cluster (nor
    /// the rest) may hold a larger share of the logical space than of the
    /// chips (give or take the rounding of the ranges' ends).
    fn check_dynamic_cache(
        &self,
        ranges: &[(u32, u32)],
        rest: u64,
        rest_chips: u64,
        chips: u64,
        logical: u64,
        problems: &mut Vec<Problem>,
    ) {
        if self
            .slc_cache
            .as_ref()
            .is_none_or(|c| c.dynamic_blocks_per_plane == 0)
        {
            return;
        }
        // Each range's ends round down: a cluster may be a page over its
        // exact share, the rest one page per cluster.
        let fuller = |pages: u64, n: u64, slack: u64| pages * chips > logical * n + slack * chips;
        let why = "the SLC cache's dynamic part lends what the device keeps spare on average";
        for (i, (c, &(start, end))) in self.ftl.clusters.iter().zip(ranges).enumerate() {
            let n = c.chips.len() as u64;
            if fuller((end - start) as u64, n, 1) {
                problems.push((
                    format!("ftl.clusters.{}.to", i + 1),
                    format!(
                        "cluster {}: {:.1} % of the logical space on {n} of {chips} chips is fuller than the device ({why})",
                        i + 1,
                        100.0 * (c.to - c.from)
                    ),
                ));
            }
        }
        if rest > 0 && fuller(rest, rest_chips, ranges.len() as u64 + 1) {
            problems.push((
                "ftl.clusters.1".into(),
                format!(
                    "the logical space outside every cluster ({:.1} %) on {rest_chips} of {chips} chips is fuller than the device ({why})",
                    100.0 * rest as f64 / logical as f64
                ),
            ));
        }
    }
}
