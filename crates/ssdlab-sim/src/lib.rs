//! ssdlab core: a deterministic discrete-event simulator of an NVMe SSD.

pub mod engine;
pub mod error;
pub mod experiment;
pub mod host;
pub mod kernel;
pub mod preset;
pub mod rtflash;
pub mod sched;
pub mod ssd;
mod toml_sections;
pub mod units;
pub mod workload;
