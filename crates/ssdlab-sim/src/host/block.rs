//! The blk-mq request path: bio → (merge | tag + request) → scheduler →
//! dispatch on a hardware queue → device → completion → bios end.

use super::bio::{Bio, BioDone};
use super::config::HostConfig;
use super::cpus::{default_queue, CpuClock, CpuPlan};
use super::tag_wait::TagWaiters;
use rustc_hash::FxHashMap;
use serde::Serialize;
use ssdlab_protocol::DeviceInfo;
use ssdlab_protocol::Dir;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::{IoCommand, IoCompletion};
use ssdlab_protocol::{Ns, Timers};
use ssdlab_sched::{Request, Scheduler};
use std::collections::{BTreeMap, VecDeque};

/// A request's id in the host's events: 32 bits keep an event, and so the
/// kernel's queue entries, small. Ids wrap after 2^32 requests, far more
/// than can be in flight at once.
pub type RequestId = u32;

fn request_id(id: u64) -> RequestId {
    RequestId::try_from(id).expect("request ids are issued below 2^32")
}

/// The host layer's own events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostEvent {
    /// The driver rings the doorbell for a dispatched request.
    DeviceSubmit(RequestId),
    /// Completion processing of a request ends.
    RequestDone(RequestId),
    /// The scheduler's timer (stale generations are ignored).
    SchedTimer(u32),
    /// An asynchronous run of the hardware queues (kblockd).
    RunQueues,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HostCounters {
    pub bios: u64,
    pub requests: u64,
    pub merges: u64,
    pub tag_waits: u64,
    pub dispatched: u64,
    /// Most requests at the device at once (all hardware queues).
    pub max_device_inflight: u32,
}

struct Tracked {
    /// The bio that started the request, and those merged into it since
    /// (most requests have none: no allocation for them).
    first: Bio,
    merged: Vec<Bio>,
    hq: u32,
    /// Set once dispatched.
    rq: Option<Request>,
}

pub struct BlockLayer {
    cfg: HostConfig,
    sched: Box<dyn Scheduler>,
    tags_per_hq: u32,
    tags_used: Vec<u32>,
    tag_waiters: Vec<TagWaiters>,
    /// Jobs whose last tag-waiting bio got a tag since the kernel last asked.
    unblocked: Vec<u32>,
    /// Dispatched by the scheduler, waiting for a driver slot on their queue.
    parked: Vec<VecDeque<Request>>,
    device_inflight: Vec<u32>,
    /// Each hardware queue's CPU.
    queue_cpus: Vec<CpuClock>,
    /// Each job's hardware queue (empty: job mod `hw_queues`).
    job_queues: Vec<u32>,
    tracked: FxHashMap<u64, Tracked>,
    next_rid: RequestId,
    timer_gen: u32,
    timer_at: Option<Ns>,
    async_run_pending: bool,
    page_size: u64,
    logical_pages: u64,
    /// The device needs FLUSH (a real drive); otherwise an empty flush
    /// ends on the host.
    device_flushes: bool,
    /// Bios ended since the kernel last took them.
    done: Vec<BioDone>,
    counters: HostCounters,
    /// The scheduler's own CPU per request, charged at dispatch (0 on a
    /// real drive, where the real CPU pays it).
    sched_cpu_ns: Ns,
    gauges: GaugeSeries,
}

/// The scheduler's gauges, sampled at the first host event of each second
/// that has one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GaugeSeries {
    pub names: Vec<&'static str>,
    /// `(time in ns, one value per name)`.
    pub samples: Vec<(Ns, Vec<u64>)>,
}

impl BlockLayer {
    pub fn new(cfg: HostConfig, sched: Box<dyn Scheduler>, dev: &DeviceInfo) -> BlockLayer {
        let hqs = cfg.hw_queues as usize;
        BlockLayer {
            tags_per_hq: cfg.tags_for(sched.name()),
            tags_used: vec![0; hqs],
            tag_waiters: (0..hqs).map(|_| TagWaiters::default()).collect(),
            unblocked: Vec::new(),
            parked: vec![VecDeque::new(); hqs],
            device_inflight: vec![0; hqs],
            queue_cpus: (0..hqs).map(|_| CpuClock::default()).collect(),
            job_queues: Vec::new(),
            tracked: FxHashMap::default(),
            next_rid: 1,
            timer_gen: 0,
            timer_at: None,
            async_run_pending: false,
            page_size: dev.page_size as u64,
            logical_pages: dev.logical_pages as u64,
            device_flushes: dev.volatile_write_cache,
            done: Vec::new(),
            counters: HostCounters::default(),
            sched_cpu_ns: sched.cpu_cost_ns(),
            gauges: GaugeSeries {
                names: sched.gauges().into_iter().map(|g| g.0).collect(),
                samples: Vec::new(),
            },
            sched,
            cfg,
        }
    }

