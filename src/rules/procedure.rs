//! Procedures ask, the table answers.
//!
//! A procedure (an order, an engagement, a test, a whole game loop) is plain
//! code that calls [`Ctx::ask`] whenever it needs something from the table:
//! dice, cards, a choice, a confirmation. The session re-runs the procedure
//! from its starting state with the answers given so far; when the code asks
//! past the last answer, the run stops there and that request is what the
//! table is asked next. Because procedures are deterministic (randomness comes
//! from a seeded RNG and from answers), re-running is exact, and undo, replay,
//! autosave and scripted play all go through the same path.

use super::effect::Effect;
use super::ruleset::Ruleset;
use super::state::{DeckId, GameState};
use crate::table::{Card, D6, DicePool, Die, DieSource};
use rand::rngs::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::fmt;

/// What the window logs for a roll it takes by itself because no result
/// could change anything ([`Ctx::roll_moot`]).
pub const MOOT_ROLL_LABEL: &str = "no roll needed";

/// One option of a choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Choice {
    /// Stable id (what scripts and saves record).
    pub id: String,
    /// What the player sees.
    pub label: String,
    /// Ids this option had in an older Adjutant, or answers an older
    /// Adjutant took here that now mean this option, still accepted (after
    /// every id and label) so that logs saved then replay.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub former_ids: Vec<String>,
}

impl Choice {
    /// A choice whose id and label are built from the same text.
    pub fn new(id: impl Into<String>, label: impl Into<String>) -> Choice {
        Choice {
            id: id.into(),
            label: label.into(),
            former_ids: Vec::new(),
        }
    }

    /// The same choice, also accepting `answer`: an id or label it had in
    /// an older Adjutant, or an older answer that now means this option.
    pub fn formerly(mut self, answer: impl Into<String>) -> Choice {
        self.former_ids.push(answer.into());
        self
    }
}

/// What kind of answer a request needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ask {
    /// Exactly `count` d6 results.
    Dice {
        /// How many dice.
        count: u32,
    },
    /// Exactly `count` cards, shown on the table or drawn from a tracked deck.
    Cards {
        /// How many cards.
        count: u32,
        /// The tracked deck they are drawn from, if any.
        deck: Option<DeckId>,
        /// Cards the table cannot show for this question, though it holds
        /// the pack they come from (played already this turn); the window
        /// greys them out.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        played: Vec<Card>,
        /// Cards the players choose (a new order for cards they looked
        /// at), not draw: nothing for a virtual draw to answer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        chosen: bool,
        /// Turned from the top of a pack the players shuffle but Adjutant
        /// does not track (the civilians' pack): a virtual answer turns
        /// any card that pack still holds, leaving out `played`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        turned: bool,
    },
    /// One of the options.
    Choose {
        /// The options.
        options: Vec<Choice>,
    },
    /// A number in a range (a distance, a count).
    Number {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// An acknowledgement ("the unit retreats: move it, then confirm").
    Confirm,
}

/// A question to the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// What answer is needed.
    pub ask: Ask,
    /// Why, in player's words ("Volley: 6 dice, hits on 4+").
    pub prompt: String,
    /// Rules entry behind the request.
    pub rule: Option<String>,
    /// The answer the rules already know (a choice nothing on the table
    /// could have changed, a number already known): the window takes it
    /// by itself, as it does a lone option, while scripts still answer.
    /// (Boxed: a request is the error side of every [`Flow`].)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled: Option<Box<Settled>>,
}

/// The answer the game's state settles, and why (see [`Request::settled`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settled {
    /// A choice's option id, or a number.
    pub answer: Answer,
    /// Why it is settled, in a few words ("nothing moved").
    pub why: String,
}

impl Settled {
    /// `answer`, settled for the reason `why`.
    pub fn new(answer: Answer, why: &str) -> Settled {
        Settled {
            answer,
            why: why.to_string(),
        }
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.ask {
            Ask::Dice { count: 1 } => write!(f, "roll 1 die: {}", self.prompt),
            Ask::Dice { count } => write!(f, "roll {count} dice: {}", self.prompt),
            Ask::Cards { count, .. } => write!(f, "show or draw {count} card(s): {}", self.prompt),
            Ask::Choose { options } => {
                let o: Vec<&str> = options.iter().map(|c| c.label.as_str()).collect();
                write!(f, "choose: {} [{}]", self.prompt, o.join(" | "))
            }
            Ask::Number { min, max } => write!(f, "enter a number {min}-{max}: {}", self.prompt),
            Ask::Confirm => write!(f, "confirm: {}", self.prompt),
        }
    }
}

/// An answer from the table, as recorded in the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// Dice results with their sources.
    Dice(Vec<Die>),
    /// Cards shown or drawn.
    Cards(Vec<Card>),
    /// Cards drawn (or turned) by Adjutant's virtual table, after any the
    /// players `entered` by hand; said so in the log, as a virtual roll is.
    AdjutantDrew {
        /// Cards the players named first.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        entered: Vec<Card>,
        /// Cards Adjutant drew for the rest.
        drawn: Vec<Card>,
    },
    /// The id of the chosen option.
    Choice(String),
    /// A number.
    Number(i64),
    /// Acknowledged.
    Confirm,
}

