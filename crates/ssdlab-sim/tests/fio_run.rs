//! `ssdlab run` end to end: fio job files through the host block layer and
//! scheduler to the simulated SSD, checked against what a fio user expects
//! of the same job file (issue model, rate limits, time keeping, reporting
//! groups, priorities, writes/trims, determinism, the K2 trade-off, errors).

use ssdlab_fio::JobFile;
use ssdlab_metrics::{DirStats, JobReport};
use ssdlab_sim::experiment::fio_run::{self, RunResult, RunSetup};
use ssdlab_sim::experiment::report;
use ssdlab_sim::host::HostConfig;
use ssdlab_sim::preset::Preset;

const MS: u64 = 1_000_000;

fn setup_with(device: &str, scheduler: &str, occupancy: f64) -> RunSetup {
    RunSetup {
        device: Preset::load_device(device).expect("preset loads"),
        host: HostConfig::default(),
        scheduler: scheduler.to_string(),
        occupancy,
        precondition: ssdlab_sim::ssd::precondition::PreconditionMode::Auto,
        seed: 7,
        check: false,
    }
}

/// The small, fast device, half full, no scheduler.
fn setup() -> RunSetup {
    setup_with("seed004", "none", 0.5)
}

fn parse(text: &str) -> JobFile {
    ssdlab_fio::parse_str(text, "test.fio", &|_| None).expect("job file parses")
}

fn run(text: &str, s: &RunSetup) -> RunResult {
    fio_run::run(&parse(text), s, None).expect("run succeeds")
}

/// fio's per-job reports (group_reporting applied), via the report builder.
fn reports(text: &str, s: &RunSetup) -> Vec<JobReport> {
    let jf = parse(text);
    let r = fio_run::run(&jf, s, None).expect("run succeeds");
    report::build(&r, &jf, s).jobs
}

fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// I/Os per second over the measured runtime, without fio's whole-ms rounding.
fn exact_iops(d: &DirStats) -> f64 {
    d.total_ios as f64 * 1e9 / d.runtime_ns as f64
}

/// The fio JSON of a run with the wall-clock fields removed.
fn json_without_time(text: &str, s: &RunSetup) -> serde_json::Value {
    let jf = parse(text);
    let r = fio_run::run(&jf, s, None).expect("run succeeds");
    let mut v = report::build(&r, &jf, s).to_fio_json();
    let m = v.as_object_mut().expect("an object");
    for k in ["timestamp", "timestamp_ms", "time"] {
        m.remove(k);
    }
    v
}

const RANDREAD_PSYNC: &str = "\
[global]
ioengine=psync
direct=1
bs=4k
rw=randread
time_based
runtime=1s
";

// 1. -------------------------------------------------------------------------

#[test]
fn sync_engine_keeps_exactly_one_io_outstanding() {
    let s = setup();
    let deep = reports(&format!("{RANDREAD_PSYNC}[j]\niodepth=32\n"), &s);
    let r = &deep[0].read;
    assert!(r.total_ios > 1000, "{} I/Os", r.total_ios);
    let mean_lat = r.lat.stat.mean;
    let expected = 1e9 / mean_lat;
    // One I/O at a time: the job's IOPS is the inverse of its latency.
    assert!(
        rel_err(r.iops(), expected) < 0.02,
        "psync iodepth=32: iops {} vs 1/mean lat {}",
        r.iops(),
        expected
    );
    // fio reports no submission latency for sync engines; clat = lat.
    assert_eq!(r.slat.stat.samples, 0);
    assert_eq!(r.clat.stat.samples, r.total_ios);
    assert!((r.clat.stat.mean - r.lat.stat.mean).abs() < 1.0);
    // iodepth is ignored by a sync engine: same run as iodepth=1.
    let shallow = reports(&format!("{RANDREAD_PSYNC}[j]\niodepth=1\n"), &s);
    assert_eq!(shallow[0].read.total_ios, r.total_ios);
    // ... and libaio at iodepth=32 does far more.
    let aio = reports(
        &format!("{RANDREAD_PSYNC}[j]\nioengine=libaio\niodepth=32\n"),
        &s,
    );
    assert!(
        aio[0].read.total_ios > 3 * r.total_ios,
        "libaio qd32 {} vs psync {}",
        aio[0].read.total_ios,
        r.total_ios
    );
}

// 2. -------------------------------------------------------------------------

