//! Whole procedures driven through a `Session` with exact dice.
//!
//! Regiments used below (unit order = card order):
//! Red `XR As 8c+7s 4h+5h`: Toff, Snob, Follower 8c (black powder),
//! Follower 4h (melee weapons). Blue `XB Ad 6d+7c 3c`: Toff, Snob,
//! Follower 6d (black powder), Artillery 3c. Red wins the roll-off 6-1.

use super::TerrainKind;
use super::engagement::can_shoot;
use super::testkit::*;
use crate::rules::effect::Effect;
use crate::rules::procedure::MOOT_ROLL_LABEL;
use crate::rules::session::Event;
use crate::rules::state::Holder;

const RED: &str = "XR As 8c+7s 4h+5h";
const BLUE: &str = "XB Ad 6d+7c 3c";
/// Roll-off won by Red.
const INIT: [&str; 2] = ["d 6", "d 1"];

fn game(red: &str, blue: &str, terrain: &[TerrainKind]) -> crate::rules::session::Session {
    let mut s = begin(&setup(red, blue, terrain, &[]));
    feed(&mut s, &INIT);
    s
}

#[test]
fn bad_regiment_is_refused_with_reasons() {
    let s = begin(&setup("XR As 8c", BLUE, &[], &[]));
    assert!(s.pending().is_none());
    assert!(logged(
        &s,
        "Setup refused: Red: Follower 8c has no equipment"
    ));
    assert!(s.state().units.is_empty());
}

#[test]
fn a_card_used_twice_across_the_shared_deck_is_refused() {
    // (Red, Blue, objectives, the card named)
    let cases = [
        (
            "XR As 8c+7s",
            "XB Ah 8c+7c",
            &["Kh"][..],
            "8c is used 2 times (Red's regiment, Blue's regiment)",
        ),
        (
            "XR As 8c+7s",
            "XB Ah 6d+7s",
            &["Kh"][..],
            "7s is used 2 times",
        ),
        (
            "XR As 8c+7s",
            "XB Ah 6d+7c",
            &["Kh", "Kh"][..],
            "Kh is used 2 times (the objectives 2 times)",
        ),
        (
            "XR As 8c+7s",
            "XB Ah Kh 6d+7c",
            &["Kh"][..],
            "Kh is used 2 times (Blue's regiment, the objectives)",
        ),
    ];
    for (red, blue, objectives, message) in cases {
        let s = begin(&setup(red, blue, &[], objectives));
        assert!(s.pending().is_none(), "{red} / {blue} / {objectives:?}");
        assert!(logged(&s, message), "{message}");
        assert!(s.state().units.is_empty());
    }
}

#[test]
fn players_with_the_same_name_are_refused() {
    let mut same = setup(RED, BLUE, &[], &["Kh"]);
    same.players[1].name = " red ".into();
    let s = begin(&same);
    assert!(s.pending().is_none());
    assert!(logged(&s, "Two players are called red"));
    assert!(s.state().units.is_empty());
}

#[test]
fn objective_holders_are_picked_by_side_not_by_name() {
    // A player named like a holder option can still hold a marker, and so
    // can the second player.
    let cases = [
        ("c side0", Holder::Side(0)),
        ("c Held by Blue", Holder::Side(1)),
        ("c contested", Holder::Contested),
        // A log saved when the ids were the players' names still replays.
        ("c Blue", Holder::Side(1)),
    ];
    for (answer, holder) in cases {
        let mut named = setup("XR 8c+7s", "XB 6d+7c", &[], &["Kh"]);
        named.players[0].name = "Contested".into();
        let mut s = begin(&named);
        feed(&mut s, &INIT);
        feed(&mut s, &["c none", "c Kh", answer, "c none"]);
        assert_eq!(s.state().objectives[0].holder, holder, "{answer}");
        // The change once (the effect), then the standing it leads to.
        let by = |side| u8::from(holder == Holder::Side(side));
        let standing = format!("Markers held: Contested {}, Blue {} (of 1)", by(0), by(1));
        assert!(logged(&s, &standing), "{answer}");
    }
}

/// After an activation in which nothing moved no marker can change: "No
/// change" is settled (the window takes it); after a move it is asked.
#[test]
fn no_marker_changes_when_nothing_moved() {
    let settled = |s: &crate::rules::session::Session| {
        s.pending()
            .and_then(|r| r.settled.as_deref())
            .map(|d| (d.answer.clone(), d.why.clone()))
    };
    let mut s = begin(&setup("XR 8c+7s", "XB 6d+7c", &[], &["Kh"]));
    feed(&mut s, &INIT);
    feed(&mut s, &["c none"]);
    assert_asking(&s, "Objectives: did a Follower end");
    assert_eq!(
        settled(&s),
        Some((
            crate::rules::procedure::Answer::Choice("none".into()),
            "no unit moved or left the table".to_string()
        ))
    );
    // Picked anyway (a script, or a typed answer), it is taken: the second
    // question, after a marker was named, is not settled.
    feed(&mut s, &["c Kh", "c side0"]);
    assert_eq!(settled(&s), None);
    feed(&mut s, &["c none"]);
    // Blue's Toff orders 6d to march: a move, so the question is open.
    feed(&mut s, &["c 6d", "c march", "d 4", "d 3"]);
    feed(&mut s, &["ok"]);
    assert_asking(&s, "Objectives: did a Follower end");
    assert_eq!(settled(&s), None);
    // A volley drawn 0-0: nobody moved or left the table (audit AA1).
    let mut s = begin(&setup("XR 8c+7s", "XB 6d+7c", &[], &["Kh"]));
    feed(&mut s, &INIT);
    feed(&mut s, &["c 8c", "c volley", "d 4", "c 6d", "c yes"]);
    feed(&mut s, &["d 1 1 1 1 1 1 1 1", "d 1 1 1 1 1 1"]);
    assert_asking(&s, "Objectives: did a Follower end");
    assert!(settled(&s).is_some(), "{}", asking(&s));
}

