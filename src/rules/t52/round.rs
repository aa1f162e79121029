//! A game round: Snob activations alternating from the Initiative player,
//! then every Follower that got no order, then objectives and sudden death
//! after each activation.

use super::engagement::{FIRED, MOVES, move_unit};
use super::orders::{available, declare, execute};
use super::{UnitKind, kind, num, objectives, other, pick_unit, unit, unit_choice};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{SideId, UnitId};

/// Status flag: a Toff or Snob has acted this round.
pub const ACTED: &str = "acted";
/// Status flag: a Follower has been given an order this round.
pub const ORDERED: &str = "ordered";

/// Choice id of a commander ordering itself.
pub const SELF_ORDER: &str = "self";

/// Toffs and Snobs of a side in play that have not acted this round.
fn ready_commanders(ctx: &Ctx, side: SideId) -> Vec<UnitId> {
    ctx.state()
        .units_of(side)
        .filter(|(_, u)| kind(u).is_commander() && !u.has(ACTED))
        .map(|(i, _)| i)
        .collect()
}

/// Followers of a side in play that can carry out some order now
/// (optionally only those without an order this round). A unit with no
/// order left (artillery that has fired) is never offered: picking it
/// would only waste the activation.
fn followers(ctx: &Ctx, side: SideId, unordered_only: bool) -> Vec<UnitId> {
    ctx.state()
        .units_of(side)
        .filter(|(_, u)| !kind(u).is_commander())
        .filter(|(_, u)| !unordered_only || !u.has(ORDERED))
        .filter(|(_, u)| !available(u).is_empty())
        .map(|(i, _)| i)
        .collect()
}

/// Vanguard units move once before the first round, Initiative player
/// first; a move can capture or contest an objective, so objectives are
/// asked about after each.
pub fn vanguard_moves(ctx: &mut Ctx, first: SideId) -> Flow<()> {
    for side in [first, other(first)] {
        let ids: Vec<UnitId> = ctx
            .state()
            .units_of(side)
            .filter(|(_, u)| u.upgrade_count("vanguard") > 0 && kind(u) != UnitKind::Artillery)
            .map(|(i, _)| i)
            .collect();
        for id in ids {
            let m = unit(ctx, id).map_or(0, |u| u.stat("M"));
            let name = ctx.state().unit_name(id);
            ctx.resolved(
                "vanguard",
                format!("{name} may make its Vanguard move before the game"),
            );
            move_unit(
                ctx,
                id,
                m,
                "Vanguard, if you like (its Snob stays put)",
                "vanguard",
                None,
            )?;
            objectives::update(ctx, false)?;
        }
    }
    Ok(())
}

/// Plays round `r`; stops early when the game ends.
pub fn play_round(ctx: &mut Ctx, r: u32, first: SideId) -> Flow<()> {
    ctx.apply(Effect::SetRound(r));
    for flag in [ACTED, ORDERED, FIRED] {
        ctx.apply(Effect::ClearStatusAll {
            status: flag.into(),
        });
    }
    let mut turn = 0;
    // Snobs alternate; a side out of Snobs lets the other finish.
    let mut side = first;
    loop {
        if ready_commanders(ctx, side).is_empty() {
            side = other(side);
            if ready_commanders(ctx, side).is_empty() {
                break;
            }
        }
        turn += 1;
        ctx.apply(Effect::SetTurn(turn));
        let before = Activity::now(ctx);
        commander_activation(ctx, side)?;
        if end_of_activation(ctx, before)? {
            return Ok(());
        }
        side = other(side);
    }
    // Then every Follower without an order, alternating the same way.
    if (0..2).any(|s| !followers(ctx, s, true).is_empty()) {
        ctx.resolved(
            "rounds",
            format!(
                "Every Snob has acted: each Follower without an order this round now acts on its own, blundering on a {} or less",
                num(ctx, "blunder_unordered")
            ),
        );
    }
    let mut side = first;
    loop {
        if followers(ctx, side, true).is_empty() {
            side = other(side);
            if followers(ctx, side, true).is_empty() {
                break;
            }
        }
        turn += 1;
        ctx.apply(Effect::SetTurn(turn));
        let ids = followers(ctx, side, true);
        let name = ctx.state().side_name(side);
        let before = Activity::now(ctx);
        if let Some(f) = pick_unit(
            ctx,
            &format!("{name}: choose a Follower that has had no order this round"),
            &ids,
            "rounds",
        )? {
            let blunder = num(ctx, "blunder_unordered");
            order_follower(ctx, f, blunder, None)?;
        }
        if end_of_activation(ctx, before)? {
            return Ok(());
        }
        side = other(side);
    }
    ctx.resolved("rounds", format!("Round {r} ends"));
    Ok(())
}

/// What can change an objective marker (l.65): a unit ending a move near
/// it, or a contest ending as a unit moves away or leaves the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Activity {
    /// Moves made so far (`MOVES`).
    moves: i64,
    /// Units still on the table.
    in_play: usize,
}

impl Activity {
    /// Where the game stands now.
    fn now(ctx: &Ctx) -> Activity {
        let s = ctx.state();
        Activity {
            moves: s.counter(MOVES),
            in_play: s.units.iter().filter(|u| u.in_play()).count(),
        }
    }
}

