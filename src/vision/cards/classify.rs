//! Nearest-neighbour classification of corner index features.

use super::index::IndexFeatures;
use super::model::{CardModel, Sample};

/// Largest cosine distance (1 - dot) to the nearest rank sample that is still a
/// read. Measured with the edje-train model on the sarm singles (another deck):
/// same-rank distances 0.07-0.1, ranks absent from the model (2-8) >= 0.45.
/// Beyond it a read needs the wide margin of [`RANK_FAR_MARGIN`].
pub const RANK_MAX_DIST: f32 = 0.25;
/// Required gap between the nearest rank sample and the nearest of another class.
pub const RANK_MIN_MARGIN: f32 = 0.04;
/// A rank glyph beyond [`RANK_MAX_DIST`] but within this distance is still
/// read when every other class (the "not an index" class `?` included) is at
/// least [`RANK_FAR_MARGIN`] further: blurred "10" indices of small photos
/// (a grey block with a pale ring, 0.30-0.40 from the nearest T sample,
/// 0.48-0.64 from anything else) and a webcam K. Its confidence stays that of
/// a glyph at the distance limit (at most 0.65), so the confidence gates of
/// the index-first path and of lone outline corners still apply.
/// Development split (edje `train_*` 4-fold, fold models unchanged): 505 ->
/// 507 correct, wrong reads 1, for every far limit 0.3-0.7 at margin
/// 0.15-0.2 (0.28: 506).
pub const RANK_FAR_DIST: f32 = 0.4;
/// Required gap to the next class for a rank read between [`RANK_MAX_DIST`]
/// and [`RANK_FAR_DIST`]. Development split at far limit 0.4: 505 / 507 /
/// 507 / 507 / 506 correct at margin 0.1 / 0.15 / 0.175 / 0.2 / 0.25 (at 0.1
/// clutter glyphs read as a rank cancel right reads at the same corner);
/// wrong reads 1 throughout.
pub const RANK_FAR_MARGIN: f32 = 0.175;
/// Largest cosine distance to the nearest suit sample (pips are simpler shapes,
/// so the window is similar to ranks).
pub const SUIT_MAX_DIST: f32 = 0.25;
/// Required gap between best suit and best other suit of the same colour.
/// Was 0.03; 4-fold cross-validation on edje train_* (fold models fitted
/// without the fold, `fit-cards --leave-out K/4`, read on it) gave 458 -> 463
/// correct at 0.01 with no more wrong reads; at 0.0 a wrong read appears.
pub const SUIT_MIN_MARGIN: f32 = 0.01;
/// Suit margin at which the confidence starts to grow (see `conf`); kept at
/// the old acceptance margin so that confidences, and with them the later
/// confidence gates, are unchanged.
pub const SUIT_CONF_MARGIN: f32 = 0.03;
/// Redness band around the model threshold where the colour is "unsure" and
/// both colours' suits are allowed.
pub const RED_UNSURE: f32 = 12.0;
/// Ink whose redness lies this far from the model's threshold has an
/// unmistakable colour: its pip may then be read as the best suit of that
/// colour even when a suit of the other colour is nearer (a blurred spade pip
/// looks like a diamond). Closer to the threshold the nearest suit over all
/// four must agree with the colour. 4-fold cross-validation on edje train_*:
/// one more correct read at 20-40, none wrong.
pub const RED_CLEAR: f32 = 30.0;
/// Index ink must be at least this dark relative to paper (0..1); fainter blobs
/// are shadows or blur. The one exception is the pale last try at whole-card
/// corners (`OUTLINE_PALE_MIN_CONTRAST` in the parent module).
pub const MIN_CONTRAST: f32 = 0.3;

/// The outcome of reading one corner index.
#[derive(Debug, Clone, PartialEq)]
pub struct CornerRead {
    /// Card code, e.g. `"Th"`, `"XR"`.
    pub code: String,
    /// Confidence in [0, 1].
    pub confidence: f32,
}

/// Smallest distance per label over `samples` (labels in first-seen order).
fn per_label(samples: &[Sample], feat: &[f32]) -> Vec<(u8, f32)> {
    let mut out: Vec<(u8, f32)> = Vec::new();
    for s in samples.iter().filter(|s| s.feat.len() == feat.len()) {
        let d = 1.0 - dot(&s.feat, feat);
        match out.iter_mut().find(|(l, _)| *l == s.label) {
            Some(e) => e.1 = e.1.min(d),
            None => out.push((s.label, d)),
        }
    }
    out
}

/// Of the labels passing `allow`: the nearest (label, distance) and the
/// distance of the nearest other allowed label (2.0 if none).
fn pick(per_label: &[(u8, f32)], allow: &dyn Fn(u8) -> bool) -> Option<(u8, f32, f32)> {
    let mut best: Option<(u8, f32)> = None;
    for &(l, d) in per_label.iter().filter(|(l, _)| allow(*l)) {
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((l, d));
        }
    }
    let (bl, bd) = best?;
    let other = per_label
        .iter()
        .filter(|(l, _)| *l != bl && allow(*l))
        .map(|(_, d)| *d)
        .fold(2.0f32, f32::min);
    Some((bl, bd, other))
}