#[test]
fn roll_off_rerolls_ties() {
    let mut s = begin(&setup(RED, BLUE, &[], &[]));
    feed(&mut s, &["d 4", "d 4", "d 2", "d 5"]);
    assert_eq!(s.state().initiative, Some(1));
    assert_asking(&s, "Blue: choose a Toff or Snob");
}

#[test]
fn volley_with_return_fire_and_retreat() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &["c XR", "c 8c", "c volley", "d 4"]);
    // The log records who ordered whom to do what.
    assert!(logged(&s, "Toff XR orders Follower 8c: Volley Fire!"));
    // The target question says the shooter's range.
    assert_asking(
        &s,
        "choose the closest enemy Follower 8c can see within 9\"",
    );
    feed(&mut s, &["c 6d", "c yes"]);
    assert!(
        asking(&s).contains("roll 8 dice") && asking(&s).contains("hits on 5+"),
        "{}",
        asking(&s)
    );
    // 8c: 3 hits on 5+; 6d fires back: 2 hits on 6+.
    feed(&mut s, &["d 5 5 6 1 2 3 4 4", "d 6 6 1 1 1 1"]);
    // 6d saves: 2 below V6; 8c saves: none.
    feed(&mut s, &["d 1 2 6", "d 6 6"]);
    assert_eq!(unit(&s, "Follower 6d").soldiers.len(), 4);
    assert_eq!(unit(&s, "Follower 8c").soldiers.len(), 8);
    assert!(logged(
        &s,
        "Follower 8c inflicted 2 wound(s), Follower 6d inflicted 0: Follower 8c wins"
    ));
    assert!(unit(&s, "Follower 8c").has("fired"));
    feed(&mut s, &["d 3"]);
    assert_asking(&s, "at least 5\"");
    feed(&mut s, &["c clear"]);
    assert_asking(&s, "Blue: choose a Toff or Snob");
}

/// "Cannot Order other Snobs" (t52.txt l.95): a commander may order itself,
/// and it fires as often as it is ordered to (l.18): its shot is not the
/// black powder's one a round.
#[test]
fn a_commander_may_order_itself_and_fire_again() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &["c XR"]);
    assert_asking(&s, "choose a Follower in range to order, or Toff XR itself");
    feed(&mut s, &["c self", "c volley", "d 4"]);
    assert!(logged(&s, "Toff XR orders itself: Volley Fire!"));
    assert_asking(&s, "enemy Toff XR can see within 3\"");
    feed(&mut s, &["c 6d", "c no"]);
    // One soldier, I5 with the volley's -1: hits on 4+.
    assert!(
        asking(&s).contains("roll 1 die") && asking(&s).contains("hits on 4+"),
        "{}",
        asking(&s)
    );
    feed(&mut s, &["d 2"]);
    assert!(can_shoot(unit(&s, "Toff XR")), "no once-a-round limit");
    // A commander's own move has no Snob following it.
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &["c XR", "c self", "c march", "d 4", "d 2"]);
    assert_asking(&s, "March!: move Toff XR up to");
    assert!(!asking(&s).contains("may follow"), "{}", asking(&s));
}

/// An exchange of fire that wounds nobody (or both alike) says it is drawn.
#[test]
fn a_drawn_exchange_of_fire_says_nobody_retreats() {
    let mut s = game(RED, BLUE, &[]);
    feed(
        &mut s,
        &["c XR", "c 8c", "c volley", "d 4", "c 6d", "c yes"],
    );
    feed(&mut s, &["d 1 1 1 1 1 1 1 1", "d 1 1 1 1 1 1"]);
    assert!(logged(
        &s,
        "Follower 8c inflicted 0 wound(s), Follower 6d inflicted 0: a draw, nobody retreats"
    ));
    assert_asking(&s, "Blue: choose a Toff or Snob");
}

#[test]
fn blunders_on_one_when_ordered_and_on_two_when_unordered() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &["c XR", "c 8c", "c volley", "d 1"]);
    assert!(logged(&s, "Follower 8c blunders on 1"));
    assert!(unit(&s, "Follower 8c").has("ordered"));
    // Remaining Snobs order nobody; a side's last Snob acts without being
    // asked for, and the log says so.
    feed(&mut s, &["c XB", "c none", "c none", "c none"]);
    assert!(logged(&s, "Snob As is Red's only Toff or Snob left to act"));
    assert!(logged(&s, "Snob As orders nobody"));
    // Unordered phase, Red first: only 4h is left for Red.
    assert!(logged(
        &s,
        "Every Snob has acted: each Follower without an order this round now acts on its own, blundering on a 2 or less"
    ));
    assert_asking(&s, "Declare an order for Follower 4h");
    feed(&mut s, &["c march", "d 3", "d 2"]);
    assert!(logged(&s, "Follower 4h acts without a commander: March!"));
    // No Snob ordered it, so none is said to follow.
    assert_asking(&s, "March!: move Follower 4h up to");
    assert!(!asking(&s).contains("may follow"), "{}", asking(&s));
}

#[test]
fn an_unordered_follower_blunders_on_two() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &["c XR", "c 8c", "c volley", "d 1"]);
    feed(&mut s, &["c XB", "c none", "c none", "c none"]);
    feed(&mut s, &["c march", "d 2"]);
    assert!(logged(&s, "Follower 4h blunders on 2"));
}

