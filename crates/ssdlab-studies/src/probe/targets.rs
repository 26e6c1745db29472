//! The targets file `calibrate --measurements` fits a preset to: one target
//! per measured figure (QD-1 mean latency, bandwidth against queue depth,
//! the sustained write's speed once its cache is used up), each case's job
//! file beside it, and a few keys of the base preset to fit. It is written
//! out whole, so the fit can be re-run or edited as any targets file.

use super::{Measured, Measurements, Phase, JOB_NAME};
use crate::calibrate::{Metric, Param, Target, TargetValue, TargetsFile};
use ssdlab_sim::error::InputError;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::SsdConfig;
use std::path::PathBuf;

/// The keys fitted by default, each carrying one effect the plan measures:
/// the channels' transfer rate and the host link's (the bandwidth of large
/// transfers), a flash read's and program's time (QD-1 latency; the drain
/// of a full write buffer), the controller's serial work per command and
/// the extra per read and per write command (the IOPS ceilings at depth),
/// its serial work per page read (the read bandwidth ceiling), and the
/// round trip of a command's fetch over the host link (latency that adds
/// nothing to a ceiling). Each is searched from an eighth to eight times
/// where it starts, a key at zero from 0 to 1 ms.
pub const DEFAULT_KEYS: &[&str] = &[
    "timing.read_ns",
    "timing.program_ns",
    "controller.command_ns",
    "controller.read_command_ns",
    "controller.write_command_ns",
    "controller.read_page_ns",
    "controller.pcie_read_ns",
    "controller.link_mbs",
    "timing.channel_mts",
];

/// The range of a key whose base value is zero (a time in ns).
const ZERO_KEY_MAX_NS: f64 = 1_000_000.0;

/// How far each key may move from the base preset's value, as a factor.
const KEY_RANGE: f64 = 8.0;

/// Every target should stay within ±25 % (the acceptance of a fit).
const TOLERANCE: f64 = 0.25;

/// The targets for `m` on `base` (a preset name or file) fitting `keys`,
/// with each target's job file: `(targets, [(file name, job text)])`. The
/// job files are named relative to the targets file.
pub fn targets_for(
    m: &Measurements,
    base: &str,
    keys: &[String],
) -> Result<(TargetsFile, Vec<(PathBuf, String)>), InputError> {
    let Preset { device, host } = Preset::load(base)?;
    let capacity = device.layout().capacity_bytes();
    if m.region_bytes > capacity {
        return Err(InputError::invalid(
            "--base",
            format!(
                "{base} exports {capacity} bytes, fewer than the {} the probe ran over: \
                 choose a larger preset",
                m.region_bytes
            ),
        ));
    }
    // The probe's region was written once (laid out) before it ran; in
    // simulation the same share of the logical space is written in order.
    let occupancy = (100.0 * m.region_bytes as f64 / capacity as f64)
        .ceil()
        .min(100.0);
    let table = crate::calibrate::preset_table(base)?;
    let guesses = first_guesses(m, &device, &host);
    let params = keys
        .iter()
        .map(|k| param(&table, k, &guesses))
        .collect::<Result<Vec<_>, _>>()?;
    let mut targets = Vec::new();
    let mut jobs = Vec::new();
    for c in &m.cases {
        let file = PathBuf::from("jobs").join(format!("{}.fio", c.name));
        for (metric, value) in figures_of(c) {
            targets.push(Target {
                job: file.clone(),
                host: None,
                runtime_s: None,
                scheduler: "none".into(),
                occupancy,
                precondition: "fill".into(),
                metric,
                job_name: (metric == Metric::MeanUs).then(|| JOB_NAME.to_string()),
                value: TargetValue::One(value),
                weight: weight_of(&c.case),
                tolerance: None,
            });
        }
        jobs.push((file, c.job.clone()));
    }
    let file = TargetsFile {
        device: base.to_string(),
        host: Some(crate::calibrate::PRESET_HOST.to_string()),
        seed: 1,
        tolerance: Some(TOLERANCE),
        params,
        targets,
    };
    Ok((file, jobs))
}

