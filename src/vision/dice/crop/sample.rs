//! Bilinear sampling of the rotated crop into the `GRID x GRID` cell grid
//! (scalar, SSE, AVX2 pair and AVX2 gather paths, all giving the same bits).

use super::GRID;
use crate::vision::dice::cpu::Cpu;
use image::RgbImage;

// `sample_crop` takes the cells of a row two at a time on AVX2.
const _: () = assert!(GRID.is_multiple_of(2));

/// Margin (pixels) beyond the crop's exact reach that
/// `Bilinear::holds_crop` asks for: covers the float rounding of the
/// sub-sample coordinates, far below a pixel.
const INTERIOR_MARGIN: f32 = 2.0;

/// Bilinear sample of channel `c` at `(x, y)` (clamped to the image).
/// The reference for [`Bilinear::at`], which the crop sampler uses.
#[cfg(test)]
fn sample(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let x = x.clamp(0.0, (w - 1) as f32);
    let y = y.clamp(0.0, (h - 1) as f32);
    let x0 = x.floor() as i64;
    let y0 = y.floor() as i64;
    let x1 = (x0 + 1).min(w - 1);
    let y1 = (y0 + 1).min(h - 1);
    let tx = x - x0 as f32;
    let ty = y - y0 as f32;
    let raw = img.as_raw();
    let idx = |xx: i64, yy: i64| ((yy * w + xx) * 3) as usize;
    let mut out = [0f32; 3];
    for (c, o) in out.iter_mut().enumerate() {
        let a = raw[idx(x0, y0) + c] as f32 * (1.0 - tx) + raw[idx(x1, y0) + c] as f32 * tx;
        let b = raw[idx(x0, y1) + c] as f32 * (1.0 - tx) + raw[idx(x1, y1) + c] as f32 * tx;
        *o = a * (1.0 - ty) + b * ty;
    }
    out
}

/// Bilinear sampling of an RGB image, clamped to the image: the same
/// arithmetic as the reference `sample` (tested bit for bit), without the
/// `floor` call (the clamped coordinates are non-negative, so truncation
/// is the floor) and with each pixel's three bytes fetched together.
struct Bilinear<'a> {
    raw: &'a [u8],
    /// Image width in pixels.
    w: usize,
    /// Largest pixel index, x and y.
    last: (usize, usize),
    /// The same as floats (clamping bounds).
    last_f: (f32, f32),
}

impl<'a> Bilinear<'a> {
    fn new(img: &'a RgbImage) -> Self {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let last = (w.saturating_sub(1), h.saturating_sub(1));
        Self {
            raw: img.as_raw(),
            w,
            last,
            last_f: (last.0 as f32, last.1 as f32),
        }
    }

    /// The three bytes of pixel `(x, y)` as floats (zeros outside the
    /// buffer, which cannot happen for clamped coordinates of a non-empty
    /// image).
    #[inline(always)]
    fn px(&self, x: usize, y: usize) -> [f32; 3] {
        let o = (y * self.w + x) * 3;
        match self.raw.get(o..o + 3) {
            Some(p) => [p[0] as f32, p[1] as f32, p[2] as f32],
            None => [0.0; 3],
        }
    }

    #[inline(always)]
    fn at(&self, x: f32, y: f32) -> [f32; 3] {
        let x = x.clamp(0.0, self.last_f.0);
        let y = y.clamp(0.0, self.last_f.1);
        // Non-negative (or NaN, which `floor() as i64` also maps to 0), so
        // truncation is the floor; i32 converts in one instruction.
        let (xi, yi) = (x as i32, y as i32);
        let tx = x - xi as f32;
        let ty = y - yi as f32;
        let (x0, y0) = (xi as usize, yi as usize);
        let x1 = (x0 + 1).min(self.last.0);
        let y1 = (y0 + 1).min(self.last.1);
        let (p00, p10) = (self.px(x0, y0), self.px(x1, y0));
        let (p01, p11) = (self.px(x0, y1), self.px(x1, y1));
        let mut out = [0f32; 3];
        for c in 0..3 {
            let a = p00[c] * (1.0 - tx) + p10[c] * tx;
            let b = p01[c] * (1.0 - tx) + p11[c] * tx;
            out[c] = a * (1.0 - ty) + b * ty;
        }
        out
    }

