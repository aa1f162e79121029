//! The trackers every game shares: sides, units and their soldiers, objectives,
//! rounds and turns, activation order, decks, and the human-readable log.

use crate::table::{BackColour, Card, Deck};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Index of a side in [`GameState::sides`].
pub type SideId = usize;
/// Index of a unit in [`GameState::units`] (units are never deleted, only removed from play).
pub type UnitId = usize;
/// Index of an objective in [`GameState::objectives`].
pub type ObjectiveId = usize;
/// Index of a deck in [`GameState::decks`].
pub type DeckId = usize;

/// A player's side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// Name shown to players.
    pub name: String,
    /// Back colour of the pack this side plays from, when the game cares.
    pub back: Option<BackColour>,
}

/// One soldier (model) of a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Soldier {
    /// Wounds taken so far.
    pub wounds: u32,
}

/// Where a unit is in the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Presence {
    /// On the table.
    InPlay,
    /// Removed from play (destroyed, out of action, fled).
    Removed,
}

/// A unit: one or more soldiers sharing a profile.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    /// Which side it belongs to.
    pub side: SideId,
    /// Name shown to players ("Follower 8♣").
    pub name: String,
    /// Profile id from the ruleset.
    pub profile: String,
    /// The cards that represent it on the table.
    pub cards: Vec<Card>,
    /// Current stats (profile plus upgrades).
    pub stats: BTreeMap<String, i32>,
    /// Soldiers still in the unit.
    pub soldiers: Vec<Soldier>,
    /// Soldiers at list building (to count missing soldiers).
    pub soldiers_at_start: u32,
    /// Wounds a soldier takes before it is removed.
    pub wounds_per_soldier: u32,
    /// Status flags ("ordered", "retreated", "fired", ...).
    pub status: BTreeSet<String>,
    /// Upgrade ids taken (repeats allowed: stacking).
    pub upgrades: Vec<String>,
    /// In play or removed.
    pub presence: Presence,
}

impl Unit {
    /// A stat, 0 when absent.
    pub fn stat(&self, key: &str) -> i32 {
        self.stats.get(key).copied().unwrap_or(0)
    }

    /// Soldiers lost since list building.
    pub fn missing(&self) -> u32 {
        self.soldiers_at_start
            .saturating_sub(self.soldiers.len() as u32)
    }

    /// Wounds carried by the surviving soldiers.
    pub fn wounds(&self) -> u32 {
        self.soldiers.iter().map(|s| s.wounds).sum()
    }

    /// Wounds its soldiers left can still take before the last is removed
    /// (a lone figure's lives left).
    pub fn wounds_left(&self) -> u32 {
        (self.soldiers.len() as u32 * self.wounds_per_soldier).saturating_sub(self.wounds())
    }

    /// True when on the table with at least one soldier.
    pub fn in_play(&self) -> bool {
        self.presence == Presence::InPlay && !self.soldiers.is_empty()
    }

    /// True when the unit has the status flag.
    pub fn has(&self, status: &str) -> bool {
        self.status.contains(status)
    }

    /// How many times an upgrade was taken.
    pub fn upgrade_count(&self, id: &str) -> usize {
        self.upgrades.iter().filter(|u| *u == id).count()
    }
}

/// Who holds an objective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Holder {
    /// Nobody has captured it.
    #[default]
    Uncaptured,
    /// Held by a side.
    Side(SideId),
    /// Opposing units are both at it.
    Contested,
}

/// An objective marker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Objective {
    /// Name shown to players.
    pub name: String,
    /// The card that marks it, if any.
    pub card: Option<Card>,
    /// Who holds it now.
    pub holder: Holder,
}

/// A terrain piece on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Terrain {
    /// Kind ("cover", "dangerous", "defensible").
    pub kind: String,
    /// Name shown to players.
    pub name: String,
}

/// One slot of an activation order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Activation {
    /// Side that acts.
    pub side: SideId,
    /// Unit that acts, when the slot is a unit's.
    pub unit: Option<UnitId>,
    /// Card that set the slot, when cards decide the order.
    pub card: Option<Card>,
}

/// The order in which sides or units act this turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct ActivationOrder {
    /// Slots, first to act first.
    pub slots: Vec<Activation>,
    /// Index of the slot acting now (== len when all have acted).
    pub next: usize,
}

impl ActivationOrder {
    /// The slot acting now.
    pub fn current(&self) -> Option<&Activation> {
        self.slots.get(self.next)
    }

