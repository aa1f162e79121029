//! Frame preparation: colour conversion, reduced-resolution "paper" mask.

use crate::vision::contours::is_empty_mask;
use crate::vision::geometry::{Homography, Point};
use image::{DynamicImage, GrayImage, RgbImage};
use std::borrow::Cow;

/// Longest side of the working (reduced) image used to find cards. 520 px keeps a
/// 1280x720 frame at 1/3 scale (a card 90 px wide still spans 30 px) and phone
/// photos up to 520 px at full scale.
pub const WORK_MAX_SIDE: u32 = 640;

/// Lowest Otsu threshold accepted for the paper score: below this the frame has no
/// paper-white regions at all and thresholding would only split shades of table.
pub const MIN_PAPER_THRESHOLD: u8 = 90;

/// Frame converted to 8-bit RGB (borrowed when already RGB8).
pub fn as_rgb8(img: &DynamicImage) -> Cow<'_, RgbImage> {
    match img.as_rgb8() {
        Some(rgb) => Cow::Borrowed(rgb),
        None => Cow::Owned(img.to_rgb8()),
    }
}

/// "Paper" score of one pixel: bright and unsaturated pixels score high.
/// `min(r,g,b) - (max - min)`, clamped to 0..=255.
#[inline]
pub fn paper_score(r: u8, g: u8, b: u8) -> u8 {
    let mx = r.max(g).max(b) as i32;
    let mn = r.min(g).min(b) as i32;
    (mn - (mx - mn)).clamp(0, 255) as u8
}

/// The reduced-resolution view of a frame.
pub struct WorkImage {
    /// Integer downscale factor (full = work * factor).
    pub factor: u32,
    /// Paper score at working resolution.
    pub score: GrayImage,
    /// Histogram of `score`, counted once: the paper threshold and every
    /// further split (stricter, dim) start from it.
    hist: [u32; 256],
}

impl WorkImage {
    fn new(factor: u32, score: GrayImage) -> Self {
        let mut hist = [0u32; 256];
        for p in score.pixels() {
            hist[p.0[0] as usize] += 1;
        }
        Self {
            factor,
            score,
            hist,
        }
    }
}

/// Paper score of `full` downscaled by an integer box filter so the longest side is <= [`WORK_MAX_SIDE`].
pub fn work_image(full: &RgbImage) -> WorkImage {
    let (w, h) = full.dimensions();
    let longest = w.max(h).max(1);
    let factor = longest.div_ceil(WORK_MAX_SIDE).max(1);
    let ww = w / factor;
    let wh = h / factor;
    if ww == 0 || wh == 0 {
        // A sliver thinner than one working pixel cannot hold a card.
        return WorkImage::new(factor, GrayImage::new(1, 1));
    }
    if factor == 1 {
        let raw: Vec<u8> = full
            .as_raw()
            .chunks_exact(3)
            .map(|p| paper_score(p[0], p[1], p[2]))
            .collect();
        let score = GrayImage::from_raw(w, h, raw).unwrap_or_else(|| GrayImage::new(w, h));
        return WorkImage::new(factor, score);
    }
    let out = block_scores(
        full.as_raw(),
        w as usize,
        ww as usize,
        wh as usize,
        factor as usize,
    );
    let score = GrayImage::from_raw(ww, wh, out).unwrap_or_else(|| GrayImage::new(ww, wh));
    WorkImage::new(factor, score)
}

/// Paper scores of the `ww` x `wh` working image of the RGB rows `raw`
/// (`w` px wide) at downscale `f` >= 2. Each working pixel averages a 2x2
/// subset of its f x f block (offsets f/4 and 3f/4): enough to smooth JPEG
/// noise at a fraction of the cost. The four samples are summed at every
/// channel position of the row, then [`paper_score`] of the quarters is
/// taken at every channel position (the channel minimum and maximum of
/// three neighbouring sums; the quarter of a minimum of sums is the minimum
/// of the quarters), whole rows at a time so the loops vectorise (sums of
/// four bytes fit `i16`, whose minimum and maximum SSE2 has), and the
/// working pixels pick every `3f`-th score. Integer arithmetic, so the
/// order changes no value. Compiled for AVX2 when the CPU has it
/// ([`block_scores_avx2`]).
fn block_scores(raw: &[u8], w: usize, ww: usize, wh: usize, f: usize) -> Vec<u8> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { block_scores_avx2(raw, w, ww, wh, f) };
    }
    block_scores_body(raw, w, ww, wh, f)
}

/// [`block_scores_body`] compiled for AVX2 (16 lanes of the 16-bit sums,
/// minima and maxima per instruction): the same integers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn block_scores_avx2(raw: &[u8], w: usize, ww: usize, wh: usize, f: usize) -> Vec<u8> {
    block_scores_body(raw, w, ww, wh, f)
}

