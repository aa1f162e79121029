//! The face classifier: a tiny convolutional network on the five 16x16 face
//! maps of [`super::crop`] (two 3x3 convolutions, 2x2 max-pooling), whose pooled
//! output is joined with the crop's scalar and pip features and classified by
//! an [`Mlp`] head into "not a die" or 1-6. Convolutions share weights across
//! positions, which generalises far better across die styles than a dense
//! layer on raw maps. Fitting (SGD with momentum) is here too.

use super::cpu::Cpu;
use super::crop::{MAP, N_MAPS};
use super::mlp::{Mlp, TrainOptions, XorShift, softmax};

/// Input map channels (see [`super::crop::N_MAPS`]).
pub const IN_CH: usize = N_MAPS;
/// Channels of the first convolution of the default (shipped) width; a
/// model file carries its own widths (see [`FaceNet::new_with_widths`]).
pub const C1: usize = 8;
/// Channels of the second convolution of the default (shipped) width.
pub const C2: usize = 16;
/// Widest convolution accepted (guards against absurd allocations and
/// fits that would take days on the fitting machine).
pub const MAX_WIDTH: usize = 128;
/// Side of the pooled map.
const POOLED: usize = MAP / 2;
/// Pooled outputs per channel of the second convolution.
const POOLED_PER_CHANNEL: usize = POOLED * POOLED;
/// Number of map inputs at the start of a crop feature vector.
pub const MAP_INPUTS: usize = IN_CH * MAP * MAP;
/// Side of a zero-padded map (one zero cell around `MAP x MAP`), the input
/// layout of [`Conv::forward_body`].
const PAD: usize = MAP + 2;

/// A batch whose mean gradient is longer than this multiple of the running
/// mean length is scaled down to it. Without it, momentum SGD on the face
/// classifier had loss spikes (0.28 -> 0.31, 0.31 -> 0.41) and once diverged to
/// a constant output (a fixed-epoch fit has no tune snapshot to fall back on).
const CLIP_FACTOR: f64 = 3.0;
/// Weight of the newest (clipped) batch in the running mean gradient length
/// (about a 100-batch window; an epoch has about 560 batches).
const CLIP_EMA: f64 = 0.01;
/// Batches before clipping starts; the running mean is a plain mean until
/// then, so the first, large gradients of a fresh network are not clipped.
const CLIP_WARMUP: usize = 50;

/// Gradient-norm clipping relative to the recent gradient lengths (the
/// scale of the gradients changes during training, a fixed norm would not).
#[derive(Default)]
struct GradClip {
    /// Running mean length of the applied (clipped) batch gradients.
    mean: f64,
    /// Batches seen.
    seen: usize,
    /// Batches clipped since the last [`Self::take_clipped`].
    clipped: usize,
}

impl GradClip {
    /// Factor to apply to a batch gradient of length `norm`, updating the
    /// running mean with the clipped length.
    fn factor(&mut self, norm: f64) -> f64 {
        if !norm.is_finite() {
            // Skip the step rather than poison the weights.
            self.clipped += 1;
            return 0.0;
        }
        let limit = CLIP_FACTOR * self.mean;
        let (f, applied) = if self.seen >= CLIP_WARMUP && norm > limit {
            self.clipped += 1;
            (limit / norm, limit)
        } else {
            (1.0, norm)
        };
        self.seen += 1;
        if self.seen <= CLIP_WARMUP {
            self.mean += (applied - self.mean) / self.seen as f64;
        } else {
            self.mean += CLIP_EMA * (applied - self.mean);
        }
        f
    }

    /// Clipped batches since the last call.
    fn take_clipped(&mut self) -> usize {
        std::mem::take(&mut self.clipped)
    }
}

/// Euclidean length of the gradient `grads` times `scale`.
fn grad_norm(grads: &[Vec<f32>], scale: f32) -> f64 {
    let sq: f64 = grads
        .iter()
        .flatten()
        .map(|g| {
            let v = (g * scale) as f64;
            v * v
        })
        .sum();
    sq.sqrt()
}

/// Copy `MAP x MAP` planes into the interiors of the `PAD x PAD` planes of
/// `pad` (the borders are left as they are: zero).
fn fill_padded(x: &[f32], pad: &mut [f32]) {
    for (src, dst) in x
        .chunks_exact(MAP * MAP)
        .zip(pad.chunks_exact_mut(PAD * PAD))
    {
        for (s, d) in src.chunks_exact(MAP).zip(dst[PAD..].chunks_exact_mut(PAD)) {
            d[1..1 + MAP].copy_from_slice(s);
        }
    }
}

/// For each dihedral transform `t` (the numbering of
/// [`super::crop::dihedral`]) and map cell `y * MAP + x`, the index in a
/// zero-padded `PAD x PAD` plane where the transformed map has that cell's
/// value: the interior cell of `dihedral(t, x, y)`.
const PADDED_DIHEDRAL: [[u16; MAP * MAP]; 8] = padded_dihedral();

/// [`PADDED_DIHEDRAL`], worked out at compile time (the formula of
/// [`super::crop::dihedral`]; a test compares them).
const fn padded_dihedral() -> [[u16; MAP * MAP]; 8] {
    let m = MAP - 1;
    let mut table = [[0u16; MAP * MAP]; 8];
    let mut t = 0;
    while t < 8 {
        let mut k = 0;
        while k < MAP * MAP {
            let (mut x, y) = (k % MAP, k / MAP);
            if t & 4 != 0 {
                x = m - x;
            }
            let (tx, ty) = match t & 3 {
                0 => (x, y),
                1 => (m - y, x),
                2 => (m - x, m - y),
                _ => (y, m - x),
            };
            table[t][k] = ((ty + 1) * PAD + tx + 1) as u16;
            k += 1;
        }
        t += 1;
    }
    table
}

/// [`fill_padded`] of the maps under dihedral transform `t` (0..8): the
/// values [`super::crop::transform_features`] moves, written straight into
/// the padded planes.
fn fill_padded_transformed(x: &[f32], t: usize, pad: &mut [f32]) {
    let table = &PADDED_DIHEDRAL[t & 7];
    for (src, dst) in x
        .chunks_exact(MAP * MAP)
        .zip(pad.chunks_exact_mut(PAD * PAD))
    {
        for (v, &d) in src.iter().zip(table) {
            // SAFETY: every table entry is below PAD^2 = dst.len()
            // (checked at compile time below).
            unsafe { *dst.get_unchecked_mut(d as usize) = *v };
        }
    }
}

/// Every [`PADDED_DIHEDRAL`] entry indexes a `PAD x PAD` plane (what
/// [`fill_padded_transformed`] relies on).
const _: () = {
    let mut t = 0;
    while t < 8 {
        let mut k = 0;
        while k < MAP * MAP {
            assert!((PADDED_DIHEDRAL[t][k] as usize) < PAD * PAD);
            k += 1;
        }
        t += 1;
    }
};

/// A 3x3 convolution with zero padding (same size output).
#[derive(Debug, Clone, PartialEq)]
pub struct Conv {
    /// Input channels.
    pub cin: usize,
    /// Output channels.
    pub cout: usize,
    /// Weights `[cout][cin][3][3]`.
    pub w: Vec<f32>,
    /// Biases `[cout]`.
    pub b: Vec<f32>,
}

impl Conv {
    fn new(cin: usize, cout: usize, rng: &mut XorShift) -> Self {
        let s = (2.0 / (cin * 9) as f32).sqrt();
        Self {
            cin,
            cout,
            w: (0..cout * cin * 9).map(|_| rng.normal() * s).collect(),
            b: vec![0.0; cout],
        }
    }

    /// Shapes agree and all values are finite.
    pub fn is_consistent(&self) -> bool {
        self.w.len() == self.cout * self.cin * 9
            && self.b.len() == self.cout
            && self.w.iter().chain(&self.b).all(|v| v.is_finite())
    }

    /// ReLU(conv(x)) on `MAP x MAP` maps, with AVX when the CPU has it: the
    /// same multiplies and adds in the same order, 8 lanes per instruction
    /// instead of 4 and no fused multiply-add, so the same bits.
    fn forward(&self, x: &[f32], out: &mut [f32]) {
        let mut pad = vec![0f32; self.cin * PAD * PAD];
        fill_padded(x, &mut pad);
        #[cfg(target_arch = "x86_64")]
        if Cpu::detect().avx {
            // SAFETY: only called when the CPU reports AVX.
            return unsafe { self.forward_avx_rows4(&pad, out, MAP, 0) };
        }
        self.forward_portable(&pad, out)
    }

