//! Tunables declared as data, and spec strings that build schedulers:
//! `name[:key=value[,key=value…]]`, e.g. `k2:max_inflight=8` or
//! `mq-deadline:read_expire=500ms,fifo_batch=8`.

use super::{entry, Scheduler, REGISTRY};
use ssdlab_protocol::parse_duration_ns;
use std::collections::BTreeMap;
use thiserror::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TunableKind {
    /// An integer in [min, max].
    Int {
        min: i64,
        max: i64,
    },
    /// A duration in ns in [min, max]; accepts ns/us/ms/s suffixes (bare
    /// numbers are in `unit_ns`, as the kernel's sysfs attribute is).
    Duration {
        min: i64,
        max: i64,
        unit_ns: i64,
    },
    Bool,
    /// A size in bytes in [min, max], written as in fio job files: `4k`,
    /// `1m` are powers of two, bare numbers are bytes, and, as fio does
    /// with its default kb_base, `KiB`/`MiB` are powers of ten.
    Bytes {
        min: i64,
        max: i64,
    },
    /// One of a few names; the value is the name's index.
    Choice {
        names: &'static [&'static str],
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tunable {
    pub name: &'static str,
    pub kind: TunableKind,
    /// Default value (ns for durations, 0/1 for booleans).
    pub default: i64,
    pub help: &'static str,
}

/// Resolved tunable values of one scheduler instance.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Tunables {
    values: BTreeMap<&'static str, i64>,
}

impl Tunables {
    /// The value of a declared tunable (defaults filled in).
    pub fn get(&self, name: &str) -> i64 {
        *self
            .values
            .get(name)
            .unwrap_or_else(|| panic!("undeclared tunable {name}"))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        self.values.iter().map(|(k, v)| (*k, *v))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SpecError {
    #[error("unknown scheduler '{name}' (known: {known})")]
    UnknownScheduler { name: String, known: String },
    #[error("scheduler '{scheduler}' has no tunable '{name}' (tunables: {known})")]
    UnknownTunable {
        scheduler: String,
        name: String,
        known: String,
    },
    #[error("scheduler '{scheduler}': tunable '{name}': {message}")]
    BadValue {
        scheduler: String,
        name: String,
        message: String,
    },
    #[error("malformed scheduler spec '{spec}': {message}")]
    Malformed { spec: String, message: String },
}

/// Builds a scheduler from a spec string.
pub fn build(spec: &str) -> Result<Box<dyn Scheduler>, SpecError> {
    let (name, tunables) = parse(spec)?;
    Ok((entry(&name).expect("parse checked the name").make)(
        &tunables,
    ))
}

/// Parses and validates a spec string into a scheduler name and its tunables.
pub fn parse(spec: &str) -> Result<(String, Tunables), SpecError> {
    let spec = spec.trim();
    let (name, rest) = spec.split_once(':').unwrap_or((spec, ""));
    let e = entry(name).ok_or_else(|| SpecError::UnknownScheduler {
        name: name.to_string(),
        known: REGISTRY
            .iter()
            .map(|e| e.name)
            .collect::<Vec<_>>()
            .join(", "),
    })?;
    let mut values: BTreeMap<&'static str, i64> =
        e.tunables.iter().map(|t| (t.name, t.default)).collect();
    let mut given: Vec<&'static str> = Vec::new();
    for pair in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').ok_or_else(|| SpecError::Malformed {
            spec: spec.to_string(),
            message: format!("'{pair}' is not key=value"),
        })?;
        let (k, v) = (k.trim(), v.trim());
        let t =
            e.tunables
                .iter()
                .find(|t| t.name == k)
                .ok_or_else(|| SpecError::UnknownTunable {
                    scheduler: name.to_string(),
                    name: k.to_string(),
                    known: if e.tunables.is_empty() {
                        "none".to_string()
                    } else {
                        e.tunables
                            .iter()
                            .map(|t| t.name)
                            .collect::<Vec<_>>()
                            .join(", ")
                    },
                })?;
        if given.contains(&t.name) {
            return Err(SpecError::BadValue {
                scheduler: name.to_string(),
                name: k.to_string(),
                message: "given twice".to_string(),
            });
        }
        given.push(t.name);
        let value = parse_value(t, v).map_err(|message| SpecError::BadValue {
            scheduler: name.to_string(),
            name: k.to_string(),
            message,
        })?;
        values.insert(t.name, value);
    }
    Ok((name.to_string(), Tunables { values }))
}

fn parse_value(t: &Tunable, v: &str) -> Result<i64, String> {
    match t.kind {
        TunableKind::Bool => match v {
            "1" | "true" | "on" | "yes" => Ok(1),
            "0" | "false" | "off" | "no" => Ok(0),
            _ => Err(format!("'{v}' is not a boolean (0/1, true/false)")),
        },
        TunableKind::Int { min, max } => {
            let n: i64 = v.parse().map_err(|_| format!("'{v}' is not an integer"))?;
            in_range(n, min, max, v)
        }
        TunableKind::Duration { min, max, unit_ns } => {
            let n = parse_duration_ns(v, unit_ns)?;
            in_range(n, min, max, v)
        }
        TunableKind::Bytes { min, max } => {
            let n = ssdlab_fio::parse_size(v)
                .ok()
                .and_then(|b| i64::try_from(b).ok())
                .ok_or_else(|| format!("'{v}' is not a size (bytes, or with k/m/g)"))?;
            in_range(n, min, max, v)
        }
        TunableKind::Choice { names } => names
            .iter()
            .position(|n| *n == v)
            .map(|i| i as i64)
            .ok_or_else(|| format!("'{v}' is not one of {}", names.join(", "))),
    }
}

