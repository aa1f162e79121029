//! Long-range artillery fire and combats: each side turns its top card, the
//! higher kills, and kills spread confusion.

use super::turn::turn_card;
use super::{
    Arm, COMBATS, CONFUSED, ENGAGED, ENGAGEMENT_KILLS, FOUGHT, IN_ENGAGEMENT, SHOT_MARKERS, arm,
    confused, in_ranks, men, num, pick_unit, set_stat, units_of, yes_no,
};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{SideId, UnitId};
use crate::table::{Card, Rank};

/// Men an artillery win confuses: half the card's face value rounded up;
/// Jack, Queen and King `court`, Ace `ace`.
pub fn artillery_confusion(card: Card, court: u32, ace: u32, divisor: u32) -> u32 {
    match card.rank() {
        Some(Rank::Ace) => ace,
        Some(Rank::Jack | Rank::Queen | Rank::King) => court,
        Some(r) => u32::from(r.number().unwrap_or(0)).div_ceil(divisor.max(1)),
        None => 0,
    }
}

/// A cannon of `side` fires at long range. Returns whether it fired (a gun
/// without the shot markers the target's cover needs does not).
pub fn long_range(ctx: &mut Ctx, side: SideId, gun: UnitId) -> Flow<bool> {
    let enemies = units_of(ctx, 1 - side.min(1));
    let gun_name = ctx.state().unit_name(gun);
    let Some(target) = pick_unit(
        ctx,
        &format!(
            "{gun_name} fires at which enemy unit? (in clear sight, {}-{} cm away, within {} degrees of straight ahead)",
            num(ctx, "artillery_min_range_cm"),
            num(ctx, "artillery_max_range_cm"),
            num(ctx, "artillery_arc_degrees")
        ),
        &enemies,
        // Picking the gun is when a player sees none in reach (audit AG3).
        Some("None in sight and range: back"),
        "artillery-fire",
    )?
    else {
        return Ok(false);
    };
    let cost = match ctx
        .choose(
            format!(
                "What protects {} from {} fire?",
                ctx.state().unit_name(target),
                crate::rules::common::possessive(&gun_name)
            ),
            vec![
                Choice::new("open", "Open ground or woods"),
                Choice::new("wall", "A solid wall"),
                Choice::new("redoubt", "A redoubt or trench"),
            ],
            Some("shot-markers"),
        )?
        .as_str()
    {
        "wall" => num(ctx, "shot_cost_wall"),
        "redoubt" => num(ctx, "shot_cost_redoubt"),
        _ => num(ctx, "shot_cost_open"),
    };
    let markers = ctx.state().units[gun].stat(SHOT_MARKERS);
    if markers < cost {
        // Turned down as an answer: the window keeps the question and says
        // why in red (Undo picks another target).
        ctx.refused(
            "shot-markers",
            format!("{gun_name} has {markers} shot marker(s) left and this shot needs {cost}: it cannot fire (Undo to pick another target)"),
        );
        return Ok(false);
    }
    set_stat(ctx, gun, SHOT_MARKERS, markers - cost);
    let target_name = ctx.state().unit_name(target);
    let kills = num(ctx, "long_range_kills").max(1) as u32;
    for _ in 0..kills {
        kill_one(ctx, target);
    }
    // A man killed in an ongoing engagement stays where he fell, so he counts
    // toward the confusion of the unit's later losses in it.
    let engaged = ctx.state().units[target].has(IN_ENGAGEMENT);
    if engaged {
        let killed = ctx.state().units[target].stat(ENGAGEMENT_KILLS).max(0) + kills as i32;
        set_stat(ctx, target, ENGAGEMENT_KILLS, killed);
    }
    let newly = (num(ctx, "long_range_confused").max(0) as u32).min(in_ranks(ctx, target));
    if newly > 0 {
        set_stat(
            ctx,
            target,
            CONFUSED,
            (confused(ctx, target) + newly) as i32,
        );
    }
    let confusion = if newly > 0 {
        more_confused(newly)
    } else {
        "nobody is confused".to_string()
    };
    let left_lying = if engaged {
        " (left where he fell: the unit is engaged)"
    } else {
        ""
    };
    ctx.resolved(
        "artillery-fire",
        format!(
            "{gun_name} spends {cost} shot marker(s) ({} left) and kills {kills} of {target_name}{left_lying}; {confusion}{}",
            markers - cost,
            gone(ctx, target)
        ),
    );
    Ok(true)
}

