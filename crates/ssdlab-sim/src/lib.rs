//! ssdlab core: a deterministic discrete-event simulator of an NVMe SSD.

pub mod engine;
pub mod error;
pub mod experiment;
pub mod host;
pub mod kernel;
pub mod preset;
pub mod ssd;
pub mod toml_sections;
pub mod units;
pub mod workload;
