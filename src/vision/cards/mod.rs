//! Playing-card reader: finds cards in a frame and reads their corner indices.
//!
//! Pipeline: (1) reduce the frame to <= [`prep::WORK_MAX_SIDE`] px and threshold
//! a "paper" score (bright, unsaturated); (2) outer contours that are card-shaped
//! become whole-card quads, other blobs (overlapping / fanned cards) yield
//! right-angled corner hypotheses; (3) at each candidate index corner the patch
//! is sampled at full resolution in card coordinates, split into rank glyph and
//! suit pip, and classified by nearest neighbour against the [`CardModel`];
//! (4) corner reads of one card are combined, and duplicates merged.

pub mod backs;
pub mod classify;
pub mod find;
pub mod index;
pub mod learn;
pub mod model;
pub mod prep;

pub use backs::BackColour;
pub use learn::{LabelledImage, fit_card_model, learn_deck};
pub use model::CardModel;

use crate::vision::error::VisionError;
use crate::vision::geometry::{Quad, dist};
use classify::{CornerRead, classify_corner, combine};
use find::{Candidate, CornerFrame, quad_frames};
use image::{DynamicImage, RgbImage};

/// Largest frame accepted (40 megapixels); bigger frames are refused with
/// [`VisionError::ImageTooLarge`] rather than risking multi-GB buffers.
pub const MAX_PIXELS: u64 = 40_000_000;

/// Card widths tried first at a merged-blob corner when no whole card in the
/// frame gives the scale, as shares of the frame's short side. With the wide
/// glyph-height window below, 0.2 and 0.4 cover cards of 0.09-0.8 short sides.
pub const WIDTH_GUESSES: [f32; 2] = [0.4, 0.2];

/// Glyph-height window (in guessed card widths) when locating the rank glyph
/// at a guessed scale: a true glyph of ~0.1 W appears 0.045-0.2 of a guess
/// 0.5x-2.2x off.
pub const LOCATE_RANK_HEIGHT: (f32, f32) = (0.045, 0.22);

/// A located glyph implying a card width this far (ratio) from the guess is
/// re-read at the implied width.
pub const RESCALE_TOLERANCE: f32 = 0.12;

/// Two reads of the same code whose predicted card centres are closer than this
/// many card widths are the same physical card.
pub const SAME_CARD_DIST: f32 = 0.45;

/// A corner read at least this confident at the first guessed width is not
/// re-tried at the other guesses (saves time; the reads rarely change).
pub const EARLY_ACCEPT: f32 = 0.8;

/// A read from the strict-ink second opinion must be at least this confident:
/// it only runs on corners the normal split could not read, i.e. the hard
/// ones, so a weak match there is not trusted (precision over recall).
pub const STRICT_MIN_CONFIDENCE: f32 = 0.6;

/// At most this many merged-blob corners are read per frame (largest blobs
/// first): bounds the time on cluttered frames.
pub const MAX_CORNER_READS: usize = 48;

/// Erosion radii (working px) used to split cards that touch each other: 2 px
/// breaks contacts up to ~4 px wide while a card 25 px wide survives (adding a
/// 4 px pass for tile grout gained nothing on edje test).
pub const SPLIT_ERODE: [usize; 1] = [2];

/// A card read from its index.
#[derive(Debug, Clone, PartialEq)]
pub struct CardRead {
    /// Card code: rank `A 2-9 T J Q K` + suit `s h d c`, or `XR` / `XB` jokers.
    pub code: String,
    /// Outline in image pixels (predicted from the index corner when the card is
    /// partly hidden).
    pub quad: Quad,
    /// Confidence in [0, 1].
    pub confidence: f32,
}

/// A face-down card.
#[derive(Debug, Clone, PartialEq)]
pub struct BackRead {
    /// Back colour.
    pub colour: BackColour,
    /// Outline in image pixels.
    pub quad: Quad,
}

/// Everything found in one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CardScan {
    /// Cards read.
    pub cards: Vec<CardRead>,
    /// Card-shaped outlines that could not be read confidently.
    pub unread: Vec<Quad>,
    /// Face-down cards.
    pub backs: Vec<BackRead>,
}

/// Reads playing cards with a loaded [`CardModel`].
#[derive(Debug, Clone)]
pub struct CardReader {
    model: CardModel,
}

/// Frame-level candidates with full-resolution geometry (shared with fitting).
pub(crate) struct Candidates {
    pub singles: Vec<(Quad, bool)>,
    pub merged: Vec<(Quad, Vec<CornerFrame>)>,
    pub width_estimate: Option<f32>,
}

