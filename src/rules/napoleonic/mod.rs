//! Napoleonic Card Combat: units of massed figures, combats settled by each
//! side turning the top card of its own deck, kills that spread confusion.
//!
//! Adjutant keeps each unit's men in ranks, confused men and the kills of its
//! current engagement, every cannon's shot markers, the two decks, and who
//! holds the four objectives. Distances, facing and line of sight are judged
//! on the table and asked. [`turn`] runs the three steps of a player's turn,
//! [`combat`] resolves combats and long-range fire.

pub mod combat;
pub mod turn;

#[cfg(test)]
mod flows;

pub(crate) use super::common::{num, yes_no};
use super::effect::{Effect, UnitSpec};
use super::games::Requirements;
use super::procedure::{Choice, Ctx, Flow};
use super::ruleset::Ruleset;
use super::state::{DeckId, GameState, Holder, Outcome, SideId, UnitId};
use crate::table::{BackColour, Pack};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the Napoleonic code needs from `rulesets/napoleonic.ron`.
pub const REQUIREMENTS: Requirements = Requirements {
    numbers: &[
        "objectives",
        "objectives_to_win",
        "shot_markers_per_cannon",
        "table_width_cm",
        "table_length_cm",
        "move_infantry_cm",
        "move_artillery_cm",
        "move_cavalry_cm",
        "move_general_cm",
        "enemy_stop_distance_cm",
        "mob_move_cm",
        "mob_enemy_distance_cm",
        "rally_enemy_distance_cm",
        "rally_all_confused_distance_cm",
        "rally_general_bonus",
        "gunner_return_cm",
        "artillery_min_range_cm",
        "artillery_max_range_cm",
        "artillery_arc_degrees",
        "shot_cost_open",
        "shot_cost_wall",
        "shot_cost_redoubt",
        "long_range_kills",
        "long_range_confused",
        "combat_range_cm",
        "combats_per_unit_per_turn",
        "combat_kills",
        "artillery_win_kills",
        "cover_bonus",
        "confused_per_kill_step",
        "artillery_confused_divisor",
        "artillery_confused_court",
        "artillery_confused_ace",
        "cavalry_win_confused_bonus",
        "flank_rear_confused_bonus",
    ],
    profiles: &["infantry", "cavalry", "artillery"],
    rules: &[
        "setup",
        "first-move",
        "sequence",
        "movement",
        "no-move",
        "mob",
        "rally",
        "artillery-fire",
        "shot-markers",
        "combat-eligibility",
        "combat",
        "cover-bonus",
        "confusion",
        "tie",
        "artillery-win",
        "cavalry-flank",
        "victory",
    ],
    upgrades: &[],
    // Counts and divisors: 0 or less would make no game.
    at_least_one: &[
        "objectives",
        "objectives_to_win",
        "combats_per_unit_per_turn",
        "artillery_confused_divisor",
    ],
    at_most: &[],
    not_above: &[],
};

/// Stat: men of the unit that are confused (the rest are in ranks).
pub const CONFUSED: &str = "confused";
/// Stat: men the unit has lost in its current engagement (bookkeeping:
/// the ':' keeps its changes out of the log, the kills are logged).
pub const ENGAGEMENT_KILLS: &str = "engagement:kills";
/// Stat: a cannon's shot markers left.
pub const SHOT_MARKERS: &str = "shot_markers";
/// Status: the unit has fought all its combats this turn (for a gun in
/// step 2: it has fired at long range).
pub const FOUGHT: &str = "fought";
/// Stat: combats the unit has fought this turn (bookkeeping, out of the log).
pub const COMBATS: &str = "turn:combats";
/// Status: the unit was in a combat this round (either player's turn).
pub const ENGAGED: &str = "engaged";
/// Status: the unit is in an engagement (it fought this round or the last),
/// so a man it loses to long-range fire counts toward its confusion.
pub const IN_ENGAGEMENT: &str = "in_engagement";
/// Counter kind ([`crate::rules::common::pair_key`]): the two units fought
/// each other in their engagement; cleared when either leaves it.
pub const OPPONENTS: &str = "opponents";
/// Status: the unit has rallied this turn (once per turn).
pub const RALLIED: &str = "rallied";
/// Status: a gun whose gunners had all fled and rallied; they must walk back
/// to it before it fires again.
pub const GUNNERS_AWAY: &str = "gunners_away";

