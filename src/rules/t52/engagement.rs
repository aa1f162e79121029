//! Shooting engagements, melee, retreats, moves and Dangerous Terrain Tests.
//!
//! The dice maths lives in small pure functions (tested table-driven); the
//! procedures around them ask the table for exactly the dice each step needs.

use super::regiment::{BLACK_POWDER, MELEE_WEAPONS};
use super::{TerrainKind, UnitKind, kind, num, terrain_count, unit, yes_no};
use crate::rules::effect::Effect;
use crate::rules::procedure::{Choice, Ctx, Flow};
use crate::rules::state::{Unit, UnitId};
use crate::table::dice::count_dice;

/// Status flag: a black powder unit has fired this round.
pub const FIRED: &str = "fired";

/// Hits from `values` when each die must reach `need` (`need` at most 6).
pub fn plain_hits(values: &[u8], need: i32) -> u32 {
    values.iter().filter(|&&v| i32::from(v) >= need).count() as u32
}

/// Wounds from save dice: each die below `vulnerability` is a wound.
pub fn wounds_from(values: &[u8], vulnerability: i32) -> u32 {
    values
        .iter()
        .filter(|&&v| i32::from(v) < vulnerability)
        .count() as u32
}

/// The number a shooting die must reach: Inaccuracy plus every modifier
/// that applies (volley, defensible terrain, Skirmisher targets).
pub fn shooting_need(
    ctx: &Ctx,
    shooter: &Unit,
    target: &Unit,
    volley: bool,
    defensible: bool,
) -> (i32, String) {
    let mut need = shooter.stat("I");
    let mut why = vec![format!("I {need}")];
    if volley {
        let m = num(ctx, "volley_inaccuracy");
        need += m;
        why.push(format!("volley {m:+}"));
    }
    if defensible {
        let m = num(ctx, "defensible_inaccuracy");
        need += m;
        why.push(format!("defensible terrain {m:+}"));
    }
    let sk = target.upgrade_count("skirmisher") as i32;
    if sk > 0 {
        let m = num(ctx, "skirmisher_inaccuracy") * sk;
        need += m;
        why.push(format!("Skirmisher target {m:+}"));
    }
    (need, why.join(", "))
}

/// The number a melee die must reach: Inaccuracy, less for melee weapons.
pub fn melee_need(ctx: &Ctx, attacker: &Unit) -> (i32, String) {
    let mut need = attacker.stat("I");
    let mut why = vec![format!("I {need}")];
    if attacker.stat(MELEE_WEAPONS) > 0 {
        let m = num(ctx, "melee_weapon_inaccuracy");
        need += m;
        why.push(format!("melee weapons {m:+}"));
    }
    (need, why.join(", "))
}

/// True when the unit has a shooting attack available now: red (melee)
/// equipment never shoots, black powder only once per round.
pub fn can_shoot(u: &Unit) -> bool {
    u.in_play() && u.stat(MELEE_WEAPONS) == 0 && !(u.stat(BLACK_POWDER) > 0 && u.has(FIRED))
}

/// Why a unit in play has no shot now, in words.
pub fn no_shot_reason(u: &Unit) -> &'static str {
    if u.stat(MELEE_WEAPONS) > 0 {
        "it carries melee weapons"
    } else {
        "its black powder is spent this round"
    }
}

/// One side's attack, rolled: hits and what each hit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Strike {
    /// Hits scored.
    pub hits: u32,
    /// Wounds each unsaved hit causes (lump shot: 2, each unsavable).
    pub wounds_per_hit: u32,
    /// Hits that cannot be avoided with a Vulnerability roll.
    pub unsavable: bool,
}

/// What an attack roll scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hits {
    /// Hits that land.
    Landed(u32),
    /// Hits rolled, lost with a gun its misfire destroyed.
    LostWithGun(u32),
}

impl Hits {
    /// The hits that land.
    pub fn landed(self) -> u32 {
        match self {
            Hits::Landed(h) => h,
            Hits::LostWithGun(_) => 0,
        }
    }

    /// "3 hit(s)", or why rolled hits land none.
    fn said(self) -> String {
        match self {
            Hits::Landed(h) => format!("{h} hit(s)"),
            Hits::LostWithGun(h) => {
                format!("{h} hit(s) rolled, none land: the misfire destroyed the gun")
            }
        }
    }
}

