//! The GC triggers and the prioritized victim policy (after Lee, Choi, Hong,
//! Electronics 12(9):2142, 2023; see docs/model.md), with
//! the invariant checker on.

use rand::SeedableRng;
use ssdlab_protocol::Dir;
use ssdlab_protocol::Lpn;
use ssdlab_sim::experiment::closed_loop::ClosedLoop;
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::build::gc_policy as make_policy;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::ssd::device::SimSsd;
use ssdlab_sim::ssd::ftl::{Ftl, Stream};
use ssdlab_sim::ssd::ids::{BlockId, PlaneId};
use ssdlab_sim::ssd::precondition::{precondition, Precondition};

fn device(trigger: &str, policy: &str) -> SimSsd {
    let mut cfg = Preset::load_device("seed004").unwrap();
    cfg.geometry.blocks_per_plane = 64;
    cfg.ftl.over_provisioning = 0.25;
    cfg.gc.trigger = trigger.parse().unwrap();
    cfg.gc.policy = policy.parse().unwrap();
    cfg.validate().unwrap();
    SimSsd::new(cfg, 9, true)
}

/// Random single-page writes over the occupied part of a device 90% full of
/// logical data (67.5% of its physical pages).
fn write_load(mut ssd: SimSsd, requests: u64) -> (SimSsd, u64) {
    let pre = Precondition::fill(0.9);
    precondition(&mut ssd, &pre, 9).unwrap();
    let span = (ssd.layout().logical_pages as f64 * 0.9) as u32;
    let mut sim = Simulation::new(ssd, None, 4);
    ClosedLoop {
        op: Dir::Write,
        qd: 8,
        requests,
        span,
        seed: 4,
    }
    .run(&mut sim);
    sim.drain();
    let ssd = sim.into_parts().0;
    ssd.check_invariants().unwrap();
    let gc = ssd.stats().ftl.gc_invocations;
    (ssd, gc)
}

#[test]
fn on_demand_waits_while_free_space_covers_the_need() {
    // A few thousand overwrites leave every plane far above its need
    // (2 blocks or the writes of the next 50 ms): no GC. The eager 70% rule
    // collects as soon as 70% of a plane is in use.
    let (_, on_demand) = write_load(device("on-demand", "prioritized"), 4_000);
    let (_, eager) = write_load(device("eager70", "greedy"), 4_000);
    assert_eq!(
        on_demand, 0,
        "on-demand collected while space was plentiful"
    );
    assert!(eager > 0, "eager70 collected {eager} times");
}

#[test]
fn on_demand_collects_when_space_runs_short() {
    let (ssd, gc) = write_load(device("on-demand", "prioritized"), 120_000);
    assert!(gc > 0, "GC ran once the free space fell below the need");
    // It kept every plane above the host reserve without help.
    for p in ssd.layout().all_planes() {
        assert!(ssd.free_blocks(p) >= 1);
    }
}

/// A one-plane FTL with blocks of chosen valid counts (closed in order).
fn ftl_with_valid_counts(valid: &[u16], closed_at: &[u64]) -> (Ftl, SsdConfig) {
    let mut cfg = Preset::load_device("seed004").unwrap();
    cfg.geometry.channels = 1;
    cfg.geometry.planes_per_die = 1;
    cfg.geometry.blocks_per_plane = 32;
    cfg.geometry.pages_per_block = Some(8);
    cfg.ftl.over_provisioning = 0.5;
    let layout = cfg.layout();
    let mut ftl = Ftl::new(layout, None, 1, false);
    let mut lpa = 0;
    for (i, &v) in valid.iter().enumerate() {
        ftl.set_now(closed_at[i]);
        let mut mine = Vec::new();
        for _ in 0..8 {
            let ppa = ftl.alloc_page(PlaneId(0), Stream::HostNative).unwrap();
            ftl.commit(Lpn(lpa), ppa, 0);
            mine.push(Lpn(lpa));
            lpa += 1;
        }
        // Invalidate 8 - v pages by trimming them.
        for &l in &mine[v as usize..] {
            ftl.trim(l);
        }
    }
    (ftl, cfg)
}

