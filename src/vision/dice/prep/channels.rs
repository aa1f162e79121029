//! Half-resolution colour planes and, row by row, the five foreground
//! channels (colour distance to the background, gradient, saturation,
//! darker and brighter than the background).

use super::N_CHANNELS;
use image::RgbImage;

/// Planar half-resolution colour: one byte plane per channel (R, G, B), so
/// the per-pixel channel pass reads contiguous bytes and vectorises.
pub(super) struct Planes {
    pub(super) w: usize,
    pub(super) h: usize,
    pub(super) c: [Vec<u8>; 3],
}

/// Half-resolution planes by box averaging (`f x f` blocks, partial blocks at
/// the right and bottom edges averaged over the pixels they have).
/// `AVX2` (only inside [`prepare_avx2`](super::prepare_avx2)) averages the pixel pairs with
/// AVX2 intrinsics ([`halve_row_avx2`]).
#[inline(always)]
pub(super) fn downsample<const AVX2: bool>(img: &RgbImage, f: usize) -> Planes {
    let (fw, fh) = (img.width() as usize, img.height() as usize);
    let w = (fw / f).max(1);
    let h = (fh / f).max(1);
    let raw = img.as_raw();
    let mut c = [vec![0u8; w * h], vec![0u8; w * h], vec![0u8; w * h]];
    if f == 2 && fw >= 2 && fh >= 2 {
        let [pr, pg, pb] = &mut c;
        // Sums of the two source rows over the 2w used pixels (a contiguous,
        // vectorised pass), then of horizontal pixel pairs.
        // Padded for the over-reaching loads of `halve_row_avx2`.
        let mut vsum = vec![0u16; 6 * w + VSUM_PAD];
        for y in 0..h {
            let r0 = &raw[(2 * y) * fw * 3..(2 * y) * fw * 3 + 6 * w];
            let r1 = &raw[(2 * y + 1) * fw * 3..(2 * y + 1) * fw * 3 + 6 * w];
            for ((v, &a), &b) in vsum.iter_mut().zip(r0).zip(r1) {
                *v = a as u16 + b as u16;
            }
            let row = y * w..(y + 1) * w;
            let (orow, grow, brow) = (&mut pr[row.clone()], &mut pg[row.clone()], &mut pb[row]);
            let mut done = 0;
            #[cfg(target_arch = "x86_64")]
            if AVX2 {
                // SAFETY: `AVX2` is only set inside `prepare_avx2`, which
                // runs only on CPUs with AVX2.
                done = unsafe { halve_row_avx2(&vsum, orow, grow, brow) };
            }
            let outs = orow[done..]
                .iter_mut()
                .zip(grow[done..].iter_mut())
                .zip(brow[done..].iter_mut());
            let vsum = &vsum[6 * done..];
            // Pixel-pair chunks: no per-byte bounds checks. At most 4 * 255,
            // so the u16 sums are exact.
            for (((or, og), ob), q) in outs.zip(vsum.chunks_exact(6)) {
                *or = ((q[0] + q[3]) / 4) as u8;
                *og = ((q[1] + q[4]) / 4) as u8;
                *ob = ((q[2] + q[5]) / 4) as u8;
            }
        }
        return Planes { w, h, c };
    }
    for y in 0..h {
        for x in 0..w {
            let mut acc = [0u32; 3];
            let mut n = 0u32;
            for sy in (y * f..(y + 1) * f).filter(|&sy| sy < fh) {
                for sx in (x * f..(x + 1) * f).filter(|&sx| sx < fw) {
                    let p = (sy * fw + sx) * 3;
                    for (a, &v) in acc.iter_mut().zip(&raw[p..p + 3]) {
                        *a += v as u32;
                    }
                    n += 1;
                }
            }
            let n = n.max(1);
            for (plane, a) in c.iter_mut().zip(acc) {
                plane[y * w + x] = (a / n) as u8;
            }
        }
    }
    Planes { w, h, c }
}

/// Padding (in `u16`) after the `6 w` vertical sums of a row: the shifted
/// loads of [`halve_row_avx2`] read up to 3 values past the last pixel.
const VSUM_PAD: usize = 16;

/// Output pixels per step of [`halve_row_avx2`].
const HALVE_STEP: usize = 8;

