//! Playing cards: ranks, suits, jokers and their two-letter codes (`As`, `Th`, `XR`).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The thirteen ranks of a standard pack. `Ten` is written `T` in codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Rank {
    /// Ace (`A`).
    Ace,
    /// Two (`2`).
    Two,
    /// Three (`3`).
    Three,
    /// Four (`4`).
    Four,
    /// Five (`5`).
    Five,
    /// Six (`6`).
    Six,
    /// Seven (`7`).
    Seven,
    /// Eight (`8`).
    Eight,
    /// Nine (`9`).
    Nine,
    /// Ten (`T`).
    Ten,
    /// Jack (`J`).
    Jack,
    /// Queen (`Q`).
    Queen,
    /// King (`K`).
    King,
}

impl Rank {
    /// All ranks, Ace to King.
    pub const ALL: [Rank; 13] = [
        Rank::Ace,
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
    ];

    /// The one-character code of the rank (`A 2 .. 9 T J Q K`).
    pub fn code(self) -> char {
        b"A23456789TJQK"[self as usize] as char
    }

    /// Parses a one-character rank code; `1` and `0` are not accepted.
    pub fn from_code(c: char) -> Option<Rank> {
        let i = "A23456789TJQK".find(c.to_ascii_uppercase())?;
        Some(Rank::ALL[i])
    }

    /// The number printed on a number card (2-10), `None` for Ace and faces.
    pub fn number(self) -> Option<u8> {
        match self {
            Rank::Ace | Rank::Jack | Rank::Queen | Rank::King => None,
            r => Some(r as u8 + 1),
        }
    }

    /// Builds a number rank from its value 2-10.
    pub fn from_number(n: u8) -> Option<Rank> {
        (2..=10).contains(&n).then(|| Rank::ALL[usize::from(n) - 1])
    }
}

/// The four suits. Hearts and diamonds are red.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Suit {
    /// Spades (`s`).
    Spades,
    /// Hearts (`h`).
    Hearts,
    /// Diamonds (`d`).
    Diamonds,
    /// Clubs (`c`).
    Clubs,
}

impl Suit {
    /// All suits in code order `s h d c`.
    pub const ALL: [Suit; 4] = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];

    /// The one-letter code (`s h d c`).
    pub fn code(self) -> char {
        b"shdc"[self as usize] as char
    }

    /// Parses a suit letter.
    pub fn from_code(c: char) -> Option<Suit> {
        let i = "shdc".find(c.to_ascii_lowercase())?;
        Some(Suit::ALL[i])
    }

    /// Hearts and diamonds are red, spades and clubs black.
    pub fn is_red(self) -> bool {
        matches!(self, Suit::Hearts | Suit::Diamonds)
    }

    /// The suit symbol for display.
    pub fn symbol(self) -> char {
        ['♠', '♥', '♦', '♣'][self as usize]
    }
}

/// Which joker: the red/coloured "big" one or the black/monochrome "little" one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Joker {
    /// Red or coloured joker, the "big" joker (`XR`).
    Red,
    /// Black or monochrome joker, the "little" joker (`XB`).
    Black,
}

/// One card face: a rank and suit, or a joker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Card {
    /// A rank-and-suit card.
    Standard {
        /// Its rank.
        rank: Rank,
        /// Its suit.
        suit: Suit,
    },
    /// A joker.
    Joker(Joker),
}

/// Why a card code could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{code}` is not a card code (expected rank A 2-9 T J Q K then suit s h d c, e.g. `As`, `Th`, or a joker `XR`/`XB`)"
)]
pub struct CardCodeError {
    /// The text that failed to parse.
    pub code: String,
}

impl Card {
    /// A rank-and-suit card.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        Card::Standard { rank, suit }
    }

    /// The rank, or `None` for a joker.
    pub fn rank(self) -> Option<Rank> {
        match self {
            Card::Standard { rank, .. } => Some(rank),
            Card::Joker(_) => None,
        }
    }

    /// The suit, or `None` for a joker.
    pub fn suit(self) -> Option<Suit> {
        match self {
            Card::Standard { suit, .. } => Some(suit),
            Card::Joker(_) => None,
        }
    }

    /// True for either joker.
    pub fn is_joker(self) -> bool {
        matches!(self, Card::Joker(_))
    }

    /// True for hearts, diamonds and the red joker.
    pub fn is_red(self) -> bool {
        match self {
            Card::Standard { suit, .. } => suit.is_red(),
            Card::Joker(j) => j == Joker::Red,
        }
    }

    /// The two-character code of FORMAT.md: `As`, `Th`, `XR`, `XB`.
    pub fn code(self) -> String {
        self.to_string()
    }

    /// The 52 standard cards, suit by suit in `s h d c` order, Ace to King.
    pub fn standard_52() -> Vec<Card> {
        Suit::ALL
            .iter()
            .flat_map(|&s| Rank::ALL.iter().map(move |&r| Card::new(r, s)))
            .collect()
    }

    /// A human-readable name, e.g. "Ten of hearts", "Red joker".
    pub fn name(self) -> String {
        match self {
            Card::Joker(Joker::Red) => "Red joker".into(),
            Card::Joker(Joker::Black) => "Black joker".into(),
            Card::Standard { rank, suit } => {
                let r = match rank {
                    Rank::Ace => "Ace",
                    Rank::Jack => "Jack",
                    Rank::Queen => "Queen",
                    Rank::King => "King",
                    Rank::Ten => "Ten",
                    other => return format!("{} of {}", other.code(), suit_name(suit)),
                };
                format!("{r} of {}", suit_name(suit))
            }
        }
    }
}

