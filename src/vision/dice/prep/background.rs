//! The local background estimate: per-block medians of the half-resolution
//! colour planes, a median filter over neighbouring blocks, and the bilinear
//! blend of block colours along a row.

use super::channels::Planes;

/// Side of the square blocks (half-resolution pixels) over which the background
/// colour is estimated; 16 half-res px = 32 frame px, smaller than most dice.
pub(super) const BG_BLOCK: usize = 16;

/// Radius (in blocks) of the median filter over block colours; 2 -> 5x5 blocks
/// = 160 frame px, wider than the largest die (69 px) so dice do not become
/// background unless they cover most of that area.
pub(super) const BG_MEDIAN_RADIUS: usize = 2;

/// Values in the median filter's window of blocks, padded (see
/// [`padded_median`]).
pub(super) const SMALL_MEDIAN: usize = 32;

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
pub(super) fn padded_median<const N: usize>(vals: &[u8; N], n: usize) -> u8 {
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
pub(super) fn background_blocks<const AVX2: bool>(pl: &Planes) -> (usize, usize, [Vec<f32>; 3]) {
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

/// Columns `[start, end)` sharing the same pair of background blocks, with
/// those block indices; within a run the bilinear background is a fixed
/// blend of two colours, which vectorises.
pub(super) struct ColumnRun {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) b0: usize,
    pub(super) b1: usize,
}

/// Per-column bilinear weights (`1 - t`, `t`) and the runs of columns
/// between the same two block centres.
#[inline(always)]
pub(super) fn column_weights(w: usize, bw: usize) -> (Vec<f32>, Vec<f32>, Vec<ColumnRun>) {
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
pub(super) fn blend_run(l: f32, r: f32, a: &[f32], t: &[f32], o: &mut [f32]) {
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

/// `o[k] = l * a[k] + r * t[k]` for one block-wide run of columns (a fixed
/// length: one unrolled vector body). Forced inline, as `grad_at` (in `channels`).
#[inline(always)]
pub(super) fn blend_block(
    l: f32,
    r: f32,
    a: &[f32; BG_BLOCK],
    t: &[f32; BG_BLOCK],
    o: &mut [f32; BG_BLOCK],
) {
    // Indexed over the fixed length (a zipped loop here stayed scalar).
    for k in 0..BG_BLOCK {
        o[k] = l * a[k] + r * t[k];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "x86_64")]
    use crate::vision::dice::cpu::Cpu;

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
}
