//! A turn: Rout Checks, then the players alternate activating one unit each
//! until every unit has acted; the discards are shuffled back at the end.

use super::{
    ACTIVATED, AP, COMMANDED, CONCUSSION, IMMOBILIZED, IN_MELEE, SUPPRESSED, abilities_of, check,
    check_wipeout, deck_of, num, other, set_stat, set_status, stat, stop_game, unit_choice,
    units_of,
};
use crate::rules::ability::{Ability, AbilityCheck};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{Activation, SideId, UnitId};

/// Plays turn `t`; `first` activates first.
pub fn play_turn(ctx: &mut Ctx, t: u32, first: SideId) -> Flow<()> {
    ctx.apply(Effect::SetTurn(t));
    for side in [first, other(first)] {
        check::rout_check(ctx, side)?;
        if ctx.state().outcome.is_some() {
            return Ok(());
        }
    }
    let mut side = first;
    loop {
        let ready = |ctx: &Ctx, s: SideId| -> Vec<UnitId> {
            units_of(ctx, s)
                .into_iter()
                .filter(|&u| !ctx.state().units[u].has(ACTIVATED))
                .collect()
        };
        if ready(ctx, side).is_empty() {
            side = other(side);
            if ready(ctx, side).is_empty() {
                break;
            }
        }
        let unit = pick_next(ctx, side, &ready(ctx, side))?;
        activate(ctx, unit)?;
        if ctx.state().outcome.is_some() || check_wipeout(ctx) {
            return Ok(());
        }
        side = other(side);
    }
    ctx.apply(Effect::ClearStatusAll {
        status: ACTIVATED.into(),
    });
    for s in 0..2 {
        ctx.apply(Effect::Reshuffle { deck: deck_of(s) });
    }
    ctx.resolved(
        "deck",
        format!("Turn {t} is over: both players shuffle their discards back into their decks"),
    );
    Ok(())
}

/// The side picks its next unit: a Suppressed unit only when it is the only
/// one left; Suppressed and Commanded end with this pick.
fn pick_next(ctx: &mut Ctx, side: SideId, ready: &[UnitId]) -> Flow<UnitId> {
    let free: Vec<UnitId> = ready
        .iter()
        .copied()
        .filter(|&u| !ctx.state().units[u].has(SUPPRESSED))
        .collect();
    let candidates = if free.is_empty() { ready } else { &free };
    let name = ctx.state().side_name(side);
    // The order panel shows whose pick it is, not the last unit to act.
    ctx.apply(Effect::SetActivationOrder(vec![Activation {
        side,
        unit: None,
        card: None,
    }]));
    let unit = match candidates {
        [only] => *only,
        _ => super::super::common::pick(
            ctx,
            &format!("{name}: activate which unit?"),
            candidates,
            unit_choice,
            None,
            "activation",
        )?
        .unwrap_or(candidates[0]),
    };
    let bonus = stat(ctx, unit, COMMANDED).max(0);
    for u in units_of(ctx, side) {
        set_status(ctx, u, SUPPRESSED, false);
        if u != unit {
            if stat(ctx, u, COMMANDED) > 0 {
                ctx.resolved(
                    "effects",
                    format!(
                        "{}'s Commanded lapses: it was not the unit activated next",
                        ctx.state().unit_name(u)
                    ),
                );
            }
            set_stat(ctx, u, COMMANDED, 0);
        }
    }
    if bonus > 0 {
        ctx.resolved(
            "effects",
            format!(
                "{} was Commanded: +{bonus} action point(s)",
                ctx.state().unit_name(unit)
            ),
        );
    }
    ctx.apply(Effect::SetActivationOrder(vec![Activation {
        side,
        unit: Some(unit),
        card: None,
    }]));
    Ok(unit)
}

