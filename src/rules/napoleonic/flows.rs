//! Whole Napoleonic flows driven by answers, as at the table.

use super::{ArmySetup, CONFUSED, ENGAGEMENT_KILLS, GameSetup, SHOT_MARKERS, parse_units};
use crate::rules::ProcedureSpec;
use crate::rules::games::GameId;
use crate::rules::session::Session;
use crate::rules::state::Unit;
use crate::rules::testkit::{
    asking, assert_asking, begin_game, begin_game_with, feed, logged, outcome, refused,
};
use crate::table::BackColour;

fn setup() -> GameSetup {
    let army = |name: &str, back, units: &str| ArmySetup {
        name: name.into(),
        back,
        units: parse_units(units).unwrap_or_else(|e| panic!("{e}")),
    };
    GameSetup {
        armies: vec![
            army(
                "French",
                BackColour::Blue,
                "Line:inf:12 Hussars:cav:6 Battery:art:3",
            ),
            army(
                "British",
                BackColour::Red,
                "Foot:inf:12 Dragoons:cav:6 Guns:art:3",
            ),
        ],
        objectives: ["Hill", "Farm", "Bridge", "Village"]
            .map(String::from)
            .to_vec(),
    }
}

fn begin(setup: &GameSetup) -> Session {
    begin_game(
        GameId::Napoleonic,
        ProcedureSpec::Napoleonic(setup.clone()),
        3,
    )
}

fn unit<'a>(s: &'a Session, name: &str) -> &'a Unit {
    let u = s.state().units.iter().find(|u| u.name == name);
    u.unwrap_or_else(|| panic!("no unit {name}"))
}

/// (men, confused) of a unit.
fn men(s: &Session, name: &str) -> (usize, i32) {
    let u = unit(s, name);
    (u.soldiers.len(), u.stat(CONFUSED))
}

/// The French cut higher and move first.
const FRENCH_FIRST: [&str; 2] = ["k 9h", "k 4c"];

#[test]
fn a_tied_cut_is_cut_again() {
    let mut s = begin(&setup());
    feed(&mut s, &["k 7h", "k 7s"]);
    assert!(logged(&s, "Both cut 7: cut again"));
    feed(&mut s, &["k 2h", "k Ks"]);
    assert!(logged(&s, "First move to British (cut 13 against 2)"));
    assert_asking(&s, "British, step 1");
}

#[test]
fn guns_kill_one_man_at_long_range_and_spend_markers_by_cover() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c u2", "c u3", "c redoubt"]);
    assert_eq!(men(&s, "Foot"), (11, 0));
    assert_eq!(unit(&s, "Battery").stat(SHOT_MARKERS), 1);
    assert!(logged(
        &s,
        "Battery spends 3 shot marker(s) (1 left) and kills 1 of Foot"
    ));
    // No other gun: straight to combats; end the turn.
    assert_asking(&s, "French, step 3");
    feed(&mut s, &["c none", "c done", "c none", "c none"]);
    // Round 2: the Battery cannot afford a redoubt shot with 1 marker.
    feed(&mut s, &["c done", "c u2", "c u3", "c redoubt"]);
    assert!(refused(&s, "it cannot fire"), "{:?}", s.state().log);
    assert_eq!(men(&s, "Foot"), (11, 0));
}

