//! Whole Gunfight flows driven by answers, as at the table.

use super::{GameSetup, GangSetup, parse_gunmen};
use crate::rules::ProcedureSpec;
use crate::rules::games::GameId;
use crate::rules::session::{Event, Session};
use crate::rules::testkit::{
    answer, asking, assert_asking, begin_game, begin_game_with, feed, logged, only_option, outcome,
    refused,
};
use crate::table::BackColour;

fn gang(name: &str, back: BackColour, men: &str) -> GangSetup {
    GangSetup {
        name: name.into(),
        back,
        gunmen: parse_gunmen(men).unwrap_or_else(|e| panic!("{e}")),
    }
}

fn setup(civilians: bool) -> GameSetup {
    GameSetup {
        gangs: vec![
            gang("Red", BackColour::Red, "Kid Doc:rifle Ike Billy"),
            gang(
                "Blue",
                BackColour::Blue,
                "Wyatt:rifle Virgil Morgan Holliday",
            ),
        ],
        civilians,
        // The first order, as the scripts and older saves answer it.
        question_order: 0,
    }
}

fn begin(setup: &GameSetup) -> Session {
    begin_game(GameId::Gunfight, ProcedureSpec::Gunfight(setup.clone()), 11)
}

fn lives(s: &Session, name: &str) -> u32 {
    let u = s.state().units.iter().find(|u| u.name == name);
    let u = u.unwrap_or_else(|| panic!("no gunman {name}"));
    if u.in_play() {
        u.wounds_per_soldier - u.wounds()
    } else {
        0
    }
}

/// Red, Blue and Green (`A B C D`) dealt and bid Ah, 9c, 2s: Red goes
/// first.
fn three_gangs() -> Session {
    let mut three = setup(false);
    three
        .gangs
        .push(gang("Green", BackColour::Other, "A B C D"));
    let mut s = begin(&three);
    feed(&mut s, &["ok", "k Ah", "k 9c", "k 2s"]);
    s
}

/// Deal, Red bids 9h, Blue bids 4c: Red goes first.
const RED_FIRST: [&str; 3] = ["ok", "k 9h", "k 4c"];

#[test]
fn identical_bids_go_by_back_colour_blue_first() {
    let mut s = begin(&setup(false));
    feed(&mut s, &["ok", "k Ks", "k Ks"]);
    assert!(
        logged(&s, "Order of play: Blue (Ks), Red (Ks)"),
        "{:?}",
        s.state().log
    );
    assert_asking(&s, "Blue's go");
    let order: Vec<usize> = s.state().activation.slots.iter().map(|a| a.side).collect();
    assert_eq!(order, [1, 0]);
    // The log says why (audit CB2), and a third gang's other back comes
    // after both (audit CB3: its pack is named in words).
    assert!(logged(
        &s,
        "Blue Ks goes before Red Ks: identical cards go by back"
    ));
    let mut three = setup(false);
    three
        .gangs
        .push(gang("Green", BackColour::Other, "A B C D"));
    let mut s = begin(&three);
    assert!(logged(
        &s,
        "Green has 4 gunmen and plays a pack with another back colour"
    ));
    feed(&mut s, &["ok", "k 2c", "k 3d", "k 2c"]);
    assert!(
        logged(&s, "Red 2c goes before Green 2c"),
        "{:?}",
        s.state().log
    );
}

#[test]
fn bids_alike_from_packs_alike_roll_off_and_say_why() {
    let mut same = setup(false);
    same.gangs[1].back = BackColour::Red;
    let mut s = begin(&same);
    feed(&mut s, &["ok", "k Ks", "k Ks"]);
    assert!(
        logged(
            &s,
            "Bids rank alike (Red Ks, Blue Ks): a roll-off sets their order"
        ),
        "{:?}",
        s.state().log
    );
    assert_asking(&s, "rolls 1 die for initiative (bids alike)");
}

#[test]
fn a_joker_bid_beats_an_ace() {
    let mut s = begin(&setup(false));
    feed(&mut s, &["ok", "k As", "k XB"]);
    assert!(logged(&s, "Order of play: Blue (XB), Red (As)"));
}

#[test]
fn first_moves_take_any_cards_with_non_clubs_at_half() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g1", "n 2", "k 8c 5h"]);
    assert!(
        logged(&s, "Doc may move up to 10.5 in (8c 5h)"),
        "{:?}",
        s.state().log
    );
    assert!(asking(&s).contains("Doc moved: does anyone fire on overwatch?"));
    feed(&mut s, &["c none"]);
    assert!(asking(&s).contains("Red's go"));
}

