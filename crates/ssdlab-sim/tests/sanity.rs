//! The figures a storage engineer checks first, derived in docs/model.md.

use ssdlab_sim::engine::EventQueue;
use ssdlab_sim::experiment::closed_loop::ClosedLoop;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::ssd::device::{DevEvent, IoOp, SimSsd};
use ssdlab_sim::ssd::precondition::{precondition, Precondition};

fn full_device(preset: &str) -> SimSsd {
    let mut ssd = SimSsd::new(SsdConfig::load(preset).unwrap(), 3, false);
    precondition(&mut ssd, &Precondition::full(), 3).unwrap();
    ssd
}

#[test]
fn qd1_random_read_latency_is_the_sum_of_its_parts() {
    let mut ssd = full_device("mqsim-64g");
    let c = ssd.cfg.clone();
    let expected = c.controller.command_ns
        + c.timing.flash_command_ns
        + c.timing.read_ns
        + ssd.page_transfer_ns()
        + ssd.page_link_ns()
        + c.controller.completion_ns;
    assert_eq!(expected, 90_425, "derivation in docs/model.md");
    let span = ssd.layout.logical_pages;
    let mut q: EventQueue<DevEvent> = EventQueue::new();
    let r = ClosedLoop {
        op: IoOp::Read,
        qd: 1,
        requests: 2000,
        span,
        seed: 1,
    }
    .run(&mut ssd, &mut q);
    // At QD1 the run is back to back: its length is exactly N latencies.
    let total_ns = (r.figures.sim_time_ms * 1e6).round() as u64;
    assert_eq!(total_ns, 2000 * expected);
    assert!(r.histogram.equivalent(r.histogram.min(), expected));
    assert!(r.histogram.equivalent(r.histogram.max(), expected));
}

#[test]
fn saturated_random_reads_approach_the_channel_bound() {
    let mut ssd = full_device("mqsim-64g");
    // 8 channels, each moving one 4 KiB page per transfer time.
    let channel_bound = ssd.layout.channels as f64 * 1e9 / ssd.page_transfer_ns() as f64;
    // 64 dies, each busy command + tR + transfer per single-plane read.
    let t = &ssd.cfg.timing;
    let die_bound = ssd.layout.dies as f64 * 1e9
        / (t.flash_command_ns + t.read_ns + ssd.page_transfer_ns()) as f64;
    assert!(channel_bound < die_bound);
    let span = ssd.layout.logical_pages;
    let mut q: EventQueue<DevEvent> = EventQueue::new();
    let r = ClosedLoop {
        op: IoOp::Read,
        qd: 1024,
        requests: 200_000,
        span,
        seed: 1,
    }
    .run(&mut ssd, &mut q);
    let iops = r.figures.iops;
    assert!(
        iops <= channel_bound * 1.001,
        "{iops} above the channel bound {channel_bound}"
    );
    assert!(
        iops >= channel_bound * 0.9,
        "{iops} far below the channel bound {channel_bound}"
    );
}

#[test]
fn random_writes_on_a_full_device_run_gc_and_lose_bandwidth() {
    let mut ssd = full_device("seed004");
    let span = ssd.layout.logical_pages;
    let mut q: EventQueue<DevEvent> = EventQueue::new();
    let r = ClosedLoop {
        op: IoOp::Write,
        qd: 32,
        requests: 60_000,
        span,
        seed: 1,
    }
    .run(&mut ssd, &mut q);
    let f = &ssd.ftl.counters;
    assert!(f.gc_invocations > 100, "GC ran: {f:?}");
    let waf = (f.host_pages_written + f.gc_pages_moved) as f64 / f.host_pages_written as f64;
    assert!(waf > 2.0, "WAF {waf}");
    // Program-bound throughput without GC would be 16 planes / tPROG.
    let no_gc_bound = 16.0 * 1e9 / ssd.cfg.timing.program_ns as f64;
    assert!(
        r.figures.iops < no_gc_bound / 2.0,
        "{} vs {no_gc_bound}",
        r.figures.iops
    );
}

