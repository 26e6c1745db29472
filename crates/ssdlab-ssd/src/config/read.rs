//! Reading a device's sections from TOML. A preset file also holds the
//! host's settings (`[host]`), which are the host path's to read: the
//! preset reader in `ssdlab_sim::preset` reads those and calls
//! [`SsdConfig::read_sections`] for the rest.

use super::SsdConfig;
use crate::error::InputError;
use crate::toml_sections::SectionReader;

/// The top-level keys of a device's sections.
pub const DEVICE_KEYS: &[&str] = &[
    "name",
    "description",
    "geometry",
    "timing",
    "controller",
    "buffer",
    "slc_cache",
    "ftl",
    "gc",
];

impl SsdConfig {
    /// Reads the device's sections from `r`; every problem found is recorded
    /// in `r`, and the caller reports them with `r.check()` before it checks
    /// the device ([`SsdConfig::checked`]). `None` when a required section
    /// is missing.
    pub fn read_sections(r: &mut SectionReader) -> Option<SsdConfig> {
        let name = r.required("name");
        let description = r.section("description");
        let geometry = r.required("geometry");
        let timing = r.required("timing");
        let controller = r.section("controller");
        let buffer = r.section("buffer");
        let slc_cache = r.section("slc_cache");
        let ftl = r.section("ftl");
        let gc = r.section("gc");
        Some(SsdConfig {
            name: name?,
            description: description.unwrap_or_default(),
            geometry: geometry?,
            timing: timing?,
            controller: controller.unwrap_or_default(),
            buffer: buffer.unwrap_or_default(),
            slc_cache,
            ftl: ftl.unwrap_or_default(),
            gc: gc.unwrap_or_default(),
        })
    }

    /// The device read by `read_sections` (after `r.check()` passed),
    /// checked: values that parse but make no device, then the memory it
    /// needs against `text`'s machine.
    pub fn checked(
        device: Option<SsdConfig>,
        r: &mut SectionReader,
        file: &str,
        text: &str,
    ) -> Result<SsdConfig, InputError> {
        let device = device
            .ok_or_else(|| InputError::invalid(file, "name, geometry and timing are required"))?;
        if let Err(problems) = device.validate() {
            r.problems(problems);
        }
        r.check()?;
        device.check_fits_memory(file, text)?;
        Ok(device)
    }

    /// A device from TOML holding its sections alone (no `[host]`); `file`
    /// names it in errors. Every problem found is reported at once.
    pub fn from_toml(text: &str, file: &str) -> Result<SsdConfig, InputError> {
        let mut r = SectionReader::new(text, file, "")?;
        r.refuse_unknown(DEVICE_KEYS);
        let device = Self::read_sections(&mut r);
        r.check()?;
        Self::checked(device, &mut r, file, text)
    }
}