#[test]
fn a_shot_beats_a_lower_save_and_rolls_damage_to_lives() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    // Kid shoots Wyatt with 9s, one piece of cover: 8 against the save 7h.
    feed(
        &mut s,
        &[
            "c shoot", "c g0", "c g4", "k 9s", "n 1", "c no", "c no", "c no",
        ],
    );
    assert_asking(&s, "Kid shoots 8 at Wyatt");
    feed(&mut s, &["c save", "k 7h", "d 4"]);
    // The log keeps the card and what changed it.
    assert!(logged(
        &s,
        "Kid hits Wyatt: 8 (9s, cover -1) against save 7h (7)"
    ));
    assert_eq!(lives(&s, "Wyatt"), 2);
    assert_eq!(s.state().counter("shots"), 1);
    // After the first shot, moves need Clubs.
    feed(&mut s, &["c none", "c move", "c g2", "c yes", "k 6h"]);
    assert!(logged(&s, "6h cannot be played here"));
    feed(&mut s, &["k 6c", "c none"]);
    assert!(logged(&s, "Ike may move up to 6 in (6c)"));
}

#[test]
fn a_tie_or_a_joker_saves_and_a_heart_cannot_shoot() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c shoot", "c g0", "c g5", "k 7h"]);
    assert!(logged(
        &s,
        "7h cannot be played here: shooting cards are Spades and Diamonds"
    ));
    feed(
        &mut s,
        &["k 7d", "n 0", "c no", "c no", "c no", "c save", "k 7h"],
    );
    assert!(logged(&s, "does not beat Virgil's save 7h (7): missed"));
    assert_eq!(lives(&s, "Virgil"), 6);
    feed(
        &mut s,
        &[
            "c none", "c shoot", "c g0", "c g5", "k Ad", "n 0", "c yes", "c no", "c no",
        ],
    );
    feed(&mut s, &["c save", "k XR"]);
    // The shot's card stays in the line (audit BC C4).
    assert!(logged(
        &s,
        "Kid's shot 12 (Ad, height +1) is saved by Virgil's Joker: missed"
    ));
}

#[test]
fn a_pistol_fan_shot_fires_twice_at_minus_one() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(
        &mut s,
        &[
            "c shoot", "c g0", "c g6", "k Ts", "n 0", "c no", "c no", "c yes", "k XB",
        ],
    );
    assert_asking(&s, "Kid shoots 9 at Morgan");
    assert_asking(&s, "shot 1 of 2");
    feed(&mut s, &["c none", "d 2"]);
    assert_asking(&s, "shot 2 of 2");
    feed(&mut s, &["c none", "d 3"]);
    assert_eq!(lives(&s, "Morgan"), 1);
    assert!(asking(&s).contains("Kid fired: does anyone fire on overwatch?"));
}

#[test]
fn overwatch_fire_is_at_minus_two_and_stops_a_mover() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g0", "n 1", "k 9c"]);
    // Wyatt (rifle, so no fan question) fires on overwatch with 8s: 6.
    feed(&mut s, &["c ow-1", "c g4"]);
    // Kid's gang mates may have moved with him as a group.
    assert_asking(
        &s,
        "Doc (Red, rifle, 6 lives) (if he moved with Kid as a group)",
    );
    feed(&mut s, &["c g0"]);
    // The shooter's weapon and range come with the card asked for.
    assert_asking(&s, "Wyatt (rifle, 18 in) fires on overwatch at Kid");
    feed(&mut s, &["k 8s", "n 0", "c no"]);
    assert_asking(&s, "Wyatt shoots 6 at Kid (8s, overwatch -2)");
    feed(&mut s, &["c none", "d 1"]);
    assert!(logged(&s, "Kid stops where he was hit"));
    assert_eq!(lives(&s, "Kid"), 5);
    assert!(asking(&s).contains("Kid moved: does anyone fire on overwatch?"));
}