#[test]
fn same_seed_same_figures() {
    let run = || {
        let mut ssd = full_device("seed004");
        let span = ssd.layout.logical_pages;
        let mut q: EventQueue<DevEvent> = EventQueue::new();
        let w = ClosedLoop {
            op: IoOp::Write,
            qd: 16,
            requests: 20_000,
            span,
            seed: 9,
        }
        .run(&mut ssd, &mut q);
        let r = ClosedLoop {
            op: IoOp::Read,
            qd: 16,
            requests: 20_000,
            span,
            seed: 9,
        }
        .run(&mut ssd, &mut q);
        (
            w.figures,
            r.figures,
            ssd.ftl.counters.clone(),
            ssd.counters.clone(),
        )
    };
    assert_eq!(run(), run());
}

#[test]
fn every_gc_policy_collects() {
    for policy in ssdlab_sim::ssd::gc::policy_names() {
        let mut cfg = SsdConfig::load("seed004").unwrap();
        cfg.gc.policy = policy.into();
        cfg.geometry.blocks_per_plane = 64;
        let mut ssd = SimSsd::new(cfg, 5, true);
        precondition(&mut ssd, &Precondition::full(), 5).unwrap();
        let span = ssd.layout.logical_pages;
        let mut q: EventQueue<DevEvent> = EventQueue::new();
        ClosedLoop {
            op: IoOp::Write,
            qd: 8,
            requests: 30_000,
            span,
            seed: 2,
        }
        .run(&mut ssd, &mut q);
        assert!(ssd.ftl.counters.gc_invocations > 0, "{policy}");
        ssd.check_invariants().unwrap();
    }
}

/// Reads and writes at the same time on a full device, so GC runs; returns
/// the worst read latency and the GC invocations.
fn worst_read_during_gc(execution: ssdlab_sim::ssd::config::GcExecution) -> (u64, u64) {
    use ssdlab_sim::ssd::device::IoCommand;
    let mut cfg = SsdConfig::load("seed004").unwrap();
    cfg.gc.execution = execution;
    cfg.geometry.blocks_per_plane = 64;
    let mut ssd = SimSsd::new(cfg, 3, true);
    precondition(&mut ssd, &Precondition::full(), 3).unwrap();
    let span = ssd.layout.logical_pages;
    let mut q: EventQueue<DevEvent> = EventQueue::starting_at(ssd.now());
    let mut submitted = std::collections::HashMap::new();
    let mut next_id = 0u64;
    let mut submit = |ssd: &mut SimSsd,
                      q: &mut EventQueue<DevEvent>,
                      op: IoOp,
                      now: u64,
                      map: &mut std::collections::HashMap<u64, (IoOp, u64)>| {
        next_id += 1;
        let lpa = (next_id.wrapping_mul(2_654_435_761) % span as u64) as u32;
        map.insert(next_id, (op, now));
        ssd.submit(
            IoCommand {
                id: next_id,
                op,
                lpa,
                pages: 1,
                sq: 0,
            },
            now,
            q,
        )
        .unwrap();
    };
    let now = q.now();
    for i in 0..20 {
        let op = if i < 16 { IoOp::Write } else { IoOp::Read };
        submit(&mut ssd, &mut q, op, now, &mut submitted);
    }
    let (mut worst, mut done) = (0, 0);
    while let Some((now, ev)) = q.pop() {
        ssd.handle(ev, now, &mut q);
        for c in std::mem::take(&mut ssd.completions) {
            let (op, t0) = submitted.remove(&c.id).unwrap();
            if op == IoOp::Read {
                worst = worst.max(c.time - t0);
            }
            done += 1;
            if done < 40_000 {
                submit(&mut ssd, &mut q, op, now, &mut submitted);
            }
        }
        if done >= 40_000 && submitted.is_empty() {
            break;
        }
    }
    ssd.check_invariants().unwrap();
    (worst, ssd.ftl.counters.gc_invocations)
}

#[test]
fn plane_blocking_gc_holds_reads_block_blocking_lets_them_through() {
    use ssdlab_sim::ssd::config::GcExecution;
    let (pb, pb_gc) = worst_read_during_gc(GcExecution::PlaneBlocking);
    let (bb, bb_gc) = worst_read_during_gc(GcExecution::BlockBlocking);
    assert!(pb_gc > 50 && bb_gc > 50, "GC ran: {pb_gc} {bb_gc}");
    // A PBGC job holds the die for all its page copies and the erase
    // (milliseconds); under BBGC a read waits for at most the copy in progress.
    assert!(pb > 5 * bb, "worst read: PBGC {pb} ns, BBGC {bb} ns");
}
