//! `lb_size=auto`: the knee of write bandwidth against request size.

use ssdlab_sim::experiment::lb_size::{calibrate, resolve_auto};
use ssdlab_sim::preset::Preset;
use ssdlab_sim::ssd::config::Mapping;
use ssdlab_sim::ssd::device::SimSsd;

#[test]
fn page_mapping_knee_is_where_a_request_covers_the_dies() {
    let mut cfg = Preset::load_device("mlc-sata-8g").unwrap();
    cfg.ftl.mapping = Mapping::Page;
    let cal = calibrate(|| SimSsd::new(cfg.clone(), 1, false), 1 << 20, 1);
    for p in &cal.points {
        println!("{:>8} B  {:7.2} MB/s", p.bytes, p.mb_s);
    }
    // Eight dies of 4 KiB pages: one request of 32 KiB keeps them all busy.
    assert!(
        (16 << 10..=128 << 10).contains(&cal.lb_size),
        "{}",
        cal.lb_size
    );
    let first = cal.points[0].mb_s;
    let peak = cal.points.iter().map(|p| p.mb_s).fold(0.0, f64::max);
    assert!(peak > 4.0 * first);
}

#[test]
fn auto_is_replaced_only_when_asked_for() {
    let four_k = || Ok::<u64, ()>(4096);
    assert_eq!(
        resolve_auto("stb:lb_size=auto,t_sync=5", four_k),
        Ok(("stb:lb_size=4096,t_sync=5".to_string(), Some(4096)))
    );
    let never = || -> Result<u64, ()> { panic!("not measured") };
    assert_eq!(resolve_auto("noop", never), Ok(("noop".to_string(), None)));
}
