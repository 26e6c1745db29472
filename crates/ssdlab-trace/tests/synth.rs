//! Synthetic trace generator: profiles are reproduced, output is
//! deterministic, in range, and survives every format's round trip.

use std::collections::HashSet;

use ssdlab_trace::{
    profile, write_trace, Format, Profile, ReadOptions, Synth, SynthOptions, TraceOp, TraceReader,
    TraceRecord, TraceStats, OVERWRITE_RING, PROFILES,
};

const GIB: u64 = 1 << 30;

/// The workload table of Lee, Choi, Hong (Electronics 12(9):2142, 2023):
/// name, read %, sequential
/// %, average read KB, average write KB.
const TABLE: &[(&str, f64, f64, f64, f64)] = &[
    ("cassandra", 80.2, 56.8, 70.5, 103.7),
    ("mongodb", 36.9, 18.7, 6.4, 4.7),
    ("mysql", 0.0, 9.8, 0.0, 5.8),
    ("rocksdb", 50.5, 9.9, 4.9, 4.5),
    ("dbench", 0.0, 13.2, 4.0, 7.6),
    ("sqlite", 0.0, 18.7, 4.0, 4.9),
];

fn opts(requests: u64, span_bytes: u64, seed: u64) -> SynthOptions {
    SynthOptions {
        requests,
        span_bytes,
        seed,
    }
}

fn gen(p: &Profile, o: &SynthOptions) -> Vec<TraceRecord> {
    Synth::new(p, o).expect("valid profile").collect()
}

#[test]
fn presets_are_the_spec_table() {
    let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "cassandra",
            "mongodb",
            "mysql",
            "rocksdb",
            "dbench",
            "sqlite"
        ]
    );
    for &(name, rd, seq, r_kb, w_kb) in TABLE {
        let p = profile(name).unwrap();
        assert_eq!(
            (p.read_pct, p.seq_pct, p.avg_read_kb, p.avg_write_kb),
            (rd, seq, r_kb, w_kb),
            "{name}"
        );
        assert!(p.hot_share > 0.0 && p.hot_share <= 1.0, "{name}");
        assert!((0.0..=1.0).contains(&p.hot_access), "{name}");
        assert!((0.0..=100.0).contains(&p.overwrite_pct), "{name}");
        assert!(p.seq_run >= 1.0, "{name}");
        assert!((0.0..1.0).contains(&p.log_share), "{name}");
        assert!(p.iops > 0.0, "{name}");
    }
    assert_eq!(profile("MySQL").unwrap().name, "mysql");
    assert_eq!(profile(" rocksdb ").unwrap().name, "rocksdb");
    assert!(profile("postgres").is_none());
}

#[test]
fn profiles_match_the_table() {
    for (i, &(name, rd, seq, r_kb, w_kb)) in TABLE.iter().enumerate() {
        let p = profile(name).unwrap();
        let s = TraceStats::of_records(gen(p, &opts(200_000, 16 * GIB, 7 + i as u64)));
        assert_eq!(s.requests, 200_000, "{name}");
        assert_eq!(s.reads + s.writes, s.requests, "{name}");
        assert!(
            (s.read_pct() - rd).abs() <= 5.0,
            "{name}: read {} vs {rd}",
            s.read_pct()
        );
        assert!(
            (s.seq_pct() - seq).abs() <= 5.0,
            "{name}: seq {} vs {seq}",
            s.seq_pct()
        );
        if rd == 0.0 {
            assert_eq!(s.reads, 0, "{name}: a 0 % read profile has no reads");
        } else {
            let r = s.avg_read_kb();
            assert!(
                (r - r_kb).abs() <= 0.1 * r_kb,
                "{name}: read {r} KB vs {r_kb}"
            );
        }
        if rd == 100.0 {
            assert_eq!(s.writes, 0, "{name}");
        } else {
            let w = s.avg_write_kb();
            assert!(
                (w - w_kb).abs() <= 0.1 * w_kb,
                "{name}: write {w} KB vs {w_kb}"
            );
        }
    }
}

#[test]
fn deterministic_per_seed() {
    for p in PROFILES {
        let a = gen(p, &opts(5_000, 4 * GIB, 42));
        let b = gen(p, &opts(5_000, 4 * GIB, 42));
        let c = gen(p, &opts(5_000, 4 * GIB, 43));
        assert_eq!(a, b, "{}", p.name);
        assert_ne!(a, c, "{}", p.name);
        // A prefix of a longer run is the shorter run.
        let long = gen(p, &opts(6_000, 4 * GIB, 42));
        assert_eq!(&long[..5_000], &a[..], "{}", p.name);
    }
}

