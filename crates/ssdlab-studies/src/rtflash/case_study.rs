//! The case study (part 1) and the motivation figure (part 2): the task set
//! of `examples/rtflash/case-study.toml`, simulated under the five
//! approaches, and its worst-case latencies in their parts under the three
//! layouts.

use super::{Point, Row, StudyOptions};
use ssdlab_sim::error::InputError;
use ssdlab_sim::rtflash::sim::{setup_from, simulate, NrtPolicy, SimReport};
use ssdlab_sim::rtflash::{allocate, Allocation, ApproachChoice, TaskSet};

/// The case-study task set, as shipped in `examples/rtflash/`.
pub const CASE_STUDY_TOML: &str = include_str!("../../../../examples/rtflash/case-study.toml");
pub const CASE_STUDY_FILE: &str = "examples/rtflash/case-study.toml";

/// The approaches compared: (label, layout, NRT service). The first three
/// are the paper's; the last two its ablations.
pub const VARIANTS: [(&str, &str, NrtPolicy); 5] = [
    ("Clustering-BFD+TBS", "clustering", NrtPolicy::Tbs),
    ("Global+BG", "global", NrtPolicy::Background),
    ("Full-Isolation+BG", "full-isolation", NrtPolicy::Background),
    ("Clustering-BFD+BG", "clustering", NrtPolicy::Background),
    ("Global+TBS", "global", NrtPolicy::Tbs),
];

/// The layouts of the motivation figure, as the paper orders them.
const LAYOUTS: [&str; 3] = ["global", "full-isolation", "clustering"];

fn case_study() -> Result<TaskSet, InputError> {
    TaskSet::from_toml(CASE_STUDY_TOML, CASE_STUDY_FILE)
}

fn layout(ts: &TaskSet, name: &str) -> Allocation {
    allocate(
        ts,
        ApproachChoice::parse(name).expect("a registered approach"),
    )
}

pub(super) fn points(opts: &StudyOptions) -> Result<Vec<Point>, InputError> {
    let ts = case_study()?;
    let mut points = Vec::new();
    let seconds = opts.plan.case_seconds;
    let seed = opts.seed;
    for (label, name, policy) in VARIANTS {
        let ts = ts.clone();
        points.push(Point {
            config: serde_json::json!({
                "study": "rt-flash", "part": "case-study", "ssdlab": env!("CARGO_PKG_VERSION"),
                "tasks": CASE_STUDY_TOML, "approach": label, "seconds": seconds, "seed": seed,
            }),
            cost: seconds * 4,
            compute: Box::new(move || case_rows(&ts, label, name, policy, seconds, seed)),
        });
    }
    points.push(Point {
        config: serde_json::json!({
            "study": "rt-flash", "part": "wcl", "ssdlab": env!("CARGO_PKG_VERSION"),
            "tasks": CASE_STUDY_TOML,
        }),
        cost: 1,
        compute: Box::new(move || Ok(wcl_rows(&ts))),
    });
    Ok(points)
}

fn case_rows(
    ts: &TaskSet,
    label: &str,
    name: &str,
    policy: NrtPolicy,
    seconds: u64,
    seed: u64,
) -> Result<Vec<Row>, InputError> {
    let alloc = layout(ts, name);
    let setup = setup_from(ts, &alloc, policy, seconds * 1_000_000_000, seed)
        .map_err(|e| InputError::invalid(CASE_STUDY_FILE, e))?;
    let report =
        simulate(&setup).map_err(|e| InputError::invalid(CASE_STUDY_FILE, e.to_string()))?;
    Ok(rows_of(label, &alloc, &report))
}

fn rows_of(label: &str, alloc: &Allocation, r: &SimReport) -> Vec<Row> {
    let row = |metric: &str, value: f64| Row::new("case-study", label, metric, value);
    let (rm, wm) = r.misses();
    let reads: u64 = r.tasks.iter().map(|t| t.read_requests).sum();
    let writes: u64 = r.tasks.iter().map(|t| t.write_requests).sum();
    let pct = |a: u64, b: u64| 100.0 * a as f64 / b.max(1) as f64;
    let mut rows = vec![
        row("schedulable", f64::from(u8::from(alloc.schedulable))),
        row("rt_read_requests", reads as f64),
        row("rt_read_misses", rm as f64),
        row("rt_read_miss_pct", pct(rm, reads)),
        row("rt_write_requests", writes as f64),
        row("rt_write_misses", wm as f64),
        row("rt_write_miss_pct", pct(wm, writes)),
        row("gc_rounds", r.gc_rounds as f64),
    ];
    if let Some(n) = &r.nrt {
        rows.push(row("nrt_iops", n.iops));
        rows.push(row("nrt_mb_s", n.mb_per_s));
        rows.push(row("nrt_mean_response_ms", n.mean_response_ns as f64 / 1e6));
    }
    for (t, a) in r.tasks.iter().zip(&alloc.tasks) {
        let task_row = |metric: &str, value: f64| Row {
            task: t.name.clone(),
            ..row(metric, value)
        };
        rows.push(task_row("read_misses", t.read_misses as f64));
        rows.push(task_row("write_misses", t.write_misses as f64));
        rows.push(task_row("max_response_ms", t.max_response_ns as f64 / 1e6));
        rows.push(task_row(
            "p999_response_ms",
            t.p999_response_ns as f64 / 1e6,
        ));
        rows.push(task_row("deadline_ms", a.deadline_ns as f64 / 1e6));
        if let Some(w) = a.worst_case_latency_ns {
            rows.push(task_row("wcl_bound_ms", w as f64 / 1e6));
        }
    }
    rows
}

/// Part 2: each task's worst-case latency in its parts, per layout.
fn wcl_rows(ts: &TaskSet) -> Vec<Row> {
    let mut rows = Vec::new();
    for name in LAYOUTS {
        let alloc = layout(ts, name);
        for t in &alloc.tasks {
            let row = |metric: &str, ns: u64| Row {
                task: t.name.clone(),
                chips: t.chips.len() as u32,
                ..Row::new("wcl", name, metric, ns as f64 / 1e6)
            };
            rows.push(row("deadline_ms", t.deadline_ns));
            let (Some(b), Some(w)) = (t.breakdown, t.worst_case_latency_ns) else {
                continue;
            };
            rows.push(row("own_io_ms", b.own_io_ns));
            rows.push(row("other_io_ms", b.other_io_ns));
            rows.push(row("gc_ms", b.gc_ns));
            rows.push(row("blocking_ms", b.blocking_ns));
            rows.push(row("wcl_ms", w));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_case_study_parses_and_its_breakdowns_add_up() {
        let ts = case_study().unwrap();
        let rows = wcl_rows(&ts);
        for layout in LAYOUTS {
            for t in &ts.tasks {
                let get = |m: &str| {
                    rows.iter()
                        .find(|r| r.approach == layout && r.task == t.name && r.metric == m)
                        .map(|r| r.value)
                        .unwrap()
                };
                let parts =
                    get("own_io_ms") + get("other_io_ms") + get("gc_ms") + get("blocking_ms");
                assert!((parts - get("wcl_ms")).abs() < 1e-6, "{layout} {}", t.name);
            }
        }
    }
}
