//! The I/O generator: determinism, sequential and random offsets, the random
//! map, mixes, block sizes, distributions and errors.

use std::collections::HashMap;

use proptest::prelude::*;
use ssdlab_fio::{
    parse_str, GeneratorError, IoDir, IoGenerator, IoUnit, JobSpec, RandomDistribution, RwMode,
    RwSequencer,
};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * KIB;

fn job(text: &str) -> JobSpec {
    let full = format!("[j]\n{text}\n");
    parse_str(&full, "t.fio", &|_| None).unwrap().jobs.remove(0)
}

fn take(g: &mut IoGenerator, n: usize) -> Vec<IoUnit> {
    (0..n).map(|_| g.next_io()).collect()
}

fn gen(text: &str, region: (u64, u64), seed: u64) -> IoGenerator {
    IoGenerator::new(&job(text), region, seed).unwrap()
}

#[test]
fn same_seed_same_sequence_different_seed_different() {
    for text in [
        "rw=randrw\nbssplit=4k/50:16k/50",
        "rw=randread\nrandom_distribution=zipf:1.2",
        "rw=randwrite\nnorandommap",
        "rw=randread\nrandom_distribution=normal:10",
        "rw=randread\nrandom_distribution=pareto:0.3",
    ] {
        let a = take(&mut gen(text, (0, 64 * MIB), 7), 500);
        let b = take(&mut gen(text, (0, 64 * MIB), 7), 500);
        let c = take(&mut gen(text, (0, 64 * MIB), 8), 500);
        assert_eq!(a, b, "{text}");
        assert_ne!(a, c, "{text}");
    }
}

#[test]
fn randseed_changes_the_sequence() {
    let a = take(&mut gen("rw=randread", (0, 64 * MIB), 7), 100);
    let b = take(&mut gen("rw=randread\nrandseed=99", (0, 64 * MIB), 7), 100);
    let c = take(&mut gen("rw=randread\nrandseed=99", (0, 64 * MIB), 7), 100);
    assert_ne!(a, b);
    assert_eq!(b, c);
}

#[test]
fn mix_percentage_does_not_move_offsets() {
    // Directions and offsets come from separate streams.
    let a = take(&mut gen("rw=randrw\nrwmixread=30", (0, 64 * MIB), 3), 200);
    let b = take(&mut gen("rw=randrw\nrwmixread=80", (0, 64 * MIB), 3), 200);
    let oa: Vec<u64> = a.iter().map(|u| u.offset).collect();
    let ob: Vec<u64> = b.iter().map(|u| u.offset).collect();
    assert_eq!(oa, ob);
    assert_ne!(a, b);
}

#[test]
fn sequential_is_contiguous_and_wraps() {
    let start = MIB;
    let mut g = gen("rw=write\nbs=4k", (start, 40 * KIB), 1);
    assert_eq!(g.bytes_per_loop(), 40 * KIB);
    let ios = take(&mut g, 25);
    for (i, io) in ios.iter().enumerate() {
        assert_eq!(io.dir, IoDir::Write);
        assert_eq!(io.len, 4096);
        assert_eq!(io.offset, start + (i as u64 % 10) * 4 * KIB, "io {i}");
    }
}

#[test]
fn sequential_wraps_when_block_does_not_fit() {
    // 8k I/Os in a 20k region: 0, 8k, then 16k+8k > 20k → back to 0.
    let mut g = gen("rw=read\nbs=8k", (0, 20 * KIB), 1);
    // The region is rounded down to the block size: 16k.
    assert_eq!(g.bytes_per_loop(), 16 * KIB);
    let offs: Vec<u64> = take(&mut g, 5).iter().map(|u| u.offset).collect();
    assert_eq!(offs, vec![0, 8 * KIB, 0, 8 * KIB, 0]);
    // Read 4k / write 12k: the region stays 20k (align 4k).
    let s = job("rw=rw\nbs=4k,12k\nrwmixread=0");
    let mut g = IoGenerator::new(&s, (0, 20 * KIB), 1).unwrap();
    assert_eq!(g.bytes_per_loop(), 20 * KIB);
    let w: Vec<u64> = take(&mut g, 3).iter().map(|u| u.offset).collect();
    assert_eq!(w, vec![0, 0, 0], "12k at 12k would pass 20k");
}

