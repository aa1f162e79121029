//! Pre-processing shared by the detector: half-resolution colour planes, a local
//! background estimate, foreground channels and their integral images.

use super::cpu::Cpu;
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

/// Bits of the two low fields (colour distance, saturation) of an
/// [`Entry`]'s first lane; the gradient takes the remaining 22 bits.
const FIELD_BITS: u32 = 21;

/// The low [`FIELD_BITS`] bits of a lane.
const FIELD_MASK: u64 = (1 << FIELD_BITS) - 1;

/// Position of the saturation field in an [`Entry`]'s first lane.
const SAT_SHIFT: u32 = FIELD_BITS;

/// Position of the gradient field (the top 22 bits) in an [`Entry`]'s
/// first lane.
const GRAD_SHIFT: u32 = 2 * FIELD_BITS;

/// Position of the brighter-than-background field in an [`Entry`]'s second
/// lane (darker-than-background is the low half).
const HI_SHIFT: u32 = 32;

/// Largest box (in half-res pixels) whose sums an [`Entry`] difference
/// holds exactly: each field must hold its box's true sum, and the smallest
/// fields are 21 bits for values of at most 255 (colour distance,
/// saturation; `2^21 / 255`) and 22 bits for the gradient (at most 510).
/// The detector's boxes have at most 41 x 41 = 1681 pixels; larger boxes
/// are summed in tiles of `TILE_SIDE`.
pub const MAX_EXACT_BOX_PX: usize = 8224;

/// Side of the square tiles in which [`Prepared::box_sum`] sums boxes larger
/// than [`MAX_EXACT_BOX_PX`] (`64 * 64 <= 8224`).
const TILE_SIDE: usize = 64;

/// One entry of the integral image: the integrals of the five channels
/// packed into two `u64` lanes, 16 bytes instead of 20 (a fifth less
/// memory written by `prepare` and read by the detector, and aligned so
/// that no entry straddles a cache line). Lane 0 holds `fg + sat * 2^21 +
/// grad * 2^42`, lane 1 `darker + brighter * 2^32` (channel order of
/// [`Prepared::integrals`]), all modulo 2^64. Since packing is linear
/// modulo 2^64, the packed integral is the integral of the packed pixel
/// values, and the wrapping difference `a + b - c - d` of four entries is
/// the packed box sums; each field then reads back its channel's box sum
/// exactly as long as that sum fits the field ([`MAX_EXACT_BOX_PX`]). The
/// fields of a single entry mean nothing on their own (carries).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C, align(16))]
pub struct Entry(pub [u64; 2]);

impl Entry {
    /// The packed form of five channel values (or integrals), modulo 2^64.
    #[inline(always)]
    pub fn pack(v: [u32; N_CHANNELS]) -> Self {
        let w = |c: usize| v[c] as u64;
        Self([
            w(0).wrapping_add(w(2) << SAT_SHIFT)
                .wrapping_add(w(1) << GRAD_SHIFT),
            w(3).wrapping_add(w(4) << HI_SHIFT),
        ])
    }

    /// Lane-wise wrapping sum.
    #[inline(always)]
    pub fn wrapping_add(self, o: Self) -> Self {
        Self([
            self.0[0].wrapping_add(o.0[0]),
            self.0[1].wrapping_add(o.0[1]),
        ])
    }

    /// Lane-wise wrapping difference.
    #[inline(always)]
    pub fn wrapping_sub(self, o: Self) -> Self {
        Self([
            self.0[0].wrapping_sub(o.0[0]),
            self.0[1].wrapping_sub(o.0[1]),
        ])
    }

    /// The five channel fields (of a box sum: its per-channel sums, modulo
    /// the field widths).
    #[inline(always)]
    pub fn fields(self) -> [u32; N_CHANNELS] {
        let [a, b] = self.0;
        [
            (a & FIELD_MASK) as u32,
            (a >> GRAD_SHIFT) as u32,
            ((a >> SAT_SHIFT) & FIELD_MASK) as u32,
            b as u32,
            (b >> HI_SHIFT) as u32,
        ]
    }
}

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

/// Values in the median filter's window of blocks, padded (see
/// [`padded_median`]).
const SMALL_MEDIAN: usize = 32;

/// Values in one background block.
const BLOCK_PX: usize = BG_BLOCK * BG_BLOCK;

/// Lanes of [`count_at_most`]'s byte counters (one AVX2 register).
const COUNT_LANES: usize = 32;

/// The element at index `n / 2` of the sorted first `n` values of `vals`
/// (`1 <= n <= N`; the rest must be 255): the value a selection would make
/// (the tests' `median_u8`), found as the smallest `m` with more than `n / 2`
/// values `<= m` by an 8-step binary search. The 255 padding is never `<= m`
/// for `m < 255`, and at `m = 255` the count is enough either way. Used for
/// the block medians (`N` = [`BLOCK_PX`]) and the median filter over blocks
/// (`N` = [`SMALL_MEDIAN`]); replaces a 256-bin histogram per block and
/// channel, whose increments of the same bin stall on each other.
#[inline(always)]
fn padded_median<const N: usize>(vals: &[u8; N], n: usize) -> u8 {
    let need = (n.min(N) / 2 + 1) as u32;
    let (mut lo, mut hi) = (0u8, u8::MAX);
    while lo < hi {
        let m = lo + (hi - lo) / 2;
        if count_at_most(vals, m) >= need {
            hi = m;
        } else {
            lo = m + 1;
        }
    }
    lo
}

/// [`padded_median`] of `K` value sets (`N` = [`BLOCK_PX`], `n[k]` values in
/// set `k`; the three channels of two blocks) with AVX2, their binary
/// searches in lock-step: the steps of one search depend on each other,
/// those of different sets do not, so the CPU overlaps them (one block and
/// channel after the other, each step
/// waited for the previous one's count: the block medians were about a
/// twelfth of a read on an AMD Zen 3); the bounds are picked by selects, not
/// by an unpredictable branch. Each count is that of [`count_at_most`]
/// (byte compares, summed by `vpsadbw`), and a range of 256 values halves
/// exactly at each step, so the [`BYTE_SEARCH_STEPS`] steps give what the
/// loop `while lo < hi` gives.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn block_medians_avx2<const K: usize>(all: &[[u8; BLOCK_PX]; K], n: &[usize; K]) -> [u8; K] {
    use std::arch::x86_64::{
        __m256i, _mm_add_epi64, _mm_cvtsi128_si64, _mm_extract_epi64, _mm256_add_epi8,
        _mm256_castsi256_si128, _mm256_cmpeq_epi8, _mm256_extracti128_si256, _mm256_loadu_si256,
        _mm256_min_epu8, _mm256_sad_epu8, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_sub_epi8,
    };
    const _: () = assert!(BLOCK_PX.is_multiple_of(2 * COUNT_LANES) && BLOCK_PX / COUNT_LANES < 128);
    let need = n.map(|n| (n.min(BLOCK_PX) / 2 + 1) as u64);
    let (mut lo, mut hi) = ([0u8; K], [u8::MAX; K]);
    let zero = _mm256_setzero_si256();
    for _ in 0..BYTE_SEARCH_STEPS {
        for k in 0..K {
            let m = lo[k] + (hi[k] - lo[k]) / 2;
            let mv = _mm256_set1_epi8(m as i8);
            // Two byte counters, negated (a compare gives -1 per value <= m).
            let mut neg = [zero; 2];
            for (c, chunk) in all[k].chunks_exact(COUNT_LANES).enumerate() {
                // SAFETY: AVX2 per the caller; a 32-byte load of a 32-byte
                // chunk.
                let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
                let le = _mm256_cmpeq_epi8(_mm256_min_epu8(v, mv), v);
                neg[c % 2] = _mm256_add_epi8(neg[c % 2], le);
            }
            let counts = _mm256_sub_epi8(zero, _mm256_add_epi8(neg[0], neg[1]));
            let sums = _mm256_sad_epu8(counts, zero);
            let pair = _mm_add_epi64(
                _mm256_castsi256_si128(sums),
                _mm256_extracti128_si256::<1>(sums),
            );
            let count = (_mm_cvtsi128_si64(pair) + _mm_extract_epi64::<1>(pair)) as u64;
            let enough = count >= need[k];
            hi[k] = std::hint::select_unpredictable(enough, m, hi[k]);
            // `m < 255` when not enough (every value counts at 255).
            lo[k] = std::hint::select_unpredictable(enough, lo[k], m.wrapping_add(1));
        }
    }
    lo
}

