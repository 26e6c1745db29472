use super::*;
use crate::platform::Platform;
use crate::sim::{NrtService, SimCluster, SimTask};
use crate::taskset::{NrtArrival, NrtLoad};
use ssdlab_sim::preset::Preset;

fn seed004() -> SsdConfig {
    Preset::load_device("seed004").unwrap()
}

fn task(name: &str, writes: u32, footprint: u64, cluster: usize) -> SimTask {
    SimTask {
        name: name.into(),
        period_ns: 50_000_000,
        deadline_ns: 50_000_000,
        offset_ns: 0,
        read_pages: 2,
        write_pages: writes,
        footprint_pages: footprint,
        cluster,
    }
}

fn cluster(chips: &[u32], nrt: NrtService) -> SimCluster {
    SimCluster {
        chips: chips.to_vec(),
        nrt,
        gc_round_ns: 20_000_000,
        freed_pages_per_round: 16,
    }
}

/// Three clusters of seed004's four chips, listed out of order: {2, 0}
/// holds a big task, {1} a small one, {3} only NRT data.
fn setup() -> SimSetup {
    let tbs = NrtService::Tbs {
        bandwidth_ppm: 300_000,
    };
    SimSetup {
        platform: Platform::from_preset("seed004", &seed004(), None).unwrap(),
        tasks: vec![task("big", 16, 300_000, 0), task("small", 4, 20_000, 1)],
        clusters: vec![
            cluster(&[2, 0], tbs),
            cluster(&[1], tbs),
            cluster(&[3], NrtService::Background),
        ],
        nrt: Some(NrtLoad {
            footprint_pages: 10_001,
            arrival: NrtArrival::Saturating,
            outstanding: None,
            min_request_bytes: 4096,
            max_request_bytes: 131_072,
            read_fraction: 0.5,
        }),
        duration_ns: 1_000_000_000,
        seed: 7,
        order: ChipOrder::Edf,
    }
}

#[test]
fn nrt_pages_are_one_to_one_and_a_run_is_contiguous_in_every_cluster() {
    let s = setup();
    let (cfg, at) = device_for(&s, &seed004()).unwrap();
    let ranges = cluster_ranges(cfg.layout().logical_pages, &cfg.ftl.clusters);
    let mut seen = std::collections::HashSet::new();
    for x in 0..10_001u64 {
        let (k, lpa) = at.nrt_page(x, 4);
        assert!(seen.insert(lpa), "NRT page {x} shares device page {lpa}");
        assert!(
            ranges[k].0 <= lpa && lpa < ranges[k].1,
            "page {x} outside cluster {k}"
        );
        // Striped over all chips: the page's chip is in its cluster.
        assert!(s.clusters[k].chips.contains(&((x % 4) as u32)));
    }
    for (start, len) in [(0, 1), (1, 7), (3, 32), (9_990, 11), (4_097, 30)] {
        let mut per_cluster: Vec<Vec<u32>> = vec![Vec::new(); 3];
        for x in start..start + len {
            let (k, lpa) = at.nrt_page(x, 4);
            per_cluster[k].push(lpa);
        }
        for run in per_cluster.iter().filter(|r| !r.is_empty()) {
            assert!(run.windows(2).all(|w| w[1] == w[0] + 1), "{run:?}");
        }
    }
}

#[test]
fn the_clusters_cover_the_logical_space_and_each_holds_what_it_needs() {
    let s = setup();
    let (cfg, at) = device_for(&s, &seed004()).unwrap();
    assert!(cfg.validate().is_ok());
    let ranges = cluster_ranges(cfg.layout().logical_pages, &cfg.ftl.clusters);
    assert_eq!(ranges[0].0, 0);
    assert_eq!(ranges[2].1, cfg.layout().logical_pages);
    assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0), "{ranges:?}");
    for (t, base) in s.tasks.iter().zip(&at.task_base) {
        let (start, end) = ranges[t.cluster];
        assert!(start <= *base && u64::from(*base) + t.footprint_pages <= u64::from(end));
    }
    // Every cluster needs less than its chips' share: each range is that
    // share, within a page (as the preset's check for a dynamic SLC cache
    // asks).
    let logical = u64::from(cfg.layout().logical_pages);
    for ((start, end), c) in ranges.iter().zip(&s.clusters) {
        let exact = logical as f64 * c.chips.len() as f64 / 4.0;
        assert!((f64::from(end - start) - exact).abs() <= 1.0, "{ranges:?}");
    }
}