/// Rolls `dice` attack dice needing `need`, with Improbable Hits above 6
/// and the artillery misfire check (a gun it destroys loses its attack).
pub fn roll_hits(
    ctx: &mut Ctx,
    attacker: UnitId,
    dice: u32,
    need: i32,
    label: &str,
    rule: &str,
) -> Flow<Hits> {
    let Some(u) = unit(ctx, attacker) else {
        return Ok(Hits::Landed(0));
    };
    let first_face = num(ctx, "improbable_first");
    let second = num(ctx, "improbable_second");
    let mut ones = 0;
    let hits = if need <= first_face {
        let pool = ctx.roll(
            dice,
            format!(
                "{label}: roll {}, hits on {}+",
                count_dice(dice),
                need.max(1)
            ),
            rule,
        )?;
        ones += pool.count_of(1);
        plain_hits(&pool.values(), need)
    } else {
        let pool = ctx.roll(
            dice,
            format!("{label}: roll {}, needs {need}+ so each {first_face} is only a chance (Improbable Hit)", count_dice(dice)),
            "improbable-hits",
        )?;
        ones += pool.count_of(1);
        let sixes = pool.count_of(first_face as u8) as u32;
        let pool2 = ctx.roll(
            sixes,
            format!(
                "{label}: Improbable Hits: roll {}, hits on {second}+",
                count_dice(sixes)
            ),
            "improbable-hits",
        )?;
        ones += pool2.count_of(1);
        let h = plain_hits(&pool2.values(), second);
        ctx.resolved(
            "improbable-hits",
            format!(
                "{}: needed {need}+, {sixes} unmodified {first_face}(s), {h} hit(s) on {second}+",
                u.name
            ),
        );
        h
    };
    if kind(&u) == UnitKind::Artillery && misfire(ctx, attacker, ones as u32)? {
        return Ok(Hits::LostWithGun(hits));
    }
    Ok(Hits::Landed(hits))
}

/// Artillery misfire: one more die for every 1 it rolled; a 1 on any of
/// them destroys the gun. Returns true when it was destroyed.
pub fn misfire(ctx: &mut Ctx, gun: UnitId, ones: u32) -> Flow<bool> {
    if ones == 0 {
        return Ok(false);
    }
    let name = ctx.state().unit_name(gun);
    let face = num(ctx, "misfire_face") as u8;
    let pool = ctx.roll(
        ones,
        format!(
            "Misfire check: {name} rolled {ones} one(s); roll {}, a {face} destroys it",
            count_dice(ones)
        ),
        "misfire",
    )?;
    if pool.count_of(face) > 0 {
        ctx.resolved("misfire", format!("{name} misfires and is destroyed"));
        ctx.apply(Effect::RemoveUnit {
            unit: gun,
            reason: "destroyed by a misfire".into(),
        });
        Ok(true)
    } else {
        ctx.resolved(
            "misfire",
            format!(
                "{name} rolled {} but the misfire did not confirm",
                if ones == 1 {
                    "a 1".to_string()
                } else {
                    format!("{ones} ones")
                }
            ),
        );
        Ok(false)
    }
}

/// Table facts about a unit being shot at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Facts {
    /// A cover card lies between it and the shooter.
    pub cover: bool,
    /// It stands wholly inside defensible terrain.
    pub defensible: bool,
}

/// Asks where the target stands, only for terrain kinds on the table (and
/// not about cover when `cover_matters` is false: a lump shot ignores it).
pub fn target_facts(
    ctx: &mut Ctx,
    target: UnitId,
    shooter: UnitId,
    cover_matters: bool,
) -> Flow<Facts> {
    let t = ctx.state().unit_name(target);
    let s = ctx.state().unit_name(shooter);
    let cover = if cover_matters && terrain_count(ctx, TerrainKind::Cover) > 0 {
        yes_no(
            ctx,
            format!("Is {t} in cover from {s} (a cover card between them)?"),
            "cover",
        )?
    } else {
        false
    };
    let defensible = if terrain_count(ctx, TerrainKind::Defensible) > 0 {
        yes_no(
            ctx,
            format!("Is {t} wholly inside defensible terrain?"),
            "defensible",
        )?
    } else {
        false
    };
    Ok(Facts { cover, defensible })
}

