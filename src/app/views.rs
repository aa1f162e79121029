//! The screens. Each function reads the state and returns commands.

use super::corrections::{Fix, Target};
use super::{AppState, Command, Screen, default_number, live};
use crate::rules::games::GameId;
use crate::rules::procedure::{Answer, Ask};
use crate::rules::save::SaveCondition;
use crate::rules::session::Event;
use crate::table::{BackColour, Card};
use crate::vision::dice::scale::DiceScale;

/// The most height the message list takes before it scrolls.
const MESSAGES_HEIGHT: f32 = 120.0;

/// Messages are problems to read: in an orange that reads on both themes.
const MESSAGE_COLOUR: egui::Color32 = egui::Color32::from_rgb(200, 80, 40);

/// Keys 1-6 enter a die face, as the face buttons do, unless a text field
/// has the keyboard (a button that keeps the focus after a click or Tab
/// does not stop them).
fn dice_keys(ui: &egui::Ui, cmds: &mut Vec<Command>) {
    if ui.ctx().text_edit_focused() {
        return;
    }
    const FACES: [(egui::Key, u8); 6] = [
        (egui::Key::Num1, 1),
        (egui::Key::Num2, 2),
        (egui::Key::Num3, 3),
        (egui::Key::Num4, 4),
        (egui::Key::Num5, 5),
        (egui::Key::Num6, 6),
    ];
    ui.input(|i| {
        for (key, face) in FACES {
            if i.key_pressed(key) {
                cmds.push(Command::EnterDie(face));
            }
        }
        // Backspace takes back the last face, as "Take back the last" does.
        if i.key_pressed(egui::Key::Backspace) {
            cmds.push(Command::RemoveLastDie);
        }
    });
}

/// Ctrl+Z takes back the last event, Ctrl+Shift+Z or Ctrl+Y puts it back (Cmd
/// on a Mac), as the Undo and Redo buttons do, unless a text field with
/// something typed in it has the keyboard (it has its own undo; the
/// question's field takes the keyboard before anything is typed). A key
/// with nothing to take back or put back does nothing, as the greyed-out
/// button does.
fn undo_keys(state: &AppState, ui: &egui::Ui, cmds: &mut Vec<Command>) {
    let Some((session, _)) = &state.session else {
        return;
    };
    if ui.ctx().text_edit_focused() {
        let question_field = ui.data(|d| d.get_temp::<egui::Id>(egui::Id::unique(QUESTION_FIELD)));
        let untouched = state.number_typed.is_none() && state.cards_typed.is_empty();
        if !(untouched && question_field.is_some() && ui.memory(|m| m.focused()) == question_field)
        {
            return;
        }
    }
    let command = |key| egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, key);
    let redo_z = egui::KeyboardShortcut::new(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    ui.ctx().input_mut(|i| {
        // Shift+Z first: the plain shortcut would match it too.
        if i.consume_shortcut(&redo_z) || i.consume_shortcut(&command(egui::Key::Y)) {
            if session.redo_len() > 0 {
                cmds.push(Command::Redo);
            }
        } else if i.consume_shortcut(&command(egui::Key::Z)) && session.can_undo_step() {
            cmds.push(Command::Undo);
        }
    });
}

/// Enter was pressed in `field` (a single-line field gives up the keyboard
/// on Enter).
fn enter_pressed_in(ui: &egui::Ui, field: &egui::Response) -> bool {
    field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter))
}

/// Draws the window; returns what the user asked for.
pub fn show(state: &AppState, ui: &mut egui::Ui) -> Vec<Command> {
    let mut cmds = Vec::new();
    // What refused an answer is shown with its question instead.
    let at_foot = |m: &String| !state.refusals().contains(m);
    let foot_count = state.messages.iter().filter(|m| at_foot(m)).count();
    if foot_count > 0 {
        // At the foot of the window, so the page above does not move when a
        // message comes or goes; oldest first, each wrapped to the width.
        egui::Panel::bottom("messages").show(ui, |ui| {
            // The newest message is the one to read: kept in view.
            egui::ScrollArea::vertical()
                .max_height(MESSAGES_HEIGHT)
                .stick_to_bottom(true)
                .show(ui, |ui| {
                    for (i, msg) in state.messages.iter().enumerate() {
                        if !at_foot(msg) {
                            continue;
                        }
                        ui.horizontal(|ui| {
                            if ui.button("Dismiss").clicked() {
                                cmds.push(Command::DismissMessage(i));
                            }
                            ui.add(
                                egui::Label::new(egui::RichText::new(msg).color(MESSAGE_COLOUR))
                                    .wrap(),
                            );
                        });
                    }
                });
            if foot_count > 1 && ui.button("Dismiss all").clicked() {
                cmds.push(Command::DismissAllMessages);
            }
        });
    }
    egui::CentralPanel::default().show(ui, |ui| match &state.screen {
        // The list of saves grows with every game: the page scrolls.
        Screen::Home => {
            egui::ScrollArea::vertical()
                .auto_shrink([false; 2])
                .show(ui, |ui| home(state, ui, &mut cmds));
        }
        Screen::Rules(g) => rules(state, *g, ui, &mut cmds),
        Screen::Play => play(state, ui, &mut cmds),
        Screen::Table => table(state, ui, &mut cmds),
        Screen::NewT52 => new_t52(state, ui, &mut cmds),
        Screen::NewGunfight => new_gunfight(state, ui, &mut cmds),
        Screen::NewNapoleonic => new_napoleonic(state, ui, &mut cmds),
        Screen::NewCardActivation => new_card_activation(state, ui, &mut cmds),
        Screen::NewGentlemen => new_gentlemen(state, ui, &mut cmds),
    });
    cmds
}

fn home(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    ui.heading("Adjutant");
    ui.label("Pick a game to read its rules, or resume a saved game.");
    if state.save_failed
        && let Some((_, autosave)) = &state.session
    {
        // Said here too: the open game is what a player would resume.
        ui.colored_label(
            WARNING,
            format!(
                "The open game is not being saved ({}): its last changes are only in this window until a save works.",
                autosave.path.display()
            ),
        );
    }
    if ui.button("Table view (camera)").clicked() {
        cmds.push(Command::OpenTable);
    }
    if let Some(last) = state.saves.iter().find(|s| s.resumable()) {
        let name = display_name(&last.path);
        if ui.button(format!("Resume last game ({name})")).clicked() {
            cmds.push(Command::Resume(last.path.clone()));
        }
    }
    ui.add_space(8.0);
    ui.heading("Games");
    for (game, rs) in state.library.games() {
        ui.horizontal(|ui| {
            if ui.button(&rs.title).clicked() {
                cmds.push(Command::OpenRules(game));
            }
            let (label, cmd) = new_game_button(game);
            if ui.button(label).clicked() {
                cmds.push(cmd);
            }
        });
        ui.label(&rs.summary);
        ui.add_space(4.0);
    }
    ui.add_space(8.0);
    ui.heading("Saved games");
    if state.saves.is_empty() {
        ui.label(format!(
            "No saved games yet in {}.",
            state.save_dir.display()
        ));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for s in &state.saves {
        let name = display_name(&s.path);
        // Saves are named `<game id>-<number>.ron` (`-<number>-2.ron` for a
        // second game begun in the same second).
        let title = GameId::ALL
            .into_iter()
            .find(|g| name.starts_with(&format!("{}-", g.id())))
            .and_then(|g| state.library.get(g))
            .map_or_else(String::new, |rs| format!("{}, ", rs.title));
        ui.horizontal_wrapped(|ui| {
            let summary = s
                .summary
                .as_ref()
                .map_or_else(String::new, |t| format!("{t}, "));
            ui.label(format!(
                "{title}{summary}last played {}",
                ago(now, s.modified)
            ));
            let resume = ui.add_enabled(s.resumable(), egui::Button::new(format!("Resume {name}")));
            if resume.clicked() {
                cmds.push(Command::Resume(s.path.clone()));
            }
            let open = state
                .session
                .as_ref()
                .is_some_and(|(_, a)| a.path == s.path);
            if ui
                .add_enabled(!open, egui::Button::new("Put away"))
                .on_hover_text(format!(
                    "Off this list, kept in {}",
                    state
                        .save_dir
                        .join(crate::rules::save::PUT_AWAY_DIR)
                        .display()
                ))
                .on_disabled_hover_text("The game open in the window")
                .clicked()
            {
                cmds.push(Command::PutAway(s.path.clone()));
            }
            match &s.condition {
                SaveCondition::Sound => {}
                SaveCondition::FromBackup => {
                    ui.colored_label(WARNING, "(damaged: resumes from its backup)");
                }
                SaveCondition::Unusable(why) => {
                    ui.colored_label(WARNING, format!("Cannot be resumed: {why}"));
                }
            }
        });
    }
}

/// The colour of a problem that does not stop play (a setup form's, a
/// damaged save's).
const WARNING: egui::Color32 = egui::Color32::from_rgb(220, 160, 60);

/// How long ago `then` was, in words ("just now", "5 min ago", "3 days ago").
fn ago(now: u64, then: u64) -> String {
    let s = now.saturating_sub(then);
    match s {
        0..60 => "just now".into(),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} day(s) ago", s / 86_400),
    }
}

