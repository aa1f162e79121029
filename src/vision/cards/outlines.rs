//! Candidate cards of a frame: whole-card outlines (from the paper mask, its
//! erosion, stricter thresholds and the local mask) and the corner
//! hypotheses of merged blobs, at full-resolution geometry.

use super::find::{self, Candidate, CornerFrame};
use super::prep;
use crate::vision::geometry::Quad;
use image::RgbImage;

/// Erosion radii (working px) used to split cards that touch each other: 2 px
/// breaks contacts up to ~4 px wide while a card 25 px wide survives (adding a
/// 4 px pass for tile grout gained nothing on edje test).
pub const SPLIT_ERODE: [usize; 1] = [2];

/// Frame-level candidates with full-resolution geometry (shared with fitting).
pub(crate) struct Candidates {
    /// Whole-card outlines, each with whether its portrait direction is
    /// ambiguous (sides too alike to tell: all four corners are read).
    pub singles: Vec<(Quad, bool)>,
    /// `singles[local_from..]` come from the local paper mask
    /// ([`add_local_singles`]): they count only when read.
    pub local_from: usize,
    /// Blobs that are not one card (overlapping, fanned, joined to the
    /// table): their hull and right-angled corner hypotheses.
    pub merged: Vec<(Quad, Vec<CornerFrame>)>,
    /// Median width (px) of the unambiguous whole-card outlines, the frame's
    /// card scale for merged-blob corners; `None` without one.
    pub width_estimate: Option<f32>,
}

/// How many times the paper scores above the threshold are split again
/// (Otsu among them) to look for whole cards inside merged blobs, when the
/// frame gave no whole card at all (webcam frames on light wood grain or
/// unevenly lit paper). 4-fold development split (edje `train_*`, 525 cards,
/// reading only): 486 correct / 2 wrong with 0 or 1 splits, 488 / 2 with 2,
/// 3 or 4.
pub const STRICTER_SPLITS: usize = 2;

/// Adds the whole-card outlines that the masks at the stricter thresholds
/// give ([`prep::stricter_threshold`], [`STRICTER_SPLITS`] times up from the
/// paper threshold `t`): whole cards hidden in merged blobs because the
/// paper threshold also took light table (wood grain, a lit patch). Only
/// outlines inside a merged blob (`hulls`) and not covered by an outline in
/// `singles` count.
fn add_stricter_singles(
    work: &prep::WorkImage,
    t: u8,
    hulls: &[Quad],
    singles: &mut Vec<(Quad, bool)>,
) {
    let mut t = t;
    for _ in 0..STRICTER_SPLITS {
        let Some(t2) = prep::stricter_threshold(work, t) else {
            return;
        };
        t = t2;
        let mask = prep::mask_above(work, t);
        for c in find::find_candidates(&mask, work, 0.0, false) {
            if let Candidate::Single { quad, ambiguous } = c {
                let ctr = quad.centre();
                if hulls.iter().any(|h| h.contains(ctr))
                    && !singles.iter().any(|(q, _)| q.contains(ctr))
                {
                    singles.push((quad, ambiguous));
                }
            }
        }
    }
}

/// Adds the whole-card outlines of the local paper mask
/// ([`prep::local_mask`]) that no outline in `singles` covers: cards whose
/// paper score is under the frame's threshold (shade, a frame lit unevenly,
/// a card on light paper whose far side is darker) but above their
/// surroundings. Replaces the dim pass (Otsu splits of the scores under the
/// threshold, two times down), which found cards in shade only when the
/// whole frame's dim scores split there.
fn add_local_singles(work: &prep::WorkImage, singles: &mut Vec<(Quad, bool)>) {
    let mask = prep::local_mask(work);
    for c in find::find_candidates(&mask, work, 0.0, false) {
        if let Candidate::Single { quad, ambiguous } = c {
            let ctr = quad.centre();
            if !singles.iter().any(|(q, _)| q.contains(ctr)) {
                singles.push((quad, ambiguous));
            }
        }
    }
}

/// Finds candidate cards in an RGB frame; `stricter` adds the whole cards
/// found at the stricter thresholds ([`STRICTER_SPLITS`]) inside merged blobs
/// when no whole card was found, and the whole cards of the local paper mask
/// ([`add_local_singles`]; reading only: the fitted samples come from the
/// plain outlines, and refitting with the stricter ones was noisier on the
/// split).
pub(crate) fn candidates(rgb: &RgbImage, stricter: bool) -> Candidates {
    let work = prep::work_image(rgb);
    let t = prep::paper_threshold(&work);
    let mask = prep::mask_above(&work, t);
    let mut singles: Vec<(Quad, bool)> = Vec::new();
    let mut merged = Vec::new();
    for c in find::find_candidates(&mask, &work, 0.0, true) {
        match c {
            Candidate::Single { quad, ambiguous } => singles.push((quad, ambiguous)),
            Candidate::Merged { hull_quad, corners } => merged.push((hull_quad, corners)),
        }
    }
    // Cards touching at a corner or edge: split by erosion, keep new whole cards.
    for r in SPLIT_ERODE {
        if merged.is_empty() {
            break;
        }
        let eroded = prep::erode_mask(&mask, r);
        for c in find::find_candidates(&eroded, &work, r as f32, false) {
            if let Candidate::Single { quad, ambiguous } = c {
                let ctr = quad.centre();
                if !singles.iter().any(|(q, _)| q.contains(ctr)) {
                    singles.push((quad, ambiguous));
                }
            }
        }
    }
    // Only when the frame has no whole card.
    if stricter && singles.is_empty() && !merged.is_empty() {
        let hulls: Vec<Quad> = merged.iter().map(|(q, _)| *q).collect();
        add_stricter_singles(&work, t, &hulls, &mut singles);
    }
    let mut widths: Vec<f32> = singles
        .iter()
        .filter(|(_, amb)| !amb)
        .map(|(q, _)| (q.side(0) + q.side(2)) / 2.0)
        .collect();
    widths.sort_by(|a, b| a.total_cmp(b));
    // The local outlines do not set the scale: on carpet or tiles some are
    // specks of card shape.
    let width_estimate = widths.get(widths.len() / 2).copied();
    let local_from = singles.len();
    if stricter {
        add_local_singles(&work, &mut singles);
    }
    Candidates {
        singles,
        local_from,
        merged,
        width_estimate,
    }
}

/// Debug / overlay view of the finder: whole-card quads, merged-blob corner
/// hypotheses (width unset) and the working-resolution paper mask.
pub fn debug_candidates(rgb: &RgbImage) -> (Vec<Quad>, Vec<Vec<CornerFrame>>, image::GrayImage) {
    let c = candidates(rgb, true);
    let work = prep::work_image(rgb);
    let mask = prep::paper_mask(&work);
    (
        c.singles.into_iter().map(|(q, _)| q).collect(),
        c.merged.into_iter().map(|(_, f)| f).collect(),
        mask,
    )
}
