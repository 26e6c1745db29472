//! `reproduce`: every study of the registry is a subcommand; `reproduce
//! all`'s agreement column is each study's own "Against the paper" table,
//! and bad flags exit 2.

mod support;

use support::ssdlab;

/// The `agrees` cells of the "Against the paper" table in a report.md.
fn report_verdicts(report: &str) -> Vec<String> {
    let section = &report[report.find("## Against the paper").expect("the section")..];
    section
        .lines()
        .skip_while(|l| !l.starts_with("| finding |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_end_matches('|')
                .rsplit('|')
                .next()
                .unwrap()
                .trim()
                .to_string()
        })
        .collect()
}

#[test]
fn the_index_agrees_with_the_studys_own_table() {
    let out = std::env::temp_dir().join(format!("ssdlab-all-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let (code, stdout, stderr) = ssdlab(&[
        "reproduce",
        "all",
        "--study",
        "stb",
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("index.html"), "{stdout}");
    let report = std::fs::read_to_string(out.join("stb/report.md")).unwrap();
    let index = std::fs::read_to_string(out.join("index.md")).unwrap();
    let verdicts = report_verdicts(&report);
    assert!(
        verdicts.len() >= 3 && verdicts.iter().all(|v| v == "yes" || v == "no"),
        "{verdicts:?}"
    );
    let agree = verdicts.iter().filter(|v| *v == "yes").count();
    let tally = format!("{agree} of {} agree", verdicts.len());
    let glance = index
        .lines()
        .find(|l| l.starts_with("| [Selective time-out bundling](stb/report.html)"))
        .expect("the study's glance row");
    assert!(glance.contains(&tally), "{glance} vs {tally}");
    // Every row of the report's table is on the index, word for word.
    let table = &report[report.find("| finding |").unwrap()..];
    for row in table.lines().take_while(|l| l.starts_with('|')) {
        assert!(index.contains(row), "{row}");
    }
    assert!(!out.join("k2").exists(), "only the study asked for");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn an_unknown_study_exits_2() {
    let (code, _, stderr) = ssdlab(&["reproduce", "all", "--study", "k3"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("k3") && stderr.contains("gc-ondemand"),
        "{stderr}"
    );
}

#[test]
fn reproduce_offers_every_registered_study() {
    let (code, stdout, _) = ssdlab(&["reproduce", "--help"]);
    assert_eq!(code, 0);
    for s in ssdlab_studies::registry::STUDIES {
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{} ", s.name)))
            .unwrap_or_else(|| panic!("no {} in\n{stdout}", s.name));
        assert!(line.contains(s.about), "{line}");
    }
}
