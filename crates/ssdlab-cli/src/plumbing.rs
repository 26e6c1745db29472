//! What the study commands (`reproduce`, `calibrate`, `validate`) share:
//! the `--jobs` flag and the points bar.

use std::io::IsTerminal;

pub(crate) use ssdlab_studies::commands::{default_jobs, parse_jobs};

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