#[test]
fn black_powder_fires_once_per_round_and_red_equipment_never() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &["c XR", "c 8c", "c volley", "d 4", "c 6d", "c no"]);
    feed(&mut s, &["d 1 1 1 1 1 1 1 1"]);
    feed(&mut s, &["c XB", "c none"]);
    // As orders 8c again: only March and Charge are left.
    feed(&mut s, &["c 8c"]);
    let a = asking(&s);
    assert!(a.contains("March!") && !a.contains("Volley"), "{a}");
    feed(&mut s, &["c march", "d 1", "c none"]);
    let a = asking(&s);
    assert!(
        a.contains("Charge!") && !a.contains("Volley") && !a.contains("Move and Shoot"),
        "{a}"
    );
}

#[test]
fn artillery_lump_shot_is_unsavable_and_doubles_wounds() {
    let mut s = game(RED, BLUE, &[]);
    feed(
        &mut s,
        &[
            "c XR", "c none", "c XB", "c 3c", "c volley", "d 3", "c 8c", "c no", "c lump",
        ],
    );
    assert_asking(&s, "roll 3 dice");
    feed(&mut s, &["d 5 6 2"]);
    assert_eq!(unit(&s, "Follower 8c").soldiers.len(), 4);
    feed(&mut s, &["d 2"]);
    assert_asking(&s, "at least 6\"");
}

/// In games begun with question order 1 (the window's), a gun's lump shot
/// or canister is asked before the target's cover, and a lump shot, which
/// ignores cover, is not asked about it (audit S M6). Games begun before
/// (order 0, as their saves answered) still ask cover first.
#[test]
fn a_lump_shot_is_chosen_before_cover_and_not_asked_about_it() {
    let terrain = [TerrainKind::Cover, TerrainKind::Defensible];
    let order = |n: u32| {
        let mut setup = setup(RED, BLUE, &terrain, &[]);
        setup.question_order = n;
        let mut s = begin(&setup);
        feed(&mut s, &INIT);
        feed(
            &mut s,
            &["c XR", "c none", "c XB", "c 3c", "c volley", "d 3", "c 8c"],
        );
        s
    };
    let mut s = order(crate::rules::t52::QUESTION_ORDER);
    assert_asking(&s, "fires lump shot or canister?");
    feed(&mut s, &["c lump"]);
    // No cover question: only where 8c stands (defensible still counts).
    assert_asking(&s, "Is Follower 8c wholly inside defensible terrain?");
    feed(&mut s, &["c no", "c no"]);
    assert_asking(&s, "roll 3 dice");
    // Canister: cover is asked, after the mode.
    let mut s = order(crate::rules::t52::QUESTION_ORDER);
    feed(&mut s, &["c canister"]);
    assert_asking(&s, "Is Follower 8c in cover from Artillery 3c");
    // The first order, as older saves and scripts answer it.
    let s = order(0);
    assert_asking(&s, "Is Follower 8c in cover from Artillery 3c");
    // Saved with the game's setup; a setup written without it is order 0.
    let mut newest = setup(RED, BLUE, &terrain, &[]);
    newest.question_order = crate::rules::t52::QUESTION_ORDER;
    let text = ron::to_string(&newest).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains(&format!(
            "question_order:{}",
            crate::rules::t52::QUESTION_ORDER
        )),
        "{text}"
    );
    let back: crate::rules::t52::GameSetup = ron::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, newest);
    let old = ron::to_string(&setup(RED, BLUE, &terrain, &[])).unwrap_or_else(|e| panic!("{e}"));
    assert!(!old.contains("question_order"), "{old}");
}

#[test]
fn artillery_misfire_needs_a_second_one() {
    let cases = [("d 1", false), ("d 3", true)];
    for (confirm, survives) in cases {
        let mut s = game(RED, BLUE, &[]);
        feed(
            &mut s,
            &[
                "c XR", "c none", "c XB", "c 3c", "c volley", "d 3", "c 8c", "c no", "c lump",
            ],
        );
        feed(&mut s, &["d 1 5 6"]);
        assert_asking(&s, "Misfire check");
        feed(&mut s, &[confirm]);
        assert_eq!(unit(&s, "Artillery 3c").in_play(), survives);
        let lost = if survives { 4 } else { 0 };
        assert_eq!(unit(&s, "Follower 8c").missing(), lost);
        if survives {
            assert!(logged(&s, "Artillery 3c rolled a 1 but the misfire"));
        }
    }
    // Two ones: two dice, and the log counts them.
    let mut s = game(RED, BLUE, &[]);
    feed(
        &mut s,
        &[
            "c XR", "c none", "c XB", "c 3c", "c volley", "d 3", "c 8c", "c no", "c lump",
        ],
    );
    feed(&mut s, &["d 1 1 6", "d 4 5"]);
    assert!(logged(&s, "Artillery 3c rolled 2 ones but the misfire"));
}

#[test]
fn canister_rolls_three_dice_for_the_number_of_attacks() {
    let mut s = game(RED, BLUE, &[]);
    feed(
        &mut s,
        &[
            "c XR",
            "c none",
            "c XB",
            "c 3c",
            "c volley",
            "d 3",
            "c 8c",
            "c no",
            "c canister",
        ],
    );
    feed(&mut s, &["d 2 2 3"]);
    assert!(
        asking(&s).contains("roll 7 dice") && asking(&s).contains("5+"),
        "{}",
        asking(&s)
    );
    feed(&mut s, &["d 5 5 5 6 2 3 4"]);
    // 4 hits, saved against V6.
    feed(&mut s, &["d 6 6 1 1"]);
    assert_eq!(unit(&s, "Follower 8c").soldiers.len(), 6);
}

