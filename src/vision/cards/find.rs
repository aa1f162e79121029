//! Finding card outlines and card corners in the paper mask.

use super::prep::WorkImage;
use crate::vision::contours::find_contours;
use crate::vision::geometry::{Point, Quad, cross, dist, sub};
use image::GrayImage;
use imageproc::contours::BorderType;

/// Height / width of a standard card (88 x 63 mm poker and bridge-ish decks).
pub const CARD_ASPECT: f32 = 1.4;

/// Smallest blob (working px) worth looking at: a card 12x17 working pixels.
pub const MIN_BLOB_AREA: f64 = 200.0;

/// A blob is one card when the best 4-gon inscribed in its convex hull covers
/// at least this share of the hull (rounded corners lose ~2%, perspective
/// nothing; a second card sticking out loses > 8%).
pub const MIN_QUAD_FILL: f32 = 0.92;

/// The outer contour must enclose at least this share of the hull: index pips
/// near the edge can notch the outline of one card, but a hull around two
/// separate specks is mostly empty.
pub const MIN_SOLIDITY: f32 = 0.5;

/// Short/long side ratio accepted for a single card (0.714 nominal; perspective
/// and slightly wrong outlines spread it).
pub const SINGLE_ASPECT: (f32, f32) = (0.55, 0.9);

/// Above this short/long ratio the portrait direction is uncertain, so all four
/// corners are tried for an index.
pub const AMBIGUOUS_ASPECT: f32 = 0.82;

/// Corner angle window (degrees) for a card corner in a merged blob outline.
pub const CORNER_ANGLE: (f32, f32) = (62.0, 118.0);

/// Arm length (contour steps) used to measure the angle at a contour point:
/// this share of sqrt(blob area) (~0.12 card widths for one card, so rounded
/// corners of radius ~0.05 W look sharp), clamped to [`CORNER_ARM_RANGE`].
pub const CORNER_ARM_SHARE: f32 = 0.1;
/// Limits of the corner arm in working pixels.
pub const CORNER_ARM_RANGE: (usize, usize) = (5, 25);

/// One card corner hypothesis in full-resolution pixels. `r` runs along the top
/// edge of an upright card (short side), `d` down its left edge; `cross(r, d) > 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CornerFrame {
    /// The corner point.
    pub origin: Point,
    /// Unit vector along the card's short side.
    pub r: Point,
    /// Unit vector along the card's long side.
    pub d: Point,
    /// Card width (short side) in full-resolution pixels.
    pub width: f32,
}

impl CornerFrame {
    /// Point at card-width units `(u, v)` from the corner.
    #[inline]
    pub fn at(&self, u: f32, v: f32) -> Point {
        [
            self.origin[0] + self.width * (u * self.r[0] + v * self.d[0]),
            self.origin[1] + self.width * (u * self.r[1] + v * self.d[1]),
        ]
    }

    /// The whole card predicted from this corner.
    pub fn card_quad(&self) -> Quad {
        Quad([
            self.at(0.0, 0.0),
            self.at(1.0, 0.0),
            self.at(1.0, CARD_ASPECT),
            self.at(0.0, CARD_ASPECT),
        ])
    }
}

/// A candidate region found in the frame.
#[derive(Debug, Clone)]
pub enum Candidate {
    /// A blob shaped like one whole card.
    Single {
        /// Outline, full resolution, short side first, `cross(q1-q0, q3-q0) > 0`.
        quad: Quad,
        /// Whether the portrait direction is ambiguous.
        ambiguous: bool,
    },
    /// Several touching / overlapping cards: corner hypotheses only.
    Merged {
        /// Minimum-area rectangle of the blob (full resolution).
        hull_quad: Quad,
        /// Corner points with edge directions (width not yet known: 0).
        corners: Vec<CornerFrame>,
    },
}

