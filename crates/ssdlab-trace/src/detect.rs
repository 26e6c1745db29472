//! Telling a trace's format from its first lines.
//!
//! Every format is tried on the same head of the file (at most
//! [`DETECT_LINES`] lines); the one that reads the most requests wins, with
//! fewer malformed lines breaking ties. A file none of them reads a request
//! from has no detectable format.

use std::fs::File;
use std::io::{BufReader, Cursor, Read};
use std::path::Path;

use crate::error::TraceError;
use crate::formats::Format;
use crate::lines::LineReader;
use crate::reader::TraceReader;
use crate::types::ReadOptions;

/// How many lines of the head are tried.
pub const DETECT_LINES: usize = 200;

/// What [`detect`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    pub format: Format,
    /// Requests read from the head in that format.
    pub records: u64,
    /// Lines of the head tried (blank lines and comments included).
    pub lines: u64,
}

/// How well one format reads the head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fit {
    pub format: Format,
    pub records: u64,
    pub malformed: u64,
}

/// Each format's fit on the head of `input` (at most `DETECT_LINES` lines
/// and `DETECT_LINES × max_line_len` bytes), in [`Format::ALL`] order.
pub fn fits<R: Read>(input: R, options: &ReadOptions) -> std::io::Result<(Vec<Fit>, u64)> {
    let (head, lines) = read_head(input, options.max_line_len)?;
    let tried = ReadOptions {
        skip_bad_lines: true,
        device: None,
        ..options.clone()
    };
    let fits = Format::ALL
        .iter()
        .map(|&format| {
            let mut r = TraceReader::new(Cursor::new(&head[..]), format, "", tried.clone());
            let records = r.by_ref().filter(Result::is_ok).count() as u64;
            Fit {
                format,
                records,
                malformed: r.skipped(),
            }
        })
        .collect();
    Ok((fits, lines))
}

/// The format of the trace at `path`, or an error naming the file when no
/// format reads a request from its head.
pub fn detect(path: &Path, options: &ReadOptions) -> Result<Detected, TraceError> {
    let name = path.display().to_string();
    let fail = |line: u64, message: String| TraceError {
        file: name.clone(),
        line,
        field: "format".to_string(),
        message,
    };
    let file = File::open(path).map_err(|e| fail(0, e.to_string()))?;
    let (fits, lines) = fits(BufReader::new(file), options).map_err(|e| fail(0, e.to_string()))?;
    // The most requests, then the fewest malformed lines; on a full tie the
    // earlier format in Format::ALL.
    let key = |f: &Fit| (f.records, std::cmp::Reverse(f.malformed));
    let mut best: Option<&Fit> = None;
    for f in fits.iter().filter(|f| f.records > 0) {
        if best.is_none_or(|b| key(f) > key(b)) {
            best = Some(f);
        }
    }
    let best = best.ok_or_else(|| {
        fail(
            0,
            format!(
                "no line of the first {lines} reads as a request in any known format ({}); \
                 give --format",
                Format::NAMES.join(", ")
            ),
        )
    })?;
    Ok(Detected {
        format: best.format,
        records: best.records,
        lines,
    })
}

/// The first `DETECT_LINES` lines, read with the readers' own bounded line
/// splitter. An overlong line keeps one byte past the limit, so that the
/// readers tried on the head see it as overlong too.
fn read_head<R: Read>(input: R, max_line_len: usize) -> std::io::Result<(Vec<u8>, u64)> {
    let mut lines = LineReader::new(BufReader::new(input), max_line_len);
    let mut head = Vec::new();
    let mut n = 0u64;
    while (n as usize) < DETECT_LINES {
        let Some(line) = lines.next_line()? else {
            break;
        };
        head.extend_from_slice(line.bytes);
        if line.too_long {
            head.push(b' ');
        }
        head.push(b'\n');
        n += 1;
    }
    Ok((head, n))
}
