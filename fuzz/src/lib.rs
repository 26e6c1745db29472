//! The fuzz targets' bodies, one function per target, each feeding its input
//! to the functions the `ssdlab` CLI calls on user input. The cargo-fuzz
//! targets in `fuzz_targets/` call these; `crates/ssdlab-cli/tests/fuzz_corpus.rs`
//! includes this file (`#[path]`) and replays every committed corpus and
//! regression input through them on the stable toolchain.
//!
//! A parser returning an error is fine; a panic, abort, hang or huge
//! allocation is a bug.

use ssdlab_fio::{IoGenerator, JobFile, ParseOptions};
use ssdlab_protocol::Dir;
use ssdlab_sched::{IoClass, IoPrio, Request, Scheduler};
use ssdlab_sim::host::{CpuPlan, HostConfig};
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::device::SimSsd;
use ssdlab_sim::workload::fio_job::{FioJob, IoSource};
use ssdlab_sim::workload::trace_replay::{ReplayOptions, TraceFeed};
use ssdlab_trace::{BlkparseAction, Format, ReadOptions, TimeUnit, TraceReader};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The job file's name: relative `include`s resolve in a directory that does
/// not exist, so the fuzzer cannot pull in files of the checkout.
pub const FIO_NAME: &str = "/nonexistent-ssdlab-fuzz/fuzz.fio";

/// Jobs of one job file that are built (numjobs may clone up to 4096).
const MAX_BUILT_JOBS: usize = 16;
/// I/Os drawn from each job's generator.
const IOS_PER_JOB: usize = 64;
/// I/Os drawn from a trace replay before giving up (a hang guard).
const MAX_REPLAY_IOS: usize = 100_000;
/// Physical pages up to which a fuzzed preset's device is also built.
const MAX_BUILT_PAGES: u32 = 1 << 16;

/// Logical capacity of the `seed004` preset: the device behind the job
/// and trace targets (what `--device seed004` gives the CLI).
pub fn device_bytes() -> u64 {
    static BYTES: OnceLock<u64> = OnceLock::new();
    *BYTES.get_or_init(|| {
        let cfg = Preset::load("seed004").expect("built-in preset").device;
        cfg.layout().capacity_bytes()
    })
}

/// A fixed environment for `${VAR}` expansion (the CLI passes the process
/// environment; a fixed one keeps runs reproducible).
fn fio_env(name: &str) -> Option<String> {
    let v = match name {
        "BS" => "4k",
        "SIZE" => "1g",
        "RW" => "randread",
        "DEPTH" => "32",
        "N" => "2",
        "EMPTY" => "",
        _ => return None,
    };
    Some(v.to_string())
}

