//! The case studies (part 1) and the motivation figure (part 2): the task
//! sets of `examples/rtflash/case-study.toml` (full isolation's GC blow-up)
//! and `interference.toml` (sharing's GC interference), each simulated
//! under the five approaches on the framework's EDF device and under the
//! two baselines on an ordinary SSD, first on the analysis' chip model and
//! then on the full SSD model of their preset; the first set's worst-case
//! latencies in their parts under the three layouts.

use super::{point, Point, Row, StudyOptions, MODEL_REVISION};
pub use ssdlab_rtflash::sim::Model;
use ssdlab_rtflash::sim::{setup_from, simulate_on, ChipOrder, NrtPolicy, SimReport};
use ssdlab_rtflash::{allocate, Allocation, ApproachChoice, LeftoverChips, TaskSet};
use ssdlab_sim::error::InputError;

/// A case-study task set, as shipped in `examples/rtflash/`.
#[derive(Debug, Clone, Copy)]
pub struct CaseStudy {
    /// The `part` of its rows in results.csv.
    pub part: &'static str,
    pub title: &'static str,
    pub file: &'static str,
    pub toml: &'static str,
    pub model: Model,
}

const BLOW_UP: &str = include_str!("../../jobs/rtflash/case-study.toml");
const INTERFERENCE: &str = include_str!("../../jobs/rtflash/interference.toml");

/// The case studies: the first also gives the motivation figure.
pub const CASE_STUDIES: [CaseStudy; 4] = [
    CaseStudy {
        part: "case-study",
        title: "big and small writers (full isolation's GC blow-up)",
        file: "examples/rtflash/case-study.toml",
        toml: BLOW_UP,
        model: Model::Chips,
    },
    CaseStudy {
        part: "case-study-interference",
        title: "urgent and bulk writers (sharing's GC interference)",
        file: "examples/rtflash/interference.toml",
        toml: INTERFERENCE,
        model: Model::Chips,
    },
    CaseStudy {
        part: "case-study-ssd",
        title: "big and small writers, on the SSD model",
        file: "examples/rtflash/case-study.toml",
        toml: BLOW_UP,
        model: Model::Ssd,
    },
    CaseStudy {
        part: "case-study-interference-ssd",
        title: "urgent and bulk writers, on the SSD model",
        file: "examples/rtflash/interference.toml",
        toml: INTERFERENCE,
        model: Model::Ssd,
    },
];

/// One approach as the study runs it: a layout, how NRT work is served,
/// and the device the chips are.
#[derive(Debug, Clone, Copy)]
pub struct Variant {
    pub label: &'static str,
    pub layout: &'static str,
    pub nrt: NrtPolicy,
    pub device: ChipOrder,
    /// What Clustering-BFD does with the chips no task needs.
    pub leftover: LeftoverChips,
}

impl Variant {
    /// This variant's layout of `ts`, and its analysis.
    pub fn allocate(&self, ts: &TaskSet) -> Allocation {
        let mut ts = ts.clone();
        ts.analysis.leftover_chips = self.leftover;
        let approach = ApproachChoice::parse(self.layout).expect("a registered approach");
        allocate(&ts, approach)
    }

    /// Simulates `ts` for `seconds` on `alloc` (this variant's layout) with
    /// this variant's NRT service and device, on the analysis' chip model.
    /// An error when the layout leaves a task without chips or its data do
    /// not fit them.
    pub fn simulate(
        &self,
        ts: &TaskSet,
        alloc: &Allocation,
        seconds: u64,
        seed: u64,
    ) -> Result<SimReport, String> {
        self.simulate_on(Model::Chips, ts, alloc, seconds, seed)
    }

    /// The same on `model`; the SSD model is the task set's preset.
    pub fn simulate_on(
        &self,
        model: Model,
        ts: &TaskSet,
        alloc: &Allocation,
        seconds: u64,
        seed: u64,
    ) -> Result<SimReport, String> {
        let mut setup = setup_from(ts, alloc, self.nrt, seconds * 1_000_000_000, seed)?;
        setup.order = self.device;
        simulate_on(model, &setup, ts)
    }
}

