//! A closed-loop load: `qd` commands always outstanding, each a one-page
//! command at a uniformly random logical page of `[0, span)`; a new command
//! is submitted the moment one completes.

use crate::engine::{EventQueue, Ns};
use crate::ssd::device::{DevEvent, IoCommand, IoOp, SimSsd};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

pub struct ClosedLoop {
    pub op: IoOp,
    pub qd: u32,
    pub requests: u64,
    pub span: u32,
    pub seed: u64,
}

/// Simulated figures of one load (deterministic).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LoadFigures {
    pub requests: u64,
    pub sim_time_ms: f64,
    pub iops: f64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

pub struct LoadResult {
    pub figures: LoadFigures,
    pub histogram: Histogram<u64>,
    /// Events processed (for speed reports).
    pub events: u64,
}

impl ClosedLoop {
    /// Runs the load on `ssd`, driven by `q`. Events still pending when the
    /// last request completes (flushes, GC) stay in `q` for the next run.
    pub fn run(&self, ssd: &mut SimSsd, q: &mut EventQueue<DevEvent>) -> LoadResult {
        self.run_with(ssd, q, |_, _| {})
    }

    /// Runs the load; `each` is called after every completion with the count
    /// so far (tests use it to check invariants mid-run).
    pub fn run_with(
        &self,
        ssd: &mut SimSsd,
        q: &mut EventQueue<DevEvent>,
        mut each: impl FnMut(&mut SimSsd, u64),
    ) -> LoadResult {
        let mut rng = ChaCha8Rng::seed_from_u64(self.seed);
        let mut hist = latency_histogram();
        let mut submitted_at: Vec<Ns> = vec![0; self.qd as usize];
        let start = q.now();
        let mut issued = 0u64;
        let mut done = 0u64;
        let mut events = 0u64;
        let submit = |ssd: &mut SimSsd,
                      q: &mut EventQueue<DevEvent>,
                      tag: u32,
                      now: Ns,
                      rng: &mut ChaCha8Rng| {
            let cmd = IoCommand {
                id: tag as u64,
                op: self.op,
                lpa: rng.gen_range(0..self.span),
                pages: 1,
                sq: 0,
            };
            ssd.submit(cmd, now, q).expect("commands inside the span");
        };
        for tag in 0..self.qd.min(self.requests as u32) {
            submitted_at[tag as usize] = start;
            submit(ssd, q, tag, start, &mut rng);
            issued += 1;
        }
        let mut completions = Vec::new();
        while let Some((now, ev)) = q.pop() {
            events += 1;
            ssd.handle(ev, now, q);
            if ssd.completions.is_empty() {
                continue;
            }
            std::mem::swap(&mut completions, &mut ssd.completions);
            for c in completions.drain(..) {
                let tag = c.id as u32;
                hist.saturating_record(c.time - submitted_at[tag as usize]);
                done += 1;
                each(ssd, done);
                if issued < self.requests {
                    submitted_at[tag as usize] = now;
                    submit(ssd, q, tag, now, &mut rng);
                    issued += 1;
                }
            }
            if done == self.requests {
                break;
            }
        }
        let elapsed = q.now() - start;
        LoadResult {
            figures: figures(&hist, done, elapsed),
            histogram: hist,
            events,
        }
    }
}

/// Latencies from 1 ns to one simulated hour at 3 significant digits.
pub fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid bounds")
}

fn figures(h: &Histogram<u64>, requests: u64, elapsed: Ns) -> LoadFigures {
    let us = |ns: u64| ns as f64 / 1000.0;
    LoadFigures {
        requests,
        sim_time_ms: elapsed as f64 / 1e6,
        iops: if elapsed > 0 {
            requests as f64 * 1e9 / elapsed as f64
        } else {
            0.0
        },
        mean_us: h.mean() / 1000.0,
        p50_us: us(h.value_at_quantile(0.5)),
        p99_us: us(h.value_at_quantile(0.99)),
        p999_us: us(h.value_at_quantile(0.999)),
        max_us: us(h.max()),
    }
}