/// How many of `vals` are `<= m`: byte counters per lane (at most
/// `N / COUNT_LANES` <= 8 each, no overflow), which vectorise.
#[inline(always)]
fn count_at_most<const N: usize>(vals: &[u8; N], m: u8) -> u32 {
    const { assert!(N.is_multiple_of(COUNT_LANES) && N / COUNT_LANES <= 255) };
    let mut lanes = [0u8; COUNT_LANES];
    for chunk in vals.chunks_exact(COUNT_LANES) {
        for (l, &v) in lanes.iter_mut().zip(chunk) {
            *l += (v <= m) as u8;
        }
    }
    let mut total = 0u32;
    for &c in &lanes {
        total += c as u32;
    }
    total
}

/// Planar half-resolution colour: one byte plane per channel (R, G, B), so
/// the per-pixel channel pass reads contiguous bytes and vectorises.
struct Planes {
    w: usize,
    h: usize,
    c: [Vec<u8>; 3],
}

/// Half-resolution planes by box averaging (`f x f` blocks, partial blocks at
/// the right and bottom edges averaged over the pixels they have).
/// `AVX2` (only inside [`prepare_avx2`]) averages the pixel pairs with
/// AVX2 intrinsics ([`halve_row_avx2`]).
#[inline(always)]
fn downsample<const AVX2: bool>(img: &RgbImage, f: usize) -> Planes {
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

/// Blocks whose medians [`background_blocks`] searches together.
const PAIR: usize = 2;

/// The values of one channel's block (columns `x0..x1`, rows `ys` of a plane
/// `w` wide) packed row after row into `vals` (whose rest is left as is).
#[inline(always)]
fn block_values(
    plane: &[u8],
    w: usize,
    ys: std::ops::Range<usize>,
    x0: usize,
    x1: usize,
    vals: &mut [u8; BLOCK_PX],
) {
    if x1 - x0 == BG_BLOCK {
        // Full-width block: fixed-length row copies (a copy of variable
        // length was a `memcpy` call per 16 bytes).
        let dst = vals.chunks_exact_mut(BG_BLOCK);
        for (d, y) in dst.zip(ys) {
            let src = &plane[y * w + x0..y * w + x0 + BG_BLOCK];
            for (o, &v) in d.iter_mut().zip(src) {
                *o = v;
            }
        }
    } else {
        for (k, y) in ys.enumerate() {
            let dst = k * (x1 - x0);
            vals[dst..dst + x1 - x0].copy_from_slice(&plane[y * w + x0..y * w + x1]);
        }
    }
}

/// Background colour per block of [`BG_BLOCK`] half-res px: the per-channel
/// median of the block, then a median filter of radius [`BG_MEDIAN_RADIUS`]
/// blocks (both by [`padded_median`]: the value a selection would make).
/// Returns the blocks per row, per column and the colours as three
/// `[bw * bh]` planes (R, G, B).
#[inline(always)]
fn background_blocks<const AVX2: bool>(pl: &Planes) -> (usize, usize, [Vec<f32>; 3]) {
    let (w, h) = (pl.w, pl.h);
    let bw = w.div_ceil(BG_BLOCK);
    let bh = h.div_ceil(BG_BLOCK);
    // Planar (one row-major plane per channel), so that the median filter
    // below copies whole window rows.
    let mut block = [vec![0u8; bw * bh], vec![0u8; bw * bh], vec![0u8; bw * bh]];
    for by in 0..bh {
        let ys = by * BG_BLOCK..((by + 1) * BG_BLOCK).min(h);
        // Blocks in pairs: six searches in lock-step (see
        // `block_medians_avx2`).
        for bx in (0..bw).step_by(PAIR) {
            let pair = (bw - bx).min(PAIR);
            // Per block and channel, the block's values packed row after
            // row, padded with 255 (see `padded_median`), and their count;
            // a missing second block is one padding value (not stored).
            let mut all = [[u8::MAX; BLOCK_PX]; 3 * PAIR];
            let mut n = [1usize; 3 * PAIR];
            for p in 0..pair {
                let (x0, x1) = ((bx + p) * BG_BLOCK, ((bx + p + 1) * BG_BLOCK).min(w));
                let sets = all[3 * p..3 * p + 3]
                    .iter_mut()
                    .zip(&mut n[3 * p..3 * p + 3]);
                for (plane, (vals, n)) in pl.c.iter().zip(sets) {
                    *n = ys.len() * (x1 - x0);
                    block_values(plane, w, ys.clone(), x0, x1, vals);
                }
            }
            let mut m = [0u8; 3 * PAIR];
            #[cfg(target_arch = "x86_64")]
            if AVX2 {
                // SAFETY: `AVX2` is only set inside `prepare_avx2`, which
                // runs only on CPUs with AVX2.
                m = unsafe { block_medians_avx2(&all, &n) };
            }
            if !(cfg!(target_arch = "x86_64") && AVX2) {
                for ((m, vals), &n) in m.iter_mut().zip(&all).zip(&n) {
                    *m = padded_median(vals, n);
                }
            }
            for p in 0..pair {
                for (out, &m) in block.iter_mut().zip(&m[3 * p..3 * p + 3]) {
                    out[by * bw + bx + p] = m;
                }
            }
        }
    }
    let mut bg_block = [
        vec![0f32; bw * bh],
        vec![0f32; bw * bh],
        vec![0f32; bw * bh],
    ];
    for (plane, out) in block.iter().zip(bg_block.iter_mut()) {
        median_filter::<AVX2>(plane, bw, bh, out);
    }
    (bw, bh, bg_block)
}

/// Side of the median filter's window of blocks.
const MEDIAN_WINDOW: usize = 2 * BG_MEDIAN_RADIUS + 1;
const _: () = assert!(MEDIAN_WINDOW * MEDIAN_WINDOW <= SMALL_MEDIAN);

/// Values in the median filter's window of blocks.
const MEDIAN_CELLS: usize = MEDIAN_WINDOW * MEDIAN_WINDOW;

/// Blocks filtered together by [`median_lanes_avx2`] (one AVX2 register of
/// bytes): the filter runs its binary search in every lane at once instead
/// of one block after the other, whose eight dependent count steps each
/// waited for the previous one (the median filter was about a tenth of
/// `prepare`'s time on an AMD Zen 3).
const FILTER_LANES: usize = 32;

/// Steps of a binary search over the byte values (a range of 256 halves
/// exactly in each).
const BYTE_SEARCH_STEPS: usize = u8::BITS as usize;

/// The median filter of radius [`BG_MEDIAN_RADIUS`] blocks over one
/// channel's block plane (`bw x bh` medians, row-major) into `out`: per block
/// the value [`padded_median`] gives for its window clipped to the plane
/// (the element at index `n / 2` of the sorted `n` window values). The
/// plane is copied into one padded with 255 on every side ([`FILTER_LANES`]
/// columns of slack on the right), so every window has
/// [`MEDIAN_CELLS`] values of which the padding ones never count below
/// 255, as in [`padded_median`]; [`FILTER_LANES`] neighbouring blocks of a
/// row are then searched together (by [`median_lanes_avx2`] on AVX2 CPUs).
#[inline(always)]
fn median_filter<const AVX2: bool>(plane: &[u8], bw: usize, bh: usize, out: &mut [f32]) {
    const R: usize = BG_MEDIAN_RADIUS;
    let pw = bw + 2 * R + FILTER_LANES;
    let mut padded = vec![u8::MAX; pw * (bh + 2 * R)];
    for (dst, src) in padded[R * pw..]
        .chunks_exact_mut(pw)
        .zip(plane.chunks_exact(bw))
    {
        dst[R..R + bw].copy_from_slice(src);
    }
    // Window cells inside the plane along each axis.
    let inside = |i: usize, n: usize| ((i + R).min(n - 1) - i.saturating_sub(R) + 1) as u8;
    let nx: Vec<u8> = (0..bw).map(|bx| inside(bx, bw)).collect();
    for by in 0..bh {
        let ny = inside(by, bh);
        for x0 in (0..bw).step_by(FILTER_LANES) {
            let lanes = (bw - x0).min(FILTER_LANES);
            let mut win = [[u8::MAX; FILTER_LANES]; MEDIAN_CELLS];
            for (k, w) in win.iter_mut().enumerate() {
                let (dy, dx) = (k / MEDIAN_WINDOW, k % MEDIAN_WINDOW);
                let at = (by + dy) * pw + x0 + dx;
                w.copy_from_slice(&padded[at..at + FILTER_LANES]);
            }
            // Window sizes; lanes past the row's end search padding (as
            // one value) and are not stored.
            let mut n = [1u8; FILTER_LANES];
            for (n, &c) in n.iter_mut().zip(&nx[x0..x0 + lanes]) {
                *n = c * ny;
            }
            let mut m = [0u8; FILTER_LANES];
            #[cfg(target_arch = "x86_64")]
            if AVX2 {
                // SAFETY: `AVX2` is only set inside `prepare_avx2`, which
                // runs only on CPUs with AVX2.
                m = unsafe { median_lanes_avx2(&win, &n) };
            }
            if !(cfg!(target_arch = "x86_64") && AVX2) {
                for (l, m) in m.iter_mut().enumerate() {
                    let mut vals = [u8::MAX; SMALL_MEDIAN];
                    for (v, row) in vals.iter_mut().zip(&win) {
                        *v = row[l];
                    }
                    *m = padded_median(&vals, n[l] as usize);
                }
            }
            for (o, &v) in out[by * bw + x0..by * bw + x0 + lanes].iter_mut().zip(&m) {
                *o = v as f32;
            }
        }
    }
}

/// Per lane `l`, the [`padded_median`] of the `n[l]` (1 to
/// [`MEDIAN_CELLS`]) values `win[k][l]` other than 255 padding, with AVX2:
/// its binary search (the smallest `m` with more than `n / 2` values at most
/// `m`; the same steps, so the same value) in all 32 byte lanes at once.
/// Byte counters cannot overflow ([`MEDIAN_CELLS`] < 128, so signed byte
/// compares order them too).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn median_lanes_avx2(
    win: &[[u8; FILTER_LANES]; MEDIAN_CELLS],
    n: &[u8; FILTER_LANES],
) -> [u8; FILTER_LANES] {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi8, _mm256_and_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi8,
        _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_min_epu8, _mm256_set1_epi8,
        _mm256_setzero_si256, _mm256_srli_epi16, _mm256_storeu_si256, _mm256_sub_epi8,
    };
    const _: () = assert!(MEDIAN_CELLS < 128 && FILTER_LANES == 32);
    let mut out = [0u8; FILTER_LANES];
    // SAFETY: AVX2 per the caller; every load and store is of a 32-byte
    // array.
    unsafe {
        let ld = |a: &[u8; FILTER_LANES]| _mm256_loadu_si256(a.as_ptr().cast::<__m256i>());
        let one = _mm256_set1_epi8(1);
        // need = n / 2 + 1 (a byte shift: 16-bit shift, top bits masked).
        let need = _mm256_add_epi8(
            _mm256_and_si256(_mm256_srli_epi16::<1>(ld(n)), _mm256_set1_epi8(0x7f)),
            one,
        );
        let (mut lo, mut hi) = (_mm256_setzero_si256(), _mm256_set1_epi8(-1));
        for _ in 0..BYTE_SEARCH_STEPS {
            // m = lo + (hi - lo) / 2 (hi >= lo, so no wrap).
            let half = _mm256_srli_epi16::<1>(_mm256_sub_epi8(hi, lo));
            let m = _mm256_add_epi8(lo, _mm256_and_si256(half, _mm256_set1_epi8(0x7f)));
            // Two counters (negated: a compare gives -1 per value <= m).
            let mut neg = [_mm256_setzero_si256(); 2];
            for (k, row) in win.iter().enumerate() {
                let v = ld(row);
                let le = _mm256_cmpeq_epi8(_mm256_min_epu8(v, m), v);
                neg[k % 2] = _mm256_add_epi8(neg[k % 2], le);
            }
            let count = _mm256_sub_epi8(_mm256_setzero_si256(), _mm256_add_epi8(neg[0], neg[1]));
            // Not enough: count < need.
            let short = _mm256_cmpgt_epi8(need, count);
            hi = _mm256_blendv_epi8(m, hi, short);
            lo = _mm256_blendv_epi8(lo, _mm256_add_epi8(m, one), short);
        }
        _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), lo);
    }
    out
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