#[test]
fn libaio_throughput_grows_with_iodepth_and_lat_is_slat_plus_clat() {
    let s = setup();
    let mut iops = Vec::new();
    for qd in [1u32, 2, 4, 8, 16, 64] {
        let text = format!(
            "[global]\nioengine=libaio\ndirect=1\nbs=4k\nrw=randread\ntime_based\nruntime=500ms\n\
             [j]\niodepth={qd}\n"
        );
        let rep = reports(&text, &s);
        let r = &rep[0].read;
        assert!(r.total_ios > 0);
        // Every I/O has slat, clat and lat; lat = slat + clat per I/O, so
        // also on average.
        assert_eq!(r.slat.stat.samples, r.total_ios, "qd {qd}");
        assert_eq!(r.lat.stat.samples, r.total_ios, "qd {qd}");
        let sum = r.slat.stat.mean + r.clat.stat.mean;
        assert!(
            (r.lat.stat.mean - sum).abs() <= 1e-6 * r.lat.stat.mean + 1.0,
            "qd {qd}: lat {} vs slat {} + clat {}",
            r.lat.stat.mean,
            r.slat.stat.mean,
            r.clat.stat.mean
        );
        assert!(r.lat.stat.min >= r.clat.stat.min);
        iops.push((qd, r.iops()));
    }
    // Monotone up to saturation (allow 2% noise once saturated) ...
    for w in iops.windows(2) {
        assert!(
            w[1].1 >= 0.98 * w[0].1,
            "iops fell from qd {} to qd {}: {iops:?}",
            w[0].0,
            w[1].0
        );
    }
    // ... and real parallelism at low depths.
    assert!(iops[1].1 > 1.6 * iops[0].1, "qd2 vs qd1: {iops:?}");
    assert!(iops[2].1 > 1.4 * iops[1].1, "qd4 vs qd2: {iops:?}");
    assert!(iops[4].1 > 3.0 * iops[0].1, "qd16 vs qd1: {iops:?}");
}

/// host.costs.wakeup_ns is the cost of waking a job that sleeps waiting for
/// its I/O: psync always (in its call), libaio when it can issue nothing else
/// (at full depth, in io_getevents), so at iodepth=1 both pay it and at
/// iodepth=32 libaio mostly does not.
#[test]
fn wakeup_cost_applies_to_sleeping_jobs_only() {
    let mut s = setup();
    s.host.costs.wakeup_ns = MS;
    let lat = |engine: &str, depth: u32| {
        let rep = reports(
            &format!("[j]\nioengine={engine}\niodepth={depth}\ndirect=1\nbs=4k\nrw=randread\nnumber_ios=2000\n"),
            &s,
        );
        (rep[0].read.lat.stat.mean, rep[0].read.total_ios)
    };
    let (sync, _) = lat("psync", 1);
    let (aio1, _) = lat("libaio", 1);
    assert!(sync > MS as f64, "psync lat {sync}");
    assert!(
        aio1 > MS as f64,
        "libaio iodepth=1 sleeps in io_getevents: {aio1}"
    );
    // At depth 32 a wake-up reaps every completion that ended meanwhile:
    // one wake-up per batch, so throughput is far above one I/O per wake-up.
    let (_, n) = lat("libaio", 32);
    assert_eq!(n, 2000);
    let rep = reports(
        "[j]\nioengine=libaio\niodepth=32\ndirect=1\nbs=4k\nrw=randread\ntime_based\nruntime=100ms\n",
        &s,
    );
    assert!(
        rep[0].read.total_ios > 20 * 100,
        "{} I/Os in 100 wake-ups' time",
        rep[0].read.total_ios
    );
}

// 3. -------------------------------------------------------------------------

#[test]
fn thinktime_spaces_sync_ios() {
    let s = setup();
    let rep = reports(&format!("{RANDREAD_PSYNC}[j]\nthinktime=2000\n"), &s);
    let r = &rep[0].read;
    let expected = 1e9 / (2.0 * MS as f64 + r.lat.stat.mean);
    assert!(
        rel_err(exact_iops(r), expected) < 0.02,
        "thinktime=2000: iops {} vs 1/(2ms + lat) {}",
        exact_iops(r),
        expected
    );
    assert!((440..=500).contains(&r.total_ios), "{}", r.total_ios);
    // Thinking is not latency.
    assert!(r.lat.stat.max < 2 * MS, "max lat {}", r.lat.stat.max);

    // thinktime_blocks=4: think after every 4th I/O.
    let rep4 = reports(
        &format!("{RANDREAD_PSYNC}[j]\nthinktime=2000\nthinktime_blocks=4\n"),
        &s,
    );
    let r4 = &rep4[0].read;
    let expected4 = 4e9 / (2.0 * MS as f64 + 4.0 * r4.lat.stat.mean);
    assert!(
        rel_err(exact_iops(r4), expected4) < 0.03,
        "thinktime_blocks=4: iops {} vs {}",
        exact_iops(r4),
        expected4
    );
}

