//! Workload sources. A source issues bios into the host block layer (or
//! commands straight to the device) and is told when they end; the kernel
//! drives it. fio jobs are the first source, replayed traces feed fio jobs,
//! and scripted device commands serve tests and calibration.

pub mod buffered;
pub mod fio;
pub mod fio_job;
pub mod fio_log;
pub mod job_stats;
pub mod postmark;
pub mod replay_setup;
pub mod script;
pub mod trace_replay;
