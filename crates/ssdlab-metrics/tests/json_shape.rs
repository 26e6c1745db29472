mod common;

use common::{read_job, report};
use serde_json::{json, Value};
use ssdlab_metrics::*;
use ssdlab_protocol::Dir;

const DIR_KEYS: [&str; 26] = [
    "io_bytes",
    "io_kbytes",
    "bw_bytes",
    "bw",
    "iops",
    "runtime",
    "total_ios",
    "short_ios",
    "drop_ios",
    "slat_ns",
    "clat_ns",
    "lat_ns",
    "bw_min",
    "bw_max",
    "bw_agg",
    "bw_mean",
    "bw_dev",
    "bw_samples",
    "iops_min",
    "iops_max",
    "iops_mean",
    "iops_stddev",
    "iops_samples",
    "io_bytes",
    "runtime",
    "bw",
];

const JOB_KEYS: [&str; 22] = [
    "jobname",
    "groupid",
    "error",
    "eta",
    "elapsed",
    "job options",
    "read",
    "write",
    "trim",
    "sync",
    "job_runtime",
    "usr_cpu",
    "sys_cpu",
    "ctx",
    "majf",
    "minf",
    "iodepth_level",
    "iodepth_submit",
    "iodepth_complete",
    "latency_ns",
    "latency_us",
    "latency_ms",
];

fn is_uint(v: &Value) -> bool {
    v.is_u64()
}

#[test]
fn top_level_and_job_keys() {
    let v = report(vec![read_job("j1")]).to_fio_json();
    assert_eq!(v["fio version"], "fio-3.36");
    assert!(v["timestamp"].is_i64() || v["timestamp"].is_u64());
    assert!(v["timestamp_ms"].is_number());
    assert!(v["time"].is_string());
    assert_eq!(v["global options"]["ioengine"], "psync");
    assert!(v["disk_util"].is_array());
    assert!(v.get("ssdlab").is_none(), "no extras -> no ssdlab key");
    let job = &v["jobs"][0];
    for k in JOB_KEYS {
        assert!(job.get(k).is_some(), "missing job key {k}");
    }
    assert!(job["jobname"].is_string());
    assert!(is_uint(&job["groupid"]) && is_uint(&job["error"]) && is_uint(&job["elapsed"]));
    assert!(is_uint(&job["job_runtime"]) && is_uint(&job["ctx"]));
    assert!(job["usr_cpu"].is_f64() && job["sys_cpu"].is_f64());
    for d in ["read", "write", "trim"] {
        for k in DIR_KEYS {
            assert!(job[d].get(k).is_some(), "missing {d}.{k}");
        }
        for k in ["slat_ns", "clat_ns", "lat_ns"] {
            let o = &job[d][k];
            for f in ["min", "max", "N"] {
                assert!(is_uint(&o[f]), "{d}.{k}.{f} must be an integer");
            }
            assert!(o["mean"].is_f64() && o["stddev"].is_f64());
        }
        for k in [
            "io_bytes",
            "io_kbytes",
            "bw_bytes",
            "bw",
            "runtime",
            "total_ios",
            "bw_min",
            "bw_max",
            "bw_samples",
            "iops_min",
            "iops_max",
            "iops_samples",
        ] {
            assert!(is_uint(&job[d][k]), "{d}.{k} must be an integer");
        }
        for k in [
            "iops",
            "bw_agg",
            "bw_mean",
            "bw_dev",
            "iops_mean",
            "iops_stddev",
        ] {
            assert!(job[d][k].is_f64(), "{d}.{k} must be a float");
        }
    }
    assert_eq!(job["sync"]["total_ios"], 0);
    assert_eq!(job["sync"]["lat_ns"]["N"], 0);
    let lvl = job["iodepth_level"].as_object().unwrap();
    for k in ["1", "2", "4", "8", "16", "32", ">=64"] {
        assert!(lvl.contains_key(k));
    }
    let sub = job["iodepth_submit"].as_object().unwrap();
    for k in ["0", "4", "8", "16", "32", "64", ">=64"] {
        assert!(sub.contains_key(k));
    }
    assert_eq!(job["latency_ns"].as_object().unwrap().len(), 10);
    assert_eq!(job["latency_us"].as_object().unwrap().len(), 10);
    let ms = job["latency_ms"].as_object().unwrap();
    assert_eq!(ms.len(), 12);
    assert!(ms.contains_key(">=2000") && ms.contains_key("2000"));
    // every clat is 100..=148 us: all in the 100 and 250 us buckets
    let us = &job["latency_us"];
    let total = us["250"].as_f64().unwrap() + us["100"].as_f64().unwrap();
    assert!((total - 100.0).abs() < 1e-6, "{us}");
    // fio-plot needs rw, iodepth, numjobs, bs
    for k in ["rw", "iodepth", "numjobs", "bs"] {
        assert!(job["job options"][k].is_string(), "job option {k}");
    }
    assert_eq!(job["job options"]["numjobs"], "1");
}