/// The button that opens a game's setup form.
fn new_game_button(game: GameId) -> (&'static str, Command) {
    match game {
        GameId::T52 => ("New T52 game", Command::NewT52),
        GameId::Gunfight => ("New Gunfight game", Command::NewGunfight),
        GameId::Napoleonic => ("New Napoleonic game", Command::NewNapoleonic),
        GameId::CardActivation => ("New Card-Activation game", Command::NewCardActivation),
        GameId::GentlemenOfWar => ("New Gentlemen of War game", Command::NewGentlemen),
    }
}

fn rules(state: &AppState, game: GameId, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = state.library.get(game) else {
        ui.label("This game's ruleset did not load.");
        return;
    };
    if ui.button("Back").clicked() {
        cmds.push(Command::GoHome);
    }
    ui.heading(&rs.title);
    rules_search(state, rs, ui, cmds, f32::INFINITY);
}

/// A search box over a ruleset's entries and the entries matching it (all
/// of them when the box is empty), in a scroll area at most `max_height` tall.
fn rules_search(
    state: &AppState,
    rs: &crate::rules::Ruleset,
    ui: &mut egui::Ui,
    cmds: &mut Vec<Command>,
    max_height: f32,
) {
    let mut query = state.rules_query.clone();
    ui.horizontal(|ui| {
        let label = ui.label("Search rules:");
        ui.text_edit_singleline(&mut query).labelled_by(label.id);
    });
    if query != state.rules_query {
        cmds.push(Command::SetRulesQuery(query.clone()));
    }
    egui::ScrollArea::vertical()
        .id_salt("rules")
        .max_height(max_height)
        .show(ui, |ui| {
            let found = crate::rules::lookup::lookup_as_typed(rs, &query);
            if found.is_empty() {
                ui.label(format!("No rule matches \"{}\".", query.trim()));
            }
            for r in found {
                ui.strong(&r.title);
                ui.label(&r.text);
                if let Some(ruling) = &r.ruling {
                    ui.label(egui::RichText::new(format!("Ruling: {ruling}")).italics());
                }
                ui.add_space(4.0);
            }
        });
}

