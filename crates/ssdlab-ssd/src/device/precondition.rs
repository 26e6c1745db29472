//! Instant preconditioning: builds the FTL state of an aged device directly,
//! by running the FTL's own write and GC paths without simulated time.
//!
//! Recipe: fill `occupancy` of the logical space sequentially (`fill_passes`
//! times), then overwrite `overwrites` × that many pages at random (uniform
//! or skewed), then, with `steady_state`, keep overwriting until every
//! plane's free pool has come down to its GC threshold (the point where the
//! timed device's background GC holds it), and with `rested`, let idle-time
//! GC give every plane back the free blocks the fill left it.
//! [`PreconditionMode`] names the recipes a run can ask for; the report says
//! which one was used. The `random` recipe instead builds the steady state
//! of uniform random overwrites directly (`random_steady.rs`).

use super::SimSsd;
use crate::alloc::Target;
use crate::error::InputError;
use crate::ftl::Stream;
use crate::ids::{PlaneId, Ppn};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use ssdlab_protocol::Lpn;

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
    /// Sequential passes over the occupied pages (1: a plain fill; 2: fill,
    /// then rewrite it all in order, as SNIA PTS's workload-independent
    /// preconditioning writes the capacity twice).
    pub fill_passes: u32,
    /// Random overwrites, in multiples of the occupied pages.
    pub overwrites: f64,
    pub pattern: Pattern,
    pub steady_state: bool,
    /// Build the steady state of uniform random overwrites directly
    /// (`random_steady.rs`) instead of the fill and overwrites above.
    pub random_steady: bool,
    /// After the overwrites, collect (as a drive's idle-time GC does between
    /// runs) until every plane has the free blocks it had after the fill.
    pub rested: bool,
}

impl Precondition {
    /// `occupancy` of the logical space written once in order, nothing
    /// more: the base every other recipe changes a few fields of.
    pub fn fill(occupancy: f64) -> Self {
        Precondition {
            occupancy,
            fill_passes: 1,
            overwrites: 0.0,
            pattern: Pattern::Uniform,
            steady_state: false,
            random_steady: false,
            rested: false,
        }
    }

    /// Fully occupied, at the GC steady-state free pool.
    pub fn full() -> Self {
        Precondition {
            steady_state: true,
            ..Self::fill(1.0)
        }
    }

    pub fn validate(&self) -> Result<(), InputError> {
        if !(0.0..=1.0).contains(&self.occupancy) {
            return Err(InputError::invalid(
                "occupancy",
                format!("{} is outside [0, 100] %", self.occupancy * 100.0),
            ));
        }
        if !(1..=4).contains(&self.fill_passes) {
            return Err(InputError::invalid(
                "fill passes",
                format!("{} is outside [1, 4]", self.fill_passes),
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

    /// The recipe's name in reports: `fill`, `steady`, `rested`, `aged:N`,
    /// `pts` or `random` (see [`PreconditionMode`]).
    pub fn name(&self) -> String {
        if self.random_steady {
            return "random".into();
        }
        if self.rested {
            return "rested".into();
        }
        match (self.fill_passes, self.overwrites, self.steady_state) {
            (2.., _, _) => "pts".into(),
            (_, w, _) if w > 0.0 => format!("aged:{w}"),
            (_, _, true) => "steady".into(),
            _ => "fill".into(),
        }
    }
}

/// How a run preconditions its device (`--precondition`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PreconditionMode {
    /// `fill` below 100% occupancy, `steady` at 100% (the default).
    Auto,
    /// A sequential fill of the occupied pages, nothing more: every block
    /// holds only valid pages, and GC finds no victim until the run
    /// overwrites data.
    Fill,
    /// The fill, then uniform random overwrites until every plane's free
    /// pool has come down to its GC threshold.
    SteadyState,
    /// `steady`, then idle-time GC until every plane has the free blocks the
    /// fill left it: a drive whose blocks were all occupied, so that GC ran,
    /// and that rested before the run, as drives collect between runs.
    Rested,
    /// The fill, then `drive_writes` × the occupied pages of uniform random
    /// overwrites, then `steady`: the spread of valid pages per block a drive
    /// has after writing its data that many times over.
    Aged { drive_writes: f64 },
    /// In the manner of SNIA PTS: the occupied pages written twice in order,
    /// then random overwrites to the steady state.
    Pts,
    /// The steady state of uniform random overwrites under greedy GC, built
    /// directly: the valid-page spread of a drive that has written its data
    /// at random many times over, without running GC on every page.
    Random,
}

impl PreconditionMode {
    /// The recipe for a run at `occupancy` (share of the logical space).
    pub fn recipe(self, occupancy: f64) -> Precondition {
        let (fill_passes, overwrites, steady_state) = match self {
            PreconditionMode::Auto => (1, 0.0, occupancy >= 1.0),
            PreconditionMode::Fill => (1, 0.0, false),
            PreconditionMode::SteadyState | PreconditionMode::Rested => (1, 0.0, true),
            PreconditionMode::Aged { drive_writes } => (1, drive_writes, true),
            PreconditionMode::Pts => (2, 0.0, true),
            PreconditionMode::Random => (1, 0.0, true),
        };
        Precondition {
            fill_passes,
            overwrites,
            steady_state,
            random_steady: self == PreconditionMode::Random,
            rested: self == PreconditionMode::Rested,
            ..Precondition::fill(occupancy)
        }
    }
}

/// The `--precondition` spelling, which `FromStr` reads back.
impl std::fmt::Display for PreconditionMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PreconditionMode::Auto => f.write_str("auto"),
            PreconditionMode::Fill => f.write_str("fill"),
            PreconditionMode::SteadyState => f.write_str("steady"),
            PreconditionMode::Rested => f.write_str("rested"),
            PreconditionMode::Aged { drive_writes } => write!(f, "aged:{drive_writes}"),
            PreconditionMode::Pts => f.write_str("pts"),
            PreconditionMode::Random => f.write_str("random"),
        }
    }
}

