//! Whole Gentlemen of War flows driven by answers, as at the table.

use super::{AP, BandSetup, GameSetup, parse_units};
use crate::rules::ProcedureSpec;
use crate::rules::games::{GameId, Library};
use crate::rules::session::Session;
use crate::rules::state::Unit;
use crate::rules::testkit::{answer, asking, assert_asking, begin_game, feed, logged};
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
        // The first order, as the scripts and older saves answer it.
        question_order: 0,
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
fn equal_bands_roll_off_for_who_chooses_the_deployment() {
    let mut s = begin_with("Sharpe:rifleman Harper:grenadier", "Jean:line Pierre:line");
    // Said in words, not by the rule's id.
    assert_asking(&s, "Red rolls 1 die for who chooses the deployment");
    feed(&mut s, &["d 5", "d 2"]);
    assert_asking(
        &s,
        "Red won the roll-off (both have 2 models): deploy first, or act first?",
    );
}

#[test]
fn the_smaller_band_chooses_and_activation_alternates() {
    let mut s = begin();
    assert_asking(
        &s,
        "Red has fewer models (2 to 3): deploy first, or act first?",
    );
    feed(&mut s, &["c deploy-second"]);
    // The choice is in the log before the bands deploy.
    assert!(logged(
        &s,
        "Red chooses: Blue deploys first, Red activates first every turn"
    ));
    feed(&mut s, &["ok"]);
    assert_asking(&s, "Red: activate which unit?");
    feed(&mut s, &["c Sharpe (0/2 wounds)"]);
    assert!(logged(&s, "Sharpe activates with 3 action point(s)"));
    // Said once: the points themselves are bookkeeping, out of the log.
    assert!(!logged(&s, "action points now"));
    assert_eq!(unit(&s, "Sharpe").stat(AP), 3);
    assert_eq!(unit(&s, "Pierre").wounds_per_soldier, 2);
}

/// Red (fewer models) chooses to activate first; Sharpe is up.
/// Red lets Blue deploy first, both deploy, and Sharpe activates.
const SHARPE_UP: [&str; 3] = ["c deploy-second", "ok", "c u0"];

fn sharpe_up() -> Session {
    let mut s = begin();
    feed(&mut s, &SHARPE_UP);
    s
}

/// The ids of the options offered now.
fn offered(s: &Session) -> String {
    s.pending().map(|r| format!("{r:?}")).unwrap_or_default()
}

#[test]
fn a_shot_with_nobody_in_reach_spends_nothing() {
    let mut s = sharpe_up();
    assert_asking(&s, "3 action point(s) left");
    let ammo = unit(&s, "Sharpe").stat(super::AMMO);
    feed(&mut s, &["c rifle-fire"]);
    // A ranged attack may aim at anyone: what stops it is sight (l.166).
    assert!(
        asking(&s).contains("No target in sight (nothing spent)"),
        "{}",
        asking(&s)
    );
    feed(&mut s, &["c none"]);
    assert!(logged(
        &s,
        "Sharpe's Rifle: Fire: no target in sight, nothing spent"
    ));
    assert_asking(&s, "3 action point(s) left");
    assert_eq!(unit(&s, "Sharpe").stat(super::AMMO), ammo);
    // With a target, the draw's modifiers are named with their signs.
    let mut aimed = sharpe_up();
    feed(&mut aimed, &["c rifle-fire", "c u3", "n 0"]);
    assert_asking(
        &aimed,
        "Cards drawn more (+) or fewer (-) against Pierre: cover, range past optimal (1 card fewer per hex beyond 10), Block, Stalk (",
    );
    assert!(offered(&s).contains("rifle-fire"), "{}", offered(&s));
}

/// Audit BQ Q3: against a mounted unit the modifier question names
/// Cavalry Killer (l.120).
#[test]
fn the_draw_against_a_mounted_unit_names_cavalry_killer() {
    let mut s = begin_with(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:dragoon Luc:officer",
    );
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &["c rifle-fire", "c u3", "n 0"]);
    assert_asking(&s, "Cards drawn more (+) or fewer (-) against Pierre:");
    assert_asking(&s, "Stalk, Cavalry Killer (the target is mounted)");
}

#[test]
fn a_skill_check_buys_one_effect_and_wounds_stop_at_deaths_door() {
    let mut s = sharpe_up();
    // Rifle: Fire draws Diamonds (4); the check costs one action point.
    // The target is named before the draw.
    feed(
        &mut s,
        &["c rifle-fire", "c u3", "n 0", "n 0", "k 7d 3d 9d 2s"],
    );
    assert!(
        logged(
            &s,
            "Sharpe uses Rifle: Fire (♦) against Pierre: draws 4 (4 from diamonds"
        ),
        "{:?}",
        s.state().log
    );
    // The round is spent, said once (audit BB C2).
    assert!(logged(&s, "Sharpe fires a round (0 of 1 loaded)"));
    assert!(!logged(&s, "ammunition now"));
    assert_asking(&s, "buy an effect");
    // Three diamonds buy "2 wounds"; Pierre has Spades 1, so the first wound
    // puts him at Death's Door and the second is not taken.
    feed(&mut s, &["c o1"]);
    assert_eq!(unit(&s, "Pierre").wounds(), 1);
    assert!(logged(
        &s,
        "Pierre is at Death's Door (the hit's 1 other wound stops there)"
    ));
    // Not Multichoice: the 7d left over buys nothing more.
    assert_asking(&s, "2 action point(s) left");
    assert_eq!(unit(&s, "Sharpe").stat(super::AMMO), 0);
    // The rifle is empty (and Fire is used): no second Fire is offered.
    assert!(!offered(&s).contains("rifle-fire"), "{}", offered(&s));
    // The drawn cards are on Red's discard pile.
    assert_eq!(s.state().decks[0].discard_pile.len(), 4);
}

/// Spades 0 (l.61: never more wounds than Spades): at Death's Door from the
/// start, so the first wound takes the unit out, as the setup form warns.
#[test]
fn a_unit_with_spades_0_is_out_at_its_first_wound() {
    let mut s = begin_with(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:line:s0 Luc:officer",
    );
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &["c rifle-fire"]);
    assert!(
        asking(&s).contains("Pierre (0/0 wounds, Death's Door)"),
        "{}",
        asking(&s)
    );
    feed(&mut s, &["c u3", "n 0", "n 0", "k 7d 3d 9d 2s", "c o0"]);
    assert!(logged(&s, "Pierre was at Death's Door: out of action"));
    assert!(!unit(&s, "Pierre").in_play());
}