/// `attacker` of `side` fights an enemy unit.
pub fn fight(ctx: &mut Ctx, side: SideId, attacker: UnitId) -> Flow<()> {
    let enemy_side = 1 - side.min(1);
    let enemies = units_of(ctx, enemy_side);
    let a_name = ctx.state().unit_name(attacker);
    let Some(defender) = pick_unit(
        ctx,
        &format!(
            "{a_name} fights which enemy unit? (closer than {} cm, one facing the other)",
            num(ctx, "combat_range_cm")
        ),
        &enemies,
        Some("None close enough: back"),
        "combat-eligibility",
    )?
    else {
        return Ok(());
    };
    let d_name = ctx.state().unit_name(defender);
    if arm(ctx, attacker) == Arm::Cavalry
        && yes_no(
            ctx,
            format!("Is {d_name} behind a wall or in woods?"),
            "combat-eligibility",
        )?
    {
        ctx.refused(
            "combat-eligibility",
            format!("Cavalry may not start a combat with {d_name} behind a wall or in woods (Undo to pick another enemy)"),
        );
        return Ok(());
    }
    // Cavalry has just been told no wall stands before the defender: only
    // a redoubt or a trench is left to ask about.
    let cover_question = if arm(ctx, attacker) == Arm::Cavalry {
        format!("Is {d_name} defending in a redoubt or a trench?")
    } else {
        format!("Is {d_name} defending behind a redoubt or solid wall, or in a trench?")
    };
    let cover = arm(ctx, defender) != Arm::Cavalry && yes_no(ctx, cover_question, "cover-bonus")?;
    let flank = yes_no(
        ctx,
        format!(
            "Is {a_name} attacking {} flank or rear?",
            crate::rules::common::possessive(&d_name)
        ),
        "cavalry-flank",
    )?;
    let combats = ctx.state().units[attacker].stat(COMBATS) + 1;
    set_stat(ctx, attacker, COMBATS, combats);
    if combats >= num(ctx, "combats_per_unit_per_turn").max(1) {
        ctx.apply(Effect::SetStatus {
            unit: attacker,
            status: FOUGHT.into(),
            on: true,
        });
    }
    for u in [attacker, defender] {
        for status in [ENGAGED, IN_ENGAGEMENT] {
            ctx.apply(Effect::SetStatus {
                unit: u,
                status: status.into(),
                on: true,
            });
        }
    }
    crate::rules::common::set_pair(ctx, super::OPPONENTS, attacker, defender, true);
    let a_side = ctx.state().side_name(side);
    let d_side = ctx.state().side_name(enemy_side);
    let a_card = turn_card(
        ctx,
        side,
        format!("{a_side}: turn the top card for {a_name}"),
        "combat",
    )?;
    let d_card = turn_card(
        ctx,
        enemy_side,
        format!("{d_side}: turn the top card for {d_name}"),
        "combat",
    )?;
    let (Some(a_card), Some(d_card)) = (a_card, d_card) else {
        return Ok(());
    };
    let value = |c: Card| ctx.ruleset.cards.value(c).unwrap_or(0);
    let bonus = if cover { num(ctx, "cover_bonus") } else { 0 };
    let (a_val, d_val) = (value(a_card), value(d_card) + bonus);
    let cover_text = if cover {
        format!(" +{bonus} cover = {d_val}")
    } else {
        String::new()
    };
    ctx.resolved(
        "combat",
        format!(
            "{a_name} {a_card} ({a_val}) against {d_name} {d_card} ({}{cover_text})",
            value(d_card)
        ),
    );
    match a_val.cmp(&d_val) {
        std::cmp::Ordering::Greater => lose(ctx, defender, Some((attacker, a_card, flank))),
        std::cmp::Ordering::Less => lose(ctx, attacker, Some((defender, d_card, false))),
        std::cmp::Ordering::Equal => {
            let equal = if cover {
                "Equal values after cover: both units lose a man"
            } else {
                "Equal cards: both units lose a man"
            };
            ctx.resolved("tie", equal);
            lose(ctx, defender, None)?;
            lose(ctx, attacker, None)
        }
    }
}

/// Kills one man of `unit`: a man in ranks while there is one.
fn kill_one(ctx: &mut Ctx, unit: UnitId) {
    if in_ranks(ctx, unit) == 0 && confused(ctx, unit) > 0 {
        kill_confused(ctx, unit);
    } else {
        ctx.apply(Effect::RemoveSoldiers { unit, count: 1 });
    }
}

/// Kills one of `unit`'s confused men.
fn kill_confused(ctx: &mut Ctx, unit: UnitId) {
    set_stat(ctx, unit, CONFUSED, confused(ctx, unit) as i32 - 1);
    ctx.apply(Effect::RemoveSoldiers { unit, count: 1 });
}

/// Kills one man of `unit` lost in a combat: the opposing player chooses
/// whether he stood in ranks or was already confused (asked only when the
/// unit has both). Returns the choice made, if one was asked: `true` for a
/// confused man.
fn kill_chosen(ctx: &mut Ctx, unit: UnitId) -> Flow<Option<bool>> {
    if in_ranks(ctx, unit) > 0 && confused(ctx, unit) > 0 {
        let name = ctx.state().unit_name(unit);
        let side = ctx.state().units[unit].side;
        let chooser = ctx.state().side_name(1 - side.min(1));
        let picked = ctx.choose(
            format!(
                "{chooser}: which of {} men is killed?",
                crate::rules::common::possessive(&name)
            ),
            vec![
                Choice::new("ranks", "A man in ranks"),
                Choice::new("confused", "A confused man"),
            ],
            Some("combat"),
        )?;
        if picked == "confused" {
            kill_confused(ctx, unit);
            return Ok(Some(true));
        }
        kill_one(ctx, unit);
        return Ok(Some(false));
    }
    kill_one(ctx, unit);
    Ok(None)
}