    /// Pixel bits as four floats (R, G, B and an unused fourth lane from
    /// the next byte): the bytes are exact small integers either way.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn bytes_to_ps(bits: u32) -> std::arch::x86_64::__m128 {
        use std::arch::x86_64::{
            _mm_cvtepi32_ps, _mm_cvtsi32_si128, _mm_setzero_si128, _mm_unpacklo_epi8,
            _mm_unpacklo_epi16,
        };
        // SAFETY: SSE2 is part of the x86_64 baseline (register-only
        // intrinsics).
        unsafe {
            let z = _mm_setzero_si128();
            let v = _mm_cvtsi32_si128(bits as i32);
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(_mm_unpacklo_epi8(v, z), z))
        }
    }

    /// The 3 bytes at `o` (and a fourth, 0 past the end) as a `u32`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn bits_at(&self, o: usize) -> u32 {
        match self.raw.get(o..o + 3) {
            Some(&[a, b, c]) => {
                u32::from_le_bytes([a, b, c, self.raw.get(o + 3).copied().unwrap_or(0)])
            }
            _ => 0,
        }
    }

    /// The four corner pixels (top-left, top-right, bottom-left,
    /// bottom-right) of the bilinear sample whose top-left pixel is at byte
    /// offset `o`, with the right / lower neighbour `dx` / `dy` bytes further
    /// (0 at the last column / row, as `min(x0 + 1, w - 1)` gives). Both
    /// rows are read as one 8-byte word each when the buffer has them.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn corners(&self, o: usize, dx: usize, dy: usize) -> [u32; 4] {
        let word = |o: usize| {
            self.raw
                .get(o..o + 8)
                .and_then(|b| b.try_into().ok())
                .map(u64::from_le_bytes)
        };
        match (word(o), word(o + dy)) {
            (Some(r0), Some(r1)) => {
                let sh = 8 * dx as u32;
                [r0 as u32, (r0 >> sh) as u32, r1 as u32, (r1 >> sh) as u32]
            }
            _ => [
                self.bits_at(o),
                self.bits_at(o + dx),
                self.bits_at(o + dy),
                self.bits_at(o + dy + dx),
            ],
        }
    }

    /// One crop cell with SSE: its four sub-samples at offsets `u = [u0,
    /// u1]`, `v = [v0, v1]` from the centre `(cx, cy)` along the rotated
    /// axes (`cs`, `sn`), the coordinates of all four in one register and
    /// the channels of each in one register. Per sub-sample and channel the
    /// same coordinate arithmetic, clamping (`max(0, x)` then `min(last,
    /// x)` select exactly as `f32::clamp`), weights, multiplies and adds as
    /// [`Self::at`] and the scalar cell sum, so the same values. Needs
    /// finite coordinates (truncation of NaN differs).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn cell_sse(&self, c: [f32; 2], rot: [f32; 2], u: [f32; 2], v: [f32; 2]) -> [f32; 3] {
        use std::arch::x86_64::{
            __m128, _mm_add_ps, _mm_cvtepi32_ps, _mm_cvttps_epi32, _mm_max_ps, _mm_min_ps,
            _mm_mul_ps, _mm_set1_ps, _mm_setr_ps, _mm_setzero_ps, _mm_storeu_ps, _mm_storeu_si128,
            _mm_sub_ps,
        };
        let ([cx, cy], [cs, sn]) = (c, rot);
        let mut xi = [0i32; 4];
        let mut yi = [0i32; 4];
        let (mut tx, mut ty) = ([0f32; 4], [0f32; 4]);
        let (mut omtx, mut omty) = ([0f32; 4], [0f32; 4]);
        let mut lanes = [0f32; 4];
        // SAFETY: SSE2 is part of the x86_64 baseline; every store writes 4
        // values into a 4-value array.
        unsafe {
            // Sub-sample order (u0, v0), (u1, v0), (u0, v1), (u1, v1).
            let uu = _mm_setr_ps(u[0], u[1], u[0], u[1]);
            let vv = _mm_setr_ps(v[0], v[0], v[1], v[1]);
            let (vcs, vsn) = (_mm_set1_ps(cs), _mm_set1_ps(sn));
            let x = _mm_sub_ps(
                _mm_add_ps(_mm_set1_ps(cx), _mm_mul_ps(uu, vcs)),
                _mm_mul_ps(vv, vsn),
            );
            let y = _mm_add_ps(
                _mm_add_ps(_mm_set1_ps(cy), _mm_mul_ps(uu, vsn)),
                _mm_mul_ps(vv, vcs),
            );
            let zero = _mm_setzero_ps();
            let x = _mm_min_ps(_mm_set1_ps(self.last_f.0), _mm_max_ps(zero, x));
            let y = _mm_min_ps(_mm_set1_ps(self.last_f.1), _mm_max_ps(zero, y));
            let (xq, yq) = (_mm_cvttps_epi32(x), _mm_cvttps_epi32(y));
            let one = _mm_set1_ps(1.0);
            let fx = _mm_sub_ps(x, _mm_cvtepi32_ps(xq));
            let fy = _mm_sub_ps(y, _mm_cvtepi32_ps(yq));
            _mm_storeu_si128(xi.as_mut_ptr().cast(), xq);
            _mm_storeu_si128(yi.as_mut_ptr().cast(), yq);
            _mm_storeu_ps(tx.as_mut_ptr(), fx);
            _mm_storeu_ps(ty.as_mut_ptr(), fy);
            _mm_storeu_ps(omtx.as_mut_ptr(), _mm_sub_ps(one, fx));
            _mm_storeu_ps(omty.as_mut_ptr(), _mm_sub_ps(one, fy));
            let q = _mm_set1_ps(0.25);
            let mut acc: __m128 = zero;
            for l in 0..4 {
                let (x0, y0) = (xi[l] as usize, yi[l] as usize);
                let dx = if x0 < self.last.0 { 3 } else { 0 };
                let dy = if y0 < self.last.1 { 3 * self.w } else { 0 };
                let [b00, b10, b01, b11] = self.corners((y0 * self.w + x0) * 3, dx, dy);
                let (p00, p10) = (Self::bytes_to_ps(b00), Self::bytes_to_ps(b10));
                let (p01, p11) = (Self::bytes_to_ps(b01), Self::bytes_to_ps(b11));
                let (wl, wr) = (_mm_set1_ps(omtx[l]), _mm_set1_ps(tx[l]));
                let (wt, wb) = (_mm_set1_ps(omty[l]), _mm_set1_ps(ty[l]));
                let a = _mm_add_ps(_mm_mul_ps(p00, wl), _mm_mul_ps(p10, wr));
                let b = _mm_add_ps(_mm_mul_ps(p01, wl), _mm_mul_ps(p11, wr));
                let p = _mm_add_ps(_mm_mul_ps(a, wt), _mm_mul_ps(b, wb));
                acc = _mm_add_ps(acc, _mm_mul_ps(p, q));
            }
            _mm_storeu_ps(lanes.as_mut_ptr(), acc);
        }
        [lanes[0], lanes[1], lanes[2]]
    }

    /// Two neighbouring crop cells with AVX2 (cells at `u = ua` and `u =
    /// ub`, both at `v`): [`Self::cell_sse`] with cell `ua` in the low and
    /// `ub` in the high half of each 8-lane register, so every lane does the
    /// same operations in the same order as there (the same values), with
    /// half the arithmetic instructions. Crops inside the image take
    /// [`Self::row_gather_avx2`] instead.
    ///
    /// # Safety
    /// The CPU must have AVX2; coordinates must be finite (as for
    /// [`Self::cell_sse`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn cell_pair_avx2(
        &self,
        c: [f32; 2],
        rot: [f32; 2],
        ua: [f32; 2],
        ub: [f32; 2],
        v: [f32; 2],
    ) -> [[f32; 3]; 2] {
        use std::arch::x86_64::{
            __m256, _mm_cvtsi64_si128, _mm256_add_ps, _mm256_cvtepi32_ps, _mm256_cvtepu8_epi32,
            _mm256_cvttps_epi32, _mm256_max_ps, _mm256_min_ps, _mm256_mul_ps, _mm256_permute_ps,
            _mm256_set1_ps, _mm256_setr_ps, _mm256_setzero_ps, _mm256_storeu_ps,
            _mm256_storeu_si256, _mm256_sub_ps,
        };
        let ([cx, cy], [cs, sn]) = (c, rot);
        let mut xi = [0i32; 8];
        let mut yi = [0i32; 8];
        let mut lanes = [0f32; 8];
        // SAFETY: AVX2 is enabled for this function; every store writes 8
        // values into an 8-value array.
        unsafe {
            // Per half, sub-sample order (u0, v0), (u1, v0), (u0, v1), (u1, v1).
            let uu = _mm256_setr_ps(ua[0], ua[1], ua[0], ua[1], ub[0], ub[1], ub[0], ub[1]);
            let vv = _mm256_setr_ps(v[0], v[0], v[1], v[1], v[0], v[0], v[1], v[1]);
            let (vcs, vsn) = (_mm256_set1_ps(cs), _mm256_set1_ps(sn));
            let x = _mm256_sub_ps(
                _mm256_add_ps(_mm256_set1_ps(cx), _mm256_mul_ps(uu, vcs)),
                _mm256_mul_ps(vv, vsn),
            );
            let y = _mm256_add_ps(
                _mm256_add_ps(_mm256_set1_ps(cy), _mm256_mul_ps(uu, vsn)),
                _mm256_mul_ps(vv, vcs),
            );
            let zero = _mm256_setzero_ps();
            let x = _mm256_min_ps(_mm256_set1_ps(self.last_f.0), _mm256_max_ps(zero, x));
            let y = _mm256_min_ps(_mm256_set1_ps(self.last_f.1), _mm256_max_ps(zero, y));
            let (xq, yq) = (_mm256_cvttps_epi32(x), _mm256_cvttps_epi32(y));
            let one = _mm256_set1_ps(1.0);
            let fx = _mm256_sub_ps(x, _mm256_cvtepi32_ps(xq));
            let fy = _mm256_sub_ps(y, _mm256_cvtepi32_ps(yq));
            _mm256_storeu_si256(xi.as_mut_ptr().cast(), xq);
            _mm256_storeu_si256(yi.as_mut_ptr().cast(), yq);
            let (omtx, omty) = (_mm256_sub_ps(one, fx), _mm256_sub_ps(one, fy));
            let q = _mm256_set1_ps(0.25);
            let mut acc: __m256 = zero;
            // Lane `l` of each half: the weights broadcast within the half
            // (an in-lane permute), the corner pixels of both cells' `l`th
            // sub-sample widened from one 8-byte word.
            macro_rules! step {
                ($l:literal) => {{
                    const L: i32 = $l * 0b01_01_01_01;
                    let (a, b) = ((xi[$l], yi[$l]), (xi[$l + 4], yi[$l + 4]));
                    let ([a00, a10, a01, a11], [b00, b10, b01, b11]) =
                        (self.corners_at(a), self.corners_at(b));
                    let px = |a: u32, b: u32| {
                        let w = (a as u64 | (b as u64) << 32) as i64;
                        _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128(w)))
                    };
                    let (p00, p10, p01, p11) =
                        (px(a00, b00), px(a10, b10), px(a01, b01), px(a11, b11));
                    let (wl, wr) = (_mm256_permute_ps::<L>(omtx), _mm256_permute_ps::<L>(fx));
                    let (wt, wb) = (_mm256_permute_ps::<L>(omty), _mm256_permute_ps::<L>(fy));
                    let a = _mm256_add_ps(_mm256_mul_ps(p00, wl), _mm256_mul_ps(p10, wr));
                    let b = _mm256_add_ps(_mm256_mul_ps(p01, wl), _mm256_mul_ps(p11, wr));
                    let p = _mm256_add_ps(_mm256_mul_ps(a, wt), _mm256_mul_ps(b, wb));
                    acc = _mm256_add_ps(acc, _mm256_mul_ps(p, q));
                }};
            }
            step!(0);
            step!(1);
            step!(2);
            step!(3);
            _mm256_storeu_ps(lanes.as_mut_ptr(), acc);
        }
        [
            [lanes[0], lanes[1], lanes[2]],
            [lanes[4], lanes[5], lanes[6]],
        ]
    }

    /// One row of `GRID` crop cells with AVX2 gathers, 8 cells per register
    /// and one register per channel, into `out`. `xu[k][g]` and `yu[k][g]`
    /// are `cx + u * cs` and `cy + u * sn` for cell `g`'s `k`-th sub-sample
    /// offset `u` along the rotated x axis (the same for every row), `vs`
    /// and `vc` are `v * sn` and `v * cs` for the row's two offsets `v`, so
    /// a sub-sample is at `(xu - vs, yu + vc)`: the values of
    /// [`Self::cell_sse`]'s `(cx + u cs) - v sn` and `(cy + u sn) + v cs`.
    /// The four sub-samples of a cell are taken one after the other (order
    /// (u0, v0), (u1, v0), (u0, v1), (u1, v1)), and per sub-sample and
    /// channel every lane does the clamping, weights, multiplies and adds
    /// of [`Self::cell_sse`] in the same order (the same values as there and
    /// as [`Self::at`]); the corner pixels are 4-byte gathers at the byte
    /// offsets whose first three bytes [`Self::corners_at`] reads (no edge
    /// case: the crop is inside the image).
    ///
    /// # Safety
    /// The CPU must have AVX2; [`Self::holds_crop`] must hold for the crop
    /// the row belongs to (so no coordinate is clamped, every corner pixel
    /// has a right and a lower neighbour, and every 4-byte read ends inside
    /// the buffer); the buffer must be shorter than `i32::MAX` bytes (the
    /// gather offsets are `i32`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn row_gather_avx2(
        &self,
        xu: &[[f32; GRID]; 2],
        yu: &[[f32; GRID]; 2],
        vs: [f32; 2],
        vc: [f32; 2],
        out: &mut [std::mem::MaybeUninit<[f32; 3]>; GRID],
    ) {
        use std::arch::x86_64::{
            _mm256_add_epi32, _mm256_add_ps, _mm256_blend_ps, _mm256_cvtepi32_ps,
            _mm256_cvttps_epi32, _mm256_i32gather_epi32, _mm256_loadu_ps, _mm256_max_ps,
            _mm256_min_ps, _mm256_mul_ps, _mm256_mullo_epi32, _mm256_permute_ps,
            _mm256_permute2f128_ps, _mm256_set1_epi32, _mm256_set1_ps, _mm256_setr_epi8,
            _mm256_setzero_ps, _mm256_shuffle_epi8, _mm256_storeu_ps, _mm256_sub_ps,
        };
        const _: () = assert!(GRID.is_multiple_of(8), "whole registers per row");
        // Byte `k` of every 32-bit lane, zero-extended (per 128-bit half).
        macro_rules! byte_mask {
            ($k:expr) => {{
                const Z: i8 = -128;
                const K: i8 = $k;
                _mm256_setr_epi8(
                    K,
                    Z,
                    Z,
                    Z,
                    K + 4,
                    Z,
                    Z,
                    Z,
                    K + 8,
                    Z,
                    Z,
                    Z,
                    K + 12,
                    Z,
                    Z,
                    Z,
                    K,
                    Z,
                    Z,
                    Z,
                    K + 4,
                    Z,
                    Z,
                    Z,
                    K + 8,
                    Z,
                    Z,
                    Z,
                    K + 12,
                    Z,
                    Z,
                    Z,
                )
            }};
        }
        let masks = [byte_mask!(0), byte_mask!(1), byte_mask!(2)];
        let zero = _mm256_setzero_ps();
        let one = _mm256_set1_ps(1.0);
        let q = _mm256_set1_ps(0.25);
        let (lx, ly) = (_mm256_set1_ps(self.last_f.0), _mm256_set1_ps(self.last_f.1));
        let w = self.w as i32;
        let (vw, three) = (_mm256_set1_epi32(w), _mm256_set1_epi32(3));
        let (right, down) = (_mm256_set1_epi32(3), _mm256_set1_epi32(3 * w));
        let base = self.raw.as_ptr().cast::<i32>();
        let (vs, vc) = (vs.map(|v| _mm256_set1_ps(v)), vc.map(|v| _mm256_set1_ps(v)));
        for g in (0..GRID).step_by(8) {
            let mut acc = [zero; 3];
            for s in 0..4 {
                let (k, j) = (s & 1, s >> 1);
                // SAFETY: g + 8 <= GRID (the loads), AVX2 is enabled, and
                // the gathers read inside the buffer by the caller's
                // guarantee (`holds_crop`): the offsets are those of
                // `corners_at` away from the edges.
                unsafe {
                    let x = _mm256_sub_ps(_mm256_loadu_ps(xu[k].as_ptr().add(g)), vs[j]);
                    let y = _mm256_add_ps(_mm256_loadu_ps(yu[k].as_ptr().add(g)), vc[j]);
                    let x = _mm256_min_ps(lx, _mm256_max_ps(zero, x));
                    let y = _mm256_min_ps(ly, _mm256_max_ps(zero, y));
                    let (xq, yq) = (_mm256_cvttps_epi32(x), _mm256_cvttps_epi32(y));
                    let fx = _mm256_sub_ps(x, _mm256_cvtepi32_ps(xq));
                    let fy = _mm256_sub_ps(y, _mm256_cvtepi32_ps(yq));
                    let (omtx, omty) = (_mm256_sub_ps(one, fx), _mm256_sub_ps(one, fy));
                    let o =
                        _mm256_mullo_epi32(_mm256_add_epi32(_mm256_mullo_epi32(yq, vw), xq), three);
                    let o10 = _mm256_add_epi32(o, right);
                    let o01 = _mm256_add_epi32(o, down);
                    let o11 = _mm256_add_epi32(o01, right);
                    let g00 = _mm256_i32gather_epi32::<1>(base, o);
                    let g10 = _mm256_i32gather_epi32::<1>(base, o10);
                    let g01 = _mm256_i32gather_epi32::<1>(base, o01);
                    let g11 = _mm256_i32gather_epi32::<1>(base, o11);
                    for (a, m) in acc.iter_mut().zip(masks) {
                        macro_rules! ch {
                            ($v:expr) => {
                                _mm256_cvtepi32_ps(_mm256_shuffle_epi8($v, m))
                            };
                        }
                        let (p00, p10, p01, p11) = (ch!(g00), ch!(g10), ch!(g01), ch!(g11));
                        let top = _mm256_add_ps(_mm256_mul_ps(p00, omtx), _mm256_mul_ps(p10, fx));
                        let bot = _mm256_add_ps(_mm256_mul_ps(p01, omtx), _mm256_mul_ps(p11, fx));
                        let p = _mm256_add_ps(_mm256_mul_ps(top, omty), _mm256_mul_ps(bot, fy));
                        *a = _mm256_add_ps(*a, _mm256_mul_ps(p, q));
                    }
                }
            }
            // Channel planes to RGB triples (data movement only): per
            // 128-bit half, r0 g0 b0 r1 | g1 b1 r2 g2 | b2 r3 g3 b3 as
            // blends of the three planes permuted, then the halves in order.
            let [r, gr, b] = acc;
            let pr = _mm256_permute_ps::<0b01_10_11_00>(r);
            let pg = _mm256_permute_ps::<0b10_11_00_01>(gr);
            let pb = _mm256_permute_ps::<0b11_00_01_10>(b);
            let t0 = _mm256_blend_ps::<0x44>(_mm256_blend_ps::<0x22>(pr, pg), pb);
            let t1 = _mm256_blend_ps::<0x22>(_mm256_blend_ps::<0x99>(pr, pg), pb);
            let t2 = _mm256_blend_ps::<0x99>(_mm256_blend_ps::<0x44>(pr, pg), pb);
            let dst = out[g..g + 8].as_mut_ptr().cast::<f32>();
            // SAFETY: `out[g..g + 8]` holds 24 floats (bounds-checked slice;
            // `MaybeUninit<[f32; 3]>` has the layout of `[f32; 3]`).
            unsafe {
                _mm256_storeu_ps(dst, _mm256_permute2f128_ps::<0x20>(t0, t1));
                _mm256_storeu_ps(dst.add(8), _mm256_permute2f128_ps::<0x30>(t2, t0));
                _mm256_storeu_ps(dst.add(16), _mm256_permute2f128_ps::<0x31>(t1, t2));
            }
        }
    }

    /// [`Self::corners`] of the bilinear sample whose top-left pixel is at
    /// the (clamped, non-negative) pixel coordinates `(x, y)`.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn corners_at(&self, (x, y): (i32, i32)) -> [u32; 4] {
        let (x0, y0) = (x as usize, y as usize);
        let dx = if x0 < self.last.0 { 3 } else { 0 };
        let dy = if y0 < self.last.1 { 3 * self.w } else { 0 };
        self.corners((y0 * self.w + x0) * 3, dx, dy)
    }

    /// Whether every sub-sample of a crop centred at `c` with rotation `rot`
    /// and side `side` lies at least [`INTERIOR_MARGIN`] pixels inside the
    /// image on every side (then no coordinate is clamped and every sample
    /// has a right and a lower neighbour): sub-sample offsets along each
    /// rotated axis are within `side / 2`, so coordinates are within `side /
    /// 2 * (|cos| + |sin|)` of the centre, up to float rounding that the
    /// margin covers.
    fn holds_crop(&self, c: [f32; 2], rot: [f32; 2], side: f32) -> bool {
        let reach = side.abs() / 2.0 * (rot[0].abs() + rot[1].abs()) + INTERIOR_MARGIN;
        let (lx, ly) = (self.last_f.0 - 1.0, self.last_f.1 - 1.0);
        c[0] - reach >= 0.0 && c[1] - reach >= 0.0 && c[0] + reach < lx && c[1] + reach < ly
    }
}