#[test]
fn a_wound_at_deaths_door_takes_the_unit_out_of_action() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &[
            "c rifle-fire",
            "c u3",
            "n 0",
            "n 0",
            "k 7d 3d 9d 2s",
            "c o1",
            "c end",
        ],
    );
    feed(&mut s, &["c u2", "c end"]);
    // Harper's bayonet (Hearts 3, one fewer for the fixed bayonet): 4h buys
    // 1 wound on Pierre.
    feed(
        &mut s,
        &["c bayonet", "c u3", "n 0", "n 0", "k 4h 5c", "c o0"],
    );
    assert!(logged(&s, "Pierre was at Death's Door: out of action"));
    assert!(!unit(&s, "Pierre").in_play());
    // The melee the hit started ends with Pierre out of action.
    assert!(!unit(&s, "Harper").has(super::IN_MELEE));
    assert!(offered(&s).contains("musket-fire"), "{}", offered(&s));
}

/// Sharpe and Jean pass; Harper (Hearts 3, 1 point left after the check)
/// hits Jean with his bayonet (2 cards: one fewer for the fixed bayonet).
fn harper_hits_jean() -> Session {
    let mut s = sharpe_up();
    feed(&mut s, &["c end", "c u2", "c end"]);
    feed(
        &mut s,
        &["c bayonet", "c u2", "n 0", "n 0", "k 4h 5c", "c o0"],
    );
    assert!(
        logged(
            &s,
            "draws 2 (3 from hearts, -1 fixed bayonet, +0 action points, +0 modifiers)"
        ),
        "{:?}",
        s.state().log
    );
    s
}

#[test]
fn a_melee_hit_pairs_both_units_until_they_move_apart() {
    let mut s = harper_hits_jean();
    assert!(logged(&s, "Harper and Jean are in melee"));
    assert!(unit(&s, "Harper").has(super::IN_MELEE));
    assert!(unit(&s, "Jean").has(super::IN_MELEE));
    // In melee: no ranged ability, and no free way out.
    assert!(!offered(&s).contains("musket-fire"), "{}", offered(&s));
    assert!(!offered(&s).contains("leave-melee"), "{}", offered(&s));
    // Moving away is a Dash (its point and cards); then the table says
    // whether the two are out of reach, which ends the melee for both.
    feed(&mut s, &["c dash"]);
    assert_asking(
        &s,
        "only at an enemy within as many hexes as the cards you will draw",
    );
    feed(&mut s, &["c none"]);
    assert_asking(&s, "Cards drawn more (+) or fewer (-): Mobility Drills");
    feed(&mut s, &["n 0", "k 2c 3c", "c o0", "c none"]);
    assert_asking(
        &s,
        "Are Harper and Jean now out of each other's melee reach?",
    );
    feed(&mut s, &["c yes"]);
    assert!(!unit(&s, "Harper").has(super::IN_MELEE));
    assert!(!unit(&s, "Jean").has(super::IN_MELEE));
}

#[test]
fn a_unit_the_table_put_out_of_reach_is_no_melee_target_until_a_move() {
    // Luc's sabre may be used again in one activation (drawing one fewer).
    let mut s = begin_with(
        "Sharpe:rifleman Luc:officer:c5",
        "Jean:line Pierre:line Marc:line",
    );
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &["c end", "c u2", "c end"]);
    feed(
        &mut s,
        &["c sabre", "c u2", "n 0", "n 0", "k 4h 5c", "c o0"],
    );
    assert!(logged(&s, "Luc and Jean are in melee"));
    // Luc dashes away from Jean, and the table says they are apart.
    feed(
        &mut s,
        &[
            "c dash", "c none", "n 0", "n 0", "k 2c 3c", "c o0", "c none",
        ],
    );
    feed(&mut s, &["c yes"]);
    feed(&mut s, &["c sabre"]);
    assert_asking(&s, "Luc's Sabre: on whom?");
    assert!(!offered(&s).contains("Jean"), "{}", offered(&s));
    assert!(offered(&s).contains("Pierre"), "{}", offered(&s));
    // What the table said holds for Luc's activation only (Luc is unit 1,
    // Jean 2): by the next one either may have moved.
    assert_eq!(s.state().counter("apart:1:2"), 1);
    feed(&mut s, &["c none", "c end", "c u3"]);
    assert_eq!(s.state().counter("apart:1:2"), 0);
}

#[test]
fn a_knockback_may_end_every_melee_of_the_unit_knocked_back() {
    let mut s = harper_hits_jean();
    // Pierre strikes Harper and knocks him back: Harper's melee with Jean
    // may be over too, not only the one with Pierre. Pierre's Hearts 2 less
    // the bayonet's card, plus 1 the table gives (a charge bonus), draw 2.
    feed(
        &mut s,
        &["c end", "c u3", "c bayonet", "c u1", "n 0", "n 1"],
    );
    // Harper's Armour Check draws one card; the blow lands.
    feed(&mut s, &["k 7h 8s", "c o2", "k 9c"]);
    assert!(
        logged(&s, "Pierre and Harper are in melee"),
        "{}",
        asking(&s)
    );
    assert_asking(
        &s,
        "Are Harper and Jean now out of each other's melee reach?",
    );
    feed(&mut s, &["c yes"]);
    assert_asking(
        &s,
        "Are Harper and Pierre now out of each other's melee reach?",
    );
    feed(&mut s, &["c no"]);
    assert!(!unit(&s, "Jean").has(super::IN_MELEE));
    assert!(unit(&s, "Pierre").has(super::IN_MELEE));
    assert!(logged(&s, "Harper and Jean are out of melee"));
    assert!(logged(&s, "Harper and Pierre are still in melee"));
}

/// Harper dashes two hexes, declaring a charge at Jean.
const HARPER_CHARGES_JEAN: [&str; 8] = [
    "c dash",
    "c u2",
    "n 1",
    "n 0",
    "k 2c 3c 4c",
    "c o0",
    "c o0",
    "c none",
];

