//! The trace formats: one file each, and one line per format in the
//! `formats!` registry below. A format's file holds all it is: its units,
//! its device filter, its line parser and its writer.

use std::io::{self, Write};

use crate::parse::{Ctx, DeviceFilter, Outcome, ParseState};
use crate::types::TraceRecord;

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
