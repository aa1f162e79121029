//! The cut for the first move and a player's turn: (1) move, rally or
//! reform, (2) long-range artillery, (3) combats; every step optional.

use super::{
    Arm, COMBATS, CONFUSED, ENGAGED, ENGAGEMENT_KILLS, FOUGHT, GUNNERS_AWAY, IN_ENGAGEMENT,
    RALLIED, SHOT_MARKERS, arm, check_victory, combat, confused, deck_of, formed_opponents,
    in_ranks, men, num, pick_unit, set_stat, units_of, yes_no,
};
use crate::rules::common::{confirm_stop, yes_no_settled};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{Holder, SideId};
use crate::table::{Card, PhysicalCard};

/// Turns the top card of a side's deck and puts it on the discards.
pub(crate) fn turn_card(
    ctx: &mut Ctx,
    side: SideId,
    prompt: String,
    rule: &str,
) -> Flow<Option<Card>> {
    let deck = deck_of(side);
    let cards = ctx.draw(deck, 1, prompt, Some(rule))?;
    let back = ctx
        .state()
        .sides
        .get(side)
        .and_then(|s| s.back)
        .unwrap_or(crate::table::BackColour::Other);
    ctx.apply(Effect::DiscardCards {
        deck,
        cards: cards
            .iter()
            .map(|&card| PhysicalCard { card, back })
            .collect(),
    });
    Ok(cards.first().copied())
}

/// Both sides cut their decks; the higher card moves first, a tie cuts again.
pub fn cut_for_first_move(ctx: &mut Ctx) -> Flow<SideId> {
    loop {
        let mut cut = Vec::new();
        for side in 0..2 {
            let name = ctx.state().side_name(side);
            let card = turn_card(ctx, side, format!("{name}: cut the deck"), "first-move")?;
            cut.push(card.and_then(|c| ctx.ruleset.cards.value(c)).unwrap_or(0));
        }
        for side in 0..2 {
            ctx.apply(Effect::Reshuffle {
                deck: deck_of(side),
            });
        }
        if cut[0] != cut[1] {
            let first = usize::from(cut[1] > cut[0]);
            let name = ctx.state().side_name(first);
            ctx.resolved(
                "first-move",
                format!(
                    "First move to {name} (cut {} against {})",
                    cut[first],
                    cut[1 - first]
                ),
            );
            return Ok(first);
        }
        ctx.resolved("first-move", format!("Both cut {}: cut again", cut[0]));
    }
}

/// One player's turn.
pub fn play_turn(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    // Only the side whose turn it is rallies, so clearing every unit's mark
    // frees this side's units to rally once more.
    for status in [FOUGHT, RALLIED] {
        ctx.apply(Effect::ClearStatusAll {
            status: status.into(),
        });
    }
    for u in 0..ctx.state().units.len() {
        if ctx.state().units[u].stat(COMBATS) != 0 {
            set_stat(ctx, u, COMBATS, 0);
        }
    }
    if movement_step(ctx, side)? || check_victory(ctx) {
        return Ok(());
    }
    artillery_step(ctx, side)?;
    if check_victory(ctx) {
        return Ok(());
    }
    combat_step(ctx, side)?;
    check_victory(ctx);
    Ok(())
}

/// After both players' turns: a unit that fought no combat this round has
/// left its engagement, so its count of men killed starts again.
pub fn end_round(ctx: &mut Ctx) {
    let ids: Vec<usize> = (0..ctx.state().units.len()).collect();
    for u in ids {
        let unit = &ctx.state().units[u];
        // A unit destroyed has no engagement to leave (and no line to log).
        if unit.has(ENGAGED) || !unit.in_play() {
            continue;
        }
        let (kills, engaged) = (unit.stat(ENGAGEMENT_KILLS), unit.has(IN_ENGAGEMENT));
        if kills > 0 {
            set_stat(ctx, u, ENGAGEMENT_KILLS, 0);
        }
        if engaged {
            ctx.apply(Effect::SetStatus {
                unit: u,
                status: IN_ENGAGEMENT.into(),
                on: false,
            });
            crate::rules::common::clear_pairs(ctx, super::OPPONENTS, Some(u));
        }
    }
    ctx.apply(Effect::ClearStatusAll {
        status: ENGAGED.into(),
    });
}

