//! The camera reading that answered the last question. The table still shows
//! it until the dice are rolled again or the next card is laid, and offering
//! it again would answer the next question (the opponent's roll, the next
//! flip) with the same dice or cards.

use super::corrections::MAX_MISSED_FRAMES;
use crate::vision::geometry::dist as distance;
use crate::vision::scan::{CardOut, DieOut, ScanRecord};

/// How far a die may seem to move, in die sides, and still be the same die
/// lying still (the reader's centres wander by a few pixels between frames).
const DIE_STILL: f32 = 0.5;

/// How far a card's centre may seem to move, in card lengths, and still be
/// the same card lying still.
const CARD_STILL: f32 = 0.25;

/// The dice, or the cards, of a reading that answered a question (what
/// else was in view answered nothing).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnsweredReading {
    dice: Vec<DieOut>,
    cards: Vec<CardOut>,
}

impl AnsweredReading {
    /// The dice `scan` shows, which answered a roll.
    pub fn dice_of(scan: &ScanRecord) -> AnsweredReading {
        AnsweredReading {
            dice: scan.dice.clone(),
            cards: Vec::new(),
        }
    }

    /// The cards `scan` shows, which answered a cards question.
    pub fn cards_of(scan: &ScanRecord) -> AnsweredReading {
        AnsweredReading {
            dice: Vec::new(),
            cards: scan.cards.clone(),
        }
    }

    /// Whether the reading holds dice.
    pub fn holds_dice(&self) -> bool {
        !self.dice.is_empty()
    }

    /// Whether the reading holds cards.
    pub fn holds_cards(&self) -> bool {
        !self.cards.is_empty()
    }

    /// Whether `scan` still shows this reading: the same dice with the same
    /// faces where they lay, nothing more and nothing less, or likewise the
    /// same cards where they lay. An empty reading is never still shown.
    pub fn still_shown_in(&self, scan: &ScanRecord) -> bool {
        if !self.dice.is_empty() {
            matched(&self.dice, &scan.dice, same_die)
        } else if !self.cards.is_empty() {
            matched(&self.cards, &scan.cards, same_card)
        } else {
            false
        }
    }
}

/// The same die lying still: the same face where it lay.
fn same_die(a: &DieOut, b: &DieOut) -> bool {
    a.value == b.value && distance(a.center, b.center) < DIE_STILL * a.size.max(b.size)
}

/// The same card lying still: the same code where it lay.
fn same_card(a: &CardOut, b: &CardOut) -> bool {
    a.code == b.code && distance(a.centre(), b.centre()) < CARD_STILL * a.length().max(b.length())
}

/// What the camera reads that lies still where it lay: a card, a die.
pub trait Lying: Clone {
    /// Whether `other` is this one, lying where it lay.
    fn same_place(&self, other: &Self) -> bool;
}

impl Lying for CardOut {
    fn same_place(&self, other: &Self) -> bool {
        same_card(self, other)
    }
}

impl Lying for DieOut {
    fn same_place(&self, other: &Self) -> bool {
        same_die(self, other)
    }
}

/// Cards and dice that answered questions one by one (a card clicked or
/// typed, a die taken with "Use this die") while the camera showed them,
/// where they lay. They lie there still, so the camera does not offer them
/// to the next question (the opponent's initiative card, or die, beside
/// them is); picked up, they are forgotten.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UsedOnTable {
    /// Cards used.
    pub cards: Used<CardOut>,
    /// Dice used.
    pub dice: Used<DieOut>,
}

impl UsedOnTable {
    /// Ages what was used by a frame (see [`Used::keep_shown`]).
    pub fn keep_shown(&mut self, scan: &ScanRecord) {
        self.cards.keep_shown(&scan.cards);
        self.dice.keep_shown(&scan.dice);
    }

    /// Sets aside what answers past the game's first `events` events used
    /// (undone): they may answer again, or come back with a Redo.
    pub fn forget_after(&mut self, events: usize) {
        self.cards.forget_after(events);
        self.dice.forget_after(events);
    }

    /// Brings back what redone answers, up to the game's first `events`
    /// events, used (audit BE N4).
    pub fn restore_upto(&mut self, events: usize) {
        self.cards.restore_upto(events);
        self.dice.restore_upto(events);
    }

