//! Gunfight Gang: gangs of four gunmen, a five-card hand each turn, a d6 for
//! damage.
//!
//! Adjutant keeps the books the players would otherwise keep on paper: the
//! initiative order from the revealed bids (rank, suit, then back colour),
//! every gunman's lives, what each shot needs and whether it hits, movement
//! allowances from the cards played, and the civilians' reactions from the
//! top card of the deck. Players hold their real hands; the cards they play
//! are shown to the camera or typed. [`turn`] runs turns and goes, [`moves`]
//! movement, [`shooting`] shots, saves, damage and civilians.

pub mod moves;
pub mod shooting;
pub mod turn;

#[cfg(test)]
mod flows;

pub(crate) use super::common::{num, yes_no};
use super::effect::{Effect, UnitSpec};
use super::games::Requirements;
use super::procedure::{Choice, Ctx, Flow};
use super::ruleset::Ruleset;
use super::state::{Outcome, SideId, UnitId};
use crate::table::{BackColour, Card, Suit};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the Gunfight code needs from `rulesets/gunfight.ron`.
pub const REQUIREMENTS: Requirements = Requirements {
    numbers: &[
        "gang_size",
        "hand_size",
        "initiative_cards",
        "lives",
        "damage_dice",
        "pistol_range",
        "rifle_range",
        "cover_modifier",
        "overwatch_modifier",
        "interrupt_move_modifier",
        "fan_shot_modifier",
        "height_modifier",
        "fan_shot_shots",
        "non_club_move_divisor",
        "no_clubs_max_cards",
        "group_move_card_widths",
        "civilian_reaction_range",
        "civilian_run_multiplier",
    ],
    profiles: &["gunman"],
    rules: &[
        "setup",
        "suits",
        "turn-sequence",
        "initiative",
        "joker-interrupt",
        "card-values",
        "first-moves",
        "movement",
        "interrupt-move",
        "ranges",
        "shooting",
        "modifiers",
        "overwatch",
        "damage",
        "fan-shot",
        "civilian-actions",
        "civilian-reaction",
        "victory",
    ],
    upgrades: &[],
    // Counts and divisors: 0 or less would make no game.
    at_least_one: &[
        "gang_size",
        "hand_size",
        "initiative_cards",
        "lives",
        "damage_dice",
        "non_club_move_divisor",
        "fan_shot_shots",
    ],
    // A hand and its bids come from one pack of 54 (its jokers included).
    at_most: &[
        ("hand_size", 54, "a hand is dealt from one pack of 54"),
        ("initiative_cards", 54, "the bid comes from one pack of 54"),
    ],
    not_above: &[("initiative_cards", "hand_size")],
};

/// A gunman's weapon.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Weapon {
    /// 12 in; can fan-shot with a Joker.
    #[default]
    Pistol,
    /// 18 in.
    Rifle,
}

impl Weapon {
    /// The status flag that marks the weapon on a unit.
    pub fn id(self) -> &'static str {
        match self {
            Weapon::Pistol => "pistol",
            Weapon::Rifle => "rifle",
        }
    }

    /// Parses `pistol` / `rifle` (any case).
    pub fn parse(s: &str) -> Option<Weapon> {
        match s.trim().to_lowercase().as_str() {
            "pistol" | "p" => Some(Weapon::Pistol),
            "rifle" | "r" => Some(Weapon::Rifle),
            _ => None,
        }
    }
}

/// One gunman at setup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GunmanSetup {
    /// Name shown to players.
    pub name: String,
    /// His weapon.
    #[serde(default)]
    pub weapon: Weapon,
}

/// One player's gang and pack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GangSetup {
    /// Player (side) name.
    pub name: String,
    /// Back colour of the pack this player plays from (breaks initiative
    /// ties between identical cards).
    pub back: BackColour,
    /// The gunmen.
    pub gunmen: Vec<GunmanSetup>,
}

/// Everything a Gunfight game starts from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct GameSetup {
    /// The gangs, in seating order (sides 0, 1, ...).
    pub gangs: Vec<GangSetup>,
    /// Civilians are on the table: they react to shots and can be shot.
    #[serde(default)]
    pub civilians: bool,
    /// The order of questions the game was begun with: 0 (left out) for
    /// games and scripts made before [`QUESTION_ORDER`] 1, whose answers
    /// stand in that order; the window begins games with the newest.
    #[serde(default, skip_serializing_if = "super::common::is_zero")]
    pub question_order: u32,
}

