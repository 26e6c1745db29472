//! The K2 paper's own comparison (Miemietz et al., RTSS 2019):
//! none, mq-deadline and kyber against K2 with bounds 8, 16 and 32, on the
//! K2 benchmark set-up (three background libaio jobs at QD 32 on their own
//! 15% regions, one RT sync job with a 2 ms think time on a 5% region), for
//! randread, read, write, randwrite and randrw, 4 KiB and 64 KiB blocks, and
//! trimmed, half-full and full devices; and BFQ, which the paper also
//! compared against, reported on its own next to the headline.

use super::runner::{execute, RunEnv, RunPoint};
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use std::fmt::Write as _;

pub const MODES: [&str; 5] = ["randread", "read", "write", "randwrite", "randrw"];
pub const BLOCK_SIZES: [&str; 2] = ["4k", "64k"];
pub const STATES: [(&str, f64); 3] = [("trimmed", 0.0), ("half", 0.5), ("full", 1.0)];
pub const LINUX: [&str; 3] = ["none", "mq-deadline", "kyber"];
/// BFQ, compared with K2 on its own: it starves the background on this
/// set-up (docs/model.md, "bfq"), so it would make the best-Linux headline
/// a comparison with an idle drive.
pub const BFQ: &str = "bfq";
pub const K2_BOUNDS: [u32; 3] = [8, 16, 32];

/// The paper's headline result (Miemietz et al., RTSS 2019).
pub const PAPER_READ_REDUCTION: f64 = 10.0;
pub const PAPER_WRITE_REDUCTION: f64 = 6.8;
pub const PAPER_MAX_PENALTY: f64 = 2.7;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RtssRow {
    pub mode: String,
    pub bs: String,
    pub state: String,
    pub scheduler: String,
    pub rt_p999_us: f64,
    pub rt_mean_us: f64,
    pub bg_bw_mbs: f64,
}

/// The benchmark's job file for one mode and block size.
pub fn job_text(mode: &str, bs: &str, runtime_s: u64) -> String {
    let mut t = format!(
        "; K2 benchmark set-up (TUD-OS/k2-benchmarks; Miemietz et al., RTSS 2019),\n\
; every job on CPU 3 as bin/micro/lat_bench.fio pins them\n[global]\nioengine=libaio\ndirect=1\ncpumask=8\n\
bs={bs}\nrw={mode}\ntime_based\nruntime={runtime_s}s\n"
    );
    for (i, off) in ["0%", "15%", "30%"].iter().enumerate() {
        let _ = write!(
            t,
            "\n[bg{}]\niodepth=32\nprioclass=2\noffset={off}\nsize=15%\n",
            i + 1
        );
    }
    t.push_str(
        "\n[rt]\nioengine=psync\nprioclass=1\nprio=0\nthinktime=2000\noffset=45%\nsize=5%\n",
    );
    t
}

fn schedulers() -> Vec<String> {
    LINUX
        .iter()
        .chain([&BFQ])
        .map(|s| s.to_string())
        .chain(K2_BOUNDS.iter().map(|b| format!("k2:max_inflight={b}")))
        .collect()
}

/// Runs the comparison grid; `runtime_s` per point.
pub fn run(
    env: &RunEnv,
    runtime_s: u64,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<(Vec<RtssRow>, usize), InputError> {
    let mut labels = Vec::new();
    let mut pts = Vec::new();
    for mode in MODES {
        for bs in BLOCK_SIZES {
            for (state, occ) in STATES {
                for sched in schedulers() {
                    labels.push((mode, bs, state, sched.clone()));
                    pts.push(RunPoint {
                        job_name: format!("k2-rtss {mode} {bs}"),
                        job_text: job_text(mode, bs, runtime_s),
                        scheduler: sched,
                        occupancy: occ,
                        precondition: PreconditionMode::Auto,
                        seed_offset: 0,
                        cost: runtime_s,
                    });
                }
            }
        }
    }
    let (results, computed) = execute(&pts, env, progress)?;
    let rows = labels
        .into_iter()
        .zip(results)
        .map(|((mode, bs, state, scheduler), r)| RtssRow {
            mode: mode.into(),
            bs: bs.into(),
            state: state.into(),
            scheduler,
            rt_p999_us: r.rt_p999_us,
            rt_mean_us: r.rt_mean_us,
            bg_bw_mbs: r.nrt_bw_mbs,
        })
        .collect();
    Ok((rows, computed))
}

/// The headline figures, computed from the rows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Headline {
    /// Largest p99.9 reduction of reads: best Linux scheduler / best K2 bound
    /// of a configuration, over all read configurations.
    pub read_reduction: f64,
    pub read_where: String,
    pub write_reduction: f64,
    pub write_where: String,
    /// Largest background-bandwidth penalty: best Linux scheduler's / the
    /// K2 bound's, over all configurations and bounds.
    pub max_penalty: f64,
    pub penalty_where: String,
}

