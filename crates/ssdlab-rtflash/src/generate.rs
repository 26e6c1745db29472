//! Random task sets for schedulability studies: per-task densities by
//! UUniFast-discard (Bini and Buttazzo, "Measuring the performance of
//! schedulability tests", Real-Time Systems 2005; Davis and Burns,
//! "Improved priority assignment for global fixed priority pre-emptive
//! scheduling in multiprocessor real-time systems", Real-Time Systems
//! 2011), periods log-uniform, `D = T`, footprints sized for a target
//! space utilisation. Seeded ChaCha8; the same parameters and seed give the
//! same set.
//!
//! A task's density `δ` is turned into pages per job on one chip, GC left
//! out: a job of `P` pages costs `P·(w·(tPROG + tXFER) + (1 − w)·(tR +
//! tXFER))` for write fraction `w`, so `P = max(1, round(δ·D / that))`,
//! `W = round(P·w)`, `R = P − W`. GC depends on the allocation, so it is
//! the analysis's to add, not the generator's.

use super::platform::Platform;
use super::taskset::{AnalysisOptions, RtTask, TaskSet};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Ns;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct GenParams {
    pub platform: Platform,
    pub tasks: usize,
    /// Target `Σ δ_i` (the total normalised demand, up to `chips`).
    pub total_density: f64,
    /// Share of a job's pages that are writes.
    pub write_fraction: f64,
    /// `Σ S_i` over the platform's usable pages.
    pub space_utilisation: f64,
    pub min_period_ns: Ns,
    pub max_period_ns: Ns,
    pub analysis: AnalysisOptions,
}

impl GenParams {
    /// The study's defaults: periods in [10, 1000] ms, half writes, 70 %
    /// full, the exact EDF-NP test.
    pub fn new(platform: Platform, tasks: usize, total_density: f64) -> Self {
        GenParams {
            platform,
            tasks,
            total_density,
            write_fraction: 0.5,
            space_utilisation: 0.7,
            min_period_ns: 10_000_000,
            max_period_ns: 1_000_000_000,
            analysis: AnalysisOptions::default(),
        }
    }
}

/// Most UUniFast draws before a target is given up as infeasible.
const MAX_DRAWS: usize = 10_000;

/// `n` values in (0, 1] summing to `total`, or None when discarding rejects
/// `MAX_DRAWS` draws in a row.
pub fn uunifast_discard(rng: &mut ChaCha8Rng, n: usize, total: f64) -> Option<Vec<f64>> {
    if n == 0 || total.is_nan() || total <= 0.0 || total > n as f64 {
        return None;
    }
    (0..MAX_DRAWS)
        .map(|_| uunifast(rng, n, total))
        .find(|v| v.iter().all(|&x| x <= 1.0))
}

/// UUniFast (Bini and Buttazzo): `n` non-negative values summing to `total`.
pub fn uunifast(rng: &mut ChaCha8Rng, n: usize, total: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(n);
    let mut sum = total;
    for i in 1..n {
        let next = sum * rng.gen::<f64>().powf(1.0 / (n - i) as f64);
        out.push(sum - next);
        sum = next;
    }
    out.push(sum);
    out
}

/// A random task set, or None when the densities cannot be drawn.
pub fn generate(params: &GenParams, seed: u64) -> Option<TaskSet> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let densities = uunifast_discard(&mut rng, params.tasks, params.total_density)?;
    let shares = uunifast(&mut rng, params.tasks, 1.0);
    let space = params.platform.usable_pages() as f64 * params.space_utilisation.clamp(0.0, 1.0);
    let tasks = densities
        .iter()
        .zip(&shares)
        .enumerate()
        .map(|(i, (&density, &share))| {
            let period_ns = log_uniform(&mut rng, params.min_period_ns, params.max_period_ns);
            let (read_pages, write_pages) =
                pages_for_density(&params.platform, density, period_ns, params.write_fraction);
            RtTask {
                name: format!("t{i}"),
                period_ns,
                deadline_ns: period_ns,
                read_pages,
                write_pages,
                // A job touches pages of its own data set, so the set
                // holds at least the pages of one job.
                footprint_pages: ((share * space) as u64)
                    .max(read_pages)
                    .max(write_pages)
                    .max(1),
                offset_ns: 0,
            }
        })
        .collect();
    Some(TaskSet {
        platform: params.platform.clone(),
        tasks,
        nrt: None,
        analysis: params.analysis,
    })
}

/// A period log-uniform in `[lo, hi]`, rounded to whole microseconds.
fn log_uniform(rng: &mut ChaCha8Rng, lo: Ns, hi: Ns) -> Ns {
    let (a, b) = ((lo.max(1) as f64).ln(), (hi.max(lo).max(1) as f64).ln());
    let ns = (a + rng.gen::<f64>() * (b - a)).exp();
    (((ns / 1_000.0).round() as u64) * 1_000).clamp(lo.max(1), hi.max(lo).max(1))
}

/// (read pages, write pages) of a job whose GC-free demand on one chip is
/// `density · deadline`.
pub fn pages_for_density(p: &Platform, density: f64, deadline_ns: Ns, w: f64) -> (u64, u64) {
    let w = w.clamp(0.0, 1.0);
    let per_page = w * p.page_write_ns() as f64 + (1.0 - w) * p.page_read_ns() as f64;
    let pages = ((density * deadline_ns as f64 / per_page.max(1.0)).round() as u64).max(1);
    let writes = ((pages as f64 * w).round() as u64).min(pages);
    (pages - writes, writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn densities_sum_to_the_target_and_stay_at_most_one() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for (n, u) in [(4, 0.4), (4, 3.6), (8, 2.0), (16, 8.0)] {
            let v = uunifast_discard(&mut rng, n, u).unwrap();
            assert_eq!(v.len(), n);
            assert!((v.iter().sum::<f64>() - u).abs() < 1e-9, "{v:?}");
            assert!(v.iter().all(|&x| (0.0..=1.0).contains(&x)), "{v:?}");
        }
        assert!(uunifast_discard(&mut rng, 4, 4.5).is_none());
    }

    #[test]
    fn same_seed_same_set() {
        let params = GenParams::new(Platform::default(), 6, 2.0);
        let a = generate(&params, 42).unwrap();
        assert_eq!(a, generate(&params, 42).unwrap());
        assert_ne!(a, generate(&params, 43).unwrap());
        for t in &a.tasks {
            assert!((10_000_000..=1_000_000_000).contains(&t.period_ns));
            assert_eq!(t.deadline_ns, t.period_ns);
            assert!(t.read_pages + t.write_pages > 0);
        }
        let space: u64 = a.tasks.iter().map(|t| t.footprint_pages).sum();
        let target = Platform::default().usable_pages() as f64 * 0.7;
        assert!((space as f64 - target).abs() < 10.0, "{space} vs {target}");
    }

    #[test]
    fn pages_invert_the_single_chip_demand() {
        let p = Platform::default();
        // 0.24 of 100 ms at 240 µs per written page: 100 pages.
        assert_eq!(pages_for_density(&p, 0.24, 100_000_000, 1.0), (0, 100));
        // Half writes: 137.5 µs per page, 0.55 of 10 ms → 40 pages.
        assert_eq!(pages_for_density(&p, 0.55, 10_000_000, 0.5), (20, 20));
        assert_eq!(pages_for_density(&p, 0.0, 10_000_000, 0.0), (1, 0));
    }
}
