//! The I/O stream of one job: direction, offset and length of every I/O,
//! following fio's `rw`, `rw_sequencer`, `bs`/`bssplit`/`bsrange`,
//! `rwmixread`, `random_distribution`, `norandommap` and `randseed`.
//!
//! Everything is deterministic for a given seed: three ChaCha8 streams (one
//! for directions, one for block sizes, one for offsets, like fio's separate
//! `rwmix`, `bsrange` and `random` states) are derived from the seed given to
//! [`IoGenerator::new`] mixed with the job's `randseed` when set. Changing the
//! mix percentage therefore does not change the offsets drawn.
//!
//! Choices (fio's behaviour unless noted):
//! - **Directions**: fixed for read/write/trim modes; for `rw`/`randrw` each
//!   I/O is a read with probability `rwmixread`% (fio decides per I/O; its
//!   byte-count smoothing between direction switches is not modelled).
//! - **Block size**: `bssplit` (weighted by its percentages; all-zero weights
//!   count as equal) over `bsrange` (uniform over the multiples of the minimum
//!   in `[min, max]`) over `bs`, per direction. Every size must be a positive
//!   multiple of 512 bytes. An I/O never crosses the end of the region: a
//!   random I/O whose size does not fit at its offset is clipped there; a
//!   sequential one wraps to the region start.
//! - **Alignment**: random offsets are multiples of the smallest block size of
//!   the active directions (fio's default `blockalign`); the region length is
//!   rounded down to it. The region is cut into `N = len / align` slots.
//! - **Sequential modes**: each direction keeps its own position (fio's
//!   `last_pos[ddir]`): the first I/O starts at the region start, each next one
//!   at the end of the previous plus `rw_seq_add` bytes (negative: backwards),
//!   modulo the region
//!   length, and at the region start when the I/O would not fit before the end.
//! - **`rw=randread:N`**: every N-th I/O of the job draws a new random offset;
//!   the I/Os in between continue sequentially from the end of the previous I/O
//!   of their direction (`rw_sequencer=sequential`), or repeat its offset
//!   (`rw_sequencer=identical`). A sequential continuation that reaches the
//!   region end draws a new random offset instead.
//! - **Random map** (uniform distribution without `norandommap`): the slots are
//!   visited in a pseudorandom permutation (4-round Feistel network over the
//!   next even power of two ≥ N with cycle walking), a new key per pass, so
//!   every slot is hit exactly once per pass. Offsets of the `:N` sequential
//!   continuations do not consume the map, and an I/O larger than a slot does
//!   not mark its neighbours (fio's map would): with mixed sizes, I/Os of one
//!   pass may overlap.
//! - **Non-uniform distributions** disable the random map (fio does the same).
//!   With `rank` drawn from the distribution, `scatter` a fixed bijection of
//!   `[0, N)` (Feistel with a constant key, cycle walking) and `shift` =
//!   `center·N` (a random slot when no center is given), the slot is
//!   `(scatter(rank) − scatter(0) + shift) mod N`, so the hottest rank lands
//!   on `shift` and the rest are spread over the region, as fio's
//!   `(hash(rank) + rand_off) % N` does (fio's hash is not a bijection):
//!   - `zipf:θ`: `P(rank = k−1) ∝ k^−θ`, `k ∈ 1..=N`, by Hörmann–Derflinger
//!     rejection-inversion (O(1) per draw, no table, fine for N = 10⁹);
//!   - `pareto:h`: fio's formula `rank = ⌊(N−1)·u^p⌋` with `u` uniform in
//!     `[0, 1)` and `p = ln h / ln(1−h)`: a fraction `h` of the slots receives
//!     a fraction `1−h` of the accesses (h = 0.2 → 80/20);
//!   - `normal:σ`: a true Gaussian over the slot space with mean `center·N`
//!     (center 0.5 by default) and standard deviation `σ/100·N`, redrawn when
//!     outside `[0, N)` (clamped after 32 tries). Not scattered, so the hot
//!     spot really is around the centre. (fio averages 12 uniforms, adds a
//!     uniform deviation and then hashes the result across the file.)
//!   - `zoned`/`zoned_abs`: a zone is chosen by its access percentage, then a
//!     slot uniformly inside it. Zone boundaries are `⌊cum%·N/100⌋` slots
//!     (`zoned`) or `⌊cum_bytes/align⌋` capped at N (`zoned_abs`; zones past
//!     the region end are empty, space past the last zone is never accessed).
//!     Empty zones lose their share (renormalised); if every zone is empty,
//!     slots are drawn uniformly over the region.
//! - `randrepeat` is not consulted: the sequence always follows the seed
//!   passed in (the caller varies it per run when it wants fio's
//!   `randrepeat=0`).

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::spec::{JobSpec, RwMode, RwSequencer};

mod perm;
mod picker;
mod sizes;
mod zipf;

use perm::mix64;
use picker::Picker;
use sizes::SizeChooser;

/// Sector size every offset and length is a multiple of.
pub const SECTOR: u64 = 512;

/// Largest I/O length ([`IoUnit::len`] is a `u32`), a multiple of 512.
pub const MAX_IO_LEN: u64 = (u32::MAX as u64) & !(SECTOR - 1);

