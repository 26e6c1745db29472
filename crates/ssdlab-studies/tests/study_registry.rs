//! CONTRIBUTING's "Add a study", followed once: a study is one file (its
//! flags, its run, what it says) and one registry line, `entry::<S>()`.
//! The study here is that file; the tests run it through its registry line
//! as `reproduce NAME` does, and check the real registry.

use ssdlab_sim::error::InputError;
use ssdlab_studies::commands::{entry, Console, Study, StudyCommand};
use ssdlab_studies::findings::Finding;
use ssdlab_studies::registry::{study, STUDIES};
use ssdlab_studies::report::{self, StudyReport};
use std::path::PathBuf;
use std::sync::Mutex;

/// The whole study: the analytical WAF of greedy GC under uniform random
/// writes (Xiang and Kurkoski) at a few spare factors.
#[derive(clap::Args)]
struct GreedyWaf {
    /// Output directory.
    #[arg(long)]
    out: PathBuf,
    /// Spare factors to tabulate; repeatable.
    #[arg(long = "spare", default_values_t = [0.07, 0.28])]
    spares: Vec<f64>,
}

#[derive(serde::Serialize)]
struct Row {
    spare_factor: f64,
    waf: f64,
}

impl Study for GreedyWaf {
    const NAME: &'static str = "greedy-waf";
    const ABOUT: &'static str = "Greedy GC's write amplification against the spare factor";

    fn run(self, console: &dyn Console) -> Result<Vec<Finding>, InputError> {
        let rows: Vec<Row> = self
            .spares
            .iter()
            .enumerate()
            .map(|(i, &spare)| {
                console.progress("greedy WAF", i + 1, self.spares.len());
                Row {
                    spare_factor: spare,
                    waf: ssdlab_studies::waf::xiang_kurkoski(spare),
                }
            })
            .collect();
        let body: String = rows
            .iter()
            .map(|r| format!("- spare {:.2}: WAF {:.2}\n", r.spare_factor, r.waf))
            .collect();
        let page = StudyReport::from_markdown("Greedy WAF", "# Greedy WAF", "", &body, vec![]);
        let files = report::write_study(&self.out, &rows, &page)?;
        console.say(&format!("greedy WAF: {} spare factors", rows.len()));
        ssdlab_studies::commands::say_files(console, &files);
        Ok(Vec::new())
    }
}

/// Its registry line (in the crate: one more line in `registry::STUDIES`).
const GREEDY_WAF: StudyCommand = entry::<GreedyWaf>();

/// A console that keeps what it is told.
#[derive(Default)]
struct Recorded {
    lines: Mutex<Vec<String>>,
    ticks: Mutex<Vec<(String, usize, usize)>>,
}

impl Console for Recorded {
    fn progress(&self, what: &str, done: usize, total: usize) {
        self.ticks
            .lock()
            .unwrap()
            .push((what.to_string(), done, total));
    }
    fn say(&self, line: &str) {
        self.lines.lock().unwrap().push(line.to_string());
    }
}

#[test]
fn a_one_file_study_runs_through_its_registry_line() {
    let dir = tempfile_dir("greedy-waf");
    let out = dir.display().to_string();
    let console = Recorded::default();
    let argv = [
        "greedy-waf",
        "--out",
        &out,
        "--spare",
        "0.1",
        "--spare",
        "0.5",
    ]
    .map(String::from);
    GREEDY_WAF.run_args(&argv, &console).unwrap();
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with("spare_factor,waf"));
    // More spare space, less amplification.
    let wafs: Vec<f64> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse().unwrap())
        .collect();
    assert!(wafs[0] > wafs[1] && wafs[1] > 1.0, "{wafs:?}");
    assert!(dir.join("report.html").exists() && dir.join("report.md").exists());
    let lines = console.lines.lock().unwrap();
    assert_eq!(lines[0], "greedy WAF: 2 spare factors");
    assert!(lines.iter().any(|l| l.ends_with("results.csv")));
    assert_eq!(console.ticks.lock().unwrap().last().unwrap().1, 2);
    // Its flags and its help come from the one file.
    let help = GREEDY_WAF.command().render_help().to_string();
    assert!(help.contains("Greedy GC's write amplification") && help.contains("--spare"));
    // A bad flag is an input error naming the command, not a panic.
    let e = GREEDY_WAF
        .run_args(
            &["greedy-waf".into(), "--spare".into(), "x".into()],
            &console,
        )
        .unwrap_err();
    assert!(e.to_string().contains("reproduce greedy-waf"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempfile_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn every_registry_line_is_a_well_formed_command() {
    let mut names: Vec<&str> = STUDIES.iter().map(|s| s.name).collect();
    for s in STUDIES {
        // clap's own checks of a command's definition (duplicate flags, …).
        s.command().debug_assert();
        assert_eq!(s.command().get_name(), s.name);
        assert!(study(s.name).is_some_and(|found| std::ptr::eq(found, s)));
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), STUDIES.len(), "study names are unique");
    let seeds: Vec<&str> = STUDIES
        .iter()
        .filter(|s| s.seed.is_some())
        .map(|s| s.name)
        .collect();
    assert_eq!(seeds, ["k2", "gc-ondemand", "rt-flash", "stb"]);
    // A study whose points carry their configuration is one a Dask worker
    // and ssdlab.sweep reach by the same name.
    for s in STUDIES.iter().filter(|s| s.points.is_some()) {
        let grid = ssdlab_studies::study_points::grid(s.name, "quick", 1, Default::default());
        assert!(grid.is_ok_and(|g| !g.is_empty()), "{}", s.name);
    }
}
