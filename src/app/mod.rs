//! The app layer: an egui window over the rules and vision layers. UI code
//! only reads [`AppState`] and returns [`Command`]s; commands are applied once
//! per frame, after the UI, so the same path serves clicks and tests.

pub mod answered;
pub mod corrections;
pub mod dice_entry;
pub mod live;
pub mod new_game;
pub mod setup_forms;
mod views;
pub mod window_layout;

use crate::paths;
use crate::rules::ProcedureSpec;
use crate::rules::games::{GameId, Library};
use crate::rules::procedure::{Answer, Ask, Request};
use crate::rules::ruleset::RulesetError;
use crate::rules::save::{self, Autosave, SavedGame};
use crate::rules::session::{Event, Session};
use crate::table::deck::cards_without;
use crate::table::{Card, DieSource};
use crate::vision::scan::Readers;
use crate::vision::settle::{RollWatcher, SettleRule};
use std::path::{Path, PathBuf};

/// Which screen is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Screen {
    /// The game list and saved sessions.
    Home,
    /// A game's rules lookup.
    Rules(GameId),
    /// A session in play.
    Play,
    /// The camera (or replay) view of the table.
    Table,
    /// Setting up a new T52 game.
    NewT52,
    /// Setting up a new Gunfight Gang game.
    NewGunfight,
    /// Setting up a new Napoleonic game.
    NewNapoleonic,
    /// Setting up a new Card-Activation game.
    NewCardActivation,
    /// Setting up a new Gentlemen of War game.
    NewGentlemen,
}

/// Something the UI asks for; applied after the frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// Show the home screen.
    GoHome,
    /// The question box of the game with `seed` has grown to `height`
    /// (kept, so the panes below stay put, also after a restart).
    KeepQuestionHeight {
        /// The game's seed.
        seed: u64,
        /// The box's content height (points).
        height: f32,
    },
    /// Show the open session.
    GoPlay,
    /// Show a game's rules lookup.
    OpenRules(GameId),
    /// Resume a saved session.
    Resume(PathBuf),
    /// Take a saved game off the home screen's list (moved aside, kept).
    PutAway(PathBuf),
    /// Apply an event to the open session (and autosave).
    Apply(Event),
    /// Answer the pending request with the virtual table (roller, deck).
    AnswerVirtually,
    /// Undo the last event.
    Undo,
    /// Redo the last undone event.
    Redo,
    /// Dismiss one message (by its place in [`AppState::messages`]).
    DismissMessage(usize),
    /// Dismiss every message.
    DismissAllMessages,
    /// Set the rules search text.
    SetRulesQuery(String),
    /// Add one die face typed by the player; the answer is sent once the
    /// request's count is reached.
    EnterDie(u8),
    /// Enter the camera's die at this place of the newest frame's reading
    /// (one of several in view: both players rolled together).
    UseCameraDie(usize),
    /// The pointer is over the camera's answers and picks: a replay keeps
    /// its photo for the next frame, so the buttons do not change under
    /// the pointer (audit CC C4). (A camera's frames go on: the pointer
    /// may rest there while dice are rolled.)
    HoldReplayPhoto,
    /// Clear the dice typed so far.
    ClearDice,
    /// Take back the last die entered.
    RemoveLastDie,
    /// Take out the die entered at this place.
    RemoveDie(usize),
    /// Take back the last card picked.
    RemoveLastCard,
    /// Show the table view.
    OpenTable,
    /// Answer the pending request with what the camera reads now.
    AnswerFromCamera,
    /// Stop the camera or replay.
    StopLive,
    /// Look for the webcam again and read it (one plugged in, or back,
    /// after the app started).
    StartCamera,
    /// Set the folder typed in the table view's "read photos" box.
    SetReplayDir(String),
    /// Read the photos of a folder as if they were camera frames.
    Replay(PathBuf),
    /// Open the T52 setup form.
    NewT52,
    /// Replace the setup form with edited text.
    EditForm(new_game::NewGameForm),
    /// Fill a player's units (0 or 1) from the cards the camera reads now.
    UnitsFromCamera(usize),
    /// Start the T52 game the form describes.
    StartT52,
    /// Answer a number request with the number typed (refused, saying why,
    /// when it is not a whole number).
    AnswerTypedNumber,
    /// Set the text typed for a number request.
    SetNumberTyped(String),
    /// Pick a detection in the table view to correct (or none).
    Select(Option<corrections::Target>),
    /// Pick a card whose outline, grown, holds a click beside it (see
    /// [`AppState::selected_beside`]).
    SelectBeside(corrections::Target, crate::vision::geometry::Point),
    /// Correct what the camera read for one detection of the shown frame.
    Correct(corrections::Target, corrections::Fix),
    /// Forget every correction.
    ClearCorrections,
    /// Keep the shown frame, with its dice as read and corrected, as a
    /// labelled dice photo in [`AppState::capture_dir`].
    KeepFrame,
    /// Open the Gunfight setup form.
    NewGunfight,
    /// Replace the Gunfight setup form.
    EditGunfightForm(setup_forms::GunfightForm),
    /// Start the Gunfight game the form describes.
    StartGunfight,
    /// Open the Napoleonic setup form.
    NewNapoleonic,
    /// Replace the Napoleonic setup form.
    EditNapoleonicForm(setup_forms::NapoleonicForm),
    /// Start the Napoleonic game the form describes.
    StartNapoleonic,
    /// Open the Card-Activation setup form.
    NewCardActivation,
    /// Replace the Card-Activation setup form.
    EditCardActivationForm(setup_forms::CardActivationForm),
    /// Start the Card-Activation game the form describes.
    StartCardActivation,
    /// Open the Gentlemen of War setup form.
    NewGentlemen,
    /// Replace the Gentlemen of War setup form.
    EditGentlemenForm(setup_forms::GentlemenForm),
    /// Start the Gentlemen of War game the form describes.
    StartGentlemen,
    /// Add one card picked by the player to the pending cards answer; the
    /// answer is sent once the request's count is reached.
    EnterCard(crate::table::Card),
    /// Clear the cards picked so far.
    ClearCards,
    /// Set the card codes being typed for the pending cards request.
    SetCardsTyped(String),
    /// Enter the typed card codes (`Qh 10s XR`), as if each was clicked.
    EnterTypedCards,
    /// Read the camera's dice enlarged as this says from now on; `Auto`
    /// measures again.
    SetDiceScale(crate::vision::dice::scale::DiceScale),
}

/// Everything the window shows.
pub struct AppState {
    /// Rulesets in use.
    pub library: Library,
    /// Problems to show (bad ruleset files, bad saves), newest last.
    pub messages: Vec<String>,
    /// Which of the messages are news, each with the screen it belongs to
    /// (see [`AppState::inform`]).
    news: Vec<(String, Screen)>,
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
    /// Folder typed in the table view to read photos from.
    pub replay_dir: String,
    /// Dice faces typed so far for the pending dice request.
    pub dice_entry: dice_entry::DiceEntry,
    /// The readers, when their models loaded.
    pub readers: Option<Readers>,
    /// The running frame-source loop, if any.
    pub live: Option<live::Live>,
    /// The newest frame read.
    pub live_frame: Option<live::LiveFrame>,
    /// The suit glyphs have been added to egui's fonts.
    pub fonts_installed: bool,
    /// Set when a new frame must be uploaded to the GPU.
    pub live_dirty: bool,
    /// The uploaded picture of the newest frame.
    pub live_texture: Option<egui::TextureHandle>,
    /// The T52 setup form.
    pub form: new_game::NewGameForm,
    /// The text typed for a number request (`None` until touched: the
    /// field then shows 0, or the allowed number nearest to it).
    pub number_typed: Option<String>,
    /// The Gunfight setup form.
    pub gunfight_form: setup_forms::GunfightForm,
    /// The Napoleonic setup form.
    pub napoleonic_form: setup_forms::NapoleonicForm,
    /// The Card-Activation setup form.
    pub card_activation_form: setup_forms::CardActivationForm,
    /// The Gentlemen of War setup form.
    pub gentlemen_form: setup_forms::GentlemenForm,
    /// Cards picked so far for the pending cards request.
    pub cards_entry: Vec<Card>,
    /// Card codes typed (not yet entered) for the pending cards request.
    pub cards_typed: String,
    /// The player's fixes to what the camera reads.
    pub corrections: corrections::Corrections,
    /// The detection picked for correcting in the table view.
    pub selected: Option<corrections::Target>,
    /// Where the player clicked when [`AppState::selected`] is a card
    /// picked only by its grown outline (beside it): the picker then also
    /// offers to add a card there, such as one tucked under it (audit Q6).
    pub selected_beside: Option<crate::vision::geometry::Point>,
    /// Follows the dice across frames: a camera's dice count once they rest.
    pub roll: RollWatcher,
    /// The cards of the frames, followed across frames likewise.
    pub cards_watch: crate::vision::settle_cards::CardWatcher,
    /// The photo set that frames kept from the table view join
    /// (`<data>/captures/dice`, beside the save folder).
    pub capture_dir: PathBuf,
    /// How frames are enlarged before their dice are read (kept when the
    /// source changes).
    pub dice_scale: crate::vision::dice::scale::DiceScale,
    /// Which webcam to read (0 is the first).
    pub camera_index: u32,
    /// The open game's last save failed (the header says so until one works).
    pub save_failed: bool,
    /// Where the player was told that leaving the open game (for another
    /// game, or closing the window) would lose answers that could not be
    /// saved: its save file and log length then. The next attempt at that
    /// same point leaves it.
    unsaved_warned: Option<(PathBuf, usize)>,
    /// The camera reading that answered the last question: not offered again
    /// while the table still shows it.
    answered_reading: Option<answered::AnsweredReading>,
    /// Readings that answered undone questions, with the game's event count
    /// once each was taken: a Redo brings its own back.
    undone_readings: Vec<(usize, answered::AnsweredReading)>,
    /// Cards that answered questions while the camera showed them: not
    /// offered again while they lie where they lay.
    used: answered::UsedOnTable,
    /// Messages that refused an answer to the question on screen: shown
    /// with the question (not at the foot), they go once an answer is taken
    /// or another question comes up.
    refusals: Vec<String>,
    /// A failed save of the last answer: it goes once an answer is taken
    /// (its save writes the whole game).
    save_refusal: Option<String>,
    /// What each answer taken in the open game did, newest last: the one
    /// whose event count is the session's is shown beside the question on
    /// screen (after Undo, the answer before's; none after an edit).
    answers: Vec<LastAnswer>,
    /// Messages the player dismissed since the frame source started: a
    /// non-fatal frame problem among them (a bad photo met again on every
    /// loop of a replay) is not shown again.
    dismissed: Vec<String>,
    /// The window's remembered size and question-box heights.
    pub layout: window_layout::WindowLayout,
    /// Where the layout is kept (`<data>/window.ron`).
    pub layout_path: PathBuf,
    /// The frame source that was lost (camera unplugged, photo folder
    /// gone), looked for again every [`SOURCE_RETRY_SECS`] until frames
    /// come again or the player stops it.
    lost_source: Option<FrameSourceKind>,
    /// The pointer was over the camera's answers last frame
    /// ([`Command::HoldReplayPhoto`]).
    pointer_holds_photo: bool,
    /// When a lost source was last looked for (app time, s).
    source_looked_at: Option<f64>,
    /// The source running now (what is looked for again if it is lost).
    source: Option<FrameSourceKind>,
    /// Messages a lost source left, taken down once frames come again.
    lost_messages: Vec<String>,
    /// The layout changed and is not yet written.
    layout_dirty: bool,
    /// When that change was first seen (app time, s); the file is written
    /// once the layout has rested [`LAYOUT_WRITE_DELAY_SECS`].
    layout_changed_at: Option<f64>,
}

