//! The simulation kernel drives the hybrid-FTL device (crate `ssdlab-ssd`)
//! through the protocol alone, as it drives the page-mapped one.

use ssdlab_protocol::{Dir, IoCommand, Lpn};
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::hybrid::HybridSsd;
use ssdlab_sim::workload::script::CommandScript;

/// The built-in 2009 SATA MLC drive, with its invariants checked.
fn drive() -> HybridSsd {
    let cfg = Preset::load_device("mlc-sata-8g").unwrap();
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
    let mut sim = Simulation::new(drive(), None, 1);
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
