//! Page-allocation policies: which plane a logical page's flush may go to.
//! One policy, one file; `REGISTRY` maps names to constructors. The device
//! keeps a flush queue per plane for pages with a home plane and one shared
//! queue for pages any plane may take; an idle die serves its planes' queues
//! first, then the shared one.

mod dynamic;
mod static_stripe;

use super::config::choice::{Choice, Entry, Registry};
use super::layout::Layout;
use crate::ssd::ids::{Lpn, PlaneId};

pub trait AllocationPolicy: Send {
    fn name(&self) -> &'static str;
    /// The plane `lpa` must be written to, or None when any plane will do.
    fn home_plane(&self, lpa: Lpn) -> Option<PlaneId>;
}

/// An allocation policy's registry entry.
pub type AllocationEntry = Entry<fn(&Layout) -> Box<dyn AllocationPolicy>>;

pub const REGISTRY: &[AllocationEntry] = &[static_stripe::ENTRY, dynamic::ENTRY];

/// The allocation policies, as a preset names them (`ftl.allocation`).
pub struct AllocationPolicies;

impl Registry for AllocationPolicies {
    const KIND: &'static str = "allocation policy";
    type Make = fn(&Layout) -> Box<dyn AllocationPolicy>;
    const ENTRIES: &'static [AllocationEntry] = REGISTRY;
}

/// An allocation policy chosen by name in a preset.
pub type AllocationChoice = Choice<AllocationPolicies>;

/// Builds the chosen policy over `layout`.
pub fn make_policy(choice: AllocationChoice, layout: &Layout) -> Box<dyn AllocationPolicy> {
    (choice.entry().make)(layout)
}
