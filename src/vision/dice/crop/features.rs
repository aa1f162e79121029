//! Crop features: the polarity-free maps, scalars and pip-blob counts of a
//! sampled crop, their dihedral transforms, and readers of stored fields.

use super::blobs::blob_peaks;
use super::select::kth_total_order;
use super::{GRID, MAP, N_CROP_FEATURES, N_MAPS};
use crate::vision::dice::cpu::Cpu;

/// Added to the per-crop colour standard deviation before dividing, so a
/// flat crop is not stretched into noise (0-255 units).
const RGB_STD_FLOOR: f32 = 12.0;

/// Pip-blob thresholds (centre-surround contrast in units of the crop contrast
/// normaliser) at which blobs are counted; several levels because faint pips
/// (gold on yellow) and strong ones (black on white) differ a lot.
const PIP_LEVELS: [f32; 4] = [0.2, 0.3, 0.45, 0.6];

/// Pip-blob thresholds relative to the strongest blob: the pips of one face
/// have about the same contrast, spurious blobs (texture, edges) are weaker.
const PIP_REL_LEVELS: [f32; 3] = [0.4, 0.55, 0.7];

/// Minimum absolute response for a blob to count at a relative level.
const PIP_REL_MIN: f32 = 0.1;

/// Blob counts are one-hot encoded over 0..PIP_COUNT_BINS-1 (the last bin
/// collects 7 and more).
const PIP_COUNT_BINS: usize = 8;

/// The strongest this many blob responses are fed to the classifier (sorted).
const PIP_TOP: usize = 9;

/// Pip features: counts per level (one-hot) and the sorted top responses.
pub(super) const N_PIP_FEATURES: usize =
    (PIP_LEVELS.len() + PIP_REL_LEVELS.len()) * PIP_COUNT_BINS + PIP_TOP;

/// Scalars appended after the maps: face R, G, B, contrast normaliser, size.
pub(super) const N_SCALARS: usize = 5;

/// Floor on the contrast normaliser (0-255 colour distance units) so that a
/// flat crop (background, blank paper) is not stretched into noise.
const MIN_CONTRAST: f32 = 24.0;

/// Percentile of the core's colour distances used as contrast normaliser.
const NORM_PERCENTILE: f32 = 0.97;

/// Share of the crop side (centred) whose colour median is taken as the face
/// colour: the central part is face, pips cover well under half of it.
const FACE_CORE: f32 = 0.6;

/// Transform index 0..8 of the dihedral group applied to coordinates of a
/// `MAP x MAP` map.
pub fn dihedral(t: usize, x: usize, y: usize) -> (usize, usize) {
    let m = MAP - 1;
    let (x, y) = if t & 4 != 0 { (m - x, y) } else { (x, y) };
    match t & 3 {
        0 => (x, y),
        1 => (m - y, x),
        2 => (m - x, m - y),
        _ => (y, m - x),
    }
}

/// The features of the same crop under dihedral transform `t`, from the
/// untransformed features `f0` (`crop_features(.., 0)`): the maps are
/// permuted, the scalars are transform-invariant. Equal to
/// `crop_features(cells, side, t)` but much cheaper.
pub fn transform_features(f0: &[f32], t: usize) -> Vec<f32> {
    let mut out = Vec::new();
    transform_features_into(f0, t, &mut out);
    out
}

/// [`transform_features`] into a reusable buffer: the map permutation is
/// tabled once per call and applied to every map.
pub fn transform_features_into(f0: &[f32], t: usize, out: &mut Vec<f32>) {
    out.clear();
    out.extend_from_slice(f0);
    if t == 0 || f0.len() != N_CROP_FEATURES {
        return;
    }
    let n = MAP * MAP;
    let mut dst = [0usize; MAP * MAP];
    for (k, d) in dst.iter_mut().enumerate() {
        let (tx, ty) = dihedral(t, k % MAP, k / MAP);
        *d = ty * MAP + tx;
    }
    for (src, o) in f0[..N_MAPS * n]
        .chunks_exact(n)
        .zip(out.chunks_exact_mut(n))
    {
        for (v, &d) in src.iter().zip(&dst) {
            o[d] = *v;
        }
    }
}

