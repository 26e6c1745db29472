//! Per-format line parsers. Each takes one trimmed, non-empty, non-comment
//! line and returns a request, `None` for a line that carries no request
//! (header, other device, non-I/O event), or the malformed field.

use crate::types::{Format, ReadOptions, TraceOp, SECTOR_SIZE};

/// A malformed field.
#[derive(Debug)]
pub(crate) struct Bad {
    pub field: &'static str,
    pub message: String,
}

fn bad(field: &'static str, message: impl Into<String>) -> Bad {
    Bad {
        field,
        message: message.into(),
    }
}

/// Time as found on the line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RawTime {
    /// Nanoseconds from the trace start.
    Rel(u64),
    /// Windows FILETIME ticks (100 ns), to be rebased.
    Filetime(u64),
}

#[derive(Debug)]
pub(crate) struct Parsed {
    pub time: RawTime,
    pub op: TraceOp,
    pub offset: u64,
    pub len: u32,
    pub sync: bool,
}

pub(crate) type Outcome = Result<Option<Parsed>, Bad>;

/// Device filter, resolved for one format.
#[derive(Debug, Clone)]
pub(crate) enum DeviceFilter {
    Any,
    Num(u64),
    Pair(u64, u64),
    Name(String),
}

impl DeviceFilter {
    pub fn new(format: Format, device: Option<&str>) -> Result<Self, String> {
        let Some(d) = device else {
            return Ok(DeviceFilter::Any);
        };
        let d = d.trim();
        match format {
            Format::Blkparse => parse_devspec(d)
                .map(|(a, b)| DeviceFilter::Pair(a, b))
                .ok_or_else(|| format!("expected `maj,min` (e.g. 8,0), got {}", show(d))),
            Format::Msr | Format::Spc | Format::Mqsim => d
                .parse::<u64>()
                .map(DeviceFilter::Num)
                .map_err(|_| format!("expected a device number, got {}", show(d))),
            Format::FioIolog => Ok(DeviceFilter::Name(d.to_string())),
        }
    }

    fn num(&self, n: u64) -> bool {
        match self {
            DeviceFilter::Num(m) => *m == n,
            _ => true,
        }
    }
}

/// Mutable per-reader parsing state (O(1)).
#[derive(Debug, Default)]
pub(crate) struct ParseState {
    pub fio_version: Option<u8>,
    pub fio_header_missing_reported: bool,
}

pub(crate) struct Ctx<'a> {
    pub opts: &'a ReadOptions,
    pub filter: &'a DeviceFilter,
}

/// Short quoted rendering of a field for messages.
pub(crate) fn show(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        format!("{s:?}")
    } else {
        let t: String = s.chars().take(MAX).collect();
        format!("{t:?}…")
    }
}

fn parse_u64(field: &'static str, s: &str) -> Result<u64, Bad> {
    if s.is_empty() {
        return Err(bad(field, "missing value"));
    }
    if s.starts_with('-') {
        return Err(bad(field, format!("negative value {}", show(s))));
    }
    s.parse::<u64>().map_err(|e| {
        let why = match e.kind() {
            std::num::IntErrorKind::PosOverflow => "number too large",
            _ => "not an unsigned integer",
        };
        bad(field, format!("{why}: {}", show(s)))
    })
}

fn parse_time_u64(field: &'static str, s: &str) -> Result<u64, Bad> {
    if s.starts_with('-') {
        return Err(bad(field, format!("negative time {}", show(s))));
    }
    parse_u64(field, s)
}

fn int_time(field: &'static str, s: &str, unit_ns: u64) -> Result<u64, Bad> {
    parse_time_u64(field, s)?
        .checked_mul(unit_ns)
        .ok_or_else(|| bad(field, format!("time too large: {}", show(s))))
}

