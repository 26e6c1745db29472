//! One line of a fio log, as fio 3.33 prints it (HOWTO, "Log File
//! Formats"): `time, value, direction, block size[, offset], priority`.

use std::io::{self, Write};

/// One log entry. Averaged entries carry 0 as block size, offset and
/// priority, as fio's do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry {
    /// Milliseconds since the job's start (the end of its ramp time).
    pub time_ms: u64,
    /// ns for a latency log, KiB/s for bandwidth, a count for IOPS.
    pub value: u64,
    /// 0 read, 1 write, 2 trim.
    pub dir: u8,
    pub bs: u64,
    pub offset: u64,
    /// fio's `io_u->ioprio` (class << 13 | level).
    pub ioprio: u16,
}

/// The columns a job's logs have (`log_offset`, `log_prio`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LineFormat {
    /// An offset column before the priority.
    pub offset: bool,
    /// The priority column holds the value in hex (`0x4003`); without it,
    /// 1 when the class is real-time and 0 otherwise.
    pub prio: bool,
}

/// Linux's real-time I/O priority class.
const CLASS_RT: u16 = 1;

impl LineFormat {
    /// Writes `e` as one line.
    pub fn write(&self, e: &LogEntry, out: &mut dyn Write) -> io::Result<()> {
        write!(out, "{}, {}, {}, {}, ", e.time_ms, e.value, e.dir, e.bs)?;
        if self.offset {
            write!(out, "{}, ", e.offset)?;
        }
        if self.prio {
            writeln!(out, "0x{:04x}", e.ioprio)
        } else {
            writeln!(out, "{}", u8::from(e.ioprio >> 13 == CLASS_RT))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(format: LineFormat, e: &LogEntry) -> String {
        let mut out = Vec::new();
        format.write(e, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    const ENTRY: LogEntry = LogEntry {
        time_ms: 12,
        value: 95791,
        dir: 1,
        bs: 4096,
        offset: 2134016,
        ioprio: 0x4003,
    };

    #[test]
    fn lines_are_fios_with_and_without_the_offset() {
        // Lines fio 3.33 wrote for a psync write at prio=3 (best effort).
        let plain = LineFormat::default();
        assert_eq!(line(plain, &ENTRY), "12, 95791, 1, 4096, 0\n");
        let with_offset = LineFormat {
            offset: true,
            prio: false,
        };
        assert_eq!(
            line(with_offset, &ENTRY),
            "12, 95791, 1, 4096, 2134016, 0\n"
        );
    }

    #[test]
    fn the_priority_column_is_the_rt_flag_or_the_value() {
        let rt = LogEntry {
            ioprio: 0x2000,
            ..ENTRY
        };
        assert_eq!(line(LineFormat::default(), &rt), "12, 95791, 1, 4096, 1\n");
        let hex = LineFormat {
            offset: false,
            prio: true,
        };
        assert_eq!(line(hex, &ENTRY), "12, 95791, 1, 4096, 0x4003\n");
        assert_eq!(line(hex, &rt), "12, 95791, 1, 4096, 0x2000\n");
        let both = LineFormat {
            offset: true,
            prio: true,
        };
        let none = LogEntry { ioprio: 0, ..ENTRY };
        assert_eq!(line(both, &none), "12, 95791, 1, 4096, 2134016, 0x0000\n");
    }
}
