//! The detector's features of a cell: channel means over boxes around it
//! ([`det_features`]), portable and with AVX2.

use super::integral::Entry;
#[cfg(target_arch = "x86_64")]
use super::integral::{FIELD_MASK, GRAD_SHIFT, MAX_EXACT_BOX_PX, SAT_SHIFT};
use super::{N_CHANNELS, Prepared};

/// Box half-widths (half-resolution px) at which detection features are taken;
/// they span die half-sizes of 5-17 half-res px (21-69 frame px) and beyond.
pub const RADII: [i64; 8] = [3, 4, 6, 8, 10, 13, 16, 20];

/// Radii (indices into [`RADII`]) at which left/right and top/bottom asymmetry
/// of the foreground is measured; a die centre is symmetric.
pub(super) const ASYM_RADII: [usize; 3] = [1, 3, 5];

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
    pub(super) fn new(w: usize) -> Self {
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
    #[cfg(target_arch = "x86_64")]
    use crate::vision::dice::cpu::Cpu;
    use crate::vision::dice::prep::prepare;
    use image::RgbImage;

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
}