/// From question order 1 a gunman fires on overwatch once at one move: Wyatt
/// is not offered again at Kid's move after his shot (audit AE2); in the
/// first order he was, as older saves answered.
#[test]
fn a_gunman_fires_on_overwatch_once_at_one_move() {
    for (order, again) in [(super::QUESTION_ORDER, false), (0, true)] {
        let mut setup = setup(false);
        setup.question_order = order;
        let mut s = begin(&setup);
        feed(&mut s, &RED_FIRST);
        feed(&mut s, &["c move", "c g0", "n 1", "k 9c"]);
        feed(&mut s, &["c ow-1", "c g4", "c g0", "k 8s", "n 0", "c no"]);
        feed(&mut s, &["c none", "d 1"]);
        feed(&mut s, &["c ow-1"]);
        assert_asking(&s, "Which gunman fires?");
        let offered = format!("{:?}", s.pending());
        assert_eq!(
            offered.contains("\"g4\""),
            again,
            "order {order}: {offered}"
        );
        assert!(offered.contains("\"g5\""), "{offered}");
    }
}

/// From question order 1 the shot that leaves one gang standing ends the
/// game before civilians react to it (audit AE3).
#[test]
fn the_winning_shot_asks_nothing_of_civilians() {
    for (order, asked) in [(super::QUESTION_ORDER, false), (0, true)] {
        let duel = GameSetup {
            gangs: vec![
                gang("Red", BackColour::Red, "Kid"),
                gang("Blue", BackColour::Blue, "Morgan"),
            ],
            civilians: true,
            question_order: order,
        };
        let spec = ProcedureSpec::Gunfight(duel);
        let mut s = begin_game_with(GameId::Gunfight, spec, 11, &[("gang_size", 1)]);
        feed(&mut s, &RED_FIRST);
        feed(
            &mut s,
            &[
                "c shoot", "c g1", "k Ts", "n 0", "c no", "c no", "c no", "c none", "d 6",
            ],
        );
        if asked {
            assert_asking(&s, "civilians");
            feed(&mut s, &["n 0"]);
        }
        assert_eq!(outcome(&s).winner, Some(0), "order {order}");
        assert!(s.pending().is_none(), "order {order}: {}", asking(&s));
    }
}

#[test]
fn the_last_gang_standing_wins() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    // Each shot needs a card of its own: a card is played once a turn.
    for (target, card) in [
        ("c g4", "k As"),
        ("c g5", "k Ks"),
        ("c g6", "k Qs"),
        ("c g7", "k Js"),
    ] {
        feed(
            &mut s,
            &[
                "c shoot", "c g1", target, card, "n 0", "c no", "c no", "c none", "d 6",
            ],
        );
        if s.state().outcome.is_none() {
            feed(&mut s, &["c none"]);
        }
    }
    let outcome = outcome(&s);
    assert_eq!(outcome.winner, Some(0));
    assert!(outcome.reason.contains("Red is the last gang standing"));
    assert!(s.pending().is_none());
    // Said once, with its rule.
    let said: Vec<_> = s
        .state()
        .log
        .iter()
        .filter(|l| l.text.contains("last gang standing"))
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].text.starts_with("Game over: victory to Red."),
        "{said:?}"
    );
    assert_eq!(said[0].rule.as_deref(), Some("victory"));
}

#[test]
fn stopping_early_gives_the_game_to_the_most_lives() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(
        &mut s,
        &[
            "c shoot", "c g1", "c g4", "k 5s", "n 0", "c no", "c no", "c none", "d 2",
        ],
    );
    feed(&mut s, &["c none", "c done"]);
    assert!(asking(&s).contains("Blue's go"));
    // A stray click on Stop is taken back; the second is confirmed.
    feed(&mut s, &["c stop", "c on"]);
    assert_asking(&s, "Blue's go: play a card");
    feed(&mut s, &["c stop", "c stop"]);
    let outcome = outcome(&s);
    assert_eq!(outcome.winner, Some(0));
    assert!(
        outcome.reason.contains("Red 24, Blue 22"),
        "{}",
        outcome.reason
    );
}

#[test]
fn shooting_mid_move_is_asked_only_after_a_single_card_move_of_the_gang() {
    let settled = |s: &Session| s.pending().is_some_and(|r| r.settled.is_some());
    // Nobody of Red has moved: the question is settled No (the window
    // takes it).
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c shoot", "c g0", "c g4", "k 9s", "n 1", "c no"]);
    assert_asking(&s, "stop part-way through a single-card move");
    assert!(settled(&s));
    // Ike moves on one card first, so Kid may be moving with him as a
    // group: then it is the players' call.
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g2", "n 1", "k 5c", "c none"]);
    feed(&mut s, &["c shoot", "c g0", "c g4", "k 9s", "n 1", "c no"]);
    assert_asking(&s, "stop part-way through a single-card move");
    assert!(!settled(&s));
    feed(&mut s, &["c yes", "c no"]);
    assert_asking(&s, "mid-move -2");
}

