//! Each study's points and their keys: a run killed half-way resumes with
//! only the missing points and gives the same rows, and a point run from
//! its configuration alone (as a Dask worker runs it,
//! `study_points::run_config_text`) gives the result its cache holds.

use ssdlab_studies::gc_study::{self, GcStudyOptions, LoadPlan};
use ssdlab_studies::rtflash::{self, Plan as RtPlan};
use ssdlab_studies::stb_study::{self, Plan as StbPlan, StbStudyOptions};
use ssdlab_studies::study_points::run_config_text;
use std::fmt::Debug;
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-points-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn cache_entries(out: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(out.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

/// Runs the study, drops every other cached point, runs it again (only
/// those are computed, the rows are the same), then checks the first
/// cached point against its configuration run alone.
fn check_study<T: PartialEq + Debug>(out: &Path, run: impl Fn() -> (Vec<T>, usize)) {
    let (rows, computed) = run();
    let entries = cache_entries(out);
    assert_eq!(
        computed,
        entries.len(),
        "a fresh cache computes every point"
    );
    let dropped: Vec<&PathBuf> = entries.iter().step_by(2).collect();
    for p in &dropped {
        std::fs::remove_file(p).unwrap();
    }
    let (again, recomputed) = run();
    assert_eq!(recomputed, dropped.len());
    assert_eq!(again, rows);
    let entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&entries[1]).unwrap()).unwrap();
    let alone = run_config_text(&entry["config"].to_string()).expect("the point runs alone");
    let alone: serde_json::Value = serde_json::from_str(&alone).unwrap();
    assert_eq!(alone, entry["result"], "{}", entries[1].display());
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn stb_points_resume_and_run_from_their_configuration() {
    let out = scratch("stb");
    let opts = StbStudyOptions {
        out: out.clone(),
        threads: 2,
        seed: 1,
        plan: StbPlan::Quick,
        remote: None,
    };
    check_study(&out, || stb_study::run(&opts, &|_, _| {}).unwrap());
}

#[test]
fn gc_points_resume_and_run_from_their_configuration() {
    let out = scratch("gc");
    let opts = GcStudyOptions {
        out: out.clone(),
        threads: 2,
        seed: 2,
        requests: 2_000,
        offered_mbs: gc_study::TRACE_MBS,
        write_volume: 0.05,
        footprint: 0.65,
        remote: None,
    };
    let profiles = &ssdlab_trace::PROFILES[..2];
    check_study(&out, || {
        let (sweep, computed) =
            gc_study::run(&opts, profiles, &LoadPlan::fixed(40.0), &|_, _| {}).unwrap();
        (sweep.rows, computed)
    });
}

#[test]
fn rtflash_points_resume_and_run_from_their_configuration() {
    let out = scratch("rtflash");
    let opts = rtflash::StudyOptions {
        out: out.clone(),
        threads: 2,
        seed: 1,
        plan: RtPlan {
            case_seconds: 1,
            sets_per_point: 4,
            bandwidth_sets: 1,
            bandwidth_seconds: 1,
            check_sets: 1,
            check_seconds: 1,
            ..RtPlan::QUICK
        },
        remote: None,
    };
    check_study(&out, || rtflash::run(&opts, &|_, _| {}).unwrap());
}

#[test]
fn a_point_of_an_unknown_study_or_another_version_is_refused() {
    let e = run_config_text(r#"{"study": "k3"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown study 'k3'"), "{e}");
    let e = run_config_text(r#"{"study": "stb", "ssdlab": "0.0.0"}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("made by ssdlab \"0.0.0\""), "{e}");
    let e = run_config_text("[1, 2").unwrap_err().to_string();
    assert!(e.contains("point configuration"), "{e}");
}