/// The body of [`block_scores`].
#[inline(always)]
fn block_scores_body(raw: &[u8], w: usize, ww: usize, wh: usize, f: usize) -> Vec<u8> {
    let stride = w * 3;
    let offs = [f / 4, (3 * f) / 4];
    // Channel distance between the two sampled columns of a block.
    let gap = (offs[1] - offs[0]) * 3;
    let mut out = vec![0u8; ww * wh];
    // Channel positions with both sampled columns in the row, and those
    // with two more positions after them (the scores).
    let n = stride - gap;
    let m = n.saturating_sub(2);
    let mut sums = vec![0i16; n];
    let mut score = vec![0u8; m];
    for (y, dst) in out.chunks_exact_mut(ww).enumerate() {
        let r0 = &raw[(y * f + offs[0]) * stride..(y * f + offs[0] + 1) * stride];
        let r1 = &raw[(y * f + offs[1]) * stride..(y * f + offs[1] + 1) * stride];
        let cols = r0.iter().zip(r1).zip(r0[gap..].iter().zip(&r1[gap..]));
        for (s, ((&a, &b), (&c, &d))) in sums.iter_mut().zip(cols) {
            *s = (a as i16 + b as i16) + (c as i16 + d as i16);
        }
        let trio = sums.iter().zip(&sums[1..]).zip(&sums[2..]);
        for (o, ((&a, &b), &c)) in score.iter_mut().zip(trio) {
            // At most 1020, so `>> 2` is the division by 4.
            let (mn, mx) = (a.min(b).min(c) >> 2, a.max(b).max(c) >> 2);
            *o = (mn - (mx - mn)).clamp(0, 255) as u8;
        }
        pick_scores(&score[(offs[0] * 3).min(m)..], 3 * f, dst);
    }
    out
}

/// `dst[x] = score[step x]` for the `x` with `step x` inside `score`. A
/// step of 6 (downscale 2, the 1280x720 frame) takes fixed-size chunks, a
/// loop the compiler vectorises; other steps index.
#[inline(always)]
fn pick_scores(score: &[u8], step: usize, dst: &mut [u8]) {
    let mut done = 0;
    if step == 6 {
        let (chunks, _) = score.as_chunks::<6>();
        for (d, c) in dst.iter_mut().zip(chunks) {
            *d = c[0];
        }
        done = chunks.len().min(dst.len());
    }
    let rest = score.iter().skip(done * step).step_by(step.max(1));
    for (d, &v) in dst[done..].iter_mut().zip(rest) {
        *d = v;
    }
}

/// Otsu threshold of a histogram.
pub fn otsu(hist: &[u32; 256]) -> u8 {
    let total: u64 = hist.iter().map(|&c| c as u64).sum();
    if total == 0 {
        return 128;
    }
    let sum_all: f64 = hist
        .iter()
        .enumerate()
        .map(|(i, &c)| i as f64 * c as f64)
        .sum();
    let (mut w0, mut sum0, mut best, mut best_t) = (0f64, 0f64, -1f64, 128u8);
    for (t, &c) in hist.iter().enumerate() {
        w0 += c as f64;
        if w0 == 0.0 {
            continue;
        }
        let w1 = total as f64 - w0;
        if w1 == 0.0 {
            break;
        }
        sum0 += t as f64 * c as f64;
        let m0 = sum0 / w0;
        let m1 = (sum_all - sum0) / w1;
        let between = w0 * w1 * (m0 - m1) * (m0 - m1);
        if between > best {
            best = between;
            best_t = t as u8;
        }
    }
    best_t
}

/// When more than this share of the frame scores as paper, the paper scores
/// are split a second time (Otsu among them): a light carpet or table had been
/// taken for paper, leaking into one region with the cards on it. 4-fold
/// cross-validation on edje train_* (with [`super::OUTLINE_FAINTEST_INK_LEVEL`]):
/// 472 correct / 3 wrong without, 474 / 2 at 0.35-0.45, 475 / 3 at 0.5.
pub const RETHRESHOLD_PAPER_SHARE: f32 = 0.4;

/// Otsu threshold among the scores above `t` (never below `t`).
fn split_above(hist: &[u32; 256], t: u8) -> u8 {
    let mut h2 = [0u32; 256];
    h2[t as usize + 1..].copy_from_slice(&hist[t as usize + 1..]);
    otsu(&h2).max(t)
}

/// Paper threshold of the working image (scores above it are paper).
pub fn paper_threshold(work: &WorkImage) -> u8 {
    let hist = work.hist;
    let t = otsu(&hist).max(MIN_PAPER_THRESHOLD);
    let total: u32 = hist.iter().sum();
    let above: u32 = hist[t as usize + 1..].iter().sum();
    // A light table counted as paper (the first split only separated it from
    // shadow): split again among the "paper" scores, so that the cards,
    // whiter than the table, get outlines of their own.
    if above as f32 > RETHRESHOLD_PAPER_SHARE * total as f32 {
        split_above(&hist, t)
    } else {
        t
    }
}

/// The next, stricter paper threshold after `t`: Otsu among the scores above
/// it (cards whiter than light wood grain or a lit table patch that the first
/// split counted as paper). `None` when no stricter split exists.
pub fn stricter_threshold(work: &WorkImage, t: u8) -> Option<u8> {
    let t2 = split_above(&work.hist, t);
    (t2 > t).then_some(t2)
}

/// Binary paper mask (255 = paper) of the working image at
/// [`paper_threshold`].
pub fn paper_mask(work: &WorkImage) -> GrayImage {
    mask_above(work, paper_threshold(work))
}

