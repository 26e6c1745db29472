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
    /// Several problems of one input, each on its own line.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n"))]
    Many(Vec<InputError>),
}

impl InputError {
    /// One error, or all of them when there are several.
    ///
    /// # Panics
    /// On an empty list (a logic error: there is nothing to report).
    pub fn all(mut errors: Vec<InputError>) -> Self {
        assert!(!errors.is_empty(), "no error to report");
        if errors.len() == 1 {
            return errors.remove(0);
        }
        InputError::Many(errors)
    }

    pub fn invalid(context: impl Into<String>, message: impl Into<String>) -> Self {
        InputError::Invalid {
            context: context.into(),
            message: message.into(),
        }
    }
}
