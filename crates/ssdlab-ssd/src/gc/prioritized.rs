//! `prioritized` (after Algorithm 1 of Lee, Choi, Hong, Electronics
//! 12(9):2142, 2023, which orders victims by expected storage gain against
//! execution cost; the formula below is a choice of ours where the paper is
//! silent, see docs/model.md): the candidate with the highest
//!
//!   prio(b) = gain(b) / cost(b) / (1 + λ · hot(b))
//!   gain = invalid pages, cost = valid · (tR + tPROG) + tBERS,
//!   hot  = min(1, inv_rate(b) · H_exp / Np)
//!
//! inv_rate(b) is estimated as the block's invalid pages over the time since
//! it was closed (also our choice). With λ = 0 the order equals greedy's
//! (ties: the block closed earlier, then the lower erase count).

use super::GcPolicy;
use super::VictimParams;
use crate::ftl::Ftl;
use crate::ids::{BlockId, PlaneId};
use rand_chacha::ChaCha8Rng;

pub struct Prioritized {
    copy_ns: f64,
    erase_ns: f64,
    lambda: f64,
    hot_horizon_ns: f64,
}

impl Prioritized {
    pub fn new(p: &VictimParams) -> Prioritized {
        Prioritized {
            copy_ns: p.copy_ns as f64,
            erase_ns: p.erase_ns as f64,
            lambda: p.lambda,
            hot_horizon_ns: p.hot_horizon_ns as f64,
        }
    }

    fn prio(&self, ftl: &Ftl, b: BlockId) -> f64 {
        let np = ftl.block_capacity(b) as f64;
        let valid = ftl.valid(b) as f64;
        let invalid = np - valid;
        let cost = valid * self.copy_ns + self.erase_ns;
        let age_ns = ftl.now().saturating_sub(ftl.closed_ns(b)).max(1) as f64;
        let hot = (invalid / age_ns * self.hot_horizon_ns / np).min(1.0);
        invalid / cost / (1.0 + self.lambda * hot)
    }
}

impl GcPolicy for Prioritized {
    fn name(&self) -> &'static str {
        "prioritized"
    }

    fn score(&self, ftl: &Ftl, block: BlockId) -> f64 {
        self.prio(ftl, block)
    }

    fn select_victim(
        &mut self,
        ftl: &Ftl,
        plane: PlaneId,
        _rng: &mut ChaCha8Rng,
    ) -> Option<BlockId> {
        let key = |b: BlockId| (ftl.closed_ns(b), ftl.erase_count(b));
        ftl.candidates(plane)
            .fold(None, |best: Option<(f64, BlockId)>, b| {
                let p = self.prio(ftl, b);
                match best {
                    Some((bp, bb)) if bp > p || (bp == p && key(bb) <= key(b)) => Some((bp, bb)),
                    _ => Some((p, b)),
                }
            })
            .map(|(_, b)| b)
    }
}