/// Nearest sample of each label class among `samples` passing `allow`:
/// returns (label, distance) of the best, and the best distance of any other label.
#[cfg(test)]
fn nearest(samples: &[Sample], feat: &[f32], allow: &dyn Fn(u8) -> bool) -> Option<(u8, f32, f32)> {
    pick(&per_label(samples, feat), allow)
}

/// A sample set packed for fast search: one contiguous matrix of 8-bit values
/// (held as `i16` so the dot product vectorises to 16-bit multiply-adds) with a
/// scale per row: half the memory traffic of `f32` rows (the nearest-neighbour
/// search is memory bound). Cosine values differ from the `f32` ones by < 0.01.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackedSet {
    dim: usize,
    /// Distinct labels in first-seen order (the order of [`per_label`]).
    order: Vec<u8>,
    /// Per row: its label's index in `order` (no label search per row).
    label_idx: Vec<usize>,
    scales: Vec<f32>,
    data: Vec<i16>,
}

/// Quantises `v` to -127..=127 with one scale (value = q * scale).
fn quantise(v: &[f32], out: &mut Vec<i16>) -> f32 {
    let m = v.iter().fold(0f32, |a, x| a.max(x.abs()));
    let scale = if m > 0.0 { m / 127.0 } else { 1.0 };
    out.extend(
        v.iter()
            .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i16),
    );
    scale
}

/// Integer dot product of two quantised rows (|value| <= 127, so a 400-D
/// sum stays far inside `i32`). Integer addition is exact, so every
/// implementation gives the same value.
type DotI8 = fn(&[i16], &[i16]) -> i32;

/// Dot products of one quantised query (second argument) with the 4
/// consecutive rows of the query's length in the first argument: the query
/// is loaded once for 4 rows.
type DotI8x4 = fn(&[i16], &[i16]) -> [i32; 4];

/// The fastest [`DotI8`] and [`DotI8x4`] this CPU supports, chosen at run
/// time (the crate is built for the x86_64 baseline, which has only SSE2).
/// All give the same integers, so the choice never changes a read.
fn dot_i8_best() -> (DotI8, DotI8x4) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            return (dot_i8_avx512, dot4_i8_avx512);
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return (dot_i8_avx2, dot4_i8_avx2);
        }
        (dot_i8_sse2, dot4_i8_sse2)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        (dot_i8_scalar, dot4_i8_scalar)
    }
}

/// [`DotI8x4`] from four single-row dot products.
fn dot4_by_rows(dot: DotI8, rows: &[i16], q: &[i16]) -> [i32; 4] {
    let n = q.len();
    let mut out = [0i32; 4];
    for (o, row) in out.iter_mut().zip(rows.chunks_exact(n.max(1))) {
        *o = dot(row, q);
    }
    out
}

/// Portable [`DotI8x4`] (also the reference in the tests).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn dot4_i8_scalar(rows: &[i16], q: &[i16]) -> [i32; 4] {
    dot4_by_rows(dot_i8_scalar, rows, q)
}

/// [`DotI8x4`] on SSE2 (the baseline has few registers to share the query).
#[cfg(target_arch = "x86_64")]
fn dot4_i8_sse2(rows: &[i16], q: &[i16]) -> [i32; 4] {
    dot4_by_rows(dot_i8_sse2, rows, q)
}

/// The 4 rows of `rows` (each `n` long; missing rows are empty).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn four_rows(rows: &[i16], n: usize) -> [&[i16]; 4] {
    let row = |k: usize| rows.get(k * n..(k + 1) * n).unwrap_or(&[]);
    [row(0), row(1), row(2), row(3)]
}

/// Portable dot product of quantised rows (also the reference in the tests).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn dot_i8_scalar(a: &[i16], b: &[i16]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}

/// `i16` values per SSE2 register.
#[cfg(target_arch = "x86_64")]
const SSE_I16_LANES: usize = 8;
/// `i16` values per AVX2 register.
#[cfg(target_arch = "x86_64")]
const AVX2_I16_LANES: usize = 16;
/// `i16` values per AVX-512 register.
#[cfg(target_arch = "x86_64")]
const AVX512_I16_LANES: usize = 32;

/// Dot product with the SSE2 16-bit multiply-add (`pmaddwd`: 8 products,
/// summed in pairs, per instruction). The compiler does not emit it for the
/// plain widening reduction (it compiled to scalar 32-bit multiplies), and
/// this search is most of the classification time. SSE2 is part of the
/// x86_64 baseline, so no run-time check is needed.
#[cfg(target_arch = "x86_64")]
fn dot_i8_sse2(a: &[i16], b: &[i16]) -> i32 {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_cvtsi128_si32, _mm_loadu_si128, _mm_madd_epi16,
        _mm_setzero_si128, _mm_shuffle_epi32,
    };
    let n = a.len().min(b.len());
    let (ca, cb) = (
        a[..n].chunks_exact(SSE_I16_LANES),
        b[..n].chunks_exact(SSE_I16_LANES),
    );
    let tail = dot_i8_scalar(ca.remainder(), cb.remainder());
    // SAFETY: SSE2 is always available on x86_64; every load reads exactly
    // one 8 x i16 chunk of a slice (unaligned loads allow any address).
    unsafe {
        let mut acc = _mm_setzero_si128();
        for (x, y) in ca.zip(cb) {
            let vx = _mm_loadu_si128(x.as_ptr() as *const __m128i);
            let vy = _mm_loadu_si128(y.as_ptr() as *const __m128i);
            acc = _mm_add_epi32(acc, _mm_madd_epi16(vx, vy));
        }
        // Horizontal sum of the four i32 lanes.
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0b01_00_11_10));
        acc = _mm_add_epi32(acc, _mm_shuffle_epi32(acc, 0b10_11_00_01));
        _mm_cvtsi128_si32(acc) + tail
    }
}

