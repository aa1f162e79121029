//! Packs and decks: build, shuffle, draw, discard and reshuffle through an injected RNG.

use super::card::{BackColour, Card, Joker, PhysicalCard};
use rand::Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// One physical pack of cards: 52 faces, optionally both jokers, one back colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pack {
    /// Colour of the backs.
    pub back: BackColour,
    /// Whether the two jokers are in the pack (54 cards) or not (52).
    pub jokers: bool,
}

impl Pack {
    /// The pack's cards, unshuffled.
    pub fn cards(self) -> Vec<PhysicalCard> {
        let mut faces = Card::standard_52();
        if self.jokers {
            faces.push(Card::Joker(Joker::Red));
            faces.push(Card::Joker(Joker::Black));
        }
        faces
            .into_iter()
            .map(|card| PhysicalCard {
                card,
                back: self.back,
            })
            .collect()
    }
}

/// The cards of `cards` left once each card of `taken` has taken one equal
/// card out (a multiset difference, in `cards`' order).
pub fn cards_without(cards: &[Card], taken: &[Card]) -> Vec<Card> {
    let mut taken = taken.to_vec();
    cards
        .iter()
        .copied()
        .filter(|c| match taken.iter().position(|t| t == c) {
            Some(i) => {
                taken.swap_remove(i);
                false
            }
            None => true,
        })
        .collect()
}

/// A deck in play: a draw pile (top = last element) and a discard pile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deck {
    /// Name shown to players ("Red player's deck").
    pub name: String,
    /// Cards still to draw; the top card is the last element.
    pub draw_pile: Vec<PhysicalCard>,
    /// Cards used and set aside.
    pub discard_pile: Vec<PhysicalCard>,
}

impl Deck {
    /// An unshuffled deck made of one or more packs.
    pub fn from_packs(name: impl Into<String>, packs: &[Pack]) -> Deck {
        Deck {
            name: name.into(),
            draw_pile: packs.iter().flat_map(|p| p.cards()).collect(),
            discard_pile: Vec::new(),
        }
    }

    /// Cards in the whole deck (draw + discard).
    pub fn len(&self) -> usize {
        self.draw_pile.len() + self.discard_pile.len()
    }

    /// Every card the deck holds: the draw pile, then the discards.
    pub fn held(&self) -> Vec<Card> {
        self.draw_pile
            .iter()
            .chain(&self.discard_pile)
            .map(|c| c.card)
            .collect()
    }

    /// The cards of `cards` that the draw pile does not hold (counting
    /// repeats): drawn already, or not of this deck.
    pub fn not_in_draw_pile(&self, cards: &[Card]) -> Vec<Card> {
        let pile: Vec<Card> = self.draw_pile.iter().map(|c| c.card).collect();
        cards_without(cards, &pile)
    }

    /// True when the deck holds no card at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Shuffles the draw pile in place.
    pub fn shuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.draw_pile.shuffle(rng);
    }

    /// Puts the discard pile back under the draw pile and shuffles everything.
    pub fn reshuffle<R: Rng + ?Sized>(&mut self, rng: &mut R) {
        self.draw_pile.append(&mut self.discard_pile);
        self.shuffle(rng);
    }

    /// Draws up to `n` cards from the top. When the draw pile runs out and
    /// `reshuffle_when_empty` is set, the discards are reshuffled first; the
    /// result is shorter than `n` only when the whole deck is exhausted.
    pub fn draw<R: Rng + ?Sized>(
        &mut self,
        n: usize,
        rng: &mut R,
        reshuffle_when_empty: bool,
    ) -> Vec<PhysicalCard> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match self.draw_pile.pop() {
                Some(c) => out.push(c),
                None if reshuffle_when_empty && !self.discard_pile.is_empty() => {
                    self.reshuffle(rng)
                }
                None => break,
            }
        }
        out
    }

    /// Removes a specific card from the draw pile (a card seen or named on the
    /// table rather than drawn at random). Returns false if it is not there.
    pub fn take(&mut self, card: Card) -> Option<PhysicalCard> {
        let i = self.draw_pile.iter().rposition(|c| c.card == card)?;
        Some(self.draw_pile.remove(i))
    }

    /// Places cards on the discard pile.
    pub fn discard(&mut self, cards: impl IntoIterator<Item = PhysicalCard>) {
        self.discard_pile.extend(cards);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    fn deck54() -> Deck {
        Deck::from_packs(
            "test",
            &[Pack {
                back: BackColour::Red,
                jokers: true,
            }],
        )
    }

    #[test]
    fn packs_have_52_or_54_cards() {
        assert_eq!(deck54().len(), 54);
        let two = Deck::from_packs(
            "two",
            &[
                Pack {
                    back: BackColour::Red,
                    jokers: false,
                },
                Pack {
                    back: BackColour::Blue,
                    jokers: false,
                },
            ],
        );
        assert_eq!(two.len(), 104);
        assert_eq!(
            two.draw_pile
                .iter()
                .filter(|c| c.back == BackColour::Blue)
                .count(),
            52
        );
    }

    #[test]
    fn same_seed_same_shuffle() {
        let mut a = deck54();
        let mut b = deck54();
        a.shuffle(&mut ChaCha8Rng::seed_from_u64(9));
        b.shuffle(&mut ChaCha8Rng::seed_from_u64(9));
        assert_eq!(a, b);
        let mut c = deck54();
        c.shuffle(&mut ChaCha8Rng::seed_from_u64(10));
        assert_ne!(a, c);
    }

    #[test]
    fn drawing_past_the_end_reshuffles_discards() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut d = deck54();
        d.shuffle(&mut rng);
        let first = d.draw(50, &mut rng, true);
        assert_eq!(first.len(), 50);
        d.discard(first);
        let more = d.draw(10, &mut rng, true);
        assert_eq!(more.len(), 10);
        assert_eq!(d.len() + more.len(), 54);
        // Without reshuffle, an exhausted pile gives what it has.
        let mut e = deck54();
        assert_eq!(e.draw(60, &mut rng, false).len(), 54);
        assert!(e.draw(1, &mut rng, true).is_empty());
    }

    #[test]
    fn take_removes_a_named_card() {
        let mut d = deck54();
        let xr = Card::Joker(Joker::Red);
        assert!(d.take(xr).is_some());
        assert!(d.take(xr).is_none());
        assert_eq!(d.len(), 53);
    }

    #[test]
    fn a_multiset_difference_counts_repeats_and_keeps_order() {
        let c = |codes: &str| -> Vec<Card> {
            codes
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect()
        };
        assert_eq!(cards_without(&c("Ah 5s Ah 9d"), &c("Ah 9d")), c("5s Ah"));
        let mut d = deck54();
        d.discard_pile.push(d.draw_pile.remove(0));
        let gone = d.discard_pile[0].card;
        assert_eq!(d.not_in_draw_pile(&[gone, d.draw_pile[0].card]), vec![gone]);
        assert_eq!(d.held().len(), 54);
    }
}
