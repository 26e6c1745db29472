//! Part 5: the analysis checked against a device it was not written for.
//! Random task sets (base family, 4 chips) that an approach's own analysis
//! accepts are simulated on the full SSD model of seed004 (the die the
//! analysis' default platform describes) with `edf` dies, under that
//! approach's NRT service. The chip model never misses on such sets
//! (`accepted_sets_never_miss_and_stay_within_the_bound`); here the
//! device's own FTL, GC triggers and multi-plane GC jobs decide what a job
//! costs, and the part counts the runs that miss a deadline.

use super::case_study::{Model, VARIANTS};
use super::curves::{
    bandwidth_nrt, BANDWIDTH_CHIPS, BANDWIDTH_DEMANDS, FAMILIES, SSD_PRESET as PRESET,
};
use super::{point, point_seed, Point, Row, StudyOptions, MODEL_REVISION};
use ssdlab_rtflash::generate::generate;
use ssdlab_rtflash::ratio::set_seed;
use ssdlab_rtflash::sim::ChipOrder;

/// Random sets drawn per point before giving up on finding enough accepted.
const DRAWS: usize = 400;

pub(super) fn points(opts: &StudyOptions) -> Vec<Point> {
    let plan = opts.plan;
    let mut points = Vec::new();
    for (vi, v) in VARIANTS.iter().enumerate() {
        if v.device != ChipOrder::Edf {
            continue;
        }
        for (li, &demand) in BANDWIDTH_DEMANDS.iter().enumerate() {
            let seed = point_seed(opts.seed, &[3, vi as u64, li as u64]);
            points.push(point(
                serde_json::json!({
                    "study": "rt-flash", "part": "ssd-check", "ssdlab": env!("CARGO_PKG_VERSION"),
                    "model": MODEL_REVISION, "approach": v.label, "preset": PRESET,
                    "demand": demand, "sets": plan.check_sets, "seconds": plan.check_seconds,
                    "seed": seed,
                }),
                plan.check_seconds * plan.check_sets as u64 * 20,
            ));
        }
    }
    points
}

pub(super) fn check_rows(
    v: super::Variant,
    demand: f64,
    sets: usize,
    seconds: u64,
    seed: u64,
) -> Vec<Row> {
    let params = FAMILIES[0].params(BANDWIDTH_CHIPS, demand);
    let accepted = (0..DRAWS)
        .filter_map(|k| {
            let mut ts = generate(&params, set_seed(seed, k))?;
            ts.platform.preset = Some(PRESET.into());
            ts.nrt = Some(bandwidth_nrt(&ts.platform));
            let alloc = v.allocate(&ts);
            alloc.schedulable.then_some((ts, alloc))
        })
        .take(sets);
    let (mut ran, mut unfit, mut missed_runs, mut misses, mut jobs) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut worst = 0.0f64;
    for (k, (ts, alloc)) in accepted.enumerate() {
        let Ok(r) = v.simulate_on(Model::Ssd, &ts, &alloc, seconds, seed ^ k as u64) else {
            unfit += 1;
            continue;
        };
        ran += 1;
        let (rm, wm) = r.misses();
        misses += rm + wm;
        missed_runs += u64::from(rm + wm > 0);
        for (t, a) in r.tasks.iter().zip(&alloc.tasks) {
            jobs += t.jobs;
            worst = worst.max(t.max_response_ns as f64 / a.deadline_ns.max(1) as f64);
        }
    }
    let row = |metric: &str, value: f64| Row {
        chips: BANDWIDTH_CHIPS,
        family: FAMILIES[0].name.into(),
        demand,
        ..Row::new("ssd-check", v.label, metric, value)
    };
    vec![
        row("sets_simulated", ran as f64),
        row("sets_unfit", unfit as f64),
        row("runs_with_misses", missed_runs as f64),
        row("rt_jobs", jobs as f64),
        row("rt_misses", misses as f64),
        row("max_response_over_deadline", worst),
    ]
}
