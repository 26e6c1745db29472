//! `ssdlab validate fio --target PATH`: the same job files run by fio
//! (`ioengine=io_uring`) and by `ssdlab run --target`, side by side on one
//! target, round after round, and the medians compared.

use ssdlab_sim::error::InputError;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One case: an operation at a queue depth.
struct Case {
    name: &'static str,
    rw: &'static str,
    bs: &'static str,
    iodepth: u32,
}

const CASES: [Case; 8] = [
    Case {
        name: "randread QD1",
        rw: "randread",
        bs: "4k",
        iodepth: 1,
    },
    Case {
        name: "randread QD32",
        rw: "randread",
        bs: "4k",
        iodepth: 32,
    },
    Case {
        name: "randwrite QD1",
        rw: "randwrite",
        bs: "4k",
        iodepth: 1,
    },
    Case {
        name: "randwrite QD32",
        rw: "randwrite",
        bs: "4k",
        iodepth: 32,
    },
    Case {
        name: "read QD1",
        rw: "read",
        bs: "128k",
        iodepth: 1,
    },
    Case {
        name: "read QD32",
        rw: "read",
        bs: "128k",
        iodepth: 32,
    },
    Case {
        name: "write QD1",
        rw: "write",
        bs: "128k",
        iodepth: 1,
    },
    Case {
        name: "write QD32",
        rw: "write",
        bs: "128k",
        iodepth: 32,
    },
];

/// The settings of a comparison.
pub struct Settings {
    pub target: PathBuf,
    pub rounds: u32,
    pub runtime_s: u32,
    pub size: String,
    pub allow_destructive: bool,
    pub fio: String,
    pub json: bool,
}

/// What one run measured: bandwidth (KiB/s), IOPS, mean latency (ns).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
struct Figures {
    bw_kib_s: f64,
    iops: f64,
    mean_lat_ns: f64,
}