#[test]
fn charge_with_bowel_loosening_stand_and_shoot_and_melee() {
    let red = "XR As 8c+7s 4h+5h:bowel-loosening-charge";
    let mut s = game(red, BLUE, &[]);
    feed(&mut s, &["c XR", "c 4h", "c charge", "d 3", "c 6d"]);
    // Panic Test passes with 6 + 0, then must be re-rolled once.
    feed(&mut s, &["d 6"]);
    assert_asking(&s, "again (Bowel-loosening Charge)");
    feed(&mut s, &["d 5"]);
    // Stand and Shoot: 6 dice needing 6+, the charger cannot reply.
    assert_asking(&s, "Stand and Shoot");
    feed(&mut s, &["d 6 1 1 1 1 1", "d 2"]);
    assert_eq!(unit(&s, "Follower 4h").soldiers.len(), 3);
    // Charge move 3 + 4.
    feed(&mut s, &["d 4"]);
    assert_asking(&s, "up to 7\"");
    feed(&mut s, &["ok", "c yes"]);
    // Melee: 3 attacks needing 3+ (I 4, melee weapons -1).
    assert_asking(&s, "roll 3 dice, hits on 3+");
    feed(&mut s, &["d 3 4 1", "d 1 6"]);
    // 6d strikes back with 5 dice needing 6+, 4h saves below V4.
    assert_asking(&s, "roll 5 dice, hits on 6+");
    feed(&mut s, &["d 6 6 1 2 3", "d 5 6"]);
    assert!(logged(&s, "Follower 4h wins the melee, 1 wound(s) to 0"));
    feed(&mut s, &["d 1"]);
    assert_asking(&s, "at least 2\"");
}

