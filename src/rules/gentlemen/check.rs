//! Checks: a skill check (draw, Queens, Jokers, buying effects), checkless
//! actions, hits with their Armour Check, wounds, and the Rout Check.

use super::{
    AMMO_MAX, AP, ARMOUR, COMMANDED, CONCUSSION, GUARD, IMMOBILIZED, SUPPRESSED, deck_of,
    end_melees_of, melee_partners, num, other, set_melee, set_stat, set_status, stat, suit_stat,
    unit_choice, units_of, wounds, yes_no,
};
use crate::rules::ability::{Ability, AbilityOption, Condition, Reach, cost_text, pay, payments};
use crate::rules::effect::Effect;
use crate::rules::procedure::{AnswerError, Choice, Ctx, Flow, Interrupt, order_untracked_key};
use crate::rules::state::{DeckId, Outcome, SideId, UnitId};
use crate::table::{BackColour, Card, Joker, PhysicalCard, Rank, Suit};

/// Logs a result under `rule` without the rule's ruling, for lines the ruling
/// does not bear on (it would only repeat there).
fn noted(ctx: &mut Ctx, rule: &str, text: String) {
    ctx.apply(Effect::Resolved {
        rule: rule.to_string(),
        ruling: None,
        text,
    });
}

/// Stat counting an ability's uses in the current activation.
pub(crate) fn uses_key(a: &Ability) -> String {
    format!("uses:{}", a.id)
}

/// Stat holding the action points paid so far towards a checkless ability.
pub(crate) fn progress_key(a: &Ability) -> String {
    format!("paid:{}", a.id)
}

/// Cards a skill check draws before extra points and modifiers: the stat,
/// less one per earlier use this activation.
pub(crate) fn base_draw(ctx: &Ctx, unit: UnitId, a: &Ability, suit: Suit) -> i32 {
    DrawParts::of(ctx, unit, a, suit).total()
}

/// What a skill check's draw starts from, part by part, so the log can
/// show a sum that adds up.
struct DrawParts {
    /// The suit's stat.
    stat: i32,
    /// Lost for earlier uses this activation.
    reuse_loss: i32,
    /// Lost for riding without Mounted Training.
    riding_loss: i32,
    /// Lost for fighting with a fixed bayonet.
    bayonet_loss: i32,
}

impl DrawParts {
    fn of(ctx: &Ctx, unit: UnitId, a: &Ability, suit: Suit) -> DrawParts {
        // Uses counted by a stat (one punch per empty hand) carry no reuse loss.
        let uses = if a.uses_stat.is_some() {
            0
        } else {
            stat(ctx, unit, &uses_key(a))
        };
        let riding = matches!(suit, Suit::Hearts | Suit::Diamonds) && riding_untrained(ctx, unit);
        DrawParts {
            stat: stat(ctx, unit, suit_stat(suit)),
            reuse_loss: uses * num(ctx, "reuse_draw_loss"),
            riding_loss: if riding {
                num(ctx, "riding_penalty")
            } else {
                0
            },
            bayonet_loss: if a.bayonet {
                num(ctx, "bayonet_draw_loss")
            } else {
                0
            },
        }
    }

    /// The cards the parts come to (never fewer than none).
    fn total(&self) -> i32 {
        (self.stat - self.reuse_loss - self.riding_loss - self.bayonet_loss).max(0)
    }

    /// "3 from hearts, -1 used earlier this activation, -1 riding without
    /// Mounted Training".
    fn describe(&self, suit: Suit) -> String {
        let mut t = format!("{} from {}", self.stat, suit_stat(suit));
        if self.reuse_loss > 0 {
            t.push_str(&format!(
                ", -{} used earlier this activation",
                self.reuse_loss
            ));
        }
        if self.riding_loss > 0 {
            t.push_str(&format!(
                ", -{} riding without Mounted Training",
                self.riding_loss
            ));
        }
        if self.bayonet_loss > 0 {
            t.push_str(&format!(", -{} fixed bayonet", self.bayonet_loss));
        }
        t
    }
}

/// A unit riding its mount without Mounted Training (Hearts and Diamonds
/// draw less until it dismounts).
pub(crate) fn riding_untrained(ctx: &Ctx, unit: UnitId) -> bool {
    stat(ctx, unit, super::MOUNTED) > 0 && stat(ctx, unit, super::MOUNTED_TRAINING) <= 0
}

/// Action points a checkless ability needs: its icons, one more per earlier
/// use this activation.
pub(crate) fn checkless_cost(ctx: &Ctx, unit: UnitId, a: &Ability, icons: u32) -> i32 {
    icons as i32 + stat(ctx, unit, &uses_key(a))
}

fn spend(ctx: &mut Ctx, unit: UnitId, points: i32) {
    let left = (stat(ctx, unit, AP) - points).max(0);
    set_stat(ctx, unit, AP, left);
}

fn used(ctx: &mut Ctx, unit: UnitId, a: &Ability) {
    let k = uses_key(a);
    let n = stat(ctx, unit, &k) + 1;
    set_stat(ctx, unit, &k, n);
}

/// Spends one round of ammunition when the ability needs it.
fn spend_ammo(ctx: &mut Ctx, unit: UnitId, a: &Ability) {
    if let Some(k) = &a.ammo {
        let left = (stat(ctx, unit, k) - 1).max(0);
        set_stat(ctx, unit, k, left);
        let name = ctx.state().unit_name(unit);
        let max = stat(ctx, unit, AMMO_MAX).max(1);
        ctx.resolved(
            "ranged",
            format!("{name} fires a round ({left} of {max} loaded)"),
        );
    }
}

