//! Die candidate finding: the fitted detector MLP scores a grid of cells on the
//! half-resolution frame, local maxima above threshold become candidates, and
//! overlapping candidates are suppressed.

use super::cpu::Cpu;
use super::mlp::{Mlp, sigmoid};
use super::prep::{DETECT_DOWNSAMPLE, N_DET_FEATURES, Prepared, det_features};

/// Grid stride in half-resolution pixels (= 4 frame px), fine enough that the
/// smallest die (21 px) covers several cells.
pub const DET_STRIDE: usize = 2;

/// Box half-width (half-res px) of the cheap pre-filter; 4 -> a 9x9 box, inside
/// even the smallest die.
const PREFILTER_RADIUS: i64 = 4;

/// A cell is only scored when its box has at least this mean colour distance to
/// the background or this mean gradient (0-255 units): plain table is skipped.
/// Chosen low: on every 5th byler-d6 image all 2683 positive cells (within
/// 0.15 die size of a labelled centre) pass at 10, while only 12 % of all
/// cells do.
const PREFILTER_MIN: f32 = 10.0;

/// Die sizes outside this range (frame px) are clamped: the model was fitted on
/// 21-69 px dice.
pub const SIZE_RANGE: (f32, f32) = (14.0, 90.0);

/// Coarse-to-fine detection: the detector first scores every `COARSE_STEP`-th
/// cell in each direction (12 frame px apart) and then all cells within
/// `COARSE_STEP` cells of a coarse cell scoring at least [`COARSE_LOGIT`].
/// 1 disables the coarse pass. 3 (was 2; issue 4, read speed) scores 2.25
/// times fewer coarse cells: on the tune and train parts with the shipped
/// model every die keeps its candidate and decision (at 3 and at 4), and a
/// 720p read takes about 5.9 M fewer instructions (of 69 M).
pub const COARSE_STEP: usize = 3;

/// Coarse-pass logit above which the neighbourhood is scored in full
/// (sigmoid -> 0.01, a tenth of the shipped detection threshold): a die centre
/// is at most 8.5 px from a coarse cell, where the detector still responds.
pub const COARSE_LOGIT: f32 = -4.6;

/// Hidden units evaluated together by [`DetKernel::eval`]: 8 floats are two
/// SSE registers, so a block's sums stay in registers across all inputs.
const HID_BLOCK: usize = 8;

/// Blocks of [`HID_BLOCK`] hidden units evaluated together by
/// [`DetKernel::eval`] (3 x 8 accumulators fit the 16 SSE / AVX registers).
const HID_GROUP: usize = 3;

/// A die candidate in frame coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// Centre x, y (frame px).
    pub center: [f32; 2],
    /// Predicted die box side (frame px).
    pub size: f32,
    /// Detector probability.
    pub score: f32,
}

/// The detector MLP rearranged for fast per-cell evaluation: the input
/// standardisation is folded into the first layer and its weights are stored
/// input-major, so the hidden layer is accumulated with contiguous,
/// vectorisable updates. Same function as [`Mlp::forward_buf`] up to float
/// rounding.
#[derive(Debug, Clone)]
pub struct DetKernel {
    n_in: usize,
    n_hidden: usize,
    /// `[n_in][n_hidden]`, scaled by the input standardisation.
    w1t: Vec<f32>,
    /// The same weights for the first `n_hidden - n_hidden % HID_BLOCK` units
    /// as `[block][n_in]` rows of [`HID_BLOCK`] units, read contiguously by
    /// [`Self::eval`].
    w1b: Vec<[f32; HID_BLOCK]>,
    /// Hidden biases with the input means folded in.
    b1: Vec<f32>,
    /// Output 0 (objectness) and 1 (ln size) weights over the hidden units.
    w2: [Vec<f32>; 2],
    b2: [f32; 2],
    /// The SIMD paths [`Self::eval`] (AVX) and [`Self::eval2`] (AVX-512 or
    /// AVX) may take: the [`Cpu`] given at construction.
    cpu: Cpu,
}

