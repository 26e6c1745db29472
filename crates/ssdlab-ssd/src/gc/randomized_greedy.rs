//! Randomized greedy (d-choices): sample `d` distinct candidates uniformly
//! and take the one with the fewest valid pages (Van Houdt, "A mean field
//! model for a class of garbage collection algorithms in flash-based solid
//! state drives", SIGMETRICS 2013). MQSim offers it as `RGA` with
//! d = log2(blocks per plane); that is the default here (`gc.rga_samples`).
//! Unlike greedy, it sometimes takes a poor victim: the chance that none of
//! the d samples is among the emptiest blocks falls with d but never
//! reaches zero, which widens the victims' invalidity distribution.

use super::GcPolicy;
use crate::ftl::Ftl;
use crate::ids::{BlockId, PlaneId};
use rand::seq::index;
use rand_chacha::ChaCha8Rng;

pub struct RandomizedGreedy {
    samples: usize,
}

impl RandomizedGreedy {
    /// `samples` is d; 0 picks MQSim's log2(blocks per plane) (at least 1).
    pub fn new(samples: u32, blocks_per_plane: u32) -> Self {
        let d = if samples == 0 {
            blocks_per_plane.max(2).ilog2()
        } else {
            samples
        };
        RandomizedGreedy {
            samples: d.max(1) as usize,
        }
    }
}

impl GcPolicy for RandomizedGreedy {
    fn name(&self) -> &'static str {
        "randomized-greedy"
    }

    fn select_victim(
        &mut self,
        ftl: &Ftl,
        plane: PlaneId,
        rng: &mut ChaCha8Rng,
    ) -> Option<BlockId> {
        // Candidates come in order of valid pages, fewest first, so the
        // sampled block with the lowest position is the sample's greedy pick.
        let d = self.samples;
        super::candidate_at(ftl, plane, |n| {
            let sample = index::sample(rng, n, d.min(n));
            sample
                .iter()
                .min()
                .expect("a sample of at least one of n >= 1")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_sample_is_log2_of_the_blocks_per_plane() {
        assert_eq!(RandomizedGreedy::new(0, 512).samples, 9);
        assert_eq!(RandomizedGreedy::new(0, 2730).samples, 11);
        assert_eq!(RandomizedGreedy::new(0, 1).samples, 1);
        assert_eq!(RandomizedGreedy::new(4, 512).samples, 4);
    }
}