/// Checks the size limit and converts to RGB8.
pub(crate) fn checked_rgb(
    image: &DynamicImage,
) -> Result<Option<std::borrow::Cow<'_, RgbImage>>, VisionError> {
    let (w, h) = (image.width(), image.height());
    if w as u64 * h as u64 > MAX_PIXELS {
        return Err(VisionError::ImageTooLarge {
            width: w,
            height: h,
            limit: MAX_PIXELS,
        });
    }
    if w == 0 || h == 0 {
        return Ok(None);
    }
    Ok(Some(prep::as_rgb8(image)))
}

/// Finds candidate cards in an RGB frame.
pub(crate) fn candidates(rgb: &RgbImage) -> Candidates {
    let work = prep::work_image(rgb);
    let mask = prep::paper_mask(&work);
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
    let mut widths: Vec<f32> = singles
        .iter()
        .filter(|(_, amb)| !amb)
        .map(|(q, _)| (q.side(0) + q.side(2)) / 2.0)
        .collect();
    widths.sort_by(|a, b| a.total_cmp(b));
    let width_estimate = widths.get(widths.len() / 2).copied();
    Candidates {
        singles,
        merged,
        width_estimate,
    }
}

impl CardReader {
    /// Loads a reader from model bytes (see [`model`] for the format).
    pub fn from_model_bytes(bytes: &[u8]) -> Result<Self, VisionError> {
        Ok(CardReader {
            model: CardModel::from_bytes(bytes)?,
        })
    }

    /// Wraps an in-memory model.
    pub fn from_model(model: CardModel) -> Self {
        CardReader { model }
    }

    /// The loaded model.
    pub fn model(&self) -> &CardModel {
        &self.model
    }

    /// Second opinion at the strict ink level; only confident reads count.
    fn read_strict(&self, rgb: &RgbImage, f: &CornerFrame) -> Option<CornerRead> {
        index::read_corner_strict(rgb, f)
            .and_then(|x| classify_corner(&self.model, &x))
            .filter(|r| r.confidence >= STRICT_MIN_CONFIDENCE)
    }

    fn read_frame(&self, rgb: &RgbImage, f: &CornerFrame) -> Option<CornerRead> {
        let normal = index::read_corner(rgb, f).and_then(|x| classify_corner(&self.model, &x));
        normal.or_else(|| self.read_strict(rgb, f))
    }

    /// Reads a corner whose card width is unknown: locate the rank glyph at each
    /// guessed width, derive the width from the glyph height, read there.
    fn read_unscaled(
        &self,
        rgb: &RgbImage,
        c: &CornerFrame,
        guesses: &[f32],
    ) -> Option<(CornerRead, CornerFrame)> {
        let mut best: Option<(CornerRead, CornerFrame)> = None;
        for &g in guesses {
            let f = CornerFrame { width: g, ..*c };
            let Some(feat) = index::read_corner_with(
                rgb,
                &f,
                LOCATE_RANK_HEIGHT.0,
                LOCATE_RANK_HEIGHT.1,
                &[index::INK_LEVEL],
            ) else {
                continue;
            };
            let w = g * feat.rank_height / self.model.rank_height.max(1e-3);
            let (feat, f) = if (w / g - 1.0).abs() > RESCALE_TOLERANCE {
                let f2 = CornerFrame { width: w, ..*c };
                match index::read_corner(rgb, &f2) {
                    Some(x) => (x, f2),
                    None => continue,
                }
            } else {
                (feat, f)
            };
            let read = classify_corner(&self.model, &feat).or_else(|| self.read_strict(rgb, &f));
            if let Some(r) = read
                && best
                    .as_ref()
                    .is_none_or(|(b, _)| r.confidence > b.confidence)
            {
                best = Some((r, f));
            }
            if best
                .as_ref()
                .is_some_and(|(b, _)| b.confidence >= EARLY_ACCEPT)
            {
                break;
            }
        }
        best
    }

