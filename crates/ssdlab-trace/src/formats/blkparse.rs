//! blkparse default text output: `maj,min cpu seq sec.nsec pid action RWBS
//! sector + nblocks [process]`; time in seconds.nanoseconds from the trace
//! start; offset in 512 B sectors, length in 512 B blocks; RWBS `D`/`E`
//! trim, `W` write, `R` read; `S` or `F` mark REQ_SYNC.

use std::io::{self, Write};

use super::{no_header, FormatSpec};
use crate::parse::{
    bad, byte_len, fields, parse_devspec, parse_seconds, parse_u64, sector_offset, show, Ctx,
    DeviceFilter, Outcome, Parsed, RawTime,
};
use crate::types::{TraceOp, TraceRecord, SECTOR_SIZE};
use crate::write::sectors;

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "blkparse",
    supports_trim: true,
    time_resolution_ns: 1,
    offset_unit: SECTOR_SIZE,
    len_unit: SECTOR_SIZE,
    has_sync_flag: true,
    device_filter: device,
    parse: |line, ctx, _| blkparse(line, ctx),
    header: no_header,
    record: write,
};

/// `maj,min cpu seq sec.nsec pid action RWBS sector + nblocks [process]`.
/// Lines not starting with `maj,min` (summary blocks, banners) are not
/// events and are skipped; so are events other than the chosen action and
/// events without data (no `sector + n`, zero blocks, RWBS without R/W/D).
fn blkparse(line: &str, ctx: &Ctx) -> Outcome {
    let (f, n) = fields::<11>(line.split_ascii_whitespace());
    let Some(dev) = parse_devspec(f[0]) else {
        return Ok(None);
    };
    if n < 7 {
        return Err(bad(
            "fields",
            format!("expected `maj,min cpu seq time pid action RWBS …`, got {n} fields"),
        ));
    }
    if f[5] != ctx.opts.blkparse_action.code() {
        return Ok(None);
    }
    let time = parse_seconds("time", f[3])?;
    let rwbs = f[6];
    // The letters blktrace writes (kernel/trace/blktrace.c, blk_fill_rwbs):
    // F flush/FUA, W R D E N operation, A readahead, S sync, M metadata.
    if rwbs.is_empty() || !rwbs.bytes().all(|b| b"FWRDENASM".contains(&b)) {
        return Err(bad(
            "rwbs",
            format!(
                "not an RWBS flag string (letters F W R D E N A S M): {}",
                show(rwbs)
            ),
        ));
    }
    let op = if rwbs.contains(['D', 'E']) {
        TraceOp::Trim
    } else if rwbs.contains('W') {
        TraceOp::Write
    } else if rwbs.contains('R') {
        TraceOp::Read
    } else {
        return Ok(None); // flush / no-data request
    };
    if n < 8 || f[7].starts_with('[') || f[7].starts_with('(') {
        return Ok(None); // no sector: e.g. a pure flush
    }
    if n < 10 || f[8] != "+" {
        return Err(bad("fields", "expected `sector + nblocks` after RWBS"));
    }
    let sector = parse_u64("sector", f[7])?;
    let nblocks = parse_u64("nblocks", f[9])?;
    if nblocks == 0 {
        return Ok(None);
    }
    let offset = sector_offset("sector", sector)?;
    let len = byte_len("nblocks", nblocks, SECTOR_SIZE)?;
    if let DeviceFilter::Pair(a, b) = ctx.filter {
        if (*a, *b) != dev {
            return Ok(None);
        }
    }
    Ok(Some(Parsed {
        time: RawTime::Rel(time),
        op,
        offset,
        len,
        // op_is_sync: reads, and writes flagged sync, FUA or preflush.
        sync: op == TraceOp::Read || rwbs.contains(['S', 'F']),
    }))
}

/// `--trace-device maj,min` (e.g. `8,0`).
fn device(d: &str) -> Result<DeviceFilter, String> {
    parse_devspec(d)
        .map(|(a, b)| DeviceFilter::Pair(a, b))
        .ok_or_else(|| format!("expected `maj,min` (e.g. 8,0), got {}", show(d)))
}

/// One record as one line.
fn write(w: &mut dyn Write, rec: &TraceRecord) -> io::Result<()> {
    let t = rec.time_ns;
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
