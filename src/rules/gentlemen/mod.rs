//! Gentlemen of War: two small bands activate one unit at a time; every
//! ability is paid for with cards drawn from the player's own deck.
//!
//! Adjutant keeps each player's 54-card deck (draw pile, discards, reshuffles),
//! every unit's action points, wounds, Death's Door, ammunition, conditions
//! and melee, works out which effects the drawn cards can buy (suits, values,
//! wild Jacks and Kings, Queens, Aces, Jokers), runs Armour and Rout Checks,
//! and alternates activations. Hexes, range and cover are judged on the table
//! and entered as "cards more or fewer". The rulebook's roster sheets are not
//! in its document: profiles and abilities are data in the ruleset file
//! (an example roster ships, labelled as such). [`turn`] runs turns and
//! activations, [`check`] skill checks, armour, hits and rout checks.

pub mod check;
pub mod turn;

#[cfg(test)]
mod flows;

use super::ability::Ability;
use super::common;
pub(crate) use super::common::{num, yes_no};
use super::effect::{Effect, UnitSpec};
use super::games::Requirements;
use super::procedure::{Choice, Ctx, Flow};
use super::ruleset::Ruleset;
use super::state::{DeckId, Outcome, SideId, UnitId};
use crate::table::{BackColour, Pack, Suit};
use serde::{Deserialize, Serialize};

/// What the Gentlemen of War code needs from `rulesets/gentlemen-of-war.ron`.
pub const REQUIREMENTS: Requirements = Requirements {
    numbers: &[
        "rout_threshold_num",
        "rout_threshold_den",
        "rout_draw",
        "rout_draw_loss_per_unit",
        "rout_pass_clubs",
        "jokers_per_deck",
        "armour_pierce_per_symbol",
        "concussion_actions_per_symbol",
        "knockback_hexes",
        "armour_cards_per_point",
        "armour_ignore_wounds_spades",
        "armour_deflect_spades",
        "ace_armour_pierce",
        "queen_extra_draw",
        "joker_peek_cards",
        "reuse_draw_loss",
        "riding_penalty",
        "bayonet_draw_loss",
        "hands_per_unit",
        "skill_check_action_cost",
        "max_draw_modifier",
    ],
    profiles: &[],
    rules: &[
        "setup",
        "activation",
        "action-points",
        "deck",
        "skill-check",
        "card-values",
        "checkless-action",
        "reuse",
        "melee",
        "movement-charge",
        "wounds",
        "armour-check",
        "rout-check",
        "aces",
        "queens",
        "jokers",
        "effects",
        "deployment-objectives",
    ],
    upgrades: &[],
    // Counts and divisors: 0 or less would make no game.
    at_least_one: &["rout_threshold_den"],
    at_most: &[],
    not_above: &[],
};

