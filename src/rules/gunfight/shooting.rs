//! Shots: the shooting card and its modifiers against the target's save,
//! d6 damage to lives, overwatch fire, and the civilians' reactions.

use super::{
    Weapon, by_cards_left, cards_left, check_victory, enemies_of, formerly_played_out,
    gunman_choice, gunmen_of, is_suit, joker_left, lives_left, num, one_card, pick_gunman, value,
    weapon, yes_no,
};
use crate::rules::common::{possessive, yes_no_settled, yes_no_unless_moot};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{SideId, UnitId};
use crate::table::{Card, Suit};

/// Counter of shots fired at a figure (the first one ends the first moves).
pub const SHOTS_COUNTER: &str = "shots";

/// Counter key: 1 when a gunman of gang `side` has moved on a single card
/// in its go so far (only such a move may be stopped part-way to shoot at
/// -2, by the mover or a gang mate moving with him as a group).
pub fn single_card_move_key(side: SideId) -> String {
    format!("single-card-move:{side}")
}

/// What a shot is aimed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A gunman (unit id).
    Gunman(UnitId),
    /// A civilian (saves with the top card of the deck).
    Civilian,
}

/// What gave opponents the chance to fire on overwatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// The figure moved (a hit stops it where it is).
    Moved,
    /// The figure fired.
    Fired,
}

/// Whether a shot of modified value `shot` beats the save card: no save, a
/// lower save value, or (for a civilian) a card that is not red or is lower.
pub fn hits(shot: i32, save: Option<i32>) -> bool {
    match save {
        None => true,
        Some(s) => shot > s,
    }
}

/// The active gang shoots: shooter, target, card, modifiers, a fan-shot.
pub fn shoot(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let ids = gunmen_of(ctx, side);
    let Some(shooter) = pick_gunman(ctx, "Who shoots?", &ids, "shooting")? else {
        return Ok(());
    };
    let Some(target) = pick_target(ctx, side, "shooting")? else {
        return Ok(());
    };
    let name = ctx.state().unit_name(shooter);
    let w = weapon(ctx, shooter);
    let range = num(ctx, &format!("{}_range", w.id()));
    let card = shooting_card(
        ctx,
        side,
        &format!(
            "{name} ({}, {range} in) shoots at {}: play a Spade or Diamond",
            w.id(),
            target_name(ctx, target)
        ),
    )?;
    let (mut modifier, mut why) = situation(ctx, Some(side))?;
    let mut shots = 1;
    if w == Weapon::Pistol && joker_left(ctx, side) && fans(ctx, side, &name)? {
        one_card(
            ctx,
            side,
            "Show the Joker",
            "fan-shot",
            |c| c.suit().is_none(),
            "a fan-shot needs a Joker",
        )?;
        shots = ctx.ruleset.number("fan_shot_shots").max(1);
        let m = num(ctx, "fan_shot_modifier");
        modifier += m;
        why.push(format!("fan-shot {m:+}"));
    }
    let mut target = target;
    for shot in 1..=shots {
        if let Target::Gunman(t) = target
            && lives_left(ctx, t) == 0
        {
            // The last enemy down: the game is won, nobody to turn on.
            if enemies_of(ctx, side).is_empty() {
                break;
            }
            match retarget(ctx, side, &name, t)? {
                Some(other) => target = other,
                None => break,
            }
        }
        // A fan-shot's two saves are asked alike: say which shot this is.
        let mut why = why.clone();
        if shots > 1 {
            why.push(format!("shot {shot} of {shots}"));
        }
        fire(ctx, &name, target, card, modifier, &why, "shooting")?;
    }
    after_firing(ctx)?;
    if check_victory(ctx) {
        return Ok(());
    }
    overwatch(ctx, side, shooter, Trigger::Fired)
}