#[test]
fn a_cavalry_flank_win_confuses_kills_plus_one_plus_four_and_rallying_returns_ranks() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c none"]);
    // Hussars charge the Foot's flank: Kd against 5s.
    feed(
        &mut s,
        &["c u1", "c u3", "c no", "c no", "c yes", "k Kd", "k 5s"],
    );
    assert!(
        logged(
            &s,
            "Foot loses a man and 6 more are confused (1 killed in this engagement, +1 cavalry, +4 flank or rear): 5 in ranks, 6 confused"
        ),
        "{:?}",
        s.state().log
    );
    assert_eq!(men(&s, "Foot"), (11, 6));
    // Each loss is said once, by the combat's own line (audit AO2).
    assert!(!logged(&s, "soldier(s)"), "{:?}", s.state().log);
    // The Hussars fought: still listed (numbers stay put), and turned
    // down (audit AN4).
    assert_asking(&s, "Hussars (");
    assert_asking(&s, "(has fought)");
    let before = asking(&s);
    feed(&mut s, &["c u1"]);
    assert!(refused(
        &s,
        "Hussars cannot start a combat now: it has fought this turn"
    ));
    assert_eq!(asking(&s), before);
    feed(&mut s, &["c none"]);
    assert!(logged(&s, "French's turn ends"));
    // The Foot are engaged (and confused): they cannot move. British rally
    // them with a general beside them: 5 in ranks + 1; the rally question
    // says the enemy they fought is likely close.
    assert_asking(&s, "cannot move (in an engagement): Foot");
    assert!(
        !asking(&s).contains("and confused): Foot"),
        "{}",
        asking(&s)
    );
    feed(&mut s, &["c rally", "c u3"]);
    assert_asking(
        &s,
        "Is any enemy man in ranks within 20 cm of Foot and facing it? (Foot is in an engagement with Hussars, which still has men in ranks: combat is fought under 20 cm)",
    );
    feed(&mut s, &["c no", "c yes"]);
    assert_eq!(men(&s, "Foot"), (11, 0));
    assert!(logged(
        &s,
        "Foot returns 6 men to ranks (11 in ranks, 0 confused)"
    ));
}

#[test]
fn a_gun_defending_in_cover_wins_and_confuses_half_its_face() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c none", "c none", "c done", "c none"]);
    // Dragoons attack the Battery in a redoubt (cavalry may not attack one
    // behind a wall, so only a redoubt or trench is asked): 6h against 4d + 3.
    feed(&mut s, &["c u4", "c u2", "c no"]);
    assert_asking(&s, "Is Battery defending in a redoubt or a trench?");
    feed(&mut s, &["c yes", "c no", "k 6h", "k 4d"]);
    assert!(logged(
        &s,
        "Dragoons 6h (6) against Battery 4d (4 +3 cover = 7)"
    ));
    assert!(logged(
        &s,
        "Dragoons loses a man and 2 more are confused (guns win with 4d: 2)"
    ));
    assert_eq!(men(&s, "Dragoons"), (5, 2));
}

/// Audit BG C3: a tie made by the cover bonus is not "equal cards".
#[test]
fn a_tie_made_by_cover_is_said_as_equal_values_after_cover() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c none", "c none", "c done", "c none"]);
    feed(
        &mut s,
        &["c u4", "c u2", "c no", "c yes", "c no", "k 7h", "k 4d"],
    );
    assert!(logged(
        &s,
        "Dragoons 7h (7) against Battery 4d (4 +3 cover = 7)"
    ));
    assert!(logged(
        &s,
        "Equal values after cover: both units lose a man"
    ));
    assert!(!logged(&s, "Equal cards: both units lose a man"));
}

#[test]
fn guns_winning_confuse_at_most_the_men_left_in_ranks_and_say_so() {
    let mut small = setup();
    for a in &mut small.armies {
        for u in &mut a.units {
            if u.name == "Dragoons" {
                u.men = 4;
            }
        }
    }
    let mut s = begin(&small);
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c none", "c none", "c done", "c none"]);
    feed(
        &mut s,
        &["c u4", "c u2", "c no", "c yes", "c no", "k 6h", "k 9d"],
    );
    // A 9 confuses 5; the Dragoons have 3 left in ranks.
    assert!(
        logged(
            &s,
            "Dragoons loses a man and 3 more are confused (guns win with 9d: 5; only 3 left in ranks to confuse)"
        ),
        "{:?}",
        s.state().log.iter().map(|l| &l.text).collect::<Vec<_>>()
    );
    assert_eq!(men(&s, "Dragoons"), (3, 3));
}

