//! Face classification of a die candidate with the fitted classifier MLP.

use super::cnn::{FaceNet, FaceScratch};
use super::crop::{aligned_crop, crop_features, face_colour};
use super::find::Candidate;
use super::mlp::softmax;
use super::model::N_CLASSES;

/// The face-aligned crop side is the estimated face side times this factor: a
/// little margin tolerates size and centre error.
pub const CROP_SCALE: f32 = 1.15;

/// Test-time augmentation: the class probabilities are averaged over this
/// many dihedral transforms of the face crop (1, 2, 4 or 8); the classifier
/// was fitted on all 8, and averaging evens out its orientation quirks.
pub const TTA_TRANSFORMS: usize = 8;

/// Class probabilities of one candidate: index 0 = not a die, 1..=6 = value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FaceProbs(pub [f32; N_CLASSES]);

/// What to report for a candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Not a die (background, card pip, ...): drop it.
    NotDie,
    /// A die whose face is not read confidently.
    Unread,
    /// A read die.
    Read {
        /// Value 1-6.
        value: u8,
        /// Probability of that value.
        confidence: f32,
    },
}

impl FaceProbs {
    /// Decide: not-a-die if that is the most likely class, otherwise read when
    /// the best value's probability reaches `read_threshold`, else unread.
    pub fn decide(&self, read_threshold: f32) -> Decision {
        let p = &self.0;
        let (best, &pb) = p[1..]
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .unwrap_or((0, &0.0));
        if p[0] >= pb {
            return Decision::NotDie;
        }
        if pb >= read_threshold {
            Decision::Read {
                value: best as u8 + 1,
                confidence: pb.clamp(0.0, 1.0),
            }
        } else {
            Decision::Unread
        }
    }
}

/// Early exit of the test-time augmentation: when the untransformed crop
/// alone gives a class probability of at least this, the other 7 transforms
/// are skipped (most dice are that clear; the doubtful ones get the full
/// average). Chosen on the train and tune parts: decisions then differ from
/// the full 8-way average on well under 1 % of candidates.
pub const TTA_EARLY_EXIT: f32 = 0.995;

/// The dihedral transform that is averaged with the plain crop first (4 = the
/// mirror image, which shares no orientation quirk with the plain crop).
/// Must be one of the [`TTA_TRANSFORMS`] transforms (`t * 8 /
/// TTA_TRANSFORMS`), else the pair exit is skipped.
pub const TTA_PAIR: usize = 4;

/// Second early exit of the test-time augmentation (issue 4, read speed):
/// when the average of the plain crop and its [`TTA_PAIR`] transform gives a
/// class probability of at least this, the other 6 transforms are skipped
/// and that 2-way average is the result. Chosen on the tune and train parts
/// with the shipped model: at 0.8 every die's decision (right / wrong /
/// unread / not a die) is the same as with the full average (0.7 turns one
/// unread tune die into a wrong read); it saves about 7.5 M of 69 M
/// instructions on the 720p bench frame.
pub const TTA_PAIR_EXIT: f32 = 0.8;

/// Reusable buffers for classifying many candidates (one per reader call).
#[derive(Debug, Clone)]
pub struct ClassifyScratch {
    /// SIMD paths of the crop and its features (the net keeps its own copy).
    cpu: super::cpu::Cpu,
    net: FaceScratch,
    logits: Vec<f32>,
}

impl ClassifyScratch {
    /// Buffers for a read on the SIMD paths `cpu` allows (at most what the
    /// CPU has; `Default` detects them).
    pub fn with_cpu(cpu: super::cpu::Cpu) -> Self {
        Self {
            cpu,
            net: FaceScratch::with_cpu(cpu),
            logits: Vec::new(),
        }
    }
}

impl Default for ClassifyScratch {
    /// Buffers for the SIMD paths this CPU has.
    fn default() -> Self {
        Self::with_cpu(super::cpu::Cpu::detect())
    }
}

/// Crop the candidate from the frame and classify it.
pub fn classify(rgb: &image::RgbImage, clf: &FaceNet, c: &Candidate) -> FaceProbs {
    classify_scratch(rgb, clf, c, &mut ClassifyScratch::default())
}

/// [`classify`] with reusable buffers.
pub fn classify_scratch(
    rgb: &image::RgbImage,
    clf: &FaceNet,
    c: &Candidate,
    sc: &mut ClassifyScratch,
) -> FaceProbs {
    probs_tta_with(clf, &candidate_features(rgb, c, sc.cpu), TTA_EARLY_EXIT, sc)
}

/// Untransformed crop features of a candidate: its face-aligned crop, as the
/// classifier takes it (on the SIMD paths `cpu` allows).
pub fn candidate_features(rgb: &image::RgbImage, c: &Candidate, cpu: super::cpu::Cpu) -> Vec<f32> {
    let (cells, side) = aligned_crop(rgb, c.center[0], c.center[1], c.size, CROP_SCALE, 0.0, cpu);
    crop_features(&cells, side, 0, cpu)
}

