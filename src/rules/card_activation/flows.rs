//! Whole Card-Activation flows driven by answers, as at the table.

use super::actions::RoutedTurn;
use super::{GameSetup, OVERWATCH, PREP_LEFT, ROUTED, SideSetup, parse_units};
use crate::rules::ProcedureSpec;
use crate::rules::effect::Effect;
use crate::rules::games::GameId;
use crate::rules::session::{Event, Session};
use crate::rules::state::Unit;
use crate::rules::testkit::{
    asking, assert_asking, begin_game, begin_game_with, feed, logged, outcome, refused,
};

fn setup() -> GameSetup {
    let side = |name: &str, units: &str| SideSetup {
        name: name.into(),
        units: parse_units(units).unwrap_or_else(|e| panic!("{e}")),
    };
    GameSetup {
        sides: vec![
            side("Red", "Rifles:5 Scouts:3 Captain:commander"),
            side("Blue", "Guards:5 Militia:5"),
        ],
        // The flows here answer in the first order (as saves made then).
        question_order: 0,
    }
}

fn begin() -> Session {
    begin_game(
        GameId::CardActivation,
        ProcedureSpec::CardActivation(setup()),
        4,
    )
}

/// A game begun as the window begins one, in the newest question order.
fn begin_newest() -> Session {
    let mut newest = setup();
    newest.question_order = super::QUESTION_ORDER;
    begin_game(
        GameId::CardActivation,
        ProcedureSpec::CardActivation(newest),
        4,
    )
}

fn unit<'a>(s: &'a Session, name: &str) -> &'a Unit {
    let u = s.state().units.iter().find(|u| u.name == name);
    u.unwrap_or_else(|| panic!("no unit {name}"))
}

/// Deal and lay cards: Red gets 4 (3 units + leadership 1), Blue 3 (the
/// smaller side: 3/4 of 3 rounded up beats its 2 units).
const DEAL: [&str; 8] = [
    "k Ah 5s 9d Kc",
    "c Ah",
    "c 9d",
    "c 5s",
    "k 2h 3s Qc",
    "c 3s",
    "c 2h",
    // (Blue's Qc is discarded.)
    "c shoot",
];

#[test]
fn cards_are_dealt_by_units_and_leadership_and_order_follows_suits_then_ranks() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    assert!(logged(
        &s,
        "Red is dealt 4 card(s) (3 for units, 1 for leadership)"
    ));
    // Blue has 2 units: as the smaller side it gets 3/4 of Red's 3, rounded up.
    assert!(logged(
        &s,
        "Blue is dealt 3 card(s) (3 as the smaller side: 3/4 of the other side's 3 units, rounded up)"
    ));
    assert!(logged(&s, "Red discards Kc"));
    assert!(logged(&s, "Turn 1 begins"));
    // The cards left over go to the discard pile at once (Kc and Qc).
    assert_eq!(s.state().decks[0].discard_pile.len(), 2);
    assert!(logged(
        &s,
        "Activation order: Ah Rifles, 2h Militia, 3s Guards, 5s Captain, 9d Scouts"
    ));
    assert_asking(&s, "Rifles has 2 action(s) left");
}

#[test]
fn shooting_names_dice_and_penalties_and_a_failed_morale_check_routs() {
    let mut s = begin();
    feed(&mut s, &DEAL);
    feed(&mut s, &["c u3", "n 13"]);
    assert!(logged(
        &s,
        "Rifles rolls 5 shooting dice at Guards, -1 to hit (0 earlier action(s), target moved 13 in -1)"
    ));
    feed(&mut s, &["n 2", "c yes", "d 6 3"]);
    assert!(logged(&s, "Guards rolls 9 against 7: fails"));
    // Action bookkeeping stays out of the log: the action lines say it.
    assert!(!logged(&s, "spent now"), "{:?}", s.state().log);
    assert!(unit(&s, "Guards").has(ROUTED));
    assert_eq!(unit(&s, "Guards").soldiers.len(), 3);
    // The rifle needs a prep action before it can shoot again, said after
    // the shot.
    assert_eq!(unit(&s, "Rifles").stat(PREP_LEFT), 1);
    let line = |text: &str| s.state().log.iter().position(|l| l.text.contains(text));
    let prep = line("Rifles' weapon needs 1 Prep action before it shoots again");
    assert!(prep.is_some(), "{:?}", s.state().log);
    assert!(prep > line("Rifles rolls 5 shooting dice"));
    assert_eq!(line("Prep actions to go"), None);
    // Shoot keeps its place in the menu (and its number key), but is
    // turned down until the weapon is prepped; no action is spent.
    assert!(
        asking(&s).contains("[Move | Melee | Shoot (needs 1 Prep first) | Special action |"),
        "{}",
        asking(&s)
    );
    let before = asking(&s);
    feed(&mut s, &["c shoot"]);
    assert!(logged(&s, "Rifles' weapon needs 1 Prep action(s) first"));
    assert_eq!(asking(&s), before);
    feed(&mut s, &["c special", "c prep"]);
    assert!(logged(&s, "Rifles' weapon is ready to shoot"));
    // Militia goes on Overwatch; the routed Guards must rally first.
    feed(&mut s, &["c overwatch"]);
    assert!(unit(&s, "Militia").has(OVERWATCH));
    // Before the rally the Militia may use their held action; they wait.
    assert_asking(
        &s,
        "Guards is about to rally: does a unit on Overwatch act?",
    );
    feed(&mut s, &["c on", "d 2 2"]);
    assert!(logged(&s, "Guards rolls 4 against 6 (routed -1): passes"));
    assert!(unit(&s, "Guards").has(OVERWATCH) && !unit(&s, "Guards").has(ROUTED));
}

/// The Captain charges: two straight moves into contact.
fn captain_charges() -> Session {
    let mut s = begin();
    feed(&mut s, &DEAL);
    feed(
        &mut s,
        &["c u3", "n 0", "n 0", "c no", "c end", "c end", "c end"],
    );
    feed(&mut s, &["c move", "c none", "c move", "c two-moves"]);
    s
}

