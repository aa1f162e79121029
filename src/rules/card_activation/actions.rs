//! An activation: a routed unit rallies first, then each action point buys a
//! move, a melee, a shot, a special action, or Overwatch; units on Overwatch
//! may spend their held action in between, and units of the same side next
//! in sequence may act together with it.

use super::{
    FORFEIT, HELD, OVERWATCH, PREP_LEFT, ROUTED, TASK_LEFT, check_wipeout, has, models_text, num,
    pick_unit, set_status, stat, unit_choice, units_of, yes_no,
};
use crate::rules::common::possessive;
use crate::rules::effect::Effect;
use crate::rules::procedure::{Answer, Choice, Ctx, Flow, Settled};
use crate::rules::ruleset::Ruleset;
use crate::rules::state::{GameState, UnitId};

/// Stat: actions the unit has taken this turn (each costs -1 in combat).
/// Actions lost to a rout are not taken: see [`FORFEIT`].
/// (Named `kind:id`, as bookkeeping the log leaves out: the action lines
/// around it say what happened.)
pub const SPENT: &str = "turn:spent";

/// Stats: a unit's straight moves in a row this turn, the bonus of the
/// charge they made, and the free melee actions it earned (see `Momentum`).
pub const MOVES_IN_ROW: &str = "turn:moves_in_row";
/// See [`MOVES_IN_ROW`].
pub const CHARGE_BONUS: &str = "turn:charge_bonus";
/// See [`MOVES_IN_ROW`].
pub const FREE_MELEE: &str = "turn:free_melee";
/// Stat: the enemy (id + 1; 0 before its first melee) that the unit's last
/// charge reached: the one its charge bonus counts against (l.58-60).
pub const CHARGE_TARGET: &str = "turn:charge_target";

/// Stat: the most inches a unit's recorded moves this turn allow (each Move
/// action its move, a rout its rout distance); kept into the next turn as
/// [`MOVED_LAST_TURN`], so a shooter is not asked how far a target moved
/// when the records say it did not move at all.
pub const MOVED_THIS_TURN: &str = "turn:moved_in";
/// See [`MOVED_THIS_TURN`].
pub const MOVED_LAST_TURN: &str = "last_turn:moved_in";

/// The most inches a target's movement is asked up to, when its recorded
/// moves do not bound it (games begun before question order 1).
const MOST_INCHES_MOVED: i64 = 200;

/// A Move action of `unit`: recorded, and its move in inches returned.
fn move_action(ctx: &mut Ctx, unit: UnitId) -> i32 {
    let inches = stat(ctx, unit, "move");
    record_move(ctx, unit, inches);
    inches
}

/// Records that `unit` moved up to `inches` this turn.
fn record_move(ctx: &mut Ctx, unit: UnitId, inches: i32) {
    let value = stat(ctx, unit, MOVED_THIS_TURN) + inches.max(0);
    ctx.apply(Effect::SetStat {
        unit,
        stat: MOVED_THIS_TURN.into(),
        value,
    });
}

/// The to-hit penalty for a target that moved `moved` inches: `penalty` for
/// each full `step` beyond the first `free`.
pub fn movement_penalty(moved: i32, free: i32, step: i32, penalty: i32) -> i32 {
    if moved <= free || step <= 0 {
        return 0;
    }
    ((moved - free) / step) * penalty
}

/// Puts a unit on Overwatch with its held actions.
fn go_on_overwatch(ctx: &mut Ctx, unit: UnitId) {
    set_status(ctx, unit, OVERWATCH, true);
    ctx.apply(Effect::SetStat {
        unit,
        stat: HELD.into(),
        value: num(ctx, "overwatch_actions").max(1),
    });
}

/// Actions `unit` has not taken yet this turn (its own card's, less those
/// taken alongside another unit or from Overwatch).
fn actions_left(ctx: &Ctx, unit: UnitId) -> i32 {
    ctx.state().units.get(unit).map_or(0, unit_actions_left)
}

/// Actions `u` has not taken this turn (lost ones counted as left).
fn unit_actions_left(u: &crate::rules::state::Unit) -> i32 {
    u.stat("actions").max(0) - u.stat(SPENT)
}

fn add_spent(ctx: &mut Ctx, unit: UnitId) {
    let v = stat(ctx, unit, SPENT) + 1;
    ctx.apply(Effect::SetStat {
        unit,
        stat: SPENT.into(),
        value: v,
    });
}

/// Activates `unit` when its card comes up. Units on Overwatch may act in
/// its menu (so also right after the previous unit's last action), and
/// before a routed unit's rally; units of its side next in sequence may act
/// together with it (combined actions). A charge's free melee not taken by
/// the end is lost.
pub fn activate(ctx: &mut Ctx, unit: UnitId) -> Flow<()> {
    activation(ctx, unit)?;
    free_melee_lost(ctx, unit);
    Ok(())
}

/// A charge's free melee left when `unit`'s activation ends, however it
/// ends (by choice, on Overwatch, routed), is gone: said unless a rout
/// took it (its line says the unit loses what it had left), and cleared so
/// the units panel stops showing it (audits BC C3, BF N3).
fn free_melee_lost(ctx: &mut Ctx, unit: UnitId) {
    let mut now = Momentum::of(ctx, unit);
    if now.free_melee <= 0 {
        return;
    }
    let routed = has(ctx, unit, ROUTED) || has(ctx, unit, FORFEIT);
    if !routed && ctx.state().units[unit].in_play() {
        let name = ctx.state().unit_name(unit);
        ctx.resolved(
            "charge",
            format!("{} free melee (charge) goes unused", possessive(&name)),
        );
    }
    now.free_melee = 0;
    now.save(ctx, unit);
}