    /// Drops what undone answers used: a new answer took their place.
    pub fn drop_undone(&mut self) {
        self.cards.undone.clear();
        self.dice.undone.clear();
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = UsedOnTable::default();
    }
}

/// Things of one kind that answered questions, where they lay (see
/// [`UsedOnTable`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Used<T> {
    items: Vec<UsedItem<T>>,
    /// What undone answers used, for a Redo.
    undone: Vec<UsedItem<T>>,
}

impl<T> Default for Used<T> {
    fn default() -> Self {
        Used {
            items: Vec::new(),
            undone: Vec::new(),
        }
    }
}

/// One thing of [`Used`].
#[derive(Debug, Clone, PartialEq)]
struct UsedItem<T> {
    item: T,
    /// The game's event count once its answer was taken (an Undo below
    /// it takes the answer back, and the thing may answer again).
    events: usize,
    /// Frames in a row it was not seen in (a hand over it, a misread).
    missed: u32,
}

impl<T: Lying> Used<T> {
    /// Notes `item`, which a taken answer used (the game then at `events`
    /// events), unless it is noted already.
    pub fn note_one(&mut self, item: &T, events: usize) {
        if !self.is_used(item) {
            self.items.push(UsedItem {
                item: item.clone(),
                events,
                missed: 0,
            });
        }
    }

    /// Puts `new` in place of the used thing `old` is (the player named its
    /// face anew).
    pub fn replace(&mut self, old: &T, new: &T) {
        for u in self.items.iter_mut().filter(|u| u.item.same_place(old)) {
            u.item = new.clone();
        }
    }

    /// Whether `item` lies where a used one lay.
    pub fn is_used(&self, item: &T) -> bool {
        self.items.iter().any(|u| u.item.same_place(item))
    }

    /// Ages the things by a frame that shows `shown`: one not shown where
    /// it lay for more than [`MAX_MISSED_FRAMES`] frames is forgotten
    /// (picked up, not just covered by a hand for a moment).
    pub fn keep_shown(&mut self, shown: &[T]) {
        for u in &mut self.items {
            let seen = shown.iter().any(|c| u.item.same_place(c));
            u.missed = if seen { 0 } else { u.missed + 1 };
        }
        self.items.retain(|u| u.missed <= MAX_MISSED_FRAMES);
    }

    /// Sets aside the things of answers past the game's first `events`
    /// events (undone).
    pub fn forget_after(&mut self, events: usize) {
        let (kept, undone): (Vec<_>, Vec<_>) =
            self.items.drain(..).partition(|u| u.events <= events);
        self.items = kept;
        self.undone.extend(undone);
    }

    /// Brings back the things set aside of answers up to the game's first
    /// `events` events (redone).
    pub fn restore_upto(&mut self, events: usize) {
        let (back, still): (Vec<_>, Vec<_>) =
            self.undone.drain(..).partition(|u| u.events <= events);
        self.undone = still;
        self.items.extend(back);
    }

    /// The things set aside that the answer at `events` events used.
    pub fn undone_at(&self, events: usize) -> Vec<T> {
        (self.undone.iter())
            .filter(|u| u.events == events)
            .map(|u| u.item.clone())
            .collect()
    }
}

impl Used<CardOut> {
    /// Notes the cards of `codes` (a taken answer, the game then at
    /// `events` events) that `scan` shows and that are not noted already,
    /// each physical card once.
    pub fn note(&mut self, scan: &ScanRecord, codes: &[String], events: usize) {
        let mut left: Vec<&CardOut> = scan.cards.iter().filter(|c| !self.is_used(c)).collect();
        for code in codes {
            if let Some(i) = left.iter().position(|c| c.code == *code) {
                self.note_one(left.swap_remove(i), events);
            }
        }
    }

    /// The codes of `scan`'s cards that lie where a used card lay.
    pub fn lying_in(&self, scan: &ScanRecord) -> Vec<String> {
        (scan.cards.iter())
            .filter(|c| self.is_used(c))
            .map(|c| c.code.clone())
            .collect()
    }
}