fn gone(ctx: &Ctx, unit: UnitId) -> String {
    if men(ctx, unit) == 0 {
        format!("; {} is wiped out", ctx.state().unit_name(unit))
    } else {
        String::new()
    }
}

/// `loser` loses a combat (or draws one, with no `winner`): one man killed,
/// then confusion by the engagement's kill count and the winner's arm.
fn lose(ctx: &mut Ctx, loser: UnitId, winner: Option<(UnitId, Card, bool)>) -> Flow<()> {
    let name = ctx.state().unit_name(loser);
    let guns_won = winner.is_some_and(|(w, _, _)| arm(ctx, w) == Arm::Artillery);
    let kills_key = if guns_won {
        "artillery_win_kills"
    } else {
        "combat_kills"
    };
    let kills = num(ctx, kills_key).max(1) as u32;
    // Which kind of man the winner chose is said (audit CA N4).
    let mut chosen = Vec::new();
    for _ in 0..kills {
        chosen.extend(kill_chosen(ctx, loser)?);
    }
    let killed = ctx.state().units[loser].stat(ENGAGEMENT_KILLS).max(0) as u32 + kills;
    set_stat(ctx, loser, ENGAGEMENT_KILLS, killed as i32);
    let step = num(ctx, "confused_per_kill_step").max(0) as u32;
    let mut wanted = killed * step;
    let mut why = format!("{killed} killed in this engagement");
    if let Some((w, card, flank)) = winner {
        match arm(ctx, w) {
            Arm::Artillery => {
                wanted = artillery_confusion(
                    card,
                    num(ctx, "artillery_confused_court").max(0) as u32,
                    num(ctx, "artillery_confused_ace").max(0) as u32,
                    num(ctx, "artillery_confused_divisor").max(1) as u32,
                );
                why = format!("guns win with {card}: {wanted}");
            }
            Arm::Cavalry => {
                let b = num(ctx, "cavalry_win_confused_bonus").max(0) as u32;
                wanted += b;
                why.push_str(&format!(", +{b} cavalry"));
            }
            Arm::Infantry => {}
        }
        if flank {
            let b = num(ctx, "flank_rear_confused_bonus").max(0) as u32;
            wanted += b;
            why.push_str(&format!(", +{b} flank or rear"));
        }
    }
    let newly = wanted.min(in_ranks(ctx, loser));
    if newly == 0 && wanted > 0 {
        why.push_str("; none left in ranks to confuse");
    } else if newly < wanted {
        // Fewer than the rule gives: say why the count falls short.
        why.push_str(&format!("; only {newly} left in ranks to confuse"));
    }
    set_stat(ctx, loser, CONFUSED, (confused(ctx, loser) + newly) as i32);
    let rule = if guns_won {
        "artillery-win"
    } else {
        "confusion"
    };
    ctx.resolved(
        rule,
        format!(
            "{name} loses {}{}{} ({why}): {} in ranks, {} confused{}",
            if kills == 1 {
                "a man".to_string()
            } else {
                format!("{kills} men")
            },
            match chosen.iter().filter(|c| **c).count() {
                _ if chosen.is_empty() => String::new(),
                0 => " from the ranks".to_string(),
                n if n as u32 == kills => format!(
                    " {}",
                    if kills == 1 {
                        "already confused"
                    } else {
                        "all already confused"
                    }
                ),
                n => format!(" ({n} already confused)"),
            },
            if newly == 0 {
                String::new()
            } else {
                format!(" and {}", more_confused(newly))
            },
            in_ranks(ctx, loser),
            confused(ctx, loser),
            gone(ctx, loser)
        ),
    );
    Ok(())
}

/// "1 more is confused", "3 more are confused".
fn more_confused(n: u32) -> String {
    if n == 1 {
        "1 more is confused".to_string()
    } else {
        format!("{n} more are confused")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artillery_confusion_is_half_the_face_rounded_up() {
        let c = |s: &str| s.parse::<Card>().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(artillery_confusion(c("7s"), 4, 1, 2), 4);
        assert_eq!(artillery_confusion(c("Ts"), 4, 1, 2), 5);
        assert_eq!(artillery_confusion(c("Kd"), 4, 1, 2), 4);
        assert_eq!(artillery_confusion(c("Ah"), 4, 1, 2), 1);
        assert_eq!(artillery_confusion(c("2c"), 4, 1, 2), 1);
    }
}