    /// Whether the buffers hold what the SIMD kernels index without bounds
    /// checks (they skip the work rather than read out of range).
    fn simd_shapes_ok(&self, pad: &[f32], out: &[f32], stride: usize, off: usize) -> bool {
        let (cin, cout) = (self.cin, self.cout);
        pad.len() >= cin * PAD * PAD
            && self.w.len() >= cout * cin * 9
            && self.b.len() >= cout
            && off + MAP <= stride
            && out.len() >= cout * stride * stride
    }

    /// [`Self::forward_body`] with AVX (8-float registers), four output
    /// rows at a time (eight accumulators, so each broadcast weight serves
    /// eight registers), each multiply reading its input straight from memory
    /// (inline assembly: left to itself the compiler shares the loads of an
    /// input row between the output rows that use it and then runs out of
    /// registers). Per output value the same multiplies and adds in the
    /// same order as the portable code (bias, input channel, ky, kx; no
    /// fused multiply-add), so the same bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn forward_avx_rows4(&self, pad: &[f32], out: &mut [f32], stride: usize, off: usize) {
        use std::arch::asm;
        use std::arch::x86_64::{
            __m256, _mm256_add_ps, _mm256_max_ps, _mm256_set1_ps, _mm256_setzero_ps,
            _mm256_storeu_ps,
        };
        const S: usize = MAP;
        /// Output rows per pass.
        const ROWS: usize = 4;
        const _: () = assert!(
            MAP == 16 && MAP.is_multiple_of(ROWS),
            "two 8-lane registers per row"
        );
        let (cin, cout) = (self.cin, self.cout);
        if !self.simd_shapes_ok(pad, out, stride, off) {
            return;
        }
        let zero = _mm256_setzero_ps();
        for o in 0..cout {
            let bias = _mm256_set1_ps(self.b[o]);
            let wo = &self.w[o * cin * 9..(o + 1) * cin * 9];
            for y in (0..S).step_by(ROWS) {
                let mut acc = [[bias; 2]; ROWS];
                for (c, wk) in wo.chunks_exact(9).enumerate() {
                    // SAFETY: the reads reach `base + (ROWS + 1) PAD + 2 +
                    // 15` floats past `base = c PAD^2 + y PAD`, that is at
                    // most (cin - 1) PAD^2 + (S + 1) PAD + 17 < cin PAD^2 <=
                    // pad.len() (checked above).
                    let p = unsafe { pad.as_ptr().add(c * PAD * PAD + y * PAD) };
                    // `acc[r][h] += w * pad[base + (r + ky) PAD + kx + 8 h]`.
                    macro_rules! tap {
                        ($w:expr, $ky:literal, $kx:literal, $r:literal, $h:literal) => {{
                            let m: __m256;
                            // SAFETY: in bounds (see above); AVX is enabled.
                            unsafe {
                                asm!(
                                    "vmulps {m}, {w}, ymmword ptr [{p} + {d}]",
                                    m = lateout(ymm_reg) m,
                                    w = in(ymm_reg) $w,
                                    p = in(reg) p,
                                    d = const (($r + $ky) * PAD + $kx + 8 * $h) * 4,
                                    options(pure, readonly, nostack, preserves_flags),
                                );
                            }
                            acc[$r][$h] = _mm256_add_ps(acc[$r][$h], m);
                        }};
                    }
                    macro_rules! weight {
                        ($ky:literal, $kx:literal) => {{
                            let w = _mm256_set1_ps(wk[$ky * 3 + $kx]);
                            tap!(w, $ky, $kx, 0, 0);
                            tap!(w, $ky, $kx, 0, 1);
                            tap!(w, $ky, $kx, 1, 0);
                            tap!(w, $ky, $kx, 1, 1);
                            tap!(w, $ky, $kx, 2, 0);
                            tap!(w, $ky, $kx, 2, 1);
                            tap!(w, $ky, $kx, 3, 0);
                            tap!(w, $ky, $kx, 3, 1);
                        }};
                    }
                    weight!(0, 0);
                    weight!(0, 1);
                    weight!(0, 2);
                    weight!(1, 0);
                    weight!(1, 1);
                    weight!(1, 2);
                    weight!(2, 0);
                    weight!(2, 1);
                    weight!(2, 2);
                }
                for (r, a) in acc.iter().enumerate() {
                    let d = o * stride * stride + (y + r + off) * stride + off;
                    // SAFETY: d + 15 < cout stride^2 <= out.len() (checked
                    // above: off + S <= stride).
                    unsafe {
                        let q = out.as_mut_ptr().add(d);
                        _mm256_storeu_ps(q, _mm256_max_ps(a[0], zero));
                        _mm256_storeu_ps(q.add(8), _mm256_max_ps(a[1], zero));
                    }
                }
            }
        }
    }

    /// [`Self::forward_avx_rows4`] with AVX-512 (16-float registers, one output
    /// row each), four output rows at a time so each broadcast weight serves
    /// four registers. Per output value the same multiplies and adds in the
    /// same order as the portable code (no fused multiply-add), so the same
    /// bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn forward_avx512(&self, pad: &[f32], out: &mut [f32], stride: usize, off: usize) {
        use std::arch::x86_64::{
            _mm512_add_ps, _mm512_loadu_ps, _mm512_max_ps, _mm512_mul_ps, _mm512_set1_ps,
            _mm512_setzero_ps, _mm512_storeu_ps,
        };
        const S: usize = MAP;
        /// Output rows per pass.
        const ROWS: usize = 4;
        const _: () = assert!(
            MAP == 16 && MAP.is_multiple_of(ROWS),
            "one 16-lane register per row"
        );
        let (cin, cout) = (self.cin, self.cout);
        if !self.simd_shapes_ok(pad, out, stride, off) {
            return;
        }
        let zero = _mm512_setzero_ps();
        for o in 0..cout {
            let bias = _mm512_set1_ps(self.b[o]);
            let wo = &self.w[o * cin * 9..(o + 1) * cin * 9];
            for y in (0..S).step_by(ROWS) {
                let mut acc = [bias; ROWS];
                for (c, wk) in wo.chunks_exact(9).enumerate() {
                    for ky in 0..3 {
                        let r0 = c * PAD * PAD + (y + ky) * PAD;
                        for kx in 0..3 {
                            let w = _mm512_set1_ps(wk[ky * 3 + kx]);
                            for (k, a) in acc.iter_mut().enumerate() {
                                // SAFETY: r0 + (ROWS - 1) PAD + kx + 15 <=
                                // (cin - 1) PAD^2 + (S + 1) PAD + 17 <
                                // cin PAD^2 <= pad.len() (checked above).
                                let v =
                                    unsafe { _mm512_loadu_ps(pad.as_ptr().add(r0 + k * PAD + kx)) };
                                *a = _mm512_add_ps(*a, _mm512_mul_ps(w, v));
                            }
                        }
                    }
                }
                for (k, a) in acc.iter().enumerate() {
                    let d = o * stride * stride + (y + k + off) * stride + off;
                    // SAFETY: d + 15 < cout stride^2 <= out.len() (checked
                    // above: off + S <= stride).
                    unsafe { _mm512_storeu_ps(out.as_mut_ptr().add(d), _mm512_max_ps(*a, zero)) };
                }
            }
        }
    }

    /// [`Self::forward`] without CPU-specific code (SSE2 on x86_64), on the
    /// zero-padded input.
    fn forward_portable(&self, pad: &[f32], out: &mut [f32]) {
        self.forward_body(pad, out, MAP, 0)
    }

    /// [`Self::forward_body`] without CPU-specific code, for tests.
    #[cfg(test)]
    fn forward_portable_into(&self, pad: &[f32], out: &mut [f32], stride: usize, off: usize) {
        self.forward_body(pad, out, stride, off)
    }

    /// ReLU(conv) of the zero-padded input planes `pad` (`cin` planes of
    /// `PAD x PAD`, zero border) into `out`, whose planes are `stride x
    /// stride` with the `MAP x MAP` result at offset `(off, off)` (so the
    /// output can land straight in the interior of the next layer's padded
    /// buffer). Every output row is a fixed-length multiply-accumulate over
    /// `MAP` lanes held in registers; the additions per output value happen
    /// in the order (bias, input channel, ky, kx).
    #[inline(always)]
    fn forward_body(&self, pad: &[f32], out: &mut [f32], stride: usize, off: usize) {
        const S: usize = MAP;
        let cin = self.cin;
        if pad.len() < cin * PAD * PAD || out.len() < self.cout * stride * stride {
            return;
        }
        for (o, (wo, &bias)) in self.w.chunks_exact(cin * 9).zip(&self.b).enumerate() {
            for y in 0..S {
                let mut acc = [bias; S];
                for (plane, wk) in pad.chunks_exact(PAD * PAD).zip(wo.chunks_exact(9)) {
                    for ky in 0..3 {
                        let row: &[f32; PAD] =
                            match plane[(y + ky) * PAD..(y + ky + 1) * PAD].try_into() {
                                Ok(r) => r,
                                Err(_) => return,
                            };
                        for kx in 0..3 {
                            let wv = wk[ky * 3 + kx];
                            for i in 0..S {
                                acc[i] += wv * row[kx + i];
                            }
                        }
                    }
                }
                let start = o * stride * stride + (y + off) * stride + off;
                for (d, a) in out[start..start + S].iter_mut().zip(acc) {
                    *d = a.max(0.0);
                }
            }
        }
    }

    /// Backward through ReLU(conv): `dz` holds dL/d(output) and is masked in place
    /// by the ReLU; accumulates weight gradients and (optionally) input gradients.
    fn backward(
        &self,
        x: &[f32],
        out: &[f32],
        dz: &mut [f32],
        gw: &mut [f32],
        gb: &mut [f32],
        mut dx: Option<&mut [f32]>,
    ) {
        let s = MAP;
        for (d, o) in dz.iter_mut().zip(out) {
            if *o <= 0.0 {
                *d = 0.0;
            }
        }
        if let Some(dx) = dx.as_deref_mut() {
            dx.iter_mut().for_each(|v| *v = 0.0);
        }
        for o in 0..self.cout {
            let dplane = &dz[o * s * s..(o + 1) * s * s];
            gb[o] += dplane.iter().sum::<f32>();
            for c in 0..self.cin {
                let inp = &x[c * s * s..(c + 1) * s * s];
                let base = (o * self.cin + c) * 9;
                for ky in 0..3 {
                    for kx in 0..3 {
                        let y0 = (1isize - ky as isize).max(0) as usize;
                        let y1 = (s as isize + 1 - ky as isize).min(s as isize) as usize;
                        let x0 = (1isize - kx as isize).max(0) as usize;
                        let x1 = (s as isize + 1 - kx as isize).min(s as isize) as usize;
                        let mut g = 0.0;
                        let wv = self.w[base + ky * 3 + kx];
                        for y in y0..y1 {
                            let iy = y + ky - 1;
                            let drow = &dplane[y * s + x0..y * s + x1];
                            let irow = &inp[iy * s + x0 + kx - 1..iy * s + x1 + kx - 1];
                            for (dv, iv) in drow.iter().zip(irow) {
                                g += dv * iv;
                            }
                            if let Some(dx) = dx.as_deref_mut() {
                                let xrow = &mut dx[c * s * s + iy * s + x0 + kx - 1
                                    ..c * s * s + iy * s + x1 + kx - 1];
                                for (xv, dv) in xrow.iter_mut().zip(drow) {
                                    *xv += wv * dv;
                                }
                            }
                        }
                        gw[base + ky * 3 + kx] += g;
                    }
                }
            }
        }
    }
}

