//! The load sweep: each profile's replay from a light load upwards until
//! every scheme's queue has stopped being bounded (or the ladder ends), the
//! limits refined by bisection, then the headline runs at the load the rule
//! gives (docs/gc-study.md, "The load").

use super::{run_cells, write_traces, Cell, GcRow, GcStudyOptions, SCHEMES};
use ssdlab_sim::error::InputError;
use ssdlab_trace::Profile;

/// Which loads a study runs.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadPlan {
    /// The ladder climbed, MB/s, increasing.
    pub ladder: Vec<f64>,
    /// Bisection steps (geometric midpoints) that narrow each scheme's limit
    /// between its last bounded and first unbounded load.
    pub refine: u32,
    /// Where the headline runs go.
    pub headline: Headline,
}

/// The load of a profile's headline runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Headline {
    /// The rule: this share of the profile's bounded limit under its
    /// slowest scheme.
    ShareOfSlowest(f64),
    /// One load for every profile (`--offered-mbs`).
    Load(f64),
}

/// The headline share of the rule (docs/gc-study.md): close enough to the
/// slowest scheme's limit that GC competes with queued host I/O, far enough
/// below it that every scheme's queue stays bounded with room for the
/// limit's measurement error (one ladder step).
pub const HEADLINE_SHARE: f64 = 0.8;

impl LoadPlan {
    /// A ladder of `steps` loads from `from` MB/s, each `ratio` × the last.
    pub fn geometric(from: f64, ratio: f64, steps: usize, refine: u32) -> LoadPlan {
        LoadPlan {
            ladder: (0..steps).map(|i| from * ratio.powi(i as i32)).collect(),
            refine,
            headline: Headline::ShareOfSlowest(HEADLINE_SHARE),
        }
    }

    /// `--quick`: 20 to 1280 MB/s in steps of ×2, one bisection step.
    pub fn quick() -> LoadPlan {
        LoadPlan::geometric(20.0, 2.0, 7, 1)
    }

    /// `--paper`: 10 to 1280 MB/s in steps of ×1.41, three bisection steps.
    pub fn paper() -> LoadPlan {
        LoadPlan::geometric(10.0, 2f64.sqrt(), 15, 3)
    }

    /// One load only (`--offered-mbs`): no sweep, the headline there.
    pub fn fixed(load_mbs: f64) -> LoadPlan {
        LoadPlan {
            ladder: vec![load_mbs],
            refine: 0,
            headline: Headline::Load(load_mbs),
        }
    }
}

/// Where a scheme's queue stops being bounded on one profile: between the
/// highest load it kept up with and the lowest it did not (None: no such
/// load was run).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SchemeLimit {
    pub bounded_mbs: Option<f64>,
    pub unbounded_mbs: Option<f64>,
}

/// A finished study: every run, each scheme's limit per profile, and the
/// headline load per profile (None when no load kept every scheme bounded).
#[derive(Debug, Clone)]
pub struct Sweep {
    pub profiles: Vec<Profile>,
    pub rows: Vec<GcRow>,
    /// `limits[profile][scheme]`, in `SCHEMES` order.
    pub limits: Vec<[SchemeLimit; 3]>,
    pub headline_mbs: Vec<Option<f64>>,
    pub plan: LoadPlan,
}

impl Sweep {
    /// The headline rows: each profile's three schemes at its headline load.
    pub fn headline_rows(&self) -> Vec<&GcRow> {
        let mut out = Vec::new();
        for (p, load) in self.profiles.iter().zip(&self.headline_mbs) {
            let Some(load) = load else { continue };
            for s in SCHEMES {
                let row = self
                    .rows
                    .iter()
                    .find(|r| r.profile == p.name && r.scheme == s && same_load(r.load_mbs, *load));
                out.extend(row);
            }
        }
        out
    }
}

