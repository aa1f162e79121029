//! The integral image: its packed entries ([`Entry`]) and the rows that
//! [`prepare`](super::prepare) fills it with (portable and AVX2).

use super::N_CHANNELS;

/// Bits of the two low fields (colour distance, saturation) of an
/// [`Entry`]'s first lane; the gradient takes the remaining 22 bits.
const FIELD_BITS: u32 = 21;

/// The low [`FIELD_BITS`] bits of a lane.
pub(super) const FIELD_MASK: u64 = (1 << FIELD_BITS) - 1;

/// Position of the saturation field in an [`Entry`]'s first lane.
pub(super) const SAT_SHIFT: u32 = FIELD_BITS;

/// Position of the gradient field (the top 22 bits) in an [`Entry`]'s
/// first lane.
pub(super) const GRAD_SHIFT: u32 = 2 * FIELD_BITS;

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

/// One entry of the integral image: the integrals of the five channels
/// packed into two `u64` lanes, 16 bytes instead of 20 (a fifth less
/// memory written by `prepare` and read by the detector, and aligned so
/// that no entry straddles a cache line). Lane 0 holds `fg + sat * 2^21 +
/// grad * 2^42`, lane 1 `darker + brighter * 2^32` (channel order of
/// [`Prepared::integrals`](super::Prepared::integrals)), all modulo 2^64. Since packing is linear
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

/// Integral row from the row's channel values, from column `start` on with
/// packed running sums `acc` of the columns before it: `out[x] = above[x] +
/// sum(pack(vals[..=x]))`, wrapping (see [`Entry`]).
#[inline(always)]
pub(super) fn integral_row(
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
pub(super) unsafe fn integral_row_avx2(
    vals: &[Vec<u32>; N_CHANNELS],
    above: &[Entry],
    out: &mut [Entry],
) {
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

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "x86_64")]
    use crate::vision::dice::cpu::Cpu;

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
}
