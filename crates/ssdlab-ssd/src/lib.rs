//! The simulated NVMe SSDs: the page-mapped model (`device`, with its FTL,
//! write buffer, GC, allocation and die schedulers) and the hybrid-FTL model
//! (`hybrid`), both implementing `ssdlab_protocol::Device`. This crate
//! depends on the protocol alone: nothing here can reach the host path, the
//! kernel or a workload. Policies are named in a configuration
//! (`config::SsdConfig`, plain data) and resolved once when a device is built
//! (`build`, `registry`).

pub mod alloc;
pub mod buffer;
pub mod build;
pub mod config;
pub mod device;
pub mod die_sched;
pub mod error;
pub mod ftl;
pub mod gc;
pub mod hybrid;
pub mod ids;
pub mod layout;
pub mod registry;
pub mod toml_sections;
pub use device::precondition;
