//! Property tests: random mixes of reads, writes and trims on small devices,
//! with GC running, keep every FTL invariant and read back the version last
//! written; every command completes and the device drains.

use proptest::prelude::*;
use ssdlab_protocol::{Dir, IoCommand};
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::{SlcCache, SsdConfig, Suspend};
use ssdlab_sim::ssd::device::SimSsd;
use ssdlab_sim::ssd::precondition::{precondition, Precondition};
use ssdlab_sim::workload::script::CommandScript;

/// A tiny device: 2 channels x 1 chip x 1 die x 2 planes, 24 blocks of 16
/// pages. Each bit of `variant` turns a mechanism on.
fn tiny(variant: u8, policy: &str) -> SsdConfig {
    let mut cfg = Preset::load_device("seed004").unwrap();
    cfg.name = "tiny".into();
    cfg.geometry.channels = 2;
    cfg.geometry.planes_per_die = 2;
    cfg.geometry.blocks_per_plane = 24;
    cfg.geometry.pages_per_block = Some(16);
    cfg.ftl.over_provisioning = 0.3;
    cfg.gc.policy = policy.parse().unwrap();
    cfg.gc.soft_threshold = 0.1;
    cfg.gc.hard_threshold = 0.05;
    cfg.timing.multi_plane = variant & 1 != 0;
    cfg.ftl.allocation = if variant & 2 != 0 {
        "dynamic"
    } else {
        "static"
    }
    .parse()
    .unwrap();
    cfg.buffer.capacity_bytes = if variant & 4 != 0 { 0 } else { 8 * 4096 };
    if variant & 8 != 0 {
        cfg.slc_cache = Some(SlcCache {
            blocks_per_plane: 2,
            bits_per_cell: 2,
            read_ns: 10_000,
            program_ns: 50_000,
            erase_ns: 300_000,
            fold_idle_ns: if variant & 32 != 0 { 200_000 } else { 0 },
            dynamic_blocks_per_plane: if variant & 2 != 0 { 3 } else { 0 },
        });
    }
    if variant & 16 != 0 {
        cfg.timing.suspend = Some(Suspend {
            suspend_ns: 5_000,
            resume_ns: 5_000,
        });
    }
    cfg.gc.copy_back = variant & 32 != 0;
    if variant & 64 != 0 {
        // The calibration mechanisms: 2-page flash pages, 2-page one-shot
        // programs gathered in the buffer, spread times, table write-back,
        // controller read-ahead.
        cfg.geometry.flash_page_size = Some(2 * cfg.geometry.page_size);
        cfg.timing.one_shot_pages = 2;
        cfg.timing.read_ns_by_page_type = Some(vec![20_000, 30_000]);
        cfg.timing.spread = 0.3;
        cfg.timing.independent_plane_reads = variant & 1 != 0;
        cfg.controller.read_page_ns = 2_000;
        cfg.controller.read_command_ns = 3_000;
        cfg.controller.write_command_ns = 1_500;
        cfg.controller.firmware_cores = 2;
        cfg.controller.submission_queues = 2;
        cfg.buffer.gather_ns = 100_000;
        cfg.gc.pacing = true;
        cfg.ftl.map_journal = Some(ssdlab_sim::ssd::config::MapJournal {
            entries_per_page: 4,
            dirty_pages: 2,
            write_back_batch: 1,
        });
        // Multi-page commands make short sequential streams.
        cfg.controller.read_ahead = Some(ssdlab_sim::ssd::config::ReadAhead {
            streams: 2,
            depth: 8,
            chunk: 4,
            buffer_pages: 6,
        });
    }
    if variant & 128 != 0 {
        // Chip clusters: the first half of the logical space on chip 0, the
        // rest on chip 1.
        cfg.ftl.allocation = "clusters".parse().unwrap();
        cfg.ftl.clusters = vec![ssdlab_sim::ssd::config::ChipCluster {
            chips: vec![0],
            from: 0.0,
            to: 0.5,
        }];
    }
    cfg.validate().unwrap();
    cfg
}

#[derive(Debug, Clone)]
struct Step {
    op: Dir,
    /// Continue where the previous command ended (sequential streams).
    follow: bool,
    lpa_frac: f64,
    pages: u32,
    gap_ns: u64,
}

fn step() -> impl Strategy<Value = Step> {
    (
        0u8..10,
        prop::bool::weighted(0.4),
        0.0f64..1.0,
        1u32..4,
        prop_oneof![Just(0u64), 0u64..200_000],
    )
        .prop_map(|(k, follow, f, pages, gap_ns)| Step {
            op: match k {
                0..=3 => Dir::Write,
                4..=8 => Dir::Read,
                _ => Dir::Trim,
            },
            follow,
            lpa_frac: f,
            pages,
            gap_ns,
        })
}