/// [`activate`] up to the end of the unit's menu.
fn activation(ctx: &mut Ctx, unit: UnitId) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let actions = stat(ctx, unit, "actions").max(0);
    if has(ctx, unit, ROUTED) {
        // Routed after spending every action alongside another unit: no
        // action is left to rally with this turn.
        let cost = num(ctx, "rally_action_cost").max(0);
        if stat(ctx, unit, SPENT) > 0 && actions_left(ctx, unit) < cost {
            ctx.resolved(
                "rally",
                format!("{name} has no action left to rally with this turn"),
            );
            return Ok(());
        }
        overwatch_window(ctx, &format!("{name} is about to rally"))?;
        if !ctx.state().units[unit].in_play() || check_wipeout(ctx) {
            return Ok(());
        }
        for _ in 0..num(ctx, "rally_action_cost").max(0) {
            add_spent(ctx, unit);
        }
        if morale_check(ctx, unit, "rally")? {
            set_status(ctx, unit, ROUTED, false);
            // The rout's forfeit ends with it: the actions left are held on
            // Overwatch (rule 2 of Rally).
            set_status(ctx, unit, FORFEIT, false);
            go_on_overwatch(ctx, unit);
            ctx.resolved(
                "rally",
                format!("{name} rallies, turns to face the fight and goes on Overwatch"),
            );
        } else {
            rout(ctx, unit, true)?;
        }
        return Ok(());
    }
    // Another unit acting from Overwatch or with it in between does not
    // break its run of moves: only the unit's own actions count, those it
    // took alongside an earlier unit of its side included.
    let mut own = Momentum::of(ctx, unit);
    // Every action already taken alongside an earlier unit: the card comes
    // up with nothing to do (units on Overwatch act from the next menu).
    if stat(ctx, unit, SPENT) > 0 && actions_left(ctx, unit) <= 0 && own.free_melee == 0 {
        ctx.resolved(
            "combined-actions",
            format!(
                "{} card comes up with every action taken alongside",
                possessive(&name)
            ),
        );
        return Ok(());
    }
    loop {
        if !ctx.state().units[unit].in_play() || check_wipeout(ctx) {
            return Ok(());
        }
        // A rout forfeits the rest of the turn's actions, a charge's free
        // melee too: routing figures run away at once.
        let forfeit = has(ctx, unit, FORFEIT);
        let left = if forfeit { 0 } else { actions_left(ctx, unit) };
        // With its own actions spent the activation ends: the units next in
        // sequence then act on their own cards, which come next anyway.
        if forfeit || (left <= 0 && own.free_melee == 0) {
            return Ok(());
        }
        let in_sequence = in_sequence_with(ctx, unit);
        let mut options = Vec::new();
        // Options that cannot be taken now are still listed, so that each
        // keeps its number (keys 1-9) from one menu to the next; picked,
        // they are turned down with the reason.
        let mut barred: Vec<Barred> = Vec::new();
        options.push(Choice::new("move", "Move"));
        options.push(Choice::new("melee", "Melee"));
        let (shoot, no_shot) = shoot_choice(ctx, unit, false);
        options.push(shoot);
        barred.extend(no_shot);
        options.push(Choice::new("special", "Special action"));
        let need = (actions.max(0) as u32
            * num(ctx, "overwatch_min_actions_fraction_num").max(0) as u32)
            .div_ceil(num(ctx, "overwatch_min_actions_fraction_den").max(1) as u32)
            as i32;
        if left >= need {
            options.push(Choice::new("overwatch", "Go on Overwatch"));
        } else {
            options.push(Choice::new(
                "overwatch",
                format!("Go on Overwatch (needs {need} actions left)"),
            ));
            barred.push(Barred {
                id: "overwatch",
                rule: "overwatch",
                why: format!("{name} has {left} action(s) left: Overwatch needs {need}"),
            });
        }
        let split = split_limit(ctx, unit);
        if split > 0 {
            let label = |verb| {
                format!(
                    "Split: up to {} {verb} a different action",
                    models_text(split)
                )
            };
            let mut choice = Choice::new("split", label(if split == 1 { "takes" } else { "take" }));
            if split == 1 {
                // Its label until this round (scripts may choose by label).
                choice = choice.formerly(label("take"));
            }
            options.push(choice);
        } else {
            // Listed all the same, so the options after it keep their
            // numbers for a lone figure or a unit worn down (audit AN3).
            options.push(Choice::new("split", "Split (too few models)"));
            barred.push(Barred {
                id: "split",
                rule: "split-actions",
                why: format!(
                    "{name} has too few models to split: at most half of them, rounded down, may act apart"
                ),
            });
        }
        if left <= 0 {
            barred = mark_spent(&mut options, &name);
        }
        // The free melee a charge earns may be taken at once (listed after
        // the usual actions, which keep their numbers).
        if own.free_melee > 0 {
            options.push(free_melee_choice());
        }
        for &u in &in_sequence {
            options.push(Choice::new(
                format!("with-u{u}"),
                format!(
                    "{} acts now, together with {name}",
                    ctx.state().unit_name(u)
                ),
            ));
        }
        let watching = watching_units(ctx, Some(unit));
        if !watching.is_empty() {
            options.push(Choice::new("watch", "A unit on Overwatch acts"));
        }
        options.push(Choice::new(
            "end",
            format!("End {} activation", possessive(&name)),
        ));
        let picked = ctx.choose(
            format!("{name} has {} action(s) left: what now?", left.max(0)),
            options,
            Some("actions"),
        )?;
        if let Some(b) = barred.iter().find(|b| b.id == picked) {
            ctx.refused(b.rule, b.why.clone());
            continue;
        }
        if picked != "watch" && !picked.starts_with("with-") {
            own.moves(picked == "move");
            own.save(ctx, unit);
        }
        // Actions taken before this one, each a penalty in combat.
        let prior = stat(ctx, unit, SPENT);
        match picked.as_str() {
            "move" | "melee" | "free-melee" | "shoot" | "special" => {
                take_action(ctx, unit, &picked, &mut own, prior)?;
            }
            "split" => {
                add_spent(ctx, unit);
                split_action(ctx, unit, own.charge_bonus, prior)?;
            }
            "overwatch" => {
                go_on_overwatch(ctx, unit);
                ctx.resolved(
                    "overwatch",
                    format!(
                        "{name} goes on Overwatch, holding {} action(s)",
                        stat(ctx, unit, HELD)
                    ),
                );
                return Ok(());
            }
            "watch" => watcher_acts(ctx, &watching)?,
            other => match in_sequence
                .iter()
                .copied()
                .find(|u| other == format!("with-u{u}"))
            {
                Some(partner) => acts_together(ctx, partner, &name)?,
                None => {
                    // Ended by choice: the actions left are not kept.
                    if left > 0 {
                        ctx.resolved(
                            "actions",
                            format!(
                                "{name} ends its activation with {left} action{} unused",
                                if left == 1 { "" } else { "s" }
                            ),
                        );
                    }
                    return Ok(());
                }
            },
        }
    }
}

/// A menu option listed (to keep every option's number) that cannot be
/// taken now: picked, it is turned down under `rule` with `why`.
struct Barred {
    id: &'static str,
    rule: &'static str,
    why: String,
}

