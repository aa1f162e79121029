//! Checks: a skill check (draw, Queens, Jokers, buying effects), checkless
//! actions, hits with their Armour Check, wounds, and the Rout Check.

use super::{
    AMMO_MAX, AP, ARMOUR, COMMANDED, CONCUSSION, IMMOBILIZED, IN_MELEE, SUPPRESSED, deck_of, num,
    other, set_stat, set_status, stat, suit_stat, unit_choice, units_of, wounds, yes_no,
};
use crate::rules::ability::{Ability, AbilityOption, Condition, Reach, cost_text, pay};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{Outcome, SideId, UnitId};
use crate::table::{BackColour, Card, Joker, PhysicalCard, Rank, Suit};

/// Stat counting an ability's uses in the current activation.
pub(crate) fn uses_key(a: &Ability) -> String {
    format!("uses:{}", a.id)
}

/// Stat holding the action points paid so far towards a checkless ability.
pub(crate) fn progress_key(a: &Ability) -> String {
    format!("paid:{}", a.id)
}

/// Cards a skill check draws before extra points and modifiers: the stat,
/// less one per earlier use this activation.
pub(crate) fn base_draw(ctx: &Ctx, unit: UnitId, a: &Ability, suit: Suit) -> i32 {
    let uses = stat(ctx, unit, &uses_key(a));
    (stat(ctx, unit, suit_stat(suit)) - uses * num(ctx, "reuse_draw_loss")).max(0)
}

/// Action points a checkless ability needs: its icons, one more per earlier
/// use this activation.
pub(crate) fn checkless_cost(ctx: &Ctx, unit: UnitId, a: &Ability, icons: u32) -> i32 {
    icons as i32 + stat(ctx, unit, &uses_key(a))
}

fn spend(ctx: &mut Ctx, unit: UnitId, points: i32) {
    let left = (stat(ctx, unit, AP) - points).max(0);
    set_stat(ctx, unit, AP, left);
}

fn used(ctx: &mut Ctx, unit: UnitId, a: &Ability) {
    let k = uses_key(a);
    let n = stat(ctx, unit, &k) + 1;
    set_stat(ctx, unit, &k, n);
}

/// Spends one round of ammunition when the ability needs it.
fn spend_ammo(ctx: &mut Ctx, unit: UnitId, a: &Ability) {
    if let Some(k) = &a.ammo {
        let left = (stat(ctx, unit, k) - 1).max(0);
        set_stat(ctx, unit, k, left);
    }
}

/// Cards drawn for one check, after Queens and the Big Joker.
pub(crate) struct Draw {
    /// Cards still in hand to pay with.
    pub hand: Vec<Card>,
    /// Every card drawn (they all go to the discard pile afterwards).
    pub all: Vec<Card>,
    /// The Big Joker came up and was not cancelled: the check fails.
    pub failed: bool,
}

/// Draws `n` cards for `side`, offering each Queen's redraw and an Ace to
/// cancel the Big Joker.
pub(crate) fn draw_check(ctx: &mut Ctx, side: SideId, n: u32, what: &str) -> Flow<Draw> {
    let deck = deck_of(side);
    let player = ctx.state().side_name(side);
    let mut hand = ctx.draw(
        deck,
        n,
        format!("{player} draws {n} for {what}"),
        Some("deck"),
    )?;
    let mut all = hand.clone();
    let mut offered = 0;
    let extra = num(ctx, "queen_extra_draw").max(0) as u32;
    while let Some(q) = hand
        .iter()
        .copied()
        .filter(|c| c.rank() == Some(Rank::Queen))
        .nth(offered)
    {
        if yes_no(
            ctx,
            format!("{player}: discard {q} to draw {extra} more?"),
            "queens",
        )? {
            if let Some(i) = hand.iter().position(|c| *c == q) {
                hand.remove(i);
            }
            let more = ctx.draw(
                deck,
                extra,
                format!("{player} draws {extra} for {q}"),
                Some("queens"),
            )?;
            hand.extend(more.iter().copied());
            all.extend(more);
        } else {
            offered += 1;
        }
    }
    let big = Card::Joker(Joker::Red);
    let mut failed = false;
    if hand.contains(&big) {
        let ace = hand.iter().copied().find(|c| c.rank() == Some(Rank::Ace));
        let cancel = match ace {
            Some(a) => yes_no(
                ctx,
                format!("{player}: discard {a} to cancel the Big Joker?"),
                "aces",
            )?,
            None => false,
        };
        hand.retain(|c| *c != big);
        if cancel {
            if let Some(i) = hand.iter().position(|c| c.rank() == Some(Rank::Ace)) {
                hand.remove(i);
            }
            ctx.resolved(
                "aces",
                format!("{player} cancels the Big Joker with an Ace"),
            );
        } else {
            failed = true;
            ctx.resolved("jokers", format!("Big Joker: {player}'s {what} fails"));
        }
    }
    Ok(Draw { hand, all, failed })
}