/// Whether `side`'s gunman `name` adds a Joker to fan his pistol. With the
/// hand played out there is no Joker to add: the question is still asked
/// (older saves answered it) with one answer, which the window takes.
fn fans(ctx: &mut Ctx, side: SideId, name: &str) -> Flow<bool> {
    let played_out = cards_left(ctx, side) == 0;
    yes_no_unless_moot(
        ctx,
        format!("Does {name} add a Joker to fan the pistol?"),
        "fan-shot",
        played_out.then_some("No: every card of the hand is played"),
    )
}

/// Opponents of `side` (the active gang) may fire on overwatch at `figure`,
/// one shot at a time, until nobody else does.
pub fn overwatch(ctx: &mut Ctx, side: SideId, figure: UnitId, trigger: Trigger) -> Flow<()> {
    overwatch_at(ctx, side, side, figure, trigger)
}

/// Overwatch fire in `active`'s turn at `figure` of gang `figure_side`, from
/// every other gang but the active one. A gunman firing on overwatch has
/// fired too, so with three or more gangs a third may fire back at him.
fn overwatch_at(
    ctx: &mut Ctx,
    active: SideId,
    figure_side: SideId,
    figure: UnitId,
    trigger: Trigger,
) -> Flow<()> {
    // Figures that moved in a group with the mover may be shot as well.
    let targets: Vec<UnitId> = match trigger {
        Trigger::Moved => {
            let mut t = vec![figure];
            t.extend(
                gunmen_of(ctx, figure_side)
                    .into_iter()
                    .filter(|&g| g != figure),
            );
            t
        }
        Trigger::Fired => vec![figure],
    };
    // From question order 1 a gunman fires on overwatch once at one move
    // or shot (l.50: "a single shooting card").
    let once = crate::rules::common::question_order(ctx) >= 1;
    let mut fired: Vec<UnitId> = Vec::new();
    let ready = |ctx: &Ctx, s: SideId, fired: &[UnitId]| -> Vec<UnitId> {
        gunmen_of(ctx, s)
            .into_iter()
            .filter(|g| !(once && fired.contains(g)))
            .collect()
    };
    loop {
        let standing: Vec<UnitId> = targets
            .iter()
            .copied()
            .filter(|&t| lives_left(ctx, t) > 0)
            .collect();
        // While any figure that moved stands, it may be shot at.
        if standing.is_empty() || ctx.state().outcome.is_some() {
            return Ok(());
        }
        let shooters: Vec<SideId> = (0..ctx.state().sides.len())
            .filter(|&s| s != active && s != figure_side && !ready(ctx, s, &fired).is_empty())
            .collect();
        if shooters.is_empty() {
            return Ok(());
        }
        let mover = ctx.state().unit_name(figure);
        let verb = match trigger {
            Trigger::Moved => "moved",
            Trigger::Fired => "fired",
        };
        // A hand played out has no shooting card. The question is asked all
        // the same (older saves answered it; the window takes a lone option
        // by itself). An older save's fire by such a side was refused and the
        // question asked again: so it is here.
        let (shooters, played_out) = by_cards_left(ctx, shooters.clone());
        let nobody = Choice::new("none", "Nobody fires");
        let nobody = formerly_played_out(ctx, nobody, &played_out, "ow", "fires on overwatch");
        let mut options = vec![nobody];
        for &s in &shooters {
            options.push(Choice::new(
                format!("ow-{s}"),
                format!("{} fires on overwatch", ctx.state().side_name(s)),
            ));
        }
        let prompt = if lives_left(ctx, figure) > 0 {
            format!("{mover} {verb}: does anyone fire on overwatch?")
        } else {
            format!(
                "{mover} is out: does anyone fire on overwatch at a gang mate who moved with him?"
            )
        };
        let (picked, by_former) = ctx.choose_noting_former(prompt, options, Some("overwatch"))?;
        if by_former {
            ctx.refused(
                "overwatch",
                "A gang with no card left cannot fire on overwatch",
            );
            continue;
        }
        let Some(s) = shooters
            .iter()
            .copied()
            .find(|s| picked == format!("ow-{s}"))
        else {
            return Ok(());
        };
        let ids = ready(ctx, s, &fired);
        let Some(shooter) = pick_gunman(ctx, "Which gunman fires?", &ids, "overwatch")? else {
            continue;
        };
        fired.push(shooter);
        let name = ctx.state().unit_name(shooter);
        let target = if standing.len() > 1 {
            let options: Vec<Choice> = standing
                .iter()
                .map(|&g| {
                    let mut c = gunman_choice(ctx, g);
                    if g != figure {
                        let name = ctx.state().unit_name(figure);
                        c.label = format!("{} (if he moved with {name} as a group)", c.label);
                    }
                    c
                })
                .collect();
            let picked = ctx.choose(
                format!("{name} fires at which figure that moved?"),
                options,
                Some("overwatch"),
            )?;
            standing
                .iter()
                .copied()
                .find(|&g| picked == format!("g{g}"))
                .unwrap_or(figure)
        } else {
            figure
        };
        let target_name = ctx.state().unit_name(target);
        let w = weapon(ctx, shooter);
        let range = num(ctx, &format!("{}_range", w.id()));
        let card = shooting_card(
            ctx,
            s,
            &format!(
                "{name} ({}, {range} in) fires on overwatch at {target_name}: play a Spade or Diamond",
                w.id()
            ),
        )?;
        let (mut modifier, mut why) = situation(ctx, None)?;
        let m = num(ctx, "overwatch_modifier");
        modifier += m;
        why.push(format!("overwatch {m:+}"));
        let hit = fire(
            ctx,
            &name,
            Target::Gunman(target),
            card,
            modifier,
            &why,
            "overwatch",
        )?;
        if hit && trigger == Trigger::Moved && lives_left(ctx, target) > 0 {
            ctx.resolved("overwatch", format!("{target_name} stops where he was hit"));
        }
        after_firing(ctx)?;
        if check_victory(ctx) {
            return Ok(());
        }
        if lives_left(ctx, shooter) > 0 {
            overwatch_at(ctx, active, s, shooter, Trigger::Fired)?;
        }
    }
}

