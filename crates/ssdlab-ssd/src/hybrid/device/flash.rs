//! The flash array's timing: every operation is reserved, in the order it
//! is given, on its unit (die) and channel, each a busy-until time (FIFO).

use crate::hybrid::fast::{FlashAddr, FlashOp};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Ns;

/// Nominal times of the array and the channels.
#[derive(Debug, Clone, Copy)]
pub(super) struct FlashTiming {
    pub read_ns: Ns,
    pub program_ns: Ns,
    pub erase_ns: Ns,
    /// One page across a channel.
    pub xfer_ns: Ns,
    /// Command and address cycles of one flash command.
    pub command_ns: Ns,
    /// tR and tPROG vary by a factor drawn from [1 − spread, 1 + spread].
    pub spread: f64,
}

pub(super) struct FlashArray {
    t: FlashTiming,
    unit_busy: Vec<Ns>,
    channel_busy: Vec<Ns>,
    channel_of_unit: Vec<u32>,
    rng: ChaCha8Rng,
}

impl FlashArray {
    /// `units` dies numbered channel by channel, `units_per_channel` each.
    pub fn new(t: FlashTiming, units: u32, units_per_channel: u32, seed: u64) -> FlashArray {
        let channels = units.div_ceil(units_per_channel);
        FlashArray {
            t,
            unit_busy: vec![0; units as usize],
            channel_busy: vec![0; channels as usize],
            channel_of_unit: (0..units).map(|u| u / units_per_channel).collect(),
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    pub fn timing(&self) -> &FlashTiming {
        &self.t
    }

    /// Reserves `op`, which may start at `earliest`; returns when it ends.
    pub fn run(&mut self, op: FlashOp, earliest: Ns) -> Ns {
        match op {
            FlashOp::Program(at) => self.program(at, earliest),
            FlashOp::Copy { from, to } => self.copy(from, to, earliest),
            FlashOp::Erase { unit, .. } => self.erase(unit, earliest),
        }
    }

    /// A host read: command and tR on the unit, then the page out over the
    /// channel (the unit holds the data until then). Returns when the data
    /// is in the controller.
    pub fn read(&mut self, at: FlashAddr, earliest: Ns) -> Ns {
        let sensed = self.sense(at.unit, earliest);
        let out = self.transfer(self.channel(at.unit), sensed, self.t.xfer_ns);
        self.unit_busy[at.unit as usize] = out;
        out
    }

    /// Command, address and data in over the channel once the unit is
    /// free, then tPROG.
    fn program(&mut self, at: FlashAddr, earliest: Ns) -> Ns {
        let free = earliest.max(self.unit_busy[at.unit as usize]);
        self.load_and_program(at.unit, free)
    }

    /// Copy-back on one unit (tR + tPROG, no channel); across units, tR on
    /// the source, the page out over its channel and in over the
    /// destination's, tPROG on the destination.
    fn copy(&mut self, from: FlashAddr, to: FlashAddr, earliest: Ns) -> Ns {
        if from.unit == to.unit {
            let start = earliest.max(self.unit_busy[from.unit as usize]);
            let end = start
                + 2 * self.t.command_ns
                + self.vary(self.t.read_ns)
                + self.vary(self.t.program_ns);
            self.unit_busy[from.unit as usize] = end;
            return end;
        }
        let there = self.read(from, earliest);
        let free = there.max(self.unit_busy[to.unit as usize]);
        self.load_and_program(to.unit, free)
    }

    fn erase(&mut self, unit: u32, earliest: Ns) -> Ns {
        let start = earliest.max(self.unit_busy[unit as usize]);
        let end = start + self.t.command_ns + self.t.erase_ns;
        self.unit_busy[unit as usize] = end;
        end
    }

    /// Command and tR on `unit`, from `earliest` or when it is free.
    fn sense(&mut self, unit: u32, earliest: Ns) -> Ns {
        let start = earliest.max(self.unit_busy[unit as usize]);
        let end = start + self.t.command_ns + self.vary(self.t.read_ns);
        self.unit_busy[unit as usize] = end;
        end
    }

    /// The page into `unit` from `ready` (channel permitting), then tPROG.
    fn load_and_program(&mut self, unit: u32, ready: Ns) -> Ns {
        let loaded = self.transfer(
            self.channel(unit),
            ready,
            self.t.command_ns + self.t.xfer_ns,
        );
        let end = loaded + self.vary(self.t.program_ns);
        self.unit_busy[unit as usize] = end;
        end
    }

    /// `ns` on `channel` from `ready` or when it is free; returns the end.
    fn transfer(&mut self, channel: u32, ready: Ns, ns: Ns) -> Ns {
        let busy = &mut self.channel_busy[channel as usize];
        *busy = ready.max(*busy) + ns;
        *busy
    }

    fn channel(&self, unit: u32) -> u32 {
        self.channel_of_unit[unit as usize]
    }

    /// A nominal array time with the spread applied.
    fn vary(&mut self, nominal: Ns) -> Ns {
        let spread = self.t.spread;
        if spread == 0.0 {
            return nominal;
        }
        let f: f64 = self.rng.gen_range(1.0 - spread..=1.0 + spread);
        (nominal as f64 * f).round() as Ns
    }
}
