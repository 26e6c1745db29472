//! What the real-time simulation measured: per RT task its jobs, deadline
//! misses (reads and writes apart) and response times; for NRT its
//! throughput and mean response; GC work.

use super::SimSetup;
use serde::Serialize;
use ssdlab_protocol::Ns;

/// One RT task's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TaskOutcome {
    pub name: String,
    pub jobs: u64,
    pub read_requests: u64,
    pub read_misses: u64,
    pub write_requests: u64,
    pub write_misses: u64,
    /// Job response: release to the end of its last operation.
    pub max_response_ns: Ns,
    pub p999_response_ns: Ns,
}

/// The NRT load's figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NrtOutcome {
    pub requests: u64,
    pub pages: u64,
    pub iops: f64,
    pub mb_per_s: f64,
    pub mean_response_ns: Ns,
}

/// The whole run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SimReport {
    pub duration_ns: Ns,
    pub tasks: Vec<TaskOutcome>,
    pub nrt: Option<NrtOutcome>,
    pub gc_rounds: u64,
    pub gc_copied_pages: u64,
}

impl SimReport {
    /// RT deadline misses of all tasks (reads, writes).
    pub fn misses(&self) -> (u64, u64) {
        self.tasks
            .iter()
            .fold((0, 0), |(r, w), t| (r + t.read_misses, w + t.write_misses))
    }
}

/// Collects the figures as the simulation runs.
pub(super) struct Collector {
    tasks: Vec<TaskOutcome>,
    responses: Vec<Vec<Ns>>,
    nrt: NrtOutcome,
    nrt_response_sum: u128,
    gc_rounds: u64,
    gc_copied_pages: u64,
}

impl Collector {
    pub fn new(s: &SimSetup) -> Self {
        let tasks = s
            .tasks
            .iter()
            .map(|t| TaskOutcome {
                name: t.name.clone(),
                ..Default::default()
            })
            .collect();
        Collector {
            tasks,
            responses: vec![Vec::new(); s.tasks.len()],
            nrt: NrtOutcome::default(),
            nrt_response_sum: 0,
            gc_rounds: 0,
            gc_copied_pages: 0,
        }
    }

    /// RT jobs completed so far (all tasks).
    #[cfg(test)]
    pub fn jobs_so_far(&self) -> u64 {
        self.tasks.iter().map(|t| t.jobs).sum()
    }

    pub fn gc_round(&mut self, rounds: u64, copied: u64) {
        self.gc_rounds += rounds;
        self.gc_copied_pages += copied;
    }

    pub fn rt_part(&mut self, task: usize, is_write: bool, missed: bool) {
        let t = &mut self.tasks[task];
        if is_write {
            t.write_requests += 1;
            t.write_misses += u64::from(missed);
        } else {
            t.read_requests += 1;
            t.read_misses += u64::from(missed);
        }
    }

    pub fn rt_job(&mut self, task: usize, response: Ns) {
        let t = &mut self.tasks[task];
        t.jobs += 1;
        t.max_response_ns = t.max_response_ns.max(response);
        self.responses[task].push(response);
    }

    pub fn nrt_request(&mut self, pages: u64, response: Ns) {
        self.nrt.requests += 1;
        self.nrt.pages += pages;
        self.nrt_response_sum += u128::from(response);
    }

    pub fn finish(mut self, s: &SimSetup) -> SimReport {
        for (t, r) in self.tasks.iter_mut().zip(&mut self.responses) {
            r.sort_unstable();
            t.p999_response_ns = percentile(r, 999, 1000);
        }
        let secs = s.duration_ns.max(1) as f64 / 1e9;
        let nrt = s.nrt.as_ref().map(|_| {
            let n = &mut self.nrt;
            n.iops = n.requests as f64 / secs;
            n.mb_per_s = n.pages as f64 * s.platform.page_size as f64 / 1e6 / secs;
            n.mean_response_ns = self
                .nrt_response_sum
                .checked_div(u128::from(n.requests))
                .map_or(0, |m| m as Ns);
            n.clone()
        });
        SimReport {
            duration_ns: s.duration_ns,
            tasks: self.tasks,
            nrt,
            gc_rounds: self.gc_rounds,
            gc_copied_pages: self.gc_copied_pages,
        }
    }
}

/// The smallest value with at least `num/den` of the sorted values at or
/// below it (0 for none).
fn percentile(sorted: &[Ns], num: usize, den: usize) -> Ns {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (sorted.len() * num).div_ceil(den).max(1);
    sorted[rank - 1]
}