#[test]
fn extents_stay_inside_span_and_aligned() {
    // Spans from one page (sizes clamped, no choice of offset) to large.
    for span in [4096, 12_288 + 100, 64 << 10, 1 << 20, 100 * GIB + 123] {
        for p in PROFILES {
            let o = opts(20_000, span, 3);
            let synth = Synth::new(p, &o).unwrap();
            let used = synth.span_bytes();
            assert_eq!(used, span / 4096 * 4096);
            let mut n = 0;
            for r in synth {
                n += 1;
                assert!(r.len > 0 && r.len % 4096 == 0, "{} {span}: {r:?}", p.name);
                assert_eq!(r.offset % 4096, 0, "{} {span}: {r:?}", p.name);
                assert!(r.offset + r.len as u64 <= used, "{} {span}: {r:?}", p.name);
                assert_ne!(r.op, TraceOp::Trim);
            }
            assert_eq!(n, 20_000);
        }
    }
}

#[test]
fn poisson_arrivals() {
    let p = profile("mongodb").unwrap();
    let recs = gen(p, &opts(100_000, 4 * GIB, 11));
    assert_eq!(recs[0].time_ns, 0);
    assert!(recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
    let gaps: Vec<f64> = recs
        .windows(2)
        .map(|w| (w[1].time_ns - w[0].time_ns) as f64)
        .collect();
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let want = 1e9 / p.iops;
    assert!(
        (mean - want).abs() <= 0.02 * want,
        "mean gap {mean} vs {want}"
    );
    // Exponential: standard deviation equals the mean.
    let var = gaps.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / gaps.len() as f64;
    assert!(
        (var.sqrt() - mean).abs() <= 0.05 * mean,
        "sd {} vs {mean}",
        var.sqrt()
    );
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.line, i as u64 + 1);
    }
}

#[test]
fn hot_cold_split() {
    let p = Profile {
        name: "skew",
        read_pct: 50.0,
        seq_pct: 0.0,
        avg_read_kb: 4.0,
        avg_write_kb: 4.0,
        hot_share: 0.1,
        hot_access: 0.8,
        overwrite_pct: 0.0,
        seq_run: 1.0,
        log_share: 0.0,
        hot_drift: 0.0,
        iops: 1000.0,
    };
    let o = opts(100_000, 4 * GIB, 5);
    let synth = Synth::new(&p, &o).unwrap();
    let hot = synth.hot_bytes();
    assert_eq!(hot, 104_858 * 4096, "round(0.1 * 1 Mi pages)");
    let recs: Vec<_> = synth.collect();
    let in_hot = recs.iter().filter(|r| r.offset < hot).count() as f64 / recs.len() as f64;
    assert!((in_hot - 0.8).abs() < 0.01, "hot share {in_hot}");
    let s = TraceStats::of_records(&recs);
    assert_eq!(s.sequential, 0, "random requests never look sequential");
}

#[test]
fn a_drifting_hot_region_moves_through_the_span_and_wraps() {
    // Writes only, all hot: the hot region is 1 % of the span and moves
    // half its length per hot-region length written, so 10,000 one-page
    // writes (about 3.8 hot lengths of 2,621 pages) move it about 1.9
    // lengths on.
    let p = Profile {
        name: "drift",
        read_pct: 0.0,
        seq_pct: 0.0,
        avg_read_kb: 4.0,
        avg_write_kb: 4.0,
        hot_share: 0.01,
        hot_access: 1.0,
        overwrite_pct: 0.0,
        seq_run: 1.0,
        log_share: 0.0,
        hot_drift: 0.5,
        iops: 1000.0,
    };
    let o = opts(10_000, GIB, 3);
    let recs = gen(&p, &o);
    let hot = 2621 * 4096;
    let first = &recs[..500];
    let last = &recs[recs.len() - 500..];
    assert!(first.iter().all(|r| r.offset < 2 * hot), "starts at 0");
    let moved = |r: &&TraceRecord| r.offset >= hot + hot / 2;
    assert!(last.iter().all(|r| moved(&r)), "has moved on");
    assert!(
        last.iter().all(|r| r.offset < 4 * hot),
        "by about 1.9 lengths"
    );
    // A region that reaches the span's end wraps to its start: 300,000
    // one-page writes at a drift of 1 move it 300,000 pages, past the
    // span's 262,144.
    let recs = gen(
        &Profile {
            hot_drift: 1.0,
            ..p
        },
        &opts(300_000, GIB, 3),
    );
    let base = 300_000 - 262_144;
    let tail = &recs[recs.len() - 100..];
    assert!(
        tail.iter()
            .all(|r| (base - 2621..base + 2621).contains(&(r.offset / 4096))),
        "wrapped to about page {base}"
    );
}

