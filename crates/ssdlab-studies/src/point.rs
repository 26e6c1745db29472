//! One point of a study or sweep: a job file run on a device, a host, a
//! scheduler, an occupancy and a seed. Its configuration is the key of the
//! studies' cache and of the Python sweep store (the same hash in both), and
//! its figures are what a study row or a sweep row is made of.

use crate::cache::Cache;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ssdlab_metrics::JobReport;
use ssdlab_protocol::Ns;
use ssdlab_sim::error::{from_fio, InputError};
use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::workload::job_stats::JobStats;

/// The shape of a point's figures in the cache: 3 since they are
/// `PointFigures`, 4 since `per_second` counts from the run's start for
/// every job (a job that starts late or ramps up no longer restarts the
/// clock).
const RESULT_FORMAT: u32 = 4;

/// The fields of a configuration (`PointSpec::config`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFields {
    ssdlab: String,
    result_format: u32,
    device: SsdConfig,
    host: HostConfig,
    scheduler: String,
    job: String,
    occupancy: f64,
    precondition: String,
    seed: u64,
}

/// Everything that decides a point's figures: a job file and the run's
/// set-up (with the checker off: it never changes figures).
#[derive(Debug, Clone)]
pub struct PointSpec {
    /// Names the job file in errors (e.g. "examples/k2/randread.fio").
    pub job_name: String,
    pub job_text: String,
    pub setup: RunSetup,
}

impl PointSpec {
    /// The configuration as canonical JSON: the build's version, the result
    /// format, and every input of the run. The job's name is left out: it
    /// only labels errors.
    pub fn config(&self) -> serde_json::Value {
        let s = &self.setup;
        json!({
            "ssdlab": env!("CARGO_PKG_VERSION"),
            "result_format": RESULT_FORMAT,
            "device": s.device,
            "host": s.host,
            "scheduler": s.scheduler,
            "job": self.job_text,
            "occupancy": s.occupancy,
            "precondition": s.precondition.to_string(),
            "seed": s.seed,
        })
    }

    /// The point of a configuration made by `config` (one from the study
    /// cache or a sweep store), checked as a preset file and a job file are;
    /// one from another version of ssdlab is refused.
    pub fn from_config(config: &serde_json::Value) -> Result<PointSpec, InputError> {
        let bad = |m: String| InputError::invalid("point configuration", m);
        let c: ConfigFields =
            serde_json::from_value(config.clone()).map_err(|e| bad(e.to_string()))?;
        if c.ssdlab != env!("CARGO_PKG_VERSION") || c.result_format != RESULT_FORMAT {
            return Err(bad(format!(
                "made by ssdlab {} (result format {}), this is {} (result format {RESULT_FORMAT})",
                c.ssdlab,
                c.result_format,
                env!("CARGO_PKG_VERSION")
            )));
        }
        let preset = Preset {
            device: c.device,
            host: c.host,
        };
        let text = preset.to_toml().map_err(bad)?;
        let Preset { device, host } = Preset::from_toml(&text, "point configuration")?;
        ssdlab_sched::spec::parse(&c.scheduler)
            .map_err(|e| InputError::invalid("scheduler", e.to_string()))?;
        occupancy_share(c.occupancy * 100.0, "occupancy")?;
        ssdlab_fio::parse_str(&c.job, "<job>", &|_| None).map_err(from_fio)?;
        Ok(PointSpec {
            job_name: "<job>".into(),
            job_text: c.job,
            setup: RunSetup {
                device,
                host,
                scheduler: c.scheduler,
                occupancy: c.occupancy,
                precondition: c
                    .precondition
                    .parse()
                    .map_err(|m| InputError::invalid("precondition", m))?,
                seed: c.seed,
                check: false,
            },
        })
    }

    /// The configuration's hash (`Cache::key`).
    pub fn key(&self) -> String {
        Cache::key(&self.config())
    }

    /// Parses the job file and runs it.
    pub fn run(&self) -> Result<PointFigures, InputError> {
        let jobfile =
            ssdlab_fio::parse_str(&self.job_text, &self.job_name, &|_| None).map_err(from_fio)?;
        let res = fio_run::run(&jobfile, &self.setup, None)?;
        Ok(PointFigures::of(&res))
    }
}