/// Non-negative decimal seconds (`12.000345678`, `3`, `.5`, `1e-3`) to ns.
/// Digits past the ninth decimal are truncated.
pub(crate) fn parse_seconds(field: &'static str, s: &str) -> Result<u64, Bad> {
    let body = s.strip_prefix('+').unwrap_or(s);
    if body.starts_with('-') {
        return Err(bad(field, format!("negative time {}", show(s))));
    }
    let (int_part, frac_part) = match body.split_once('.') {
        Some((a, b)) => (a, b),
        None => (body, ""),
    };
    let plain = !(int_part.is_empty() && frac_part.is_empty())
        && int_part.bytes().all(|b| b.is_ascii_digit())
        && frac_part.bytes().all(|b| b.is_ascii_digit());
    let too_large = || bad(field, format!("time too large: {}", show(s)));
    if plain {
        let secs: u64 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().map_err(|_| too_large())?
        };
        let mut frac: u64 = 0;
        for i in 0..9 {
            let d = frac_part.as_bytes().get(i).map_or(0, |b| (b - b'0') as u64);
            frac = frac * 10 + d;
        }
        return secs
            .checked_mul(1_000_000_000)
            .and_then(|n| n.checked_add(frac))
            .ok_or_else(too_large);
    }
    // Scientific notation and the like.
    let lower = body.to_ascii_lowercase();
    if body.is_empty() || lower.contains("inf") || lower.contains("nan") {
        return Err(bad(field, format!("not a time in seconds: {}", show(s))));
    }
    match body.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => {
            let ns = (v * 1e9).round();
            if ns >= 18_446_744_073_709_551_615.0 {
                Err(too_large())
            } else {
                Ok(ns as u64)
            }
        }
        Ok(v) if v < 0.0 => Err(bad(field, format!("negative time {}", show(s)))),
        _ => Err(bad(field, format!("not a time in seconds: {}", show(s)))),
    }
}

fn byte_len(field: &'static str, n: u64, unit: u64) -> Result<u32, Bad> {
    if n == 0 {
        return Err(bad(field, "zero length"));
    }
    n.checked_mul(unit)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| bad(field, format!("length too large ({n} × {unit} B > 4 GiB)")))
}

fn sector_offset(field: &'static str, n: u64) -> Result<u64, Bad> {
    n.checked_mul(SECTOR_SIZE)
        .ok_or_else(|| bad(field, format!("offset too large ({n} sectors)")))
}

/// Collects up to `N` fields, counting all of them.
fn fields<'a, const N: usize>(it: impl Iterator<Item = &'a str>) -> ([&'a str; N], usize) {
    let mut out = [""; N];
    let mut n = 0;
    for f in it {
        if n < N {
            out[n] = f;
        }
        n += 1;
    }
    (out, n)
}

fn parse_devspec(s: &str) -> Option<(u64, u64)> {
    let (a, b) = s.split_once(',')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
    if !digits(a) || !digits(b) {
        return None;
    }
    Some((a.parse().ok()?, b.parse().ok()?))
}

pub(crate) fn parse_line(format: Format, line: &str, ctx: &Ctx, st: &mut ParseState) -> Outcome {
    match format {
        Format::Blkparse => blkparse(line, ctx),
        Format::Msr => msr(line, ctx),
        Format::Spc => spc(line, ctx),
        Format::Mqsim => mqsim(line, ctx),
        Format::FioIolog => fio_iolog(line, ctx, st),
    }
}

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
    Ok(Some(Parsed {
        time: RawTime::Filetime(ticks),
        op,
        offset,
        len,
        // The format has no flag: as direct I/O, every request is sync.
        sync: true,
    }))
}

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
    Ok(Some(Parsed {
        time: RawTime::Rel(time),
        op,
        offset,
        len,
        // The format has no flag: as direct I/O, every request is sync.
        sync: true,
    }))
}

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
    Ok(Some(Parsed {
        time: RawTime::Rel(time),
        op,
        offset,
        len,
        // The format has no flag: as direct I/O, every request is sync.
        sync: true,
    }))
}

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
    Ok(Some(Parsed {
        time: RawTime::Rel(time),
        op,
        offset,
        len,
        // The format has no flag: as direct I/O, every request is sync.
        sync: true,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds() {
        assert_eq!(parse_seconds("t", "0.000000000").unwrap(), 0);
        assert_eq!(parse_seconds("t", "1.5").unwrap(), 1_500_000_000);
        assert_eq!(parse_seconds("t", "12.0000000019").unwrap(), 12_000_000_001);
        assert_eq!(parse_seconds("t", ".25").unwrap(), 250_000_000);
        assert_eq!(parse_seconds("t", "7").unwrap(), 7_000_000_000);
        assert_eq!(parse_seconds("t", "1e-3").unwrap(), 1_000_000);
        assert!(parse_seconds("t", "-1.0")
            .unwrap_err()
            .message
            .contains("negative"));
        assert!(parse_seconds("t", ".").is_err());
        assert!(parse_seconds("t", "").is_err());
        assert!(parse_seconds("t", "nan").is_err());
        assert!(parse_seconds("t", "1e300").is_err());
        assert!(parse_seconds("t", "99999999999999999999").is_err());
    }

    #[test]
    fn devspec() {
        assert_eq!(parse_devspec("8,16"), Some((8, 16)));
        assert_eq!(parse_devspec("259,0"), Some((259, 0)));
        assert_eq!(parse_devspec("CPU0"), None);
        assert_eq!(parse_devspec("8,"), None);
        assert_eq!(parse_devspec(",1"), None);
    }
}
