//! Cards over consecutive frames of a live camera, as [`super::settle`]
//! does for dice: a card is reported once it has lain still for a few
//! frames, with the code most of those frames agree on.
//!
//! One frame's read of a card being laid can be wrong (motion blur turned a
//! 2 of diamonds into a King read at 65 %, audit BJ J1); the camera sees a
//! card lying still many times a second, so a card still moving is held
//! back, and a card whose reads disagree is reported as an outline not
//! read, never guessed. [`SettleRule::STILLS`] reports each photo as read.

use super::geometry::{Point, dist};
use super::scan::{CardOut, QuadOut, ScanRecord};
use super::settle::SettleRule;
use std::collections::VecDeque;

/// Furthest a lying card's centre may drift from where it stopped, as a
/// fraction of its length (its outline's corners wander by a few pixels
/// between frames; a card being slid moves further).
pub const CARD_STILL_FRACTION: f32 = 0.1;

/// Furthest a card may move between two frames, as a fraction of its
/// length, and still be taken for the same card.
pub const CARD_MATCH_FRACTION: f32 = 0.5;

/// Lengths below this (pixels) count as this, so a degenerate outline
/// still matches.
const MIN_LENGTH: f32 = 1.0;

/// A card followed across frames.
#[derive(Debug, Clone)]
struct Track {
    /// Where it came to rest (or was first seen since it last moved).
    anchor: Point,
    /// Where it was last seen.
    centre: Point,
    length: f32,
    /// Frames seen at `anchor`, this one included.
    still: u32,
    /// Frames since it was last seen.
    missed: u32,
    /// Newest reads since it came to rest, oldest first: code, confidence.
    reads: VecDeque<(String, f32)>,
}

/// The cards of one frame after following them across frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettledCards {
    /// Cards lying still, each with the code its reads agree on.
    pub cards: Vec<CardOut>,
    /// Cards lying still whose reads disagree: outlines, not guesses.
    pub disputed: Vec<QuadOut>,
    /// Cards in this frame that have not lain still long enough yet.
    pub moving: usize,
}

/// Follows the cards of successive frames (see the module docs).
#[derive(Debug, Clone)]
pub struct CardWatcher {
    rule: SettleRule,
    tracks: Vec<Track>,
}

impl CardWatcher {
    /// A watcher with no cards seen yet.
    pub fn new(rule: SettleRule) -> CardWatcher {
        CardWatcher {
            rule: SettleRule {
                frames_to_settle: rule.frames_to_settle.max(1),
                vote_frames: rule.vote_frames.max(1),
                max_missed: rule.max_missed,
            },
            tracks: Vec::new(),
        }
    }

    /// Takes the read cards of the next frame and returns them settled and
    /// voted, in the frame's order.
    pub fn observe(&mut self, cards: &[CardOut]) -> SettledCards {
        let owner = self.match_tracks(cards);
        for t in &mut self.tracks {
            t.missed += 1;
        }
        let rule = self.rule;
        let mut out = SettledCards::default();
        for (card, owner) in cards.iter().zip(owner) {
            let (centre, length) = (card.centre(), card.length().max(MIN_LENGTH));
            let i = owner.unwrap_or_else(|| {
                self.tracks.push(Track {
                    anchor: centre,
                    centre,
                    length,
                    still: 0,
                    missed: 1,
                    reads: VecDeque::new(),
                });
                self.tracks.len() - 1
            });
            let t = &mut self.tracks[i];
            if dist(centre, t.anchor) > CARD_STILL_FRACTION * length.max(t.length) {
                // It moved: its earlier reads were of it on the way.
                t.anchor = centre;
                t.still = 0;
                t.reads.clear();
            }
            t.still += 1;
            t.missed = 0;
            t.centre = centre;
            t.length = length;
            t.reads.push_back((card.code.clone(), card.confidence));
            while t.reads.len() > rule.vote_frames {
                t.reads.pop_front();
            }
            if t.still < rule.frames_to_settle {
                out.moving += 1;
                continue;
            }
            match vote(&t.reads) {
                Some((code, confidence)) => out.cards.push(CardOut {
                    code,
                    confidence,
                    ..card.clone()
                }),
                None => out.disputed.push(QuadOut { quad: card.quad }),
            }
        }
        // A card gone for longer than a hand passing over it is picked up.
        self.tracks.retain(|t| t.missed <= rule.max_missed);
        out
    }

    /// [`Self::observe`] on a scan's cards, written back into it (disputed
    /// cards among its outlines not read); returns how many cards are
    /// still moving.
    pub fn observe_scan(&mut self, scan: &mut ScanRecord) -> usize {
        let s = self.observe(&scan.cards);
        scan.cards = s.cards;
        scan.unread.extend(s.disputed);
        s.moving
    }

