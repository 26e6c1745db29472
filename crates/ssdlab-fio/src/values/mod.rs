//! Parsing of option values: integers, booleans, sizes (k/m/g/t/p with
//! `kb_base`), percentages, times, per-direction lists, ranges, bssplit,
//! rw modes, engines, random distributions, float lists and CPU sets.

use crate::spec::{IoEngine, RandomDistribution, RwMode, SizeSpec};

mod cpus;
pub(crate) use cpus::{parse_cpu_list, parse_cpu_mask};

/// Why a value was rejected: malformed, or well-formed but out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ValueError {
    pub out_of_range: bool,
    pub msg: String,
}

pub(crate) type VResult<T> = Result<T, ValueError>;

pub(crate) fn malformed<T>(msg: impl Into<String>) -> VResult<T> {
    Err(ValueError {
        out_of_range: false,
        msg: msg.into(),
    })
}

pub(crate) fn out_of_range<T>(msg: impl Into<String>) -> VResult<T> {
    Err(ValueError {
        out_of_range: true,
        msg: msg.into(),
    })
}

/// A number before its unit suffix.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(u64),
    Float(f64),
}

/// Split a non-negative number (decimal, `0x` hex, or decimal fraction) from
/// its suffix.
fn split_number(s: &str) -> Option<(Num, &str)> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        let end = hex
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(hex.len());
        if end == 0 {
            return None;
        }
        let v = u64::from_str_radix(&hex[..end], 16).ok()?;
        return Some((Num::Int(v), &hex[end..]));
    }
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let num = &s[..end];
    if num.is_empty() || num == "." || num.matches('.').count() > 1 {
        return None;
    }
    if num.contains('.') {
        let f: f64 = num.parse().ok()?;
        Some((Num::Float(f), &s[end..]))
    } else {
        match num.parse::<u64>() {
            Ok(v) => Some((Num::Int(v), &s[end..])),
            // Too many digits for u64: keep as float so the caller reports range.
            Err(_) => Some((Num::Float(num.parse().ok()?), &s[end..])),
        }
    }
}

fn scale(n: Num, mult: u64, what: &str, raw: &str) -> VResult<u64> {
    match n {
        Num::Int(v) => match v.checked_mul(mult) {
            Some(r) => Ok(r),
            None => out_of_range(format!("{what} '{raw}' is too large")),
        },
        Num::Float(f) => {
            let r = (f * mult as f64).round();
            if !r.is_finite() || r >= u64::MAX as f64 {
                out_of_range(format!("{what} '{raw}' is too large"))
            } else {
                Ok(r as u64)
            }
        }
    }
}

/// A signed integer, decimal or `0x` hex.
pub(crate) fn parse_int(s: &str) -> VResult<i64> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (digits, radix) = match body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (body, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return malformed(format!("value '{s}' is not an integer"));
    }
    let Ok(v) = i64::from_str_radix(digits, radix) else {
        return out_of_range(format!("value '{s}' is too large"));
    };
    Ok(if neg { -v } else { v })
}

/// An integer within `min..=max`.
pub(crate) fn parse_int_in(s: &str, min: i64, max: i64) -> VResult<i64> {
    let v = parse_int(s)?;
    if v < min || v > max {
        return out_of_range(format!(
            "value {v} is out of range (allowed {min} to {max})"
        ));
    }
    Ok(v)
}

/// fio bools are 0/1; `true/false`, `yes/no`, `on/off` are accepted too.
/// fio's booleans are numbers, 0 or 1 (hex too); fio refuses `true`,
/// `yes` and `on`, and so does ssdlab, so that a job file runs on both.
pub(crate) fn parse_bool(s: &str) -> VResult<bool> {
    let t = s.trim().to_ascii_lowercase();
    let n = match t.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse::<u64>().ok(),
    };
    match n {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        _ => malformed(format!("value '{t}' is not a boolean: fio takes 0 or 1")),
    }
}

/// A finite float.
pub(crate) fn parse_float(s: &str) -> VResult<f64> {
    let s = s.trim();
    match s.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(f),
        _ => malformed(format!("value '{s}' is not a number")),
    }
}

