//! Effects: the small, exact state changes every procedure and manual edit is made of.

use super::state::*;
use crate::table::{BackColour, Card, DicePool, Pack, PhysicalCard};
use rand::Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything needed to put a unit on the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnitSpec {
    /// Owning side.
    pub side: SideId,
    /// Name shown to players.
    pub name: String,
    /// Profile id.
    pub profile: String,
    /// Cards that represent it.
    #[serde(default)]
    pub cards: Vec<Card>,
    /// Stats.
    #[serde(default)]
    pub stats: BTreeMap<String, i32>,
    /// Soldiers.
    pub soldiers: u32,
    /// Wounds each soldier can take.
    #[serde(default = "one")]
    pub wounds_per_soldier: u32,
    /// Upgrades taken.
    #[serde(default)]
    pub upgrades: Vec<String>,
}

fn one() -> u32 {
    1
}

/// One state change. Applying an effect never fails: an effect naming a unit
/// or objective that does not exist changes nothing (procedures only build
/// effects for things that exist; saves are validated when loaded).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Effect {
    /// A new side.
    AddSide {
        /// Its name.
        name: String,
        /// Its pack's back colour.
        back: Option<BackColour>,
    },
    /// A new unit.
    AddUnit(UnitSpec),
    /// Wounds to a unit: allocated to the first soldier until it reaches its
    /// limit and is removed, then the next.
    Wound {
        /// Target.
        unit: UnitId,
        /// How many.
        wounds: u32,
    },
    /// Lives lost by a lone figure counted in lives (Gunfight): applied as
    /// [`Effect::Wound`], but left out of the log, where the game's own line
    /// says how many are lost and left.
    LoseLives {
        /// Target.
        unit: UnitId,
        /// How many.
        lives: u32,
    },
    /// Wounds healed on a unit's wounded soldier (never below zero).
    Heal {
        /// Target.
        unit: UnitId,
        /// How many.
        wounds: u32,
    },
    /// Soldiers removed outright (dangerous terrain, corrections).
    RemoveSoldiers {
        /// Target.
        unit: UnitId,
        /// How many.
        count: u32,
    },
    /// Soldiers returned to a unit (corrections).
    AddSoldiers {
        /// Target.
        unit: UnitId,
        /// How many.
        count: u32,
    },
    /// A stat set to a value.
    SetStat {
        /// Target.
        unit: UnitId,
        /// Stat name.
        stat: String,
        /// New value.
        value: i32,
    },
    /// A status flag set or cleared.
    SetStatus {
        /// Target.
        unit: UnitId,
        /// Flag name.
        status: String,
        /// Set (true) or clear.
        on: bool,
    },
    /// A status flag cleared on every unit ("ordered" at the end of a round).
    ClearStatusAll {
        /// Flag name.
        status: String,
    },
    /// A unit taken out of play.
    RemoveUnit {
        /// Target.
        unit: UnitId,
        /// Why.
        reason: String,
    },
    /// A new objective marker.
    AddObjective {
        /// Name.
        name: String,
        /// Marking card.
        card: Option<Card>,
    },
    /// Who holds an objective.
    SetHolder {
        /// Objective.
        objective: ObjectiveId,
        /// New holder.
        holder: Holder,
    },
    /// A new terrain piece.
    AddTerrain(Terrain),
    /// Round counter.
    SetRound(u32),
    /// Turn counter.
    SetTurn(u32),
    /// Initiative holder.
    SetInitiative(SideId),
    /// A new activation order, starting at its first slot.
    SetActivationOrder(Vec<Activation>),
    /// Moves to the next activation slot.
    AdvanceActivation,
    /// A new tracked deck made of packs, shuffled with the session's RNG.
    AddDeck {
        /// Name.
        name: String,
        /// Its packs.
        packs: Vec<Pack>,
    },
    /// Shuffles a deck's draw pile (discards stay put).
    Shuffle {
        /// Deck.
        deck: DeckId,
    },
    /// Returns a deck's discards to its draw pile and shuffles.
    Reshuffle {
        /// Deck.
        deck: DeckId,
    },
    /// Cards leave a deck's draw pile (drawn or seen on the table); a card not
    /// in the draw pile is taken from the discard pile.
    TakeCards {
        /// Deck.
        deck: DeckId,
        /// The cards.
        cards: Vec<Card>,
        /// What they were drawn for ("Bull's Armour Check"), said in the log.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        purpose: Option<String>,
        /// How many of them (the last) Adjutant's virtual table drew, said
        /// in the log (audit BP P4).
        #[serde(default, skip_serializing_if = "super::common::is_zero")]
        by_adjutant: u32,
    },
    /// Cards put on top of a deck's draw pile in this order (first named is
    /// the new top card), taken from wherever they were in the draw pile.
    Restack {
        /// Deck.
        deck: DeckId,
        /// The cards, top first.
        top: Vec<Card>,
    },
    /// Cards go to a deck's discard pile.
    DiscardCards {
        /// Deck.
        deck: DeckId,
        /// The cards, with the back of their pack.
        cards: Vec<PhysicalCard>,
    },
    /// A game counter set.
    SetCounter {
        /// Key.
        key: String,
        /// Value.
        value: i64,
    },
    /// Dice rolled for a check (recorded for the log).
    Rolled {
        /// What for.
        purpose: String,
        /// The dice.
        dice: DicePool,
    },
    /// A check resolved: which rule (and ruling) it used and the result.
    Resolved {
        /// Rules entry id.
        rule: String,
        /// Ruling applied, if any.
        ruling: Option<String>,
        /// What happened.
        text: String,
    },
    /// An answer the rules did not take, said as the question is asked
    /// again (a card played twice). The window shows it as a refusal of
    /// that answer rather than taking it.
    Refused {
        /// Rules entry id.
        rule: String,
        /// Why.
        text: String,
    },
    /// A free-text log line.
    Note(String),
    /// The game is over.
    End(Outcome),
}