/// What a unit's own actions so far this turn earn it: a run of straight
/// moves (enough of them make a charge), the charge's combat bonus and its
/// free melee actions. Kept as turn stats, so what a unit earned acting
/// alongside another carries into its own activation.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Momentum {
    moves_in_row: i32,
    charge_bonus: i32,
    free_melee: i32,
}

impl Momentum {
    /// The unit's momentum this turn.
    fn of(ctx: &Ctx, unit: UnitId) -> Self {
        Momentum {
            moves_in_row: stat(ctx, unit, MOVES_IN_ROW),
            charge_bonus: stat(ctx, unit, CHARGE_BONUS),
            free_melee: stat(ctx, unit, FREE_MELEE),
        }
    }

    /// Records the unit's momentum (only what changed).
    fn save(self, ctx: &mut Ctx, unit: UnitId) {
        for (key, value) in [
            (MOVES_IN_ROW, self.moves_in_row),
            (CHARGE_BONUS, self.charge_bonus),
            (FREE_MELEE, self.free_melee),
        ] {
            if stat(ctx, unit, key) != value {
                ctx.apply(Effect::SetStat {
                    unit,
                    stat: key.into(),
                    value,
                });
            }
        }
    }

    /// A move lengthens the run of moves; any other action of the unit ends it.
    fn moves(&mut self, moved: bool) {
        self.moves_in_row = if moved { self.moves_in_row + 1 } else { 0 };
    }

    /// Takes in what a move's charge question answered: (bonus, free melee).
    fn charged(&mut self, (bonus, free): (i32, i32)) {
        self.charge_bonus = bonus;
        self.free_melee += free;
    }
}

/// Units of `acting`'s side whose cards come right after its own, with no
/// enemy card between ("in sequence"), that need not rally first and still
/// have actions (or a free melee their own charge earned): they may act
/// together with it, each action taken now counted against their own when
/// their card comes.
fn in_sequence_with(ctx: &Ctx, acting: UnitId) -> Vec<UnitId> {
    let state = ctx.state();
    let order = &state.activation;
    let side = state.units[acting].side;
    if order.current().and_then(|slot| slot.unit) != Some(acting) {
        return Vec::new();
    }
    order.slots[order.next + 1..]
        .iter()
        // A removed unit's card no longer comes up: it parts no sequence.
        .filter(|slot| slot.unit.is_none_or(|u| state.units[u].in_play()))
        .take_while(|slot| slot.side == side)
        .filter_map(|slot| slot.unit)
        .filter(|&u| {
            state.units[u].in_play()
                && !has(ctx, u, ROUTED)
                && !has(ctx, u, FORFEIT)
                && (actions_left(ctx, u) > 0 || Momentum::of(ctx, u).free_melee > 0)
        })
        .collect()
}

/// `unit`, next in sequence, takes one of its actions now, together with
/// `with` (the unit whose card is up): a move (which may make a charge with
/// its own earlier moves alongside), a melee, a shot, a special action, or a
/// free melee its charge earned.
fn acts_together(ctx: &mut Ctx, unit: UnitId, with: &str) -> Flow<()> {
    let mut run = Momentum::of(ctx, unit);
    let name = ctx.state().unit_name(unit);
    let left = actions_left(ctx, unit).max(0);
    let prompt = format!("{name} ({left} action(s) left) acts together with {with}: which action?");
    let free: Vec<Choice> = (run.free_melee > 0)
        .then(free_melee_choice)
        .into_iter()
        .collect();
    let picked = if left > 0 {
        choose_basic_action(ctx, unit, &prompt, "combined-actions", false, &free)?
    } else {
        ctx.choose(prompt, free, Some("combined-actions"))?
    };
    run.moves(picked == "move");
    run.save(ctx, unit);
    ctx.resolved(
        "combined-actions",
        format!("{name} acts together with {with}"),
    );
    let prior = stat(ctx, unit, SPENT);
    take_action(ctx, unit, &picked, &mut run, prior)
}

/// `unit` takes the action `picked` (move, melee, free melee, shoot or a
/// special action) with what it earned so far, `prior` actions taken before
/// it: its own activation and an action alongside another unit share this.
fn take_action(
    ctx: &mut Ctx,
    unit: UnitId,
    picked: &str,
    momentum: &mut Momentum,
    prior: i32,
) -> Flow<()> {
    if picked == "free-melee" {
        // The free melee a charge earns costs no action.
        momentum.free_melee -= 1;
        momentum.save(ctx, unit);
        return attack(ctx, unit, Attack::Melee, momentum.charge_bonus, prior);
    }
    add_spent(ctx, unit);
    match picked {
        "move" => {
            move_action(ctx, unit);
            momentum.charged(charge(ctx, unit, momentum.moves_in_row)?);
            momentum.save(ctx, unit);
        }
        "melee" => attack(ctx, unit, Attack::Melee, momentum.charge_bonus, prior)?,
        "shoot" => attack(ctx, unit, Attack::Ballistic, 0, prior)?,
        _ => special(ctx, unit)?,
    }
    Ok(())
}

/// The free melee a two-move charge earns ("melee" when it was offered only
/// once the actions were spent, in saves of that time).
fn free_melee_choice() -> Choice {
    Choice::new("free-melee", "Free melee (charge)").formerly("melee")
}

/// Units on Overwatch that may spend a held action, other than `acting`.
fn watching_units(ctx: &Ctx, acting: Option<UnitId>) -> Vec<UnitId> {
    (0..ctx.state().units.len())
        .filter(|&u| Some(u) != acting && ctx.state().units[u].in_play() && has(ctx, u, OVERWATCH))
        .collect()
}

/// The player picks which of `watching` spends its held action, and it acts.
fn watcher_acts(ctx: &mut Ctx, watching: &[UnitId]) -> Flow<()> {
    if let Some(w) = pick_unit(
        ctx,
        "Which unit on Overwatch acts?",
        watching,
        None,
        "overwatch",
    )? {
        held_action(ctx, w)?;
    }
    Ok(())
}

