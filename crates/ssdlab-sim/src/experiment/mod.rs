//! Running a workload on the simulated host and device: fio job files
//! (`fio_run`), the same jobs on a live device in real time (`live_run`),
//! the closed-loop device load (`closed_loop`), and fio's
//! reports for them (the per-job statistics are the workload's:
//! `workload::job_stats`).

pub mod closed_loop;
pub mod fio_run;
pub mod lb_size;
pub mod live_run;
pub mod postmark_run;
pub mod report;
