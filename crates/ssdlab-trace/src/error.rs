use serde::{Deserialize, Serialize};

/// A malformed trace line, an I/O error or an unopenable file.
///
/// Displays as `file:line: field: message`. `line` is 1-based; it is 0 for
/// errors that concern the whole file (e.g. it cannot be opened).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{file}:{line}: {field}: {message}")]
pub struct TraceError {
    pub file: String,
    pub line: u64,
    pub field: String,
    pub message: String,
}

/// Unknown name given to `Format::from_str`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown trace format {name:?} (expected one of: {expected})")]
pub struct ParseFormatError {
    pub name: String,
    pub expected: String,
}
