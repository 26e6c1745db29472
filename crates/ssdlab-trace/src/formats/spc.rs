//! UMass / SPC CSV: `ASU,LBA,Size,Opcode,Timestamp[,…]`; time in decimal
//! seconds from the start; LBA in 512 B blocks, size in bytes; `r` / `w`.

use std::io::{self, Write};

use super::{no_header, numbered_device, FormatSpec};
use crate::parse::{
    bad, byte_len, fields, parse_seconds, parse_u64, sector_offset, show, Ctx, Outcome, Parsed,
    RawTime,
};
use crate::types::{TraceOp, TraceRecord, SECTOR_SIZE};
use crate::write::unsupported;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "spc",
    supports_trim: false,
    time_resolution_ns: 1,
    offset_unit: SECTOR_SIZE,
    len_unit: 1,
    has_sync_flag: false,
    device_filter: numbered_device,
    parse: |line, ctx, _| spc(line, ctx),
    header: no_header,
    record: write,
};

/// `ASU,LBA,Size,Opcode,Timestamp[,…]`.
fn spc(line: &str, ctx: &Ctx) -> Outcome {
    let (f, n) = fields::<5>(line.split(',').map(str::trim));
    if f[0].eq_ignore_ascii_case("asu") {
        return Ok(None); // header
    }
    if n < 5 {
        return Err(bad(
            "fields",
            format!("expected at least 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp), got {n}"),
        ));
    }
    let asu = parse_u64("ASU", f[0])?;
    let lba = parse_u64("LBA", f[1])?;
    let len = byte_len("Size", parse_u64("Size", f[2])?, 1)?;
    let op = match f[3] {
        "r" | "R" => TraceOp::Read,
        "w" | "W" => TraceOp::Write,
        other => {
            return Err(bad(
                "Opcode",
                format!("expected r or w, got {}", show(other)),
            ))
        }
    };
    let time = parse_seconds("Timestamp", f[4])?;
    let offset = sector_offset("LBA", lba)?;
    if !ctx.filter.num(asu) {
        return Ok(None);
    }
    Parsed::direct(RawTime::Rel(time), op, offset, len)
}

/// One record as one line.
fn write(w: &mut dyn Write, rec: &TraceRecord) -> io::Result<()> {
    let t = rec.time_ns;
    let op = match rec.op {
        TraceOp::Read => "r",
        TraceOp::Write => "w",
        TraceOp::Trim => return Err(unsupported("spc", rec)),
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