/// Puts every drawn card on the discard pile, then lets the player use a
/// Joker's peek: the Little Joker allows a shuffle, the Big Joker a shuffle
/// or a new order for the top cards.
pub(crate) fn finish_draw(ctx: &mut Ctx, side: SideId, all: &[Card]) -> Flow<()> {
    let deck = deck_of(side);
    let back = ctx
        .state()
        .sides
        .get(side)
        .and_then(|s| s.back)
        .unwrap_or(BackColour::Other);
    if all.is_empty() {
        return Ok(());
    }
    ctx.apply(Effect::DiscardCards {
        deck,
        cards: all
            .iter()
            .map(|&card| PhysicalCard { card, back })
            .collect(),
    });
    let player = ctx.state().side_name(side);
    let peek = num(ctx, "joker_peek_cards").max(0) as usize;
    let on_top = ctx.state().decks.get(deck).map_or(0, |d| d.draw_pile.len());
    let peek = peek.min(on_top);
    for joker in [Joker::Black, Joker::Red] {
        if !all.contains(&Card::Joker(joker)) || peek == 0 {
            continue;
        }
        let mut options = vec![
            Choice::new("keep", "Leave them as they are"),
            Choice::new("shuffle", "Shuffle the deck"),
        ];
        if joker == Joker::Red {
            options.push(Choice::new("rearrange", "Put them back in a new order"));
        }
        let label = if joker == Joker::Red { "Big" } else { "Little" };
        let picked = ctx.choose(
            format!("{player} ({label} Joker): look at the top {peek} cards of your deck"),
            options,
            Some("jokers"),
        )?;
        match picked.as_str() {
            "shuffle" => ctx.apply(Effect::Shuffle { deck }),
            "rearrange" => {
                let top = ctx.shown(
                    peek as u32,
                    format!("{player}: name the top {peek} cards in their new order, top first"),
                    Some("jokers"),
                )?;
                ctx.apply(Effect::Restack { deck, top });
            }
            _ => {}
        }
    }
    Ok(())
}