/// A unit's arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Arm {
    /// Foot, 20 cm.
    Infantry,
    /// Horse, 40 cm; a win confuses one more.
    Cavalry,
    /// Guns, 20 cm; long-range fire with shot markers.
    Artillery,
}

impl Arm {
    /// The profile id.
    pub fn id(self) -> &'static str {
        match self {
            Arm::Infantry => "infantry",
            Arm::Cavalry => "cavalry",
            Arm::Artillery => "artillery",
        }
    }

    /// Parses a profile id (any case; `inf`, `cav`, `art` too).
    pub fn parse(s: &str) -> Option<Arm> {
        match s.trim().to_lowercase().as_str() {
            "infantry" | "inf" | "foot" => Some(Arm::Infantry),
            "cavalry" | "cav" | "horse" => Some(Arm::Cavalry),
            "artillery" | "art" | "guns" | "gun" => Some(Arm::Artillery),
            _ => None,
        }
    }
}

/// One unit at setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitSetup {
    /// Name shown to players.
    pub name: String,
    /// Its arm.
    pub arm: Arm,
    /// Men (for artillery: gunners; one gun per unit).
    pub men: u32,
}

/// One side at setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArmySetup {
    /// Player (side) name.
    pub name: String,
    /// Back colour of the side's deck.
    pub back: BackColour,
    /// Its units.
    pub units: Vec<UnitSetup>,
}

/// Everything a Napoleonic game starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct GameSetup {
    /// The two armies.
    pub armies: Vec<ArmySetup>,
    /// Names of the objectives (four by default).
    pub objectives: Vec<String>,
}