fn play(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some((session, autosave)) = &state.session else {
        cmds.push(Command::GoHome);
        return;
    };
    ui.horizontal_wrapped(|ui| {
        if ui.button("Home").clicked() {
            cmds.push(Command::GoHome);
        }
        undo_keys(state, ui, cmds);
        if ui
            .add_enabled(session.can_undo_step(), egui::Button::new("Undo"))
            .on_hover_text("Ctrl+Z")
            .clicked()
        {
            cmds.push(Command::Undo);
        }
        if ui
            .add_enabled(session.redo_len() > 0, egui::Button::new("Redo"))
            .on_hover_text("Ctrl+Shift+Z or Ctrl+Y")
            .clicked()
        {
            cmds.push(Command::Redo);
        }
        // The camera's picture, where a misread or unread die or card is
        // named with a click; Back returns here.
        if ui.button("Table view (camera)").clicked() {
            cmds.push(Command::OpenTable);
        }
        if state.save_failed {
            ui.colored_label(
                MESSAGE_COLOUR,
                format!(
                    "Not saved: {} cannot be written (see below)",
                    autosave.path.display()
                ),
            );
        } else {
            ui.label(format!("Saving to {}", autosave.path.display()));
        }
    });
    let st = session.state();
    let when = if st.round > 0 {
        format!(" — round {}", st.round)
    } else if st.turn > 0 {
        format!(" — turn {}", st.turn)
    } else {
        String::new()
    };
    ui.heading(format!("{}{when}", session.ruleset().title));
    if let Some(o) = &st.outcome {
        ui.strong(o.describe(st));
    }
    if let Some(req) = session.pending() {
        // The typed fields belong to this question: a field's state (its
        // own Ctrl+Z history) does not carry over to the next one, and a
        // refusal line above does not move its focus away.
        let question_id = session.events().len();
        // When this question was first drawn: a click or key meant for the
        // question before (a double click, Enter pressed twice) lands on
        // this one's buttons within moments, and is not taken.
        let now = ui.input(|i| i.time);
        let appeared_key = egui::Id::unique(QUESTION_APPEARED);
        let appeared = ui.data(|d| d.get_temp::<(usize, f64)>(appeared_key));
        let fresh = appeared.is_none_or(|(id, _)| id != question_id);
        if fresh {
            ui.data_mut(|d| d.insert_temp(appeared_key, (question_id, now)));
        }
        let settling = appeared
            .filter(|(id, _)| *id == question_id)
            .is_none_or(|(_, at)| now - at < QUESTION_SETTLE_SECS);
        // A new question takes the keyboard from a button of the last one
        // (Enter there would answer this one), and its typed field takes it
        // (the number or cards can be typed at once) unless another field
        // has it (the rules lookup).
        let field_key = egui::Id::unique(QUESTION_FIELD);
        let last_field = ui.data(|d| d.get_temp::<egui::Id>(field_key));
        let focused = ui.memory(|m| m.focused());
        let take_keyboard =
            fresh && (focused.is_none() || focused == last_field || !ui.ctx().text_edit_focused());
        if take_keyboard && let Some(id) = focused {
            ui.memory_mut(|m| m.surrender_focus(id));
        }
        let outer_cmds = &mut *cmds;
        let mut answers: Vec<Command> = Vec::new();
        let cmds = &mut answers;
        // Enter in the cards field last frame: the next question's field
        // takes the keyboard too (the next player's card).
        let refocus_cards = ui.data_mut(|d| {
            d.remove_temp::<bool>(egui::Id::unique(REFOCUS_CARDS))
                .is_some()
        });
        // The lookup, when open (as last drawn), takes the room the box's
        // spare height would: its answers matter more than panes that stay put.
        let lookup_open = ui
            .data(|d| d.get_temp::<bool>(egui::Id::unique(LOOKUP_ID)))
            .unwrap_or(false);
        let below = if lookup_open {
            f32::INFINITY
        } else {
            LOOKUP_HEADER_HEIGHT
        };
        // The box keeps the tallest height this game's questions have had,
        // so the panes below do not jump between a card question and a
        // choice; never so much that they lose their room (a short window).
        let tallest_id = egui::Id::unique(("question-height", session.seed()));
        let tallest = ui.data(|d| d.get_temp::<f32>(tallest_id)).unwrap_or(0.0);
        let frame = egui::Frame::group(ui.style()).total_margin().sum().y;
        // On a short window the kept height is capped, so the panes keep
        // room (a one-row question then shrinks the box a little).
        let room = (ui.available_height() - MIN_PANES_HEIGHT - below - frame)
            .min(ui.available_height() * QUESTION_KEEP_FRACTION)
            .max(0.0);
        let question = ui.group(|ui| {
            ui.set_min_height(tallest.min(room));
            // A long prompt wraps rather than running past the box.
            ui.add(egui::Label::new(egui::RichText::new(&req.prompt).strong()).wrap());
            last_answer(state, session, ui);
            match &req.ask {
                Ask::Choose { options } => {
                    // The options that close a step (End, Done, None, Stop)
                    // come back question after question: on a row of their
                    // own they stay put however many options come first.
                    let (closing, main): (Vec<_>, Vec<_>) = options
                        .iter()
                        .partition(|o| CLOSING_CHOICES.contains(&o.id.as_str()));
                    for row in [main, closing] {
                        if row.is_empty() {
                            continue;
                        }
                        ui.horizontal_wrapped(|ui| {
                            for o in row {
                                if ui.button(&o.label).clicked() {
                                    cmds.push(Command::Apply(Event::Answer(Answer::Choice(
                                        o.id.clone(),
                                    ))));
                                }
                            }
                        });
                    }
                }
                Ask::Confirm => {
                    if ui.button("Done").clicked() {
                        cmds.push(Command::Apply(Event::Answer(Answer::Confirm)));
                    }
                }
                Ask::Dice { count } => {
                    camera_button(state, ui, cmds);
                    // Typed faces are meant, however quick.
                    dice_keys(ui, outer_cmds);
                    let dice = if *count == 1 { "die" } else { "dice" };
                    ui.label(format!("Click (or type 1-6) the {count} {dice}:"));
                    // The face buttons come first in their row so that they
                    // stay put while dice are entered.
                    ui.horizontal(|ui| {
                        for face in 1..=6u8 {
                            if ui.button(format!("Die {face}")).clicked() {
                                cmds.push(Command::EnterDie(face));
                            }
                        }
                        if !state.dice_entry.is_empty() {
                            let so_far: Vec<String> =
                                state.dice_entry.iter().map(u8::to_string).collect();
                            ui.label(format!("so far {}", so_far.join(" ")));
                            if ui
                                .button("Take back the last")
                                .on_hover_text("Backspace")
                                .clicked()
                            {
                                cmds.push(Command::RemoveLastDie);
                            }
                            if ui.button("Clear").clicked() {
                                cmds.push(Command::ClearDice);
                            }
                        }
                    });
                    if ui.button("Roll / draw for me").clicked() {
                        cmds.push(Command::AnswerVirtually);
                    }
                }
                Ask::Number { min, max } => {
                    ui.horizontal(|ui| {
                        // Typed as text, so a slip ("x", or 7 where 4 is the
                        // most) is refused with a message, never clamped.
                        let mut text = state
                            .number_typed
                            .clone()
                            .unwrap_or_else(|| default_number(*min, *max).to_string());
                        let label = ui.label(format!("Number ({min} to {max}):"));
                        // One step from the number typed, kept in range (the
                        // least allowed when the text is no number).
                        let typed = text.trim().parse::<i64>().ok();
                        let step = |by: i64| {
                            let n = typed.map_or(*min, |n| n.saturating_add(by));
                            n.clamp(*min, (*max).max(*min)).to_string()
                        };
                        if ui.small_button("-").clicked() {
                            text = step(-1);
                        }
                        let field = ui
                            .add(
                                egui::TextEdit::singleline(&mut text)
                                    .id_salt(("number-typed", question_id))
                                    .desired_width(50.0),
                            )
                            .labelled_by(label.id);
                        if ui.small_button("+").clicked() {
                            text = step(1);
                        }
                        if Some(&text) != state.number_typed.as_ref() {
                            outer_cmds.push(Command::SetNumberTyped(text));
                        }
                        ui.data_mut(|d| d.insert_temp(field_key, field.id));
                        if take_keyboard {
                            field.request_focus();
                        }
                        // Typing the number and pressing Enter answers, as OK does.
                        let entered = enter_pressed_in(ui, &field);
                        if ui.button("OK").clicked() || entered {
                            cmds.push(Command::AnswerTypedNumber);
                        }
                        // A refused number is mended without reaching for the
                        // mouse (the next question's field is another one).
                        if entered {
                            field.request_focus();
                        }
                    });
                }
                Ask::Cards {
                    count,
                    deck,
                    played,
                } => {
                    let offered = camera_button(state, ui, cmds);
                    // A card the camera reads is picked with one click.
                    let seen = state.camera_picks();
                    if !offered && !seen.is_empty() {
                        ui.horizontal_wrapped(|ui| {
                            for card in seen {
                                if ui.button(format!("Use {card}")).clicked() {
                                    cmds.push(Command::EnterCard(card));
                                }
                            }
                        });
                    }
                    let picked: Vec<String> =
                        state.cards_entry.iter().map(|c| c.to_string()).collect();
                    ui.horizontal(|ui| {
                        let cards = if *count == 1 {
                            "the card".to_string()
                        } else {
                            format!("the {count} cards")
                        };
                        ui.label(if picked.is_empty() {
                            format!("Pick {cards}:")
                        } else {
                            format!("Pick {cards}; so far {}:", picked.join(" "))
                        });
                        if !picked.is_empty() {
                            if ui.button("Take back the last").clicked() {
                                cmds.push(Command::RemoveLastCard);
                            }
                            if ui.button("Clear").clicked() {
                                cmds.push(Command::ClearCards);
                            }
                        }
                    });
                    ui.horizontal(|ui| {
                        let label = ui.label("Or type them (Qh 10s XR):");
                        let mut text = state.cards_typed.clone();
                        let field = ui
                            .add(
                                egui::TextEdit::singleline(&mut text)
                                    .id_salt(("cards-typed", question_id))
                                    .desired_width(160.0),
                            )
                            .labelled_by(label.id);
                        if text != state.cards_typed {
                            outer_cmds.push(Command::SetCardsTyped(text));
                        }
                        ui.data_mut(|d| d.insert_temp(field_key, field.id));
                        if take_keyboard {
                            field.request_focus();
                        }
                        let entered = enter_pressed_in(ui, &field);
                        if ui.button("Enter").clicked() || entered {
                            cmds.push(Command::EnterTypedCards);
                        }
                        // The next player's card can be typed straight away;
                        // the focus goes when the question is not for cards.
                        if entered || refocus_cards {
                            field.request_focus();
                        }
                        if entered {
                            ui.data_mut(|d| d.insert_temp(egui::Id::unique(REFOCUS_CARDS), true));
                        }
                    });
                    // A draw takes only what its deck still holds (the draw
                    // pile or the discards): other cards are greyed out.
                    // Cards picked for this answer already are taken too.
                    let pile = deck.and_then(|d| session.state().decks.get(d));
                    let held: Option<Vec<Card>> = pile
                        .map(|d| crate::table::deck::cards_without(&d.held(), &state.cards_entry));
                    // Cards among the discards are taken (the table may have
                    // shuffled them back) but look it: a misread is likelier.
                    let discarded: Vec<Card> = match (pile, &held) {
                        (Some(d), Some(h)) => d.not_in_draw_pile(h),
                        _ => Vec::new(),
                    };
                    card_grid(
                        ui,
                        session.ruleset().cards.jokers,
                        held.as_deref(),
                        &discarded,
                        played,
                        |code| {
                            if let Ok(card) = code.parse() {
                                cmds.push(Command::EnterCard(card));
                            }
                        },
                    );
                    if deck.is_some() && ui.button("Roll / draw for me").clicked() {
                        cmds.push(Command::AnswerVirtually);
                    }
                }
            }
        });
        // Taking back a die or a card, or clearing, is never an accident
        // worth refusing; an answer in the first moments is.
        let is_answer = |c: &Command| {
            matches!(
                c,
                Command::Apply(_)
                    | Command::AnswerVirtually
                    | Command::AnswerFromCamera
                    | Command::AnswerTypedNumber
                    | Command::EnterDie(_)
                    | Command::EnterCard(_)
                    | Command::EnterTypedCards
            )
        };
        outer_cmds.extend(answers.into_iter().filter(|c| !(settling && is_answer(c))));
        let content = question.response.rect.height() - frame;
        ui.data_mut(|d| {
            let kept = d.get_temp_mut_or(tallest_id, 0.0_f32);
            *kept = kept.max(content);
        });
    }
    // Rules questions come up mid-game: the lookup sits on the play screen,
    // folded away until wanted; its answers leave the panes below some room.
    let lookup_height = (ui.available_height() - MIN_PANES_HEIGHT).clamp(60.0, 220.0);
    let lookup = egui::CollapsingHeader::new("Rules lookup")
        .id_salt(LOOKUP_ID)
        .show(ui, |ui| {
            rules_search(state, session.ruleset(), ui, cmds, lookup_height)
        });
    let open = lookup.openness > 0.0;
    ui.data_mut(|d| d.insert_temp(egui::Id::unique(LOOKUP_ID), open));
    let ruleset = session.ruleset();
    // Columns justify their text; long log lines read better ragged.
    ui.columns(2, |cols| {
        egui::ScrollArea::vertical()
            .id_salt("units")
            .show(&mut cols[0], |ui| {
                ui.vertical(|ui| {
                    // Room for the floating scroll bar, which would cover
                    // the ends of the lines.
                    ui.set_max_width(ui.available_width() - SCROLL_BAR_ROOM);
                    units_column(st, ruleset, ui)
                })
            });
        cols[1].heading("Log");
        egui::ScrollArea::vertical()
            .id_salt("log")
            .stick_to_bottom(true)
            .show(&mut cols[1], |ui| {
                ui.vertical(|ui| {
                    for l in &st.log {
                        let line = ui.label(&l.text);
                        // The rule a check applied, and its ruling, on
                        // hovering: in the line's words it would repeat
                        // the ruling under every check of that rule. Looked
                        // up only for the line hovered, not every line in
                        // every frame.
                        if let Some(id) = l.rule.as_deref() {
                            line.on_hover_ui(|ui| {
                                if let Some(rule) = ruleset.rule(id) {
                                    ui.label(&rule.title);
                                }
                                if let Some(r) = &l.ruling {
                                    ui.label(format!("Ruling: {r}"));
                                }
                            });
                        }
                    }
                });
            });
    });
}