/// Data direction of one I/O.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum IoDir {
    Read,
    Write,
    Trim,
}

impl IoDir {
    fn index(self) -> usize {
        match self {
            IoDir::Read => 0,
            IoDir::Write => 1,
            IoDir::Trim => 2,
        }
    }
}

/// One I/O: direction, absolute byte offset on the device, length in bytes.
/// Offset and length are multiples of 512; `offset + len` never passes the
/// end of the generator's region.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IoUnit {
    pub dir: IoDir,
    pub offset: u64,
    pub len: u32,
}

/// Why a generator cannot be built for a job and region.
#[derive(Clone, Debug, PartialEq)]
pub enum GeneratorError {
    /// The region has length 0.
    EmptyRegion,
    /// The region is shorter than the smallest block size.
    RegionTooSmall { region_len: u64, block_size: u64 },
    /// The region start is not a multiple of 512, or start + len overflows.
    BadRegion { start: u64, len: u64 },
    /// A block size (bs, bssplit entry or bsrange bound) that is zero, not a
    /// multiple of 512, or larger than [`MAX_IO_LEN`].
    BadBlockSize(u64),
    /// A `bsrange` whose minimum is above its maximum.
    BadBlockRange { min: u64, max: u64 },
    /// `rw=write:N` with N not a multiple of 512.
    BadSeqAdd(i64),
    /// Zone access percentages (and for `zoned`, range percentages) not
    /// adding up to 100.
    ZonedPercentages { access: u64, range: Option<u64> },
    /// A distribution parameter outside its domain (zipf θ ≤ 0, pareto h
    /// outside (0, 1), normal σ ≤ 0, center outside [0, 1], non-finite).
    BadDistribution(String),
}

impl fmt::Display for GeneratorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GeneratorError::EmptyRegion => write!(f, "the job's region is empty"),
            GeneratorError::RegionTooSmall {
                region_len,
                block_size,
            } => write!(
                f,
                "the job's region ({region_len} bytes) is smaller than its block size ({block_size} bytes)"
            ),
            GeneratorError::BadRegion { start, len } => write!(
                f,
                "region start {start} (length {len}) is not a multiple of 512 bytes or passes 2^64"
            ),
            GeneratorError::BadBlockSize(b) => write!(
                f,
                "block size {b} is not a positive multiple of 512 bytes up to {MAX_IO_LEN}"
            ),
            GeneratorError::BadBlockRange { min, max } => {
                write!(f, "bsrange minimum {min} is above its maximum {max}")
            }
            GeneratorError::BadSeqAdd(a) => write!(
                f,
                "sequential skip rw=...:{a} is not a multiple of 512 bytes"
            ),
            GeneratorError::ZonedPercentages { access, range } => match range {
                Some(r) => write!(
                    f,
                    "zoned distribution: access percentages add up to {access}% and ranges to {r}%; both must be 100%"
                ),
                None => write!(
                    f,
                    "zoned_abs distribution: access percentages add up to {access}%, not 100%"
                ),
            },
            GeneratorError::BadDistribution(m) => write!(f, "random_distribution: {m}"),
        }
    }
}

impl std::error::Error for GeneratorError {}

// ---------------------------------------------------------------------------
// The generator

#[derive(Clone, Debug)]
enum DirChooser {
    Fixed(IoDir),
    /// Reads with this percent probability, writes otherwise.
    Mixed(u8),
}

/// Deterministic source of a job's I/Os.
#[derive(Clone, Debug)]
pub struct IoGenerator {
    start: u64,
    len: u64,
    align: u64,
    slots: u64,
    random: bool,
    seq_n: u64,
    seq_add: i64,
    identical: bool,
    dirs: DirChooser,
    sizes: [SizeChooser; 3],
    last_start: [Option<u64>; 3],
    last_end: [Option<u64>; 3],
    issued: u64,
    picker: Picker,
    rng_dir: ChaCha8Rng,
    rng_bs: ChaCha8Rng,
    rng_off: ChaCha8Rng,
}

