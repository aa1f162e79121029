//! Reading a picture card (J, Q, K, joker) from its whole face: a second
//! opinion for whole-card outlines whose corner indices gave no read.
//!
//! Court pictures differ from card to card within a deck and are large and
//! colourful, so a blurred, faint or partly covered index may leave the card
//! unread while its picture is still plain. The card is rectified through its
//! outline, averaged down to a coarse colour grid ([`FACE_GRID`]) and compared
//! with the model's face samples (cut from labelled photos at fitting time,
//! or from a player's own deck by `learn-deck`). Court pictures are drawn
//! double-ended, and the outline does not say which end is up, so a face is
//! compared both ways round (the grid turned half a turn is its cells in
//! reverse order).
//!
//! A picture card that has no outline of its own (it lies under another
//! card or a book, or its paper joins a sheet or tile grout in the mask)
//! may still show a right-angled corner of a merged blob that no index read
//! named. Its outline is predicted from that corner at the frame's card
//! width, and its face is compared cell by cell with each cell's difference
//! capped ([`partial_face_distance`]): the covered part adds a bounded
//! amount and the part that shows decides ([`read_corner_faces`]).

use super::CardRead;
use super::find::CornerFrame;
use super::learn::valid_code;
use super::model::FaceSample;
use super::prep::QuadSampler;
use crate::vision::geometry::{Point, Quad, cross, sub};
use image::RgbImage;

/// Cells across and down the face grid (the card's short side first). Coarse
/// on purpose: at 12 x 18 a court picture's layout and colours are kept,
/// while blur, JPEG noise and a misplaced outline edge are averaged away.
pub const FACE_GRID: (usize, usize) = (12, 18);

/// Length of a face feature: one value per colour channel per cell.
pub const FACE_DIM: usize = FACE_GRID.0 * FACE_GRID.1 * 3;

/// Bilinear samples per cell along each axis (averaged into the cell).
pub const FACE_SUBSAMPLES: usize = 4;

/// Margin left out around the face, as shares of the card's width and
/// height: outlines found in the paper mask sit a little off the card edge,
/// so the table shows along them.
pub const FACE_INSET: (f32, f32) = (0.06, 0.04);

/// Largest cosine distance (1 - dot) to the nearest face sample that is
/// still a read. Development split (edje `train_*` 4-fold, fold models): the
/// one unread outline that is a court lies 0.047 from its card's faces, every
/// other unread outline (number cards, covered cards, paper) 0.44 or more
/// from any court face, so any limit from 0.05 to 0.4 reads the same; at 0.15
/// the faces of courts read from their indices are named alike or not at
/// all, never as another card (`examples/face_diag`).
pub const FACE_MAX_DIST: f32 = 0.15;

/// Required gap between the nearest face sample and the nearest sample of
/// another card: the two red kings of one deck differ in the picture's
/// details, not its layout.
pub const FACE_MIN_MARGIN: f32 = 0.05;

/// Confidence of a face read at distance 0; it falls linearly to
/// [`FACE_MIN_CONFIDENCE`] at [`FACE_MAX_DIST`].
pub const FACE_MAX_CONFIDENCE: f32 = 0.9;

/// Confidence of a face read at [`FACE_MAX_DIST`].
pub const FACE_MIN_CONFIDENCE: f32 = 0.5;

/// Cap on one cell's squared colour difference in [`partial_face_distance`],
/// times the number of cells (unit-length faces: 1 is a cell's mean
/// squared size, so a covered cell counts about as much as an unrelated
/// one). Development split, nearest card per unread corner: with 2 (and 3)
/// the courts found lie 1.5x closer than the nearest wrong card, with 1 and
/// 0.5 only 1.4x and 1.3x.
pub const PARTIAL_FACE_CAP: f32 = 2.0;

/// Largest [`partial_face_distance`] to the nearest face sample that is
/// still a read at a merged-blob corner. Development split (edje `train_*`
/// 4-fold, fold models; nearest card per unread corner, best width): the
/// two courts found this way (a jack on tiles whose paper joins the grout,
/// a queen crossed by a cable) lie 0.036 and 0.214 from their cards' faces,
/// every wrong card 0.327 or further; the limit is about midway.
pub const PARTIAL_FACE_MAX_DIST: f32 = 0.27;

