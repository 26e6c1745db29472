//! The device and host mechanisms the consumer-drive calibration rests on
//! (docs/model.md, docs/calibration.md): page-register hits, the same-page
//! rule of multi-plane reads, gathered one-shot programs, mapping-table
//! write-back, erasing blocks as they open, array-time spread and the
//! host's deep-idle exit.

use ssdlab_protocol::Ns;
use ssdlab_protocol::{Dir, IoCommand};
use ssdlab_sim::experiment::closed_loop::ClosedLoop;
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::{MapJournal, ReadAhead, SsdConfig};
use ssdlab_sim::ssd::device::{DeviceStats, SimSsd};
use ssdlab_sim::ssd::precondition::{precondition, Precondition};
use ssdlab_sim::workload::script::CommandScript;

/// seed004 shrunk: 2 channels × 1 die × 2 planes, 16-page blocks, no buffer
/// effects unless a test asks for them.
fn small() -> SsdConfig {
    let mut cfg = Preset::load_device("seed004").unwrap();
    cfg.geometry.channels = 2;
    cfg.geometry.chips_per_channel = 1;
    cfg.geometry.dies_per_chip = 1;
    cfg.geometry.planes_per_die = 2;
    cfg.geometry.blocks_per_plane = 32;
    cfg.geometry.pages_per_block = Some(16);
    cfg.ftl.over_provisioning = 0.3;
    cfg.ftl.allocation = "dynamic".parse().unwrap();
    cfg.slc_cache = None;
    cfg.timing.multi_plane = true;
    cfg.timing.suspend = None;
    cfg.validate().unwrap();
    cfg
}

/// A device in a simulation, driven by commands submitted at the present.
struct Dev {
    sim: Simulation<SimSsd>,
    pending: Vec<IoCommand>,
}

impl Dev {
    fn now(&self) -> Ns {
        self.sim.now()
    }

    fn ssd(&self) -> &SimSsd {
        self.sim.device()
    }

    fn stats(&self) -> DeviceStats {
        self.ssd().stats()
    }

    /// Queues a command to be submitted at the next run.
    fn submit(&mut self, c: IoCommand) {
        self.pending.push(c);
    }

    /// Submits the queued commands and runs until the next event is at `end`.
    fn run_until(&mut self, end: Ns) -> CommandScript {
        let mut script = CommandScript::now(std::mem::take(&mut self.pending));
        self.sim.run_until(&mut script, end);
        script
    }

    /// Submits the queued commands and runs until nothing is left; returns
    /// the completion times by id.
    fn drain(&mut self) -> Vec<(u64, u64)> {
        let mut script = CommandScript::now(std::mem::take(&mut self.pending));
        self.sim.run(&mut script, None);
        self.ssd().check_invariants().unwrap();
        script.times_by_id()
    }
}

fn filled(cfg: SsdConfig, occupancy: f64) -> Dev {
    let mut ssd = SimSsd::new(cfg, 1, true);
    let pre = Precondition::fill(occupancy);
    precondition(&mut ssd, &pre, 1).unwrap();
    Dev {
        sim: Simulation::new(ssd, None, 1),
        pending: Vec::new(),
    }
}

fn cmd(id: u64, op: Dir, lpa: u32) -> IoCommand {
    IoCommand {
        id,
        op,
        lpa: ssdlab_sim::ssd::ids::Lpn(lpa),
        pages: 1,
        bytes: 4096,
        sq: 0,
        deadline: None,
    }
}

/// Sequential reads at queue depth 1, one after the other.
fn read_one_by_one(ssd: &mut Dev, lpas: impl Iterator<Item = u32>) -> Vec<u64> {
    let mut latencies = Vec::new();
    for (i, lpa) in lpas.enumerate() {
        let start = ssd.now();
        ssd.submit(cmd(i as u64, Dir::Read, lpa));
        let done = ssd.drain();
        latencies.push(done[0].1 - start);
    }
    latencies
}

#[test]
fn sequential_reads_hit_the_page_register_of_a_multi_page_flash_page() {
    let mut cfg = small();
    cfg.geometry.flash_page_size = Some(4 * cfg.geometry.page_size);
    let mut ssd = filled(cfg, 0.5);
    let lat = read_one_by_one(&mut ssd, 0..8);
    // Preconditioning fills flash pages with consecutive logical pages:
    // two flash pages, each sensed once.
    assert_eq!(ssd.stats().device.flash_reads, 2);
    assert_eq!(ssd.stats().device.register_hits, 6);
    assert!(
        lat[1] + ssd.ssd().config().timing.read_ns / 2 < lat[0],
        "{lat:?}"
    );

    let mut ssd = filled(small(), 0.5);
    read_one_by_one(&mut ssd, 0..8);
    assert_eq!(
        ssd.stats().device.flash_reads,
        8,
        "one flash page per logical page"
    );
    assert_eq!(ssd.stats().device.register_hits, 0);
}