/// Before a routed unit's rally and before the turn ends, units on Overwatch
/// may spend their held action: it is theirs "at any point in the turn", also
/// after the last action of the turn. `moment` says when, for the prompt.
pub fn overwatch_window(ctx: &mut Ctx, moment: &str) -> Flow<()> {
    loop {
        if check_wipeout(ctx) {
            return Ok(());
        }
        let watching = watching_units(ctx, None);
        if watching.is_empty() {
            return Ok(());
        }
        let picked = ctx.choose(
            format!("{moment}: does a unit on Overwatch act?"),
            vec![
                Choice::new("watch", "A unit on Overwatch acts"),
                Choice::new("on", "Play on"),
            ],
            Some("overwatch"),
        )?;
        if picked != "watch" {
            return Ok(());
        }
        watcher_acts(ctx, &watching)?;
    }
}

/// The Shoot option of an action menu, and why it is turned down when the
/// weapon is not ready: still to prep, or (`prepped_now`) readied by the
/// other part of this same split action. Listed either way, so the options
/// after it keep their numbers.
fn shoot_choice(ctx: &Ctx, unit: UnitId, prepped_now: bool) -> (Choice, Option<Barred>) {
    let name = ctx.state().unit_name(unit);
    let prep = stat(ctx, unit, PREP_LEFT);
    // A profile without range or shooting dice (a house rule's knights)
    // has no missile weapon (audit AH M2).
    let (label, why, rule) = if !has_missile_weapon(ctx, unit) {
        (
            "Shoot (no missile weapon)".to_string(),
            format!(
                "{name} has no missile weapon: its profile gives no weapon range or shooting dice"
            ),
            "ballistics",
        )
    } else if prep > 0 {
        (
            format!("Shoot (needs {prep} Prep first)"),
            format!(
                "{} weapon needs {prep} Prep action(s) first (a special action)",
                possessive(&name)
            ),
            "weapon-prep",
        )
    } else if prepped_now {
        (
            "Shoot (readied in this action)".to_string(),
            format!(
                "{} weapon was readied by the other models in this same action: it shoots in a later one",
                possessive(&name)
            ),
            "weapon-prep",
        )
    } else {
        return (Choice::new("shoot", "Shoot"), None);
    };
    let barred = Barred {
        id: "shoot",
        rule,
        why,
    };
    (Choice::new("shoot", label), Some(barred))
}

/// Marks the usual actions of a unit with none left (only a charge's free
/// melee): still listed, so the free melee and End keep their numbers (audit
/// AH M6), each said to be spent (AJ5); returns why each is turned down.
/// Melee is listed under another id: a save's "melee" here was the free
/// melee, and still is.
fn mark_spent(options: &mut [Choice], name: &str) -> Vec<Barred> {
    const SPENT_IDS: [&str; 6] = [
        "move",
        "melee-spent",
        "shoot",
        "special",
        "overwatch",
        "split",
    ];
    for o in options.iter_mut().filter(|o| o.id == "melee") {
        *o = Choice::new("melee-spent", "Melee");
    }
    for o in (options.iter_mut()).filter(|o| SPENT_IDS.contains(&o.id.as_str())) {
        let base = o.label.split(" (").next().unwrap_or_default().to_string();
        o.label = format!("{base} (no actions left)");
    }
    let why = format!("{name} has no actions left: only its free melee (charge) remains");
    SPENT_IDS
        .into_iter()
        .map(|id| Barred {
            id,
            rule: "actions",
            why: why.clone(),
        })
        .collect()
}

/// Whether a unit's profile gives it a missile weapon (a range and
/// shooting dice).
fn has_missile_weapon(ctx: &Ctx, unit: UnitId) -> bool {
    stat(ctx, unit, "weapon_range") > 0 && stat(ctx, unit, "ballistic_dice") > 0
}

/// Move, melee, shoot or a special action: what a held action, an action
/// alongside another unit or one part of a split action may be. Asked with
/// `extra` options after them until one that can be taken is picked (Shoot
/// with the weapon not ready is listed, and turned down with the reason).
fn choose_basic_action(
    ctx: &mut Ctx,
    unit: UnitId,
    prompt: &str,
    rule: &str,
    prepped_now: bool,
    extra: &[Choice],
) -> Flow<String> {
    loop {
        let (shoot, barred) = shoot_choice(ctx, unit, prepped_now);
        let mut options = vec![
            Choice::new("move", "Move"),
            Choice::new("melee", "Melee"),
            shoot,
            Choice::new("special", "Special action"),
        ];
        options.extend(extra.iter().cloned());
        let picked = ctx.choose(prompt, options, Some(rule))?;
        match barred {
            Some(b) if b.id == picked => ctx.refused(b.rule, b.why),
            _ => return Ok(picked),
        }
    }
}

/// A unit on Overwatch spends one held action; it stays on Overwatch while
/// it holds more.
fn held_action(ctx: &mut Ctx, unit: UnitId) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let held = stat(ctx, unit, HELD) - 1;
    ctx.apply(Effect::SetStat {
        unit,
        stat: HELD.into(),
        value: held.max(0),
    });
    if held <= 0 {
        set_status(ctx, unit, OVERWATCH, false);
    }
    let prompt = format!("{name} acts from Overwatch");
    let picked = choose_basic_action(ctx, unit, &prompt, "overwatch", false, &[])?;
    ctx.resolved("overwatch", format!("{name} acts from Overwatch"));
    let prior = stat(ctx, unit, SPENT);
    add_spent(ctx, unit);
    match picked.as_str() {
        "move" => {
            let inches = move_action(ctx, unit);
            ctx.resolved("move", format!("{name} moves up to {inches} in"));
        }
        "melee" => attack(ctx, unit, Attack::Melee, 0, prior)?,
        "shoot" => attack(ctx, unit, Attack::Ballistic, 0, prior)?,
        _ => special(ctx, unit)?,
    }
    Ok(())
}