#[test]
fn read_figures_are_fio_arithmetic() {
    let v = report(vec![read_job("j1")]).to_fio_json();
    let r = &v["jobs"][0]["read"];
    assert_eq!(r["io_bytes"], 40_960_000);
    assert_eq!(r["io_kbytes"], 40_000);
    assert_eq!(r["runtime"], 1000);
    assert_eq!(r["bw_bytes"], 40_960_000);
    assert_eq!(r["bw"], 40_000);
    assert_eq!(r["iops"].as_f64().unwrap(), 10_000.0);
    assert_eq!(r["total_ios"], 10_000);
    assert_eq!(r["clat_ns"]["N"], 10_000);
    assert_eq!(r["lat_ns"]["N"], 10_000);
    assert_eq!(r["slat_ns"]["N"], 0);
    assert_eq!(r["clat_ns"]["min"], 100_000);
    // two 500 ms windows of 5000 I/Os each
    assert_eq!(r["bw_samples"], 2);
    assert_eq!(r["bw_min"], 40_000);
    assert_eq!(r["iops_min"], 10_000);
    assert_eq!(r["iops_mean"].as_f64().unwrap(), 10_000.0);
    assert_eq!(r["bw_agg"].as_f64().unwrap(), 100.0);
}

#[test]
fn bw_is_truncated_kib() {
    let mut job = JobReport::new("t", 0);
    // 1000 * 3071 / 1000 ms = 3071 B/s -> 2.999 KiB/s -> fio prints 2
    job.write.io_bytes = 3071;
    job.write.total_ios = 3;
    job.write.runtime_ns = 1_000_000_000;
    let v = report(vec![job]).to_fio_json();
    let w = &v["jobs"][0]["write"];
    assert_eq!(w["bw_bytes"], 3071);
    assert_eq!(w["bw"], 2);
    assert_eq!(w["iops"].as_f64().unwrap(), 3.0);
    // runtime: microseconds rounded up to ms
    let mut ds = DirStats::new();
    ds.runtime_ns = 1_000_001_000;
    assert_eq!(ds.runtime_ms(), 1001);
    ds.runtime_ns = 1_000_000_999;
    assert_eq!(ds.runtime_ms(), 1000);
}

#[test]
fn percentile_keys_are_percent_f() {
    let v = report(vec![read_job("j1")]).to_fio_json();
    let p = v["jobs"][0]["read"]["clat_ns"]["percentile"]
        .as_object()
        .unwrap();
    assert_eq!(p.len(), 17);
    for k in [
        "1.000000",
        "50.000000",
        "99.500000",
        "99.900000",
        "99.950000",
        "99.990000",
    ] {
        assert!(p.contains_key(k), "missing {k}");
        assert!(p[k].is_u64());
    }
    assert!(v["jobs"][0]["read"]["lat_ns"].get("percentile").is_none());
    assert!(v["jobs"][0]["read"]["slat_ns"].get("percentile").is_none());
    // no samples -> no percentile block
    assert!(v["jobs"][0]["write"]["clat_ns"].get("percentile").is_none());
    // custom list
    let mut job = read_job("j2");
    job.percentile_list = vec![99.999, 50.0];
    let v = report(vec![job]).to_fio_json();
    let p = v["jobs"][0]["read"]["clat_ns"]["percentile"]
        .as_object()
        .unwrap();
    let keys: Vec<_> = p.keys().cloned().collect();
    assert_eq!(keys.len(), 2);
    assert!(p.contains_key("99.999000") && p.contains_key("50.000000"));
}

#[test]
fn lat_percentiles_moves_the_block() {
    let mut job = read_job("j1");
    job.lat_percentiles = true;
    let v = report(vec![job]).to_fio_json();
    let r = &v["jobs"][0]["read"];
    assert!(r["clat_ns"].get("percentile").is_none());
    let p = r["lat_ns"]["percentile"].as_object().unwrap();
    assert_eq!(p.len(), 17);
}

