//! Corpus tests: every file under corpus/good parses to the expected jobs;
//! every file under corpus/bad fails with the error its `; expect:` line names.

use std::path::{Path, PathBuf};

use ssdlab_fio::{
    parse_file, parse_file_with, parse_str, ErrorKind, IoEngine, JobFile, JobSpec, ParseOptions,
    PrioClass, RandomDistribution, RateProcess, RwMode, RwSequencer, SizeSpec,
};

const KIB: u64 = 1024;
const MIB: u64 = 1024 * 1024;
const GIB: u64 = 1024 * MIB;
const S: u64 = 1_000_000_000;
const MS: u64 = 1_000_000;
const US: u64 = 1_000;

fn corpus(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/corpus")
        .join(rel)
}

fn no_env(_: &str) -> Option<String> {
    None
}

fn good(rel: &str) -> JobFile {
    match parse_file(&corpus(rel), &no_env) {
        Ok(j) => j,
        Err(e) => panic!("{rel}: {e}"),
    }
}

fn job<'a>(jf: &'a JobFile, name: &str) -> &'a JobSpec {
    jf.jobs
        .iter()
        .find(|j| j.name == name)
        .unwrap_or_else(|| panic!("no job {name}"))
}

fn opt<'a>(j: &'a JobSpec, name: &str) -> Option<&'a str> {
    j.options
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn globals_inherit() {
    let jf = good("good/globals_inherit.fio");
    assert_eq!(jf.jobs.len(), 2);
    let a = job(&jf, "inherits");
    assert_eq!(a.ioengine, IoEngine::Libaio);
    assert!(a.direct);
    assert_eq!(a.iodepth, 16);
    assert_eq!(a.rw, RwMode::RandRead);
    assert_eq!(a.bs.read, 4 * KIB);
    assert_eq!(a.runtime_ns, 30 * S);
    let b = job(&jf, "overrides");
    assert_eq!(b.iodepth, 4);
    assert_eq!(b.rw, RwMode::Write);
    assert_eq!(b.bs.write, 64 * KIB);
    assert_eq!(b.ioengine, IoEngine::Libaio);
    // Raw options: globals first, overrides replace in place.
    let keys: Vec<&str> = b.options.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        ["ioengine", "direct", "iodepth", "bs", "rw", "runtime"]
    );
    assert_eq!(opt(b, "iodepth"), Some("4"));
    assert_eq!(opt(b, "direct"), Some("1"));
    assert_eq!(jf.global_options.len(), 6);
    assert_eq!(jf.global_options[0], ("ioengine".into(), "libaio".into()));
}

#[test]
fn two_global_sections() {
    let jf = good("good/two_globals.fio");
    let first = job(&jf, "first");
    assert_eq!(first.iodepth, 8);
    assert_eq!(first.rw, RwMode::Read, "a job sees only globals above it");
    let second = job(&jf, "second");
    assert_eq!(second.iodepth, 2);
    assert_eq!(second.rw, RwMode::RandWrite);
    assert_eq!(
        jf.global_options,
        vec![
            ("iodepth".to_string(), "2".to_string()),
            ("rw".to_string(), "randwrite".to_string())
        ]
    );
}

#[test]
fn numjobs_clones() {
    let jf = good("good/numjobs.fio");
    assert_eq!(jf.jobs.len(), 4);
    for (k, j) in jf.jobs[..3].iter().enumerate() {
        assert_eq!(j.name, "workers");
        assert_eq!(j.clone_index, k as u32);
        assert_eq!(j.numjobs, 3);
        assert!(j.group_reporting);
        assert_eq!(j.group_id, 0);
        assert_eq!(j.region(GIB), (MIB + 10 * MIB * k as u64, 10 * MIB));
    }
    assert!(jf.jobs[0].stonewall);
    assert!(!jf.jobs[1].stonewall, "clones do not stonewall");
    let single = &jf.jobs[3];
    assert_eq!((single.name.as_str(), single.clone_index), ("single", 0));
    assert_eq!(single.group_id, 0);
}

