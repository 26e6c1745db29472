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
//!   at the end of the previous plus `rw_seq_add` bytes, modulo the region
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

use crate::spec::{JobSpec, RandomDistribution, RwMode, RwSequencer};

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
    BadSeqAdd(u64),
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
// Mixing and permutations

/// SplitMix64 finaliser: a bijective 64-bit mix.
fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const FEISTEL_ROUNDS: usize = 4;

/// A bijection of `[0, n)`: a balanced Feistel network over `[0, 4^h)` with
/// `4^h ≥ n`, restricted to `[0, n)` by cycle walking (under 4 steps on
/// average since `4^h < 4n`).
#[derive(Clone, Debug)]
struct Perm {
    n: u64,
    half_bits: u32,
    keys: [u64; FEISTEL_ROUNDS],
}

impl Perm {
    fn new(n: u64, key: u64) -> Perm {
        debug_assert!(n >= 1);
        // Bits for [0, n): ceil(log2(n)), at least 2, rounded up to even.
        let bits = (64 - (n.max(2) - 1).leading_zeros()).max(2);
        let bits = bits + (bits & 1);
        let mut keys = [0u64; FEISTEL_ROUNDS];
        let mut k = key;
        for slot in &mut keys {
            k = mix64(k);
            *slot = k;
        }
        Perm {
            n,
            half_bits: bits / 2,
            keys,
        }
    }

    fn feistel(&self, x: u64) -> u64 {
        let h = self.half_bits;
        let mask = (1u64 << h) - 1;
        let mut l = x >> h;
        let mut r = x & mask;
        for &k in &self.keys {
            let f = mix64(r ^ k) & mask;
            let nl = r;
            r = l ^ f;
            l = nl;
        }
        (l << h) | r
    }

    /// Image of `x < n`.
    fn apply(&self, x: u64) -> u64 {
        let mut y = self.feistel(x);
        while y >= self.n {
            y = self.feistel(y);
        }
        y
    }
}

// ---------------------------------------------------------------------------
// Zipf: rejection-inversion (Hörmann & Derflinger 1996)

