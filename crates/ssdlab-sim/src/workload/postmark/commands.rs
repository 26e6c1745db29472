//! Postmark's own configuration file: the commands Postmark 1.5 reads from
//! a file or its prompt (`set number 1000`, `set size 500 10000`, `set
//! bias read 5`, `run`, …), so an existing Postmark set-up runs unchanged.
//! Every problem is reported with its file, line and command.

use super::config::{PostmarkConfig, PostmarkFile};
use crate::error::InputError;

/// Whether `text` reads as Postmark commands rather than a TOML workload
/// file: its first command is `set`, `run`, `show`, `load` or `quit`.
pub fn looks_like_commands(text: &str) -> bool {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'));
    first
        .and_then(|l| l.split_whitespace().next())
        .is_some_and(|w| {
            ["set", "run", "show", "load", "quit", "help"]
                .contains(&w.to_ascii_lowercase().as_str())
        })
}

/// Reads Postmark commands into a workload: Postmark's defaults for the
/// settings not given, five processes unless `set processes` (an ssdlab
/// extension) says otherwise, and the default page cache.
pub fn parse_commands(text: &str, file: &str) -> Result<PostmarkFile, InputError> {
    let mut cfg = PostmarkConfig::default();
    let mut seed = None;
    // Where each setting was last given, for errors about its value.
    let mut given: Vec<(&'static str, String, usize)> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |field: &str, message: String| InputError::At {
            file: file.to_string(),
            line: i + 1,
            field: field.to_string(),
            message,
        };
        let words: Vec<String> = line
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        match words[0].as_str() {
            // Running, showing or leaving changes nothing of the workload.
            "run" | "show" | "quit" | "help" => continue,
            "set" => {}
            "load" => {
                return Err(at(
                    "load",
                    "nested command files are not read; put the commands in this file".into(),
                ))
            }
            other => return Err(at(other, "unknown command (set, run, show, quit)".into())),
        }
        let Some(name) = words.get(1) else {
            return Err(at("set", "names no setting".into()));
        };
        let args = &words[2..];
        let field = format!("set {name}");
        let num = |k: usize| -> Result<u64, InputError> {
            let w = args
                .get(k)
                .ok_or_else(|| at(&field, "needs a number".into()))?;
            w.parse::<u64>()
                .map_err(|_| at(&field, format!("'{w}' is not a whole number")))
        };
        let small = |v: u64| -> Result<u32, InputError> {
            u32::try_from(v).map_err(|_| at(&field, format!("{v} is too large")))
        };
        let keys: &[&'static str] = match name.as_str() {
            "number" => &["files"],
            "transactions" => &["transactions"],
            "processes" => &["processes"],
            "size" => &["size_min", "size_max"],
            "bias" if args.first().is_some_and(|w| w == "read") => &["read_bias"],
            "bias" => &["create_bias"],
            _ => &[],
        };
        for &k in keys {
            given.push((k, field.clone(), i + 1));
        }
        match name.as_str() {
            "number" => cfg.files = small(num(0)?)?,
            "transactions" => cfg.transactions = small(num(0)?)?,
            "processes" => cfg.processes = small(num(0)?)?,
            "seed" => seed = Some(num(0)?),
            "size" => {
                cfg.size_min = num(0)?;
                // One value: every file has that size.
                cfg.size_max = if args.len() > 1 {
                    num(1)?
                } else {
                    cfg.size_min
                };
            }
            "bias" => {
                let which = args.first().map(String::as_str);
                let v = args
                    .get(1)
                    .ok_or_else(|| at(&field, "needs 'read' or 'create' and a value".into()))?;
                let v: u32 = v
                    .parse()
                    .map_err(|_| at(&field, format!("'{v}' is not in [0, 10]")))?;
                match which {
                    Some("read") => cfg.read_bias = v,
                    Some("create") => cfg.create_bias = v,
                    _ => {
                        return Err(at(
                            &field,
                            "must be 'bias read N' or 'bias create N'".into(),
                        ))
                    }
                }
            }
            // Block sizes of the library calls, stdio buffering, where the
            // files live and how results print: nothing the block layer sees
            // differently at this model's level (docs/stb-study.md).
            "read" | "write" => {
                num(0)?;
            }
            "buffering" | "location" | "report" => {}
            "subdirectories" => {
                if num(0)? != 0 {
                    return Err(at(&field, "subdirectories are not modelled; only 0".into()));
                }
            }
            _ => return Err(at(&field, "unknown setting".into())),
        }
    }
    if let Some((key, message)) = cfg.problems().into_iter().next() {
        let name = key.trim_start_matches("postmark.");
        let (field, line) = given
            .iter()
            .rev()
            .find(|(k, _, _)| *k == name)
            .map_or((key.clone(), 1), |(_, f, l)| (f.clone(), *l));
        return Err(InputError::At {
            file: file.to_string(),
            line,
            field,
            message,
        });
    }
    Ok(PostmarkFile {
        postmark: cfg,
        seed,
        ..PostmarkFile::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_postmark_configuration_reads_as_a_workload() {
        let text = "# STB study\nset size 500 10000\nset number 2000\nset transactions 20000\n\
                    set bias read 5\nset bias create 5\nset read 512\nset write 512\n\
                    set buffering false\nset seed 42\nrun\nquit\n";
        assert!(looks_like_commands(text));
        let w = parse_commands(text, "pm.cfg").unwrap();
        assert_eq!((w.postmark.files, w.postmark.transactions), (2000, 20000));
        assert_eq!((w.postmark.size_min, w.postmark.size_max), (500, 10_000));
        assert_eq!(w.seed, Some(42));
        assert!(!looks_like_commands("[postmark]\nfiles = 3\n"));
    }

    #[test]
    fn bad_commands_name_their_line() {
        for (text, line, field) in [
            ("set number 0\n", 1, "set number"),
            ("\nset size 9000 10\n", 2, "set size"),
            ("set bias create 12\n", 1, "set bias"),
            ("set bias read eleven\n", 1, "set bias"),
            ("set\n", 1, "set"),
            ("run\nset colour blue\n", 2, "set colour"),
            ("frobnicate\n", 1, "frobnicate"),
            ("set transactions 99999999999\n", 1, "set transactions"),
        ] {
            match parse_commands(text, "pm.cfg") {
                Err(InputError::At {
                    line: l, field: f, ..
                }) => {
                    assert_eq!((l, f.as_str()), (line, field), "{text}")
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