#[test]
fn rw_seq_add_skips_bytes() {
    let mut g = gen("rw=write:8k\nbs=4k", (0, MIB), 1);
    let offs: Vec<u64> = take(&mut g, 5).iter().map(|u| u.offset).collect();
    assert_eq!(offs, vec![0, 12 * KIB, 24 * KIB, 36 * KIB, 48 * KIB]);
    // At the end the position wraps modulo the region (fio's `pos - size`).
    let mut g = gen("rw=write:4k\nbs=4k", (0, 20 * KIB), 1);
    let offs: Vec<u64> = take(&mut g, 6).iter().map(|u| u.offset).collect();
    assert_eq!(offs, vec![0, 8 * KIB, 16 * KIB, 4 * KIB, 12 * KIB, 0]);
}

#[test]
fn a_negative_skip_goes_backwards() {
    // fio's examples/backwards-read.fio: each read ends 8k before the next
    // begins + 4k, so 4k blocks are read from the end of the region down.
    let mut g = gen("rw=read:-8k\nbs=4k", (0, 16 * KIB), 1);
    let offs: Vec<u64> = take(&mut g, 5).iter().map(|u| u.offset).collect();
    assert_eq!(offs, vec![0, 12 * KIB, 8 * KIB, 4 * KIB, 0]);
}

#[test]
fn mixed_sequential_keeps_a_position_per_direction() {
    let mut g = gen("rw=rw\nbs=4k", (0, MIB), 5);
    let mut next = [0u64; 2];
    let ios = take(&mut g, 200);
    for io in &ios {
        let d = if io.dir == IoDir::Read { 0 } else { 1 };
        assert_eq!(io.offset, next[d]);
        next[d] += 4 * KIB;
    }
    assert!(next[0] > 0 && next[1] > 0);
}

#[test]
fn sequencer_gives_runs_of_n() {
    let n = 8;
    let mut g = gen("rw=randread:8\nbs=4k", (0, 256 * MIB), 11);
    let ios = take(&mut g, 400);
    let mut jumps = 0;
    for (i, w) in ios.windows(2).enumerate() {
        let contiguous = w[1].offset == w[0].offset + 4 * KIB;
        if (i + 1) % n == 0 {
            // A new random start (contiguity by chance is ~1/65536).
            if !contiguous {
                jumps += 1;
            }
        } else {
            assert!(contiguous, "io {} not sequential", i + 1);
        }
    }
    assert!(jumps >= 45, "only {jumps} random starts");
}

#[test]
fn sequencer_identical_repeats_offsets() {
    let mut s = job("rw=randread:4\nbs=4k");
    assert_eq!(s.rw_sequencer_n, 4);
    s.rw_sequencer = RwSequencer::Identical;
    let mut g = IoGenerator::new(&s, (0, 256 * MIB), 2).unwrap();
    let ios = take(&mut g, 40);
    for chunk in ios.chunks(4) {
        assert!(chunk.iter().all(|u| u.offset == chunk[0].offset));
    }
    assert_ne!(ios[0].offset, ios[4].offset);
}

#[test]
fn random_map_hits_every_block_once_per_pass() {
    for (n, bs) in [(1000u64, 4 * KIB), (1, 4 * KIB), (3, 512), (4097, 8 * KIB)] {
        let start = 7 * MIB;
        let mut g = gen(&format!("rw=randwrite\nbs={bs}"), (start, n * bs), 42);
        assert_eq!(g.slots(), n);
        for pass in 0..3 {
            let mut seen = vec![0u32; n as usize];
            let ios = take(&mut g, n as usize);
            for io in &ios {
                assert!(io.offset >= start && io.offset + u64::from(io.len) <= start + n * bs);
                assert_eq!((io.offset - start) % bs, 0);
                seen[((io.offset - start) / bs) as usize] += 1;
            }
            assert!(seen.iter().all(|&c| c == 1), "n={n} pass {pass}");
            if n > 16 && pass == 0 {
                // Not the identity order.
                let sorted = ios.windows(2).filter(|w| w[1].offset > w[0].offset).count();
                assert!(sorted < ios.len() * 3 / 4);
            }
        }
    }
}

