//! What a paper found next to what ssdlab finds, one line per finding, with
//! a verdict from one rule for every study. Each study's report ends with
//! its table ("Against the paper") and `reproduce all`'s index page shows
//! the same lines, so the two cannot disagree.

use crate::report::html::escape;
use serde::Serialize;
use std::fmt::Write as _;

/// One finding of a paper, checked against a study's results.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// What the paper says, in a few words.
    pub finding: String,
    /// The paper's figure or statement.
    pub paper: String,
    /// What ssdlab measured.
    pub ssdlab: String,
    pub agrees: bool,
}

impl Finding {
    pub fn new(finding: impl Into<String>, paper: impl Into<String>) -> Finding {
        Finding {
            finding: finding.into(),
            paper: paper.into(),
            ssdlab: String::new(),
            agrees: false,
        }
    }

    /// The measured side and its verdict.
    pub fn measured(mut self, ssdlab: impl Into<String>, agrees: bool) -> Finding {
        self.ssdlab = ssdlab.into();
        self.agrees = agrees;
        self
    }
}

/// The rule for a finding with a size: an effect is the log of a ratio
/// (before / after, e.g. a p99.9 under `none` over that under K2-1); ssdlab
/// agrees when its effect has the paper's sign and is between half and
/// twice the paper's. A missing figure never agrees.
pub fn effect_agrees(paper_ratio: f64, ssdlab_ratio: f64) -> bool {
    let (p, s) = (paper_ratio.ln(), ssdlab_ratio.ln());
    if !(p.is_finite() && s.is_finite()) || p == 0.0 {
        return false;
    }
    let share = s / p;
    (0.5..=2.0).contains(&share)
}

/// The rule in words, for the reports and the index.
pub const RULE: &str = "A finding with a size agrees when ssdlab's effect has the paper's \
direction and, measured as the logarithm of the ratio the paper gives (e.g. RT p99.9 under \
`none` over that under K2-1), lies between half and twice the paper's; a finding without a \
size agrees when the statement holds in ssdlab's results.";

/// "3 of 5 agree".
pub fn tally(findings: &[Finding]) -> String {
    let agree = findings.iter().filter(|f| f.agrees).count();
    format!("{agree} of {} agree", findings.len())
}

/// The report section: a heading, the rule and the table.
pub fn markdown(findings: &[Finding]) -> String {
    let mut md = format!(
        "\n## Against the paper\n\n{RULE} {}.\n\n| finding | paper | ssdlab | agrees |\n|---|---|---|---|\n",
        tally(findings)
    );
    for f in findings {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            cell(&f.finding),
            cell(&f.paper),
            cell(&f.ssdlab),
            verdict(f.agrees)
        );
    }
    md
}

pub fn verdict(agrees: bool) -> &'static str {
    if agrees {
        "yes"
    } else {
        "no"
    }
}

/// A table cell: pipes would end it.
fn cell(text: &str) -> String {
    text.replace('|', "/")
}

/// The same table as HTML rows (for pages that build their tables in HTML).
pub fn html_rows(findings: &[Finding]) -> Vec<Vec<String>> {
    findings
        .iter()
        .map(|f| {
            vec![
                escape(&f.finding),
                escape(&f.paper),
                escape(&f.ssdlab),
                verdict(f.agrees).to_string(),
            ]
        })
        .collect()
}

/// A ratio for the tables: "15.0×", "1.22×" (two decimals below 10, so
/// that a 22 % gain shows).
pub fn times(ratio: f64) -> String {
    if ratio.is_finite() && ratio.abs() < 10.0 {
        format!("{ratio:.2}×")
    } else if ratio.is_finite() {
        format!("{ratio:.1}×")
    } else {
        "n/a".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_effect_agrees_between_half_and_twice_the_papers_in_the_same_direction() {
        assert!(effect_agrees(15.0, 15.0));
        assert!(effect_agrees(16.0, 4.0)); // ln 4 = ln 16 / 2
        assert!(!effect_agrees(16.0, 3.9));
        assert!(effect_agrees(4.0, 16.0));
        assert!(!effect_agrees(4.0, 16.5));
        assert!(!effect_agrees(2.0, 0.5), "the other direction");
        assert!(!effect_agrees(2.0, f64::NAN));
        assert!(
            !effect_agrees(1.0, 1.0),
            "no effect in the paper has no size"
        );
    }

    #[test]
    fn the_table_counts_and_escapes() {
        let f = vec![
            Finding::new("a | b", "1").measured("2", true),
            Finding::new("c", "3").measured("4", false),
        ];
        let md = markdown(&f);
        assert!(md.contains("1 of 2 agree"), "{md}");
        assert!(md.contains("| a / b | 1 | 2 | yes |"), "{md}");
        assert!(md.contains("| c | 3 | 4 | no |"), "{md}");
    }
}
