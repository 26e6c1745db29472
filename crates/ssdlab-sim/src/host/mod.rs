//! The host half: the Linux blk-mq path between a workload and the device.
//! `BlockLayer` takes bios from jobs, merges them into requests where the
//! scheduler allows, allocates tags, inserts requests into the I/O scheduler,
//! dispatches them to the device's hardware queues and completes them, charging
//! the host CPU costs that decide results such as K2-1 being slower than K2-2.

mod bio;
mod block;
mod config;
mod cpus;
pub mod page_cache;
mod tag_wait;

pub use bio::{Bio, BioDone};
pub use block::{BlockLayer, GaugeSeries, HostCounters, HostEvent, RequestId};
pub use config::{HostConfig, HostCosts, PAGE_BYTES};
pub use cpus::{CpuClock, CpuPlan};
pub use page_cache::{PageCache, PageCacheConfig, PageCacheCounters};
