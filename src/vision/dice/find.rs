//! Die candidate finding: the fitted detector MLP scores a grid of cells on the
//! half-resolution frame, local maxima above threshold become candidates, and
//! overlapping candidates are suppressed.

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
/// cell in each direction (8 frame px apart) and then all cells within
/// `COARSE_STEP` cells of a coarse cell scoring at least [`COARSE_LOGIT`].
/// 1 disables the coarse pass.
pub const COARSE_STEP: usize = 2;

/// Coarse-pass logit above which the neighbourhood is scored in full
/// (sigmoid -> 0.01, a tenth of the shipped detection threshold): a die centre
/// is at most 5.7 px from a coarse cell, where the detector still responds.
pub const COARSE_LOGIT: f32 = -4.6;

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

/// Whether the cheap pre-filter lets the cell at half-res `(cx, cy)` through.
pub fn passes_prefilter(p: &Prepared, cx: i64, cy: i64) -> bool {
    let r = PREFILTER_RADIUS;
    p.box_mean(0, cx - r, cy - r, cx + r + 1, cy + r + 1) >= PREFILTER_MIN
        || p.box_mean(1, cx - r, cy - r, cx + r + 1, cy + r + 1) >= PREFILTER_MIN
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
    let gw = p.w / DET_STRIDE;
    let gh = p.h / DET_STRIDE;
    if gw == 0 || gh == 0 {
        return Vec::new();
    }
    // Logits (cells skipped by the pre-filter stay at -inf); the sigmoid is
    // only evaluated around candidates.
    let mut prob = vec![f32::NEG_INFINITY; gw * gh];
    let mut lsize = vec![0f32; gw * gh];
    let mut f = [0f32; N_DET_FEATURES];
    let (mut xs, mut hid, mut o) = (Vec::new(), Vec::new(), Vec::new());
    let mut done = vec![false; gw * gh];
    let mut eval = |gx: usize, gy: usize, prob: &mut [f32], lsize: &mut [f32]| {
        let k = gy * gw + gx;
        if done[k] {
            return prob[k];
        }
        done[k] = true;
        let (cx, cy) = cell_center(gx, gy);
        if !passes_prefilter(p, cx, cy) {
            return f32::NEG_INFINITY;
        }
        det_features(p, cx, cy, &mut f);
        det.forward_buf(&f, &mut xs, &mut hid, &mut o);
        prob[k] = o[0];
        lsize[k] = o.get(1).copied().unwrap_or(0.0);
        prob[k]
    };
    if coarse_step <= 1 {
        for gy in 0..gh {
            for gx in 0..gw {
                eval(gx, gy, &mut prob, &mut lsize);
            }
        }
    } else {
        // Coarse pass on every COARSE_STEP-th cell, then all cells around the
        // promising ones (a die covers several coarse cells).
        let mut hot = Vec::new();
        for gy in (0..gh).step_by(coarse_step) {
            for gx in (0..gw).step_by(coarse_step) {
                if eval(gx, gy, &mut prob, &mut lsize) >= COARSE_LOGIT {
                    hot.push((gx, gy));
                }
            }
        }
        for (gx, gy) in hot {
            for ny in gy.saturating_sub(coarse_step)..(gy + coarse_step + 1).min(gh) {
                for nx in gx.saturating_sub(coarse_step)..(gx + coarse_step + 1).min(gw) {
                    eval(nx, ny, &mut prob, &mut lsize);
                }
            }
        }
    }
    let thr_logit = {
        let t = threshold.clamp(1e-6, 1.0 - 1e-6);
        (t / (1.0 - t)).ln()
    };
    let mut cands = Vec::new();
    for gy in 0..gh {
        for gx in 0..gw {
            let v = prob[gy * gw + gx];
            if v.is_nan() || v < thr_logit {
                continue;
            }
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
                continue;
            }
            let size =
                (lsize[gy * gw + gx].clamp(-10.0, 10.0).exp()).clamp(SIZE_RANGE.0, SIZE_RANGE.1);
            cands.push(Candidate {
                center: [to_frame(sx / sw), to_frame(sy / sw)],
                size,
                score: sigmoid(v),
            });
        }
    }
    nms(cands, nms_factor)
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
}
