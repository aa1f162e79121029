//! T52: Turnip28 played with a deck of cards.
//!
//! The game is split by topic: [`regiment`] builds rosters from cards,
//! [`round`] runs activations, [`orders`] the four orders, [`engagement`]
//! shooting and melee, [`panic`](mod@panic) Panic Tests, [`objectives`] holders and
//! victory. Everything the players see on the table but Adjutant cannot
//! (range, cover, who reached whom) is asked as a choice.

pub mod engagement;
pub mod objectives;
pub mod orders;
pub mod panic;
pub mod regiment;
pub mod round;

#[cfg(test)]
mod flows;
#[cfg(test)]
mod testkit;

pub(crate) use super::common::{num, yes_no};
use super::effect::Effect;
use super::games::Requirements;
use super::procedure::{Choice, Ctx, Flow};
use super::ruleset::Ruleset;
use super::state::{SideId, Terrain, Unit, UnitId};
use crate::table::{Card, Rank};
pub use regiment::{
    LaidCard, Regiment, UnitCards, UnitKind, build_regiment, group_laid_out, parse_units,
    parse_units_in_part,
};
use serde::{Deserialize, Serialize};

/// What the T52 code needs from `rulesets/t52.ron`.
pub const REQUIREMENTS: Requirements = Requirements {
    numbers: &[
        "rounds",
        "upgrade_points",
        "upgrade_cost_value_4",
        "upgrade_cost_other",
        "stat_cap",
        "max_copies_per_value",
        "toffs_per_player",
        "snobs_per_player",
        "toff_followers",
        "snob_followers",
        "blunder_ordered",
        "blunder_unordered",
        "panic_threshold",
        "volley_inaccuracy",
        "melee_weapon_inaccuracy",
        "cover_vulnerability",
        "defensible_inaccuracy",
        "skirmisher_inaccuracy",
        "improbable_first",
        "improbable_second",
        "fearless_target",
        "mob_soldiers",
        "bowel_loosening_rerolls",
        "charge_extra_reach",
        "lump_shot_dice",
        "lump_shot_wounds",
        "canister_dice",
        "canister_range",
        "misfire_face",
        "retreat_per_missing",
        "melee_max_repeats",
        "objective_range",
    ],
    profiles: &["toff", "snob", "follower", "cavalry", "artillery"],
    rules: &[
        "regiment",
        "upgrades",
        "initiative",
        "terrain",
        "cover",
        "defensible",
        "dangerous-terrain",
        "objectives",
        "rounds",
        "blunder",
        "volley",
        "move-and-shoot",
        "march",
        "charge",
        "stand-and-shoot",
        "return-fire",
        "shooting",
        "melee",
        "improbable-hits",
        "wounds",
        "retreat",
        "panic",
        "artillery",
        "misfire",
        "equipment",
        "vanguard",
        "dash",
        "victory",
        "sudden-death",
    ],
    upgrades: &[
        "mean",
        "tough",
        "marksman",
        "agile",
        "mob",
        "fearless",
        "sharpshooter",
        "vanguard",
        "skirmisher",
        "dash",
        "bowel-loosening-charge",
    ],
    // Counts and divisors: 0 or less would make no game.
    at_least_one: &["rounds", "stat_cap", "melee_max_repeats", "misfire_face"],
    at_most: &[],
    not_above: &[],
};

/// One player's regiment as laid out on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct PlayerSetup {
    /// Player name (the side's name).
    pub name: String,
    /// The units, each its card with paired cards and upgrades.
    pub units: Vec<UnitCards>,
}

/// A terrain piece's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TerrainKind {
    /// One face-down card.
    Cover,
    /// Two face-down cards crossing.
    Dangerous,
    /// Two face-down cards side by side.
    Defensible,
}

impl TerrainKind {
    /// The kind as stored in the game state.
    pub fn id(self) -> &'static str {
        match self {
            TerrainKind::Cover => "cover",
            TerrainKind::Dangerous => "dangerous",
            TerrainKind::Defensible => "defensible",
        }
    }
}