/// The newest order of questions ([`GameSetup::question_order`]): 1 ends
/// the game on the shot that leaves one gang standing, before civilians
/// react to it, lets each gunman fire on overwatch once at one move or
/// shot (not again and again at the same figure), and turns civilians'
/// cards from a pack of their own, each card once a turn.
pub const QUESTION_ORDER: u32 = 1;

/// Checks a setup; returns every problem in a sentence.
pub fn check_setup(setup: &GameSetup, ruleset: &Ruleset) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    let size = ruleset.number("gang_size").max(1) as usize;
    if setup.gangs.len() < 2 {
        errors.push(format!(
            "Gunfight needs at least two gangs; the setup lists {}.",
            setup.gangs.len()
        ));
    }
    for g in &setup.gangs {
        if g.gunmen.len() != size {
            errors.push(gang_size_problem(g, size as i64));
        }
        if g.gunmen.iter().any(|m| m.name.trim().is_empty()) {
            errors.push(format!("{} has a gunman without a name.", g.name));
        }
    }
    errors.extend(super::common::side_name_problems(
        setup.gangs.iter().map(|g| g.name.as_str()),
    ));
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// Says that gang `g` does not have the `size` gunmen a gang has.
pub fn gang_size_problem(g: &GangSetup, size: i64) -> String {
    format!(
        "{} has {} gunmen; a gang is {size}.",
        g.name,
        g.gunmen.len()
    )
}

/// Gunmen typed as `Name` or `Name:weapon`, separated by spaces or commas;
/// every problem in one sentence.
pub fn parse_gunmen(text: &str) -> Result<Vec<GunmanSetup>, String> {
    super::common::parse_all_tokens(text, parse_gunman)
}

/// Every gunman that parses, and a problem for each that does not (a form
/// lists them all at once).
pub fn parse_gunmen_all(text: &str) -> (Vec<GunmanSetup>, Vec<String>) {
    super::common::parse_tokens(text, parse_gunman)
}

/// One gunman typed as `Name` or `Name:weapon` (a pistol when none).
fn parse_gunman(item: &str) -> Result<GunmanSetup, String> {
    let (name, weapon) = item.split_once(':').unwrap_or((item, "pistol"));
    let weapon = Weapon::parse(weapon)
        .ok_or_else(|| format!("`{weapon}` (for {name}) is not a weapon: pistol or rifle"))?;
    Ok(GunmanSetup {
        name: super::common::typed_name(name),
        weapon,
    })
}

/// Plays a whole game: gangs, then turns until one gang is left standing or
/// the players stop.
pub fn play(ctx: &mut Ctx, setup: &GameSetup) -> Flow<()> {
    if let Err(errors) = check_setup(setup, ctx.ruleset) {
        super::common::refuse_setup(ctx, "setup", errors);
        return Ok(());
    }
    super::common::begin_question_order(ctx, setup.question_order);
    let lives = ctx.ruleset.number("lives").max(1) as u32;
    for (side, g) in setup.gangs.iter().enumerate() {
        if ctx.state().sides.len() <= side {
            ctx.apply(Effect::AddSide {
                name: g.name.clone(),
                back: Some(g.back),
            });
        }
        for m in &g.gunmen {
            let first = ctx.state().units.len();
            ctx.apply(Effect::AddUnit(UnitSpec {
                side,
                name: m.name.clone(),
                profile: "gunman".into(),
                cards: Vec::new(),
                stats: BTreeMap::new(),
                soldiers: 1,
                wounds_per_soldier: lives,
                upgrades: Vec::new(),
            }));
            ctx.apply(Effect::SetStatus {
                unit: first,
                status: m.weapon.id().into(),
                on: true,
            });
        }
        ctx.resolved(
            "setup",
            format!(
                "{} has {} gunmen and plays {}",
                g.name,
                g.gunmen.len(),
                g.back.pack_words()
            ),
        );
    }
    if setup.civilians {
        ctx.apply(Effect::SetCounter {
            key: shooting::CIVILIANS_COUNTER.into(),
            value: 1,
        });
        // Said, or players find out only when one is first a target.
        ctx.resolved(
            "civilian-reaction",
            "Civilians are on the table: after each shot, those near it may react",
        );
    }
    for turn in 1.. {
        turn::play_turn(ctx, turn)?;
        if ctx.state().outcome.is_some() {
            return Ok(());
        }
    }
    Ok(())
}