#[test]
fn a_program_or_erase_clears_the_page_register() {
    let mut cfg = small();
    cfg.geometry.flash_page_size = Some(4 * cfg.geometry.page_size);
    cfg.buffer.capacity_bytes = 0; // write-through: the program runs now
    let mut ssd = filled(cfg, 0.5);
    read_one_by_one(&mut ssd, 0..1);
    // Any die may take the write; write to every die's planes to be sure.
    let far = ssd.ssd().layout().logical_pages - 64;
    for i in 0..16 {
        ssd.submit(cmd(100 + i, Dir::Write, far + i as u32));
    }
    ssd.drain();
    read_one_by_one(&mut ssd, 1..2);
    assert_eq!(
        ssd.stats().device.flash_reads,
        2,
        "the second read senses again"
    );
}

/// Two reads queued at once on the two planes of die 0 (logical pages 0 and
/// `other`): whether they share one multi-plane operation.
fn pairs(independent: bool, other: u32) -> u64 {
    let mut cfg = small();
    cfg.timing.independent_plane_reads = independent;
    let mut ssd = filled(cfg, 0.5);
    let planes = ssd.ssd().layout().planes;
    // A read of plane 0's third page keeps die 0 busy while both queue.
    ssd.submit(cmd(9, Dir::Read, 2 * planes));
    ssd.submit(cmd(0, Dir::Read, 0));
    ssd.submit(cmd(1, Dir::Read, other));
    ssd.drain();
    ssd.stats().device.multi_plane_ops
}

#[test]
fn multi_plane_reads_need_the_same_page_unless_planes_read_independently() {
    let planes = small().geometry.channels * small().geometry.planes_per_die;
    // Round-robin fill: page 1 is plane 1's first page (same address as
    // page 0 on plane 0); page planes + 1 is plane 1's second page.
    assert_eq!(pairs(false, 1), 1);
    assert_eq!(pairs(false, planes + 1), 0);
    assert_eq!(pairs(true, planes + 1), 1);
}

#[test]
fn the_buffer_gathers_a_full_program_before_it_flushes() {
    let mut cfg = small();
    cfg.geometry.flash_page_size = Some(2 * cfg.geometry.page_size);
    cfg.timing.one_shot_pages = 2;
    cfg.buffer.gather_ns = 1_000_000;
    let mut ssd = filled(cfg.clone(), 0.0);
    ssd.submit(cmd(0, Dir::Write, 3));
    ssd.run_until(900_000);
    assert_eq!(
        ssd.stats().device.flash_programs,
        0,
        "waits for three more pages"
    );
    ssd.drain();
    assert_eq!(
        ssd.stats().device.flash_programs,
        1,
        "a partial program after gather_ns"
    );

    // Four pages make a full program at once.
    let mut ssd = filled(cfg, 0.0);
    for i in 0..4 {
        ssd.submit(cmd(i, Dir::Write, i as u32));
    }
    ssd.run_until(100_000);
    assert_eq!(ssd.stats().device.flash_programs, 1);
    ssd.drain();
}

/// Writes `lpas` at once and returns the table pages written back.
fn table_writes(lpas: &[u32], batch: u32) -> u64 {
    let mut cfg = small();
    cfg.ftl.map_journal = Some(MapJournal {
        entries_per_page: 8,
        dirty_pages: 2,
        write_back_batch: batch,
    });
    let mut ssd = filled(cfg, 0.0);
    for (i, &lpa) in lpas.iter().enumerate() {
        ssd.submit(cmd(i as u64, Dir::Write, lpa));
    }
    ssd.drain();
    assert!(ssd.ssd().is_quiescent());
    ssd.stats().device.map_pages_written
}

#[test]
fn scattered_writes_write_the_mapping_table_back_and_sequential_ones_hardly() {
    let sequential: Vec<u32> = (0..24).collect();
    let scattered: Vec<u32> = (0..24).map(|i| i * 8).collect();
    // 3 table pages dirtied in order: one evicted from a 2-page cache.
    assert_eq!(table_writes(&sequential, 1), 1);
    // 24 table pages: every one beyond the first two is evicted.
    assert_eq!(table_writes(&scattered, 1), 22);
    // In pairs: the cache overflows every second new page, two go each time.
    assert_eq!(table_writes(&scattered, 2), 22);
    assert_eq!(table_writes(&sequential, 2), 2);
}