/// Classify and also return the estimated face colour (RGB 0-255), with the
/// full 8-way test-time augmentation.
pub fn classify_with_face(
    rgb: &image::RgbImage,
    clf: &FaceNet,
    c: &Candidate,
) -> (FaceProbs, [f32; 3]) {
    classify_with(rgb, clf, c, f32::INFINITY)
}

/// Classify with an explicit TTA early-exit probability (`INFINITY` = always
/// average all 8 transforms, with no [`TTA_PAIR_EXIT`] either); also
/// returns the face colour.
pub fn classify_with(
    rgb: &image::RgbImage,
    clf: &FaceNet,
    c: &Candidate,
    early_exit: f32,
) -> (FaceProbs, [f32; 3]) {
    let f0 = candidate_features(rgb, c, super::cpu::Cpu::detect());
    let face = face_colour(&f0);
    (probs_tta(clf, &f0, early_exit), face)
}

/// TTA-averaged probabilities for untransformed crop features `f0`; with a
/// finite `early_exit`, the plain crop alone at `early_exit` and the plain +
/// [`TTA_PAIR`] average at [`TTA_PAIR_EXIT`] end it early.
pub fn probs_tta(clf: &FaceNet, f0: &[f32], early_exit: f32) -> FaceProbs {
    probs_tta_with(clf, f0, early_exit, &mut ClassifyScratch::default())
}

/// [`probs_tta`] with reusable buffers.
pub fn probs_tta_with(
    clf: &FaceNet,
    f0: &[f32],
    early_exit: f32,
    sc: &mut ClassifyScratch,
) -> FaceProbs {
    let first = probs_of_with(clf, f0, sc);
    if first.0.iter().any(|p| *p >= early_exit) {
        return first;
    }
    let step = 8 / TTA_TRANSFORMS;
    // The pair transform first (when it is one of the transforms and the
    // early exits are on); the full average below still adds the transforms
    // in index order, so it is the same as without the pair exit.
    let pair = if early_exit.is_finite() && TTA_PAIR.is_multiple_of(step) && TTA_PAIR > 0 {
        let p = probs_transformed_with(clf, f0, TTA_PAIR, sc);
        let avg: [f32; N_CLASSES] = std::array::from_fn(|k| (first.0[k] + p.0[k]) / 2.0);
        if avg.iter().any(|v| *v >= TTA_PAIR_EXIT) {
            return FaceProbs(avg);
        }
        Some(p)
    } else {
        None
    };
    let mut acc = first.0.map(|v| v / TTA_TRANSFORMS as f32);
    for k in 1..TTA_TRANSFORMS {
        let t = k * step;
        let p = match pair {
            Some(p) if t == TTA_PAIR => p,
            _ => probs_transformed_with(clf, f0, t, sc),
        };
        for (a, v) in acc.iter_mut().zip(p.0) {
            *a += v / TTA_TRANSFORMS as f32;
        }
    }
    FaceProbs(acc)
}

/// Softmax class probabilities for a crop feature vector.
pub fn probs_of(clf: &FaceNet, f: &[f32]) -> FaceProbs {
    probs_of_with(clf, f, &mut ClassifyScratch::default())
}

/// [`probs_of`] with reusable buffers.
pub fn probs_of_with(clf: &FaceNet, f: &[f32], sc: &mut ClassifyScratch) -> FaceProbs {
    clf.forward_with(f, &mut sc.net, &mut sc.logits);
    logits_to_probs(&mut sc.logits)
}

/// [`probs_of_with`] of the crop features `f0` under dihedral transform `t`
/// (what [`super::crop::transform_features`] gives, without building it).
fn probs_transformed_with(
    clf: &FaceNet,
    f0: &[f32],
    t: usize,
    sc: &mut ClassifyScratch,
) -> FaceProbs {
    clf.forward_transformed_with(f0, t, &mut sc.net, &mut sc.logits);
    logits_to_probs(&mut sc.logits)
}

/// Softmax of the logits `o` (in place), non-finite values as 0.
fn logits_to_probs(o: &mut [f32]) -> FaceProbs {
    softmax(o);
    let mut p = [0f32; N_CLASSES];
    for (d, s) in p.iter_mut().zip(o.iter().copied()) {
        *d = if s.is_finite() { s } else { 0.0 };
    }
    FaceProbs(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decisions() {
        let mut p = [0.0; N_CLASSES];
        p[0] = 0.6;
        p[3] = 0.4;
        assert_eq!(FaceProbs(p).decide(0.5), Decision::NotDie);
        let mut p = [0.0; N_CLASSES];
        p[0] = 0.1;
        p[3] = 0.45;
        p[4] = 0.45;
        assert_eq!(FaceProbs(p).decide(0.5), Decision::Unread);
        let mut p = [0.0; N_CLASSES];
        p[5] = 0.9;
        assert_eq!(
            FaceProbs(p).decide(0.5),
            Decision::Read {
                value: 5,
                confidence: 0.9
            }
        );
    }
}