/// Asks whether a move (the `run`-th move action in a row) made contact as a
/// charge: returns the combat bonus and the free melee actions it earns.
fn charge(ctx: &mut Ctx, unit: UnitId, run: i32) -> Flow<(i32, i32)> {
    let name = ctx.state().unit_name(unit);
    // The distance must be one straight run: the moves in a row so far at
    // the unit's move rate can reach it, or no charge by distance.
    let distance = num(ctx, "charge_distance_in");
    let mut options = if run.max(1).saturating_mul(stat(ctx, unit, "move")) >= distance {
        vec![
            Choice::new("none", "No charge"),
            Choice::new(
                "distance",
                format!("Charged: {distance} in or more straight into contact"),
            ),
        ]
    } else {
        // Out of reach: an older save's "charged by distance" here (offered
        // then) reads as no charge, so the rest of that game still replays.
        vec![Choice::new("none", "No charge").formerly("distance")]
    };
    let moves = num(ctx, "charge_move_actions").max(1);
    if run >= moves {
        options.push(Choice::new(
            "two-moves",
            format!("Charged: {moves} straight move actions in a row into contact"),
        ));
    }
    let picked = ctx.choose(
        format!(
            "{name} moves up to {} in. Did the move end in contact as a charge?",
            stat(ctx, unit, "move")
        ),
        options,
        Some("charge"),
    )?;
    let bonus = num(ctx, "charge_bonus");
    // The charge line is also the move's line: it says the move.
    let step = stat(ctx, unit, "move");
    if picked != "none" && stat(ctx, unit, CHARGE_TARGET) != 0 {
        // A new charge reaches a new enemy: its first melee names it.
        ctx.apply(Effect::SetStat {
            unit,
            stat: CHARGE_TARGET.into(),
            value: 0,
        });
    }
    let earned = match picked.as_str() {
        "distance" => {
            ctx.resolved(
                "charge",
                format!("{name} moves up to {step} in and charges: +{bonus} in melee against the enemy it reached"),
            );
            (bonus, 0)
        }
        "two-moves" => {
            let free = num(ctx, "charge_free_melee_actions").max(0);
            ctx.resolved(
                "charge",
                format!(
                    "{name} moves up to {step} in again ({run} moves in a row) and charges: +{bonus} in melee against the enemy it reached and {free} free melee action(s)"
                ),
            );
            (bonus, free)
        }
        _ => {
            ctx.resolved(
                "move",
                format!("{name} moves up to {} in", stat(ctx, unit, "move")),
            );
            (0, 0)
        }
    };
    if earned.0 != 0 {
        charged_enemy(ctx, unit)?;
    }
    Ok(earned)
}

/// Asks which enemy a charge reached (l.57: "making contact with that
/// enemy"), in games begun with question order 2: with several enemies in
/// contact, the first one fought need not be it (audit AJ4). One enemy left
/// is that one; in older games the first one fought is taken.
fn charged_enemy(ctx: &mut Ctx, unit: UnitId) -> Flow<()> {
    if crate::rules::common::question_order(ctx) < 2 {
        return Ok(());
    }
    let side = ctx.state().units[unit].side;
    let enemies = units_of(ctx, 1 - side.min(1));
    let reached = match enemies.as_slice() {
        [one] => Some(*one),
        _ => {
            let name = ctx.state().unit_name(unit);
            pick_unit(
                ctx,
                &format!("Which enemy did {name} charge into?"),
                &enemies,
                None,
                "charge",
            )?
        }
    };
    if let Some(enemy) = reached {
        ctx.apply(Effect::SetStat {
            unit,
            stat: CHARGE_TARGET.into(),
            value: enemy as i32 + 1,
        });
    }
    Ok(())
}

/// The charge `bonus` of `unit` against `target`, said in `why`: it counts
/// against the enemy the charge reached (audit AH M3), as asked, or in games
/// begun before question order 2 the first one it fights after charging;
/// against any other, none.
fn charge_bonus_against(
    ctx: &mut Ctx,
    unit: UnitId,
    target: UnitId,
    bonus: i32,
    why: &mut Vec<String>,
) -> i32 {
    if bonus == 0 {
        return 0;
    }
    let reached = stat(ctx, unit, CHARGE_TARGET);
    if reached == 0 {
        ctx.apply(Effect::SetStat {
            unit,
            stat: CHARGE_TARGET.into(),
            value: target as i32 + 1,
        });
    } else if reached != target as i32 + 1 {
        let charged = ctx.state().unit_name((reached - 1) as UnitId);
        why.push(format!("no charge bonus: the charge reached {charged}"));
        return 0;
    }
    why.push(format!("charge {bonus:+}"));
    bonus
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attack {
    Melee,
    Ballistic,
}

impl Attack {
    /// The rules entry that covers this kind of attack.
    fn rule(self) -> &'static str {
        match self {
            Attack::Melee => "melee",
            Attack::Ballistic => "ballistics",
        }
    }
}

/// An attack by a unit that has taken `prior` actions before it: the target
/// (or two, when up to the split fraction of its models engage another), then
/// per target the dice and modifier to roll at the table, the casualties after
/// saves, and a morale check if the target needs one.
fn attack(ctx: &mut Ctx, unit: UnitId, kind: Attack, bonus: i32, prior: i32) -> Flow<()> {
    let models = ctx.state().units[unit].soldiers.len() as i32;
    attack_with(ctx, unit, kind, bonus, prior, models)
}

/// The most models of `unit` that may split off for one action.
fn split_limit(ctx: &Ctx, unit: UnitId) -> i32 {
    let models = ctx.state().units[unit].soldiers.len() as i32;
    (models * num(ctx, "split_fraction_num").max(0)) / num(ctx, "split_fraction_den").max(1)
}

