//! A line chart as plain SVG (linear axes, one line with markers per
//! series), for study figures such as a schedulability ratio against the
//! demand. Deterministic: the same input gives the same bytes.

use super::html::escape as esc;
use std::fmt::Write as _;

pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    /// `(x, y)` points of each series, drawn in the given order.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
    /// The y range; None: from 0 to the largest value.
    pub y_range: Option<(f64, f64)>,
}

const W: f64 = 1000.0;
const H: f64 = 560.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 220.0;
const TOP: f64 = 60.0;
const BOTTOM: f64 = 70.0;
const COLORS: [&str; 6] = [
    "#c0392b", "#7a9cc6", "#2e8b57", "#e6a23c", "#8e44ad", "#555555",
];
const TICKS: usize = 5;

/// The finite range of `values`, widened to a non-empty one.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(v), b.max(v)));
    if lo > hi {
        (0.0, 1.0)
    } else if lo == hi {
        (lo - 0.5, hi + 0.5)
    } else {
        (lo, hi)
    }
}

fn tick_label(v: f64) -> String {
    if v.abs() >= 100.0 || v == v.round() {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

impl LineChart<'_> {
    pub fn to_svg(&self) -> String {
        let points = || self.series.iter().flat_map(|(_, p)| p.iter());
        let (x0, x1) = range(points().map(|p| p.0));
        let (y0, y1) = self
            .y_range
            .unwrap_or_else(|| (0.0, range(points().map(|p| p.1)).1.max(0.0)));
        let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
        let x_of = |x: f64| LEFT + pw * (x - x0) / (x1 - x0);
        let y_of = |y: f64| TOP + ph * (1.0 - (y - y0) / (y1 - y0).max(f64::MIN_POSITIVE));
        let mut s = String::new();
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" viewBox=\"0 0 {W} {H}\" font-family=\"DejaVu Sans, sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"{W}\" height=\"{H}\" fill=\"#ffffff\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"32\" text-anchor=\"middle\" font-size=\"20\">{}</text>",
            LEFT + pw / 2.0,
            esc(self.title)
        );
        for i in 0..=TICKS {
            let f = i as f64 / TICKS as f64;
            let (yv, xv) = (y0 + f * (y1 - y0), x0 + f * (x1 - x0));
            let (y, x) = (y_of(yv), x_of(xv));
            let _ = writeln!(
                s,
                "<line x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"#e5e5e5\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"13\">{}</text>\n<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"13\">{}</text>",
                LEFT + pw,
                LEFT - 8.0,
                y + 4.0,
                tick_label(yv),
                TOP + ph + 20.0,
                tick_label(xv)
            );
        }
        let _ = writeln!(
            s,
            "<line x1=\"{LEFT}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#000\"/>\n<line x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{b}\" stroke=\"#000\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"14\">{}</text>\n<text x=\"22\" y=\"{m:.1}\" text-anchor=\"middle\" font-size=\"14\" transform=\"rotate(-90 22 {m:.1})\">{}</text>",
            LEFT + pw / 2.0,
            H - 20.0,
            esc(self.x_label),
            esc(self.y_label),
            b = TOP + ph,
            r = LEFT + pw,
            m = TOP + ph / 2.0,
        );
        for (j, (name, pts)) in self.series.iter().enumerate() {
            let color = COLORS[j % COLORS.len()];
            let path: Vec<String> = pts
                .iter()
                .filter(|p| p.0.is_finite() && p.1.is_finite())
                .map(|&(x, y)| format!("{:.1},{:.1}", x_of(x), y_of(y)))
                .collect();
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2\"/>",
                path.join(" ")
            );
            for p in &path {
                let (x, y) = p.split_once(',').expect("formatted as x,y");
                let _ = writeln!(
                    s,
                    "<circle cx=\"{x}\" cy=\"{y}\" r=\"3.5\" fill=\"{color}\"/>"
                );
            }
            let ly = TOP + 10.0 + 24.0 * j as f64;
            let _ = writeln!(
                s,
                "<rect x=\"{:.1}\" y=\"{ly}\" width=\"16\" height=\"16\" fill=\"{color}\"/>\n<text x=\"{:.1}\" y=\"{}\" font-size=\"14\">{}</text>",
                LEFT + pw + 16.0,
                LEFT + pw + 40.0,
                ly + 13.0,
                esc(name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_markers_legend_and_determinism() {
        let chart = LineChart {
            title: "Schedulability, 4 chips",
            x_label: "U / m",
            y_label: "accepted share",
            series: vec![
                (
                    "clustering".into(),
                    vec![(0.1, 1.0), (0.5, 0.8), (0.9, 0.1)],
                ),
                ("global".into(), vec![(0.1, 1.0), (0.5, 0.2)]),
            ],
            y_range: Some((0.0, 1.0)),
        };
        let svg = chart.to_svg();
        assert!(svg.starts_with("<svg"));
        assert_eq!(svg.matches("<polyline").count(), 2);
        assert_eq!(svg.matches("<circle").count(), 5);
        for t in ["clustering", "global", "U / m", "Schedulability, 4 chips"] {
            assert!(svg.contains(t), "{t}");
        }
        assert_eq!(svg, chart.to_svg());
    }
}
