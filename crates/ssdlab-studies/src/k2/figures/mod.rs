//! Figures of the K2 study, in the style of Park and Lee
//! (Electronics, 2021): one chart per (operation, occupancy) with the
//! schedulers `none`, K2-64 … K2-1 along the x-axis, the total bandwidth of all
//! four jobs as bars on the left y-axis and the real-time task's p99.9 latency
//! as a line with markers on a right y-axis.
//!
//! Every figure is written twice, as SVG and as PNG, with `plotters`. All text
//! is laid out (and, in the PNG, rasterised) with DejaVu Sans embedded in the
//! binary, so rendering needs no system font. The SVG names the family
//! `DejaVu Sans` (falling back to `sans-serif`); the HTML report embeds the
//! same font, so its inline figures render identically without system fonts.
//! Output is deterministic: the same rows give byte-identical SVG.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::io;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

use super::results::{PointRow, OCCUPANCIES, OPS};

mod labels;
mod panel;
#[cfg(test)]
mod tests;
pub mod timeseries;

use panel::draw_panel;

/// DejaVu Sans 2.37, the font used for every text of every figure (licence:
/// assets/fonts/LICENSE-DejaVu.txt).
pub use crate::report::{Figure, DEJAVU_SANS_TTF};

/// The font family the figures ask for. It is the key under which the embedded
/// font is registered with plotters, and it is written verbatim into the SVG
/// `font-family` attributes, where it reads as a CSS font list.
pub const FONT_FAMILY: &str = "DejaVu Sans, sans-serif";

/// What a K2 figure's marks mean (its caption after the title).
pub const LEGEND: &str = "Bars: total bandwidth of the four jobs (MB/s, left axis); line: p99.9 \
latency of the real-time task (µs, right axis).";

/// Size of one PNG figure in pixels (the SVG uses the same user units).
pub const FIGURE_SIZE: (u32, u32) = (1000, 600);
/// Size of the overview figure.
pub const OVERVIEW_SIZE: (u32, u32) = (1800, 900);

/// Registers the embedded font with plotters (once per process). Also
/// registered as `sans-serif`, so any text plotters draws with its default
/// family uses it too.
fn ensure_font() -> io::Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        [FONT_FAMILY, "sans-serif"].iter().all(|name| {
            plotters::style::register_font(name, FontStyle::Normal, DEJAVU_SANS_TTF).is_ok()
        })
    });
    if ok {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "embedded DejaVu Sans font could not be parsed",
        ))
    }
}

/// Display name of an operation, as the paper writes it.
pub fn op_title(op: &str) -> String {
    match op {
        "read" => "Sequential read".to_string(),
        "randread" => "Random read".to_string(),
        "write" => "Sequential write".to_string(),
        "randwrite" => "Random write".to_string(),
        other => other.to_string(),
    }
}

/// Display name of an occupancy.
pub fn occupancy_title(occupancy: &str) -> String {
    match occupancy {
        "partial" => "partially occupied SSD".to_string(),
        "full" => "fully occupied SSD".to_string(),
        other => format!("{other} SSD"),
    }
}

/// Title of the figure of one (operation, occupancy).
pub fn figure_title(op: &str, occupancy: &str) -> String {
    format!("{} — {}", op_title(op), occupancy_title(occupancy))
}

/// Sort key placing known operations / occupancies in the study's order and
/// any others after them, alphabetically.
fn order_key(value: &str, known: &[&str]) -> (usize, String) {
    let pos = known
        .iter()
        .position(|k| *k == value)
        .unwrap_or(known.len());
    (pos, value.to_string())
}