/// Stat keys of the four humours and armour.
pub const HEARTS: &str = "hearts";
/// Diamonds stat.
pub const DIAMONDS: &str = "diamonds";
/// Clubs stat (action points).
pub const CLUBS: &str = "clubs";
/// Spades stat (wounds to Death's Door).
pub const SPADES: &str = "spades";
/// Armour points.
pub const ARMOUR: &str = "armour";
/// Ammunition loaded.
pub const AMMO: &str = "ammo";
/// Most ammunition the weapon holds.
pub const AMMO_MAX: &str = "ammo_max";
/// Action points left in the current activation (bookkeeping: the ':'
/// keeps each spend out of the log, where the activation and each ability
/// used already say what was spent; the units list shows what is left).
pub const AP: &str = "activation:ap";
/// Stat: 1 once the unit has moved this activation (a Dash that bought a
/// move); reset when it activates.
pub const MOVED: &str = "activation:moved";
/// Stat: the unit (its id + 1) that this unit's charge reached this
/// activation (0: none); its melee attacks on that unit may add a charge
/// bonus. Reset when it activates.
pub const CHARGED: &str = "activation:charged";
/// Stat: the hexes a unit with Guard (x) may move to intercept a charge (0:
/// no Guard).
pub const GUARD: &str = "guard";
/// Stat: 1 when the unit is Strong (heavy weapons carry no penalty).
pub const STRONG: &str = "strong";
/// Stat: hands free of weapons (each may punch once an activation).
pub const EMPTY_HANDS: &str = "empty_hands";
/// Stat: hands the unit's held weapons take (a musket 2, pistol and sabre
/// 2); with its empty hands it should come to the ruleset's `hands_per_unit`.
pub const WEAPON_HANDS: &str = "weapon_hands";
/// Stat: 1 while the unit rides its mount (it may dismount, never remount).
pub const MOUNTED: &str = "mounted";
/// Stat: 1 when the unit has Mounted Training (riding costs no draws).
pub const MOUNTED_TRAINING: &str = "mounted_training";
/// Action points lost at the next activation.
pub const CONCUSSION: &str = "concussion";
/// Action points gained if activated at the next opportunity.
pub const COMMANDED: &str = "commanded";
/// Status: acted this turn.
pub const ACTIVATED: &str = "activated";
/// Status: in melee (no ranged, support or checkless abilities).
pub const IN_MELEE: &str = "in melee";
/// Status: may not dash until its next activation ends.
pub const IMMOBILIZED: &str = "immobilized";
/// Status: may not be its side's next activation.
pub const SUPPRESSED: &str = "suppressed";

/// One unit at setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitSetup {
    /// Name shown to players.
    pub name: String,
    /// Profile id from the ruleset.
    pub profile: String,
    /// Stats that replace the profile's (a player's own roster sheet).
    #[serde(default)]
    pub stats: Vec<(String, i32)>,
}

/// One player's band.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BandSetup {
    /// Player (side) name.
    pub name: String,
    /// Back colour of the player's deck.
    pub back: BackColour,
    /// The units.
    pub units: Vec<UnitSetup>,
}

/// Everything a Gentlemen of War game starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct GameSetup {
    /// The two bands (sides 0 and 1).
    pub bands: Vec<BandSetup>,
    /// The order of questions the game was begun with: 0 (left out) for
    /// games and scripts made before [`QUESTION_ORDER`] 1, whose answers
    /// stand in that order; the window begins games with the newest.
    #[serde(default, skip_serializing_if = "super::common::is_zero")]
    pub question_order: u32,
}

/// The newest order of questions ([`GameSetup::question_order`]): 1 asks
/// for a Dash's charge after its extra action points and modifiers, so the
/// question can say how far the charge may reach (the cards to be drawn);
/// 2 offers no Ace to cancel the Big Joker in a Rout Check, which it fails;
/// 3 asks for no Joker's peek after a failed Rout Check (the game is over),
/// and a Dash that moved nobody ends its charge without asking where.
pub const QUESTION_ORDER: u32 = 3;

/// Checks a setup against the ruleset; returns every problem in a sentence.
pub fn check_setup(setup: &GameSetup, ruleset: &Ruleset) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    if setup.bands.len() != 2 {
        errors.push(format!(
            "Gentlemen of War is for two players; the setup lists {} bands.",
            setup.bands.len()
        ));
    }
    for b in &setup.bands {
        if b.units.is_empty() {
            errors.push(format!("{} has no units.", b.name));
        }
        for u in &b.units {
            if u.name.trim().is_empty() {
                errors.push(format!("{} has a unit without a name.", b.name));
            }
            if ruleset.profile(&u.profile).is_none() {
                let known: Vec<&str> = ruleset.profiles.iter().map(|p| p.id.as_str()).collect();
                errors.push(format!(
                    "{}: `{}` (for {}) is not a profile; known: {}.",
                    b.name,
                    u.profile,
                    u.name,
                    known.join(", ")
                ));
            }
        }
    }
    let jokers = ruleset.number("jokers_per_deck");
    if jokers != 0 && jokers != 2 {
        errors.push(format!(
            "jokers_per_deck is {jokers}: a pack has both Jokers (2) or none (0)."
        ));
    }
    errors.extend(super::common::side_name_problems(
        setup.bands.iter().map(|b| b.name.as_str()),
    ));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Units whose Clubs or Spades stand at 0 (overridden so): allowed, but
