//! Ruleset files: every built-in loads; a broken override names file, line and
//! column, and the other games still load.

use adjutant::rules::games::{GameId, Library, RulesetSource};
use adjutant::rules::ruleset::RulesetError;

#[test]
fn every_builtin_ruleset_loads_and_validates() {
    let (lib, errors) = Library::builtin();
    assert!(errors.is_empty(), "{errors:?}");
    for g in GameId::ALL {
        let rs = lib.get(g).unwrap_or_else(|| panic!("{} missing", g.id()));
        assert_eq!(rs.id, g.id());
        assert!(!rs.rules.is_empty(), "{} has no rules entries", g.id());
    }
}

#[test]
fn a_broken_override_is_reported_and_the_rest_load() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let good = GameId::Napoleonic.default_ruleset();
    std::fs::write(dir.path().join("napoleonic.ron"), good).unwrap_or_else(|e| panic!("{e}"));
    // Line 3 is missing a comma after the title.
    std::fs::write(
        dir.path().join("t52.ron"),
        "Ruleset(\n    id: \"t52\",\n    title: \"T52\"\n    summary: \"x\",\n)",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let (lib, errors) = Library::load(Some(dir.path()));
    assert_eq!(errors.len(), 1, "{errors:?}");
    match &errors[0] {
        RulesetError::Syntax {
            file,
            line,
            column,
            message,
        } => {
            assert!(file.ends_with("t52.ron"));
            assert_eq!((*line, *column), (4, 5), "{message}");
            let shown = errors[0].to_string();
            assert!(shown.contains("t52.ron:4:5"), "{shown}");
        }
        other => panic!("expected a syntax error, got {other}"),
    }
    // T52 falls back to the built-in; napoleonic comes from the file.
    assert_eq!(lib.source(GameId::T52), Some(&RulesetSource::Builtin));
    assert!(matches!(
        lib.source(GameId::Napoleonic),
        Some(RulesetSource::File(_))
    ));
    assert_eq!(lib.games().count(), 5);
}