#[test]
fn equal_cards_kill_on_both_sides_and_confusion_grows_with_the_engagement() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(
        &mut s,
        &[
            "c done", "c none", "c u0", "c u3", "c no", "c no", "k 8h", "k 8s",
        ],
    );
    assert!(logged(&s, "Equal cards: both units lose a man"));
    assert_eq!(men(&s, "Line"), (11, 1));
    assert_eq!(men(&s, "Foot"), (11, 1));
    feed(&mut s, &["c none", "c done", "c none"]);
    // The British Foot fights the Line again in the same engagement and wins.
    feed(&mut s, &["c u3", "c u0", "c no", "c no", "k Qs", "k 3h"]);
    // The Line has men in ranks and a confused one: the British choose.
    assert_asking(&s, "British: which of Line's men is killed?");
    feed(&mut s, &["c ranks"]);
    assert_eq!(unit(&s, "Line").stat(ENGAGEMENT_KILLS), 2);
    assert_eq!(men(&s, "Line"), (10, 3));
    feed(&mut s, &["c none"]);
    // A round without combat for them ends the engagement.
    feed(
        &mut s,
        &["c done", "c none", "c none", "c done", "c none", "c none"],
    );
    assert_eq!(unit(&s, "Line").stat(ENGAGEMENT_KILLS), 0);
}

#[test]
fn three_objectives_win_at_once() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c objective", "c o0", "c s0"]);
    // Named again for the side that holds it: said, not a second change.
    let changes = |s: &Session| {
        s.state()
            .log
            .iter()
            .filter(|l| l.text.contains("Objective Hill is now held by"))
            .count()
    };
    assert_eq!(changes(&s), 1);
    feed(&mut s, &["c objective", "c o0", "c s0"]);
    assert_eq!(changes(&s), 1);
    assert!(logged(&s, "Hill stays held by French"));
    for o in ["c o1", "c o2"] {
        feed(&mut s, &["c objective", o, "c s0"]);
    }
    let outcome = outcome(&s);
    assert_eq!(outcome.winner, Some(0));
    assert!(outcome.reason.contains("French hold 3 of the 4 objectives"));
    assert!(s.pending().is_none());
}

/// A French Line of `line` men against a British Foot of `foot`, the
/// French to move first.
fn line_against_foot(line: u32, foot: u32) -> Session {
    let mut small = setup();
    small.armies[0].units = parse_units(&format!("Line:inf:{line}")).unwrap_or_default();
    small.armies[1].units = parse_units(&format!("Foot:inf:{foot}")).unwrap_or_default();
    let mut s = begin(&small);
    feed(&mut s, &FRENCH_FIRST);
    s
}

/// Two armies of two men; the French Line beats the British Foot, killing
/// one man and confusing the other: Foot is a mob of one.
fn foot_a_mob_of_one() -> Session {
    let mut s = line_against_foot(2, 2);
    feed(
        &mut s,
        &["c done", "c u0", "c u1", "c no", "c no", "k Ts", "k 2d"],
    );
    assert_eq!(men(&s, "Foot"), (1, 1));
    s
}

/// Line (3) and Foot (2) tie in round 1: each loses a man and has one
/// confused, so Line keeps a man in ranks and Foot is a mob; the British
/// turn passes and round 2's French step 1 is asked.
fn line_and_foot_tie() -> Session {
    let mut s = line_against_foot(3, 2);
    feed(
        &mut s,
        &["c done", "c u0", "c u1", "c no", "c no", "k Ts", "k Td"],
    );
    assert_eq!(men(&s, "Line"), (2, 1));
    assert_eq!(men(&s, "Foot"), (1, 1));
    feed(&mut s, &["c done"]);
    s
}

#[test]
fn a_unit_whose_only_opponent_broke_is_not_said_to_be_locked() {
    let mut s = foot_a_mob_of_one();
    feed(&mut s, &["c done"]);
    // Round 2: Line is still in its engagement, but the Foot it fought is a
    // mob that keeps away: Line is free to move.
    assert_asking(&s, "French, step 1");
    assert!(!asking(&s).contains("(in an engagement)"), "{}", asking(&s));
    // The units panel says so too, and calls the mob a mob (audits W1, Z5).
    let id = |name: &str| s.state().units.iter().position(|u| u.name == name);
    let words = |name: &str| id(name).map(|u| super::engagement_words(s.state(), u));
    assert_eq!(words("Line"), Some(Some("in engagement, free to move")));
    assert_eq!(words("Foot"), Some(Some("in engagement, a mob")));
}