/// Sample the crop centred at `(cx, cy)` with side `side`, rotated by `angle`,
/// into `GRID x GRID` RGB values. Each grid value averages 2x2 sub-samples to
/// limit aliasing.
pub fn sample_crop(
    img: &RgbImage,
    cx: f32,
    cy: f32,
    side: f32,
    angle: f32,
    cpu: Cpu,
) -> Vec<[f32; 3]> {
    let step = side / GRID as f32;
    let (sn, cs) = angle.sin_cos();
    // Sub-sample offsets from the crop centre along one axis, for grid index
    // g and sub-offset 0.25 / 0.75 (the same expression per sample as
    // before they were tabled).
    let mut offs = [[0f32; 2]; GRID];
    for (g, o) in offs.iter_mut().enumerate() {
        for (d, s) in o.iter_mut().zip([0.25, 0.75]) {
            *d = (g as f32 + s) * step - side / 2.0;
        }
    }
    let img = Bilinear::new(img);
    let mut out = Vec::with_capacity(GRID * GRID);
    if img.raw.is_empty() {
        out.resize(GRID * GRID, [0.0; 3]);
        return out;
    }
    // The SSE cell needs finite coordinates (bounded inputs keep them so).
    let finite = [cx, cy, side, angle]
        .iter()
        .all(|v| v.is_finite() && v.abs() < 1e6);
    #[cfg(target_arch = "x86_64")]
    if finite && cpu.avx2 {
        let (c, rot) = ([cx, cy], [cs, sn]);
        if img.holds_crop(c, rot, side) && img.raw.len() < i32::MAX as usize {
            // The terms of the sub-sample coordinates that depend on `u`
            // only, shared by all rows (the same float values).
            let xu: [[f32; GRID]; 2] = [0, 1].map(|k| offs.map(|o| cx + o[k] * cs));
            let yu: [[f32; GRID]; 2] = [0, 1].map(|k| offs.map(|o| cy + o[k] * sn));
            // Every cell is written below: no zero fill first.
            let spare = &mut out.spare_capacity_mut()[..GRID * GRID];
            for (row, &v) in spare.chunks_exact_mut(GRID).zip(&offs) {
                let Ok(row) = <&mut [_; GRID]>::try_from(row) else {
                    return Vec::new();
                };
                // SAFETY: AVX2 was checked just above, `holds_crop` holds
                // and the buffer is shorter than `i32::MAX` bytes.
                unsafe { img.row_gather_avx2(&xu, &yu, v.map(|v| v * sn), v.map(|v| v * cs), row) };
            }
            // SAFETY: the capacity is GRID^2 and `row_gather_avx2` wrote
            // all GRID cells of each of the GRID rows.
            unsafe { out.set_len(GRID * GRID) };
            return out;
        }
        for &v in &offs {
            for u in offs.chunks_exact(2) {
                // SAFETY: AVX2 was checked just above and the coordinates
                // are finite.
                let pair = unsafe { img.cell_pair_avx2(c, rot, u[0], u[1], v) };
                out.extend_from_slice(&pair);
            }
        }
        return out;
    }
    #[cfg(target_arch = "x86_64")]
    if finite {
        for &v in &offs {
            for &u in &offs {
                out.push(img.cell_sse([cx, cy], [cs, sn], u, v));
            }
        }
        return out;
    }
    {
        let at = |u: f32, v: f32| img.at(cx + u * cs - v * sn, cy + u * sn + v * cs);
        for &[v0, v1] in &offs {
            for &[u0, u1] in &offs {
                // Sub-samples in the order (0.25, 0.25), (0.75, 0.25),
                // (0.25, 0.75), (0.75, 0.75), each added with weight 1/4.
                let (p0, p1, p2, p3) = (at(u0, v0), at(u1, v0), at(u0, v1), at(u1, v1));
                let mut acc = [0f32; 3];
                for c in 0..3 {
                    acc[c] += p0[c] * 0.25;
                    acc[c] += p1[c] * 0.25;
                    acc[c] += p2[c] * 0.25;
                    acc[c] += p3[c] * 0.25;
                }
                out.push(acc);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crop sampler gives the reference bilinear samples bit for bit,
    /// inside, across and outside the image border.
    #[test]
    fn sample_crop_matches_reference() {
        let img = RgbImage::from_fn(37, 29, |x, y| {
            image::Rgb([
                (x * 7 % 256) as u8,
                (y * 9 % 256) as u8,
                ((x * y * 13) % 256) as u8,
            ])
        });
        let cases = [
            (18.0, 14.0, 20.0, 0.3),
            (2.5, 27.2, 30.0, -0.7),
            (-40.0, 3.0, 25.0, 0.1),
            (30.3, 20.7, 41.0, 0.785),
        ];
        check_sample_crop(&img, &cases);
        // A larger image: crops well inside it (the AVX2 gather rows'
        // unchecked reads), just inside and just outside the interior margin.
        let big = RgbImage::from_fn(90, 70, |x, y| {
            image::Rgb([
                (x * 5 % 256) as u8,
                (y * 11 % 256) as u8,
                ((x * y * 7) % 256) as u8,
            ])
        });
        let b = Bilinear::new(&big);
        let inner = [
            (45.0, 35.0, 30.0, 0.3),
            (44.6, 34.2, 41.0, -0.785),
            (20.0, 20.0, 28.0, 0.0),
        ];
        for &(cx, cy, side, angle) in &inner {
            let (sn, cs) = f32::sin_cos(angle);
            assert!(b.holds_crop([cx, cy], [cs, sn], side), "{cx} {cy}");
        }
        check_sample_crop(&big, &inner);
        // At the bottom-right edge: not interior.
        let edge = [(75.0, 55.0, 26.0, 0.0), (86.0, 66.0, 20.0, 0.4)];
        for &(cx, cy, side, angle) in &edge {
            let (sn, cs) = f32::sin_cos(angle);
            assert!(!b.holds_crop([cx, cy], [cs, sn], side), "{cx} {cy}");
        }
        check_sample_crop(&big, &edge);
    }

    /// The AVX2 gather rows (interior crops) give the same bits as the SSE
    /// cells and the scalar bilinear code, on random pixels, over many
    /// centres, sides and angles (interior ones and ones that are not).
    #[test]
    fn gather_rows_match_sse_and_scalar() {
        let mut rng = crate::vision::dice::mlp::XorShift::new(17);
        let img = RgbImage::from_fn(161, 123, |_, _| {
            let mut b = || (rng.unit() * 256.0).min(255.0) as u8;
            image::Rgb([b(), b(), b()])
        });
        let b = Bilinear::new(&img);
        let sse = Cpu {
            avx2: false,
            ..Cpu::detect()
        };
        let mut cases = Vec::new();
        for _ in 0..300 {
            let cx = 10.0 + rng.unit() * 141.0;
            let cy = 10.0 + rng.unit() * 103.0;
            let side = 8.0 + rng.unit() * 60.0;
            let angle = (rng.unit() - 0.5) * 1.6;
            let bits = |cpu| -> Vec<[u32; 3]> {
                sample_crop(&img, cx, cy, side, angle, cpu)
                    .iter()
                    .map(|p| p.map(f32::to_bits))
                    .collect()
            };
            assert_eq!(bits(Cpu::detect()), bits(sse), "{cx} {cy} {side} {angle}");
            cases.push((cx, cy, side, angle));
        }
        let interior = cases
            .iter()
            .filter(|&&(cx, cy, side, angle)| {
                let (sn, cs) = f32::sin_cos(angle);
                b.holds_crop([cx, cy], [cs, sn], side)
            })
            .count();
        assert!(interior > 100, "{interior}");
        // And the reference bilinear sampling.
        check_sample_crop(&img, &cases);
    }

    /// `sample_crop` equals the reference sampling bit for bit for each
    /// `(cx, cy, side, angle)`.
    fn check_sample_crop(img: &RgbImage, cases: &[(f32, f32, f32, f32)]) {
        for &(cx, cy, side, angle) in cases {
            let step = side / GRID as f32;
            let (sn, cs) = f32::sin_cos(angle);
            let mut want = Vec::new();
            for gy in 0..GRID {
                for gx in 0..GRID {
                    let mut acc = [0f32; 3];
                    for (sx, sy) in [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)] {
                        let u = (gx as f32 + sx) * step - side / 2.0;
                        let v = (gy as f32 + sy) * step - side / 2.0;
                        let p = sample(img, cx + u * cs - v * sn, cy + u * sn + v * cs);
                        for c in 0..3 {
                            acc[c] += p[c] * 0.25;
                        }
                    }
                    want.push(acc.map(f32::to_bits));
                }
            }
            let got: Vec<[u32; 3]> = sample_crop(img, cx, cy, side, angle, Cpu::detect())
                .iter()
                .map(|p| p.map(f32::to_bits))
                .collect();
            assert_eq!(got, want);
        }
    }
}
