//! A job's I/O priority: its own (`prioclass`, `prio`), or per I/O the
//! cmdprio one (`cmdprio_percentage`, `cmdprio_class`, `cmdprio`).

use super::{dir_index, FioJob};
use rand::Rng;
use ssdlab_fio::generator::IoDir;
use ssdlab_fio::PrioClass;
use ssdlab_sched::{IoClass, IoPrio};

impl FioJob {
    /// The job's priority, or per I/O the cmdprio one (cmdprio_percentage).
    pub(super) fn prio_for(&mut self, dir: IoDir) -> IoPrio {
        let d = dir_index(dir);
        let pct = [
            self.spec.cmdprio_percentage.read,
            self.spec.cmdprio_percentage.write,
            self.spec.cmdprio_percentage.trim,
        ][d];
        if pct > 0 && self.rng.gen_range(0..100u8) < pct {
            let class = [
                self.spec.cmdprio_class.read,
                self.spec.cmdprio_class.write,
                self.spec.cmdprio_class.trim,
            ][d];
            let level = [
                self.spec.cmdprio.read,
                self.spec.cmdprio.write,
                self.spec.cmdprio.trim,
            ][d];
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
}

fn io_class(c: PrioClass) -> IoClass {
    match c {
        PrioClass::None => IoClass::None,
        PrioClass::Rt => IoClass::Rt,
        PrioClass::Be => IoClass::Be,
        PrioClass::Idle => IoClass::Idle,
    }
}
