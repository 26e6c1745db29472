//! Data verification on the real path, as fio's `verify=` family: every
//! written unit (`verify_interval` bytes, by default the block size) starts
//! with a header naming its offset, its generation (which write it was)
//! and a checksum of the rest; a read checks the units it covers, and the
//! read-back at the end checks every unit written.
//!
//! The header is ssdlab's own (fio's layout is an implementation detail of
//! fio): 64 bytes, little-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `SDLV` |
//! | 4..8 | unit length |
//! | 8..16 | offset of the unit |
//! | 16..20 | generation |
//! | 20..24 | method (index in [`METHODS`]) |
//! | 24..56 | checksum of bytes 64.. (zero-padded; `meta` leaves it zero) |
//! | 56..64 | reserved, zero |

use md5::Digest;
use std::collections::HashMap;

/// Bytes of the header at the start of each unit.
pub const HEADER_BYTES: usize = 64;
const MAGIC: &[u8; 4] = b"SDLV";

/// fio's method names ssdlab verifies with.
pub const METHODS: [&str; 8] = [
    "md5",
    "crc32c",
    "crc32c-intel",
    "crc32",
    "sha256",
    "xxhash",
    "meta",
    "null",
];

/// How a run verifies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifySettings {
    /// Index in [`METHODS`].
    pub method: u32,
    /// Bytes each header covers (more than `HEADER_BYTES`).
    pub unit: u32,
    /// Stop at the first failure.
    pub fatal: bool,
}

impl VerifySettings {
    /// Settings for fio's method `name`, or None for an unknown one.
    pub fn new(name: &str, unit: u32, fatal: bool) -> Option<VerifySettings> {
        let method = METHODS.iter().position(|m| *m == name)? as u32;
        Some(VerifySettings {
            method,
            unit,
            fatal,
        })
    }

    fn name(&self) -> &'static str {
        METHODS[self.method as usize]
    }
}

/// A unit that failed verification.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerifyFailure {
    pub offset: u64,
    pub what: String,
}

/// What verification found.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct VerifyCounters {
    pub method: String,
    pub units_written: u64,
    pub units_checked: u64,
    pub failures: u64,
    /// The first failures (at most 16), each with its offset.
    pub first_failures: Vec<VerifyFailure>,
}

/// The verification state of a run: the settings and the generation last
/// written to each unit.
pub struct Verifier {
    settings: VerifySettings,
    generations: HashMap<u64, u32>,
    next_generation: u32,
    counters: VerifyCounters,
}

impl Verifier {
    pub fn new(settings: VerifySettings) -> Verifier {
        Verifier {
            counters: VerifyCounters {
                method: settings.name().to_string(),
                ..Default::default()
            },
            settings,
            generations: HashMap::new(),
            next_generation: 1,
        }
    }

    pub fn counters(&self) -> &VerifyCounters {
        &self.counters
    }

    pub fn fatal(&self) -> bool {
        self.settings.fatal
    }

    /// The whole units, aligned to the unit size, that a command of `len`
    /// bytes at `offset` covers: their offsets and their bytes in its buffer.
    fn units(
        &self,
        offset: u64,
        len: usize,
    ) -> impl Iterator<Item = (u64, std::ops::Range<usize>)> {
        let unit = u64::from(self.settings.unit);
        let first = offset.div_ceil(unit) * unit;
        let end = offset + len as u64;
        let count = end.saturating_sub(first) / unit;
        (0..count).map(move |i| {
            let at = first + i * unit;
            let from = (at - offset) as usize;
            (at, from..from + unit as usize)
        })
    }

    /// Fills `buf` (a write of its length at `offset`) with stamped units.
    pub fn stamp(&mut self, buf: &mut [u8], offset: u64) {
        if self.name() == "null" {
            return;
        }
        let generation = self.next_generation;
        self.next_generation = self.next_generation.wrapping_add(1).max(1);
        for (at, range) in self.units(offset, buf.len()).collect::<Vec<_>>() {
            let u = &mut buf[range];
            crate::pattern::fill(&mut u[HEADER_BYTES..], at ^ u64::from(generation) << 40);
            u[..HEADER_BYTES].fill(0);
            u[0..4].copy_from_slice(MAGIC);
            u[4..8].copy_from_slice(&self.settings.unit.to_le_bytes());
            u[8..16].copy_from_slice(&at.to_le_bytes());
            u[16..20].copy_from_slice(&generation.to_le_bytes());
            u[20..24].copy_from_slice(&self.settings.method.to_le_bytes());
            let sum = self.checksum(&u[HEADER_BYTES..]);
            u[24..56].copy_from_slice(&sum);
            self.generations.insert(at, generation);
            self.counters.units_written += 1;
        }
    }

    /// The generations the units of a read at `offset` may show: what was
    /// last written when the read was submitted (a write still in flight
    /// may land before the read, so a later one passes too).
    pub fn expected(&self, offset: u64, len: usize) -> Vec<u32> {
        self.units(offset, len)
            .map(|(at, _)| self.generations.get(&at).copied().unwrap_or(0))
            .collect()
    }

