//! Malformed presets are errors naming file, line and key, never panics.

use proptest::prelude::*;
use ssdlab_sim::error::InputError;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::preset::PRESETS;

fn base() -> &'static str {
    PRESETS.iter().find(|p| p.name == "seed004").unwrap().source
}

fn err_of(text: &str) -> (usize, String, String) {
    match Preset::device_from_toml(text, "dev.toml") {
        Err(InputError::At {
            file,
            line,
            field,
            message,
        }) => {
            assert_eq!(file, "dev.toml");
            (line, field, message)
        }
        other => panic!("expected a located error, got {other:?}"),
    }
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

#[test]
fn unknown_key() {
    let text = base().replace("read_ns = 25_000", "read_ns = 25_000\nreed_ns = 3");
    let (line, field, _) = err_of(&text);
    assert_eq!(line, line_of(&text, "reed_ns"));
    assert_eq!(field, "timing.reed_ns");
}

#[test]
fn zero_blocks() {
    let text = base().replace("blocks_per_plane = 512", "blocks_per_plane = 0");
    let (line, field, msg) = err_of(&text);
    assert_eq!(
        (line, field.as_str()),
        (
            line_of(&text, "blocks_per_plane"),
            "geometry.blocks_per_plane"
        )
    );
    assert!(msg.contains("greater than zero"));
}

#[test]
fn channel_rate_that_overflows_is_an_error_not_a_panic() {
    // Found by `numeric_values_never_panic`: the product of the two keys
    // overflowed, and the device divided by the zero it wrapped to.
    let mts = format!("channel_mts = {}", u64::MAX / 4);
    let text = base().replacen("channel_mts = ", &format!("{mts}\n#"), 1);
    let (line, field, msg) = err_of(&text);
    assert_eq!(
        (line, field.as_str()),
        (line_of(&text, &mts), "timing.channel_mts")
    );
    assert!(msg.contains("bytes per µs"), "{msg}");
}

#[test]
fn page_larger_than_block() {
    let text = base().replace("pages_per_block = 128", "block_size = 2048");
    let (line, field, msg) = err_of(&text);
    assert_eq!(
        (line, field.as_str()),
        (line_of(&text, "block_size"), "geometry.block_size")
    );
    assert!(msg.contains("smaller than a page"), "{msg}");
}

#[test]
fn over_provisioning_not_positive() {
    for op in ["0.0", "-0.1"] {
        let text = base().replace(
            "over_provisioning = 0.07",
            &format!("over_provisioning = {op}"),
        );
        let (line, field, _) = err_of(&text);
        assert_eq!(
            (line, field.as_str()),
            (line_of(&text, "over_provisioning"), "ftl.over_provisioning")
        );
    }
}

#[test]
fn mixed_programs_need_pacing() {
    let text = base().replace("[gc]\n", "[gc]\nmixed_programs = true\n");
    let (line, field, message) = err_of(&text);
    assert_eq!(
        (line, field.as_str()),
        (line_of(&text, "mixed_programs"), "gc.mixed_programs")
    );
    assert!(message.contains("gc.pacing"), "{message}");
    let paced = text.replace("[gc]\n", "[gc]\npacing = true\n");
    Preset::device_from_toml(&paced, "dev.toml").unwrap();
}

#[test]
fn wrong_type_and_unknown_policy() {
    let text = base().replace("read_ns = 25_000", "read_ns = \"fast\"");
    assert_eq!(err_of(&text).0, line_of(&text, "read_ns"));
    let text = base().replace("policy = \"greedy\"", "policy = \"best\"");
    let (line, field, msg) = err_of(&text);
    assert_eq!(
        (line, field.as_str()),
        (line_of(&text, "policy"), "gc.policy")
    );
    assert!(msg.contains("greedy"), "lists the known policies: {msg}");
}

#[test]
fn every_builtin_preset_is_valid() {
    for p in PRESETS {
        Preset::load_device(p.name).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        let _ = Preset::device_from_toml(&text, "fuzz.toml");
    }

    #[test]
    fn mutated_presets_never_panic(idx in 0usize..4000, byte in any::<u8>(), which in 0usize..3) {
        let mut bytes = PRESETS[which].source.as_bytes().to_vec();
        let i = idx % bytes.len();
        bytes[i] = byte;
        if let Ok(text) = String::from_utf8(bytes) {
            let _ = Preset::device_from_toml(&text, "fuzz.toml");
        }
    }

}

/// A nonsense number in any key is an error or a preset that builds a
/// device. The run counts the presets that validated, so that a reader
/// refusing everything cannot pass it.
#[test]
fn numeric_values_never_panic() {
    use proptest::test_runner::{Config, TestRunner};
    let keys = [
        "channels",
        "blocks_per_plane",
        "pages_per_block",
        "page_size",
        "read_ns",
        "channel_mts",
        "channel_width_bits",
        "queue_depth",
        "capacity_bytes",
        "planes_per_die",
        "link_mbs",
        "erase_ns",
    ];
    // Half the draws a small number (which often validates), half any i64.
    let value = prop_oneof![0i64..100_000, any::<i64>()];
    let built = std::cell::Cell::new(0u32);
    let cases = 2000;
    let mut runner = TestRunner::new(Config::with_cases(cases));
    runner
        .run(&(value, 0usize..keys.len()), |(value, key)| {
            let k = keys[key];
            let text: String = base()
                .lines()
                .map(|l| {
                    if l.starts_with(&format!("{k} =")) {
                        format!("{k} = {value}")
                    } else {
                        l.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            let Ok(cfg) = Preset::device_from_toml(&text, "fuzz.toml") else {
                return Ok(());
            };
            // A preset that validates must build a device.
            if (cfg.geometry.blocks_per_plane as u64) * (cfg.geometry.channels as u64) < 1 << 16 {
                let _ = ssdlab_sim::ssd::device::SimSsd::new(cfg, 1, false);
                built.set(built.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "numeric values: {} of {cases} presets validated and built",
        built.get()
    );
    assert!(
        built.get() >= 200,
        "only {} of {cases} presets built",
        built.get()
    );
}

/// The calibration fields: each nonsense value names its key and line.
#[test]
fn calibration_fields_are_checked() {
    let cases = [
        ("[timing]", "[timing]\nspread = 1.5", "timing.spread"),
        (
            "[timing]",
            "[timing]\none_shot_pages = 0",
            "timing.one_shot_pages",
        ),
        (
            "[timing]",
            "[timing]\nread_ns_by_page_type = []",
            "timing.read_ns_by_page_type",
        ),
        (
            "[geometry]",
            "[geometry]\nflash_page_size = 6000",
            "geometry.flash_page_size",
        ),
        (
            "[ftl]",
            "[ftl]\nmap_journal = { entries_per_page = 1024, dirty_pages = 0 }",
            "ftl.map_journal",
        ),
        ("[gc]", "[host]\nhw_queues = 0\n\n[gc]", "host.hw_queues"),
        (
            "[buffer]",
            "[buffer]\ngather_ns = 2_000_000_000",
            "buffer.gather_ns",
        ),
        (
            "[controller]",
            "[controller]\nread_page_ns = 99_000_000_000_000",
            "controller.read_page_ns",
        ),
        (
            "[gc]",
            "[host.costs]\nidle_exit_ns = 5_000_000_000\n\n[gc]",
            "host.costs",
        ),
        (
            "[gc]",
            "[controller.read_ahead]\nstreams = 0\ndepth = 8\nchunk = 4\nbuffer_pages = 8\n\n[gc]",
            "controller.read_ahead.streams",
        ),
        (
            "[gc]",
            "[controller.read_ahead]\nstreams = 2\ndepth = 8\nchunk = 9\nbuffer_pages = 8\n\n[gc]",
            "controller.read_ahead.chunk",
        ),
    ];
    for (at, with, key) in cases {
        let text = base().replacen(at, with, 1);
        let (line, field, message) = err_of(&text);
        assert_eq!(field, key, "{message}");
        assert!(line > 1, "{key}: line {line}");
    }
}

#[test]
fn every_problem_of_a_preset_is_reported_at_once() {
    let text = base()
        .replace("read_ns = 25_000", "read_ns = 25_000\nspread = 2.0")
        .replace("over_provisioning = ", "over_provisioning = 0.95 #");
    match Preset::device_from_toml(&text, "dev.toml") {
        Err(InputError::Many(errors)) => {
            let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            assert_eq!(shown.len(), 2, "{shown:?}");
            let spread = line_of(&text, "spread = 2.0");
            let op = line_of(&text, "over_provisioning = 0.95");
            assert!(
                shown[0].starts_with(&format!("dev.toml:{spread}: timing.spread:")),
                "{shown:?}"
            );
            assert!(
                shown[1].starts_with(&format!("dev.toml:{op}: ftl.over_provisioning:")),
                "{shown:?}"
            );
        }
        other => panic!("expected both problems, got {other:?}"),
    }
}

#[test]
fn bad_sections_are_each_reported_with_their_line() {
    let text = format!(
        "colour = \"blue\"\n{}",
        base()
            .replace("read_ns = 25_000", "read_ns = \"fast\"")
            .replace("policy = \"greedy\"", "policy = \"best\"")
    );
    match Preset::device_from_toml(&text, "dev.toml") {
        Err(InputError::Many(errors)) => {
            let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            assert_eq!(shown.len(), 3, "{shown:?}");
            assert!(shown[0].starts_with("dev.toml:1: colour:"), "{shown:?}");
            let read = line_of(&text, "read_ns = \"fast\"");
            assert!(
                shown[1].starts_with(&format!("dev.toml:{read}: timing.read_ns:")),
                "{shown:?}"
            );
            let policy = line_of(&text, "policy = \"best\"");
            assert!(
                shown[2].starts_with(&format!("dev.toml:{policy}: gc.policy:"))
                    && shown[2].contains("unknown GC policy 'best'"),
                "{shown:?}"
            );
        }
        other => panic!("expected three problems, got {other:?}"),
    }
}

/// seed004 (4 chips) with `clusters` after its `[ftl]` allocation line.
fn clustered(clusters: &str) -> String {
    base().replace(
        "allocation = \"static\"",
        &format!("allocation = \"clusters\"\n{clusters}"),
    )
}

#[test]
fn chip_clusters_with_bad_values_name_their_table() {
    // The tables go after the rest of `[ftl]`: at the file's end.
    let with = |tables: &str| format!("{}\n{tables}", clustered(""));
    let cases = [
        (
            "[[ftl.clusters]]\nchips = [0]\nfrom = 0.0\nto = 0.2\n\n[[ftl.clusters]]\nchips = [7]\nfrom = 0.5\nto = 0.6\n",
            "ftl.clusters.2.chips",
            "chip 7 does not exist",
        ),
        (
            "[[ftl.clusters]]\nchips = [0]\nfrom = 0.0\nto = 0.2\n\n[[ftl.clusters]]\nchips = [1, 0]\nfrom = 0.5\nto = 0.6\n",
            "ftl.clusters.2.chips",
            "already in cluster 1",
        ),
        (
            "[[ftl.clusters]]\nchips = [0]\nfrom = 0.3\nto = 0.2\n",
            "ftl.clusters.1.from",
            "0 <= from < to <= 1",
        ),
        (
            "[[ftl.clusters]]\nchips = [0]\nfrom = 0.0\nto = 0.2\n\n[[ftl.clusters]]\nchips = [1]\nfrom = 0.1\nto = 0.3\n",
            "ftl.clusters.2.from",
            "share logical pages",
        ),
        (
            "[[ftl.clusters]]\nchips = [0]\nfrom = 0.0\nto = 0.5\n",
            "ftl.clusters.1.to",
            "does not fit 1 chip",
        ),
        (
            "[[ftl.clusters]]\nchips = [0, 1, 2]\nfrom = 0.0\nto = 0.6\n",
            "ftl.clusters.1",
            "outside every cluster",
        ),
        (
            "[[ftl.clusters]]\nchips = []\nfrom = 0.0\nto = 0.1\n",
            "ftl.clusters.1.chips",
            "at least one chip",
        ),
    ];
    for (tables, field, needle) in cases {
        let text = with(tables);
        let (line, got, msg) = err_of(&text);
        assert_eq!(got, field, "{tables}: {msg}");
        assert!(msg.contains(needle), "{tables}: {msg}");
        // The line is in the table the field names.
        let n: usize = field.split('.').nth(2).unwrap().parse().unwrap();
        let header = text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.trim() == "[[ftl.clusters]]")
            .nth(n - 1)
            .unwrap()
            .0
            + 1;
        assert!(
            line >= header && line <= header + 3,
            "{field}: line {line}, table at {header}"
        );
    }
}

#[test]
fn chip_clusters_and_their_allocation_go_together() {
    let (_, field, msg) = err_of(&clustered(""));
    assert_eq!(field, "ftl.allocation");
    assert!(msg.contains("[[ftl.clusters]]"), "{msg}");
    let text = format!(
        "{}\n[[ftl.clusters]]\nchips = [0]\nfrom = 0.0\nto = 0.1\n",
        base()
    );
    let (_, field, msg) = err_of(&text);
    assert_eq!(field, "ftl.clusters.1");
    assert!(msg.contains("allocation = \"clusters\""), "{msg}");
    // Quarters on chips of their own fit.
    let text = format!(
        "{}\n[[ftl.clusters]]\nchips = [0]\nfrom = 0.0\nto = 0.25\n\n[[ftl.clusters]]\nchips = [3]\nfrom = 0.75\nto = 1.0\n",
        clustered("")
    );
    Preset::device_from_toml(&text, "dev.toml").unwrap();
}

#[test]
fn cluster_errors_point_at_their_line_whatever_the_form() {
    // A header with a comment.
    let text = format!(
        "{}\n[[ftl.clusters]]   # the reader's chips\nchips = [0]\nfrom = 0.0\nto = 0.2\n\n[[ftl.clusters]] # the writer's\nchips = [9]\nfrom = 0.2\nto = 0.4\n",
        clustered("")
    );
    let (line, field, _) = err_of(&text);
    assert_eq!(
        (line, field.as_str()),
        (line_of(&text, "chips = [9]"), "ftl.clusters.2.chips")
    );
    // The inline form: the array's line.
    let text = clustered(
        "clusters = [{ chips = [0], from = 0.0, to = 0.2 }, { chips = [9], from = 0.2, to = 0.4 }]",
    );
    let (line, field, msg) = err_of(&text);
    assert_eq!(field, "ftl.clusters.2.chips", "{msg}");
    assert_eq!(line, line_of(&text, "clusters = [{"));
    // A range too thin to hold a page.
    let text = format!(
        "{}\n[[ftl.clusters]]\nchips = [0]\nfrom = 0.1\nto = 0.1000000001\n",
        clustered("")
    );
    // (Its chip is then missing for the rest of the space: two problems.)
    let all = Preset::device_from_toml(&text, "dev.toml")
        .unwrap_err()
        .to_string();
    assert!(
        all.contains(
            "ftl.clusters.1.to: cluster 1: from 0.1 to 0.1000000001 covers no logical page"
        ),
        "{all}"
    );
}

#[test]
fn pcie_round_trips_are_refused_on_the_sata_era_hybrid_device() {
    let hybrid = PRESETS.iter().find(|p| p.name == "mlc-sata-8g").unwrap();
    assert!(Preset::device_from_toml(hybrid.source, "dev.toml").is_ok());
    let text = hybrid
        .source
        .replacen("[controller]", "[controller]\npcie_read_ns = 500", 1);
    let (_, field, message) = err_of(&text);
    assert_eq!(field, "controller.pcie_read_ns");
    assert!(message.contains("set it to 0"), "{message}");
}
