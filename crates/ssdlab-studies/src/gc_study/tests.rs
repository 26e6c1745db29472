use super::*;

fn limit(bounded: Option<f64>, unbounded: Option<f64>) -> SchemeLimit {
    SchemeLimit {
        bounded_mbs: bounded,
        unbounded_mbs: unbounded,
    }
}

#[test]
fn the_headline_rule_takes_a_share_of_the_slowest_schemes_bounded_limit() {
    let limits = [
        limit(Some(200.0), Some(280.0)),
        limit(Some(160.0), Some(226.0)),
        limit(Some(640.0), None),
    ];
    assert_eq!(headline_load(&limits, 0.8), Some(128.0));
    // A scheme that never kept up leaves no bounded range to take it from.
    let never = [limits[0], limit(None, Some(20.0)), limits[2]];
    assert_eq!(headline_load(&never, 0.8), None);
}

/// A seventh profile, made up for the test: a mix none of the paper's six
/// has (half reads, mid-sized requests, a wide hot set).
const MADE_UP: Profile = Profile {
    name: "made-up",
    read_pct: 50.0,
    seq_pct: 30.0,
    avg_read_kb: 16.0,
    avg_write_kb: 12.0,
    hot_share: 0.2,
    hot_access: 0.7,
    overwrite_pct: 20.0,
    seq_run: 8.0,
    log_share: 0.0,
    hot_drift: 0.0,
    iops: 1_000.0,
};

/// Short runs of the study into a fresh directory named for the test.
pub(crate) fn small_study(name: &str) -> GcStudyOptions {
    let out = std::env::temp_dir().join(format!("ssdlab-gc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    GcStudyOptions {
        out,
        threads: 2,
        seed: 3,
        requests: 4_000,
        offered_mbs: TRACE_MBS,
        write_volume: 0.05,
        footprint: 0.65,
        remote: None,
    }
}

#[test]
fn the_rule_puts_a_made_up_profiles_headline_inside_its_bounded_range() {
    let opts = small_study("rule");
    let plan = LoadPlan::geometric(50.0, 2.0, 8, 1);
    let (sweep, computed) = load::run(&opts, &[MADE_UP], &plan, &|_, _| {}).unwrap();
    assert_eq!(computed, sweep.rows.len(), "a fresh cache");
    let limits = &sweep.limits[0];
    // The climb found where every scheme stops keeping up.
    for l in limits {
        let (b, u) = (l.bounded_mbs.unwrap(), l.unbounded_mbs.unwrap());
        assert!(b < u, "{limits:?}");
    }
    let slowest = limits
        .iter()
        .filter_map(|l| l.bounded_mbs)
        .fold(f64::MAX, f64::min);
    let headline = sweep.headline_mbs[0].unwrap();
    assert!(
        headline > 0.0 && headline <= slowest,
        "{headline} vs {slowest}"
    );
    // Every scheme kept up at the headline load.
    let rows = sweep.headline_rows();
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter().all(|r| r.bounded && r.load_mbs == headline),
        "{rows:?}"
    );
    // A second run takes every point from the cache and gives the same rows.
    let (again, recomputed) = load::run(&opts, &[MADE_UP], &plan, &|_, _| {}).unwrap();
    assert_eq!(recomputed, 0);
    assert_eq!(again.rows, sweep.rows);
    let _ = std::fs::remove_dir_all(&opts.out);
}

#[test]
fn an_overloaded_replay_is_marked_unbounded_and_a_light_one_bounded() {
    let opts = small_study("bound");
    let cell = |load_mbs| Cell {
        profile: 0,
        scheme: "BBGC",
        load_mbs,
    };
    let (rows, _) = run_cells(&opts, &[MADE_UP], &[cell(20.0), cell(5_000.0)], &|_, _| {}).unwrap();
    assert!(rows[0].bounded && rows[0].served_mbs > 0.98 * rows[0].offered_mbs);
    // 5 GB/s is beyond the drive's flash and link: the backlog drains after
    // the last arrival.
    assert!(
        !rows[1].bounded && rows[1].served_mbs < 0.9 * rows[1].offered_mbs,
        "{:?}",
        rows[1]
    );
    // The waits were accounted: writes queued at their dies.
    assert!(rows[1].write_wait_host_us > 0.0, "{:?}", rows[1]);
    let _ = std::fs::remove_dir_all(&opts.out);
}
