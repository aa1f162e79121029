//! Choosing the detector and read thresholds, and scoring snapshots, on the
//! tune part.

use super::*;

/// Choose both thresholds of a fitted model on the tune images (`parts`):
/// returns (detector threshold, read threshold, log line).
pub(super) fn tune_thresholds(
    items: &[LabelledImage],
    parts: &[Part],
    images: &[Option<RgbImage>],
    model: &DiceModel,
) -> (f32, f32, String) {
    let tune: Vec<(&LabelledImage, &RgbImage)> = items
        .iter()
        .zip(parts)
        .zip(images)
        .filter_map(|((it, p), img)| match (p, img) {
            (Part::Tune, Some(img)) => Some((it, img)),
            _ => None,
        })
        .collect();
    let scored: Vec<Vec<(Candidate, [f32; N_CLASSES])>> = tune
        .iter()
        .map(|(_, img)| {
            let pr = prepare(img);
            find_candidates_reference(&pr, &model.detector, MINE_THRESHOLD, NMS_FACTOR, 1)
                .into_iter()
                .map(|c| (c, classify(img, &model.classifier, &c).0))
                .collect()
        })
        .collect();
    // Objective: multiset matches minus MISREAD_COST per read that matches
    // nothing (a misread or false die costs more than an unread die), then
    // exact images.
    let pairs: Vec<TuneImage> = tune
        .iter()
        .zip(&scored)
        .map(|((it, _), c)| (it.dice.as_slice(), c.as_slice()))
        .collect();
    let best = choose_thresholds(&pairs);
    let line = format!(
        "tuned on {} tune images: det_threshold {} read_threshold {} (score {}, exact {}, tp {})",
        tune.len(),
        best.2,
        best.3,
        best.0,
        best.1,
        best.4
    );
    (best.2, best.3, line)
}

/// Tune-part candidates as (image index, the 8 dihedral feature vectors,
/// class: 0 = not a die, 1-6 = value, `None` = ambiguous, not scored).
type TuneCands = [(usize, Vec<Vec<f32>>, Option<usize>)];

/// Model-selection score of a classifier on the tune candidates (8-way TTA):
/// (candidates right, summed negative log-likelihood, candidates scored).
pub(super) fn tune_score(net: &FaceNet, tune_cands: &TuneCands) -> (usize, f64, usize) {
    let (mut correct, mut nll, mut n) = (0usize, 0f64, 0usize);
    for (_, feats, class) in tune_cands {
        let Some(class) = class else { continue };
        let mut acc = [0f32; N_CLASSES];
        for f in feats {
            let p = probs_of(net, f);
            for (a, v) in acc.iter_mut().zip(p.0) {
                *a += v / feats.len() as f32;
            }
        }
        let arg = (0..N_CLASSES)
            .max_by(|a, b| acc[*a].total_cmp(&acc[*b]))
            .unwrap_or(0);
        correct += (arg == *class) as usize;
        nll -= (acc[*class].max(1e-6) as f64).ln();
        n += 1;
    }
    (correct, nll, n)
}

/// One tune image for [`choose_thresholds`]: its labelled dice and its
/// detector candidates with class probabilities.
pub type TuneImage<'a> = (&'a [LabelledDie], &'a [(Candidate, [f32; N_CLASSES])]);

/// Detector thresholds tried by [`choose_thresholds`].
pub(super) const DET_THRESHOLDS: [f32; 8] = [0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
/// Read thresholds tried by [`choose_thresholds`].
pub(super) const READ_THRESHOLDS: [f32; 13] = [
    0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 0.95,
];

/// Choose the detector and read thresholds on tune images given as (labelled
/// dice, detector candidates at `MINE_THRESHOLD` with class probabilities).
/// Objective: multiset matches minus `MISREAD_COST` per read that matches
/// nothing, then exact images; among equal objectives the highest detector
/// threshold (fewer candidates on clutter and cards, less work) and then the
/// lowest read threshold win. Returns (score, exact, det threshold, read
/// threshold, matches).
pub fn choose_thresholds(tune: &[TuneImage]) -> (i64, usize, f32, f32, usize) {
    let mut best = (i64::MIN, 0usize, MINE_THRESHOLD, 0.0f32, 0usize);
    for dt in DET_THRESHOLDS {
        for rt in READ_THRESHOLDS {
            let (score, exact, tp, _) = threshold_score(tune, dt, rt);
            let key = (score, exact);
            if key > (best.0, best.1) || (key == (best.0, best.1) && dt > best.2) {
                best = (score, exact, dt, rt, tp);
            }
        }
    }
    best
}

/// Score of one threshold pair on tune images (as [`choose_thresholds`]):
/// (matches minus `MISREAD_COST` per unmatched read, exact images, matches,
/// reads).
pub fn threshold_score(tune: &[TuneImage], dt: f32, rt: f32) -> (i64, usize, usize, usize) {
    let mut exact = 0;
    let mut tp = 0;
    let mut npred = 0;
    for (dice, cands) in tune {
        let reads: Vec<u8> = cands
            .iter()
            .filter(|(c, _)| c.score >= dt)
            .filter_map(
                |(_, p)| match crate::vision::dice::classify::FaceProbs(*p).decide(rt) {
                    crate::vision::dice::classify::Decision::Read { value, .. } => Some(value),
                    _ => None,
                },
            )
            .collect();
        let (t, ex) = multiset_match(dice, &reads);
        tp += t;
        npred += reads.len();
        exact += ex as usize;
    }
    let score = tp as i64 - MISREAD_COST * (npred - tp) as i64;
    (score, exact, tp, npred)
}