/// Required gap between the nearest card and the next one at a merged-blob
/// corner ([`partial_face_distance`]); the two courts of the development
/// split have 0.141 and 0.078.
pub const PARTIAL_FACE_MIN_MARGIN: f32 = 0.03;

/// Card widths tried at a merged-blob corner, as shares of the frame's card
/// width (the width of a corner read comes from its rank glyph's height and
/// may be some 10 % off; the face match needs it within a few percent).
pub const PARTIAL_FACE_WIDTH_SCALES: [f32; 4] = [0.85, 0.92, 1.0, 1.08];

/// Without a card width in the frame: widths tried, as shares of the
/// frame's short side (first, step, count): every other one first, then the
/// two beside the nearest match of those. On all 678 photos of the sets and
/// on the development split this reads the same as trying all 11, at about
/// two thirds of the cost.
pub const PARTIAL_FACE_WIDTH_SWEEP: (f32, f32, usize) = (0.2, 0.025, 11);

/// At most this many unread merged-blob corners are looked at per frame
/// (largest blobs first): each costs a face grid and a comparison with
/// every face sample per width.
pub const MAX_PARTIAL_FACE_CORNERS: usize = 8;

/// Confidence of a read at a merged-blob corner at distance 0; it falls
/// linearly to [`FACE_MIN_CONFIDENCE`] at [`PARTIAL_FACE_MAX_DIST`]. Lower
/// than a whole face's: part of the card is not seen.
pub const PARTIAL_FACE_MAX_CONFIDENCE: f32 = 0.7;

/// A face whose colours deviate from their means by less than this (root
/// mean square, grey levels) is flat: a blank card or paper, nothing to match.
pub const FLAT_FACE_RMS: f32 = 1.0;

/// Whether `code` is a picture card whose face is worth a sample: courts and
/// jokers (number cards are read from their pips, see `pips`).
pub fn is_picture_card(code: &str) -> bool {
    valid_code(code) && matches!(code.as_bytes().first(), Some(b'J' | b'Q' | b'K' | b'X'))
}

/// The face feature of the card outlined by `quad`: mean colour per grid
/// cell, each channel's mean over the face subtracted, scaled to unit length.
/// `None` for a degenerate outline or a face of one flat colour.
pub fn face_feature(rgb: &RgbImage, quad: &Quad) -> Option<Vec<f32>> {
    let corners = upright_corners(quad)?;
    let unit = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let sampler = QuadSampler::new(rgb, &unit, &corners)?;
    let (gw, gh) = FACE_GRID;
    let (su, sv) = (
        (1.0 - 2.0 * FACE_INSET.0) / (gw * FACE_SUBSAMPLES) as f32,
        (1.0 - 2.0 * FACE_INSET.1) / (gh * FACE_SUBSAMPLES) as f32,
    );
    let mut feat = Vec::with_capacity(FACE_DIM);
    for cy in 0..gh {
        for cx in 0..gw {
            let mut sum = [0.0f32; 3];
            for j in 0..FACE_SUBSAMPLES {
                let v = FACE_INSET.1 + ((cy * FACE_SUBSAMPLES + j) as f32 + 0.5) * sv;
                for i in 0..FACE_SUBSAMPLES {
                    let u = FACE_INSET.0 + ((cx * FACE_SUBSAMPLES + i) as f32 + 0.5) * su;
                    let c = sampler.sample(rgb, [u, v])?;
                    for (s, v) in sum.iter_mut().zip(c) {
                        *s += v;
                    }
                }
            }
            let n = (FACE_SUBSAMPLES * FACE_SUBSAMPLES) as f32;
            feat.extend(sum.iter().map(|s| s / n));
        }
    }
    normalise(&mut feat).then_some(feat)
}

