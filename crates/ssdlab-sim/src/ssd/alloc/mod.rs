//! Page-allocation policies: which plane a logical page's flush may go to.
//! One policy, one file; `REGISTRY` maps names to constructors. The device
//! keeps a flush queue per plane for pages with a home plane and one shared
//! queue for pages any plane may take; an idle die serves its planes' queues
//! first, then the shared one.

mod dynamic;
mod static_stripe;

use super::layout::Layout;

pub trait AllocationPolicy: Send {
    fn name(&self) -> &'static str;
    /// The plane `lpa` must be written to, or None when any plane will do.
    fn home_plane(&self, lpa: u32) -> Option<u32>;
}

pub struct AllocationEntry {
    pub name: &'static str,
    pub help: &'static str,
    pub make: fn(&Layout) -> Box<dyn AllocationPolicy>,
}

pub const REGISTRY: &[AllocationEntry] = &[static_stripe::ENTRY, dynamic::ENTRY];

pub fn policy_names() -> Vec<&'static str> {
    REGISTRY.iter().map(|e| e.name).collect()
}

pub fn make_policy(name: &str, layout: &Layout) -> Option<Box<dyn AllocationPolicy>> {
    REGISTRY
        .iter()
        .find(|e| e.name == name)
        .map(|e| (e.make)(layout))
}