/// A fan-shot's first shot took `out` out: the shooter may turn the other
/// shot on another enemy or a civilian (same card and modifiers), or hold it.
fn retarget(ctx: &mut Ctx, side: SideId, shooter: &str, out: UnitId) -> Flow<Option<Target>> {
    let (enemies, mut options) = target_choices(ctx, side);
    options.push(Choice::new("hold", "Hold the other shot"));
    let out_name = ctx.state().unit_name(out);
    let picked = ctx.choose(
        format!(
            "{out_name} is out: does {shooter} fire the fan-shot's other shot at someone else?"
        ),
        options,
        Some("fan-shot"),
    )?;
    let target = chosen_target(&picked, &enemies);
    if target.is_none() {
        ctx.resolved(
            "fan-shot",
            format!("{out_name} is out: {shooter} holds the fan-shot's other shot"),
        );
    }
    Ok(target)
}

/// Asks for the target: an enemy gunman, or a civilian.
fn pick_target(ctx: &mut Ctx, side: SideId, rule: &str) -> Flow<Option<Target>> {
    let (enemies, options) = target_choices(ctx, side);
    let picked = ctx.choose("Shoot at whom?", options, Some(rule))?;
    Ok(chosen_target(&picked, &enemies))
}

/// The enemy gunmen of `side`, and the choices of a target among them and,
/// where civilians were set up, a civilian.
fn target_choices(ctx: &Ctx, side: SideId) -> (Vec<UnitId>, Vec<Choice>) {
    let enemies = enemies_of(ctx, side);
    let mut options: Vec<Choice> = enemies.iter().map(|&i| gunman_choice(ctx, i)).collect();
    if ctx.state().counter(CIVILIANS_COUNTER) > 0 {
        options.push(Choice::new("civilian", "A civilian"));
    }
    (enemies, options)
}