#[test]
fn missing_required_data_is_named() {
    let text = GameId::T52
        .default_ruleset()
        .replace("\"panic_threshold\": 6,", "");
    let err = adjutant::rules::Ruleset::parse(&text, std::path::Path::new("t52.ron"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("panic_threshold"), "{err}");
    let wrong_game = GameId::T52
        .default_ruleset()
        .replace("id: \"t52\"", "id: \"chess\"");
    let err = adjutant::rules::Ruleset::parse(&wrong_game, std::path::Path::new("t52.ron"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("chess"), "{err}");
}

/// Audit BK K1: a profile missing from `profiles` is placed at that list,
/// not at the rules entry that shares its name.
#[test]
fn a_missing_profile_is_placed_at_the_profiles_list() {
    let text = GameId::T52.default_ruleset();
    let line = text
        .lines()
        .find(|l| l.contains("(id: \"cavalry\", name:"))
        .unwrap_or_else(|| panic!("no cavalry profile"));
    let without = text.replace(&format!("{line}\n"), "");
    let err = adjutant::rules::Ruleset::parse(&without, std::path::Path::new("t52.ron"))
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    let profiles_line = without
        .lines()
        .position(|l| l.trim_start().starts_with("profiles:"))
        .map_or(0, |i| i + 1);
    assert!(err.contains(&format!("t52.ron:{profiles_line}:")), "{err}");
    assert!(err.contains("profiles: `cavalry` is missing"), "{err}");
}

/// What loading the rulesets says once `text` is the override `file` in
/// `dir`, one line per problem.
fn said_of(dir: &std::path::Path, file: &str, text: &str) -> Vec<String> {
    std::fs::write(dir.join(file), text).unwrap_or_else(|e| panic!("{e}"));
    let (_, errors) = Library::load(Some(dir));
    errors.iter().map(|e| e.to_string()).collect()
}

/// House-rule mistakes that parse are named with where they are: a value
/// out of range at its key, a misspelt key with the one meant, a file whose
/// id is another game's.
#[test]
fn house_rule_mistakes_are_named_with_line_and_column() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let gunfight = GameId::Gunfight.default_ruleset();
    let line_of = |text: &str, key: &str| {
        text.lines()
            .position(|l| l.contains(key))
            .map_or(0, |i| i + 1)
    };
    let cases = [
        (
            gunfight.replace("\"hand_size\": 5", "\"hand_size\": 0"),
            "\"hand_size\"",
            "`hand_size` is 0, but it must be at least 1",
        ),
        (
            gunfight.replace("\"hand_size\": 5", "\"hand_size\": 5, \"hand_sise\": 6"),
            "\"hand_sise\"",
            "`hand_sise` is not a number this game reads (did you mean `hand_size`?)",
        ),
        (
            gunfight.replace("\"hand_size\": 5", "\"hand_size\": 60"),
            "\"hand_size\"",
            "`hand_size` is 60, but it can be at most 54 (a hand is dealt from one pack of 54)",
        ),
        (
            gunfight.replace("\"initiative_cards\": 1", "\"initiative_cards\": 6"),
            "\"initiative_cards\"",
            "`initiative_cards` is 6, more than `hand_size` (5)",
        ),
        // A face or suit left out of an order would sort last or tie with
        // the last one listed, and change who goes first without a word.
        (
            gunfight.replace("\"Q\", \"J\"", "\"J\""),
            "rank_order",
            "`rank_order` leaves out Q: list every face",
        ),
        (
            gunfight.replace(
                "[Hearts, Clubs, Diamonds, Spades]",
                "[Hearts, Diamonds, Spades]",
            ),
            "suit_order",
            "`suit_order` leaves out Clubs: list all four suits, or none",
        ),
        (
            gunfight.replacen("\"lives\": 6", "\"lives\": -6", 1),
            "\"gunman\"",
            "profile `gunman`: stat lives is -6, but no stat is below 0",
        ),
        // A number named like a stat is placed at the number.
        (
            gunfight.replace("\n        \"lives\": 6,", "\n        \"lives\": 0,"),
            "\"lives\": 0",
            "`lives` is 0, but it must be at least 1",
        ),
        // Serde would keep the second value of a key written twice.
        (
            gunfight.replace("\"hand_size\": 5", "\"hand_size\": 5, \"hand_size\": 6"),
            "\"hand_size\"",
            "`hand_size` is written twice in one map",
        ),
        (
            gunfight.replace("id: \"gunfight\"", "id: \"t52\""),
            "id:",
            "id is `t52` but the file is for `gunfight`",
        ),
        // A profile's stats are the game's: one left out would read as 0,
        // one the game never reads would be shown and do nothing (audit Y3).
        (
            gunfight.replacen("\"lives\": 6, ", "", 1),
            "\"gunman\"",
            "profiles: `gunman` has no `lives` stat",
        ),
        (
            gunfight.replacen("\"lives\": 6", "\"lifes\": 6", 1),
            "\"gunman\"",
            "profiles: `gunman` has a stat `lifes` this game never reads (did you mean `lives`?)",
        ),
        (
            gunfight.replacen("\"lives\": 6", "\"lives\": 6, \"Q\": 4", 1),
            "\"gunman\"",
            "profiles: `gunman` has a stat `Q` this game never reads",
        ),
        // A misspelt key is named even when a value is refused too (and
        // the key it was meant to be is said to be missing; audit Y2).
        (
            gunfight
                .replace("\"hand_size\": 5", "\"hand_sise\": 5")
                .replace(
                    "\"initiative_cards\": 1",
                    "\"initiative_cards\": 1, \"frobnicate\": 2",
                ),
            "\"hand_sise\"",
            "`hand_sise` is not a number this game reads (did you mean `hand_size`?)",
        ),
        (
            gunfight
                .replace("\"hand_size\": 5", "\"hand_sise\": 5")
                .replace(
                    "\"initiative_cards\": 1",
                    "\"initiative_cards\": 1, \"frobnicate\": 2",
                ),
            "\"frobnicate\"",
            "`frobnicate` is not a number this game reads",
        ),
    ];
    // What follows from a misspelt key (the key meant read as missing, a
    // value measured against it) is left to its did-you-mean (audit Z4).
    let misspelt = gunfight.replace("\"hand_size\": 5", "\"hand_sise\": 5");
    let shown = said_of(dir.path(), "gunfight.ron", &misspelt);
    let any = |shown: &[String], text: &str| shown.iter().any(|e| e.contains(text));
    assert!(any(&shown, "did you mean `hand_size`?"), "{shown:?}");
    assert!(!any(&shown, "`hand_size` is missing"), "{shown:?}");
    // The stat meant is one the profile lacks: `Q` for a T52 Snob's `W`
    // is not said to mean `A`, which it has (audit Z2-4).
    let t52 = GameId::T52.default_ruleset();
    let snob =
        "(id: \"snob\", name: \"Snob\", stats: {\"M\": 3, \"A\": 1, \"I\": 5, \"V\": 5, \"W\": 1";
    assert!(t52.contains(snob), "the built-in Snob as written");
    let q = t52.replacen(snob, &snob.replace("\"W\"", "\"Q\""), 1);
    let shown = said_of(dir.path(), "t52.ron", &q);
    assert!(
        any(&shown, "`Q` this game never reads (did you mean `W`?)"),
        "{shown:?}"
    );
    assert!(!any(&shown, "has no `W` stat"), "{shown:?}");
    std::fs::remove_file(dir.path().join("t52.ron")).unwrap_or_else(|e| panic!("{e}"));
    let lifes = gunfight.replacen("\"lives\": 6", "\"lifes\": 6", 1);
    let shown = said_of(dir.path(), "gunfight.ron", &lifes);
    assert!(!any(&shown, "has no `lives` stat"), "{shown:?}");
    // A file whose id is another game's is still checked as its own game's,
    // every problem at once, in the order of the file (audit AB6).
    let wrong_id = gunfight
        .replace("id: \"gunfight\"", "id: \"t52\"")
        .replace("\"hand_size\": 5", "\"hand_size\": 0")
        .replacen("\"lives\": 6", "\"lives\": -6", 1);
    let shown = said_of(dir.path(), "gunfight.ron", &wrong_id).join("\n");
    let at = |said: &str| {
        shown
            .find(said)
            .unwrap_or_else(|| panic!("{said} not in {shown}"))
    };
    let (id, hand, lives) = (
        at("id is `t52`"),
        at("`hand_size` is 0"),
        at("stat lives is -6"),
    );
    let mut by_line = [
        (line_of(&wrong_id, "id:"), id),
        (line_of(&wrong_id, "\"hand_size\""), hand),
        (line_of(&wrong_id, "\"lives\": -6"), lives),
    ];
    by_line.sort();
    assert!(
        by_line.windows(2).all(|w| w[0].1 < w[1].1),
        "in file order: {by_line:?} {shown}"
    );
    for (text, key, said) in cases {
        assert_ne!(text, gunfight, "the case changes the file");
        std::fs::write(dir.path().join("gunfight.ron"), &text).unwrap_or_else(|e| panic!("{e}"));
        let (lib, errors) = Library::load(Some(dir.path()));
        let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        let line = line_of(&text, key);
        assert!(
            shown
                .iter()
                .any(|e| e.contains(&format!("gunfight.ron:{line}:")) && e.contains(said)),
            "{shown:?}"
        );
        assert_eq!(lib.source(GameId::Gunfight), Some(&RulesetSource::Builtin));
    }
}

#[test]
fn rules_lookup_finds_entries_by_title_keyword_and_text() {
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::T52).unwrap_or_else(|| panic!("no t52"));
    let search = |q: &str| adjutant::rules::lookup::lookup(rs, q);
    let hits: Vec<String> = search("panic").into_iter().map(|h| h.id).collect();
    assert_eq!(hits.first().map(String::as_str), Some("panic"), "{hits:?}");
    assert!(search("zzzz qqqq").is_empty());
    // Nothing asked: every entry, profile, upgrade and ability.
    let every = rs.rules.len() + rs.profiles.len() + rs.upgrades.len() + rs.abilities.len();
    assert_eq!(search("").len(), every);
}

