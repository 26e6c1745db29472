//! Synthetic block-trace generator: reproduces a workload *profile* (read
//! ratio, sequential share, average request sizes) plus a locality knob
//! (hot/cold split) and an overwrite share, as stand-ins for traces that are
//! not public (the workload table of Lee, Choi and Hong, "On-Demand Garbage
//! Collection Algorithm with Prioritized Victim Blocks for SSDs",
//! Electronics 12(9):2142, 2023; the stand-ins are ours, see docs/traces.md).
//!
//! Every trace produced from [`PROFILES`] is a **synthetic stand-in**: it
//! matches the published read ratio, sequential share and average sizes, but
//! its skew and overwrite knobs are guesses (see [`PROFILES`]), not measured
//! from the original traces.
//!
//! # Model
//!
//! One request stream. Sequential requests come in *runs*: a random
//! request followed by sequential ones that continue it, in its direction.
//!
//! 1. **Run or not**: whether a request continues the run of the previous
//!    one is a two-state chain, P(sequential | previous sequential) =
//!    `1 − 1 / seq_run` and P(sequential | previous random) chosen so that
//!    the stationary share is `seq_pct / 100`; runs then last `seq_run`
//!    sequential requests on average. `seq_run = 1 / (1 − seq)` is the
//!    same chance for every request (independent draws). The first request
//!    is never sequential.
//! 2. **Direction**: a sequential request keeps the direction of its run;
//!    any other request is a read with probability `read_pct / 100`.
//! 3. **Size**: a multiple of 4 KiB, `pages = 1 + G` with `G` geometric, so
//!    that the mean is exactly `avg_*_kb / 4` pages (an average of exactly
//!    4 KB gives only 4 KiB requests). A direction with a non-zero share
//!    needs an average ≥ 4 KB. Sizes are capped at the span and at
//!    `u32::MAX` bytes (negligible for realistic spans).
//! 4. **Sequential**: starts where the previous request ended; a request
//!    that would cross the span end starts at 0 instead (wrap).
//! 5. **The append log** (`log_share > 0`): the last `log_share` of the
//!    span is a log. A run of writes starts where the log's previous run
//!    stopped (one page on, if the previous request ended exactly there)
//!    and wraps at the log's end, so the log is rewritten in the order it
//!    was written, as a database's write-ahead log or a log-structured
//!    store's segments are. What the log held a lap ago becomes invalid
//!    all at once.
//! 6. **Random** otherwise: a random *write* is, with probability
//!    `overwrite_pct / 100`, an exact rewrite (same offset and length) of an
//!    extent picked uniformly from a ring of the last [`OVERWRITE_RING`]
//!    writes. Otherwise (and for all random reads) the start page is uniform
//!    in the hot region `[0, hot_share · span)` with probability
//!    `hot_access`, else uniform in the cold rest; an extent that would
//!    cross the span end is moved back to end at the span end. Random
//!    requests never start exactly where the previous one ended (redrawn),
//!    so the measured sequential share ([`TraceStats::of_records`]) is the
//!    configured one.
//!
//!    With `hot_drift > 0` the hot region slides: after each write of `n`
//!    pages its start moves `hot_drift · n` pages on (wrapping at the span
//!    end), and the cold rest is the span outside it. Pages written while
//!    hot keep their last version once the region has moved past them.
//! 7. **Time**: Poisson arrivals at `iops` (exponential inter-arrival times);
//!    the first request is at time 0.
//!
//! The generator is deterministic for a seed (ChaCha8) and uses O(1) memory
//! apart from the bounded overwrite ring.

use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::formats::Format;
use crate::types::{TraceOp, TraceRecord};
use crate::write::{write_header, write_record};

mod profiles;
mod stats;

pub use profiles::{profile, Profile, PROFILES};
use stats::StatsAcc;
pub use stats::TraceStats;

/// Request granularity: every offset and length is a multiple of this.
pub const PAGE_BYTES: u64 = 4096;

/// Number of recent write extents kept for overwrites.
pub const OVERWRITE_RING: usize = 1024;

/// Generator options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthOptions {
    /// Number of requests to generate.
    pub requests: u64,
    /// Address space in bytes; rounded down to a multiple of 4 KiB.
    pub span_bytes: u64,
    /// RNG seed.
    pub seed: u64,
}

/// Size sampler: `1 + Geometric` pages with a given mean.
#[derive(Debug, Clone, Copy)]
struct SizeDist {
    /// `ln(q)` of the geometric tail, or 0 for "always one page".
    ln_q: f64,
}