#[test]
fn a_two_move_charge_gives_a_free_melee_at_plus_one() {
    let mut s = captain_charges();
    // Both moves are in the log: the second is the charge's line.
    assert!(logged(&s, "Captain moves up to 6 in"));
    assert!(logged(
        &s,
        "Captain moves up to 6 in again (2 moves in a row) and charges: +1 in melee against the enemy it reached and 1 free melee action(s)"
    ));
    assert_asking(&s, "Free melee");
    // The usual actions keep their places, turned down (audit AH M6).
    assert!(
        asking(&s).contains(
            "[Move (no actions left) | Melee (no actions left) | Shoot (no actions left) |"
        ),
        "{}",
        asking(&s)
    );
    feed(&mut s, &["c move"]);
    assert!(refused(
        &s,
        "Captain has no actions left: only its free melee"
    ));
    feed(&mut s, &["c melee", "c u4"]);
    // The free melee costs no action: both moves came before it.
    assert!(logged(
        &s,
        "Captain rolls 1 melee die at Militia, -1 to hit (2 earlier action(s), charge +1)"
    ));
    feed(&mut s, &["n 1", "c no"]);
    assert_eq!(unit(&s, "Militia").soldiers.len(), 4);
    // One log line for the casualty, not two in other words.
    let lines = s.state().log.iter();
    let said: Vec<&str> = lines
        .filter(|l| l.text.starts_with("Militia loses"))
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(said, ["Militia loses 1 soldier(s)"]);
    // Scouts end; the turn ends and the players play on.
    feed(&mut s, &["c end"]);
    assert!(logged(
        &s,
        "Scouts ends its activation with 2 actions unused"
    ));
    assert_asking(&s, "Turn 1 is over");
    feed(&mut s, &["c next"]);
    assert_eq!(s.state().turn, 2);
    // Turn 1's activation order is gone until turn 2's cards are laid.
    assert!(s.state().activation.slots.is_empty());
}

#[test]
fn a_unit_on_overwatch_acts_in_another_units_activation() {
    let mut s = begin();
    feed(&mut s, &DEAL);
    feed(&mut s, &["c u4", "n 0", "n 0", "c no", "c end"]);
    feed(&mut s, &["c overwatch", "c end"]);
    // Captain's activation: the Militia fire from Overwatch.
    feed(&mut s, &["c watch", "c u4", "c shoot", "c u2", "n 0"]);
    assert!(logged(&s, "Militia rolls 5 shooting dice at Captain"));
    feed(&mut s, &["n 1"]);
    assert!(!unit(&s, "Captain").in_play());
    assert!(!unit(&s, "Militia").has(OVERWATCH));
}

#[test]
fn the_players_stop_on_the_agreed_condition() {
    let mut s = begin();
    feed(&mut s, &DEAL);
    feed(
        &mut s,
        &[
            "c u3", "n 0", "n 0", "c no", "c end", "c end", "c end", "c end", "c end",
        ],
    );
    feed(&mut s, &["c win-1"]);
    let outcome = outcome(&s);
    assert_eq!(outcome.winner, Some(1));
    assert!(s.pending().is_none());
}

#[test]
fn the_target_movement_question_asks_for_last_turn_when_the_target_has_not_acted() {
    let mut s = begin();
    feed(&mut s, &DEAL);
    feed(&mut s, &["c u3"]);
    // Guards' card (3s) is still to come after Rifles' (Ah): l.78.
    assert_asking(
        &s,
        "How far did Guards move last turn, in inches? (It has not acted yet, and in the first turn there is no last turn: 0.)",
    );
    // Known to be 0: settled, so the window takes it (scripts answer it).
    let settled = |s: &Session| s.pending().and_then(|r| r.only_answer()).map(|a| a.0);
    assert_eq!(
        settled(&s),
        Some(crate::rules::procedure::Answer::Number(0))
    );
    feed(
        &mut s,
        &[
            "n 0", "n 0", "c no", "c end", "c end", "c end", "c end", "c end", "c next",
        ],
    );
    // Turn 2's deal and order; Rifles (Ah) readies the rifle and shoots again.
    feed(&mut s, &DEAL[..7]);
    assert!(logged(&s, "Turn 2 begins"), "{:?}", s.state().log);
    feed(&mut s, &["c special", "c prep", "c shoot", "c u3"]);
    assert_asking(
        &s,
        "How far did Guards move last turn, in inches? (It has not acted yet this turn.)",
    );
    // Red's deal with its Captain: 4 cards, 1 for leadership.
    assert!(logged(
        &s,
        "Red is dealt 4 card(s) (3 for units, 1 for leadership)"
    ));
    // Last turn it made no Move and did not rout: 0 (audit X3).
    assert_eq!(
        settled(&s),
        Some(crate::rules::procedure::Answer::Number(0))
    );
    let why = s
        .pending()
        .and_then(|r| r.settled.as_ref())
        .map(|w| w.why.clone());
    assert_eq!(why.as_deref(), Some("no move recorded that turn"));
}

/// A side whose commander is out is told why no leadership card comes
/// (audit X7c).
#[test]
fn a_deal_without_the_commander_says_why() {
    let mut s = begin();
    feed(&mut s, &DEAL);
    feed(&mut s, &["c u3", "n 0", "n 0", "c no"]);
    let captain = s.state().units.iter().position(|u| u.name == "Captain");
    let captain = captain.unwrap_or_else(|| panic!("no Captain"));
    let out = Effect::RemoveUnit {
        unit: captain,
        reason: "shot".into(),
    };
    s.apply(Event::Edit(out)).unwrap_or_else(|e| panic!("{e}"));
    while !logged(&s, "Turn 2 begins") {
        let options = s.pending().and_then(|r| match &r.ask {
            crate::rules::procedure::Ask::Choose { options } => options
                .iter()
                .find(|o| o.id == "end" || o.id == "next")
                .map(|o| o.id.clone()),
            _ => None,
        });
        let Some(id) = options else {
            panic!("{}", asking(&s));
        };
        feed(&mut s, &[&format!("c {id}")]);
    }
    feed(&mut s, &["k Ah 5s"]);
    let deal: Vec<&str> = (s.state().log.iter())
        .map(|l| l.text.as_str())
        .filter(|t| t.starts_with("Red is dealt"))
        .collect();
    assert!(
        deal.last()
            .is_some_and(|t| t.ends_with("none for leadership: Captain is out)")),
        "{deal:?}"
    );
}