#[test]
fn a_player_without_clubs_cannot_then_move_with_one() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(
        &mut s,
        &[
            "c shoot", "c g0", "c g4", "k 9s", "n 1", "c no", "c no", "c no", "c save", "k 7h",
            "d 4", "c none",
        ],
    );
    // Red says the hand holds no Club, so a Club played now is refused.
    feed(&mut s, &["c move", "c g2", "c no", "n 2", "k 6c 8h"]);
    assert!(logged(
        &s,
        "6c cannot be played here: Red said the hand holds no Club"
    ));
    assert_asking(&s, "Show the cards Ike moves with");
    feed(&mut s, &["k 6h 8h", "c none"]);
    assert!(logged(&s, "Ike may move up to 7 in (6h 8h)"));
}

#[test]
fn a_new_turn_deals_again_and_bids_again() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c done", "c done"]);
    assert_asking(&s, "Turn 2");
    assert!(logged(&s, "Turn 1 is over"));
    assert_eq!(s.state().turn, 2);
    // Turn 1's order of play is not shown as turn 2's before the new bids.
    assert!(s.state().activation.slots.is_empty());
    feed(&mut s, &["ok", "k 9h", "k Tc"]);
    let order: Vec<usize> = s.state().activation.slots.iter().map(|a| a.side).collect();
    assert_eq!(order, [1, 0]);
}

/// Kid shoots 8d at a civilian, no modifiers; the civilian's save is next.
const KID_SHOOTS_A_CIVILIAN: [&str; 8] = [
    "c shoot",
    "c g0",
    "c civilian",
    "k 8d",
    "n 0",
    "c no",
    "c no",
    "c no",
];

/// From question order 1 civilians turn their cards from a pack of their
/// own, named in the question; a card it turned this turn is greyed out and
/// refused (audit AE1: 7h was taken for two civilians in a row).
#[test]
fn the_civilians_pack_turns_each_card_once_a_turn() {
    let mut setup = setup(true);
    setup.question_order = super::QUESTION_ORDER;
    let mut s = begin(&setup);
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &KID_SHOOTS_A_CIVILIAN);
    assert_asking(
        &s,
        "for the civilian's save: turn the top card of the civilians' pack",
    );
    feed(&mut s, &["k 9h", "n 2", "c unarmed"]);
    assert_asking(
        &s,
        "Civilian 1 of 2: turn the top card of the civilians' pack",
    );
    feed(&mut s, &["k 7h", "c unarmed", "k 9h"]);
    assert!(refused(
        &s,
        "9h has been turned for a civilian this turn already"
    ));
    assert_asking(
        &s,
        "Civilian 2 of 2: turn the top card of the civilians' pack",
    );
    let greyed = match s.pending().map(|r| &r.ask) {
        Some(crate::rules::procedure::Ask::Cards { played, .. }) => played.len(),
        _ => 0,
    };
    assert_eq!(greyed, 2, "9h and 7h are greyed out");
    feed(&mut s, &["k 6h"]);
    assert!(logged(&s, "Civilian 2 of 2 (6h) runs"));
}

/// "Draw for me" turns a civilian's card from what the civilians' pack
/// still holds this turn, and the log says Adjutant turned it (audit BR R1).
#[test]
fn adjutant_turns_a_civilians_card_the_pack_still_holds() {
    use crate::rules::procedure::Answer;
    use crate::rules::session::Event;
    let mut setup = setup(true);
    setup.question_order = super::QUESTION_ORDER;
    let mut s = begin(&setup);
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &KID_SHOOTS_A_CIVILIAN);
    feed(&mut s, &["k 9h", "n 2", "c unarmed"]);
    assert_asking(&s, "Civilian 1 of 2: turn the top card");
    // Every seed's draw leaves out 9h, turned already this turn.
    for seed in 0..40 {
        let spec = ProcedureSpec::Gunfight(setup.clone());
        let mut other = begin_game(GameId::Gunfight, spec, seed);
        feed(&mut other, &RED_FIRST);
        feed(&mut other, &KID_SHOOTS_A_CIVILIAN);
        feed(&mut other, &["k 9h", "n 2", "c unarmed"]);
        let drawn = other.virtual_answer().and_then(|a| a.cards());
        assert!(
            drawn
                .as_ref()
                .is_some_and(|d| d.len() == 1 && d[0].to_string() != "9h"),
            "seed {seed}: {drawn:?}"
        );
    }
    let Some(answer @ Answer::AdjutantDrew { .. }) = s.virtual_answer() else {
        panic!("no draw: {:?}", s.virtual_answer());
    };
    let card = answer.cards().unwrap_or_default()[0];
    s.apply(Event::Answer(answer))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(logged(&s, &format!("{card} (turned by Adjutant)")));
    assert!(logged(&s, &format!("Civilian 1 of 2 ({card})")));
}

