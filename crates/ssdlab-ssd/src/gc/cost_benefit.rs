//! Cost-benefit (Rosenblum and Ousterhout, LFS, 1992): maximise
//! benefit/cost = (1 - u) × age / (2u), u the valid share, age the host pages
//! written since the block was closed. An empty block (u = 0) wins outright.

use super::GcPolicy;
use crate::ftl::Ftl;
use crate::ids::{BlockId, PlaneId};
use rand_chacha::ChaCha8Rng;

pub struct CostBenefit;

impl GcPolicy for CostBenefit {
    fn name(&self) -> &'static str {
        "cost-benefit"
    }

    fn select_victim(
        &mut self,
        ftl: &Ftl,
        plane: PlaneId,
        _rng: &mut ChaCha8Rng,
    ) -> Option<BlockId> {
        let ppb = ftl.layout().pages_per_block as f64;
        let mut best: Option<(f64, BlockId)> = None;
        for b in ftl.candidates(plane) {
            let u = ftl.valid(b) as f64 / ppb;
            if u == 0.0 {
                return Some(b);
            }
            let age = (ftl.seq() - ftl.closed_seq(b)) as f64 + 1.0;
            let score = (1.0 - u) * age / (2.0 * u);
            // Strictly greater: the first (fewest valid) wins ties.
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, b));
            }
        }
        best.map(|(_, b)| b)
    }
}
