//! The simulation kernel: one place that owns the clock, the event queue and
//! the run's seed, and wires workload → host path → device → host path →
//! workload. Callers build a device (anything implementing [`Device`]), an
//! optional host block layer, and a [`Workload`]; they run it and read the
//! results. Nothing outside this module moves completions between parts.
//!
//! Events are delivered earliest first; simultaneous events in the order they
//! were scheduled, so a run is deterministic.

use crate::engine::EventQueue;
use crate::host::{Bio, BioDone, BlockLayer, HostEvent};
use ssdlab_protocol::{
    CommandError, Device, IoCommand, IoCompletion, LiveDevice, Ns, Timers, MAX_TIME_NS,
};

/// A workload's own events: `source` is the workload's index for the issuer
/// (an fio job, a trace, a real-time task).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkEvent {
    /// The source may issue again (start, think time, rate limit).
    Wake(u32),
    /// The source's next prepared I/O enters the host path.
    Submit(u32),
    /// The source sees its next ended I/O.
    Complete(u32),
}

/// Every event of a simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event<DE> {
    Device(DE),
    Host(HostEvent),
    Work(WorkEvent),
}

impl<DE> From<HostEvent> for Event<DE> {
    fn from(e: HostEvent) -> Self {
        Event::Host(e)
    }
}

impl<DE> From<WorkEvent> for Event<DE> {
    fn from(e: WorkEvent) -> Self {
        Event::Work(e)
    }
}

/// Where a device's events enter the kernel's queue.
struct DeviceTimers<'a, DE>(&'a mut EventQueue<Event<DE>>);

impl<DE: Copy> Timers<DE> for DeviceTimers<'_, DE> {
    #[inline]
    fn schedule(&mut self, at: Ns, event: DE) {
        self.0.push(at, Event::Device(event));
    }
}

/// Where the host path's events enter the kernel's queue.
struct HostTimers<'a, DE>(&'a mut EventQueue<Event<DE>>);

impl<DE: Copy> Timers<HostEvent> for HostTimers<'_, DE> {
    #[inline]
    fn schedule(&mut self, at: Ns, event: HostEvent) {
        self.0.push(at, Event::Host(event));
    }
}

/// What a workload may do while it handles an event: read the clock, set its
/// own timers, and submit I/O to the host path (or, without one, commands
/// straight to the device).
pub struct Ctx<'a, D: Device> {
    now: Ns,
    queue: &'a mut EventQueue<Event<D::Event>>,
    host: Option<&'a mut BlockLayer>,
    device: &'a mut D,
}

impl<D: Device> Ctx<'_, D> {
    pub fn now(&self) -> Ns {
        self.now
    }

    /// Schedules one of the workload's own events.
    pub fn schedule(&mut self, at: Ns, ev: WorkEvent) {
        self.queue.push(at, Event::Work(ev));
    }

    /// A bio enters the block layer now. False when it waits for a tag (its
    /// submitter is blocked until [`Ctx::waiting_for_tag`] turns false).
    ///
    /// # Panics
    /// On a simulation built without a host path (a logic error of the caller).
    pub fn submit_bio(&mut self, bio: Bio) -> bool {
        let host = self.host.as_deref_mut().expect("a host path");
        host.submit_bio(bio, self.now, &mut HostTimers(self.queue))
    }

    /// Whether `source` has a bio waiting for a tag.
    pub fn waiting_for_tag(&self, source: u32) -> bool {
        self.host
            .as_deref()
            .is_some_and(|h| h.waiting_for_tag(source))
    }

    /// A command goes straight to the device (simulations without a host
    /// path: closed-loop device loads).
    pub fn submit_command(&mut self, cmd: IoCommand) -> Result<(), CommandError> {
        self.device
            .submit(cmd, self.now, &mut DeviceTimers(self.queue))
    }

    /// The device, for inspection (invariant checks in tests).
    pub fn device(&self) -> &D {
        self.device
    }
}

