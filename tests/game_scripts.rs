//! Whole games from `tests/scripts/*.ron`, played through the real
//! binary (`adjutant play --json`) and through the library, then replayed
//! from the session's events to the same state.

use adjutant::rules::games::{GameId, Library};
use adjutant::rules::procedure::{Answer, Ask, Request};
use adjutant::rules::script::{Script, play};
use adjutant::rules::session::{Event, Session};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn script_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

/// Runs the binary and parses its JSON report.
fn play_binary(name: &str) -> Value {
    let path = script_path(name);
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["play", &path.display().to_string(), "--json"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run adjutant: {e}"));
    assert!(
        out.status.success(),
        "adjutant play {name} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{name}: bad JSON: {e}"))
}

/// A unit's field from the JSON report, by side and unit name.
fn unit_field<'a>(report: &'a Value, side: usize, unit: &str, field: &str) -> &'a Value {
    report["sides"][side]["units"]
        .as_array()
        .and_then(|us| us.iter().find(|u| u["name"] == unit))
        .map(|u| &u[field])
        .unwrap_or_else(|| panic!("no unit {unit} on side {side}"))
}

/// Plays through the library and checks replay reproduces the state.
fn play_library(name: &str) -> Session {
    let (lib, errors) = Library::builtin();
    assert!(errors.is_empty(), "{errors:?}");
    let script = Script::load(&script_path(name)).unwrap_or_else(|e| panic!("{e}"));
    let mut sink = std::io::sink();
    let session = play(&script, &lib, &mut sink).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        session.pending().is_none(),
        "{name}: still asking {:?}",
        session.pending()
    );
    let game = GameId::from_id(&script.game).unwrap_or_else(|| panic!("{name}: no game"));
    let rs = lib
        .get(game)
        .cloned()
        .unwrap_or_else(|| panic!("no {} ruleset", script.game));
    let replayed = Session::replay(game, rs, script.seed, session.events().to_vec())
        .unwrap_or_else(|e| panic!("{name}: replay failed: {e}"));
    assert_eq!(replayed.state(), session.state(), "{name}: replay differs");
    session
}

#[test]
fn four_rounds_won_on_objectives() {
    let name = "t52-four-rounds.ron";
    let report = play_binary(name);
    assert_eq!(report["game"], "t52");
    assert_eq!(report["round"], 4);
    assert_eq!(report["winner"], "Red");
    assert_eq!(unit_field(&report, 0, "Follower 8c", "soldiers"), 6);
    assert_eq!(unit_field(&report, 1, "Follower 6d", "soldiers"), 1);
    assert_eq!(unit_field(&report, 0, "Follower 4h", "soldiers"), 3);
    assert_eq!(unit_field(&report, 1, "Artillery 3c", "in_play"), false);

    let session = play_library(name);
    let s = session.state();
    assert_eq!(s.round, 4);
    assert_eq!(s.outcome.as_ref().and_then(|o| o.winner), Some(0));
}

#[test]
fn sudden_death_ends_the_game_early() {
    let name = "t52-sudden-death.ron";
    let report = play_binary(name);
    assert_eq!(report["winner"], "Blue");
    assert_eq!(report["round"], 2);
    assert!(
        report["result"]
            .as_str()
            .is_some_and(|r| r.contains("Sudden death")),
        "{}",
        report["result"]
    );
    assert_eq!(unit_field(&report, 0, "Toff XR", "in_play"), false);

    let session = play_library(name);
    assert_eq!(
        session.state().outcome.as_ref().and_then(|o| o.winner),
        Some(1)
    );
}

#[test]
fn a_gunfight_is_won_by_the_last_gang_standing() {
    let name = "gunfight-showdown.ron";
    let report = play_binary(name);
    assert_eq!(report["game"], "gunfight");
    assert_eq!(report["winner"], "Red");
    // Played in turns, not rounds: the report says which turn it ended in.
    assert_eq!(report["turn"], 2);
    assert_eq!(report["round"], 0);
    assert_eq!(unit_field(&report, 1, "Morgan", "in_play"), false);
    assert_eq!(unit_field(&report, 0, "Doc", "in_play"), true);

    let session = play_library(name);
    let s = session.state();
    assert_eq!(s.turn, 2);
    let doc = s.units.iter().find(|u| u.name == "Doc");
    assert_eq!(doc.map(|u| u.wounds()), Some(3));
    assert!(
        s.log
            .iter()
            .any(|l| l.text.contains("Holliday may move up to 5 in (6h 4s)"))
    );
}