#[test]
fn a_charge_alone_starts_no_melee() {
    let mut s = sharpe_up();
    feed(&mut s, &["c end", "c u2", "c end"]);
    // The charge question says how many cards the dash draws as it stands.
    feed(&mut s, &["c dash"]);
    assert_asking(
        &s,
        "cards you will draw: 2 before extra points and modifiers",
    );
    feed(&mut s, &["c u2"]);
    assert!(logged(&s, "Harper declares a charge at Jean"));
    // Harper dashes and charges Jean: the charge reaches him, no attack yet.
    feed(&mut s, &HARPER_CHARGES_JEAN[2..]);
    feed(&mut s, &["c yes"]);
    assert!(logged(&s, "Harper's charge reaches Jean"));
    assert!(!unit(&s, "Harper").has(super::IN_MELEE));
    assert!(!unit(&s, "Jean").has(super::IN_MELEE));
}

/// From question order 1 a Dash's charge is declared after its extra
/// points and modifiers, so the question says how far it may reach (audit
/// AC3: the player added 3 + 2 in his head).
#[test]
fn the_charge_is_declared_once_the_draw_is_known() {
    let mut setup = setup(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:line:s1 Luc:officer",
    );
    setup.question_order = super::QUESTION_ORDER;
    let mut s = crate::rules::testkit::begin_game(
        GameId::GentlemenOfWar,
        ProcedureSpec::Gentlemen(setup),
        3,
    );
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &["c end", "c u2", "c end", "c dash"]);
    assert_asking(&s, "extra action points to spend on draws");
    feed(&mut s, &["n 1", "n 1"]);
    assert_asking(
        &s,
        "only at an enemy within as many hexes as the cards you will draw: 4)",
    );
    feed(&mut s, &["c u2"]);
    assert!(logged(&s, "Harper declares a charge at Jean"));
    assert_asking(&s, "Red draws 4");
}

/// A melee attack on the unit a charge reached this activation may add the
/// charge bonus, and the question says so; on another unit it may not
/// (audit AC2: every melee question named a charge bonus).
#[test]
fn a_charge_bonus_is_offered_only_against_the_unit_charged() {
    let mut s = begin_with(
        "Sharpe:rifleman Harper:grenadier:c4",
        "Jean:line Pierre:line:s1 Luc:officer",
    );
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &["c end", "c u2", "c end"]);
    feed(&mut s, &HARPER_CHARGES_JEAN);
    feed(&mut s, &["c yes", "c bayonet"]);
    let mut other = s.clone();
    feed(&mut s, &["c u2", "n 0"]);
    assert_asking(&s, "the charge bonus of the charge that reached it");
    feed(&mut other, &["c u3", "n 0"]);
    assert_asking(
        &other,
        "no charge bonus: no charge reached this target this activation",
    );
}

#[test]
fn cards_not_in_the_draw_pile_are_refused() {
    let mut s = sharpe_up();
    feed(&mut s, &["c rifle-fire", "c u2", "n 0", "n 0"]);
    let refused = s.apply(crate::rules::session::Event::Answer(answer(
        "k 7d 7d 7d 7d",
    )));
    let e = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.contains("7d is named 4 times"), "{e}");
    // Nothing happened: the draw is still asked for, the deck is whole.
    assert_asking(&s, "Red draws 4");
    assert_eq!(s.state().decks[0].len(), 54);
    assert_eq!(unit(&s, "Jean").wounds(), 0);
}

#[test]
fn a_multichoice_ability_hits_the_one_target_named_before_drawing() {
    let mut s = sharpe_up();
    feed(&mut s, &["c end", "c u4", "c sabre"]);
    assert_asking(&s, "Luc's Sabre: on whom?");
    // A melee draw lists only what touches melee: no cover, range or Stalk.
    let mut asked = s.clone();
    feed(&mut asked, &["c u0", "n 0"]);
    assert_asking(
        &asked,
        "Cards drawn more (+) or fewer (-) against Sharpe: Block, Parry (no charge bonus",
    );
    feed(&mut s, &["c u0", "n 0", "n 0", "k Jh 9h", "c o2"]);
    // No second "on whom?": the next question is the next purchase.
    assert_asking(&s, "Luc's Sabre with [Jh]: buy an effect");
    feed(&mut s, &["c o0"]);
    // Both wounds land on Sharpe.
    assert_eq!(unit(&s, "Sharpe").wounds(), 2);
    assert_eq!(unit(&s, "Jean").wounds(), 0);
}

#[test]
fn a_target_out_of_action_takes_no_more_effects() {
    let mut s = begin_with(
        "Sharpe:rifleman:s1 Harper:grenadier",
        "Jean:line Pierre:line:s1 Luc:officer",
    );
    feed(&mut s, &SHARPE_UP);
    // Luc's Sabre puts Sharpe (Spades 1) at Death's Door, then, reused,
    // takes him out of action with the first effect bought.
    feed(
        &mut s,
        &[
            "c end", "c u4", "c sabre", "c u0", "n 0", "n 0", "k 2h 7d", "c o0", "c none",
        ],
    );
    feed(
        &mut s,
        &["c sabre", "c u0", "n 1", "n 0", "k 3h 8d", "c o0"],
    );
    assert!(logged(&s, "Sharpe was at Death's Door: out of action"));
    // The 8d left could buy Immobilize, but there is nobody to immobilize.
    assert!(!offered(&s).contains("Immobilize"), "{}", offered(&s));
}

#[test]
fn the_player_picks_the_paying_cards_when_it_matters() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &[
            "c end", "c u4", "c sabre", "c u0", "n 0", "n 0", "k Jh 9h", "c o0",
        ],
    );
    // 9h or the wild Jack pay ♥; each keeps a different second purchase.
    assert_asking(&s, "1 wound: which cards pay for it?");
    assert!(offered(&s).contains("Pay with Jh"), "{}", offered(&s));
    feed(&mut s, &["c pay1"]);
    assert_asking(&s, "[9h]");
    assert!(offered(&s).contains("pierces 1"), "{}", offered(&s));
}

#[test]
fn each_ace_may_cancel_the_big_joker() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &["c rifle-fire", "c u2", "n 0", "n 0", "k XR As Ad 7d"],
    );
    assert_asking(&s, "discard an Ace to cancel the Big Joker");
    assert!(offered(&s).contains("Discard As"), "{}", offered(&s));
    feed(&mut s, &["c Ad"]);
    assert!(logged(&s, "Red cancels the Big Joker with Ad"));
    assert_asking(&s, "[As 7d]");
}

