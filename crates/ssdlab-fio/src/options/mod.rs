//! The option table, declared as data: canonical name, aliases, value kind
//! and a one-line help. `parse_value` turns a raw value into a typed
//! [`Value`] according to the kind; `job.rs` stores it in the `JobSpec`. The
//! table itself is in `table.rs`.

use crate::spec::{IoEngine, RandomDistribution, RwMode, SizeSpec};
use crate::values::{self, malformed, VResult};

mod fio_only;
mod table;

use fio_only::FIO_ONLY;
use table::OPTIONS;

/// How an option's value is written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// Free text.
    Str,
    /// Free text, the option may also be given alone (value "").
    OptStr,
    /// 0/1, a value required (fio's BOOL).
    Bool,
    /// A number, alone meaning 1 (fio's STR_SET: `time_based`, `stonewall`).
    Flag,
    /// Integer within bounds.
    Int { min: i64, max: i64 },
    /// Size in bytes.
    Size,
    /// Size in bytes or percent (`50%`).
    SizeOrPct,
    /// Time; `unit_ns` applies when no unit suffix is given.
    Time { unit_ns: u64 },
    /// Time or `lo-hi` time range.
    TimeRange { unit_ns: u64 },
    /// Per-direction sizes (`read,write,trim`), each at least `min` bytes.
    PerDirSize { fields: usize, min: u64 },
    /// Integer that must be one of the listed values.
    IntOneOf(&'static [i64]),
    /// Per-direction integers within bounds.
    PerDirInt { min: i64, max: i64, fields: usize },
    /// Per-direction size ranges (`1k-4k,8k-32k`).
    PerDirRange,
    /// Per-direction bssplit lists.
    PerDirSplit,
    /// One of a fixed set of words.
    Choice(&'static [&'static str]),
    /// `rw` mode with optional `:N`.
    Rw,
    /// `ioengine`.
    Engine,
    /// `random_distribution`.
    Distribution,
    /// `:`-separated percentiles, at most `max`.
    Percentiles { max: usize },
    /// A CPU set as a bit mask (`cpumask`).
    CpuMask,
    /// A CPU set as a list of CPUs and ranges (`cpus_allowed`).
    CpuList,
    /// Accepted and kept in the report, with no effect in the simulator.
    Ignored,
    /// A fio option ssdlab does not implement: rejected (never silently ignored).
    Unsupported,
    /// A fio option fio itself refuses as deprecated.
    Deprecated,
}

/// One entry of the option table.
#[derive(Clone, Copy, Debug)]
pub struct OptionDef {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub help: &'static str,
}

/// Look an option up by name or alias (case-sensitive, as fio does).
pub fn find(name: &str) -> Option<&'static OptionDef> {
    OPTIONS
        .iter()
        .chain(FIO_ONLY)
        .find(|o| o.name == name || o.aliases.contains(&name))
}

/// Whether `def` is one of fio's options outside ssdlab's own table.
pub fn is_fio_only(def: &OptionDef) -> bool {
    FIO_ONLY.iter().any(|o| std::ptr::eq(o, def))
}

/// The whole option table, for help output.
pub fn option_table() -> &'static [OptionDef] {
    OPTIONS
}

/// A parsed value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Str(String),
    Bool(bool),
    Int(i64),
    Size(u64),
    SizeOrPct(SizeSpec),
    Time(u64),
    TimeRange(u64, u64),
    PerDirU64([Option<u64>; 3]),
    PerDirRange([Option<(u64, u64)>; 3]),
    PerDirSplit([Option<Vec<(u64, u32)>>; 3]),
    Choice(&'static str),
    Rw(RwMode, Option<u64>, Option<i64>),
    Engine(IoEngine),
    Dist(RandomDistribution, Option<f64>),
    Floats(Vec<f64>),
    Cpus(Vec<u32>),
    /// Ignored option: nothing to store.
    Nothing,
}

fn per_dir<T>(
    raw: &str,
    fields: usize,
    mut f: impl FnMut(&str) -> VResult<T>,
) -> VResult<[Option<T>; 3]> {
    let parts = values::split_per_dir(raw, fields)?;
    let mut out: [Option<T>; 3] = [None, None, None];
    for (slot, p) in out.iter_mut().zip(parts) {
        if let Some(p) = p {
            *slot = Some(f(p)?);
        }
    }
    Ok(out)
}

