//! The analysis' safety on the full SSD model, on random task sets: sets
//! that an approach's analysis accepts, with a saturating NRT load served
//! in the background, simulated on seed004's SSD model with `edf` dies,
//! miss no deadline. (Under a TBS the device's own GC can make a job miss:
//! docs/rt-flash.md, "The analysis against the SSD model"; those runs are
//! the study's to count, not a property.)

use ssdlab_rtflash::generate::{generate, GenParams};
use ssdlab_rtflash::sim::{run_task_set, ChipOrder, Model, NrtPolicy, RunOptions};
use ssdlab_rtflash::taskset::NrtArrival;
use ssdlab_rtflash::{allocate, ApproachChoice, NrtLoad, Platform};

#[test]
fn accepted_sets_never_miss_on_the_ssd_model_with_background_nrt() {
    let platform = Platform {
        chips: 4,
        ..Platform::default()
    };
    let mut simulated = 0;
    let mut jobs = 0;
    for (level, demand) in [0.1, 0.2, 0.3, 0.4].into_iter().enumerate() {
        let mut params = GenParams::new(platform.clone(), 4, demand * 4.0);
        params.write_fraction = 0.5;
        params.space_utilisation = 0.5;
        for k in 0..10u64 {
            let seed = 100 * level as u64 + k;
            let Some(mut ts) = generate(&params, seed) else {
                continue;
            };
            ts.platform.preset = Some("seed004".into());
            ts.nrt = Some(NrtLoad {
                footprint_pages: ts.platform.usable_pages() / 20,
                arrival: NrtArrival::Saturating,
                outstanding: None,
                min_request_bytes: 4096,
                max_request_bytes: 128 * 1024,
                read_fraction: 0.5,
            });
            for name in ["clustering", "global"] {
                let approach = ApproachChoice::parse(name).unwrap();
                if !allocate(&ts, approach).schedulable {
                    continue;
                }
                let options = RunOptions {
                    approach,
                    nrt: NrtPolicy::Background,
                    order: ChipOrder::Edf,
                    model: Model::Ssd,
                    duration_ns: 1_000_000_000,
                    seed,
                };
                let out = run_task_set(&ts, &options).expect("the set fits seed004");
                simulated += 1;
                for t in &out.tasks {
                    let o = &t.observed;
                    jobs += o.jobs;
                    assert_eq!(
                        (o.read_misses, o.write_misses),
                        (0, 0),
                        "{name} set {seed} task {}: {out:#?}",
                        o.name
                    );
                    assert!(
                        o.max_response_ns <= t.deadline_ns,
                        "{name} set {seed}: {}",
                        o.name
                    );
                }
            }
        }
    }
    // The property ran on enough accepted sets to mean something.
    assert!(simulated >= 12, "only {simulated} accepted runs");
    assert!(jobs >= 1_000, "only {jobs} RT jobs");
}
