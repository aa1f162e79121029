//! Abilities bought with cards (Gentlemen of War style): what a unit may try,
//! what it draws for, and the effects the drawn cards can pay for. Abilities
//! are data in the ruleset file so players can add their own roster sheets.

use crate::table::{Card, CardOrdering, Suit};
use serde::{Deserialize, Serialize};

/// How an ability is attempted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AbilityCheck {
    /// Draw cards equal to the unit's stat in this suit, then buy an effect.
    Skill(Suit),
    /// No draw: succeeds once this many action points have been spent (over
    /// one or several activations).
    Checkless(u32),
}

/// Who or where an ability reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reach {
    /// Any target; one card fewer per hex beyond the optimal range.
    Ranged(u32),
    /// Targets within this many hexes; a hit puts both units in melee.
    Melee(u32),
    /// Friendly targets within this many hexes.
    Support(u32),
}

/// One card an effect costs: a suit (or any card) and a lowest value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CostCard {
    /// The suit the card must count as; `None` takes any card with a suit.
    #[serde(default)]
    pub suit: Option<Suit>,
    /// The card's value must be at least this.
    #[serde(default)]
    pub min: i32,
}

/// A condition an effect leaves on its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Condition {
    /// The target loses this many action points at its next activation.
    Concussion(u32),
    /// The target may not dash until its next activation ends.
    Immobilize,
    /// The target may not be the next unit its side activates, unless it is
    /// the only one left.
    Suppressed,
    /// The target is pushed this many hexes directly away.
    Knockback(u32),
    /// The target gains this many action points if it is activated next.
    Commanded(u32),
    /// The target heals this many wounds.
    Heal(u32),
    /// The user's weapon gains this much ammunition (up to its maximum).
    Load(u32),
    /// The user looks at this many cards from the top of its deck and puts
    /// them back.
    Reveal(u32),
}

impl Condition {
    /// Whether it acts on the user rather than on a target.
    pub fn on_user(self) -> bool {
        matches!(self, Condition::Load(_) | Condition::Reveal(_))
    }
}

/// One effect an ability can buy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AbilityOption {
    /// What players see ("2 wounds, knockback").
    pub label: String,
    /// The cards it costs (empty for checkless abilities).
    #[serde(default)]
    pub cost: Vec<CostCard>,
    /// Wounds dealt to the target.
    #[serde(default)]
    pub wounds: u32,
    /// Armour points it ignores.
    #[serde(default)]
    pub pierce: u32,
    /// Conditions left on the target (or the user, for `Load`).
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// An ability on a roster sheet or a weapon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ability {
    /// Stable id ("musket-fire").
    pub id: String,
    /// Name shown to players.
    pub name: String,
    /// Skill check or checkless.
    pub check: AbilityCheck,
    /// Its reach, if it targets someone.
    #[serde(default)]
    pub reach: Option<Reach>,
    /// The effects it can buy.
    pub options: Vec<AbilityOption>,
    /// Several different options may be bought with one draw.
    #[serde(default)]
    pub multichoice: bool,
    /// The same option may be bought more than once.
    #[serde(default)]
    pub repeatable: bool,
    /// May be used again in the same activation, drawing fewer each time.
    #[serde(default)]
    pub reusable: bool,
    /// The ammunition stat it spends one of (`"ammo"`), if any.
    #[serde(default)]
    pub ammo: Option<String>,
    /// Movement: a charge may be declared before drawing.
    #[serde(default)]
    pub dash: bool,
    /// Every unit has it (punching, dashing) without listing it.
    #[serde(default)]
    pub universal: bool,
    /// Each option bought may hit a different target (in reach).
    #[serde(default)]
    pub multitarget: bool,
    /// A heavy weapon: unless the unit is Strong (stat `strong`), it cannot
    /// both move and use this weapon in one activation.
    #[serde(default)]
    pub heavy: bool,
    /// A unit may use it as many times per activation as its value of this
    /// stat (`"empty_hands"` for punching), each at full draw; 0 hides it.
    #[serde(default)]
    pub uses_stat: Option<String>,
    /// A fixed bayonet: every use draws the ruleset's `bayonet_draw_loss`
    /// cards fewer (Gentlemen of War: "all actions made with them draw 1 less").
    #[serde(default)]
    pub bayonet: bool,
}

