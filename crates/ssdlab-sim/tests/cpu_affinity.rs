//! fio's CPU affinity (`cpumask`, `cpus_allowed`): jobs pinned to one CPU
//! share its time, and a hardware queue whose jobs are all pinned to one CPU
//! runs its dispatches and completions there too.

use ssdlab_fio::JobFile;
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::ssd::config::SsdConfig;

const US: u64 = 1_000;

/// The small device, half full, with host costs far above its own so that
/// the host CPUs decide the throughput.
fn setup(costs: impl Fn(&mut HostConfig)) -> RunSetup {
    let mut host = HostConfig::default();
    host.costs.submit_ns = US;
    host.costs.dispatch_ns = US;
    host.costs.complete_ns = US;
    host.costs.wakeup_ns = 0;
    costs(&mut host);
    RunSetup {
        device: SsdConfig::load("seed004").expect("preset loads"),
        host,
        scheduler: "none".into(),
        occupancy: 0.5,
        precondition: ssdlab_sim::ssd::precondition::PreconditionMode::Auto,
        seed: 3,
        check: false,
    }
}

/// Total read IOPS of the job file's jobs.
fn iops(affinity: &str, jobs: u32, s: &RunSetup) -> f64 {
    let text = format!(
        "[global]\nioengine=libaio\niodepth=8\ndirect=1\nbs=4k\nrw=randread\n\
         time_based\nruntime=200ms\n{affinity}\n[j]\nnumjobs={jobs}\n"
    );
    let jf: JobFile = ssdlab_fio::parse_str(&text, "test.fio", &|_| None).expect("parses");
    let r = fio_run::run(&jf, s, None).expect("runs");
    let rep = report::build(&r, &jf, s);
    rep.jobs
        .iter()
        .map(|j| j.read.total_ios as f64 * 1e9 / j.read.runtime_ns as f64)
        .sum()
}

#[test]
fn jobs_pinned_to_one_cpu_take_turns_on_it() {
    // Submissions cost 100 µs: each job's own CPU carries 10,000 a second.
    let s = setup(|h| h.costs.submit_ns = 100 * US);
    let own = iops("", 2, &s);
    let shared = iops("cpumask=1", 2, &s);
    assert!(own > 18_000.0, "two CPUs: {own}");
    assert!(shared < 10_500.0, "one CPU for both: {shared}");
    // Split gives each job a CPU of the set; shared over two CPUs pins none.
    let split = iops("cpus_allowed=0-1\ncpus_allowed_policy=split", 2, &s);
    let spread = iops("cpus_allowed=0-1", 2, &s);
    assert!((split / own - 1.0).abs() < 0.02, "{split} vs {own}");
    assert!((spread / own - 1.0).abs() < 0.02, "{spread} vs {own}");
}

#[test]
fn a_queue_of_one_pinned_cpu_completes_on_that_cpu() {
    // Completions cost 100 µs on the queue's CPU. With a CPU of its own the
    // queue completes 10,000 a second while the job submits; pinned, the
    // job's CPU also takes the queue's work and both share 100 + 2 µs.
    let s = setup(|h| h.costs.complete_ns = 100 * US);
    let own = iops("", 1, &s);
    let pinned = iops("cpumask=4", 1, &s);
    assert!(own > 9_500.0 && own < 10_100.0, "{own}");
    assert!(pinned < 9_900.0 && pinned > 9_500.0, "{pinned}");
    // The difference is the submission and dispatch moving onto the queue's
    // CPU: 2 µs more per I/O there.
    let expected = 1e9 / (102.0 * US as f64);
    assert!(
        (pinned / expected - 1.0).abs() < 0.01,
        "{pinned} vs {expected}"
    );
}