/// How much a case counts in the fit. The ends of the depth curve (QD 1:
/// latency; QD 32: the ceilings) are what the default keys carry; its
/// middle (QD 4 and 16) is how fast the drive's parallelism fills, which
/// the base preset's geometry fixes and no default key moves. On a drive
/// whose parallelism is not the base's (a loop device serves a few
/// requests at a time) the middle cannot be met, and fitted at any weight
/// its misses pull the ends out of their bands (measured: 0.25 and 0.05
/// both did); so the middle is a check, run and reported in the residuals
/// but not fitted.
fn weight_of(case: &super::Case) -> f64 {
    let middle = case.phase == Phase::Depth && case.iodepth > 1 && case.iodepth < 32;
    if middle {
        MIDDLE_DEPTH_WEIGHT
    } else {
        1.0
    }
}

/// The weight of a case at QD 4 or 16: a check (the ends weigh 1).
pub const MIDDLE_DEPTH_WEIGHT: f64 = 0.0;

/// The figures of a case that become targets: a latency case's mean
/// latency, a depth case's bandwidth, the sustained write's speed after its
/// cache and the steady state's IOPS. A figure of zero (nothing completed)
/// is no target.
fn figures_of(c: &Measured) -> Vec<(Metric, f64)> {
    let metrics: &[Metric] = match c.case.phase {
        Phase::Latency => &[Metric::MeanUs],
        Phase::Depth => &[Metric::BwMbs],
        Phase::Sustained => &[Metric::AfterCacheMbs],
        Phase::SteadyState => &[Metric::AfterCacheIops],
    };
    metrics
        .iter()
        .filter_map(|&m| {
            let job = (m == Metric::MeanUs).then_some(JOB_NAME);
            let v = m.read(&c.figures, job)?;
            (v.is_finite() && v > 0.0).then_some((m, v))
        })
        .collect()
}

/// The figure of the case called `name`, if it ran and measured one.
fn figure(m: &Measurements, name: &str, metric: Metric) -> Option<f64> {
    let c = m.cases.iter().find(|c| c.name == name)?;
    let job = (metric == Metric::MeanUs).then_some(JOB_NAME);
    metric
        .read(&c.figures, job)
        .filter(|v| v.is_finite() && *v > 0.0)
}

/// Where the search starts for the default keys, from the measurements by
/// the model's own relations (docs/real-drive.md, "Measure a drive, fit a
/// preset"):
/// - the work per page read caps the read bandwidth of 128 KiB reads
///   (`read_page_ns`);
/// - a firmware core's serial work per command caps the IOPS of 4 KiB
///   commands at depth: the faster direction's ceiling is the work every
///   command does (`command_ns`), the slower one's the extra work of its
///   direction (`read_command_ns`, `write_command_ns`); the decoder's work
///   per page read runs beside it;
/// - a QD-1 write is, besides the host's path and the completion entry,
///   two fetches over the host link and its serial work (`pcie_read_ns`); a
///   QD-1 read one fetch, its serial work, its transfers and the flash read
///   (`read_ns`); when the read leaves too little for the flash, the fetch
///   splits the difference ([`fetch_and_flash_read`]);
/// - the write buffer drains at every plane's program at once
///   (`program_ns`);
/// - the channels and the host link carry the largest bandwidth measured
///   with a quarter to spare (`channel_mts`, `link_mbs`).
///
/// A guess that comes out at zero or below is left to the base preset.
fn first_guesses(
    m: &Measurements,
    device: &SsdConfig,
    host: &HostConfig,
) -> Vec<(&'static str, f64)> {
    let work = SerialWork::of(m, f64::from(device.geometry.page_size));
    let rates = Rates::of(m, device);
    let (pcie, read) = fetch_and_flash_guess(m, device, host, &work, &rates);
    let mut g = Vec::new();
    for (key, v) in [
        ("controller.command_ns", work.command),
        ("controller.read_page_ns", work.read_page),
        ("controller.read_command_ns", work.read_command()),
        ("controller.write_command_ns", work.write_command()),
        ("controller.pcie_read_ns", pcie),
        ("controller.link_mbs", rates.link_mbs),
        ("timing.read_ns", read),
        ("timing.program_ns", rates.program_ns),
        ("timing.channel_mts", rates.channel_mts),
    ] {
        if let Some(v) = v.filter(|v| v.is_finite() && *v >= 1.0) {
            g.push((key, v.round()));
        }
    }
    g
}