/// Step 1. Returns true when the players stopped the game.
fn movement_step(ctx: &mut Ctx, side: SideId) -> Flow<bool> {
    let name = ctx.state().side_name(side);
    // Units that cannot rally this step with formed enemies facing them
    // (the enemy does not move in this step, so asking again is moot).
    let mut barred: Vec<usize> = Vec::new();
    loop {
        let own = units_of(ctx, side);
        let rallying: Vec<usize> = own
            .iter()
            .copied()
            .filter(|&u| confused(ctx, u) > 0 && !ctx.state().units[u].has(RALLIED))
            .filter(|u| !barred.contains(u))
            .collect();
        let is_mob = |u: usize| men(ctx, u) > 0 && in_ranks(ctx, u) == 0;
        let mobs: Vec<usize> = own.iter().copied().filter(|&u| is_mob(u)).collect();
        // Mobs run from an approaching enemy in either side's turn, so a mob
        // of either side may be caught.
        let caught: Vec<usize> = (0..ctx.state().sides.len())
            .flat_map(|s| units_of(ctx, s))
            .filter(|&u| is_mob(u))
            .collect();
        // Engaged in combat: locked until the engagement is over (a mob
        // runs all the same), or until no unit it fought has men in ranks
        // (those left are mobs that keep away, or gone).
        let locked: Vec<usize> = own
            .iter()
            .copied()
            .filter(|&u| super::held_by_engagement(ctx.state(), u))
            .collect();
        let engaged: Vec<String> = locked.iter().map(|&u| ctx.state().unit_name(u)).collect();
        // In ranks and confused: locked too; said once, as engaged, when both.
        let stuck: Vec<String> = own
            .iter()
            .filter(|&&u| in_ranks(ctx, u) > 0 && confused(ctx, u) > 0)
            .filter(|u| !locked.contains(u))
            .map(|&u| ctx.state().unit_name(u))
            .collect();
        let mut prompt = format!(
            "{name}, step 1: move, rally or reform (foot {} cm, guns {} cm, cavalry {} cm, general {} cm; stop within {} cm of a facing enemy)",
            num(ctx, "move_infantry_cm"),
            num(ctx, "move_artillery_cm"),
            num(ctx, "move_cavalry_cm"),
            num(ctx, "move_general_cm"),
            num(ctx, "enemy_stop_distance_cm")
        );
        if !engaged.is_empty() {
            prompt.push_str(&format!(
                "; cannot move (in an engagement): {}",
                engaged.join(", ")
            ));
        }
        if !stuck.is_empty() {
            prompt.push_str(&format!(
                "; cannot move (men in ranks and confused): {}",
                stuck.join(", ")
            ));
        }
        if !mobs.is_empty() {
            let m: Vec<String> = mobs.iter().map(|&u| ctx.state().unit_name(u)).collect();
            prompt.push_str(&format!(
                "; mobs (up to {} cm, never within {} cm of the enemy): {}",
                num(ctx, "mob_move_cm"),
                num(ctx, "mob_enemy_distance_cm"),
                m.join(", ")
            ));
        }
        // The options keep their numbers (a number key typed from habit
        // never ends the step): Rally and the caught mob are always listed,
        // and turned down when no unit can rally or no mob is on the table.
        let options = vec![
            Choice::new("rally", "Rally a unit"),
            Choice::new("objective", "An objective changes hands"),
            Choice::new("mob-lost", "A mob could not flee its full distance"),
            Choice::new("done", "Done moving"),
            Choice::new("stop", "Stop the game here"),
        ];
        match ctx.choose(prompt, options, Some("movement"))?.as_str() {
            "rally" if rallying.is_empty() => ctx.refused(
                "rally",
                format!(
                    "No unit of {name} can rally now: none has confused men, or each has rallied this turn or is barred this step"
                ),
            ),
            "mob-lost" if caught.is_empty() => ctx.refused(
                "mob",
                "No mob is on the table: a unit becomes one when it has no man left in ranks",
            ),
            "rally" => barred.extend(rally(ctx, &rallying)?),
            "mob-lost" => {
                if let Some(u) = pick_unit(ctx, "Which mob is caught?", &caught, None, "mob")? {
                    let unit = ctx.state().unit_name(u);
                    ctx.apply(Effect::RemoveUnit {
                        unit: u,
                        reason: "could not flee its full distance".into(),
                    });
                    ctx.resolved(
                        "mob",
                        format!("{unit} could not run its full distance and is destroyed"),
                    );
                }
            }
            "objective" => {
                objective_changes(ctx)?;
                if check_victory(ctx) {
                    return Ok(true);
                }
            }
            "stop" => {
                if confirm_stop(ctx, "The side holding more objectives wins.", "victory")? {
                    stop_game(ctx);
                    return Ok(true);
                }
            }
            _ => return Ok(false),
        }
        if check_victory(ctx) {
            return Ok(true);
        }
    }
}

