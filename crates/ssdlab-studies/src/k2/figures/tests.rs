//! Unit tests of the figures and of the value-label layout.

use super::labels::{place_value_labels, LabelBox, LabelColumn, LabelScene};
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
    let ids: Vec<&str> = figs.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "fig-randread-partial",
            "fig-randread-full",
            "fig-write-partial",
            "fig-write-full"
        ]
    );
    assert_eq!(figs[0].title, "Random read — partially occupied SSD");
    assert_eq!(figs[3].title, "Sequential write — fully occupied SSD");
    for fig in &figs {
        let name = &fig.id;
        assert_eq!(fig.svg, dir.join(format!("{name}.svg")));
        assert_eq!(fig.png, Some(dir.join(format!("{name}.png"))));
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
        let png = std::fs::read(fig.png.as_ref().expect("a PNG")).expect("read png");
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
    let png = std::fs::read(fig.png.as_ref().expect("a PNG")).unwrap();
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