/// Dot product with 8 independent partial sums (lets the compiler use SIMD).
#[inline(always)]
fn dot8(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for ((s, p), q) in acc.iter_mut().zip(x).zip(y) {
            *s += p * q;
        }
    }
    let mut tail = 0f32;
    for (x, y) in ra.iter().zip(rb) {
        tail += x * y;
    }
    acc.iter().sum::<f32>() + tail
}

/// 2x2 max-pooling of the second convolution's output `a2` (one `MAP x MAP`
/// plane per channel) into `pooled`, standardised with `means` and `scales`
/// (all as long as `pooled`: [`FaceNet::conv_out`]). The first of equal
/// values wins, as in `FaceNet::conv_part` (the same comparisons in the same
/// order).
#[inline(always)]
fn pool_portable(a2: &[f32], means: &[f32], scales: &[f32], pooled: &mut [f32]) {
    for (((dst, m), s), (r0, r1)) in pooled
        .chunks_exact_mut(POOLED)
        .zip(means.chunks_exact(POOLED))
        .zip(scales.chunks_exact(POOLED))
        .zip(a2.chunks_exact(2 * MAP).map(|r| r.split_at(MAP)))
    {
        for px in 0..POOLED {
            let mut best = f32::NEG_INFINITY;
            for v in [r0[2 * px], r0[2 * px + 1], r1[2 * px], r1[2 * px + 1]] {
                if v > best {
                    best = v;
                }
            }
            dst[px] = (best - m[px]) * s[px];
        }
    }
}

/// [`pool_portable`] with AVX, one pooled row of 8 per register: the even
/// and odd columns of both input rows are separated by lane permutes and
/// shuffles, then `best = max(v, best)` over the four in the same order
/// as the scalar `if v > best { best = v }` (`maxps` returns its first
/// operand exactly when it is greater, so the same value, NaN and signed
/// zeros included), then the same subtraction and multiplication.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn pool_avx(a2: &[f32], means: &[f32], scales: &[f32], pooled: &mut [f32]) {
    use std::arch::x86_64::{
        __m256, _mm256_loadu_ps, _mm256_max_ps, _mm256_mul_ps, _mm256_permute2f128_ps,
        _mm256_set1_ps, _mm256_shuffle_ps, _mm256_storeu_ps, _mm256_sub_ps,
    };
    const _: () = assert!(POOLED == 8 && MAP == 16, "one register per pooled row");
    let n = pooled.len();
    let rows = n / POOLED;
    if !n.is_multiple_of(POOLED) || a2.len() < rows * 2 * MAP || means.len() < n || scales.len() < n
    {
        return;
    }
    /// Even and odd columns of the 16 values at `p`, in column order.
    ///
    /// # Safety
    /// `p..p + 16` must be readable; the CPU must have AVX.
    #[inline(always)]
    unsafe fn even_odd(p: *const f32) -> (__m256, __m256) {
        // SAFETY: as the caller promises.
        unsafe {
            let (a, b) = (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8)));
            // [0..4 | 8..12] and [4..8 | 12..16].
            let (lo, hi) = (
                _mm256_permute2f128_ps::<0x20>(a, b),
                _mm256_permute2f128_ps::<0x31>(a, b),
            );
            (
                _mm256_shuffle_ps::<0b10_00_10_00>(lo, hi),
                _mm256_shuffle_ps::<0b11_01_11_01>(lo, hi),
            )
        }
    }
    let lowest = _mm256_set1_ps(f32::NEG_INFINITY);
    for k in 0..rows {
        let o = k * POOLED;
        // SAFETY: AVX is enabled; the loads read a2[2 MAP k..2 MAP (k + 1)]
        // and means / scales / pooled [o..o + 8], all in bounds (checked
        // above).
        unsafe {
            let src = a2.as_ptr().add(k * 2 * MAP);
            let (v0, v1) = even_odd(src);
            let (v2, v3) = even_odd(src.add(MAP));
            let mut best = _mm256_max_ps(v0, lowest);
            best = _mm256_max_ps(v1, best);
            best = _mm256_max_ps(v2, best);
            best = _mm256_max_ps(v3, best);
            let m = _mm256_loadu_ps(means.as_ptr().add(o));
            let s = _mm256_loadu_ps(scales.as_ptr().add(o));
            _mm256_storeu_ps(
                pooled.as_mut_ptr().add(o),
                _mm256_mul_ps(_mm256_sub_ps(best, m), s),
            );
        }
    }
}