/// A target that moved is asked about, with the most its recorded moves
/// allow; one that made no Move this turn is taken as 0 (audit X3).
#[test]
fn the_target_movement_question_is_bounded_by_the_recorded_moves() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    // Rifles (Ah) move once and end; Militia (2h) shoot at them.
    feed(&mut s, &["c move", "c none", "c end", "c shoot", "c u0"]);
    assert_asking(
        &s,
        "How far has Rifles moved this turn, in inches? Its recorded moves allow up to 6 in.",
    );
    assert_eq!(s.pending().and_then(|r| r.only_answer()), None);
    // Games begun before question order 1 take any distance (their saves
    // may hold more than the records allow).
    assert_asking(&s, "enter a number 0-200");
    feed(&mut s, &["n 6", "n 0"]);
    if asking(&s).contains("morale check") {
        feed(&mut s, &["c no"]);
    }
    // Militia shoots again (its second action): still asked.
    assert!(logged(&s, "Militia rolls"));
}

/// In games begun with question order 1 (the window's), a target's
/// movement is asked only up to what its recorded moves allow (audit Z3).
#[test]
fn the_target_movement_is_kept_within_the_recorded_moves() {
    let mut bounded = setup();
    bounded.question_order = 2;
    let mut s = begin_game(
        GameId::CardActivation,
        ProcedureSpec::CardActivation(bounded),
        4,
    );
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c move", "c none", "c end", "c shoot", "c u0"]);
    assert_asking(&s, "enter a number 0-6: How far has Rifles moved this turn");
    let refused = s.apply(Event::Answer(crate::rules::procedure::Answer::Number(13)));
    assert!(refused.is_err(), "13 is more than the records allow");
    feed(&mut s, &["n 6"]);
    assert_asking(&s, "casualties");
}

/// From question order 3, a target whose recorded moves are all within the
/// free 6 inches is not asked how far it moved: no answer could matter
/// (audit BI I5).
#[test]
fn a_target_movement_within_the_free_inches_is_not_asked() {
    let mut s = begin_newest();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c move", "c none", "c end", "c shoot", "c u0"]);
    // The window takes the settled answer by itself; a script still gives it.
    let settled = s.pending().and_then(|r| r.only_answer());
    assert_eq!(
        settled.map(|(a, _)| a),
        Some(crate::rules::procedure::Answer::Number(6)),
        "{}",
        asking(&s)
    );
    assert!(
        !asking(&s).contains("recorded moves allow"),
        "{}",
        asking(&s)
    );
    feed(&mut s, &["n 6"]);
    assert_asking(&s, "casualties");
}

/// From question order 3 a part of a split unit acts for its own models:
/// it never preps the unit's weapon, which takes the whole unit's action,
/// and the log names each part as it acts (audit BI I1, I2).
#[test]
fn a_split_off_part_never_preps_the_weapon() {
    let mut s = begin_newest();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c split", "n 1", "c shoot", "c u3", "n 0", "n 0"]);
    if asking(&s).contains("morale check") {
        feed(&mut s, &["c no"]);
    }
    assert!(logged(&s, "The rest of Rifles (4 model(s)) shoot"));
    // An attack without casualties says so (audit BI I4).
    assert!(logged(&s, "Guards takes no casualties"));
    assert_asking(&s, "What do the split-off 1 model(s) of Rifles do?");
    feed(&mut s, &["c special"]);
    assert!(logged(
        &s,
        "The split-off 1 model(s) of Rifles take a special action"
    ));
    assert_asking(&s, "Prep the weapon (not now)");
    feed(&mut s, &["c aim"]);
    assert_asking(&s, "Rifles has 1 action(s) left");
    // Split again: the part taking a special action is turned down, with
    // the reason, if it picks the Prep (audit BM M3).
    feed(&mut s, &["c split", "n 1", "c special"]);
    assert_asking(&s, "Prep the weapon (not now)");
    feed(&mut s, &["c prep"]);
    assert!(logged(
        &s,
        "Rifles: a part of a split unit does not prep the weapon"
    ));
    assert_asking(&s, "Rifles' special action");
    // The whole unit's own special action preps it.
    feed(&mut s, &["c aim", "c move"]);
    assert!(logged(
        &s,
        "The split-off 1 model(s) of Rifles move up to 6 in"
    ));
}

/// A routed target takes no morale check, and the log says so, for the
/// player who expects the question (audit X4).
#[test]
fn a_routed_target_is_said_to_take_no_morale_check() {
    let mut s = begin();
    feed(&mut s, &DEAL);
    feed(&mut s, &["c u3", "n 13", "n 2", "c yes", "d 6 3"]);
    assert!(unit(&s, "Guards").has(ROUTED));
    feed(&mut s, &["c melee", "c u3"]);
    assert_asking(&s, "how many of Guards' models are casualties");
    feed(&mut s, &["n 1"]);
    assert!(logged(&s, "Guards is routed already: no morale check"));
    assert!(!asking(&s).contains("morale check"), "{}", asking(&s));
}