/// Characters safe in a file name; others become '_'.
fn file_part(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// X-axis label of a row: `none` / `K2-<bound>`; a scheduler other than none
/// and k2 without a bound is labelled with its own name.
fn point_label(row: &PointRow) -> String {
    if row.bound.is_none() && row.scheduler != "none" && row.scheduler != "k2" {
        row.scheduler.clone()
    } else {
        row.label()
    }
}

/// The data of one chart.
#[derive(Debug, Clone)]
struct Panel {
    title: String,
    /// Title in the overview's small panels.
    short_title: String,
    labels: Vec<String>,
    bw_mbs: Vec<f64>,
    p999_us: Vec<f64>,
}

/// Groups rows by (operation, occupancy) in the study's order; within a group
/// the points run none (and other unbounded schedulers), then bounds from the
/// largest to the smallest. A repeated label keeps its first row.
fn panels(rows: &[PointRow]) -> Vec<(String, String, Panel)> {
    type Key = ((usize, String), (usize, String));
    let mut groups: BTreeMap<Key, Vec<&PointRow>> = BTreeMap::new();
    for row in rows {
        let key = (
            order_key(&row.op, &OPS),
            order_key(&row.occupancy, &OCCUPANCIES),
        );
        groups.entry(key).or_default().push(row);
    }
    groups
        .into_iter()
        .map(|(((_, op), (_, occupancy)), mut group)| {
            group.sort_by_key(|r| (r.bound.is_some(), Reverse(r.bound), point_label(r)));
            let mut panel = Panel {
                title: figure_title(&op, &occupancy),
                short_title: format!("{}, {}", op_title(&op), occupancy),
                labels: Vec::new(),
                bw_mbs: Vec::new(),
                p999_us: Vec::new(),
            };
            for row in group {
                let label = point_label(row);
                if panel.labels.contains(&label) {
                    continue;
                }
                panel.labels.push(label);
                panel.bw_mbs.push(row.total_bw_mbs);
                panel.p999_us.push(row.rt_p999_us);
            }
            (op, occupancy, panel)
        })
        .collect()
}

/// Rounds up to 1, 2, 2.5 or 5 times a power of ten (1.0 for no data).
fn nice_ceil(v: f64) -> f64 {
    if !v.is_finite() || v <= 0.0 {
        return 1.0;
    }
    let mag = 10f64.powf(v.log10().floor());
    for m in [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0] {
        if v <= m * mag * (1.0 + 1e-12) {
            return m * mag;
        }
    }
    10.0 * mag
}

fn finite_max(values: &[f64]) -> f64 {
    values
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max)
}

/// A value printed to about three significant digits.
fn fmt_value(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Tick label with as many decimals as the axis range needs.
fn fmt_tick(v: f64, axis_max: f64) -> String {
    if axis_max >= 10.0 {
        format!("{v:.0}")
    } else if axis_max >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn font(size: f64) -> FontDesc<'static> {
    FontDesc::new(FontFamily::Name(FONT_FAMILY), size, FontStyle::Normal)
}

fn draw_err<E: std::fmt::Display>(e: E) -> io::Error {
    io::Error::other(format!("drawing a figure: {e}"))
}

/// Draws `panels` in a `rows` × `cols` grid (a single panel for 1 × 1) on
/// `root`; an empty cell gets a "no data" note.
fn draw_grid<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: Option<&str>,
    grid: (usize, usize),
    cells: &[Option<&Panel>],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let body = match title {
        Some(t) => root.titled(t, font(28.0).color(&BLACK))?,
        None => root.clone(),
    };
    let compact = grid != (1, 1);
    let areas = body.split_evenly(grid);
    for (area, cell) in areas.iter().zip(cells) {
        match cell {
            Some(panel) => draw_panel(area, panel, compact)?,
            None => {
                let (w, h) = area.dim_in_pixel();
                area.draw(&Text::new(
                    "no data",
                    (w as i32 / 2, h as i32 / 2),
                    font(16.0)
                        .color(&RGBColor(128, 128, 128))
                        .pos(Pos::new(HPos::Center, VPos::Center)),
                ))?;
            }
        }
    }
    root.present()?;
    Ok(())
}

/// Writes one figure (SVG and PNG) of a grid of panels.
fn write_grid(
    svg: &Path,
    png: &Path,
    size: (u32, u32),
    title: Option<&str>,
    grid: (usize, usize),
    cells: &[Option<&Panel>],
) -> io::Result<()> {
    ensure_font()?;
    let mut svg_text = String::new();
    {
        let root = SVGBackend::with_string(&mut svg_text, size).into_drawing_area();
        draw_grid(&root, title, grid, cells).map_err(draw_err)?;
    }
    std::fs::write(svg, svg_text)?;
    let root = BitMapBackend::new(png, size).into_drawing_area();
    draw_grid(&root, title, grid, cells).map_err(draw_err)?;
    Ok(())
}