/// Whether `a` and `b` pair off one to one under `same`.
fn matched<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut used = vec![false; b.len()];
    a.iter().all(|x| {
        let found = b
            .iter()
            .enumerate()
            .position(|(i, y)| !used[i] && same(x, y));
        if let Some(i) = found {
            used[i] = true;
        }
        found.is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::vision::scan::fixtures::{card_at, die_at, record};

    fn die(value: u8, x: f32) -> DieOut {
        die_at(value, [x, 50.0])
    }

    fn card(code: &str, x: f32) -> CardOut {
        card_at(code, x, 0.0)
    }

    fn scan(dice: Vec<DieOut>, cards: Vec<CardOut>) -> ScanRecord {
        record(cards, dice)
    }

    #[test]
    fn the_same_dice_lying_still_are_the_same_reading_and_a_new_roll_is_not() {
        let answered = AnsweredReading::dice_of(&scan(vec![die(3, 100.0), die(5, 200.0)], vec![]));
        // The reader's centres wander a little: still the same.
        assert!(answered.still_shown_in(&scan(vec![die(5, 205.0), die(3, 96.0)], vec![])));
        // Rolled again: other faces, or the same faces elsewhere, or another die.
        assert!(!answered.still_shown_in(&scan(vec![die(3, 100.0), die(6, 200.0)], vec![])));
        assert!(!answered.still_shown_in(&scan(vec![die(3, 300.0), die(5, 200.0)], vec![])));
        assert!(!answered.still_shown_in(&scan(
            vec![die(3, 100.0), die(5, 200.0), die(1, 400.0)],
            vec![]
        )));
        assert!(!AnsweredReading::default().still_shown_in(&scan(vec![], vec![])));
        // Cards laid beside them are no new roll: the dice answered.
        assert!(answered.still_shown_in(&scan(
            vec![die(3, 100.0), die(5, 200.0)],
            vec![card("Ac", 0.0)]
        )));
        assert!(answered.holds_dice() && !answered.holds_cards());
    }

    #[test]
    fn the_same_cards_where_they_lay_are_the_same_reading() {
        let answered = AnsweredReading::cards_of(&scan(vec![die(2, 0.0)], vec![card("Ac", 0.0)]));
        assert!(answered.holds_cards() && !answered.holds_dice());
        assert!(answered.still_shown_in(&scan(vec![], vec![card("Ac", 10.0)])));
        assert!(!answered.still_shown_in(&scan(vec![], vec![card("Ac", 200.0)])));
        assert!(!answered.still_shown_in(&scan(vec![], vec![card("Kd", 0.0)])));
        assert!(!answered.still_shown_in(&scan(vec![], vec![card("Ac", 0.0), card("Kd", 100.0)])));
    }

    #[test]
    fn a_used_card_is_known_where_it_lay_until_it_is_picked_up() {
        let table = scan(
            vec![],
            vec![card("Ks", 0.0), card("Ks", 200.0), card("9h", 100.0)],
        );
        let mut used = Used::<CardOut>::default();
        used.note(&table, &["Ks".into(), "2c".into()], 3);
        // One Ks of two answered; a card not in view is not noted.
        assert_eq!(used.lying_in(&table), ["Ks"]);
        used.note(&table, &["Ks".into()], 5);
        assert_eq!(used.lying_in(&table), ["Ks", "Ks"]);
        // A card laid beside them changes nothing.
        let more = scan(
            vec![],
            vec![card("Ks", 5.0), card("9h", 100.0), card("Ks", 400.0)],
        );
        assert_eq!(used.lying_in(&more), ["Ks"]);
        // Out of sight for a moment (a hand over it): still known.
        let covered = scan(vec![], vec![card("9h", 100.0)]);
        for _ in 0..MAX_MISSED_FRAMES {
            used.keep_shown(&covered.cards);
        }
        assert_eq!(used.lying_in(&table), ["Ks", "Ks"]);
        // Away for longer: picked up, forgotten.
        used.keep_shown(&covered.cards);
        assert!(used.lying_in(&table).is_empty());
        // The answer that used a card undone: that card is free again.
        used.note(&table, &["Ks".into()], 3);
        used.note(&table, &["Ks".into()], 5);
        used.forget_after(4);
        assert_eq!(used.lying_in(&table), ["Ks"]);
        used.forget_after(0);
        assert!(used.lying_in(&table).is_empty());
        // Redone: back where they lay (audit BE N4).
        used.restore_upto(3);
        assert_eq!(used.lying_in(&table), ["Ks"]);
        assert_eq!(used.undone_at(5).len(), 1);
    }
}
