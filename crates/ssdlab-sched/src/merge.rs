//! Bio-into-request merging shared by the schedulers: who may merge with
//! whom, and the FIFO list merge.

use super::{MergeKind, Request};
use std::collections::VecDeque;

/// Whether `bio` may join `rq` at all (the kernel's blk_rq_merge_ok): same
/// direction, and neither is a flush or FUA request. A flush or FUA write
/// stays a request of its own, so its durability point neither swallows
/// other writes nor is swallowed by them.
pub fn may_merge(rq: &Request, bio: &Request) -> bool {
    rq.dir == bio.dir && !(rq.flush || rq.fua || bio.flush || bio.fua)
}

/// Whether `rq` grown by `bio` stays within `max_bytes`.
pub fn fits(rq: &Request, bio: &Request, max_bytes: u32) -> bool {
    rq.bytes as u64 + bio.bytes as u64 <= max_bytes as u64
}

/// Grows `rq` by `bio` at its end (back) or its start (front).
pub fn grow(rq: &mut Request, bio: &Request, kind: MergeKind) {
    rq.bytes += bio.bytes;
    if kind == MergeKind::Front {
        rq.sector = bio.sector;
    }
}

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
        if !may_merge(rq, bio) || !fits(rq, bio, max_bytes) {
            continue;
        }
        let kind = if rq.end_sector() == bio.sector {
            MergeKind::Back
        } else if bio.end_sector() == rq.sector {
            MergeKind::Front
        } else {
            continue;
        };
        grow(rq, bio, kind);
        return Some((rq.id, kind));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::tests::rq;
    use ssdlab_protocol::Dir;

    #[test]
    fn nothing_merges_into_or_from_a_flush_or_fua_request() {
        let write = |id, sector| rq(id, Dir::Write, sector, 4096, true, 0);
        let mut queue: VecDeque<Request> = [write(1, 0)].into();
        queue[0].flush = true;
        assert_eq!(merge_into_fifo(&mut queue, &write(2, 8), 1 << 20, 8), None);
        queue[0].flush = false;
        queue[0].fua = true;
        assert_eq!(merge_into_fifo(&mut queue, &write(2, 8), 1 << 20, 8), None);
        queue[0].fua = false;
        let mut fua_bio = write(2, 8);
        fua_bio.fua = true;
        assert_eq!(merge_into_fifo(&mut queue, &fua_bio, 1 << 20, 8), None);
        let mut flush_bio = write(2, 8);
        flush_bio.flush = true;
        assert_eq!(merge_into_fifo(&mut queue, &flush_bio, 1 << 20, 8), None);
        assert_eq!(
            merge_into_fifo(&mut queue, &write(2, 8), 1 << 20, 8),
            Some((1, MergeKind::Back))
        );
        assert_eq!(queue[0].bytes, 8192);
    }
}