#[test]
fn every_page_stays_on_its_clusters_dies_and_the_run_repeats() {
    let s = setup();
    let (report, ssd, at) = run(&s, &seed004()).unwrap();
    assert_eq!(report.misses(), (0, 0), "{report:?}");
    assert!(report.tasks.iter().all(|t| t.jobs == 20), "{report:?}");
    assert!(report.nrt.as_ref().unwrap().requests > 100);
    let die_of = |lpa: u32| {
        let plane = ssd.plane_of_page(Lpn(lpa)).expect("written");
        ssd.layout().die_of_plane(plane).0
    };
    for (t, &base) in s.tasks.iter().zip(&at.task_base) {
        for lpa in (base..base + t.footprint_pages as u32).step_by(97) {
            assert!(
                s.clusters[t.cluster].chips.contains(&die_of(lpa)),
                "{}",
                t.name
            );
        }
    }
    for x in (0..10_001).step_by(13) {
        let (k, lpa) = at.nrt_page(x, 4);
        assert!(s.clusters[k].chips.contains(&die_of(lpa)));
    }
    assert_eq!(run(&s, &seed004()).unwrap().0, report);
}

#[test]
fn a_task_set_the_preset_cannot_hold_is_refused_with_the_reason() {
    let mut s = setup();
    s.tasks[1].footprint_pages = 262_144; // a whole die, with no room for GC
    let e = device_for(&s, &seed004()).unwrap_err();
    assert!(e.contains("cluster 1") && e.contains("chips hold"), "{e}");
    let mut two_dies = seed004();
    two_dies.geometry.dies_per_chip = 2;
    two_dies.geometry.channels = 2;
    let e = device_for(&setup(), &two_dies).unwrap_err();
    assert!(e.contains("one die per chip"), "{e}");
}

#[test]
fn a_platform_of_fewer_chips_than_dies_leaves_the_other_dies_the_rest() {
    let mut s = setup();
    s.platform = Platform::from_preset("seed004", &seed004(), Some(3)).unwrap();
    s.clusters.pop();
    s.nrt.as_mut().unwrap().footprint_pages = 3_000;
    let (cfg, _) = device_for(&s, &seed004()).unwrap();
    let logical = cfg.layout().logical_pages;
    let ranges = cluster_ranges(logical, &cfg.ftl.clusters);
    // Three chips of four: three quarters of the space, the last die the rest.
    let end = ranges.last().unwrap().1;
    assert_eq!(end, logical * 3 / 4, "{ranges:?}");
    let (report, _, _) = run(&s, &seed004()).unwrap();
    assert_eq!(report.misses(), (0, 0), "{report:?}");
}

/// Task sets at the edges of what a file may say run on the SSD model
/// without a panic, under every approach and both die orders: a task
/// whose footprint is one job's pages (every job rewrites all of it), one
/// that only reads, one released after the run ends, no NRT load or a one-page one.
#[test]
fn edge_task_sets_run_or_are_refused_without_a_panic() {
    use crate::sim::{setup_from, NrtPolicy};
    use crate::{allocate, ApproachChoice, TaskSet};
    let tasks = r#"[platform]
preset = "seed004"

[[rt_task]]
name = "tiny"
period = "5ms"
read_pages = 8
write_pages = 8
footprint = 8

[[rt_task]]
name = "reader"
period = "20ms"
deadline = "3ms"
read_pages = 64
write_pages = 0
footprint = 5000

[[rt_task]]
name = "late"
period = "50ms"
offset = "10s"
read_pages = 1
write_pages = 1
footprint = 10
"#;
    let mut ran = 0;
    let nrt = ["", "\n[nrt]\nfootprint = \"4KiB\"\narrival = \"saturating\"\nrequest_size = [\"4KiB\", \"128KiB\"]\n"];
    for nrt in nrt {
        let ts = TaskSet::from_toml(&format!("{tasks}{nrt}"), "edge.toml").unwrap();
        for approach in ["clustering", "global", "full-isolation"] {
            let alloc = allocate(&ts, ApproachChoice::parse(approach).unwrap());
            for (policy, order) in [
                (NrtPolicy::Tbs, ChipOrder::Edf),
                (NrtPolicy::Background, ChipOrder::Fifo),
            ] {
                let Ok(mut s) = setup_from(&ts, &alloc, policy, 300_000_000, 3) else {
                    continue;
                };
                s.order = order;
                let r = simulate_on_device(&s, &seed004()).unwrap();
                // The late task is never released; the others are, every period.
                assert_eq!(r.tasks[2].jobs, 0);
                assert_eq!(r.tasks[0].jobs, 60, "{approach} {order:?}");
                ran += 1;
            }
        }
    }
    // Every approach places these tasks somewhere.
    assert_eq!(ran, 12);
}
