//! The command line: exit codes, error messages, determinism.

mod support;

use support::ssdlab;

fn temp_preset(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn malformed_preset_exits_2_naming_file_line_and_key() {
    let (_, good, _) = ssdlab(&["presets", "--show", "seed004"]);
    let bad = good.replace("blocks_per_plane = 512", "blocks_per_plane = 0");
    let path = temp_preset("zero.toml", &bad);
    let line = bad
        .lines()
        .position(|l| l.starts_with("blocks_per_plane"))
        .unwrap()
        + 1;
    let (code, stdout, stderr) = ssdlab(&[
        "bench",
        "--device",
        path.to_str().unwrap(),
        "--requests",
        "10",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty(), "nothing half-written: {stdout}");
    let want = format!("{}:{line}: geometry.blocks_per_plane:", path.display());
    assert!(stderr.contains(&want), "{stderr} lacks {want}");
}

#[test]
fn nonsense_parameters_exit_2() {
    for args in [
        vec!["bench", "--qd", "0", "--device", "seed004"],
        vec!["bench", "--requests", "0", "--device", "seed004"],
        vec!["bench", "--device", "no-such-device"],
        vec!["validate", "waf", "--warmup", "-1"],
        vec!["validate", "datasheet", "seed004"],
        vec!["validate", "datasheet", "--jobs", "0"],
        vec!["bench", "--qd", "many"],
    ] {
        let (code, stdout, stderr) = ssdlab(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(!stderr.is_empty());
    }
}

#[test]
fn bench_json_is_deterministic_apart_from_wall_figures() {
    let args = [
        "bench",
        "--device",
        "seed004",
        "--requests",
        "20000",
        "--json",
    ];
    let strip = |s: &str| {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        let wall = v
            .as_object_mut()
            .unwrap()
            .remove("wall")
            .expect("wall object");
        for k in [
            "precondition_s",
            "randread_req_per_s",
            "randwrite_gc_req_per_s",
            "peak_rss_mb",
        ] {
            assert!(wall.get(k).is_some(), "wall.{k}");
        }
        v
    };
    let (c1, a, _) = ssdlab(&args);
    let (c2, b, _) = ssdlab(&args);
    assert_eq!((c1, c2), (0, 0));
    let (a, b) = (strip(&a), strip(&b));
    assert_eq!(a, b);
    assert!(a["randread"]["p999_us"].as_f64().unwrap() > 0.0);
    assert!(a["randwrite_gc_ftl"]["gc_invocations"].as_u64().unwrap() > 0);
}

#[test]
fn validate_datasheet_prints_every_figure_beside_the_vendors_deterministically() {
    let run = || {
        let (code, out, err) = ssdlab(&["validate", "datasheet", "--json"]);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let v = run();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 9);
    for r in rows {
        let (vendor, sim) = (
            r["vendor"].as_f64().unwrap(),
            r["simulated"].as_f64().unwrap(),
        );
        assert!(vendor > 0.0 && sim > 0.0, "{r}");
        let ratio = r["ratio"].as_f64().unwrap();
        assert!((ratio - sim / vendor).abs() < 1e-9, "{r}");
        assert_eq!(
            r["within"].as_bool().unwrap(),
            (ratio - 1.0).abs() <= 0.25,
            "{r}"
        );
    }
    // consumer-tlc-250g meets the six rows of issue 14's acceptance and
    // the QD 1 rows; the random write beyond TurboWrite over the whole
    // drive does not (docs/calibration.md, "Three more data-sheet rows").
    let beyond_the_buffer = |r: &&serde_json::Value| {
        r["figure"]
            .as_str()
            .unwrap()
            .starts_with("random write after TurboWrite")
    };
    assert_eq!(rows.iter().filter(beyond_the_buffer).count(), 1, "{v}");
    assert!(
        rows.iter()
            .filter(|r| !beyond_the_buffer(r))
            .all(|r| r["within"] == true),
        "{v}"
    );
    // The buffer is read where the sustained write slows: it is smaller
    // than what 40 s at the first second's speed would write.
    let buffer = rows.iter().find(|r| r["unit"] == "GB").unwrap();
    assert!(
        buffer["simulated"].as_f64().unwrap() < 40.0 * 2.5,
        "{buffer}"
    );
    assert_eq!(v, run());
}

#[test]
fn validate_waf_is_within_ten_percent() {
    let (code, out, err) = ssdlab(&[
        "validate",
        "waf",
        "--json",
        "--warmup",
        "2",
        "--measure",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let points = v.as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        let e = p["error_pct"].as_f64().unwrap();
        assert!(e.abs() <= 10.0, "{p}");
    }
}

#[test]
fn presets_lists_all() {
    let (code, out, _) = ssdlab(&["presets"]);
    assert_eq!(code, 0);
    for name in [
        "mqsim-64g",
        "seed004",
        "consumer-tlc-250g",
        "greedy",
        "cost-benefit",
        "random",
        "fifo",
        "randomized-greedy",
        "Page allocation policies",
        "dynamic",
        "clusters",
        "Die schedulers",
        "read-first",
        "edf",
    ] {
        assert!(out.contains(name), "{name}");
    }
}

const SHORT_K2: &str = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nrw=randread\ntime_based\nruntime=1s\n\n\
[bg1]\niodepth=32\nprioclass=2\noffset=0%\nsize=15%\n\n[bg2]\niodepth=32\nprioclass=2\noffset=15%\nsize=15%\n\n\
[rt]\nioengine=psync\nprioclass=1\nprio=0\nthinktime=2000\noffset=45%\nsize=5%\n";

fn strip_timestamps(s: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
    let o = v.as_object_mut().unwrap();
    for k in ["timestamp", "timestamp_ms", "time"] {
        o.remove(k);
    }
    v
}

#[test]
fn run_prints_fio_compatible_json_deterministically() {
    let job = temp_preset("short.fio", SHORT_K2);
    let args = [
        "run",
        job.to_str().unwrap(),
        "--device",
        "seed004",
        "--scheduler",
        "k2:max_inflight=4",
        "--output-format",
        "json",
    ];
    let (c1, a, e1) = ssdlab(&args);
    let (c2, b, _) = ssdlab(&args);
    assert_eq!((c1, c2), (0, 0), "{e1}");
    let (a, b) = (strip_timestamps(&a), strip_timestamps(&b));
    assert_eq!(a, b, "same command, same JSON");
    // On a drive holding data (an empty one answers every read alike), the
    // seed reaches the figures: a test that ignored its seed would pass above.
    let with_data = |seed: &str| {
        let (c, out, e) = ssdlab(&[&args[..], &["--occupancy", "30", "--seed", seed]].concat());
        assert_eq!(c, 0, "{e}");
        strip_timestamps(&out)["jobs"].clone()
    };
    assert_ne!(
        with_data("1"),
        with_data("2"),
        "another seed, other figures"
    );
    let jobs = a["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    for j in jobs {
        assert!(j["jobname"].is_string());
        let opts = &j["job options"];
        assert!(opts.is_object());
        let r = &j["read"];
        assert!(r["clat_ns"]["percentile"]["99.900000"].as_u64().unwrap() > 0);
        assert!(r["bw_bytes"].as_u64().unwrap() > 0);
        assert!(r["iops"].as_f64().unwrap() > 0.0);
    }
    // fio-plot needs rw, iodepth, numjobs and bs in job or global options.
    let globals = &a["global options"];
    for k in ["rw", "bs"] {
        assert!(
            globals[k].is_string() || jobs[0]["job options"][k].is_string(),
            "{k}"
        );
    }
    for k in ["iodepth", "numjobs"] {
        assert!(
            jobs[0]["job options"][k].is_string() || globals[k].is_string(),
            "{k}"
        );
    }
    assert_eq!(a["ssdlab"]["scheduler"], "k2:max_inflight=4");
    let most = a["ssdlab"]["host_counters"]["max_device_inflight"]
        .as_u64()
        .unwrap();
    assert!(
        (1..=4).contains(&most),
        "K2 kept {most} requests at the device"
    );
}

#[test]
fn malformed_job_file_exits_2_with_file_and_line() {
    let job = temp_preset(
        "bad.fio",
        "[global]\nbs=4k\n\n[j]\nrw=randread\niodepth=abc\n",
    );
    let out = temp_preset("never.json", "");
    std::fs::remove_file(&out).unwrap();
    let (code, stdout, stderr) = ssdlab(&[
        "run",
        job.to_str().unwrap(),
        "--device",
        "seed004",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains(&format!("{}:6:", job.display())),
        "{stderr}"
    );
    assert!(stderr.contains("iodepth"), "{stderr}");
    assert!(!out.exists(), "nothing half-written");
}

#[test]
fn bad_scheduler_specs_exit_2() {
    let job = temp_preset("ok.fio", SHORT_K2);
    for spec in [
        "k2:max_inflight=0",
        "k2:bogus=1",
        "nosuch",
        "mq-deadline:read_expire=5 parsecs",
    ] {
        let (code, stdout, stderr) = ssdlab(&[
            "run",
            job.to_str().unwrap(),
            "--device",
            "seed004",
            "--scheduler",
            spec,
        ]);
        assert_eq!(code, 2, "{spec}: {stderr}");
        assert!(stdout.is_empty());
    }
    let (code, out, _) = ssdlab(&["schedulers"]);
    assert_eq!(code, 0);
    for name in [
        "none",
        "mq-deadline",
        "kyber",
        "k2",
        "k2-budget",
        "max_inflight",
        "read_expire",
    ] {
        assert!(out.contains(name), "{name}");
    }
}

#[test]
fn host_file_and_timeseries_csv() {
    let job = temp_preset("ts.fio", SHORT_K2);
    let csv = job.with_extension("csv");
    let host = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/host-default.toml"
    );
    let (code, out, err) = ssdlab(&[
        "run",
        job.to_str().unwrap(),
        "--device",
        "seed004",
        "--host",
        host,
        "--timeseries",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Run status group 0"), "{out}");
    assert!(out.contains("clat percentiles"), "{out}");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("job,dir,second,bytes,ios,bw_kib_s,iops\n"));
    assert!(text.lines().any(|l| l.starts_with("rt,read,0,")), "{text}");
    let bad = temp_preset(
        "host.toml",
        "# partial files take defaults\nhw_queues = 0\n",
    );
    let (code, _, err) = ssdlab(&[
        "run",
        job.to_str().unwrap(),
        "--device",
        "seed004",
        "--host",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("{}:2: hw_queues:", bad.display())),
        "{err}"
    );
}

#[test]
fn reproduce_resumes_from_its_cache_and_tune_reads_its_results() {
    let dir = std::env::temp_dir().join(format!("ssdlab-k2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "reproduce",
        "k2",
        "--out",
        dir.to_str().unwrap(),
        "--device",
        "seed004",
        "--op",
        "randread",
        "--occupancy",
        "partial",
        "--partial-runtime",
        "1",
        "--jobs",
        "2",
    ];
    let (code, out, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("8 repetitions computed, 0 from the cache"),
        "{out}"
    );
    for f in [
        "results.csv",
        "report.md",
        "report.html",
        "fig-randread-partial.svg",
        "fig-randread-partial.png",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
    // An interrupted run: two points lost; the re-run computes only those.
    let mut cached: Vec<_> = std::fs::read_dir(dir.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cached.sort();
    for p in &cached[..2] {
        std::fs::remove_file(p).unwrap();
    }
    let (code, out, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("2 repetitions computed, 6 from the cache"),
        "{out}"
    );
    let csv = dir.join("results.csv");
    let (code, out, err) = ssdlab(&[
        "tune",
        "--objective",
        "o1",
        "--alpha",
        "50",
        "--results",
        csv.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["op"], "randread");
    let (code, _, err) = ssdlab(&[
        "tune",
        "--objective",
        "o1",
        "--beta",
        "50",
        "--results",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An MQSim-format trace: `n` requests every 100 µs, alternating reads and
/// writes over the first 64 MiB, one malformed line at `bad_line` if given.
fn mqsim_trace(name: &str, n: u64, bad_line: Option<u64>) -> std::path::PathBuf {
    let mut text = String::new();
    for i in 0..n {
        if Some(i + 1) == bad_line {
            text.push_str("this is not a request\n");
            continue;
        }
        let kind = if i % 2 == 0 { 0 } else { 1 };
        text.push_str(&format!(
            "{} 0 {} 8 {}\n",
            i * 100_000,
            (i * 7919 % 16384) * 8,
            kind
        ));
    }
    temp_preset(name, &text)
}

#[test]
fn replay_open_and_closed_loop_with_loops_and_bad_lines() {
    let trace = mqsim_trace("t.mqsim", 2000, None);
    let base = [
        "replay",
        trace.to_str().unwrap(),
        "--format",
        "mqsim",
        "--device",
        "seed004",
        "--output-format",
        "json",
    ];
    let (code, out, err) = ssdlab(&base);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let j = &v["jobs"][0];
    assert_eq!(
        j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap(),
        2000
    );
    // Open loop at the recorded times: 2000 requests 100 µs apart take 0.2 s.
    let sim = v["ssdlab"]["simulated_s"].as_f64().unwrap();
    assert!((0.19..0.3).contains(&sim), "{sim}");
    // Closed loop at QD 8 goes as fast as the device allows.
    let mut closed = base.to_vec();
    closed.extend(["--qd", "8"]);
    let (_, out, _) = ssdlab(&closed);
    let v2: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v2["ssdlab"]["simulated_s"].as_f64().unwrap() < sim / 2.0);
    // Loop until 16 MiB written: 1000 writes of 4 KiB per pass → 5 passes.
    let mut looped = base.to_vec();
    looped.extend(["--loop-write", "16m", "--time-scale", "10"]);
    let (code, out, err) = ssdlab(&looped);
    assert_eq!(code, 0, "{err}");
    let v3: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v3["ssdlab"]["replay"]["counters"]["loops"], 4);

    // A malformed line: an error naming file and line, or a count with --skip-bad-lines.
    let bad = mqsim_trace("bad.mqsim", 100, Some(42));
    let (code, stdout, err) = ssdlab(&[
        "replay",
        bad.to_str().unwrap(),
        "--format",
        "mqsim",
        "--device",
        "seed004",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(stdout.is_empty());
    assert!(err.contains(&format!("{}:42:", bad.display())), "{err}");
    let (code, out, err) = ssdlab(&[
        "replay",
        bad.to_str().unwrap(),
        "--format",
        "mqsim",
        "--device",
        "seed004",
        "--skip-bad-lines",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v4: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v4["ssdlab"]["replay"]["counters"]["skipped_lines"], 1);
    assert_eq!(v4["ssdlab"]["replay"]["counters"]["records"], 99);
}

/// A blkparse trace of 4 KiB queue events (time ns, RWBS, sector).
fn blkparse_trace(name: &str, events: Vec<(u64, &str, u64)>) -> std::path::PathBuf {
    temp_preset(name, &support::blkparse_text(events))
}

/// A 4 KiB random read every 8 µs for 100 ms (enough to keep the device
/// from ever going idle), eight write-back writes (`W`, not REQ_SYNC) from
/// 1 ms and four sync writes (`WS`) from 2 ms.
fn read_stream_with_writeback(name: &str, writeback_flag: &str) -> std::path::PathBuf {
    let mut events: Vec<(u64, &str, u64)> = (0..12_500u64)
        .map(|i| (i * 8_000, "R", (i * 2_654_435_761 % (1 << 20)) * 8))
        .collect();
    events.extend((0..8).map(|k| (1_000_000 + k * 100_000, writeback_flag, (1 << 22) + k * 8)));
    events.extend((0..4).map(|k| (2_000_000 + k * 100_000, "WS", (1 << 23) + k * 8)));
    blkparse_trace(name, events)
}

/// A replay's fio JSON.
fn replay_json(trace: &std::path::Path, scheduler: &str) -> serde_json::Value {
    let (code, out, err) = ssdlab(&[
        "replay",
        trace.to_str().unwrap(),
        "--format",
        "blkparse",
        "--device",
        "seed004",
        "--occupancy",
        "50",
        "--scheduler",
        scheduler,
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{scheduler}: {err}");
    serde_json::from_str(&out).unwrap()
}

/// Write completion latencies (µs) of a replay: max, p30 and p40, and the
/// scheduler's counters.
fn write_clat_us(trace: &std::path::Path, scheduler: &str) -> (f64, f64, f64, serde_json::Value) {
    let v = replay_json(trace, scheduler);
    let j = &v["jobs"][0];
    assert_eq!(j["read"]["total_ios"], 12_500, "{scheduler}");
    assert_eq!(j["write"]["total_ios"], 12, "{scheduler}");
    let clat = &j["write"]["clat_ns"];
    let us = |x: &serde_json::Value| x.as_f64().unwrap() / 1e3;
    (
        us(&clat["max"]),
        us(&clat["percentile"]["30.000000"]),
        us(&clat["percentile"]["40.000000"]),
        v["ssdlab"]["scheduler_counters"].clone(),
    )
}

/// The bundling schedulers on a trace whose blkparse flags tell write-back
/// from sync writes: IRBW-FIFO-RP holds a partial bundle until the device
/// idles (the read stream ends at 100 ms); STB bundles only the write-back
/// writes and lets none wait past `t_async`, while its sync writes (4 of
/// the 12, so p30) leave at once; `none` bundles nothing.
#[test]
fn bundling_schedulers_honour_the_trace_sync_flags() {
    let trace = read_stream_with_writeback("writeback.blkparse", "W");
    let (none_max, _, _, none_c) = write_clat_us(&trace, "none");
    assert!(none_max < 2_000.0, "none: {none_max} us");
    assert_eq!(none_c, serde_json::json!({}));
    let (irbw_max, irbw_p30, _, irbw_c) = write_clat_us(&trace, "irbw-rp");
    assert!(irbw_max > 80_000.0, "irbw-rp: {irbw_max} us");
    assert!(
        irbw_p30 > 80_000.0,
        "irbw-rp bundles sync writes too: {irbw_p30} us"
    );
    // Each contiguous run (write-back, sync) merges into one bundled request.
    assert_eq!(irbw_c["bundled_writes"], 2, "{irbw_c}");
    assert_eq!(irbw_c["bundles_full"], 0, "{irbw_c}");
    let (stb_max, stb_p30, stb_p40, stb_c) = write_clat_us(&trace, "stb:t_async=20ms");
    assert!((20_000.0..22_000.0).contains(&stb_max), "stb: {stb_max} us");
    assert!(stb_p30 < 2_000.0, "stb sync writes: {stb_p30} us");
    assert!(stb_p40 > 18_000.0, "stb write-back: {stb_p40} us");
    assert_eq!(stb_c["bundled_writes"], 1, "{stb_c}");
    assert_eq!(stb_c["bundles_partial"], 1, "{stb_c}");
    assert_eq!(stb_c["bundles_expired"], 1, "{stb_c}");
    // The same writes flagged sync are never bundled by STB.
    let all_sync = read_stream_with_writeback("sync.blkparse", "WS");
    let (sync_max, _, _, sync_c) = write_clat_us(&all_sync, "stb:t_async=20ms");
    assert!(sync_max < 2_000.0, "stb, all sync: {sync_max} us");
    assert_eq!(sync_c["bundled_writes"], 0, "{sync_c}");
}

/// STB on write-back that fills bundles by merging, and on write-back that
/// cannot fill one before running out of tags: neither waits for `t_async`
/// (5 s) but the final partial bundle, and reads arriving behind 1000
/// scattered write-back writes still find a tag.
#[test]
fn stb_bundles_leave_when_full_or_out_of_tags() {
    let burst = (0..256u64)
        .map(|k| (k * 1_000, "W", (1 << 22) + k * 8))
        .collect();
    let v = replay_json(&blkparse_trace("burst.blkparse", burst), "stb");
    let w = &v["jobs"][0]["write"];
    assert_eq!(w["total_ios"], 256);
    let max_ms = w["clat_ns"]["max"].as_f64().unwrap() / 1e6;
    assert!(
        max_ms < 50.0,
        "a bundle filled by merges waited {max_ms} ms"
    );
    let c = &v["ssdlab"]["scheduler_counters"];
    assert_eq!(
        (c["bundles_full"].as_u64(), c["bundles_expired"].as_u64()),
        (Some(1), Some(0)),
        "{c}"
    );

    let mut scattered: Vec<(u64, &str, u64)> = (0..1000u64)
        .map(|k| (k * 1_000, "W", (k * 2_654_435_761 % (1 << 20)) * 8))
        .collect();
    scattered
        .extend((0..500u64).map(|k| (2_000_000 + k * 100_000, "R", (k * 7919 % (1 << 20)) * 8)));
    let v = replay_json(
        &blkparse_trace("scattered.blkparse", scattered),
        "stb:lb_size=64m",
    );
    let j = &v["jobs"][0];
    assert_eq!(
        (
            j["read"]["total_ios"].as_u64(),
            j["write"]["total_ios"].as_u64()
        ),
        (Some(500), Some(1000))
    );
    let read_max_ms = j["read"]["clat_ns"]["max"].as_f64().unwrap() / 1e6;
    let write_p95_ms = j["write"]["clat_ns"]["percentile"]["95.000000"]
        .as_f64()
        .unwrap()
        / 1e6;
    assert!(read_max_ms < 5.0, "a read waited {read_max_ms} ms");
    assert!(write_p95_ms < 100.0, "write-back p95 {write_p95_ms} ms");
    // Five bundles close at the tag limit; the last 40 writes cannot fill
    // one and wait for their check-point, as time-out bundling intends.
    let c = &v["ssdlab"]["scheduler_counters"];
    assert!(c["bundles_tag_limited"].as_u64().unwrap() >= 4, "{c}");
    assert_eq!(c["bundles_expired"], 1, "{c}");
}

#[test]
fn trace_synth_writes_a_replayable_profile() {
    let out = std::env::temp_dir().join(format!("ssdlab-synth-{}.msr", std::process::id()));
    let (code, text, err) = ssdlab(&[
        "trace",
        "synth",
        "--profile",
        "rocksdb",
        "--format",
        "msr",
        "--requests",
        "20000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.is_empty(), "{text}");
    assert!(err.contains("synthetic stand-in for rocksdb"), "{err}");
    // To stdout, the trace alone: the summary goes to stderr.
    let (code, piped, err) = ssdlab(&[
        "trace",
        "synth",
        "--profile",
        "rocksdb",
        "--requests",
        "100",
        "--out",
        "-",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(piped.lines().count(), 100, "{piped}");
    assert!(err.contains("synthetic stand-in"), "{err}");
    let (code, json, err) = ssdlab(&[
        "replay",
        out.to_str().unwrap(),
        "--format",
        "msr",
        "--device",
        "seed004",
        "--qd",
        "16",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let reads = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap() as f64;
    let writes = v["jobs"][0]["write"]["total_ios"].as_u64().unwrap() as f64;
    let read_pct = 100.0 * reads / (reads + writes);
    assert!(
        (read_pct - 50.5).abs() < 5.0,
        "rocksdb read share {read_pct}"
    );
    let (code, _, _) = ssdlab(&[
        "trace",
        "synth",
        "--profile",
        "oracle",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn reproduce_gc_ondemand_writes_its_tables() {
    let dir = std::env::temp_dir().join(format!("ssdlab-gc-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let (code, out, err) = ssdlab(&[
        "reproduce",
        "gc-ondemand",
        "--out",
        dir.to_str().unwrap(),
        "--requests",
        "5000",
        "--write-volume",
        "0.05",
        "--offered-mbs",
        "40",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("18 runs (18 computed"), "{out}");
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    for col in [
        "profile",
        "scheme",
        "avg_read_ms",
        "max_read_ms",
        "avg_write_ms",
        "max_write_ms",
        "p999_read_ms",
        "p999_write_ms",
        "waf",
        "gc_invocations",
        "victims_ge70_invalid_pct",
        "victims_ge90_invalid_pct",
        "load_mbs",
        "served_mbs",
        "bounded",
        "read_wait_gc_copy_us",
        "write_wait_gc_erase_us",
        "headline",
    ] {
        assert!(header.split(',').any(|c| c == col), "{col} in {header}");
    }
    assert_eq!(csv.lines().count(), 19);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("BBGC / on-demand") && md.contains("synthetic stand-in"));
    assert!(md.contains("Where host pages wait") && md.contains("stops being bounded"));
    let svg = std::fs::read_to_string(dir.join("fig-avg-write.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("on-demand"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gc_profile_fit_writes_its_table_and_resumes() {
    let dir = std::env::temp_dir().join(format!("ssdlab-gcfit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "reproduce",
        "gc-ondemand",
        "--fit",
        "--out",
        dir.to_str().unwrap(),
        "--requests",
        "1000",
        "--write-volume",
        "0.02",
        // At one load for every candidate (the default climbs for each).
        "--offered-mbs",
        "40",
    ];
    let (code, first, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    let md = std::fs::read_to_string(dir.join("fit.md")).unwrap();
    for name in [
        "cassandra",
        "mongodb",
        "mysql",
        "rocksdb",
        "dbench",
        "sqlite",
    ] {
        assert!(md.contains(&format!("| {name} |")), "{md}");
    }
    assert!(first.contains("worst error"), "{first}");
    // A second fit finds every run it needs in the cache: zero runs.
    let (code, second, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    let runs: Vec<&str> = second
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| profile"))
        .map(|l| l.trim_end_matches(" |").rsplit("| ").next().unwrap())
        .collect();
    assert_eq!(runs, vec!["0"; 6], "{second}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn gc_study_rejects_a_footprint_below_its_precondition() {
    for bad in ["0.5", "1.5", "nan"] {
        let (code, _, err) = ssdlab(&["reproduce", "gc-ondemand", "--footprint", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("--footprint"), "{err}");
    }
}

#[test]
fn gc_fit_refuses_an_unknown_profile_and_a_profile_without_fit() {
    let (code, _, err) = ssdlab(&["reproduce", "gc-ondemand", "--fit", "--profile", "oracle"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--profile") && err.contains("oracle") && err.contains("mysql"),
        "{err}"
    );
    let (code, _, err) = ssdlab(&["reproduce", "gc-ondemand", "--profile", "mysql"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--fit"), "{err}");
}

#[test]
fn nonsense_job_parameters_exit_2_naming_the_job() {
    for (name, text, needle) in [
        (
            "huge-bs.fio",
            "[j]\nrw=randread\nbs=64g\n",
            "larger than the device",
        ),
        (
            "odd-bs.fio",
            "[j]\nrw=randread\nbs=1000\n",
            "multiple of 512",
        ),
        ("no-size.fio", "[j]\nrw=randread\nsize=0\n", "region"),
        ("zero-depth.fio", "[j]\nrw=randread\niodepth=0\n", "iodepth"),
    ] {
        let job = temp_preset(name, text);
        let (code, stdout, stderr) = ssdlab(&["run", job.to_str().unwrap(), "--device", "seed004"]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stdout.is_empty(), "{name}");
        assert!(
            stderr.contains(&job.display().to_string()) && stderr.contains(needle),
            "{name}: {stderr}"
        );
    }
}

#[test]
fn looping_a_trace_without_writes_ends() {
    let mut text = String::new();
    for i in 0..50u64 {
        text.push_str(&format!("{} 0 {} 8 1\n", i * 1000, i * 8));
    }
    let trace = temp_preset("reads.mqsim", &text);
    let (code, out, err) = ssdlab(&[
        "replay",
        trace.to_str().unwrap(),
        "--format",
        "mqsim",
        "--device",
        "seed004",
        "--loop-write",
        "1g",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["ssdlab"]["replay"]["counters"]["loops"], 0);
}

#[test]
fn bench_compare_runs_both_builds_and_checks_the_simulated_figures() {
    let me = env!("CARGO_BIN_EXE_ssdlab");
    let (code, out, err) = ssdlab(&[
        "bench",
        "--compare",
        me,
        "--rounds",
        "2",
        "--device",
        "seed004",
        "--requests",
        "2000",
        "--fio-seconds",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 rounds, alternating"), "{out}");
    assert!(out.contains("random reads (req/s)"), "{out}");
    // The same build against itself simulates the same thing.
    assert!(out.contains("simulated figures: identical"), "{out}");
    let (code, _, err) = ssdlab(&["bench", "--compare", "/nonexistent/ssdlab", "--rounds", "1"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/ssdlab"), "{err}");
}

#[test]
fn the_report_names_the_preconditioning_and_a_bad_one_is_refused() {
    let job = temp_preset(
        "small-writes.fio",
        "[w]\nrw=randwrite\nbs=4k\nnumber_ios=2000\nsize=1g\n",
    );
    let job = job.to_str().unwrap();
    let base = ["run", job, "--device", "seed004", "--occupancy", "10"];
    // `random` also reports the stale pages its steady state holds.
    for (mode, also) in [("aged:3", "filled_pages"), ("random", "stale_pages")] {
        let (code, out, err) = ssdlab(
            &[
                &base[..],
                &["--precondition", mode, "--output-format", "json"],
            ]
            .concat(),
        );
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("\"mode\" : \"{mode}\"")), "{out}");
        assert!(out.contains(&format!("\"{also}\"")), "{out}");
    }
    let (code, out, err) = ssdlab(&base);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("precondition.mode: fill"), "{out}");
    let (code, _, err) = ssdlab(&[&base[..], &["--precondition", "aged:0"]].concat());
    assert_eq!(code, 2);
    assert!(
        err.contains("aged:N takes a number of drive writes"),
        "{err}"
    );
    let (code, _, err) = ssdlab(&[&base[..], &["--precondition", "warm"]].concat());
    assert_eq!(code, 2);
    assert!(
        err.contains("known: auto, fill, steady, rested, aged[:N], pts, random"),
        "{err}"
    );
}

#[test]
fn reproduce_k2_names_the_full_drives_preconditioning_and_runs_it() {
    let run = |mode: &str| {
        let dir = std::env::temp_dir().join(format!("ssdlab-k2-pre-{mode}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let (code, _, err) = ssdlab(&[
            "reproduce",
            "k2",
            "--out",
            dir.to_str().unwrap(),
            "--device",
            "seed004",
            "--op",
            "randwrite",
            "--occupancy",
            "full",
            "--full-runtime",
            "2",
            "--full-precondition",
            mode,
        ]);
        assert_eq!(code, 0, "{mode}: {err}");
        let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
        let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        (report, csv)
    };
    let (fill_report, fill_csv) = run("fill");
    assert!(fill_report.contains("preconditioning `fill`, the spare free"));
    let (random_report, random_csv) = run("random");
    assert!(
        random_report.contains("every logical page written, preconditioning `random`"),
        "{random_report}"
    );
    // A randomly aged drive pays for GC from the start: other figures.
    assert_ne!(fill_csv, random_csv);
}
