//! `ssdlab._native`: the simulator for Python. The functions here take and
//! give JSON text and plain values; the `ssdlab` package (python/ssdlab)
//! wraps them in its API (`run`, `replay`, `rtflash_run`, `sweep`,
//! DataFrames). Every
//! simulation runs with the GIL released, so a Dask worker's other threads
//! and the caller's progress bars go on meanwhile.

use pyo3::prelude::*;
use ssdlab_sim::error::InputError;

mod catalog;
mod points;
mod rtflash;
mod runs;

// Named `ssdlab.SsdlabError` (the package re-exports it), so that pickle
// finds it: a Dask worker's error reaches the client whole.
pyo3::create_exception!(
    ssdlab,
    SsdlabError,
    pyo3::exceptions::PyValueError,
    "Bad input to ssdlab (the message is the CLI's: file:line: field: message)."
);

/// The CLI's error message as a Python exception.
fn to_py(e: InputError) -> PyErr {
    SsdlabError::new_err(e.to_string())
}

/// A JSON argument that does not parse, as the error a user can act on.
fn bad_json(what: &str, e: serde_json::Error) -> PyErr {
    SsdlabError::new_err(format!("{what}: {e}"))
}

#[pymodule]
mod _native {
    #[pymodule_export]
    use super::catalog::{presets, schedulers, version};
    #[pymodule_export]
    use super::points::{k2_points, resolve, run_configs, study_grid};
    #[pymodule_export]
    use super::rtflash::rtflash_run;
    #[pymodule_export]
    use super::runs::{replay, run_job};
    #[pymodule_export]
    use super::SsdlabError;

    /// The largest input file read whole, as the CLI reads it (bytes).
    #[pymodule_export]
    const MAX_INPUT_BYTES: u64 = ssdlab_fio::MAX_INPUT_BYTES;
}