/// The outline's corners ordered short side first and clockwise on screen,
/// so that a face is never compared with a mirror image of itself.
fn upright_corners(quad: &Quad) -> Option<[Point; 4]> {
    let mut q = quad.0;
    if quad.side(0) > quad.side(1) {
        q.rotate_left(1);
    }
    let turn = cross(sub(q[1], q[0]), sub(q[2], q[1]));
    if !turn.is_finite() || turn == 0.0 {
        return None;
    }
    // Image y points down: a clockwise outline turns with a positive cross.
    if turn < 0.0 {
        q = [q[1], q[0], q[3], q[2]];
    }
    Some(q)
}

/// Subtracts each channel's mean and scales to unit length; false if nothing
/// is left (a face of one colour, [`FLAT_FACE_RMS`]).
fn normalise(feat: &mut [f32]) -> bool {
    let cells = (feat.len() / 3).max(1) as f32;
    let mut mean = [0.0f32; 3];
    for px in feat.chunks_exact(3) {
        for (m, v) in mean.iter_mut().zip(px) {
            *m += v / cells;
        }
    }
    for px in feat.chunks_exact_mut(3) {
        for (v, m) in px.iter_mut().zip(mean) {
            *v -= m;
        }
    }
    let len = feat.iter().map(|v| v * v).sum::<f32>().sqrt();
    if !(len.is_finite() && len > FLAT_FACE_RMS * (feat.len() as f32).sqrt()) {
        return false;
    }
    feat.iter_mut().for_each(|v| *v /= len);
    true
}

/// Cosine distance of two faces, the smaller of the two ways round.
pub fn face_distance(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 2.0;
    }
    let same: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    // Half a turn: cell k of one is cell (n - 1 - k) of the other, channels kept.
    let turned: f32 = a
        .chunks_exact(3)
        .zip(b.chunks_exact(3).rev())
        .map(|(p, q)| p[0] * q[0] + p[1] * q[1] + p[2] * q[2])
        .sum();
    1.0 - same.max(turned)
}

/// Distance of two faces that tolerates a covered part: each cell's squared
/// colour difference counts up to `cap` / cells only (a truncated square),
/// halved and summed (0 alike; about 1 for unrelated faces when `cap` is
/// large), the smaller of the two ways round. Cells where a card lies under
/// another card, a book or the frame edge add at most the cap, so the part
/// that shows decides.
pub fn partial_face_distance(a: &[f32], b: &[f32], cap: f32) -> f32 {
    partial_face_distance_within(a, b, cap, f32::INFINITY)
}

/// As [`partial_face_distance`], stopping a way round as soon as its sum
/// passes `bound` (the value returned is then above `bound`, not exact):
/// beyond [`PARTIAL_FACE_MAX_DIST`] + [`PARTIAL_FACE_MIN_MARGIN`] a
/// distance decides nothing, and most samples get there early.
fn partial_face_distance_within(a: &[f32], b: &[f32], cap: f32, bound: f32) -> f32 {
    if a.len() != b.len() || a.len() < 3 {
        return 2.0;
    }
    partial_both_ways(a, b, &turned_cells(b), cap, bound)
}

/// `b` turned half a turn: cell k becomes cell (n - 1 - k), channels kept.
fn turned_cells(b: &[f32]) -> Vec<f32> {
    b.chunks_exact(3).rev().flatten().copied().collect()
}

/// [`partial_face_distance_within`] of `a` and `b` given `b` turned too
/// (the same lengths).
fn partial_both_ways(a: &[f32], b: &[f32], b_turned: &[f32], cap: f32, bound: f32) -> f32 {
    let cap = cap / (a.len() / 3).max(1) as f32;
    let limit = 2.0 * bound;
    truncated_sum(a, b, cap, limit).min(truncated_sum(a, b_turned, cap, limit)) / 2.0
}

/// Sum over cells of the squared colour difference of `a` and `b`, each
/// cell's capped at `cap`; one grid row at a time (a flat loop the compiler
/// vectorises), stopping once past `limit`.
fn truncated_sum(a: &[f32], b: &[f32], cap: f32, limit: f32) -> f32 {
    let row = 3 * FACE_GRID.0;
    let mut sum = 0.0f32;
    let mut sq = [0.0f32; 3 * FACE_GRID.0];
    for (pa, pb) in a.chunks(row).zip(b.chunks(row)) {
        let n = pa.len().min(pb.len());
        for ((s, x), y) in sq.iter_mut().zip(pa).zip(pb) {
            *s = (x - y) * (x - y);
        }
        sum += sq[..n]
            .chunks_exact(3)
            .map(|c| (c[0] + c[1] + c[2]).min(cap))
            .sum::<f32>();
        if sum > limit {
            break;
        }
    }
    sum
}