/// Finds candidates in the paper mask; coordinates are scaled to full resolution.
///
/// `grow_px` (working pixels) is added around whole-card quads (for masks that
/// were eroded); merged-blob corners are only produced when `with_merged`.
pub fn find_candidates(
    mask: &GrayImage,
    work: &WorkImage,
    grow_px: f32,
    with_merged: bool,
) -> Vec<Candidate> {
    let s = work.factor as f32;
    let contours = find_contours(mask);
    let mut out = Vec::new();
    for c in contours.iter() {
        if c.border_type != BorderType::Outer || c.points.len() < 8 {
            continue;
        }
        let pts: Vec<Point> = c
            .points
            .iter()
            .map(|p| [p.x as f32 + 0.5, p.y as f32 + 0.5])
            .collect();
        let area = polygon_area(&pts);
        if (area as f64) < MIN_BLOB_AREA {
            continue;
        }
        let hull = convex_hull(&pts);
        let rect = min_area_rect(&hull);
        let hull_area = polygon_area(&hull).max(1.0);
        let best = best_quad(&hull);
        let quad = best.unwrap_or(rect);
        let (a, b) = (quad.side(0) + quad.side(2), quad.side(1) + quad.side(3));
        let aspect = a.min(b) / a.max(b).max(1e-3);
        let fill = if best.is_some() {
            quad.area() / hull_area
        } else {
            0.0
        };
        let solid = area / hull_area;
        if fill >= MIN_QUAD_FILL
            && solid >= MIN_SOLIDITY
            && aspect >= SINGLE_ASPECT.0
            && aspect <= SINGLE_ASPECT.1
        {
            let quad = orient_quad(grow(quad, grow_px).scaled(s));
            let (a, b) = (quad.side(0) + quad.side(2), quad.side(1) + quad.side(3));
            let ambiguous = a.min(b) / a.max(b).max(1e-3) > AMBIGUOUS_ASPECT;
            out.push(Candidate::Single { quad, ambiguous });
        } else if with_merged {
            let k = ((CORNER_ARM_SHARE * area.sqrt()) as usize)
                .clamp(CORNER_ARM_RANGE.0, CORNER_ARM_RANGE.1);
            let corners = contour_corners(&pts, k)
                .into_iter()
                .map(|f| CornerFrame {
                    origin: [f.origin[0] * s, f.origin[1] * s],
                    ..f
                })
                .collect();
            out.push(Candidate::Merged {
                hull_quad: orient_quad(rect.scaled(s)),
                corners,
            });
        }
    }
    out
}

/// Moves each corner `px` further from the centre (along the diagonal).
fn grow(q: Quad, px: f32) -> Quad {
    if px == 0.0 {
        return q;
    }
    let c = q.centre();
    let mut p = q.0;
    for v in p.iter_mut() {
        let d = unit(sub(*v, c));
        v[0] += d[0] * px * std::f32::consts::SQRT_2;
        v[1] += d[1] * px * std::f32::consts::SQRT_2;
    }
    Quad(p)
}

/// Orders a quad so corner order has `cross(q1-q0, q3-q0) > 0` and side 0 is short.
pub fn orient_quad(q: Quad) -> Quad {
    let mut p = q.0;
    if cross(sub(p[1], p[0]), sub(p[3], p[0])) < 0.0 {
        p.swap(1, 3);
    }
    let q = Quad(p);
    if q.side(0) + q.side(2) > q.side(1) + q.side(3) {
        Quad([p[1], p[2], p[3], p[0]])
    } else {
        q
    }
}

/// The index corners of a single-card quad (2, or 4 when portrait is ambiguous).
pub fn quad_frames(quad: &Quad, ambiguous: bool) -> Vec<CornerFrame> {
    let p = quad.0;
    let short = (quad.side(0) + quad.side(2)) / 2.0;
    let long = (quad.side(1) + quad.side(3)) / 2.0;
    let order: &[usize] = if ambiguous { &[0, 2, 1, 3] } else { &[0, 2] };
    order
        .iter()
        .map(|&i| {
            let o = p[i];
            let r = unit(sub(p[(i + 1) % 4], o));
            let d = unit(sub(p[(i + 3) % 4], o));
            let width = if i % 2 == 0 {
                short
            } else {
                long.min(short * CARD_ASPECT)
            };
            CornerFrame {
                origin: o,
                r,
                d,
                width,
            }
        })
        .collect()
}

fn unit(v: Point) -> Point {
    let n = (v[0] * v[0] + v[1] * v[1]).sqrt().max(1e-6);
    [v[0] / n, v[1] / n]
}

/// Signed-area magnitude of a closed polygon.
pub fn polygon_area(pts: &[Point]) -> f32 {
    let mut a = 0.0f32;
    for i in 0..pts.len() {
        let p = pts[i];
        let q = pts[(i + 1) % pts.len()];
        a += p[0] * q[1] - q[0] * p[1];
    }
    a.abs() / 2.0
}