/// Parse `raw` (None when the option was given without `=`) for `kind`.
pub(crate) fn parse_value(kind: Kind, raw: Option<&str>, kb_base: u32) -> VResult<Value> {
    let need = |raw: Option<&str>| -> VResult<String> {
        match raw {
            Some(v) if !v.trim().is_empty() => Ok(v.trim().to_string()),
            _ => malformed("option needs a value"),
        }
    };
    Ok(match kind {
        Kind::Str => Value::Str(need(raw)?),
        Kind::OptStr => Value::Str(raw.unwrap_or("").trim().to_string()),
        // fio's booleans need a value: a bare `direct` is refused by fio.
        Kind::Bool => Value::Bool(values::parse_bool(&need(raw)?)?),
        Kind::Flag => match raw {
            None => Value::Bool(true),
            Some(v) => Value::Bool(values::parse_int_in(v, 0, i64::MAX)? != 0),
        },
        Kind::Int { min, max } => Value::Int(values::parse_int_in(&need(raw)?, min, max)?),
        Kind::Size => Value::Size(values::parse_size(&need(raw)?, kb_base)?),
        Kind::SizeOrPct => Value::SizeOrPct(values::parse_size_or_pct(&need(raw)?, kb_base)?),
        Kind::Time { unit_ns } => Value::Time(values::parse_time(&need(raw)?, unit_ns)?),
        Kind::TimeRange { unit_ns } => {
            let (a, b) = values::parse_time_range(&need(raw)?, unit_ns)?;
            Value::TimeRange(a, b)
        }
        Kind::PerDirSize { fields, min } => Value::PerDirU64(per_dir(&need(raw)?, fields, |p| {
            let v = values::parse_size(p, kb_base)?;
            if v < min {
                return values::out_of_range(format!("size '{p}' is below the minimum of {min}"));
            }
            Ok(v)
        })?),
        Kind::IntOneOf(allowed) => {
            let v = values::parse_int(&need(raw)?)?;
            if !allowed.contains(&v) {
                let list: Vec<String> = allowed.iter().map(i64::to_string).collect();
                return values::out_of_range(format!(
                    "value {v} is not one of {}",
                    list.join(", ")
                ));
            }
            Value::Int(v)
        }
        Kind::PerDirInt { min, max, fields } => {
            Value::PerDirU64(per_dir(&need(raw)?, fields, |p| {
                values::parse_int_in(p, min, max).map(|v| v.max(0) as u64)
            })?)
        }
        Kind::PerDirRange => Value::PerDirRange(per_dir(&need(raw)?, 3, |p| {
            values::parse_size_range(p, kb_base)
        })?),
        Kind::PerDirSplit => Value::PerDirSplit(per_dir(&need(raw)?, 3, |p| {
            values::parse_bssplit(p, kb_base)
        })?),
        Kind::Choice(words) => {
            let v = need(raw)?.to_ascii_lowercase();
            match words.iter().find(|w| **w == v) {
                Some(w) => Value::Choice(w),
                None => {
                    return malformed(format!("value '{v}' is not one of: {}", words.join(", ")))
                }
            }
        }
        Kind::Rw => {
            let (m, n, add) = values::parse_rw(&need(raw)?, kb_base)?;
            Value::Rw(m, n, add)
        }
        Kind::Engine => Value::Engine(values::parse_engine(&need(raw)?)?),
        Kind::Distribution => {
            let (d, c) = values::parse_distribution(&need(raw)?, kb_base)?;
            Value::Dist(d, c)
        }
        Kind::Percentiles { max } => Value::Floats(values::parse_percentiles(&need(raw)?, max)?),
        Kind::CpuMask => Value::Cpus(values::parse_cpu_mask(&need(raw)?)?),
        Kind::CpuList => Value::Cpus(values::parse_cpu_list(&need(raw)?)?),
        Kind::Ignored | Kind::Unsupported | Kind::Deprecated => Value::Nothing,
    })
}

#[cfg(test)]
mod tests;