impl IoGenerator {
    /// A generator for `spec` over `region = (start, len)` bytes of the device
    /// (from [`JobSpec::region`]). `seed` should be the run's seed mixed with
    /// the job's index; the job's `randseed`, when set, is mixed in as well.
    pub fn new(
        spec: &JobSpec,
        region: (u64, u64),
        seed: u64,
    ) -> Result<IoGenerator, GeneratorError> {
        let (start, raw_len) = region;
        if raw_len == 0 {
            return Err(GeneratorError::EmptyRegion);
        }
        if !start.is_multiple_of(SECTOR) || start.checked_add(raw_len).is_none() {
            return Err(GeneratorError::BadRegion {
                start,
                len: raw_len,
            });
        }
        let mode = spec.rw;
        let active = [mode.has_read(), mode.has_write(), mode.has_trim()];
        let mk = |i: usize| -> Result<SizeChooser, GeneratorError> {
            let (bs, split, range) = match i {
                0 => (spec.bs.read, &spec.bssplit.read, spec.bsrange.read),
                1 => (spec.bs.write, &spec.bssplit.write, spec.bsrange.write),
                _ => (spec.bs.trim, &spec.bssplit.trim, spec.bsrange.trim),
            };
            if active[i] {
                SizeChooser::new(bs, split, range)
            } else {
                Ok(SizeChooser::Fixed(SECTOR))
            }
        };
        let sizes = [mk(0)?, mk(1)?, mk(2)?];
        let align = (0..3)
            .filter(|&i| active[i])
            .map(|i| sizes[i].min())
            .min()
            .unwrap_or(SECTOR);
        let len = raw_len - raw_len % align;
        if len == 0 {
            return Err(GeneratorError::RegionTooSmall {
                region_len: raw_len,
                block_size: align,
            });
        }
        if !spec.rw_seq_add.unsigned_abs().is_multiple_of(SECTOR) {
            return Err(GeneratorError::BadSeqAdd(spec.rw_seq_add));
        }
        let slots = len / align;

        let key = match spec.randseed {
            Some(r) => mix64(mix64(seed) ^ mix64(r ^ 0x7261_6e64_7365_6564)),
            None => mix64(seed),
        };
        let stream = |s: u64| {
            let mut r = ChaCha8Rng::seed_from_u64(key);
            r.set_stream(s);
            r
        };
        let rng_dir = stream(1);
        let rng_bs = stream(2);
        let mut rng_off = stream(3);

        let random = mode.is_random();
        let picker = if random {
            Picker::new(spec, slots, align, &mut rng_off)?
        } else {
            Picker::Uniform
        };
        let dirs = match mode {
            RwMode::Read | RwMode::RandRead => DirChooser::Fixed(IoDir::Read),
            RwMode::Write | RwMode::RandWrite => DirChooser::Fixed(IoDir::Write),
            RwMode::Trim | RwMode::RandTrim => DirChooser::Fixed(IoDir::Trim),
            RwMode::ReadWrite | RwMode::RandRW => DirChooser::Mixed(spec.rwmixread.min(100)),
        };
        Ok(IoGenerator {
            start,
            len,
            align,
            slots,
            random,
            seq_n: if random {
                spec.rw_sequencer_n.max(1)
            } else {
                1
            },
            seq_add: if random { 0 } else { spec.rw_seq_add },
            identical: spec.rw_sequencer == RwSequencer::Identical,
            dirs,
            sizes,
            last_start: [None; 3],
            last_end: [None; 3],
            issued: 0,
            picker,
            rng_dir,
            rng_bs,
            rng_off,
        })
    }

    /// Bytes covered by one pass over the region: the region length rounded
    /// down to the block alignment.
    pub fn bytes_per_loop(&self) -> u64 {
        self.len
    }

    /// The region actually used, `(start, len)` in bytes.
    pub fn region(&self) -> (u64, u64) {
        (self.start, self.len)
    }

    /// Alignment of random offsets (smallest block size of the active
    /// directions) and size of one random-map slot.
    pub fn block_align(&self) -> u64 {
        self.align
    }

    /// Number of slots (`bytes_per_loop / block_align`): the I/Os of one
    /// random-map pass.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// The next I/O.
    pub fn next_io(&mut self) -> IoUnit {
        let dir = match self.dirs {
            DirChooser::Fixed(d) => d,
            DirChooser::Mixed(pct) => {
                if self.rng_dir.gen_range(0..100u8) < pct {
                    IoDir::Read
                } else {
                    IoDir::Write
                }
            }
        };
        let d = dir.index();
        let want = self.sizes[d].pick(&mut self.rng_bs).min(self.len);
        let (off, len) = if self.random {
            self.random_offset(d, want)
        } else {
            self.seq_offset(d, want)
        };
        debug_assert!(off + len <= self.len && len > 0 && len.is_multiple_of(SECTOR));
        self.last_start[d] = Some(off);
        self.last_end[d] = Some(off + len);
        self.issued += 1;
        IoUnit {
            dir,
            offset: self.start + off,
            len: len as u32,
        }
    }

    /// Sequential modes: `(relative offset, len)`.
    fn seq_offset(&self, d: usize, len: u64) -> (u64, u64) {
        let mut pos = match self.last_end[d] {
            None => 0,
            Some(end) => {
                let p = end % self.len;
                (i128::from(p) + i128::from(self.seq_add)).rem_euclid(i128::from(self.len)) as u64
            }
        };
        if pos + len > self.len {
            pos = 0;
        }
        (pos, len)
    }

    /// Random modes: `(relative offset, len)`.
    fn random_offset(&mut self, d: usize, len: u64) -> (u64, u64) {
        let fresh = self.seq_n <= 1 || self.issued.is_multiple_of(self.seq_n);
        if !fresh {
            let cont = if self.identical {
                self.last_start[d]
            } else {
                self.last_end[d]
            };
            if let Some(off) = cont.filter(|&o| o < self.len) {
                return (off, len.min(self.len - off));
            }
        }
        let slot = self.picker.next(self.slots, &mut self.rng_off);
        let off = slot * self.align;
        (off, len.min(self.len - off))
    }
}