/// A skill check: declare, draw, then buy effects with the cards.
pub fn skill_check(ctx: &mut Ctx, unit: UnitId, a: &Ability, suit: Suit) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let side = ctx.state().units[unit].side;
    let base = base_draw(ctx, unit, a, suit);
    spend(ctx, unit, num(ctx, "skill_check_action_cost"));
    spend_ammo(ctx, unit, a);
    used(ctx, unit, a);
    let charge = if a.dash {
        let enemies = units_of(ctx, other(side));
        super::super::common::pick(
            ctx,
            &format!("{name}: declare a charge before drawing?"),
            &enemies,
            unit_choice,
            Some("No charge"),
            "movement-charge",
        )?
    } else {
        None
    };
    let ap = stat(ctx, unit, AP);
    let extra = if ap > 0 {
        ctx.number(
            format!("{name}: extra action points to spend on draws (declare before drawing)"),
            0,
            ap.into(),
            Some("skill-check"),
        )? as i32
    } else {
        0
    };
    spend(ctx, unit, extra);
    let m = num(ctx, "max_draw_modifier").max(0);
    let modifier = ctx.number(
        "Cards more or fewer: cover, range past optimal, Block, Parry, bayonet, charge bonus, Stalk",
        (-m).into(),
        m.into(),
        Some("skill-check"),
    )? as i32;
    let n = (base + extra + modifier).max(0) as u32;
    ctx.resolved(
        "skill-check",
        format!(
            "{name} uses {} ({}): draws {n} ({base} from {}, {extra:+} action points, {modifier:+} modifiers)",
            a.name,
            suit.symbol(),
            suit_stat(suit)
        ),
    );
    let draw = draw_check(ctx, side, n, &a.name)?;
    let aces = draw
        .all
        .iter()
        .filter(|c| c.rank() == Some(Rank::Ace))
        .count() as u32;
    let mut bought: Vec<usize> = Vec::new();
    if !draw.failed {
        let mut hand = draw.hand.clone();
        loop {
            let open: Vec<usize> = (0..a.options.len())
                .filter(|&i| may_buy(a, &bought, i))
                .filter(|&i| pay(&a.options[i].cost, &hand, &ctx.ruleset.cards).is_some())
                .collect();
            if open.is_empty() {
                break;
            }
            let mut options: Vec<Choice> = open
                .iter()
                .map(|&i| {
                    let o = &a.options[i];
                    Choice::new(
                        format!("o{i}"),
                        format!("{} [{}]", o.label, cost_text(&o.cost)),
                    )
                })
                .collect();
            let none = if bought.is_empty() {
                "Buy nothing (the ability fails)"
            } else {
                "Done buying"
            };
            options.push(Choice::new("none", none));
            let cards: Vec<String> = hand.iter().map(|c| c.to_string()).collect();
            let picked = ctx.choose(
                format!(
                    "{name}'s {} with [{}]: buy an effect",
                    a.name,
                    cards.join(" ")
                ),
                options,
                Some("skill-check"),
            )?;
            let Some(&i) = open.iter().find(|&&i| picked == format!("o{i}")) else {
                break;
            };
            let option = a.options[i].clone();
            if let Some(mut paid) = pay(&option.cost, &hand, &ctx.ruleset.cards) {
                paid.sort_unstable();
                for j in paid.into_iter().rev() {
                    hand.remove(j);
                }
            }
            bought.push(i);
            ctx.resolved("skill-check", format!("{name} buys {}", option.label));
            resolve(ctx, unit, a, &option, aces)?;
            if ctx.state().outcome.is_some() {
                return Ok(());
            }
        }
    }
    if bought.is_empty() && !draw.failed {
        ctx.resolved("skill-check", format!("{name}'s {} fails", a.name));
    }
    finish_draw(ctx, side, &draw.all)?;
    if let Some(target) = charge
        && ctx.state().units.get(target).is_some_and(|u| u.in_play())
    {
        let t = ctx.state().unit_name(target);
        if yes_no(
            ctx,
            format!("Did {name} end its move next to {t}?"),
            "movement-charge",
        )? {
            set_status(ctx, unit, IN_MELEE, true);
            set_status(ctx, target, IN_MELEE, true);
            ctx.resolved(
                "movement-charge",
                format!("{name} charges into {t}: both are in melee"),
            );
        } else {
            ctx.resolved(
                "movement-charge",
                format!("{name}'s charge falls short of {t}"),
            );
        }
    }
    Ok(())
}

/// Whether option `i` may still be bought after `bought`: one option only,
/// unless Multichoice (different ones) or Repeatable (the same again).
fn may_buy(a: &Ability, bought: &[usize], i: usize) -> bool {
    if bought.is_empty() {
        return true;
    }
    let again = bought.contains(&i);
    match (a.multichoice, a.repeatable) {
        (true, true) => true,
        (true, false) => !again,
        (false, true) => again,
        (false, false) => false,
    }
}

/// A checkless action: pay action points towards it; when paid in full its
/// first option happens.
pub fn checkless(ctx: &mut Ctx, unit: UnitId, a: &Ability, icons: u32) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let need = checkless_cost(ctx, unit, a, icons);
    let key = progress_key(a);
    let paid = stat(ctx, unit, &key);
    let ap = stat(ctx, unit, AP);
    let most = (need - paid).min(ap).max(1);
    let points = if most == 1 {
        1
    } else {
        ctx.number(
            format!(
                "{name}: action points to put into {} ({paid} of {need} paid)",
                a.name
            ),
            1,
            most.into(),
            Some("checkless-action"),
        )? as i32
    };
    spend(ctx, unit, points);
    let paid = paid + points;
    if paid < need {
        set_stat(ctx, unit, &key, paid);
        ctx.resolved(
            "checkless-action",
            format!(
                "{name} puts {points} point(s) into {} ({paid} of {need})",
                a.name
            ),
        );
        return Ok(());
    }
    set_stat(ctx, unit, &key, 0);
    used(ctx, unit, a);
    spend_ammo(ctx, unit, a);
    ctx.resolved("checkless-action", format!("{name} completes {}", a.name));
    if let Some(option) = a.options.first().cloned() {
        resolve(ctx, unit, a, &option, 0)?;
    }
    Ok(())
}

