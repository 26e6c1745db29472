//! `ssdlab rtflash`: `analyze` allocates a real-time task set onto flash
//! chips and prints the clusters, worst-case latencies and verdict; `run`
//! simulates it (docs/rt-flash.md). What both read (the task set, the
//! approach) is in `common.rs`.

mod analyze;
mod common;
mod run;

use ssdlab_sim::error::InputError;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Allocate a task set (TOML) to chips and print the clusters, each
    /// task's worst-case latency breakdown and the verdict. An
    /// unschedulable set is a result (exit 0); a bad file exits 2.
    Analyze(analyze::AnalyzeArgs),
    /// Simulate a task set on its allocation: RT jobs at their worst-case
    /// rates, NRT through TBS or in the background; per task the deadline
    /// misses and response times beside the analysis' bound.
    Run(run::RunArgs),
}

pub fn run(a: Args) -> Result<(), InputError> {
    match a.command {
        Command::Analyze(a) => analyze::analyze(a),
        Command::Run(a) => run::run(a),
    }
}
