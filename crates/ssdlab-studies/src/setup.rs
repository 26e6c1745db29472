//! A run's set-up from what a user names: a preset (with a GC scheme of the
//! GC study and key overrides), host settings, and, for sweeps, the
//! parameters of one point. The CLI and the Python package share these, so
//! both refuse the same input with the same message.

pub use crate::point::occupancy_share;
use crate::point::PointSpec;
use serde::Deserialize;
use ssdlab_sim::error::{from_fio, InputError};
use ssdlab_sim::experiment::fio_run::RunSetup;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::precondition::PreconditionMode;
use std::collections::BTreeMap;
use std::path::Path;

/// A preset with key overrides and, optionally, a GC scheme of the GC study
/// applied to its device.
pub fn load_device(
    name: &str,
    gc: Option<&str>,
    overrides: &[(String, toml::Value)],
) -> Result<Preset, InputError> {
    let mut preset = Preset::load_with(name, overrides)?;
    if let Some(scheme) = gc {
        crate::gc_study::apply_scheme(&mut preset.device, scheme)?;
    }
    Ok(preset)
}

/// The host file of the K2 study: Park and Lee's i5-9400 with Linux, the
/// K2 module and fio 3.25. The studies run on it unless given another.
pub const K2_HOST_FILE: &str = "examples/k2/host.toml";

/// The settings of `K2_HOST_FILE`.
pub fn k2_host() -> ssdlab_sim::host::HostConfig {
    ssdlab_sim::host::HostConfig::from_toml(include_str!("../jobs/k2/host.toml"), K2_HOST_FILE)
        .expect("the K2 host file is valid")
}

/// The name of the K2 study's host (`examples/k2/host.toml`, built in)
/// where a host file is asked for.
pub const K2_HOST_NAME: &str = "k2-study";

/// The host settings of a host file (or `k2-study`, the K2 study's host,
/// when no file of that name exists), or else the preset's own.
pub fn load_host(path: Option<&Path>, preset_host: HostConfig) -> Result<HostConfig, InputError> {
    let Some(path) = path else {
        return Ok(preset_host);
    };
    if path == Path::new(K2_HOST_NAME) && !path.exists() {
        return Ok(k2_host());
    }
    let file = path.display().to_string();
    let text = ssdlab_fio::read_input_string(path)
        .map_err(|e| InputError::invalid(&file, e.to_string()))?;
    HostConfig::from_toml(&text, &file)
}

/// One point as a user gives it (Python's `ssdlab.sweep` sends these as
/// JSON): names and numbers, resolved by `resolve` into a `PointSpec`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PointParams {
    /// The job file's text (unused by a replay).
    #[serde(default)]
    pub job: String,
    /// Names the job file in errors.
    #[serde(default = "default_job_name")]
    pub job_name: String,
    #[serde(default = "default_device")]
    pub device: String,
    #[serde(default)]
    pub device_overrides: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub gc: Option<String>,
    /// A host file; None: the preset's `[host]`.
    #[serde(default)]
    pub host: Option<String>,
    #[serde(default)]
    pub host_overrides: BTreeMap<String, toml::Value>,
    #[serde(default = "default_scheduler")]
    pub scheduler: String,
    /// Percent of the logical space holding data.
    #[serde(default)]
    pub occupancy: f64,
    #[serde(default = "default_precondition")]
    pub precondition: String,
    #[serde(default = "default_seed")]
    pub seed: u64,
}

fn default_job_name() -> String {
    "<job>".into()
}
fn default_device() -> String {
    "consumer-tlc-250g".into()
}
pub(crate) fn default_scheduler() -> String {
    "none".into()
}
pub(crate) fn default_precondition() -> String {
    "auto".into()
}
pub(crate) fn default_seed() -> u64 {
    1
}

impl PointParams {
    /// Checks every parameter but the job file and builds the run's set-up.
    pub fn setup(&self) -> Result<RunSetup, InputError> {
        let pairs = |m: &BTreeMap<String, toml::Value>| -> Vec<(String, toml::Value)> {
            m.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
        };
        let occupancy = occupancy_share(self.occupancy, "occupancy")?;
        let precondition: PreconditionMode = self
            .precondition
            .parse()
            .map_err(|m| InputError::invalid("precondition", m))?;
        ssdlab_sched::spec::parse(&self.scheduler)
            .map_err(|e| InputError::invalid("scheduler", e.to_string()))?;
        let preset = load_device(
            &self.device,
            self.gc.as_deref(),
            &pairs(&self.device_overrides),
        )?;
        let host = load_host(self.host.as_deref().map(Path::new), preset.host)?
            .with_overrides(&pairs(&self.host_overrides))?;
        Ok(RunSetup {
            device: preset.device,
            host,
            scheduler: self.scheduler.clone(),
            occupancy,
            precondition,
            seed: self.seed,
            check: false,
        })
    }

    /// Checks every parameter (the job file parsed too) and builds the
    /// point.
    pub fn resolve(&self) -> Result<PointSpec, InputError> {
        let setup = self.setup()?;
        let jobfile =
            ssdlab_fio::parse_str(&self.job, &self.job_name, &|_| None).map_err(from_fio)?;
        if jobfile.jobs.is_empty() {
            return Err(InputError::invalid(&self.job_name, "defines no job"));
        }
        // Against the device too (block sizes, regions, the mapping), so
        // that a sweep's bad point fails here, before any point runs.
        ssdlab_sim::experiment::fio_run::check_jobs(&jobfile, &setup.device)?;
        Ok(PointSpec {
            job_name: self.job_name.clone(),
            job_text: self.job.clone(),
            setup,
        })
    }
}
