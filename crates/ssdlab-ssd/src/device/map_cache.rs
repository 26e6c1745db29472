//! The mapping-table cache (`ftl.map_journal`): dirty mapping-table pages
//! held in DRAM, and their write-back through the flush queues when the
//! cache overflows.

use super::{DevEvent, PageData, SimSsd, NO_DEADLINE};
use crate::alloc::Target;
use ssdlab_protocol::{Lpn, Ns, Timers};
use std::collections::VecDeque;

/// Dirty mapping-table pages in DRAM and their order of first dirtying.
#[derive(Default)]
pub(super) struct MapCache {
    dirty: rustc_hash::FxHashSet<u32>,
    dirty_order: VecDeque<u32>,
}

impl MapCache {
    /// Marks `table_page` dirty; true when that made the cache hold more
    /// than `limit` pages (a page already dirty changes nothing).
    pub(super) fn mark_dirty(&mut self, table_page: u32, limit: usize) -> bool {
        if !self.dirty.insert(table_page) {
            return false;
        }
        self.dirty_order.push_back(table_page);
        self.dirty_order.len() > limit
    }

    /// The page dirtied longest ago, clean again (its write-back is queued).
    pub(super) fn take_oldest(&mut self) -> Option<u32> {
        let page = self.dirty_order.pop_front()?;
        self.dirty.remove(&page);
        Some(page)
    }
}

impl SimSsd {
    /// A mapping update of a host page dirties its table page; when the
    /// dirty-page cache overflows, the `write_back_batch` oldest dirty table
    /// pages are queued for writing back.
    pub(super) fn note_map_update(&mut self, lpa: Lpn, now: Ns, q: &mut impl Timers<DevEvent>) {
        let Some(j) = &self.cfg.ftl.map_journal else {
            return;
        };
        let (table_page, limit) = (lpa.0 / j.entries_per_page, j.dirty_pages as usize);
        let batch = j.write_back_batch as usize;
        if !self.map_cache.mark_dirty(table_page, limit) {
            return;
        }
        let entries = j.entries_per_page;
        let mut groups = Vec::new();
        for _ in 0..batch {
            let oldest = self.map_cache.take_oldest().expect("over the limit");
            // A table page stays with the data it maps: with chip clusters,
            // on that cluster's chips (its first entry's page is mapped).
            match self.policies.allocation.target(Lpn(oldest * entries)) {
                Target::Group(g) => {
                    self.writes.own_flushes[g as usize].push_back((
                        PageData::MapTable,
                        now,
                        NO_DEADLINE,
                    ));
                    groups.push(g);
                }
                _ => self
                    .writes
                    .shared_flushes
                    .push_back((PageData::MapTable, now, NO_DEADLINE)),
            }
        }
        self.arm_gather(now, q);
        groups.sort_unstable();
        groups.dedup();
        for g in groups {
            self.offer_group(g, now, q);
        }
        self.offer_shared(now, q);
    }
}
