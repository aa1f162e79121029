//! Small geometry helpers: points, quadrilaterals and perspective maps.

/// A point in image pixels, `[x, y]`.
pub type Point = [f32; 2];

/// A quadrilateral given by its 4 corners in order around the outline.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quad(pub [Point; 4]);

impl Quad {
    /// Centre of the four corners.
    pub fn centre(&self) -> Point {
        let mut c = [0.0f32; 2];
        for p in &self.0 {
            c[0] += p[0] / 4.0;
            c[1] += p[1] / 4.0;
        }
        c
    }

    /// Absolute area (shoelace formula).
    pub fn area(&self) -> f32 {
        let mut a = 0.0f32;
        for i in 0..4 {
            let p = self.0[i];
            let q = self.0[(i + 1) % 4];
            a += p[0] * q[1] - q[0] * p[1];
        }
        a.abs() / 2.0
    }

    /// Length of side `i` (from corner `i` to corner `i+1`).
    pub fn side(&self, i: usize) -> f32 {
        dist(self.0[i % 4], self.0[(i + 1) % 4])
    }

    /// Scales every coordinate by `s` (e.g. from working to full resolution).
    pub fn scaled(&self, s: f32) -> Quad {
        let mut q = self.0;
        for p in q.iter_mut() {
            p[0] *= s;
            p[1] *= s;
        }
        Quad(q)
    }

    /// The quad scaled about its centre by `factor` (1.2: a fifth larger
    /// across).
    pub fn grown(&self, factor: f32) -> Quad {
        let c = self.centre();
        let mut q = self.0;
        for p in q.iter_mut() {
            p[0] = c[0] + (p[0] - c[0]) * factor;
            p[1] = c[1] + (p[1] - c[1]) * factor;
        }
        Quad(q)
    }

    /// Whether either quad holds the other's centre: the two outlines are,
    /// or cover, one card.
    #[inline]
    pub fn shares_centre_with(&self, other: &Quad) -> bool {
        self.contains(other.centre()) || other.contains(self.centre())
    }

    /// Whether `p` lies inside the (convex) quad.
    pub fn contains(&self, p: Point) -> bool {
        let mut sign = 0.0f32;
        for i in 0..4 {
            let a = self.0[i];
            let b = self.0[(i + 1) % 4];
            let c = cross(sub(b, a), sub(p, a));
            if c != 0.0 {
                if sign == 0.0 {
                    sign = c.signum();
                } else if c.signum() != sign {
                    return false;
                }
            }
        }
        true
    }
}

/// Euclidean distance.
pub fn dist(a: Point, b: Point) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// `a - b`.
pub fn sub(a: Point, b: Point) -> Point {
    [a[0] - b[0], a[1] - b[1]]
}

/// z component of the 2-D cross product.
pub fn cross(a: Point, b: Point) -> f32 {
    a[0] * b[1] - a[1] * b[0]
}

/// A 3x3 projective map (row-major), mapping `(x, y, 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography(pub [f32; 9]);

impl Homography {
    /// Maps a point; returns `None` when it falls at infinity.
    pub fn apply(&self, p: Point) -> Option<Point> {
        let h = &self.0;
        let w = h[6] * p[0] + h[7] * p[1] + h[8];
        if w.abs() < 1e-9 {
            return None;
        }
        Some([
            (h[0] * p[0] + h[1] * p[1] + h[2]) / w,
            (h[3] * p[0] + h[4] * p[1] + h[5]) / w,
        ])
    }

    /// The map sending `src[i]` to `dst[i]`; `None` if degenerate.
    pub fn from_points(src: &[Point; 4], dst: &[Point; 4]) -> Option<Homography> {
        let mut a = [[0.0f64; 9]; 8];
        for i in 0..4 {
            let (x, y) = (src[i][0] as f64, src[i][1] as f64);
            let (u, v) = (dst[i][0] as f64, dst[i][1] as f64);
            a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y, u];
            a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y, v];
        }
        // Gaussian elimination with partial pivoting.
        for col in 0..8 {
            let mut piv = col;
            for r in col + 1..8 {
                if a[r][col].abs() > a[piv][col].abs() {
                    piv = r;
                }
            }
            if a[piv][col].abs() < 1e-10 {
                return None;
            }
            a.swap(col, piv);
            for r in 0..8 {
                if r != col {
                    let f = a[r][col] / a[col][col];
                    if f != 0.0 {
                        let pivot_row = a[col];
                        for (x, p) in a[r][col..].iter_mut().zip(&pivot_row[col..]) {
                            *x -= f * p;
                        }
                    }
                }
            }
        }
        let mut h = [0.0f32; 9];
        for i in 0..8 {
            h[i] = (a[i][8] / a[i][i]) as f32;
            if !h[i].is_finite() {
                return None;
            }
        }
        h[8] = 1.0;
        Some(Homography(h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn homography_maps_corners() {
        let src = [[10.0, 10.0], [110.0, 20.0], [100.0, 200.0], [5.0, 190.0]];
        let dst = [[0.0, 0.0], [63.0, 0.0], [63.0, 88.0], [0.0, 88.0]];
        let h = Homography::from_points(&src, &dst).unwrap();
        for i in 0..4 {
            let p = h.apply(src[i]).unwrap();
            assert!(dist(p, dst[i]) < 1e-2);
        }
    }

    #[test]
    fn degenerate_homography_is_none() {
        let src = [[0.0, 0.0]; 4];
        let dst = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert!(Homography::from_points(&src, &dst).is_none());
    }

    #[test]
    fn quad_area_and_contains() {
        let q = Quad([[0.0, 0.0], [2.0, 0.0], [2.0, 3.0], [0.0, 3.0]]);
        assert!((q.area() - 6.0).abs() < 1e-6);
        assert!(q.contains([1.0, 1.0]));
        assert!(!q.contains([3.0, 1.0]));
    }
}
