//! Unit tests of the value parsers.

use super::*;

#[test]
fn sizes_kb_base_1024() {
    for (s, v) in [
        ("4096", 4096),
        ("4096b", 4096),
        ("4096B", 4096),
        ("4k", 4096),
        ("4kb", 4096),
        ("4kB", 4096),
        ("4K", 4096),
        ("4KB", 4096),
        ("1m", 1 << 20),
        ("1024k", 1 << 20),
        ("1mi", 1_000_000),
        ("1000ki", 1_000_000),
        ("1t", 1 << 40),
        ("1ti", 1_000_000_000_000),
        ("1p", 1 << 50),
        ("0x10", 16),
        ("1.5k", 1536),
    ] {
        assert_eq!(parse_size(s, 1024), Ok(v), "{s}");
    }
}

#[test]
fn sizes_kb_base_1000() {
    for (s, v) in [
        ("4ki", 4096),
        ("4KiB", 4096),
        ("1m", 1_000_000),
        ("1000k", 1_000_000),
        ("1mi", 1 << 20),
        ("1t", 1_000_000_000_000),
        ("1ti", 1 << 40),
    ] {
        assert_eq!(parse_size(s, 1000), Ok(v), "{s}");
    }
}

#[test]
fn bad_sizes() {
    for s in [
        "",
        "k",
        "4x",
        "4kk",
        "-4k",
        "1.2.3",
        "4i",
        "99999999999999999999p",
    ] {
        assert!(parse_size(s, 1024).is_err(), "{s}");
    }
    assert!(parse_size("16777216p", 1024).unwrap_err().out_of_range);
}

#[test]
fn percentages() {
    assert_eq!(parse_size_or_pct("45%", 1024), Ok(SizeSpec::Percent(45.0)));
    assert_eq!(
        parse_size_or_pct("12.5%", 1024),
        Ok(SizeSpec::Percent(12.5))
    );
    assert_eq!(parse_size_or_pct("1g", 1024), Ok(SizeSpec::Bytes(1 << 30)));
    assert!(parse_size_or_pct("101%", 1024).unwrap_err().out_of_range);
    assert!(parse_size_or_pct("x%", 1024).is_err());
}

#[test]
fn times() {
    let s = 1_000_000_000;
    assert_eq!(parse_time("100", s), Ok(100 * s));
    assert_eq!(parse_time("100s", s), Ok(100 * s));
    assert_eq!(parse_time("2000", 1_000), Ok(2_000_000));
    assert_eq!(parse_time("2ms", 1_000), Ok(2_000_000));
    assert_eq!(parse_time("2msec", 1_000), Ok(2_000_000));
    assert_eq!(parse_time("5us", s), Ok(5_000));
    assert_eq!(parse_time("5usec", s), Ok(5_000));
    assert_eq!(parse_time("1m", s), Ok(60 * s));
    assert_eq!(parse_time("1min", s), Ok(60 * s));
    assert_eq!(parse_time("1h", s), Ok(3600 * s));
    assert_eq!(parse_time("1d", s), Ok(86400 * s));
    assert_eq!(parse_time("1.5s", s), Ok(1_500_000_000));
    assert_eq!(parse_time("10SEC", s), Ok(10 * s));
    assert!(parse_time("10 parsecs", s).is_err());
    assert_eq!(parse_time_range("1s-3s", s), Ok((s, 3 * s)));
    assert_eq!(parse_time_range("3:1", s), Ok((s, 3 * s)));
}

#[test]
fn ints_and_bools() {
    assert_eq!(parse_int("0x1f"), Ok(31));
    assert_eq!(parse_int("-5"), Ok(-5));
    assert!(parse_int("0x+5").is_err());
    assert!(parse_int("-0x-8000000000000000").is_err());
    assert!(parse_int("-9223372036854775808").unwrap_err().out_of_range);
    assert!(parse_int("abc").is_err());
    assert!(parse_int("").is_err());
    assert!(parse_int("99999999999999999999").unwrap_err().out_of_range);
    assert!(parse_int_in("8", 0, 7).unwrap_err().out_of_range);
    assert_eq!(parse_bool("1"), Ok(true));
    assert_eq!(parse_bool("0"), Ok(false));
    assert_eq!(parse_bool("0x1"), Ok(true));
    assert!(parse_bool("false").is_err(), "fio refuses words");
    assert!(parse_bool("2").is_err());
}