/// The pixel-pair averages of [`downsample`] with AVX2, 8 output pixels per
/// step: `(q[6x + c] + q[6x + 3 + c]) / 4` for all lanes at once (two loads
/// 3 values apart, an add and a shift; at most 1020 / 4, so the 16-bit sums
/// are exact and packing to bytes does not saturate), then byte shuffles
/// pick the R, G and B values into their planes. Same integers as the
/// scalar loop. Returns how many leading pixels it wrote; the caller does
/// the rest.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn halve_row_avx2(vsum: &[u16], r: &mut [u8], g: &mut [u8], b: &mut [u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_or_si128, _mm_setr_epi8, _mm_shuffle_epi8, _mm_storel_epi64,
        _mm_unpackhi_epi64, _mm256_add_epi16, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_loadu_si256, _mm256_packus_epi16, _mm256_permute4x64_epi64, _mm256_srli_epi16,
    };
    let w = r.len().min(g.len()).min(b.len());
    let mut x = 0;
    // Each step reads `vsum[6x .. 6x + 51]`.
    while x + HALVE_STEP <= w && 6 * x + 51 <= vsum.len() {
        // SAFETY: AVX2 is enabled for this function; the loads read
        // `vsum[6x .. 6x + 51]` (checked above) and the stores write
        // `x .. x + 8 <= w` of each plane.
        unsafe {
            let q = vsum.as_ptr().add(6 * x);
            let ld = |o: usize| _mm256_loadu_si256(q.add(o) as *const __m256i);
            // h[j] = (q[j] + q[j + 3]) / 4 for j in 0..48.
            let h = |o: usize| _mm256_srli_epi16::<2>(_mm256_add_epi16(ld(o), ld(o + 3)));
            let (h0, h1, h2) = (h(0), h(16), h(32));
            // Bytes h[0..32] in order, then h[32..48].
            let lo = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(h0, h1));
            let hi = _mm256_permute4x64_epi64::<0b00_00_10_00>(_mm256_packus_epi16(h2, h2));
            let (x0, x1) = (
                _mm256_castsi256_si128(lo),
                _mm256_extracti128_si256::<1>(lo),
            );
            let y0 = _mm256_castsi256_si128(hi);
            // R of pixel k is h[6k], G h[6k + 1], B h[6k + 2]; -1 = zero.
            let pick = |m0: __m128i, m1: __m128i, m2: __m128i| {
                _mm_or_si128(
                    _mm_or_si128(_mm_shuffle_epi8(x0, m0), _mm_shuffle_epi8(x1, m1)),
                    _mm_shuffle_epi8(y0, m2),
                )
            };
            let rg = pick(
                _mm_setr_epi8(0, 6, 12, -1, -1, -1, -1, -1, 1, 7, 13, -1, -1, -1, -1, -1),
                _mm_setr_epi8(-1, -1, -1, 2, 8, 14, -1, -1, -1, -1, -1, 3, 9, 15, -1, -1),
                _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 4, 10, -1, -1, -1, -1, -1, -1, 5, 11),
            );
            let bb = pick(
                _mm_setr_epi8(2, 8, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1),
                _mm_setr_epi8(
                    -1, -1, -1, 4, 10, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                ),
                _mm_setr_epi8(-1, -1, -1, -1, -1, 0, 6, 12, -1, -1, -1, -1, -1, -1, -1, -1),
            );
            _mm_storel_epi64(r.as_mut_ptr().add(x) as *mut __m128i, rg);
            _mm_storel_epi64(
                g.as_mut_ptr().add(x) as *mut __m128i,
                _mm_unpackhi_epi64(rg, rg),
            );
            _mm_storel_epi64(b.as_mut_ptr().add(x) as *mut __m128i, bb);
        }
        x += HALVE_STEP;
    }
    x
}

/// `v / 3` for `v <= 1530` (the largest gradient sum) as a 16-bit
/// multiply-high, which vectorises where a 32-bit division does not; equal to
/// the division on that range (see the test).
#[inline]
fn div3_u16(v: u16) -> u16 {
    debug_assert!(v <= DIV3_MAX);
    ((v as u32 * 21_846) >> 16) as u16
}

/// Largest value [`div3_u16`] is exact for: two luminance differences of at
/// most 765 each.
const DIV3_MAX: u16 = 1530;

/// Row scratch of [`prepare`](super::prepare): the background colour per column and the five
/// channel values per column.
pub(super) struct RowScratch {
    pub(super) bg: [Vec<f32>; 3],
    pub(super) vals: [Vec<u32>; N_CHANNELS],
}