#[test]
fn civilians_react_to_shots_and_armed_ones_fire_back() {
    let mut s = begin(&setup(true));
    assert!(logged(&s, "Civilians are on the table"));
    assert!(!logged(&begin(&setup(false)), "Civilians"));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &KID_SHOOTS_A_CIVILIAN);
    // The civilian's save: a red card of at least 8.
    feed(&mut s, &["k 9h"]);
    assert!(logged(&s, "the civilian saves with 9h"));
    // Two civilians nearby: one unarmed runs, one armed shoots Kid with 7s.
    feed(
        &mut s,
        &[
            "n 2",
            "c unarmed",
            "k 4d",
            "c armed",
            "k 7s",
            "c g0",
            "n 0",
            "c no",
        ],
    );
    assert!(logged(&s, "Civilian 1 of 2 (4d) runs 8 in"));
    feed(&mut s, &["c none", "d 5"]);
    assert!(logged(&s, "Civilian 2 of 2 hits Kid"));
    assert_eq!(lives(&s, "Kid"), 1);
    assert!(asking(&s).contains("Kid fired: does anyone fire on overwatch?"));
    // More damage than lives left: said as it is.
    feed(
        &mut s,
        &["c ow-1", "c g4", "k As", "n 0", "c no", "c none", "d 4"],
    );
    assert!(logged(&s, "Kid takes 4 damage with 1 life left and is out"));
}

#[test]
fn with_three_gangs_a_joker_cuts_in_between_two_other_goes() {
    let mut s = three_gangs();
    feed(&mut s, &["c done"]);
    assert_asking(&s, "Who goes next?");
    feed(&mut s, &["c joker-2", "k XR"]);
    assert!(logged(&s, "Green cuts in with a Joker"));
    assert_asking(&s, "Green's go");
    // The order panel marks the gang whose go it is (audit CB1).
    let due = |s: &Session| {
        let order = &s.state().activation;
        order.slots.get(order.next).map(|a| a.side)
    };
    assert_eq!(due(&s), Some(2));
    feed(&mut s, &["c done"]);
    assert_asking(&s, "Blue's go");
    assert_eq!(due(&s), Some(1));
}

#[test]
fn a_bad_setup_is_refused_with_reasons() {
    let mut bad = setup(false);
    bad.gangs[1].gunmen.pop();
    bad.gangs.push(gang("Red", BackColour::Red, "A B C D"));
    let s = begin(&bad);
    assert!(logged(&s, "Blue has 3 gunmen; a gang is 4."));
    assert!(logged(
        &s,
        "Two players are called Red: give each a name of their own."
    ));
    assert!(s.pending().is_none());
}

#[test]
fn first_moves_may_spend_the_hand_less_the_initiative_card() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g1"]);
    // Five cards dealt, one bid for initiative: four left to move with.
    assert!(s.apply(Event::Answer(answer("n 5"))).is_err());
    feed(&mut s, &["n 4", "k 2c 3c 4c 5c"]);
    assert!(logged(&s, "Doc may move up to 14 in (2c 3c 4c 5c)"));
}

#[test]
fn nobody_is_asked_about_civilians_once_a_civilian_ends_the_game() {
    let mut s = begin(&setup(true));
    feed(&mut s, &RED_FIRST);
    // Doc shoots down three of Blue's four; no civilian is near.
    for (target, card) in [("c g4", "k As"), ("c g5", "k Ks"), ("c g6", "k Qs")] {
        feed(
            &mut s,
            &[
                "c shoot", "c g1", target, card, "n 0", "c no", "c no", "c none", "d 6", "n 0",
                "c none",
            ],
        );
    }
    // Doc misses Holliday; the first of two armed civilians shoots him dead.
    feed(
        &mut s,
        &[
            "c shoot", "c g1", "c g7", "k 2s", "n 0", "c no", "c no", "c save", "k Th",
        ],
    );
    feed(
        &mut s,
        &[
            "n 2", "c armed", "k Kd", "c g7", "n 0", "c no", "c none", "d 6",
        ],
    );
    let outcome = outcome(&s);
    assert_eq!(outcome.winner, Some(0));
    assert!(s.pending().is_none(), "{}", asking(&s));
}

