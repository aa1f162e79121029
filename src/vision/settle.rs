//! Dice over consecutive frames of a live camera: which have come to rest,
//! and their reads voted over the frames since they stopped.
//!
//! One frame's read of a die can be wrong while it still tumbles (motion blur,
//! a side face turned up for a moment) or when a glint or a hand crosses it.
//! A camera sees the same resting die many times a second, so a die is only
//! reported as settled once it has stayed put for a few frames, and its value
//! is the one most of those frames agree on; a die they disagree about is
//! reported unread, never guessed. Replayed photos are separate scenes, so
//! [`SettleRule::STILLS`] reports each frame exactly as it was read.

use super::geometry::{Point, dist};
use super::scan::{DieOut, ScanRecord, UnreadDieOut};
use std::collections::VecDeque;

/// Furthest a resting die's centre may drift from where it stopped, as a
/// fraction of its size. The detector's centres snap to its cell grid: in
/// simulated camera frames of the byler-d6 held-out photos
/// (`examples/dice_settle`) a resting die's centre moves at most 0.29 of its
/// size under sensor noise alone, and 0.22 in 99 % of frames (0.40 at most)
/// when the camera also shakes by a pixel; a die that rolls on moves about
/// its own width per frame.
pub const STILL_FRACTION: f32 = 0.3;

/// Furthest a die may move between two frames, as a fraction of its size, and
/// still be taken for the same die (a die moving further starts afresh, which
/// only delays its settling).
pub const MATCH_FRACTION: f32 = 0.6;

/// Sizes below this (pixels) count as this, so a degenerate box still matches.
const MIN_SIZE: f32 = 1.0;

/// How dice are followed across frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SettleRule {
    /// Frames a die must be seen in one place to count as settled.
    pub frames_to_settle: u32,
    /// Newest reads of a settled die that vote on its value.
    pub vote_frames: usize,
    /// Frames a settled die may go unseen (a detector miss, a hand passing
    /// over) and still be reported with its voted value.
    pub max_missed: u32,
}

impl SettleRule {
    /// A live camera: settled after 3 frames (a fraction of a second at the
    /// reader's frame rate), the last 8 reads vote, 3 missed frames bridged.
    pub const LIVE: SettleRule = SettleRule {
        frames_to_settle: 3,
        vote_frames: 8,
        max_missed: 3,
    };

    /// Separate photos (a replay of stills): every frame is its own scene, so
    /// every die is settled at once and read as the frame read it.
    pub const STILLS: SettleRule = SettleRule {
        frames_to_settle: 1,
        vote_frames: 1,
        max_missed: 0,
    };
}

/// One frame's look at a die: its value and confidence, or `None` if unread.
type Look = Option<(u8, f32)>;

/// A die followed across frames.
#[derive(Debug, Clone)]
struct Track {
    /// Where it came to rest (or was first seen since it last moved).
    anchor: Point,
    /// Where it was last seen.
    center: Point,
    size: f32,
    /// Frames seen at `anchor`, this one included.
    still: u32,
    /// Frames since it was last seen.
    missed: u32,
    /// Newest looks since it came to rest, oldest first.
    looks: VecDeque<Look>,
}

/// The dice of one frame after following them across frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettledDice {
    /// Dice read: settled dice with their voted values, moving dice as this
    /// frame read them.
    pub dice: Vec<DieOut>,
    /// Dice found but not read (or whose reads disagree).
    pub unread_dice: Vec<UnreadDieOut>,
    /// Dice in this frame that have not come to rest yet.
    pub moving: usize,
    /// Settled dice this frame missed, still reported (the last entries of
    /// `dice` / `unread_dice`).
    pub bridged: usize,
}

/// Follows the dice of successive frames (see the module docs).
#[derive(Debug, Clone)]
pub struct RollWatcher {
    rule: SettleRule,
    tracks: Vec<Track>,
}

impl RollWatcher {
    /// A watcher with no dice seen yet.
    pub fn new(rule: SettleRule) -> RollWatcher {
        RollWatcher {
            rule: SettleRule {
                frames_to_settle: rule.frames_to_settle.max(1),
                vote_frames: rule.vote_frames.max(1),
                max_missed: rule.max_missed,
            },
            tracks: Vec::new(),
        }
    }