impl std::str::FromStr for PreconditionMode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(PreconditionMode::Auto),
            "fill" => Ok(PreconditionMode::Fill),
            "steady" => Ok(PreconditionMode::SteadyState),
            "rested" => Ok(PreconditionMode::Rested),
            "pts" => Ok(PreconditionMode::Pts),
            "random" => Ok(PreconditionMode::Random),
            "aged" => Ok(PreconditionMode::Aged { drive_writes: 2.0 }),
            _ => match s.strip_prefix("aged:").map(str::parse::<f64>) {
                Some(Ok(n)) if n > 0.0 && n <= 100.0 => {
                    Ok(PreconditionMode::Aged { drive_writes: n })
                }
                Some(_) => Err(format!(
                    "'{s}': aged:N takes a number of drive writes in (0, 100]"
                )),
                None => Err(format!(
                    "unknown preconditioning '{s}' (known: auto, fill, steady, rested, aged[:N], pts, random)"
                )),
            },
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PreconditionReport {
    /// The recipe used (`Precondition::name`).
    pub mode: String,
    pub filled_pages: u64,
    pub overwritten_pages: u64,
    pub steady_state_pages: u64,
    /// Stale pages written by `random` (the garbage of its steady state).
    #[serde(skip_serializing_if = "is_zero")]
    pub stale_pages: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
    let before = ssd.ftl.counters().clone();
    if p.random_steady {
        let built = super::random_steady::build(ssd, occupied, &mut rng)?;
        ssd.ftl.reset_counters();
        return Ok(PreconditionReport {
            mode: p.name(),
            filled_pages: built.valid_pages,
            stale_pages: built.stale_pages,
            ..Default::default()
        });
    }
    let mut w = FunctionalWriter::default();
    for _ in 0..p.fill_passes {
        for lpa in (0..occupied).map(Lpn) {
            w.write(ssd, lpa, &mut rng);
        }
    }
    // What a rested drive's idle-time GC gives back: the fill's free blocks.
    let free_after_fill: Option<Vec<u32>> = p.rested.then(|| {
        ssd.layout
            .all_planes()
            .map(|pl| ssd.ftl.free_blocks(pl))
            .collect()
    });
    let mut report = PreconditionReport {
        mode: p.name(),
        filled_pages: occupied as u64 * p.fill_passes as u64,
        ..Default::default()
    };
    if occupied > 0 {
        let n = (occupied as f64 * p.overwrites).round() as u64;
        for _ in 0..n {
            let lpa = pick(&p.pattern, occupied, &mut rng);
            w.write(ssd, Lpn(lpa), &mut rng);
        }
        report.overwritten_pages = n;
        if p.steady_state {
            let soft = ssd.soft_gc_blocks();
            let limit = occupied as u64;
            while report.steady_state_pages < limit
                && ssd
                    .layout
                    .all_planes()
                    .any(|pl| ssd.ftl.free_blocks(pl) > soft)
            {
                let lpa = pick(&p.pattern, occupied, &mut rng);
                w.write(ssd, Lpn(lpa), &mut rng);
                report.steady_state_pages += 1;
            }
        }
    }
    if let Some(free) = &free_after_fill {
        rest(ssd, free, &mut rng);
    }
    report.gc_pages_moved = ssd.ftl.counters().gc_pages_moved - before.gc_pages_moved;
    report.erases = ssd.ftl.counters().erases - before.erases;
    // Preconditioning is not part of the measured run.
    ssd.ftl.reset_counters();
    Ok(report)
}

