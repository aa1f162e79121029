//! Pip blobs: centre-surround responses of the crop's contrast map and
//! their local maxima, strongest first.

use super::GRID;
use crate::vision::dice::cpu::Cpu;

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
pub(super) fn blob_peaks(d: &[f32], cpu: Cpu) -> Vec<f32> {
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

#[cfg(test)]
mod tests {
    use super::super::bits;
    use super::*;

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
}