/// One unit's rally; returns the unit when formed enemies facing it bar
/// the rally for the rest of the step.
fn rally(ctx: &mut Ctx, candidates: &[usize]) -> Flow<Option<usize>> {
    // (No way back: a lone candidate is taken at once, and each question
    // after it has an answer that returns to step 1.)
    let Some(u) = pick_unit(ctx, "Which unit rallies?", candidates, None, "rally")? else {
        return Ok(None);
    };
    let unit = ctx.state().unit_name(u);
    let ranks = in_ranks(ctx, u);
    // Combat is fought under 20 cm: a unit in an engagement most likely
    // still has the enemy it fought that close, unless none of those has men
    // in ranks left (then the hint would bar a rally the rules allow).
    let fought: Vec<String> = formed_opponents(ctx, u)
        .into_iter()
        .map(|v| ctx.state().unit_name(v))
        .collect();
    let in_engagement = ctx.state().units[u].has(IN_ENGAGEMENT) && !fought.is_empty();
    let still = if fought.len() == 1 {
        "still has"
    } else {
        "still have"
    };
    let engaged = if in_engagement {
        format!(
            " ({unit} is in an engagement with {}, which {still} men in ranks: combat is fought under {} cm)",
            fought.join(" and "),
            num(ctx, "combat_range_cm")
        )
    } else {
        String::new()
    };
    // A mob has kept its distance since: no hint that the enemy is close
    // (audit AJ2).
    let fled_from = if in_engagement {
        format!(
            " ({unit} fled from {}, which {still} men in ranks)",
            fought.join(" and ")
        )
    } else {
        String::new()
    };
    // With no enemy man in ranks anywhere, no formed enemy can bar it.
    let side = ctx.state().units[u].side;
    let no_formed_enemy = !ctx
        .state()
        .units
        .iter()
        .enumerate()
        .any(|(v, other)| other.side != side && other.in_play() && in_ranks(ctx, v) > 0);
    let settled = no_formed_enemy.then_some((false, "no enemy has a man in ranks"));
    let bonus = if ranks > 0 {
        if yes_no_settled(
            ctx,
            format!(
                "Is any enemy man in ranks within {} cm of {unit} and facing it?{engaged}",
                num(ctx, "rally_enemy_distance_cm")
            ),
            "rally",
            settled,
        )? {
            ctx.resolved(
                "rally",
                format!("{unit} cannot rally with formed enemies facing it so close"),
            );
            return Ok(Some(u));
        }
        if yes_no(
            ctx,
            format!("Is a general or aide-de-camp beside {unit}?"),
            "rally",
        )? {
            num(ctx, "rally_general_bonus").max(0) as u32
        } else {
            0
        }
    } else {
        if !yes_no(
            ctx,
            format!(
                "{unit} is all confused: is the commander beside it, and every enemy man in ranks at least {} cm away?{fled_from}",
                num(ctx, "rally_all_confused_distance_cm")
            ),
            "rally",
        )? {
            ctx.resolved(
                "rally",
                format!(
                    "{unit} cannot rally yet: bring the commander and keep the enemy {} cm off",
                    num(ctx, "rally_all_confused_distance_cm")
                ),
            );
            // The commander may yet be moved beside it this step.
            return Ok(None);
        }
        // Every formed enemy is beyond combat range: its engagement no longer
        // holds it (or them) in place; its men killed still count until a
        // round passes without combat.
        crate::rules::common::clear_pairs(ctx, super::OPPONENTS, Some(u));
        num(ctx, "rally_general_bonus").max(0) as u32
    };
    let back = confused(ctx, u).min(ranks + bonus);
    set_stat(ctx, u, CONFUSED, (confused(ctx, u) - back) as i32);
    ctx.apply(Effect::SetStatus {
        unit: u,
        status: RALLIED.into(),
        on: true,
    });
    let mut text = format!(
        "{unit} returns {back} {} to ranks ({} in ranks, {} confused)",
        if back == 1 { "man" } else { "men" },
        in_ranks(ctx, u),
        confused(ctx, u)
    );
    // Gunners who had all fled the gun must walk back before it fires.
    if arm(ctx, u) == Arm::Artillery && ranks == 0 {
        ctx.apply(Effect::SetStatus {
            unit: u,
            status: GUNNERS_AWAY.into(),
            on: true,
        });
        text.push_str(&format!(
            "; the gunners walk back to the gun at {} cm a turn before it fires again",
            num(ctx, "gunner_return_cm")
        ));
    }
    ctx.resolved("rally", text);
    Ok(None)
}

