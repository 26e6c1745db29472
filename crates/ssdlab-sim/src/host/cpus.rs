//! Host CPUs as serial timelines. A job's submissions run on its CPU, a
//! hardware queue's dispatches and completions on the queue's; jobs pinned
//! to one CPU (fio's `cpumask`, `cpus_allowed`) share its timeline, and so
//! does the queue that CPU submits to when every job on that queue is
//! pinned there, as the queue's interrupt then lands on it too (Linux's
//! NVMe driver gives each CPU its own queue and routes its interrupt back).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ssdlab_protocol::Ns;

/// One CPU's serial timeline: the time until which it is busy. Shared by
/// the jobs and the queue that run on the CPU (atomic only so that a
/// prepared run can move between threads; one simulation runs on one).
#[derive(Clone, Debug, Default)]
pub struct CpuClock(Arc<AtomicU64>);

impl CpuClock {
    /// Runs `cost` of work ready at `at`, after the work already queued on
    /// the CPU; returns when it ends.
    pub fn run(&self, at: Ns, cost: Ns) -> Ns {
        let end = self.busy_until().max(at) + cost;
        self.0.store(end, Ordering::Relaxed);
        end
    }

    /// Runs `cost` of work starting exactly at `start` (≥ the busy time),
    /// as after a wake-up from a deep idle state; returns when it ends.
    pub fn run_from(&self, start: Ns, cost: Ns) -> Ns {
        let end = start + cost;
        self.0.store(end, Ordering::Relaxed);
        end
    }

    pub fn busy_until(&self) -> Ns {
        self.0.load(Ordering::Relaxed)
    }
}

/// The hardware queue of a bio source with no CPU of its own in a plan
/// (an unpinned job, the page cache's flusher): spread by index.
pub fn default_queue(source: u32, hw_queues: u32) -> u32 {
    source % hw_queues.max(1)
}

/// Which CPU each job and each hardware queue runs on.
#[derive(Debug)]
pub struct CpuPlan {
    /// Job i's CPU.
    pub job_cpus: Vec<CpuClock>,
    /// Job i's hardware queue.
    pub job_queues: Vec<u32>,
    /// Hardware queue q's CPU.
    pub queue_cpus: Vec<CpuClock>,
}

impl CpuPlan {
    /// `pins[i]` is the CPU job i is pinned to, if any. An unpinned job has
    /// a CPU of its own and uses queue i mod `hw_queues`, as before pinning
    /// existed; a pinned job uses queue cpu mod `hw_queues` (the queue of
    /// its CPU, as blk-mq maps CPUs to queues when there are as many queues
    /// as CPUs).
    pub fn new(pins: &[Option<u32>], hw_queues: u32) -> CpuPlan {
        let hw_queues = hw_queues.max(1);
        let mut by_cpu: BTreeMap<u32, CpuClock> = BTreeMap::new();
        let mut job_cpus = Vec::with_capacity(pins.len());
        let mut job_queues = Vec::with_capacity(pins.len());
        for (i, pin) in pins.iter().enumerate() {
            match pin {
                Some(cpu) => {
                    job_cpus.push(by_cpu.entry(*cpu).or_default().clone());
                    job_queues.push(cpu % hw_queues);
                }
                None => {
                    job_cpus.push(CpuClock::default());
                    job_queues.push(default_queue(i as u32, hw_queues));
                }
            }
        }
        let queue_cpus = (0..hw_queues)
            .map(|q| match Self::sole_cpu(pins, &job_queues, q) {
                Some(cpu) => by_cpu[&cpu].clone(),
                None => CpuClock::default(),
            })
            .collect();
        CpuPlan {
            job_cpus,
            job_queues,
            queue_cpus,
        }
    }

    /// The CPU every job on queue `q` is pinned to, if there are such jobs
    /// and they agree.
    fn sole_cpu(pins: &[Option<u32>], job_queues: &[u32], q: u32) -> Option<u32> {
        let mut on_queue = pins
            .iter()
            .zip(job_queues)
            .filter(|(_, jq)| **jq == q)
            .map(|(pin, _)| *pin);
        let first = on_queue.next()??;
        on_queue.all(|p| p == Some(first)).then_some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_pinned_to_one_cpu_share_its_timeline_and_its_queue() {
        let plan = CpuPlan::new(&[Some(3), Some(3), None], 1);
        plan.job_cpus[0].run(100, 50);
        assert_eq!(plan.job_cpus[1].run(120, 10), 160, "waits for job 0's work");
        assert_eq!(
            plan.job_cpus[2].run(120, 10),
            130,
            "an unpinned job has its own"
        );
        // Job 2 is on queue 0 too, unpinned: the queue keeps its own CPU.
        assert_eq!(plan.queue_cpus[0].busy_until(), 0);
        let only_pinned = CpuPlan::new(&[Some(3), Some(3)], 1);
        only_pinned.job_cpus[0].run(0, 40);
        assert_eq!(only_pinned.queue_cpus[0].busy_until(), 40);
    }

    #[test]
    fn a_pinned_job_uses_its_cpus_queue() {
        let plan = CpuPlan::new(&[Some(5), None, Some(2)], 4);
        assert_eq!(plan.job_queues, vec![1, 1, 2]);
        assert_eq!(
            CpuPlan::new(&[None, None, None], 2).job_queues,
            vec![0, 1, 0]
        );
    }
}