/// Binary mask of the scores above `t`, cleaned by a 3x3 opening (drops table
/// speckle) then a 5x5 closing (re-joins card borders cut by index glyphs
/// close to the edge).
pub fn mask_above(work: &WorkImage, t: u8) -> GrayImage {
    let (w, h) = work.score.dimensions();
    let m: Vec<u8> = work
        .score
        .as_raw()
        .iter()
        .map(|&v| u8::from(v > t))
        .collect();
    cleaned(m, w as usize, h as usize)
}

/// The `w` x `h` mask `m` (0 / 1 bytes) after a 3x3 opening (drops table
/// speckle) and a 5x5 closing (re-joins card borders cut by index glyphs
/// close to the edge), as a 0 / 255 image. An empty mask stays empty
/// (erosion and dilation of nothing are nothing), so it is returned as it
/// is; otherwise the four passes ping-pong between two buffers.
fn cleaned(mut m: Vec<u8>, w: usize, h: usize) -> GrayImage {
    if m.len() == w * h && is_empty_mask(&m) {
        return mask_image(m, w, h);
    }
    let mut tmp = vec![0u8; w * h];
    let mut out = vec![0u8; w * h];
    morph_into(&m, w, h, 1, false, &mut tmp, &mut out);
    morph_into(&out, w, h, 1, true, &mut tmp, &mut m);
    morph_into(&m, w, h, 2, true, &mut tmp, &mut out);
    morph_into(&out, w, h, 2, false, &mut tmp, &mut m);
    mask_image(m, w, h)
}

/// The `w` x `h` mask `m` of 0 / 1 bytes as a 0 / 255 image (an empty
/// image of that size if `m` is not `w * h` long).
fn mask_image(mut m: Vec<u8>, w: usize, h: usize) -> GrayImage {
    for v in &mut m {
        *v = v.wrapping_neg();
    }
    GrayImage::from_raw(w as u32, h as u32, m).unwrap_or_else(|| GrayImage::new(w as u32, h as u32))
}

/// Bytes per step of the mask scans and morphology passes: fixed-size
/// blocks the compiler keeps in vector registers.
const MASK_LANES: usize = 32;

/// Radius of the local-background window of [`local_mask`], as a share of
/// the working image's short side (a card is ~0.1-0.3 of it). 4-fold
/// development split (edje `train_*`, reading only, with [`LOCAL_OFFSET`]
/// 10): 506 correct / 1 wrong at 0.08, 0.12, 0.15 and 0.2 alike.
pub const LOCAL_RADIUS_SHARE: f32 = 0.12;

/// A pixel is local paper when its score exceeds the mean score of its
/// window by more than this. Development split (radius 0.12): 506 / 1 at 5,
/// 10 and 15, 504 / 1 at 20, 502 / 1 at 25 (shaded card rims drop out).
pub const LOCAL_OFFSET: u32 = 10;

/// ... and its score is above this floor: a dark patch next to a darker
/// one is not paper. Development split (radius 0.12, offset 10): 506 / 1
/// at 0, 15 and 30, 504 / 1 at 50, 502 / 1 at 70 and 90 (cards in deep
/// shade score 40-60); the middle of the plateau is kept.
pub const LOCAL_FLOOR: u8 = 15;

/// Paper mask by a local threshold: the scores above the mean of their
/// window (radius [`LOCAL_RADIUS_SHARE`] of the short side) by
/// [`LOCAL_OFFSET`] and above [`LOCAL_FLOOR`], cleaned as [`mask_above`].
/// Finds cards whose score sits under the frame's paper threshold (in
/// shade, or on a frame lit unevenly) yet above their surroundings.
pub fn local_mask(work: &WorkImage) -> GrayImage {
    let (w, h) = work.score.dimensions();
    let (w, h) = (w as usize, h as usize);
    let r = ((w.min(h) as f32 * LOCAL_RADIUS_SHARE) as usize).max(1);
    let m = local_above(work.score.as_raw(), w, h, r, LOCAL_OFFSET, LOCAL_FLOOR);
    cleaned(m, w, h)
}

/// The pixels (1 = set, else 0) of the `w` x `h` scores `s` above `floor`
/// whose score exceeds the mean of their `(2r + 1)`-square window (clipped
/// to the frame) by more than `offset`. Compiled for AVX2 when the CPU has
/// it ([`local_above_avx2`]: the same integer operations, wider vectors).
fn local_above(s: &[u8], w: usize, h: usize, r: usize, offset: u32, floor: u8) -> Vec<u8> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { local_above_avx2(s, w, h, r, offset, floor) };
    }
    local_above_body(s, w, h, r, offset, floor)
}

/// [`local_above_body`] compiled for AVX2 (8 lanes of the 32-bit sums and
/// products per instruction, `vpmulld` for the products).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn local_above_avx2(s: &[u8], w: usize, h: usize, r: usize, offset: u32, floor: u8) -> Vec<u8> {
    local_above_body(s, w, h, r, offset, floor)
}

/// 1 if a pixel of score `v` whose window of `n` pixels sums to `sum` is
/// local paper (above `floor` and above the window mean by more than
/// `offset`: `v n > sum + offset n`, exact in integers), else 0. Both tests
/// are evaluated (`&`, not `&&`): no branch per pixel, so the loops over it
/// vectorise.
#[inline(always)]
fn local_paper(v: u8, sum: u32, n: u32, offset: u32, floor: u8) -> u8 {
    u8::from(v > floor) & u8::from(v as u32 * n > sum + offset * n)
}

