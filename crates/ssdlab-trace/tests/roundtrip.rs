//! write → read gives the records back, up to each format's resolution.

use proptest::prelude::*;
use ssdlab_trace::{
    write_header, write_record, Format, ReadOptions, TraceOp, TraceReader, TraceRecord,
};

/// Records with non-decreasing times starting at 0 (MSR rebases to the
/// first record), ops the format can express.
fn records(trim: bool) -> impl Strategy<Value = Vec<TraceRecord>> {
    let op = if trim {
        prop_oneof![
            Just(TraceOp::Read),
            Just(TraceOp::Write),
            Just(TraceOp::Trim)
        ]
        .boxed()
    } else {
        prop_oneof![Just(TraceOp::Read), Just(TraceOp::Write)].boxed()
    };
    let one = (
        prop_oneof![0u64..10_000, 0u64..10_000_000_000, 0u64..1 << 40],
        op,
        prop_oneof![0u64..1 << 20, 0u64..1 << 50, Just(u64::MAX / 1024)],
        prop_oneof![1u32..=65536, 1u32..=(u32::MAX - 1024)],
        any::<bool>(),
    );
    prop::collection::vec(one, 1..40).prop_map(|v| {
        let mut t = 0u64;
        v.into_iter()
            .enumerate()
            .map(|(i, (dt, op, offset, len, sync))| {
                if i > 0 {
                    t += dt;
                }
                TraceRecord {
                    time_ns: t,
                    op,
                    offset,
                    len,
                    sync,
                    line: 0,
                }
            })
            .collect()
    })
}

fn roundtrip(format: Format, recs: &[TraceRecord]) -> Result<(), TestCaseError> {
    let mut buf = Vec::new();
    write_header(&mut buf, format).unwrap();
    for r in recs {
        write_record(&mut buf, format, r).unwrap();
    }
    let got: Vec<TraceRecord> = TraceReader::new(&buf[..], format, "rt", ReadOptions::default())
        .collect::<Result<_, _>>()
        .map_err(|e| TestCaseError::fail(format!("{e}\n{}", String::from_utf8_lossy(&buf))))?;
    prop_assert_eq!(got.len(), recs.len());
    let first_line = got[0].line;
    for (i, (g, r)) in got.iter().zip(recs).enumerate() {
        let mut want = format.quantize(r);
        want.line = first_line + i as u64;
        prop_assert_eq!(*g, want);
        // Quantizing never loses bytes: the extent still covers the original.
        prop_assert!(g.offset <= r.offset);
        prop_assert!(g.offset + g.len as u64 >= r.offset + r.len as u64);
        prop_assert!(r.time_ns - g.time_ns < format.time_resolution_ns());
    }
    Ok(())
}

/// Keeps only records whose quantized length still fits the u32 field.
fn representable(format: Format, recs: Vec<TraceRecord>) -> Vec<TraceRecord> {
    let mut v: Vec<_> = recs
        .into_iter()
        .filter(|r| {
            let lu = format.len_unit() as u128;
            let ou = format.offset_unit() as u128;
            let span = r.offset as u128 + r.len as u128 - (r.offset as u128 / ou * ou);
            span.div_ceil(lu) * lu <= u32::MAX as u128
        })
        .collect();
    if let Some(first) = v.first_mut() {
        first.time_ns = 0;
    }
    v
}

proptest! {
    /// Every format of the registry reads back what it wrote, up to its
    /// resolution (a new format is picked up here with no change).
    #[test]
    fn every_format_roundtrips(recs in records(true)) {
        for f in Format::ALL {
            let kept = recs.iter().filter(|r| f.supports_trim() || r.op != TraceOp::Trim);
            let recs = representable(f, kept.copied().collect());
            if !recs.is_empty() {
                roundtrip(f, &recs)?;
            }
        }
    }

    /// Aligned records come back exactly in every format.
    #[test]
    fn aligned_records_are_exact(recs in records(true)) {
        for f in Format::ALL {
            let recs: Vec<_> = recs
                .iter()
                .filter(|r| f.supports_trim() || r.op != TraceOp::Trim)
                .map(|r| TraceRecord {
                    time_ns: r.time_ns / 1_000_000 * 1_000_000,
                    offset: r.offset / 512 * 512,
                    len: (r.len / 512).max(1) * 512,
                    // Only blkparse carries the flag, and reads are always sync.
                    sync: r.sync || r.op == TraceOp::Read || f != Format::Blkparse,
                    ..*r
                })
                .collect();
            prop_assume!(!recs.is_empty());
            let mut recs = recs;
            recs[0].time_ns = 0;
            for r in &recs {
                prop_assert_eq!(f.quantize(r), *r);
            }
            roundtrip(f, &recs)?;
        }
    }
}

#[test]
fn trims_are_rejected_where_unsupported() {
    let r = TraceRecord {
        time_ns: 0,
        op: TraceOp::Trim,
        offset: 0,
        len: 4096,
        sync: true,
        line: 0,
    };
    for f in Format::ALL {
        let mut buf = Vec::new();
        let res = write_record(&mut buf, f, &r);
        assert_eq!(res.is_ok(), f.supports_trim(), "{f}");
        if let Err(e) = res {
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
            assert!(buf.is_empty());
        }
    }
}

#[test]
fn written_lines_look_like_the_originals() {
    let r = TraceRecord {
        time_ns: 1_234_567_891,
        op: TraceOp::Write,
        offset: 3417048 * 512,
        len: 4096,
        sync: true,
        line: 1,
    };
    let line = |f: Format| {
        let mut b = Vec::new();
        write_header(&mut b, f).unwrap();
        write_record(&mut b, f, &r).unwrap();
        String::from_utf8(b).unwrap()
    };
    assert_eq!(
        line(Format::Blkparse),
        "  8,0    0        1     1.234567891     0  Q  WS 3417048 + 8 [ssdlab]\n"
    );
    assert_eq!(
        line(Format::Msr),
        "128166372012345678,ssdlab,0,Write,1749528576,4096,0\n"
    );
    assert_eq!(line(Format::Spc), "0,3417048,4096,w,1.234567891\n");
    assert_eq!(line(Format::Mqsim), "1234567891 0 3417048 8 0\n");
    assert_eq!(
        line(Format::FioIolog),
        "fio version 3 iolog\n0 ssdlab.img add\n0 ssdlab.img open\n1234 ssdlab.img write 1749528576 4096\n"
    );
}
