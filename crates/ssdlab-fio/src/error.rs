//! Error type: every error carries the file, the 1-based line and, when one is
//! involved, the option name as written in the job file.

use serde::Serialize;

/// What went wrong, coarse-grained (the message has the details).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ErrorKind {
    /// The job file (or an included file) could not be read.
    Io,
    /// An option name that fio does not know.
    UnknownOption,
    /// A real fio option that ssdlab does not implement (never silently ignored).
    UnsupportedOption,
    /// A value that does not parse (not an integer, bad suffix, unknown mode…).
    MalformedValue,
    /// A value that parses but is outside the allowed range.
    OutOfRange,
    /// An option line before any `[section]`.
    OutsideSection,
    /// A `[section` line without its closing `]`.
    UnterminatedSection,
    /// `include FILE` where FILE cannot be found.
    IncludeNotFound,
    /// `include` chain that comes back to a file already being read.
    IncludeCycle,
    /// An included file contains a `[section]` (fio forbids it).
    IncludeHasSection,
    /// A `[]` section: a job needs a name.
    EmptyJobName,
    /// numjobs expansion would create more jobs than fio's limit.
    TooManyJobs,
}

/// A job-file error with its location.
///
/// Displayed as `file:line: option 'name': message`, or `file:line: message`
/// when no option is involved (`file: message` when there is no line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", render(self))]
pub struct FioError {
    pub kind: ErrorKind,
    /// Path of the file the error is in, as given (or as resolved for includes).
    pub file: String,
    /// 1-based line number; 0 when the error concerns the whole file.
    pub line: usize,
    /// The option name as written, when an option is involved.
    pub option: Option<String>,
    pub message: String,
}

impl FioError {
    pub(crate) fn new(
        kind: ErrorKind,
        file: &str,
        line: usize,
        option: Option<&str>,
        message: impl Into<String>,
    ) -> Self {
        FioError {
            kind,
            file: file.to_string(),
            line,
            option: option.map(str::to_string),
            message: message.into(),
        }
    }
}

fn render(e: &FioError) -> String {
    let mut s = e.file.clone();
    if e.line > 0 {
        s.push(':');
        s.push_str(&e.line.to_string());
    }
    s.push_str(": ");
    if let Some(o) = &e.option {
        s.push_str("option '");
        s.push_str(o);
        s.push_str("': ");
    }
    s.push_str(&e.message);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_with_option() {
        let e = FioError::new(
            ErrorKind::MalformedValue,
            "jobs.fio",
            12,
            Some("iodepth"),
            "value 'abc' is not an integer",
        );
        assert_eq!(
            e.to_string(),
            "jobs.fio:12: option 'iodepth': value 'abc' is not an integer"
        );
    }

    #[test]
    fn display_without_option_or_line() {
        let e = FioError::new(ErrorKind::Io, "x.fio", 0, None, "cannot read file");
        assert_eq!(e.to_string(), "x.fio: cannot read file");
        let e = FioError::new(ErrorKind::EmptyJobName, "x.fio", 3, None, "job has no name");
        assert_eq!(e.to_string(), "x.fio:3: job has no name");
    }
}
