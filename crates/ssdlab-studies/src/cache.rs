//! The studies' cache of finished points, keyed by a hash of their full
//! configuration, so an interrupted or repeated study recomputes only what is
//! missing. Entries are written atomically (temporary file, then rename), and
//! floats are read back bit for bit (serde_json's `float_roundtrip`), so a
//! point prints the same from the cache as when computed.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use std::path::{Path, PathBuf};

#[derive(Serialize, Deserialize)]
struct Entry<T> {
    key: String,
    config: serde_json::Value,
    result: T,
}

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn open(dir: &Path) -> std::io::Result<Cache> {
        std::fs::create_dir_all(dir)?;
        remove_stale_temporaries(dir);
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    /// The key of a configuration: 128 bits of two FNV-1a hashes of its
    /// canonical JSON (stable across runs and machines).
    pub fn key(config: &serde_json::Value) -> String {
        let text = serde_json::to_string(config).expect("JSON values serialize");
        let h1 = fnv1a(text.as_bytes(), 0xcbf2_9ce4_8422_2325);
        let h2 = fnv1a(text.as_bytes(), 0x8422_2325_cbf2_9ce4);
        format!("{h1:016x}{h2:016x}")
    }

    /// The directory the cache keeps its entries in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        let e: Entry<T> = serde_json::from_str(&text).ok()?;
        (e.key == key).then_some(e.result)
    }

    /// The result stored for `config`, or else `compute`'s, stored before
    /// it is returned; the flag says whether it was computed.
    pub fn get_or_compute<T: Serialize + DeserializeOwned>(
        &self,
        config: &serde_json::Value,
        compute: impl FnOnce() -> Result<T, InputError>,
    ) -> Result<(T, bool), InputError> {
        let key = Cache::key(config);
        if let Some(result) = self.get(&key) {
            return Ok((result, false));
        }
        let result = compute()?;
        self.put(&key, config, &result)
            .map_err(|e| InputError::invalid(self.dir.display().to_string(), e.to_string()))?;
        Ok((result, true))
    }

    pub fn put<T: Serialize>(
        &self,
        key: &str,
        config: &serde_json::Value,
        result: &T,
    ) -> std::io::Result<()> {
        let entry = Entry {
            key: key.to_string(),
            config: config.clone(),
            result,
        };
        let text = serde_json::to_string_pretty(&entry).expect("serializable");
        let tmp = self.dir.join(format!("{key}.tmp-{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(tmp, self.path(key))
    }
}

/// Removes the temporaries (`NAME.tmp-PID`, written then renamed into
/// place) that a killed run left in `dir`: those whose process is gone. A
/// temporary of a run still going is kept. Returns how many were removed.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut removed = 0;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some((_, pid)) = name.rsplit_once(".tmp-") else {
            continue;
        };
        let Ok(pid) = pid.parse::<u32>() else {
            continue;
        };
        let alive = Path::new("/proc").join(pid.to_string()).exists();
        if !alive && std::fs::remove_file(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    let mut h = seed;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_killed_run_s_temporaries_are_removed_and_a_live_one_s_kept() {
        let dir = std::env::temp_dir().join(format!("ssdlab-stale-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // No process has pid 2^22 + 1 (above Linux's pid_max).
        let dead = dir.join(".mysql-abc.tmp-4194305");
        let live = dir.join(format!(".mysql-abc.tmp-{}", std::process::id()));
        let other = dir.join("mysql-abc.mqsim");
        for p in [&dead, &live, &other] {
            std::fs::write(p, "x").unwrap();
        }
        assert_eq!(remove_stale_temporaries(&dir), 1);
        assert!(!dead.exists() && live.exists() && other.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn keys_are_stable_and_distinct() {
        let a = serde_json::json!({"op": "read", "bound": 1});
        let b = serde_json::json!({"op": "read", "bound": 2});
        assert_eq!(Cache::key(&a), Cache::key(&a.clone()));
        assert_ne!(Cache::key(&a), Cache::key(&b));
        assert_eq!(Cache::key(&a).len(), 32);
    }

    #[test]
    fn a_result_reads_back_bit_for_bit() {
        // Once 104.50832500000001 came back from the cache as 104.508325.
        use crate::k2::runner::RepResult;
        let dir = std::env::temp_dir().join(format!("ssdlab-cache-rt-{}", std::process::id()));
        let cache = Cache::open(&dir).unwrap();
        let mut r = RepResult {
            per_second: vec![(0, 4096, 1)],
            rt_p999_us: 104.50832500000001,
            rt_p99_us: 0.1 + 0.2,
            rt_mean_us: 1.0 / 3.0,
            total_bw_mbs: 2.0f64.sqrt(),
            nrt_bw_mbs: 1e-300,
            waf: 1.000_000_000_000_000_2,
            gc_invocations: 1,
            gc_pages_moved: 2,
            erases: 3,
        };
        for i in 0..200 {
            r.rt_p999_us = 104.50832500000001 + i as f64 * 1.1e-14;
            let config = serde_json::json!({ "i": i });
            let key = Cache::key(&config);
            cache.put(&key, &config, &r).unwrap();
            let back: RepResult = cache.get(&key).unwrap();
            assert_eq!(back, r);
            assert_eq!(back.rt_p999_us.to_bits(), r.rt_p999_us.to_bits());
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