#[test]
fn random_map_passes_differ() {
    let mut g = gen("rw=randread\nbs=4k", (0, 1000 * 4 * KIB), 9);
    let a = take(&mut g, 1000);
    let b = take(&mut g, 1000);
    assert_ne!(a, b);
}

#[test]
fn norandommap_repeats_blocks() {
    let mut g = gen("rw=randread\nbs=4k\nnorandommap", (0, 1000 * 4 * KIB), 9);
    let ios = take(&mut g, 1000);
    let distinct: std::collections::HashSet<u64> = ios.iter().map(|u| u.offset).collect();
    // Uniform draws: about 1000·(1 − 1/e) ≈ 632 distinct blocks.
    assert!(
        distinct.len() > 550 && distinct.len() < 720,
        "{}",
        distinct.len()
    );
}

#[test]
fn rwmixread_70_percent() {
    for text in ["rw=randrw\nrwmixread=70", "rw=rw\nrwmixwrite=30"] {
        let mut g = gen(text, (0, 1 << 30), 5);
        let ios = take(&mut g, 20_000);
        let reads = ios.iter().filter(|u| u.dir == IoDir::Read).count();
        let frac = reads as f64 / 20_000.0;
        assert!((frac - 0.70).abs() < 0.02, "{text}: {frac}");
        assert!(ios.iter().all(|u| u.dir != IoDir::Trim));
    }
    let mut g = gen("rw=randrw\nrwmixread=0", (0, 1 << 30), 5);
    assert!(take(&mut g, 1000).iter().all(|u| u.dir == IoDir::Write));
}

#[test]
fn fixed_directions() {
    for (mode, dir) in [
        ("read", IoDir::Read),
        ("randread", IoDir::Read),
        ("write", IoDir::Write),
        ("randwrite", IoDir::Write),
        ("trim", IoDir::Trim),
        ("randtrim", IoDir::Trim),
    ] {
        let mut g = gen(&format!("rw={mode}\nbs=4k,8k,16k"), (0, 64 * MIB), 1);
        let ios = take(&mut g, 50);
        let want = match dir {
            IoDir::Read => 4096,
            IoDir::Write => 8192,
            IoDir::Trim => 16384,
        };
        assert!(ios.iter().all(|u| u.dir == dir && u.len == want), "{mode}");
    }
}

#[test]
fn bssplit_proportions() {
    let mut g = gen("rw=write\nbssplit=4k/10:64k/50:32k/40", (0, 1 << 30), 3);
    let ios = take(&mut g, 20_000);
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for io in &ios {
        *counts.entry(io.len).or_default() += 1;
    }
    for (bs, pct) in [(4096u32, 0.10), (65536, 0.50), (32768, 0.40)] {
        let frac = counts[&bs] as f64 / 20_000.0;
        assert!((frac - pct).abs() < 0.02, "{bs}: {frac}");
    }
    assert_eq!(counts.len(), 3);
    // A zero weight is never drawn; weights below 100 are relative.
    let mut g = gen("rw=write\nbssplit=4k/0:8k/10:16k/30", (0, 1 << 30), 3);
    let ios = take(&mut g, 20_000);
    assert!(ios.iter().all(|u| u.len != 4096));
    let f8 = ios.iter().filter(|u| u.len == 8192).count() as f64 / 20_000.0;
    assert!((f8 - 0.25).abs() < 0.02, "{f8}");
    // Random offsets align to the smallest size (fio's blockalign default).
    let mut g = gen("rw=randread\nbssplit=4k/50:64k/50", (0, 1 << 30), 3);
    let ios = take(&mut g, 5000);
    assert!(ios.iter().all(|u| u.offset % 4096 == 0));
    assert!(ios.iter().any(|u| u.offset % 65536 != 0 && u.len == 65536));
}