/// An attack by `models` of the unit's models (all, or one part of a split
/// action); the whole unit may still split its targets.
fn attack_with(
    ctx: &mut Ctx,
    unit: UnitId,
    kind: Attack,
    bonus: i32,
    prior: i32,
    models: i32,
) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let side = ctx.state().units[unit].side;
    let enemies = units_of(ctx, 1 - side.min(1));
    let rule = kind.rule();
    let all = ctx.state().units[unit].soldiers.len() as i32;
    // Only a whole-unit attack splits its targets (a split action already
    // divides the models).
    let split = if models == all {
        split_limit(ctx, unit)
    } else {
        0
    };
    let prompt = match kind {
        Attack::Melee => {
            format!("{name} attacks which enemy in base contact and in its weapon arc?")
        }
        Attack::Ballistic => format!(
            "{name} shoots at which enemy in arc, in sight and within {} in?",
            stat(ctx, unit, "weapon_range")
        ),
    };
    let mut options: Vec<Choice> = enemies.iter().map(|&u| unit_choice(ctx, u)).collect();
    let can_split = split > 0 && enemies.len() >= 2;
    if can_split {
        options.push(Choice::new(
            "split",
            format!(
                "Split: up to {split} of its {} {} a second target",
                models_text(models),
                if split == 1 { "engages" } else { "engage" }
            ),
        ));
    }
    if options.is_empty() {
        return Ok(());
    }
    let picked = ctx.choose(prompt, options, Some(rule))?;
    // (target, models engaging it)
    let parts: Vec<(UnitId, i32)> = if picked == "split" {
        let Some(main) = pick_unit(
            ctx,
            &format!("{} main target?", possessive(&name)),
            &enemies,
            None,
            "split-actions",
        )?
        else {
            return Ok(());
        };
        let others: Vec<UnitId> = enemies.iter().copied().filter(|&u| u != main).collect();
        let Some(second) = pick_unit(
            ctx,
            "The models that split off engage which other enemy?",
            &others,
            None,
            "split-actions",
        )?
        else {
            return Ok(());
        };
        let off = ctx.number(
            format!(
                "How many of {} {models} models engage {}?",
                possessive(&name),
                ctx.state().unit_name(second)
            ),
            1,
            i64::from(split),
            Some("split-actions"),
        )? as i32;
        // One line for the split, so the two attacks read as one action
        // (audit BM M5).
        ctx.resolved(
            "split-actions",
            format!(
                "{name} splits its attack: {} model(s) at {}, {off} at {}",
                models - off,
                ctx.state().unit_name(main),
                ctx.state().unit_name(second)
            ),
        );
        vec![(main, models - off), (second, off)]
    } else {
        match enemies
            .iter()
            .copied()
            .find(|&u| unit_choice(ctx, u).id == picked)
        {
            Some(t) => vec![(t, models)],
            None => return Ok(()),
        }
    };
    for (target, engaging) in parts {
        if !ctx.state().units[target].in_play() {
            continue;
        }
        strike(ctx, unit, kind, target, engaging, bonus, prior)?;
    }
    // Said after the shot, as it happens at the table.
    if kind == Attack::Ballistic {
        let prep = stat(ctx, unit, "weapon_prep").max(0);
        ctx.apply(Effect::SetStat {
            unit,
            stat: PREP_LEFT.into(),
            value: prep,
        });
        if prep > 0 && ctx.state().units[unit].in_play() {
            let actions = if prep == 1 { "action" } else { "actions" };
            ctx.resolved(
                "weapon-prep",
                format!(
                    "{} weapon needs {prep} Prep {actions} before it shoots again",
                    possessive(&name)
                ),
            );
        }
    }
    Ok(())
}

/// One action split between the unit's models: up to the split limit do one
/// thing, the rest another (never Overwatch: the whole unit must go on it).
fn split_action(ctx: &mut Ctx, unit: UnitId, bonus: i32, prior: i32) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let models = ctx.state().units[unit].soldiers.len() as i32;
    let off = ctx.number(
        format!(
            "How many of {} {models} models split off?",
            possessive(&name)
        ),
        1,
        i64::from(split_limit(ctx, unit).max(1)),
        Some("split-actions"),
    )? as i32;
    // A part acts for its own models only: the unit's weapon is readied
    // (Prep) by the whole unit's action, never by a part while the rest
    // does something else (audit BI I1). Games begun before question
    // order 3 let a part prep, as they were played: then one split action
    // cannot both fire the weapon and count towards its Prep. (Shooting at
    // two targets is the Shoot action's own split.)
    let part_may_prep = crate::rules::common::question_order(ctx) < 3;
    let mut shot = false;
    let mut prepped = false;
    for (count, split_off) in [(models - off, false), (off, true)] {
        if !ctx.state().units[unit].in_play() {
            break;
        }
        // The main body first, said as the rest ("the other" read as the
        // split-off group: audit R6b).
        let prompt = if split_off {
            format!("What do the split-off {count} model(s) of {name} do?")
        } else {
            format!("What does the rest of {name} ({count} model(s)) do?")
        };
        let picked = choose_basic_action(ctx, unit, &prompt, "split-actions", prepped, &[])?;
        shot |= picked == "shoot";
        // Each part named as it acts, so the log reads as one split action,
        // not as two actions (audit BI I2).
        let part = if split_off {
            format!("The split-off {count} model(s) of {name}")
        } else {
            format!("The rest of {name} ({count} model(s))")
        };
        match picked.as_str() {
            "move" => {
                let inches = move_action(ctx, unit);
                ctx.resolved("split-actions", format!("{part} move up to {inches} in"));
            }
            "melee" => {
                ctx.resolved("split-actions", format!("{part} fight in melee"));
                attack_with(ctx, unit, Attack::Melee, bonus, prior, count)?;
            }
            "shoot" => {
                ctx.resolved("split-actions", format!("{part} shoot"));
                attack_with(ctx, unit, Attack::Ballistic, 0, prior, count)?;
            }
            _ => {
                ctx.resolved("split-actions", format!("{part} take a special action"));
                // Listed all the same and turned down with the reason, as
                // Shoot is (audit BM M3).
                let bar = if !part_may_prep {
                    Some(
                        "a part of a split unit does not prep the weapon: that takes the whole unit's action",
                    )
                } else if shot {
                    Some(
                        "the other part fired the weapon in this same action: it preps in a later one",
                    )
                } else {
                    None
                };
                prepped |= special_task(ctx, unit, bar)?;
            }
        }
    }
    Ok(())
}

