//! What the line parsers share: a parsed request, a malformed field, the
//! device filter and the field readers. Each format's parser (in
//! `formats/`) takes one trimmed, non-empty, non-comment line and returns a
//! request, `None` for a line that carries no request (header, other
//! device, non-I/O event), or the malformed field.

use crate::types::{ReadOptions, TraceOp, SECTOR_SIZE};

/// A malformed field.
#[derive(Debug)]
pub(crate) struct Bad {
    pub field: &'static str,
    pub message: String,
}

pub(crate) fn bad(field: &'static str, message: impl Into<String>) -> Bad {
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

impl Parsed {
    /// A request of a format with no sync flag: as direct I/O, every
    /// request is sync.
    pub fn direct(time: RawTime, op: TraceOp, offset: u64, len: u32) -> Outcome {
        Ok(Some(Parsed {
            time,
            op,
            offset,
            len,
            sync: true,
        }))
    }
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
    pub(crate) fn num(&self, n: u64) -> bool {
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

pub(crate) fn parse_u64(field: &'static str, s: &str) -> Result<u64, Bad> {
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

pub(crate) fn parse_time_u64(field: &'static str, s: &str) -> Result<u64, Bad> {
    if s.starts_with('-') {
        return Err(bad(field, format!("negative time {}", show(s))));
    }
    parse_u64(field, s)
}

pub(crate) fn int_time(field: &'static str, s: &str, unit_ns: u64) -> Result<u64, Bad> {
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

pub(crate) fn byte_len(field: &'static str, n: u64, unit: u64) -> Result<u32, Bad> {
    if n == 0 {
        return Err(bad(field, "zero length"));
    }
    n.checked_mul(unit)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| bad(field, format!("length too large ({n} × {unit} B > 4 GiB)")))
}

pub(crate) fn sector_offset(field: &'static str, n: u64) -> Result<u64, Bad> {
    n.checked_mul(SECTOR_SIZE)
        .ok_or_else(|| bad(field, format!("offset too large ({n} sectors)")))
}

/// Collects up to `N` fields, counting all of them.
pub(crate) fn fields<'a, const N: usize>(
    it: impl Iterator<Item = &'a str>,
) -> ([&'a str; N], usize) {
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

pub(crate) fn parse_devspec(s: &str) -> Option<(u64, u64)> {
    let (a, b) = s.split_once(',')?;
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|c| c.is_ascii_digit());
    if !digits(a) || !digits(b) {
        return None;
    }
    Some((a.parse().ok()?, b.parse().ok()?))
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