#[test]
fn spread_varies_read_times_within_its_bounds_and_deterministically() {
    let fixed = read_one_by_one(&mut filled(small(), 0.5), 0..64);
    assert!(fixed.windows(2).all(|w| w[0] == w[1]), "{fixed:?}");
    let mut cfg = small();
    cfg.timing.spread = 0.2;
    let tr = cfg.timing.read_ns;
    let varied = read_one_by_one(&mut filled(cfg.clone(), 0.5), 0..64);
    let again = read_one_by_one(&mut filled(cfg, 0.5), 0..64);
    assert_eq!(varied, again, "same seed, same times");
    let base = fixed[0] - tr;
    for l in &varied {
        let t = l - base;
        assert!(t >= tr * 8 / 10 && t <= tr * 12 / 10, "tR {t} outside ±20%");
    }
    assert!(varied.iter().any(|&l| l != fixed[0]));
}

#[test]
fn read_time_follows_the_page_type() {
    let mut cfg = small();
    cfg.timing.read_ns_by_page_type = Some(vec![10_000, 20_000, 40_000]);
    let mut ssd = filled(cfg, 0.5);
    // Flash pages 0, 1, 2 of plane 0's first block: logical pages 0,
    // planes, 2 × planes (round-robin fill).
    let planes = ssd.ssd().layout().planes;
    let lat = read_one_by_one(&mut ssd, [0, planes, 2 * planes].into_iter());
    assert_eq!(lat[1] - lat[0], 10_000);
    assert_eq!(lat[2] - lat[1], 20_000);
}

#[test]
fn the_read_path_is_serial_in_the_controller() {
    let mut cfg = small();
    cfg.controller.read_page_ns = 50_000;
    let mut ssd = filled(cfg, 0.5);
    // Four reads on four planes: the array reads overlap, decode does not.
    for i in 0..4 {
        ssd.submit(cmd(i, Dir::Read, i as u32));
    }
    let done = ssd.drain();
    let first = done.iter().map(|d| d.1).min().unwrap();
    let last = done.iter().map(|d| d.1).max().unwrap();
    assert!(last - first >= 3 * 50_000, "{done:?}");
}

#[test]
fn calibrated_preset_carries_the_data_sheet_host() {
    // A desktop with one NVMe queue per core, as a data sheet is measured;
    // the K2 study's host is a file of its own (examples/k2/host.toml).
    let host = ssdlab_sim::preset::Preset::load("consumer-tlc-250g")
        .unwrap()
        .host;
    assert_eq!(host.hw_queues, 4);
    assert_eq!(
        ssdlab_sim::preset::Preset::load("seed004").unwrap().host,
        ssdlab_sim::host::HostConfig::default()
    );
}

/// Write-through writes, one at a time, on an empty device.
fn first_program_times(erase_when_opened: bool) -> Vec<u64> {
    let mut cfg = small();
    cfg.buffer.capacity_bytes = 0;
    cfg.timing.multi_plane = false;
    cfg.ftl.erase_when_opened = erase_when_opened;
    let mut ssd = filled(cfg, 0.0);
    let mut latencies = Vec::new();
    for i in 0..4u32 {
        let start = ssd.now();
        ssd.submit(cmd(i as u64, Dir::Write, i));
        let done = ssd.drain();
        latencies.push(done[0].1 - start);
    }
    latencies
}

#[test]
fn a_block_opened_for_writing_is_erased_first() {
    let erase = small().timing.erase_ns;
    let eager = first_program_times(false);
    let lazy = first_program_times(true);
    // The first write opens a block and waits for its erase; the next ones
    // go to the same open block.
    assert_eq!(lazy[0] - eager[0], erase, "{eager:?} {lazy:?}");
    assert_eq!(lazy[1..], eager[1..]);
}

/// What closed-loop random writes on a full device did.
struct GcRun {
    /// Write latencies, ns.
    latency: hdrhistogram::Histogram<u64>,
    /// Simulated time they took.
    took: Ns,
    /// GC victims.
    victims: u64,
}

/// `requests` random writes at queue depth `qd` on `cfg` filled to the
/// last logical page, with background GC from 20 % of a plane's blocks
/// free and a host reserve of 5 %; the device's invariants are checked.
fn writes_on_a_full_device(mut cfg: SsdConfig, qd: u32, requests: u64, seed: u64) -> GcRun {
    cfg.gc.soft_threshold = 0.2;
    cfg.gc.hard_threshold = 0.05;
    cfg.validate().unwrap();
    let mut ssd = SimSsd::new(cfg, seed, true);
    precondition(&mut ssd, &Precondition::full(), seed).unwrap();
    let span = ssd.layout().logical_pages;
    let mut sim = Simulation::new(ssd, None, seed);
    let load = ClosedLoop {
        op: Dir::Write,
        qd,
        requests,
        span,
        seed: seed + 6,
    }
    .run(&mut sim);
    sim.drain();
    sim.device().check_invariants().unwrap();
    GcRun {
        latency: load.histogram,
        took: sim.now(),
        victims: sim.device().stats().ftl.gc_invocations,
    }
}

