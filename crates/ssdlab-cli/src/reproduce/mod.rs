//! `ssdlab reproduce`: one subcommand per study. Each study's flags and
//! driver live in a file of their own; what the study commands share
//! (`--jobs`, the points bar) is in `crate::plumbing`.

mod all;
mod gc;
mod k2;
mod k2_adaptive;
mod rtflash;
mod stb;

use ssdlab_sim::error::InputError;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    study: Study,
}

#[derive(clap::Subcommand)]
enum Study {
    /// The K2 queue-length-bound study (Park and Lee, 2021): four operations ×
    /// partially/fully occupied × none and K2-64 … K2-1.
    K2(k2::K2Args),
    /// The K2 paper's own comparison (RTSS 2019): none, mq-deadline, kyber vs
    /// K2-8/16/32 on the K2 benchmark set-up; best p99.9 reductions and worst
    /// background-throughput penalty next to the paper's headline.
    K2Rtss(k2::RtssArgs),
    /// k2-adaptive (K2 choosing its own bound for O1, O2 or an absolute
    /// target) against the oracle static bound on every operation ×
    /// occupancy cell, and on workloads whose phases change the best bound.
    K2Adaptive(k2_adaptive::Args),
    /// The on-demand GC study (Lee, Choi, Hong 2023): six application
    /// profiles (synthetic stand-ins) × PBGC, BBGC and on-demand GC on seed004.
    GcOndemand(gc::GcArgs),
    /// The real-time flash study (Kim et al., DAC 2021): the case study under
    /// Clustering-BFD+TBS, Global+BG, Full-Isolation+BG and two ablations,
    /// the worst-case latency breakdown, schedulability curves for 4, 8 and
    /// 16 chips, and NRT bandwidth on accepted sets.
    RtFlash(rtflash::RtFlashArgs),
    /// The STB study (Kang, Park, Yoo 2011): five concurrent Postmark
    /// processes under noop, deadline, IRBW-FIFO, IRBW-FIFO-RP and STB, on a
    /// SATA-era MLC SSD with a hybrid log-block FTL and with page mapping.
    Stb(stb::StbArgs),
    /// The four seed studies (K2 with both occupancies, gc-ondemand,
    /// rt-flash, stb), each in OUT/NAME, and OUT/index.html: per study, the
    /// paper's findings ssdlab agrees with and where it differs.
    All(all::AllArgs),
}

pub fn run(a: Args) -> Result<(), InputError> {
    match a.study {
        Study::K2(a) => k2::run_k2(a).map(drop),
        Study::K2Rtss(a) => k2::run_rtss(a),
        Study::K2Adaptive(a) => k2_adaptive::run(a),
        Study::GcOndemand(a) => gc::run_gc(a).map(drop),
        Study::RtFlash(a) => rtflash::run(a).map(drop),
        Study::Stb(a) => stb::run(a).map(drop),
        Study::All(a) => all::run(a),
    }
}
