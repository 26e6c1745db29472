//! Page-allocation policies: where a logical page's flush may go. One
//! policy, one file; `REGISTRY` maps names to constructors. The device keeps
//! one flush queue per plane (pages with a home plane) or per die group
//! (pages restricted to a chip cluster), and one shared queue for pages any
//! plane may take; an idle die serves its own queue first, then the shared
//! one.

mod clusters;
mod dynamic;
mod static_stripe;

use super::layout::Layout;
use super::registry::{Choice, Entry, Registry};
use crate::ids::PlaneId;
use ssdlab_protocol::Lpn;

/// Where a logical page may be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Target {
    /// This plane only.
    Plane(PlaneId),
    /// Any plane of the dies of this group (`AllocationPolicy::die_groups`).
    Group(u32),
    /// Any plane.
    Any,
}

pub trait AllocationPolicy: Send {
    fn name(&self) -> &'static str;
    /// Where `lpa` may be written.
    fn target(&self, lpa: Lpn) -> Target;
    /// Each die's group, by die index, for a policy that restricts pages
    /// to groups of dies; empty otherwise.
    fn die_groups(&self) -> &[u32] {
        &[]
    }
}

/// An allocation policy's registry entry.
pub type AllocationEntry = Entry<fn(&Layout, &[ChipCluster]) -> Box<dyn AllocationPolicy>>;

pub const REGISTRY: &[AllocationEntry] = &[static_stripe::ENTRY, dynamic::ENTRY, clusters::ENTRY];

/// The allocation policies, as a preset names them (`ftl.allocation`).
pub struct AllocationPolicies;

impl Registry for AllocationPolicies {
    const KIND: &'static str = "allocation policy";
    type Make = fn(&Layout, &[ChipCluster]) -> Box<dyn AllocationPolicy>;
    const ENTRIES: &'static [AllocationEntry] = REGISTRY;
}

/// An allocation policy chosen by name in a preset.
pub type AllocationChoice = Choice<AllocationPolicies>;

/// Builds the chosen policy over `layout` with the FTL's settings.
pub fn make_policy(
    choice: AllocationChoice,
    layout: &Layout,
    clusters: &[ChipCluster],
) -> Box<dyn AllocationPolicy> {
    (choice.entry().make)(layout, clusters)
}

pub use clusters::{cluster_ranges, ChipCluster};