/// Number of pip-count levels in a crop feature vector (absolute, then
/// relative to the strongest blob).
pub const N_PIP_COUNTS: usize = PIP_LEVELS.len() + PIP_REL_LEVELS.len();

/// The pip-blob counts (0-7, 7 = seven or more) stored one-hot in a crop
/// feature vector, per level (see [`N_PIP_COUNTS`]).
pub fn pip_counts(f: &[f32]) -> [usize; N_PIP_COUNTS] {
    let base = N_MAPS * MAP * MAP + N_SCALARS;
    let mut out = [0usize; N_PIP_COUNTS];
    for (l, o) in out.iter_mut().enumerate() {
        let s = base + l * PIP_COUNT_BINS;
        if let Some(bins) = f.get(s..s + PIP_COUNT_BINS) {
            *o = bins.iter().position(|v| *v > 0.5).unwrap_or(0);
        }
    }
    out
}

/// The face colour (RGB 0-255) stored in a crop feature vector.
pub fn face_colour(f: &[f32]) -> [f32; 3] {
    let sb = N_MAPS * MAP * MAP;
    match f.get(sb..sb + 3) {
        Some(v) => [v[0] * 255.0, v[1] * 255.0, v[2] * 255.0],
        None => [0.0; 3],
    }
}

/// `f` of the cells of the square `[lo, hi)^2` of the `GRID x GRID` grid
/// `grid`, row by row: one allocation and a slice per row (collecting a
/// `flat_map` over the rows cost more than the selection itself).
fn core_values<T>(grid: &[T], lo: usize, hi: usize, f: impl Fn(&T) -> f32) -> Vec<f32> {
    let mut v = Vec::with_capacity(hi.saturating_sub(lo).pow(2));
    for y in lo..hi {
        if let Some(row) = grid.get(y * GRID + lo..y * GRID + hi) {
            v.extend(row.iter().map(&f));
        }
    }
    v
}

/// Crop features from a sampled crop (see [`sample_crop`]), after applying the
/// dihedral transform `t` (0 = identity; others are for training augmentation),
/// on the SIMD paths `cpu` allows.
///
/// Compiled for AVX when the CPU has it (wider vector loops; the same float
/// operations in the same order, no fused multiply-add, so the same bits as
/// [`crop_features_portable`]).
///
/// [`sample_crop`]: super::sample_crop
pub fn crop_features(cells: &[[f32; 3]], side: f32, t: usize, cpu: Cpu) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    if cpu.avx {
        // SAFETY: `cpu.avx` says the CPU has AVX.
        return unsafe { crop_features_avx(cells, side, t, cpu) };
    }
    crop_features_portable(cells, side, t)
}

/// [`crop_features`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn crop_features_avx(cells: &[[f32; 3]], side: f32, t: usize, cpu: Cpu) -> Vec<f32> {
    crop_features_body(cells, side, t, cpu)
}

/// [`crop_features`] without CPU-specific code (SSE2 on x86_64).
pub fn crop_features_portable(cells: &[[f32; 3]], side: f32, t: usize) -> Vec<f32> {
    crop_features_body(cells, side, t, Cpu::portable())
}