/// An artillery piece's choice of shot, "lump" or "canister"; `None` for
/// any other shooter.
fn artillery_mode(ctx: &mut Ctx, shooter: UnitId, label: &str) -> Flow<Option<String>> {
    let Some(s) = unit(ctx, shooter) else {
        return Ok(None);
    };
    if kind(&s) != UnitKind::Artillery {
        return Ok(None);
    }
    let lump = num(ctx, "lump_shot_dice");
    let can = num(ctx, "canister_dice");
    let range = num(ctx, "canister_range");
    let mode = ctx.choose(
        format!("{label}: {} fires lump shot or canister?", s.name),
        vec![
            Choice::new(
                "lump",
                format!("Lump shot ({lump} dice, any range, unsavable)"),
            ),
            Choice::new(
                "canister",
                format!("Canister ({can}d6 attacks, target within {range}\")"),
            ),
        ],
        Some("artillery"),
    )?;
    Ok(Some(mode))
}

/// In games begun with question order 1 or later, an artillery shooter's
/// mode, asked before the target's cover (see [`super::QUESTION_ORDER`]);
/// `None` otherwise (asked with the shot, as older games answered it).
fn mode_first(ctx: &mut Ctx, shooter: UnitId, label: &str) -> Flow<Option<String>> {
    if crate::rules::common::question_order(ctx) >= 1 {
        artillery_mode(ctx, shooter, label)
    } else {
        Ok(None)
    }
}

/// Rolls one shooting attack (not yet saved against). `mode`: an artillery
/// shooter's shot when already chosen (else asked here).
fn shooting_strike(
    ctx: &mut Ctx,
    shooter: UnitId,
    target: UnitId,
    volley: bool,
    facts: Facts,
    label: &str,
    mode: Option<String>,
) -> Flow<Strike> {
    let (Some(s), Some(t)) = (unit(ctx, shooter), unit(ctx, target)) else {
        return Ok(Strike::default());
    };
    let (need, why) = shooting_need(ctx, &s, &t, volley, facts.defensible);
    let rule = if volley { "volley" } else { "shooting" };
    if s.stat(BLACK_POWDER) > 0 {
        ctx.apply(Effect::SetStatus {
            unit: shooter,
            status: FIRED.into(),
            on: true,
        });
    }
    let mut strike = Strike {
        hits: 0,
        wounds_per_hit: 1,
        unsavable: false,
    };
    let dice = if kind(&s) == UnitKind::Artillery {
        let lump = num(ctx, "lump_shot_dice");
        let can = num(ctx, "canister_dice");
        let mode = match mode {
            Some(m) => m,
            None => artillery_mode(ctx, shooter, label)?.unwrap_or_default(),
        };
        if mode == "lump" {
            strike.wounds_per_hit = num(ctx, "lump_shot_wounds").max(1) as u32;
            strike.unsavable = true;
            lump.max(0) as u32
        } else {
            let pool = ctx.roll(
                can.max(0) as u32,
                format!(
                    "Canister: roll {can} dice; their total is how many attack dice {} throws",
                    s.name
                ),
                "artillery",
            )?;
            if misfire(ctx, shooter, pool.count_of(1) as u32)? {
                return Ok(Strike::default());
            }
            pool.total()
        }
    } else {
        s.soldiers.len() as u32
    };
    let hits = roll_hits(
        ctx,
        shooter,
        dice,
        need,
        &format!("{label}: {} shoots at {}", s.name, t.name),
        rule,
    )?;
    strike.hits = hits.landed();
    ctx.resolved(
        rule,
        format!(
            "{} shoots {}: {} needing {need}+ ({why}): {}",
            s.name,
            t.name,
            count_dice(dice),
            hits.said()
        ),
    );
    Ok(strike)
}

