//! Workspace conventions checked as tests: no source file under
//! `crates/*/src` may exceed 600 lines, and docs/architecture.md's code map
//! lists every source file and no file that is gone, and `unsafe` is allowed
//! in one place only.

use std::fs;
use std::path::{Path, PathBuf};

/// Most lines a source file under `crates/*/src` may have.
const MAX_LINES: usize = 600;

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// The `crates/` directory and every source file under `crates/*/src`.
fn source_files() -> (PathBuf, Vec<PathBuf>) {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for entry in fs::read_dir(&crates).expect("reading crates/") {
        let src = entry.expect("directory entry").path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    files.sort();
    (crates, files)
}

#[test]
fn the_code_map_lists_every_source_file_and_only_those() {
    let (crates, files) = source_files();
    let doc_path = crates.join("../docs/architecture.md");
    let doc = fs::read_to_string(&doc_path).expect("reading docs/architecture.md");
    let named: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(&crates).unwrap_or(f).display().to_string())
        .collect();
    let unlisted: Vec<&String> = named
        .iter()
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect();
    assert!(
        unlisted.is_empty(),
        "source files missing from the code map in docs/architecture.md:\n  {}",
        unlisted
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n  ")
    );
    // Every `ssdlab-*/src/….rs` the document names must exist.
    let gone: Vec<&str> = doc
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("ssdlab-") && s.contains("/src/") && s.ends_with(".rs"))
        .filter(|s| !crates.join(s).exists())
        .collect();
    assert!(
        gone.is_empty(),
        "docs/architecture.md names files that do not exist: {gone:?}"
    );
}

#[test]
fn source_files_stay_within_600_lines() {
    let (crates, files) = source_files();
    assert!(
        files.len() > 10,
        "found only {} source files under {}",
        files.len(),
        crates.display()
    );
    let too_long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text =
                fs::read_to_string(f).unwrap_or_else(|e| panic!("reading {}: {e}", f.display()));
            let lines = text.lines().count();
            let name = f.strip_prefix(&crates).unwrap_or(f).display().to_string();
            (lines > MAX_LINES).then(|| format!("crates/{name}: {lines} lines"))
        })
        .collect();
    assert!(
        too_long.is_empty(),
        "source files over {MAX_LINES} lines (split them into submodules):\n  {}",
        too_long.join("\n  ")
    );
}

/// The workspace denies `unsafe` code; the one allowed use is the
/// forward map's prefetch hint (page_map.rs), which never dereferences.
#[test]
fn unsafe_code_is_allowed_only_for_the_page_map_prefetch() {
    let (crates, files) = source_files();
    let mut found = Vec::new();
    for file in &files {
        let text = fs::read_to_string(file).expect("reading a source file");
        for (i, line) in text.lines().enumerate() {
            if line.contains("allow(unsafe_code)") {
                let rel = file.strip_prefix(&crates).unwrap_or(file);
                found.push(format!("{}:{}", rel.display(), i + 1));
            }
        }
    }
    assert_eq!(found.len(), 1, "allow(unsafe_code) at: {found:?}");
    assert!(
        found[0].contains("ssd/ftl/page_map.rs"),
        "allow(unsafe_code) outside the page map: {found:?}"
    );
}
