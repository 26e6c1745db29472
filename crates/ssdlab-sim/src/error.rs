//! Errors for user input. Every error names where the bad input is.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum InputError {
    /// A problem at a known place in a file.
    #[error("{file}:{line}: {field}: {message}")]
    At {
        file: String,
        line: usize,
        field: String,
        message: String,
    },
    /// A problem with a command-line value or a whole file.
    #[error("{context}: {message}")]
    Invalid { context: String, message: String },
}

impl InputError {
    pub fn invalid(context: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Invalid {
            context: context.into(),
            message: message.into(),
        }
    }
}