/// Checks a setup; returns every problem in a sentence.
pub fn check_setup(setup: &GameSetup, ruleset: &Ruleset) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    if setup.armies.len() != 2 {
        errors.push(format!(
            "Napoleonic Card Combat is for two armies; the setup lists {}.",
            setup.armies.len()
        ));
    }
    let wanted = ruleset.number("objectives").max(1) as usize;
    if setup.objectives.len() != wanted {
        errors.push(format!(
            "The table needs {wanted} objectives; the setup names {}.",
            setup.objectives.len()
        ));
    }
    // Each holder is asked by the objective's name.
    for (i, o) in setup.objectives.iter().enumerate() {
        if setup.objectives[..i]
            .iter()
            .any(|p| p.eq_ignore_ascii_case(o))
        {
            errors.push(format!(
                "Two objectives are called {o}: give each a name of its own."
            ));
        }
    }
    errors.extend(super::common::side_name_problems(
        setup.armies.iter().map(|a| a.name.as_str()),
    ));
    for a in &setup.armies {
        if a.units.is_empty() {
            errors.push(format!("{} has no units.", a.name));
        }
        for u in &a.units {
            if u.men == 0 {
                errors.push(format!("{}: {} has no men.", a.name, u.name));
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// The document asks for sides with equal men (gunners included) and guns
/// but calls it a "should": an unequal setup is played, with this note.
pub fn balance_note(setup: &GameSetup) -> Option<String> {
    let [a, b] = setup.armies.as_slice() else {
        return None;
    };
    let men = |x: &ArmySetup| x.units.iter().map(|u| u.men).sum::<u32>();
    let guns = |x: &ArmySetup| x.units.iter().filter(|u| u.arm == Arm::Artillery).count();
    (men(a) != men(b) || guns(a) != guns(b)).then(|| {
        let guns_text = |n: usize| match n {
            1 => "1 gun".to_string(),
            n => format!("{n} guns"),
        };
        format!(
            "The sides are unequal ({} has {} men and {}, {} has {} men and {}, gunners counted as men); the rules ask for equal sides, so play on only if you agreed to it.",
            a.name,
            men(a),
            guns_text(guns(a)),
            b.name,
            men(b),
            guns_text(guns(b))
        )
    })
}

/// Parses units typed as `Name:arm:men` separated by spaces or commas
/// (`Guards:inf:12 Hussars:cav:6 Battery:art:3`).
pub fn parse_units(text: &str) -> Result<Vec<UnitSetup>, String> {
    super::common::all_or_problems(parse_units_all(text))
}

/// Every unit of `text` that parses, and what is wrong with the others. A
/// name may have spaces (`Old Guard:inf:6`) or `_` (`Old_Guard:inf:6`).
pub fn parse_units_all(text: &str) -> (Vec<UnitSetup>, Vec<String>) {
    super::common::parse_tokens_with_spaced_names(text, parse_unit)
}

/// One unit typed as `Name:arm:men`.
fn parse_unit(item: &str) -> Result<UnitSetup, String> {
    let parts: Vec<&str> = item.split(':').collect();
    let [name, arm, men] = parts.as_slice() else {
        return Err(format!("`{item}` is not Name:arm:men (e.g. Guards:inf:12)"));
    };
    let arm = Arm::parse(arm).ok_or_else(|| {
        if ["gen", "general", "adc", "aide"].contains(&arm.to_ascii_lowercase().as_str()) {
            // Commanders are asked about where they matter, not fielded.
            format!(
                "{name}: generals and aides-de-camp are not entered as units (Adjutant asks whether one stands beside a unit when it rallies)"
            )
        } else {
            format!("`{arm}` (for {name}) is not an arm: infantry, cavalry or artillery")
        }
    })?;
    let men = men
        .parse::<u32>()
        .map_err(|_| format!("`{men}` (for {name}) is not a number of men"))?;
    Ok(UnitSetup {
        name: super::common::typed_name(name),
        arm,
        men,
    })
}

/// Plays a whole game: armies, decks, objectives, the cut for first move,
/// then turns until a side holds enough objectives or the players stop.
pub fn play(ctx: &mut Ctx, setup: &GameSetup) -> Flow<()> {
    if let Err(errors) = check_setup(setup, ctx.ruleset) {
        super::common::refuse_setup(ctx, "setup", errors);
        return Ok(());
    }
    if let Some(note) = balance_note(setup) {
        ctx.resolved("setup", note);
    }
    let markers = ctx.ruleset.number("shot_markers_per_cannon").max(0) as i32;
    for (side, a) in setup.armies.iter().enumerate() {
        if ctx.state().sides.len() <= side {
            ctx.apply(Effect::AddSide {
                name: a.name.clone(),
                back: Some(a.back),
            });
        }
        for u in &a.units {
            let mut stats =
                BTreeMap::from([(CONFUSED.to_string(), 0), (ENGAGEMENT_KILLS.to_string(), 0)]);
            if u.arm == Arm::Artillery {
                stats.insert(SHOT_MARKERS.to_string(), markers);
            }
            ctx.apply(Effect::AddUnit(UnitSpec {
                side,
                name: u.name.clone(),
                profile: u.arm.id().into(),
                cards: Vec::new(),
                stats,
                soldiers: u.men,
                wounds_per_soldier: 1,
                upgrades: Vec::new(),
            }));
        }
        ctx.apply(Effect::AddDeck {
            name: format!("{} deck", super::common::possessive(&a.name)),
            packs: vec![Pack {
                back: a.back,
                jokers: false,
            }],
        });
        ctx.resolved(
            "setup",
            format!(
                "{} {} {} units with a {}-backed deck",
                a.name,
                super::common::agree(&a.name, "deploys", "deploy"),
                a.units.len(),
                a.back
            ),
        );
    }
    ctx.resolved(
        "setup",
        format!(
            "The table is about {} by {} cm, with {} objectives spread fairly across it",
            num(ctx, "table_width_cm"),
            num(ctx, "table_length_cm"),
            setup.objectives.len()
        ),
    );
    for name in &setup.objectives {
        ctx.apply(Effect::AddObjective {
            name: name.clone(),
            card: None,
        });
    }
    let first = turn::cut_for_first_move(ctx)?;
    ctx.apply(Effect::SetInitiative(first));
    for round in 1.. {
        ctx.apply(Effect::SetRound(round));
        for side in [first, 1 - first] {
            turn::play_turn(ctx, side)?;
            if ctx.state().outcome.is_some() {
                return Ok(());
            }
        }
        turn::end_round(ctx);
    }
    Ok(())
}

// ----- small helpers shared by the modules -----

/// The deck of `side` (one per side, added in side order).
pub(crate) fn deck_of(side: SideId) -> DeckId {
    side
}

/// Men of a unit still on the table.
pub(crate) fn men(ctx: &Ctx, unit: UnitId) -> u32 {
    men_of(ctx.state(), unit)
}

fn men_of(state: &GameState, unit: UnitId) -> u32 {
    (state.units.get(unit))
        .filter(|u| u.in_play())
        .map_or(0, |u| u.soldiers.len() as u32)
}

/// Confused men of a unit.
pub(crate) fn confused(ctx: &Ctx, unit: UnitId) -> u32 {
    confused_of(ctx.state(), unit)
}

fn confused_of(state: &GameState, unit: UnitId) -> u32 {
    (state.units.get(unit))
        .map_or(0, |u| u.stat(CONFUSED).max(0) as u32)
        .min(men_of(state, unit))
}

/// Men of a unit in ranks.
pub(crate) fn in_ranks(ctx: &Ctx, unit: UnitId) -> u32 {
    in_ranks_of(ctx.state(), unit)
}

fn in_ranks_of(state: &GameState, unit: UnitId) -> u32 {
    men_of(state, unit) - confused_of(state, unit)
}

/// The units `unit` has fought in its engagement that are still in play
/// with men in ranks (a mob keeps away; a destroyed unit is gone).
pub(crate) fn formed_opponents(ctx: &Ctx, unit: UnitId) -> Vec<UnitId> {
    formed_opponents_of(ctx.state(), unit)
}

fn formed_opponents_of(state: &GameState, unit: UnitId) -> Vec<UnitId> {
    super::common::paired_with(state, OPPONENTS, unit)
        .into_iter()
        .filter(|&v| state.units.get(v).is_some_and(|u| u.in_play()))
        .filter(|&v| in_ranks_of(state, v) > 0)
        .collect()
}

/// Whether `unit`'s engagement holds it in place in its step 1: it is in
/// one, has men in ranks (a mob runs all the same), and a unit it fought
/// still has men in ranks. An engagement that no longer holds it still
/// counts its men killed towards confusion until a round without combat.
pub fn held_by_engagement(state: &GameState, unit: UnitId) -> bool {
    state.units.get(unit).is_some_and(|u| u.has(IN_ENGAGEMENT))
        && in_ranks_of(state, unit) > 0
        && !formed_opponents_of(state, unit).is_empty()
}

/// How a unit in an engagement stands, in words for the units panel: held
/// in place (by the engagement, or by its confused men, l.31), a mob
/// (which flees all the same), or free to move; `None` for a unit in no
/// engagement.
pub fn engagement_words(state: &GameState, unit: UnitId) -> Option<&'static str> {
    if !state.units.get(unit)?.has(IN_ENGAGEMENT) {
        None
    } else if held_by_engagement(state, unit) {
        Some("in engagement, cannot move")
    } else if men_of(state, unit) > 0 && in_ranks_of(state, unit) == 0 {
        Some("in engagement, a mob")
    } else if confused_of(state, unit) > 0 {
        Some("in engagement, cannot move (men in ranks and confused)")
    } else {
        Some("in engagement, free to move")
    }
}

/// A unit's arm (infantry for an unknown profile).
pub(crate) fn arm(ctx: &Ctx, unit: UnitId) -> Arm {
    ctx.state()
        .units
        .get(unit)
        .and_then(|u| Arm::parse(&u.profile))
        .unwrap_or(Arm::Infantry)
}

/// Sets a unit's stat.
pub(crate) fn set_stat(ctx: &mut Ctx, unit: UnitId, stat: &str, value: i32) {
    ctx.apply(Effect::SetStat {
        unit,
        stat: stat.into(),
        value,
    });
}

/// A unit as a choice: `u<id>` with its name and men.
pub(crate) fn unit_choice(ctx: &Ctx, unit: UnitId) -> Choice {
    let mut label = format!(
        "{} ({} in ranks, {} confused",
        ctx.state().unit_name(unit),
        in_ranks(ctx, unit),
        confused(ctx, unit)
    );
    // Its label until round s34 said "1 shot markers" (scripts may choose
    // by label).
    let mut former = None;
    if arm(ctx, unit) == Arm::Artillery {
        let m = ctx
            .state()
            .units
            .get(unit)
            .map_or(0, |u| u.stat(SHOT_MARKERS));
        if m == 1 {
            former = Some(format!("{label}, 1 shot markers)"));
        }
        label.push_str(&format!(
            ", {m} shot marker{}",
            if m == 1 { "" } else { "s" }
        ));
    }
    label.push(')');
    let choice = Choice::new(format!("u{unit}"), label);
    match former {
        Some(f) => choice.formerly(f),
        None => choice,
    }
}

/// Picks a unit among `ids`, with a "none" option when `none` is given.
pub(crate) fn pick_unit(
    ctx: &mut Ctx,
    prompt: &str,
    ids: &[UnitId],
    none: Option<&str>,
    rule: &str,
) -> Flow<Option<UnitId>> {
    super::common::pick(ctx, prompt, ids, unit_choice, none, rule)
}

/// Units of `side` still on the table.
pub(crate) fn units_of(ctx: &Ctx, side: SideId) -> Vec<UnitId> {
    ctx.state().units_of(side).map(|(i, _)| i).collect()
}

/// Objectives held by each side.
pub(crate) fn held_by(ctx: &Ctx, side: SideId) -> usize {
    ctx.state()
        .objectives
        .iter()
        .filter(|o| o.holder == Holder::Side(side))
        .count()
}

/// Ends the game when a side holds enough objectives. Returns true when over.
pub(crate) fn check_victory(ctx: &mut Ctx) -> bool {
    if ctx.state().outcome.is_some() {
        return true;
    }
    let need = ctx.ruleset.number("objectives_to_win").max(1) as usize;
    let sides = ctx.state().sides.len();
    if let Some(w) = (0..sides).find(|&s| held_by(ctx, s) >= need) {
        let name = ctx.state().side_name(w);
        let reason = format!(
            "{name} {} {} of the {} objectives",
            super::common::agree(&name, "holds", "hold"),
            held_by(ctx, w),
            ctx.state().objectives.len()
        );
        ctx.end_game(
            "victory",
            Outcome {
                winner: Some(w),
                reason,
            },
        );
        return true;
    }
    // A side with no units left cannot hold on: the other side wins.
    let standing: Vec<SideId> = (0..sides)
        .filter(|&s| !units_of(ctx, s).is_empty())
        .collect();
    if sides == 2 && standing.len() == 1 {
        let w = standing[0];
        let loser = ctx.state().side_name(1 - w);
        let reason = format!(
            "{loser} {} no units left on the table",
            super::common::agree(&loser, "has", "have")
        );
        ctx.end_game(
            "victory",
            Outcome {
                winner: Some(w),
                reason,
            },
        );
        return true;
    }
    false
}