impl DetKernel {
    /// Rearrange `det` (any shape; missing outputs read as 0), for this
    /// CPU's SIMD paths.
    pub fn new(det: &Mlp) -> Self {
        Self::with_cpu(det, Cpu::detect())
    }

    /// [`Self::new`] on the SIMD paths `cpu` allows (at most what the CPU
    /// has).
    pub fn with_cpu(det: &Mlp, cpu: Cpu) -> Self {
        let (ni, nh) = (det.n_in, det.n_hidden);
        let mut w1t = vec![0f32; ni * nh];
        let mut b1 = det.b1.clone();
        for h in 0..nh {
            let mut fold = 0f64;
            for i in 0..ni {
                let w = det.w1[h * ni + i];
                w1t[i * nh + h] = w * det.in_scale[i];
                fold += (w * det.in_scale[i]) as f64 * det.in_mean[i] as f64;
            }
            b1[h] -= fold as f32;
        }
        let row = |o: usize| -> Vec<f32> {
            if o < det.n_out {
                det.w2[o * nh..(o + 1) * nh].to_vec()
            } else {
                vec![0.0; nh]
            }
        };
        let bias = |o: usize| det.b2.get(o).copied().unwrap_or(0.0);
        let mut w1b = Vec::new();
        for j in 0..nh / HID_BLOCK {
            for i in 0..ni {
                let mut b = [0f32; HID_BLOCK];
                b.copy_from_slice(&w1t[i * nh + j * HID_BLOCK..i * nh + (j + 1) * HID_BLOCK]);
                w1b.push(b);
            }
        }
        Self {
            n_in: ni,
            n_hidden: nh,
            w1t,
            w1b,
            b1,
            w2: [row(0), row(1)],
            b2: [bias(0), bias(1)],
            cpu,
        }
    }

    /// (objectness logit, ln size) for one feature vector; `hid` is scratch.
    /// Uses AVX when the CPU has it (same result bit for bit: the same
    /// multiplies and adds in the same order, 8 lanes per instruction instead
    /// of 4; no fused multiply-add).
    pub fn eval(&self, f: &[f32], hid: &mut Vec<f32>) -> (f32, f32) {
        #[cfg(target_arch = "x86_64")]
        if self.cpu.avx {
            // SAFETY: `cpu.avx` is only set when the CPU reports AVX.
            return unsafe { self.eval_avx(f, hid) };
        }
        self.eval_portable(f, hid)
    }

