//! Value-label placement: boxes, columns and the scene of a chart, and the
//! search for label spots that overlap nothing else.

/// An axis-aligned box in a plotting area's pixels (y grows downwards).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct LabelBox {
    pub(super) x0: f64,
    pub(super) y0: f64,
    pub(super) x1: f64,
    pub(super) y1: f64,
}

impl LabelBox {
    pub(super) fn centered((cx, cy): (f64, f64), (w, h): (f64, f64)) -> Self {
        LabelBox {
            x0: cx - w / 2.0,
            y0: cy - h / 2.0,
            x1: cx + w / 2.0,
            y1: cy + h / 2.0,
        }
    }

    pub(super) fn center(&self) -> (f64, f64) {
        ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)
    }

    pub(super) fn grown(&self, d: f64) -> Self {
        LabelBox {
            x0: self.x0 - d,
            y0: self.y0 - d,
            x1: self.x1 + d,
            y1: self.y1 + d,
        }
    }

    pub(super) fn overlaps(&self, o: &LabelBox) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether the segment a–b passes through the box (Liang–Barsky).
    pub(super) fn hits_segment(&self, a: (f64, f64), b: (f64, f64)) -> bool {
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
pub(super) struct LabelColumn {
    /// Centre of the position.
    pub(super) cx: f64,
    /// Left edge, right edge and top of the bar, if one is drawn.
    pub(super) bar: Option<(f64, f64, f64)>,
    /// Centre (y) of the latency marker, if one is drawn.
    pub(super) marker: Option<f64>,
    /// Width and height of the bandwidth label and of the latency label.
    pub(super) bw_size: (f64, f64),
    pub(super) lat_size: (f64, f64),
}

/// The plotting area the labels go into.
#[derive(Debug, Clone, Copy)]
pub(super) struct LabelScene {
    pub(super) width: f64,
    pub(super) height: f64,
    pub(super) marker_radius: f64,
    /// The legend's box, kept clear of labels.
    pub(super) legend: Option<LabelBox>,
}

/// Clearance between a label and anything else, in pixels.
pub(super) const LABEL_GAP: f64 = 2.0;

/// Places the value labels of a bar + line chart: for each column, the box of
/// the bandwidth label and of the latency label, or `None` where no place is
/// free. A bandwidth label goes just inside the top of its bar, or above the
/// bar when the bar is too short or narrow (stepping up past a neighbour's
/// label); a latency label goes above, beside or below its marker. No label
/// overlaps another label, crosses a bar's outline, the line or a marker, or
/// leaves the plotting area (so none covers an axis) or touches the legend.
pub(super) fn place_value_labels(
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