/// What a point measured: per job, and for the device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointFigures {
    /// In the job file's order.
    pub jobs: Vec<JobFigures>,
    /// All jobs, MB/s (10^6 bytes), summed in job order.
    pub bw_mbs: f64,
    pub iops: f64,
    pub waf: f64,
    pub gc_invocations: u64,
    pub gc_pages_moved: u64,
    pub erases: u64,
    /// Simulated time at the end of the run, seconds.
    pub sim_seconds: f64,
    /// All jobs together, one row per simulated second: (second, bytes,
    /// I/Os), seconds without I/O as in `Sampler::per_second_series`.
    pub per_second: Vec<(u64, u64, u64)>,
    /// The scheduler's gauges (an adaptive bound…): per name, `(second,
    /// value)` once per simulated second; empty for schedulers without.
    #[serde(default)]
    pub gauges: Vec<(String, Vec<(u64, u64)>)>,
}

/// One job's figures; completion latencies (clat) of reads and writes
/// together unless the name says a direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobFigures {
    pub name: String,
    /// Reads and writes, MB/s (10^6 bytes).
    pub bw_mbs: f64,
    pub read_bw_mbs: f64,
    pub write_bw_mbs: f64,
    pub iops: f64,
    pub ios: u64,
    pub clat_mean_us: f64,
    pub clat_p50_us: f64,
    pub clat_p99_us: f64,
    pub clat_p999_us: f64,
    pub clat_max_us: f64,
    pub read_clat_p999_us: f64,
    pub write_clat_p999_us: f64,
}

impl PointFigures {
    pub fn of(res: &fio_run::RunResult) -> PointFigures {
        let f = &res.ftl;
        PointFigures {
            waf: f.waf(),
            gc_invocations: f.gc_invocations,
            gc_pages_moved: f.gc_pages_moved,
            erases: f.erases,
            ..Self::of_jobs(&res.stats, res.sim_end_ns, &res.scheduler_gauges)
        }
    }

    /// The figures of jobs run on a real drive (`run --target`, `probe`):
    /// the same per-job figures and per-second totals as a simulated run's;
    /// the flash's own counters are unknown there (WAF 0, no GC).
    pub fn of_live(
        stats: &[JobStats],
        end_ns: Ns,
        gauges: &ssdlab_sim::host::GaugeSeries,
    ) -> PointFigures {
        Self::of_jobs(stats, end_ns, gauges)
    }

    fn of_jobs(
        stats: &[JobStats],
        end_ns: Ns,
        gauges: &ssdlab_sim::host::GaugeSeries,
    ) -> PointFigures {
        let jobs: Vec<JobFigures> = stats.iter().map(|s| job_figures(&s.report)).collect();
        PointFigures {
            bw_mbs: jobs.iter().map(|j| j.bw_mbs).sum(),
            iops: jobs.iter().map(|j| j.iops).sum(),
            jobs,
            waf: 0.0,
            gc_invocations: 0,
            gc_pages_moved: 0,
            erases: 0,
            sim_seconds: end_ns as f64 / 1e9,
            per_second: per_second_totals(stats),
            gauges: gauges_of(gauges),
        }
    }

    /// The job called `name`.
    pub fn job(&self, name: &str) -> Option<&JobFigures> {
        self.jobs.iter().find(|j| j.name == name)
    }
}

fn job_figures(r: &JobReport) -> JobFigures {
    let mut clat = r.read.clat.clone();
    clat.merge(&r.write.clat);
    let pct = clat.percentiles(&[50.0, 99.0, 99.9]);
    let pct_us = |i: usize| pct.get(i).map_or(0.0, |p| p.1 as f64 / 1000.0);
    let p999_us = |h: &ssdlab_metrics::FioHistogram| {
        h.percentiles(&[99.9])
            .first()
            .map_or(0.0, |p| p.1 as f64 / 1000.0)
    };
    let mbs = |bytes_per_s: u64| bytes_per_s as f64 / 1e6;
    JobFigures {
        name: r.jobname.clone(),
        bw_mbs: (r.read.bw_bytes() + r.write.bw_bytes()) as f64 / 1e6,
        read_bw_mbs: mbs(r.read.bw_bytes()),
        write_bw_mbs: mbs(r.write.bw_bytes()),
        iops: r.read.iops() + r.write.iops(),
        ios: r.read.total_ios + r.write.total_ios,
        clat_mean_us: clat.mean() / 1000.0,
        clat_p50_us: pct_us(0),
        clat_p99_us: pct_us(1),
        clat_p999_us: pct_us(2),
        clat_max_us: clat.max() as f64 / 1000.0,
        read_clat_p999_us: p999_us(&r.read.clat),
        write_clat_p999_us: p999_us(&r.write.clat),
    }
}

