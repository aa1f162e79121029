//! Objective holders, sudden death and victory.

use super::kind;
use crate::rules::effect::Effect;
use crate::rules::procedure::{Answer, Choice, Ctx, Flow, Settled};
use crate::rules::state::{GameState, Holder, Outcome, SideId};

/// Asks, after an activation, which markers changed: pick a marker (or "no
/// change"), then its new holder; repeat until no more changes. After an
/// activation in which no unit moved or left the table (`idle`: a blunder,
/// an order to nobody, a shot that only cost soldiers) no marker can change
/// (l.65): "No change" is settled, and the window takes it (scripts still
/// answer).
pub fn update(ctx: &mut Ctx, idle: bool) -> Flow<()> {
    if ctx.state().objectives.is_empty() {
        return Ok(());
    }
    let mut settled = idle.then(|| {
        Settled::new(
            Answer::Choice("none".into()),
            "no unit moved or left the table",
        )
    });
    loop {
        let s = ctx.state();
        let mut options = vec![Choice::new("none", "No change")];
        for (i, o) in s.objectives.iter().enumerate() {
            let id = o.card.map_or_else(|| format!("o{i}"), |c| c.to_string());
            options.push(Choice::new(
                id,
                format!("{} ({})", o.name, holder_name(s, o.holder)),
            ));
        }
        let picked = ctx.choose_settled(
            format!(
                "Objectives: did a Follower end within {}\" of a marker, or a contest end? Pick the marker, or No change",
                super::num(ctx, "objective_range")
            ),
            options.clone(),
            Some("objectives"),
            settled.take(),
        )?;
        let Some(obj) = options.iter().skip(1).position(|o| o.id == picked) else {
            return Ok(());
        };
        let s = ctx.state();
        let name = s
            .objectives
            .get(obj)
            .map_or_else(String::new, |o| o.name.clone());
        let mut holders = vec![Choice::new("uncaptured", "Uncaptured")];
        let mut side_ids = Vec::new();
        for (i, side) in s.sides.iter().enumerate() {
            // Ids by side number: a name can repeat another player's or
            // read like "uncaptured"; scripts may still choose by the label.
            let id = format!("side{i}");
            side_ids.push(id.clone());
            // Saves from before this change recorded the side's name.
            holders.push(Choice::new(id, format!("Held by {}", side.name)).formerly(&side.name));
        }
        let range = super::num(ctx, "objective_range");
        holders.push(Choice::new(
            "contested",
            format!("Contested (both sides within {range}\")"),
        ));
        let h = ctx.choose(
            format!("Who holds {name} now?"),
            holders,
            Some("objectives"),
        )?;
        let holder = match h.as_str() {
            "uncaptured" => Holder::Uncaptured,
            "contested" => Holder::Contested,
            side => side_ids
                .iter()
                .position(|s| s == side)
                .map_or(Holder::Uncaptured, Holder::Side),
        };
        ctx.apply(Effect::SetHolder {
            objective: obj,
            holder,
        });
        // The change itself is logged by the effect; this line gives the
        // standing it leads to.
        let s = ctx.state();
        let [a, b] = held(s);
        let text = format!(
            "Markers held: {} {a}, {} {b} (of {})",
            s.side_name(0),
            s.side_name(1),
            s.objectives.len()
        );
        ctx.resolved("objectives", text);
    }
}

/// Who holds a marker, in a word or the side's name: short, so that the
/// markers' buttons keep to one row and "No change" stays where it was.
fn holder_name(s: &GameState, h: Holder) -> String {
    match h {
        Holder::Uncaptured => "uncaptured".into(),
        Holder::Contested => "contested".into(),
        Holder::Side(side) => s.side_name(side),
    }
}

/// Objectives held by each of the two sides.
pub fn held(s: &GameState) -> [usize; 2] {
    let mut n = [0; 2];
    for o in &s.objectives {
        if let Holder::Side(side) = o.holder
            && let Some(c) = n.get_mut(side)
        {
            *c += 1;
        }
    }
    n
}

/// True when a side has lost its Toff and every Snob.
pub fn leaderless(s: &GameState, side: SideId) -> bool {
    !s.units_of(side).any(|(_, u)| kind(u).is_commander())
}

/// Ends the game when a side has no Toff or Snob left; returns true if so.
pub fn sudden_death(ctx: &mut Ctx) -> bool {
    let s = ctx.state();
    let lost: Vec<SideId> = (0..s.sides.len().min(2))
        .filter(|&i| leaderless(s, i))
        .collect();
    let outcome = match lost.as_slice() {
        [] => return false,
        [side] => Outcome {
            winner: Some(super::other(*side)),
            reason: format!(
                "Sudden death: {} has lost the Toff and every Snob",
                s.side_name(*side)
            ),
        },
        _ => Outcome {
            winner: None,
            reason: "Sudden death: both sides lost their Toff and every Snob".into(),
        },
    };
    ctx.end_game("sudden-death", outcome);
    true
}

/// After the last round: most objectives wins; equal is a draw.
pub fn final_victory(ctx: &mut Ctx) {
    let s = ctx.state();
    let [a, b] = held(s);
    let rounds = s.round;
    let winner = match a.cmp(&b) {
        std::cmp::Ordering::Greater => Some(0),
        std::cmp::Ordering::Less => Some(1),
        std::cmp::Ordering::Equal => None,
    };
    let reason = format!(
        "After round {rounds}: {} holds {a} objective(s), {} holds {b}",
        s.side_name(0),
        s.side_name(1)
    );
    ctx.end_game("victory", Outcome { winner, reason });
}