const NS_PER_S: f64 = 1e9;

/// The controller's serial work the 4 KiB ceilings at QD 32 give, ns: a
/// firmware core's per read and per write command, the work every command
/// does (the faster direction's) and the decoder's per page read (beside
/// the core: a pipeline stage, so it is not part of a read's ceiling).
struct SerialWork {
    read: Option<f64>,
    write: Option<f64>,
    command: Option<f64>,
    read_page: Option<f64>,
}

impl SerialWork {
    fn of(m: &Measurements, page: f64) -> Self {
        let per_4k =
            |name| figure(m, name, Metric::BwMbs).map(|mbs| NS_PER_S * 4096.0 / (mbs * 1e6));
        let (read, write) = (per_4k("randread-4k-qd32"), per_4k("randwrite-4k-qd32"));
        let read_page =
            figure(m, "read-128k-qd32", Metric::BwMbs).map(|mbs| NS_PER_S * page / (mbs * 1e6));
        let command = match (read, write) {
            (Some(r), Some(w)) => Some(r.min(w)),
            (r, w) => r.or(w),
        };
        SerialWork {
            read,
            write,
            command,
            read_page,
        }
    }

    fn read_command(&self) -> Option<f64> {
        Some(self.read? - self.command?)
    }

    fn write_command(&self) -> Option<f64> {
        Some(self.write? - self.command?)
    }
}

/// The rates the bandwidths give: the write buffer drains at every
/// plane's program at once (`program_ns` from the sustained, else QD-32,
/// write bandwidth); the channels and the host link carry the largest
/// bandwidth measured with a quarter to spare.
struct Rates {
    program_ns: Option<f64>,
    channel_mts: Option<f64>,
    link_mbs: Option<f64>,
}

impl Rates {
    fn of(m: &Measurements, device: &SsdConfig) -> Self {
        let write_mbs = figure(m, "sustained-write-128k-qd32", Metric::AfterCacheMbs)
            .or_else(|| figure(m, "write-128k-qd32", Metric::BwMbs));
        let planes = f64::from(device.layout().planes);
        let page = f64::from(device.geometry.page_size);
        let largest_mbs = m
            .cases
            .iter()
            .filter(|c| c.case.phase != Phase::Latency)
            .filter_map(|c| figure(m, &c.name, Metric::BwMbs))
            .chain(write_mbs)
            .reduce(f64::max);
        let channels = f64::from(device.geometry.channels);
        Rates {
            program_ns: write_mbs.map(|mbs| planes * page / (mbs * 1e6) * NS_PER_S),
            channel_mts: largest_mbs
                .map(|mbs| 1.25 * mbs / channels / channel_bytes_per_transfer(device)),
            link_mbs: largest_mbs.map(|mbs| 1.25 * mbs),
        }
    }
}

fn channel_bytes_per_transfer(device: &SsdConfig) -> f64 {
    device.timing.channel_width_bits as f64 / 8.0
}

