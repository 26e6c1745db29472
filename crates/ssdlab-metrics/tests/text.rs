mod common;

use common::{read_job, report};
use serde_json::json;
use ssdlab_metrics::*;
use ssdlab_protocol::Dir;

#[test]
fn num2str_matches_fio() {
    assert_eq!(
        num2str(41_700_000, 4, 1, true, N2sUnit::BytePerSec),
        "39.8MiB/s"
    );
    assert_eq!(
        num2str(41_700_000, 4, 1, false, N2sUnit::BytePerSec),
        "41.7MB/s"
    );
    assert_eq!(num2str(10_240, 4, 1, false, N2sUnit::None), "10.2k");
    assert_eq!(num2str(2_505_000_000, 4, 1, true, N2sUnit::Byte), "2389MiB");
    assert_eq!(num2str(2_505_000_000, 4, 1, false, N2sUnit::Byte), "2505MB");
    assert_eq!(num2str(999, 4, 1, false, N2sUnit::None), "999");
    assert_eq!(num2str(123_456, 6, 1, false, N2sUnit::None), "123456");
    assert_eq!(num2str(1_234_567, 6, 1, false, N2sUnit::None), "1234.6k");
    assert_eq!(num2str(1_999_999, 4, 1, false, N2sUnit::None), "2000k");
    assert_eq!(num2str(40_960_000, 4, 1, true, N2sUnit::Byte), "39.1MiB");
}

#[test]
fn normal_text_labels_and_units() {
    let mut job = read_job("randread-job");
    job.extras = json!({"waf": 1.5, "ftl": {"gc_runs": 3}});
    let mut rep = report(vec![job]);
    rep.extras = json!({"device": "sim0"});
    let t = rep.to_normal_text();
    assert!(
        t.contains("randread-job: (groupid=0, jobs=1): err= 0: pid=0"),
        "{t}"
    );
    assert!(
        t.contains("  read: IOPS=10.0k, BW=39.1MiB/s (41.0MB/s)(39.1MiB/1000msec)"),
        "{t}"
    );
    assert!(t.contains("    clat (usec): min=100, max="), "{t}");
    assert!(t.contains("     lat (usec): min=100, max="), "{t}");
    assert!(!t.contains("slat ("), "no slat samples: no slat line\n{t}");
    assert!(
        t.contains("    clat percentiles (usec):\n     |  1.00th=[  "),
        "{t}"
    );
    assert!(t.contains("], 99.90th=["), "{t}");
    assert!(t.contains("   bw (  KiB/s): min=40000, max=40000, per=100.00%, avg=40000.00, stdev= 0.00, samples=2"), "{t}");
    assert!(
        t.contains("   iops        : min=10000, max=10000, avg=10000.00, stdev= 0.00, samples=2"),
        "{t}"
    );
    assert!(t.contains("  lat (usec)   : 250="), "{t}");
    assert!(
        t.contains("  cpu          : usr=0.00%, sys=0.00%, ctx=0, majf=0, minf=0"),
        "{t}"
    );
    assert!(t.contains("  IO depths    : 1=0.0%"), "{t}");
    assert!(
        t.contains("     issued rwts: total=10000,0,0,0 short=0,0,0,0 dropped=0,0,0,0"),
        "{t}"
    );
    assert!(t.contains("Run status group 0 (all jobs):"), "{t}");
    assert!(t.contains("   READ: bw=39.1MiB/s (41.0MB/s), 39.1MiB/s-39.1MiB/s (41.0MB/s-41.0MB/s), io=39.1MiB (41.0MB), run=1000-1000msec"), "{t}");
    assert!(t.contains("ssdlab:\n  device: sim0"), "{t}");
    assert!(
        t.contains("ssdlab (randread-job):\n  ftl.gc_runs: 3\n  waf: 1.5"),
        "{t}"
    );
    // four percentiles per line as fio
    let first = t.lines().find(|l| l.contains("1.00th=[")).unwrap();
    assert_eq!(first.matches("th=[").count(), 4, "{first}");
}

fn job_with_clat(values: &[u64]) -> JobReport {
    let mut job = JobReport::new("u", 0);
    for &v in values {
        job.write.record_io(4096, Some(v / 10), v, v + v / 10);
    }
    job.write.runtime_ns = 1_000_000_000;
    job
}

#[test]
fn unit_choice_like_fio() {
    // small latencies -> nsec
    let t = report(vec![job_with_clat(&[500, 800, 900, 1500])]).to_normal_text();
    assert!(t.contains("    clat (nsec): min=500, max=1500"), "{t}");
    assert!(t.contains("    slat (nsec): min=50,"), "{t}");
    assert!(t.contains("clat percentiles (nsec):"), "{t}");
    assert!(
        t.contains("  lat (nsec)   : 750=25.00%, 1000=50.00%"),
        "{t}"
    );
    assert!(t.contains("  lat (usec)   : 2=25.00%"), "{t}");
    // milliseconds: min > 2 ms, max > 99.99 ms, stdev > 1 ms
    let t = report(vec![job_with_clat(&[3_000_000, 50_000_000, 150_000_000])]).to_normal_text();
    assert!(t.contains("    clat (msec): min=3, max=150, avg="), "{t}");
    assert!(t.contains("clat percentiles (msec):"), "{t}");
    assert!(
        t.contains("  lat (msec)   : 4=33.33%, 100=33.33%, 250=33.33%"),
        "{t}"
    );
    // wide range with a small minimum stays in usec/nsec per fio's rule
    let t = report(vec![job_with_clat(&[1_000, 150_000_000])]).to_normal_text();
    assert!(t.contains("    clat (nsec): min=1000, max=150000k"), "{t}");
    // usec percentiles are rounded up from ns
    let t = report(vec![job_with_clat(&[100_500; 4])]).to_normal_text();
    assert!(t.contains("clat percentiles (usec)"), "{t}");
    assert!(t.contains("[  101]"), "{t}");
}

#[test]
fn lat_percentiles_header_and_prio_lines() {
    let mut job = read_job("p");
    job.lat_percentiles = true;
    let mut h = FioHistogram::new();
    h.record(5000);
    job.prios = vec![
        PrioStats {
            ioprio: IoPrio {
                class: 1,
                level: 0,
                hint: 0,
            },
            dir: Dir::Read,
            hist: h.clone(),
        },
        PrioStats {
            ioprio: IoPrio {
                class: 2,
                level: 4,
                hint: 0,
            },
            dir: Dir::Read,
            hist: h,
        },
    ];
    let t = report(vec![job]).to_normal_text();
    assert!(t.contains("\n    lat percentiles (usec):\n     |"), "{t}");
    assert!(!t.contains("clat percentiles"), "{t}");
    assert!(
        t.contains("    lat prio 2/4/0 (nsec): min=5000, max=5000, avg=5000.00, stdev= 0.00"),
        "{t}"
    );
    assert!(
        t.contains("lat prio 1/0/0 (0.01% of IOs) percentiles (nsec):"),
        "{t}"
    );
}