impl Effect {
    /// What this effect names that `state` does not have (a side, a unit or
    /// an objective), checked before a player's or a script's edit applies:
    /// such an edit would change nothing, or add a unit no side owns.
    pub fn missing_in(&self, state: &GameState) -> Option<String> {
        let unit = match self {
            Effect::AddUnit(spec) if spec.side >= state.sides.len() => {
                return Some(format!(
                    "{} joins side {}, but the game has {} side(s) (counted from 0)",
                    spec.name,
                    spec.side,
                    state.sides.len()
                ));
            }
            Effect::SetInitiative(side) if *side >= state.sides.len() => {
                return Some(format!(
                    "side {side} takes the initiative, but the game has {} side(s)",
                    state.sides.len()
                ));
            }
            Effect::SetHolder { objective, .. } if *objective >= state.objectives.len() => {
                return Some(format!(
                    "objective {objective} does not exist ({} in the game)",
                    state.objectives.len()
                ));
            }
            Effect::Wound { unit, .. }
            | Effect::LoseLives { unit, .. }
            | Effect::Heal { unit, .. }
            | Effect::RemoveSoldiers { unit, .. }
            | Effect::AddSoldiers { unit, .. }
            | Effect::SetStat { unit, .. }
            | Effect::SetStatus { unit, .. }
            | Effect::RemoveUnit { unit, .. } => *unit,
            _ => return None,
        };
        (unit >= state.units.len()).then(|| {
            format!(
                "unit {unit} does not exist ({} unit(s) in the game)",
                state.units.len()
            )
        })
    }

