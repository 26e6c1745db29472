//! A Postmark run's figures: throughput, and latencies per request class
//! and per operation.

use crate::host::PageCacheCounters;
use serde::Serialize;
use ssdlab_metrics::hist::FioHistogram;

/// Latency figures of one class of requests or operations.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct LatencyFigures {
    pub count: u64,
    pub mean_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl LatencyFigures {
    pub(super) fn of(h: &FioHistogram) -> LatencyFigures {
        if h.is_empty() {
            return LatencyFigures::default();
        }
        let p99 = h.percentiles(&[99.0]).first().map_or(0, |&(_, v)| v);
        LatencyFigures {
            count: h.count(),
            mean_us: h.exact_mean() / 1e3,
            p99_us: p99 as f64 / 1e3,
            max_us: h.max() as f64 / 1e3,
        }
    }
}

/// A Postmark run's figures.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PostmarkReport {
    pub processes: u32,
    pub transactions: u64,
    /// Transactions per second over the transaction phase (first start to
    /// last end over all processes).
    pub transactions_per_s: f64,
    /// Application data read and written per second over the whole run
    /// (creation, transactions, deletion and the final sync), as Postmark
    /// reports them.
    pub read_mb_s: f64,
    pub write_mb_s: f64,
    pub elapsed_s: f64,
    /// Block requests by class: synchronous writes (journal commits),
    /// asynchronous writes (write-back), reads.
    pub sync_write: LatencyFigures,
    pub async_write: LatencyFigures,
    pub read: LatencyFigures,
    /// Operations as a process sees them: create, delete, read, append.
    pub ops: Vec<(String, LatencyFigures)>,
    pub page_cache: PageCacheCounters,
    /// Pages the flusher handed to the block layer in each 100 ms of the
    /// run: write-back comes in bursts at the flusher's period.
    pub writeback_pages_per_100ms: Vec<u64>,
    /// Files a full block group could not take (the device is too small).
    pub skipped_ops: u64,
}
