//! Scripted play: a RON file with the setup events, then the answers in order,
//! drives a whole game headless. See `docs/scripts.md` for the format.

use super::games::{GameId, Library};
use super::procedure::{Answer, dice_from_values};
use super::session::{Event, Session, SessionError};
use crate::table::{Card, DieSource};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// An answer as written in a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ScriptAnswer {
    /// These dice faces (recorded as typed in).
    Dice(Vec<u8>),
    /// Let the seeded virtual roller roll.
    Roll,
    /// These cards (shown on the table).
    Cards(Vec<Card>),
    /// Draw the top cards of the tracked deck.
    Draw,
    /// Choose an option by id or label.
    Choose(String),
    /// A number.
    Number(i64),
    /// Acknowledge.
    Confirm,
}

/// A script: the game, a seed, setup events and the answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Game id ("t52").
    pub game: String,
    /// RNG seed (virtual dice, shuffles).
    #[serde(default)]
    pub seed: u64,
    /// Events applied first, in order (usually sides, then `Begin`).
    pub setup: Vec<Event>,
    /// Answers to the requests, in order.
    pub answers: Vec<ScriptAnswer>,
    /// Where each answer is written (file, line, column), when the script
    /// was read from a file: an answer that does not fit is named there.
    #[serde(skip)]
    pub answer_at: Vec<(usize, usize)>,
    /// The file the script was read from ("" when built in code).
    #[serde(skip)]
    pub file: String,
}

/// Why a script could not be played.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The script file is not valid RON.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// File.
        file: String,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
        /// Parser message.
        message: String,
    },
    /// The script file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// File.
        file: String,
        /// OS error.
        source: std::io::Error,
    },
    /// Unknown game or no usable ruleset.
    #[error(
        "unknown game `{0}` (expected t52, gentlemen-of-war, napoleonic, card-activation or gunfight)"
    )]
    UnknownGame(String),
    /// A setup event was refused.
    #[error("setup event {index}: {error}")]
    Setup {
        /// 1-based index.
        index: usize,
        /// Why.
        error: SessionError,
    },
    /// An answer did not fit the request at that step.
    #[error("{}answer {step}: {message}", where_written(at))]
    Answer {
        /// 1-based step.
        step: usize,
        /// What was expected and what came.
        message: String,
        /// Where the answer is written (`file:line:column`), when known.
        at: Option<String>,
    },
    /// Printing failed.
    #[error("output: {0}")]
    Output(#[from] std::io::Error),
}

/// "file:line:column: " before an answer's message, when known.
fn where_written(at: &Option<String>) -> String {
    at.as_ref().map(|a| format!("{a}: ")).unwrap_or_default()
}

impl Script {
    /// Reads a script file.
    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Io {
            file: file.clone(),
            source,
        })?;
        let mut script: Script = ron::from_str(&text).map_err(|e| ScriptError::Syntax {
            file: file.clone(),
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        })?;
        script.answer_at = answer_positions(&text);
        script.file = file;
        Ok(script)
    }

    /// Where answer `step` (1-based) is written, as `file:line:column`.
    fn answer_place(&self, step: usize) -> Option<String> {
        let (line, column) = self.answer_at.get(step.checked_sub(1)?)?;
        Some(format!("{}:{line}:{column}", self.file))
    }
}

/// A place in a text, moved on character by character.
struct TextPlace {
    line: usize,
    column: usize,
}

impl TextPlace {
    /// Moves past `c`.
    fn pass(&mut self, c: char) {
        if c == '\n' {
            self.line += 1;
            self.column = 0;
        } else {
            self.column += 1;
        }
    }
}

/// Skips to the end of a comment or string: `end` says when the character
/// just passed (after the one before it) closes it.
fn skip_to(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    at: &mut TextPlace,
    end: impl Fn(char, char) -> bool,
) {
    let mut last = ' ';
    for n in chars.by_ref() {
        at.pass(n);
        if end(last, n) {
            break;
        }
        // An escaped character never closes a string.
        last = if last == '\\' { ' ' } else { n };
    }
}