fn in_range(n: i64, min: i64, max: i64, v: &str) -> Result<i64, String> {
    if n < min || n > max {
        return Err(format!("{v} is outside [{min}, {max}]"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tunable_given_twice_is_an_error() {
        let e = parse("k2:max_inflight=1,max_inflight=8").unwrap_err();
        assert!(e.to_string().contains("'max_inflight': given twice"), "{e}");
        assert!(parse("k2:max_inflight=8").is_ok());
    }

    #[test]
    fn unknown_names_are_errors() {
        assert!(matches!(
            build("nope"),
            Err(SpecError::UnknownScheduler { .. })
        ));
        assert!(matches!(
            build("none:depth=3"),
            Err(SpecError::UnknownTunable { .. })
        ));
        assert!(matches!(
            build("none:depth"),
            Err(SpecError::Malformed { .. })
        ));
        assert_eq!(build("none").unwrap().name(), "none");
    }

    #[test]
    fn every_scheduler_builds_under_its_registry_name() {
        for e in REGISTRY {
            assert_eq!(build(e.name).unwrap().name(), e.name);
        }
    }

    use proptest::prelude::*;

    /// Value strings near and beyond the edges every kind accepts.
    fn value() -> impl Strategy<Value = String> {
        let num = prop_oneof![
            any::<i64>().prop_map(|n| n.to_string()),
            (0u64..5000).prop_map(|n| n.to_string()),
            any::<f64>().prop_map(|f| f.to_string()),
            Just("18446744073709551616".to_string()),
        ];
        let unit = prop::sample::select(vec![
            "", "ns", "us", "ms", "s", "k", "m", "g", "t", "p", "KiB", "MiB", "x", "e9",
        ]);
        prop_oneof![
            (num, unit).prop_map(|(n, u)| format!("{n}{u}")),
            "[a-z0-9=,.:-]{0,12}",
        ]
    }

    proptest! {
        /// Any string is a scheduler or an error, never a panic.
        #[test]
        fn arbitrary_specs_never_panic(spec in "\\PC{0,40}") {
            let _ = build(&spec);
        }

    }

    /// A value `share` of the way from `min` to `max`, written as the
    /// tunable's kind is (durations with their unit).
    fn value_inside(kind: TunableKind, min: i64, max: i64, share: f64) -> String {
        let span = (max as i128 - min as i128) as f64;
        let n = (min as i128 + (span * share) as i128).clamp(min as i128, max as i128);
        match kind {
            TunableKind::Duration { .. } => format!("{n}ns"),
            TunableKind::Choice { names } => names[n as usize].to_string(),
            _ => n.to_string(),
        }
    }

    /// Every tunable of every scheduler takes a value in its range or
    /// rejects it, and the scheduler it builds runs a request. The run
    /// counts the values that parsed, so that a parser rejecting
    /// everything cannot pass it.
    #[test]
    fn tunable_values_are_in_range_or_rejected() {
        use proptest::test_runner::{Config, TestRunner};
        let parsed = std::cell::Cell::new(0u32);
        let cases = Config::default().cases;
        let mut runner = TestRunner::new(Config::default());
        // Half the cases draw a value inside the tunable's range (which must
        // parse), half one near or beyond the edges (which may not).
        let strategy = (0usize..32, 0usize..8, value(), any::<bool>(), 0.0f64..=1.0);
        runner
            .run(&strategy, |(entry_i, tun_i, v, inside, share)| {
                let e = &REGISTRY[entry_i % REGISTRY.len()];
                if e.tunables.is_empty() {
                    return Ok(());
                }
                let t = &e.tunables[tun_i % e.tunables.len()];
                let (min, max) = match t.kind {
                    TunableKind::Int { min, max }
                    | TunableKind::Duration { min, max, .. }
                    | TunableKind::Bytes { min, max } => (min, max),
                    TunableKind::Bool => (0, 1),
                    TunableKind::Choice { names } => (0, names.len() as i64 - 1),
                };
                let v = if inside {
                    value_inside(t.kind, min, max, share)
                } else {
                    v
                };
                let spec = format!("{}:{}={v}", e.name, t.name);
                let result = parse(&spec);
                prop_assert!(
                    !inside || result.is_ok(),
                    "{spec}: in range, refused: {result:?}"
                );
                if let Ok((_, values)) = result {
                    parsed.set(parsed.get() + 1);
                    let got = values.get(t.name);
                    prop_assert!((min..=max).contains(&got), "{spec} gave {got}");
                    let mut s = build(&spec).unwrap();
                    let rq = crate::Request {
                        id: 1,
                        dir: crate::Dir::Write,
                        sector: 0,
                        bytes: 4096,
                        prio: crate::IoPrio::NONE,
                        sync: false,
                        flush: false,
                        fua: false,
                        job: 0,
                        submit_ns: 0,
                        insert_ns: 0,
                        dispatch_ns: 0,
                    };
                    let _ = s.limit_depth(rq.dir, rq.sync, 64);
                    s.insert(rq, 0);
                    let _ = s.dispatch(0);
                    let _ = s.next_timer();
                }

                Ok(())
            })
            .unwrap();
        assert!(
            parsed.get() >= cases / 4,
            "only {} of {cases} values parsed",
            parsed.get()
        );
    }
}