/// Convex hull (monotone chain), counter-clockwise in y-up terms.
pub fn convex_hull(pts: &[Point]) -> Vec<Point> {
    let mut p: Vec<Point> = pts.to_vec();
    p.sort_by(|a, b| a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1])));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let mut lower: Vec<Point> = Vec::new();
    for &q in &p {
        while lower.len() >= 2
            && cross(
                sub(lower[lower.len() - 1], lower[lower.len() - 2]),
                sub(q, lower[lower.len() - 2]),
            ) <= 0.0
        {
            lower.pop();
        }
        lower.push(q);
    }
    let mut upper: Vec<Point> = Vec::new();
    for &q in p.iter().rev() {
        while upper.len() >= 2
            && cross(
                sub(upper[upper.len() - 1], upper[upper.len() - 2]),
                sub(q, upper[upper.len() - 2]),
            ) <= 0.0
        {
            upper.pop();
        }
        upper.push(q);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

/// Minimum-area enclosing rectangle of a convex hull (rotating edges).
pub fn min_area_rect(hull: &[Point]) -> Quad {
    if hull.is_empty() {
        return Quad([[0.0; 2]; 4]);
    }
    let mut best: Option<(f32, Quad)> = None;
    for i in 0..hull.len() {
        let e = sub(hull[(i + 1) % hull.len()], hull[i]);
        let n = (e[0] * e[0] + e[1] * e[1]).sqrt();
        if n < 1e-6 {
            continue;
        }
        let u = [e[0] / n, e[1] / n];
        let v = [-u[1], u[0]];
        let (mut u0, mut u1, mut v0, mut v1) = (f32::MAX, f32::MIN, f32::MAX, f32::MIN);
        for p in hull {
            let a = p[0] * u[0] + p[1] * u[1];
            let b = p[0] * v[0] + p[1] * v[1];
            u0 = u0.min(a);
            u1 = u1.max(a);
            v0 = v0.min(b);
            v1 = v1.max(b);
        }
        let area = (u1 - u0) * (v1 - v0);
        if best.as_ref().is_none_or(|(a, _)| area < *a) {
            let c = |a: f32, b: f32| [a * u[0] + b * v[0], a * u[1] + b * v[1]];
            best = Some((area, Quad([c(u0, v0), c(u1, v0), c(u1, v1), c(u0, v1)])));
        }
    }
    best.map(|(_, q)| q).unwrap_or(Quad([hull[0]; 4]))
}

/// Best 4-gon inscribed in the hull: the 4 hull points maximising the area
/// (greedy refinement from the min-area rectangle corners). Captures perspective.
fn best_quad(hull: &[Point]) -> Option<Quad> {
    if hull.len() < 4 {
        return None;
    }
    let rect = min_area_rect(hull);
    let mut idx = [0usize; 4];
    for (k, c) in rect.0.iter().enumerate() {
        let mut bi = 0;
        let mut bd = f32::MAX;
        for (i, p) in hull.iter().enumerate() {
            let d = dist(*p, *c);
            if d < bd {
                bd = d;
                bi = i;
            }
        }
        idx[k] = bi;
    }
    let mut q = Quad([hull[idx[0]], hull[idx[1]], hull[idx[2]], hull[idx[3]]]);
    // Local refinement: move each corner along the hull while area grows.
    for _ in 0..3 {
        for k in 0..4 {
            let mut best = q.area();
            for p in hull.iter() {
                let mut t = q;
                t.0[k] = *p;
                let a = t.area();
                if a > best && is_convex(&t) {
                    best = a;
                    q = t;
                }
            }
        }
    }
    let rect_area = rect.area().max(1.0);
    if q.area() / rect_area < 0.8 {
        return None;
    }
    Some(q)
}

fn is_convex(q: &Quad) -> bool {
    let mut s = 0.0f32;
    for i in 0..4 {
        let c = cross(
            sub(q.0[(i + 1) % 4], q.0[i]),
            sub(q.0[(i + 2) % 4], q.0[(i + 1) % 4]),
        );
        if c == 0.0 {
            return false;
        }
        if s == 0.0 {
            s = c.signum();
        } else if c.signum() != s {
            return false;
        }
    }
    true
}

/// Right-angled convex corners along a blob contour (working resolution).
///
/// At each contour point the directions of the two edges are measured on arms
/// `k..2k` steps away, so index glyphs notching the outline right at the corner
/// do not disturb them; the corner is the intersection of the two edge lines.
fn contour_corners(pts: &[Point], k: usize) -> Vec<CornerFrame> {
    let n = pts.len();
    if k == 0 || n < 5 * k {
        return Vec::new();
    }
    let mut signed = 0.0f32;
    for i in 0..n {
        signed += cross(pts[i], pts[(i + 1) % n]);
    }
    let (lo, hi) = (
        CORNER_ANGLE.0.to_radians().cos(),
        CORNER_ANGLE.1.to_radians().cos(),
    );
    let mut found: Vec<(f32, Point, Point, Point)> = Vec::new();
    for i in 0..n {
        let (pa1, pa2) = (pts[(i + k) % n], pts[(i + 2 * k) % n]);
        let (pb1, pb2) = (pts[(i + 2 * n - k) % n], pts[(i + 2 * n - 2 * k) % n]);
        let (ea, eb) = (sub(pa2, pa1), sub(pb2, pb1));
        if dist(pa2, pa1) < 0.6 * k as f32 || dist(pb2, pb1) < 0.6 * k as f32 {
            continue;
        }
        let a = unit(ea);
        let b = unit(eb);
        let c = a[0] * b[0] + a[1] * b[1];
        if c > lo || c < hi {
            continue;
        }
        // Convex: turning from the incoming edge (-b) to the outgoing edge (a)
        // goes the same way as the contour as a whole.
        if cross([-b[0], -b[1]], a) * signed <= 0.0 {
            continue;
        }
        let det = cross(a, b);
        if det.abs() < 0.3 {
            continue;
        }
        let t = cross(sub(pb1, pa1), b) / det;
        let q = [pa1[0] + t * a[0], pa1[1] + t * a[1]];
        if dist(q, pts[i]) > 1.5 * k as f32 {
            continue;
        }
        found.push((c.abs(), q, a, b));
    }
    found.sort_by(|x, y| x.0.total_cmp(&y.0));
    let mut out: Vec<CornerFrame> = Vec::new();
    for (_, q, a, b) in found {
        if out.iter().any(|f| dist(f.origin, q) < k as f32) {
            continue;
        }
        let (r, d) = if cross(a, b) > 0.0 { (a, b) } else { (b, a) };
        out.push(CornerFrame {
            origin: q,
            r,
            d,
            width: 0.0,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::cards::prep::{paper_mask, work_image};
    use image::{Rgb, RgbImage};

    fn synthetic_card(rot: f32) -> RgbImage {
        let mut img = RgbImage::from_pixel(400, 400, Rgb([30, 30, 35]));
        let (c, s) = (rot.cos(), rot.sin());
        for y in 0..400 {
            for x in 0..400 {
                let (dx, dy) = (x as f32 - 200.0, y as f32 - 200.0);
                let u = c * dx + s * dy;
                let v = -s * dx + c * dy;
                if u.abs() < 63.0 && v.abs() < 88.0 {
                    img.put_pixel(x, y, Rgb([235, 235, 230]));
                }
            }
        }
        img
    }

    #[test]
    fn finds_one_rotated_card() {
        for rot in [0.0f32, 0.4, 1.2] {
            let img = synthetic_card(rot);
            let work = work_image(&img);
            let mask = paper_mask(&work);
            let cands = find_candidates(&mask, &work, 0.0, true);
            let singles: Vec<_> = cands
                .iter()
                .filter_map(|c| match c {
                    Candidate::Single { quad, .. } => Some(*quad),
                    _ => None,
                })
                .collect();
            assert_eq!(singles.len(), 1, "rot {rot}");
            let q = singles[0];
            assert!((q.side(0) - 126.0).abs() < 8.0, "{q:?}");
            assert!((q.side(1) - 176.0).abs() < 8.0, "{q:?}");
        }
    }

    #[test]
    fn hull_and_rect_of_square() {
        let pts = [[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0], [1.0, 1.0]];
        let h = convex_hull(&pts);
        assert_eq!(h.len(), 4);
        assert!((min_area_rect(&h).area() - 4.0).abs() < 1e-4);
    }
}