/// A data size in bytes. `kb_base=1024` (default): k/m/g/t/p (with optional
/// `b`) are powers of 2 and ki/mi/… are powers of 10 (fio's compatibility
/// mode); `kb_base=1000` swaps them. Suffixes are case-insensitive.
pub(crate) fn parse_size(s: &str, kb_base: u32) -> VResult<u64> {
    let s = s.trim();
    if s.is_empty() {
        return malformed("empty value where a size is expected");
    }
    if s.starts_with('-') {
        return out_of_range(format!("size '{s}' is negative"));
    }
    let Some((n, suffix)) = split_number(s) else {
        return malformed(format!("value '{s}' is not a size"));
    };
    let lower = suffix.to_ascii_lowercase();
    let unit = lower.strip_suffix('b').unwrap_or(&lower);
    let (prefix, iec) = match unit.strip_suffix('i') {
        Some(p) if !p.is_empty() => (p, true),
        _ => (unit, false),
    };
    let exp = match prefix {
        "" if !iec => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return malformed(format!("size '{s}' has an unknown suffix '{suffix}'")),
    };
    let pow2 = (kb_base != 1000) != iec;
    let base: u64 = if pow2 { 1024 } else { 1000 };
    scale(n, base.pow(exp), "size", s)
}

/// A size, or a percentage (`50%`) of the file/device.
pub(crate) fn parse_size_or_pct(s: &str, kb_base: u32) -> VResult<SizeSpec> {
    let s = s.trim();
    if let Some(p) = s.strip_suffix('%') {
        let v = match split_number(p.trim()) {
            Some((Num::Int(v), "")) => v as f64,
            Some((Num::Float(f), "")) => f,
            _ => return malformed(format!("value '{s}' is not a percentage")),
        };
        if !(0.0..=100.0).contains(&v) {
            return out_of_range(format!("percentage '{s}' is not within 0% to 100%"));
        }
        return Ok(SizeSpec::Percent(v));
    }
    parse_size(s, kb_base).map(SizeSpec::Bytes)
}

/// A time in ns; `unit_ns` applies when no suffix is given. Suffixes
/// (case-insensitive): ns, us/usec, ms/msec, s/sec, m/min, h, d.
pub(crate) fn parse_time(s: &str, unit_ns: u64) -> VResult<u64> {
    let s = s.trim();
    if s.is_empty() {
        return malformed("empty value where a time is expected");
    }
    if s.starts_with('-') {
        return out_of_range(format!("time '{s}' is negative"));
    }
    let Some((n, suffix)) = split_number(s) else {
        return malformed(format!("value '{s}' is not a time"));
    };
    let mult = match suffix.to_ascii_lowercase().as_str() {
        "" => unit_ns,
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return malformed(format!("time '{s}' has an unknown unit '{suffix}'")),
    };
    let ns = scale(n, mult, "time", s)?;
    if ns > crate::MAX_TIME_NS {
        return out_of_range(format!(
            "time '{s}' is longer than the longest simulated time, 100 years"
        ));
    }
    Ok(ns)
}

/// Split `lo-hi` or `lo:hi`; `None` when there is no separator.
fn split_range(s: &str) -> Option<(&str, &str)> {
    let i = s.find([':', '-'])?;
    Some((&s[..i], &s[i + 1..]))
}

/// `lo-hi` / `lo:hi` times (or a single value); swapped when reversed.
pub(crate) fn parse_time_range(s: &str, unit_ns: u64) -> VResult<(u64, u64)> {
    match split_range(s.trim()) {
        Some((a, b)) => {
            let (a, b) = (parse_time(a, unit_ns)?, parse_time(b, unit_ns)?);
            Ok((a.min(b), a.max(b)))
        }
        None => {
            let v = parse_time(s, unit_ns)?;
            Ok((v, v))
        }
    }
}