#[test]
fn the_big_joker_shows_the_known_top_cards_and_reorders_only_them() {
    let mut s = sharpe_up();
    feed(&mut s, &["c rifle-fire", "c u2", "n 0", "n 0"]);
    // Adjutant's own order is followed: the draw takes its top cards.
    let edit = crate::rules::effect::Effect::Restack {
        deck: 0,
        top: "2c 3c 4c XR"
            .split(' ')
            .map(|c| c.parse().unwrap_or_else(|e| panic!("{e}")))
            .collect(),
    };
    s.apply(crate::rules::session::Event::Edit(edit))
        .unwrap_or_else(|e| panic!("{e}"));
    let next: Vec<String> = s.state().decks[0]
        .draw_pile
        .iter()
        .rev()
        .skip(4)
        .take(3)
        .map(|c| c.card.to_string())
        .collect();
    feed(&mut s, &["k 2c 3c 4c XR"]);
    assert_asking(&s, &format!("{} (top first)", next.join(" ")));
    feed(&mut s, &["c rearrange"]);
    // Asked as cards of Red's deck: the window greys out and fades what is
    // not in its draw pile.
    assert!(matches!(
        s.pending().map(|r| &r.ask),
        Some(crate::rules::procedure::Ask::Cards {
            deck: Some(0),
            chosen: true,
            ..
        })
    ));
    // A new order is the player's to choose: no virtual draw answers it.
    assert_eq!(s.virtual_answer(), None);
    // Other cards are refused; the same three in a new order are taken.
    let wrong = if next.contains(&"5c".to_string()) {
        "k 6c 7c 8c"
    } else {
        "k 5c 6c 7c"
    };
    let refused = s.apply(crate::rules::session::Event::Answer(answer(wrong)));
    assert!(refused.is_err());
    let reversed = format!("k {} {} {}", next[2], next[1], next[0]);
    feed(&mut s, &[reversed.as_str()]);
    let top: Vec<String> = s.state().decks[0]
        .draw_pile
        .iter()
        .rev()
        .take(3)
        .map(|c| c.card.to_string())
        .collect();
    assert_eq!(top, [next[2].clone(), next[1].clone(), next[0].clone()]);
}

#[test]
fn load_is_offered_only_when_the_weapon_is_not_full() {
    let mut s = sharpe_up();
    assert!(!offered(&s).contains("rifle-load"), "{}", offered(&s));
    feed(
        &mut s,
        &["c rifle-fire", "c u2", "n 0", "n 0", "k 2h 3h 4h 5h"],
    );
    assert!(offered(&s).contains("rifle-load"), "{}", offered(&s));
}

#[test]
fn a_spade_in_the_armour_check_stops_the_wounds_and_aces_pierce() {
    let mut s = sharpe_up();
    feed(&mut s, &["c end", "c u2"]);
    // Jean (Diamonds 3) fires at Harper (armour 1): a diamond buys 1 wound.
    feed(
        &mut s,
        &["c musket-fire", "c u1", "n 0", "n 0", "k 5d 2h 3c", "c o0"],
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
            "c u1",
            "n 0",
            "n 0",
            "k Ad 4c",
            "c o0",
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
        &[
            "c u4",
            "c pistol-fire",
            "c u1",
            "n 3",
            "n 0",
            "k 8d 6s 2c 3h 4h",
        ],
    );
    assert!(logged(&s, "draws 5 (2 from diamonds, +3 action points"));
    feed(&mut s, &["c o1"]);
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
    feed(
        &mut s,
        &["c rifle-fire", "c u2", "n 0", "n 0", "k 2h 3h 4h 5h"],
    );
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
    // Said once, not also as a stat line (audit BB C2).
    assert!(!logged(&s, "ammunition now"));
    assert_eq!(unit(&s, "Sharpe").stat(super::AMMO), 1);
}

#[test]
fn queens_draw_two_more_and_an_ace_cancels_the_big_joker() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &["c rifle-fire", "c u2", "n 0", "n 0", "k Qd 3h XR As"],
    );
    assert_asking(&s, "discard Qd to draw 2 more");
    let discarded = |s: &crate::rules::session::Session| s.state().decks[0].discard_pile.len();
    let before = discarded(&s);
    feed(&mut s, &["c yes"]);
    // The Queen is on the discard pile at once, not when the ability ends.
    assert_eq!(discarded(&s), before + 1);
    feed(&mut s, &["k 6d 6c"]);
    assert!(logged(&s, "Red discards Qd to draw 2 more"));
    // Read back later, the drawn cards say what they were drawn for.
    assert!(
        logged(
            &s,
            "Drawn from Red's deck for Sharpe's Rifle: Fire (Qd's redraw): 6d 6c"
        ),
        "{:?}",
        s.state().log
    );
    assert_asking(&s, "discard an Ace to cancel the Big Joker");
    feed(&mut s, &["c As"]);
    assert!(logged(&s, "Red cancels the Big Joker with As"));
    // Left to pay with: 3h 6d 6c; 6d buys "1 wound, pierces 1".
    assert_asking(&s, "[3h 6d 6c]");
    feed(&mut s, &["c o0"]);
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
    assert!(logged(
        &s,
        "Red looks at the top 3 cards (Big Joker) and puts them back in a new order"
    ));
}

#[test]
fn the_big_joker_fails_the_action() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &[
            "c rifle-fire",
            "c u2",
            "n 0",
            "n 0",
            "k 7d 8d 9d XR",
            "c keep",
        ],
    );
    assert!(logged(&s, "Big Joker: Sharpe's Rifle: Fire fails"));
    assert_eq!(unit(&s, "Jean").wounds(), 0);
    // The round is spent all the same.
    assert_eq!(unit(&s, "Sharpe").stat(super::AMMO), 0);
}

/// Sharpe ends his activation; Luc commands Jean (a club).
const LUC_COMMANDS_JEAN: [&str; 8] = [
    "c end",
    "c u4",
    "c command",
    "c u2",
    "n 0",
    "n 0",
    "k 5c 2h 3s 4s",
    "c o0",
];

