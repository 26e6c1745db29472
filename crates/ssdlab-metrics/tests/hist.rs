use proptest::prelude::*;
use ssdlab_metrics::*;

/// Independent, loop-based model of fio's buckets: (index, representative).
fn naive_bucket(v: u64) -> (usize, u64) {
    if v < 128 {
        return (v as usize, v);
    }
    let mut e = 1u32; // error bits: bucket width 2^e, group covers [2^(e+6), 2^(e+7))
    while e + 7 < 64 && v >= (1u64 << (e + 7)) {
        e += 1;
    }
    let lo = 1u64 << (e + 6);
    let k = (v - lo) >> e;
    let idx = (e as usize + 1) * 64 + k as usize;
    if idx >= FIO_IO_U_PLAT_NR {
        let top = FIO_IO_U_PLAT_NR - 1;
        // last group: e = 27, k = 63
        let rep = (1u64 << 33) + 63 * (1u64 << 27) + (1u64 << 26);
        return (top, rep);
    }
    (idx, lo + k * (1u64 << e) + (1u64 << (e - 1)))
}

/// fio's percentile definition, naively: the bucket of the r-th smallest
/// sample, r being the first rank with r >= p/100 * N.
fn naive_percentiles(values: &[u64], plist: &[f64]) -> Vec<(f64, u64)> {
    let mut v = values.to_vec();
    v.sort_unstable();
    let n = v.len() as f64;
    let mut ps = plist.to_vec();
    ps.sort_by(|a, b| a.partial_cmp(b).unwrap());
    ps.iter()
        .map(|&p| {
            let thr = p / 100.0 * n;
            let r = (1..=v.len()).find(|&r| r as f64 >= thr).unwrap();
            (p, naive_bucket(v[r - 1]).1)
        })
        .collect()
}

#[test]
fn values_below_128_are_exact() {
    for v in 0..128u64 {
        assert_eq!(plat_val_to_idx(v), v as usize);
        assert_eq!(plat_idx_to_val(v as usize), v);
    }
    assert_eq!(FIO_IO_U_PLAT_NR, 1856);
}

#[test]
fn known_buckets() {
    // 1000 ns: msb 9, error bits 3, bucket [1000, 1008), midpoint 1004.
    assert_eq!(plat_idx_to_val(plat_val_to_idx(1000)), 1004);
    assert_eq!(plat_idx_to_val(plat_val_to_idx(255)), 255);
    assert_eq!(plat_idx_to_val(plat_val_to_idx(254)), 255);
    // overflow goes to the top bucket
    assert_eq!(plat_val_to_idx(1u64 << 34), FIO_IO_U_PLAT_NR - 1);
    assert_eq!(plat_val_to_idx(1u64 << 40), FIO_IO_U_PLAT_NR - 1);
}

#[test]
fn percentiles_of_uniform_sample_match_naive_fio() {
    let mut h = FioHistogram::new();
    let values: Vec<u64> = (1..=10_000).collect();
    for &v in &values {
        h.record(v);
    }
    let got = h.percentiles(&DEFAULT_PERCENTILES);
    let want = naive_percentiles(&values, &DEFAULT_PERCENTILES);
    assert_eq!(got, want);
    // By hand: 5000 has msb 12, so 6 error bits: bucket [4992, 5056), midpoint 5024.
    assert_eq!(got[6], (50.0, 5024));
    assert_eq!(got[0], (1.0, 100)); // exact region
    assert_eq!(h.count(), 10_000);
    assert_eq!(h.min(), 1);
    assert_eq!(h.max(), 10_000);
    assert_eq!(h.sum, 50_005_000);
    assert!((h.mean() - 5000.5).abs() < 1e-9);
    // stddev with n-1 of 1..=N: sqrt(N(N+1)/12)
    let sd = ((10_000.0f64 * 10_001.0) / 12.0).sqrt();
    assert!((h.stddev() - sd).abs() < 1e-6, "{} vs {}", h.stddev(), sd);
}

