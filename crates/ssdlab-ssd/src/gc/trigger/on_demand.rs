//! `on-demand` (after Lee, Choi, Hong, Electronics 12(9):2142, 2023; the
//! paper names an invalidation-rate-based trigger but gives no formula, so
//! the rule below is a choice of ours, see docs/model.md): collect
//! only when the plane cannot absorb the writes expected over a horizon:
//!
//!   need(p) = max(R_min, ⌈w_rate(p) · H⌉) pages
//!   start iff free_pages(p) < need(p)
//!         and (some candidate has IR ≥ θ_IR or free_pages(p) < hard_min)
//!
//! free_pages counts the space above the host reserve (the blocks the device
//! keeps for GC destinations, below which GC runs as critical anyway).
//! w_rate is an EWMA (weight `ewma_weight`) of the plane's page programs per
//! second over windows of W. Once started, the plane collects one victim per
//! GC job until its deficit is covered (θ_IR decides only the start).

use super::{GcTrigger, TriggerCtx, TriggerEntry};
use serde::{Deserialize, Serialize};
use ssdlab_protocol::Ns;

pub const ENTRY: TriggerEntry = TriggerEntry {
    name: "on-demand",
    help: "collect only when free pages fall below the writes expected over a horizon (invalidation-rate trigger)",
    make: |p| {
        let planes = p.planes;
        Box::new(OnDemandTrigger {
            p: p.on_demand.clone(),
            rate: vec![RateEwma::default(); planes],
            collecting: vec![false; planes],
        })
    },
};

/// Parameters of the on-demand trigger and the prioritized victims (after
/// Lee, Choi, Hong, Electronics 12(9):2142, 2023). The paper gives none of
/// these values: every default is a choice of ours (see docs/model.md).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct OnDemand {
    /// Minimum free space a plane keeps (R_min), in blocks.
    pub r_min_blocks: u32,
    /// Horizon H: the plane must absorb the writes expected in this time.
    pub horizon_ns: u64,
    /// θ_IR: a candidate must be at least this invalid to collect early.
    pub theta_ir: f64,
    /// hard_min: below this many free blocks GC runs whatever the candidates.
    pub hard_min_blocks: u32,
    /// λ: weight that defers still-hot blocks (0 = pure gain/cost).
    pub lambda: f64,
    /// H_exp: horizon over which a hot block is expected to invalidate.
    pub hot_horizon_ns: u64,
    /// W: window of the write-rate estimate.
    pub window_ns: u64,
    /// EWMA weight of the newest window.
    pub ewma_weight: f64,
    /// Global-order variant: a die collects, among all its due planes, the
    /// victim the policy ranks highest (else the first due plane's).
    pub global_order: bool,
}

impl Default for OnDemand {
    fn default() -> Self {
        OnDemand {
            r_min_blocks: 2,
            horizon_ns: 50_000_000,
            theta_ir: 0.5,
            hard_min_blocks: 1,
            lambda: 0.0,
            hot_horizon_ns: 1_000_000_000,
            window_ns: 100_000_000,
            ewma_weight: 0.2,
            global_order: false,
        }
    }
}

/// Page programs per second of one plane, over fixed windows.
#[derive(Debug, Clone, Copy, Default)]
struct RateEwma {
    started: bool,
    window_start: Ns,
    programs_at_start: u64,
    per_s: f64,
}

pub struct OnDemandTrigger {
    p: OnDemand,
    rate: Vec<RateEwma>,
    /// Planes collecting until their deficit is covered.
    collecting: Vec<bool>,
}

impl OnDemandTrigger {
    /// Folds every window that ended before `now` into the EWMA.
    fn write_rate(&mut self, c: &TriggerCtx) -> f64 {
        let (w, a) = (self.p.window_ns, self.p.ewma_weight);
        let r = &mut self.rate[c.plane.index()];
        let programs = c.ftl.plane_programs(c.plane);
        if !r.started || c.now < r.window_start {
            // First look (or time restarted): programs so far are history.
            *r = RateEwma {
                started: true,
                window_start: c.now,
                programs_at_start: programs,
                per_s: 0.0,
            };
        }
        if c.now >= r.window_start + w {
            let windows = (c.now - r.window_start) / w;
            let first = (programs - r.programs_at_start) as f64 * 1e9 / w as f64;
            r.per_s = a * first + (1.0 - a) * r.per_s;
            // Windows without a sample since then decay the estimate.
            r.per_s *= (1.0 - a).powi(windows.saturating_sub(1).min(1000) as i32);
            r.window_start += windows * w;
            r.programs_at_start = programs;
        }
        r.per_s
    }
}

impl GcTrigger for OnDemandTrigger {
    fn name(&self) -> &'static str {
        "on-demand"
    }

    fn due(&mut self, c: &TriggerCtx) -> bool {
        let ppb = c.ftl.layout().pages_per_block as u64;
        let rate = self.write_rate(c);
        let expected = (rate * self.p.horizon_ns as f64 / 1e9).ceil() as u64;
        let need = (self.p.r_min_blocks as u64 * ppb).max(expected);
        let reserve = c.ftl.host_reserve_blocks() as u64 * ppb;
        let free = c.ftl.free_pages(c.plane).saturating_sub(reserve);
        let collecting = &mut self.collecting[c.plane.index()];
        if free >= need {
            *collecting = false;
            return false;
        }
        if *collecting || free < self.p.hard_min_blocks as u64 * ppb {
            *collecting = true;
            return true;
        }
        // A candidate at least θ_IR invalid: the fullest-invalid block is the
        // first of the valid-count buckets.
        let max_valid = ((1.0 - self.p.theta_ir) * ppb as f64).floor() as u16;
        *collecting = (0..=max_valid).any(|v| c.ftl.bucket(c.plane, v).next().is_some());
        *collecting
    }
}
