//! A run of days at a low rate stays in bounded memory: every per-time
//! structure (sample windows, the per-second series) is capped, so a
//! 1-IOPS job over 30 and over 200 simulated days peaks under 100 MB. The
//! only test of its binary, so the process's peak is the runs' own.

use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::precondition::PreconditionMode;

/// The process's peak resident set, in bytes (Linux's VmHWM).
fn peak_rss_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

fn one_iops_for(days: u32) -> (u64, f64) {
    let text = format!(
        "[slow]\nrw=randwrite\nbs=4k\ndirect=1\nrate_iops=1\nruntime={days}d\ntime_based=1\n"
    );
    let jobfile = ssdlab_fio::parse_str(&text, "slow.fio", &|_| None).unwrap();
    let setup = RunSetup {
        device: Preset::load_device("seed004").unwrap(),
        host: HostConfig::default(),
        scheduler: "none".into(),
        occupancy: 0.0,
        precondition: PreconditionMode::Auto,
        seed: 1,
        check: false,
    };
    let r = fio_run::run(&jobfile, &setup, None).unwrap();
    let w = &r.stats[0].report.write;
    (w.total_ios, w.iops())
}

#[test]
fn a_one_iops_job_over_30_and_200_days_stays_under_100_mb() {
    for days in [30u32, 200] {
        let (ios, iops) = one_iops_for(days);
        assert_eq!(ios, u64::from(days) * 86_400, "{days} days");
        assert!((iops - 1.0).abs() < 1e-6, "{days} days: {iops} IOPS");
        let peak = peak_rss_bytes();
        eprintln!(
            "{days} days: {ios} I/Os, peak RSS {:.1} MB",
            peak as f64 / 1e6
        );
        assert!(peak < 100_000_000, "{days} days: peak RSS {peak} bytes");
    }
}
