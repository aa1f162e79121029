//! Test helpers shared by the games' flow tests: a session driven by compact
//! answers. `"d 6 5 1"` dice, `"k As 8c"` cards, `"c 8c"` a choice (id or
//! label), `"n 2"` a number, `"ok"` a confirmation.

use crate::rules::ProcedureSpec;
use crate::rules::games::{GameId, Library};
use crate::rules::procedure::{Answer, dice_from_values};
use crate::rules::session::{Event, Session};
use crate::table::{Card, DieSource};

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
        "k" => Answer::Cards(
            rest.split_whitespace()
                .map(|c| c.parse::<Card>().unwrap_or_else(|e| panic!("{a}: {e}")))
                .collect(),
        ),
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

/// Asserts that the pending request's text contains `text`, printing the
/// request when it does not.
#[track_caller]
pub fn assert_asking(s: &Session, text: &str) {
    let asked = asking(s);
    assert!(asked.contains(text), "{asked}");
}

/// The id of the pending question's option when it has only one (the
/// window would take it by itself).
pub fn only_option(s: &Session) -> Option<String> {
    s.pending()
        .and_then(|r| r.only_choice())
        .map(|c| c.id.clone())
}

/// True when some log line contains `text`.
pub fn logged(s: &Session, text: &str) -> bool {
    s.state().log.iter().any(|l| l.text.contains(text))
}

/// Whether a log line containing `text` turns the answer before it down
/// ([`crate::rules::Effect::Refused`]: the window refuses that answer).
pub fn refused(s: &Session, text: &str) -> bool {
    s.state()
        .log
        .iter()
        .any(|l| l.refused && l.text.contains(text))
}

/// A session of `game` (built-in ruleset, seeded) that has begun `spec`.
pub fn begin_game(game: GameId, spec: ProcedureSpec, seed: u64) -> Session {
    let (lib, errs) = Library::builtin();
    assert!(errs.is_empty(), "{errs:?}");
    let rs = lib.get(game).cloned();
    let rs = rs.unwrap_or_else(|| panic!("no {} ruleset", game.id()));
    let mut s = Session::new(game, rs, seed);
    s.apply(Event::Begin(spec))
        .unwrap_or_else(|e| panic!("{e}"));
    s
}

/// Like [`begin_game`], with some of the ruleset's numbers house-ruled.
pub fn begin_game_with(
    game: GameId,
    spec: ProcedureSpec,
    seed: u64,
    numbers: &[(&str, i64)],
) -> Session {
    let (lib, errs) = Library::builtin();
    assert!(errs.is_empty(), "{errs:?}");
    let mut rs = lib.get(game).cloned();
    let rs = rs.get_or_insert_with(|| panic!("no {} ruleset", game.id()));
    for (key, value) in numbers {
        assert!(rs.numbers.contains_key(*key), "no number {key}");
        rs.numbers.insert((*key).to_string(), *value);
    }
    let mut s = Session::new(game, rs.clone(), seed);
    s.apply(Event::Begin(spec))
        .unwrap_or_else(|e| panic!("{e}"));
    s
}

/// The outcome of a game that must have ended.
pub fn outcome(s: &Session) -> crate::rules::state::Outcome {
    s.state()
        .outcome
        .clone()
        .unwrap_or_else(|| panic!("no outcome; asking: {}", asking(s)))
}
