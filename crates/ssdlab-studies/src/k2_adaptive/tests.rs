use super::cells::{self, compare};
use super::phases::{self, adaptive_wins, score};
use super::*;

fn row(section: &str, workload: &str, scheduler: &str, phase: &str, p999: f64, bw: f64) -> Row {
    Row {
        section: section.into(),
        workload: workload.into(),
        occupancy: "partial".into(),
        scheduler: scheduler.into(),
        phase: phase.into(),
        rt_p999_us: p999,
        rt_mean_us: p999 / 4.0,
        bw_mbs: bw,
        final_bound: 0,
    }
}

/// A cell where latency and bandwidth both grow with the bound.
fn cell(adaptive: &[(&str, f64, f64)]) -> Vec<Row> {
    let mut rows = vec![row("cell", "randread", "none", "all", 3000.0, 600.0)];
    for (i, b) in BOUNDS.iter().enumerate() {
        let p = 200.0 * 1.5f64.powi(i as i32);
        let bw = 50.0 * (i as f64 + 1.0);
        rows.push(row(
            "cell",
            "randread",
            &format!("k2:max_inflight={b}"),
            "all",
            p,
            bw,
        ));
    }
    for (t, p, bw) in adaptive {
        rows.push(row(
            "cell",
            "randread",
            &format!("k2-adaptive:{t}"),
            "all",
            *p,
            *bw,
        ));
    }
    rows
}

#[test]
fn the_oracle_is_the_best_static_bound_for_the_objective() {
    // Static p99.9: 200, 300, 450, 675, 1013, 1519, 2278 µs; bandwidth 50 … 350.
    let rows = cell(&[
        ("objective=o1,alpha=50", 1600.0, 300.0),
        ("objective=o2,beta=25", 480.0, 140.0),
    ]);
    let c = compare(&rows);
    let o1 = c.iter().find(|c| c.objective == "O1 α=50").unwrap();
    // Limit 1500: K2-16 (1013 µs, 250 MB/s) is the widest that meets it.
    assert_eq!(o1.oracle_bound, Some(16));
    assert!(o1.meets, "1600 is within 10 % of 1500");
    assert!((o1.value_ratio - 300.0 / 250.0).abs() < 1e-9);
    let o2 = c.iter().find(|c| c.objective == "O2 β=25").unwrap();
    // Floor 150 MB/s: K2-4 (150 MB/s, 450 µs) is the tightest that keeps it.
    assert_eq!(o2.oracle_bound, Some(4));
    assert!(o2.meets, "140 × 1.1 ≥ 150");
    assert!((o2.value_ratio - 450.0 / 480.0).abs() < 1e-9);
    // Runs missing from the grid leave their objectives out.
    assert_eq!(c.len(), 2);
}

#[test]
fn a_constraint_nothing_meets_is_infeasible_and_a_miss_is_a_miss() {
    let rows = cell(&[("objective=o1,alpha=25", 900.0, 200.0)]);
    let c = compare(&rows);
    // Limit 750: K2-8 (675 µs) is the widest that qualifies; 900 µs is
    // past 825.
    assert_eq!(c[0].oracle_bound, Some(8));
    assert!(!c[0].meets);
    let mut tight = cell(&[("objective=o1,alpha=25", 100.0, 10.0)]);
    tight[0].rt_p999_us = 100.0;
    let c = compare(&tight);
    assert_eq!(c[0].oracle_bound, None);
    assert!(c[0].value_ratio.is_nan());
}

#[test]
fn a_phase_workload_is_won_only_by_a_feasible_scheduler_that_moves_more() {
    let mut rows = Vec::new();
    for (sched, read_p, write_p, read_bw, write_bw) in [
        ("none", 3000.0, 3600.0, 600.0, 400.0),
        ("k2:max_inflight=2", 200.0, 1500.0, 100.0, 300.0),
        ("k2:max_inflight=16", 500.0, 2100.0, 450.0, 330.0),
        (
            "k2-adaptive:objective=o1,alpha=50",
            520.0,
            1400.0,
            440.0,
            300.0,
        ),
    ] {
        rows.push(row("phases", "op-switch", sched, "read", read_p, read_bw));
        rows.push(row(
            "phases",
            "op-switch",
            sched,
            "write",
            write_p,
            write_bw,
        ));
    }
    let s = score(&rows);
    let of = |n: &str| s.iter().find(|x| x.scheduler == n).unwrap();
    assert!(!of("none").feasible);
    assert!(of("k2:max_inflight=2").feasible);
    // K2-16's write phase: 2100 / 1800 > 1.1.
    assert!(!of("k2:max_inflight=16").feasible);
    assert!(of("k2-adaptive:objective=o1,alpha=50").feasible);
    assert!((of("k2-adaptive:objective=o1,alpha=50").bw_mbs - 370.0).abs() < 1e-9);
    assert!(adaptive_wins(&s, "op-switch"));
    // A feasible static bound that moves more beats it.
    rows.push(row(
        "phases",
        "op-switch",
        "k2:max_inflight=8",
        "read",
        400.0,
        500.0,
    ));
    rows.push(row(
        "phases",
        "op-switch",
        "k2:max_inflight=8",
        "write",
        1700.0,
        320.0,
    ));
    assert!(!adaptive_wins(&score(&rows), "op-switch"));
}

#[test]
fn phase_job_files_parse_and_start_each_phase_on_time() {
    for w in phases::workloads(&Plan::QUICK) {
        let text = phases::job_text(&w);
        let jf = ssdlab_fio::parse_str(&text, w.name, &|_| None).unwrap();
        let rt_phases = w.phases.iter().filter(|p| p.rt).count();
        assert_eq!(jf.jobs.len(), 3 * w.phases.len() + rt_phases, "{}", w.name);
        for p in &w.phases {
            assert!(text.contains(&format!("[rt-{}]", p.name)) == p.rt);
            assert!(text.contains(&format!("startdelay={}s\nruntime={}s", p.start_s, p.dur_s)));
        }
    }
    // Every cell and phase run of the quick plan is a distinct point.
    let cells = cells::points(&Plan::QUICK);
    assert_eq!(cells.len(), 4 * (8 + 6));
    let phase_points = phases::points(&Plan::QUICK);
    assert_eq!(phase_points.len(), 3 * 9);
}
