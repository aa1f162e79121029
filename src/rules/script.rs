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
    #[error("answer {step}: {message}")]
    Answer {
        /// 1-based step.
        step: usize,
        /// What was expected and what came.
        message: String,
    },
    /// Printing failed.
    #[error("output: {0}")]
    Output(#[from] std::io::Error),
}

impl Script {
    /// Reads a script file.
    pub fn load(path: &Path) -> Result<Script, ScriptError> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Io {
            file: file.clone(),
            source,
        })?;
        ron::from_str(&text).map_err(|e| ScriptError::Syntax {
            file,
            line: e.span.start.line,
            column: e.span.start.col,
            message: e.code.to_string(),
        })
    }
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
        let Some(req) = session.pending().cloned() else {
            return Err(ScriptError::Answer {
                step,
                message: format!(
                    "nothing is being asked (the game is over or no procedure runs), got {a:?}"
                ),
            });
        };
        writeln!(out, "ask {step}: {req}")?;
        let answer = match a {
            ScriptAnswer::Dice(v) => Answer::Dice(
                dice_from_values(v, DieSource::Manual)
                    .map_err(|message| ScriptError::Answer { step, message })?,
            ),
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
                    })?
            }
        };
        writeln!(out, "answer {step}: {answer}")?;
        let seen = session.state().log.len();
        session
            .apply(Event::Answer(answer))
            .map_err(|e| ScriptError::Answer {
                step,
                message: e.to_string(),
            })?;
        print_new_lines(out, &session, seen)?;
    }
    match session.pending() {
        Some(req) => writeln!(out, "script ends; still asking: {req}")?,
        None => writeln!(out, "script ends; nothing pending")?,
    }
    Ok(session)
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