/// The body of [`local_above`]. The window sums are running sums: a column
/// sum per x kept for the current row's window (moved down a row by one
/// add-and-subtract pass), then prefix sums along the row, padded so that
/// every column's clipped window is the difference of two entries `2r + 1`
/// apart: the cost is a few vectorised operations per pixel whatever the
/// radius. Columns whose window is not clipped left or right share one
/// window size per row; the `r` columns at each end take theirs from a
/// table.
#[inline(always)]
fn local_above_body(s: &[u8], w: usize, h: usize, r: usize, offset: u32, floor: u8) -> Vec<u8> {
    let mut m = vec![0u8; w * h];
    if w == 0 || h == 0 || s.len() < w * h {
        return m;
    }
    // Window extent along one axis: [lo, hi) clipped to the frame.
    let span = |i: usize, n: usize| (i.saturating_sub(r), (i + r + 1).min(n));
    let mut cols = vec![0u32; w];
    // `pre[j]` = sum of `cols[..clamp(j - r, 0, w)]`: the clipped window of
    // column x, `x0 .. x1`, sums to `pre[x + 2r + 1] - pre[x]` (`pre[x]` is
    // the prefix up to `x0 = max(x - r, 0)`, `pre[x + 2r + 1]` up to `x1 =
    // min(x + r + 1, w)`). The first `r + 1` entries stay zero.
    let d = 2 * r + 1;
    let mut pre = vec![0u32; w + d];
    let widths: Vec<u32> = (0..w)
        .map(|x| {
            let (x0, x1) = span(x, w);
            (x1 - x0) as u32
        })
        .collect();
    // Columns `r .. w - r` have the whole window `x - r ..= x + r`.
    let inner = if w > 2 * r { r..w - r } else { w..w };
    let ends = [0..inner.start.min(w), inner.end..w];
    let (mut top, mut bottom) = (0usize, 0usize);
    for y in 0..h {
        let (y0, y1) = span(y, h);
        // The window moves down a row: add the new bottom row and take the
        // old top row in one pass (the sum stays >= 0 after both).
        while bottom < y1 && top < y0 {
            let add = &s[bottom * w..(bottom + 1) * w];
            let sub = &s[top * w..(top + 1) * w];
            for ((c, &a), &b) in cols.iter_mut().zip(add).zip(sub) {
                *c = *c + a as u32 - b as u32;
            }
            bottom += 1;
            top += 1;
        }
        while bottom < y1 {
            for (c, &v) in cols.iter_mut().zip(&s[bottom * w..(bottom + 1) * w]) {
                *c += v as u32;
            }
            bottom += 1;
        }
        while top < y0 {
            for (c, &v) in cols.iter_mut().zip(&s[top * w..(top + 1) * w]) {
                *c -= v as u32;
            }
            top += 1;
        }
        let rows = (y1 - y0) as u32;
        let mut acc = 0u32;
        for (p, &c) in pre[r + 1..r + 1 + w].iter_mut().zip(&cols) {
            acc += c;
            *p = acc;
        }
        pre[r + 1 + w..].fill(acc);
        let row = &s[y * w..(y + 1) * w];
        let out = &mut m[y * w..(y + 1) * w];
        for e in ends.clone() {
            let vals = row[e.clone()].iter().zip(&widths[e.clone()]);
            let sums = pre[e.start..e.end].iter().zip(&pre[e.start + d..e.end + d]);
            for (o, ((&v, &k), (&p0, &p1))) in out[e].iter_mut().zip(vals.zip(sums)) {
                *o = local_paper(v, p1 - p0, rows * k, offset, floor);
            }
        }
        let n = rows * d as u32;
        let sums = pre[inner.clone()]
            .iter()
            .zip(&pre[inner.start + d..inner.end + d]);
        let vals = row[inner.clone()].iter().zip(sums);
        for (o, (&v, (&p0, &p1))) in out[inner.clone()].iter_mut().zip(vals) {
            *o = local_paper(v, p1 - p0, n, offset, floor);
        }
    }
    m
}

/// Erodes a binary mask (255 = set) by a square of radius `r`.
pub fn erode_mask(mask: &GrayImage, r: usize) -> GrayImage {
    let (w, h) = (mask.width() as usize, mask.height() as usize);
    let m: Vec<u8> = mask.as_raw().iter().map(|&v| u8::from(v > 0)).collect();
    let mut tmp = vec![0u8; w * h];
    let mut e = vec![0u8; w * h];
    morph_into(&m, w, h, r, false, &mut tmp, &mut e);
    mask_image(e, w, h)
}

/// Most rows [`combine_rows`] combines through [`combine_fixed`] (the
/// windows of radius 1 and 2); more go through [`combine_any`].
const FIXED_ROWS: usize = 5;

