//! Whole Gentlemen of War flows driven by answers, as at the table.

use super::{BandSetup, GameSetup, parse_units};
use crate::rules::ProcedureSpec;
use crate::rules::games::{GameId, Library};
use crate::rules::session::Session;
use crate::rules::state::Unit;
use crate::rules::testkit::{assert_asking, begin_game, feed, logged};
use crate::table::BackColour;

/// Red and Blue bands typed as in the app (`Name:profile[:stats]`).
fn setup(red: &str, blue: &str) -> GameSetup {
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::GentlemenOfWar).cloned();
    let rs = rs.unwrap_or_else(|| panic!("no GoW ruleset"));
    let band = |name: &str, back, units: &str| BandSetup {
        name: name.into(),
        back,
        units: parse_units(units, &rs).unwrap_or_else(|e| panic!("{e}")),
    };
    GameSetup {
        bands: vec![
            band("Red", BackColour::Red, red),
            band("Blue", BackColour::Blue, blue),
        ],
    }
}

/// Red: Sharpe (u0, rifle, Diamonds 4, Clubs 3), Harper (u1, grenadier,
/// armour 1). Blue: Jean (u2, musket), Pierre (u3, Spades 1), Luc (u4,
/// officer, Clubs 4, pistol).
fn begin() -> Session {
    begin_with(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:line:s1 Luc:officer",
    )
}

fn begin_with(red: &str, blue: &str) -> Session {
    let spec = ProcedureSpec::Gentlemen(setup(red, blue));
    begin_game(GameId::GentlemenOfWar, spec, 3)
}

fn unit<'a>(s: &'a Session, name: &str) -> &'a Unit {
    let u = s.state().units.iter().find(|u| u.name == name);
    u.unwrap_or_else(|| panic!("no unit {name}"))
}

#[test]
fn the_smaller_band_chooses_and_activation_alternates() {
    let mut s = begin();
    assert_asking(&s, "Red has fewer models");
    feed(&mut s, &["c deploy-second", "ok"]);
    assert!(logged(&s, "Red activates first every turn"));
    assert_asking(&s, "Red: activate which unit?");
    feed(&mut s, &["c Sharpe (0/2 wounds)"]);
    assert!(logged(&s, "Sharpe activates with 3 action point(s)"));
    assert_eq!(unit(&s, "Pierre").wounds_per_soldier, 2);
}

/// Red (fewer models) chooses to activate first; Sharpe is up.
fn sharpe_up() -> Session {
    let mut s = begin();
    feed(&mut s, &["c deploy-second", "ok", "c u0"]);
    s
}

/// The ids of the options offered now.
fn offered(s: &Session) -> String {
    s.pending().map(|r| format!("{r:?}")).unwrap_or_default()
}

#[test]
fn a_skill_check_buys_one_effect_and_wounds_stop_at_deaths_door() {
    let mut s = sharpe_up();
    // Rifle: Fire draws Diamonds (4); the check costs one action point.
    feed(&mut s, &["c rifle-fire", "n 0", "n 0", "k 7d 3d 9d 2s"]);
    assert!(
        logged(&s, "draws 4 (4 from diamonds"),
        "{:?}",
        s.state().log
    );
    assert_asking(&s, "buy an effect");
    // Three diamonds buy "2 wounds"; Pierre has Spades 1, so the first wound
    // puts him at Death's Door and the second is not taken.
    feed(&mut s, &["c o1", "c u3"]);
    assert_eq!(unit(&s, "Pierre").wounds(), 1);
    assert!(logged(&s, "Pierre is at Death's Door"));
    // Not Multichoice: the 7d left over buys nothing more.
    assert_asking(&s, "2 action point(s) left");
    assert_eq!(unit(&s, "Sharpe").stat(super::AMMO), 0);
    // The rifle is empty (and Fire is used): no second Fire is offered.
    assert!(!offered(&s).contains("rifle-fire"), "{}", offered(&s));
    // The drawn cards are on Red's discard pile.
    assert_eq!(s.state().decks[0].discard_pile.len(), 4);
}

