//! Index types of the device: a logical page, a physical page, a block, a
//! plane, a die and a controller command slot are each their own type, so a
//! block number cannot be passed where a plane is wanted and "no page" is an
//! `Option`, not a sentinel value shared by every map.
//!
//! Each wraps the `u32` it is stored as (`#[repr(transparent)]`: no cost at
//! run time); `index()` gives the `usize` for indexing a table.

use std::fmt;

/// What the maps need of an index type: its raw `u32` and back.
pub trait RawIndex: Copy {
    fn from_raw(raw: u32) -> Self;
    fn raw(self) -> u32;
}

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The position in a table indexed by this type.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl RawIndex for $name {
            #[inline]
            fn from_raw(raw: u32) -> Self {
                $name(raw)
            }
            #[inline]
            fn raw(self) -> u32 {
                self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

/// A logical page is the protocol's (the host addresses it).
pub use ssdlab_protocol::Lpn;

impl RawIndex for Lpn {
    #[inline]
    fn from_raw(raw: u32) -> Self {
        Lpn(raw)
    }
    #[inline]
    fn raw(self) -> u32 {
        self.0
    }
}

index_type!(
    /// A physical page: a mapping unit of the flash array, numbered across the
    /// device so that a block's pages are contiguous.
    Ppn
);
index_type!(
    /// An erase block, numbered across the device so that a plane's blocks
    /// are contiguous.
    BlockId
);
index_type!(
    /// A plane, numbered across the device so that a die's planes are
    /// contiguous.
    PlaneId
);
index_type!(
    /// A die (a flash execution unit), numbered channel by channel.
    DieId
);
index_type!(
    /// A command slot of the controller (a command being executed).
    SlotId
);
