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
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontStyle;

use super::results::{PointRow, OCCUPANCIES, OPS};

/// DejaVu Sans 2.37, the font used for every text of every figure (licence:
/// assets/fonts/LICENSE-DejaVu.txt).
pub static DEJAVU_SANS_TTF: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");

/// The font family the figures ask for. It is the key under which the embedded
/// font is registered with plotters, and it is written verbatim into the SVG
/// `font-family` attributes, where it reads as a CSS font list.
pub const FONT_FAMILY: &str = "DejaVu Sans, sans-serif";

/// Size of one PNG figure in pixels (the SVG uses the same user units).
pub const FIGURE_SIZE: (u32, u32) = (1000, 600);
/// Size of the overview figure.
pub const OVERVIEW_SIZE: (u32, u32) = (1800, 900);

/// One written figure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figure {
    /// Operation (read, randread, write, randwrite); "all" for the overview.
    pub op: String,
    /// Occupancy (partial, full); "all" for the overview.
    pub occupancy: String,
    pub svg: PathBuf,
    pub png: PathBuf,
    /// Human-readable title, e.g. "Random read — partially occupied SSD".
    pub title: String,
}

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

const BAR_FILL: RGBColor = RGBColor(168, 196, 228);
const BAR_EDGE: RGBColor = RGBColor(52, 82, 122);
const LINE: RGBColor = RGBColor(196, 48, 32);
const BW_TEXT: RGBColor = RGBColor(20, 40, 70);

/// Text sizes and margins of a chart; `compact` for the overview's panels.
struct Metrics {
    title: f64,
    desc: f64,
    tick: f64,
    legend: f64,
    value: Option<f64>,
    margin: u32,
    x_area: u32,
    y_area: u32,
    marker: u32,
}

impl Metrics {
    fn new(compact: bool) -> Self {
        if compact {
            Metrics {
                title: 18.0,
                desc: 14.0,
                tick: 12.0,
                legend: 12.0,
                value: None,
                margin: 8,
                x_area: 44,
                y_area: 58,
                marker: 4,
            }
        } else {
            Metrics {
                title: 26.0,
                desc: 18.0,
                tick: 16.0,
                legend: 16.0,
                value: Some(13.0),
                margin: 14,
                x_area: 60,
                y_area: 80,
                marker: 5,
            }
        }
    }
}

/// An axis-aligned box in a plotting area's pixels (y grows downwards).
#[derive(Debug, Clone, Copy, PartialEq)]
struct LabelBox {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl LabelBox {
    fn centered((cx, cy): (f64, f64), (w, h): (f64, f64)) -> Self {
        LabelBox {
            x0: cx - w / 2.0,
            y0: cy - h / 2.0,
            x1: cx + w / 2.0,
            y1: cy + h / 2.0,
        }
    }

    fn center(&self) -> (f64, f64) {
        ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)
    }

    fn grown(&self, d: f64) -> Self {
        LabelBox {
            x0: self.x0 - d,
            y0: self.y0 - d,
            x1: self.x1 + d,
            y1: self.y1 + d,
        }
    }