    /// For each card, the index of the track it continues, if any: nearest
    /// pairs first, each track and card used once.
    fn match_tracks(&self, cards: &[CardOut]) -> Vec<Option<usize>> {
        let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
        for (ti, t) in self.tracks.iter().enumerate() {
            for (ci, c) in cards.iter().enumerate() {
                let d = dist(t.centre, c.centre());
                if d <= CARD_MATCH_FRACTION * c.length().max(t.length).max(MIN_LENGTH) {
                    pairs.push((d, ti, ci));
                }
            }
        }
        super::settle::pair_nearest(pairs, self.tracks.len(), cards.len())
    }
}

/// The code most reads agree on and its mean confidence over all reads, or
/// `None` unless it holds more than half the reads' confidence and was read
/// in more than half of them.
fn vote(reads: &VecDeque<(String, f32)>) -> Option<(String, f32)> {
    let mut tally: Vec<(&str, f32, usize)> = Vec::new();
    for (code, confidence) in reads {
        match tally.iter_mut().find(|(c, _, _)| c == code) {
            Some(t) => {
                t.1 += confidence;
                t.2 += 1;
            }
            None => tally.push((code, *confidence, 1)),
        }
    }
    let total: f32 = tally.iter().map(|t| t.1).sum();
    let (code, weight, count) = tally
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(a.0)))?;
    (weight > 0.5 * total && 2 * count > reads.len())
        .then(|| (code.to_string(), weight / reads.len() as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A card of `code` read at `confidence`, its outline 60x90 at `x`.
    fn card(code: &str, x: f32, confidence: f32) -> CardOut {
        CardOut {
            code: code.into(),
            confidence,
            quad: [[x, 0.0], [x + 60.0, 0.0], [x + 60.0, 90.0], [x, 90.0]],
        }
    }

    #[test]
    fn a_card_is_reported_once_it_has_lain_still_with_its_voted_code() {
        let mut w = CardWatcher::new(SettleRule::LIVE);
        // Blurred while laid: read as a King on the way, then still.
        let s = w.observe(&[card("Kd", 0.0, 0.65)]);
        assert_eq!((s.cards.len(), s.moving), (0, 1));
        let s = w.observe(&[card("2d", 30.0, 0.9)]);
        assert_eq!((s.cards.len(), s.moving), (0, 1));
        w.observe(&[card("2d", 31.0, 0.9)]);
        let s = w.observe(&[card("2d", 30.5, 0.92)]);
        assert_eq!(s.moving, 0);
        assert_eq!(s.cards.len(), 1);
        assert_eq!(s.cards[0].code, "2d");
        // One frame's misread of the card lying still is outvoted.
        let s = w.observe(&[card("Kd", 30.0, 0.8)]);
        assert_eq!(s.cards[0].code, "2d");
    }

    #[test]
    fn reads_that_disagree_give_an_outline_not_a_guess() {
        let rule = SettleRule {
            frames_to_settle: 2,
            vote_frames: 2,
            max_missed: 0,
        };
        let mut w = CardWatcher::new(rule);
        w.observe(&[card("Qc", 0.0, 0.9)]);
        let s = w.observe(&[card("Qs", 0.0, 0.9)]);
        assert!(s.cards.is_empty());
        assert_eq!(s.disputed.len(), 1);
    }

    #[test]
    fn stills_are_reported_as_read_and_a_card_picked_up_is_forgotten() {
        let mut w = CardWatcher::new(SettleRule::STILLS);
        let s = w.observe(&[card("Ah", 0.0, 0.7), card("9c", 200.0, 0.9)]);
        assert_eq!(s.cards.len(), 2);
        assert_eq!(s.moving, 0);
        let s = w.observe(&[card("5s", 0.0, 0.8)]);
        assert_eq!(s.cards.len(), 1);
        assert_eq!(s.cards[0].code, "5s");
        assert_eq!(w.tracks.len(), 1);
    }

    #[test]
    fn a_hand_passing_over_a_lying_card_does_not_start_it_afresh() {
        let mut w = CardWatcher::new(SettleRule::LIVE);
        for _ in 0..3 {
            w.observe(&[card("7h", 0.0, 0.9)]);
        }
        // Covered for two frames: not reported, not forgotten.
        assert!(w.observe(&[]).cards.is_empty());
        assert!(w.observe(&[]).cards.is_empty());
        let s = w.observe(&[card("7h", 1.0, 0.9)]);
        assert_eq!(s.cards.len(), 1);
    }
}
