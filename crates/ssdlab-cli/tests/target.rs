//! `run --target`: real I/O on files and on loop devices this test makes
//! (never any other block device). The loop-device tests need root and
//! losetup; without them they say so and check nothing.

mod support;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{ssdlab, LoopDevice};

/// A fresh directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-target-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn job(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

fn json_of(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// The K2 set-up on a small target: three background random-read jobs at
/// QD 32 and one RT job (`rt_extra` added to it), `runtime_s` seconds.
fn k2_setup(runtime_s: u32, rt_extra: &str) -> String {
    let mut text = format!(
        "[global]\nioengine=io_uring\ndirect=1\nsize=16m\nruntime={runtime_s}\ntime_based=1\n"
    );
    for i in 0..3 {
        text += &format!("[bg{i}]\nrw=randread\nbs=4k\niodepth=32\nprioclass=2\n");
    }
    text + "[rt]\nrw=randread\nbs=4k\niodepth=1\nprioclass=1\n" + rt_extra
}

const WRITE_JOB: &str = "[w]\nrw=randwrite\nbs=4k\ndirect=1\nsize=4m\nio_size=1m\niodepth=8\n";
const READ_JOB: &str = "[r]\nrw=randread\nbs=4k\ndirect=1\nio_size=1m\niodepth=8\n";

#[test]
fn a_file_target_is_laid_out_to_the_jobs_size_and_never_grows() {
    let dir = scratch("file");
    let target = dir.join("t.img");
    let t = target.to_str().unwrap();
    let j = job(&dir, "w.fio", WRITE_JOB);
    let (code, out, err) = ssdlab(&["run", &j, "--target", t, "--output-format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 4 << 20);
    let rep = json_of(&out);
    let engine = &rep["ssdlab"]["engine_counters"];
    assert_eq!(engine["bytes_written"], 1 << 20, "{engine}");
    assert_eq!(rep["ssdlab"]["laid_out_bytes"], 4 << 20);
    assert_eq!(rep["jobs"][0]["write"]["total_ios"], 256);
    // A second run with a smaller region writes inside the file, which
    // keeps its size; one whose job takes the whole target uses it as is.
    let small = job(&dir, "s.fio", &WRITE_JOB.replace("size=4m", "size=2m"));
    let (code, _, err) = ssdlab(&["run", &small, "--target", t]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = ssdlab(&["run", &job(&dir, "r.fio", READ_JOB), "--target", t]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 4 << 20);
}

#[test]
fn what_the_engine_cannot_do_is_refused_before_the_target_is_touched() {
    let dir = scratch("refused");
    let target = dir.join("t.img");
    let t = target.to_str().unwrap();
    for (text, key) in [
        (WRITE_JOB.replace("direct=1", "direct=0"), "direct"),
        (format!("{WRITE_JOB}sync=1\n"), "sync"),
        (
            format!("{WRITE_JOB}cpus_allowed=0\n[w2]\nrw=write\nsize=1m\ndirect=1\n"),
            "cpus_allowed",
        ),
        (READ_JOB.to_string(), "size="),
    ] {
        let (code, _, err) = ssdlab(&["run", &job(&dir, "x.fio", &text), "--target", t]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(err.contains(key), "{key}: {err}");
        assert!(!target.exists(), "{text}: the target was created");
    }
    let (code, _, err) = ssdlab(&[
        "run",
        &job(&dir, "w.fio", WRITE_JOB),
        "--target",
        t,
        "--occupancy",
        "50",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--occupancy"), "{err}");
}

/// `text` run on a fresh file target in scratch directory `name`: its JSON
/// report (the run must succeed) and the text printed.
fn json_run_on_file(name: &str, text: &str) -> (Value, String) {
    let dir = scratch(name);
    let target = dir.join("t.img");
    let (code, out, err) = ssdlab(&[
        "run",
        &job(&dir, "j.fio", text),
        "--target",
        target.to_str().unwrap(),
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    (json_of(&out), out)
}

/// fio's fsync= reaches the target: each sync is a FLUSH (an fsync of the
/// file through io_uring), counted by the engine and reported in fio's
/// sync section.
#[test]
fn fsync_sends_a_flush_to_the_target() {
    // 1 MiB of 4 KiB writes (256), a sync after every 16, one at the end.
    let (rep, out) = json_run_on_file("fsync", &format!("{WRITE_JOB}fsync=16\nend_fsync=1\n"));
    let flushes = rep["ssdlab"]["engine_counters"]["flushes"]
        .as_u64()
        .unwrap();
    let syncs = rep["jobs"][0]["sync"]["total_ios"].as_u64().unwrap();
    assert_eq!(flushes, syncs, "{out}");
    assert!((16..=17).contains(&syncs), "{syncs}");
}

/// fio's `cpus_allowed` pins the thread that submits: the report says to
/// which CPUs, and the run's CPU time was spent there.
#[test]
fn cpus_allowed_pins_the_submitting_thread() {
    let (rep, out) = json_run_on_file("cpus", &format!("{WRITE_JOB}cpus_allowed=0\n"));
    assert_eq!(
        rep["ssdlab"]["cpus_allowed"],
        serde_json::json!([0]),
        "{out}"
    );
}

#[test]
fn k2_with_bound_one_holds_one_command_at_the_target() {
    let dir = scratch("k2");
    let target = dir.join("t.img");
    let j = job(&dir, "k2.fio", &k2_setup(1, ""));
    let t = target.to_str().unwrap();
    let run = |sched: &str| {
        let (code, out, err) = ssdlab(&[
            "run",
            &j,
            "--target",
            t,
            "--scheduler",
            sched,
            "--output-format",
            "json",
        ]);
        assert_eq!(code, 0, "{sched}: {err}");
        json_of(&out)
    };
    let k2 = run("k2:max_inflight=1");
    assert_eq!(k2["ssdlab"]["engine_counters"]["max_outstanding"], 1);
    assert_eq!(k2["ssdlab"]["host_counters"]["max_device_inflight"], 1);
    let none = run("none");
    let most = none["ssdlab"]["engine_counters"]["max_outstanding"]
        .as_u64()
        .unwrap();
    assert!(most > 32, "none keeps the jobs' depth outstanding: {most}");
    for rep in [&k2, &none] {
        let rt = &rep["jobs"][3];
        assert_eq!(rt["jobname"], "rt");
        assert!(rt["read"]["total_ios"].as_u64().unwrap() > 0);
    }
}

#[test]
fn bfq_iolatency_and_k2_adaptive_run_on_a_real_target_unchanged() {
    // The same K2 set-up on a file: each new scheduler runs in real time,
    // reports its counters, and k2-adaptive's bound appears in the time
    // series and bounds what the engine had outstanding.
    let dir = scratch("adaptive");
    let target = dir.join("t.img");
    let j = job(&dir, "k2.fio", &k2_setup(2, "thinktime=500\n"));
    let t = target.to_str().unwrap();
    for sched in [
        "bfq",
        "iolatency:rt_target=200us",
        "k2-adaptive:objective=target,target_p999=2ms",
    ] {
        let ts = dir.join("ts.csv");
        let (code, out, err) = ssdlab(&[
            "run",
            &j,
            "--target",
            t,
            "--scheduler",
            sched,
            "--output-format",
            "json",
            "--timeseries",
            ts.to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{sched}: {err}");
        let rep = json_of(&out);
        let counters = &rep["ssdlab"]["scheduler_counters"];
        assert!(
            counters.as_object().is_some_and(|c| !c.is_empty()),
            "{sched}: {counters}"
        );
        assert!(
            rep["jobs"][3]["read"]["total_ios"].as_u64().unwrap() > 0,
            "{sched}"
        );
        let series = std::fs::read_to_string(&ts).unwrap();
        if sched.starts_with("k2-adaptive") {
            let bounds: Vec<u64> = series
                .lines()
                .filter(|l| l.starts_with("scheduler,k2_bound,"))
                .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
                .collect();
            assert!(bounds.len() >= 2, "{series}");
            // An absolute target needs no probe of the unbounded drive, and
            // the engine never had more out than the jobs can issue.
            assert_eq!(counters["probes"], 0, "{counters}");
            let most = rep["ssdlab"]["engine_counters"]["max_outstanding"]
                .as_u64()
                .unwrap();
            assert!(most <= 97, "{most}");
        }
    }
}

#[test]
fn sigterm_stops_the_run_with_a_partial_report() {
    let dir = scratch("sigterm");
    let target = dir.join("t.img");
    let text = "[r]\nrw=randread\nbs=4k\ndirect=1\nsize=4m\nruntime=60\ntime_based=1\n";
    let j = job(&dir, "long.fio", text);
    let out = dir.join("report.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", &j, "--target", target.to_str().unwrap()])
        .args(["--output-format", "json", "--output", out.to_str().unwrap()])
        .spawn()
        .unwrap();
    // Wait until the run is under way (the file is laid out first).
    let t0 = std::time::Instant::now();
    while !target.exists() && t0.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(700));
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let rep = json_of(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(rep["ssdlab"]["partial"], true);
    let read = &rep["jobs"][0]["read"];
    assert!(read["total_ios"].as_u64().unwrap() > 0, "{read}");
    assert!(read["runtime"].as_u64().unwrap() < 60_000, "{read}");
}

#[test]
fn a_block_device_is_written_only_when_allowed_and_unused() {
    let dir = scratch("loop");
    let Some(dev) = LoopDevice::new(&dir.join("backing.img"), 16 << 20) else {
        return;
    };
    let w = job(&dir, "w.fio", WRITE_JOB);
    let r = job(&dir, "r.fio", READ_JOB);
    let d = dev.path.as_str();
    // Reading needs no flag.
    let (code, _, err) = ssdlab(&["run", &r, "--target", d]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = ssdlab(&["run", &w, "--target", d]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--allow-destructive"), "{err}");
    let (code, out, err) = ssdlab(&[
        "run",
        &w,
        "--target",
        d,
        "--allow-destructive",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let rep = json_of(&out);
    assert_eq!(rep["ssdlab"]["target_kind"], "block device");
    assert!(
        rep["ssdlab"]["kernel_scheduler"].is_string(),
        "{}",
        rep["ssdlab"]
    );
    // A file-system signature makes it a device in use.
    let status = Command::new("mkfs.ext4").args(["-q", "-F", d]).status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("no mkfs.ext4 here: the signature check did not run");
        return;
    }
    let (code, _, err) = ssdlab(&["run", &w, "--target", d, "--allow-destructive"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("ext2/3/4") && err.contains("--force"), "{err}");
    // Mounted, it is refused for that too.
    let mnt = dir.join("mnt");
    std::fs::create_dir_all(&mnt).unwrap();
    if Command::new("mount")
        .arg(d)
        .arg(&mnt)
        .status()
        .is_ok_and(|s| s.success())
    {
        let (code, _, err) = ssdlab(&["run", &w, "--target", d, "--allow-destructive"]);
        let _ = Command::new("umount").arg(&mnt).status();
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("mounted at"), "{err}");
    } else {
        eprintln!("mount failed here: the mounted-device check did not run");
    }
    let (code, _, err) = ssdlab(&["run", &w, "--target", d, "--allow-destructive", "--force"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_trace_replays_on_a_file_target_folded_into_its_size() {
    let dir = scratch("replay");
    let target = dir.join("t.img");
    let t = target.to_str().unwrap();
    // MQSim: time device lba sectors type (0 write, 1 read); the last
    // request lies beyond 1 MiB and folds into the target.
    let trace = job(
        &dir,
        "t.mqsim",
        "0 0 0 8 0\n1000 0 8 8 0\n2000 0 0 8 1\n3000 0 4096 16 0\n",
    );
    let (code, _, err) = ssdlab(&["replay", &trace, "--target", t]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--target-size"), "{err}");
    let bad = job(&dir, "bad.mqsim", "0 0 0 8 7\n");
    let (code, _, err) = ssdlab(&["replay", &bad, "--target", t, "--target-size", "1m"]);
    assert_eq!(code, 2, "{err}");
    assert!(!target.exists(), "a bad trace left the target behind");
    let (code, out, err) = ssdlab(&[
        "replay",
        &trace,
        "--target",
        t,
        "--target-size",
        "1m",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::metadata(&target).unwrap().len(), 1 << 20);
    let rep = json_of(&out);
    assert_eq!(rep["jobs"][0]["write"]["total_ios"], 3);
    assert_eq!(rep["jobs"][0]["read"]["total_ios"], 1);
    assert_eq!(rep["ssdlab"]["replay"]["counters"]["folded"], 1);
    assert_eq!(rep["ssdlab"]["engine_counters"]["bytes_written"], 16384);
}

#[test]
fn verify_finds_a_block_corrupted_between_write_and_read_back() {
    let dir = scratch("verify");
    let target = dir.join("t.img");
    let t = target.to_str().unwrap();
    let job_of = |rw: &str| {
        format!(
            "[{rw}]\nrw={rw}\nbs=16k\ndirect=1\nsize=1m\nioengine=io_uring\niodepth=4\n\
             verify=md5\n"
        )
    };
    let (code, out, err) = ssdlab(&[
        "run",
        &job(&dir, "w.fio", &job_of("write")),
        "--target",
        t,
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v = &json_of(&out)["ssdlab"]["verify"];
    assert_eq!(v["units_written"], 64, "{v}");
    assert_eq!(
        v["units_checked"], 64,
        "the read-back checks every unit: {v}"
    );
    assert_eq!(v["failures"], 0, "{v}");
    // One flipped byte in the 6th block.
    let mut bytes = std::fs::read(&target).unwrap();
    bytes[5 * 16384 + 4000] ^= 0x5a;
    std::fs::write(&target, &bytes).unwrap();
    let (code, out, err) = ssdlab(&[
        "run",
        &job(&dir, "r.fio", &job_of("read")),
        "--target",
        t,
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("offset 81920") && err.contains("md5"), "{err}");
    let v = &json_of(&out)["ssdlab"]["verify"];
    assert_eq!(v["failures"], 1, "{v}");
    assert_eq!(v["first_failures"][0]["offset"], 81920, "{v}");
    // The simulated drive carries no data: verify is refused there.
    let (code, _, err) = ssdlab(&["run", &job(&dir, "s.fio", &job_of("write"))]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("verify") && err.contains("--target"), "{err}");
}

#[test]
fn blocks_larger_than_a_request_run_and_huge_buffers_are_refused() {
    let dir = scratch("bigblocks");
    let target = dir.join("t.img");
    let t = target.to_str().unwrap();
    let text = "[w]\nrw=write\nbs=1m\ndirect=1\nsize=4m\nioengine=io_uring\niodepth=4\n";
    let (code, out, err) = ssdlab(&[
        "run",
        &job(&dir, "w.fio", text),
        "--target",
        t,
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        json_of(&out)["ssdlab"]["engine_counters"]["bytes_written"],
        4 << 20
    );
    let huge = "[w]\nrw=write\nbs=512m\ndirect=1\nsize=1g\nioengine=io_uring\niodepth=4\n";
    let other = dir.join("u.img");
    let (code, _, err) = ssdlab(&[
        "run",
        &job(&dir, "h.fio", huge),
        "--target",
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("I/O buffers"), "{err}");
    assert!(!other.exists(), "the target was made before the refusal");
}

/// The I/O counts and bytes of a fio-format JSON report's first job.
fn counts(rep: &Value) -> (u64, u64, u64, u64) {
    let j = &rep["jobs"][0];
    let n = |d: &str, k: &str| j[d][k].as_u64().unwrap();
    (
        n("read", "total_ios"),
        n("write", "total_ios"),
        n("read", "io_bytes"),
        n("write", "io_bytes"),
    )
}

/// The same job file, by fio (io_uring) and by `run --target`, on the same
/// file and on a loop device: the same work (I/O counts and bytes per
/// direction, sizes and the region's end); the timing is compared by
/// `ssdlab validate fio` (docs/real-drive.md), not by a test.
#[test]
fn fio_and_run_target_do_the_same_work_on_the_same_target() {
    if !support::fio_available("the behaviour differential") {
        return;
    }
    let fio = "fio";
    let dir = scratch("behaviour");
    let text = "[global]\nioengine=io_uring\ndirect=1\nsize=8m\n\
                [mix]\nrw=randrw\nrwmixread=70\nbs=4k\nio_size=2m\niodepth=8\n\
                [seq]\nrw=write\nbs=64k\nsize=8m\nstonewall\n";
    let j = job(&dir, "b.fio", text);
    let file = dir.join("t.img");
    let mut targets = vec![file.display().to_string()];
    let lo = LoopDevice::new(&dir.join("backing.img"), 16 << 20);
    if let Some(d) = &lo {
        targets.push(d.path.clone());
    }
    for t in &targets {
        let (code, out, err) = ssdlab(&[
            "run",
            &j,
            "--target",
            t,
            "--allow-destructive",
            "--output-format",
            "json",
        ]);
        assert_eq!(code, 0, "{t}: {err}");
        let ours = json_of(&out);
        let out = Command::new(fio)
            .args(["--output-format=json", &format!("--filename={t}"), &j])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{t}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let theirs = json_of(&text[text.find('{').unwrap()..]);
        let (ours_mix, theirs_mix) = (counts(&ours), counts(&theirs));
        assert_eq!(ours_mix.0 + ours_mix.1, 512, "{t}: {ours_mix:?}");
        assert_eq!(theirs_mix.0 + theirs_mix.1, 512, "{t}: {theirs_mix:?}");
        assert_eq!(ours_mix.2 + ours_mix.3, theirs_mix.2 + theirs_mix.3, "{t}");
        // Both draw 70 % reads (±10 points over 512 I/Os).
        for (who, c) in [("ssdlab", ours_mix), ("fio", theirs_mix)] {
            let share = c.0 as f64 / 512.0;
            assert!((0.6..0.8).contains(&share), "{t}: {who} read share {share}");
        }
        // The JSON holds every key fio's does, job by job and direction by
        // direction (ssdlab's own section aside).
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
            k.retain(|k| k != "ssdlab");
            k.sort();
            k
        };
        for path in [
            &["jobs", "0"][..],
            &["jobs", "0", "read"],
            &["jobs", "0", "write"],
        ] {
            let at = |r: &Value| {
                path.iter()
                    .fold(r.clone(), |v, p| match p.parse::<usize>() {
                        Ok(i) => v[i].clone(),
                        Err(_) => v[*p].clone(),
                    })
            };
            assert_eq!(
                keys(&at(&ours)),
                keys(&at(&theirs)),
                "{t}: keys of {path:?}"
            );
        }
        assert_eq!(keys(&ours), keys(&theirs), "{t}: top-level keys");
        let seq = |r: &Value| r["jobs"][1]["write"]["io_bytes"].as_u64().unwrap();
        assert_eq!(seq(&ours), 8 << 20, "{t}");
        assert_eq!(seq(&theirs), 8 << 20, "{t}");
    }
    assert_eq!(std::fs::metadata(&file).unwrap().len(), 8 << 20);
}

/// The parser's `verify=` methods and the engine's are one list: a method
/// the parser accepts is one the drive verifies with, and back.
#[test]
fn the_parser_and_the_engine_know_the_same_verify_methods() {
    let def = ssdlab_fio::find_option("verify").unwrap();
    let ssdlab_fio::OptionKind::Choice(names) = def.kind else {
        panic!("verify is a choice: {:?}", def.kind);
    };
    let mut parser: Vec<&str> = names.iter().copied().filter(|n| *n != "none").collect();
    let mut engine: Vec<&str> = ssdlab_drive::METHODS.to_vec();
    parser.sort_unstable();
    engine.sort_unstable();
    assert_eq!(parser, engine);
}