/// Cards drawn for one check, after Queens and the Big Joker.
pub(crate) struct Draw {
    /// Cards still in hand to pay with.
    pub hand: Vec<Card>,
    /// Every card drawn (they all go to the discard pile afterwards).
    pub all: Vec<Card>,
    /// The Big Joker came up and was not cancelled: the check fails.
    pub failed: bool,
}

/// Draws `n` cards for `side` (`what`: the draw question's words; `called`:
/// the check's name in a sentence, "Red's Rout Check"), offering each
/// Queen's redraw and, when `ace_cancels`, an Ace to cancel the Big Joker.
pub(crate) fn draw_check(
    ctx: &mut Ctx,
    side: SideId,
    n: u32,
    what: &str,
    called: &str,
    ace_cancels: bool,
) -> Flow<Draw> {
    let deck = deck_of(side);
    let player = ctx.state().side_name(side);
    let mut hand = ctx.draw_for(
        deck,
        n,
        format!("{player} draws {n} for {what}"),
        Some(what),
        Some("deck"),
    )?;
    let mut all = hand.clone();
    let mut offered = 0;
    let extra = num(ctx, "queen_extra_draw").max(0) as u32;
    while let Some(q) = hand
        .iter()
        .copied()
        .filter(|c| c.rank() == Some(Rank::Queen))
        .nth(offered)
    {
        if yes_no(
            ctx,
            format!("{player}: discard {q} to draw {extra} more?"),
            "queens",
        )? {
            if let Some(i) = hand.iter().position(|c| *c == q) {
                hand.remove(i);
            }
            // On the discard pile at once, as at the table (the decks panel
            // showed it only once the ability ended).
            if let Some(i) = all.iter().position(|c| *c == q) {
                all.remove(i);
            }
            discard(ctx, side, &[q]);
            // Says why the deck's next line holds more cards.
            ctx.resolved(
                "queens",
                format!("{player} discards {q} to draw {extra} more"),
            );
            let more = ctx.draw_for(
                deck,
                extra,
                format!("{player} draws {extra} for {q}"),
                Some(&format!("{what} ({q}'s redraw)")),
                Some("queens"),
            )?;
            hand.extend(more.iter().copied());
            all.extend(more);
        } else {
            // Said, so the log shows the redraw was offered (audit BQ Q4).
            ctx.resolved("queens", format!("{player} keeps {q}"));
            offered += 1;
        }
    }
    let big = Card::Joker(Joker::Red);
    let mut failed = false;
    if hand.contains(&big) {
        hand.retain(|c| *c != big);
        let mut aces: Vec<Card> = hand
            .iter()
            .copied()
            .filter(|c| c.rank() == Some(Rank::Ace))
            .collect();
        aces.dedup();
        // Each Ace is its own choice: which one goes matters for what is
        // left to pay with.
        let cancel = if aces.is_empty() || !ace_cancels {
            None
        } else {
            let mut options: Vec<Choice> = aces
                .iter()
                .map(|a| Choice::new(a.to_string(), format!("Discard {a}")))
                .collect();
            options.push(Choice::new("none", "Keep the Aces (the check fails)"));
            let picked = ctx.choose(
                format!("{player}: discard an Ace to cancel the Big Joker?"),
                options,
                Some("aces"),
            )?;
            aces.into_iter().find(|a| picked == a.to_string())
        };
        if let Some(a) = cancel {
            if let Some(i) = hand.iter().position(|c| *c == a) {
                hand.remove(i);
            }
            ctx.resolved("aces", format!("{player} cancels the Big Joker with {a}"));
        } else {
            failed = true;
            noted(ctx, "jokers", format!("Big Joker: {called} fails"));
        }
    }
    Ok(Draw { hand, all, failed })
}

/// Puts `cards` of `side`'s deck on its discard pile.
fn discard(ctx: &mut Ctx, side: SideId, cards: &[Card]) {
    let back = ctx
        .state()
        .sides
        .get(side)
        .and_then(|s| s.back)
        .unwrap_or(BackColour::Other);
    ctx.apply(Effect::DiscardCards {
        deck: deck_of(side),
        cards: cards
            .iter()
            .map(|&card| PhysicalCard { card, back })
            .collect(),
    });
}

/// Puts every drawn card on the discard pile, then lets the player use a
/// Joker's peek: the Little Joker allows a shuffle, the Big Joker a shuffle
/// or a new order for the top cards.
pub(crate) fn finish_draw(ctx: &mut Ctx, side: SideId, all: &[Card]) -> Flow<()> {
    let deck = deck_of(side);
    if all.is_empty() {
        return Ok(());
    }
    discard(ctx, side, all);
    let player = ctx.state().side_name(side);
    let peek = num(ctx, "joker_peek_cards").max(0) as usize;
    for joker in [Joker::Black, Joker::Red] {
        // Read after any earlier shuffle: the Little Joker's may have changed them.
        let top = top_cards(ctx, deck, peek);
        if !all.contains(&Card::Joker(joker)) {
            continue;
        }
        if top.is_empty() {
            // Said, not skipped without a word: the peek has nothing to show.
            let label = if joker == Joker::Red { "Big" } else { "Little" };
            ctx.resolved(
                "jokers",
                format!("{player}'s draw pile is empty: the {label} Joker has no cards to look at"),
            );
            continue;
        }
        let n = top.len();
        let mut options = vec![
            Choice::new("keep", "Leave them as they are"),
            Choice::new("shuffle", "Shuffle the deck"),
        ];
        if joker == Joker::Red {
            options.push(Choice::new("rearrange", "Put them back in a new order"));
        }
        let label = if joker == Joker::Red { "Big" } else { "Little" };
        let seen = if order_known(ctx, deck) {
            format!(": {} (top first)", card_list(&top))
        } else {
            String::new()
        };
        let picked = ctx.choose(
            format!("{player} ({label} Joker): look at the top {n} cards of your deck{seen}"),
            options,
            Some("jokers"),
        )?;
        // Said with the Joker that allowed it: the deck's own line ("is
        // shuffled") is read back without the question.
        let done = match picked.as_str() {
            "shuffle" => "shuffles the deck",
            "rearrange" => "puts them back in a new order",
            _ => "leaves them as they are",
        };
        ctx.resolved(
            "jokers",
            format!("{player} looks at the top {n} cards ({label} Joker) and {done}"),
        );
        match picked.as_str() {
            "shuffle" => ctx.apply(Effect::Shuffle { deck }),
            "rearrange" => {
                // Asked as cards of this deck, so the window greys out
                // and fades what is not in its draw pile (the card grid).
                let named = ctx.named_from_deck(
                    deck,
                    n as u32,
                    format!("{player}: name the top {n} cards in their new order, top first"),
                    Some("jokers"),
                )?;
                if let Some(problem) = restack_problem(ctx, deck, &top, &named) {
                    return Err(Interrupt::Invalid(AnswerError {
                        expected: format!("a new order of the top {n} cards"),
                        got: format!("cards [{}]", card_list(&named)),
                        problem: Some(problem),
                    }));
                }
                ctx.apply(Effect::Restack { deck, top: named });
            }
            _ => {}
        }
    }
    Ok(())
}