#[test]
fn commanded_units_gain_points_and_suppressed_units_wait() {
    let mut s = sharpe_up();
    feed(&mut s, &LUC_COMMANDS_JEAN);
    assert!(logged(&s, "Jean is commanded: +1"));
    feed(&mut s, &["c end", "c end"]);
    // Blue's pick: the order panel shows Blue picking, not Harper.
    let order = &s.state().activation;
    assert_eq!(order.slots.len(), 1);
    assert_eq!((order.slots[0].side, order.slots[0].unit), (1, None));
    // Blue activates Jean next: he gains the point.
    feed(&mut s, &["c u2"]);
    assert!(logged(&s, "Jean was Commanded: +1 action point(s)"));
    assert!(logged(
        &s,
        "Jean activates with 3 action point(s) (1 more for Commanded)"
    ));
    // Jean's musket suppresses Sharpe (a diamond and a club).
    feed(
        &mut s,
        &["c musket-fire", "c u0", "n 0", "n 0", "k 4d 9c 6h", "c o2"],
    );
    assert!(unit(&s, "Sharpe").has(super::SUPPRESSED));
    feed(&mut s, &["c end", "c end"]);
    // Turn 2: Red must activate Harper first; Sharpe is free again after.
    assert!(logged(&s, "Harper activates"));
    assert!(!logged(&s, "Commanded lapses"));
    assert!(!unit(&s, "Sharpe").has(super::SUPPRESSED));
}

#[test]
fn a_command_on_a_unit_not_activated_next_lapses_with_a_word() {
    let mut s = sharpe_up();
    feed(&mut s, &LUC_COMMANDS_JEAN);
    feed(&mut s, &["c end", "c end"]);
    // Blue activates Pierre, not Jean: Jean's bonus is gone, and said so.
    feed(&mut s, &["c u3"]);
    assert!(logged(
        &s,
        "Jean's Commanded lapses: it was not the unit activated next"
    ));
    assert_eq!(unit(&s, "Jean").stat(super::COMMANDED), 0);
    // The condition's own lines say it all: no bare "commanded now 1" or
    // "now 0" beside them (audit AC5).
    assert!(!logged(&s, "commanded now"), "{:?}", s.state().log);
}

/// Red: Sharpe has Spades 1; Blue shoots him twice in turn 1.
fn red_loses_sharpe() -> Session {
    lose_sharpe(begin_with(
        "Sharpe:rifleman:s1 Harper:grenadier",
        "Jean:line Pierre:line Luc:officer",
    ))
}

fn lose_sharpe(mut s: Session) -> Session {
    feed(&mut s, &["c deploy-second", "ok", "c u0", "c end"]);
    feed(
        &mut s,
        &[
            "c u2",
            "c musket-fire",
            "c u0",
            "n 0",
            "n 0",
            "k 5d 2h 3h",
            "c o0",
            "c end",
        ],
    );
    feed(&mut s, &["c end"]);
    feed(
        &mut s,
        &[
            "c u3",
            "c musket-fire",
            "c u0",
            "n 0",
            "n 0",
            "k 6d 4h 5h",
            "c o0",
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
    assert_asking(&s, "Red draws 3 for the Rout Check");
    feed(&mut s, &["k 2h 3d 4s"]);
    assert!(logged(&s, "Red fails its Rout Check and flees"));
    let outcome = s.state().outcome.clone();
    assert_eq!(outcome.and_then(|o| o.winner), Some(1));
}

/// Audit BB C3: the Big Joker's line names the check in a sentence, once.
#[test]
fn the_big_joker_fails_a_rout_check_in_one_plain_line() {
    let mut s = red_loses_sharpe();
    feed(&mut s, &["k XR Jd 4s", "c keep"]);
    assert!(logged(&s, "Big Joker: Red's Rout Check fails"));
    assert!(!logged(&s, "Big Joker: the Rout Check"));
    assert!(logged(&s, "Red fails its Rout Check and flees"));
}

/// From question order 2 the Big Joker fails a Rout Check whatever else
/// is drawn: no Ace is offered to cancel it (CLARIFICATIONS l.40-41; audit
/// BQ Q1). Games begun before offer it, as they were played.
#[test]
fn no_ace_cancels_the_big_joker_in_a_rout_check() {
    let mut newest = setup(
        "Sharpe:rifleman:s1 Harper:grenadier",
        "Jean:line Pierre:line Luc:officer",
    );
    newest.question_order = super::QUESTION_ORDER;
    let spec = ProcedureSpec::Gentlemen(newest);
    let mut s = lose_sharpe(begin_game(GameId::GentlemenOfWar, spec, 3));
    assert_asking(&s, "Red draws 3 for the Rout Check");
    // From question order 3 the game is over at once: no Joker's peek is
    // asked (audit CH H2).
    feed(&mut s, &["k XR Ad 4s"]);
    assert!(!logged(&s, "cancels the Big Joker"));
    assert!(logged(&s, "Big Joker: Red's Rout Check fails"));
    assert!(logged(&s, "Red fails its Rout Check and flees"));
    assert!(s.pending().is_none() && s.state().outcome.is_some());
    // Begun before, the Ace was offered.
    let mut s = red_loses_sharpe();
    feed(&mut s, &["k XR Ad 4s"]);
    assert_asking(&s, "discard an Ace to cancel the Big Joker?");
}

#[test]
fn a_jack_passes_the_rout_check_as_a_club() {
    let mut s = red_loses_sharpe();
    feed(&mut s, &["k 2h Jd 4s"]);
    assert!(logged(&s, "Red passes its Rout Check (3 card(s), a club)"));
    assert!(s.state().outcome.is_none());
    assert!(logged(&s, "Harper activates"));
}

/// A group that reads l.61 per wound (`hit_wounds_past_deaths_door` 1):
/// Pierre (Spades 1) takes the rifle's 2 wounds and is out of action at once
/// (audit AC1).
#[test]
fn a_hit_may_carry_past_deaths_door_by_house_rule() {
    let spec = ProcedureSpec::Gentlemen(setup(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:line:s1 Luc:officer",
    ));
    let mut s = crate::rules::testkit::begin_game_with(
        GameId::GentlemenOfWar,
        spec,
        3,
        &[("hit_wounds_past_deaths_door", 1)],
    );
    feed(&mut s, &SHARPE_UP);
    feed(
        &mut s,
        &[
            "c rifle-fire",
            "c u3",
            "n 0",
            "n 0",
            "k 7d 3d 9d 2s",
            "c o1",
        ],
    );
    assert!(logged(
        &s,
        "Pierre reaches Death's Door and the hit's next wound takes it out of action"
    ));
    assert!(!unit(&s, "Pierre").in_play(), "{:?}", s.state().log);
}

#[test]
fn a_house_ruled_number_changes_play() {
    // House rule: two clubs to pass a Rout Check.
    let (lib, _) = Library::builtin();
    let mut rs = lib
        .get(GameId::GentlemenOfWar)
        .cloned()
        .unwrap_or_else(|| panic!("no GoW ruleset"));
    rs.numbers.insert("rout_pass_clubs".into(), 2);
    let mut s = Session::new(GameId::GentlemenOfWar, rs, 3);
    let spec = ProcedureSpec::Gentlemen(setup(
        "Sharpe:rifleman:s1 Harper:grenadier",
        "Jean:line Pierre:line Luc:officer",
    ));
    s.apply(crate::rules::session::Event::Begin(spec))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut s = lose_sharpe(s);
    // One club (the Jack) passed by default; now it does not.
    feed(&mut s, &["k 2h Jd 4s"]);
    assert!(logged(&s, "Red fails its Rout Check and flees"));
}

#[test]
fn a_support_ability_heals_a_friendly_unit() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &[
            "c rifle-fire",
            "c u2",
            "n 0",
            "n 0",
            "k 7d 2h 3h 4h",
            "c o0",
            "c end",
        ],
    );
    assert_eq!(unit(&s, "Jean").wounds(), 1);
    // Luc's Command: a club and a heart buy "Heal 1 wound" on his own side.
    feed(&mut s, &["c u4", "c command"]);
    // Command aids its own side: only Blue's units are offered.
    assert_asking(&s, "Command: on whom?");
    assert!(!offered(&s).contains("Sharpe"), "{}", offered(&s));
    feed(&mut s, &["c u2", "n 0"]);
    // Help for one's own side is not asked about attack modifiers.
    assert_asking(
        &s,
        "for Luc's Command on Jean: any rule or upgrade that changes this draw",
    );
    feed(&mut s, &["n 0", "k 5c 2h 3s 4s", "c o1"]);
    // The log line names the user once (audit BF N2).
    assert!(logged(&s, "Luc uses Command (♣) for Jean: draws"));
    assert!(logged(&s, "Jean heals 1 wound"));
    assert_eq!(unit(&s, "Jean").wounds(), 0);
}

