//! The play screen: the question box, its keys, and the panes below it.

use super::*;

/// Keys 1-6 enter a die face, as the face buttons do, unless a text field
/// has the keyboard (a button that keeps the focus after a click or Tab
/// does not stop them).
pub(super) fn dice_keys(ui: &egui::Ui, cmds: &mut Vec<Command>) {
    if ui.ctx().text_edit_focused() {
        return;
    }
    ui.input(|i| cmds.extend(dice_key_commands(&i.events)));
}

/// What the keys of one frame do to the dice entered, in the order they
/// were pressed: a digit 1-6 enters that face, Backspace takes back the
/// last one (as "Take back the last" does). Dice typed quickly land
/// several in one frame; each press counts, twice the same face too.
fn dice_key_commands(events: &[egui::Event]) -> Vec<Command> {
    events
        .iter()
        .filter_map(|e| match e {
            egui::Event::Key {
                key: egui::Key::Backspace,
                pressed: true,
                ..
            } => Some(Command::RemoveLastDie),
            _ => match digit_pressed(e) {
                Some(d @ 1..=6) => Some(Command::EnterDie(d)),
                _ => None,
            },
        })
        .collect()
}

/// The digit 0-9 that `event` presses, not counting the repeats of a key
/// held down: a digit held a little long entered a die and then answered
/// the next two questions.
fn digit_pressed(event: &egui::Event) -> Option<u8> {
    match event {
        egui::Event::Key {
            key,
            pressed: true,
            repeat: false,
            ..
        } => DIGIT_KEYS
            .iter()
            .position(|k| k == key)
            .and_then(|n| u8::try_from(n).ok()),
        _ => None,
    }
}

/// The key of each option of a choice question, in the order shown: the
/// usual options 1 to 9, then the first option that closes a step (End,
/// Done, None, Stop) 0, so the key a player learns for it stays the same
/// however many options come before it; any further closing option goes
/// on from the usual ones. Past 9 an option has no key.
fn option_keys(main: usize, closing: usize) -> Vec<Option<u8>> {
    let numbered = |n: usize| u8::try_from(n).ok().filter(|&k| (1..=9).contains(&k));
    let main_keys = (1..=main).map(numbered);
    let closing_keys = (0..closing).map(|c| match c {
        0 => Some(0),
        _ => numbered(main + c),
    });
    main_keys.chain(closing_keys).collect()
}

/// Whether a numbered option (`number` then a button labelled `label`)
/// does not fit on what is left of the row, which is not empty: the pair
/// starts a new row rather than wrap between number and button.
fn needs_new_row(ui: &egui::Ui, number: &str, label: &str) -> bool {
    let width = |text: &str, style: egui::TextStyle| {
        egui::WidgetText::from(text)
            .into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, style)
            .size()
            .x
    };
    let spacing = ui.spacing();
    let need = width(number, egui::TextStyle::Body)
        + spacing.item_spacing.x
        + width(label, egui::TextStyle::Button)
        + 2.0 * spacing.button_padding.x;
    let row_started = ui.cursor().min.x > ui.max_rect().min.x + 1.0;
    row_started && need > ui.available_size_before_wrap().x
}

/// The digit keys 0 to 9, at their digit's index: die faces 1-6, a choice
/// question's options (see `option_keys`).
const DIGIT_KEYS: [egui::Key; 10] = [
    egui::Key::Num0,
    egui::Key::Num1,
    egui::Key::Num2,
    egui::Key::Num3,
    egui::Key::Num4,
    egui::Key::Num5,
    egui::Key::Num6,
    egui::Key::Num7,
    egui::Key::Num8,
    egui::Key::Num9,
];

