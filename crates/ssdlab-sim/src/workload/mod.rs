//! Workload sources. A source issues bios into the host block layer and is
//! told when they end. fio jobs are the first source; block traces and
//! real-time task sets come as further sources behind the same events.

pub mod fio_job;
pub mod trace_replay;
