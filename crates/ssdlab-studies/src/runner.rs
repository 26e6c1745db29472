//! The studies' runner: points in parallel, longest first, each one taken
//! from the cache (`cache.rs`) when a finished run of the same
//! configuration is there, else computed and stored. The GC, STB and
//! real-time flash studies run through it; the K2 study has its own runner
//! (`k2/runner.rs`), which can also send points to a Dask cluster.

use crate::cache::Cache;
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use ssdlab_sim::error::InputError;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A unit of work: the configuration that decides its result (the cache
/// key's input), its relative cost, and how to compute it.
pub struct StudyPoint<'a, T> {
    pub config: serde_json::Value,
    /// Relative wall time: the costliest points start first, so that a
    /// grid ends evenly on all threads.
    pub cost: u64,
    pub compute: Box<dyn Fn() -> Result<T, InputError> + Send + Sync + 'a>,
}

/// Runs every point not yet in `cache_dir` on `threads` threads. Returns
/// the results in the points' order and how many were computed.
pub fn run_points<T: Serialize + DeserializeOwned + Send>(
    points: &[StudyPoint<'_, T>],
    cache_dir: &Path,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<T>, usize), InputError> {
    let cache_err =
        |e: std::io::Error| InputError::invalid(cache_dir.display().to_string(), e.to_string());
    let cache = Cache::open(cache_dir).map_err(cache_err)?;
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(points[i].cost));
    let (done, computed) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| InputError::invalid("--jobs", e.to_string()))?;
    let mut results: Vec<(usize, T)> = pool.install(|| {
        order
            .par_iter()
            .with_max_len(1)
            .map(|&i| {
                let p = &points[i];
                let (result, fresh) = cache.get_or_compute(&p.config, &p.compute)?;
                if fresh {
                    computed.fetch_add(1, Ordering::Relaxed);
                }
                progress(done.fetch_add(1, Ordering::Relaxed) + 1, points.len());
                Ok((i, result))
            })
            .collect::<Result<_, InputError>>()
    })?;
    results.sort_by_key(|(i, _)| *i);
    Ok((
        results.into_iter().map(|(_, r)| r).collect(),
        computed.into_inner(),
    ))
}