#[test]
fn prioritized_victims_follow_gain_over_cost_and_defer_hot_blocks() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    // Blocks 0..3 with 6, 2, 4 valid pages: gain/cost picks the 2-valid block.
    let (mut ftl, mut cfg) = ftl_with_valid_counts(&[6, 2, 4], &[0, 0, 0]);
    cfg.gc.policy = "prioritized".parse().unwrap();
    ftl.set_now(10_000_000_000);
    let mut p = make_policy(&cfg);
    assert_eq!(
        p.select_victim(&ftl, PlaneId(0), &mut rng),
        Some(BlockId(1))
    );
    // λ > 0: the 2-valid block was closed a moment ago (its pages are still
    // being invalidated fast), the 4-valid one long ago: the hot one waits.
    let (mut ftl, mut cfg) = ftl_with_valid_counts(&[6, 2, 4], &[0, 9_999_000_000, 0]);
    cfg.gc.policy = "prioritized".parse().unwrap();
    cfg.gc.on_demand.lambda = 50.0;
    ftl.set_now(10_000_000_000);
    let mut p = make_policy(&cfg);
    assert_eq!(
        p.select_victim(&ftl, PlaneId(0), &mut rng),
        Some(BlockId(2))
    );
}

#[test]
fn randomized_greedy_takes_the_best_of_its_sample() {
    // Blocks with 6, 2, 4, 7 valid pages of 8.
    let valid = [6, 2, 4, 7];
    let (ftl, mut cfg) = ftl_with_valid_counts(&valid, &[0; 4]);
    cfg.gc.policy = "randomized-greedy".parse().unwrap();
    // A sample as large as the candidates is greedy.
    cfg.gc.rga_samples = 4;
    let mut p = make_policy(&cfg);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for _ in 0..20 {
        assert_eq!(
            p.select_victim(&ftl, PlaneId(0), &mut rng),
            Some(BlockId(1))
        );
    }
    // A sample of one is uniform: every candidate is taken some time, and
    // a sample of two never takes the fullest block.
    for (d, can_take_fullest) in [(1, true), (2, false)] {
        cfg.gc.rga_samples = d;
        let mut p = make_policy(&cfg);
        let mut taken = [0u32; 4];
        for _ in 0..400 {
            let b = p.select_victim(&ftl, PlaneId(0), &mut rng).unwrap();
            taken[b.index()] += 1;
        }
        assert!(taken[..3].iter().all(|&n| n > 0), "d = {d}: {taken:?}");
        assert_eq!(taken[3] > 0, can_take_fullest, "d = {d}: {taken:?}");
        if d == 2 {
            // The emptiest block is the most likely pick: 3 of 6 pairs.
            assert!(taken[1] > taken[0] && taken[1] > taken[2], "{taken:?}");
        }
    }
}

/// How often a policy picks each block in `draws` choices, the blocks
/// holding `valid` pages of 8 and closed in order (block 0 longest ago); a
/// block with 8 valid pages is never a candidate.
fn victims_of(policy: &str, valid: &[u16], draws: usize) -> Vec<u32> {
    let (ftl, mut cfg) = ftl_with_valid_counts(valid, &vec![0; valid.len()]);
    cfg.gc.policy = policy.parse().unwrap();
    let mut p = make_policy(&cfg);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    let mut taken = vec![0u32; valid.len()];
    for _ in 0..draws {
        let b = p
            .select_victim(&ftl, PlaneId(0), &mut rng)
            .expect("a victim");
        taken[b.index()] += 1;
    }
    taken
}

#[test]
fn each_gc_policy_picks_its_own_victim() {
    let valid = [6, 2, 4, 8];
    // Greedy: the fewest valid pages.
    assert_eq!(victims_of("greedy", &valid, 5), [0, 5, 0, 0]);
    // FIFO: the block closed longest ago, though it holds the most valid pages.
    assert_eq!(victims_of("fifo", &valid, 5), [5, 0, 0, 0]);
    // Cost-benefit, (1-u)/2u x age with age in host pages since the block
    // closed (25, 17, 9 for blocks 0..3 of 8 pages): on 6, 2, 4 the 2-valid
    // block (25.5 beats 4.2 and 4.5) ...
    assert_eq!(victims_of("cost-benefit", &valid, 5), [0, 5, 0, 0]);
    // ... but on 3, 7, 2 the older 3-valid block (20.8 against 13.5), where
    // greedy takes the 2-valid one.
    assert_eq!(victims_of("cost-benefit", &[3, 7, 2, 8], 5), [5, 0, 0, 0]);
    assert_eq!(victims_of("greedy", &[3, 7, 2, 8], 5), [0, 0, 5, 0]);
    // Random: every candidate some time, the all-valid block never.
    let taken = victims_of("random", &valid, 300);
    assert!(taken[..3].iter().all(|&n| n > 50), "{taken:?}");
    assert_eq!(taken[3], 0);
    // Every registered policy has its victim checked here or above.
    let checked = [
        "greedy",
        "fifo",
        "cost-benefit",
        "random",
        "prioritized",
        "randomized-greedy",
    ];
    for name in ssdlab_sim::ssd::gc::REGISTRY.iter().map(|e| e.name) {
        assert!(
            checked.contains(&name),
            "GC policy {name} has no victim test"
        );
    }
}
