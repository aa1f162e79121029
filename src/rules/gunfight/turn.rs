//! A turn: deal, initiative bids, then each gang's go in bid order (a Joker
//! may cut in between two other players' goes).

use super::{
    by_cards_left, cards_left, check_victory, clear_played, formerly_played_out, gangs_standing,
    gunmen_of, joker_left, moves, one_card, shooting, stop_game,
};
use crate::rules::common::{confirm_stop, roll_off_for};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{Activation, SideId};
use crate::table::Card;

/// Plays turn `turn`.
pub fn play_turn(ctx: &mut Ctx, turn: u32) -> Flow<()> {
    ctx.apply(Effect::SetTurn(turn));
    clear_played(ctx);
    // Last turn's order is history until this turn's cards set a new one.
    ctx.apply(Effect::SetActivationOrder(Vec::new()));
    let hand = ctx.ruleset.number("hand_size");
    ctx.confirm(
        format!("Turn {turn}: shuffle every card back into its pack and deal {hand} cards to each player"),
        Some("turn-sequence"),
    )?;
    let order = initiative(ctx)?;
    let mut waiting = order.clone();
    let mut goes = 0;
    while !waiting.is_empty() {
        let side = next_go(ctx, &waiting, goes)?;
        waiting.retain(|s| *s != side);
        goes += 1;
        if gunmen_of(ctx, side).is_empty() {
            let name = ctx.state().side_name(side);
            ctx.resolved(
                "turn-sequence",
                format!("{name} has no gunman standing: no go"),
            );
        } else {
            go(ctx, side)?;
            if ctx.state().outcome.is_some() {
                return Ok(());
            }
        }
        // The order panel marks the gang whose go is next.
        ctx.apply(Effect::AdvanceActivation);
    }
    ctx.resolved(
        "turn-sequence",
        format!("Turn {turn} is over: every card goes back into its pack"),
    );
    Ok(())
}

/// Each gang still standing reveals a bid; returns the sides in acting order.
pub fn initiative(ctx: &mut Ctx) -> Flow<Vec<SideId>> {
    let mut bids: Vec<(SideId, Card)> = Vec::new();
    for side in gangs_standing(ctx) {
        let name = ctx.state().side_name(side);
        let card = one_card(
            ctx,
            side,
            &format!("{name}: reveal your initiative card"),
            "initiative",
            |_| true,
            "",
        )?;
        bids.push((side, card));
    }
    let key = |ctx: &Ctx, (side, card): (SideId, Card)| {
        let back = ctx.state().sides.get(side).and_then(|s| s.back);
        ctx.ruleset.cards.key(card, back)
    };
    bids.sort_by_key(|b| key(ctx, *b));
    // Identical cards from packs of different backs: the back decides,
    // which the log says (audit CB2).
    for pair in bids.windows(2) {
        let [(first, card), (then, same)] = [pair[0], pair[1]];
        if card == same && key(ctx, pair[0]) != key(ctx, pair[1]) {
            let name = |s: SideId| ctx.state().side_name(s);
            let text = format!(
                "{} {card} goes before {} {card}: identical cards go by back, blue before red, and both before any other colour",
                name(first),
                name(then)
            );
            ctx.resolved("initiative", text);
        }
    }
    // Identical bids with identical backs: a roll-off sets their order.
    let mut order = Vec::new();
    let mut i = 0;
    while i < bids.len() {
        let k = key(ctx, bids[i]);
        let alike: Vec<(SideId, Card)> = bids[i..]
            .iter()
            .take_while(|b| key(ctx, **b) == k)
            .copied()
            .collect();
        let mut tied: Vec<SideId> = alike.iter().map(|b| b.0).collect();
        i += tied.len();
        if tied.len() > 1 {
            // Said before the dice, so the players know why they roll.
            let said: Vec<String> = alike
                .iter()
                .map(|(side, card)| format!("{} {card}", ctx.state().side_name(*side)))
                .collect();
            ctx.resolved(
                "initiative",
                format!(
                    "Bids rank alike ({}): a roll-off sets their order",
                    said.join(", ")
                ),
            );
        }
        while tied.len() > 1 {
            let w = roll_off_for(ctx, &tied, "initiative", "initiative (bids alike)")?;
            order.push(w);
            tied.retain(|s| *s != w);
        }
        order.extend(tied);
    }
    let slots: Vec<Activation> = order
        .iter()
        .map(|&side| Activation {
            side,
            unit: None,
            card: bids.iter().find(|b| b.0 == side).map(|b| b.1),
        })
        .collect();
    let text: Vec<String> = slots
        .iter()
        .map(|a| {
            let card = a.card.map_or_else(String::new, |c| format!(" ({c})"));
            format!("{}{card}", ctx.state().side_name(a.side))
        })
        .collect();
    ctx.apply(Effect::SetActivationOrder(slots));
    ctx.resolved("initiative", format!("Order of play: {}", text.join(", ")));
    Ok(order)
}