// ----- small helpers shared by the modules -----

/// A gunman's lives left.
pub(crate) fn lives_left(ctx: &Ctx, unit: UnitId) -> u32 {
    let Some(u) = ctx.state().units.get(unit) else {
        return 0;
    };
    if !u.in_play() {
        return 0;
    }
    u.wounds_left()
}

/// Gangs that still have a gunman standing.
pub(crate) fn gangs_standing(ctx: &Ctx) -> Vec<SideId> {
    (0..ctx.state().sides.len())
        .filter(|&s| ctx.state().units_of(s).next().is_some())
        .collect()
}

/// Ends the game when at most one gang is left standing. Returns true when
/// the game is over.
pub(crate) fn check_victory(ctx: &mut Ctx) -> bool {
    if ctx.state().outcome.is_some() {
        return true;
    }
    let standing = gangs_standing(ctx);
    if standing.len() > 1 {
        return false;
    }
    let outcome = match standing.first() {
        Some(&w) => Outcome {
            winner: Some(w),
            reason: format!("{} is the last gang standing", ctx.state().side_name(w)),
        },
        None => Outcome {
            winner: None,
            reason: "No gunman is left standing".into(),
        },
    };
    ctx.end_game("victory", outcome);
    true
}

/// Ends the game where the players stopped: the gang with the most lives
/// left wins (a tie is a draw).
pub(crate) fn stop_game(ctx: &mut Ctx) {
    let totals: Vec<(SideId, u32)> = (0..ctx.state().sides.len())
        .map(|s| {
            let ids: Vec<UnitId> = ctx.state().units_of(s).map(|(i, _)| i).collect();
            (s, ids.iter().map(|&i| lives_left(ctx, i)).sum())
        })
        .collect();
    let best = totals.iter().map(|t| t.1).max().unwrap_or(0);
    let leaders: Vec<SideId> = totals.iter().filter(|t| t.1 == best).map(|t| t.0).collect();
    let summary: Vec<String> = totals
        .iter()
        .map(|(s, l)| format!("{} {l}", ctx.state().side_name(*s)))
        .collect();
    let outcome = match leaders.as_slice() {
        [w] => Outcome {
            winner: Some(*w),
            reason: format!(
                "The players stopped; {} has the most lives left ({})",
                ctx.state().side_name(*w),
                summary.join(", ")
            ),
        },
        _ => Outcome {
            winner: None,
            reason: format!(
                "The players stopped; lives left are tied ({})",
                summary.join(", ")
            ),
        },
    };
    ctx.end_game("victory", outcome);
}

/// A gunman's weapon (pistol unless marked rifle).
pub(crate) fn weapon(ctx: &Ctx, unit: UnitId) -> Weapon {
    match ctx.state().units.get(unit) {
        Some(u) if u.has(Weapon::Rifle.id()) => Weapon::Rifle,
        _ => Weapon::Pistol,
    }
}

/// The stable choice for a gunman: `g<id>` with his name and lives.
pub(crate) fn gunman_choice(ctx: &Ctx, unit: UnitId) -> Choice {
    let name = ctx.state().unit_name(unit);
    let side = ctx
        .state()
        .units
        .get(unit)
        .map_or_else(String::new, |u| ctx.state().side_name(u.side));
    Choice::new(
        format!("g{unit}"),
        format!(
            "{name} ({side}, {}, {})",
            weapon(ctx, unit).id(),
            match lives_left(ctx, unit) {
                1 => "1 life".to_string(),
                n => format!("{n} lives"),
            }
        ),
    )
}

/// Picks a gunman among `ids` (asks only when there is a choice).
pub(crate) fn pick_gunman(
    ctx: &mut Ctx,
    prompt: &str,
    ids: &[UnitId],
    rule: &str,
) -> Flow<Option<UnitId>> {
    match ids {
        [only] => Ok(Some(*only)),
        _ => super::common::pick(ctx, prompt, ids, gunman_choice, None, rule),
    }
}

/// Gunmen of `side` still standing.
pub(crate) fn gunmen_of(ctx: &Ctx, side: SideId) -> Vec<UnitId> {
    ctx.state().units_of(side).map(|(i, _)| i).collect()
}

