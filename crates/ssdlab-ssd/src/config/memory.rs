//! How much memory a device needs, checked when a preset is loaded so that
//! a device too large to simulate is refused with its need, not aborted on
//! an allocation halfway through a run.
//!
//! The page maps take 4 bytes per logical and per physical page and are
//! zero-allocated: physical memory follows the pages that hold data, address
//! space is reserved for all of them. Block tables, free lists and GC
//! buckets take about 64 bytes per block.

use super::SsdConfig;
use crate::error::InputError;

/// Bytes per block in the FTL's tables (valid/written/pending counts, erase
/// count, state, close time and sequence, bucket links, free-list entry).
const BYTES_PER_BLOCK: u64 = 64;
/// The rest of a run: host path, statistics, code (measured: ~20 MB).
const BASELINE_BYTES: u64 = 64 << 20;

impl SsdConfig {
    /// Bytes a simulation of this device needs once every page holds data
    /// (without `--check`, which adds 12 bytes per page).
    pub fn memory_need_bytes(&self) -> u64 {
        let l = self.layout();
        let pages = l.logical_pages as u64 + l.physical_pages as u64;
        let buckets = l.planes as u64 * (l.pages_per_block as u64 + 1) * 4;
        pages * 4 + l.blocks as u64 * BYTES_PER_BLOCK + buckets + BASELINE_BYTES
    }

    /// Refuses a device whose tables exceed this process's address-space
    /// limit or the machine's available memory.
    pub fn check_fits_memory(&self, file: &str, text: &str) -> Result<(), InputError> {
        let need = self.memory_need_bytes();
        let Some((have, what)) = room() else {
            return Ok(());
        };
        if need <= have {
            return Ok(());
        }
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        Err(InputError::At {
            file: file.into(),
            line: super::line_of_key(text, "geometry"),
            field: "geometry".into(),
            message: format!(
                "{} pages need about {:.1} GiB of memory to simulate (8 bytes per page), \
                 more than the {:.1} GiB {what}; use fewer or larger blocks or pages",
                self.layout().physical_pages,
                gib(need),
                gib(have)
            ),
        })
    }
}

/// The smaller of the address-space limit and the available memory, with
/// a word for which one it is; `None` when neither can be read.
fn room() -> Option<(u64, &'static str)> {
    let limit = address_space_limit().map(|b| (b, "this process may address (ulimit -v)"));
    let avail = mem_available().map(|b| (b, "this machine has available"));
    match (limit, avail) {
        (Some(a), Some(b)) => Some(if a.0 < b.0 { a } else { b }),
        (a, b) => a.or(b),
    }
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The soft `Max address space` of /proc/self/limits, when limited.
fn address_space_limit() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn need_grows_with_the_pages() {
        let small = SsdConfig::builtin("seed004").unwrap();
        let big = SsdConfig::builtin("consumer-tlc-250g").unwrap();
        let per_page = |c: &SsdConfig| {
            let l = c.layout();
            (c.memory_need_bytes() - BASELINE_BYTES) as f64 / l.physical_pages as f64
        };
        assert!(big.memory_need_bytes() > 10 * small.memory_need_bytes() / 2);
        for c in [&small, &big] {
            assert!((7.5..9.0).contains(&per_page(c)), "{}", per_page(c));
        }
    }
}