#[test]
fn a_unit_in_ranks_and_confused_is_locked_though_its_opponent_broke() {
    let s = line_and_foot_tie();
    // Not locked by its engagement (its opponent broke), but still by its
    // confusion (l.31).
    assert_asking(&s, "French, step 1");
    assert!(!asking(&s).contains("(in an engagement)"), "{}", asking(&s));
    assert!(
        asking(&s).contains("cannot move (men in ranks and confused): Line"),
        "{}",
        asking(&s)
    );
    // The units panel does not call it free to move (audit AG2).
    let line = s.state().units.iter().position(|u| u.name == "Line");
    assert_eq!(
        line.and_then(|u| super::engagement_words(s.state(), u)),
        Some("in engagement, cannot move (men in ranks and confused)")
    );
}

/// Audit AG1: a mob that rallies with every formed enemy 40 cm off is out
/// of combat range, so neither it nor the unit it fought is still held by
/// that engagement.
#[test]
fn a_mob_rallied_far_from_the_enemy_frees_both_sides_of_its_engagement() {
    let mut s = foot_a_mob_of_one();
    assert_asking(&s, "British, step 1");
    feed(&mut s, &["c rally", "c u1", "c yes"]);
    assert_eq!(men(&s, "Foot"), (1, 0));
    feed(&mut s, &["c done", "c none"]);
    assert_asking(&s, "French, step 1");
    assert!(!asking(&s).contains("(in an engagement)"), "{}", asking(&s));
}

#[test]
fn a_mob_beaten_again_has_nobody_left_in_ranks_to_confuse() {
    let mut s = line_against_foot(3, 3);
    // Line wins: Foot loses a man and 1 more is confused.
    let win = |card: &'static str| ["c u0", "c u1", "c no", "c no", card, "k 2d"];
    feed(&mut s, &["c done"]);
    feed(&mut s, &win("k Ts"));
    assert_eq!(men(&s, "Foot"), (2, 1));
    feed(&mut s, &["c done", "c none", "c done"]);
    // Line wins again and kills Foot's last man in ranks: 2 would be
    // confused, but nobody is left in ranks to confuse.
    feed(&mut s, &win("k Js"));
    feed(&mut s, &["c ranks"]);
    assert_eq!(men(&s, "Foot"), (1, 1));
    assert!(
        logged(
            &s,
            "Foot loses a man from the ranks (2 killed in this engagement; none left in ranks to confuse): 0 in ranks, 1 confused"
        ),
        "{:?}",
        s.state().log
    );
}

#[test]
fn with_no_enemy_man_in_ranks_a_rally_is_not_barred() {
    let mut s = line_and_foot_tie();
    assert_asking(&s, "French, step 1");
    feed(&mut s, &["c rally", "c u0"]);
    assert_asking(&s, "Is any enemy man in ranks within 20 cm of Line");
    // Not said to be close: the Foot it fought is a mob.
    assert!(
        !asking(&s).contains("in an engagement with"),
        "{}",
        asking(&s)
    );
    assert!(
        s.pending().is_some_and(|r| r.settled.is_some()),
        "no enemy man in ranks: settled No"
    );
}

#[test]
fn a_mob_that_cannot_flee_is_destroyed_and_an_empty_army_loses() {
    // With no mob on the table the option keeps its place, turned down.
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    assert_asking(&s, "French, step 1");
    feed(&mut s, &["c mob-lost"]);
    assert!(refused(&s, "No mob is on the table"));
    let mut s = foot_a_mob_of_one();
    feed(&mut s, &["c mob-lost", "c u1"]);
    let outcome = outcome(&s);
    assert_eq!(outcome.winner, Some(0));
    assert!(outcome.reason.contains("British have no units left"));
}

#[test]
fn a_setup_without_four_objectives_is_refused() {
    let mut bad = setup();
    bad.objectives.pop();
    let s = begin(&bad);
    assert!(logged(
        &s,
        "The table needs 4 objectives; the setup names 3."
    ));
    assert!(s.pending().is_none());
}

