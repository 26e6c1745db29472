//! FIFO: the candidate closed longest ago (a log-structured cleaner). Ties
//! (same close time) go to the block with fewer valid pages.

use super::GcPolicy;
use crate::ftl::Ftl;
use crate::ids::{BlockId, PlaneId};
use rand_chacha::ChaCha8Rng;

pub struct Fifo;

impl GcPolicy for Fifo {
    fn name(&self) -> &'static str {
        "fifo"
    }

    fn select_victim(
        &mut self,
        ftl: &Ftl,
        plane: PlaneId,
        _rng: &mut ChaCha8Rng,
    ) -> Option<BlockId> {
        ftl.candidates(plane).min_by_key(|&b| ftl.closed_seq(b))
    }
}
