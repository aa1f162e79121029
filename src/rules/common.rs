//! Procedures several games share.

use super::effect::Effect;
use super::procedure::{Answer, Choice, Ctx, Flow, Settled};
use super::state::{GameState, SideId, UnitId};

/// A yes/no question about the table.
pub fn yes_no(ctx: &mut Ctx, prompt: impl Into<String>, rule: &str) -> Flow<bool> {
    let a = ctx.choose(
        prompt,
        vec![Choice::new("yes", "Yes"), Choice::new("no", "No")],
        Some(rule),
    )?;
    Ok(a == "yes")
}

/// A yes/no question whose answer the game's state may already settle
/// (`settled`: the answer and why), which the window then takes by itself;
/// a script may still answer it either way.
pub fn yes_no_settled(
    ctx: &mut Ctx,
    prompt: impl Into<String>,
    rule: &str,
    settled: Option<(bool, &str)>,
) -> Flow<bool> {
    let settled = settled.map(|(yes, why)| {
        let id = if yes { "yes" } else { "no" };
        Settled::new(Answer::Choice(id.into()), why)
    });
    let a = ctx.choose_settled(
        prompt,
        vec![Choice::new("yes", "Yes"), Choice::new("no", "No")],
        Some(rule),
        settled,
    )?;
    Ok(a == "yes")
}

/// A yes/no question that the situation may have made moot (`moot` is the
/// one answer left, saying why): then it is still asked, as older saves
/// answered it, but with that one option, which the window takes by itself;
/// an older "yes" or "no" there reads as it. False when moot.
pub fn yes_no_unless_moot(
    ctx: &mut Ctx,
    prompt: impl Into<String>,
    rule: &str,
    moot: Option<&str>,
) -> Flow<bool> {
    let Some(only) = moot else {
        return yes_no(ctx, prompt, rule);
    };
    let only = Choice::new("moot", only).formerly("yes").formerly("no");
    ctx.choose(prompt, vec![only], Some(rule))?;
    Ok(false)
}

/// "Stop the game here" sits among everyday choices: one stray click should
/// not end a game, so it is confirmed. True when the players stop.
pub fn confirm_stop(ctx: &mut Ctx, how: &str, rule: &str) -> Flow<bool> {
    let a = ctx.choose(
        format!("Stop the game now? {how}"),
        vec![
            Choice::new("stop", "Stop the game"),
            Choice::new("on", "Go on playing"),
        ],
        Some(rule),
    )?;
    Ok(a == "stop")
}

/// A named number from the ruleset as an `i32`.
pub fn num(ctx: &Ctx, key: &str) -> i32 {
    ctx.ruleset.number(key) as i32
}

/// Asks the table to pick one of `items` (each shown as `choice` makes it),
/// with a "none" option labelled `none` when given. Nothing is asked when
/// there is nothing to pick.
pub fn pick<T: Copy>(
    ctx: &mut Ctx,
    prompt: &str,
    items: &[T],
    choice: impl Fn(&Ctx, T) -> Choice,
    none: Option<&str>,
    rule: &str,
) -> Flow<Option<T>> {
    if items.is_empty() {
        return Ok(None);
    }
    let options: Vec<Choice> = items.iter().map(|&i| choice(ctx, i)).collect();
    let mut shown = options.clone();
    if let Some(n) = none {
        shown.push(Choice::new("none", n));
    }
    let picked = ctx.choose(prompt, shown, Some(rule))?;
    Ok(items
        .iter()
        .zip(&options)
        .find(|(_, o)| o.id == picked)
        .map(|(i, _)| *i))
}

/// Logs every problem of a refused setup (the game is then not played).
pub fn refuse_setup(ctx: &mut Ctx, rule: &str, errors: Vec<String>) {
    for e in errors {
        ctx.resolved(rule, format!("{SETUP_REFUSED}{e}"));
    }
}

/// How a refused setup's log lines begin (see [`refuse_setup`]).
pub const SETUP_REFUSED: &str = "Setup refused: ";

/// Counter holding the order of questions a game was begun with (a game's
/// setup `question_order`: 0, left out, for games and scripts made before
/// a game's questions changed order or range, whose answers stand as they
/// were given).
const QUESTION_ORDER_KEY: &str = "setup:question_order";