#[test]
fn bssplit_blank_percentages_and_per_direction() {
    let mut g = gen("rw=randrw\nbssplit=4k/50:1k/:32k/,8k/100", (0, 1 << 30), 3);
    let ios = take(&mut g, 20_000);
    let reads: Vec<&IoUnit> = ios.iter().filter(|u| u.dir == IoDir::Read).collect();
    let frac = |bs: u32| reads.iter().filter(|u| u.len == bs).count() as f64 / reads.len() as f64;
    assert!((frac(4096) - 0.5).abs() < 0.02);
    assert!((frac(1024) - 0.25).abs() < 0.02);
    assert!((frac(32768) - 0.25).abs() < 0.02);
    assert!(ios
        .iter()
        .filter(|u| u.dir == IoDir::Write)
        .all(|u| u.len == 8192));
    assert!(ios.iter().all(|u| u.offset % 1024 == 0));
}

#[test]
fn bsrange_multiples_of_minimum() {
    let mut g = gen("rw=randread\nbsrange=4k-16k", (0, 1 << 30), 3);
    let ios = take(&mut g, 8000);
    let mut counts: HashMap<u32, usize> = HashMap::new();
    for io in &ios {
        assert_eq!(io.len % 4096, 0);
        assert!((4096..=16384).contains(&io.len));
        *counts.entry(io.len).or_default() += 1;
    }
    assert_eq!(counts.len(), 4);
    for c in counts.values() {
        let f = *c as f64 / 8000.0;
        assert!((f - 0.25).abs() < 0.03, "{f}");
    }
}

#[test]
fn random_io_is_clipped_at_region_end() {
    // Reads 4k, writes 64k, region 10 × 4k: writes at the last slots clip.
    let region = (MIB, 40 * KIB);
    let mut g = gen("rw=randrw\nbs=4k,64k", region, 1);
    let ios = take(&mut g, 2000);
    for io in &ios {
        assert!(io.offset + u64::from(io.len) <= region.0 + region.1);
        assert_eq!(io.len % 512, 0);
    }
    assert!(ios.iter().any(|u| u.dir == IoDir::Write && u.len < 65536));
}

fn slot_counts(ios: &[IoUnit], bs: u64, n: usize) -> Vec<u64> {
    let mut c = vec![0u64; n];
    for io in ios {
        c[(io.offset / bs) as usize] += 1;
    }
    c
}

#[test]
fn zipf_concentrates_and_scatters() {
    let n = 10_000usize;
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=zipf:1.2",
        (0, n as u64 * 4 * KIB),
        21,
    );
    let ios = take(&mut g, 100_000);
    let mut c = slot_counts(&ios, 4096, n);
    // The hot blocks are spread over the region, not packed at its start.
    let mut hot: Vec<usize> = (0..n).collect();
    hot.sort_by_key(|&i| std::cmp::Reverse(c[i]));
    let top100: std::collections::HashSet<usize> = hot[..100].iter().copied().collect();
    let adjacent = top100
        .iter()
        .filter(|&&i| top100.contains(&(i + 1)))
        .count();
    assert!(adjacent < 10, "{adjacent} hot blocks are neighbours");
    let in_first_tenth = hot[..100].iter().filter(|&&i| i < n / 10).count();
    assert!(in_first_tenth < 40, "{in_first_tenth}");
    c.sort_unstable_by(|a, b| b.cmp(a));
    let top: u64 = c[..n / 10].iter().sum();
    let frac = top as f64 / 100_000.0;
    // Theory: H(1000, 1.2) / H(10000, 1.2) ≈ 0.90.
    assert!(frac > 0.8, "top 10% got {frac}");
    // Rank 1 has probability 1/H(10000, 1.2) ≈ 0.21.
    let first = c[0] as f64 / 100_000.0;
    assert!((first - 0.21).abs() < 0.03, "{first}");
    // Uniform for comparison: the top 10% gets nowhere near half.
    let mut g = gen(
        "rw=randread\nbs=4k\nnorandommap",
        (0, n as u64 * 4 * KIB),
        21,
    );
    let mut u = slot_counts(&take(&mut g, 100_000), 4096, n);
    u.sort_unstable_by(|a, b| b.cmp(a));
    assert!((u[..n / 10].iter().sum::<u64>() as f64) < 0.2 * 100_000.0);
}

