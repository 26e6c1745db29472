//! A Postmark-like workload at block level (the STB study's, after Kang,
//! Park, Yoo, ICCE 2011): `processes` concurrent Postmark processes, each
//! creating a pool of small files, running transactions (a read or an
//! append, then a create or a delete) and deleting what is left, over the
//! host page cache. Creates and deletes wait for a synchronous journal
//! commit; file data and inode pages are dirtied in the cache and reach the
//! device as asynchronous write-back from the flusher; reads that miss the
//! cache are synchronous. At the end everything dirty is written back
//! (sync), so no dirty page is lost.

mod commands;
pub mod config;
mod fs;
mod ops;
mod report;
mod run;

pub use commands::{looks_like_commands, parse_commands};
pub use config::{PostmarkConfig, PostmarkFile};
pub use ops::OpKind;
pub use report::{LatencyFigures, PostmarkReport};
pub use run::PostmarkWorkload;
