//! Face-crop features for the value classifier: a square crop around a die
//! candidate is resampled to a fixed grid and turned into polarity-free
//! "differs from the face colour" maps, so white-on-black and black-on-white
//! pips look alike.

use super::cpu::Cpu;
use image::RgbImage;

/// Side of the resampled crop grid (pips are about 4.7 cells wide).
pub const GRID: usize = 32;

// `sample_crop` takes the cells of a row two at a time on AVX2.
const _: () = assert!(GRID.is_multiple_of(2));

/// Margin (pixels) beyond the crop's exact reach that
/// `Bilinear::holds_crop` asks for: covers the float rounding of the
/// sub-sample coordinates, far below a pixel.
const INTERIOR_MARGIN: f32 = 2.0;

/// Side of the (2x2-averaged) maps fed to the classifier; coarser than
/// [`GRID`] so the classifier has fewer inputs to overfit on.
pub const MAP: usize = GRID / 2;

/// Maps per crop: colour distance to the face, signed luminance difference,
/// and the crop's R, G, B standardised within the crop.
pub const N_MAPS: usize = 5;

/// Number of crop features: the maps, a few scalars and the pip features.
pub const N_CROP_FEATURES: usize = N_MAPS * MAP * MAP + N_SCALARS + N_PIP_FEATURES;

/// Added to the per-crop colour standard deviation before dividing, so a
/// flat crop is not stretched into noise (0-255 units).
const RGB_STD_FLOOR: f32 = 12.0;

/// Pip-blob thresholds (centre-surround contrast in units of the crop contrast
/// normaliser) at which blobs are counted; several levels because faint pips
/// (gold on yellow) and strong ones (black on white) differ a lot.
const PIP_LEVELS: [f32; 4] = [0.2, 0.3, 0.45, 0.6];

/// Pip-blob thresholds relative to the strongest blob: the pips of one face
/// have about the same contrast, spurious blobs (texture, edges) are weaker.
const PIP_REL_LEVELS: [f32; 3] = [0.4, 0.55, 0.7];

/// Minimum absolute response for a blob to count at a relative level.
const PIP_REL_MIN: f32 = 0.1;

/// Blob counts are one-hot encoded over 0..PIP_COUNT_BINS-1 (the last bin
/// collects 7 and more).
const PIP_COUNT_BINS: usize = 8;

/// The strongest this many blob responses are fed to the classifier (sorted).
const PIP_TOP: usize = 9;

/// Pip features: counts per level (one-hot) and the sorted top responses.
const N_PIP_FEATURES: usize = (PIP_LEVELS.len() + PIP_REL_LEVELS.len()) * PIP_COUNT_BINS + PIP_TOP;

/// Blobs are only searched within this many grid cells of the crop centre
/// (the face is GRID / 1.15 = 28 cells wide, pips sit 7.4 cells off centre).
const PIP_SEARCH_HALF: f32 = 13.0;

/// A blob's surround ring must look like die face: its mean contrast to the
/// face colour (normalised) at most this, which rejects background and edges.
const BLOB_RING_MAX: f32 = 1.0;

/// Chebyshev radius of the blob centre (3x3) and of the surround ring (the
/// 9x9 border): the ring lies outside a pip but inside the spacing to the next.
const BLOB_INNER: i64 = 1;
/// See [`BLOB_INNER`].
const BLOB_RING: i64 = 4;

/// Cells in the blob centre square.
const BLOB_INNER_CELLS: f32 = ((2 * BLOB_INNER + 1) * (2 * BLOB_INNER + 1)) as f32;
/// Cells in the surround ring (border of the `2 BLOB_RING + 1` square).
const BLOB_RING_CELLS: f32 = (8 * BLOB_RING) as f32;

/// Blob maxima must beat all responses within this Chebyshev radius.
const BLOB_NMS: i64 = 4;

/// Side of the edge-replicated copy of the contrast map that
/// [`blob_responses`] reads (the ring reaches [`BLOB_RING`] cells past the
/// map).
const PADDED: usize = GRID + 2 * BLOB_RING as usize;

/// First and last grid index within [`PIP_SEARCH_HALF`] of the crop centre
/// (the same test per index as a scan over the whole grid).
fn search_range() -> (usize, usize) {
    let c = (GRID as f32 - 1.0) / 2.0;
    let inside = |x: usize| (x as f32 - c).abs() <= PIP_SEARCH_HALF;
    let lo = (0..GRID).find(|x| inside(*x)).unwrap_or(GRID);
    let hi = (0..GRID).rev().find(|x| inside(*x)).unwrap_or(0);
    (lo, hi)
}

/// Centre-surround responses of a `GRID x GRID` contrast map (`-inf` where
/// not searched or where the ring is not face-like). The map is copied with
/// its edges replicated (what clamped reads see), and each row of positions
/// is summed together, term by term in the order of a raster scan of the
/// window restricted to the centre square and the ring, so every position
/// gets the same float sums as that scan (tested bit for bit).
fn blob_responses(d: &[f32], cpu: Cpu) -> Vec<f32> {
    let mut resp = vec![f32::NEG_INFINITY; GRID * GRID];
    if d.len() != GRID * GRID {
        return resp;
    }
    let r = BLOB_RING as usize;
    let mut pad = [0f32; PADDED * PADDED];
    for (py, row) in pad.chunks_exact_mut(PADDED).enumerate() {
        let y = py.saturating_sub(r).min(GRID - 1);
        let src = &d[y * GRID..(y + 1) * GRID];
        let (left, rest) = row.split_at_mut(r);
        let (mid, right) = rest.split_at_mut(GRID);
        left.fill(src[0]);
        mid.copy_from_slice(src);
        right.fill(src[GRID - 1]);
    }
    let (lo, hi) = search_range();
    if lo > hi {
        return resp;
    }
    #[cfg(target_arch = "x86_64")]
    if cpu.avx {
        // SAFETY: `cpu.avx` says the CPU has AVX.
        unsafe { blob_rows_avx(&pad, lo, hi, &mut resp) };
        return resp;
    }
    blob_rows(&pad, lo, hi, &mut resp);
    resp
}

