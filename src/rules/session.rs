//! A game session: the setup, an append-only event log, undo/redo, and exact
//! replay. `Session::apply` is the one way game state changes.

use super::ProcedureSpec;
use super::effect::Effect;
use super::games::GameId;
use super::procedure::{Answer, AnswerError, Ask, Ctx, Input, Interrupt, Request};
use super::ruleset::Ruleset;
use super::state::GameState;
use crate::table::deck::cards_without;
use crate::table::{Card, DicePool, Joker};
use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};

/// One entry of the log: everything that ever changes a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Event {
    /// Starts a procedure (a game loop, an order, a test).
    Begin(ProcedureSpec),
    /// Answers the pending request.
    Answer(Answer),
    /// A manual change or correction ("one click to correct a misread").
    Edit(Effect),
    /// Abandons the running procedure, keeping what it already did.
    Cancel,
}

/// Why an event was refused. A refused event changes nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    /// An answer was given but nothing was asked.
    #[error("nothing is being asked right now, so there is nothing to answer")]
    NothingAsked,
    /// A procedure was started while another one runs.
    #[error("another procedure is still running; answer or cancel it first")]
    Busy,
    /// The answer does not fit the request.
    #[error("{0}")]
    BadAnswer(#[from] AnswerError),
    /// The event names something the game does not have, or begins another
    /// game than the session's.
    #[error("{0}")]
    Invalid(String),
    /// A saved log could not be replayed.
    #[error("event {} of the log cannot be replayed: {reason}", index + 1)]
    Replay {
        /// 0-based index of the event (its message counts from 1).
        index: usize,
        /// Why.
        reason: String,
    },
}

#[derive(Debug, Clone)]
struct Running {
    spec: ProcedureSpec,
    start: GameState,
    /// Index of the `Begin` event: seeds the procedure's RNG.
    begun_at: usize,
    inputs: Vec<Input>,
    pending: Option<Request>,
}

/// A game in progress.
#[derive(Debug, Clone)]
pub struct Session {
    game: GameId,
    seed: u64,
    ruleset: Ruleset,
    events: Vec<Event>,
    redo: Vec<Event>,
    state: GameState,
    running: Option<Running>,
}

/// A question with one possible answer, answered by [`Session::take_only_answers`].
#[derive(Debug, Clone, PartialEq)]
pub struct AnsweredItself {
    /// The question.
    pub request: Request,
    /// The answer taken, in words (the option's label, the number).
    pub label: String,
    /// The length of the game's log before it was taken (the lines it
    /// added follow).
    pub log_from: usize,
}

/// Most one-answer questions [`Session::take_only_answers`] answers in a row.
const MAX_ONLY_ANSWERS: usize = 1000;

