//! The merge lookups of the single-queue elevator core (block/elevator.c,
//! Linux 2.6.30), shared by `noop` and `deadline`. Before the elevator is
//! asked, the core tries two things of its own:
//!
//! 1. the one-hit cache `last_merge`: the request the last bio merged into,
//!    or, when there was none, the first request inserted since. A bio may
//!    join it at its end or at its start, so even `noop`, which has no merge
//!    function, front-merges into it;
//! 2. the request hash, keyed by end sector: a back merge into any queued
//!    request.
//!
//! The first candidate found decides: if the grown request would exceed the
//! size limit the kernel makes a new request rather than look further
//! (ll_back_merge_fn and ll_front_merge_fn refuse after elv_merge chose).
//! The kernel's hash bucket gives the first request with that end sector,
//! whatever its direction; here the lookup takes one the bio may merge with,
//! which differs only if a read and a write end at the same sector.

use super::merge::{fits, grow, may_merge};
use super::{MergeKind, Request};
use std::collections::BTreeSet;

#[derive(Debug, Default)]
pub struct ElevatorMerge {
    /// Mergeable requests queued in the elevator, as (end sector, id).
    by_end: BTreeSet<(u64, u64)>,
    last_merge: Option<u64>,
}

/// A request that never takes bios (the kernel's rq_mergeable).
fn mergeable(rq: &Request) -> bool {
    !(rq.flush || rq.fua)
}

impl ElevatorMerge {
    /// A request enters the elevator (elv_insert, ELEVATOR_INSERT_SORT): it
    /// joins the hash and, if the cache is empty, the cache.
    pub fn inserted(&mut self, rq: &Request) {
        if mergeable(rq) {
            self.by_end.insert((rq.end_sector(), rq.id));
            self.last_merge.get_or_insert(rq.id);
        }
    }

    /// A request leaves the elevator for the dispatch list
    /// (elv_dispatch_add_tail, elv_dispatch_sort): no bio joins it after that.
    pub fn dispatched(&mut self, rq: &Request) {
        self.by_end.remove(&(rq.end_sector(), rq.id));
        if self.last_merge == Some(rq.id) {
            self.last_merge = None;
        }
    }

    /// elv_merge's own lookups: the cache (back, then front), then the hash
    /// (back only). `rq_of` gives a request queued in the elevator by id.
    pub fn find<'a>(
        &self,
        bio: &Request,
        rq_of: impl Fn(u64) -> &'a Request,
    ) -> Option<(u64, MergeKind)> {
        if let Some(id) = self.last_merge {
            let rq = rq_of(id);
            if may_merge(rq, bio) {
                if rq.end_sector() == bio.sector {
                    return Some((id, MergeKind::Back));
                }
                if bio.end_sector() == rq.sector {
                    return Some((id, MergeKind::Front));
                }
            }
        }
        self.by_end
            .range((bio.sector, 0)..=(bio.sector, u64::MAX))
            .map(|&(_, id)| id)
            .find(|&id| may_merge(rq_of(id), bio))
            .map(|id| (id, MergeKind::Back))
    }

    /// Merges `bio` into the candidate `rq` if the size limit allows
    /// (elv_merged_request): the request grows, moves in the hash after a
    /// back merge, and becomes the cached one. False if it would be too large.
    pub fn merge(
        &mut self,
        rq: &mut Request,
        bio: &Request,
        kind: MergeKind,
        max_bytes: u32,
    ) -> bool {
        if !fits(rq, bio, max_bytes) {
            return false;
        }
        let old_end = rq.end_sector();
        grow(rq, bio, kind);
        if kind == MergeKind::Back {
            self.by_end.remove(&(old_end, rq.id));
            self.by_end.insert((rq.end_sector(), rq.id));
        }
        self.last_merge = Some(rq.id);
        true
    }
}
