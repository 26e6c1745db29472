use crate::output::Output;
use ssdlab_sim::error::InputError;
use ssdlab_sim::preset::Preset;
use ssdlab_trace::{profile, write_trace, SynthOptions, PROFILES};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
enum What {
    /// Write a synthetic trace matching an application profile (a synthetic
    /// stand-in for the on-demand GC study's traces).
    Synth(SynthArgs),
}

#[derive(clap::Args)]
struct SynthArgs {
    /// cassandra, mongodb, mysql, rocksdb, dbench or sqlite.
    #[arg(long)]
    profile: String,
    /// Trace format to write.
    #[arg(long, default_value = "mqsim", ignore_case = true,
          value_parser = clap::builder::PossibleValuesParser::new(ssdlab_trace::Format::NAMES))]
    format: String,
    /// Requests to write (1 to 10^8: about 3 GB of MQSim text; replay a
    /// trace several times with `replay --loop-write` for more).
    #[arg(long, default_value_t = 1_000_000,
          value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    requests: u64,
    /// Address space: the logical capacity of this device preset.
    #[arg(long, default_value = "seed004")]
    device: String,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file.
    #[arg(long)]
    out: PathBuf,
    /// Override the profile's skew: share of the address space that is hot.
    #[arg(long)]
    hot_share: Option<f64>,
    /// Override: share of random requests that go to the hot part.
    #[arg(long)]
    hot_access: Option<f64>,
    /// Override: % of random writes that rewrite a recent extent.
    #[arg(long)]
    overwrite_pct: Option<f64>,
    /// Override: mean length of a sequential run, in sequential requests.
    #[arg(long)]
    seq_run: Option<f64>,
    /// Override: share of the address space, at its end, that runs of
    /// writes append to as a log (0 = none).
    #[arg(long)]
    log_share: Option<f64>,
    /// Override: how fast the hot part slides through the address space,
    /// in hot-part lengths per hot-part length written (0 = fixed).
    #[arg(long)]
    hot_drift: Option<f64>,
    /// Override: arrival rate, requests per second.
    #[arg(long)]
    iops: Option<f64>,
}

/// A trace format name, or an error listing the known ones.
pub fn run(a: Args) -> Result<(), InputError> {
    let What::Synth(a) = a.what;
    let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
    let base = profile(&a.profile).ok_or_else(|| {
        InputError::invalid(
            "--profile",
            format!("unknown '{}' (known: {})", a.profile, names.join(", ")),
        )
    })?;
    let mut tuned = *base;
    tuned.hot_share = a.hot_share.unwrap_or(tuned.hot_share);
    tuned.hot_access = a.hot_access.unwrap_or(tuned.hot_access);
    tuned.overwrite_pct = a.overwrite_pct.unwrap_or(tuned.overwrite_pct);
    tuned.seq_run = a.seq_run.unwrap_or(tuned.seq_run);
    tuned.log_share = a.log_share.unwrap_or(tuned.log_share);
    tuned.hot_drift = a.hot_drift.unwrap_or(tuned.hot_drift);
    tuned.iops = a.iops.unwrap_or(tuned.iops);
    let p = &tuned;
    let format = ssdlab_sim::workload::replay_setup::parse_format(&a.format)?;
    if a.requests == 0 {
        return Err(InputError::invalid("--requests", "must be at least 1"));
    }
    let layout = Preset::load_device(&a.device)?.layout();
    let opts = SynthOptions {
        requests: a.requests,
        span_bytes: layout.capacity_bytes(),
        seed: a.seed,
    };
    // Checks the knobs before anything is written.
    ssdlab_trace::Synth::new(p, &opts).map_err(|e| InputError::invalid(flag_of(&e), e))?;
    let out = Output::check(&a.out, "--out")?;
    let file = out.display();
    let io = |e: std::io::Error| InputError::invalid(&file, e.to_string());
    let mut w = BufWriter::new(out.writer()?);
    let stats = write_trace(&mut w, format, p, &opts).map_err(io)?;
    w.flush().map_err(io)?;
    drop(w);
    out.commit()?;
    // The summary goes to stderr: with `--out -` the trace is stdout.
    eprintln!(
        "{} (synthetic stand-in for {}): {} requests, {} format",
        file,
        p.name,
        stats.requests,
        format.name()
    );
    eprintln!(
        "  read {:.1}% (profile {:.1}%), sequential {:.1}% ({:.1}%), avg read {:.1} KB ({:.1}), avg write {:.1} KB ({:.1})",
        stats.read_pct(),
        p.read_pct,
        stats.seq_pct(),
        p.seq_pct,
        stats.avg_read_kb(),
        p.avg_read_kb,
        stats.avg_write_kb(),
        p.avg_write_kb
    );
    Ok(())
}

/// The option a profile problem belongs to: the override flag of the knob
/// it names (`profile dbench: hot_share = 2 …` is `--hot-share`), else
/// `--profile`.
fn flag_of(message: &str) -> &'static str {
    const KNOBS: [(&str, &str); 7] = [
        ("hot_share", "--hot-share"),
        ("hot_access", "--hot-access"),
        ("overwrite_pct", "--overwrite-pct"),
        ("seq_run", "--seq-run"),
        ("log_share", "--log-share"),
        ("hot_drift", "--hot-drift"),
        ("iops", "--iops"),
    ];
    let knob = message
        .split_once(": ")
        .and_then(|(_, rest)| rest.split_once(' '))
        .map_or("", |(k, _)| k);
    KNOBS
        .iter()
        .find(|(name, _)| *name == knob)
        .map_or("--profile", |(_, flag)| flag)
}