/// As [`nearest_per_card`] with [`partial_face_distance`] ([`PARTIAL_FACE_CAP`]):
/// distances past the decision bound are not exact.
pub fn nearest_partial_per_card(samples: &[FaceSample], feat: &[f32]) -> Vec<([u8; 2], f32)> {
    let bound = PARTIAL_FACE_MAX_DIST + PARTIAL_FACE_MIN_MARGIN;
    let turned = turned_cells(feat);
    nearest_by(samples, |s| {
        if s.len() != feat.len() || s.len() < 3 {
            return 2.0;
        }
        partial_both_ways(s, feat, &turned, PARTIAL_FACE_CAP, bound)
    })
}

/// Each card's nearest face distance to `feat` over `samples`, nearest card
/// first.
pub fn nearest_per_card(samples: &[FaceSample], feat: &[f32]) -> Vec<([u8; 2], f32)> {
    nearest_by(samples, |s| face_distance(s, feat))
}

/// Each card's nearest `distance` over `samples`, nearest card first.
fn nearest_by(samples: &[FaceSample], distance: impl Fn(&[f32]) -> f32) -> Vec<([u8; 2], f32)> {
    let mut best: Vec<([u8; 2], f32)> = Vec::new();
    for s in samples {
        let d = distance(&s.feat);
        match best.iter_mut().find(|(c, _)| *c == s.code) {
            Some(e) => e.1 = e.1.min(d),
            None => best.push((s.code, d)),
        }
    }
    best.sort_by(|a, b| a.1.total_cmp(&b.1));
    best
}

/// The card named by `feat` among `samples`, with its confidence: the
/// nearest sample within [`FACE_MAX_DIST`], every other card's nearest at
/// least [`FACE_MIN_MARGIN`] further.
pub fn classify_face(samples: &[FaceSample], feat: &[f32]) -> Option<(String, f32)> {
    let best = nearest_per_card(samples, feat);
    let (code, d) = *best.first()?;
    let next = best.get(1).map_or(2.0, |e| e.1);
    if d > FACE_MAX_DIST || next - d < FACE_MIN_MARGIN {
        return None;
    }
    let code = String::from_utf8(code.to_vec()).ok()?;
    let share = (d / FACE_MAX_DIST).clamp(0.0, 1.0);
    let confidence = FACE_MAX_CONFIDENCE - (FACE_MAX_CONFIDENCE - FACE_MIN_CONFIDENCE) * share;
    Some((code, confidence))
}

/// The nearest card at one predicted outline: its code, distance, the next
/// card's distance and the outline.
type WidthMatch = ([u8; 2], f32, f32, Quad);

