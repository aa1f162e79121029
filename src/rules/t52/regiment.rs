//! Building a T52 regiment from the cards a player lays out.
//!
//! Pure functions (no `Ctx`): the app calls [`build_regiment`] while the
//! player is still arranging cards, and the game loop calls it at setup.

use crate::rules::effect::UnitSpec;
use crate::rules::ruleset::Ruleset;
use crate::rules::state::SideId;
use crate::table::{Card, Rank};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Stat key set to 1 on units carrying red (melee) equipment.
pub const MELEE_WEAPONS: &str = "melee_weapons";
/// Stat key set to 1 on units carrying black powder weapons.
pub const BLACK_POWDER: &str = "black_powder";

/// One unit as laid out on the table: its card, the cards lying under or
/// next to it (equipment, a Queen for cavalry), and the upgrades written down.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitCards {
    /// The card that is the unit (Joker, Ace, even 4-10, or a lone 3).
    pub card: Card,
    /// Cards paired with it: an odd equipment card, and a Queen on a 4.
    #[serde(default)]
    pub with: Vec<Card>,
    /// Upgrade ids bought for it (repeats stack).
    #[serde(default)]
    pub upgrades: Vec<String>,
}

impl UnitCards {
    /// A unit card with no paired cards and no upgrades.
    pub fn lone(card: Card) -> UnitCards {
        UnitCards {
            card,
            with: Vec::new(),
            upgrades: Vec::new(),
        }
    }
}

/// What a unit is, by its profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnitKind {
    /// The Joker.
    Toff,
    /// An Ace.
    Snob,
    /// An even card 4-10.
    Follower,
    /// A 4 with a Queen.
    Cavalry,
    /// A lone 3.
    Artillery,
}

impl UnitKind {
    /// The profile id in the ruleset.
    pub fn profile(self) -> &'static str {
        match self {
            UnitKind::Toff => "toff",
            UnitKind::Snob => "snob",
            UnitKind::Follower => "follower",
            UnitKind::Cavalry => "cavalry",
            UnitKind::Artillery => "artillery",
        }
    }

    /// The kind of a profile id (`None` for an unknown id).
    pub fn from_profile(id: &str) -> Option<UnitKind> {
        [
            UnitKind::Toff,
            UnitKind::Snob,
            UnitKind::Follower,
            UnitKind::Cavalry,
            UnitKind::Artillery,
        ]
        .into_iter()
        .find(|k| k.profile() == id)
    }

    /// Toffs count as Snobs: they lead, and are never ordered.
    pub fn is_commander(self) -> bool {
        matches!(self, UnitKind::Toff | UnitKind::Snob)
    }

    fn title(self) -> &'static str {
        match self {
            UnitKind::Toff => "Toff",
            UnitKind::Snob => "Snob",
            UnitKind::Follower => "Follower",
            UnitKind::Cavalry => "Cavalry",
            UnitKind::Artillery => "Artillery",
        }
    }
}

/// A Follower's equipment, from the suit of its odd card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Equipment {
    /// Toffs and Snobs: their own weapons, shooting any number of times.
    Own,
    /// Red odd card: better in melee, no shooting.
    MeleeWeapons,
    /// Black odd card (and artillery): shoots once per round.
    BlackPowder,
}

/// One unit of a valid regiment, ready to be fielded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegimentUnit {
    /// Its kind.
    pub kind: UnitKind,
    /// Name shown to players ("Follower 8c").
    pub name: String,
    /// Unit card first, then the paired cards.
    pub cards: Vec<Card>,
    /// Stats after card value and upgrades.
    pub stats: BTreeMap<String, i32>,
    /// Soldiers at list building.
    pub soldiers: u32,
    /// Wounds each soldier takes before it is removed.
    pub wounds_per_soldier: u32,
    /// Its equipment.
    pub equipment: Equipment,
    /// Upgrade ids.
    pub upgrades: Vec<String>,
    /// Upgrade points it cost.
    pub upgrade_cost: i64,
}