/// [`dot8`] of `a0` and of `a1` with the same `b`, with AVX intrinsics:
/// per lane the same multiplies and adds in the same order as [`dot8`]'s
/// 8 partial sums, which are then summed as there (so the same bits). The
/// two dot products share the loads of `b` and give the CPU two
/// independent chains of adds.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn dot8x2_avx(a0: &[f32], a1: &[f32], b: &[f32]) -> (f32, f32) {
    use std::arch::x86_64::{
        _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    let n = a0.len().min(a1.len()).min(b.len());
    let whole = n - n % 8;
    let (mut s0, mut s1) = (_mm256_setzero_ps(), _mm256_setzero_ps());
    for i in (0..whole).step_by(8) {
        // SAFETY: i + 8 <= whole <= the length of each slice.
        unsafe {
            let y = _mm256_loadu_ps(b.as_ptr().add(i));
            s0 = _mm256_add_ps(s0, _mm256_mul_ps(_mm256_loadu_ps(a0.as_ptr().add(i)), y));
            s1 = _mm256_add_ps(s1, _mm256_mul_ps(_mm256_loadu_ps(a1.as_ptr().add(i)), y));
        }
    }
    let (mut l0, mut l1) = ([0f32; 8], [0f32; 8]);
    // SAFETY: each array holds 8 floats.
    unsafe {
        _mm256_storeu_ps(l0.as_mut_ptr(), s0);
        _mm256_storeu_ps(l1.as_mut_ptr(), s1);
    }
    let (mut t0, mut t1) = (0f32, 0f32);
    for ((x0, x1), y) in a0[whole..n].iter().zip(&a1[whole..n]).zip(&b[whole..n]) {
        t0 += x0 * y;
        t1 += x1 * y;
    }
    (l0.iter().sum::<f32>() + t0, l1.iter().sum::<f32>() + t1)
}

/// [`dot8`] of each of `a` with the same `b`, with AVX intrinsics: per
/// lane the same multiplies and adds in the same order as [`dot8`]'s 8
/// partial sums, which are then summed as there (so the same bits). The
/// four dot products share each load of `b`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn dot8x4_avx(a: [&[f32]; 4], b: &[f32]) -> [f32; 4] {
    use std::arch::x86_64::{
        _mm256_add_ps, _mm256_loadu_ps, _mm256_mul_ps, _mm256_setzero_ps, _mm256_storeu_ps,
    };
    let n = a.iter().map(|x| x.len()).fold(b.len(), usize::min);
    let whole = n - n % 8;
    let mut s = [_mm256_setzero_ps(); 4];
    for i in (0..whole).step_by(8) {
        // SAFETY: i + 8 <= whole <= the length of each slice.
        unsafe {
            let y = _mm256_loadu_ps(b.as_ptr().add(i));
            for (sk, ak) in s.iter_mut().zip(a) {
                *sk = _mm256_add_ps(*sk, _mm256_mul_ps(_mm256_loadu_ps(ak.as_ptr().add(i)), y));
            }
        }
    }
    let mut out = [0f32; 4];
    for ((o, sk), ak) in out.iter_mut().zip(s).zip(a) {
        let mut lanes = [0f32; 8];
        // SAFETY: the array holds 8 floats.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), sk) };
        let mut tail = 0f32;
        for (x, y) in ak[whole..n].iter().zip(&b[whole..n]) {
            tail += x * y;
        }
        *o = lanes.iter().sum::<f32>() + tail;
    }
    out
}

/// The face classifier network.
#[derive(Debug, Clone, PartialEq)]
pub struct FaceNet {
    /// First convolution (IN_CH -> its width, [`C1`] by default).
    pub conv1: Conv,
    /// Second convolution (conv1's width -> its own, [`C2`] by default),
    /// followed by 2x2 max-pooling.
    pub conv2: Conv,
    /// Classifier head on `[pooled conv output, scalar crop features]`.
    pub head: Mlp,
}

/// Scratch buffers for one forward pass.
struct Scratch {
    a1: Vec<f32>,
    a2: Vec<f32>,
    arg: Vec<usize>,
    hin: Vec<f32>,
}

impl Scratch {
    fn new(net: &FaceNet) -> Self {
        Self {
            a1: vec![0.0; net.conv1.cout * MAP * MAP],
            a2: vec![0.0; net.conv2.cout * MAP * MAP],
            arg: vec![0; net.conv_out()],
            hin: vec![0.0; net.head.n_in],
        }
    }
}

/// Reusable buffers for [`FaceNet::forward_with`] (inference only): the
/// padded inputs of both convolutions (their borders stay zero), the second
/// convolution's output, the standardised head input and the hidden layer.
#[derive(Debug, Clone)]
pub struct FaceScratch {
    /// SIMD paths (detected once, when the scratch is made).
    cpu: Cpu,
    pad1: Vec<f32>,
    pad2: Vec<f32>,
    a2: Vec<f32>,
    xs: Vec<f32>,
    hid: Vec<f32>,
}

impl Default for FaceScratch {
    fn default() -> Self {
        Self::with_cpu(Cpu::detect())
    }
}

impl FaceScratch {
    /// Buffers for a net run on the SIMD paths `cpu` allows (at most what
    /// the CPU has).
    pub fn with_cpu(cpu: Cpu) -> Self {
        Self {
            cpu,
            pad1: vec![0.0; IN_CH * PAD * PAD],
            pad2: vec![0.0; C1 * PAD * PAD],
            a2: vec![0.0; C2 * MAP * MAP],
            xs: Vec::new(),
            hid: Vec::new(),
        }
    }

    /// Grows the convolution buffers for `net`'s widths (sized for the
    /// default widths when made). New cells are zero, so the padded input's
    /// border stays zero; the interiors are overwritten by every pass.
    fn fit_to(&mut self, net: &FaceNet) {
        let (c1, c2) = (net.conv1.cout, net.conv2.cout);
        if self.pad2.len() < c1 * PAD * PAD {
            self.pad2.resize(c1 * PAD * PAD, 0.0);
        }
        if self.a2.len() < c2 * MAP * MAP {
            self.a2.resize(c2 * MAP * MAP, 0.0);
        }
    }
}

impl FaceNet {
    /// The trainable parameter vectors, weights and biases alternating (the
    /// head's input standardisation is fixed during training and not
    /// included).
    pub(crate) fn params(&self) -> [&Vec<f32>; 8] {
        [
            &self.conv1.w,
            &self.conv1.b,
            &self.conv2.w,
            &self.conv2.b,
            &self.head.w1,
            &self.head.b1,
            &self.head.w2,
            &self.head.b2,
        ]
    }

    /// Mutable [`Self::params`], in the same order.
    pub(crate) fn params_mut(&mut self) -> [&mut Vec<f32>; 8] {
        [
            &mut self.conv1.w,
            &mut self.conv1.b,
            &mut self.conv2.w,
            &mut self.conv2.b,
            &mut self.head.w1,
            &mut self.head.b1,
            &mut self.head.w2,
            &mut self.head.b2,
        ]
    }

    /// Randomly initialised network of the default widths ([`C1`], [`C2`])
    /// for crop vectors of length `n_features`.
    pub fn new(n_features: usize, hidden: usize, n_out: usize, rng: &mut XorShift) -> Self {
        Self::new_with_widths(n_features, (C1, C2), hidden, n_out, rng)
    }

    /// [`Self::new`] with `widths` = (conv1, conv2) output channels. The
    /// random draws are in the same order for any widths, so the default
    /// widths give exactly the network of [`Self::new`].
    pub fn new_with_widths(
        n_features: usize,
        widths: (usize, usize),
        hidden: usize,
        n_out: usize,
        rng: &mut XorShift,
    ) -> Self {
        let (c1, c2) = widths;
        let n_scalars = n_features.saturating_sub(MAP_INPUTS);
        Self {
            conv1: Conv::new(IN_CH, c1, rng),
            conv2: Conv::new(c1, c2, rng),
            head: Mlp::new(c2 * POOLED_PER_CHANNEL + n_scalars, hidden, n_out, rng),
        }
    }

    /// Whether `widths` = (conv1, conv2) channels are ones a net may have.
    pub fn widths_ok(widths: (usize, usize)) -> bool {
        (1..=MAX_WIDTH).contains(&widths.0) && (1..=MAX_WIDTH).contains(&widths.1)
    }

    /// Output channels of the two convolutions.
    pub fn widths(&self) -> (usize, usize) {
        (self.conv1.cout, self.conv2.cout)
    }

