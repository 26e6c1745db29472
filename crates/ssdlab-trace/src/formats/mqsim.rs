//! MQSim / DiskSim ASCII: `arrival_time device start_LBA size type`; time
//! in ns (configurable); LBA and size in 512 B sectors; `0` write, `1`
//! read.

use std::io::{self, Write};

use super::{no_header, numbered_device, FormatSpec};
use crate::parse::{
    bad, byte_len, fields, int_time, parse_u64, sector_offset, show, Ctx, Outcome, Parsed, RawTime,
};
use crate::types::{TraceOp, TraceRecord, SECTOR_SIZE};
use crate::write::{sectors, unsupported};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "mqsim",
    supports_trim: false,
    time_resolution_ns: 1,
    offset_unit: SECTOR_SIZE,
    len_unit: SECTOR_SIZE,
    has_sync_flag: false,
    device_filter: numbered_device,
    parse: |line, ctx, _| mqsim(line, ctx),
    header: no_header,
    record: write,
};

/// `arrival_time device start_LBA size type` (type 0 = write, 1 = read).
fn mqsim(line: &str, ctx: &Ctx) -> Outcome {
    let (f, n) = fields::<5>(line.split_ascii_whitespace());
    if n != 5 {
        return Err(bad(
            "fields",
            format!("expected 5 fields (arrival_time device start_LBA size type), got {n}"),
        ));
    }
    let time = int_time("arrival_time", f[0], ctx.opts.mqsim_time_unit.ns())?;
    let dev = parse_u64("device", f[1])?;
    let lba = parse_u64("start_LBA", f[2])?;
    let len = byte_len("size", parse_u64("size", f[3])?, SECTOR_SIZE)?;
    let op = match f[4] {
        "0" => TraceOp::Write,
        "1" => TraceOp::Read,
        other => {
            return Err(bad(
                "type",
                format!("expected 0 (write) or 1 (read), got {}", show(other)),
            ))
        }
    };
    let offset = sector_offset("start_LBA", lba)?;
    if !ctx.filter.num(dev) {
        return Ok(None);
    }
    Parsed::direct(RawTime::Rel(time), op, offset, len)
}

/// One record as one line.
fn write(w: &mut dyn Write, rec: &TraceRecord) -> io::Result<()> {
    let t = rec.time_ns;
    let ty = match rec.op {
        TraceOp::Write => 0,
        TraceOp::Read => 1,
        TraceOp::Trim => return Err(unsupported("mqsim", rec)),
    };
    let (lba, n) = sectors(rec);
    writeln!(w, "{t} 0 {lba} {n} {ty}")
}