/// Gunmen of every side but `side` still standing.
pub(crate) fn enemies_of(ctx: &Ctx, side: SideId) -> Vec<UnitId> {
    (0..ctx.state().sides.len())
        .filter(|&s| s != side)
        .flat_map(|s| gunmen_of(ctx, s))
        .collect()
}

/// A card's value (Ace 11, court 10, others face; a Joker has none).
pub(crate) fn value(ctx: &Ctx, card: Card) -> Option<i32> {
    // A Joker has no suit and no value.
    card.suit()?;
    ctx.ruleset.cards.value(card)
}

/// Asks for one card shown on the table until it passes `ok` (a refused
/// card is logged with `why` and asked again).
pub(crate) fn one_card(
    ctx: &mut Ctx,
    side: SideId,
    prompt: &str,
    rule: &str,
    ok: impl Fn(Card) -> bool,
    why: &str,
) -> Flow<Card> {
    loop {
        if let Some(&c) = play_cards(ctx, side, 1, prompt, rule, &ok, why)?.first() {
            return Ok(c);
        }
    }
}

/// `n` cards that `side` plays together (a move), none of them played
/// already this turn.
pub(crate) fn cards_played(
    ctx: &mut Ctx,
    side: SideId,
    n: u32,
    prompt: &str,
    rule: &str,
) -> Flow<Vec<Card>> {
    play_cards(ctx, side, n, prompt, rule, &|_| true, "")
}

/// Asks for `n` cards `side` plays until none is named twice, played
/// already this turn, or refused by `ok` (logged with `why`); marks them
/// played.
fn play_cards(
    ctx: &mut Ctx,
    side: SideId,
    n: u32,
    prompt: &str,
    rule: &str,
    ok: &dyn Fn(Card) -> bool,
    why: &str,
) -> Flow<Vec<Card>> {
    loop {
        let played = played_cards(ctx, side);
        let cards = ctx.shown_except(n, prompt, Some(rule), played)?;
        // One pack holds each card once.
        if let Some(c) = cards
            .iter()
            .enumerate()
            .find(|(i, c)| cards[..*i].contains(c))
            .map(|(_, c)| c)
        {
            ctx.refused(
                rule,
                format!("{c} is named twice: a pack holds each card once"),
            );
            continue;
        }
        let left = cards_left(ctx, side);
        if cards.len() as i64 > left {
            ctx.refused(
                rule,
                format!(
                    "{} holds only {left} card(s) of the {} dealt this turn",
                    ctx.state().side_name(side),
                    ctx.ruleset.number("hand_size")
                ),
            );
            continue;
        }
        if let Some(c) = cards.iter().find(|&&c| played_this_turn(ctx, side, c)) {
            ctx.refused(
                rule,
                format!("{c} has been played this turn already (each card once, the initiative card included)"),
            );
            continue;
        }
        if let Some(c) = cards.iter().find(|&&c| !ok(c)) {
            // Adjutant cannot see the hand: a player who chose to play a
            // card the hand does not hold gets the way back named.
            ctx.refused(
                rule,
                format!("{c} cannot be played here: {why} (none in hand? Undo to choose again)"),
            );
            continue;
        }
        mark_played(ctx, side, &cards);
        return Ok(cards);
    }
}

/// Counter key of a card `side` played this turn.
fn played_key(side: SideId, card: Card) -> String {
    format!("{PLAYED_PREFIX}{side}:{card}")
}

/// `sides` parted into those still holding a card and those whose hand is
/// played out (offered no Joker cut-in and no overwatch fire; older saves'
/// answers naming them are kept as former ids of the option left).
pub(crate) fn by_cards_left(ctx: &Ctx, sides: Vec<SideId>) -> (Vec<SideId>, Vec<SideId>) {
    sides.into_iter().partition(|&s| cards_left(ctx, s) > 0)
}

/// `choice`, also taking what older saves answered for each side of
/// `played_out` when it was still offered: its id (`<prefix>-<side>`) and
/// its label (`<side name> <what> (no card left)`).
pub(crate) fn formerly_played_out(
    ctx: &Ctx,
    mut choice: Choice,
    played_out: &[SideId],
    prefix: &str,
    what: &str,
) -> Choice {
    for &s in played_out {
        let name = ctx.state().side_name(s);
        choice = choice
            .formerly(format!("{prefix}-{s}"))
            .formerly(format!("{name} {what} (no card left)"));
    }
    choice
}