/// `lo-hi` / `lo:hi` sizes; swapped when reversed.
pub(crate) fn parse_size_range(s: &str, kb_base: u32) -> VResult<(u64, u64)> {
    let s = s.trim();
    let Some((a, b)) = split_range(s) else {
        return malformed(format!("range '{s}' needs two values, as in 1k-4k"));
    };
    let (a, b) = (parse_size(a, kb_base)?, parse_size(b, kb_base)?);
    if a == 0 || b == 0 {
        return out_of_range(format!("block size range '{s}' contains 0"));
    }
    Ok((a.min(b), a.max(b)))
}

/// fio's per-direction list (read,write,trim): `8k` → all three; `8k,32k` →
/// read 8k, write and trim 32k; a blank field (`,8k` or `8k,32k,`) keeps the
/// current value for that direction. At most `max_fields` fields.
pub(crate) fn split_per_dir(s: &str, max_fields: usize) -> VResult<[Option<&str>; 3]> {
    let fields: Vec<&str> = s.split(',').map(str::trim).collect();
    if fields.len() > max_fields {
        return malformed(format!(
            "value '{s}' has {} comma-separated fields, at most {max_fields} allowed",
            fields.len()
        ));
    }
    let mut out = [None; 3];
    for (i, slot) in out.iter_mut().enumerate() {
        let f = if i < fields.len() {
            fields[i]
        } else {
            // No trailing comma: the last value applies to later directions.
            fields[fields.len() - 1]
        };
        if !f.is_empty() {
            *slot = Some(f);
        }
    }
    if max_fields < 3 {
        // Two-value options (read,write): trim mirrors write.
        out[2] = out[1];
    }
    if out.iter().all(Option::is_none) {
        return malformed("empty value");
    }
    Ok(out)
}

/// `4k/10:64k/50:32k/` — blank percentages share the remainder evenly (the
/// first blanks get the leftover units so the total is exactly 100).
pub(crate) fn parse_bssplit(s: &str, kb_base: u32) -> VResult<Vec<(u64, u32)>> {
    let mut entries: Vec<(u64, Option<u32>)> = Vec::new();
    for part in s.split(':') {
        let part = part.trim();
        if part.is_empty() {
            return malformed(format!("bssplit '{s}' has an empty entry"));
        }
        let (bs, pct) = match part.split_once('/') {
            Some((b, p)) => (b, p.trim()),
            None => (part, ""),
        };
        let bs = parse_size(bs, kb_base)?;
        if bs == 0 {
            return out_of_range(format!("bssplit entry '{part}' has block size 0"));
        }
        let pct = if pct.is_empty() {
            None
        } else {
            let v = parse_int(pct).map_err(|_| ValueError {
                out_of_range: false,
                msg: format!("bssplit percentage '{pct}' is not a whole number"),
            })?;
            if !(0..=100).contains(&v) {
                return out_of_range(format!("bssplit percentage {v} is above 100"));
            }
            Some(v as u32)
        };
        entries.push((bs, pct));
    }
    if entries.len() > 64 {
        return out_of_range("bssplit has more than 64 entries");
    }
    let given: u32 = entries.iter().filter_map(|e| e.1).sum();
    if given > 100 {
        return out_of_range(format!(
            "bssplit percentages add up to {given}%, more than 100%"
        ));
    }
    let blanks = entries.iter().filter(|e| e.1.is_none()).count() as u32;
    let rest = 100 - given;
    let share = rest.checked_div(blanks).unwrap_or(0);
    let mut extra = rest.checked_rem(blanks).unwrap_or(0);
    Ok(entries
        .into_iter()
        .map(|(bs, p)| {
            let pct = p.unwrap_or_else(|| {
                let bonus = u32::from(extra > 0);
                extra = extra.saturating_sub(1);
                share + bonus
            });
            (bs, pct)
        })
        .collect())
}