    /// [`Self::eval`] compiled for AVX (8-float registers).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn eval_avx(&self, f: &[f32], hid: &mut Vec<f32>) -> (f32, f32) {
        self.eval_body(f, hid)
    }

    /// [`Self::eval`] without CPU-specific code (SSE2 on x86_64).
    pub fn eval_portable(&self, f: &[f32], hid: &mut Vec<f32>) -> (f32, f32) {
        self.eval_body(f, hid)
    }

    #[inline(always)]
    fn eval_body(&self, f: &[f32], hid: &mut Vec<f32>) -> (f32, f32) {
        let (ni, nh) = (self.n_in.min(f.len()), self.n_hidden);
        hid.clear();
        hid.extend_from_slice(&self.b1);
        // Hidden units in blocks of HID_BLOCK held in local accumulators over
        // all inputs (registers, not a load/store of `hid` per input); each
        // unit still sums its inputs in order, so the result is unchanged.
        let blocked = nh - nh % HID_BLOCK;
        let stride = self.n_in.max(1);
        let mut outs = hid[..blocked].chunks_exact_mut(HID_GROUP * HID_BLOCK);
        let mut groups = self.w1b.chunks_exact(HID_GROUP * stride);
        // Three blocks at a time: one broadcast of each input serves all
        // three (the shipped detector has exactly three blocks).
        for (out, ws) in (&mut outs).zip(&mut groups) {
            let (w0, rest) = ws.split_at(stride);
            let (w1, w2) = rest.split_at(stride);
            let mut acc = [[0f32; HID_BLOCK]; HID_GROUP];
            for (a, o) in acc.iter_mut().zip(out.chunks_exact(HID_BLOCK)) {
                a.copy_from_slice(o);
            }
            for (((p, q), r), &x) in w0.iter().zip(w1).zip(w2).zip(&f[..ni]) {
                for k in 0..HID_BLOCK {
                    acc[0][k] += p[k] * x;
                    acc[1][k] += q[k] * x;
                    acc[2][k] += r[k] * x;
                }
            }
            for (a, o) in acc.iter().zip(out.chunks_exact_mut(HID_BLOCK)) {
                o.copy_from_slice(a);
            }
        }
        let rows = groups.remainder().chunks_exact(stride);
        for (out, ws) in outs.into_remainder().chunks_exact_mut(HID_BLOCK).zip(rows) {
            let mut acc = [0f32; HID_BLOCK];
            acc.copy_from_slice(out);
            for (w, &x) in ws.iter().zip(&f[..ni]) {
                for k in 0..HID_BLOCK {
                    acc[k] += w[k] * x;
                }
            }
            out.copy_from_slice(&acc);
        }
        // Units past the last full block, if any (none for the shipped
        // 24-unit detector).
        for (i, &x) in f[..ni]
            .iter()
            .enumerate()
            .take(if blocked < nh { ni } else { 0 })
        {
            let w = &self.w1t[i * nh + blocked..(i + 1) * nh];
            for (hv, wv) in hid[blocked..].iter_mut().zip(w) {
                *hv += wv * x;
            }
        }
        self.head(hid)
    }

    /// The output layer over the hidden sums `hid` (ReLU applied here).
    #[inline(always)]
    fn head(&self, hid: &[f32]) -> (f32, f32) {
        let (mut a, mut b) = (self.b2[0], self.b2[1]);
        for ((h, w0), w1) in hid.iter().zip(&self.w2[0]).zip(&self.w2[1]) {
            let h = h.max(0.0);
            a += w0 * h;
            b += w1 * h;
        }
        (a, b)
    }

    /// [`Self::eval`] of two feature vectors at once, the same values bit for
    /// bit. Each hidden unit's sum is a chain of dependent adds, so one cell's
    /// three 8-unit blocks leave the adder idle most of the time; two cells
    /// interleaved give six independent chains (each unit still sums its
    /// inputs in the same order). Uses AVX-512 (for its 32 registers, all
    /// six accumulators and the weights stay in registers) or AVX when the
    /// CPU has them.
    pub fn eval2(
        &self,
        fa: &[f32],
        fb: &[f32],
        ha: &mut Vec<f32>,
        hb: &mut Vec<f32>,
    ) -> [(f32, f32); 2] {
        #[cfg(target_arch = "x86_64")]
        if self.cpu.avx512 {
            // SAFETY: `cpu.avx512` is only set when the CPU reports AVX-512F and
            // AVX-512VL.
            return unsafe { self.eval2_avx512(fa, fb, ha, hb) };
        }
        #[cfg(target_arch = "x86_64")]
        if self.cpu.avx {
            // SAFETY: `cpu.avx` is only set when the CPU reports AVX.
            return unsafe { self.eval2_avx(fa, fb, ha, hb) };
        }
        self.eval2_portable(fa, fb, ha, hb)
    }

    /// [`Self::eval2`] compiled for AVX-512 (more registers; the 8-lane
    /// operations are the same).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vl")]
    fn eval2_avx512(
        &self,
        fa: &[f32],
        fb: &[f32],
        ha: &mut Vec<f32>,
        hb: &mut Vec<f32>,
    ) -> [(f32, f32); 2] {
        self.eval2_body(fa, fb, ha, hb)
    }

    /// [`Self::eval2`] compiled for AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn eval2_avx(
        &self,
        fa: &[f32],
        fb: &[f32],
        ha: &mut Vec<f32>,
        hb: &mut Vec<f32>,
    ) -> [(f32, f32); 2] {
        self.eval2_body(fa, fb, ha, hb)
    }

    /// [`Self::eval2`] without CPU-specific code (SSE2 on x86_64).
    pub fn eval2_portable(
        &self,
        fa: &[f32],
        fb: &[f32],
        ha: &mut Vec<f32>,
        hb: &mut Vec<f32>,
    ) -> [(f32, f32); 2] {
        self.eval2_body(fa, fb, ha, hb)
    }

    #[inline(always)]
    fn eval2_body(
        &self,
        fa: &[f32],
        fb: &[f32],
        ha: &mut Vec<f32>,
        hb: &mut Vec<f32>,
    ) -> [(f32, f32); 2] {
        let (ni, nh) = (self.n_in, self.n_hidden);
        let group = HID_GROUP * HID_BLOCK;
        // Other shapes (none shipped): one cell at a time.
        if nh == 0 || nh % group != 0 || fa.len() < ni || fb.len() < ni {
            return [self.eval_body(fa, ha), self.eval_body(fb, hb)];
        }
        let (fa, fb) = (&fa[..ni], &fb[..ni]);
        let stride = ni.max(1);
        for h in [&mut *ha, &mut *hb] {
            h.clear();
            h.extend_from_slice(&self.b1);
        }
        let outs = ha.chunks_exact_mut(group).zip(hb.chunks_exact_mut(group));
        for ((oa, ob), ws) in outs.zip(self.w1b.chunks_exact(HID_GROUP * stride)) {
            let (w0, rest) = ws.split_at(stride);
            let (w1, w2) = rest.split_at(stride);
            let mut acc = [[[0f32; HID_BLOCK]; HID_GROUP]; 2];
            for (a, o) in acc[0].iter_mut().zip(oa.chunks_exact(HID_BLOCK)) {
                a.copy_from_slice(o);
            }
            for (a, o) in acc[1].iter_mut().zip(ob.chunks_exact(HID_BLOCK)) {
                a.copy_from_slice(o);
            }
            let xs = fa.iter().zip(fb);
            for (((p, q), r), (&x, &y)) in w0.iter().zip(w1).zip(w2).zip(xs) {
                for k in 0..HID_BLOCK {
                    acc[0][0][k] += p[k] * x;
                    acc[0][1][k] += q[k] * x;
                    acc[0][2][k] += r[k] * x;
                    acc[1][0][k] += p[k] * y;
                    acc[1][1][k] += q[k] * y;
                    acc[1][2][k] += r[k] * y;
                }
            }
            for (a, o) in acc[0].iter().zip(oa.chunks_exact_mut(HID_BLOCK)) {
                o.copy_from_slice(a);
            }
            for (a, o) in acc[1].iter().zip(ob.chunks_exact_mut(HID_BLOCK)) {
                o.copy_from_slice(a);
            }
        }
        self.head2(ha, hb)
    }

    /// [`Self::head`] of two cells interleaved: four independent sums
    /// instead of two, each in the same order as [`Self::head`].
    #[inline(always)]
    fn head2(&self, ha: &[f32], hb: &[f32]) -> [(f32, f32); 2] {
        let (mut a0, mut b0) = (self.b2[0], self.b2[1]);
        let (mut a1, mut b1) = (a0, b0);
        let ws = self.w2[0].iter().zip(&self.w2[1]);
        for ((w0, w1), (h0, h1)) in ws.zip(ha.iter().zip(hb)) {
            let (h0, h1) = (h0.max(0.0), h1.max(0.0));
            a0 += w0 * h0;
            b0 += w1 * h0;
            a1 += w0 * h1;
            b1 += w1 * h1;
        }
        [(a0, b0), (a1, b1)]
    }
}