impl RegimentUnit {
    /// The effect payload that puts this unit on the table for `side`.
    pub fn spec(&self, side: SideId) -> UnitSpec {
        UnitSpec {
            side,
            name: self.name.clone(),
            profile: self.kind.profile().to_string(),
            cards: self.cards.clone(),
            stats: self.stats.clone(),
            soldiers: self.soldiers,
            wounds_per_soldier: self.wounds_per_soldier,
            upgrades: self.upgrades.clone(),
        }
    }
}

/// A checked regiment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Regiment {
    /// Its units, in the order given.
    pub units: Vec<RegimentUnit>,
    /// Upgrade points spent in total.
    pub upgrade_points_spent: i64,
}

/// Parses a regiment typed as text: units separated by spaces, a unit's
/// paired cards joined with `+`, upgrades after `:` separated by commas.
/// Example: `XR As Ad 8c+7s 4h+5c+Qd:mob,tough 3s`.
pub fn parse_units(text: &str) -> Result<Vec<UnitCards>, Vec<String>> {
    let (units, errors) = parse_units_in_part(text);
    if errors.is_empty() {
        Ok(units)
    } else {
        Err(errors)
    }
}

/// [`parse_units`] that keeps the units whose cards parse beside the
/// problems with the others: a form checks those too, so a code that names
/// no card does not hide the regiment's other problems (audit BM M6).
pub fn parse_units_in_part(text: &str) -> (Vec<UnitCards>, Vec<String>) {
    let mut units = Vec::new();
    let mut errors = Vec::new();
    for token in text.split_whitespace() {
        let (cards, upgrades) = match token.split_once(':') {
            Some((c, u)) => (c, u),
            None => (token, ""),
        };
        let mut parsed = Vec::new();
        for code in cards.split('+') {
            match code.parse::<Card>() {
                Ok(c) => parsed.push(c),
                Err(e) => errors.push(e.to_string()),
            }
        }
        let mut it = parsed.into_iter();
        if let Some(card) = it.next() {
            units.push(UnitCards {
                card,
                with: it.collect(),
                upgrades: upgrades
                    .split(',')
                    .map(|u| u.trim().to_lowercase())
                    .filter(|u| !u.is_empty())
                    .collect(),
            });
        }
    }
    (units, errors)
}

/// A card as it lies on the table: where its centre is, in any unit of
/// length (a camera's pixels).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LaidCard {
    /// The card.
    pub card: Card,
    /// Its centre.
    pub center: [f32; 2],
}

/// How far (in card lengths) an equipment card's centre may lie from its
/// unit card's: the rules stack it under the unit card with its suit in
/// sight, so the two overlap; units laid side by side lie at least a card's
/// width (0.7 of its length) apart.
pub const EQUIPMENT_REACH: f32 = 0.65;