/// Where frames come from, as far as starting it again goes.
#[derive(Debug, Clone, PartialEq)]
pub enum FrameSourceKind {
    /// Webcam number.
    Camera(u32),
    /// A folder of photos.
    Replay(PathBuf),
}

/// A lost camera or photo folder is looked for again this often (seconds).
pub const SOURCE_RETRY_SECS: f64 = 2.0;

/// A dragged window edge changes the size every frame: the layout is written
/// once it has rested this long (seconds), or when the window closes.
const LAYOUT_WRITE_DELAY_SECS: f64 = 1.0;

impl AppState {
    /// Loads rulesets (defaults plus overrides from `ruleset_dir`) and lists saves.
    pub fn new(ruleset_dir: Option<PathBuf>, save_dir: Option<PathBuf>) -> AppState {
        let (library, errors) =
            Library::load(Some(&ruleset_dir.unwrap_or_else(paths::ruleset_dir)));
        let save_dir = save_dir.unwrap_or_else(paths::save_dir);
        let mut messages: Vec<String> = errors
            .iter()
            .map(|e| match e {
                RulesetError::NamesNoGame { .. } => format!("House rules not used: {e}"),
                _ => format!("Ruleset not loaded, using the built-in one: {e}"),
            })
            .collect();
        let saves = save::list_checked(&save_dir, &library);
        // Captures and learned decks live beside the save folder.
        let data_dir = save_dir
            .parent()
            .map_or_else(paths::data_dir, Path::to_path_buf);
        let capture_dir = data_dir.join("captures").join("dice");
        let layout_path = data_dir.join(window_layout::WINDOW_LAYOUT_FILE);
        let (layout, layout_problem) = window_layout::WindowLayout::load(&layout_path);
        messages.extend(layout_problem);
        let readers = match Readers::with_overrides(&paths::model_dir()) {
            Ok(loaded) => {
                let mut r = loaded.readers;
                for e in loaded.problems {
                    messages.push(format!("Model file not used, the built-in one is: {e}"));
                }
                for p in loaded.used {
                    messages.push(format!(
                        "Reading with your model file {} instead of the built-in one.",
                        p.display()
                    ));
                }
                // The deck taught with `learn-deck` reads in the window too.
                if let Some(deck) = paths::newest_deck(&data_dir.join("decks"))
                    && let Err(e) = r.add_learned_deck(&deck)
                {
                    messages.push(format!(
                        "Your learned deck is not used (cards are read with the general model): {e}. Teach it again with `adjutant learn-deck`."
                    ));
                }
                Some(r)
            }
            Err(e) => {
                messages.push(format!("Card and dice reading is off: {e}"));
                None
            }
        };
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
            replay_dir: String::new(),
            dice_entry: dice_entry::DiceEntry::default(),
            readers,
            live: None,
            live_frame: None,
            live_dirty: false,
            fonts_installed: false,
            live_texture: None,
            form: new_game::NewGameForm::default(),
            number_typed: None,
            gunfight_form: setup_forms::GunfightForm::default(),
            napoleonic_form: setup_forms::NapoleonicForm::default(),
            card_activation_form: setup_forms::CardActivationForm::default(),
            gentlemen_form: setup_forms::GentlemenForm::default(),
            cards_entry: Vec::new(),
            cards_typed: String::new(),
            corrections: corrections::Corrections::default(),
            selected: None,
            selected_beside: None,
            roll: RollWatcher::new(SettleRule::STILLS),
            cards_watch: crate::vision::settle_cards::CardWatcher::new(SettleRule::STILLS),
            capture_dir,
            dice_scale: crate::vision::dice::scale::DiceScale::Auto,
            camera_index: 0,
            save_failed: false,
            unsaved_warned: None,
            answered_reading: None,
            undone_readings: Vec::new(),
            used: answered::UsedOnTable::default(),
            refusals: Vec::new(),
            save_refusal: None,
            answers: Vec::new(),
            dismissed: Vec::new(),
            layout,
            layout_path,
            layout_dirty: false,
            layout_changed_at: None,
            lost_source: None,
            pointer_holds_photo: false,
            news: Vec::new(),
            source_looked_at: None,
            source: None,
            lost_messages: Vec::new(),
        }
    }

    /// Resumes the newest saved game that can be (`--resume`), saying so
    /// when the newest cannot be and an older one is opened instead, or
    /// why none can be.
    pub fn resume_newest(&mut self) {
        let name = views::display_name;
        let newest_unusable = self.saves.first().and_then(|s| match &s.condition {
            save::SaveCondition::Unusable(why) => Some((name(&s.path), why.clone())),
            _ => None,
        });
        match self
            .saves
            .iter()
            .find(|s| s.resumable())
            .map(|s| s.path.clone())
        {
            Some(path) => {
                if let Some((newest, why)) = newest_unusable {
                    self.notify(format!(
                        "The newest saved game, {newest}, cannot be resumed ({why}); {}, the newest that can, is open instead.",
                        name(&path)
                    ));
                }
                self.execute(Command::Resume(path));
            }
            None => match newest_unusable {
                Some((newest, why)) => self.notify(format!(
                    "No saved game can be resumed: the newest, {newest}, cannot ({why})."
                )),
                None => self.notify("No saved game to resume."),
            },
        }
    }

    /// Looks again for a lost frame source when it is time (see
    /// [`SOURCE_RETRY_SECS`]); returns how long until the next look while
    /// one is lost.
    fn retry_lost_source(&mut self, now: f64) -> Option<f64> {
        let kind = self.lost_source.clone()?;
        if self.live.is_some() {
            return None;
        }
        let since = now - self.source_looked_at.unwrap_or(f64::NEG_INFINITY);
        if since < SOURCE_RETRY_SECS {
            return Some(SOURCE_RETRY_SECS - since);
        }
        self.source_looked_at = Some(now);
        // A look that fails says nothing new: the loss is already said.
        let before = self.messages.len();
        match kind {
            FrameSourceKind::Replay(dir) => {
                // Started only once photos that read are there again (a
                // folder of none would fail and be said again: audit Z2).
                if crate::vision::frame_source::ReplaySource::open(&dir)
                    .is_ok_and(|r| r.has_readable_photo())
                {
                    self.start_replay(dir);
                }
            }
            FrameSourceKind::Camera(_) => self.start_camera(),
        }
        self.messages.truncate(before);
        Some(SOURCE_RETRY_SECS)
    }

    /// The layout changed: written once it rests (see
    /// [`LAYOUT_WRITE_DELAY_SECS`]).
    fn layout_changed(&mut self) {
        self.layout_dirty = true;
        self.layout_changed_at = None;
    }

    /// Writes the layout when it has rested since its last change, or at
    /// once when `closing`. Returns how long until it should be looked at
    /// again, if it is still waiting.
    fn write_layout_when_settled(&mut self, now: f64, closing: bool) -> Option<f64> {
        if !self.layout_dirty {
            return None;
        }
        let since = *self.layout_changed_at.get_or_insert(now);
        let wait = LAYOUT_WRITE_DELAY_SECS - (now - since);
        if wait > 0.0 && !closing {
            return Some(wait);
        }
        self.layout_dirty = false;
        self.layout_changed_at = None;
        if let Err(e) = self.layout.save(&self.layout_path) {
            // Said once: the next change tries again, quietly on success.
            self.notify(format!("The window's size could not be remembered: {e}"));
        }
        None
    }

    /// Puts a saved game away (off the home screen's list, kept on disk);
    /// never the game open in the window.
    fn put_away(&mut self, path: &std::path::Path) {
        if self.session.as_ref().is_some_and(|(_, a)| a.path == path) {
            self.notify("The game open in the window cannot be put away.");
            return;
        }
        match save::put_away(path) {
            Ok(dir) => self.inform(format!(
                "{} is put away in {} (move it back to list it again).",
                path.file_name().unwrap_or_default().to_string_lossy(),
                dir.display()
            )),
            Err(e) => self.notify(format!("Could not put the game away: {e}")),
        }
        self.saves = save::list_checked(&self.save_dir, &self.library);
    }

    /// Applies one command. Errors become messages; nothing panics.
    pub fn execute(&mut self, cmd: Command) {
        match cmd {
            Command::GoHome => {
                // Games played since the list was read have moved up.
                self.saves = save::list_checked(&self.save_dir, &self.library);
                self.screen = Screen::Home;
            }
            Command::GoPlay => self.screen = Screen::Play,
            Command::KeepQuestionHeight { seed, height } => {
                if self.layout.keep_question_height(seed, height) {
                    self.layout_changed();
                }
            }
            Command::PutAway(path) => self.put_away(&path),
            Command::OpenRules(g) => {
                self.rules_query.clear();
                self.screen = Screen::Rules(g);
            }
            // The game open already: back to it as it is (Redo and the last
            // answers' lines kept).
            Command::Resume(path) if self.session.as_ref().is_some_and(|(_, a)| a.path == path) => {
                self.screen = Screen::Play;
            }
            Command::Resume(_) if !self.may_leave_open_game() => {}
            Command::Resume(path) => match save::load(&path, &self.library) {
                Ok(loaded) => {
                    for e in &loaded.skipped {
                        self.notify(format!("Skipped {e}"));
                    }
                    // The next autosave writes the shorter log: keep the
                    // whole one first.
                    let kept = loaded.cut_short.as_ref().map(|_| {
                        match save::keep_whole(&path, &loaded.from) {
                            Ok(whole) => format!("The whole log is kept in {}.", whole.display()),
                            Err(e) => format!("The whole log could not be kept: {e}."),
                        }
                    });
                    match (&loaded.refused_setup, &loaded.cut_short) {
                        // A refused setup is why the rest did not apply:
                        // said once, with what to do, not as a game that
                        // goes on (audit Z2-3).
                        (Some(why), _) => self.notify(format!(
                            "This game's setup is refused now ({why}). A game begun with house \
                             rules plays on once Adjutant runs with those rulesets in place: \
                             close it without answering and resume it then.{}",
                            kept.map(|k| format!(" {k}")).unwrap_or_default()
                        )),
                        (None, Some(cut)) => self.notify(format!(
                            "Resumed in part: {cut}. {}",
                            kept.unwrap_or_default()
                        )),
                        (None, None) => {}
                    }
                    if loaded.from != path {
                        // A backup is the game as it was a save or more
                        // before: an answer given, or one undone, since
                        // then is not in it.
                        self.notify(format!(
                            "Restored from backup {}: the game as it was before its latest \
                             change(s); check the last answers in the log.",
                            loaded.from.display()
                        ));
                    }
                    self.clear_entries();
                    // The last answer's lines show with the question, as
                    // they did before the app was closed.
                    self.answers = recovered_answer(&loaded.session).into_iter().collect();
                    self.session = Some((loaded.session, Autosave { path }));
                    self.answered_reading = None;
                    self.undone_readings.clear();
                    self.used.clear();
                    self.save_failed = false;
                    self.rules_query.clear();
                    self.screen = Screen::Play;
                }
                Err(e) => {
                    self.notify(format!("Cannot resume: {e}"));
                    // "Resume last game" must not offer it again.
                    self.saves.retain(|s| s.path != path);
                }
            },
            Command::Apply(event) => self.apply(event),
            Command::AnswerVirtually => {
                // Dice or cards entered already lie on the table: Adjutant
                // rolls or draws only the rest (audit BM M2).
                // (An undone roll brought back whole is rolled anew.)
                let wanted = self.dice_asked().unwrap_or(0);
                let dice = Some(self.dice_entry.len())
                    .filter(|&n| n < wanted)
                    .unwrap_or(0);
                let cards = self.cards_entry.clone();
                let answer =
                    (self.session.as_ref()).and_then(|(s, _)| s.virtual_rest(dice, &cards));
                match answer {
                    Some(Answer::Dice(rest)) if dice > 0 => {
                        for d in rest {
                            self.enter_die(dice_entry::EnteredDie {
                                value: d.value.get(),
                                source: DieSource::Virtual,
                                seen: None,
                            });
                        }
                    }
                    Some(a) => self.apply(Event::Answer(a)),
                    None => self.notify("This needs a player's answer."),
                }
            }
            Command::Undo | Command::Redo => {
                // Faces or cards picked for the question on screen do not
                // belong to the one that Undo or Redo brings up; the reading
                // an undone answer used may answer again.
                self.clear_entries();
                let reading = self.answered_reading.take();
                let mut problems = Vec::new();
                if let Some((s, autosave)) = &mut self.session {
                    let log_before = s.state().log.len();
                    let events_before = s.events().len();
                    if cmd == Command::Undo {
                        s.undo_step();
                        // The cards and dice of undone answers may answer
                        // again; the ones of answers before them still lie
                        // there. A Redo brings them back (audit BE N4).
                        self.used.forget_after(s.events().len());
                        if let Some(r) = reading {
                            self.undone_readings.push((events_before, r));
                        }
                        // A roll of several dice undone comes back entered:
                        // one wrong die is taken out and entered again, not
                        // the whole roll retyped.
                        if let (
                            Some(Request {
                                ask: Ask::Dice { count },
                                ..
                            }),
                            Some(Event::Answer(Answer::Dice(dice))),
                        ) = (s.pending(), s.redo_events().last())
                            && *count > 1
                            && dice.len() == *count as usize
                        {
                            let seen = self.used.dice.undone_at(events_before);
                            self.dice_entry = dice_entry::DiceEntry::of_roll(dice, &seen);
                        }
                    } else if let Err(e) = s.redo_step() {
                        problems.push(format!("Cannot redo: {e}"));
                    } else {
                        let events = s.events().len();
                        self.used.restore_upto(events);
                        if let Some(at) =
                            self.undone_readings.iter().position(|(n, _)| *n == events)
                        {
                            self.answered_reading = Some(self.undone_readings.remove(at).1);
                        }
                    }
                    let events = s.events().len();
                    // A step undone before the app was closed has no kept
                    // lines: show the ones its Redo added.
                    if cmd == Command::Redo && !self.answers.iter().any(|a| a.events == events) {
                        self.answers.retain(|a| a.events < events);
                        self.answers.push(LastAnswer {
                            events,
                            from: log_before,
                            only: Vec::new(),
                        });
                    }
                    // Undone back to an answer given before the app was
                    // closed: its lines are worked out again.
                    if cmd == Command::Undo
                        && !self.answers.iter().any(|a| a.events == events)
                        && let Some(a) = recovered_answer(s)
                    {
                        // Kept in event order (newest last), Redo's ones too.
                        let at = self.answers.partition_point(|k| k.events < events);
                        self.answers.insert(at, a);
                    }
                    problems.extend(save_noting(s, autosave, &mut self.save_failed));
                }
                for p in problems {
                    self.notify(p);
                }
            }
            Command::SetRulesQuery(q) => self.rules_query = q,
            Command::EnterDie(v) => self.enter_die(dice_entry::EnteredDie {
                value: v,
                source: DieSource::Manual,
                seen: None,
            }),
            Command::UseCameraDie(i) => self.use_camera_die(i),
            Command::HoldReplayPhoto => self.pointer_holds_photo = true,
            Command::ClearDice => self.dice_entry.clear(),
            Command::RemoveLastDie => self.dice_entry.pop(),
            Command::RemoveDie(i) => self.dice_entry.remove(i),
            Command::RemoveLastCard => {
                self.cards_entry.pop();
            }
            Command::OpenTable => {
                // A picker left open on an earlier visit does not come back.
                self.selected = None;
                self.screen = Screen::Table;
            }
            Command::StopLive => {
                // What the stopped source last saw no longer answers anything;
                // a lost one is not looked for any more, and fixes pinned to
                // places in its frames mean nothing in the next source's.
                self.forget_fixes();
                self.lost_source = None;
                // "Adjutant tries again" is no longer so (audit CD2).
                let gone = std::mem::take(&mut self.lost_messages);
                self.messages.retain(|m| !gone.contains(m));
                self.live = None;
                self.live_frame = None;
                self.live_texture = None;
            }
            Command::SetDiceScale(scale) => {
                self.dice_scale = scale;
                if let Some(l) = &self.live {
                    l.set_dice_scale(scale);
                }
            }
            Command::SetReplayDir(d) => self.replay_dir = d,
            Command::Replay(dir) => self.start_replay(dir),
            Command::StartCamera => self.start_camera(),
            Command::AnswerFromCamera => self.answer_from_camera(),
            Command::NewT52 => self.screen = Screen::NewT52,
            Command::EditForm(f) => self.form = f,
            Command::UnitsFromCamera(player) => self.units_from_camera(player),
            Command::StartT52 => self.start_from_form(GameId::T52, "T52", |s, rs| {
                s.form.setup(rs).map(ProcedureSpec::T52)
            }),
            Command::AnswerTypedNumber => self.answer_typed_number(),
            Command::SetNumberTyped(text) => self.number_typed = Some(text),
            Command::NewGunfight => self.screen = Screen::NewGunfight,
            Command::EditGunfightForm(f) => self.gunfight_form = f,
            Command::StartGunfight => {
                self.start_from_form(GameId::Gunfight, "Gunfight", |s, rs| {
                    s.gunfight_form.setup(rs).map(ProcedureSpec::Gunfight)
                })
            }
            Command::NewNapoleonic => self.screen = Screen::NewNapoleonic,
            Command::EditNapoleonicForm(f) => self.napoleonic_form = f,
            Command::StartNapoleonic => {
                self.start_from_form(GameId::Napoleonic, "Napoleonic", |s, rs| {
                    s.napoleonic_form.setup(rs).map(ProcedureSpec::Napoleonic)
                })
            }
            Command::NewCardActivation => self.screen = Screen::NewCardActivation,
            Command::EditCardActivationForm(f) => self.card_activation_form = f,
            Command::StartCardActivation => {
                self.start_from_form(GameId::CardActivation, "Card-Activation", |s, rs| {
                    s.card_activation_form
                        .setup(rs)
                        .map(ProcedureSpec::CardActivation)
                })
            }
            Command::NewGentlemen => self.screen = Screen::NewGentlemen,
            Command::EditGentlemenForm(f) => self.gentlemen_form = f,
            Command::StartGentlemen => {
                self.start_from_form(GameId::GentlemenOfWar, "Gentlemen of War", |s, rs| {
                    s.gentlemen_form.setup(rs).map(ProcedureSpec::Gentlemen)
                })
            }
            Command::EnterCard(c) => self.enter_card(c),
            Command::ClearCards => self.cards_entry.clear(),
            Command::SetCardsTyped(text) => self.cards_typed = text,
            Command::EnterTypedCards => self.enter_typed_cards(),
            Command::Select(target) => {
                self.selected = target;
                self.selected_beside = None;
            }
            Command::SelectBeside(target, at) => {
                self.selected = Some(target);
                self.selected_beside = Some(at);
            }
            Command::Correct(target, fix) => self.correct(target, fix),
            Command::ClearCorrections => {
                self.corrections.clear();
                if let Some(f) = &mut self.live_frame {
                    f.scan = f.raw.clone();
                }
            }
            Command::KeepFrame => self.keep_frame(),
            Command::DismissMessage(i) => {
                if i < self.messages.len() {
                    let m = self.messages.remove(i);
                    self.dismissed.push(m);
                }
            }
            Command::DismissAllMessages => {
                // Refusals are not at the foot: they stay with their question.
                let (kept, all) = std::mem::take(&mut self.messages)
                    .into_iter()
                    .partition(|m| self.refusals.contains(m));
                self.messages = kept;
                self.dismissed.extend(all);
            }
        }
        // Whatever brought a question with one possible answer up (an
        // answer, a new or resumed game, Redo), it is answered, not put to
        // the player.
        self.take_only_answers();
    }

    /// Starts reading frames from the source `open` gives (replacing any
    /// running source); its dice are followed across frames by `settle`
    /// ([`SettleRule::LIVE`] for a camera, [`SettleRule::STILLS`] for photos).
    pub fn start_live(
        &mut self,
        description: String,
        open: live::OpenSource,
        pause: std::time::Duration,
        settle: SettleRule,
    ) {
        self.roll = RollWatcher::new(settle);
        self.cards_watch = crate::vision::settle_cards::CardWatcher::new(settle);
        // A new source: its problems are shown afresh.
        self.dismissed.clear();
        match &self.readers {
            Some(r) => {
                self.live = Some(live::Live::start(
                    description,
                    open,
                    r.clone(),
                    pause,
                    self.dice_scale,
                ))
            }
            None => self.notify("Cannot read frames: the reader models did not load."),
        }
    }

    /// Makes `kind` the frame source; another source than the last one
    /// starts without the last one's fixes (they are pinned to places in
    /// its frames). The same source found again after a loss keeps them.
    fn switch_source(&mut self, kind: FrameSourceKind) {
        if self.source.as_ref() != Some(&kind) {
            self.forget_fixes();
        }
        self.source = Some(kind);
    }

    /// Forgets the player's fixes of camera readings and what answered from
    /// the frames they were made on.
    fn forget_fixes(&mut self) {
        self.corrections.clear();
        self.selected = None;
        self.used.clear();
    }

    /// Reads webcam [`Self::camera_index`], or says there is none (the
    /// table view offers to look again).
    #[cfg(feature = "camera")]
    pub fn start_camera(&mut self) {
        use crate::vision::camera::CameraSource;
        if CameraSource::list().is_empty() {
            self.notify(NO_CAMERA);
            return;
        }
        let index = self.camera_index;
        self.switch_source(FrameSourceKind::Camera(index));
        self.start_live(
            format!("camera {index}"),
            Box::new(move || {
                let cam = CameraSource::open(index)?;
                Ok(Box::new(cam) as Box<dyn crate::vision::frame_source::FrameSource>)
            }),
            std::time::Duration::ZERO,
            SettleRule::LIVE,
        );
    }

    /// Without camera support there is no camera to look for.
    #[cfg(not(feature = "camera"))]
    pub fn start_camera(&mut self) {
        self.notify("This build has no camera support; enter cards and dice by hand.");
    }

    /// Reads the photos in `dir` (name order, looping) as camera frames. A
    /// folder without photos becomes a message on the table view, and the
    /// folder stays in the table view's box to try again.
    pub fn start_replay(&mut self, dir: PathBuf) {
        self.replay_dir = dir.display().to_string();
        self.switch_source(FrameSourceKind::Replay(dir.clone()));
        let description = format!("replay of {}", dir.display());
        self.start_live(
            description,
            Box::new(move || {
                let src = crate::vision::frame_source::ReplaySource::open(&dir)?;
                Ok(Box::new(src) as Box<dyn crate::vision::frame_source::FrameSource>)
            }),
            live::REPLAY_PAUSE,
            SettleRule::STILLS,
        );
    }

    /// Takes the frames and problems the frame-source loop produced.
    pub fn drain_live(&mut self) {
        let Some(l) = &mut self.live else { return };
        let mut lost = false;
        let mut frames = Vec::new();
        for update in l.drain() {
            match update {
                live::LiveUpdate::Frame(f) => frames.push(*f),
                live::LiveUpdate::Problem { message, fatal } => {
                    if fatal {
                        self.lost_messages.push(message.clone());
                    }
                    if fatal || !self.dismissed.contains(&message) {
                        self.notify(message);
                    }
                    lost |= fatal;
                }
            }
        }
        if lost {
            // What a lost source last saw no longer answers anything; the
            // source is looked for again until it is back.
            self.live = None;
            self.live_frame = None;
            self.live_texture = None;
            self.lost_source = self.source.clone();
            return;
        }
        // Frames arrive: the table is read after all, so "no camera" and
        // what a lost source said are no longer news.
        if !frames.is_empty() {
            let gone = std::mem::take(&mut self.lost_messages);
            self.messages
                .retain(|m| m != NO_CAMERA && !gone.contains(m));
            self.lost_source = None;
        }
        for f in frames {
            // A photo that did not read before reads now (mended or
            // replaced): what was said of it is no longer so (audit BK K8).
            if let Some(p) = &f.path {
                let of_it = format!("{}: ", p.display());
                self.messages.retain(|m| !m.starts_with(&of_it));
            }
            self.show_frame(f);
        }
    }

    /// The answer the newest frame gives to the pending request, if it fits.
    pub fn camera_answer(&self) -> Option<Answer> {
        let frame = self.live_frame.as_ref()?;
        let scan = &frame.scan;
        let req = self.session.as_ref()?.0.pending()?;
        if self.shows_answered_reading() {
            return None;
        }
        let answer = match &req.ask {
            // A roll is read once every die in sight has come to rest.
            Ask::Dice { .. } if frame.moving_dice > 0 => return None,
            // An unread die may be one of the roll: never answer around it.
            Ask::Dice { .. } if !scan.unread_dice.is_empty() => return None,
            Ask::Dice { .. } => {
                let dice: Option<Vec<_>> = (self.camera_dice().into_iter())
                    .map(|d| {
                        let value = crate::table::D6::new(d.value)?;
                        let source = self.camera_die_source(d);
                        Some(crate::table::Die { value, source })
                    })
                    .collect();
                Answer::Dice(dice?)
            }
            // Likewise a card is read once the cards in sight lie still.
            Ask::Cards { .. } if frame.moving_cards > 0 => return None,
            Ask::Cards { .. } => Answer::Cards(self.camera_cards()),
            _ => return None,
        };
        let answer = req.check(answer).ok()?;
        // A draw takes cards from the draw pile: one already drawn (a stale
        // card in view) is not offered, though typed it would be taken.
        if let (Ask::Cards { deck: Some(d), .. }, Answer::Cards(cards)) = (&req.ask, &answer)
            && !self.drawn_already(*d, cards).is_empty()
        {
            return None;
        }
        // Only what the rules would take (a card the deck still holds, not
        // one played already this turn).
        match dry_run(&self.session.as_ref()?.0, &answer) {
            Ok((_, None)) => Some(answer),
            _ => None,
        }
    }

    /// Shows a new frame as if the frame-source loop had read it (tests,
    /// and sources driven by the UI thread).
    pub fn show_frame(&mut self, mut frame: live::LiveFrame) {
        // Votes first, so a player's fix applies to the settled read.
        (frame.raw, frame.moving_dice, frame.unseen_dice) = self.roll.observe_scan(&frame.raw);
        frame.moving_cards = self.cards_watch.observe_scan(&mut frame.raw);
        frame.scan = self.corrections.next_frame(&frame.raw);
        self.used.keep_shown(&frame.scan);
        if let (Some(target), Some(old)) = (self.selected, &self.live_frame) {
            self.selected = target.relocate(&old.scan, &frame.scan);
            if self.selected.is_none() {
                self.selected_beside = None;
            }
        }
        self.live_frame = Some(frame);
        self.live_dirty = true;
    }

    /// The cards the newest frame reads (after the player's corrections),
    /// in the order read, less the cards that answered earlier questions and
    /// lie there still (see [`answered::UsedOnTable`]); empty without a frame.
    pub fn camera_cards(&self) -> Vec<Card> {
        let Some(f) = &self.live_frame else {
            return Vec::new();
        };
        let read: Vec<Card> = (f.scan.cards.iter())
            .filter_map(|c| c.code.parse().ok())
            .collect();
        cards_without(&read, &self.used_cards_in(&f.scan))
    }

    /// The dice of the newest frame that did not answer a question one by
    /// one and lie where they lay (see [`answered::UsedOnTable`]); empty
    /// without a frame.
    pub fn camera_dice(&self) -> Vec<&crate::vision::scan::DieOut> {
        let Some(f) = &self.live_frame else {
            return Vec::new();
        };
        (f.scan.dice.iter())
            .filter(|d| !self.used.dice.is_used(d))
            .collect()
    }

    /// Whether the camera's `die` answered a question one by one and lies
    /// where it lay.
    pub fn die_used(&self, die: &crate::vision::scan::DieOut) -> bool {
        self.used.dice.is_used(die)
    }

    /// The cards of the newest frame offered as one-click picks for the
    /// pending cards question: none while the table still shows what
    /// answered the last question, none already picked, none the question
    /// says were played already, and for a draw only cards still in the
    /// deck's draw pile (a card just drawn and discarded is likelier a stale
    /// reading than a draw).
    pub fn camera_picks(&self) -> Vec<Card> {
        (self.camera_pick_buttons().into_iter())
            .filter(|(_, taken)| !taken)
            .map(|(c, _)| c)
            .collect()
    }

    /// [`Self::camera_picks`] with the cards picked already kept in their
    /// places, each marked taken (`true`): the buttons stay where they were,
    /// so a double click does not also take the card that would slide under
    /// the pointer (audit BJ J3).
    pub fn camera_pick_buttons(&self) -> Vec<(Card, bool)> {
        let Some((session, _)) = &self.session else {
            return Vec::new();
        };
        let Some(Request {
            ask:
                Ask::Cards {
                    deck,
                    played,
                    count,
                    ..
                },
            ..
        }) = session.pending()
        else {
            return Vec::new();
        };
        if self.shows_answered_reading() {
            return Vec::new();
        }
        let mut offered = self.camera_cards();
        // A card played already this turn is one left lying on the table.
        offered.retain(|c| !played.contains(c));
        if let Some(d) = deck {
            let drawn = self.drawn_already(*d, &offered);
            offered = cards_without(&offered, &drawn);
        }
        // A one-card answer the rules would turn down (a Heart to shoot) is
        // not offered: each is worked out on a copy of the game.
        if *count == 1 && self.cards_entry.is_empty() {
            offered.retain(|c| matches!(dry_run(session, &Answer::Cards(vec![*c])), Ok((_, None))));
        }
        let mut picked = self.cards_entry.clone();
        (offered.into_iter())
            .map(|c| {
                let taken = picked
                    .iter()
                    .position(|p| *p == c)
                    .map(|i| picked.remove(i));
                (c, taken.is_some())
            })
            .collect()
    }

    /// The cards of `cards` that `deck`'s draw pile does not hold (counting
    /// repeats): drawn already.
    fn drawn_already(&self, deck: crate::rules::state::DeckId, cards: &[Card]) -> Vec<Card> {
        self.session
            .as_ref()
            .and_then(|(s, _)| s.state().decks.get(deck))
            .map_or_else(Vec::new, |d| d.not_in_draw_pile(cards))
    }

    /// Why the camera's reading cannot answer the pending dice or cards
    /// request yet, in a sentence for the player (the last answer's reading
    /// still in view, dice still rolling, an unread die to name, the wrong
    /// count, cards the rules would refuse); `None` when it can, or when
    /// there is no frame or no such request.
    pub fn camera_hint(&self) -> Option<String> {
        let hint = self.reading_hint();
        match (hint, self.unread_cards_note()) {
            (Some(h), Some(note)) => Some(format!("{h} {note}")),
            (h, note) => h.or(note),
        }
    }

    /// A note on card-like shapes the camera sees but cannot read, for a
    /// cards question: one may be a card of the answer, so it is said, not
    /// left out silently, also beside a whole camera answer (audit BJ J2).
    /// (It may be no card at all, a napkin or a book: so it does not hold
    /// the answer back.)
    pub fn unread_cards_note(&self) -> Option<String> {
        let unread = self.live_frame.as_ref().map_or(0, |f| f.scan.unread.len());
        if unread == 0 || !self.asks_cards() || self.shows_answered_reading() {
            return None;
        }
        Some(format!(
            "The camera also sees {} it cannot read: if one is a card of this answer, click \
             its ? on the table picture (Table view) to name it.",
            if unread == 1 {
                "1 card-like shape".to_string()
            } else {
                format!("{unread} card-like shapes")
            }
        ))
    }

    /// Whether the pending question asks for cards.
    fn asks_cards(&self) -> bool {
        let pending = self.session.as_ref().and_then(|(s, _)| s.pending());
        matches!(pending.map(|r| &r.ask), Some(Ask::Cards { .. }))
    }

    /// What the camera's reading says of the question on screen: why it
    /// cannot answer it, or what to click.
    fn reading_hint(&self) -> Option<String> {
        let f = self.live_frame.as_ref()?;
        let req = self.session.as_ref()?.0.pending()?;
        let scan = &f.scan;
        let dice = |n: usize| match n {
            1 => "1 die".to_string(),
            n => format!("{n} dice"),
        };
        match req.ask {
            // Said for what is asked (a dice question's hint spoke of cards:
            // audit AL6), and of the roll or cards that answered, which need
            // not be the last question (a number may have come between:
            // audit BH P2).
            Ask::Dice { .. } if self.shows_answered_reading() => Some(
                "The camera still shows the dice that answered an earlier roll: roll the dice \
                 again (or enter them by hand)."
                    .into(),
            ),
            Ask::Cards { .. } if self.shows_answered_reading() => Some(
                "The camera still shows the cards that answered an earlier question: lay the \
                 next card (or enter it by hand)."
                    .into(),
            ),
            Ask::Cards { .. } if f.moving_cards > 0 => Some(format!(
                "The camera sees {} still moving; its reading comes once they lie still.",
                match f.moving_cards {
                    1 => "1 card".to_string(),
                    n => format!("{n} cards"),
                }
            )),
            Ask::Dice { .. } if f.moving_dice > 0 => Some(format!(
                "The camera sees {} still rolling; its reading comes once they rest.",
                dice(f.moving_dice)
            )),
            Ask::Dice { .. } if !scan.unread_dice.is_empty() => Some(format!(
                "The camera cannot read {}: click its ? to name it.",
                dice(scan.unread_dice.len())
            )),
            Ask::Dice { count } => {
                let free = self.camera_dice().len();
                let used = scan.dice.len() - free;
                // Dice taken one by one for the last roll lie there still
                // (audit AL5): said, or the count reads wrong.
                let besides = match used {
                    0 => String::new(),
                    n => format!(" besides {} used already", dice(n)),
                };
                if free == 0 && used > 0 {
                    Some(format!(
                        "The camera reads only dice used already ({}): roll the dice again, or \
                         enter them by hand.",
                        dice(used)
                    ))
                } else if free > count as usize {
                    // The Table view's picker fixes a die; the question's
                    // dice row also uses one (audit CD3).
                    let click = if self.screen == Screen::Table {
                        "Click a die to mark it Not a die (or, back on the play screen, click it \
                         under the question to use it)"
                    } else {
                        "Click a die below to use it, or to mark it Not a die"
                    };
                    Some(format!(
                        "The camera reads {}{besides}; this roll needs {count}. {click}; or enter \
                         the roll by hand.",
                        dice(free)
                    ))
                } else if free < count as usize {
                    Some(format!(
                        "The camera reads {}{besides}; this roll needs {count}. Roll them all in \
                         view, or enter the roll by hand.",
                        dice(free)
                    ))
                } else {
                    None
                }
            }
            Ask::Cards { count, deck, .. } => {
                let cards = self.camera_cards();
                let codes: Vec<String> = cards.iter().map(Card::to_string).collect();
                // Cards in view that answered a question already are left
                // out: said, or the count reads wrong (audit AI7).
                let used: Vec<String> = (self.used_cards_in(scan).iter())
                    .map(Card::to_string)
                    .collect();
                let n = match cards.len() {
                    1 => "1 card".to_string(),
                    n => format!("{n} cards"),
                };
                let listed = if used.is_empty() {
                    codes.join(" ")
                } else {
                    format!("{}; {} used already", codes.join(" "), used.join(" "))
                };
                if cards.is_empty() && used.is_empty() {
                    None
                } else if cards.is_empty() {
                    // Said, or the camera seems blind (audit AL4).
                    Some(format!(
                        "The camera reads only cards used already ({}): lay the new card(s), or \
                         enter them by hand.",
                        used.join(" ")
                    ))
                } else if cards.len() != count as usize
                    && deck.is_some()
                    && self.cards_entry.is_empty()
                    && self.camera_picks().is_empty()
                {
                    Some(format!(
                        "The camera reads {n} ({listed}), none of them still to draw: lay the \
                         card(s) drawn, or enter them by hand."
                    ))
                } else if cards.len() != count as usize {
                    // The picks below leave out cards the draw pile no longer
                    // holds: said, or the count and the buttons disagree
                    // (audit AM2).
                    let drawn = deck.map_or_else(Vec::new, |d| self.drawn_already(d, &cards));
                    let drawn = if drawn.is_empty() {
                        String::new()
                    } else {
                        let codes: Vec<String> = drawn.iter().map(Card::to_string).collect();
                        format!(" ({} drawn already, so not offered)", codes.join(" "))
                    };
                    Some(format!(
                        "The camera reads {n} ({listed}); this needs {count}: click Use on the \
                         one(s) played{drawn}."
                    ))
                } else {
                    // The right count, but the rules would refuse it (a
                    // card the deck no longer holds), or it holds a card
                    // drawn already: say why before a click.
                    let session = &self.session.as_ref()?.0;
                    let drawn = deck.map_or_else(Vec::new, |d| self.drawn_already(d, &cards));
                    match dry_run(session, &Answer::Cards(cards)) {
                        Err(why) => Some(format!(
                            "The camera's {} cannot answer this: {why}",
                            codes.join(" ")
                        )),
                        // Turned down by the rules rather than the checks (a
                        // Heart to shoot with): said the same way.
                        Ok((_, Some(why))) => Some(format!(
                            "The camera's {} cannot answer this: {why}",
                            codes.join(" ")
                        )),
                        Ok(_) if !drawn.is_empty() => {
                            let drawn: Vec<String> = drawn.iter().map(Card::to_string).collect();
                            Some(format!(
                                "The camera's {}: {} drawn already; lay the card(s) drawn, or \
                                 enter them by hand.",
                                codes.join(" "),
                                drawn.join(" ")
                            ))
                        }
                        Ok(_) => None,
                    }
                }
            }
            _ => None,
        }
    }

    fn keep_frame(&mut self) {
        let Some(f) = &self.live_frame else {
            self.notify("No frame to keep yet.");
            return;
        };
        if f.moving_dice > 0 || f.unseen_dice > 0 {
            // A rolling die's value is not its label yet, and a die the frame
            // does not show would be a label without a die.
            self.notify("Frame not kept: wait until every die rests in plain sight.");
            return;
        }
        let millis = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let kept = crate::vision::capture::keep_dice_photo(
            &self.capture_dir,
            &f.picture,
            &f.scan.dice,
            f.scan.unread_dice.len(),
            &format!("frame-{millis}"),
        );
        match kept {
            Ok(path) => {
                let dice = match f.scan.dice.len() {
                    0 => "no dice".to_string(),
                    1 => "its die".to_string(),
                    n => format!("its {n} dice"),
                };
                self.inform(format!(
                    "Kept {} labelled with {dice}; `adjutant eval {}` measures the reader on your photos.",
                    path.display(),
                    self.capture_dir.display()
                ));
            }
            Err(e) => self.notify(format!("Frame not kept: {e}")),
        }
    }

    /// Whether a replay's photo is held on screen: while something picked
    /// in the table view awaits its fix, or the pointer is over the camera's
    /// answers under the question. (The next photo is another table,
    /// where the pick would land on another card or die: audit AK2. A
    /// camera's next frame is the same table, and the pick follows it.)
    pub fn holds_replay_frame(&self) -> bool {
        let picked = self.selected.is_some() && self.screen == Screen::Table;
        (picked || self.pointer_holds_photo)
            && matches!(self.source, Some(FrameSourceKind::Replay(_)))
    }

    fn correct(&mut self, target: corrections::Target, fix: corrections::Fix) {
        self.selected = None;
        let Some(f) = &mut self.live_frame else {
            return;
        };
        let die = match target {
            corrections::Target::Die(i) => f.scan.dice.get(i).cloned(),
            _ => None,
        };
        if self.corrections.add(&f.scan, target, fix.clone()) {
            f.scan = self.corrections.apply(&f.raw);
            // A die used or entered already and then given another face is
            // still that die, with the face now named (audit BE N1).
            match (die, fix) {
                (Some(old), corrections::Fix::Die(value)) => {
                    let named = crate::vision::scan::DieOut {
                        value,
                        confidence: 1.0,
                        ..old.clone()
                    };
                    self.used.dice.replace(&old, &named);
                    self.dice_entry.replace_seen(&old, &named);
                }
                // Not a die after all: not one of the roll entered either
                // (audit BH P1).
                (Some(old), corrections::Fix::NotADie) => self.dice_entry.remove_seen(&old),
                _ => {}
            }
        } else {
            self.notify("That detection is gone from the picture; pick it again.");
        }
    }

    fn answer_from_camera(&mut self) {
        let Some(answer) = self.camera_answer() else {
            self.notify("The camera does not show what is asked; enter it by hand.");
            return;
        };
        let reading = self.live_frame.as_ref().map(|f| match answer {
            Answer::Dice(_) => answered::AnsweredReading::dice_of(&f.scan),
            _ => answered::AnsweredReading::cards_of(&f.scan),
        });
        let before = self.events();
        self.apply(Event::Answer(answer));
        if self.events() > before {
            self.answered_reading = reading;
        }
    }

    /// Whether the newest frame still shows the reading that answered the
    /// last question (see [`answered::AnsweredReading`]), and that reading
    /// holds what the pending question asks for (dice or cards): dice that
    /// answered a roll say nothing against the next card (audit BD8).
    pub fn shows_answered_reading(&self) -> bool {
        let asks = self.session.as_ref().and_then(|(s, _)| s.pending());
        match (&self.answered_reading, &self.live_frame, asks) {
            (Some(r), Some(f), Some(req)) => {
                let holds = match req.ask {
                    Ask::Dice { .. } => r.holds_dice(),
                    Ask::Cards { .. } => r.holds_cards(),
                    _ => true,
                };
                holds && r.still_shown_in(&f.scan)
            }
            _ => false,
        }
    }

    fn units_from_camera(&mut self, player: usize) {
        use crate::rules::t52::{LaidCard, group_laid_out};
        let mut lengths = Vec::new();
        let cards: Vec<LaidCard> = self
            .live_frame
            .iter()
            .flat_map(|f| f.scan.cards.iter())
            .filter_map(|c| {
                let card = c.code.parse().ok()?;
                lengths.push(c.length());
                Some(LaidCard {
                    card,
                    center: c.centre(),
                })
            })
            .collect();
        if cards.is_empty() {
            self.notify("The camera reads no cards right now; type the codes instead.");
            return;
        }
        // Units are told apart by where their cards lie, in card lengths.
        lengths.sort_by(f32::total_cmp);
        let card_length = lengths[lengths.len() / 2];
        // Face-up Kings and Jacks on the table mark objectives, not units.
        use crate::table::Rank;
        let (markers, cards): (Vec<LaidCard>, Vec<LaidCard>) = cards
            .into_iter()
            .partition(|c| matches!(c.card.rank(), Some(Rank::King | Rank::Jack)));
        if !markers.is_empty() {
            // Added to the objectives typed, not in place of them: the
            // camera sees the markers near this regiment, not the whole
            // table's (audit BJ J5).
            // (The one centre Jack seen takes the place of the one typed.)
            let mut listed: Vec<String> = self
                .form
                .objectives
                .split_whitespace()
                .map(String::from)
                .collect();
            let is_jack = |code: &str| {
                code.parse::<Card>()
                    .is_ok_and(|c| c.rank() == Some(Rank::Jack))
            };
            let mut seen: Vec<String> = markers.iter().map(|m| m.card.to_string()).collect();
            seen.sort();
            for code in &seen {
                if listed.iter().any(|l| l.eq_ignore_ascii_case(code)) {
                    continue;
                }
                match listed.iter().position(|l| is_jack(code) && is_jack(l)) {
                    Some(i) => listed[i] = code.clone(),
                    None => listed.push(code.clone()),
                }
            }
            let now = listed.join(" ");
            if now != self.form.objectives {
                self.form.objectives = now.clone();
                self.inform(format!(
                    "Objective cards now {now}, with the camera's {} (Kings and Jacks mark objectives).",
                    seen.join(" ")
                ));
            }
        }
        // A card the camera cannot read is said, not left out silently
        // (audit BJ J2).
        let unread = self.live_frame.as_ref().map_or(0, |f| f.scan.unread.len());
        if unread > 0 {
            self.inform(format!(
                "The camera cannot read {unread} card-like shape(s) in view: if one is a card of \
                 the regiment, name it in the Table view (click its ?) or type it."
            ));
        }
        if cards.is_empty() {
            return;
        }
        let text = units_text(&group_laid_out(&cards, card_length));
        let field = if player == 0 {
            &mut self.form.first_units
        } else {
            &mut self.form.second_units
        };
        let before = std::mem::replace(field, text);
        // What was typed is said, so it is not lost (audit BK K10).
        if !before.trim().is_empty() && before != *field {
            self.inform(format!(
                "The camera's cards replaced the units typed before: {}",
                before.trim()
            ));
        }
    }

    /// Starts `game` from its setup form: `setup` turns the form into the
    /// game's procedure, or lists every problem with it (`name` names the
    /// game when its ruleset did not load).
    fn start_from_form(
        &mut self,
        game: GameId,
        name: &str,
        setup: impl FnOnce(&Self, &crate::rules::Ruleset) -> Result<ProcedureSpec, Vec<String>>,
    ) {
        let Some(ruleset) = self.library.get(game).cloned() else {
            self.notify(format!("The {name} ruleset did not load."));
            return;
        };
        match setup(self, &ruleset) {
            Ok(spec) => self.begin(game, ruleset, spec),
            Err(errors) => self.notify(errors.join(" ")),
        }
    }

    /// Whether the open game may be replaced or closed: yes when it is saved
    /// (a save that failed earlier is tried again first). Otherwise the
    /// player is told what would be lost, once; the next attempt may go.
    pub fn may_leave_open_game(&mut self) -> bool {
        if !self.save_failed {
            return true;
        }
        let Some((s, autosave)) = &self.session else {
            return true;
        };
        let failure = save_noting(s, autosave, &mut self.save_failed);
        let Some(failure) = failure else {
            return true;
        };
        let at = (autosave.path.clone(), s.events().len());
        if self.unsaved_warned.as_ref() == Some(&at) {
            return true;
        }
        self.unsaved_warned = Some(at);
        self.notify(format!(
            "{failure}. The open game's latest answers would be lost: make {} writable (or free \
             some disk space) and try again, or do the same once more to leave it unsaved.",
            autosave.path.display()
        ));
        false
    }

    /// Opens a new autosaved session of `game` and begins `spec`.
    fn begin(&mut self, game: GameId, ruleset: crate::rules::Ruleset, spec: ProcedureSpec) {
        if !self.may_leave_open_game() {
            return;
        }
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let mut session = Session::new(game, ruleset, seed);
        let open = self.session.as_ref().map(|(_, a)| a.path.clone());
        let autosave = Autosave::new_in_avoiding(&self.save_dir, game, open.as_deref());
        let begun = autosave.apply(&mut session, Event::Begin(spec));
        self.save_failed = matches!(begun, Err(save::AutosaveError::Save(_)));
        if let Err(e) = begun {
            self.notify(e.to_string());
        }
        self.saves = save::list_checked(&self.save_dir, &self.library);
        self.clear_entries();
        self.session = Some((session, autosave));
        self.answers.clear();
        self.answered_reading = None;
        self.undone_readings.clear();
        self.used.clear();
        // A search typed for another game would hide this game's rules.
        self.rules_query.clear();
        self.screen = Screen::Play;
    }

    fn enter_card(&mut self, card: Card) {
        let wanted = match self.session.as_ref().and_then(|(s, _)| s.pending()) {
            Some(Request {
                ask: Ask::Cards { count, .. },
                ..
            }) => *count as usize,
            _ => return,
        };
        // A card entered is the refused answer being mended: what refused
        // it is no longer so (audit BK K10).
        self.drop_refusals();
        self.cards_entry.push(card);
        if self.cards_entry.len() >= wanted {
            let cards = std::mem::take(&mut self.cards_entry);
            self.apply(Event::Answer(Answer::Cards(cards)));
        }
    }

    /// Enters every card of [`AppState::cards_typed`], or none: a code that
    /// names no card, a joker in a deck without them, or more cards than the
    /// question wants is refused with a message, and the text stays to mend.
    fn enter_typed_cards(&mut self) {
        let Some((session, _)) = &self.session else {
            return;
        };
        let Some(Request {
            ask: Ask::Cards { count, .. },
            ..
        }) = session.pending()
        else {
            return;
        };
        let wanted = *count as usize - self.cards_entry.len().min(*count as usize);
        let jokers = session.ruleset().cards.jokers;
        let mut cards = Vec::new();
        let mut problems = Vec::new();
        for code in self
            .cards_typed
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|c| !c.is_empty())
        {
            match code.parse::<Card>() {
                Ok(Card::Joker(_)) if !jokers => {
                    problems.push(format!("{code}: this game's deck has no jokers"));
                }
                Ok(card) => cards.push(card),
                Err(_) => problems.push(format!(
                    "{code}: not a card (type a rank A 2-10 T J Q K and a suit s h d c{})",
                    if jokers {
                        ", or XR / XB for a joker"
                    } else {
                        ""
                    }
                )),
            }
        }
        if problems.is_empty() && cards.len() > wanted {
            // "More" only beside cards already clicked in (audit AE4).
            let more = if self.cards_entry.is_empty() {
                ""
            } else {
                " more"
            };
            let card = if wanted == 1 { "card" } else { "cards" };
            problems.push(format!(
                "{} cards typed; the question wants {wanted}{more} {card}",
                cards.len()
            ));
        }
        if !problems.is_empty() {
            self.refuse(format!("Cards not entered: {}.", problems.join("; ")));
            return;
        }
        self.cards_typed.clear();
        for card in cards {
            self.enter_card(card);
        }
    }

    /// Answers the number request on screen with the typed text, or says
    /// why the text is not a number (it stays to be mended).
    fn answer_typed_number(&mut self) {
        let Some(Request {
            ask: Ask::Number { min, max },
            ..
        }) = self
            .session
            .as_ref()
            .and_then(|(s, _)| s.pending())
            .cloned()
        else {
            return;
        };
        let text = self
            .number_typed
            .clone()
            .unwrap_or_else(|| default_number(min, max).to_string());
        let typed = text.trim();
        match typed.parse::<i64>() {
            Ok(n) => self.apply(Event::Answer(Answer::Number(n))),
            // Digits past what a number holds: too big (or small), not "not
            // a number".
            Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => self.refuse(
                format!("{typed} is more than {max}, the most this question takes"),
            ),
            Err(e) if matches!(e.kind(), std::num::IntErrorKind::NegOverflow) => self.refuse(
                format!("{typed} is less than {min}, the least this question takes"),
            ),
            Err(_) => self.refuse(format!(
                "Number not entered: \"{}\" is not a whole number (type one from {min} to {max}).",
                text.trim()
            )),
        }
    }

    /// How many dice the pending question asks for, if it asks for dice.
    fn dice_asked(&self) -> Option<usize> {
        match self.session.as_ref().and_then(|(s, _)| s.pending()) {
            Some(Request {
                ask: Ask::Dice { count },
                ..
            }) => Some(*count as usize),
            _ => None,
        }
    }

    fn enter_die(&mut self, die: dice_entry::EnteredDie) {
        let Some(wanted) = self.dice_asked() else {
            return;
        };
        if self.dice_entry.len() >= wanted {
            // An undone roll brought back whole: a face is taken out first.
            // Said with the question, and gone with it (audit BM M7).
            self.refuse(format!(
                "All {wanted} dice are entered: click one to take it out, or Clear to enter a new roll."
            ));
            return;
        }
        self.dice_entry.push(die);
        if self.dice_entry.len() >= wanted {
            let entry = std::mem::take(&mut self.dice_entry);
            match entry.roll() {
                Ok(dice) => {
                    let before = self.events();
                    self.apply(Event::Answer(Answer::Dice(dice)));
                    // The camera's dice taken lie there still: not offered
                    // to the next roll (audit AL5).
                    let events = self.events();
                    if events > before {
                        let shown = self.live_frame.as_ref().map(|f| &f.scan.dice[..]);
                        let typed = entry.typed_from(shown.unwrap_or_default(), &self.used.dice);
                        for d in entry.seen().chain(typed) {
                            self.used.dice.note_one(d, events);
                        }
                    }
                }
                Err(e) => self.notify(e),
            }
        }
    }

    /// Enters the newest frame's die at `i` (see [`Command::UseCameraDie`]).
    fn use_camera_die(&mut self, i: usize) {
        let Some(d) = self.live_frame.as_ref().and_then(|f| f.scan.dice.get(i)) else {
            self.notify("That die is gone from the picture; pick it again.");
            return;
        };
        if self.dice_entry.has_seen(d) {
            self.notify("That die is entered already.");
            return;
        }
        let die = dice_entry::EnteredDie {
            value: d.value,
            source: self.camera_die_source(d),
            seen: Some(d.clone()),
        };
        self.enter_die(die);
    }

    /// Where a camera die's value comes from: the camera, or the player who
    /// named its face (the log then does not call it a read: audit CC C6).
    fn camera_die_source(&self, d: &crate::vision::scan::DieOut) -> DieSource {
        if self.corrections.names_at(d.center, false) {
            DieSource::Manual
        } else {
            DieSource::Camera
        }
    }

    /// The open game's event count (0 without one).
    fn events(&self) -> usize {
        self.session.as_ref().map_or(0, |(s, _)| s.events().len())
    }

    /// Shows `message` to the player, once: a problem that recurs (a broken
    /// photo read again every loop of a replay) is not queued again while it
    /// is still on screen.
    pub fn notify(&mut self, message: impl Into<String>) {
        let message = message.into();
        if !self.messages.contains(&message) {
            self.messages.push(message);
        }
    }

    /// Shows `message` as news rather than a problem: in a plain colour,
    /// and only on the screen it was said on (audits BR R6, BP P5: "put
    /// away" read as a failure and stayed on into the next game).
    pub fn inform(&mut self, message: impl Into<String>) {
        let message = message.into();
        self.news.push((message.clone(), self.screen.clone()));
        self.notify(message);
    }

    /// Whether `message` is news (see [`Self::inform`]), not a problem.
    pub fn is_news(&self, message: &str) -> bool {
        self.news.iter().any(|(m, _)| m == message)
    }

    /// Takes down news said on another screen than the one shown.
    fn drop_stale_news(&mut self) {
        // Run every frame: nothing to do is the usual case.
        if self.news.is_empty() {
            return;
        }
        let screen = &self.screen;
        let stale: Vec<String> = (self.news.iter())
            .filter(|(_, on)| on != screen)
            .map(|(m, _)| m.clone())
            .collect();
        self.messages.retain(|m| !stale.contains(m));
        let shown = &self.messages;
        self.news
            .retain(|(m, on)| on == screen && shown.contains(m));
    }

    /// The log lines the last answer added, while it is the session's last
    /// event (empty otherwise), with a line for each question that answered
    /// itself after it.
    pub fn last_answer_lines(&self, session: &Session) -> Vec<String> {
        self.answer_lines(session)
            .into_iter()
            .map(|(t, _)| t)
            .collect()
    }

    /// At most `rows` of [`AppState::last_answer_lines`] to show under the
    /// next question: the last ones, "..." before the first when earlier
    /// ones are left to the log, and always the last question that
    /// answered itself (it is not in the log).
    pub fn last_answer_rows(&self, session: &Session, rows: usize) -> Vec<String> {
        answer_rows(&self.answer_lines(session), rows)
    }

    /// The last answer's lines, each flagged when it must stay in view: it
    /// says a question answered itself, or what was rolled.
    fn answer_lines(&self, session: &Session) -> Vec<(String, bool)> {
        let events = session.events().len();
        let Some(last) = self.answers.iter().rev().find(|l| l.events == events) else {
            return Vec::new();
        };
        let log = &session.state().log;
        let texts = |from: usize, to: Option<usize>| {
            let lines = match to {
                Some(to) => log.get(from..to),
                None => log.get(from..),
            };
            // What was rolled is kept in view like a question that answered
            // itself: the lines after it say what it did, not what it was.
            lines
                .unwrap_or(&[])
                .iter()
                .map(|l| (l.text.clone(), l.is_roll()))
                .collect::<Vec<_>>()
        };
        let mut lines = Vec::new();
        let mut at = last.from;
        for (before, said) in &last.only {
            lines.extend(texts(at, Some(*before)));
            lines.push((said.clone(), true));
            at = (*before).max(at);
        }
        lines.extend(texts(at, None));
        lines
    }

    /// Answers the question on screen while it can take only one answer
    /// (nothing for the player to decide; scripts still answer such
    /// questions), and says so with the last answer's lines.
    fn take_only_answers(&mut self) {
        let Some((s, autosave)) = &mut self.session else {
            return;
        };
        let events_before = s.events().len();
        let log_len = s.state().log.len();
        let (answered, error) = s.take_only_answers();
        let mut problem = error.map(|e| format!("A question with one possible answer: {e}"));
        let only: Vec<(usize, String)> = answered
            .into_iter()
            .map(|a| {
                // The answer taken first, then its question: a row too
                // narrow for both cuts the question, not the answer.
                let why =
                    (a.request.settled.as_ref()).map_or("the only answer", |s| s.why.as_str());
                let said = format!("Taken, {why}: {} ({})", a.label, a.request.prompt);
                (a.log_from, said)
            })
            .collect();
        if s.events().len() > events_before {
            if let Some(p) = save_noting(s, autosave, &mut self.save_failed) {
                problem.get_or_insert(p);
            }
            // Part of the answer that led here, when there was one.
            let last = match self.answers.pop() {
                Some(last) if last.events == events_before => last,
                other => {
                    self.answers.extend(other);
                    LastAnswer {
                        events: events_before,
                        from: only.first().map_or(log_len, |o| o.0),
                        only: Vec::new(),
                    }
                }
            };
            self.answers.push(LastAnswer {
                events: s.events().len(),
                only: [last.only, only].concat(),
                ..last
            });
        }
        if let Some(p) = problem {
            self.notify(p);
        }
    }

    /// Forgets the dice, cards and number entered for the question on screen.
    fn clear_entries(&mut self) {
        self.dice_entry.clear();
        self.cards_entry.clear();
        self.cards_typed.clear();
        self.number_typed = None;
        // What refused an answer belongs to the question it was given to.
        self.drop_refusals();
    }

    /// Takes the refusals of the question on screen off the screen.
    fn drop_refusals(&mut self) {
        let gone = std::mem::take(&mut self.refusals);
        self.messages.retain(|m| !gone.contains(m));
    }

    /// Messages that refused an answer to the question on screen, shown
    /// with it (see [`AppState::messages`] for the rest).
    pub fn refusals(&self) -> &[String] {
        &self.refusals
    }

    fn apply(&mut self, event: Event) {
        let Some((s, autosave)) = &mut self.session else {
            return;
        };
        let log_before = s.state().log.len();
        let events_before = s.events().len();
        let answer_cards = match &event {
            Event::Answer(a) => a.cards(),
            _ => None,
        };
        // An answer the rules turn down only to ask again (a card played
        // twice) is refused here like any other, not logged and asked again.
        // (The copy it is worked out on is kept when the answer is taken,
        // so the answer is applied once.)
        let outcome = match &event {
            Event::Answer(a) => match dry_run(s, a) {
                Err(e) => Err(save::AutosaveError::Refused(e)),
                Ok((_, Some(why))) => Err(save::AutosaveError::Refused(
                    crate::rules::session::SessionError::BadAnswer(
                        crate::rules::procedure::AnswerError {
                            expected: s.pending().map(|r| r.expected()).unwrap_or_default(),
                            got: a.to_string(),
                            problem: Some(why),
                        },
                    ),
                )),
                Ok((taken, None)) => {
                    *s = taken;
                    autosave.save(s)
                }
            },
            _ => autosave.apply(s, event),
        };
        if let Err(save::AutosaveError::Refused(_)) = outcome {
            // A refused answer stays to be mended: cards as typed codes (the
            // picked ones would fill the question already), a number as typed.
            if let Some(cards) = &answer_cards {
                self.cards_entry.clear();
                let codes: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
                self.cards_typed = codes.join(" ");
            } else {
                self.dice_entry.clear();
            }
        } else {
            // Taken (saved or not): what was undone before it is gone.
            self.answers.retain(|a| a.events <= events_before);
            self.used.drop_undone();
            self.undone_readings.clear();
            if self.answers.len() >= ANSWERS_KEPT {
                self.answers.remove(0);
            }
            self.answers.push(LastAnswer {
                events: s.events().len(),
                from: log_before,
                only: Vec::new(),
            });
            self.save_failed = outcome.is_err();
            self.clear_entries();
        }
        // A failed save of an answer before is made good by a taken one's.
        let taken = !matches!(outcome, Err(save::AutosaveError::Refused(_)));
        if taken && let Some(cards) = answer_cards {
            self.note_cards_answered(&cards);
        }
        if let Some(gone) = self.save_refusal.take_if(|_| taken) {
            self.messages.retain(|m| *m != gone);
        }
        match outcome {
            Err(e @ save::AutosaveError::Refused(_)) => self.refuse(e.to_string()),
            Err(e) => {
                let message = e.to_string();
                self.save_refusal = Some(message.clone());
                self.notify(message);
            }
            Ok(_) => {}
        }
    }

    /// The cards of `scan` that answered questions and lie where they lay
    /// (see [`answered::UsedOnTable`]).
    fn used_cards_in(&self, scan: &crate::vision::scan::ScanRecord) -> Vec<Card> {
        (self.used.cards.lying_in(scan).iter())
            .filter_map(|c| c.parse().ok())
            .collect()
    }

    /// Notes the cards of a taken answer that the newest frame shows (see
    /// [`answered::UsedOnTable`]).
    fn note_cards_answered(&mut self, cards: &[Card]) {
        let events = self.events();
        if let Some(f) = &self.live_frame {
            let codes: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
            self.used.cards.note(&f.scan, &codes, events);
        }
    }

    /// Shows `message`, which refused an answer to the question on screen;
    /// it goes once an answer is taken.
    fn refuse(&mut self, message: String) {
        // Only the newest refusal stands: the ones before it were mended.
        self.drop_refusals();
        self.refusals.push(message.clone());
        self.notify(message);
    }
}