/// The fetch (`pcie_read_ns`) and the flash read (`read_ns`) from the QD-1
/// 4 KiB latencies, after what a QD-1 command spends outside the fitted
/// keys: the host's path (submission, dispatch, completion, wake-up) and
/// the completion entry, and for a read its page over a channel and the
/// link at the guessed rates.
fn fetch_and_flash_guess(
    m: &Measurements,
    device: &SsdConfig,
    host: &HostConfig,
    work: &SerialWork,
    rates: &Rates,
) -> (Option<f64>, Option<f64>) {
    let c = &host.costs;
    let outside = (c.submit_ns + c.dispatch_ns + c.complete_ns + c.wakeup_ns) as f64
        + device.controller.completion_ns as f64;
    let page = f64::from(device.geometry.page_size);
    let channel_mts = rates
        .channel_mts
        .unwrap_or(device.timing.channel_mts as f64);
    let link_mbs = rates.link_mbs.unwrap_or(device.controller.link_mbs as f64);
    let transfers =
        page * 1e3 / channel_mts / channel_bytes_per_transfer(device) + 4096.0 * 1e3 / link_mbs;
    let qd1 = |name| figure(m, name, Metric::MeanUs).map(|us| us * 1e3 - outside);
    let write_work = work.write.or(work.command).unwrap_or(0.0);
    match (qd1("randwrite-4k-qd1"), qd1("randread-4k-qd1")) {
        (Some(w), Some(r)) => {
            let read_work = work.read.unwrap_or(0.0) + work.read_page.unwrap_or(0.0) + transfers;
            let (fetch, flash) = fetch_and_flash_read(w, write_work, r, read_work);
            (Some(fetch), Some(flash))
        }
        (Some(w), None) => (Some((w - write_work) / 2.0), None),
        _ => (None, None),
    }
}

/// The smallest flash read a first guess gives, ns: a device whose QD-1
/// reads leave nothing for the flash (a loop device's file is in the host's
/// cache) starts here.
const MIN_FLASH_READ_NS: f64 = 1_000.0;

/// The round trip of a fetch over the host link and the flash read, from
/// the QD-1 latencies of a 4 KiB write (`w`: two fetches and its serial
/// work `write_work`) and read (`r`: one fetch, its serial work `read_work`
/// and the flash read). When the read leaves at least
/// [`MIN_FLASH_READ_NS`] for the flash, both hold exactly; otherwise the
/// fetch is the one that errs least on the two, relative to each (least
/// squares), and the flash read is the floor.
fn fetch_and_flash_read(w: f64, write_work: f64, r: f64, read_work: f64) -> (f64, f64) {
    let exact = (w - write_work) / 2.0;
    let flash = r - read_work - exact;
    if flash >= MIN_FLASH_READ_NS {
        return (exact, flash);
    }
    // Minimise ((write_work + 2p − w)/w)² + ((read_work + p + floor − r)/r)².
    let (a1, b1) = (2.0 / w, (write_work - w) / w);
    let (a2, b2) = (1.0 / r, (read_work + MIN_FLASH_READ_NS - r) / r);
    let fetch = -(a1 * b1 + a2 * b2) / (a1 * a1 + a2 * a2);
    (fetch, MIN_FLASH_READ_NS)
}