impl fmt::Display for Answer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answer::Dice(d) => {
                let v: Vec<String> = d.iter().map(|d| d.value.to_string()).collect();
                write!(f, "dice [{}]", v.join(" "))
            }
            Answer::Cards(c) => write!(f, "cards [{}]", codes(c)),
            Answer::AdjutantDrew { entered, drawn } => {
                let all: Vec<Card> = entered.iter().chain(drawn).copied().collect();
                write!(
                    f,
                    "cards [{}] ({})",
                    codes(&all),
                    drawn_note("drawn", drawn.len(), all.len())
                )
            }
            Answer::Choice(c) => write!(f, "choice {c}"),
            Answer::Number(n) => write!(f, "number {n}"),
            Answer::Confirm => f.write_str("confirm"),
        }
    }
}

impl Answer {
    /// The cards of a card answer (those entered first), `None` for others.
    pub fn cards(&self) -> Option<Vec<Card>> {
        match self {
            Answer::Cards(c) => Some(c.clone()),
            Answer::AdjutantDrew { entered, drawn } => {
                Some(entered.iter().chain(drawn).copied().collect())
            }
            _ => None,
        }
    }

    /// The cards of a card answer, taken out of it (no copy).
    fn into_cards(self) -> Option<Vec<Card>> {
        match self {
            Answer::Cards(c) => Some(c),
            Answer::AdjutantDrew { mut entered, drawn } => {
                entered.extend(drawn);
                Some(entered)
            }
            _ => None,
        }
    }

    /// How many cards a card answer holds (checked on every re-run of a
    /// procedure, so without building the list).
    fn card_count(&self) -> Option<usize> {
        match self {
            Answer::Cards(c) => Some(c.len()),
            Answer::AdjutantDrew { entered, drawn } => Some(entered.len() + drawn.len()),
            _ => None,
        }
    }

    /// How many of a card answer's cards Adjutant drew.
    fn drawn_by_adjutant(&self) -> usize {
        match self {
            Answer::AdjutantDrew { drawn, .. } => drawn.len(),
            _ => 0,
        }
    }
}

/// Space-separated card codes.
fn codes(cards: &[Card]) -> String {
    let v: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
    v.join(" ")
}

/// "drawn by Adjutant", or "1 of 2 drawn by Adjutant" for the rest of an
/// answer begun by hand (`done`: "drawn", or "turned" for cards of an
/// untracked pack).
pub(crate) fn drawn_note(done: &str, drawn: usize, all: usize) -> String {
    if drawn == all {
        format!("{done} by Adjutant")
    } else {
        format!("{drawn} of {all} {done} by Adjutant")
    }
}

/// Why an answer does not fit the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerError {
    /// What the request needs.
    pub expected: String,
    /// What was given.
    pub got: String,
    /// What is wrong with it, in a sentence, when more can be said than
    /// "not what was asked" (a card already drawn, a number out of range).
    pub problem: Option<String>,
}

impl fmt::Display for AnswerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            // The problem says what to mend; the question is on screen (and
            // printed before the answer in a script's output).
            Some(p) => f.write_str(p),
            None => write!(f, "expected {}, got {}", self.expected, self.got),
        }
    }
}

impl std::error::Error for AnswerError {}

impl Request {
    /// The one option of a choice that has only one.
    pub fn only_choice(&self) -> Option<&Choice> {
        match &self.ask {
            Ask::Choose { options } if options.len() == 1 => options.first(),
            _ => None,
        }
    }

