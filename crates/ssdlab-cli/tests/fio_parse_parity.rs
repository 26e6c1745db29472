//! The same job files through `fio --parse-only` and `ssdlab run
//! --parse-only`: the verdicts must agree. fio refuses → ssdlab refuses
//! with exit 2; fio accepts → ssdlab accepts, or refuses saying the option,
//! engine or feature is not modelled (docs/fio.md lists each). The corpus:
//! the hand-written edge cases of `tests/fio_parse/` (spellings, booleans,
//! bare options, whitespace, case, comments, includes, suffixes, ranges,
//! lists, `[global]` between jobs), the parser's own good and bad corpus,
//! the repository's examples, and fio's examples when
//! `SSDLAB_FIO_EXAMPLES` names a directory of them. On the fuzz corpus, the
//! direction that matters for a job file written against ssdlab is
//! checked: what ssdlab accepts, fio accepts.
//!
//! fio comes from the distribution's package (`.ci/run` installs it);
//! without it the test says so and checks nothing.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The phrases of a refusal for something ssdlab does not model (the
/// allowed answer to a job fio accepts).
const NOT_MODELLED: &[&str] = &[
    "does not model",
    "does no I/O to a block device",
    "run --target",
];

/// The deliberate differences (docs/fio.md, "Deliberate differences"):
/// input fio's `--parse-only` passes but misreads, skips or checks only once
/// a job starts, which ssdlab refuses at once, naming the line.
const DELIBERATE: &[&str] = &[
    // A suffix or unit fio does not know: fio reads the number alone.
    "has an unknown suffix",
    "has an unknown unit",
    // Values fio checks only when the job starts, or never.
    "add up to",
    "is out of range",
    "is not within",
    "percentiles given",
    "job count above",
    // Section headers fio silently reads as something else.
    "has no name",
    "missing its closing ']'",
    // Includes fio skips with a message and exit 0.
    "forms a cycle",
    "not found",
    "may not contain [] sections",
];

/// Exit code of `fio --parse-only FILE`, run in the file's directory.
fn fio_verdict(file: &Path) -> i32 {
    let out = Command::new("fio")
        .arg("--parse-only")
        .arg(file.file_name().unwrap())
        .current_dir(file.parent().unwrap())
        .env_remove("SSDLAB_TEST_VAR")
        .output()
        .unwrap();
    out.status.code().unwrap_or(-1)
}

/// Exit code and first error line of `ssdlab run FILE --parse-only`.
fn ssdlab_verdict(file: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .arg("run")
        .arg(file.file_name().unwrap())
        .arg("--parse-only")
        .current_dir(file.parent().unwrap())
        .env_remove("SSDLAB_TEST_VAR")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let first = err.lines().find(|l| !l.contains("note:")).unwrap_or("");
    (out.status.code().unwrap_or(-1), first.to_string())
}

fn files(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == ext));
    v.sort();
    v
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file's verdicts agree; returns how many were checked.
fn agree(corpus: &[PathBuf]) -> usize {
    let mut wrong = Vec::new();
    for f in corpus {
        let fio = fio_verdict(f);
        let (code, err) = ssdlab_verdict(f);
        let ok = match (fio, code) {
            (0, 0) => true,
            (0, 2) => NOT_MODELLED
                .iter()
                .chain(DELIBERATE)
                .any(|p| err.contains(p)),
            (0, _) => false,
            (_, 2) => true,
            _ => false,
        };
        if !ok {
            wrong.push(format!("{}: fio {fio}, ssdlab {code} {err}", f.display()));
        }
    }
    assert!(wrong.is_empty(), "verdicts differ:\n{}", wrong.join("\n"));
    corpus.len()
}

#[test]
fn edge_cases_examples_and_the_parser_corpus_get_fio_s_verdict() {
    if !support::fio_available("the parse differential") {
        return;
    }
    let mut corpus = files(&repo().join("crates/ssdlab-cli/tests/fio_parse"), "fio");
    for sub in ["good", "bad"] {
        let dir = repo().join("crates/ssdlab-fio/tests/corpus").join(sub);
        corpus.extend(files(&dir, "fio"));
    }
    for sub in ["examples", "examples/k2", "examples/rtflash"] {
        corpus.extend(files(&repo().join(sub), "fio"));
    }
    if let Some(dir) = std::env::var_os("SSDLAB_FIO_EXAMPLES") {
        corpus.extend(files(Path::new(&dir), "fio"));
    }
    let n = agree(&corpus);
    assert!(n >= 60, "only {n} files checked");
}

#[test]
fn what_ssdlab_accepts_of_the_fuzz_corpus_fio_accepts() {
    if !support::fio_available("the parse differential") {
        return;
    }
    let dir = repo().join("fuzz/corpus/fio_job");
    let mut corpus: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    corpus.sort();
    let mut accepted = 0;
    let mut wrong = Vec::new();
    for f in &corpus {
        if ssdlab_verdict(f).0 != 0 {
            continue;
        }
        accepted += 1;
        if fio_verdict(f) != 0 {
            wrong.push(f.display().to_string());
        }
    }
    assert!(accepted >= 20, "only {accepted} fuzz inputs accepted");
    assert!(
        wrong.is_empty(),
        "ssdlab accepts, fio refuses:\n{}",
        wrong.join("\n")
    );
}