#[test]
fn percentile_list_is_sorted_and_cut_like_fio() {
    let mut h = FioHistogram::new();
    for v in 1..=100 {
        h.record(v);
    }
    let got = h.percentiles(&[90.0, 10.0, 0.0, 50.0]);
    assert_eq!(got, vec![(10.0, 10), (90.0, 90)]);
    assert!(FioHistogram::new().percentiles(&[50.0]).is_empty());
    assert_eq!(h.percentiles(&[100.0]), vec![(100.0, 100)]);
}

#[test]
fn lat_dist_buckets_follow_fio() {
    let mut h = FioHistogram::new();
    for v in [
        0,
        1,
        2,
        999,
        1000,
        1999,
        2000,
        999_999,
        1_000_000,
        1_999_999_999,
        2_000_000_000,
    ] {
        h.record(v);
    }
    let d = &h.lat_dist;
    assert_eq!(d.ns[0], 2); // 0, 1
    assert_eq!(d.ns[1], 1); // 2
    assert_eq!(d.ns[9], 1); // 999
    assert_eq!(d.us[0], 2); // 1000, 1999 ns -> 1 us
    assert_eq!(d.us[1], 1); // 2 us
    assert_eq!(d.us[9], 1); // 999 us
    assert_eq!(d.ms[0], 1); // 1 ms
    assert_eq!(d.ms[10], 1); // 1999 ms
    assert_eq!(d.ms[11], 1); // >= 2000 ms
}

proptest! {
    #[test]
    fn bucket_matches_naive_model(v in 0u64..(1u64 << 40)) {
        let (idx, rep) = naive_bucket(v);
        prop_assert_eq!(plat_val_to_idx(v), idx);
        prop_assert_eq!(plat_idx_to_val(idx), rep);
    }

    #[test]
    fn representative_within_1_128(v in 128u64..(1u64 << 34)) {
        let rep = plat_idx_to_val(plat_val_to_idx(v));
        let err = (rep as f64 - v as f64).abs() / v as f64;
        prop_assert!(err <= 1.0 / 128.0, "v={} rep={} err={}", v, rep, err);
    }

    #[test]
    fn beyond_range_is_top_bucket(v in (1u64 << 34)..u64::MAX) {
        prop_assert_eq!(plat_val_to_idx(v), FIO_IO_U_PLAT_NR - 1);
    }

    #[test]
    fn bucket_index_is_monotone(a in 0u64..(1u64 << 40), b in 0u64..(1u64 << 40)) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(plat_val_to_idx(lo) <= plat_val_to_idx(hi));
    }

    #[test]
    fn value_lies_in_its_bucket(v in 0u64..(1u64 << 34)) {
        // the representative of the next bucket is above v, of the previous below
        let i = plat_val_to_idx(v);
        if i + 1 < FIO_IO_U_PLAT_NR {
            prop_assert!(plat_idx_to_val(i + 1) > v);
        }
        if i > 0 {
            prop_assert!(plat_idx_to_val(i - 1) < v);
        }
    }

    #[test]
    fn merge_equals_recording_in_one(
        a in proptest::collection::vec(0u64..(1u64 << 36), 0..200),
        b in proptest::collection::vec(0u64..(1u64 << 36), 0..200),
    ) {
        let mut ha = FioHistogram::new();
        let mut hb = FioHistogram::new();
        let mut all = FioHistogram::new();
        for &v in &a { ha.record(v); all.record(v); }
        for &v in &b { hb.record(v); all.record(v); }
        ha.merge(&hb);
        prop_assert_eq!(&ha.buckets, &all.buckets);
        prop_assert_eq!(ha.count(), all.count());
        prop_assert_eq!(ha.min(), all.min());
        prop_assert_eq!(ha.max(), all.max());
        prop_assert_eq!(ha.sum, all.sum);
        prop_assert_eq!(ha.sum_sq, all.sum_sq);
        prop_assert_eq!(&ha.lat_dist, &all.lat_dist);
        prop_assert_eq!(ha.percentiles(&DEFAULT_PERCENTILES), all.percentiles(&DEFAULT_PERCENTILES));
        let tol = 1e-9 * all.mean().abs().max(1.0);
        prop_assert!((ha.mean() - all.mean()).abs() <= tol);
        let tol = 1e-6 * all.stddev().max(1.0);
        prop_assert!((ha.stddev() - all.stddev()).abs() <= tol);
    }

    #[test]
    fn percentiles_match_naive(values in proptest::collection::vec(0u64..(1u64 << 30), 1..300)) {
        let mut h = FioHistogram::new();
        for &v in &values { h.record(v); }
        let plist = [1.0, 25.0, 50.0, 75.0, 99.0, 100.0];
        prop_assert_eq!(h.percentiles(&plist), naive_percentiles(&values, &plist));
    }
}

