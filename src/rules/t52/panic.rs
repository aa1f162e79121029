//! Panic Tests, with Fearless, Mob, defensible terrain and the
//! Bowel-loosening Charge re-roll.

use super::engagement::misfire;
use super::{TerrainKind, UnitKind, kind, num, terrain_count, unit};
use crate::rules::common::yes_no_unless_moot;
use crate::rules::procedure::{Ctx, Flow};
use crate::rules::state::{Unit, UnitId};
use crate::table::D6;

/// True when a die plus missing soldiers stays at or under the threshold.
pub fn panic_holds(die: u8, missing: u32, threshold: i32) -> bool {
    i32::from(die) + missing as i32 <= threshold
}

/// Why a unit counts as Fearless without asking the table, if it does:
/// the Fearless upgrade, or Mob while it has more than `mob_soldiers`.
pub fn fearless_reason(u: &Unit, mob_soldiers: i32) -> Option<&'static str> {
    if u.upgrade_count("fearless") > 0 {
        Some("its upgrade")
    } else if u.upgrade_count("mob") > 0 && u.soldiers.len() as i32 > mob_soldiers {
        Some("Mob")
    } else {
        None
    }
}

/// A Panic Test: a die plus missing soldiers, above the threshold retreats.
/// A Fearless unit about to fail passes on an unmodified roll of the target
/// or more. `rerolls` passed tests must be taken again (Bowel-loosening
/// Charge). Returns true when the unit holds.
pub fn panic_test(ctx: &mut Ctx, id: UnitId, rerolls: u32) -> Flow<bool> {
    let Some(u) = unit(ctx, id) else {
        return Ok(true);
    };
    if !u.in_play() {
        return Ok(true);
    }
    let threshold = num(ctx, "panic_threshold");
    let missing = u.missing();
    // Fearless only helps a unit about to fail; with few soldiers missing
    // even a 6 holds.
    let cannot_fail = panic_holds(6, missing, threshold);
    // With many missing even a 1 fails: only a Fearless roll can hold it.
    let cannot_hold = !panic_holds(1, missing, threshold);
    // A gun's 1 still counts for its misfire, so only other units' rolls
    // are moot then.
    let gun = kind(&u) == UnitKind::Artillery;
    let moot_roll = cannot_fail && !gun;
    let moot_fail = cannot_hold && !gun;
    let mut fearless = fearless_reason(&u, num(ctx, "mob_soldiers")).map(str::to_string);
    if fearless.is_none()
        && terrain_count(ctx, TerrainKind::Defensible) > 0
        && yes_no_unless_moot(
            ctx,
            format!(
                "Is {} wholly inside defensible terrain (it counts as Fearless)?",
                u.name
            ),
            "defensible",
            cannot_fail.then_some("It does not matter: this Panic Test cannot fail"),
        )?
    {
        fearless = Some("defensible terrain".into());
    }
    let target = num(ctx, "fearless_target");
    let mut attempt = 0;
    loop {
        let again = if attempt > 0 {
            " again (Bowel-loosening Charge)"
        } else {
            ""
        };
        let prompt = format!(
            "Panic Test for {}{again}: roll 1 die, +{missing} missing soldier(s), above {threshold} it retreats",
            u.name
        );
        if moot_roll {
            ctx.roll_moot(1, prompt, "panic", D6::SIX, "even a 6 holds")?;
            ctx.resolved(
                "panic",
                format!(
                    "{} holds{again}: with {missing} missing, no roll is above {threshold}",
                    u.name
                ),
            );
            if attempt < rerolls {
                attempt += 1;
                continue;
            }
            return Ok(true);
        }
        // The roll and what it came to ("3 + 4 = 7"), unless no roll holds.
        let rolled = if moot_fail {
            ctx.roll_moot(1, prompt, "panic", D6::ONE, "even a 1 fails")?;
            None
        } else {
            let d = ctx.roll_one(prompt, "panic")?;
            // A gun that rolls a 1 may misfire; a destroyed gun has no test left.
            if gun_misfires(ctx, &u, id, d)? {
                return Ok(true);
            }
            Some(d)
        };
        let mut held = rolled.is_some_and(|d| panic_holds(d, missing, threshold));
        let sum = rolled.map_or_else(
            || format!("with {missing} missing, no roll holds"),
            |d| format!("{d} + {missing} = {}", i32::from(d) + missing as i32),
        );
        if held {
            ctx.resolved("panic", format!("{} holds: {sum}", u.name));
        } else if let Some(why) = &fearless {
            let f = ctx.roll_one(
                format!(
                    "{} is Fearless ({why}): roll 1 die, an unmodified {target}+ holds",
                    u.name
                ),
                "panic",
            )?;
            if gun_misfires(ctx, &u, id, f)? {
                return Ok(true);
            }
            held = i32::from(f) >= target;
            ctx.resolved(
                "panic",
                format!(
                    "{} fails ({sum}) but is Fearless ({why}): {f} {}",
                    u.name,
                    if held { "holds" } else { "does not hold" }
                ),
            );
        } else {
            ctx.resolved("panic", format!("{} panics: {sum}", u.name));
        }
        if held && attempt < rerolls {
            attempt += 1;
            continue;
        }
        return Ok(held);
    }
}

/// The misfire check for a 1 that artillery rolled in its Panic Test: true
/// when it destroyed the gun.
fn gun_misfires(ctx: &mut Ctx, u: &Unit, id: UnitId, die: u8) -> Flow<bool> {
    if kind(u) != UnitKind::Artillery || die != 1 {
        return Ok(false);
    }
    misfire(ctx, id, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_threshold_is_strictly_above() {
        for (die, missing, holds) in [
            (6, 0, true),
            (1, 5, true),
            (2, 5, false),
            (6, 1, false),
            (4, 2, true),
        ] {
            assert_eq!(panic_holds(die, missing, 6), holds, "{die} + {missing}");
        }
    }
}
