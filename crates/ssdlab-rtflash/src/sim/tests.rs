use super::*;

/// Four chips of 64 blocks of 32 pages (2 reserved), the paper's timings.
fn platform() -> Platform {
    Platform {
        blocks_per_chip: 64,
        pages_per_block: 32,
        ..Platform::default()
    }
}

fn task(
    name: &str,
    period_ms: u64,
    reads: u32,
    writes: u32,
    footprint: u64,
    cluster: usize,
) -> SimTask {
    SimTask {
        name: name.into(),
        period_ns: period_ms * 1_000_000,
        deadline_ns: period_ms * 1_000_000,
        offset_ns: 0,
        read_pages: reads,
        write_pages: writes,
        footprint_pages: footprint,
        cluster,
    }
}

fn cluster(chips: &[u32], nrt: NrtService) -> SimCluster {
    SimCluster {
        chips: chips.to_vec(),
        nrt,
        gc_round_ns: 16 * 275_000 + 700_000,
        freed_pages_per_round: 16,
    }
}

fn nrt() -> NrtLoad {
    NrtLoad {
        footprint_pages: 1024,
        arrival: NrtArrival::Saturating,
        outstanding: None,
        min_request_bytes: 4096,
        max_request_bytes: 32768,
        read_fraction: 0.5,
    }
}

fn setup(nrt_service: NrtService) -> SimSetup {
    SimSetup {
        platform: platform(),
        tasks: vec![
            task("a", 20, 2, 2, 600, 0),
            task("b", 40, 4, 2, 600, 0),
            task("c", 20, 2, 2, 600, 1),
            task("d", 50, 4, 4, 600, 1),
        ],
        clusters: vec![cluster(&[0, 1], nrt_service), cluster(&[2, 3], nrt_service)],
        nrt: Some(nrt()),
        duration_ns: 2_000_000_000,
        seed: 7,
        order: ChipOrder::Edf,
    }
}

#[test]
fn light_rt_load_meets_every_deadline_and_jobs_run_at_their_rate() {
    let r = simulate(&setup(NrtService::Tbs {
        bandwidth_ppm: 500_000,
    }))
    .unwrap();
    assert_eq!(r.misses(), (0, 0), "{r:#?}");
    assert_eq!(r.tasks[0].jobs, 100);
    assert_eq!(r.tasks[3].jobs, 40);
    assert!(r.tasks.iter().all(|t| t.max_response_ns < 20_000_000));
    assert!(
        r.gc_rounds > 0,
        "overwrites of a preconditioned space collect"
    );
    assert!(r.nrt.as_ref().unwrap().requests > 0);
}

#[test]
fn same_setup_same_report() {
    let s = setup(NrtService::Background);
    assert_eq!(simulate(&s).unwrap(), simulate(&s).unwrap());
}

#[test]
fn a_server_gives_nrt_at_least_the_background_bandwidth() {
    let bg = simulate(&setup(NrtService::Background)).unwrap();
    let tbs = simulate(&setup(NrtService::Tbs {
        bandwidth_ppm: 500_000,
    }))
    .unwrap();
    let mbs = |r: &SimReport| r.nrt.as_ref().unwrap().mb_per_s;
    assert!(
        mbs(&tbs) >= mbs(&bg) * 0.95,
        "{} vs {}",
        mbs(&tbs),
        mbs(&bg)
    );
    assert_eq!(tbs.misses(), (0, 0));
}

#[test]
fn data_that_does_not_fit_is_an_error() {
    let mut s = setup(NrtService::Background);
    s.tasks[0].footprint_pages = 10_000;
    assert!(simulate(&s).is_err());
}

#[test]
fn memory_follows_the_work_in_flight_not_the_simulated_time() {
    let mut s = setup(NrtService::Background);
    s.duration_ns = 20_000_000_000;
    let mut sim = Sim::new(&s).unwrap();
    sim.run();
    let jobs: u64 = sim.report.jobs_so_far();
    assert!(jobs > 2_000, "{jobs} RT jobs ran");
    // At most the NRT requests kept outstanding and a few RT jobs per task
    // were ever in flight at once.
    assert!(
        sim.jobs.allocated() < 64,
        "{} job slots",
        sim.jobs.allocated()
    );
    assert!(
        sim.parts.allocated() < 128,
        "{} part slots",
        sim.parts.allocated()
    );
}

