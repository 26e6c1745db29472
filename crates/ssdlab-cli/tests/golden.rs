//! Golden runs: a small grid of `run`, `replay`, `bench`, `validate` and
//! `reproduce` commands whose simulated output must stay byte-identical
//! across refactors and speed work (tests/golden/commands.txt). Wall-clock
//! figures (bench's `wall` object) are the only part left out.
//!
//! Regenerate after an intended change of results with
//! `GOLDEN_BLESS=1 cargo test --release -p ssdlab-cli --test golden`;
//! `SSDLAB_BIN=/path/to/ssdlab` blesses (or checks) another build.

use std::path::{Path, PathBuf};
use std::process::Command;

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn binary() -> PathBuf {
    std::env::var_os("SSDLAB_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ssdlab")))
}

struct Case {
    name: String,
    args: Vec<String>,
    /// A file under {out} to compare instead of stdout.
    file: Option<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(golden_dir().join("commands.txt")).unwrap();
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (cmd, file) = match l.split_once("=>") {
                Some((c, f)) => (c, Some(f.trim().to_string())),
                None => (l, None),
            };
            let mut words = cmd.split_whitespace().map(str::to_string);
            let name = words.next().unwrap();
            Case {
                name,
                args: words.collect(),
                file,
            }
        })
        .collect()
}

/// Output with wall-clock figures (bench's `wall`, fio's `timestamp`,
/// `timestamp_ms` and `time`) removed.
fn simulated_part(out: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(out) {
        Ok(serde_json::Value::Object(mut m)) => {
            for key in ["wall", "timestamp", "timestamp_ms", "time"] {
                m.remove(key);
            }
            serde_json::to_string_pretty(&m).unwrap() + "\n"
        }
        _ => out.to_string(),
    }
}

fn run_case(case: &Case, scratch: &Path) -> String {
    let out_dir = scratch.join(&case.name);
    // Paths relative to the repository root (the working directory), so that
    // a report that echoes a file name is the same in every checkout.
    let dir = "crates/ssdlab-cli/tests/golden";
    let data = "crates/ssdlab-trace/tests/data";
    let args: Vec<String> = case
        .args
        .iter()
        .map(|a| {
            a.replace("{dir}", dir)
                .replace("{data}", data)
                .replace("{out}", out_dir.to_str().unwrap())
        })
        .collect();
    let out = Command::new(binary())
        .args(&args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: ssdlab {} failed: {}",
        case.name,
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    match &case.file {
        Some(f) => std::fs::read_to_string(out_dir.join(f)).unwrap(),
        None => simulated_part(&String::from_utf8(out.stdout).unwrap()),
    }
}

#[test]
fn simulated_results_are_unchanged() {
    let scratch = std::env::temp_dir().join(format!("ssdlab-golden-{}", std::process::id()));
    let bless = std::env::var_os("GOLDEN_BLESS").is_some();
    let mut changed = Vec::new();
    for case in cases() {
        let got = run_case(&case, &scratch);
        let path = golden_dir().join(format!("{}.out", case.name));
        if bless {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .map_or(got.lines().count().min(want.lines().count()), |i| i);
            changed.push(format!(
                "{} (first difference at line {})",
                case.name,
                line + 1
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        changed.is_empty(),
        "results changed: {}",
        changed.join(", ")
    );
}