/// Queue depth 8 and a buffer of four pages; returns the 99th-percentile
/// write latency and the GC victims.
fn write_p99(pacing: bool) -> (u64, u64) {
    let mut cfg = small();
    cfg.gc.pacing = pacing;
    cfg.buffer.capacity_bytes = 4 * 4096;
    let run = writes_on_a_full_device(cfg, 8, 4000, 3);
    (run.latency.value_at_quantile(0.99), run.victims)
}

#[test]
fn paced_gc_lets_host_writes_through_between_copies() {
    let (gc_first, victims) = write_p99(false);
    let (paced, paced_victims) = write_p99(true);
    assert!(
        victims > 50 && paced_victims > 50,
        "GC ran: {victims}, {paced_victims}"
    );
    assert!(
        paced * 2 < gc_first,
        "p99 write latency paced {paced} ns, unpaced {gc_first} ns"
    );
}

/// One writer at a time (queue depth 1, as a host at K2-1) with paced GC
/// and one-shot programs of four pages a plane; returns its
/// 99.9th-percentile latency and the GC victims.
fn one_writer_under_gc(mixed_programs: bool) -> (u64, u64) {
    let mut cfg = small();
    cfg.timing.one_shot_pages = 4;
    cfg.gc.pacing = true;
    cfg.gc.mixed_programs = mixed_programs;
    cfg.buffer.capacity_bytes = 8 * 4096;
    let run = writes_on_a_full_device(cfg, 1, 6000, 7);
    (run.latency.value_at_quantile(0.999), run.victims)
}

#[test]
fn mixed_programs_commit_host_pages_at_every_program_of_a_collecting_die() {
    let (whole, victims) = one_writer_under_gc(false);
    let (mixed, mixed_victims) = one_writer_under_gc(true);
    assert!(
        victims > 50 && mixed_victims > 50,
        "GC ran: {victims}, {mixed_victims}"
    );
    // A writer that waits for a buffer slot waits for the next host commit:
    // a program's time with mixed programs, a quota of copies and a whole
    // program without.
    assert!(
        mixed * 2 < whole,
        "p99.9 write latency mixed {mixed} ns, whole programs {whole} ns"
    );
}

/// Queue depth 16 with paced GC; returns the simulated time the writes
/// took and the GC victims.
fn gc_bound_writes(multi_plane: bool) -> (u64, u64) {
    let mut cfg = small();
    cfg.timing.multi_plane = multi_plane;
    cfg.gc.pacing = true;
    let run = writes_on_a_full_device(cfg, 16, 6000, 5);
    (run.took, run.victims)
}

#[test]
fn multi_plane_gc_collects_both_planes_of_a_die_in_step() {
    let (one_by_one, victims) = gc_bound_writes(false);
    let (in_step, victims_in_step) = gc_bound_writes(true);
    assert!(
        victims > 100 && victims_in_step > 100,
        "GC ran: {victims}, {victims_in_step}"
    );
    // The planes copy together (and host programs go to both planes at
    // once); GC is most of the work here.
    assert!(
        in_step * 5 < one_by_one * 4,
        "GC-bound writes took {in_step} ns in step, {one_by_one} ns plane by plane"
    );
}

fn with_read_ahead(depth: u32, chunk: u32, buffer_pages: u32) -> SsdConfig {
    let mut cfg = small();
    cfg.controller.read_ahead = Some(ReadAhead {
        streams: 4,
        depth,
        chunk,
        buffer_pages,
    });
    cfg.validate().unwrap();
    cfg
}

#[test]
fn read_ahead_serves_a_sequential_stream_from_dram() {
    let mut ssd = filled(with_read_ahead(8, 4, 64), 0.5);
    let lat = read_one_by_one(&mut ssd, 0..24);
    // Two reads make the stream; every later page was prefetched.
    assert_eq!(ssd.stats().device.read_ahead_hits, 22);
    assert!(ssd.stats().device.prefetched_pages >= 22);
    let mut plain = filled(small(), 0.5);
    let flash = read_one_by_one(&mut plain, 0..24);
    for i in 2..24 {
        assert!(
            lat[i] + ssd.ssd().config().timing.read_ns / 2 < flash[i],
            "{i}: {lat:?}"
        );
    }
}

