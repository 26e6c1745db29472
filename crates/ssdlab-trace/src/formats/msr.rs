//! MSR Cambridge CSV as distributed by SNIA:
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`; time in
//! Windows FILETIME (100 ns), rebased to the first record; offset and size
//! in bytes; `Read` / `Write`.

use std::io::{self, Write};

use super::{no_header, numbered_device, FormatSpec};
use crate::parse::{
    bad, byte_len, fields, parse_time_u64, parse_u64, show, Ctx, Outcome, Parsed, RawTime,
};
use crate::types::{TraceOp, TraceRecord};
use crate::write::unsupported;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "msr",
    supports_trim: false,
    time_resolution_ns: 100,
    offset_unit: 1,
    len_unit: 1,
    has_sync_flag: false,
    device_filter: numbered_device,
    parse: |line, ctx, _| msr(line, ctx),
    header: no_header,
    record: write,
};

/// `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
fn msr(line: &str, ctx: &Ctx) -> Outcome {
    let (f, n) = fields::<7>(line.split(',').map(str::trim));
    if n != 7 {
        if f[0].eq_ignore_ascii_case("timestamp") {
            return Ok(None);
        }
        return Err(bad(
            "fields",
            format!("expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), got {n}"),
        ));
    }
    if f[0].eq_ignore_ascii_case("timestamp") {
        return Ok(None); // header
    }
    let ticks = parse_time_u64("Timestamp", f[0])?;
    let disk = parse_u64("DiskNumber", f[2])?;
    let op = if f[3].eq_ignore_ascii_case("read") {
        TraceOp::Read
    } else if f[3].eq_ignore_ascii_case("write") {
        TraceOp::Write
    } else {
        return Err(bad(
            "Type",
            format!("expected Read or Write, got {}", show(f[3])),
        ));
    };
    let offset = parse_u64("Offset", f[4])?;
    let len = byte_len("Size", parse_u64("Size", f[5])?, 1)?;
    parse_u64("ResponseTime", f[6])?;
    if !ctx.filter.num(disk) {
        return Ok(None);
    }
    Parsed::direct(RawTime::Filetime(ticks), op, offset, len)
}

/// FILETIME written for `time_ns == 0` (2007-02-22, the era of the MSR
/// Cambridge traces). The reader rebases it away.
pub const MSR_FILETIME_BASE: u64 = 128_166_372_000_000_000;
/// Hostname column written.
pub const MSR_HOSTNAME: &str = "ssdlab";

/// One record as one line.
fn write(w: &mut dyn Write, rec: &TraceRecord) -> io::Result<()> {
    let t = rec.time_ns;
    let ty = match rec.op {
        TraceOp::Read => "Read",
        TraceOp::Write => "Write",
        TraceOp::Trim => return Err(unsupported("msr", rec)),
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
