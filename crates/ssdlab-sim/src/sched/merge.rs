//! Bio-into-request merging shared by the FIFO-based schedulers.

use super::{MergeKind, Request};
use std::collections::VecDeque;

/// Back or front merge of `bio` into a same-direction contiguous request of
/// `queue`, looking at up to `max_checks` requests newest first (the kernel's
/// list merge also looks from the tail). Returns the id of the grown request.
pub fn merge_into_fifo(
    queue: &mut VecDeque<Request>,
    bio: &Request,
    max_bytes: u32,
    max_checks: usize,
) -> Option<(u64, MergeKind)> {
    for rq in queue.iter_mut().rev().take(max_checks) {
        if rq.dir != bio.dir || rq.bytes as u64 + bio.bytes as u64 > max_bytes as u64 {
            continue;
        }
        if rq.end_sector() == bio.sector {
            rq.bytes += bio.bytes;
            return Some((rq.id, MergeKind::Back));
        }
        if bio.end_sector() == rq.sector {
            rq.sector = bio.sector;
            rq.bytes += bio.bytes;
            return Some((rq.id, MergeKind::Front));
        }
    }
    None
}