/// [`blob_rows`] with AVX intrinsics: each window row of positions is four
/// 8-lane registers, and every term is one `vaddps` of the padded row
/// shifted by `dx`, in the same order as [`blob_rows`] (the same float adds
/// per lane, so the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn blob_rows_avx(pad: &[f32; PADDED * PADDED], lo: usize, hi: usize, resp: &mut [f32]) {
    use std::arch::x86_64::{
        __m256, _mm256_add_ps, _mm256_loadu_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    /// Registers per row of positions.
    const REGS: usize = GRID / 8;
    const _: () = assert!(GRID.is_multiple_of(8), "whole registers per row");
    let (ni, no) = (BLOB_INNER_CELLS, BLOB_RING_CELLS);
    for y in lo..=hi.min(GRID - 1) {
        let mut inner: [__m256; REGS] = [_mm256_setzero_ps(); REGS];
        let mut outer: [__m256; REGS] = [_mm256_setzero_ps(); REGS];
        for dy in -BLOB_RING..=BLOB_RING {
            let py = (y as i64 + dy + BLOB_RING) as usize;
            let Ok(row) = <&[f32; PADDED]>::try_from(&pad[py * PADDED..(py + 1) * PADDED]) else {
                return;
            };
            // `acc[x] +=` the padded row at grid column `x + dx`.
            macro_rules! add {
                ($acc:expr, $dx:expr) => {
                    let start = ($dx + BLOB_RING) as usize;
                    for (j, a) in $acc.iter_mut().enumerate() {
                        // SAFETY: start + 8 j + 8 <= 2 BLOB_RING + GRID =
                        // PADDED for |dx| <= BLOB_RING and j < REGS.
                        let v = unsafe { _mm256_loadu_ps(row.as_ptr().add(start + 8 * j)) };
                        *a = _mm256_add_ps(*a, v);
                    }
                };
            }
            if dy.abs() == BLOB_RING {
                for dx in -BLOB_RING..=BLOB_RING {
                    add!(outer, dx);
                }
                continue;
            }
            add!(outer, -BLOB_RING);
            if dy.abs() <= BLOB_INNER {
                for dx in -BLOB_INNER..=BLOB_INNER {
                    add!(inner, dx);
                }
            }
            add!(outer, BLOB_RING);
        }
        let (mut iv, mut ov) = ([0f32; GRID], [0f32; GRID]);
        for j in 0..REGS {
            // SAFETY: 8 j + 8 <= GRID.
            unsafe {
                _mm256_storeu_ps(iv.as_mut_ptr().add(8 * j), inner[j]);
                _mm256_storeu_ps(ov.as_mut_ptr().add(8 * j), outer[j]);
            }
        }
        let out = &mut resp[y * GRID + lo..=y * GRID + hi];
        for ((o, i), s) in out.iter_mut().zip(&iv[lo..]).zip(&ov[lo..]) {
            if s / no <= BLOB_RING_MAX {
                *o = i / ni - s / no;
            }
        }
    }
}

/// The responses of grid rows `lo..=hi`, columns `lo..=hi`, into `resp`
/// from the edge-replicated map `pad`. Each row of positions is summed as
/// whole `GRID`-lane rows of the padded map (fixed length, so the adds
/// vectorise with the window offsets as constants; the lanes outside
/// `lo..=hi` are summed too and dropped), term by term in the order of a
/// raster scan of the window restricted to the centre square and the ring.
#[inline(always)]
fn blob_rows(pad: &[f32; PADDED * PADDED], lo: usize, hi: usize, resp: &mut [f32]) {
    /// `acc[x] +=` the padded row at grid column `x + dx`.
    #[inline(always)]
    fn add(acc: &mut [f32; GRID], row: &[f32; PADDED], dx: i64) {
        // 0 <= start and start + GRID <= PADDED for |dx| <= BLOB_RING.
        let start = (dx + BLOB_RING) as usize;
        if let Ok(src) = <&[f32; GRID]>::try_from(&row[start..start + GRID]) {
            for (a, v) in acc.iter_mut().zip(src) {
                *a += v;
            }
        }
    }
    let (ni, no) = (BLOB_INNER_CELLS, BLOB_RING_CELLS);
    for y in lo..=hi.min(GRID - 1) {
        let (mut inner, mut outer) = ([0f32; GRID], [0f32; GRID]);
        for dy in -BLOB_RING..=BLOB_RING {
            let py = (y as i64 + dy + BLOB_RING) as usize;
            let Ok(row) = <&[f32; PADDED]>::try_from(&pad[py * PADDED..(py + 1) * PADDED]) else {
                return;
            };
            if dy.abs() == BLOB_RING {
                for dx in -BLOB_RING..=BLOB_RING {
                    add(&mut outer, row, dx);
                }
                continue;
            }
            add(&mut outer, row, -BLOB_RING);
            if dy.abs() <= BLOB_INNER {
                for dx in -BLOB_INNER..=BLOB_INNER {
                    add(&mut inner, row, dx);
                }
            }
            add(&mut outer, row, BLOB_RING);
        }
        let out = &mut resp[y * GRID + lo..=y * GRID + hi];
        for ((o, i), s) in out.iter_mut().zip(&inner[lo..]).zip(&outer[lo..]) {
            if s / no <= BLOB_RING_MAX {
                *o = i / ni - s / no;
            }
        }
    }
}

/// The largest response within Chebyshev radius [`BLOB_NMS`] of each cell
/// (the cell included, the window clipped to the grid): a max filter along
/// rows, then along columns. With AVX when the CPU has it
/// ([`window_max_avx`]).
fn window_max(resp: &[f32], cpu: Cpu) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    if cpu.avx && resp.len() == GRID * GRID {
        // SAFETY: `cpu.avx` says the CPU has AVX.
        return unsafe { window_max_avx(resp) };
    }
    window_max_portable(resp)
}