#[test]
fn unequal_armies_are_played_with_a_note_counting_gunners_as_men() {
    let mut uneven = setup();
    uneven.armies[1].units.pop();
    let s = begin(&uneven);
    assert!(logged(
        &s,
        "The sides are unequal (French has 21 men and 1 gun, British has 18 men and 0 guns, gunners counted as men)"
    ));
    assert!(s.pending().is_some());
    // Gunners are men: 12 + 6 + 3 against 14 + 6 + 1, one gun each, is even.
    let mut even = setup();
    even.armies[1].units =
        parse_units("Foot:inf:14 Dragoons:cav:6 Guns:art:1").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(super::balance_note(&even), None);
}

/// The French Hussars charge the British Foot's flank and win (Kd against
/// 5s): the Foot lose a man and 6 more are confused; the French turn ends.
fn hussars_flank_the_foot(setup: &GameSetup) -> Session {
    let mut s = begin(setup);
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c none"]);
    feed(
        &mut s,
        &[
            "c u1", "c u3", "c no", "c no", "c yes", "k Kd", "k 5s", "c none",
        ],
    );
    assert_eq!(men(&s, "Foot"), (11, 6));
    s
}

#[test]
fn a_unit_rallies_once_a_turn() {
    let mut s = hussars_flank_the_foot(&setup());
    // Formed enemies facing it: no rally, and not offered again this step
    // (the enemy does not move in it).
    let mut facing = s.clone();
    feed(&mut facing, &["c rally", "c u3", "c yes"]);
    assert!(logged(
        &facing,
        "Foot cannot rally with formed enemies facing it"
    ));
    assert_asking(&facing, "British, step 1");
    // Rally keeps its place in the menu, and is turned down.
    assert!(
        asking(&facing).contains("Rally a unit"),
        "{}",
        asking(&facing)
    );
    feed(&mut facing, &["c rally"]);
    assert!(refused(&facing, "No unit of British can rally now"));
    // No general: the 5 men in ranks bring 5 back; one stays confused.
    feed(&mut s, &["c rally", "c u3", "c no", "c no"]);
    assert_eq!(men(&s, "Foot"), (11, 1));
    assert_asking(&s, "British, step 1");
    feed(&mut s, &["c rally"]);
    assert!(refused(&s, "No unit of British can rally now"));
    // The French turn passes; in the next British turn the Foot may rally again.
    feed(&mut s, &["c done", "c none", "c none"]);
    feed(&mut s, &["c done", "c none", "c none"]);
    assert_asking(&s, "British, step 1");
    assert_asking(&s, "Rally a unit");
    feed(&mut s, &["c rally", "c u3", "c no", "c no"]);
    assert_eq!(men(&s, "Foot"), (11, 0));
}

#[test]
fn a_long_range_kill_on_an_engaged_unit_counts_toward_its_confusion() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    // The Line beats the Foot: both are now engaged.
    feed(
        &mut s,
        &[
            "c done", "c none", "c u0", "c u3", "c no", "c no", "k Kd", "k 5s", "c none",
        ],
    );
    // The British Guns hit the engaged Line: no one confused, but the dead
    // man stays on the field and counts.
    feed(&mut s, &["c done", "c u5", "c u0", "c open"]);
    assert_eq!(men(&s, "Line"), (11, 0));
    assert_eq!(unit(&s, "Line").stat(ENGAGEMENT_KILLS), 1);
    assert!(logged(&s, "left where he fell"));
    // The Foot then beats the Line: its second man killed confuses two.
    feed(&mut s, &["c u3", "c u0", "c no", "c no", "k Qs", "k 3h"]);
    assert_eq!(unit(&s, "Line").stat(ENGAGEMENT_KILLS), 2);
    assert_eq!(men(&s, "Line"), (10, 2));
}

#[test]
fn a_long_range_kill_on_a_unit_out_of_combat_starts_no_count() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c u2", "c u3", "c open"]);
    assert_eq!(men(&s, "Foot"), (11, 0));
    assert_eq!(unit(&s, "Foot").stat(ENGAGEMENT_KILLS), 0);
}

#[test]
fn the_enemy_mob_can_be_caught_in_your_turn() {
    let mut s = foot_a_mob_of_one();
    // The British mob stays put; it cannot start a combat, so it is not
    // offered: with no other unit, the British turn ends, and the log says
    // why.
    feed(&mut s, &["c done"]);
    assert!(logged(
        &s,
        "No unit of British is left to fight a combat: the turn ends"
    ));
    // Round 2, French step 1: the French close in and the mob cannot get away.
    assert_asking(&s, "French, step 1");
    feed(&mut s, &["c mob-lost", "c u1"]);
    let outcome = outcome(&s);
    assert_eq!(outcome.winner, Some(0));
}

