//! Each game's card ordering and values, as loaded from the built-in ruleset
//! files, match the rulings in shared/rules/CLARIFICATIONS.md.

use adjutant::rules::Ruleset;
use adjutant::rules::games::{GameId, Library};
use adjutant::table::{BackColour, Card, CardOrdering, Suit};
use std::cmp::Ordering;

fn card(code: &str) -> Card {
    code.parse::<Card>()
        .unwrap_or_else(|e| panic!("bad card code `{code}` in test: {e}"))
}

fn with_ruleset<T>(game: GameId, f: impl FnOnce(&Ruleset) -> T) -> T {
    let (lib, errors) = Library::builtin();
    assert!(
        errors.is_empty(),
        "built-in rulesets failed to load:\n{}",
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    let rs = lib
        .get(game)
        .unwrap_or_else(|| panic!("no ruleset for {game:?}"));
    assert_eq!(rs.id, game.id(), "ruleset id mismatch");
    f(rs)
}

fn cards_of(game: GameId) -> CardOrdering {
    with_ruleset(game, |rs| rs.cards.clone())
}

fn check_values(game: GameId, table: &[(&str, Option<i32>)]) {
    let cards = cards_of(game);
    for (code, want) in table {
        assert_eq!(cards.value(card(code)), *want, "{game:?}: value of {code}");
    }
}

/// All 52 codes, suit by suit in `suits`, ranks Ace first up to King.
fn codes(suits: &[char]) -> Vec<String> {
    let ranks = [
        'A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K',
    ];
    suits
        .iter()
        .flat_map(|s| ranks.iter().map(move |r| format!("{r}{s}")))
        .collect()
}

#[test]
fn every_builtin_ruleset_loads() {
    let (lib, errors) = Library::builtin();
    assert!(
        errors.is_empty(),
        "errors: {:?}",
        errors.iter().map(|e| e.to_string()).collect::<Vec<_>>()
    );
    for game in GameId::ALL {
        let rs = lib
            .get(game)
            .unwrap_or_else(|| panic!("no ruleset for {game:?}"));
        assert_eq!(rs.id, game.id());
        assert!(!rs.summary.trim().is_empty(), "{game:?}: empty summary");
        if game != GameId::T52 {
            assert!(
                (12..=30).contains(&rs.rules.len()),
                "{game:?}: {} rules entries",
                rs.rules.len()
            );
        }
    }
}

#[test]
fn t52_number_cards_count_their_face() {
    check_values(
        GameId::T52,
        &[
            ("2s", Some(2)),
            ("3h", Some(3)),
            ("4d", Some(4)),
            ("5c", Some(5)),
            ("6s", Some(6)),
            ("7h", Some(7)),
            ("8d", Some(8)),
            ("9c", Some(9)),
            ("Ts", Some(10)),
            ("10h", Some(10)),
        ],
    );
}

#[test]
fn gentlemen_of_war_values() {
    check_values(
        GameId::GentlemenOfWar,
        &[
            ("As", Some(10)),
            ("Ah", Some(10)),
            ("Jd", Some(2)),
            ("Qc", Some(10)),
            ("Kh", Some(10)),
            ("2s", Some(2)),
            ("5d", Some(5)),
            ("9c", Some(9)),
            ("Th", Some(10)),
        ],
    );
}

#[test]
fn gentlemen_of_war_suits() {
    let cards = cards_of(GameId::GentlemenOfWar);
    assert!(cards.jokers, "GoW decks include both jokers");
    let all = [Suit::Spades, Suit::Hearts, Suit::Diamonds, Suit::Clubs];
    // (card, suit, counts as?)
    let table: &[(&str, Suit, bool)] = &[
        ("Jh", Suit::Spades, true),
        ("Jh", Suit::Hearts, true),
        ("Kc", Suit::Diamonds, true),
        ("Kc", Suit::Clubs, true),
        ("Qs", Suit::Spades, true),
        ("Qs", Suit::Hearts, false),
        ("Qs", Suit::Diamonds, false),
        ("Qs", Suit::Clubs, false),
        ("As", Suit::Spades, true),
        ("As", Suit::Clubs, false),
        ("5d", Suit::Diamonds, true),
        ("5d", Suit::Hearts, false),
        ("XR", Suit::Clubs, false),
    ];
    for (code, suit, want) in table {
        assert_eq!(
            cards.counts_as(card(code), *suit),
            *want,
            "GoW: {code} counts as {suit:?}"
        );
    }
    for suit in all {
        assert!(
            !cards.counts_as(card("XB"), suit),
            "XB counts as no suit ({suit:?})"
        );
        for wild in ["Js", "Jh", "Jd", "Jc", "Ks", "Kh", "Kd", "Kc"] {
            assert!(
                cards.counts_as(card(wild), suit),
                "{wild} is wild ({suit:?})"
            );
        }
    }
}

#[test]
fn napoleonic_values_ace_low_king_high() {
    let mut table: Vec<(String, Option<i32>)> = vec![
        ("As".into(), Some(1)),
        ("Jh".into(), Some(11)),
        ("Qd".into(), Some(12)),
        ("Kc".into(), Some(13)),
    ];
    for n in 2..=10 {
        table.push((format!("{n}s"), Some(n)));
    }
    let table: Vec<(&str, Option<i32>)> = table.iter().map(|(c, v)| (c.as_str(), *v)).collect();
    check_values(GameId::Napoleonic, &table);

    let cards = cards_of(GameId::Napoleonic);
    assert!(!cards.jokers, "Napoleonic uses no jokers");
    // King first (highest) down to Ace.
    let order = [
        "Ks", "Qs", "Js", "Ts", "9s", "8s", "7s", "6s", "5s", "4s", "3s", "2s", "As",
    ];
    for w in order.windows(2) {
        assert_eq!(
            cards.compare(card(w[0]), None, card(w[1]), None),
            Ordering::Less,
            "Napoleonic: {} beats {}",
            w[0],
            w[1]
        );
    }
}

#[test]
fn card_activation_order() {
    let cards = cards_of(GameId::CardActivation);
    assert!(!cards.jokers, "card activation uses no jokers");
    let expected = codes(&['h', 's', 'd', 'c']);
    assert_eq!(expected.len(), 52);
    let expected: Vec<Card> = expected.iter().map(|c| card(c)).collect();

    // Sorting any permutation (here: reversed, and code order s h d c) gives the list.
    for start in [
        expected.iter().rev().copied().collect::<Vec<_>>(),
        codes(&['s', 'h', 'd', 'c'])
            .iter()
            .map(|c| card(c))
            .collect(),
    ] {
        let mut deck = start;
        cards.sort(&mut deck);
        assert_eq!(deck, expected, "card activation: full 52-card order");
    }

    let pairs: &[(&str, &str)] = &[
        ("Ah", "2h"),
        ("9h", "Th"),
        ("Qh", "Kh"),
        ("Kh", "As"),
        ("Ks", "Ad"),
        ("Kd", "Ac"),
        ("Jc", "Qc"),
        ("Qc", "Kc"),
    ];
    for (a, b) in pairs {
        assert_eq!(
            cards.compare(card(a), None, card(b), None),
            Ordering::Less,
            "card activation: {a} acts before {b}"
        );
    }
}

#[test]
fn gunfight_values() {
    check_values(
        GameId::Gunfight,
        &[
            ("As", Some(11)),
            ("Kh", Some(10)),
            ("Qd", Some(10)),
            ("Jc", Some(10)),
            ("Ts", Some(10)),
            ("9h", Some(9)),
            ("2d", Some(2)),
        ],
    );
}

#[test]
fn gunfight_initiative() {
    let cards = cards_of(GameId::Gunfight);
    assert!(cards.jokers, "gunfight decks include jokers");
    let blue = Some(BackColour::Blue);
    let red = Some(BackColour::Red);
    // (first, its back, second, its back): first wins the initiative.
    let table: &[(&str, Option<BackColour>, &str, Option<BackColour>)] = &[
        ("XR", None, "As", None),
        ("XB", None, "As", None),
        ("XB", None, "Ah", None),
        ("As", None, "Kh", None),
        ("Kh", None, "Qh", None),
        ("Qh", None, "Jh", None),
        ("Jh", None, "Th", None),
        ("Ts", None, "9h", None),
        ("3s", None, "2h", None),
        // Suit tie-break: hearts, clubs, diamonds, spades.
        ("Th", None, "Tc", None),
        ("Tc", None, "Td", None),
        ("Td", None, "Ts", None),
        ("Th", None, "Ts", None),
        // Same card from both packs: blue back before red.
        ("Th", blue, "Th", red),
        ("As", blue, "As", red),
        ("XR", blue, "XR", red),
        // Back colour only breaks ties: a better card on red still wins.
        ("Th", red, "Tc", blue),
        ("As", red, "Kh", blue),
    ];
    for (a, ab, b, bb) in table {
        assert_eq!(
            cards.compare(card(a), *ab, card(b), *bb),
            Ordering::Less,
            "gunfight: {a} ({ab:?}) acts before {b} ({bb:?})"
        );
        assert_eq!(
            cards.compare(card(b), *bb, card(a), *ab),
            Ordering::Greater,
            "gunfight: {b} ({bb:?}) acts after {a} ({ab:?})"
        );
    }
    assert_eq!(
        cards.compare(card("Th"), blue, card("Th"), blue),
        Ordering::Equal,
        "gunfight: identical card and back tie"
    );

    let mut hand: Vec<Card> = ["2s", "Ts", "Kh", "XB", "Th", "As", "Tc", "Td"]
        .iter()
        .map(|c| card(c))
        .collect();
    cards.sort(&mut hand);
    let want: Vec<Card> = ["XB", "As", "Kh", "Th", "Tc", "Td", "Ts", "2s"]
        .iter()
        .map(|c| card(c))
        .collect();
    assert_eq!(hand, want, "gunfight: sorted initiative order");
}
