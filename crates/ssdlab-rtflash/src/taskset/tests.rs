use super::*;

const GOOD: &str = r#"
[platform]
chips = 4

[[rt_task]]
name = "a"
period = "20ms"
deadline = "15ms"
read_pages = 4
write_pages = 16
footprint = "64MiB"

[[rt_task]]
name = "b"
period = 50000000
write_pages = 8
footprint = 1000

[nrt]
footprint = "256MiB"
arrival = 2000
request_size = ["4KiB", "128KiB"]

[analysis]
test = "density"
reserved_blocks = 3
"#;

fn errors(text: &str) -> String {
    TaskSet::from_toml(text, "t.toml").unwrap_err().to_string()
}

#[test]
fn a_good_file() {
    let ts = TaskSet::from_toml(GOOD, "t.toml").unwrap();
    assert_eq!(ts.platform.chips, 4);
    assert_eq!(ts.platform.reserved_blocks, 3);
    assert_eq!(ts.analysis.test, TestKind::Density);
    let a = &ts.tasks[0];
    assert_eq!((a.period_ns, a.deadline_ns), (20_000_000, 15_000_000));
    assert_eq!(a.footprint_pages, 16_384);
    let b = &ts.tasks[1];
    assert_eq!(b.deadline_ns, b.period_ns);
    assert_eq!((b.read_pages, b.write_pages), (0, 8));
    let nrt = ts.nrt.unwrap();
    assert_eq!(nrt.footprint_pages, 65_536);
    assert_eq!(nrt.arrival, NrtArrival::Poisson { per_second: 2000.0 });
    assert_eq!(
        (nrt.min_request_bytes, nrt.max_request_bytes),
        (4096, 131_072)
    );
}

#[test]
fn every_problem_is_reported_with_its_line() {
    let bad = GOOD
        .replace("deadline = \"15ms\"", "deadline = \"25ms\"")
        .replace("period = 50000000", "period = 0")
        .replace("footprint = 1000", "footprint = \"100GiB\"");
    let e = errors(&bad);
    assert!(e.contains("t.toml:8: rt_task[0].deadline: "), "{e}");
    assert!(
        e.contains("t.toml:15: rt_task[1].period: must be positive"),
        "{e}"
    );
    assert!(e.contains("t.toml:17: rt_task[1].footprint: "), "{e}");
    assert!(e.contains("larger than the platform"), "{e}");
}

#[test]
fn unknown_keys_and_bad_values() {
    let e = errors(&GOOD.replace("write_pages = 8", "write_pages = 8\ncolour = 1"));
    assert!(
        e.contains("t.toml:17: rt_task.colour: unknown field"),
        "{e}"
    );
    let e = errors(&format!("{GOOD}\n[extra]\nx = 1\n"));
    assert!(e.contains("extra: unknown key"), "{e}");
    let e = errors(&GOOD.replace("\"20ms\"", "\"20 fortnights\""));
    assert!(e.contains("t.toml:7: rt_task[0].period: "), "{e}");
    let e = errors(&GOOD.replace("test = \"density\"", "test = \"rta\""));
    assert!(e.contains("analysis.test: unknown test 'rta'"), "{e}");
    let e = errors(&GOOD.replace("test = \"density\"", "leftover_chips = \"keep\""));
    assert!(
        e.contains("analysis.leftover_chips: unknown choice 'keep' (known: nrt-cluster, spread)"),
        "{e}"
    );
    let spread = GOOD.replace("test = \"density\"", "leftover_chips = \"spread\"");
    let ts = TaskSet::from_toml(&spread, "t.toml").unwrap();
    assert_eq!(ts.analysis.leftover_chips, LeftoverChips::Spread);
    let e = errors(&GOOD.replace("write_pages = 8", "write_pages = 0"));
    assert!(
        e.contains("rt_task[1].write_pages: a job reads and writes no page"),
        "{e}"
    );
}

#[test]
fn presets_give_chips_and_refuse_more() {
    let text = GOOD.replace("chips = 4", "preset = \"seed004\"\nchips = 2");
    let ts = TaskSet::from_toml(&text, "t.toml").unwrap();
    assert_eq!(ts.platform.chips, 2);
    assert_eq!(ts.platform.preset.as_deref(), Some("seed004"));
    let e = errors(&GOOD.replace("chips = 4", "preset = \"seed004\"\nchips = 9"));
    assert!(
        e.contains("t.toml:4: platform.chips: 9 chips asked for"),
        "{e}"
    );
    let e = errors(&GOOD.replace("chips = 4", "preset = \"seed004\"\nerase_time = \"1ms\""));
    assert!(
        e.contains("platform.erase_time: give either a preset"),
        "{e}"
    );
    let e = errors(&GOOD.replace("chips = 4", "preset = \"no-such\""));
    assert!(e.contains("t.toml:3: platform.preset: "), "{e}");
}

#[test]
fn syntax_errors_and_empty_files() {
    assert!(errors("[[rt_task]\n").contains("t.toml:1: toml:"));
    let ts = TaskSet::from_toml("", "t.toml").unwrap();
    assert!(ts.tasks.is_empty());
    assert_eq!(ts.platform, Platform::default());
}

#[test]
fn a_saturating_load_takes_its_depth_and_a_poisson_one_refuses_it() {
    let saturating = GOOD.replace(
        "arrival = 2000",
        "arrival = \"saturating\"\noutstanding = 1",
    );
    let ts = TaskSet::from_toml(&saturating, "t.toml").unwrap();
    assert_eq!(ts.nrt.unwrap().outstanding, Some(1));
    let e = errors(&GOOD.replace("arrival = 2000", "arrival = 2000\noutstanding = 4"));
    assert!(
        e.contains("t.toml:22: nrt.outstanding: applies to a saturating load"),
        "{e}"
    );
    for bad in ["0", "5000", "-3"] {
        let e = errors(&saturating.replace("outstanding = 1", &format!("outstanding = {bad}")));
        assert!(
            e.contains("nrt.outstanding: ") && e.contains("between 1 and 4096"),
            "{e}"
        );
    }
}

#[test]
fn platforms_and_jobs_out_of_bounds_are_refused() {
    // No reserved block: GC's first round would have nowhere to copy to.
    let e = errors(&GOOD.replace("reserved_blocks = 3", "reserved_blocks = 0"));
    assert!(
        e.contains("analysis.reserved_blocks: must be at least 1"),
        "{e}"
    );
    // Allocation tries cluster sizes chip by chip: a bounded platform.
    let e = errors(&GOOD.replace("chips = 4", "chips = 4000000000"));
    assert!(e.contains("platform.chips: must be 1 to 1024"), "{e}");
    let e = errors(&GOOD.replace(
        "chips = 4",
        "chips = 4\nblocks_per_chip = 100000000000000000\npages_per_block = 1000",
    ));
    assert!(e.contains("platform.blocks_per_chip: "), "{e}");
    assert!(e.contains("above 4294967295 pages"), "{e}");
    let e = errors(&GOOD.replace("chips = 4", "chips = 4\nread_time = 9000000000000000000"));
    assert!(
        e.contains("platform.read_time: 9000000000000000000 ns is above"),
        "{e}"
    );
    // A job's pages live in its footprint: the analysis charges them all.
    let e = errors(&GOOD.replace("footprint = 1000", "footprint = 4"));
    assert!(
        e.contains(
            "t.toml:16: rt_task[1].write_pages: 8 pages per job exceed the footprint's 4 pages"
        ),
        "{e}"
    );
}
