//! Face angle estimation: the dominant edge orientation of a die face.

use crate::vision::dice::cpu::Cpu;
use image::RgbImage;

/// Dominant edge orientation (radians, in [-pi/4, pi/4)) of the square die
/// face around `(cx, cy)` within a box of side `side`: the 4th power of the
/// gradient vector averages away round pips and keeps the square's edges.
///
/// Compiled for AVX when the CPU has it (8 divisions per instruction
/// instead of 4; the same operations per pixel and the same sums in the
/// same order, no fused multiply-add, so the same bits as
/// [`estimate_angle_portable`]).
pub fn estimate_angle(img: &RgbImage, cx: f32, cy: f32, side: f32, cpu: Cpu) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if cpu.avx {
        // SAFETY: `cpu.avx` says the CPU has AVX.
        return unsafe { estimate_angle_avx(img, cx, cy, side) };
    }
    estimate_angle_portable(img, cx, cy, side)
}

/// [`estimate_angle`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
pub(super) fn estimate_angle_avx(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
    estimate_angle_body(img, cx, cy, side)
}

/// [`estimate_angle`] without CPU-specific code (SSE2 on x86_64).
pub fn estimate_angle_portable(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
    estimate_angle_body(img, cx, cy, side)
}

/// The body of [`estimate_angle`], inlined into each variant.
#[inline(always)]
fn estimate_angle_body(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let r = (side / 2.0).max(1.0);
    let x0 = ((cx - r).floor() as i64).max(1);
    let x1 = ((cx + r).ceil() as i64).min(w - 2);
    let y0 = ((cy - r).floor() as i64).max(1);
    let y1 = ((cy + r).ceil() as i64).min(h - 2);
    if x1 < x0 || y1 < y0 {
        return 0.0;
    }
    // Luminance (R + G + B, an exact integer in f32) of the box and its
    // one-pixel border, computed once per pixel instead of once per use.
    let raw = img.as_raw();
    let (bx0, by0) = (x0 - 1, y0 - 1);
    let bw = (x1 - x0 + 3) as usize;
    let bh = (y1 - y0 + 3) as usize;
    let mut lum = vec![0f32; bw * bh];
    for (j, row) in lum.chunks_exact_mut(bw).enumerate() {
        let o = (((by0 + j as i64) * w + bx0) * 3) as usize;
        for (l, p) in row.iter_mut().zip(raw[o..o + 3 * bw].chunks_exact(3)) {
            *l = p[0] as f32 + p[1] as f32 + p[2] as f32;
        }
    }
    let (mut sc, mut ss) = (0f64, 0f64);
    // Per row, the terms of all pixels first (no branch: vectorised, four
    // divisions per instruction), then their sums in pixel order. A pixel
    // without gradient adds +0.0 where it used to be skipped: the same sum,
    // as the sums start at +0.0 and so are never -0.0.
    let n = bw - 2;
    let (mut tc, mut td) = (vec![0f32; n], vec![0f32; n]);
    for j in 1..bh - 1 {
        let (up, row, dn) = (
            &lum[(j - 1) * bw + 1..j * bw - 1],
            &lum[j * bw..(j + 1) * bw],
            &lum[(j + 1) * bw + 1..(j + 2) * bw - 1],
        );
        // Equal lengths (n): no bounds checks in the loop.
        let (left, right) = (&row[..n], &row[2..n + 2]);
        let cols = tc.iter_mut().zip(td.iter_mut()).zip(left.iter().zip(right));
        for (((oc, od), (&l, &r)), (&u, &dw)) in cols.zip(up.iter().zip(dn)) {
            let gx = r - l;
            let gy = dw - u;
            let m2 = gx * gx + gy * gy;
            // g^2 = (gx^2 - gy^2, 2 gx gy); g^4 / |g|^2 keeps weight |g|^2.
            let (a, b) = (gx * gx - gy * gy, 2.0 * gx * gy);
            let (c, d) = (a * a - b * b, 2.0 * a * b);
            let (vc, vd) = (c / m2, d / m2);
            *oc = if m2 > 0.0 { vc } else { 0.0 };
            *od = if m2 > 0.0 { vd } else { 0.0 };
        }
        for (&c, &d) in tc.iter().zip(&td) {
            sc += c as f64;
            ss += d as f64;
        }
    }
    if sc == 0.0 && ss == 0.0 {
        return 0.0;
    }
    (ss.atan2(sc) / 4.0) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angle_of_rotated_square() {
        let mut img = RgbImage::from_pixel(80, 80, image::Rgb([200; 3]));
        let t = 0.3f32;
        // Anti-aliased (4x4 supersampled) like a real photo; a hard staircase
        // edge would bias the gradient directions towards the pixel axes.
        for y in 0..80 {
            for x in 0..80 {
                let mut cover = 0.0;
                for sy in 0..4 {
                    for sx in 0..4 {
                        let u = x as f32 + (sx as f32 + 0.5) / 4.0 - 40.0;
                        let v = y as f32 + (sy as f32 + 0.5) / 4.0 - 40.0;
                        let (a, b) = (u * t.cos() + v * t.sin(), -u * t.sin() + v * t.cos());
                        if a.abs() < 15.0 && b.abs() < 15.0 {
                            cover += 1.0 / 16.0;
                        }
                    }
                }
                let mix = |bg: f32, fg: f32| (bg * (1.0 - cover) + fg * cover) as u8;
                img.put_pixel(
                    x,
                    y,
                    image::Rgb([mix(200.0, 30.0), mix(200.0, 30.0), mix(200.0, 160.0)]),
                );
            }
        }
        let a = estimate_angle(&img, 40.0, 40.0, 50.0, Cpu::detect());
        // Within 0.1 rad (the crop classifier is fitted with +-0.125 rad jitter).
        assert!((a - t).abs() < 0.1, "{a}");
    }

    /// The angle as computed before the luminance was buffered (four
    /// luminance sums per pixel): the reference for `estimate_angle`.
    fn estimate_angle_reference(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
        let (w, h) = (img.width() as i64, img.height() as i64);
        let r = (side / 2.0).max(1.0);
        let x0 = ((cx - r).floor() as i64).max(1);
        let x1 = ((cx + r).ceil() as i64).min(w - 2);
        let y0 = ((cy - r).floor() as i64).max(1);
        let y1 = ((cy + r).ceil() as i64).min(h - 2);
        let raw = img.as_raw();
        let lum = |x: i64, y: i64| {
            let o = ((y * w + x) * 3) as usize;
            raw[o] as f32 + raw[o + 1] as f32 + raw[o + 2] as f32
        };
        let (mut sc, mut ss) = (0f64, 0f64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let gx = lum(x + 1, y) - lum(x - 1, y);
                let gy = lum(x, y + 1) - lum(x, y - 1);
                let m2 = gx * gx + gy * gy;
                if m2 > 0.0 {
                    let (a, b) = (gx * gx - gy * gy, 2.0 * gx * gy);
                    let (c, d) = (a * a - b * b, 2.0 * a * b);
                    sc += (c / m2) as f64;
                    ss += (d / m2) as f64;
                }
            }
        }
        if sc == 0.0 && ss == 0.0 {
            return 0.0;
        }
        (ss.atan2(sc) / 4.0) as f32
    }

    #[test]
    fn angle_matches_reference_bit_for_bit() {
        let img = RgbImage::from_fn(41, 33, |x, y| {
            image::Rgb([
                (x * 11 % 256) as u8,
                (y * 23 % 256) as u8,
                ((x * y * 7) % 256) as u8,
            ])
        });
        for (cx, cy, side) in [
            (20.0, 16.0, 18.0),
            (1.0, 2.0, 30.0),
            (39.5, 31.2, 12.0),
            (-20.0, 5.0, 10.0),
            (20.0, 16.0, 200.0),
        ] {
            assert_eq!(
                estimate_angle(&img, cx, cy, side, Cpu::detect()).to_bits(),
                estimate_angle_reference(&img, cx, cy, side).to_bits()
            );
        }
        // Mostly flat (pixels without gradient, whose terms are now summed
        // as +0.0), with a tilted bright square and an all-flat crop.
        let flat = RgbImage::from_fn(48, 40, |x, y| {
            let (u, v) = (x as i32 - 24, y as i32 - 20);
            let inside = (u + v / 3).abs() < 8 && (v - u / 3).abs() < 8;
            image::Rgb(if inside {
                [230, 220, 210]
            } else {
                [60, 60, 60]
            })
        });
        for (cx, cy, side) in [(24.0, 20.0, 30.0), (20.0, 18.0, 12.0), (5.0, 5.0, 6.0)] {
            assert_eq!(
                estimate_angle(&flat, cx, cy, side, Cpu::detect()).to_bits(),
                estimate_angle_reference(&flat, cx, cy, side).to_bits()
            );
        }
        assert_eq!(estimate_angle(&flat, 5.0, 5.0, 6.0, Cpu::detect()), 0.0);
    }
}