/// `engaging` models of `unit` attack `target`: the dice and modifier, the
/// casualties after saves, then the target's morale check if it needs one.
fn strike(
    ctx: &mut Ctx,
    unit: UnitId,
    kind: Attack,
    target: UnitId,
    engaging: i32,
    bonus: i32,
    prior: i32,
) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let rule = kind.rule();
    let (what, dice_key) = match kind {
        Attack::Melee => ("melee", "melee_dice"),
        Attack::Ballistic => ("shooting", "ballistic_dice"),
    };
    let target_name = ctx.state().unit_name(target);
    let mut why = vec![format!("{} earlier action(s)", prior.max(0))];
    let bonus = charge_bonus_against(ctx, unit, target, bonus, &mut why);
    let mut modifier = bonus - prior.max(0) * num(ctx, "prior_action_penalty");
    if kind == Attack::Ballistic {
        // A target that has not activated this turn counts its movement of
        // the previous turn (l.78); in the first turn there is none.
        let to_come = card_to_come(ctx, target);
        let question = match (to_come, ctx.state().turn > 1) {
            (false, _) => format!("How far has {target_name} moved this turn, in inches?"),
            (true, true) => format!(
                "How far did {target_name} move last turn, in inches? (It has not acted yet this turn.)"
            ),
            (true, false) => format!(
                "How far did {target_name} move last turn, in inches? (It has not acted yet, and in the first turn there is no last turn: 0.)"
            ),
        };
        // Not yet acted in the first turn: it has not moved at all. Else
        // the records bound the answer: no Move and no rout that turn is 0.
        let recorded = stat(
            ctx,
            target,
            if to_come {
                MOVED_LAST_TURN
            } else {
                MOVED_THIS_TURN
            },
        );
        let (free, step, per_step) = (
            num(ctx, "target_move_free_in"),
            num(ctx, "target_move_step_in"),
            num(ctx, "target_move_penalty"),
        );
        let known = if to_come && ctx.state().turn <= 1 {
            Some(Settled::new(Answer::Number(0), "no last turn yet"))
        } else if recorded == 0 {
            Some(Settled::new(
                Answer::Number(0),
                "no move recorded that turn",
            ))
        } else if movement_penalty(recorded, free, step, per_step) == 0
            && crate::rules::common::question_order(ctx) >= 3
        {
            // No answer the records allow costs a penalty (the penalty
            // grows with the inches): none could matter (audit BI I5).
            Some(Settled::new(
                Answer::Number(i64::from(recorded)),
                &format!("its recorded moves, up to {recorded} in, cost no penalty"),
            ))
        } else {
            None
        };
        let question = if known.is_none() {
            format!("{question} Its recorded moves allow up to {recorded} in.")
        } else {
            question
        };
        // Games begun with question order 1 keep the answer within that
        // (older games' answers may go past it, and must still read).
        let most = if crate::rules::common::question_order(ctx) >= 1 && recorded > 0 {
            i64::from(recorded)
        } else {
            MOST_INCHES_MOVED
        };
        let moved = ctx.number_settled(question, 0, most, Some("ballistics"), known)? as i32;
        let p = movement_penalty(moved, free, step, per_step);
        if p > 0 {
            modifier -= p;
            why.push(format!("target moved {moved} in -{p}"));
        }
    }
    let dice = engaging.max(0) * stat(ctx, unit, dice_key).max(0);
    ctx.resolved(
        rule,
        format!(
            "{name} rolls {dice} {what} {} at {target_name}, {modifier:+} to hit ({})",
            if dice == 1 { "die" } else { "dice" },
            why.join(", ")
        ),
    );
    let left = ctx.state().units[target].soldiers.len() as i64;
    let lost = ctx.number(
        format!(
            "After saves, how many of {} models are casualties?",
            possessive(&target_name)
        ),
        0,
        left,
        Some(rule),
    )?;
    if lost > 0 {
        // The removal's own log line says it ("loses n soldier(s)").
        ctx.apply(Effect::RemoveSoldiers {
            unit: target,
            count: lost as u32,
        });
    } else {
        // Said, or the attack has no outcome in the log (audit BI I4).
        ctx.resolved(rule, format!("{target_name} takes no casualties"));
    }
    if !ctx.state().units[target].in_play() {
        return Ok(());
    }
    if has(ctx, target, ROUTED) {
        // Said, so the player expecting the question sees why it is not put.
        ctx.resolved(
            "morale-check",
            format!("{target_name} is routed already: no morale check"),
        );
    } else if yes_no(
        ctx,
        // The source leaves when a check is due to the players (audit AH M4).
        format!(
            "Must {target_name} take a morale check? ({lost} {}; the source does not say when one is due: your group's call)",
            if lost == 1 { "casualty" } else { "casualties" }
        ),
        "morale-check",
    )? && !morale_check(ctx, target, "morale-check")?
    {
        rout(ctx, target, false)?;
    }
    Ok(())
}

/// A special action: readying the weapon, or anything else (noted).
fn special(ctx: &mut Ctx, unit: UnitId) -> Flow<()> {
    special_task(ctx, unit, None).map(|_| ())
}

/// One action spent on what `key` counts (the weapon's prep, a long
/// task), `left` of them to go before it.
fn count_down(ctx: &mut Ctx, unit: UnitId, key: &str, left: i32) {
    ctx.apply(Effect::SetStat {
        unit,
        stat: key.into(),
        value: left - 1,
    });
}

/// The most actions a special task of several actions is asked to take.
const TASK_MOST_ACTIONS: i64 = 20;

/// A special action; readying the weapon is listed while it needs it,
/// and turned down with `prep_barred`'s reason when given; returns whether
/// the weapon was readied.
fn special_task(ctx: &mut Ctx, unit: UnitId, prep_barred: Option<&str>) -> Flow<bool> {
    let name = ctx.state().unit_name(unit);
    // Aim and the other tasks first: they keep their numbers (keys 1-9)
    // whether or not the weapon needs readying.
    let mut options = vec![
        Choice::new("aim", "Aim"),
        Choice::new("other", "Something else (radio, casting, device, healing)"),
    ];
    // From question order 4 a task may take several actions, over turns
    // (l.25, l.88: a 5-action casting by a 2-action caster): counted.
    let long_tasks = crate::rules::common::question_order(ctx) >= 4;
    if long_tasks {
        options.push(Choice::new(
            "long",
            "Start a task of several actions (a casting, a device)",
        ));
    }
    let prep = stat(ctx, unit, PREP_LEFT);
    if prep > 0 {
        let label = match prep_barred {
            None => format!("Prep the weapon ({prep} action(s) to go)"),
            Some(_) => "Prep the weapon (not now)".to_string(),
        };
        options.push(Choice::new("prep", label));
    }
    let task = stat(ctx, unit, TASK_LEFT);
    if long_tasks && task > 0 {
        options.push(Choice::new(
            "task",
            format!("Go on with the task ({task} action(s) to go)"),
        ));
    }
    let picked = loop {
        let picked = ctx.choose(
            format!("{} special action", possessive(&name)),
            options.clone(),
            Some("special"),
        )?;
        match prep_barred {
            Some(why) if picked == "prep" => ctx.refused("weapon-prep", format!("{name}: {why}")),
            _ => break picked,
        }
    };
    match picked.as_str() {
        "prep" => {
            count_down(ctx, unit, PREP_LEFT, prep);
            let text = if prep - 1 == 0 {
                format!("{} weapon is ready to shoot", possessive(&name))
            } else {
                format!("{name} works on the weapon: {} action(s) to go", prep - 1)
            };
            ctx.resolved("weapon-prep", text);
        }
        "long" => {
            let all = ctx.number(
                format!("{name}'s task: how many actions does it take in all?"),
                2,
                TASK_MOST_ACTIONS,
                Some("special"),
            )?;
            let left = all as i32 - 1;
            ctx.apply(Effect::SetStat {
                unit,
                stat: TASK_LEFT.into(),
                value: left,
            });
            ctx.resolved(
                "special",
                format!("{name} starts a task of {all} actions: {left} action(s) to go"),
            );
        }
        "task" => {
            count_down(ctx, unit, TASK_LEFT, task);
            let text = if task - 1 == 0 {
                format!("{name} completes its task")
            } else {
                format!("{name} works on its task: {} action(s) to go", task - 1)
            };
            ctx.resolved("special", text);
        }
        // The source lists Aim among special actions but gives it no effect.
        "aim" => ctx.resolved(
            "special",
            format!("{name} aims (the rules give aiming no effect of its own: apply your table's)"),
        ),
        _ => ctx.resolved(
            "special",
            format!("{name} spends an action on a special task"),
        ),
    }
    Ok(picked == "prep")
}