/// [`window_max_portable`] with AVX, 8 cells per register: `max(v, acc)`
/// (`maxps`) over the same window. `maxps` and `f32::max` pick the same
/// value for inputs without NaN, which the responses never are (`-inf` or
/// finite), so the maxima equal the portable ones (tested bit for bit).
/// `resp` must hold `GRID * GRID` values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn window_max_avx(resp: &[f32]) -> Vec<f32> {
    use std::arch::x86_64::{_mm256_loadu_ps, _mm256_max_ps, _mm256_set1_ps, _mm256_storeu_ps};
    const R: usize = BLOB_NMS as usize;
    /// Registers per grid row.
    const REGS: usize = GRID / 8;
    let mut m = vec![f32::NEG_INFINITY; GRID * GRID];
    if resp.len() != GRID * GRID {
        return m;
    }
    let lowest = _mm256_set1_ps(f32::NEG_INFINITY);
    let mut rows = [f32::NEG_INFINITY; GRID * GRID];
    let mut line = [f32::NEG_INFINITY; GRID + 2 * R];
    for (src, out) in resp.chunks_exact(GRID).zip(rows.chunks_exact_mut(GRID)) {
        line[R..R + GRID].copy_from_slice(src);
        for j in 0..REGS {
            let mut acc = lowest;
            for k in 0..=2 * R {
                // SAFETY: 8 j + k + 8 <= GRID + 2 R = line.len().
                acc = _mm256_max_ps(
                    unsafe { _mm256_loadu_ps(line.as_ptr().add(8 * j + k)) },
                    acc,
                );
            }
            // SAFETY: 8 j + 8 <= GRID = out.len().
            unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(8 * j), acc) };
        }
    }
    for (y, out) in m.chunks_exact_mut(GRID).enumerate() {
        for j in 0..REGS {
            let mut acc = lowest;
            for ny in y.saturating_sub(R)..(y + R + 1).min(GRID) {
                // SAFETY: ny GRID + 8 j + 8 <= GRID^2 = rows.len().
                let v = unsafe { _mm256_loadu_ps(rows.as_ptr().add(ny * GRID + 8 * j)) };
                acc = _mm256_max_ps(v, acc);
            }
            // SAFETY: 8 j + 8 <= GRID = out.len().
            unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(8 * j), acc) };
        }
    }
    m
}

/// [`window_max`] without CPU-specific code.
fn window_max_portable(resp: &[f32]) -> Vec<f32> {
    const R: usize = BLOB_NMS as usize;
    let mut rows = vec![f32::NEG_INFINITY; GRID * GRID];
    let mut line = [f32::NEG_INFINITY; GRID + 2 * R];
    for (src, out) in resp.chunks_exact(GRID).zip(rows.chunks_exact_mut(GRID)) {
        line[R..R + GRID].copy_from_slice(src);
        for k in 0..=2 * R {
            for (o, v) in out.iter_mut().zip(&line[k..k + GRID]) {
                *o = o.max(*v);
            }
        }
    }
    let mut m = vec![f32::NEG_INFINITY; GRID * GRID];
    for (y, out) in m.chunks_exact_mut(GRID).enumerate() {
        for ny in y.saturating_sub(R)..(y + R + 1).min(GRID) {
            for (o, v) in out.iter_mut().zip(&rows[ny * GRID..(ny + 1) * GRID]) {
                *o = o.max(*v);
            }
        }
    }
    m
}

/// Centre-surround blob responses at local maxima (Chebyshev radius 2) of a
/// `GRID x GRID` contrast map, strongest first.
fn blob_peaks(d: &[f32], cpu: Cpu) -> Vec<f32> {
    let g = GRID as i64;
    let resp = blob_responses(d, cpu);
    let wmax = window_max(&resp, cpu);
    let mut peaks = Vec::new();
    // Responses outside the searched square are `-inf` and never peaks.
    let (lo, hi) = search_range();
    let (lo, hi) = (lo as i64, hi as i64);
    for y in lo..=hi {
        for x in lo..=hi {
            let v = resp[(y * g + x) as usize];
            // A larger response nearby rules the cell out at once; only a
            // cell that equals its window maximum needs the scan below (for
            // ties, where the first cell wins).
            // `v > 0 && v < inf`: finite and positive (false for NaN),
            // without `is_finite`'s bit tests.
            if !(v > 0.0 && v < f32::INFINITY) || wmax[(y * g + x) as usize] > v {
                continue;
            }
            let mut is_max = true;
            'n: for dy in -BLOB_NMS..=BLOB_NMS {
                for dx in -BLOB_NMS..=BLOB_NMS {
                    let (nx, ny) = (x + dx, y + dy);
                    if (dx, dy) == (0, 0) || nx < 0 || ny < 0 || nx >= g || ny >= g {
                        continue;
                    }
                    let k = (ny * g + nx) as usize;
                    let n = resp[k];
                    if n > v || (n == v && k < (y * g + x) as usize) {
                        is_max = false;
                        break 'n;
                    }
                }
            }
            if is_max {
                peaks.push(v);
            }
        }
    }
    peaks.sort_by(|a, b| b.total_cmp(a));
    peaks
}

/// Scalars appended after the maps: face R, G, B, contrast normaliser, size.
const N_SCALARS: usize = 5;

/// Floor on the contrast normaliser (0-255 colour distance units) so that a
/// flat crop (background, blank paper) is not stretched into noise.
const MIN_CONTRAST: f32 = 24.0;

/// Percentile of the core's colour distances used as contrast normaliser.
const NORM_PERCENTILE: f32 = 0.97;

/// Share of the crop side (centred) whose colour median is taken as the face
/// colour: the central part is face, pips cover well under half of it.
const FACE_CORE: f32 = 0.6;

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

/// Dominant edge orientation (radians, in [-pi/4, pi/4)) of the square die
/// face around `(cx, cy)` within a box of side `side`: the 4th power of the
/// gradient vector averages away round pips and keeps the square's edges.
///
/// Compiled for AVX when the CPU has it (8 divisions per instruction
/// instead of 4; the same operations per pixel and the same sums in the
/// same order, no fused multiply-add, so the same bits as
/// [`estimate_angle_portable`]).
pub fn estimate_angle(img: &RgbImage, cx: f32, cy: f32, side: f32, cpu: Cpu) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if cpu.avx {
        // SAFETY: `cpu.avx` says the CPU has AVX.
        return unsafe { estimate_angle_avx(img, cx, cy, side) };
    }
    estimate_angle_portable(img, cx, cy, side)
}

/// [`estimate_angle`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn estimate_angle_avx(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
    estimate_angle_body(img, cx, cy, side)
}

/// [`estimate_angle`] without CPU-specific code (SSE2 on x86_64).
pub fn estimate_angle_portable(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
    estimate_angle_body(img, cx, cy, side)
}

