//! Test helpers: a T52 session driven by compact answers.
//!
//! Answers are short strings: `"d 6 5 1"` dice, `"c 8c"` a choice (id or
//! label), `"n 2"` a number, `"ok"` a confirmation.

use super::{GameSetup, PlayerSetup, TerrainKind, TerrainSetup, parse_units};
use crate::rules::ProcedureSpec;
use crate::rules::games::{GameId, Library};
use crate::rules::procedure::{Answer, dice_from_values};
use crate::rules::session::{Event, Session};
use crate::rules::state::Unit;
use crate::table::{Card, DieSource};

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
    }
}

/// A session that has begun the game.
pub fn begin(setup: &GameSetup) -> Session {
    let (lib, errs) = Library::builtin();
    assert!(errs.is_empty(), "{errs:?}");
    let rs = lib
        .get(GameId::T52)
        .cloned()
        .unwrap_or_else(|| panic!("no t52 ruleset"));
    let mut s = Session::new(GameId::T52, rs, 7);
    s.apply(Event::Begin(ProcedureSpec::T52(setup.clone())))
        .unwrap_or_else(|e| panic!("{e}"));
    s
}

/// Turns a compact answer into an `Answer`.
pub fn answer(a: &str) -> Answer {
    let (kind, rest) = a.split_once(' ').unwrap_or((a, ""));
    match kind {
        "d" => {
            let v: Vec<u8> = rest
                .split_whitespace()
                .map(|x| x.parse().unwrap_or_else(|e| panic!("{a}: {e}")))
                .collect();
            Answer::Dice(dice_from_values(&v, DieSource::Manual).unwrap_or_else(|e| panic!("{e}")))
        }
        "c" => Answer::Choice(rest.into()),
        "n" => Answer::Number(rest.trim().parse().unwrap_or_else(|e| panic!("{a}: {e}"))),
        "ok" => Answer::Confirm,
        _ => panic!("bad test answer `{a}`"),
    }
}

/// Feeds answers, failing with the request that refused one.
pub fn feed(s: &mut Session, answers: &[&str]) {
    for (i, a) in answers.iter().enumerate() {
        let req = s.pending().map(|r| r.to_string()).unwrap_or_default();
        if let Err(e) = s.apply(Event::Answer(answer(a))) {
            panic!("answer {i} `{a}` to `{req}`: {e}");
        }
    }
}

/// The pending request as text ("" when nothing is asked).
pub fn asking(s: &Session) -> String {
    s.pending().map(|r| r.to_string()).unwrap_or_default()
}

/// A unit by name.
pub fn unit<'a>(s: &'a Session, name: &str) -> &'a Unit {
    s.state()
        .units
        .iter()
        .find(|u| u.name == name)
        .unwrap_or_else(|| panic!("no unit {name}"))
}

/// True when some log line contains `text`.
pub fn logged(s: &Session, text: &str) -> bool {
    s.state().log.iter().any(|l| l.text.contains(text))
}