#[test]
fn a_wound_at_deaths_door_takes_the_unit_out_of_action() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &[
            "c rifle-fire",
            "n 0",
            "n 0",
            "k 7d 3d 9d 2s",
            "c o1",
            "c u3",
            "c end",
        ],
    );
    feed(&mut s, &["c u2", "c end"]);
    // Harper's bayonet (Hearts 3): 4h buys 1 wound on Pierre.
    feed(
        &mut s,
        &["c bayonet", "n 0", "n 0", "k 4h 5c 6s", "c o0", "c u3"],
    );
    assert!(logged(&s, "Pierre was at Death's Door: out of action"));
    assert!(!unit(&s, "Pierre").in_play());
    // A melee hit puts the attacker in melee: no more ranged or checkless.
    assert!(unit(&s, "Harper").has(super::IN_MELEE));
    assert!(offered(&s).contains("leave-melee"), "{}", offered(&s));
    assert!(!offered(&s).contains("musket-load"), "{}", offered(&s));
}

#[test]
fn a_spade_in_the_armour_check_stops_the_wounds_and_aces_pierce() {
    let mut s = sharpe_up();
    feed(&mut s, &["c end", "c u2"]);
    // Jean (Diamonds 3) fires at Harper (armour 1): a diamond buys 1 wound.
    feed(
        &mut s,
        &["c musket-fire", "n 0", "n 0", "k 5d 2h 3c", "c o0", "c u1"],
    );
    // Harper's Armour Check draws 1 card from Red's deck: a spade.
    assert_asking(&s, "Armour Check");
    feed(&mut s, &["k 8s"]);
    assert!(logged(&s, "Harper's armour stops the wounds (1 spade)"));
    assert_eq!(unit(&s, "Harper").wounds(), 0);
    // Harper is Red's only unit left to act: no question.
    feed(&mut s, &["c end", "c end"]);
    // Luc (pistol, Diamonds 2) draws an Ace: it pierces Harper's 1 armour.
    feed(
        &mut s,
        &[
            "c u4",
            "c pistol-fire",
            "n 0",
            "n 0",
            "k Ad 4c",
            "c o0",
            "c u1",
        ],
    );
    assert!(logged(&s, "Harper's armour is pierced: no Armour Check"));
    assert_eq!(unit(&s, "Harper").wounds(), 1);
}

/// Harper has armour 2; Luc (pistol) is up with 4 action points and
/// spends 3 on extra draws: 8d + a spade buy "1 wound, concussion" on
/// Harper, whose Armour Check is pending.
fn luc_shoots_armoured_harper() -> Session {
    let mut s = begin_with(
        "Sharpe:rifleman Harper:grenadier:a2",
        "Jean:line Pierre:line Luc:officer",
    );
    let turn_so_far = [
        "c deploy-second",
        "ok",
        "c u0",
        "c end",
        "c u2",
        "c end",
        "c end",
    ];
    feed(&mut s, &turn_so_far);
    feed(
        &mut s,
        &["c u4", "c pistol-fire", "n 3", "n 0", "k 8d 6s 2c 3h 4h"],
    );
    assert!(logged(&s, "draws 5 (2 from diamonds, +3 action points"));
    feed(&mut s, &["c o1", "c u1"]);
    assert_asking(&s, "Harper's Armour Check");
    s
}

#[test]
fn two_spades_deflect_wounds_and_effects() {
    let mut s = luc_shoots_armoured_harper();
    // A King counts as a spade.
    feed(&mut s, &["k Ks 7s"]);
    assert!(logged(
        &s,
        "Harper's armour deflects the attack (2 spade(s))"
    ));
    assert_eq!(unit(&s, "Harper").wounds(), 0);
    assert_eq!(unit(&s, "Harper").stat(super::CONCUSSION), 0);
}

