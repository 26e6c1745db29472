//! `reproduce gc-ondemand --fit`: fits each synthetic profile's locality
//! and overwrite knobs (`hot_share`, `hot_access`, `overwrite_pct`) to the
//! paper's victim table (the share of GC victims at least 70 % and at least
//! 90 % invalid).
//!
//! The shares are measured under the conventional scheme ([`FIT_SCHEME`]:
//! eager 70 % trigger, greedy victims), the GC the paper's trace analysis
//! contrasts with deferral. For each profile a Nelder–Mead search (the
//! `argmin` crate) minimises the squared distance, in percentage points,
//! between the measured shares and the paper's, starting from the profile's
//! current knobs. Every evaluation is a study point in the study's cache, so
//! a killed fit resumes where it stopped and the study reuses the fitted
//! profile's conventional run.

use crate::cache::Cache;
use crate::gc_study::{self, GcRow, GcStudyOptions, PAPER_VICTIMS};
use argmin::core::{CostFunction, Error};
use rayon::prelude::*;
use ssdlab_sim::error::InputError;
use ssdlab_trace::Profile;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The scheme under which victim shares are measured and fitted.
pub const FIT_SCHEME: &str = "BBGC";

/// A fit stops once the squared distance (points²) is at most this: both
/// shares within about 2 points.
const TARGET_COST: f64 = 4.0;

/// Nelder–Mead iterations per profile at most (about 1.5 evaluations each).
const MAX_ITERS: u64 = 30;

/// One profile's fit: the knobs found and the shares they give.
#[derive(Debug, Clone)]
pub struct ProfileFit {
    pub profile: Profile,
    pub ge70: f64,
    pub ge90: f64,
    pub paper: (f64, f64),
    pub evaluations: usize,
}

impl ProfileFit {
    /// The larger of the two shares' distances from the paper's, in points.
    pub fn max_error(&self) -> f64 {
        (self.ge70 - self.paper.0)
            .abs()
            .max((self.ge90 - self.paper.1).abs())
    }
}

/// Fits every profile of `profiles` (in parallel on `opts.threads`), each
/// starting from its own knobs. `progress` is told each finished profile.
pub fn fit(
    profiles: &[Profile],
    opts: &GcStudyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<Vec<ProfileFit>, InputError> {
    let cache_dir = opts.out.join("cache");
    let cache = Cache::open(&cache_dir)
        .map_err(|e| InputError::invalid(cache_dir.display().to_string(), e.to_string()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.max(1))
        .build()
        .map_err(|e| InputError::invalid("--jobs", e.to_string()))?;
    let done = AtomicUsize::new(0);
    pool.install(|| {
        profiles
            .par_iter()
            .with_max_len(1)
            .map(|p| {
                let fit = fit_profile(p, opts, &cache)?;
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, profiles.len());
                Ok(fit)
            })
            .collect()
    })
}

/// The search for one profile.
fn fit_profile(
    base: &Profile,
    opts: &GcStudyOptions,
    cache: &Cache,
) -> Result<ProfileFit, InputError> {
    let paper = PAPER_VICTIMS
        .iter()
        .find(|(n, _, _)| *n == base.name)
        .map(|&(_, a, b)| (a, b))
        .ok_or_else(|| {
            InputError::invalid("--fit", format!("no paper figures for {}", base.name))
        })?;
    let evaluations = AtomicUsize::new(0);
    let problem = VictimShares {
        base: *base,
        paper,
        opts,
        cache,
        evaluations: &evaluations,
    };
    let best = crate::unit_search::minimise(problem.clone(), to_unit(base), MAX_ITERS, TARGET_COST)
        .map_err(|m| InputError::invalid(base.name, m))?;
    let profile = from_unit(base, &best);
    let row = problem.measure(&profile)?;
    Ok(ProfileFit {
        profile,
        ge70: row.victims_ge70_invalid_pct,
        ge90: row.victims_ge90_invalid_pct,
        paper,
        evaluations: evaluations.load(Ordering::Relaxed),
    })
}

/// The knobs as a point of the unit cube: hot share, hot access, overwrite
/// share.
fn to_unit(p: &Profile) -> Vec<f64> {
    vec![p.hot_share, p.hot_access, p.overwrite_pct / 100.0]
}

/// The profile at a point of the search, clamped to the knobs' ranges and
/// rounded (three decimals, overwrite to 0.1 %) so that the fitted values
/// print exactly as they were measured.
fn from_unit(base: &Profile, x: &[f64]) -> Profile {
    let round = |v: f64, step: f64| (v / step).round() * step;
    Profile {
        hot_share: round(x[0].clamp(0.01, 1.0), 0.001),
        hot_access: round(x[1].clamp(0.0, 1.0), 0.001),
        overwrite_pct: round((100.0 * x[2]).clamp(0.0, 100.0), 0.1),
        ..*base
    }
}

/// The fit's objective: a profile's victim shares against the paper's.
#[derive(Clone)]
struct VictimShares<'a> {
    base: Profile,
    paper: (f64, f64),
    opts: &'a GcStudyOptions,
    cache: &'a Cache,
    /// Runs computed (not taken from the cache).
    evaluations: &'a AtomicUsize,
}

