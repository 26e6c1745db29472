//! A cache of finished repetitions keyed by a hash of their full
//! configuration, so an interrupted or repeated study recomputes only what is
//! missing. Entries are written atomically (temporary file, then rename).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

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
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    config: serde_json::Value,
    result: RepResult,
}

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn open(dir: &Path) -> std::io::Result<Cache> {
        std::fs::create_dir_all(dir)?;
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

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<RepResult> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        let e: Entry = serde_json::from_str(&text).ok()?;
        (e.key == key).then_some(e.result)
    }

    pub fn put(
        &self,
        key: &str,
        config: &serde_json::Value,
        result: &RepResult,
    ) -> std::io::Result<()> {
        let entry = Entry {
            key: key.to_string(),
            config: config.clone(),
            result: result.clone(),
        };
        let text = serde_json::to_string_pretty(&entry).expect("serializable");
        let tmp = self.dir.join(format!("{key}.tmp-{}", std::process::id()));
        std::fs::write(&tmp, text)?;
        std::fs::rename(tmp, self.path(key))
    }
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
    fn keys_are_stable_and_distinct() {
        let a = serde_json::json!({"op": "read", "bound": 1});
        let b = serde_json::json!({"op": "read", "bound": 2});
        assert_eq!(Cache::key(&a), Cache::key(&a.clone()));
        assert_ne!(Cache::key(&a), Cache::key(&b));
        assert_eq!(Cache::key(&a).len(), 32);
    }
}