    /// Takes the dice of the next frame and returns them settled and voted.
    /// Dice come out in the frame's order (read dice, then unread ones),
    /// followed by settled dice this frame missed.
    pub fn observe(&mut self, dice: &[DieOut], unread: &[UnreadDieOut]) -> SettledDice {
        let seen: Vec<(Point, f32, Look)> = dice
            .iter()
            .map(|d| (d.center, d.size, Some((d.value, d.confidence))))
            .chain(unread.iter().map(|d| (d.center, d.size, None)))
            .collect();
        let owner = self.match_tracks(&seen);
        for t in &mut self.tracks {
            t.missed += 1;
        }
        let mut order = Vec::with_capacity(seen.len());
        for (&(center, size, look), owner) in seen.iter().zip(owner) {
            let size = size.max(MIN_SIZE);
            let i = match owner {
                Some(i) => i,
                None => {
                    self.tracks.push(Track {
                        anchor: center,
                        center,
                        size,
                        still: 0,
                        missed: 1,
                        looks: VecDeque::new(),
                    });
                    self.tracks.len() - 1
                }
            };
            let t = &mut self.tracks[i];
            if dist(center, t.anchor) > STILL_FRACTION * size.max(t.size) {
                // It moved: its earlier looks were of another face or blur.
                t.anchor = center;
                t.still = 0;
                t.looks.clear();
            }
            t.still += 1;
            t.missed = 0;
            t.center = center;
            t.size = size;
            t.looks.push_back(look);
            while t.looks.len() > self.rule.vote_frames {
                t.looks.pop_front();
            }
            order.push(i);
        }
        let rule = self.rule;
        let settled = |t: &Track| t.still >= rule.frames_to_settle;
        // Seen tracks first (in the frame's order), then bridged ones.
        order.extend(
            (0..self.tracks.len())
                .filter(|&i| self.tracks[i].missed > 0 && settled(&self.tracks[i]))
                .filter(|&i| self.tracks[i].missed <= rule.max_missed),
        );
        let mut out = SettledDice::default();
        for &i in &order {
            let t = &self.tracks[i];
            out.bridged += usize::from(t.missed > 0);
            let value = if settled(t) {
                vote(&t.looks)
            } else {
                out.moving += 1;
                t.looks.back().copied().flatten()
            };
            match value {
                Some((value, confidence)) => out.dice.push(DieOut {
                    value,
                    center: t.center,
                    size: t.size,
                    confidence,
                }),
                None => out.unread_dice.push(UnreadDieOut {
                    center: t.center,
                    size: t.size,
                }),
            }
        }
        // A moving die that vanished is forgotten; a settled one after
        // `max_missed` frames (picked up, or rolled again elsewhere).
        self.tracks
            .retain(|t| t.missed == 0 || (settled(t) && t.missed <= rule.max_missed));
        out
    }

    /// [`Self::observe`] on a scan's dice, written back into a copy of the
    /// scan; also returns how many dice are still moving and how many were
    /// bridged ([`SettledDice::bridged`]).
    pub fn observe_scan(&mut self, scan: &ScanRecord) -> (ScanRecord, usize, usize) {
        let s = self.observe(&scan.dice, &scan.unread_dice);
        let mut out = scan.clone();
        out.dice = s.dice;
        out.unread_dice = s.unread_dice;
        (out, s.moving, s.bridged)
    }

    /// For each of `seen`, the index of the track it continues, if any:
    /// nearest pairs first, each track and die used once.
    fn match_tracks(&self, seen: &[(Point, f32, Look)]) -> Vec<Option<usize>> {
        let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
        for (ti, t) in self.tracks.iter().enumerate() {
            for (si, &(center, size, _)) in seen.iter().enumerate() {
                let d = dist(t.center, center);
                if d <= MATCH_FRACTION * size.max(t.size).max(MIN_SIZE) {
                    pairs.push((d, ti, si));
                }
            }
        }
        pair_nearest(pairs, self.tracks.len(), seen.len())
    }
}

