//! `ssdlab reproduce all`: the four seed studies (K2 with both occupancies,
//! gc-ondemand, rt-flash, stb), each into its own directory with its own
//! flags' defaults, and one index page that leads to every report and says
//! which of each paper's findings ssdlab agrees with.

use crate::plumbing::{default_jobs, parse_jobs};
use ssdlab_sim::error::InputError;
use ssdlab_studies::findings::{tally, Finding};
use ssdlab_studies::report::index::{write_index, StudyEntry};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(clap::Args)]
pub struct AllArgs {
    /// Every study's quick plan (the default): about 15 minutes on two cores.
    #[arg(long, conflicts_with = "paper")]
    quick: bool,
    /// Every study's paper plan (hours).
    #[arg(long)]
    paper: bool,
    /// The index and one directory per study (OUT/k2, OUT/gc-ondemand, …).
    #[arg(long, default_value = "out/all")]
    out: PathBuf,
    /// Only these studies (k2, gc-ondemand, rt-flash, stb); repeatable.
    #[arg(long = "study", value_parser = clap::builder::PossibleValuesParser::new(STUDIES.map(|s| s.name)))]
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

/// A seed study: its command, what it reproduces and how it runs.
struct Study {
    name: &'static str,
    title: &'static str,
    paper: &'static str,
    run: fn(&[String]) -> Result<Vec<Finding>, InputError>,
}

const STUDIES: [Study; 4] = [
    Study {
        name: "k2",
        title: "K2 queue-length bound",
        paper: "Park and Lee, Electronics 10(7):865, 2021",
        run: |argv| super::k2::run_k2(parse(argv)?),
    },
    Study {
        name: "gc-ondemand",
        title: "On-demand GC with prioritized victims",
        paper: "Lee, Choi and Hong, Electronics 12(9):2142, 2023",
        run: |argv| super::gc::run_gc(parse(argv)?),
    },
    Study {
        name: "rt-flash",
        title: "Real-time flash: chip clustering and TBS",
        paper: "Kim et al., DAC 2021",
        run: |argv| super::rtflash::run(parse(argv)?),
    },
    Study {
        name: "stb",
        title: "Selective time-out bundling",
        paper: "Kang, Park and Yoo, 2011",
        run: |argv| super::stb::run(parse(argv)?),
    },
];

/// A study's flags from an argument list, as its own command parses them
/// (so every default is the command's own).
fn parse<A: clap::Args + clap::FromArgMatches>(argv: &[String]) -> Result<A, InputError> {
    let cmd = A::augment_args(clap::Command::new("reproduce"));
    cmd.try_get_matches_from(argv)
        .and_then(|m| A::from_arg_matches(&m))
        .map_err(|e| InputError::invalid("reproduce all", e.to_string()))
}

pub fn run(a: AllArgs) -> Result<(), InputError> {
    let plan = if a.paper { "--paper" } else { "--quick" };
    let mut entries = Vec::new();
    let mut timings = Vec::new();
    for s in STUDIES
        .iter()
        .filter(|s| a.studies.is_empty() || a.studies.iter().any(|n| n == s.name))
    {
        let dir = a.out.join(s.name);
        println!("== reproduce {} {plan} --out {}", s.name, dir.display());
        let started = Instant::now();
        let findings = (s.run)(&argv(s.name, plan, &dir, &a))?;
        timings.push((s.name, started.elapsed().as_secs_f64(), tally(&findings)));
        entries.push(StudyEntry {
            name: s.name.into(),
            title: s.title.into(),
            paper: s.paper.into(),
            findings,
        });
    }
    let plan_words = format!("each on its {} plan, seed {}", &plan[2..], a.seed);
    let files = write_index(&a.out, &plan_words, &entries)?;
    println!("Seed studies in {}:", a.out.display());
    for (name, seconds, agree) in timings {
        println!("  {name:<12} {seconds:>7.1} s  {agree}");
    }
    for f in files {
        println!("  {}", f.display());
    }
    Ok(())
}

fn argv(name: &str, plan: &str, dir: &Path, a: &AllArgs) -> Vec<String> {
    [
        name,
        plan,
        "--out",
        &dir.display().to_string(),
        "--jobs",
        &a.jobs.to_string(),
        "--seed",
        &a.seed.to_string(),
    ]
    .map(String::from)
    .into_iter()
    .chain(
        a.dask
            .iter()
            .flat_map(|d| ["--dask".to_string(), d.clone()]),
    )
    .chain(
        a.python
            .iter()
            .flat_map(|p| ["--python".to_string(), p.display().to_string()]),
    )
    .collect()
}