#[test]
fn prios_only_with_two_or_more() {
    let mut job = read_job("j1");
    let mut h1 = FioHistogram::new();
    h1.record(1000);
    let p = |class, level, h: &FioHistogram| PrioStats {
        ioprio: IoPrio {
            class,
            level,
            hint: 0,
        },
        dir: Dir::Read,
        hist: h.clone(),
    };
    job.prios = vec![p(2, 0, &h1), p(1, 0, &FioHistogram::new())];
    let v = report(vec![job.clone()]).to_fio_json();
    assert!(
        v["jobs"][0]["read"].get("prios").is_none(),
        "one prio with samples"
    );
    let mut h2 = FioHistogram::new();
    h2.record(2000);
    h2.record(3000);
    job.prios = vec![p(2, 0, &h1), p(1, 4, &h2)];
    let v = report(vec![job.clone()]).to_fio_json();
    let prios = v["jobs"][0]["read"]["prios"].as_array().unwrap();
    assert_eq!(prios.len(), 2);
    assert_eq!(prios[1]["prioclass"], 1);
    assert_eq!(prios[1]["prio"], 4);
    assert_eq!(prios[1]["clat_ns"]["N"], 2);
    assert!(prios[1]["clat_ns"]["percentile"].is_object());
    assert!(v["jobs"][0]["write"].get("prios").is_none());
    job.lat_percentiles = true;
    let v = report(vec![job]).to_fio_json();
    assert!(v["jobs"][0]["read"]["prios"][0]["lat_ns"].is_object());
}

#[test]
fn extras_only_under_ssdlab() {
    let base = report(vec![read_job("j1")]).to_fio_json();
    let mut job = read_job("j1");
    job.extras = json!({"waf": 1.25, "gc_cycles": 3});
    let mut rep = report(vec![job]);
    rep.extras = json!({"device": "nvme-sim", "seed": 7});
    let v = rep.to_fio_json();
    assert_eq!(v["ssdlab"]["device"], "nvme-sim");
    assert_eq!(v["jobs"][0]["ssdlab"]["waf"], 1.25);
    // removing the ssdlab keys gives back exactly the fio document
    let mut stripped = v.clone();
    stripped.as_object_mut().unwrap().remove("ssdlab");
    stripped["jobs"][0]
        .as_object_mut()
        .unwrap()
        .remove("ssdlab");
    assert_eq!(stripped, base);
    // no ssdlab field leaks anywhere else
    let text = serde_json::to_string(&stripped).unwrap();
    assert!(!text.contains("waf") && !text.contains("nvme-sim"));
}

#[test]
fn global_options_omitted_when_empty_and_required_options_not_duplicated() {
    let mut rep = report(vec![read_job("j1")]);
    rep.global_options.clear();
    let v = rep.to_fio_json();
    assert!(v.get("global options").is_none());
    let mut rep = report(vec![JobReport::new("bare", 0)]);
    rep.global_options = vec![
        ("rw".into(), "write".into()),
        ("blocksize".into(), "8k".into()),
    ];
    let v = rep.to_fio_json();
    let o = v["jobs"][0]["job options"].as_object().unwrap();
    assert!(!o.contains_key("rw") && !o.contains_key("bs"));
    assert_eq!(o["iodepth"], "1");
}

#[test]
fn fio_text_layout_parses_to_the_same_document() {
    let mut job = read_job("j1");
    job.extras = json!({"nested": {"a": [1, 2.5, "x"]}});
    let rep = report(vec![job, read_job("j2")]);
    let s = rep.to_fio_json_string();
    let parsed: Value = serde_json::from_str(&s).unwrap();
    assert_eq!(parsed, rep.to_fio_json());
    assert!(s.starts_with("{\n  \"fio version\" : \"fio-3.36\",\n"));
    assert!(s.contains("\"99.900000\" : "));
    assert!(s.contains("\"usr_cpu\" : 0.000000"));
    // fio's key order
    let a = s.find("\"jobname\"").unwrap();
    let b = s.find("\"read\"").unwrap();
    let c = s.find("\"latency_ms\"").unwrap();
    assert!(a < b && b < c);
}

#[test]
fn floats_rounded_to_six_decimals() {
    let mut job = JobReport::new("t", 0);
    job.read.io_bytes = 4096 * 3;
    job.read.total_ios = 3;
    job.read.runtime_ns = 7_000_000; // 7 ms: iops = 428.571428571...
    let v = report(vec![job]).to_fio_json();
    assert_eq!(v["jobs"][0]["read"]["iops"].as_f64().unwrap(), 428.571429);
}

#[test]
fn bw_agg_is_percent_of_group() {
    let a = read_job("a");
    let mut b = read_job("b");
    b.read.io_bytes *= 3; // same samples, group aggregate larger
    let v = report(vec![a, b]).to_fio_json();
    // group agg = (40_960_000 * 4) B/s = 160_000 KiB/s; job a mean = 40_000
    let agg = v["jobs"][0]["read"]["bw_agg"].as_f64().unwrap();
    assert!((agg - 25.0).abs() < 1e-9, "{agg}");
}