#[test]
fn a_gun_refused_for_want_of_markers_may_try_another_target() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c u2", "c u3"]);
    assert_asking(&s, "What protects Foot from Battery's fire?");
    feed(&mut s, &["c redoubt", "c none"]);
    feed(&mut s, &["c done", "c none", "c none"]);
    // Round 2: 1 marker cannot pay for a redoubt, but can for the open.
    feed(&mut s, &["c done", "c u2", "c u3", "c redoubt"]);
    assert!(refused(&s, "it cannot fire"));
    assert_asking(&s, "French, step 2");
    feed(&mut s, &["c u2", "c u4", "c open"]);
    assert_eq!(unit(&s, "Battery").stat(SHOT_MARKERS), 0);
    assert_eq!(men(&s, "Dragoons"), (5, 0));
    assert_asking(&s, "French, step 3");
}

#[test]
fn house_ruled_numbers_change_play() {
    let mut s = begin_game_with(
        GameId::Napoleonic,
        ProcedureSpec::Napoleonic(setup()),
        3,
        &[
            ("long_range_confused", 1),
            ("artillery_win_kills", 2),
            ("rally_enemy_distance_cm", 30),
            ("combats_per_unit_per_turn", 2),
        ],
    );
    feed(&mut s, &FRENCH_FIRST);
    // Long-range fire now confuses one man as well as killing one.
    feed(&mut s, &["c done", "c u2", "c u3", "c open", "c none"]);
    assert_eq!(men(&s, "Foot"), (11, 1));
    assert!(logged(&s, "kills 1 of Foot; 1 more is confused"));
    // The rally question uses the house-ruled distance.
    feed(&mut s, &["c rally", "c u3"]);
    assert_asking(&s, "within 30 cm of Foot");
    feed(&mut s, &["c no", "c no", "c done", "c none"]);
    // A gun that wins a combat kills two.
    feed(
        &mut s,
        &["c u4", "c u2", "c no", "c yes", "c no", "k 6h", "k 4d"],
    );
    assert!(logged(&s, "Dragoons loses 2 men and 2 more are confused"));
    assert_eq!(men(&s, "Dragoons"), (4, 2));
    // Two combats a turn: the Dragoons may fight again.
    assert_asking(&s, "British, step 3");
    assert_asking(&s, "Dragoons");
}

/// Audit AG3: a gun, a combat or an objective picked before the player
/// sees there is no target has a way back without Undo.
#[test]
fn a_target_or_objective_picked_in_error_has_a_way_back() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c objective", "c none"]);
    assert_asking(&s, "French, step 1");
    feed(&mut s, &["c done", "c u2", "c none"]);
    assert_asking(&s, "French, step 2: which cannon fires at long range?");
    assert_eq!(unit(&s, "Battery").stat(SHOT_MARKERS), 4);
    feed(&mut s, &["c none", "c u0", "c none"]);
    assert_asking(&s, "French, step 3: which unit fights a combat?");
    assert_asking(&s, "Line");
}

/// Round 2, French step 1: the British Foot beat the French Battery in the
/// flank in round 1, and every gunner has fled the gun.
fn battery_fled() -> Session {
    let mut small = setup();
    small.armies[0].units =
        parse_units("Line:inf:12 Battery:art:3").unwrap_or_else(|e| panic!("{e}"));
    small.armies[1].units = parse_units("Foot:inf:12 Guns:art:3").unwrap_or_else(|e| panic!("{e}"));
    let mut s = begin(&small);
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c none", "c none"]);
    // The Foot hit the Battery in the flank and win: 1 killed, 2 confused,
    // so every gunner has fled the gun.
    feed(
        &mut s,
        &[
            "c done", "c none", "c u2", "c u1", "c no", "c yes", "k Ks", "k 2d", "c none",
        ],
    );
    assert_eq!(men(&s, "Battery"), (2, 2));
    s
}

