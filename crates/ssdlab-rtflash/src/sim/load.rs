//! Drawing the NRT load of the real-time simulation: request sizes, the
//! read/write mix and Poisson gaps, from the task set's `[nrt]` section.

use crate::taskset::{NrtArrival, NrtLoad};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Ns;

/// NRT requests kept outstanding per chip under a saturating load: enough
/// that every chip always has NRT work ready (a choice of ours).
pub const SATURATING_PER_CHIP: u32 = 2;

/// An NRT request: its first page in the NRT region, its pages (at least
/// one, at most the region) and whether it writes. None for an empty
/// region.
pub fn draw(load: &NrtLoad, page_size: u64, rng: &mut ChaCha8Rng) -> Option<(u64, u64, bool)> {
    let lo = load.min_request_bytes.min(load.max_request_bytes);
    let bytes = rng.gen_range(lo..=load.max_request_bytes.max(lo));
    let pages = bytes.div_ceil(page_size.max(1)).max(1);
    let is_write = !rng.gen_bool(load.read_fraction.clamp(0.0, 1.0));
    let pages = pages.min(load.footprint_pages);
    if pages == 0 {
        return None;
    }
    let start = rng.gen_range(0..=load.footprint_pages - pages);
    Some((start, pages, is_write))
}

/// The gap to the next Poisson arrival (None for a saturating load).
pub fn next_gap(load: &NrtLoad, rng: &mut ChaCha8Rng) -> Option<Ns> {
    let NrtArrival::Poisson { per_second } = load.arrival else {
        return None;
    };
    if per_second <= 0.0 || !per_second.is_finite() {
        return None;
    }
    let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    let gap_s = -u.ln() / per_second;
    Some((gap_s * 1e9).clamp(1.0, 1e15) as Ns)
}
