//! The four orders: Volley Fire!, Move and Shoot!, March! and Charge!.

use super::engagement::{
    Fire, can_shoot, melee, move_unit, no_shot_reason, retreat, shooting_engagement,
};
use super::panic::panic_test;
use super::{UnitKind, kind, num, other, unit, unit_choice, yes_no};
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{Unit, UnitId};

/// An order a Follower can be given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Shoot with -1 Inaccuracy.
    Volley,
    /// Move, then shoot the closest enemy.
    MoveAndShoot,
    /// Move Movement + d6.
    March,
    /// Panic the target, take its fire, then close for melee.
    Charge,
}

impl Order {
    /// Every order, in menu order.
    pub const ALL: [Order; 4] = [
        Order::Volley,
        Order::MoveAndShoot,
        Order::March,
        Order::Charge,
    ];

    /// Stable choice id.
    pub fn id(self) -> &'static str {
        match self {
            Order::Volley => "volley",
            Order::MoveAndShoot => "move-and-shoot",
            Order::March => "march",
            Order::Charge => "charge",
        }
    }

    /// Name shown to players.
    pub fn label(self) -> &'static str {
        match self {
            Order::Volley => "Volley Fire!",
            Order::MoveAndShoot => "Move and Shoot!",
            Order::March => "March!",
            Order::Charge => "Charge!",
        }
    }
}

/// Orders the unit can carry out now: shooting orders need a shooting
/// attack; artillery never moves, so it can only fire.
pub fn available(u: &Unit) -> Vec<Order> {
    let shoots = can_shoot(u);
    let moves = kind(u) != UnitKind::Artillery;
    Order::ALL
        .into_iter()
        .filter(|o| match o {
            Order::Volley => shoots,
            Order::MoveAndShoot => shoots && moves,
            Order::March | Order::Charge => moves,
        })
        .collect()
}

/// Asks which order is declared (the unit's legal orders only).
pub fn declare(ctx: &mut Ctx, id: UnitId) -> Flow<Option<Order>> {
    let Some(u) = unit(ctx, id) else {
        return Ok(None);
    };
    let orders = available(&u);
    if orders.is_empty() {
        return Ok(None);
    }
    let options = orders
        .iter()
        .map(|o| Choice::new(o.id(), o.label()))
        .collect();
    let picked = ctx.choose(
        format!("Declare an order for {}", u.name),
        options,
        Some("rounds"),
    )?;
    Ok(orders.into_iter().find(|o| o.id() == picked))
}

/// Asks for a target among the enemy's units in play: the closest one in
/// sight (and within `reach` inches when given), or any with Sharpshooter.
fn choose_target(
    ctx: &mut Ctx,
    id: UnitId,
    what: &str,
    reach: Option<i32>,
    rule: &str,
) -> Flow<Option<UnitId>> {
    let Some(u) = unit(ctx, id) else {
        return Ok(None);
    };
    let enemies: Vec<UnitId> = ctx
        .state()
        .units_of(other(u.side))
        .map(|(i, _)| i)
        .collect();
    let mut options: Vec<Choice> = enemies
        .iter()
        .filter_map(|&i| ctx.state().units.get(i).map(|e| unit_choice(e, i)))
        .collect();
    options.push(Choice::new("none", "No enemy it may target"));
    let within = reach.map_or(String::new(), |r| format!(" within {r}\""));
    let prompt = if u.upgrade_count("sharpshooter") > 0 {
        format!(
            "{what}: {} is a Sharpshooter, choose any enemy{within}",
            u.name
        )
    } else {
        format!(
            "{what}: choose the closest enemy {} can see{within}",
            u.name
        )
    };
    let picked = ctx.choose(prompt, options.clone(), Some(rule))?;
    let target = enemies
        .iter()
        .zip(&options)
        .find(|(_, o)| o.id == picked)
        .map(|(i, _)| *i);
    if target.is_none() {
        ctx.resolved(rule, format!("{} has no target", u.name));
    }
    Ok(target)
}

/// Carries out an order (after a passed blunder check). `snob` is the
/// commanding Snob or Toff, which may follow the unit's moves; `None` in
/// the unordered phase.
pub fn execute(ctx: &mut Ctx, id: UnitId, order: Order, snob: Option<UnitId>) -> Flow<()> {
    let Some(u) = unit(ctx, id) else {
        return Ok(());
    };
    let m = u.stat("M");
    // Its weapons' range, said with the target question (a gun reaches
    // any range: no figure).
    let range = Some(u.stat("R")).filter(|&r| r > 0);
    match order {
        Order::Volley => {
            if let Some(t) = choose_target(ctx, id, "Volley Fire!", range, "volley")? {
                let fire = Fire {
                    shooter: id,
                    target: t,
                    volley: true,
                    return_fire: true,
                    loser_retreats: true,
                };
                shooting_engagement(ctx, fire, "Volley Fire!")?;
            }
        }
        Order::MoveAndShoot => {
            move_unit(ctx, id, m, "Move and Shoot!", "move-and-shoot", snob)?;
            if unit(ctx, id).is_some_and(|u| u.in_play())
                && let Some(t) = choose_target(ctx, id, "Move and Shoot!", range, "move-and-shoot")?
            {
                let fire = Fire {
                    shooter: id,
                    target: t,
                    volley: false,
                    return_fire: true,
                    loser_retreats: true,
                };
                shooting_engagement(ctx, fire, "Move and Shoot!")?;
            }
        }
        Order::March => {
            let d = ctx.roll_one(
                format!(
                    "March!: roll 1 die, {} moves up to {m}\" + the roll",
                    u.name
                ),
                "march",
            )?;
            let dist = m + i32::from(d);
            ctx.resolved(
                "march",
                format!("{} marches up to {dist}\" ({m} + {d})", u.name),
            );
            move_unit(ctx, id, dist, "March!", "march", snob)?;
        }
        Order::Charge => charge(ctx, id, snob)?,
    }
    Ok(())
}

