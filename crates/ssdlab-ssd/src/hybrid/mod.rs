//! A second device model: a SATA-era MLC SSD whose FTL is the hybrid
//! log-block scheme FAST (Lee et al., "A log buffer-based flash translation
//! layer using fully-associative sector translation", ACM TECS 6(3), 2007).
//!
//! `fast.rs` is the mapping alone (no clock): it turns host writes into the
//! flash operations they cost, merges included. `device.rs` is the
//! `kernel::Device` around it: NCQ, the SATA link, the dies and channels.
//! docs/model.md, "Hybrid log-block FTL (FAST) and the SATA device", gives
//! every choice and its reason.

pub mod device;
pub mod fast;

pub use device::{HybridEvent, HybridSsd, HybridStats};
pub use fast::{Fast, FastCounters, FastGeometry, FlashAddr, FlashOp};
