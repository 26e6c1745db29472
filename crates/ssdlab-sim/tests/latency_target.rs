//! fio's `latency_target` search on the simulated drive: the depth it finds,
//! the final window its statistics come from, the failure at depth 1, and
//! fio's keys in the report.

use ssdlab_fio::JobFile;
use ssdlab_metrics::JobReport;
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;

fn setup() -> RunSetup {
    RunSetup {
        device: Preset::load_device("seed004").expect("preset loads"),
        host: HostConfig::default(),
        scheduler: "none".into(),
        occupancy: 0.5,
        precondition: ssdlab_sim::ssd::precondition::PreconditionMode::Auto,
        seed: 7,
        check: false,
    }
}

fn job(extra: &str) -> String {
    format!(
        "[probe]\nrw=randread\nbs=4k\ndirect=1\nioengine=libaio\niodepth=64\nsize=512m\n\
         time_based=1\nruntime=20s\n{extra}"
    )
}

fn full_report(text: &str) -> ssdlab_metrics::Report {
    let jf: JobFile = ssdlab_fio::parse_str(text, "t.fio", &|_| None).expect("parses");
    let s = setup();
    let r = fio_run::run(&jf, &s, None).expect("runs");
    report::build(&r, &jf, &s)
}

fn report_of(text: &str) -> JobReport {
    full_report(text).jobs.remove(0)
}

/// Mean completion latency (µs) of the job at a fixed depth.
fn mean_lat_us_at(depth: u32) -> f64 {
    let rep = report_of(&job(&format!("iodepth={depth}\nruntime=1s\n")));
    rep.read.lat.mean() / 1000.0
}

#[test]
fn the_search_finds_the_deepest_queue_within_the_target() {
    // A target between the mean latencies at depths 4 and 32, met by 90 %.
    let (shallow, deep) = (mean_lat_us_at(4), mean_lat_us_at(32));
    assert!(shallow < deep, "{shallow} {deep}");
    let target_us = ((shallow + deep) / 2.0) as u64;
    let text = job(&format!(
        "latency_target={target_us}\nlatency_window=200ms\nlatency_percentile=90\n"
    ));
    let full = full_report(&text);
    let rep = full.jobs[0].clone();
    let depth = rep.latency_depth;
    assert!((4..32).contains(&depth), "depth {depth} for {target_us} µs");
    assert_eq!(rep.error, 0);
    // The job ends once the final window at that depth succeeded, long
    // before its runtime, with statistics from that window alone.
    assert!(
        rep.read.runtime_ns < 20_000_000_000,
        "{}",
        rep.read.runtime_ns
    );
    assert!(
        rep.read.runtime_ns >= 200_000_000,
        "{}",
        rep.read.runtime_ns
    );
    // fio's keys: the target in ns, the window in µs.
    let json = full.to_fio_json();
    let j = &json["jobs"][0];
    assert_eq!(j["latency_target"], target_us * 1000);
    assert_eq!(j["latency_window"], 200_000);
    assert_eq!(j["latency_percentile"], 90.0);
    assert_eq!(j["latency_depth"], depth);
    // The same target twice gives the same depth and figures.
    let again = report_of(&text);
    assert_eq!(
        (again.latency_depth, again.read.total_ios),
        (depth, rep.read.total_ios)
    );
}

#[test]
fn a_target_no_depth_meets_fails_the_job_at_depth_one() {
    // One microsecond: every read is late, at depth 1 too.
    let rep = report_of(&job("latency_target=1\nlatency_window=100ms\n"));
    assert_eq!(rep.latency_depth, 1);
    assert_eq!(rep.error, 110, "ETIMEDOUT, as fio");
    // Without a target the job runs its iodepth and reports it.
    let plain = report_of(&job("runtime=1s\n"));
    assert_eq!(
        (plain.latency_depth, plain.error, plain.latency_target_ns),
        (64, 0, 0)
    );
}