#[test]
fn suffixes() {
    let jf = good("good/suffixes.fio");
    let b = job(&jf, "binary");
    assert_eq!(b.size, Some(SizeSpec::Bytes(2 * GIB)));
    assert_eq!(b.io_size, Some(SizeSpec::Bytes(512_000)));
    assert_eq!(b.offset, SizeSpec::Bytes(4096));
    assert_eq!(b.bs.read, 16 * KIB);
    assert_eq!(b.runtime_ns, 120 * S);
    assert_eq!(b.ramp_time_ns, 1500 * MS);
    assert_eq!(b.startdelay_ns, 250 * US);
    assert_eq!(b.thinktime_ns, 3 * MS);
    assert_eq!(b.thinktime_spin_ns, 500 * US);
    let d = job(&jf, "decimal");
    assert_eq!(d.kb_base, 1000);
    assert_eq!(d.size, Some(SizeSpec::Bytes(2_000_000_000)));
    assert_eq!(d.io_size, Some(SizeSpec::Bytes(512 * KIB)));
    assert_eq!(d.bs.read, 16_000);
    assert_eq!(d.runtime_ns, 3600 * S);
    assert_eq!((d.startdelay_ns, d.startdelay_max_ns), (S, 3 * S));
    let p = job(&jf, "percent");
    assert_eq!(p.size, Some(SizeSpec::Percent(20.0)));
    assert_eq!(p.offset, SizeSpec::Percent(50.0));
    assert_eq!(p.region(1000 * 4096), (500 * 4096, 200 * 4096));
}

#[test]
fn comments() {
    let jf = good("good/comments.fio");
    assert_eq!(jf.jobs.len(), 1);
    let j = &jf.jobs[0];
    assert_eq!(j.name, "commented");
    assert_eq!(j.bs.read, 8 * KIB);
    assert_eq!(j.iodepth, 4);
    assert_eq!(j.rw, RwMode::RandWrite);
    assert_eq!(opt(j, "bs"), Some("8k"));
}

#[test]
fn include_relative_and_nested() {
    let jf = good("good/include.fio");
    let j = &jf.jobs[0];
    assert!(j.group_reporting);
    assert_eq!(j.runtime_ns, 10 * S);
    assert!(j.time_based, "nested include");
    assert_eq!(j.ioengine, IoEngine::Libaio);
    assert_eq!(j.iodepth, 4);
    assert_eq!(j.filename.as_deref(), Some("/dev/nullb0"));
    assert_eq!(j.rw, RwMode::RandRead);
}

#[test]
fn parse_str_resolves_includes_next_to_name() {
    let name = corpus("good/virtual.fio");
    let text = "[j]\ninclude inc/engine.fio\n";
    let jf = parse_str(text, name.to_str().unwrap(), &no_env).unwrap();
    assert_eq!(jf.jobs[0].iodepth, 4);
}

#[test]
fn env_vars() {
    let env = |k: &str| match k {
        "SIZE" => Some("64m".to_string()),
        "NUMJOBS" => Some("4".to_string()),
        "DEV" => Some("nvme0n1".to_string()),
        _ => None,
    };
    let jf = parse_file(&corpus("good/env.fio"), &env).unwrap();
    assert_eq!(jf.jobs.len(), 4);
    let j = &jf.jobs[0];
    assert_eq!(j.size, Some(SizeSpec::Bytes(64 * MIB)));
    assert_eq!(j.filename.as_deref(), Some("/dev/nvme0n1"));
    assert_eq!(opt(j, "size"), Some("64m"));
    // Unset variables expand to nothing: size= is then an error on its line.
    let e = parse_file(&corpus("good/env.fio"), &no_env).unwrap_err();
    assert_eq!((e.line, e.option.as_deref()), (3, Some("size")));
}

#[test]
fn stonewall_groups() {
    let jf = good("good/stonewall.fio");
    let groups: Vec<(String, u32)> = jf
        .jobs
        .iter()
        .map(|j| (j.name.clone(), j.group_id))
        .collect();
    let want = [
        ("a", 0),
        ("b", 0),
        ("c", 1),
        ("d", 1),
        ("e", 2),
        ("f", 3),
        ("f", 3),
    ];
    assert_eq!(groups.len(), want.len());
    for ((n, g), (wn, wg)) in groups.iter().zip(want) {
        assert_eq!((n.as_str(), *g), (wn, wg));
    }
}