/// The target rolls against hits; returns the wounds it takes (not yet applied).
fn save(ctx: &mut Ctx, target: UnitId, strike: Strike, cover: bool, label: &str) -> Flow<u32> {
    let Some(t) = unit(ctx, target) else {
        return Ok(0);
    };
    // A unit already gone (a gun destroyed by its own misfire) rolls nothing.
    if strike.hits == 0 || !t.in_play() {
        return Ok(0);
    }
    if strike.unsavable {
        let w = strike.hits * strike.wounds_per_hit;
        ctx.resolved(
            "artillery",
            format!(
                "{}: {} lump shot hit(s), {w} wound(s), no Vulnerability roll",
                t.name, strike.hits
            ),
        );
        return Ok(w);
    }
    let mut v = t.stat("V");
    let mut why = format!("V {v}");
    if cover {
        let m = num(ctx, "cover_vulnerability");
        v += m;
        why.push_str(&format!(", cover {m:+}"));
    }
    let pool = ctx.roll(
        strike.hits,
        format!(
            "{} rolls {} for the hits taken from {label}, each below {v} is a wound",
            t.name,
            count_dice(strike.hits)
        ),
        "wounds",
    )?;
    let w = wounds_from(&pool.values(), v) * strike.wounds_per_hit;
    // Every 1 the gun rolls risks a misfire, its own saves included. A gun
    // gone that way still took the wounds its roll says: they count in the
    // engagement's tally (the enemy's shots did land). From question order
    // 3, a gun these wounds destroy anyway is not asked to check (audit
    // BA3).
    let doomed = crate::rules::common::question_order(ctx) >= 3 && w >= t.wounds_left();
    if kind(&t) == UnitKind::Artillery && !doomed {
        misfire(ctx, target, pool.count_of(1) as u32)?;
    }
    ctx.resolved(
        "wounds",
        format!(
            "{}: {} hit(s) against {why}: {w} wound(s)",
            t.name, strike.hits
        ),
    );
    Ok(w)
}

/// Puts wounds on a unit and says what is left.
fn apply_wounds(ctx: &mut Ctx, target: UnitId, wounds: u32) {
    // A gun its own misfire destroyed has nothing left to wound.
    if wounds == 0 || unit(ctx, target).is_none_or(|t| !t.in_play()) {
        return;
    }
    ctx.apply(Effect::Wound {
        unit: target,
        wounds,
    });
    if let Some(t) = unit(ctx, target) {
        let text = if t.in_play() && t.soldiers_at_start == 1 && t.wounds_per_soldier > 1 {
            // A lone figure with several wounds (a Toff) counts lives: "1
            // soldier left" read as if the wound did nothing.
            let left = t.wounds_per_soldier.saturating_sub(t.wounds());
            format!(
                "{} has {left} of {} lives left",
                t.name, t.wounds_per_soldier
            )
        } else if t.in_play() {
            format!("{} has {} soldier(s) left", t.name, t.soldiers.len())
        } else {
            format!("{} is wiped out", t.name)
        };
        ctx.resolved("wounds", text);
    }
}

/// How a shooting engagement is fought.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fire {
    /// The unit shooting first.
    pub shooter: UnitId,
    /// Its target.
    pub target: UnitId,
    /// Volley Fire! (-1 Inaccuracy).
    pub volley: bool,
    /// The target may fire back (false for Stand and Shoot).
    pub return_fire: bool,
    /// The loser retreats (false for Stand and Shoot: the charge goes on).
    pub loser_retreats: bool,
}