/// said before play, since such a unit never gets an action point, or goes
/// out of action at its first wound. Likewise a unit with more hands than
/// the rules' two (weapons held plus empty hands: "usually" two, l.43).
pub fn setup_notes(setup: &GameSetup, ruleset: &Ruleset) -> Vec<String> {
    let mut notes = Vec::new();
    let hands = ruleset.number("hands_per_unit") as i32;
    for b in &setup.bands {
        for u in &b.units {
            let stat = |key: &str| {
                u.stats
                    .iter()
                    .rev()
                    .find(|(k, _)| k == key)
                    .map(|(_, v)| *v)
                    .or_else(|| {
                        ruleset
                            .profile(&u.profile)
                            .and_then(|p| p.stats.get(key).copied())
                    })
                    .unwrap_or(0)
            };
            if stat(CLUBS) <= 0 {
                notes.push(format!(
                    "{}: {} has Clubs 0, so no action points when it activates.",
                    b.name, u.name
                ));
            }
            if stat(SPADES) <= 0 {
                notes.push(format!(
                    "{}: {} has Spades 0, so its first wound takes it out of action.",
                    b.name, u.name
                ));
            }
            let (held, empty) = (stat(WEAPON_HANDS), stat(EMPTY_HANDS));
            if held + empty > hands {
                notes.push(format!(
                    "{}: {} holds weapons in {held} hand(s) and has {empty} empty: {} hands, where a unit usually has {hands}.",
                    b.name,
                    u.name,
                    held + empty
                ));
            }
        }
    }
    notes
}

/// Parses a band typed as `Name:profile` items separated by commas or
/// spaces, optionally with the unit's own stats (`Sharpe:rifleman:h2d4c3s2a0`).
/// A profile may be named by any unambiguous start of its id.
pub fn parse_units(text: &str, ruleset: &Ruleset) -> Result<Vec<UnitSetup>, String> {
    super::common::all_or_problems(parse_units_all(text, ruleset))
}

/// Every unit of `text` that parses, and what is wrong with the others. A
/// name may have spaces (`Old Sam:rifleman`) or `_` (`Old_Sam:rifleman`).
pub fn parse_units_all(text: &str, ruleset: &Ruleset) -> (Vec<UnitSetup>, Vec<String>) {
    super::common::parse_tokens_with_spaced_names(text, |item| parse_unit(item, ruleset))
}

/// One unit typed as `Name:profile[:stats]`.
fn parse_unit(item: &str, ruleset: &Ruleset) -> Result<UnitSetup, String> {
    let mut parts = item.split(':');
    let name = super::common::typed_name(parts.next().unwrap_or_default());
    // A fourth part would be dropped without a word: stats are one group.
    if item.split(':').count() > 3 {
        return Err(format!(
            "`{item}` has more than Name:profile:stats; write the stats as one group (h3a2)"
        ));
    }
    let profile = parts
        .next()
        .ok_or_else(|| format!("`{item}` needs a profile: Name:profile"))?;
    let profile = find_profile(profile, ruleset)
        .ok_or_else(|| format!("`{profile}` (for {name}) is not a profile"))?;
    let stats = match parts.next() {
        Some(s) => parse_stats(s).map_err(|e| format!("{name}: {e}"))?,
        None => Vec::new(),
    };
    Ok(UnitSetup {
        name,
        profile,
        stats,
    })
}

fn find_profile(text: &str, ruleset: &Ruleset) -> Option<String> {
    let t = text.trim().to_lowercase();
    if let Some(p) = ruleset.profile(&t) {
        return Some(p.id.clone());
    }
    let mut hits = ruleset.profiles.iter().filter(|p| p.id.starts_with(&t));
    match (hits.next(), hits.next()) {
        (Some(p), None) => Some(p.id.clone()),
        _ => None,
    }
}

