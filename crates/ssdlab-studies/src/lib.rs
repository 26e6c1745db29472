//! ssdlab's studies: the recipes that sweep the simulator over grids of
//! configurations and reproduce published results (the K2 study, the
//! on-demand GC study), the benchmark, the analytical validations, and their
//! reports (results.csv, report.md, figures, report.html) and result cache.

pub mod bench;
pub mod cache;
pub mod calibrate;
pub mod commands;
pub mod dask_bridge;
pub mod datasheet;
pub mod findings;
pub mod gc_fit;
pub mod gc_study;
pub mod k2;
pub mod k2_adaptive;
pub mod point;
pub mod probe;
pub mod registry;
pub mod report;
pub mod rtflash;
pub mod runner;
pub mod setup;
pub mod stb_study;
pub mod study_config;
pub mod study_points;
pub mod unit_search;
pub mod waf;

/// Peak resident set size of this process in MiB (Linux; 0 elsewhere).
pub fn peak_rss_mb() -> f64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return 0.0;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}