#[test]
fn a_napoleonic_battle_is_won_on_three_objectives() {
    let name = "napoleonic-skirmish.ron";
    let report = play_binary(name);
    assert_eq!(report["game"], "napoleonic");
    assert_eq!(report["winner"], "French");
    assert_eq!(unit_field(&report, 1, "Foot", "soldiers"), 10);
    assert_eq!(unit_field(&report, 1, "Dragoons", "soldiers"), 5);

    let session = play_library(name);
    let s = session.state();
    assert_eq!(s.round, 2);
    let foot = s.units.iter().find(|u| u.name == "Foot");
    assert_eq!(foot.map(|u| u.stat("confused")), Some(1));
    let battery = s.units.iter().find(|u| u.name == "Battery");
    assert_eq!(battery.map(|u| u.stat("shot_markers")), Some(3));
}

#[test]
fn a_card_activation_turn_is_played_and_called_by_agreement() {
    let name = "card-activation-turn.ron";
    let report = play_binary(name);
    assert_eq!(report["game"], "card-activation");
    assert_eq!(report["winner"], "Red");
    assert_eq!(unit_field(&report, 1, "Guards", "soldiers"), 3);
    assert_eq!(unit_field(&report, 1, "Militia", "soldiers"), 4);
    let session = play_library(name);
    assert!(
        session.state().log.iter().any(|l| l.text.contains(
            "Captain rolls 1 melee die at Militia, -1 to hit (2 earlier action(s), charge +1)"
        )),
        "the free melee after two moves counts both moves"
    );
}

#[test]
fn a_gentlemen_band_that_lost_half_its_units_routs() {
    let name = "gentlemen-rout.ron";
    let report = play_binary(name);
    assert_eq!(report["game"], "gentlemen-of-war");
    assert_eq!(report["winner"], "Blue");
    assert_eq!(report["turn"], 2);
    assert_eq!(unit_field(&report, 0, "Sharpe", "in_play"), false);
    // Pierre's bayonet draws one card (Hearts 2, one fewer for the fixed
    // bayonet): one wound.
    assert_eq!(unit_field(&report, 0, "Harper", "wounds"), 1);
    assert_eq!(unit_field(&report, 1, "Luc", "wounds"), 1);
    assert_eq!(unit_field(&report, 1, "Pierre", "wounds"), 1);

    let session = play_library(name);
    let s = session.state();
    assert_eq!(s.turn, 2);
    let logged = |t: &str| s.log.iter().any(|l| l.text.contains(t));
    assert!(logged("Knockback: move Pierre 1 hex(es) directly away"));
    assert!(logged("draws 1 (2 from hearts, -1 fixed bayonet"));
    assert!(logged("Red fails its Rout Check and flees"));
    let sharpe = s.units.iter().find(|u| u.name == "Sharpe");
    assert_eq!(sharpe.map(|u| u.stat("paid:rifle-load")), Some(2));
}