/// The body of [`estimate_angle`], inlined into each variant.
#[inline(always)]
fn estimate_angle_body(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let r = (side / 2.0).max(1.0);
    let x0 = ((cx - r).floor() as i64).max(1);
    let x1 = ((cx + r).ceil() as i64).min(w - 2);
    let y0 = ((cy - r).floor() as i64).max(1);
    let y1 = ((cy + r).ceil() as i64).min(h - 2);
    if x1 < x0 || y1 < y0 {
        return 0.0;
    }
    // Luminance (R + G + B, an exact integer in f32) of the box and its
    // one-pixel border, computed once per pixel instead of once per use.
    let raw = img.as_raw();
    let (bx0, by0) = (x0 - 1, y0 - 1);
    let bw = (x1 - x0 + 3) as usize;
    let bh = (y1 - y0 + 3) as usize;
    let mut lum = vec![0f32; bw * bh];
    for (j, row) in lum.chunks_exact_mut(bw).enumerate() {
        let o = (((by0 + j as i64) * w + bx0) * 3) as usize;
        for (l, p) in row.iter_mut().zip(raw[o..o + 3 * bw].chunks_exact(3)) {
            *l = p[0] as f32 + p[1] as f32 + p[2] as f32;
        }
    }
    let (mut sc, mut ss) = (0f64, 0f64);
    // Per row, the terms of all pixels first (no branch: vectorised, four
    // divisions per instruction), then their sums in pixel order. A pixel
    // without gradient adds +0.0 where it used to be skipped: the same sum,
    // as the sums start at +0.0 and so are never -0.0.
    let n = bw - 2;
    let (mut tc, mut td) = (vec![0f32; n], vec![0f32; n]);
    for j in 1..bh - 1 {
        let (up, row, dn) = (
            &lum[(j - 1) * bw + 1..j * bw - 1],
            &lum[j * bw..(j + 1) * bw],
            &lum[(j + 1) * bw + 1..(j + 2) * bw - 1],
        );
        // Equal lengths (n): no bounds checks in the loop.
        let (left, right) = (&row[..n], &row[2..n + 2]);
        let cols = tc.iter_mut().zip(td.iter_mut()).zip(left.iter().zip(right));
        for (((oc, od), (&l, &r)), (&u, &dw)) in cols.zip(up.iter().zip(dn)) {
            let gx = r - l;
            let gy = dw - u;
            let m2 = gx * gx + gy * gy;
            // g^2 = (gx^2 - gy^2, 2 gx gy); g^4 / |g|^2 keeps weight |g|^2.
            let (a, b) = (gx * gx - gy * gy, 2.0 * gx * gy);
            let (c, d) = (a * a - b * b, 2.0 * a * b);
            let (vc, vd) = (c / m2, d / m2);
            *oc = if m2 > 0.0 { vc } else { 0.0 };
            *od = if m2 > 0.0 { vd } else { 0.0 };
        }
        for (&c, &d) in tc.iter().zip(&td) {
            sc += c as f64;
            ss += d as f64;
        }
    }
    if sc == 0.0 && ss == 0.0 {
        return 0.0;
    }
    (ss.atan2(sc) / 4.0) as f32
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

/// Smallest ratio of face side to bounding-box side (a square at 45 degrees
/// has 1/sqrt(2) = 0.707); guards against a wrong angle estimate.
const MIN_FACE_RATIO: f32 = 0.72;

/// Face-aligned crop of a die whose axis-aligned box has side `box_side`:
/// estimates the face angle, converts the box side to the face side and samples
/// a crop of `scale` times that side, on the SIMD paths `cpu` allows. Returns
/// the cells and the crop side.
pub fn aligned_crop(
    img: &RgbImage,
    cx: f32,
    cy: f32,
    box_side: f32,
    scale: f32,
    angle_jitter: f32,
    cpu: Cpu,
) -> (Vec<[f32; 3]>, f32) {
    let a = estimate_angle(img, cx, cy, box_side, cpu);
    let ratio = (1.0 / (a.cos().abs() + a.sin().abs())).max(MIN_FACE_RATIO);
    let side = box_side * ratio * scale;
    (sample_crop(img, cx, cy, side, a + angle_jitter, cpu), side)
}

/// Transform index 0..8 of the dihedral group applied to coordinates of a
/// `MAP x MAP` map.
pub fn dihedral(t: usize, x: usize, y: usize) -> (usize, usize) {
    let m = MAP - 1;
    let (x, y) = if t & 4 != 0 { (m - x, y) } else { (x, y) };
    match t & 3 {
        0 => (x, y),
        1 => (m - y, x),
        2 => (m - x, m - y),
        _ => (y, m - x),
    }
}

/// The features of the same crop under dihedral transform `t`, from the
/// untransformed features `f0` (`crop_features(.., 0)`): the maps are
/// permuted, the scalars are transform-invariant. Equal to
/// `crop_features(cells, side, t)` but much cheaper.
pub fn transform_features(f0: &[f32], t: usize) -> Vec<f32> {
    let mut out = Vec::new();
    transform_features_into(f0, t, &mut out);
    out
}

/// [`transform_features`] into a reusable buffer: the map permutation is
/// tabled once per call and applied to every map.
pub fn transform_features_into(f0: &[f32], t: usize, out: &mut Vec<f32>) {
    out.clear();
    out.extend_from_slice(f0);
    if t == 0 || f0.len() != N_CROP_FEATURES {
        return;
    }
    let n = MAP * MAP;
    let mut dst = [0usize; MAP * MAP];
    for (k, d) in dst.iter_mut().enumerate() {
        let (tx, ty) = dihedral(t, k % MAP, k / MAP);
        *d = ty * MAP + tx;
    }
    for (src, o) in f0[..N_MAPS * n]
        .chunks_exact(n)
        .zip(out.chunks_exact_mut(n))
    {
        for (v, &d) in src.iter().zip(&dst) {
            o[d] = *v;
        }
    }
}

/// Number of pip-count levels in a crop feature vector (absolute, then
/// relative to the strongest blob).
pub const N_PIP_COUNTS: usize = PIP_LEVELS.len() + PIP_REL_LEVELS.len();

/// The pip-blob counts (0-7, 7 = seven or more) stored one-hot in a crop
/// feature vector, per level (see [`N_PIP_COUNTS`]).
pub fn pip_counts(f: &[f32]) -> [usize; N_PIP_COUNTS] {
    let base = N_MAPS * MAP * MAP + N_SCALARS;
    let mut out = [0usize; N_PIP_COUNTS];
    for (l, o) in out.iter_mut().enumerate() {
        let s = base + l * PIP_COUNT_BINS;
        if let Some(bins) = f.get(s..s + PIP_COUNT_BINS) {
            *o = bins.iter().position(|v| *v > 0.5).unwrap_or(0);
        }
    }
    out
}

/// The face colour (RGB 0-255) stored in a crop feature vector.
pub fn face_colour(f: &[f32]) -> [f32; 3] {
    let sb = N_MAPS * MAP * MAP;
    match f.get(sb..sb + 3) {
        Some(v) => [v[0] * 255.0, v[1] * 255.0, v[2] * 255.0],
        None => [0.0; 3],
    }
}

/// `f` of the cells of the square `[lo, hi)^2` of the `GRID x GRID` grid
/// `grid`, row by row: one allocation and a slice per row (collecting a
/// `flat_map` over the rows cost more than the selection itself).
fn core_values<T>(grid: &[T], lo: usize, hi: usize, f: impl Fn(&T) -> f32) -> Vec<f32> {
    let mut v = Vec::with_capacity(hi.saturating_sub(lo).pow(2));
    for y in lo..hi {
        if let Some(row) = grid.get(y * GRID + lo..y * GRID + hi) {
            v.extend(row.iter().map(&f));
        }
    }
    v
}

/// `x`'s position in [`f32::total_cmp`]'s order as an unsigned key (the
/// same bit transform `total_cmp` makes, with the sign bit flipped so that
/// unsigned order is that order).
fn total_key(x: f32) -> u32 {
    let b = x.to_bits() as i32;
    ((b ^ ((((b >> 31) as u32) >> 1) as i32)) as u32) ^ 0x8000_0000
}

/// The value whose [`total_key`] is `key` (the transform is its own
/// inverse once the sign bit is restored).
fn from_total_key(key: u32) -> f32 {
    let t = (key ^ 0x8000_0000) as i32;
    f32::from_bits((t ^ ((((t >> 31) as u32) >> 1) as i32)) as u32)
}

/// The value `select_nth_unstable_by(k, f32::total_cmp)` leaves at index `k`
/// (the `k`-th smallest in the total order; the last value if `k` is out of
/// range, NaN if `v` is empty), by a radix select on [`total_key`]: four
/// byte-wide counting passes, each keeping only the values in the byte
/// bucket where the `k`-th one lies. Values equal in the total order have the
/// same bits, so the result is the same value as the selection's, in about a
/// fifth of its instructions for the 400-value crop cores.
fn kth_total_order(v: &[f32], k: usize) -> f32 {
    if v.is_empty() {
        return f32::NAN;
    }
    let mut k = k.min(v.len() - 1);
    let mut keys: Vec<u32> = v.iter().map(|&x| total_key(x)).collect();
    for shift in [24u32, 16, 8, 0] {
        let byte = |key: u32| ((key >> shift) & 0xff) as usize;
        let mut hist = [0usize; 256];
        for &key in &keys {
            hist[byte(key)] += 1;
        }
        let mut b = 0;
        while b < 255 && k >= hist[b] {
            k -= hist[b];
            b += 1;
        }
        // The keys in bucket `b`, in order (what `retain` keeps), moved
        // without a branch per key: each key is written at the next free
        // place, which advances only when the key is kept.
        let mut kept = 0;
        for i in 0..keys.len() {
            let key = keys[i];
            keys[kept] = key;
            kept += (byte(key) == b) as usize;
        }
        keys.truncate(kept);
    }
    keys.first().map_or(f32::NAN, |&key| from_total_key(key))
}

/// Crop features from a sampled crop (see [`sample_crop`]), after applying the
/// dihedral transform `t` (0 = identity; others are for training augmentation),
/// on the SIMD paths `cpu` allows.
///
/// Compiled for AVX when the CPU has it (wider vector loops; the same float
/// operations in the same order, no fused multiply-add, so the same bits as
/// [`crop_features_portable`]).
pub fn crop_features(cells: &[[f32; 3]], side: f32, t: usize, cpu: Cpu) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    if cpu.avx {
        // SAFETY: `cpu.avx` says the CPU has AVX.
        return unsafe { crop_features_avx(cells, side, t, cpu) };
    }
    crop_features_portable(cells, side, t)
}

