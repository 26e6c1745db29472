//! Parser for fio job files.
//!
//! Turns a job file into fully resolved, typed [`JobSpec`]s following fio's
//! HOWTO: INI sections with `[global]` inheritance (a job sees only the
//! global sections above it), `;`/`#` comments, `${VAR}` expansion,
//! `include FILE`, option aliases, size/time/percent values, numjobs clones
//! and stonewall/new_group reporting groups. Every error carries file, line
//! and option; the parser never panics.
//!
//! Choices where fio's HOWTO is silent, taken from fio's own parser:
//! - everything from the first `;` or `#` on any line is a comment (fio's
//!   `strip_blank_end`), so `bs=4k ; note` is `bs=4k`;
//! - a section whose name starts with `global` is a global section;
//! - option names are case-sensitive, words in values (rw, ioengine…) are not;
//! - `kb_base` is taken from the job's final options before any size is read;
//! - in per-direction lists a blank field keeps the inherited/default value;
//! - numjobs clones never carry `stonewall`/`new_group`, so they share the
//!   group of their job; `offset_increment` is applied per clone by
//!   [`JobSpec::region`];
//! - bssplit percentages below 100 without blanks are accepted (fio weights
//!   them); above 100 is an error.
//!
//! ```
//! let text = "[global]\nioengine=libaio\ndirect=1\n[job]\niodepth=32\nrw=randread\n";
//! let jf = ssdlab_fio::parse_str(text, "x.fio", &|_| None).unwrap();
//! assert_eq!(jf.jobs[0].iodepth, 32);
//! assert_eq!(jf.jobs[0].effective_iodepth(), 32);
//! ```

mod assemble;
mod error;
pub mod generator;
mod ini;
mod input;
mod job;
mod options;
mod spec;
mod values;

use std::path::{Path, PathBuf};

pub use assemble::MAX_JOBS;
pub use error::{ErrorKind, FioError};
pub use generator::{GeneratorError, IoDir, IoGenerator, IoUnit};
pub use input::{read_input, read_input_string, MAX_INPUT_BYTES};
pub use options::{find as find_option, option_table, Kind as OptionKind, OptionDef};
pub use spec::{
    IgnoredOption, IoEngine, JobFile, JobSpec, PerDir, PrioClass, RandomDistribution, RateProcess,
    RwMode, RwSequencer, SizeSpec, DEFAULT_PERCENTILES,
};

/// The longest time a job file may give (100 years in ns). Every time option
/// above it is refused when the file is read, so that the simulator's sums
/// of times never leave its integer clock.
pub const MAX_TIME_NS: u64 = 100 * 365 * 86_400 * 1_000_000_000;

/// Parser switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Skip unknown and unsupported options (listed in `JobFile::ignored`)
    /// instead of failing.
    pub ignore_unknown: bool,
}

/// A size with fio's suffixes (k/m/g/t/p, powers of two; KiB/KB forms), for
/// other front ends that take sizes the way job files do.
pub fn parse_size(s: &str) -> Result<u64, String> {
    values::parse_size(s, 1024).map_err(|e| e.msg)
}

/// An environment lookup backed by the process environment.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Parse a job file from disk. `env` resolves `${VAR}` (None → empty).
pub fn parse_file(path: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<JobFile, FioError> {
    parse_file_with(path, env, &ParseOptions::default())
}

/// [`parse_file`] with explicit [`ParseOptions`].
pub fn parse_file_with(
    path: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    opts: &ParseOptions,
) -> Result<JobFile, FioError> {
    let shown = path.display().to_string();
    let bytes = read_input(path).map_err(|e| {
        FioError::new(
            ErrorKind::Io,
            &shown,
            0,
            None,
            format!("cannot read job file: {e}"),
        )
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let key = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    parse_text(&text, &shown, &ini::parent_dir(path), key, env, opts)
}

/// Parse job-file text; `name` is used in errors and its directory resolves
/// relative includes.
pub fn parse_str(
    text: &str,
    name: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<JobFile, FioError> {
    parse_str_with(text, name, env, &ParseOptions::default())
}

/// [`parse_str`] with explicit [`ParseOptions`].
pub fn parse_str_with(
    text: &str,
    name: &str,
    env: &dyn Fn(&str) -> Option<String>,
    opts: &ParseOptions,
) -> Result<JobFile, FioError> {
    let path = Path::new(name);
    let key = path.canonicalize().unwrap_or_else(|_| PathBuf::from(name));
    parse_text(text, name, &ini::parent_dir(path), key, env, opts)
}

fn parse_text(
    text: &str,
    shown: &str,
    base_dir: &Path,
    key: PathBuf,
    env: &dyn Fn(&str) -> Option<String>,
    opts: &ParseOptions,
) -> Result<JobFile, FioError> {
    let mut reader = ini::Reader::new(env);
    reader.read(text, shown, base_dir, key, false)?;
    assemble::assemble(reader.items, opts)
}