/// Picture cards at merged-blob `corners` that no index read named: at
/// each card width tried (around the frame's card `width`, else a sweep of
/// the frame's short side), the outline the corner predicts is compared
/// with the face samples by [`partial_face_distance`]; the nearest card
/// within [`PARTIAL_FACE_MAX_DIST`], [`PARTIAL_FACE_MIN_MARGIN`] ahead of
/// the next, is read (best width kept). A predicted outline around the
/// centre of a card already read, or whose centre lies in one, belongs to
/// that card and is skipped; reads are added to `cards` as they are made.
pub fn read_corner_faces(
    samples: &[FaceSample],
    rgb: &RgbImage,
    cards: &mut Vec<CardRead>,
    corners: &[CornerFrame],
    width: Option<f32>,
) {
    if samples.is_empty() {
        return;
    }
    let short = rgb.width().min(rgb.height()) as f32;
    let widths: Vec<f32> = match width {
        Some(w) => PARTIAL_FACE_WIDTH_SCALES.iter().map(|s| s * w).collect(),
        None => {
            let (first, step, n) = PARTIAL_FACE_WIDTH_SWEEP;
            (0..n).map(|k| short * (first + step * k as f32)).collect()
        }
    };
    for c in corners.iter().take(MAX_PARTIAL_FACE_CORNERS) {
        // The nearest card (code, distance, next card's distance) of the
        // outline predicted at width `w`, unless a read card owns it.
        let nearest_at = |w: f32| {
            let quad = CornerFrame { width: w, ..*c }.card_quad();
            if cards.iter().any(|r| r.quad.shares_centre_with(&quad)) {
                return None;
            }
            let near = nearest_partial_per_card(samples, &face_feature(rgb, &quad)?);
            let &(code, d) = near.first()?;
            Some((code, d, near.get(1).map_or(2.0, |e| e.1), quad))
        };
        // With the frame's card width every width is tried; in a sweep,
        // every other width first, then the two beside the nearest of those
        // (the distance changes smoothly with the width).
        let mut tried: Vec<Option<WidthMatch>> = vec![None; widths.len()];
        let step = if width.is_some() { 1 } else { 2 };
        for k in (0..widths.len()).step_by(step) {
            tried[k] = nearest_at(widths[k]);
        }
        if step > 1
            && let Some(k) = (0..widths.len())
                .filter(|&k| tried[k].is_some())
                .min_by(|&a, &b| {
                    let d = |k: usize| tried[k].map_or(f32::MAX, |t| t.1);
                    d(a).total_cmp(&d(b))
                })
        {
            for j in [k.wrapping_sub(1), k + 1] {
                if j < widths.len() && j % step != 0 {
                    tried[j] = nearest_at(widths[j]);
                }
            }
        }
        let mut best: Option<([u8; 2], f32, Quad)> = None;
        for &(code, d, next, quad) in tried.iter().flatten() {
            if d <= PARTIAL_FACE_MAX_DIST
                && next - d >= PARTIAL_FACE_MIN_MARGIN
                && best.as_ref().is_none_or(|b| d < b.1)
            {
                best = Some((code, d, quad));
            }
        }
        let Some((code, d, quad)) = best else {
            continue;
        };
        let Ok(code) = String::from_utf8(code.to_vec()) else {
            continue;
        };
        let share = (d / PARTIAL_FACE_MAX_DIST).clamp(0.0, 1.0);
        cards.push(CardRead {
            code,
            quad,
            confidence: PARTIAL_FACE_MAX_CONFIDENCE
                - (PARTIAL_FACE_MAX_CONFIDENCE - FACE_MIN_CONFIDENCE) * share,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// A synthetic "court": a white card with two coloured figures (`tint`
    /// and its channels turned) and a black bar, placed by `layout` (0 or
    /// 1), in a `w` x 1.4 `w` outline at (`x0`, `y0`) on green cloth.
    fn court(tint: [u8; 3], layout: usize, x0: u32, y0: u32, w: u32) -> (RgbImage, Quad) {
        // (u range, v range) of the two figures and the bar, per layout.
        type Region = ((f32, f32), (f32, f32));
        let layouts: [[Region; 3]; 2] = [
            [
                ((0.2, 0.5), (0.15, 0.45)),
                ((0.5, 0.8), (0.55, 0.85)),
                ((0.3, 0.7), (0.45, 0.55)),
            ],
            [
                ((0.1, 0.9), (0.1, 0.3)),
                ((0.1, 0.9), (0.7, 0.9)),
                ((0.45, 0.55), (0.3, 0.7)),
            ],
        ];
        let [a, b, bar] = layouts[layout];
        let inside =
            |r: Region, u: f32, v: f32| (r.0.0..r.0.1).contains(&u) && (r.1.0..r.1.1).contains(&v);
        let h = w * 14 / 10;
        let mut img = RgbImage::from_pixel(x0 * 2 + w, y0 * 2 + h, Rgb([40, 90, 40]));
        for y in y0..y0 + h {
            for x in x0..x0 + w {
                let (u, v) = ((x - x0) as f32 / w as f32, (y - y0) as f32 / h as f32);
                let px = if inside(a, u, v) {
                    Rgb(tint)
                } else if inside(b, u, v) {
                    Rgb([tint[2], tint[0], tint[1]])
                } else if inside(bar, u, v) {
                    Rgb([20, 20, 20])
                } else {
                    Rgb([235, 235, 230])
                };
                img.put_pixel(x, y, px);
            }
        }
        let (x0, y0, w, h) = (x0 as f32, y0 as f32, w as f32, h as f32);
        let quad = Quad([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]]);
        (img, quad)
    }

    fn sample(code: &str, feat: Vec<f32>) -> FaceSample {
        let b = code.as_bytes();
        FaceSample {
            code: [b[0], b[1]],
            feat,
        }
    }

    #[test]
    fn a_face_reads_at_any_corner_order_and_half_turn() {
        let (img, quad) = court([200, 30, 30], 0, 20, 30, 90);
        let (other, oquad) = court([30, 30, 200], 0, 20, 30, 90);
        let samples = samples_of(&img, &quad, &other, &oquad);
        // The same outline given from another corner, the long side first,
        // or counter-clockwise: the same card.
        let q = quad.0;
        for corners in [
            [q[2], q[3], q[0], q[1]],
            [q[1], q[2], q[3], q[0]],
            [q[3], q[2], q[1], q[0]],
        ] {
            let f = face_feature(&img, &Quad(corners)).unwrap();
            let (code, conf) = classify_face(&samples, &f).unwrap();
            assert_eq!(code, "Kh");
            assert!(conf > 0.85, "{conf}");
        }
        let f = face_feature(&other, &oquad).unwrap();
        assert_eq!(classify_face(&samples, &f).unwrap().0, "Qs");
    }

    #[test]
    fn unknown_faces_and_flat_paper_are_not_read() {
        let (img, quad) = court([200, 30, 30], 0, 20, 30, 90);
        let samples = vec![sample("Kh", face_feature(&img, &quad).unwrap())];
        // A blank card has no feature at all.
        let blank = RgbImage::from_pixel(200, 200, image::Rgb([230, 230, 230]));
        let bq = Quad([[10.0, 10.0], [100.0, 10.0], [100.0, 136.0], [10.0, 136.0]]);
        assert!(face_feature(&blank, &bq).is_none());
        // A different picture is too far from every sample.
        let (green, gq) = court([30, 200, 30], 1, 20, 30, 90);
        let f = face_feature(&green, &gq).unwrap();
        assert!(face_distance(&samples[0].feat, &f) > FACE_MAX_DIST);
        assert!(classify_face(&samples, &f).is_none());
        // Two cards with the same picture: no margin, no read.
        let twin = vec![samples[0].clone(), sample("Kd", samples[0].feat.clone())];
        let f = face_feature(&img, &quad).unwrap();
        assert!(classify_face(&twin, &f).is_none());
        assert!(classify_face(&[], &f).is_none());
    }

    /// `img` with the rectangle (x0, y0)-(x1, y1) painted white (a sheet
    /// or another card's margin lying over the card).
    fn covered(img: &RgbImage, (x0, y0, x1, y1): (u32, u32, u32, u32)) -> RgbImage {
        let mut out = img.clone();
        for y in y0..y1 {
            for x in x0..x1 {
                out.put_pixel(x, y, Rgb([240, 240, 240]));
            }
        }
        out
    }

    /// Face samples of a `Kh` (`img`) and a `Qs` (`other`).
    fn samples_of(img: &RgbImage, quad: &Quad, other: &RgbImage, oquad: &Quad) -> Vec<FaceSample> {
        vec![
            sample("Kh", face_feature(img, quad).unwrap()),
            sample("Qs", face_feature(other, oquad).unwrap()),
        ]
    }

    /// `cards` is one read of `code` whose outline corner `k` lies at x.
    fn assert_one_read(cards: &[CardRead], code: &str, k: usize, x: f32) {
        assert_eq!(cards.len(), 1);
        assert_eq!(cards[0].code, code);
        assert!(
            (cards[0].quad.0[k][0] - x).abs() < 1.0,
            "{:?}",
            cards[0].quad
        );
    }

    /// The corner frame at `quad`'s first corner (short side along x).
    fn corner_of(quad: &Quad) -> CornerFrame {
        CornerFrame {
            origin: quad.0[0],
            r: [1.0, 0.0],
            d: [0.0, 1.0],
            width: 1.0,
        }
    }

    #[test]
    fn partial_distance_ignores_a_covered_part() {
        let (img, quad) = court([200, 30, 30], 0, 20, 30, 90);
        let (other, oquad) = court([30, 30, 200], 1, 20, 30, 90);
        let own = face_feature(&img, &quad).unwrap();
        let unrelated = face_feature(&other, &oquad).unwrap();
        // A third of the card under white paper (its lower part).
        let part = face_feature(&covered(&img, (20, 114, 110, 156)), &quad).unwrap();
        let cap = PARTIAL_FACE_CAP;
        assert!(partial_face_distance(&own, &own, cap) < 1e-6);
        let near = partial_face_distance(&own, &part, cap);
        let far = partial_face_distance(&unrelated, &part, cap);
        assert!(near < PARTIAL_FACE_MAX_DIST, "own face {near}");
        assert!(
            far > near + PARTIAL_FACE_MIN_MARGIN,
            "own {near}, other {far}"
        );
        // The whole-face cosine distance counts the covered part in full.
        assert!(face_distance(&own, &part) > near);
        // Half a turn reads the same.
        let turned = turned_cells(&own);
        assert!((partial_face_distance(&turned, &part, cap) - near).abs() < 1e-5);
        // Stopping at a bound never reports less than the bound.
        let stopped = partial_face_distance_within(&unrelated, &part, cap, near);
        assert!(stopped > near);
    }

    #[test]
    fn a_covered_court_is_read_at_its_corner() {
        let (img, quad) = court([200, 30, 30], 0, 20, 30, 90);
        let (other, oquad) = court([30, 30, 200], 1, 20, 30, 90);
        let samples = samples_of(&img, &quad, &other, &oquad);
        let part = covered(&img, (20, 114, 110, 156));
        let corner = corner_of(&quad);
        // At the frame's card width.
        let mut cards = Vec::new();
        read_corner_faces(&samples, &part, &mut cards, &[corner], Some(90.0));
        assert_one_read(&cards, "Kh", 2, 110.0);
        assert!(cards[0].confidence <= PARTIAL_FACE_MAX_CONFIDENCE);
        // A card already read there owns the corner: nothing added.
        read_corner_faces(&samples, &part, &mut cards, &[corner], Some(90.0));
        assert_eq!(cards.len(), 1);
        // Without a card width in the frame: found by the width sweep (the
        // card is 0.325 of the short side, a width the coarse pass skips).
        let (big, bquad) = court([200, 30, 30], 0, 81, 70, 78);
        assert_eq!(big.width(), 240);
        let big_part = covered(&big, (81, 160, 159, 179));
        let mut swept = Vec::new();
        read_corner_faces(
            &samples_of(&big, &bquad, &other, &oquad),
            &big_part,
            &mut swept,
            &[corner_of(&bquad)],
            None,
        );
        assert_one_read(&swept, "Kh", 1, 159.0);
        // No samples, or a corner on plain cloth: no read.
        let mut none = Vec::new();
        read_corner_faces(&[], &part, &mut none, &[corner], Some(90.0));
        let cloth = RgbImage::from_pixel(200, 260, Rgb([40, 90, 40]));
        read_corner_faces(&samples, &cloth, &mut none, &[corner], Some(90.0));
        read_corner_faces(&samples, &cloth, &mut none, &[corner], None);
        assert!(none.is_empty());
    }

    #[test]
    fn degenerate_outlines_give_no_feature() {
        let (img, _) = court([200, 30, 30], 0, 20, 30, 90);
        let flat = Quad([[10.0, 10.0], [50.0, 10.0], [90.0, 10.0], [130.0, 10.0]]);
        assert!(face_feature(&img, &flat).is_none());
        let nan = Quad([[f32::NAN, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
        assert!(face_feature(&img, &nan).is_none());
    }

    #[test]
    fn picture_cards_are_courts_and_jokers() {
        for c in ["Js", "Qh", "Kd", "XR", "XB"] {
            assert!(is_picture_card(c), "{c}");
        }
        for c in ["As", "Th", "9c", "", "XX", "Kz", "K"] {
            assert!(!is_picture_card(c), "{c}");
        }
    }
}
