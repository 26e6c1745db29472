//! Random: a uniformly chosen candidate, drawn from the run's seeded RNG.

use super::GcPolicy;
use crate::ftl::Ftl;
use crate::ids::{BlockId, PlaneId};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub struct Random;

impl GcPolicy for Random {
    fn name(&self) -> &'static str {
        "random"
    }

    fn select_victim(
        &mut self,
        ftl: &Ftl,
        plane: PlaneId,
        rng: &mut ChaCha8Rng,
    ) -> Option<BlockId> {
        super::candidate_at(ftl, plane, |n| rng.gen_range(0..n))
    }
}
