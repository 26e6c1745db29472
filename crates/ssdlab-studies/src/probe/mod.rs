//! `ssdlab probe`: a fixed plan of fio jobs that measures a real drive
//! (docs/real-drive.md, "Measure a drive, fit a preset"), the measurements
//! file it writes, its report, and the targets file `calibrate
//! --measurements` fits a preset to. Running the plan on a drive is the
//! CLI's (this crate never opens a device); what a case is, how its job
//! reads, and what it measured are here, so that the drive's figures and
//! the simulator's are read by the same code (`PointFigures`,
//! `calibrate::Metric`).

mod report;
mod targets;

pub use report::write_report;
pub use targets::{targets_for, DEFAULT_KEYS};

use crate::point::PointFigures;
use serde::{Deserialize, Serialize};
use ssdlab_sim::error::InputError;
use std::path::Path;

/// The version of the measurements file; a file of another version is
/// refused by `calibrate --measurements`.
pub const MEASUREMENTS_VERSION: u32 = 1;

/// The job name every case's job file uses (a latency target reads it).
pub const JOB_NAME: &str = "probe";

/// What a case measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Phase {
    /// Latency at queue depth 1, by block size and operation.
    Latency,
    /// Bandwidth and IOPS against queue depth, for the four operations.
    Depth,
    /// A long sequential write: where a write cache runs out.
    Sustained,
    /// A long random write into the drive's garbage-collection steady state.
    SteadyState,
}

/// One job of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    pub phase: Phase,
    /// fio's `rw`: read, write, randread or randwrite.
    pub rw: String,
    pub bs: u64,
    pub iodepth: u32,
    pub runtime_s: u64,
}

impl Case {
    /// A name for files and tables: `randread-4k-qd1`.
    pub fn name(&self) -> String {
        let size = if self.bs.is_multiple_of(1 << 20) {
            format!("{}m", self.bs >> 20)
        } else {
            format!("{}k", self.bs >> 10)
        };
        let prefix = match self.phase {
            Phase::Sustained => "sustained-",
            Phase::SteadyState => "steady-",
            _ => "",
        };
        format!("{prefix}{}-{size}-qd{}", self.rw, self.iodepth)
    }

    /// The case's fio job file over the first `region` bytes: fio's
    /// io_uring engine with direct I/O, time-based, one job.
    pub fn job_text(&self, region: u64) -> String {
        format!(
            "; ssdlab probe: {name}\n[global]\nioengine=io_uring\ndirect=1\nsize={region}\n\
             runtime={runtime}s\ntime_based=1\nrandrepeat=0\n\n[{JOB_NAME}]\nrw={rw}\nbs={bs}\n\
             iodepth={qd}\n",
            name = self.name(),
            runtime = self.runtime_s,
            rw = self.rw,
            bs = self.bs,
            qd = self.iodepth,
        )
    }
}

/// How long each part of the plan runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanSettings {
    /// Seconds per latency and queue-depth case.
    pub duration_s: u64,
    /// Seconds of the sustained sequential write (0: none).
    pub sustained_s: u64,
    /// Seconds of the random-write steady-state phase (0: none).
    pub steady_state_s: u64,
}

/// Block sizes of the latency cases.
const LATENCY_SIZES: [u64; 3] = [4 << 10, 16 << 10, 64 << 10];
/// Queue depths of the depth cases.
const DEPTHS: [u32; 4] = [1, 4, 16, 32];