/// The top `n` cards of a deck's draw pile as Adjutant holds them, top first.
fn top_cards(ctx: &Ctx, deck: DeckId, n: usize) -> Vec<Card> {
    ctx.state().decks.get(deck).map_or_else(Vec::new, |d| {
        d.draw_pile.iter().rev().take(n).map(|c| c.card).collect()
    })
}

/// Whether Adjutant's pile order is the table's: every draw so far took
/// Adjutant's top cards (virtual draws, or a deck kept in Adjutant's order).
fn order_known(ctx: &Ctx, deck: DeckId) -> bool {
    ctx.state().counter(&order_untracked_key(deck)) == 0
}

fn card_list(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Why `named` is not a new order of the top cards: with a known pile order
/// it must be exactly `top` rearranged; otherwise different cards still in
/// the draw pile (the table saw its own top cards).
fn restack_problem(ctx: &Ctx, deck: DeckId, top: &[Card], named: &[Card]) -> Option<String> {
    if order_known(ctx, deck) {
        let mut want = top.to_vec();
        let mut got = named.to_vec();
        want.sort_unstable();
        got.sort_unstable();
        return (want != got).then(|| format!("the top cards are {}", card_list(top)));
    }
    let pile: Vec<Card> = ctx
        .state()
        .decks
        .get(deck)
        .map_or_else(Vec::new, |d| d.draw_pile.iter().map(|c| c.card).collect());
    for (i, c) in named.iter().enumerate() {
        if named[..i].contains(c) {
            return Some(format!("{c} is named twice"));
        }
        if !pile.contains(c) {
            return Some(format!("{c} is not in the draw pile"));
        }
    }
    None
}

/// A skill check: declare, draw, then buy effects with the cards.
pub fn skill_check(ctx: &mut Ctx, unit: UnitId, a: &Ability, suit: Suit) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let side = ctx.state().units[unit].side;
    // Worked out before this use counts as one.
    let draw_parts = DrawParts::of(ctx, unit, a, suit);
    let base = draw_parts.total();
    let parts = draw_parts.describe(suit);
    // From question order 1 the charge is declared once the draw's size is
    // known (after extra points and modifiers, still before the draw).
    let charge_last = crate::rules::common::question_order(ctx) >= 1;
    let charge = if a.dash && !charge_last {
        declare_charge(
            ctx,
            unit,
            &format!("{base} before extra points and modifiers"),
        )?
    } else {
        None
    };
    // The target comes first: range, cover, Block and Parry depend on it, and
    // every option bought hits it (a Multitarget ability asks again for each
    // option after the first).
    let target = if targets_someone(a) {
        pick_target(ctx, unit, a)?
    } else {
        None
    };
    // Nobody in reach for an ability that only acts on a target: it is not
    // used, and costs nothing (action, ammunition or use).
    if target.is_none() && charge.is_none() && a.options.iter().all(on_target) {
        ctx.resolved(
            "skill-check",
            format!(
                "{name}'s {}: {}, nothing spent",
                a.name,
                nobody_to_target(a).to_lowercase()
            ),
        );
        return Ok(());
    }
    spend(ctx, unit, num(ctx, "skill_check_action_cost"));
    spend_ammo(ctx, unit, a);
    used(ctx, unit, a);
    let ap = stat(ctx, unit, AP);
    let extra = if ap > 0 {
        ctx.number(
            format!("{name}: extra action points to spend on draws (declare before drawing)"),
            0,
            ap.into(),
            Some("skill-check"),
        )? as i32
    } else {
        0
    };
    spend(ctx, unit, extra);
    let m = num(ctx, "max_draw_modifier").max(0);
    let against = target.map_or_else(String::new, |t| {
        let on = if friendly(a) { "for" } else { "against" };
        format!(" {on} {}", ctx.state().unit_name(t))
    });
    // The question names whose draw help for one's own side is (audit BB
    // C5); the log line names the user already.
    let asked_for = match target {
        Some(t) if friendly(a) => format!(
            " for {} {} on {}",
            crate::rules::common::possessive(&ctx.state().unit_name(unit)),
            a.name,
            ctx.state().unit_name(t)
        ),
        _ => against.clone(),
    };
    // What can change the draw: a dash's own modifier, or the fight's.
    let reasons: std::borrow::Cow<str> = if a.dash && target.is_none() {
        "Mobility Drills".into()
    } else if friendly(a) {
        // Help for one's own side meets no Block, Parry or cover.
        "any rule or upgrade that changes this draw".into()
    } else {
        // Only what can touch this kind of attack (l.118-133, l.164-166):
        // cover and Stalk are for shots, Parry and charges for melee.
        // A charge bonus only follows a charge that reached this target
        // in this activation (Charge Defence: "when charged").
        let charged = target.is_some_and(|t| stat(ctx, unit, super::CHARGED) == t as i32 + 1);
        match (a.reach, charged) {
            // The optimal range said, so the penalty is a count, not a
            // lookup (audit BB C1).
            (Some(Reach::Ranged(x)), _) => format!(
                "cover, range past optimal (1 card fewer per hex beyond {x}), Block, Stalk"
            )
            .into(),
            (Some(Reach::Melee(_)), true) => {
                "Block, Parry, and the charge bonus of the charge that reached it this activation (Brutal Charge adds, its Charge Defence takes off, and 2 more for a charge across soft cover; the rulebook sets no base bonus)".into()
            }
            (Some(Reach::Melee(_)), false) => {
                "Block, Parry (no charge bonus: no charge reached this target this activation)".into()
            }
            _ => "cover, range past optimal, Block, Parry, charge bonus, Stalk".into(),
        }
    };
    // Cavalry Killer draws more against a mounted unit, whatever the attack
    // (l.120; audit BQ Q3).
    let mounted = target.is_some_and(|t| stat(ctx, t, super::MOUNTED) > 0);
    let reasons: std::borrow::Cow<str> = if mounted && !friendly(a) {
        format!("{reasons}, Cavalry Killer (the target is mounted)").into()
    } else {
        reasons
    };
    let modifier = ctx.number(
        format!(
            "Cards drawn more (+) or fewer (-){asked_for}: {reasons} (without them: {} card(s))",
            base + extra
        ),
        (-m).into(),
        m.into(),
        Some("skill-check"),
    )? as i32;
    let n = (base + extra + modifier).max(0) as u32;
    let charge = if a.dash && charge_last {
        declare_charge(ctx, unit, &n.to_string())?
    } else {
        charge
    };
    noted(
        ctx,
        "skill-check",
        format!(
            "{name} uses {} ({}){against}: draws {n} ({parts}, {extra:+} action points, {modifier:+} modifiers)",
            a.name,
            suit.symbol(),
        ),
    );
    let called = format!("{name}'s {}", a.name);
    let draw = draw_check(ctx, side, n, &called, &called, true)?;
    let aces = draw
        .all
        .iter()
        .filter(|c| c.rank() == Some(Rank::Ace))
        .count() as u32;
    let mut bought: Vec<usize> = Vec::new();
    if !draw.failed {
        let mut hand = draw.hand.clone();
        loop {
            // A target taken out of action takes no more effects (another
            // target may be picked only by a Multitarget ability).
            let target_gone = !a.multitarget
                && target.is_some_and(|t| ctx.state().units.get(t).is_none_or(|u| !u.in_play()));
            let open: Vec<usize> = (0..a.options.len())
                .filter(|&i| may_buy(a, &bought, i))
                .filter(|&i| !(target_gone && on_target(&a.options[i])))
                .filter(|&i| pay(&a.options[i].cost, &hand, &ctx.ruleset.cards).is_some())
                .collect();
            if open.is_empty() {
                break;
            }
            // A heal on a unit with no wounds buys nothing: said, not
            // hidden (saves that bought it still read; audit BB C6).
            let unhurt = target
                .and_then(|t| ctx.state().units.get(t))
                .filter(|u| u.wounds() == 0)
                .map(|u| u.name.clone());
            let mut options: Vec<Choice> = open
                .iter()
                .map(|&i| {
                    let o = &a.options[i];
                    let heals_only = !o.conditions.is_empty()
                        && o.conditions.iter().all(|c| matches!(c, Condition::Heal(_)));
                    let note = match &unhurt {
                        Some(n) if heals_only => format!(" ({n} has no wounds)"),
                        _ => String::new(),
                    };
                    Choice::new(
                        format!("o{i}"),
                        format!("{} [{}]{note}", o.label, cost_text(&o.cost)),
                    )
                })
                .collect();
            let none = if bought.is_empty() {
                "Buy nothing (the ability fails)"
            } else {
                "Done buying"
            };
            options.push(Choice::new("none", none));
            let cards: Vec<String> = hand.iter().map(|c| c.to_string()).collect();
            let picked = ctx.choose(
                format!(
                    "{name}'s {} with [{}]: buy an effect",
                    a.name,
                    cards.join(" ")
                ),
                options,
                Some("skill-check"),
            )?;
            let Some(&i) = open.iter().find(|&&i| picked == format!("o{i}")) else {
                break;
            };
            let option = a.options[i].clone();
            bought.push(i);
            let paid = choose_payment(ctx, a, &bought, &option, &hand)?;
            for j in paid.into_iter().rev() {
                hand.remove(j);
            }
            // The cost ruling (values, two of a suit) only bears on such costs.
            let text = format!("{name} buys {}", option.label);
            let suits: Vec<_> = option.cost.iter().map(|c| c.suit).collect();
            let repeated = (1..suits.len()).any(|k| suits[..k].contains(&suits[k]));
            if option.cost.iter().any(|c| c.min > 0) || repeated {
                ctx.resolved("skill-check", text);
            } else {
                noted(ctx, "skill-check", text);
            }
            // Multitarget: each option after the first may hit someone else.
            let hit = if a.multitarget && bought.len() > 1 && on_target(&option) {
                pick_target(ctx, unit, a)?
            } else {
                target
            };
            resolve(ctx, unit, a, &option, aces, hit)?;
            if ctx.state().outcome.is_some() {
                return Ok(());
            }
        }
    }
    if bought.is_empty() && !draw.failed {
        noted(ctx, "skill-check", format!("{name}'s {} fails", a.name));
    }
    finish_draw(ctx, side, &draw.all)?;
    // Moving is how a melee ends: after a move, each melee of the unit may
    // be over (both units out of each other's reach).
    if a.dash && !bought.is_empty() {
        // It moved this activation (a Heavy weapon may not be used now),
        // so what the table said of its reach is old.
        set_stat(ctx, unit, super::MOVED, 1);
        super::forget_apart(ctx, Some(unit));
        for p in melee_partners(ctx, unit) {
            leave_melee_question(ctx, unit, p)?;
        }
    }
    // From question order 3 a Dash that bought no movement (failed, or
    // nothing bought) moved nobody: its charge does not go in, and where it
    // ended is not asked (l.59 "ends the movement adjacent"; audit CH H1).
    let moved = !bought.is_empty() || crate::rules::common::question_order(ctx) < 3;
    if let Some(target) = charge
        && ctx.state().units.get(target).is_some_and(|u| u.in_play())
    {
        if moved {
            charge_outcome(ctx, unit, target)?;
        } else {
            let t = ctx.state().unit_name(target);
            ctx.resolved(
                "movement-charge",
                format!("{name} did not move: the charge at {t} does not go in"),
            );
        }
    }
    Ok(())
}

