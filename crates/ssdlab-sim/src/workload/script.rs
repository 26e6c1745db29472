//! Device commands at given times, straight to the device (no host path):
//! the harness of device-level tests and calibration checks. The script never
//! ends by itself, so a run goes on until the device has nothing left to do
//! (buffered writes flushed, GC finished).

use crate::kernel::{Ctx, WorkEvent, Workload};
use ssdlab_protocol::Device;
use ssdlab_protocol::Ns;
use ssdlab_protocol::{IoCommand, IoCompletion};

#[derive(Debug, Default)]
pub struct CommandScript {
    /// Commands by submission time (stable for equal times).
    commands: Vec<(Ns, IoCommand)>,
    next: usize,
    done: Vec<IoCompletion>,
}

impl CommandScript {
    /// `commands` at absolute simulated times; those in the past go at once.
    pub fn new(mut commands: Vec<(Ns, IoCommand)>) -> Self {
        commands.sort_by_key(|&(at, _)| at);
        CommandScript {
            commands,
            next: 0,
            done: Vec::new(),
        }
    }

    /// All commands at the simulation's present time.
    pub fn now(commands: impl IntoIterator<Item = IoCommand>) -> Self {
        Self::new(commands.into_iter().map(|c| (0, c)).collect())
    }

    /// Completions so far, in the order the device posted them.
    pub fn completions(&self) -> &[IoCompletion] {
        &self.done
    }

    /// Completion times by command id, sorted by id.
    pub fn times_by_id(&self) -> Vec<(u64, Ns)> {
        let mut v: Vec<_> = self.done.iter().map(|c| (c.id, c.time)).collect();
        v.sort_unstable();
        v
    }

    fn submit_due<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        while let Some(&(at, cmd)) = self.commands.get(self.next) {
            if at > cx.now() {
                cx.schedule(at, WorkEvent::Wake(0));
                return;
            }
            self.next += 1;
            if let Err(e) = cx.submit_command(cmd) {
                panic!("scripted command refused: {e}");
            }
        }
    }
}

impl Workload for CommandScript {
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        self.submit_due(cx);
    }

    fn on_event<D: Device>(&mut self, _: WorkEvent, cx: &mut Ctx<'_, D>) {
        self.submit_due(cx);
    }

    fn command_done<D: Device>(&mut self, c: IoCompletion, _: &mut Ctx<'_, D>) {
        self.done.push(c);
    }

    fn is_done(&self) -> bool {
        false
    }
}