#[test]
fn a_civilian_is_a_target_only_where_civilians_were_set_up() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c shoot", "c g0"]);
    assert_asking(&s, "Shoot at whom?");
    assert!(!asking(&s).contains("civilian"), "{}", asking(&s));
    assert!(s.apply(Event::Answer(answer("c civilian"))).is_err());
    let mut s = begin(&setup(true));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c shoot", "c g0"]);
    assert_asking(&s, "A civilian");
}

#[test]
fn house_ruled_numbers_change_play() {
    let mut s = begin_game_with(
        GameId::Gunfight,
        ProcedureSpec::Gunfight(setup(false)),
        11,
        &[("initiative_cards", 2), ("group_move_card_widths", 3)],
    );
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g1"]);
    // Two cards bid: three left for the opening move.
    assert!(s.apply(Event::Answer(answer("n 4"))).is_err());
    feed(&mut s, &["n 3", "k 2c 3c 4c"]);
    assert!(logged(&s, "within 3 card-widths"));
}

#[test]
fn overwatch_may_fire_at_a_gunman_who_moved_with_the_mover_as_a_group() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g0", "n 1", "k 9c"]);
    feed(&mut s, &["c ow-1", "c g4", "c g1", "k 8s", "n 0", "c no"]);
    assert_asking(&s, "Wyatt shoots 6 at Doc (8s, overwatch -2)");
    feed(&mut s, &["c none", "d 2"]);
    assert!(logged(&s, "Doc stops where he was hit"));
    assert_eq!(lives(&s, "Doc"), 4);
    assert_eq!(lives(&s, "Kid"), 6);
}

#[test]
fn with_three_gangs_a_third_may_fire_at_a_gunman_firing_on_overwatch() {
    let mut s = three_gangs();
    // Red's Doc shoots Wyatt; Blue's Virgil fires back on overwatch.
    feed(
        &mut s,
        &[
            "c shoot", "c g1", "c g4", "k As", "n 0", "c no", "c no", "c none", "d 1",
        ],
    );
    feed(
        &mut s,
        &["c ow-1", "c g5", "k 9s", "n 0", "c no", "c none", "d 1"],
    );
    assert_eq!(lives(&s, "Doc"), 5);
    // Virgil fired: Green (not Red, whose go it is) may fire at him.
    assert_asking(&s, "Virgil fired: does anyone fire on overwatch?");
    assert_asking(&s, "Green fires on overwatch");
    assert!(!asking(&s).contains("Red fires"), "{}", asking(&s));
    feed(
        &mut s,
        &["c ow-2", "c g8", "k 7d", "n 0", "c no", "c none", "d 3"],
    );
    assert_eq!(lives(&s, "Virgil"), 3);
    // A fired too: Blue may answer him. Nobody does, nor fires again at
    // Virgil; then back to whether anyone fires at Doc again.
    assert_asking(&s, "A fired: does anyone fire on overwatch?");
    assert_asking(&s, "Blue fires on overwatch");
    feed(&mut s, &["c none"]);
    assert_asking(&s, "Virgil fired: does anyone fire on overwatch?");
    feed(&mut s, &["c none"]);
    assert_asking(&s, "Doc fired: does anyone fire on overwatch?");
}

#[test]
fn a_group_mate_may_still_be_shot_once_the_mover_is_out() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g0", "n 1", "k 9c"]);
    feed(
        &mut s,
        &[
            "c ow-1", "c g4", "c g0", "k As", "n 0", "c no", "c none", "d 6",
        ],
    );
    assert_eq!(lives(&s, "Kid"), 0);
    assert!(logged(&s, "Kid loses his last 6 lives and is out"));
    assert_asking(
        &s,
        "Kid is out: does anyone fire on overwatch at a gang mate who moved with him?",
    );
    feed(
        &mut s,
        &[
            "c ow-1", "c g5", "c g1", "k Ks", "n 0", "c no", "c none", "d 2",
        ],
    );
    assert_eq!(lives(&s, "Doc"), 4);
}

