//! ssdlab core: a deterministic discrete-event simulator of an NVMe SSD.

pub mod engine;
pub mod error;
pub mod experiment;
pub mod host;
pub mod kernel;
pub mod preset;
/// The device models (crate `ssdlab-ssd`), under the name the simulator's
/// modules have always used for them.
pub use ssdlab_ssd as ssd;
pub use ssdlab_ssd::toml_sections;
pub mod units;
pub mod workload;
