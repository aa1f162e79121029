//! Classifier training crops and their augmentation (geometric, photometric,
//! channel order, blur, low resolution, noise, glints).

use super::*;

/// One classifier training crop: where, which class, and its augmentation.
#[derive(Debug, Clone, Copy)]
pub(in crate::vision::dice) struct CropSpec {
    center: [f32; 2],
    size: f32,
    class: usize,
    /// Angle error added to the estimated face angle (radians).
    angle: f32,
    /// Per-channel colour gain (simulated white balance / lighting).
    gain: [f32; 3],
    /// Contrast factor around the crop mean.
    contrast: f32,
    /// Blur the sampled cells with a 3x3 binomial kernel.
    blur: bool,
    /// Pixel noise standard deviation (0-255 units) and its seed.
    noise: f32,
    noise_seed: u64,
    /// Specular glint: a bright band across the crop (glossy and
    /// translucent dice), as (angle, offset from the centre in cells,
    /// half-width in cells, strength 0-1); strength 0 = none.
    glint: [f32; 4],
    /// Colour channel order (index into [`CHANNEL_ORDERS`]; 0 = unchanged).
    perm: usize,
    /// Simulated crop resolution in cells across (box-downsampled to this
    /// and upsampled back); 0 = none.
    shrink: usize,
}

/// The 6 orders of the R, G, B channels; the first is the identity.
pub(super) const CHANNEL_ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

impl CropSpec {
    pub(in crate::vision::dice) fn plain(center: [f32; 2], size: f32, class: usize) -> Self {
        Self {
            center,
            size,
            class,
            angle: 0.0,
            gain: [1.0; 3],
            contrast: 1.0,
            blur: false,
            noise: 0.0,
            noise_seed: 0,
            glint: [0.0; 4],
            perm: 0,
            shrink: 0,
        }
    }
    /// Photometric jitter only (brightness, colour gains, contrast).
    pub(in crate::vision::dice) fn photometric(mut self, rng: &mut XorShift) -> Self {
        let b = 1.0 + (rng.unit() - 0.5) * 2.0 * BRIGHT_JITTER;
        let mut g = || b * (1.0 + (rng.unit() - 0.5) * 2.0 * GAIN_JITTER);
        self.gain = [g(), g(), g()];
        self.contrast = 1.0 + (rng.unit() - 0.5) * 2.0 * CONTRAST_JITTER;
        self
    }
    /// Full jitter: geometry (centre, size, angle), photometric, blur, noise.
    pub(in crate::vision::dice) fn jittered(d: &LabelledDie, rng: &mut XorShift) -> Self {
        let center = [
            d.center[0] + (rng.unit() - 0.5) * 2.0 * CENTER_JITTER * d.size,
            d.center[1] + (rng.unit() - 0.5) * 2.0 * CENTER_JITTER * d.size,
        ];
        let size = d.size * (1.0 + (rng.unit() - 0.5) * 2.0 * SIZE_JITTER);
        let mut s = Self::plain(center, size, d.value as usize).photometric(rng);
        s.angle = (rng.unit() - 0.5) * ANGLE_JITTER;
        s.blur = rng.unit() < BLUR_PROB;
        s.noise = rng.unit() * NOISE_MAX;
        s.noise_seed = rng.next_u64();
        if rng.unit() < GLINT_PROB {
            s.glint = [
                rng.unit() * std::f32::consts::PI,
                (rng.unit() - 0.5) * GRID as f32 * 0.6,
                0.6 + 1.4 * rng.unit(),
                0.4 + 0.5 * rng.unit(),
            ];
        }
        if rng.unit() < CHANNEL_PERM_PROB {
            s.perm = 1 + rng.below(CHANNEL_ORDERS.len() - 1);
        }
        if rng.unit() < SHRINK_PROB {
            s.shrink = SHRINK_CELLS.0 + rng.below(SHRINK_CELLS.1 - SHRINK_CELLS.0 + 1);
        }
        s
    }
}

