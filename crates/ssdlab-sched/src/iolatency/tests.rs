use super::*;
use crate::testing::{run, Job};

fn iolat(spec: &str) -> IoLatency {
    let (_, t) = crate::spec::parse(spec).unwrap();
    IoLatency::new(&t)
}

/// An RT job at depth 1 and a BE job at depth 64 on a device whose latency
/// grows with what it holds (50 µs per request), with a 1 ms RT target:
/// unthrottled, the RT job sees about 3.2 ms.
fn pressure(depths: &mut Vec<(Ns, u32)>, end: Ns) -> crate::testing::Outcome {
    let mut s = iolat("iolatency:rt_target=1ms,nr_requests=256");
    let jobs = [Job::new(IoClass::Rt, 1), Job::new(IoClass::Be, 64)];
    run(
        &mut s,
        &jobs,
        1024,
        end,
        |_, held, _| 50_000 * held as Ns,
        |s, now| {
            let d = s.gauges()[0].1 as u32;
            if depths.last().is_none_or(|&(_, last)| last != d) {
                depths.push((now, d));
            }
        },
    )
}

#[test]
fn a_missed_target_halves_the_siblings_depth_down_to_where_it_is_met() {
    let mut depths = vec![];
    let out = pressure(&mut depths, 20_000_000_000);
    // Every fall is a halving (256 → 128 → …), no faster than every 500 ms.
    let falls: Vec<_> = depths.windows(2).filter(|w| w[1].1 < w[0].1).collect();
    assert!(falls.len() >= 3, "{depths:?}");
    for w in &falls {
        assert_eq!(w[1].1, (w[0].1.min(256) / 2).max(1), "{depths:?}");
    }
    // Once throttled, the RT job's latencies meet the target for most of
    // the run (p50 below 1 ms over the last 10 s).
    let p50 = out.quantile(0, 0.5, 10_000_000_000, 20_000_000_000);
    assert!(p50 < 1_000_000, "RT p50 {p50} ns; depths {depths:?}");
    let unthrottled = out.quantile(0, 0.5, 0, 200_000_000);
    assert!(unthrottled > 2_000_000, "{unthrottled}");
}

#[test]
fn the_depth_grows_back_by_a_sixteenth_once_the_pressure_is_gone() {
    // The RT job stops at 6 s: its windows end, the timer finds no
    // scale group after 5 s and raises the cookie; then the BE job is
    // unthrottled entirely.
    let mut s = iolat("iolatency:rt_target=1ms,nr_requests=256");
    let mut rt = Job::new(IoClass::Rt, 1);
    rt.stop = 6_000_000_000;
    let jobs = [rt, Job::new(IoClass::Be, 300)];
    let mut depths: Vec<(Ns, u32)> = vec![];
    run(
        &mut s,
        &jobs,
        1024,
        40_000_000_000,
        |_, held, _| 50_000 * held as Ns,
        |s, now| {
            let d = s.gauges()[0].1 as u32;
            if depths.last().is_none_or(|&(_, last)| last != d) {
                depths.push((now, d));
            }
        },
    );
    let rises: Vec<_> = depths
        .windows(2)
        .filter(|w| w[1].1 > w[0].1 && w[0].0 > 6_000_000_000)
        .collect();
    assert!(!rises.is_empty(), "{depths:?}");
    for w in &rises[..rises.len() - 1] {
        assert_eq!(w[1].1 - w[0].1, 16, "{depths:?}");
    }
    assert_eq!(depths.last().unwrap().1, 256, "{depths:?}");
    assert!(s.counters().iter().any(|&(n, v)| n == "scale_ups" && v > 0));
}

#[test]
fn the_window_follows_the_target() {
    let mut s = iolat("iolatency:rt_target=20ms,be_target=0");
    let rq = |job, class| Request {
        id: job as u64,
        dir: ssdlab_protocol::Dir::Read,
        sector: 0,
        bytes: 4096,
        prio: crate::IoPrio { class, level: 0 },
        sync: true,
        flush: false,
        fua: false,
        job,
        submit_ns: 0,
        insert_ns: 0,
        dispatch_ns: 0,
    };
    s.insert(rq(0, IoClass::Rt), 0);
    s.insert(rq(1, IoClass::Be), 0);
    assert_eq!(s.groups[&0].window_ns, 320_000_000);
    assert_eq!(s.groups[&1].window_ns, MIN_WINDOW_NS);
    assert_eq!(s.groups[&1].target_ns, 0);
    let mut t = iolat("iolatency:rt_target=1s");
    t.insert(rq(0, IoClass::Rt), 0);
    assert_eq!(t.groups[&0].window_ns, MAX_WINDOW_NS);
}