    /// Checks the units of a read of `buf` at `offset`; `expected` is what
    /// `expected` gave at submission. Returns whether every unit passed.
    pub fn check(&mut self, buf: &[u8], offset: u64, expected: &[u32]) -> bool {
        if self.name() == "null" {
            // fio's null method only pretends to verify.
            self.counters.units_checked += expected.len() as u64;
            return true;
        }
        let mut ok = true;
        let units: Vec<_> = self.units(offset, buf.len()).collect();
        for ((at, range), &floor) in units.into_iter().zip(expected) {
            self.counters.units_checked += 1;
            if let Err(what) = self.check_unit(&buf[range], at, floor) {
                ok = false;
                self.counters.failures += 1;
                if self.counters.first_failures.len() < 16 {
                    self.counters
                        .first_failures
                        .push(VerifyFailure { offset: at, what });
                }
            }
        }
        ok
    }

    fn check_unit(&self, u: &[u8], at: u64, floor: u32) -> Result<(), String> {
        let le32 =
            |r: std::ops::Range<usize>| u32::from_le_bytes(u[r].try_into().expect("4 bytes"));
        if &u[0..4] != MAGIC {
            return Err(
                "no verify header (the unit was never written with verify, or was overwritten)"
                    .into(),
            );
        }
        let stamped_at = u64::from_le_bytes(u[8..16].try_into().expect("8 bytes"));
        if stamped_at != at {
            return Err(format!("header names offset {stamped_at}: misplaced data"));
        }
        if le32(4..8) != self.settings.unit || le32(20..24) != self.settings.method {
            return Err("header written with another verify method or interval".into());
        }
        let generation = le32(16..20);
        let last = self.generations.get(&at).copied().unwrap_or(0);
        if floor > 0 && (generation < floor || generation > last) {
            return Err(format!(
                "stale data: generation {generation}, expected {floor}{}",
                if last > floor {
                    format!(" to {last}")
                } else {
                    String::new()
                }
            ));
        }
        if self.checksum(&u[HEADER_BYTES..]) != u[24..56] {
            return Err(format!("bad {} checksum", self.settings.name()));
        }
        Ok(())
    }

    /// The units written, by offset, with their last generation (for the
    /// read-back at the end).
    pub fn written(&self) -> Vec<(u64, u32)> {
        let mut v: Vec<(u64, u32)> = self.generations.iter().map(|(&k, &g)| (k, g)).collect();
        v.sort_unstable();
        v
    }

    pub fn unit(&self) -> u32 {
        self.settings.unit
    }

    fn checksum(&self, data: &[u8]) -> [u8; 32] {
        let mut out = [0u8; 32];
        match self.name() {
            "md5" => out[..16].copy_from_slice(&md5::Md5::digest(data)),
            "crc32c" | "crc32c-intel" => {
                out[..4].copy_from_slice(&crc32c::crc32c(data).to_le_bytes())
            }
            "crc32" => out[..4].copy_from_slice(&crc32fast::hash(data).to_le_bytes()),
            "sha256" => out.copy_from_slice(&sha2::Sha256::digest(data)),
            "xxhash" => out[..8].copy_from_slice(&xxhash_rust::xxh64::xxh64(data, 0).to_le_bytes()),
            _ => {} // meta: the header alone; null: nothing
        }
        out
    }

    fn name(&self) -> &'static str {
        self.settings.name()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verifier(method: &str) -> Verifier {
        Verifier::new(VerifySettings::new(method, 4096, false).unwrap())
    }

    #[test]
    fn a_stamped_write_reads_back_clean_and_a_flipped_byte_is_found() {
        for method in ["md5", "crc32c", "crc32", "sha256", "xxhash"] {
            let mut v = verifier(method);
            let mut buf = vec![0u8; 16384];
            v.stamp(&mut buf, 1 << 20);
            let want = v.expected(1 << 20, buf.len());
            assert!(v.check(&buf, 1 << 20, &want), "{method}");
            buf[4096 * 2 + 100] ^= 1;
            assert!(!v.check(&buf, 1 << 20, &want), "{method}");
            let f = &v.counters().first_failures[0];
            assert_eq!(f.offset, (1 << 20) + 8192, "{method}");
            assert!(f.what.contains("checksum"), "{method}: {}", f.what);
        }
    }

    #[test]
    fn misplaced_and_stale_data_are_found() {
        let mut v = verifier("crc32c");
        let mut old = vec![0u8; 4096];
        v.stamp(&mut old, 0);
        let mut new = vec![0u8; 4096];
        v.stamp(&mut new, 0);
        let want = v.expected(0, 4096);
        assert!(v.check(&new, 0, &want));
        assert!(!v.check(&old, 0, &want), "the older write is stale");
        assert!(v.counters().first_failures[0].what.contains("stale"));
        assert!(!v.check(&new, 4096, &[0]), "data of offset 0 at 4096");
        assert!(v.counters().first_failures[1].what.contains("misplaced"));
        let blank = vec![0u8; 4096];
        assert!(!v.check(&blank, 0, &want));
        assert!(v.counters().first_failures[2]
            .what
            .contains("no verify header"));
    }

    #[test]
    fn only_whole_aligned_units_are_checked() {
        let v = verifier("md5");
        let units: Vec<_> = v.units(1000, 10000).collect();
        assert_eq!(units, vec![(4096, 3096..7192)]);
    }
}
