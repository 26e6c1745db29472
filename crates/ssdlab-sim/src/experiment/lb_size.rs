//! `lb_size=auto`: the logical-block size a bundling scheduler should
//! gather, found as the STB study describes — write bandwidth against
//! request size on the device itself, and the smallest aligned size that
//! reaches 95 % of the peak. Each size writes at random size-aligned
//! offsets, one command at a time, on a fresh device: a size below the
//! FTL's logical block leaves a hybrid FTL merging, one at or above it
//! writes whole blocks; on page mapping the knee is where a request covers
//! every die.

use crate::kernel::{Ctx, Simulation, WorkEvent, Workload};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use ssdlab_protocol::Device;
use ssdlab_protocol::Lpn;
use ssdlab_protocol::{Dir, IoCommand, IoCompletion};

/// Bytes each size writes at least (past a hybrid FTL's log capacity, so
/// merges are paid), and at least this many requests.
const VOLUME_BYTES: u64 = 128 << 20;
const MIN_REQUESTS: u64 = 32;
/// The share of the peak the chosen size must reach.
const KNEE: f64 = 0.95;

/// One measured size.
#[derive(Debug, Clone, Copy, Serialize, PartialEq)]
pub struct SizePoint {
    pub bytes: u64,
    pub mb_s: f64,
}

/// The measurement and the size it chose.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LbCalibration {
    pub points: Vec<SizePoint>,
    pub lb_size: u64,
}

/// Measures sizes from one page up by powers of two to `max_bytes` (at
/// most a sixteenth of the device), each on a new device from `make`.
pub fn calibrate<D: Device>(make: impl Fn() -> D, max_bytes: u64, seed: u64) -> LbCalibration {
    let info = make().info();
    let page = info.page_size as u64;
    let limit = max_bytes.min(info.capacity_bytes() / 16).max(page);
    let mut points = Vec::new();
    let mut bytes = page;
    while bytes <= limit {
        let mb_s = measure(make(), bytes, seed);
        points.push(SizePoint { bytes, mb_s });
        bytes *= 2;
    }
    let peak = points.iter().map(|p| p.mb_s).fold(0.0, f64::max);
    let lb_size = points
        .iter()
        .find(|p| p.mb_s >= KNEE * peak)
        .map_or(page, |p| p.bytes);
    LbCalibration { points, lb_size }
}

/// MB/s of random `bytes`-aligned writes of `bytes`, one at a time.
fn measure<D: Device>(device: D, bytes: u64, seed: u64) -> f64 {
    let info = device.info();
    let pages = (bytes / info.page_size as u64) as u32;
    let slots = info.logical_pages / pages.max(1);
    let requests = VOLUME_BYTES.div_ceil(bytes).max(MIN_REQUESTS);
    let mut sim = Simulation::new(device, None, seed);
    let start = sim.now();
    let mut load = AlignedWrites {
        rng: ChaCha8Rng::seed_from_u64(seed ^ bytes),
        pages,
        slots: slots.max(1),
        bytes: bytes as u32,
        left: requests,
        done: false,
    };
    sim.run(&mut load, None);
    let secs = (sim.now() - start) as f64 / 1e9;
    if secs > 0.0 {
        requests as f64 * bytes as f64 / 1e6 / secs
    } else {
        0.0
    }
}

struct AlignedWrites {
    rng: ChaCha8Rng,
    pages: u32,
    slots: u32,
    bytes: u32,
    left: u64,
    done: bool,
}

impl AlignedWrites {
    fn submit<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        let slot = self.rng.gen_range(0..self.slots);
        let cmd = IoCommand {
            id: self.left,
            op: Dir::Write,
            lpa: Lpn(slot * self.pages),
            pages: self.pages,
            bytes: self.bytes,
            sq: 0,
            deadline: None,
        };
        self.left -= 1;
        cx.submit_command(cmd).expect("aligned inside the device");
    }
}

impl Workload for AlignedWrites {
    fn start<D: Device>(&mut self, cx: &mut Ctx<'_, D>) {
        self.submit(cx);
    }

    fn on_event<D: Device>(&mut self, _: WorkEvent, _: &mut Ctx<'_, D>) {}

    fn command_done<D: Device>(&mut self, _: IoCompletion, cx: &mut Ctx<'_, D>) {
        if self.left == 0 {
            self.done = true;
        } else {
            self.submit(cx);
        }
    }

    fn is_done(&self) -> bool {
        self.done
    }
}

/// A scheduler spec with `lb_size=auto` replaced by the bytes `measure`
/// gives, and those bytes; `measure` is called only when the spec asks for
/// it.
pub fn resolve_auto<E>(
    spec: &str,
    measure: impl FnOnce() -> Result<u64, E>,
) -> Result<(String, Option<u64>), E> {
    if !spec.contains("lb_size=auto") {
        return Ok((spec.to_string(), None));
    }
    let lb = measure()?;
    Ok((
        spec.replace("lb_size=auto", &format!("lb_size={lb}")),
        Some(lb),
    ))
}