/// `naive_bucket` without fio's clamp at 2^34 ns.
fn naive_ext_rep(v: u64) -> u64 {
    if v < 128 {
        return v;
    }
    let e = 63 - v.leading_zeros() - 6;
    let lo = 1u128 << (e + 6);
    let k = (v as u128 - lo) >> e;
    u64::try_from(lo + k * (1u128 << e) + (1u128 << (e - 1))).unwrap_or(u64::MAX)
}

#[test]
fn percentiles_are_right_past_seventeen_seconds() {
    // Once every percentile of a run with 30 s latencies read 17113 ms.
    let mut h = FioHistogram::new();
    for _ in 0..99 {
        h.record(30_000_000_000);
    }
    h.record(3_600_000_000_000);
    let p = h.percentiles(&[50.0, 100.0]);
    let rel = |got: u64, want: f64| (got as f64 - want).abs() / want;
    assert!(rel(p[0].1, 3e10) < 1.0 / 128.0, "{p:?}");
    assert!(rel(p[1].1, 3.6e12) < 1.0 / 128.0, "{p:?}");
    // fio's own bucket layout keeps them in its last bucket.
    let fio = h.fio_buckets();
    assert_eq!(fio.len(), FIO_IO_U_PLAT_NR);
    assert_eq!(fio[FIO_IO_U_PLAT_NR - 1], 100);
    assert!(h.buckets.is_empty(), "nothing below 2^34 ns was recorded");
}

#[test]
fn an_unused_histogram_holds_no_buckets() {
    let h = FioHistogram::new();
    assert!(h.buckets.is_empty() && h.beyond.is_empty());
    assert_eq!(h.percentiles(&DEFAULT_PERCENTILES), vec![]);
    let mut m = FioHistogram::new();
    m.merge(&h);
    assert!(m.buckets.is_empty());
}

#[test]
fn the_largest_value_has_a_bucket() {
    let mut h = FioHistogram::new();
    h.record(u64::MAX);
    assert_eq!(plat_val_to_ext_idx(u64::MAX), 3775);
    let p = h.percentiles(&[50.0]);
    assert!(p[0].1 > 1u64 << 63, "{p:?}");
}

proptest! {
    #[test]
    fn continued_scheme_agrees_with_fio_inside_its_range(v in 0u64..(1u64 << 34)) {
        prop_assert_eq!(plat_val_to_ext_idx(v), plat_val_to_idx(v));
        prop_assert_eq!(plat_ext_idx_to_val(plat_val_to_ext_idx(v)), plat_idx_to_val(plat_val_to_idx(v)));
    }

    #[test]
    fn percentiles_match_naive_at_any_latency(
        values in proptest::collection::vec(
            prop_oneof![0u64..(1u64 << 34), (1u64 << 34)..u64::MAX], 1..300),
    ) {
        let mut h = FioHistogram::new();
        for &v in &values { h.record(v); }
        let plist = [1.0, 25.0, 50.0, 75.0, 99.0, 100.0];
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let n = sorted.len() as f64;
        let want: Vec<(f64, u64)> = plist
            .iter()
            .map(|&p| {
                let r = (1..=sorted.len()).find(|&r| r as f64 >= p / 100.0 * n).unwrap();
                (p, naive_ext_rep(sorted[r - 1]))
            })
            .collect();
        prop_assert_eq!(h.percentiles(&plist), want);
    }
}