/// Whether the cheap pre-filter lets the cell at half-res `(cx, cy)` through.
pub fn passes_prefilter(p: &Prepared, cx: i64, cy: i64) -> bool {
    let r = PREFILTER_RADIUS;
    // One box, all channels (equal to the per-channel `box_mean`).
    let m = p.box_means_fast(cx - r, cy - r, cx + r + 1, cy + r + 1);
    m[0] >= PREFILTER_MIN || m[1] >= PREFILTER_MIN
}

/// Half-res cell centre of grid cell `(gx, gy)`.
pub fn cell_center(gx: usize, gy: usize) -> (i64, i64) {
    (
        (gx * DET_STRIDE + DET_STRIDE / 2) as i64,
        (gy * DET_STRIDE + DET_STRIDE / 2) as i64,
    )
}

/// Frame coordinate of a half-res coordinate.
pub fn to_frame(v: f32) -> f32 {
    (v + 0.5) * DETECT_DOWNSAMPLE as f32
}

/// Score all cells (coarse-to-fine, [`COARSE_STEP`]) and return candidates
/// above `threshold`, after NMS with radius `nms_factor * size`.
pub fn find_candidates(p: &Prepared, det: &Mlp, threshold: f32, nms_factor: f32) -> Vec<Candidate> {
    find_candidates_with(p, det, threshold, nms_factor, COARSE_STEP)
}

