//! The trace formats: one file each, and one line per format in the
//! `formats!` registry below. A format's file holds all it is: its units,
//! its device filter, its line parser and its writer.

use std::io::{self, Write};

use crate::error::ParseFormatError;
use crate::parse::{Ctx, DeviceFilter, Outcome, ParseState};
use crate::types::{TraceOp, TraceRecord};
use std::fmt;
use std::str::FromStr;

/// What a format is: the numbers that describe its fields and the
/// functions that read and write its lines.
pub(crate) struct FormatSpec {
    /// The name `--format` takes (and serde writes).
    pub name: &'static str,
    /// Whether the format can express a trim.
    pub supports_trim: bool,
    /// Time resolution (ns) of what `record` writes.
    pub time_resolution_ns: u64,
    /// Unit (bytes) of the offset field.
    pub offset_unit: u64,
    /// Unit (bytes) of the length field.
    pub len_unit: u64,
    /// Whether the reader's REQ_SYNC comes from the line (otherwise every
    /// request is sync, as direct I/O is).
    pub has_sync_flag: bool,
    /// Resolves `--trace-device` for this format.
    pub device_filter: fn(&str) -> Result<DeviceFilter, String>,
    /// Reads one trimmed, non-empty, non-comment line.
    pub parse: fn(&str, &Ctx, &mut ParseState) -> Outcome,
    /// Writes what precedes the records.
    pub header: fn(&mut dyn Write) -> io::Result<()>,
    /// Writes one record as one line.
    pub record: fn(&mut dyn Write, &TraceRecord) -> io::Result<()>,
}

/// Declares the formats: the `Format` enum, `Format::ALL` and the lookup of
/// each variant's `FormatSpec` (the `SPEC` of its file).
macro_rules! formats {
    ($($(#[$doc:meta])* $variant:ident => $file:ident,)+) => {
        /// Supported trace formats (one file each in `formats/`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum Format {
            $($(#[$doc])* $variant,)+
        }

        impl Format {
            /// Every format, in registry order.
            pub const ALL: [Format; [$(stringify!($variant)),+].len()] = [$(Format::$variant),+];
            /// Names accepted by `FromStr`, in the order of [`Format::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($file::SPEC.name),+];

            pub(crate) fn spec(self) -> &'static FormatSpec {
                match self {
                    $(Format::$variant => &$file::SPEC,)+
                }
            }
        }
    };
}

mod blkparse;
mod fio_iolog;
mod mqsim;
mod msr;
mod spc;

formats! {
    /// blkparse default text output.
    Blkparse => blkparse,
    /// MSR Cambridge CSV as distributed by SNIA.
    Msr => msr,
    /// UMass / SPC CSV.
    Spc => spc,
    /// MQSim / DiskSim ASCII.
    Mqsim => mqsim,
    /// fio iolog version 2 or 3.
    FioIolog => fio_iolog,
}

pub use fio_iolog::FIO_IOLOG_FILENAME;
pub use msr::{MSR_FILETIME_BASE, MSR_HOSTNAME};

/// Writes nothing: most formats have no header.
pub(crate) fn no_header(_: &mut dyn Write) -> io::Result<()> {
    Ok(())
}

/// A device filter by number (MSR DiskNumber, SPC ASU, MQSim device).
pub(crate) fn numbered_device(d: &str) -> Result<DeviceFilter, String> {
    d.parse::<u64>()
        .map(DeviceFilter::Num)
        .map_err(|_| format!("expected a device number, got {}", crate::parse::show(d)))
}

impl Format {
    /// `device` resolved by this format's rule (no device: every line).
    pub(crate) fn device_filter(self, device: Option<&str>) -> Result<DeviceFilter, String> {
        match device {
            None => Ok(DeviceFilter::Any),
            Some(d) => (self.spec().device_filter)(d.trim()),
        }
    }

    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Whether the format can express [`TraceOp::Trim`].
    pub fn supports_trim(self) -> bool {
        self.spec().supports_trim
    }

    /// Time resolution in ns of what [`crate::write_record`] writes.
    pub fn time_resolution_ns(self) -> u64 {
        self.spec().time_resolution_ns
    }

    /// Unit (bytes) of the offset field.
    pub fn offset_unit(self) -> u64 {
        self.spec().offset_unit
    }

    /// Unit (bytes) of the length field.
    pub fn len_unit(self) -> u64 {
        self.spec().len_unit
    }

    /// The record that reading back `write_record(rec)` yields (with default
    /// [`ReadOptions`](crate::ReadOptions)), apart from `line`: time truncated to the format's
    /// resolution, offset rounded down to its unit, and length grown so that
    /// the written extent still covers the original end, rounded up to the
    /// length unit. Lengths that no longer fit `u32` are not representable
    /// (the reader then reports the line as malformed).
    pub fn quantize(self, rec: &TraceRecord) -> TraceRecord {
        let res = self.time_resolution_ns();
        let ou = self.offset_unit();
        let lu = self.len_unit();
        let offset = rec.offset / ou * ou;
        let end = rec.offset as u128 + rec.len as u128;
        let span = end - offset as u128;
        let span = span.div_ceil(lu as u128) * lu as u128;
        TraceRecord {
            time_ns: rec.time_ns / res * res,
            op: rec.op,
            offset,
            len: u32::try_from(span).unwrap_or(u32::MAX),
            sync: !self.spec().has_sync_flag || rec.sync || rec.op == TraceOp::Read,
            line: rec.line,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = ParseFormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| ParseFormatError {
                name: s.to_string(),
                expected: Format::NAMES.join(", "),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_is_the_serde_name() {
        for f in Format::ALL {
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{}\"", f.spec().name));
        }
    }
}
