//! The dice entered so far for the dice question on screen: faces typed or
//! pressed, and dice the camera reads taken one by one ("Use this die", when
//! more dice are in view than the roll needs).

use super::answered::Used;
use crate::rules::procedure::dice_from_values;
use crate::table::{Die, DieSource};
use crate::vision::scan::DieOut;

/// One die entered.
#[derive(Debug, Clone, PartialEq)]
pub struct EnteredDie {
    /// Its face.
    pub value: u8,
    /// Where it came from: typed, the camera, or an undone roll's own.
    pub source: DieSource,
    /// The camera's die it was taken from, where it lay.
    pub seen: Option<DieOut>,
}

/// The dice entered so far, in order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DiceEntry {
    dice: Vec<EnteredDie>,
}

impl DiceEntry {
    /// Faces typed by the player, in order.
    pub fn typed(faces: &[u8]) -> DiceEntry {
        DiceEntry {
            dice: faces
                .iter()
                .map(|&value| EnteredDie {
                    value,
                    source: DieSource::Manual,
                    seen: None,
                })
                .collect(),
        }
    }

    /// An undone roll's dice, each with its own source; its camera dice
    /// taken one by one (`seen`, where they lay) are known again, so none
    /// is entered twice (audit BE N3).
    pub fn of_roll(dice: &[Die], seen: &[DieOut]) -> DiceEntry {
        let mut left: Vec<&DieOut> = seen.iter().collect();
        DiceEntry {
            dice: dice
                .iter()
                .map(|d| {
                    let value = d.value.get();
                    let at = (d.source == DieSource::Camera)
                        .then(|| left.iter().position(|s| s.value == value))
                        .flatten();
                    EnteredDie {
                        value,
                        source: d.source,
                        seen: at.map(|i| left.swap_remove(i).clone()),
                    }
                })
                .collect(),
        }
    }

    /// The faces entered, in order.
    pub fn faces(&self) -> Vec<u8> {
        self.dice.iter().map(|d| d.value).collect()
    }

    /// How many dice are entered.
    pub fn len(&self) -> usize {
        self.dice.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.dice.is_empty()
    }

    /// Adds a die.
    pub fn push(&mut self, die: EnteredDie) {
        self.dice.push(die);
    }

    /// Takes out the die at `i`, if there is one.
    pub fn remove(&mut self, i: usize) {
        if i < self.dice.len() {
            self.dice.remove(i);
        }
    }

    /// Takes out the last die.
    pub fn pop(&mut self) {
        self.dice.pop();
    }

    /// Takes out every die.
    pub fn clear(&mut self) {
        self.dice.clear();
    }

    /// Whether the camera's `die` is entered already.
    pub fn has_seen(&self, die: &DieOut) -> bool {
        use super::answered::Lying;
        self.dice
            .iter()
            .any(|d| d.seen.as_ref().is_some_and(|s| s.same_place(die)))
    }

    /// Puts the camera's die `new` in place of `old`, entered already, with
    /// its face (the player named it anew).
    pub fn replace_seen(&mut self, old: &DieOut, new: &DieOut) {
        use super::answered::Lying;
        for d in &mut self.dice {
            if d.seen.as_ref().is_some_and(|s| s.same_place(old)) {
                d.value = new.value;
                d.seen = Some(new.clone());
            }
        }
    }

    /// Takes out the camera's die `old`, if entered.
    pub fn remove_seen(&mut self, old: &DieOut) {
        use super::answered::Lying;
        self.dice
            .retain(|d| !d.seen.as_ref().is_some_and(|s| s.same_place(old)));
    }

    /// The camera's dice taken, where they lay.
    pub fn seen(&self) -> impl Iterator<Item = &DieOut> {
        self.dice.iter().filter_map(|d| d.seen.as_ref())
    }