/// Writes one figure per (operation, occupancy) present in `rows` to `dir`
/// (created if missing) as `fig-<op>-<occupancy>.svg` and `.png`, in the
/// study's order (operations as in [`OPS`], then occupancies as in
/// [`OCCUPANCIES`]).
pub fn write_figures(rows: &[PointRow], dir: &Path) -> io::Result<Vec<Figure>> {
    std::fs::create_dir_all(dir)?;
    let mut figures = Vec::new();
    for (op, occupancy, panel) in panels(rows) {
        let stem = format!("fig-{}-{}", file_part(&op), file_part(&occupancy));
        let svg = dir.join(format!("{stem}.svg"));
        let png = dir.join(format!("{stem}.png"));
        write_grid(&svg, &png, FIGURE_SIZE, None, (1, 1), &[Some(&panel)])?;
        figures.push(Figure {
            id: format!("fig-{op}-{occupancy}"),
            svg,
            png: Some(png),
            title: panel.title,
            legend: LEGEND.into(),
        });
    }
    Ok(figures)
}

/// Writes `fig-overview.svg` / `.png` to `dir`: small multiples with one row
/// per occupancy (partial, full) and one column per operation (sequential
/// read, random read, sequential write, random write). A combination without
/// rows is drawn as an empty "no data" cell.
pub fn write_overview(rows: &[PointRow], dir: &Path) -> io::Result<Figure> {
    std::fs::create_dir_all(dir)?;
    let all = panels(rows);
    let mut cells = Vec::new();
    for occupancy in OCCUPANCIES {
        for op in OPS {
            cells.push(
                all.iter()
                    .find(|(o, occ, _)| o == op && occ == occupancy)
                    .map(|(_, _, p)| p),
            );
        }
    }
    let title = "K2 queue-length bound: total bandwidth (bars) and RT p99.9 latency (line)";
    let svg = dir.join("fig-overview.svg");
    let png = dir.join("fig-overview.png");
    write_grid(
        &svg,
        &png,
        OVERVIEW_SIZE,
        Some(title),
        (OCCUPANCIES.len(), OPS.len()),
        &cells,
    )?;
    Ok(Figure {
        id: "fig-all-all".to_string(),
        svg,
        png: Some(png),
        title: title.to_string(),
        legend: LEGEND.into(),
    })
}

/// Synthetic study rows for tests: `ops` × `occupancies` × (none + the seven
/// bounds), loosely shaped like the paper's partially occupied results.
#[cfg(test)]
pub(crate) fn sample_rows(ops: &[&str], occupancies: &[&str]) -> Vec<PointRow> {
    use super::results::BOUNDS;
    let mut rows = Vec::new();
    for (oi, op) in ops.iter().enumerate() {
        for (ci, occupancy) in occupancies.iter().enumerate() {
            let scale = 1.0 + oi as f64 * 0.4 - ci as f64 * 0.3;
            let points = std::iter::once(None).chain(BOUNDS.iter().map(|b| Some(*b)));
            for bound in points {
                let q = f64::from(bound.unwrap_or(256));
                let bw = scale * (70.0 + 650.0 * q / (q + 6.0));
                let p999 = scale * (200.0 + 12.0 * q);
                rows.push(PointRow {
                    op: op.to_string(),
                    occupancy: occupancy.to_string(),
                    scheduler: if bound.is_some() { "k2" } else { "none" }.to_string(),
                    bound,
                    rt_p999_us: p999,
                    rt_p99_us: p999 * 0.8,
                    rt_mean_us: p999 * 0.3,
                    total_bw_mbs: bw,
                    nrt_bw_mbs: bw - 2.0,
                    reps: 5,
                    runtime_s: 1.0,
                    waf: 1.0,
                    gc_invocations: 0,
                    gc_pages_moved: 0,
                    erases: 0,
                });
            }
        }
    }
    rows
}

/// A fresh scratch directory for a test (removed by the test when done).
#[cfg(test)]
pub(crate) fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-k2-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}
