//! Random task sets: the schedulability curves (part 3) and the bandwidth
//! study (part 4).

use super::case_study::{Model, VARIANTS};
use super::MODEL_REVISION;
use super::{point, point_seed, Point, Row, StudyOptions};
use ssdlab_rtflash::generate::{generate, GenParams};
use ssdlab_rtflash::ratio::{schedulability_ratio, set_seed};
use ssdlab_rtflash::sim::NrtPolicy;
use ssdlab_rtflash::{allocate, ApproachChoice, NrtArrival, NrtLoad, Platform, TaskSet};

/// The preset whose SSD model is checked.
pub const SSD_PRESET: &str = "seed004";

/// A family of random task sets: how many tasks for `m` chips, their write
/// fraction and the share of the space their data fill.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Family {
    pub name: &'static str,
    pub describe: &'static str,
    /// Tasks per set: `m` when None.
    pub tasks: Option<usize>,
    pub write_fraction: f64,
    pub space_utilisation: f64,
}

impl Family {
    pub fn tasks_for(&self, chips: u32) -> usize {
        self.tasks.unwrap_or(chips as usize)
    }

    pub(super) fn params(&self, chips: u32, demand: f64) -> GenParams {
        let platform = Platform {
            chips,
            ..Platform::default()
        };
        let mut p = GenParams::new(platform, self.tasks_for(chips), demand * f64::from(chips));
        p.write_fraction = self.write_fraction;
        p.space_utilisation = self.space_utilisation;
        p
    }
}

/// The families of the curves, after the spec's grid (write fraction 0,
/// ½ or 1; data filling 50 or 70 % of the space; 4 to 16 tasks): a
/// middle case, one without GC, one that stresses interference (many
/// writers) and one that stresses GC (large data sets).
pub const FAMILIES: [Family; 4] = [
    Family {
        name: "base",
        describe: "m tasks, half of each job's pages written, data filling 50 % of the space",
        tasks: None,
        write_fraction: 0.5,
        space_utilisation: 0.5,
    },
    Family {
        name: "read-only",
        describe: "m tasks that only read (no GC), data filling 70 % of the space",
        tasks: None,
        write_fraction: 0.0,
        space_utilisation: 0.7,
    },
    Family {
        name: "write-heavy",
        describe: "16 tasks that only write, data filling 50 % of the space",
        tasks: Some(16),
        write_fraction: 1.0,
        space_utilisation: 0.5,
    },
    Family {
        name: "large-footprint",
        describe: "4 tasks, half writes, data filling 70 % of the space: 0.7·m/4 chips of data per task on average",
        tasks: Some(4),
        write_fraction: 0.5,
        space_utilisation: 0.7,
    },
];

pub const CHIPS: [u32; 3] = [4, 8, 16];

/// The approaches of the curves (analysis only: NRT service does not
/// change a verdict), by registry name and label.
pub const CURVE_APPROACHES: [(&str, &str); 3] = [
    ("clustering", "Clustering-BFD+TBS"),
    ("global", "Global+BG"),
    ("full-isolation", "Full-Isolation+BG"),
];

/// Demand levels of the bandwidth study (4 chips, base family).
pub const BANDWIDTH_DEMANDS: [f64; 4] = [0.1, 0.2, 0.3, 0.4];
pub(super) const BANDWIDTH_CHIPS: u32 = 4;
/// Task sets drawn at most per bandwidth point while looking for accepted ones.
const BANDWIDTH_DRAWS: usize = 1000;

pub(super) fn points(opts: &StudyOptions) -> Vec<Point> {
    let mut points = Vec::new();
    let plan = opts.plan;
    for (fi, family) in FAMILIES.iter().enumerate() {
        for &m in &CHIPS {
            for (li, &demand) in plan.demand_levels().iter().enumerate() {
                let seed = point_seed(opts.seed, &[1, fi as u64, u64::from(m), li as u64]);
                let family = *family;
                points.push(point(
                    serde_json::json!({
                        "study": "rt-flash", "part": "schedulability",
                        "ssdlab": env!("CARGO_PKG_VERSION"), "model": MODEL_REVISION,
                        "family": format!("{family:?}"),
                        "chips": m, "demand": demand, "sets": plan.sets_per_point, "seed": seed,
                    }),
                    (plan.sets_per_point * family.tasks_for(m)) as u64 / 100,
                ));
            }
        }
    }
    for (model, part) in [(Model::Chips, "bandwidth"), (Model::Ssd, "bandwidth-ssd")] {
        for (li, &demand) in BANDWIDTH_DEMANDS.iter().enumerate() {
            // The same sets on both models.
            let seed = point_seed(opts.seed, &[2, li as u64]);
            let mut config = serde_json::json!({
                "study": "rt-flash", "part": part, "ssdlab": env!("CARGO_PKG_VERSION"),
                "model": MODEL_REVISION,
                "family": format!("{:?}", FAMILIES[0]), "chips": BANDWIDTH_CHIPS, "demand": demand,
                "sets": plan.bandwidth_sets, "seconds": plan.bandwidth_seconds, "seed": seed,
            });
            if model == Model::Ssd {
                config["preset"] = SSD_PRESET.into();
            }
            points.push(point(
                config,
                plan.bandwidth_seconds * plan.bandwidth_sets as u64 * 20,
            ));
        }
    }
    points
}

