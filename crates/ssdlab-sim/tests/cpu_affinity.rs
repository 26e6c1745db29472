//! fio's CPU affinity (`cpumask`, `cpus_allowed`): jobs pinned to one CPU
//! share its time, and a hardware queue whose jobs are all pinned to one CPU
//! runs its dispatches and completions there too.

use ssdlab_fio::JobFile;
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;

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
        device: Preset::load_device("seed004").expect("preset loads"),
        host,
        scheduler: "none".into(),
        occupancy: 0.5,
        precondition: ssdlab_sim::ssd::precondition::PreconditionMode::Auto,
        seed: 3,
        check: false,
    }
}

/// Total read IOPS of the jobs of `sections` (after a shared [global]).
fn iops_of(sections: &str, s: &RunSetup) -> f64 {
    let text = format!(
        "[global]\nioengine=libaio\niodepth=8\ndirect=1\nbs=4k\nrw=randread\n\
         time_based\nruntime=200ms\n{sections}"
    );
    let jf: JobFile = ssdlab_fio::parse_str(&text, "test.fio", &|_| None).expect("parses");
    let r = fio_run::run(&jf, s, None).expect("runs");
    let rep = report::build(&r, &jf, s);
    rep.jobs
        .iter()
        .map(|j| j.read.total_ios as f64 * 1e9 / j.read.runtime_ns as f64)
        .sum()
}

/// Total read IOPS of `jobs` clones of one job with the given affinity.
fn iops(affinity: &str, jobs: u32, s: &RunSetup) -> f64 {
    iops_of(&format!("[j]\nnumjobs={jobs}\n{affinity}\n"), s)
}

#[test]
fn jobs_pinned_to_one_cpu_take_turns_on_it() {
    // Submissions cost 100 µs: each job's own CPU carries 10,000 a second.
    let s = setup(|h| h.costs.submit_ns = 100 * US);
    let own = iops("", 4, &s);
    assert!(own > 38_000.0, "four CPUs: {own}");
    let shared = iops("cpumask=1", 4, &s);
    assert!(shared < 10_500.0, "one CPU for four: {shared}");
    // Split deals the set's CPUs out: two jobs on each of two CPUs.
    let split = iops("cpus_allowed=0-1\ncpus_allowed_policy=split", 4, &s);
    assert!(
        (split / (own / 2.0) - 1.0).abs() < 0.05,
        "{split} vs {own} / 2"
    );
    // A set of two CPUs shared by its jobs pins none of them.
    let spread = iops("cpus_allowed=0-1", 4, &s);
    assert!((spread / own - 1.0).abs() < 0.02, "{spread} vs {own}");
}

#[test]
fn split_counts_the_jobs_of_the_whole_file() {
    // Two sections of one job each: fio numbers its jobs across the file,
    // so split gives the first CPU 0 and the second CPU 1.
    let s = setup(|h| h.costs.submit_ns = 100 * US);
    let pinned = "cpus_allowed=0-1\ncpus_allowed_policy=split\n";
    let two = iops_of(&format!("[a]\n{pinned}[b]\n{pinned}"), &s);
    let same = iops_of("[a]\ncpumask=1\n[b]\ncpumask=1\n", &s);
    assert!(two > 19_000.0, "{two}");
    assert!(same < 10_500.0, "{same}");
}

#[test]
fn a_queue_of_one_pinned_cpu_dispatches_and_completes_on_it() {
    // 50 µs to submit, 50 µs to complete. On two CPUs the job's submissions
    // and the queue's completions overlap (about 51 µs an I/O); on one
    // they follow each other (101 µs).
    let s = setup(|h| {
        h.costs.submit_ns = 50 * US;
        h.costs.complete_ns = 50 * US;
    });
    let own = iops("", 1, &s);
    let pinned = iops("cpumask=4", 1, &s);
    assert!(own > 18_500.0, "{own}");
    let expected = 1e9 / (101.0 * US as f64);
    assert!(
        (pinned / expected - 1.0).abs() < 0.02,
        "{pinned} vs {expected}"
    );
}
