//! `reproduce all`'s index: one page that leads to every study's report and
//! says, per study, how many of the paper's findings ssdlab agrees with and
//! where it differs. The findings are the studies' own ("Against the paper"
//! in each report.md), so the page and the reports cannot disagree.

use super::html::{markdown_html, write_html};
use crate::findings::{self, Finding};
use ssdlab_sim::error::InputError;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One study on the index.
#[derive(Debug, Clone)]
pub struct StudyEntry {
    /// The study's directory under the index (`k2`), its command's name.
    pub name: String,
    /// What it reproduces, e.g. "K2 queue-length bound".
    pub title: String,
    /// The paper, e.g. "Park and Lee, Electronics 10(7), 2021".
    pub paper: String,
    pub findings: Vec<Finding>,
}

const TITLE: &str = "ssdlab: the seed studies against their papers";

/// index.md and index.html in `out`; returns both paths.
pub fn write_index(
    out: &Path,
    plan: &str,
    studies: &[StudyEntry],
) -> Result<Vec<PathBuf>, InputError> {
    let io =
        |p: &Path, e: std::io::Error| InputError::invalid(p.display().to_string(), e.to_string());
    std::fs::create_dir_all(out).map_err(|e| io(out, e))?;
    let intro = format!(
        "Every seed study, {plan}. Per study: the paper's findings that ssdlab's results \
         agree with, and the ones they do not; each study's report.md ends its preamble with \
         the same lines (\"Against the paper\"). {}\n",
        findings::RULE
    );
    let body = body_markdown(studies);
    let md_path = out.join("index.md");
    std::fs::write(&md_path, format!("# {TITLE}\n\n{intro}{body}")).map_err(|e| io(&md_path, e))?;
    let html_path = out.join("index.html");
    write_html(&html_path, TITLE, &intro, &markdown_html(&body), &[])
        .map_err(|e| io(&html_path, e))?;
    Ok(vec![md_path, html_path])
}

/// The summary table, then each study's findings.
pub fn body_markdown(studies: &[StudyEntry]) -> String {
    let mut md = String::from(
        "\n## At a glance\n\n| study | paper | agree | where ssdlab differs |\n|---|---|---|---|\n",
    );
    for s in studies {
        let differs: Vec<&str> = s
            .findings
            .iter()
            .filter(|f| !f.agrees)
            .map(|f| f.finding.as_str())
            .collect();
        let _ = writeln!(
            md,
            "| [{}]({}/report.html) | {} | {} | {} |",
            s.title,
            s.name,
            s.paper,
            findings::tally(&s.findings),
            if differs.is_empty() {
                "–".into()
            } else {
                differs.join("; ").replace('|', "/")
            }
        );
    }
    for s in studies {
        let _ = write!(
            md,
            "\n## {}\n\n{} — [report]({}/report.html), `{}/results.csv`\n",
            s.title, s.paper, s.name, s.name
        );
        md.push_str(&table_only(&findings::markdown(&s.findings)));
    }
    md
}

/// The findings table without its heading and rule (they are said once on
/// top of the page).
fn table_only(section: &str) -> String {
    let start = section.find("| finding |").unwrap_or(0);
    format!("\n{}", &section[start..])
}
