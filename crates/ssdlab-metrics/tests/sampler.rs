use proptest::prelude::*;
use ssdlab_metrics::*;

#[test]
fn window_boundaries_are_half_open() {
    let mut s = Sampler::new(500_000_000);
    s.add(0, 1);
    s.add(499_999_999, 2);
    s.add(500_000_000, 4);
    s.add(999_999_999, 8);
    s.add(1_000_000_000, 16); // at the end: not in a full window
    let r = s.finish(1_000_000_000);
    assert_eq!(r.windows.len(), 2);
    assert_eq!(r.windows[0].bytes, 3);
    assert_eq!(r.windows[0].ios, 2);
    assert_eq!(r.windows[1].bytes, 12);
    assert_eq!(r.windows[1].start_ns, 500_000_000);
    assert_eq!(r.tail_bytes, 16);
    assert_eq!(r.tail_ios, 1);
}

#[test]
fn rates_follow_fio_and_empty_windows_are_skipped() {
    let mut s = Sampler::fio_default();
    // window 0: 1000 x 4 KiB; window 1: nothing; window 2: 10 x 4 KiB
    for i in 0..1000 {
        s.add(i * 1000, 4096);
    }
    for i in 0..10 {
        s.add(1_000_000_000 + i, 4096);
    }
    let r = s.finish(1_600_000_000); // 3 full windows, 100 ms tail
    assert_eq!(r.full_windows, 3);
    assert_eq!(r.windows.len(), 2, "the empty window is not stored");
    assert_eq!(r.windows[1].start_ns, 1_000_000_000);
    // 4_096_000 B in 500 ms -> 8_192_000 B/s -> 8000 KiB/s
    assert_eq!(r.bw_kib_s, vec![8000, 80]);
    assert_eq!(r.iops, vec![2000, 20]);
    let mut ds = DirStats::new();
    ds.fill_samples(&r);
    assert_eq!(ds.bw_samples, vec![8000, 80]);
    assert_eq!(ds.bw_stat().min, 80);
    assert_eq!(ds.iops_stat().max, 2000);
}

#[test]
fn struct_literal_with_default() {
    let mut s = Sampler {
        window_ns: 250_000_000,
        ..Default::default()
    };
    s.add(260_000_000, 1024);
    let r = s.finish(500_000_000);
    assert_eq!(r.full_windows, 2);
    assert_eq!(r.windows.len(), 1);
    assert_eq!(r.bw_kib_s, vec![4]);
    assert_eq!(Sampler::default().window_ns, FIO_DEFAULT_AVG_TIME_NS);
}

#[test]
fn kib_rate_truncates() {
    let mut s = Sampler::new(1_000_000_000);
    s.add(0, 2047);
    assert_eq!(s.finish(1_000_000_000).bw_kib_s, vec![1]);
}

#[test]
fn start_offset_and_per_second_series() {
    let mut s = Sampler::starting_at(500_000_000, 2_000_000_000);
    s.add(2_100_000_000, 10);
    s.add(3_999_999_999, 20);
    s.add(4_000_000_000, 40);
    s.add(4_500_000_000, 80);
    assert_eq!(
        s.per_second_series(),
        vec![(0, 10, 1), (1, 20, 1), (2, 120, 2)]
    );
    let r = s.finish(5_000_000_000);
    assert_eq!(r.full_windows, 6);
    let at = |k: usize| (r.windows[k].start_ns, r.windows[k].bytes);
    assert_eq!(at(0), (2_000_000_000, 10));
    assert_eq!(at(1), (3_500_000_000, 20));
    assert_eq!(at(2), (4_000_000_000, 40));
    assert_eq!(at(3), (4_500_000_000, 80));
}

proptest! {
    #[test]
    fn bytes_are_conserved(
        events in proptest::collection::vec((0u64..10_000_000_000, 0u64..1_000_000), 0..300),
        end in 0u64..12_000_000_000,
        window in 1_000_000u64..2_000_000_000,
    ) {
        let mut s = Sampler::new(window);
        for &(t, b) in &events {
            s.add(t, b);
        }
        let total: u64 = events.iter().map(|e| e.1).sum();
        let r = s.finish(end);
        let in_windows: u64 = r.windows.iter().map(|w| w.bytes).sum();
        prop_assert_eq!(in_windows + r.tail_bytes, total);
        let ios: u64 = r.windows.iter().map(|w| w.ios).sum();
        prop_assert_eq!(ios + r.tail_ios, events.len() as u64);
        prop_assert_eq!(r.full_windows, end / window);
        prop_assert!(r.windows.iter().all(|w| w.ios > 0));
        prop_assert!(r.windows.windows(2).all(|p| p[0].start_ns < p[1].start_ns));
        let per_sec: u64 = s.per_second_series().iter().map(|x| x.1).sum();
        prop_assert_eq!(per_sec, total);
        prop_assert_eq!(s.totals(), (total, events.len() as u64));
        // one fio sample per non-empty full window
        let nonempty = r.windows.iter().filter(|w| w.bytes > 0).count();
        prop_assert!(s.windows.len() <= events.len());
        prop_assert!(s.per_second_series().len() <= 3 * events.len());
        prop_assert_eq!(r.bw_kib_s.len(), nonempty);
    }

    /// Every I/O lands in window `t / window` and second `t / 1 s`, in or
    /// out of time order (the sampler skips the division when the last
    /// window holds the time).
    #[test]
    fn each_io_lands_in_its_window_and_second(
        times in proptest::collection::vec(0u64..5_000_000_000, 1..200),
        window in 1u64..2_000_000_000,
        sorted in any::<bool>(),
    ) {
        let mut times = times;
        if sorted {
            times.sort_unstable();
        }
        let mut s = Sampler::new(window);
        let mut windows = std::collections::BTreeMap::new();
        let mut seconds = std::collections::BTreeMap::new();
        for &t in &times {
            s.add(t, 1);
            *windows.entry(t / window).or_insert(0u64) += 1;
            *seconds.entry(t / 1_000_000_000).or_insert(0u64) += 1;
        }
        let expect = |m: &std::collections::BTreeMap<u64, u64>| -> Vec<(u64, u64, u64)> {
            m.iter().map(|(&k, &n)| (k, n, n)).collect()
        };
        prop_assert_eq!(&s.windows, &expect(&windows));
        prop_assert_eq!(&s.seconds, &expect(&seconds));
    }
}

