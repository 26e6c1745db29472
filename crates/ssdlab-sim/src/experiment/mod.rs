//! Running a workload on the simulated host and device: fio job files
//! (`fio_run`), the closed-loop device load (`closed_loop`), and fio's
//! statistics and reports for them.

pub mod closed_loop;
pub mod fio_run;
pub mod lb_size;
pub mod postmark_run;
pub mod report;
pub mod stats;
