//! Trace writers: the inverse of the readers, so that a generator can emit
//! any supported format.

use std::io::{self, Write};

use crate::formats::Format;
use crate::types::{TraceRecord, SECTOR_SIZE};

/// Writes what has to precede the records: `fio version 3 iolog` plus the
/// `add` / `open` lines for fio iolog; nothing for the other formats.
pub fn write_header(w: &mut impl Write, format: Format) -> io::Result<()> {
    (format.spec().header)(w)
}

/// The error for a request `format` cannot express.
pub(crate) fn unsupported(format: &str, rec: &TraceRecord) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{format} traces cannot express {:?} requests", rec.op),
    )
}

/// `(first sector, sector count)` covering the record's bytes.
pub(crate) fn sectors(rec: &TraceRecord) -> (u64, u64) {
    let start = rec.offset / SECTOR_SIZE;
    let end = (rec.offset as u128 + rec.len as u128).div_ceil(SECTOR_SIZE as u128);
    (start, (end - start as u128) as u64)
}

/// Writes one record as one line of `format`.
///
/// Times are written at the format's resolution (truncated), offsets in
/// sector formats are rounded down to 512 B and lengths grown to keep the
/// extent's end covered; see [`Format::quantize`]. Trims in formats that
/// have no trim (MSR, SPC, MQSim) are an `InvalidInput` error.
pub fn write_record(w: &mut impl Write, format: Format, rec: &TraceRecord) -> io::Result<()> {
    (format.spec().record)(w, rec)
}