/// [`crop_features`] compiled for AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn crop_features_avx(cells: &[[f32; 3]], side: f32, t: usize, cpu: Cpu) -> Vec<f32> {
    crop_features_body(cells, side, t, cpu)
}

/// [`crop_features`] without CPU-specific code (SSE2 on x86_64).
pub fn crop_features_portable(cells: &[[f32; 3]], side: f32, t: usize) -> Vec<f32> {
    crop_features_body(cells, side, t, Cpu::portable())
}

/// The body of [`crop_features`], inlined into each variant.
#[inline(always)]
fn crop_features_body(cells: &[[f32; 3]], side: f32, t: usize, cpu: Cpu) -> Vec<f32> {
    let mut out = vec![0f32; N_CROP_FEATURES];
    if cells.len() != GRID * GRID {
        return out;
    }
    // Face colour: per-channel median of the central core.
    let lo = ((1.0 - FACE_CORE) / 2.0 * GRID as f32) as usize;
    let hi = GRID - lo;
    let mut face = [0f32; 3];
    for (c, f) in face.iter_mut().enumerate() {
        let v = core_values(cells, lo, hi, |p| p[c]);
        *f = kth_total_order(&v, v.len() / 2);
    }
    let face_l = (face[0] + face[1] + face[2]) / 3.0;
    let dist: Vec<f32> = cells
        .iter()
        .map(|p| {
            (p[0] - face[0])
                .abs()
                .max((p[1] - face[1]).abs())
                .max((p[2] - face[2]).abs())
        })
        .collect();
    // Contrast normaliser: a high percentile of the distance inside the core,
    // which lands on pips even for the single pip of a 1.
    let core = core_values(&dist, lo, hi, |d| *d);
    let k = ((core.len() as f32 * NORM_PERCENTILE) as usize).min(core.len().saturating_sub(1));
    let norm = kth_total_order(&core, k).max(MIN_CONTRAST);
    let n = MAP * MAP;
    let dmap: Vec<f32> = dist.iter().map(|d| (d / norm).min(2.0)).collect();
    let mut mean = [0f32; 3];
    let mut sq = [0f32; 3];
    for p in cells {
        for c in 0..3 {
            mean[c] += p[c];
            sq[c] += p[c] * p[c];
        }
    }
    let cnt = cells.len() as f32;
    let mut inv_std = [0f32; 3];
    for c in 0..3 {
        mean[c] /= cnt;
        let var = (sq[c] / cnt - mean[c] * mean[c]).max(0.0);
        inv_std[c] = 1.0 / (var.sqrt() + RGB_STD_FLOOR);
    }
    for y in 0..MAP {
        for x in 0..MAP {
            let (tx, ty) = dihedral(t, x, y);
            let dst = ty * MAP + tx;
            let (mut dsum, mut lsum) = (0f32, 0f32);
            let mut rgb = [0f32; 3];
            for (sx, sy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let src = (2 * y + sy) * GRID + 2 * x + sx;
                let p = cells[src];
                dsum += dmap[src];
                lsum += ((p[0] + p[1] + p[2]) / 3.0 - face_l) / norm;
                for c in 0..3 {
                    rgb[c] += p[c];
                }
            }
            out[dst] = dsum / 4.0;
            out[n + dst] = (lsum / 4.0).clamp(-2.0, 2.0);
            for c in 0..3 {
                out[(2 + c) * n + dst] = (rgb[c] / 4.0 - mean[c]) * inv_std[c];
            }
        }
    }
    let sb = N_MAPS * n;
    out[sb] = face[0] / 255.0;
    out[sb + 1] = face[1] / 255.0;
    out[sb + 2] = face[2] / 255.0;
    out[sb + 3] = norm / 100.0;
    out[sb + 4] = side / 50.0;
    let peaks = blob_peaks(&dmap, cpu);
    let base = sb + N_SCALARS;
    for (li, level) in PIP_LEVELS.iter().enumerate() {
        let cnt = peaks
            .iter()
            .filter(|p| **p >= *level)
            .count()
            .min(PIP_COUNT_BINS - 1);
        out[base + li * PIP_COUNT_BINS + cnt] = 1.0;
    }
    let base = base + PIP_LEVELS.len() * PIP_COUNT_BINS;
    let top = peaks.first().copied().unwrap_or(0.0);
    for (li, rel) in PIP_REL_LEVELS.iter().enumerate() {
        let t = (rel * top).max(PIP_REL_MIN);
        let cnt = peaks
            .iter()
            .filter(|p| **p >= t)
            .count()
            .min(PIP_COUNT_BINS - 1);
        out[base + li * PIP_COUNT_BINS + cnt] = 1.0;
    }
    let base = base + PIP_REL_LEVELS.len() * PIP_COUNT_BINS;
    for (k, p) in peaks.iter().take(PIP_TOP).enumerate() {
        out[base + k] = *p;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bit patterns of `v` (for bit-for-bit comparisons).
    fn bits(v: &[f32]) -> Vec<u32> {
        v.iter().map(|f| f.to_bits()).collect()
    }

    #[test]
    fn radix_select_matches_selection() {
        let mut rng = 4242u32;
        let mut next = || {
            rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            rng
        };
        let special = [
            0.0f32,
            -0.0,
            1.5,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MIN_POSITIVE,
            255.0,
        ];
        for len in [1usize, 2, 3, 17, 100, 400] {
            for mode in 0..3 {
                let v: Vec<f32> = (0..len)
                    .map(|_| match mode {
                        // Crop-like values: few distinct, many ties.
                        0 => (next() >> 16) as f32 % 7.0 * 0.25,
                        1 => f32::from_bits(next()),
                        _ => special[(next() >> 16) as usize % special.len()],
                    })
                    .collect();
                for k in 0..len {
                    let mut w = v.clone();
                    w.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
                    let got = kth_total_order(&v, k);
                    assert_eq!(got.to_bits(), w[k].to_bits(), "len {len} mode {mode} k {k}");
                }
            }
        }
    }

    #[test]
    fn counts_synthetic_pips() {
        // A white face with five black pips in the usual pattern.
        let mut img = RgbImage::from_pixel(60, 60, image::Rgb([235; 3]));
        for (px, py) in [(20, 20), (40, 20), (30, 30), (20, 40), (40, 40)] {
            for y in py - 3..=py + 3 {
                for x in px - 3..=px + 3 {
                    img.put_pixel(x, y, image::Rgb([15; 3]));
                }
            }
        }
        let cells = sample_crop(&img, 30.0, 30.0, 42.0, 0.0, Cpu::detect());
        let f = crop_features(&cells, 42.0, 0, Cpu::detect());
        let base = N_MAPS * MAP * MAP + N_SCALARS + PIP_LEVELS.len() * PIP_COUNT_BINS;
        // Relative level 0.55: exactly five blobs.
        assert_eq!(f[base + PIP_COUNT_BINS + 5], 1.0);
    }

    #[test]
    fn transform_features_matches_direct() {
        let img = RgbImage::from_fn(50, 50, |x, y| {
            image::Rgb([(x * 5) as u8, (y * 5) as u8, ((x * y) % 256) as u8])
        });
        let cells = sample_crop(&img, 25.0, 25.0, 40.0, 0.2, Cpu::detect());
        let f0 = crop_features(&cells, 40.0, 0, Cpu::detect());
        for t in 0..8 {
            assert_eq!(
                transform_features(&f0, t),
                crop_features(&cells, 40.0, t, Cpu::detect())
            );
        }
    }

    /// The reference centre-surround response: a full raster scan of the
    /// window, as in the fitted model's definition.
    fn naive_response(d: &[f32], x: i64, y: i64) -> (f32, f32) {
        let g = GRID as i64;
        let at = |x: i64, y: i64| d[(y.clamp(0, g - 1) * g + x.clamp(0, g - 1)) as usize];
        let (mut inner, mut outer, mut ni, mut no) = (0f32, 0f32, 0f32, 0f32);
        for dy in -BLOB_RING..=BLOB_RING {
            for dx in -BLOB_RING..=BLOB_RING {
                let r = dx.abs().max(dy.abs());
                if r <= BLOB_INNER {
                    inner += at(x + dx, y + dy);
                    ni += 1.0;
                } else if r == BLOB_RING {
                    outer += at(x + dx, y + dy);
                    no += 1.0;
                }
            }
        }
        (inner / ni - outer / no, outer / no)
    }

    /// The AVX-compiled crop features and face angle equal the portable
    /// ones bit for bit (random crops, flat and noisy, every transform).
    #[test]
    fn avx_crop_features_and_angle_match_portable() {
        if !Cpu::detect().avx {
            eprintln!("skipped: this CPU has no AVX");
            return;
        }
        let mut rng = crate::vision::dice::mlp::XorShift::new(17);
        for round in 0..12 {
            let cells: Vec<[f32; 3]> = (0..GRID * GRID)
                .map(|_| match round % 3 {
                    0 => [rng.unit() * 255.0, rng.unit() * 255.0, rng.unit() * 255.0],
                    1 => [200.0, 190.0, 180.0],
                    _ => {
                        let v = if rng.unit() < 0.2 { 30.0 } else { 220.0 };
                        [v, v * 0.9, v * 0.8]
                    }
                })
                .collect();
            for t in 0..8 {
                let want = crop_features_portable(&cells, 37.0, t);
                // SAFETY: the CPU reports AVX (checked above).
                let got = unsafe { crop_features_avx(&cells, 37.0, t, Cpu::detect()) };
                assert_eq!(bits(&want), bits(&got), "round {round} transform {t}");
            }
        }
        let img = RgbImage::from_fn(96, 80, |x, y| {
            let v = ((x * 7 + y * 13) % 50) as u8 + if (x / 9 + y / 11) % 2 == 0 { 150 } else { 0 };
            image::Rgb([v, v.wrapping_mul(3), 255 - v])
        });
        for (cx, cy, side) in [(40.0, 40.0, 30.0), (10.5, 70.2, 50.0), (90.0, 5.0, 12.0)] {
            let want = estimate_angle_portable(&img, cx, cy, side);
            // SAFETY: the CPU reports AVX (checked above).
            let got = unsafe { estimate_angle_avx(&img, cx, cy, side) };
            assert_eq!(want.to_bits(), got.to_bits());
        }
    }

    /// The AVX window maxima equal the portable ones bit for bit.
    #[test]
    fn window_max_avx_matches_portable() {
        if !Cpu::detect().avx {
            eprintln!("skipped: this CPU has no AVX");
            return;
        }
        let mut rng = crate::vision::dice::mlp::XorShift::new(13);
        for round in 0..10 {
            let resp: Vec<f32> = (0..GRID * GRID)
                .map(|_| match (rng.unit() * 4.0) as usize {
                    0 => f32::NEG_INFINITY,
                    _ if round % 2 == 0 => rng.normal(),
                    _ => (rng.unit() * 3.0).floor() * 0.5,
                })
                .collect();
            let want = window_max_portable(&resp);
            // SAFETY: the CPU reports AVX (checked above).
            let got = unsafe { window_max_avx(&resp) };
            assert_eq!(bits(&want), bits(&got));
        }
    }

    /// The AVX-compiled blob responses equal the portable ones bit for bit.
    #[test]
    fn blob_rows_avx_match_portable() {
        if !Cpu::detect().avx {
            eprintln!("skipped: this CPU has no AVX");
            return;
        }
        let mut rng = crate::vision::dice::mlp::XorShift::new(9);
        let (lo, hi) = search_range();
        for _ in 0..10 {
            let mut pad = [0f32; PADDED * PADDED];
            pad.iter_mut().for_each(|v| *v = rng.unit() * 2.0);
            let mut want = vec![f32::NEG_INFINITY; GRID * GRID];
            let mut got = want.clone();
            blob_rows(&pad, lo, hi, &mut want);
            // SAFETY: the CPU reports AVX (checked above).
            unsafe { blob_rows_avx(&pad, lo, hi, &mut got) };
            assert_eq!(bits(&want), bits(&got));
        }
    }

    #[test]
    fn blob_peaks_match_full_window_scan() {
        let mut rng = crate::vision::dice::mlp::XorShift::new(3);
        for round in 0..40 {
            // Half the maps coarsely quantised, so that equal responses
            // (ties in the local-maximum test) occur.
            let d: Vec<f32> = (0..GRID * GRID)
                .map(|_| match round % 2 {
                    0 => rng.unit() * 1.3,
                    _ => (rng.unit() * 3.0).floor() * 0.5,
                })
                .collect();
            let c = (GRID as f32 - 1.0) / 2.0;
            let g = GRID as i64;
            let mut want = Vec::new();
            let mut resp = vec![f32::NEG_INFINITY; GRID * GRID];
            for y in 0..g {
                for x in 0..g {
                    if (x as f32 - c).abs() <= PIP_SEARCH_HALF
                        && (y as f32 - c).abs() <= PIP_SEARCH_HALF
                    {
                        let (r, ring) = naive_response(&d, x, y);
                        if ring <= BLOB_RING_MAX {
                            resp[(y * g + x) as usize] = r;
                        }
                    }
                }
            }
            for y in 0..g {
                for x in 0..g {
                    let v = resp[(y * g + x) as usize];
                    if !v.is_finite() || v <= 0.0 {
                        continue;
                    }
                    let beaten = (-BLOB_NMS..=BLOB_NMS).any(|dy| {
                        (-BLOB_NMS..=BLOB_NMS).any(|dx| {
                            let (nx, ny) = (x + dx, y + dy);
                            if (dx, dy) == (0, 0) || nx < 0 || ny < 0 || nx >= g || ny >= g {
                                return false;
                            }
                            let k = (ny * g + nx) as usize;
                            resp[k] > v || (resp[k] == v && k < (y * g + x) as usize)
                        })
                    });
                    if !beaten {
                        want.push(v);
                    }
                }
            }
            want.sort_by(|a, b| b.total_cmp(a));
            assert_eq!(blob_peaks(&d, Cpu::detect()), want);
        }
    }

    #[test]
    fn dihedral_is_permutation() {
        for t in 0..8 {
            let mut seen = [false; MAP * MAP];
            for y in 0..MAP {
                for x in 0..MAP {
                    let (a, b) = dihedral(t, x, y);
                    seen[b * MAP + a] = true;
                }
            }
            assert!(seen.iter().all(|s| *s));
        }
    }

    #[test]
    fn polarity_free() {
        // White die with a black pip vs black die with a white pip give the same map.
        let mk = |face: u8, pip: u8| {
            let mut img = RgbImage::from_pixel(40, 40, image::Rgb([face; 3]));
            for y in 17..23 {
                for x in 17..23 {
                    img.put_pixel(x, y, image::Rgb([pip; 3]));
                }
            }
            let cells = sample_crop(&img, 20.0, 20.0, 36.0, 0.0, Cpu::detect());
            crop_features(&cells, 36.0, 0, Cpu::detect())
        };
        let a = mk(240, 20);
        let b = mk(20, 240);
        let n = MAP * MAP;
        for i in 0..n {
            assert!((a[i] - b[i]).abs() < 1e-3);
        }
    }

    #[test]
    fn angle_of_rotated_square() {
        let mut img = RgbImage::from_pixel(80, 80, image::Rgb([200; 3]));
        let t = 0.3f32;
        // Anti-aliased (4x4 supersampled) like a real photo; a hard staircase
        // edge would bias the gradient directions towards the pixel axes.
        for y in 0..80 {
            for x in 0..80 {
                let mut cover = 0.0;
                for sy in 0..4 {
                    for sx in 0..4 {
                        let u = x as f32 + (sx as f32 + 0.5) / 4.0 - 40.0;
                        let v = y as f32 + (sy as f32 + 0.5) / 4.0 - 40.0;
                        let (a, b) = (u * t.cos() + v * t.sin(), -u * t.sin() + v * t.cos());
                        if a.abs() < 15.0 && b.abs() < 15.0 {
                            cover += 1.0 / 16.0;
                        }
                    }
                }
                let mix = |bg: f32, fg: f32| (bg * (1.0 - cover) + fg * cover) as u8;
                img.put_pixel(
                    x,
                    y,
                    image::Rgb([mix(200.0, 30.0), mix(200.0, 30.0), mix(200.0, 160.0)]),
                );
            }
        }
        let a = estimate_angle(&img, 40.0, 40.0, 50.0, Cpu::detect());
        // Within 0.1 rad (the crop classifier is fitted with +-0.125 rad jitter).
        assert!((a - t).abs() < 0.1, "{a}");
    }

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

    /// The angle as computed before the luminance was buffered (four
    /// luminance sums per pixel): the reference for `estimate_angle`.
    fn estimate_angle_reference(img: &RgbImage, cx: f32, cy: f32, side: f32) -> f32 {
        let (w, h) = (img.width() as i64, img.height() as i64);
        let r = (side / 2.0).max(1.0);
        let x0 = ((cx - r).floor() as i64).max(1);
        let x1 = ((cx + r).ceil() as i64).min(w - 2);
        let y0 = ((cy - r).floor() as i64).max(1);
        let y1 = ((cy + r).ceil() as i64).min(h - 2);
        let raw = img.as_raw();
        let lum = |x: i64, y: i64| {
            let o = ((y * w + x) * 3) as usize;
            raw[o] as f32 + raw[o + 1] as f32 + raw[o + 2] as f32
        };
        let (mut sc, mut ss) = (0f64, 0f64);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let gx = lum(x + 1, y) - lum(x - 1, y);
                let gy = lum(x, y + 1) - lum(x, y - 1);
                let m2 = gx * gx + gy * gy;
                if m2 > 0.0 {
                    let (a, b) = (gx * gx - gy * gy, 2.0 * gx * gy);
                    let (c, d) = (a * a - b * b, 2.0 * a * b);
                    sc += (c / m2) as f64;
                    ss += (d / m2) as f64;
                }
            }
        }
        if sc == 0.0 && ss == 0.0 {
            return 0.0;
        }
        (ss.atan2(sc) / 4.0) as f32
    }

    #[test]
    fn angle_matches_reference_bit_for_bit() {
        let img = RgbImage::from_fn(41, 33, |x, y| {
            image::Rgb([
                (x * 11 % 256) as u8,
                (y * 23 % 256) as u8,
                ((x * y * 7) % 256) as u8,
            ])
        });
        for (cx, cy, side) in [
            (20.0, 16.0, 18.0),
            (1.0, 2.0, 30.0),
            (39.5, 31.2, 12.0),
            (-20.0, 5.0, 10.0),
            (20.0, 16.0, 200.0),
        ] {
            assert_eq!(
                estimate_angle(&img, cx, cy, side, Cpu::detect()).to_bits(),
                estimate_angle_reference(&img, cx, cy, side).to_bits()
            );
        }
        // Mostly flat (pixels without gradient, whose terms are now summed
        // as +0.0), with a tilted bright square and an all-flat crop.
        let flat = RgbImage::from_fn(48, 40, |x, y| {
            let (u, v) = (x as i32 - 24, y as i32 - 20);
            let inside = (u + v / 3).abs() < 8 && (v - u / 3).abs() < 8;
            image::Rgb(if inside {
                [230, 220, 210]
            } else {
                [60, 60, 60]
            })
        });
        for (cx, cy, side) in [(24.0, 20.0, 30.0), (20.0, 18.0, 12.0), (5.0, 5.0, 6.0)] {
            assert_eq!(
                estimate_angle(&flat, cx, cy, side, Cpu::detect()).to_bits(),
                estimate_angle_reference(&flat, cx, cy, side).to_bits()
            );
        }
        assert_eq!(estimate_angle(&flat, 5.0, 5.0, 6.0, Cpu::detect()), 0.0);
    }

    #[test]
    fn out_of_image_crop_is_finite() {
        let img = RgbImage::new(3, 2);
        let cells = sample_crop(&img, -50.0, 100.0, 40.0, 0.3, Cpu::detect());
        assert!(
            crop_features(&cells, 40.0, 3, Cpu::detect())
                .iter()
                .all(|v| v.is_finite())
        );
    }
}
