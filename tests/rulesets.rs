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

#[test]
fn rules_lookup_finds_entries_by_title_keyword_and_text() {
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::T52).unwrap_or_else(|| panic!("no t52"));
    let hits: Vec<&str> = rs.search("panic").iter().map(|r| r.id.as_str()).collect();
    assert_eq!(hits.first(), Some(&"panic"), "{hits:?}");
    assert!(rs.search("zzzz-nothing").is_empty());
    assert_eq!(rs.search("").len(), rs.rules.len());
}