#[test]
fn random_reads_start_no_read_ahead() {
    let mut ssd = filled(with_read_ahead(8, 4, 64), 0.5);
    read_one_by_one(&mut ssd, (0..24).map(|i| (i * 37) % 500));
    assert_eq!(ssd.stats().device.prefetched_pages, 0);
    assert_eq!(ssd.stats().device.read_ahead_hits, 0);
}

/// Three sequential streams read in turn at queue depth 1: the read-ahead
/// hits they get from a buffer of `buffer_pages`.
fn interleaved_hits(buffer_pages: u32) -> u64 {
    let mut ssd = filled(with_read_ahead(16, 8, buffer_pages), 0.5);
    let lpas = (0..40u32).flat_map(|i| [i, 200 + i, 400 + i]);
    read_one_by_one(&mut ssd, lpas);
    ssd.stats().device.read_ahead_hits
}

#[test]
fn a_read_ahead_buffer_too_small_for_its_streams_thrashes() {
    let roomy = interleaved_hits(64);
    let small = interleaved_hits(12);
    assert!(roomy >= 100, "{roomy}");
    assert!(small * 2 < roomy, "{small} vs {roomy}");
}

#[test]
fn read_ahead_never_serves_data_older_than_a_write() {
    let mut cfg = with_read_ahead(8, 4, 64);
    cfg.buffer.capacity_bytes = 0; // write-through: the write reaches flash
    let mut ssd = filled(cfg, 0.5);
    read_one_by_one(&mut ssd, 0..2); // pages 2..10 are prefetched
    ssd.submit(cmd(50, Dir::Write, 4));
    // A write racing a prefetch still in flight.
    ssd.submit(cmd(51, Dir::Read, 2));
    ssd.submit(cmd(52, Dir::Write, 12));
    ssd.drain();
    read_one_by_one(&mut ssd, 3..16);
    ssd.ssd().check_invariants().unwrap();
    assert!(ssd.stats().device.read_ahead_hits >= 8);
}

#[test]
fn a_write_waiting_for_buffer_space_still_supersedes_read_ahead() {
    let mut cfg = with_read_ahead(8, 4, 64);
    cfg.buffer.capacity_bytes = 2 * cfg.geometry.page_size as u64;
    let mut ssd = filled(cfg, 0.5);
    // Fill the buffer, then write page 6: it waits for space while a new
    // stream (pages 4, 5) reads it ahead.
    for i in 0..4 {
        ssd.submit(cmd(100 + i, Dir::Write, 300 + i as u32));
    }
    ssd.submit(cmd(50, Dir::Write, 6));
    ssd.submit(cmd(60, Dir::Read, 4));
    ssd.submit(cmd(61, Dir::Read, 5));
    ssd.drain();
    assert!(
        ssd.stats().device.write_stalls > 0,
        "the write waited for space"
    );
    assert!(ssd.stats().device.prefetched_pages > 0);
    read_one_by_one(&mut ssd, 6..12);
    ssd.ssd().check_invariants().unwrap();
}

/// Any read-ahead settings either fail validation or run sequential,
/// interleaved and written-over reads without a panic or stale data. The
/// run counts the settings that validated and ran, so that a validation
/// refusing everything cannot pass it.
#[test]
fn any_read_ahead_settings_validate_or_run() {
    use proptest::test_runner::{Config, TestRunner};
    let config = Config {
        cases: 64,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let ran = std::cell::Cell::new(0u32);
    let strategy = (0u32..6, 0u32..70_000, 0u32..300, 0u32..400);
    runner
        .run(&strategy, |(streams, depth, chunk, buffer_pages)| {
            let mut cfg = small();
            cfg.controller.read_ahead = Some(ReadAhead {
                streams,
                depth,
                chunk,
                buffer_pages,
            });
            if cfg.validate().is_err() {
                return Ok(());
            }
            ran.set(ran.get() + 1);
            let mut ssd = filled(cfg, 0.5);
            let last = ssd.ssd().layout().logical_pages - 1;
            read_one_by_one(&mut ssd, (0..30).flat_map(|i| [i, last - 40 + i]));
            ssd.submit(cmd(900, Dir::Write, 31));
            ssd.drain();
            read_one_by_one(&mut ssd, 30..34);
            proptest::prop_assert!(ssd.ssd().check_invariants().is_ok());
            Ok(())
        })
        .unwrap();
    assert!(
        ran.get() >= 32,
        "only {} of 64 settings validated and ran",
        ran.get()
    );
}
