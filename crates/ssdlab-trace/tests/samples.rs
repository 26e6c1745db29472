//! Hand-written sample traces, one per format, parsed to known records.

use std::path::PathBuf;

use ssdlab_trace::{
    open, BlkparseAction, Format, ReadOptions, TimeUnit, TraceOp, TraceReader, TraceRecord,
};
use TraceOp::{Read as R, Trim as T, Write as W};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn read(name: &str, format: Format, opts: ReadOptions) -> Vec<TraceRecord> {
    let reader = open(&data(name), format, opts).expect("open");
    let mut out = Vec::new();
    for r in reader {
        out.push(r.unwrap_or_else(|e| panic!("{e}")));
    }
    out
}

fn rec(time_ns: u64, op: TraceOp, offset: u64, len: u32, line: u64) -> TraceRecord {
    TraceRecord {
        time_ns,
        op,
        offset,
        len,
        sync: true,
        line,
    }
}

/// The same record, not REQ_SYNC (write-back, a plain discard).
fn unsynced(r: TraceRecord) -> TraceRecord {
    TraceRecord { sync: false, ..r }
}

fn dev(d: &str) -> ReadOptions {
    ReadOptions {
        device: Some(d.to_string()),
        ..ReadOptions::default()
    }
}

#[test]
fn blkparse_queue_events() {
    let got = read("sample.blkparse", Format::Blkparse, ReadOptions::default());
    assert_eq!(
        got,
        vec![
            rec(0, W, 3417048 * 512, 4096, 3),
            rec(1_000_000, R, 1024 * 512, 8192, 9),
            unsynced(rec(2_000_000, W, 2048 * 512, 131072, 11)),
            unsynced(rec(3_000_000, T, 4096 * 512, 1 << 20, 13)),
            rec(5_123_456, R, 9000 * 512, 4096, 16),
            rec(1_500_000_000, T, 100 * 512, 4096, 19),
            rec(2_000_000_000, W, 500 * 512, 4096, 20),
        ]
    );
}

#[test]
fn blkparse_issue_and_complete_events() {
    let issue = ReadOptions {
        blkparse_action: BlkparseAction::Issue,
        ..ReadOptions::default()
    };
    assert_eq!(
        read("sample.blkparse", Format::Blkparse, issue),
        vec![
            rec(4_000, W, 3417048 * 512, 4096, 7),
            rec(1_000_500, R, 1024 * 512, 8192, 10),
        ]
    );
    let complete = ReadOptions {
        blkparse_action: BlkparseAction::Complete,
        ..ReadOptions::default()
    };
    assert_eq!(
        read("sample.blkparse", Format::Blkparse, complete),
        vec![rec(120_000, W, 3417048 * 512, 4096, 8)]
    );
}

#[test]
fn blkparse_device_filter() {
    assert_eq!(
        read("sample.blkparse", Format::Blkparse, dev("8,16")),
        vec![unsynced(rec(2_000_000, W, 2048 * 512, 131072, 11))]
    );
    assert_eq!(
        read("sample.blkparse", Format::Blkparse, dev("8,0")).len(),
        6
    );
}

#[test]
fn msr_rebased_filetime_crlf() {
    let got = read("sample.msr.csv", Format::Msr, ReadOptions::default());
    assert_eq!(
        got,
        vec![
            rec(0, R, 383496192, 32768, 3),
            rec(1_332_052_600, W, 3221225472, 4096, 4),
            rec(1_332_052_600, W, 8192, 512, 5),
            rec(2_332_061_600, W, 1048576, 65536, 7),
            rec(3_332_061_600, R, 0, 4096, 8),
            rec(3_332_071_600, R, 512, 1024, 10),
        ]
    );
}

#[test]
fn msr_device_filter_rebases_to_first_kept_record() {
    assert_eq!(
        read("sample.msr.csv", Format::Msr, dev("1")),
        vec![
            rec(0, W, 8192, 512, 5),
            rec(2_000_019_000, R, 512, 1024, 10)
        ]
    );
}

#[test]
fn spc_sample() {
    let got = read("sample.spc", Format::Spc, ReadOptions::default());
    assert_eq!(
        got,
        vec![
            rec(0, W, 303567 * 512, 3584, 3),
            rec(0, R, 55590 * 512, 3072, 4),
            rec(26_214_000, W, 303574 * 512, 4096, 5),
            rec(26_214_000, R, 1123 * 512, 512, 7),
            rec(1_500_000_000, W, 303581 * 512, 8192, 8),
            rec(12_000_000_001, R, 0, 65536, 9),
        ]
    );
    assert_eq!(
        read("sample.spc", Format::Spc, dev("0"))
            .iter()
            .map(|r| r.line)
            .collect::<Vec<_>>(),
        vec![3, 5, 8]
    );
}

