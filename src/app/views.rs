//! The screens. Each function reads the state and returns commands.

use super::{AppState, Command, Screen};
use crate::rules::games::GameId;
use crate::rules::procedure::{Answer, Ask};
use crate::rules::session::Event;

/// Draws the window; returns what the user asked for.
pub fn show(state: &AppState, ui: &mut egui::Ui) -> Vec<Command> {
    let mut cmds = Vec::new();
    egui::CentralPanel::default().show(ui, |ui| {
        if let Some(msg) = state.messages.last() {
            ui.horizontal(|ui| {
                ui.colored_label(egui::Color32::from_rgb(200, 80, 40), msg);
                if ui.button("Dismiss").clicked() {
                    cmds.push(Command::DismissMessage);
                }
            });
            ui.separator();
        }
        match &state.screen {
            Screen::Home => home(state, ui, &mut cmds),
            Screen::Rules(g) => rules(state, *g, ui, &mut cmds),
            Screen::Play => play(state, ui, &mut cmds),
        }
    });
    cmds
}

fn home(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    ui.heading("Adjutant");
    ui.label("Pick a game to read its rules, or resume a saved game.");
    if let Some(last) = state.saves.first() {
        let name = display_name(&last.path);
        if ui.button(format!("Resume last game ({name})")).clicked() {
            cmds.push(Command::Resume(last.path.clone()));
        }
    }
    ui.add_space(8.0);
    ui.heading("Games");
    for (game, rs) in state.library.games() {
        if ui.button(&rs.title).clicked() {
            cmds.push(Command::OpenRules(game));
        }
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
    for s in &state.saves {
        let name = display_name(&s.path);
        ui.horizontal(|ui| {
            ui.label(&name);
            if ui.button(format!("Resume {name}")).clicked() {
                cmds.push(Command::Resume(s.path.clone()));
            }
        });
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
    let mut query = state.rules_query.clone();
    ui.horizontal(|ui| {
        let label = ui.label("Search rules:");
        ui.text_edit_singleline(&mut query).labelled_by(label.id);
    });
    if query != state.rules_query {
        cmds.push(Command::SetRulesQuery(query.clone()));
    }
    egui::ScrollArea::vertical().show(ui, |ui| {
        for r in rs.search(&query) {
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
    ui.horizontal(|ui| {
        if ui.button("Home").clicked() {
            cmds.push(Command::GoHome);
        }
        if ui
            .add_enabled(!session.events().is_empty(), egui::Button::new("Undo"))
            .clicked()
        {
            cmds.push(Command::Undo);
        }
        if ui
            .add_enabled(session.redo_len() > 0, egui::Button::new("Redo"))
            .clicked()
        {
            cmds.push(Command::Redo);
        }
        ui.label(format!("Saving to {}", autosave.path.display()));
    });
    let st = session.state();
    ui.heading(format!("{} — round {}", session.ruleset().title, st.round));
    if let Some(o) = &st.outcome {
        ui.strong(o.reason.clone());
    }
    if let Some(req) = session.pending() {
        ui.group(|ui| {
            ui.strong(&req.prompt);
            match &req.ask {
                Ask::Choose { options } => {
                    ui.horizontal_wrapped(|ui| {
                        for o in options {
                            if ui.button(&o.label).clicked() {
                                cmds.push(Command::Apply(Event::Answer(Answer::Choice(
                                    o.id.clone(),
                                ))));
                            }
                        }
                    });
                }
                Ask::Confirm => {
                    if ui.button("Done").clicked() {
                        cmds.push(Command::Apply(Event::Answer(Answer::Confirm)));
                    }
                }
                Ask::Dice { count } => {
                    ui.horizontal(|ui| {
                        ui.label(format!(
                            "Type the {count} dice ({} so far):",
                            state.dice_entry.len()
                        ));
                        for face in 1..=6u8 {
                            if ui.button(format!("Die {face}")).clicked() {
                                cmds.push(Command::EnterDie(face));
                            }
                        }
                        if !state.dice_entry.is_empty() && ui.button("Clear").clicked() {
                            cmds.push(Command::ClearDice);
                        }
                    });
                    if ui.button("Roll / draw for me").clicked() {
                        cmds.push(Command::AnswerVirtually);
                    }
                }
                _ => {
                    if ui.button("Roll / draw for me").clicked() {
                        cmds.push(Command::AnswerVirtually);
                    }
                }
            }
        });
    }
    ui.columns(2, |cols| {
        cols[0].heading("Units");
        for (i, side) in st.sides.iter().enumerate() {
            cols[0].strong(&side.name);
            for (_, u) in st.units_of(i) {
                cols[0].label(format!(
                    "{}: {}/{} soldiers, {} wounds",
                    u.name,
                    u.soldiers.len(),
                    u.soldiers_at_start,
                    u.wounds()
                ));
            }
        }
        cols[1].heading("Log");
        egui::ScrollArea::vertical()
            .stick_to_bottom(true)
            .show(&mut cols[1], |ui| {
                for l in &st.log {
                    ui.label(&l.text);
                }
            });
    });
}

fn display_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