/// Parses `h2d4c3s2a0` (any order, any subset) into stat overrides.
fn parse_stats(text: &str) -> Result<Vec<(String, i32)>, String> {
    let mut out = Vec::new();
    let mut chars = text.trim().chars().peekable();
    while let Some(c) = chars.next() {
        let key = match c.to_ascii_lowercase() {
            'h' => HEARTS,
            'd' => DIAMONDS,
            'c' => CLUBS,
            's' => SPADES,
            'a' => ARMOUR,
            'e' => EMPTY_HANDS,
            'w' => WEAPON_HANDS,
            'm' => MOUNTED,
            't' => MOUNTED_TRAINING,
            'g' => STRONG,
            'i' => GUARD,
            // Rounds: a modified gun's ammunition, both starting and maximum.
            'r' => AMMO,
            other => {
                return Err(format!(
                    "`{other}` is not a stat letter (h d c s a, e empty hands, w weapon hands, m mounted, t mounted training, g strong, i Guard range, r rounds)"
                ));
            }
        };
        let mut digits = String::new();
        while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            digits.push(*d);
            chars.next();
        }
        let v = digits
            .parse()
            .map_err(|_| format!("`{c}` needs a number after it"))?;
        if key == AMMO {
            out.push((AMMO_MAX.to_string(), v));
        }
        out.push((key.to_string(), v));
    }
    Ok(out)
}

/// Plays a whole game: bands and decks, deployment, then turns until a band
/// is wiped out, fails a Rout Check, or the players stop.
pub fn play(ctx: &mut Ctx, setup: &GameSetup) -> Flow<()> {
    if let Err(errors) = check_setup(setup, ctx.ruleset) {
        super::common::refuse_setup(ctx, "setup", errors);
        return Ok(());
    }
    super::common::begin_question_order(ctx, setup.question_order);
    for (side, b) in setup.bands.iter().enumerate() {
        if ctx.state().sides.len() <= side {
            ctx.apply(Effect::AddSide {
                name: b.name.clone(),
                back: Some(b.back),
            });
        }
        for u in &b.units {
            let Some(profile) = ctx.ruleset.profile(&u.profile).cloned() else {
                continue;
            };
            let mut stats = profile.stats.clone();
            stats.extend(u.stats.iter().cloned());
            let spades = stats.get(SPADES).copied().unwrap_or(1).max(0) as u32;
            ctx.apply(Effect::AddUnit(UnitSpec {
                side,
                name: u.name.clone(),
                profile: profile.id.clone(),
                cards: Vec::new(),
                stats,
                soldiers: 1,
                // Wounds stop at Spades (Death's Door); one more takes the
                // unit out of action.
                wounds_per_soldier: spades + 1,
                upgrades: Vec::new(),
            }));
        }
        ctx.apply(Effect::AddDeck {
            name: format!("{}'s deck", b.name),
            packs: vec![Pack {
                back: b.back,
                jokers: num(ctx, "jokers_per_deck") > 0,
            }],
        });
    }
    let first = deployment(ctx)?;
    for t in 1.. {
        turn::play_turn(ctx, t, first)?;
        if ctx.state().outcome.is_some() {
            return Ok(());
        }
    }
    Ok(())
}

/// The band with fewer models chooses to deploy first and act second, or the
/// reverse (a roll-off picks the chooser when they are equal). Returns the
/// side that activates first each turn.
fn deployment(ctx: &mut Ctx) -> Flow<SideId> {
    let size = |ctx: &Ctx, s: SideId| ctx.state().units_of(s).count();
    let (red, blue) = (size(ctx, 0), size(ctx, 1));
    let (chooser, why) = match red.cmp(&blue) {
        std::cmp::Ordering::Less => (0, format!("has fewer models ({red} to {blue})")),
        std::cmp::Ordering::Greater => (1, format!("has fewer models ({blue} to {red})")),
        std::cmp::Ordering::Equal => (
            super::common::roll_off_for(
                ctx,
                &[0, 1],
                "deployment-objectives",
                "who chooses the deployment",
            )?,
            format!("won the roll-off (both have {red} models)"),
        ),
    };
    let name = ctx.state().side_name(chooser);
    let picked = ctx.choose(
        format!("{name} {why}: deploy first, or act first?"),
        vec![
            Choice::new("deploy-first", "Deploy first, activate second"),
            Choice::new("deploy-second", "Deploy second, activate first"),
        ],
        Some("deployment-objectives"),
    )?;
    let first = if picked == "deploy-second" {
        chooser
    } else {
        other(chooser)
    };
    let deploys = ctx.state().side_name(other(first));
    let acts = ctx.state().side_name(first);
    // Logged as soon as it is chosen, so the log explains the deployment.
    ctx.resolved(
        "deployment-objectives",
        format!("{name} chooses: {deploys} deploys first, {acts} activates first every turn"),
    );
    ctx.confirm(
        format!("{deploys} deploys first, then the other band; confirm when both are on the table"),
        Some("deployment-objectives"),
    )?;
    Ok(first)
}

