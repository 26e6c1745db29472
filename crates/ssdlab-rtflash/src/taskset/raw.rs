//! The task-set file as written, every value kept with its place in the
//! text, and a `Checker` that turns values into integers and records each
//! problem as `file:line: field: message`.

use serde::Deserialize;
use ssdlab_protocol::parse_duration_ns;
use ssdlab_sim::error::InputError;
use ssdlab_sim::toml_sections::line_of_offset;
use toml::{Spanned, Value};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPlatform {
    pub preset: Option<Spanned<String>>,
    pub chips: Option<Spanned<i64>>,
    pub blocks_per_chip: Option<Spanned<i64>>,
    pub pages_per_block: Option<Spanned<i64>>,
    pub page_size: Option<Spanned<Value>>,
    pub read_time: Option<Spanned<Value>>,
    pub program_time: Option<Spanned<Value>>,
    pub erase_time: Option<Spanned<Value>>,
    pub transfer_time: Option<Spanned<Value>>,
}

impl RawPlatform {
    /// The explicit geometry and timing fields that are set, with their names.
    pub fn explicit_fields(&self) -> Vec<(&'static str, std::ops::Range<usize>)> {
        let counts = [
            ("blocks_per_chip", &self.blocks_per_chip),
            ("pages_per_block", &self.pages_per_block),
        ];
        let values = [
            ("page_size", &self.page_size),
            ("read_time", &self.read_time),
            ("program_time", &self.program_time),
            ("erase_time", &self.erase_time),
            ("transfer_time", &self.transfer_time),
        ];
        let mut out: Vec<_> = counts
            .iter()
            .filter_map(|(n, v)| v.as_ref().map(|v| (*n, v.span())))
            .collect();
        out.extend(
            values
                .iter()
                .filter_map(|(n, v)| v.as_ref().map(|v| (*n, v.span()))),
        );
        out
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTask {
    pub name: Spanned<String>,
    pub period: Spanned<Value>,
    pub deadline: Option<Spanned<Value>>,
    pub read_pages: Option<Spanned<i64>>,
    pub write_pages: Option<Spanned<i64>>,
    pub footprint: Spanned<Value>,
    pub offset: Option<Spanned<Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawNrt {
    pub footprint: Spanned<Value>,
    pub arrival: Option<Spanned<Value>>,
    pub outstanding: Option<Spanned<i64>>,
    pub request_size: Option<Spanned<Value>>,
    pub read_fraction: Option<Spanned<f64>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawAnalysis {
    pub test: Option<Spanned<String>>,
    pub reserved_blocks: Option<Spanned<i64>>,
    pub allow_migration: Option<bool>,
    pub leftover_chips: Option<Spanned<String>>,
}

/// Converts located values and collects every problem.
pub(super) struct Checker<'a> {
    pub text: &'a str,
    pub file: &'a str,
    pub errors: Vec<InputError>,
}

impl Checker<'_> {
    pub fn error(&mut self, span: std::ops::Range<usize>, field: &str, message: String) {
        self.errors.push(InputError::At {
            file: self.file.to_string(),
            line: line_of_offset(self.text, span.start),
            field: field.to_string(),
            message,
        });
    }

    /// A count: a non-negative integer.
    pub fn count(&mut self, v: &Spanned<i64>, field: &str) -> Option<u64> {
        match u64::try_from(*v.get_ref()) {
            Ok(n) => Some(n),
            Err(_) => {
                self.error(v.span(), field, format!("{} is negative", v.get_ref()));
                None
            }
        }
    }

    /// A duration: a string with a unit ("10ms", "2.5us") or integer ns.
    pub fn duration(&mut self, v: &Spanned<Value>, field: &str) -> Option<u64> {
        let parsed = match v.get_ref() {
            Value::Integer(n) => u64::try_from(*n).map_err(|_| format!("{n} is negative")),
            Value::String(s) => parse_duration_ns(s.trim(), 1).map(|n| n as u64),
            other => Err(format!(
                "expected a duration such as \"10ms\" or integer nanoseconds, found {}",
                other.type_str()
            )),
        };
        self.keep(parsed, v, field)
    }

    /// A size in bytes: a string with a unit ("64MiB", "4k") or an integer.
    pub fn bytes(&mut self, v: &Spanned<Value>, field: &str) -> Option<u64> {
        self.bytes_of(v.get_ref(), v, field)
    }

    fn bytes_of(&mut self, value: &Value, at: &Spanned<Value>, field: &str) -> Option<u64> {
        let parsed = match value {
            Value::Integer(n) => u64::try_from(*n).map_err(|_| format!("{n} is negative")),
            Value::String(s) => ssdlab_fio::parse_size(&ssdlab_sim::units::binary_units(s)),
            other => Err(format!(
                "expected a size such as \"64MiB\", found {}",
                other.type_str()
            )),
        };
        self.keep(parsed, at, field)
    }

    /// A footprint: integer pages, or a size rounded up to whole pages.
    pub fn pages(&mut self, v: &Spanned<Value>, field: &str, page_size: u64) -> Option<u64> {
        match v.get_ref() {
            Value::Integer(n) => {
                let n = u64::try_from(*n).map_err(|_| format!("{n} is negative"));
                self.keep(n, v, field)
            }
            _ => self.bytes(v, field).map(|b| b.div_ceil(page_size.max(1))),
        }
    }

    /// A size range: one size, or `[min, max]`.
    pub fn size_range(&mut self, v: &Spanned<Value>, field: &str) -> Option<(u64, u64)> {
        match v.get_ref() {
            Value::Array(a) if a.len() == 2 => {
                let lo = self.bytes_of(&a[0], v, field)?;
                let hi = self.bytes_of(&a[1], v, field)?;
                if lo == 0 || lo > hi {
                    self.error(
                        v.span(),
                        field,
                        format!("[{lo}, {hi}] is not a range of positive sizes"),
                    );
                    return None;
                }
                Some((lo, hi))
            }
            Value::Array(_) => {
                self.error(v.span(), field, "give one size or [min, max]".into());
                None
            }
            _ => self.bytes(v, field).map(|b| (b, b)),
        }
    }

    fn keep<T>(&mut self, parsed: Result<T, String>, v: &Spanned<Value>, field: &str) -> Option<T> {
        parsed.map_err(|m| self.error(v.span(), field, m)).ok()
    }
}
