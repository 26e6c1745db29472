//! Instant preconditioning: builds the FTL state of an aged device directly,
//! by running the FTL's own write and GC paths without simulated time.
//!
//! Recipe: fill `occupancy` of the logical space sequentially, then overwrite
//! `overwrites` × that many pages at random (uniform or skewed), then, with
//! `steady_state`, keep overwriting until every plane's free pool has come
//! down to its GC threshold (the point where the timed device's background GC
//! holds it).

use super::SimSsd;
use crate::error::InputError;
use crate::ssd::ftl::Stream;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Pattern {
    Uniform,
    /// `hot_share` of the pages receive `hot_access` of the overwrites.
    HotCold {
        hot_share: f64,
        hot_access: f64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Precondition {
    /// Share of the logical space holding data, in [0, 1].
    pub occupancy: f64,
    /// Random overwrites, in multiples of the occupied pages.
    pub overwrites: f64,
    pub pattern: Pattern,
    pub steady_state: bool,
}

impl Precondition {
    /// Fully occupied, at the GC steady-state free pool.
    pub fn full() -> Self {
        Precondition {
            occupancy: 1.0,
            overwrites: 0.0,
            pattern: Pattern::Uniform,
            steady_state: true,
        }
    }

    pub fn validate(&self) -> Result<(), InputError> {
        if !(0.0..=1.0).contains(&self.occupancy) {
            return Err(InputError::invalid(
                "occupancy",
                format!("{} is outside [0, 100] %", self.occupancy * 100.0),
            ));
        }
        if !(0.0..=100.0).contains(&self.overwrites) {
            return Err(InputError::invalid(
                "overwrites",
                format!("{} is outside [0, 100]", self.overwrites),
            ));
        }
        if let Pattern::HotCold {
            hot_share,
            hot_access,
        } = self.pattern
        {
            if !(hot_share > 0.0 && hot_share < 1.0 && hot_access > 0.0 && hot_access < 1.0) {
                return Err(InputError::invalid(
                    "pattern",
                    "hot share and hot access must be in (0, 1)",
                ));
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PreconditionReport {
    pub filled_pages: u64,
    pub overwritten_pages: u64,
    pub steady_state_pages: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
}

/// Applies the recipe to an empty device. Deterministic for a given seed.
pub fn precondition(
    ssd: &mut SimSsd,
    p: &Precondition,
    seed: u64,
) -> Result<PreconditionReport, InputError> {
    p.validate()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_0fa9);
    let occupied = (ssd.layout.logical_pages as f64 * p.occupancy).round() as u32;
    let before = ssd.ftl.counters.clone();
    let mut w = FunctionalWriter::default();
    for lpa in 0..occupied {
        w.write(ssd, lpa, &mut rng);
    }
    let mut report = PreconditionReport {
        filled_pages: occupied as u64,
        ..Default::default()
    };
    if occupied > 0 {
        let n = (occupied as f64 * p.overwrites).round() as u64;
        for _ in 0..n {
            let lpa = pick(&p.pattern, occupied, &mut rng);
            w.write(ssd, lpa, &mut rng);
        }
        report.overwritten_pages = n;
        if p.steady_state {
            let soft = ssd.soft_gc_blocks();
            let limit = occupied as u64;
            let planes = ssd.layout.planes;
            while report.steady_state_pages < limit
                && (0..planes).any(|pl| ssd.ftl.free_blocks(pl) > soft)
            {
                let lpa = pick(&p.pattern, occupied, &mut rng);
                w.write(ssd, lpa, &mut rng);
                report.steady_state_pages += 1;
            }
        }
    }
    report.gc_pages_moved = ssd.ftl.counters.gc_pages_moved - before.gc_pages_moved;
    report.erases = ssd.ftl.counters.erases - before.erases;
    // Preconditioning is not part of the measured run.
    ssd.ftl.counters = Default::default();
    Ok(report)
}

fn pick(pattern: &Pattern, occupied: u32, rng: &mut ChaCha8Rng) -> u32 {
    match *pattern {
        Pattern::Uniform => rng.gen_range(0..occupied),
        Pattern::HotCold {
            hot_share,
            hot_access,
        } => {
            let hot = ((occupied as f64 * hot_share) as u32).clamp(1, occupied);
            if rng.gen_bool(hot_access) || hot == occupied {
                rng.gen_range(0..hot)
            } else {
                rng.gen_range(hot..occupied)
            }
        }
    }
}

/// Untimed host writes through the FTL, collecting as the timed device would
/// (background GC while a plane is below its soft threshold).
#[derive(Default)]
pub struct FunctionalWriter {
    rr: u32,
    /// Pages written to the current round-robin plane.
    on_plane: u32,
}

impl FunctionalWriter {
    pub fn write(&mut self, ssd: &mut SimSsd, lpa: u32, rng: &mut ChaCha8Rng) {
        let planes = ssd.layout.planes;
        let version = ssd.ftl.next_version(lpa);
        let (plane, ppa) = match ssd.home_plane(lpa) {
            Some(plane) => (
                plane,
                Self::alloc(ssd, plane, rng).expect("validated spare space"),
            ),
            // Round-robin by flash page (consecutive pages fill a flash page,
            // as a sequential stream does), skipping a plane whose space is
            // all valid data.
            None => (0..planes)
                .find_map(|i| {
                    let plane = (self.rr + i) % planes;
                    Self::alloc(ssd, plane, rng).map(|ppa| (plane, ppa))
                })
                .expect("validated spare space"),
        };
        self.on_plane = if plane == self.rr {
            self.on_plane + 1
        } else {
            1
        };
        self.rr = plane;
        if self.on_plane >= ssd.layout.units_per_flash_page {
            self.on_plane = 0;
            self.rr = (plane + 1) % planes;
        }
        ssd.ftl.commit(lpa, ppa, version);
        while ssd.ftl.free_blocks(plane) < ssd.soft_gc_blocks() && ssd.collect_now(plane, rng) {}
    }

    /// A host page on `plane`, collecting first if the plane is at its reserve.
    fn alloc(ssd: &mut SimSsd, plane: u32, rng: &mut ChaCha8Rng) -> Option<u32> {
        loop {
            if let Some(ppa) = ssd.ftl.alloc_page(plane, Stream::HostNative) {
                return Some(ppa);
            }
            if !ssd.collect_now(plane, rng) {
                return None;
            }
        }
    }
}