impl VictimShares<'_> {
    /// The conventional scheme's run of `profile`, from the cache if there.
    fn measure(&self, profile: &Profile) -> Result<GcRow, InputError> {
        let config = gc_study::point_config(profile, FIT_SCHEME, self.opts);
        let dir = self.opts.out.join("traces");
        let (row, fresh) = self.cache.get_or_compute(&config, || {
            let trace = gc_study::write_profile_trace(profile, self.opts, &dir)?;
            let row = gc_study::run_one(profile.name, FIT_SCHEME, &trace, self.opts);
            // Only the fitted profile's trace is worth keeping.
            let _ = std::fs::remove_file(&trace);
            row
        })?;
        if fresh {
            self.evaluations.fetch_add(1, Ordering::Relaxed);
        }
        Ok(row)
    }
}

impl CostFunction for VictimShares<'_> {
    type Param = Vec<f64>;
    type Output = f64;

    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        let row = self.measure(&from_unit(&self.base, x))?;
        let d70 = row.victims_ge70_invalid_pct - self.paper.0;
        let d90 = row.victims_ge90_invalid_pct - self.paper.1;
        Ok(d70 * d70 + d90 * d90)
    }
}

/// The fit as markdown: knobs, shares and the paper's, per profile.
pub fn fit_markdown(fits: &[ProfileFit]) -> String {
    let mut out = String::from(
        "| profile | hot_share | hot_access | overwrite % | ≥70% invalid (paper) | ≥90% invalid (paper) | worst error | runs |\n|---|---|---|---|---|---|---|---|\n",
    );
    for f in fits {
        let p = &f.profile;
        out.push_str(&format!(
            "| {} | {:.3} | {:.3} | {:.1} | {:.1}% ({:.1}%) | {:.1}% ({:.1}%) | {:.1} points | {} |\n",
            p.name,
            p.hot_share,
            p.hot_access,
            p.overwrite_pct,
            f.ge70,
            f.paper.0,
            f.ge90,
            f.paper.1,
            f.max_error(),
            f.evaluations
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_points_map_to_valid_rounded_knobs() {
        let base = ssdlab_trace::PROFILES[0];
        let p = from_unit(&base, &[-0.3, 1.7, 0.123_456]);
        assert_eq!((p.hot_share, p.hot_access), (0.01, 1.0));
        assert!((p.overwrite_pct - 12.3).abs() < 1e-9, "{}", p.overwrite_pct);
        assert_eq!(p.read_pct, base.read_pct);
        let back = from_unit(&base, &to_unit(&p));
        assert_eq!(back, p);
    }
}