fn suit_name(s: Suit) -> &'static str {
    ["spades", "hearts", "diamonds", "clubs"][s as usize]
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Card::Standard { rank, suit } => write!(f, "{}{}", rank.code(), suit.code()),
            Card::Joker(Joker::Red) => f.write_str("XR"),
            Card::Joker(Joker::Black) => f.write_str("XB"),
        }
    }
}

impl FromStr for Card {
    type Err = CardCodeError;

    /// Parses `As`, `th`, `10h` (ten), `XR`, `XB`.
    fn from_str(s: &str) -> Result<Card, CardCodeError> {
        let err = || CardCodeError {
            code: s.to_string(),
        };
        let t = s.trim();
        match t.to_ascii_uppercase().as_str() {
            "XR" => return Ok(Card::Joker(Joker::Red)),
            "XB" => return Ok(Card::Joker(Joker::Black)),
            _ => {}
        }
        let chars: Vec<char> = t.chars().collect();
        let (rank, suit) = match chars.as_slice() {
            [r, s] => (Rank::from_code(*r).ok_or_else(err)?, *s),
            ['1', '0', s] => (Rank::Ten, *s),
            _ => return Err(err()),
        };
        let suit = Suit::from_code(suit).ok_or_else(err)?;
        Ok(Card::new(rank, suit))
    }
}

impl Serialize for Card {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// The colour of a pack's back, as players name it and the camera tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum BackColour {
    /// A red back.
    Red,
    /// A blue back.
    Blue,
    /// Any other colour.
    Other,
}

impl fmt::Display for BackColour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BackColour::Red => "red",
            BackColour::Blue => "blue",
            BackColour::Other => "other",
        })
    }
}

impl BackColour {
    /// "a red-backed pack", "a pack with another back colour".
    pub fn pack_words(self) -> String {
        match self {
            BackColour::Other => "a pack with another back colour".into(),
            colour => format!("a {colour}-backed pack"),
        }
    }
}

impl FromStr for BackColour {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "red" => Ok(BackColour::Red),
            "blue" => Ok(BackColour::Blue),
            "other" => Ok(BackColour::Other),
            _ => Err(format!("`{s}` is not a back colour (red, blue or other)")),
        }
    }
}

/// A physical card: its face and the back of the pack it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct PhysicalCard {
    /// The face.
    pub card: Card,
    /// The pack's back colour.
    pub back: BackColour,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips() {
        let mut all = Card::standard_52();
        all.push(Card::Joker(Joker::Red));
        all.push(Card::Joker(Joker::Black));
        for c in all {
            assert_eq!(c.code().parse::<Card>(), Ok(c));
        }
    }

    #[test]
    fn codes_parse_as_documented() {
        let cases = [
            ("As", Card::new(Rank::Ace, Suit::Spades)),
            ("Th", Card::new(Rank::Ten, Suit::Hearts)),
            ("10h", Card::new(Rank::Ten, Suit::Hearts)),
            ("qd", Card::new(Rank::Queen, Suit::Diamonds)),
            ("2c", Card::new(Rank::Two, Suit::Clubs)),
            ("XR", Card::Joker(Joker::Red)),
            ("xb", Card::Joker(Joker::Black)),
        ];
        for (code, card) in cases {
            assert_eq!(code.parse::<Card>(), Ok(card), "{code}");
        }
        for bad in ["", "A", "1s", "Ax", "XX", "Asd", "11h", "♠A"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
    }

    #[test]
    fn colours_and_numbers() {
        assert!(Card::new(Rank::Two, Suit::Diamonds).is_red());
        assert!(!Card::new(Rank::Two, Suit::Clubs).is_red());
        assert!(Card::Joker(Joker::Red).is_red());
        assert_eq!(Rank::Ten.number(), Some(10));
        assert_eq!(Rank::Ace.number(), None);
        assert_eq!(Rank::from_number(7), Some(Rank::Seven));
        assert_eq!(Rank::from_number(11), None);
        assert_eq!(Card::new(Rank::Ten, Suit::Hearts).name(), "Ten of hearts");
    }

    proptest::proptest! {
        /// Any text either parses to a card that prints back to a code that
        /// parses to the same card, or is refused; it never panics.
        #[test]
        fn parsing_arbitrary_text_never_panics(s in "\\PC{0,6}") {
            if let Ok(c) = s.parse::<Card>() {
                proptest::prop_assert_eq!(c.code().parse::<Card>(), Ok(c));
            }
        }
    }

    #[test]
    fn serialises_as_code() {
        let c = Card::new(Rank::King, Suit::Clubs);
        assert_eq!(ron::to_string(&c).ok().as_deref(), Some("\"Kc\""));
        let back: Card = ron::from_str("\"Kc\"").unwrap_or(Card::Joker(Joker::Red));
        assert_eq!(back, c);
    }
}