#[test]
fn overwrites_rewrite_recent_extents() {
    for ow in [0.0, 30.0, 80.0] {
        let p = Profile {
            name: "ow",
            read_pct: 20.0,
            seq_pct: 10.0,
            avg_read_kb: 8.0,
            avg_write_kb: 12.0,
            hot_share: 1.0,
            hot_access: 1.0,
            overwrite_pct: ow,
            seq_run: 1.0 / 0.9,
            log_share: 0.0,
            hot_drift: 0.0,
            iops: 1000.0,
        };
        let recs = gen(&p, &opts(50_000, 64 * GIB, 9));
        // Random writes whose exact extent is among the last OVERWRITE_RING
        // writes (a uniform random 64 GiB extent almost never is).
        let mut ring: std::collections::VecDeque<(u64, u32)> = Default::default();
        let (mut random_writes, mut rewrites) = (0u64, 0u64);
        let mut prev_end = None;
        for r in &recs {
            let seq = prev_end == Some(r.offset);
            prev_end = Some(r.offset + r.len as u64);
            if r.op != TraceOp::Write {
                continue;
            }
            let e = (r.offset, r.len);
            if !seq {
                random_writes += 1;
                rewrites += ring.contains(&e) as u64;
            }
            if ring.len() == OVERWRITE_RING {
                ring.pop_front();
            }
            ring.push_back(e);
        }
        let share = 100.0 * rewrites as f64 / random_writes as f64;
        assert!(
            (share - ow).abs() < 2.0,
            "overwrite {ow}%: measured {share}%"
        );
    }
}

#[test]
fn round_trip_every_format() {
    for p in PROFILES {
        for format in Format::ALL {
            let o = opts(20_000, 8 * GIB, 21);
            let mut buf = Vec::new();
            let stats = write_trace(&mut buf, format, p, &o).unwrap();
            let want = gen(p, &o);
            assert_eq!(stats, TraceStats::of_records(&want), "{} {format}", p.name);
            let got: Vec<TraceRecord> =
                TraceReader::new(&buf[..], format, "synth", ReadOptions::default())
                    .collect::<Result<_, _>>()
                    .unwrap_or_else(|e| panic!("{} {format}: {e}", p.name));
            assert_eq!(got.len(), want.len(), "{} {format}", p.name);
            assert_eq!(TraceStats::of_records(&got), stats, "{} {format}", p.name);
            for (g, w) in got.iter().zip(&want) {
                let q = format.quantize(w);
                assert_eq!(
                    (g.time_ns, g.op, g.offset, g.len),
                    (q.time_ns, q.op, q.offset, q.len),
                    "{} {format}",
                    p.name
                );
            }
        }
    }
}

#[test]
fn invalid_inputs_are_rejected() {
    let base = *profile("mongodb").unwrap();
    let o = opts(10, GIB, 1);
    let bad = [
        Profile {
            read_pct: 101.0,
            ..base
        },
        Profile {
            seq_pct: f64::NAN,
            ..base
        },
        Profile {
            avg_read_kb: 2.0,
            ..base
        },
        Profile {
            avg_write_kb: 0.0,
            ..base
        },
        Profile {
            hot_share: 0.0,
            ..base
        },
        Profile {
            hot_access: 1.5,
            ..base
        },
        Profile {
            overwrite_pct: -1.0,
            ..base
        },
        Profile {
            seq_run: 0.5,
            ..base
        },
        Profile {
            seq_pct: 80.0,
            seq_run: 3.9,
            ..base
        },
        Profile {
            log_share: 1.0,
            ..base
        },
        Profile {
            log_share: f64::NAN,
            ..base
        },
        Profile {
            hot_drift: 1.5,
            ..base
        },
        Profile {
            hot_drift: -0.1,
            ..base
        },
        Profile { iops: 0.0, ..base },
    ];
    for p in &bad {
        assert!(Synth::new(p, &o).is_err(), "{p:?}");
        let mut buf = Vec::new();
        let e = write_trace(&mut buf, Format::Msr, p, &o).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    }
    assert!(Synth::new(&base, &opts(10, 4095, 1)).is_err());
    // 0 % reads with a 0 KB read size is fine (the mysql row).
    let w_only = Profile {
        read_pct: 0.0,
        avg_read_kb: 0.0,
        ..base
    };
    assert!(Synth::new(&w_only, &o).is_ok());
    assert_eq!(Synth::new(&base, &opts(0, GIB, 1)).unwrap().count(), 0);
}

#[test]
fn distinct_offsets_are_spread() {
    // Random requests of a large span are not collapsed onto few offsets
    // (knobs fixed here: the fitted profiles may concentrate far more).
    let p = Profile {
        hot_share: 0.05,
        hot_access: 0.95,
        overwrite_pct: 10.0,
        ..*profile("sqlite").unwrap()
    };
    let recs = gen(&p, &opts(20_000, 16 * GIB, 2));
    let distinct: HashSet<u64> = recs.iter().map(|r| r.offset).collect();
    assert!(distinct.len() > 15_000, "{}", distinct.len());
}

