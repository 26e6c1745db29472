//! What a study command is: a set of flags (a `clap::Args` struct) that
//! runs the study and says what it found through a [`Console`]; [`entry`]
//! turns it into a [`StudyCommand`], a line of `registry::STUDIES`. The CLI
//! draws and prints; a study only reports to its console.

use crate::findings::Finding;
use crate::study_config::GridOverrides;
use serde_json::Value;
use ssdlab_sim::error::InputError;

/// How a study command shows its progress and says what it did: the CLI
/// draws a points bar on a terminal and prints the lines.
pub trait Console: Sync {
    /// `done` of `total` points of the part of the study called `what`.
    fn progress(&self, what: &str, done: usize, total: usize);
    /// One line of the command's summary.
    fn say(&self, line: &str);
}

/// A study command: its flags, what it reproduces and how it runs.
pub trait Study: clap::Args + clap::FromArgMatches + Sized {
    /// The subcommand: `reproduce NAME`.
    const NAME: &'static str;
    /// One line for `reproduce --help`; the flags' doc comments say the rest.
    const ABOUT: &'static str;
    /// For a seed study, what `reproduce all` runs and its index page says.
    const SEED: Option<Seed> = None;
    /// For a study whose points run from their configuration alone: how a
    /// Dask worker runs one and the grid `ssdlab.sweep` runs.
    const POINTS: Option<Points> = None;
    /// Runs the study; returns the paper's findings beside its own (empty
    /// when the study reproduces no paper).
    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError>;
}

/// What `reproduce all` shows of a seed study on its index page.
#[derive(Clone, Copy)]
pub struct Seed {
    pub title: &'static str,
    pub paper: &'static str,
}

/// A grid: each point's labels and configuration.
pub type Pairs = Vec<(Value, Value)>;

/// How a study's points run from their configuration alone (a
/// configuration carries the study's name in `"study"`): one point's result
/// as JSON, and the grid `reproduce NAME` runs for a plan (`paper` or not),
/// a seed and the plan's overrides.
#[derive(Clone, Copy)]
pub struct Points {
    pub run: fn(&Value) -> Result<String, InputError>,
    pub grid: fn(bool, u64, GridOverrides) -> Result<Pairs, InputError>,
}

/// A registry line: a [`Study`] as data.
pub struct StudyCommand {
    pub name: &'static str,
    pub about: &'static str,
    pub seed: Option<Seed>,
    pub points: Option<Points>,
    command: fn() -> clap::Command,
    run: fn(&clap::ArgMatches, &dyn Console) -> Result<Vec<Finding>, InputError>,
}

impl StudyCommand {
    /// The subcommand with its flags.
    pub fn command(&self) -> clap::Command {
        (self.command)()
    }

    /// Runs the study with the flags `matches` holds (from [`Self::command`]).
    pub fn run(
        &self,
        matches: &clap::ArgMatches,
        console: &dyn Console,
    ) -> Result<Vec<Finding>, InputError> {
        (self.run)(matches, console)
    }

    /// Runs the study with the flags of an argument list (the first is the
    /// command's name), as its own command parses them, so every default is
    /// the command's own.
    pub fn run_args(
        &self,
        argv: &[String],
        console: &dyn Console,
    ) -> Result<Vec<Finding>, InputError> {
        let matches = self
            .command()
            .try_get_matches_from(argv)
            .map_err(|e| InputError::invalid(format!("reproduce {}", self.name), e.to_string()))?;
        self.run(&matches, console)
    }
}

/// The registry line of study `S`.
pub const fn entry<S: Study>() -> StudyCommand {
    StudyCommand {
        name: S::NAME,
        about: S::ABOUT,
        seed: S::SEED,
        points: S::POINTS,
        command: command_of::<S>,
        run: run_of::<S>,
    }
}

fn command_of<S: Study>() -> clap::Command {
    // After the flags: a flattened group's doc comment would replace it.
    S::augment_args(clap::Command::new(S::NAME))
        .about(S::ABOUT)
        .long_about(None)
}

fn run_of<S: Study>(
    matches: &clap::ArgMatches,
    console: &dyn Console,
) -> Result<Vec<Finding>, InputError> {
    let flags = S::from_arg_matches(matches)
        .map_err(|e| InputError::invalid(format!("reproduce {}", S::NAME), e.to_string()))?;
    flags.run(console)
}

/// The default of `--jobs`: a thread per core.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most points run in parallel: a thread each, and each may hold a
/// whole device.
pub const MAX_JOBS: usize = 256;

/// `--jobs`: 1 to [`MAX_JOBS`].
pub fn parse_jobs(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if (1..=MAX_JOBS).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is outside 1..={MAX_JOBS}"))
    }
}

/// The name a choice has on the command line (and in results.csv).
pub fn name_of<T: clap::ValueEnum>(v: &T) -> String {
    v.to_possible_value()
        .map(|p| p.get_name().to_string())
        .unwrap_or_default()
}

/// A point's result as JSON, as a Dask worker returns it.
pub(crate) fn json<T: serde::Serialize>(result: &T) -> String {
    serde_json::to_string(result).expect("results serialize")
}

/// Says every file, indented, as the study commands end.
pub fn say_files<'a>(
    console: &dyn Console,
    files: impl IntoIterator<Item = &'a std::path::PathBuf>,
) {
    for f in files {
        console.say(&format!("  {}", f.display()));
    }
}
