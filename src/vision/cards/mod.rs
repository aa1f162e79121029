//! Playing-card reader: finds cards in a frame and reads their corner indices.
//!
//! Pipeline: (1) reduce the frame to <= [`prep::WORK_MAX_SIDE`] px and threshold
//! a "paper" score (bright, unsaturated); (2) outer contours that are card-shaped
//! become whole-card quads, other blobs (overlapping / fanned cards) yield
//! right-angled corner hypotheses ([`outlines`]); (3) at each candidate index
//! corner, and at glyph pairs found directly as ink blobs (index-first,
//! [`glyphs`]), the patch is sampled at full resolution in card coordinates,
//! split into rank glyph and suit pip ([`index`]), and classified by nearest
//! neighbour against the [`CardModel`] ([`classify`]); (4) corner reads of one
//! card are combined, and duplicates merged (`merge`).

pub mod backs;
pub mod classify;
pub mod faces;
pub mod find;
pub mod glyphs;
pub mod index;
pub mod learn;
mod merge;
pub mod model;
pub mod outlines;
pub mod pips;
pub mod prep;

pub use backs::BackColour;
pub use learn::{LabelledImage, fit_card_model, learn_deck};
pub use model::CardModel;
pub use outlines::debug_candidates;

use crate::vision::error::VisionError;
use crate::vision::geometry::Quad;
use classify::{CornerRead, PackedModel, classify_packed, classify_packed_with_contrast, combine};
use find::{CornerFrame, quad_frames};
use image::{DynamicImage, RgbImage};
use merge::{CornerCardRead, OutlineRead};
use outlines::{Candidates, candidates};

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

/// At most this many merged-blob corners per frame (largest blobs first)
/// that gave no read get a last try at the faint ink levels
/// (`CardReader::read_corner_faint`). Development split (4-fold, fixed fold
/// models, reading only): 508 correct / 1 wrong -> 509 / 1 with 1, 2, 4, 8
/// or every such corner (the 9h of a fan, `train_IMG_2663`); also 509 / 1
/// with the normal and strict levels re-tried at the guessed width (gate
/// 0.5 / 0.6 / 0.7 alike), 508 / 1 when only frames whose card width is known
/// from a whole card get it. The budget bounds the cost (callgrind, 8-card
/// bench frame): 103.8M -> 106.3M instructions per read with 4, 110.1M with
/// every corner, 113.9M with every corner and all levels.
pub const MAX_FAINT_CORNER_READS: usize = 4;

/// At most this many index-first hypotheses (glyph pairs) are read per frame,
/// most plausible first: bounds the time on cluttered frames.
pub const MAX_INDEX_READS: usize = 20;

/// Index-first hypotheses beyond [`MAX_INDEX_READS`] (the next most
/// plausible) that are read too when their rank glyph lies inside a
/// card-shaped outline left unread: an outline is evidence of a card there,
/// while on textured tables (carpet) the clutter's glyph pairs outrank the
/// index of a fanned card (a fan of three read as one outline: the K's index
/// was the 27th hypothesis). Development split (reading only): 503 correct /
/// 1 wrong -> 504 / 1 at 7-15 alike (5: 503 / 1; 20, 30, 40: 504 / 2, a
/// carpet outline on a webcam frame taking clutter read as Ks); the middle
/// of the plateau is kept.
pub const MAX_OUTLINE_INDEX_READS: usize = 10;

/// Looser ink level tried on an index-first hypothesis that the normal levels
/// could not read (faint indices whose strokes break up at 72%).
pub const INDEX_FAINT_INK_LEVEL: f32 = 0.78;

/// Fourth ink level tried at a whole-card corner (confident reads only): faint
/// pink indices of webcam frames have strokes at 80-88% of the paper level.
/// Only outline corners get it (their position and scale are known; on
/// index-first hypotheses such a level would split clutter). 4-fold
/// cross-validation on edje train_*: with [`prep::RETHRESHOLD_PAPER_SHARE`]
/// 470 -> 474 correct at 0.84-0.86, 473 at 0.82, 470 at 0.88; wrong reads 2.
pub const OUTLINE_FAINTEST_INK_LEVEL: f32 = 0.84;

/// Ink level tried at a whole-card corner after
/// [`OUTLINE_FAINTEST_INK_LEVEL`] and before [`OUTLINE_PALE_INK_LEVEL`]
/// (confident reads only, usual contrast floor): the thin grey J of a blurred
/// webcam court card (`train_cam_image43` Js) has its hook at 84-88% of the
/// paper level, so at 0.84 the hook is cut off (nearest `?`) and at 0.89 and
/// above the hook joins the pip below it; between, the J is whole (J at
/// 0.08-0.12, next class 0.3 further) with its pip. Development split (fold
/// models, reading only): 511 -> 512 correct at 0.85 / 0.86 / 0.87 / 0.88,
/// 511 at 0.9 / 0.92; wrong reads 1 throughout.
pub const OUTLINE_FAINTER_INK_LEVEL: f32 = 0.87;

