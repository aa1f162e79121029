//! The screens. Each function reads the state and returns commands.

use super::corrections::{Fix, Target};
use super::{AppState, Command, Screen, default_number, live};
use crate::rules::games::GameId;
use crate::rules::procedure::{Answer, Ask};
use crate::rules::save::SaveCondition;
use crate::rules::session::Event;
use crate::table::{BackColour, Card};
use crate::vision::dice::scale::DiceScale;

mod home;
mod play;
mod setup;
mod table;
mod units;

use home::*;
use play::*;
use setup::*;
use table::*;
use units::*;

/// The most height the message list takes before it scrolls.
pub(super) const MESSAGES_HEIGHT: f32 = 120.0;

/// Messages are problems to read: in an orange that reads on both themes.
pub(super) const MESSAGE_COLOUR: egui::Color32 = egui::Color32::from_rgb(200, 80, 40);

/// Enter was pressed in `field` (a single-line field gives up the keyboard
/// on Enter).
pub(super) fn enter_pressed_in(ui: &egui::Ui, field: &egui::Response) -> bool {
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
                                egui::Label::new(egui::RichText::new(msg).color(
                                    // News in the text's own colour; problems stand out.
                                    if state.is_news(msg) {
                                        ui.visuals().text_color()
                                    } else {
                                        MESSAGE_COLOUR
                                    },
                                ))
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
        // A setup form with its problems listed outgrows a small screen
        // once messages take the foot of the window (audit CC C1).
        form => {
            egui::ScrollArea::vertical()
                .auto_shrink([false; 2])
                .show(ui, |ui| match form {
                    Screen::NewT52 => new_t52(state, ui, &mut cmds),
                    Screen::NewGunfight => new_gunfight(state, ui, &mut cmds),
                    Screen::NewNapoleonic => new_napoleonic(state, ui, &mut cmds),
                    Screen::NewCardActivation => new_card_activation(state, ui, &mut cmds),
                    Screen::NewGentlemen => new_gentlemen(state, ui, &mut cmds),
                    Screen::Home | Screen::Rules(_) | Screen::Play | Screen::Table => {}
                });
        }
    });
    cmds
}

pub(super) fn display_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The camera's answer to the question on screen as a button, or why it
/// has none; returns whether an answer was offered. (Each costs a dry run of
/// the answer, so it is worked out once per frame; the two never both
/// apply.)
pub(super) fn camera_button(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) -> bool {
    match state.camera_answer() {
        Some(answer) => {
            // The whole reading replaces what was entered by hand: said on
            // the button, not done silently (audits CC C7, BJ J7).
            let entered = match answer {
                crate::rules::Answer::Dice(_) => state.dice_entry.len(),
                _ => state.cards_entry.len(),
            };
            let instead = match entered {
                0 => String::new(),
                n => format!(" instead of the {n} entered"),
            };
            if ui
                .button(format!("Use the camera's {answer}{instead}"))
                .clicked()
            {
                cmds.push(Command::AnswerFromCamera);
            }
            // A card it cannot read may belong to the answer: said where
            // the one click is (audit BN: the note was hidden just here).
            if let Some(note) = state.unread_cards_note() {
                camera_hint_label(ui, note);
            }
            true
        }
        None => {
            if let Some(hint) = state.camera_hint() {
                camera_hint_label(ui, hint);
            }
            false
        }
    }
}

/// A camera hint, wrapped at about the card grid's width: a long hint does
/// not widen the question box for as long as a frame shows it (audits AI7,
/// AK).
fn camera_hint_label(ui: &mut egui::Ui, hint: String) {
    ui.scope(|ui| {
        ui.set_max_width(CAMERA_HINT_WIDTH.min(ui.available_width()));
        ui.add(egui::Label::new(hint).wrap());
    });
}