/// "held by French", or "uncaptured", as the objectives panel says it.
fn holder_words(ctx: &Ctx, holder: Holder) -> String {
    match holder {
        Holder::Side(s) => format!("held by {}", ctx.state().side_name(s)),
        _ => "uncaptured".to_string(),
    }
}

fn objective_changes(ctx: &mut Ctx) -> Flow<()> {
    let mut options: Vec<Choice> = ctx
        .state()
        .objectives
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let holder = holder_words(ctx, o.holder);
            Choice::new(format!("o{i}"), format!("{} ({holder})", o.name))
        })
        .collect();
    // A way back without Undo (audit AG3).
    options.push(Choice::new("none", "None after all: back"));
    let picked = ctx.choose("Which objective?", options, Some("victory"))?;
    let Some(o) = (0..ctx.state().objectives.len()).find(|i| picked == format!("o{i}")) else {
        return Ok(());
    };
    let mut holders: Vec<Choice> = (0..ctx.state().sides.len())
        .map(|s| Choice::new(format!("s{s}"), ctx.state().side_name(s)))
        .collect();
    holders.push(Choice::new("nobody", "Nobody"));
    let name = ctx.state().objectives[o].name.clone();
    let who = ctx.choose(
        format!("Whose men in ranks hold {name}, or last passed through it?"),
        holders,
        Some("victory"),
    )?;
    let holder = (0..ctx.state().sides.len())
        .find(|s| who == format!("s{s}"))
        .map_or(Holder::Uncaptured, Holder::Side);
    if ctx.state().objectives[o].holder == holder {
        // Said, not logged again as a change.
        let who = holder_words(ctx, holder);
        ctx.resolved("victory", format!("{name} stays {who}"));
        return Ok(());
    }
    ctx.apply(Effect::SetHolder {
        objective: o,
        holder,
    });
    Ok(())
}

/// Step 2: cannons with a gunner in ranks and shot markers left may fire.
fn artillery_step(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let name = ctx.state().side_name(side);
    // Guns whose gunners are still walking back this turn.
    let mut not_back = Vec::new();
    loop {
        let guns: Vec<usize> = units_of(ctx, side)
            .into_iter()
            .filter(|&u| {
                !not_back.contains(&u)
                    && arm(ctx, u) == Arm::Artillery
                    && why_gun_cannot_fire(ctx, u).is_none()
            })
            .collect();
        // Said, so a player looking at a gun sees why it was not offered
        // (audit AG4).
        if guns.is_empty() && not_back.is_empty() {
            say_no_gun_fires(ctx, side);
        }
        let Some(gun) = pick_unit(
            ctx,
            &format!("{name}, step 2: which cannon fires at long range?"),
            &guns,
            Some("No more long-range fire"),
            "artillery-fire",
        )?
        else {
            return Ok(());
        };
        if ctx.state().units[gun].has(GUNNERS_AWAY) {
            let unit = ctx.state().unit_name(gun);
            if !yes_no(
                ctx,
                format!(
                    "Have {} rallied gunners walked back to the gun ({} cm a turn)?",
                    crate::rules::common::possessive(&unit),
                    num(ctx, "gunner_return_cm")
                ),
                "rally",
            )? {
                ctx.resolved(
                    "rally",
                    format!("{unit} cannot fire: its gunners are still walking back"),
                );
                not_back.push(gun);
                continue;
            }
            ctx.apply(Effect::SetStatus {
                unit: gun,
                status: GUNNERS_AWAY.into(),
                on: false,
            });
        }
        // One shot per gun per turn: mark a gun that fired so it is not
        // offered again; one refused for want of markers may try another target.
        if combat::long_range(ctx, side, gun)? {
            ctx.apply(Effect::SetStatus {
                unit: gun,
                status: FOUGHT.into(),
                on: true,
            });
        }
        if check_victory(ctx) {
            return Ok(());
        }
    }
}

