//! The real-time simulation on the full SSD model: the task set's clusters
//! become chip clusters of the platform's preset (`ftl.allocation =
//! "clusters"`), and the device serves every command by its deadline (the
//! `edf` die scheduler) or as the preset's own firmware does (an ordinary
//! SSD). Where `rtflash run`'s chip model runs the analysis' own GC round,
//! here the device's FTL, GC triggers, multi-plane operations and channels
//! decide what a job costs, so the analysis' bounds are checked against a
//! device they were not written for.
//!
//! Layout: cluster `k` owns about the share `n_k / dies` of the logical
//! space (more when its data need more: `cluster_tables`), in the order
//! the allocation lists the clusters. Its tasks' footprints come
//! first in that range, then its part of the NRT region: NRT page `x` lives
//! on chip `x mod m` (striped over all chips, as the analysis assumes) and
//! so in that chip's cluster, where the cluster's NRT pages are numbered
//! row by row (`x div m`), so that a run of NRT pages is one contiguous run
//! in every cluster it touches.

#[cfg(test)]
mod tests;
mod workload;

use super::{ChipOrder, SimReport, SimSetup};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use ssdlab_protocol::Lpn;
use ssdlab_sim::kernel::Simulation;
use ssdlab_sim::ssd::alloc::cluster_ranges;
use ssdlab_sim::ssd::config::{ChipCluster, SsdConfig};
use ssdlab_sim::ssd::device::precondition::FunctionalWriter;
use ssdlab_sim::ssd::device::SimSsd;

/// Where the task set's data lives in the device's logical space.
#[derive(Debug, Clone)]
struct Placement {
    /// First logical page of each task's footprint.
    task_base: Vec<u32>,
    /// Each cluster's first NRT page, its chips (sorted) and its NRT rows.
    nrt_base: Vec<u32>,
    /// The cluster and the rank inside it of each platform chip.
    chip_cluster: Vec<(usize, u32)>,
    /// Each cluster's chip count.
    cluster_chips: Vec<u32>,
    /// The pages each cluster holds data in: `[start, end)` runs.
    used: Vec<Vec<(u32, u32)>>,
}

impl Placement {
    /// The device page of NRT page `x`, and its cluster.
    fn nrt_page(&self, x: u64, chips: u64) -> (usize, u32) {
        let (k, rank) = self.chip_cluster[(x % chips) as usize];
        let local = (x / chips) * u64::from(self.cluster_chips[k]) + u64::from(rank);
        (k, self.nrt_base[k] + local as u32)
    }
}

/// Simulates `setup` on the SSD model of `preset` (the platform's preset).
/// An error says why the task set cannot run there.
pub fn simulate_on_device(setup: &SimSetup, preset: &SsdConfig) -> Result<SimReport, String> {
    run(setup, preset).map(|(report, _, _)| report)
}

/// The run, with the device it ended on and where the data was laid out.
fn run(setup: &SimSetup, preset: &SsdConfig) -> Result<(SimReport, SimSsd, Placement), String> {
    let (cfg, placement) = device_for(setup, preset)?;
    let mut ssd = SimSsd::new(cfg, setup.seed, false);
    precondition(&mut ssd, &placement, setup.seed);
    let before = ssd.stats().ftl;
    let mut sim = Simulation::new(ssd, None, setup.seed);
    let mut load = workload::RtOnSsd::new(setup, &placement);
    sim.run(&mut load, None);
    if let Some(e) = load.error.take() {
        return Err(e);
    }
    let ssd = sim.into_parts().0;
    let after = ssd.stats().ftl;
    let mut report = load.finish();
    report.gc_rounds = after.gc_invocations - before.gc_invocations;
    report.gc_copied_pages = after.gc_pages_moved - before.gc_pages_moved;
    Ok((report, ssd, placement))
}