/// The morale check: roll the morale dice; pass at or under the unit's
/// morale plus the modifiers that apply.
pub fn morale_check(ctx: &mut Ctx, unit: UnitId, rule: &str) -> Flow<bool> {
    let name = ctx.state().unit_name(unit);
    let u = ctx.state().units[unit].clone();
    let mut target = u.stat("morale");
    let mut why = Vec::new();
    if u.has(ROUTED) {
        let m = num(ctx, "morale_mod_routed");
        target += m;
        why.push(format!("routed {m:+}"));
    }
    if u.soldiers.len() * 2 <= u.soldiers_at_start as usize && u.soldiers_at_start > 1 {
        let m = num(ctx, "morale_mod_half_strength");
        target += m;
        why.push(format!("half strength {m:+}"));
    }
    let side = u.side;
    let commander = units_of(ctx, side).into_iter().find(|&c| {
        c != unit
            && (ctx.ruleset)
                .profile(&ctx.state().units[c].profile)
                .is_some_and(super::leads_side)
    });
    if let Some(c) = commander
        && yes_no(
            ctx,
            format!(
                "Is {} (commander) close enough to steady {name}? (The source gives no distance: use your group's.)",
                ctx.state().unit_name(c)
            ),
            "morale-check",
        )?
    {
        let m = num(ctx, "morale_mod_commander_near");
        target += m;
        why.push(format!("commander {m:+}"));
    }
    let dice = num(ctx, "morale_dice").max(1) as u32;
    let mods = if why.is_empty() {
        String::new()
    } else {
        format!(" ({})", why.join(", "))
    };
    // The target is known before the roll: the players see what passes.
    // A rally is named as one: "rally" was first said in the result
    // (audit BM M8).
    let what = if rule == "rally" {
        "Rally: morale check"
    } else {
        "Morale check"
    };
    let pool = ctx.roll(
        dice,
        format!("{what} for {name}: {target} or less passes{mods}"),
        rule,
    )?;
    let total: i32 = pool.dice.iter().map(|d| i32::from(d.value.get())).sum();
    let pass = total <= target;
    ctx.resolved(
        "morale-check",
        format!(
            "{name} rolls {total} against {target}{mods}: {}",
            if pass { "passes" } else { "fails" }
        ),
    );
    Ok(pass)
}

/// A failed check: the unit routs (a free double move away) and loses its
/// remaining actions. A failed rally check at the unit's board edge removes
/// it; the document names no such end for other routs.
fn rout(ctx: &mut Ctx, unit: UnitId, failed_rally: bool) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    set_status(ctx, unit, ROUTED, true);
    set_status(ctx, unit, OVERWATCH, false);
    // The actions left are lost, not taken: they add no combat penalty.
    set_status(ctx, unit, FORFEIT, true);
    let dist = stat(ctx, unit, "move") * num(ctx, "rout_move_multiplier");
    record_move(ctx, unit, dist);
    if failed_rally
        && yes_no(
            ctx,
            format!("{name} fails to rally. Was it at its board edge when it failed?"),
            "rally",
        )?
    {
        ctx.apply(Effect::RemoveUnit {
            unit,
            reason: "failed to rally at its board edge".into(),
        });
        ctx.resolved(
            "rally",
            format!("{name} fails to rally at its board edge and is eliminated"),
        );
    } else {
        // A unit whose card is still to come keeps it: it rallies first then.
        // (Nothing to lose once its actions are spent: audit X7b.)
        let after = if RoutedTurn::of(ctx.state(), ctx.ruleset, unit) == RoutedTurn::RalliesLater {
            "; it must rally first when its card comes up"
        } else if actions_left(ctx, unit) > 0 || Momentum::of(ctx, unit).free_melee > 0 {
            " and loses its remaining actions"
        } else if card_to_come(ctx, unit) {
            "; with no action left it cannot rally when its card comes up"
        } else {
            ""
        };
        ctx.resolved(
            "rout",
            format!(
                "{name} routs {dist} in away from the enemy (cover, then rally point, then own edge){after}"
            ),
        );
    }
    Ok(())
}

/// Whether `unit`'s activation card comes up later this turn.
fn card_to_come(ctx: &Ctx, unit: UnitId) -> bool {
    ctx.state().activation.comes_later(unit)
}

/// What a unit that lost its actions to a rout still does this turn: the
/// units panel says it, and the rout's log line says the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoutedTurn {
    /// Its card comes up later and it has the actions to rally then.
    RalliesLater,
    /// Its card is up now: the question on screen says what happens.
    UpNow,
    /// Nothing more this turn.
    Done,
}

impl RoutedTurn {
    /// Where routed `unit` stands in this turn's activation.
    pub fn of(state: &GameState, ruleset: &Ruleset, unit: UnitId) -> Self {
        let Some(u) = state.units.get(unit) else {
            return Self::Done;
        };
        let order = &state.activation;
        let cost = (ruleset.number("rally_action_cost") as i32).max(0);
        if order.comes_later(unit) && unit_actions_left(u) >= cost {
            Self::RalliesLater
        } else if order.current().is_some_and(|slot| slot.unit == Some(unit)) {
            Self::UpNow
        } else {
            Self::Done
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_moving_beyond_six_inches_cost_one_per_full_six() {
        assert_eq!(movement_penalty(0, 6, 6, 1), 0);
        assert_eq!(movement_penalty(6, 6, 6, 1), 0);
        assert_eq!(movement_penalty(11, 6, 6, 1), 0);
        assert_eq!(movement_penalty(12, 6, 6, 1), 1);
        assert_eq!(movement_penalty(19, 6, 6, 1), 2);
    }
}