/// Order of play, units, decks and objectives of the game in progress.
fn units_column(
    st: &crate::rules::GameState,
    ruleset: &crate::rules::ruleset::Ruleset,
    ui: &mut egui::Ui,
) {
    if !st.activation.slots.is_empty() {
        ui.heading("Order of play");
        ui.label(activation_line(st));
    }
    ui.heading("Units");
    // The values behind the counts (move, morale, I and V...) are a hover
    // away: say so, or a newcomer never finds them.
    if st.units.iter().any(|u| stat_block(u, ruleset).is_some()) {
        ui.weak("Hover a unit for its profile.");
    }
    for (i, side) in st.sides.iter().enumerate() {
        ui.strong(&side.name);
        for (id, u) in st.units_of(i) {
            // A unit whose card is still to come this turn acts again.
            let card_to_come = st
                .activation
                .slots
                .iter()
                .skip(st.activation.next + 1)
                .any(|a| a.unit == Some(id));
            let mut text = unit_line(u, ruleset, card_to_come);
            if let Some(kit) = equipment_note(u) {
                text.push_str(&format!("; {kit}"));
            }
            // Upgrades are for every player to see (T52 asks them shared).
            if !u.upgrades.is_empty() {
                let names: Vec<&str> = u
                    .upgrades
                    .iter()
                    .map(|id| {
                        ruleset
                            .upgrade(id)
                            .map_or(id.as_str(), |up| up.name.as_str())
                    })
                    .collect();
                text.push_str(&format!("; {}", names.join(", ")));
            }
            let label = ui.label(text);
            if let Some(profile) = stat_block(u, ruleset) {
                label.on_hover_text(profile);
            }
        }
        // Units out of play stay listed (greyed), so a side's losses show.
        let out: Vec<&str> = st
            .units
            .iter()
            .filter(|u| u.side == i && !u.in_play())
            .map(|u| u.name.as_str())
            .collect();
        if !out.is_empty() {
            ui.weak(format!("Out of play: {}", out.join(", ")));
        }
    }
    if !st.decks.is_empty() {
        ui.heading("Decks");
        for d in &st.decks {
            ui.label(format!(
                "{}: {} to draw, {} discarded",
                d.name,
                d.draw_pile.len(),
                d.discard_pile.len()
            ));
        }
    }
    if !st.objectives.is_empty() {
        ui.heading("Objectives");
        for o in &st.objectives {
            let holder = match o.holder {
                crate::rules::state::Holder::Uncaptured => "uncaptured".to_string(),
                crate::rules::state::Holder::Contested => "contested".to_string(),
                crate::rules::state::Holder::Side(i) => format!("held by {}", st.side_name(i)),
            };
            ui.label(format!("{}: {holder}", o.name));
        }
    }
}

/// The activation order, the one acting now in brackets: "Red (9h), [Blue (4c)]".
fn activation_line(st: &crate::rules::GameState) -> String {
    let order = &st.activation;
    let parts: Vec<String> = order
        .slots
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let who = match a.unit {
                // A unit gone since the cards were dealt keeps its place,
                // marked, so the order still reads as the table lays it.
                Some(u) if st.units.get(u).is_some_and(|x| !x.in_play()) => {
                    format!("{} (out)", st.unit_name(u))
                }
                Some(u) => st.unit_name(u),
                None => st.side_name(a.side),
            };
            let text = match a.card {
                Some(c) => format!("{who} ({c})"),
                None => who,
            };
            if i == order.next {
                format!("[{text}]")
            } else {
                text
            }
        })
        .collect();
    parts.join(", ")
}

/// A unit as its game counts it: lives for a lone figure, men in ranks and
/// confused where confusion is tracked, soldiers and wounds otherwise.
/// `card_to_come`: its activation card is still to come this turn.
fn unit_line(
    u: &crate::rules::state::Unit,
    ruleset: &crate::rules::ruleset::Ruleset,
    card_to_come: bool,
) -> String {
    let name = if u.status.is_empty() {
        u.name.clone()
    } else {
        use crate::rules::napoleonic::{ENGAGED, IN_ENGAGEMENT};
        // Status ids read as words ("in_engagement" -> "in engagement"); a
        // Napoleonic unit engaged this round is in an engagement: say it once.
        let flags: Vec<String> = u
            .status
            .iter()
            .filter(|f| !(f.as_str() == IN_ENGAGEMENT && u.has(ENGAGED)))
            .map(|f| match f.as_str() {
                // Said as what it means for the turn: a unit routed before
                // its card comes up still rallies then.
                crate::rules::card_activation::FORFEIT if card_to_come => {
                    "rallies first when its card comes up".to_string()
                }
                crate::rules::card_activation::FORFEIT => "no more actions this turn".to_string(),
                _ => f.replace('_', " "),
            })
            .collect();
        format!("{} ({})", u.name, flags.join(", "))
    };
    if let Some(&spades) = u.stats.get(crate::rules::gentlemen::SPADES) {
        return gentleman_line(&name, u, spades, ruleset);
    }
    if u.soldiers_at_start == 1 && u.wounds_per_soldier > 1 {
        let left = u.wounds_per_soldier.saturating_sub(u.wounds());
        return format!("{name}: {left}/{} lives", u.wounds_per_soldier);
    }
    if let Some(&confused) = u.stats.get(crate::rules::napoleonic::CONFUSED) {
        let men = u.soldiers.len() as i32;
        let mut t = format!(
            "{name}: {} men in ranks, {confused} confused, {} lost",
            men - confused,
            u.missing()
        );
        if let Some(m) = u.stats.get(crate::rules::napoleonic::SHOT_MARKERS) {
            let markers = if *m == 1 { "marker" } else { "markers" };
            t.push_str(&format!(", {m} shot {markers}"));
        }
        return t;
    }
    let wounds = u.wounds();
    let mut t = format!(
        "{name}: {}/{} soldiers, {wounds} {}",
        u.soldiers.len(),
        u.soldiers_at_start,
        if wounds == 1 { "wound" } else { "wounds" }
    );
    if u.stats.contains_key("actions") {
        t.push_str(&activation_counts(u));
    }
    t
}

/// A T52 unit's weapons and the card that gives them ("black powder (7s)"),
/// which decide the orders it can take; `None` for other units.
fn equipment_note(u: &crate::rules::state::Unit) -> Option<String> {
    use crate::rules::t52::regiment::{BLACK_POWDER, MELEE_WEAPONS};
    let kit = if u.stat(MELEE_WEAPONS) > 0 {
        "melee weapons"
    } else if u.stat(BLACK_POWDER) > 0 {
        "black powder"
    } else {
        return None;
    };
    // The odd card gives the weapons (a cavalry's Queen is its mount).
    let paired: Vec<String> = u
        .cards
        .iter()
        .skip(1)
        .filter(|c| c.rank() != Some(crate::table::Rank::Queen))
        .map(|c| c.to_string())
        .collect();
    Some(if paired.is_empty() {
        kit.to_string()
    } else {
        format!("{kit} ({})", paired.join(" "))
    })
}

/// A unit's profile stats as they stand (upgrades included), for hovering
/// its line: "Follower: M 3, A 1, I 6, V 6, W 1, R 9". `None` when its
/// profile has no stats.
fn stat_block(
    u: &crate::rules::state::Unit,
    ruleset: &crate::rules::ruleset::Ruleset,
) -> Option<String> {
    let profile = ruleset.profile(&u.profile)?;
    if profile.stats.is_empty() {
        return None;
    }
    // Profile lines are read in the rulebooks' order (Move, Attacks, ...).
    let rank = |k: &String| {
        STAT_ORDER
            .iter()
            .position(|o| o == k)
            .unwrap_or(STAT_ORDER.len())
    };
    let mut keys: Vec<&String> = profile.stats.keys().collect();
    keys.sort_by_key(|k| rank(k));
    let stats: Vec<String> = keys
        .iter()
        .map(|k| crate::rules::lookup::stat_words(k, u.stats.get(*k).copied().unwrap_or(0)))
        .collect();
    let mut block = format!("{}: {}", profile.name, stats.join(", "));
    // The letters are the rulebook's; say what they stand for.
    let key: Vec<String> = keys
        .iter()
        .filter_map(|k| STAT_KEY.iter().find(|(letter, _)| letter == k))
        .map(|(letter, meaning)| format!("{letter} {meaning}"))
        .collect();
    if !key.is_empty() {
        block.push_str(&format!("\n{}", key.join(", ")));
    }
    Some(block)
}

/// The order T52's profile stats are printed in (Move, Attacks,
/// Inaccuracy, Vulnerability, Wounds, Range); other stats follow by name.
const STAT_ORDER: [&str; 6] = ["M", "A", "I", "V", "W", "R"];

/// What T52's profile letters stand for, shown under the stats.
const STAT_KEY: [(&str, &str); 6] = [
    ("M", "move (inches)"),
    ("A", "attacks per soldier"),
    ("I", "inaccuracy (a die at or above it hits)"),
    ("V", "vulnerability (a die below it wounds)"),
    ("W", "wounds per soldier"),
    ("R", "range (inches)"),
];