/// A shooting engagement: both sides roll to hit, then both roll against
/// the hits, then wounds land; whoever inflicted more wins, the loser retreats.
pub fn shooting_engagement(ctx: &mut Ctx, fire: Fire, label: &str) -> Flow<()> {
    let (Some(s), Some(t)) = (unit(ctx, fire.shooter), unit(ctx, fire.target)) else {
        return Ok(());
    };
    // A lump shot ignores cover: its mode comes first when the game's
    // question order allows (M6), and the cover question is left out.
    let mode_s = mode_first(ctx, fire.shooter, label)?;
    let lump = |m: &Option<String>| m.as_deref() == Some("lump");
    let facts_t = target_facts(ctx, fire.target, fire.shooter, !lump(&mode_s))?;
    let returns = fire.return_fire && can_shoot(&t) && {
        let reach = if kind(&t) == UnitKind::Artillery {
            "its guns reach any range".to_string()
        } else {
            format!("range {}\"", t.stat("R"))
        };
        yes_no(
            ctx,
            format!(
                "Return Fire: can {} shoot back at {} ({reach}, in sight)?",
                t.name, s.name
            ),
            "return-fire",
        )?
    };
    if fire.return_fire && !can_shoot(&t) {
        ctx.resolved(
            "return-fire",
            format!("{} cannot return fire: {}", t.name, no_shot_reason(&t)),
        );
    }
    let (mode_t, facts_s) = if returns {
        let mode_t = mode_first(ctx, fire.target, "Return Fire")?;
        let facts = target_facts(ctx, fire.shooter, fire.target, !lump(&mode_t))?;
        (mode_t, facts)
    } else {
        (None, Facts::default())
    };
    let strike_s = shooting_strike(
        ctx,
        fire.shooter,
        fire.target,
        fire.volley,
        facts_t,
        label,
        mode_s,
    )?;
    let strike_t = if returns {
        shooting_strike(
            ctx,
            fire.target,
            fire.shooter,
            false,
            facts_s,
            "Return Fire",
            mode_t,
        )?
    } else {
        Strike::default()
    };
    let on_t = save(ctx, fire.target, strike_s, facts_t.cover, label)?;
    let on_s = save(ctx, fire.shooter, strike_t, facts_s.cover, "Return Fire")?;
    apply_wounds(ctx, fire.target, on_t);
    apply_wounds(ctx, fire.shooter, on_s);
    // One-sided fire is said as such; an exchange says who won, or that
    // it was drawn and nobody retreats.
    let outcome = if !returns {
        format!("{} inflicted {on_t} wound(s) on {}", s.name, t.name)
    } else {
        let verdict = match (fire.loser_retreats, on_t.cmp(&on_s)) {
            (false, _) => String::new(),
            (true, std::cmp::Ordering::Equal) => ": a draw, nobody retreats".to_string(),
            (true, std::cmp::Ordering::Greater) => format!(": {} wins", s.name),
            (true, std::cmp::Ordering::Less) => format!(": {} wins", t.name),
        };
        format!(
            "{} inflicted {on_t} wound(s), {} inflicted {on_s}{verdict}",
            s.name, t.name
        )
    };
    ctx.resolved("shooting", outcome);
    if !fire.loser_retreats {
        return Ok(());
    }
    if on_t > on_s {
        retreat(ctx, fire.target, fire.shooter)?;
    } else if on_s > on_t {
        retreat(ctx, fire.shooter, fire.target)?;
    }
    Ok(())
}

/// One side's melee attacks and the other's Vulnerability rolls; wounds land.
fn melee_strike(ctx: &mut Ctx, attacker: UnitId, defender: UnitId) -> Flow<u32> {
    let (Some(a), Some(d)) = (unit(ctx, attacker), unit(ctx, defender)) else {
        return Ok(0);
    };
    if !a.in_play() || !d.in_play() {
        return Ok(0);
    }
    let dice = (a.stat("A").max(0) as u32) * a.soldiers.len() as u32;
    let (need, why) = melee_need(ctx, &a);
    let hits = roll_hits(
        ctx,
        attacker,
        dice,
        need,
        &format!("Melee: {} attacks {}", a.name, d.name),
        "melee",
    )?;
    ctx.resolved(
        "melee",
        format!(
            "{} attacks {}: {} needing {need}+ ({why}): {}",
            a.name,
            d.name,
            count_dice(dice),
            hits.said()
        ),
    );
    let hits = hits.landed();
    let strike = Strike {
        hits,
        wounds_per_hit: 1,
        unsavable: false,
    };
    let w = save(ctx, defender, strike, false, "Melee")?;
    apply_wounds(ctx, defender, w);
    Ok(w)
}

/// A melee: the charger strikes first, then the other side; more wounds
/// wins and the loser retreats; a draw starts a new melee. After every
/// `melee_max_repeats` draws in a row the players may leave the units locked
/// (units that cannot hurt each other would otherwise draw for ever).
pub fn melee(ctx: &mut Ctx, charger: UnitId, defender: UnitId) -> Flow<()> {
    let max = num(ctx, "melee_max_repeats").max(1);
    let mut bout = 0;
    loop {
        bout += 1;
        let on_d = melee_strike(ctx, charger, defender)?;
        let cn = ctx.state().unit_name(charger);
        let dn = ctx.state().unit_name(defender);
        if !unit(ctx, defender).is_some_and(|u| u.in_play()) {
            ctx.resolved("melee", format!("{cn} wins the melee: {dn} is destroyed"));
            return Ok(());
        }
        let on_c = melee_strike(ctx, defender, charger)?;
        if !unit(ctx, charger).is_some_and(|u| u.in_play()) {
            ctx.resolved("melee", format!("{dn} wins the melee: {cn} is destroyed"));
            return Ok(());
        }
        // A gun can destroy itself with its own strike (a misfire).
        if !unit(ctx, defender).is_some_and(|u| u.in_play()) {
            ctx.resolved("melee", format!("{cn} wins the melee: {dn} is destroyed"));
            return Ok(());
        }
        if on_d > on_c {
            ctx.resolved(
                "melee",
                format!("{cn} wins the melee, {on_d} wound(s) to {on_c}"),
            );
            return retreat(ctx, defender, charger);
        }
        if on_c > on_d {
            ctx.resolved(
                "melee",
                format!("{dn} wins the melee, {on_c} wound(s) to {on_d}"),
            );
            return retreat(ctx, charger, defender);
        }
        ctx.resolved(
            "melee",
            format!("Melee {bout} is a draw ({on_d} wound(s) each)"),
        );
        if bout % max == 0
            && ctx.choose(
                format!("{bout} melees in a row were drawn: fight another, or leave {cn} and {dn} locked?"),
                vec![
                    Choice::new("again", "Fight another melee"),
                    Choice::new("locked", "Leave them locked; separate them by hand"),
                ],
                Some("melee"),
            )? == "locked"
        {
            ctx.resolved(
                "melee",
                format!("After {bout} drawn melees {cn} and {dn} stay locked"),
            );
            return Ok(());
        }
    }
}

