//! Table types shared by every layer: cards, packs and decks, dice, orderings.
//! Nothing here knows about a particular game, the camera or the UI.

pub mod card;
pub mod deck;
pub mod dice;
pub mod ordering;

pub use card::{BackColour, Card, CardCodeError, Joker, PhysicalCard, Rank, Suit};
pub use deck::{Deck, Pack};
pub use dice::{D6, DicePool, Die, DieSource};
pub use ordering::{CardOrdering, FaceKey, SortMode};
