//! `on-demand` (Lee, Choi, Hong 2023; gc-ondemand.md §4, [interp]): collect
//! only when the plane cannot absorb the writes expected over a horizon:
//!
//!   need(p) = max(R_min, ⌈w_rate(p) · H⌉) pages
//!   due  iff free_pages(p) < need(p)
//!        and (some candidate has IR ≥ θ_IR or free blocks ≤ hard_min)
//!
//! w_rate is an EWMA (weight `ewma_weight`) of the plane's page programs per
//! second over windows of W. Each GC job collects one victim and the trigger
//! is asked again, so collection stops as soon as the need is met.

use super::{GcTrigger, TriggerCtx, TriggerEntry};
use crate::engine::Ns;
use crate::ssd::config::OnDemand as Params;

pub const ENTRY: TriggerEntry = TriggerEntry {
    name: "on-demand",
    help: "collect only when free pages fall below the writes expected over a horizon (invalidation-rate trigger)",
    make: |cfg| {
        let planes = crate::ssd::layout::Layout::new(cfg).planes as usize;
        Box::new(OnDemand {
            p: cfg.gc.on_demand.clone(),
            rate: vec![RateEwma::default(); planes],
        })
    },
};

/// Page programs per second of one plane, over fixed windows.
#[derive(Debug, Clone, Copy, Default)]
struct RateEwma {
    window_start: Ns,
    programs_at_start: u64,
    per_s: f64,
}

pub struct OnDemand {
    p: Params,
    rate: Vec<RateEwma>,
}

impl OnDemand {
    /// Folds every window that ended before `now` into the EWMA.
    fn write_rate(&mut self, c: &TriggerCtx) -> f64 {
        let (w, a) = (self.p.window_ns, self.p.ewma_weight);
        let r = &mut self.rate[c.plane as usize];
        let programs = c.ftl.plane_programs(c.plane);
        if c.now < r.window_start {
            // Time restarted (a new run on a preconditioned device).
            *r = RateEwma::default();
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

impl GcTrigger for OnDemand {
    fn name(&self) -> &'static str {
        "on-demand"
    }

    fn due(&mut self, c: &TriggerCtx) -> bool {
        let ppb = c.ftl.layout.pages_per_block as u64;
        let rate = self.write_rate(c);
        let expected = (rate * self.p.horizon_ns as f64 / 1e9).ceil() as u64;
        let need = (self.p.r_min_blocks as u64 * ppb).max(expected);
        if c.ftl.free_pages(c.plane) >= need {
            return false;
        }
        if c.ftl.free_blocks(c.plane) <= self.p.hard_min_blocks {
            return true;
        }
        // A candidate at least θ_IR invalid: the fullest-invalid block is the
        // first of the valid-count buckets.
        let max_valid = ((1.0 - self.p.theta_ir) * ppb as f64).floor() as u16;
        (0..=max_valid).any(|v| c.ftl.bucket(c.plane, v).next().is_some())
    }
}
