//! Test helpers: a T52 session driven by compact answers.
//!
//! Answers are short strings: `"d 6 5 1"` dice, `"c 8c"` a choice (id or
//! label), `"n 2"` a number, `"ok"` a confirmation (see [`crate::rules::testkit`]).

use super::{GameSetup, PlayerSetup, TerrainKind, TerrainSetup, parse_units};
use crate::rules::ProcedureSpec;
use crate::rules::games::GameId;
use crate::rules::session::Session;
use crate::rules::state::Unit;
pub use crate::rules::testkit::{asking, assert_asking, begin_game, feed, logged, only_option};
use crate::table::Card;

/// A two-player setup from typed regiments (see `parse_units`).
pub fn setup(red: &str, blue: &str, terrain: &[TerrainKind], objectives: &[&str]) -> GameSetup {
    let player = |name: &str, text: &str| PlayerSetup {
        name: name.into(),
        units: parse_units(text).unwrap_or_else(|e| panic!("{e:?}")),
    };
    GameSetup {
        players: vec![player("Red", red), player("Blue", blue)],
        terrain: terrain
            .iter()
            .map(|&kind| TerrainSetup { kind, name: None })
            .collect(),
        objectives: objectives
            .iter()
            .map(|c| c.parse::<Card>().unwrap_or_else(|e| panic!("{e}")))
            .collect(),
        // The flows here answer in the first order (as saves made then).
        question_order: 0,
    }
}

/// A session that has begun the game.
pub fn begin(setup: &GameSetup) -> Session {
    begin_game(GameId::T52, ProcedureSpec::T52(setup.clone()), 7)
}

/// A unit by name.
pub fn unit<'a>(s: &'a Session, name: &str) -> &'a Unit {
    s.state()
        .units
        .iter()
        .find(|u| u.name == name)
        .unwrap_or_else(|| panic!("no unit {name}"))
}
