//! fio's log files (`write_lat_log`, `write_bw_log`, `write_iops_log`):
//! names, lines and values against the run's own JSON report, windowed
//! logs, shared files, determinism, and no file left by a failed run.

mod support;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-logs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `ssdlab run job.fio` (with `text` as the job file) in `dir`, the
/// logs' directory: exit code, stdout, stderr.
fn run_in(dir: &Path, text: &str, extra: &[&str]) -> (i32, String, String) {
    std::fs::write(dir.join("job.fio"), text).unwrap();
    let args: Vec<&str> = ["run", "job.fio", "--output-format", "json"]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    support::ssdlab_in(dir, &args)
}

/// Runs and returns the report; the run must succeed.
fn report_of(dir: &Path, text: &str) -> Value {
    let (code, out, err) = run_in(dir, text, &[]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The files in `dir` other than the job file, with their contents.
fn files_in(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "job.fio")
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// A log's lines as columns of numbers (a hex priority read as hex).
fn rows(text: &str) -> Vec<Vec<u64>> {
    text.lines()
        .map(|l| {
            l.split(", ")
                .map(|c| match c.strip_prefix("0x") {
                    Some(h) => u64::from_str_radix(h, 16).unwrap(),
                    None => c.parse().unwrap_or_else(|_| panic!("line {l:?}")),
                })
                .collect()
        })
        .collect()
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

const PER_IO: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=4
bs=4k
runtime=200ms
time_based
write_lat_log
write_bw_log=rate
write_iops_log=count
log_offset=1
[reader]
rw=randread
prioclass=1
[writer]
rw=randwrite
prio=3
log_prio=1
";

#[test]
fn each_io_is_a_line_agreeing_with_the_report() {
    let dir = scratch("per-io");
    let rep = report_of(&dir, PER_IO);
    let files = files_in(&dir);
    let mut expected: Vec<String> = ["reader", "writer"]
        .iter()
        .zip(1..)
        .flat_map(|(job, n)| {
            [
                format!("{job}_lat.{n}.log"),
                format!("{job}_slat.{n}.log"),
                format!("{job}_clat.{n}.log"),
                format!("rate_bw.{n}.log"),
                format!("count_iops.{n}.log"),
            ]
        })
        .collect();
    expected.sort();
    let names: Vec<&String> = files.keys().collect();
    assert_eq!(
        names,
        expected.iter().collect::<Vec<_>>(),
        "no other file, no temporary one"
    );
    // (job, direction, its JSON key, the priority column fio writes):
    // prioclass=1 alone is RT (1); prio=3 with log_prio is 0x4003.
    for (n, job, dir, key, prio) in [
        (1, "reader", 0, "read", 1),
        (2, "writer", 1, "write", 0x4003),
    ] {
        let stats = &rep["jobs"][n - 1][key];
        let ios = u(&stats["total_ios"]);
        assert!(ios > 100, "{job}: {ios} I/Os");
        let log = |kind: &str, prefix: &str| rows(&files[&format!("{prefix}_{kind}.{n}.log")]);
        for kind in ["lat", "slat", "clat"] {
            let lines = log(kind, job);
            assert_eq!(lines.len() as u64, ios, "{job} {kind}: a line per I/O");
            let times: Vec<u64> = lines.iter().map(|l| l[0]).collect();
            assert!(
                times.windows(2).all(|w| w[0] <= w[1]),
                "{job} {kind}: times in order"
            );
            assert!(
                *times.last().unwrap() <= 210,
                "{job} {kind}: times in ms from the start"
            );
            let values = lines.iter().map(|l| l[1]);
            let lat = &stats[format!("{kind}_ns")];
            assert_eq!(
                values.clone().min(),
                Some(u(&lat["min"])),
                "{job} {kind} min"
            );
            assert_eq!(values.max(), Some(u(&lat["max"])), "{job} {kind} max");
            for l in &lines {
                assert_eq!(l.len(), 6, "{job}: time, value, dir, bs, offset, prio");
                assert_eq!((l[2], l[3], l[4] % 4096, l[5]), (dir, 4096, 0, prio));
            }
        }
        // Bandwidth per I/O is fio's bytes·10⁶/clat_ns; IOPS per I/O is 1.
        let clat = log("clat", job);
        let bw = log("bw", "rate");
        let iops = log("iops", "count");
        assert_eq!((bw.len(), iops.len()), (clat.len(), clat.len()));
        for ((c, b), i) in clat.iter().zip(&bw).zip(&iops) {
            assert_eq!(b[1], 4096 * 1_000_000 / c[1], "{job}: bw of {c:?}");
            assert_eq!((b[0], b[4]), (c[0], c[4]), "{job}: the same I/O");
            assert_eq!((i[0], i[1], i[4]), (c[0], 1, c[4]));
        }
    }
}

#[test]
fn two_runs_write_the_same_bytes() {
    let (a, b) = (scratch("same-a"), scratch("same-b"));
    let (first, second) = (report_of(&a, PER_IO), report_of(&b, PER_IO));
    assert_eq!(first["jobs"], second["jobs"]);
    let (fa, fb) = (files_in(&a), files_in(&b));
    assert_eq!(fa.len(), 10);
    assert!(fa == fb, "the logs differ between two runs");
}

const WINDOWED: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=4
bs=4k
runtime=300ms
time_based
ramp_time=50ms
log_avg_msec=100
write_lat_log=w
write_bw_log=w
write_iops_log=w
[mixed]
rw=randrw
";

#[test]
fn log_avg_msec_writes_one_entry_per_window_and_direction() {
    let dir = scratch("windowed");
    let rep = report_of(
        &dir,
        &format!("{WINDOWED}[reader]\nrw=randread\nlog_max_value=1\n"),
    );
    let files = files_in(&dir);
    for (n, dirs) in [(1, &["read", "write"][..]), (2, &["read"][..])] {
        let job = &rep["jobs"][n - 1];
        for (d, key) in dirs.iter().enumerate() {
            let stats = &job[*key];
            let of_dir = |kind: &str| -> Vec<Vec<u64>> {
                let all = rows(&files[&format!("w_{kind}.{n}.log")]);
                all.into_iter().filter(|l| l[2] == d as u64).collect()
            };
            // Sampled every 100 ms from the start (the end of the ramp), as
            // the report's samples are (a job with the log and no
            // bwavgtime takes log_avg_msec as their window): the same values.
            let bw = of_dir("bw");
            let times: Vec<u64> = bw.iter().map(|l| l[0]).collect();
            assert_eq!(times, vec![100, 200, 300], "job {n} {key}");
            assert_eq!(bw.len() as u64, u(&stats["bw_samples"]));
            assert_eq!(bw.iter().map(|l| l[1]).min(), Some(u(&stats["bw_min"])));
            assert_eq!(bw.iter().map(|l| l[1]).max(), Some(u(&stats["bw_max"])));
            let iops = of_dir("iops");
            let counted: u64 = iops.iter().map(|l| l[1] / 10).sum();
            let ios = u(&stats["total_ios"]);
            assert!(
                counted <= ios && counted + 4 >= ios,
                "{counted} of {ios} I/Os"
            );
            // Latency windows close at an I/O a window on, and once more at
            // the end; an average lies within the report's range.
            let lat = of_dir("clat");
            assert!((3..=4).contains(&lat.len()), "job {n} {key}: {lat:?}");
            let (lo, hi) = (u(&stats["clat_ns"]["min"]), u(&stats["clat_ns"]["max"]));
            for l in bw.iter().chain(&iops).chain(&lat) {
                assert_eq!(&l[2..], &[d as u64, 0, 0], "windowed: no size, priority");
            }
            for l in &lat {
                assert!(lo <= l[1] && l[1] <= hi, "{l:?} outside {lo}..{hi}");
            }
            if n == 2 {
                // log_max_value: the largest latency is a window's entry.
                assert!(lat.iter().any(|l| l[1] == hi));
            }
        }
    }
}

#[test]
fn without_per_job_logs_the_clones_append_to_one_file() {
    let dir = scratch("shared");
    let text = "[j]\nrw=randread\nioengine=libaio\ndirect=1\niodepth=2\nruntime=50ms\n\
                time_based\nnumjobs=2\nper_job_logs=0\nwrite_lat_log=s\n";
    let rep = report_of(&dir, text);
    let ios: u64 = (0..2)
        .map(|i| u(&rep["jobs"][i]["read"]["total_ios"]))
        .sum();
    let first = files_in(&dir);
    let names: Vec<&String> = first.keys().collect();
    assert_eq!(names, ["s_clat.log", "s_lat.log", "s_slat.log"]);
    assert_eq!(first["s_clat.log"].lines().count() as u64, ios);
    // fio appends to the file: a second run adds its lines after them.
    report_of(&dir, text);
    let again = files_in(&dir);
    let twice = format!("{0}{0}", first["s_clat.log"]);
    assert!(
        again["s_clat.log"] == twice,
        "the second run's lines follow the first's"
    );
}

#[test]
fn a_failed_run_leaves_no_log_file() {
    let dir = scratch("failed");
    // An error later in the file, found before anything runs.
    let text = format!("{PER_IO}[third]\nrw=randread\nbs=banana\n");
    let (code, _, err) = run_in(&dir, &text, &[]);
    assert_eq!(code, 2, "{err}");
    // An error found once the log files were opened (the device is built
    // after them), and a log directory that does not exist.
    let (code, _, err) = run_in(&dir, &format!("{PER_IO}[third]\nrw=read\nbs=1t\n"), &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("larger than the device"), "{err}");
    let (code, _, err) = run_in(&dir, &PER_IO.replace("=rate", "=no/such/dir/rate"), &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("job.fio:9: job 'reader': write_bw_log"),
        "{err}"
    );
    let left = files_in(&dir);
    assert!(left.is_empty(), "files left: {:?}", left.keys());
    // The same job file without the error writes its logs.
    report_of(&dir, PER_IO);
    assert_eq!(files_in(&dir).len(), 10);
}

#[test]
fn a_run_on_a_file_target_writes_its_logs_too() {
    let dir = scratch("target");
    let text = "[w]\nrw=randwrite\nbs=4k\ndirect=1\nsize=4m\nio_size=1m\niodepth=8\n\
                ioengine=io_uring\nwrite_lat_log=t\nlog_offset=1\n";
    let (code, out, err) = run_in(&dir, text, &["--target", "t.img"]);
    assert_eq!(code, 0, "{err}");
    let rep: Value = serde_json::from_str(&out).unwrap();
    let clat = rows(&std::fs::read_to_string(dir.join("t_clat.1.log")).unwrap());
    assert_eq!(clat.len(), 256);
    let stats = &rep["jobs"][0]["write"];
    assert_eq!(
        clat.iter().map(|l| l[1]).max(),
        Some(u(&stats["clat_ns"]["max"]))
    );
    assert!(clat.iter().all(|l| l[4] < 4 << 20 && l[4] % 4096 == 0));
}

#[test]
fn an_interrupted_run_removes_its_temporary_logs() {
    let dir = scratch("interrupted");
    let text = "[j]\nrw=randread\nioengine=libaio\ndirect=1\nruntime=600\ntime_based\n\
                write_lat_log=long\n";
    std::fs::write(dir.join("job.fio"), text).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .current_dir(&dir)
        .args(["run", "job.fio"])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // The temporary files appear as the run starts; then it is interrupted.
    let started = std::time::Instant::now();
    while files_in(&dir).len() < 3 {
        assert!(started.elapsed().as_secs() < 60, "no temporary log file");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .unwrap()
        .success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let left = files_in(&dir);
    assert!(left.is_empty(), "files left: {:?}", left.keys());
}