/// A Card-activation unit's turn: actions taken, a charge's free melee, a
/// held Overwatch action, a weapon still being prepped.
fn activation_counts(u: &crate::rules::state::Unit) -> String {
    use crate::rules::card_activation as ca;
    // Taken, not left: a unit whose activation ended has lost the rest.
    let mut t = format!(
        "; {} of {} actions taken",
        u.stat(ca::actions::SPENT),
        u.stat("actions")
    );
    if u.stat(ca::actions::FREE_MELEE) > 0 {
        t.push_str(&format!(", {} free melee", u.stat(ca::actions::FREE_MELEE)));
    }
    if u.has(ca::OVERWATCH) && u.stat(ca::HELD) > 0 {
        t.push_str(&format!(", holding {}", u.stat(ca::HELD)));
    }
    if u.stat(ca::PREP_LEFT) > 0 {
        t.push_str(&format!(
            ", weapon ready in {} action(s)",
            u.stat(ca::PREP_LEFT)
        ));
    }
    t
}

/// A Gentlemen of War unit: wounds against Spades, the four humours,
/// armour, ammunition and action points.
fn gentleman_line(
    name: &str,
    u: &crate::rules::state::Unit,
    spades: i32,
    ruleset: &crate::rules::ruleset::Ruleset,
) -> String {
    use crate::rules::gentlemen as g;
    let w = u.wounds();
    let door = if w as i32 >= spades {
        ", Death's Door"
    } else {
        ""
    };
    let mut t = format!(
        "{name}: {w}/{spades} wounds{door}; ♥{} ♦{} ♣{} ♠{spades}, armour {}",
        u.stat(g::HEARTS),
        u.stat(g::DIAMONDS),
        u.stat(g::CLUBS),
        u.stat(g::ARMOUR)
    );
    if u.stats.contains_key(g::AMMO_MAX) {
        t.push_str(&format!(
            ", ammo {}/{}",
            u.stat(g::AMMO),
            u.stat(g::AMMO_MAX)
        ));
    }
    if u.stat(g::AP) > 0 {
        let ap = u.stat(g::AP);
        let points = if ap == 1 { "point" } else { "points" };
        t.push_str(&format!(", {ap} action {points}"));
    }
    if u.stat(g::GUARD) > 0 {
        t.push_str(&format!(", Guard {}", u.stat(g::GUARD)));
    }
    if u.stat(g::MOUNTED) > 0 {
        t.push_str(", mounted");
    }
    // Points put into an action that takes several (a rifle's load).
    for (stat, v) in &u.stats {
        if let Some(id) = stat.strip_prefix("paid:")
            && *v > 0
        {
            let ability = ruleset.ability(id).map_or(id, |a| a.name.as_str());
            t.push_str(&format!(", {v} point(s) into {ability}"));
        }
    }
    t
}

fn display_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The camera's answer to the question on screen as a button, or why it
/// has none; returns whether an answer was offered. (Each costs a dry run of
/// the answer, so it is worked out once per frame; the two never both
/// apply.)
fn camera_button(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) -> bool {
    match state.camera_answer() {
        Some(answer) => {
            if ui.button(format!("Use the camera's {answer}")).clicked() {
                cmds.push(Command::AnswerFromCamera);
            }
            true
        }
        None => {
            if let Some(hint) = state.camera_hint() {
                ui.label(hint);
            }
            false
        }
    }
}

/// The dice size setting: dice that look small (a camera far above the
/// table) read better enlarged; Auto measures which enlargement suits.
fn dice_scale_row(
    live: &live::Live,
    setting: DiceScale,
    ui: &mut egui::Ui,
    cmds: &mut Vec<Command>,
) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Dice size:");
        let choices = [
            (DiceScale::Auto, "Auto"),
            (DiceScale::Fixed(1.0), "Normal (1x)"),
            (DiceScale::Fixed(1.5), "Small (1.5x)"),
            (DiceScale::Fixed(2.0), "Tiny (2x)"),
        ];
        for (scale, label) in choices {
            if ui.selectable_label(setting == scale, label).clicked() {
                cmds.push(Command::SetDiceScale(scale));
            }
        }
        let state = live.dice_scale_state();
        // The details are built only while hovered, not every frame.
        ui.label(state.describe()).on_hover_ui(|ui| {
            ui.label(state.details());
        });
    });
}

fn table(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    ui.horizontal_wrapped(|ui| {
        if ui.button("Back").clicked() {
            cmds.push(if state.session.is_some() {
                Command::GoPlay
            } else {
                Command::GoHome
            });
        }
        match &state.live {
            Some(l) => {
                ui.label(format!("Reading from {}", l.source));
                if let Some(label) = state.live_frame.as_ref().and_then(|f| f.label.as_ref()) {
                    ui.label(format!("({label})"));
                }
                if ui.button("Stop").clicked() {
                    cmds.push(Command::StopLive);
                }
            }
            None => {
                ui.label(
                    "Not reading a camera or photos; dice and cards can always be entered by hand.",
                );
                if ui.button("Use the camera").clicked() {
                    cmds.push(Command::StartCamera);
                }
            }
        }
    });
    if let Some(l) = &state.live {
        dice_scale_row(l, state.dice_scale, ui, cmds);
    }
    if state.live.is_none() {
        ui.horizontal_wrapped(|ui| {
            let mut dir = state.replay_dir.clone();
            let l = ui.label("Read photos from folder:");
            let field = ui
                .add(egui::TextEdit::singleline(&mut dir).desired_width(360.0))
                .labelled_by(l.id);
            if dir != state.replay_dir {
                cmds.push(Command::SetReplayDir(dir.clone()));
            }
            let typed = !dir.trim().is_empty();
            let entered = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if ui
                .add_enabled(typed, egui::Button::new("Read photos"))
                .clicked()
                || (typed && entered)
            {
                cmds.push(Command::Replay(dir.trim().into()));
            }
        });
    }
    if state
        .session
        .as_ref()
        .and_then(|(s, _)| s.pending())
        .is_some()
    {
        camera_button(state, ui, cmds);
    }
    let Some(frame) = &state.live_frame else {
        ui.label("No frame yet.");
        return;
    };
    ui.columns(2, |cols| {
        if let Some(tex) = &state.live_texture {
            // Fit the picture to its column and to the height left (a hint
            // line above must not push its bottom out of the window);
            // overlays follow the same scale.
            let room = cols[0].available_size();
            let size = tex.size_vec2();
            let fit = (room.x / size.x).min(room.y / size.y).clamp(0.1, 1.0);
            let picture =
                egui::Image::new((tex.id(), tex.size_vec2() * fit)).sense(egui::Sense::click());
            let resp = cols[0].add(picture);
            let painter = cols[0].painter_at(resp.rect);
            let scale = frame.scale * fit;
            // A click on a card or die picks it for correcting.
            if resp.clicked()
                && let Some(pos) = resp.interact_pointer_pos()
            {
                let at = (pos - resp.rect.min) / scale;
                let p = [at.x, at.y];
                let target = Target::at(&frame.scan, p).unwrap_or(Target::Spot(p));
                cmds.push(Command::Select(Some(target)));
            }
            let origin = resp.rect.min;
            overlay(&painter, &frame.scan, state.selected, |p| {
                origin + egui::vec2(p[0], p[1]) * scale
            });
        }
        detections(state, &frame.scan, &mut cols[1], cmds);
    });
}

/// Outlines and tags over the picture: green read, red unread, light blue
/// face down; the picked detection is drawn thicker in yellow.
fn overlay(
    painter: &egui::Painter,
    scan: &crate::vision::scan::ScanRecord,
    selected: Option<Target>,
    to_screen: impl Fn([f32; 2]) -> egui::Pos2,
) {
    let stroke = |target: Option<Target>, colour: egui::Color32| {
        if target.is_some() && target == selected {
            egui::Stroke::new(4.0, egui::Color32::YELLOW)
        } else {
            egui::Stroke::new(2.0, colour)
        }
    };
    let tag = |at: egui::Pos2, text: &str| {
        let galley = painter.layout_no_wrap(
            text.to_string(),
            egui::FontId::proportional(15.0),
            egui::Color32::WHITE,
        );
        let rect = egui::Align2::CENTER_CENTER.anchor_size(at, galley.size());
        painter.rect_filled(rect.expand(2.0), 3.0, egui::Color32::from_black_alpha(190));
        painter.galley(rect.min, galley, egui::Color32::WHITE);
    };
    let quad = |q: &[[f32; 2]; 4], stroke: egui::Stroke, text: &str| {
        let pts: Vec<egui::Pos2> = q.iter().map(|p| to_screen(*p)).collect();
        let centre = egui::Pos2::new(
            pts.iter().map(|p| p.x).sum::<f32>() / 4.0,
            pts.iter().map(|p| p.y).sum::<f32>() / 4.0,
        );
        painter.add(egui::Shape::closed_line(pts, stroke));
        tag(centre, text);
    };
    let die = |c: [f32; 2], size: f32, stroke: egui::Stroke, text: &str| {
        let c = to_screen(c);
        let r = (to_screen([size / 2.0, 0.0]).x - to_screen([0.0, 0.0]).x).max(3.0);
        painter.circle_stroke(c, r, stroke);
        tag(c, text);
    };
    for (i, c) in scan.cards.iter().enumerate() {
        quad(
            &c.quad,
            stroke(Some(Target::Card(i)), egui::Color32::GREEN),
            &c.code,
        );
    }
    for (i, q) in scan.unread.iter().enumerate() {
        quad(
            &q.quad,
            stroke(Some(Target::UnreadCard(i)), egui::Color32::RED),
            "?",
        );
    }
    for b in &scan.backs {
        quad(&b.quad, stroke(None, egui::Color32::LIGHT_BLUE), "back");
    }
    if let Some(Target::Spot(p)) = selected {
        let s = egui::Stroke::new(4.0, egui::Color32::YELLOW);
        die(p, 0.0, s, "+");
    }
    for (i, d) in scan.dice.iter().enumerate() {
        let s = stroke(Some(Target::Die(i)), egui::Color32::GREEN);
        die(d.center, d.size, s, &d.value.to_string());
    }
    for (i, d) in scan.unread_dice.iter().enumerate() {
        let s = stroke(Some(Target::UnreadDie(i)), egui::Color32::RED);
        die(d.center, d.size, s, "?");
    }
}

