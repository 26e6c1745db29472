#![allow(dead_code)]
use ssdlab_metrics::*;

/// A read job: 10 000 I/Os of 4 KiB, clat 100..=110 µs-ish, over 1 s.
pub fn read_job(name: &str) -> JobReport {
    let mut job = JobReport::new(name, 0);
    job.job_options = vec![
        ("rw".into(), "randread".into()),
        ("bs".into(), "4k".into()),
        ("iodepth".into(), "1".into()),
    ];
    let mut sampler = Sampler::fio_default();
    for i in 0..10_000u64 {
        let clat = 100_000 + (i % 11) * 1_000 + (i % 7) * 3_000;
        let t = i * 100_000;
        job.read.record_io(4096, None, clat, clat + 500);
        sampler.add(t, 4096);
    }
    job.read.runtime_ns = 1_000_000_000;
    job.read.fill_samples(&sampler.finish(1_000_000_000));
    job
}

pub fn report(jobs: Vec<JobReport>) -> Report {
    Report {
        version: "fio-3.36".into(),
        timestamp: 1_700_000_000,
        timestamp_ms: 1_700_000_000_123,
        time: "Tue Nov 14 22:13:20 2023".into(),
        global_options: vec![("ioengine".into(), "psync".into())],
        jobs,
        extras: serde_json::Value::Null,
    }
}