/// Words in a row that a shown text may share with a source document before
/// it counts as copied (set names and short rule phrases are shorter).
const COPIED_RUN_WORDS: usize = 7;

fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn rules_text_shown_in_the_app_is_our_own_wording() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/rules");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "skipping: the source rules documents are not at {}",
            dir.display()
        );
        return;
    };
    let mut runs = std::collections::HashSet::new();
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "txt") {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{e}"));
            let w = words(&text);
            for run in w.windows(COPIED_RUN_WORDS) {
                runs.insert(run.join(" "));
            }
        }
    }
    assert!(
        !runs.is_empty(),
        "no source documents read in {}",
        dir.display()
    );
    let (lib, errors) = Library::builtin();
    assert!(errors.is_empty(), "{errors:?}");
    let mut copied = Vec::new();
    for g in GameId::ALL {
        let Some(rs) = lib.get(g) else { continue };
        let mut shown = vec![rs.summary.clone()];
        for r in &rs.rules {
            shown.push(r.text.clone());
            shown.extend(r.ruling.clone());
        }
        shown.extend(rs.upgrades.iter().map(|u| u.text.clone()));
        for text in shown {
            let w = words(&text);
            if let Some(run) = w
                .windows(COPIED_RUN_WORDS)
                .map(|r| r.join(" "))
                .find(|r| runs.contains(r))
            {
                copied.push(format!("{}: \"{run}\"", g.id()));
            }
        }
    }
    assert!(copied.is_empty(), "copied from the sources: {copied:#?}");
}