#[test]
fn mqsim_sample() {
    let got = read("sample.mqsim", Format::Mqsim, ReadOptions::default());
    assert_eq!(
        got,
        vec![
            rec(0, R, 1024 * 512, 4096, 3),
            rec(1000, W, 2048 * 512, 8192, 4),
            rec(250_000, W, 4096 * 512, 4096, 5),
            rec(1_000_000_000, R, 0, 131072, 7),
            rec(1_000_000_500, W, 7 * 512, 512, 8),
        ]
    );
    let us = ReadOptions {
        mqsim_time_unit: TimeUnit::Us,
        device: Some("1".into()),
        ..ReadOptions::default()
    };
    assert_eq!(
        read("sample.mqsim", Format::Mqsim, us),
        vec![rec(250_000_000, W, 4096 * 512, 4096, 5)]
    );
}

#[test]
fn fio_iolog_v3_sample() {
    let got = read("sample_v3.iolog", Format::FioIolog, ReadOptions::default());
    assert_eq!(
        got,
        vec![
            rec(1_000_000, W, 0, 4096, 5),
            rec(2_000_000, R, 4096, 8192, 6),
            rec(5_000_000, T, 1048576, 65536, 8),
            rec(12_000_000, W, 8192, 131072, 11),
            rec(12_000_000, W, 0, 4096, 12),
        ]
    );
    let filtered = ReadOptions {
        device: Some("/tmp/other".into()),
        fio_v3_time_unit: TimeUnit::Us,
        ..ReadOptions::default()
    };
    assert_eq!(
        read("sample_v3.iolog", Format::FioIolog, filtered),
        vec![rec(12_000, W, 0, 4096, 12)]
    );
}

#[test]
fn fio_iolog_v2_sample_has_no_time() {
    let got = read("sample_v2.iolog", Format::FioIolog, ReadOptions::default());
    assert_eq!(
        got,
        vec![
            rec(0, W, 0, 4096, 4),
            rec(0, R, 4096, 4096, 6),
            rec(0, T, 8192, 4096, 9),
        ]
    );
}

#[test]
fn reader_from_memory_and_counters() {
    let text = "# c\n\n0 0 8 8 1\n5 0 16 8 0";
    let mut r = TraceReader::new(
        text.as_bytes(),
        Format::Mqsim,
        "mem",
        ReadOptions::default(),
    );
    assert_eq!(r.next().unwrap().unwrap(), rec(0, R, 4096, 4096, 3));
    // Last line without a trailing newline.
    assert_eq!(r.next().unwrap().unwrap(), rec(5, W, 8192, 4096, 4));
    assert!(r.next().is_none());
    assert!(r.next().is_none());
    assert_eq!(r.records(), 2);
    assert_eq!(r.skipped(), 0);
    assert_eq!(r.line(), 4);
}

#[test]
fn format_names() {
    for (f, n) in Format::ALL.iter().zip(Format::NAMES) {
        assert_eq!(n.parse::<Format>().unwrap(), *f);
        assert_eq!(f.to_string(), *n);
    }
    assert_eq!("FIO-IOLOG".parse::<Format>().unwrap(), Format::FioIolog);
    let e = "csv".parse::<Format>().unwrap_err();
    assert!(e
        .to_string()
        .contains("blkparse, msr, spc, mqsim, fio-iolog"));
}

#[test]
fn open_missing_file_is_an_error() {
    let e = match open(&data("does-not-exist"), Format::Msr, ReadOptions::default()) {
        Err(e) => e,
        Ok(_) => panic!("opened a missing file"),
    };
    assert_eq!(e.line, 0);
    assert_eq!(e.field, "file");
    assert!(e.to_string().contains("does-not-exist:0: file: "));
}

#[test]
fn utf8_bom_is_ignored() {
    let text = "\u{feff}Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\r\n\
                128166372003061629,hm,0,Read,0,512,1\r\n";
    let got: Vec<_> = TraceReader::new(text.as_bytes(), Format::Msr, "bom", ReadOptions::default())
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(got, vec![rec(0, R, 0, 512, 2)]);
    let text = "\u{feff}0 0 8 8 1\n";
    let got: Vec<_> = TraceReader::new(
        text.as_bytes(),
        Format::Mqsim,
        "bom",
        ReadOptions::default(),
    )
    .collect::<Result<_, _>>()
    .unwrap();
    assert_eq!(got, vec![rec(0, R, 4096, 4096, 1)]);
}
