//! `ssdlab.run` and `ssdlab.replay`: one simulation, its fio report (JSON
//! and text) and its figures.

use super::{bad_json, to_py};
use pyo3::prelude::*;
use ssdlab_sim::error::InputError;
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::workload::replay_setup::{open_replay, ReplayRequest};
use ssdlab_studies::point::PointFigures;
use ssdlab_studies::setup::PointParams;
use std::path::PathBuf;

/// What a run gives Python: the fio-compatible JSON report, fio's text
/// report and the figures (`PointFigures`) as JSON.
type RunOutput = (String, String, String);

fn params(params_json: &str) -> PyResult<PointParams> {
    serde_json::from_str(params_json).map_err(|e| bad_json("run parameters", e))
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
/// device, host, scheduler, occupancy, preconditioning and seed of
/// `params_json` (the keys of `PointParams`).
#[pyfunction]
#[pyo3(signature = (params_json, job_path=None, ignore_unknown=false))]
pub fn run_job(
    py: Python<'_>,
    params_json: &str,
    job_path: Option<PathBuf>,
    ignore_unknown: bool,
) -> PyResult<RunOutput> {
    let p = params(params_json)?;
    py.detach(move || {
        let setup = p.setup()?;
        let opts = ssdlab_fio::ParseOptions { ignore_unknown };
        let env = ssdlab_fio::process_env;
        let jobfile = match &job_path {
            Some(path) => ssdlab_fio::parse_file_with(path, &env, &opts)?,
            None => ssdlab_fio::parse_str_with(&p.job, &p.job_name, &env, &opts)?,
        };
        let prepared = fio_run::prepare(&jobfile, &setup)?;
        outputs(prepared, &jobfile, &setup)
    })
    .map_err(to_py)
}

/// Replays a block trace through the host path and device of `params_json`
/// (its `job` is unused); the options are `ssdlab replay`'s.
#[pyfunction]
#[pyo3(signature = (params_json, trace, format=None, qd=None, time_scale=1.0, loop_write=None, skip_bad_lines=false, trace_device=None))]
#[allow(clippy::too_many_arguments)]
pub fn replay(
    py: Python<'_>,
    params_json: &str,
    trace: PathBuf,
    format: Option<String>,
    qd: Option<u32>,
    time_scale: f64,
    loop_write: Option<String>,
    skip_bad_lines: bool,
    trace_device: Option<String>,
) -> PyResult<RunOutput> {
    let p = params(params_json)?;
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
