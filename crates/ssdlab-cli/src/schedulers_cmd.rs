use ssdlab_sched::{TunableKind, REGISTRY};
use ssdlab_sim::error::InputError;

#[derive(clap::Args)]
pub struct Args {
    /// Show only this scheduler.
    name: Option<String>,
}

pub fn run(a: Args) -> Result<(), InputError> {
    let entries: Vec<_> = REGISTRY
        .iter()
        .filter(|e| a.name.as_deref().is_none_or(|n| n == e.name))
        .collect();
    if entries.is_empty() {
        let known: Vec<_> = REGISTRY.iter().map(|e| e.name).collect();
        return Err(InputError::invalid(
            "scheduler",
            format!(
                "unknown '{}' (known: {})",
                a.name.unwrap_or_default(),
                known.join(", ")
            ),
        ));
    }
    for e in entries {
        println!("{} — {}", e.name, e.help);
        if !e.tunables.is_empty() {
            println!(
                "    {:<22} {:<5} {:<9} {:<16} help",
                "tunable", "type", "default", "range"
            );
        }
        for t in e.tunables {
            let (kind, range, default) = describe(t.kind, t.default);
            println!(
                "    {:<22} {:<5} {:<9} {:<16} {}",
                t.name, kind, default, range, t.help
            );
        }
        println!();
    }
    println!("Spec strings: NAME[:TUNABLE=VALUE[,TUNABLE=VALUE...]], e.g. k2:max_inflight=8");
    Ok(())
}

fn describe(kind: TunableKind, default: i64) -> (&'static str, String, String) {
    match kind {
        TunableKind::Bool => ("bool", "0|1".into(), default.to_string()),
        TunableKind::Int { min, max } => ("int", format!("[{min}, {max}]"), default.to_string()),
        TunableKind::Duration { min, max, .. } => (
            "time",
            format!("[{}, {}]", fmt_ns(min), fmt_ns(max)),
            fmt_ns(default),
        ),
        TunableKind::Bytes { min, max } => (
            "size",
            format!("[{}, {}]", fmt_bytes(min), fmt_bytes(max)),
            fmt_bytes(default),
        ),
        TunableKind::Choice { names } => {
            ("name", names.join("|"), names[default as usize].to_string())
        }
    }
}

fn fmt_bytes(b: i64) -> String {
    const UNITS: [(i64, &str); 3] = [(1 << 30, "g"), (1 << 20, "m"), (1 << 10, "k")];
    UNITS
        .iter()
        .find(|(u, _)| b >= *u && b % u == 0)
        .map_or_else(|| b.to_string(), |(u, s)| format!("{}{s}", b / u))
}

fn fmt_ns(ns: i64) -> String {
    match ns {
        n if n >= 1_000_000_000 && n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n >= 1_000 && n % 1_000 == 0 => format!("{}us", n / 1_000),
        n => format!("{n}ns"),
    }
}