/// Prefix of the counters of cards played this turn (cleared each turn).
pub(crate) const PLAYED_PREFIX: &str = "played:";

/// Whether `side` may still hold a Joker: not both already played this turn.
pub(crate) fn joker_left(ctx: &Ctx, side: SideId) -> bool {
    ["XR", "XB"]
        .iter()
        .filter_map(|code| code.parse::<Card>().ok())
        .any(|j| !played_this_turn(ctx, side, j))
}

/// Cards `side` still holds: the hand dealt this turn less every card
/// played, the initiative card included (a house rule that bids more cards
/// takes the others out of the hand as well).
pub(crate) fn cards_left(ctx: &Ctx, side: SideId) -> i64 {
    let played = played_cards(ctx, side).len() as i64;
    let hand = ctx.ruleset.number("hand_size");
    // The bid itself is one card: at least that one is always in hand.
    let bid_extra = (ctx.ruleset.number("initiative_cards") - 1).clamp(0, (hand - 1).max(0));
    (hand - played - bid_extra).max(0)
}

/// The cards `side` has played this turn (the initiative card included),
/// in card order.
fn played_cards(ctx: &Ctx, side: SideId) -> Vec<Card> {
    let prefix = format!("{PLAYED_PREFIX}{side}:");
    let mut cards: Vec<Card> = ctx
        .state()
        .counters
        .iter()
        .filter(|(_, v)| **v != 0)
        .filter_map(|(k, _)| k.strip_prefix(&prefix)?.parse().ok())
        .collect();
    cards.sort();
    cards
}

fn played_this_turn(ctx: &Ctx, side: SideId, card: Card) -> bool {
    ctx.state().counter(&played_key(side, card)) > 0
}

fn mark_played(ctx: &mut Ctx, side: SideId, cards: &[Card]) {
    for &c in cards {
        ctx.apply(Effect::SetCounter {
            key: played_key(side, c),
            value: 1,
        });
    }
}

/// Prefix of the counters of the civilians' pack's cards turned this turn
/// (cleared each turn with the played cards).
const CIVILIAN_PREFIX: &str = "civilian:";

/// Turns the top card of the civilians' pack (`what` it is turned for).
/// From question order 1 that pack is named, and a card it has already
/// turned this turn is greyed out and refused: one pack cannot turn 7h twice
/// (l.59-60 say only "the deck"; Adjutant's ruling: a pack of their own).
pub(crate) fn civilian_card(ctx: &mut Ctx, what: &str, rule: &str) -> Flow<Option<Card>> {
    if super::common::question_order(ctx) < 1 {
        let drawn = ctx.turned_from_pack(
            1,
            format!("{what}: turn the top card of the deck"),
            Some(rule),
            Vec::new(),
        )?;
        return Ok(drawn.first().copied());
    }
    let turned: Vec<Card> = ctx
        .state()
        .counters
        .iter()
        .filter(|(_, v)| **v != 0)
        .filter_map(|(k, _)| k.strip_prefix(CIVILIAN_PREFIX)?.parse().ok())
        .collect();
    loop {
        let drawn = ctx.turned_from_pack(
            1,
            format!("{what}: turn the top card of the civilians' pack"),
            Some(rule),
            turned.clone(),
        )?;
        let Some(&card) = drawn.first() else {
            return Ok(None);
        };
        if turned.contains(&card) {
            ctx.refused(
                rule,
                format!("{card} has been turned for a civilian this turn already: the civilians' pack holds each card once"),
            );
            continue;
        }
        ctx.apply(Effect::SetCounter {
            key: format!("{CIVILIAN_PREFIX}{card}"),
            value: 1,
        });
        return Ok(Some(card));
    }
}

/// Every card goes back into its pack: none counts as played (or turned
/// for a civilian) any more.
pub(crate) fn clear_played(ctx: &mut Ctx) {
    let keys: Vec<String> = ctx
        .state()
        .counters
        .iter()
        .filter(|(k, v)| {
            (k.starts_with(PLAYED_PREFIX) || k.starts_with(CIVILIAN_PREFIX)) && **v != 0
        })
        .map(|(k, _)| k.clone())
        .collect();
    for key in keys {
        ctx.apply(Effect::SetCounter { key, value: 0 });
    }
}

/// True for a card of one of `suits`.
pub(crate) fn is_suit(card: Card, suits: &[Suit]) -> bool {
    card.suit().is_some_and(|s| suits.contains(&s))
}
