//! `probe` then `calibrate --measurements`: a real loop device this test
//! makes (never any other block device) measured with the fixed plan, and
//! a preset's keys started from what it measured. Without root and
//! losetup the loop-device check says so and checks nothing.

mod support;

use serde_json::Value;
use std::path::PathBuf;
use support::{ssdlab, LoopDevice};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-probe-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn probe_measures_a_loop_device_and_calibrate_starts_from_its_figures() {
    let dir = scratch("loop");
    let Some(dev) = LoopDevice::new(&dir.join("backing.img"), 64 << 20) else {
        return;
    };
    let out = dir.join("probe");
    let out_s = out.display().to_string();
    // A block device is written only when allowed; nothing is left behind.
    let (code, _, err) = ssdlab(&["probe", "--target", &dev.path, "--out", &out_s]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--allow-destructive"), "{err}");
    assert!(!out.exists());
    let (code, stdout, err) = ssdlab(&[
        "probe",
        "--target",
        &dev.path,
        "--allow-destructive",
        "--duration",
        "1",
        "--out",
        &out_s,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("randread-4k-qd1"), "{stdout}");
    let m: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("measurements.json")).unwrap())
            .unwrap();
    let cases = m["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 20);
    assert_eq!(m["target"]["kind"], "block device");
    assert_eq!(m["region_bytes"], 64 << 20);
    assert_eq!(m["partial"], false);
    for c in cases {
        let iops = c["figures"]["iops"].as_f64().unwrap();
        assert!(iops > 0.0, "{}: {iops}", c["name"]);
    }
    for f in [
        "report.html",
        "report.md",
        "results.csv",
        "probe-latency.svg",
        "probe-depth.svg",
    ] {
        assert!(out.join(f).is_file(), "{f}");
    }

    // The fit's targets and jobs are written out; at the first guess the
    // controller's serial work per command makes the 4 KiB random writes
    // at QD 32 as fast as the drive's (the relation of the guess).
    let cal = dir.join("cal");
    let cal_s = cal.display().to_string();
    let (code, stdout, err) = ssdlab(&[
        "calibrate",
        "--measurements",
        &out_s,
        "--base",
        "mqsim-64g",
        "--out",
        &cal_s,
        "--evaluate",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(cal.join("targets.toml").is_file());
    assert!(cal.join("jobs/randwrite-4k-qd32.fio").is_file());
    let row = stdout
        .lines()
        .find(|l| l.contains("randwrite-4k-qd32"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(row.ends_with("| yes (±25%) |"), "{row}");
    // The targets file it wrote is a targets file like any other.
    let (code, _, err) = ssdlab(&[
        "calibrate",
        &cal.join("targets.toml").display().to_string(),
        "--out",
        &cal_s,
        "--evaluate",
    ]);
    assert_eq!(code, 0, "{err}");
    drop(dev);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_probe_and_calibrate_input_exits_2() {
    let dir = scratch("bad");
    let missing = dir.join("missing.img").display().to_string();
    let (code, _, err) = ssdlab(&["probe", "--target", &missing]);
    assert_eq!(code, 2);
    assert!(err.contains("--size"), "{err}");
    let (code, _, err) = ssdlab(&[
        "probe",
        "--target",
        &missing,
        "--size",
        "1m",
        "--duration",
        "0",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("--duration"), "{err}");
    assert!(!dir.join("missing.img").exists());
    let (code, _, err) = ssdlab(&["probe", "--target", &missing, "--size", "12k"]);
    assert_eq!(code, 2, "{err}");
    // A file that is not a probe's measurements.
    let bogus = dir.join("m.json");
    std::fs::write(&bogus, "{\"version\": 1}").unwrap();
    let (code, _, err) = ssdlab(&[
        "calibrate",
        "--measurements",
        &bogus.display().to_string(),
        "--base",
        "seed004",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not a measurements file"), "{err}");
    let (code, _, err) = ssdlab(&["calibrate", "--measurements", &bogus.display().to_string()]);
    assert_eq!(code, 2, "--base is required: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}
