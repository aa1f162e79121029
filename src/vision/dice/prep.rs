//! Pre-processing shared by the detector: half-resolution colour planes, a local
//! background estimate, foreground channels and their integral images.

use image::RgbImage;

/// Detection runs at this down-sampling factor of the input frame (dice of
/// 21-69 px become 10-35 px, plenty for finding them; faces are read at full
/// resolution).
pub const DETECT_DOWNSAMPLE: u32 = 2;

/// Side of the square blocks (half-resolution pixels) over which the background
/// colour is estimated; 16 half-res px = 32 frame px, smaller than most dice.
const BG_BLOCK: usize = 16;

/// Radius (in blocks) of the median filter over block colours; 2 -> 5x5 blocks
/// = 160 frame px, wider than the largest die (69 px) so dice do not become
/// background unless they cover most of that area.
const BG_MEDIAN_RADIUS: usize = 2;

/// Number of foreground channels (see [`Prepared::integrals`]).
pub const N_CHANNELS: usize = 5;

/// A frame prepared for detection.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Half-resolution width.
    pub w: usize,
    /// Half-resolution height.
    pub h: usize,
    /// Integral images (size `(w+1)*(h+1)`) of the channels: colour distance
    /// to background, gradient magnitude, saturation, darker-than-background,
    /// brighter-than-background. Sums wrap modulo 2^32: a box sum computed
    /// with wrapping arithmetic is exact as long as the true box sum fits in
    /// 32 bits (boxes here are at most 41x41 values of at most 510 each).
    /// Stored interleaved: `integrals[y * (w + 1) + x][channel]`.
    pub integrals: Vec<[u32; N_CHANNELS]>,
}

impl Prepared {
    /// Sum of channel `c` over the half-open box `[x0,x1) x [y0,y1)` (clamped).
    pub fn box_sum(&self, c: usize, x0: i64, y0: i64, x1: i64, y1: i64) -> (u32, u32) {
        let cl = |v: i64, m: usize| v.clamp(0, m as i64) as usize;
        let (x0, x1) = (cl(x0, self.w), cl(x1, self.w));
        let (y0, y1) = (cl(y0, self.h), cl(y1, self.h));
        if x1 <= x0 || y1 <= y0 {
            return (0, 0);
        }
        let s = self.w + 1;
        let ii = &self.integrals;
        let at = |k: usize| ii.get(k).and_then(|v| v.get(c)).copied().unwrap_or(0);
        let sum = at(y1 * s + x1)
            .wrapping_add(at(y0 * s + x0))
            .wrapping_sub(at(y0 * s + x1))
            .wrapping_sub(at(y1 * s + x0));
        (sum, ((x1 - x0) * (y1 - y0)) as u32)
    }