/// `ln(1+x)/x`, continuous at 0.
fn helper1(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

/// `(e^x − 1)/x`, continuous at 0.
fn helper2(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

/// Zipf over ranks `1..=n` with `P(k) ∝ k^−s`.
#[derive(Clone, Debug)]
struct Zipf {
    n: u64,
    s: f64,
    h_int_x1: f64,
    h_int_n: f64,
    s_cut: f64,
}

impl Zipf {
    fn new(n: u64, s: f64) -> Zipf {
        let mut z = Zipf {
            n,
            s,
            h_int_x1: 0.0,
            h_int_n: 0.0,
            s_cut: 0.0,
        };
        z.h_int_x1 = z.h_int(1.5) - 1.0;
        z.h_int_n = z.h_int(n as f64 + 0.5);
        z.s_cut = 2.0 - z.h_int_inv(z.h_int(2.5) - z.h(2.0));
        z
    }

    fn h(&self, x: f64) -> f64 {
        (-self.s * x.ln()).exp()
    }

    /// Antiderivative of `h`, `(x^(1−s) − 1)/(1−s)`, written to stay exact
    /// near s = 1.
    fn h_int(&self, x: f64) -> f64 {
        let lx = x.ln();
        helper2((1.0 - self.s) * lx) * lx
    }

    fn h_int_inv(&self, x: f64) -> f64 {
        let t = (x * (1.0 - self.s)).max(-1.0);
        (helper1(t) * x).exp()
    }

    fn sample(&self, rng: &mut ChaCha8Rng) -> u64 {
        let mut k = 1;
        for _ in 0..64 {
            let u: f64 = self.h_int_n + rng.gen::<f64>() * (self.h_int_x1 - self.h_int_n);
            let x = self.h_int_inv(u);
            let kf = (x + 0.5).floor();
            k = if kf.is_nan() || kf < 1.0 {
                1
            } else if kf >= self.n as f64 {
                self.n
            } else {
                kf as u64
            };
            let kf = k as f64;
            if kf - x <= self.s_cut || u >= self.h_int(kf + 0.5) - self.h(kf) {
                return k;
            }
        }
        k
    }
}

// ---------------------------------------------------------------------------
// Block sizes

#[derive(Clone, Debug)]
enum SizeChooser {
    Fixed(u64),
    /// Sizes with cumulative weights.
    Split {
        sizes: Vec<u64>,
        cum: Vec<u64>,
    },
    /// Multiples of `min`: `min + k·min`, `k` uniform in `0..=steps`.
    Range {
        min: u64,
        steps: u64,
    },
}

fn check_bs(b: u64) -> Result<u64, GeneratorError> {
    if b == 0 || !b.is_multiple_of(SECTOR) || b > MAX_IO_LEN {
        Err(GeneratorError::BadBlockSize(b))
    } else {
        Ok(b)
    }
}

impl SizeChooser {
    fn new(
        bs: u64,
        split: &[(u64, u32)],
        range: Option<(u64, u64)>,
    ) -> Result<SizeChooser, GeneratorError> {
        if !split.is_empty() {
            let mut sizes = Vec::with_capacity(split.len());
            let mut weights = Vec::with_capacity(split.len());
            for &(b, pct) in split {
                sizes.push(check_bs(b)?);
                weights.push(u64::from(pct));
            }
            if weights.iter().all(|&w| w == 0) {
                weights.iter_mut().for_each(|w| *w = 1);
            }
            let cum = weights
                .iter()
                .scan(0u64, |acc, &w| {
                    *acc += w;
                    Some(*acc)
                })
                .collect();
            return Ok(SizeChooser::Split { sizes, cum });
        }
        if let Some((min, max)) = range {
            check_bs(min)?;
            check_bs(max)?;
            if min > max {
                return Err(GeneratorError::BadBlockRange { min, max });
            }
            return Ok(SizeChooser::Range {
                min,
                steps: (max - min) / min,
            });
        }
        Ok(SizeChooser::Fixed(check_bs(bs)?))
    }

    fn min(&self) -> u64 {
        match self {
            SizeChooser::Fixed(b) => *b,
            SizeChooser::Split { sizes, .. } => sizes.iter().copied().min().unwrap_or(SECTOR),
            SizeChooser::Range { min, .. } => *min,
        }
    }

    fn pick(&self, rng: &mut ChaCha8Rng) -> u64 {
        match self {
            SizeChooser::Fixed(b) => *b,
            SizeChooser::Split { sizes, cum } => {
                let total = cum.last().copied().unwrap_or(1).max(1);
                let v = rng.gen_range(0..total);
                let i = cum.partition_point(|&c| c <= v).min(sizes.len() - 1);
                sizes[i]
            }
            SizeChooser::Range { min, steps } => {
                let k = if *steps == 0 {
                    0
                } else {
                    rng.gen_range(0..=*steps)
                };
                min + k * min
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Random slot pickers

#[derive(Clone, Debug)]
enum Picker {
    /// Random map: a permutation of the slots per pass.
    Map {
        perm: Perm,
        idx: u64,
    },
    /// Independent uniform draws (`norandommap`).
    Uniform,
    Zipf {
        zipf: Zipf,
        scatter: Perm,
        shift: u64,
    },
    Pareto {
        pow: f64,
        scatter: Perm,
        shift: u64,
    },
    Normal {
        mean: f64,
        sd: f64,
    },
    /// Zones as `(first slot, slot count)` with cumulative access weights.
    Zoned {
        zones: Vec<(u64, u64)>,
        cum: Vec<u64>,
    },
}

fn check_center(c: Option<f64>) -> Result<Option<f64>, GeneratorError> {
    match c {
        Some(c) if !(0.0..=1.0).contains(&c) => Err(GeneratorError::BadDistribution(format!(
            "center {c} is not within [0, 1]"
        ))),
        other => Ok(other),
    }
}

fn shift_for(center: Option<f64>, n: u64, rng: &mut ChaCha8Rng) -> u64 {
    match center {
        Some(c) => ((c * n as f64) as u64).min(n - 1),
        None => rng.gen_range(0..n),
    }
}

/// Zones from `(access %, start slot, end slot)` triples (unclamped).
fn build_zones(n: u64, bounds: Vec<(u32, u64, u64)>) -> Picker {
    let mut zones = Vec::new();
    let mut cum = Vec::new();
    let mut acc = 0u64;
    for (access, s, e) in bounds {
        let s = s.min(n);
        let e = e.min(n);
        let count = e.saturating_sub(s);
        if count == 0 || access == 0 {
            continue;
        }
        acc += u64::from(access);
        zones.push((s, count));
        cum.push(acc);
    }
    if zones.is_empty() {
        Picker::Uniform
    } else {
        Picker::Zoned { zones, cum }
    }
}

impl Picker {
    fn new(
        spec: &JobSpec,
        n: u64,
        align: u64,
        rng: &mut ChaCha8Rng,
    ) -> Result<Picker, GeneratorError> {
        let center = check_center(spec.random_center)?;
        let bad = |m: String| Err(GeneratorError::BadDistribution(m));
        Ok(match &spec.random_distribution {
            RandomDistribution::Random => {
                if spec.norandommap {
                    Picker::Uniform
                } else {
                    Picker::Map {
                        perm: Perm::new(n, rng.gen()),
                        idx: 0,
                    }
                }
            }
            &RandomDistribution::Zipf(theta) => {
                if !(theta.is_finite() && theta > 0.0) {
                    return bad(format!("zipf theta {theta} must be > 0"));
                }
                Picker::Zipf {
                    zipf: Zipf::new(n, theta),
                    scatter: Perm::new(n, SCATTER_KEY),
                    shift: shift_for(center, n, rng),
                }
            }
            &RandomDistribution::Pareto(h) => {
                if !(h > 0.0 && h < 1.0) {
                    return bad(format!("pareto power {h} must be within (0, 1)"));
                }
                Picker::Pareto {
                    pow: h.ln() / (1.0 - h).ln(),
                    scatter: Perm::new(n, SCATTER_KEY),
                    shift: shift_for(center, n, rng),
                }
            }
            &RandomDistribution::Normal(sigma) => {
                if !(sigma.is_finite() && sigma > 0.0) {
                    return bad(format!("normal deviation {sigma} must be > 0"));
                }
                Picker::Normal {
                    mean: center.unwrap_or(0.5) * n as f64,
                    sd: sigma / 100.0 * n as f64,
                }
            }
            RandomDistribution::Zoned(zs) => {
                let access: u64 = zs.iter().map(|&(a, _)| u64::from(a)).sum();
                let range: u64 = zs.iter().map(|&(_, r)| u64::from(r)).sum();
                if access != 100 || range != 100 {
                    return Err(GeneratorError::ZonedPercentages {
                        access,
                        range: Some(range),
                    });
                }
                let mut cum_pct = 0u64;
                let bounds = zs.iter().map(|&(a, r)| {
                    let s = (u128::from(cum_pct) * u128::from(n) / 100) as u64;
                    cum_pct += u64::from(r);
                    let e = (u128::from(cum_pct) * u128::from(n) / 100) as u64;
                    (a, s, e)
                });
                build_zones(n, bounds.collect())
            }
            RandomDistribution::ZonedAbs(zs) => {
                let access: u64 = zs.iter().map(|&(a, _)| u64::from(a)).sum();
                if access != 100 {
                    return Err(GeneratorError::ZonedPercentages {
                        access,
                        range: None,
                    });
                }
                let mut cum = 0u64;
                let bounds = zs.iter().map(|&(a, bytes)| {
                    let s = cum / align;
                    cum = cum.saturating_add(bytes);
                    (a, s, cum / align)
                });
                build_zones(n, bounds.collect())
            }
        })
    }

    fn next(&mut self, n: u64, rng: &mut ChaCha8Rng) -> u64 {
        match self {
            Picker::Map { perm, idx } => {
                if *idx == n {
                    *perm = Perm::new(n, rng.gen());
                    *idx = 0;
                }
                let s = perm.apply(*idx);
                *idx += 1;
                s
            }
            Picker::Uniform => rng.gen_range(0..n),
            Picker::Zipf {
                zipf,
                scatter,
                shift,
            } => {
                let rank = zipf.sample(rng) - 1;
                place(rank, scatter, *shift, n)
            }
            Picker::Pareto {
                pow,
                scatter,
                shift,
            } => {
                let u: f64 = rng.gen();
                let rank = (((n - 1) as f64) * u.powf(*pow)) as u64;
                place(rank.min(n - 1), scatter, *shift, n)
            }
            Picker::Normal { mean, sd } => {
                let nf = n as f64;
                let mut x = *mean;
                for _ in 0..32 {
                    // Box–Muller; u1 in (0, 1].
                    let u1 = 1.0 - rng.gen::<f64>();
                    let u2: f64 = rng.gen();
                    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    x = *mean + z * *sd;
                    if x >= 0.0 && x < nf {
                        break;
                    }
                }
                if x.is_nan() || x < 0.0 {
                    0
                } else {
                    (x as u64).min(n - 1)
                }
            }
            Picker::Zoned { zones, cum } => {
                let total = cum.last().copied().unwrap_or(1);
                let v = rng.gen_range(0..total);
                let i = cum.partition_point(|&c| c <= v).min(zones.len() - 1);
                let (start, count) = zones[i];
                start + rng.gen_range(0..count)
            }
        }
    }
}

/// Fixed key of the rank-scattering bijection (fio's hash is fixed too).
const SCATTER_KEY: u64 = 0x5353_444c_4142_2d7a; // "SSDLAB-z"

fn place(rank: u64, scatter: &Perm, shift: u64, n: u64) -> u64 {
    let base = scatter.apply(0);
    // All terms < n ≤ 2^55, no overflow.
    (scatter.apply(rank) + (n - base) + shift) % n
}

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
    seq_add: u64,
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
        if !spec.rw_seq_add.is_multiple_of(SECTOR) {
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
                ((u128::from(p) + u128::from(self.seq_add)) % u128::from(self.len)) as u64
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
