//! The steady state of uniform random overwrites under greedy GC, built
//! directly (`--precondition random`) instead of by writing the drive's
//! capacity many times over.
//!
//! Under uniform random writes to `N` logical pages a page survives `t`
//! further writes with probability e^(−t/N), whichever block holds it (a
//! copy made by GC ages like a host write). In the mean-field limit of
//! large blocks, greedy GC then takes the oldest block, so at steady state
//! the used blocks have ages spread evenly from 0 to the victim's age `x·N`,
//! and a block of age `a·N` holds a binomial share e^(−a) of valid pages;
//! `x` is where all of them together hold exactly the `N` valid pages
//! (Desnoyers, "Analytic models of SSD write performance", ACM TOS 2014;
//! Van Houdt, "A mean field model for a class of garbage collection
//! algorithms in flash-based SSDs", SIGMETRICS 2013). MQSim likewise builds
//! its warm-up state from a steady-state distribution rather than by
//! running writes. The blocks are written through the FTL's own paths, in
//! age order, each with its valid pages at random positions and its stale
//! pages written empty, until every plane's free pool is at its GC
//! threshold (or one block above it, when the frontier's split leaves GC's
//! or the host's open block unopened), where the timed device's background
//! GC holds it. The state is greedy's; a preset with another victim policy
//! starts from it, and the ages its blocks carry count valid pages only.

use super::SimSsd;
use crate::alloc::Target;
use crate::error::InputError;
use crate::ftl::Stream;
use crate::ids::PlaneId;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Lpn;
use std::collections::BTreeMap;

/// How many times the block-level greedy relaxation recycles the blocks:
/// enough for the mean-field spread to settle into greedy's (measured on
/// mqsim-64g, whose 128-page blocks are furthest from the mean-field
/// limit: its WAF after `random` stays the same with three times as many).
const RELAX_TURNOVERS: f64 = 3.0;

/// What the construction wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Built {
    /// Valid pages placed (every occupied logical page once).
    pub valid_pages: u64,
    /// Stale pages written.
    pub stale_pages: u64,
}

/// Builds the steady state of uniform random overwrites of logical pages
/// `0..occupied` on an empty device.
pub fn build(ssd: &mut SimSsd, occupied: u32, rng: &mut ChaCha8Rng) -> Result<Built, InputError> {
    let mut built = Built::default();
    for (planes, mut lpns) in placement_classes(ssd, occupied) {
        lpns.shuffle(rng);
        let blocks = age_order(ssd, &planes);
        let pages = ssd.layout.pages_per_block as u64;
        let capacity = blocks.len() as u64 * pages;
        if lpns.len() as u64 >= capacity {
            return Err(InputError::invalid(
                "precondition",
                format!(
                    "'random' needs spare space: {} pages of data for {} pages of blocks above the GC threshold",
                    lpns.len(),
                    capacity
                ),
            ));
        }
        let x = victim_age(lpns.len() as u64, blocks.len(), pages as f64);
        let valid = valid_counts(blocks.len(), pages as u32, x, lpns.len() as u64, rng);
        // One turnover: every block collected once, each freeing its
        // stale share for host writes; at most one drive write.
        let turnover = capacity as f64 * (1.0 - (-x).exp());
        let writes = (RELAX_TURNOVERS * turnover).min(lpns.len() as f64) as u64;
        let relaxed = relax_greedy(&blocks, valid, pages as u32, writes, rng);
        write_blocks(ssd, &relaxed, &lpns, rng);
        built.valid_pages += lpns.len() as u64;
        built.stale_pages += relaxed
            .iter()
            .map(|b| (b.written - b.valid) as u64)
            .sum::<u64>();
    }
    Ok(built)
}

/// The logical pages grouped by where they may be written: all planes
/// (dynamic allocation), a die group's planes (chip clusters) or one plane
/// (static striping). Each class is built on its own planes.
fn placement_classes(ssd: &SimSsd, occupied: u32) -> Vec<(Vec<PlaneId>, Vec<u32>)> {
    let mut classes: BTreeMap<Target, Vec<u32>> = BTreeMap::new();
    for lpa in 0..occupied {
        let target = ssd.allocation_target(Lpn(lpa));
        classes.entry(target).or_default().push(lpa);
    }
    classes
        .into_iter()
        .map(|(target, lpns)| {
            let planes = ssd
                .layout
                .all_planes()
                .filter(|&p| ssd.target_allows(target, p))
                .collect();
            (planes, lpns)
        })
        .collect()
}

