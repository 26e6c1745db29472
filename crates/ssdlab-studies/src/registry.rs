//! Every study command, one line each ([`STUDIES`]): the CLI builds
//! `reproduce`'s subcommands from it and a Dask worker and `ssdlab.sweep`
//! find a study's points through it (`study_points`). With it, `reproduce
//! all` ([`All`]): the seed studies (every line with a
//! [`Seed`](crate::commands::Seed)), each into its own directory with its
//! own flags' defaults, and one index page that leads to every report and
//! says which of each paper's findings ssdlab agrees with.

use crate::commands::{default_jobs, entry, parse_jobs, say_files, Console, Study, StudyCommand};
use crate::findings::{tally, Finding};
use crate::report::index::{write_index, StudyEntry};
use ssdlab_sim::error::InputError;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Every study, one line each, in the order `reproduce --help` lists them
/// and `reproduce all` runs the seed studies.
pub static STUDIES: &[StudyCommand] = &[
    entry::<crate::k2::command::K2>(),
    entry::<crate::k2::command::Rtss>(),
    entry::<crate::k2_adaptive::command::K2Adaptive>(),
    entry::<crate::gc_study::command::GcOndemand>(),
    entry::<crate::rtflash::command::RtFlash>(),
    entry::<crate::stb_study::command::Stb>(),
    entry::<All>(),
];

/// The study called `name`.
pub fn study(name: &str) -> Option<&'static StudyCommand> {
    STUDIES.iter().find(|s| s.name == name)
}

#[derive(clap::Args)]
pub struct All {
    /// Every study's quick plan (the default): about 15 minutes on two cores.
    #[arg(long, conflicts_with = "paper")]
    quick: bool,
    /// Every study's paper plan (hours).
    #[arg(long)]
    paper: bool,
    /// The index and one directory per study (OUT/k2, OUT/gc-ondemand, …).
    #[arg(long, default_value = "out/all")]
    out: PathBuf,
    /// Only these studies (the seed studies: k2, gc-ondemand, rt-flash,
    /// stb); repeatable.
    #[arg(long = "study", value_parser = clap::builder::PossibleValuesParser::new(seed_names()))]
    studies: Vec<String>,
    #[arg(long, default_value_t = default_jobs(), value_parser = parse_jobs)]
    jobs: usize,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Run every study's points that are not in its cache on this Dask
    /// scheduler (tcp://host:8786); each study keeps its results store in
    /// OUT/NAME/store (docs/cluster.md).
    #[arg(long, value_name = "ADDRESS")]
    dask: Option<String>,
    /// The Python of --dask (default: $SSDLAB_PYTHON, else .venv/bin/python
    /// when present, else python3).
    #[arg(long, requires = "dask")]
    python: Option<PathBuf>,
}

fn seed_names() -> Vec<&'static str> {
    STUDIES
        .iter()
        .filter(|s| s.seed.is_some())
        .map(|s| s.name)
        .collect()
}

impl Study for All {
    const NAME: &'static str = "all";
    const ABOUT: &'static str = "The four seed studies (K2 with both occupancies, gc-ondemand, \
        rt-flash, stb), each in OUT/NAME, and OUT/index.html: per study, the paper's findings \
        ssdlab agrees with and where it differs";

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        let plan = if self.paper { "--paper" } else { "--quick" };
        let mut entries = Vec::new();
        let mut timings = Vec::new();
        let chosen = |name: &str| self.studies.is_empty() || self.studies.iter().any(|n| n == name);
        for s in STUDIES.iter().filter(|s| chosen(s.name)) {
            let Some(seed) = s.seed else { continue };
            let dir = self.out.join(s.name);
            console.say(&format!(
                "== reproduce {} {plan} --out {}",
                s.name,
                dir.display()
            ));
            let started = Instant::now();
            let findings = s.run_args(&self.argv(s.name, plan, &dir), console)?;
            timings.push((s.name, started.elapsed().as_secs_f64(), tally(&findings)));
            entries.push(StudyEntry {
                name: s.name.into(),
                title: seed.title.into(),
                paper: seed.paper.into(),
                findings,
            });
        }
        let plan_words = format!("each on its {} plan, seed {}", &plan[2..], self.seed);
        let files = write_index(&self.out, &plan_words, &entries)?;
        console.say(&format!("Seed studies in {}:", self.out.display()));
        for (name, seconds, agree) in timings {
            console.say(&format!("  {name:<12} {seconds:>7.1} s  {agree}"));
        }
        say_files(console, &files);
        Ok(Vec::new())
    }
}

impl All {
    /// A seed study's argument list: the plan, its directory and the shared flags.
    fn argv(&self, name: &str, plan: &str, dir: &Path) -> Vec<String> {
        let mut argv: Vec<String> = [
            name,
            plan,
            "--out",
            &dir.display().to_string(),
            "--jobs",
            &self.jobs.to_string(),
            "--seed",
            &self.seed.to_string(),
        ]
        .map(String::from)
        .into();
        if let Some(d) = &self.dask {
            argv.extend(["--dask".to_string(), d.clone()]);
        }
        if let Some(p) = &self.python {
            argv.extend(["--python".to_string(), p.display().to_string()]);
        }
        argv
    }
}
