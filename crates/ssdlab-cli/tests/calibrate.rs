//! `ssdlab calibrate`: a synthetic fit (targets measured on a known preset,
//! fitted back from a wrong start), resuming from the cache, and refused
//! targets files.

mod support;
use std::path::{Path, PathBuf};
use support::ssdlab;

const JOB: &str = "[w]\nrw=randwrite\nbs=4k\niodepth=32\nioengine=libaio\ndirect=1\nsize=64m\nruntime=50ms\ntime_based=1\n";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-cal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("w.fio"), JOB).unwrap();
    dir
}

fn measured_bw_mbs(dir: &Path) -> f64 {
    let job = dir.join("w.fio");
    let (code, out, err) = ssdlab(&[
        "run",
        job.to_str().unwrap(),
        "--device",
        "seed004",
        "--output-format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["jobs"][0]["write"]["bw_bytes"].as_f64().unwrap() / 1e6
}

#[test]
fn a_known_program_time_is_fitted_back_and_the_fit_resumes() {
    let dir = scratch("fit");
    let bw = measured_bw_mbs(&dir);
    // seed004's own program time is 230 us; the search starts at 450.
    let text = format!(
        "device = \"seed004\"\n[[param]]\nkey = \"timing.program_ns\"\nmin = 100000\nmax = 600000\n\
         start = 450000\n[[target]]\njob = \"w.fio\"\nmetric = \"bw_mbs\"\nvalue = {bw}\n"
    );
    std::fs::write(dir.join("targets.toml"), text).unwrap();
    let out = dir.join("out");
    let targets = dir.join("targets.toml");
    let args = [
        "calibrate",
        targets.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, first, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    let fitted = std::fs::read_to_string(out.join("fitted.toml")).unwrap();
    let program_ns: f64 = fitted
        .lines()
        .find_map(|l| l.strip_prefix("program_ns = "))
        .expect("program_ns in fitted.toml")
        .replace('_', "")
        .parse()
        .unwrap();
    assert!(
        (program_ns - 230_000.0).abs() < 0.03 * 230_000.0,
        "fitted {program_ns}, true 230000\n{first}"
    );
    let report = std::fs::read_to_string(out.join("residuals.md")).unwrap();
    assert!(report.contains("| w.fio none 0% bw_mbs |"), "{report}");
    // Run again: every point comes from the cache.
    let (code, second, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(second.contains("; 0 runs computed"), "{second}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_targets_files_are_refused_with_the_field() {
    let dir = scratch("bad");
    let head = "device = \"seed004\"\n";
    let param = "[[param]]\nkey = \"timing.program_ns\"\nmin = 100000\nmax = 600000\n";
    let target = "[[target]]\njob = \"w.fio\"\nmetric = \"bw_mbs\"\nvalue = 100\n";
    for (body, needle) in [
        (format!("{head}[[param]]\nkey = \"timing.program_ns\"\nmin = 5\nmax = 5\n{target}"), "param[0]"),
        (format!("{head}[[param]]\nkey = \"timing.no_such_key\"\nmin = 1\nmax = 5\n{target}"), "param[0]"),
        (format!("{head}{param}start = 900000\n{target}"), "param[0] (timing.program_ns).start"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nmetric = \"p999_us\"\nvalue = 100\n"), "job_name"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nmetric = \"mean_us\"\njob_name = \"nope\"\nvalue = 1\n"), "job_name"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nmetric = \"bw_mbs\"\nvalue = -1\n"), "value"),
        (format!("{head}{param}[[target]]\njob = \"missing.fio\"\nmetric = \"bw_mbs\"\nvalue = 1\n"), "missing.fio"),
        (format!("{head}{param}{target}colour = 3\n"), "colour"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nmetric = \"bw_mbs\"\nvalue = [5, 4]\n"), "target[0].value"),
        (format!("{head}{param}{target}runtime_s = 0\n"), "target[0].runtime_s"),
        (format!("{head}{param}[[target]]\njob = \"k2-study:trim\"\nmetric = \"bw_mbs\"\nvalue = 1\n"), "k2-study:trim"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nmetric = \"drop_s\"\njob_name = \"w\"\nvalue = 1\n"), "job_name"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nmetric = \"cache_gb\"\njob_name = \"w\"\nvalue = 1\n"), "job_name"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nmetric = \"iops\"\njob_name = \"nope\"\nvalue = 1\n"), "target[0].job_name"),
        (format!("{head}{param}[[target]]\njob = \"datasheet:trim\"\nmetric = \"bw_mbs\"\nvalue = 1\n"), "datasheet:trim"),
        (format!("{head}{param}[[target]]\njob = \"w.fio\"\nhost = \"no-such-host.toml\"\nmetric = \"bw_mbs\"\nvalue = 1\n"), "no-such-host.toml"),
        (format!("{head}{param}{target}tolerance = 0\n"), "target[0].tolerance"),
        // A range reaching presets that do not exist (a program of 1e300 ns).
        (format!("{head}[[param]]\nkey = \"timing.program_ns\"\nmin = 100000\nmax = 1e300\n{target}"), "param[0] (timing.program_ns).max"),
        (format!("tolerance = -0.25\n{head}{param}{target}"), "targets.toml: tolerance"),
        // A range whose width overflows, and a key fitted twice.
        (format!("{head}[[param]]\nkey = \"timing.program_ns\"\nmin = -1e308\nmax = 1e308\n{target}"), "param[0] (timing.program_ns): min"),
        (format!("{head}{param}{param}{target}"), "param[1] (timing.program_ns): the key is already a param"),
        // Each target's own problems name the target.
        (format!("{head}{param}{target}occupancy = 150\n"), "targets.toml: target[0]"),
        (format!("device = \"no-such-preset\"\n{param}{target}"), "targets.toml: device"),
        (format!("{head}{param}[[target]]\njob = \"missing.fio\"\nmetric = \"bw_mbs\"\nvalue = 1\n"), "target[0].job"),
        (format!("{head}{param}"), "targets.toml"),
    ] {
        let path = dir.join("targets.toml");
        std::fs::write(&path, &body).unwrap();
        let out = dir.join("out");
        let (code, _, err) = ssdlab(&["calibrate", path.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(code, 2, "{body}\n{err}");
        assert!(err.contains(needle), "{needle} in {err}");
        assert!(!out.join("fitted.toml").exists(), "{body}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn without_a_file_the_k2_studys_and_the_data_sheets_figures_are_the_targets() {
    let (code, out, err) = ssdlab(&["calibrate", "--print"]);
    assert_eq!(code, 0, "{err}");
    // 44 of the K2 study, 8 of the data sheet on the preset's own host
    // (not the random write beyond the buffer, whose span is unknown).
    assert_eq!(out.matches("[[target]]").count(), 52, "{out}");
    assert_eq!(out.matches("job = \"datasheet:").count(), 8, "{out}");
    assert_eq!(out.matches("host = \"preset\"").count(), 8, "{out}");
    assert!(!out.contains("datasheet:sustained-random"), "{out}");
    assert_eq!(out.matches("occupancy = 100.0").count(), 13, "{out}");
    assert!(out.contains("value = [256.0, 288.0]"), "{out}");
    assert!(out.contains("metric = \"drop_s\""), "{out}");
    assert!(out.contains("runtime_s = 150"), "{out}");
    // The acceptance band holds for every built-in target.
    assert!(out.contains("tolerance = 0.25"), "{out}");
    // The printed set is a targets file: it reads back (and prints the same).
    let dir = scratch("print");
    let path = dir.join("k2.toml");
    std::fs::write(&path, &out).unwrap();
    let (code, again, err) = ssdlab(&["calibrate", path.to_str().unwrap(), "--print"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(again, out);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn targets_that_read_one_run_share_it() {
    let dir = scratch("share");
    let bw = measured_bw_mbs(&dir);
    // Bandwidth, IOPS and a latency of one run, and the bandwidth again
    // 10 ms longer: two runs per evaluation, whatever the targets.
    let text = format!(
        "device = \"seed004\"\n[[param]]\nkey = \"timing.program_ns\"\nmin = 100000\nmax = 600000\n\
         [[target]]\njob = \"w.fio\"\nmetric = \"bw_mbs\"\nvalue = [{lo}, {hi}]\n\
         [[target]]\njob = \"w.fio\"\nmetric = \"mean_us\"\njob_name = \"w\"\nvalue = 1000\nweight = 0.001\n\
         [[target]]\njob = \"w.fio\"\nmetric = \"iops\"\nvalue = {iops}\nweight = 0.001\n\
         [[target]]\njob = \"w.fio\"\nruntime_s = 1\nmetric = \"bw_mbs\"\nvalue = {bw}\nweight = 0.001\n",
        lo = bw * 0.99,
        hi = bw * 1.01,
        iops = bw * 1e6 / 4096.0,
    );
    let targets = dir.join("targets.toml");
    std::fs::write(&targets, text).unwrap();
    let out = dir.join("out");
    let (code, report, err) = ssdlab(&[
        "calibrate",
        targets.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--max-iters",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let evaluations: usize = err
        .rsplit("evaluation ")
        .next()
        .and_then(|s| s.split(',').next())
        .and_then(|n| n.trim().parse().ok())
        .expect("progress line");
    let runs: usize = report
        .split("; ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("runs computed");
    assert!(
        runs <= 2 * evaluations,
        "{runs} runs for {evaluations} evaluations\n{report}"
    );
    assert!(report.contains("w.fio none 0% 1s bw_mbs"), "{report}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_data_sheet_targets_measure_what_validate_datasheet_prints() {
    let (code, all, err) = ssdlab(&["calibrate", "--print"]);
    assert_eq!(code, 0, "{err}");
    // The printed data-sheet targets alone, with one key to evaluate at.
    let first = all.find("job = \"datasheet:").expect("data-sheet targets");
    let start = all[..first].rfind("[[target]]").unwrap();
    let text = format!(
        "device = \"consumer-tlc-250g\"\nhost = \"k2-study\"\n[[param]]\nkey = \"timing.program_ns\"\n\
         min = 1000000\nmax = 3000000\n{}",
        &all[start..]
    );
    let dir = scratch("datasheet");
    let targets = dir.join("datasheet.toml");
    std::fs::write(&targets, text).unwrap();
    let out = dir.join("out");
    let args = [
        "calibrate",
        targets.to_str().unwrap(),
        "--evaluate",
        "--out",
        out.to_str().unwrap(),
    ];
    let (code, report, err) = ssdlab(&args);
    assert_eq!(code, 0, "{err}");
    assert!(report.contains("timing.program_ns = 1950000"), "{report}");
    let (code, json, err) = ssdlab(&["validate", "datasheet", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let measured: Vec<f64> = report
        .lines()
        .filter(|l| l.starts_with("| datasheet:"))
        .map(|l| l.split('|').nth(2).unwrap().trim().parse().unwrap())
        .collect();
    let validated: Vec<f64> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["simulated"].as_f64().unwrap())
        .collect();
    // Every row but the last (the random write beyond the buffer, not a
    // target), in the same order.
    assert_eq!(measured.len(), 8, "{report}");
    assert_eq!(validated.len(), 9, "{json}");
    for (m, v) in measured.iter().zip(&validated) {
        assert!(
            (m - v).abs() <= 1e-4 * v.abs().max(1.0),
            "{m} vs {v}\n{report}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