/// `rw=mode[:N]` → (mode, I/Os per random offset, bytes added per sequential I/O).
pub(crate) fn parse_rw(s: &str, kb_base: u32) -> VResult<(RwMode, Option<u64>, Option<i64>)> {
    let s = s.trim();
    let (mode, post) = match s.split_once(':') {
        Some((m, p)) => (m.trim(), Some(p.trim())),
        None => (s, None),
    };
    // fio's values are case-sensitive: `rw=RandRead` is refused by fio.
    let mode = match mode {
        "read" => RwMode::Read,
        "write" => RwMode::Write,
        "trim" => RwMode::Trim,
        "randread" => RwMode::RandRead,
        "randwrite" => RwMode::RandWrite,
        "randtrim" => RwMode::RandTrim,
        "rw" | "readwrite" => RwMode::ReadWrite,
        "randrw" => RwMode::RandRW,
        m @ ("trimwrite" | "randtrimwrite" | "filecreate" | "filestat" | "filedelete") => {
            return malformed(format!("rw mode '{m}' is not supported by ssdlab"))
        }
        m => return malformed(format!("value '{m}' is not an rw mode (read, write, trim, randread, randwrite, randtrim, rw, readwrite, randrw)")),
    };
    let Some(post) = post else {
        return Ok((mode, None, None));
    };
    if mode.is_random() {
        let n = parse_int(post)?;
        if n < 1 {
            return out_of_range(format!("rw suffix ':{post}' must be at least 1"));
        }
        Ok((mode, Some(n as u64), None))
    } else {
        // A negative skip reads or writes backwards (fio's `rw=read:-8k`).
        let (sign, size) = match post.strip_prefix('-') {
            Some(rest) => (-1, rest.trim_start()),
            None => (1, post),
        };
        let Ok(bytes) = i64::try_from(parse_size(size, kb_base)?) else {
            return out_of_range(format!("rw skip '{post}' is too large"));
        };
        Ok((mode, None, Some(sign * bytes)))
    }
}

/// `ioengine=`.
pub(crate) fn parse_engine(s: &str) -> VResult<IoEngine> {
    Ok(match s.trim().to_ascii_lowercase().as_str() {
        "sync" => IoEngine::Sync,
        "psync" => IoEngine::Psync,
        "vsync" => IoEngine::Vsync,
        "pvsync" => IoEngine::Pvsync,
        "pvsync2" => IoEngine::Pvsync2,
        "libaio" => IoEngine::Libaio,
        "io_uring" => IoEngine::IoUring,
        "posixaio" => IoEngine::Posixaio,
        "mmap" => IoEngine::Mmap,
        "null" => IoEngine::Null,
        other => return malformed(engine_refusal(other)),
    })
}

/// fio's engines that reach a block device by a path ssdlab does not model
/// (NVMe passthrough, SCSI generic, user-space drivers, block over network).
const BLOCK_ENGINES_NOT_MODELLED: &[&str] = &[
    "io_uring_cmd",
    "sg",
    "xnvme",
    "spdk",
    "libblkio",
    "libiscsi",
    "nbd",
    "windowsaio",
    "solarisaio",
    "mtd",
    "dev-dax",
    "libcufile",
];

/// Why an engine is refused: it does no block I/O, or reaches a block
/// device by a path not modelled yet, or is no fio engine at all.
fn engine_refusal(name: &str) -> String {
    const OURS: &str =
        "sync, psync, vsync, pvsync, pvsync2, libaio, io_uring, posixaio, mmap, null";
    if BLOCK_ENGINES_NOT_MODELLED.contains(&name) {
        format!("ioengine '{name}' reaches a block device by a path ssdlab does not model yet (ssdlab's engines: {OURS})")
    } else {
        format!("ioengine '{name}' does no I/O to a block device, which is what ssdlab models (its engines: {OURS})")
    }
}

