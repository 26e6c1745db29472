//! The simulated NVMe SSD.

pub mod alloc;
pub mod buffer;
pub mod build;
pub mod config;
pub mod device;
pub mod die_sched;
pub mod ftl;
pub mod gc;
pub mod hybrid;
pub mod ids;
pub mod layout;
pub mod registry;
pub use device::precondition;