/// The camera's cards offered as one-click picks for a cards question, a
/// card picked already kept in its place, greyed (see
/// [`AppState::camera_pick_buttons`]): under the question, and in the
/// Table view, whose hint speaks of them too.
pub(super) fn camera_pick_row(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let seen = state.camera_pick_buttons();
    if !seen.iter().any(|(_, taken)| !taken) {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        for (card, taken) in seen {
            let label = if taken {
                format!("{card} taken")
            } else {
                format!("Use {card}")
            };
            // One width for both labels: the buttons after it do not move
            // either.
            let button = egui::Button::new(label).min_size(egui::vec2(PICK_BUTTON_WIDTH, 0.0));
            if ui.add_enabled(!taken, button).clicked() {
                cmds.push(Command::EnterCard(card));
            }
        }
    });
}

/// Width of a camera card's pick button, "Use Ah" or "Ah taken" alike.
const PICK_BUTTON_WIDTH: f32 = 76.0;

/// Width (points) at which the camera's hints wrap: about the card grid's.
const CAMERA_HINT_WIDTH: f32 = 380.0;

/// The least height kept for what the camera says or offers about a card
/// or dice question, in button rows (plus a line of text): a hint, the
/// camera's answer, its cards or dice to click.
const CAMERA_SLOT_ROWS: f32 = 2.0;

/// Draws what the camera says or offers about the question in a slot of
/// kept height: at least [`CAMERA_SLOT_ROWS`], and the tallest it has been,
/// so the card grid and dice buttons below stay put as readings come and
/// go (a click meant for one card landed on another: audit AI1). Without
/// frames coming in, nothing is shown, and the slot is kept only for the
/// question it was drawn for: the buttons below do not jump when a camera
/// is lost or stopped mid-question (audit CC C3). Returns whether the
/// pointer is over the slot (a replay then holds its photo: audit CC C4).
pub(super) fn camera_slot(
    state: &AppState,
    ui: &mut egui::Ui,
    add: impl FnOnce(&mut egui::Ui),
) -> bool {
    let id = egui::Id::unique("camera-slot-height");
    let question = state.session.as_ref().map_or(0, |(s, _)| s.events().len());
    let kept = ui.data(|d| d.get_temp::<(usize, f32)>(id));
    let top = ui.cursor().top();
    add(ui);
    let used = ui.cursor().top() - top;
    if state.live_frame.is_none() {
        if let Some((q, height)) = kept.filter(|(q, _)| *q == question) {
            ui.add_space((height - used).max(0.0));
            ui.data_mut(|d| d.insert_temp(id, (q, height)));
        }
        return false;
    }
    let spacing = ui.spacing();
    let least = CAMERA_SLOT_ROWS * (spacing.interact_size.y + spacing.item_spacing.y)
        + ui.text_style_height(&egui::TextStyle::Body)
        + spacing.item_spacing.y;
    let slot = least.max(kept.map_or(0.0, |(_, h)| h)).max(used);
    ui.data_mut(|d| d.insert_temp(id, (question, slot)));
    ui.add_space(slot - used);
    let area = egui::Rect::from_x_y_ranges(ui.max_rect().x_range(), top..=top + slot);
    ui.rect_contains_pointer(area)
}

/// A die the reader is less sure of than this is marked for checking
/// ("5?", amber). On the byler-d6 photos (all 250, read at 1x) about 29 of
/// the 39 wrong reads and 123 of the 1711 right ones are under it (wrong
/// reads assigned to a photo's least sure dice, so approximate).
pub(super) const DOUBTFUL_DIE: f32 = 0.8;

/// Amber: a die read with doubt, to be checked.
pub(super) const DOUBTFUL_COLOUR: egui::Color32 = egui::Color32::from_rgb(255, 176, 0);

/// What a die reads as on screen: its face, with "?" when doubtful; and
/// whether it is.
pub(super) fn die_label(value: u8, confidence: f32) -> (String, bool) {
    if confidence < DOUBTFUL_DIE {
        (format!("{value}?"), true)
    } else {
        (value.to_string(), false)
    }
}

/// [`die_label`] as button text, with `tag` after the face (" (used)"):
/// amber when doubtful.
fn die_text(value: u8, confidence: f32, tag: &str) -> egui::RichText {
    match die_label(value, confidence) {
        (text, true) => egui::RichText::new(format!("{text}{tag}")).color(DOUBTFUL_COLOUR),
        (text, false) => egui::RichText::new(format!("{text}{tag}")),
    }
}