/// One terrain piece placed at setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerrainSetup {
    /// Its kind.
    pub kind: TerrainKind,
    /// A name players recognise it by ("the wood on the left"); defaults
    /// to the kind and a number.
    #[serde(default)]
    pub name: Option<String>,
}

/// Everything a T52 game starts from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct GameSetup {
    /// The two players, first and second (sides 0 and 1).
    pub players: Vec<PlayerSetup>,
    /// Terrain pieces on the table.
    #[serde(default)]
    pub terrain: Vec<TerrainSetup>,
    /// Objective marker cards: face-up Kings, and one Jack for the centre.
    #[serde(default)]
    pub objectives: Vec<Card>,
    /// The order of questions the game was begun with: 0 (left out) for
    /// games and scripts made before [`QUESTION_ORDER`] 1, whose answers
    /// stand in that order; the window begins games with the newest.
    #[serde(default, skip_serializing_if = "super::common::is_zero")]
    pub question_order: u32,
}

/// The newest order of questions ([`GameSetup::question_order`]):
/// 1 asks an artillery piece's lump shot or canister before the target's
/// cover, which a lump shot ignores, and then leaves the cover question out;
/// 2 also ends a game by sudden death before asking about the markers;
/// 3 ends a charge whose target panicked and fled the table, and asks no
/// misfire check of a gun that the same roll's wounds destroy; 4 ends the
/// game by sudden death the moment the last commander falls, mid-activation.
pub const QUESTION_ORDER: u32 = 4;

/// Checks a whole setup: two differently named players with valid
/// regiments, objective cards that are Kings or one Jack, and no card used
/// twice anywhere (both players share one deck). Returns the regiments, or
/// every problem in a sentence.
pub fn check_setup(setup: &GameSetup, ruleset: &Ruleset) -> Result<Vec<Regiment>, Vec<String>> {
    let (regiments, errors) = setup_problems(setup, ruleset, true);
    if errors.is_empty() {
        Ok(regiments)
    } else {
        Err(errors)
    }
}

/// The regiments `setup` builds and every problem with it. `whole` says
/// the setup lists every player; a form whose other regiment did not even
/// parse checks the rest (objectives, cards used twice) all the same, so
/// every problem is said at once (audit BK K2).
pub fn setup_problems(
    setup: &GameSetup,
    ruleset: &Ruleset,
    whole: bool,
) -> (Vec<Regiment>, Vec<String>) {
    let mut errors = Vec::new();
    let mut regiments = Vec::new();
    if whole && setup.players.len() != 2 {
        errors.push(format!(
            "T52 is played by two players; the setup lists {}.",
            setup.players.len()
        ));
    }
    errors.extend(super::common::side_name_problems(
        setup.players.iter().map(|p| p.name.as_str()),
    ));
    errors.extend(shared_deck_duplicates(setup));
    for p in &setup.players {
        match build_regiment(&p.units, ruleset) {
            Ok(r) => regiments.push(r),
            Err(es) => errors.extend(es.into_iter().map(|e| format!("{}: {e}", p.name))),
        }
    }
    let jacks = setup
        .objectives
        .iter()
        .filter(|c| c.rank() == Some(Rank::Jack))
        .count();
    for c in &setup.objectives {
        if !matches!(c.rank(), Some(Rank::King | Rank::Jack)) {
            errors.push(format!(
                "Objective {c} is not a King or a Jack; markers are face-up Kings and the centre Jack."
            ));
        }
    }
    if jacks > 1 {
        errors.push(format!(
            "{jacks} Jacks among the objectives; only the centre marker is a Jack."
        ));
    }
    (regiments, errors)
}