/// A source of I/O driven by the kernel.
pub trait Workload {
    /// The workload begins at `cx.now()`.
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>);

    /// One of the workload's own events is due.
    fn on_event<D: Device>(&mut self, ev: WorkEvent, cx: &mut Ctx<'_, D>);

    /// A bio it submitted has ended (host path).
    fn bio_done<D: Device>(&mut self, _done: BioDone, _cx: &mut Ctx<'_, D>) {}

    /// Source `source`'s last bio waiting for a tag got one: a source that
    /// was blocked on the tag may issue again. Called in source order when
    /// several are unblocked by one event.
    fn unblocked<D: Device>(&mut self, _source: u32, _cx: &mut Ctx<'_, D>) {}

    /// A command it submitted straight to the device has completed.
    fn command_done<D: Device>(&mut self, _c: IoCompletion, _cx: &mut Ctx<'_, D>) {}

    /// Whether the run is over (checked after every event).
    fn is_done(&self) -> bool;
}

/// Called after every event with the clock and the device.
pub type Step<'a, D> = &'a mut dyn FnMut(Ns, &D);

/// A device, an optional host path, and the clock and queue that drive them.
/// A simulation may run several workloads one after the other: events still
/// pending when one ends (flushes, GC) carry over to the next.
pub struct Simulation<D: Device> {
    queue: EventQueue<Event<D::Event>>,
    device: D,
    host: Option<BlockLayer>,
    seed: u64,
    completions: Vec<IoCompletion>,
    ended: Vec<BioDone>,
    unblocked: Vec<u32>,
    events: u64,
    past_time_limit: bool,
}

impl<D: Device> Simulation<D> {
    /// A simulation whose clock starts where the device was last driven.
    pub fn new(device: D, host: Option<BlockLayer>, seed: u64) -> Self {
        Simulation {
            queue: EventQueue::starting_at(device.now()),
            device,
            host,
            seed,
            completions: Vec::new(),
            ended: Vec::new(),
            unblocked: Vec::new(),
            events: 0,
            past_time_limit: false,
        }
    }

    pub fn now(&self) -> Ns {
        self.queue.now()
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether a run stopped because its next event lay beyond
    /// [`MAX_TIME_NS`] (the workload is then unfinished).
    pub fn past_time_limit(&self) -> bool {
        self.past_time_limit
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn device(&self) -> &D {
        &self.device
    }

    pub fn device_mut(&mut self) -> &mut D {
        &mut self.device
    }

    pub fn host(&self) -> Option<&BlockLayer> {
        self.host.as_ref()
    }

    /// Takes the parts back (for reports that need them by value).
    pub fn into_parts(self) -> (D, Option<BlockLayer>) {
        (self.device, self.host)
    }

    /// Runs `w` until it is done or nothing is left to happen. `step` is
    /// called with the clock and the device after every event (progress
    /// bars, invariant checks in tests).
    pub fn run<W: Workload>(&mut self, w: &mut W, mut step: Option<Step<'_, D>>) {
        let now = self.queue.now();
        w.start(&mut self.ctx(now));
        if w.is_done() {
            return;
        }
        while let Some((now, ev)) = self.queue.pop() {
            if now > MAX_TIME_NS {
                self.past_time_limit = true;
                break;
            }
            self.events += 1;
            self.dispatch(ev, now, w);
            if w.is_done() {
                break;
            }
            if let Some(s) = step.as_mut() {
                s(now, &self.device);
            }
        }
    }

    /// Runs `w` until it is done or the next event is at `end` or later
    /// (that event stays queued).
    pub fn run_until<W: Workload>(&mut self, w: &mut W, end: Ns) {
        let now = self.queue.now();
        w.start(&mut self.ctx(now));
        while !w.is_done() && self.queue.peek_time().is_some_and(|t| t < end) {
            let (now, ev) = self.queue.pop().expect("an event was peeked");
            if now > MAX_TIME_NS {
                self.past_time_limit = true;
                break;
            }
            self.events += 1;
            self.dispatch(ev, now, w);
        }
    }

    /// Runs the device's pending work (flushes, GC) without a workload until
    /// the queue is empty.
    pub fn drain(&mut self) {
        struct Idle;
        impl Workload for Idle {
            fn start<D: Device>(&mut self, _: &mut Ctx<'_, D>) {}
            fn on_event<D: Device>(&mut self, _: WorkEvent, _: &mut Ctx<'_, D>) {}
            fn is_done(&self) -> bool {
                false
            }
        }
        self.run(&mut Idle, None);
    }

    fn ctx(&mut self, now: Ns) -> Ctx<'_, D> {
        Ctx {
            now,
            queue: &mut self.queue,
            host: self.host.as_mut(),
            device: &mut self.device,
        }
    }

    fn dispatch<W: Workload>(&mut self, ev: Event<D::Event>, now: Ns, w: &mut W) {
        match ev {
            Event::Device(e) => {
                self.device
                    .handle(e, now, &mut DeviceTimers(&mut self.queue));
                self.device.take_completions(&mut self.completions);
                if self.completions.is_empty() {
                    return;
                }
                let mut done = std::mem::take(&mut self.completions);
                for c in done.drain(..) {
                    match self.host.as_mut() {
                        Some(h) => h.device_completed(c, &mut HostTimers(&mut self.queue)),
                        None => w.command_done(c, &mut self.ctx(now)),
                    }
                }
                self.completions = done;
            }
            Event::Host(e) => {
                let host = self.host.as_mut().expect("host events need a host path");
                if let Some(cmd) = host.handle(e, now, &mut HostTimers(&mut self.queue)) {
                    // The block layer only sends requests inside the device.
                    self.device
                        .submit(cmd, now, &mut DeviceTimers(&mut self.queue))
                        .expect("requests lie inside the device");
                }
                host.take_ended(&mut self.ended);
                host.take_unblocked(&mut self.unblocked);
                let mut ended = std::mem::take(&mut self.ended);
                for d in ended.drain(..) {
                    w.bio_done(d, &mut self.ctx(now));
                }
                self.ended = ended;
                if self.unblocked.is_empty() {
                    return;
                }
                let mut unblocked = std::mem::take(&mut self.unblocked);
                unblocked.sort_unstable();
                for source in unblocked.drain(..) {
                    w.unblocked(source, &mut self.ctx(now));
                }
                self.unblocked = unblocked;
            }
            Event::Work(e) => w.on_event(e, &mut self.ctx(now)),
        }
    }
}

/// How a live run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveEnd {
    /// The workload finished.
    Done,
    /// `stop` asked the run to end (a signal): the workload is unfinished.
    Stopped,
    /// Nothing was left to happen although the workload was unfinished.
    Stalled,
    /// A command failed (an I/O error, a short transfer, data that failed
    /// verification): `LiveDevice::failure` says which.
    Failed,
}

impl<D: LiveDevice> Simulation<D> {
    /// Runs `w` in real time on a live device: every event runs once the
    /// device's clock has reached it (at that clock's time, so latencies
    /// are real), and between events the kernel waits on the device for a
    /// completion or the next timer. Ends when the workload is done, when
    /// `stop` returns true (checked between events), or at the device's
    /// first failed command. An error is the device itself failing.
    pub fn run_live<W: Workload>(
        &mut self,
        w: &mut W,
        stop: &dyn Fn() -> bool,
    ) -> Result<LiveEnd, String> {
        let now = self.device.clock().max(self.queue.now());
        w.start(&mut self.ctx(now));
        while !w.is_done() {
            if stop() {
                return Ok(LiveEnd::Stopped);
            }
            let now = self.device.clock();
            match self.queue.peek_time() {
                Some(t) if t <= now => {
                    let (_, ev) = self.queue.pop().expect("an event was peeked");
                    self.events += 1;
                    self.dispatch(ev, now, w);
                }
                next => match self.device.wait(next)? {
                    Some(ev) => {
                        let now = self.device.clock().max(self.queue.now());
                        self.events += 1;
                        self.dispatch(Event::Device(ev), now, w);
                    }
                    None if next.is_none() && self.device.outstanding() == 0 => {
                        return Ok(LiveEnd::Stalled);
                    }
                    None => {}
                },
            }
            if self.device.failure().is_some() {
                return Ok(LiveEnd::Failed);
            }
        }
        Ok(LiveEnd::Done)
    }
}