/// Who goes next: the next bidder, unless a player still waiting shows a
/// Joker to cut in (only between two other players' goes).
fn next_go(ctx: &mut Ctx, waiting: &[SideId], goes_done: usize) -> Flow<SideId> {
    let Some(&next) = waiting.first() else {
        return Ok(0);
    };
    // Only a player who may still hold a Joker can cut in.
    let cutters: Vec<SideId> = waiting[1..]
        .iter()
        .copied()
        .filter(|&s| joker_left(ctx, s))
        .collect();
    if goes_done == 0 || cutters.is_empty() {
        return Ok(next);
    }
    // A hand played out holds no Joker. The question is asked all the same
    // (older saves answered it; the window takes a lone option by itself),
    // and such a side's cut-in in an older save reads as the next go.
    let (cutters, played_out) = by_cards_left(ctx, cutters);
    let next_go = Choice::new("next", format!("{}'s go", ctx.state().side_name(next)));
    let next_go = formerly_played_out(ctx, next_go, &played_out, "joker", "cuts in with a Joker");
    let mut options = vec![next_go];
    for &s in &cutters {
        options.push(Choice::new(
            format!("joker-{s}"),
            format!("{} cuts in with a Joker", ctx.state().side_name(s)),
        ));
    }
    let picked = ctx.choose("Who goes next?", options, Some("joker-interrupt"))?;
    let Some(side) = cutters
        .iter()
        .copied()
        .find(|s| picked == format!("joker-{s}"))
    else {
        return Ok(next);
    };
    let name = ctx.state().side_name(side);
    one_card(
        ctx,
        side,
        &format!("{name}: show the Joker"),
        "joker-interrupt",
        |c| c.suit().is_none(),
        "only a Joker cuts in",
    )?;
    ctx.resolved("joker-interrupt", format!("{name} cuts in with a Joker"));
    cut_in(ctx, side);
    Ok(side)
}

/// Moves `side`'s slot of the order of play to the go now due, so the
/// order panel marks the gang that cut in and those after it (audit CB1).
fn cut_in(ctx: &mut Ctx, side: SideId) {
    let order = &ctx.state().activation;
    let (mut slots, due) = (order.slots.clone(), order.next);
    let Some(at) = slots
        .iter()
        .position(|s| s.side == side)
        .filter(|&i| i > due)
    else {
        return;
    };
    let slot = slots.remove(at);
    slots.insert(due, slot);
    ctx.apply(Effect::SetActivationOrder(slots));
    for _ in 0..due {
        ctx.apply(Effect::AdvanceActivation);
    }
}

/// One gang's go: moves and shots until the player ends it.
fn go(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let name = ctx.state().side_name(side);
    // A single-card move from an earlier go is over.
    let key = shooting::single_card_move_key(side);
    if ctx.state().counter(&key) != 0 {
        ctx.apply(Effect::SetCounter { key, value: 0 });
    }
    loop {
        if gunmen_of(ctx, side).is_empty() {
            ctx.resolved(
                "turn-sequence",
                format!("{name} has no gunman left standing"),
            );
            return Ok(());
        }
        // Moving and shooting take cards: with the hand spent, the go is over
        // but for stopping the game.
        let left = cards_left(ctx, side);
        let mut options = Vec::new();
        if left > 0 {
            options.push(Choice::new("move", "Move a gunman"));
            options.push(Choice::new("shoot", "Shoot"));
        }
        options.push(Choice::new("done", format!("End {name}'s go")));
        options.push(Choice::new("stop", "Stop the game here"));
        let prompt = if left > 0 {
            format!("{name}'s go: play a card ({left} in hand)")
        } else {
            format!("{name}'s go: every card of the hand is played")
        };
        let picked = ctx.choose(prompt, options, Some("turn-sequence"))?;
        match picked.as_str() {
            "move" => moves::move_gunman(ctx, side)?,
            "shoot" => shooting::shoot(ctx, side)?,
            "stop" => {
                if confirm_stop(ctx, "The gang with the most lives left wins.", "victory")? {
                    stop_game(ctx);
                    return Ok(());
                }
            }
            _ => {
                let left = cards_left(ctx, side);
                let kept = if left > 0 {
                    format!(" ({left} card(s) unplayed)")
                } else {
                    String::new()
                };
                ctx.resolved("turn-sequence", format!("{name} ends its go{kept}"));
                return Ok(());
            }
        }
        if check_victory(ctx) {
            return Ok(());
        }
    }
}