/// Audit BB C6: a heal on an unwounded unit is marked as buying nothing.
#[test]
fn a_heal_on_an_unwounded_unit_says_so() {
    let mut s = sharpe_up();
    feed(
        &mut s,
        &["c end", "c u4", "c command", "c u2", "n 0", "n 0"],
    );
    feed(&mut s, &["k 5c 2h 3s 4s"]);
    assert_asking(&s, "buy an effect");
    assert!(
        offered(&s).contains("(Jean has no wounds)"),
        "{}",
        offered(&s)
    );
}

#[test]
fn a_guard_may_intercept_a_charge() {
    // Pierre has Guard (2); Luc has none.
    let mut s = begin_with(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:line:s1i2 Luc:officer",
    );
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &["c end", "c u2", "c end"]);
    // Harper charges Jean; Pierre, on Guard, stops him on the way.
    feed(&mut s, &HARPER_CHARGES_JEAN);
    assert_asking(&s, "Where did Harper's charge at Jean end?");
    assert_asking(&s, "Intercepted by Pierre (Guard 2;");
    assert!(!offered(&s).contains("guard-4"), "{}", offered(&s));
    feed(&mut s, &["c guard-3"]);
    assert!(logged(
        &s,
        "Pierre intercepts Harper's charge and the two are in melee: Harper counts as charging Pierre"
    ));
    assert!(!logged(&s, "Harper's charge reaches Jean"));
    // The guard came to fight: both are in melee (no ranged abilities).
    assert!(unit(&s, "Harper").has(super::IN_MELEE));
    assert!(unit(&s, "Pierre").has(super::IN_MELEE));
    assert!(!unit(&s, "Jean").has(super::IN_MELEE));
}

/// How many cards the pending question asks for.
fn draw_count(s: &Session) -> usize {
    match s.pending().map(|r| &r.ask) {
        Some(crate::rules::procedure::Ask::Cards { count, .. }) => *count as usize,
        other => panic!("not a draw: {other:?}"),
    }
}

/// From question order 3 a Dash that moved nobody (its draw bought no
/// movement) ends its charge without asking where (l.59; audit CH H1).
#[test]
fn a_dash_that_buys_no_move_charges_nobody() {
    let mut newest = setup(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:line Luc:officer",
    );
    newest.question_order = super::QUESTION_ORDER;
    let spec = ProcedureSpec::Gentlemen(newest);
    let mut s = begin_game(GameId::GentlemenOfWar, spec, 3);
    feed(&mut s, &SHARPE_UP);
    feed(
        &mut s,
        &["c end", "c u2", "c end", "c dash", "n 0", "n 0", "c u2"],
    );
    assert!(logged(&s, "Harper declares a charge at Jean"));
    // Hearts and diamonds buy no movement.
    let drawn = format!(
        "k {}",
        ["2h", "3d", "4h", "5d", "6h"][..draw_count(&s)].join(" ")
    );
    feed(&mut s, &[drawn.as_str()]);
    while !s
        .state()
        .log
        .iter()
        .any(|l| l.text.contains("the charge at Jean"))
    {
        let asked = asking(&s);
        assert!(!asked.contains("Where did"), "{asked}");
        match s.pending().map(|r| r.ask.clone()) {
            Some(crate::rules::procedure::Ask::Choose { .. }) => feed(&mut s, &["c none"]),
            other => panic!("{asked}: {other:?}"),
        }
    }
    assert!(logged(
        &s,
        "Harper did not move: the charge at Jean does not go in"
    ));
}

#[test]
fn without_guard_no_one_intercepts_a_charge() {
    let mut s = sharpe_up();
    feed(&mut s, &["c end", "c u2", "c end"]);
    feed(&mut s, &HARPER_CHARGES_JEAN);
    assert_asking(&s, "Where did Harper's charge at Jean end?");
    assert!(!offered(&s).contains("guard-"), "{}", offered(&s));
}