#[test]
fn one_spade_stops_only_the_wounds() {
    let mut s = luc_shoots_armoured_harper();
    feed(&mut s, &["k Ks 7h"]);
    assert!(logged(&s, "Harper's armour stops the wounds (1 spade)"));
    assert!(logged(&s, "Harper is concussed"));
    assert_eq!(unit(&s, "Harper").wounds(), 0);
    assert_eq!(unit(&s, "Harper").stat(super::CONCUSSION), 1);
}

#[test]
fn checkless_actions_are_paid_over_several_activations() {
    let mut s = sharpe_up();
    // No diamond: nothing can be bought and the ability fails.
    feed(&mut s, &["c rifle-fire", "n 0", "n 0", "k 2h 3h 4h 5h"]);
    assert!(logged(&s, "Sharpe's Rifle: Fire fails"));
    // The two points left go into a 4-point load.
    feed(&mut s, &["c rifle-load", "n 2"]);
    assert!(logged(&s, "(2 of 4)"), "{:?}", s.state().log);
    feed(
        &mut s,
        &["c end", "c u2", "c end", "c end", "c u4", "c end", "c end"],
    );
    // Turn 2: both decks had their discards shuffled back.
    assert!(logged(&s, "Turn 1 is over"));
    assert_eq!(s.state().decks[0].discard_pile.len(), 0);
    feed(&mut s, &["c u0"]);
    assert_asking(&s, "3 action point(s) left");
    assert!(
        offered(&s).contains("2 of 4 point(s) paid"),
        "{}",
        offered(&s)
    );
    feed(&mut s, &["c rifle-load", "n 2"]);
    assert!(logged(&s, "Sharpe completes Rifle: Load"));
    assert!(logged(&s, "Sharpe is loaded (1 of 1)"));
    assert_eq!(unit(&s, "Sharpe").stat(super::AMMO), 1);
}

#[test]
fn queens_draw_two_more_and_an_ace_cancels_the_big_joker() {
    let mut s = sharpe_up();
    feed(&mut s, &["c rifle-fire", "n 0", "n 0", "k Qd 3h XR As"]);
    assert_asking(&s, "discard Qd to draw 2 more");
    feed(&mut s, &["c yes", "k 6d 6c"]);
    assert_asking(&s, "discard As to cancel the Big Joker");
    feed(&mut s, &["c yes"]);
    assert!(logged(&s, "Red cancels the Big Joker with an Ace"));
    // Left to pay with: 3h 6d 6c; 6d buys "1 wound, pierces 1".
    assert_asking(&s, "[3h 6d 6c]");
    feed(&mut s, &["c o0", "c u2"]);
    assert_eq!(unit(&s, "Jean").wounds(), 1);
    // After the action the Big Joker lets Red look at the top 3 cards and
    // put them back in a new order.
    assert_asking(&s, "Big Joker");
    feed(&mut s, &["c rearrange", "k 2c 3c 4c"]);
    let top: Vec<String> = s.state().decks[0]
        .draw_pile
        .iter()
        .rev()
        .take(3)
        .map(|c| c.card.to_string())
        .collect();
    assert_eq!(top, ["2c", "3c", "4c"]);
}

#[test]
fn the_big_joker_fails_the_action() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &["c rifle-fire", "n 0", "n 0", "k 7d 8d 9d XR", "c keep"],
    );
    assert!(logged(&s, "Big Joker: Red's Rifle: Fire fails"));
    assert_eq!(unit(&s, "Jean").wounds(), 0);
    // The round is spent all the same.
    assert_eq!(unit(&s, "Sharpe").stat(super::AMMO), 0);
}