#[test]
fn a_routed_unit_that_rallies_counts_only_the_actions_it_took() {
    let mut s = begin();
    feed(&mut s, &DEAL);
    // The Rifles shoot the Guards, who rout; then prep the rifle.
    feed(
        &mut s,
        &[
            "c u3",
            "n 13",
            "n 2",
            "c yes",
            "d 6 3",
            "c special",
            "c prep",
        ],
    );
    // Militia on Overwatch; the Guards rally (one action taken).
    feed(&mut s, &["c overwatch", "c on", "d 2 2"]);
    // Rallied, they hold their actions left on Overwatch: no longer lost.
    let guards = unit(&s, "Guards");
    assert!(guards.has(OVERWATCH) && !guards.has(super::FORFEIT));
    // Captain's activation: the Guards use their held action to melee.
    feed(&mut s, &["c watch", "c u3", "c melee", "c u0"]);
    assert!(
        logged(
            &s,
            "Guards rolls 3 melee dice at Rifles, -1 to hit (1 earlier action(s))"
        ),
        "{:?}",
        s.state().log
    );
}

#[test]
fn a_unit_routed_in_its_own_activation_loses_the_rest_of_its_actions() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c overwatch"]);
    // The Militia's activation: the Rifles fire from Overwatch and rout them.
    feed(
        &mut s,
        &["c watch", "c u0", "c shoot", "c u4", "n 0", "n 1", "c yes"],
    );
    // What passes is said before the roll.
    assert_asking(&s, "Morale check for Militia: 7 or less passes");
    feed(&mut s, &["d 6 6"]);
    assert!(unit(&s, "Militia").has(ROUTED));
    assert_asking(&s, "Guards has 2 action(s) left");
}

#[test]
fn a_charger_routed_by_overwatch_fire_loses_its_free_melee() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c overwatch"]);
    // The Militia charge: two straight moves into contact.
    feed(&mut s, &["c move", "c none", "c move", "c two-moves"]);
    assert_asking(&s, "Free melee");
    // The Rifles fire from Overwatch and rout them before they strike.
    feed(
        &mut s,
        &[
            "c watch", "c u0", "c shoot", "c u4", "n 0", "n 1", "c yes", "d 6 6",
        ],
    );
    assert!(unit(&s, "Militia").has(ROUTED));
    assert!(!asking(&s).contains("Free melee"), "{}", asking(&s));
    assert_asking(&s, "Guards has 2 action(s) left");
    // Gone with the rout: the panel no longer shows it, and the rout line
    // said so (audit BF N3).
    assert_eq!(unit(&s, "Militia").stat(super::actions::FREE_MELEE), 0);
    assert!(!logged(&s, "free melee (charge) goes unused"));
}

/// A game of `setup` on the built-in ruleset with a house profile `(id,
/// copied from, stats set)` added.
fn begin_with_house_profile(setup: GameSetup, house: (&str, &str, [(&str, i32); 1])) -> Session {
    let (lib, errs) = crate::rules::games::Library::builtin();
    assert!(errs.is_empty(), "{errs:?}");
    let mut rs = lib.get(GameId::CardActivation).cloned().expect("ruleset");
    let (id, base, stats) = house;
    let mut profile = rs.profile(base).cloned().expect("profile");
    profile.id = id.into();
    for (key, value) in stats {
        profile.stats.insert(key.into(), value);
    }
    rs.profiles.push(profile);
    let mut s = Session::new(GameId::CardActivation, rs, 4);
    s.apply(Event::Begin(ProcedureSpec::CardActivation(setup)))
        .unwrap_or_else(|e| panic!("{e}"));
    s
}

/// Red's Knights (a house profile: the built-in unit with `stat` set) are
/// dealt the first card and asked what they do.
fn red_knights_to_act(stat: (&str, i32), question_order: u32) -> Session {
    let mut setup = setup();
    setup.question_order = question_order;
    setup.sides[0].units =
        parse_units("Knights:knights:4 Scouts:3 Captain:commander").expect("units");
    let mut s = begin_with_house_profile(setup, ("knights", "unit", [stat]));
    feed(&mut s, &DEAL[..7]);
    s
}

/// Audit AH M2: a unit whose profile has no missile weapon may not shoot;
/// Shoot is listed (numbers stay put) and turned down with the reason.
#[test]
fn a_unit_without_a_missile_weapon_is_turned_down_when_it_shoots() {
    let mut s = red_knights_to_act(("weapon_range", 0), 0);
    assert_asking(&s, "Knights has 2 action(s) left");
    assert_asking(&s, "Shoot (no missile weapon)");
    let before = asking(&s);
    feed(&mut s, &["c shoot"]);
    assert!(refused(&s, "Knights has no missile weapon"));
    assert_eq!(asking(&s), before);
}

/// Audit AH M3: the charge bonus counts against the enemy the charge
/// reached, not against another the unit fights later in the turn.
#[test]
fn the_charge_bonus_counts_only_against_the_enemy_charged() {
    let mut s = red_knights_to_act(("actions", 3), 0);
    feed(&mut s, &["c move", "c none", "c move", "c two-moves"]);
    feed(&mut s, &["c melee", "c u4"]);
    assert!(logged(
        &s,
        "at Militia, -1 to hit (2 earlier action(s), charge +1)"
    ));
    feed(&mut s, &["n 0", "c no", "c melee", "c u3"]);
    assert!(
        logged(
            &s,
            "at Guards, -3 to hit (3 earlier action(s), no charge bonus: the charge reached Militia)"
        ),
        "{:?}",
        s.state()
            .log
            .iter()
            .rev()
            .take(6)
            .map(|l| &l.text)
            .collect::<Vec<_>>()
    );
}

/// Audit AJ4: in games begun with question order 2, a charge asks which
/// enemy it reached, and the bonus counts against that one only, whichever
/// is fought first.
#[test]
fn a_charge_asks_which_enemy_it_reached() {
    let mut s = red_knights_to_act(("actions", 3), super::QUESTION_ORDER);
    feed(&mut s, &["c move", "c none", "c move", "c two-moves"]);
    assert_asking(&s, "Which enemy did Knights charge into?");
    feed(&mut s, &["c u3", "c melee", "c u4"]);
    assert!(logged(
        &s,
        "at Militia, -2 to hit (2 earlier action(s), no charge bonus: the charge reached Guards)"
    ));
    feed(&mut s, &["n 0", "c no", "c melee", "c u3"]);
    assert!(logged(
        &s,
        "at Guards, -2 to hit (3 earlier action(s), charge +1)"
    ));
}

