//! What `rtflash analyze` and `rtflash run` share: loading the task set
//! and reading `--approach`.

use ssdlab_rtflash::allocate::{ApproachChoice, Approaches};
use ssdlab_rtflash::{LeftoverChips, TaskSet};
use ssdlab_sim::error::InputError;
use ssdlab_sim::ssd::registry::Registry;

/// `--leftover-chips` of `analyze` and `run`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum LeftoverArg {
    NrtCluster,
    Spread,
}

/// Loads a task set, with `--leftover-chips` applied when given.
pub(crate) fn load_task_set(
    file: &str,
    leftover: Option<LeftoverArg>,
) -> Result<TaskSet, InputError> {
    let mut ts = TaskSet::load(file)?;
    if let Some(l) = leftover {
        ts.analysis.leftover_chips = match l {
            LeftoverArg::NrtCluster => LeftoverChips::NrtCluster,
            LeftoverArg::Spread => LeftoverChips::Spread,
        };
    }
    Ok(ts)
}

/// The `--approach` value of `analyze` and `run`.
pub(crate) fn parse_approach(name: &str) -> Result<ApproachChoice, InputError> {
    ApproachChoice::parse(name).map_err(|m| {
        InputError::invalid(
            "--approach",
            format!("{m}; {}", Approaches::names().join(", ")),
        )
    })
}
