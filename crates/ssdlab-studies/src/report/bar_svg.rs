//! A grouped bar chart as plain SVG (categories on x, one bar per series,
//! logarithmic y), for study figures whose values span orders of magnitude.
//! Deterministic: the same input gives the same bytes.

use super::html::escape as esc;
use std::fmt::Write as _;

pub struct BarChart<'a> {
    pub title: &'a str,
    pub y_label: &'a str,
    pub categories: Vec<String>,
    pub series: Vec<String>,
    /// `values[category][series]`; non-positive or missing values draw no bar.
    pub values: Vec<Vec<f64>>,
}

const LEFT: f64 = 90.0;
const PLOT_W: f64 = 740.0;
const PLOT_H: f64 = 420.0;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 80.0;
/// The least room right of the plot, for the legend.
const MIN_RIGHT: f64 = 170.0;
/// Width of a character at the labels' sizes, to make room for them.
const CHAR_W: f64 = 8.0;
/// Ten colours, so that no two of up to ten series share one.
const COLORS: [&str; 10] = [
    "#7a9cc6", "#c0392b", "#2e8b57", "#e6a23c", "#8e44ad", "#555555", "#17becf", "#bcbd22",
    "#e377c2", "#8c564b",
];

/// Canvas size, and whether category labels are slanted to fit.
struct Frame {
    w: f64,
    h: f64,
    slanted: bool,
}

fn chars(text: &str) -> f64 {
    text.chars().count() as f64
}

impl BarChart<'_> {
    /// Room for the legend's longest name on the right; category labels
    /// wider than their group are slanted (30°) below the axis, and the
    /// canvas grows to hold them.
    fn frame(&self) -> Frame {
        let longest = |v: &[String]| v.iter().map(|t| chars(t)).fold(0.0, f64::max);
        let right = MIN_RIGHT.max(56.0 + CHAR_W * longest(&self.series));
        let group = PLOT_W / self.categories.len().max(1) as f64;
        let label_w = CHAR_W * longest(&self.categories);
        let slanted = label_w > group;
        let extra = if slanted { label_w * 0.5 } else { 0.0 };
        Frame {
            w: LEFT + PLOT_W + right,
            h: TOP + PLOT_H + BOTTOM + extra,
            slanted,
        }
    }

    /// Decades spanned by the positive values (at least one).
    fn decades(&self) -> (i32, i32) {
        let pos = self
            .values
            .iter()
            .flatten()
            .copied()
            .filter(|v| *v > 0.0 && v.is_finite());
        let (lo, hi) = pos.fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
        if lo > hi {
            return (0, 1);
        }
        let (l, h) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
        (l, h.max(l + 1))
    }

    pub fn to_svg(&self) -> String {
        let (lo, hi) = self.decades();
        let Frame { w, h, slanted } = self.frame();
        let (plot_w, plot_h) = (PLOT_W, PLOT_H);
        let right_edge = LEFT + PLOT_W;
        let y_of = |v: f64| TOP + plot_h * (1.0 - (v.log10() - lo as f64) / (hi - lo) as f64);
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"DejaVu Sans, sans-serif\">"
        );
        let _ = writeln!(
            s,
            "<rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"32\" text-anchor=\"middle\" font-size=\"20\">{}</text>",
            w / 2.0,
            esc(self.title)
        );
        for d in lo..=hi {
            let y = y_of(10f64.powi(d));
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{right_edge}\" y2=\"{y:.1}\" stroke=\"#e5e5e5\"/>"
            );
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"13\">{}</text>",
                LEFT - 8.0,
                y + 4.0,
                label(d)
            );
        }
        let _ = writeln!(
            s,
            "<text x=\"22\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"14\" transform=\"rotate(-90 22 {:.1})\">{}</text>",
            TOP + plot_h / 2.0,
            TOP + plot_h / 2.0,
            esc(self.y_label)
        );
        let n = self.categories.len().max(1) as f64;
        let group = plot_w / n;
        let bar = group * 0.8 / self.series.len().max(1) as f64;
        for (i, cat) in self.categories.iter().enumerate() {
            let x0 = LEFT + group * i as f64 + group * 0.1;
            for (j, v) in self.values.get(i).into_iter().flatten().enumerate() {
                if !(*v > 0.0 && v.is_finite()) {
                    continue;
                }
                let (x, y) = (x0 + bar * j as f64, y_of(*v));
                let _ = writeln!(
                    s,
                    "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}: {}</title></rect>",
                    bar * 0.95,
                    TOP + plot_h - y,
                    COLORS[j % COLORS.len()],
                    esc(&self.series[j]),
                    fmt_value(*v)
                );
            }
            let (x, y) = (LEFT + group * (i as f64 + 0.5), TOP + plot_h + 22.0);
            let _ = if slanted {
                writeln!(
                    s,
                    "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"end\" font-size=\"13\" transform=\"rotate(-30 {x:.1} {y:.1})\">{}</text>",
                    esc(cat)
                )
            } else {
                writeln!(
                    s,
                    "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
                    esc(cat)
                )
            };
        }
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{}\" x2=\"{right_edge}\" y2=\"{}\" stroke=\"#000\"/>",
            TOP + plot_h,
            TOP + plot_h
        );
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{}\" stroke=\"#000\"/>",
            TOP + plot_h
        );
        for (j, name) in self.series.iter().enumerate() {
            let y = TOP + 10.0 + 24.0 * j as f64;
            let _ = writeln!(
                s,
                "<rect x=\"{}\" y=\"{y}\" width=\"16\" height=\"16\" fill=\"{}\"/>",
                right_edge + 16.0,
                COLORS[j % COLORS.len()]
            );
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" font-size=\"14\">{}</text>",
                right_edge + 40.0,
                y + 13.0,
                esc(name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

fn label(decade: i32) -> String {
    let v = 10f64.powi(decade);
    if decade >= 0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

fn fmt_value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_labels_and_determinism() {
        let chart = BarChart {
            title: "Average write latency (ms)",
            y_label: "ms",
            categories: vec!["mysql".into(), "sqlite".into()],
            series: vec!["PBGC".into(), "BBGC".into(), "on-demand".into()],
            values: vec![vec![2.4, 2.4, 0.35], vec![0.8, 0.0, 0.33]],
        };
        let svg = chart.to_svg();
        assert!(svg.starts_with("<svg"));
        assert_eq!(
            svg.matches("<rect").count(),
            1 + 5 + 3,
            "background, five positive bars, legend"
        );
        for t in ["mysql", "sqlite", "on-demand", "Average write latency (ms)"] {
            assert!(svg.contains(t), "{t}");
        }
        assert_eq!(svg, chart.to_svg());
        assert!(!svg.contains("rotate(-30"), "short labels stay level");
    }

    #[test]
    fn long_labels_get_room_and_series_their_own_colours() {
        let names: Vec<String> = (0..8)
            .map(|k| format!("Clustering-BFD+TBS, variant number {k}"))
            .collect();
        let chart = BarChart {
            title: "t",
            y_label: "MB/s",
            categories: names.clone(),
            series: names.clone(),
            values: vec![vec![1.0; 8]; 8],
        };
        let svg = chart.to_svg();
        assert_eq!(svg.matches("rotate(-30").count(), 8);
        let frame = chart.frame();
        assert!(frame.w >= LEFT + PLOT_W + CHAR_W * chars(&names[0]));
        assert!(frame.h > TOP + PLOT_H + BOTTOM);
        for c in &COLORS[..8] {
            assert!(svg.contains(c), "{c}");
        }
    }
}