/// Audit AH M1: a house rule's commander (any profile with a leadership
/// bonus) earns its side the extra cards and steadies its morale alike.
#[test]
fn a_house_rule_commander_steadies_morale_as_it_earns_leadership_cards() {
    let mut setup = setup();
    setup.sides[1].units = parse_units("Guards:5 Militia:5 Boss:warlord").expect("units");
    let house = ("warlord", "field-commander", [("leadership", 2)]);
    let mut s = begin_with_house_profile(setup, house);
    feed(&mut s, &DEAL[..4]);
    feed(&mut s, &["k 2h 3s Qc 4c 6c"]);
    assert!(logged(
        &s,
        "Blue is dealt 5 card(s) (3 for units, 2 for leadership)"
    ));
    feed(
        &mut s,
        &[
            "c 3s", "c 2h", "c 4c", "c shoot", "c u3", "n 13", "n 2", "c yes",
        ],
    );
    assert_asking(&s, "Is Boss (commander) close enough to steady Guards?");
}

#[test]
fn house_ruled_numbers_change_play() {
    let mut s = begin_game_with(
        GameId::CardActivation,
        ProcedureSpec::CardActivation(setup()),
        4,
        &[
            ("prepped_weapons_at_start", 0),
            ("charge_distance_in", 10),
            ("charge_move_actions", 3),
        ],
    );
    feed(&mut s, &DEAL[..7]);
    // Weapons start unprepped: the Rifles cannot shoot yet.
    assert_eq!(unit(&s, "Rifles").stat(PREP_LEFT), 1);
    assert_asking(&s, "Rifles has 2 action(s) left");
    assert!(
        asking(&s).contains("Shoot (needs 1 Prep first)"),
        "{}",
        asking(&s)
    );
    // One 6 in move cannot make a 10 in charge by distance...
    feed(&mut s, &["c move"]);
    assert_asking(&s, "Rifles moves up to 6 in");
    assert!(!asking(&s).contains("Charged: 10"), "{}", asking(&s));
    feed(&mut s, &["c none"]);
    assert!(logged(&s, "Rifles moves up to 6 in"));
    // ...two in a row can; but they are not yet a charge by moves when
    // three are needed.
    feed(&mut s, &["c move"]);
    assert_asking(&s, "Charged: 10 in or more");
    assert!(!asking(&s).contains("in a row"), "{}", asking(&s));
}

#[test]
fn a_unit_on_overwatch_may_act_right_after_the_last_action_of_an_activation() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c overwatch"]);
    // The Militia spend both actions moving; their activation ends by itself
    // and the Guards' menu offers the Rifles' held action first thing.
    feed(&mut s, &["c move", "c none", "c move", "c none"]);
    assert_asking(&s, "Guards has 2 action(s) left");
    assert_asking(&s, "A unit on Overwatch acts");
    feed(&mut s, &["c watch", "c u0", "c shoot", "c u4", "n 6"]);
    assert!(logged(&s, "Rifles rolls 5 shooting dice at Militia"));
    feed(&mut s, &["n 1", "c no"]);
    assert!(!unit(&s, "Rifles").has(OVERWATCH));
    assert!(
        !asking(&s).contains("A unit on Overwatch acts"),
        "{}",
        asking(&s)
    );
}

#[test]
fn the_last_held_action_of_the_turn_is_offered_before_the_turn_ends() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    // Everyone but the Scouts ends at once; the Scouts, last, go on Overwatch.
    feed(&mut s, &["c end", "c end", "c end", "c end", "c overwatch"]);
    assert!(unit(&s, "Scouts").has(OVERWATCH));
    // Going on Overwatch ends the activation at the player's word; the turn
    // still offers the held action before it ends.
    assert_asking(
        &s,
        "Turn 1's activations are over: does a unit on Overwatch act?",
    );
    feed(&mut s, &["c on"]);
    assert_asking(&s, "Turn 1 is over");
}

#[test]
fn fire_from_overwatch_between_two_moves_does_not_break_the_charge() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c overwatch"]);
    feed(&mut s, &["c move", "c none"]);
    // The Rifles use their held action between the Militia's moves.
    feed(&mut s, &["c watch", "c u0", "c move"]);
    feed(&mut s, &["c move"]);
    assert_asking(&s, "2 straight move actions in a row into contact");
}

/// Audit BC C3: a charge's free melee left untaken when the activation
/// ends is said to go unused, and no longer counts.
#[test]
fn a_free_melee_left_at_the_end_of_the_activation_goes_unused() {
    let mut s = captain_charges();
    assert_asking(&s, "Free melee");
    feed(&mut s, &["c end"]);
    assert!(logged(&s, "Captain's free melee (charge) goes unused"));
    assert_eq!(unit(&s, "Captain").stat(super::actions::FREE_MELEE), 0);
}

#[test]
fn a_charges_free_melee_may_be_taken_at_once() {
    let mut s = begin_game_with(
        GameId::CardActivation,
        ProcedureSpec::CardActivation(setup()),
        4,
        &[("charge_move_actions", 1)],
    );
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c move", "c two-moves"]);
    assert_asking(&s, "Free melee (charge)");
    assert_asking(&s, "Rifles has 1 action(s) left");
    feed(&mut s, &["c free-melee", "c u3"]);
    assert!(logged(
        &s,
        "Rifles rolls 5 melee dice at Guards, +0 to hit (1 earlier action(s), charge +1)"
    ));
    feed(&mut s, &["n 0", "c no"]);
    // The free melee cost no action: one is left, and no second free melee.
    assert_asking(&s, "Rifles has 1 action(s) left");
    assert!(!asking(&s).contains("Free melee"), "{}", asking(&s));
}