/// The list of what was read, each entry a button that picks it for
/// correcting, and the picker for the picked one.
fn detections(
    state: &AppState,
    scan: &crate::vision::scan::ScanRecord,
    ui: &mut egui::Ui,
    cmds: &mut Vec<Command>,
) {
    ui.heading(format!("Read in {:.1} ms", scan.ms));
    ui.label("Click a card or die (in the picture or below) to correct it.");
    let mut entry = |ui: &mut egui::Ui, target: Target, text: String| {
        let picked = state.selected == Some(target);
        if ui.selectable_label(picked, text).clicked() {
            cmds.push(Command::Select(if picked { None } else { Some(target) }));
        }
    };
    ui.horizontal_wrapped(|ui| {
        ui.label("Cards:");
        for (i, c) in scan.cards.iter().enumerate() {
            let text = format!("{} {:.0}%", c.code, c.confidence * 100.0);
            entry(ui, Target::Card(i), text);
        }
        for i in 0..scan.unread.len() {
            entry(ui, Target::UnreadCard(i), format!("unread card {}", i + 1));
        }
        if scan.cards.is_empty() && scan.unread.is_empty() {
            ui.label("none");
        }
    });
    let backs = list_or_none(scan.backs.iter().map(|b| b.colour.clone()));
    ui.label(format!("Face-down cards: {backs}"));
    ui.horizontal_wrapped(|ui| {
        ui.label("Dice:");
        for (i, d) in scan.dice.iter().enumerate() {
            entry(ui, Target::Die(i), format!("die {}", d.value));
        }
        for i in 0..scan.unread_dice.len() {
            entry(ui, Target::UnreadDie(i), format!("unread die {}", i + 1));
        }
        if scan.dice.is_empty() && scan.unread_dice.is_empty() {
            ui.label("none");
        }
        let moving = state.live_frame.as_ref().map_or(0, |f| f.moving_dice);
        if moving > 0 {
            ui.label(format!("({moving} still rolling)"));
        }
    });
    ui.horizontal_wrapped(|ui| {
        if ui
            .button("Keep as a labelled dice photo")
            .on_hover_text(
                "Saves this frame with its dice as shown (read or named by you) to your own \
                 photo set, which `adjutant eval` can score the reader on.",
            )
            .clicked()
        {
            cmds.push(Command::KeepFrame);
        }
    });
    if let Some(target) = state.selected {
        ui.separator();
        picker(target, ui, cmds);
    }
    if !state.corrections.is_empty() {
        ui.separator();
        ui.horizontal_wrapped(|ui| {
            ui.label(format!(
                "{} correction(s) in force.",
                state.corrections.len()
            ));
            if ui.button("Forget corrections").clicked() {
                cmds.push(Command::ClearCorrections);
            }
        });
    }
}

/// Fifty-two buttons, a row per suit (red suits in red), and the jokers when
/// `jokers`: `pick` gets the code of the one clicked.
fn card_grid(
    ui: &mut egui::Ui,
    jokers: bool,
    held: Option<&[Card]>,
    discarded: &[Card],
    played: &[Card],
    mut pick: impl FnMut(String),
) {
    let in_discards = |code: &str| code.parse::<Card>().is_ok_and(|c| discarded.contains(&c));
    let can_pick = |code: &str| {
        code.parse::<Card>()
            .is_ok_and(|c| held.is_none_or(|h| h.contains(&c)) && !played.contains(&c))
    };
    // Why a card is greyed out, on hovering it.
    let why = if played.is_empty() {
        "Drawn already: the deck does not hold it"
    } else {
        "Played already this turn"
    };
    ui.scope(|ui| {
        // Thirteen ranks in a row must fit half of a small window.
        ui.spacing_mut().item_spacing.x = 2.0;
        ui.spacing_mut().button_padding.x = 3.0;
        for suit in ['s', 'h', 'd', 'c'] {
            let colour = if matches!(suit, 'h' | 'd') {
                egui::Color32::from_rgb(230, 80, 80)
            } else {
                ui.visuals().strong_text_color()
            };
            ui.horizontal(|ui| {
                for rank in "A23456789TJQK".chars() {
                    let code = format!("{rank}{suit}");
                    let faded = in_discards(&code);
                    let shade = if faded {
                        colour.gamma_multiply(DISCARD_FADE)
                    } else {
                        colour
                    };
                    let button = egui::Button::new(egui::RichText::new(&code).color(shade));
                    let mut response = ui
                        .add_enabled(can_pick(&code), button)
                        .on_disabled_hover_text(why);
                    if faded {
                        response = response.on_hover_text(IN_DISCARDS);
                    }
                    if response.clicked() {
                        pick(code);
                    }
                }
            });
        }
        if jokers {
            ui.horizontal(|ui| {
                for (code, label) in [("XR", "XR (red joker)"), ("XB", "XB (black joker)")] {
                    if ui
                        .add_enabled(can_pick(code), egui::Button::new(label))
                        .on_disabled_hover_text(why)
                        .clicked()
                    {
                        pick(code.to_string());
                    }
                }
            });
        }
    });
}

/// One click names the picked card or die.
fn picker(target: Target, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    if !target.is_die() {
        ui.label(if target.is_card() {
            "This card is:"
        } else {
            "Nothing was read here. Add a card:"
        });
        card_grid(ui, true, None, &[], &[], |code| {
            cmds.push(Command::Correct(target, Fix::Card(code)));
        });
        if target.is_card() && ui.button("Not a card").clicked() {
            cmds.push(Command::Correct(target, Fix::NotACard));
        }
    }
    if !target.is_card() {
        let mut fix_button = |ui: &mut egui::Ui, text: egui::RichText, fix: Fix| {
            if ui.button(text).clicked() {
                cmds.push(Command::Correct(target, fix));
            }
        };
        // Wrapped: six buttons and a label overflow the side panel of a small window.
        ui.horizontal_wrapped(|ui| {
            ui.label(if target.is_die() {
                "This die shows:"
            } else {
                "Or add a die showing:"
            });
            for v in 1..=6u8 {
                fix_button(ui, format!("shows {v}").into(), Fix::Die(v));
            }
            if target.is_die() {
                fix_button(ui, "Not a die".into(), Fix::NotADie);
            }
        });
    }
    if ui.add(egui::Button::new("Cancel")).clicked() {
        cmds.push(Command::Select(None));
    }
}

fn new_t52(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = form_header(
        state,
        ui,
        cmds,
        GameId::T52,
        "T52",
        "New T52 game",
        "Type each regiment as card codes: units separated by spaces, cards lying under or beside a unit joined with +, upgrades after a colon. Example: XR As Ad 8c+7s 4h+5c+Qd:mob,tough 3s",
    ) else {
        return;
    };
    let mut form = state.form.clone();
    let camera = state
        .live_frame
        .as_ref()
        .is_some_and(|f| !f.scan.cards.is_empty());
    for (i, (name, units)) in [
        (&mut form.first_name, &mut form.first_units),
        (&mut form.second_name, &mut form.second_units),
    ]
    .into_iter()
    .enumerate()
    {
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(format!("Player {} name:", i + 1));
            ui.text_edit_singleline(name).labelled_by(l.id);
            let l = ui.label(format!("Player {} units:", i + 1));
            // Wraps and grows as a long regiment is typed, so all of it
            // stays in view.
            ui.add(
                egui::TextEdit::multiline(units)
                    .desired_rows(1)
                    .desired_width(420.0),
            )
            .labelled_by(l.id);
            if camera && ui.button(format!("Player {} from camera", i + 1)).clicked() {
                cmds.push(Command::UnitsFromCamera(i));
            }
        });
    }
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("Terrain:");
        ui.text_edit_singleline(&mut form.terrain).labelled_by(l.id);
        let l = ui.label("Objective cards:");
        ui.text_edit_singleline(&mut form.objectives)
            .labelled_by(l.id);
    });
    if form != state.form {
        cmds.push(Command::EditForm(form.clone()));
    }
    let notes = |s: &_| crate::rules::t52::objectives_note(s).into_iter().collect();
    start_or_problems(ui, form.setup(rs), notes, Command::StartT52, cmds);
}