// 4. -------------------------------------------------------------------------

const RATED: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=16
bs=4k
rw=randread
time_based
runtime=2s
iopsavgtime=100
rate_iops=1000
";

#[test]
fn rate_iops_linear_is_exact_and_poisson_has_same_mean_more_variance() {
    let s = setup();
    let lin = reports(&format!("{RATED}[j]\n"), &s);
    let l = &lin[0].read;
    assert!(
        rel_err(l.iops(), 1000.0) <= 0.01,
        "linear rate_iops=1000 gave {} iops ({} I/Os in {} ns)",
        l.iops(),
        l.total_ios,
        l.runtime_ns
    );
    let poi = reports(&format!("{RATED}rate_process=poisson\n[j]\n"), &s);
    let p = &poi[0].read;
    // 2000 expected arrivals: one standard deviation is ~2.2%.
    assert!(
        rel_err(p.iops(), 1000.0) <= 0.07,
        "poisson rate_iops=1000 gave {} iops",
        p.iops()
    );
    // Windows of 100 ms: linear has exactly 100 I/Os in each, Poisson
    // ~ 100 ± 10 (1000 ± 100 IOPS).
    let (ls, ps) = (l.iops_stat(), p.iops_stat());
    assert!(ls.samples >= 19 && ps.samples >= 19, "{ls:?} {ps:?}");
    assert!(ls.stddev() < 15.0, "linear iops stddev {}", ls.stddev());
    assert!(
        ps.stddev() > 40.0 && ps.stddev() > 3.0 * ls.stddev(),
        "poisson iops stddev {} vs linear {}",
        ps.stddev(),
        ls.stddev()
    );
    // A byte rate works the same way: 4 MiB/s of 4 KiB is 1024 IOPS.
    let byte = reports(
        "[global]\nioengine=libaio\ndirect=1\niodepth=16\nbs=4k\nrw=randread\ntime_based\n\
         runtime=1s\nrate=4m\n[j]\n",
        &s,
    );
    let b = &byte[0].read;
    assert!(
        rel_err(b.bw_bytes() as f64, 4.0 * 1048576.0) <= 0.01,
        "rate=4m gave {} B/s",
        b.bw_bytes()
    );
}

/// fio's `rate_ddir`: in a mixed job a direction that is ahead of its rate
/// yields to the other direction when that one is behind, so each direction
/// gets its own cap (`rate_iops=,500` limits writes only).
#[test]
fn per_direction_rates_in_a_mixed_job_are_independent() {
    let s = setup();
    let base =
        "[j]\nioengine=libaio\niodepth=16\ndirect=1\nbs=4k\nrw=randrw\ntime_based\nruntime=1s\n";
    let rep = reports(&format!("{base}rate_iops=1000,500\n"), &s);
    let (r, w) = (rep[0].read.iops(), rep[0].write.iops());
    assert!(rel_err(w, 500.0) < 0.03, "write iops {w}");
    assert!(
        rel_err(r, 1000.0) < 0.03,
        "rate_iops=1000,500: read iops {r}"
    );
    let rep = reports(&format!("{base}rate_iops=,500\n"), &s);
    let (r, w) = (rep[0].read.iops(), rep[0].write.iops());
    assert!(rel_err(w, 500.0) < 0.03, "write iops {w}");
    assert!(
        r > 5000.0,
        "rate_iops=,500 (reads unlimited): read iops {r}"
    );
}

// 5. -------------------------------------------------------------------------

#[test]
fn ramp_time_excludes_early_ios() {
    let s = setup();
    let base = "[global]\nioengine=libaio\ndirect=1\niodepth=4\nbs=4k\nrw=randread\n\
                time_based\nruntime=1s\n";
    let plain = reports(&format!("{base}[j]\n"), &s);
    let ramped = reports(&format!("{base}ramp_time=1s\n[j]\n"), &s);
    let (a, b) = (&plain[0], &ramped[0]);
    assert!(
        rel_err(b.read.total_ios as f64, a.read.total_ios as f64) < 0.03,
        "ramp_time=1s,runtime=1s: {} I/Os vs runtime=1s: {}",
        b.read.total_ios,
        a.read.total_ios
    );
    assert!(
        (1000..=1001).contains(&b.job_runtime()),
        "runtime {} ms",
        b.job_runtime()
    );
    assert!((1000..=1001).contains(&b.read.runtime_ms()));
    // Everything counted has its latencies counted too.
    assert_eq!(b.read.clat.stat.samples, b.read.total_ios);
    // The measured period starts at ramp end.
    let r = run(&format!("{base}ramp_time=1s\n[j]\n"), &s);
    assert_eq!(r.jobs[0].ramp_end_ns, r.jobs[0].start_ns + 1000 * MS);
    assert!(r.sim_end_ns >= r.jobs[0].start_ns + 2000 * MS);
}