/// Retreat distance: the die plus 1" (by default) per missing soldier.
pub fn retreat_distance(die: u8, missing: u32, per_missing: i32) -> i32 {
    i32::from(die) + missing as i32 * per_missing
}

/// The loser moves straight away from `from` at least d6 + 1" per missing
/// soldier; crossing dangerous terrain or Followers means tests; touching the
/// table edge destroys it.
pub fn retreat(ctx: &mut Ctx, id: UnitId, from: UnitId) -> Flow<()> {
    let Some(u) = unit(ctx, id) else {
        return Ok(());
    };
    if !u.in_play() {
        return Ok(());
    }
    let enemy = ctx.state().unit_name(from);
    if kind(&u) == UnitKind::Artillery {
        ctx.resolved(
            "retreat",
            format!("{} never moves, so it holds its ground", u.name),
        );
        return Ok(());
    }
    record_move(ctx);
    let per = num(ctx, "retreat_per_missing");
    let d = ctx.roll_one(
        format!(
            "Retreat: roll 1 die for {}; it moves the roll + {per}\" per missing soldier ({} missing)",
            u.name,
            u.missing()
        ),
        "retreat",
    )?;
    let dist = retreat_distance(d, u.missing(), per);
    ctx.resolved(
        "retreat",
        format!(
            "{} retreats at least {dist}\" straight away from {enemy} ({d} + {} missing)",
            u.name,
            u.missing()
        ),
    );
    let what = ctx.choose(
        format!(
            "Move {} at least {dist}\" straight away from {enemy}: what did it cross?",
            u.name
        ),
        vec![
            Choice::new("clear", "Nothing: it moved clear"),
            Choice::new("crossed", "Dangerous terrain or Followers"),
            // The edge destroys it, so what it crossed on the way is moot.
            Choice::new("edge", "It touched the table edge (whatever it crossed)"),
        ],
        Some("retreat"),
    )?;
    match what.as_str() {
        "crossed" => {
            let n = ctx.number(
                format!(
                    "How many dangerous terrain pieces and Followers did {} cross?",
                    u.name
                ),
                1,
                20,
                Some("dangerous-terrain"),
            )?;
            dangerous_tests(ctx, id, n as u32)?;
        }
        "edge" => {
            ctx.resolved(
                "retreat",
                format!("{} touched the table edge and is obliterated", u.name),
            );
            ctx.apply(Effect::RemoveUnit {
                unit: id,
                reason: "touched the table edge".into(),
            });
        }
        _ => {}
    }
    Ok(())
}

/// Dangerous Terrain Tests, `times` of them: a die per soldier left, each 1
/// removes a soldier.
pub fn dangerous_tests(ctx: &mut Ctx, id: UnitId, times: u32) -> Flow<()> {
    for i in 1..=times {
        let Some(u) = unit(ctx, id) else {
            return Ok(());
        };
        if !u.in_play() {
            return Ok(());
        }
        let n = u.soldiers.len() as u32;
        let of = if times > 1 {
            format!(" ({i} of {times})")
        } else {
            String::new()
        };
        let pool = ctx.roll(
            n,
            format!(
                "Dangerous Terrain Test{of} for {}: roll {}, each 1 removes a soldier",
                u.name,
                count_dice(n)
            ),
            "dangerous-terrain",
        )?;
        let ones = pool.count_of(1) as u32;
        // The removal logs the soldiers lost; this line says why.
        let outcome = match ones {
            0 => format!("{} passes the Dangerous Terrain Test without loss", u.name),
            1 => format!("{} rolls a 1 in dangerous terrain", u.name),
            n => format!("{} rolls {n} ones in dangerous terrain", u.name),
        };
        ctx.resolved("dangerous-terrain", outcome);
        if ones > 0 {
            ctx.apply(Effect::RemoveSoldiers {
                unit: id,
                count: ones,
            });
        }
    }
    Ok(())
}