/// A note when the objectives are not the usual table's (the centre Jack
/// and four Kings the players place): allowed, since the source calls that
/// setup typical, but said before play so nobody is surprised at the count.
pub fn objectives_note(setup: &GameSetup) -> Option<String> {
    let jacks = setup
        .objectives
        .iter()
        .filter(|c| c.rank() == Some(Rank::Jack))
        .count();
    let kings = setup.objectives.len() - jacks;
    (jacks != 1 || kings != USUAL_KINGS).then(|| {
        format!(
            "The usual table has the centre Jack and {USUAL_KINGS} Kings as objectives; this one has {kings} King(s) and {jacks} Jack(s): play on if you agreed to it."
        )
    })
}

/// Kings the players place as objectives on the usual table.
const USUAL_KINGS: usize = 4;

/// Cards used more than once across the two regiments and the objectives
/// (the players share one deck). A card repeated within one regiment only
/// is left to [`build_regiment`], which reports it for that player.
fn shared_deck_duplicates(setup: &GameSetup) -> Vec<String> {
    // Where each card is used: a player's index, or None for the objectives.
    let mut uses: Vec<(Card, Vec<Option<usize>>)> = Vec::new();
    let mut note = |c: Card, place: Option<usize>| match uses.iter_mut().find(|(u, _)| *u == c) {
        Some((_, places)) => places.push(place),
        None => uses.push((c, vec![place])),
    };
    for (i, p) in setup.players.iter().enumerate() {
        for u in &p.units {
            for &c in std::iter::once(&u.card).chain(&u.with) {
                note(c, Some(i));
            }
        }
    }
    for &c in &setup.objectives {
        note(c, None);
    }
    let place_name =
        |place: Option<usize>| match place.and_then(|i| Some((i, setup.players.get(i)?))) {
            // A player not named yet is still told apart.
            Some((i, p)) if p.name.trim().is_empty() => format!("player {}'s regiment", i + 1),
            Some((_, p)) => format!("{}'s regiment", p.name.trim()),
            None => "the objectives".to_string(),
        };
    let mut errors = Vec::new();
    for (c, places) in uses {
        let mut distinct: Vec<Option<usize>> = Vec::new();
        for &p in &places {
            if !distinct.contains(&p) {
                distinct.push(p);
            }
        }
        let within_one_regiment = matches!(distinct.as_slice(), [Some(_)]);
        if places.len() < 2 || within_one_regiment {
            continue;
        }
        let listed: Vec<String> = distinct
            .iter()
            .map(|&d| match places.iter().filter(|&&p| p == d).count() {
                1 => place_name(d),
                n => format!("{} {n} times", place_name(d)),
            })
            .collect();
        errors.push(format!(
            "{c} is used {} times ({}); both players share one deck, so each card can be used once.",
            places.len(),
            listed.join(", ")
        ));
    }
    errors
}

