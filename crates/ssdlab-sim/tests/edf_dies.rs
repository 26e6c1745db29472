//! The `edf` die scheduler: a command with a deadline overtakes the queued
//! work without one, reads and programs alike, and work without deadlines
//! is served exactly as the default `priority` order serves it.

use ssdlab_protocol::Lpn;
use ssdlab_protocol::Ns;
use ssdlab_protocol::{Dir, IoCommand};
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::device::SimSsd;
use ssdlab_sim::ssd::precondition::{precondition, Precondition};
use ssdlab_sim::workload::script::CommandScript;

/// seed004 shrunk to 2 dies of 2 planes, write-through, half full.
fn device(die_scheduler: &str) -> Simulation<SimSsd> {
    let mut cfg = Preset::load_device("seed004").unwrap();
    cfg.geometry.channels = 2;
    cfg.geometry.planes_per_die = 2;
    cfg.geometry.blocks_per_plane = 64;
    cfg.geometry.pages_per_block = Some(32);
    cfg.ftl.over_provisioning = 0.3;
    cfg.ftl.allocation = "dynamic".parse().unwrap();
    cfg.controller.die_scheduler = die_scheduler.parse().unwrap();
    cfg.validate().unwrap();
    let mut ssd = SimSsd::new(cfg, 1, true);
    let pre = Precondition {
        overwrites: 0.5,
        ..Precondition::fill(0.5)
    };
    precondition(&mut ssd, &pre, 1).unwrap();
    Simulation::new(ssd, None, 1)
}

fn command(id: u64, op: Dir, lpa: u32, deadline: Option<Ns>) -> IoCommand {
    IoCommand {
        id,
        op,
        lpa: Lpn(lpa),
        pages: 1,
        bytes: 4096,
        sq: 0,
        deadline,
    }
}

/// Completion times by id of `commands`, all submitted at time 0.
fn completions(die_scheduler: &str, commands: Vec<IoCommand>) -> Vec<(u64, Ns)> {
    let mut sim = device(die_scheduler);
    let mut script = CommandScript::now(commands);
    sim.run(&mut script, None);
    sim.device().check_invariants().unwrap();
    let mut times = script.times_by_id();
    times.sort_unstable();
    times
}

/// 96 commands without a deadline, then one (id 96) with a deadline 1 ms
/// away: its completion, and the share of the others done before it.
fn urgent_after_background(die_scheduler: &str, op: Dir) -> (Ns, f64) {
    let mut commands: Vec<IoCommand> = (0..96)
        .map(|i| command(i, op, (i as u32 * 37) % 1500, None))
        .collect();
    commands.push(command(96, op, 1999, Some(1_000_000)));
    let times = completions(die_scheduler, commands);
    let urgent = times[96].1;
    let before = times[..96].iter().filter(|&&(_, t)| t < urgent).count();
    (urgent, before as f64 / 96.0)
}

#[test]
fn a_read_with_a_deadline_overtakes_queued_reads_without_one() {
    let (edf, edf_before) = urgent_after_background("edf", Dir::Read);
    let (fifo, fifo_before) = urgent_after_background("priority", Dir::Read);
    assert!(edf < 1_000_000, "{edf} ns");
    assert!(edf * 4 < fifo, "edf {edf} ns, priority {fifo} ns");
    assert!(
        edf_before < 0.2 && fifo_before > 0.8,
        "{edf_before} {fifo_before}"
    );
}

#[test]
fn a_write_with_a_deadline_is_programmed_before_queued_pages_without_one() {
    let (edf, edf_before) = urgent_after_background("edf", Dir::Write);
    let (fifo, fifo_before) = urgent_after_background("priority", Dir::Write);
    assert!(edf < 1_000_000, "{edf} ns");
    assert!(edf * 4 < fifo, "edf {edf} ns, priority {fifo} ns");
    assert!(
        edf_before < 0.2 && fifo_before > 0.8,
        "{edf_before} {fifo_before}"
    );
}

#[test]
fn without_deadlines_edf_serves_exactly_as_the_default_order() {
    let commands: Vec<IoCommand> = (0..400)
        .map(|i| {
            let op = if i % 3 == 0 { Dir::Write } else { Dir::Read };
            command(i, op, (i as u32 * 7919) % 2000, None)
        })
        .collect();
    assert_eq!(
        completions("edf", commands.clone()),
        completions("priority", commands)
    );
}

#[test]
fn earlier_deadlines_finish_first_among_commands_with_deadlines() {
    // 64 reads with deadlines in reverse order of submission. The first
    // on each die starts before the rest arrive (a die does not wait), but
    // of those queued behind, the earliest deadlines go first: the half
    // with the earlier deadlines finishes well ahead of the other half.
    let commands: Vec<IoCommand> = (0..64)
        .map(|i| {
            command(
                i,
                Dir::Read,
                (i as u32 * 31) % 1500,
                Some(10_000_000 - i * 1000),
            )
        })
        .collect();
    let mean = |times: &[(u64, Ns)]| times.iter().map(|&(_, t)| t).sum::<Ns>() / 32;
    let times = completions("edf", commands.clone());
    let (late, early) = times.split_at(32);
    assert!(
        mean(early) * 3 < mean(late) * 2,
        "{} {}",
        mean(early),
        mean(late)
    );
    // The default order serves them as they came.
    let times = completions("priority", commands);
    let (first, second) = times.split_at(32);
    assert!(mean(first) < mean(second));
}
