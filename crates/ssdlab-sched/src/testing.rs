//! A closed-loop plant for the schedulers' behaviour tests: jobs that keep
//! a depth of requests outstanding (or think between them), a device whose
//! latency the test chooses, and the scheduler's timers, in event order.

use crate::{IoClass, IoPrio, Request, Scheduler};
use ssdlab_protocol::{Dir, Ns};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug)]
pub struct Job {
    pub class: IoClass,
    pub level: u8,
    /// Requests the job keeps outstanding.
    pub depth: u32,
    /// Pause after each completion before the next submission.
    pub think_ns: Ns,
    pub bytes: u32,
    pub dir: Dir,
    /// The job submits from this time on, and stops at `stop`.
    pub start: Ns,
    pub stop: Ns,
}

impl Job {
    pub fn new(class: IoClass, depth: u32) -> Job {
        Job {
            class,
            level: 4,
            depth,
            think_ns: 0,
            bytes: 4096,
            dir: Dir::Read,
            start: 0,
            stop: Ns::MAX,
        }
    }
}

/// What each job saw: `(completion time, latency)` per request.
pub struct Outcome {
    pub done: Vec<Vec<(Ns, Ns)>>,
    /// Requests the device held at most at once.
    pub max_device: u32,
}

impl Outcome {
    pub fn bytes(&self, job: usize, jobs: &[Job], from: Ns, to: Ns) -> u64 {
        let n = self.done[job]
            .iter()
            .filter(|(t, _)| (from..to).contains(t))
            .count() as u64;
        n * jobs[job].bytes as u64
    }

    /// The `q` quantile (0..=1) of a job's latencies completed in [from, to).
    pub fn quantile(&self, job: usize, q: f64, from: Ns, to: Ns) -> Ns {
        let mut l: Vec<Ns> = self.done[job]
            .iter()
            .filter(|(t, _)| (from..to).contains(t))
            .map(|d| d.1)
            .collect();
        l.sort_unstable();
        if l.is_empty() {
            return 0;
        }
        l[((l.len() - 1) as f64 * q).round() as usize]
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A request completes at the device (its index in `flying`).
    Done(u64),
    /// A job may submit.
    Wake(usize),
}

/// Runs `jobs` against `s` until `end`. The device holds at most
/// `device_depth` requests; `latency(rq, held, now)` is a request's service
/// time given how many the device holds with it. `watch(s, now)` runs
/// after every event.
pub fn run(
    s: &mut dyn Scheduler,
    jobs: &[Job],
    device_depth: u32,
    end: Ns,
    mut latency: impl FnMut(&Request, u32, Ns) -> Ns,
    mut watch: impl FnMut(&dyn Scheduler, Ns),
) -> Outcome {
    let mut heap: BinaryHeap<Reverse<(Ns, Ev)>> = BinaryHeap::new();
    let mut flying: std::collections::BTreeMap<u64, Request> = Default::default();
    let mut outstanding = vec![0u32; jobs.len()];
    let mut done = vec![Vec::new(); jobs.len()];
    let mut next_id = 1u64;
    let mut max_device = 0;
    for (j, job) in jobs.iter().enumerate() {
        heap.push(Reverse((job.start, Ev::Wake(j))));
    }
    let mut now = 0;
    loop {
        let timer = s.next_timer().filter(|&t| t < end);
        let ev_t = heap.peek().map(|Reverse((t, _))| *t);
        let take_timer = match (timer, ev_t) {
            (Some(t), Some(e)) => t < e,
            (Some(_), None) => true,
            _ => false,
        };
        if take_timer {
            now = timer.expect("timer").max(now);
            s.on_timer(now);
        } else {
            let Some(Reverse((t, ev))) = heap.pop() else {
                break;
            };
            if t >= end {
                break;
            }
            now = t;
            match ev {
                Ev::Done(id) => {
                    let rq = flying.remove(&id).expect("flying");
                    s.completed(&rq, now);
                    let j = rq.job as usize;
                    outstanding[j] -= 1;
                    done[j].push((now, now - rq.submit_ns));
                    heap.push(Reverse((now + jobs[j].think_ns, Ev::Wake(j))));
                }
                Ev::Wake(j) => {
                    let job = &jobs[j];
                    while now < job.stop && outstanding[j] < job.depth {
                        outstanding[j] += 1;
                        let rq = Request {
                            id: next_id,
                            dir: job.dir,
                            sector: next_id * 997 % 1_000_000 * 8,
                            bytes: job.bytes,
                            prio: IoPrio {
                                class: job.class,
                                level: job.level,
                            },
                            sync: true,
                            flush: false,
                            fua: false,
                            job: j as u32,
                            submit_ns: now,
                            insert_ns: now,
                            dispatch_ns: 0,
                        };
                        next_id += 1;
                        s.insert(rq, now);
                    }
                    if now < job.start {
                        heap.push(Reverse((job.start, Ev::Wake(j))));
                    }
                }
            }
        }
        while (flying.len() as u32) < device_depth && s.has_work() {
            let Some(rq) = s.dispatch(now) else {
                break;
            };
            let held = flying.len() as u32 + 1;
            max_device = max_device.max(held);
            let t = now + latency(&rq, held, now).max(1);
            heap.push(Reverse((t, Ev::Done(rq.id))));
            flying.insert(rq.id, rq);
        }
        watch(s, now);
    }
    Outcome { done, max_device }
}