/// The five channel values of half-res row `y` into `s.vals` (background
/// already interpolated into `s.bg`): colour distance to the background,
/// gradient magnitude, saturation, darker- and brighter-than-background.
#[inline(always)]
pub(super) fn channel_row(pl: &Planes, lum: &LumRows, y: usize, s: &mut RowScratch) {
    let w = pl.w;
    let row = y * w..(y + 1) * w;
    let (r, g, b) = (&pl.c[0][row.clone()], &pl.c[1][row.clone()], &pl.c[2][row]);
    let [lup, lrow, ldn] = lum.around(y);
    // Equal-length slices: the loop below has no bounds checks and
    // vectorises.
    let (r, g, b, lrow) = (&r[..w], &g[..w], &b[..w], &lrow[..w]);
    let (bg0, bg1, bg2) = (&s.bg[0][..w], &s.bg[1][..w], &s.bg[2][..w]);
    let [fg, grad, sat, darker, brighter] = &mut s.vals;
    let (fg, sat) = (&mut fg[..w], &mut sat[..w]);
    let (darker, brighter) = (&mut darker[..w], &mut brighter[..w]);
    for x in 0..w {
        let (c0, c1, c2) = (bg0[x], bg1[x], bg2[x]);
        let d = (r[x] as f32 - c0).abs() + (g[x] as f32 - c1).abs() + (b[x] as f32 - c2).abs();
        // The pixel and background channels are finite and in [0, 255]
        // (the background interpolates block medians of bytes), so both
        // quotients below are finite and in [0, 256): the truncating
        // conversion without the saturation checks of `as` gives the same
        // integer, and vectorises (with `as`, each lane was converted and
        // range-checked on its own).
        // SAFETY: finite and within i32 (see above).
        fg[x] = unsafe { (d / 3.0).to_int_unchecked::<i32>() } as u32;
        // Darker / brighter than background: `l - bgl` is exactly
        // `-(bgl - l)`, so one division serves both (at most one is
        // non-zero).
        let dark = (c0 + c1 + c2) - lrow[x] as f32;
        // SAFETY: finite and within i32 (see above).
        let off = unsafe { (dark.abs() / 3.0).to_int_unchecked::<i32>() } as u32;
        darker[x] = if dark > 0.0 { off } else { 0 };
        brighter[x] = if dark > 0.0 { 0 } else { off };
        sat[x] = (r[x].max(g[x]).max(b[x]) - r[x].min(g[x]).min(b[x])) as u32;
    }
    // Gradient: central differences, clamped at the row ends.
    let (up, dn) = (&lup[..w], &ldn[..w]);
    grad[0] = grad_at(lrow, up, dn, 0, 0, 1.min(w - 1));
    if w >= 2 {
        let inner = grad[1..w - 1].iter_mut().enumerate();
        for (i, gv) in inner {
            let x = i + 1;
            *gv = grad_at(lrow, up, dn, x, x - 1, x + 1);
        }
        grad[w - 1] = grad_at(lrow, up, dn, w - 1, w - 2, w - 1);
    }
}

/// The gradient channel at column `x` of a row: `(|l[xr] - l[xl]| +
/// |down[x] - up[x]|) / 3`. A function forced inline rather than a closure:
/// whether a closure was inlined into [`prepare_body`](super::prepare_body) changed with
/// unrelated edits (left out of line it is a call per pixel, compiled
/// without AVX2).
#[inline(always)]
fn grad_at(l: &[u16], up: &[u16], down: &[u16], x: usize, xl: usize, xr: usize) -> u32 {
    let gx = (l[xr] as i16 - l[xl] as i16).unsigned_abs();
    let gy = (down[x] as i16 - up[x] as i16).unsigned_abs();
    div3_u16(gx + gy) as u32
}

/// Luminance (sum of R, G, B; at most 765) of three consecutive half-res
/// rows, for the gradient channel: row `y` lives in slot `y % 3`. Computed a
/// row ahead of the channel pass instead of as a whole plane (no
/// frame-sized buffer to allocate and zero, and the rows are still in
/// cache when the gradient reads them).
pub(super) struct LumRows {
    h: usize,
    slots: [Vec<u16>; 3],
}

impl LumRows {
    /// Rows 0 and 1 (if any) of the planes.
    #[inline(always)]
    pub(super) fn new(pl: &Planes) -> Self {
        let mut l = Self {
            h: pl.h,
            slots: [vec![0u16; pl.w], vec![0u16; pl.w], vec![0u16; pl.w]],
        };
        for y in 0..pl.h.min(2) {
            l.fill(pl, y);
        }
        l
    }

    /// Computes row `y` into its slot (replacing row `y - 3`).
    #[inline(always)]
    pub(super) fn fill(&mut self, pl: &Planes, y: usize) {
        let w = pl.w;
        let row = y * w..(y + 1) * w;
        let (r, g, b) = (&pl.c[0][row.clone()], &pl.c[1][row.clone()], &pl.c[2][row]);
        let out = &mut self.slots[y % 3][..w];
        for (((l, &r), &g), &b) in out.iter_mut().zip(r).zip(g).zip(b) {
            *l = r as u16 + g as u16 + b as u16;
        }
    }

    /// Rows `y - 1`, `y`, `y + 1`, clamped at the top and bottom (the rows
    /// up to `y + 1` must have been filled).
    #[inline(always)]
    fn around(&self, y: usize) -> [&[u16]; 3] {
        let up = y.saturating_sub(1);
        let dn = (y + 1).min(self.h - 1);
        [&self.slots[up % 3], &self.slots[y % 3], &self.slots[dn % 3]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn div3_is_exact() {
        for v in 0..=DIV3_MAX {
            assert_eq!(div3_u16(v), v / 3, "{v}");
        }
    }
}