/// `dst[i] = srcs[0][i] op srcs[1][i] op ...` (OR when `DILATE`, else AND)
/// for the rows `srcs` (each at least `dst.len()` long).
#[inline(always)]
fn combine_rows<const DILATE: bool>(dst: &mut [u8], srcs: &[&[u8]]) {
    match srcs.len() {
        1 => combine_fixed::<1, DILATE>(dst, [srcs[0]]),
        2 => combine_fixed::<2, DILATE>(dst, [srcs[0], srcs[1]]),
        3 => combine_fixed::<3, DILATE>(dst, [srcs[0], srcs[1], srcs[2]]),
        4 => combine_fixed::<4, DILATE>(dst, [srcs[0], srcs[1], srcs[2], srcs[3]]),
        5 => combine_fixed::<5, DILATE>(dst, [srcs[0], srcs[1], srcs[2], srcs[3], srcs[4]]),
        _ => combine_any::<DILATE>(dst, srcs.iter().copied()),
    }
}

/// One mask byte op: OR (dilation) or AND (erosion).
#[inline(always)]
fn combine<const DILATE: bool>(a: u8, b: u8) -> u8 {
    if DILATE { a | b } else { a & b }
}

/// [`combine_rows`] for `K` rows, cut to `dst.len()` first, in blocks of
/// [`MASK_LANES`] bytes held in registers: per block one load and one OR /
/// AND per row and one store, without bounds checks in the loop.
#[inline(always)]
fn combine_fixed<const K: usize, const DILATE: bool>(dst: &mut [u8], srcs: [&[u8]; K]) {
    let n = dst.len();
    if K == 0 || srcs.iter().any(|s| s.len() < n) {
        return;
    }
    let srcs = srcs.map(|s| &s[..n]);
    let blocks = n / MASK_LANES;
    for b in 0..blocks {
        let at = b * MASK_LANES;
        let mut acc = [u8::from(!DILATE); MASK_LANES];
        for s in &srcs {
            let Ok(v) = <&[u8; MASK_LANES]>::try_from(&s[at..at + MASK_LANES]) else {
                return;
            };
            for (a, &v) in acc.iter_mut().zip(v) {
                *a = combine::<DILATE>(*a, v);
            }
        }
        dst[at..at + MASK_LANES].copy_from_slice(&acc);
    }
    for i in blocks * MASK_LANES..n {
        let mut a = u8::from(!DILATE);
        for s in &srcs {
            a = combine::<DILATE>(a, s[i]);
        }
        dst[i] = a;
    }
}

/// [`combine_rows`] for any number of rows, in blocks of [`MASK_LANES`]
/// bytes held in registers (one load and one OR / AND per row and block,
/// one store per block).
#[inline(always)]
fn combine_any<'a, const DILATE: bool>(
    dst: &mut [u8],
    srcs: impl Iterator<Item = &'a [u8]> + Clone,
) {
    let n = dst.len();
    let mut blocks = dst.chunks_exact_mut(MASK_LANES);
    for (b, d) in (&mut blocks).enumerate() {
        let at = b * MASK_LANES;
        let mut acc = [u8::from(!DILATE); MASK_LANES];
        for s in srcs.clone() {
            let Some(s) = s.get(at..at + MASK_LANES) else {
                return;
            };
            for (a, &v) in acc.iter_mut().zip(s) {
                *a = combine::<DILATE>(*a, v);
            }
        }
        d.copy_from_slice(&acc);
    }
    let done = n - blocks.into_remainder().len();
    for i in done..n {
        let mut a = u8::from(!DILATE);
        for s in srcs.clone() {
            a = combine::<DILATE>(a, s[i]);
        }
        dst[i] = a;
    }
}

/// Separable square dilation (`dilate = true`) or erosion with radius `r`
/// of the `w` x `h` mask `src` (0 / 1 bytes) into `out`, through `tmp`
/// (both `w * h` long). Outside the frame counts as background.
fn morph_into(
    src: &[u8],
    w: usize,
    h: usize,
    r: usize,
    dilate: bool,
    tmp: &mut [u8],
    out: &mut [u8],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { morph_avx2(src, w, h, r, dilate, tmp, out) };
    }
    if dilate {
        morph_impl::<true>(src, w, h, r, tmp, out)
    } else {
        morph_impl::<false>(src, w, h, r, tmp, out)
    }
}

/// [`morph_into`] compiled for AVX2 (a 32-byte block is one register):
/// the same OR / AND of the same bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn morph_avx2(
    src: &[u8],
    w: usize,
    h: usize,
    r: usize,
    dilate: bool,
    tmp: &mut [u8],
    out: &mut [u8],
) {
    if dilate {
        morph_impl::<true>(src, w, h, r, tmp, out)
    } else {
        morph_impl::<false>(src, w, h, r, tmp, out)
    }
}

