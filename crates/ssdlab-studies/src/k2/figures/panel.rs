//! Drawing one chart: colours, text metrics and the bars, line, axes, legend
//! and value labels of a panel.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::labels::{place_value_labels, LabelBox, LabelColumn, LabelScene};
use super::{finite_max, fmt_tick, fmt_value, font, nice_ceil, Panel};

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

/// Draws one chart into `area`.
pub(super) fn draw_panel<DB: DrawingBackend>(
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
