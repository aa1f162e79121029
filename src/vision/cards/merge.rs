//! Combining one frame's reads: corner reads of one card merged, different
//! codes at one corner or on one outline left unread.

use super::{CardRead, CardScan, glyphs};
use crate::vision::geometry::{Point, dist};

/// Two reads of the same code whose predicted card centres are closer than this
/// many card widths are the same physical card.
pub const SAME_CARD_DIST: f32 = 0.45;

/// Two reads whose rank glyphs are closer than this many card widths read the
/// same corner: equal codes are one card, different codes cancel each other.
pub const SAME_CORNER_DIST: f32 = 0.12;

/// Centre distance, in card widths, under which two reads of different codes
/// with outlines of like area are one card read two ways
/// ([`same_card_conflicts`]).
pub const SAME_CARD_CONFLICT_DIST: f32 = 0.15;

/// Relative area difference under which two outlines are alike for
/// [`same_card_conflicts`].
pub const SAME_CARD_CONFLICT_AREA: f32 = 0.25;

/// Outlines narrower than this (image px) are not reported unread: their
/// rank glyph (~0.1 card width) would be under [`glyphs::MIN_GLYPH_PX`],
/// which nothing resolves, and such small paper shapes are rarely cards (on
/// `../shared/data` they are light-box walls behind dice, price tags, die
/// faces; the narrowest card read in the 428 card photos is 55 px wide).
pub const MIN_UNREAD_CARD_WIDTH: f32 = glyphs::MIN_GLYPH_PX as f32 / 0.1;

/// Reads of different codes whose outlines nearly coincide (centres within
/// [`SAME_CARD_CONFLICT_DIST`] card widths, areas within
/// [`SAME_CARD_CONFLICT_AREA`] of each other) name one physical card two ways
/// (a whole read from one corner and an index-first read of the other): both
/// are flagged, so the card is reported unread instead of twice. Overlapping
/// cards are not flagged: an index-first outline is predicted from its own
/// corner, so two cards' outlines coincide only when one hides the other.
fn same_card_conflicts(kept: &[(CardRead, f32, Option<Point>)]) -> Vec<bool> {
    let mut out = vec![false; kept.len()];
    for i in 0..kept.len() {
        for j in i + 1..kept.len() {
            let ((a, wa, _), (b, wb, _)) = (&kept[i], &kept[j]);
            let near =
                dist(a.quad.centre(), b.quad.centre()) < SAME_CARD_CONFLICT_DIST * wa.max(*wb);
            let (aa, ab) = (a.quad.area(), b.quad.area());
            let alike = (aa.min(ab) / aa.max(ab).max(1e-3)) > 1.0 - SAME_CARD_CONFLICT_AREA;
            if a.code != b.code && near && alike {
                out[i] = true;
                out[j] = true;
            }
        }
    }
    out
}

/// A card read at a whole-card outline.
pub(super) struct OutlineRead {
    /// The read, with the outline as its quad.
    pub read: CardRead,
    /// Card width (px) of the outline's first index corner.
    pub width: f32,
    /// At least [`super::TRUSTED_OUTLINE_READS`] corners agreed.
    pub trusted: bool,
}

/// A card read at one index corner (a merged blob's corner or an
/// index-first glyph pair), its outline predicted from that corner.
pub(super) struct CornerCardRead {
    /// The read, with the predicted outline as its quad.
    pub read: CardRead,
    /// Card width (px) the corner was read at.
    pub width: f32,
    /// Centre of the corner's rank glyph.
    pub glyph: Point,
}