/// Columns `[start, end)` sharing the same pair of background blocks, with
/// those block indices; within a run the bilinear background is a fixed
/// blend of two colours, which vectorises.
struct ColumnRun {
    start: usize,
    end: usize,
    b0: usize,
    b1: usize,
}

/// Per-column bilinear weights (`1 - t`, `t`) and the runs of columns
/// between the same two block centres.
#[inline(always)]
fn column_weights(w: usize, bw: usize) -> (Vec<f32>, Vec<f32>, Vec<ColumnRun>) {
    let half = BG_BLOCK as f32 / 2.0;
    let (mut omt, mut t, mut runs) = (Vec::with_capacity(w), Vec::with_capacity(w), Vec::new());
    for x in 0..w {
        let gx = ((x as f32 + 0.5 - half) / BG_BLOCK as f32).clamp(0.0, (bw - 1) as f32);
        let x0 = gx.floor() as usize;
        let x1 = (x0 + 1).min(bw - 1);
        let tx = gx - x0 as f32;
        omt.push(1.0 - tx);
        t.push(tx);
        match runs.last_mut() {
            Some(ColumnRun { end, b0, b1, .. }) if *b0 == x0 && *b1 == x1 => *end = x + 1,
            _ => runs.push(ColumnRun {
                start: x,
                end: x + 1,
                b0: x0,
                b1: x1,
            }),
        }
    }
    (omt, t, runs)
}