#[test]
fn small_span_keeps_sequential_share() {
    // In a 1 MiB span random extents often land where the previous request
    // ended; the generator redraws them so the measured share stays put.
    // (Without the log: a 1 MiB span's log is shorter than one run, which
    // then wraps, and a wrap is not sequential; nor do runs longer than a
    // twentieth of the span fit, so they are capped at 8 requests.)
    for name in ["mongodb", "mysql", "rocksdb", "dbench", "sqlite"] {
        let base = *profile(name).unwrap();
        let p = Profile {
            log_share: 0.0,
            seq_run: base.seq_run.min(8.0).max(base.shortest_seq_run()),
            ..base
        };
        let s = TraceStats::of_records(gen(&p, &opts(100_000, 1 << 20, 13)));
        assert!(
            (s.seq_pct() - p.seq_pct).abs() <= 1.0,
            "{name}: seq {} vs {}",
            s.seq_pct(),
            p.seq_pct
        );
    }
}

/// The runs of a trace: (first index, length in requests, write?), a run
/// being a request followed by the sequential ones that continue it.
fn runs(recs: &[TraceRecord]) -> Vec<(usize, usize, bool)> {
    let mut out: Vec<(usize, usize, bool)> = Vec::new();
    let mut prev_end = None;
    for (i, r) in recs.iter().enumerate() {
        if prev_end == Some(r.offset) {
            out.last_mut().expect("a run has a start").1 += 1;
        } else {
            out.push((i, 1, r.op == TraceOp::Write));
        }
        prev_end = Some(r.offset + r.len as u64);
    }
    out
}

#[test]
fn runs_keep_the_shares_and_their_direction() {
    let p = Profile {
        name: "runs",
        read_pct: 30.0,
        seq_pct: 50.0,
        avg_read_kb: 8.0,
        avg_write_kb: 16.0,
        hot_share: 1.0,
        hot_access: 1.0,
        overwrite_pct: 0.0,
        seq_run: 40.0,
        log_share: 0.0,
        hot_drift: 0.0,
        iops: 1000.0,
    };
    let recs = gen(&p, &opts(400_000, 64 * GIB, 3));
    let s = TraceStats::of_records(&recs);
    assert!((s.seq_pct() - 50.0).abs() < 2.0, "seq {}", s.seq_pct());
    assert!((s.read_pct() - 30.0).abs() < 3.0, "read {}", s.read_pct());
    let long: Vec<_> = runs(&recs).into_iter().filter(|r| r.1 > 1).collect();
    // Sequential requests per run that has any: 40 on average.
    let mean = long.iter().map(|r| (r.1 - 1) as f64).sum::<f64>() / long.len() as f64;
    assert!((mean - 40.0).abs() < 4.0, "mean run {mean}");
    for &(i, n, write) in &long {
        assert!(
            recs[i..i + n]
                .iter()
                .all(|r| (r.op == TraceOp::Write) == write),
            "run at {i} changes direction"
        );
    }
}

#[test]
fn log_runs_rewrite_the_log_in_order() {
    let span = 4 * GIB;
    let p = Profile {
        name: "log",
        read_pct: 0.0,
        seq_pct: 60.0,
        avg_read_kb: 0.0,
        avg_write_kb: 32.0,
        hot_share: 1.0,
        hot_access: 1.0,
        overwrite_pct: 0.0,
        seq_run: 100.0,
        log_share: 0.1,
        hot_drift: 0.0,
        iops: 1000.0,
    };
    let recs = gen(&p, &opts(200_000, span, 8));
    // The log is the last tenth of the span, rounded to whole pages.
    let log_start = span - ((span / 4096) as f64 * 0.1).round() as u64 * 4096;
    let mut cursor = log_start;
    let (mut runs_in_log, mut wraps) = (0, 0);
    for (i, n, _) in runs(&recs).into_iter().filter(|r| r.1 > 1) {
        let run = &recs[i..i + n];
        runs_in_log += 1;
        // Each run of writes continues the log where the last one stopped
        // (one page on, if a request had just ended there), wrapping at its
        // end.
        let first = run[0].offset;
        assert!(
            first == cursor || first == cursor + 4096 || first == log_start,
            "run at {i} starts at {first}, log cursor {cursor}"
        );
        assert!(
            run.iter().all(|r| r.offset >= log_start),
            "run at {i} leaves the log"
        );
        wraps += (first == log_start) as usize;
        let last = run.last().unwrap();
        cursor = last.offset + last.len as u64;
        if cursor >= span {
            cursor = log_start;
        }
    }
    assert!(runs_in_log > 500, "{runs_in_log}");
    // 200 k requests of 32 KiB, 60 % in the log: about 3.7 GB through a
    // 410 MiB log, so it wraps several times.
    assert!(wraps >= 5, "{wraps} wraps");
}