/// Line and column (1-based) of each item of the `answers` list in a
/// script's text (which parsed, so its brackets balance). Strings and
/// comments are skipped, so a `[` or `,` inside them does not count.
fn answer_positions(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = TextPlace { line: 1, column: 0 };
    let mut chars = text.chars().peekable();
    // 0: looking for `answers`; 1: its `[` next; 2: inside the list.
    let mut stage = 0;
    let mut depth = 0usize;
    let mut item_open = false;
    let mut word = String::new();
    while let Some(c) = chars.next() {
        at.pass(c);
        match c {
            '/' if chars.peek() == Some(&'/') => {
                skip_to(&mut chars, &mut at, |_, n| n == '\n');
                continue;
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                at.pass('*');
                skip_to(&mut chars, &mut at, |last, n| last == '*' && n == '/');
                continue;
            }
            _ => {}
        }
        if stage == 2 && depth == 0 && !item_open && !c.is_whitespace() && c != ',' && c != ']' {
            out.push((at.line, at.column));
            item_open = true;
        }
        match c {
            '"' => skip_to(&mut chars, &mut at, |last, n| n == '"' && last != '\\'),
            '[' if stage == 1 => stage = 2,
            '(' | '[' | '{' if stage == 2 => depth += 1,
            ')' | '}' if stage == 2 => depth = depth.saturating_sub(1),
            ']' if stage == 2 => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            ',' if stage == 2 && depth == 0 => item_open = false,
            ':' if stage == 0 && word == "answers" => stage = 1,
            _ => {}
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if !c.is_whitespace() || c == ':' {
            word.clear();
        }
    }
    out
}

fn print_new_lines(out: &mut dyn Write, session: &Session, from: usize) -> std::io::Result<()> {
    for line in &session.state().log[from..] {
        match &line.rule {
            Some(r) => writeln!(out, "    | {}  [rule: {r}]", line.text)?,
            None => writeln!(out, "    | {}", line.text)?,
        }
    }
    Ok(())
}

/// Plays a script, printing each request, answer and resulting log line to
/// `out`. Returns the finished session.
pub fn play(
    script: &Script,
    library: &Library,
    out: &mut dyn Write,
) -> Result<Session, ScriptError> {
    let game = GameId::from_id(&script.game)
        .ok_or_else(|| ScriptError::UnknownGame(script.game.clone()))?;
    let ruleset = library
        .get(game)
        .cloned()
        .ok_or_else(|| ScriptError::UnknownGame(script.game.clone()))?;
    let mut session = Session::new(game, ruleset, script.seed);
    for (i, e) in script.setup.iter().enumerate() {
        let seen = session.state().log.len();
        writeln!(out, "setup {}: {}", i + 1, summarise(e))?;
        session
            .apply(e.clone())
            .map_err(|error| ScriptError::Setup {
                index: i + 1,
                error,
            })?;
        print_new_lines(out, &session, seen)?;
    }
    for (i, a) in script.answers.iter().enumerate() {
        let step = i + 1;
        let at = script.answer_place(step);
        let Some(req) = session.pending().cloned() else {
            return Err(ScriptError::Answer {
                step,
                message: format!(
                    "nothing is being asked (the game is over or no procedure runs), got {a:?}"
                ),
                at,
            });
        };
        writeln!(out, "ask {step}: {req}")?;
        let answer = match a {
            ScriptAnswer::Dice(v) => {
                Answer::Dice(dice_from_values(v, DieSource::Manual).map_err(|message| {
                    ScriptError::Answer {
                        step,
                        message,
                        at: at.clone(),
                    }
                })?)
            }
            ScriptAnswer::Cards(c) => Answer::Cards(c.clone()),
            ScriptAnswer::Choose(c) => Answer::Choice(c.clone()),
            ScriptAnswer::Number(n) => Answer::Number(*n),
            ScriptAnswer::Confirm => Answer::Confirm,
            ScriptAnswer::Roll | ScriptAnswer::Draw => {
                session
                    .virtual_answer()
                    .ok_or_else(|| ScriptError::Answer {
                        step,
                        message: format!("expected {}, got {a:?}", req.expected()),
                        at: at.clone(),
                    })?
            }
        };
        writeln!(out, "answer {step}: {answer}")?;
        let seen = session.state().log.len();
        session
            .apply(Event::Answer(answer))
            .map_err(|e| ScriptError::Answer {
                step,
                message: format!("{e}{}", nearest_choice(&req, a)),
                at: at.clone(),
            })?;
        print_new_lines(out, &session, seen)?;
    }
    match session.pending() {
        Some(req) => writeln!(out, "script ends; still asking: {req}")?,
        None => writeln!(out, "script ends; nothing pending")?,
    }
    Ok(session)
}

/// Choice ids this close to a mistyped one are offered as what was meant.
const MAX_CHOICE_TYPO: usize = 2;

/// " (did you mean `shoot`?)" when a chosen id is a small typo of an option.
fn nearest_choice(req: &super::procedure::Request, a: &ScriptAnswer) -> String {
    let (ScriptAnswer::Choose(typed), super::procedure::Ask::Choose { options }) = (a, &req.ask)
    else {
        return String::new();
    };
    options
        .iter()
        .map(|o| (strsim::levenshtein(&o.id, typed), &o.id))
        .filter(|(d, id)| *d > 0 && *d <= MAX_CHOICE_TYPO && *id != typed)
        .min()
        .map(|(_, id)| format!(" (did you mean `{id}`?)"))
        .unwrap_or_default()
}

fn summarise(e: &Event) -> String {
    match e {
        Event::Begin(spec) => match spec {
            super::ProcedureSpec::RollOff { .. } => "begin roll-off".into(),
            super::ProcedureSpec::T52(_) => "begin a game of T52".into(),
            super::ProcedureSpec::Gunfight(_) => "begin a game of Gunfight Gang".into(),
            super::ProcedureSpec::Napoleonic(_) => "begin a game of Napoleonic Card Combat".into(),
            super::ProcedureSpec::CardActivation(_) => {
                "begin a game of Card-Activation Skirmish".into()
            }
            super::ProcedureSpec::Gentlemen(_) => "begin a game of Gentlemen of War".into(),
        },
        Event::Answer(a) => format!("answer {a}"),
        Event::Edit(_) => "edit".into(),
        Event::Cancel => "cancel".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::answer_positions;

    #[test]
    fn answers_are_found_where_they_are_written() {
        let text = r#"Script(
    game: "t52", // answers: [not, these]
    setup: [Edit(AddSide(name: "answers: [x, y]", back: None))],
    /* answers: [ */
    answers: [
        Dice([4, 2]), Roll,
        Choose("a \" ], b"), // a comment, with a comma
        Cards([Qh, Kh]),
        Number(3)
    ],
)"#;
        assert_eq!(
            answer_positions(text),
            vec![(6, 9), (6, 23), (7, 9), (8, 9), (9, 9)]
        );
    }
}
