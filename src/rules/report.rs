//! A plain, sorted summary of a game state for JSON output (`play --json`).

use super::state::{GameState, Holder};
use serde::Serialize;

/// One unit in the report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnitReport {
    /// Name.
    pub name: String,
    /// Profile id.
    pub profile: String,
    /// Card codes.
    pub cards: Vec<String>,
    /// Soldiers left.
    pub soldiers: u32,
    /// Soldiers at list building.
    pub soldiers_at_start: u32,
    /// Wounds carried by surviving soldiers.
    pub wounds: u32,
    /// Status flags, sorted.
    pub status: Vec<String>,
    /// Upgrades.
    pub upgrades: Vec<String>,
    /// Still in play.
    pub in_play: bool,
}

/// One side in the report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SideReport {
    /// Name.
    pub name: String,
    /// Its units, in the order they were fielded.
    pub units: Vec<UnitReport>,
}

/// One objective in the report.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ObjectiveReport {
    /// Name.
    pub name: String,
    /// "none", "contested", or the holding side's name.
    pub holder: String,
}

/// The final state as printed by `adjutant play --json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct StateReport {
    /// Game id.
    pub game: String,
    /// Round reached (0 in games played in turns, and during setup).
    pub round: u32,
    /// Turn reached: the games played in turns count these (Gunfight,
    /// Card-activation, Gentlemen of War); 0 before the first.
    pub turn: u32,
    /// Sides with their units.
    pub sides: Vec<SideReport>,
    /// Objectives.
    pub objectives: Vec<ObjectiveReport>,
    /// Winner's name, "draw", or null while the game goes on.
    pub winner: Option<String>,
    /// Why the game ended.
    pub result: Option<String>,
    /// The human-readable log.
    pub log: Vec<String>,
    /// The question the game is waiting for (a script that stops before
    /// the game ends), or null.
    pub pending: Option<String>,
}

impl StateReport {
    /// Builds the report of a session: its game, state and the question it
    /// waits for.
    pub fn of_session(session: &super::session::Session) -> StateReport {
        StateReport {
            pending: session.pending().map(|r| r.to_string()),
            ..StateReport::of(session.game().id(), session.state())
        }
    }

    /// Builds the report of a state (nothing pending).
    pub fn of(game: &str, s: &GameState) -> StateReport {
        let sides = s
            .sides
            .iter()
            .enumerate()
            .map(|(i, side)| SideReport {
                name: side.name.clone(),
                units: s
                    .units
                    .iter()
                    .filter(|u| u.side == i)
                    .map(|u| UnitReport {
                        name: u.name.clone(),
                        profile: u.profile.clone(),
                        cards: u.cards.iter().map(|c| c.to_string()).collect(),
                        soldiers: u.soldiers.len() as u32,
                        soldiers_at_start: u.soldiers_at_start,
                        wounds: u.wounds(),
                        status: u.status.iter().cloned().collect(),
                        upgrades: u.upgrades.clone(),
                        in_play: u.in_play(),
                    })
                    .collect(),
            })
            .collect();
        let objectives = s
            .objectives
            .iter()
            .map(|o| ObjectiveReport {
                name: o.name.clone(),
                holder: match o.holder {
                    Holder::Uncaptured => "none".into(),
                    Holder::Contested => "contested".into(),
                    Holder::Side(i) => s.side_name(i),
                },
            })
            .collect();
        StateReport {
            game: game.to_string(),
            round: s.round,
            turn: s.turn,
            sides,
            objectives,
            winner: s.outcome.as_ref().map(|o| {
                o.winner
                    .map_or_else(|| "draw".to_string(), |w| s.side_name(w))
            }),
            result: s.outcome.as_ref().map(|o| o.reason.clone()),
            log: s.log.iter().map(|l| l.text.clone()).collect(),
            pending: None,
        }
    }
}