/// [`find_candidates`] with an explicit coarse step (1 = score every cell; the
/// fitter uses 1, as when the shipped model was fitted).
pub fn find_candidates_with(
    p: &Prepared,
    det: &Mlp,
    threshold: f32,
    nms_factor: f32,
    coarse_step: usize,
) -> Vec<Candidate> {
    find_impl(p, det, threshold, nms_factor, coarse_step, true)
}

/// [`find_candidates_with`] evaluating the detector with the reference
/// [`Mlp::forward_buf`] instead of the fast [`DetKernel`] (same result up to
/// float rounding). The fitter mines with this, so the shipped model's
/// training crops do not depend on the kernel's summation order.
pub fn find_candidates_reference(
    p: &Prepared,
    det: &Mlp,
    threshold: f32,
    nms_factor: f32,
    coarse_step: usize,
) -> Vec<Candidate> {
    find_impl(p, det, threshold, nms_factor, coarse_step, false)
}

fn find_impl(
    p: &Prepared,
    det: &Mlp,
    threshold: f32,
    nms_factor: f32,
    coarse_step: usize,
    fast: bool,
) -> Vec<Candidate> {
    let gw = p.w / DET_STRIDE;
    let gh = p.h / DET_STRIDE;
    if gw == 0 || gh == 0 {
        return Vec::new();
    }
    // Logits (cells skipped by the pre-filter stay at -inf); the sigmoid is
    // only evaluated around candidates.
    let mut sc = CellScorer {
        p,
        det,
        kernel: DetKernel::with_cpu(det, p.cpu),
        fast,
        gw,
        prob: vec![f32::NEG_INFINITY; gw * gh],
        lsize: vec![0f32; gw * gh],
        done: vec![false; gw * gh],
        pending: None,
        bufs: Default::default(),
    };
    if coarse_step <= 1 {
        for gy in 0..gh {
            for gx in 0..gw {
                sc.visit(gx, gy);
            }
        }
        sc.flush();
    } else {
        // Coarse pass on every COARSE_STEP-th cell, then all cells around the
        // promising ones (a die covers several coarse cells).
        for gy in (0..gh).step_by(coarse_step) {
            for gx in (0..gw).step_by(coarse_step) {
                sc.visit(gx, gy);
            }
        }
        sc.flush();
        let mut hot = Vec::new();
        for gy in (0..gh).step_by(coarse_step) {
            for gx in (0..gw).step_by(coarse_step) {
                if sc.prob[gy * gw + gx] >= COARSE_LOGIT {
                    hot.push((gx, gy));
                }
            }
        }
        for (gx, gy) in hot {
            for ny in gy.saturating_sub(coarse_step)..(gy + coarse_step + 1).min(gh) {
                for nx in gx.saturating_sub(coarse_step)..(gx + coarse_step + 1).min(gw) {
                    sc.visit(nx, ny);
                }
            }
        }
        sc.flush();
    }
    let CellScorer { prob, lsize, .. } = sc;
    let thr_logit = {
        let t = threshold.clamp(1e-6, 1.0 - 1e-6);
        (t / (1.0 - t)).ln()
    };
    let mut cands = Vec::new();
    // Most cells are far below the threshold (or skipped, -inf): whole
    // groups of cells are ruled out with one branch-free test (which
    // vectorises) before the cells are looked at one by one.
    let any_above = |g: &[f32]| g.iter().fold(false, |a, &v| a | (v >= thr_logit));
    for gy in 0..gh {
        let row = &prob[gy * gw..(gy + 1) * gw];
        for (g, group) in row.chunks(SCAN_GROUP).enumerate() {
            if !any_above(group) {
                continue;
            }
            for (i, &v) in group.iter().enumerate() {
                if v.is_nan() || v < thr_logit {
                    continue;
                }
                let gx = g * SCAN_GROUP + i;
                if let Some(c) = local_candidate(&prob, &lsize, gw, gh, gx, gy) {
                    cands.push(c);
                }
            }
        }
    }
    nms(cands, nms_factor)
}

