//! The blk-mq path against the simulated device: tags, dispatch bounds,
//! priorities, merging; every bio ends exactly once.

use ssdlab_protocol::Device;
use ssdlab_protocol::Dir;
use ssdlab_protocol::{Ns, Timers};
use ssdlab_sched::{IoClass, IoPrio};
use ssdlab_sim::host::{Bio, BioDone, BlockLayer, CpuPlan, HostConfig, HostCounters, HostEvent};
use ssdlab_sim::kernel::{Ctx, Simulation, WorkEvent, Workload};
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::device::SimSsd;
use ssdlab_sim::ssd::precondition::{precondition, Precondition};

/// Bios submitted together at the start; every ended bio is recorded.
#[derive(Default)]
struct BioBatch {
    bios: Vec<Bio>,
    accepted: u32,
    done: Vec<(Bio, Ns)>,
}

impl Workload for BioBatch {
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        for mut bio in std::mem::take(&mut self.bios) {
            bio.issue_ns = cx.now();
            self.accepted += cx.submit_bio(bio) as u32;
        }
    }

    fn on_event<D: Device>(&mut self, _: WorkEvent, _: &mut Ctx<'_, D>) {}

    fn bio_done<D: Device>(&mut self, d: BioDone, _: &mut Ctx<'_, D>) {
        self.done.push((d.bio, d.time));
    }

    fn is_done(&self) -> bool {
        false
    }
}

struct Harness {
    sim: Simulation<SimSsd>,
    batch: BioBatch,
    max_device_outstanding: u32,
    done: Vec<(Bio, Ns)>,
}

impl Harness {
    fn new(sched_spec: &str, host: HostConfig) -> Harness {
        let mut cfg = Preset::load_device("seed004").unwrap();
        cfg.geometry.blocks_per_plane = 64;
        let mut dev = SimSsd::new(cfg, 1, true);
        precondition(
            &mut dev,
            &Precondition {
                occupancy: 0.5,
                ..Precondition::full()
            },
            1,
        )
        .unwrap();
        let block = BlockLayer::new(host, ssdlab_sched::build(sched_spec).unwrap(), &dev.info());
        Harness {
            sim: Simulation::new(dev, Some(block), 1),
            batch: BioBatch::default(),
            max_device_outstanding: 0,
            done: Vec::new(),
        }
    }

    fn bio(id: u64, job: u32, dir: Dir, sector: u64, prio: IoPrio) -> Bio {
        Bio {
            id,
            job,
            dir,
            sector,
            bytes: 4096,
            prio,
            sync: true,
            flush: false,
            fua: false,
            issue_ns: 0,
            submit_ns: 0,
        }
    }

    /// Queues a bio for the next run.
    fn submit(&mut self, bio: Bio) {
        self.batch.bios.push(bio);
    }

    fn counters(&self) -> &HostCounters {
        self.sim.host().unwrap().counters()
    }

    /// Submits the queued bios at once and runs until nothing is left;
    /// returns how many got a tag at once.
    fn run_until_idle(&mut self) -> u32 {
        let mut batch = std::mem::take(&mut self.batch);
        let mut most = self.max_device_outstanding;
        let mut step = |_: Ns, dev: &SimSsd| most = most.max(dev.outstanding());
        self.sim.run(&mut batch, Some(&mut step));
        self.max_device_outstanding = most;
        self.done.append(&mut batch.done);
        let block = self.sim.host().unwrap();
        assert!(
            block.is_idle(),
            "pending {:?}, {:?}",
            block.pending(),
            block.counters()
        );
        self.sim.device().check_invariants().unwrap();
        batch.accepted
    }
}

const BE: IoPrio = IoPrio {
    class: IoClass::Be,
    level: 4,
};
const RT: IoPrio = IoPrio {
    class: IoClass::Rt,
    level: 0,
};

#[test]
fn k2_bounds_the_device_queue_and_serves_rt_first() {
    let mut h = Harness::new("k2:max_inflight=4", HostConfig::default());
    for i in 0..200u64 {
        h.submit(Harness::bio(i, 0, Dir::Read, (i * 7919 % 100_000) * 8, BE));
    }
    let rt_id = 10_000;
    h.submit(Harness::bio(rt_id, 1, Dir::Read, 12_345 * 8, RT));
    h.run_until_idle();
    assert_eq!(h.done.len(), 201);
    // The bound is reached, not only respected: 200 queued reads keep
    // exactly four at the device.
    assert_eq!(h.max_device_outstanding, 4);
    // The RT read overtakes the 196 BE reads still queued on the host.
    let rt_pos = h.done.iter().position(|(b, _)| b.id == rt_id).unwrap();
    assert!(rt_pos < 10, "RT finished {rt_pos}th");
}