/// Mixes the session seed with an event index: every event gets its own
/// reproducible random stream, independent of what came before.
fn stream(seed: u64, index: usize, salt: u64) -> ChaCha8Rng {
    let mix = seed
        ^ (index as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ salt.wrapping_mul(0xD1B5_4A32_D192_ED03);
    ChaCha8Rng::seed_from_u64(mix)
}

impl Session {
    /// A new, empty session.
    pub fn new(game: GameId, ruleset: Ruleset, seed: u64) -> Session {
        Session {
            game,
            seed,
            ruleset,
            events: Vec::new(),
            redo: Vec::new(),
            state: GameState::default(),
            running: None,
        }
    }

    /// Rebuilds a session from a log, refusing the first event that does not apply.
    pub fn replay(
        game: GameId,
        ruleset: Ruleset,
        seed: u64,
        events: Vec<Event>,
    ) -> Result<Session, SessionError> {
        match Session::replay_longest(game, ruleset, seed, events) {
            (s, None) => Ok(s),
            (_, Some(e)) => Err(e),
        }
    }

    /// Replays as much of a saved log as still applies: every event up to the
    /// first that fails (a log written by an older Adjutant whose questions
    /// have since changed, or under a ruleset since house-ruled), and the
    /// error of that event, if any.
    pub fn replay_longest(
        game: GameId,
        ruleset: Ruleset,
        seed: u64,
        events: Vec<Event>,
    ) -> (Session, Option<SessionError>) {
        let mut s = Session::new(game, ruleset, seed);
        for (index, e) in events.into_iter().enumerate() {
            if let Err(e) = s.apply_inner(e) {
                let reason = e.to_string();
                return (s, Some(SessionError::Replay { index, reason }));
            }
        }
        (s, None)
    }

    /// The game.
    pub fn game(&self) -> GameId {
        self.game
    }

    /// The RNG seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The ruleset in use.
    pub fn ruleset(&self) -> &Ruleset {
        &self.ruleset
    }

    /// The current state.
    pub fn state(&self) -> &GameState {
        &self.state
    }

    /// The event log.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// What the table is being asked now, if anything.
    pub fn pending(&self) -> Option<&Request> {
        self.running.as_ref().and_then(|r| r.pending.as_ref())
    }

    /// True while a procedure runs.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Applies an event; on error nothing changes. Clears the redo stack.
    pub fn apply(&mut self, event: Event) -> Result<(), SessionError> {
        self.apply_inner(event)?;
        self.redo.clear();
        Ok(())
    }

    fn apply_inner(&mut self, event: Event) -> Result<(), SessionError> {
        let index = self.events.len();
        match &event {
            Event::Begin(spec) => {
                if self.running.is_some() {
                    return Err(SessionError::Busy);
                }
                if let Some(problem) = spec.mismatch(self.game, &self.state) {
                    return Err(SessionError::Invalid(problem));
                }
                let running = Running {
                    spec: spec.clone(),
                    start: self.state.clone(),
                    begun_at: index,
                    inputs: Vec::new(),
                    pending: None,
                };
                self.run(running)?;
            }
            Event::Answer(a) => {
                let Some(mut running) = self.running.clone() else {
                    return Err(SessionError::NothingAsked);
                };
                if running.pending.is_none() {
                    return Err(SessionError::NothingAsked);
                }
                running.inputs.push(Input::Answer(a.clone()));
                self.run(running)?;
            }
            Event::Edit(effect) => {
                if let Some(problem) = effect.missing_in(&self.state) {
                    return Err(SessionError::Invalid(format!("Edit refused: {problem}")));
                }
                match self.running.clone() {
                    Some(mut running) => {
                        running.inputs.push(Input::Edit(effect.clone()));
                        self.run(running)?;
                    }
                    None => effect.apply(&mut self.state, &mut stream(self.seed, index, 0)),
                }
            }
            Event::Cancel => {
                if self.running.take().is_none() {
                    return Err(SessionError::NothingAsked);
                }
            }
        }
        self.events.push(event);
        Ok(())
    }

    /// Re-runs a procedure from its start with its inputs; commits the result.
    fn run(&mut self, mut running: Running) -> Result<(), SessionError> {
        let rng = stream(self.seed, running.begun_at, 1);
        let mut ctx = Ctx::new(running.start.clone(), &self.ruleset, rng, &running.inputs);
        let flow = running.spec.run(&mut ctx);
        let state = ctx.into_state();
        match flow {
            Ok(()) | Err(Interrupt::Over) => {
                self.state = state;
                self.running = None;
            }
            Err(Interrupt::Need(req)) => {
                self.state = state;
                running.pending = Some(req);
                self.running = Some(running);
            }
            Err(Interrupt::Invalid(e)) => return Err(SessionError::BadAnswer(e)),
        }
        Ok(())
    }

    /// Undoes the last event; returns it, or `None` when the log is empty.
    pub fn undo(&mut self) -> Option<Event> {
        let mut events = std::mem::take(&mut self.events);
        let last = events.pop()?;
        let redo = std::mem::take(&mut self.redo);
        // Every prefix of an applied log replays: it was applied in order before.
        if let Ok(s) = Session::replay(self.game, self.ruleset.clone(), self.seed, events) {
            *self = s;
        }
        self.redo = redo;
        self.redo.push(last.clone());
        Some(last)
    }

    /// Re-applies the last undone event; `Ok(false)` when there is none.
    pub fn redo(&mut self) -> Result<bool, SessionError> {
        let Some(e) = self.redo.pop() else {
            return Ok(false);
        };
        if let Err(refused) = self.apply_inner(e) {
            // What followed the refused event was undone after it: redone
            // without it, it would land on the wrong question.
            self.redo.clear();
            return Err(refused);
        }
        Ok(true)
    }

    /// Answers the pending request while it can take only one answer
    /// ([`Request::only_answer`]), as the window does; returns each request
    /// answered, and the error that stopped it, if one did (the answers
    /// before it stay taken). A session that scripts drive is left to ask
    /// it (their answers to such questions are part of the `play` contract).
    pub fn take_only_answers(&mut self) -> (Vec<AnsweredItself>, Option<SessionError>) {
        let mut answered = Vec::new();
        // A procedure asks finitely often; the bound only guards against a
        // procedure that would ask the same one-answer question for ever.
        for _ in 0..MAX_ONLY_ANSWERS {
            let Some((request, (answer, label))) = self
                .pending()
                .and_then(|r| r.only_answer().map(|a| (r.clone(), a)))
            else {
                break;
            };
            let log_from = self.state.log.len();
            if let Err(e) = self.apply(Event::Answer(answer)) {
                return (answered, Some(e));
            }
            answered.push(AnsweredItself {
                request,
                label,
                log_from,
            });
        }
        (answered, None)
    }

    /// Undoes one step as the window counts them (never the game's opening
    /// event, see [`Session::can_undo_step`]): the last event, and the
    /// answers to one-answer questions it was followed by (undoing only
    /// those would bring the same question back, to be answered again by
    /// itself). Returns how many events were undone.
    pub fn undo_step(&mut self) -> usize {
        let mut undone = 0;
        while self.can_undo_step() && self.undo().is_some() {
            undone += 1;
            if self.pending().and_then(Request::only_answer).is_none() {
                return undone;
            }
        }
        // Stopped at the opening event on a question that answers itself:
        // the window would answer it again (and lose Redo), so undo nothing.
        if undone > 0 && self.pending().and_then(Request::only_answer).is_some() {
            for _ in 0..undone {
                if !matches!(self.redo(), Ok(true)) {
                    break;
                }
            }
            return 0;
        }
        undone
    }

    /// Whether [`Session::undo_step`] has anything to undo. A game's opening
    /// event (the setup it was begun with) is not undone there: without it
    /// there is no game to play on, only one to leave.
    pub fn can_undo_step(&self) -> bool {
        let floor = usize::from(matches!(self.events.first(), Some(Event::Begin(_))));
        self.events.len() > floor
    }

    /// Redoes one step as [`Session::undo_step`] undid it: the next undone
    /// event and the answers to one-answer questions that followed it.
    /// `Ok(false)` when there is nothing to redo.
    pub fn redo_step(&mut self) -> Result<bool, SessionError> {
        if !self.redo()? {
            return Ok(false);
        }
        while self.pending().and_then(Request::only_answer).is_some() && self.redo()? {}
        Ok(true)
    }

    /// Events that can be redone.
    pub fn redo_len(&self) -> usize {
        self.redo.len()
    }

    /// The events that can be redone, the next to redo last.
    pub fn redo_events(&self) -> &[Event] {
        &self.redo
    }

    /// Restores the events that can be redone (from a save). They are
    /// checked only when redone: one that no longer applies is refused then,
    /// as any event is.
    pub fn set_redo(&mut self, redo: Vec<Event>) {
        self.redo = redo;
    }

    /// An answer from the virtual table: dice from the seeded roller, the top
    /// cards of a tracked deck, or `None` where only a player can answer.
    pub fn virtual_answer(&self) -> Option<Answer> {
        self.virtual_rest(0, &[])
    }

    /// What Adjutant adds to an answer begun by the players: the dice
    /// still to roll once `dice_entered` are entered, or the whole card
    /// answer once `cards_entered` are picked, the rest drawn from the top
    /// of the draw pile leaving those out (or turned from an untracked
    /// pack), so what lies on the table stays in the answer (audit BM M2).
    /// With nothing entered, the whole [`Self::virtual_answer`].
    pub fn virtual_rest(&self, dice_entered: usize, cards_entered: &[Card]) -> Option<Answer> {
        let req = self.pending()?;
        match &req.ask {
            Ask::Dice { count } => {
                let mut rng = stream(self.seed, self.events.len(), 2);
                let n = (*count as usize).saturating_sub(dice_entered);
                Some(Answer::Dice(DicePool::roll(n, &mut rng).dice))
            }
            Ask::Cards {
                count,
                deck: Some(d),
                chosen: false,
                ..
            } => {
                let pile = &self.state.decks.get(*d)?.draw_pile;
                let top_first: Vec<Card> = pile.iter().rev().map(|c| c.card).collect();
                let mut drawn = cards_without(&top_first, cards_entered);
                drawn.truncate((*count as usize).saturating_sub(cards_entered.len()));
                Some(Answer::AdjutantDrew {
                    entered: cards_entered.to_vec(),
                    drawn,
                })
            }
            Ask::Cards {
                count,
                deck: None,
                played,
                chosen: false,
                turned: true,
            } => {
                let mut pack = Card::standard_52();
                if self.ruleset.cards.jokers {
                    pack.extend([Card::Joker(Joker::Red), Card::Joker(Joker::Black)]);
                }
                let out: Vec<Card> = played.iter().chain(cards_entered).copied().collect();
                let mut drawn = cards_without(&pack, &out);
                let mut rng = stream(self.seed, self.events.len(), 3);
                drawn.shuffle(&mut rng);
                drawn.truncate((*count as usize).saturating_sub(cards_entered.len()));
                Some(Answer::AdjutantDrew {
                    entered: cards_entered.to_vec(),
                    drawn,
                })
            }
            Ask::Confirm => Some(Answer::Confirm),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::games::Library;
    use crate::rules::state::Holder;
    use crate::table::{D6, Die, DieSource};

    fn session() -> Session {
        let (lib, errs) = Library::builtin();
        assert!(errs.is_empty(), "{errs:?}");
        let rs = lib.get(GameId::T52).cloned();
        let rs = rs.unwrap_or_else(|| panic!("t52 ruleset missing"));
        let mut s = Session::new(GameId::T52, rs, 42);
        for name in ["Red", "Blue"] {
            s.apply(Event::Edit(Effect::AddSide {
                name: name.into(),
                back: None,
            }))
            .unwrap_or_else(|e| panic!("{e}"));
        }
        s
    }

    fn die_answer(v: u8) -> Event {
        let value = D6::new(v).unwrap_or_else(|| panic!("face {v}"));
        Event::Answer(Answer::Dice(vec![Die {
            value,
            source: DieSource::Manual,
        }]))
    }

    #[test]
    fn a_refused_redo_drops_what_was_undone_after_it() {
        let mut s = session();
        s.apply(Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 1] }))
            .unwrap_or_else(|e| panic!("{e}"));
        for v in [3, 5] {
            s.apply(die_answer(v)).unwrap_or_else(|e| panic!("{e}"));
        }
        s.undo();
        s.undo();
        assert_eq!(s.redo_len(), 2);
        // As a save written under other rules might hold: the next event to
        // redo no longer applies (nothing asks for a die once the roll-off
        // is cancelled).
        let mut redo = s.redo_events().to_vec();
        // The next to redo is last.
        redo.push(die_answer(4));
        redo.push(Event::Cancel);
        s.set_redo(redo);
        assert!(s.redo().is_ok(), "the cancel applies");
        assert!(s.redo().is_err(), "a die after the cancel is refused");
        assert_eq!(
            s.redo_len(),
            0,
            "nothing left to land on the wrong question"
        );
    }

    #[test]
    fn events_naming_what_the_game_lacks_or_another_game_are_refused() {
        let mut s = session();
        let before = s.events().len();
        let gunfight = ProcedureSpec::Gunfight(crate::rules::gunfight::GameSetup {
            gangs: Vec::new(),
            civilians: false,
            question_order: 0,
        });
        let said = s.apply(Event::Begin(gunfight)).err().map(|e| e.to_string());
        assert_eq!(
            said.as_deref(),
            Some("this is a game of t52, but the event begins a game of gunfight")
        );
        let said = s
            .apply(Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 5] }))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            said.as_deref(),
            Some("side 5 cannot roll off: the game has 2 side(s)")
        );
        for sides in [vec![], vec![1], vec![0, 0]] {
            let said = s
                .apply(Event::Begin(ProcedureSpec::RollOff { sides }))
                .err()
                .map(|e| e.to_string());
            assert!(
                said.as_deref()
                    .is_some_and(|m| m.contains("two or more different sides")),
                "{said:?}"
            );
        }
        let stray = Effect::AddUnit(crate::rules::effect::UnitSpec {
            side: 9,
            name: "8c".into(),
            profile: "follower".into(),
            cards: Vec::new(),
            stats: Default::default(),
            soldiers: 8,
            wounds_per_soldier: 1,
            upgrades: Vec::new(),
        });
        let said = s.apply(Event::Edit(stray)).err().map(|e| e.to_string());
        assert!(
            said.as_deref()
                .is_some_and(|m| m.contains("8c joins side 9, but the game has 2 side(s)")),
            "{said:?}"
        );
        let wound = Effect::Wound { unit: 3, wounds: 1 };
        assert!(s.apply(Event::Edit(wound)).is_err());
        assert_eq!(s.events().len(), before, "nothing was logged");
    }

    fn dice(v: &[u8]) -> Answer {
        Answer::Dice(
            v.iter()
                .filter_map(|&x| D6::new(x))
                .map(|value| Die {
                    value,
                    source: DieSource::Manual,
                })
                .collect(),
        )
    }

    #[test]
    fn roll_off_rerolls_ties_and_sets_initiative() {
        let mut s = session();
        s.apply(Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 1] }))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(
            s.pending().map(|r| &r.ask),
            Some(Ask::Dice { count: 1 })
        ));
        for v in [4, 4, 2] {
            s.apply(Event::Answer(dice(&[v])))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(s.pending().is_some(), "tie must re-roll");
        s.apply(Event::Answer(dice(&[5])))
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(s.pending().is_none());
        assert_eq!(s.state().initiative, Some(1));
    }

    #[test]
    fn wrong_answer_is_refused_and_changes_nothing() {
        let mut s = session();
        s.apply(Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 1] }))
            .unwrap_or_else(|e| panic!("{e}"));
        let before = s.state().clone();
        let err = s.apply(Event::Answer(dice(&[1, 2])));
        assert!(matches!(err, Err(SessionError::BadAnswer(_))), "{err:?}");
        assert_eq!(s.state(), &before);
        assert_eq!(s.events().len(), 3);
        assert!(matches!(
            s.apply(Event::Answer(Answer::Confirm)),
            Err(SessionError::BadAnswer(_))
        ));
    }

    #[test]
    fn undo_redo_and_replay_reproduce_state_exactly() {
        let mut s = session();
        s.apply(Event::Edit(Effect::AddObjective {
            name: "K".into(),
            card: None,
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        s.apply(Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 1] }))
            .unwrap_or_else(|e| panic!("{e}"));
        s.apply(Event::Answer(dice(&[6])))
            .unwrap_or_else(|e| panic!("{e}"));
        s.apply(Event::Edit(Effect::SetHolder {
            objective: 0,
            holder: Holder::Side(1),
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        s.apply(Event::Answer(dice(&[3])))
            .unwrap_or_else(|e| panic!("{e}"));
        let done = s.state().clone();
        assert_eq!(done.initiative, Some(0));
        assert_eq!(done.objectives[0].holder, Holder::Side(1));

        let replayed = Session::replay(GameId::T52, s.ruleset().clone(), 42, s.events().to_vec())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(replayed.state(), &done);

        let n = s.events().len();
        for _ in 0..n {
            assert!(s.undo().is_some());
        }
        assert!(s.undo().is_none());
        assert_eq!(s.state(), &GameState::default());
        while s.redo().unwrap_or(false) {}
        assert_eq!(s.state(), &done);
    }

    #[test]
    fn edits_made_while_a_procedure_waits_survive_reruns() {
        let mut s = session();
        s.apply(Event::Edit(Effect::AddObjective {
            name: "K".into(),
            card: None,
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        s.apply(Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 1] }))
            .unwrap_or_else(|e| panic!("{e}"));
        s.apply(Event::Edit(Effect::SetHolder {
            objective: 0,
            holder: Holder::Contested,
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        s.apply(Event::Answer(dice(&[2])))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.state().objectives[0].holder, Holder::Contested);
    }

    #[test]
    fn virtual_rolls_are_seeded() {
        let mut a = session();
        a.apply(Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 1] }))
            .unwrap_or_else(|e| panic!("{e}"));
        let b = a.clone();
        assert_eq!(a.virtual_answer(), b.virtual_answer());
        let Some(ans) = a.virtual_answer() else {
            panic!("dice request must have a virtual answer")
        };
        a.apply(Event::Answer(ans))
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