/// [`morph_into`] for one operation (inlined into each variant).
#[inline(always)]
fn morph_impl<const DILATE: bool>(
    src: &[u8],
    w: usize,
    h: usize,
    r: usize,
    tmp: &mut [u8],
    out: &mut [u8],
) {
    if w == 0 || h == 0 || src.len() < w * h || tmp.len() < w * h || out.len() < w * h {
        return;
    }
    // Horizontal pass on zero-padded rows: the window of x is
    // `padded[x ..= x + 2r]`.
    let mut padded = vec![0u8; w + 2 * r];
    for (srow, trow) in src.chunks_exact(w).zip(tmp.chunks_exact_mut(w)) {
        padded[r..r + w].copy_from_slice(srow);
        let p = &padded;
        if 2 * r < FIXED_ROWS {
            let mut rows: [&[u8]; FIXED_ROWS] = [&[]; FIXED_ROWS];
            for (k, row) in rows.iter_mut().enumerate().take(2 * r + 1) {
                *row = &p[k..];
            }
            combine_rows::<DILATE>(trow, &rows[..2 * r + 1]);
        } else {
            combine_any::<DILATE>(trow, (0..=2 * r).map(|k| &p[k..]));
        }
    }
    // Vertical pass over the rows of `tmp` (clipped to the frame; an
    // erosion whose window leaves the frame is empty).
    for (y, orow) in out.chunks_exact_mut(w).take(h).enumerate() {
        if !DILATE && (y < r || y + r >= h) {
            orow.fill(0);
            continue;
        }
        let lo = y.saturating_sub(r);
        let hi = (y + r).min(h - 1);
        let t = &*tmp;
        if hi - lo < FIXED_ROWS {
            let mut rows: [&[u8]; FIXED_ROWS] = [&[]; FIXED_ROWS];
            for (row, yy) in rows.iter_mut().zip(lo..=hi) {
                *row = &t[yy * w..(yy + 1) * w];
            }
            combine_rows::<DILATE>(orow, &rows[..hi - lo + 1]);
        } else {
            combine_any::<DILATE>(orow, (lo..=hi).map(|yy| &t[yy * w..(yy + 1) * w]));
        }
    }
}

/// Bilinear RGB sample at a full-resolution position (clamped to the frame).
#[inline]
pub fn sample_rgb(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 {
        return [0.0; 3];
    }
    let x = x.clamp(0.0, (w - 1) as f32);
    let y = y.clamp(0.0, (h - 1) as f32);
    // Non-negative after the clamp, so truncation is floor (and avoids libm).
    let x0 = x as u32;
    let y0 = y as u32;
    let x1 = (x0 + 1).min(w - 1);
    let y1 = (y0 + 1).min(h - 1);
    let fx = x - x0 as f32;
    let fy = y - y0 as f32;
    let raw = img.as_raw();
    let idx = |xx: u32, yy: u32| (yy as usize * w as usize + xx as usize) * 3;
    let (a, b, c, d) = (idx(x0, y0), idx(x1, y0), idx(x0, y1), idx(x1, y1));
    let mut out = [0f32; 3];
    for (k, o) in out.iter_mut().enumerate() {
        let top = raw[a + k] as f32 * (1.0 - fx) + raw[b + k] as f32 * fx;
        let bot = raw[c + k] as f32 * (1.0 - fx) + raw[d + k] as f32 * fx;
        *o = top * (1.0 - fy) + bot * fy;
    }
    out
}

/// [`sample_rgb`] for a position known to lie in `[0, w - 1) x [0, h - 1)`
/// (see [`inside_for_bilinear`]): the clamps are no-ops there and the right
/// and lower neighbours exist, so they are skipped; the arithmetic is the same,
/// hence so is the result.
#[inline]
pub fn sample_rgb_inside(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    #[cfg(target_arch = "x86_64")]
    {
        sample_rgb_inside_sse2(img, x, y)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        sample_rgb_inside_scalar(img, x, y)
    }
}

/// One row of sample points in a corner patch: point `k` is
/// `origin + width * (u[k] + v)` per axis (`ux`, `uy` the column terms, `v`
/// the row's), so every row shares the column products.
#[derive(Debug, Clone, Copy)]
pub struct SampleRow<'a> {
    /// The patch origin (image px).
    pub origin: [f32; 2],
    /// Card width (px) scaling the card coordinates.
    pub width: f32,
    /// Column terms along x, one per point.
    pub ux: &'a [f32],
    /// Column terms along y (as long as `ux`).
    pub uy: &'a [f32],
    /// The row's term per axis.
    pub v: [f32; 2],
}

impl SampleRow<'_> {
    /// How many points the row has.
    pub fn len(&self) -> usize {
        self.ux.len().min(self.uy.len())
    }

    /// Whether the row has no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Point `k` (image px).
    #[inline(always)]
    pub fn point(&self, k: usize) -> [f32; 2] {
        [
            self.origin[0] + self.width * (self.ux[k] + self.v[0]),
            self.origin[1] + self.width * (self.uy[k] + self.v[1]),
        ]
    }
}

/// [`sample_rgb_inside`] at every point of `row`, the arithmetic of the
/// per-point calls, so the same samples. Every point must lie inside (see
/// [`inside_for_bilinear`]).
pub fn sample_row_inside(img: &RgbImage, row: &SampleRow, out: &mut Vec<[f32; 3]>) {
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        done = unsafe { sample_row_inside_avx2(img, row, out) };
    }
    out.extend((done..row.len()).map(|k| {
        let [x, y] = row.point(k);
        sample_rgb_inside(img, x, y)
    }));
}