/// Counts the moves made (`Activity` in round.rs): after an activation in
/// which no unit moved or left the table, no objective marker can change.
pub const MOVES: &str = "t52:moves";

/// One more move made (a unit told to move, a retreat).
fn record_move(ctx: &mut Ctx) {
    let value = ctx.state().counter(MOVES) + 1;
    ctx.apply(Effect::SetCounter {
        key: MOVES.into(),
        value,
    });
}

/// A move of up to `inches`: tells the player how far, then asks how many
/// dangerous terrain pieces were crossed (only when there are any). When
/// the order lets its commanding Snob follow (`snob`), the Snob's crossings
/// are asked next and it takes its own tests.
pub fn move_unit(
    ctx: &mut Ctx,
    id: UnitId,
    inches: i32,
    what: &str,
    rule: &str,
    snob: Option<UnitId>,
) -> Flow<()> {
    let Some(u) = unit(ctx, id) else {
        return Ok(());
    };
    if !u.in_play() {
        return Ok(());
    }
    record_move(ctx);
    // Only a unit a commander ordered has one that may follow it, named
    // (a Toff orders too).
    let leader = snob.and_then(|c| unit(ctx, c)).filter(|c| c.in_play());
    let follower = leader.map_or_else(String::new, |c| format!(" ({} may follow)", c.name));
    let msg = format!("{what}{follower}: move {} up to {inches}\"", u.name);
    let pieces = terrain_count(ctx, TerrainKind::Dangerous);
    if pieces == 0 {
        ctx.confirm(msg, Some(rule))?;
        return Ok(());
    }
    let n = ctx.number(
        format!("{msg}, then enter how many dangerous terrain pieces it crossed (0 if it stayed put or crossed none)"),
        0,
        pieces as i64,
        Some("dangerous-terrain"),
    )?;
    dangerous_tests(ctx, id, n as u32)?;
    let Some(snob) = snob.filter(|&c| unit(ctx, c).is_some_and(|c| c.in_play())) else {
        return Ok(());
    };
    // A Snob that follows moves across the same table, so it tests too.
    let snob_name = ctx.state().unit_name(snob);
    let n = ctx.number(
        format!(
            "{snob_name} may follow {}: enter how many dangerous terrain pieces {snob_name} crossed (0 if it stayed put)",
            u.name
        ),
        0,
        pieces as i64,
        Some("dangerous-terrain"),
    )?;
    dangerous_tests(ctx, snob, n as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_dice_at_or_above_the_need() {
        let cases: [(&[u8], i32, u32); 5] = [
            (&[1, 2, 3, 4, 5, 6], 4, 3),
            (&[1, 2, 3, 4, 5, 6], 6, 1),
            (&[1, 1, 1], 1, 3),
            (&[6, 6], 0, 2),
            (&[5, 5, 3], 5, 2),
        ];
        for (dice, need, hits) in cases {
            assert_eq!(plain_hits(dice, need), hits, "{dice:?} {need}");
        }
    }

    #[test]
    fn wounds_are_dice_below_vulnerability() {
        let cases: [(&[u8], i32, u32); 5] = [
            (&[1, 2, 3, 4, 5, 6], 4, 3),
            (&[1, 2, 3, 4, 5, 6], 7, 6),
            (&[1, 1], 1, 0),
            (&[4, 5], 5, 1),
            (&[3, 3, 3], 3, 0),
        ];
        for (dice, v, w) in cases {
            assert_eq!(wounds_from(dice, v), w, "{dice:?} {v}");
        }
    }

    #[test]
    fn retreat_adds_an_inch_per_missing_soldier() {
        for (die, missing, per, dist) in [(3, 0, 1, 3), (1, 4, 1, 5), (6, 2, 2, 10)] {
            assert_eq!(retreat_distance(die, missing, per), dist);
        }
    }
}
