//! The app layer: an egui window over the rules and vision layers. UI code
//! only reads [`AppState`] and returns [`Command`]s; commands are applied once
//! per frame, after the UI, so the same path serves clicks and tests.

mod views;

use crate::paths;
use crate::rules::games::{GameId, Library};
use crate::rules::procedure::{Answer, Ask, Request, dice_from_values};
use crate::rules::save::{self, Autosave, SavedGame};
use crate::rules::session::{Event, Session};
use crate::table::DieSource;
use std::path::PathBuf;

/// Which screen is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// The game list and saved sessions.
    Home,
    /// A game's rules lookup.
    Rules(GameId),
    /// A session in play.
    Play,
}

/// Something the UI asks for; applied after the frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Show the home screen.
    GoHome,
    /// Show a game's rules lookup.
    OpenRules(GameId),
    /// Resume a saved session.
    Resume(PathBuf),
    /// Apply an event to the open session (and autosave).
    Apply(Event),
    /// Answer the pending request with the virtual table (roller, deck).
    AnswerVirtually,
    /// Undo the last event.
    Undo,
    /// Redo the last undone event.
    Redo,
    /// Dismiss the message banner.
    DismissMessage,
    /// Set the rules search text.
    SetRulesQuery(String),
    /// Add one die face typed by the player; the answer is sent once the
    /// request's count is reached.
    EnterDie(u8),
    /// Clear the dice typed so far.
    ClearDice,
}

/// Everything the window shows.
pub struct AppState {
    /// Rulesets in use.
    pub library: Library,
    /// Problems to show (bad ruleset files, bad saves), newest last.
    pub messages: Vec<String>,
    /// Saved games found at start and after each save.
    pub saves: Vec<SavedGame>,
    /// Where saves go.
    pub save_dir: PathBuf,
    /// Current screen.
    pub screen: Screen,
    /// The open session and where it autosaves.
    pub session: Option<(Session, Autosave)>,
    /// Text typed in the rules search box.
    pub rules_query: String,
    /// Dice faces typed so far for the pending dice request.
    pub dice_entry: Vec<u8>,
}

impl AppState {
    /// Loads rulesets (defaults plus overrides from `ruleset_dir`) and lists saves.
    pub fn new(ruleset_dir: Option<PathBuf>, save_dir: Option<PathBuf>) -> AppState {
        let (library, errors) =
            Library::load(Some(&ruleset_dir.unwrap_or_else(paths::ruleset_dir)));
        let save_dir = save_dir.unwrap_or_else(paths::save_dir);
        let mut messages: Vec<String> = errors
            .iter()
            .map(|e| format!("Ruleset not loaded, using the built-in one: {e}"))
            .collect();
        let saves = save::list(&save_dir);
        if !save_dir.exists() && std::fs::create_dir_all(&save_dir).is_err() {
            messages.push(format!(
                "Cannot create the save folder {}; games will not be saved.",
                save_dir.display()
            ));
        }
        AppState {
            library,
            messages,
            saves,
            save_dir,
            screen: Screen::Home,
            session: None,
            rules_query: String::new(),
            dice_entry: Vec::new(),
        }
    }

    /// Applies one command. Errors become messages; nothing panics.
    pub fn execute(&mut self, cmd: Command) {
        match cmd {
            Command::GoHome => self.screen = Screen::Home,
            Command::OpenRules(g) => {
                self.rules_query.clear();
                self.screen = Screen::Rules(g);
            }
            Command::Resume(path) => match save::load(&path, &self.library) {
                Ok(loaded) => {
                    for e in &loaded.skipped {
                        self.messages.push(format!("Skipped a damaged save: {e}"));
                    }
                    if loaded.from != path {
                        self.messages
                            .push(format!("Restored from backup {}", loaded.from.display()));
                    }
                    self.session = Some((loaded.session, Autosave { path }));
                    self.screen = Screen::Play;
                }
                Err(e) => self.messages.push(format!("Cannot resume: {e}")),
            },
            Command::Apply(event) => self.apply(event),
            Command::AnswerVirtually => {
                let answer = self.session.as_ref().and_then(|(s, _)| s.virtual_answer());
                match answer {
                    Some(a) => self.apply(Event::Answer(a)),
                    None => self.messages.push("This needs a player's answer.".into()),
                }
            }
            Command::Undo | Command::Redo => {
                if let Some((s, autosave)) = &mut self.session {
                    if cmd == Command::Undo {
                        s.undo();
                    } else if let Err(e) = s.redo() {
                        self.messages.push(format!("Cannot redo: {e}"));
                    }
                    if let Err(e) = save::save(s, &autosave.path) {
                        self.messages.push(format!("Not saved: {e}"));
                    }
                }
            }
            Command::SetRulesQuery(q) => self.rules_query = q,
            Command::EnterDie(v) => self.enter_die(v),
            Command::ClearDice => self.dice_entry.clear(),
            Command::DismissMessage => {
                self.messages.pop();
            }
        }
    }

    fn enter_die(&mut self, v: u8) {
        let wanted = match self.session.as_ref().and_then(|(s, _)| s.pending()) {
            Some(Request {
                ask: Ask::Dice { count },
                ..
            }) => *count as usize,
            _ => return,
        };
        self.dice_entry.push(v);
        if self.dice_entry.len() >= wanted {
            let values = std::mem::take(&mut self.dice_entry);
            match dice_from_values(&values, DieSource::Manual) {
                Ok(dice) => self.apply(Event::Answer(Answer::Dice(dice))),
                Err(e) => self.messages.push(e),
            }
        }
    }

    fn apply(&mut self, event: Event) {
        self.dice_entry.clear();
        if let Some((s, autosave)) = &mut self.session
            && let Err(e) = autosave.apply(s, event)
        {
            self.messages.push(e.to_string());
        }
    }
}

/// The eframe application.
pub struct AdjutantApp {
    /// Its state.
    pub state: AppState,
}

impl AdjutantApp {
    /// Draws one frame and applies the commands it produced.
    pub fn frame(ui: &mut egui::Ui, state: &mut AppState) {
        let commands = views::show(state, ui);
        for c in commands {
            state.execute(c);
        }
    }
}

impl eframe::App for AdjutantApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        AdjutantApp::frame(ui, &mut self.state);
    }
}

/// Opens the window. Returns when it is closed.
pub fn run(state: AppState) -> Result<(), eframe::Error> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Adjutant")
            .with_inner_size([1000.0, 700.0]),
        ..Default::default()
    };
    eframe::run_native(
        "Adjutant",
        options,
        Box::new(|_cc| Ok(Box::new(AdjutantApp { state }))),
    )
}
