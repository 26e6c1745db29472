//! `ssdlab validate waf`: greedy GC under uniform random single-page
//! overwrites, simulated (the FTL's own write and GC paths, untimed) against
//! the analytical model of Xiang and Kurkoski, "An improved analytic
//! expression for write amplification in NAND flash" (ICNC 2012):
//!
//!   WA = (1 + ρ) / (1 + ρ + W₀(−(1 + ρ)·e^−(1 + ρ)))
//!
//! with ρ = (T − U)/U the over-provisioning factor (T physical, U logical
//! pages) and W₀ the principal branch of Lambert's W. The large-block limit of
//! Agarwal and Marrow (2010), (1 + ρ)/(2ρ), is printed for reference.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use ssdlab_protocol::Lpn;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::ssd::device::SimSsd;
use ssdlab_sim::ssd::precondition::{precondition, FunctionalWriter, Precondition};

/// Spare factors the validation runs at (share of physical space).
pub const SPARE_FACTORS: [f64; 3] = [0.07, 0.14, 0.28];

#[derive(Debug, Serialize, PartialEq)]
pub struct WafPoint {
    pub spare_factor: f64,
    /// ρ over the pages GC can actually use: physical minus the free blocks
    /// the GC threshold keeps and the open frontiers.
    pub effective_rho: f64,
    pub simulated_waf: f64,
    pub model_waf: f64,
    pub agarwal_waf: f64,
    pub error_pct: f64,
    pub host_pages: u64,
}

/// The validation device: 16 planes of 256 blocks of 128 pages, GC as lazy as
/// the device allows (one free block kept for GC, collect below two).
pub fn validation_config(spare_factor: f64) -> SsdConfig {
    let mut cfg = Preset::load_device("seed004").expect("built-in preset");
    cfg.name = format!("waf-validation-sf{spare_factor}");
    cfg.geometry.blocks_per_plane = 256;
    cfg.ftl.over_provisioning = spare_factor;
    cfg.gc.policy = "greedy".parse().expect("a registered policy");
    cfg.gc.soft_threshold = 0.0;
    cfg.gc.hard_threshold = 0.0;
    cfg
}

pub fn run(seed: u64, warmup_capacities: f64, measured_capacities: f64) -> Vec<WafPoint> {
    SPARE_FACTORS
        .iter()
        .map(|&sf| point(sf, seed, warmup_capacities, measured_capacities))
        .collect()
}

fn point(sf: f64, seed: u64, warmup: f64, measured: f64) -> WafPoint {
    let mut ssd = SimSsd::new(validation_config(sf), seed, false);
    let pre = Precondition {
        overwrites: warmup,
        ..Precondition::fill(1.0)
    };
    precondition(&mut ssd, &pre, seed).expect("valid recipe");
    let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(1));
    let logical = ssd.layout().logical_pages;
    let n = (logical as f64 * measured) as u64;
    let mut w = FunctionalWriter::default();
    for _ in 0..n {
        let lpa = Lpn(rng.gen_range(0..logical));
        w.write(&mut ssd, lpa, &mut rng);
    }
    let c = &ssd.stats().ftl;
    let simulated = (c.host_pages_written + c.gc_pages_moved) as f64 / c.host_pages_written as f64;
    let l = ssd.layout();
    let held_blocks = (ssd.soft_gc_blocks() - 1) + 1; // free pool floor + open frontiers (half-full each)
    let usable = l.physical_pages as f64 - (held_blocks * l.planes * l.pages_per_block) as f64;
    let rho = (usable - logical as f64) / logical as f64;
    let model = xiang_kurkoski(rho);
    WafPoint {
        spare_factor: sf,
        effective_rho: rho,
        simulated_waf: simulated,
        model_waf: model,
        agarwal_waf: (1.0 + rho) / (2.0 * rho),
        error_pct: (simulated - model) / model * 100.0,
        host_pages: c.host_pages_written,
    }
}

/// Xiang–Kurkoski write amplification for over-provisioning factor ρ > 0.
pub fn xiang_kurkoski(rho: f64) -> f64 {
    let a = 1.0 + rho;
    a / (a + lambert_w0(-a * (-a).exp()))
}

/// Principal branch of Lambert's W on [−1/e, ∞), by Halley's iteration.
pub fn lambert_w0(x: f64) -> f64 {
    let e_inv = (-1.0f64).exp();
    assert!(x >= -e_inv - 1e-12, "W0 undefined below -1/e");
    // Branch-point series near -1/e, log-based guess for large x, x elsewhere.
    let mut w = if x < -0.25 {
        let p = (2.0 * (std::f64::consts::E * x + 1.0)).max(0.0).sqrt();
        -1.0 + p - p * p / 3.0
    } else if x > 3.0 {
        x.ln() - x.ln().ln()
    } else {
        x
    };
    for _ in 0..50 {
        let ew = w.exp();
        let f = w * ew - x;
        let d = ew * (w + 1.0);
        if d.abs() < 1e-300 {
            break;
        }
        let step = f / (d - (w + 2.0) * f / (2.0 * w + 2.0));
        w -= step;
        if step.abs() < 1e-15 * (1.0 + w.abs()) {
            break;
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lambert_w_satisfies_its_definition() {
        for x in [-0.36, -0.3, -0.1, 0.0, 0.5, 1.0, 10.0] {
            let w = lambert_w0(x);
            assert!((w * w.exp() - x).abs() < 1e-12, "x={x} w={w}");
        }
    }

    #[test]
    fn model_matches_the_papers_example() {
        // Xiang and Kurkoski: over-provisioning factor 0.3 gives 2.36.
        assert!((xiang_kurkoski(0.3) - 2.36).abs() < 0.01);
    }
}