/// Lanes per step of [`blend_run`] (one AVX register of `f32`).
const BLEND_LANES: usize = 8;

/// `o[i] = l * a[i] + r * t[i]` over a run of columns (the shorter of the
/// slices), [`BLEND_LANES`] columns per step with a fixed-length body: runs
/// are 8-24 columns, so a loop of variable length spent more instructions
/// on its set-up and tail than on the blend. Same operations per column.
#[inline(always)]
fn blend_run(l: f32, r: f32, a: &[f32], t: &[f32], o: &mut [f32]) {
    let n = o.len().min(a.len()).min(t.len());
    let (a, t, o) = (&a[..n], &t[..n], &mut o[..n]);
    let mut oc = o.chunks_exact_mut(BLEND_LANES);
    let (mut ac, mut tc) = (a.chunks_exact(BLEND_LANES), t.chunks_exact(BLEND_LANES));
    for ((o8, a8), t8) in (&mut oc).zip(&mut ac).zip(&mut tc) {
        // A fixed-size array: one vector multiply-multiply-add.
        for ((o, &a), &t) in o8.iter_mut().zip(a8).zip(t8) {
            *o = l * a + r * t;
        }
    }
    let tail = oc.into_remainder().iter_mut().zip(ac.remainder());
    for ((o1, &a1), &t1) in tail.zip(tc.remainder()) {
        *o1 = l * a1 + r * t1;
    }
}

/// Row scratch of [`prepare`]: the background colour per column and the five
/// channel values per column.
struct RowScratch {
    bg: [Vec<f32>; 3],
    vals: [Vec<u32>; N_CHANNELS],
}