// 6. -------------------------------------------------------------------------

#[test]
fn time_based_runtime_and_size_limits() {
    let s = setup();
    for engine in ["psync", "libaio\niodepth=32"] {
        let rep = reports(
            &format!(
                "[global]\ndirect=1\nbs=4k\nrw=randread\ntime_based\nruntime=1s\n[j]\nioengine={engine}\n"
            ),
            &s,
        );
        assert!(
            (1000..=1001).contains(&rep[0].job_runtime()),
            "{engine}: runtime {} ms",
            rep[0].job_runtime()
        );
    }
    // Without time_based, size=4m of 4 KiB random reads is 1024 I/Os, each
    // block once.
    for engine in ["psync", "libaio\niodepth=16"] {
        let rep = reports(
            &format!("[j]\ndirect=1\nbs=4k\nrw=randread\nsize=4m\nioengine={engine}\n"),
            &s,
        );
        assert_eq!(rep[0].read.total_ios, 1024, "{engine}");
        assert_eq!(rep[0].read.io_bytes, 4 << 20, "{engine}");
        assert_eq!(rep[0].write.total_ios + rep[0].trim.total_ios, 0);
    }
    // time_based keeps going over a small region until runtime is up.
    let rep = reports(
        "[j]\nioengine=psync\ndirect=1\nbs=4k\nrw=randread\nsize=4m\ntime_based\nruntime=1s\n",
        &s,
    );
    assert!(rep[0].read.total_ios > 1024, "{}", rep[0].read.total_ios);
    assert!((1000..=1001).contains(&rep[0].job_runtime()));
    // runtime caps a size-based job; number_ios and loops limit it.
    let rep = reports(
        "[j]\nioengine=psync\ndirect=1\nbs=4k\nrw=randread\nruntime=100ms\n",
        &s,
    );
    assert!((100..=101).contains(&rep[0].job_runtime()));
    let rep = reports(
        "[j]\nioengine=libaio\niodepth=8\ndirect=1\nbs=4k\nrw=randread\nnumber_ios=100\n",
        &s,
    );
    assert_eq!(rep[0].read.total_ios, 100);
    let rep = reports(
        "[j]\nioengine=libaio\niodepth=8\ndirect=1\nbs=4k\nrw=read\nsize=1m\nloops=3\n",
        &s,
    );
    assert_eq!(rep[0].read.total_ios, 768);
}

/// fio: "time_based requires a runtime/timeout setting" -- it warns, clears
/// time_based and runs the job by size.
#[test]
fn time_based_without_runtime_runs_by_size() {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rep = reports(
            "[j]\nioengine=psync\ndirect=1\nbs=4k\nrw=randread\nsize=1m\ntime_based\n",
            &setup(),
        );
        let _ = tx.send(rep[0].read.total_ios);
    });
    match rx.recv_timeout(std::time::Duration::from_secs(10)) {
        Ok(n) => assert_eq!(n, 256),
        Err(_) => panic!("time_based without runtime still running after 10 s of wall time"),
    }
}

// 7. -------------------------------------------------------------------------

#[test]
fn numjobs_clones_and_group_reporting() {
    let s = setup();
    let base = "[global]\nioengine=libaio\ndirect=1\niodepth=4\nbs=4k\nrw=randread\n\
                time_based\nruntime=500ms\nnumjobs=3\n";
    let separate = reports(&format!("{base}[j]\n"), &s);
    assert_eq!(separate.len(), 3);
    for r in &separate {
        assert_eq!(r.jobname, "j");
        assert!(r.read.total_ios > 0);
    }
    let sum: u64 = separate.iter().map(|r| r.read.total_ios).sum();
    let bytes: u64 = separate.iter().map(|r| r.read.io_bytes).sum();
    let grouped = reports(&format!("{base}group_reporting\n[j]\n"), &s);
    assert_eq!(grouped.len(), 1);
    assert_eq!(grouped[0].members, 3);
    assert_eq!(grouped[0].read.total_ios, sum);
    assert_eq!(grouped[0].read.io_bytes, bytes);
    assert_eq!(grouped[0].read.clat.stat.samples, sum);
    // JSON: one job entry.
    let jf = parse(&format!("{base}group_reporting\n[j]\n"));
    let r = fio_run::run(&jf, &s, None).unwrap();
    let v = report::build(&r, &jf, &s).to_fio_json();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(v["jobs"][0]["read"]["total_ios"].as_u64(), Some(sum));
}

