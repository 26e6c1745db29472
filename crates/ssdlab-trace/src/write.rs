//! Trace writers: the inverse of the readers, so that a generator can emit
//! any supported format.

use std::io::{self, Write};

use crate::types::{Format, TraceOp, TraceRecord, SECTOR_SIZE};

/// FILETIME written for `time_ns == 0` in MSR traces (2007-02-22, the era
/// of the MSR Cambridge traces). The reader rebases it away.
pub const MSR_FILETIME_BASE: u64 = 128_166_372_000_000_000;
/// Hostname column written in MSR traces.
pub const MSR_HOSTNAME: &str = "ssdlab";
/// File name used in written fio iologs (replay it on a device with fio's
/// `replay_redirect`).
pub const FIO_IOLOG_FILENAME: &str = "ssdlab.img";

/// Writes what has to precede the records: `fio version 3 iolog` plus the
/// `add` / `open` lines for fio iolog; nothing for the other formats.
pub fn write_header(w: &mut impl Write, format: Format) -> io::Result<()> {
    match format {
        Format::FioIolog => write!(
            w,
            "fio version 3 iolog\n0 {f} add\n0 {f} open\n",
            f = FIO_IOLOG_FILENAME
        ),
        Format::Blkparse | Format::Msr | Format::Spc | Format::Mqsim => Ok(()),
    }
}

fn unsupported(format: Format, rec: &TraceRecord) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{format} traces cannot express {:?} requests", rec.op),
    )
}

/// `(first sector, sector count)` covering the record's bytes.
fn sectors(rec: &TraceRecord) -> (u64, u64) {
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
    let t = rec.time_ns;
    match format {
        Format::Blkparse => {
            let (sector, nblocks) = sectors(rec);
            let rwbs = match (rec.op, rec.sync) {
                (TraceOp::Read, _) => "R",
                (TraceOp::Write, true) => "WS",
                (TraceOp::Write, false) => "W",
                (TraceOp::Trim, true) => "DS",
                (TraceOp::Trim, false) => "D",
            };
            writeln!(
                w,
                "{:>3},{:<3} {:>2} {:>8} {:>5}.{:09} {:>5}  Q {:>3} {} + {} [ssdlab]",
                8,
                0,
                0,
                rec.line,
                t / 1_000_000_000,
                t % 1_000_000_000,
                0,
                rwbs,
                sector,
                nblocks
            )
        }
        Format::Msr => {
            let ty = match rec.op {
                TraceOp::Read => "Read",
                TraceOp::Write => "Write",
                TraceOp::Trim => return Err(unsupported(format, rec)),
            };
            writeln!(
                w,
                "{},{},0,{},{},{},0",
                MSR_FILETIME_BASE + t / 100,
                MSR_HOSTNAME,
                ty,
                rec.offset,
                rec.len
            )
        }
        Format::Spc => {
            let op = match rec.op {
                TraceOp::Read => "r",
                TraceOp::Write => "w",
                TraceOp::Trim => return Err(unsupported(format, rec)),
            };
            let lba = rec.offset / SECTOR_SIZE;
            let size = rec.len as u64 + rec.offset % SECTOR_SIZE;
            writeln!(
                w,
                "0,{lba},{size},{op},{}.{:09}",
                t / 1_000_000_000,
                t % 1_000_000_000
            )
        }
        Format::Mqsim => {
            let ty = match rec.op {
                TraceOp::Write => 0,
                TraceOp::Read => 1,
                TraceOp::Trim => return Err(unsupported(format, rec)),
            };
            let (lba, n) = sectors(rec);
            writeln!(w, "{t} 0 {lba} {n} {ty}")
        }
        Format::FioIolog => {
            let act = match rec.op {
                TraceOp::Read => "read",
                TraceOp::Write => "write",
                TraceOp::Trim => "trim",
            };
            writeln!(
                w,
                "{} {} {} {} {}",
                t / 1_000_000,
                FIO_IOLOG_FILENAME,
                act,
                rec.offset,
                rec.len
            )
        }
    }
}