/// Key `spec` (`key`, or `key=min:max`): its given range, or from an
/// eighth to eight times where it starts (its first guess from the
/// measurements, else the base preset's value; a time at zero: 0 to 1 ms).
fn param(
    table: &toml::Table,
    spec: &str,
    guesses: &[(&'static str, f64)],
) -> Result<Param, InputError> {
    let bad = |m: String| InputError::invalid(format!("--keys {spec}"), m);
    let (key, range) = match spec.split_once('=') {
        Some((k, r)) => (k, Some(r)),
        None => (spec, None),
    };
    // A time the preset leaves at zero (absent) reads as 0, as for a targets
    // file's keys.
    let (value, _) = crate::calibrate::get_dotted(table, key)
        .ok_or_else(|| bad("not a numeric key of the base preset".into()))?;
    let value = guesses
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(value, |&(_, g)| g);
    let (min, max) = match range {
        Some(r) => {
            let (lo, hi) = r
                .split_once(':')
                .ok_or_else(|| bad("a range is min:max".into()))?;
            let num = |t: &str| {
                t.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| bad(format!("'{t}' is not a number")))
            };
            (num(lo)?, num(hi)?)
        }
        None if value > 0.0 && value.is_finite() => (value / KEY_RANGE, value * KEY_RANGE),
        None if value == 0.0 && key.ends_with("_ns") => (0.0, ZERO_KEY_MAX_NS),
        None => {
            return Err(bad(format!(
                "its base value {value} cannot be scaled: give a range, {key}=MIN:MAX"
            )))
        }
    };
    Ok(Param {
        key: key.to_string(),
        min,
        max,
        start: Some(value.clamp(min, max)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::{JobFigures, PointFigures};
    use crate::probe::{plan, Measured, PlanSettings, TargetInfo, MEASUREMENTS_VERSION};

    /// A drive whose every case did `mbs` MB/s at `mean_us`.
    fn measured(cases: &[(&str, f64, f64)]) -> Measurements {
        let settings = PlanSettings {
            duration_s: 1,
            sustained_s: 0,
            steady_state_s: 0,
        };
        let cases = plan(&settings)
            .into_iter()
            .filter_map(|case| {
                let name = case.name();
                let &(_, mbs, mean_us) = cases.iter().find(|c| c.0 == name)?;
                let job = JobFigures {
                    name: JOB_NAME.into(),
                    bw_mbs: mbs,
                    read_bw_mbs: 0.0,
                    write_bw_mbs: 0.0,
                    iops: mbs * 1e6 / case.bs as f64,
                    ios: 1,
                    clat_mean_us: mean_us,
                    clat_p50_us: mean_us,
                    clat_p99_us: mean_us,
                    clat_p999_us: mean_us,
                    clat_max_us: mean_us,
                    read_clat_p999_us: 0.0,
                    write_clat_p999_us: 0.0,
                };
                let figures = PointFigures {
                    bw_mbs: mbs,
                    iops: job.iops,
                    jobs: vec![job],
                    waf: 0.0,
                    gc_invocations: 0,
                    gc_pages_moved: 0,
                    erases: 0,
                    sim_seconds: 1.0,
                    per_second: vec![],
                    gauges: vec![],
                };
                Some(Measured {
                    job: case.job_text(64 << 20),
                    name,
                    case,
                    figures,
                })
            })
            .collect();
        Measurements {
            version: MEASUREMENTS_VERSION,
            target: TargetInfo {
                path: "x".into(),
                kind: "file".into(),
                bytes: 64 << 20,
                logical_block: 512,
                kernel_scheduler: None,
            },
            region_bytes: 64 << 20,
            settings,
            cases,
            partial: false,
        }
    }

    #[test]
    fn each_figure_becomes_a_target_and_the_guesses_follow_the_relations() {
        let m = measured(&[
            ("randread-4k-qd1", 50.0, 80.0),
            ("randwrite-4k-qd1", 40.0, 100.0),
            ("randwrite-4k-qd32", 409.6, 300.0),
            ("randread-4k-qd32", 204.8, 600.0),
            ("read-128k-qd32", 1024.0, 4000.0),
            ("write-128k-qd32", 2048.0, 2000.0),
        ]);
        let keys: Vec<String> = DEFAULT_KEYS.iter().map(|k| k.to_string()).collect();
        let (file, jobs) = targets_for(&m, "mqsim-64g", &keys).unwrap();
        // Two latency targets and four bandwidths, one job file per case.
        assert_eq!(file.targets.len(), 6);
        assert_eq!(jobs.len(), 6);
        assert_eq!(file.targets[0].metric, Metric::MeanUs);
        assert_eq!(file.targets[0].occupancy, 1.0);
        let start = |k: &str| {
            file.params
                .iter()
                .find(|p| p.key == k)
                .unwrap()
                .start
                .unwrap()
        };
        // 100 000 IOPS of writes: 10 µs of serial work per command.
        assert_eq!(start("controller.command_ns"), 10_000.0);
        // 1024 MB/s of 4 KiB pages: 4 µs per page read.
        assert_eq!(start("controller.read_page_ns"), 4_000.0);
        // 50 000 IOPS of reads: 20 µs of a core's work, 10 more than a
        // write's (the decoder's 4 µs a page runs beside it).
        assert_eq!(start("controller.read_command_ns"), 10_000.0);
        // What the QD-1 latencies leave after the host, the serial work and
        // the transfers: a fetch, and the flash read at its floor or above.
        assert!(start("controller.pcie_read_ns") > 0.0);
        assert!(start("timing.read_ns") >= MIN_FLASH_READ_NS);
        // Writes are the faster direction: no extra work per write.
        assert_eq!(start("controller.write_command_ns"), 0.0);
        // The link carries the largest bandwidth, 2048 MB/s, with a quarter to spare.
        assert_eq!(start("controller.link_mbs"), 2_560.0);
    }

    #[test]
    fn slower_writes_get_their_own_serial_work() {
        // A loop device's shape: reads reach 80 000 IOPS, writes 50 000; a
        // QD-1 read is faster than a write's fetches and work allow.
        let m = measured(&[
            ("randread-4k-qd1", 60.0, 60.0),
            ("randwrite-4k-qd1", 30.0, 120.0),
            ("randwrite-4k-qd32", 204.8, 600.0),
            ("randread-4k-qd32", 327.68, 400.0),
            ("read-128k-qd32", 1024.0, 4000.0),
        ]);
        let keys: Vec<String> = DEFAULT_KEYS.iter().map(|k| k.to_string()).collect();
        let (file, _) = targets_for(&m, "mqsim-64g", &keys).unwrap();
        let start = |k: &str| file.params.iter().find(|p| p.key == k).unwrap().start;
        // Reads: 12.5 µs a command, the work every command does.
        assert_eq!(start("controller.command_ns"), Some(12_500.0));
        assert_eq!(start("controller.read_command_ns"), Some(0.0));
        // Writes: 20 µs a command, 7.5 more than a read's.
        assert_eq!(start("controller.write_command_ns"), Some(7_500.0));
        // A read's 60 µs leave nothing for the flash after a write's fetch:
        // the flash read starts at its floor.
        assert_eq!(start("timing.read_ns"), Some(MIN_FLASH_READ_NS));
    }

    #[test]
    fn the_ends_of_the_depth_curve_count_most() {
        let settings = PlanSettings {
            duration_s: 1,
            sustained_s: 5,
            steady_state_s: 5,
        };
        for case in plan(&settings) {
            let w = weight_of(&case);
            let middle = case.phase == Phase::Depth && [4, 16].contains(&case.iodepth);
            assert_eq!(
                w,
                if middle { MIDDLE_DEPTH_WEIGHT } else { 1.0 },
                "{}",
                case.name()
            );
        }
    }

    #[test]
    fn the_fetch_splits_what_the_qd1_latencies_cannot_both_have() {
        // Room for the flash: both latencies hold exactly.
        assert_eq!(
            fetch_and_flash_read(100_000.0, 10_000.0, 80_000.0, 20_000.0),
            (45_000.0, 15_000.0)
        );
        // No room: the write wants a 50 µs fetch, the read at most 44 µs;
        // the fetch lies between and the two err on opposite sides.
        let (fetch, flash) = fetch_and_flash_read(120_000.0, 20_000.0, 60_000.0, 15_000.0);
        assert_eq!(flash, MIN_FLASH_READ_NS);
        assert!(fetch > 44_000.0 && fetch < 50_000.0, "{fetch}");
        let write = 20_000.0 + 2.0 * fetch - 120_000.0;
        let read = 15_000.0 + fetch + flash - 60_000.0;
        assert!(write < 0.0 && read > 0.0);
    }

    #[test]
    fn keys_take_a_range_and_bad_ones_are_refused() {
        let m = measured(&[("randread-4k-qd1", 50.0, 80.0)]);
        let keys = vec!["timing.read_ns=1000:90000".to_string()];
        let (file, _) = targets_for(&m, "seed004", &keys).unwrap();
        assert_eq!((file.params[0].min, file.params[0].max), (1000.0, 90000.0));
        for bad in [
            "timing.nope",
            "geometry.channels=3",
            "timing.read_ns=a:b",
            "name",
        ] {
            let e = targets_for(&m, "seed004", &[bad.to_string()]);
            assert!(e.is_err(), "{bad}");
        }
    }
}