/// `random_distribution=` → (distribution, optional center).
pub(crate) fn parse_distribution(
    s: &str,
    kb_base: u32,
) -> VResult<(RandomDistribution, Option<f64>)> {
    let s = s.trim();
    let (name, rest) = match s.find([':', '=']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let name = name.trim().to_ascii_lowercase();
    match name.as_str() {
        "random" => match rest {
            None => Ok((RandomDistribution::Random, None)),
            Some(_) => malformed("random_distribution 'random' takes no parameter"),
        },
        "zipf" | "pareto" | "normal" | "gauss" => {
            let Some(rest) = rest else {
                return malformed(format!("random_distribution '{name}' needs a value, as in {name}:1.2"));
            };
            let mut it = rest.split(':');
            let v = parse_float(it.next().unwrap_or(""))?;
            let center = match it.next() {
                Some(c) => {
                    let c = parse_float(c)?;
                    if !(0.0..=1.0).contains(&c) {
                        return out_of_range(format!("random_distribution center {c} is not within [0, 1]"));
                    }
                    Some(c)
                }
                None => None,
            };
            if it.next().is_some() {
                return malformed(format!("random_distribution '{s}' has too many fields"));
            }
            let d = match name.as_str() {
                "zipf" => {
                    if v <= 0.0 || v == 1.0 {
                        return out_of_range(format!("zipf theta {v} must be > 0 and != 1"));
                    }
                    RandomDistribution::Zipf(v)
                }
                "pareto" => {
                    if v <= 0.0 || v >= 1.0 {
                        return out_of_range(format!("pareto power {v} must be within (0, 1)"));
                    }
                    RandomDistribution::Pareto(v)
                }
                _ => {
                    if v <= 0.0 || v > 100.0 {
                        return out_of_range(format!("normal deviation {v} must be within (0, 100]"));
                    }
                    RandomDistribution::Normal(v)
                }
            };
            Ok((d, center))
        }
        "zoned" | "zoned_abs" => {
            let Some(rest) = rest else {
                return malformed(format!("random_distribution '{name}' needs zones, as in zoned:60/10:40/90"));
            };
            if rest.contains(',') {
                return malformed("per-direction zones are not supported: give one set of zones");
            }
            let mut access_sum = 0u32;
            let mut range_sum = 0u64;
            let mut rel = Vec::new();
            let mut abs = Vec::new();
            // A zone whose range is left empty (`zoned:50/5:30/15:20/`) takes
            // what the others leave of the 100 %, shared evenly, as fio.
            let mut open_ranges = Vec::new();
            for z in rest.split(':').filter(|z| !z.trim().is_empty()) {
                let Some((a, r)) = z.split_once('/') else {
                    return malformed(format!("zone '{z}' must be access%/range"));
                };
                let a = parse_int_in(a, 0, 100)? as u32;
                access_sum += a;
                if name == "zoned" && r.trim().is_empty() {
                    open_ranges.push(rel.len());
                    rel.push((a, 0));
                } else if name == "zoned" {
                    let r = parse_int_in(r, 0, 100)? as u32;
                    range_sum += u64::from(r);
                    rel.push((a, r));
                } else {
                    abs.push((a, parse_size(r, kb_base)?));
                }
            }
            if !open_ranges.is_empty() && range_sum < 100 {
                let n = open_ranges.len() as u64;
                let left = 100 - range_sum;
                for (k, &i) in open_ranges.iter().enumerate() {
                    // The first zones take the remainder of the division.
                    let share = left / n + u64::from((k as u64) < left % n);
                    rel[i].1 = share as u32;
                }
                range_sum = 100;
            }
            if rel.len() + abs.len() > 256 {
                return out_of_range("more than 256 zones");
            }
            if access_sum != 100 {
                return out_of_range(format!("zone access percentages add up to {access_sum}%, not 100%"));
            }
            if name == "zoned" {
                if range_sum != 100 {
                    return out_of_range(format!("zone range percentages add up to {range_sum}%, not 100%"));
                }
                Ok((RandomDistribution::Zoned(rel), None))
            } else {
                Ok((RandomDistribution::ZonedAbs(abs), None))
            }
        }
        other => malformed(format!(
            "random_distribution '{other}' is not one of random, zipf, pareto, normal, zoned, zoned_abs"
        )),
    }
}

/// `:`-separated floats, each in (0, 100], at most `max` of them.
pub(crate) fn parse_percentiles(s: &str, max: usize) -> VResult<Vec<f64>> {
    let mut out = Vec::new();
    for p in s.split(':') {
        let v = parse_float(p)?;
        if v <= 0.0 || v > 100.0 {
            return out_of_range(format!("percentile {v} is not within (0, 100]"));
        }
        out.push(v);
    }
    if out.len() > max {
        return out_of_range(format!(
            "{} percentiles given, at most {max} allowed",
            out.len()
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
