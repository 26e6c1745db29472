//! The STB study's trends on its quick plan (docs/stb-study.md): on the
//! hybrid log-block FTL, STB leads the five schedulers by 10-40 % over the
//! elevators and has the lowest create time; on page mapping its gain
//! shrinks. A regression in the page cache, the bundler or the FTL's merges
//! moves these.

use ssdlab_studies::stb_study::{run, stb_gain, Plan, StbRow, StbStudyOptions};

fn quick_rows() -> Vec<StbRow> {
    let out = std::env::temp_dir().join(format!("ssdlab-stb-trends-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let opts = StbStudyOptions {
        out: out.clone(),
        threads: 2,
        seed: 1,
        plan: Plan::Quick,
        remote: None,
    };
    let (rows, computed) = run(&opts, &|_, _| {}).expect("the study runs");
    assert_eq!(computed, rows.len(), "a fresh cache computes every point");
    let _ = std::fs::remove_dir_all(&out);
    rows
}

fn on<'a>(rows: &'a [StbRow], ftl: &'a str) -> impl Iterator<Item = &'a StbRow> {
    rows.iter().filter(move |r| r.ftl == ftl)
}

#[test]
fn stb_leads_on_the_hybrid_ftl_and_its_gain_shrinks_on_page_mapping() {
    let rows = quick_rows();
    let best = on(&rows, "hybrid")
        .max_by(|a, b| a.transactions_per_s.total_cmp(&b.transactions_per_s))
        .unwrap();
    assert_eq!(best.scheduler, "stb", "{rows:#?}");
    let hybrid = stb_gain(&rows, "hybrid").unwrap();
    assert!(
        (0.10..=0.40).contains(&hybrid),
        "STB over noop/deadline: {hybrid}"
    );
    let fastest_create = on(&rows, "hybrid")
        .min_by(|a, b| a.create_avg_ms.total_cmp(&b.create_avg_ms))
        .unwrap();
    assert_eq!(fastest_create.scheduler, "stb");
    let stb_waf = on(&rows, "hybrid")
        .find(|r| r.scheduler == "stb")
        .unwrap()
        .waf;
    let noop_waf = on(&rows, "hybrid")
        .find(|r| r.scheduler == "noop")
        .unwrap()
        .waf;
    assert!(
        stb_waf < noop_waf,
        "the gain is in the FTL: {stb_waf} vs {noop_waf}"
    );
    let page = stb_gain(&rows, "page").unwrap();
    assert!(
        page < hybrid - 0.10,
        "page mapping: {page} against {hybrid}"
    );
}

fn transactions_per_s(scheduler: &str, sync_metadata: bool) -> f64 {
    use ssdlab_sim::experiment::postmark_run::run_postmark_on;
    use ssdlab_studies::stb_study::{preset, workload};
    let mut w = workload(Plan::Quick);
    w.postmark.sync_metadata = sync_metadata;
    let p = preset("hybrid");
    let (r, _, _) = run_postmark_on(&p.device, &p.host, scheduler, &w, 1, false).unwrap();
    r.report.transactions_per_s
}

/// IRBW-FIFO-RP bundles synchronous writes with the rest: where creates
/// wait for their journal commits it falls well below STB; where the
/// commits are write-back like the data, the two come close.
#[test]
fn irbw_rp_comes_close_to_stb_only_where_sync_writes_are_rare() {
    let ratio = |sync| {
        transactions_per_s("irbw-rp:lb_size=auto", sync)
            / transactions_per_s("stb:lb_size=auto", sync)
    };
    let (frequent, rare) = (ratio(true), ratio(false));
    assert!(
        frequent < 0.9,
        "sync metadata: IRBW-FIFO-RP / STB = {frequent}"
    );
    assert!(
        (0.95..=1.05).contains(&rare),
        "async metadata: IRBW-FIFO-RP / STB = {rare}"
    );
}