/// The five channel values of half-res row `y` into `s.vals` (background
/// already interpolated into `s.bg`): colour distance to the background,
/// gradient magnitude, saturation, darker- and brighter-than-background.
#[inline(always)]
fn channel_row(pl: &Planes, lum: &LumRows, y: usize, s: &mut RowScratch) {
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
/// whether a closure was inlined into [`prepare_body`] changed with
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
struct LumRows {
    h: usize,
    slots: [Vec<u16>; 3],
}

impl LumRows {
    /// Rows 0 and 1 (if any) of the planes.
    #[inline(always)]
    fn new(pl: &Planes) -> Self {
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
    fn fill(&mut self, pl: &Planes, y: usize) {
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

/// `o[k] = l * a[k] + r * t[k]` for one block-wide run of columns (a fixed
/// length: one unrolled vector body). Forced inline, as [`grad_at`].
#[inline(always)]
fn blend_block(l: f32, r: f32, a: &[f32; BG_BLOCK], t: &[f32; BG_BLOCK], o: &mut [f32; BG_BLOCK]) {
    // Indexed over the fixed length (a zipped loop here stayed scalar).
    for k in 0..BG_BLOCK {
        o[k] = l * a[k] + r * t[k];
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

/// Integral row from the row's channel values, from column `start` on with
/// packed running sums `acc` of the columns before it: `out[x] = above[x] +
/// sum(pack(vals[..=x]))`, wrapping (see [`Entry`]).
#[inline(always)]
fn integral_row(
    vals: &[Vec<u32>; N_CHANNELS],
    above: &[Entry],
    out: &mut [Entry],
    start: usize,
    mut acc: Entry,
) {
    let [v0, v1, v2, v3, v4] = vals;
    let vals = from(v0, start)
        .iter()
        .zip(from(v1, start))
        .zip(from(v2, start))
        .zip(from(v3, start))
        .zip(from(v4, start));
    let out = out.get_mut(start..).unwrap_or(&mut []);
    let cells = out.iter_mut().zip(from(above, start));
    // Zipped (not indexed) so the loop has no bounds checks.
    for ((d, a), ((((&c0, &c1), &c2), &c3), &c4)) in cells.zip(vals) {
        acc = acc.wrapping_add(Entry::pack([c0, c1, c2, c3, c4]));
        *d = a.wrapping_add(acc);
    }
}

/// `v[start..]`, empty if `start` is past the end.
#[inline(always)]
fn from<T>(v: &[T], start: usize) -> &[T] {
    v.get(start..).unwrap_or(&[])
}

/// Pixels per step of [`integral_row_avx2`] (one AVX2 register of `u32`
/// channel values).
const ROW_STEP: usize = 8;

/// Largest channel value [`integral_row_avx2`] packs exactly: the packed
/// fields are then built in 32-bit halves (the saturation at bit 21 of the
/// low half, the gradient at bit 10 of the high half) without carries.
/// The channels are at most 255, the gradient 510.
const ROW_VALUE_MAX: u32 = 2047;

/// [`integral_row`] from column 0 with AVX2, [`ROW_STEP`] pixels per step.
/// [`Entry::pack`] of a single pixel's values (each at most
/// [`ROW_VALUE_MAX`]) has no overlapping fields, so its four 32-bit halves
/// are `fg | sat << 21`, `grad << 10`, `darker` and `brighter`: two shifts
/// and an or per 8 pixels, then 32- and 64-bit interleaves form the eight
/// 16-byte entries. Each pixel is then one add to the running sums, one add
/// of the entry above and one aligned 16-byte store, in column order. Same
/// wrapping sums per lane, so the same entries; the last pixels go through
/// [`integral_row`].
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn integral_row_avx2(vals: &[Vec<u32>; N_CHANNELS], above: &[Entry], out: &mut [Entry]) {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_add_epi64, _mm_load_si128, _mm_setzero_si128, _mm_store_si128,
        _mm_storeu_si128, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
        _mm256_or_si256, _mm256_slli_epi32, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64,
        _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
    };
    debug_assert!(vals.iter().flatten().all(|&v| v <= ROW_VALUE_MAX));
    let n = vals
        .iter()
        .map(Vec::len)
        .fold(out.len().min(above.len()), usize::min);
    let mut x = 0;
    let mut acc = _mm_setzero_si128();
    while x + ROW_STEP <= n {
        // SAFETY: AVX2 is enabled for this function; the loads read 8
        // values of each channel row at `x..x + 8 <= n`, and the entry
        // accesses are to `above[x..x + 8]` and `out[x..x + 8]` (aligned:
        // `Entry` is 16-byte aligned).
        unsafe {
            let ld = |c: usize| _mm256_loadu_si256(vals[c].as_ptr().add(x) as *const __m256i);
            // The 32-bit halves of lane 0 (fg | sat << 21, grad << 10)
            // and of lane 1 (darker, brighter) of pixels 0-7.
            let l0 = _mm256_or_si256(ld(0), _mm256_slli_epi32::<{ SAT_SHIFT as i32 }>(ld(2)));
            let h0 = _mm256_slli_epi32::<{ (GRAD_SHIFT - 32) as i32 }>(ld(1));
            let (l1, h1) = (ld(3), ld(4));
            // 64-bit lanes of pixels 0, 1 | 4, 5 and 2, 3 | 6, 7.
            let (a01, a23) = (_mm256_unpacklo_epi32(l0, h0), _mm256_unpackhi_epi32(l0, h0));
            let (b01, b23) = (_mm256_unpacklo_epi32(l1, h1), _mm256_unpackhi_epi32(l1, h1));
            // Entries of pixels 0 | 4, 1 | 5, 2 | 6, 3 | 7.
            let e = [
                _mm256_unpacklo_epi64(a01, b01),
                _mm256_unpackhi_epi64(a01, b01),
                _mm256_unpacklo_epi64(a23, b23),
                _mm256_unpackhi_epi64(a23, b23),
            ];
            let px: [__m128i; ROW_STEP] = [
                _mm256_castsi256_si128(e[0]),
                _mm256_castsi256_si128(e[1]),
                _mm256_castsi256_si128(e[2]),
                _mm256_castsi256_si128(e[3]),
                _mm256_extracti128_si256::<1>(e[0]),
                _mm256_extracti128_si256::<1>(e[1]),
                _mm256_extracti128_si256::<1>(e[2]),
                _mm256_extracti128_si256::<1>(e[3]),
            ];
            for (j, p) in px.into_iter().enumerate() {
                acc = _mm_add_epi64(acc, p);
                let a = _mm_load_si128(above.as_ptr().add(x + j) as *const __m128i);
                _mm_store_si128(
                    out.as_mut_ptr().add(x + j) as *mut __m128i,
                    _mm_add_epi64(acc, a),
                );
            }
        }
        x += ROW_STEP;
    }
    let mut last = Entry::default();
    // SAFETY: the store writes the 16 bytes of `last`.
    unsafe { _mm_storeu_si128(last.0.as_mut_ptr() as *mut __m128i, acc) };
    integral_row(vals, above, out, x, last);
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
    if p.holds_feature_boxes(cx, cy) {
        // All boxes inside: the same means without clamping (most cells).
        #[cfg(target_arch = "x86_64")]
        if p.cpu.avx2 {
            // SAFETY: `cpu.avx2` says the CPU has AVX2; the boxes were
            // checked by `holds_feature_boxes`.
            unsafe { features_inside_avx2(p, cx, cy, out) };
            return;
        }
        features_from(&Inside(p), cx, cy, out);
    } else {
        #[cfg(target_arch = "x86_64")]
        if p.cpu.avx2 {
            // SAFETY: `cpu.avx2` says the CPU has AVX2.
            unsafe { features_clamped_avx2(p, cx, cy, out) };
            return;
        }
        features_from(&Clamped(p), cx, cy, out);
    }
}

/// [`det_features`] of a cell near the frame's edge with AVX2: each box is
/// clamped as [`Prepared::box_means`] clamps it, and its sums are unpacked
/// by [`box_mean_at`] (the same integer sums, conversion and division, so
/// the same values; see `avx2_clamped_features_match_portable`). A third of
/// a 720p frame's scored cells are this close to an edge.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn features_clamped_avx2(p: &Prepared, cx: i64, cy: i64, out: &mut [f32; N_DET_FEATURES]) {
    // SAFETY: the caller guarantees AVX2, and this function (AVX2-enabled)
    // is where `features_from` and the box means are compiled.
    let m = unsafe { ClampedAvx2::new(p) };
    features_from(&m, cx, cy, out);
}

/// [`Prepared::box_means`] with the sums unpacked by [`box_mean_at`]; only
/// for code compiled with AVX2 (hence the unsafe constructor).
#[cfg(target_arch = "x86_64")]
struct ClampedAvx2<'a>(&'a Prepared);

#[cfg(target_arch = "x86_64")]
impl<'a> ClampedAvx2<'a> {
    /// # Safety
    /// The CPU must have AVX2, and [`BoxMeans::means`] must only be called
    /// from functions compiled with AVX2 enabled (it is inlined there).
    #[inline(always)]
    unsafe fn new(p: &'a Prepared) -> Self {
        Self(p)
    }
}

/// `v` clamped to `[0, m]`.
#[inline(always)]
fn clamp_to(v: i64, m: usize) -> usize {
    v.clamp(0, m as i64) as usize
}

#[cfg(target_arch = "x86_64")]
impl BoxMeans for ClampedAvx2<'_> {
    #[inline(always)]
    fn means(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> [f32; N_CHANNELS] {
        let p = self.0;
        let (x0, x1) = (clamp_to(x0, p.w), clamp_to(x1, p.w));
        let (y0, y1) = (clamp_to(y0, p.h), clamp_to(y1, p.h));
        if x1 <= x0 || y1 <= y0 {
            return [0f32; N_CHANNELS];
        }
        let n = (x1 - x0) * (y1 - y0);
        if n > MAX_EXACT_BOX_PX {
            // Never for the detector's boxes (at most 41 x 41).
            let (x0, y0, x1, y1) = (x0 as i64, y0 as i64, x1 as i64, y1 as i64);
            return p.box_means(x0, y0, x1, y1);
        }
        let s = p.w + 1;
        let entry = std::mem::size_of::<Entry>();
        let at = |x: usize, y: usize| ((y * s + x) * entry) as isize;
        let corners = [at(x1, y1), at(x0, y0), at(x1, y0), at(x0, y1)];
        let base = p.integrals.as_ptr() as *const u8;
        // As `box_means_inside` converts it.
        let area = n as u32 as f32;
        // SAFETY: AVX2 per `Self::new`; the clamped corners are at most
        // `(w, h)`, entries of the `(w + 1) x (h + 1)` integral image.
        let m = unsafe { box_mean_at(base, &corners, area) };
        [m[0], m[1], m[2], m[3], m[4]]
    }
}

/// Box means `(x0, y0, x1, y1)` of all channels, as used by
/// [`features_from`]; a trait (not a closure) so that the call is reliably
/// inlined into the feature loop.
trait BoxMeans {
    fn means(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> [f32; N_CHANNELS];
}

/// [`Prepared::box_means`] (clamped to the frame).
struct Clamped<'a>(&'a Prepared);

impl BoxMeans for Clamped<'_> {
    #[inline(always)]
    fn means(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> [f32; N_CHANNELS] {
        self.0.box_means(x0, y0, x1, y1)
    }
}

/// [`Prepared::box_means_inside`]: only for boxes known to be non-empty
/// and inside the frame.
struct Inside<'a>(&'a Prepared);

impl BoxMeans for Inside<'_> {
    #[inline(always)]
    fn means(&self, x0: i64, y0: i64, x1: i64, y1: i64) -> [f32; N_CHANNELS] {
        let u = |v: i64| v as usize;
        self.0.box_means_inside(u(x0), u(y0), u(x1), u(y1))
    }
}

/// Boxes per detector cell: one per radius in [`RADII`], then left, right,
/// top and bottom halves per radius in [`ASYM_RADII`] (the order of
/// [`features_from`]).
const N_BOXES: usize = RADII.len() + 4 * ASYM_RADII.len();

/// The detection feature boxes of a cell relative to its centre entry of
/// the integral image: byte offsets of each box's corner entries (in the
/// order `a + b - c - d` sums them) and its pixel count. They depend only
/// on the frame width, so they are worked out once per frame instead of per
/// cell and box.
#[derive(Debug, Clone)]
pub struct FeatureBoxes {
    corners: [[isize; 4]; N_BOXES],
    area: [f32; N_BOXES],
    /// Per asymmetry radius, the areas of its left, right, top and bottom
    /// boxes, each twice (the lane order of [`features_inside_avx2`]'s
    /// packed first two channels).
    asym_area: [[f32; 8]; ASYM_RADII.len()],
}

impl FeatureBoxes {
    /// The boxes for a half-resolution frame `w` pixels wide.
    fn new(w: usize) -> Self {
        let mut rel = Vec::with_capacity(N_BOXES);
        for &r in &RADII {
            rel.push((-r, -r, r + 1, r + 1));
        }
        for &ri in &ASYM_RADII {
            let r = RADII[ri];
            rel.push((-r, -r, 0, r + 1));
            rel.push((1, -r, r + 1, r + 1));
            rel.push((-r, -r, r + 1, 0));
            rel.push((-r, 1, r + 1, r + 1));
        }
        let s = (w + 1) as isize;
        let entry = std::mem::size_of::<Entry>() as isize;
        let at = |x: i64, y: i64| (y as isize * s + x as isize) * entry;
        let mut corners = [[0isize; 4]; N_BOXES];
        let mut area = [0f32; N_BOXES];
        for (k, &(x0, y0, x1, y1)) in rel.iter().enumerate().take(N_BOXES) {
            corners[k] = [at(x1, y1), at(x0, y0), at(x1, y0), at(x0, y1)];
            // As `box_means_inside` converts it.
            area[k] = ((x1 - x0) * (y1 - y0)) as u32 as f32;
        }
        let asym_area = std::array::from_fn(|j| {
            let k0 = RADII.len() + 4 * j;
            std::array::from_fn(|l| area[k0 + l / 2])
        });
        Self {
            corners,
            area,
            asym_area,
        }
    }
}

/// [`det_features`] of a cell whose boxes are all inside the frame, with
/// AVX2: each box's corners are read at the frame's fixed offsets from the
/// centre entry ([`FeatureBoxes`]), and its five channel sums are unpacked
/// into one AVX register. The same integer sums, float conversion and
/// division per lane as [`Prepared::box_means_inside`], so the same values
/// (see `avx2_features_match_portable`).
///
/// # Safety
/// The CPU must have AVX2, and `p.holds_feature_boxes(cx, cy)` must hold:
/// every corner is then an entry of the integral image.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn features_inside_avx2(p: &Prepared, cx: i64, cy: i64, out: &mut [f32; N_DET_FEATURES]) {
    use std::arch::x86_64::{
        _mm256_cvtepi32_ps, _mm256_div_ps, _mm256_loadu_ps, _mm256_permute2x128_si256,
        _mm256_storeu_ps, _mm256_unpacklo_epi64,
    };
    const _: () = assert!(RADII.len() == 8, "one register of radii per channel");
    debug_assert!(p.holds_feature_boxes(cx, cy));
    let centre = cy as usize * (p.w + 1) + cx as usize;
    debug_assert!(centre < p.integrals.len());
    // SAFETY: the centre entry is inside the frame (see above).
    let base = unsafe { p.integrals.as_ptr().add(centre) } as *const u8;
    let fb = &p.boxes;
    // The eight square boxes' channel sums, transposed so that each
    // channel's eight radii are one register: converted, divided by the
    // eight areas and stored at once (the same conversion and division per
    // value as `box_mean_at`). `box_fields_at` is called directly, never
    // from a closure: a closure is not compiled for the caller's
    // instruction set.
    // SAFETY: the caller guarantees AVX2, and that the cell's boxes are
    // inside the frame, so each corner offset leads to an entry of the
    // integral image; the stores write `out[c * 8..c * 8 + 8]` for the five
    // channels (`N_CHANNELS * RADII.len() <= N_DET_FEATURES`).
    unsafe {
        let c = &fb.corners;
        let rows = transpose_fields([
            box_fields_at(base, &c[0]),
            box_fields_at(base, &c[1]),
            box_fields_at(base, &c[2]),
            box_fields_at(base, &c[3]),
            box_fields_at(base, &c[4]),
            box_fields_at(base, &c[5]),
            box_fields_at(base, &c[6]),
            box_fields_at(base, &c[7]),
        ]);
        let area = _mm256_loadu_ps(fb.area.as_ptr());
        for (c, row) in rows.into_iter().enumerate() {
            let m = _mm256_div_ps(_mm256_cvtepi32_ps(row), area);
            _mm256_storeu_ps(out.as_mut_ptr().add(c * RADII.len()), m);
        }
    }
    // The asymmetry boxes' first two channels (the only ones used), four
    // boxes per register as `[l0, l1, r0, r1, t0, t1, b0, b1]` (left,
    // right, top, bottom): one division for the four boxes instead of one
    // each (divisions were most of this function's time on an AMD Zen 3),
    // the same conversion and division per value.
    let first = N_CHANNELS * RADII.len();
    for j in 0..ASYM_RADII.len() {
        let k0 = RADII.len() + 4 * j;
        let mut d = [0f32; 8];
        // SAFETY: as above; the store writes the 8 floats of `d`.
        unsafe {
            let c = &fb.corners;
            let (l, r) = (box_fields_at(base, &c[k0]), box_fields_at(base, &c[k0 + 1]));
            let (t, b) = (
                box_fields_at(base, &c[k0 + 2]),
                box_fields_at(base, &c[k0 + 3]),
            );
            // Low 64 bits of each: lanes 0 and 1 (channels 0 and 1).
            let lr = _mm256_unpacklo_epi64(l, r);
            let tb = _mm256_unpacklo_epi64(t, b);
            let v = _mm256_permute2x128_si256::<0x20>(lr, tb);
            let area = _mm256_loadu_ps(fb.asym_area[j].as_ptr());
            _mm256_storeu_ps(d.as_mut_ptr(), _mm256_div_ps(_mm256_cvtepi32_ps(v), area));
        }
        for c in 0..2 {
            let k = first + c * 2 * ASYM_RADII.len() + 2 * j;
            out[k] = (d[c] - d[2 + c]).abs();
            out[k + 1] = (d[4 + c] - d[6 + c]).abs();
        }
    }
}

