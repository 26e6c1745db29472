//! Runs the study's points in parallel, each repetition once (cached).

use super::grid::{points, Plan, Point};
use super::results::PointRow;
use crate::cache::Cache;
use crate::point::{PointFigures, PointSpec};
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run::RunSetup;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct StudyOptions {
    pub plan: Plan,
    pub out: PathBuf,
    pub threads: usize,
    pub seed: u64,
    pub device: SsdConfig,
    pub host: HostConfig,
    /// Operations to run (empty: all four).
    pub ops: Vec<String>,
    /// Device states to run (empty: both).
    pub occupancies: Vec<String>,
    /// How the fully occupied drive's data are laid down (the study's
    /// default is `grid::PRECONDITION`; the paper does not give the drive's
    /// history, docs/k2-study.md).
    pub full_precondition: PreconditionMode,
    /// Where the points not in the cache run instead of local threads.
    pub remote: Option<Box<dyn RemoteRunner>>,
}

pub use crate::runner::RemoteRunner;

pub struct StudyRun {
    pub rows: Vec<PointRow>,
    pub computed: usize,
    pub cached: usize,
    /// Per-second totals of the fully occupied random-write run under
    /// `none` (its first repetition), when the grid has it.
    pub randwrite_full_series: Option<Vec<(u64, u64, u64)>>,
}

/// The seconds of a per-second series that lie wholly inside a run of
/// `runtime_s` (the last requests complete just after it ends, in a second
/// of their own that would plot as a fall to nothing).
fn whole_seconds(series: &[(u64, u64, u64)], runtime_s: u64) -> Vec<(u64, u64, u64)> {
    series.iter().copied().filter(|r| r.0 < runtime_s).collect()
}

/// One repetition to run: a job file, a scheduler and a device state.
#[derive(Debug, Clone)]
pub struct RunPoint {
    /// Shown in errors (e.g. "examples/k2/randread.fio").
    pub job_name: String,
    pub job_text: String,
    pub scheduler: String,
    /// Share of the logical space holding data, in [0, 1].
    pub occupancy: f64,
    /// How that data is laid down.
    pub precondition: PreconditionMode,
    /// Added to the seed (repetitions).
    pub seed_offset: u64,
    /// Relative wall time the point is expected to take: the longest
    /// points start first, so that a grid ends evenly on all threads.
    pub cost: u64,
}

/// Where and with what the points run.
pub struct RunEnv<'a> {
    pub out: &'a std::path::Path,
    pub threads: usize,
    pub seed: u64,
    pub device: &'a SsdConfig,
    pub host: &'a HostConfig,
    /// Run the points not in the cache there (else on `threads` threads).
    pub remote: Option<&'a dyn RemoteRunner>,
}

/// Runs every point not yet in the cache (in parallel), returning each
/// point's result in order and how many were computed.
pub fn execute(
    pts: &[RunPoint],
    env: &RunEnv,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<RepResult>, usize), InputError> {
    let (figures, computed) = execute_figures(pts, env, progress)?;
    Ok((figures.iter().map(RepResult::of).collect(), computed))
}

/// As `execute`, each point's figures whole (for job files whose jobs are
/// not the K2 set-up's `rt` and background).
pub fn execute_figures(
    pts: &[RunPoint],
    env: &RunEnv,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<PointFigures>, usize), InputError> {
    let cache = Cache::open(&env.out.join("cache")).map_err(|e| io_err(env.out, e))?;
    if let Some(remote) = env.remote {
        return execute_remote(pts, env, &cache, remote, progress);
    }
    let total = pts.len();
    let done = AtomicUsize::new(0);
    let computed = AtomicUsize::new(0);
    // Longest first (a stable sort: equal costs keep the grid's order);
    // each thread takes the next point of that order when it is free.
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(pts[i].cost));
    let next = AtomicUsize::new(0);
    let one = |p: &RunPoint| -> Result<PointFigures, InputError> {
        let spec = p.spec(env);
        let (figures, fresh): (PointFigures, bool) =
            cache.get_or_compute(&spec.config(), || spec.run())?;
        if fresh {
            computed.fetch_add(1, Ordering::Relaxed);
        }
        progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
        Ok(figures)
    };
    // Each thread returns the (index, result) pairs it ran; an error stops
    // the handing out of points (the others finish theirs).
    let worker = || {
        let mut ran = Vec::new();
        while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            let r = one(&pts[i]);
            if r.is_err() {
                next.store(total, Ordering::Relaxed);
            }
            ran.push((i, r));
        }
        ran
    };
    let mut ran: Vec<(usize, Result<PointFigures, InputError>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..env.threads.clamp(1, total.max(1)))
            .map(|_| s.spawn(worker))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a study worker panicked"))
            .collect()
    });
    // Results in grid order; the first error in that order, if any.
    ran.sort_by_key(|(i, _)| *i);
    let results: Result<Vec<PointFigures>, InputError> = ran.into_iter().map(|(_, r)| r).collect();
    Ok((results?, computed.into_inner()))
}

/// As `execute`, the points not in the cache run by `remote`, through the
/// studies' shared remote path (`runner::run_remote`).
fn execute_remote(
    pts: &[RunPoint],
    env: &RunEnv,
    cache: &Cache,
    remote: &dyn RemoteRunner,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<PointFigures>, usize), InputError> {
    let configs: Vec<serde_json::Value> = pts.iter().map(|p| p.spec(env).config()).collect();
    let costs: Vec<u64> = pts.iter().map(|p| p.cost).collect();
    crate::runner::run_remote(&configs, &costs, cache, remote, progress)
}

