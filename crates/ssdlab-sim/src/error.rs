//! Errors for user input: `ssdlab_ssd::error::InputError` (the device
//! models read presets, the lowest input that needs it), and the conversion
//! of a job-file error, which keeps its file, line and option.

pub use ssdlab_ssd::error::InputError;

/// A job-file error as an input error naming its file, line and option
/// (`.map_err(from_fio)` where `?` meets a `FioError`).
pub fn from_fio(e: ssdlab_fio::FioError) -> InputError {
    InputError::At {
        field: e
            .option
            .clone()
            .map_or("job file".to_string(), |o| format!("option '{o}'")),
        file: e.file,
        line: e.line,
        message: e.message,
    }
}