/// Groups the cards a camera sees into units by where they lie: an odd card
/// (3, 5, 7, 9) or a Queen stacked under a Follower (within
/// [`EQUIPMENT_REACH`] of it) is that Follower's equipment, the nearest pairs
/// first, those that fit (a Queen under a 4, one odd card per Follower)
/// before those that do not (which [`build_regiment`] then explains as a
/// stack); a 3 under no Follower is artillery, and any other card is a unit
/// of its own. Units come in reading order: rows from
/// the top, each from the left. `card_length` is a card's long side in the
/// units of the centres.
pub fn group_laid_out(cards: &[LaidCard], card_length: f32) -> Vec<UnitCards> {
    let reach = EQUIPMENT_REACH * card_length.max(f32::EPSILON);
    let is_follower = |c: Card| matches!(c.rank().and_then(Rank::number), Some(4 | 6 | 8 | 10));
    let attaches = |c: Card| c.rank() == Some(Rank::Queen) || is_odd_equipment(c);
    let distance =
        |a: &LaidCard, b: &LaidCard| (a.center[0] - b.center[0]).hypot(a.center[1] - b.center[1]);
    // Every equipment card and Follower within reach, nearest first.
    let mut pairs: Vec<(f32, usize, usize)> = Vec::new();
    for (e, eq) in cards.iter().enumerate().filter(|(_, c)| attaches(c.card)) {
        for (f, fo) in cards
            .iter()
            .enumerate()
            .filter(|(_, c)| is_follower(c.card))
        {
            let d = distance(eq, fo);
            if d <= reach {
                pairs.push((d, e, f));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut under: Vec<Option<usize>> = vec![None; cards.len()];
    // First what fits (one odd card per Follower, a Queen under a 4), so two
    // Followers side by side each get their own; then what is left goes
    // under the nearest Follower all the same, where the regiment check
    // names the stack ("has 2 equipment cards") rather than the card alone.
    for strict in [true, false] {
        for &(_, e, f) in &pairs {
            if under[e].is_some() {
                continue;
            }
            let (eq, fo) = (cards[e].card, cards[f].card);
            let taken = |pred: &dyn Fn(Card) -> bool| {
                under
                    .iter()
                    .enumerate()
                    .any(|(i, u)| *u == Some(f) && pred(cards[i].card))
            };
            let fits = if eq.rank() == Some(Rank::Queen) {
                fo.rank().and_then(Rank::number) == Some(4)
                    && !taken(&|c| c.rank() == Some(Rank::Queen))
            } else {
                !taken(&is_odd_equipment)
            };
            if fits || !strict {
                under[e] = Some(f);
            }
        }
    }
    // A stack of three laid with every index in sight: its bottom card may
    // lie past reach of the Follower but within reach of the card between,
    // and goes under the same Follower (audit AL3).
    for e in (0..cards.len()).filter(|&e| attaches(cards[e].card)) {
        if under[e].is_some() {
            continue;
        }
        let via = (0..cards.len())
            .filter(|&m| under[m].is_some() && distance(&cards[e], &cards[m]) <= reach)
            .min_by(|&a, &b| {
                distance(&cards[e], &cards[a]).total_cmp(&distance(&cards[e], &cards[b]))
            });
        if let Some(m) = via {
            under[e] = under[m];
        }
    }
    // Rows: a card starts a new row when it lies half a card length or more
    // below the card before it (so a row laid a little askew stays one).
    let mut units: Vec<usize> = (0..cards.len()).filter(|&i| under[i].is_none()).collect();
    units.sort_by(|&a, &b| cards[a].center[1].total_cmp(&cards[b].center[1]));
    let mut rows: Vec<Vec<usize>> = Vec::new();
    for i in units {
        match rows.last_mut() {
            Some(row)
                if row.last().is_some_and(|&before| {
                    cards[i].center[1] - cards[before].center[1] < 0.5 * card_length
                }) =>
            {
                row.push(i);
            }
            _ => rows.push(vec![i]),
        }
    }
    rows.into_iter()
        .flat_map(|mut row| {
            row.sort_by(|&a, &b| cards[a].center[0].total_cmp(&cards[b].center[0]));
            row
        })
        .map(|i| {
            let mut with: Vec<Card> = (0..cards.len())
                .filter(|&e| under[e] == Some(i))
                .map(|e| cards[e].card)
                .collect();
            // Written as typed: equipment before the Queen (`4d+5c+Qc`).
            with.sort_by_key(|c| c.rank() == Some(Rank::Queen));
            UnitCards {
                card: cards[i].card,
                with,
                upgrades: Vec::new(),
            }
        })
        .collect()
}

fn is_odd_equipment(c: Card) -> bool {
    matches!(c.rank().and_then(Rank::number), Some(3 | 5 | 7 | 9))
}

/// Builds a regiment from one player's units, checking every list-building
/// limit of the ruleset. On failure every violation is explained in a plain
/// sentence.
pub fn build_regiment(units: &[UnitCards], ruleset: &Ruleset) -> Result<Regiment, Vec<String>> {
    let mut errors = Vec::new();
    let mut built = Vec::new();
    let cap = ruleset.number("stat_cap") as i32;
    // Every card a player lays out is a distinct physical card.
    let mut seen: Vec<Card> = Vec::new();
    for u in units {
        for &c in std::iter::once(&u.card).chain(&u.with) {
            if seen.contains(&c) {
                errors.push(format!(
                    "{c} is laid out twice; each card can be used once."
                ));
            } else {
                seen.push(c);
            }
        }
    }
    for u in units {
        match classify(u, cap, ruleset) {
            Ok(unit) => built.push(unit),
            Err(mut e) => errors.append(&mut e),
        }
    }
    check_value_limit(units, ruleset, &mut errors);
    // A unit refused for its cards (a Toff given equipment) still counts
    // for command, or the Toff would be said to be missing as well.
    let kinds: Vec<UnitKind> = units.iter().filter_map(kind_of).collect();
    check_command(&kinds, ruleset, &mut errors);
    let spent = check_upgrades(&built, ruleset, &mut errors);
    if errors.is_empty() {
        Ok(Regiment {
            units: built,
            upgrade_points_spent: spent,
        })
    } else {
        Err(errors)
    }
}

/// The kind of unit `u`'s card makes, if it makes one.
fn kind_of(u: &UnitCards) -> Option<UnitKind> {
    let with_queen = u.with.iter().any(|c| c.rank() == Some(Rank::Queen));
    match (u.card, u.card.rank().and_then(Rank::number)) {
        (Card::Joker(_), _) => Some(UnitKind::Toff),
        (_, _) if u.card.rank() == Some(Rank::Ace) => Some(UnitKind::Snob),
        (_, Some(4)) if with_queen => Some(UnitKind::Cavalry),
        (_, Some(4 | 6 | 8 | 10)) => Some(UnitKind::Follower),
        (_, Some(3)) => Some(UnitKind::Artillery),
        _ => None,
    }
}

/// Works out one unit's kind, equipment and stats.
fn classify(u: &UnitCards, cap: i32, ruleset: &Ruleset) -> Result<RegimentUnit, Vec<String>> {
    let card = u.card;
    let mut errors = Vec::new();
    let value = card.rank().and_then(Rank::number);
    let queens: Vec<Card> = u
        .with
        .iter()
        .copied()
        .filter(|c| c.rank() == Some(Rank::Queen))
        .collect();
    let equipment: Vec<Card> = u
        .with
        .iter()
        .copied()
        .filter(|c| is_odd_equipment(*c))
        .collect();
    for c in &u.with {
        if !is_odd_equipment(*c) && c.rank() != Some(Rank::Queen) {
            errors.push(format!(
                "{c} lies with {card} but only an odd card (3, 5, 7, 9) or a Queen can be paired with a unit."
            ));
        }
    }
    let kind = match (kind_of(u), card.rank(), value) {
        (Some(kind), _, _) => kind,
        (_, _, Some(5 | 7 | 9)) => {
            errors.push(format!(
                "{card} cannot be a unit: odd cards 5, 7 and 9 are equipment, so put it under a Follower."
            ));
            return Err(errors);
        }
        (_, Some(Rank::King | Rank::Jack), _) => {
            errors.push(format!(
                "{card} marks an objective; Kings and Jacks are not part of a regiment."
            ));
            return Err(errors);
        }
        (_, Some(Rank::Queen), _) => {
            errors.push(format!(
                "{card} cannot be a unit: a Queen only turns a 4 into cavalry, so lay it with a 4."
            ));
            return Err(errors);
        }
        _ => {
            errors.push(format!("{card} has no use in a T52 regiment."));
            return Err(errors);
        }
    };
    let name = format!("{} {card}", kind.title());
    if queens.len() > 1 || (!queens.is_empty() && kind != UnitKind::Cavalry) {
        errors.push(format!(
            "{name} cannot take {}: one Queen makes a 4 into cavalry, nothing else.",
            join(&queens)
        ));
    }
    let equip = match kind {
        UnitKind::Toff | UnitKind::Snob | UnitKind::Artillery => {
            if !equipment.is_empty() {
                errors.push(format!(
                    "{name} takes no equipment card ({}); only Followers and cavalry do.",
                    join(&equipment)
                ));
            }
            if kind == UnitKind::Artillery {
                Equipment::BlackPowder
            } else {
                Equipment::Own
            }
        }
        UnitKind::Follower | UnitKind::Cavalry => match equipment.as_slice() {
            [] => {
                errors.push(format!(
                    "{name} has no equipment: put an odd card (3, 5, 7 or 9) under it, red for melee weapons, black for black powder."
                ));
                Equipment::BlackPowder
            }
            [e] if e.is_red() => Equipment::MeleeWeapons,
            [_] => Equipment::BlackPowder,
            more => {
                errors.push(format!(
                    "{name} has {} equipment cards ({}); a Follower carries exactly one.",
                    more.len(),
                    join(more)
                ));
                Equipment::BlackPowder
            }
        },
    };
    let Some(profile) = ruleset.profile(kind.profile()) else {
        errors.push(format!("the ruleset has no `{}` profile.", kind.profile()));
        return Err(errors);
    };
    let mut stats = profile.stats.clone();
    let mut soldiers = profile.soldiers;
    if kind == UnitKind::Follower
        && let Some(v) = value
    {
        soldiers = u32::from(v);
        let iv = i32::from(v).min(cap);
        stats.insert("I".into(), iv);
        stats.insert("V".into(), iv);
    }
    for up in &u.upgrades {
        match ruleset.upgrade(up) {
            Some(def) => {
                for (k, d) in &def.stat_changes {
                    *stats.entry(k.clone()).or_insert(0) += d;
                }
            }
            None => errors.push(format!(
                "{name}: `{up}` is not an upgrade (known: {}).",
                ruleset
                    .upgrades
                    .iter()
                    .map(|u| u.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    match equip {
        Equipment::MeleeWeapons => {
            stats.insert(MELEE_WEAPONS.into(), 1);
        }
        Equipment::BlackPowder => {
            stats.insert(BLACK_POWDER.into(), 1);
        }
        Equipment::Own => {}
    }
    let wounds_per_soldier = stats.get("W").copied().unwrap_or(1).max(1) as u32;
    // Value-4 units (cavalry is a 4) pay the cheap rate.
    let cost_each = if value == Some(4) {
        ruleset.number("upgrade_cost_value_4")
    } else {
        ruleset.number("upgrade_cost_other")
    };
    let mut cards = vec![card];
    cards.extend(u.with.iter().copied());
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(RegimentUnit {
        kind,
        name,
        cards,
        stats,
        soldiers,
        wounds_per_soldier,
        equipment: equip,
        upgrade_cost: cost_each * u.upgrades.len() as i64,
        upgrades: u.upgrades.clone(),
    })
}

fn join(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each number value at most `max_copies_per_value` times, unit and
/// equipment cards together.
fn check_value_limit(units: &[UnitCards], ruleset: &Ruleset, errors: &mut Vec<String>) {
    let max = ruleset.number("max_copies_per_value") as usize;
    let mut by_value: BTreeMap<u8, Vec<Card>> = BTreeMap::new();
    for u in units {
        for &c in std::iter::once(&u.card).chain(&u.with) {
            if let Some(v) = c.rank().and_then(Rank::number) {
                by_value.entry(v).or_default().push(c);
            }
        }
    }
    for (v, cards) in by_value {
        if cards.len() > max {
            errors.push(format!(
                "The value {v} is used {} times ({}); each number value may be used at most {max} times, counting equipment.",
                cards.len(),
                join(&cards)
            ));
        }
    }
}

/// One Toff, at most the allowed Snobs, and no more Followers than they lead.
fn check_command(kinds: &[UnitKind], ruleset: &Ruleset, errors: &mut Vec<String>) {
    let count = |k: UnitKind| kinds.iter().filter(|&&u| u == k).count() as i64;
    let toffs = count(UnitKind::Toff);
    let snobs = count(UnitKind::Snob);
    let followers = kinds.iter().filter(|u| !u.is_commander()).count() as i64;
    let want_toffs = ruleset.number("toffs_per_player");
    let max_snobs = ruleset.number("snobs_per_player");
    if toffs != want_toffs {
        errors.push(format!(
            "A regiment has exactly {want_toffs} Toff (a Joker); this one has {toffs}."
        ));
    }
    if snobs > max_snobs {
        errors.push(format!(
            "A regiment has at most {max_snobs} Snobs (Aces); this one has {snobs}."
        ));
    }
    let led = toffs * ruleset.number("toff_followers") + snobs * ruleset.number("snob_followers");
    if followers > led {
        let leaders = match (toffs, snobs) {
            (0, 1) => "1 Snob".to_string(),
            (0, n) => format!("{n} Snobs"),
            (_, 0) => "the Toff alone".to_string(),
            (_, 1) => "the Toff and 1 Snob".to_string(),
            (_, n) => format!("the Toff and {n} Snobs"),
        };
        // With nobody to lead them, "can lead only 0" reads garbled
        // (audit BK K10).
        errors.push(if led == 0 {
            format!("{followers} Followers (artillery included) but no Toff or Snob to lead them.")
        } else {
            format!("{followers} Followers (artillery included) but {leaders} can lead only {led}.")
        });
    }
}

/// Upgrades never on Snobs, and within the points budget.
fn check_upgrades(built: &[RegimentUnit], ruleset: &Ruleset, errors: &mut Vec<String>) -> i64 {
    for u in built.iter().filter(|u| u.kind.is_commander()) {
        if !u.upgrades.is_empty() {
            errors.push(format!(
                "{} cannot take upgrades ({}); Toffs and Snobs are never upgraded.",
                u.name,
                u.upgrades.join(", ")
            ));
        }
    }
    let spent: i64 = built
        .iter()
        .filter(|u| !u.kind.is_commander())
        .map(|u| u.upgrade_cost)
        .sum();
    let budget = ruleset.number("upgrade_points");
    if spent > budget {
        let parts: Vec<String> = built
            .iter()
            .filter(|u| u.upgrade_cost > 0)
            .map(|u| format!("{}: {} points", u.name, u.upgrade_cost))
            .collect();
        errors.push(format!(
            "Upgrades cost {spent} points ({}) but only {budget} are available.",
            parts.join(", ")
        ));
    }
    spent
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::games::{GameId, Library};

    fn ruleset() -> Ruleset {
        let (lib, errs) = Library::builtin();
        assert!(errs.is_empty(), "{errs:?}");
        lib.get(GameId::T52)
            .cloned()
            .unwrap_or_else(|| panic!("no t52 ruleset"))
    }

    fn build(text: &str) -> Result<Regiment, Vec<String>> {
        let units = parse_units(text).unwrap_or_else(|e| panic!("{e:?}"));
        build_regiment(&units, &ruleset())
    }

    #[test]
    fn valid_regiments_get_the_right_profiles() {
        // (cards, unit index, profile, soldiers, I, V, W, A, M)
        let cases = [
            (
                "XR As Ad 8c+7s 6h+5d 4s+3c 3h",
                3,
                "follower",
                8,
                6,
                6,
                1,
                1,
                3,
            ),
            (
                "XR As Ad 8c+7s 6h+5d 4s+3c 3h",
                4,
                "follower",
                6,
                6,
                6,
                1,
                1,
                3,
            ),
            (
                "XR As Ad 8c+7s 6h+5d 4s+3c 3h",
                5,
                "follower",
                4,
                4,
                4,
                1,
                1,
                3,
            ),
            (
                "XR As Ad 8c+7s 6h+5d 4s+3c 3h",
                6,
                "artillery",
                1,
                6,
                5,
                3,
                3,
                0,
            ),
            ("XR As Ad 8c+7s 6h+5d 4s+3c 3h", 0, "toff", 1, 5, 5, 2, 3, 3),
            ("XR As Ad 8c+7s 6h+5d 4s+3c 3h", 1, "snob", 1, 5, 5, 1, 1, 3),
            ("XB Ac 4d+5s+Qh Th+9c", 2, "cavalry", 4, 4, 4, 2, 2, 6),
            ("XB Ac 4d+5s+Qh Th+9c", 3, "follower", 10, 6, 6, 1, 1, 3),
            // Upgrades: 4 points on a value-4 unit (1 each), stacking.
            (
                "XB Ac 4d+5s:mean,tough,marksman,agile",
                2,
                "follower",
                4,
                3,
                3,
                2,
                2,
                3,
            ),
            (
                "XB Ac Ad 4d+5s+Qh:marksman,marksman 6c+7c:agile",
                4,
                "follower",
                6,
                6,
                5,
                1,
                1,
                3,
            ),
            (
                "XB Ac Ad 4d+5s+Qh:marksman,marksman 6c+7c:agile",
                3,
                "cavalry",
                4,
                2,
                4,
                2,
                2,
                6,
            ),
        ];
        for (text, i, profile, soldiers, inacc, vuln, w, a, m) in cases {
            let r = build(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            let u = &r.units[i];
            assert_eq!(u.kind.profile(), profile, "{text} #{i}");
            assert_eq!(u.soldiers, soldiers, "{text} #{i} soldiers");
            assert_eq!(u.stats["I"], inacc, "{text} #{i} I");
            assert_eq!(u.stats["V"], vuln, "{text} #{i} V");
            assert_eq!(u.stats["W"], w, "{text} #{i} W");
            assert_eq!(u.wounds_per_soldier, w as u32, "{text} #{i} wounds");
            assert_eq!(u.stats["A"], a, "{text} #{i} A");
            assert_eq!(u.stats["M"], m, "{text} #{i} M");
        }
    }

    #[test]
    fn equipment_follows_the_suit() {
        let r = build("XR As 8c+7h 6h+5s 3d").unwrap_or_else(|e| panic!("{e:?}"));
        let eq: Vec<Equipment> = r.units.iter().map(|u| u.equipment).collect();
        assert_eq!(
            eq,
            vec![
                Equipment::Own,
                Equipment::Own,
                Equipment::MeleeWeapons,
                Equipment::BlackPowder,
                Equipment::BlackPowder
            ]
        );
        assert_eq!(r.units[2].stats.get(MELEE_WEAPONS), Some(&1));
        assert_eq!(r.units[3].stats.get(BLACK_POWDER), Some(&1));
    }

    #[test]
    fn every_violation_is_explained() {
        // (cards, words the single expected message must contain)
        let cases: [(&str, &[&str]); 14] = [
            ("As Ad 8c+7s", &["exactly 1 Toff", "has 0"]),
            ("XR XB As 8c+7s", &["exactly 1 Toff", "has 2"]),
            ("XR As Ad Ah 8c+7s", &["at most 2 Snobs", "has 3"]),
            (
                "XR As 8c+7s 6c+5s 4c+3s 4h+9s",
                &["4 Followers", "lead only 3"],
            ),
            ("XR 8c+7s 6c+5s 4c+3s", &["3 Followers", "lead only 2"]),
            ("XR As 8c 6c+5s", &["Follower 8c has no equipment"]),
            ("XR As 8c+7s+5s", &["2 equipment cards"]),
            ("XR As 7c", &["7c cannot be a unit"]),
            ("XR As Kc", &["objective"]),
            ("XR As 8c+7s 8h+7h 8d+9s", &["value 8 is used 3 times"]),
            ("XR As 8c+7s 6h+7d 4c+7h", &["value 7 is used 3 times"]),
            ("XR As:mean 8c+7s", &["Snob As cannot take upgrades"]),
            (
                "XR As Ad 8c+7s:mean,tough 6c+5c:agile",
                &[
                    "cost 6 points (Follower 8c: 4 points, Follower 6c: 2 points)",
                    "only 4",
                ],
            ),
            ("XR As 8c+7s+Qh", &["Follower 8c cannot take Qh"]),
        ];
        for (text, words) in cases {
            let errs = build(text)
                .err()
                .unwrap_or_else(|| panic!("{text} must fail"));
            assert_eq!(errs.len(), 1, "{text}: {errs:?}");
            for w in words {
                assert!(errs[0].contains(w), "{text}: `{}` lacks `{w}`", errs[0]);
            }
        }
    }

    #[test]
    fn several_violations_are_all_reported() {
        let errs = build("XR 8c 6h+5s:bogus 2c").err().unwrap_or_default();
        assert_eq!(errs.len(), 3, "{errs:?}");
        assert!(errs.iter().any(|e| e.contains("no equipment")));
        assert!(errs.iter().any(|e| e.contains("`bogus` is not an upgrade")));
        assert!(errs.iter().any(|e| e.contains("2c has no use")));
    }

    #[test]
    fn artillery_counts_as_a_led_follower_and_pays_two_points() {
        let r = build("XR 3s 3h 8c+7s").err().unwrap_or_default();
        assert!(r.len() == 1 && r[0].contains("3 Followers"), "{r:?}");
        let ok = build("XR As 3s:tough,tough 8c+7s").unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(ok.upgrade_points_spent, 4);
        assert_eq!(ok.units[2].wounds_per_soldier, 5);
    }

    #[test]
    fn too_many_followers_names_the_leaders_there_are() {
        let r = build("XR 3s 3h 8c+7s").err().unwrap_or_default();
        assert!(
            r.iter()
                .any(|e| e.contains("but the Toff alone can lead only 2")),
            "{r:?}"
        );
        // No Toff (the camera missed the Joker): not "the Toff".
        let r = build("As 3s 8c+7s").err().unwrap_or_default();
        assert!(
            r.iter().any(|e| e.contains("but 1 Snob can lead only 1")),
            "{r:?}"
        );
        // Nobody to lead at all (audit BK K10).
        let r = build("Th 2d 4d").err().unwrap_or_default();
        assert!(
            r.iter()
                .any(|e| e.ends_with("but no Toff or Snob to lead them.")),
            "{r:?}"
        );
    }

    /// Cards laid out as `(code, x, y)` with centres in card lengths.
    fn laid(cards: &[(&str, f32, f32)]) -> Vec<LaidCard> {
        cards
            .iter()
            .map(|&(code, x, y)| LaidCard {
                card: code.parse().unwrap_or_else(|e| panic!("{e}")),
                center: [x * 90.0, y * 90.0],
            })
            .collect()
    }

    #[test]
    fn cards_laid_out_are_grouped_by_where_they_lie() {
        // (cards as laid, units as typed): equipment stacked under its unit
        // (0.2-0.3 card lengths off), units a card or more apart; read in
        // any order.
        type Laid<'a> = &'a [(&'a str, f32, f32)];
        let cases: [(Laid, &str); 5] = [
            (
                &[
                    ("7s", 2.2, 0.2),
                    ("As", 3.0, 0.0),
                    ("XR", 0.0, 0.0),
                    ("8c", 2.0, 0.0),
                    ("5h", 1.2, 1.6),
                    ("4h", 1.0, 1.5),
                    ("3c", 0.0, 1.5),
                ],
                "XR 8c+7s As 3c 4h+5h",
            ),
            // A Queen goes under a 4 only; a 3 under a Follower lacking
            // equipment is its equipment, a 3 alone is artillery.
            (
                &[
                    ("XB", 0.0, 0.0),
                    ("Qc", 1.25, 0.1),
                    ("4d", 1.0, 0.0),
                    ("5s", 1.0, 0.3),
                    ("6c", 2.0, 0.0),
                    ("3s", 2.2, 0.25),
                    ("3h", 3.1, 0.0),
                ],
                "XB 4d+5s+Qc 6c+3s 3h",
            ),
            // Two odd cards under one Follower stay a stack (the regiment
            // check says it carries one), two Followers side by side get
            // one each, and an equipment card by a Toff stays apart.
            (
                &[
                    ("8d", 0.0, 0.0),
                    ("7s", 0.2, 0.1),
                    ("3h", 0.1, 0.4),
                    ("6c", 1.0, 0.0),
                    ("5s", 0.6, 0.1),
                    ("XR", 2.0, 0.0),
                    ("5h", 2.2, 0.2),
                ],
                "8d+7s+3h 6c+5s XR 5h",
            ),
            // A row laid a little askew still reads left to right.
            (
                &[("XR", 0.0, 0.0), ("Th", 1.0, 0.3), ("Ac", 2.0, -0.2)],
                "XR Th Ac",
            ),
            // A stack of three fanned out, each card off the one above by
            // half a card: the bottom one is under the Follower through
            // the middle one (audit AL3).
            (
                &[("4d", 0.0, 0.0), ("Qd", 0.45, 0.28), ("5h", 0.9, 0.56)],
                "4d+5h+Qd",
            ),
        ];
        for (cards, typed) in cases {
            let want = parse_units(typed).unwrap_or_else(|e| panic!("{e:?}"));
            assert_eq!(group_laid_out(&laid(cards), 90.0), want, "{typed}");
        }
        assert!(group_laid_out(&[], 90.0).is_empty());
    }

    #[test]
    fn bad_codes_are_reported_by_the_parser() {
        let e = parse_units("XR 1s 8c+zz").err().unwrap_or_default();
        assert_eq!(e.len(), 2);
    }
}
