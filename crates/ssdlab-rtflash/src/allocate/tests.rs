use super::*;
use crate::edf::{busy_period, density_test, edf_np_test, Stream};
use crate::generate::{generate, GenParams};
use crate::{LeftoverChips, NrtArrival, NrtLoad, Platform, RtTask};
use proptest::prelude::*;

const MS: u64 = 1_000_000;

fn task(name: &str, read: u64, write: u64, footprint: u64) -> RtTask {
    RtTask {
        name: name.into(),
        period_ns: 120 * MS,
        deadline_ns: 60 * MS,
        read_pages: read,
        write_pages: write,
        footprint_pages: footprint,
        offset_ns: 0,
    }
}

/// The case study of examples/rtflash/case-study.toml, on the default
/// platform.
fn case_study() -> TaskSet {
    TaskSet {
        platform: Platform::default(),
        tasks: vec![
            task("big1", 4, 16, 230_462),
            task("big2", 4, 16, 230_462),
            task("small1", 2, 8, 26_188),
            task("small2", 2, 8, 26_188),
        ],
        nrt: Some(NrtLoad {
            footprint_pages: 65_536,
            arrival: NrtArrival::Saturating,
            outstanding: None,
            min_request_bytes: 4096,
            max_request_bytes: 131_072,
            read_fraction: 0.5,
        }),
        analysis: Default::default(),
    }
}

fn run(ts: &TaskSet, name: &str) -> Allocation {
    allocate(ts, ApproachChoice::parse(name).unwrap())
}

#[test]
fn case_study_verdicts() {
    let ts = case_study();
    let c = run(&ts, "clustering");
    assert!(c.schedulable, "{:?}", c.reason);
    let layout: Vec<_> = c.clusters.iter().map(|k| k.tasks.clone()).collect();
    assert_eq!(layout, [["big1", "small1"], ["big2", "small2"]]);
    assert!(c.tasks.iter().all(|t| t.within_deadline));
    let g = run(&ts, "global");
    assert!(!g.schedulable);
    assert!(g.tasks.iter().all(|t| !t.within_deadline));
    let f = run(&ts, "full-isolation");
    assert!(!f.schedulable);
    assert!(f.reason.unwrap().contains("task 'big1' alone on one chip"));
    // The parts of every latency add up to it.
    for t in g.tasks.iter().chain(&c.tasks).chain(&f.tasks) {
        let b = t.breakdown.unwrap();
        let sum = b.own_io_ns + b.other_io_ns + b.gc_ns + b.blocking_ns;
        assert_eq!(Some(sum), t.worst_case_latency_ns, "{}", t.name);
    }
}

#[test]
fn leftover_chips_form_the_nrt_only_cluster() {
    let mut ts = case_study();
    ts.tasks.truncate(1);
    ts.tasks[0].footprint_pages = 1000;
    let c = run(&ts, "clustering");
    assert!(c.schedulable);
    assert_eq!(c.clusters.len(), 2);
    assert_eq!(c.clusters[0].chips, [0]);
    assert!(c.clusters[1].nrt_only);
    assert_eq!(c.clusters[1].chips, [1, 2, 3]);
    assert_eq!(c.clusters[1].server_bandwidth_ppm, 1_000_000);
}

#[test]
fn spread_leftover_chips_go_to_the_fullest_cluster() {
    // The case study's big1 on two chips, small1 on one, one chip free.
    let ts = case_study();
    let mut packing = super::clustering_bfd::Packing {
        groups: vec![
            Group {
                chips: 2,
                tasks: vec![0],
            },
            Group {
                chips: 1,
                tasks: vec![2],
            },
        ],
        free: 1,
    };
    packing.spread_leftover(&ts);
    // big1's cluster is the fuller (big1's data alone fill 88 % of one
    // chip, small1's 10 %): it takes the chip.
    assert_eq!(packing.free, 0);
    assert_eq!(
        packing.groups.iter().map(|g| g.chips).collect::<Vec<_>>(),
        [3, 1]
    );
}

#[test]
fn spread_leftover_chips_leave_no_nrt_only_cluster() {
    let mut ts = case_study();
    ts.tasks.truncate(1);
    ts.tasks[0].footprint_pages = 1000;
    ts.analysis.leftover_chips = LeftoverChips::Spread;
    let c = run(&ts, "clustering");
    assert!(c.schedulable);
    assert_eq!(c.clusters.len(), 1);
    assert_eq!(c.clusters[0].chips, [0, 1, 2, 3]);
    assert!(!c.clusters[0].nrt_only);
}

/// Read-only tasks (no GC) with `D = T = 10 ms` on two chips: `p`, `q`
/// have density 0.28, `r`, `s` 0.49 (blocking adds 0.07).
fn online_set() -> TaskSet {
    let t = |name: &str, read_pages| RtTask {
        name: name.into(),
        period_ns: 10 * MS,
        deadline_ns: 10 * MS,
        read_pages,
        write_pages: 0,
        footprint_pages: 1,
        offset_ns: 0,
    };
    let platform = Platform {
        chips: 2,
        ..Platform::default()
    };
    TaskSet {
        platform,
        tasks: vec![t("p", 80), t("q", 80), t("r", 140), t("s", 140)],
        nrt: None,
        analysis: Default::default(),
    }
}