/// The cards (indices in `hand`, ascending) that pay for `option`, just
/// added to `bought`. When different cards would leave different effects
/// still buyable, the player picks; otherwise the cheapest way is used.
fn choose_payment(
    ctx: &mut Ctx,
    a: &Ability,
    bought: &[usize],
    option: &AbilityOption,
    hand: &[Card],
) -> Flow<Vec<usize>> {
    let cards = &ctx.ruleset.cards;
    let ways = payments(&option.cost, hand, cards);
    // For each way, the options its leftover cards could still buy.
    let mut choices: Vec<(Vec<usize>, Vec<usize>)> = Vec::new();
    for way in ways {
        let left: Vec<Card> = (0..hand.len())
            .filter(|j| !way.contains(j))
            .map(|j| hand[j])
            .collect();
        let keeps: Vec<usize> = (0..a.options.len())
            .filter(|&j| may_buy(a, bought, j))
            .filter(|&j| pay(&a.options[j].cost, &left, cards).is_some())
            .collect();
        if !choices.iter().any(|(_, k)| *k == keeps) {
            choices.push((way, keeps));
        }
    }
    if choices.len() <= 1 {
        return Ok(choices.pop().map(|(w, _)| w).unwrap_or_default());
    }
    let options: Vec<Choice> = choices
        .iter()
        .enumerate()
        .map(|(k, (way, keeps))| {
            let spent: Vec<Card> = way.iter().map(|&j| hand[j]).collect();
            let still: Vec<&str> = keeps.iter().map(|&j| a.options[j].label.as_str()).collect();
            let still = if still.is_empty() {
                "nothing more".to_string()
            } else {
                still.join(", ")
            };
            Choice::new(
                format!("pay{k}"),
                format!("Pay with {} (can still buy: {still})", card_list(&spent)),
            )
        })
        .collect();
    let picked = ctx.choose(
        format!("{}: which cards pay for it?", option.label),
        options,
        Some("skill-check"),
    )?;
    let k = (0..choices.len())
        .find(|k| picked == format!("pay{k}"))
        .unwrap_or(0);
    Ok(choices.swap_remove(k).0)
}