/// The means of the box whose corner entries are at byte offsets `corners`
/// from `base` (lanes 0-4: the channels, 5-7: zero), as the clamped
/// features ([`ClampedAvx2`]) take them: [`box_fields_at`], converted and
/// divided by `area`.
///
/// # Safety
/// The CPU must have AVX2, and every `base + corners[i]` must be an entry of
/// the integral image.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn box_mean_at(base: *const u8, corners: &[isize; 4], area: f32) -> [f32; 8] {
    use std::arch::x86_64::{_mm256_cvtepi32_ps, _mm256_div_ps, _mm256_set1_ps, _mm256_storeu_ps};
    let mut lanes = [0f32; 8];
    // SAFETY: forwarded from the caller.
    unsafe {
        let v = box_fields_at(base, corners);
        let m = _mm256_div_ps(_mm256_cvtepi32_ps(v), _mm256_set1_ps(area));
        _mm256_storeu_ps(lanes.as_mut_ptr(), m);
    }
    lanes
}

/// The channel sums of the box whose corner entries are at byte offsets
/// `corners` from `base`, as 32-bit lanes (0-4: the channels in order,
/// 5-7: zero): the packed sums `a + b - c - d` (two 64-bit lanes), then the
/// fields shifted and masked into 32-bit lanes ([`Entry::fields`]).
///
/// # Safety
/// The CPU must have AVX2, and every `base + corners[i]` must be an entry of
/// the integral image.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn box_fields_at(base: *const u8, corners: &[isize; 4]) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi64, _mm_load_si128, _mm_sub_epi64, _mm256_and_si256,
        _mm256_castsi128_si256, _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32,
        _mm256_setr_epi32, _mm256_setr_epi64x, _mm256_srlv_epi64,
    };
    let [a, b, c, d] = *corners;
    /// All 64 bits.
    const ALL: i64 = -1;
    // SAFETY: forwarded from the caller; entries are 16-byte aligned.
    unsafe {
        let ld = |o: isize| _mm_load_si128(base.offset(o) as *const __m128i);
        let sum = _mm_sub_epi64(_mm_sub_epi64(_mm_add_epi64(ld(a), ld(b)), ld(c)), ld(d));
        // 64-bit lanes [s0, s0, s0, s1] -> [fg, grad, sat, darker | brighter << 32].
        let v = _mm256_permute4x64_epi64::<0b01_00_00_00>(_mm256_castsi128_si256(sum));
        let v = _mm256_srlv_epi64(
            v,
            _mm256_setr_epi64x(0, GRAD_SHIFT as i64, SAT_SHIFT as i64, 0),
        );
        let m = FIELD_MASK as i64;
        let v = _mm256_and_si256(v, _mm256_setr_epi64x(m, ALL, m, ALL));
        // 32-bit lanes [fg, 0, grad, 0, sat, 0, darker, brighter] -> channel
        // order, zeros after.
        _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 7, 1, 1, 1))
    }
}