/// Cells per group of [`find_impl`]'s threshold scan (one AVX register of
/// `f32`).
const SCAN_GROUP: usize = 8;

/// The candidate at grid cell `(gx, gy)` (whose logit is at least the
/// threshold), if the cell is a local maximum of the logits: centred on the
/// probability-weighted mean of its 3x3 neighbourhood, sized by its own
/// size output.
fn local_candidate(
    prob: &[f32],
    lsize: &[f32],
    gw: usize,
    gh: usize,
    gx: usize,
    gy: usize,
) -> Option<Candidate> {
    let v = prob[gy * gw + gx];
    let mut is_max = true;
    let (mut sw, mut sx, mut sy) = (0f32, 0f32, 0f32);
    for dy in -1i64..=1 {
        for dx in -1i64..=1 {
            let (nx, ny) = (gx as i64 + dx, gy as i64 + dy);
            if nx < 0 || ny < 0 || nx >= gw as i64 || ny >= gh as i64 {
                continue;
            }
            let k = ny as usize * gw + nx as usize;
            let n = prob[k];
            // Ties broken by index so a flat plateau yields one maximum.
            if n > v || (n == v && k < gy * gw + gx) {
                is_max = false;
            }
            let n = sigmoid(n);
            let (ccx, ccy) = cell_center(nx as usize, ny as usize);
            sw += n;
            sx += n * ccx as f32;
            sy += n * ccy as f32;
        }
    }
    if !is_max || sw <= 0.0 {
        return None;
    }
    let size = (lsize[gy * gw + gx].clamp(-10.0, 10.0).exp()).clamp(SIZE_RANGE.0, SIZE_RANGE.1);
    Some(Candidate {
        center: [to_frame(sx / sw), to_frame(sy / sw)],
        size,
        score: sigmoid(v),
    })
}

/// Scores grid cells for [`find_impl`], each at most once: cells that pass
/// the pre-filter get their features computed at once and are evaluated in
/// pairs ([`DetKernel::eval2`]; a cell's result does not depend on which
/// cell it is paired with, so the order of visits does not change it).
struct CellScorer<'a> {
    p: &'a Prepared,
    det: &'a Mlp,
    kernel: DetKernel,
    /// Whether to use [`Self::kernel`] (else the reference MLP).
    fast: bool,
    gw: usize,
    /// Objectness logit per cell (`-inf` when skipped or not scored).
    prob: Vec<f32>,
    /// ln size per cell.
    lsize: Vec<f32>,
    done: Vec<bool>,
    /// A cell waiting for a partner: index and features.
    pending: Option<(usize, [f32; N_DET_FEATURES])>,
    /// Scratch of the MLP evaluations.
    bufs: [Vec<f32>; 4],
}

