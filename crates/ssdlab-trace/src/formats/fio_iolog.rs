//! fio iolog version 2 (`file action offset length`) or 3 (`ts file action
//! offset length`); v2 has no time (0), v3 milliseconds (configurable);
//! offset and length in bytes; `read` / `write` / `trim`.

use std::io::{self, Write};

use super::FormatSpec;
use crate::parse::{
    bad, byte_len, fields, int_time, parse_u64, show, Ctx, DeviceFilter, Outcome, ParseState,
    Parsed, RawTime,
};
use crate::types::{TraceOp, TraceRecord};

pub(crate) const SPEC: FormatSpec = FormatSpec {
    name: "fio-iolog",
    supports_trim: true,
    time_resolution_ns: 1_000_000,
    offset_unit: 1,
    len_unit: 1,
    has_sync_flag: false,
    device_filter: device,
    parse: fio_iolog,
    header,
    record: write,
};

/// fio iolog v2 (`file action [offset length]`) and v3 (`ts file action
/// [offset length]`), after a `fio version N iolog` header.
fn fio_iolog(line: &str, ctx: &Ctx, st: &mut ParseState) -> Outcome {
    if let Some(rest) = line.strip_prefix("fio version ") {
        st.fio_version = match rest.trim() {
            "2 iolog" => Some(2),
            "3 iolog" => Some(3),
            _ => {
                return Err(bad(
                    "header",
                    format!("unsupported iolog version {}", show(line)),
                ))
            }
        };
        return Ok(None);
    }
    let (f, n) = fields::<6>(line.split_ascii_whitespace());
    let version = match st.fio_version {
        Some(v) => v,
        None => {
            if !st.fio_header_missing_reported {
                st.fio_header_missing_reported = true;
                return Err(bad(
                    "header",
                    "missing `fio version 2 iolog` / `fio version 3 iolog` header",
                ));
            }
            // Headerless: guess per line (v3 lines have an odd field count).
            if n == 3 || n == 5 {
                3
            } else {
                2
            }
        }
    };
    let base = if version == 3 { 1 } else { 0 };
    if n < base + 2 {
        return Err(bad(
            "fields",
            if version == 3 {
                format!("expected `timestamp filename action [offset length]`, got {n} fields")
            } else {
                format!("expected `filename action [offset length]`, got {n} fields")
            },
        ));
    }
    let time = if version == 3 {
        int_time("timestamp", f[0], ctx.opts.fio_v3_time_unit.ns())?
    } else {
        0
    };
    let fname = f[base];
    let action = f[base + 1];
    let op = if action.eq_ignore_ascii_case("read") {
        TraceOp::Read
    } else if action.eq_ignore_ascii_case("write") {
        TraceOp::Write
    } else if action.eq_ignore_ascii_case("trim") {
        TraceOp::Trim
    } else if [
        "add",
        "open",
        "close",
        "unlink",
        "wait",
        "sync",
        "datasync",
        "sync_file_range",
    ]
    .iter()
    .any(|a| action.eq_ignore_ascii_case(a))
    {
        return Ok(None);
    } else {
        return Err(bad(
            "action",
            format!("unknown iolog action {}", show(action)),
        ));
    };
    if n != base + 4 {
        return Err(bad(
            "fields",
            format!(
                "expected `{action} offset length` with {} fields, got {n}",
                base + 4
            ),
        ));
    }
    let offset = parse_u64("offset", f[base + 2])?;
    let len = byte_len("length", parse_u64("length", f[base + 3])?, 1)?;
    if let DeviceFilter::Name(want) = ctx.filter {
        if want != fname {
            return Ok(None);
        }
    }
    Parsed::direct(RawTime::Rel(time), op, offset, len)
}

/// File name used in written fio iologs (replay it on a device with fio's
/// `replay_redirect`).
pub const FIO_IOLOG_FILENAME: &str = "ssdlab.img";

/// `--trace-device NAME`: the iolog's file name, exactly.
fn device(d: &str) -> Result<DeviceFilter, String> {
    Ok(DeviceFilter::Name(d.to_string()))
}

/// The header fio writes, and the `add` / `open` lines for the file.
fn header(w: &mut dyn Write) -> io::Result<()> {
    write!(
        w,
        "fio version 3 iolog\n0 {f} add\n0 {f} open\n",
        f = FIO_IOLOG_FILENAME
    )
}

/// One record as one line (a v3 line, the time in ms).
fn write(w: &mut dyn Write, rec: &TraceRecord) -> io::Result<()> {
    let act = match rec.op {
        TraceOp::Read => "read",
        TraceOp::Write => "write",
        TraceOp::Trim => "trim",
    };
    writeln!(
        w,
        "{} {} {} {} {}",
        rec.time_ns / 1_000_000,
        FIO_IOLOG_FILENAME,
        act,
        rec.offset,
        rec.len
    )
}