impl SizeDist {
    fn new(avg_kb: f64) -> SizeDist {
        let mean_pages = avg_kb * 1024.0 / PAGE_BYTES as f64;
        // mean of 1 + G (G ~ Geom(q) on 0, 1, …) is 1 / (1 - q).
        let q = 1.0 - 1.0 / mean_pages;
        SizeDist {
            ln_q: if q > 0.0 { q.ln() } else { 0.0 },
        }
    }

    fn sample(&self, rng: &mut ChaCha8Rng, max_pages: u64) -> u64 {
        let u: f64 = rng.gen();
        if self.ln_q == 0.0 {
            return 1;
        }
        // P(G >= k) = q^k  <=>  G = floor(ln(1 - u) / ln q).
        let g = ((1.0 - u).ln() / self.ln_q).floor();
        let g = if g.is_finite() && g >= 0.0 {
            g as u64
        } else {
            0
        };
        (1 + g).min(max_pages)
    }
}

/// Deterministic synthetic trace: an iterator of [`TraceRecord`]s.
#[derive(Debug, Clone)]
pub struct Synth {
    rng: ChaCha8Rng,
    p: Profile,
    read_size: SizeDist,
    write_size: SizeDist,
    remaining: u64,
    index: u64,
    /// Span in pages.
    total_pages: u64,
    hot_pages: u64,
    /// Where the hot region starts (pages; moves with `hot_drift`).
    hot_base: f64,
    max_pages: u64,
    /// End (page) of the previous request.
    prev_end: Option<u64>,
    /// Whether the previous request was a write (a run keeps its
    /// direction).
    prev_write: bool,
    /// Whether the next request continues a run.
    next_seq: bool,
    /// P(sequential | previous sequential), P(sequential | previous random).
    stay_seq: f64,
    start_seq: f64,
    /// The append log `[log_start, total_pages)` (empty when `log_start ==
    /// total_pages`) and where its next run of writes starts.
    log_start: u64,
    log_next: u64,
    /// Whether the current run writes the log (it wraps inside it).
    in_log: bool,
    /// Mean inter-arrival time in ns.
    mean_gap_ns: f64,
    clock_ns: f64,
    /// Recent write extents `(start page, pages)`, FIFO.
    ring: Vec<(u64, u64)>,
    ring_head: usize,
}

fn check_pct(name: &str, what: &str, v: f64) -> Result<(), String> {
    if v.is_finite() && (0.0..=100.0).contains(&v) {
        Ok(())
    } else {
        Err(format!("profile {name}: {what} = {v} is not in 0..=100"))
    }
}

/// The run chain of a profile: P(sequential | previous sequential) and
/// P(sequential | previous random), so that the stationary sequential share
/// is `seq_pct` and a run lasts `seq_run` sequential requests on average.
fn run_chain(p: &Profile) -> Result<(f64, f64), String> {
    let q = p.seq_pct / 100.0;
    if q <= 0.0 {
        return Ok((0.0, 0.0));
    }
    if q >= 1.0 {
        return Ok((1.0, 1.0));
    }
    let shortest = p.shortest_seq_run();
    if !(p.seq_run.is_finite() && p.seq_run >= shortest) {
        return Err(format!(
            "profile {}: seq_run = {} must be at least {shortest:.4} (1, and seq / (1 - seq) \
             for a sequential share of {}%)",
            p.name, p.seq_run, p.seq_pct
        ));
    }
    let stay = 1.0 - 1.0 / p.seq_run;
    let start = q / ((1.0 - q) * p.seq_run);
    Ok((stay, start.min(1.0)))
}

/// Redraws of a random extent that would start where the previous request
/// ended (only exhausted for spans of a few pages).
const REDRAWS: usize = 16;