#[test]
fn zipf_center_places_the_hottest_block() {
    let n = 1000u64;
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=zipf:1.5:0.25",
        (0, n * 4 * KIB),
        4,
    );
    let c = slot_counts(&take(&mut g, 20_000), 4096, n as usize);
    let hottest = (0..n as usize).max_by_key(|&i| c[i]).unwrap();
    assert_eq!(hottest, 250);
}

#[test]
fn zipf_huge_region_is_fast_and_in_range() {
    // 4 TiB / 4 KiB = 2^30 blocks: no table, O(1) per draw.
    let len = 4u64 << 40;
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=zipf:0.9",
        (0, len),
        1,
    );
    for io in take(&mut g, 50_000) {
        assert!(io.offset + u64::from(io.len) <= len && io.offset % 4096 == 0);
    }
}

#[test]
fn pareto_concentrates() {
    // h = 0.2: 80% of accesses to 20% of the blocks.
    let n = 10_000usize;
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=pareto:0.2",
        (0, n as u64 * 4 * KIB),
        6,
    );
    let mut c = slot_counts(&take(&mut g, 100_000), 4096, n);
    c.sort_unstable_by(|a, b| b.cmp(a));
    let top: u64 = c[..n / 5].iter().sum();
    let frac = top as f64 / 100_000.0;
    assert!((frac - 0.80).abs() < 0.03, "{frac}");
}

#[test]
fn normal_concentrates_around_centre() {
    let n = 10_000u64;
    let region = (MIB, n * 4 * KIB);
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=normal:10",
        region,
        8,
    );
    let ios = take(&mut g, 50_000);
    let rel = |u: &IoUnit| (u.offset - region.0) as f64 / region.1 as f64;
    // Within ±1σ (±10% of the region) of the middle: ≈ 68%.
    let near = ios.iter().filter(|u| (rel(u) - 0.5).abs() < 0.1).count() as f64 / 50_000.0;
    assert!((near - 0.683).abs() < 0.02, "{near}");
    let mean = ios.iter().map(rel).sum::<f64>() / 50_000.0;
    assert!((mean - 0.5).abs() < 0.01, "{mean}");
    // With a center.
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=normal:5:0.25",
        region,
        8,
    );
    let ios = take(&mut g, 20_000);
    let mean = ios.iter().map(rel).sum::<f64>() / 20_000.0;
    assert!((mean - 0.25).abs() < 0.01, "{mean}");
    assert!(ios
        .iter()
        .all(|u| u.offset + u64::from(u.len) <= region.0 + region.1));
}

#[test]
fn zoned_proportions() {
    let len = 1000 * 4 * KIB;
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=zoned:60/10:30/20:8/30:2/40",
        (0, len),
        12,
    );
    let ios = take(&mut g, 50_000);
    let bounds = [0.0, 0.1, 0.3, 0.6, 1.0];
    let want = [0.60, 0.30, 0.08, 0.02];
    for z in 0..4 {
        let f = ios
            .iter()
            .filter(|u| {
                let r = u.offset as f64 / len as f64;
                r >= bounds[z] && r < bounds[z + 1]
            })
            .count() as f64
            / 50_000.0;
        assert!((f - want[z]).abs() < 0.01, "zone {z}: {f}");
    }
    // Uniform inside a zone: both halves of the first zone get ~30%.
    let first_half = ios.iter().filter(|u| u.offset < len / 20).count() as f64 / 50_000.0;
    assert!((first_half - 0.30).abs() < 0.015, "{first_half}");
}