/// The preset made the task set's device: write-through (a write is done
/// when programmed, as the analysis counts it), chip clusters for the
/// allocation, and the die scheduler the chip order asks for.
fn device_for(setup: &SimSetup, preset: &SsdConfig) -> Result<(SsdConfig, Placement), String> {
    let mut cfg = preset.clone();
    let g = &cfg.geometry;
    let dies = g.channels * g.chips_per_channel * g.dies_per_chip;
    let m = setup.platform.chips;
    if g.dies_per_chip != 1 {
        return Err(format!(
            "preset '{}' has {} dies per chip: chip clusters isolate whole chips, so the SSD model needs one die per chip",
            cfg.name, g.dies_per_chip
        ));
    }
    if m > dies || m == 0 {
        return Err(format!(
            "{m} chips asked for, but preset '{}' has {dies} dies",
            cfg.name
        ));
    }
    let mut chip_cluster = vec![None; m as usize];
    for (k, c) in setup.clusters.iter().enumerate() {
        let mut chips = c.chips.clone();
        chips.sort_unstable();
        for (rank, &chip) in (0..).zip(&chips) {
            chip_cluster[chip as usize] = Some((k, rank));
        }
    }
    let chip_cluster: Vec<(usize, u32)> = chip_cluster
        .into_iter()
        .enumerate()
        .map(|(chip, c)| c.ok_or(format!("chip {chip} is in no cluster")))
        .collect::<Result<_, _>>()?;
    cfg.ftl.clusters = cluster_tables(setup, &cfg, dies)?;
    cfg.ftl.allocation = "clusters".parse().expect("registered");
    cfg.buffer.capacity_bytes = 0;
    if setup.order == ChipOrder::Edf {
        cfg.controller.die_scheduler = "edf".parse().expect("registered");
    }
    if let Err(problems) = cfg.validate() {
        let (key, why) = &problems[0];
        return Err(format!(
            "preset '{}' with the task set's clusters: {key}: {why}",
            cfg.name
        ));
    }
    let placement = place(setup, &cfg, chip_cluster)?;
    Ok((cfg, placement))
}

/// The logical pages each cluster holds data in: its tasks' footprints and
/// its share of the NRT region.
fn needs(setup: &SimSetup) -> Vec<u64> {
    let m = u64::from(setup.platform.chips);
    let nrt_pages = setup.nrt.as_ref().map_or(0, |n| n.footprint_pages);
    let mut need: Vec<u64> = setup
        .clusters
        .iter()
        .map(|c| (nrt_pages.div_ceil(m) * c.chips.len() as u64).min(nrt_pages))
        .collect();
    for t in &setup.tasks {
        need[t.cluster] += t.footprint_pages;
    }
    need
}

/// One `[[ftl.clusters]]` table per cluster, their ranges laid end to end
/// in the allocation's order over the platform's chips' share of the
/// logical space (the preset's dies beyond the platform's chips keep the
/// rest). Each cluster's range is its chips' share of that span, or what
/// it needs when that is more (full isolation's 94 %-full chip); the
/// clusters that need less give up the difference in proportion to their
/// slack. Ranges no larger than their chips' share also pass the preset's
/// rule for a dynamic SLC cache.
fn cluster_tables(
    setup: &SimSetup,
    cfg: &SsdConfig,
    dies: u32,
) -> Result<Vec<ChipCluster>, String> {
    let layout = cfg.layout();
    let logical = u64::from(layout.logical_pages);
    let per_chip = cfg.pages_per_chip_for_data(&layout);
    let need = needs(setup);
    let chips: Vec<u64> = setup
        .clusters
        .iter()
        .map(|c| c.chips.len() as u64)
        .collect();
    for (k, (c, &need)) in setup.clusters.iter().zip(&need).enumerate() {
        let holds = per_chip * chips[k];
        if need > holds {
            return Err(format!(
                "cluster {k} (chips {:?}) needs {need} pages for its tasks and its NRT share, \
                 but its chips hold {holds} besides GC's room on preset '{}'",
                c.chips, cfg.name
            ));
        }
    }
    let m: u64 = chips.iter().sum();
    let span = logical * m / u64::from(dies);
    let total: u64 = need.iter().sum();
    if total > span {
        return Err(format!(
            "the task set needs {total} logical pages; its {m} chips' share of preset '{}' is {span}",
            cfg.name
        ));
    }
    // Each cluster's chips' share, from cumulative boundaries so that the
    // shares add up to the span and each is within a page of exact.
    let mut cumulative = 0u64;
    let fair: Vec<u64> = chips
        .iter()
        .map(|&n| {
            let before = cumulative * span / m;
            cumulative += n;
            cumulative * span / m - before
        })
        .collect();
    let excess: u64 = need
        .iter()
        .zip(&fair)
        .map(|(&n, &f)| n.saturating_sub(f))
        .sum();
    let spare: u64 = need
        .iter()
        .zip(&fair)
        .map(|(&n, &f)| f.saturating_sub(n))
        .sum();
    let range = |k: usize| match fair[k].checked_sub(need[k]) {
        None | Some(0) => need[k],
        // Rounded up, so that together they give up at least the excess
        // (never more than their slack: the excess is at most the spare).
        Some(slack) => {
            fair[k] - (excess as u128 * slack as u128).div_ceil(spare.max(1) as u128) as u64
        }
    };
    // Shares that round back to the exact boundaries.
    let share = |page: u64| (page as f64 + 0.5) / logical as f64;
    let mut start = 0u64;
    let mut tables = Vec::with_capacity(need.len());
    for (k, c) in setup.clusters.iter().enumerate() {
        let last = k + 1 == need.len();
        let end = if last { span } else { start + range(k) };
        tables.push(ChipCluster {
            chips: c.chips.clone(),
            from: if k == 0 { 0.0 } else { share(start) },
            to: if end == logical { 1.0 } else { share(end) },
        });
        start = end;
    }
    Ok(tables)
}