/// The target a choice of [`target_choices`] names (`None`: another choice).
fn chosen_target(picked: &str, enemies: &[UnitId]) -> Option<Target> {
    if picked == "civilian" {
        return Some(Target::Civilian);
    }
    enemies
        .iter()
        .copied()
        .find(|i| picked == format!("g{i}"))
        .map(Target::Gunman)
}

fn target_name(ctx: &Ctx, target: Target) -> String {
    match target {
        Target::Gunman(t) => ctx.state().unit_name(t),
        Target::Civilian => "a civilian".into(),
    }
}

fn shooting_card(ctx: &mut Ctx, side: SideId, prompt: &str) -> Flow<Card> {
    one_card(
        ctx,
        side,
        prompt,
        "shooting",
        |c| is_suit(c, &[Suit::Spades, Suit::Diamonds]),
        "shooting cards are Spades and Diamonds",
    )
}

/// Cover and height (and, for a shooter of `active`, the gang whose go it
/// is, shooting mid-move): the total modifier and its parts in words.
fn situation(ctx: &mut Ctx, active: Option<SideId>) -> Flow<(i32, Vec<String>)> {
    let mut total = 0;
    let mut why = Vec::new();
    let cover = ctx.number(
        "How many pieces of cover lie between shooter and target?",
        0,
        6,
        Some("modifiers"),
    )?;
    if cover > 0 {
        let m = num(ctx, "cover_modifier") * cover as i32;
        total += m;
        why.push(format!("cover {m:+}"));
    }
    if yes_no(ctx, "Is the shooter on higher ground?", "modifiers")? {
        let m = num(ctx, "height_modifier");
        total += m;
        why.push(format!("height {m:+}"));
    }
    // Only a single-card move may be stopped to shoot (l.32): with none
    // made by the shooter's gang this go (his own, or one he moved with as
    // a group), he is not mid-move.
    let moved = active.map(|side| ctx.state().counter(&single_card_move_key(side)) != 0);
    let settled = (moved == Some(false)).then_some((false, "no single-card move this go"));
    if moved.is_some()
        && yes_no_settled(
            ctx,
            "Does the shooter stop part-way through a single-card move to fire?",
            "interrupt-move",
            settled,
        )?
    {
        let m = num(ctx, "interrupt_move_modifier");
        total += m;
        why.push(format!("mid-move {m:+}"));
    }
    Ok((total, why))
}