// ----- helpers shared by the modules -----

/// The other of the two sides.
pub(crate) fn other(side: SideId) -> SideId {
    1 - side.min(1)
}

/// Each player's deck has the side's index.
pub(crate) fn deck_of(side: SideId) -> DeckId {
    side
}

/// A unit's stat (0 when missing).
pub(crate) fn stat(ctx: &Ctx, unit: UnitId, key: &str) -> i32 {
    ctx.state().units.get(unit).map_or(0, |u| u.stat(key))
}

/// Sets a stat, logging nothing when it already has that value (a missing
/// stat counts as 0).
pub(crate) fn set_stat(ctx: &mut Ctx, unit: UnitId, key: &str, value: i32) {
    if stat(ctx, unit, key) != value {
        ctx.apply(Effect::SetStat {
            unit,
            stat: key.into(),
            value,
        });
    }
}

/// Sets or clears a status, logging nothing when unchanged.
pub(crate) fn set_status(ctx: &mut Ctx, unit: UnitId, status: &str, on: bool) {
    if ctx
        .state()
        .units
        .get(unit)
        .is_some_and(|u| u.has(status) != on)
    {
        ctx.apply(Effect::SetStatus {
            unit,
            status: status.into(),
            on,
        });
    }
}

/// Counter kind of the melee between two units ([`common::pair_key`]).
const MELEE: &str = "melee";
/// Counter kind for "the table said these two are out of each other's
/// melee reach"; it holds within one activation.
const APART: &str = "apart";

/// The units `unit` is in melee with (each melee is a pair of units, started
/// by a melee hit).
pub(crate) fn melee_partners(ctx: &Ctx, unit: UnitId) -> Vec<UnitId> {
    common::paired_with(ctx.state(), MELEE, unit)
        .into_iter()
        // A partner removed by an edit is in no melee.
        .filter(|&p| ctx.state().units.get(p).is_some_and(|u| u.in_play()))
        .collect()
}

/// Starts or ends the melee between `a` and `b`; each unit's "in melee"
/// status follows whether it is still in any melee.
pub(crate) fn set_melee(ctx: &mut Ctx, a: UnitId, b: UnitId, on: bool) {
    common::set_pair(ctx, MELEE, a, b, on);
    for u in [a, b] {
        let engaged = !melee_partners(ctx, u).is_empty();
        set_status(ctx, u, IN_MELEE, engaged);
    }
}

/// Notes that the table found `a` and `b` out of each other's melee reach,
/// so melee abilities leave `b` out of `a`'s targets (and the reverse) until
/// one of them moves or another activation begins.
pub(crate) fn set_apart(ctx: &mut Ctx, a: UnitId, b: UnitId) {
    common::set_pair(ctx, APART, a, b, true);
}

/// Whether the table said `a` and `b` are out of melee reach (see [`set_apart`]).
pub(crate) fn apart(ctx: &Ctx, a: UnitId, b: UnitId) -> bool {
    common::paired(ctx, APART, a, b)
}

/// Forgets what the table said of melee reach: of pairs with `unit` when it
/// moves, or of every pair (`None`) when an activation begins.
pub(crate) fn forget_apart(ctx: &mut Ctx, unit: Option<UnitId>) {
    common::clear_pairs(ctx, APART, unit);
}