/// The top of a setup form: a Back button, the heading and how to fill it
/// in. Returns the game's ruleset, or `None` (and says so, naming the game
/// as `name`) when it did not load.
fn form_header<'a>(
    state: &'a AppState,
    ui: &mut egui::Ui,
    cmds: &mut Vec<Command>,
    game: GameId,
    name: &str,
    heading: &str,
    help: &str,
) -> Option<&'a crate::rules::Ruleset> {
    let Some(rs) = state.library.get(game) else {
        ui.label(format!("The {name} ruleset did not load."));
        return None;
    };
    if ui.button("Back").clicked() {
        cmds.push(Command::GoHome);
    }
    ui.heading(heading);
    ui.label(help);
    Some(rs)
}

/// One row per side: name, pack back, units. Returns the row whose
/// "Remove" was clicked (offered from row `removable_from` on).
fn side_rows(
    ui: &mut egui::Ui,
    sides: &mut [super::setup_forms::SideForm],
    units_label: &str,
    backs: bool,
    removable_from: usize,
) -> Option<usize> {
    let mut remove = None;
    for (i, g) in sides.iter_mut().enumerate() {
        ui.horizontal_wrapped(|ui| {
            let l = ui.label(format!("Player {} name:", i + 1));
            ui.add(egui::TextEdit::singleline(&mut g.name).desired_width(NAME_FIELD_WIDTH))
                .labelled_by(l.id);
            if backs {
                let l = ui.label(format!("Player {} back:", i + 1));
                egui::ComboBox::from_id_salt(("back", i))
                    .selected_text(g.back.to_string())
                    .show_ui(ui, |ui| {
                        for b in [BackColour::Red, BackColour::Blue, BackColour::Other] {
                            ui.selectable_value(&mut g.back, b, b.to_string());
                        }
                    })
                    .response
                    .labelled_by(l.id);
            }
            let l = ui.label(format!("Player {} {units_label}:", i + 1));
            ui.add(
                egui::TextEdit::multiline(&mut g.units)
                    .desired_rows(1)
                    .desired_width(320.0),
            )
            .labelled_by(l.id);
            if i >= removable_from && ui.button(format!("Remove player {}", i + 1)).clicked() {
                remove = Some(i);
            }
        });
    }
    remove
}

/// The form's problems, or its start button.
fn start_or_problems<T>(
    ui: &mut egui::Ui,
    checked: Result<T, Vec<String>>,
    notes: impl FnOnce(&T) -> Vec<String>,
    start: Command,
    cmds: &mut Vec<Command>,
) {
    // What is allowed but unusual (unequal sides, odd objectives) is said
    // before the start.
    if let Ok(setup) = &checked {
        for note in notes(setup) {
            ui.label(note);
        }
    }
    // The button is always shown (greyed out while the form has problems) so
    // a newcomer sees where the form leads and why it cannot start yet.
    let problems = checked.err().unwrap_or_default();
    let button = ui.add_enabled(problems.is_empty(), egui::Button::new("Start game"));
    if button.clicked() {
        cmds.push(start);
    }
    for p in problems {
        ui.colored_label(WARNING, p);
    }
}

fn new_gunfight(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = form_header(
        state,
        ui,
        cmds,
        GameId::Gunfight,
        "Gunfight",
        "New Gunfight game",
        "One line per player: a name, the back colour of the pack they play from, and four gunmen as Name or Name:rifle (pistol is the default; join a name's words with _, as Big_Jim).",
    ) else {
        return;
    };
    let mut form = state.gunfight_form.clone();
    if let Some(i) = side_rows(ui, &mut form.gangs, "gunmen", true, 2) {
        form.gangs.remove(i);
    }
    ui.horizontal_wrapped(|ui| {
        if form.gangs.len() < super::setup_forms::MAX_GANGS && ui.button("Add a player").clicked() {
            form.add_gang();
        }
        ui.checkbox(&mut form.civilians, "Civilians on the table");
    });
    if form != state.gunfight_form {
        cmds.push(Command::EditGunfightForm(form.clone()));
    }
    start_or_problems(
        ui,
        form.setup(rs),
        |_| Vec::new(),
        Command::StartGunfight,
        cmds,
    );
}

fn new_napoleonic(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = form_header(
        state,
        ui,
        cmds,
        GameId::Napoleonic,
        "Napoleonic",
        "New Napoleonic Card Combat game",
        "One line per army: a name, the back colour of its deck, and its units as Name:arm:men (arm is inf, cav or art; an artillery unit is one gun and its gunners; a name may have spaces, as Old Guard:inf:6). Both sides need equal men and guns. Generals and aides-de-camp are not entered: Adjutant asks whether one stands beside a unit when it matters (a rally).",
    ) else {
        return;
    };
    let mut form = state.napoleonic_form.clone();
    side_rows(ui, &mut form.armies, "units", true, usize::MAX);
    ui.horizontal_wrapped(|ui| {
        let l = ui.label("Objectives (commas between):");
        ui.add(egui::TextEdit::singleline(&mut form.objectives).desired_width(420.0))
            .labelled_by(l.id);
    });
    if form != state.napoleonic_form {
        cmds.push(Command::EditNapoleonicForm(form.clone()));
    }
    // Unequal sides are allowed by agreement: said before the start, not
    // only in the log once play has begun.
    let notes = |s: &_| {
        crate::rules::napoleonic::balance_note(s)
            .into_iter()
            .collect()
    };
    start_or_problems(ui, form.setup(rs), notes, Command::StartNapoleonic, cmds);
}

fn new_card_activation(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = form_header(
        state,
        ui,
        cmds,
        GameId::CardActivation,
        "Card-Activation",
        "New Card-Activation Skirmish game",
        "One line per side: a name and its units as Name:models, with one Field Commander as Name:commander (join a name's words with _, as Red_Rifles:5). Unit values come from the ruleset's editable profiles.",
    ) else {
        return;
    };
    let mut form = state.card_activation_form.clone();
    side_rows(ui, &mut form.sides, "units", false, usize::MAX);
    if form != state.card_activation_form {
        cmds.push(Command::EditCardActivationForm(form.clone()));
    }
    start_or_problems(
        ui,
        form.setup(rs),
        |_| Vec::new(),
        Command::StartCardActivation,
        cmds,
    );
}

fn new_gentlemen(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = form_header(
        state,
        ui,
        cmds,
        GameId::GentlemenOfWar,
        "Gentlemen of War",
        "New Gentlemen of War game",
        "One line per band: a name, the back colour of the player's 54-card deck, and its units as Name:profile (a name may have spaces), optionally with the unit's own stats from your roster sheet (Sharpe:rifleman:h1d4c3s2a0 for Hearts, Diamonds, Clubs, Spades, armour; e empty hands, m mounted, t Mounted Training, g Strong, i Guard range, r rounds).",
    ) else {
        return;
    };
    let profiles: Vec<String> = rs
        .profiles
        .iter()
        .map(|p| format!("{} ({})", p.id, p.name))
        .collect();
    ui.label(format!(
        "Profiles: {}. They are an example roster by Adjutant (the rulebook's roster sheets are not in its text); edit rulesets/gentlemen-of-war.ron for your own.",
        profiles.join(", ")
    ));
    let mut form = state.gentlemen_form.clone();
    side_rows(ui, &mut form.bands, "units", true, usize::MAX);
    if form != state.gentlemen_form {
        cmds.push(Command::EditGentlemenForm(form.clone()));
    }
    let notes = |s: &_| crate::rules::gentlemen::setup_notes(s, rs);
    start_or_problems(ui, form.setup(rs), notes, Command::StartGentlemen, cmds);
}

/// "As Kh 3c", or "none" for an empty list.
fn list_or_none(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(" ")
    }
}

/// Lines the last answer added to the log, shown under the next question's
/// prompt: a card the rules refused, or what a roll did, is read where the
/// player looks. Always the same rows, each one line (the whole text on
/// hovering), so the answer buttons below never move between questions.
fn last_answer(state: &AppState, session: &crate::rules::session::Session, ui: &mut egui::Ui) {
    // What refused an answer takes these rows (in red, whole), so the
    // answer buttons below stay put under the pointer while it is mended.
    if !state.refusals().is_empty() {
        let top = ui.cursor().min.y;
        for refusal in state.refusals() {
            ui.add(egui::Label::new(egui::RichText::new(refusal).color(MESSAGE_COLOUR)).wrap());
        }
        let row = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
        let used = ui.cursor().min.y - top;
        ui.add_space((row * LAST_ANSWER_LINES as f32 - used).max(0.0));
        return;
    }
    let rows = state.last_answer_rows(session, LAST_ANSWER_LINES);
    for row in 0..LAST_ANSWER_LINES {
        let text = rows.get(row).cloned().unwrap_or_else(|| " ".to_string());
        ui.add(egui::Label::new(egui::RichText::new(text).italics()).truncate());
    }
}

