//! Procedures several games share.

use super::procedure::{Ctx, Flow};
use super::state::SideId;

/// Each side rolls one die; the highest wins; tied leaders re-roll among
/// themselves until one is left. Cites the rules entry `rule`.
pub fn roll_off(ctx: &mut Ctx, sides: &[SideId], rule: &str) -> Flow<SideId> {
    let mut contenders: Vec<SideId> = sides.to_vec();
    let mut attempt = 1;
    loop {
        if contenders.len() <= 1 {
            return Ok(contenders.first().copied().unwrap_or(0));
        }
        let mut best = 0;
        let mut leaders = Vec::new();
        for &side in &contenders {
            let name = ctx.state().side_name(side);
            let prompt = if attempt == 1 {
                format!("{name} rolls 1 die for {rule}")
            } else {
                format!("{name} re-rolls 1 die for {rule} (tie)")
            };
            let v = ctx.roll_one(prompt, rule)?;
            if v > best {
                best = v;
                leaders.clear();
            }
            if v == best {
                leaders.push(side);
            }
        }
        if let [winner] = leaders.as_slice() {
            let name = ctx.state().side_name(*winner);
            ctx.resolved(rule, format!("{name} wins the roll-off with {best}"));
            return Ok(*winner);
        }
        contenders = leaders;
        attempt += 1;
    }
}
