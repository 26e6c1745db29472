//! `ssdlab reproduce`: one subcommand per line of the studies' registry
//! (`ssdlab_studies::registry::STUDIES`). A study's flags and driver live
//! with the study; here is only the console it reports to: a points bar on
//! a terminal and its lines on stdout.

use crate::plumbing::{progress_bar, PointsBar};
use ssdlab_sim::error::InputError;
use ssdlab_studies::commands::{Console, StudyCommand};
use ssdlab_studies::registry::{study, STUDIES};
use std::sync::Mutex;

/// The study chosen and its flags, as clap matched them.
pub struct Args {
    study: &'static StudyCommand,
    matches: clap::ArgMatches,
}

impl clap::FromArgMatches for Args {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        let (name, matches) = m
            .subcommand()
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::MissingSubcommand))?;
        let study = study(name)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidSubcommand))?;
        Ok(Args {
            study,
            matches: matches.clone(),
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for Args {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        STUDIES
            .iter()
            .fold(cmd.subcommand_required(true), |cmd, s| {
                cmd.subcommand(s.command())
            })
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

pub fn run(a: Args) -> Result<(), InputError> {
    let console = Terminal::default();
    let result = a.study.run(&a.matches, &console);
    console.clear();
    result.map(drop)
}

/// The CLI's console: one points bar at a time on stderr (on a terminal),
/// the summary lines on stdout.
#[derive(Default)]
struct Terminal {
    bar: Mutex<Option<(String, PointsBar)>>,
}

impl Terminal {
    fn clear(&self) {
        if let Some((_, bar)) = self.bar.lock().expect("not poisoned").take() {
            bar.finish();
        }
    }
}

impl Console for Terminal {
    fn progress(&self, what: &str, done: usize, total: usize) {
        let mut bar = self.bar.lock().expect("not poisoned");
        if bar.as_ref().is_none_or(|(name, _)| name != what) {
            if let Some((_, old)) = bar.take() {
                old.finish();
            }
            *bar = Some((what.to_string(), progress_bar(what)));
        }
        if let Some((_, b)) = bar.as_ref() {
            b.tick(done, total);
        }
    }

    fn say(&self, line: &str) {
        self.clear();
        println!("{line}");
    }
}
