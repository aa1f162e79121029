//! Card orderings and values as data: every game reads these from its ruleset file.

use super::card::{BackColour, Card, Joker, Rank, Suit};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// A face as the ordering tables name it: a rank, one joker, or any joker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaceKey {
    /// Every card of this rank.
    Rank(Rank),
    /// One joker (`XR` or `XB`).
    Joker(Joker),
    /// Either joker (`X`).
    AnyJoker,
}

impl FaceKey {
    /// True when `card` is named by this key.
    pub fn matches(self, card: Card) -> bool {
        match (self, card) {
            (FaceKey::Rank(r), Card::Standard { rank, .. }) => r == rank,
            (FaceKey::Joker(j), Card::Joker(k)) => j == k,
            (FaceKey::AnyJoker, Card::Joker(_)) => true,
            _ => false,
        }
    }
}

impl fmt::Display for FaceKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaceKey::Rank(r) => write!(f, "{}", r.code()),
            FaceKey::Joker(Joker::Red) => f.write_str("XR"),
            FaceKey::Joker(Joker::Black) => f.write_str("XB"),
            FaceKey::AnyJoker => f.write_str("X"),
        }
    }
}

impl FromStr for FaceKey {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_uppercase().as_str() {
            "X" => Ok(FaceKey::AnyJoker),
            "XR" => Ok(FaceKey::Joker(Joker::Red)),
            "XB" => Ok(FaceKey::Joker(Joker::Black)),
            "10" => Ok(FaceKey::Rank(Rank::Ten)),
            t => {
                let mut cs = t.chars();
                match (cs.next().and_then(Rank::from_code), cs.next()) {
                    (Some(r), None) => Ok(FaceKey::Rank(r)),
                    _ => Err(format!(
                        "`{s}` is not a face (expected A 2-9 T J Q K, XR, XB or X)"
                    )),
                }
            }
        }
    }
}

impl Serialize for FaceKey {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for FaceKey {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// Whether cards compare by rank first (suit breaks ties) or suit first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum SortMode {
    /// Rank decides; suit, then back colour, break ties.
    #[default]
    RankFirst,
    /// Suit decides; rank, then back colour, break ties.
    SuitFirst,
}

/// A game's card ordering and values, loaded from its ruleset file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(default)]
pub struct CardOrdering {
    /// Faces from first (highest, acts first) to last.
    pub rank_order: Vec<FaceKey>,
    /// Suits from first to last.
    pub suit_order: Vec<Suit>,
    /// Back colours from first to last (ties between identical faces of two packs).
    pub back_order: Vec<BackColour>,
    /// Rank first or suit first.
    pub sort: SortMode,
    /// Value of each face where a game counts card values; number cards not
    /// listed are worth their number.
    #[serde(deserialize_with = "crate::files::unique_keys")]
    pub values: BTreeMap<FaceKey, i32>,
    /// Faces that count as every suit (Gentlemen of War: Jacks and Kings).
    pub wild_suits: Vec<FaceKey>,
    /// Faces that count as no suit at all (Gentlemen of War: the little joker).
    pub suitless: Vec<FaceKey>,
    /// Whether the game's decks include jokers.
    pub jokers: bool,
}

impl CardOrdering {
    fn position(list: &[FaceKey], card: Card) -> usize {
        list.iter()
            .position(|k| k.matches(card))
            .unwrap_or(list.len())
    }

    /// The card's value from the value table (numbers default to their face);
    /// `None` when the table gives the face no value.
    pub fn value(&self, card: Card) -> Option<i32> {
        if let Some((_, v)) = self.values.iter().find(|(k, _)| k.matches(card)) {
            return Some(*v);
        }
        card.rank().and_then(Rank::number).map(i32::from)
    }

    /// True when `card` counts as `suit` (its own suit, or any suit when wild).
    pub fn counts_as(&self, card: Card, suit: Suit) -> bool {
        if self.suitless.iter().any(|k| k.matches(card)) {
            return false;
        }
        if self.wild_suits.iter().any(|k| k.matches(card)) {
            return true;
        }
        card.suit() == Some(suit)
    }

    /// Sort key: lower keys come first (act first, win ties).
    pub fn key(&self, card: Card, back: Option<BackColour>) -> (usize, usize, usize) {
        let rank = Self::position(&self.rank_order, card);
        let suit = match card.suit() {
            Some(s) => self
                .suit_order
                .iter()
                .position(|x| *x == s)
                .map_or(self.suit_order.len(), |p| p + 1),
            // A joker has no suit: it sorts before every suit.
            None => 0,
        };
        let back = back
            .and_then(|b| self.back_order.iter().position(|x| *x == b))
            .unwrap_or(self.back_order.len());
        match self.sort {
            SortMode::RankFirst => (rank, suit, back),
            SortMode::SuitFirst => (suit, rank, back),
        }
    }

    /// Compares two cards: `Less` means `a` comes first (beats `b`).
    pub fn compare(
        &self,
        a: Card,
        a_back: Option<BackColour>,
        b: Card,
        b_back: Option<BackColour>,
    ) -> Ordering {
        self.key(a, a_back).cmp(&self.key(b, b_back))
    }

    /// Sorts cards into this ordering, first to last.
    pub fn sort(&self, cards: &mut [Card]) {
        cards.sort_by_key(|c| self.key(*c, None));
    }

    /// Checks that the lists name each face, suit and back at most once,
    /// that `rank_order` names every rank (and the jokers when the decks
    /// have them), and that `suit_order` names every suit or none (suits
    /// never decide): a face left out would silently sort last, or tie
    /// with the last one listed.
    pub fn validate(&self) -> Result<(), String> {
        fn dup<T: PartialEq + fmt::Debug>(what: &str, v: &[T]) -> Result<(), String> {
            for (i, a) in v.iter().enumerate() {
                if v[i + 1..].contains(a) {
                    return Err(format!("`{what}` lists {a:?} twice"));
                }
            }
            Ok(())
        }
        dup("rank_order", &self.rank_order)?;
        dup("suit_order", &self.suit_order)?;
        dup("back_order", &self.back_order)?;
        let listed = |card: Card| self.rank_order.iter().any(|k| k.matches(card));
        let missing: Vec<String> = Rank::ALL
            .into_iter()
            .map(|rank| Card::Standard {
                rank,
                suit: Suit::Spades,
            })
            .chain(
                [Joker::Red, Joker::Black]
                    .into_iter()
                    .map(Card::Joker)
                    .filter(|_| self.jokers),
            )
            .filter(|c| !listed(*c))
            .map(|c| match c {
                Card::Standard { rank, .. } => rank.code().to_string(),
                joker => joker.to_string(),
            })
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "`rank_order` leaves out {}: list every face, first to last",
                missing.join(", ")
            ));
        }
        if !self.suit_order.is_empty() {
            let missing: Vec<String> = Suit::ALL
                .into_iter()
                .filter(|s| !self.suit_order.contains(s))
                .map(|s| format!("{s:?}"))
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "`suit_order` leaves out {}: list all four suits, or none if suits never decide",
                    missing.join(", ")
                ));
            }
        }
        Ok(())
    }
}