#[test]
fn none_sends_everything_the_tags_allow() {
    let mut h = Harness::new("none", HostConfig::default());
    for i in 0..200u64 {
        h.submit(Harness::bio(i, 0, Dir::Read, (i * 7919 % 100_000) * 8, BE));
    }
    h.run_until_idle();
    assert_eq!(h.done.len(), 200);
    // Bounded only by how fast the queue's CPU dispatches against completions.
    assert!(
        h.max_device_outstanding > 32,
        "{}",
        h.max_device_outstanding
    );
}

#[test]
fn scheduler_tags_limit_requests_and_waiters_get_them_in_order() {
    let host = HostConfig {
        nr_requests: 8,
        ..HostConfig::default()
    };
    let mut h = Harness::new("mq-deadline", host);
    for i in 0..50u64 {
        h.submit(Harness::bio(i, 0, Dir::Read, (i * 977 % 50_000) * 8, BE));
    }
    assert_eq!(h.run_until_idle(), 8);
    assert_eq!(h.done.len(), 50);
    assert!(h.counters().tag_waits >= 42);
    assert_eq!(h.max_device_outstanding, 8, "every tag in use at once");
    // Writes get only async_depth = 3/4 of the tags (mq-deadline limit_depth).
    for i in 0..50u64 {
        h.submit(Harness::bio(
            100 + i,
            0,
            Dir::Write,
            (i * 977 % 50_000) * 8,
            BE,
        ));
    }
    assert_eq!(h.run_until_idle(), 6);
    assert_eq!(h.done.len(), 100);
}

#[test]
fn sequential_bios_merge_while_k2_holds_them() {
    let mut h = Harness::new("k2:max_inflight=1,merge=1", HostConfig::default());
    for i in 0..64u64 {
        h.submit(Harness::bio(i, 0, Dir::Read, 4096 + i * 8, BE));
    }
    h.run_until_idle();
    assert_eq!(h.done.len(), 64);
    assert!(h.counters().merges > 40, "{:?}", h.counters());
    let mut ids: Vec<u64> = h.done.iter().map(|(b, _)| b.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 64, "every bio ends exactly once");
}

#[test]
fn writes_and_reads_through_the_host_keep_data_integrity() {
    let mut h = Harness::new("kyber", HostConfig::default());
    for round in 0..20u64 {
        for i in 0..32u64 {
            let dir = if (i + round) % 3 == 0 {
                Dir::Read
            } else {
                Dir::Write
            };
            h.submit(Harness::bio(
                round * 100 + i,
                (i % 3) as u32,
                dir,
                ((i * 31 + round) % 512) * 8,
                BE,
            ));
        }
        h.run_until_idle();
    }
    assert_eq!(h.done.len(), 640);
}

/// Timers that only collect what is scheduled.
struct Collect(Vec<(Ns, HostEvent)>);

impl Timers<HostEvent> for Collect {
    fn schedule(&mut self, at: Ns, event: HostEvent) {
        self.0.push((at, event));
    }
}

#[test]
fn a_pinned_job_waits_for_tags_on_its_cpus_queue() {
    // Job 0 pinned to CPU 1 submits to queue 1 of 2, not to queue 0.
    let host = HostConfig {
        hw_queues: 2,
        nr_requests: 2,
        ..HostConfig::default()
    };
    let cfg = Preset::load_device("seed004").unwrap();
    let dev = SimSsd::new(cfg, 1, false);
    let mut block = BlockLayer::new(
        host,
        ssdlab_sched::build("mq-deadline").unwrap(),
        &dev.info(),
    );
    block.use_cpus(&CpuPlan::new(&[Some(1)], 2));
    let mut q = Collect(Vec::new());
    let taken: Vec<bool> = (0..3u64)
        .map(|i| block.submit_bio(Harness::bio(i, 0, Dir::Read, i * 4096, BE), 0, &mut q))
        .collect();
    assert_eq!(taken, vec![true, true, false], "two tags, then a wait");
    assert!(block.waiting_for_tag(0), "the job's bio waits on queue 1");
}
