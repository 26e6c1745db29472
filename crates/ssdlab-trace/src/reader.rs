use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use crate::error::TraceError;
use crate::formats::Format;
use crate::lines::LineReader;
use crate::parse::{Bad, Ctx, DeviceFilter, ParseState, RawTime};
use crate::types::{ReadOptions, TraceRecord};

/// Size of the `BufReader` used by [`open`].
const FILE_BUF: usize = 64 * 1024;

/// Streaming trace reader: yields one [`TraceRecord`] per request line.
///
/// Holds the underlying reader, one line buffer bounded by
/// [`ReadOptions::max_line_len`] and O(1) parsing state. After a malformed
/// line (without `skip_bad_lines`) the error is yielded and reading goes on
/// with the next line; after an I/O error the iterator ends.
pub struct TraceReader<R: BufRead> {
    lines: LineReader<R>,
    parser: LineParser,
    name: String,
    skipped: u64,
    records: u64,
    done: bool,
}

/// Everything but the input: kept apart so that a line borrowed from the
/// line reader can be parsed while the parser state is mutated.
struct LineParser {
    format: Format,
    options: ReadOptions,
    filter: Result<DeviceFilter, String>,
    state: ParseState,
    msr_base: Option<u64>,
    /// Lines of the format that are not requests (other blkparse events,
    /// flushes, headers, other devices).
    ignored: u64,
}

impl<R: BufRead> TraceReader<R> {
    /// `name` is the file name used in errors.
    pub fn new(reader: R, format: Format, name: &str, options: ReadOptions) -> Self {
        let filter = format.device_filter(options.device.as_deref());
        TraceReader {
            lines: LineReader::new(reader, options.max_line_len),
            parser: LineParser {
                format,
                options,
                filter,
                state: ParseState::default(),
                msr_base: None,
                ignored: 0,
            },
            name: name.to_string(),
            skipped: 0,
            records: 0,
            done: false,
        }
    }

    /// Malformed lines skipped so far (with `skip_bad_lines`).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Lines read that are well formed but are not requests (other blkparse
    /// events, flushes, headers, other devices); blank and comment lines
    /// are not counted.
    pub fn ignored(&self) -> u64 {
        self.parser.ignored
    }

    /// Records yielded so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Number of the last line read (1-based).
    pub fn line(&self) -> u64 {
        self.lines.line_no()
    }

    pub fn format(&self) -> Format {
        self.parser.format
    }

    pub fn options(&self) -> &ReadOptions {
        &self.parser.options
    }

    /// Capacity in bytes of the internal line buffer (bounded by
    /// `max_line_len`, whatever the input).
    pub fn buffer_capacity(&self) -> usize {
        self.lines.capacity()
    }

    fn error(&self, line: u64, field: &str, message: String) -> TraceError {
        TraceError {
            file: self.name.clone(),
            line,
            field: field.to_string(),
            message,
        }
    }
}

impl LineParser {
    /// Parses the current line.
    fn process(
        &mut self,
        bytes: &[u8],
        too_long: bool,
        line_no: u64,
        max: usize,
    ) -> Result<Option<TraceRecord>, Bad> {
        let trimmed = bytes.trim_ascii();
        if trimmed.is_empty() || trimmed[0] == b'#' {
            return Ok(None);
        }
        if too_long {
            return Err(Bad {
                field: "line",
                message: format!("line longer than {} bytes", max),
            });
        }
        let text = std::str::from_utf8(trimmed).map_err(|e| Bad {
            field: "line",
            message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
        })?;
        // A byte-order mark (CSV files saved on Windows).
        let text = match text.strip_prefix('\u{feff}') {
            Some(t) => t.trim(),
            None => text,
        };
        if text.is_empty() || text.starts_with('#') {
            return Ok(None);
        }
        // An invalid filter is reported before any line is read.
        let filter = self.filter.as_ref().unwrap_or(&DeviceFilter::Any);
        let ctx = Ctx {
            opts: &self.options,
            filter,
        };
        let Some(p) = (self.format.spec().parse)(text, &ctx, &mut self.state)? else {
            self.ignored += 1;
            return Ok(None);
        };
        let time_ns = match p.time {
            RawTime::Rel(t) => t,
            RawTime::Filetime(ticks) => {
                let base = *self.msr_base.get_or_insert(ticks);
                let d = ticks.checked_sub(base).ok_or_else(|| Bad {
                    field: "Timestamp",
                    message: format!(
                        "negative time: FILETIME {ticks} is before the first record's {base}"
                    ),
                })?;
                d.checked_mul(100).ok_or_else(|| Bad {
                    field: "Timestamp",
                    message: "time too large".to_string(),
                })?
            }
        };
        if time_ns > crate::MAX_TIME_NS {
            return Err(Bad {
                field: "time",
                message: format!(
                    "{:.0} s after the first record, beyond the longest simulated time (100 years)",
                    time_ns as f64 / 1e9
                ),
            });
        }
        Ok(Some(TraceRecord {
            time_ns,
            op: p.op,
            offset: p.offset,
            len: p.len,
            sync: p.sync,
            line: line_no,
        }))
    }
}

impl<R: BufRead> Iterator for TraceReader<R> {
    type Item = Result<TraceRecord, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if let Err(msg) = &self.parser.filter {
            self.done = true;
            let msg = msg.clone();
            return Some(Err(self.error(0, "device", msg)));
        }
        loop {
            let max = self.lines.max();
            let line = match self.lines.next_line() {
                Ok(Some(l)) => l,
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    let line = self.lines.line_no() + 1;
                    return Some(Err(self.error(line, "io", e.to_string())));
                }
            };
            let line_no = line.line_no;
            match self.parser.process(line.bytes, line.too_long, line_no, max) {
                Ok(Some(rec)) => {
                    self.records += 1;
                    return Some(Ok(rec));
                }
                Ok(None) => continue,
                Err(b) => {
                    if self.parser.options.skip_bad_lines {
                        self.skipped += 1;
                        continue;
                    }
                    return Some(Err(self.error(line_no, b.field, b.message)));
                }
            }
        }
    }
}

/// Opens `path` for streaming reading.
pub fn open(
    path: &Path,
    format: Format,
    options: ReadOptions,
) -> Result<TraceReader<BufReader<File>>, TraceError> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| TraceError {
        file: name.clone(),
        line: 0,
        field: "file".to_string(),
        message: e.to_string(),
    })?;
    Ok(TraceReader::new(
        BufReader::with_capacity(FILE_BUF, file),
        format,
        &name,
        options,
    ))
}