#[test]
fn a_card_is_played_once_a_turn_the_initiative_card_included() {
    let mut s = begin(&setup(false));
    feed(&mut s, &["ok", "k 9h", "k Ad"]);
    // Blue (Ad) goes first; its initiative card cannot be its shooting card.
    feed(&mut s, &["c shoot", "c g4", "c g0", "k Ad"]);
    assert!(logged(&s, "Ad has been played this turn already"));
    assert_asking(&s, "play a Spade or Diamond");
    feed(&mut s, &["k Kd"]);
    assert_asking(&s, "How many pieces of cover");
    // Red's own initiative card is refused as its save too.
    feed(&mut s, &["n 0", "c no", "c no", "c save", "k 9h"]);
    assert!(logged(&s, "9h has been played this turn already"));
}

#[test]
fn a_move_may_not_name_one_card_twice() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &["c move", "c g1", "n 2", "k 8c 8c"]);
    assert!(logged(&s, "8c is named twice"));
    assert_asking(&s, "Show the cards Doc moves with");
}

#[test]
fn no_fan_shot_question_once_both_jokers_are_played() {
    let mut s = begin(&setup(false));
    feed(&mut s, &["ok", "k XR", "k 4c"]);
    // Red bid one Joker; Kid fans with the other.
    feed(
        &mut s,
        &["c shoot", "c g0", "c g4", "k 9s", "n 0", "c no", "c no"],
    );
    assert_asking(&s, "Does Kid add a Joker to fan the pistol?");
    feed(
        &mut s,
        &["c yes", "k XB", "c none", "d 1", "c none", "d 1", "c none"],
    );
    // Both Jokers are out: Ike's shot asks no fan question.
    feed(
        &mut s,
        &["c shoot", "c g2", "c g5", "k 8s", "n 0", "c no", "c no"],
    );
    assert!(!asking(&s).contains("fan the pistol"), "{}", asking(&s));
    assert_asking(&s, "Ike shoots 8 at Virgil");
}

#[test]
fn a_hand_holds_five_cards_the_bid_included() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    assert_asking(&s, "Red's go: play a card (4 in hand)");
    feed(&mut s, &["c move", "c g0"]);
    // The bid has left the hand: four cards at most for the opening move.
    assert!(s.apply(Event::Answer(answer("n 5"))).is_err());
    feed(&mut s, &["n 4", "k 2c 3c 4c 5c", "c none"]);
    assert_asking(&s, "Red's go: every card of the hand is played");
    assert!(!asking(&s).contains("Shoot"), "{}", asking(&s));
    feed(&mut s, &["c done"]);
    assert!(logged(&s, "Red ends its go"), "{:?}", s.state().log);
    assert!(!logged(&s, "Red ends its go ("));
    // Blue shoots Kid, who has no card left to save with.
    feed(
        &mut s,
        &["c shoot", "c g4", "c g0", "k As", "n 0", "c no", "c no"],
    );
    assert_asking(&s, "No save (every card of the hand is played)");
    assert!(!asking(&s).contains("Play a save"), "{}", asking(&s));
}

#[test]
fn a_fan_shot_that_takes_its_target_out_may_turn_on_another() {
    let fan = [
        "c shoot", "c g0", "c g6", "k Ts", "n 0", "c no", "c no", "c yes", "k XB",
    ];
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &fan);
    feed(&mut s, &["c none", "d 6"]);
    assert_eq!(lives(&s, "Morgan"), 0);
    assert_asking(
        &s,
        "Morgan is out: does Kid fire the fan-shot's other shot at someone else?",
    );
    feed(&mut s, &["c g5", "c none"]);
    // The damage question says what the roll does.
    assert_asking(
        &s,
        "Damage to Virgil: roll 1 die, he loses that many lives (6 left)",
    );
    feed(&mut s, &["d 3"]);
    assert!(logged(&s, "Virgil loses 3 lives: 3 left"));
    // Said once, in lives: no generic "takes 3 wounds" line beside it.
    assert!(!logged(&s, "Virgil takes"), "{:?}", s.state().log);
    assert_eq!(lives(&s, "Virgil"), 3);
    // Or the shot is held, and the log says so.
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    feed(&mut s, &fan);
    feed(&mut s, &["c none", "d 6", "c hold"]);
    assert!(logged(
        &s,
        "Morgan is out: Kid holds the fan-shot's other shot"
    ));
    assert_asking(&s, "Kid fired: does anyone fire on overwatch?");
}