#[test]
fn memory_follows_the_work_not_the_span() {
    // Two I/Os a simulated century apart: two windows and two seconds kept.
    let mut s = Sampler::fio_default();
    let century = 100 * 365 * 86_400 * 1_000_000_000u64;
    s.add(0, 4096);
    s.add(century, 4096);
    assert_eq!((s.windows.len(), s.seconds.len()), (2, 2));
    let r = s.finish(century + 1_000_000_000);
    assert_eq!(r.windows.len(), 2);
    assert_eq!(r.full_windows, 2 * century / 1_000_000_000 + 2);
    let rows = s.per_second_series();
    let last = century / 1_000_000_000;
    assert_eq!(
        rows,
        vec![(0, 4096, 1), (1, 0, 0), (last - 1, 0, 0), (last, 4096, 1)]
    );
}

#[test]
fn out_of_order_adds_land_in_their_window() {
    let mut s = Sampler::new(1_000_000_000);
    s.add(5_000_000_000, 1);
    s.add(1_000_000_000, 2);
    s.add(5_500_000_000, 4);
    s.add(1_000_000_001, 8);
    let r = s.finish(10_000_000_000);
    let got: Vec<_> = r.windows.iter().map(|w| (w.start_ns, w.bytes)).collect();
    assert_eq!(got, vec![(1_000_000_000, 10), (5_000_000_000, 5)]);
}

#[test]
fn csv_layout() {
    let csv = timeseries_csv(&[
        ("job,1".into(), "read".into(), vec![(0, 2048, 2), (1, 0, 0)]),
        ("j2".into(), "write".into(), vec![(0, 1_048_576, 256)]),
    ]);
    let lines: Vec<_> = csv.lines().collect();
    assert_eq!(lines[0], "job,dir,second,bytes,ios,bw_kib_s,iops");
    assert_eq!(lines[1], "\"job,1\",read,0,2048,2,2,2");
    assert_eq!(lines[2], "\"job,1\",read,1,0,0,0,0");
    assert_eq!(lines[3], "j2,write,0,1048576,256,1024,256");
    assert_eq!(lines.len(), 4);
}

/// A run longer than the windows kept: the older windows fold into running
/// statistics, which come out exactly as if every sample had been kept.
#[test]
fn folded_windows_give_the_statistics_of_every_sample() {
    let window = 1_000_000u64;
    let n = 3 * MAX_KEPT_WINDOWS as u64 + 17;
    let mut s = Sampler::new(window);
    let (mut bw, mut iops) = (Vec::new(), Vec::new());
    for k in 0..n {
        // Every third window is empty; the others carry 1 to 3 I/Os.
        if k % 3 == 2 {
            continue;
        }
        let ios = 1 + k % 3;
        for i in 0..ios {
            s.add(k * window + i, 4096 * (1 + k % 7));
        }
        let bytes = ios * 4096 * (1 + k % 7);
        bw.push(bytes * 1_000_000_000 / window / 1024);
        iops.push(ios * 1_000_000_000 / window);
    }
    assert!(s.windows.len() <= MAX_KEPT_WINDOWS, "{}", s.windows.len());
    assert!(s.folded.windows > 0);
    let series = s.finish(n * window);
    let mut d = DirStats::new();
    d.fill_samples(&series);
    assert_eq!(d.bw_stat(), IoStat::from_samples(&bw));
    assert_eq!(d.iops_stat(), IoStat::from_samples(&iops));
    let bytes: u64 = (0..n)
        .filter(|k| k % 3 != 2)
        .map(|k| (1 + k % 3) * 4096 * (1 + k % 7))
        .sum();
    assert_eq!(s.totals().0, bytes);
}

/// The per-second series keeps at most MAX_KEPT_SECONDS seconds, and says
/// how many it left out.
#[test]
fn the_per_second_series_is_capped() {
    let mut s = Sampler::fio_default();
    let extra = 1000u64;
    for sec in 0..MAX_KEPT_SECONDS as u64 + extra {
        s.add(sec * 1_000_000_000, 4096);
    }
    assert_eq!(s.seconds.len(), MAX_KEPT_SECONDS);
    assert_eq!(s.seconds_dropped, extra);
    assert_eq!(s.totals().1, MAX_KEPT_SECONDS as u64 + extra);
}
