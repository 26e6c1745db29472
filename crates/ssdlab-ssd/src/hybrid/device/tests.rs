use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::engine::EventQueue;

/// An MLC SATA SSD of about 2009: 8 channels of one die, 4096 blocks of
/// 128 × 4 KiB pages (16 GiB raw; a superblock is 4 MiB), tR 50 µs, tPROG
/// 900 µs, tBERS 3.5 ms, 40 MB/s channels, NCQ 32, SATA II (300 MB/s).
/// `blocks` and `spread` vary it for quick tests.
fn mlc_sata(blocks: u32, pages_per_block: u32, spread: f64) -> SsdConfig {
    let text = format!(
        r#"
name = "mlc-sata-test"
[geometry]
channels = 8
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = {blocks}
pages_per_block = {pages_per_block}
page_size = 4096
[timing]
read_ns = 50_000
program_ns = 900_000
erase_ns = 3_500_000
channel_mts = 40
channel_width_bits = 8
flash_command_ns = 200
spread = {spread}
[controller]
queue_depth = 32
submission_queues = 1
command_ns = 10_000
completion_ns = 5_000
link_mbs = 300
dram_ns = 1_000
[buffer]
capacity_bytes = 0
[ftl]
over_provisioning = 0.07
allocation = "static"
"#
    );
    SsdConfig::from_toml(&text, "mlc-sata-test.toml").unwrap()
}

/// A small drive: 8 units × 16 pages (LB = 128 pages, 512 KiB), 96
/// superblocks, 8 RW log blocks.
fn small(check: bool, seed: u64) -> HybridSsd {
    HybridSsd::new(&mlc_sata(96, 16, 0.0), 8, seed, check).unwrap()
}

fn cmd(id: u64, op: Dir, lpa: u32, pages: u32) -> IoCommand {
    IoCommand {
        id,
        op,
        lpa: Lpn(lpa),
        pages,
        bytes: pages * 4096,
        sq: 0,
        deadline: None,
    }
}

/// Runs `cmds` with at most `qd` outstanding, each submitted the moment a
/// slot frees; returns (id, submitted, completed) in completion order.
fn run_closed(dev: &mut HybridSsd, cmds: &[IoCommand], qd: usize) -> Vec<(u64, Ns, Ns)> {
    let mut q: EventQueue<HybridEvent> = EventQueue::starting_at(dev.now());
    let mut submitted = std::collections::HashMap::new();
    let mut next = 0;
    let mut out = Vec::new();
    let mut done = Vec::new();
    while out.len() < cmds.len() {
        while next < cmds.len() && submitted.len() - out.len() < qd {
            submitted.insert(cmds[next].id, q.now());
            dev.submit(cmds[next], q.now(), &mut q).unwrap();
            next += 1;
        }
        let (now, ev) = q.pop().expect("a pending completion");
        dev.handle(ev, now, &mut q);
        dev.take_completions(&mut done);
        out.extend(done.drain(..).map(|c| (c.id, submitted[&c.id], c.time)));
    }
    out
}

fn mean_latency(r: &[(u64, Ns, Ns)]) -> f64 {
    r.iter().map(|&(_, s, e)| (e - s) as f64).sum::<f64>() / r.len() as f64
}

#[test]
fn the_2009_mlc_drive_is_built_from_its_preset() {
    let dev = HybridSsd::new(&mlc_sata(4096, 128, 0.0), 64, 1, false).unwrap();
    let geo = *dev.fast().geometry();
    assert_eq!((geo.units, geo.blocks_per_unit), (8, 4096));
    assert_eq!(dev.fast().lb_pages() as u64 * 4096, 4 << 20);
    // 7% over-provisioning reserves more than 64 RW logs + 2.
    assert_eq!(geo.logical_blocks, (4096.0_f64 * 0.93).floor() as u32);
    let info = dev.info();
    assert_eq!(info.logical_pages, geo.logical_blocks * 1024);
    assert_eq!(info.page_size, 4096);
    // 4 KiB at 40 MB/s.
    assert_eq!(dev.page_transfer_ns(), 102_400);
    // With 1% over-provisioning the logs bound the logical space.
    let mut cfg = mlc_sata(4096, 128, 0.0);
    cfg.ftl.over_provisioning = 0.01;
    let dev = HybridSsd::new(&cfg, 64, 1, false).unwrap();
    assert_eq!(dev.fast().geometry().logical_blocks, 4096 - 66);
    assert!(HybridSsd::new(&cfg, 4095, 1, false).is_err());
}