#[test]
fn up_to_half_the_models_may_split_off_at_a_second_target() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c shoot"]);
    assert_asking(&s, "Split: up to 2 of its 5 models engage a second target");
    feed(&mut s, &["c split", "c u3", "c u4", "n 2", "n 0"]);
    // Said as one split action (audit BM M5).
    assert!(logged(
        &s,
        "Rifles splits its attack: 3 model(s) at Guards, 2 at Militia"
    ));
    assert!(logged(
        &s,
        "Rifles rolls 3 shooting dice at Guards, +0 to hit"
    ));
    feed(&mut s, &["n 1", "c no", "n 13"]);
    assert!(logged(
        &s,
        "Rifles rolls 2 shooting dice at Militia, -1 to hit (0 earlier action(s), target moved 13 in -1)"
    ));
    feed(&mut s, &["n 2", "c no"]);
    assert_eq!(unit(&s, "Guards").soldiers.len(), 4);
    assert_eq!(unit(&s, "Militia").soldiers.len(), 3);
    // One action for both targets.
    assert_asking(&s, "Rifles has 1 action(s) left");
}

#[test]
fn only_a_failed_rally_at_the_board_edge_eliminates_a_unit() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    // The Rifles rout the Guards: no question about the board edge.
    feed(&mut s, &["c shoot", "c u3", "n 0", "n 1", "c yes", "d 6 6"]);
    assert!(logged(&s, "Guards routs 12 in away from the enemy"));
    assert!(unit(&s, "Guards").in_play() && unit(&s, "Guards").has(ROUTED));
    // The units panel says what the rout means for the Guards' turn.
    let guards = s.state().units.iter().position(|u| u.name == "Guards");
    let guards = guards.unwrap_or_else(|| panic!("no Guards"));
    let routed_turn = |s: &Session| RoutedTurn::of(s.state(), s.ruleset(), guards);
    assert_eq!(routed_turn(&s), RoutedTurn::RalliesLater);
    feed(&mut s, &["c end", "c end"]);
    assert_eq!(routed_turn(&s), RoutedTurn::UpNow);
    // The Guards fail to rally at their board edge.
    feed(&mut s, &["d 6 5"]);
    assert_asking(
        &s,
        "Guards fails to rally. Was it at its board edge when it failed?",
    );
    // Their card is still up: not "rallies first when its card comes up".
    assert_eq!(routed_turn(&s), RoutedTurn::UpNow);
    feed(&mut s, &["c yes"]);
    assert!(logged(
        &s,
        "Guards fails to rally at its board edge and is eliminated"
    ));
    // Said once: the removal itself adds no second line.
    assert!(!logged(&s, "removed from play"), "{:?}", s.state().log);
    assert!(!unit(&s, "Guards").in_play());
}

#[test]
fn up_to_half_the_models_may_take_a_different_action() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    assert_asking(&s, "Split: up to 2 models take a different action");
    feed(&mut s, &["c split", "n 2"]);
    // The main body first, said as the rest of the unit (audit R6b).
    assert_asking(&s, "What does the rest of Rifles (3 model(s)) do?");
    feed(&mut s, &["c shoot", "c u3", "n 0"]);
    assert!(logged(
        &s,
        "Rifles rolls 3 shooting dice at Guards, +0 to hit"
    ));
    feed(&mut s, &["n 1", "c no"]);
    // The rifle now needs its prep: the split-off pair may not shoot too.
    // Shoot stays listed (Special action keeps its number) and is refused.
    assert_asking(&s, "What do the split-off 2 model(s) of Rifles do?");
    assert_asking(
        &s,
        "[Move | Melee | Shoot (needs 1 Prep first) | Special action]",
    );
    feed(&mut s, &["c shoot"]);
    assert!(logged(&s, "Rifles' weapon needs 1 Prep action(s) first"));
    assert_asking(&s, "What do the split-off 2 model(s) of Rifles do?");
    feed(&mut s, &["c move"]);
    assert!(logged(
        &s,
        "The split-off 2 model(s) of Rifles move up to 6 in"
    ));
    assert_asking(&s, "Rifles has 1 action(s) left");
}

#[test]
fn a_split_off_part_may_take_a_special_action() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c split", "n 1", "c move", "c special"]);
    assert!(logged(
        &s,
        "The rest of Rifles (4 model(s)) move up to 6 in"
    ));
    assert_asking(&s, "Rifles' special action");
    feed(&mut s, &["c aim"]);
    assert!(logged(
        &s,
        "Rifles aims (the rules give aiming no effect of its own"
    ));
    assert_asking(&s, "Rifles has 1 action(s) left");
}

/// One split action cannot both fire the weapon and count towards its next
/// Prep, either way round.
#[test]
fn a_split_action_that_shoots_cannot_also_prep_the_weapon() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c split", "n 1", "c shoot", "c u3", "n 0", "n 0"]);
    if asking(&s).contains("morale check") {
        feed(&mut s, &["c no"]);
    }
    assert_asking(&s, "What do the split-off 1 model(s) of Rifles do?");
    feed(&mut s, &["c special"]);
    assert_asking(&s, "Prep the weapon (not now)");
    feed(&mut s, &["c aim"]);
    // The weapon still needs its Prep before the next shot.
    assert_asking(&s, "Rifles has 1 action(s) left");
    assert!(
        asking(&s).contains("Shoot (needs 1 Prep first)"),
        "{}",
        asking(&s)
    );
    // Prepped by one part, the weapon is not fired by the other.
    feed(&mut s, &["c split", "n 1", "c special", "c prep"]);
    assert!(logged(&s, "Rifles' weapon is ready to shoot"));
    assert_asking(&s, "What do the split-off 1 model(s) of Rifles do?");
    assert_asking(&s, "Shoot (readied in this action)");
    feed(&mut s, &["c shoot"]);
    assert!(logged(
        &s,
        "readied by the other models in this same action"
    ));
    assert_asking(&s, "What do the split-off 1 model(s) of Rifles do?");
}

