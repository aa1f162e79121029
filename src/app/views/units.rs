//! The units panel of the play screen: each unit as its game counts it.

use crate::rules::card_activation::FORFEIT;
use crate::rules::card_activation::actions::RoutedTurn;

/// Order of play, units, decks and objectives of the game in progress.
pub(super) fn units_column(
    st: &crate::rules::GameState,
    ruleset: &crate::rules::ruleset::Ruleset,
    ui: &mut egui::Ui,
) {
    // A finished game has no one left to act.
    if !st.activation.slots.is_empty() && st.outcome.is_none() {
        ui.heading("Order of play");
        ui.label(activation_line(st));
    }
    ui.heading("Units");
    // The values behind the counts (move, morale, I and V...) are a hover
    // away: say so, or a newcomer never finds them.
    if st.units.iter().any(|u| stat_block(u, ruleset).is_some()) {
        ui.weak("Hover a unit for its profile.");
    }
    for (i, side) in st.sides.iter().enumerate() {
        ui.strong(&side.name);
        for (id, u) in st.units_of(i) {
            let routed = RoutedTurn::of(st, ruleset, id);
            let engagement = crate::rules::napoleonic::engagement_words(st, id);
            let mut text = unit_line(u, ruleset, routed, engagement);
            if let Some(kit) = equipment_note(u) {
                text.push_str(&format!("; {kit}"));
            }
            // Upgrades are for every player to see (T52 asks them shared).
            if !u.upgrades.is_empty() {
                let names: Vec<&str> = u
                    .upgrades
                    .iter()
                    .map(|id| {
                        ruleset
                            .upgrade(id)
                            .map_or(id.as_str(), |up| up.name.as_str())
                    })
                    .collect();
                text.push_str(&format!("; {}", names.join(", ")));
            }
            let label = ui.label(text);
            if let Some(profile) = stat_block(u, ruleset) {
                label.on_hover_text(profile);
            }
        }
        // Units out of play stay listed (greyed), so a side's losses show.
        let out: Vec<&str> = st
            .units
            .iter()
            .filter(|u| u.side == i && !u.in_play())
            .map(|u| u.name.as_str())
            .collect();
        if !out.is_empty() {
            ui.weak(format!("Out of play: {}", out.join(", ")));
        }
    }
    if !st.decks.is_empty() {
        ui.heading("Decks");
        for d in &st.decks {
            ui.label(format!(
                "{}: {} to draw, {} discarded",
                d.name,
                d.draw_pile.len(),
                d.discard_pile.len()
            ));
        }
    }
    if !st.objectives.is_empty() {
        ui.heading("Objectives");
        for o in &st.objectives {
            let holder = match o.holder {
                crate::rules::state::Holder::Uncaptured => "uncaptured".to_string(),
                crate::rules::state::Holder::Contested => "contested".to_string(),
                crate::rules::state::Holder::Side(i) => format!("held by {}", st.side_name(i)),
            };
            ui.label(format!("{}: {holder}", o.name));
        }
    }
}

/// The activation order, the one acting now in brackets: "Red (9h), [Blue (4c)]".
pub(super) fn activation_line(st: &crate::rules::GameState) -> String {
    let order = &st.activation;
    let parts: Vec<String> = order
        .slots
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let who = match a.unit {
                // A unit gone since the cards were dealt keeps its place,
                // marked, so the order still reads as the table lays it.
                Some(u) if st.units.get(u).is_some_and(|x| !x.in_play()) => {
                    format!("{} (out)", st.unit_name(u))
                }
                Some(u) => st.unit_name(u),
                None => st.side_name(a.side),
            };
            let text = match a.card {
                Some(c) => format!("{who} ({c})"),
                None => who,
            };
            if i == order.next {
                format!("[{text}]")
            } else {
                text
            }
        })
        .collect();
    parts.join(", ")
}