/// The blocks to write, oldest first: every plane's free blocks above its
/// GC threshold but one, taken round-robin over the planes so that each
/// age is spread over all of them. The one left is GC's write frontier,
/// which a drive in steady state has open beside the host's; without it
/// the first GC job on every plane would open one out of the pool and
/// push the plane below its threshold.
fn age_order(ssd: &SimSsd, planes: &[PlaneId]) -> Vec<PlaneId> {
    let soft = ssd.soft_gc_blocks() + 1;
    let mut left: Vec<u32> = planes
        .iter()
        .map(|&p| ssd.ftl.free_blocks(p).saturating_sub(soft))
        .collect();
    let mut order = Vec::new();
    while left.iter().any(|&n| n > 0) {
        for (i, n) in left.iter_mut().enumerate() {
            if *n > 0 {
                *n -= 1;
                order.push(planes[i]);
            }
        }
    }
    order
}

/// Block `k` of `blocks` (0 the oldest) is `x · (blocks − k − ½) / blocks`
/// old, in units of the data's size.
fn age(k: usize, blocks: usize, x: f64) -> f64 {
    x * (blocks as f64 - k as f64 - 0.5) / blocks as f64
}

/// The victim's age `x` at which `blocks` blocks of `pages` pages, aged
/// evenly from 0 to `x`, hold `valid` pages in expectation (bisection; the
/// expectation falls as `x` grows).
fn victim_age(valid: u64, blocks: usize, pages: f64) -> f64 {
    let expected = |x: f64| -> f64 {
        (0..blocks)
            .map(|k| pages * (-age(k, blocks, x)).exp())
            .sum()
    };
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    // A drive holding little data has old victims: widen until the
    // expectation falls below the data.
    while expected(hi) > valid as f64 && hi < 1e6 {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = (lo + hi) / 2.0;
        if expected(mid) > valid as f64 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// Each block's valid pages: binomial at its age's survival share, then
/// nudged one page at a time at random blocks until they add up to
/// `valid` exactly.
fn valid_counts(blocks: usize, pages: u32, x: f64, valid: u64, rng: &mut ChaCha8Rng) -> Vec<u32> {
    let mut counts: Vec<u32> = (0..blocks)
        .map(|k| {
            let share = (-age(k, blocks, x)).exp();
            (0..pages).filter(|_| rng.gen_bool(share)).count() as u32
        })
        .collect();
    let mut total: u64 = counts.iter().map(|&c| c as u64).sum();
    while total != valid {
        let k = rng.gen_range(0..blocks);
        if total < valid && counts[k] < pages {
            counts[k] += 1;
            total += 1;
        } else if total > valid && counts[k] > 0 {
            counts[k] -= 1;
            total -= 1;
        }
    }
    counts
}

/// A block to write: its plane, the pages written and how many of them
/// are valid.
#[derive(Debug, Clone, Copy, PartialEq)]
struct BlockFill {
    plane: PlaneId,
    written: u32,
    valid: u32,
    /// The plane's write frontier: its pages go to GC's open block and
    /// the host's, split at random.
    frontier: bool,
}

/// Greedy GC run on valid-page counts alone, from the mean-field state:
/// each host write invalidates a uniformly random valid page (as a random
/// write of a logical page does) and adds one to its plane's open block;
/// a plane whose open block is full takes its closed block with the fewest
/// valid pages, copies them into it and keeps writing there. For uniform
/// writes where a page lives does not matter, so this is the FTL's greedy
/// GC at a cost per block, not per page. Returns the blocks oldest first,
/// each plane's open block last among its own and written only in part, as
/// a drive's write frontier is.
fn relax_greedy(
    planes_of: &[PlaneId],
    counts: Vec<u32>,
    pages: u32,
    writes: u64,
    rng: &mut ChaCha8Rng,
) -> Vec<BlockFill> {
    let n = counts.len();
    let mut weights = Fenwick::new(&counts);
    let mut closed_seq: Vec<u64> = (0..n as u64).collect();
    // Each plane's blocks (in plane order), and its open block (the
    // newest of them).
    let mut by_plane: BTreeMap<PlaneId, Vec<usize>> = BTreeMap::new();
    for (k, &p) in planes_of.iter().enumerate() {
        by_plane.entry(p).or_default().push(k);
    }
    let members: Vec<Vec<usize>> = by_plane.into_values().collect();
    let mut open: Vec<(usize, u32)> = members
        .iter()
        .map(|m| (*m.last().expect("a block"), pages))
        .collect();
    let mut seq = n as u64;
    // Each write takes one valid page and adds one: the total stays.
    let total = weights.total();
    for w in 0..writes {
        let plane = (w % members.len() as u64) as usize;
        if open[plane].1 == pages {
            closed_seq[open[plane].0] = seq;
            seq += 1;
            let victim = *members[plane]
                .iter()
                .min_by_key(|&&k| (weights.get(k), closed_seq[k]))
                .expect("a block");
            open[plane] = (victim, weights.get(victim) as u32);
        }
        // A plane whose every block holds only valid pages takes no write.
        if open[plane].1 >= pages || total == 0 {
            continue;
        }
        weights.add(weights.find(rng.gen_range(0..total)), -1);
        weights.add(open[plane].0, 1);
        open[plane].1 += 1;
    }
    let mut written = vec![pages; n];
    let mut frontier = vec![false; n];
    for &(k, w) in &open {
        closed_seq[k] = seq;
        seq += 1;
        written[k] = w;
        frontier[k] = true;
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&k| closed_seq[k]);
    order
        .iter()
        .map(|&k| BlockFill {
            plane: planes_of[k],
            written: written[k],
            valid: weights.get(k) as u32,
            frontier: frontier[k],
        })
        .collect()
}

/// A Fenwick tree of block weights: a weighted random pick and an update
/// in O(log n).
struct Fenwick {
    tree: Vec<i64>,
    values: Vec<i64>,
}

impl Fenwick {
    fn new(values: &[u32]) -> Fenwick {
        let mut f = Fenwick {
            tree: vec![0; values.len() + 1],
            values: vec![0; values.len()],
        };
        for (i, &v) in values.iter().enumerate() {
            f.add(i, v as i64);
        }
        f
    }

    fn add(&mut self, i: usize, delta: i64) {
        self.values[i] += delta;
        let mut j = i + 1;
        while j < self.tree.len() {
            self.tree[j] += delta;
            j += j & j.wrapping_neg();
        }
    }

    fn get(&self, i: usize) -> i64 {
        self.values[i]
    }

    fn total(&self) -> i64 {
        let mut sum = 0;
        let mut j = self.tree.len() - 1;
        while j > 0 {
            sum += self.tree[j];
            j &= j - 1;
        }
        sum
    }

    /// The index whose cumulative range holds `r` (0 ≤ r < total).
    fn find(&self, mut r: i64) -> usize {
        let mut pos = 0;
        let mut step = (self.tree.len()).next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next < self.tree.len() && self.tree[next] <= r {
                pos = next;
                r -= self.tree[next];
            }
            step >>= 1;
        }
        pos
    }
}

/// Writes the blocks in age order: each gets its valid count of the
/// shuffled logical pages at random positions among its written ones, and
/// stale pages in the rest. A plane's frontier is split at a random point
/// between GC's open block and the host's, as both are part-written in a
/// drive that has been collecting: the first GC job then copies into a
/// block already open, and the pool stays at its threshold.
fn write_blocks(ssd: &mut SimSsd, blocks: &[BlockFill], lpns: &[u32], rng: &mut ChaCha8Rng) {
    let mut next = lpns.iter();
    for b in blocks {
        let mut valid_left = b.valid;
        let to_gc = if b.frontier {
            rng.gen_range(0..=b.written)
        } else {
            0
        };
        for slot in 0..b.written {
            let stream = if slot < to_gc {
                Stream::Gc
            } else {
                Stream::HostNative
            };
            let ppa = ssd
                .ftl
                .alloc_page(b.plane, stream)
                .expect("blocks above the GC threshold are free");
            // Sequential sampling: each position is valid with the share
            // of valid pages still to place among the positions left.
            if rng.gen_range(0..b.written - slot) < valid_left {
                valid_left -= 1;
                let lpa = Lpn(*next.next().expect("as many slots as pages"));
                let version = ssd.ftl.next_version(lpa);
                ssd.ftl.commit(lpa, ppa, version);
            } else {
                ssd.ftl.commit_stale(ppa);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_victim_age_solves_the_valid_page_balance() {
        // 93 % of the space valid: (1 − e^−x)/x = 0.93 gives x ≈ 0.146.
        let x = victim_age(93_000, 1_000, 100.0);
        assert!((x - 0.1466).abs() < 0.002, "{x}");
        let expected: f64 = (0..1_000).map(|k| 100.0 * (-age(k, 1_000, x)).exp()).sum();
        assert!((expected - 93_000.0).abs() < 1.0);
    }

    #[test]
    fn the_fenwick_pick_follows_the_weights() {
        let f = Fenwick::new(&[0, 3, 0, 2]);
        assert_eq!(f.total(), 5);
        let picks: Vec<usize> = (0..5).map(|r| f.find(r)).collect();
        assert_eq!(picks, [1, 1, 1, 3, 3]);
    }

    #[test]
    fn valid_counts_add_up_exactly_and_fall_with_age() {
        use rand::SeedableRng;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let x = victim_age(80_000, 1_000, 100.0);
        let c = valid_counts(1_000, 100, x, 80_000, &mut rng);
        assert_eq!(c.iter().map(|&v| v as u64).sum::<u64>(), 80_000);
        let oldest: u32 = c[..100].iter().sum();
        let newest: u32 = c[900..].iter().sum();
        assert!(oldest < newest, "{oldest} {newest}");
    }

    /// Pages written per host page over `drive_writes` × the data of
    /// uniform random writes after preconditioning with `mode`.
    fn waf_after(preset: &str, mode: &str, drive_writes: f64) -> f64 {
        use crate::config::SsdConfig;
        use crate::device::precondition::{precondition, FunctionalWriter, PreconditionMode};
        use rand::SeedableRng;
        let mut cfg = SsdConfig::builtin(preset).unwrap();
        cfg.geometry.channels = 2;
        cfg.geometry.chips_per_channel = 1;
        cfg.geometry.dies_per_chip = 1;
        cfg.geometry.blocks_per_plane = 256;
        cfg.slc_cache = None;
        cfg.validate().unwrap();
        let mut ssd = SimSsd::new(cfg, 1, true);
        let recipe = mode.parse::<PreconditionMode>().unwrap().recipe(1.0);
        assert_eq!(precondition(&mut ssd, &recipe, 7).unwrap().mode, mode);
        ssd.ftl.check(&|_| false).unwrap();
        let occupied = ssd.layout.logical_pages;
        assert_eq!(ssd.ftl.mapped_pages(), occupied as u64);
        // Every plane at its GC threshold (one more while GC's frontier
        // is still to open).
        let soft = ssd.soft_gc_blocks();
        for plane in ssd.layout.all_planes() {
            let free = ssd.ftl.free_blocks(plane);
            assert!(
                free == soft || free == soft + 1,
                "{plane:?}: {free} free, threshold {soft}"
            );
        }
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut w = FunctionalWriter::default();
        for _ in 0..(occupied as f64 * drive_writes) as u64 {
            w.write(&mut ssd, Lpn(rng.gen_range(0..occupied)), &mut rng);
        }
        ssd.ftl.check(&|_| false).unwrap();
        let c = ssd.ftl.counters();
        (c.host_pages_written + c.gc_pages_moved) as f64 / c.host_pages_written as f64
    }

    #[test]
    fn random_gives_the_write_amplification_of_writing_the_data_many_times() {
        // 128-page blocks: far from the mean-field limit the construction
        // starts from; dynamic (seed004) and static (mqsim-64g) placement.
        for preset in ["seed004", "mqsim-64g"] {
            let aged = waf_after(preset, "aged:4", 0.3);
            let random = waf_after(preset, "random", 0.3);
            assert!(
                (random / aged - 1.0).abs() < 0.05,
                "{preset}: WAF after random {random:.2}, after aged:4 {aged:.2}"
            );
        }
    }
}
