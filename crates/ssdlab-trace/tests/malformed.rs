//! Malformed lines: errors name the file, line and field; with
//! `skip_bad_lines` they are counted and skipped.

use ssdlab_trace::{Format, ReadOptions, TraceError, TraceReader, TraceRecord};

fn collect(
    input: &[u8],
    format: Format,
    opts: ReadOptions,
) -> (Vec<Result<TraceRecord, TraceError>>, u64) {
    let mut r = TraceReader::new(input, format, "bad.trace", opts);
    let items: Vec<_> = r.by_ref().collect();
    (items, r.skipped())
}

fn skip() -> ReadOptions {
    ReadOptions {
        skip_bad_lines: true,
        ..ReadOptions::default()
    }
}

/// `good` valid lines are followed by a comment, a blank line and `bad`, and
/// then another valid line: the error is on line `good + 3`.
fn check(format: Format, header: &str, good: &str, bad: &str, field: &str, msg: &str) {
    let text = format!("{header}{good}\n# comment\n\n{bad}\n{good}\n");
    let hdr_lines = header.lines().count() as u64;
    let bad_line = hdr_lines + 4;
    let (items, skipped) = collect(text.as_bytes(), format, ReadOptions::default());
    assert_eq!(skipped, 0);
    assert_eq!(items.len(), 3, "{format} {bad:?}: {items:?}");
    assert!(items[0].is_ok(), "{format} {good:?}: {:?}", items[0]);
    let e = items[1].clone().unwrap_err();
    assert_eq!(e.file, "bad.trace");
    assert_eq!(e.line, bad_line, "{format} {bad:?}: {e}");
    assert_eq!(e.field, field, "{format} {bad:?}: {e}");
    assert!(
        e.message.contains(msg),
        "{format} {bad:?}: {e} lacks {msg:?}"
    );
    assert_eq!(
        e.to_string(),
        format!("bad.trace:{bad_line}: {field}: {}", e.message)
    );
    assert_eq!(items[2].as_ref().unwrap().line, bad_line + 1);

    let (items, skipped) = collect(text.as_bytes(), format, skip());
    assert_eq!(skipped, 1, "{format} {bad:?}");
    assert_eq!(items.len(), 2);
    assert!(items.iter().all(|r| r.is_ok()));
}

#[test]
fn blkparse_malformed() {
    let f = Format::Blkparse;
    let good = "  8,0    1    1     0.000000000  10  Q   W 8 + 8 [x]";
    check(f, "", good, "8,0 1 2 0.1", "fields", "got 4 fields");
    check(f, "", good, "8,0 1 2 abc 10 Q W 8 + 8 [x]", "time", "");
    check(
        f,
        "",
        good,
        "8,0 1 2 -0.5 10 Q W 8 + 8 [x]",
        "time",
        "negative time",
    );
    check(f, "", good, "8,0 1 2 0.1 10 Q w 8 + 8 [x]", "rwbs", "RWBS");
    check(
        f,
        "",
        good,
        "8,0 1 2 0.1 10 Q W 8 - 8 [x]",
        "fields",
        "sector + nblocks",
    );
    check(
        f,
        "",
        good,
        "8,0 1 2 0.1 10 Q W 8 +",
        "fields",
        "sector + nblocks",
    );
    check(
        f,
        "",
        good,
        "8,0 1 2 0.1 10 Q W x8 + 8 [x]",
        "sector",
        "unsigned",
    );
    check(
        f,
        "",
        good,
        "8,0 1 2 0.1 10 Q W 8 + -8 [x]",
        "nblocks",
        "negative",
    );
    check(
        f,
        "",
        good,
        "8,0 1 2 0.1 10 Q W 8 + 8388608 [x]",
        "nblocks",
        "too large",
    );
    check(
        f,
        "",
        good,
        "8,0 1 2 0.1 10 Q W 36028797018963968 + 8 [x]",
        "sector",
        "too large",
    );
}