/// The plan: QD-1 latency of random reads and writes at 4, 16 and 64 KiB;
/// bandwidth and IOPS at QD 1, 4, 16 and 32 of 128 KiB sequential and
/// 4 KiB random reads and writes (4 KiB random at QD 1 is a latency case
/// already); then, if asked, the sustained sequential write at QD 32 and
/// the random-write steady state at QD 32.
pub fn plan(s: &PlanSettings) -> Vec<Case> {
    let case = |phase, rw: &str, bs, iodepth, runtime_s| Case {
        phase,
        rw: rw.to_string(),
        bs,
        iodepth,
        runtime_s,
    };
    let mut cases = Vec::new();
    for rw in ["randread", "randwrite"] {
        for bs in LATENCY_SIZES {
            cases.push(case(Phase::Latency, rw, bs, 1, s.duration_s));
        }
    }
    for (rw, bs) in [
        ("read", 128 << 10),
        ("write", 128 << 10),
        ("randread", 4 << 10),
        ("randwrite", 4 << 10),
    ] {
        for qd in DEPTHS {
            if bs == 4 << 10 && qd == 1 {
                continue;
            }
            cases.push(case(Phase::Depth, rw, bs, qd, s.duration_s));
        }
    }
    if s.sustained_s > 0 {
        cases.push(case(
            Phase::Sustained,
            "write",
            128 << 10,
            32,
            s.sustained_s,
        ));
    }
    if s.steady_state_s > 0 {
        let c = case(
            Phase::SteadyState,
            "randwrite",
            4 << 10,
            32,
            s.steady_state_s,
        );
        cases.push(c);
    }
    cases
}

/// What ssdlab knew of the target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetInfo {
    pub path: String,
    /// "file" or "block device".
    pub kind: String,
    pub bytes: u64,
    pub logical_block: u32,
    /// The kernel's I/O scheduler for a block device (`none` is right).
    pub kernel_scheduler: Option<String>,
}

/// One case and what the drive did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    pub case: Case,
    pub name: String,
    /// The job file as it ran.
    pub job: String,
    pub figures: PointFigures,
}

/// The measurements file (`measurements.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurements {
    pub version: u32,
    pub target: TargetInfo,
    /// The bytes every job ran over, from the target's start.
    pub region_bytes: u64,
    pub settings: PlanSettings,
    pub cases: Vec<Measured>,
    /// Whether the probe stopped before its plan's end (a signal).
    pub partial: bool,
}

impl Measurements {
    /// Reads a measurements file (or `measurements.json` in a directory).
    pub fn load(path: &Path) -> Result<Measurements, InputError> {
        let path = if path.is_dir() {
            path.join("measurements.json")
        } else {
            path.to_path_buf()
        };
        let name = path.display().to_string();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| InputError::invalid(&name, e.to_string()))?;
        let m: Measurements = serde_json::from_str(&text).map_err(|e| {
            InputError::invalid(
                &name,
                format!("not a measurements file of `ssdlab probe`: {e}"),
            )
        })?;
        if m.version != MEASUREMENTS_VERSION {
            return Err(InputError::invalid(
                format!("{name}: version"),
                format!("{} (this ssdlab reads {MEASUREMENTS_VERSION})", m.version),
            ));
        }
        if m.cases.is_empty() {
            return Err(InputError::invalid(&name, "holds no measured case"));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_covers_latency_by_size_and_depth_by_operation() {
        let s = PlanSettings {
            duration_s: 2,
            sustained_s: 0,
            steady_state_s: 0,
        };
        let cases = plan(&s);
        assert_eq!(cases.len(), 6 + 4 * 4 - 2);
        let names: Vec<String> = cases.iter().map(Case::name).collect();
        for n in [
            "randread-4k-qd1",
            "randwrite-64k-qd1",
            "read-128k-qd32",
            "randwrite-4k-qd16",
        ] {
            assert!(names.contains(&n.to_string()), "{n} in {names:?}");
        }
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(unique.len(), names.len());
        let more = plan(&PlanSettings {
            sustained_s: 30,
            steady_state_s: 60,
            ..s
        });
        assert_eq!(more.len(), cases.len() + 2);
        assert_eq!(more[more.len() - 2].name(), "sustained-write-128k-qd32");
    }

    #[test]
    fn a_case_job_parses_as_fio_would_run_it() {
        let c = &plan(&PlanSettings {
            duration_s: 3,
            sustained_s: 0,
            steady_state_s: 0,
        })[0];
        let text = c.job_text(64 << 20);
        let jf = ssdlab_fio::parse_str(&text, "probe.fio", &|_| None).unwrap();
        assert_eq!(jf.jobs.len(), 1);
        assert_eq!(jf.jobs[0].name, JOB_NAME);
        assert_eq!(jf.jobs[0].iodepth, 1);
    }
}
