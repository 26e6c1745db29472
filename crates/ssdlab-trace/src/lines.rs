//! Bounded line splitting over a `BufRead`.

use std::io::{self, BufRead};

/// The longest line scanned for its end (1 MiB); longer is not a trace.
const MAX_SCANNED_LINE_BYTES: usize = 1 << 20;

/// Splits a `BufRead` into lines without ever holding more than `max` bytes
/// of one line. Longer lines are reported as overflowing and their excess is
/// discarded while it streams past, up to [`MAX_SCANNED_LINE_BYTES`].
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    max: usize,
    line_no: u64,
    eof: bool,
}

/// One line read.
pub(crate) struct RawLine<'a> {
    /// The line (or its first `max` bytes when `too_long`), without `\n`.
    pub bytes: &'a [u8],
    pub too_long: bool,
    /// 1-based line number.
    pub line_no: u64,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        let max = max.max(1);
        LineReader {
            inner,
            buf: Vec::with_capacity(max),
            max,
            line_no: 0,
            eof: false,
        }
    }

    /// Number of the line last returned (1-based; 0 before the first).
    pub fn line_no(&self) -> u64 {
        self.line_no
    }

    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    pub fn max(&self) -> usize {
        self.max
    }

    /// Next line, `None` at the end of input.
    pub fn next_line(&mut self) -> io::Result<Option<RawLine<'_>>> {
        self.buf.clear();
        if self.eof {
            return Ok(None);
        }
        let mut too_long = false;
        let mut any = false;
        let mut scanned = 0usize;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.eof = true;
                    return Err(e);
                }
            };
            if avail.is_empty() {
                self.eof = true;
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let newline = avail.iter().position(|&b| b == b'\n');
            let chunk = match newline {
                Some(i) => &avail[..i],
                None => avail,
            };
            if !too_long {
                let room = self.max - self.buf.len();
                if chunk.len() > room {
                    self.buf.extend_from_slice(&chunk[..room]);
                    too_long = true;
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            let used = newline.map_or(avail.len(), |i| i + 1);
            scanned += chunk.len();
            self.inner.consume(used);
            // A line is skipped to its end only so far: input such as
            // /dev/zero has no end to skip to.
            if scanned > MAX_SCANNED_LINE_BYTES {
                self.eof = true;
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "line {} is longer than {} MiB: not a trace",
                        self.line_no + 1,
                        MAX_SCANNED_LINE_BYTES >> 20
                    ),
                ));
            }
            if newline.is_some() {
                break;
            }
        }
        self.line_no += 1;
        Ok(Some(RawLine {
            bytes: &self.buf,
            too_long,
            line_no: self.line_no,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_skipped_and_an_endless_one_is_an_error() {
        let mut text = vec![b'x'; 10_000];
        text.extend_from_slice(b"\nnext\n");
        let mut r = LineReader::new(&text[..], 64);
        let first = r.next_line().unwrap().unwrap();
        assert!(first.too_long && first.bytes.len() == 64);
        assert_eq!(r.next_line().unwrap().unwrap().bytes, b"next");
        let zero = std::fs::File::open("/dev/zero").unwrap();
        let mut r = LineReader::new(io::BufReader::new(zero), 64);
        let e = r.next_line().err().expect("an endless line");
        assert!(e.to_string().contains("line 1 is longer than 1 MiB"), "{e}");
        assert!(r.next_line().unwrap().is_none());
    }
}
