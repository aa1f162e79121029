//! A turn: deal each side its activation cards, lay one beside each unit,
//! then activate the units in card order.

use super::{DECK, FORFEIT, OVERWATCH, actions, check_wipeout, num, stat, units_of};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{Activation, Outcome, SideId, UnitId};
use crate::table::{BackColour, Card, PhysicalCard};

/// Cards dealt to a side with `own` units against `other`: one per unit (times
/// `per_unit`), but the side with fewer units gets its own count or
/// `num/den` of the other side's (rounded up), whichever is more.
pub fn cards_for(own: usize, other: usize, per_unit: usize, num: usize, den: usize) -> usize {
    let base = own * per_unit;
    if own < other {
        base.max((other * per_unit * num).div_ceil(den.max(1)))
    } else {
        base
    }
}

/// Plays turn `t`.
pub fn play_turn(ctx: &mut Ctx, t: u32) -> Flow<()> {
    ctx.apply(Effect::SetTurn(t));
    ctx.apply(Effect::Reshuffle { deck: DECK });
    // Last turn's order is history until this turn's cards set a new one.
    ctx.apply(Effect::SetActivationOrder(Vec::new()));
    for status in [OVERWATCH, FORFEIT] {
        ctx.apply(Effect::ClearStatusAll {
            status: status.into(),
        });
    }
    for u in 0..ctx.state().units.len() {
        // This turn's moves become last turn's, for shots at a unit that
        // has not acted yet (l.78).
        let moved = stat(ctx, u, actions::MOVED_THIS_TURN);
        if stat(ctx, u, actions::MOVED_LAST_TURN) != moved {
            ctx.apply(Effect::SetStat {
                unit: u,
                stat: actions::MOVED_LAST_TURN.into(),
                value: moved,
            });
        }
        for key in [
            actions::MOVED_THIS_TURN,
            actions::SPENT,
            actions::MOVES_IN_ROW,
            actions::CHARGE_BONUS,
            actions::CHARGE_TARGET,
            actions::FREE_MELEE,
        ] {
            if stat(ctx, u, key) != 0 {
                ctx.apply(Effect::SetStat {
                    unit: u,
                    stat: key.into(),
                    value: 0,
                });
            }
        }
    }
    let mut slots: Vec<(UnitId, Card)> = Vec::new();
    let mut dealt_all = Vec::new();
    for side in 0..2 {
        let hand = deal(ctx, side)?;
        let laid = assign(ctx, side, hand)?;
        dealt_all.extend(laid.iter().map(|&(_, c)| c));
        slots.extend(laid);
    }
    let key = |ctx: &Ctx, c: Card| ctx.ruleset.cards.key(c, None);
    slots.sort_by_key(|(_, c)| key(ctx, *c));
    let order: Vec<Activation> = slots
        .iter()
        .map(|&(u, card)| Activation {
            side: ctx.state().units[u].side,
            unit: Some(u),
            card: Some(card),
        })
        .collect();
    let text: Vec<String> = slots
        .iter()
        .map(|&(u, c)| format!("{c} {}", ctx.state().unit_name(u)))
        .collect();
    ctx.apply(Effect::SetActivationOrder(order));
    ctx.resolved(
        "activation-order",
        format!("Activation order: {}", text.join(", ")),
    );
    for (unit, _) in slots {
        if ctx.state().units[unit].in_play() {
            actions::activate(ctx, unit)?;
            if check_wipeout(ctx) {
                return Ok(());
            }
        }
        ctx.apply(Effect::AdvanceActivation);
    }
    // A held action is the unit's "at any point in the turn", so also after
    // the last activation.
    actions::overwatch_window(ctx, &format!("Turn {t}'s activations are over"))?;
    if check_wipeout(ctx) {
        return Ok(());
    }
    // The cards laid beside units; the ones left over went at once.
    ctx.apply(Effect::DiscardCards {
        deck: DECK,
        cards: dealt_all
            .into_iter()
            .map(|card| PhysicalCard {
                card,
                back: BackColour::Other,
            })
            .collect(),
    });
    end_of_turn(ctx, t)
}