/// What a bought option does: to its user (loading) and to a target (wounds,
/// healing, conditions), with the target's Armour Check against harm.
fn resolve(ctx: &mut Ctx, user: UnitId, a: &Ability, o: &AbilityOption, aces: u32) -> Flow<()> {
    for c in &o.conditions {
        if let Condition::Load(n) = c {
            load(ctx, user, a, *n);
        }
    }
    let on_target = o.wounds > 0
        || o.conditions
            .iter()
            .any(|c| !matches!(c, Condition::Load(_)));
    if !on_target {
        return Ok(());
    }
    let friendly = matches!(a.reach, Some(Reach::Support(_)))
        || o.conditions
            .iter()
            .any(|c| matches!(c, Condition::Heal(_) | Condition::Commanded(_)));
    let side = ctx.state().units[user].side;
    let targets = units_of(ctx, if friendly { side } else { other(side) });
    let name = ctx.state().unit_name(user);
    let Some(target) = super::super::common::pick(
        ctx,
        &format!("{name}'s {}: {} on whom?", a.name, o.label),
        &targets,
        unit_choice,
        Some("Nobody in reach"),
        "skill-check",
    )?
    else {
        return Ok(());
    };
    let (mut hurt, mut affect) = (true, true);
    if !friendly {
        let pierce = o.pierce + aces * num(ctx, "ace_armour_pierce").max(0) as u32;
        (hurt, affect) = armour_check(ctx, target, pierce)?;
        if matches!(a.reach, Some(Reach::Melee(_))) {
            set_status(ctx, user, IN_MELEE, true);
            set_status(ctx, target, IN_MELEE, true);
        }
    }
    if hurt && o.wounds > 0 {
        wound(ctx, target, o.wounds);
    }
    if affect && ctx.state().units.get(target).is_some_and(|u| u.in_play()) {
        for c in &o.conditions {
            condition(ctx, target, *c);
        }
    }
    Ok(())
}

fn load(ctx: &mut Ctx, unit: UnitId, a: &Ability, n: u32) {
    let key = a.ammo.clone().unwrap_or_else(|| super::AMMO.to_string());
    let max = stat(ctx, unit, AMMO_MAX).max(1);
    let now = (stat(ctx, unit, &key) + n as i32).min(max);
    set_stat(ctx, unit, &key, now);
    let name = ctx.state().unit_name(unit);
    ctx.resolved(
        "checkless-action",
        format!("{name} is loaded ({now} of {max})"),
    );
}

/// Leaves condition `c` on `target` and says what it does.
fn condition(ctx: &mut Ctx, target: UnitId, c: Condition) {
    let t = ctx.state().unit_name(target);
    let said = match c {
        Condition::Concussion(n) => {
            let v = stat(ctx, target, CONCUSSION) + n as i32;
            set_stat(ctx, target, CONCUSSION, v);
            format!("{t} is concussed: -{v} action point(s) next activation")
        }
        Condition::Immobilize => {
            set_status(ctx, target, IMMOBILIZED, true);
            format!("{t} is immobilized: no dashing until its activation ends")
        }
        Condition::Suppressed => {
            set_status(ctx, target, SUPPRESSED, true);
            format!("{t} is suppressed: it may not be its side's next activation")
        }
        Condition::Knockback(n) => format!("Knockback: move {t} {n} hex(es) directly away"),
        Condition::Commanded(n) => {
            let v = stat(ctx, target, COMMANDED) + n as i32;
            set_stat(ctx, target, COMMANDED, v);
            format!("{t} is commanded: +{v} action point(s) if activated next")
        }
        Condition::Heal(n) => {
            let (w, _) = wounds(ctx, target);
            let n = n.min(w);
            if n > 0 {
                ctx.apply(Effect::Heal {
                    unit: target,
                    wounds: n,
                });
            }
            return;
        }
        Condition::Load(_) => return,
    };
    ctx.resolved("effects", said);
}

