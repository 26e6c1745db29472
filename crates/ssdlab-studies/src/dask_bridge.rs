//! `reproduce STUDY --dask ADDRESS`: the study's points that are not in its
//! cache run on a Dask cluster through the Python package (`python -m
//! ssdlab._bridge`), which keeps them in its results store as
//! `ssdlab.sweep` does; the figures come back a line per point.

use crate::runner::{Remote, RemoteRunner};
use ssdlab_sim::error::InputError;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The cluster, the results store, and the Python that has `ssdlab`.
pub struct DaskBridge {
    pub address: String,
    pub store: PathBuf,
    pub python: PathBuf,
}

/// The flags that send a study's points to a cluster.
#[derive(clap::Args)]
pub struct ClusterArgs {
    /// Run the points not in the cache on this Dask scheduler
    /// (tcp://host:8786) through the Python package; they are kept in its
    /// results store too (docs/cluster.md).
    #[arg(long, value_name = "ADDRESS")]
    dask: Option<String>,
    /// The results store of --dask (default: OUT/store).
    #[arg(long, requires = "dask")]
    store: Option<PathBuf>,
    /// The Python of --dask (default: $SSDLAB_PYTHON, else .venv/bin/python
    /// when present, else python3).
    #[arg(long, requires = "dask")]
    python: Option<PathBuf>,
}

impl ClusterArgs {
    /// As [`ClusterArgs::remote`], for the studies' shared runner.
    pub fn shared(&self, out: &std::path::Path) -> Option<Remote> {
        self.remote(out).map(|r| Remote(std::sync::Arc::from(r)))
    }

    /// The bridge to the cluster, when `--dask` names one; the store
    /// defaults to `out/store`.
    pub fn remote(&self, out: &std::path::Path) -> Option<Box<dyn RemoteRunner>> {
        let address = self.dask.clone()?;
        Some(Box::new(DaskBridge {
            address,
            store: self.store.clone().unwrap_or_else(|| out.join("store")),
            python: default_python(self.python.clone()),
        }))
    }
}

/// `--python`, else `$SSDLAB_PYTHON`, else the project's `.venv` (made by
/// scripts/python-env.sh) when there is one, else `python3`.
pub fn default_python(given: Option<PathBuf>) -> PathBuf {
    given
        .or_else(|| std::env::var_os("SSDLAB_PYTHON").map(PathBuf::from))
        .or_else(|| {
            let venv = PathBuf::from(".venv/bin/python");
            venv.exists().then_some(venv)
        })
        .unwrap_or_else(|| PathBuf::from("python3"))
}

#[derive(serde::Deserialize)]
struct Line {
    key: String,
    figures: String,
}

impl DaskBridge {
    fn fail(&self, message: String) -> InputError {
        InputError::invalid("--dask", message)
    }
}

impl RemoteRunner for DaskBridge {
    fn run(&self, points: &[(String, String)]) -> Result<Vec<String>, InputError> {
        let mut child = Command::new(&self.python)
            .args([
                "-m",
                "ssdlab._bridge",
                "--address",
                &self.address,
                // One point a task: a study's points are few and heavy
                // (a round of the GC climb is 18), and Dask then hands
                // the next one to whichever worker is free.
                "--batch-size",
                "1",
                "--store",
            ])
            .arg(&self.store)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| {
                self.fail(format!(
                    "cannot run {} ({e}); give --python or SSDLAB_PYTHON, a Python with \
                     the ssdlab package (scripts/python-env.sh makes .venv)",
                    self.python.display()
                ))
            })?;
        let mut stdin = child.stdin.take().expect("piped");
        let lines: Vec<String> = points
            .iter()
            .map(|(key, config)| serde_json::json!({ "key": key, "config": config }).to_string())
            .collect();
        // Written from a thread, so that a full stdout pipe cannot stall both.
        let writer = std::thread::spawn(move || -> std::io::Result<()> {
            for l in lines {
                writeln!(stdin, "{l}")?;
            }
            Ok(())
        });
        let mut got: HashMap<String, String> = HashMap::new();
        let stdout = child.stdout.take().expect("piped");
        for line in BufReader::new(stdout).lines() {
            let line = line.map_err(|e| self.fail(format!("reading the bridge: {e}")))?;
            let parsed: Line = serde_json::from_str(&line)
                .map_err(|e| self.fail(format!("the bridge said '{line}': {e}")))?;
            got.insert(parsed.key, parsed.figures);
        }
        let status = child
            .wait()
            .map_err(|e| self.fail(format!("waiting for the bridge: {e}")))?;
        let written = writer.join().expect("the writer thread does not panic");
        if !status.success() {
            return Err(self.fail(format!(
                "python -m ssdlab._bridge failed ({status}); its message is above"
            )));
        }
        written.map_err(|e| self.fail(format!("writing to the bridge: {e}")))?;
        points
            .iter()
            .map(|(key, _)| {
                got.remove(key)
                    .ok_or_else(|| self.fail(format!("no figures came back for point {key}")))
            })
            .collect()
    }
}
