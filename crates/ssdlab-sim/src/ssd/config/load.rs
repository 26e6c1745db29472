//! The built-in presets and loading a preset from TOML, with every problem
//! located by file, line and key.

use super::SsdConfig;
use crate::error::InputError;

/// A built-in preset: its name and TOML source.
pub struct Preset {
    pub name: &'static str,
    pub source: &'static str,
}

pub const PRESETS: &[Preset] = &[
    Preset {
        name: "mqsim-64g",
        source: include_str!("../../../presets/mqsim-64g.toml"),
    },
    Preset {
        name: "seed004",
        source: include_str!("../../../presets/seed004.toml"),
    },
    Preset {
        name: "consumer-tlc-250g",
        source: include_str!("../../../presets/consumer-tlc-250g.toml"),
    },
];

impl SsdConfig {
    /// Loads a built-in preset by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<SsdConfig, InputError> {
        if let Some(p) = PRESETS.iter().find(|p| p.name == name_or_path) {
            return Self::from_toml(p.source, &format!("<preset {}>", p.name));
        }
        let text = std::fs::read_to_string(name_or_path).map_err(|e| {
            let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
            InputError::invalid(
                name_or_path,
                format!(
                    "not a preset ({}) and not a readable file: {e}",
                    names.join(", ")
                ),
            )
        })?;
        Self::from_toml(&text, name_or_path)
    }

    /// Parses and validates a preset. `file` names the source in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<SsdConfig, InputError> {
        let cfg: SsdConfig = toml::from_str(text).map_err(|e| {
            let line = e.span().map(|s| line_of_offset(text, s.start)).unwrap_or(1);
            InputError::At {
                file: file.into(),
                line,
                field: field_of_toml_error(&e),
                message: e.message().to_string(),
            }
        })?;
        cfg.validate().map_err(|problems| {
            InputError::all(
                problems
                    .into_iter()
                    .map(|(key, message)| InputError::At {
                        file: file.into(),
                        line: line_of_key(text, &key),
                        field: key,
                        message,
                    })
                    .collect(),
            )
        })?;
        cfg.check_fits_memory(file, text)?;
        Ok(cfg)
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line where a dotted key (`table.key`) is set, or the table header, or 1.
pub fn line_of_key(text: &str, dotted: &str) -> usize {
    let (table, key) = match dotted.rsplit_once('.') {
        Some((t, k)) => (t, k),
        None => ("", dotted),
    };
    let mut current = String::new();
    let mut header_line = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[') {
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
    header_line.unwrap_or(1)
}

fn field_of_toml_error(e: &toml::de::Error) -> String {
    // toml's messages name the key ("unknown field `foo`"); keep the message as
    // it is and give the field separately when we can find it.
    let msg = e.message();
    if let Some(start) = msg.find('`') {
        if let Some(len) = msg[start + 1..].find('`') {
            return msg[start + 1..start + 1 + len].to_string();
        }
    }
    "toml".into()
}