#[test]
fn a_played_out_hand_is_offered_no_cut_in_and_no_overwatch_fire() {
    let mut s = three_gangs();
    // Red's Doc shoots Green's A four times; Green saves with four Hearts
    // and so plays out its hand (the bid was the fifth card).
    for (shot, save) in [("As", "2h"), ("Ks", "3h"), ("Qs", "4h"), ("Js", "5h")] {
        let (shot, save) = (format!("k {shot}"), format!("k {save}"));
        feed(&mut s, &["c shoot", "c g1", "c g8", &shot, "n 0", "c no"]);
        feed(&mut s, &["c no", "c save", &save, "d 1", "c none"]);
    }
    // Red has played out its hand too: its go can only end.
    assert_asking(&s, "Red's go: every card of the hand is played");
    feed(&mut s, &["c done"]);
    // Still asked (older saves answered it; the window takes the lone
    // option by itself), but Green is not offered a cut-in, and an older
    // save's cut-in there reads as Blue's go.
    assert_eq!(only_option(&s).as_deref(), Some("next"));
    let before_cut_in = s.clone();
    let mut old = s.clone();
    feed(&mut s, &["c next"]);
    feed(&mut old, &["c joker-2"]);
    assert_eq!(old.state(), s.state());
    // Or chosen by the label it had.
    let mut old = before_cut_in;
    feed(&mut old, &["c Green cuts in with a Joker (no card left)"]);
    assert_eq!(old.state(), s.state());
    assert_asking(&s, "Blue's go");
    // Blue's Virgil moves: Green has no card to fire on overwatch with.
    feed(&mut s, &["c move", "c g5", "c yes", "k 8c"]);
    assert_asking(&s, "Virgil moved: does anyone fire on overwatch?");
    assert_eq!(only_option(&s).as_deref(), Some("none"));
    // An older save's fire by Green (then refused) is followed by a second
    // answer to the same question: both still replay, to the same question.
    let mut old = s.clone();
    feed(&mut s, &["c none"]);
    feed(&mut old, &["c ow-2"]);
    assert_asking(&old, "Virgil moved: does anyone fire on overwatch?");
    assert!(logged(&old, "no card left cannot fire on overwatch"));
    feed(
        &mut old,
        &["c Green fires on overwatch (no card left)", "c none"],
    );
    assert_eq!(asking(&old), asking(&s));
    assert_eq!(lives(&old, "Virgil"), lives(&s, "Virgil"));
}

#[test]
fn the_fan_question_after_the_last_card_offers_no_joker() {
    let mut s = begin(&setup(false));
    feed(&mut s, &RED_FIRST);
    for card in ["Ts", "Js", "Qs", "Ks"] {
        let card = format!("k {card}");
        feed(
            &mut s,
            &["c shoot", "c g0", "c g6", &card, "n 0", "c no", "c no"],
        );
        assert_asking(&s, "Does Kid add a Joker to fan the pistol?");
        if card != "k Ks" {
            feed(&mut s, &["c no", "c none", "d 1", "c none"]);
        }
    }
    // The shooting card was the hand's last: asked as before (the window
    // takes the lone option), "No" alone; an older save's "yes" reads as no.
    assert_eq!(only_option(&s).as_deref(), Some("moot"));
    let mut old = s.clone();
    feed(&mut s, &["c no"]);
    feed(&mut old, &["c yes"]);
    assert_eq!(old.state(), s.state());
    assert_asking(&s, "Kid shoots 10 at Morgan (Ks)");
}

#[test]
fn a_fan_shot_that_wins_the_game_asks_nothing_more() {
    let duel = GameSetup {
        gangs: vec![
            gang("Red", BackColour::Red, "Kid"),
            gang("Blue", BackColour::Blue, "Morgan"),
        ],
        civilians: false,
        question_order: 0,
    };
    let spec = ProcedureSpec::Gunfight(duel);
    let mut s = begin_game_with(GameId::Gunfight, spec, 11, &[("gang_size", 1)]);
    feed(&mut s, &RED_FIRST);
    feed(
        &mut s,
        &[
            "c shoot", "c g1", "k Ts", "n 0", "c no", "c no", "c yes", "k XB",
        ],
    );
    feed(&mut s, &["c none", "d 6"]);
    assert_eq!(outcome(&s).winner, Some(0));
    assert!(!asking(&s).contains("other shot"), "{}", asking(&s));
}