/// One activation: action points from Clubs, then abilities until the
/// player ends it (or runs out of anything to do).
pub fn activate(ctx: &mut Ctx, unit: UnitId) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let concussion = stat(ctx, unit, CONCUSSION).max(0);
    let commanded = stat(ctx, unit, COMMANDED).max(0);
    let ap = (stat(ctx, unit, super::CLUBS) + commanded - concussion).max(0);
    set_stat(ctx, unit, CONCUSSION, 0);
    set_stat(ctx, unit, COMMANDED, 0);
    for a in abilities_of(ctx, unit) {
        set_stat(ctx, unit, &check::uses_key(&a), 0);
    }
    set_stat(ctx, unit, super::MOVED, 0);
    set_stat(ctx, unit, super::CHARGED, 0);
    // What the table said of melee reach held for the last activation only.
    super::forget_apart(ctx, None);
    set_stat(ctx, unit, AP, ap);
    // Why the points differ from Clubs, said on the same line.
    let mut why = Vec::new();
    if commanded > 0 {
        why.push(format!("{commanded} more for Commanded"));
    }
    if concussion > 0 {
        why.push(format!("{concussion} lost to concussion"));
    }
    let lost = if why.is_empty() {
        String::new()
    } else {
        format!(" ({})", why.join(", "))
    };
    ctx.resolved(
        "action-points",
        format!("{name} activates with {ap} action point(s){lost}"),
    );
    loop {
        if !ctx.state().units.get(unit).is_some_and(|u| u.in_play()) {
            break;
        }
        let usable = usable(ctx, unit);
        let ap = stat(ctx, unit, AP);
        let mut options: Vec<Choice> = usable
            .iter()
            .map(|a| Choice::new(a.id.clone(), describe(ctx, unit, a)))
            .collect();
        if stat(ctx, unit, super::MOUNTED) > 0 {
            options.push(Choice::new("dismount", "Dismount (free; no remounting)"));
        }
        options.push(Choice::new("end", format!("End {name}'s activation")));
        options.push(Choice::new("stop", "Stop the game here"));
        // With nothing left to use, the question says so rather than
        // inviting an ability that is not offered.
        let heavy = heavy_after_a_move(ctx, unit);
        let prompt = if usable.is_empty() {
            format!(
                "{name}: {ap} action point(s) left and no ability it can use now{heavy}: end its activation"
            )
        } else {
            format!("{name}: {ap} action point(s) left; use an ability{heavy}")
        };
        let picked = ctx.choose(prompt, options, Some("action-points"))?;
        match picked.as_str() {
            "end" => break,
            "stop" => {
                stop_game(ctx)?;
                if ctx.state().outcome.is_some() {
                    return Ok(());
                }
            }
            "dismount" => {
                let untrained = check::riding_untrained(ctx, unit);
                set_stat(ctx, unit, super::MOUNTED, 0);
                let why = if untrained {
                    ": its riding penalty ends"
                } else {
                    ""
                };
                ctx.resolved("mounts", format!("{name} dismounts for good{why}"));
            }
            id => {
                let Some(a) = usable.iter().find(|a| a.id == id).cloned() else {
                    continue;
                };
                match a.check {
                    AbilityCheck::Skill(suit) => check::skill_check(ctx, unit, &a, suit)?,
                    AbilityCheck::Checkless(icons) => check::checkless(ctx, unit, &a, icons)?,
                }
                if ctx.state().outcome.is_some() || check_wipeout(ctx) {
                    return Ok(());
                }
            }
        }
    }
    let lapsed = stat(ctx, unit, AP);
    set_stat(ctx, unit, AP, 0);
    set_status(ctx, unit, IMMOBILIZED, false);
    set_status(ctx, unit, ACTIVATED, true);
    if lapsed > 0 {
        ctx.resolved(
            "action-points",
            format!("{name} ends its activation; {lapsed} unspent action point(s) are lost"),
        );
    }
    Ok(())
}

/// " (Volley Gun: Fire is Heavy: not after a move this activation)" when
/// the Heavy rule alone keeps a weapon from a unit that moved (audit AD5:
/// the menu said "no ability it can use now" without the reason).
fn heavy_after_a_move(ctx: &Ctx, unit: UnitId) -> String {
    let Some(u) = ctx.state().units.get(unit) else {
        return String::new();
    };
    let names: Vec<String> = abilities_of(ctx, unit)
        .into_iter()
        .filter(|a| barred_after_a_move(u, a) && a.ammo.as_ref().is_none_or(|k| u.stat(k) > 0))
        .map(|a| a.name)
        .collect();
    match names.len() {
        0 => String::new(),
        1 => format!(" ({} is Heavy: not after a move this activation)", names[0]),
        _ => format!(
            " ({} are Heavy: not after a move this activation)",
            names.join(", ")
        ),
    }
}

/// A Heavy weapon of a unit that is not Strong, once it moved this
/// activation (l.113: not move and use it in one turn).
fn barred_after_a_move(u: &crate::rules::state::Unit, a: &Ability) -> bool {
    a.heavy && u.stat(super::MOVED) > 0 && u.stat(super::STRONG) <= 0
}

/// Abilities the unit may use now: not barred by melee, not used up this
/// activation, loaded, affordable.
pub(crate) fn usable(ctx: &Ctx, unit: UnitId) -> Vec<Ability> {
    let Some(u) = ctx.state().units.get(unit) else {
        return Vec::new();
    };
    let ap = u.stat(AP);
    let cost = num(ctx, "skill_check_action_cost");
    let all = abilities_of(ctx, unit);
    // Heavy weapons: a unit that is not Strong cannot move and use one in the
    // same activation, in either order.
    let fired_heavy = all
        .iter()
        .any(|b| b.heavy && u.stat(&check::uses_key(b)) > 0);
    let heavy_barred = |a: &Ability| {
        barred_after_a_move(u, a) || (u.stat(super::STRONG) <= 0 && a.dash && fired_heavy)
    };
    all.into_iter()
        .filter(|a| !(u.has(IN_MELEE) && a.barred_in_melee()))
        .filter(|a| !(a.dash && u.has(IMMOBILIZED)))
        .filter(|a| !heavy_barred(a))
        .filter(|a| {
            let uses = u.stat(&check::uses_key(a));
            match &a.uses_stat {
                Some(k) => uses < u.stat(k),
                None => a.reusable || uses == 0,
            }
        })
        .filter(|a| a.ammo.as_ref().is_none_or(|k| u.stat(k) > 0))
        .filter(|a| !check::loads_full_weapon(ctx, unit, a))
        .filter(|a| match a.check {
            AbilityCheck::Skill(_) => ap >= cost,
            AbilityCheck::Checkless(_) => ap > 0,
        })
        .collect()
}

/// "Fire (♦, draws 3)" / "Load (checkless, 1 of 3 paid)".
fn describe(ctx: &Ctx, unit: UnitId, a: &Ability) -> String {
    match a.check {
        AbilityCheck::Skill(suit) => format!(
            "{} ({}, draws {})",
            a.name,
            suit.symbol(),
            check::base_draw(ctx, unit, a, suit)
        ),
        AbilityCheck::Checkless(icons) => format!(
            "{} (checkless, {} of {} point(s) paid)",
            a.name,
            stat(ctx, unit, &check::progress_key(a)),
            check::checkless_cost(ctx, unit, a, icons)
        ),
    }
}