/// Runs the steps open-loop, checking invariants as it goes; returns the
/// number of completions.
fn drive(ssd: SimSsd, steps: &[Step]) -> (SimSsd, u64) {
    let logical = ssd.layout().logical_pages;
    let mut sim = Simulation::new(ssd, None, 0);
    let mut t = sim.now();
    let mut next_lpa = 0u32;
    let mut commands = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        t += s.gap_ns;
        let pages = s.pages.min(logical);
        let mut lpa = ((s.lpa_frac * (logical - pages + 1) as f64) as u32).min(logical - pages);
        if s.follow && next_lpa + pages <= logical {
            lpa = next_lpa;
        }
        next_lpa = lpa + pages;
        let cmd = IoCommand {
            id: i as u64,
            op: s.op,
            lpa: ssdlab_sim::ssd::ids::Lpn(lpa),
            pages,
            bytes: pages * 4096,
            sq: (i % 3) as u16,
            deadline: None,
        };
        commands.push((t, cmd));
    }
    let mut script = CommandScript::new(commands);
    let mut events = 0u64;
    let mut check = |_: u64, dev: &SimSsd| {
        events += 1;
        assert!(events < 50_000_000, "the device does not drain");
        if events.is_multiple_of(64) {
            dev.check_invariants().unwrap();
        }
    };
    sim.run(&mut script, Some(&mut check));
    let done = script.completions().len() as u64;
    (sim.into_parts().0, done)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_mixes_keep_invariants(
        variant in 0u8..=255,
        policy in prop_oneof![Just("greedy"), Just("cost-benefit"), Just("random"), Just("fifo"), Just("prioritized"), Just("randomized-greedy")],
        trigger in prop_oneof![Just("threshold"), Just("eager70"), Just("on-demand")],
        die_scheduler in prop_oneof![Just("priority"), Just("read-first")],
        plane_blocking in any::<bool>(),
        occupancy in 0.0f64..1.0,
        steps in prop::collection::vec(step(), 1..400),
        seed in 0u64..1000,
    ) {
        let mut cfg = tiny(variant, policy);
        cfg.gc.trigger = trigger.parse().unwrap();
        cfg.controller.die_scheduler = die_scheduler.parse().unwrap();
        cfg.gc.on_demand.global_order = seed % 2 == 0;
        if plane_blocking {
            cfg.gc.execution = ssdlab_sim::ssd::config::GcExecution::PlaneBlocking;
        }
        let mut ssd = SimSsd::new(cfg, seed, true);
        let pre = Precondition { overwrites: 1.0, steady_state: true, ..Precondition::fill(occupancy) };
        precondition(&mut ssd, &pre, seed).unwrap();
        ssd.check_invariants().unwrap();
        let (ssd, done) = drive(ssd, &steps);
        prop_assert_eq!(done, steps.len() as u64, "every command completes");
        prop_assert!(ssd.is_quiescent(), "device drained");
        ssd.check_invariants().unwrap();
    }
}

#[test]
fn heavy_overwrites_run_gc_and_keep_integrity() {
    for variant in [
        0u8, 1, 2, 4, 8, 9, 16, 27, 63, 64, 66, 75, 127, 128, 137, 203, 255,
    ] {
        let mut ssd = SimSsd::new(tiny(variant, "greedy"), 7, true);
        precondition(&mut ssd, &Precondition::full(), 7).unwrap();
        let steps: Vec<Step> = (0..3000)
            .map(|i| Step {
                // Runs of four reads or eight writes, mostly each command
                // following the previous one.
                op: if (i / 4) % 3 == 0 {
                    Dir::Read
                } else {
                    Dir::Write
                },
                follow: i % 6 != 0,
                lpa_frac: ((i * 7919) % 1000) as f64 / 1000.0,
                pages: 1 + (i % 2) as u32,
                gap_ns: if i % 5 == 0 { 100_000 } else { 0 },
            })
            .collect();
        let (ssd, done) = drive(ssd, &steps);
        assert_eq!(done, 3000);
        assert!(
            ssd.stats().ftl.gc_invocations > 0,
            "variant {variant}: GC ran"
        );
        if variant & 64 != 0 {
            assert!(
                ssd.stats().device.read_ahead_hits > 0,
                "variant {variant}: read-ahead served reads"
            );
        }
        if variant & 128 != 0 {
            assert_pages_stay_on_their_chips(&ssd);
        }
        ssd.check_invariants().unwrap();
    }
}

/// With the clusters of `tiny`, every page of the first half of the
/// logical space is on chip 0 (planes 0 and 1), every other on chip 1,
/// whatever GC has moved.
fn assert_pages_stay_on_their_chips(ssd: &SimSsd) {
    let logical = ssd.layout().logical_pages;
    let mut placed = 0;
    for lpa in 0..logical {
        let Some(plane) = ssd.plane_of_page(ssdlab_sim::ssd::ids::Lpn(lpa)) else {
            continue;
        };
        let chip = plane.0 / 2;
        let want = u32::from(lpa >= logical / 2);
        assert_eq!(chip, want, "page {lpa} of {logical} on plane {}", plane.0);
        placed += 1;
    }
    assert!(placed > logical / 2, "only {placed} pages on flash");
}
