//! Holding a candidate at the profile's headline load: the few runs that
//! tell whether the study's rule would give the candidate's knobs the same
//! headline load as the profile's (docs/gc-study.md, "--fit").

use super::FIT_SCHEME;
use crate::gc_study::{self, Cell, GcRow, GcStudyOptions, LoadPlan, Sweep, BOUNDED_SHARE, SCHEMES};
use ssdlab_sim::error::InputError;
use ssdlab_trace::Profile;

/// A candidate's run at the fit's load, and how far it is from keeping the
/// headline load (0: it keeps it; see [`HeldLoad::measure`]).
pub(super) struct Measured {
    pub row: GcRow,
    pub off_headline: f64,
}

/// One cell of the profile being fitted.
pub(super) fn cell(scheme: &'static str, load_mbs: f64) -> Cell {
    Cell {
        profile: 0,
        scheme,
        load_mbs,
    }
}

/// The headline load the study's rule gives the profile being fitted, and
/// the loads that keep it there: the rule gives a candidate the same load
/// while every scheme keeps up at `bounded_mbs` (the slowest scheme's
/// bounded limit) and one does not at `unbounded_mbs` (the load above it
/// where that scheme failed). Holding a candidate there costs a few runs
/// where its own climb would cost twenty.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldLoad {
    pub load_mbs: f64,
    pub bounded_mbs: f64,
    /// None: the slowest scheme kept up to the top of the ladder.
    pub unbounded_mbs: Option<f64>,
}

/// `profile`'s climb of `plan` alone, as the study runs it.
fn climb(profile: &Profile, opts: &GcStudyOptions, plan: &LoadPlan) -> Result<Sweep, InputError> {
    let one = std::slice::from_ref(profile);
    Ok(gc_study::run(opts, one, plan, &|_, _| {})?.0)
}

/// The error of a profile no load of its climb kept bounded.
fn never_bounded(profile: &Profile) -> InputError {
    InputError::invalid(profile.name, "no load kept every scheme's queue bounded")
}

/// The held load of `profile`: its climb of `plan` and the rule.
pub(super) fn held_load(
    profile: &Profile,
    opts: &GcStudyOptions,
    plan: &LoadPlan,
) -> Result<HeldLoad, InputError> {
    let sweep = climb(profile, opts, plan)?;
    let none = || never_bounded(profile);
    let load_mbs = sweep.headline_mbs[0].ok_or_else(none)?;
    let limits = &sweep.limits[0];
    let bounded_mbs = limits
        .iter()
        .map(|l| l.bounded_mbs.ok_or_else(none))
        .collect::<Result<Vec<f64>, _>>()?
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    // Of the schemes slowest alike, the one that failed lowest above.
    let unbounded_mbs = limits
        .iter()
        .filter(|l| l.bounded_mbs == Some(bounded_mbs))
        .filter_map(|l| l.unbounded_mbs)
        .reduce(f64::min);
    Ok(HeldLoad {
        load_mbs,
        bounded_mbs,
        unbounded_mbs,
    })
}

impl HeldLoad {
    /// The conventional scheme at the headline load, and how far the
    /// candidate is from keeping it: 0 when it does; 1 plus the largest
    /// shortfall of a scheme's served rate from bounded at `bounded_mbs`
    /// (a slope back for the search); 1 when every scheme keeps up at
    /// `unbounded_mbs` too (its headline would be higher).
    pub(super) fn measure(
        &self,
        run: impl Fn(&[Cell]) -> Result<Vec<GcRow>, InputError>,
    ) -> Result<Measured, InputError> {
        let mut cells = vec![cell(FIT_SCHEME, self.load_mbs)];
        cells.extend(SCHEMES.map(|s| cell(s, self.bounded_mbs)));
        let mut rows = run(&cells)?;
        let shortfall = rows[1..]
            .iter()
            .map(|r| (1.0 - r.served_mbs / (BOUNDED_SHARE * r.offered_mbs)).max(0.0))
            .fold(0.0, f64::max);
        let off_headline = if !rows[1..].iter().all(|r| r.bounded) {
            1.0 + shortfall
        } else if self.every_scheme_keeps_up_above(&run)? {
            1.0
        } else {
            0.0
        };
        Ok(Measured {
            row: rows.swap_remove(0),
            off_headline,
        })
    }