#[test]
fn units_in_sequence_act_together_and_charge_side_by_side() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    // Ah Rifles is followed by Blue's 2h Militia: nobody to act with.
    assert!(!asking(&s).contains("together"), "{}", asking(&s));
    feed(&mut s, &["c end"]);
    // 2h Militia and 3s Guards are Blue's, one after the other.
    assert_asking(&s, "Guards acts now, together with Militia");
    // An action taken together counts against the Guards' own card.
    feed(&mut s, &["c with-u3", "c move", "c none", "c end"]);
    assert!(logged(&s, "Guards acts together with Militia"));
    assert!(logged(&s, "Guards moves up to 6 in"));
    assert_asking(&s, "Guards has 1 action(s) left");
    feed(&mut s, &["c end"]);
    // 5s Captain and 9d Scouts: the Scouts move alongside the Captain, and
    // each unit's own two moves make its own charge.
    assert_asking(&s, "Scouts acts now, together with Captain");
    feed(&mut s, &["c move", "c none", "c with-u1"]);
    assert_asking(&s, "Scouts (2 action(s) left) acts together with Captain");
    feed(&mut s, &["c move", "c none", "c move", "c two-moves"]);
    assert!(logged(
        &s,
        "Captain moves up to 6 in again (2 moves in a row) and charges: +1 in melee against the enemy it reached and 1 free melee action(s)"
    ));
    feed(&mut s, &["c with-u1", "c move", "c two-moves"]);
    assert!(logged(
        &s,
        "Scouts moves up to 6 in again (2 moves in a row) and charges: +1 in melee against the enemy it reached and 1 free melee action(s)"
    ));
    // The Scouts' free melee: both their moves are earlier actions.
    feed(&mut s, &["c with-u1", "c free-melee", "c u4"]);
    assert!(logged(
        &s,
        "Scouts rolls 3 melee dice at Militia, -1 to hit (2 earlier action(s), charge +1)"
    ));
    feed(&mut s, &["n 0", "c no"]);
    // Having spent both actions with the Captain, the Scouts have nothing
    // left when their own card comes up; nobody else holds an action.
    assert!(!asking(&s).contains("together"), "{}", asking(&s));
    feed(&mut s, &["c free-melee", "c u4", "n 0", "c no"]);
    assert_asking(&s, "Turn 1 is over");
}

#[test]
fn what_a_unit_earns_acting_together_carries_into_its_own_card() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c end", "c end", "c end"]);
    // The Scouts move once alongside the Captain, who then ends.
    feed(&mut s, &["c with-u1", "c move", "c none", "c end"]);
    assert_asking(&s, "Scouts has 1 action(s) left");
    // Their own move is the second in a row: a two-move charge.
    feed(&mut s, &["c move"]);
    assert_asking(&s, "Charged: 2 straight move actions in a row into contact");
    feed(&mut s, &["c two-moves"]);
    // The free melee it earns is theirs to take on their own card.
    assert_asking(&s, "Free melee (charge)");
}

#[test]
fn a_free_melee_earned_alongside_is_kept_when_the_leader_ends() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c end", "c end", "c end"]);
    // Captain and Scouts both charge with two moves side by side.
    feed(
        &mut s,
        &["c move", "c none", "c with-u1", "c move", "c none"],
    );
    feed(
        &mut s,
        &[
            "c move",
            "c two-moves",
            "c with-u1",
            "c move",
            "c two-moves",
        ],
    );
    // The Captain takes his free melee and is done.
    feed(&mut s, &["c free-melee", "c u4", "n 0", "c no"]);
    // The Scouts' card: no action left, but their free melee is.
    assert_asking(&s, "Scouts has 0 action(s) left");
    assert_asking(&s, "Free melee (charge)");
    feed(&mut s, &["c free-melee", "c u4"]);
    assert!(logged(
        &s,
        "Scouts rolls 3 melee dice at Militia, -1 to hit (2 earlier action(s), charge +1)"
    ));
}

/// The Rifles go on Overwatch; in the Militia's activation the Guards move
/// twice alongside them, spending both their actions.
fn guards_move_twice_alongside() -> Session {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c overwatch"]);
    let twice = ["c with-u3", "c move", "c none"].repeat(2);
    feed(&mut s, &twice);
    s
}

/// A unit acting from Overwatch with its weapon still to prep sees Shoot
/// listed and turned down, so Special action keeps its number (audit X2).
#[test]
fn an_overwatch_action_lists_shoot_until_the_weapon_is_prepped() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c shoot", "c u3", "n 0", "n 0"]);
    if asking(&s).contains("morale check") {
        feed(&mut s, &["c no"]);
    }
    feed(&mut s, &["c overwatch", "c watch", "c u0"]);
    assert_asking(&s, "Rifles acts from Overwatch");
    assert_asking(
        &s,
        "[Move | Melee | Shoot (needs 1 Prep first) | Special action]",
    );
    feed(&mut s, &["c shoot"]);
    assert!(logged(&s, "Rifles' weapon needs 1 Prep action(s) first"));
    feed(&mut s, &["c special"]);
    assert_asking(&s, "Rifles' special action");
}

