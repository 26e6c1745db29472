//! The studies' shared report. A study describes what it found (its rows,
//! its report text in Markdown, its figures) and this module writes the same
//! four things for every study: `results.csv` (one line per row),
//! `report.md`, the figure files, and `report.html`, one self-contained page
//! with the figures inline and the tables rendered.

pub mod bar_svg;
pub mod html;
pub mod index;
pub mod line_svg;

use serde::Serialize;
use ssdlab_sim::error::InputError;
use std::path::{Path, PathBuf};

/// DejaVu Sans (its licence is in `assets/fonts/`): the figures are laid
/// out with it, and report.html embeds it so that inline SVG text renders as
/// designed on a machine without system fonts.
pub static DEJAVU_SANS_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// A figure a study wrote: its SVG (inlined in report.html) and,
/// optionally, a PNG rendering (linked from the caption).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    /// The HTML anchor (`fig-randread-partial`).
    pub id: String,
    pub svg: PathBuf,
    pub png: Option<PathBuf>,
    /// Human-readable title, e.g. "Random read — partially occupied SSD".
    pub title: String,
    /// What the marks mean, after the title in the caption ("" for none).
    pub legend: String,
}

impl Figure {
    /// Writes `svg_text` to `dir/ID.svg` and returns the figure (no PNG).
    pub fn write_svg(
        dir: &Path,
        id: String,
        svg_text: &str,
        title: String,
        legend: &str,
    ) -> std::io::Result<Figure> {
        let svg = dir.join(format!("{id}.svg"));
        std::fs::write(&svg, svg_text)?;
        Ok(Figure {
            id,
            svg,
            png: None,
            title,
            legend: legend.into(),
        })
    }
}

/// What a study reports.
pub struct StudyReport<'a> {
    /// The page title of report.html.
    pub title: &'a str,
    /// report.md, whole.
    pub markdown: String,
    /// The introduction on top of report.html (Markdown).
    pub intro: &'a str,
    /// report.html's body after the figures (HTML; see [`html::markdown_html`]
    /// and [`html::table_html`]).
    pub html_body: String,
    pub figures: Vec<Figure>,
}

impl<'a> StudyReport<'a> {
    /// The plain shape: report.md is `heading` (a `# ` line), the preamble
    /// and the Markdown `body`; report.html shows the preamble, the figures
    /// and the same body.
    pub fn from_markdown(
        title: &'a str,
        heading: &str,
        preamble: &'a str,
        body: &str,
        figures: Vec<Figure>,
    ) -> Self {
        StudyReport {
            title,
            markdown: format!("{heading}\n\n{preamble}{body}"),
            intro: preamble,
            html_body: html::markdown_html(body),
            figures,
        }
    }
}

/// Writes `results.csv` (from `rows`), `report.md` and `report.html` into
/// `out` (created if missing); returns every file of the report, figures
/// included.
pub fn write_study<T: Serialize>(
    out: &Path,
    rows: &[T],
    report: &StudyReport,
) -> Result<Vec<PathBuf>, InputError> {
    let io = |p: &Path, e: String| InputError::invalid(p.display().to_string(), e);
    std::fs::create_dir_all(out).map_err(|e| io(out, e.to_string()))?;
    let csv_path = out.join("results.csv");
    write_rows_csv(rows, &csv_path).map_err(|e| io(&csv_path, e.to_string()))?;
    let md_path = out.join("report.md");
    std::fs::write(&md_path, &report.markdown).map_err(|e| io(&md_path, e.to_string()))?;
    let html_path = out.join("report.html");
    html::write_html(
        &html_path,
        report.title,
        report.intro,
        &report.html_body,
        &report.figures,
    )
    .map_err(|e| io(&html_path, e.to_string()))?;
    let mut files = vec![csv_path, md_path, html_path];
    for f in &report.figures {
        files.push(f.svg.clone());
        files.extend(f.png.clone());
    }
    Ok(files)
}

/// Writes any serializable rows as CSV with a header line.
pub fn write_rows_csv<T: Serialize>(rows: &[T], path: &Path) -> Result<(), csv::Error> {
    let mut w = csv::Writer::from_path(path)?;
    for r in rows {
        w.serialize(r)?;
    }
    w.flush()?;
    Ok(())
}