/// Idle-time GC: each plane collects victims of the preset's policy until
/// it has `free[i]` free blocks again (or nothing is left to collect).
fn rest(ssd: &mut SimSsd, free: &[u32], rng: &mut ChaCha8Rng) {
    let planes: Vec<PlaneId> = ssd.layout.all_planes().collect();
    for (plane, &target) in planes.into_iter().zip(free) {
        while ssd.ftl.free_blocks(plane) < target && ssd.collect_now(plane, rng) {}
    }
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
    /// The round-robin over every plane.
    any: RoundRobin,
    /// One round-robin per die group (chip cluster): each group's pages
    /// spread over its own planes, whatever the other groups write.
    groups: Vec<RoundRobin>,
}

/// A round-robin over planes by flash page (consecutive pages fill a flash
/// page, as a sequential stream does).
#[derive(Default, Clone, Copy)]
struct RoundRobin {
    /// The current plane (its number).
    rr: u32,
    /// Pages written to it so far.
    on_plane: u32,
}

impl FunctionalWriter {
    pub fn write(&mut self, ssd: &mut SimSsd, lpa: Lpn, rng: &mut ChaCha8Rng) {
        let planes = ssd.layout.planes;
        let version = ssd.ftl.next_version(lpa);
        let target = ssd.allocation_target(lpa);
        let cursor = self.cursor(target);
        let (plane, ppa) = match target {
            Target::Plane(plane) => (
                plane,
                Self::alloc(ssd, plane, rng).expect("validated spare space"),
            ),
            // Round-robin, skipping a plane whose space is all valid data
            // and one outside the page's die group.
            _ => (0..planes)
                .find_map(|i| {
                    let plane = PlaneId((cursor.rr + i) % planes);
                    ssd.target_allows(target, plane)
                        .then(|| Self::alloc(ssd, plane, rng).map(|ppa| (plane, ppa)))
                        .flatten()
                })
                .expect("validated spare space"),
        };
        cursor.on_plane = if plane.0 == cursor.rr {
            cursor.on_plane + 1
        } else {
            1
        };
        cursor.rr = plane.0;
        if cursor.on_plane >= ssd.layout.units_per_flash_page {
            cursor.on_plane = 0;
            cursor.rr = (plane.0 + 1) % planes;
        }
        ssd.ftl.commit(lpa, ppa, version);
        while ssd.ftl.free_blocks(plane) < ssd.soft_gc_blocks() && ssd.collect_now(plane, rng) {}
    }

    /// The round-robin a page of `target` follows: its group's, or the
    /// device-wide one.
    fn cursor(&mut self, target: Target) -> &mut RoundRobin {
        let Target::Group(g) = target else {
            return &mut self.any;
        };
        let g = g as usize;
        if self.groups.len() <= g {
            self.groups.resize(g + 1, RoundRobin::default());
        }
        &mut self.groups[g]
    }

    /// A host page on `plane`, collecting first if the plane is at its reserve.
    fn alloc(ssd: &mut SimSsd, plane: PlaneId, rng: &mut ChaCha8Rng) -> Option<Ppn> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SsdConfig;

    #[test]
    fn modes_print_as_they_parse() {
        for s in [
            "auto", "fill", "steady", "rested", "aged:2", "aged:0.5", "pts", "random",
        ] {
            let mode: PreconditionMode = s.parse().unwrap();
            assert_eq!(mode.to_string(), s);
            assert_eq!(mode.to_string().parse::<PreconditionMode>(), Ok(mode));
        }
    }

