//! `ssdlab.run` and `ssdlab.replay`: one simulation, its fio report (JSON
//! and text) and its figures.

use super::{bad_json, to_py};
use pyo3::prelude::*;
use ssdlab_sim::error::{from_fio, InputError};
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::workload::replay_setup::{open_replay, ReplayRequest};
use ssdlab_studies::point::PointFigures;
use ssdlab_studies::setup::PointParams;
use std::path::PathBuf;

/// What a run gives Python: the fio-compatible JSON report, fio's text
/// report and the figures (`PointFigures`) as JSON.
type RunOutput = (String, String, String);

/// `run_job`'s request: the run's parameters and where its job file is.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RunRequest {
    params: PointParams,
    /// The job file; None: the text in `params.job`.
    #[serde(default)]
    job_path: Option<PathBuf>,
    #[serde(default)]
    ignore_unknown: bool,
}

/// `replay`'s request: the run's parameters and `ssdlab replay`'s options.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayRequestJson {
    params: PointParams,
    trace: PathBuf,
    #[serde(default)]
    format: Option<String>,
    #[serde(default)]
    qd: Option<u32>,
    #[serde(default = "one")]
    time_scale: f64,
    #[serde(default)]
    loop_write: Option<String>,
    #[serde(default)]
    skip_bad_lines: bool,
    #[serde(default)]
    trace_device: Option<String>,
}

fn one() -> f64 {
    1.0
}

fn request<T: serde::de::DeserializeOwned>(what: &str, json: &str) -> PyResult<T> {
    serde_json::from_str(json).map_err(|e| bad_json(what, e))
}

fn outputs(
    prepared: fio_run::PreparedRun,
    jobfile: &ssdlab_fio::JobFile,
    setup: &RunSetup,
) -> Result<RunOutput, InputError> {
    let result = prepared.execute(None)?;
    let rep = report::build(&result, jobfile, setup);
    let figures = serde_json::to_string(&PointFigures::of(&result)).expect("figures serialize");
    Ok((rep.to_fio_json_string(), rep.to_normal_text(), figures))
}

/// Runs a job file (a path, or the text in the parameters' `job`) with the
/// device, host, scheduler, occupancy, preconditioning and seed of the
/// request's `params` (the keys of `PointParams`). The request is JSON, as
/// for every function of the module.
#[pyfunction]
pub fn run_job(py: Python<'_>, request_json: &str) -> PyResult<RunOutput> {
    let RunRequest {
        params: p,
        job_path,
        ignore_unknown,
    } = request("run request", request_json)?;
    py.detach(move || {
        let setup = p.setup()?;
        let opts = ssdlab_fio::ParseOptions { ignore_unknown };
        let env = ssdlab_fio::process_env;
        let jobfile = match &job_path {
            Some(path) => ssdlab_fio::parse_file_with(path, &env, &opts).map_err(from_fio)?,
            None => {
                ssdlab_fio::parse_str_with(&p.job, &p.job_name, &env, &opts).map_err(from_fio)?
            }
        };
        let prepared = fio_run::prepare(&jobfile, &setup)?;
        outputs(prepared, &jobfile, &setup)
    })
    .map_err(to_py)
}

/// Replays a block trace through the host path and device of the request's
/// `params` (its `job` is unused); the other fields are `ssdlab replay`'s
/// options.
#[pyfunction]
pub fn replay(py: Python<'_>, request_json: &str) -> PyResult<RunOutput> {
    let ReplayRequestJson {
        params: p,
        trace,
        format,
        qd,
        time_scale,
        loop_write,
        skip_bad_lines,
        trace_device,
    } = request("replay request", request_json)?;
    py.detach(move || {
        let loop_write = loop_write
            .as_deref()
            .map(|s| ssdlab_fio::parse_size(s).map_err(|m| InputError::invalid("loop_write", m)))
            .transpose()?;
        let request = ReplayRequest {
            trace,
            format,
            read: ssdlab_trace::ReadOptions {
                skip_bad_lines,
                device: trace_device,
                fio_v3_time_unit: ssdlab_trace::TimeUnit::Us,
                ..ssdlab_trace::ReadOptions::default()
            },
            time_scale,
            qd,
            loop_write,
        };
        request.check()?;
        let setup = p.setup()?;
        let opened = open_replay(&request, &setup.device)?;
        let feed: Box<dyn ssdlab_sim::workload::fio_job::IoSource> = Box::new(opened.feed);
        let prepared = fio_run::prepare_with_sources(&opened.jobfile, &setup, vec![Some(feed)])?;
        outputs(prepared, &opened.jobfile, &setup)
    })
    .map_err(to_py)
}