/// What the rules do with `answer`, worked out on a copy of `session`: the
/// copy with it applied, and why the rules turned it down only to ask the
/// same question again ([`crate::rules::Effect::Refused`] lines), if they
/// did; an error when they refuse it outright.
fn dry_run(
    session: &Session,
    answer: &Answer,
) -> Result<(Session, Option<String>), crate::rules::session::SessionError> {
    let mut trial = session.clone();
    let from = trial.state().log.len();
    trial.apply(Event::Answer(answer.clone()))?;
    let why: Vec<&str> = trial.state().log[from..]
        .iter()
        .filter(|l| l.refused)
        .map(|l| l.text.as_str())
        .collect();
    let why = (!why.is_empty()).then(|| why.join("; "));
    Ok((trial, why))
}

/// egui's built-in fonts have no card suits: add a small font with ♠♥♦♣
/// (cut from DejaVu Sans, see `assets/fonts/README.md`) as a fallback for
/// every family.
fn install_suit_font(ctx: &egui::Context) {
    const SUITS: &str = "suits";
    let mut fonts = egui::FontDefinitions::default();
    fonts.font_data.insert(
        SUITS.to_owned(),
        std::sync::Arc::new(egui::FontData::from_static(include_bytes!(
            "../../assets/fonts/DejaVuSans-suits.ttf"
        ))),
    );
    for family in fonts.families.values_mut() {
        family.push(SUITS.to_owned());
    }
    ctx.set_fonts(fonts);
}

