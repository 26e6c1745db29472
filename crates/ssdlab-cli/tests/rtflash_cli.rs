//! `ssdlab rtflash analyze`: the case study's verdicts per approach, bad
//! task-set files (exit 2, `file:line: field`), stable JSON.

mod support;

use std::path::PathBuf;
use support::ssdlab;

fn case_study() -> String {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/rtflash/case-study.toml");
    p.display().to_string()
}

fn temp_file(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-rtflash-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn analyze_json(file: &str, approach: &str) -> serde_json::Value {
    let (code, out, err) = ssdlab(&["rtflash", "analyze", file, "--approach", approach, "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn case_study_within_deadlines_only_under_clustering() {
    let file = case_study();
    for (approach, schedulable) in [
        ("clustering", true),
        ("global", false),
        ("full-isolation", false),
    ] {
        let v = analyze_json(&file, approach);
        assert_eq!(v["schedulable"], schedulable, "{approach}: {v}");
        let tasks = v["tasks"].as_array().unwrap();
        assert_eq!(tasks.len(), 4);
        let big1 = &tasks[0];
        let wcl = big1["worst_case_latency_ns"].as_u64().unwrap();
        let deadline = big1["deadline_ns"].as_u64().unwrap();
        assert_eq!(
            wcl <= deadline,
            schedulable,
            "{approach}: {wcl} vs {deadline}"
        );
    }
    let c = analyze_json(&file, "clustering");
    let chips: Vec<_> = c["clusters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["chips"].clone())
        .collect();
    assert_eq!(
        serde_json::json!(chips),
        serde_json::json!([[0, 1], [2, 3]])
    );
}

#[test]
fn text_output_names_the_verdict_and_is_deterministic() {
    let file = case_study();
    let (code, a, _) = ssdlab(&["rtflash", "analyze", &file]);
    assert_eq!(code, 0);
    assert!(a.contains("verdict: schedulable"), "{a}");
    let (_, b, _) = ssdlab(&["rtflash", "analyze", &file]);
    assert_eq!(a, b);
    let (code, g, _) = ssdlab(&["rtflash", "analyze", &file, "--approach", "global"]);
    assert_eq!(code, 0, "an unschedulable set is a result");
    assert!(g.contains("verdict: unschedulable: task 'big1'"), "{g}");
    let (_, j1, _) = ssdlab(&["rtflash", "analyze", &file, "--json"]);
    let (_, j2, _) = ssdlab(&["rtflash", "analyze", &file, "--json"]);
    assert_eq!(j1, j2);
}

const GOOD: &str = r#"[platform]
chips = 4

[[rt_task]]
name = "a"
period = "20ms"
deadline = "15ms"
write_pages = 8
footprint = "64MiB"
"#;

#[test]
fn bad_files_exit_2_with_file_line_and_field() {
    let cases = [
        (
            "deadline.toml",
            GOOD.replace("\"15ms\"", "\"25ms\""),
            "7: rt_task[0].deadline:",
        ),
        (
            "period.toml",
            GOOD.replace("\"20ms\"", "\"0ms\""),
            "6: rt_task[0].period:",
        ),
        (
            "footprint.toml",
            GOOD.replace("\"64MiB\"", "\"64GiB\""),
            "9: rt_task[0].footprint:",
        ),
        (
            "chips.toml",
            GOOD.replace("chips = 4", "preset = \"seed004\"\nchips = 8"),
            "3: platform.chips:",
        ),
        (
            "unknown.toml",
            GOOD.replace("write_pages = 8", "write_pages = 8\nprio = 1"),
            "9: rt_task.prio:",
        ),
        (
            "duration.toml",
            GOOD.replace("\"20ms\"", "\"20 ms later\""),
            "6: rt_task[0].period:",
        ),
    ];
    for (name, text, want) in cases {
        let path = temp_file(name, &text);
        let p = path.display().to_string();
        let (code, out, err) = ssdlab(&["rtflash", "analyze", &p]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(out.is_empty(), "{name}: {out}");
        assert!(
            err.contains(&format!("{p}:{want}")),
            "{name}: {err} lacks {want}"
        );
    }
    let (code, _, err) = ssdlab(&["rtflash", "analyze", &case_study(), "--approach", "best"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown allocation approach 'best'"), "{err}");
}

fn run_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["rtflash", "run"];
    all.extend_from_slice(args);
    all.push("--json");
    let (code, out, err) = ssdlab(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn run_of_the_accepted_allocation_misses_nothing_and_stays_within_the_bound() {
    let file = case_study();
    let r = run_json(&[&file, "--duration", "3"]);
    assert_eq!(r["schedulable"], true);
    for t in r["tasks"].as_array().unwrap() {
        assert_eq!(t["read_misses"], 0, "{t}");
        assert_eq!(t["write_misses"], 0, "{t}");
        assert!(t["jobs"].as_u64().unwrap() >= 25, "{t}");
        let bound = t["worst_case_latency_ns"].as_u64().unwrap();
        assert!(t["max_response_ns"].as_u64().unwrap() <= bound, "{t}");
    }
    assert!(r["nrt"]["mb_per_s"].as_f64().unwrap() > 0.0);
    // Deterministic: the same run prints the same bytes.
    let again = run_json(&[&file, "--duration", "3"]);
    assert_eq!(r, again);
}

#[test]
fn run_refuses_a_nonsense_duration_and_a_set_that_does_not_fit() {
    let file = case_study();
    let (code, _, err) = ssdlab(&["rtflash", "run", &file, "--duration", "0"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--duration"), "{err}");
    let (code, _, err) = ssdlab(&["rtflash", "run", &file, "--approach", "nosuch"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--approach"), "{err}");
}

#[test]
fn leftover_chips_from_the_command_line_override_the_file() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/rtflash/interference.toml")
        .display()
        .to_string();
    let nrt_only = |v: &serde_json::Value| -> Vec<bool> {
        let clusters = v["clusters"].as_array().unwrap();
        clusters.iter().map(|c| c["nrt_only"] == true).collect()
    };
    // The file keeps its leftover chip as an NRT-only cluster.
    let kept = analyze_json(&file, "clustering");
    assert_eq!(nrt_only(&kept), [false, false, true]);
    let args = ["rtflash", "analyze", &file, "--leftover-chips", "spread"];
    let (code, out, err) = ssdlab(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    let spread: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(spread["schedulable"], true);
    assert_eq!(nrt_only(&spread), [false, false]);
    let (_, text, _) = ssdlab(&args);
    assert!(text.contains("leftover chips: spread"), "{text}");
    let r = run_json(&[&file, "--leftover-chips", "spread", "--duration", "2"]);
    for t in r["tasks"].as_array().unwrap() {
        assert_eq!(
            (&t["read_misses"], &t["write_misses"]),
            (&0.into(), &0.into()),
            "{t}"
        );
    }
    let (code, _, err) = ssdlab(&["rtflash", "analyze", &file, "--leftover-chips", "keep"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--leftover-chips"), "{err}");
}

fn reproduce(out: &std::path::Path) -> (String, String) {
    let (code, stdout, err) = ssdlab(&[
        "reproduce",
        "rt-flash",
        "--sets",
        "8",
        "--seconds",
        "2",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    (
        stdout,
        std::fs::read_to_string(out.join("results.csv")).unwrap(),
    )
}

#[test]
fn reproduce_rt_flash_writes_the_report_and_resumes_from_its_cache() {
    let base = std::env::temp_dir().join(format!("ssdlab-rtflash-study-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (first, csv) = reproduce(&base.join("a"));
    for f in [
        "report.md",
        "report.html",
        "fig-wcl-breakdown.svg",
        "fig-sched-base-16.svg",
    ] {
        assert!(base.join("a").join(f).is_file(), "{f}");
    }
    let md = std::fs::read_to_string(base.join("a/report.md")).unwrap();
    for part in [
        "## 1.1 Case study",
        "## 1.2 Case study",
        "## 1.3 Case study: big and small writers, on the SSD model",
        "## 1.4 Case study: urgent and bulk writers, on the SSD model",
        "## 2. Motivation",
        "## 3. Schedulability",
        "## 4. NRT bandwidth",
        "## 5. The analysis against the SSD model",
    ] {
        assert!(md.contains(part), "{part}");
    }
    // The proposed approach misses nothing in either case study, on the
    // chip model and on the SSD model.
    let lines: Vec<&str> = md
        .lines()
        .filter(|l| l.starts_with("| Clustering-BFD+TBS | schedulable"))
        .collect();
    assert_eq!(lines.len(), 4, "{md}");
    for line in lines {
        assert_eq!(line.matches("| 0 / ").count(), 2, "{line}");
        assert_eq!(line.matches("(0.0 %)").count(), 2, "{line}");
    }
    // Shared on an ordinary SSD, the urgent tasks of the second one miss
    // reads and writes behind the GC rounds of the bulk writers' data.
    let interference = &md[md.find("## 1.2").unwrap()..];
    let line = interference
        .lines()
        .find(|l| l.starts_with("| Global+BG, ordinary SSD |"))
        .unwrap();
    assert_eq!(line.matches("| 0 / ").count(), 0, "{line}");
    assert!(first.contains("points computed"), "{first}");
    // A second run takes every point from the cache and writes the same rows.
    let (again, csv_again) = reproduce(&base.join("a"));
    assert!(again.contains("(0 points computed"), "{again}");
    assert!(first.contains("(185 points computed"), "{first}");
    assert_eq!(csv, csv_again);
    // That a fresh computation gives the same bytes is checked where it
    // comes for free: python/tests/test_studies_dask.py computes the study
    // on local threads and on Dask and compares results.csv byte for byte.
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_fifo_device_makes_an_urgent_reader_wait_behind_a_bulk_writer() {
    // One urgent reader released just after a bulk writer's 64 programs:
    // EDF serves the read next on every chip, FIFO after the programs
    // queued before it.
    let file = temp_file(
        "fifo.toml",
        r#"[platform]
preset = "seed004"

[[rt_task]]
name = "bulk"
period = "100ms"
deadline = "100ms"
read_pages = 0
write_pages = 64
footprint = 10_000

[[rt_task]]
name = "urgent"
period = "100ms"
deadline = "2ms"
offset = "100us"
read_pages = 4
write_pages = 0
footprint = 1_000
"#,
    );
    let file = file.display().to_string();
    let urgent = |order: &str| {
        let r = run_json(&[
            &file,
            "--approach",
            "global",
            "--chip-order",
            order,
            "--duration",
            "1",
        ]);
        assert_eq!(r["chip_order"], order);
        r["tasks"][1].clone()
    };
    let edf = urgent("edf");
    let fifo = urgent("fifo");
    assert_eq!(edf["read_misses"], 0, "{edf}");
    assert_eq!(fifo["read_misses"], fifo["jobs"], "{fifo}");
    assert!(fifo["max_response_ns"].as_u64() > edf["max_response_ns"].as_u64());
}

/// An urgent writer released just after a bulk writer's 256 pages, on the
/// SSD model of seed004: with `edf` dies its pages go before the bulk
/// pages still queued; with the preset's own die order (programs in
/// arrival order) they wait behind them and every job misses.
#[test]
fn on_the_ssd_model_edf_dies_put_an_urgent_write_before_queued_bulk_pages() {
    let file = temp_file(
        "urgent-write.toml",
        r#"[platform]
preset = "seed004"

[[rt_task]]
name = "bulk"
period = "100ms"
deadline = "100ms"
read_pages = 0
write_pages = 256
footprint = 10_000

[[rt_task]]
name = "urgent"
period = "100ms"
deadline = "2ms"
offset = "100us"
read_pages = 0
write_pages = 4
footprint = 1_000
"#,
    );
    let file = file.display().to_string();
    let urgent = |order: &str| {
        let r = run_json(&[
            &file,
            "--approach",
            "global",
            "--model",
            "ssd",
            "--chip-order",
            order,
            "--duration",
            "1",
        ]);
        assert_eq!(r["model"], "ssd");
        r["tasks"][1].clone()
    };
    let edf = urgent("edf");
    let ordinary = urgent("fifo");
    assert_eq!(edf["jobs"], 10, "{edf}");
    assert_eq!(edf["write_misses"], 0, "{edf}");
    assert_eq!(ordinary["write_misses"], ordinary["jobs"], "{ordinary}");
    assert!(
        edf["max_response_ns"].as_u64().unwrap() < 1_000_000,
        "{edf}"
    );
}

#[test]
fn the_case_study_runs_on_the_ssd_model_without_a_miss_under_clustering_and_repeats() {
    let file = case_study();
    let args = [file.as_str(), "--model", "ssd", "--duration", "3"];
    let r = run_json(&args);
    assert_eq!(r["schedulable"], true);
    for t in r["tasks"].as_array().unwrap() {
        assert_eq!(t["read_misses"], 0, "{t}");
        assert_eq!(t["write_misses"], 0, "{t}");
        assert!(t["jobs"].as_u64().unwrap() >= 25, "{t}");
    }
    assert!(r["nrt"]["mb_per_s"].as_f64().unwrap() > 0.0);
    assert!(r["gc_copied_pages"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r, run_json(&args));
}

#[test]
fn the_ssd_model_needs_a_platform_given_by_a_preset() {
    let file = temp_file(
        "no-preset.toml",
        r#"[platform]
chips = 4

[[rt_task]]
name = "a"
period = "100ms"
read_pages = 1
write_pages = 1
footprint = 100
"#,
    );
    let file = file.display().to_string();
    let (code, _, err) = ssdlab(&["rtflash", "run", &file, "--model", "ssd"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("preset"), "{err}");
}
