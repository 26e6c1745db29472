//! A command's direction: the one read/write/trim enum of the workspace.

use serde::{Deserialize, Serialize};

/// I/O direction.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum Dir {
    #[default]
    Read,
    Write,
    Trim,
}

impl Dir {
    pub const ALL: [Dir; 3] = [Dir::Read, Dir::Write, Dir::Trim];

    /// fio's name of the direction ("read", "write", "trim").
    pub fn name(self) -> &'static str {
        match self {
            Dir::Read => "read",
            Dir::Write => "write",
            Dir::Trim => "trim",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