const fn variant(
    label: &'static str,
    layout: &'static str,
    nrt: NrtPolicy,
    device: ChipOrder,
) -> Variant {
    Variant {
        label,
        layout,
        nrt,
        device,
        leftover: LeftoverChips::NrtCluster,
    }
}

/// The approaches compared. The first three are the paper's, the next two
/// its ablations, all on the framework's device (chips serve flash
/// operations earliest deadline first). The last two are the paper's
/// baselines on an ordinary SSD: chips serve in arrival order with
/// foreground GC, and background NRT service is the host's (held while RT
/// I/O is open). The last is the proposed approach with the chips it leaves
/// over handed to its clusters (`leftover_chips = "spread"`, our option).
pub const VARIANTS: [Variant; 8] = [
    variant(
        "Clustering-BFD+TBS",
        "clustering",
        NrtPolicy::Tbs,
        ChipOrder::Edf,
    ),
    variant("Global+BG", "global", NrtPolicy::Background, ChipOrder::Edf),
    variant(
        "Full-Isolation+BG",
        "full-isolation",
        NrtPolicy::Background,
        ChipOrder::Edf,
    ),
    variant(
        "Clustering-BFD+BG",
        "clustering",
        NrtPolicy::Background,
        ChipOrder::Edf,
    ),
    variant("Global+TBS", "global", NrtPolicy::Tbs, ChipOrder::Edf),
    variant(
        "Global+BG, ordinary SSD",
        "global",
        NrtPolicy::Background,
        ChipOrder::Fifo,
    ),
    variant(
        "Full-Isolation+BG, ordinary SSD",
        "full-isolation",
        NrtPolicy::Background,
        ChipOrder::Fifo,
    ),
    Variant {
        leftover: LeftoverChips::Spread,
        ..variant(
            "Clustering-BFD+TBS, leftover chips spread",
            "clustering",
            NrtPolicy::Tbs,
            ChipOrder::Edf,
        )
    },
];

/// The layouts of the motivation figure, as the paper orders them.
const LAYOUTS: [&str; 3] = ["global", "full-isolation", "clustering"];

fn task_set(case: &CaseStudy) -> Result<TaskSet, InputError> {
    TaskSet::from_toml(case.toml, case.file)
}

fn layout(ts: &TaskSet, name: &str) -> Allocation {
    allocate(
        ts,
        ApproachChoice::parse(name).expect("a registered approach"),
    )
}

pub(super) fn points(opts: &StudyOptions) -> Result<Vec<Point>, InputError> {
    let mut points = Vec::new();
    let seconds = opts.plan.case_seconds;
    let seed = opts.seed;
    for case in CASE_STUDIES {
        // A case study's tasks are read here, so a bad one fails before any run.
        task_set(&case)?;
        for v in VARIANTS {
            points.push(point(
                serde_json::json!({
                    "study": "rt-flash", "part": case.part, "ssdlab": env!("CARGO_PKG_VERSION"),
                    "model": MODEL_REVISION, "tasks": case.toml, "approach": v.label,
                    "seconds": seconds, "seed": seed,
                }),
                seconds * 4,
            ));
        }
    }
    points.push(point(
        serde_json::json!({
            "study": "rt-flash", "part": "wcl", "ssdlab": env!("CARGO_PKG_VERSION"),
            "model": MODEL_REVISION,
            "tasks": CASE_STUDIES[0].toml,
        }),
        1,
    ));
    Ok(points)
}

pub(super) fn case_rows(
    case: &CaseStudy,
    ts: &TaskSet,
    v: Variant,
    seconds: u64,
    seed: u64,
) -> Result<Vec<Row>, InputError> {
    let alloc = v.allocate(ts);
    let report = v
        .simulate_on(case.model, ts, &alloc, seconds, seed)
        .map_err(|e| InputError::invalid(case.file, e))?;
    Ok(rows_of(case.part, v.label, &alloc, &report))
}

fn rows_of(part: &str, label: &str, alloc: &Allocation, r: &SimReport) -> Vec<Row> {
    let row = |metric: &str, value: f64| Row::new(part, label, metric, value);
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
pub(super) fn wcl_rows(ts: &TaskSet) -> Vec<Row> {
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
        let ts = task_set(&CASE_STUDIES[0]).unwrap();
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
