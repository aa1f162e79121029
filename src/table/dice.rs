//! Six-sided dice: results tagged with where they came from, pools and re-rolls.

use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A d6 face, always 1 to 6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct D6(u8);

impl D6 {
    /// The lowest face.
    pub const ONE: D6 = D6(1);
    /// The highest face.
    pub const SIX: D6 = D6(6);

    /// A face value; `None` outside 1-6.
    pub fn new(v: u8) -> Option<D6> {
        (1..=6).contains(&v).then_some(D6(v))
    }

    /// The face value 1-6.
    pub fn get(self) -> u8 {
        self.0
    }

    /// Rolls one die.
    pub fn roll<R: Rng + ?Sized>(rng: &mut R) -> D6 {
        D6(rng.random_range(1..=6))
    }
}

impl TryFrom<u8> for D6 {
    type Error = String;
    fn try_from(v: u8) -> Result<D6, String> {
        D6::new(v).ok_or_else(|| format!("{v} is not a d6 face (1-6)"))
    }
}

impl From<D6> for u8 {
    fn from(d: D6) -> u8 {
        d.0
    }
}

impl fmt::Display for D6 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// "1 die" or "N dice", for prompts.
pub fn count_dice(n: impl Into<u64>) -> String {
    match n.into() {
        1 => "1 die".to_string(),
        n => format!("{n} dice"),
    }
}

/// Where a die result came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
pub enum DieSource {
    /// Rolled by Adjutant's seeded virtual roller.
    #[default]
    Virtual,
    /// Read by the camera from a real die.
    Camera,
    /// Typed in by a player.
    Manual,
}

/// One die result and its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Die {
    /// The up face.
    pub value: D6,
    /// Where the value came from.
    pub source: DieSource,
}

/// A handful of dice rolled together for one purpose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct DicePool {
    /// The dice, in the order they were read or rolled.
    pub dice: Vec<Die>,
}

impl DicePool {
    /// Rolls `n` virtual dice.
    pub fn roll<R: Rng + ?Sized>(n: usize, rng: &mut R) -> DicePool {
        DicePool {
            dice: (0..n)
                .map(|_| Die {
                    value: D6::roll(rng),
                    source: DieSource::Virtual,
                })
                .collect(),
        }
    }

    /// A pool from read or typed values, all with one source.
    pub fn from_values(values: &[D6], source: DieSource) -> DicePool {
        DicePool {
            dice: values.iter().map(|&value| Die { value, source }).collect(),
        }
    }

    /// The face values.
    pub fn values(&self) -> Vec<u8> {
        self.dice.iter().map(|d| d.value.get()).collect()
    }

    /// Number of dice.
    pub fn len(&self) -> usize {
        self.dice.len()
    }

    /// True for an empty pool.
    pub fn is_empty(&self) -> bool {
        self.dice.is_empty()
    }

    /// Dice showing `target` or more.
    pub fn count_at_least(&self, target: u8) -> usize {
        self.dice.iter().filter(|d| d.value.get() >= target).count()
    }

    /// Dice showing less than `target`.
    pub fn count_below(&self, target: u8) -> usize {
        self.dice.iter().filter(|d| d.value.get() < target).count()
    }

    /// Dice showing exactly `face`.
    pub fn count_of(&self, face: u8) -> usize {
        self.dice.iter().filter(|d| d.value.get() == face).count()
    }

    /// Sum of the faces.
    pub fn total(&self) -> u32 {
        self.dice.iter().map(|d| u32::from(d.value.get())).sum()
    }

    /// Re-rolls the dice at `indices` with the virtual roller; out-of-range
    /// indices are ignored.
    pub fn reroll<R: Rng + ?Sized>(&mut self, indices: &[usize], rng: &mut R) {
        for &i in indices {
            if let Some(d) = self.dice.get_mut(i) {
                *d = Die {
                    value: D6::roll(rng),
                    source: DieSource::Virtual,
                };
            }
        }
    }
}

impl fmt::Display for DicePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v: Vec<String> = self.dice.iter().map(|d| d.value.to_string()).collect();
        write!(f, "[{}]", v.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    fn d(v: u8) -> D6 {
        D6::new(v).unwrap_or(D6(1))
    }

    #[test]
    fn faces_are_one_to_six() {
        assert!(D6::new(0).is_none());
        assert!(D6::new(7).is_none());
        assert_eq!(D6::new(6).map(D6::get), Some(6));
        assert!(ron::from_str::<D6>("7").is_err());
        assert_eq!(ron::from_str::<D6>("3").ok(), D6::new(3));
    }

    #[test]
    fn seeded_rolls_are_exact_and_in_range() {
        let a = DicePool::roll(100, &mut ChaCha8Rng::seed_from_u64(5));
        let b = DicePool::roll(100, &mut ChaCha8Rng::seed_from_u64(5));
        assert_eq!(a, b);
        assert!(a.values().iter().all(|v| (1..=6).contains(v)));
        for face in 1..=6 {
            assert!(a.count_of(face) > 0, "face {face} never rolled in 100");
        }
    }

    #[test]
    fn counting() {
        let p = DicePool::from_values(&[d(1), d(4), d(6), d(3)], DieSource::Manual);
        assert_eq!(p.count_at_least(4), 2);
        assert_eq!(p.count_below(4), 2);
        assert_eq!(p.count_of(1), 1);
        assert_eq!(p.total(), 14);
        assert_eq!(p.to_string(), "[1 4 6 3]");
    }

    #[test]
    fn reroll_replaces_only_chosen_dice() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut p = DicePool::from_values(&[d(1), d(1), d(1)], DieSource::Camera);
        p.reroll(&[1, 7], &mut rng);
        assert_eq!(p.dice[0].source, DieSource::Camera);
        assert_eq!(p.dice[1].source, DieSource::Virtual);
        assert_eq!(p.dice[2].source, DieSource::Camera);
    }
}