#[test]
fn zoned_abs_proportions() {
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=zoned_abs=60/1M:40/3M",
        (0, 8 * MIB),
        12,
    );
    let ios = take(&mut g, 20_000);
    let first = ios.iter().filter(|u| u.offset < MIB).count() as f64 / 20_000.0;
    assert!((first - 0.6).abs() < 0.02, "{first}");
    // Nothing past the last zone (4M).
    assert!(ios.iter().all(|u| u.offset + u64::from(u.len) <= 4 * MIB));
    // A zone entirely past the region end loses its share.
    let mut g = gen(
        "rw=randread\nbs=4k\nrandom_distribution=zoned_abs=50/1M:50/100M",
        (0, MIB),
        12,
    );
    assert!(take(&mut g, 1000).iter().all(|u| u.offset < MIB));
}

#[test]
fn errors() {
    let s = job("rw=randread\nbs=4k");
    assert_eq!(
        IoGenerator::new(&s, (0, 0), 1).unwrap_err(),
        GeneratorError::EmptyRegion
    );
    assert_eq!(
        IoGenerator::new(&s, (0, 2048), 1).unwrap_err(),
        GeneratorError::RegionTooSmall {
            region_len: 2048,
            block_size: 4096
        }
    );
    assert!(matches!(
        IoGenerator::new(&s, (100, MIB), 1),
        Err(GeneratorError::BadRegion { .. })
    ));
    assert!(matches!(
        IoGenerator::new(&s, (u64::MAX - 4095, 8192), 1),
        Err(GeneratorError::BadRegion { .. })
    ));
    let mut z = s.clone();
    z.random_distribution = RandomDistribution::Zoned(vec![(60, 50), (30, 50)]);
    assert_eq!(
        IoGenerator::new(&z, (0, MIB), 1).unwrap_err(),
        GeneratorError::ZonedPercentages {
            access: 90,
            range: Some(100)
        }
    );
    z.random_distribution = RandomDistribution::Zoned(vec![(60, 50), (40, 40)]);
    assert!(IoGenerator::new(&z, (0, MIB), 1).is_err());
    z.random_distribution = RandomDistribution::ZonedAbs(vec![(60, MIB), (50, MIB)]);
    assert_eq!(
        IoGenerator::new(&z, (0, MIB), 1).unwrap_err(),
        GeneratorError::ZonedPercentages {
            access: 110,
            range: None
        }
    );
    let mut b = s.clone();
    b.bs.read = 1000;
    assert_eq!(
        IoGenerator::new(&b, (0, MIB), 1).unwrap_err(),
        GeneratorError::BadBlockSize(1000)
    );
    // An inactive direction's block size is not checked.
    b.bs.read = 4096;
    b.bs.write = 1000;
    assert!(IoGenerator::new(&b, (0, MIB), 1).is_ok());
    let mut d = s.clone();
    d.random_distribution = RandomDistribution::Pareto(1.5);
    assert!(matches!(
        IoGenerator::new(&d, (0, MIB), 1),
        Err(GeneratorError::BadDistribution(_))
    ));
    let e = IoGenerator::new(&s, (0, 2048), 1).unwrap_err();
    assert!(e.to_string().contains("smaller than its block size"), "{e}");
}

#[test]
fn works_with_job_region() {
    let jf = parse_str(
        "[j]\nrw=randwrite\nbs=4k\noffset=10%\nsize=20%\nnumjobs=2\noffset_increment=30%\n",
        "t.fio",
        &|_| None,
    )
    .unwrap();
    let total = 1u64 << 30;
    for (i, s) in jf.jobs.iter().enumerate() {
        let (start, len) = s.region(total);
        let mut g = IoGenerator::new(s, (start, len), 100 + i as u64).unwrap();
        assert_eq!(g.bytes_per_loop(), len);
        for io in take(&mut g, 2000) {
            assert!(io.offset >= start && io.offset + u64::from(io.len) <= start + len);
        }
    }
}

