//! Schedulability ratio: for one grid point, `sets` random task sets and
//! the share each approach's analysis accepts. Each set has its own seed
//! (the point's seed mixed with the set's number), so sets can later be
//! drawn in any order or in parallel with the same result.

use super::allocate::{accepts, ApproachChoice, REGISTRY};
use super::generate::{generate, GenParams};
use serde::Serialize;

/// One grid point's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RatioPoint {
    /// Sets generated (densities that could not be drawn are skipped).
    pub sets: usize,
    /// Per approach, in registry order: (name, sets accepted).
    pub accepted: Vec<(&'static str, usize)>,
}

impl RatioPoint {
    /// The accepted share of `approach` (0 when no set was generated).
    pub fn ratio(&self, approach: &str) -> f64 {
        let hits = self
            .accepted
            .iter()
            .find(|(n, _)| *n == approach)
            .map_or(0, |(_, a)| *a);
        hits as f64 / self.sets.max(1) as f64
    }
}

/// The seed of set `k` of a point seeded `seed`.
pub fn set_seed(seed: u64, k: usize) -> u64 {
    seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Generates `sets` task sets for `params` and counts, per approach, the
/// sets its analysis accepts.
pub fn schedulability_ratio(params: &GenParams, sets: usize, seed: u64) -> RatioPoint {
    let approaches: Vec<ApproachChoice> = REGISTRY
        .iter()
        .filter_map(|e| ApproachChoice::parse(e.name).ok())
        .collect();
    let mut accepted: Vec<(&'static str, usize)> =
        approaches.iter().map(|a| (a.name(), 0)).collect();
    let mut generated = 0;
    for k in 0..sets {
        let Some(ts) = generate(params, set_seed(seed, k)) else {
            continue;
        };
        generated += 1;
        for (slot, a) in accepted.iter_mut().zip(&approaches) {
            slot.1 += usize::from(accepts(&ts, *a));
        }
    }
    RatioPoint {
        sets: generated,
        accepted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Platform;

    #[test]
    fn light_sets_pass_heavy_sets_fail_and_runs_repeat() {
        // Reads only: no GC, so short periods are no obstacle.
        let mut light = GenParams::new(Platform::default(), 4, 0.2);
        light.write_fraction = 0.0;
        let r = schedulability_ratio(&light, 20, 1);
        assert_eq!(r.sets, 20);
        assert_eq!(r.ratio("clustering"), 1.0, "{r:?}");
        assert_eq!(r, schedulability_ratio(&light, 20, 1));
        let mut heavy = GenParams::new(Platform::default(), 4, 3.9);
        heavy.write_fraction = 0.0;
        let r = schedulability_ratio(&heavy, 20, 1);
        assert_eq!(r.ratio("global"), 0.0, "{r:?}");
    }

    /// The table of docs/rt-flash.md: `cargo test -p ssdlab-sim --release
    /// rtflash::ratio -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn print_schedulability_table() {
        for (wf, rho) in [(0.0, 0.7), (0.5, 0.5), (0.5, 0.7), (1.0, 0.7)] {
            for n in [4, 6, 8] {
                for u in [0.4, 0.8, 1.2, 1.6, 2.0, 2.4, 2.8] {
                    let mut params = GenParams::new(Platform::default(), n, u);
                    params.space_utilisation = rho;
                    params.write_fraction = wf;
                    let r = schedulability_ratio(&params, 200, 2021);
                    println!(
                        "| {wf} | {rho} | {n} | {u:.1} | {} | {:.2} | {:.2} | {:.2} |",
                        r.sets,
                        r.ratio("clustering"),
                        r.ratio("global"),
                        r.ratio("full-isolation")
                    );
                }
            }
        }
    }
}