#[test]
fn commanded_units_gain_points_and_suppressed_units_wait() {
    let mut s = sharpe_up();
    feed(&mut s, &["c end"]);
    // Luc commands Jean (a club).
    feed(
        &mut s,
        &[
            "c u4",
            "c command",
            "n 0",
            "n 0",
            "k 5c 2h 3s 4s",
            "c o0",
            "c u2",
        ],
    );
    assert!(logged(&s, "Jean is commanded: +1"));
    feed(&mut s, &["c end", "c end"]);
    // Blue activates Jean next: he gains the point.
    feed(&mut s, &["c u2"]);
    assert!(logged(&s, "Jean was Commanded: +1 action point(s)"));
    assert!(logged(&s, "Jean activates with 3 action point(s)"));
    // Jean's musket suppresses Sharpe (a diamond and a club).
    feed(
        &mut s,
        &["c musket-fire", "n 0", "n 0", "k 4d 9c 2h", "c o2", "c u0"],
    );
    assert!(unit(&s, "Sharpe").has(super::SUPPRESSED));
    feed(&mut s, &["c end", "c end"]);
    // Turn 2: Red must activate Harper first; Sharpe is free again after.
    assert!(logged(&s, "Harper activates"));
    assert!(!unit(&s, "Sharpe").has(super::SUPPRESSED));
}

/// Red: Sharpe has Spades 1; Blue shoots him twice in turn 1.
fn red_loses_sharpe() -> Session {
    let mut s = begin_with(
        "Sharpe:rifleman:s1 Harper:grenadier",
        "Jean:line Pierre:line Luc:officer",
    );
    feed(&mut s, &["c deploy-second", "ok", "c u0", "c end"]);
    feed(
        &mut s,
        &[
            "c u2",
            "c musket-fire",
            "n 0",
            "n 0",
            "k 5d 2h 3h",
            "c o0",
            "c u0",
            "c end",
        ],
    );
    feed(&mut s, &["c end"]);
    feed(
        &mut s,
        &[
            "c u3",
            "c musket-fire",
            "n 0",
            "n 0",
            "k 6d 2h 3h",
            "c o0",
            "c u0",
            "c end",
        ],
    );
    assert!(!unit(&s, "Sharpe").in_play());
    feed(&mut s, &["c end"]);
    s
}

#[test]
fn half_the_band_out_of_action_fails_a_rout_check_without_a_club() {
    let mut s = red_loses_sharpe();
    // Turn 2 opens with Red's Rout Check: three cards.
    assert_asking(&s, "Red draws 3 for Rout Check");
    feed(&mut s, &["k 2h 3d 4s"]);
    assert!(logged(&s, "Red fails its Rout Check and flees"));
    let outcome = s.state().outcome.clone();
    assert_eq!(outcome.and_then(|o| o.winner), Some(1));
}

#[test]
fn a_jack_passes_the_rout_check_as_a_club() {
    let mut s = red_loses_sharpe();
    feed(&mut s, &["k 2h Jd 4s"]);
    assert!(logged(&s, "Red passes its Rout Check (3 card(s), a club)"));
    assert!(s.state().outcome.is_none());
    assert!(logged(&s, "Harper activates"));
}

#[test]
fn a_support_ability_heals_a_friendly_unit() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &[
            "c rifle-fire",
            "n 0",
            "n 0",
            "k 7d 2h 3h 4h",
            "c o0",
            "c u2",
            "c end",
        ],
    );
    assert_eq!(unit(&s, "Jean").wounds(), 1);
    // Luc's Command: a club and a heart buy "Heal 1 wound" on his own side.
    feed(
        &mut s,
        &["c u4", "c command", "n 0", "n 0", "k 5c 2h 3s 4s"],
    );
    feed(&mut s, &["c o1"]);
    assert_asking(&s, "Heal 1 wound on whom?");
    assert!(!offered(&s).contains("Sharpe"), "{}", offered(&s));
    feed(&mut s, &["c u2"]);
    assert!(logged(&s, "Jean heals 1 wound(s)"));
    assert_eq!(unit(&s, "Jean").wounds(), 0);
}