#[test]
fn bssplit_and_ranges() {
    let jf = good("good/bssplit.fio");
    let s = job(&jf, "split");
    let want = vec![(4 * KIB, 50), (KIB, 25), (32 * KIB, 25)];
    assert_eq!(s.bssplit.read, want);
    assert_eq!(s.bssplit.write, want);
    assert_eq!(s.bssplit.trim, want);
    assert_eq!(s.min_bs(), KIB);
    let p = job(&jf, "split-per-dir");
    assert_eq!(p.bssplit.read, vec![(2 * KIB, 50), (4 * KIB, 50)]);
    assert_eq!(p.bssplit.write, vec![(4 * KIB, 90), (8 * KIB, 10)]);
    assert_eq!(p.bssplit.trim, p.bssplit.write);
    let r = job(&jf, "range");
    assert_eq!(r.bsrange.read, Some((KIB, 4 * KIB)));
    assert_eq!(
        r.bsrange.write,
        Some((2 * KIB, 8 * KIB)),
        "reversed range swapped"
    );
    assert_eq!(r.bsrange.trim, r.bsrange.write);
    let b = job(&jf, "bs-per-dir");
    assert_eq!(
        (b.bs.read, b.bs.write, b.bs.trim),
        (8 * KIB, 32 * KIB, 4 * KIB)
    );
    let b = job(&jf, "bs-blank-read");
    assert_eq!(
        (b.bs.read, b.bs.write, b.bs.trim),
        (4 * KIB, 8 * KIB, 8 * KIB)
    );
}

#[test]
fn rw_suffix_and_mix() {
    let jf = good("good/rw_suffix.fio");
    let r = job(&jf, "rand8");
    assert_eq!(
        (r.rw, r.rw_sequencer_n, r.rw_seq_add),
        (RwMode::RandRead, 8, 0)
    );
    assert_eq!(r.rw_sequencer, RwSequencer::Identical);
    let h = job(&jf, "holes");
    assert_eq!(
        (h.rw, h.rw_sequencer_n, h.rw_seq_add),
        (RwMode::Write, 1, 4 * KIB as i64)
    );
    assert_eq!(opt(h, "rw"), Some("write:4k"));
    let m = job(&jf, "mixed");
    assert_eq!((m.rw, m.rwmixread), (RwMode::RandRW, 70));
    assert_eq!(job(&jf, "trim").rw, RwMode::Trim);
}

#[test]
fn cmdprio() {
    let jf = good("good/cmdprio.fio");
    let b = job(&jf, "both");
    assert_eq!(b.ioengine, IoEngine::IoUring);
    assert_eq!(
        (b.cmdprio_percentage.read, b.cmdprio_percentage.write),
        (10, 10)
    );
    assert_eq!(b.cmdprio_class.read, PrioClass::Rt);
    assert_eq!((b.cmdprio.read, b.cmdprio.write), (2, 2));
    assert_eq!((b.prio, b.prioclass), (None, None));
    let p = job(&jf, "per-dir");
    assert_eq!(
        (p.cmdprio_percentage.read, p.cmdprio_percentage.write),
        (10, 30)
    );
    assert_eq!(
        (p.cmdprio_class.read, p.cmdprio_class.write),
        (PrioClass::Be, PrioClass::Idle)
    );
    assert_eq!((p.cmdprio.read, p.cmdprio.write), (0, 7));
    assert_eq!(
        (p.prio, p.prioclass, p.nice),
        (Some(7), Some(PrioClass::Idle), -5)
    );
}