    /// Applies the effect to `state`. Every effect adds at most one log line.
    pub fn apply<R: Rng + ?Sized>(&self, state: &mut GameState, rng: &mut R) {
        let line = self.describe(state);
        let (mut rule, mut ruling) = (None, None);
        match self {
            Effect::AddSide { name, back } => state.sides.push(Side {
                name: name.clone(),
                back: *back,
            }),
            Effect::AddUnit(spec) => state.units.push(Unit {
                side: spec.side,
                name: distinct_unit_name(state, &spec.name),
                profile: spec.profile.clone(),
                cards: spec.cards.clone(),
                stats: spec.stats.clone(),
                soldiers: vec![Soldier::default(); spec.soldiers as usize],
                soldiers_at_start: spec.soldiers,
                wounds_per_soldier: spec.wounds_per_soldier.max(1),
                status: Default::default(),
                upgrades: spec.upgrades.clone(),
                presence: Presence::InPlay,
            }),
            Effect::Wound { unit, wounds }
            | Effect::LoseLives {
                unit,
                lives: wounds,
            } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    allocate_wounds(u, *wounds);
                }
            }
            Effect::Heal { unit, wounds } => {
                if let Some(s) = state
                    .units
                    .get_mut(*unit)
                    .and_then(|u| u.soldiers.iter_mut().find(|s| s.wounds > 0))
                {
                    s.wounds = s.wounds.saturating_sub(*wounds);
                }
            }
            Effect::RemoveSoldiers { unit, count } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    let keep = u.soldiers.len().saturating_sub(*count as usize);
                    u.soldiers.truncate(keep);
                    if u.soldiers.is_empty() {
                        u.presence = Presence::Removed;
                    }
                }
            }
            Effect::AddSoldiers { unit, count } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.soldiers
                        .extend(std::iter::repeat_n(Soldier::default(), *count as usize));
                    u.presence = Presence::InPlay;
                }
            }
            Effect::SetStat { unit, stat, value } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.stats.insert(stat.clone(), *value);
                }
            }
            Effect::SetStatus { unit, status, on } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    if *on {
                        u.status.insert(status.clone());
                    } else {
                        u.status.remove(status);
                    }
                }
            }
            Effect::ClearStatusAll { status } => {
                for u in &mut state.units {
                    u.status.remove(status);
                }
            }
            Effect::RemoveUnit { unit, .. } => {
                if let Some(u) = state.units.get_mut(*unit) {
                    u.presence = Presence::Removed;
                }
            }
            Effect::AddObjective { name, card } => state.objectives.push(Objective {
                name: name.clone(),
                card: *card,
                holder: Holder::Uncaptured,
            }),
            Effect::SetHolder { objective, holder } => {
                if let Some(o) = state.objectives.get_mut(*objective) {
                    o.holder = *holder;
                }
            }
            Effect::AddTerrain(t) => state.terrain.push(t.clone()),
            Effect::SetRound(r) => state.round = *r,
            Effect::SetTurn(t) => state.turn = *t,
            Effect::SetInitiative(s) => state.initiative = Some(*s),
            Effect::SetActivationOrder(slots) => {
                state.activation = ActivationOrder {
                    slots: slots.clone(),
                    next: 0,
                }
            }
            Effect::AdvanceActivation => {
                let a = &mut state.activation;
                a.next = (a.next + 1).min(a.slots.len());
            }
            Effect::AddDeck { name, packs } => {
                let mut d = crate::table::Deck::from_packs(name.clone(), packs);
                d.shuffle(rng);
                state.decks.push(d);
            }
            Effect::Shuffle { deck } => {
                if let Some(d) = state.decks.get_mut(*deck) {
                    d.shuffle(rng);
                }
            }
            Effect::Reshuffle { deck } => {
                if let Some(d) = state.decks.get_mut(*deck) {
                    d.reshuffle(rng);
                }
            }
            Effect::TakeCards { deck, cards, .. } => {
                if let Some(d) = state.decks.get_mut(*deck) {
                    for c in cards {
                        if d.take(*c).is_none()
                            && let Some(i) = d.discard_pile.iter().rposition(|p| p.card == *c)
                        {
                            d.discard_pile.remove(i);
                        }
                    }
                }
            }
            Effect::DiscardCards { deck, cards } => {
                if let Some(d) = state.decks.get_mut(*deck) {
                    d.discard(cards.iter().copied());
                }
            }
            Effect::Restack { deck, top } => {
                if let Some(d) = state.decks.get_mut(*deck) {
                    // The top card is the last element: push in reverse.
                    let taken: Vec<_> = top.iter().rev().filter_map(|c| d.take(*c)).collect();
                    d.draw_pile.extend(taken);
                }
            }
            Effect::SetCounter { key, value } => {
                state.counters.insert(key.clone(), *value);
            }
            Effect::Rolled { .. } | Effect::Note(_) => {}
            Effect::Resolved {
                rule: r,
                ruling: rl,
                ..
            } => {
                rule = Some(r.clone());
                ruling = rl.clone();
            }
            Effect::Refused { rule: r, .. } => rule = Some(r.clone()),
            Effect::End(outcome) => state.outcome = Some(outcome.clone()),
        }
        if let Some(text) = line {
            state.log.push(LogLine {
                round: state.round,
                turn: state.turn,
                text,
                rule,
                ruling,
                refused: matches!(self, Effect::Refused { .. }),
            });
        }
    }

    /// The log line for this effect, read against the state before it applies;
    /// `None` for bookkeeping that players need not read.
    pub fn describe(&self, s: &GameState) -> Option<String> {
        Some(match self {
            Effect::AddSide { name, back } => {
                let joins = super::common::agree(name, "joins", "join");
                match back {
                    Some(b) => format!("{name} {joins}, playing {}", b.pack_words()),
                    None => format!("{name} {joins}"),
                }
            }
            // A lone figure (a gunman, a gentleman, a commander) is not
            // counted in soldiers.
            Effect::AddUnit(u) => {
                let side = s.side_name(u.side);
                let fields = super::common::agree(&side, "fields", "field");
                let name = distinct_unit_name(s, &u.name);
                if u.soldiers == 1 {
                    format!("{side} {fields} {name}")
                } else {
                    format!("{side} {fields} {name} ({} soldiers)", u.soldiers)
                }
            }
            Effect::Wound { unit, wounds } => {
                format!(
                    "{} takes {}",
                    s.unit_name(*unit),
                    count_of(*wounds, "wound")
                )
            }
            Effect::Heal { unit, wounds } => {
                format!(
                    "{} heals {}",
                    s.unit_name(*unit),
                    count_of(*wounds, "wound")
                )
            }
            // A Napoleonic unit's losses are said by the fire or combat line
            // that follows, with its men in ranks and confused after them
            // (said twice before: audit AO2).
            Effect::RemoveSoldiers { unit, .. }
                if (s.units.get(*unit))
                    .is_some_and(|u| u.stats.contains_key(crate::rules::napoleonic::CONFUSED)) =>
            {
                return None;
            }
            Effect::RemoveSoldiers { unit, count } => {
                let name = s.unit_name(*unit);
                let left = s.units.get(*unit).map_or(0, |u| u.soldiers.len());
                // The unit leaves play with its last soldier: say so.
                if *count as usize >= left {
                    format!("{name} loses {count} soldier(s), its last: it is out of play")
                } else {
                    format!("{name} loses {count} soldier(s)")
                }
            }
            Effect::AddSoldiers { unit, count } => {
                format!("{} regains {count} soldier(s)", s.unit_name(*unit))
            }
            // Bookkeeping stats named `kind:id` (an ability's uses or the
            // points paid towards it) are explained by the lines around them.
            Effect::SetStat { stat, .. } if stat.contains(':') => return None,
            Effect::SetStat { stat, .. } if SAID_BY_THEIR_OWN_LINES.contains(&stat.as_str()) => {
                return None;
            }
            // Set to what it was already (a tie that confused nobody more):
            // nothing for the log to say.
            Effect::SetStat { unit, stat, value }
                if s.units.get(*unit).and_then(|u| u.stats.get(stat)) == Some(value) =>
            {
                return None;
            }
            Effect::SetStat { unit, stat, value } => {
                format!("{}: {} now {value}", s.unit_name(*unit), stat_label(stat))
            }
            // Every rule that removes a unit says why in its own line ("fails
            // to rally at its board edge and is eliminated"): a second line
            // saying it again is noise.
            Effect::SetStatus { .. }
            | Effect::ClearStatusAll { .. }
            | Effect::RemoveUnit { .. }
            | Effect::LoseLives { .. } => return None,
            Effect::AddObjective { name, card } => match card {
                // Listed, not placed: players place them when their rules
                // say (T52: after the roll for initiative, audit CG G6).
                Some(c) => format!("Objective {name} ({}) is in play", c.name()),
                None => format!("Objective {name} is in play"),
            },
            Effect::SetHolder { objective, holder } => {
                let name = s
                    .objectives
                    .get(*objective)
                    .map_or("?".to_string(), |o| o.name.clone());
                match holder {
                    Holder::Uncaptured => format!("Objective {name} is uncaptured"),
                    Holder::Contested => format!("Objective {name} is contested"),
                    Holder::Side(side) => {
                        format!("Objective {name} is now held by {}", s.side_name(*side))
                    }
                }
            }
            Effect::AddTerrain(t) => format!("Terrain in play: {} ({})", t.name, t.kind),
            Effect::SetRound(r) => format!("Round {r} begins"),
            Effect::SetTurn(t) => format!("Turn {t} begins"),
            Effect::AdvanceActivation => return None,
            Effect::SetInitiative(side) => {
                let name = s.side_name(*side);
                let has = super::common::agree(&name, "has", "have");
                format!("{name} {has} the initiative")
            }
            // Each game says the order in its own words (with the ruling
            // that set it), and the Order of play panel shows it.
            Effect::SetActivationOrder(_) => return None,
            Effect::AddDeck { name, packs } => match packs.len() {
                1 => format!("{name}: 1 pack shuffled"),
                n => format!("{name}: {n} packs shuffled"),
            },
            Effect::Shuffle { deck } | Effect::Reshuffle { deck } => format!(
                "{} is shuffled",
                s.decks.get(*deck).map_or("deck", |d| d.name.as_str())
            ),
            Effect::TakeCards {
                deck,
                cards,
                purpose,
                by_adjutant,
            } => format!(
                "Drawn from {}{}: {}{}",
                s.decks.get(*deck).map_or("deck", |d| d.name.as_str()),
                purpose
                    .as_ref()
                    .map_or_else(String::new, |p| format!(" for {p}")),
                cards
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                match *by_adjutant as usize {
                    0 => String::new(),
                    n => format!(
                        " ({})",
                        super::procedure::drawn_note("drawn", n, cards.len())
                    ),
                }
            ),
            Effect::DiscardCards { .. } | Effect::SetCounter { .. } => return None,
            Effect::Restack { deck, top } => {
                let name = s.decks.get(*deck).map_or("deck", |d| d.name.as_str());
                format!(
                    "{name}: {} card(s) put back on top in a chosen order",
                    top.len()
                )
            }
            Effect::Rolled { purpose, dice } => {
                format!("{purpose}{ROLLED}{dice}{}", roll_source(dice))
            }
            // The ruling goes with the line (`LogLine::ruling`), not in its
            // words: a rules entry's ruling often covers another case.
            Effect::Resolved { text, .. } | Effect::Refused { text, .. } => text.clone(),
            Effect::Note(t) => t.clone(),
            // Said by `Ctx::end_game`, with the rule that ended the game.
            Effect::End(_) => return None,
        })
    }
}