/// Deals a side its activation cards.
fn deal(ctx: &mut Ctx, side: SideId) -> Flow<Vec<Card>> {
    let own = units_of(ctx, side).len();
    let other = units_of(ctx, 1 - side.min(1)).len();
    let mut n = cards_for(
        own,
        other,
        num(ctx, "cards_per_unit").max(1) as usize,
        num(ctx, "least_units_fraction_num").max(0) as usize,
        num(ctx, "least_units_fraction_den").max(1) as usize,
    );
    let leader = units_of(ctx, side)
        .into_iter()
        .map(|u| stat(ctx, u, "leadership").max(0) as usize)
        .max()
        .unwrap_or(0);
    n += leader;
    let name = ctx.state().side_name(side);
    let hand = ctx.draw(
        DECK,
        n as u32,
        format!("Deal {n} activation card(s) to {name}"),
        Some("deal"),
    )?;
    // Said every turn: a side that lost units or its commander is dealt
    // fewer, and the players see why.
    let for_units = n - leader;
    let per_unit = num(ctx, "cards_per_unit").max(1) as usize;
    let mut why = vec![if for_units == own * per_unit {
        format!("{for_units} for units")
    } else {
        format!(
            "{for_units} as the smaller side: {}/{} of the other side's {other} units, rounded up",
            num(ctx, "least_units_fraction_num"),
            num(ctx, "least_units_fraction_den")
        )
    }];
    if leader > 0 {
        why.push(format!("{leader} for leadership"));
    } else if let Some(lost) = ctx
        .state()
        .units
        .iter()
        .find(|u| u.side == side && !u.in_play() && u.stat("leadership") > 0)
    {
        // Said, as the cards the side is used to are missing (l.95).
        why.push(format!("none for leadership: {} is out", lost.name));
    }
    let why = format!(" ({})", why.join(", "));
    ctx.resolved("deal", format!("{name} is dealt {n} card(s){why}"));
    Ok(hand)
}

/// The player lays one dealt card beside each unit; the rest are discarded.
fn assign(ctx: &mut Ctx, side: SideId, mut hand: Vec<Card>) -> Flow<Vec<(UnitId, Card)>> {
    let name = ctx.state().side_name(side);
    let mut out = Vec::new();
    for unit in units_of(ctx, side) {
        if hand.is_empty() {
            break;
        }
        let card = if hand.len() == 1 {
            hand[0]
        } else {
            let options: Vec<Choice> = hand
                .iter()
                .map(|c| Choice::new(c.to_string(), c.to_string()))
                .collect();
            let picked = ctx.choose(
                format!(
                    "{name}: which card goes face down beside {}?",
                    ctx.state().unit_name(unit)
                ),
                options,
                Some("assign"),
            )?;
            hand.iter()
                .copied()
                .find(|c| c.to_string() == picked)
                .unwrap_or(hand[0])
        };
        if let Some(i) = hand.iter().position(|c| *c == card) {
            hand.remove(i);
        }
        out.push((unit, card));
    }
    if !hand.is_empty() {
        let left: Vec<String> = hand.iter().map(|c| c.to_string()).collect();
        ctx.resolved("assign", format!("{name} discards {}", left.join(" ")));
        ctx.apply(Effect::DiscardCards {
            deck: DECK,
            cards: hand
                .iter()
                .map(|&card| PhysicalCard {
                    card,
                    back: BackColour::Other,
                })
                .collect(),
        });
    }
    Ok(out)
}

/// All units have gone: collect the cards, then play on or stop.
fn end_of_turn(ctx: &mut Ctx, t: u32) -> Flow<()> {
    let mut options = vec![Choice::new("next", format!("Play turn {}", t + 1))];
    // Ids that end the game begin `stop:`, which the window never keys (a
    // digit from habit must not end a game); saves answered the old ids.
    for s in 0..ctx.state().sides.len() {
        options.push(
            Choice::new(
                format!("stop:win-{s}"),
                format!("Stop: {} has won", ctx.state().side_name(s)),
            )
            .formerly(format!("win-{s}")),
        );
    }
    options.push(Choice::new("stop:draw", "Stop: a draw").formerly("draw"));
    let picked = ctx.choose(
        format!("Turn {t} is over; the next turn shuffles every card back into the deck. Play on, or has the agreed condition or time been reached?"),
        options,
        Some("end-of-turn"),
    )?;
    if picked == "next" {
        return Ok(());
    }
    let winner = (0..ctx.state().sides.len()).find(|s| picked == format!("stop:win-{s}"));
    let reason = match winner {
        Some(_) => "The agreed condition is reached".into(),
        None => "The players agree a draw".into(),
    };
    ctx.end_game("end-of-turn", Outcome { winner, reason });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_smaller_side_gets_three_quarters_of_the_larger_rounded_up() {
        assert_eq!(cards_for(5, 5, 1, 3, 4), 5);
        assert_eq!(cards_for(2, 5, 1, 3, 4), 4);
        assert_eq!(cards_for(4, 5, 1, 3, 4), 4);
        assert_eq!(cards_for(3, 8, 1, 3, 4), 6);
        assert_eq!(cards_for(8, 3, 1, 3, 4), 8);
    }
}