/// A house-rule file whose name names no game is reported, not ignored; the
/// games' own files still load.
#[test]
fn a_ruleset_file_that_names_no_game_is_reported() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("Gunfight.ron"), "()").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("notes.txt"), "not a ruleset").unwrap_or_else(|e| panic!("{e}"));
    // A capitalised extension is a ruleset file too (and not read either).
    std::fs::write(dir.path().join("T52.RON"), "()").unwrap_or_else(|e| panic!("{e}"));
    let (library, errors) = adjutant::rules::Library::load(Some(dir.path()));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(errors[1].to_string().contains("T52.RON"), "{errors:?}");
    std::fs::remove_file(dir.path().join("T52.RON")).unwrap_or_else(|e| panic!("{e}"));
    let said = errors[0].to_string();
    assert!(said.contains("Gunfight.ron"), "{said}");
    assert!(
        said.contains("gunfight.ron"),
        "names the right file: {said}"
    );
    assert_eq!(library.games().count(), 5);
    // A game's own file is never reported as stray.
    std::fs::remove_file(dir.path().join("Gunfight.ron")).unwrap_or_else(|e| panic!("{e}"));
    let builtin = include_str!("../rulesets/gunfight.ron");
    std::fs::write(dir.path().join("gunfight.ron"), builtin).unwrap_or_else(|e| panic!("{e}"));
    let (_, errors) = Library::load(Some(dir.path()));
    assert!(errors.is_empty(), "{errors:?}");
}