#[test]
fn out_of_range_commands_are_refused() {
    let mut dev = small(false, 1);
    let mut q: EventQueue<HybridEvent> = EventQueue::new();
    let pages = dev.info().logical_pages;
    let err = dev
        .submit(cmd(7, Dir::Write, pages - 1, 2), 0, &mut q)
        .unwrap_err();
    assert_eq!(
        (err.id, err.lpa, err.pages, err.logical_pages),
        (7, Lpn(pages - 1), 2, pages)
    );
    assert!(dev.submit(cmd(8, Dir::Read, 0, 0), 0, &mut q).is_err());
    assert!(dev
        .submit(cmd(9, Dir::Read, pages - 1, 1), 0, &mut q)
        .is_ok());
}

#[test]
fn sequential_lb_writes_beat_random_small_writes_once_the_logs_fill() {
    let mut dev = small(false, 1);
    dev.precondition(1.0);
    let lb = dev.fast().lb_pages();
    let lbs = dev.fast().geometry().logical_blocks;
    let seq: Vec<_> = (0..16)
        .map(|i| cmd(i, Dir::Write, (i as u32 % lbs) * lb, lb))
        .collect();
    let seq_ns = mean_latency(&run_closed(&mut dev, &seq, 1)) / lb as f64;
    assert_eq!(dev.stats().fast.merge_copies, 0);
    // Random 4 KiB writes: enough to fill the 8 RW logs twice over.
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let pages = dev.info().logical_pages;
    let random: Vec<_> = (0..3 * 8 * lb as u64)
        .map(|i| cmd(100 + i, Dir::Write, rng.gen_range(0..pages), 1))
        .collect();
    let r = run_closed(&mut dev, &random, 1);
    let after_fill = &r[2 * 8 * lb as usize..];
    let random_ns = mean_latency(after_fill);
    assert!(dev.stats().fast.full_merges > 0);
    assert!(
        random_ns > 10.0 * seq_ns,
        "per page: random {random_ns} ns, sequential {seq_ns} ns"
    );
}

#[test]
fn a_read_after_a_write_returns_what_was_written() {
    let mut dev = small(true, 1);
    dev.precondition(0.5);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let pages = dev.info().logical_pages;
    let mut cmds = Vec::new();
    for i in 0..4000 {
        let lpa = rng.gen_range(0..pages - 8);
        let n = rng.gen_range(1..=8);
        cmds.push(cmd(2 * i, Dir::Write, lpa, n));
        cmds.push(cmd(2 * i + 1, Dir::Read, lpa, n));
    }
    let r = run_closed(&mut dev, &cmds, 8);
    assert_eq!(r.len(), cmds.len());
    dev.check_invariants().unwrap();
    let s = dev.stats();
    assert!(s.fast.full_merges > 0 && s.fast.partial_merges + s.fast.switch_merges > 0);
    assert_eq!(s.host_write_pages, s.host_read_pages);
}

