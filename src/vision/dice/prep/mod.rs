//! Pre-processing shared by the detector: half-resolution colour planes, a local
//! background estimate, foreground channels and their integral images.

mod background;
mod channels;
mod features;
mod integral;
#[cfg(test)]
mod reference;

pub use features::{FeatureBoxes, N_DET_FEATURES, RADII, det_features};
pub use integral::{Entry, MAX_EXACT_BOX_PX};

use super::cpu::Cpu;
use background::{BG_BLOCK, background_blocks, blend_block, blend_run, column_weights};
use channels::{LumRows, RowScratch, channel_row, downsample};
use image::RgbImage;
use integral::integral_row;
#[cfg(target_arch = "x86_64")]
use integral::integral_row_avx2;

/// Detection runs at this down-sampling factor of the input frame (dice of
/// 21-69 px become 10-35 px, plenty for finding them; faces are read at full
/// resolution).
pub const DETECT_DOWNSAMPLE: u32 = 2;

/// Number of foreground channels (see [`Prepared::integrals`]).
pub const N_CHANNELS: usize = 5;

/// Side of the square tiles in which [`Prepared::box_sum`] sums boxes larger
/// than [`MAX_EXACT_BOX_PX`] (`64 * 64 <= 8224`).
const TILE_SIDE: usize = 64;

/// A frame prepared for detection.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// Half-resolution width.
    pub w: usize,
    /// Half-resolution height.
    pub h: usize,
    /// Integral images (size `(w+1)*(h+1)`) of the channels: colour distance
    /// to background, gradient magnitude, saturation, darker-than-background,
    /// brighter-than-background, packed per entry ([`Entry`]):
    /// `integrals[y * (w + 1) + x]`. Channel values are at most 255 (the
    /// gradient 510), so a box of at most [`MAX_EXACT_BOX_PX`] pixels has
    /// exact sums in the entries' wrapping difference.
    pub integrals: Vec<Entry>,
    /// SIMD paths of this read (detected once by [`prepare`]), for the
    /// detector's features and MLP.
    pub cpu: Cpu,
    /// The detection feature boxes at this frame width.
    pub boxes: FeatureBoxes,
}

impl Prepared {
    /// Sum of channel `c` over the half-open box `[x0,x1) x [y0,y1)` (clamped)
    /// and its pixel count. The sum wraps modulo 2^32 (exact when it fits);
    /// boxes of more than [`MAX_EXACT_BOX_PX`] pixels are summed in tiles.
    pub fn box_sum(&self, c: usize, x0: i64, y0: i64, x1: i64, y1: i64) -> (u32, u32) {
        let cl = |v: i64, m: usize| v.clamp(0, m as i64) as usize;
        let (x0, x1) = (cl(x0, self.w), cl(x1, self.w));
        let (y0, y1) = (cl(y0, self.h), cl(y1, self.h));
        if x1 <= x0 || y1 <= y0 || c >= N_CHANNELS {
            return (0, 0);
        }
        let mut sum = 0u32;
        for ty in (y0..y1).step_by(TILE_SIDE) {
            for tx in (x0..x1).step_by(TILE_SIDE) {
                let (ex, ey) = ((tx + TILE_SIDE).min(x1), (ty + TILE_SIDE).min(y1));
                sum = sum.wrapping_add(self.packed_box(tx, ty, ex, ey).fields()[c]);
            }
        }
        (sum, ((x1 - x0) * (y1 - y0)) as u32)
    }