/// Whether option `i` may still be bought after `bought`: one option only,
/// unless Multichoice (different ones) or Repeatable (the same again).
fn may_buy(a: &Ability, bought: &[usize], i: usize) -> bool {
    if bought.is_empty() {
        return true;
    }
    let again = bought.contains(&i);
    match (a.multichoice, a.repeatable) {
        (true, true) => true,
        (true, false) => !again,
        (false, true) => again,
        (false, false) => false,
    }
}

/// A checkless action: pay action points towards it; when paid in full its
/// first option happens.
pub fn checkless(ctx: &mut Ctx, unit: UnitId, a: &Ability, icons: u32) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let need = checkless_cost(ctx, unit, a, icons);
    let key = progress_key(a);
    let paid = stat(ctx, unit, &key);
    let ap = stat(ctx, unit, AP);
    let most = (need - paid).min(ap).max(1);
    let points = if most == 1 {
        1
    } else {
        ctx.number(
            format!(
                "{name}: action points to put into {} ({paid} of {need} paid)",
                a.name
            ),
            1,
            most.into(),
            Some("checkless-action"),
        )? as i32
    };
    spend(ctx, unit, points);
    let paid = paid + points;
    if paid < need {
        set_stat(ctx, unit, &key, paid);
        ctx.resolved(
            "checkless-action",
            format!(
                "{name} puts {points} point(s) into {} ({paid} of {need})",
                a.name
            ),
        );
        return Ok(());
    }
    set_stat(ctx, unit, &key, 0);
    used(ctx, unit, a);
    spend_ammo(ctx, unit, a);
    ctx.resolved("checkless-action", format!("{name} completes {}", a.name));
    if let Some(option) = a.options.first().cloned() {
        let target = if on_target(&option) {
            pick_target(ctx, unit, a)?
        } else {
            None
        };
        resolve(ctx, unit, a, &option, 0, target)?;
    }
    Ok(())
}

/// Whether an option acts on a target (anything but loading the user's
/// weapon or looking at its deck).
fn on_target(o: &AbilityOption) -> bool {
    o.wounds > 0 || o.conditions.iter().any(|c| !c.on_user())
}

/// Whether any of the ability's options acts on a target.
fn targets_someone(a: &Ability) -> bool {
    a.options.iter().any(on_target)
}