    /// For a real drive: the scheduler's CPU is real, none is modelled.
    pub fn real_cpu(mut self) -> Self {
        self.sched_cpu_ns = 0;
        self
    }

    /// The scheduler's gauges over the run.
    pub fn gauge_series(&self) -> &GaugeSeries {
        &self.gauges
    }

    /// Samples the gauges once per second (the first event in it).
    fn sample_gauges(&mut self, now: Ns) {
        const SECOND: Ns = 1_000_000_000;
        if self.gauges.names.is_empty()
            || self.gauges.samples.len() >= ssdlab_metrics::MAX_KEPT_SECONDS
            || self
                .gauges
                .samples
                .last()
                .is_some_and(|(t, _)| t / SECOND == now / SECOND)
        {
            return;
        }
        let values = self.sched.gauges().into_iter().map(|g| g.1).collect();
        self.gauges.samples.push((now, values));
    }

    pub fn scheduler_name(&self) -> &'static str {
        self.sched.name()
    }

    /// The scheduler's own counters, by name.
    pub fn scheduler_counters(&self) -> BTreeMap<String, u64> {
        let counters = self.sched.counters().into_iter();
        counters.map(|(k, v)| (k.to_string(), v)).collect()
    }

    pub fn counters(&self) -> &HostCounters {
        &self.counters
    }

    /// Moves the bios ended since the last call to the end of `out`.
    pub fn take_ended(&mut self, out: &mut Vec<BioDone>) {
        out.append(&mut self.done);
    }

    pub fn config(&self) -> &HostConfig {
        &self.cfg
    }

    /// Bytes the device holds (for workload regions).
    pub fn device_bytes(&self) -> u64 {
        self.logical_pages * self.page_size
    }

    /// Requests at the device, over all hardware queues.
    pub fn device_inflight(&self) -> u32 {
        self.device_inflight.iter().sum()
    }

    /// Requests tracked (queued or in flight) and bios waiting for a tag.
    pub fn pending(&self) -> (usize, usize) {
        (
            self.tracked.len(),
            self.tag_waiters.iter().map(TagWaiters::len).sum(),
        )
    }

    /// Whether nothing is queued, waiting or in flight.
    pub fn is_idle(&self) -> bool {
        self.tracked.is_empty() && self.tag_waiters.iter().all(TagWaiters::is_empty)
    }

    /// Runs the queues' work on the CPUs of `plan` (jobs pinned to CPUs).
    pub fn use_cpus(&mut self, plan: &CpuPlan) {
        self.queue_cpus = plan.queue_cpus.clone();
        self.job_queues = plan.job_queues.clone();
    }

    /// The hardware queue a job (or another bio source) submits to: its
    /// CPU's under a CPU plan, else the default spread.
    fn queue_of(&self, job: u32) -> u32 {
        match self.job_queues.get(job as usize) {
            Some(q) => *q,
            None => default_queue(job, self.cfg.hw_queues),
        }
    }

    /// A bio enters the block layer at `now` (its submission cost paid).
    /// Returns false when it waits for a tag (the submitter is blocked).
    pub fn submit_bio<Q: Timers<HostEvent>>(&mut self, mut bio: Bio, now: Ns, q: &mut Q) -> bool {
        bio.submit_ns = now;
        self.counters.bios += 1;
        if self.try_merge(&bio) {
            // A merge can complete a bundle (IRBW, STB): let it leave now
            // rather than at the next completion or timer.
            if self.sched.has_work() {
                self.run_queues(now, q);
            }
            return true;
        }
        let hq = self.queue_of(bio.job);
        // As the tag allocator: a bio with a free tag within its depth limit
        // takes it, even while bios under a tighter limit sleep.
        if !self.tag_free(&bio, hq) {
            self.counters.tag_waits += 1;
            self.tag_waiters[hq as usize].push(bio);
            return false;
        }
        self.start_request(bio, hq, now);
        self.run_queues(now, q);
        true
    }

    fn tag_free(&self, bio: &Bio, hq: u32) -> bool {
        self.tags_used[hq as usize] < depth_limit(&*self.sched, bio.dir, bio.sync, self.tags_per_hq)
    }

    fn try_merge(&mut self, bio: &Bio) -> bool {
        // Flushes and FUA writes are never merged (blk_rq_merge_ok).
        if !self.cfg.merges || bio.flush || bio.fua {
            return false;
        }
        let probe = request_of(bio, 0, 0);
        let Some((rid, _kind)) = self.sched.bio_merge(&probe, self.cfg.max_request_bytes) else {
            return false;
        };
        let t = self
            .tracked
            .get_mut(&rid)
            .expect("merged into a tracked request");
        t.merged.push(bio.clone());
        self.counters.merges += 1;
        true
    }

    fn start_request(&mut self, bio: Bio, hq: u32, now: Ns) {
        self.tags_used[hq as usize] += 1;
        let rid = self.next_rid;
        // Ids wrap after 2^32 requests; 0 is the merge probe's.
        self.next_rid = self.next_rid.checked_add(1).unwrap_or(1);
        self.counters.requests += 1;
        let rq = request_of(&bio, u64::from(rid), now);
        let tracked = Tracked {
            first: bio,
            merged: Vec::new(),
            hq,
            rq: None,
        };
        let reused = self.tracked.insert(u64::from(rid), tracked);
        assert!(reused.is_none(), "request id {rid} reused while in flight");
        self.sched.insert(rq, now);
    }

    /// Dispatches while a hardware queue has a free driver tag and the
    /// scheduler has work. Dispatch is serial on each queue's CPU.
    fn run_queues<Q: Timers<HostEvent>>(&mut self, now: Ns, q: &mut Q) {
        // Requests parked on a full hardware queue go first (hctx->dispatch).
        for hq in 0..self.cfg.hw_queues as usize {
            while self.has_room(hq) {
                let Some(rq) = self.parked[hq].pop_front() else {
                    break;
                };
                self.send(rq, hq, now, q);
            }
        }
        while self.sched.has_work() && (0..self.cfg.hw_queues as usize).any(|hq| self.has_room(hq))
        {
            let Some(rq) = self.sched.dispatch(now) else {
                break;
            };
            // A request goes out on the hardware queue of its tag.
            let hq = self.tracked[&rq.id].hq as usize;
            if self.has_room(hq) {
                self.send(rq, hq, now, q);
            } else {
                self.parked[hq].push_back(rq);
            }
        }
        self.arm_timer(now, q);
    }

    fn has_room(&self, hq: usize) -> bool {
        self.device_inflight[hq] < self.cfg.hw_queue_depth
    }

    /// The queue's CPU sets up the command and rings the doorbell.
    fn send<Q: Timers<HostEvent>>(&mut self, mut rq: Request, hq: usize, now: Ns, q: &mut Q) {
        let cost = self.cfg.costs.dispatch_ns + self.sched_cpu_ns;
        rq.dispatch_ns = self.queue_cpus[hq].run(now, cost);
        let (at, rid, empty_flush) = (rq.dispatch_ns, rq.id, rq.is_empty_flush());
        let t = self
            .tracked
            .get_mut(&rid)
            .expect("dispatched request is tracked");
        t.rq = Some(rq);
        self.device_inflight[hq] += 1;
        self.counters.dispatched += 1;
        let total: u32 = self.device_inflight.iter().sum();
        self.counters.max_device_inflight = self.counters.max_device_inflight.max(total);
        if empty_flush && !self.device_flushes {
            // As blk-flush for a device without a volatile write cache: both
            // device models acknowledge a write only once it is safe, so an
            // empty flush has nothing to wait for and ends on the host.
            let done = at + self.cfg.costs.complete_ns;
            q.schedule(done, HostEvent::RequestDone(request_id(rid)));
            return;
        }
        q.schedule(at, HostEvent::DeviceSubmit(request_id(rid)));
    }

    fn arm_timer<Q: Timers<HostEvent>>(&mut self, now: Ns, q: &mut Q) {
        if let Some(t) = self.sched.next_timer() {
            let t = t.max(now);
            if self.timer_at.is_none_or(|cur| t < cur) {
                self.timer_gen = self.timer_gen.wrapping_add(1);
                self.timer_at = Some(t);
                q.schedule(t, HostEvent::SchedTimer(self.timer_gen));
            }
        }
    }

    /// Handles one of the host's events. A request whose doorbell rings is
    /// returned as the command for the device.
    pub fn handle<Q: Timers<HostEvent>>(
        &mut self,
        ev: HostEvent,
        now: Ns,
        q: &mut Q,
    ) -> Option<IoCommand> {
        match ev {
            HostEvent::DeviceSubmit(rid) => return Some(self.command_of(rid.into())),
            HostEvent::RequestDone(rid) => self.request_done(rid.into(), now, q),
            HostEvent::RunQueues => {
                self.async_run_pending = false;
                self.run_queues(now, q);
            }
            HostEvent::SchedTimer(gen) => {
                if gen == self.timer_gen {
                    self.timer_at = None;
                    self.sched.on_timer(now);
                    self.sample_gauges(now);
                    self.run_queues(now, q);
                }
            }
        }
        None
    }

    /// The device command of a dispatched request: the logical pages its
    /// sectors cover.
    fn command_of(&self, rid: u64) -> IoCommand {
        let t = &self.tracked[&rid];
        let rq = t.rq.as_ref().expect("dispatched");
        let first = rq.sector * 512 / self.page_size;
        let end = (rq.end_sector() * 512)
            .div_ceil(self.page_size)
            .min(self.logical_pages);
        // An empty flush reaches only a device that needs it: a write of no
        // pages (`IoCommand::is_flush`).
        let pages = if rq.is_empty_flush() {
            0
        } else {
            (end - first).max(1)
        };
        IoCommand {
            id: rid,
            op: rq.dir,
            lpa: Lpn(first as u32),
            pages: pages as u32,
            bytes: rq.bytes,
            sq: t.hq as u16,
            deadline: None,
        }
    }

    /// The device completed request `c.id`: the interrupt and completion work
    /// run on the queue's CPU.
    pub fn device_completed<Q: Timers<HostEvent>>(&mut self, c: IoCompletion, q: &mut Q) {
        let hq = self.tracked[&c.id].hq as usize;
        let costs = &self.cfg.costs;
        let cpu = &self.queue_cpus[hq];
        let deep_idle = costs.idle_exit_ns > 0 && c.time > cpu.busy_until() + costs.idle_after_ns;
        let end = if deep_idle {
            cpu.run_from(c.time + costs.idle_exit_ns, costs.complete_ns)
        } else {
            cpu.run(c.time, costs.complete_ns)
        };
        q.schedule(end, HostEvent::RequestDone(request_id(c.id)));
    }

    fn request_done<Q: Timers<HostEvent>>(&mut self, rid: u64, now: Ns, q: &mut Q) {
        let t = self
            .tracked
            .remove(&rid)
            .expect("completed request is tracked");
        let rq = t.rq.expect("dispatched");
        self.sched.completed(&rq, now);
        self.sample_gauges(now);
        let hq = t.hq as usize;
        self.device_inflight[hq] -= 1;
        let tag_hq = hq;
        self.tags_used[tag_hq] -= 1;
        self.done.push(BioDone {
            bio: t.first,
            time: now,
        });
        for bio in t.merged {
            self.done.push(BioDone { bio, time: now });
        }
        self.admit_tag_waiters(tag_hq as u32, now);
        // blk-mq re-runs the queue from completion context asynchronously
        // (blk_mq_run_hw_queues(q, true) in K2, the restart path in blk-mq).
        if self.sched.has_work() && !self.async_run_pending {
            self.async_run_pending = true;
            q.schedule(now + self.cfg.costs.async_run_ns, HostEvent::RunQueues);
        }
        self.arm_timer(now, q);
    }

    /// Gives freed tags to waiting bios, in arrival order, to every one whose
    /// depth limit allows it. The tag wait was part of the submission, so the
    /// bio enters the block layer now (its slat includes the wait).
    fn admit_tag_waiters(&mut self, hq: u32, now: Ns) {
        let hq_i = hq as usize;
        loop {
            let used = self.tags_used[hq_i];
            let (sched, tags) = (&*self.sched, self.tags_per_hq);
            let Some(mut bio) = self.tag_waiters[hq_i].pop_admitted(
                |dir, sync| used < depth_limit(sched, dir, sync, tags),
                &mut self.unblocked,
            ) else {
                return;
            };
            bio.submit_ns = now;
            if !self.try_merge(&bio) {
                self.start_request(bio, hq, now);
            }
        }
    }

    /// Whether a bio of `job` waits for a tag (the job is blocked while one does).
    pub fn waiting_for_tag(&self, job: u32) -> bool {
        let hq = self.queue_of(job);
        self.tag_waiters[hq as usize].is_waiting(job)
    }

    /// Moves the jobs unblocked since the last call (their last waiting bio
    /// got a tag) to the end of `out`.
    pub fn take_unblocked(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.unblocked);
    }
}

/// The tags a bio of this kind may hold at once on one hardware queue.
fn depth_limit(sched: &dyn Scheduler, dir: Dir, sync: bool, tags: u32) -> u32 {
    sched
        .limit_depth(dir, sync, tags)
        .unwrap_or(tags)
        .clamp(1, tags)
}

fn request_of(bio: &Bio, id: u64, insert_ns: Ns) -> Request {
    Request {
        id,
        dir: bio.dir,
        sector: bio.sector,
        bytes: bio.bytes,
        prio: bio.prio,
        sync: bio.sync,
        flush: bio.flush,
        fua: bio.fua,
        job: bio.job,
        submit_ns: bio.submit_ns,
        insert_ns,
        dispatch_ns: 0,
    }
}
