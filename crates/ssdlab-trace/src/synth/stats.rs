//! What a trace measures as: read and sequential shares, average sizes.

use crate::types::{TraceOp, TraceRecord};

/// Measured characteristics of a trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceStats {
    /// All requests (trims included).
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    /// Requests that start where the previous request (any direction) ended.
    pub sequential: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
}

fn pct(n: u64, d: u64) -> f64 {
    if d == 0 {
        0.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

fn kb(bytes: u64, n: u64) -> f64 {
    if n == 0 {
        0.0
    } else {
        bytes as f64 / n as f64 / 1024.0
    }
}

/// Incremental [`TraceStats`] (keeps the previous request's end).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StatsAcc {
    pub(super) stats: TraceStats,
    prev_end: Option<u128>,
}

impl StatsAcc {
    pub(super) fn push(&mut self, r: &TraceRecord) {
        let s = &mut self.stats;
        s.requests += 1;
        if self.prev_end == Some(r.offset as u128) {
            s.sequential += 1;
        }
        self.prev_end = Some(r.offset as u128 + r.len as u128);
        match r.op {
            TraceOp::Read => {
                s.reads += 1;
                s.read_bytes += r.len as u64;
            }
            TraceOp::Write => {
                s.writes += 1;
                s.write_bytes += r.len as u64;
            }
            TraceOp::Trim => {}
        }
    }
}

impl TraceStats {
    /// % of requests that are reads.
    pub fn read_pct(&self) -> f64 {
        pct(self.reads, self.requests)
    }

    /// % of requests that are sequential.
    pub fn seq_pct(&self) -> f64 {
        pct(self.sequential, self.requests)
    }

    /// Average read size in KB (1 KB = 1024 B); 0 without reads.
    pub fn avg_read_kb(&self) -> f64 {
        kb(self.read_bytes, self.reads)
    }

    /// Average write size in KB (1 KB = 1024 B); 0 without writes.
    pub fn avg_write_kb(&self) -> f64 {
        kb(self.write_bytes, self.writes)
    }

    /// Measures records in trace order. A request is sequential when it
    /// starts exactly where the previous request (any direction, trims
    /// included) ended; the first request is not.
    pub fn of_records<I>(records: I) -> TraceStats
    where
        I: IntoIterator,
        I::Item: std::borrow::Borrow<TraceRecord>,
    {
        let mut acc = StatsAcc::default();
        for r in records {
            acc.push(std::borrow::Borrow::borrow(&r));
        }
        acc.stats
    }
}