/// Lays the tasks and the NRT region out in their clusters' ranges.
fn place(
    setup: &SimSetup,
    cfg: &SsdConfig,
    chip_cluster: Vec<(usize, u32)>,
) -> Result<Placement, String> {
    let ranges = cluster_ranges(cfg.layout().logical_pages, &cfg.ftl.clusters);
    let m = u64::from(setup.platform.chips);
    let nrt_pages = setup.nrt.as_ref().map_or(0, |n| n.footprint_pages);
    let mut next: Vec<u64> = ranges.iter().map(|&(start, _)| u64::from(start)).collect();
    let mut task_base = Vec::with_capacity(setup.tasks.len());
    for t in &setup.tasks {
        task_base.push(next[t.cluster] as u32);
        next[t.cluster] += t.footprint_pages;
    }
    let cluster_chips: Vec<u32> = setup
        .clusters
        .iter()
        .map(|c| c.chips.len() as u32)
        .collect();
    // `cluster_tables` gave every range what its cluster needs; the
    // preset's rounding of the shares must not have taken any of it.
    let need = needs(setup);
    let mut used = Vec::with_capacity(ranges.len());
    let mut nrt_base = Vec::with_capacity(ranges.len());
    for (k, &(start, end)) in ranges.iter().enumerate() {
        if u64::from(start) + need[k] > u64::from(end) {
            return Err(format!(
                "cluster {k}: {} logical pages needed, {} in its range on preset '{}'",
                need[k],
                end - start,
                cfg.name
            ));
        }
        nrt_base.push(next[k] as u32);
        used.push(vec![(start, next[k] as u32)]);
    }
    let mut placement = Placement {
        task_base,
        nrt_base,
        chip_cluster,
        cluster_chips,
        used,
    };
    // The NRT pages actually used (a partial last row leaves gaps).
    let mut nrt_end = placement.nrt_base.clone();
    for x in 0..nrt_pages {
        let (k, lpa) = placement.nrt_page(x, m);
        nrt_end[k] = nrt_end[k].max(lpa + 1);
    }
    for (k, end) in nrt_end.into_iter().enumerate() {
        placement.used[k].push((placement.nrt_base[k], end));
    }
    Ok(placement)
}

/// Every page written once, cluster by cluster; then random overwrites of
/// each cluster's pages until every plane of its chips is down to its GC
/// threshold, and as many again as its chips have physical pages: each
/// cluster starts in a GC steady state, whatever its fill (the chip model
/// does the same per chip).
fn precondition(ssd: &mut SimSsd, placement: &Placement, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_0fa9);
    let mut w = FunctionalWriter::default();
    let layout = ssd.layout().clone();
    let die_pages = u64::from(layout.planes_per_die)
        * u64::from(layout.blocks_per_plane)
        * u64::from(layout.pages_per_block);
    for (k, runs) in placement.used.iter().enumerate() {
        let pages: Vec<u32> = runs.iter().flat_map(|&(a, b)| a..b).collect();
        if pages.is_empty() {
            continue;
        }
        for &lpa in &pages {
            w.write(ssd, Lpn(lpa), &mut rng);
        }
        let planes: Vec<_> = layout
            .all_planes()
            .filter(|&p| ssd.plane_in_group(p, k as u32))
            .collect();
        let mut overwrite = |ssd: &mut SimSsd| {
            let lpa = pages[rng.gen_range(0..pages.len())];
            w.write(ssd, Lpn(lpa), &mut rng);
        };
        let soft = ssd.soft_gc_blocks();
        let cap = 4 * die_pages * u64::from(placement.cluster_chips[k]);
        let mut written = 0;
        while written < cap && planes.iter().any(|&p| ssd.free_blocks(p) > soft) {
            overwrite(ssd);
            written += 1;
        }
        for _ in 0..die_pages * u64::from(placement.cluster_chips[k]) {
            overwrite(ssd);
        }
    }
}