/// Whether the ability aids its own side (support, healing, commanding).
fn friendly(a: &Ability) -> bool {
    matches!(a.reach, Some(Reach::Support(_)))
        || a.options.iter().any(|o| {
            o.conditions
                .iter()
                .any(|c| matches!(c, Condition::Heal(_) | Condition::Commanded(_)))
        })
}

/// Asks whether a dashing unit declares a charge, and at whom: only at an
/// enemy within as many hexes as the cards it will draw (`reach` says how
/// many, l.57).
fn declare_charge(ctx: &mut Ctx, unit: UnitId, reach: &str) -> Flow<Option<UnitId>> {
    let name = ctx.state().unit_name(unit);
    let enemies = units_of(ctx, other(ctx.state().units[unit].side));
    let charge = super::super::common::pick(
        ctx,
        &format!(
            "{name}: declare a charge before drawing? (only at an enemy within as many hexes as the cards you will draw: {reach})"
        ),
        &enemies,
        unit_choice,
        Some("No charge"),
        "movement-charge",
    )?;
    if let Some(t) = charge {
        let t = ctx.state().unit_name(t);
        ctx.resolved(
            "movement-charge",
            format!("{name} declares a charge at {t}"),
        );
    }
    Ok(charge)
}

/// Asks who the ability is used on: a unit of the user's side for friendly
/// abilities, an enemy otherwise.
fn pick_target(ctx: &mut Ctx, user: UnitId, a: &Ability) -> Flow<Option<UnitId>> {
    let side = ctx.state().units[user].side;
    let friendly = friendly(a);
    let mut targets = units_of(ctx, if friendly { side } else { other(side) });
    // A unit the table has just said is out of melee reach is not offered
    // for a melee ability.
    if matches!(a.reach, Some(Reach::Melee(_))) {
        targets.retain(|&t| !super::apart(ctx, user, t));
    }
    let name = ctx.state().unit_name(user);
    super::super::common::pick(
        ctx,
        &format!("{name}'s {}: on whom?", a.name),
        &targets,
        unit_choice,
        Some(&format!("{} (nothing spent)", nobody_to_target(a))),
        "skill-check",
    )
}

/// Why an ability goes unused for want of a target, as its reach has it: a
/// ranged attack may aim at anyone it can see (l.47, l.166), the others
/// only within their hexes.
fn nobody_to_target(a: &Ability) -> String {
    let within = |hexes: u32| {
        let s = if hexes == 1 { "" } else { "es" };
        format!("Nobody within {hexes} hex{s}")
    };
    match a.reach {
        Some(Reach::Ranged(_)) => "No target in sight".into(),
        Some(Reach::Melee(h)) | Some(Reach::Support(h)) => within(h),
        None => "Nobody to use it on".into(),
    }
}

/// What a bought option does: to its user (loading) and to the target
/// named before the draw (wounds, healing, conditions), with the target's
/// Armour Check against harm.
fn resolve(
    ctx: &mut Ctx,
    user: UnitId,
    a: &Ability,
    o: &AbilityOption,
    aces: u32,
    target: Option<UnitId>,
) -> Flow<()> {
    for c in &o.conditions {
        match *c {
            Condition::Load(n) => load(ctx, user, a, n),
            Condition::Reveal(n) => {
                let name = ctx.state().unit_name(user);
                let side = ctx.state().side_name(ctx.state().units[user].side);
                ctx.resolved(
                    "effects",
                    format!("{name}: {side} looks at the top {n} card(s) of the deck, then puts them back in the same order"),
                );
            }
            _ => {}
        }
    }
    if !on_target(o) {
        return Ok(());
    }
    let friendly = friendly(a);
    let Some(target) = target.filter(|&t| ctx.state().units.get(t).is_some_and(|u| u.in_play()))
    else {
        let name = ctx.state().unit_name(user);
        noted(
            ctx,
            "skill-check",
            format!("{name}'s {}: nobody to take it", o.label),
        );
        return Ok(());
    };
    let (mut hurt, mut affect) = (true, true);
    if !friendly {
        let pierce = o.pierce * num(ctx, "armour_pierce_per_symbol").max(0) as u32
            + aces * num(ctx, "ace_armour_pierce").max(0) as u32;
        (hurt, affect) = armour_check(ctx, target, pierce)?;
        // A melee hit (armour or not) starts a melee between the two.
        if matches!(a.reach, Some(Reach::Melee(_))) {
            if !melee_partners(ctx, user).contains(&target) {
                let (n, t) = (ctx.state().unit_name(user), ctx.state().unit_name(target));
                ctx.resolved("melee", format!("{n} and {t} are in melee"));
            }
            set_melee(ctx, user, target, true);
        }
    }
    if hurt && o.wounds > 0 {
        wound(ctx, target, o.wounds);
    }
    if affect && ctx.state().units.get(target).is_some_and(|u| u.in_play()) {
        for c in &o.conditions {
            condition(ctx, target, *c);
        }
        // A knockback moves the target: any melee it is in may end.
        if o.conditions
            .iter()
            .any(|c| matches!(c, Condition::Knockback(_)))
        {
            for partner in melee_partners(ctx, target) {
                leave_melee_question(ctx, target, partner)?;
            }
        }
    }
    Ok(())
}

/// Asks whether two units in melee are now out of each other's melee reach
/// (after a move or a knockback); if so their melee ends for both.
fn leave_melee_question(ctx: &mut Ctx, a: UnitId, b: UnitId) -> Flow<()> {
    let (an, bn) = (ctx.state().unit_name(a), ctx.state().unit_name(b));
    if yes_no(
        ctx,
        format!("Are {an} and {bn} now out of each other's melee reach?"),
        "melee",
    )? {
        set_melee(ctx, a, b, false);
        super::set_apart(ctx, a, b);
        ctx.resolved("melee", format!("{an} and {bn} are out of melee"));
    } else {
        // Either answer is said, so the log shows the melee goes on
        // (audit CH H4).
        ctx.resolved("melee", format!("{an} and {bn} are still in melee"));
    }
    Ok(())
}