/// `fio_job`: job file text through `ssdlab_fio::parse_str_with` (what
/// `ssdlab run JOBFILE` reaches through `parse_file_with`, which reads the
/// file and decodes it with `from_utf8_lossy`), with and without
/// `--ignore-unknown`; then the jobs are built as `fio_run::prepare` does
/// (`FioJob::new`) and their generators draw a few I/Os.
pub fn fio_job(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut built = false;
    for ignore_unknown in [false, true] {
        let opts = ParseOptions { ignore_unknown };
        match ssdlab_fio::parse_str_with(&text, FIO_NAME, &fio_env, &opts) {
            Ok(jf) if !built => {
                build_jobs(&jf);
                built = true;
            }
            Ok(_) => {}
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}

/// As `fio_run::build_jobs`: the size checks, then `FioJob::new`; then each
/// job on its CPU, as `fio_run::place_on_cpus`.
fn build_jobs(jf: &JobFile) {
    let bytes = device_bytes();
    let costs = HostConfig::default().costs;
    let pins: Vec<Option<u32>> = (0..)
        .zip(jf.jobs.iter().take(MAX_BUILT_JOBS))
        .map(|(i, spec)| spec.pinned_cpu(i))
        .collect();
    let plan = CpuPlan::new(&pins, 4);
    assert_eq!(plan.job_cpus.len(), pins.len());
    for (i, spec) in jf.jobs.iter().take(MAX_BUILT_JOBS).enumerate() {
        let region = spec.region(bytes);
        if spec.min_bs() > bytes || region.1 < spec.min_bs() {
            continue;
        }
        if let Some(io_size) = spec.io_size {
            let _ = io_size.resolve(bytes);
        }
        let _ = FioJob::new(i as u32, spec.clone(), bytes, 1, &costs);
        if let Ok(mut gen) = IoGenerator::new(spec, region, i as u64 + 1) {
            let (start, len) = gen.region();
            for _ in 0..IOS_PER_JOB {
                let io = gen.next_io();
                assert!(io.len > 0, "empty I/O from job '{}'", spec.name);
                assert!(
                    io.offset >= start && io.offset + io.len as u64 <= start + len,
                    "I/O {io:?} outside the region ({start}, {len}) of job '{}'",
                    spec.name
                );
            }
        }
    }
}

/// The reader options a selector byte stands for, as `ssdlab replay` sets
/// them from its flags.
///
/// Bits 0-2: format, `Format::ALL[(b & 7) % 5]` (blkparse, msr, spc, mqsim,
/// fio-iolog). Bit 3: `--skip-bad-lines`. Bits 4-5: `--blkparse-action` and
/// `--fio-time-unit`: 0 = q/us (the CLI defaults), 1 = d/ns, 2 = c/ms,
/// 3 = q/s. Bit 6: `--trace-device`, taken from the first line of the rest.
/// Bit 7: also replay the trace through `TraceFeed` (the replay source).
pub fn trace_options(sel: u8) -> (Format, ReadOptions) {
    let format = Format::ALL[usize::from(sel & 0x07) % Format::ALL.len()];
    let (blkparse_action, fio_v3_time_unit) = match (sel >> 4) & 0x03 {
        0 => (BlkparseAction::Queue, TimeUnit::Us),
        1 => (BlkparseAction::Issue, TimeUnit::Ns),
        2 => (BlkparseAction::Complete, TimeUnit::Ms),
        _ => (BlkparseAction::Queue, TimeUnit::S),
    };
    let opts = ReadOptions {
        skip_bad_lines: sel & 0x08 != 0,
        blkparse_action,
        fio_v3_time_unit,
        ..ReadOptions::default()
    };
    (format, opts)
}

/// `trace`: the first byte picks the format and options
/// ([`trace_options`]), the rest is the trace, drained through
/// `ssdlab_trace::TraceReader` (what `ssdlab_trace::open` wraps around the
/// file) and, with bit 7, replayed through `TraceFeed` as `ssdlab replay`
/// does (offsets folded into the device, looping over the trace).
pub fn trace(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let (format, mut opts) = trace_options(sel);
    let mut body = rest;
    if sel & 0x40 != 0 {
        let (line, tail) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &[][..]),
        };
        // A command-line argument is a String.
        let Ok(device) = std::str::from_utf8(line) else {
            return;
        };
        opts.device = Some(device.to_string());
        body = tail;
    }
    let lines = body.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let mut reader = TraceReader::new(body, format, "fuzz", opts.clone());
    let mut items = 0u64;
    for item in reader.by_ref() {
        items += 1;
        assert!(items <= lines, "more items than lines");
        match item {
            Ok(rec) => assert!(rec.len > 0, "empty record {rec:?}"),
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    assert!(reader.next().is_none(), "items after the end");
    if sel & 0x80 != 0 {
        replay(body, format, opts);
    }
}

/// The replay source of `ssdlab replay` over `body`, written to a scratch
/// file (`TraceFeed` opens a path), with `--loop-write 8k`.
fn replay(body: &[u8], format: Format, read: ReadOptions) {
    let path = std::env::temp_dir().join(format!(
        "ssdlab-fuzz-trace-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::write(&path, body).expect("writing the scratch trace");
    let dev = device_bytes();
    let feed = TraceFeed::open(ReplayOptions {
        path: path.clone(),
        format,
        read,
        time_scale: 1.0,
        open_loop: true,
        loop_until_write_bytes: Some(8 << 10),
        device_bytes: dev,
        align_bytes: 512,
    });
    if let Ok(mut feed) = feed {
        let mut n = 0;
        while let Some(io) = feed.next_io() {
            let u = io.unit;
            assert!(
                u.len > 0 && u.offset + u.len as u64 <= dev,
                "replayed I/O {u:?} outside the device of {dev} bytes"
            );
            n += 1;
            if n >= MAX_REPLAY_IOS {
                break;
            }
        }
        let _ = feed.error();
        let _ = feed.report();
    }
    let _ = std::fs::remove_file(&path);
}

/// `preset`: TOML text through `Preset::from_toml` (what `--device FILE`
/// reads), then what the CLI derives from a loaded preset: its host
/// settings, the TOML `ssdlab presets --show FILE` prints, `Layout::new` and,
/// for small devices, the simulated device itself (`SimSsd::new`). The same
/// text also goes through the `--host FILE` path (`HostConfig::from_toml`).
pub fn preset(data: &[u8]) {
    // The CLI reads files with `read_to_string`: invalid UTF-8 is an error.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Preset::from_toml(text, "fuzz.toml") {
        Ok(preset) => {
            preset
                .host
                .validate()
                .expect("a parsed preset's host is valid");
            let _ = preset.to_toml();
            let cfg = preset.device;
            let layout = cfg.layout();
            let _ = layout.capacity_bytes();
            if layout.physical_pages <= MAX_BUILT_PAGES {
                let _ = SimSsd::new(cfg, 1, false);
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    if let Err(e) = HostConfig::from_toml(text, "host.toml") {
        let _ = e.to_string();
    }
}

/// `sched_spec`: a `--scheduler` spec string through
/// `ssdlab_sched::spec::parse` and `ssdlab_sched::build` (what
/// `fio_run::prepare` calls), then the scheduler built runs a short fixed
/// workload the way the block layer drives it.
pub fn sched_spec(data: &[u8]) {
    // A command-line argument is a String.
    let Ok(spec) = std::str::from_utf8(data) else {
        return;
    };
    match ssdlab_sched::spec::parse(spec) {
        Ok((_, tunables)) => {
            let _ = tunables.iter().count();
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    match ssdlab_sched::build(spec) {
        Ok(mut s) => drive(s.as_mut()),
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Requests the driver keeps at the device.
const DRIVER_DEPTH: usize = 4;
/// Tags per hardware queue (`nr_requests`).
const NR_REQUESTS: u32 = 64;
/// Steps of the drain phase before giving up.
const DRAIN_STEPS: usize = 10_000;

/// The `n`th request of the fixed workload: mixed directions, classes, sync
/// and async, sequential runs that merge and scattered ones that do not, and
/// now and then an empty flush or a FUA write.
fn workload_request(n: u64, now: u64) -> Request {
    let flush = n % 17 == 16;
    let dir = match n % 5 {
        _ if flush => Dir::Write,
        0 | 3 => Dir::Read,
        1 | 4 => Dir::Write,
        _ => Dir::Trim,
    };
    let fua = !flush && dir == Dir::Write && n % 13 == 12;
    let class = match n % 7 {
        0 => IoClass::Rt,
        1 => IoClass::Idle,
        2 | 3 => IoClass::Be,
        _ => IoClass::None,
    };
    let sector = if n.is_multiple_of(3) {
        n * 8
    } else {
        (n * 7919 % 1024) * 64
    };
    Request {
        id: n,
        dir,
        sector,
        bytes: if flush {
            0
        } else {
            4096 * (1 + (n % 4) as u32)
        },
        prio: IoPrio {
            class,
            level: (n % 8) as u8,
        },
        sync: n % 4 != 1,
        flush,
        fua,
        job: (n % 3) as u32,
        submit_ns: now,
        insert_ns: now,
        dispatch_ns: 0,
    }
}

/// Runs a short workload through `s` as `host::BlockLayer` does: merge
/// probe, depth limit, insert, dispatch while there is room, completions,
/// timers. Checks what the block layer relies on: a merge joins a tracked
/// request, and a dispatched request was inserted and not yet dispatched.
fn drive(s: &mut dyn Scheduler) {
    let mut now: u64 = 0;
    let mut queued = BTreeSet::new();
    let mut inflight: Vec<Request> = Vec::new();
    let dispatch = |s: &mut dyn Scheduler,
                    now: u64,
                    queued: &mut BTreeSet<u64>,
                    inflight: &mut Vec<Request>| {
        while inflight.len() < DRIVER_DEPTH && s.has_work() {
            let Some(mut rq) = s.dispatch(now) else {
                break;
            };
            assert!(
                queued.remove(&rq.id),
                "{} dispatched request {} that is not queued",
                s.name(),
                rq.id
            );
            rq.dispatch_ns = now;
            inflight.push(rq);
        }
    };
    let timer = |s: &mut dyn Scheduler, now: u64| {
        if s.next_timer().is_some_and(|t| t <= now) {
            s.on_timer(now);
        }
    };
    for n in 1..=64u64 {
        let mut probe = workload_request(n, now);
        probe.id = 0;
        if let Some((rid, _)) = s.bio_merge(&probe, 128 << 10) {
            assert!(
                !(probe.flush || probe.fua),
                "{} merged a flush or FUA bio into request {rid}",
                s.name()
            );
            assert!(
                queued.contains(&rid) || inflight.iter().any(|r| r.id == rid),
                "{} merged into request {rid} that is not tracked",
                s.name()
            );
        } else {
            let rq = workload_request(n, now);
            let _ = s.limit_depth(rq.dir, rq.sync, NR_REQUESTS);
            queued.insert(rq.id);
            s.insert(rq, now);
        }
        timer(s, now);
        dispatch(s, now, &mut queued, &mut inflight);
        if n.is_multiple_of(3) && !inflight.is_empty() {
            let rq = inflight.remove(0);
            s.completed(&rq, now);
            dispatch(s, now, &mut queued, &mut inflight);
        }
        now += 7_000;
    }
    for _ in 0..DRAIN_STEPS {
        if queued.is_empty() && inflight.is_empty() {
            break;
        }
        now = match s.next_timer() {
            Some(t) if t > now => t.min(now + 1_000_000),
            _ => now + 50_000,
        };
        timer(s, now);
        for rq in std::mem::take(&mut inflight) {
            s.completed(&rq, now);
        }
        dispatch(s, now, &mut queued, &mut inflight);
    }
    let _ = (s.queued(), s.counters(), s.has_work());
}

/// Platform pages up to which a fuzzed task set is also simulated.
const MAX_SIMULATED_PAGES: u64 = 1 << 16;

/// RT jobs up to which a fuzzed task set is also simulated, and the
/// simulated time (a hang guard: a 30 ns period releases 666,667 jobs in
/// 20 ms, 0.5 s of a release build and over the fuzzer's 10 s timeout in
/// an instrumented one; the CLI's own bound is `MAX_SIMULATED_JOBS`).
const MAX_FUZZ_JOBS: u64 = 20_000;
const FUZZ_DURATION_NS: u64 = 20_000_000;

/// `taskset`: real-time task-set TOML through `TaskSet::from_toml` (what
/// `rtflash analyze` and `rtflash run` read), then every approach's
/// allocation and analysis (what `analyze` prints) and, for small
/// platforms, a short simulation of each allocation (what `run` does).
pub fn taskset(data: &[u8]) {
    use ssdlab_rtflash::allocate::REGISTRY;
    use ssdlab_rtflash::sim::{released_jobs, setup_from, simulate, NrtPolicy};
    use ssdlab_rtflash::{allocate, ApproachChoice, TaskSet};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let ts = match TaskSet::from_toml(text, "fuzz.toml") {
        Ok(ts) => ts,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let p = &ts.platform;
    let pages = u64::from(p.chips)
        .saturating_mul(p.blocks_per_chip)
        .saturating_mul(p.pages_per_block);
    let small =
        pages <= MAX_SIMULATED_PAGES && released_jobs(&ts, FUZZ_DURATION_NS) <= MAX_FUZZ_JOBS;
    for entry in REGISTRY {
        let approach = ApproachChoice::parse(entry.name).expect("a registered approach");
        let alloc = allocate(&ts, approach);
        let _ = format!("{alloc:?}");
        if !small {
            continue;
        }
        for policy in [NrtPolicy::Background, NrtPolicy::Tbs] {
            if let Ok(setup) = setup_from(&ts, &alloc, policy, FUZZ_DURATION_NS, 1) {
                let _ = simulate(&setup);
            }
        }
    }
}

/// Postmark runs the `postmark` target simulates: at most this many
/// processes, files and transactions per process, and files up to 64 KiB
/// (a hang guard; the parser itself sees every input).
const MAX_POSTMARK: (u32, u32, u32, u64) = (8, 64, 64, 64 << 10);

/// `postmark`: workload-file text through `parse_commands` (Postmark's
/// own command files) or `PostmarkFile::from_toml`, as
/// `ssdlab postmark WORKLOAD` reads it; a small accepted workload then runs,
/// checker on, on a shrunk `mlc-sata-8g` (64 blocks per die) under its
/// hybrid FTL and under page mapping, with `noop` and `stb:lb_size=1m`.
pub fn postmark(data: &[u8]) {
    use ssdlab_sim::experiment::postmark_run::run_postmark_on;
    use ssdlab_sim::ssd::config::Mapping;
    use ssdlab_sim::workload::postmark::{looks_like_commands, parse_commands, PostmarkFile};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // A Postmark command file, or a TOML workload file, as the CLI tells them.
    let parsed = if looks_like_commands(text) {
        parse_commands(text, "fuzz.cfg")
    } else {
        PostmarkFile::from_toml(text, "fuzz.toml", 4096)
    };
    let workload = match parsed {
        Ok(w) => w,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let p = &workload.postmark;
    let (procs, files, tx, size) = MAX_POSTMARK;
    if p.processes > procs || p.files > files || p.transactions > tx || p.size_max > size {
        return;
    }
    let mut preset = Preset::load("mlc-sata-8g").expect("built-in preset");
    preset.device.geometry.blocks_per_plane = 64;
    let host = preset.host.clone();
    for mapping in [Mapping::Hybrid, Mapping::Page] {
        preset.device.ftl.mapping = mapping;
        for scheduler in ["noop", "stb:lb_size=1m"] {
            let _ = run_postmark_on(&preset.device, &host, scheduler, &workload, 1, true);
        }
    }
}

/// A job file the `calibrate` target's inputs may name, under each of
/// [`CALIBRATE_JOB_NAMES`].
const CALIBRATE_JOB_NAMES: [&str; 3] = ["job.fio", "randread.fio", "randwrite.fio"];
const CALIBRATE_JOB: &str = "[global]\nbs=4k\nrw=randread\ntime_based\nruntime=1s\n[bg]\niodepth=4\nsize=10%\n[rt]\niodepth=1\noffset=50%\nsize=5%\n";

/// `calibrate`: targets-file text through `Calibration::load` (what
/// `ssdlab calibrate FILE` reads), from a scratch directory that also holds
/// the job file (as `job.fio`, and under the names the files of
/// `examples/calibrate/` use); then what the CLI derives from a loaded file without running
/// the search: the `--print` TOML, and the keys and preset at the corners
/// and the centre of the search space (`fitted.toml` is built so). Inputs
/// whose device, host or job names an absolute path or `..` are skipped,
/// so that the fuzzer reads no file of the machine (a device such as
/// /dev/zero would read forever).
pub fn calibrate(data: &[u8]) {
    use ssdlab_studies::calibrate::{Calibration, TargetsFile};
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = toml::from_str::<TargetsFile>(text) {
        let outside = |p: &str| p.starts_with('/') || p.contains("..");
        let mut paths = vec![file.device.clone()];
        paths.extend(file.host.clone());
        for t in &file.targets {
            paths.push(t.job.display().to_string());
            paths.extend(t.host.clone());
        }
        if paths.iter().any(|p| outside(p)) {
            return;
        }
    }
    let dir = std::env::temp_dir().join(format!("ssdlab-fuzz-calibrate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("creating the scratch directory");
    for name in CALIBRATE_JOB_NAMES {
        std::fs::write(dir.join(name), CALIBRATE_JOB).expect("writing the scratch job");
    }
    let path = dir.join("targets.toml");
    std::fs::write(&path, text).expect("writing the scratch targets file");
    let cal = match Calibration::load(&path) {
        Ok(cal) => cal,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let _ = toml::to_string(&cal.file).expect("a loaded targets file prints");
    let n = cal.file.params.len();
    let mut points = vec![cal.start_point(), vec![0.0; n], vec![1.0; n], vec![0.5; n]];
    points.retain(|x| x.iter().all(|v| (0.0..=1.0).contains(v)));
    assert_eq!(points.len(), 4, "points outside the unit cube");
    for x in &points {
        let values = cal.values(x);
        if let Err(e) = Preset::load_with(&cal.file.device, &values) {
            let _ = e.to_string();
        }
    }
}