/// Charge!: target Panic Test, Stand and Shoot, the charge move (its
/// commanding `snob` may follow), melee.
fn charge(ctx: &mut Ctx, id: UnitId, snob: Option<UnitId>) -> Flow<()> {
    let Some(u) = unit(ctx, id) else {
        return Ok(());
    };
    let m = u.stat("M");
    let reach = m + num(ctx, "charge_extra_reach");
    let Some(t) = choose_target(ctx, id, "Charge!", Some(reach), "charge")? else {
        return Ok(());
    };
    let target_name = ctx.state().unit_name(t);
    let rerolls = if u.upgrade_count("bowel-loosening-charge") > 0 {
        num(ctx, "bowel_loosening_rerolls").max(0) as u32
    } else {
        0
    };
    let held = panic_test(ctx, t, rerolls)?;
    if !unit(ctx, t).is_some_and(|tu| tu.in_play()) {
        // A gun that misfired in its Panic Test is gone: nothing to charge.
        ctx.resolved(
            "charge",
            format!("{target_name} is gone: {}'s charge ends", u.name),
        );
        return Ok(());
    }
    if !held {
        retreat(ctx, t, id)?;
        // Fled off the table, or lost in dangerous terrain on the way:
        // nothing left to move towards (audit BA1), as
        // for a gun gone above; question order 3 on (older games' saves
        // answered the charge move).
        if crate::rules::common::question_order(ctx) >= 3
            && !unit(ctx, t).is_some_and(|tu| tu.in_play())
        {
            ctx.resolved(
                "charge",
                format!("{target_name} is gone: {}'s charge ends", u.name),
            );
            return Ok(());
        }
    } else if unit(ctx, t).is_some_and(|tu| can_shoot(&tu)) {
        ctx.resolved(
            "stand-and-shoot",
            format!("{target_name} stands and shoots at {}", u.name),
        );
        let fire = Fire {
            shooter: t,
            target: id,
            volley: false,
            return_fire: false,
            loser_retreats: false,
        };
        shooting_engagement(ctx, fire, "Stand and Shoot")?;
    } else if let Some(tu) = unit(ctx, t) {
        let why = no_shot_reason(&tu);
        ctx.resolved(
            "stand-and-shoot",
            format!("{target_name} holds but cannot shoot: {why}"),
        );
    }
    if !unit(ctx, id).is_some_and(|u| u.in_play()) {
        ctx.resolved(
            "charge",
            format!("{} is wiped out before it can charge home", u.name),
        );
        return Ok(());
    }
    let d = ctx.roll_one(
        format!(
            "Charge!: roll 1 die, {} moves {m}\" + the roll towards {target_name}",
            u.name
        ),
        "charge",
    )?;
    let dist = m + i32::from(d);
    ctx.resolved(
        "charge",
        format!("{} charges up to {dist}\" ({m} + {d})", u.name),
    );
    move_unit(
        ctx,
        id,
        dist,
        "Charge! by the shortest route",
        "charge",
        snob,
    )?;
    if !unit(ctx, id).is_some_and(|u| u.in_play()) || !unit(ctx, t).is_some_and(|u| u.in_play()) {
        return Ok(());
    }
    let name = ctx.state().unit_name(id);
    if yes_no(
        ctx,
        format!("Did {name} reach base contact with {target_name}?"),
        "charge",
    )? {
        melee(ctx, id, t)?;
    } else {
        ctx.resolved("charge", format!("{name} falls short of {target_name}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::state::{Presence, Soldier};
    use std::collections::{BTreeMap, BTreeSet};

    fn unit(profile: &str, stats: &[(&str, i32)], status: &[&str]) -> Unit {
        Unit {
            side: 0,
            name: "U".into(),
            profile: profile.into(),
            cards: vec![],
            stats: stats
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect::<BTreeMap<_, _>>(),
            soldiers: vec![Soldier::default(); 4],
            soldiers_at_start: 4,
            wounds_per_soldier: 1,
            status: status
                .iter()
                .map(|s| s.to_string())
                .collect::<BTreeSet<_>>(),
            upgrades: vec![],
            presence: Presence::InPlay,
        }
    }

    #[test]
    fn orders_follow_equipment_and_profile() {
        use Order::*;
        let cases = [
            (
                unit("follower", &[("black_powder", 1)], &[]),
                vec![Volley, MoveAndShoot, March, Charge],
            ),
            (
                unit("follower", &[("black_powder", 1)], &["fired"]),
                vec![March, Charge],
            ),
            (
                unit("follower", &[("melee_weapons", 1)], &[]),
                vec![March, Charge],
            ),
            (unit("artillery", &[("black_powder", 1)], &[]), vec![Volley]),
            (
                unit("artillery", &[("black_powder", 1)], &["fired"]),
                vec![],
            ),
            (
                unit("snob", &[], &["fired"]),
                vec![Volley, MoveAndShoot, March, Charge],
            ),
        ];
        for (u, want) in cases {
            assert_eq!(available(&u), want, "{} {:?}", u.profile, u.status);
        }
    }
}