/// The target's Armour Check: one card per un-pierced armour point; one
/// spade cancels the wounds, two cancel wounds and effects. Returns
/// (wounds land, effects land).
pub fn armour_check(ctx: &mut Ctx, target: UnitId, pierce: u32) -> Flow<(bool, bool)> {
    let t = ctx.state().unit_name(target);
    let armour = stat(ctx, target, ARMOUR).max(0) as u32;
    let left = armour.saturating_sub(pierce);
    if armour == 0 {
        return Ok((true, true));
    }
    if left == 0 {
        ctx.resolved(
            "armour-check",
            format!("{t}'s armour is pierced: no Armour Check"),
        );
        return Ok((true, true));
    }
    let n = left * num(ctx, "armour_cards_per_point").max(1) as u32;
    let side = ctx.state().units[target].side;
    let draw = draw_check(ctx, side, n, &format!("{t}'s Armour Check"))?;
    let spades = if draw.failed {
        0
    } else {
        draw.hand
            .iter()
            .filter(|&&c| ctx.ruleset.cards.counts_as(c, Suit::Spades))
            .count() as i32
    };
    let result = if spades >= num(ctx, "armour_deflect_spades") {
        ctx.resolved(
            "armour-check",
            format!("{t}'s armour deflects the attack ({spades} spade(s))"),
        );
        (false, false)
    } else if spades >= num(ctx, "armour_ignore_wounds_spades") {
        ctx.resolved(
            "armour-check",
            format!("{t}'s armour stops the wounds ({spades} spade)"),
        );
        (false, true)
    } else {
        ctx.resolved("armour-check", format!("{t}'s Armour Check fails"));
        (true, true)
    };
    finish_draw(ctx, side, &draw.all)?;
    Ok(result)
}

/// Wounds stop at Spades (Death's Door); a wound at Death's Door takes the
/// unit out of action.
pub fn wound(ctx: &mut Ctx, unit: UnitId, n: u32) {
    let (w, s) = wounds(ctx, unit);
    let name = ctx.state().unit_name(unit);
    if w >= s {
        ctx.apply(Effect::Wound { unit, wounds: 1 });
        ctx.resolved(
            "wounds",
            format!("{name} was at Death's Door: out of action"),
        );
        return;
    }
    let add = n.min(s - w);
    ctx.apply(Effect::Wound { unit, wounds: add });
    if w + add >= s {
        ctx.resolved("wounds", format!("{name} is at Death's Door"));
    }
}

/// A side with half or more of its units out of action tests at the start
/// of the turn: draw 3, one fewer per unit lost since its first test; any
/// club passes, no cards or the Big Joker fails and the side flees.
pub fn rout_check(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let total = ctx.state().units.iter().filter(|u| u.side == side).count() as i64;
    let lost = total - units_of(ctx, side).len() as i64;
    let (n, d) = (
        ctx.ruleset.number("rout_threshold_num"),
        ctx.ruleset.number("rout_threshold_den").max(1),
    );
    if lost == 0 || lost * d < total * n {
        return Ok(());
    }
    let key = format!("rout-first-lost:{side}");
    let first = match ctx.state().counter(&key) {
        0 => {
            ctx.apply(Effect::SetCounter {
                key: key.clone(),
                value: lost + 1,
            });
            lost
        }
        v => v - 1,
    };
    let cards = ctx.ruleset.number("rout_draw")
        - (lost - first) * ctx.ruleset.number("rout_draw_loss_per_unit");
    let name = ctx.state().side_name(side);
    let passed = if cards <= 0 {
        ctx.resolved(
            "rout-check",
            format!("{name} has no cards left to draw for its Rout Check"),
        );
        false
    } else {
        let draw = draw_check(ctx, side, cards as u32, "Rout Check")?;
        let clubs = !draw.failed
            && draw
                .hand
                .iter()
                .any(|&c| ctx.ruleset.cards.counts_as(c, Suit::Clubs));
        finish_draw(ctx, side, &draw.all)?;
        clubs
    };
    if passed {
        ctx.resolved(
            "rout-check",
            format!("{name} passes its Rout Check ({cards} card(s), a club)"),
        );
        return Ok(());
    }
    let reason = format!("{name} fails its Rout Check and flees");
    ctx.resolved("rout-check", reason.clone());
    ctx.apply(Effect::End(Outcome {
        winner: Some(other(side)),
        reason,
    }));
    Ok(())
}