/// Stats whose every change the rules say in lines of their own, so a bare
/// "now N" line would only repeat them: Card-activation's weapon prep
/// ("needs 1 Prep action before it shoots again", "is ready to shoot") and
/// Gentlemen of War's conditions, said when given, used and lapsing
/// ("commanded now 0" read as something lost).
const SAID_BY_THEIR_OWN_LINES: [&str; 6] = [
    crate::rules::card_activation::PREP_LEFT,
    // "X is loaded (1 of 1)", "X fires a round (0 of 1 loaded)", "X
    // dismounts for good" (audit BB C2).
    crate::rules::gentlemen::AMMO,
    crate::rules::gentlemen::MOUNTED,
    // Each change is said with the men in ranks and confused after it (a
    // "confused now 1" line before it said it twice: audit AN7).
    crate::rules::napoleonic::CONFUSED,
    crate::rules::gentlemen::COMMANDED,
    crate::rules::gentlemen::CONCUSSION,
];

/// Wounds go to the first surviving soldier until it reaches the unit's wound
/// limit and is removed; the rest carry on to the next soldier.
fn allocate_wounds(u: &mut Unit, wounds: u32) {
    for _ in 0..wounds {
        let Some(first) = u.soldiers.first_mut() else {
            break;
        };
        first.wounds += 1;
        if first.wounds >= u.wounds_per_soldier {
            u.soldiers.remove(0);
        }
    }
    if u.soldiers.is_empty() {
        u.presence = Presence::Removed;
    }
}