#[test]
fn a_long_range_penalty_may_exceed_six_cards() {
    let mut s = sharpe_up();
    feed(&mut s, &["c rifle-fire", "c u3", "n 0", "n -7"]);
    assert!(
        logged(&s, "draws 0 (4 from diamonds"),
        "{:?}",
        s.state().log
    );
}

#[test]
fn punching_needs_an_empty_hand_and_two_punch_twice_at_full_draw() {
    // Sharpe's rifle fills his hands; Harper (e2) has both hands free.
    let mut s = begin_with(
        "Sharpe:rifleman Harper:grenadier:e2c4",
        "Jean:line Pierre:line:s1 Luc:officer",
    );
    feed(&mut s, &SHARPE_UP);
    assert!(!offered(&s).contains("\"punch\""), "{}", offered(&s));
    feed(&mut s, &["c end", "c u2", "c end"]);
    assert_asking(&s, "Punch (♥, draws 3)");
    assert!(offered(&s).contains("\"punch\""), "{}", offered(&s));
    feed(&mut s, &["c punch", "c u2", "n 0", "n 0", "k 2c 3c 4c"]);
    // The second punch draws as many as the first; there is no third.
    assert_asking(&s, "Punch (♥, draws 3)");
    feed(&mut s, &["c punch", "c u2", "n 0", "n 0", "k 5c 6c 7c"]);
    assert_asking(&s, "Harper: 2 action point(s) left");
    assert_asking(&s, "Bayonet");
    assert!(!offered(&s).contains("\"punch\""), "{}", offered(&s));
}

#[test]
fn a_rider_without_training_draws_less_until_it_dismounts() {
    let mut s = begin_with(
        "Sharpe:rifleman Tarleton:dragoon",
        "Jean:line Pierre:line:s1 Luc:officer",
    );
    feed(&mut s, &["c deploy-second", "ok", "c u1"]);
    // Hearts 3 and Diamonds 2, one fewer each while riding untrained.
    assert_asking(&s, "Sabre (♥, draws 2)");
    assert_asking(&s, "Carbine: Fire (♦, draws 1)");
    // The log says where the draw lost a card (the swing buys nothing).
    feed(&mut s, &["c sabre", "c u2", "n 0", "n 0", "k 2c 3c"]);
    assert!(logged(
        &s,
        "draws 2 (3 from hearts, -1 riding without Mounted Training, +0 action points"
    ));
    assert_asking(&s, "2 action point(s) left");
    feed(&mut s, &["c dismount"]);
    assert!(logged(
        &s,
        "Tarleton dismounts for good: its riding penalty ends"
    ));
    assert!(!logged(&s, "mounted now"), "said once (audit BB C2)");
    // Hearts 3, less one for the Sabre's second use this activation.
    assert_asking(&s, "Sabre (♥, draws 2)");
    assert_asking(&s, "Carbine: Fire (♦, draws 2)");
    assert!(!offered(&s).contains("dismount"), "{}", offered(&s));
    // Dismounting is free.
    assert_asking(&s, "2 action point(s) left");
    // The log's sum adds up: 3 less 1 for the second use.
    feed(&mut s, &["c sabre", "c u2", "n 0", "n 0", "k 4c 5c"]);
    assert!(logged(
        &s,
        "draws 2 (3 from hearts, -1 used earlier this activation, +0 action points"
    ));
}

#[test]
fn setup_letters_cover_hands_mounts_and_rounds() {
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::GentlemenOfWar).cloned();
    let rs = rs.unwrap_or_else(|| panic!("no GoW ruleset"));
    let units = parse_units("Sharpe:rifleman:r3e1m1t1g1", &rs).unwrap_or_else(|e| panic!("{e}"));
    let stats = &units[0].stats;
    for (k, v) in [
        ("ammo", 3),
        ("ammo_max", 3),
        ("empty_hands", 1),
        ("mounted", 1),
        ("mounted_training", 1),
        ("strong", 1),
    ] {
        assert!(stats.contains(&(k.to_string(), v)), "{k} {v}: {stats:?}");
    }
    let err = parse_units("Sharpe:rifleman:x1", &rs)
        .err()
        .unwrap_or_default();
    assert!(err.contains("e empty hands"), "{err}");
}

/// Like [`begin`], with the built-in ruleset edited first.
fn begin_edited(edit: impl FnOnce(&mut crate::rules::ruleset::Ruleset)) -> Session {
    let (lib, _) = Library::builtin();
    let mut rs = lib
        .get(GameId::GentlemenOfWar)
        .cloned()
        .unwrap_or_else(|| panic!("no GoW ruleset"));
    edit(&mut rs);
    let mut s = Session::new(GameId::GentlemenOfWar, rs, 3);
    let spec = ProcedureSpec::Gentlemen(setup(
        "Sharpe:rifleman Harper:grenadier",
        "Jean:line Pierre:line:s1 Luc:officer",
    ));
    s.apply(crate::rules::session::Event::Begin(spec))
        .unwrap_or_else(|e| panic!("{e}"));
    s
}

fn edit_ability<'a>(
    rs: &'a mut crate::rules::ruleset::Ruleset,
    id: &str,
) -> &'a mut crate::rules::ability::Ability {
    let a = rs.abilities.iter_mut().find(|a| a.id == id);
    a.unwrap_or_else(|| panic!("no ability {id}"))
}

#[test]
fn a_multitarget_ability_asks_a_target_for_each_further_option() {
    let mut s = begin_edited(|rs| edit_ability(rs, "sabre").multitarget = true);
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &["c end", "c u4", "c sabre"]);
    feed(&mut s, &["c u0", "n 0", "n 0", "k Jh 9h", "c o2"]);
    // The second purchase may hit someone else.
    feed(&mut s, &["c o0"]);
    assert_asking(&s, "Luc's Sabre: on whom?");
    feed(&mut s, &["c u1"]);
    // Harper's Armour Check: no Spade, the wound stands.
    feed(&mut s, &["k 2h"]);
    assert_eq!(unit(&s, "Sharpe").wounds(), 1);
    assert_eq!(unit(&s, "Harper").wounds(), 1);
}