impl Synth {
    /// Checks the profile and options and seeds the generator.
    pub fn new(p: &Profile, o: &SynthOptions) -> Result<Synth, String> {
        let n = p.name;
        check_pct(n, "read_pct", p.read_pct)?;
        check_pct(n, "seq_pct", p.seq_pct)?;
        check_pct(n, "overwrite_pct", p.overwrite_pct)?;
        for (what, pct, avg) in [
            ("read", p.read_pct, p.avg_read_kb),
            ("write", 100.0 - p.read_pct, p.avg_write_kb),
        ] {
            if !avg.is_finite() || avg < 0.0 {
                return Err(format!(
                    "profile {n}: average {what} size {avg} KB is invalid"
                ));
            }
            if pct > 0.0 && avg < 4.0 {
                return Err(format!(
                    "profile {n}: {pct}% {what}s need an average {what} size >= 4 KB \
                     (sizes are multiples of 4 KiB), got {avg} KB"
                ));
            }
        }
        if !(p.hot_share.is_finite() && p.hot_share > 0.0 && p.hot_share <= 1.0) {
            return Err(format!(
                "profile {n}: hot_share = {} is not in (0, 1]",
                p.hot_share
            ));
        }
        if !(p.hot_access.is_finite() && (0.0..=1.0).contains(&p.hot_access)) {
            return Err(format!(
                "profile {n}: hot_access = {} is not in [0, 1]",
                p.hot_access
            ));
        }
        let (stay_seq, start_seq) = run_chain(p)?;
        if !(p.log_share.is_finite() && (0.0..1.0).contains(&p.log_share)) {
            return Err(format!(
                "profile {n}: log_share = {} is not in [0, 1)",
                p.log_share
            ));
        }
        if !(p.hot_drift.is_finite() && (0.0..=1.0).contains(&p.hot_drift)) {
            return Err(format!(
                "profile {n}: hot_drift = {} is not in [0, 1]",
                p.hot_drift
            ));
        }
        if !(p.iops.is_finite() && p.iops > 0.0) {
            return Err(format!("profile {n}: iops = {} must be > 0", p.iops));
        }
        // The arrival times are a sum of exponential gaps: the mean plus ten
        // standard deviations (and room for a few long gaps) must stay
        // within the longest time a trace may carry.
        let n_req = o.requests as f64;
        let span_ns = (n_req + 10.0 * n_req.sqrt() + 50.0) * 1e9 / p.iops;
        if span_ns > crate::MAX_TIME_NS as f64 {
            return Err(format!(
                "profile {n}: iops = {} for {} requests spans about {:.3e} s, beyond the \
                 longest time a trace may carry (100 years); raise the IOPS or lower the count",
                p.iops,
                o.requests,
                n_req / p.iops
            ));
        }
        let total_pages = o.span_bytes / PAGE_BYTES;
        if total_pages == 0 {
            return Err(format!(
                "span of {} bytes is smaller than one 4 KiB page",
                o.span_bytes
            ));
        }
        let hot_pages = ((total_pages as f64 * p.hot_share).round() as u64).clamp(1, total_pages);
        let log_pages = ((total_pages as f64 * p.log_share).round() as u64).min(total_pages - 1);
        let log_start = total_pages - log_pages;
        Ok(Synth {
            rng: ChaCha8Rng::seed_from_u64(o.seed),
            p: *p,
            read_size: SizeDist::new(p.avg_read_kb),
            write_size: SizeDist::new(p.avg_write_kb),
            remaining: o.requests,
            index: 0,
            total_pages,
            hot_pages,
            hot_base: 0.0,
            max_pages: total_pages.min(u32::MAX as u64 / PAGE_BYTES),
            prev_end: None,
            prev_write: false,
            next_seq: false,
            stay_seq,
            start_seq,
            log_start,
            log_next: log_start,
            in_log: false,
            mean_gap_ns: 1e9 / p.iops,
            clock_ns: 0.0,
            ring: Vec::new(),
            ring_head: 0,
        })
    }

    /// The profile this generator follows.
    pub fn profile(&self) -> &Profile {
        &self.p
    }

    /// Span actually used, in bytes (a multiple of 4 KiB).
    pub fn span_bytes(&self) -> u64 {
        self.total_pages * PAGE_BYTES
    }

    /// Hot region `[0, hot_bytes)`, in bytes.
    pub fn hot_bytes(&self) -> u64 {
        self.hot_pages * PAGE_BYTES
    }

    fn hot_cold_start(&mut self, pages: u64) -> u64 {
        let cold_pages = self.total_pages - self.hot_pages;
        let from_hot_start = if cold_pages == 0 || self.rng.gen_bool(self.p.hot_access) {
            self.rng.gen_range(0..self.hot_pages)
        } else {
            self.hot_pages + self.rng.gen_range(0..cold_pages)
        };
        // `hot_base` is below `total_pages` (see `drift`).
        let start = (self.hot_base as u64 + from_hot_start) % self.total_pages;
        start.min(self.total_pages - pages)
    }

    /// Moves the hot region on after a write of `pages` pages.
    fn drift(&mut self, pages: u64) {
        if self.p.hot_drift > 0.0 {
            let total = self.total_pages as f64;
            self.hot_base = (self.hot_base + self.p.hot_drift * pages as f64) % total;
        }
    }