/// One shot against its target's save; damage on a hit. Returns whether it hit.
fn fire(
    ctx: &mut Ctx,
    shooter: &str,
    target: Target,
    card: Card,
    modifier: i32,
    why: &[String],
    rule: &str,
) -> Flow<bool> {
    let shot = value(ctx, card).unwrap_or(0) + modifier;
    let detail = if why.is_empty() {
        format!("{card}")
    } else {
        format!("{card}, {}", why.join(", "))
    };
    match target {
        Target::Gunman(t) => {
            let name = ctx.state().unit_name(t);
            let owner = ctx.state().units[t].side;
            // With the hand spent there is nothing to save with.
            let options = if cards_left(ctx, owner) > 0 {
                vec![
                    Choice::new(
                        "save",
                        "Play a save: a Heart if he holds one, else a Diamond or Joker if he wants",
                    ),
                    Choice::new("none", "No save (he holds no Heart)"),
                ]
            } else {
                vec![Choice::new(
                    "none",
                    "No save (every card of the hand is played)",
                )]
            };
            let answer = ctx.choose(
                format!("{shooter} shoots {shot} at {name} ({detail}): does {name} play a save? (a Heart must be played if he holds one)"),
                options,
                Some(rule),
            )?;
            let save = if answer == "save" {
                let c = one_card(
                    ctx,
                    owner,
                    &format!("{name}: show the save card (the shot is {shot}; a tie saves)"),
                    "shooting",
                    |c| c.suit().is_none() || is_suit(c, &[Suit::Hearts, Suit::Diamonds]),
                    "save cards are Hearts, Diamonds and Jokers",
                )?;
                match value(ctx, c) {
                    Some(v) => Some((c, v)),
                    None => {
                        // The shot's card and modifiers kept, as for every
                        // other shot (audit BC C4).
                        ctx.resolved(
                            "shooting",
                            format!(
                                "{} shot {shot} ({detail}) is saved by {} Joker: missed",
                                possessive(shooter),
                                possessive(&name)
                            ),
                        );
                        return Ok(false);
                    }
                }
            } else {
                None
            };
            if !hits(shot, save.map(|s| s.1)) {
                let (c, v) = save.map_or((card, 0), |s| s);
                ctx.resolved(
                    rule,
                    format!(
                        "{} shot {shot} ({detail}) does not beat {} save {c} ({v}): missed",
                        possessive(shooter),
                        possessive(&name)
                    ),
                );
                return Ok(false);
            }
            let against =
                save.map_or_else(|| "no save".to_string(), |(c, v)| format!("save {c} ({v})"));
            ctx.resolved(
                rule,
                format!("{shooter} hits {name}: {shot} ({detail}) against {against}"),
            );
            damage(ctx, t)?;
            Ok(true)
        }
        Target::Civilian => {
            let drawn = super::civilian_card(
                ctx,
                &format!(
                    "{shooter} shoots {shot} at a civilian ({detail}), for the civilian's save"
                ),
                "civilian-actions",
            )?;
            let saved = drawn.is_some_and(|c| {
                is_suit(c, &[Suit::Hearts, Suit::Diamonds])
                    && value(ctx, c).is_some_and(|v| v >= shot)
            });
            let c = drawn.map_or_else(String::new, |c| c.to_string());
            if saved {
                ctx.resolved(
                    "civilian-actions",
                    format!(
                        "{} shot {shot} ({detail}) at a civilian: the civilian saves with {c}, missed",
                        possessive(shooter)
                    ),
                );
            } else {
                ctx.resolved(
                    "civilian-actions",
                    format!("{shooter} hits a civilian: {shot} ({detail}), {c} is no save; the civilian is out of the fight"),
                );
            }
            Ok(!saved)
        }
    }
}

/// A hit: the shooter rolls the damage dice and the target loses that many lives.
fn damage(ctx: &mut Ctx, target: UnitId) -> Flow<()> {
    let name = ctx.state().unit_name(target);
    let dice = ctx.ruleset.number("damage_dice").max(1) as u32;
    let before = lives_left(ctx, target);
    let what = if dice == 1 {
        "1 die".to_string()
    } else {
        format!("{dice} dice")
    };
    let pool = ctx.roll(
        dice,
        format!("Damage to {name}: roll {what}, he loses that many lives ({before} left)"),
        "damage",
    )?;
    let lost: u32 = pool.dice.iter().map(|d| u32::from(d.value.get())).sum();
    ctx.apply(Effect::LoseLives {
        unit: target,
        lives: lost,
    });
    let after = lives_left(ctx, target);
    if after == 0 {
        ctx.resolved(
            "damage",
            match (lost > before, before) {
                (true, 1) => format!("{name} takes {lost} damage with 1 life left and is out"),
                (true, _) => {
                    format!("{name} takes {lost} damage with {before} lives left and is out")
                }
                (false, 1) => format!("{name} loses his last life and is out"),
                (false, _) => format!("{name} loses his last {before} lives and is out"),
            },
        );
    } else {
        let lives = if lost == 1 { "life" } else { "lives" };
        ctx.resolved(
            "damage",
            format!("{name} loses {lost} {lives}: {after} left"),
        );
    }
    Ok(())
}