pub(super) fn ratio_rows(
    family: &Family,
    chips: u32,
    demand: f64,
    sets: usize,
    seed: u64,
) -> Vec<Row> {
    let r = schedulability_ratio(&family.params(chips, demand), sets, seed);
    let row = |label: &str, metric: &str, value: f64| Row {
        chips,
        family: family.name.into(),
        demand,
        ..Row::new("schedulability", label, metric, value)
    };
    let mut rows = vec![row("", "sets", r.sets as f64)];
    for (name, label) in CURVE_APPROACHES {
        rows.push(row(label, "accepted_share", r.ratio(name)));
    }
    rows
}

/// The NRT load of the bandwidth study: saturating, 4–128 KiB, half reads,
/// over 5 % of the space.
pub(super) fn bandwidth_nrt(platform: &Platform) -> NrtLoad {
    NrtLoad {
        footprint_pages: platform.usable_pages() / 20,
        arrival: NrtArrival::Saturating,
        outstanding: None,
        min_request_bytes: 4096,
        max_request_bytes: 128 * 1024,
        read_fraction: 0.5,
    }
}

/// Up to `wanted` random sets (base family, 4 chips, NRT load added) that
/// Clustering-BFD accepts.
fn accepted_sets(demand: f64, wanted: usize, seed: u64) -> Vec<TaskSet> {
    let params = FAMILIES[0].params(BANDWIDTH_CHIPS, demand);
    let clustering = ApproachChoice::parse("clustering").expect("registered");
    (0..BANDWIDTH_DRAWS)
        .filter_map(|k| {
            let mut ts = generate(&params, set_seed(seed, k))?;
            ts.nrt = Some(bandwidth_nrt(&ts.platform));
            allocate(&ts, clustering).schedulable.then_some(ts)
        })
        .take(wanted)
        .collect()
}

/// Part 4: every variant simulated on each set Clustering-BFD accepts, on
/// the chip model or on the SSD model of `SSD_PRESET` (the die the default
/// platform describes).
pub(super) fn bandwidth_rows(
    (model, part): (Model, &str),
    demand: f64,
    sets: usize,
    seconds: u64,
    seed: u64,
) -> Vec<Row> {
    let mut sets = accepted_sets(demand, sets, seed);
    if model == Model::Ssd {
        for ts in &mut sets {
            ts.platform.preset = Some(SSD_PRESET.into());
        }
    }
    let mut rows = Vec::new();
    for v in VARIANTS {
        let (label, policy) = (v.label, v.nrt);
        let (mut accepted, mut unfit, mut misses, mut mbs, mut worst_ratio) =
            (0u64, 0u64, 0u64, 0.0, 0.0f64);
        let mut fullest = 0.0f64;
        for (k, ts) in sets.iter().enumerate() {
            let alloc = v.allocate(ts);
            accepted += u64::from(alloc.schedulable);
            let full = alloc.clusters.iter().map(|c| c.space_utilisation_ppm).max();
            fullest += full.unwrap_or(0) as f64 / 1e4 / sets.len() as f64;
            // A layout whose data do not fit its chips cannot run at all.
            let Ok(r) = v.simulate_on(model, ts, &alloc, seconds, seed ^ k as u64) else {
                unfit += 1;
                continue;
            };
            let (rm, wm) = r.misses();
            misses += rm + wm;
            mbs += r.nrt.as_ref().map_or(0.0, |n| n.mb_per_s);
            for (t, a) in r.tasks.iter().zip(&alloc.tasks) {
                let bound = match policy {
                    NrtPolicy::Background => a.worst_case_latency_ns.unwrap_or(a.deadline_ns),
                    NrtPolicy::Tbs => a.deadline_ns,
                };
                worst_ratio = worst_ratio.max(t.max_response_ns as f64 / bound.max(1) as f64);
            }
        }
        let row = |metric: &str, value: f64| Row {
            chips: BANDWIDTH_CHIPS,
            family: FAMILIES[0].name.into(),
            demand,
            ..Row::new(part, label, metric, value)
        };
        rows.push(row("sets_simulated", sets.len() as f64));
        rows.push(row("sets_accepted", accepted as f64));
        rows.push(row("sets_unfit", unfit as f64));
        let ran = (sets.len() as u64 - unfit).max(1);
        rows.push(row("nrt_mb_s", mbs / ran as f64));
        rows.push(row("rt_misses", misses as f64));
        rows.push(row("fullest_cluster_space_pct", fullest));
        rows.push(row("max_response_over_bound", worst_ratio));
    }
    rows
}