/// Plays a whole game: regiments, terrain, objectives, initiative, Vanguard
/// moves, the rounds, and victory.
pub fn play(ctx: &mut Ctx, setup: &GameSetup) -> Flow<()> {
    let regiments = match check_setup(setup, ctx.ruleset) {
        Ok(r) => r,
        Err(errors) => {
            // A bad setup is reported, not played; the app fixes the cards.
            for e in errors {
                ctx.resolved("regiment", format!("{}{e}", super::common::SETUP_REFUSED));
            }
            return Ok(());
        }
    };
    super::common::begin_question_order(ctx, setup.question_order);
    for (side, (p, r)) in setup.players.iter().zip(&regiments).enumerate() {
        if ctx.state().sides.len() <= side {
            ctx.apply(Effect::AddSide {
                name: p.name.clone(),
                back: None,
            });
        }
        for u in &r.units {
            ctx.apply(Effect::AddUnit(u.spec(side)));
        }
        ctx.resolved(
            "regiment",
            format!(
                "{}'s regiment: {} units, {} upgrade point(s) spent",
                p.name,
                r.units.len(),
                r.upgrade_points_spent
            ),
        );
    }
    // From question order 4 a side that loses its last commander loses at
    // once: not a question more of that activation is put (audit BO O3).
    if super::common::question_order(ctx) >= 4 {
        ctx.end_when(objectives::sudden_death);
    }
    let mut counts = std::collections::BTreeMap::new();
    for t in &setup.terrain {
        let n = counts.entry(t.kind.id()).or_insert(0);
        *n += 1;
        let name = t
            .name
            .clone()
            .unwrap_or_else(|| format!("{} {n}", t.kind.id()));
        ctx.apply(Effect::AddTerrain(Terrain {
            kind: t.kind.id().to_string(),
            name,
        }));
    }
    if let Some(note) = objectives_note(setup) {
        ctx.resolved("objectives", note);
    }
    for &c in &setup.objectives {
        let name = if c.rank() == Some(Rank::Jack) {
            format!("Centre {c}")
        } else {
            format!("King {c}")
        };
        ctx.apply(Effect::AddObjective {
            name,
            card: Some(c),
        });
    }
    let first = super::common::roll_off(ctx, &[0, 1], "initiative")?;
    ctx.apply(Effect::SetInitiative(first));
    // The table is laid out after the roll (l.143-149), before Vanguard
    // moves: said, so the players know who picks and places first (audit
    // CF M1). A line, not a question: games already begun replay as they
    // were.
    let name = ctx.state().side_name(first);
    ctx.resolved(
        "setup",
        format!(
            "{name} picks a table side; taking turns, {name} first, the players place the terrain and then the objective markers above, and deploy within 4 in of their own edge"
        ),
    );
    round::vanguard_moves(ctx, first)?;
    let rounds = ctx.ruleset.number("rounds").max(1) as u32;
    for r in 1..=rounds {
        round::play_round(ctx, r, first)?;
        if ctx.state().outcome.is_some() {
            return Ok(());
        }
    }
    objectives::final_victory(ctx);
    Ok(())
}

// ----- small helpers shared by the modules -----

/// The other player of a two-player game.
pub(crate) fn other(side: SideId) -> SideId {
    1 - side.min(1)
}

/// A unit's kind (Follower for an unknown profile, so it can still be ordered).
pub(crate) fn kind(u: &Unit) -> UnitKind {
    UnitKind::from_profile(&u.profile).unwrap_or(UnitKind::Follower)
}

/// A copy of a unit (units are never deleted, so the id is always valid
/// for ids the procedures got from the state).
pub(crate) fn unit(ctx: &Ctx, id: UnitId) -> Option<Unit> {
    ctx.state().units.get(id).cloned()
}

/// The stable choice id of a unit: its card code.
pub(crate) fn unit_choice(u: &Unit, id: UnitId) -> Choice {
    let code = u
        .cards
        .first()
        .map_or_else(|| format!("u{id}"), |c| c.to_string());
    Choice::new(code, u.name.clone())
}

/// Picks among units: asks when there is a real choice, takes the only one
/// otherwise (and says so in the log).
pub(crate) fn pick_unit(
    ctx: &mut Ctx,
    prompt: &str,
    ids: &[UnitId],
    rule: &str,
) -> Flow<Option<UnitId>> {
    match ids {
        [] => Ok(None),
        [only] => Ok(Some(*only)),
        _ => {
            let options: Vec<Choice> = ids
                .iter()
                .filter_map(|&i| ctx.state().units.get(i).map(|u| unit_choice(u, i)))
                .collect();
            let picked = ctx.choose(prompt, options.clone(), Some(rule))?;
            Ok(ids
                .iter()
                .zip(&options)
                .find(|(_, o)| o.id == picked)
                .map(|(i, _)| *i))
        }
    }
}

/// How many terrain pieces of a kind are on the table.
pub(crate) fn terrain_count(ctx: &Ctx, kind: TerrainKind) -> usize {
    ctx.state()
        .terrain
        .iter()
        .filter(|t| t.kind == kind.id())
        .count()
}