/// Saves the game after a change made outside [`Autosave::apply`] (Undo,
/// Redo, answers the window took); notes in `failed` whether it failed and
/// returns what to tell the player then.
fn save_noting(session: &Session, autosave: &Autosave, failed: &mut bool) -> Option<String> {
    let saved = save::save(session, &autosave.path);
    *failed = saved.is_err();
    saved.err().map(|e| format!("Not saved: {e}"))
}

/// The last answer of `session` and the log lines it added, worked out by
/// undoing it on a copy (for answers given before the app was closed);
/// `None` at the game's first question.
fn recovered_answer(session: &Session) -> Option<LastAnswer> {
    if !session.can_undo_step() {
        return None;
    }
    let mut before = session.clone();
    before.undo_step();
    Some(LastAnswer {
        events: session.events().len(),
        from: before.state().log.len(),
        only: Vec::new(),
    })
}

/// Said when no webcam is found (at the start, or on looking again).
pub const NO_CAMERA: &str = "No camera found: enter cards and dice by hand or use the virtual roller. Once one is plugged in, press Use the camera in the Table view.";

/// How many answers' lines are kept for Undo to show again.
const ANSWERS_KEPT: usize = 500;

/// What the last answer taken did: the log lines it added, and the
/// one-answer questions answered by themselves after it.
#[derive(Debug, Clone, PartialEq)]
struct LastAnswer {
    /// The session's event count after it (and after the questions that
    /// answered themselves).
    events: usize,
    /// The first log line it added.
    from: usize,
    /// Each question that answered itself: the log's length when it was
    /// answered, and what to say.
    only: Vec<(usize, String)>,
}