/// Ink level of the suit pip in the pip rescue at whole-card corners, after
/// [`OUTLINE_FAINTER_INK_LEVEL`]: the rank glyph as split at that faint
/// level, the pip as split at this one, when the faint level finds no pip
/// under the glyph (the pale club of `train_cam_image43` Jc joins the court
/// picture's large club at 0.87 and touches the patch border; at 0.72 it is
/// whole). The normal ink level; development split (with
/// [`OUTLINE_RESCUE_MIN_CONFIDENCE`]): 512 -> 513 correct at pip levels
/// 0.68 / 0.7 / 0.72 / 0.75 (512 at 0.64 and 0.78), rank level 0.86 or 0.87
/// (512 at 0.85 and 0.88); wrong reads 1 throughout.
pub const OUTLINE_RESCUE_PIP_LEVEL: f32 = index::INK_LEVEL;

/// Confidence a pip-rescue read ([`OUTLINE_RESCUE_PIP_LEVEL`]) needs: that
/// of a lone outline corner ([`OUTLINE_SINGLE_MIN_CONFIDENCE`]) rather than
/// [`STRICT_MIN_CONFIDENCE`]; the blurred club of `train_cam_image43` is only
/// 0.023 nearer a club than a spade sample (confidence 0.56). Development
/// split: 513 correct at 0.4 / 0.45 / 0.5 / 0.55, 512 at 0.6; wrong reads 1.
pub const OUTLINE_RESCUE_MIN_CONFIDENCE: f32 = OUTLINE_SINGLE_MIN_CONFIDENCE;

/// Last ink level tried at a whole-card corner (confident reads only): the
/// pink rank glyphs of overexposed webcam frames have strokes at 88-94% of
/// the paper level, so at [`OUTLINE_FAINTEST_INK_LEVEL`] the pip is taken for
/// the rank; at 0.95 the glyph is whole and its nearest sample is near (e.g.
/// K at 0.07, J at 0.05), but its mean contrast (~0.2, the split takes in the
/// glyph's pale rim) is under [`classify::MIN_CONTRAST`], hence
/// [`OUTLINE_PALE_MIN_CONTRAST`]. Outline corners only: their position and
/// scale are known. Development split (fold models as documented, reading
/// only, contrast floor 0.15): 492 -> 497 / 498 / 498 / 499 / 496 / 493
/// correct at 0.92 / 0.94 / 0.95 / 0.96 / 0.97 / 0.98, also 497-499 with two
/// or three levels between 0.88 and 0.97; wrong reads 2 throughout.
pub const OUTLINE_PALE_INK_LEVEL: f32 = 0.95;

/// Ink contrast floor of a read at [`OUTLINE_PALE_INK_LEVEL`] (the usual
/// floor is [`classify::MIN_CONTRAST`]). Development split at level 0.95:
/// 498 correct at 0.1 and 0.15, 493 at 0.2 (at 0.3 nothing is gained); wrong
/// reads 2.
pub const OUTLINE_PALE_MIN_CONTRAST: f32 = 0.1;