/// A digit key answers a choice question with the option shown with that
/// number (`keys` as `option_keys` gives them), unless a text field has the
/// keyboard (the rules lookup).
fn choice_keys(
    ui: &egui::Ui,
    options: &[&crate::rules::procedure::Choice],
    keys: &[Option<u8>],
    cmds: &mut Vec<Command>,
) {
    if ui.ctx().text_edit_focused() {
        return;
    }
    ui.input(|i| {
        // The first digit pressed picks; the question is gone for the rest.
        let Some(pressed) = i.events.iter().find_map(digit_pressed) else {
            return;
        };
        if let Some(n) = keys.iter().position(|&k| k == Some(pressed))
            && let Some(o) = options.get(n)
        {
            cmds.push(Command::Apply(Event::Answer(Answer::Choice(o.id.clone()))));
        }
    });
}

/// Ctrl+Z takes back the last event, Ctrl+Shift+Z or Ctrl+Y puts it back (Cmd
/// on a Mac), as the Undo and Redo buttons do, unless a text field with
/// something typed in it has the keyboard (it has its own undo; the
/// question's field takes the keyboard before anything is typed). A key
/// with nothing to take back or put back does nothing, as the greyed-out
/// button does.
pub(super) fn undo_keys(state: &AppState, ui: &egui::Ui, cmds: &mut Vec<Command>) {
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

/// The "Roll / draw for me" button, also pressed with Ctrl+R (Cmd on a
/// Mac), even from the question's text field: in Tab order it comes after
/// the whole card grid (audit BK K5).
fn roll_for_me(ui: &mut egui::Ui) -> bool {
    let key = egui::KeyboardShortcut::new(egui::Modifiers::COMMAND, egui::Key::R);
    let clicked = (ui.button("Roll / draw for me"))
        .on_hover_text("Ctrl+R")
        .clicked();
    clicked || ui.ctx().input_mut(|i| i.consume_shortcut(&key))
}

pub(super) fn play(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
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
    } else if session.pending().is_none() {
        // Not a blank screen: a save without its setup, or a setup refused.
        ui.colored_label(
            MESSAGE_COLOUR,
            if session.events().is_empty() {
                "This saved game holds no setup, so nothing can be asked: start a new game from Home."
            } else if session.can_undo_step() {
                "Nothing is being asked: the game's setup was refused or its play ended (see the log). Undo, or start a new game from Home."
            } else {
                // Nothing to undo: the setup itself was refused.
                "Nothing is being asked: the game's setup was refused (see the log). Start a new game from Home."
            },
        );
    }
    if session.pending().is_none() {
        // No question on screen (the game is over): the one an Undo brings
        // back is new, and takes the keyboard like any other.
        ui.data_mut(|d| d.remove::<(egui::Id, f64)>(egui::Id::unique(QUESTION_APPEARED)));
    }
    if let Some(req) = session.pending() {
        // The typed fields belong to this question: a field's state (its
        // own Ctrl+Z history) does not carry over to the next one, and a
        // refusal line above does not move its focus away.
        let question_id = session.events().len();
        // The question as seen across games: another game's first question
        // has the same number of events before it.
        let question_key = egui::Id::unique((&autosave.path, question_id));
        // When this question was first drawn: a click or key meant for the
        // question before (a double click, Enter pressed twice) lands on
        // this one's buttons within moments, and is not taken.
        let now = ui.input(|i| i.time);
        let appeared_key = egui::Id::unique(QUESTION_APPEARED);
        let appeared = ui.data(|d| d.get_temp::<(egui::Id, f64)>(appeared_key));
        let fresh = appeared.is_none_or(|(id, _)| id != question_key);
        if fresh {
            ui.data_mut(|d| d.insert_temp(appeared_key, (question_key, now)));
        }
        let settling = appeared
            .filter(|(id, _)| *id == question_key)
            .is_none_or(|(_, at)| now - at < QUESTION_SETTLE_SECS);
        // A new question takes the keyboard from a button of the last one
        // (Enter there would answer this one), and its typed field takes it
        // (the number or cards can be typed at once) unless another field
        // has it (the rules lookup).
        let field_key = egui::Id::unique(QUESTION_FIELD);
        let last_field = ui.data(|d| d.get_temp::<egui::Id>(field_key));
        let focused = ui.memory(|m| m.focused());
        // Asked for as long as the question settles, not only on its first
        // pass: egui may draw that pass again (a grid's first sizing), and a
        // request made in a discarded pass is lost (seen on resuming).
        let take_keyboard = settling
            && (focused.is_none() || focused == last_field || !ui.ctx().text_edit_focused());
        if take_keyboard
            && let Some(id) = focused
            && focused != last_field
        {
            ui.memory_mut(|m| m.surrender_focus(id));
        }
        let outer_cmds = &mut *cmds;
        let mut answers: Vec<Command> = Vec::new();
        let cmds = &mut answers;
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
        let tallest = state.layout.question_height(session.seed());
        let frame = egui::Frame::group(ui.style()).total_margin().sum().y;
        // On a short window (a 1024x600 netbook) the kept height is capped,
        // so the panes keep room: a one-row question then shrinks the box.
        let height = ui.available_height();
        let cap = if height < SHORT_PLAY_HEIGHT {
            height * QUESTION_KEEP_FRACTION
        } else {
            f32::INFINITY
        };
        let room = (height - MIN_PANES_HEIGHT - below - frame)
            .min(cap)
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
                    // Keys 1-9 pick the options in the order shown (each is
                    // numbered), so a keyboard player need not Tab past the
                    // window's own buttons to reach them.
                    let shown: Vec<&crate::rules::procedure::Choice> =
                        main.iter().chain(&closing).copied().collect();
                    // Stopping the game is clicked, never keyed: a digit
                    // typed from habit must not end a game (audit AN2).
                    let keys: Vec<Option<u8>> = option_keys(main.len(), closing.len())
                        .into_iter()
                        .zip(&shown)
                        .map(|(k, o)| k.filter(|_| !ends_the_game(&o.id)))
                        .collect();
                    choice_keys(ui, &shown, &keys, cmds);
                    let mut keys = keys.into_iter();
                    for row in [main, closing] {
                        if row.is_empty() {
                            continue;
                        }
                        ui.horizontal_wrapped(|ui| {
                            for o in row {
                                let button = if let Some(key) = keys.next().flatten() {
                                    let number = format!("{key}:");
                                    // Number and button wrap together: a
                                    // "5:" left at a row's end misled clicks.
                                    if needs_new_row(ui, &number, &o.label) {
                                        ui.end_row();
                                    }
                                    ui.weak(number);
                                    ui.button(&o.label).on_hover_text(format!("Key {key}"))
                                } else {
                                    ui.button(&o.label)
                                };
                                if button.clicked() {
                                    cmds.push(Command::Apply(Event::Answer(Answer::Choice(
                                        o.id.clone(),
                                    ))));
                                }
                            }
                        });
                    }
                }
                Ask::Confirm => {
                    // Done closes a step: key 0, as the options that close
                    // one (audit AN6), unless a text field has the keyboard.
                    let key = !ui.ctx().text_edit_focused()
                        && ui.input(|i| i.events.iter().find_map(digit_pressed)) == Some(0);
                    ui.horizontal(|ui| {
                        ui.weak("0:");
                        if ui.button("Done").on_hover_text("Key 0").clicked() || key {
                            cmds.push(Command::Apply(Event::Answer(Answer::Confirm)));
                        }
                    });
                }
                Ask::Dice { count } => {
                    let hovered = camera_slot(state, ui, |ui| {
                        camera_button(state, ui, cmds);
                        camera_dice_fixes(state, ui, cmds);
                    });
                    if hovered {
                        cmds.push(Command::HoldReplayPhoto);
                    }
                    // Typed faces are meant, however quick.
                    dice_keys(ui, outer_cmds);
                    let dice = if *count == 1 { "die" } else { "dice" };
                    ui.label(format!("Click (or type 1-6) the {count} {dice}:"));
                    // The face buttons have a row of their own so that they
                    // stay put while dice are entered.
                    ui.horizontal(|ui| {
                        for face in 1..=6u8 {
                            if ui.button(format!("Die {face}")).clicked() {
                                cmds.push(Command::EnterDie(face));
                            }
                        }
                    });
                    // The dice entered wrap: a canister's 18 dice in one row
                    // pushed Clear off a small window.
                    ui.horizontal_wrapped(|ui| {
                        if !state.dice_entry.is_empty() {
                            // Each face entered is a button that takes it
                            // out, so a slip mid-roll is mended, not retyped.
                            ui.label(format!("entered ({} of {count}):", state.dice_entry.len()));
                            for (i, face) in state.dice_entry.faces().into_iter().enumerate() {
                                if ui
                                    .small_button(face.to_string())
                                    .on_hover_text("Click to take this die out")
                                    .clicked()
                                {
                                    cmds.push(Command::RemoveDie(i));
                                }
                            }
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
                    if state.dice_entry.len() >= *count as usize {
                        ui.label(
                            "The undone roll: click a wrong die to take it out, then enter the \
                             right face (Clear for a new roll, Redo to keep it as it was).",
                        );
                    }
                    if roll_for_me(ui) {
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
                        let shown = text.clone();
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
                        // The default shown is not typed: Ctrl+Z stays the game's.
                        let edited = text != shown;
                        if edited {
                            outer_cmds.push(Command::SetNumberTyped(text));
                        }
                        claim_keyboard(ui, &field, field_key, take_keyboard);
                        // Typing replaces the default ("3", not "03"), until
                        // something is typed.
                        if take_keyboard && state.number_typed.is_none() && !edited {
                            select_all(ui, field.id, &shown);
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
                    chosen,
                    turned,
                } => {
                    let hovered = camera_slot(state, ui, |ui| {
                        let offered = camera_button(state, ui, cmds);
                        // A card the camera reads is picked with one click
                        // (each is worked out on a copy of the game: not when
                        // the whole reading is offered).
                        if !offered {
                            camera_pick_row(state, ui, cmds);
                        }
                    });
                    if hovered {
                        cmds.push(Command::HoldReplayPhoto);
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
                        // The example names only cards this game's deck holds.
                        let example = if session.ruleset().cards.jokers {
                            "Or type them (Qh 10s XR):"
                        } else {
                            "Or type them (Qh 10s 3d):"
                        };
                        let label = ui.label(example);
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
                        // The next player's card can be typed straight away:
                        // the next question takes the keyboard as it settles.
                        claim_keyboard(ui, &field, field_key, take_keyboard);
                        let entered = enter_pressed_in(ui, &field);
                        if ui.button("Enter").clicked() || entered {
                            cmds.push(Command::EnterTypedCards);
                        }
                        // A refused code is mended without the mouse.
                        if entered {
                            field.request_focus();
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
                    // Cards the players choose (a new order) or play from
                    // their hands are theirs to name: no draw answers them.
                    if (deck.is_some() || *turned) && !chosen && roll_for_me(ui) {
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
        // Only a growth worth keeping: a command every frame otherwise.
        if content >= tallest + crate::app::window_layout::HEIGHT_STEP {
            outer_cmds.push(Command::KeepQuestionHeight {
                seed: session.seed(),
                height: content,
            });
        }
    }
    // Rules questions come up mid-game: the lookup sits on the play screen,
    // folded away until wanted; its answers leave the panes below some room.
    let lookup_height = (ui.available_height() - MIN_PANES_HEIGHT).clamp(60.0, 220.0);
    // Opened, its box takes the keyboard (a digit typed for the lookup
    // would otherwise answer a dice question); Escape there folds it away.
    let was_open = ui
        .data(|d| d.get_temp::<bool>(egui::Id::unique(LOOKUP_ID)))
        .unwrap_or(false);
    let lookup = egui::CollapsingHeader::new("Rules lookup")
        .id_salt(LOOKUP_ID)
        .show(ui, |ui| {
            let just_opened = !was_open;
            rules_search(
                state,
                session.ruleset(),
                ui,
                cmds,
                lookup_height,
                just_opened,
            )
        });
    if lookup.body_returned == Some(true)
        && let Some(mut folded) =
            egui::collapsing_header::CollapsingState::load(ui.ctx(), lookup.header_response.id)
    {
        folded.set_open(false);
        folded.store(ui.ctx());
    }
    // egui draws no focus ring on a collapsing header: a keyboard user
    // reaching it by Tab sees one as on every other stop (audit BR R2).
    let header = &lookup.header_response;
    if header.has_focus() {
        let ring = ui.visuals().widgets.active.fg_stroke;
        (ui.painter()).rect_stroke(header.rect, 2.0, ring, egui::StrokeKind::Outside);
    }
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
        // One scroll place per game: another game's log opens at its newest
        // lines, not where the last one was left (audit BK K3).
        egui::ScrollArea::vertical()
            .id_salt(("log", session.seed()))
            .stick_to_bottom(true)
            .show(&mut cols[1], |ui| {
                ui.vertical(|ui| {
                    // Room for the scroll bar, as in the units column
                    // (audit BK K4).
                    ui.set_max_width(ui.available_width() - SCROLL_BAR_ROOM);
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

/// Lines the last answer added to the log, shown under the next question's
/// prompt: a card the rules refused, or what a roll did, is read where the
/// player looks. Always the same rows, each one line (the whole text on
/// hovering), so the answer buttons below never move between questions.
pub(super) fn last_answer(
    state: &AppState,
    session: &crate::rules::session::Session,
    ui: &mut egui::Ui,
) {
    // What refused an answer takes these rows (in red, whole), so the
    // answer buttons below stay put under the pointer while it is mended.
    let mut free_rows = LAST_ANSWER_LINES;
    if !state.refusals().is_empty() {
        let top = ui.cursor().min.y;
        for refusal in state.refusals() {
            ui.add(egui::Label::new(egui::RichText::new(refusal).color(MESSAGE_COLOUR)).wrap());
        }
        let row = ui.text_style_height(&egui::TextStyle::Body) + ui.spacing().item_spacing.y;
        let used = ui.cursor().min.y - top;
        // Rounded: a line measures a pixel or so over a row (audit BM M1).
        let used_rows = ((used / row).round() as usize).max(1);
        if used_rows >= LAST_ANSWER_LINES {
            ui.add_space((row * LAST_ANSWER_LINES as f32 - used).max(0.0));
            return;
        }
        // A row left keeps what the question is about in view ("Guards
        // rolls 5 shooting dice") while the answer is mended (audit BK K10).
        ui.add_space((row * used_rows as f32 - used).max(0.0));
        free_rows = LAST_ANSWER_LINES - used_rows;
    }
    let rows = state.last_answer_rows(session, free_rows);
    for row in 0..free_rows {
        let text = rows.get(row).cloned().unwrap_or_else(|| " ".to_string());
        ui.add(egui::Label::new(egui::RichText::new(text).italics()).truncate());
    }
}

/// Width left free at the right of a scrolled pane for its scroll bar.
pub(super) const SCROLL_BAR_ROOM: f32 = 12.0;

/// Height kept for the units and log panes of the play screen (they
/// scroll inside it) when the window is short.
pub(super) const MIN_PANES_HEIGHT: f32 = 160.0;

/// Room for the folded Rules lookup header between the question and the
/// panes.
pub(super) const LOOKUP_HEADER_HEIGHT: f32 = 24.0;

/// Id of the play screen's Rules lookup.
pub(super) const LOOKUP_ID: &str = "play-rules";

/// Choice ids that close a step ("End the turn", "Done moving", "None in
/// its ordering range", "Stop the game here"): shown on a row of their own
/// under a question's other options.
pub(super) const CLOSING_CHOICES: [&str; 4] = ["end", "done", "none", STOP_CHOICE];

/// The option that stops a game (or confirms stopping it): it has no key.
const STOP_CHOICE: &str = "stop";

/// Whether an option stops the game (`stop`, or a result `stop:...` that
/// ends it): such an option is clicked, never keyed.
fn ends_the_game(id: &str) -> bool {
    id == STOP_CHOICE || id.starts_with("stop:")
}

/// Most of a short play screen's height the question box keeps for itself
/// when its question needs less (see the tallest height kept).
pub(super) const QUESTION_KEEP_FRACTION: f32 = 0.3;

/// Height below which the play screen is short (the default 1000x700
/// window leaves about 640 for it; a 1024x600 screen about 540).
pub(super) const SHORT_PLAY_HEIGHT: f32 = 600.0;

/// Memory key: the question on screen and when it was first drawn.
pub(super) const QUESTION_APPEARED: &str = "question-appeared";

/// Memory key: the id of the question's typed field (number or cards).
pub(super) const QUESTION_FIELD: &str = "question-field";

/// Seconds after a question first shows during which an answer clicked or
/// pressed on it is not taken: the second click of a double click, or a
/// second Enter, meant for the question before (about 0.1-0.2 s apart).
pub(super) const QUESTION_SETTLE_SECS: f64 = 0.2;

/// How many of the last answer's log lines are shown with the question.
pub(super) const LAST_ANSWER_LINES: usize = 2;

/// Selects the whole of `text` in the single-line field `id`, so what is
/// typed next replaces it.
fn select_all(ui: &egui::Ui, id: egui::Id, text: &str) {
    use egui::text::{CCursor, CCursorRange};
    let mut edit = egui::TextEdit::load_state(ui.ctx(), id).unwrap_or_default();
    edit.cursor.set_char_range(Some(CCursorRange::two(
        CCursor::new(0),
        CCursor::new(text.chars().count()),
    )));
    edit.store(ui.ctx(), id);
}

/// `field` is the question's typed field: remembered as such (Ctrl+Z in it
/// untouched is the game's), and given the keyboard when `take`.
fn claim_keyboard(ui: &egui::Ui, field: &egui::Response, key: egui::Id, take: bool) {
    ui.data_mut(|d| d.insert_temp(key, field.id));
    if take {
        field.request_focus();
    }
}

#[cfg(test)]
mod tests {
    use super::{Command, dice_key_commands, option_keys};

    fn key(key: egui::Key, pressed: bool, repeat: bool) -> egui::Event {
        egui::Event::Key {
            key,
            physical_key: None,
            pressed,
            repeat,
            modifiers: egui::Modifiers::NONE,
        }
    }

    /// Dice typed faster than the frames come: every press counts, in the
    /// order pressed, the same face twice too ("66123452" once lost a 6 and
    /// went in sorted).
    #[test]
    fn dice_typed_in_one_frame_go_in_as_typed() {
        use egui::Key::{Backspace, Num0, Num1, Num2, Num6, Num9};
        let events = [
            key(Num0, true, false),
            key(Num6, true, false),
            key(Num6, false, false),
            key(Num6, true, false),
            key(Num1, true, false),
            key(Num1, true, true),
            key(Num9, true, false),
            key(Num2, true, false),
            key(Backspace, true, false),
            key(Num2, true, false),
        ];
        assert_eq!(
            dice_key_commands(&events),
            [
                Command::EnterDie(6),
                Command::EnterDie(6),
                Command::EnterDie(1),
                Command::EnterDie(2),
                Command::RemoveLastDie,
                Command::EnterDie(2),
            ]
        );
    }

    /// The option that closes a step keeps key 0 whatever comes before it;
    /// the others are numbered 1-9 in the order shown, and none past 9.
    #[test]
    fn the_closing_option_keeps_key_zero() {
        assert_eq!(option_keys(3, 1), [Some(1), Some(2), Some(3), Some(0)]);
        assert_eq!(option_keys(2, 1), [Some(1), Some(2), Some(0)]);
        assert_eq!(option_keys(0, 1), [Some(0)]);
        assert_eq!(option_keys(2, 2), [Some(1), Some(2), Some(0), Some(3)]);
        let many = option_keys(10, 2);
        assert_eq!(many[8], Some(9));
        assert_eq!(many[9], None);
        assert_eq!(many[10..], [Some(0), None]);
    }
}