    fn overlaps(&self, o: &LabelBox) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether the segment a–b passes through the box (Liang–Barsky).
    fn hits_segment(&self, a: (f64, f64), b: (f64, f64)) -> bool {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [
            (-dx, a.0 - self.x0),
            (dx, self.x1 - a.0),
            (-dy, a.1 - self.y0),
            (dy, self.y1 - a.1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// One x position of a chart for value-label layout, in the plotting area's
/// pixels.
#[derive(Debug, Clone, Copy)]
struct LabelColumn {
    /// Centre of the position.
    cx: f64,
    /// Left edge, right edge and top of the bar, if one is drawn.
    bar: Option<(f64, f64, f64)>,
    /// Centre (y) of the latency marker, if one is drawn.
    marker: Option<f64>,
    /// Width and height of the bandwidth label and of the latency label.
    bw_size: (f64, f64),
    lat_size: (f64, f64),
}

/// The plotting area the labels go into.
#[derive(Debug, Clone, Copy)]
struct LabelScene {
    width: f64,
    height: f64,
    marker_radius: f64,
    /// The legend's box, kept clear of labels.
    legend: Option<LabelBox>,
}

/// Clearance between a label and anything else, in pixels.
const LABEL_GAP: f64 = 2.0;

/// Places the value labels of a bar + line chart: for each column, the box of
/// the bandwidth label and of the latency label, or `None` where no place is
/// free. A bandwidth label goes just inside the top of its bar, or above the
/// bar when the bar is too short or narrow (stepping up past a neighbour's
/// label); a latency label goes above, beside or below its marker. No label
/// overlaps another label, crosses a bar's outline, the line or a marker, or
/// leaves the plotting area (so none covers an axis) or touches the legend.
fn place_value_labels(
    scene: &LabelScene,
    cols: &[LabelColumn],
) -> (Vec<Option<LabelBox>>, Vec<Option<LabelBox>>) {
    type Segment = ((f64, f64), (f64, f64));
    let (w, h) = (scene.width, scene.height);
    let mut segments: Vec<Segment> = Vec::new();
    for (l, r, top) in cols.iter().filter_map(|c| c.bar) {
        segments.push(((l, top), (r, top)));
        segments.push(((l, top), (l, h)));
        segments.push(((r, top), (r, h)));
    }
    let markers: Vec<(f64, f64)> = cols
        .iter()
        .filter_map(|c| c.marker.map(|y| (c.cx, y)))
        .collect();
    segments.extend(markers.windows(2).map(|p| (p[0], p[1])));
    let r = scene.marker_radius + 1.0;
    let mut obstacles: Vec<LabelBox> = markers
        .iter()
        .map(|&p| LabelBox::centered(p, (2.0 * r, 2.0 * r)))
        .collect();
    obstacles.extend(scene.legend);
    let mut placed: Vec<LabelBox> = Vec::new();
    let free = |b: LabelBox, placed: &mut Vec<LabelBox>| {
        let g = b.grown(LABEL_GAP);
        let ok = g.x0 >= 0.0
            && g.y0 >= 0.0
            && g.x1 <= w
            && g.y1 <= h
            && !segments.iter().any(|&(a, e)| g.hits_segment(a, e))
            && !obstacles.iter().any(|o| g.overlaps(o))
            && !placed.iter().any(|o| g.overlaps(o));
        if ok {
            placed.push(b);
        }
        ok
    };

    let bw: Vec<Option<LabelBox>> = cols
        .iter()
        .map(|c| {
            let (left, right, top) = c.bar?;
            let (bw, bh) = c.bw_size;
            let cx = (left + right) / 2.0;
            let inside = (0..3).map(|k| top + 4.0 + bh / 2.0 + f64::from(k) * (bh + 4.0));
            let above = (0..4).map(|k| top - 3.0 - bh / 2.0 - f64::from(k) * (bh + 3.0));
            inside
                .chain(above)
                .map(|cy| LabelBox::centered((cx, cy), (bw, bh)))
                .find(|b| free(*b, &mut placed))
        })
        .collect();

    let lat = cols
        .iter()
        .map(|c| {
            let my = c.marker?;
            let (lw, lh) = c.lat_size;
            let d = scene.marker_radius + 3.0;
            let right = c.cx + 3.0 + lw / 2.0;
            let left = c.cx - 3.0 - lw / 2.0;
            let mut spots = Vec::new();
            for k in 0..4 {
                let lift = f64::from(k) * (lh + 3.0);
                let above = my - d - lh / 2.0 - lift;
                let below = my + d + lh / 2.0 + lift;
                spots.extend([(c.cx, above), (right, above), (left, above)]);
                if k == 0 {
                    let side = scene.marker_radius + 4.0 + lw / 2.0;
                    spots.extend([(c.cx + side, my), (c.cx - side, my)]);
                }
                spots.extend([(c.cx, below), (right, below), (left, below)]);
            }
            spots
                .into_iter()
                .map(|p| LabelBox::centered(p, (lw, lh)))
                .find(|b| free(*b, &mut placed))
        })
        .collect();
    (bw, lat)
}

/// Draws one chart into `area`.
fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    compact: bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let m = Metrics::new(compact);
    let n = panel.labels.len();
    if n == 0 {
        return Ok(());
    }
    let last = n as i32 - 1;
    let bw_axis = nice_ceil(finite_max(&panel.bw_mbs) * 1.3);
    let lat_axis = nice_ceil(finite_max(&panel.p999_us) * 1.3);

    let mut chart = ChartBuilder::on(area)
        .caption(
            if compact {
                &panel.short_title
            } else {
                &panel.title
            },
            font(m.title).color(&BLACK),
        )
        .margin(m.margin)
        .x_label_area_size(m.x_area)
        .y_label_area_size(m.y_area)
        .right_y_label_area_size(m.y_area)
        .build_cartesian_2d((0..last).into_segmented(), 0.0..bw_axis)?
        .set_secondary_coord((0..last).into_segmented(), 0.0..lat_axis);

    let labels = panel.labels.clone();
    let x_fmt = move |v: &SegmentValue<i32>| match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => usize::try_from(*i)
            .ok()
            .and_then(|i| labels.get(i).cloned())
            .unwrap_or_default(),
        SegmentValue::Last => String::new(),
    };
    let bw_fmt = move |v: &f64| fmt_tick(*v, bw_axis);
    let lat_fmt = move |v: &f64| fmt_tick(*v, lat_axis);

    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(215, 215, 215))
        .x_labels(n + 1)
        .y_labels(6)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&bw_fmt)
        .x_desc(if compact {
            "Scheduler"
        } else {
            "Scheduler (K2-x: queue-length bound x)"
        })
        .y_desc("Total bandwidth (MB/s)")
        .label_style(font(m.tick).color(&BLACK))
        .axis_desc_style(font(m.desc).color(&BLACK))
        .draw()?;