// 8. -------------------------------------------------------------------------

const TWO_JOBS: &str = "\
[global]
ioengine=libaio
direct=1
iodepth=4
bs=4k
rw=randread
time_based
runtime=500ms
[a]
";

#[test]
fn stonewall_starts_the_next_group_after_the_first_ends() {
    let s = setup();
    let r = run(&format!("{TWO_JOBS}[b]\nstonewall\n"), &s);
    let (a, b) = (&r.jobs[0], &r.jobs[1]);
    assert_eq!(a.spec.group_id, 0);
    assert_eq!(b.spec.group_id, 1);
    assert!(
        b.start_ns >= a.end_time,
        "b started at {} before a ended at {}",
        b.start_ns,
        a.end_time
    );
    assert!(a.end_time >= a.start_ns + 500 * MS);
    // Two 500 ms groups back to back: ~1 s of simulated time.
    let span = r.sim_end_ns - a.start_ns;
    assert!((1000 * MS..1002 * MS).contains(&span), "span {span}");
    assert!(r.stats[1].report.read.total_ios > 0);
    // Without stonewall both run at once.
    let r = run(&format!("{TWO_JOBS}[b]\n"), &s);
    assert_eq!(r.jobs[0].start_ns, r.jobs[1].start_ns);
    let span = r.sim_end_ns - r.jobs[0].start_ns;
    assert!((500 * MS..502 * MS).contains(&span), "span {span}");
}

/// fio: `new_group` starts a new *reporting* group only; unlike `stonewall`
/// it does not wait for the jobs before it.
#[test]
fn new_group_reports_separately_but_runs_concurrently() {
    let s = setup();
    let r = run(&format!("{TWO_JOBS}[b]\nnew_group\n"), &s);
    assert_ne!(r.jobs[0].spec.group_id, r.jobs[1].spec.group_id);
    assert_eq!(
        r.jobs[0].start_ns,
        r.jobs[1].start_ns,
        "new_group job started {} ns after the first",
        r.jobs[1].start_ns - r.jobs[0].start_ns
    );
    let span = r.sim_end_ns - r.jobs[0].start_ns;
    assert!((500 * MS..502 * MS).contains(&span), "span {span}");
}

#[test]
fn startdelay_shifts_the_start_not_the_runtime() {
    let s = setup();
    let r = run(&format!("{TWO_JOBS}[b]\nstartdelay=100ms\n"), &s);
    let (a, b) = (&r.jobs[0], &r.jobs[1]);
    assert_eq!(b.start_ns, a.start_ns + 100 * MS);
    assert!((500..=501).contains(&r.stats[1].report.job_runtime()));
    assert!(b.end_time >= a.start_ns + 600 * MS);
}

#[test]
fn group_reporting_sums_per_stonewall_group() {
    let s = setup();
    let text = format!(
        "{TWO_JOBS}numjobs=2\ngroup_reporting\n[b]\nnumjobs=2\ngroup_reporting\nstonewall\n"
    );
    let separate = run(&text, &s);
    let rep = reports(&text, &s);
    assert_eq!(rep.len(), 2);
    for (g, j) in rep.iter().enumerate() {
        assert_eq!(j.groupid, g as u32);
        assert_eq!(j.members, 2);
        let sum: u64 = separate
            .stats
            .iter()
            .filter(|st| st.report.groupid == g as u32)
            .map(|st| st.report.read.total_ios)
            .sum();
        assert_eq!(j.read.total_ios, sum);
    }
}

// 9. -------------------------------------------------------------------------