pub fn run(s: &Settings) -> Result<(), InputError> {
    check_fio(&s.fio)?;
    let dir = std::env::temp_dir().join(format!("ssdlab-validate-fio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| InputError::invalid("temp dir", e.to_string()))?;
    // The region is written once before any case, so that neither tool
    // meets unallocated blocks (a sparse file behind a loop device, holes
    // in a new file) that the other has already filled.
    let fill = dir.join("fill.fio");
    let fill_job = format!(
        "[fill]\nrw=write\nbs=1m\ndirect=1\nsize={}\nioengine=io_uring\niodepth=8\n",
        s.size
    );
    std::fs::write(&fill, fill_job).map_err(|e| InputError::invalid("temp dir", e.to_string()))?;
    run_ssdlab(&fill, s)?;
    let mut rows = Vec::new();
    for case in &CASES {
        let job = dir.join(format!("{}.fio", case.name.replace(' ', "-")));
        std::fs::write(&job, job_text(case, s))
            .map_err(|e| InputError::invalid("temp dir", e.to_string()))?;
        let (mut fio, mut ours) = (Vec::new(), Vec::new());
        for round in 0..s.rounds {
            // Alternate who goes first, so neither always meets a drive the
            // other has just warmed or filled.
            let order = if round % 2 == 0 {
                [true, false]
            } else {
                [false, true]
            };
            for by_fio in order {
                let f = if by_fio {
                    run_fio(&job, s)?
                } else {
                    run_ssdlab(&job, s)?
                };
                if by_fio {
                    fio.push(f)
                } else {
                    ours.push(f)
                }
            }
        }
        rows.push((case.name, median(&fio), median(&ours)));
    }
    let _ = std::fs::remove_dir_all(&dir);
    print(&rows, s)
}

fn job_text(case: &Case, s: &Settings) -> String {
    format!(
        "[global]\nioengine=io_uring\ndirect=1\nsize={}\nruntime={}\ntime_based=1\n\n\
         [{}]\nrw={}\nbs={}\niodepth={}\n",
        s.size, s.runtime_s, case.rw, case.rw, case.bs, case.iodepth
    )
}

fn check_fio(fio: &str) -> Result<(), InputError> {
    let out = Command::new(fio).arg("--version").output();
    match out {
        Ok(o) if o.status.success() => Ok(()),
        _ => Err(InputError::invalid(
            "--fio",
            format!("cannot run '{fio} --version': install fio (the distribution's package)"),
        )),
    }
}

fn run_fio(job: &Path, s: &Settings) -> Result<Figures, InputError> {
    let out = Command::new(&s.fio)
        .arg("--output-format=json")
        .arg(format!("--filename={}", s.target.display()))
        .arg(job)
        .output()
        .map_err(|e| InputError::invalid("--fio", e.to_string()))?;
    figures("fio", &out)
}

fn run_ssdlab(job: &Path, s: &Settings) -> Result<Figures, InputError> {
    let me = std::env::current_exe().map_err(|e| InputError::invalid("ssdlab", e.to_string()))?;
    let mut cmd = Command::new(me);
    cmd.arg("run")
        .arg(job)
        .arg("--target")
        .arg(&s.target)
        .args(["--output-format", "json"]);
    if s.allow_destructive {
        cmd.arg("--allow-destructive");
    }
    let out = cmd
        .output()
        .map_err(|e| InputError::invalid("ssdlab", e.to_string()))?;
    figures("ssdlab run --target", &out)
}

/// The figures of a fio-format JSON report's first job, both directions
/// summed (each case has one).
fn figures(who: &str, out: &std::process::Output) -> Result<Figures, InputError> {
    let text = String::from_utf8_lossy(&out.stdout);
    let fail = |why: String| InputError::invalid(who, why);
    if !out.status.success() {
        return Err(fail(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    // fio may print notes before its JSON.
    let start = text
        .find('{')
        .ok_or_else(|| fail("no JSON report".into()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text[start..]).map_err(|e| fail(e.to_string()))?;
    let job = &v["jobs"][0];
    let mut f = Figures::default();
    for dir in ["read", "write"] {
        let d = &job[dir];
        if d["io_bytes"].as_u64().unwrap_or(0) == 0 {
            continue;
        }
        f.bw_kib_s += d["bw"].as_f64().unwrap_or(0.0);
        f.iops += d["iops"].as_f64().unwrap_or(0.0);
        f.mean_lat_ns = d["lat_ns"]["mean"].as_f64().unwrap_or(0.0);
    }
    Ok(f)
}

fn median(runs: &[Figures]) -> Figures {
    let med = |pick: fn(&Figures) -> f64| {
        let mut v: Vec<f64> = runs.iter().map(pick).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Figures {
        bw_kib_s: med(|f| f.bw_kib_s),
        iops: med(|f| f.iops),
        mean_lat_ns: med(|f| f.mean_lat_ns),
    }
}

fn print(rows: &[(&str, Figures, Figures)], s: &Settings) -> Result<(), InputError> {
    if s.json {
        let v: Vec<_> = rows
            .iter()
            .map(|(n, f, o)| serde_json::json!({"case": n, "fio": f, "ssdlab": o}))
            .collect();
        return crate::output::print_json(&v);
    }
    let ratio = |o: f64, f: f64| if f > 0.0 { o / f } else { f64::NAN };
    let mark = |r: f64| if (r - 1.0).abs() <= 0.15 { " " } else { "*" };
    let mut text = format!(
        "target {} — medians of {} rounds of {} s, side by side (* off by more than 15 %)\n\n",
        s.target.display(),
        s.rounds,
        s.runtime_s
    );
    text += "case             fio IOPS   ssdlab IOPS  ratio   fio MiB/s  ssdlab MiB/s  ratio   fio lat µs  ssdlab lat µs  ratio\n";
    for (name, f, o) in rows {
        let (ri, rb, rl) = (
            ratio(o.iops, f.iops),
            ratio(o.bw_kib_s, f.bw_kib_s),
            ratio(o.mean_lat_ns, f.mean_lat_ns),
        );
        text += &format!(
            "{name:<15} {:>9.0} {:>13.0} {ri:>6.2}{} {:>10.1} {:>13.1} {rb:>6.2}{} {:>11.1} {:>14.1} {rl:>6.2}{}\n",
            f.iops,
            o.iops,
            mark(ri),
            f.bw_kib_s / 1024.0,
            o.bw_kib_s / 1024.0,
            mark(rb),
            f.mean_lat_ns / 1e3,
            o.mean_lat_ns / 1e3,
            mark(rl),
        );
    }
    crate::output::write_stdout(&text)
}
