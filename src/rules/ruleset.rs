//! A game's data, loaded from `rulesets/<game>.ron`: card orderings and values,
//! unit profiles, upgrades, tunable numbers and the rules-lookup entries.

use crate::table::CardOrdering;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A stat block (a unit type's profile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Stable id used by code and saves ("toff", "follower").
    pub id: String,
    /// Name shown to players.
    pub name: String,
    /// Stats by short name ("M", "A", "I", "V", "W", "R" in T52).
    #[serde(deserialize_with = "crate::files::unique_keys")]
    pub stats: BTreeMap<String, i32>,
    /// Soldiers (models) in the unit when not set by its card.
    #[serde(default = "one")]
    pub soldiers: u32,
    /// Short note shown with the profile.
    #[serde(default)]
    pub note: String,
    /// Ids of the abilities (from the ruleset's `abilities`) units of this
    /// profile can use, besides the universal ones.
    #[serde(default)]
    pub abilities: Vec<String>,
}

fn one() -> u32 {
    1
}

/// An upgrade or option bought for a unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Upgrade {
    /// Stable id ("mean", "bowel-loosening-charge").
    pub id: String,
    /// Name shown to players.
    pub name: String,
    /// What it does, in Adjutant's own words.
    pub text: String,
    /// Changes to the unit's stats when taken (stacking adds again).
    #[serde(default, deserialize_with = "crate::files::unique_keys")]
    pub stat_changes: BTreeMap<String, i32>,
}

/// One rules-lookup entry, written in Adjutant's own words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleEntry {
    /// Stable id ("panic-test"); procedures cite it when they resolve a check.
    pub id: String,
    /// Title shown in lists.
    pub title: String,
    /// The rule, concisely.
    pub text: String,
    /// Extra search words.
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The ruling from CLARIFICATIONS.md that settles a gap, if any.
    #[serde(default)]
    pub ruling: Option<String>,
}

/// The largest size any ruleset number may have (the biggest in the built-in
/// rulesets is a 300 cm table): a larger one is a typo, not a house rule.
pub const NUMBER_LIMIT: i64 = 10_000;

/// Everything a game reads from its ruleset file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ruleset {
    /// Game id, equal to the file stem ("t52").
    pub id: String,
    /// Title shown to players.
    pub title: String,
    /// One-paragraph description.
    pub summary: String,
    /// Card ordering, values, wild suits.
    pub cards: CardOrdering,
    /// Unit profiles.
    #[serde(default)]
    pub profiles: Vec<Profile>,
    /// Upgrades and options.
    #[serde(default)]
    pub upgrades: Vec<Upgrade>,
    /// Every tunable number (house rules change these, not the code).
    #[serde(default, deserialize_with = "crate::files::unique_keys")]
    pub numbers: BTreeMap<String, i64>,
    /// Rules-lookup entries.
    #[serde(default)]
    pub rules: Vec<RuleEntry>,
    /// Abilities bought with cards (games with roster sheets of abilities).
    #[serde(default)]
    pub abilities: Vec<super::ability::Ability>,
}

/// Why a ruleset file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RulesetError {
    /// The file is not valid RON for a ruleset.
    #[error("{}:{line}:{column}: {message}", file.display())]
    Syntax {
        /// File (or embedded default) name.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser expected or found.
        message: String,
    },
    /// The file parsed but its content is inconsistent: every problem
    /// found, one per line.
    #[error("{}", problems.iter().map(|p| p.in_file(file)).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// File name.
        file: PathBuf,
        /// What is wrong, in the file's order of checks (never empty).
        problems: Vec<Problem>,
    },
    /// A `.ron` file in the ruleset folder whose name names no game: it
    /// would be ignored, so it is reported.
    #[error("{}: the file name names no game (a house rule goes in {games})", file.display())]
    NamesNoGame {
        /// File name.
        file: PathBuf,
        /// The file names that are read, listed.
        games: String,
    },
    /// The file could not be read.
    #[error("{}: cannot read: {source}", file.display())]
    Io {
        /// File name.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// One thing wrong in a ruleset's content.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// 1-based line and column of the name the problem is about, when the
    /// file's text names it.
    pub at: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// A problem placed at the first name it quotes in `text`.
    pub fn named_in(text: &str, message: String) -> Problem {
        Problem {
            at: position_of_named(text, &message),
            message,
        }
    }

    /// `file:line:column: message` (without the place when unknown).
    fn in_file(&self, file: &Path) -> String {
        match self.at {
            Some((l, c)) => format!("{}:{l}:{c}: {}", file.display(), self.message),
            None => format!("{}: {}", file.display(), self.message),
        }
    }
}

impl RulesetError {
    /// The file the error is about.
    pub fn file(&self) -> &Path {
        match self {
            RulesetError::Syntax { file, .. }
            | RulesetError::Invalid { file, .. }
            | RulesetError::NamesNoGame { file, .. }
            | RulesetError::Io { file, .. } => file,
        }
    }
}

/// How a problem says an id is written twice (placed at the second).
const USED_TWICE: &str = "is used twice";