impl Ability {
    /// Checks the ability's own consistency.
    pub fn validate(&self) -> Result<(), String> {
        if self.options.is_empty() {
            return Err(format!("ability `{}` has no options", self.id));
        }
        if let AbilityCheck::Skill(_) = self.check
            && self.options.iter().any(|o| o.cost.is_empty())
        {
            return Err(format!(
                "ability `{}`: every option of a skill check needs a cost",
                self.id
            ));
        }
        Ok(())
    }

    /// Whether the ability can only be used out of melee.
    pub fn barred_in_melee(&self) -> bool {
        matches!(self.check, AbilityCheck::Checkless(_))
            || matches!(self.reach, Some(Reach::Ranged(_) | Reach::Support(_)))
    }
}

impl CostCard {
    /// Whether `card` can pay for this cost under `cards` (wild suits, values).
    pub fn paid_by(&self, card: Card, cards: &CardOrdering) -> bool {
        let Some(value) = cards.value(card) else {
            return false;
        };
        if card.suit().is_none() {
            return false;
        }
        let suit_ok = match self.suit {
            Some(s) => cards.counts_as(card, s),
            None => true,
        };
        suit_ok && value >= self.min
    }
}

/// Finds distinct cards of `hand` paying every item of `cost`; returns their
/// indices in `hand`, or `None` when the hand cannot pay. Tries the most
/// demanding items first and prefers cheap cards, so what is left over stays
/// as useful as possible for a second purchase.
pub fn pay(cost: &[CostCard], hand: &[Card], cards: &CardOrdering) -> Option<Vec<usize>> {
    let mut order: Vec<usize> = (0..cost.len()).collect();
    order.sort_by_key(|&i| {
        let c = cost[i];
        (c.suit.is_none(), std::cmp::Reverse(c.min))
    });
    let mut by_value: Vec<usize> = (0..hand.len()).collect();
    by_value.sort_by_key(|&i| (wildness(hand[i], cards), cards.value(hand[i]).unwrap_or(0)));
    let mut used = vec![false; hand.len()];
    let mut chosen = vec![0; cost.len()];
    if assign(
        &order,
        0,
        cost,
        hand,
        cards,
        &by_value,
        &mut used,
        &mut chosen,
    ) {
        Some(chosen)
    } else {
        None
    }
}

/// Every different way `hand` can pay `cost` (as sets of indices in `hand`,
/// no two spending the same cards), the one [`pay`] picks first. The player
/// chooses among them when the cards left over differ in what they can still
/// buy.
pub fn payments(cost: &[CostCard], hand: &[Card], cards: &CardOrdering) -> Vec<Vec<usize>> {
    let Some(first) = pay(cost, hand, cards) else {
        return Vec::new();
    };
    let mut out: Vec<Vec<usize>> = Vec::new();
    let mut seen: Vec<Vec<Card>> = Vec::new();
    let mut add = |mut chosen: Vec<usize>| {
        chosen.sort_unstable();
        let mut spent: Vec<Card> = chosen.iter().map(|&i| hand[i]).collect();
        spent.sort_unstable();
        if !seen.contains(&spent) {
            seen.push(spent);
            out.push(chosen);
        }
    };
    add(first);
    let mut used = vec![false; hand.len()];
    let mut chosen = Vec::with_capacity(cost.len());
    every_payment(cost, hand, cards, &mut used, &mut chosen, &mut add);
    out
}

/// Calls `found` with each assignment of distinct cards to the cost items.
fn every_payment(
    cost: &[CostCard],
    hand: &[Card],
    cards: &CardOrdering,
    used: &mut [bool],
    chosen: &mut Vec<usize>,
    found: &mut impl FnMut(Vec<usize>),
) {
    let Some(item) = cost.get(chosen.len()) else {
        found(chosen.clone());
        return;
    };
    for h in 0..hand.len() {
        if used[h] || !item.paid_by(hand[h], cards) {
            continue;
        }
        used[h] = true;
        chosen.push(h);
        every_payment(cost, hand, cards, used, chosen, found);
        chosen.pop();
        used[h] = false;
    }
}

/// Wild cards (counting as every suit) are spent last.
fn wildness(card: Card, cards: &CardOrdering) -> usize {
    Suit::ALL
        .iter()
        .filter(|&&s| cards.counts_as(card, s))
        .count()
}

