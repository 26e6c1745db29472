//! The report's `timestamp` is the time of the run, as fio's is, unless
//! `SOURCE_DATE_EPOCH` pins it: then a simulated run's JSON is the same
//! bytes every time, timestamps included.

use std::process::Command;

const JOB: &str = "[global]\nioengine=libaio\ndirect=1\nbs=4k\nrw=randread\nruntime=100ms\ntime_based\n\n\
[bg]\niodepth=8\nsize=10%\n\n[rt]\nioengine=psync\nprioclass=1\nthinktime=2000\noffset=50%\nsize=5%\n";

/// Runs the job, JSON on stdout, with `SOURCE_DATE_EPOCH` set to `epoch`
/// (unset when None).
fn run(epoch: Option<&str>) -> String {
    let dir = std::env::temp_dir().join(format!("ssdlab-report-time-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = dir.join("job.fio");
    std::fs::write(&job, JOB).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    cmd.args(["run", job.to_str().unwrap(), "--output-format", "json"]);
    match epoch {
        Some(e) => cmd.env("SOURCE_DATE_EPOCH", e),
        None => cmd.env_remove("SOURCE_DATE_EPOCH"),
    };
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn timestamp(json: &str) -> i64 {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v["timestamp"].as_i64().unwrap()
}

#[test]
fn source_date_epoch_pins_the_timestamp_and_the_bytes() {
    let (a, b) = (run(Some("1700000000")), run(Some("1700000000")));
    assert_eq!(timestamp(&a), 1_700_000_000);
    assert!(a == b, "same command and epoch, different bytes");
}

#[test]
fn without_it_the_timestamp_is_the_time_of_the_run() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let t = timestamp(&run(None));
    assert!((t - now).abs() < 600, "timestamp {t}, now {now}");
}