/// Width left free at the right of a scrolled pane for its scroll bar.
const SCROLL_BAR_ROOM: f32 = 12.0;

/// Height kept for the units and log panes of the play screen (they
/// scroll inside it) when the window is short.
const MIN_PANES_HEIGHT: f32 = 160.0;

/// Room for the folded Rules lookup header between the question and the
/// panes.
const LOOKUP_HEADER_HEIGHT: f32 = 24.0;

/// Id of the play screen's Rules lookup.
const LOOKUP_ID: &str = "play-rules";

/// Memory key: Enter was pressed in the cards field (see its use).
const REFOCUS_CARDS: &str = "refocus-cards-typed";

/// Choice ids that close a step ("End the turn", "Done moving", "None in
/// its ordering range", "Stop the game here"): shown on a row of their own
/// under a question's other options.
const CLOSING_CHOICES: [&str; 4] = ["end", "done", "none", "stop"];

/// Most of the play screen's height the question box keeps for itself
/// when its question needs less (see the tallest height kept).
const QUESTION_KEEP_FRACTION: f32 = 0.4;

/// Width of a player's name field in the setup forms: room for a name of
/// about 25 letters ("Marshal Michel Ney" showed as "Marshal Michel").
const NAME_FIELD_WIDTH: f32 = 170.0;

/// How much a card among the discards fades in the card grid.
const DISCARD_FADE: f32 = 0.45;

/// Said on hovering a card among the discards in the card grid.
const IN_DISCARDS: &str =
    "In the discards: taken only if your table shuffled it back (a misread otherwise)";

/// Memory key: the question on screen and when it was first drawn.
const QUESTION_APPEARED: &str = "question-appeared";

/// Memory key: the id of the question's typed field (number or cards).
const QUESTION_FIELD: &str = "question-field";

/// Seconds after a question first shows during which an answer clicked or
/// pressed on it is not taken: the second click of a double click, or a
/// second Enter, meant for the question before (about 0.1-0.2 s apart).
const QUESTION_SETTLE_SECS: f64 = 0.2;

/// How many of the last answer's log lines are shown with the question.
const LAST_ANSWER_LINES: usize = 2;

#[cfg(test)]
mod tests {
    use super::{equipment_note, stat_block, unit_line};
    use crate::rules::napoleonic::{CONFUSED, ENGAGED, FOUGHT, IN_ENGAGEMENT};
    use crate::rules::state::{Presence, Soldier, Unit};

    fn napoleonic() -> crate::rules::ruleset::Ruleset {
        let (lib, _) = crate::rules::games::Library::builtin();
        let rs = lib.get(crate::rules::games::GameId::Napoleonic).cloned();
        rs.unwrap_or_else(|| panic!("no Napoleonic ruleset"))
    }

    #[test]
    fn a_napoleonic_unit_engaged_this_round_says_it_once() {
        let mut u = Unit {
            side: 0,
            name: "Line".into(),
            profile: "infantry".into(),
            cards: Vec::new(),
            stats: [(CONFUSED.to_string(), 2)].into(),
            soldiers: vec![Soldier { wounds: 0 }; 6],
            soldiers_at_start: 8,
            wounds_per_soldier: 1,
            status: [ENGAGED, FOUGHT, IN_ENGAGEMENT].map(str::to_string).into(),
            upgrades: Vec::new(),
            presence: Presence::InPlay,
        };
        let line = unit_line(&u, &napoleonic(), false);
        assert!(
            line.starts_with("Line (engaged, fought): 4 men in ranks, 2 confused"),
            "{line}"
        );
        // Card-activation's forfeited actions are said as what they mean.
        let mut routed = u.clone();
        routed.stats.clear();
        routed.status = [crate::rules::card_activation::FORFEIT.to_string()].into();
        assert!(
            unit_line(&routed, &napoleonic(), true)
                .starts_with("Line (rallies first when its card comes up):"),
            "{}",
            unit_line(&routed, &napoleonic(), true)
        );
        assert!(
            unit_line(&routed, &napoleonic(), false)
                .starts_with("Line (no more actions this turn):"),
            "{}",
            unit_line(&routed, &napoleonic(), false)
        );
        // Engaged last round only: still in the engagement.
        u.status = [IN_ENGAGEMENT.to_string()].into();
        assert!(
            unit_line(&u, &napoleonic(), false).starts_with("Line (in engagement):"),
            "{}",
            unit_line(&u, &napoleonic(), false)
        );
    }

    /// A T52 unit's weapons show on its line and its profile on hovering:
    /// they decide which orders it can take.
    #[test]
    fn a_t52_unit_shows_its_equipment_and_profile() {
        use crate::rules::ProcedureSpec;
        use crate::rules::games::{GameId, Library};
        use crate::rules::t52::{GameSetup, PlayerSetup, regiment::parse_units};
        let player = |name: &str, text: &str| PlayerSetup {
            name: name.into(),
            units: parse_units(text).unwrap_or_else(|e| panic!("{e:?}")),
        };
        let setup = GameSetup {
            players: vec![
                player("Red", "XR As Ac 8c+7s 4h+5h+Qd:mean"),
                player("Blue", "XB Ad 6d+7c 3c"),
            ],
            terrain: Vec::new(),
            objectives: Vec::new(),
        };
        let s = crate::rules::testkit::begin_game(GameId::T52, ProcedureSpec::T52(setup), 7);
        let (lib, _) = Library::builtin();
        let rs = lib.get(GameId::T52).cloned();
        let rs = rs.unwrap_or_else(|| panic!("no T52 ruleset"));
        let unit = |name: &str| {
            let u = s.state().units.iter().find(|u| u.name == name);
            u.unwrap_or_else(|| panic!("no unit {name}"))
        };
        assert_eq!(
            equipment_note(unit("Follower 8c")).as_deref(),
            Some("black powder (7s)")
        );
        // A cavalry's Queen is its mount, not its weapons.
        assert_eq!(
            equipment_note(unit("Cavalry 4h")).as_deref(),
            Some("melee weapons (5h)")
        );
        assert_eq!(equipment_note(unit("Snob As")), None);
        assert_eq!(
            stat_block(unit("Cavalry 4h"), &rs).as_deref(),
            Some(
                "Cavalry Follower: M 6, A 3, I 4, V 4, W 2, R 9\nM move (inches), \
                 A attacks per soldier, I inaccuracy (a die at or above it hits), \
                 V vulnerability (a die below it wounds), W wounds per soldier, \
                 R range (inches)"
            )
        );
    }

    /// A Gentlemen unit's line names abilities as the game does and counts
    /// its action points in English.
    #[test]
    fn a_gentleman_line_names_the_ability_paid_into() {
        use crate::rules::gentlemen as g;
        let (lib, _) = crate::rules::games::Library::builtin();
        let rs = lib
            .get(crate::rules::games::GameId::GentlemenOfWar)
            .cloned();
        let rs = rs.unwrap_or_else(|| panic!("no GoW ruleset"));
        let u = Unit {
            side: 0,
            name: "Sharpe".into(),
            profile: "rifleman".into(),
            cards: Vec::new(),
            stats: [(g::SPADES, 2), (g::AP, 1), ("paid:rifle-load", 2)]
                .map(|(k, v)| (k.to_string(), v))
                .into(),
            soldiers: vec![Soldier { wounds: 0 }],
            soldiers_at_start: 1,
            wounds_per_soldier: 2,
            status: Default::default(),
            upgrades: Vec::new(),
            presence: Presence::InPlay,
        };
        let line = unit_line(&u, &rs, false);
        assert!(line.contains(", 1 action point,"), "{line}");
        assert!(line.ends_with(", 2 point(s) into Rifle: Load"), "{line}");
    }

    /// A unit gone since the deal keeps its place in the order, marked out.
    #[test]
    fn the_order_of_play_marks_a_unit_out_of_play() {
        use crate::rules::state::{Activation, GameState};
        let unit = |name: &str, presence| Unit {
            side: 0,
            name: name.into(),
            profile: "unit".into(),
            cards: Vec::new(),
            stats: Default::default(),
            soldiers: vec![Soldier { wounds: 0 }],
            soldiers_at_start: 1,
            wounds_per_soldier: 1,
            status: Default::default(),
            upgrades: Vec::new(),
            presence,
        };
        let st = GameState {
            units: vec![
                unit("Rifles", Presence::InPlay),
                unit("Major", Presence::Removed),
            ],
            activation: crate::rules::state::ActivationOrder {
                slots: [(0, "Ah"), (1, "2h")]
                    .map(|(u, c)| Activation {
                        side: 0,
                        unit: Some(u),
                        card: c.parse().ok(),
                    })
                    .to_vec(),
                next: 0,
            },
            ..GameState::default()
        };
        assert_eq!(
            super::activation_line(&st),
            "[Rifles (Ah)], Major (out) (2h)"
        );
    }
}