/// Backtracking assignment of cards to cost items (hands are small).
#[allow(clippy::too_many_arguments)]
fn assign(
    order: &[usize],
    k: usize,
    cost: &[CostCard],
    hand: &[Card],
    cards: &CardOrdering,
    by_value: &[usize],
    used: &mut [bool],
    chosen: &mut [usize],
) -> bool {
    let Some(&item) = order.get(k) else {
        return true;
    };
    for &h in by_value {
        if used[h] || !cost[item].paid_by(hand[h], cards) {
            continue;
        }
        used[h] = true;
        chosen[item] = h;
        if assign(order, k + 1, cost, hand, cards, by_value, used, chosen) {
            return true;
        }
        used[h] = false;
    }
    false
}

/// The cost in players' notation: `♦5 ♦ any`.
pub fn cost_text(cost: &[CostCard]) -> String {
    let items: Vec<String> = cost
        .iter()
        .map(|c| {
            let s = c
                .suit
                .map_or_else(|| "any".to_string(), |s| s.symbol().to_string());
            if c.min > 0 {
                format!("{s}{}", c.min)
            } else {
                s
            }
        })
        .collect();
    items.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::games::{GameId, Library};

    fn gow_cards() -> CardOrdering {
        let (lib, _) = Library::builtin();
        let rs = lib.get(GameId::GentlemenOfWar).cloned();
        rs.unwrap_or_else(|| panic!("no GoW ruleset")).cards
    }

    fn hand(codes: &str) -> Vec<Card> {
        codes
            .split_whitespace()
            .map(|c| c.parse().unwrap_or_else(|e| panic!("{c}: {e}")))
            .collect()
    }

    fn cost(items: &[(Option<Suit>, i32)]) -> Vec<CostCard> {
        items
            .iter()
            .map(|&(suit, min)| CostCard { suit, min })
            .collect()
    }

    #[test]
    fn costs_follow_suits_values_and_wild_cards() {
        let c = gow_cards();
        let d = Some(Suit::Diamonds);
        // ♦5 needs a diamond worth 5 or more; a Jack is wild but worth 2.
        assert!(pay(&cost(&[(d, 5)]), &hand("4d Jh"), &c).is_none());
        assert!(pay(&cost(&[(d, 5)]), &hand("4d Kh"), &c).is_some());
        // ♦♦ needs two distinct cards.
        assert!(pay(&cost(&[(d, 0), (d, 0)]), &hand("5d"), &c).is_none());
        assert_eq!(
            pay(&cost(&[(d, 0), (d, 0)]), &hand("5d 2c Jc"), &c),
            Some(vec![0, 2])
        );
        // The Little Joker pays for nothing, not even "any card".
        assert!(pay(&cost(&[(None, 0)]), &hand("XB"), &c).is_none());
        // The demanding item takes the only big card even if listed last.
        assert_eq!(
            pay(&cost(&[(d, 0), (d, 7)]), &hand("9d 3d"), &c),
            Some(vec![1, 0])
        );
    }

    #[test]
    fn every_way_to_pay_is_listed_once() {
        let c = gow_cards();
        let h = Some(Suit::Hearts);
        // ♥ from [Jh 9h]: the 9h first (not wild), or the Jack.
        assert_eq!(
            pay_texts(&cost(&[(h, 0)]), &hand("Jh 9h"), &c),
            ["9h", "Jh"]
        );
        // ♥♥ from three hearts: three pairs, each once.
        assert_eq!(
            pay_texts(&cost(&[(h, 0), (h, 0)]), &hand("2h 3h 4h"), &c).len(),
            3
        );
        assert!(payments(&cost(&[(h, 9)]), &hand("Jh 8h"), &c).is_empty());
    }

    fn pay_texts(cost: &[CostCard], hand: &[Card], c: &CardOrdering) -> Vec<String> {
        payments(cost, hand, c)
            .iter()
            .map(|p| {
                p.iter()
                    .map(|&i| hand[i].to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn wild_cards_are_kept_for_later() {
        let c = gow_cards();
        let d = Some(Suit::Diamonds);
        // Pays with 6d, keeping the King for a second purchase.
        assert_eq!(pay(&cost(&[(d, 0)]), &hand("Kd 6d"), &c), Some(vec![1]));
        assert_eq!(cost_text(&cost(&[(d, 5), (None, 0)])), "♦5 any");
    }
}
