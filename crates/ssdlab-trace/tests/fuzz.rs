//! Arbitrary input never panics, and every item is a record or an error.

use proptest::prelude::*;
use ssdlab_trace::{BlkparseAction, Format, ReadOptions, TimeUnit, TraceReader};

fn run(input: &[u8], format: Format, opts: ReadOptions) -> Result<(), TestCaseError> {
    let max_line_len = opts.max_line_len;
    let skip = opts.skip_bad_lines;
    let lines = input.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let mut r = TraceReader::new(input, format, "fuzz", opts);
    let mut items = 0u64;
    let mut last_line = 0;
    while let Some(item) = r.next() {
        items += 1;
        prop_assert!(items <= lines, "more items than lines");
        prop_assert!(r.buffer_capacity() <= max_line_len.max(1));
        match item {
            Ok(rec) => {
                prop_assert!(rec.len > 0);
                prop_assert!(rec.line > last_line && rec.line <= lines);
                last_line = rec.line;
            }
            Err(e) => {
                prop_assert!(!skip, "error despite skip_bad_lines: {}", e);
                prop_assert!(e.line > last_line && e.line <= lines);
                last_line = e.line;
                prop_assert!(!e.field.is_empty());
                let _ = e.to_string();
            }
        }
    }
    prop_assert!(r.skipped() <= lines);
    prop_assert!(r.next().is_none());
    Ok(())
}

fn all_formats(input: &[u8], max_line_len: usize) -> Result<(), TestCaseError> {
    for format in Format::ALL {
        for skip in [false, true] {
            for action in [BlkparseAction::Queue, BlkparseAction::Issue] {
                let opts = ReadOptions {
                    skip_bad_lines: skip,
                    blkparse_action: action,
                    fio_v3_time_unit: TimeUnit::S,
                    mqsim_time_unit: TimeUnit::S,
                    max_line_len,
                    ..ReadOptions::default()
                };
                run(input, format, opts)?;
            }
        }
    }
    Ok(())
}

/// Tokens that make lines look almost valid, to reach the deep paths.
fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("8,0".to_string()),
        Just("Q".to_string()),
        Just("D".to_string()),
        Just("WS".to_string()),
        Just("R".to_string()),
        Just("+".to_string()),
        Just("[fio]".to_string()),
        Just("read".to_string()),
        Just("write".to_string()),
        Just("trim".to_string()),
        Just("r".to_string()),
        Just("Write".to_string()),
        Just("fio version 3 iolog".to_string()),
        Just("fio version 2 iolog".to_string()),
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("-1".to_string()),
        Just("1e400".to_string()),
        Just("0.5".to_string()),
        Just("#".to_string()),
        Just("\u{fffd}".to_string()),
        (0u64..100_000).prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        "[0-9.,+-]{0,12}",
        "\\PC{0,8}",
    ]
}

fn structured_line() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(token(), 0..12),
        prop_oneof![Just(" "), Just(","), Just("\t"), Just("  ")],
    )
        .prop_map(|(toks, sep)| toks.join(sep))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_bytes(input in prop::collection::vec(any::<u8>(), 0..4096)) {
        all_formats(&input, 4096)?;
    }

    #[test]
    fn arbitrary_bytes_with_newlines(
        chunks in prop::collection::vec(
            prop_oneof![
                prop::collection::vec(any::<u8>(), 0..64),
                Just(b"\n".to_vec()),
                Just(b"\r\n".to_vec()),
                Just(b"\xff\xc3\x28".to_vec()),
            ],
            0..64,
        ),
        max_line_len in prop_oneof![Just(0usize), 1usize..64, Just(4096)],
    ) {
        all_formats(&chunks.concat(), max_line_len)?;
    }

    #[test]
    fn long_lines(len in 0usize..200_000, fill in any::<u8>(), tail in prop::collection::vec(any::<u8>(), 0..64)) {
        let mut input = vec![fill; len];
        input.push(b'\n');
        input.extend(tail);
        input.extend(std::iter::repeat_n(b'9', len / 2));
        all_formats(&input, 4096)?;
    }

    #[test]
    fn almost_valid_lines(lines in prop::collection::vec(structured_line(), 0..40)) {
        let text = lines.join("\n");
        all_formats(text.as_bytes(), 4096)?;
    }
}