/// Every whole-game script, stopped half-way and at its end, saves and
/// resumes to the same state and the same pending question.
#[test]
fn every_game_saves_and_resumes_mid_game() {
    use adjutant::rules::save;
    let (lib, errors) = Library::builtin();
    assert!(errors.is_empty(), "{errors:?}");
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for name in [
        "t52-four-rounds.ron",
        "gunfight-showdown.ron",
        "napoleonic-skirmish.ron",
        "card-activation-turn.ron",
        "gentlemen-rout.ron",
    ] {
        let script = Script::load(&script_path(name)).unwrap_or_else(|e| panic!("{e}"));
        let mut sink = std::io::sink();
        let full = play(&script, &lib, &mut sink).unwrap_or_else(|e| panic!("{name}: {e}"));
        let game = GameId::from_id(&script.game).unwrap_or_else(|| panic!("{name}: no game"));
        let rs = lib
            .get(game)
            .cloned()
            .unwrap_or_else(|| panic!("no ruleset"));
        let events = full.events();
        for cut in [events.len() / 2, events.len()] {
            let part = Session::replay(game, rs.clone(), script.seed, events[..cut].to_vec())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let path = dir.path().join(format!("{cut}-{name}"));
            save::save(&part, &path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let loaded = save::load(&path, &lib).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(loaded.session.state(), part.state(), "{name} at {cut}");
            assert_eq!(loaded.session.pending(), part.pending(), "{name} at {cut}");
        }
    }
}

/// Whether a script's answer `given` to `req` reads as the answer the window
/// took by itself: the same choice or number, or any dice for a roll no
/// result could change (a moot roll).
fn reads_as(req: &Request, given: &Answer, taken: &Answer) -> bool {
    match (&req.ask, given, taken) {
        (Ask::Dice { .. }, Answer::Dice(g), Answer::Dice(t)) if req.settled.is_some() => {
            g.len() == t.len()
        }
        _ => req.check(given.clone()).ok().as_ref() == Some(taken),
    }
}

/// Every one-answer question of every shipped script: the window answers it
/// (and any that follow it) by itself with the answer the script gives (or
/// one the question reads as it: a script's "yes" to a moot question, its
/// dice for a moot roll), so the game is the same either way, and Undo and
/// Redo step over them with the answer before.
#[test]
fn one_option_questions_answer_themselves_and_undo_with_the_answer_before() {
    let mut seen = 0;
    for name in [
        "card-activation-turn.ron",
        "gentlemen-rout.ron",
        "gunfight-showdown.ron",
        "napoleonic-skirmish.ron",
        "roll-off.ron",
        "t52-four-rounds.ron",
        "t52-sudden-death.ron",
    ] {
        let played = play_library(name);
        let (game, ruleset, seed) = (played.game(), played.ruleset().clone(), played.seed());
        let events = played.events().to_vec();
        let mut s = Session::new(game, ruleset, seed);
        let mut i = 0;
        while let Some(e) = events.get(i) {
            let asked = s.pending().cloned();
            if let Some((req, (only, _))) = asked.and_then(|r| r.only_answer().map(|a| (r, a)))
                // A settled answer may still be answered otherwise (here
                // the Card-activation script's target moved 13 in before
                // the first turn): the script's answer is taken then.
                && !(req.settled.is_some()
                    && matches!(e, Event::Answer(given) if !reads_as(&req, given, &only)))
            {
                let at = s.events().len();
                let (answered, error) = s.take_only_answers();
                assert_eq!(error, None, "{name}");
                assert!(!answered.is_empty(), "{name}: a question at event {i}");
                for (k, a) in answered.iter().enumerate() {
                    let (Some(Event::Answer(given)), Some(Event::Answer(taken))) =
                        (events.get(i + k), s.events().get(at + k))
                    else {
                        panic!("{name}: event {} answers the question", i + k);
                    };
                    assert!(
                        reads_as(&a.request, given, taken),
                        "{name}: the script answers event {} the same way",
                        i + k
                    );
                }
                let n = answered.len();
                seen += n;
                let after = s.state().clone();
                // Undo takes the answer before with it: the question it
                // brings back is one a player answers.
                assert!(s.undo_step() > n, "{name}: undo steps over event {i}");
                assert!(s.events().len() < at, "{name}");
                assert!(
                    s.pending().and_then(|r| r.only_answer()).is_none(),
                    "{name}: undo stops at a question with a choice"
                );
                while s.events().len() < at + n {
                    assert!(s.redo_step().unwrap_or(false), "{name}: redo at {i}");
                }
                assert_eq!(s.events().len(), at + n, "{name}: redo stops after them");
                assert_eq!(s.state(), &after, "{name}: redo restores event {i}");
                i += n;
                continue;
            }
            s.apply(e.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
            i += 1;
        }
        assert_eq!(s.state(), played.state(), "{name}: same game");
    }
    // 6 lone options, 8 objective questions after an activation in which
    // no unit moved or left the table (settled: No change), 3 Gunfight
    // shooters asked whether they stop mid-move with no single-card move
    // that go (No), and 2 T52 Panic Tests that cannot fail (no roll needed).
    assert_eq!(seen, 19, "one-answer questions in the shipped scripts");
}