/// The frame's result from its outline reads (`whole`) and corner reads
/// (`loose`): different codes read at one corner cancel each other; corner
/// reads of a card already read are merged into it (two corners raise its
/// confidence); a corner read inside an outline left unread takes that
/// outline; unread outlines too small to read are dropped
/// ([`MIN_UNREAD_CARD_WIDTH`]); one card read two ways is reported unread
/// ([`same_card_conflicts`]).
pub(super) fn merge_reads(
    mut scan: CardScan,
    whole: Vec<OutlineRead>,
    loose: Vec<CornerCardRead>,
) -> CardScan {
    // Two different codes read at the same corner: neither is trusted.
    let mut drop = vec![false; loose.len()];
    for i in 0..loose.len() {
        for j in i + 1..loose.len() {
            let (a, b) = (&loose[i], &loose[j]);
            if a.read.code != b.read.code
                && dist(a.glyph, b.glyph) < SAME_CORNER_DIST * a.width.max(b.width)
            {
                drop[i] = true;
                drop[j] = true;
            }
        }
    }
    let mut loose: Vec<CornerCardRead> = loose
        .into_iter()
        .zip(drop)
        .filter(|(_, d)| !d)
        .map(|(l, _)| l)
        .collect();
    // Merge corner reads of the same physical card.
    loose.sort_by(|a, b| b.read.confidence.total_cmp(&a.read.confidence));
    let mut kept: Vec<(CardRead, f32, Option<Point>)> =
        whole.into_iter().map(|o| (o.read, o.width, None)).collect();
    for CornerCardRead {
        read: r,
        width: w,
        glyph: g,
    } in loose
    {
        let c = r.quad.centre();
        if let Some(k) = kept.iter_mut().find(|(k, kw, _)| {
            k.code == r.code
                && (dist(k.quad.centre(), c) < SAME_CARD_DIST * kw.max(w) || k.quad.contains(g))
        }) {
            // The same corner read twice is one piece of evidence.
            let same_corner = k.2.is_some_and(|kg| dist(kg, g) < SAME_CORNER_DIST * w);
            if !same_corner {
                k.0.confidence = 1.0 - (1.0 - k.0.confidence) * (1.0 - r.confidence);
            }
            continue;
        }
        // A card-shaped outline left unread that holds this index is this card.
        if let Some(i) = scan.unread.iter().position(|q| q.contains(g)) {
            let q = scan.unread.remove(i);
            kept.push((CardRead { quad: q, ..r }, w, Some(g)));
            continue;
        }
        kept.push((r, w, Some(g)));
    }
    scan.unread
        .retain(|q| q.side(0).min(q.side(1)) >= MIN_UNREAD_CARD_WIDTH);
    let conflicts = same_card_conflicts(&kept);
    for (k, (r, _, _)) in kept.into_iter().enumerate() {
        if !conflicts[k] {
            scan.cards.push(r);
            continue;
        }
        // One unread outline per card read two ways.
        if !scan.unread.iter().any(|q| q.contains(r.quad.centre())) {
            scan.unread.push(r.quad);
        }
    }
    scan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::geometry::Quad;

    fn card_at(code: &str, x: f32, y: f32, w: f32) -> (CardRead, f32, Option<Point>) {
        let h = w * 1.4;
        let quad = Quad([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]);
        let read = CardRead {
            code: code.into(),
            quad,
            confidence: 0.9,
        };
        (read, w, None)
    }

    /// One card read two ways (a whole read from one corner, an index-first
    /// read from the other) is flagged; overlapping cards and agreeing reads
    /// are not.
    #[test]
    fn one_card_read_two_ways_is_a_conflict() {
        let kept = vec![
            card_at("9d", 560.0, 427.0, 76.0),
            card_at("9c", 562.0, 426.0, 77.0),
            card_at("Ks", 100.0, 100.0, 76.0),
            // Overlapping the Ks, shifted by half a card.
            card_at("Qh", 140.0, 130.0, 76.0),
            // The Ks's other corner, read alike.
            card_at("Ks", 101.0, 99.0, 75.0),
            // A smaller card under the same centre is not the same outline.
            card_at("Ah", 118.0, 125.0, 40.0),
        ];
        assert_eq!(
            same_card_conflicts(&kept),
            vec![true, true, false, false, false, false]
        );
        assert!(same_card_conflicts(&[]).is_empty());
    }
}