#[test]
fn msr_malformed() {
    let f = Format::Msr;
    let good = "128166372003061629,hm,0,Read,4096,4096,10";
    check(
        f,
        "",
        good,
        "128166372003061629,hm,0,Read,4096,4096",
        "fields",
        "got 6",
    );
    check(
        f,
        "",
        good,
        "12816637200306162x,hm,0,Read,4096,4096,10",
        "Timestamp",
        "",
    );
    check(
        f,
        "",
        good,
        "-5,hm,0,Read,4096,4096,10",
        "Timestamp",
        "negative time",
    );
    check(
        f,
        "",
        good,
        "128166372003061629,hm,zero,Read,4096,4096,10",
        "DiskNumber",
        "",
    );
    check(
        f,
        "",
        good,
        "128166372003061629,hm,0,Flush,4096,4096,10",
        "Type",
        "Read or Write",
    );
    check(
        f,
        "",
        good,
        "128166372003061629,hm,0,Read,x,4096,10",
        "Offset",
        "",
    );
    check(
        f,
        "",
        good,
        "128166372003061629,hm,0,Read,4096,0,10",
        "Size",
        "zero length",
    );
    check(
        f,
        "",
        good,
        "128166372003061629,hm,0,Read,4096,4294967296,10",
        "Size",
        "too large",
    );
    check(
        f,
        "",
        good,
        "128166372003061629,hm,0,Read,4096,4096,",
        "ResponseTime",
        "missing",
    );
    // Earlier than the first record: negative after rebasing.
    check(
        f,
        "",
        good,
        "128166372003061628,hm,0,Read,0,512,1",
        "Timestamp",
        "negative time",
    );
}

#[test]
fn spc_malformed() {
    let f = Format::Spc;
    let good = "0,100,4096,w,0.5";
    check(f, "", good, "0,100,4096,w", "fields", "got 4");
    check(f, "", good, "x,100,4096,w,0.5", "ASU", "");
    check(f, "", good, "0,1.5,4096,w,0.5", "LBA", "");
    check(f, "", good, "0,100,0,w,0.5", "Size", "zero length");
    check(f, "", good, "0,100,4096,x,0.5", "Opcode", "r or w");
    check(
        f,
        "",
        good,
        "0,100,4096,w,-0.5",
        "Timestamp",
        "negative time",
    );
    check(f, "", good, "0,100,4096,w,soon", "Timestamp", "");
}

#[test]
fn mqsim_malformed() {
    let f = Format::Mqsim;
    let good = "100 0 8 8 0";
    check(f, "", good, "100 0 8 8", "fields", "got 4");
    check(f, "", good, "100 0 8 8 0 9", "fields", "got 6");
    check(f, "", good, "-100 0 8 8 0", "arrival_time", "negative time");
    check(f, "", good, "1e3 0 8 8 0", "arrival_time", "");
    check(f, "", good, "100 a 8 8 0", "device", "");
    check(f, "", good, "100 0 b 8 0", "start_LBA", "");
    check(f, "", good, "100 0 8 0 0", "size", "zero length");
    check(f, "", good, "100 0 8 8 2", "type", "0 (write) or 1 (read)");
    check(
        f,
        "",
        good,
        "18446744073709551616 0 8 8 0",
        "arrival_time",
        "too large",
    );
}

#[test]
fn fio_iolog_malformed() {
    let f = Format::FioIolog;
    let v3 = "fio version 3 iolog\n";
    let good3 = "10 /dev/sdb write 0 4096";
    check(f, v3, good3, "10 /dev/sdb", "fields", "got 2");
    check(f, v3, good3, "x /dev/sdb write 0 4096", "timestamp", "");
    check(
        f,
        v3,
        good3,
        "-1 /dev/sdb write 0 4096",
        "timestamp",
        "negative time",
    );
    check(
        f,
        v3,
        good3,
        "10 /dev/sdb erase 0 4096",
        "action",
        "unknown",
    );
    check(f, v3, good3, "10 /dev/sdb write 0", "fields", "got 4");
    check(f, v3, good3, "10 /dev/sdb write x 4096", "offset", "");
    check(
        f,
        v3,
        good3,
        "10 /dev/sdb write 0 0",
        "length",
        "zero length",
    );
    let v2 = "fio version 2 iolog\n";
    let good2 = "/dev/sdb read 0 4096";
    check(f, v2, good2, "/dev/sdb", "fields", "got 1");
    check(f, v2, good2, "/dev/sdb read 0 4096 7", "fields", "got 5");
    check(f, v2, good2, "/dev/sdb read 0 -4096", "length", "negative");
    check(f, v2, good2, "fio version 4 iolog", "header", "unsupported");
}