/// Apply the photometric part of `spec` to sampled crop cells.
// Index loops over several parallel arrays read clearer than zipped iterators here.
#[allow(clippy::needless_range_loop)]
pub(super) fn augment_cells(cells: &mut [[f32; 3]], side_cells: usize, spec: &CropSpec) {
    if spec.perm != 0 {
        let order = CHANNEL_ORDERS[spec.perm % CHANNEL_ORDERS.len()];
        for p in cells.iter_mut() {
            *p = [p[order[0]], p[order[1]], p[order[2]]];
        }
    }
    if spec.shrink > 0 && cells.len() == side_cells * side_cells {
        shrink_cells(cells, side_cells, spec.shrink);
    }
    if spec.blur && cells.len() == side_cells * side_cells {
        let src = cells.to_vec();
        let g = side_cells as i64;
        let at = |x: i64, y: i64| src[(y.clamp(0, g - 1) * g + x.clamp(0, g - 1)) as usize];
        for y in 0..g {
            for x in 0..g {
                let mut acc = [0f32; 3];
                for (dy, wy) in [(-1i64, 1.0f32), (0, 2.0), (1, 1.0)] {
                    for (dx, wx) in [(-1i64, 1.0f32), (0, 2.0), (1, 1.0)] {
                        let p = at(x + dx, y + dy);
                        for c in 0..3 {
                            acc[c] += p[c] * wx * wy / 16.0;
                        }
                    }
                }
                cells[(y * g + x) as usize] = acc;
            }
        }
    }
    if spec.gain != [1.0; 3] || spec.contrast != 1.0 {
        let n = cells.len().max(1) as f32;
        let mut mean = [0f32; 3];
        for p in cells.iter() {
            for c in 0..3 {
                mean[c] += p[c] * spec.gain[c] / n;
            }
        }
        for p in cells.iter_mut() {
            for c in 0..3 {
                let v = p[c] * spec.gain[c];
                p[c] = (mean[c] + (v - mean[c]) * spec.contrast).clamp(0.0, 255.0);
            }
        }
    }
    if spec.glint[3] > 0.0 && cells.len() == side_cells * side_cells {
        let [ang, off, half, strength] = spec.glint;
        let (sn, cs) = ang.sin_cos();
        let c = (side_cells as f32 - 1.0) / 2.0;
        for (k, p) in cells.iter_mut().enumerate() {
            let (x, y) = ((k % side_cells) as f32 - c, (k / side_cells) as f32 - c);
            let d = (x * cs + y * sn - off).abs();
            if d < half + 1.0 {
                let w = strength * (half + 1.0 - d).min(1.0);
                for v in p.iter_mut() {
                    *v += (250.0 - *v) * w;
                }
            }
        }
    }
    if spec.noise > 0.0 {
        let mut rng = XorShift::new(spec.noise_seed);
        for p in cells.iter_mut() {
            for c in 0..3 {
                p[c] = (p[c] + rng.normal() * spec.noise).clamp(0.0, 255.0);
            }
        }
    }
}

/// Degrade a `g x g` cell grid to the resolution of an `n x n` image: box
/// (area) downsampling to `n x n`, then bilinear upsampling back to `g x g`.
pub(super) fn shrink_cells(cells: &mut [[f32; 3]], g: usize, n: usize) {
    if n == 0 || n >= g {
        return;
    }
    let k = g as f32 / n as f32;
    let mut small = vec![[0f32; 3]; n * n];
    // Area weights of source cell i in target cell j along one axis.
    let overlap = |j: usize, i: usize| {
        let (a, b) = (j as f32 * k, (j + 1) as f32 * k);
        ((i + 1) as f32).min(b) - (i as f32).max(a)
    };
    for ty in 0..n {
        let ys = (ty as f32 * k) as usize..(((ty + 1) as f32 * k).ceil() as usize).min(g);
        for tx in 0..n {
            let xs = (tx as f32 * k) as usize..(((tx + 1) as f32 * k).ceil() as usize).min(g);
            let mut acc = [0f32; 3];
            let mut wsum = 0f32;
            for y in ys.clone() {
                let wy = overlap(ty, y).max(0.0);
                for x in xs.clone() {
                    let w = wy * overlap(tx, x).max(0.0);
                    for (a, v) in acc.iter_mut().zip(cells[y * g + x]) {
                        *a += w * v;
                    }
                    wsum += w;
                }
            }
            small[ty * n + tx] = acc.map(|a| a / wsum.max(1e-6));
        }
    }
    for y in 0..g {
        let sy = ((y as f32 + 0.5) / k - 0.5).clamp(0.0, (n - 1) as f32);
        let (y0, fy) = (sy.floor() as usize, sy.fract());
        let y1 = (y0 + 1).min(n - 1);
        for x in 0..g {
            let sx = ((x as f32 + 0.5) / k - 0.5).clamp(0.0, (n - 1) as f32);
            let (x0, fx) = (sx.floor() as usize, sx.fract());
            let x1 = (x0 + 1).min(n - 1);
            let mut v = [0f32; 3];
            for (c, o) in v.iter_mut().enumerate() {
                let top = small[y0 * n + x0][c] * (1.0 - fx) + small[y0 * n + x1][c] * fx;
                let bot = small[y1 * n + x0][c] * (1.0 - fx) + small[y1 * n + x1][c] * fx;
                *o = top * (1.0 - fy) + bot * fy;
            }
            cells[y * g + x] = v;
        }
    }
}

