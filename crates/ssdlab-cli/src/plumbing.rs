//! What the study commands (`reproduce`, `calibrate`, `validate`) share:
//! the `--jobs` flag and the points bar.

use std::io::IsTerminal;

pub(crate) fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The most points run in parallel: a thread each, and each may hold a
/// whole device.
const MAX_JOBS: usize = 256;
/// `--jobs`: 1 to [`MAX_JOBS`].
pub(crate) fn parse_jobs(s: &str) -> Result<usize, String> {
    let n: usize = s.parse().map_err(|e| format!("{e}"))?;
    if (1..=MAX_JOBS).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{n} is outside 1..={MAX_JOBS}"))
    }
}

/// A "points done" bar on stderr, only on a terminal.
pub(crate) struct PointsBar(Option<indicatif::ProgressBar>);

impl PointsBar {
    pub(crate) fn tick(&self, done: usize, total: usize) {
        if let Some(b) = &self.0 {
            b.set_length(total as u64);
            b.set_position(done as u64);
        }
    }

    pub(crate) fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}

pub(crate) fn progress_bar(what: &str) -> PointsBar {
    PointsBar(std::io::stderr().is_terminal().then(|| {
        let b = indicatif::ProgressBar::new(1);
        let template =
            format!("{what} [{{bar:40}}] {{pos}}/{{len}} points ({{elapsed}}, eta {{eta}})");
        b.set_style(indicatif::ProgressStyle::with_template(&template).expect("valid template"));
        b
    }))
}
