//! The built-in presets: a device and the host it was calibrated with, one
//! TOML file each (`presets/`). The device sections are read here; the
//! `[host]` table is the host path's (`ssdlab_sim::preset::Preset` reads the
//! whole file), so [`SsdConfig::builtin`] leaves it unread.

use super::{SsdConfig, DEVICE_KEYS};
use crate::error::InputError;
use crate::toml_sections::SectionReader;

/// A built-in preset: its name and TOML source.
pub struct BuiltinPreset {
    pub name: &'static str,
    pub source: &'static str,
}

pub const PRESETS: &[BuiltinPreset] = &[
    BuiltinPreset {
        name: "mqsim-64g",
        source: include_str!("../../presets/mqsim-64g.toml"),
    },
    BuiltinPreset {
        name: "seed004",
        source: include_str!("../../presets/seed004.toml"),
    },
    BuiltinPreset {
        name: "consumer-tlc-250g",
        source: include_str!("../../presets/consumer-tlc-250g.toml"),
    },
    BuiltinPreset {
        name: "mlc-sata-8g",
        source: include_str!("../../presets/mlc-sata-8g.toml"),
    },
];

impl SsdConfig {
    /// The device of a built-in preset, by name; its host settings are left
    /// to the host path.
    pub fn builtin(name: &str) -> Result<SsdConfig, InputError> {
        let preset = PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
            let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
            InputError::invalid(name, format!("not a preset ({})", names.join(", ")))
        })?;
        let file = format!("<preset {name}>");
        let mut r = SectionReader::new(preset.source, &file, "")?;
        let mut keys = DEVICE_KEYS.to_vec();
        keys.push("host");
        r.refuse_unknown(&keys);
        let device = Self::read_sections(&mut r);
        r.check()?;
        Self::checked(device, &mut r, &file, preset.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_device_reads() {
        for p in PRESETS {
            let cfg = SsdConfig::builtin(p.name).unwrap();
            assert_eq!(cfg.name, p.name);
        }
        let e = SsdConfig::builtin("no-such").unwrap_err().to_string();
        assert!(e.contains("not a preset (mqsim-64g"), "{e}");
    }
}