#[test]
fn distributions() {
    let jf = good("good/distributions.fio");
    let d = |n: &str| job(&jf, n).random_distribution.clone();
    assert_eq!(d("uniform"), RandomDistribution::Random);
    assert_eq!(d("zipf"), RandomDistribution::Zipf(1.2));
    assert_eq!(d("zipf-center"), RandomDistribution::Zipf(0.8));
    assert_eq!(job(&jf, "zipf-center").random_center, Some(0.25));
    assert_eq!(d("pareto"), RandomDistribution::Pareto(0.9));
    assert_eq!(d("normal"), RandomDistribution::Normal(20.0));
    assert_eq!(
        d("zoned"),
        RandomDistribution::Zoned(vec![(60, 10), (30, 20), (8, 30), (2, 40)])
    );
    for j in &jf.jobs {
        assert!(j.norandommap && !j.randrepeat);
        assert_eq!(j.randseed, Some(42));
    }
}

#[test]
fn flags_and_aliases() {
    let jf = good("good/flags_aliases.fio");
    let f = job(&jf, "flags");
    assert!(f.direct && f.time_based && f.group_reporting && f.norandommap && f.lat_percentiles);
    assert_eq!(f.write_lat_log.as_deref(), Some(""));
    assert_eq!(f.rw, RwMode::RandRead);
    assert_eq!(f.bs.read, 16 * KIB);
    assert_eq!(f.runtime_ns, 5 * S);
    assert_eq!(
        (f.iodepth_batch_submit, f.iodepth_batch_complete_min),
        (4, 2)
    );
    assert_eq!(opt(f, "direct"), Some("1"));
    assert_eq!(opt(f, "thread"), Some(""));
    // Defaults.
    assert_eq!(f.ioengine, IoEngine::Psync);
    assert!(f.ioengine.is_sync());
    assert_eq!(f.iodepth, 1);
    assert_eq!(f.rwmixread, 50);
    assert_eq!(f.thinktime_blocks, 1);
    assert_eq!(f.percentile_list.len(), 17);
    let b = job(&jf, "renamed");
    assert!(!b.direct);
    assert_eq!(b.bs.read, 4096);
}

#[test]
fn rates_and_reporting() {
    let jf = good("good/rate.fio");
    let j = &jf.jobs[0];
    assert_eq!(
        (j.rate.read, j.rate.write, j.rate.trim),
        (MIB, 500 * KIB, 500 * KIB)
    );
    assert_eq!(
        (j.rate_iops.read, j.rate_iops.write, j.rate_iops.trim),
        (100, 0, 0)
    );
    assert_eq!(j.rate_process, RateProcess::Poisson);
    assert_eq!((j.thinktime_ns, j.thinktime_blocks), (2 * MS, 4));
    assert_eq!(j.percentile_list, vec![50.0, 99.0, 99.9, 99.99]);
    assert_eq!(j.log_avg_msec, 1000);
}

fn check_k2(rw: &str, mode: RwMode, jf: &JobFile) {
    assert_eq!(jf.jobs.len(), 4, "{rw}");
    let total = 250_059_350_016u64; // 970 EVO Plus 250 GB: 488,397,168 sectors
    let mut regions = Vec::new();
    for j in &jf.jobs {
        assert_eq!(j.rw, mode);
        assert!(j.direct && j.time_based);
        assert_eq!(j.bs, ssdlab_fio::PerDir::all(4096));
        assert_eq!(j.runtime_ns, 100 * S);
        assert_eq!(j.group_id, 0);
        regions.push(j.region(total));
    }
    for bg in &jf.jobs[..3] {
        assert_eq!(bg.ioengine, IoEngine::Libaio);
        assert_eq!((bg.iodepth, bg.effective_iodepth()), (32, 32));
        assert_eq!(bg.prioclass, Some(PrioClass::Be));
        assert_eq!(bg.size, Some(SizeSpec::Percent(15.0)));
        assert_eq!(bg.thinktime_ns, 0);
    }
    let rt = &jf.jobs[3];
    assert_eq!(rt.name, "rt");
    assert_eq!(rt.ioengine, IoEngine::Psync);
    assert_eq!((rt.iodepth, rt.effective_iodepth()), (1, 1));
    assert_eq!((rt.prioclass, rt.prio), (Some(PrioClass::Rt), Some(0)));
    assert_eq!(rt.thinktime_ns, 2 * MS);
    assert_eq!(rt.offset, SizeSpec::Percent(45.0));
    assert_eq!(rt.size, Some(SizeSpec::Percent(5.0)));
    // Four disjoint regions, 15/15/15/5 percent, block aligned.
    for w in regions.windows(2) {
        assert!(w[0].0 + w[0].1 <= w[1].0, "{rw}: overlap {w:?}");
    }
    for (start, len) in &regions {
        assert_eq!((start % 4096, len % 4096), (0, 0));
    }
    assert!(regions[3].0 + regions[3].1 <= total / 2);
    assert_eq!(opt(rt, "ioengine"), Some("psync"));
    assert_eq!(opt(rt, "rw"), Some(rw));
    let gkeys: Vec<&str> = jf.global_options.iter().map(|(k, _)| k.as_str()).collect();
    for k in [
        "ioengine",
        "direct",
        "cpumask",
        "bs",
        "rw",
        "time_based",
        "runtime",
    ] {
        assert!(gkeys.contains(&k), "{k}");
    }
}