#[test]
fn a_unit_routed_after_acting_alongside_has_no_action_left_to_rally() {
    // The Guards spend both actions moving alongside the Militia...
    let mut s = guards_move_twice_alongside();
    // ...and the Rifles rout them from Overwatch.
    feed(
        &mut s,
        &[
            "c watch", "c u0", "c shoot", "c u3", "n 0", "n 1", "c yes", "d 6 6",
        ],
    );
    assert!(unit(&s, "Guards").has(ROUTED));
    assert!(logged(&s, "Rifles acts from Overwatch"));
    // Their card is still to come, but with no action left to rally with:
    // the rout says so (no actions are left to lose).
    assert!(logged(
        &s,
        "own edge); with no action left it cannot rally when its card comes up"
    ));
    assert!(!logged(&s, "loses its remaining actions"));
    let guards = s.state().units.iter().position(|u| u.name == "Guards");
    let guards = guards.unwrap_or_else(|| panic!("no Guards"));
    assert_eq!(
        RoutedTurn::of(s.state(), s.ruleset(), guards),
        RoutedTurn::Done
    );
    feed(&mut s, &["c end"]);
    // The Guards' own card: nothing left to rally with this turn.
    assert!(logged(
        &s,
        "Guards has no action left to rally with this turn"
    ));
    assert_eq!(unit(&s, "Guards").stat(super::actions::SPENT), 2);
    assert!(unit(&s, "Guards").has(ROUTED));
}

#[test]
fn units_given_one_name_are_told_apart() {
    let side = |name: &str, units: &str| SideSetup {
        name: name.into(),
        units: parse_units(units).unwrap_or_else(|e| panic!("{e}")),
    };
    let twins = GameSetup {
        sides: vec![side("Red", "Rifles:5 rifles:3"), side("Blue", "Rifles:5")],
        ..GameSetup::default()
    };
    let s = begin_game(
        GameId::CardActivation,
        ProcedureSpec::CardActivation(twins),
        4,
    );
    let names: Vec<&str> = s.state().units.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["Rifles", "rifles 2", "Rifles 3"]);
    assert!(logged(&s, "Red fields rifles 2 (3 soldiers)"));
}

#[test]
fn a_card_whose_actions_went_alongside_says_so_and_play_goes_on() {
    // The Guards take both actions alongside the Militia, who then end.
    let mut s = guards_move_twice_alongside();
    feed(&mut s, &["c end"]);
    assert!(logged(
        &s,
        "Guards' card comes up with every action taken alongside"
    ));
    // The Rifles' held action is offered in the next unit's menu.
    assert_asking(&s, "Captain has 2 action(s) left");
    assert_asking(&s, "A unit on Overwatch acts");
}

#[test]
fn a_unit_routed_before_its_card_is_told_it_rallies_then() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c overwatch"]);
    // In the Militia's activation the Rifles rout the Guards, whose 3s is
    // still to come.
    feed(
        &mut s,
        &[
            "c watch", "c u0", "c shoot", "c u3", "n 0", "n 1", "c yes", "d 6 6",
        ],
    );
    assert!(logged(
        &s,
        "own edge); it must rally first when its card comes up"
    ));
}

#[test]
fn an_older_saves_charge_by_distance_out_of_reach_reads_as_no_charge() {
    let mut s = begin();
    feed(&mut s, &DEAL[..7]);
    // One 6 in move cannot reach 8 in; an older save answered "distance".
    feed(&mut s, &["c move"]);
    assert!(!asking(&s).contains("Charged: 8"), "{}", asking(&s));
    feed(&mut s, &["c distance"]);
    assert!(logged(&s, "Rifles moves up to 6 in"));
    assert!(!logged(&s, "Rifles charges"));
    assert_asking(&s, "Rifles has 1 action(s) left");
}

/// Every unit needs its activation card: forces whose deal would not fit in
/// one pack are refused at setup, not left without cards in play.
#[test]
fn a_deal_bigger_than_the_pack_is_refused_at_setup() {
    use crate::rules::games::Library;
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::CardActivation).cloned();
    let rs = rs.unwrap_or_else(|| panic!("no ruleset"));
    let units = |n: usize| {
        (1..=n)
            .map(|i| format!("U{i}:1"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let with = |red: usize, blue: usize| {
        let mut s = setup();
        s.sides[0].units = parse_units(&units(red)).unwrap_or_else(|e| panic!("{e}"));
        s.sides[1].units = parse_units(&units(blue)).unwrap_or_else(|e| panic!("{e}"));
        super::check_setup(&s, &rs)
    };
    assert!(with(26, 26).is_ok());
    let problems = with(27, 27).err().unwrap_or_default();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("54 activation cards a turn, more than the 52")),
        "{problems:?}"
    );
}

/// A stray number in the units box is a slip, said so, not a unit called
/// "111111000000" (audit CE F1); every other problem is listed beside it.
#[test]
fn a_number_alone_is_not_a_unit() {
    let (units, problems) = super::parse_units_all("Rifles:5 111111000000 Scouts:3 Bad:5:@@");
    let names: Vec<&str> = units.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["Rifles", "Scouts"]);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("`111111000000` is a number, not a unit's name"));
    assert!(parse_units("7").is_err());
}

/// From question order 4 a special task may take several actions, counted
/// over the turns until done (l.25, l.88; audit CE F2); older games keep
/// their options.
#[test]
fn a_task_of_several_actions_is_counted_until_done() {
    let mut s = begin_newest();
    feed(&mut s, &DEAL[..7]);
    feed(&mut s, &["c special"]);
    assert_asking(&s, "Start a task of several actions");
    feed(&mut s, &["c long", "n 3"]);
    assert!(logged(
        &s,
        "Rifles starts a task of 3 actions: 2 action(s) to go"
    ));
    assert_eq!(unit(&s, "Rifles").stat(super::TASK_LEFT), 2);
    feed(&mut s, &["c special"]);
    assert_asking(&s, "Go on with the task (2 action(s) to go)");
    feed(&mut s, &["c task"]);
    assert!(logged(&s, "Rifles works on its task: 1 action(s) to go"));
    assert_eq!(unit(&s, "Rifles").stat(super::TASK_LEFT), 1);
    // A game begun before order 4 is asked as it was.
    let mut old = begin();
    feed(&mut old, &DEAL[..7]);
    feed(&mut old, &["c special"]);
    assert!(
        !asking(&old).contains("several actions"),
        "{}",
        asking(&old)
    );
}