/// The analysis is safe: random task sets that an approach's analysis
/// accepts, simulated on that approach's allocation with a saturating NRT
/// load (in the background and through TBS), miss no deadline. With NRT in
/// the background no job takes longer than the busy-period bound; through
/// a TBS the server's work legitimately pushes RT jobs past it, and what
/// the analysis guarantees is the deadline (the EDF test counts the
/// server's bandwidth). Rejected sets may miss; they are not simulated.
#[test]
fn accepted_sets_never_miss_and_stay_within_the_bound() {
    use crate::allocate::REGISTRY;
    use crate::generate::{generate, GenParams};
    use crate::sim::{setup_from, NrtPolicy};
    use crate::ApproachChoice;
    let small = Platform {
        blocks_per_chip: 96,
        pages_per_block: 32,
        ..Platform::default()
    };
    let mut simulated = 0;
    let grid = [
        (4, 0.2, 0.5, 0.5),
        (5, 0.5, 0.5, 0.6),
        (6, 0.8, 1.0, 0.4),
        (4, 0.4, 1.0, 0.7),
        (8, 1.2, 0.3, 0.5),
        (4, 1.6, 0.0, 0.5),
    ];
    for (i, &(tasks, density, write_fraction, rho)) in grid.iter().enumerate() {
        let mut params = GenParams::new(small.clone(), tasks, density);
        params.write_fraction = write_fraction;
        params.space_utilisation = rho;
        params.max_period_ns = 200_000_000;
        for k in 0..8u64 {
            let Some(mut ts) = generate(&params, 1000 * i as u64 + k) else {
                continue;
            };
            ts.nrt = Some(NrtLoad {
                footprint_pages: small.usable_pages() / 20,
                ..nrt()
            });
            for entry in REGISTRY {
                let approach = ApproachChoice::parse(entry.name).unwrap();
                let alloc = crate::allocate(&ts, approach);
                if !alloc.schedulable {
                    continue;
                }
                for policy in [NrtPolicy::Background, NrtPolicy::Tbs] {
                    let setup = setup_from(&ts, &alloc, policy, 2_000_000_000, k).unwrap();
                    let r = simulate(&setup).unwrap();
                    simulated += 1;
                    assert_eq!(
                        r.misses(),
                        (0, 0),
                        "{} {policy:?} set {i}/{k}: {r:#?}",
                        entry.name
                    );
                    for (t, a) in r.tasks.iter().zip(&alloc.tasks) {
                        let bound = match policy {
                            NrtPolicy::Background => a.worst_case_latency_ns.unwrap(),
                            NrtPolicy::Tbs => a.deadline_ns,
                        };
                        assert!(
                            t.max_response_ns <= bound,
                            "{} {policy:?} set {i}/{k} task {}: {} > bound {bound}",
                            entry.name,
                            t.name,
                            t.max_response_ns
                        );
                    }
                }
            }
        }
    }
    assert!(
        simulated >= 40,
        "only {simulated} accepted runs: the grid is too heavy"
    );
}

#[test]
fn a_sparsely_filled_chip_starts_in_gc_steady_state() {
    // One writer holding 5 % of its chip: overwrites drawn over the whole
    // logical space would leave it free blocks for the whole run.
    let mut s = setup(NrtService::Background);
    s.tasks = vec![task("sparse", 10, 0, 4, 100, 0)];
    s.clusters = vec![cluster(&[0], NrtService::Background)];
    s.nrt = None;
    s.platform.chips = 1;
    s.duration_ns = 200_000_000;
    let r = simulate(&s).unwrap();
    // 20 jobs × 4 pages; a round frees about 30 pages at this fill.
    assert!(r.gc_rounds >= 2, "{r:#?}");
}

#[test]
fn an_ordinary_device_holds_background_nrt_in_the_host_while_rt_is_open() {
    let mut s = setup(NrtService::Background);
    s.order = ChipOrder::Fifo;
    s.nrt.as_mut().unwrap().arrival = NrtArrival::Poisson { per_second: 1.0 };
    let mut sim = Sim::new(&s).unwrap();
    sim.release(0, 0);
    sim.issue_nrt(0);
    assert_eq!(sim.nrt_held.len(), 1, "held while task a's job is open");
    assert!(sim.chips.iter().all(|c| c.ready_len() <= 2), "only a's ops");
    while sim.rt_open > 0 {
        match sim.q.pop() {
            Some((now, Event::ChipDone(chip))) => sim.chip_done(chip, now),
            Some(_) => {}
            None => panic!("the job never finished"),
        }
    }
    assert!(sim.nrt_held.is_empty(), "let go when the job finished");
    // On the framework's device the chips order it instead.
    s.order = ChipOrder::Edf;
    let mut sim = Sim::new(&s).unwrap();
    sim.release(0, 0);
    sim.issue_nrt(0);
    assert!(sim.nrt_held.is_empty());
}

#[test]
fn a_saturating_nrt_load_keeps_its_depth_outstanding() {
    // No RT task. One request outstanding never queues behind another:
    // fewer requests, each answered sooner, than eight outstanding.
    let mut s = setup(NrtService::Background);
    s.tasks.clear();
    s.duration_ns = 500_000_000;
    let mut run = |depth| {
        s.nrt.as_mut().unwrap().outstanding = depth;
        simulate(&s).unwrap().nrt.unwrap()
    };
    let (one, default) = (run(Some(1)), run(None));
    assert!(one.requests < default.requests, "{one:?} vs {default:?}");
    assert!(
        one.mean_response_ns * 2 < default.mean_response_ns,
        "{one:?} vs {default:?}"
    );
}