#[test]
fn two_priorities_give_prios_in_json() {
    let s = setup();
    let text = "[global]\nioengine=libaio\ndirect=1\niodepth=8\nbs=4k\nrw=randread\n\
                time_based\nruntime=300ms\n\
                [mixed]\nprioclass=2\nprio=4\ncmdprio_percentage=30\n\
                [plain]\nprioclass=2\nprio=4\n";
    let jf = parse(text);
    let r = fio_run::run(&jf, &s, None).unwrap();
    let v = report::build(&r, &jf, &s).to_fio_json();
    let mixed = &v["jobs"][0];
    assert_eq!(mixed["jobname"], "mixed");
    let prios = mixed["read"]["prios"]
        .as_array()
        .unwrap_or_else(|| panic!("no prios in {}", mixed["read"]));
    assert_eq!(prios.len(), 2, "{prios:?}");
    let n = |class: u64| -> u64 {
        prios
            .iter()
            .find(|p| p["prioclass"] == class)
            .unwrap_or_else(|| panic!("no class {class} in {prios:?}"))["clat_ns"]["N"]
            .as_u64()
            .unwrap()
    };
    let (rt, be) = (n(1), n(2));
    let total = mixed["read"]["total_ios"].as_u64().unwrap();
    assert_eq!(rt + be, total);
    let share = rt as f64 / total as f64;
    assert!((0.27..0.33).contains(&share), "RT share {share}");
    // One priority: no prios.
    assert!(v["jobs"][1]["read"].get("prios").is_none());

    // prioclass/prio on two jobs summed with group_reporting.
    let text = "[global]\nioengine=psync\ndirect=1\nbs=4k\nrw=randread\ntime_based\n\
                runtime=300ms\ngroup_reporting\n\
                [rt]\nprioclass=1\nprio=0\n[be]\nprioclass=2\nprio=7\n";
    let jf = parse(text);
    let r = fio_run::run(&jf, &s, None).unwrap();
    let v = report::build(&r, &jf, &s).to_fio_json();
    assert_eq!(v["jobs"].as_array().unwrap().len(), 1);
    let prios = v["jobs"][0]["read"]["prios"]
        .as_array()
        .expect("group of two priorities has prios");
    let mut seen: Vec<(u64, u64)> = prios
        .iter()
        .map(|p| {
            (
                p["prioclass"].as_u64().unwrap(),
                p["prio"].as_u64().unwrap(),
            )
        })
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, vec![(1, 0), (2, 7)]);
}

// 10. ------------------------------------------------------------------------

#[test]
fn writes_trims_and_mixes() {
    let s = setup();
    let base_pages = run(
        "[j]\nioengine=psync\ndirect=1\nbs=4k\nrw=randread\nnumber_ios=1\n",
        &s,
    )
    .ftl
    .host_pages_written;
    // 4 KiB random writes, size-bound.
    let jf = parse("[w]\nioengine=libaio\niodepth=8\ndirect=1\nbs=4k\nrw=randwrite\nsize=8m\n");
    let r = fio_run::run(&jf, &s, None).unwrap();
    let w = &r.stats[0].report.write;
    assert_eq!(w.total_ios, 2048);
    assert_eq!(w.io_bytes, w.total_ios * 4096);
    assert_eq!(r.stats[0].report.read.total_ios, 0);
    assert_eq!(r.ftl.host_pages_written - base_pages, 2048);
    let v = report::build(&r, &jf, &s).to_fio_json();
    assert!(
        v["ssdlab"]["device_counters"]["write_pages"]
            .as_u64()
            .unwrap()
            >= 2048,
        "{}",
        v["ssdlab"]
    );
    assert!(v["ssdlab"]["waf"].as_f64().unwrap() >= 1.0);
    assert_eq!(v["jobs"][0]["write"]["io_bytes"].as_u64(), Some(8 << 20));

    // 16 KiB writes: four pages each.
    let r = run(
        "[w]\nioengine=libaio\niodepth=8\ndirect=1\nbs=16k\nrw=randwrite\nsize=4m\n",
        &s,
    );
    let w = &r.stats[0].report.write;
    assert_eq!(w.total_ios, 256);
    assert_eq!(w.io_bytes, 4 << 20);
    assert_eq!(r.ftl.host_pages_written - base_pages, 1024);

    // randrw, rwmixread=70.
    let rep = reports(
        "[m]\nioengine=libaio\niodepth=8\ndirect=1\nbs=4k\nrw=randrw\nrwmixread=70\n\
         time_based\nruntime=500ms\n",
        &s,
    );
    let (rd, wr) = (rep[0].read.total_ios, rep[0].write.total_ios);
    let share = rd as f64 / (rd + wr) as f64;
    assert!(
        (0.67..=0.73).contains(&share),
        "read share {share} ({rd}/{wr})"
    );
    assert_eq!(rep[0].read.io_bytes, rd * 4096);
    assert_eq!(rep[0].write.io_bytes, wr * 4096);

    // Trims.
    let r = run(
        "[t]\nioengine=libaio\niodepth=4\ndirect=1\nbs=64k\nrw=randtrim\nsize=4m\n",
        &s,
    );
    let t = &r.stats[0].report.trim;
    assert_eq!(t.total_ios, 64);
    assert_eq!(t.io_bytes, 4 << 20);
    assert!(r.ftl.trims > 0, "{:?}", r.ftl);
    let r = run(
        "[t]\nioengine=psync\ndirect=1\nbs=4k\nrw=trim\nsize=1m\n",
        &s,
    );
    assert_eq!(r.stats[0].report.trim.total_ios, 256);
}