    /// Finds and reads every card in `image`.
    pub fn read(&self, image: &DynamicImage) -> Result<CardScan, VisionError> {
        let Some(rgb) = checked_rgb(image)? else {
            return Ok(CardScan::default());
        };
        let rgb: &RgbImage = &rgb;
        let cands = candidates(rgb);
        let mut scan = CardScan::default();
        // (read, card width): whole-card reads first, then corner reads.
        let mut whole: Vec<(CardRead, f32)> = Vec::new();
        let mut loose: Vec<(CardRead, f32)> = Vec::new();
        for (quad, ambiguous) in &cands.singles {
            let frames = quad_frames(quad, *ambiguous);
            let reads: Vec<CornerRead> = frames
                .iter()
                .filter_map(|f| self.read_frame(rgb, f))
                .collect();
            if let Some(r) = combine(&reads) {
                let w = frames.first().map(|f| f.width).unwrap_or(1.0);
                whole.push((
                    CardRead {
                        code: r.code,
                        quad: *quad,
                        confidence: r.confidence,
                    },
                    w,
                ));
            } else if !reads.is_empty() {
                scan.unread.push(*quad);
            } else if let Some(colour) = frames.first().and_then(|f| {
                let h = quad.side(1) / f.width.max(1.0);
                backs::back_colour(rgb, f, h)
            }) {
                scan.backs.push(BackRead {
                    colour,
                    quad: *quad,
                });
            } else {
                scan.unread.push(*quad);
            }
        }
        let short = rgb.width().min(rgb.height()) as f32;
        let guesses: Vec<f32> = match cands.width_estimate {
            Some(w) => vec![w],
            None => WIDTH_GUESSES.iter().map(|g| g * short).collect(),
        };
        let mut merged: Vec<&(Quad, Vec<CornerFrame>)> = cands.merged.iter().collect();
        merged.sort_by(|a, b| b.0.area().total_cmp(&a.0.area()));
        let corners = merged
            .iter()
            .flat_map(|(_, c)| c.iter())
            .take(MAX_CORNER_READS);
        {
            for c in corners {
                if let Some((r, f)) = self.read_unscaled(rgb, c, &guesses) {
                    loose.push((
                        CardRead {
                            code: r.code,
                            quad: f.card_quad(),
                            confidence: r.confidence,
                        },
                        f.width,
                    ));
                }
            }
        }
        // Merge corner reads of the same physical card.
        loose.sort_by(|a, b| b.0.confidence.total_cmp(&a.0.confidence));
        let mut kept: Vec<(CardRead, f32)> = whole;
        for (r, w) in loose {
            let c = r.quad.centre();
            if let Some(k) = kept.iter_mut().find(|(k, kw)| {
                k.code == r.code && dist(k.quad.centre(), c) < SAME_CARD_DIST * kw.max(w)
            }) {
                k.0.confidence = 1.0 - (1.0 - k.0.confidence) * (1.0 - r.confidence);
                continue;
            }
            kept.push((r, w));
        }
        scan.cards.extend(kept.into_iter().map(|(r, _)| r));
        Ok(scan)
    }
}

/// Debug / overlay view of the finder: whole-card quads, merged-blob corner
/// hypotheses (width unset) and the working-resolution paper mask.
pub fn debug_candidates(rgb: &RgbImage) -> (Vec<Quad>, Vec<Vec<CornerFrame>>, image::GrayImage) {
    let c = candidates(rgb);
    let work = prep::work_image(rgb);
    let mask = prep::paper_mask(&work);
    (
        c.singles.into_iter().map(|(q, _)| q).collect(),
        c.merged.into_iter().map(|(_, f)| f).collect(),
        mask,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    fn empty_model() -> CardModel {
        CardModel {
            red_threshold: 40.0,
            rank_height: 0.1,
            rank: Vec::new(),
            suit: Vec::new(),
        }
    }

    /// A 126x176 card at (137, 112) on a dark table; `inner` fills the inside
    /// of a 7 px white border.
    fn card_image(inner: Rgb<u8>) -> DynamicImage {
        let mut img = RgbImage::from_pixel(400, 400, Rgb([30, 32, 30]));
        for y in 112..288 {
            for x in 137..263 {
                let border = !(144..256).contains(&x) || !(119..281).contains(&y);
                img.put_pixel(x, y, if border { Rgb([235, 235, 232]) } else { inner });
            }
        }
        DynamicImage::ImageRgb8(img)
    }

    #[test]
    fn red_and_blue_backs_are_reported() {
        let reader = CardReader::from_model(empty_model());
        for (inner, colour) in [
            (Rgb([170, 30, 40]), BackColour::Red),
            (Rgb([30, 50, 160]), BackColour::Blue),
        ] {
            let scan = reader.read(&card_image(inner)).unwrap();
            assert!(scan.cards.is_empty());
            assert_eq!(scan.backs.len(), 1, "{scan:?}");
            assert_eq!(scan.backs[0].colour, colour);
        }
    }

    #[test]
    fn blank_face_is_unread_not_guessed() {
        let reader = CardReader::from_model(empty_model());
        let scan = reader.read(&card_image(Rgb([235, 235, 232]))).unwrap();
        assert!(scan.cards.is_empty());
        assert_eq!(scan.unread.len(), 1);
        let q = scan.unread[0];
        assert!(
            (q.area() - 126.0 * 176.0).abs() < 0.1 * 126.0 * 176.0,
            "{q:?}"
        );
    }

    #[test]
    fn model_bytes_round_trip_through_reader() {
        let bytes = empty_model().to_bytes();
        let reader = CardReader::from_model_bytes(&bytes).unwrap();
        assert_eq!(reader.model(), &empty_model());
        assert!(CardReader::from_model_bytes(&bytes[..10]).is_err());
    }
}