#[test]
fn k2_fixtures() {
    for (rw, mode) in [
        ("read", RwMode::Read),
        ("randread", RwMode::RandRead),
        ("write", RwMode::Write),
        ("randwrite", RwMode::RandWrite),
    ] {
        let jf = good(&format!("k2/{rw}.fio"));
        check_k2(rw, mode, &jf);
        // The copy under examples/k2 is identical.
        let ex = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/k2/{rw}.fio"));
        if ex.exists() {
            assert_eq!(
                std::fs::read_to_string(&ex).unwrap(),
                std::fs::read_to_string(corpus(&format!("k2/{rw}.fio"))).unwrap(),
                "examples/k2/{rw}.fio differs from the test fixture"
            );
        }
    }
}

/// Parse `; expect: kind=K line=N option=O [file=F]` from a bad file's first line.
fn expectation(path: &Path) -> (String, usize, Option<String>, PathBuf) {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap_or("");
    let spec = first
        .strip_prefix("; expect:")
        .unwrap_or_else(|| panic!("{}: missing '; expect:' line", path.display()));
    let (mut kind, mut line, mut option, mut file) = (String::new(), 0, None, path.to_path_buf());
    for kv in spec.split_whitespace() {
        let (k, v) = kv.split_once('=').unwrap();
        match k {
            "kind" => kind = v.to_string(),
            "line" => line = v.parse().unwrap(),
            "option" => option = (v != "-").then(|| v.to_string()),
            "file" => file = path.parent().unwrap().join(v),
            _ => panic!("bad key {k}"),
        }
    }
    (kind, line, option, file)
}

#[test]
fn bad_corpus() {
    let dir = corpus("bad");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "fio"))
        .collect();
    files.sort();
    assert!(files.len() >= 25, "only {} bad files", files.len());
    for path in files {
        let (kind, line, option, file) = expectation(&path);
        let err = match parse_file(&path, &no_env) {
            Ok(_) => panic!("{}: parsed, expected {kind}", path.display()),
            Err(e) => e,
        };
        let shown = err.to_string();
        assert_eq!(
            format!("{:?}", err.kind),
            kind,
            "{}: {shown}",
            path.display()
        );
        assert_eq!(err.line, line, "{}: {shown}", path.display());
        assert_eq!(err.option, option, "{}: {shown}", path.display());
        assert_eq!(
            Path::new(&err.file).canonicalize().unwrap(),
            file.canonicalize().unwrap(),
            "{}: {shown}",
            path.display()
        );
        assert!(
            shown.starts_with(&format!("{}:{}: ", err.file, err.line)),
            "{shown}"
        );
    }
}

#[test]
fn error_message_format() {
    let e = parse_str("[job]\n\niodepth=abc\n", "jobs.fio", &no_env).unwrap_err();
    assert_eq!(
        e.to_string(),
        "jobs.fio:3: option 'iodepth': value 'abc' is not an integer"
    );
    let e = parse_str("[job]\nfrobnicate=1\n", "jobs.fio", &no_env).unwrap_err();
    assert_eq!(
        e.to_string(),
        "jobs.fio:2: option 'frobnicate': is not a fio option"
    );
}

