//! The command line's fixed choices, as typed values: clap checks them,
//! lists them in `--help` and in its error, and the commands match on
//! variants instead of strings.

use clap::ValueEnum;
use ssdlab_trace::{BlkparseAction, TimeUnit};

/// How `run` and `replay` print their report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// fio's text report plus ssdlab's own section.
    Normal,
    /// fio-compatible JSON (`--output-format=json`).
    Json,
}

/// The blkparse event taken as a trace's request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BlkparseEvent {
    /// Queued (Q).
    Q,
    /// Issued to the driver (D).
    D,
    /// Completed (C).
    C,
}

impl From<BlkparseEvent> for BlkparseAction {
    fn from(e: BlkparseEvent) -> Self {
        match e {
            BlkparseEvent::Q => BlkparseAction::Queue,
            BlkparseEvent::D => BlkparseAction::Issue,
            BlkparseEvent::C => BlkparseAction::Complete,
        }
    }
}

/// The unit of fio iolog v3 timestamps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IologTimeUnit {
    Ns,
    Us,
    Ms,
    S,
}

impl From<IologTimeUnit> for TimeUnit {
    fn from(u: IologTimeUnit) -> Self {
        match u {
            IologTimeUnit::Ns => TimeUnit::Ns,
            IologTimeUnit::Us => TimeUnit::Us,
            IologTimeUnit::Ms => TimeUnit::Ms,
            IologTimeUnit::S => TimeUnit::S,
        }
    }
}

pub use ssdlab_studies::commands::name_of;
pub use ssdlab_studies::k2::command::{K2Occupancy, K2Op};

/// K2's tuning objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TuneObjective {
    /// Maximise bandwidth with RT p99.9 at most α% of none's.
    O1,
    /// Minimise RT p99.9 with bandwidth at least β% of none's.
    O2,
}
