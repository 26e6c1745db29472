//! The simulation kernel drives the hybrid-FTL device (crate `ssdlab-ssd`)
//! through the protocol alone, as it drives the page-mapped one.

use ssdlab_protocol::{Dir, IoCommand, Lpn};
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::ssd::config::SsdConfig;
use ssdlab_sim::ssd::hybrid::HybridSsd;
use ssdlab_sim::workload::script::CommandScript;

/// A small 2009-era MLC drive: 8 units × 16 pages of 4 KiB (a log block of
/// 128 pages), 96 superblocks, 8 RW log blocks.
fn small() -> HybridSsd {
    let text = r#"
name = "mlc-sata-test"
[geometry]
channels = 8
chips_per_channel = 1
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 96
pages_per_block = 16
page_size = 4096
[timing]
read_ns = 50_000
program_ns = 900_000
erase_ns = 3_500_000
channel_mts = 40
channel_width_bits = 8
flash_command_ns = 200
[controller]
queue_depth = 32
submission_queues = 1
command_ns = 10_000
completion_ns = 5_000
link_mbs = 300
dram_ns = 1_000
[buffer]
capacity_bytes = 0
[ftl]
over_provisioning = 0.07
allocation = "static"
"#;
    let cfg = SsdConfig::from_toml(text, "mlc-sata-test.toml").unwrap();
    HybridSsd::new(&cfg, 8, 1, true).unwrap()
}

fn cmd(id: u64, op: Dir, lpa: u32, pages: u32) -> IoCommand {
    IoCommand {
        id,
        op,
        lpa: Lpn(lpa),
        pages,
        bytes: pages * 4096,
        sq: 0,
        deadline: None,
    }
}

#[test]
fn the_kernel_drives_the_hybrid_model() {
    let mut sim = Simulation::new(small(), None, 1);
    let mut script = CommandScript::new(vec![
        (0, cmd(1, Dir::Write, 0, 128)),
        (0, cmd(2, Dir::Read, 0, 128)),
        (5_000_000, cmd(3, Dir::Trim, 0, 64)),
        (6_000_000, cmd(4, Dir::Read, 0, 128)),
    ]);
    sim.run(&mut script, None);
    let times = script.times_by_id();
    assert_eq!(times.len(), 4);
    // The read waits for the programs booked before it on its units.
    assert!(times[1].1 > times[0].1);
    let s = sim.device().stats();
    assert_eq!((s.trimmed_pages, s.unmapped_reads), (64, 64));
    sim.device().check_invariants().unwrap();
}