pub fn headline(rows: &[RtssRow]) -> Headline {
    headline_against(rows, &LINUX)
}

/// The headline's three figures with `linux` as the schedulers K2 is
/// compared with.
pub fn headline_against(rows: &[RtssRow], linux: &[&str]) -> Headline {
    let mut h = Headline {
        read_reduction: 0.0,
        read_where: String::new(),
        write_reduction: 0.0,
        write_where: String::new(),
        max_penalty: 0.0,
        penalty_where: String::new(),
    };
    for mode in MODES {
        for bs in BLOCK_SIZES {
            for (state, _) in STATES {
                let cfg: Vec<&RtssRow> = rows
                    .iter()
                    .filter(|r| r.mode == mode && r.bs == bs && r.state == state)
                    .collect();
                let linux: Vec<&&RtssRow> = cfg
                    .iter()
                    .filter(|r| linux.contains(&r.scheduler.as_str()))
                    .collect();
                let k2: Vec<&&RtssRow> = cfg
                    .iter()
                    .filter(|r| r.scheduler.starts_with("k2"))
                    .collect();
                let (Some(best_linux_lat), Some(best_k2_lat)) = (
                    linux.iter().map(|r| r.rt_p999_us).min_by(f64::total_cmp),
                    k2.iter().map(|r| r.rt_p999_us).min_by(f64::total_cmp),
                ) else {
                    continue;
                };
                let reduction = best_linux_lat / best_k2_lat.max(1e-9);
                let place = format!("{mode} {bs} {state}");
                let (best, at) = if mode.contains("read") && mode != "randrw" {
                    (&mut h.read_reduction, &mut h.read_where)
                } else {
                    (&mut h.write_reduction, &mut h.write_where)
                };
                if reduction > *best {
                    *best = reduction;
                    *at = place.clone();
                }
                let best_linux_bw = linux.iter().map(|r| r.bg_bw_mbs).fold(0.0, f64::max);
                for r in &k2 {
                    let penalty = best_linux_bw / r.bg_bw_mbs.max(1e-9);
                    if penalty > h.max_penalty {
                        h.max_penalty = penalty;
                        h.penalty_where = format!("{place}, {}", r.scheduler);
                    }
                }
            }
        }
    }
    h
}

/// Writes the comparison's report into `out`: results.csv, report.md and
/// report.html. Returns every file written.
pub fn write_report(
    rows: &[RtssRow],
    preamble: &str,
    out: &std::path::Path,
) -> Result<Vec<std::path::PathBuf>, InputError> {
    let body = tables_markdown(rows);
    crate::report::write_study(
        out,
        rows,
        &crate::report::StudyReport::from_markdown(
            "K2 against the Linux schedulers — ssdlab",
            TITLE,
            preamble,
            &body,
            Vec::new(),
        ),
    )
}

const TITLE: &str =
    "# K2 against the Linux schedulers (Miemietz et al., RTSS 2019), reproduced by ssdlab";

