//! Replays every committed fuzz input through the fuzz targets' bodies on
//! the stable toolchain: the corpora (`fuzz/corpus/<target>/`) and the
//! crash reproducers (`fuzz/regressions/<target>/`). A panic on any of them
//! fails the test, except for the reproducers of crashes still open, listed
//! in `fuzz/regressions/known-open.txt`: those must still panic, so that the
//! list is emptied as the fixes land. See docs/fuzzing.md.

#[path = "../../../fuzz/src/lib.rs"]
mod harness;

use std::collections::BTreeSet;
use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

type Target = fn(&[u8]);

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// `target/file` entries of `known-open.txt` (`#` starts a comment).
fn known_open() -> BTreeSet<String> {
    let path = fuzz_dir().join("regressions/known-open.txt");
    let Ok(text) = fs::read_to_string(&path) else {
        return BTreeSet::new();
    };
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// The files of `dir`, sorted; none if it does not exist.
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// The panic message of `f(data)`, if it panics.
fn panic_of(f: Target, data: &[u8]) -> Option<String> {
    catch_unwind(AssertUnwindSafe(|| f(data))).err().map(|p| {
        match (p.downcast_ref::<&str>(), p.downcast_ref::<String>()) {
            (Some(s), _) => s.to_string(),
            (_, Some(s)) => s.clone(),
            _ => "non-string panic".to_string(),
        }
    })
}

fn replay(target: &str, f: Target) {
    let corpus = files(&fuzz_dir().join("corpus").join(target));
    assert!(
        !corpus.is_empty(),
        "no corpus for {target} under {}",
        fuzz_dir().display()
    );
    let open = known_open();
    let regressions = files(&fuzz_dir().join("regressions").join(target));
    let mut failures = Vec::new();
    for path in corpus.iter().chain(&regressions) {
        let name = path.file_name().unwrap().to_string_lossy();
        if open.contains(&format!("{target}/{name}")) {
            continue;
        }
        let data = fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        if let Some(msg) = panic_of(f, &data) {
            failures.push(format!("{}: {msg}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{target} panicked on {} of {} committed inputs:\n  {}",
        failures.len(),
        corpus.len() + regressions.len(),
        failures.join("\n  ")
    );
}

#[test]
fn fio_job_corpus() {
    replay("fio_job", harness::fio_job);
}

#[test]
fn trace_corpus() {
    replay("trace", harness::trace);
}

#[test]
fn preset_corpus() {
    replay("preset", harness::preset);
}

#[test]
fn sched_spec_corpus() {
    replay("sched_spec", harness::sched_spec);
}

#[test]
fn taskset_corpus() {
    replay("taskset", harness::taskset);
}

#[test]
fn postmark_corpus() {
    replay("postmark", harness::postmark);
}

#[test]
fn calibrate_corpus() {
    replay("calibrate", harness::calibrate);
}

/// The open crashes still crash: once one is fixed, its entry leaves
/// `known-open.txt` and the reproducer guards against the bug's return.
/// Checked only with debug assertions (the fuzz builds' setting): without
/// overflow checks an overflow wraps instead of panicking.
#[test]
fn known_open_crashes_still_panic() {
    if !cfg!(debug_assertions) {
        eprintln!("known-open crashes not checked: built without debug assertions");
        return;
    }
    let targets: [(&str, Target); 4] = [
        ("fio_job", harness::fio_job),
        ("trace", harness::trace),
        ("preset", harness::preset),
        ("sched_spec", harness::sched_spec),
    ];
    for entry in known_open() {
        let (target, file) = entry
            .split_once('/')
            .unwrap_or_else(|| panic!("known-open.txt: '{entry}' is not target/file"));
        let f = targets
            .iter()
            .find(|(t, _)| *t == target)
            .unwrap_or_else(|| panic!("known-open.txt: unknown target in '{entry}'"))
            .1;
        let path = fuzz_dir().join("regressions").join(target).join(file);
        let data = fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        assert!(
            panic_of(f, &data).is_some(),
            "{entry} no longer panics: remove it from fuzz/regressions/known-open.txt"
        );
    }
}