    /// Whether `unit`'s slot comes after the one acting now.
    pub fn comes_later(&self, unit: UnitId) -> bool {
        self.slots
            .iter()
            .skip(self.next + 1)
            .any(|slot| slot.unit == Some(unit))
    }
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning side, `None` for a draw.
    pub winner: Option<SideId>,
    /// Why, in a sentence.
    pub reason: String,
}

impl Outcome {
    /// "Game over: victory to Red. Why", or "Game over: a draw. Why" (no
    /// verb to agree with a side named in the plural).
    pub fn describe(&self, s: &GameState) -> String {
        match self.winner {
            Some(w) => format!("Game over: victory to {}. {}", s.side_name(w), self.reason),
            None => format!("Game over: a draw. {}", self.reason),
        }
    }
}

/// One line of the human-readable game log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogLine {
    /// Round when it happened.
    pub round: u32,
    /// Turn when it happened (games played in turns rather than rounds).
    #[serde(default)]
    pub turn: u32,
    /// The text.
    pub text: String,
    /// Rules entry the line applied, if any.
    pub rule: Option<String>,
    /// That entry's ruling when the line was written (shown on request: it
    /// may be about another case of the same rule).
    #[serde(default)]
    pub ruling: Option<String>,
    /// The line refuses the answer before it (the question is asked again);
    /// see [`crate::rules::Effect::Refused`].
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refused: bool,
}

impl LogLine {
    /// The line says what dice were rolled ([`crate::rules::Effect::Rolled`]),
    /// not what came of them.
    pub fn is_roll(&self) -> bool {
        self.rule.is_none() && self.text.contains(super::effect::ROLLED)
    }

    /// When it happened, as the play screen's title says it: "round 2" in
    /// games played in rounds, "turn 3" in games played in turns, "setup"
    /// before either.
    pub fn when(&self) -> String {
        if self.round > 0 {
            format!("round {}", self.round)
        } else if self.turn > 0 {
            format!("turn {}", self.turn)
        } else {
            "setup".to_string()
        }
    }
}

/// The whole state of a game, derived by applying events in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GameState {
    /// Game round, 0 during setup.
    pub round: u32,
    /// Turn within the round (game-defined meaning), 0 before the first.
    pub turn: u32,
    /// The sides.
    pub sides: Vec<Side>,
    /// Every unit that ever entered the game.
    pub units: Vec<Unit>,
    /// Objective markers.
    pub objectives: Vec<Objective>,
    /// Terrain pieces.
    pub terrain: Vec<Terrain>,
    /// Who acts in which order.
    pub activation: ActivationOrder,
    /// Side with the initiative.
    pub initiative: Option<SideId>,
    /// Tracked decks.
    pub decks: Vec<Deck>,
    /// Game-specific counters ("upgrade_points_left/0").
    pub counters: BTreeMap<String, i64>,
    /// Set when the game is over.
    pub outcome: Option<Outcome>,
    /// Human-readable log.
    pub log: Vec<LogLine>,
}

impl GameState {
    /// Units of a side that are still in play.
    pub fn units_of(&self, side: SideId) -> impl Iterator<Item = (UnitId, &Unit)> {
        self.units
            .iter()
            .enumerate()
            .filter(move |(_, u)| u.side == side && u.in_play())
    }

    /// A side's name, or "side N" when unknown.
    pub fn side_name(&self, side: SideId) -> String {
        self.sides
            .get(side)
            .map_or_else(|| format!("side {side}"), |s| s.name.clone())
    }

    /// A unit's name, or "unit N" when unknown.
    pub fn unit_name(&self, unit: UnitId) -> String {
        self.units
            .get(unit)
            .map_or_else(|| format!("unit {unit}"), |u| u.name.clone())
    }

    /// A counter's value (0 when unset).
    pub fn counter(&self, key: &str) -> i64 {
        self.counters.get(key).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::LogLine;

    #[test]
    fn a_log_line_says_when_in_the_game_s_own_terms() {
        let line = |round, turn| LogLine {
            round,
            turn,
            text: String::new(),
            rule: None,
            ruling: None,
            refused: false,
        };
        assert_eq!(line(0, 0).when(), "setup");
        assert_eq!(line(0, 3).when(), "turn 3");
        assert_eq!(line(2, 1).when(), "round 2");
    }
}
