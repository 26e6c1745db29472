//! A preset: a device and the host it was calibrated with, read from one
//! TOML file (a built-in name or a path). The device sections are the
//! drive's; `[host]` holds the host block layer's settings (docs/model.md,
//! "Host path"), which a run may replace with `--host`.

use crate::error::InputError;
use crate::host::HostConfig;
pub use crate::ssd::config::{BuiltinPreset, PRESETS};
use crate::ssd::config::{SsdConfig, DEVICE_KEYS};
use crate::toml_sections::SectionReader;

/// The top-level keys of a preset: the device's, and `host`.
fn preset_keys() -> Vec<&'static str> {
    let mut keys = DEVICE_KEYS.to_vec();
    keys.push("host");
    keys
}

/// A device and the host settings that go with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Preset {
    pub device: SsdConfig,
    pub host: HostConfig,
}

impl Preset {
    /// Loads a built-in preset by name, or a TOML file by path.
    pub fn load(name_or_path: &str) -> Result<Preset, InputError> {
        let (text, file) = Self::source(name_or_path)?;
        Self::from_toml(&text, &file)
    }

    /// A preset's TOML text and the name its errors give it.
    fn source(name_or_path: &str) -> Result<(String, String), InputError> {
        if let Some(p) = PRESETS.iter().find(|p| p.name == name_or_path) {
            return Ok((p.source.to_string(), format!("<preset {}>", p.name)));
        }
        let text =
            ssdlab_fio::read_input_string(std::path::Path::new(name_or_path)).map_err(|e| {
                let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
                InputError::invalid(
                    name_or_path,
                    format!(
                        "not a preset ({}) and not a readable file: {e}",
                        names.join(", ")
                    ),
                )
            })?;
        Ok((text, name_or_path.to_string()))
    }

    /// Loads a preset as `load` does, with `overrides` (dotted keys such as
    /// `gc.free_block_threshold`, each with a TOML value) set in its text
    /// before it is read and checked; an override of an unknown key is an
    /// error as in a preset file.
    pub fn load_with(
        name_or_path: &str,
        overrides: &[(String, toml::Value)],
    ) -> Result<Preset, InputError> {
        if overrides.is_empty() {
            return Self::load(name_or_path);
        }
        let (text, file) = Self::source(name_or_path)?;
        let mut table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| InputError::invalid(&file, e.to_string()))?;
        for (key, value) in overrides {
            set_dotted(&mut table, key, value.clone())
                .map_err(|m| InputError::invalid(format!("{file} override '{key}'"), m))?;
        }
        let text =
            toml::to_string(&table).map_err(|e| InputError::invalid(&file, e.to_string()))?;
        Self::from_toml(&text, &format!("{file} with overrides"))
    }

    /// Parses a preset; `file` names the source in errors. Each section is
    /// read and checked on its own, and every problem found is reported.
    pub fn from_toml(text: &str, file: &str) -> Result<Preset, InputError> {
        let mut r = SectionReader::new(text, file, "")?;
        r.refuse_unknown(&preset_keys());
        let device = SsdConfig::read_sections(&mut r);
        let host: Option<HostConfig> = r.section("host");
        if let Some(h) = &host {
            r.problems(h.problems());
        }
        r.check()?;
        let device = SsdConfig::checked(device, &mut r, file, text)?;
        Ok(Preset {
            device,
            host: host.unwrap_or_default(),
        })
    }

    /// The preset as TOML, the host settings in `[host]`.
    pub fn to_toml(&self) -> Result<String, String> {
        let mut table = toml::Table::try_from(&self.device).map_err(|e| e.to_string())?;
        let host = toml::Value::try_from(&self.host).map_err(|e| e.to_string())?;
        table.insert("host".into(), host);
        toml::to_string(&table).map_err(|e| e.to_string())
    }
}

/// Sets `key` (dotted: `a.b.c`) in `table`, making the tables on the way.
pub fn set_dotted(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), String> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().filter(|k| !k.is_empty()).ok_or("empty key")?;
    let mut t = table;
    for part in parts {
        if part.is_empty() {
            return Err("empty key part".into());
        }
        let next = t
            .entry(part)
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = next
            .as_table_mut()
            .ok_or_else(|| format!("'{part}' is not a table"))?;
    }
    t.insert(last.to_string(), value);
    Ok(())
}

impl HostConfig {
    /// `self` with `overrides` (keys of the `[host]` table) set, checked as
    /// a host file is.
    pub fn with_overrides(
        &self,
        overrides: &[(String, toml::Value)],
    ) -> Result<HostConfig, InputError> {
        if overrides.is_empty() {
            return Ok(self.clone());
        }
        let mut table =
            toml::Table::try_from(self).map_err(|e| InputError::invalid("host", e.to_string()))?;
        for (key, value) in overrides {
            set_dotted(&mut table, key, value.clone())
                .map_err(|m| InputError::invalid(format!("host override '{key}'"), m))?;
        }
        let text =
            toml::to_string(&table).map_err(|e| InputError::invalid("host", e.to_string()))?;
        HostConfig::from_toml(&text, "host with overrides")
    }

    /// Reads a host file (the keys of a preset's `[host]` table, at top
    /// level); `file` names it in errors.
    pub fn from_toml(text: &str, file: &str) -> Result<HostConfig, InputError> {
        let mut r = SectionReader::new(text, file, "host")?;
        let host: Option<HostConfig> = r.whole();
        if let Some(h) = &host {
            r.problems(h.problems());
        }
        r.check()?;
        host.ok_or_else(|| InputError::invalid(file, "not a host file"))
    }
}

impl Preset {
    /// The device of a built-in preset or preset file (its host settings
    /// dropped; see `Preset::load`).
    pub fn load_device(name_or_path: &str) -> Result<SsdConfig, InputError> {
        Preset::load(name_or_path).map(|p| p.device)
    }

    /// The device of a preset's TOML text (its `[host]`, if any, checked
    /// and dropped).
    pub fn device_from_toml(text: &str, file: &str) -> Result<SsdConfig, InputError> {
        Preset::from_toml(text, file).map(|p| p.device)
    }
}
