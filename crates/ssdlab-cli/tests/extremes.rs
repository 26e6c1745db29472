//! `run` and `replay` driven with random extreme times, sizes, depths and
//! job counts, each in a child process under an address-space cap that
//! grows with the work: every run must end with exit 0 or a clear error
//! (exit 2), never a signal, an abort or a panic. And the wall time of an
//! open-loop replay offered faster than the device serves must grow about
//! as n log n, not n² (checked as a ratio of two sizes run side by side).

use proptest::prelude::*;
use std::path::PathBuf;
use std::process::{Command, Output};

/// The cap: a fixed base (code, seed004's tables, histograms) plus a share
/// per I/O and per job, the stated bound on memory.
fn cap_kb(ios: u64, jobs: u64) -> u64 {
    600_000 + ios / 4 + jobs * 200
}

/// Runs ssdlab with `args` from a shell that first caps its address space;
/// `then` is the shell's command line after the cap, with ssdlab as
/// `"$0" "$@"`.
fn in_capped_shell(cap_kb: u64, then: &str, args: &[String]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {cap_kb}; {then}"))
        .arg(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .output()
        .unwrap()
}

fn ssdlab_capped(cap_kb: u64, args: &[String]) -> (Option<i32>, String) {
    let out = in_capped_shell(cap_kb, "exec \"$0\" \"$@\"", args);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-extremes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn ends_cleanly(code: Option<i32>, err: &str, what: &str) -> Result<(), TestCaseError> {
    prop_assert!(
        matches!(code, Some(0) | Some(2)),
        "{what}: exit {code:?}\n{err}"
    );
    prop_assert!(!err.contains("panicked"), "{what}: {err}");
    prop_assert!(!err.contains("memory allocation"), "{what}: {err}");
    if code == Some(2) {
        prop_assert!(err.contains("ssdlab: error:"), "{what}: {err}");
    }
    Ok(())
}

const TIMES: [&str; 8] = [
    "0",
    "1",
    "999",
    "1s",
    "3650d",
    "36500d",
    "100000d",
    "18446744073709551",
];
const SIZES: [(&str, u64); 7] = [
    ("512", 512),
    ("4k", 4 << 10),
    ("12k", 12 << 10),
    ("1m", 1 << 20),
    ("64m", 64 << 20),
    ("8g", 8 << 30),
    ("1t", 1 << 40),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn run_with_extreme_options(
        think in 0usize..TIMES.len(),
        delay in 0usize..TIMES.len(),
        bs in 0usize..SIZES.len(),
        depth in prop_oneof![Just(1u32), Just(64), Just(65536), 1u32..300],
        jobs in prop_oneof![Just(1u32), Just(512), 1u32..64],
        ios in 1u64..64,
        rw in prop_oneof![Just("randread"), Just("randwrite"), Just("rw"), Just("trim")],
    ) {
        // At most 256 MiB of I/O per case, so a case stays well under a
        // second: extreme in shape, small in work.
        let ios = ios.min(((256u64 << 20) / (SIZES[bs].1 * jobs as u64)).max(1));
        let text = format!(
            "[global]\nioengine=libaio\ndirect=1\nrw={rw}\nbs={}\nthinktime={}\n\
             startdelay={}\niodepth={depth}\nnumber_ios={ios}\n[j]\nnumjobs={jobs}\n",
            SIZES[bs].0, TIMES[think], TIMES[delay]
        );
        let p = scratch("x.fio", &text);
        let args: Vec<String> = ["run", p.to_str().unwrap(), "--device", "seed004",
            "--output-format", "json"].iter().map(|s| s.to_string()).collect();
        let (code, err) = ssdlab_capped(cap_kb(ios * jobs as u64, jobs as u64), &args);
        ends_cleanly(code, &err, &text)?;
    }

    #[test]
    fn replay_with_extreme_records(
        lines in proptest::collection::vec(
            (prop_oneof![0u64..1_000_000, any::<u64>()], any::<u64>(),
             prop_oneof![1u32..64, any::<u32>()], any::<bool>()),
            1..200),
        format in 0usize..3,
        scale in prop_oneof![Just(1.0f64), Just(1e-300), Just(1e300), Just(1e-9)],
    ) {
        let (name, text) = match format {
            0 => ("t.mqsim", lines.iter().map(|(t, o, n, w)| {
                format!("{t} 0 {} {n} {}\n", o / 512, u8::from(!*w))
            }).collect::<String>()),
            1 => ("t.msr.csv", lines.iter().map(|(t, o, n, w)| {
                format!("{},hm,0,{},{o},{n},1\n", 128_166_372_000_000_000u64.saturating_add(*t),
                        if *w { "Write" } else { "Read" })
            }).collect::<String>()),
            _ => ("t.spc", lines.iter().map(|(t, o, n, w)| {
                format!("0,{},{n},{},{}.{}\n", o / 512, if *w { "w" } else { "r" },
                        t / 1_000_000_000, t % 1_000_000_000)
            }).collect::<String>()),
        };
        let p = scratch(name, &text);
        for skip in [false, true] {
            let mut args: Vec<String> = ["replay", p.to_str().unwrap(), "--device", "seed004",
                "--time-scale", &scale.to_string(), "--output-format", "json"]
                .iter().map(|s| s.to_string()).collect();
            if skip {
                args.push("--skip-bad-lines".into());
            }
            let (code, err) = ssdlab_capped(cap_kb(lines.len() as u64 * 64, 1), &args);
            ends_cleanly(code, &err, name)?;
        }
    }
}

/// An MQSim trace of `n` random 4 KiB requests offered every 100 to 2000 ns
/// (far faster than seed004 serves them).
fn fast_trace(n: usize) -> PathBuf {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut t = 0u64;
    let mut text = String::with_capacity(n * 24);
    for _ in 0..n {
        t += 100 + next() % 1900;
        let lba = (next() % 7_000_000) * 8;
        text.push_str(&format!("{t} 0 {lba} 8 {}\n", next() % 2));
    }
    scratch(&format!("fast-{n}.mqsim"), &text)
}

/// Runs ssdlab under the cap and returns the CPU seconds (user + system)
/// it used, as the shell's `times` reports its child's. CPU time, unlike
/// wall time, does not grow when other tests share the cores.
fn cpu_seconds_capped(cap_kb: u64, args: &[String]) -> f64 {
    let out = in_capped_shell(cap_kb, "\"$0\" \"$@\" >/dev/null || exit 3; times", args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // `times`: the shell's user and system time, then its children's, as
    // "XmY.YYYs XmY.YYYs".
    let children = stdout.lines().nth(1).expect("times prints two lines");
    children
        .split_whitespace()
        .map(|t| {
            let (m, s) = t.trim_end_matches('s').split_once('m').unwrap();
            m.parse::<f64>().unwrap() * 60.0 + s.parse::<f64>().unwrap()
        })
        .sum()
}

#[test]
fn open_loop_replay_grows_as_n_log_n() {
    // Once every completion scanned every waiting request: 125 k lines took
    // 23 s, 250 k 55 s. The ratio of two sizes is robust to the machine's
    // speed, and CPU time to its load; 8x the work may take at most 24x the
    // time (n log n gives about 9x, n² 64x).
    let time = |n: usize| {
        let p = fast_trace(n);
        let args: Vec<String> = [
            "replay",
            p.to_str().unwrap(),
            "--format",
            "mqsim",
            "--device",
            "seed004",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        cpu_seconds_capped(cap_kb(n as u64 * 8, 1), &args)
    };
    let (small, large) = (time(20_000), time(160_000));
    assert!(
        large < 24.0 * small.max(0.05),
        "20 k requests: {small:.2} CPU s, 160 k: {large:.2} CPU s"
    );
}