/// Where in `text` the first name a problem quotes in backticks ("numbers:
/// `hand_size` is 0 ...") is written, as 1-based line and column: the name
/// as a quoted key or string (`"hand_size"`), else as a field (`id:`).
pub(crate) fn position_of_named(text: &str, message: &str) -> Option<(usize, usize)> {
    let name = message.split('`').nth(1)?;
    // A name is looked for in the list the problem is about ("numbers:",
    // "profiles:"), not in a stat or a rules entry of the same name written
    // elsewhere; one missing from its list is placed at the list (audit BK
    // K1: a missing profile was placed at the rules entry of its name).
    let list = message
        .split(':')
        .next()
        .filter(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let from = list.and_then(|l| text.find(&format!("{l}:"))).unwrap_or(0);
    if message.ends_with("is missing") && from > 0 {
        return Some(line_column(text, from));
    }
    let rest = &text[from..];
    // An id used twice is placed where it is written the second time, the
    // one to rename.
    let nth = usize::from(message.ends_with(USED_TWICE));
    let at = (rest.match_indices(&format!("\"{name}\"")).nth(nth))
        .or_else(|| rest.match_indices(&format!("{name}:")).nth(nth))
        .map(|(at, _)| at)?;
    Some(line_column(text, from + at))
}

/// 1-based line and column of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |i| i + 1)..]
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Where a key written twice (see [`crate::files::unique_keys`]) is
/// written the second time: the parser notices it only past its value, so
/// the last `"key"` before the parser's place is it.
fn second_key_place(
    text: &str,
    message: &str,
    line: usize,
    column: usize,
) -> Option<(usize, usize)> {
    if !message.contains(crate::files::WRITTEN_TWICE) {
        return None;
    }
    let name = message.split('`').nth(1)?;
    let line_start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    let end = text[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(text.len(), |(i, _)| line_start + i);
    let at = text[..end].rfind(&format!("\"{name}\""))?;
    Some(line_column(text, at))
}

impl Ruleset {
    /// Parses and validates a ruleset from RON text; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Ruleset, RulesetError> {
        Ruleset::parse_for(text, file, None)
    }

    /// [`Ruleset::parse`] of a file that must be `game`'s: a ruleset of
    /// another game is refused as that, before its content is checked
    /// against the wrong game's needs.
    pub fn parse_for(
        text: &str,
        file: &Path,
        game: Option<super::games::GameId>,
    ) -> Result<Ruleset, RulesetError> {
        // Said as what it is, not as a missing opening bracket (audit AI5).
        if text.trim().is_empty() {
            return Err(RulesetError::Syntax {
                file: file.to_path_buf(),
                line: 1,
                column: 1,
                message: "the file is empty".into(),
            });
        }
        let rs: Ruleset = ron::from_str(text).map_err(|e| {
            let message = e.code.to_string();
            let (line, column) =
                second_key_place(text, &message, e.span.start.line, e.span.start.col)
                    .unwrap_or((e.span.start.line, e.span.start.col));
            RulesetError::Syntax {
                file: file.to_path_buf(),
                line,
                column,
                message,
            }
        })?;
        // Every problem at once, in the order of the file (those it does
        // not name last).
        let invalid = |messages: Vec<String>| {
            let mut problems: Vec<Problem> = messages
                .into_iter()
                .map(|m| Problem::named_in(text, m))
                .collect();
            problems.sort_by_key(|p| (p.at.is_none(), p.at));
            RulesetError::Invalid {
                file: file.to_path_buf(),
                problems,
            }
        };
        if let Some(g) = game
            && rs.id != g.id()
        {
            let mut messages = vec![format!(
                "id is `{}` but the file is for `{}` (a house rule for {} goes in {}.ron)",
                rs.id,
                g.id(),
                rs.id,
                rs.id
            )];
            // The rest is checked as the file's game's (as it is meant once
            // the id is mended), not as the game the id names.
            let as_meant = Ruleset {
                id: g.id().to_string(),
                ..rs
            };
            messages.extend(as_meant.validate().err().unwrap_or_default());
            return Err(invalid(messages));
        }
        rs.validate().map_err(invalid)?;
        Ok(rs)
    }

    /// Reads, parses and validates a ruleset file (see [`Ruleset::parse_for`]).
    pub fn load(path: &Path, game: Option<super::games::GameId>) -> Result<Ruleset, RulesetError> {
        let bytes = std::fs::read(path).map_err(|source| RulesetError::Io {
            file: path.to_path_buf(),
            source,
        })?;
        // A file saved in another encoding is named at its first odd byte.
        let text = crate::files::utf8_text(bytes).map_err(|e| RulesetError::Syntax {
            file: path.to_path_buf(),
            line: e.line,
            column: e.column,
            message: e.to_string(),
        })?;
        Ruleset::parse_for(&text, path, game)
    }

    /// Checks internal consistency, then the game's own requirements, and
    /// lists every problem found (a file fixed one error at a time would
    /// need a run of `check` per mistake).
    pub fn validate(&self) -> Result<(), Vec<String>> {
        let mut problems = Vec::new();
        let mut problem = |p: String| problems.push(p);
        if let Err(e) = self.cards.validate() {
            problem(format!("cards: {e}"));
        }
        let mut ids = std::collections::BTreeSet::new();
        for r in &self.rules {
            if !ids.insert(r.id.as_str()) {
                problem(format!("rules: id `{}` {USED_TWICE}", r.id));
            }
            if r.text.trim().is_empty() {
                problem(format!("rules: `{}` has no text", r.id));
            }
        }
        for a in &self.abilities {
            if let Err(e) = a.validate() {
                problem(format!("abilities: {e}"));
            }
        }
        for p in &self.profiles {
            if p.soldiers == 0 {
                problem(format!("profile `{}`: soldiers must be at least 1", p.id));
            }
            for (k, v) in p.stats.iter().filter(|(_, v)| **v < 0) {
                problem(format!(
                    "profile `{}`: stat {k} is {v}, but no stat is below 0",
                    p.id
                ));
            }
            for a in p.abilities.iter().filter(|a| self.ability(a).is_none()) {
                problem(format!(
                    "profile `{}`: ability `{a}` is not in `abilities`",
                    p.id
                ));
            }
        }
        let Some(game) = super::games::GameId::from_id(&self.id) else {
            problem(format!(
                "id `{}` is not a known game (expected one of: {})",
                self.id,
                super::games::GameId::ALL
                    .iter()
                    .map(|g| g.id())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            return Err(problems);
        };
        let req = game.requirements();
        for n in req.numbers {
            if !self.numbers.contains_key(*n) {
                problem(format!("numbers: `{n}` is missing"));
            }
        }
        let within = -NUMBER_LIMIT..=NUMBER_LIMIT;
        for (k, v) in self.numbers.iter().filter(|(_, v)| !within.contains(*v)) {
            problem(format!(
                "numbers: `{k}` is {v}, beyond the {NUMBER_LIMIT} any rule needs"
            ));
        }
        for n in req.at_least_one {
            let v = self.number(n);
            if v < 1 && self.numbers.contains_key(*n) {
                problem(format!(
                    "numbers: `{n}` is {v}, but it must be at least 1 (less makes no game)"
                ));
            }
        }
        for (n, most, why) in req.at_most {
            let v = self.number(n);
            if v > *most {
                problem(format!(
                    "numbers: `{n}` is {v}, but it can be at most {most} ({why})"
                ));
            }
        }
        for (small, big) in req.not_above {
            let (a, b) = (self.number(small), self.number(big));
            if a > b {
                problem(format!(
                    "numbers: `{small}` is {a}, more than `{big}` ({b})"
                ));
            }
        }
        for p in req.profiles {
            if self.profile(p).is_none() {
                problem(format!("profiles: `{p}` is missing"));
            }
        }
        for r in req.rules {
            if self.rule(r).is_none() {
                problem(format!("rules: entry `{r}` is missing"));
            }
        }
        for u in req.upgrades {
            if self.upgrade(u).is_none() {
                problem(format!("upgrades: `{u}` is missing"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// A tunable number; validation guarantees the game's required ones exist.
    pub fn number(&self, key: &str) -> i64 {
        self.numbers.get(key).copied().unwrap_or(0)
    }

    /// An ability by id.
    pub fn ability(&self, id: &str) -> Option<&super::ability::Ability> {
        self.abilities.iter().find(|a| a.id == id)
    }

    /// A profile by id.
    pub fn profile(&self, id: &str) -> Option<&Profile> {
        self.profiles.iter().find(|p| p.id == id)
    }

    /// An upgrade by id.
    pub fn upgrade(&self, id: &str) -> Option<&Upgrade> {
        self.upgrades.iter().find(|u| u.id == id)
    }

    /// A rules entry by id.
    pub fn rule(&self, id: &str) -> Option<&RuleEntry> {
        self.rules.iter().find(|r| r.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::{Ruleset, position_of_named};

    /// Audit AI5: an empty file is said to be empty, not to lack a bracket.
    #[test]
    fn an_empty_ruleset_file_is_said_to_be_empty() {
        let said = Ruleset::parse(" \n", std::path::Path::new("t52.ron")).map(|_| ());
        assert_eq!(
            said.map_err(|e| e.to_string()),
            Err("t52.ron:1:1: the file is empty".to_string())
        );
    }

    /// An id used twice is placed at its second writing, the one to rename;
    /// other problems at the first place the name is written.
    #[test]
    fn an_id_used_twice_is_placed_where_it_is_written_again() {
        let text = "(\n  rules: [\n    (id: \"setup\"),\n    (id: \"turn\"),\n    (id: \"setup\"),\n  ],\n)";
        assert_eq!(
            position_of_named(text, "rules: id `setup` is used twice"),
            Some((5, 10))
        );
        assert_eq!(
            position_of_named(text, "rules: `setup` has no text"),
            Some((3, 10))
        );
    }
}
