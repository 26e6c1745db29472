//! Chip clusters on the device model (`ftl.allocation = "clusters"`): a
//! reader whose quarter of the logical space has chips of its own no
//! longer waits behind a writing neighbour's programs, and the neighbour,
//! confined to two chips of eight, writes far slower
//! (examples/clusters/README.md).

use ssdlab_sim::experiment::fio_run::{self, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::SsdConfig;
use std::path::PathBuf;

fn example(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/clusters")
        .join(file)
}

/// (reader p99.9 ns, writer KiB written) of the example's job, shortened.
fn neighbours(device: SsdConfig) -> (u64, u64) {
    let text = std::fs::read_to_string(example("neighbours.fio"))
        .unwrap()
        .replace("runtime=20s", "runtime=3s");
    let jf = ssdlab_fio::parse_str(&text, "neighbours.fio", &|_| None).unwrap();
    let setup = RunSetup {
        device,
        host: HostConfig::default(),
        scheduler: "none".into(),
        occupancy: 0.5,
        precondition: ssdlab_sim::ssd::precondition::PreconditionMode::Auto,
        seed: 1,
        check: false,
    };
    let r = fio_run::run(&jf, &setup, None).unwrap();
    let jobs = report::build(&r, &jf, &setup).jobs;
    let reader = jobs.iter().find(|j| j.jobname == "reader").unwrap();
    let writer = jobs.iter().find(|j| j.jobname == "writer").unwrap();
    (
        reader.read.clat.percentiles(&[99.9])[0].1,
        writer.write.io_bytes / 1024,
    )
}

#[test]
fn a_reader_on_chips_of_its_own_escapes_its_neighbours_writes() {
    let shared = neighbours(Preset::load_device("consumer-tlc-250g").unwrap());
    let path = example("consumer-tlc-250g-clusters.toml");
    let clustered = neighbours(Preset::load_device(path.to_str().unwrap()).unwrap());
    // Sharing every chip, the reader's tail is the writer's programs; on
    // its own chips it is a flash read.
    assert!(shared.0 > 1_000_000, "shared: reader p99.9 {} ns", shared.0);
    assert!(
        clustered.0 < 200_000,
        "clustered: reader p99.9 {} ns",
        clustered.0
    );
    // Two chips of eight write at most about a quarter as fast.
    assert!(
        clustered.1 * 3 < shared.1,
        "writer KiB: {clustered:?} against {shared:?}"
    );
}

/// seed004 (four chips) with a quarter of the logical space on chip 0 and
/// one on chip 1; the other half on chips 2 and 3.
fn seed004_clusters() -> SsdConfig {
    let mut cfg = Preset::load_device("seed004").unwrap();
    cfg.ftl.allocation = "clusters".parse().unwrap();
    cfg.ftl.clusters = vec![
        ssdlab_sim::ssd::config::ChipCluster {
            chips: vec![0],
            from: 0.0,
            to: 0.25,
        },
        ssdlab_sim::ssd::config::ChipCluster {
            chips: vec![1],
            from: 0.25,
            to: 0.5,
        },
    ];
    cfg.validate().unwrap();
    cfg
}

#[test]
fn preconditioning_spreads_each_clusters_pages_over_its_own_planes() {
    use ssdlab_sim::ssd::device::SimSsd;
    use ssdlab_sim::ssd::precondition::{precondition, Precondition};
    // Random overwrites to the GC steady state: each cluster's pages must
    // keep to its planes evenly. A round-robin shared by all clusters once
    // sent every overwrite of a cluster to its first plane, which filled
    // with valid data and made GC copy nearly whole blocks.
    let moved = |cfg: SsdConfig| {
        let mut ssd = SimSsd::new(cfg, 1, true);
        let report = precondition(&mut ssd, &Precondition::full(), 1).unwrap();
        ssd.check_invariants().unwrap();
        report.gc_pages_moved
    };
    let clustered = moved(seed004_clusters());
    let mut dynamic = Preset::load_device("seed004").unwrap();
    dynamic.ftl.allocation = "dynamic".parse().unwrap();
    let shared = moved(dynamic);
    assert!(
        clustered <= 2 * shared + 1000,
        "GC moved {clustered} pages with clusters, {shared} without"
    );
}

#[test]
fn with_a_dynamic_slc_cache_no_cluster_may_be_fuller_than_the_device() {
    // consumer-tlc-250g lends free blocks to its SLC cache beyond the
    // device's average spare: a cluster holding 26 % of the logical space
    // on a quarter of the chips (which have room for it) would lend the
    // room its data needs.
    let text = std::fs::read_to_string(example("consumer-tlc-250g-clusters.toml"))
        .unwrap()
        .replacen("to = 0.25", "to = 0.26", 1)
        .replacen("from = 0.25", "from = 0.26", 1);
    let err = Preset::device_from_toml(&text, "clusters.toml")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ftl.clusters.1.to") && err.contains("fuller than the device"),
        "{err}"
    );
    // Without the dynamic part the same layout fits.
    let text = text.replace(
        "dynamic_blocks_per_plane = 268",
        "dynamic_blocks_per_plane = 0",
    );
    Preset::device_from_toml(&text, "clusters.toml").unwrap();
}
