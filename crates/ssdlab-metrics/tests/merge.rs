mod common;

use common::{read_job, report};
use ssdlab_metrics::*;

#[test]
fn merge_sums_like_fio_group_reporting() {
    let a = read_job("clone");
    let mut b = read_job("clone-b");
    b.read.runtime_ns = 1_500_000_000;
    b.usr_cpu = 10.0;
    let m = merge_jobs(&[a.clone(), b.clone()]);
    assert_eq!(m.jobname, "clone");
    assert_eq!(m.members, 2);
    assert_eq!(m.read.io_bytes, a.read.io_bytes + b.read.io_bytes);
    assert_eq!(m.read.total_ios, 20_000);
    assert_eq!(m.read.runtime_ns, 1_500_000_000);
    assert_eq!(m.read.clat.count(), 20_000);
    let mut both = a.read.clat.clone();
    both.merge(&b.read.clat);
    assert_eq!(m.read.clat.buckets, both.buckets);
    // bw statistics are added up (fio's pure sum): min 40000 + 40000
    let bw = m.read.bw_stat();
    assert_eq!(bw.min, 80_000);
    assert_eq!(bw.samples, 4);
    assert_eq!(bw.mean, 80_000.0);
    // job_runtime is the sum, cpu weighted by it
    assert_eq!(m.job_runtime(), 2500);
    assert!((m.usr_cpu - 6.0).abs() < 1e-9);
    let v = report(vec![m.clone()]).to_fio_json();
    let r = &v["jobs"][0]["read"];
    assert_eq!(r["bw_samples"], 4);
    assert_eq!(r["bw_min"], 80_000);
    assert_eq!(r["runtime"], 1500);
    assert_eq!(r["total_ios"], 20_000);
    assert!(r.get("prios").is_none());
    let t = report(vec![m]).to_normal_text();
    assert!(t.contains("clone: (groupid=0, jobs=2)"), "{t}");
}

#[test]
fn merge_different_priorities_reports_prios() {
    let a = read_job("a");
    let mut b = read_job("b");
    b.ioprio = IoPrio {
        class: 1,
        level: 2,
        hint: 0,
    };
    let m = merge_jobs(&[a, b]);
    assert_eq!(m.prios.len(), 2);
    let v = report(vec![m]).to_fio_json();
    let prios = v["jobs"][0]["read"]["prios"].as_array().unwrap();
    assert_eq!(prios.len(), 2);
    assert_eq!(prios[1]["prioclass"], 1);
    assert_eq!(prios[1]["clat_ns"]["N"], 10_000);
}

#[test]
fn io_stat_matches_fio_online_algorithm() {
    let s = IoStat::from_samples(&[2, 4, 4, 4, 5, 5, 7, 9]);
    assert_eq!(s.min, 2);
    assert_eq!(s.max, 9);
    assert!((s.mean - 5.0).abs() < 1e-12);
    // sample stddev (n - 1): sqrt(32 / 7)
    assert!((s.stddev() - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    assert_eq!(IoStat::from_samples(&[7]).stddev(), 0.0);
    assert!(IoStat::new().calc().is_none());
}