/// Runs the K2 grid (every point not yet in the cache).
pub fn run_study(
    opts: &StudyOptions,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<StudyRun, InputError> {
    let pts = points(&opts.plan, &opts.ops, &opts.occupancies);
    let runs: Vec<RunPoint> = pts
        .iter()
        .map(|p| RunPoint {
            job_name: format!("examples/k2/{}.fio", p.op),
            job_text: p.job_file(),
            scheduler: p.scheduler_spec(),
            occupancy: p.occupancy_share(),
            precondition: super::grid::precondition_of(&p.occupancy, opts.full_precondition),
            seed_offset: p.rep as u64,
            cost: p.cost(),
        })
        .collect();
    let env = RunEnv {
        out: &opts.out,
        threads: opts.threads,
        seed: opts.seed,
        device: &opts.device,
        host: &opts.host,
        remote: opts.remote.as_deref(),
    };
    let (results, computed) = execute(&runs, &env, progress)?;
    let paired: Vec<(Point, RepResult)> = pts.into_iter().zip(results).collect();
    let randwrite_full_series = paired
        .iter()
        .find(|(p, _)| {
            p.op == "randwrite" && p.occupancy == "full" && p.bound.is_none() && p.rep == 0
        })
        .map(|(p, r)| whole_seconds(&r.per_second, p.runtime_s));
    Ok(StudyRun {
        rows: aggregate(&paired),
        computed,
        cached: paired.len() - computed,
        randwrite_full_series,
    })
}

fn io_err(dir: &std::path::Path, e: std::io::Error) -> InputError {
    InputError::invalid(dir.display().to_string(), e.to_string())
}

/// What one repetition measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RepResult {
    pub rt_p999_us: f64,
    pub rt_p99_us: f64,
    pub rt_mean_us: f64,
    pub total_bw_mbs: f64,
    pub nrt_bw_mbs: f64,
    pub waf: f64,
    pub gc_invocations: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
    /// All jobs together, one row per simulated second: (second, bytes,
    /// I/Os), seconds without I/O as in `Sampler::per_second_series`.
    #[serde(default)]
    pub per_second: Vec<(u64, u64, u64)>,
}

impl RunPoint {
    /// The point to run in `env`.
    pub fn spec(&self, env: &RunEnv) -> PointSpec {
        PointSpec {
            job_name: self.job_name.clone(),
            job_text: self.job_text.clone(),
            setup: RunSetup {
                device: env.device.clone(),
                host: env.host.clone(),
                scheduler: self.scheduler.clone(),
                occupancy: self.occupancy,
                precondition: self.precondition,
                seed: env.seed.wrapping_add(self.seed_offset),
                check: false,
            },
        }
    }
}

impl RepResult {
    /// The study's figures of a point's: the RT job ("rt") and the
    /// background jobs.
    pub fn of(p: &PointFigures) -> RepResult {
        let rt = p.job("rt").expect("study job files have an rt job");
        RepResult {
            rt_p999_us: rt.clat_p999_us,
            rt_p99_us: rt.clat_p99_us,
            rt_mean_us: rt.clat_mean_us,
            total_bw_mbs: p.bw_mbs,
            nrt_bw_mbs: p
                .jobs
                .iter()
                .filter(|j| j.name != "rt")
                .map(|j| j.bw_mbs)
                .sum(),
            waf: p.waf,
            gc_invocations: p.gc_invocations,
            gc_pages_moved: p.gc_pages_moved,
            erases: p.erases,
            per_second: p.per_second.clone(),
        }
    }
}

/// Averages the repetitions of each point, in the grid's order.
fn aggregate(results: &[(Point, RepResult)]) -> Vec<PointRow> {
    let mut rows: Vec<PointRow> = Vec::new();
    for (p, r) in results {
        let same = |row: &&mut PointRow| {
            row.op == p.op && row.occupancy == p.occupancy && row.bound == p.bound
        };
        if let Some(row) = rows.iter_mut().find(|row| same(row)) {
            accumulate(row, r);
            continue;
        }
        let mut row = PointRow {
            op: p.op.clone(),
            occupancy: p.occupancy.clone(),
            scheduler: if p.bound.is_some() { "k2" } else { "none" }.to_string(),
            bound: p.bound,
            rt_p999_us: 0.0,
            rt_p99_us: 0.0,
            rt_mean_us: 0.0,
            total_bw_mbs: 0.0,
            nrt_bw_mbs: 0.0,
            reps: 0,
            runtime_s: p.runtime_s as f64,
            waf: 0.0,
            gc_invocations: 0,
            gc_pages_moved: 0,
            erases: 0,
        };
        accumulate(&mut row, r);
        rows.push(row);
    }
    for row in &mut rows {
        let n = row.reps as f64;
        for v in [
            &mut row.rt_p999_us,
            &mut row.rt_p99_us,
            &mut row.rt_mean_us,
            &mut row.total_bw_mbs,
            &mut row.nrt_bw_mbs,
            &mut row.waf,
        ] {
            *v /= n;
        }
        row.gc_invocations /= row.reps as u64;
        row.gc_pages_moved /= row.reps as u64;
        row.erases /= row.reps as u64;
    }
    rows
}

fn accumulate(row: &mut PointRow, r: &RepResult) {
    row.reps += 1;
    row.rt_p999_us += r.rt_p999_us;
    row.rt_p99_us += r.rt_p99_us;
    row.rt_mean_us += r.rt_mean_us;
    row.total_bw_mbs += r.total_bw_mbs;
    row.nrt_bw_mbs += r.nrt_bw_mbs;
    row.waf += r.waf;
    row.gc_invocations += r.gc_invocations;
    row.gc_pages_moved += r.gc_pages_moved;
    row.erases += r.erases;
}