/// How a unit stat reads in the log: the games' short keys spelled out, any
/// other key with its underscores as spaces.
fn stat_label(stat: &str) -> String {
    match stat {
        "ap" => "action points".into(),
        "ammo" => "ammunition".into(),
        "ammo_max" => "ammunition capacity".into(),
        other => other.replace('_', " "),
    }
}

/// `name`, or `name 2`, `name 3`... when a unit of the game already has it
/// (ignoring case): prompts, menus and the log tell units apart by name.
pub fn distinct_unit_name(state: &GameState, name: &str) -> String {
    let taken = |n: &str| state.units.iter().any(|u| u.name.eq_ignore_ascii_case(n));
    if !taken(name) {
        return name.to_string();
    }
    (2..)
        .map(|k| format!("{name} {k}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| name.to_string())
}

/// What joins a roll's purpose and its dice in its log line ("Damage to
/// Kid: rolled [6]"); [`LogLine::is_roll`] looks for it.
pub(crate) const ROLLED: &str = ": rolled ";

/// Where a roll's dice came from, when not typed in (the usual case):
/// " (read by the camera)", " (rolled by Adjutant)", " (1 of 2 read by the
/// camera)" (one die of several in view taken, the rest typed), " (1 of 2
/// rolled by Adjutant)" (the rest of a roll begun by hand); a disputed
/// result after a misread can be traced.
fn roll_source(dice: &crate::table::DicePool) -> String {
    use crate::table::DieSource;
    let count = |s: DieSource| dice.dice.iter().filter(|d| d.source == s).count();
    let (camera, all) = (count(DieSource::Camera), dice.dice.len());
    if all > 0 && camera == all {
        " (read by the camera)".into()
    } else if camera > 0 {
        format!(" ({camera} of {all} read by the camera)")
    } else if all > 0 && count(DieSource::Virtual) == all {
        " (rolled by Adjutant)".into()
    } else if count(DieSource::Virtual) > 0 {
        format!(
            " ({} of {all} rolled by Adjutant)",
            count(DieSource::Virtual)
        )
    } else {
        String::new()
    }
}

/// "1 wound", "3 wounds".
fn count_of(n: u32, thing: &str) -> String {
    if n == 1 {
        format!("1 {thing}")
    } else {
        format!("{n} {thing}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::ChaCha8Rng;

    fn unit(soldiers: u32, wps: u32) -> GameState {
        let mut s = GameState::default();
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        Effect::AddSide {
            name: "A".into(),
            back: None,
        }
        .apply(&mut s, &mut rng);
        Effect::AddUnit(UnitSpec {
            side: 0,
            name: "U".into(),
            profile: "p".into(),
            cards: vec![],
            stats: Default::default(),
            soldiers,
            wounds_per_soldier: wps,
            upgrades: vec![],
        })
        .apply(&mut s, &mut rng);
        s
    }

    #[test]
    fn a_roll_says_where_its_dice_came_from() {
        use crate::table::{D6, DicePool, DieSource};
        let pool = |sources: &[DieSource]| DicePool {
            dice: (sources.iter())
                .filter_map(|&source| {
                    Some(crate::table::Die {
                        value: D6::new(4)?,
                        source,
                    })
                })
                .collect(),
        };
        assert_eq!(
            roll_source(&pool(&[DieSource::Camera; 2])),
            " (read by the camera)"
        );
        assert_eq!(
            roll_source(&pool(&[DieSource::Camera, DieSource::Manual])),
            " (1 of 2 read by the camera)"
        );
        assert_eq!(
            roll_source(&pool(&[DieSource::Virtual])),
            " (rolled by Adjutant)"
        );
        // Entered by hand, the rest rolled by Adjutant (audit BM M2).
        assert_eq!(
            roll_source(&pool(&[DieSource::Manual, DieSource::Virtual])),
            " (1 of 2 rolled by Adjutant)"
        );
        assert_eq!(roll_source(&pool(&[DieSource::Manual])), "");
        assert_eq!(roll_source(&pool(&[])), "");
    }

    #[test]
    fn a_lone_figure_is_fielded_without_a_soldier_count() {
        let log = |n| unit(n, 1).log.last().map(|l| l.text.clone());
        assert_eq!(log(1).as_deref(), Some("A fields U"));
        assert_eq!(log(5).as_deref(), Some("A fields U (5 soldiers)"));
    }

    #[test]
    fn a_unit_losing_its_last_soldier_is_said_to_leave_play() {
        let s = unit(3, 1);
        let said = |count| Effect::RemoveSoldiers { unit: 0, count }.describe(&s);
        assert_eq!(said(2).as_deref(), Some("U loses 2 soldier(s)"));
        assert_eq!(
            said(3).as_deref(),
            Some("U loses 3 soldier(s), its last: it is out of play")
        );
    }

    #[test]
    fn a_stat_change_is_logged_in_words() {
        let s = unit(1, 1);
        let said = |stat: &str| {
            Effect::SetStat {
                unit: 0,
                stat: stat.into(),
                value: 3,
            }
            .describe(&s)
        };
        assert_eq!(said("ap").as_deref(), Some("U: action points now 3"));
        // Said by Card-activation's own weapon-prep lines.
        assert_eq!(said("prep_left"), None);
        assert_eq!(
            said("shot_markers").as_deref(),
            Some("U: shot markers now 3")
        );
        // Bookkeeping stats stay out of the log.
        assert_eq!(said("uses:rifle"), None);
    }

    #[test]
    fn wounds_fill_one_soldier_then_the_next() {
        let cases = [
            // (soldiers, wounds per soldier, wounds, soldiers left, wounds carried)
            (6, 1, 2, 4, 0),
            (1, 2, 1, 1, 1),
            (2, 2, 3, 1, 1),
            (3, 3, 9, 0, 0),
            (2, 1, 5, 0, 0),
        ];
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        for (n, wps, w, left, carried) in cases {
            let mut s = unit(n, wps);
            Effect::Wound { unit: 0, wounds: w }.apply(&mut s, &mut rng);
            assert_eq!(s.units[0].soldiers.len(), left, "{n} {wps} {w}");
            assert_eq!(s.units[0].wounds(), carried);
            assert_eq!(s.units[0].in_play(), left > 0);
            assert_eq!(s.units[0].missing(), n - left as u32);
        }
    }

    #[test]
    fn effects_on_missing_things_change_nothing_but_the_log() {
        let mut s = unit(1, 1);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let before = s.units.clone();
        Effect::Wound { unit: 9, wounds: 1 }.apply(&mut s, &mut rng);
        Effect::SetHolder {
            objective: 3,
            holder: Holder::Contested,
        }
        .apply(&mut s, &mut rng);
        assert_eq!(s.units, before);
    }
}
