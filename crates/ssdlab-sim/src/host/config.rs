//! Host configuration: queue geometry and CPU costs (defaults documented in
//! docs/model.md, "Host path").

use super::page_cache::PageCacheConfig;
use crate::error::InputError;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// blk-mq hardware queues (one NVMe submission queue each).
    pub hw_queues: u32,
    /// Driver tags per hardware queue (NVMe queue depth; Linux caps at 1023).
    pub hw_queue_depth: u32,
    /// Scheduler tags per hardware queue; 0 = the kernel's default
    /// (hw_queue_depth for `none`, else 2 × min(hw_queue_depth, 128)).
    pub nr_requests: u32,
    /// Largest request a merge may build (max_sectors_kb × 1024).
    pub max_request_bytes: u32,
    /// Request merging allowed (sysfs nomerges = 0).
    pub merges: bool,
    /// Largest readahead window of buffered reads (sysfs read_ahead_kb; 0 = none).
    pub read_ahead_kb: u32,
    pub costs: HostCosts,
    /// The page cache buffered (`direct=0`) fio jobs go through.
    pub page_cache: PageCacheConfig,
}

/// The page cache's page: the kernel's PAGE_SIZE.
pub const PAGE_BYTES: u32 = 4096;

/// Host CPU time per operation, in ns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostCosts {
    /// System call, bio set-up and scheduler insert, on the submitting job's
    /// CPU, per I/O.
    pub submit_ns: u64,
    /// Scheduler dispatch plus the NVMe driver's command set-up and doorbell,
    /// per request, serial on the hardware queue's CPU.
    pub dispatch_ns: u64,
    /// Completion interrupt, scheduler completion and bio end, per request,
    /// serial on the hardware queue's CPU.
    pub complete_ns: u64,
    /// Waking a job that sleeps waiting for its I/O (a sync engine's call, or
    /// an async job at full depth in io_getevents), per completion it sees.
    pub wakeup_ns: u64,
    /// Delay of an asynchronous hardware-queue run (kblockd work item): a
    /// completion that lets held-back requests go re-runs the queue this way.
    pub async_run_ns: u64,
    /// Extra latency of an interrupt that finds the queue's CPU idle for
    /// longer than `idle_after_ns` (the exit latency of a deep C-state;
    /// 0 = none).
    pub idle_exit_ns: u64,
    /// Idle time after which the CPU is in that deep state.
    pub idle_after_ns: u64,
    /// Copying one 4 KiB page between a buffered job and the page cache
    /// (lookup, copy, marking it dirty), on the job's CPU.
    pub page_copy_ns: u64,
}

impl Default for HostCosts {
    fn default() -> Self {
        HostCosts {
            submit_ns: 1_800,
            dispatch_ns: 1_000,
            complete_ns: 2_000,
            wakeup_ns: 3_000,
            async_run_ns: 10_000,
            idle_exit_ns: 0,
            idle_after_ns: 0,
            page_copy_ns: 500,
        }
    }
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            hw_queues: 1,
            hw_queue_depth: 1023,
            nr_requests: 0,
            max_request_bytes: 128 << 10,
            merges: true,
            read_ahead_kb: 128,
            costs: HostCosts::default(),
            page_cache: PageCacheConfig::default(),
        }
    }
}

impl HostConfig {
    /// Checks the settings; the first problem as an error.
    pub fn validate(&self) -> Result<(), InputError> {
        match self.problems().into_iter().next() {
            Some((key, message)) => Err(InputError::invalid(key, message)),
            None => Ok(()),
        }
    }

    /// Every problem of the settings, each as the dotted key and the reason.
    pub fn problems(&self) -> Vec<(String, String)> {
        let mut found = Vec::new();
        let mut bad = |field: &str, msg: &str| found.push((format!("host.{field}"), msg.into()));
        if self.hw_queues == 0 || self.hw_queues > 1024 {
            bad("hw_queues", "must be in [1, 1024]");
        }
        if self.hw_queue_depth == 0 || self.hw_queue_depth > 65_535 {
            bad("hw_queue_depth", "must be in [1, 65535]");
        }
        if self.nr_requests > 65_535 {
            bad("nr_requests", "must be at most 65535");
        }
        let second = 1_000_000_000;
        if self.costs.idle_exit_ns > second || self.costs.idle_after_ns > second {
            bad(
                "costs",
                "idle_exit_ns and idle_after_ns must be at most 1 s",
            );
        }
        if self.costs.page_copy_ns > second {
            bad("costs.page_copy_ns", "must be at most 1 s");
        }
        if self.read_ahead_kb > 65_536 {
            bad("read_ahead_kb", "must be at most 65536 (64 MiB)");
        }
        for (key, message) in self.page_cache.problems(PAGE_BYTES) {
            bad(&format!("page_cache.{key}"), &message);
        }
        if self.max_request_bytes < 4096 || !self.max_request_bytes.is_multiple_of(512) {
            bad(
                "max_request_bytes",
                "must be a multiple of 512 and at least 4096",
            );
        }
        found
    }

    /// Scheduler tags per hardware queue for a scheduler named `sched`.
    pub fn tags_for(&self, sched: &str) -> u32 {
        match (self.nr_requests, sched) {
            (0, "none") => self.hw_queue_depth,
            (0, _) => 2 * self.hw_queue_depth.min(128),
            (n, _) => n,
        }
    }
}