/// One step of the ink-level ladder of a whole-card corner: the ink levels
/// of one split (a later level's pip may join the first's rank glyph, see
/// [`index::Patch::read`]) and the ink contrast floor of its read.
pub type LadderStep = (&'static [f32], f32);

/// The ink levels a whole-card corner is read at, in order
/// (`CardReader::read_frame`, which gates each step, and
/// `CardReader::read_pooled`, which weighs what each step finds): normal
/// then strict, strict alone, faint, faintest, fainter (with its pip rescue
/// in `read_frame`) and pale with its lower contrast floor.
pub const OUTLINE_LADDER: [LadderStep; 6] = [
    (
        &[index::INK_LEVEL, index::INK_LEVEL_STRICT],
        classify::MIN_CONTRAST,
    ),
    (&[index::INK_LEVEL_STRICT], classify::MIN_CONTRAST),
    (&[INDEX_FAINT_INK_LEVEL], classify::MIN_CONTRAST),
    (&[OUTLINE_FAINTEST_INK_LEVEL], classify::MIN_CONTRAST),
    (&[OUTLINE_FAINTER_INK_LEVEL], classify::MIN_CONTRAST),
    (&[OUTLINE_PALE_INK_LEVEL], OUTLINE_PALE_MIN_CONTRAST),
];

/// Last ink level tried on an index-first hypothesis, after
/// [`INDEX_FAINT_INK_LEVEL`]: pink rank glyphs that only the faint red blob
/// pass (`glyphs::FAINT_RED_INK_LEVEL`) found are too faint for 0.78 too.
/// Development split (fold models as documented): 485 -> 486 correct at
/// 0.80-0.86 (0.9: 485), wrong reads 2 throughout, so the clutter this
/// level could split did not turn into reads.
pub const INDEX_FAINTEST_INK_LEVEL: f32 = OUTLINE_FAINTEST_INK_LEVEL;

/// Ink level tried last on an index-first hypothesis, after the faint levels:
/// between the normal (0.72) and strict (0.5) levels. Where the rank glyph
/// and the pip of a small blurred index touch at 0.72, and the strict level
/// keeps too little of a greyish glyph, this level separates them.
/// Development split (reading only, with [`INDEX_MIN_CONFIDENCE`] 0.6):
/// 488 -> 491 correct at 0.6, 0.64 and 0.66 alike (also with both 0.6 and
/// 0.66 tried, or with the patch's own Otsu level instead: the same three
/// cards), wrong reads 2. Extra levels at outline corners (0.6 / 0.66 / 0.9)
/// read nothing more.
pub const INDEX_MID_INK_LEVEL: f32 = 0.64;

/// Only the first this many index-first hypotheses that get the faint-ink
/// retry (most plausible first) also get [`INDEX_MID_INK_LEVEL`]: on frames
/// whose centre pips make many hypotheses the extra level cost 7% more
/// instructions (8-card bench frame). Development split: 492 correct / 2
/// wrong with 1, 2, 4, 8 or all 20 (491 with none).
pub const MAX_MID_RETRIES: usize = 4;

/// Index-first hypotheses may sample a corner patch whose sparse pre-check
/// grid holds up to this share of ink (outline corners: `index::MAX_INK_SHARE`,
/// 0.5). The glyph pair already says an index is there; when the predicted
/// frame is a little too large or off the corner, a court card's picture
/// fills the patch past 0.5 and the index went unread. Reading only
/// (`fit-cards` samples outline corners), chosen on the 4-fold development
/// split over edje `train_*`: 504 -> 505 correct at 0.65-0.9 and with no
/// check at all, none wrong added (0.6: 504).
pub const INDEX_MAX_INK_SHARE: f32 = 0.8;

/// At most this many index-first hypotheses per frame (most plausible first)
/// get the faint-ink retry. Was 4 (to bound the time when an unread card's
/// centre pips make many hypotheses); every hypothesis read now gets it: on
/// edje train_* that reads one more card, at no precision cost.
pub const MAX_FAINT_RETRIES: usize = MAX_INDEX_READS;

/// Radius (patch px, 120 per card width) of the pip split tried last on an
/// index-first hypothesis that nothing read (`index::Patch::read_split`, at
/// the normal ink level): a small blurred card's index pip can join the
/// neighbouring centre pip through a neck a few px wide where its rank glyph
/// is whole (the "10" of `train_IMG_2603`'s Tc, T at 0.31 with no pip), and
/// at the stricter levels that split them the glyph is gone. Development
/// split (4-fold CV, fixed fold models, reading only): 511 correct / 1 wrong
/// -> 512 / 1 at radius 2 and 3 (1 and 4: 511); at radius 2 also 512 / 1
/// with the split at ink level 0.78 (0.68: 511), on crowded patches too, or
/// also at whole-card corners (no more cards there, so not done).
pub const INDEX_PIP_SPLIT_RADIUS: usize = 2;

/// Cards read whole are excluded from the index-first search, their quads
/// grown by this factor about the centre.
pub const READ_QUAD_GROW: f32 = 1.08;

/// An index-first read must be at least this confident: it has no outline to
/// support it, so a weak match is not trusted (precision over recall). Was
/// 0.6; development split (fold models as documented, reading only): 488 ->
/// 491 correct at 0.55-0.58 with wrong reads 2 throughout (the three cards
/// read at 0.59-0.6, just under the old gate), 491 / 3 at 0.5, 491 / 4 at 0.45.
/// The upper end of that plateau is kept (the smallest change).
pub const INDEX_MIN_CONFIDENCE: f32 = 0.58;

/// Corner shifts (card widths along the diagonal, negative = outward) tried
/// when no corner of a whole-card outline gave a read: the outline found in the
/// mask often sits inside the card (shadowed or blurred rims), cutting the
/// index glyphs at the patch edge and making the card look smaller than it is.
pub const REREAD_SHIFTS: [f32; 1] = [-0.03];

/// A whole-card outline hides its inside from the index-first search only when
/// at least this many of its corners gave agreeing reads.
pub const TRUSTED_OUTLINE_READS: usize = 2;

/// A whole-card outline read at one corner only must be at least this
/// confident (the other tries at outline corners already ask for
/// [`STRICT_MIN_CONFIDENCE`], only the first ink levels had no gate). A
/// club's king on carpet read as a spade at 0.38 (suit distance 0.24, next
/// suit 0.03 further) while the index-first path read the other corner
/// right. Development split (reading only): 503 correct / 2 wrong -> 503 / 1
/// at 0.4-0.6 alike (0.3: 503 / 2; 0.65: 501 / 1; 0.7: 499 / 1); the middle
/// of the plateau is kept.
pub const OUTLINE_SINGLE_MIN_CONFIDENCE: f32 = 0.5;

/// A card read from its centre pips must have at least this suit
/// confidence (as [`STRICT_MIN_CONFIDENCE`]: only outlines whose indices
/// gave nothing get this read, i.e. the hard ones).
pub const PIP_MIN_CONFIDENCE: f32 = STRICT_MIN_CONFIDENCE;

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
    packed: PackedModel,
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

/// Replaces `best` with `read` at frame `f` when it is more confident (the
/// first read wins ties): the per-width loops of corner reads keep one.
fn keep_most_confident(
    best: &mut Option<(CornerRead, CornerFrame)>,
    read: Option<CornerRead>,
    f: CornerFrame,
) {
    if let Some(r) = read
        && best
            .as_ref()
            .is_none_or(|(b, _)| r.confidence > b.confidence)
    {
        *best = Some((r, f));
    }
}

impl CardReader {
    /// Loads a reader from model bytes (see [`model`] for the format).
    pub fn from_model_bytes(bytes: &[u8]) -> Result<Self, VisionError> {
        Ok(CardReader::from_model(CardModel::from_bytes(bytes)?))
    }

    /// Wraps an in-memory model.
    pub fn from_model(model: CardModel) -> Self {
        let packed = PackedModel::new(&model);
        CardReader { model, packed }
    }

    fn classify(&self, f: &index::IndexFeatures) -> Option<CornerRead> {
        classify_packed(&self.model, &self.packed, f)
    }

    /// The loaded model.
    pub fn model(&self) -> &CardModel {
        &self.model
    }

    /// Second opinion at the strict ink level; only confident reads count.
    fn read_strict(&self, rgb: &RgbImage, f: &CornerFrame) -> Option<CornerRead> {
        index::read_corner_strict(rgb, f)
            .and_then(|x| self.classify(&x))
            .filter(|r| r.confidence >= STRICT_MIN_CONFIDENCE)
    }

    /// Reads a corner of known scale: the normal ink levels, then the strict
    /// second opinion (as [`Self::read_strict`]), then a third at
    /// [`INDEX_FAINT_INK_LEVEL`] (thin pale strokes that break up at the
    /// normal level; only confident reads count) and a fourth at
    /// [`OUTLINE_FAINTEST_INK_LEVEL`], a fifth at [`OUTLINE_FAINTER_INK_LEVEL`]
    /// (then its rank glyph with a pip split at [`OUTLINE_RESCUE_PIP_LEVEL`]),
    /// and a last one at [`OUTLINE_PALE_INK_LEVEL`]
    /// with the lower contrast floor [`OUTLINE_PALE_MIN_CONTRAST`], all on one
    /// sampled patch: the tries differ only in the ink level (and floor), and
    /// sampling the photo costs as much as a split.
    fn read_frame(&self, rgb: &RgbImage, f: &CornerFrame) -> Option<CornerRead> {
        self.read_frame_from(rgb, f, false)
    }

    /// [`Self::read_frame`], from the faint ink levels on when `faint_only`
    /// (the normal and strict levels already tried by the caller).
    fn read_frame_from(
        &self,
        rgb: &RgbImage,
        f: &CornerFrame,
        faint_only: bool,
    ) -> Option<CornerRead> {
        let patch = index::sample_patch(rgb, f)?;
        let read = |(levels, min_contrast): LadderStep| {
            patch
                .read(index::MIN_RANK_HEIGHT, index::MAX_RANK_HEIGHT, levels)
                .and_then(|x| {
                    classify_packed_with_contrast(&self.model, &self.packed, &x, min_contrast)
                })
        };
        let confident = |r: &CornerRead| r.confidence >= STRICT_MIN_CONFIDENCE;
        let [normal, strict, faint, faintest, fainter, pale] = OUTLINE_LADDER;
        let first = || {
            if faint_only {
                return None;
            }
            read(normal).or_else(|| read(strict).filter(confident))
        };
        first()
            .or_else(|| read(faint).filter(confident))
            .or_else(|| read(faintest).filter(confident))
            .or_else(|| {
                // One split at the fainter level; a pip rescued from the
                // normal level's split has the lower gate.
                let (x, rescued) = patch.read_with_pip_level(
                    index::MIN_RANK_HEIGHT,
                    index::MAX_RANK_HEIGHT,
                    fainter.0[0],
                    OUTLINE_RESCUE_PIP_LEVEL,
                )?;
                let gate = if rescued {
                    OUTLINE_RESCUE_MIN_CONFIDENCE
                } else {
                    STRICT_MIN_CONFIDENCE
                };
                self.classify(&x).filter(|r| r.confidence >= gate)
            })
            .or_else(|| read(pale).filter(confident))
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
            let read = self.classify(&feat).or_else(|| self.read_strict(rgb, &f));
            keep_most_confident(&mut best, read, f);
            if best
                .as_ref()
                .is_some_and(|(b, _)| b.confidence >= EARLY_ACCEPT)
            {
                break;
            }
        }
        best
    }

    /// Last try at a merged-blob corner that [`Self::read_unscaled`] left
    /// unread: the faint ink levels of [`Self::read_frame`] (faint, faintest
    /// and pale, confident reads only) at each guessed card width, the most
    /// confident read kept. A corner cut from its card's outline (another
    /// card over it, the frame edge, a fan) whose index is pale finds no rank
    /// glyph at the normal level, so it was never read at the faint ones.
    fn read_corner_faint(
        &self,
        rgb: &RgbImage,
        c: &CornerFrame,
        guesses: &[f32],
    ) -> Option<(CornerRead, CornerFrame)> {
        let mut best: Option<(CornerRead, CornerFrame)> = None;
        for &g in guesses {
            let f = CornerFrame { width: g, ..*c };
            keep_most_confident(&mut best, self.read_frame_from(rgb, &f, true), f);
        }
        best
    }

    /// Last try on a whole-card outline none of whose corners gave a read:
    /// the centre pips ([`pips::read_pips`]). The pip count must be a rank
    /// the model knows (a pinochle deck has no 2-8), and the pips' suit must
    /// be at least [`PIP_MIN_CONFIDENCE`] confident.
    pub fn read_pips(&self, rgb: &RgbImage, quad: &Quad) -> Option<CornerRead> {
        let p = pips::read_pips(rgb, quad)?;
        if !self.model.rank.iter().any(|s| s.label == p.rank) {
            return None;
        }
        let (suit, confidence) =
            classify::classify_pips(&self.model, &self.packed, &p.pips, p.redness)?;
        (confidence >= PIP_MIN_CONFIDENCE).then(|| CornerRead {
            code: format!("{}{}", p.rank as char, suit as char),
            confidence,
        })
    }

    /// Pip check of a number card read at its corners: whether the centre
    /// pips of the outline `quad` read, confidently ([`Self::read_pips`]),
    /// another code than `r`. Court cards, aces and sevens have no pip
    /// layout, so their reads are not checked. On the development split the
    /// pips read 78 of the 84 number cards read at outline corners, all 78
    /// agreeing with the corners (none vetoed); the check is there for the
    /// card whose corner index is misread while its large centre pips are not.
    fn pips_disagree(&self, rgb: &RgbImage, quad: &Quad, r: &CornerRead) -> bool {
        let Some(&rank) = r.code.as_bytes().first() else {
            return false;
        };
        if !pips::LAYOUTS.iter().any(|&(l, _, _)| l == rank) {
            return false;
        }
        self.read_pips(rgb, quad).is_some_and(|p| p.code != r.code)
    }

    /// Second try on a whole-card outline none of whose corners gave a read:
    /// each corner is re-read with its origin shifted by [`REREAD_SHIFTS`] and
    /// the card width taken from the rank glyph found there (as for corners of
    /// unknown scale). Only confident reads count, and all must agree.
    fn reread_outline(&self, rgb: &RgbImage, frames: &[CornerFrame]) -> Option<CornerRead> {
        let mut reads = Vec::new();
        for f in frames {
            let mut best: Option<CornerRead> = None;
            for s in REREAD_SHIFTS {
                let g = CornerFrame {
                    origin: f.at(s, s),
                    ..*f
                };
                if let Some((r, _)) = self.read_unscaled(rgb, &g, &[f.width])
                    && r.confidence >= STRICT_MIN_CONFIDENCE
                    && best.as_ref().is_none_or(|b| r.confidence > b.confidence)
                {
                    best = Some(r);
                }
                if best.as_ref().is_some_and(|b| b.confidence >= EARLY_ACCEPT) {
                    break;
                }
            }
            reads.extend(best);
        }
        combine(&reads)
    }

    /// Last try on a whole-card outline none of whose corners named the card:
    /// each corner's evidence (a rank it reads, a pip's suit distances) at the
    /// first ink level of [`Self::read_frame`]'s ladder that reads a rank
    /// there (else the pip of the level where it is nearest one suit and
    /// furthest from the others, [`classify::suit_margin`]), pooled over the corners
    /// ([`classify::pool_corners`]): a blurred pip at one corner, near two
    /// suits, is settled by the clear pip of the other corner.
    fn read_pooled(&self, rgb: &RgbImage, frames: &[CornerFrame]) -> Option<CornerRead> {
        let evidence: Vec<classify::CornerEvidence> = frames
            .iter()
            .map(|f| {
                let Some(patch) = index::sample_patch(rgb, f) else {
                    return classify::CornerEvidence::default();
                };
                // (suit margin, evidence) of the most decisive pip so far.
                let mut pip_only: Option<(f32, classify::CornerEvidence)> = None;
                for (levels, floor) in OUTLINE_LADDER {
                    let Some(x) =
                        patch.read(index::MIN_RANK_HEIGHT, index::MAX_RANK_HEIGHT, levels)
                    else {
                        continue;
                    };
                    let e = classify::corner_evidence(&self.packed, &x, floor);
                    if e.rank.is_some() {
                        return e;
                    }
                    if let Some((d, _)) = &e.suit {
                        let m = classify::suit_margin(d);
                        if pip_only.as_ref().is_none_or(|(pm, _)| m > *pm) {
                            pip_only = Some((m, e));
                        }
                    }
                }
                pip_only.map(|(_, e)| e).unwrap_or_default()
            })
            .collect();
        classify::pool_corners(&self.model, &evidence)
            .filter(|r| r.confidence >= OUTLINE_SINGLE_MIN_CONFIDENCE)
    }

    /// Reads an index-first hypothesis: locate the rank glyph at the width the
    /// glyph pair implies (on `patch`, sampled at `h.frame` by the caller so
    /// that the faint-ink retry can reuse it), check that its height agrees
    /// with that width, re-read at the width the glyph gives (frame
    /// re-anchored on the glyph) and classify.
    fn read_index_with(
        &self,
        rgb: &RgbImage,
        h: &glyphs::IndexHyp,
        patch: &index::Patch,
        levels: &[f32],
        split: usize,
    ) -> Option<(CornerRead, CornerFrame)> {
        let read = |f: &CornerFrame| {
            index::sample_patch_with(rgb, f, INDEX_MAX_INK_SHARE)?.read_split(
                index::MIN_RANK_HEIGHT,
                index::MAX_RANK_HEIGHT,
                levels,
                split,
            )
        };
        let f = h.frame;
        let at_glyph = |x: &index::IndexFeatures| {
            (x.rank_centre[0] - glyphs::RANK_CENTRE.0).abs() <= glyphs::RANK_CENTRE_TOLERANCE
                && (x.rank_centre[1] - glyphs::RANK_CENTRE.1).abs() <= glyphs::RANK_CENTRE_TOLERANCE
        };
        let feat = patch
            .read_split(
                index::MIN_RANK_HEIGHT,
                index::MAX_RANK_HEIGHT,
                levels,
                split,
            )
            .filter(at_glyph)?;
        let w = f.width * feat.rank_height / self.model.rank_height.max(1e-3);
        let ratio = w / f.width;
        if !(glyphs::WIDTH_AGREEMENT.0..=glyphs::WIDTH_AGREEMENT.1).contains(&ratio) {
            return None;
        }
        let (feat, f) = if (ratio - 1.0).abs() > RESCALE_TOLERANCE {
            let f2 = glyphs::frame_at(h.glyph, f.r, f.d, w);
            (read(&f2).filter(at_glyph)?, f2)
        } else {
            (feat, f)
        };
        let r = self.classify(&feat)?;
        (r.confidence >= INDEX_MIN_CONFIDENCE).then_some((r, f))
    }

    /// Finds and reads every card in `image`.
    pub fn read(&self, image: &DynamicImage) -> Result<CardScan, VisionError> {
        let Some(rgb) = checked_rgb(image)? else {
            return Ok(CardScan::default());
        };
        let rgb: &RgbImage = &rgb;
        let cands = candidates(rgb, true);
        let mut scan = CardScan::default();
        let whole = self.read_outlines(rgb, &cands, &mut scan);
        // Corner reads: merged blobs first, then index-first.
        let (mut loose, unread_corners) = self.read_merged_corners(rgb, &cands);
        loose.extend(self.read_index_first(rgb, &whole, &scan.unread));
        // The frame's card width for the corner faces: the whole outlines',
        // else the median of every read's.
        let mut widths: Vec<f32> = whole
            .iter()
            .map(|o| o.width)
            .chain(loose.iter().map(|l| l.width))
            .collect();
        widths.sort_by(|a, b| a.total_cmp(b));
        let width = cands
            .width_estimate
            .or(widths.get(widths.len() / 2).copied());
        let mut scan = merge::merge_reads(scan, whole, loose);
        self.read_faces(rgb, &mut scan);
        // Last: picture cards at merged-blob corners nobody read.
        faces::read_corner_faces(
            &self.model.faces,
            rgb,
            &mut scan.cards,
            &unread_corners,
            width,
        );
        Ok(scan)
    }

    /// Last try at the outlines still unread: a picture card's whole face
    /// ([`faces`]), when the model has face samples. A read moves the outline
    /// from `unread` to `cards`, unless a card of that code already read
    /// overlaps it (the outline then is, or covers, that card: a second read
    /// would count it twice).
    fn read_faces(&self, rgb: &RgbImage, scan: &mut CardScan) {
        if self.model.faces.is_empty() {
            return;
        }
        let mut found = Vec::new();
        scan.unread.retain(|quad| {
            let read = faces::face_feature(rgb, quad)
                .and_then(|f| faces::classify_face(&self.model.faces, &f))
                .filter(|(code, _)| {
                    !scan
                        .cards
                        .iter()
                        .chain(&found)
                        .any(|c| c.code == *code && c.quad.shares_centre_with(quad))
                });
            match read {
                Some((code, confidence)) => {
                    found.push(CardRead {
                        code,
                        quad: *quad,
                        confidence,
                    });
                    false
                }
                None => true,
            }
        });
        scan.cards.extend(found);
    }

    /// Reads the whole-card outlines of `cands`; the outlines left unread
    /// and the face-down cards go to `scan`.
    fn read_outlines(
        &self,
        rgb: &RgbImage,
        cands: &Candidates,
        scan: &mut CardScan,
    ) -> Vec<OutlineRead> {
        let mut whole = Vec::new();
        for (k, (quad, ambiguous)) in cands.singles.iter().enumerate() {
            let local = k >= cands.local_from;
            let frames = quad_frames(quad, *ambiguous);
            let reads: Vec<CornerRead> = frames
                .iter()
                .filter_map(|f| self.read_frame(rgb, f))
                .collect();
            // Corners that disagree leave the card unread; corners that gave
            // nothing get the shifted re-read.
            let trusted = reads.len() >= TRUSTED_OUTLINE_READS;
            let read = match combine(&reads) {
                // One corner alone, weakly matched: unread (an index-first
                // read inside the outline may still name the card).
                Some(r) if !trusted && r.confidence < OUTLINE_SINGLE_MIN_CONFIDENCE => None,
                // Two readers that disagree: unread rather than a guess.
                Some(r) if self.pips_disagree(rgb, quad, &r) => None,
                Some(r) => Some((r, trusted)),
                None if reads.is_empty() => self
                    .reread_outline(rgb, &frames)
                    .or_else(|| self.read_pips(rgb, quad))
                    .or_else(|| {
                        self.read_pooled(rgb, &frames)
                            .filter(|r| !self.pips_disagree(rgb, quad, r))
                    })
                    .map(|r| (r, false)),
                None => None,
            };
            if let Some((r, trusted)) = read {
                let width = frames.first().map(|f| f.width).unwrap_or(1.0);
                let read = CardRead {
                    code: r.code,
                    quad: *quad,
                    confidence: r.confidence,
                };
                whole.push(OutlineRead {
                    read,
                    width,
                    trusted,
                });
            } else if local {
                // An outline of the local mask left unread is dropped: on
                // carpet or tiles it may be a speck of card shape, and
                // reporting it (or a back colour) would only add noise.
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
        whole
    }

    /// Reads the corner hypotheses of merged blobs (largest blobs first, at
    /// most [`MAX_CORNER_READS`]), at the frame's card width when whole
    /// cards gave one, else at [`WIDTH_GUESSES`]. Also returns the corners
    /// left unread, in the same order (for [`faces::read_corner_faces`]).
    fn read_merged_corners(
        &self,
        rgb: &RgbImage,
        cands: &Candidates,
    ) -> (Vec<CornerCardRead>, Vec<CornerFrame>) {
        let short = rgb.width().min(rgb.height()) as f32;
        let guesses: Vec<f32> = match cands.width_estimate {
            Some(w) => vec![w],
            None => WIDTH_GUESSES.iter().map(|g| g * short).collect(),
        };
        let mut loose = Vec::new();
        let mut merged: Vec<&(Quad, Vec<CornerFrame>)> = cands.merged.iter().collect();
        merged.sort_by(|a, b| b.0.area().total_cmp(&a.0.area()));
        let corners = merged
            .iter()
            .flat_map(|(_, c)| c.iter())
            .take(MAX_CORNER_READS);
        // Corners that the located-glyph read left unread get the faint ink
        // levels, up to [`MAX_FAINT_CORNER_READS`] of them.
        let mut faint_budget = MAX_FAINT_CORNER_READS;
        let mut unread = Vec::new();
        for c in corners {
            let faint = || {
                if faint_budget == 0 {
                    return None;
                }
                faint_budget -= 1;
                self.read_corner_faint(rgb, c, &guesses)
            };
            if let Some((r, f)) = self.read_unscaled(rgb, c, &guesses).or_else(faint) {
                loose.push(CornerCardRead {
                    read: CardRead {
                        code: r.code,
                        quad: f.card_quad(),
                        confidence: r.confidence,
                    },
                    width: f.width,
                    glyph: f.at(glyphs::RANK_CENTRE.0, glyphs::RANK_CENTRE.1),
                });
            } else {
                unread.push(*c);
            }
        }
        (loose, unread)
    }

    /// Index-first reads: glyph pairs found as ink blobs anywhere outside the
    /// outlines read at two corners (`whole`), most plausible first
    /// ([`MAX_INDEX_READS`], more inside the outlines left `unread`), each
    /// read at the width the pair implies with the ink-level retries.
    fn read_index_first(
        &self,
        rgb: &RgbImage,
        whole: &[OutlineRead],
        unread: &[Quad],
    ) -> Vec<CornerCardRead> {
        let mut loose = Vec::new();
        // Index-first: glyph pairs outside the cards already read whole at
        // both index corners (grown a little: outlines from the mask sit
        // slightly inside the rounded corners, where the index glyphs are).
        // An outline read at one corner only may span two overlapping cards,
        // so the other card's index inside it must stay visible.
        let read_quads: Vec<Quad> = whole
            .iter()
            .filter(|o| o.trusted)
            .map(|o| {
                let r = &o.read;
                let c = r.quad.centre();
                Quad(r.quad.0.map(|p| {
                    [
                        c[0] + (p[0] - c[0]) * READ_QUAD_GROW,
                        c[1] + (p[1] - c[1]) * READ_QUAD_GROW,
                    ]
                }))
            })
            .collect();
        let blobs = glyphs::ink_blobs(rgb, &read_quads);
        let hyps = index_reads(
            glyphs::index_hypotheses(&blobs, MAX_INDEX_READS + MAX_OUTLINE_INDEX_READS),
            unread,
        );
        // Hypotheses read beyond the first [`MAX_INDEX_READS`] lie in unread
        // outlines: they get the faint-ink retry too.
        let mut faint_budget = MAX_FAINT_RETRIES + hyps.len().saturating_sub(MAX_INDEX_READS);
        let mut mid_budget = MAX_MID_RETRIES;
        for h in &hyps {
            // A patch that passes only the looser ink-share check gets the
            // first two ink levels, not the faint / mid retries: the same
            // reads on the split at ~half the extra cost.
            let patch = index::sample_patch_with(rgb, &h.frame, INDEX_MAX_INK_SHARE);
            let crowded = patch.as_ref().is_some_and(index::Patch::crowded);
            let read_split = |levels: &[f32], split: usize| {
                patch
                    .as_ref()
                    .and_then(|p| self.read_index_with(rgb, h, p, levels, split))
            };
            let read_at = |levels: &[f32]| read_split(levels, 0);
            let mut read = read_at(&[index::INK_LEVEL, index::INK_LEVEL_STRICT]);
            // Budgets are spent as before this check was loosened (a
            // crowded patch was no patch, and still used a retry).
            if read.is_none() && faint_budget > 0 {
                faint_budget -= 1;
                if !crowded {
                    read = read_at(&[INDEX_FAINT_INK_LEVEL])
                        .or_else(|| read_at(&[INDEX_FAINTEST_INK_LEVEL]));
                }
                if mid_budget > 0 {
                    mid_budget -= 1;
                    if !crowded {
                        read = read.or_else(|| read_at(&[INDEX_MID_INK_LEVEL]));
                    }
                }
            }
            // Last: a pip joined to a centre pip is split off (not on
            // crowded patches, like the faint / mid retries).
            if read.is_none() && !crowded {
                read = read_split(&[index::INK_LEVEL], INDEX_PIP_SPLIT_RADIUS);
            }
            let Some((r, f)) = read else {
                continue;
            };
            loose.push(CornerCardRead {
                read: CardRead {
                    code: r.code,
                    quad: f.card_quad(),
                    confidence: r.confidence,
                },
                width: f.width,
                glyph: h.glyph,
            });
        }
        loose
    }
}

/// The index-first hypotheses to read, most plausible first: the first
/// [`MAX_INDEX_READS`] of `hyps` (sorted by plausibility), and of the rest
/// those whose rank glyph lies inside an outline left `unread`.
fn index_reads(hyps: Vec<glyphs::IndexHyp>, unread: &[Quad]) -> Vec<glyphs::IndexHyp> {
    hyps.into_iter()
        .enumerate()
        .filter(|(i, h)| *i < MAX_INDEX_READS || unread.iter().any(|q| q.contains(h.glyph)))
        .map(|(_, h)| h)
        .collect()
}

#[cfg(test)]
mod tests;