    chart
        .configure_secondary_axes()
        .y_labels(6)
        .y_label_formatter(&lat_fmt)
        .y_desc("RT p99.9 latency (µs)")
        .label_style(font(m.tick).color(&LINE))
        .axis_desc_style(font(m.desc).color(&LINE))
        .draw()?;

    let x_of = |i: usize| -> SegmentValue<i32> {
        if i as i32 > last {
            SegmentValue::Last
        } else {
            SegmentValue::Exact(i as i32)
        }
    };
    let segment_px = area.dim_in_pixel().0 as f64 / (n as f64 + 2.0);
    let bar_margin = (segment_px * 0.18).round() as u32;

    let bars: Vec<_> = panel
        .bw_mbs
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(i, v)| {
            let mut r = Rectangle::new([(x_of(i), 0.0), (x_of(i + 1), *v)], BAR_FILL.filled());
            r.set_margin(0, 0, bar_margin, bar_margin);
            r
        })
        .collect();
    let edges: Vec<_> = panel
        .bw_mbs
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(i, v)| {
            let mut r = Rectangle::new(
                [(x_of(i), 0.0), (x_of(i + 1), *v)],
                BAR_EDGE.stroke_width(1),
            );
            r.set_margin(0, 0, bar_margin, bar_margin);
            r
        })
        .collect();
    chart
        .draw_series(bars)?
        .label("Total bandwidth (MB/s)")
        .legend(|(x, y)| {
            Rectangle::new([(x, y - 6), (x + 18, y + 6)], BAR_FILL.filled()).into_dyn()
        });
    chart.draw_series(edges)?;

    let points: Vec<(SegmentValue<i32>, f64)> = panel
        .p999_us
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(i, v)| (SegmentValue::CenterOf(i as i32), *v))
        .collect();
    let marker = m.marker;
    chart
        .draw_secondary_series(LineSeries::new(
            points.iter().cloned(),
            LINE.stroke_width(2),
        ))?
        .label("RT task p99.9 latency (µs)")
        .legend(move |(x, y)| {
            EmptyElement::at((x, y))
                + PathElement::new(vec![(0, 0), (18, 0)], LINE.stroke_width(2))
                + Circle::new((9, 0), marker, LINE.filled())
        });
    chart.draw_secondary_series(
        points
            .iter()
            .map(|(x, y)| Circle::new((x.clone(), *y), marker, LINE.filled())),
    )?;
    if let Some(size) = m.value {
        // Value labels are laid out in the plotting area's pixels, clear of
        // each other, the bars' outlines, the line, its markers, the axes
        // and the legend; a label with no free place is left out (every
        // value is in the report's tables).
        let area = chart.plotting_area();
        let (base_x, base_y) = area.get_base_pixel();
        let (plot_w, plot_h) = area.dim_in_pixel();
        let px = |(x, y): (i32, i32)| (f64::from(x - base_x), f64::from(y - base_y));
        let secondary = chart.borrow_secondary().plotting_area();
        let value_font = font(size);
        let text_size = |text: &str| {
            let w = value_font
                .box_size(text)
                .map_or(0.6 * size * text.chars().count() as f64, |(w, _)| {
                    f64::from(w)
                });
            (w, size)
        };
        let bw_texts: Vec<String> = panel.bw_mbs.iter().map(|v| fmt_value(*v)).collect();
        let lat_texts: Vec<String> = panel.p999_us.iter().map(|v| fmt_value(*v)).collect();
        let columns: Vec<LabelColumn> = (0..n)
            .map(|i| {
                let (cx, _) = px(area.map_coordinate(&(SegmentValue::CenterOf(i as i32), 0.0)));
                let bar = panel.bw_mbs.get(i).filter(|v| v.is_finite()).map(|v| {
                    let (x0, y0) = px(area.map_coordinate(&(x_of(i), 0.0)));
                    let (x1, top) = px(area.map_coordinate(&(x_of(i + 1), *v)));
                    let margin = f64::from(bar_margin);
                    (x0.min(x1) + margin, x0.max(x1) - margin, top.min(y0))
                });
                let marker = panel.p999_us.get(i).filter(|v| v.is_finite()).map(|v| {
                    px(secondary.map_coordinate(&(SegmentValue::CenterOf(i as i32), *v))).1
                });
                LabelColumn {
                    cx,
                    bar,
                    marker,
                    bw_size: text_size(&bw_texts[i]),
                    lat_size: text_size(&lat_texts[i]),
                }
            })
            .collect();
        let legend_font = font(m.legend);
        let legend_w = ["Total bandwidth (MB/s)", "RT task p99.9 latency (µs)"]
            .iter()
            .map(|t| legend_font.box_size(t).map_or(0.0, |(w, _)| f64::from(w)))
            .fold(0.0, f64::max);
        let scene = LabelScene {
            width: f64::from(plot_w),
            height: f64::from(plot_h),
            marker_radius: f64::from(marker),
            // The legend's box in the upper right corner, generously.
            legend: Some(LabelBox {
                x0: f64::from(plot_w) - legend_w - 70.0,
                y0: 0.0,
                x1: f64::from(plot_w),
                y1: 2.0 * 1.5 * m.legend + 36.0,
            }),
        };
        let (bw_boxes, lat_boxes) = place_value_labels(&scene, &columns);
        let canvas = area.strip_coord_spec();
        let centered = Pos::new(HPos::Center, VPos::Center);
        let texts = bw_boxes
            .iter()
            .zip(&bw_texts)
            .map(|(b, t)| (b, t, BW_TEXT))
            .chain(lat_boxes.iter().zip(&lat_texts).map(|(b, t)| (b, t, LINE)));
        for (b, text, color) in texts {
            if let Some(b) = b {
                let (x, y) = b.center();
                canvas.draw(&Text::new(
                    text.as_str(),
                    (x.round() as i32, y.round() as i32),
                    font(size).color(&color).pos(centered),
                ))?;
            }
        }
    }

    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(font(m.legend).color(&BLACK))
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(160, 160, 160))
        .margin(if compact { 6 } else { 10 })
        .draw()?;
    Ok(())
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
            op,
            occupancy,
            svg,
            png,
            title: panel.title,
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
        op: "all".to_string(),
        occupancy: "all".to_string(),
        svg,
        png,
        title: title.to_string(),
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
pub(crate) fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-k2-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create scratch dir");
    dir
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG_SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

    fn svg_body(text: &str) -> &str {
        let t = text.trim_start();
        match t.strip_prefix("<?xml") {
            Some(rest) => rest[rest.find("?>").expect("end of declaration") + 2..].trim_start(),
            None => t,
        }
    }

    #[test]
    fn figures_are_written_per_op_and_occupancy() {
        let dir = scratch_dir("figs");
        let rows = sample_rows(&["randread", "write"], &["partial", "full"]);
        let figs = write_figures(&rows, &dir).expect("write figures");
        let keys: Vec<(&str, &str)> = figs
            .iter()
            .map(|f| (f.op.as_str(), f.occupancy.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                ("randread", "partial"),
                ("randread", "full"),
                ("write", "partial"),
                ("write", "full")
            ]
        );
        assert_eq!(figs[0].title, "Random read — partially occupied SSD");
        assert_eq!(figs[3].title, "Sequential write — fully occupied SSD");
        for fig in &figs {
            let name = format!("fig-{}-{}", fig.op, fig.occupancy);
            assert_eq!(fig.svg, dir.join(format!("{name}.svg")));
            assert_eq!(fig.png, dir.join(format!("{name}.png")));
            let svg = std::fs::read_to_string(&fig.svg).expect("read svg");
            let body = svg_body(&svg);
            assert!(body.starts_with("<svg"), "{}", &body[..body.len().min(80)]);
            assert!(body.trim_end().ends_with("</svg>"));
            assert!(
                svg.contains(&fig.title),
                "title missing in {}",
                fig.svg.display()
            );
            // plotters writes each text on its own line inside <text>.
            let texts: Vec<&str> = svg
                .split("<text")
                .skip(1)
                .map(|t| {
                    let body = t.split_once('>').map_or("", |(_, b)| b);
                    body.split("</text>").next().unwrap_or("").trim()
                })
                .collect();
            for label in ["none", "K2-64", "K2-8", "K2-1"] {
                assert!(texts.contains(&label), "{label} missing");
            }
            assert!(svg.contains("Total bandwidth (MB/s)"));
            assert!(svg.contains("RT p99.9 latency (µs)"));
            assert!(svg.contains(FONT_FAMILY));
            let png = std::fs::read(&fig.png).expect("read png");
            assert_eq!(png[..8], PNG_SIGNATURE);
            assert!(png.len() > 10_000, "PNG too small: {} bytes", png.len());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn svg_output_is_deterministic() {
        let rows = sample_rows(&["read", "randwrite"], &["partial", "full"]);
        let a = scratch_dir("det-a");
        let b = scratch_dir("det-b");
        let fa = write_figures(&rows, &a).expect("first run");
        let fb = write_figures(&rows, &b).expect("second run");
        assert_eq!(fa.len(), 4);
        for (x, y) in fa.iter().zip(&fb) {
            let sx = std::fs::read(&x.svg).unwrap();
            let sy = std::fs::read(&y.svg).unwrap();
            assert!(sx == sy, "{} differs between runs", x.svg.display());
        }
        // Row order does not matter either.
        let mut reversed = rows.clone();
        reversed.reverse();
        let c = scratch_dir("det-c");
        let fc = write_figures(&reversed, &c).expect("third run");
        for (x, z) in fa.iter().zip(&fc) {
            assert_eq!(
                std::fs::read(&x.svg).unwrap(),
                std::fs::read(&z.svg).unwrap()
            );
        }
        for d in [a, b, c] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    #[test]
    fn points_are_ordered_none_then_largest_bound_first() {
        let mut rows = sample_rows(&["randread"], &["partial"]);
        rows.retain(|r| matches!(r.bound, None | Some(1) | Some(4) | Some(64)));
        rows.reverse();
        let ps = panels(&rows);
        assert_eq!(ps.len(), 1);
        assert_eq!(ps[0].2.labels, ["none", "K2-64", "K2-4", "K2-1"]);
        let none = rows.iter().find(|r| r.bound.is_none()).unwrap();
        assert_eq!(ps[0].2.bw_mbs[0], none.total_bw_mbs);
        assert_eq!(ps[0].2.p999_us[0], none.rt_p999_us);
    }

    #[test]
    fn overview_has_all_panels_and_tolerates_gaps() {
        let dir = scratch_dir("overview");
        let mut rows = sample_rows(&OPS, &OCCUPANCIES);
        rows.retain(|r| !(r.op == "randwrite" && r.occupancy == "full"));
        rows[3].rt_p999_us = f64::NAN;
        let fig = write_overview(&rows, &dir).expect("overview");
        assert_eq!(fig.svg, dir.join("fig-overview.svg"));
        let svg = std::fs::read_to_string(&fig.svg).unwrap();
        assert!(svg_body(&svg).starts_with("<svg"));
        assert!(svg.contains("Random write, partial"));
        assert!(svg.contains("Sequential read, full"));
        assert!(svg.contains("no data"));
        let png = std::fs::read(&fig.png).unwrap();
        assert_eq!(png[..8], PNG_SIGNATURE);
        assert!(png.len() > 10_000);
        if std::env::var_os("SSDLAB_KEEP_TEST_OUTPUT").is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    fn scene() -> LabelScene {
        LabelScene {
            width: 800.0,
            height: 480.0,
            marker_radius: 5.0,
            legend: Some(LabelBox {
                x0: 560.0,
                y0: 0.0,
                x1: 800.0,
                y1: 70.0,
            }),
        }
    }

    /// Every placed box: inside the area, clear of the others, of the line,
    /// the markers and the bars' outlines.
    fn assert_clear(scene: &LabelScene, cols: &[LabelColumn], boxes: &[LabelBox]) {
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.x0 > 0.0 && a.y0 > 0.0, "{a:?} leaves the area");
            assert!(
                a.x1 < scene.width && a.y1 < scene.height,
                "{a:?} covers an axis"
            );
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
            for c in cols {
                if let Some((l, r, top)) = c.bar {
                    for (p, q) in [
                        ((l, top), (r, top)),
                        ((l, top), (l, scene.height)),
                        ((r, top), (r, scene.height)),
                    ] {
                        assert!(!a.hits_segment(p, q), "{a:?} crosses a bar edge");
                    }
                }
                if let Some(y) = c.marker {
                    let m = LabelBox::centered((c.cx, y), (10.0, 10.0));
                    assert!(!a.overlaps(&m), "{a:?} covers a marker");
                }
            }
            let markers: Vec<(f64, f64)> = cols
                .iter()
                .filter_map(|c| c.marker.map(|y| (c.cx, y)))
                .collect();
            for w in markers.windows(2) {
                assert!(!a.hits_segment(w[0], w[1]), "{a:?} crosses the line");
            }
        }
    }

    #[test]
    fn labels_of_adjacent_small_bars_do_not_overlap() {
        // Two neighbouring bars a few pixels tall, narrower than their
        // labels, with the latency markers just above them (the K2-2 / K2-1
        // corner of the random-read figures).
        let sc = scene();
        let cols: Vec<LabelColumn> = [(600.0, 462.0, 470.0), (640.0, 474.0, 468.0)]
            .iter()
            .map(|&(cx, top, marker)| LabelColumn {
                cx,
                bar: Some((cx - 14.0, cx + 14.0, top)),
                marker: Some(marker),
                bw_size: (34.0, 13.0),
                lat_size: (26.0, 13.0),
            })
            .collect();
        let (bw, lat) = place_value_labels(&sc, &cols);
        let placed: Vec<LabelBox> = bw.iter().chain(&lat).flatten().copied().collect();
        assert_eq!(
            placed.len(),
            4,
            "every label finds a place here: {placed:?}"
        );
        assert_clear(&sc, &cols, &placed);
        // Bandwidth labels sit above their short bars, not in them.
        for (b, c) in bw.iter().zip(&cols) {
            assert!(b.unwrap().y1 <= c.bar.unwrap().2);
        }
    }

    #[test]
    fn label_layout_of_a_crowded_chart_never_overlaps() {
        // Bars from tall to tiny, a latency line crossing the bar tops, and
        // columns far narrower than the labels: whatever is placed is clear.
        let sc = scene();
        for spacing in [90.0, 40.0, 22.0] {
            let cols: Vec<LabelColumn> = (0..8)
                .map(|i| {
                    let cx = 40.0 + spacing * f64::from(i);
                    let top = 480.0 - 400.0 / f64::from(i + 1);
                    LabelColumn {
                        cx,
                        bar: Some((cx - spacing * 0.32, cx + spacing * 0.32, top)),
                        marker: Some(top + if i % 2 == 0 { 2.0 } else { -8.0 }),
                        bw_size: (30.0, 13.0),
                        lat_size: (44.0, 13.0),
                    }
                })
                .collect();
            let (bw, lat) = place_value_labels(&sc, &cols);
            let placed: Vec<LabelBox> = bw.iter().chain(&lat).flatten().copied().collect();
            assert!(!placed.is_empty());
            assert_clear(&sc, &cols, &placed);
            if spacing >= 90.0 {
                assert!(bw.iter().all(Option::is_some), "wide bars keep every value");
            }
        }
    }

    #[test]
    fn segment_box_intersection() {
        let b = LabelBox {
            x0: 0.0,
            y0: 0.0,
            x1: 10.0,
            y1: 10.0,
        };
        assert!(b.hits_segment((-5.0, 5.0), (15.0, 5.0)));
        assert!(b.hits_segment((5.0, 5.0), (6.0, 6.0)));
        assert!(!b.hits_segment((-5.0, -1.0), (15.0, -1.0)));
        assert!(!b.hits_segment((11.0, -5.0), (30.0, 20.0)));
        assert!(b.hits_segment((-5.0, -5.0), (15.0, 15.0)));
    }

    #[test]
    fn helpers() {
        assert_eq!(nice_ceil(720.0 * 1.3), 1000.0);
        assert_eq!(nice_ceil(987.0 * 1.3), 1500.0);
        assert_eq!(nice_ceil(180.0), 200.0);
        assert_eq!(nice_ceil(2900.0), 3000.0);
        assert_eq!(nice_ceil(2.2), 2.5);
        assert_eq!(nice_ceil(0.0), 1.0);
        assert_eq!(nice_ceil(f64::NAN), 1.0);
        assert_eq!(file_part("rand/read x"), "rand_read_x");
        assert_eq!(fmt_value(3251.4), "3251");
        assert_eq!(fmt_value(43.97), "44.0");
        let empty = scratch_dir("empty");
        assert!(write_figures(&[], &empty).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(&empty);
    }
}