/// Records the setup's order of questions, for [`question_order`].
pub fn begin_question_order(ctx: &mut Ctx, order: u32) {
    if order > 0 {
        ctx.apply(Effect::SetCounter {
            key: QUESTION_ORDER_KEY.into(),
            value: i64::from(order),
        });
    }
}

/// The order of questions the game in `ctx` was begun with.
pub fn question_order(ctx: &Ctx) -> u32 {
    ctx.state()
        .counter(QUESTION_ORDER_KEY)
        .clamp(0, i64::from(u32::MAX)) as u32
}

/// For serde: a setup's `question_order` is left out when 0.
pub fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Each side rolls one die; the highest wins; tied leaders re-roll among
/// themselves until one is left. Cites the rules entry `rule`.
pub fn roll_off(ctx: &mut Ctx, sides: &[SideId], rule: &str) -> Flow<SideId> {
    roll_off_for(ctx, sides, rule, rule)
}

/// [`roll_off`] whose prompts say what it decides in words (`purpose`,
/// "who chooses the deployment") where the rule's id would not.
pub fn roll_off_for(ctx: &mut Ctx, sides: &[SideId], rule: &str, purpose: &str) -> Flow<SideId> {
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
                format!("{name} rolls 1 die for {purpose}")
            } else {
                format!("{name} re-rolls 1 die for {purpose} (tie)")
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
            ctx.resolved(rule, format!("Roll-off to {name}, with {best}"));
            return Ok(*winner);
        }
        contenders = leaders;
        attempt += 1;
    }
}

/// What is wrong with the players' names of a setup, one sentence each: a
/// missing name, or a name another player has (ignoring case), since
/// prompts and the log tell the sides apart by name.
pub fn side_name_problems<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let names: Vec<&str> = names.into_iter().map(str::trim).collect();
    let mut problems = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() {
            problems.push(format!("Player {}: type a name.", i + 1));
        } else if names[..i].iter().any(|n| n.eq_ignore_ascii_case(name)) {
            problems.push(format!(
                "Two players are called {name}: give each a name of their own."
            ));
        }
    }
    problems
}

/// Parses each unit token of `text` (separated by spaces or commas) with
/// `parse`: the units that parse, and what is wrong with each of the others
/// (a form shows every problem at once, not the first only).
pub fn parse_tokens<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> (Vec<T>, Vec<String>) {
    let mut parsed = Vec::new();
    let mut problems = Vec::new();
    for item in tokens(text) {
        match parse(item) {
            Ok(t) => parsed.push(t),
            Err(e) => problems.push(e),
        }
    }
    (parsed, problems)
}

/// [`parse_tokens`] for items that always hold a `:` (`Name:arm:men`):
/// words without one run into the next item as its name, so a name may
/// have spaces (`Old Guard:inf:6`); words left over at the end are one
/// item (and its problem).
pub fn parse_tokens_with_spaced_names<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> (Vec<T>, Vec<String>) {
    let mut parsed = Vec::new();
    let mut problems = Vec::new();
    let mut words: Vec<&str> = Vec::new();
    let mut take = |item: &str| match parse(item) {
        Ok(t) => parsed.push(t),
        Err(e) => problems.push(e),
    };
    for token in tokens(text) {
        if token.contains(':') {
            words.push(token);
            take(&words.join(" "));
            words.clear();
        } else {
            words.push(token);
        }
    }
    if !words.is_empty() {
        take(&words.join(" "));
    }
    (parsed, problems)
}

/// The items of a setup line: separated by spaces or commas.
pub fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|t| !t.trim().is_empty())
}

/// Every item parsed, or every problem in one sentence.
pub fn all_or_problems<T>((parsed, problems): (Vec<T>, Vec<String>)) -> Result<Vec<T>, String> {
    if problems.is_empty() {
        Ok(parsed)
    } else {
        Err(problems.join("; "))
    }
}

/// A name as typed in a setup form: `_` joins words where a space would
/// end the item (`Old_Guard` is shown as "Old Guard").
pub fn typed_name(name: &str) -> String {
    name.trim().replace('_', " ")
}

/// `parse_tokens` for callers that want every unit or the problems,
/// joined in one sentence.
pub fn parse_all_tokens<T>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    all_or_problems(parse_tokens(text, parse))
}

/// Whether a side's name reads as plural ("Austrians", "French"), by its
/// last word: a nation named without an s, or a word ending in one (not in
/// "ss", nor as short as "Gus").
pub fn is_plural_name(name: &str) -> bool {
    let last = name.split_whitespace().last().unwrap_or_default();
    let lower = last.to_lowercase();
    PLURAL_NATIONS.contains(&lower.as_str())
        || (lower.ends_with('s') && !lower.ends_with("ss") && lower.len() > 3)
}