/// The camera's dice for a dice question, each a menu to use or fix it
/// where the question is (a misread is one click and a face away, not a trip
/// to the table view): "Use this die" (one of several in view), a face,
/// "Not a die" (one left from the last roll), and for an unread die the
/// face it shows.
pub(super) fn camera_dice_fixes(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(f) = &state.live_frame else {
        return;
    };
    let scan = &f.scan;
    if f.moving_dice > 0
        || state.shows_answered_reading()
        || (scan.dice.is_empty() && scan.unread_dice.is_empty())
    {
        return;
    }
    let faces = |ui: &mut egui::Ui, cmds: &mut Vec<Command>, target: Target| {
        for v in 1..=6u8 {
            if ui.button(format!("shows {v}")).clicked() {
                cmds.push(Command::Correct(target, Fix::Die(v)));
            }
        }
        if target.is_die() && ui.button("Not a die (or not this roll)").clicked() {
            cmds.push(Command::Correct(target, Fix::NotADie));
        }
    };
    ui.horizontal_wrapped(|ui| {
        ui.label("Camera's dice (click one to use or fix it):");
        for (i, d) in scan.dice.iter().enumerate() {
            // A die that answered a roll one by one and lies there still,
            // or one entered for this roll, is not taken again.
            let used = state.die_used(d);
            let entered = state.dice_entry.has_seen(d);
            let tag = match (used, entered) {
                (true, _) => " (used)",
                (false, true) => " (entered)",
                _ => "",
            };
            let text = die_text(d.value, d.confidence, tag);
            ui.menu_button(text, |ui| {
                // One die of several in view (two players rolled together).
                if !used && !entered && ui.button(format!("Use this die ({})", d.value)).clicked() {
                    cmds.push(Command::UseCameraDie(i));
                }
                faces(ui, cmds, Target::Die(i));
            })
            .response
            .on_hover_text(format!(
                "{}{}",
                match state.corrections.names_at(d.center, false) {
                    true => format!("Named {} by you", d.value),
                    false => format!("Read as {} ({:.0}% sure)", d.value, d.confidence * 100.0),
                },
                if used {
                    "; it answered a roll already and lies where it lay"
                } else {
                    ""
                }
            ));
        }
        for i in 0..scan.unread_dice.len() {
            ui.menu_button(egui::RichText::new("?").color(egui::Color32::RED), |ui| {
                faces(ui, cmds, Target::UnreadDie(i));
            })
            .response
            .on_hover_text("Not read: click to name it");
        }
    });
}

/// Fifty-two buttons, a row per suit (red suits in red), and the jokers when
/// `jokers`: `pick` gets the code of the one clicked.
pub(super) fn card_grid(
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
    // One card's button: faded (with why, on hovering) when among the
    // discards, greyed out when it cannot be picked.
    let mut button = |ui: &mut egui::Ui, code: &str, label: &str, colour: egui::Color32| {
        let faded = in_discards(code);
        let shade = if faded {
            colour.gamma_multiply(DISCARD_FADE)
        } else {
            colour
        };
        let text = egui::RichText::new(label).color(shade);
        let mut response = ui
            .add_enabled(can_pick(code), egui::Button::new(text))
            .on_disabled_hover_text(why);
        if faded {
            response = response.on_hover_text(IN_DISCARDS);
        }
        if response.clicked() {
            pick(code.to_string());
        }
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
                    button(ui, &code, &code, colour);
                }
            });
        }
        // The jokers too fade among the discards (audit Z2-2).
        if jokers {
            let colour = ui.visuals().text_color();
            ui.horizontal(|ui| {
                for (code, label) in [("XR", "XR (red joker)"), ("XB", "XB (black joker)")] {
                    button(ui, code, label, colour);
                }
            });
        }
    });
}

/// How much a card among the discards fades in the card grid.
pub(super) const DISCARD_FADE: f32 = 0.45;

/// Said on hovering a card among the discards in the card grid.
pub(super) const IN_DISCARDS: &str =
    "In the discards: taken only if your table shuffled it back (a misread otherwise)";