/// Whether `a` only loads the unit's weapon and the weapon is already full
/// (then it is not offered: it would spend points for nothing).
pub(crate) fn loads_full_weapon(ctx: &Ctx, unit: UnitId, a: &Ability) -> bool {
    let loads = |o: &AbilityOption| o.conditions.iter().any(|c| matches!(c, Condition::Load(_)));
    !targets_someone(a)
        && a.options.iter().all(loads)
        && stat(ctx, unit, &ammo_key(a)) >= stat(ctx, unit, AMMO_MAX).max(1)
}

/// The ammunition stat a loading ability fills.
fn ammo_key(a: &Ability) -> String {
    a.ammo.clone().unwrap_or_else(|| super::AMMO.to_string())
}

fn load(ctx: &mut Ctx, unit: UnitId, a: &Ability, n: u32) {
    let key = ammo_key(a);
    let max = stat(ctx, unit, AMMO_MAX).max(1);
    let now = (stat(ctx, unit, &key) + n as i32).min(max);
    set_stat(ctx, unit, &key, now);
    let name = ctx.state().unit_name(unit);
    ctx.resolved(
        "checkless-action",
        format!("{name} is loaded ({now} of {max})"),
    );
}

/// Leaves condition `c` on `target` and says what it does.
fn condition(ctx: &mut Ctx, target: UnitId, c: Condition) {
    let t = ctx.state().unit_name(target);
    let said = match c {
        Condition::Concussion(n) => {
            let v = stat(ctx, target, CONCUSSION)
                + n as i32 * num(ctx, "concussion_actions_per_symbol");
            set_stat(ctx, target, CONCUSSION, v);
            format!("{t} is concussed: -{v} action point(s) next activation")
        }
        Condition::Immobilize => {
            set_status(ctx, target, IMMOBILIZED, true);
            format!("{t} is immobilized: no dashing until its activation ends")
        }
        Condition::Suppressed => {
            set_status(ctx, target, SUPPRESSED, true);
            format!("{t} is suppressed: it may not be its side's next activation")
        }
        Condition::Knockback(n) => {
            let hexes = n as i32 * num(ctx, "knockback_hexes");
            format!("Knockback: move {t} {hexes} hex(es) directly away")
        }
        Condition::Commanded(n) => {
            let v = stat(ctx, target, COMMANDED) + n as i32;
            set_stat(ctx, target, COMMANDED, v);
            format!("{t} is commanded: +{v} action point(s) if activated next")
        }
        Condition::Heal(n) => {
            let (w, _) = wounds(ctx, target);
            let n = n.min(w);
            if n > 0 {
                ctx.apply(Effect::Heal {
                    unit: target,
                    wounds: n,
                });
            }
            return;
        }
        Condition::Load(_) | Condition::Reveal(_) => return,
    };
    ctx.resolved("effects", said);
}

/// The target's Armour Check: one card per un-pierced armour point; one
/// spade cancels the wounds, two cancel wounds and effects. Returns
/// (wounds land, effects land).
pub fn armour_check(ctx: &mut Ctx, target: UnitId, pierce: u32) -> Flow<(bool, bool)> {
    let t = ctx.state().unit_name(target);
    let armour = stat(ctx, target, ARMOUR).max(0) as u32;
    let left = armour.saturating_sub(pierce);
    if armour == 0 {
        return Ok((true, true));
    }
    if left == 0 {
        ctx.resolved(
            "armour-check",
            format!("{t}'s armour is pierced: no Armour Check"),
        );
        return Ok((true, true));
    }
    let n = left * num(ctx, "armour_cards_per_point").max(1) as u32;
    let side = ctx.state().units[target].side;
    let called = format!("{t}'s Armour Check");
    let draw = draw_check(ctx, side, n, &called, &called, true)?;
    let spades = if draw.failed {
        0
    } else {
        draw.hand
            .iter()
            .filter(|&&c| ctx.ruleset.cards.counts_as(c, Suit::Spades))
            .count() as i32
    };
    let result = if spades >= num(ctx, "armour_deflect_spades") {
        ctx.resolved(
            "armour-check",
            format!("{t}'s armour deflects the attack ({spades} spade(s))"),
        );
        (false, false)
    } else if spades >= num(ctx, "armour_ignore_wounds_spades") {
        ctx.resolved(
            "armour-check",
            format!("{t}'s armour stops the wounds ({spades} spade)"),
        );
        (false, true)
    } else {
        // The Big Joker's line said it already (audit BB C3).
        if !draw.failed {
            ctx.resolved("armour-check", format!("{t}'s Armour Check fails"));
        }
        (true, true)
    };
    finish_draw(ctx, side, &draw.all)?;
    Ok(result)
}

/// Wounds stop at Spades (Death's Door); a wound at Death's Door takes the
/// unit out of action. The rest of one hit's wounds stop there too, unless
/// the ruleset's `hit_wounds_past_deaths_door` is 1 (l.61 read per wound).
pub fn wound(ctx: &mut Ctx, unit: UnitId, n: u32) {
    let (w, s) = wounds(ctx, unit);
    let name = ctx.state().unit_name(unit);
    // Out of action: already at Death's Door, or (house rule) carried past it.
    let out = if w >= s {
        Some(format!("{name} was at Death's Door: out of action"))
    } else if w + n > s && num(ctx, "hit_wounds_past_deaths_door") > 0 {
        Some(format!(
            "{name} reaches Death's Door and the hit's next wound takes it out of action"
        ))
    } else {
        None
    };
    if let Some(said) = out {
        // One wound past Spades takes it out (l.61).
        ctx.apply(Effect::Wound {
            unit,
            wounds: (s + 1).saturating_sub(w).max(1),
        });
        end_melees_of(ctx, unit);
        ctx.resolved("wounds", said);
        return;
    }
    let add = n.min(s - w);
    ctx.apply(Effect::Wound { unit, wounds: add });
    if w + add >= s {
        // Say where the rest of the hit's wounds went.
        let stopped = match n - add {
            0 => String::new(),
            1 => " (the hit's 1 other wound stops there)".to_string(),
            k => format!(" (the hit's {k} other wounds stop there)"),
        };
        ctx.resolved("wounds", format!("{name} is at Death's Door{stopped}"));
    }
}