/// Nation names that are plural without an s ("the French advance").
const PLURAL_NATIONS: [&str; 8] = [
    "french", "british", "english", "dutch", "swiss", "irish", "scots", "spanish",
];

/// `singular` or `plural`, to agree with a side named `name` ("Red
/// joins", "Austrians join": audits AG5, AJ1).
pub fn agree<'a>(name: &str, singular: &'a str, plural: &'a str) -> &'a str {
    if is_plural_name(name) {
        plural
    } else {
        singular
    }
}

/// `name`'s possessive as English writes it: "Sharpe's", "Guards'".
pub fn possessive(name: &str) -> String {
    if name.ends_with('s') || name.ends_with('S') {
        format!("{name}'")
    } else {
        format!("{name}'s")
    }
}

/// A relation between two units kept as a counter (`melee:2:5`, lower id
/// first): two units in melee, two that fought each other.
pub fn pair_key(kind: &str, a: UnitId, b: UnitId) -> String {
    format!("{kind}:{}:{}", a.min(b), a.max(b))
}

/// Sets or clears the `kind` relation between `a` and `b`, logging nothing
/// when unchanged.
pub fn set_pair(ctx: &mut Ctx, kind: &str, a: UnitId, b: UnitId, on: bool) {
    let key = pair_key(kind, a, b);
    if (ctx.state().counter(&key) != 0) != on {
        ctx.apply(Effect::SetCounter {
            key,
            value: i64::from(on),
        });
    }
}

/// Whether `a` and `b` stand in the `kind` relation.
pub fn paired(ctx: &Ctx, kind: &str, a: UnitId, b: UnitId) -> bool {
    ctx.state().counter(&pair_key(kind, a, b)) != 0
}

/// The units `unit` stands in the `kind` relation with (in play or not).
pub fn paired_with(state: &GameState, kind: &str, unit: UnitId) -> Vec<UnitId> {
    pairs(state, kind)
        .into_iter()
        .filter_map(|(a, b)| match (a == unit, b == unit) {
            (true, _) => Some(b),
            (_, true) => Some(a),
            _ => None,
        })
        .collect()
}

/// Clears every `kind` relation of `unit`, or every one at all (`None`).
pub fn clear_pairs(ctx: &mut Ctx, kind: &str, unit: Option<UnitId>) {
    for (a, b) in pairs(ctx.state(), kind) {
        if unit.is_none_or(|u| u == a || u == b) {
            set_pair(ctx, kind, a, b, false);
        }
    }
}

/// Every pair in the `kind` relation now.
fn pairs(state: &GameState, kind: &str) -> Vec<(UnitId, UnitId)> {
    state
        .counters
        .iter()
        .filter(|&(_, &v)| v != 0)
        .filter_map(|(k, _)| {
            let (a, b) = k.strip_prefix(kind)?.strip_prefix(':')?.split_once(':')?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect()
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn words_before_an_item_are_its_name_and_underscores_are_spaces() {
        let split = |item: &str| -> Result<String, String> {
            match item.split_once(':') {
                Some((name, rest)) => Ok(format!("{}|{rest}", typed_name(name))),
                None => Err(format!("`{item}` has no ':'")),
            }
        };
        let (items, problems) = parse_tokens_with_spaced_names(
            "Line:inf:12 Kings German Legion No 2:inf:4, Old_Guard:inf:6 stray words",
            split,
        );
        assert_eq!(
            items,
            [
                "Line|inf:12",
                "Kings German Legion No 2|inf:4",
                "Old Guard|inf:6"
            ]
        );
        assert_eq!(problems, ["`stray words` has no ':'"]);
    }
}

#[cfg(test)]
mod tests {
    use super::agree;

    #[test]
    fn a_verb_agrees_with_a_side_named_in_the_plural() {
        for singular in ["Red", "Blue", "Kid's Gang", "Gus", "Prussia"] {
            assert_eq!(agree(singular, "joins", "join"), "joins", "{singular}");
        }
        for plural in ["Austrians", "French", "The British", "Les Bleus", "Swiss"] {
            assert_eq!(agree(plural, "joins", "join"), "join", "{plural}");
        }
    }
}
