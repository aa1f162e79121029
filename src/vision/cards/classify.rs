//! Nearest-neighbour classification of corner index features.

use super::index::IndexFeatures;
use super::model::{CardModel, Sample};

/// Largest cosine distance (1 - dot) to the nearest rank sample that is still a
/// read. Measured with the edje-train model on the sarm singles (another deck):
/// same-rank distances 0.07-0.1, ranks absent from the model (2-8) >= 0.45.
pub const RANK_MAX_DIST: f32 = 0.25;
/// Required gap between the nearest rank sample and the nearest of another class.
pub const RANK_MIN_MARGIN: f32 = 0.04;
/// Largest cosine distance to the nearest suit sample (pips are simpler shapes,
/// so the window is similar to ranks).
pub const SUIT_MAX_DIST: f32 = 0.25;
/// Required gap between best suit and best other suit of the same colour.
pub const SUIT_MIN_MARGIN: f32 = 0.03;
/// Redness band around the model threshold where the colour is "unsure" and
/// both colours' suits are allowed.
pub const RED_UNSURE: f32 = 12.0;
/// Index ink must be at least this dark relative to paper (0..1); fainter blobs
/// are shadows or blur.
pub const MIN_CONTRAST: f32 = 0.3;

/// The outcome of reading one corner index.
#[derive(Debug, Clone, PartialEq)]
pub struct CornerRead {
    /// Card code, e.g. `"Th"`, `"XR"`.
    pub code: String,
    /// Confidence in [0, 1].
    pub confidence: f32,
}

/// Nearest sample of each label class among `samples` passing `allow`:
/// returns (label, distance) of the best, and the best distance of any other label.
fn nearest(samples: &[Sample], feat: &[f32], allow: &dyn Fn(u8) -> bool) -> Option<(u8, f32, f32)> {
    let mut best: Option<(u8, f32)> = None;
    let mut per_label: Vec<(u8, f32)> = Vec::new();
    for s in samples {
        if !allow(s.label) || s.feat.len() != feat.len() {
            continue;
        }
        let d = 1.0 - dot(&s.feat, feat);
        match per_label.iter_mut().find(|(l, _)| *l == s.label) {
            Some(e) => e.1 = e.1.min(d),
            None => per_label.push((s.label, d)),
        }
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((s.label, d));
        }
    }
    let (bl, bd) = best?;
    let other = per_label
        .iter()
        .filter(|(l, _)| *l != bl)
        .map(|(_, d)| *d)
        .fold(2.0f32, f32::min);
    Some((bl, bd, other))
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

/// Classifies one corner; `None` when unsure (never guesses).
pub fn classify_corner(model: &CardModel, f: &IndexFeatures) -> Option<CornerRead> {
    if f.contrast < MIN_CONTRAST {
        return None;
    }
    let (rank, rd, rother) = nearest(&model.rank, &f.rank, &|_| true)?;
    if rank == b'?' || rd > RANK_MAX_DIST || rother - rd < RANK_MIN_MARGIN {
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
    let allow = |l: u8| unsure || is_red_suit(l) == red;
    let (suit, sd, sother) = nearest(&model.suit, sf, &allow)?;
    if sd > SUIT_MAX_DIST || sother - sd < SUIT_MIN_MARGIN {
        return None;
    }
    let suit_conf = conf(sd, sother, SUIT_MAX_DIST, SUIT_MIN_MARGIN);
    Some(CornerRead {
        code: format!("{}{}", rank as char, suit as char),
        confidence: rank_conf.min(suit_conf),
    })
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

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..37).map(|i| 1.0 - i as f32 * 0.1).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
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