/// Sharpe dashes a hex, charging nobody.
const SHARPE_DASHES: [&str; 7] = [
    "c dash",
    "c none",
    "n 0",
    "n 0",
    "k 2c 3c 4c 5c",
    "c o0",
    "c none",
];

#[test]
fn a_heavy_weapon_is_not_used_in_an_activation_with_a_move() {
    let mut s = begin_edited(|rs| edit_ability(rs, "rifle-fire").heavy = true);
    feed(&mut s, &SHARPE_UP);
    assert_asking(&s, "Rifle: Fire");
    feed(&mut s, &SHARPE_DASHES);
    assert!(!offered(&s).contains("rifle-fire"), "{}", offered(&s));
}

/// The example roster has a Heavy weapon, so Heavy and Strong are played
/// without editing a file (audit AC7): the Volley Gunner's gun is offered,
/// and not after a Dash that moved him.
#[test]
fn the_example_volley_gunner_carries_a_heavy_weapon() {
    let mut s = begin_with(
        "Sharpe:volley-gunner Harper:grenadier",
        "Jean:line Pierre:line:s1 Luc:officer",
    );
    feed(&mut s, &SHARPE_UP);
    assert_asking(&s, "Volley Gun: Fire");
    // Diamonds 3: his Dash draws 3.
    let mut dash = SHARPE_DASHES;
    dash[4] = "k 2c 3c 4c";
    feed(&mut s, &dash);
    // Not offered, and the question says why.
    assert!(!offered(&s).contains("volley-gun-fire"), "{}", offered(&s));
    assert_asking(
        &s,
        "(Volley Gun: Fire is Heavy: not after a move this activation)",
    );
}

#[test]
fn a_strong_unit_moves_and_fires_a_heavy_weapon() {
    let mut s = begin_edited(|rs| {
        edit_ability(rs, "rifle-fire").heavy = true;
        let p = rs.profiles.iter_mut().find(|p| p.id == "rifleman");
        p.unwrap_or_else(|| panic!("no rifleman"))
            .stats
            .insert("strong".into(), 1);
    });
    feed(&mut s, &SHARPE_UP);
    feed(&mut s, &SHARPE_DASHES);
    assert_asking(&s, "Rifle: Fire");
}

#[test]
fn reveal_tells_the_player_to_look_at_the_top_cards() {
    let mut s = begin_edited(|rs| {
        let o = &mut edit_ability(rs, "rifle-fire").options[0];
        o.conditions
            .push(crate::rules::ability::Condition::Reveal(2));
    });
    feed(&mut s, &SHARPE_UP);
    feed(
        &mut s,
        &[
            "c rifle-fire",
            "c u3",
            "n 0",
            "n 0",
            "k 7d 3d 9d 2s",
            "c o0",
        ],
    );
    assert!(logged(
        &s,
        "Sharpe: Red looks at the top 2 card(s) of the deck, then puts them back"
    ));
}

#[test]
fn a_dash_that_bought_no_move_does_not_bar_a_heavy_weapon() {
    let mut s = begin_edited(|rs| edit_ability(rs, "rifle-fire").heavy = true);
    feed(&mut s, &SHARPE_UP);
    // The Dash draws but buys nothing: Sharpe has not moved.
    feed(
        &mut s,
        &["c dash", "c none", "n 0", "n 0", "k 2c 3c 4c 5c", "c none"],
    );
    assert_asking(&s, "Rifle: Fire");
}

#[test]
fn a_stray_stop_is_taken_back_at_the_winner_question() {
    let mut s = sharpe_up();
    feed(&mut s, &["c stop"]);
    assert_asking(&s, "who won the scenario?");
    // Going on comes first; the results end the game, so their ids say so
    // and the window keys none of them (audit AO1).
    assert_asking(&s, "[Not yet: go on playing | Red won | Blue won | A draw]");
    let ids: Vec<String> = match s.pending().map(|r| r.ask.clone()) {
        Some(crate::rules::procedure::Ask::Choose { options }) => {
            options.into_iter().map(|o| o.id).collect()
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(ids, ["on", "stop:side0", "stop:side1", "stop:draw"]);
    feed(&mut s, &["c on"]);
    assert!(s.state().outcome.is_none());
    assert_asking(&s, "Sharpe: 3 action point(s) left");
    // A save's answer of that time still reads.
    feed(&mut s, &["c stop", "c side1"]);
    assert_eq!(crate::rules::testkit::outcome(&s).winner, Some(1));
}

#[test]
fn a_unit_typed_with_a_second_colon_group_is_refused_not_cut_short() {
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::GentlemenOfWar).cloned();
    let rs = rs.unwrap_or_else(|| panic!("no GoW ruleset"));
    let e = parse_units("Harper:grenadier:h3:a2", &rs).err();
    let e = e.unwrap_or_else(|| panic!("the armour would be dropped without a word"));
    assert!(e.contains("write the stats as one group"), "{e}");
    assert!(parse_units("Harper:grenadier:h3a2", &rs).is_ok());
}

#[test]
fn a_unit_set_to_clubs_or_spades_0_is_noted_before_play() {
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::GentlemenOfWar).cloned();
    let rs = rs.unwrap_or_else(|| panic!("no GoW ruleset"));
    assert!(super::setup_notes(&setup("Sharpe:rifleman", "Jean:line"), &rs).is_empty());
    let notes = super::setup_notes(&setup("Sharpe:rifleman:c0s0", "Jean:line"), &rs);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[0].contains("Sharpe has Clubs 0"), "{notes:?}");
    assert!(notes[1].contains("Spades 0"), "{notes:?}");
}

#[test]
fn a_unit_with_more_than_two_hands_is_noted_before_play() {
    let (lib, _) = Library::builtin();
    let rs = lib.get(GameId::GentlemenOfWar).cloned();
    let rs = rs.unwrap_or_else(|| panic!("no GoW ruleset"));
    // The officer's pistol and sabre fill both hands: an empty hand is a third.
    let notes = super::setup_notes(&setup("Sharpe:rifleman", "Luc:officer:e1"), &rs);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("Luc holds weapons in 2 hand(s) and has 1 empty: 3 hands"),
        "{notes:?}"
    );
    // One weapon hand and one empty hand is two.
    assert!(super::setup_notes(&setup("Sharpe:rifleman", "Luc:officer:w1e1"), &rs).is_empty());
}
