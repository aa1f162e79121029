//! Test-only reference implementations: the scalar, interleaved `prepare`
//! the fast paths replaced, and the medians it takes.

use super::background::{BG_BLOCK, BG_MEDIAN_RADIUS, SMALL_MEDIAN, padded_median};
use super::{DETECT_DOWNSAMPLE, Entry, FeatureBoxes, N_CHANNELS, Prepared};
use crate::vision::dice::cpu::Cpu;
use image::RgbImage;

// Reference medians the tests compare the fast paths with.

/// The element at index `len / 2` of the sorted values (0 if empty), by
/// histogram (same result as a selection, faster for byte values).
fn median_u8(v: &mut [u8]) -> u8 {
    if v.is_empty() {
        return 0;
    }
    if v.len() <= SMALL_MEDIAN {
        return median_small(v);
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

/// `median_u8` of 1 to [`SMALL_MEDIAN`] values, by [`padded_median`].
fn median_small(v: &[u8]) -> u8 {
    let n = v.len().min(SMALL_MEDIAN);
    let mut a = [u8::MAX; SMALL_MEDIAN];
    a[..n].copy_from_slice(&v[..n]);
    padded_median(&a, n)
}

/// The element at index `n / 2` of the sorted values counted in `hist` (`n`
/// values in all; 0 if none): the same value as `median_u8` on them.
fn hist_median(hist: &[u32; 256], n: u32) -> u8 {
    if n == 0 {
        return 0;
    }
    let mid = n / 2;
    // Groups of HIST_GROUP bins first (a vectorised sum each), then the
    // bins of the group where the count passes `mid`: the same first bin
    // whose running count exceeds `mid`, in fewer steps.
    let mut seen = 0u32;
    for (g, group) in hist.chunks_exact(HIST_GROUP).enumerate() {
        let s: u32 = group.iter().sum();
        if seen + s > mid {
            for (k, &c) in group.iter().enumerate() {
                seen += c;
                if seen > mid {
                    return (g * HIST_GROUP + k) as u8;
                }
            }
        }
        seen += s;
    }
    255
}

/// Bins per group in `hist_median`'s coarse pass.
const HIST_GROUP: usize = 16;

/// The scalar, interleaved implementation [`prepare`] replaced (same
/// output, checked below).
pub(super) fn reference_prepare(img: &RgbImage) -> Prepared {
    let (w, h, integrals) = reference_integrals(img);
    Prepared {
        w,
        h,
        integrals: integrals.into_iter().map(Entry::pack).collect(),
        cpu: Cpu::portable(),
        boxes: FeatureBoxes::new(w),
    }
}

/// The half-res size and the unpacked integral images (one `u32` per
/// channel, as `prepare` stored them before [`Entry`]) of
/// [`reference_prepare`].
pub(super) fn reference_integrals(img: &RgbImage) -> (usize, usize, Vec<[u32; N_CHANNELS]>) {
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
    (w, h, integrals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_median_matches_sort() {
        let mut rng = 12345u32;
        // Small lengths (the rank median) with many and with few distinct
        // values (ties), then the selection and histogram paths.
        let lens = [
            1usize, 2, 3, 4, 9, 15, 20, 25, 31, 32, 33, 63, 64, 65, 256, 300,
        ];
        for (len, modulus) in lens.iter().flat_map(|l| [(*l, 256u32), (*l, 3)]) {
            let mut v: Vec<u8> = (0..len)
                .map(|_| {
                    rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    ((rng >> 16) % modulus) as u8
                })
                .collect();
            let mut sorted = v.clone();
            sorted.sort_unstable();
            assert_eq!(median_u8(&mut v), sorted[len / 2], "len {len}");
        }
    }
}