/// Rows 0-4 of the 8 x 8 transpose of 32-bit lanes: row `c` holds lane `c`
/// of `v[0]`, ..., `v[7]` (bit moves only).
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose_fields(
    v: [std::arch::x86_64::__m256i; 8],
) -> [std::arch::x86_64::__m256i; N_CHANNELS] {
    use std::arch::x86_64::{
        __m256, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_permute2f128_ps,
        _mm256_shuffle_ps, _mm256_unpackhi_ps, _mm256_unpacklo_ps,
    };
    // SAFETY: AVX2 per the caller; only register shuffles.
    unsafe {
        // Written out, not `array::map`: a closure is not compiled for the
        // caller's instruction set.
        let f: [__m256; 8] = [
            _mm256_castsi256_ps(v[0]),
            _mm256_castsi256_ps(v[1]),
            _mm256_castsi256_ps(v[2]),
            _mm256_castsi256_ps(v[3]),
            _mm256_castsi256_ps(v[4]),
            _mm256_castsi256_ps(v[5]),
            _mm256_castsi256_ps(v[6]),
            _mm256_castsi256_ps(v[7]),
        ];
        // Pairs interleaved: [a0 b0 a1 b1 | a4 b4 a5 b5] and [a2 b2 a3 b3 | a6 b6 a7 b7].
        let (t0, t1) = (
            _mm256_unpacklo_ps(f[0], f[1]),
            _mm256_unpackhi_ps(f[0], f[1]),
        );
        let (t2, t3) = (
            _mm256_unpacklo_ps(f[2], f[3]),
            _mm256_unpackhi_ps(f[2], f[3]),
        );
        let (t4, t5) = (
            _mm256_unpacklo_ps(f[4], f[5]),
            _mm256_unpackhi_ps(f[4], f[5]),
        );
        let (t6, t7) = (
            _mm256_unpacklo_ps(f[6], f[7]),
            _mm256_unpackhi_ps(f[6], f[7]),
        );
        // Lanes k | k + 4 of the first four and of the last four registers.
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        let rows = [
            _mm256_permute2f128_ps::<0x20>(s0, s4),
            _mm256_permute2f128_ps::<0x20>(s1, s5),
            _mm256_permute2f128_ps::<0x20>(s2, s6),
            _mm256_permute2f128_ps::<0x20>(s3, s7),
            _mm256_permute2f128_ps::<0x31>(s0, s4),
        ];
        [
            _mm256_castps_si256(rows[0]),
            _mm256_castps_si256(rows[1]),
            _mm256_castps_si256(rows[2]),
            _mm256_castps_si256(rows[3]),
            _mm256_castps_si256(rows[4]),
        ]
    }
}
/// [`det_features`] with the box means of `m`.
#[inline(always)]
fn features_from<M: BoxMeans>(m: &M, cx: i64, cy: i64, out: &mut [f32; N_DET_FEATURES]) {
    for (ri, &r) in RADII.iter().enumerate() {
        let m = m.means(cx - r, cy - r, cx + r + 1, cy + r + 1);
        for (c, v) in m.iter().enumerate() {
            out[c * RADII.len() + ri] = *v;
        }
    }
    let base = N_CHANNELS * RADII.len();
    for (j, &ri) in ASYM_RADII.iter().enumerate() {
        let r = RADII[ri];
        let l = m.means(cx - r, cy - r, cx, cy + r + 1);
        let rr = m.means(cx + 1, cy - r, cx + r + 1, cy + r + 1);
        let t = m.means(cx - r, cy - r, cx + r + 1, cy);
        let b = m.means(cx - r, cy + 1, cx + r + 1, cy + r + 1);
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

    #[test]
    fn padded_median_matches_sort() {
        let mut rng = 777u32;
        for n in [1usize, 2, 3, 16, 17, 100, 128, 129, 255, 256] {
            for modulus in [256u32, 2] {
                let mut vals = [u8::MAX; BLOCK_PX];
                for v in vals.iter_mut().take(n) {
                    rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    *v = ((rng >> 16) % modulus) as u8;
                }
                let mut sorted = vals[..n].to_vec();
                sorted.sort_unstable();
                assert_eq!(padded_median(&vals, n), sorted[n / 2], "n {n}");
            }
        }
    }

    #[test]
    fn div3_is_exact() {
        for v in 0..=DIV3_MAX {
            assert_eq!(div3_u16(v), v / 3, "{v}");
        }
    }

    /// The median filter over blocks (AVX2 lanes and portable) equals the
    /// sorted middle of each clipped window, on planes of 1 to 70 blocks a
    /// side (one and several lane groups, windows clipped on every side)
    /// with random, narrow-range and constant values.
    #[test]
    fn median_filter_matches_sorted_windows() {
        let mut seed = 0x2545_f491_u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 24) as u8
        };
        let r = BG_MEDIAN_RADIUS;
        for (bw, bh) in [
            (1, 1),
            (2, 7),
            (5, 5),
            (31, 3),
            (32, 4),
            (33, 9),
            (40, 23),
            (70, 6),
        ] {
            for kind in 0..3 {
                let plane: Vec<u8> = (0..bw * bh)
                    .map(|_| match kind {
                        0 => next(),
                        1 => 100 + next() % 4,
                        _ => 7,
                    })
                    .collect();
                let mut want = vec![0f32; bw * bh];
                for by in 0..bh {
                    for bx in 0..bw {
                        let mut v = Vec::new();
                        for y in by.saturating_sub(r)..(by + r + 1).min(bh) {
                            for x in bx.saturating_sub(r)..(bx + r + 1).min(bw) {
                                v.push(plane[y * bw + x]);
                            }
                        }
                        v.sort_unstable();
                        want[by * bw + bx] = v[v.len() / 2] as f32;
                    }
                }
                let mut got = vec![0f32; bw * bh];
                median_filter::<false>(&plane, bw, bh, &mut got);
                assert_eq!(got, want, "portable {bw}x{bh} kind {kind}");
                #[cfg(target_arch = "x86_64")]
                if Cpu::detect().avx2 {
                    let mut got = vec![0f32; bw * bh];
                    median_filter::<true>(&plane, bw, bh, &mut got);
                    assert_eq!(got, want, "avx2 {bw}x{bh} kind {kind}");
                }
            }
        }
    }

    /// The AVX2 lock-step block medians equal the sorted middle values.
    #[test]
    fn lock_step_medians_match_single_searches() {
        let mut seed = 0x9e37_79b9_u32;
        let mut next = move || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 24) as u8
        };
        for n in [1, 2, 3, 17, 128, 255, 256] {
            let mut all = [[u8::MAX; BLOCK_PX]; 3];
            for (k, vals) in all.iter_mut().enumerate() {
                for v in vals[..n].iter_mut() {
                    *v = if k == 2 { 200 + next() % 3 } else { next() };
                }
            }
            #[cfg(target_arch = "x86_64")]
            if !Cpu::detect().avx2 {
                return;
            }
            // SAFETY: the CPU has AVX2 (checked above).
            #[cfg(target_arch = "x86_64")]
            let got = unsafe { block_medians_avx2(&all, &[n; 3]) };
            #[cfg(not(target_arch = "x86_64"))]
            let got = all.map(|v| padded_median(&v, n));
            for (k, vals) in all.iter().enumerate() {
                let mut v = vals[..n].to_vec();
                v.sort_unstable();
                assert_eq!(got[k], v[n / 2], "n {n} set {k}");
            }
        }
    }

    /// The scalar, interleaved implementation [`prepare`] replaced (same
    /// output, checked below).
    fn reference_prepare(img: &RgbImage) -> Prepared {
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
    fn reference_integrals(img: &RgbImage) -> (usize, usize, Vec<[u32; N_CHANNELS]>) {
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
                    for ny in
                        by.saturating_sub(BG_MEDIAN_RADIUS)..(by + BG_MEDIAN_RADIUS + 1).min(bh)
                    {
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
    fn inside_features_match_clamped() {
        let img = RgbImage::from_fn(120, 100, |x, y| {
            image::Rgb([
                (x * 5 % 256) as u8,
                (y * 7 % 256) as u8,
                (x * y % 256) as u8,
            ])
        });
        let p = prepare(&img);
        let (mut a, mut b) = ([0f32; N_DET_FEATURES], [0f32; N_DET_FEATURES]);
        let mut inside = 0;
        for cy in 0..p.h as i64 {
            for cx in 0..p.w as i64 {
                det_features(&p, cx, cy, &mut a);
                features_from(&Clamped(&p), cx, cy, &mut b);
                assert_eq!(a, b, "{cx} {cy}");
                inside += p.holds_feature_boxes(cx, cy) as usize;
            }
        }
        assert!(inside > 0);
    }

    #[test]
    fn avx2_features_match_portable() {
        #[cfg(target_arch = "x86_64")]
        if Cpu::detect().avx2 {
            let img = RgbImage::from_fn(97, 83, |x, y| {
                image::Rgb([
                    (x * 11 % 256) as u8,
                    (y * 13 % 256) as u8,
                    ((x + 3) * (y + 5) % 256) as u8,
                ])
            });
            let p = prepare(&img);
            let (mut a, mut b) = ([0f32; N_DET_FEATURES], [0f32; N_DET_FEATURES]);
            let mut inside = 0;
            for cy in 0..p.h as i64 {
                for cx in 0..p.w as i64 {
                    if !p.holds_feature_boxes(cx, cy) {
                        continue;
                    }
                    inside += 1;
                    // SAFETY: AVX2 and the boxes were checked above.
                    unsafe { features_inside_avx2(&p, cx, cy, &mut a) };
                    features_from(&Inside(&p), cx, cy, &mut b);
                    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&a), bits(&b), "{cx} {cy}");
                }
            }
            assert!(inside > 0);
        }
    }

    #[test]
    fn avx2_clamped_features_match_portable() {
        #[cfg(target_arch = "x86_64")]
        if Cpu::detect().avx2 {
            // Extreme channel values near the edges: saturated colours on
            // grey, and a checkerboard for the largest gradients.
            let img = RgbImage::from_fn(103, 89, |x, y| {
                if (x / 3 + y / 3) % 2 == 0 && x < 50 {
                    image::Rgb([255, 255, 255])
                } else if x < 50 {
                    image::Rgb([0, 0, 0])
                } else {
                    image::Rgb([(x * 11 % 256) as u8, 0, ((x + 3) * (y + 5) % 256) as u8])
                }
            });
            let p = prepare(&img);
            let (mut a, mut b) = ([0f32; N_DET_FEATURES], [0f32; N_DET_FEATURES]);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            // Cells beyond the frame too (all boxes clamped, some empty).
            for cy in -25..p.h as i64 + 25 {
                for cx in -25..p.w as i64 + 25 {
                    // SAFETY: AVX2 checked above.
                    unsafe { features_clamped_avx2(&p, cx, cy, &mut a) };
                    features_from(&Clamped(&p), cx, cy, &mut b);
                    assert_eq!(bits(&a), bits(&b), "{cx} {cy}");
                }
            }
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

    /// The AVX2 integral row gives the entries of the portable one, for
    /// channel values up to their largest (and to [`ROW_VALUE_MAX`]), row
    /// lengths around the step and arbitrary entries above.
    #[test]
    fn avx2_integral_row_matches_portable() {
        #[cfg(target_arch = "x86_64")]
        if Cpu::detect().avx2 {
            let mut rng = 4242u64;
            let mut next = || {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng
            };
            for n in [0usize, 1, 7, 8, 9, 15, 16, 17, 33, 640] {
                for limit in [255u32, 510, ROW_VALUE_MAX] {
                    let mut vals: [Vec<u32>; N_CHANNELS] = Default::default();
                    for (c, v) in vals.iter_mut().enumerate() {
                        // The gradient (channel 1) goes up to 510.
                        let top = if c == 1 { limit.max(510) } else { limit };
                        *v = (0..n).map(|_| (next() % (top as u64 + 1)) as u32).collect();
                        if n > 0 {
                            v[n / 2] = top;
                        }
                    }
                    let above: Vec<Entry> = (0..n).map(|_| Entry([next(), next()])).collect();
                    let (mut want, mut got) = (vec![Entry::default(); n], vec![Entry([7, 7]); n]);
                    integral_row(&vals, &above, &mut want, 0, Entry::default());
                    // SAFETY: AVX2 checked above.
                    unsafe { integral_row_avx2(&vals, &above, &mut got) };
                    assert!(got == want, "n {n} limit {limit}");
                }
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