#[test]
fn the_same_seed_gives_the_same_completion_times() {
    let run = |seed| {
        let mut dev = HybridSsd::new(&mlc_sata(96, 16, 0.1), 8, seed, false).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let pages = dev.info().logical_pages;
        let cmds: Vec<_> = (0..3000)
            .map(|i| {
                let op = if i % 3 == 0 { Dir::Read } else { Dir::Write };
                cmd(i, op, rng.gen_range(0..pages - 4), 1 + i as u32 % 4)
            })
            .collect();
        run_closed(&mut dev, &cmds, 32)
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

#[test]
fn commands_beyond_the_queue_depth_wait() {
    let mut dev = small(false, 1);
    let mut q: EventQueue<HybridEvent> = EventQueue::new();
    for i in 0..40 {
        dev.submit(cmd(i, Dir::Write, i as u32 * 200, 1), 0, &mut q)
            .unwrap();
    }
    assert_eq!(dev.outstanding(), 32);
    let mut done = Vec::new();
    while let Some((now, ev)) = q.pop() {
        dev.handle(ev, now, &mut q);
        dev.take_completions(&mut done);
    }
    assert_eq!(done.len(), 40);
    assert_eq!(dev.outstanding(), 0);
}

/// The figures of docs/model.md (print them with `--nocapture`): WAF,
/// throughput and latency of the 2009 drive with 64 RW log blocks, full
/// of data, under LB-aligned sequential writes and random 4 KiB writes
/// (over the whole drive and over its first 1 GiB), 32 commands queued.
#[test]
fn figures_of_the_2009_mlc_drive() {
    let lb = 1024u32;
    let sequential: Vec<_> = (0..512)
        .map(|i| cmd(i, Dir::Write, i as u32 * 128, 128))
        .collect();
    let seq = measure(&sequential, 0);
    println!("sequential 512 KiB, LB-aligned: {seq}");
    assert_eq!(seq.waf, 1.0);
    for span_lbs in [3809, 256] {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let random: Vec<_> = (0..64 * lb as u64 + 40_000)
            .map(|i| cmd(i, Dir::Write, rng.gen_range(0..span_lbs * lb), 1))
            .collect();
        let r = measure(&random, 64 * lb as usize);
        println!("random 4 KiB over {span_lbs} LBs: {r}");
        assert!(r.waf > 3.0 && r.mb_s < seq.mb_s / 5.0, "{r}");
    }
}

struct Figures {
    waf: f64,
    mb_s: f64,
    iops: f64,
    mean_ms: f64,
}

impl std::fmt::Display for Figures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "WAF {:.2}, {:.1} MB/s, {:.0} IOPS, mean latency {:.2} ms",
            self.waf, self.mb_s, self.iops, self.mean_ms
        )
    }
}

/// Runs `cmds` at QD 32 on the full 2009 drive; figures over the commands
/// after the first `warm_up`.
fn measure(cmds: &[IoCommand], warm_up: usize) -> Figures {
    let mut dev = HybridSsd::new(&mlc_sata(4096, 128, 0.0), 64, 1, false).unwrap();
    dev.precondition(1.0);
    let (warm, measured) = cmds.split_at(warm_up);
    let start = run_closed(&mut dev, warm, 32).last().map_or(0, |r| r.2);
    dev.reset_counters();
    let r = run_closed(&mut dev, measured, 32);
    let secs = (r.last().unwrap().2 - start) as f64 / 1e9;
    let bytes: u64 = measured.iter().map(|c| c.bytes as u64).sum();
    Figures {
        waf: dev.stats().waf,
        mb_s: bytes as f64 / 1e6 / secs,
        iops: measured.len() as f64 / secs,
        mean_ms: mean_latency(&r) / 1e6,
    }
}

/// docs/model.md's derivation: a lone 4 KiB write and read on idle units.
#[test]
fn a_lone_write_and_read_cost_their_parts() {
    let mut dev = small(false, 1);
    let w = run_closed(&mut dev, &[cmd(1, Dir::Write, 5, 1)], 1);
    // command 10 + link 13.654 + flash command 0.2 + channel 102.4
    // + tPROG 900 + completion 5 µs.
    assert_eq!(w[0].2 - w[0].1, 1_031_254);
    let r = run_closed(&mut dev, &[cmd(2, Dir::Read, 5, 1)], 1);
    // command 10 + flash command 0.2 + tR 50 + channel 102.4 + link 13.654
    // + completion 5 µs.
    assert_eq!(r[0].2 - r[0].1, 181_254);
}