/// Questions as players type them at the table find the entry that answers
/// them first (from an audit of 175 such questions; these are a sample
/// across the games: question words, other word forms, hyphens and typos).
#[test]
fn players_questions_find_their_rule_first() {
    let (lib, errors) = Library::builtin();
    assert!(errors.is_empty(), "{errors:?}");
    let cases = [
        (GameId::T52, "who goes first", "initiative"),
        (GameId::T52, "my unit is panicking, what now?", "panic"),
        (GameId::T52, "retreating", "retreat"),
        (GameId::T52, "re-roll", "initiative"),
        (GameId::T52, "how do I win", "victory"),
        (GameId::T52, "what does skirmisher do", "skirmisher"),
        (
            GameId::T52,
            "walking through the bog, do I lose men",
            "dangerous-terrain",
        ),
        (GameId::T52, "my unit lost the fight, what now", "retreat"),
        (GameId::GentlemenOfWar, "armor saves", "armour-check"),
        (GameId::GentlemenOfWar, "when is my model dead", "wounds"),
        (GameId::GentlemenOfWar, "intercepting a charge", "guard"),
        (
            GameId::GentlemenOfWar,
            "what happens when my guy runs out of wounds",
            "wounds",
        ),
        (GameId::Napoleonic, "confused men", "confusion"),
        (GameId::Napoleonic, "cannon ammo", "shot-markers"),
        (
            GameId::Napoleonic,
            "my cannon won the combat, how many are confused?",
            "artillery-win",
        ),
        (
            GameId::Napoleonic,
            "can my cavalry charge infantry in the woods",
            "combat-eligibility",
        ),
        (
            GameId::Gunfight,
            "can I shoot during the other player's turn",
            "overwatch",
        ),
        (GameId::CardActivation, "how many cards do I get", "deal"),
        (GameId::CardActivation, "hand to hand", "melee"),
        (
            GameId::CardActivation,
            "what happens when a routed unit activates",
            "rally",
        ),
        (GameId::Gunfight, "shooting", "shooting"),
        (
            GameId::Gunfight,
            "how many cards do I hold",
            "turn-sequence",
        ),
        (GameId::Gunfight, "initative", "initiative"),
        (
            GameId::Gunfight,
            "what happens if the save card is equal to the shot",
            "shooting",
        ),
        (
            GameId::Gunfight,
            "can I shoot in the middle of a move",
            "interrupt-move",
        ),
        (
            GameId::Napoleonic,
            "can my hussars attack a battery in a redoubt",
            "combat-eligibility",
        ),
    ];
    let mut wrong = Vec::new();
    for (game, question, expected) in cases {
        let rs = lib.get(game).unwrap_or_else(|| panic!("no {game:?}"));
        let hits = adjutant::rules::lookup::lookup(rs, question);
        let top: Vec<&str> = hits.iter().take(3).map(|h| h.id.as_str()).collect();
        if top.first() != Some(&expected) {
            wrong.push(format!(
                "{} {question:?}: {top:?}, wanted {expected}",
                game.id()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every problem of a file is named at once, each at its own line, so a
/// house rule is mended in one pass rather than one `check` per mistake.
#[test]
fn every_problem_in_a_house_rule_is_listed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let gunfight = GameId::Gunfight.default_ruleset();
    let text = gunfight
        .replace("\"hand_size\": 5", "\"hand_size\": 0")
        .replacen("\"lives\": 6", "\"lives\": -6", 1)
        .replace("\"Q\", \"J\"", "\"J\"");
    std::fs::write(dir.path().join("gunfight.ron"), &text).unwrap_or_else(|e| panic!("{e}"));
    let (_, errors) = Library::load(Some(dir.path()));
    assert_eq!(errors.len(), 1, "one bad file: {errors:?}");
    let shown = errors[0].to_string();
    let lines: Vec<&str> = shown.lines().collect();
    for said in [
        "`rank_order` leaves out Q",
        "stat lives is -6",
        "`hand_size` is 0, but it must be at least 1",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.contains("gunfight.ron:") && l.contains(said)),
            "{said:?} not on a line of its own in:\n{shown}"
        );
    }
}

/// A house rule that makes no game (a count of 0 or less, a number far past
/// any rule) is refused with the number named; the built-in one is used.
#[test]
fn an_absurd_number_is_refused_by_name() {
    let builtin = include_str!("../rulesets/t52.ron");
    for (bad, said) in [
        (
            "\"rounds\": -1",
            "`rounds` is -1, but it must be at least 1",
        ),
        (
            "\"rounds\": 99999999",
            "`rounds` is 99999999, beyond the 10000",
        ),
        (
            "\"rounds\": -9223372036854775808",
            "`rounds` is -9223372036854775808, beyond the 10000",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let text = builtin.replacen("\"rounds\": 4", bad, 1);
        assert_ne!(text, builtin, "the built-in file changed its rounds");
        std::fs::write(dir.path().join("t52.ron"), text).unwrap_or_else(|e| panic!("{e}"));
        let (library, errors) = Library::load(Some(dir.path()));
        assert_eq!(errors.len(), 1, "{errors:?}");
        let message = errors[0].to_string();
        assert!(message.contains(said), "{message}");
        assert!(message.contains("t52.ron"), "{message}");
        let rounds = library.get(GameId::T52).map(|r| r.number("rounds"));
        assert_eq!(rounds, Some(4), "the built-in ruleset is used");
    }
}

/// A house rule saved in Latin-1 is named at its first byte that is not
/// UTF-8 (line and column), like any other mistake in the file.
#[test]
fn a_file_in_another_encoding_is_named_at_its_first_odd_byte() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut text = b"Ruleset(\n    id: \"t52\",\n    title: \"Caf".to_vec();
    text.extend_from_slice(&[0xE9, b'"', b',', b'\n', b')']);
    std::fs::write(dir.path().join("t52.ron"), &text).unwrap_or_else(|e| panic!("{e}"));
    let (lib, errors) = Library::load(Some(dir.path()));
    let shown: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert!(
        shown
            .iter()
            .any(|e| e.contains("t52.ron:3:16") && e.contains("0xE9 is not UTF-8")),
        "{shown:?}"
    );
    assert_eq!(lib.source(GameId::T52), Some(&RulesetSource::Builtin));
}