    /// A random extent `(start, pages)` that does not start at `prev_end`
    /// (unless the span leaves no choice).
    fn random_extent(&mut self, pages: u64, write: bool) -> (u64, u64) {
        let avoid = self.prev_end;
        let overwrite =
            write && !self.ring.is_empty() && self.rng.gen_bool(self.p.overwrite_pct / 100.0);
        if overwrite {
            for _ in 0..REDRAWS {
                let e = self.ring[self.rng.gen_range(0..self.ring.len())];
                if Some(e.0) != avoid {
                    return e;
                }
            }
        }
        let mut start = 0;
        for _ in 0..REDRAWS {
            start = self.hot_cold_start(pages);
            if Some(start) != avoid {
                break;
            }
        }
        (start, pages)
    }

    /// The next request of a run: where the previous one ended, wrapping
    /// to the start of the log (a run of log writes) or of the span.
    fn continue_run(&self, pages: u64) -> (u64, u64) {
        let end = self.prev_end.expect("a run follows a request");
        if end + pages <= self.total_pages {
            (end, pages)
        } else if self.in_log {
            (self.log_start.min(self.total_pages - pages), pages)
        } else {
            (0, pages)
        }
    }

    /// Where a run of writes into the log starts: the log's cursor, one
    /// page further if the previous request ended exactly there (so that
    /// the run's first request stays a random one, as the sequential
    /// share counts it).
    fn log_anchor(&self, pages: u64) -> u64 {
        let mut start = self.log_next;
        if Some(start) == self.prev_end {
            start += 1;
        }
        if start + pages > self.total_pages {
            start = self.log_start.min(self.total_pages - pages);
        }
        start
    }

    fn remember_write(&mut self, e: (u64, u64)) {
        if self.ring.len() < OVERWRITE_RING {
            self.ring.push(e);
        } else {
            self.ring[self.ring_head] = e;
            self.ring_head = (self.ring_head + 1) % OVERWRITE_RING;
        }
    }
}

impl Iterator for Synth {
    type Item = TraceRecord;

    fn next(&mut self) -> Option<TraceRecord> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        self.index += 1;

        if self.index > 1 {
            let u: f64 = self.rng.gen();
            self.clock_ns += -(1.0 - u).ln() * self.mean_gap_ns;
        }
        // A run keeps its direction; whether the next request continues
        // it is drawn now, so that the request that starts a run of
        // writes can be placed at the log's cursor.
        let seq = self.next_seq && self.prev_end.is_some();
        let p_next = if seq { self.stay_seq } else { self.start_seq };
        self.next_seq = self.rng.gen_bool(p_next);
        let read = if seq {
            !self.prev_write
        } else {
            self.rng.gen_bool(self.p.read_pct / 100.0)
        };
        let pages = if read {
            self.read_size.sample(&mut self.rng, self.max_pages)
        } else {
            self.write_size.sample(&mut self.rng, self.max_pages)
        };
        let (start, pages) = if seq {
            self.continue_run(pages)
        } else {
            self.in_log = !read && self.next_seq && self.log_start < self.total_pages;
            if self.in_log {
                (self.log_anchor(pages), pages)
            } else {
                self.random_extent(pages, !read)
            }
        };
        if self.in_log {
            // The next run's start wraps there if it would cross the end.
            self.log_next = start + pages;
        }
        self.prev_end = Some(start + pages);
        self.prev_write = !read;
        if !read {
            self.remember_write((start, pages));
            self.drift(pages);
        }
        Some(TraceRecord {
            // Within MAX_TIME_NS by the check in `new` (to 10 sigma).
            time_ns: (self.clock_ns as u64).min(crate::MAX_TIME_NS),
            op: if read { TraceOp::Read } else { TraceOp::Write },
            offset: start * PAGE_BYTES,
            len: (pages * PAGE_BYTES) as u32,
            // The application profiles are issued as direct I/O.
            sync: true,
            line: self.index,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match usize::try_from(self.remaining) {
            Ok(n) => (n, Some(n)),
            Err(_) => (usize::MAX, None),
        }
    }
}

/// Generates `o.requests` requests of profile `p` and writes them as
/// `format` (header included), returning the stats of what was generated.
/// Invalid profiles or options are an `InvalidInput` error. Writes line by
/// line: pass a buffered writer.
pub fn write_trace(
    w: &mut impl Write,
    format: Format,
    p: &Profile,
    o: &SynthOptions,
) -> io::Result<TraceStats> {
    let synth = Synth::new(p, o).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    write_header(w, format)?;
    let mut acc = StatsAcc::default();
    for rec in synth {
        write_record(w, format, &rec)?;
        acc.push(&rec);
    }
    Ok(acc.stats)
}