/// Audit AG4: a step 2 in which no gun can fire says why, rather than
/// passing without a word.
#[test]
fn a_step_two_in_which_no_gun_can_fire_says_why() {
    let mut s = battery_fled();
    feed(&mut s, &["c done"]);
    assert!(logged(
        &s,
        "French, step 2: no cannon can fire (Battery: no gunner in ranks)"
    ));
    assert_asking(&s, "French, step 3");
}

#[test]
fn rallied_gunners_walk_back_to_their_gun_before_it_fires() {
    let mut s = battery_fled();
    // The commander rallies them: one gunner back in ranks.
    feed(&mut s, &["c rally", "c u1", "c yes", "c done", "c u1"]);
    assert_asking(&s, "Have Battery's rallied gunners walked back to the gun");
    feed(&mut s, &["c no"]);
    assert!(logged(
        &s,
        "Battery cannot fire: its gunners are still walking back"
    ));
    // Not offered again this turn: no gun is left to fire.
    assert_asking(&s, "step 3: which unit fights a combat?");
    assert!(unit(&s, "Battery").has(super::GUNNERS_AWAY));
}

#[test]
fn the_winner_may_kill_a_confused_man() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(
        &mut s,
        &[
            "c done", "c none", "c u0", "c u3", "c no", "c no", "k 8h", "k 8s",
        ],
    );
    feed(&mut s, &["c none", "c done", "c none"]);
    feed(
        &mut s,
        &["c u3", "c u0", "c no", "c no", "k Qs", "k 3h", "c confused"],
    );
    // 11 men, 1 confused: the confused man dies, then 2 more are confused.
    assert_eq!(men(&s, "Line"), (10, 2));
    // The log says which kind of man was killed (audit CA N4).
    assert!(logged(
        &s,
        "Line loses a man already confused and 2 more are confused"
    ));
}

#[test]
fn stopping_is_confirmed_so_a_stray_click_is_harmless() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c stop", "c on"]);
    assert!(s.state().outcome.is_none());
    assert_asking(&s, "step 1");
    feed(&mut s, &["c stop", "c stop"]);
    assert!(s.state().outcome.is_some());
}

#[test]
fn cavalry_against_a_wall_is_turned_down_and_may_fight_elsewhere() {
    let mut s = begin(&setup());
    feed(&mut s, &FRENCH_FIRST);
    feed(&mut s, &["c done", "c none"]);
    feed(&mut s, &["c u1", "c u3", "c yes"]);
    assert!(refused(
        &s,
        "Cavalry may not start a combat with Foot behind a wall or in woods"
    ));
    // The Hussars have not fought: they are offered again.
    assert_asking(&s, "French, step 3");
    assert!(asking(&s).contains("Hussars"), "{}", asking(&s));
}

/// The rally question says an engaged unit's enemy is likely close only
/// while an engaged enemy has men in ranks: the Hussars that flanked the
/// Foot are beaten into a mob, so the hint would bar a rally the rules
/// allow (rules l.34: only enemy men in ranks count).
#[test]
fn the_rally_hint_needs_an_engaged_enemy_with_men_in_ranks() {
    let mut small = setup();
    small.armies[0].units =
        parse_units("Line:inf:12 Hussars:cav:2 Battery:art:3").unwrap_or_else(|e| panic!("{e}"));
    let mut s = hussars_flank_the_foot(&small);
    let mut hinted = s.clone();
    feed(&mut hinted, &["c rally", "c u3"]);
    assert_asking(&hinted, "(Foot is in an engagement");
    // The British Dragoons beat the Hussars: one killed, the other confused.
    feed(&mut s, &["c done", "c none"]);
    feed(&mut s, &["c u4", "c u1", "c no", "c no", "k Kh", "k 4s"]);
    assert_eq!(men(&s, "Hussars"), (1, 1), "{:?}", asking(&s));
    feed(&mut s, &["c none"]);
    feed(&mut s, &["c done", "c none", "c none"]);
    feed(&mut s, &["c rally", "c u3"]);
    assert_asking(&s, "Is any enemy man in ranks within 20 cm of Foot");
    assert!(!asking(&s).contains("in an engagement"), "{}", asking(&s));
}
