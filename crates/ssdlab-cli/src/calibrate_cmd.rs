//! `ssdlab calibrate [TARGETS.toml]`: fits preset keys to measured figures
//! (docs/calibration.md, "Fitting a preset: `ssdlab calibrate`"); without a
//! file, to the K2 study's figures of both occupancies and the data
//! sheet's.

use ssdlab_sim::error::InputError;
use ssdlab_studies::calibrate::{self, Calibration, FitOptions};
use std::path::{Path, PathBuf};

/// The name of the built-in targets.
const BUILT_IN: &str = "k2";

#[derive(clap::Args)]
pub struct Args {
    /// The targets file: starting preset, keys with ranges, targets.
    /// Default: `k2`, the built-in targets (every figure of the K2 study,
    /// both occupancies, and of the drive's data sheet; four keys of
    /// consumer-tlc-250g).
    #[arg(conflicts_with = "measurements")]
    targets: Option<PathBuf>,
    /// Fit to what `ssdlab probe` measured (its measurements.json, or its
    /// output folder): writes OUT/targets.toml and OUT/jobs/ (a targets file
    /// like any other, to re-run or edit) and fits it.
    #[arg(long, requires = "base")]
    measurements: Option<PathBuf>,
    /// With --measurements: the preset the fit starts from (a name or a
    /// file); it must export at least the bytes the probe ran over.
    #[arg(long, requires = "measurements")]
    base: Option<String>,
    /// With --measurements: the keys to fit, comma-separated, each searched
    /// from an eighth to eight times the base's value.
    #[arg(long, requires = "measurements", value_delimiter = ',', default_values_t = ssdlab_studies::probe::DEFAULT_KEYS.iter().map(|k| k.to_string()))]
    keys: Vec<String>,
    /// Print the targets as a targets file (a starting point for your own)
    /// and exit.
    #[arg(long)]
    print: bool,
    /// Run the targets at the keys' starting values and write the
    /// residuals, without a search: how far the preset is from the figures.
    #[arg(long, conflicts_with = "print")]
    evaluate: bool,
    /// Where fitted.toml, residuals.md and the run cache go.
    #[arg(long, default_value = "out/calibrate")]
    out: PathBuf,
    /// Points run in parallel.
    #[arg(long, default_value_t = crate::plumbing::default_jobs(), value_parser = crate::plumbing::parse_jobs)]
    jobs: usize,
    /// Nelder–Mead iterations at most (about 1.5 evaluations each).
    #[arg(long, default_value_t = 40)]
    max_iters: u64,
    #[command(flatten)]
    cluster: ssdlab_studies::dask_bridge::ClusterArgs,
}

pub fn run(a: Args) -> Result<(), InputError> {
    if a.jobs == 0 || a.max_iters == 0 {
        return Err(InputError::invalid(
            "--jobs/--max-iters",
            "must be at least 1",
        ));
    }
    let (cal, source) = match (&a.measurements, &a.targets) {
        (Some(m), _) => (
            from_measurements(m, a.base.as_deref().unwrap_or_default(), &a.keys, &a.out)?,
            m.display().to_string(),
        ),
        (None, targets) => builtin_or_file(targets)?,
    };
    if a.print {
        let text = toml::to_string(&cal.file)
            .map_err(|e| InputError::invalid("--print", e.to_string()))?;
        print!("{text}");
        return Ok(());
    }
    let opts = FitOptions {
        cache_dir: a.out.join("cache"),
        threads: a.jobs,
        max_iters: a.max_iters,
        remote: a.cluster.shared(&a.out),
    };
    let started = std::time::Instant::now();
    let fitted = if a.evaluate {
        calibrate::evaluate(&cal, &opts)?
    } else {
        let progress =
            |n: usize, best: f64| eprint!("\rcalibrate: evaluation {n}, best cost {best:.6}   ");
        let fitted = calibrate::fit(&cal, &opts, &progress)?;
        eprintln!();
        fitted
    };
    let table = calibrate::residuals_markdown(&fitted);
    let mut values = String::new();
    for (k, v) in &fitted.values {
        values.push_str(&format!("{k} = {v}\n"));
    }
    let report = format!(
        "# Calibration of {} from {}\n\n{}:\n\n```toml\n{values}```\n\nCost (weighted squared relative errors): {:.6}\n\n{table}",
        cal.file.device,
        source,
        if a.evaluate { "Keys at their starting values (no search)" } else { "Fitted keys" },
        fitted.cost
    );
    write_atomically(&a.out.join("fitted.toml"), &fitted.preset_toml)?;
    write_atomically(&a.out.join("residuals.md"), &report)?;
    print!("{values}\n{table}");
    // The wall time goes to stderr: stdout is the same on every rerun.
    eprintln!("calibrate: {:.1} s", started.elapsed().as_secs_f64());
    println!(
        "cost {:.6}; {} runs computed (the rest from the cache)\n  {}\n  {}",
        fitted.cost,
        fitted.runs,
        a.out.join("fitted.toml").display(),
        a.out.join("residuals.md").display()
    );
    Ok(())
}

/// The targets of a file, or the built-in ones (`k2`, or no file).
fn builtin_or_file(targets: &Option<PathBuf>) -> Result<(Calibration, String), InputError> {
    Ok(match targets {
        // `k2` names the built-in set unless a file of that name exists.
        Some(path) if path.as_os_str() != BUILT_IN || path.exists() => {
            (Calibration::load(path)?, path.display().to_string())
        }
        _ => (
            Calibration::new(calibrate::builtin_targets(), Path::new("."), BUILT_IN)?,
            "the built-in targets (the K2 study and the data sheet)".to_string(),
        ),
    })
}

/// The targets for a probe's measurements on `base`, written to
/// OUT/targets.toml and OUT/jobs/ first, then read back as any targets
/// file (so the same checks apply and the fit can be re-run from it).
fn from_measurements(
    path: &Path,
    base: &str,
    keys: &[String],
    out: &Path,
) -> Result<Calibration, InputError> {
    let m = ssdlab_studies::probe::Measurements::load(path)?;
    if m.partial {
        eprintln!(
            "ssdlab: {}: the probe was stopped early; fitting what it measured",
            path.display()
        );
    }
    let (file, jobs) = ssdlab_studies::probe::targets_for(&m, base, keys)?;
    for (name, text) in &jobs {
        write_atomically(&out.join(name), text)?;
    }
    let text = toml::to_string(&file).map_err(|e| InputError::invalid("targets", e.to_string()))?;
    let targets = out.join("targets.toml");
    write_atomically(&targets, &text)?;
    Calibration::load(&targets)
}

/// Writes `text` to a temporary file renamed into place: a killed run
/// leaves the old file or the new one, never half of one.
fn write_atomically(path: &Path, text: &str) -> Result<(), InputError> {
    let io = |e: std::io::Error| InputError::invalid(path.display().to_string(), e.to_string());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}