/// Where a declared charge ended: next to its target, short of it, or
/// stopped by an enemy unit with Guard that intercepts it (the charger then
/// counts as charging the interceptor).
fn charge_outcome(ctx: &mut Ctx, unit: UnitId, target: UnitId) -> Flow<()> {
    let name = ctx.state().unit_name(unit);
    let t = ctx.state().unit_name(target);
    let side = ctx.state().units[unit].side;
    // Only units with Guard (x) intercept; the players judge the range.
    let guards: Vec<UnitId> = units_of(ctx, other(side))
        .into_iter()
        .filter(|&g| g != target && stat(ctx, g, GUARD) > 0)
        .collect();
    let mut options = vec![
        Choice::new("yes", format!("Next to {t}: the charge reaches")),
        Choice::new("no", format!("Short of {t}")),
    ];
    for &g in &guards {
        options.push(Choice::new(
            format!("guard-{g}"),
            format!(
                "Intercepted by {} (Guard {}; the defender chose where it stopped)",
                ctx.state().unit_name(g),
                stat(ctx, g, GUARD)
            ),
        ));
    }
    let picked = ctx.choose(
        format!("Where did {name}'s charge at {t} end?"),
        options,
        Some("movement-charge"),
    )?;
    // Melee itself starts only when a melee attack hits.
    if picked == "yes" {
        set_stat(ctx, unit, super::CHARGED, target as i32 + 1);
        ctx.resolved("movement-charge", format!("{name}'s charge reaches {t}"));
    } else if let Some(g) = guards
        .iter()
        .copied()
        .find(|g| picked == format!("guard-{g}"))
    {
        let guard = ctx.state().unit_name(g);
        set_stat(ctx, unit, super::CHARGED, g as i32 + 1);
        // The guard moves in "to initiate melee": the two are in melee at
        // once, without waiting for a hit.
        super::set_melee(ctx, unit, g, true);
        ctx.resolved(
            "guard",
            format!(
                "{guard} intercepts {name}'s charge and the two are in melee: {name} counts as charging {guard}; other Guards within reach may join"
            ),
        );
    } else {
        ctx.resolved(
            "movement-charge",
            format!("{name}'s charge falls short of {t}"),
        );
    }
    Ok(())
}

/// A side with half or more of its units out of action tests at the start
/// of the turn: draw 3, one fewer per unit lost since its first test; any
/// club passes, no cards or the Big Joker fails and the side flees.
pub fn rout_check(ctx: &mut Ctx, side: SideId) -> Flow<()> {
    let total = ctx.state().units.iter().filter(|u| u.side == side).count() as i64;
    let lost = total - units_of(ctx, side).len() as i64;
    let (n, d) = (
        ctx.ruleset.number("rout_threshold_num"),
        ctx.ruleset.number("rout_threshold_den").max(1),
    );
    if lost == 0 || lost * d < total * n {
        return Ok(());
    }
    let key = format!("rout-first-lost:{side}");
    let first = match ctx.state().counter(&key) {
        0 => {
            ctx.apply(Effect::SetCounter {
                key: key.clone(),
                value: lost + 1,
            });
            lost
        }
        v => v - 1,
    };
    let cards = ctx.ruleset.number("rout_draw")
        - (lost - first) * ctx.ruleset.number("rout_draw_loss_per_unit");
    let name = ctx.state().side_name(side);
    let passed = if cards <= 0 {
        ctx.resolved(
            "rout-check",
            format!("{name} has no cards left to draw for its Rout Check"),
        );
        false
    } else {
        let draw = draw_check(
            ctx,
            side,
            cards as u32,
            "the Rout Check (any club passes, Jacks and Kings too)",
            &format!("{} Rout Check", crate::rules::common::possessive(&name)),
            // The Big Joker fails a Rout Check (CLARIFICATIONS l.40-41):
            // no Ace cancels it there, from question order 2 (audit BQ Q1).
            crate::rules::common::question_order(ctx) < 2,
        )?;
        let clubs = if draw.failed {
            0
        } else {
            draw.hand
                .iter()
                .filter(|&&c| ctx.ruleset.cards.counts_as(c, Suit::Clubs))
                .count() as i32
        };
        let passed = clubs >= num(ctx, "rout_pass_clubs");
        // A failed Rout Check ends the game: from question order 3 a Joker
        // in it asks for no peek at cards nobody will draw (audit CH H2).
        if passed || crate::rules::common::question_order(ctx) < 3 {
            finish_draw(ctx, side, &draw.all)?;
        } else {
            discard(ctx, side, &draw.all);
        }
        passed
    };
    if passed {
        let need = match num(ctx, "rout_pass_clubs") {
            n if n <= 1 => "a club".to_string(),
            n => format!("{n} clubs"),
        };
        ctx.resolved(
            "rout-check",
            format!("{name} passes its Rout Check ({cards} card(s), {need})"),
        );
        return Ok(());
    }
    let reason = format!("{name} fails its Rout Check and flees");
    ctx.end_game(
        "rout-check",
        Outcome {
            winner: Some(other(side)),
            reason,
        },
    );
    Ok(())
}