    /// Means of all channels over the box (clamped), zeros if empty; equal
    /// to [`Self::box_mean`] per channel. The detector takes 20 per scored
    /// cell, hence the inline hint (callgrind shows the compiler may still
    /// keep it out of line).
    #[inline]
    pub fn box_means(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> [f32; N_CHANNELS] {
        let cl = |v: i64, m: usize| v.clamp(0, m as i64) as usize;
        let (x0, x1) = (cl(x0, self.w), cl(x1, self.w));
        let (y0, y1) = (cl(y0, self.h), cl(y1, self.h));
        let mut out = [0f32; N_CHANNELS];
        if x1 <= x0 || y1 <= y0 {
            return out;
        }
        let s = self.w + 1;
        let ii = &self.integrals;
        let (Some(a), Some(b), Some(c), Some(d)) = (
            ii.get(y1 * s + x1),
            ii.get(y0 * s + x0),
            ii.get(y0 * s + x1),
            ii.get(y1 * s + x0),
        ) else {
            return out;
        };
        let n = ((x1 - x0) * (y1 - y0)) as u32 as f32;
        for (k, o) in out.iter_mut().enumerate() {
            let sum = a[k]
                .wrapping_add(b[k])
                .wrapping_sub(c[k])
                .wrapping_sub(d[k]);
            // True box sums are below 2^31 (see `integrals`), so the i32
            // conversion equals the u32 one and vectorises.
            *o = sum as i32 as f32 / n;
        }
        out
    }

    /// Mean of channel `c` over the box, 0 if empty.
    pub fn box_mean(&self, c: usize, x0: i64, y0: i64, x1: i64, y1: i64) -> f32 {
        let (s, n) = self.box_sum(c, x0, y0, x1, y1);
        if n == 0 { 0.0 } else { s as f32 / n as f32 }
    }
}

/// The element at index `len / 2` of the sorted values (0 if empty), by
/// histogram (same result as a selection, faster for byte values).
fn median_u8(v: &mut [u8]) -> u8 {
    if v.is_empty() {
        return 0;
    }
    if v.len() < 64 {
        let mid = v.len() / 2;
        return *v.select_nth_unstable(mid).1;
    }
    let mut hist = [0u32; 256];
    for &x in v.iter() {
        hist[x as usize] += 1;
    }
    hist_median(&hist, v.len() as u32)
}

/// The element at index `n / 2` of the sorted values counted in `hist` (`n`
/// values in all; 0 if none): the same value as [`median_u8`] on them.
fn hist_median(hist: &[u32; 256], n: u32) -> u8 {
    if n == 0 {
        return 0;
    }
    let mid = n / 2;
    let mut seen = 0u32;
    for (k, &c) in hist.iter().enumerate() {
        seen += c;
        if seen > mid {
            return k as u8;
        }
    }
    255
}

/// Build the detection planes for an RGB frame (any size >= 1x1).
pub fn prepare(img: &RgbImage) -> Prepared {
    let f = DETECT_DOWNSAMPLE as usize;
    let (fw, fh) = (img.width() as usize, img.height() as usize);
    let w = (fw / f).max(1);
    let h = (fh / f).max(1);
    let raw = img.as_raw();
    // Half-resolution RGB by box averaging.
    let mut rgb = vec![0u8; w * h * 3];
    if f == 2 && fw >= 2 && fh >= 2 {
        for y in 0..h {
            let r0 = &raw[(2 * y) * fw * 3..(2 * y + 1) * fw * 3];
            let r1 = &raw[(2 * y + 1) * fw * 3..(2 * y + 2) * fw * 3];
            let orow = &mut rgb[y * w * 3..(y + 1) * w * 3];
            // Pixel-pair chunks: no per-byte bounds checks.
            let pairs = orow
                .chunks_exact_mut(3)
                .zip(r0.chunks_exact(6).zip(r1.chunks_exact(6)));
            for (o, (a, b)) in pairs {
                for c in 0..3 {
                    let sum = a[c] as u32 + a[c + 3] as u32 + b[c] as u32 + b[c + 3] as u32;
                    o[c] = (sum / 4) as u8;
                }
            }
        }
    }
    for y in 0..h {
        if f == 2 && fw >= 2 && fh >= 2 {
            break;
        }
        for x in 0..w {
            let mut acc = [0u32; 3];
            let mut n = 0u32;
            for dy in 0..f {
                let sy = y * f + dy;
                if sy >= fh {
                    continue;
                }
                for dx in 0..f {
                    let sx = x * f + dx;
                    if sx >= fw {
                        continue;
                    }
                    let p = (sy * fw + sx) * 3;
                    acc[0] += raw[p] as u32;
                    acc[1] += raw[p + 1] as u32;
                    acc[2] += raw[p + 2] as u32;
                    n += 1;
                }
            }
            let n = n.max(1);
            let o = (y * w + x) * 3;
            for c in 0..3 {
                rgb[o + c] = (acc[c] / n) as u8;
            }
        }
    }
    // Block medians of each colour channel: one pass over the block fills
    // the three channel histograms (the median by histogram equals the
    // selection [`median_u8`] would make, see its test).
    let bw = w.div_ceil(BG_BLOCK);
    let bh = h.div_ceil(BG_BLOCK);
    let mut block = vec![[0u8; 3]; bw * bh];
    let mut buf: Vec<u8> = Vec::with_capacity(BG_BLOCK * BG_BLOCK);
    for by in 0..bh {
        let ys = by * BG_BLOCK..((by + 1) * BG_BLOCK).min(h);
        for bx in 0..bw {
            let (x0, x1) = (bx * BG_BLOCK, ((bx + 1) * BG_BLOCK).min(w));
            let mut hist = [[0u32; 256]; 3];
            for y in ys.clone() {
                for px in rgb[(y * w + x0) * 3..(y * w + x1) * 3].chunks_exact(3) {
                    hist[0][px[0] as usize] += 1;
                    hist[1][px[1] as usize] += 1;
                    hist[2][px[2] as usize] += 1;
                }
            }
            let n = (ys.len() * (x1 - x0)) as u32;
            for (c, hc) in hist.iter().enumerate() {
                block[by * bw + bx][c] = hist_median(hc, n);
            }
        }
    }
    // Median filter over neighbouring blocks.
    let mut bg_block = vec![[0f32; 3]; bw * bh];
    for by in 0..bh {
        for bx in 0..bw {
            for c in 0..3 {
                buf.clear();
                for ny in by.saturating_sub(BG_MEDIAN_RADIUS)..(by + BG_MEDIAN_RADIUS + 1).min(bh) {
                    for nx in
                        bx.saturating_sub(BG_MEDIAN_RADIUS)..(bx + BG_MEDIAN_RADIUS + 1).min(bw)
                    {
                        buf.push(block[ny * bw + nx][c]);
                    }
                }
                bg_block[by * bw + bx][c] = median_u8(&mut buf) as f32;
            }
        }
    }
    // Channels with bilinear background interpolation between block centres.
    let s = w + 1;
    let mut integrals = vec![[0u32; N_CHANNELS]; s * (h + 1)];
    // Luminance (sum of R, G, B; at most 765) for the gradient channel.
    let lum: Vec<u16> = rgb
        .chunks_exact(3)
        .map(|p| p[0] as u16 + p[1] as u16 + p[2] as u16)
        .collect();
    let half = BG_BLOCK as f32 / 2.0;
    // Per-column interpolation parameters (block indices and weight).
    let cols: Vec<(usize, usize, f32)> = (0..w)
        .map(|x| {
            let gx = ((x as f32 + 0.5 - half) / BG_BLOCK as f32).clamp(0.0, (bw - 1) as f32);
            let x0 = gx.floor() as usize;
            (x0, (x0 + 1).min(bw - 1), gx - x0 as f32)
        })
        .collect();
    let mut bg_row = vec![[0f32; 3]; bw];
    for y in 0..h {
        let gy = ((y as f32 + 0.5 - half) / BG_BLOCK as f32).clamp(0.0, (bh - 1) as f32);
        let y0 = gy.floor() as usize;
        let y1 = (y0 + 1).min(bh - 1);
        let ty = gy - y0 as f32;
        for (bx, v) in bg_row.iter_mut().enumerate() {
            for c in 0..3 {
                v[c] = bg_block[y0 * bw + bx][c] * (1.0 - ty) + bg_block[y1 * bw + bx][c] * ty;
            }
        }
        let lrow = &lum[y * w..(y + 1) * w];
        let lup = &lum[y.saturating_sub(1) * w..(y.saturating_sub(1) + 1) * w];
        let ldn = &lum[(y + 1).min(h - 1) * w..((y + 1).min(h - 1) + 1) * w];
        let row = &rgb[y * w * 3..(y + 1) * w * 3];
        let (top, bottom) = (y * s, (y + 1) * s);
        let (prev, cur) = integrals.split_at_mut(bottom);
        let above = &prev[top + 1..top + 1 + w];
        // Channel values are accumulated straight into the integral row (one
        // pass, no per-channel row buffers).
        let mut acc = [0u32; N_CHANNELS];
        let cells = cur[1..1 + w].iter_mut().zip(above).zip(row.chunks_exact(3));
        for (x, ((d, a), px)) in cells.enumerate() {
            let (x0, x1, tx) = cols[x];
            let (b0, b1) = (bg_row[x0], bg_row[x1]);
            let mut fg = 0.0;
            let mut bgl = 0.0;
            for c in 0..3 {
                let bgc = b0[c] * (1.0 - tx) + b1[c] * tx;
                fg += (px[c] as f32 - bgc).abs();
                bgl += bgc;
            }
            let l = lrow[x] as f32;
            let gx_ = lrow[(x + 1).min(w - 1)] as i32 - lrow[x.saturating_sub(1)] as i32;
            let gy_ = ldn[x] as i32 - lup[x] as i32;
            let grad = (gx_.unsigned_abs() + gy_.unsigned_abs()) / 3;
            let (r, g, b) = (px[0], px[1], px[2]);
            let sat = r.max(g).max(b) - r.min(g).min(b);
            // Darker / brighter than background: `l - bgl` is exactly
            // `-(bgl - l)`, so one division serves both (at most one is
            // non-zero). All values are finite and in [0, 255]: the i32
            // casts equal the u32 ones and are cheaper.
            let dark = bgl - l;
            let off = (dark.abs() / 3.0) as i32 as u32;
            let (darker, brighter) = if dark > 0.0 { (off, 0) } else { (0, off) };
            let v = [(fg / 3.0) as i32 as u32, grad, sat as u32, darker, brighter];
            for c in 0..N_CHANNELS {
                acc[c] = acc[c].wrapping_add(v[c]);
                d[c] = a[c].wrapping_add(acc[c]);
            }
        }
    }
    Prepared { w, h, integrals }
}

/// Box half-widths (half-resolution px) at which detection features are taken;
/// they span die half-sizes of 5-17 half-res px (21-69 frame px) and beyond.
pub const RADII: [i64; 8] = [3, 4, 6, 8, 10, 13, 16, 20];

/// Radii (indices into [`RADII`]) at which left/right and top/bottom asymmetry
/// of the foreground is measured; a die centre is symmetric.
const ASYM_RADII: [usize; 3] = [1, 3, 5];

/// Number of detection features per cell.
pub const N_DET_FEATURES: usize = N_CHANNELS * RADII.len() + 2 * 2 * ASYM_RADII.len();

/// Detection features of the cell centred at half-res pixel `(cx, cy)`.
pub fn det_features(p: &Prepared, cx: i64, cy: i64, out: &mut [f32; N_DET_FEATURES]) {
    for (ri, &r) in RADII.iter().enumerate() {
        let m = p.box_means(cx - r, cy - r, cx + r + 1, cy + r + 1);
        for (c, v) in m.iter().enumerate() {
            out[c * RADII.len() + ri] = *v;
        }
    }
    let base = N_CHANNELS * RADII.len();
    for (j, &ri) in ASYM_RADII.iter().enumerate() {
        let r = RADII[ri];
        let l = p.box_means(cx - r, cy - r, cx, cy + r + 1);
        let rr = p.box_means(cx + 1, cy - r, cx + r + 1, cy + r + 1);
        let t = p.box_means(cx - r, cy - r, cx + r + 1, cy);
        let b = p.box_means(cx - r, cy + 1, cx + r + 1, cy + r + 1);
        for c in 0..2 {
            let k = base + c * 2 * ASYM_RADII.len() + 2 * j;
            out[k] = (l[c] - rr[c]).abs();
            out[k + 1] = (t[c] - b[c]).abs();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integral_matches_direct_sum() {
        let mut img = RgbImage::from_pixel(64, 48, image::Rgb([200, 200, 200]));
        for y in 10..20 {
            for x in 20..30 {
                img.put_pixel(x, y, image::Rgb([200, 30, 30]));
            }
        }
        let p = prepare(&img);
        assert_eq!((p.w, p.h), (32, 24));
        // The red square is far from the grey background in colour.
        assert!(p.box_mean(0, 11, 6, 14, 9) > 50.0);
        assert!(p.box_mean(0, 0, 20, 4, 24) < 5.0);
        let mut f = [0f32; N_DET_FEATURES];
        det_features(&p, 12, 7, &mut f);
        assert!(f.iter().all(|v| v.is_finite()));
        // Same values as the per-channel box means.
        for (ri, &r) in RADII.iter().enumerate() {
            for c in 0..N_CHANNELS {
                assert_eq!(
                    f[c * RADII.len() + ri],
                    p.box_mean(c, 12 - r, 7 - r, 12 + r + 1, 7 + r + 1)
                );
            }
        }
        let r = RADII[ASYM_RADII[1]];
        let l = p.box_mean(1, 12 - r, 7 - r, 12, 7 + r + 1);
        let rr = p.box_mean(1, 13, 7 - r, 12 + r + 1, 7 + r + 1);
        assert_eq!(
            f[N_CHANNELS * RADII.len() + 2 * ASYM_RADII.len() + 2],
            (l - rr).abs()
        );
    }

    #[test]
    fn histogram_median_matches_sort() {
        let mut rng = 12345u32;
        for len in [1usize, 2, 3, 63, 64, 65, 256, 300] {
            let mut v: Vec<u8> = (0..len)
                .map(|_| {
                    rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    (rng >> 16) as u8
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert_eq!(median_u8(&mut v), sorted[len / 2], "len {len}");
        }
    }

    #[test]
    fn tiny_image() {
        let img = RgbImage::new(1, 1);
        let p = prepare(&img);
        let mut f = [0f32; N_DET_FEATURES];
        det_features(&p, 0, 0, &mut f);
        assert_eq!((p.w, p.h), (1, 1));
    }
}