/// Eight points of [`sample_row_inside`] at a time with AVX2 gathers (one
/// point per lane, one register per channel; the same multiplies and adds
/// per value as [`sample_rgb_inside`], no fused multiply-add), as far as
/// whole groups of eight go whose gathered bytes lie in the frame; returns
/// how many points it sampled.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn sample_row_inside_avx2(img: &RgbImage, row: &SampleRow, out: &mut Vec<[f32; 3]>) -> usize {
    use std::arch::x86_64::*;
    let SampleRow {
        origin, width, v, ..
    } = *row;
    let n = row.len();
    let (ux, uy) = (&row.ux[..n], &row.uy[..n]);
    let raw = img.as_raw();
    let stride = img.width() as usize * 3;
    // Byte offsets are gathered as i32: frames are far below 2^31 bytes
    // ([`super::MAX_PIXELS`]), but check rather than trust.
    if raw.len() >= i32::MAX as usize - 8 {
        return 0;
    }
    let mut done = 0;
    let (mut r, mut g, mut b) = ([0f32; 8], [0f32; 8], [0f32; 8]);
    let (ox, oy, wv) = (
        _mm256_set1_ps(origin[0]),
        _mm256_set1_ps(origin[1]),
        _mm256_set1_ps(width),
    );
    let (vx, vy) = (_mm256_set1_ps(v[0]), _mm256_set1_ps(v[1]));
    let (one, three) = (_mm256_set1_ps(1.0), _mm256_set1_epi32(3));
    let (stride_v, byte) = (_mm256_set1_epi32(stride as i32), _mm256_set1_epi32(0xff));
    while done + 8 <= ux.len() {
        // SAFETY: the loads read 8 f32 inside `ux` / `uy`; the gathers read 4
        // bytes at offsets checked below to lie inside `raw`; the stores
        // write 8 f32 into the local arrays.
        unsafe {
            let x = _mm256_add_ps(
                ox,
                _mm256_mul_ps(
                    wv,
                    _mm256_add_ps(_mm256_loadu_ps(ux.as_ptr().add(done)), vx),
                ),
            );
            let y = _mm256_add_ps(
                oy,
                _mm256_mul_ps(
                    wv,
                    _mm256_add_ps(_mm256_loadu_ps(uy.as_ptr().add(done)), vy),
                ),
            );
            let xi = _mm256_cvttps_epi32(x);
            let yi = _mm256_cvttps_epi32(y);
            let fx = _mm256_sub_ps(x, _mm256_cvtepi32_ps(xi));
            let fy = _mm256_sub_ps(y, _mm256_cvtepi32_ps(yi));
            let a = _mm256_add_epi32(
                _mm256_mullo_epi32(yi, stride_v),
                _mm256_mullo_epi32(xi, three),
            );
            // The lower right sample's 4 bytes end at a + stride + 7.
            let mut offs = [0i32; 8];
            _mm256_storeu_si256(offs.as_mut_ptr().cast(), a);
            if offs
                .iter()
                .any(|&o| o < 0 || o as usize + stride + 7 > raw.len())
            {
                break;
            }
            let base = raw.as_ptr().cast::<i32>();
            let c = _mm256_add_epi32(a, stride_v);
            let tl = _mm256_i32gather_epi32::<1>(base, a);
            let tr = _mm256_i32gather_epi32::<1>(base, _mm256_add_epi32(a, three));
            let bl = _mm256_i32gather_epi32::<1>(base, c);
            let br = _mm256_i32gather_epi32::<1>(base, _mm256_add_epi32(c, three));
            let (gx, hx) = (_mm256_sub_ps(one, fx), fx);
            let (gy, hy) = (_mm256_sub_ps(one, fy), fy);
            let chan = |p: __m256i, k: i32| -> __m256 {
                let shifted = match k {
                    0 => p,
                    1 => _mm256_srli_epi32::<8>(p),
                    _ => _mm256_srli_epi32::<16>(p),
                };
                _mm256_cvtepi32_ps(_mm256_and_si256(shifted, byte))
            };
            for (k, dst) in [(0, &mut r), (1, &mut g), (2, &mut b)] {
                let t = _mm256_add_ps(
                    _mm256_mul_ps(chan(tl, k), gx),
                    _mm256_mul_ps(chan(tr, k), hx),
                );
                let bo = _mm256_add_ps(
                    _mm256_mul_ps(chan(bl, k), gx),
                    _mm256_mul_ps(chan(br, k), hx),
                );
                let o = _mm256_add_ps(_mm256_mul_ps(t, gy), _mm256_mul_ps(bo, hy));
                _mm256_storeu_ps(dst.as_mut_ptr(), o);
            }
        }
        out.extend((0..8).map(|l| [r[l], g[l], b[l]]));
        done += 8;
    }
    done
}

/// Portable [`sample_rgb_inside`] (also the reference in the tests).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline]
fn sample_rgb_inside_scalar(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    let w = img.width() as usize;
    let x0 = x as usize;
    let y0 = y as usize;
    let fx = x - x0 as f32;
    let fy = y - y0 as f32;
    let raw = img.as_raw();
    let a = (y0 * w + x0) * 3;
    let c = a + w * 3;
    let (top, bot) = (&raw[a..a + 6], &raw[c..c + 6]);
    let mut out = [0f32; 3];
    for (k, o) in out.iter_mut().enumerate() {
        let t = top[k] as f32 * (1.0 - fx) + top[k + 3] as f32 * fx;
        let b = bot[k] as f32 * (1.0 - fx) + bot[k + 3] as f32 * fx;
        *o = t * (1.0 - fy) + b * fy;
    }
    out
}