#[test]
fn per_dir_rule() {
    assert_eq!(split_per_dir("8k", 3).unwrap(), [Some("8k"); 3]);
    assert_eq!(
        split_per_dir("8k,32k", 3).unwrap(),
        [Some("8k"), Some("32k"), Some("32k")]
    );
    assert_eq!(
        split_per_dir("8k,32k,", 3).unwrap(),
        [Some("8k"), Some("32k"), None]
    );
    assert_eq!(
        split_per_dir(",8k", 3).unwrap(),
        [None, Some("8k"), Some("8k")]
    );
    assert_eq!(split_per_dir(",8k,", 3).unwrap(), [None, Some("8k"), None]);
    assert_eq!(
        split_per_dir("500k,", 3).unwrap(),
        [Some("500k"), None, None]
    );
    assert_eq!(
        split_per_dir("10,20", 2).unwrap(),
        [Some("10"), Some("20"), Some("20")]
    );
    assert!(split_per_dir("1,2,3,4", 3).is_err());
    assert!(split_per_dir("1,2,3", 2).is_err());
    assert!(split_per_dir(",", 3).is_err());
}

#[test]
fn bssplit() {
    assert_eq!(
        parse_bssplit("4k/10:64k/50:32k/40", 1024),
        Ok(vec![(4096, 10), (65536, 50), (32768, 40)])
    );
    assert_eq!(
        parse_bssplit("4k/50:1k/:32k/", 1024),
        Ok(vec![(4096, 50), (1024, 25), (32768, 25)])
    );
    assert_eq!(
        parse_bssplit("4k:8k:16k", 1024),
        Ok(vec![(4096, 34), (8192, 33), (16384, 33)])
    );
    assert!(parse_bssplit("4k/60:8k/50", 1024).unwrap_err().out_of_range);
    assert!(parse_bssplit("4k/101", 1024).unwrap_err().out_of_range);
    assert!(parse_bssplit("4k/x", 1024).is_err());
    assert!(parse_bssplit("0/100", 1024).is_err());
}

#[test]
fn rw_modes() {
    assert_eq!(
        parse_rw("randread:8", 1024),
        Ok((RwMode::RandRead, Some(8), None))
    );
    assert_eq!(
        parse_rw("write:4k", 1024),
        Ok((RwMode::Write, None, Some(4096)))
    );
    assert_eq!(
        parse_rw("readwrite", 1024),
        Ok((RwMode::ReadWrite, None, None))
    );
    assert!(parse_rw("randread:0", 1024).is_err());
    assert!(parse_rw("trimwrite", 1024).is_err());
    assert!(parse_rw("bogus", 1024).is_err());
}

#[test]
fn distributions() {
    use RandomDistribution::*;
    assert_eq!(parse_distribution("random", 1024), Ok((Random, None)));
    assert_eq!(parse_distribution("zipf:1.2", 1024), Ok((Zipf(1.2), None)));
    assert_eq!(
        parse_distribution("zipf:1.2:0.25", 1024),
        Ok((Zipf(1.2), Some(0.25)))
    );
    assert_eq!(
        parse_distribution("pareto:0.9", 1024),
        Ok((Pareto(0.9), None))
    );
    assert_eq!(
        parse_distribution("normal:10", 1024),
        Ok((Normal(10.0), None))
    );
    assert_eq!(
        parse_distribution("gauss:10", 1024),
        Ok((Normal(10.0), None))
    );
    assert_eq!(
        parse_distribution("zoned:60/10:30/20:8/30:2/40", 1024),
        Ok((Zoned(vec![(60, 10), (30, 20), (8, 30), (2, 40)]), None))
    );
    assert_eq!(
        parse_distribution("zoned_abs=60/20G:40/100G", 1024),
        Ok((ZonedAbs(vec![(60, 20 << 30), (40, 100 << 30)]), None))
    );
    assert!(parse_distribution("zipf:1", 1024).is_err());
    assert!(parse_distribution("zipf", 1024).is_err());
    assert!(parse_distribution("pareto:1.5", 1024).is_err());
    assert!(parse_distribution("zoned:60/10:30/20", 1024).is_err());
    assert!(parse_distribution("lognormal:1", 1024).is_err());
}

#[test]
fn percentile_lists() {
    assert_eq!(
        parse_percentiles("50:99:99.9", 20),
        Ok(vec![50.0, 99.0, 99.9])
    );
    assert!(parse_percentiles("0", 20).is_err());
    assert!(parse_percentiles("100.1", 20).is_err());
    let many = vec!["1"; 21].join(":");
    assert!(parse_percentiles(&many, 20).unwrap_err().out_of_range);
}
