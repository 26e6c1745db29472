//! A job's I/O priority: its own (`prioclass`, `prio`), or per I/O the
//! cmdprio one (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`); and the
//! value fio keeps of it (`io_u->ioprio`), which its logs show.

use super::{dir_index, FioJob};
use crate::host::Bio;
use rand::Rng;
use ssdlab_fio::generator::IoDir;
use ssdlab_fio::PrioClass;
use ssdlab_sched::{IoClass, IoPrio};

impl FioJob {
    /// The priority of bio `id`, going in `dir`: the job's, or the cmdprio
    /// one for cmdprio_percentage of the I/Os (remembered until the bio
    /// completes, for its log entries).
    pub(super) fn prio_for(&mut self, dir: IoDir, id: u64) -> IoPrio {
        let d = dir_index(dir);
        let pct = [
            self.spec.cmdprio_percentage.read,
            self.spec.cmdprio_percentage.write,
            self.spec.cmdprio_percentage.trim,
        ][d];
        if pct > 0 && self.rng.gen_range(0..100u8) < pct {
            self.cmdprio_ios.insert(id);
            let (class, level) = self.cmdprio_of(d);
            return IoPrio {
                class: io_class(class),
                level,
            };
        }
        match self.spec.prioclass {
            Some(c) => IoPrio {
                class: io_class(c),
                level: self.spec.prio.unwrap_or(4),
            },
            None => IoPrio {
                level: self.spec.prio.unwrap_or(4),
                ..IoPrio::NONE
            },
        }
    }

    fn cmdprio_of(&self, d: usize) -> (PrioClass, u8) {
        let s = &self.spec;
        let class = [
            s.cmdprio_class.read,
            s.cmdprio_class.write,
            s.cmdprio_class.trim,
        ][d];
        let level = [s.cmdprio.read, s.cmdprio.write, s.cmdprio.trim][d];
        (class, level)
    }

    /// fio's `io_u->ioprio` for a completed bio of the job: the cmdprio
    /// value when cmdprio chose it, else the job's (0 when neither `prio`
    /// nor `prioclass` is set: fio then sets none, and a level left unset
    /// is 0, not the kernel's effective 4).
    pub(super) fn ioprio_value_of(&mut self, b: &Bio) -> u16 {
        if !self.cmdprio_ios.is_empty() && self.cmdprio_ios.remove(&b.id) {
            let (class, level) = self.cmdprio_of(b.dir.index());
            return ioprio_value(class, level);
        }
        match (self.spec.prioclass, self.spec.prio) {
            (None, None) => 0,
            (class, level) => ioprio_value(class.unwrap_or(PrioClass::None), level.unwrap_or(0)),
        }
    }
}

/// Linux's ioprio encoding as fio builds it: class in the top 3 of 16
/// bits, level below; class 0 (none) is taken as best-effort.
fn ioprio_value(class: PrioClass, level: u8) -> u16 {
    let class = match class {
        PrioClass::None => PrioClass::Be,
        c => c,
    };
    (u16::from(class.as_u8()) << 13) | u16::from(level)
}

fn io_class(c: PrioClass) -> IoClass {
    match c {
        PrioClass::None => IoClass::None,
        PrioClass::Rt => IoClass::Rt,
        PrioClass::Be => IoClass::Be,
        PrioClass::Idle => IoClass::Idle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioprio_values_are_fios() {
        // fio's ioprio_value(): prio=3 alone is best-effort level 3.
        assert_eq!(ioprio_value(PrioClass::None, 3), 0x4003);
        assert_eq!(ioprio_value(PrioClass::Rt, 0), 0x2000);
        assert_eq!(ioprio_value(PrioClass::Idle, 7), 0x6007);
    }
}