// 11. ------------------------------------------------------------------------

#[test]
fn same_setup_same_json() {
    let text = "[global]\ndirect=1\nbs=4k\ntime_based\nruntime=300ms\n\
                [a]\nioengine=libaio\niodepth=16\nrw=randrw\nrwmixread=60\nprioclass=2\n\
                [b]\nioengine=psync\nrw=randread\nthinktime=500\nprioclass=1\n\
                [c]\nioengine=libaio\niodepth=4\nrw=randwrite\nrate_iops=2000\n\
                rate_process=poisson\ncmdprio_percentage=20\n";
    // Every registered scheduler, with its defaults, and one tuned K2.
    let scheds = ssdlab_sched::REGISTRY.iter().map(|e| e.name);
    for sched in scheds.chain(["k2:max_inflight=4"]) {
        let s = setup_with("seed004", sched, 0.5);
        let a = json_without_time(text, &s);
        let b = json_without_time(text, &s);
        assert!(a == b, "{sched}: two runs differ");
        assert!(a["jobs"][0]["read"]["total_ios"].as_u64().unwrap() > 0);
    }
    // A different seed is a different run (the comparison can fail).
    let s1 = setup();
    let mut s2 = setup();
    s2.seed = 8;
    assert!(json_without_time(text, &s1) != json_without_time(text, &s2));
}

// 12. ------------------------------------------------------------------------

fn k2_study(sched: &str) -> (JobReport, u64, RunResult) {
    let text =
        include_str!("../../../examples/k2/randread.fio").replace("runtime=100s", "runtime=2s");
    assert!(text.contains("runtime=2s"));
    let s = setup_with("consumer-tlc-250g", sched, 0.5);
    let jf = parse(&text);
    let r = fio_run::run(&jf, &s, None).expect("K2 study runs");
    let rep = report::build(&r, &jf, &s);
    let rt = rep
        .jobs
        .iter()
        .find(|j| j.jobname == "rt")
        .expect("rt job")
        .clone();
    let total: u64 = rep.jobs.iter().map(|j| j.read.io_bytes).sum();
    (rt, total, r)
}

fn p999(j: &JobReport) -> u64 {
    j.read.clat.percentiles(&[99.9])[0].1
}

#[test]
fn k2_trades_bandwidth_for_rt_tail_latency() {
    let (rt_none, bytes_none, r_none) = k2_study("none");
    let (rt_k2, bytes_k2, r_k2) = k2_study("k2:max_inflight=1");
    // The RT job is psync with a 2 ms think time: ~1000 I/Os in 2 s.
    assert!(rt_none.read.total_ios > 500 && rt_k2.read.total_ios > 500);
    let (a, b) = (p999(&rt_none), p999(&rt_k2));
    assert!(
        b * 5 <= a,
        "RT clat p99.9: none {a} ns, k2:max_inflight=1 {b} ns"
    );
    assert!(
        bytes_k2 < bytes_none,
        "total bytes: k2 {bytes_k2} vs none {bytes_none}"
    );
    assert_eq!(r_k2.scheduler, "k2");
    assert_eq!(r_none.scheduler, "none");
    // Every request dispatched went to the device and came back.
    assert_eq!(r_k2.host.dispatched, r_k2.host.requests);
    // The run's counters do not expose the device queue's high-water mark,
    // so K2's bound itself is checked in host_path.rs, not here.
}

// 13. ------------------------------------------------------------------------