#[test]
fn online_arrivals_and_departures() {
    let ts = online_set();
    let mut on = OnlineClustering::new(&ts);
    // p and q share a chip; r takes the other one.
    for t in [0, 1, 2] {
        assert_eq!(on.arrive(&ts, t), Ok(Arrival::Incremental));
    }
    assert!(on.arrive(&ts, 2).is_err());
    // s fits beside neither; packing all again gives {r, p}, {s, q}.
    assert_eq!(on.arrive(&ts, 3), Ok(Arrival::Reallocated));
    assert_eq!(on.groups()[0].tasks, [2, 0]);
    assert_eq!(on.groups()[1].tasks, [3, 1]);
    assert!(on.depart(3));
    assert!(!on.depart(3));
    assert_eq!(on.admitted(), [2, 0, 1]);
    assert!(on.depart(1));
    assert_eq!(on.free_chips(), 1);
    let mut strict = ts.clone();
    strict.analysis.allow_migration = false;
    let mut on = OnlineClustering::new(&strict);
    for t in [0, 1, 2] {
        on.arrive(&strict, t).unwrap();
    }
    let before = on.clone();
    let e = on.arrive(&strict, 3).unwrap_err();
    assert!(e.contains("migration not allowed"), "{e}");
    assert_eq!(on, before);
}

#[test]
fn registry_names() {
    assert_eq!(
        Approaches::names(),
        ["clustering", "global", "full-isolation"]
    );
    assert!(ApproachChoice::parse("best").is_err());
}

fn streams() -> impl Strategy<Value = Vec<Stream>> {
    prop::collection::vec((1u64..50, 1u64..100, 0u64..100), 1..6).prop_map(|v| {
        v.into_iter()
            .map(|(c, d, extra)| Stream {
                cost_ns: c * 100_000,
                deadline_ns: d * MS,
                period_ns: (d + extra) * MS,
            })
            .collect()
    })
}

/// Runs `property` on `cases` draws of `strategy`. The property returns
/// whether its premise held; the run fails below `floor` such cases, so a
/// premise that stops holding cannot let the property pass unchecked.
fn check_counted<S: Strategy>(
    name: &str,
    cases: u32,
    floor: u32,
    strategy: S,
    property: impl Fn(S::Value) -> Result<bool, TestCaseError>,
) {
    use proptest::test_runner::{Config, TestRunner};
    let held = std::cell::Cell::new(0u32);
    let mut runner = TestRunner::new(Config::with_cases(cases));
    let result = runner.run(&strategy, |v| {
        let premise = property(v)?;
        held.set(held.get() + u32::from(premise));
        Ok(())
    });
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
    eprintln!("{name}: premise held in {} of {cases} cases", held.get());
    assert!(
        held.get() >= floor,
        "{name}: premise held in {} of {cases} cases, floor {floor}",
        held.get()
    );
}

fn generated_set() -> impl Strategy<Value = (usize, f64, f64, u64)> {
    (2usize..7, 0.2f64..3.0, 0.3f64..0.95, 0u64..1000)
}

#[test]
fn exact_test_accepts_what_density_accepts() {
    check_counted(
        "density",
        200,
        120,
        (streams(), 0u64..2_000_000),
        |(s, b)| {
            if !density_test(&s, b) {
                return Ok(false);
            }
            prop_assert_eq!(edf_np_test(&s, b), Ok(()));
            Ok(true)
        },
    );
}

#[test]
fn busy_period_covers_every_job() {
    check_counted(
        "busy period",
        200,
        150,
        (streams(), 0u64..2_000_000),
        |(s, b)| {
            let Some(bp) = busy_period(&s, b) else {
                return Ok(false);
            };
            for x in &s {
                prop_assert!(bp >= x.cost_ns + b);
            }
            Ok(true)
        },
    );
}

#[test]
fn clustering_accepts_what_a_baseline_accepts() {
    check_counted(
        "clustering",
        400,
        30,
        generated_set(),
        |(n, u, rho, seed)| {
            let mut params = GenParams::new(Platform::default(), n, u);
            params.space_utilisation = rho;
            let Some(ts) = generate(&params, seed) else {
                return Ok(false);
            };
            let ok = |name| accepts(&ts, ApproachChoice::parse(name).unwrap());
            if !(ok("global") || ok("full-isolation")) {
                return Ok(false);
            }
            prop_assert!(ok("clustering"));
            Ok(true)
        },
    );
}

/// Spreading the leftover chips never changes a verdict, uses every
/// chip of an accepted set, and keeps every cluster schedulable.
#[test]
fn spreading_keeps_the_verdict_and_every_cluster_passing() {
    let sets = (2usize..7, 0.2f64..2.0, 0.3f64..0.9, 0u64..1000);
    check_counted("spreading", 200, 30, sets, |(n, u, rho, seed)| {
        let mut params = GenParams::new(Platform::default(), n, u);
        params.space_utilisation = rho;
        let Some(mut ts) = generate(&params, seed) else {
            return Ok(false);
        };
        let kept = run(&ts, "clustering");
        ts.analysis.leftover_chips = LeftoverChips::Spread;
        let spread = run(&ts, "clustering");
        prop_assert_eq!(kept.schedulable, spread.schedulable);
        if !(spread.schedulable && spread.note.is_none()) {
            return Ok(false);
        }
        let chips: usize = spread.clusters.iter().map(|k| k.chips.len()).sum();
        prop_assert_eq!(chips, ts.platform.chips as usize);
        prop_assert!(spread.clusters.iter().all(|k| !k.nrt_only));
        prop_assert!(spread.clusters.iter().all(|k| k.schedulable));
        Ok(true)
    });
}