fn gauges_of(g: &ssdlab_sim::host::GaugeSeries) -> Vec<(String, Vec<(u64, u64)>)> {
    g.names
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let series = g
                .samples
                .iter()
                .map(|(t, v)| (t / 1_000_000_000, v[k]))
                .collect();
            (name.to_string(), series)
        })
        .collect()
}

/// The bytes and I/Os of all jobs and directions, per simulated second
/// from the run's start (each job's own series counts from the end of its
/// start delay and ramp, as fio's logs do; here they share one clock).
fn per_second_totals(stats: &[JobStats]) -> Vec<(u64, u64, u64)> {
    let mut totals = std::collections::BTreeMap::<u64, (u64, u64)>::new();
    for sampler in stats.iter().flat_map(|s| &s.samplers) {
        let origin = sampler.start_ns / 1_000_000_000;
        for (sec, bytes, ios) in sampler.per_second_series() {
            let t = totals.entry(origin + sec).or_default();
            t.0 += bytes;
            t.1 += ios;
        }
    }
    totals.into_iter().map(|(s, (b, i))| (s, b, i)).collect()
}

/// An occupancy in percent, checked, as a share of the logical space.
pub fn occupancy_share(percent: f64, field: &str) -> Result<f64, InputError> {
    if !(0.0..=100.0).contains(&percent) {
        return Err(InputError::invalid(
            field,
            format!("{percent} is outside [0, 100]"),
        ));
    }
    Ok(percent / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab_sim::ssd::precondition::PreconditionMode;

    fn spec() -> PointSpec {
        let preset = Preset::load("mqsim-64g").unwrap();
        PointSpec {
            job_name: "t.fio".into(),
            job_text: "[j]\nrw=randread\nbs=4k\nsize=1m\nruntime=1ms\ntime_based=1\n".into(),
            setup: RunSetup {
                device: preset.device,
                host: preset.host,
                scheduler: "k2:max_inflight=4".into(),
                occupancy: 0.25,
                precondition: PreconditionMode::Aged { drive_writes: 0.5 },
                seed: 7,
                check: false,
            },
        }
    }

    #[test]
    fn per_second_totals_share_the_runs_clock() {
        // Job b starts 2 s late: its I/O is at seconds 2 and after, not
        // folded onto job a's first second.
        let mut s = spec();
        s.setup.occupancy = 0.0;
        s.setup.precondition = PreconditionMode::Fill;
        s.job_text = "[global]\nrw=randread\nbs=4k\nsize=1m\ntime_based=1\nruntime=500ms\n\
                      [a]\n[b]\nstartdelay=2\n"
            .into();
        let f = s.run().unwrap();
        let busy: Vec<u64> = f
            .per_second
            .iter()
            .filter(|r| r.1 > 0)
            .map(|r| r.0)
            .collect();
        assert_eq!(busy, vec![0, 2], "{:?}", f.per_second);
    }

    #[test]
    fn a_configuration_reads_back_as_the_same_point() {
        let s = spec();
        let back = PointSpec::from_config(&s.config()).unwrap();
        assert_eq!(back.config(), s.config());
        assert_eq!(back.key(), s.key());
    }

    #[test]
    fn every_input_changes_the_key() {
        let base = spec().key();
        let mut s = spec();
        s.setup.seed += 1;
        assert_ne!(s.key(), base);
        let mut s = spec();
        s.setup.device.geometry.blocks_per_plane += 1;
        assert_ne!(s.key(), base);
        let mut s = spec();
        s.setup.precondition = PreconditionMode::Fill;
        assert_ne!(s.key(), base);
        // The job's name only labels errors.
        let mut s = spec();
        s.job_name = "other.fio".into();
        assert_eq!(s.key(), base);
    }

    #[test]
    fn configurations_of_other_builds_and_bad_ones_are_refused() {
        let mut c = spec().config();
        c["ssdlab"] = "0.0.1".into();
        let e = PointSpec::from_config(&c).unwrap_err().to_string();
        assert!(e.contains("made by ssdlab 0.0.1"), "{e}");
        let mut c = spec().config();
        c["scheduler"] = "k2:max_inflight=0".into();
        assert!(PointSpec::from_config(&c).is_err());
        let mut c = spec().config();
        c["occupancy"] = 1.5.into();
        assert!(PointSpec::from_config(&c).is_err());
        let mut c = spec().config();
        c["job"] = "[j]\nrw=sideways\n".into();
        assert!(PointSpec::from_config(&c).is_err());
    }
}