fn same_load(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// The rule: `share` × the highest load every scheme kept up with (the
/// slowest scheme's bounded limit); None when there is none.
pub fn headline_load(limits: &[SchemeLimit; 3], share: f64) -> Option<f64> {
    let slowest = limits
        .iter()
        .map(|l| l.bounded_mbs)
        .collect::<Option<Vec<f64>>>()?
        .into_iter()
        .fold(f64::INFINITY, f64::min);
    Some(share * slowest)
}

/// Runs the study on `profiles`: the ladder, the bisections, the headline.
pub fn run(
    opts: &GcStudyOptions,
    profiles: &[Profile],
    plan: &LoadPlan,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Sweep, usize), InputError> {
    if opts.remote.is_none() {
        // Written once, before the runs that read them.
        write_traces(opts, profiles)?;
    }
    let mut state = Climb {
        rows: Vec::new(),
        limits: vec![[SchemeLimit::default(); 3]; profiles.len()],
        computed: 0,
    };
    let run = |cells: Vec<Cell>, state: &mut Climb| -> Result<(), InputError> {
        let (rows, computed) = run_cells(opts, profiles, &cells, progress)?;
        state.computed += computed;
        for (cell, row) in cells.iter().zip(rows) {
            state.record(cell, &row);
            state.rows.push(row);
        }
        Ok(())
    };
    for &load in &plan.ladder {
        // The ladder's load, for each scheme still climbing.
        let cells = state.next_cells(|l| l.unbounded_mbs.is_none().then_some(load));
        if cells.is_empty() {
            break;
        }
        run(cells, &mut state)?;
    }
    for _ in 0..plan.refine {
        // A geometric midpoint, where both ends of a limit are known.
        let cells = state.next_cells(|l| Some((l.bounded_mbs? * l.unbounded_mbs?).sqrt()));
        run(cells, &mut state)?;
    }
    // A headline run that did not keep up lowers its scheme's limit, and
    // with it the headline: run again until the headline stands (each
    // round lowers it, so a few rounds suffice).
    let mut headline_mbs = Vec::new();
    for _ in 0..MAX_HEADLINE_ROUNDS {
        headline_mbs = state
            .limits
            .iter()
            .map(|l| match plan.headline {
                Headline::ShareOfSlowest(share) => headline_load(l, share),
                Headline::Load(load) => Some(load),
            })
            .collect();
        let cells: Vec<Cell> = headline_mbs
            .iter()
            .enumerate()
            .filter_map(|(p, load)| Some((p, (*load)?)))
            .flat_map(|(profile, load_mbs)| {
                SCHEMES.map(|scheme| Cell {
                    profile,
                    scheme,
                    load_mbs,
                })
            })
            .filter(|c| !state.has(profiles, c))
            .collect();
        if cells.is_empty() {
            break;
        }
        run(cells, &mut state)?;
    }
    let sweep = Sweep {
        profiles: profiles.to_vec(),
        rows: state.rows,
        limits: state.limits,
        headline_mbs,
        plan: plan.clone(),
    };
    Ok((sweep, state.computed))
}

/// Headline rounds at most (each lowers a headline that did not keep up).
const MAX_HEADLINE_ROUNDS: usize = 4;

/// The sweep so far.
struct Climb {
    rows: Vec<GcRow>,
    limits: Vec<[SchemeLimit; 3]>,
    computed: usize,
}

impl Climb {
    /// The cells to run next: for each profile and scheme, the load
    /// `load_of` gives from the scheme's limit so far (None: none).
    fn next_cells(&self, load_of: impl Fn(&SchemeLimit) -> Option<f64>) -> Vec<Cell> {
        let mut cells = Vec::new();
        for (profile, limits) in self.limits.iter().enumerate() {
            for (limit, &scheme) in limits.iter().zip(SCHEMES.iter()) {
                if let Some(load_mbs) = load_of(limit) {
                    cells.push(Cell {
                        profile,
                        scheme,
                        load_mbs,
                    });
                }
            }
        }
        cells
    }

    /// Adds a run and recomputes its scheme's limit from all its runs: the
    /// lowest load it did not keep up with, and the highest it kept up with
    /// below that (near its limit a queue may keep up at one load and not
    /// at a lower one; the limit is where it first fails).
    fn record(&mut self, cell: &Cell, row: &GcRow) {
        let s = SCHEMES
            .iter()
            .position(|&x| x == cell.scheme)
            .expect("a scheme");
        let runs = self
            .rows
            .iter()
            .chain(std::iter::once(row))
            .filter(|r| r.profile == row.profile && r.scheme == row.scheme);
        let unbounded = runs
            .clone()
            .filter(|r| !r.bounded)
            .map(|r| r.load_mbs)
            .reduce(f64::min);
        let bounded = runs
            .filter(|r| r.bounded && unbounded.is_none_or(|u| r.load_mbs < u))
            .map(|r| r.load_mbs)
            .reduce(f64::max);
        self.limits[cell.profile][s] = SchemeLimit {
            bounded_mbs: bounded,
            unbounded_mbs: unbounded,
        };
    }

    fn has(&self, profiles: &[Profile], c: &Cell) -> bool {
        self.rows.iter().any(|r| {
            r.profile == profiles[c.profile].name
                && r.scheme == c.scheme
                && same_load(r.load_mbs, c.load_mbs)
        })
    }
}
