//! Hostile and extreme input, run as a user would: far-future times, wrong
//! formats, odd output paths. Each case once failed (an abort, a silent
//! wrong answer, a replaced device node); the runs that could exhaust memory
//! run under an address-space cap so a regression fails instead of
//! swapping the machine.

use std::path::PathBuf;
use std::process::Command;

/// Address-space cap for runs that once grew without bound (the simulator
/// needs about 300 MB on seed004).
const CAP_KB: u64 = 1_500_000;

fn ssdlab_capped(args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {CAP_KB}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args);
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn job(name: &str, extra: &str) -> PathBuf {
    scratch(
        name,
        &format!("[j]\nrw=randread\nbs=4k\nsize=1m\nioengine=libaio\ndirect=1\n{extra}\n"),
    )
}

/// seed004's preset text with each `(from, to)` replaced, as a file.
fn seed004_with(name: &str, changes: &[(&str, &str)]) -> PathBuf {
    let (_, mut text, _) = ssdlab_capped(&["presets", "--show", "seed004"]);
    for (from, to) in changes {
        assert!(text.contains(from), "seed004 has no '{from}'");
        text = text.replace(from, to);
    }
    scratch(name, &text)
}

/// A job run on a preset file, fully preconditioned, as fio JSON.
fn run_full_json(job: &std::path::Path, preset: &std::path::Path) -> serde_json::Value {
    let (code, out, err) = ssdlab_capped(&[
        "run",
        job.to_str().unwrap(),
        "--device",
        preset.to_str().unwrap(),
        "--occupancy",
        "100",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

fn run_job(path: &std::path::Path) -> (i32, String, String) {
    ssdlab_capped(&[
        "run",
        path.to_str().unwrap(),
        "--device",
        "seed004",
        "--output-format",
        "json",
    ])
}

#[test]
fn long_thinktime_costs_no_memory() {
    // Three I/Os twenty simulated years apart: once a dense sampler of one
    // entry per 500 ms (60 GB), now three entries.
    let p = job("think.fio", "thinktime=7300d\nio_size=12k");
    let (code, out, err) = run_job(&p);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["jobs"][0]["read"]["total_ios"], 3, "{out}");
}

#[test]
fn times_beyond_a_century_are_refused_where_they_are_written() {
    for (value, line) in [("thinktime=18446744073709551", 7), ("thinktime=100000d", 7)] {
        let p = job("far.fio", value);
        let (code, _, err) = run_job(&p);
        assert_eq!(code, 2, "{value}: {err}");
        assert!(
            err.contains(&format!("far.fio:{line}: option 'thinktime'")),
            "{err}"
        );
        assert!(err.contains("100 years"), "{err}");
    }
}

#[test]
fn a_run_that_would_pass_a_century_stops_with_an_error() {
    // Each think time is legal, their sum is not.
    let p = job("sum.fio", "thinktime=36000d\nio_size=32k");
    let (code, _, err) = run_job(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("100 years of simulated time"), "{err}");
}

#[test]
fn far_future_trace_times_are_malformed_lines() {
    let t = scratch("far.mqsim", "0 0 0 8 1\n18446744073709551615 0 0 8 1\n");
    let t = t.to_str().unwrap();
    let args = ["replay", t, "--format", "mqsim", "--device", "seed004"];
    let (code, _, err) = ssdlab_capped(&args);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("far.mqsim:2: time:"), "{err}");
    let mut skip = args.to_vec();
    skip.extend(["--skip-bad-lines", "--output-format", "json"]);
    let (code, out, err) = ssdlab_capped(&skip);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let c = &v["jobs"][0]["job options"];
    assert!(c.is_object(), "{out}");
    assert!(out.contains("\"skipped_lines\" : 1"), "{out}");
}

#[test]
fn thirty_year_gap_in_a_trace_is_cheap() {
    // FILETIME ticks are 100 ns: 30 years later.
    let later = 128_166_372_000_000_000u64 + 30 * 365 * 86_400 * 10_000_000;
    let t = scratch(
        "gap.msr.csv",
        &format!("128166372000000000,hm,0,Read,0,4096,100\n{later},hm,0,Read,4096,4096,100\n"),
    );
    let (code, out, err) = ssdlab_capped(&[
        "replay",
        t.to_str().unwrap(),
        "--format",
        "msr",
        "--device",
        "seed004",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("IOPS"), "{out}");
}

#[test]
fn time_scale_that_overflows_the_clock_is_an_error() {
    let t = scratch("two.mqsim", "0 0 0 8 1\n1000 0 8 8 1\n");
    let (code, _, err) = ssdlab_capped(&[
        "replay",
        t.to_str().unwrap(),
        "--format",
        "mqsim",
        "--time-scale",
        "1e-300",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("two.mqsim:2: time: at --time-scale 1e-300"),
        "{err}"
    );
}

#[test]
fn synth_refuses_arrivals_beyond_a_century() {
    let out = scratch("synth.out", "");
    let (code, _, err) = ssdlab_capped(&[
        "trace",
        "synth",
        "--profile",
        "mysql",
        "--requests",
        "10",
        "--iops",
        "1e-12",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("100 years"), "{err}");
}

fn data(name: &str) -> String {
    format!(
        "{}/../ssdlab-trace/tests/data/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

#[test]
fn a_trace_in_another_format_is_an_error_that_names_the_right_one() {
    for (file, real) in [
        ("sample.msr.csv", "msr"),
        ("sample.spc", "spc"),
        ("sample.mqsim", "mqsim"),
        ("sample_v3.iolog", "fio-iolog"),
    ] {
        let (code, out, err) = ssdlab_capped(&["replay", &data(file), "--format", "blkparse"]);
        assert_eq!(code, 2, "{file}: {out}{err}");
        assert!(err.contains("no line is a blkparse request"), "{err}");
        assert!(err.contains(&format!("--format {real}")), "{err}");
    }
}

#[test]
fn the_format_is_detected_when_not_given() {
    for (file, real) in [
        ("sample.blkparse", "blkparse"),
        ("sample.msr.csv", "msr"),
        ("sample.spc", "spc"),
        ("sample.mqsim", "mqsim"),
        ("sample_v2.iolog", "fio-iolog"),
        ("sample_v3.iolog", "fio-iolog"),
    ] {
        let (code, out, err) = ssdlab_capped(&["replay", &data(file), "--output-format", "json"]);
        assert_eq!(code, 0, "{file}: {err}");
        assert!(err.contains(&format!("format {real} detected")), "{err}");
        assert!(
            out.contains(&format!("\"trace_format\" : \"{real}\"")),
            "{out}"
        );
    }
    let junk = scratch("junk.txt", "hello\nworld\n");
    let (code, _, err) = ssdlab_capped(&["replay", junk.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("junk.txt") && err.contains("give --format"),
        "{err}"
    );
}

#[test]
fn unknown_rwbs_letters_are_malformed_and_counted() {
    let t = scratch(
        "rwbs.blkparse",
        "8,0 1 1 0.000000001 10 Q R 8 + 8 [x]\n8,0 1 2 0.000000002 10 Q XQ 16 + 8 [x]\n",
    );
    let t = t.to_str().unwrap();
    let (code, _, err) = ssdlab_capped(&["replay", t, "--format", "blkparse"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("rwbs.blkparse:2: rwbs:"), "{err}");
    let (code, out, err) = ssdlab_capped(&[
        "replay",
        t,
        "--format",
        "blkparse",
        "--skip-bad-lines",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"skipped_lines\" : 1"), "{out}");
}

#[test]
fn requests_past_the_device_end_are_counted_as_clipped() {
    // seed004 holds 3.7 GiB: a 4 GiB - 512 B write from offset 0 is cut.
    let t = scratch(
        "big.msr.csv",
        "128166372000000000,hm,0,Write,0,4294966784,100\n",
    );
    let (code, out, err) = ssdlab_capped(&[
        "replay",
        t.to_str().unwrap(),
        "--format",
        "msr",
        "--device",
        "seed004",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"clipped\" : 1"), "{out}");
}

#[test]
fn percentiles_hold_past_seventeen_seconds() {
    // One plane, 10 s reads, four queued: 10, 20, 30 and 40 s. Every
    // percentile past 17.2 s once read 17113 ms.
    let preset = seed004_with(
        "slow.toml",
        &[
            ("read_ns = 25_000", "read_ns = 10_000_000_000"),
            ("channels = 4", "channels = 1"),
            ("planes_per_die = 4", "planes_per_die = 1"),
        ],
    );
    let v = run_full_json(&job("slow.fio", "io_size=16k\niodepth=4"), &preset);
    let pct = &v["jobs"][0]["read"]["clat_ns"]["percentile"];
    let at = |p: &str| pct[p].as_u64().unwrap() as f64 / 1e9;
    let (max, p50) = (at("99.990000"), at("50.000000"));
    assert!((39.5..40.5).contains(&max), "{pct}");
    assert!((19.5..20.5).contains(&p50), "{pct}");
}

fn run_ok_job_to(args: &[&str]) -> (i32, String, String) {
    // A file of its own per call: tests run in parallel, and one rewriting
    // a shared file while another's run reads it left that run a torn line.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = job(&format!("ok-{n}.fio"), "io_size=16k");
    let mut all = vec!["run", p.to_str().unwrap(), "--device", "seed004"];
    all.extend_from_slice(args);
    ssdlab_capped(&all)
}

#[test]
fn output_to_a_device_node_writes_in_place_and_never_replaces_it() {
    use std::os::unix::fs::FileTypeExt;
    let (code, _, err) = run_ok_job_to(&["--output", "/dev/full"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/dev/full: No space left"), "{err}");
    let t = std::fs::metadata("/dev/full").unwrap().file_type();
    assert!(t.is_char_device(), "/dev/full was replaced");
    let (code, _, err) = run_ok_job_to(&["--output", "/dev/null"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
}

#[test]
fn output_to_a_fifo_is_written_through_it() {
    use std::os::unix::fs::FileTypeExt;
    let fifo = scratch("x", "").with_file_name("report.fifo");
    let _ = std::fs::remove_file(&fifo);
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let (code, _, err) = run_ok_job_to(&["--output", fifo.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(reader.join().unwrap().contains("IOPS"));
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

#[test]
fn output_through_a_symlink_writes_its_target() {
    let target = scratch("target.txt", "old");
    let link = target.with_file_name("link.txt");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink("target.txt", &link).unwrap();
    let (code, _, err) = run_ok_job_to(&["--output", link.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert!(std::fs::read_to_string(&target).unwrap().contains("IOPS"));
}

#[test]
fn a_bad_output_path_is_refused_before_anything_runs_or_is_written() {
    let ts = scratch("x", "").with_file_name("early.csv");
    let _ = std::fs::remove_file(&ts);
    let (code, _, err) = run_ok_job_to(&[
        "--timeseries",
        ts.to_str().unwrap(),
        "--output",
        "/nonexistent-dir/report.txt",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--output: /nonexistent-dir/report.txt"),
        "{err}"
    );
    assert!(!ts.exists(), "the time series was written before the check");
    let dir = ts.parent().unwrap();
    let litter: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("ssdlab-tmp"))
        .collect();
    assert!(litter.is_empty(), "temporary files left: {litter:?}");
}

#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    for args in [vec!["presets"], vec!["schedulers"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args(&args)
            .stdout(std::fs::File::create("/dev/full").unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("ssdlab: error: stdout:"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let p = job("ok.fio", "io_size=16k");
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", p.to_str().unwrap(), "--device", "seed004"])
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_preset_too_large_for_memory_is_refused_with_its_need() {
    // 2^31 pages of 1 MiB: once `presets --show` said fine and `run` died
    // on an 8 GB allocation.
    let preset = seed004_with(
        "huge.toml",
        &[
            ("blocks_per_plane = 512", "blocks_per_plane = 65536"),
            ("pages_per_block = 128", "pages_per_block = 2048"),
            ("page_size = 4096", "page_size = 1048576"),
        ],
    );
    for args in [
        vec!["presets", "--show", preset.to_str().unwrap()],
        vec![
            "bench",
            "--device",
            preset.to_str().unwrap(),
            "--requests",
            "10",
        ],
    ] {
        let (code, _, err) = ssdlab_capped(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("huge.toml:"), "{err}");
        assert!(err.contains("pages need about 15.6 GiB"), "{err}");
    }
}

#[test]
fn gc_study_resumes_from_its_cache() {
    let out = scratch("x", "").with_file_name("gc-resume");
    let _ = std::fs::remove_dir_all(&out);
    let args = [
        "reproduce",
        "gc-ondemand",
        "--requests",
        "1000",
        "--write-volume",
        "0.02",
        "--offered-mbs",
        "40",
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, first, err) = ssdlab_capped(&args);
    assert_eq!(code, 0, "{err}");
    assert!(first.contains("18 computed, 0 from the cache"), "{first}");
    let csv = std::fs::read(out.join("results.csv")).unwrap();
    // A trace left half-written by a killed run has a temporary name and
    // is never read; a cached point is not recomputed.
    std::fs::write(out.join("traces/.mysql.tmp-1"), "0 0 0 8").unwrap();
    let (code, second, err) = ssdlab_capped(&args);
    assert_eq!(code, 0, "{err}");
    assert!(second.contains("0 computed, 18 from the cache"), "{second}");
    assert_eq!(std::fs::read(out.join("results.csv")).unwrap(), csv);
}

#[test]
fn a_huge_unknown_option_is_named_once_and_cut() {
    let name = "x".repeat(1_000_000);
    let p = scratch(
        "bigopt.fio",
        &format!("[j]\nrw=read\nbs=4k\nsize=1m\n{name}=1\n"),
    );
    let (code, _, err) = run_job(&p);
    assert_eq!(code, 2, "{}", &err[..200.min(err.len())]);
    assert!(err.len() < 400, "{} bytes of error", err.len());
    assert!(
        err.contains("bigopt.fio:5:") && err.contains("(1000000 bytes)"),
        "{err}"
    );
}

#[test]
fn block_size_and_region_errors_point_at_their_option() {
    let p = scratch("bs.fio", "[j]\nrw=read\nioengine=libaio\n\nbs=8g\n");
    let (code, _, err) = run_job(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bs.fio:5: job 'j': bs:"), "{err}");
    let p = scratch("size.fio", "[global]\nsize=1m\n[j]\nrw=read\n\nbs=1g\n");
    let (code, _, err) = run_job(&p);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("size.fio:2: job 'j': size:"), "{err}");
}

#[test]
fn a_scheduler_tunable_given_twice_is_refused() {
    let p = job("k2.fio", "io_size=16k");
    let (code, _, err) = ssdlab_capped(&[
        "run",
        p.to_str().unwrap(),
        "--scheduler",
        "k2:max_inflight=1,max_inflight=8",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("given twice"), "{err}");
}

#[test]
fn request_counts_are_bounded() {
    let out = scratch("big.trace", "");
    for args in [
        vec![
            "trace",
            "synth",
            "--profile",
            "mysql",
            "--requests",
            "4300000000",
            "--out",
        ],
        vec!["bench", "--requests", "4300000000", "--device"],
        vec![
            "reproduce",
            "gc-ondemand",
            "--requests",
            "4300000000",
            "--out",
        ],
    ] {
        let mut args = args.clone();
        args.push(if args[0] == "bench" {
            "seed004"
        } else {
            out.to_str().unwrap()
        });
        let (code, _, err) = ssdlab_capped(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("4300000000"), "{err}");
    }
}

#[test]
fn the_host_link_carries_the_bytes_not_the_page() {
    // 64 KiB mapping pages over a 100 MB/s link: a 4 KiB read moves 41 µs
    // of data, not a whole page's 655 µs.
    let preset = seed004_with(
        "bigpage.toml",
        &[
            ("page_size = 4096", "page_size = 65536"),
            ("blocks_per_plane = 512", "blocks_per_plane = 64"),
            ("link_mbs = 4_000", "link_mbs = 100"),
        ],
    );
    let v = run_full_json(&job("small.fio", "io_size=64k\niodepth=1"), &preset);
    let mean_us = v["jobs"][0]["read"]["clat_ns"]["mean"].as_f64().unwrap() / 1e3;
    assert!(mean_us < 400.0, "4 KiB read took {mean_us} µs");
    assert!(mean_us > 41.0, "4 KiB read took {mean_us} µs");
}
