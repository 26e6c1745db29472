//! Numeric options at their extremes and outputs that collide: each case
//! once aborted, ran for days, printed NaN or overwrote a file (a review of
//! every command's flags, 2026-11-27). Each must exit 2 naming the option,
//! with nothing on standard output and no file written.

mod support;

use std::path::PathBuf;
use support::ssdlab;

fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-flags-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `dir` holds only `name` (nothing was written or left behind), and is
/// then removed.
fn assert_only(dir: &std::path::Path, name: &str) {
    let entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        entries,
        vec![std::ffi::OsString::from(name)],
        "written or left behind"
    );
    let _ = std::fs::remove_dir_all(dir);
}

fn refused(args: &[&str], flag: &str) {
    let (code, stdout, stderr) = ssdlab(args);
    assert_eq!(code, 2, "{args:?}: {stderr}");
    assert!(stdout.is_empty(), "{args:?}: {stdout}");
    assert!(stderr.contains(flag), "{args:?}: {flag} in {stderr}");
}

#[test]
fn numbers_beyond_what_a_run_can_do_are_refused_with_their_option() {
    let dir = scratch_dir("numbers");
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let case = format!("{root}/../../examples/rtflash/case-study.toml");
    let trace = format!("{root}/../ssdlab-trace/tests/data/sample.mqsim");
    let (case, trace) = (case.as_str(), trace.as_str());
    for (args, flag) in [
        // A closed loop of 2^32 commands allocated 32 GB and aborted.
        (
            vec!["bench", "--qd", "4294967295", "--device", "seed004"],
            "--qd",
        ),
        // 2^32 repetitions filled the memory with points before any ran.
        (
            vec!["reproduce", "k2", "--reps", "4294967295", "--out", out],
            "--reps",
        ),
        // A runtime the job files cannot hold was blamed on them.
        (
            vec![
                "reproduce",
                "k2",
                "--partial-runtime",
                "100000000000",
                "--out",
                out,
            ],
            "--partial-runtime",
        ),
        (
            vec!["reproduce", "k2", "--full-runtime", "0", "--out", out],
            "--full-runtime",
        ),
        // `auto` is `steady` on a full drive, cached under another key.
        (
            vec![
                "reproduce",
                "k2",
                "--full-precondition",
                "auto",
                "--out",
                out,
            ],
            "--full-precondition",
        ),
        (
            vec!["reproduce", "k2-rtss", "--runtime", "0", "--out", out],
            "--runtime",
        ),
        // A WAF measured over no page printed NaN.
        (
            vec!["validate", "waf", "--warmup", "1e-9", "--measure", "1e-9"],
            "--measure",
        ),
        // A run of 0 ns printed 8e9 IOPS.
        (
            vec!["rtflash", "run", case, "--duration", "1e-10"],
            "--duration",
        ),
        // A rate no profile can be given left half a trace behind.
        (
            vec![
                "reproduce",
                "gc-ondemand",
                "--offered-mbs",
                "1e-300",
                "--out",
                out,
            ],
            "--offered-mbs",
        ),
        (
            vec![
                "reproduce",
                "gc-ondemand",
                "--offered-mbs",
                "1e308",
                "--out",
                out,
            ],
            "--offered-mbs",
        ),
        // Threads without end.
        (
            vec!["reproduce", "rt-flash", "--jobs", "100000", "--out", out],
            "--jobs",
        ),
        (vec!["calibrate", "--jobs", "0", "--out", out], "--jobs"),
        // A petabyte of looped writes on a 4 GiB device ran for days.
        (
            vec!["replay", trace, "--device", "seed004", "--loop-write", "1p"],
            "--loop-write",
        ),
        // A knob's problem names the knob's option, not --profile.
        (
            vec![
                "trace",
                "synth",
                "--profile",
                "dbench",
                "--hot-share",
                "2",
                "--out",
                out,
            ],
            "--hot-share",
        ),
    ] {
        refused(&args, flag);
    }
    assert!(!dir.join("out").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_that_would_write_one_place_twice_are_refused() {
    let dir = scratch_dir("outputs");
    let job = dir.join("j.fio");
    std::fs::write(
        &job,
        "[j]\nrw=randread\nbs=4k\nsize=1m\nruntime=1s\ntime_based\n",
    )
    .unwrap();
    let job = job.to_str().unwrap();
    let report = dir.join("r.txt");
    let report = report.to_str().unwrap();
    // The same file spelled two ways: the time series was lost.
    let same = format!("{}/./r.txt", dir.display());
    let base = ["run", job, "--device", "seed004"];
    refused(
        &[&base[..], &["--output", report, "--timeseries", &same]].concat(),
        "--timeseries",
    );
    // Both on standard output: the CSV went into the report.
    refused(
        &[&base[..], &["--timeseries", "-"]].concat(),
        "--timeseries",
    );
    // A name ending in / failed only after the run, naming no option.
    let dir_like = format!("{}/new/", dir.display());
    refused(&[&base[..], &["--output", &dir_like]].concat(), "--output");
    assert_only(&dir, "j.fio");
}

#[test]
fn tune_refuses_rows_no_study_writes() {
    let dir = scratch_dir("tune");
    let header = "op,occupancy,scheduler,bound,rt_p999_us,rt_p99_us,rt_mean_us,total_bw_mbs,\
                  nrt_bw_mbs,reps,runtime_s,waf,gc_invocations,gc_pages_moved,erases\n";
    let none = "read,partial,none,,1237,900,300,720,700,1,100,1,0,0,0\n";
    let k2 = "read,partial,k2,1,370,300,150,70,60,1,100,1,0,0,0\n";
    let csv = dir.join("results.csv");
    let path = csv.to_str().unwrap();
    let tune_on = |results| {
        [
            "tune",
            "--objective",
            "o1",
            "--alpha",
            "50",
            "--results",
            results,
        ]
    };
    let tune = tune_on(path);
    std::fs::write(&csv, format!("{header}{none}{k2}")).unwrap();
    let (code, stdout, stderr) = ssdlab(&tune);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("chosen:   K2-1"), "{stdout}");
    for (rows, needle) in [
        (format!("{none}{k2}{k2}"), ":4: bound: a second row"),
        (
            format!("{none}{}", k2.replace("370", "NaN")),
            ":3: rt_p999_us: NaN",
        ),
        (
            format!("{none}{}", k2.replace(",1,370", ",0,370")),
            ":3: bound: K2 needs",
        ),
        (
            format!("{none}{}", k2.replace("read,", "trim,")),
            ":3: op: unknown operation 'trim'",
        ),
    ] {
        std::fs::write(&csv, format!("{header}{rows}")).unwrap();
        refused(&tune, needle);
    }
    refused(&tune_on("/dev/zero"), "--results");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_endless_input_file_is_refused_not_read_to_the_end() {
    let root = env!("CARGO_MANIFEST_DIR");
    let job = format!("{root}/../../examples/k2/read.fio");
    for args in [
        vec!["run", "/dev/zero"],
        vec!["run", &job, "--host", "/dev/zero"],
        vec!["run", &job, "--device", "/dev/zero"],
        vec!["rtflash", "analyze", "/dev/zero"],
        vec!["postmark", "/dev/zero"],
        vec!["calibrate", "/dev/zero"],
    ] {
        refused(&args, "larger than 64 MiB");
    }
    // A trace streams, and a line is skipped to its end only up to 1 MiB.
    for format in ["mqsim", "msr"] {
        let args = [
            "replay",
            "/dev/zero",
            "--format",
            format,
            "--device",
            "seed004",
        ];
        refused(&args, "longer than 1 MiB: not a trace");
    }
    refused(
        &["replay", "/dev/zero", "--device", "seed004"],
        "longer than 1 MiB",
    );
}

#[test]
fn a_run_killed_before_its_end_leaves_no_file() {
    let dir = scratch_dir("killed");
    let job = dir.join("long.fio");
    // Seconds of work: long enough to be killed while it simulates.
    std::fs::write(&job, "[j]\nrw=randread\nbs=4k\nruntime=600s\ntime_based\n").unwrap();
    let report = dir.join("r.txt");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", job.to_str().unwrap(), "--device", "seed004"])
        .args(["--output", report.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_only(&dir, "long.fio");
}