/// A unit as its game counts it: lives for a lone figure, men in ranks and
/// confused where confusion is tracked, soldiers and wounds otherwise.
/// `routed`: what a Card-activation unit that lost its actions to a rout
/// still does this turn; `engagement`: how a Napoleonic unit in an
/// engagement stands (`napoleonic::engagement_words`).
pub(super) fn unit_line(
    u: &crate::rules::state::Unit,
    ruleset: &crate::rules::ruleset::Ruleset,
    routed: RoutedTurn,
    engagement: Option<&str>,
) -> String {
    let name = if u.status.is_empty() {
        u.name.clone()
    } else {
        use crate::rules::napoleonic::{ENGAGED, IN_ENGAGEMENT};
        // Status ids read as words ("in_engagement" -> "in engagement"). A
        // Napoleonic unit engaged this round is in an engagement: its
        // engagement words say how it stands, once (audit AG2).
        let flags: Vec<String> = u
            .status
            .iter()
            .filter(|f| f.as_str() != ENGAGED)
            // Said as what it means for the turn: a unit routed before its
            // card comes up still rallies then; while its card is up the
            // question on screen says what happens.
            .filter_map(|f| match (f.as_str(), routed) {
                (FORFEIT, RoutedTurn::RalliesLater) => {
                    Some("rallies first when its card comes up".to_string())
                }
                (FORFEIT, RoutedTurn::UpNow) => None,
                (FORFEIT, RoutedTurn::Done) => Some("no more actions this turn".to_string()),
                // Its engagement still counts men killed, but a unit no
                // formed enemy holds is said to be free, or the panel
                // reads as locked.
                (IN_ENGAGEMENT, _) => engagement.map(str::to_string),
                _ => Some(f.replace('_', " ")),
            })
            .collect();
        if flags.is_empty() {
            u.name.clone()
        } else {
            format!("{} ({})", u.name, flags.join(", "))
        }
    };
    if let Some(&spades) = u.stats.get(crate::rules::gentlemen::SPADES) {
        return gentleman_line(&name, u, spades, ruleset);
    }
    if let Some(&confused) = u.stats.get(crate::rules::napoleonic::CONFUSED) {
        let men = u.soldiers.len() as i32;
        let ranks = men - confused;
        let word = if ranks == 1 { "man" } else { "men" };
        let mut t = format!(
            "{name}: {ranks} {word} in ranks, {confused} confused, {} lost",
            u.missing()
        );
        if let Some(m) = u.stats.get(crate::rules::napoleonic::SHOT_MARKERS) {
            let markers = if *m == 1 { "marker" } else { "markers" };
            t.push_str(&format!(", {m} shot {markers}"));
        }
        return t;
    }
    // A lone figure (a T52 Snob or Toff, a gunman, a commander) is counted
    // in lives, whatever its number of wounds.
    let mut t = if u.soldiers_at_start == 1 {
        let left = u.wounds_per_soldier.saturating_sub(u.wounds());
        let lives = if u.wounds_per_soldier == 1 {
            "life"
        } else {
            "lives"
        };
        format!("{name}: {left}/{} {lives}", u.wounds_per_soldier)
    } else {
        let wounds = u.wounds();
        format!(
            "{name}: {}/{} soldiers, {wounds} {}",
            u.soldiers.len(),
            u.soldiers_at_start,
            if wounds == 1 { "wound" } else { "wounds" }
        )
    };
    if u.stats.contains_key("actions") {
        t.push_str(&activation_counts(u));
    }
    t
}

/// A T52 unit's weapons and the card that gives them ("black powder (7s)"),
/// which decide the orders it can take; `None` for other units.
pub(super) fn equipment_note(u: &crate::rules::state::Unit) -> Option<String> {
    use crate::rules::t52::regiment::{BLACK_POWDER, MELEE_WEAPONS};
    let kit = if u.stat(MELEE_WEAPONS) > 0 {
        "melee weapons"
    } else if u.stat(BLACK_POWDER) > 0 {
        "black powder"
    } else {
        return None;
    };
    // The odd card gives the weapons (a cavalry's Queen is its mount).
    let paired: Vec<String> = u
        .cards
        .iter()
        .skip(1)
        .filter(|c| c.rank() != Some(crate::table::Rank::Queen))
        .map(|c| c.to_string())
        .collect();
    Some(if paired.is_empty() {
        kit.to_string()
    } else {
        format!("{kit} ({})", paired.join(" "))
    })
}