#[test]
fn ignore_unknown_relaxes() {
    let path = corpus("bad/unknown_option.fio");
    let jf = parse_file_with(
        &path,
        &no_env,
        &ParseOptions {
            ignore_unknown: true,
        },
    )
    .unwrap();
    assert_eq!(jf.jobs.len(), 1);
    assert_eq!(jf.ignored.len(), 1);
    assert_eq!(
        (jf.ignored[0].line, jf.ignored[0].option.as_str()),
        (3, "iodepht")
    );
    assert!(jf.jobs[0].options.is_empty());
    // Malformed values of known options are still errors.
    let path = corpus("bad/iodepth_not_int.fio");
    assert!(parse_file_with(
        &path,
        &no_env,
        &ParseOptions {
            ignore_unknown: true
        }
    )
    .is_err());
}

#[test]
fn missing_file_is_an_error() {
    let e = parse_file(&corpus("good/nope.fio"), &no_env).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Io);
    assert_eq!(e.line, 0);
}

#[test]
fn effective_iodepth_rules() {
    let jf = parse_str(
        "[a]\nioengine=libaio\niodepth=8\n[b]\nioengine=libaio\ndirect=1\niodepth=8\n[c]\nioengine=sync\niodepth=8\n",
        "x.fio",
        &no_env,
    )
    .unwrap();
    let d: Vec<u32> = jf.jobs.iter().map(JobSpec::effective_iodepth).collect();
    assert_eq!(d, [1, 8, 1]);
}

#[test]
fn empty_and_global_only_files() {
    assert!(parse_str("", "x.fio", &no_env).unwrap().jobs.is_empty());
    let jf = parse_str("[global]\nbs=8k\n", "x.fio", &no_env).unwrap();
    assert!(jf.jobs.is_empty());
    assert_eq!(
        jf.global_options,
        vec![("bs".to_string(), "8k".to_string())]
    );
}

#[test]
fn cpu_affinity_is_read_and_pins_a_job_to_one_cpu() {
    let jf = parse_str(
        "[global]\ncpumask=8\n[a]\n[b]\ncpus_allowed=0,2-3\ncpus_allowed_policy=split\n[c]\ncpus_allowed=1-2\n",
        "jobs.fio",
        &no_env,
    )
    .unwrap();
    let (a, b, c) = (job(&jf, "a"), job(&jf, "b"), job(&jf, "c"));
    assert_eq!(a.cpus_allowed.as_deref(), Some(&[3][..]));
    assert_eq!(a.pinned_cpu(0), Some(3));
    // Split: the job's index in the file picks a CPU of the set.
    assert_eq!(b.cpus_allowed.as_deref(), Some(&[0, 2, 3][..]));
    assert_eq!((b.pinned_cpu(1), b.pinned_cpu(4)), (Some(2), Some(2)));
    // Shared over two CPUs: not pinned to either.
    assert_eq!(c.pinned_cpu(2), None);
    assert_eq!(JobSpec::with_defaults("d", "f", 1).pinned_cpu(0), None);
}

#[test]
fn a_cpu_set_that_names_no_cpu_is_an_error_at_its_line() {
    for (text, msg) in [
        (
            "[job]\ncpumask=0\n",
            "jobs.fio:2: option 'cpumask': mask 0 allows no CPU",
        ),
        (
            "[job]\n\ncpus_allowed=3-1\n",
            "jobs.fio:3: option 'cpus_allowed': range '3-1' in '3-1' runs backwards",
        ),
        (
            "[job]\ncpus_allowed_policy=spread\n",
            "jobs.fio:2: option 'cpus_allowed_policy': value 'spread' is not one of: shared, split",
        ),
    ] {
        let e = parse_str(text, "jobs.fio", &no_env).unwrap_err();
        assert_eq!(e.to_string(), msg);
    }
}