    /// Length of the pooled, flattened convolution output (the first head
    /// inputs).
    pub fn conv_out(&self) -> usize {
        self.conv2.cout * POOLED_PER_CHANNEL
    }

    /// Shapes agree and all values are finite.
    pub fn is_consistent(&self) -> bool {
        self.conv1.is_consistent()
            && self.conv2.is_consistent()
            && Self::widths_ok(self.widths())
            && self.conv1.cin == IN_CH
            && self.conv2.cin == self.conv1.cout
            && self.head.is_consistent()
            && self.head.n_in >= self.conv_out()
    }

    /// Number of crop features this network expects.
    pub fn n_features(&self) -> usize {
        MAP_INPUTS + self.head.n_in.saturating_sub(self.conv_out())
    }

    fn conv_part(&self, f: &[f32], sc: &mut Scratch) {
        self.conv1.forward(&f[..MAP_INPUTS], &mut sc.a1);
        self.conv2.forward(&sc.a1, &mut sc.a2);
        let conv_out = self.conv_out();
        for c in 0..self.conv2.cout {
            for py in 0..POOLED {
                for px in 0..POOLED {
                    let mut best = f32::NEG_INFINITY;
                    let mut bi = 0;
                    for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                        let i = c * MAP * MAP + (2 * py + dy) * MAP + 2 * px + dx;
                        if sc.a2[i] > best {
                            best = sc.a2[i];
                            bi = i;
                        }
                    }
                    let k = c * POOLED * POOLED + py * POOLED + px;
                    sc.hin[k] = best;
                    sc.arg[k] = bi;
                }
            }
        }
        let n = self.head.n_in - conv_out;
        sc.hin[conv_out..].copy_from_slice(&f[MAP_INPUTS..MAP_INPUTS + n]);
    }

    /// Output logits for a crop feature vector (wrong length -> all zeros).
    /// Allocates its buffers; [`Self::forward_with`] reuses them.
    pub fn forward(&self, f: &[f32]) -> Vec<f32> {
        let mut out = Vec::new();
        self.forward_with(f, &mut FaceScratch::default(), &mut out);
        out
    }

    /// [`Self::forward`] into `out`, with reusable buffers `sc`. Uses AVX
    /// when the CPU has it: the same multiplies and adds in the same order,
    /// 8 lanes per instruction instead of 4 and no fused multiply-add, so the
    /// same bits as the portable code.
    pub fn forward_with(&self, f: &[f32], sc: &mut FaceScratch, out: &mut Vec<f32>) {
        out.clear();
        if f.len() != self.n_features() {
            out.resize(self.head.n_out, 0.0);
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if sc.cpu.avx {
            // SAFETY: `cpu.avx` says the CPU has AVX.
            return unsafe { self.infer_avx(f, sc, out) };
        }
        self.infer_portable(f, sc, out)
    }

    /// [`Self::forward_with`] of the crop features `f0` under dihedral
    /// transform `t` (0..8): the same output as `forward_with` on
    /// [`super::crop::transform_features`]`(f0, t)`, with the maps moved
    /// straight into the padded input (the scalars are transform-invariant).
    pub fn forward_transformed_with(
        &self,
        f0: &[f32],
        t: usize,
        sc: &mut FaceScratch,
        out: &mut Vec<f32>,
    ) {
        out.clear();
        if f0.len() != self.n_features() || t >= 8 {
            out.resize(self.head.n_out, 0.0);
            return;
        }
        // `transform_features` leaves vectors of another length as they
        // are.
        let t = if f0.len() == super::crop::N_CROP_FEATURES {
            t
        } else {
            0
        };
        sc.fit_to(self);
        fill_padded_transformed(&f0[..MAP_INPUTS], t, &mut sc.pad1);
        #[cfg(target_arch = "x86_64")]
        if sc.cpu.avx {
            // SAFETY: `cpu.avx` says the CPU has AVX.
            return unsafe { self.infer_filled_avx(f0, sc, out) };
        }
        self.infer_filled_portable(f0, sc, out)
    }

    /// [`Self::forward_with`] compiled for AVX (8-float registers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn infer_avx(&self, f: &[f32], sc: &mut FaceScratch, out: &mut Vec<f32>) {
        sc.fit_to(self);
        fill_padded(&f[..MAP_INPUTS], &mut sc.pad1);
        self.infer_filled_avx(f, sc, out)
    }

    /// [`Self::infer_avx`] after the padded input is filled.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn infer_filled_avx(&self, f: &[f32], sc: &mut FaceScratch, out: &mut Vec<f32>) {
        if sc.cpu.avx512 {
            // SAFETY: `cpu.avx512` says the CPU has AVX-512F (and VL).
            unsafe {
                self.conv1.forward_avx512(&sc.pad1, &mut sc.pad2, PAD, 1);
                self.conv2.forward_avx512(&sc.pad2, &mut sc.a2, MAP, 0);
            }
        } else {
            self.conv1.forward_avx_rows4(&sc.pad1, &mut sc.pad2, PAD, 1);
            self.conv2.forward_avx_rows4(&sc.pad2, &mut sc.a2, MAP, 0);
        }
        self.head_body(f, sc, out)
    }

    /// [`Self::forward_with`] without CPU-specific code (SSE2 on x86_64).
    fn infer_portable(&self, f: &[f32], sc: &mut FaceScratch, out: &mut Vec<f32>) {
        sc.fit_to(self);
        fill_padded(&f[..MAP_INPUTS], &mut sc.pad1);
        self.infer_filled_portable(f, sc, out)
    }

    /// [`Self::infer_portable`] after the padded input is filled.
    fn infer_filled_portable(&self, f: &[f32], sc: &mut FaceScratch, out: &mut Vec<f32>) {
        self.conv1.forward_body(&sc.pad1, &mut sc.pad2, PAD, 1);
        self.conv2.forward_body(&sc.pad2, &mut sc.a2, MAP, 0);
        self.head_body(f, sc, out)
    }

    /// Pooling and head of the inference pass on a feature vector of the
    /// right length, after the convolutions (conv1 writes straight into
    /// conv2's padded input, conv2 into `sc.a2`): the pooled maps are
    /// standardised as they are pooled (no argmax: that is for training),
    /// and the head sums with 8-lane partial sums (equal to
    /// `self.head.forward` up to float rounding).
    #[inline(always)]
    fn head_body(&self, f: &[f32], sc: &mut FaceScratch, out: &mut Vec<f32>) {
        let h = &self.head;
        // Every element is overwritten below: no clearing.
        sc.xs.resize(h.n_in, 0.0);
        let conv_out = self.conv_out();
        let (pooled, scalars) = sc.xs.split_at_mut(conv_out);
        // 2x2 max-pooling, the first of equal values winning as in
        // `conv_part` (the same comparisons in the same order).
        let (means, scales) = (&h.in_mean[..conv_out], &h.in_scale[..conv_out]);
        #[cfg(target_arch = "x86_64")]
        if sc.cpu.avx {
            // SAFETY: `cpu.avx` says the CPU has AVX.
            unsafe { pool_avx(&sc.a2, means, scales, pooled) };
        } else {
            pool_portable(&sc.a2, means, scales, pooled);
        }
        #[cfg(not(target_arch = "x86_64"))]
        pool_portable(&sc.a2, means, scales, pooled);
        let src = &f[MAP_INPUTS..MAP_INPUTS + scalars.len()];
        for (((x, v), m), s) in scalars
            .iter_mut()
            .zip(src)
            .zip(&h.in_mean[conv_out..])
            .zip(&h.in_scale[conv_out..])
        {
            *x = (v - m) * s;
        }
        // Plain loops rather than `extend(map(..))`, so that the dot
        // products are compiled inline (with AVX in `infer_avx`).
        sc.hid.resize(h.n_hidden, 0.0);
        let n_in = h.n_in.max(1);
        let mut done = 0;
        #[cfg(target_arch = "x86_64")]
        if sc.cpu.avx {
            // Hidden units four at a time (one load of the input per
            // four), then two at a time.
            let quads = sc.hid.chunks_exact_mut(4);
            for ((d, w), b) in quads
                .zip(h.w1.chunks_exact(4 * n_in))
                .zip(h.b1.chunks_exact(4))
            {
                let (w01, w23) = w.split_at(2 * n_in);
                let ((w0, w1), (w2, w3)) = (w01.split_at(n_in), w23.split_at(n_in));
                // SAFETY: `cpu.avx` says the CPU has AVX.
                let s = unsafe { dot8x4_avx([w0, w1, w2, w3], &sc.xs) };
                for ((dk, bk), sk) in d.iter_mut().zip(b).zip(s) {
                    *dk = (bk + sk).max(0.0);
                }
                done += 4;
            }
            let pairs = sc.hid[done..].chunks_exact_mut(2);
            for ((d, w), b) in pairs
                .zip(h.w1[done * n_in..].chunks_exact(2 * n_in))
                .zip(h.b1[done..].chunks_exact(2))
            {
                let (w0, w1) = w.split_at(n_in);
                // SAFETY: `cpu.avx` says the CPU has AVX.
                let (s0, s1) = unsafe { dot8x2_avx(w0, w1, &sc.xs) };
                d[0] = (b[0] + s0).max(0.0);
                d[1] = (b[1] + s1).max(0.0);
                done += 2;
            }
        }
        for ((d, w), b) in sc.hid[done..]
            .iter_mut()
            .zip(h.w1.chunks_exact(n_in).skip(done))
            .zip(&h.b1[done..])
        {
            *d = (b + dot8(w, &sc.xs)).max(0.0);
        }
        out.resize(h.n_out, 0.0);
        for ((d, w), b) in out
            .iter_mut()
            .zip(h.w2.chunks_exact(h.n_hidden.max(1)))
            .zip(&h.b2)
        {
            *d = b + dot8(w, &sc.hid);
        }
    }

    /// Fit with softmax cross-entropy on `classes`. The head's standardisation
    /// is fixed to identity for the convolution outputs and fitted for scalars.
    // Index loops over several parallel arrays read clearer than zipped iterators here.
    #[allow(clippy::needless_range_loop)]
    pub fn train(&mut self, rows: &[Vec<f32>], classes: &[usize], opts: &TrainOptions) -> f32 {
        let mut rows = rows.to_vec();
        let mut classes = classes.to_vec();
        self.train_with(&mut rows, &mut classes, opts, |_, _, _| {}, |_, _| {})
    }

    /// [`Self::train`] with per-epoch hooks: `regen(epoch, rows, classes)` may
    /// replace the training samples before each epoch (online augmentation;
    /// the scalar standardisation stays the one of the initial rows), and
    /// `after(epoch, net)` sees the network after each epoch (model selection).
    pub fn train_with<R, A>(
        &mut self,
        rows: &mut Vec<Vec<f32>>,
        classes: &mut Vec<usize>,
        opts: &TrainOptions,
        regen: R,
        after: A,
    ) -> f32
    where
        R: FnMut(usize, &mut Vec<Vec<f32>>, &mut Vec<usize>),
        A: FnMut(usize, &FaceNet),
    {
        self.standardise_scalars(rows);
        self.train_epochs_with(rows, classes, opts, regen, after)
    }

    /// Fit the head's standardisation of the scalar inputs (the ones after
    /// the maps) to `rows`; the convolution outputs keep identity.
    fn standardise_scalars(&mut self, rows: &[Vec<f32>]) {
        let conv_out = self.conv_out();
        let n_sc = self.head.n_in - conv_out;
        for i in 0..n_sc {
            let n = rows.len().max(1) as f64;
            let m = rows.iter().map(|r| r[MAP_INPUTS + i] as f64).sum::<f64>() / n;
            let v = rows
                .iter()
                .map(|r| (r[MAP_INPUTS + i] as f64 - m).powi(2))
                .sum::<f64>()
                / n;
            self.head.in_mean[conv_out + i] = m as f32;
            self.head.in_scale[conv_out + i] = 1.0 / (v.sqrt() as f32).max(1e-3);
        }
    }

    /// [`Self::train_with`] without refitting the scalar standardisation:
    /// continues from the current weights and standardisation (fine-tuning
    /// a fitted net on new examples).
    // Index loops over several parallel arrays read clearer than zipped iterators here.
    #[allow(clippy::needless_range_loop)]
    pub fn train_epochs_with<R, A>(
        &mut self,
        rows: &mut Vec<Vec<f32>>,
        classes: &mut Vec<usize>,
        opts: &TrainOptions,
        mut regen: R,
        mut after: A,
    ) -> f32
    where
        R: FnMut(usize, &mut Vec<Vec<f32>>, &mut Vec<usize>),
        A: FnMut(usize, &FaceNet),
    {
        let nh_in = self.head.n_in;
        let conv_out = self.conv_out();
        let mut rng = XorShift::new(opts.seed);
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let (nh, no) = (self.head.n_hidden, self.head.n_out);
        let sizes = [
            self.conv1.w.len(),
            self.conv1.b.len(),
            self.conv2.w.len(),
            self.conv2.b.len(),
            self.head.w1.len(),
            self.head.b1.len(),
            self.head.w2.len(),
            self.head.b2.len(),
        ];
        let mut grads: Vec<Vec<f32>> = sizes.iter().map(|n| vec![0.0; *n]).collect();
        let mut vels: Vec<Vec<f32>> = sizes.iter().map(|n| vec![0.0; *n]).collect();
        let mut sc = Scratch::new(self);
        let mut xs = vec![0f32; nh_in];
        let mut hid = vec![0f32; nh];
        let mut out = vec![0f32; no];
        let mut d_hid = vec![0f32; nh];
        let mut d_hin = vec![0f32; nh_in];
        let mut d_a2 = vec![0f32; self.conv2.cout * MAP * MAP];
        let mut d_a1 = vec![0f32; self.conv1.cout * MAP * MAP];
        let mut last = 0.0;
        let mut clip = GradClip::default();
        for epoch in 0..opts.epochs {
            regen(epoch, rows, classes);
            if order.len() != rows.len() {
                order = (0..rows.len()).collect();
            }
            rng.shuffle(&mut order);
            let lr = opts.lr * (1.0 - epoch as f32 / opts.epochs.max(1) as f32).max(0.05);
            let mut total = 0.0f64;
            for batch in order.chunks(opts.batch.max(1)) {
                grads
                    .iter_mut()
                    .for_each(|g| g.iter_mut().for_each(|v| *v = 0.0));
                for &r in batch {
                    let f = &rows[r];
                    self.conv_part(f, &mut sc);
                    let h = &self.head;
                    for i in 0..nh_in {
                        xs[i] = (sc.hin[i] - h.in_mean[i]) * h.in_scale[i];
                    }
                    for j in 0..nh {
                        let row = &h.w1[j * nh_in..(j + 1) * nh_in];
                        let mut a = h.b1[j];
                        for (w, x) in row.iter().zip(&xs) {
                            a += w * x;
                        }
                        hid[j] = a.max(0.0);
                    }
                    for o in 0..no {
                        let row = &h.w2[o * nh..(o + 1) * nh];
                        out[o] = h.b2[o] + row.iter().zip(&hid).map(|(w, x)| w * x).sum::<f32>();
                    }
                    softmax(&mut out);
                    let t = classes[r];
                    total -= (out[t].max(1e-7) as f64).ln();
                    out[t] -= 1.0; // now d_out
                    // Head backward.
                    for o in 0..no {
                        grads[7][o] += out[o];
                        for j in 0..nh {
                            grads[6][o * nh + j] += out[o] * hid[j];
                        }
                    }
                    for j in 0..nh {
                        d_hid[j] = if hid[j] > 0.0 {
                            (0..no).map(|o| out[o] * h.w2[o * nh + j]).sum()
                        } else {
                            0.0
                        };
                    }
                    d_hin.iter_mut().for_each(|v| *v = 0.0);
                    for j in 0..nh {
                        let d = d_hid[j];
                        if d == 0.0 {
                            continue;
                        }
                        grads[5][j] += d;
                        let g = &mut grads[4][j * nh_in..(j + 1) * nh_in];
                        let w = &h.w1[j * nh_in..(j + 1) * nh_in];
                        for i in 0..nh_in {
                            g[i] += d * xs[i];
                            d_hin[i] += d * w[i];
                        }
                    }
                    // Unpool into conv2 output gradient.
                    d_a2.iter_mut().for_each(|v| *v = 0.0);
                    for k in 0..conv_out {
                        d_a2[sc.arg[k]] += d_hin[k] * h.in_scale[k];
                    }
                    let (g01, g23) = grads.split_at_mut(2);
                    let (gw1, gb1) = g01.split_at_mut(1);
                    let (gw2, gb2) = g23.split_at_mut(1);
                    self.conv2.backward(
                        &sc.a1,
                        &sc.a2,
                        &mut d_a2,
                        &mut gw2[0],
                        &mut gb2[0],
                        Some(&mut d_a1),
                    );
                    self.conv1.backward(
                        &f[..MAP_INPUTS],
                        &sc.a1,
                        &mut d_a1,
                        &mut gw1[0],
                        &mut gb1[0],
                        None,
                    );
                }
                let mean = 1.0 / batch.len() as f32;
                let factor = if opts.clip_gradients {
                    clip.factor(grad_norm(&grads, mean))
                } else {
                    1.0
                };
                if factor == 0.0 {
                    continue;
                }
                let scale = mean * factor as f32;
                for (k, p) in self.params_mut().into_iter().enumerate() {
                    let decay = if k % 2 == 0 { opts.weight_decay } else { 0.0 };
                    for ((w, v), g) in p.iter_mut().zip(vels[k].iter_mut()).zip(&grads[k]) {
                        *v = opts.momentum * *v - lr * (g * scale + decay * *w);
                        *w += *v;
                    }
                }
            }
            last = (total / rows.len().max(1) as f64) as f32;
            if opts.verbose && opts.clip_gradients {
                eprintln!(
                    "  cnn epoch {epoch:3} loss {last:.4} (clipped {} batches, mean gradient length {:.4})",
                    clip.take_clipped(),
                    clip.mean
                );
            } else if opts.verbose {
                eprintln!("  cnn epoch {epoch:3} loss {last:.4}");
            }
            after(epoch, self);
        }
        last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conv_forward_matches_naive() {
        let mut rng = XorShift::new(2);
        let conv = Conv::new(2, 3, &mut rng);
        let x: Vec<f32> = (0..2 * MAP * MAP).map(|_| rng.normal()).collect();
        let mut o = vec![0f32; 3 * MAP * MAP];
        conv.forward(&x, &mut o);
        let s = MAP as i64;
        for oc in 0..3 {
            for y in 0..s {
                for xx in 0..s {
                    let mut a = conv.b[oc];
                    for c in 0..2 {
                        for ky in 0..3i64 {
                            for kx in 0..3i64 {
                                let (iy, ix) = (y + ky - 1, xx + kx - 1);
                                if iy >= 0 && ix >= 0 && iy < s && ix < s {
                                    a += conv.w[(oc * 2 + c) * 9 + (ky * 3 + kx) as usize]
                                        * x[c * MAP * MAP + (iy * s + ix) as usize];
                                }
                            }
                        }
                    }
                    let got = o[oc * MAP * MAP + (y * s + xx) as usize];
                    assert!(
                        (got - a.max(0.0)).abs() < 1e-4,
                        "{oc} {y} {xx}: {got} vs {a}"
                    );
                }
            }
        }
    }

    /// The AVX convolution gives the portable one's bits exactly (the model
    /// file is fitted with one and read with the other).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn conv_avx_matches_portable_bit_for_bit() {
        let cpu = Cpu::detect();
        if !cpu.avx {
            eprintln!("skipped: this CPU has no AVX");
            return;
        }
        let mut rng = XorShift::new(5);
        let conv = Conv::new(5, 8, &mut rng);
        let x: Vec<f32> = (0..5 * MAP * MAP).map(|_| rng.normal()).collect();
        let mut pad = vec![0f32; 5 * PAD * PAD];
        fill_padded(&x, &mut pad);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        // The four-row kernel, into a plain and a padded buffer, on inputs
        // with ReLU zeros as conv2 sees them.
        for relu in [false, true] {
            let xr: Vec<f32> = x
                .iter()
                .map(|v| if relu { v.max(0.0) } else { *v })
                .collect();
            let mut padr = vec![0f32; 5 * PAD * PAD];
            fill_padded(&xr, &mut padr);
            for (stride, off) in [(MAP, 0), (PAD, 1)] {
                let mut want = vec![1f32; 8 * stride * stride];
                conv.forward_portable_into(&padr, &mut want, stride, off);
                let mut got = vec![1f32; 8 * stride * stride];
                // SAFETY: the CPU reports AVX (checked above).
                unsafe { conv.forward_avx_rows4(&padr, &mut got, stride, off) };
                assert_eq!(bits(&want), bits(&got), "{relu} {stride}");
            }
        }
        if cpu.avx512 {
            // Into the interior of a padded buffer, as conv1 writes it.
            let mut wide = vec![1f32; 8 * PAD * PAD];
            // SAFETY: the CPU reports AVX-512F (checked just above).
            unsafe { conv.forward_avx512(&pad, &mut wide, PAD, 1) };
            let mut narrow = vec![1f32; 8 * PAD * PAD];
            conv.forward_portable_into(&pad, &mut narrow, PAD, 1);
            assert_eq!(bits(&wide), bits(&narrow));
        } else {
            eprintln!("AVX-512 part skipped: this CPU has no AVX-512F");
        }
    }

    /// The AVX pooling gives the portable pooling's bits, also on ties,
    /// signed zeros and NaN; the paired head dot products give `dot8`'s.
    #[test]
    fn pool_avx_and_paired_dots_match_portable_bit_for_bit() {
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        let mut rng = XorShift::new(11);
        for round in 0..20 {
            // The shipped width, then a wider one (a fit option).
            let c2 = if round < 10 { C2 } else { 24 };
            let conv_out = c2 * POOLED_PER_CHANNEL;
            let a2: Vec<f32> = (0..c2 * MAP * MAP)
                .map(|_| match round % 4 {
                    0 => rng.normal(),
                    // Coarse values: many ties between the four.
                    1 => (rng.unit() * 3.0).floor(),
                    2 => [0.0, -0.0, 1.0, f32::NAN][(rng.unit() * 4.0) as usize % 4],
                    _ => rng.normal().max(0.0),
                })
                .collect();
            let means: Vec<f32> = (0..conv_out).map(|_| rng.normal()).collect();
            let scales: Vec<f32> = (0..conv_out).map(|_| rng.normal()).collect();
            let mut want = vec![1f32; conv_out];
            pool_portable(&a2, &means, &scales, &mut want);
            if Cpu::detect().avx {
                let mut got = vec![2f32; conv_out];
                // SAFETY: the CPU reports AVX.
                unsafe { pool_avx(&a2, &means, &scales, &mut got) };
                assert_eq!(bits(&want), bits(&got), "round {round}");
            }
            for n in [1usize, 7, 8, 70, 1094] {
                let a0: Vec<f32> = (0..n).map(|_| rng.normal()).collect();
                let a1: Vec<f32> = (0..n).map(|_| rng.normal()).collect();
                let b: Vec<f32> = (0..n).map(|_| rng.normal()).collect();
                if Cpu::detect().avx {
                    // SAFETY: the CPU reports AVX.
                    let (d0, d1) = unsafe { dot8x2_avx(&a0, &a1, &b) };
                    assert_eq!(d0.to_bits(), dot8(&a0, &b).to_bits());
                    assert_eq!(d1.to_bits(), dot8(&a1, &b).to_bits());
                    let a2: Vec<f32> = a0.iter().map(|v| v * 0.5 - 1.0).collect();
                    let a3: Vec<f32> = a1.iter().map(|v| v * -1.5).collect();
                    // SAFETY: the CPU reports AVX.
                    let d = unsafe { dot8x4_avx([&a0, &a1, &a2, &a3], &b) };
                    for (dk, ak) in d.iter().zip([&a0, &a1, &a2, &a3]) {
                        assert_eq!(dk.to_bits(), dot8(ak, &b).to_bits());
                    }
                }
            }
        }
        if !Cpu::detect().avx {
            eprintln!("AVX part skipped: this CPU has no AVX");
        }
    }

    /// The whole inference pass: AVX and portable code give the same bits,
    /// and both equal the training path's convolutions and pooling
    /// (`conv_part`) followed by the head as written before the inference
    /// path was split off (scratch reused across calls).
    #[test]
    fn inference_matches_reference_bit_for_bit() {
        let mut rng = XorShift::new(12);
        let n_feat = MAP_INPUTS + 70;
        // One scratch for both widths: it grows for the wider net.
        let mut sc = FaceScratch::default();
        for widths in [(C1, C2), (12, 24)] {
            check_inference(&mut rng, n_feat, widths, &mut sc);
        }
    }

    /// [`inference_matches_reference_bit_for_bit`] for one pair of widths.
    fn check_inference(
        rng: &mut XorShift,
        n_feat: usize,
        widths: (usize, usize),
        sc: &mut FaceScratch,
    ) {
        let mut net = FaceNet::new_with_widths(n_feat, widths, 32, 7, rng);
        assert!(net.is_consistent());
        assert_eq!(net.n_features(), n_feat);
        for b in net.conv1.b.iter_mut().chain(net.conv2.b.iter_mut()) {
            *b = rng.normal() * 0.1;
        }
        for (m, s) in net
            .head
            .in_mean
            .iter_mut()
            .zip(net.head.in_scale.iter_mut())
        {
            *m = rng.normal() * 0.1;
            *s = 1.0 + rng.unit();
        }
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        for _ in 0..4 {
            let f: Vec<f32> = (0..n_feat).map(|_| rng.normal()).collect();
            let mut old = Scratch::new(&net);
            net.conv_part(&f, &mut old);
            let h = &net.head;
            let xs: Vec<f32> = old
                .hin
                .iter()
                .zip(&h.in_mean)
                .zip(&h.in_scale)
                .map(|((x, m), s)| (x - m) * s)
                .collect();
            let hid: Vec<f32> = (0..h.n_hidden)
                .map(|j| (h.b1[j] + dot8(&h.w1[j * h.n_in..(j + 1) * h.n_in], &xs)).max(0.0))
                .collect();
            let want: Vec<f32> = (0..h.n_out)
                .map(|o| h.b2[o] + dot8(&h.w2[o * h.n_hidden..(o + 1) * h.n_hidden], &hid))
                .collect();
            let mut portable = Vec::new();
            net.infer_portable(&f, sc, &mut portable);
            assert_eq!(bits(&portable), bits(&want));
            let mut fast = Vec::new();
            net.forward_with(&f, sc, &mut fast);
            assert_eq!(bits(&fast), bits(&want));
            assert_eq!(bits(&net.forward(&f)), bits(&want));
        }
    }

    /// The compile-time padded dihedral table follows `crop::dihedral`, and
    /// the transformed forward pass gives the bits of the pass on
    /// `transform_features`, on every CPU path.
    #[test]
    fn transformed_forward_matches_transformed_features() {
        use super::super::crop::{N_CROP_FEATURES, dihedral, transform_features};
        for (t, table) in PADDED_DIHEDRAL.iter().enumerate() {
            for (k, &d) in table.iter().enumerate() {
                let (tx, ty) = dihedral(t, k % MAP, k / MAP);
                assert_eq!(d as usize, (ty + 1) * PAD + tx + 1);
            }
        }
        let mut rng = XorShift::new(21);
        let net = FaceNet::new(N_CROP_FEATURES, 32, 7, &mut rng);
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        for cpu in [Cpu::detect(), Cpu::portable()] {
            let mut sc = FaceScratch::with_cpu(cpu);
            for _ in 0..3 {
                let f0: Vec<f32> = (0..N_CROP_FEATURES).map(|_| rng.normal()).collect();
                for t in 0..8 {
                    let (mut want, mut got) = (Vec::new(), Vec::new());
                    net.forward_with(&transform_features(&f0, t), &mut sc, &mut want);
                    net.forward_transformed_with(&f0, t, &mut sc, &mut got);
                    assert_eq!(bits(&want), bits(&got), "{t}");
                }
            }
        }
    }

    /// Finite-difference checks of convolution weight gradients.
    #[test]
    fn conv_gradient_matches_finite_difference() {
        let mut rng = XorShift::new(9);
        let conv = Conv::new(2, 3, &mut rng);
        let x: Vec<f32> = (0..2 * MAP * MAP).map(|_| rng.normal()).collect();
        let loss = |c: &Conv| {
            let mut o = vec![0f32; 3 * MAP * MAP];
            c.forward(&x, &mut o);
            o.iter()
                .enumerate()
                .map(|(i, v)| *v as f64 * ((i % 7) as f64 - 3.0))
                .sum::<f64>()
        };
        let mut o = vec![0f32; 3 * MAP * MAP];
        conv.forward(&x, &mut o);
        let mut dz: Vec<f32> = (0..o.len()).map(|i| (i % 7) as f32 - 3.0).collect();
        let mut gw = vec![0f32; conv.w.len()];
        let mut gb = vec![0f32; 3];
        conv.backward(&x, &o, &mut dz, &mut gw, &mut gb, None);
        let s = MAP;
        let mut naive = 0f64;
        for y in 1..s {
            for xx in 1..s {
                let i = y * s + xx;
                if o[i] > 0.0 {
                    naive += ((i % 7) as f64 - 3.0) * x[(y - 1) * s + xx - 1] as f64;
                }
            }
        }
        // Weight 0 checked against the explicit sum (a ReLU kink sits right at
        // it for this seed, which breaks finite differences).
        assert!((naive as f32 - gw[0]).abs() < 1e-3, "{naive} vs {}", gw[0]);
        for k in [40, 17, 5] {
            let e = 1e-3;
            let (mut up, mut dn) = (conv.clone(), conv.clone());
            up.w[k] += e;
            dn.w[k] -= e;
            let num = ((loss(&up) - loss(&dn)) / (2.0 * e as f64)) as f32;
            assert!(
                (num - gw[k]).abs() < 0.02 * (1.0 + num.abs()),
                "{k}: {num} vs {}",
                gw[k]
            );
        }
    }

    #[test]
    fn fast_head_matches_mlp_head() {
        let mut rng = XorShift::new(8);
        let n_feat = MAP_INPUTS + 13;
        let net = FaceNet::new(n_feat, 16, 7, &mut rng);
        let f: Vec<f32> = (0..n_feat).map(|_| rng.normal()).collect();
        let mut sc = Scratch::new(&net);
        net.conv_part(&f, &mut sc);
        let slow = net.head.forward(&sc.hin);
        let fast = net.forward(&f);
        for (a, b) in slow.iter().zip(&fast) {
            assert!((a - b).abs() < 1e-4 * (1.0 + a.abs()), "{a} vs {b}");
        }
        assert_eq!(dot8(&[1.0; 11], &[2.0; 11]), 22.0);
    }

    #[test]
    fn clipping_caps_outliers_and_skips_non_finite_steps() {
        let mut clip = GradClip::default();
        for _ in 0..CLIP_WARMUP {
            assert_eq!(clip.factor(1.0), 1.0);
        }
        // Ordinary variation passes unchanged, a tenfold spike is cut to
        // CLIP_FACTOR times the running mean.
        assert_eq!(clip.factor(2.0), 1.0);
        let limit = CLIP_FACTOR * clip.mean;
        let f = clip.factor(10.0);
        assert!((f * 10.0 - limit).abs() < 1e-9, "{f}");
        assert_eq!(clip.factor(f64::NAN), 0.0);
        assert_eq!(clip.take_clipped(), 2);
        assert_eq!(clip.take_clipped(), 0);
    }

    #[test]
    fn learns_a_toy_problem() {
        let mut rng = XorShift::new(4);
        let n_feat = MAP_INPUTS + 2;
        let mut rows = Vec::new();
        let mut classes = Vec::new();
        for i in 0..200 {
            let c = i % 2;
            let mut f = vec![0f32; n_feat];
            // Class 1 has a bright blob somewhere.
            if c == 1 {
                let (x, y) = (rng.below(MAP - 2), rng.below(MAP - 2));
                for dy in 0..2 {
                    for dx in 0..2 {
                        f[(y + dy) * MAP + x + dx] = 1.0;
                    }
                }
            }
            rows.push(f);
            classes.push(c);
        }
        let mut net = FaceNet::new(n_feat, 8, 2, &mut rng);
        let opts = TrainOptions {
            epochs: 30,
            batch: 16,
            lr: 0.05,
            momentum: 0.9,
            weight_decay: 0.0,
            seed: 1,
            verbose: false,
            clip_gradients: true,
        };
        let loss = net.train(&rows, &classes, &opts);
        assert!(loss < 0.2, "{loss}");
        assert!(net.is_consistent());
    }
}