/// A unit's profile stats as they stand (upgrades included), for hovering
/// its line: "Follower: M 3, A 1, I 6, V 6, W 1, R 9". `None` when its
/// profile has no stats.
pub(super) fn stat_block(
    u: &crate::rules::state::Unit,
    ruleset: &crate::rules::ruleset::Ruleset,
) -> Option<String> {
    let profile = ruleset.profile(&u.profile)?;
    if profile.stats.is_empty() {
        return None;
    }
    // Profile lines are read in the rulebooks' order (Move, Attacks, ...).
    let rank = |k: &String| {
        STAT_ORDER
            .iter()
            .position(|o| o == k)
            .unwrap_or(STAT_ORDER.len())
    };
    let mut keys: Vec<&String> = profile.stats.keys().collect();
    keys.sort_by_key(|k| rank(k));
    let stats: Vec<String> = keys
        .iter()
        .map(|k| {
            // A unit carries only the stats play changes (Napoleonic units
            // none): the rest are the profile's (audit CA N1).
            let value = u.stats.get(*k).or_else(|| profile.stats.get(*k));
            crate::rules::lookup::stat_words(k, value.copied().unwrap_or(0))
        })
        .collect();
    let mut block = format!("{}: {}", profile.name, stats.join(", "));
    // The letters are the rulebook's; say what they stand for.
    let key: Vec<String> = keys
        .iter()
        .filter_map(|k| STAT_KEY.iter().find(|(letter, _)| letter == k))
        .map(|(letter, meaning)| format!("{letter} {meaning}"))
        .collect();
    if !key.is_empty() {
        block.push_str(&format!("\n{}", key.join(", ")));
    }
    Some(block)
}

/// The order T52's profile stats are printed in (Move, Attacks,
/// Inaccuracy, Vulnerability, Wounds, Range); other stats follow by name.
pub(super) const STAT_ORDER: [&str; 6] = ["M", "A", "I", "V", "W", "R"];

/// What T52's profile letters stand for, shown under the stats.
pub(super) const STAT_KEY: [(&str, &str); 6] = [
    ("M", "move (inches)"),
    ("A", "attacks per soldier"),
    ("I", "inaccuracy (a die at or above it hits)"),
    ("V", "vulnerability (a die below it wounds)"),
    ("W", "wounds per soldier"),
    ("R", "range (inches)"),
];

/// A Card-activation unit's turn: actions taken, a charge's free melee, a
/// held Overwatch action, a weapon still being prepped.
pub(super) fn activation_counts(u: &crate::rules::state::Unit) -> String {
    use crate::rules::card_activation as ca;
    // Taken, not left: a unit whose activation ended has lost the rest.
    let mut t = format!(
        "; {} of {} actions taken",
        u.stat(ca::actions::SPENT),
        u.stat("actions")
    );
    if u.stat(ca::actions::FREE_MELEE) > 0 {
        t.push_str(&format!(", {} free melee", u.stat(ca::actions::FREE_MELEE)));
    }
    if u.has(ca::OVERWATCH) && u.stat(ca::HELD) > 0 {
        t.push_str(&format!(", holding {}", u.stat(ca::HELD)));
    }
    if u.stat(ca::PREP_LEFT) > 0 {
        t.push_str(&format!(
            ", weapon ready in {} action(s)",
            u.stat(ca::PREP_LEFT)
        ));
    }
    if u.stat(ca::TASK_LEFT) > 0 {
        t.push_str(&format!(
            ", task done in {} action(s)",
            u.stat(ca::TASK_LEFT)
        ));
    }
    t
}