/// The eframe application.
pub struct AdjutantApp {
    /// Its state.
    pub state: AppState,
}

impl AdjutantApp {
    /// Draws one frame and applies the commands it produced.
    pub fn frame(ui: &mut egui::Ui, state: &mut AppState) {
        if !state.fonts_installed {
            install_suit_font(ui.ctx());
            state.fonts_installed = true;
        }
        // A menu open on the camera's reading (a die to use or fix) names a
        // die of the frame on screen: the picture holds still until the menu
        // closes, or the next frame's dice take its place (audit AI2).
        if !egui::Popup::is_any_open(ui.ctx()) && !state.holds_replay_frame() {
            state.drain_live();
        }
        if state.live_dirty {
            state.live_dirty = false;
            if let Some(f) = &state.live_frame {
                let size = [f.preview.width() as usize, f.preview.height() as usize];
                let img = egui::ColorImage::from_rgb(size, f.preview.as_raw());
                state.live_texture = Some(ui.ctx().load_texture("table", img, Default::default()));
            }
        }
        if state.live.is_some() {
            // Keep polling the worker while a source runs.
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_millis(100));
        }
        if ui.ctx().input(|i| i.viewport().close_requested()) && !state.may_leave_open_game() {
            ui.ctx()
                .send_viewport_cmd(egui::ViewportCommand::CancelClose);
        }
        // The window's inner size; the whole content area where the
        // platform does not say (a test harness).
        let (size, now) = ui.ctx().input(|i| {
            let r = i.viewport().inner_rect.unwrap_or_else(|| i.content_rect());
            (r.size(), i.time)
        });
        if state.layout.note_size([size.x, size.y]) {
            state.layout_changed();
        }
        let closing = ui.ctx().input(|i| i.viewport().close_requested());
        if let Some(wait) = state.retry_lost_source(now) {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(wait));
        }
        if let Some(wait) = state.write_layout_when_settled(now, closing) {
            ui.ctx()
                .request_repaint_after(std::time::Duration::from_secs_f64(wait));
        }
        // Set again by this frame's view while the pointer stays there.
        state.pointer_holds_photo = false;
        let commands = views::show(state, ui);
        for c in commands {
            state.execute(c);
        }
        state.drop_stale_news();
    }
}