    /// Whether every scheme keeps up at `unbounded_mbs` too (false when
    /// the ladder had no failure above); stops at the first that does not.
    fn every_scheme_keeps_up_above(
        &self,
        run: impl Fn(&[Cell]) -> Result<Vec<GcRow>, InputError>,
    ) -> Result<bool, InputError> {
        let Some(above) = self.unbounded_mbs else {
            return Ok(false);
        };
        for s in SCHEMES {
            if !run(&[cell(s, above)])?[0].bounded {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// `profile`'s headline run under the conventional scheme, as the study
/// finds it: its climb of `plan` and the rule.
pub(super) fn headline_row(
    profile: &Profile,
    opts: &GcStudyOptions,
    plan: &LoadPlan,
) -> Result<GcRow, InputError> {
    climb(profile, opts, plan)?
        .headline_rows()
        .into_iter()
        .find(|r| r.scheme == FIT_SCHEME)
        .cloned()
        .ok_or_else(|| never_bounded(profile))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gc_fit::{to_unit, VictimShares, OFF_HEADLINE_COST};
    use argmin::core::CostFunction;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Mutex;

    #[test]
    fn a_held_candidate_keeps_the_headline_its_own_climb_would_give() {
        let opts = crate::gc_study::tests::small_study("fit-held");
        let plan = LoadPlan::geometric(50.0, 2.0, 8, 1);
        let base = *ssdlab_trace::profile("rocksdb").unwrap();
        let held = held_load(&base, &opts, &plan).unwrap();
        let (sweep, _) = gc_study::run(&opts, &[base], &plan, &|_, _| {}).unwrap();
        assert_eq!(Some(held.load_mbs), sweep.headline_mbs[0]);
        assert_eq!(held.load_mbs, gc_study::HEADLINE_SHARE * held.bounded_mbs);
        assert!(held.unbounded_mbs.unwrap() > held.bounded_mbs, "{held:?}");
        let (evaluations, best_seen) = (AtomicUsize::new(0), Mutex::new(None));
        let problem = VictimShares {
            base,
            paper: (68.5, 68.4),
            opts: &opts,
            held: Some(held),
            threads: 2,
            evaluations: &evaluations,
            best_seen: &best_seen,
        };
        // The profile itself keeps its headline.
        let own = problem.measure(&base).unwrap();
        assert_eq!(own.off_headline, 0.0);
        assert_eq!(own.row, headline_row(&base, &opts, &plan).unwrap());
        let d = (
            own.row.victims_ge70_invalid_pct - 68.5,
            own.row.victims_ge90_invalid_pct - 68.4,
        );
        let cost = problem.cost(&to_unit(&base)).unwrap();
        assert!(
            (cost - (d.0 * d.0 + d.1 * d.1)).abs() < 1e-9,
            "{cost} {d:?}"
        );
        // Held to a load far below its own, every scheme keeps up above it
        // too: the rule would give this profile a higher headline.
        let low = HeldLoad {
            load_mbs: 40.0,
            bounded_mbs: 50.0,
            unbounded_mbs: Some(70.7),
        };
        let lowered = VictimShares {
            held: Some(low),
            ..problem.clone()
        };
        assert_eq!(lowered.measure(&base).unwrap().off_headline, 1.0);
        // Held to a load far above its limit, schemes fall behind there.
        let high = HeldLoad {
            load_mbs: 4_000.0,
            bounded_mbs: 5_000.0,
            unbounded_mbs: None,
        };
        let raised = VictimShares {
            held: Some(high),
            ..problem.clone()
        };
        let off = raised.measure(&base).unwrap().off_headline;
        assert!(off > 1.0 && off <= 2.0, "{off}");
        assert!(raised.cost(&to_unit(&base)).unwrap() > OFF_HEADLINE_COST);
        let _ = std::fs::remove_dir_all(&opts.out);
    }
}
