//! Every option of fio is known by name and alias: options with no effect
//! on what a block device sees are accepted and listed as ignored, fio's
//! deprecated ones are refused as fio refuses them, and the forms fio
//! accepts in values (a trailing empty zone) are accepted.

use ssdlab_fio::{parse_str, RandomDistribution};

fn parse(text: &str) -> Result<ssdlab_fio::JobFile, ssdlab_fio::FioError> {
    parse_str(text, "t.fio", &|_| None)
}

#[test]
fn options_without_effect_are_accepted_and_listed() {
    let jf =
        parse("[j]\nrw=read\nbuffer_pattern=0xdeadbeef\nlog_entries=1024\nratemin=1m\nthreads=4\n")
            .unwrap();
    let ignored: Vec<(&str, usize)> = jf
        .ignored
        .iter()
        .map(|o| (o.option.as_str(), o.line))
        .collect();
    assert_eq!(
        ignored,
        vec![
            ("buffer_pattern", 3),
            ("log_entries", 4),
            ("ratemin", 5),
            ("threads", 6)
        ]
    );
    assert!(jf.ignored[0].reason.contains("buffer contents"));
}

#[test]
fn aliases_of_fio_are_names_here() {
    for (alias, name) in [("fileoffset=4k", "offset"), ("nr_files=1", "nrfiles")] {
        let err_or_ok = parse(&format!("[j]\nrw=read\n{alias}\n"));
        if let Err(e) = &err_or_ok {
            assert!(
                !e.message.contains("not a fio option"),
                "{alias} ({name}): {e}"
            );
        }
    }
}

#[test]
fn deprecated_and_unknown_options_are_refused() {
    let e = parse("[j]\nrwmixcycle=10\n").unwrap_err();
    assert!(e.message.contains("deprecated"), "{e}");
    let e = parse("[j]\nfrobnicate=1\n").unwrap_err();
    assert!(e.message.contains("not a fio option"), "{e}");
    let e = parse("[j]\nzonemode=zbd\n").unwrap_err();
    assert!(e.message.contains("does not model"), "{e}");
}

#[test]
fn an_empty_zone_range_takes_what_is_left() {
    let jf = parse("[j]\nrw=randread\nrandom_distribution=zoned:50/5:30/15:20/\n").unwrap();
    assert_eq!(
        jf.jobs[0].random_distribution,
        RandomDistribution::Zoned(vec![(50, 5), (30, 15), (20, 80)])
    );
}
