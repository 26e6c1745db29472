//! Greedy: the candidate with the fewest valid pages, found through the
//! FTL's valid-count buckets. Ties: the lowest erase count (a choice of
//! ours, see docs/model.md), then the block that reached that count last.

use super::GcPolicy;
use crate::ftl::Ftl;
use crate::ids::{BlockId, PlaneId};
use rand_chacha::ChaCha8Rng;

pub struct Greedy;

impl GcPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn select_victim(
        &mut self,
        ftl: &Ftl,
        plane: PlaneId,
        _rng: &mut ChaCha8Rng,
    ) -> Option<BlockId> {
        let first = ftl.candidates(plane).next()?;
        let v = ftl.valid(first);
        ftl.bucket(plane, v).min_by_key(|&b| ftl.erase_count(b))
    }
}