/// A Gentlemen of War unit: wounds against Spades, the four humours,
/// armour, ammunition and action points.
pub(super) fn gentleman_line(
    name: &str,
    u: &crate::rules::state::Unit,
    spades: i32,
    ruleset: &crate::rules::ruleset::Ruleset,
) -> String {
    use crate::rules::gentlemen as g;
    let w = u.wounds();
    let door = if w as i32 >= spades {
        ", Death's Door"
    } else {
        ""
    };
    let mut t = format!(
        "{name}: {w}/{spades} wounds{door}; ♥{} ♦{} ♣{} ♠{spades}, armour {}",
        u.stat(g::HEARTS),
        u.stat(g::DIAMONDS),
        u.stat(g::CLUBS),
        u.stat(g::ARMOUR)
    );
    if u.stats.contains_key(g::AMMO_MAX) {
        t.push_str(&format!(
            ", ammo {}/{}",
            u.stat(g::AMMO),
            u.stat(g::AMMO_MAX)
        ));
    }
    if u.stat(g::AP) > 0 {
        let ap = u.stat(g::AP);
        let points = if ap == 1 { "point" } else { "points" };
        t.push_str(&format!(", {ap} action {points}"));
    }
    if u.stat(g::GUARD) > 0 {
        t.push_str(&format!(", Guard {}", u.stat(g::GUARD)));
    }
    if u.stat(g::MOUNTED) > 0 {
        t.push_str(", mounted");
    }
    // Conditions waiting for the unit's next activation.
    if u.stat(g::COMMANDED) > 0 {
        t.push_str(&format!(
            ", Commanded (+{} action point(s) if it activates next)",
            u.stat(g::COMMANDED)
        ));
    }
    if u.stat(g::CONCUSSION) > 0 {
        t.push_str(&format!(
            ", Concussed (-{} action point(s) next activation)",
            u.stat(g::CONCUSSION)
        ));
    }
    // Points put into an action that takes several (a rifle's load).
    for (stat, v) in &u.stats {
        if let Some(id) = stat.strip_prefix("paid:")
            && *v > 0
        {
            let ability = ruleset.ability(id).map_or(id, |a| a.name.as_str());
            t.push_str(&format!(", {v} point(s) into {ability}"));
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::{RoutedTurn, equipment_note, stat_block, unit_line};
    use crate::rules::napoleonic::{CONFUSED, ENGAGED, FOUGHT, IN_ENGAGEMENT};
    use crate::rules::state::{Presence, Soldier, Unit};

    /// A Napoleonic unit its engagement holds, as the panel is told.
    const HELD: Option<&str> = Some("in engagement, cannot move");

    fn napoleonic() -> crate::rules::ruleset::Ruleset {
        let (lib, _) = crate::rules::games::Library::builtin();
        let rs = lib.get(crate::rules::games::GameId::Napoleonic).cloned();
        rs.unwrap_or_else(|| panic!("no Napoleonic ruleset"))
    }

    #[test]
    fn a_napoleonic_unit_engaged_this_round_says_it_once() {
        let mut u = Unit {
            side: 0,
            name: "Line".into(),
            profile: "infantry".into(),
            cards: Vec::new(),
            stats: [(CONFUSED.to_string(), 2)].into(),
            soldiers: vec![Soldier { wounds: 0 }; 6],
            soldiers_at_start: 8,
            wounds_per_soldier: 1,
            status: [ENGAGED, FOUGHT, IN_ENGAGEMENT].map(str::to_string).into(),
            upgrades: Vec::new(),
            presence: Presence::InPlay,
        };
        let line = unit_line(&u, &napoleonic(), RoutedTurn::Done, HELD);
        assert!(
            line.starts_with(
                "Line (fought, in engagement, cannot move): 4 men in ranks, 2 confused"
            ),
            "{line}"
        );
        // Card-activation's forfeited actions are said as what they mean.
        let mut routed = u.clone();
        routed.stats.clear();
        routed.status = [crate::rules::card_activation::FORFEIT.to_string()].into();
        assert!(
            unit_line(&routed, &napoleonic(), RoutedTurn::RalliesLater, HELD)
                .starts_with("Line (rallies first when its card comes up):"),
            "{}",
            unit_line(&routed, &napoleonic(), RoutedTurn::RalliesLater, HELD)
        );
        // Its card up now: the question on screen says whether it rallies.
        let up_now = unit_line(&routed, &napoleonic(), RoutedTurn::UpNow, HELD);
        assert!(up_now.starts_with("Line:"), "{up_now}");
        assert!(
            unit_line(&routed, &napoleonic(), RoutedTurn::Done, HELD)
                .starts_with("Line (no more actions this turn):"),
            "{}",
            unit_line(&routed, &napoleonic(), RoutedTurn::Done, HELD)
        );
        // Engaged last round only: still in the engagement.
        u.status = [IN_ENGAGEMENT.to_string()].into();
        assert!(
            unit_line(&u, &napoleonic(), RoutedTurn::Done, HELD)
                .starts_with("Line (in engagement, cannot move):"),
            "{}",
            unit_line(&u, &napoleonic(), RoutedTurn::Done, HELD)
        );
    }

    /// A T52 unit's weapons show on its line and its profile on hovering:
    /// they decide which orders it can take.
    #[test]
    fn a_lone_figure_is_counted_in_lives_whatever_its_wounds() {
        let figure = |name: &str, wounds_per_soldier| Unit {
            side: 0,
            name: name.into(),
            profile: "snob".into(),
            cards: Vec::new(),
            stats: Default::default(),
            soldiers: vec![Soldier { wounds: 0 }],
            soldiers_at_start: 1,
            wounds_per_soldier,
            status: Default::default(),
            upgrades: Vec::new(),
            presence: Presence::InPlay,
        };
        let rs = napoleonic();
        // As the Toff beside it (audit S M8), not "1/1 soldiers".
        let snob = unit_line(&figure("Snob As", 1), &rs, RoutedTurn::Done, HELD);
        assert_eq!(snob, "Snob As: 1/1 life");
        let toff = unit_line(&figure("Toff XR", 2), &rs, RoutedTurn::Done, HELD);
        assert_eq!(toff, "Toff XR: 2/2 lives");
    }

    #[test]
    fn a_t52_unit_shows_its_equipment_and_profile() {
        use crate::rules::ProcedureSpec;
        use crate::rules::games::{GameId, Library};
        use crate::rules::t52::{GameSetup, PlayerSetup, regiment::parse_units};
        let player = |name: &str, text: &str| PlayerSetup {
            name: name.into(),
            units: parse_units(text).unwrap_or_else(|e| panic!("{e:?}")),
        };
        let setup = GameSetup {
            players: vec![
                player("Red", "XR As Ac 8c+7s 4h+5h+Qd:mean"),
                player("Blue", "XB Ad 6d+7c 3c"),
            ],
            terrain: Vec::new(),
            objectives: Vec::new(),
            question_order: 0,
        };
        let s = crate::rules::testkit::begin_game(GameId::T52, ProcedureSpec::T52(setup), 7);
        let (lib, _) = Library::builtin();
        let rs = lib.get(GameId::T52).cloned();
        let rs = rs.unwrap_or_else(|| panic!("no T52 ruleset"));
        let unit = |name: &str| {
            let u = s.state().units.iter().find(|u| u.name == name);
            u.unwrap_or_else(|| panic!("no unit {name}"))
        };
        assert_eq!(
            equipment_note(unit("Follower 8c")).as_deref(),
            Some("black powder (7s)")
        );
        // A cavalry's Queen is its mount, not its weapons.
        assert_eq!(
            equipment_note(unit("Cavalry 4h")).as_deref(),
            Some("melee weapons (5h)")
        );
        assert_eq!(equipment_note(unit("Snob As")), None);
        assert_eq!(
            stat_block(unit("Cavalry 4h"), &rs).as_deref(),
            Some(
                "Cavalry Follower: M 6, A 3, I 4, V 4, W 2, R 9\nM move (inches), \
                 A attacks per soldier, I inaccuracy (a die at or above it hits), \
                 V vulnerability (a die below it wounds), W wounds per soldier, \
                 R range (inches)"
            )
        );
    }

    /// A Napoleonic unit carries only the stats play changes: hovering it
    /// shows its profile's moves and ranges, not zeros (audit CA N1).
    #[test]
    fn a_stat_the_unit_does_not_carry_is_its_profiles() {
        let (lib, _) = crate::rules::games::Library::builtin();
        let rs = lib.get(crate::rules::games::GameId::Napoleonic).cloned();
        let rs = rs.unwrap_or_else(|| panic!("no Napoleonic ruleset"));
        let u = Unit {
            side: 0,
            name: "Battery".into(),
            profile: "artillery".into(),
            cards: Vec::new(),
            stats: [("shot_markers".to_string(), 2)].into(),
            soldiers: vec![Soldier { wounds: 0 }; 3],
            soldiers_at_start: 3,
            wounds_per_soldier: 1,
            status: Default::default(),
            upgrades: Vec::new(),
            presence: Presence::InPlay,
        };
        let block = stat_block(&u, &rs).unwrap_or_default();
        for said in [
            "move 20 cm",
            "range max 130 cm",
            "range min 10 cm",
            "shot markers 2",
        ] {
            assert!(block.contains(said), "{said}: {block}");
        }
    }

    /// A Gentlemen unit's line names abilities as the game does and counts
    /// its action points in English.
    #[test]
    fn a_gentleman_line_names_the_ability_paid_into() {
        use crate::rules::gentlemen as g;
        let (lib, _) = crate::rules::games::Library::builtin();
        let rs = lib
            .get(crate::rules::games::GameId::GentlemenOfWar)
            .cloned();
        let rs = rs.unwrap_or_else(|| panic!("no GoW ruleset"));
        let u = Unit {
            side: 0,
            name: "Sharpe".into(),
            profile: "rifleman".into(),
            cards: Vec::new(),
            stats: [
                (g::SPADES, 2),
                (g::AP, 1),
                ("paid:rifle-load", 2),
                (g::COMMANDED, 1),
                (g::CONCUSSION, 2),
            ]
            .map(|(k, v)| (k.to_string(), v))
            .into(),
            soldiers: vec![Soldier { wounds: 0 }],
            soldiers_at_start: 1,
            wounds_per_soldier: 2,
            status: Default::default(),
            upgrades: Vec::new(),
            presence: Presence::InPlay,
        };
        let line = unit_line(&u, &rs, RoutedTurn::Done, HELD);
        assert!(line.contains(", 1 action point,"), "{line}");
        assert!(line.ends_with(", 2 point(s) into Rifle: Load"), "{line}");
        // Conditions waiting for the next activation are shown too.
        assert!(
            line.contains(", Commanded (+1 action point(s) if it activates next), Concussed (-2 action point(s) next activation)"),
            "{line}"
        );
    }

    /// A unit gone since the deal keeps its place in the order, marked out.
    #[test]
    fn the_order_of_play_marks_a_unit_out_of_play() {
        use crate::rules::state::{Activation, GameState};
        let unit = |name: &str, presence| Unit {
            side: 0,
            name: name.into(),
            profile: "unit".into(),
            cards: Vec::new(),
            stats: Default::default(),
            soldiers: vec![Soldier { wounds: 0 }],
            soldiers_at_start: 1,
            wounds_per_soldier: 1,
            status: Default::default(),
            upgrades: Vec::new(),
            presence,
        };
        let st = GameState {
            units: vec![
                unit("Rifles", Presence::InPlay),
                unit("Major", Presence::Removed),
            ],
            activation: crate::rules::state::ActivationOrder {
                slots: [(0, "Ah"), (1, "2h")]
                    .map(|(u, c)| Activation {
                        side: 0,
                        unit: Some(u),
                        card: c.parse().ok(),
                    })
                    .to_vec(),
                next: 0,
            },
            ..GameState::default()
        };
        assert_eq!(
            super::activation_line(&st),
            "[Rifles (Ah)], Major (out) (2h)"
        );
    }
}
