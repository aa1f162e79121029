//! Card-Activation Skirmish: each turn every unit is given a card from a
//! dealt hand, the cards set the activation order, and each activated unit
//! spends its action points.
//!
//! The document leaves out its morale, movement and weapon sections, so unit
//! values come from editable profiles and the morale check is a configurable
//! dice test (see CLARIFICATIONS.md). Adjutant deals (how many cards each side
//! gets), orders the activations, counts action points and the penalties they
//! bring, tracks Overwatch, routs, rallies, weapon prep and charges. Hits and
//! saves are rolled at the table with the dice and modifiers Adjutant names;
//! the casualties are entered. [`turn`] deals and orders, [`actions`] runs an
//! activation.

pub mod actions;
pub mod turn;

#[cfg(test)]
mod flows;

pub(crate) use super::common::{num, yes_no};
use super::effect::{Effect, UnitSpec};
use super::games::Requirements;
use super::procedure::{Choice, Ctx, Flow};
use super::ruleset::Ruleset;
use super::state::{Outcome, SideId, UnitId};
use crate::table::Pack;
use serde::{Deserialize, Serialize};

/// What the Card-Activation code needs from `rulesets/card-activation.ron`.
pub const REQUIREMENTS: Requirements = Requirements {
    numbers: &[
        "cards_per_unit",
        "least_units_fraction_num",
        "least_units_fraction_den",
        "leadership_bonus_default",
        "split_fraction_num",
        "split_fraction_den",
        "overwatch_min_actions_fraction_num",
        "overwatch_min_actions_fraction_den",
        "overwatch_actions",
        "rally_action_cost",
        "prepped_weapons_at_start",
        "charge_distance_in",
        "charge_move_actions",
        "charge_bonus",
        "charge_free_melee_actions",
        "rout_move_multiplier",
        "prior_action_penalty",
        "target_move_free_in",
        "target_move_step_in",
        "target_move_penalty",
        "morale_dice",
        "morale_mod_routed",
        "morale_mod_commander_near",
        "morale_mod_half_strength",
    ],
    profiles: &["unit", "field-commander"],
    rules: &[
        "deal",
        "leadership",
        "assign",
        "activation-order",
        "actions",
        "split-actions",
        "rally",
        "overwatch",
        "move",
        "charge",
        "rout",
        "melee",
        "ballistics",
        "weapon-prep",
        "special",
        "morale-check",
        "end-of-turn",
    ],
    upgrades: &[],
    // Counts and divisors: 0 or less would make no game.
    at_least_one: &[
        "cards_per_unit",
        "least_units_fraction_den",
        "split_fraction_den",
        "overwatch_min_actions_fraction_den",
        "morale_dice",
    ],
    at_most: &[],
    not_above: &[],
};

/// Status: routed (must rally first when activated).
pub const ROUTED: &str = "routed";
/// Status: on Overwatch, holding actions (see [`HELD`]).
pub const OVERWATCH: &str = "overwatch";
/// Stat: actions a unit on Overwatch still holds.
/// (Bookkeeping, left out of the log: "goes on Overwatch, holding n" says it.)
pub const HELD: &str = "turn:held";
/// Status: the unit routed and lost the rest of its actions this turn.
pub const FORFEIT: &str = "forfeit";
/// Stat: actions still needed before the weapon can shoot again.
pub const PREP_LEFT: &str = "prep_left";
/// Stat: actions still needed to finish a special task of several actions
/// (a casting such as a 5-action power, a device), kept from turn to turn.
pub const TASK_LEFT: &str = "task_left";

/// One unit at setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitSetup {
    /// Name shown to players.
    pub name: String,
    /// Profile id: `unit`, `field-commander`, or a house rule's own.
    #[serde(default = "default_profile")]
    pub profile: String,
    /// Models in the unit (the profile's count when absent).
    #[serde(default)]
    pub models: Option<u32>,
}

fn default_profile() -> String {
    "unit".into()
}

/// One side at setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideSetup {
    /// Player (side) name.
    pub name: String,
    /// Its units; at most one Field Commander.
    pub units: Vec<UnitSetup>,
}

/// Everything a Card-Activation game starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct GameSetup {
    /// The two sides.
    pub sides: Vec<SideSetup>,
    /// The order and ranges of questions the game was begun with: 0 (left
    /// out) for games and scripts made before [`QUESTION_ORDER`] 1, whose
    /// answers stand as given; the window begins games with the newest.
    #[serde(default, skip_serializing_if = "super::common::is_zero")]
    pub question_order: u32,
}

/// The newest order of questions ([`GameSetup::question_order`]): 1 keeps a
/// target's movement within what its recorded moves allow; 2 asks which
/// enemy a charge reached, when more than one is on the table; 3 settles a
/// target's movement when all its recorded moves are within the free
/// inches, and lets no part of a split unit prep the weapon; 4 offers a
/// special task of several actions, counted over the turns until done.
pub const QUESTION_ORDER: u32 = 4;