/// Counts the shot and lets nearby civilians react.
fn after_firing(ctx: &mut Ctx) -> Flow<()> {
    let shots = ctx.state().counter(SHOTS_COUNTER) + 1;
    ctx.apply(Effect::SetCounter {
        key: SHOTS_COUNTER.into(),
        value: shots,
    });
    // A shot that decided the game leaves nothing for civilians to do
    // (from question order 1; older games asked them first).
    if crate::rules::common::question_order(ctx) >= 1 && check_victory(ctx) {
        return Ok(());
    }
    if ctx.state().counter(CIVILIANS_COUNTER) > 0 {
        civilians_react(ctx)?;
    }
    Ok(())
}

/// Counter set to 1 when the table has civilians.
pub const CIVILIANS_COUNTER: &str = "civilians";

/// Civilians within range of a firing weapon each turn a card and react.
fn civilians_react(ctx: &mut Ctx) -> Flow<()> {
    let range = num(ctx, "civilian_reaction_range");
    let n = ctx.number(
        format!("How many civilians are within {range} in of the firing weapon?"),
        0,
        20,
        Some("civilian-reaction"),
    )?;
    let run = num(ctx, "civilian_run_multiplier");
    for i in 1..=n {
        // A civilian's shot may have ended the game: nobody else reacts.
        if ctx.state().outcome.is_some() {
            break;
        }
        let armed = ctx.choose(
            format!("Civilian {i} of {n}: armed or unarmed?"),
            vec![
                Choice::new("unarmed", "Unarmed"),
                Choice::new("armed", "Armed"),
            ],
            Some("civilian-reaction"),
        )? == "armed";
        let Some(card) =
            super::civilian_card(ctx, &format!("Civilian {i} of {n}"), "civilian-reaction")?
        else {
            continue;
        };
        // Numbered within this reaction ("2 of 3"): the next shot's
        // bystanders are counted afresh.
        let who = format!("Civilian {i} of {n}");
        let flee = |ctx: &Ctx| {
            let inches = value(ctx, card).unwrap_or(0) * run;
            format!("{who} ({card}) runs {inches} in into cover or away from the action")
        };
        let text = match (armed, card.suit()) {
            (_, None) => format!("{who} ({card}) freezes where he stands"),
            (false, Some(Suit::Spades)) => format!("{who} ({card}) stays where he is"),
            (false, Some(_)) | (true, Some(Suit::Hearts)) => flee(ctx),
            (true, Some(Suit::Clubs)) => {
                format!("{who} ({card}) moves away from the threat to the nearest cover")
            }
            (true, Some(Suit::Spades | Suit::Diamonds)) => {
                ctx.resolved("civilian-reaction", format!("{who} ({card}) opens fire"));
                civilian_shot(ctx, &who, card)?;
                continue;
            }
        };
        ctx.resolved("civilian-reaction", text);
    }
    Ok(())
}

/// An armed civilian shoots with the card he turned (his shot sets off no
/// further reactions).
fn civilian_shot(ctx: &mut Ctx, who: &str, card: Card) -> Flow<()> {
    let all: Vec<UnitId> = (0..ctx.state().sides.len())
        .flat_map(|s| gunmen_of(ctx, s))
        .collect();
    let mut options = vec![Choice::new("none", "Nobody in range")];
    options.extend(all.iter().map(|&u| gunman_choice(ctx, u)));
    let picked = ctx.choose(
        format!("{who} shoots with {card}: at whom?"),
        options,
        Some("civilian-actions"),
    )?;
    let Some(t) = all.into_iter().find(|u| picked == format!("g{u}")) else {
        return Ok(());
    };
    let (modifier, why) = situation(ctx, None)?;
    fire(
        ctx,
        who,
        Target::Gunman(t),
        card,
        modifier,
        &why,
        "civilian-actions",
    )?;
    check_victory(ctx);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shot_must_beat_the_save_and_no_save_is_always_hit() {
        assert!(hits(8, None));
        assert!(hits(8, Some(7)));
        assert!(!hits(8, Some(8)), "a tie is saved");
        assert!(!hits(6, Some(11)));
    }
}