#[test]
fn errors_name_the_problem() {
    let s = setup();
    // A region smaller than one block.
    for text in [
        "[tiny]\nioengine=psync\nbs=4k\nrw=randread\nsize=2k\n",
        "[tiny]\nioengine=psync\nbs=4k\nrw=randread\noffset=100%\n",
    ] {
        let err = match fio_run::run(&parse(text), &s, None) {
            Ok(_) => panic!("{text:?} ran"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("tiny"), "error does not name the job: {err}");
        assert!(
            err.contains("test.fio"),
            "error does not name the file: {err}"
        );
    }
    // Unknown scheduler and bad tunables.
    let text = "[j]\nioengine=psync\nrw=randread\nsize=1m\n";
    for spec in [
        "cfq",
        "k2:max_inflight=0",
        "k2:no_such=1",
        "mq-deadline:read_expire",
    ] {
        let mut bad = setup();
        bad.scheduler = spec.to_string();
        let err = match fio_run::run(&parse(text), &bad, None) {
            Ok(_) => panic!("scheduler {spec:?} accepted"),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("scheduler"), "{spec}: {err}");
    }
    let mut bad = setup();
    bad.scheduler = "cfq".into();
    let err = fio_run::run(&parse(text), &bad, None)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("cfq"), "{err}");
    // An empty job file.
    let err = fio_run::run(&parse("[global]\nbs=4k\n"), &s, None)
        .err()
        .expect("no job is an error")
        .to_string();
    assert!(err.contains("no job"), "{err}");
}

// Review fixes ---------------------------------------------------------------

#[test]
fn size_is_capped_at_the_device_end_and_number_ios_zero_is_no_limit() {
    let s = setup();
    let bytes = Preset::load_device("seed004").map(|c| {
        let l = c.layout();
        l.logical_pages as u64 * l.page_size as u64
    });
    let bytes = bytes.unwrap();
    let rep = reports(
        "[j]\nioengine=libaio\niodepth=16\ndirect=1\nbs=1m\nrw=read\noffset=50%\nsize=100%\n",
        &s,
    );
    // One pass over the second half of the device, not two.
    let expected = (bytes - bytes / 2 / (1 << 20) * (1 << 20)) / (1 << 20);
    assert!(
        rep[0].read.total_ios.abs_diff(expected) <= 1,
        "{} vs {expected}",
        rep[0].read.total_ios
    );
    let rep = reports(&format!("{RANDREAD_PSYNC}[j]\nnumber_ios=0\n"), &s);
    assert!(
        rep[0].read.total_ios > 1000,
        "number_ios=0 is unlimited: {}",
        rep[0].read.total_ios
    );
}

#[test]
fn tag_waits_count_as_submission_latency() {
    let mut s = setup();
    s.host.nr_requests = 8;
    s.scheduler = "mq-deadline".into();
    let rep = reports("[j]\nioengine=libaio\niodepth=64\ndirect=1\nbs=4k\nrw=randread\ntime_based\nruntime=200ms\n", &s);
    let r = &rep[0].read;
    // 56 of 64 I/Os wait for one of 8 tags: most of the latency is slat.
    assert!(
        r.slat.stat.mean > r.clat.stat.mean,
        "slat {} clat {}",
        r.slat.stat.mean,
        r.clat.stat.mean
    );
}

#[test]
fn async_thinktime_waits_for_outstanding_io_first() {
    let s = setup();
    let rep = reports(
        "[j]\nioengine=libaio\niodepth=8\niodepth_batch_submit=8\ndirect=1\nbs=4k\nrw=randread\ntime_based\nruntime=1s\nthinktime=2000\nthinktime_blocks=8\n",
        &s,
    );
    let r = &rep[0].read;
    // A batch of 8, its completion, then 2 ms: about 8 / (2 ms + one batch's latency).
    let cycle = 2.0 * MS as f64 + r.lat.stat.max as f64;
    let upper = 8.0 * 1e9 / (2.0 * MS as f64);
    let lower = 8.0 * 1e9 / cycle;
    let iops = exact_iops(r);
    assert!(
        iops <= upper && iops >= 0.9 * lower,
        "{iops} not in [{lower}, {upper}]"
    );
}

#[test]
fn each_job_dispatches_on_its_own_hardware_queue() {
    // Host-CPU bound: tiny device times, many jobs; two queues, two CPUs.
    let run = |hq: u32| {
        let mut s = setup();
        s.host.hw_queues = hq;
        s.host.costs.dispatch_ns = 20_000;
        let rep = reports(
            "[global]\nioengine=libaio\niodepth=16\ndirect=1\nbs=4k\nrw=randread\ntime_based\nruntime=200ms\n[a]\n[b]\n",
            &s,
        );
        rep.iter().map(|r| r.read.total_ios).sum::<u64>()
    };
    let (one, two) = (run(1), run(2));
    assert!(
        two as f64 > 1.6 * one as f64,
        "1 queue {one}, 2 queues {two}"
    );
}