/// The body of [`crop_features`], inlined into each variant.
#[inline(always)]
fn crop_features_body(cells: &[[f32; 3]], side: f32, t: usize, cpu: Cpu) -> Vec<f32> {
    let mut out = vec![0f32; N_CROP_FEATURES];
    if cells.len() != GRID * GRID {
        return out;
    }
    // Face colour: per-channel median of the central core.
    let lo = ((1.0 - FACE_CORE) / 2.0 * GRID as f32) as usize;
    let hi = GRID - lo;
    let mut face = [0f32; 3];
    for (c, f) in face.iter_mut().enumerate() {
        let v = core_values(cells, lo, hi, |p| p[c]);
        *f = kth_total_order(&v, v.len() / 2);
    }
    let face_l = (face[0] + face[1] + face[2]) / 3.0;
    let dist: Vec<f32> = cells
        .iter()
        .map(|p| {
            (p[0] - face[0])
                .abs()
                .max((p[1] - face[1]).abs())
                .max((p[2] - face[2]).abs())
        })
        .collect();
    // Contrast normaliser: a high percentile of the distance inside the core,
    // which lands on pips even for the single pip of a 1.
    let core = core_values(&dist, lo, hi, |d| *d);
    let k = ((core.len() as f32 * NORM_PERCENTILE) as usize).min(core.len().saturating_sub(1));
    let norm = kth_total_order(&core, k).max(MIN_CONTRAST);
    let n = MAP * MAP;
    let dmap: Vec<f32> = dist.iter().map(|d| (d / norm).min(2.0)).collect();
    let mut mean = [0f32; 3];
    let mut sq = [0f32; 3];
    for p in cells {
        for c in 0..3 {
            mean[c] += p[c];
            sq[c] += p[c] * p[c];
        }
    }
    let cnt = cells.len() as f32;
    let mut inv_std = [0f32; 3];
    for c in 0..3 {
        mean[c] /= cnt;
        let var = (sq[c] / cnt - mean[c] * mean[c]).max(0.0);
        inv_std[c] = 1.0 / (var.sqrt() + RGB_STD_FLOOR);
    }
    for y in 0..MAP {
        for x in 0..MAP {
            let (tx, ty) = dihedral(t, x, y);
            let dst = ty * MAP + tx;
            let (mut dsum, mut lsum) = (0f32, 0f32);
            let mut rgb = [0f32; 3];
            for (sx, sy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let src = (2 * y + sy) * GRID + 2 * x + sx;
                let p = cells[src];
                dsum += dmap[src];
                lsum += ((p[0] + p[1] + p[2]) / 3.0 - face_l) / norm;
                for c in 0..3 {
                    rgb[c] += p[c];
                }
            }
            out[dst] = dsum / 4.0;
            out[n + dst] = (lsum / 4.0).clamp(-2.0, 2.0);
            for c in 0..3 {
                out[(2 + c) * n + dst] = (rgb[c] / 4.0 - mean[c]) * inv_std[c];
            }
        }
    }
    let sb = N_MAPS * n;
    out[sb] = face[0] / 255.0;
    out[sb + 1] = face[1] / 255.0;
    out[sb + 2] = face[2] / 255.0;
    out[sb + 3] = norm / 100.0;
    out[sb + 4] = side / 50.0;
    let peaks = blob_peaks(&dmap, cpu);
    let base = sb + N_SCALARS;
    for (li, level) in PIP_LEVELS.iter().enumerate() {
        let cnt = peaks
            .iter()
            .filter(|p| **p >= *level)
            .count()
            .min(PIP_COUNT_BINS - 1);
        out[base + li * PIP_COUNT_BINS + cnt] = 1.0;
    }
    let base = base + PIP_LEVELS.len() * PIP_COUNT_BINS;
    let top = peaks.first().copied().unwrap_or(0.0);
    for (li, rel) in PIP_REL_LEVELS.iter().enumerate() {
        let t = (rel * top).max(PIP_REL_MIN);
        let cnt = peaks
            .iter()
            .filter(|p| **p >= t)
            .count()
            .min(PIP_COUNT_BINS - 1);
        out[base + li * PIP_COUNT_BINS + cnt] = 1.0;
    }
    let base = base + PIP_REL_LEVELS.len() * PIP_COUNT_BINS;
    for (k, p) in peaks.iter().take(PIP_TOP).enumerate() {
        out[base + k] = *p;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::angle::estimate_angle_avx;
    use super::super::{bits, estimate_angle_portable, sample_crop};
    use super::*;
    use image::RgbImage;

    #[test]
    fn counts_synthetic_pips() {
        // A white face with five black pips in the usual pattern.
        let mut img = RgbImage::from_pixel(60, 60, image::Rgb([235; 3]));
        for (px, py) in [(20, 20), (40, 20), (30, 30), (20, 40), (40, 40)] {
            for y in py - 3..=py + 3 {
                for x in px - 3..=px + 3 {
                    img.put_pixel(x, y, image::Rgb([15; 3]));
                }
            }
        }
        let cells = sample_crop(&img, 30.0, 30.0, 42.0, 0.0, Cpu::detect());
        let f = crop_features(&cells, 42.0, 0, Cpu::detect());
        let base = N_MAPS * MAP * MAP + N_SCALARS + PIP_LEVELS.len() * PIP_COUNT_BINS;
        // Relative level 0.55: exactly five blobs.
        assert_eq!(f[base + PIP_COUNT_BINS + 5], 1.0);
    }

    #[test]
    fn transform_features_matches_direct() {
        let img = RgbImage::from_fn(50, 50, |x, y| {
            image::Rgb([(x * 5) as u8, (y * 5) as u8, ((x * y) % 256) as u8])
        });
        let cells = sample_crop(&img, 25.0, 25.0, 40.0, 0.2, Cpu::detect());
        let f0 = crop_features(&cells, 40.0, 0, Cpu::detect());
        for t in 0..8 {
            assert_eq!(
                transform_features(&f0, t),
                crop_features(&cells, 40.0, t, Cpu::detect())
            );
        }
    }

    /// The AVX-compiled crop features and face angle equal the portable
    /// ones bit for bit (random crops, flat and noisy, every transform).
    #[test]
    fn avx_crop_features_and_angle_match_portable() {
        if !Cpu::detect().avx {
            eprintln!("skipped: this CPU has no AVX");
            return;
        }
        let mut rng = crate::vision::dice::mlp::XorShift::new(17);
        for round in 0..12 {
            let cells: Vec<[f32; 3]> = (0..GRID * GRID)
                .map(|_| match round % 3 {
                    0 => [rng.unit() * 255.0, rng.unit() * 255.0, rng.unit() * 255.0],
                    1 => [200.0, 190.0, 180.0],
                    _ => {
                        let v = if rng.unit() < 0.2 { 30.0 } else { 220.0 };
                        [v, v * 0.9, v * 0.8]
                    }
                })
                .collect();
            for t in 0..8 {
                let want = crop_features_portable(&cells, 37.0, t);
                // SAFETY: the CPU reports AVX (checked above).
                let got = unsafe { crop_features_avx(&cells, 37.0, t, Cpu::detect()) };
                assert_eq!(bits(&want), bits(&got), "round {round} transform {t}");
            }
        }
        let img = RgbImage::from_fn(96, 80, |x, y| {
            let v = ((x * 7 + y * 13) % 50) as u8 + if (x / 9 + y / 11) % 2 == 0 { 150 } else { 0 };
            image::Rgb([v, v.wrapping_mul(3), 255 - v])
        });
        for (cx, cy, side) in [(40.0, 40.0, 30.0), (10.5, 70.2, 50.0), (90.0, 5.0, 12.0)] {
            let want = estimate_angle_portable(&img, cx, cy, side);
            // SAFETY: the CPU reports AVX (checked above).
            let got = unsafe { estimate_angle_avx(&img, cx, cy, side) };
            assert_eq!(want.to_bits(), got.to_bits());
        }
    }

    #[test]
    fn dihedral_is_permutation() {
        for t in 0..8 {
            let mut seen = [false; MAP * MAP];
            for y in 0..MAP {
                for x in 0..MAP {
                    let (a, b) = dihedral(t, x, y);
                    seen[b * MAP + a] = true;
                }
            }
            assert!(seen.iter().all(|s| *s));
        }
    }

    #[test]
    fn polarity_free() {
        // White die with a black pip vs black die with a white pip give the same map.
        let mk = |face: u8, pip: u8| {
            let mut img = RgbImage::from_pixel(40, 40, image::Rgb([face; 3]));
            for y in 17..23 {
                for x in 17..23 {
                    img.put_pixel(x, y, image::Rgb([pip; 3]));
                }
            }
            let cells = sample_crop(&img, 20.0, 20.0, 36.0, 0.0, Cpu::detect());
            crop_features(&cells, 36.0, 0, Cpu::detect())
        };
        let a = mk(240, 20);
        let b = mk(20, 240);
        let n = MAP * MAP;
        for i in 0..n {
            assert!((a[i] - b[i]).abs() < 1e-3);
        }
    }

    #[test]
    fn out_of_image_crop_is_finite() {
        let img = RgbImage::new(3, 2);
        let cells = sample_crop(&img, -50.0, 100.0, 40.0, 0.3, Cpu::detect());
        assert!(
            crop_features(&cells, 40.0, 3, Cpu::detect())
                .iter()
                .all(|v| v.is_finite())
        );
    }
}
