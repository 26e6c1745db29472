//! The command line: exit codes, error messages, determinism.

use std::process::Command;

fn ssdlab(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn temp_preset(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn malformed_preset_exits_2_naming_file_line_and_key() {
    let (_, good, _) = ssdlab(&["presets", "--show", "seed004"]);
    let bad = good.replace("blocks_per_plane = 512", "blocks_per_plane = 0");
    let path = temp_preset("zero.toml", &bad);
    let line = bad
        .lines()
        .position(|l| l.starts_with("blocks_per_plane"))
        .unwrap()
        + 1;
    let (code, stdout, stderr) = ssdlab(&[
        "bench",
        "--device",
        path.to_str().unwrap(),
        "--requests",
        "10",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stdout.is_empty(), "nothing half-written: {stdout}");
    let want = format!("{}:{line}: geometry.blocks_per_plane:", path.display());
    assert!(stderr.contains(&want), "{stderr} lacks {want}");
}

#[test]
fn nonsense_parameters_exit_2() {
    for args in [
        vec!["bench", "--qd", "0", "--device", "seed004"],
        vec!["bench", "--requests", "0", "--device", "seed004"],
        vec!["bench", "--device", "no-such-device"],
        vec!["validate", "waf", "--warmup", "-1"],
        vec!["bench", "--qd", "many"],
    ] {
        let (code, stdout, stderr) = ssdlab(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}");
        assert!(!stderr.is_empty());
    }
}

#[test]
fn bench_json_is_deterministic_apart_from_wall_figures() {
    let args = [
        "bench",
        "--device",
        "seed004",
        "--requests",
        "20000",
        "--json",
    ];
    let strip = |s: &str| {
        let mut v: serde_json::Value = serde_json::from_str(s).unwrap();
        let wall = v
            .as_object_mut()
            .unwrap()
            .remove("wall")
            .expect("wall object");
        for k in [
            "precondition_s",
            "randread_req_per_s",
            "randwrite_gc_req_per_s",
            "peak_rss_mb",
        ] {
            assert!(wall.get(k).is_some(), "wall.{k}");
        }
        v
    };
    let (c1, a, _) = ssdlab(&args);
    let (c2, b, _) = ssdlab(&args);
    assert_eq!((c1, c2), (0, 0));
    let (a, b) = (strip(&a), strip(&b));
    assert_eq!(a, b);
    assert!(a["randread"]["p999_us"].as_f64().unwrap() > 0.0);
    assert!(a["randwrite_gc_ftl"]["gc_invocations"].as_u64().unwrap() > 0);
}

#[test]
fn validate_waf_is_within_ten_percent() {
    let (code, out, err) = ssdlab(&[
        "validate",
        "waf",
        "--json",
        "--warmup",
        "2",
        "--measure",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let points = v.as_array().unwrap();
    assert_eq!(points.len(), 3);
    for p in points {
        let e = p["error_pct"].as_f64().unwrap();
        assert!(e.abs() <= 10.0, "{p}");
    }
}

#[test]
fn presets_lists_all() {
    let (code, out, _) = ssdlab(&["presets"]);
    assert_eq!(code, 0);
    for name in [
        "mqsim-64g",
        "seed004",
        "consumer-tlc-250g",
        "greedy",
        "cost-benefit",
        "random",
        "fifo",
    ] {
        assert!(out.contains(name), "{name}");
    }
}