/// After an activation that began at `before`: the markers may have
/// changed, unless no unit moved or left the table since (a shot that only
/// cost soldiers, a blunder), when "No change" is settled; then sudden
/// death. True when the game ended. From question order 2 sudden death
/// comes first: no marker matters once it ends the game.
fn end_of_activation(ctx: &mut Ctx, before: Activity) -> Flow<bool> {
    let death_first = crate::rules::common::question_order(ctx) >= 2;
    if death_first && objectives::sudden_death(ctx) {
        return Ok(true);
    }
    objectives::update(ctx, Activity::now(ctx) == before)?;
    Ok(!death_first && objectives::sudden_death(ctx))
}

/// One Snob (or the Toff) acts: it orders a Follower in its range.
fn commander_activation(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let ready = ready_commanders(ctx, side);
    let name = ctx.state().side_name(side);
    let Some(c) = pick_unit(
        ctx,
        &format!("{name}: choose a Toff or Snob that has not acted this round"),
        &ready,
        "rounds",
    )?
    else {
        return Ok(());
    };
    // Not asked when only one is left: said instead.
    if ready.len() == 1
        && let Some(cu) = unit(ctx, c)
    {
        ctx.resolved(
            "rounds",
            format!("{} is {name}'s only Toff or Snob left to act", cu.name),
        );
    }
    ctx.apply(Effect::SetStatus {
        unit: c,
        status: ACTED.into(),
        on: true,
    });
    let Some(cu) = unit(ctx, c) else {
        return Ok(());
    };
    // "Cannot Order other Snobs" (step 2): a commander may order itself,
    // which is how it fires "many times per round" on its own account.
    let mut ids = followers(ctx, side, false);
    if !available(&cu).is_empty() {
        ids.push(c);
    }
    if ids.is_empty() {
        ctx.resolved(
            "rounds",
            format!("{} has no Follower left that can take an order", cu.name),
        );
        return Ok(());
    }
    let mut options: Vec<Choice> = ids
        .iter()
        .filter_map(|&i| {
            let u = ctx.state().units.get(i)?;
            Some(if i == c {
                Choice::new(SELF_ORDER, format!("{} itself", u.name))
            } else {
                unit_choice(u, i)
            })
        })
        .collect();
    options.push(Choice::new("none", "None in its ordering range"));
    let picked = ctx.choose(
        format!(
            "{} (ordering range {}\"): choose a Follower in range to order, or {} itself",
            cu.name,
            cu.stat("R"),
            cu.name
        ),
        options.clone(),
        Some("rounds"),
    )?;
    let Some(f) = ids
        .iter()
        .zip(&options)
        .find(|(_, o)| o.id == picked)
        .map(|(i, _)| *i)
    else {
        ctx.resolved("rounds", format!("{} orders nobody", cu.name));
        return Ok(());
    };
    let blunder = num(ctx, "blunder_ordered");
    order_follower(ctx, f, blunder, Some(c))
}

/// Declare, blunder check (fails on `blunder_on` or less), execute, Dash.
/// `snob` is the commander giving the order (it may follow the moves).
fn order_follower(ctx: &mut Ctx, f: UnitId, blunder_on: i32, snob: Option<UnitId>) -> Flow<()> {
    let Some(fu) = unit(ctx, f) else {
        return Ok(());
    };
    ctx.apply(Effect::SetStatus {
        unit: f,
        status: ORDERED.into(),
        on: true,
    });
    let Some(order) = declare(ctx, f)? else {
        ctx.resolved(
            "rounds",
            format!(
                "{} has no order it can carry out (cannot move, no shot left)",
                fu.name
            ),
        );
        return Ok(());
    };
    // Who ordered whom to do what: the record of the round.
    let given = match snob.and_then(|c| unit(ctx, c)) {
        Some(_) if snob == Some(f) => format!("{} orders itself: {}", fu.name, order.label()),
        Some(c) => format!("{} orders {}: {}", c.name, fu.name, order.label()),
        None => format!("{} acts without a commander: {}", fu.name, order.label()),
    };
    ctx.resolved("rounds", given);
    let fails = if blunder_on <= 1 {
        "a 1".to_string()
    } else {
        format!("1-{blunder_on}")
    };
    let d = ctx.roll_one(
        format!(
            "Blunder check for {} ({}): roll 1 die, {fails} wastes the order",
            fu.name,
            order.label()
        ),
        "blunder",
    )?;
    if i32::from(d) <= blunder_on {
        ctx.resolved("blunder", format!("{} blunders on {d}: no action", fu.name));
        return Ok(());
    }
    ctx.resolved(
        "blunder",
        format!("{} passes the blunder check with {d}", fu.name),
    );
    // A commander that ordered itself has no one to follow.
    execute(ctx, f, order, snob.filter(|&c| c != f))?;
    if let Some(u) = unit(ctx, f)
        && u.in_play()
        && u.upgrade_count("dash") > 0
        && kind(&u) != UnitKind::Artillery
    {
        ctx.resolved("dash", format!("{} may Dash after its order", u.name));
        move_unit(
            ctx,
            f,
            u.stat("M"),
            "Dash, if you like (its Snob stays put)",
            "dash",
            None,
        )?;
    }
    Ok(())
}