/// [`dot_i8_sse2`] on 16 lanes (AVX2 `vpmaddwd`); the remainder goes to the
/// SSE2 version. Only returned by [`dot_i8_best`] after AVX2 was detected.
#[cfg(target_arch = "x86_64")]
fn dot_i8_avx2(a: &[i16], b: &[i16]) -> i32 {
    // SAFETY: only called (through `dot_i8_best` or the tests) after
    // `is_x86_feature_detected!("avx2")` returned true.
    unsafe { dot_i8_avx2_impl(a, b) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot_i8_avx2_impl(a: &[i16], b: &[i16]) -> i32 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_setzero_si256,
    };
    let n = a.len().min(b.len());
    let (ca, cb) = (
        a[..n].chunks_exact(AVX2_I16_LANES),
        b[..n].chunks_exact(AVX2_I16_LANES),
    );
    let tail = dot_i8_sse2(ca.remainder(), cb.remainder());
    let mut acc = _mm256_setzero_si256();
    for (x, y) in ca.zip(cb) {
        // SAFETY: each load reads exactly one 16 x i16 chunk of a slice
        // (unaligned loads allow any address).
        let (vx, vy) = unsafe {
            (
                _mm256_loadu_si256(x.as_ptr() as *const __m256i),
                _mm256_loadu_si256(y.as_ptr() as *const __m256i),
            )
        };
        acc = _mm256_add_epi32(acc, _mm256_madd_epi16(vx, vy));
    }
    hsum_avx2(acc) + tail
}

/// Sum of the eight `i32` lanes of `acc`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn hsum_avx2(acc: std::arch::x86_64::__m256i) -> i32 {
    use std::arch::x86_64::{
        _mm_add_epi32, _mm_storeu_si128, _mm256_castsi256_si128, _mm256_extracti128_si256,
    };
    let half = _mm_add_epi32(
        _mm256_castsi256_si128(acc),
        _mm256_extracti128_si256(acc, 1),
    );
    let mut lanes = [0i32; 4];
    // SAFETY: `lanes` is 16 bytes, the size of one 128-bit store.
    unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), half) };
    lanes.iter().sum()
}