impl CellScorer<'_> {
    /// Score grid cell `(gx, gy)` unless already done (the result may wait
    /// in [`Self::pending`] until the next visit or [`Self::flush`]).
    fn visit(&mut self, gx: usize, gy: usize) {
        let k = gy * self.gw + gx;
        if self.done[k] {
            return;
        }
        self.done[k] = true;
        let (cx, cy) = cell_center(gx, gy);
        if !passes_prefilter(self.p, cx, cy) {
            return;
        }
        let mut f = [0f32; N_DET_FEATURES];
        det_features(self.p, cx, cy, &mut f);
        let [xs, hid, o, hid2] = &mut self.bufs;
        if !self.fast {
            self.det.forward_buf(&f, xs, hid, o);
            let r = (o[0], o.get(1).copied().unwrap_or(0.0));
            self.store(k, r);
            return;
        }
        match self.pending.take() {
            None => self.pending = Some((k, f)),
            Some((k0, f0)) => {
                let [r0, r1] = self.kernel.eval2(&f0, &f, hid, hid2);
                self.store(k0, r0);
                self.store(k, r1);
            }
        }
    }

    /// Evaluate the cell left waiting for a partner, if any.
    fn flush(&mut self) {
        if let Some((k, f)) = self.pending.take() {
            let r = self.kernel.eval(&f, &mut self.bufs[1]);
            self.store(k, r);
        }
    }

    fn store(&mut self, k: usize, (logit, ls): (f32, f32)) {
        self.prob[k] = logit;
        self.lsize[k] = ls;
    }
}

/// Greedy non-maximum suppression: keep the best candidate, drop any other whose
/// centre lies within `factor * size` of a kept one.
pub fn nms(mut cands: Vec<Candidate>, factor: f32) -> Vec<Candidate> {
    cands.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut kept: Vec<Candidate> = Vec::new();
    for c in cands {
        let clash = kept.iter().any(|k| {
            let d =
                ((k.center[0] - c.center[0]).powi(2) + (k.center[1] - c.center[1]).powi(2)).sqrt();
            d < factor * k.size.min(c.size)
        });
        if !clash {
            kept.push(c);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nms_keeps_best_of_overlapping() {
        let a = Candidate {
            center: [10.0, 10.0],
            size: 40.0,
            score: 0.9,
        };
        let b = Candidate {
            center: [15.0, 10.0],
            size: 40.0,
            score: 0.8,
        };
        let c = Candidate {
            center: [60.0, 10.0],
            size: 40.0,
            score: 0.7,
        };
        let k = nms(vec![b, c, a], 0.6);
        assert_eq!(k, vec![a, c]);
    }

    #[test]
    fn kernel_matches_mlp() {
        use super::super::mlp::XorShift;
        let mut rng = XorShift::new(3);
        let mut det = Mlp::new(N_DET_FEATURES, 24, 2, &mut rng);
        let rows: Vec<Vec<f32>> = (0..50)
            .map(|_| (0..N_DET_FEATURES).map(|_| rng.unit() * 100.0).collect())
            .collect();
        det.set_standardisation(&rows);
        let k = DetKernel::new(&det);
        let mut hid = Vec::new();
        for r in &rows {
            let o = det.forward(r);
            let (a, b) = k.eval(r, &mut hid);
            assert!((o[0] - a).abs() < 1e-3 * (1.0 + a.abs()), "{} {a}", o[0]);
            assert!((o[1] - b).abs() < 1e-3 * (1.0 + b.abs()), "{} {b}", o[1]);
            // The CPU-specific path (if any) agrees with the portable one
            // exactly.
            let (pa, pb) = k.eval_portable(r, &mut hid);
            assert_eq!((a.to_bits(), b.to_bits()), (pa.to_bits(), pb.to_bits()));
        }
        // Pairs (each CPU-specific variant) agree with single evaluations.
        let mut hid2 = Vec::new();
        let bits = |(a, b): (f32, f32)| (a.to_bits(), b.to_bits());
        for pair in rows.windows(2) {
            let want = [
                bits(k.eval_portable(&pair[0], &mut hid)),
                bits(k.eval_portable(&pair[1], &mut hid)),
            ];
            let got = k.eval2(&pair[0], &pair[1], &mut hid, &mut hid2).map(bits);
            assert_eq!(got, want);
            let got = k
                .eval2_portable(&pair[0], &pair[1], &mut hid, &mut hid2)
                .map(bits);
            assert_eq!(got, want);
            #[cfg(target_arch = "x86_64")]
            if Cpu::detect().avx {
                // SAFETY: AVX checked just above.
                let got = unsafe { k.eval2_avx(&pair[0], &pair[1], &mut hid, &mut hid2) };
                assert_eq!(got.map(bits), want);
            }
        }
    }
}