/// [`sample_rgb_inside`] with the three channels in one SSE2 register (part
/// of the x86_64 baseline): each lane does the scalar version's multiplies
/// and adds in the same order, without fused multiply-adds, so the result
/// has the same bits (unit test `inside_sampling_sse2_matches_scalar`).
#[cfg(target_arch = "x86_64")]
#[inline]
fn sample_rgb_inside_sse2(img: &RgbImage, x: f32, y: f32) -> [f32; 3] {
    use std::arch::x86_64::{
        __m128, _mm_add_ps, _mm_cvtepi32_ps, _mm_cvtsi32_si128, _mm_mul_ps, _mm_set1_ps,
        _mm_setzero_si128, _mm_storeu_ps, _mm_unpacklo_epi8, _mm_unpacklo_epi16,
    };
    let w = img.width() as usize;
    // Inside the frame the coordinates are positive and far below 2^31, so
    // the i32 truncation (cheaper than usize's) is the same floor.
    let (xi, yi) = (x as i32, y as i32);
    let fx = x - xi as f32;
    let fy = y - yi as f32;
    let raw = img.as_raw();
    let a = (yi as usize * w + xi as usize) * 3;
    let c = a + w * 3;
    // Eight bytes from `i`: the pixel, its right neighbour and two more
    // (a pixel inside has two more in its row); each four-byte half holds
    // one pixel's three channels and an unused byte.
    let halves = |i: usize| -> (i32, i32) {
        let v = match raw.get(i..i + 8).and_then(|b| <[u8; 8]>::try_from(b).ok()) {
            Some(b) => u64::from_le_bytes(b),
            None => raw[i..i + 6]
                .iter()
                .rev()
                .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)),
        };
        (v as u32 as i32, (v >> 24) as u32 as i32)
    };
    let ((tl, tr), (bl, br)) = (halves(a), halves(c));
    let mut out = [0f32; 4];
    // SAFETY: SSE2 is part of the x86_64 baseline; the only memory access
    // is the store into `out`, four f32, the size of one unaligned 128-bit
    // store.
    unsafe {
        // The four bytes as four f32 lanes.
        let lanes = |v: i32| -> __m128 {
            let z = _mm_setzero_si128();
            _mm_cvtepi32_ps(_mm_unpacklo_epi16(
                _mm_unpacklo_epi8(_mm_cvtsi32_si128(v), z),
                z,
            ))
        };
        let (gx, hx) = (_mm_set1_ps(1.0 - fx), _mm_set1_ps(fx));
        let (gy, hy) = (_mm_set1_ps(1.0 - fy), _mm_set1_ps(fy));
        let t = _mm_add_ps(_mm_mul_ps(lanes(tl), gx), _mm_mul_ps(lanes(tr), hx));
        let b = _mm_add_ps(_mm_mul_ps(lanes(bl), gx), _mm_mul_ps(lanes(br), hx));
        let o = _mm_add_ps(_mm_mul_ps(t, gy), _mm_mul_ps(b, hy));
        _mm_storeu_ps(out.as_mut_ptr(), o);
    }
    [out[0], out[1], out[2]]
}

/// Colour samples of an outlined region through a perspective map from the
/// region's own coordinates (a card's width units, a unit square) onto its
/// outline. Every point asked for lies inside the outline, so when the
/// outline is inside the frame the unclamped sampling applies (same
/// arithmetic, same values as the clamped one).
pub struct QuadSampler {
    map: Homography,
    inside: bool,
}

impl QuadSampler {
    /// The map sending `from[i]` to `outline[i]`; `None` if degenerate.
    pub fn new(img: &RgbImage, from: &[Point; 4], outline: &[Point; 4]) -> Option<Self> {
        Some(QuadSampler {
            map: Homography::from_points(from, outline)?,
            inside: inside_for_bilinear(img, outline),
        })
    }

    /// The bilinear colour at `p` (region coordinates); `None` where the
    /// map sends it to infinity or to no finite pixel.
    pub fn sample(&self, img: &RgbImage, p: Point) -> Option<[f32; 3]> {
        let q = self.map.apply(p)?;
        if !(q[0].is_finite() && q[1].is_finite()) {
            return None;
        }
        Some(if self.inside {
            sample_rgb_inside(img, q[0], q[1])
        } else {
            sample_rgb(img, q[0], q[1])
        })
    }
}

/// Margin (px) kept from the frame's last row and column by
/// [`inside_for_bilinear`]: points of an affine grid lie within float rounding
/// of the hull of its corners, far less than this.
const INSIDE_MARGIN: f32 = 1.0;

/// Whether every point of the hull of `corners` can use [`sample_rgb_inside`].
pub fn inside_for_bilinear(img: &RgbImage, corners: &[[f32; 2]]) -> bool {
    let (w, h) = (img.width() as f32, img.height() as f32);
    corners.iter().all(|p| {
        p[0] >= INSIDE_MARGIN
            && p[1] >= INSIDE_MARGIN
            && p[0] <= w - 2.0 - INSIDE_MARGIN
            && p[1] <= h - 2.0 - INSIDE_MARGIN
    })
}

#[cfg(test)]
mod tests;