/// Checks a setup; returns every problem in a sentence.
pub fn check_setup(setup: &GameSetup, ruleset: &Ruleset) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    if setup.sides.len() != 2 {
        errors.push(format!(
            "Card-Activation Skirmish is for two sides; the setup lists {}.",
            setup.sides.len()
        ));
    }
    errors.extend(super::common::side_name_problems(
        setup.sides.iter().map(|s| s.name.as_str()),
    ));
    for s in &setup.sides {
        if s.units.is_empty() {
            errors.push(format!("{} has no units.", s.name));
        }
        let commanders = s
            .units
            .iter()
            .filter(|u| ruleset.profile(&u.profile).is_some_and(leads_side))
            .count();
        if commanders > 1 {
            errors.push(format!(
                "{} has {commanders} Field Commanders; one leads a side.",
                s.name
            ));
        }
        for u in &s.units {
            if ruleset.profile(&u.profile).is_none() {
                let ids: Vec<&str> = ruleset.profiles.iter().map(|p| p.id.as_str()).collect();
                errors.push(format!(
                    "{}: {} has profile `{}`, which the ruleset does not define (it has {}).",
                    s.name,
                    u.name,
                    u.profile,
                    ids.join(", ")
                ));
            }
            if u.models == Some(0) {
                errors.push(format!("{}: {} has no models.", s.name, u.name));
            }
        }
    }
    if let Some(problem) = deal_too_big(setup, ruleset) {
        errors.push(problem);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Whether a profile leads its side: the built-in Field Commander, or a
/// house rule's profile with a leadership bonus. Either earns the deal's
/// extra cards, so either steadies its side's morale too (audit AH M1).
pub(crate) fn leads_side(profile: &crate::rules::ruleset::Profile) -> bool {
    profile.id == "field-commander" || profile.stats.get("leadership").is_some_and(|&l| l > 0)
}

/// Why the first turn's deal would not fit in one pack (every unit
/// needs its card), or `None` when it does.
fn deal_too_big(setup: &GameSetup, ruleset: &Ruleset) -> Option<String> {
    let [a, b] = setup.sides.as_slice() else {
        return None;
    };
    let n = |key: &str| ruleset.number(key).max(0) as usize;
    let leadership = |side: &SideSetup| {
        side.units
            .iter()
            .filter_map(|u| ruleset.profile(&u.profile))
            .map(|p| p.stats.get("leadership").copied().unwrap_or(0).max(0) as usize)
            .max()
            .unwrap_or(0)
    };
    let dealt = |own: &SideSetup, other: &SideSetup| {
        turn::cards_for(
            own.units.len(),
            other.units.len(),
            n("cards_per_unit").max(1),
            n("least_units_fraction_num"),
            n("least_units_fraction_den").max(1),
        ) + leadership(own)
    };
    let total = dealt(a, b) + dealt(b, a);
    (total > PACK_CARDS).then(|| {
        format!(
            "{} and {} would be dealt {total} activation cards a turn, more than the {PACK_CARDS} of the pack: field fewer units.",
            a.name, b.name
        )
    })
}

/// Cards in the activation pack (no jokers).
const PACK_CARDS: usize = 52;

/// Parses units typed as `Name[:profile][:models]` separated by spaces or
/// commas (`Rifles:5 Scouts:3 Captain:commander`).
pub fn parse_units(text: &str) -> Result<Vec<UnitSetup>, String> {
    super::common::all_or_problems(parse_units_all(text))
}

/// Parses every unit it can, and says what is wrong with each of the others
/// (so a form can show every problem at once, not the first only).
pub fn parse_units_all(text: &str) -> (Vec<UnitSetup>, Vec<String>) {
    let mut units = Vec::new();
    let mut problems = Vec::new();
    for item in super::common::tokens(text) {
        let mut parts = item.split(':');
        let name = super::common::typed_name(parts.next().unwrap_or_default());
        let mut unit = UnitSetup {
            name: name.clone(),
            profile: default_profile(),
            models: None,
        };
        // A stray number is a slip, not a unit called "5" (audit CE F1).
        let mut ok = !name.chars().all(|c| c.is_ascii_digit());
        if !ok {
            problems.push(format!(
                "`{name}` is a number, not a unit's name: write Name:models, such as Rifles:5"
            ));
        }
        for p in parts {
            if let Ok(n) = p.parse::<u32>() {
                unit.models = Some(n);
            } else {
                match p.to_lowercase().as_str() {
                    "commander" | "field-commander" | "leader" => {
                        unit.profile = "field-commander".into()
                    }
                    // Any other word names a profile: the built-in unit or
                    // a house rule's own (audit X1); the setup check says
                    // when the ruleset has no such profile.
                    other
                        if !other.is_empty()
                            && other
                                .chars()
                                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
                    {
                        unit.profile = other.to_string()
                    }
                    other => {
                        problems.push(format!("`{other}` (for {name}) is neither a model count nor a profile (unit, commander)"));
                        ok = false;
                    }
                }
            }
        }
        if ok {
            units.push(unit);
        }
    }
    (units, problems)
}

/// Plays a whole game: sides and units, then turns until the players stop
/// or a side has no units left.
pub fn play(ctx: &mut Ctx, setup: &GameSetup) -> Flow<()> {
    if let Err(errors) = check_setup(setup, ctx.ruleset) {
        super::common::refuse_setup(ctx, "deal", errors);
        return Ok(());
    }
    super::common::begin_question_order(ctx, setup.question_order);
    for (side, s) in setup.sides.iter().enumerate() {
        if ctx.state().sides.len() <= side {
            ctx.apply(Effect::AddSide {
                name: s.name.clone(),
                back: None,
            });
        }
        for u in &s.units {
            let Some(profile) = ctx.ruleset.profile(&u.profile).cloned() else {
                continue;
            };
            let mut stats = profile.stats.clone();
            // A Field Commander whose profile names no bonus has the default.
            if profile.id == "field-commander" && !stats.contains_key("leadership") {
                stats.insert("leadership".into(), num(ctx, "leadership_bonus_default"));
            }
            // Units start with their main weapon ready (no `prep_left`) unless
            // the group plays that weapons start unprepped.
            if num(ctx, "prepped_weapons_at_start") <= 0 {
                let prep = stats.get("weapon_prep").copied().unwrap_or(0);
                stats.insert(PREP_LEFT.into(), prep);
            }
            ctx.apply(Effect::AddUnit(UnitSpec {
                side,
                name: u.name.clone(),
                profile: profile.id.clone(),
                cards: Vec::new(),
                stats,
                soldiers: u.models.unwrap_or(profile.soldiers),
                wounds_per_soldier: 1,
                upgrades: Vec::new(),
            }));
        }
    }
    ctx.apply(Effect::AddDeck {
        name: "Activation deck".into(),
        packs: vec![Pack {
            back: crate::table::BackColour::Other,
            jokers: false,
        }],
    });
    for t in 1.. {
        turn::play_turn(ctx, t)?;
        if ctx.state().outcome.is_some() {
            return Ok(());
        }
    }
    Ok(())
}

// ----- helpers shared by the modules -----

/// The activation deck.
pub(crate) const DECK: usize = 0;

/// Units of `side` still in play.
pub(crate) fn units_of(ctx: &Ctx, side: SideId) -> Vec<UnitId> {
    ctx.state().units_of(side).map(|(i, _)| i).collect()
}

/// A unit's stat.
pub(crate) fn stat(ctx: &Ctx, unit: UnitId, key: &str) -> i32 {
    ctx.state().units.get(unit).map_or(0, |u| u.stat(key))
}

/// Whether a unit has a status.
pub(crate) fn has(ctx: &Ctx, unit: UnitId, status: &str) -> bool {
    ctx.state().units.get(unit).is_some_and(|u| u.has(status))
}

/// Sets or clears a status.
pub(crate) fn set_status(ctx: &mut Ctx, unit: UnitId, status: &str, on: bool) {
    ctx.apply(Effect::SetStatus {
        unit,
        status: status.into(),
        on,
    });
}

/// A unit as a choice: `u<id>` with its name and models.
pub(crate) fn unit_choice(ctx: &Ctx, unit: UnitId) -> Choice {
    let u = &ctx.state().units[unit];
    let mut flags: Vec<&str> = u.status.iter().map(String::as_str).collect();
    flags.retain(|f| *f == ROUTED || *f == OVERWATCH);
    let extra = if flags.is_empty() {
        String::new()
    } else {
        format!(", {}", flags.join(", "))
    };
    Choice::new(
        format!("u{unit}"),
        format!(
            "{} ({}{extra})",
            u.name,
            models_text(u.soldiers.len() as i64)
        ),
    )
}

/// "1 model", "5 models".
pub(crate) fn models_text(n: impl Into<i64>) -> String {
    let n = n.into();
    if n == 1 {
        "1 model".into()
    } else {
        format!("{n} models")
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

/// Ends the game when a side has no units left. Returns true when over.
pub(crate) fn check_wipeout(ctx: &mut Ctx) -> bool {
    if ctx.state().outcome.is_some() {
        return true;
    }
    let standing: Vec<SideId> = (0..ctx.state().sides.len())
        .filter(|&s| !units_of(ctx, s).is_empty())
        .collect();
    if standing.len() > 1 {
        return false;
    }
    let outcome = match standing.first() {
        Some(&w) => Outcome {
            winner: Some(w),
            reason: format!(
                "{} is the only side with units left",
                ctx.state().side_name(w)
            ),
        },
        None => Outcome {
            winner: None,
            reason: "No units are left on either side".into(),
        },
    };
    ctx.end_game("end-of-turn", outcome);
    true
}