#[test]
fn defensible_terrain_is_asked_about_only_when_the_panic_test_can_fail() {
    for missing in [0, 1] {
        let mut s = game(RED, BLUE, &[TerrainKind::Defensible]);
        feed(&mut s, &["c XR", "c 4h", "c charge", "d 3"]);
        if missing > 0 {
            let remove = Effect::RemoveSoldiers {
                unit: 6,
                count: missing,
            };
            s.apply(Event::Edit(remove))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        feed(&mut s, &["c 6d"]);
        assert_asking(&s, "Is Follower 6d wholly inside defensible terrain");
        let only = only_option(&s);
        if missing == 0 {
            // A 6 with no soldier missing holds: Fearless cannot matter. The
            // window takes the lone option; an older save's answer reads as it.
            assert_eq!(only.as_deref(), Some("moot"));
            let mut old = s.clone();
            feed(&mut s, &["c moot"]);
            feed(&mut old, &["c yes"]);
            assert_eq!(old.state(), s.state());
        } else {
            assert_eq!(only, None);
            feed(&mut s, &["c no"]);
        }
        assert_asking(&s, "Panic Test for Follower 6d");
        let taken = s.pending().and_then(|r| r.only_answer());
        if missing == 0 {
            // No roll can fail it: the window takes the roll by itself, and
            // an older save's die (a 6 here) reads as that.
            let (answer, label) = taken.unwrap_or_else(|| panic!("a moot roll"));
            assert_eq!(label, MOOT_ROLL_LABEL);
            let mut old = s.clone();
            s.apply(Event::Answer(answer))
                .unwrap_or_else(|e| panic!("{e}"));
            feed(&mut old, &["d 6"]);
            assert_eq!(old.state(), s.state());
            assert!(logged(
                &s,
                "Follower 6d holds: with 0 missing, no roll is above 6"
            ));
            assert!(!logged(
                &s,
                "Panic Test for Follower 6d: roll 1 die, +0 missing soldier(s), above 6 it retreats: rolled"
            ));
        } else {
            assert_eq!(taken, None, "a 6 with 1 missing fails: roll it");
            feed(&mut s, &["d 5"]);
            assert!(logged(&s, "Follower 6d holds: 5 + 1 = 6"));
        }
    }
}

#[test]
fn panic_fails_above_six_and_fearless_can_save_it() {
    // (Blue's 6d upgrades, fearless die, 6d retreats)
    let cases = [
        ("", None, true),
        (":fearless", Some("d 3"), false),
        (":fearless", Some("d 2"), true),
    ];
    for (up, fearless, retreats) in cases {
        let blue = format!("XB Ad 6d+7c{up} 3c");
        let mut s = game(RED, &blue, &[]);
        feed(&mut s, &["c XR", "c 4h", "c charge", "d 3"]);
        s.apply(Event::Edit(Effect::RemoveSoldiers { unit: 6, count: 3 }))
            .unwrap_or_else(|e| panic!("{e}"));
        feed(&mut s, &["c 6d", "d 4"]);
        if let Some(d) = fearless {
            assert_asking(&s, "Fearless");
            feed(&mut s, &[d]);
        }
        let a = asking(&s);
        assert_eq!(
            a.contains("Retreat: roll 1 die for Follower 6d"),
            retreats,
            "{up}: {a}"
        );
    }
}

/// Audit BA1: a charge's target that panics and retreats off the table
/// leaves nothing to charge towards; the charge ends there (question order
/// 3; games begun before still ask the charge move, as their saves
/// answered).
#[test]
fn a_charge_ends_when_its_target_flees_the_table() {
    for (order, ends) in [(crate::rules::t52::QUESTION_ORDER, true), (2, false)] {
        let mut setup = setup(RED, "XB Ad 6d+7c 3c", &[], &[]);
        setup.question_order = order;
        let mut s = begin(&setup);
        feed(&mut s, &INIT);
        feed(&mut s, &["c XR", "c 4h", "c charge", "d 3"]);
        s.apply(Event::Edit(Effect::RemoveSoldiers { unit: 6, count: 3 }))
            .unwrap_or_else(|e| panic!("{e}"));
        feed(&mut s, &["c 6d", "d 4", "d 2", "c edge"]);
        assert!(!unit(&s, "Follower 6d").in_play());
        assert_eq!(
            logged(&s, "Follower 6d is gone: Follower 4h's charge ends"),
            ends
        );
        assert_eq!(asking(&s).contains("Charge!"), !ends, "{}", asking(&s));
    }
}

/// Audit BA3: a gun whose own wound dice destroy it is not asked for a
/// misfire check on their 1s (question order 3).
#[test]
fn a_gun_its_wounds_destroy_is_not_asked_to_misfire() {
    for (order, asked) in [(crate::rules::t52::QUESTION_ORDER, false), (2, true)] {
        let mut setup = setup(RED, BLUE, &[], &[]);
        setup.question_order = order;
        let mut s = begin(&setup);
        feed(&mut s, &INIT);
        feed(&mut s, &GUN_FIRES_LUMP_AT_8C[..7]);
        feed(&mut s, &["c lump", "c yes"]);
        // The gun's own attack rolls no 1; 8c's Return Fire hits it four
        // times and every die wounds it (V 5), 1s included.
        feed(&mut s, &["d 4 5 6", "d 6 6 6 6 1 1 1 1", "d 1 1 2 2"]);
        assert_eq!(
            asking(&s).contains("Misfire check"),
            asked,
            "{}",
            asking(&s)
        );
        if !asked {
            assert!(!unit(&s, "Artillery 3c").in_play(), "the wounds destroy it");
        }
    }
}

/// With so many soldiers missing that even a 1 fails, the Panic Test's roll
/// cannot change anything: the window takes it (audit AA4), and only a
/// Fearless unit's own roll is asked. An older save's die reads the same.
#[test]
fn a_panic_test_that_cannot_hold_is_not_rolled() {
    for up in ["", ":fearless"] {
        let blue = format!("XB Ad 8d+7c{up} 3c");
        let mut s = game(RED, &blue, &[]);
        feed(&mut s, &["c XR", "c 4h", "c charge", "d 3"]);
        s.apply(Event::Edit(Effect::RemoveSoldiers { unit: 6, count: 6 }))
            .unwrap_or_else(|e| panic!("{e}"));
        feed(&mut s, &["c 8d"]);
        assert_asking(&s, "Panic Test for Follower 8d");
        let (answer, label) = s
            .pending()
            .and_then(|r| r.only_answer())
            .unwrap_or_else(|| panic!("a moot roll: {}", asking(&s)));
        assert_eq!(label, MOOT_ROLL_LABEL);
        let mut old = s.clone();
        s.apply(Event::Answer(answer))
            .unwrap_or_else(|e| panic!("{e}"));
        feed(&mut old, &["d 4"]);
        assert_eq!(old.state(), s.state());
        if up.is_empty() {
            assert!(logged(
                &s,
                "Follower 8d panics: with 6 missing, no roll holds"
            ));
            assert_asking(&s, "Retreat: roll 1 die for Follower 8d");
        } else {
            assert_asking(&s, "Fearless");
            feed(&mut s, &["d 3"]);
            assert!(logged(
                &s,
                "Follower 8d fails (with 6 missing, no roll holds) but is Fearless (its upgrade): 3 holds"
            ));
        }
    }
}

#[test]
fn mob_is_fearless_only_above_six_soldiers() {
    let red = "XR As 8c+7s:mob 4h+5h";
    // 8c charges nobody here: Blue's 6d charges it instead.
    let cases = [(1, true), (2, false)];
    for (removed, fearless) in cases {
        let mut s = game(red, BLUE, &[]);
        feed(
            &mut s,
            &["c XR", "c none", "c XB", "c 6d", "c charge", "d 3"],
        );
        s.apply(Event::Edit(Effect::RemoveSoldiers {
            unit: 2,
            count: removed,
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        feed(&mut s, &["c 8c", "d 6"]);
        assert_eq!(
            asking(&s).contains("Fearless (Mob)"),
            fearless,
            "{}",
            asking(&s)
        );
    }
}

#[test]
fn improbable_hits_against_skirmishers() {
    let blue = "XB Ad 6d+7c:skirmisher 3c";
    let mut s = game(RED, blue, &[]);
    feed(&mut s, &["c XR", "c 8c", "c volley", "d 4", "c 6d", "c no"]);
    assert_asking(&s, "needs 7+");
    feed(&mut s, &["d 6 6 1 2 3 4 5 5"]);
    assert_asking(&s, "roll 2 dice, hits on 4+");
    feed(&mut s, &["d 4 3"]);
    assert_asking(&s, "rolls 1 die ");
}

/// (terrain, answers to the terrain questions, hit need, save rolls, wounds)
type TerrainCase = (
    &'static [TerrainKind],
    &'static [&'static str],
    &'static str,
    &'static str,
    usize,
);

#[test]
fn cover_and_defensible_terrain_change_the_numbers() {
    let cases: [TerrainCase; 3] = [
        (
            &[TerrainKind::Cover],
            &["c yes"],
            "hits on 5+",
            "d 5 4 1",
            2,
        ),
        (&[TerrainKind::Cover], &["c no"], "hits on 5+", "d 5 4 1", 3),
        (
            &[TerrainKind::Defensible],
            &["c yes"],
            "hits on 6+",
            "d 5 4 1",
            3,
        ),
    ];
    for (terrain, facts, need, saves, wounds) in cases {
        let mut s = game(RED, BLUE, terrain);
        feed(&mut s, &["c XR", "c 8c", "c volley", "d 4", "c 6d"]);
        feed(&mut s, facts);
        feed(&mut s, &["c no"]);
        assert!(asking(&s).contains(need), "{terrain:?}: {}", asking(&s));
        feed(&mut s, &["d 6 6 6 1 1 1 1 1", saves]);
        assert_eq!(
            unit(&s, "Follower 6d").missing() as usize,
            wounds,
            "{terrain:?}"
        );
    }
}

#[test]
fn march_tells_the_distance_and_tests_dangerous_terrain() {
    let mut s = game(RED, BLUE, &[TerrainKind::Dangerous]);
    feed(&mut s, &["c XR", "c 8c", "c march", "d 4", "d 5"]);
    assert_asking(&s, "up to 8\"");
    feed(&mut s, &["n 1"]);
    assert!(asking(&s).contains("Dangerous Terrain Test for Follower 8c: roll 8 dice"));
    feed(&mut s, &["d 1 1 2 3 4 5 6 6"]);
    assert_eq!(unit(&s, "Follower 8c").soldiers.len(), 6);
    // Why, then what: the loss is logged once.
    let log: Vec<&str> = s.state().log.iter().map(|l| l.text.as_str()).collect();
    let at = log
        .iter()
        .position(|l| *l == "Follower 8c rolls 2 ones in dangerous terrain");
    assert!(at.is_some(), "{log:?}");
    assert_eq!(
        log.iter()
            .filter(|l| l.contains("loses 2 soldier(s)"))
            .count(),
        1
    );
}

#[test]
fn dash_moves_after_the_order_and_vanguard_before_the_game() {
    let red = "XR As 8c+7s 4h+5h:vanguard,dash";
    let mut s = begin(&setup(red, BLUE, &[], &[]));
    feed(&mut s, &INIT);
    // The table is laid out between the roll and the Vanguard moves (audit
    // CF M1).
    assert!(logged(
        &s,
        "Red picks a table side; taking turns, Red first"
    ));
    assert!(
        asking(&s)
            .contains("Vanguard, if you like (its Snob stays put): move Follower 4h up to 3\"")
    );
    feed(
        &mut s,
        &["ok", "c XR", "c 4h", "c march", "d 4", "d 2", "ok"],
    );
    assert_asking(
        &s,
        "Dash, if you like (its Snob stays put): move Follower 4h up to 3\"",
    );
}

#[test]
fn melee_draws_start_a_new_melee() {
    let mut s = game(RED, BLUE, &[]);
    feed(
        &mut s,
        &[
            "c XR",
            "c 4h",
            "c charge",
            "d 3",
            "c 6d",
            "d 1",
            "d 1 1 1 1 1 1",
        ],
    );
    feed(&mut s, &["d 4", "ok", "c yes"]);
    // Bout 1: nobody hits.
    let bout = ["d 1 1 1 1", "d 1 1 1 1 1 1"];
    feed(&mut s, &bout);
    assert!(logged(&s, "Melee 1 is a draw"));
    assert_asking(&s, "roll 4 dice, hits on 3+");
    // Every melee_max_repeats draws in a row the players may stop.
    for _ in 1..10 {
        feed(&mut s, &bout);
    }
    assert_asking(&s, "10 melees in a row were drawn");
    feed(&mut s, &["c again"]);
    for _ in 0..10 {
        feed(&mut s, &bout);
    }
    assert_asking(&s, "20 melees in a row were drawn");
    feed(&mut s, &["c locked"]);
    assert!(logged(
        &s,
        "After 20 drawn melees Follower 4h and Follower 6d stay locked"
    ));
}

#[test]
fn sudden_death_when_toff_and_snobs_are_gone() {
    let mut s = game(RED, "XB 6d+7c", &[]);
    feed(&mut s, &["c XR", "c 8c", "c volley", "d 4", "c XB", "c no"]);
    feed(&mut s, &["d 6 6 6 6 5 5 1 1", "d 1 1 1 2 2 2"]);
    let out = s
        .state()
        .outcome
        .clone()
        .unwrap_or_else(|| panic!("game must end"));
    assert_eq!(out.winner, Some(0));
    assert!(out.reason.contains("Sudden death"));
    assert!(s.pending().is_none());
}

/// The volley that leaves Blue no Toff or Snob ends the game at once: no
/// question about the markers first (question order 2; audit AA2). Games
/// begun before still ask it, as their saves answered.
#[test]
fn sudden_death_comes_before_the_markers() {
    for (order, asked) in [(crate::rules::t52::QUESTION_ORDER, false), (1, true)] {
        let mut setup = setup(RED, "XB 6d+7c", &[], &["Kh"]);
        setup.question_order = order;
        let mut s = begin(&setup);
        feed(&mut s, &INIT);
        feed(&mut s, &["c XR", "c 8c", "c volley", "d 4", "c XB", "c no"]);
        feed(&mut s, &["d 6 6 6 6 5 5 1 1", "d 1 1 1 2 2 2"]);
        if asked {
            assert_asking(&s, "Objectives: did a Follower end");
            feed(&mut s, &["c none"]);
        }
        assert!(s.pending().is_none(), "order {order}: {}", asking(&s));
        assert!(
            s.state()
                .outcome
                .as_ref()
                .is_some_and(|o| o.reason.contains("Sudden death"))
        );
    }
}

/// A lone figure with several wounds counts lives in the log, as in the
/// units panel (not "1 soldier(s) left" after a wound).
#[test]
fn a_wounded_toff_is_said_to_have_lives_left() {
    let mut s = game(RED, "XB 6d+7c", &[]);
    feed(&mut s, &["c XR", "c 8c", "c volley", "d 4", "c XB", "c no"]);
    feed(&mut s, &["d 6 1 1 1 1 1 1 1", "d 1"]);
    assert!(
        logged(&s, "Toff XB has 1 of 2 lives left"),
        "{:?} {}",
        s.state().log,
        asking(&s)
    );
}

#[test]
fn victory_goes_to_most_objectives_after_four_rounds() {
    // One quiet round: Snobs order nobody, both Followers march and blunder.
    let round = [
        "c none", "c none", "c none", "c none", "c march", "d 1", "c none", "c march", "d 1",
        "c none",
    ];
    let cases = [
        (vec!["c Kh", "c Held by Red", "c none"], Some(0)),
        (vec!["c Kh", "c contested", "c none"], None),
    ];
    for (first_change, winner) in cases {
        let mut s = begin(&setup("XR 8c+7s", "XB 6d+7c", &[], &["Kh", "Jd"]));
        feed(&mut s, &INIT);
        feed(&mut s, &["c none"]);
        feed(&mut s, &first_change);
        feed(&mut s, &round[2..]);
        for _ in 1..4 {
            feed(&mut s, &round);
        }
        assert!(s.pending().is_none(), "{}", asking(&s));
        assert_eq!(s.state().round, 4);
        let out = s
            .state()
            .outcome
            .clone()
            .unwrap_or_else(|| panic!("game must end"));
        assert_eq!(out.winner, winner, "{}", out.reason);
        let held = if winner.is_some() {
            Holder::Side(0)
        } else {
            Holder::Contested
        };
        assert_eq!(s.state().objectives[0].holder, held);
    }
}

#[test]
fn every_check_cites_a_rule_with_its_ruling() {
    let mut s = game(RED, BLUE, &[]);
    feed(
        &mut s,
        &[
            "c XR",
            "c 8c",
            "c volley",
            "d 4",
            "c 6d",
            "c no",
            "d 6 6 1 1 1 1 1 1",
            "d 1 1",
            "d 2",
        ],
    );
    let rules: Vec<&str> = s
        .state()
        .log
        .iter()
        .filter_map(|l| l.rule.as_deref())
        .collect();
    for r in [
        "initiative",
        "blunder",
        "volley",
        "wounds",
        "shooting",
        "retreat",
        "regiment",
    ] {
        assert!(rules.contains(&r), "{r} not cited: {rules:?}");
    }
    // The ruling goes with the line, not in its words.
    assert!(s.state().log.iter().any(|l| {
        l.ruling
            .as_deref()
            .is_some_and(|r| r.starts_with("Missing soldiers"))
    }));
    assert!(!logged(&s, "(ruling:"));
}

#[test]
fn objective_markers_are_kings_and_one_jack() {
    // (objective cards, refusal expected)
    let cases: [(&[&str], Option<&str>); 4] = [
        (&["Kh", "Ks", "Jc"], None),
        (&["Kh", "Ks", "Kd", "Kc", "Jh"], None),
        (&["Kh", "5s"], Some("Objective 5s is not a King or a Jack")),
        (&["Jh", "Jd"], Some("2 Jacks among the objectives")),
    ];
    for (cards, refusal) in cases {
        let s = begin(&setup(RED, BLUE, &[], cards));
        match refusal {
            Some(text) => {
                assert!(logged(&s, text), "{cards:?}");
                assert!(s.pending().is_none());
            }
            None => {
                assert_eq!(s.state().objectives.len(), cards.len());
                assert_asking(&s, "initiative");
            }
        }
    }
}

#[test]
fn a_snob_that_follows_tests_dangerous_terrain_too() {
    let mut s = game(RED, BLUE, &[TerrainKind::Dangerous]);
    feed(&mut s, &["c XR", "c 8c", "c march", "d 4", "d 5"]);
    // The commander that may follow is named: here the Toff, not a Snob.
    assert_asking(&s, "March! (Toff XR may follow): move Follower 8c");
    feed(&mut s, &["n 0"]);
    assert_asking(&s, "Toff XR may follow Follower 8c");
    feed(&mut s, &["n 1"]);
    assert_asking(&s, "Dangerous Terrain Test for Toff XR: roll 1 die");
    // Passed, it says so in the test's words (it may have crossed Followers).
    let mut passed = s.clone();
    feed(&mut passed, &["d 2"]);
    assert!(logged(
        &passed,
        "Toff XR passes the Dangerous Terrain Test without loss"
    ));
    feed(&mut s, &["d 1"]);
    assert!(!unit(&s, "Toff XR").in_play());
    assert!(unit(&s, "Snob As").in_play());
    // A Snob that stayed put answers 0 and rolls nothing.
    let mut s = game(RED, BLUE, &[TerrainKind::Dangerous]);
    feed(
        &mut s,
        &["c XR", "c 8c", "c march", "d 4", "d 5", "n 0", "n 0"],
    );
    assert_asking(&s, "Blue: choose a Toff or Snob");
}

/// From question order 4 the last commander falling ends the game at once:
/// a Toff killed following its Follower through dangerous terrain leaves
/// that Follower's shot unasked (audit BO O3). Games begun before ask it.
#[test]
fn sudden_death_ends_the_game_mid_activation() {
    for (order, ends) in [(crate::rules::t52::QUESTION_ORDER, true), (3, false)] {
        let mut setup = setup("XR 8c+7s 4h+5h", BLUE, &[TerrainKind::Dangerous], &[]);
        setup.question_order = order;
        let mut s = begin(&setup);
        feed(&mut s, &INIT);
        feed(&mut s, &["c 8c", "c move-and-shoot", "d 4", "n 0", "n 1"]);
        assert_asking(&s, "Dangerous Terrain Test for Toff XR: roll 1 die");
        feed(&mut s, &["d 1"]);
        assert!(!unit(&s, "Toff XR").in_play());
        if ends {
            assert!(s.pending().is_none(), "order {order}: {}", asking(&s));
            let out = s.state().outcome.clone();
            let out = out.unwrap_or_else(|| panic!("the game must end"));
            assert_eq!(out.winner, Some(1));
            assert!(out.reason.contains("Sudden death: Red"), "{}", out.reason);
        } else {
            assert!(s.pending().is_some(), "order {order}");
            assert!(s.state().outcome.is_none());
        }
    }
}

#[test]
fn no_vulnerability_dice_for_a_gun_its_misfire_destroyed() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &GUN_FIRES_LUMP_AT_8C);
    feed(&mut s, &["d 1 5 6", "d 1"]);
    assert!(logged(&s, "Artillery 3c misfires and is destroyed"));
    // The hits it rolled are said, and why none land (not "0 hit(s)").
    assert!(
        logged(
            &s,
            "hit(s) rolled, none land: the misfire destroyed the gun"
        ),
        "{:?}",
        s.state().log
    );
    // 8c's Return Fire was rolled with the gun's: 2 hits on 6+.
    assert_asking(&s, "Return Fire: Follower 8c shoots at Artillery 3c");
    feed(&mut s, &["d 6 6 1 1 1 1 1 1"]);
    let a = asking(&s);
    assert!(!a.contains("Artillery 3c rolls"), "{a}");
    assert_asking(&s, "Snob As");
}

#[test]
fn a_follower_with_no_order_left_is_not_offered() {
    let mut s = game(RED, BLUE, &[]);
    feed(
        &mut s,
        &[
            "c XR", "c none", "c XB", "c 3c", "c volley", "d 3", "c 8c", "c no", "c lump",
            "d 5 6 2", "d 2", "c clear",
        ],
    );
    // Red's As orders nobody; Blue's Ad may order 6d but not the gun that fired.
    feed(&mut s, &["c none"]);
    let a = asking(&s);
    assert!(a.contains("Snob Ad") && a.contains("Follower 6d"), "{a}");
    assert!(!a.contains("Artillery 3c"), "{a}");
    // Nor in the unordered phase: Blue's only Follower left to order is 6d.
    feed(&mut s, &["c none", "c 8c", "c march", "d 1"]);
    assert_asking(&s, "Declare an order for Follower 6d");
}

#[test]
fn objectives_are_asked_after_vanguard_moves() {
    let red = "XR As 8c+7s 4h+5h:vanguard";
    let mut s = begin(&setup(red, BLUE, &[], &["Kh"]));
    feed(&mut s, &INIT);
    assert_asking(&s, "Vanguard");
    feed(&mut s, &["ok"]);
    assert_asking(&s, "Objectives:");
    feed(&mut s, &["c Kh", "c side0", "c none"]);
    assert_eq!(s.state().objectives[0].holder, Holder::Side(0));
    assert_asking(&s, "Red: choose a Toff or Snob");
}

/// Blue's gun volleys lump shot at Red's 8c, which returns fire.
const GUN_FIRES_LUMP_AT_8C: [&str; 9] = [
    "c XR", "c none", "c XB", "c 3c", "c volley", "d 3", "c 8c", "c yes", "c lump",
];

#[test]
fn a_one_on_the_guns_own_vulnerability_dice_risks_a_misfire() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &GUN_FIRES_LUMP_AT_8C);
    // The gun's own attack rolls no 1; 8c's Return Fire hits it twice.
    feed(&mut s, &["d 4 5 6", "d 6 6 1 1 1 1 1 1"]);
    feed(&mut s, &["d 1 6"]);
    assert_asking(&s, "Misfire check");
    feed(&mut s, &["d 1"]);
    assert!(logged(&s, "Artillery 3c misfires and is destroyed"));
    assert!(!unit(&s, "Artillery 3c").in_play());
    // The Return Fire that hit it still counts in the tally (1 below V 5).
    assert!(logged(&s, "Follower 8c inflicted 1"));
}

