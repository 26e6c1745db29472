//! The paper's time series: the total bandwidth and IOPS of the fully
//! occupied random-write run under `none`, one point per simulated second,
//! and the second at which the bandwidth drops.

use std::io;
use std::path::Path;

use plotters::prelude::*;

use super::{draw_err, ensure_font, Figure, FONT_FAMILY};

/// How long the bandwidth must stay low for a drop to count (seconds).
const SUSTAINED_S: usize = 5;

/// Seconds before a second whose mean is its level before a fall.
const LEVEL_S: usize = 3;

/// The second at which the bandwidth last falls sharply: to below half its
/// level of the three seconds before, for at least five seconds (None: no
/// such fall). The last such fall, because a drive with an SLC cache falls
/// twice: from the cache's speed to the flash's, then, once the spare is
/// written, to what GC leaves. `series` is (second, bytes, I/Os) per
/// second, as the study records it.
pub fn drop_second(series: &[(u64, u64, u64)]) -> Option<u64> {
    let (mut drop, mut falling) = (None, false);
    for i in 1..series.len().saturating_sub(SUSTAINED_S - 1) {
        let before = &series[i.saturating_sub(LEVEL_S)..i];
        let level = before.iter().map(|r| r.1 as f64).sum::<f64>() / before.len() as f64;
        let after = &series[i..i + SUSTAINED_S];
        let fall = after.iter().all(|r| (r.1 as f64) * 2.0 < level);
        // A fall spans the seconds whose level still holds the seconds
        // before it: it begins at the first of them.
        if fall && !falling {
            drop = Some(series[i].0);
        }
        falling = fall;
    }
    drop
}

/// Writes `fig-randwrite-full-timeseries.svg` and `.png` to `dir`: total
/// bandwidth (MB/s, left axis) and IOPS (right axis) per second.
pub fn write_timeseries(series: &[(u64, u64, u64)], dir: &Path) -> io::Result<Figure> {
    ensure_font()?;
    std::fs::create_dir_all(dir)?;
    let stem = "fig-randwrite-full-timeseries";
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    let title = "Random write — fully occupied SSD, none: total bandwidth and IOPS per second";
    let mut svg_text = String::new();
    {
        let root = SVGBackend::with_string(&mut svg_text, SIZE).into_drawing_area();
        draw(&root, title, series).map_err(draw_err)?;
    }
    std::fs::write(&svg, svg_text)?;
    {
        let root = BitMapBackend::new(&png, SIZE).into_drawing_area();
        draw(&root, title, series).map_err(draw_err)?;
    }
    Ok(Figure {
        id: stem.to_string(),
        svg,
        png: Some(png),
        title: title.to_string(),
        legend: "Solid line: total bandwidth of the four jobs (MB/s, left axis); dashed: \
                 total IOPS (right axis; with 4 KiB requests the two lines coincide); one \
                 point per simulated second."
            .into(),
    })
}

const SIZE: (u32, u32) = (1000, 500);

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    title: &str,
    series: &[(u64, u64, u64)],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let last = series.last().map_or(1, |r| r.0.max(1));
    let mbs = |b: u64| b as f64 / 1e6;
    let top_bw = series.iter().map(|r| mbs(r.1)).fold(1.0, f64::max) * 1.1;
    let top_iops = series.iter().map(|r| r.2 as f64).fold(1.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT_FAMILY, 20))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .right_y_label_area_size(80)
        .build_cartesian_2d(0u64..last, 0f64..top_bw)?
        .set_secondary_coord(0u64..last, 0f64..top_iops);
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("total bandwidth (MB/s)")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style((FONT_FAMILY, 14))
        .axis_desc_style((FONT_FAMILY, 15))
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_desc("total IOPS")
        .y_label_formatter(&|v| format!("{v:.0}"))
        .label_style((FONT_FAMILY, 14))
        .axis_desc_style((FONT_FAMILY, 15))
        .draw()?;
    let blue = RGBColor(0x1f, 0x5f, 0x9f);
    chart.draw_series(LineSeries::new(
        series.iter().map(|r| (r.0, mbs(r.1))),
        blue.stroke_width(2),
    ))?;
    let red = RGBColor(0xc0, 0x39, 0x2b);
    // Dashed: short segments between consecutive seconds, every other one.
    chart.draw_secondary_series(
        series
            .windows(2)
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, w)| {
                PathElement::new(vec![(w[0].0, w[0].2 as f64), (w[1].0, w[1].2 as f64)], red)
            }),
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::drop_second;

    fn series(bw: &[u64]) -> Vec<(u64, u64, u64)> {
        bw.iter()
            .enumerate()
            .map(|(s, &b)| (s as u64, b, b / 4096))
            .collect()
    }

    #[test]
    fn a_sustained_fall_below_half_the_level_before_is_the_drop() {
        let s = series(&[300, 310, 305, 300, 100, 90, 80, 85, 90, 88]);
        assert_eq!(drop_second(&s), Some(4));
    }

    #[test]
    fn the_fall_after_the_cache_phase_is_not_the_drop() {
        let mut bw = vec![1300, 1300];
        bw.extend([300; 10]);
        bw.extend([100, 90, 95, 100, 90, 80, 85, 80, 75, 70]);
        assert_eq!(drop_second(&series(&bw)), Some(12));
        // Only the cache's fall: that is the drop.
        assert_eq!(drop_second(&series(&bw[..12])), Some(2));
    }

    #[test]
    fn a_short_dip_or_a_flat_run_is_no_drop() {
        assert_eq!(
            drop_second(&series(&[300, 100, 300, 300, 290, 300, 310])),
            None
        );
        assert_eq!(drop_second(&series(&[300; 20])), None);
        assert_eq!(drop_second(&[]), None);
    }
}
