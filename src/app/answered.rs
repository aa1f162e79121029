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

/// The dice and cards of a reading that answered a question.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AnsweredReading {
    dice: Vec<DieOut>,
    cards: Vec<CardOut>,
}

impl AnsweredReading {
    /// What `scan` shows.
    pub fn of(scan: &ScanRecord) -> AnsweredReading {
        AnsweredReading {
            dice: scan.dice.clone(),
            cards: scan.cards.clone(),
        }
    }

    /// Whether `scan` still shows this reading: the same dice with the same
    /// faces where they lay, and the same cards where they lay, nothing more
    /// and nothing less. An empty reading is never still shown.
    pub fn still_shown_in(&self, scan: &ScanRecord) -> bool {
        if self.dice.is_empty() && self.cards.is_empty() {
            return false;
        }
        let same_die = |a: &DieOut, b: &DieOut| {
            a.value == b.value && distance(a.center, b.center) < DIE_STILL * a.size.max(b.size)
        };
        matched(&self.dice, &scan.dice, same_die) && matched(&self.cards, &scan.cards, same_card)
    }
}

/// The same card lying still: the same code where it lay.
fn same_card(a: &CardOut, b: &CardOut) -> bool {
    a.code == b.code && distance(a.centre(), b.centre()) < CARD_STILL * a.length().max(b.length())
}

/// Cards that answered questions (picked one by one, clicked or typed)
/// while the camera showed them, where they lay. They lie there still, so
/// the camera does not offer them to the next question (the opponent's
/// initiative card beside them is); picked up, they are forgotten.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CardsUsed {
    cards: Vec<UsedCard>,
}

/// One card of [`CardsUsed`].
#[derive(Debug, Clone, PartialEq)]
struct UsedCard {
    card: CardOut,
    /// The game's event count once its answer was taken (an Undo below
    /// it takes the answer back, and the card may answer again).
    events: usize,
    /// Frames in a row it was not seen in (a hand over it, a misread).
    missed: u32,
}

impl CardsUsed {
    /// Notes the cards of `codes` (a taken answer, the game then at
    /// `events` events) that `scan` shows and that are not noted already,
    /// each physical card once.
    pub fn note(&mut self, scan: &ScanRecord, codes: &[String], events: usize) {
        let mut left: Vec<&CardOut> = scan
            .cards
            .iter()
            .filter(|c| !self.cards.iter().any(|u| same_card(&u.card, c)))
            .collect();
        for code in codes {
            if let Some(i) = left.iter().position(|c| c.code == *code) {
                self.cards.push(UsedCard {
                    card: left.swap_remove(i).clone(),
                    events,
                    missed: 0,
                });
            }
        }
    }

    /// Ages the cards by a frame: one that `scan` has not shown where it
    /// lay for more than [`MAX_MISSED_FRAMES`] frames is forgotten (picked
    /// up, not just covered by a hand for a moment).
    pub fn keep_shown(&mut self, scan: &ScanRecord) {
        for u in &mut self.cards {
            let seen = scan.cards.iter().any(|c| same_card(&u.card, c));
            u.missed = if seen { 0 } else { u.missed + 1 };
        }
        self.cards.retain(|u| u.missed <= MAX_MISSED_FRAMES);
    }

    /// The codes of `scan`'s cards that lie where a used card lay.
    pub fn lying_in(&self, scan: &ScanRecord) -> Vec<String> {
        scan.cards
            .iter()
            .filter(|c| self.cards.iter().any(|u| same_card(&u.card, c)))
            .map(|c| c.code.clone())
            .collect()
    }

    /// Forgets the cards of answers past the game's first `events` events
    /// (undone).
    pub fn forget_after(&mut self, events: usize) {
        self.cards.retain(|u| u.events <= events);
    }

    /// Forgets every card.
    pub fn clear(&mut self) {
        self.cards.clear();
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
        let answered = AnsweredReading::of(&scan(vec![die(3, 100.0), die(5, 200.0)], vec![]));
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
    }

    #[test]
    fn the_same_cards_where_they_lay_are_the_same_reading() {
        let answered = AnsweredReading::of(&scan(vec![], vec![card("Ac", 0.0)]));
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
        let mut used = CardsUsed::default();
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
            used.keep_shown(&covered);
        }
        assert_eq!(used.lying_in(&table), ["Ks", "Ks"]);
        // Away for longer: picked up, forgotten.
        used.keep_shown(&covered);
        assert!(used.lying_in(&table).is_empty());
        // The answer that used a card undone: that card is free again.
        used.note(&table, &["Ks".into()], 3);
        used.note(&table, &["Ks".into()], 5);
        used.forget_after(4);
        assert_eq!(used.lying_in(&table), ["Ks"]);
        used.clear();
        assert!(used.lying_in(&table).is_empty());
    }
}
