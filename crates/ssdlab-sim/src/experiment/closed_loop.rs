//! A closed-loop load: `qd` commands always outstanding, each a one-page
//! command at a uniformly random logical page of `[0, span)`; a new command
//! is submitted the moment one completes.
//!
//! The addresses are drawn `LOOKAHEAD` commands before they are submitted
//! (from the one seeded stream, in the same order, so every command gets the
//! address it always had), and the device is told of each as it is drawn:
//! its forward-map entry, a random access into a table far larger than the
//! cache, is then in the cache by the time the command is decoded.

use crate::kernel::{Ctx, Simulation, WorkEvent, Workload};
use hdrhistogram::Histogram;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use ssdlab_protocol::Device;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::Ns;
use ssdlab_protocol::{Dir, IoCommand, IoCompletion};
use std::collections::VecDeque;

/// Addresses drawn ahead of their commands (see the module's note).
const LOOKAHEAD: usize = 16;

pub struct ClosedLoop {
    pub op: Dir,
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
    /// Runs the load on the simulation's device (it needs no host path).
    /// Events still pending when the last request completes (flushes, GC)
    /// stay queued for the next run.
    pub fn run<D: Device>(&self, sim: &mut Simulation<D>) -> LoadResult {
        let start = sim.now();
        let events_before = sim.events();
        let mut load = LoadState {
            spec: self,
            rng: ChaCha8Rng::seed_from_u64(self.seed),
            next_lpas: VecDeque::with_capacity(LOOKAHEAD + 1),
            hist: latency_histogram(),
            submitted_at: vec![0; self.qd as usize],
            page_size: sim.device().info().page_size,
            issued: 0,
            done: 0,
        };
        sim.run(&mut load, None);
        let elapsed = sim.now() - start;
        LoadResult {
            figures: figures(&load.hist, load.done, elapsed),
            events: sim.events() - events_before,
            histogram: load.hist,
        }
    }
}

/// The load while it runs: a command per tag, re-issued as it completes.
struct LoadState<'a> {
    spec: &'a ClosedLoop,
    rng: ChaCha8Rng,
    /// The addresses of the next commands, in submission order.
    next_lpas: VecDeque<Lpn>,
    hist: Histogram<u64>,
    submitted_at: Vec<Ns>,
    /// Bytes of a command (one page), read once: `info()` builds a name.
    page_size: u32,
    issued: u64,
    done: u64,
}

impl LoadState<'_> {
    /// The next command's address; draws the one `LOOKAHEAD` commands on
    /// and hints the device of it.
    fn next_lpa<D: Device>(&mut self, device: &D) -> Lpn {
        while self.next_lpas.len() <= LOOKAHEAD {
            let lpa = Lpn(self.rng.gen_range(0..self.spec.span));
            device.expect_command(lpa);
            self.next_lpas.push_back(lpa);
        }
        self.next_lpas.pop_front().expect("filled above")
    }

    fn submit<D: Device>(&mut self, tag: u32, cx: &mut Ctx<'_, D>) {
        let lpa = self.next_lpa(cx.device());
        let cmd = IoCommand {
            id: tag as u64,
            op: self.spec.op,
            lpa,
            pages: 1,
            bytes: self.page_size,
            sq: 0,
            deadline: None,
        };
        self.submitted_at[tag as usize] = cx.now();
        self.issued += 1;
        cx.submit_command(cmd).expect("commands inside the span");
    }
}

impl Workload for LoadState<'_> {
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        for tag in 0..self.spec.qd.min(self.spec.requests as u32) {
            self.submit(tag, cx);
        }
    }

    fn on_event<D: Device>(&mut self, _: WorkEvent, _: &mut Ctx<'_, D>) {}

    fn command_done<D: Device>(&mut self, c: IoCompletion, cx: &mut Ctx<'_, D>) {
        let tag = c.id as u32;
        self.hist
            .saturating_record(c.time - self.submitted_at[tag as usize]);
        self.done += 1;
        if self.issued < self.spec.requests {
            self.submit(tag, cx);
        }
    }

    fn is_done(&self) -> bool {
        self.done == self.spec.requests
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