    /// The packed box sums of `[x0,x1) x [y0,y1)` (`x1 <= w`, `y1 <= h`).
    #[inline(always)]
    fn packed_box(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> Entry {
        let s = self.w + 1;
        let ii = &self.integrals;
        let at = |k: usize| ii.get(k).copied().unwrap_or_default();
        at(y1 * s + x1)
            .wrapping_add(at(y0 * s + x0))
            .wrapping_sub(at(y0 * s + x1))
            .wrapping_sub(at(y1 * s + x0))
    }

    /// Means of all channels over the box (clamped), zeros if empty; equal
    /// to [`Self::box_mean`] per channel.
    #[inline]
    pub fn box_means(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> [f32; N_CHANNELS] {
        let cl = |v: i64, m: usize| v.clamp(0, m as i64) as usize;
        let (x0, x1) = (cl(x0, self.w), cl(x1, self.w));
        let (y0, y1) = (cl(y0, self.h), cl(y1, self.h));
        if x1 <= x0 || y1 <= y0 {
            return [0f32; N_CHANNELS];
        }
        if (x1 - x0) * (y1 - y0) > MAX_EXACT_BOX_PX {
            let (x0, y0, x1, y1) = (x0 as i64, y0 as i64, x1 as i64, y1 as i64);
            return std::array::from_fn(|c| self.box_mean(c, x0, y0, x1, y1));
        }
        self.box_means_inside(x0, y0, x1, y1)
    }

    /// [`Self::box_means`] of a non-empty box inside the frame
    /// (`x0 < x1 <= w`, `y0 < y1 <= h`) of at most [`MAX_EXACT_BOX_PX`]
    /// pixels: no clamping. Inlined into the detector's feature loop and
    /// pre-filter.
    #[inline(always)]
    fn box_means_inside(&self, x0: usize, y0: usize, x1: usize, y1: usize) -> [f32; N_CHANNELS] {
        let s = self.w + 1;
        let ii = &self.integrals;
        let sum = ii[y1 * s + x1]
            .wrapping_add(ii[y0 * s + x0])
            .wrapping_sub(ii[y0 * s + x1])
            .wrapping_sub(ii[y1 * s + x0]);
        let n = ((x1 - x0) * (y1 - y0)) as u32 as f32;
        // Box sums are below 2^22 (see `MAX_EXACT_BOX_PX`), so the i32
        // conversion equals the u32 one and vectorises.
        sum.fields().map(|v| v as i32 as f32 / n)
    }

    /// [`Self::box_means`] of the box; for a non-empty box inside the frame
    /// without clamping (the same values: same integer sums, same
    /// conversion and division). Boxes must have at most
    /// [`MAX_EXACT_BOX_PX`] pixels (the pre-filter's has 81).
    #[inline(always)]
    pub fn box_means_fast(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> [f32; N_CHANNELS] {
        if 0 <= x0 && x0 < x1 && x1 <= self.w as i64 && 0 <= y0 && y0 < y1 && y1 <= self.h as i64 {
            debug_assert!(((x1 - x0) * (y1 - y0)) as usize <= MAX_EXACT_BOX_PX);
            let u = |v: i64| v as usize;
            return self.box_means_inside(u(x0), u(y0), u(x1), u(y1));
        }
        self.box_means(x0, y0, x1, y1)
    }
    /// Whether every detection feature box of the cell centred at `(cx, cy)`
    /// lies inside the frame (then no box needs clamping).
    fn holds_feature_boxes(&self, cx: i64, cy: i64) -> bool {
        let r = RADII[RADII.len() - 1];
        cx - r >= 0 && cy - r >= 0 && cx + r < self.w as i64 && cy + r < self.h as i64
    }

    /// Mean of channel `c` over the box, 0 if empty.
    pub fn box_mean(&self, c: usize, x0: i64, y0: i64, x1: i64, y1: i64) -> f32 {
        let (s, n) = self.box_sum(c, x0, y0, x1, y1);
        if n == 0 { 0.0 } else { s as f32 / n as f32 }
    }
}

/// Build the detection planes for an RGB frame (any size >= 1x1). Uses AVX2
/// when the CPU has it: the same integer and float operations in the same
/// order, more lanes per instruction (no fused multiply-add), so the planes
/// are bit for bit those of [`prepare_portable`].
pub fn prepare(img: &RgbImage) -> Prepared {
    prepare_with(img, Cpu::detect())
}

/// [`prepare`] on the SIMD paths `cpu` allows (which must be at most what
/// the CPU has).
pub fn prepare_with(img: &RgbImage, cpu: Cpu) -> Prepared {
    prepare_reusing(img, cpu, None)
}

/// [`prepare_with`] writing the integral image into the buffer of `spare`
/// (an earlier result, e.g. the previous frame's) when that is of the same
/// size and its first row and column are zero: the buffer is then neither
/// allocated nor zeroed again (3.7 MB per 720p frame), since every other
/// entry is overwritten and those are never written. Otherwise a fresh
/// buffer is used. The result is the same either way.
pub fn prepare_reusing(img: &RgbImage, cpu: Cpu, spare: Option<Prepared>) -> Prepared {
    let f = DETECT_DOWNSAMPLE as usize;
    // As `downsample` sizes the planes.
    let w = (img.width() as usize / f).max(1);
    let h = (img.height() as usize / f).max(1);
    let buf = spare
        .filter(|p| p.w == w && p.h == h && zero_borders(&p.integrals, w, h))
        .map(|p| p.integrals);
    #[cfg(target_arch = "x86_64")]
    if cpu.avx2 {
        // SAFETY: `cpu.avx2` says the CPU has AVX2 and POPCNT.
        return Prepared {
            cpu,
            ..unsafe { prepare_avx2(img, buf) }
        };
    }
    Prepared {
        cpu,
        ..prepare_body::<false>(img, buf)
    }
}

/// Whether `ii` is a `(w + 1) x (h + 1)` integral image buffer whose first
/// row and first column are zero (as [`prepare_body`] needs and leaves them).
fn zero_borders(ii: &[Entry], w: usize, h: usize) -> bool {
    let s = w + 1;
    ii.len() == s * (h + 1)
        && ii[..s].iter().all(|e| *e == Entry::default())
        && ii.iter().step_by(s).all(|e| *e == Entry::default())
}

/// [`prepare`] compiled for AVX2, with POPCNT (the median searches count
/// compare masks; without it each count was a dozen-instruction bit trick).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn prepare_avx2(img: &RgbImage, buf: Option<Vec<Entry>>) -> Prepared {
    prepare_body::<true>(img, buf)
}

/// [`prepare`] without CPU-specific code (SSE2 on x86_64).
pub fn prepare_portable(img: &RgbImage) -> Prepared {
    prepare_with(img, Cpu::portable())
}

/// The body of [`prepare`], inlined into each variant (with its helpers) so
/// that each is compiled for its instruction set; `AVX2` (only in
/// [`prepare_avx2`]) also fills the integral rows with AVX2 intrinsics.
/// `buf`, if given, must be a `(w + 1) x (h + 1)` buffer with a zero first
/// row and column (see [`prepare_reusing`]).
#[inline(always)]
fn prepare_body<const AVX2: bool>(img: &RgbImage, buf: Option<Vec<Entry>>) -> Prepared {
    let pl = downsample::<AVX2>(img, DETECT_DOWNSAMPLE as usize);
    let (w, h) = (pl.w, pl.h);
    let (bw, bh, bg_block) = background_blocks::<AVX2>(&pl);
    // Luminance (sum of R, G, B; at most 765) for the gradient channel.
    let mut lum = LumRows::new(&pl);
    let (omt, tx, runs) = column_weights(w, bw);
    let half = BG_BLOCK as f32 / 2.0;
    let s = w + 1;
    // Zeroed as a whole (one memset) and then filled: cheaper than
    // growing it a row at a time or copying rows in from a buffer (both
    // tried: more instructions and cache misses under callgrind). A reused
    // buffer needs no zeroing: only the first row and column must be zero,
    // and they are never written.
    let mut integrals = match buf {
        Some(b) if b.len() == s * (h + 1) => b,
        _ => vec![Entry::default(); s * (h + 1)],
    };
    let mut bg_row = [vec![0f32; bw], vec![0f32; bw], vec![0f32; bw]];
    let mut sc = RowScratch {
        bg: [vec![0f32; w], vec![0f32; w], vec![0f32; w]],
        vals: [
            vec![0u32; w],
            vec![0u32; w],
            vec![0u32; w],
            vec![0u32; w],
            vec![0u32; w],
        ],
    };
    for y in 0..h {
        // Bilinear background between block centres: rows first, then
        // columns within runs of the same two blocks.
        let gy = ((y as f32 + 0.5 - half) / BG_BLOCK as f32).clamp(0.0, (bh - 1) as f32);
        let y0 = gy.floor() as usize;
        let y1 = (y0 + 1).min(bh - 1);
        let ty = gy - y0 as f32;
        for (br, plane) in bg_row.iter_mut().zip(&bg_block) {
            let (top, bottom) = (&plane[y0 * bw..][..bw], &plane[y1 * bw..][..bw]);
            for ((v, &b0), &b1) in br[..bw].iter_mut().zip(top).zip(bottom) {
                *v = b0 * (1.0 - ty) + b1 * ty;
            }
        }
        for run in &runs {
            let span = run.start..run.end;
            let (a, t) = (&omt[span.clone()], &tx[span.clone()]);
            let [o0, o1, o2] = &mut sc.bg;
            let outs = [
                &mut o0[span.clone()],
                &mut o1[span.clone()],
                &mut o2[span.clone()],
            ];
            // Spelled out: `array::map` here was an out-of-line call per run
            // (0.56 M instructions per 720p read).
            let [r0, r1, r2] = &bg_row;
            let ends = [
                (r0[run.b0], r0[run.b1]),
                (r1[run.b0], r1[run.b1]),
                (r2[run.b0], r2[run.b1]),
            ];
            // Inner runs are one block wide: fixed-size arrays, no loop.
            if let (Ok(a), Ok(t)) = (
                <&[f32; BG_BLOCK]>::try_from(a),
                <&[f32; BG_BLOCK]>::try_from(t),
            ) {
                for (o, (l, r)) in outs.into_iter().zip(ends) {
                    if let Ok(o) = <&mut [f32; BG_BLOCK]>::try_from(o) {
                        blend_block(l, r, a, t, o);
                    }
                }
                continue;
            }
            for (o, (l, r)) in outs.into_iter().zip(ends) {
                blend_run(l, r, a, t, o);
            }
        }
        if y >= 1 && y + 1 < h {
            lum.fill(&pl, y + 1);
        }
        channel_row(&pl, &lum, y, &mut sc);
        // Running row sums added to the integral row above.
        let (top, bottom) = (y * s, (y + 1) * s);
        let (prev, cur) = integrals.split_at_mut(bottom);
        let above = &prev[top + 1..top + 1 + w];
        let out = &mut cur[1..1 + w];
        #[cfg(target_arch = "x86_64")]
        if AVX2 {
            // SAFETY: `AVX2` is only set by `prepare_avx2`, which runs only
            // on CPUs with AVX2.
            unsafe { integral_row_avx2(&sc.vals, above, out) };
            continue;
        }
        integral_row(&sc.vals, above, out, 0, Entry::default());
    }
    Prepared {
        w,
        h,
        integrals,
        cpu: Cpu::portable(),
        boxes: FeatureBoxes::new(w),
    }
}

#[cfg(test)]
mod tests {
    use super::features::ASYM_RADII;
    use super::reference::{reference_integrals, reference_prepare};
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

    /// The packed entries give the box sums of the unpacked integral images
    /// for every box up to the detector's largest (and, in tiles, for the
    /// whole frame), on a frame with the largest channel values: saturated
    /// colours far from a grey background, and a black-white checkerboard
    /// for the largest gradients.
    #[test]
    fn packed_box_sums_match_unpacked() {
        let img = RgbImage::from_fn(180, 200, |x, y| {
            if x < 100 && y < 120 {
                // Half-res cells of 2 x 2: every central difference
                // spans a black and a white cell.
                let v = if (x / 4 + y / 4) % 2 == 0 { 0 } else { 255 };
                image::Rgb([v, v, v])
            } else if x < 140 {
                image::Rgb([255, 0, (y % 2 * 255) as u8])
            } else {
                image::Rgb([128, 128, 128])
            }
        });
        let (w, h, ii) = reference_integrals(&img);
        let p = prepare(&img);
        let s = w + 1;
        let sum = |c: usize, x0: usize, y0: usize, x1: usize, y1: usize| {
            ii[y1 * s + x1][c]
                .wrapping_add(ii[y0 * s + x0][c])
                .wrapping_sub(ii[y0 * s + x1][c])
                .wrapping_sub(ii[y1 * s + x0][c])
        };
        let side = 2 * RADII[RADII.len() - 1] as usize + 1;
        let mut biggest = [0u32; N_CHANNELS];
        for (x0, y0) in [(0usize, 0usize), (3, 5), (10, 20), (40, 50), (60, 80)] {
            for (bw, bh) in [(1usize, 1usize), (9, 9), (side, side), (side, 7)] {
                let (x1, y1) = ((x0 + bw).min(w), (y0 + bh).min(h));
                let m = p.box_means(x0 as i64, y0 as i64, x1 as i64, y1 as i64);
                let n = ((x1 - x0) * (y1 - y0)) as u32 as f32;
                for c in 0..N_CHANNELS {
                    let want = sum(c, x0, y0, x1, y1);
                    biggest[c] = biggest[c].max(want);
                    let b = (x0 as i64, y0 as i64, x1 as i64, y1 as i64);
                    assert_eq!(p.box_sum(c, b.0, b.1, b.2, b.3).0, want, "{c} {b:?}");
                    assert_eq!(m[c].to_bits(), (want as i32 as f32 / n).to_bits());
                }
            }
        }
        // The test reaches the large sums the fields must hold.
        // (The gradient's sum is the largest possible: 41 x 41 x 510.)
        let most = (side * side) as u32;
        assert!(biggest[0] > 200_000 && biggest[2] > 250_000, "{biggest:?}");
        assert_eq!(biggest[1], most * 510, "{biggest:?}");
        for c in 0..N_CHANNELS {
            let all = p.box_sum(c, 0, 0, w as i64, h as i64).0;
            assert_eq!(all, sum(c, 0, 0, w, h), "{c}");
        }
    }

    #[test]
    fn prepare_matches_reference() {
        let mut rng = 99u32;
        for (w, h) in [
            (1u32, 1u32),
            (1, 5),
            (5, 1),
            (2, 2),
            (3, 7),
            (37, 29),
            (131, 70),
        ] {
            let img = RgbImage::from_fn(w, h, |x, y| {
                rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                let n = (rng >> 16) as u8;
                // Smooth pattern plus noise: both flat and busy regions.
                let base = ((x * 7 + y * 3) % 200) as u8;
                image::Rgb([base.wrapping_add(n % 40), base / 2, n])
            });
            let b = reference_prepare(&img);
            for a in [prepare(&img), prepare_portable(&img)] {
                assert_eq!((a.w, a.h), (b.w, b.h), "{w}x{h}");
                assert!(a.integrals == b.integrals, "{w}x{h}");
            }
        }
    }

    #[test]
    fn reused_buffer_gives_the_same_planes() {
        let frame = |seed: u32, w: u32, h: u32| {
            RgbImage::from_fn(w, h, |x, y| {
                let v = (x * 7 + y * 13 + seed * 31) % 256;
                image::Rgb([v as u8, (v * 3 % 256) as u8, ((x ^ y) % 256) as u8])
            })
        };
        let (a, b) = (frame(1, 91, 67), frame(2, 91, 67));
        let want = prepare(&b);
        let cpus = [Cpu::detect(), Cpu::portable()];
        for (cpu, other) in cpus.into_iter().zip(cpus.into_iter().rev()) {
            // Same size: the buffer is reused (and fully rewritten).
            let spare = prepare_with(&a, other);
            let got = prepare_reusing(&b, cpu, Some(spare));
            assert!(got.integrals == want.integrals);
            // A non-zero border or another size: a fresh buffer.
            let mut dirty = prepare_with(&a, other);
            dirty.integrals[0] = Entry([1, 1]);
            assert!(prepare_reusing(&b, cpu, Some(dirty)).integrals == want.integrals);
            let small = prepare_with(&frame(3, 40, 30), other);
            assert!(prepare_reusing(&b, cpu, Some(small)).integrals == want.integrals);
        }
    }

    #[test]
    fn fast_box_means_match_clamped() {
        let img = RgbImage::from_fn(61, 47, |x, y| {
            image::Rgb([(x * 9 % 256) as u8, (y * 5 % 256) as u8, (x ^ y) as u8])
        });
        let p = prepare(&img);
        let bits = |v: [f32; N_CHANNELS]| v.map(f32::to_bits);
        for (x0, y0) in [(-5i64, -5i64), (0, 0), (3, 7), (20, 10), (25, 18)] {
            for (dx, dy) in [(1i64, 1i64), (9, 9), (6, 11), (40, 40)] {
                let (x1, y1) = (x0 + dx, y0 + dy);
                assert_eq!(
                    bits(p.box_means_fast(x0, y0, x1, y1)),
                    bits(p.box_means(x0, y0, x1, y1)),
                    "{x0} {y0} {x1} {y1}"
                );
            }
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
