//! Workspace conventions checked as tests: crates depend only downwards,
//! the device models do not import the host side, embedded files stay inside
//! their crate, docs/architecture.md names every crate and folder, no source
//! file under `crates/*/src` exceeds 600 lines, and `unsafe` is allowed in
//! two places only.

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

/// The workspace denies `unsafe` code; the two allowed uses are the
/// forward map's prefetch hint (page_map.rs), which never dereferences, and
/// the io_uring ring of the real drive (ring.rs), where the kernel writes
/// into buffers the ring owns (its module comment says why that is sound).
#[test]
fn unsafe_code_is_allowed_only_for_the_prefetch_and_the_ring() {
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
    found.sort();
    assert_eq!(found.len(), 2, "allow(unsafe_code) at: {found:?}");
    assert!(
        found[0].starts_with("ssdlab-drive/src/ring.rs")
            && found[1].starts_with("ssdlab-ssd/src/ftl/page_map.rs"),
        "allow(unsafe_code) outside the page map and the ring: {found:?}"
    );
}

/// What the two front ends (the CLI and the Python module) may use: every
/// crate but each other.
const FRONT_END_DEPS: &[&str] = &[
    "ssdlab-protocol",
    "ssdlab-sched",
    "ssdlab-fio",
    "ssdlab-trace",
    "ssdlab-metrics",
    "ssdlab-ssd",
    "ssdlab-sim",
    "ssdlab-rtflash",
    "ssdlab-studies",
    "ssdlab-drive",
];

/// Each crate's allowed workspace dependencies (docs/architecture.md,
/// "Crates, and why each boundary is where it is").
const LAYERS: &[(&str, &[&str])] = &[
    ("ssdlab-protocol", &[]),
    ("ssdlab-fio", &[]),
    ("ssdlab-trace", &[]),
    ("ssdlab-drive", &["ssdlab-protocol"]),
    ("ssdlab-ssd", &["ssdlab-protocol"]),
    ("ssdlab-metrics", &["ssdlab-protocol"]),
    ("ssdlab-sched", &["ssdlab-protocol", "ssdlab-fio"]),
    (
        "ssdlab-sim",
        &[
            "ssdlab-protocol",
            "ssdlab-ssd",
            "ssdlab-sched",
            "ssdlab-fio",
            "ssdlab-trace",
            "ssdlab-metrics",
        ],
    ),
    (
        "ssdlab-rtflash",
        &["ssdlab-protocol", "ssdlab-fio", "ssdlab-ssd", "ssdlab-sim"],
    ),
    (
        "ssdlab-studies",
        &[
            "ssdlab-protocol",
            "ssdlab-sched",
            "ssdlab-fio",
            "ssdlab-trace",
            "ssdlab-metrics",
            "ssdlab-ssd",
            "ssdlab-sim",
            "ssdlab-rtflash",
        ],
    ),
    ("ssdlab-cli", FRONT_END_DEPS),
    ("ssdlab-py", FRONT_END_DEPS),
];

/// The workspace crates a Cargo.toml names in its `[dependencies]` and
/// `[dev-dependencies]` tables.
fn workspace_deps(manifest: &str) -> Vec<String> {
    let mut deps = Vec::new();
    let mut in_deps = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line.ends_with("dependencies]");
            continue;
        }
        if in_deps && line.starts_with("ssdlab-") {
            let name = line.split([' ', '=']).next().unwrap_or("");
            deps.push(name.to_string());
        }
    }
    deps
}

#[test]
fn crates_depend_only_downwards() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut seen = Vec::new();
    for entry in fs::read_dir(&crates).expect("reading crates/") {
        let dir = entry.expect("directory entry").path();
        let manifest = dir.join("Cargo.toml");
        if !manifest.is_file() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let allowed = LAYERS
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| {
                panic!("crate {name} has no row in LAYERS (and in docs/architecture.md)")
            })
            .1;
        let text = fs::read_to_string(&manifest).expect("reading Cargo.toml");
        for dep in workspace_deps(&text) {
            assert!(
                allowed.contains(&dep.as_str()),
                "{name} depends on {dep}, which its layer does not allow (allowed: {allowed:?})"
            );
        }
        seen.push(name);
    }
    assert_eq!(seen.len(), LAYERS.len(), "crates found: {seen:?}");
    // The test itself can fail: a manifest naming an upper crate is caught.
    assert_eq!(
        workspace_deps(
            "[dependencies]\nssdlab-sim = { path = \"x\" }\n[features]\nssdlab-x = []\n"
        ),
        vec!["ssdlab-sim".to_string()]
    );
}

/// The lines of `text` before its first `#[cfg(test)]` (a module's tests
/// may build a whole simulation).
fn non_test_part(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

/// Files under `dir` (non-test parts) that mention any of `forbidden`.
fn files_naming(dir: &Path, forbidden: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    assert!(!files.is_empty(), "no files under {}", dir.display());
    files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n != "tests.rs"))
        .filter_map(|f| {
            let text = fs::read_to_string(f).expect("reading a source file");
            let body = non_test_part(&text);
            let hit: Vec<&&str> = forbidden.iter().filter(|p| body.contains(**p)).collect();
            (!hit.is_empty()).then(|| format!("{}: {hit:?}", f.display()))
        })
        .collect()
}

