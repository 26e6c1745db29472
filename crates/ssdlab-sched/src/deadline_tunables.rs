//! The tunables the two deadline elevators share: mq-deadline
//! (mq_deadline.rs) and the single-queue `deadline` (deadline.rs) read them
//! from sysfs under the same names, with the same defaults.

use super::{Tunable, TunableKind};

const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;

pub const READ_EXPIRE: Tunable = Tunable {
    name: "read_expire",
    kind: TunableKind::Duration {
        min: 0,
        max: 3600 * S,
        unit_ns: MS,
    },
    default: 500 * MS,
    help: "deadline of a read after insertion (sysfs unit: ms)",
};

pub const WRITE_EXPIRE: Tunable = Tunable {
    name: "write_expire",
    kind: TunableKind::Duration {
        min: 0,
        max: 3600 * S,
        unit_ns: MS,
    },
    default: 5 * S,
    help: "deadline of a write after insertion (sysfs unit: ms)",
};

pub const WRITES_STARVED: Tunable = Tunable {
    name: "writes_starved",
    kind: TunableKind::Int {
        min: 0,
        max: 1 << 20,
    },
    default: 2,
    help: "read batches that may pass over pending writes",
};

pub const FRONT_MERGES: Tunable = Tunable {
    name: "front_merges",
    kind: TunableKind::Bool,
    default: 1,
    help: "also merge bios that end where a queued request starts",
};