/// Why a cannon cannot fire at long range now, or `None` when it can.
fn why_gun_cannot_fire(ctx: &Ctx, gun: usize) -> Option<&'static str> {
    if in_ranks(ctx, gun) == 0 {
        Some("no gunner in ranks")
    } else if ctx.state().units[gun].stat(SHOT_MARKERS) <= 0 {
        Some("no shot markers left")
    } else if ctx.state().units[gun].has(FOUGHT) {
        Some("it has fired")
    } else {
        None
    }
}

/// Says why none of `side`'s cannons on the table can fire in step 2 (nothing
/// when it has none).
fn say_no_gun_fires(ctx: &mut Ctx, side: SideId) {
    let why: Vec<String> = units_of(ctx, side)
        .into_iter()
        .filter(|&u| arm(ctx, u) == Arm::Artillery)
        .filter_map(|u| {
            let reason = why_gun_cannot_fire(ctx, u)?;
            Some(format!("{}: {reason}", ctx.state().unit_name(u)))
        })
        .collect();
    if !why.is_empty() {
        let name = ctx.state().side_name(side);
        ctx.resolved(
            "artillery-fire",
            format!("{name}, step 2: no cannon can fire ({})", why.join("; ")),
        );
    }
}

/// Step 3: each unit may fight one combat.
fn combat_step(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let name = ctx.state().side_name(side);
    // Guns that fired at long range may still fight: clear the marker.
    for u in units_of(ctx, side) {
        if arm(ctx, u) == Arm::Artillery {
            ctx.apply(Effect::SetStatus {
                unit: u,
                status: FOUGHT.into(),
                on: false,
            });
        }
    }
    loop {
        // A mob (no man left in ranks) keeps 15 cm from the enemy: it never
        // starts a combat, so it is not offered.
        let ready: Vec<usize> = units_of(ctx, side)
            .into_iter()
            .filter(|&u| !ctx.state().units[u].has(FOUGHT) && in_ranks(ctx, u) > 0)
            .collect();
        // Not asked when no unit is left to fight: said instead.
        if ready.is_empty() {
            ctx.resolved(
                "sequence",
                format!("No unit of {name} is left to fight a combat: the turn ends"),
            );
            return Ok(());
        }
        // Every unit on the table is listed, so each keeps its number from
        // one combat to the next (audit AN4): one that has fought or is a
        // mob says so, and is turned down.
        let own = units_of(ctx, side);
        let mut options: Vec<Choice> = own
            .iter()
            .map(|&u| {
                let mut choice = super::unit_choice(ctx, u);
                if ctx.state().units[u].has(FOUGHT) {
                    choice.label.push_str(" (has fought)");
                } else if !ready.contains(&u) {
                    choice.label.push_str(" (a mob)");
                }
                choice
            })
            .collect();
        options.push(Choice::new("none", "End the turn"));
        let picked = ctx.choose(
            format!("{name}, step 3: which unit fights a combat?"),
            options,
            Some("combat-eligibility"),
        )?;
        let Some(unit) = own.iter().copied().find(|u| picked == format!("u{u}")) else {
            // Where one side's turn ends, the log says so (audit CA N6).
            ctx.resolved("sequence", format!("{name}'s turn ends"));
            return Ok(());
        };
        if !ready.contains(&unit) {
            // The reason that applies, as its option was marked (audit CA N3).
            let why = if ctx.state().units[unit].has(FOUGHT) {
                "it has fought this turn"
            } else {
                "it is a mob (no man in ranks)"
            };
            let unit = ctx.state().unit_name(unit);
            ctx.refused(
                "combat-eligibility",
                format!("{unit} cannot start a combat now: {why}"),
            );
            continue;
        };
        combat::fight(ctx, side, unit)?;
        if check_victory(ctx) {
            return Ok(());
        }
    }
}

/// The players stop: the side holding more objectives wins; equal is a draw.
fn stop_game(ctx: &mut Ctx) {
    let a = super::held_by(ctx, 0);
    let b = super::held_by(ctx, 1);
    let names = (ctx.state().side_name(0), ctx.state().side_name(1));
    let winner = match a.cmp(&b) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    };
    let reason = match winner {
        Some(w) => format!(
            "The players stopped; {} {} more objectives ({} {a}, {} {b})",
            ctx.state().side_name(w),
            crate::rules::common::agree(&ctx.state().side_name(w), "holds", "hold"),
            names.0,
            names.1
        ),
        None => format!(
            "The players stopped; objectives are shared ({} {a}, {} {b})",
            names.0, names.1
        ),
    };
    ctx.end_game("victory", crate::rules::state::Outcome { winner, reason });
}