#[test]
fn device_models_keep_their_rules() {
    // The device crate cannot import the host, the kernel or a workload: its
    // Cargo.toml names the protocol alone (`crates_depend_only_downwards`).
    // Inside it, the FTL has no clock, and the policies sit below the
    // configuration that names them.
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ssdlab-ssd/src");
    let clock = files_naming(&src.join("ftl"), &["engine", "Timers"]);
    assert!(clock.is_empty(), "the FTL has no clock: {clock:?}");
    // The policies get their numbers from `build`, never the configuration
    // itself.
    let config = ["crate::config", "super::config", "SsdConfig"];
    for policies in ["gc", "alloc", "die_sched", "layout.rs", "registry.rs"] {
        let path = src.join(policies);
        let found = if path.is_dir() {
            files_naming(&path, &config)
        } else {
            let text = fs::read_to_string(&path).expect("reading a source file");
            let hit = config.iter().any(|c| non_test_part(&text).contains(c));
            if hit {
                vec![policies.to_string()]
            } else {
                vec![]
            }
        };
        assert!(
            found.is_empty(),
            "policies reading the configuration back: {found:?}"
        );
    }
    // The checks can fail: the device itself keeps a clock and reads its
    // configuration.
    assert!(!files_naming(&src.join("device"), &["Timers"]).is_empty());
    assert!(!files_naming(&src.join("device"), &config).is_empty());
    let engine = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ssdlab-protocol/src/engine");
    let engine = files_naming(&engine, &["crate::"]);
    assert!(
        engine.is_empty(),
        "the engine's calendar imports the protocol's other parts: {engine:?}"
    );
}

#[test]
fn embedded_files_stay_inside_their_crate() {
    let (crates, files) = source_files();
    let mut outside = Vec::new();
    let mut embedded = 0;
    for file in &files {
        let text = fs::read_to_string(file).expect("reading a source file");
        let rel = file.strip_prefix(&crates).unwrap_or(file);
        let krate = crates.join(rel.components().next().expect("a crate folder"));
        for part in text.split("include_").skip(1) {
            let Some(rest) = part
                .strip_prefix("str!(\"")
                .or_else(|| part.strip_prefix("bytes!(\""))
            else {
                continue;
            };
            let path = &rest[..rest.find('"').unwrap_or(0)];
            embedded += 1;
            let target = file.parent().unwrap().join(path);
            let resolved = target
                .canonicalize()
                .unwrap_or_else(|e| panic!("{}: {path}: {e}", rel.display()));
            // A path through a link out of the crate does not package.
            let lexical = normalise(&target);
            if !resolved.starts_with(krate.canonicalize().unwrap())
                || !lexical.starts_with(normalise(&krate))
            {
                outside.push(format!("{}: {path}", rel.display()));
            }
        }
    }
    assert!(embedded >= 10, "found only {embedded} embedded files");
    assert!(
        outside.is_empty(),
        "embedded files outside their crate: {outside:?}"
    );
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn the_architecture_names_every_crate_and_folder() {
    let (crates, files) = source_files();
    let doc = fs::read_to_string(crates.join("../docs/architecture.md"))
        .expect("reading docs/architecture.md");
    let mut folders: Vec<String> = files
        .iter()
        .filter_map(|f| f.parent())
        .map(|d| format!("{}/", d.strip_prefix(&crates).unwrap_or(d).display()))
        .collect();
    folders.sort();
    folders.dedup();
    // A folder is named with its crate (`ssdlab-ssd/src/ftl/`) or, in a
    // list of siblings, by its path inside the crate's src (`src/gc/`,
    // `src/stats/`) or its last two folders (`hybrid/device/`).
    let unnamed: Vec<&String> = folders
        .iter()
        .filter(|f| {
            let inner = f.split_once("/src/").map_or("", |(_, rest)| rest);
            let parts: Vec<&str> = f.trim_end_matches('/').rsplit('/').take(2).collect();
            let last_two = format!("{}/{}/", parts[parts.len() - 1], parts[0]);
            let names = [f.to_string(), format!("src/{inner}"), last_two];
            let inner_named = !inner.is_empty() && doc.contains(&format!("`{inner}`"));
            !inner_named && !names.iter().any(|n| doc.contains(&format!("`{n}`")))
        })
        .collect();
    assert!(
        unnamed.is_empty(),
        "folders docs/architecture.md does not name: {unnamed:?}"
    );
    let lines = doc.lines().count();
    assert!(
        lines <= 320,
        "docs/architecture.md has {lines} lines; keep the map by folder"
    );
}

/// The simulated SSD is built from parts: its struct holds at most 12
/// fields, each a part or a plain setting.
#[test]
fn the_device_struct_is_a_handful_of_parts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ssdlab-ssd/src/device/mod.rs");
    let text = fs::read_to_string(&path).expect("reading ssdlab-ssd/src/device/mod.rs");
    let start = text
        .find("pub struct SimSsd {")
        .expect("SimSsd is defined there");
    let body = &text[start..start + text[start..].find("\n}\n").expect("its end")];
    let fields = body
        .lines()
        .skip(1)
        .filter(|l| {
            let l = l.trim_start();
            !l.starts_with("//") && !l.starts_with("#[") && l.contains(": ")
        })
        .count();
    assert!(
        fields >= 5,
        "found only {fields} fields: is the parse right?"
    );
    assert!(
        fields <= 12,
        "SimSsd has {fields} fields; group them into parts"
    );
}
