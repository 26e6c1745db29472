//! A 200 MB trace generated on the fly is read with bounded memory.

use std::io::{BufReader, Read, Write};

use ssdlab_trace::{
    write_record, Format, ReadOptions, TraceOp, TraceReader, TraceRecord, DEFAULT_MAX_LINE_LEN,
};

const TOTAL: u64 = 200 * 1024 * 1024;
/// Every this many records, a 1 MiB garbage line is emitted.
const GARBAGE_EVERY: u64 = 500_000;
const GARBAGE_LEN: u64 = 1 << 20;

fn record(i: u64) -> TraceRecord {
    TraceRecord {
        time_ns: i * 1_337,
        op: if i.is_multiple_of(3) {
            TraceOp::Read
        } else {
            TraceOp::Write
        },
        offset: (i * 7919 % 1_000_000) * 4096,
        len: 4096 * (1 + (i % 4) as u32),
        sync: true,
        line: i,
    }
}

/// Produces `TOTAL` bytes of trace in `format`, one small line at a time.
struct Generator {
    format: Format,
    produced: u64,
    next_record: u64,
    line: Vec<u8>,
    pos: usize,
    garbage_left: u64,
    lines: u64,
}

impl Generator {
    fn new(format: Format) -> Self {
        Generator {
            format,
            produced: 0,
            next_record: 0,
            line: Vec::with_capacity(256),
            pos: 0,
            garbage_left: 0,
            lines: 0,
        }
    }

    fn refill(&mut self) {
        self.line.clear();
        self.pos = 0;
        if self.next_record > 0
            && self.next_record.is_multiple_of(GARBAGE_EVERY)
            && self.garbage_left == 0
        {
            self.garbage_left = GARBAGE_LEN;
        }
        if self.garbage_left > 0 {
            let n = self.garbage_left.min(200);
            self.line.extend(std::iter::repeat_n(b'x', n as usize));
            self.garbage_left -= n;
            if self.garbage_left == 0 {
                self.line.push(b'\n');
                self.lines += 1;
                self.next_record += 1; // skip this index: no collision with the trigger
            }
            return;
        }
        if self.lines.is_multiple_of(1000) {
            self.line.extend_from_slice(b"# progress comment\n\n");
            self.lines += 2;
        }
        let r = record(self.next_record);
        write_record(&mut self.line, self.format, &r).unwrap();
        self.next_record += 1;
        self.lines += 1;
    }
}

impl Read for Generator {
    fn read(&mut self, mut buf: &mut [u8]) -> std::io::Result<usize> {
        let mut n = 0;
        while !buf.is_empty() && self.produced < TOTAL {
            if self.pos == self.line.len() {
                self.refill();
            }
            let avail = &self.line[self.pos..];
            let k = avail.len().min(buf.len());
            buf.write_all(&avail[..k])?;
            self.pos += k;
            self.produced += k as u64;
            n += k;
        }
        Ok(n)
    }
}

fn stream(format: Format) {
    let opts = ReadOptions {
        skip_bad_lines: true,
        ..ReadOptions::default()
    };
    let input = BufReader::with_capacity(8192, Generator::new(format));
    let mut reader = TraceReader::new(input, format, "generated", opts);
    let mut count = 0u64;
    let mut max_cap = 0;
    let mut last_time = 0;
    let mut bytes = 0u64;
    let mut prev: Option<TraceRecord> = None;
    while let Some(item) = reader.next() {
        let rec = item.expect("skip_bad_lines yields no errors");
        assert!(rec.time_ns >= last_time);
        last_time = rec.time_ns;
        // Every record but possibly the last (cut at 200 MB) is exact.
        if let Some(p) = prev.replace(rec) {
            let mut want = record(p.time_ns / 1_337);
            want.line = p.line;
            assert_eq!(p, want);
        }
        bytes += rec.len as u64;
        count += 1;
        if count.is_multiple_of(1024) {
            max_cap = max_cap.max(reader.buffer_capacity());
        }
    }
    max_cap = max_cap.max(reader.buffer_capacity());
    assert!(
        max_cap <= DEFAULT_MAX_LINE_LEN,
        "{format}: line buffer grew to {max_cap} bytes"
    );
    assert!(max_cap <= 8 * 1024);
    // ~30–80 B per line: millions of records, several garbage lines.
    assert!(count > 1_500_000, "{format}: only {count} records");
    let last_idx = last_time / 1_337;
    let garbage = last_idx / GARBAGE_EVERY;
    assert!(garbage >= 3);
    assert_eq!(count, last_idx + 1 - garbage, "{format}");
    let skipped = reader.skipped();
    assert!(
        skipped == garbage || skipped == garbage + 1,
        "{format}: {skipped} skipped, {garbage} garbage lines"
    );
    assert!(bytes > 0);
}

#[test]
fn streaming_200mb_blkparse_bounded_buffer() {
    stream(Format::Blkparse);
}

#[test]
fn streaming_200mb_mqsim_bounded_buffer() {
    stream(Format::Mqsim);
}