/// Ends every melee `unit` is in (it went out of action).
pub(crate) fn end_melees_of(ctx: &mut Ctx, unit: UnitId) {
    for p in melee_partners(ctx, unit) {
        set_melee(ctx, unit, p, false);
    }
}

/// The stat a suit's skill checks draw on.
pub(crate) fn suit_stat(suit: Suit) -> &'static str {
    match suit {
        Suit::Hearts => HEARTS,
        Suit::Diamonds => DIAMONDS,
        Suit::Clubs => CLUBS,
        Suit::Spades => SPADES,
    }
}

/// Units of `side` still in play.
pub(crate) fn units_of(ctx: &Ctx, side: SideId) -> Vec<UnitId> {
    ctx.state().units_of(side).map(|(i, _)| i).collect()
}

/// A unit's wounds and Spades.
pub(crate) fn wounds(ctx: &Ctx, unit: UnitId) -> (u32, u32) {
    let w = ctx.state().units.get(unit).map_or(0, |u| u.wounds());
    (w, stat(ctx, unit, SPADES).max(0) as u32)
}

/// The stable choice for a unit: `u<id>` with its state.
pub(crate) fn unit_choice(ctx: &Ctx, unit: UnitId) -> Choice {
    let name = ctx.state().unit_name(unit);
    let (w, s) = wounds(ctx, unit);
    let door = if w >= s { ", Death's Door" } else { "" };
    Choice::new(format!("u{unit}"), format!("{name} ({w}/{s} wounds{door})"))
}

/// The abilities `unit` can use: universal ones, then its profile's.
pub(crate) fn abilities_of(ctx: &Ctx, unit: UnitId) -> Vec<Ability> {
    let profile = ctx
        .state()
        .units
        .get(unit)
        .and_then(|u| ctx.ruleset.profile(&u.profile));
    let own = profile.map(|p| p.abilities.clone()).unwrap_or_default();
    let mut out: Vec<Ability> = ctx
        .ruleset
        .abilities
        .iter()
        .filter(|a| a.universal && !own.contains(&a.id))
        .cloned()
        .collect();
    out.extend(own.iter().filter_map(|id| ctx.ruleset.ability(id).cloned()));
    out
}

/// Ends the game when a band has no unit left. Returns true when it is over.
pub(crate) fn check_wipeout(ctx: &mut Ctx) -> bool {
    if ctx.state().outcome.is_some() {
        return true;
    }
    for side in 0..2 {
        if units_of(ctx, side).is_empty() {
            let winner = other(side);
            let reason = format!("{} has no unit left", ctx.state().side_name(side));
            ctx.end_game(
                "deployment-objectives",
                Outcome {
                    winner: Some(winner),
                    reason,
                },
            );
            return true;
        }
    }
    false
}

/// The players stop (a scenario's end): they say who won.
pub(crate) fn stop_game(ctx: &mut Ctx) -> Flow<()> {
    // A stray click on Stop is taken back here: first, key 1 as in the
    // other games. The results end the game: their ids begin `stop:`,
    // which the window never keys (audit AO1); saves answered the old ids.
    let mut options = vec![Choice::new("on", "Not yet: go on playing")];
    options.extend((0..2).map(|s| {
        Choice::new(
            format!("stop:side{s}"),
            format!("{} won", ctx.state().side_name(s)),
        )
        .formerly(format!("side{s}"))
    }));
    options.push(Choice::new("stop:draw", "A draw").formerly("draw"));
    let picked = ctx.choose(
        "The game stops here: who won the scenario?",
        options,
        Some("deployment-objectives"),
    )?;
    if picked == "on" {
        return Ok(());
    }
    let winner = (0..2).find(|s| picked == format!("stop:side{s}"));
    let reason = match winner {
        Some(w) => format!(
            "The players stopped; {} won the scenario",
            ctx.state().side_name(w)
        ),
        None => "The players stopped; the scenario is a draw".to_string(),
    };
    ctx.end_game("deployment-objectives", Outcome { winner, reason });
    Ok(())
}