/// report.md's tables: the headline against the paper, then every point.
fn tables_markdown(rows: &[RtssRow]) -> String {
    let h = headline(rows);
    let mut out =
        String::from("\n## Headline\n\n| figure | paper | ssdlab | where |\n|---|---|---|---|\n");
    let b = headline_against(rows, &[BFQ]);
    let figures = [
        (
            "best RT read p99.9 reduction",
            format!("up to {PAPER_READ_REDUCTION}×"),
            h.read_reduction,
            &h.read_where,
        ),
        (
            "best RT write p99.9 reduction",
            format!("up to {PAPER_WRITE_REDUCTION}×"),
            h.write_reduction,
            &h.write_where,
        ),
        (
            "worst background throughput penalty",
            format!("at most {PAPER_MAX_PENALTY}×"),
            h.max_penalty,
            &h.penalty_where,
        ),
        (
            "against bfq: best RT read p99.9 reduction",
            format!("up to {PAPER_READ_REDUCTION}× (all four)"),
            b.read_reduction,
            &b.read_where,
        ),
        (
            "against bfq: best RT write p99.9 reduction",
            format!("up to {PAPER_WRITE_REDUCTION}× (all four)"),
            b.write_reduction,
            &b.write_where,
        ),
        (
            "against bfq: background bandwidth, K2's least over bfq's",
            format!("(penalty at most {PAPER_MAX_PENALTY}×, all four)"),
            1.0 / b.max_penalty.max(1e-9),
            &b.penalty_where,
        ),
    ];
    for (figure, paper, value, at) in figures {
        let _ = writeln!(out, "| {figure} | {paper} | {value:.1}× | {at} |");
    }
    let bfq: Vec<&RtssRow> = rows.iter().filter(|r| r.scheduler == BFQ).collect();
    if !bfq.is_empty() {
        let lo = |f: fn(&RtssRow) -> f64| bfq.iter().map(|r| f(r)).fold(f64::MAX, f64::min);
        let hi = |f: fn(&RtssRow) -> f64| bfq.iter().map(|r| f(r)).fold(0.0, f64::max);
        let _ = writeln!(
            out,
            "\nbfq on this set-up: RT p99.9 {:.0}–{:.0} µs, background {:.1}–{:.1} MB/s. Its RT queue (RT class, 2 ms think time) is idled for between requests and keeps the device, so the background jobs starve (docs/model.md, \"bfq\"; BFQ's I/O injection of Linux 5.2+ is not modelled).",
            lo(|r| r.rt_p999_us),
            hi(|r| r.rt_p999_us),
            lo(|r| r.bg_bw_mbs),
            hi(|r| r.bg_bw_mbs)
        );
    }
    out.push_str("\nReduction: the best Linux scheduler's RT p99.9 over the best K2 bound's, per configuration (the first three rows: none, mq-deadline and kyber). Penalty: the best Linux scheduler's background bandwidth over a K2 bound's. The bfq rows compare K2 with bfq alone.\n\n## All points\n\n");
    out.push_str("| mode | bs | device | scheduler | RT p99.9 µs | RT mean µs | background MB/s |\n|---|---|---|---|---|---|---|\n");
    for r in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.0} | {:.0} | {:.1} |",
            r.mode, r.bs, r.state, r.scheduler, r.rt_p999_us, r.rt_mean_us, r.bg_bw_mbs
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(mode: &str, sched: &str, p999: f64, bw: f64) -> RtssRow {
        RtssRow {
            mode: mode.into(),
            bs: "4k".into(),
            state: "half".into(),
            scheduler: sched.into(),
            rt_p999_us: p999,
            rt_mean_us: p999 / 2.0,
            bg_bw_mbs: bw,
        }
    }

    #[test]
    fn headline_compares_best_linux_with_best_k2() {
        let rows = vec![
            row("randread", "none", 3000.0, 600.0),
            row("randread", "kyber", 2000.0, 580.0),
            row("randread", "mq-deadline", 2500.0, 590.0),
            row("randread", "k2:max_inflight=8", 200.0, 250.0),
            row("randread", "k2:max_inflight=32", 800.0, 500.0),
            row("write", "none", 4000.0, 400.0),
            row("write", "k2:max_inflight=8", 1000.0, 390.0),
        ];
        let h = headline(&rows);
        assert!((h.read_reduction - 10.0).abs() < 1e-9, "{h:?}");
        assert!((h.write_reduction - 4.0).abs() < 1e-9);
        assert!((h.max_penalty - 600.0 / 250.0).abs() < 1e-9);
        assert!(h.penalty_where.contains("k2:max_inflight=8"));
    }

    #[test]
    fn job_files_parse() {
        for mode in MODES {
            for bs in BLOCK_SIZES {
                let jf =
                    ssdlab_fio::parse_str(&job_text(mode, bs, 10), "x.fio", &|_| None).unwrap();
                assert_eq!(jf.jobs.len(), 4);
                assert!(jf.jobs.iter().any(|j| j.name == "rt"));
            }
        }
    }
}
