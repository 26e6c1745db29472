use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// 2 units × 4 pages: LBs of 8 pages; 16 superblocks.
fn small() -> FastGeometry {
    FastGeometry {
        units: 2,
        pages_per_block: 4,
        blocks_per_unit: 16,
        logical_blocks: 10,
        rw_log_blocks: 4,
    }
}

fn write_all(f: &mut Fast, lpns: impl IntoIterator<Item = u32>) -> Vec<FlashOp> {
    let mut ops = Vec::new();
    for lpn in lpns {
        f.write(Lpn(lpn), &mut ops);
        f.check().unwrap();
    }
    ops
}

fn count_copies(ops: &[FlashOp]) -> usize {
    ops.iter()
        .filter(|op| matches!(op, FlashOp::Copy { .. }))
        .count()
}

#[test]
fn geometry_is_validated() {
    let mut g = small();
    g.logical_blocks = 11; // 11 + 4 + 2 > 16
    assert!(Fast::new(g, false).unwrap_err().contains("exceed"));
    g = small();
    g.rw_log_blocks = 0;
    assert!(Fast::new(g, false).unwrap_err().contains("rw_log_blocks"));
    g.rw_log_blocks = 4;
    assert!(Fast::new(g, false).is_ok());
}

#[test]
fn slots_stripe_over_the_units() {
    let mut f = Fast::new(small(), true).unwrap();
    let ops = write_all(&mut f, [0, 1, 2]);
    let at = |unit, page| FlashAddr {
        unit,
        block: 0,
        page,
    };
    let want: Vec<_> = [at(0, 0), at(1, 0), at(0, 1)].map(FlashOp::Program).into();
    assert_eq!(ops, want);
    assert_eq!(f.read_checked(Lpn(2)).unwrap(), Some(at(0, 1)));
    assert_eq!(f.read(Lpn(3)), None);
}

#[test]
fn a_sequential_lb_write_is_a_switch_merge() {
    let mut f = Fast::new(small(), true).unwrap();
    let ops = write_all(&mut f, 0..8);
    assert_eq!(ops.len(), 8);
    assert!(ops.iter().all(|op| matches!(op, FlashOp::Program(_))));
    // Rewriting it: eight programs, then the old data block's erase.
    let ops = write_all(&mut f, 0..8);
    assert_eq!(ops.len(), 8 + 2);
    assert!(matches!(ops[8], FlashOp::Erase { unit: 0, block: 0 }));
    let c = *f.counters();
    assert_eq!(
        (c.switch_merges, c.partial_merges, c.full_merges),
        (2, 0, 0)
    );
    assert_eq!((c.merge_copies, c.erases), (0, 1));
    assert_eq!(c.waf(), 1.0);
}

#[test]
fn a_partial_merge_copies_the_missing_offsets() {
    let mut f = Fast::new(small(), true).unwrap();
    f.fill(0);
    let data = f.read(Lpn(5)).unwrap().block;
    let ops = write_all(&mut f, [0, 1, 2]);
    assert_eq!(ops.len(), 3);
    // Offset 0 of LB 1 merges LB 0's SW log: offsets 3..8 come from the
    // old data block, which is then erased.
    let ops = write_all(&mut f, [8]);
    assert_eq!(count_copies(&ops), 5);
    let erases: Vec<_> = ops[5..7].to_vec();
    assert_eq!(
        erases,
        vec![
            FlashOp::Erase {
                unit: 0,
                block: data
            },
            FlashOp::Erase {
                unit: 1,
                block: data
            }
        ]
    );
    assert!(matches!(ops[7], FlashOp::Program(_)));
    let c = *f.counters();
    assert_eq!((c.partial_merges, c.merge_copies), (1, 5));
    for lpn in 0..8 {
        assert!(f.read_checked(Lpn(lpn)).unwrap().is_some());
    }
}

#[test]
fn overwrites_out_of_order_go_to_rw_logs_and_full_merge_the_victim() {
    let mut f = Fast::new(small(), true).unwrap();
    f.precondition(1.0);
    // Offset 1 of LB 0..: 8 pages per RW log, 4 logs; the 33rd write
    // needs a victim.
    let lpns: Vec<u32> = (0..33).map(|i| (i % 10) * 8 + 1 + i / 10 % 7).collect();
    let ops = write_all(&mut f, lpns);
    let c = *f.counters();
    assert_eq!(f.rw_logs_in_use(), 4);
    assert!(c.full_merges >= 1, "{c:?}");
    // Each merged LB copies all 8 of its pages.
    assert_eq!(c.merge_copies, 8 * c.full_merges);
    assert_eq!(count_copies(&ops) as u64, c.merge_copies);
}

#[test]
fn random_small_writes_amplify_far_above_one() {
    let geo = FastGeometry {
        units: 4,
        pages_per_block: 16,
        blocks_per_unit: 300,
        logical_blocks: 256,
        rw_log_blocks: 8,
    };
    let mut f = Fast::new(geo, false).unwrap();
    f.precondition(1.0);
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut ops = Vec::new();
    for _ in 0..20_000 {
        ops.clear();
        f.write(Lpn(rng.gen_range(0..f.logical_pages())), &mut ops);
    }
    f.check().unwrap();
    let c = *f.counters();
    assert!(c.waf() > 10.0, "WAF {} ({c:?})", c.waf());
    assert!(c.full_merges > c.partial_merges);
}

/// Sequential runs (from offset 0 or elsewhere), random writes and trims,
/// with every invariant and the integrity shadow checked after each step.
#[test]
fn random_mixes_keep_every_invariant() {
    for seed in 0..8 {
        let mut f = Fast::new(small(), true).unwrap();
        f.precondition(0.5);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let pages = f.logical_pages();
        let mut ops = Vec::new();
        for _ in 0..600 {
            let start = rng.gen_range(0..pages);
            let len = match rng.gen_range(0..4) {
                0 => 8 - start % 8,
                1 => rng.gen_range(1..=12),
                _ => 1,
            };
            let trim = rng.gen_bool(0.05);
            for lpn in (start..(start + len).min(pages)).map(Lpn) {
                if trim {
                    f.trim(lpn);
                } else {
                    f.write(lpn, &mut ops);
                }
                f.check().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            }
            let probe = Lpn(rng.gen_range(0..pages));
            f.read_checked(probe).unwrap();
        }
        assert!(f.counters().full_merges > 0, "seed {seed}");
        assert!(f.counters().partial_merges > 0, "seed {seed}");
    }
}

#[test]
fn a_stale_tag_is_reported() {
    let mut f = Fast::new(small(), true).unwrap();
    write_all(&mut f, [3]);
    let p = f.loc.get(Lpn(3)).unwrap();
    f.shadow.as_mut().unwrap().tag[p.index()] = 0;
    assert!(f.read_checked(Lpn(3)).unwrap_err().contains("lpn 3"));
    assert!(f.check().is_err());
}
