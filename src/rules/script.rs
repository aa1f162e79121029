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
    /// Where the game, each setup event and each answer are written, when
    /// the script was read from a file: what does not fit is named there.
    #[serde(skip)]
    pub places: ScriptPlaces,
    /// The file the script was read from ("" when built in code).
    #[serde(skip)]
    pub file: String,
}

/// Where the parts of a script are written: (line, column), 1-based.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScriptPlaces {
    /// The `game` value.
    pub game: Option<(usize, usize)>,
    /// Each item of `setup`.
    pub setup: Vec<(usize, usize)>,
    /// Each item of `answers`.
    pub answers: Vec<(usize, usize)>,
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
        "{}unknown game `{game}` (expected t52, gentlemen-of-war, napoleonic, card-activation or gunfight)",
        where_written(at)
    )]
    UnknownGame {
        /// The game named.
        game: String,
        /// Where it is written (`file:line:column`), when known.
        at: Option<String>,
    },
    /// A setup event was refused.
    #[error("{}setup event {index}: {error}", where_written(at))]
    Setup {
        /// 1-based index.
        index: usize,
        /// Why.
        error: SessionError,
        /// Where the event is written (`file:line:column`), when known.
        at: Option<String>,
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
        script.places = ScriptPlaces {
            game: field_positions(&text, "game").first().copied(),
            setup: field_positions(&text, "setup"),
            answers: field_positions(&text, "answers"),
        };
        script.file = file;
        Ok(script)
    }

    /// `place` as `file:line:column`.
    fn written_at(&self, place: Option<&(usize, usize)>) -> Option<String> {
        let (line, column) = place?;
        Some(format!("{}:{line}:{column}", self.file))
    }

    /// Where answer `step` (1-based) is written.
    fn answer_place(&self, step: usize) -> Option<String> {
        self.written_at(self.places.answers.get(step.checked_sub(1)?))
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

/// Where the value of the script's top-level field `key` is written, line
/// and column (1-based): each item of a list, or the one value. The text
/// parsed, so its brackets balance; strings and comments are skipped (a
/// `[` or `,` inside them does not count) and so are nested fields of the
/// same name.
fn field_positions(text: &str, key: &str) -> Vec<(usize, usize)> {
    // The script's own fields are inside its one pair of brackets.
    const FIELDS: usize = 1;
    const LIST: usize = FIELDS + 1;
    let mut out = Vec::new();
    let mut at = TextPlace { line: 1, column: 0 };
    let mut chars = text.chars().peekable();
    // 0: looking for `key:`; 1: its value next; 2: inside its list.
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
        if stage == 1 && !c.is_whitespace() {
            if c != '[' {
                out.push((at.line, at.column));
                break;
            }
            stage = 2;
        } else if stage == 2
            && depth == LIST
            && !item_open
            && !c.is_whitespace()
            && c != ','
            && c != ']'
        {
            out.push((at.line, at.column));
            item_open = true;
        }
        match c {
            '"' => skip_to(&mut chars, &mut at, |last, n| n == '"' && last != '\\'),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                if stage == 2 && depth == LIST {
                    break;
                }
                depth = depth.saturating_sub(1);
            }
            ',' if stage == 2 && depth == LIST => item_open = false,
            ':' if stage == 0 && depth == FIELDS && word == key => stage = 1,
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
    let unknown = || ScriptError::UnknownGame {
        game: script.game.clone(),
        at: script.written_at(script.places.game.as_ref()),
    };
    let game = GameId::from_id(&script.game).ok_or_else(unknown)?;
    let ruleset = library.get(game).cloned().ok_or_else(unknown)?;
    let mut session = Session::new(game, ruleset, script.seed);
    for (i, e) in script.setup.iter().enumerate() {
        let seen = session.state().log.len();
        writeln!(out, "setup {}: {}", i + 1, summarise(e))?;
        session
            .apply(e.clone())
            .map_err(|error| ScriptError::Setup {
                index: i + 1,
                error,
                at: script.written_at(script.places.setup.get(i)),
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

/// " (did you mean `shoot`?)" when a chosen id is a small typo of an option,
/// or a word of exactly one option's label (`XB` for "Toff XB itself", whose
/// id is `self`; audit AD6), which comes first.
fn nearest_choice(req: &super::procedure::Request, a: &ScriptAnswer) -> String {
    let (ScriptAnswer::Choose(typed), super::procedure::Ask::Choose { options }) = (a, &req.ask)
    else {
        return String::new();
    };
    let in_label: Vec<&String> = options
        .iter()
        .filter(|o| o.label.split_whitespace().any(|w| w == typed))
        .map(|o| &o.id)
        .collect();
    if let [id] = in_label[..] {
        return format!(" (did you mean `{id}`?)");
    }
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
    use super::{ScriptAnswer, field_positions, nearest_choice};
    use crate::rules::procedure::{Ask, Choice, Request};

    /// A word of one option's label is offered as that option (audit AD6:
    /// `XB` was said to mean `4d` when "Toff XB itself" was meant).
    #[test]
    fn a_word_of_a_label_is_offered_before_a_near_id() {
        let req = Request {
            ask: Ask::Choose {
                options: vec![
                    Choice::new("4d", "Follower 4d"),
                    Choice::new("self", "Toff XB itself"),
                ],
            },
            prompt: "order".into(),
            rule: None,
            settled: None,
        };
        let said = |typed: &str| nearest_choice(&req, &ScriptAnswer::Choose(typed.into()));
        assert_eq!(said("XB"), " (did you mean `self`?)");
        assert_eq!(said("4c"), " (did you mean `4d`?)");
        assert_eq!(said("zzzzzz"), "");
    }

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
            field_positions(text, "answers"),
            vec![(6, 9), (6, 23), (7, 9), (8, 9), (9, 9)]
        );
        assert_eq!(field_positions(text, "game"), vec![(2, 11)]);
        assert_eq!(field_positions(text, "setup"), vec![(3, 13)]);
        // A field of an event is not the script's own.
        assert!(field_positions(text, "name").is_empty());
    }
}
