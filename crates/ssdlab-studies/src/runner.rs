//! The studies' runner: points in parallel, longest first, each one taken
//! from the cache (`cache.rs`) when a finished run of the same
//! configuration is there, else computed and stored — on local threads, or
//! on a [`RemoteRunner`] (the CLI's bridge to a Dask cluster), which runs a
//! point from its configuration alone (`study_points.rs`). The GC, STB and
//! real-time flash studies run through it; the K2 study has its own runner
//! (`k2/runner.rs`), with the same remote.

use crate::cache::Cache;
use rayon::prelude::*;
use serde::de::DeserializeOwned;
use serde::Serialize;
use ssdlab_sim::error::InputError;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Somewhere else to run points: the CLI's bridge to a Dask cluster.
pub trait RemoteRunner: Send + Sync {
    /// The result (JSON text) of each `(key, configuration JSON)`, in
    /// order; the points go out in the order given.
    fn run(&self, points: &[(String, String)]) -> Result<Vec<String>, InputError>;
}

/// A study's remote, shareable between the options that carry it.
#[derive(Clone)]
pub struct Remote(pub Arc<dyn RemoteRunner>);

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Remote")
    }
}

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
    remote: Option<&Remote>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<T>, usize), InputError> {
    let cache_err =
        |e: std::io::Error| InputError::invalid(cache_dir.display().to_string(), e.to_string());
    let cache = Cache::open(cache_dir).map_err(cache_err)?;
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(points[i].cost));
    if let Some(remote) = remote {
        let configs: Vec<serde_json::Value> = points.iter().map(|p| p.config.clone()).collect();
        let costs: Vec<u64> = points.iter().map(|p| p.cost).collect();
        return run_remote(&configs, &costs, &cache, remote.0.as_ref(), progress);
    }
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

/// The points of `configs` not in `cache` go to `remote` in one call,
/// longest first by `costs` (a stable order among equals), and are cached
/// as their results come back; every result in the configurations' order
/// and how many were computed. The shared runner and the K2 runner both
/// send their points this way.
pub(crate) fn run_remote<T: Serialize + DeserializeOwned>(
    configs: &[serde_json::Value],
    costs: &[u64],
    cache: &Cache,
    remote: &dyn RemoteRunner,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<T>, usize), InputError> {
    let keys: Vec<String> = configs.iter().map(Cache::key).collect();
    let mut results: Vec<Option<T>> = keys.iter().map(|k| cache.get(k)).collect();
    let mut missing: Vec<usize> = (0..configs.len())
        .filter(|&i| results[i].is_none())
        .collect();
    missing.sort_by_key(|&i| std::cmp::Reverse(costs[i]));
    progress(configs.len() - missing.len(), configs.len());
    let sent: Vec<(String, String)> = missing
        .iter()
        .map(|&i| (keys[i].clone(), configs[i].to_string()))
        .collect();
    let got = if sent.is_empty() {
        Vec::new()
    } else {
        remote.run(&sent)?
    };
    for (&i, text) in missing.iter().zip(got) {
        let result: T = serde_json::from_str(&text).map_err(|e| {
            InputError::invalid(
                "--dask",
                format!("the result of point {} does not read back: {e}", keys[i]),
            )
        })?;
        cache
            .put(&keys[i], &configs[i], &result)
            .map_err(|e| InputError::invalid(cache.dir().display().to_string(), e.to_string()))?;
        results[i] = Some(result);
    }
    progress(configs.len(), configs.len());
    let results = results
        .into_iter()
        .map(|r| r.expect("every point ran"))
        .collect();
    Ok((results, missing.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Points whose result is a function of their configuration alone.
    fn points(n: u64) -> Vec<StudyPoint<'static, u64>> {
        (0..n)
            .map(|i| {
                let config = serde_json::json!({ "study": "test", "i": i });
                StudyPoint {
                    config,
                    cost: i % 3,
                    compute: Box::new(move || Ok(i * i + 1)),
                }
            })
            .collect()
    }

    /// A remote that computes from the configuration and remembers what it
    /// was sent.
    struct Recorder(Mutex<Vec<serde_json::Value>>);

    impl RemoteRunner for Recorder {
        fn run(&self, points: &[(String, String)]) -> Result<Vec<String>, InputError> {
            let mut sent = self.0.lock().unwrap();
            Ok(points
                .iter()
                .map(|(key, text)| {
                    let config: serde_json::Value = serde_json::from_str(text).unwrap();
                    assert_eq!(*key, Cache::key(&config));
                    let i = config["i"].as_u64().unwrap();
                    sent.push(config);
                    (i * i + 1).to_string()
                })
                .collect())
        }
    }

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("ssdlab-runner-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_run_killed_half_way_resumes_with_only_the_missing_points() {
        let dir = scratch("resume");
        let pts = points(10);
        let (all, computed) = run_points(&pts, &dir, 2, None, &|_, _| {}).unwrap();
        assert_eq!(computed, 10);
        // As if killed half-way: half the points never reached the cache.
        for p in pts
            .iter()
            .filter(|p| p.config["i"].as_u64().unwrap() % 2 == 0)
        {
            std::fs::remove_file(dir.join(format!("{}.json", Cache::key(&p.config)))).unwrap();
        }
        let (again, computed) = run_points(&pts, &dir, 2, None, &|_, _| {}).unwrap();
        assert_eq!((again, computed), (all, 5));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_remote_gets_the_missing_points_longest_first_and_gives_the_same_results() {
        let (local_dir, remote_dir) = (scratch("local"), scratch("remote"));
        let pts = points(9);
        let (local, _) = run_points(&pts, &local_dir, 2, None, &|_, _| {}).unwrap();
        // Three points already there.
        let cache = Cache::open(&remote_dir).unwrap();
        for p in &pts[..3] {
            cache
                .put(&Cache::key(&p.config), &p.config, &(p.compute)().unwrap())
                .unwrap();
        }
        let recorder = Arc::new(Recorder(Mutex::new(Vec::new())));
        let remote = Remote(recorder.clone());
        let (got, computed) = run_points(&pts, &remote_dir, 2, Some(&remote), &|_, _| {}).unwrap();
        assert_eq!((got, computed), (local, 6));
        let sent = recorder.0.lock().unwrap();
        let costs: Vec<u64> = sent.iter().map(|c| c["i"].as_u64().unwrap() % 3).collect();
        assert_eq!(sent.len(), 6);
        assert!(
            costs.windows(2).all(|w| w[0] >= w[1]),
            "longest first: {costs:?}"
        );
        // Cached as they came back: a rerun sends nothing.
        drop(sent);
        let (_, computed) = run_points(&pts, &remote_dir, 2, Some(&remote), &|_, _| {}).unwrap();
        assert_eq!(computed, 0);
        assert_eq!(recorder.0.lock().unwrap().len(), 6);
        let _ = std::fs::remove_dir_all(&local_dir);
        let _ = std::fs::remove_dir_all(&remote_dir);
    }
}