impl eframe::App for AdjutantApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        AdjutantApp::frame(ui, &mut self.state);
    }
}

/// Opens the window (at its remembered size). Returns when it is closed.
pub fn run(state: AppState) -> Result<(), eframe::Error> {
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Adjutant")
            .with_inner_size(state.layout.opening_size()),
        ..Default::default()
    };
    eframe::run_native(
        "Adjutant",
        options,
        Box::new(|_cc| Ok(Box::new(AdjutantApp { state }))),
    )
}

/// At most `rows` of `lines` (text, whether it says a question answered
/// itself): see [`AppState::last_answer_rows`].
fn answer_rows(lines: &[(String, bool)], rows: usize) -> Vec<String> {
    let n = lines.len();
    // Lines that must stay in view come first, newest first, so a roll
    // stays in view beside a question that answered itself after it
    // (audits BP P1, CE F3); then the line after each (what the roll did:
    // "rolls 9 against 7: fails" was lost in the gap, audits BG C1, BH);
    // then the last lines. Lines left out after the last row are marked
    // below.
    let kept: Vec<usize> = (0..n).rev().filter(|&i| lines[i].1).collect();
    let after = kept.iter().map(|i| i + 1).filter(|&i| i < n);
    let mut shown: Vec<usize> = Vec::new();
    for i in kept.iter().copied().chain(after).chain((0..n).rev()) {
        if shown.len() == rows {
            break;
        }
        if !shown.contains(&i) {
            shown.push(i);
        }
    }
    shown.sort_unstable();
    // "..." where lines are skipped before a row, and after the last row
    // when the lines after it are left to the log.
    let last = shown.last().copied();
    let mut next = 0;
    shown
        .into_iter()
        .filter_map(|i| {
            let (text, _) = lines.get(i)?;
            let skipped = i > next;
            next = i + 1;
            let more = if Some(i) == last && i + 1 < n {
                " ..."
            } else {
                ""
            };
            Some(if skipped {
                format!("... {text}{more}")
            } else {
                format!("{text}{more}")
            })
        })
        .collect()
}