#[test]
fn a_one_in_the_guns_panic_test_risks_a_misfire() {
    let mut s = game(RED, BLUE, &[]);
    // Red's 4h charges Blue's gun, which takes a Panic Test and rolls a 1.
    feed(&mut s, &["c XR", "c 4h", "c charge", "d 3", "c 3c"]);
    assert_asking(&s, "Panic Test for Artillery 3c");
    // With no soldier missing the test cannot fail, but a gun's 1 still
    // counts: the roll is the table's to make.
    assert_eq!(s.pending().and_then(|r| r.only_answer()), None);
    feed(&mut s, &["d 1"]);
    assert_asking(&s, "Misfire check");
    feed(&mut s, &["d 1"]);
    assert!(logged(&s, "Artillery 3c misfires and is destroyed"));
    assert!(!unit(&s, "Artillery 3c").in_play());
    // A destroyed gun neither stands and shoots nor fights.
    assert!(!logged(&s, "Artillery 3c stands and shoots"));
    assert!(!logged(&s, "Artillery 3c holds"));
    assert!(logged(
        &s,
        "Artillery 3c is gone: Follower 4h's charge ends"
    ));
    assert!(!asking(&s).contains("Charge!"), "{}", asking(&s));
}

#[test]
fn a_gun_that_misfires_in_melee_loses_it_at_once() {
    let mut s = game(RED, BLUE, &[]);
    feed(&mut s, &["c XR", "c 4h", "c charge", "d 3", "c 3c", "d 2"]);
    // Stand and Shoot misses; 4h charges home; both sides miss, the gun on 1s.
    feed(
        &mut s,
        &[
            "c lump",
            "d 2 2 2",
            "d 4",
            "ok",
            "c yes",
            "d 1 1 1 1",
            "d 1 1 1",
        ],
    );
    assert_asking(&s, "Misfire check");
    feed(&mut s, &["d 1 2 3"]);
    assert!(logged(&s, "Artillery 3c misfires and is destroyed"));
    assert!(logged(
        &s,
        "Follower 4h wins the melee: Artillery 3c is destroyed"
    ));
    assert!(!logged(&s, "Melee 1 is a draw"));
}

/// Objectives other than the usual centre Jack and four Kings are allowed,
/// but said before play and in the log.
#[test]
fn an_unusual_set_of_objectives_is_noted() {
    let usual = setup(RED, BLUE, &[], &["Jc", "Kh", "Ks", "Kd", "Kc"]);
    assert_eq!(super::objectives_note(&usual), None);
    let three = setup(RED, BLUE, &[], &["Kh", "Ks", "Jd"]);
    let note = super::objectives_note(&three).unwrap_or_default();
    assert!(
        note.contains("this one has 2 King(s) and 1 Jack(s)"),
        "{note}"
    );
    let s = begin(&three);
    assert!(logged(
        &s,
        "The usual table has the centre Jack and 4 Kings"
    ));
}
