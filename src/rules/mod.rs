//! The rules layer: rulesets, game state, events, procedures, saves and
//! scripted play. No UI and no camera: the CLI, the app and the tests drive it
//! the same way.

pub mod ability;
pub mod card_activation;
pub mod common;
pub mod effect;
pub mod games;
pub mod gentlemen;
pub mod gunfight;
pub mod lookup;
pub mod napoleonic;
pub mod procedure;
pub mod report;
pub mod ruleset;
pub mod save;
pub mod script;
pub mod session;
pub mod state;
pub mod t52;
#[cfg(test)]
pub(crate) mod testkit;

pub use effect::{Effect, UnitSpec};
pub use games::{GameId, Library};
pub use procedure::{Answer, Ask, Choice, Request};
pub use ruleset::{Ruleset, RulesetError};
pub use session::{Event, Session, SessionError};
pub use state::GameState;

use procedure::{Ctx, Flow};
use serde::{Deserialize, Serialize};
use state::SideId;

/// A procedure that can be started by an event; saved in the log by value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ProcedureSpec {
    /// Each side rolls a die; ties re-roll; the highest takes the initiative.
    RollOff {
        /// The sides rolling.
        sides: Vec<SideId>,
    },
    /// A whole game of T52, from regiments to victory.
    T52(t52::GameSetup),
    /// A whole game of Gunfight Gang, from gangs to the last man standing.
    Gunfight(gunfight::GameSetup),
    /// A whole game of Napoleonic Card Combat, from armies to three objectives.
    Napoleonic(napoleonic::GameSetup),
    /// A whole game of Card-Activation Skirmish, turn after turn.
    CardActivation(card_activation::GameSetup),
    /// A whole game of Gentlemen of War, from bands to a rout.
    Gentlemen(gentlemen::GameSetup),
}

impl ProcedureSpec {
    /// Why this procedure cannot begin in a session of `game` at `state`: a
    /// whole game of another kind (a script or save whose `game` does not
    /// match what it begins), or a roll-off of sides that do not exist.
    pub fn mismatch(&self, game: GameId, state: &GameState) -> Option<String> {
        let begins = match self {
            ProcedureSpec::RollOff { sides } => {
                if let Some(s) = sides.iter().find(|&&s| s >= state.sides.len()) {
                    return Some(format!(
                        "side {s} cannot roll off: the game has {} side(s)",
                        state.sides.len()
                    ));
                }
                let mut distinct = sides.clone();
                distinct.sort_unstable();
                distinct.dedup();
                return (distinct.len() < 2 || distinct.len() != sides.len()).then(|| {
                    format!(
                        "a roll-off needs two or more different sides, each named once; got {sides:?}"
                    )
                });
            }
            ProcedureSpec::T52(_) => GameId::T52,
            ProcedureSpec::Gunfight(_) => GameId::Gunfight,
            ProcedureSpec::Napoleonic(_) => GameId::Napoleonic,
            ProcedureSpec::CardActivation(_) => GameId::CardActivation,
            ProcedureSpec::Gentlemen(_) => GameId::GentlemenOfWar,
        };
        (begins != game).then(|| {
            format!(
                "this is a game of {}, but the event begins a game of {}",
                game.id(),
                begins.id()
            )
        })
    }

    /// Runs the procedure against `ctx` until it finishes or needs an answer.
    pub fn run(&self, ctx: &mut Ctx) -> Flow<()> {
        match self {
            ProcedureSpec::RollOff { sides } => {
                let winner = common::roll_off(ctx, sides, "initiative")?;
                ctx.apply(Effect::SetInitiative(winner));
                Ok(())
            }
            ProcedureSpec::T52(setup) => t52::play(ctx, setup),
            ProcedureSpec::Gunfight(setup) => gunfight::play(ctx, setup),
            ProcedureSpec::Napoleonic(setup) => napoleonic::play(ctx, setup),
            ProcedureSpec::CardActivation(setup) => card_activation::play(ctx, setup),
            ProcedureSpec::Gentlemen(setup) => gentlemen::play(ctx, setup),
        }
    }
}