/// Writes units back in the form's text syntax (`8c+7s:mob`).
fn units_text(units: &[crate::rules::t52::UnitCards]) -> String {
    units
        .iter()
        .map(|u| {
            let mut t = u.card.to_string();
            for w in &u.with {
                t.push('+');
                t.push_str(&w.to_string());
            }
            if !u.upgrades.is_empty() {
                t.push(':');
                t.push_str(&u.upgrades.join(","));
            }
            t
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The number a number request's field shows untouched: 0, or the allowed
/// number nearest to it.
pub fn default_number(min: i64, max: i64) -> i64 {
    0.clamp(min, max.max(min))
}

#[cfg(test)]
mod tests {
    use super::answer_rows;

    fn lines(spec: &[(&str, bool)]) -> Vec<(String, bool)> {
        spec.iter().map(|&(t, o)| (t.to_string(), o)).collect()
    }

    #[test]
    fn the_last_rows_show_with_dots_for_what_is_left_to_the_log() {
        let l = lines(&[("a", false), ("b", false), ("c", false)]);
        assert_eq!(answer_rows(&l, 2), ["... b", "c"]);
        assert_eq!(answer_rows(&l[..1], 2), ["a"]);
        assert!(answer_rows(&[], 2).is_empty());
    }

    #[test]
    fn a_question_that_answered_itself_is_always_shown() {
        // It is not in the log, so lines after it do not push it out.
        let l = lines(&[
            ("a", false),
            ("Hogan (only)", true),
            ("b", false),
            ("c", false),
        ]);
        // With the line after it, and "..." for the rest left to the log.
        assert_eq!(answer_rows(&l, 2), ["... Hogan (only)", "b ..."]);
        let l = lines(&[("Hogan (only)", true), ("b", false), ("c", false)]);
        assert_eq!(answer_rows(&l, 2), ["Hogan (only)", "b ..."]);
        let l = lines(&[("a", false), ("b", false), ("Hogan (only)", true)]);
        assert_eq!(answer_rows(&l, 2), ["... b", "Hogan (only)"]);
        let l = lines(&[("a", false), ("Hogan (only)", true), ("b", false)]);
        assert_eq!(answer_rows(&l, 2), ["... Hogan (only)", "b"]);
        // With room, the line after a roll (what it did) stays too.
        let l = lines(&[
            ("rolled [6 3]", true),
            ("fails", false),
            ("x", false),
            ("y", false),
            ("z", false),
        ]);
        assert_eq!(answer_rows(&l, 4), ["rolled [6 3]", "fails", "... y", "z"]);
        // The window's two rows: the roll and what it did, more in the log.
        assert_eq!(answer_rows(&l, 2), ["rolled [6 3]", "fails ..."]);
        assert_eq!(answer_rows(&l, 5), ["rolled [6 3]", "fails", "x", "y", "z"]);
        // A roll, then a question that answered itself: both stay, each
        // with what came of it (audits BP P1, CE F3).
        let l = lines(&[
            ("rolled [4 4]", true),
            ("fails: routs 12 in", false),
            ("x", false),
            ("Taken, no move recorded: 0", true),
            ("y", false),
            ("z", false),
        ]);
        assert_eq!(
            answer_rows(&l, 4),
            [
                "rolled [4 4]",
                "fails: routs 12 in",
                "... Taken, no move recorded: 0",
                "y ..."
            ]
        );
        assert_eq!(
            answer_rows(&l, 2),
            ["rolled [4 4]", "... Taken, no move recorded: 0 ..."]
        );
    }
}