/// Add the crop under the given dihedral transforms.
pub(in crate::vision::dice) fn push_crop(
    img: &RgbImage,
    spec: &CropSpec,
    transforms: &[usize],
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    // Fitting is not per frame: the cached feature query per crop is enough.
    let cpu = Cpu::detect();
    let (mut cells, side) = aligned_crop(
        img,
        spec.center[0],
        spec.center[1],
        spec.size,
        CROP_SCALE,
        spec.angle,
        cpu,
    );
    augment_cells(&mut cells, GRID, spec);
    for &t in transforms {
        rows.push(crop_features(&cells, side, t, cpu));
        classes.push(spec.class);
    }
}

pub(in crate::vision::dice) fn random_transforms(rng: &mut XorShift, n: usize) -> Vec<usize> {
    let start = rng.below(8);
    (0..n).map(|k| (start + k * 3) % 8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn augmentation_is_deterministic_and_bounded() {
        let d = LabelledDie {
            value: 4,
            center: [30.0, 30.0],
            size: 40.0,
        };
        let cells: Vec<[f32; 3]> = (0..GRID * GRID)
            .map(|k| {
                if k % 7 == 0 {
                    [20.0; 3]
                } else {
                    [200.0, 120.0, 40.0]
                }
            })
            .collect();
        let (mut r1, mut r2) = (XorShift::new(5), XorShift::new(5));
        for _ in 0..50 {
            let (a, b) = (
                CropSpec::jittered(&d, &mut r1),
                CropSpec::jittered(&d, &mut r2),
            );
            let (mut ca, mut cb) = (cells.clone(), cells.clone());
            augment_cells(&mut ca, GRID, &a);
            augment_cells(&mut cb, GRID, &b);
            assert_eq!(ca, cb);
            assert!(
                ca.iter()
                    .flatten()
                    .all(|v| v.is_finite() && *v >= 0.0 && *v <= 255.0)
            );
            assert_eq!(a.class, 4);
        }
        // A glint brightens the band through the centre and nothing far off.
        let mut g = CropSpec::plain([0.0; 2], 40.0, 1);
        g.glint = [0.0, 0.0, 1.0, 0.8];
        let mut c = vec![[100.0f32; 3]; GRID * GRID];
        augment_cells(&mut c, GRID, &g);
        let mid = GRID / 2;
        assert!(c[mid * GRID + mid][0] > 200.0);
        assert_eq!(c[mid * GRID][0], 100.0);
    }

    #[test]
    fn shrink_keeps_flat_grids_and_softens_edges() {
        let mut flat = vec![[80.0f32, 120.0, 200.0]; GRID * GRID];
        shrink_cells(&mut flat, GRID, SHRINK_CELLS.0);
        assert!(
            flat.iter()
                .flatten()
                .zip([80.0, 120.0, 200.0].iter().cycle())
                .all(|(a, b)| (a - b).abs() < 1e-3)
        );
        // A one-cell bright line is spread over its neighbours.
        let mut line: Vec<[f32; 3]> = (0..GRID * GRID)
            .map(|k| {
                if k % GRID == GRID / 2 {
                    [255.0; 3]
                } else {
                    [0.0; 3]
                }
            })
            .collect();
        shrink_cells(&mut line, GRID, SHRINK_CELLS.0);
        let row = &line[GRID * 3..GRID * 4];
        assert!(row[GRID / 2][0] < 255.0 && row[GRID / 2 + 1][0] > 0.0);
    }
}
