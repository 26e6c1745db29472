//! Reading a TOML file section by section, so that a file with several bad
//! sections reports each of them at once, every problem located by file,
//! line and dotted key. Presets and host files are read this way.

use crate::error::InputError;
use serde::de::{DeserializeOwned, DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// A TOML text being read, with the problems found so far.
pub struct SectionReader<'a> {
    text: &'a str,
    file: &'a str,
    /// The table the whole text stands for ("host" for a host file; "" for a
    /// preset): the checks name keys from the preset's top, and a file of
    /// one table names them from its own.
    prefix: &'a str,
    /// The text's top-level keys, read once.
    top_keys: Vec<String>,
    problems: Vec<InputError>,
}

impl<'a> SectionReader<'a> {
    /// Reads `text` (named `file` in messages). A syntax error ends the
    /// reading at once: nothing after it can be trusted.
    pub fn new(text: &'a str, file: &'a str, prefix: &'a str) -> Result<Self, InputError> {
        let table = text.parse::<toml::Table>().map_err(|e| InputError::At {
            file: file.into(),
            line: e.span().map_or(1, |s| line_of_offset(text, s.start)),
            field: "toml".into(),
            message: e.message().to_string(),
        })?;
        Ok(SectionReader {
            text,
            file,
            prefix,
            top_keys: table.keys().cloned().collect(),
            problems: Vec::new(),
        })
    }

    /// The top-level key `name` read as a `T`, or None when it is absent or
    /// bad (then the problem is recorded).
    pub fn section<T: DeserializeOwned>(&mut self, name: &'static str) -> Option<T> {
        let seed = OneKey::<T> {
            name,
            value: PhantomData,
        };
        match seed.deserialize(toml::Deserializer::new(self.text)) {
            Ok(v) => v,
            Err(e) => {
                let line = e.span().map_or_else(
                    || line_of_key(self.text, name),
                    |s| line_of_offset(self.text, s.start),
                );
                let key = key_at_line(self.text, line)
                    .filter(|k| k == name || k.starts_with(&format!("{name}.")))
                    .unwrap_or_else(|| name.to_string());
                self.push(line, key, e.message().to_string());
                None
            }
        }
    }

    /// Like `section`, but the key must be there.
    pub fn required<T: DeserializeOwned>(&mut self, name: &'static str) -> Option<T> {
        let found = self.section(name);
        if found.is_none() && !self.top_keys.iter().any(|k| k == name) {
            self.push(1, name.to_string(), "missing".into());
        }
        found
    }

    /// Records every top-level key that is not one of `known`.
    pub fn refuse_unknown(&mut self, known: &[&str]) {
        let unknown: Vec<String> = self
            .top_keys
            .iter()
            .filter(|k| !known.contains(&k.as_str()))
            .cloned()
            .collect();
        for key in unknown {
            let line = line_of_key(self.text, &key);
            self.push(
                line,
                key,
                format!("unknown key (known: {})", known.join(", ")),
            );
        }
    }

    /// Records the problems of a parsed value's own checks, each as its
    /// dotted key and message.
    pub fn problems(&mut self, found: Vec<(String, String)>) {
        for (key, message) in found {
            let bare = key
                .strip_prefix(self.prefix)
                .map_or(key.as_str(), |k| k.trim_start_matches('.'));
            let line = line_of_key(self.text, bare);
            self.problems.push(InputError::At {
                file: self.file.into(),
                line,
                field: bare.to_string(),
                message,
            });
        }
    }

    /// The whole text read as a `T`, or None when it is bad (then the
    /// problem is recorded).
    pub fn whole<T: DeserializeOwned>(&mut self) -> Option<T> {
        match toml::from_str(self.text) {
            Ok(v) => Some(v),
            Err(e) => {
                let line = e.span().map_or(1, |s| line_of_offset(self.text, s.start));
                let key = key_at_line(self.text, line).unwrap_or_default();
                self.push(line, key, e.message().to_string());
                None
            }
        }
    }

    /// Every problem recorded so far, as one error; or nothing.
    pub fn check(&mut self) -> Result<(), InputError> {
        if self.problems.is_empty() {
            Ok(())
        } else {
            Err(InputError::all(std::mem::take(&mut self.problems)))
        }
    }

    fn push(&mut self, line: usize, key: String, message: String) {
        let field = if key.is_empty() {
            self.prefix.to_string()
        } else {
            key
        };
        self.problems.push(InputError::At {
            file: self.file.into(),
            line,
            field,
            message,
        });
    }
}

/// Reads the value of one top-level key and skips the others, on the
/// deserializer of the whole text, so that spans (lines) stay right.
struct OneKey<T> {
    name: &'static str,
    value: PhantomData<T>,
}

impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for OneKey<T> {
    type Value = Option<T>;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, T: DeserializeOwned> Visitor<'de> for OneKey<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a table with the key `{}`", self.name)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == self.name {
                found = Some(map.next_value::<T>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

pub fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The dotted key set on line `line` (`key = value` under `[table]`), or
/// None on a header or blank line.
fn key_at_line(text: &str, line: usize) -> Option<String> {
    let mut table = "";
    for raw in text.lines().take(line.checked_sub(1)?) {
        if let Some(h) = raw.trim().strip_prefix('[') {
            // `[[array]]` headers name the array's table as `[table]` does.
            table = h
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .trim();
        }
    }
    let raw = text.lines().nth(line - 1)?.trim();
    let (key, _) = raw.split_once('=').filter(|_| !raw.starts_with('['))?;
    let key = key.trim().trim_matches('"');
    match (key.is_empty(), table.is_empty()) {
        (true, _) => None,
        (false, true) => Some(key.to_string()),
        (false, false) => Some(format!("{table}.{key}")),
    }
}

/// The line where a dotted key (`table.key`) is set, or the table header, or 1.
pub fn line_of_key(text: &str, dotted: &str) -> usize {
    let (table, key) = match dotted.rsplit_once('.') {
        Some((t, k)) => (t, k),
        None => ("", dotted),
    };
    let mut current = String::new();
    let mut header_line = None;
    // The n-th `[[name]]` block is the table `name.n` (from 1).
    let mut arrays: std::collections::HashMap<String, usize> = Default::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        // A header may carry a comment: `[[name]]  # …`.
        let header = line.split('#').next().unwrap_or("").trim();
        if let Some(h) = header.strip_prefix("[[") {
            let name = h.trim_end_matches(']').trim().to_string();
            let n = arrays.entry(name.clone()).or_default();
            *n += 1;
            current = format!("{name}.{n}");
            if current == dotted || current == table {
                header_line.get_or_insert(i + 1);
            }
            continue;
        }
        if let Some(h) = header.strip_prefix('[') {
            current = h.trim_end_matches(']').trim().to_string();
            if current == dotted || current == table {
                header_line.get_or_insert(i + 1);
            }
            continue;
        }
        if current == table {
            if let Some((k, _)) = line.split_once('=') {
                if k.trim() == key {
                    return i + 1;
                }
            }
        }
    }
    // An array of tables written inline (`clusters = [{…}]`) has no
    // `[[…]]` header: its n-th table's keys are on the array's line.
    header_line.unwrap_or_else(|| array_of(dotted).map_or(1, |array| line_of_key(text, array)))
}

/// `a.b` for a key `a.b.N…` of the N-th table of an array `a.b`.
fn array_of(dotted: &str) -> Option<&str> {
    let mut end = 0;
    for part in dotted.split('.') {
        if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            return (end > 0).then(|| &dotted[..end - 1]);
        }
        end += part.len() + 1;
    }
    None
}