    #[test]
    fn modes_parse_and_name_their_recipes() {
        let name = |s: &str, occ: f64| s.parse::<PreconditionMode>().unwrap().recipe(occ).name();
        assert_eq!(name("auto", 0.5), "fill");
        assert_eq!(name("auto", 1.0), "steady");
        assert_eq!(name("fill", 1.0), "fill");
        assert_eq!(name("steady", 0.5), "steady");
        assert_eq!(name("rested", 1.0), "rested");
        assert_eq!(name("aged", 1.0), "aged:2");
        assert_eq!(name("aged:0.5", 1.0), "aged:0.5");
        assert_eq!(name("pts", 1.0), "pts");
        for bad in [
            "",
            "aged:0",
            "aged:-1",
            "aged:1e9",
            "aged:x",
            "steady-state",
        ] {
            let e = bad.parse::<PreconditionMode>().unwrap_err();
            assert!(e.contains(bad) || e.contains("known"), "{bad}: {e}");
        }
    }

    fn small() -> SsdConfig {
        let mut cfg = SsdConfig::builtin("seed004").unwrap();
        cfg.geometry.channels = 2;
        cfg.geometry.chips_per_channel = 1;
        cfg.geometry.dies_per_chip = 1;
        cfg.geometry.planes_per_die = 2;
        cfg.geometry.blocks_per_plane = 32;
        cfg.geometry.pages_per_block = Some(16);
        cfg.ftl.over_provisioning = 0.3;
        cfg.slc_cache = None;
        cfg.validate().unwrap();
        cfg
    }

    fn report(mode: &str) -> PreconditionReport {
        let mut ssd = SimSsd::new(small(), 1, true);
        let recipe = mode.parse::<PreconditionMode>().unwrap().recipe(1.0);
        let r = precondition(&mut ssd, &recipe, 7).unwrap();
        ssd.ftl.check(&|_| false).unwrap();
        r
    }

    #[test]
    fn each_mode_writes_what_it_says() {
        let fill = report("fill");
        assert_eq!((fill.mode.as_str(), fill.steady_state_pages), ("fill", 0));
        let steady = report("steady");
        assert!(steady.steady_state_pages > 0 && steady.overwritten_pages == 0);
        let aged = report("aged:1");
        assert_eq!(aged.overwritten_pages, fill.filled_pages);
        // Writing the data over again moves valid pages in GC; a plain fill
        // moves none.
        assert!(
            aged.gc_pages_moved > steady.gc_pages_moved,
            "{aged:?} {steady:?}"
        );
        let pts = report("pts");
        assert_eq!(pts.filled_pages, 2 * fill.filled_pages);
    }

    #[test]
    fn a_rested_drive_has_the_fills_free_blocks_back() {
        let free = |mode: &str| {
            let mut ssd = SimSsd::new(small(), 1, true);
            let recipe = mode.parse::<PreconditionMode>().unwrap().recipe(1.0);
            let r = precondition(&mut ssd, &recipe, 7).unwrap();
            ssd.ftl.check(&|_| false).unwrap();
            let planes: Vec<_> = ssd.layout.all_planes().collect();
            let blocks: Vec<u32> = planes.iter().map(|&p| ssd.ftl.free_blocks(p)).collect();
            (r, blocks)
        };
        let (_, filled) = free("fill");
        let (steady, worn) = free("steady");
        let (rested, back) = free("rested");
        assert!(
            worn.iter().zip(&filled).all(|(w, f)| w < f),
            "{worn:?} {filled:?}"
        );
        // Each plane gets the fill's free blocks back, but for a block whose
        // invalid pages sit in a frontier still open (nothing to collect).
        assert!(
            back.iter().zip(&filled).all(|(b, f)| b + 1 >= *f),
            "{back:?} {filled:?}"
        );
        let total = |v: &[u32]| v.iter().sum::<u32>();
        assert!(total(&back) > total(&worn), "{back:?} {worn:?}");
        // The same history as steady, then the rest moved valid pages.
        assert_eq!(rested.steady_state_pages, steady.steady_state_pages);
        assert!(rested.gc_pages_moved > steady.gc_pages_moved);
        assert_eq!(rested.mode, "rested");
    }
}