    /// The camera's dice that the faces typed must have been read from:
    /// the dice in `shown` neither `used` already nor taken into this
    /// entry, when their faces are exactly the faces typed (audit BE N5).
    /// The player typed what lay in view, so those dice answered this roll
    /// and are not offered to the next one; any other die in view, or a
    /// face typed that is not in view, and none is.
    pub fn typed_from<'a>(&self, shown: &'a [DieOut], used: &Used<DieOut>) -> Vec<&'a DieOut> {
        let mut typed: Vec<u8> = (self.dice.iter())
            .filter(|d| d.seen.is_none())
            .map(|d| d.value)
            .collect();
        let lying: Vec<&DieOut> = (shown.iter())
            .filter(|d| !used.is_used(d) && !self.has_seen(d))
            .collect();
        let mut faces: Vec<u8> = lying.iter().map(|d| d.value).collect();
        typed.sort_unstable();
        faces.sort_unstable();
        if typed.is_empty() || typed != faces {
            return Vec::new();
        }
        lying
    }

    /// The dice as a roll, each with its source; an error names a face
    /// that is not a d6 face.
    pub fn roll(&self) -> Result<Vec<Die>, String> {
        self.dice
            .iter()
            .map(|d| Ok(dice_from_values(&[d.value], d.source)?.remove(0)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::scan::fixtures::die_at;

    #[test]
    fn each_die_keeps_its_source_and_a_camera_die_is_known_where_it_lay() {
        let mut entry = DiceEntry::typed(&[2]);
        let seen = die_at(5, [100.0, 50.0]);
        entry.push(EnteredDie {
            value: 5,
            source: DieSource::Camera,
            seen: Some(seen.clone()),
        });
        let roll = entry.roll().expect("d6 faces");
        assert_eq!(
            roll.iter().map(|d| d.source).collect::<Vec<_>>(),
            [DieSource::Manual, DieSource::Camera]
        );
        assert_eq!(entry.faces(), [2, 5]);
        assert!(entry.has_seen(&die_at(5, [103.0, 50.0])));
        assert!(!entry.has_seen(&die_at(5, [300.0, 50.0])));
        assert_eq!(entry.seen().count(), 1);
        entry.remove(1);
        assert!(!entry.has_seen(&seen));
        assert!(DiceEntry::typed(&[7]).roll().is_err());
        assert_eq!(
            DiceEntry::of_roll(&roll, &[]).roll().expect("d6 faces"),
            roll
        );
        // An undone roll knows its camera die where it lay.
        let again = DiceEntry::of_roll(&roll, std::slice::from_ref(&seen));
        assert!(again.has_seen(&seen));
        let named = DieOut {
            value: 6,
            ..seen.clone()
        };
        let mut again = again;
        again.replace_seen(&seen, &named);
        assert_eq!(again.faces(), [2, 6]);
        again.remove_seen(&named);
        assert_eq!(again.faces(), [2]);
    }

    /// Audit BE N5: faces typed for dice lying in view are those dice.
    #[test]
    fn typed_faces_that_are_the_dice_in_view_are_those_dice() {
        let shown = [
            die_at(2, [10.0, 10.0]),
            die_at(6, [100.0, 10.0]),
            die_at(2, [200.0, 10.0]),
            die_at(4, [300.0, 10.0]),
        ];
        let mut used = Used::default();
        used.note_one(&shown[3], 1);
        // The 6 taken from the camera, the two 2s typed; the 4 answered before.
        let mut entry = DiceEntry::typed(&[2, 2]);
        entry.push(EnteredDie {
            value: 6,
            source: DieSource::Camera,
            seen: Some(shown[1].clone()),
        });
        let from = entry.typed_from(&shown, &used);
        assert_eq!(from, [&shown[0], &shown[2]]);
        // A face typed that is not in view: the typing was of other dice.
        assert!(
            DiceEntry::typed(&[2, 3])
                .typed_from(&shown, &used)
                .is_empty()
        );
        // Fewer faces typed than dice in view: which is which is unknown.
        assert!(DiceEntry::typed(&[2]).typed_from(&shown, &used).is_empty());
        // Nothing typed: nothing to match.
        assert!(DiceEntry::default().typed_from(&shown, &used).is_empty());
    }
}