fn arb_spec() -> impl Strategy<Value = JobSpec> {
    let mode = prop_oneof![
        Just(RwMode::Read),
        Just(RwMode::Write),
        Just(RwMode::RandRead),
        Just(RwMode::RandWrite),
        Just(RwMode::ReadWrite),
        Just(RwMode::RandRW),
        Just(RwMode::Trim),
        Just(RwMode::RandTrim),
    ];
    let dist = prop_oneof![
        Just(RandomDistribution::Random),
        (0.05f64..3.0).prop_map(|t| RandomDistribution::Zipf(if (t - 1.0).abs() < 1e-3 {
            1.1
        } else {
            t
        })),
        (0.01f64..0.99).prop_map(RandomDistribution::Pareto),
        (0.1f64..100.0).prop_map(RandomDistribution::Normal),
        Just(RandomDistribution::Zoned(vec![(50, 10), (0, 40), (50, 50)])),
        Just(RandomDistribution::ZonedAbs(vec![
            (70, 5000),
            (30, 1 << 40)
        ])),
    ];
    let bs = 1u64..300;
    (
        mode,
        dist,
        (bs.clone(), bs.clone(), bs),
        prop::collection::vec((1u64..300, 0u32..60), 0..4),
        prop::option::of((1u64..40, 0u64..40)),
        (1u64..10, 0u64..20, any::<bool>(), any::<bool>()),
        (
            0u8..=100,
            prop::option::of(0.0f64..=1.0),
            prop::option::of(any::<u64>()),
        ),
    )
        .prop_map(
            |(rw, d, (r, w, t), split, range, (n, add, ident, norm), (mix, center, rs))| {
                let mut s = JobSpec::with_defaults("p", "p.fio", 1);
                s.rw = rw;
                s.random_distribution = d;
                s.bs.read = r * 512;
                s.bs.write = w * 512;
                s.bs.trim = t * 512;
                s.bssplit.write = split.into_iter().map(|(b, p)| (b * 512, p)).collect();
                s.bsrange.read = range.map(|(lo, extra)| (lo * 512, (lo + extra) * 512));
                s.rw_sequencer_n = n;
                s.rw_seq_add = add as i64 * 512;
                if ident {
                    s.rw_sequencer = RwSequencer::Identical;
                }
                s.norandommap = norm;
                s.rwmixread = mix;
                s.random_center = center;
                s.randseed = rs;
                s
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn never_panics_and_stays_inside(
        spec in arb_spec(),
        start in 0u64..(1 << 20),
        len in prop_oneof![0u64..(1 << 16), 0u64..(1 << 40)],
        seed in any::<u64>(),
    ) {
        let start = start * 512;
        match IoGenerator::new(&spec, (start, len), seed) {
            Err(e) => prop_assert!(!e.to_string().is_empty()),
            Ok(mut g) => {
                let (s, l) = g.region();
                prop_assert_eq!(s, start);
                prop_assert!(l <= len && l > 0 && l == g.bytes_per_loop());
                for _ in 0..300 {
                    let io = g.next_io();
                    prop_assert!(io.len > 0 && io.len % 512 == 0);
                    prop_assert!(io.offset % 512 == 0);
                    prop_assert!(io.offset >= start);
                    prop_assert!(io.offset + u64::from(io.len) <= start + l);
                    match spec.rw {
                        RwMode::Read | RwMode::RandRead => prop_assert_eq!(io.dir, IoDir::Read),
                        RwMode::Write | RwMode::RandWrite => prop_assert_eq!(io.dir, IoDir::Write),
                        RwMode::Trim | RwMode::RandTrim => prop_assert_eq!(io.dir, IoDir::Trim),
                        _ => prop_assert!(io.dir != IoDir::Trim),
                    }
                }
            }
        }
    }
}