/// For each of `seen` things, the track it continues, from the candidate
/// `pairs` (distance, track, thing) within reach: nearest pairs first, each
/// track and thing used once.
pub(crate) fn pair_nearest(
    mut pairs: Vec<(f32, usize, usize)>,
    tracks: usize,
    seen: usize,
) -> Vec<Option<usize>> {
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then((a.1, a.2).cmp(&(b.1, b.2))));
    let mut owner = vec![None; seen];
    let mut taken = vec![false; tracks];
    for (_, ti, si) in pairs {
        if !taken[ti] && owner[si].is_none() {
            taken[ti] = true;
            owner[si] = Some(ti);
        }
    }
    owner
}

/// The value most looks agree on and its mean confidence over all looks
/// (unread looks count 0), or `None` unless that value holds more than half
/// of the reads' confidence and was read in more than half of the looks.
fn vote(looks: &VecDeque<Look>) -> Look {
    let mut weight = [0f32; 7];
    let mut count = [0usize; 7];
    for &(v, c) in looks.iter().flatten() {
        let v = usize::from(v).min(6);
        weight[v] += c;
        count[v] += 1;
    }
    let total: f32 = weight.iter().sum();
    let best = (1..=6).max_by(|&a, &b| weight[a].total_cmp(&weight[b]).then(b.cmp(&a)))?;
    let majority = weight[best] > 0.5 * total && 2 * count[best] > looks.len();
    majority.then(|| (best as u8, weight[best] / looks.len() as f32))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn die(value: u8, x: f32, confidence: f32) -> DieOut {
        DieOut {
            value,
            center: [x, 100.0],
            size: 40.0,
            confidence,
        }
    }

    fn unread(x: f32) -> UnreadDieOut {
        UnreadDieOut {
            center: [x, 100.0],
            size: 40.0,
        }
    }

    fn values(s: &SettledDice) -> Vec<u8> {
        s.dice.iter().map(|d| d.value).collect()
    }

    #[test]
    fn a_resting_die_settles_after_the_rule_s_frames() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        let first = w.observe(&[die(4, 100.0, 0.9)], &[]);
        assert_eq!((values(&first), first.moving), (vec![4], 1));
        // Box jitter of 10 px (a grid step of the detector) is still resting.
        assert_eq!(w.observe(&[die(4, 110.0, 0.9)], &[]).moving, 1);
        let third = w.observe(&[die(4, 101.0, 0.8)], &[]);
        assert_eq!((values(&third), third.moving), (vec![4], 0));
        assert!((third.dice[0].confidence - (0.9 + 0.9 + 0.8) / 3.0).abs() < 1e-6);
        assert_eq!(third.dice[0].center, [101.0, 100.0]);
    }

    #[test]
    fn a_rolling_die_does_not_settle_until_it_stops() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        // Moving 15 px a frame (more than 0.3 of its 40 px) but close
        // enough to stay the same die.
        for k in 0..6 {
            let s = w.observe(&[die(1 + k % 6, 100.0 + 15.0 * k as f32, 0.9)], &[]);
            assert_eq!(s.moving, 1, "frame {k}");
            assert_eq!(
                values(&s),
                vec![1 + k % 6],
                "a moving die shows this frame's read"
            );
        }
        let mut s = SettledDice::default();
        for _ in 0..3 {
            s = w.observe(&[die(3, 200.0, 0.9)], &[]);
        }
        assert_eq!((values(&s), s.moving), (vec![3], 0));
        // The faces seen while it rolled do not vote.
        assert!((s.dice[0].confidence - 0.9).abs() < 1e-6);
    }

    #[test]
    fn a_flickering_read_is_voted_and_a_split_one_is_unread() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        for v in [5, 5, 6, 5] {
            w.observe(&[die(v, 100.0, 0.7)], &[]);
        }
        let s = w.observe(&[die(6, 100.0, 0.7)], &[]);
        assert_eq!(values(&s), vec![5], "5 5 6 5 6: five wins");

        let mut w = RollWatcher::new(SettleRule::LIVE);
        let mut s = SettledDice::default();
        for v in [2, 3, 2, 3] {
            s = w.observe(&[die(v, 100.0, 0.7)], &[]);
        }
        assert!(s.dice.is_empty(), "2 3 2 3 is not a read: {s:?}");
        assert_eq!(s.unread_dice.len(), 1);
        assert_eq!(s.moving, 0);
    }

    #[test]
    fn a_die_mostly_unread_stays_unread() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        w.observe(&[die(4, 100.0, 0.6)], &[]);
        w.observe(&[], &[unread(100.0)]);
        let s = w.observe(&[], &[unread(100.0)]);
        assert!(s.dice.is_empty() && s.unread_dice.len() == 1, "{s:?}");
        let s = w.observe(&[die(4, 100.0, 0.6)], &[]);
        assert!(
            s.dice.is_empty(),
            "two reads in four looks are not a majority"
        );
        let s = w.observe(&[die(4, 100.0, 0.6)], &[]);
        assert_eq!(values(&s), vec![4], "three in five are");
    }

    #[test]
    fn a_missed_frame_is_bridged_and_a_picked_up_die_is_forgotten() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        for _ in 0..3 {
            w.observe(&[die(2, 100.0, 0.9), die(6, 300.0, 0.9)], &[]);
        }
        // The detector misses the 6 for a frame: still reported.
        let s = w.observe(&[die(2, 100.0, 0.9)], &[]);
        assert_eq!(values(&s), vec![2, 6]);
        assert_eq!((s.moving, s.bridged), (0, 1));
        // Gone for good: reported for `max_missed` frames in all, then not.
        assert_eq!(values(&w.observe(&[die(2, 100.0, 0.9)], &[])), vec![2, 6]);
        assert_eq!(values(&w.observe(&[die(2, 100.0, 0.9)], &[])), vec![2, 6]);
        assert_eq!(values(&w.observe(&[die(2, 100.0, 0.9)], &[])), vec![2]);
    }

    #[test]
    fn a_die_rolled_again_in_place_is_read_afresh_once_it_rests() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        for _ in 0..8 {
            w.observe(&[die(2, 100.0, 0.9)], &[]);
        }
        // Picked up (gone past the bridged frames), then rolled to the same
        // spot showing a 5: the old 2s do not outvote it.
        for _ in 0..4 {
            w.observe(&[], &[]);
        }
        let s = w.observe(&[die(5, 100.0, 0.9)], &[]);
        assert_eq!((values(&s), s.moving), (vec![5], 1));
        w.observe(&[die(5, 100.0, 0.9)], &[]);
        let s = w.observe(&[die(5, 100.0, 0.9)], &[]);
        assert_eq!((values(&s), s.moving), (vec![5], 0));
    }

    #[test]
    fn two_dice_side_by_side_keep_their_own_votes() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        let mut s = SettledDice::default();
        for k in 0..3 {
            // Listed in either order: matched by place, not position in the list.
            let (a, b) = (die(1, 100.0, 0.9), die(6, 142.0, 0.9));
            s = if k % 2 == 0 {
                w.observe(&[a, b], &[])
            } else {
                w.observe(&[b, a], &[])
            };
        }
        assert_eq!((values(&s), s.moving), (vec![1, 6], 0));
    }

    #[test]
    fn stills_are_reported_exactly_as_read() {
        let mut w = RollWatcher::new(SettleRule::STILLS);
        let frames = [
            (
                vec![die(3, 100.0, 0.46), die(4, 200.0, 0.99)],
                vec![unread(300.0)],
            ),
            (vec![die(5, 101.0, 0.7)], vec![]),
            (vec![], vec![unread(100.0)]),
        ];
        for (dice, unread) in frames {
            let s = w.observe(&dice, &unread);
            assert_eq!(s.dice, dice);
            assert_eq!(s.unread_dice, unread);
            assert_eq!(s.moving, 0);
        }
    }

    #[test]
    fn hostile_boxes_do_not_panic() {
        let mut w = RollWatcher::new(SettleRule::LIVE);
        let odd = [f32::NAN, f32::INFINITY, -1.0, 0.0, 1e30];
        for &v in &odd {
            let d = DieOut {
                value: 9,
                center: [v, v],
                size: v,
                confidence: v,
            };
            w.observe(&[d.clone(), d], &[unread(v)]);
        }
    }
}
