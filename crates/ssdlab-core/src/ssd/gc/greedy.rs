//! Greedy: the candidate with the fewest valid pages. O(pages per block) via
//! the FTL's valid-count buckets. Ties: the block that reached that count last.

use super::GcPolicy;
use crate::ssd::ftl::Ftl;
use rand_chacha::ChaCha8Rng;

pub struct Greedy;

impl GcPolicy for Greedy {
    fn name(&self) -> &'static str {
        "greedy"
    }

    fn select_victim(&mut self, ftl: &Ftl, plane: u32, _rng: &mut ChaCha8Rng) -> Option<u32> {
        ftl.candidates(plane).next()
    }
}
