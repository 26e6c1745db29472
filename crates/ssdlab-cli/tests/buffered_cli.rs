//! Buffered fio jobs, syncs and Postmark command files from the command
//! line: the reports a user reads, and the errors bad settings get.

mod support;

use std::path::PathBuf;
use support::ssdlab;

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-buffered-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

const SYNCED: &str = "[w]\nrw=randwrite\nbs=4k\nsize=2m\nnumber_ios=64\nfsync=8\n";

#[test]
fn a_buffered_job_reports_its_syncs_and_the_page_cache() {
    let job = scratch("synced.fio", SYNCED);
    let args = ["run", job.to_str().unwrap(), "--device", "seed004"];
    let (code, text, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("fsync/fdatasync/sync_file_range:"), "{text}");
    assert!(text.contains("issued rwts: total=0,64,0,7 "), "{text}");
    let (code, out, err) = ssdlab(&[&args[..], &["--output-format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let job = &v["jobs"][0];
    assert_eq!(job["sync"]["total_ios"], 7);
    assert!(
        job["sync"]["lat_ns"]["percentile"]["99.000000"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert_eq!(v["ssdlab"]["page_cache"]["flushes"], 7);
    assert_eq!(v["ssdlab"]["page_cache"]["pages_written_back"], 64);
}

#[test]
fn bad_sync_options_and_page_cache_settings_exit_2_with_their_place() {
    let job = scratch("badsync.fio", "[w]\nrw=write\nsync=sometimes\n");
    let (code, _, err) = ssdlab(&["run", job.to_str().unwrap(), "--device", "seed004"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("badsync.fio:3") && err.contains("sync"),
        "{err}"
    );
    // Host files: a ratio out of range, then sizes and times with units
    // (a bad one named at its line).
    let job = scratch("ok.fio", SYNCED);
    for (text, expect) in [
        (
            "[page_cache]\ndirty_ratio = 150\n",
            Some("h.toml:2: page_cache.dirty_ratio"),
        ),
        (
            "[page_cache]\ncapacity_bytes = \"64MiB\"\ndirty_expire_ns = \"1s\"\n",
            None,
        ),
        (
            "[page_cache]\ncapacity_bytes = \"64 parsecs\"\n",
            Some("h.toml:2: page_cache.capacity_bytes"),
        ),
    ] {
        let host = scratch("h.toml", text);
        let (job, host) = (job.to_str().unwrap(), host.to_str().unwrap());
        let (code, _, err) = ssdlab(&["run", job, "--device", "seed004", "--host", host]);
        match expect {
            None => assert_eq!(code, 0, "{err}"),
            Some(place) => {
                assert_eq!(code, 2, "{text}");
                assert!(err.contains(place), "{err}");
            }
        }
    }
}

#[test]
fn a_postmark_command_file_runs_and_its_errors_name_the_line() {
    let cfg = scratch(
        "pm.cfg",
        "# a Postmark set-up\nset size 500 4000\nset number 40\nset transactions 60\n\
         set processes 2\nset seed 9\nset read 512\nrun\nquit\n",
    );
    let (code, out, err) = ssdlab(&["postmark", cfg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 processes, 120 transactions"), "{out}");
    // The file's seed, unless --seed says otherwise: same seed, same bytes.
    let (_, again, _) = ssdlab(&["postmark", cfg.to_str().unwrap(), "--seed", "9"]);
    assert_eq!(out, again);
    let bad = scratch("bad.cfg", "set number 40\nset bias create 11\n");
    let (code, _, err) = ssdlab(&["postmark", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.cfg:2: set bias"), "{err}");
}