/// [`dot_i8_avx2`] for 4 rows at once (see [`DotI8x4`]). Only returned by
/// [`dot_i8_best`] after AVX2 was detected.
#[cfg(target_arch = "x86_64")]
fn dot4_i8_avx2(rows: &[i16], q: &[i16]) -> [i32; 4] {
    // SAFETY: only called (through `dot_i8_best` or the tests) after
    // `is_x86_feature_detected!("avx2")` returned true.
    unsafe { dot4_i8_avx2_impl(rows, q) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn dot4_i8_avx2_impl(rows: &[i16], q: &[i16]) -> [i32; 4] {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_madd_epi16, _mm256_setzero_si256,
    };
    let n = q.len();
    let r = four_rows(rows, n);
    if r.iter().any(|x| x.len() != n) {
        return dot4_by_rows(dot_i8_avx2, rows, q);
    }
    let blocks = n / AVX2_I16_LANES;
    let mut acc = [_mm256_setzero_si256(); 4];
    for b in 0..blocks {
        let j = b * AVX2_I16_LANES;
        // SAFETY: j + 16 <= n, the length of `q` and of every row (checked
        // above); unaligned loads allow any address.
        unsafe {
            let vq = _mm256_loadu_si256(q.as_ptr().add(j) as *const __m256i);
            for (a, row) in acc.iter_mut().zip(&r) {
                let vr = _mm256_loadu_si256(row.as_ptr().add(j) as *const __m256i);
                *a = _mm256_add_epi32(*a, _mm256_madd_epi16(vr, vq));
            }
        }
    }
    let t = blocks * AVX2_I16_LANES;
    let mut out = [0i32; 4];
    for ((o, a), row) in out.iter_mut().zip(acc).zip(&r) {
        *o = hsum_avx2(a) + dot_i8_sse2(&row[t..], &q[t..]);
    }
    out
}

/// [`dot_i8_sse2`] on 32 lanes (AVX-512BW `vpmaddwd`); the remainder goes to
/// the AVX2 version (every AVX-512BW CPU has AVX2). Only returned by
/// [`dot_i8_best`] after AVX-512BW was detected.
#[cfg(target_arch = "x86_64")]
fn dot_i8_avx512(a: &[i16], b: &[i16]) -> i32 {
    // SAFETY: only called (through `dot_i8_best` or the tests) after
    // `is_x86_feature_detected!("avx512bw")` returned true.
    unsafe { dot_i8_avx512_impl(a, b) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx2")]
fn dot_i8_avx512_impl(a: &[i16], b: &[i16]) -> i32 {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_madd_epi16, _mm512_reduce_add_epi32,
        _mm512_setzero_si512,
    };
    let n = a.len().min(b.len());
    let (ca, cb) = (
        a[..n].chunks_exact(AVX512_I16_LANES),
        b[..n].chunks_exact(AVX512_I16_LANES),
    );
    let tail = dot_i8_avx2_impl(ca.remainder(), cb.remainder());
    let mut acc = _mm512_setzero_si512();
    for (x, y) in ca.zip(cb) {
        // SAFETY: each load reads exactly one 32 x i16 chunk of a slice
        // (unaligned loads allow any address).
        let (vx, vy) = unsafe {
            (
                _mm512_loadu_si512(x.as_ptr() as *const __m512i),
                _mm512_loadu_si512(y.as_ptr() as *const __m512i),
            )
        };
        acc = _mm512_add_epi32(acc, _mm512_madd_epi16(vx, vy));
    }
    _mm512_reduce_add_epi32(acc) + tail
}

/// [`dot_i8_avx512`] for 4 rows at once (see [`DotI8x4`]). Only returned by
/// [`dot_i8_best`] after AVX-512BW was detected.
#[cfg(target_arch = "x86_64")]
fn dot4_i8_avx512(rows: &[i16], q: &[i16]) -> [i32; 4] {
    // SAFETY: only called (through `dot_i8_best` or the tests) after
    // `is_x86_feature_detected!("avx512bw")` returned true.
    unsafe { dot4_i8_avx512_impl(rows, q) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,avx2")]
fn dot4_i8_avx512_impl(rows: &[i16], q: &[i16]) -> [i32; 4] {
    use std::arch::x86_64::{
        __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_madd_epi16, _mm512_reduce_add_epi32,
        _mm512_setzero_si512,
    };
    let n = q.len();
    let r = four_rows(rows, n);
    if r.iter().any(|x| x.len() != n) {
        return dot4_by_rows(dot_i8_avx512, rows, q);
    }
    let blocks = n / AVX512_I16_LANES;
    let mut acc = [_mm512_setzero_si512(); 4];
    for b in 0..blocks {
        let j = b * AVX512_I16_LANES;
        // SAFETY: j + 32 <= n, the length of `q` and of every row (checked
        // above); unaligned loads allow any address.
        unsafe {
            let vq = _mm512_loadu_si512(q.as_ptr().add(j) as *const __m512i);
            for (a, row) in acc.iter_mut().zip(&r) {
                let vr = _mm512_loadu_si512(row.as_ptr().add(j) as *const __m512i);
                *a = _mm512_add_epi32(*a, _mm512_madd_epi16(vr, vq));
            }
        }
    }
    let t = blocks * AVX512_I16_LANES;
    let mut out = [0i32; 4];
    for ((o, a), row) in out.iter_mut().zip(acc).zip(&r) {
        *o = _mm512_reduce_add_epi32(a) + dot_i8_avx2_impl(&row[t..], &q[t..]);
    }
    out
}

impl PackedSet {
    /// Packs samples of one dimension (rows of another length are skipped).
    pub fn new(samples: &[Sample]) -> Self {
        let dim = samples.first().map(|s| s.feat.len()).unwrap_or(0);
        let mut p = PackedSet {
            dim,
            ..Default::default()
        };
        for s in samples.iter().filter(|s| s.feat.len() == dim) {
            let k = match p.order.iter().position(|&l| l == s.label) {
                Some(k) => k,
                None => {
                    p.order.push(s.label);
                    p.order.len() - 1
                }
            };
            p.label_idx.push(k);
            let sc = quantise(&s.feat, &mut p.data);
            p.scales.push(sc);
        }
        p
    }

    /// As [`per_label`] over the packed rows.
    fn per_label(&self, feat: &[f32]) -> Vec<(u8, f32)> {
        if feat.len() != self.dim || self.dim == 0 {
            return Vec::new();
        }
        let mut q = Vec::with_capacity(self.dim);
        let qs = quantise(feat, &mut q);
        let (dot1, dot4) = dot_i8_best();
        let mut dots: Vec<i32> = Vec::with_capacity(self.scales.len());
        let blocks = self.data.chunks_exact(4 * self.dim);
        let rest = blocks.remainder();
        for b in blocks {
            dots.extend(dot4(b, &q));
        }
        dots.extend(rest.chunks_exact(self.dim).map(|row| dot1(row, &q)));
        // Every label has a row, so each minimum below is replaced by a
        // finite distance (distances are never NaN: finite integer dot
        // products times finite scales).
        let mut out: Vec<(u8, f32)> = self.order.iter().map(|&l| (l, f32::INFINITY)).collect();
        for ((&dp, &k), &sc) in dots.iter().zip(&self.label_idx).zip(&self.scales) {
            let d = 1.0 - dp as f32 * sc * qs;
            let e = &mut out[k].1;
            *e = e.min(d);
        }
        out
    }

    #[cfg(test)]
    fn nearest(&self, feat: &[f32], allow: &dyn Fn(u8) -> bool) -> Option<(u8, f32, f32)> {
        pick(&self.per_label(feat), allow)
    }
}

/// A [`CardModel`]'s samples packed for fast classification
/// ([`classify_packed`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PackedModel {
    rank: PackedSet,
    suit: PackedSet,
}

impl PackedModel {
    /// Packs the rank and suit samples of `model`.
    pub fn new(model: &CardModel) -> Self {
        PackedModel {
            rank: PackedSet::new(&model.rank),
            suit: PackedSet::new(&model.suit),
        }
    }
}

/// Dot product with 8 independent accumulators (lets the compiler vectorise).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

fn is_red_suit(l: u8) -> bool {
    l == b'h' || l == b'd'
}

type PerLabel<'a> = &'a dyn Fn(&[f32]) -> Vec<(u8, f32)>;

/// Classifies one corner; `None` when unsure (never guesses).
pub fn classify_corner(model: &CardModel, f: &IndexFeatures) -> Option<CornerRead> {
    decide(
        model,
        f,
        MIN_CONTRAST,
        &|x| per_label(&model.rank, x),
        &|x| per_label(&model.suit, x),
    )
}

/// [`classify_corner`] searching the packed samples (same decisions up to
/// the quantisation of the cosine values).
pub fn classify_packed(
    model: &CardModel,
    packed: &PackedModel,
    f: &IndexFeatures,
) -> Option<CornerRead> {
    classify_packed_with_contrast(model, packed, f, MIN_CONTRAST)
}

/// [`classify_packed`] with another ink contrast floor than [`MIN_CONTRAST`]
/// (for glyphs split at a very faint ink level, whose mean contrast is low
/// by construction).
pub fn classify_packed_with_contrast(
    model: &CardModel,
    packed: &PackedModel,
    f: &IndexFeatures,
    min_contrast: f32,
) -> Option<CornerRead> {
    decide(
        model,
        f,
        min_contrast,
        &|x| packed.rank.per_label(x),
        &|x| packed.suit.per_label(x),
    )
}

fn decide(
    model: &CardModel,
    f: &IndexFeatures,
    min_contrast: f32,
    rank_nn: PerLabel,
    suit_nn: PerLabel,
) -> Option<CornerRead> {
    if f.contrast < min_contrast {
        return None;
    }
    let (rank, rd, rother) = pick(&rank_nn(&f.rank), &|_| true)?;
    if rank == b'?' || !rank_accepted(rd, rother) {
        return None;
    }
    let red = f.redness > model.red_threshold;
    let unsure = (f.redness - model.red_threshold).abs() < RED_UNSURE;
    let rank_conf = conf(rd, rother, RANK_MAX_DIST, RANK_MIN_MARGIN);
    if rank == b'X' {
        if unsure {
            return None;
        }
        return Some(CornerRead {
            code: if red { "XR".into() } else { "XB".into() },
            confidence: rank_conf,
        });
    }
    let sf = f.suit.as_ref()?;
    let (suit, suit_conf) = decide_suit(model, &suit_nn(sf), f.redness)?;
    Some(CornerRead {
        code: format!("{}{}", rank as char, suit as char),
        confidence: rank_conf.min(suit_conf),
    })
}

/// Whether a rank glyph whose nearest rank sample lies at cosine distance
/// `d` and the nearest sample of any other class at `other` is read: near
/// ([`RANK_MAX_DIST`]) with a margin of [`RANK_MIN_MARGIN`], or far
/// ([`RANK_FAR_DIST`]) with the wide margin [`RANK_FAR_MARGIN`].
fn rank_accepted(d: f32, other: f32) -> bool {
    let margin = other - d;
    if d <= RANK_MAX_DIST {
        margin >= RANK_MIN_MARGIN
    } else {
        d <= RANK_FAR_DIST && margin >= RANK_FAR_MARGIN
    }
}

/// The suit of a pip from its distance per suit label (`suits`, as
/// [`per_label`]) and its ink's redness: (suit, confidence), `None` when
/// unsure.
fn decide_suit(model: &CardModel, suits: &[(u8, f32)], redness: f32) -> Option<(u8, f32)> {
    let red = redness > model.red_threshold;
    let unsure = (redness - model.red_threshold).abs() < RED_UNSURE;
    let allow = |l: u8| unsure || is_red_suit(l) == red;
    // The pip's nearest suit over all four must be of the ink colour too:
    // a dull red diamond judged black must not become the nearest black suit.
    let (any, _, _) = pick(suits, &|_| true)?;
    let clear = (redness - model.red_threshold).abs() >= RED_CLEAR;
    if !allow(any) && !clear {
        return None;
    }
    let (suit, sd, sother) = pick(suits, &allow)?;
    if sd > SUIT_MAX_DIST || sother - sd < SUIT_MIN_MARGIN {
        return None;
    }
    Some((suit, conf(sd, sother, SUIT_MAX_DIST, SUIT_CONF_MARGIN)))
}

/// The suit of several pips of one card (centre pips): their distances per
/// suit label are averaged, then decided as one index pip is ([`SUIT_MAX_DIST`],
/// margins, colour); (suit, confidence).
pub fn classify_pips(
    model: &CardModel,
    packed: &PackedModel,
    pips: &[Vec<f32>],
    redness: f32,
) -> Option<(u8, f32)> {
    let per_pip: Vec<Vec<(u8, f32)>> = pips.iter().map(|p| packed.suit.per_label(p)).collect();
    let mean = mean_per_label(per_pip.iter().map(Vec::as_slice))?;
    decide_suit(model, &mean, redness)
}

/// What one corner says about its card when it cannot name the card alone
/// (a blurred pip near two suits, or a pip whose rank glyph is unreadable):
/// [`pool_corners`] weighs it with the other corners of the same outline.
#[derive(Debug, Clone, Default)]
pub struct CornerEvidence {
    /// The rank glyph's label and confidence, when it is read as for a whole
    /// read (`rank_accepted`, not `?`, not a joker).
    pub rank: Option<(u8, f32)>,
    /// The pip's distance per suit label and its ink's redness, when a pip
    /// was found under the rank glyph.
    pub suit: Option<(Vec<(u8, f32)>, f32)>,
}

impl CornerEvidence {
    /// Whether the corner says anything.
    pub fn is_empty(&self) -> bool {
        self.rank.is_none() && self.suit.is_none()
    }
}

/// The evidence of one corner's features (see [`CornerEvidence`]); nothing
/// below the contrast floor `min_contrast`.
pub fn corner_evidence(
    packed: &PackedModel,
    f: &IndexFeatures,
    min_contrast: f32,
) -> CornerEvidence {
    if f.contrast < min_contrast {
        return CornerEvidence::default();
    }
    let rank = pick(&packed.rank.per_label(&f.rank), &|_| true)
        .filter(|&(r, d, other)| r != b'?' && r != b'X' && rank_accepted(d, other))
        .map(|(r, d, other)| (r, conf(d, other, RANK_MAX_DIST, RANK_MIN_MARGIN)));
    let suit = f
        .suit
        .as_ref()
        .map(|sf| (packed.suit.per_label(sf), f.redness));
    CornerEvidence { rank, suit }
}

/// Names a card from the evidence of several of its corners, none of which
/// could name it alone: every rank read must agree (at least one), and the
/// suit is decided on the pips' distances per suit averaged over the corners
/// that have a pip (as one pip is, `decide_suit`), so a pip clearly of one
/// suit at one corner outweighs a blurred one near two suits at another.
/// Needs evidence from at least [`POOL_MIN_CORNERS`] corners; `None` when
/// unsure.
pub fn pool_corners(model: &CardModel, corners: &[CornerEvidence]) -> Option<CornerRead> {
    if corners.iter().filter(|c| !c.is_empty()).count() < POOL_MIN_CORNERS {
        return None;
    }
    let mut ranks = corners.iter().filter_map(|c| c.rank);
    let (rank, first_conf) = ranks.next()?;
    let mut rank_conf = first_conf;
    for (r, c) in ranks {
        if r != rank {
            return None;
        }
        rank_conf = rank_conf.max(c);
    }
    let pips: Vec<&(Vec<(u8, f32)>, f32)> =
        corners.iter().filter_map(|c| c.suit.as_ref()).collect();
    // Pips whose ink is surely red at one corner and surely black at
    // another are not one card's.
    let sure =
        |r: f32, red: bool| (r - model.red_threshold) * if red { 1.0 } else { -1.0 } >= RED_UNSURE;
    if pips.iter().any(|(_, r)| sure(*r, true)) && pips.iter().any(|(_, r)| sure(*r, false)) {
        return None;
    }
    let mean = mean_per_label(pips.iter().map(|(d, _)| d.as_slice()))?;
    let redness = pips.iter().map(|(_, r)| r).sum::<f32>() / pips.len() as f32;
    let (suit, suit_conf) = decide_suit(model, &mean, redness)?;
    Some(CornerRead {
        code: format!("{}{}", rank as char, suit as char),
        confidence: rank_conf.min(suit_conf),
    })
}

/// How far a pip's nearest suit label stands from the next one (distances
/// per label as `per_label`); 0 with fewer than two labels.
pub fn suit_margin(per_label: &[(u8, f32)]) -> f32 {
    pick(per_label, &|_| true).map_or(0.0, |(_, d, other)| other - d)
}

/// Corners that must say something for [`pool_corners`] to name a card: one
/// corner alone is the ordinary read, which already refused it.
pub const POOL_MIN_CORNERS: usize = 2;

/// The mean distance per label over several pips' distances per label (as
/// [`per_label`]), labels in first-seen order; `None` without pips or labels.
fn mean_per_label<'a>(pips: impl Iterator<Item = &'a [(u8, f32)]>) -> Option<Vec<(u8, f32)>> {
    let mut sum: Vec<(u8, f32)> = Vec::new();
    let mut n = 0usize;
    for per_label in pips {
        n += 1;
        for &(l, d) in per_label {
            match sum.iter_mut().find(|(k, _)| *k == l) {
                Some(e) => e.1 += d,
                None => sum.push((l, d)),
            }
        }
    }
    if n == 0 || sum.is_empty() {
        return None;
    }
    let n = n as f32;
    Some(sum.into_iter().map(|(l, d)| (l, d / n)).collect())
}

/// Confidence from distance and margin: 1 for a perfect, well-separated match,
/// ~0.3 at the acceptance limits.
fn conf(d: f32, other: f32, max_d: f32, min_margin: f32) -> f32 {
    let a = (1.0 - d / max_d).clamp(0.0, 1.0);
    let b = ((other - d - min_margin) / (4.0 * min_margin)).clamp(0.0, 1.0);
    (0.3 + 0.35 * a + 0.35 * b).clamp(0.0, 1.0)
}

/// Combines the reads of the corners of one card: agreeing reads strengthen,
/// disagreeing reads cancel (unread).
pub fn combine(reads: &[CornerRead]) -> Option<CornerRead> {
    let first = reads.first()?;
    if reads.iter().any(|r| r.code != first.code) {
        return None;
    }
    let miss = reads.iter().map(|r| 1.0 - r.confidence).product::<f32>();
    Some(CornerRead {
        code: first.code.clone(),
        confidence: (1.0 - miss).clamp(0.0, 1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_rejects_disagreement() {
        let a = CornerRead {
            code: "As".into(),
            confidence: 0.9,
        };
        let b = CornerRead {
            code: "Ks".into(),
            confidence: 0.9,
        };
        assert!(combine(&[a.clone(), b]).is_none());
        let c = combine(&[a.clone(), a]).unwrap();
        assert!(c.confidence > 0.9 && c.confidence <= 1.0);
        assert!(combine(&[]).is_none());
    }

    /// The blurred and the clear club of `train_cam_image41`'s Kc (distances
    /// per suit label measured with its fold model): the first corner reads
    /// K with a pip nearer a spade, the second no rank with a clear club.
    fn kc_corners() -> (CornerEvidence, CornerEvidence) {
        let blurred = CornerEvidence {
            rank: Some((b'K', 0.72)),
            suit: Some((
                vec![(b'c', 0.085), (b'd', 0.097), (b'h', 0.290), (b's', 0.075)],
                -3.4,
            )),
        };
        let clear = CornerEvidence {
            rank: None,
            suit: Some((
                vec![(b'c', 0.158), (b'd', 0.329), (b'h', 0.268), (b's', 0.267)],
                -4.7,
            )),
        };
        (blurred, clear)
    }

    fn black_red_model() -> CardModel {
        CardModel {
            red_threshold: 36.5,
            rank_height: 0.1,
            rank: Vec::new(),
            suit: Vec::new(),
            faces: Vec::new(),
        }
    }

    #[test]
    fn pooled_corners_settle_a_blurred_pip() {
        let model = black_red_model();
        let (blurred, clear) = kc_corners();
        // Alone, the blurred corner's nearest suit is a spade.
        let alone = &blurred.suit.as_ref().expect("pip").0;
        assert_eq!(pick(alone, &|_| true).map(|p| p.0), Some(b's'));
        assert!(suit_margin(alone) > 0.0);
        let r = pool_corners(&model, &[blurred.clone(), clear.clone()]).expect("read");
        assert_eq!(r.code, "Kc");
        assert!(
            r.confidence > 0.5 && r.confidence <= 0.72,
            "{}",
            r.confidence
        );
        // Order and an empty corner do not matter.
        let empty = CornerEvidence::default();
        let r2 = pool_corners(&model, &[empty, clear.clone(), blurred.clone()]).expect("read");
        assert_eq!(r2.code, "Kc");
        // One corner alone is the ordinary read's business.
        assert!(pool_corners(&model, std::slice::from_ref(&blurred)).is_none());
        assert!(pool_corners(&model, &[clear.clone(), CornerEvidence::default()]).is_none());
        // No rank anywhere: nothing to name.
        assert!(pool_corners(&model, &[clear.clone(), clear.clone()]).is_none());
        // Corners that read different ranks: unread.
        let other = CornerEvidence {
            rank: Some((b'Q', 0.9)),
            ..clear
        };
        assert!(pool_corners(&model, &[blurred, other]).is_none());
    }

    #[test]
    fn pooled_corners_keep_the_colour_rule() {
        let model = black_red_model();
        let (blurred, _) = kc_corners();
        // Surely red ink at one corner and surely black ink at another are
        // not one card's pips, whatever their mean distances say.
        let red = CornerEvidence {
            rank: None,
            suit: Some((
                vec![(b'c', 0.30), (b'd', 0.20), (b'h', 0.10), (b's', 0.30)],
                80.0,
            )),
        };
        assert!(pool_corners(&model, &[blurred.clone(), red.clone()]).is_none());
        // A pale pip of unsure colour does not veto.
        let pale = CornerEvidence {
            suit: Some((
                vec![(b'c', 0.12), (b'd', 0.30), (b'h', 0.30), (b's', 0.25)],
                model.red_threshold - 2.0,
            )),
            ..red
        };
        assert_eq!(
            pool_corners(&model, &[blurred, pale]).map(|r| r.code),
            Some("Kc".into())
        );
    }

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..37).map(|i| 1.0 - i as f32 * 0.1).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
    }

    #[test]
    fn dot_i8_matches_scalar() {
        let mut variants: Vec<(&str, DotI8)> = vec![("best", dot_i8_best().0)];
        #[cfg(target_arch = "x86_64")]
        {
            variants.push(("sse2", dot_i8_sse2));
            if std::arch::is_x86_feature_detected!("avx2") {
                variants.push(("avx2", dot_i8_avx2));
            }
            if std::arch::is_x86_feature_detected!("avx512bw") {
                variants.push(("avx512", dot_i8_avx512));
            }
        }
        // Lengths around the 8/16/32-lane blocks, with extreme values.
        for n in [
            0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 37, 63, 64, 65, 256, 400,
        ] {
            let a: Vec<i16> = (0..n).map(|i| ((i * 37) % 255) as i16 - 127).collect();
            let b: Vec<i16> = (0..n).map(|i| 127 - ((i * 91) % 255) as i16).collect();
            let full: Vec<i16> = vec![-127; n];
            for (name, f) in &variants {
                assert_eq!(f(&a, &b), dot_i8_scalar(&a, &b), "{name} n = {n}");
                assert_eq!(f(&full, &full), 127 * 127 * n as i32, "{name} n = {n}");
            }
        }
    }

    #[test]
    fn dot4_i8_matches_scalar() {
        let mut variants: Vec<(&str, DotI8x4)> = vec![("best", dot_i8_best().1)];
        #[cfg(target_arch = "x86_64")]
        {
            variants.push(("sse2", dot4_i8_sse2));
            if std::arch::is_x86_feature_detected!("avx2") {
                variants.push(("avx2", dot4_i8_avx2));
            }
            if std::arch::is_x86_feature_detected!("avx512bw") {
                variants.push(("avx512", dot4_i8_avx512));
            }
        }
        for n in [0, 1, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 256, 400] {
            let rows: Vec<i16> = (0..4 * n).map(|i| ((i * 37) % 255) as i16 - 127).collect();
            let q: Vec<i16> = (0..n).map(|i| 127 - ((i * 91) % 255) as i16).collect();
            let want: Vec<i32> = (0..4)
                .map(|k| dot_i8_scalar(&rows[k * n..(k + 1) * n], &q))
                .collect();
            for (name, f) in &variants {
                assert_eq!(f(&rows, &q).to_vec(), want, "{name} n = {n}");
            }
        }
    }

    #[test]
    fn packed_nearest_matches_f32() {
        let mk = |label: u8, seed: u32| {
            let mut v: Vec<f32> = (0..400)
                .map(|i| {
                    (((i as u32).wrapping_mul(2654435761u32) ^ seed) % 1000) as f32 / 1000.0 - 0.5
                })
                .collect();
            crate::vision::cards::index::normalise(&mut v);
            Sample { label, feat: v }
        };
        let samples: Vec<Sample> = (0..30)
            .map(|i| mk(b'A' + (i % 5) as u8, i * 7919))
            .collect();
        let packed = PackedSet::new(&samples);
        for q in 0..5u32 {
            let f = mk(b'?', q * 7919 + 3).feat;
            let (l1, d1, o1) = nearest(&samples, &f, &|_| true).unwrap();
            let (l2, d2, o2) = packed.nearest(&f, &|_| true).unwrap();
            assert_eq!(l1, l2);
            assert!(
                (d1 - d2).abs() < 0.01 && (o1 - o2).abs() < 0.01,
                "{d1} {d2} {o1} {o2}"
            );
        }
        assert!(packed.nearest(&[1.0], &|_| true).is_none());
        assert!(PackedSet::new(&[]).nearest(&[], &|_| true).is_none());
    }

    #[test]
    fn far_rank_needs_a_wide_margin() {
        // Near: the usual margin.
        assert!(rank_accepted(0.1, 0.15));
        assert!(!rank_accepted(0.1, 0.12));
        // Far (the blurred "10" of a small photo: T at 0.3, `?` at 0.56).
        assert!(rank_accepted(0.3, 0.56));
        assert!(!rank_accepted(0.3, 0.4));
        // Too far whatever the margin.
        assert!(!rank_accepted(RANK_FAR_DIST + 0.01, 1.0));
    }

    #[test]
    fn nearest_finds_label_and_margin() {
        let s = vec![
            Sample {
                label: b'A',
                feat: vec![1.0, 0.0],
            },
            Sample {
                label: b'K',
                feat: vec![0.0, 1.0],
            },
        ];
        let (l, d, o) = nearest(&s, &[1.0, 0.0], &|_| true).unwrap();
        assert_eq!(l, b'A');
        assert!(d.abs() < 1e-6 && (o - 1.0).abs() < 1e-6);
    }
}