#[test]
fn fio_iolog_missing_header() {
    let text = "/dev/sdb read 0 4096\n/dev/sdb write 0 4096\n5 /dev/sdb trim 0 4096\n";
    let (items, _) = collect(text.as_bytes(), Format::FioIolog, ReadOptions::default());
    let e = items[0].clone().unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (1, "header"));
    // The rest is read with the version guessed per line.
    let r1 = items[1].clone().unwrap();
    let r2 = items[2].clone().unwrap();
    assert_eq!((r1.line, r1.time_ns), (2, 0));
    assert_eq!((r2.line, r2.time_ns), (3, 5_000_000));
    let (items, skipped) = collect(text.as_bytes(), Format::FioIolog, skip());
    assert_eq!((items.len(), skipped), (2, 1));
}

#[test]
fn invalid_utf8_and_long_lines_are_bad_lines() {
    for f in Format::ALL {
        let mut text = b"\xff\xfe garbage \x80\n".to_vec();
        text.extend(std::iter::repeat_n(b'7', 100_000));
        text.extend(b"\n#");
        text.extend(std::iter::repeat_n(b'c', 10_000)); // long comment: fine
        text.extend(b"\n\xc3\x28\n");
        let (items, _) = collect(&text, f, ReadOptions::default());
        let errs: Vec<_> = items.into_iter().map(|r| r.unwrap_err()).collect();
        assert_eq!(errs.len(), 3, "{f}");
        assert_eq!((errs[0].line, errs[0].field.as_str()), (1, "line"));
        assert!(errs[0].message.contains("UTF-8"));
        assert_eq!((errs[1].line, errs[1].field.as_str()), (2, "line"));
        assert!(errs[1].message.contains("longer than 4096"));
        assert_eq!((errs[2].line, errs[2].field.as_str()), (4, "line"));
        let (items, skipped) = collect(&text, f, skip());
        assert_eq!((items.len(), skipped), (0, 3), "{f}");
    }
}

#[test]
fn blkparse_non_event_lines_are_not_bad() {
    let text = "CPU0 (sda):\n Reads Queued: 0, 0KiB\nTotal (sda):\nrandom words here\n\
                8,0 0 1 0.1 1 X W 8 / 8 [a]\n8,0 0 1 0.1 1 Q N 0 + 0 [a]\n";
    let (items, skipped) = collect(text.as_bytes(), Format::Blkparse, skip());
    assert!(items.is_empty());
    assert_eq!(skipped, 0);
}

#[test]
fn bad_device_filter() {
    for (f, d) in [
        (Format::Blkparse, "sda"),
        (Format::Msr, "disk0"),
        (Format::Spc, "-1"),
        (Format::Mqsim, "8,0"),
    ] {
        let opts = ReadOptions {
            device: Some(d.to_string()),
            ..ReadOptions::default()
        };
        let (items, _) = collect(b"1 2 3\n", f, opts);
        assert_eq!(items.len(), 1, "{f}");
        let e = items[0].clone().unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (0, "device"), "{f}");
    }
}

#[test]
fn io_error_ends_the_stream() {
    struct Failing(u8);
    impl std::io::Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0 == 0 {
                self.0 = 1;
                let s = b"0 0 8 8 0\n0 0";
                buf[..s.len()].copy_from_slice(s);
                Ok(s.len())
            } else {
                Err(std::io::Error::other("disk on fire"))
            }
        }
    }
    let r = TraceReader::new(
        std::io::BufReader::new(Failing(0)),
        Format::Mqsim,
        "f",
        ReadOptions::default(),
    );
    let items: Vec<_> = r.collect();
    assert_eq!(items.len(), 2);
    assert!(items[0].is_ok());
    let e = items[1].clone().unwrap_err();
    assert_eq!((e.line, e.field.as_str()), (2, "io"));
    assert!(e.message.contains("disk on fire"));
}
