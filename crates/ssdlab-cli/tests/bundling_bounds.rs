//! Under a read stream that never lets the device idle, IRBW-FIFO-RP holds
//! its write bundle until the stream ends, so its write latency grows with
//! the stream; STB's synchronous writes leave at once and its write-back no
//! later than its check-point, however long the stream (Kang, Park, Yoo,
//! ICCE 2011: time-out bundling is what bounds them).

use std::process::Command;

mod support;

/// A 4 KiB random read every 8 µs for `stream_ms` (the device never
/// idles) and a 4 KiB write flagged `rwbs` every 50 ms from 1 ms, in a
/// blkparse trace, in a file of its own for the test `tag` (tests run in
/// parallel).
fn trace(tag: &str, stream_ms: u64, rwbs: &str) -> std::path::PathBuf {
    let reads = stream_ms * 1_000 / 8;
    let mut events: Vec<(u64, &str, u64)> = (0..reads)
        .map(|i| (i * 8_000, "R", (i * 2_654_435_761 % (1 << 20)) * 8))
        .collect();
    let writes = (stream_ms - 1) / 50;
    events.extend((0..writes).map(|k| (1_000_000 + k * 50_000_000, rwbs, (1 << 23) + k * 64)));
    let text = support::blkparse_text(events);
    let dir = std::env::temp_dir().join(format!("ssdlab-bundling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{tag}-{stream_ms}-{rwbs}.blkparse"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The largest write completion latency (ms) of a replay of `trace`.
fn write_max_ms(trace: &std::path::Path, scheduler: &str) -> f64 {
    let out = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["replay", trace.to_str().unwrap(), "--format", "blkparse"])
        .args([
            "--device",
            "seed004",
            "--occupancy",
            "50",
            "--scheduler",
            scheduler,
        ])
        .args(["--output-format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["jobs"][0]["write"]["clat_ns"]["max"].as_f64().unwrap() / 1e6
}

#[test]
fn irbw_rp_write_latency_grows_with_the_read_stream() {
    let short = write_max_ms(&trace("irbw", 400, "WS"), "irbw-rp");
    let long = write_max_ms(&trace("irbw", 800, "WS"), "irbw-rp");
    assert!(
        short > 350.0,
        "the first write waits for the stream: {short} ms"
    );
    assert!(
        long > 1.8 * short,
        "and longer for a longer one: {long} against {short} ms"
    );
}

#[test]
fn stb_bounds_sync_writes_by_t_sync_and_write_back_by_t_async() {
    for stream_ms in [400, 800] {
        let sync = write_max_ms(&trace("stb", stream_ms, "WS"), "stb:t_sync=100ms");
        assert!(
            sync < 100.0,
            "{stream_ms} ms stream: a sync write waited {sync} ms"
        );
        let async_max = write_max_ms(&trace("stb", stream_ms, "W"), "stb:t_async=200ms");
        assert!(
            (150.0..210.0).contains(&async_max),
            "{stream_ms} ms stream: write-back waited {async_max} ms"
        );
    }
}