    /// The only answer this request can take, with its words: the one
    /// option of a choice, the number of a range of one, or the answer the
    /// game's state settles ([`Request::settled`]). Nothing for a
    /// player to decide, so the window answers it by itself (scripts still
    /// answer it). Cards and confirmations are never taken for the table:
    /// they ask for something done or seen; nor are dice, unless no roll
    /// could change the outcome ([`Ctx::roll_moot`]).
    pub fn only_answer(&self) -> Option<(Answer, String)> {
        let settled = self.settled.as_deref().map(|s| &s.answer);
        match &self.ask {
            Ask::Choose { options } => {
                // What the game's state settles (see `Request::settled`).
                let settled = match settled {
                    Some(Answer::Choice(id)) => options.iter().find(|o| o.id == *id),
                    _ => None,
                };
                (self.only_choice().or(settled))
                    .map(|c| (Answer::Choice(c.id.clone()), c.label.clone()))
            }
            Ask::Number { min, max } => {
                let n = match settled {
                    _ if min == max => Some(*min),
                    Some(&Answer::Number(n)) if (*min..=*max).contains(&n) => Some(n),
                    _ => None,
                };
                n.map(|n| (Answer::Number(n), n.to_string()))
            }
            // A roll whose result cannot change anything (see
            // `Ctx::roll_moot`): any dice of the right count read as it.
            Ask::Dice { count } => match settled {
                Some(Answer::Dice(d)) if d.len() == *count as usize => {
                    Some((Answer::Dice(d.clone()), MOOT_ROLL_LABEL.to_string()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// What this request expects, in words.
    pub fn expected(&self) -> String {
        match &self.ask {
            Ask::Dice { count: 1 } => format!("1 die ({})", self.prompt),
            Ask::Dice { count } => format!("{count} dice ({})", self.prompt),
            Ask::Cards { count, .. } => format!("{count} card(s) ({})", self.prompt),
            Ask::Choose { options } => {
                let o: Vec<&str> = options.iter().map(|c| c.id.as_str()).collect();
                format!("a choice of {} ({})", o.join(", "), self.prompt)
            }
            Ask::Number { min, max } => format!("a number {min}-{max} ({})", self.prompt),
            Ask::Confirm => format!("a confirmation ({})", self.prompt),
        }
    }

    /// Checks an answer against the request, normalising a choice given by
    /// label to its id.
    pub fn check(&self, answer: Answer) -> Result<Answer, AnswerError> {
        let bad = |a: &Answer| AnswerError {
            expected: self.expected(),
            got: a.to_string(),
            problem: None,
        };
        match (&self.ask, answer) {
            (Ask::Dice { count }, Answer::Dice(d)) if d.len() == *count as usize => {
                Ok(Answer::Dice(d))
            }
            (Ask::Cards { count, .. }, a @ (Answer::Cards(_) | Answer::AdjutantDrew { .. }))
                if a.card_count() == Some(*count as usize) =>
            {
                Ok(a)
            }
            (Ask::Choose { options }, Answer::Choice(c)) => {
                let want = c.trim().to_lowercase();
                options
                    .iter()
                    .find(|o| o.id.to_lowercase() == want)
                    .or_else(|| options.iter().find(|o| o.label.to_lowercase() == want))
                    .or_else(|| {
                        options
                            .iter()
                            .find(|o| o.former_ids.iter().any(|f| f.to_lowercase() == want))
                    })
                    .map(|o| Answer::Choice(o.id.clone()))
                    .ok_or_else(|| bad(&Answer::Choice(c)))
            }
            (Ask::Number { min, max }, Answer::Number(n)) if (*min..=*max).contains(&n) => {
                Ok(Answer::Number(n))
            }
            (Ask::Number { min, max }, Answer::Number(n)) => Err(AnswerError {
                problem: Some(if n < *min {
                    format!("{n} is less than {min}, the least this question takes")
                } else {
                    format!("{n} is more than {max}, the most this question takes")
                }),
                ..bad(&Answer::Number(n))
            }),
            (Ask::Confirm, Answer::Confirm) => Ok(Answer::Confirm),
            (_, a) => Err(bad(&a)),
        }
    }
}

/// An input to a running procedure: an answer, or a manual edit made while
/// it waited (re-applied at the same point when the procedure re-runs: just
/// before the answer to the question that was pending, so the question itself
/// was built from the state before the edit, and everything after it sees it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Input {
    /// An answer to the pending request.
    Answer(Answer),
    /// A manual correction.
    Edit(Effect),
}

/// Why a procedure run stopped before finishing.
#[derive(Debug, Clone, PartialEq)]
pub enum Interrupt {
    /// It needs this answer next.
    Need(Request),
    /// The newest answer does not fit what was asked.
    Invalid(AnswerError),
    /// The game ended before the next question: nothing more is asked (see
    /// [`Ctx::end_when`]).
    Over,
}

impl From<AnswerError> for Interrupt {
    fn from(e: AnswerError) -> Self {
        Interrupt::Invalid(e)
    }
}

/// Result of a procedure step: `Err` stops the run (waiting or rejected).
pub type Flow<T> = Result<T, Interrupt>;

/// What a running procedure sees: the state (changed only through
/// [`Ctx::apply`]), the ruleset, a seeded RNG, and the answers so far.
pub struct Ctx<'a> {
    state: GameState,
    /// The game's ruleset.
    pub ruleset: &'a Ruleset,
    /// Seeded RNG for shuffles inside the procedure.
    pub rng: ChaCha8Rng,
    inputs: &'a [Input],
    pos: usize,
    /// Ends the game, when it must end at once, before a question is put
    /// (see [`Ctx::end_when`]).
    ends_game: Option<fn(&mut Ctx) -> bool>,
}

impl<'a> Ctx<'a> {
    /// A context that replays `inputs` from `state`.
    pub fn new(
        state: GameState,
        ruleset: &'a Ruleset,
        rng: ChaCha8Rng,
        inputs: &'a [Input],
    ) -> Ctx<'a> {
        Ctx {
            state,
            ruleset,
            rng,
            inputs,
            pos: 0,
            ends_game: None,
        }
    }

    /// From now on, before each question `check` may end the game (it
    /// applies the end and returns true): a game that ends at once (T52's
    /// sudden death, the moment the last commander falls) asks nothing
    /// more, and the run stops with [`Interrupt::Over`].
    pub fn end_when(&mut self, check: fn(&mut Ctx) -> bool) {
        self.ends_game = Some(check);
    }

    /// The current state.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// Ends the run, returning the state reached.
    pub fn into_state(self) -> GameState {
        self.state
    }

    /// Applies an effect to the state (and its log).
    pub fn apply(&mut self, e: Effect) {
        e.apply(&mut self.state, &mut self.rng);
    }

    /// Records which rule (and ruling) a check used and what came of it.
    pub fn resolved(&mut self, rule: &str, text: impl Into<String>) {
        let ruling = self.ruleset.rule(rule).and_then(|r| r.ruling.clone());
        self.apply(Effect::Resolved {
            rule: rule.to_string(),
            ruling,
            text: text.into(),
        });
    }

    /// Ends the game: one log line, "Game over: victory to Red. Why", citing
    /// `rule` (the End effect itself logs nothing, so it is said once).
    pub fn end_game(&mut self, rule: &str, outcome: crate::rules::state::Outcome) {
        let text = outcome.describe(self.state());
        self.resolved(rule, text);
        self.apply(Effect::End(outcome));
    }

    /// Logs why the answer just given is not taken, before the question
    /// is asked again (see [`Effect::Refused`]).
    pub fn refused(&mut self, rule: &str, text: impl Into<String>) {
        self.apply(Effect::Refused {
            rule: rule.to_string(),
            text: text.into(),
        });
    }

    /// Asks the table; returns the recorded answer, or interrupts the run.
    pub fn ask(&mut self, req: Request) -> Flow<Answer> {
        self.ask_as_given(req).map(|(a, _)| a)
    }

    /// Asks the table; returns the recorded answer checked (a choice by its
    /// id) and as it was given (an id, a label or a former id).
    /// Every run replays every answer, so the one given is lent, not copied.
    fn ask_as_given(&mut self, req: Request) -> Flow<(Answer, &'a Answer)> {
        let inputs = self.inputs;
        while let Some(Input::Edit(e)) = inputs.get(self.pos) {
            self.apply(e.clone());
            self.pos += 1;
        }
        if let Some(check) = self.ends_game
            && (self.state.outcome.is_some() || check(self))
        {
            return Err(Interrupt::Over);
        }
        match inputs.get(self.pos) {
            Some(Input::Answer(given)) => {
                let a = req.check(given.clone())?;
                self.pos += 1;
                Ok((a, given))
            }
            _ => Err(Interrupt::Need(req)),
        }
    }

    /// Asks for `count` dice and logs them under `prompt`.
    pub fn roll(&mut self, count: u32, prompt: impl Into<String>, rule: &str) -> Flow<DicePool> {
        let prompt = prompt.into();
        if count == 0 {
            return Ok(DicePool::default());
        }
        let dice = self.ask_dice(count, prompt.clone(), rule, None)?;
        let pool = DicePool { dice };
        self.apply(Effect::Rolled {
            purpose: prompt,
            dice: pool.clone(),
        });
        Ok(pool)
    }

    /// Asks for `count` dice whose result cannot change anything (a Panic
    /// Test that even a 6 passes, or even a 1 fails), for the reason `why`.
    /// The roll is still asked, so that saves and scripts made when it was
    /// rolled keep every later answer in place, but settled on `face` (the
    /// case the caller checked): the window takes it by itself, logging
    /// [`MOOT_ROLL_LABEL`], and whatever dice are given are not logged as a
    /// roll.
    pub fn roll_moot(
        &mut self,
        count: u32,
        prompt: impl Into<String>,
        rule: &str,
        face: D6,
        why: &str,
    ) -> Flow<()> {
        if count == 0 {
            return Ok(());
        }
        let die = Die {
            value: face,
            source: DieSource::Virtual,
        };
        let settled = Settled::new(Answer::Dice(vec![die; count as usize]), why);
        self.ask_dice(count, prompt.into(), rule, Some(settled))?;
        Ok(())
    }

    /// One dice question: its answer must be dice.
    fn ask_dice(
        &mut self,
        count: u32,
        prompt: String,
        rule: &str,
        settled: Option<Settled>,
    ) -> Flow<Vec<Die>> {
        match self.ask(Request {
            ask: Ask::Dice { count },
            prompt,
            rule: Some(rule.to_string()),
            settled: settled.map(Box::new),
        })? {
            Answer::Dice(dice) => Ok(dice),
            _ => Err(Interrupt::Invalid(AnswerError {
                expected: "dice".into(),
                got: "something else".into(),
                problem: None,
            })),
        }
    }

    /// Asks for one die.
    pub fn roll_one(&mut self, prompt: impl Into<String>, rule: &str) -> Flow<u8> {
        let pool = self.roll(1, prompt, rule)?;
        Ok(pool.dice.first().map_or(1, |d| d.value.get()))
    }

    /// Asks the table to choose; returns the chosen option's id.
    pub fn choose(
        &mut self,
        prompt: impl Into<String>,
        options: Vec<Choice>,
        rule: Option<&str>,
    ) -> Flow<String> {
        self.choose_settled(prompt, options, rule, None)
    }

    /// [`Ctx::choose`], with the option the game's state already settles
    /// when there is one (see [`Request::settled`]).
    pub fn choose_settled(
        &mut self,
        prompt: impl Into<String>,
        options: Vec<Choice>,
        rule: Option<&str>,
        settled: Option<Settled>,
    ) -> Flow<String> {
        match self.ask(Request {
            ask: Ask::Choose { options },
            prompt: prompt.into(),
            rule: rule.map(str::to_string),
            settled: settled.map(Box::new),
        })? {
            Answer::Choice(c) => Ok(c),
            other => Err(Interrupt::Invalid(AnswerError {
                expected: "a choice".into(),
                got: other.to_string(),
                problem: None,
            })),
        }
    }

    /// Asks the table to choose; returns the chosen option's id and whether
    /// the answer named one of that option's former ids (an older
    /// Adjutant's answer whose question has changed since).
    pub fn choose_noting_former(
        &mut self,
        prompt: impl Into<String>,
        options: Vec<Choice>,
        rule: Option<&str>,
    ) -> Flow<(String, bool)> {
        // An answer that is neither the chosen option's id nor its label
        // (case ignored, as `Request::check` matches) named a former id.
        let named: Vec<(String, String)> = options
            .iter()
            .map(|o| (o.id.to_lowercase(), o.label.to_lowercase()))
            .collect();
        let req = Request {
            ask: Ask::Choose { options },
            prompt: prompt.into(),
            rule: rule.map(str::to_string),
            settled: None,
        };
        match self.ask_as_given(req)? {
            (Answer::Choice(c), Answer::Choice(given)) => {
                let given = given.trim().to_lowercase();
                let chosen = c.to_lowercase();
                let by_former = !named
                    .iter()
                    .any(|(id, label)| *id == chosen && (*id == given || *label == given));
                Ok((c, by_former))
            }
            (other, _) => Err(Interrupt::Invalid(AnswerError {
                expected: "a choice".into(),
                got: other.to_string(),
                problem: None,
            })),
        }
    }

    /// Asks for a confirmation.
    pub fn confirm(&mut self, prompt: impl Into<String>, rule: Option<&str>) -> Flow<()> {
        self.ask(Request {
            ask: Ask::Confirm,
            prompt: prompt.into(),
            rule: rule.map(str::to_string),
            settled: None,
        })?;
        Ok(())
    }

    /// Asks for a number in `min..=max`.
    pub fn number(
        &mut self,
        prompt: impl Into<String>,
        min: i64,
        max: i64,
        rule: Option<&str>,
    ) -> Flow<i64> {
        self.number_settled(prompt, min, max, rule, None)
    }

    /// [`Ctx::number`], with the number the game's state already settles
    /// when there is one (see [`Request::settled`]).
    pub fn number_settled(
        &mut self,
        prompt: impl Into<String>,
        min: i64,
        max: i64,
        rule: Option<&str>,
        settled: Option<Settled>,
    ) -> Flow<i64> {
        match self.ask(Request {
            ask: Ask::Number { min, max },
            prompt: prompt.into(),
            rule: rule.map(str::to_string),
            settled: settled.map(Box::new),
        })? {
            Answer::Number(n) => Ok(n),
            other => Err(Interrupt::Invalid(AnswerError {
                expected: "a number".into(),
                got: other.to_string(),
                problem: None,
            })),
        }
    }

    /// Asks for `count` cards the players show on the table (played from a
    /// hand, turned from an untracked deck): the camera or the player names them.
    pub fn shown(
        &mut self,
        count: u32,
        prompt: impl Into<String>,
        rule: Option<&str>,
    ) -> Flow<Vec<Card>> {
        self.shown_except(count, prompt, rule, Vec::new())
    }

    /// [`Ctx::shown`] of a hand whose `played` cards are out of it for now
    /// (said with the question, so the window can grey them out).
    pub fn shown_except(
        &mut self,
        count: u32,
        prompt: impl Into<String>,
        rule: Option<&str>,
        played: Vec<Card>,
    ) -> Flow<Vec<Card>> {
        self.untracked_cards(count, prompt.into(), rule, played, false)
    }

    /// Asks for `count` cards turned from the top of a pack Adjutant does
    /// not track, none of them `turned_already` (greyed out in the window);
    /// "draw for me" turns them from what that pack still holds.
    pub fn turned_from_pack(
        &mut self,
        count: u32,
        prompt: impl Into<String>,
        rule: Option<&str>,
        turned_already: Vec<Card>,
    ) -> Flow<Vec<Card>> {
        self.untracked_cards(count, prompt.into(), rule, turned_already, true)
    }

    /// Cards of a pack Adjutant does not track, `played` greyed out;
    /// `turned` from its top (a virtual draw may answer) or shown from a hand.
    fn untracked_cards(
        &mut self,
        count: u32,
        prompt: String,
        rule: Option<&str>,
        played: Vec<Card>,
        turned: bool,
    ) -> Flow<Vec<Card>> {
        let ask = Ask::Cards {
            count,
            deck: None,
            played,
            chosen: false,
            turned,
        };
        self.ask_cards(ask, prompt, rule)
    }

    /// Asks for `count` cards of tracked `deck` without drawing them (the
    /// table names cards it can see, such as a pile's top cards put back in
    /// a new order): the window greys out what the pile does not hold.
    pub fn named_from_deck(
        &mut self,
        deck: DeckId,
        count: u32,
        prompt: impl Into<String>,
        rule: Option<&str>,
    ) -> Flow<Vec<Card>> {
        let ask = Ask::Cards {
            count,
            deck: Some(deck),
            played: Vec::new(),
            chosen: true,
            turned: false,
        };
        self.ask_cards(ask, prompt.into(), rule)
    }

    /// One card question: its answer must be cards.
    fn ask_cards(&mut self, ask: Ask, prompt: String, rule: Option<&str>) -> Flow<Vec<Card>> {
        match self.ask(Request {
            ask,
            prompt,
            rule: rule.map(str::to_string),
            settled: None,
        })? {
            Answer::Cards(cards) => Ok(cards),
            a @ Answer::AdjutantDrew { .. } => {
                let by_adjutant = a.drawn_by_adjutant();
                let cards = a.into_cards().unwrap_or_default();
                // Turned from a pack Adjutant does not track: no draw
                // line logs them, so this one says who turned them.
                self.apply(Effect::Note(format!(
                    "{} ({})",
                    codes(&cards),
                    drawn_note("turned", by_adjutant, cards.len())
                )));
                Ok(cards)
            }
            other => Err(Interrupt::Invalid(AnswerError {
                expected: "cards".into(),
                got: other.to_string(),
                problem: None,
            })),
        }
    }

    /// Asks for `count` cards from a tracked deck and takes them out of its
    /// draw pile. When the pile is too short, the cards left in it are drawn
    /// first, then the discards are shuffled into a new pile and the rest is
    /// drawn from that (so an arranged top of the pile is drawn as arranged).
    /// Cards that are in neither the draw pile nor the discards (drawn
    /// already, named twice, or not in this deck) are refused, naming the
    /// card, before anything changes.
    pub fn draw(
        &mut self,
        deck: DeckId,
        count: u32,
        prompt: impl Into<String>,
        rule: Option<&str>,
    ) -> Flow<Vec<Card>> {
        self.draw_for(deck, count, prompt, None, rule)
    }

    /// [`Ctx::draw`], with what the cards are drawn for (`purpose`, "Bull's
    /// Armour Check") said in the log line of the cards drawn, which is read
    /// back long after the question has gone.
    pub fn draw_for(
        &mut self,
        deck: DeckId,
        count: u32,
        prompt: impl Into<String>,
        purpose: Option<&str>,
        rule: Option<&str>,
    ) -> Flow<Vec<Card>> {
        let prompt = prompt.into();
        let Some(d) = self.state.decks.get(deck) else {
            return Ok(Vec::new());
        };
        let left = d.draw_pile.len() as u32;
        let count = count.min(d.len() as u32);
        if count <= left {
            return self.draw_from_pile(deck, count, prompt, purpose, rule);
        }
        let mut cards = self.draw_from_pile(
            deck,
            left,
            format!("{prompt} (the last {left} card(s) of the pile)"),
            purpose,
            rule,
        )?;
        self.apply(Effect::Reshuffle { deck });
        let rest = count - left;
        let more = if left == 0 {
            self.draw_from_pile(deck, rest, prompt, purpose, rule)?
        } else {
            self.draw_from_pile(
                deck,
                rest,
                format!("{prompt} ({rest} more after shuffling the discards)"),
                purpose,
                rule,
            )?
        };
        cards.extend(more);
        Ok(cards)
    }

    /// Asks for `count` cards that must all be in the deck's draw pile.
    fn draw_from_pile(
        &mut self,
        deck: DeckId,
        count: u32,
        prompt: String,
        purpose: Option<&str>,
        rule: Option<&str>,
    ) -> Flow<Vec<Card>> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let req = Request {
            ask: Ask::Cards {
                count,
                deck: Some(deck),
                played: Vec::new(),
                chosen: false,
                turned: false,
            },
            prompt,
            rule: rule.map(str::to_string),
            settled: None,
        };
        let answer = self.ask(req.clone())?;
        let by_adjutant = answer.drawn_by_adjutant() as u32;
        if answer.card_count().is_none() {
            return Err(Interrupt::Invalid(AnswerError {
                expected: "cards".into(),
                got: answer.to_string(),
                problem: None,
            }));
        }
        let cards = answer.into_cards().unwrap_or_default();
        if let Some(problem) = self.not_in_pile(deck, &cards) {
            return Err(Interrupt::Invalid(AnswerError {
                expected: req.expected(),
                got: Answer::Cards(cards).to_string(),
                problem: Some(problem),
            }));
        }
        // Which cards came off the top matters, not the order they
        // were named (or read by the camera) in.
        let on_top = self.state.decks.get(deck).is_some_and(|d| {
            let mut top: Vec<Card> = d
                .draw_pile
                .iter()
                .rev()
                .map(|c| c.card)
                .take(cards.len())
                .collect();
            let mut named = cards.clone();
            top.sort();
            named.sort();
            top == named
        });
        if !on_top && self.state.counter(&order_untracked_key(deck)) == 0 {
            // The table drew other cards than Adjutant's top ones: its
            // pile order no longer says what lies on top.
            self.apply(Effect::SetCounter {
                key: order_untracked_key(deck),
                value: 1,
            });
        }
        let from_discards = self.taken_from_discards(deck, &cards);
        self.apply(Effect::TakeCards {
            deck,
            cards: cards.clone(),
            purpose: purpose.map(str::to_string),
            by_adjutant,
        });
        if !from_discards.is_empty() {
            // Taken rather than refused (the table may have shuffled
            // them back), but a misread is likelier: say so.
            self.apply(Effect::Note(format!(
                        "{} came from the discards: fine if the table shuffled them back, otherwise a misread (Undo and name the card drawn)",
                        codes(&from_discards)
                    )));
        }
        Ok(cards)
    }

    /// The cards of `cards` that are not in the deck's draw pile (counting
    /// repeats), so come from its discards.
    fn taken_from_discards(&self, deck: DeckId, cards: &[Card]) -> Vec<Card> {
        self.state
            .decks
            .get(deck)
            .map_or_else(Vec::new, |d| d.not_in_draw_pile(cards))
    }

    /// Why `cards` cannot all come out of the deck (the first card that is
    /// neither in its draw pile nor in its discards, counting repeats), or
    /// `None` when they can. A card Adjutant holds among the discards is
    /// taken from there: the table may have shuffled in a card the app had
    /// not discarded yet (a Queen spent on a redraw), and refusing the card
    /// actually drawn would leave the player stuck.
    fn not_in_pile(&self, deck: DeckId, cards: &[Card]) -> Option<String> {
        let d = self.state.decks.get(deck)?;
        let mut left = d.held();
        for c in cards {
            match left.iter().position(|p| p == c) {
                Some(i) => {
                    left.swap_remove(i);
                }
                None => {
                    let have = (d.draw_pile.iter().chain(&d.discard_pile))
                        .filter(|p| p.card == *c)
                        .count();
                    let named = cards.iter().filter(|n| *n == c).count();
                    return Some(if have == 0 {
                        format!(
                            "{c} is not in {} (drawn already and not discarded, or not in this deck)",
                            d.name
                        )
                    } else {
                        format!(
                            "{c} is named {named} times but {} holds it {have} time(s)",
                            d.name
                        )
                    });
                }
            }
        }
        None
    }
}

/// The counter set once a deck's draws stop following Adjutant's pile order
/// (a physical deck shuffled at the table): from then on the order of its draw
/// pile is not known, only which cards are in it.
pub fn order_untracked_key(deck: DeckId) -> String {
    format!("deck-order-untracked:{deck}")
}

/// Builds dice from values typed or read, all with one source. Values outside
/// 1-6 are an error naming the value.
pub fn dice_from_values(values: &[u8], source: DieSource) -> Result<Vec<Die>, String> {
    values
        .iter()
        .map(|&v| {
            D6::new(v)
                .map(|value| Die { value, source })
                .ok_or_else(|| format!("{v} is not a d6 face (1-6)"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::games::{GameId, Library};
    use crate::table::{BackColour, Deck, PhysicalCard};
    use rand::SeedableRng;

    #[test]
    fn only_a_lone_option_or_a_range_of_one_is_an_only_answer() {
        let req = |ask| Request {
            ask,
            prompt: "?".into(),
            rule: None,
            settled: None,
        };
        let lone = req(Ask::Choose {
            options: vec![Choice::new("none", "No charge")],
        });
        assert_eq!(
            lone.only_answer(),
            Some((Answer::Choice("none".into()), "No charge".into()))
        );
        // A choice the game's state settles is taken like a lone option.
        let mut settled = req(Ask::Choose {
            options: vec![
                Choice::new("none", "No change"),
                Choice::new("Kd", "King Kd"),
            ],
        });
        assert_eq!(settled.only_answer(), None);
        settled.settled = Some(Box::new(Settled::new(
            Answer::Choice("none".into()),
            "nothing moved",
        )));
        assert_eq!(
            settled.only_answer(),
            Some((Answer::Choice("none".into()), "No change".into()))
        );
        let one = req(Ask::Number { min: 1, max: 1 });
        assert_eq!(one.only_answer(), Some((Answer::Number(1), "1".into())));
        let two = req(Ask::Choose {
            options: vec![Choice::new("yes", "Yes"), Choice::new("no", "No")],
        });
        // Dice, cards and confirmations ask for something done or seen.
        for ask in [
            two.ask.clone(),
            Ask::Number { min: 1, max: 2 },
            Ask::Confirm,
            Ask::Dice { count: 1 },
            Ask::Cards {
                count: 1,
                deck: None,
                played: Vec::new(),
                chosen: false,
                turned: false,
            },
        ] {
            assert_eq!(req(ask.clone()).only_answer(), None, "{ask:?}");
        }
    }

    fn cards(codes: &str) -> Vec<Card> {
        codes
            .split_whitespace()
            .map(|c| c.parse().unwrap_or_else(|e| panic!("{c}: {e}")))
            .collect()
    }

    fn physical(codes: &str) -> Vec<PhysicalCard> {
        cards(codes)
            .into_iter()
            .map(|card| PhysicalCard {
                card,
                back: BackColour::Red,
            })
            .collect()
    }

    /// A state whose one deck has `pile` (bottom first) and `discards`.
    fn deck_state(pile: &str, discards: &str) -> GameState {
        let mut s = GameState::default();
        s.decks.push(Deck {
            name: "Red's deck".into(),
            draw_pile: physical(pile),
            discard_pile: physical(discards),
        });
        s
    }

    fn ruleset() -> Ruleset {
        let (lib, _) = Library::builtin();
        lib.get(GameId::GentlemenOfWar)
            .cloned()
            .unwrap_or_else(|| panic!("no ruleset"))
    }

    fn answers(list: &[&str]) -> Vec<Input> {
        list.iter()
            .map(|a| Input::Answer(Answer::Cards(cards(a))))
            .collect()
    }

    #[test]
    fn a_short_pile_is_drawn_out_before_the_discards_are_shuffled_in() {
        let rs = ruleset();
        // 3c is the top card; three cards are wanted but two are left: the
        // two come first, then one more from the shuffled discards.
        let inputs = answers(&["3c 2c"]);
        let mut ctx = Ctx::new(
            deck_state("2c 3c", "4h 5h 6h"),
            &rs,
            ChaCha8Rng::seed_from_u64(1),
            &inputs,
        );
        match ctx.draw(0, 3, "Red draws 3", None) {
            Err(Interrupt::Need(req)) => {
                assert_eq!(
                    req.ask,
                    Ask::Cards {
                        count: 1,
                        deck: Some(0),
                        played: Vec::new(),
                        chosen: false,
                        turned: false,
                    }
                );
                assert!(req.prompt.contains("after shuffling"), "{}", req.prompt);
            }
            other => panic!("{other:?}"),
        }
        let inputs = answers(&["3c 2c", "5h"]);
        let mut ctx = Ctx::new(
            deck_state("2c 3c", "4h 5h 6h"),
            &rs,
            ChaCha8Rng::seed_from_u64(1),
            &inputs,
        );
        let drawn = ctx.draw(0, 3, "Red draws 3", None);
        assert_eq!(drawn.ok(), Some(cards("3c 2c 5h")));
        let d = &ctx.state().decks[0];
        assert_eq!(d.draw_pile.len(), 2);
        assert!(d.discard_pile.is_empty());
    }

    #[test]
    fn cards_not_in_the_draw_pile_are_refused_by_name() {
        let rs = ruleset();
        for (answer, named) in [("7d 7d", "7d is named 2 times"), ("7d 9s", "9s is not in")] {
            let inputs = answers(&[answer]);
            let state = deck_state("2c 7d 3c", "5h");
            let mut ctx = Ctx::new(state, &rs, ChaCha8Rng::seed_from_u64(1), &inputs);
            match ctx.draw(0, 2, "Red draws 2", None) {
                Err(Interrupt::Invalid(e)) => {
                    assert!(e.to_string().contains(named), "{e}")
                }
                other => panic!("{answer}: {other:?}"),
            }
            // Nothing was taken.
            assert_eq!(ctx.state().decks[0].draw_pile.len(), 3);
        }
    }

    #[test]
    fn a_card_the_app_holds_among_the_discards_is_taken_from_there() {
        let rs = ruleset();
        // The table shuffled 5h back in before Adjutant did.
        let inputs = answers(&["7d 5h"]);
        let state = deck_state("2c 7d 3c", "5h");
        let mut ctx = Ctx::new(state, &rs, ChaCha8Rng::seed_from_u64(1), &inputs);
        assert_eq!(
            ctx.draw(0, 2, "Red draws 2", None).ok(),
            Some(cards("7d 5h"))
        );
        let d = &ctx.state().decks[0];
        assert_eq!((d.draw_pile.len(), d.discard_pile.len()), (2, 0));
        // Not the top cards: the pile order is no longer known.
        assert_eq!(ctx.state().counter(&order_untracked_key(0)), 1);
        // Taken, but said: a card already drawn is likelier a misread.
        let said: Vec<&str> = ctx.state().log.iter().map(|l| l.text.as_str()).collect();
        assert!(
            said.contains(&"5h came from the discards: fine if the table shuffled them back, otherwise a misread (Undo and name the card drawn)"),
            "{said:?}"
        );
    }

    #[test]
    fn the_top_cards_named_in_any_order_keep_the_pile_order_known() {
        let rs = ruleset();
        let inputs = answers(&["7d 3c"]);
        let state = deck_state("2c 7d 3c", "");
        let mut ctx = Ctx::new(state, &rs, ChaCha8Rng::seed_from_u64(1), &inputs);
        assert_eq!(
            ctx.draw(0, 2, "Red draws 2", None).ok(),
            Some(cards("7d 3c"))
        );
        assert_eq!(ctx.state().counter(&order_untracked_key(0)), 0);
    }
}
