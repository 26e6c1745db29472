//! Real-time flash analysis after Kim et al., "Dynamic Chip Clustering and
//! Task Allocation for Real-time Flash" (DAC 2021): dynamic chip clustering, Clustering-BFD task
//! allocation and a Total Bandwidth Server (Spuri and Buttazzo) for the
//! non-real-time load. The model and every reconstruction choice are in
//! docs/rt-flash.md.
//!
//! The crate stands beside the studies, above the simulator: it uses the SSD
//! model, its presets and the simulation kernel (`ssdlab-sim`) to check an
//! allocation on the full drive, and nothing below it knows it exists. Its
//! chip model runs on an event loop of its own (`sim`).

pub mod allocate;
pub mod analysis;
pub mod demand;
pub mod edf;
pub mod generate;
pub mod platform;
pub mod ratio;
pub mod sim;
pub mod taskset;
pub mod tbs;

pub use allocate::{allocate, Allocation, ApproachChoice};
pub use platform::Platform;
pub use taskset::{AnalysisOptions, LeftoverChips, NrtArrival, NrtLoad, RtTask, TaskSet, TestKind};
