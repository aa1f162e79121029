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
            Screen::Table => table(state, ui, &mut cmds),
            Screen::NewT52 => new_t52(state, ui, &mut cmds),
        }
    });
    cmds
}

fn home(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    ui.heading("Adjutant");
    ui.label("Pick a game to read its rules, or resume a saved game.");
    if ui.button("Table view (camera)").clicked() {
        cmds.push(Command::OpenTable);
    }
    if let Some(last) = state.saves.first() {
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
            if game == GameId::T52 && ui.button("New T52 game").clicked() {
                cmds.push(Command::NewT52);
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
                    camera_button(state, ui, cmds);
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
                Ask::Number { min, max } => {
                    ui.horizontal(|ui| {
                        let mut n = state.number_entry.clamp(*min, *max);
                        let label = ui.label("Number:");
                        ui.add(egui::DragValue::new(&mut n).range(*min..=*max))
                            .labelled_by(label.id);
                        if n != state.number_entry {
                            cmds.push(Command::SetNumber(n));
                        }
                        if ui.button("OK").clicked() {
                            cmds.push(Command::AnswerNumber(n));
                        }
                    });
                }
                _ => {
                    camera_button(state, ui, cmds);
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
        if !st.objectives.is_empty() {
            cols[0].heading("Objectives");
            for o in &st.objectives {
                let holder = match o.holder {
                    crate::rules::state::Holder::Uncaptured => "uncaptured".to_string(),
                    crate::rules::state::Holder::Contested => "contested".to_string(),
                    crate::rules::state::Holder::Side(i) => format!("held by {}", st.side_name(i)),
                };
                cols[0].label(format!("{}: {holder}", o.name));
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

fn camera_button(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    if let Some(answer) = state.camera_answer()
        && ui.button(format!("Use the camera's {answer}")).clicked()
    {
        cmds.push(Command::AnswerFromCamera);
    }
}

fn table(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    ui.horizontal(|ui| {
        if ui.button("Back").clicked() {
            cmds.push(if state.session.is_some() { Command::GoPlay } else { Command::GoHome });
        }
        match &state.live {
            Some(l) => {
                ui.label(format!("Reading from {}", l.source));
                if ui.button("Stop").clicked() {
                    cmds.push(Command::StopLive);
                }
            }
            None => {
                ui.label("No camera running. Start Adjutant with a webcam plugged in, or with --replay DIR to read recorded frames; dice and cards can always be entered by hand.");
            }
        }
    });
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
            // Fit the picture to its column; overlays follow the same scale.
            let fit = (cols[0].available_width() / tex.size_vec2().x).min(1.0);
            let resp = cols[0].image((tex.id(), tex.size_vec2() * fit));
            let painter = cols[0].painter_at(resp.rect);
            let scale = frame.scale * fit;
            let to_screen = |p: [f32; 2]| resp.rect.min + egui::vec2(p[0], p[1]) * scale;
            let outline = |quad: &[[f32; 2]; 4], colour: egui::Color32| {
                let pts: Vec<egui::Pos2> = quad.iter().map(|p| to_screen(*p)).collect();
                painter.add(egui::Shape::closed_line(
                    pts,
                    egui::Stroke::new(2.0, colour),
                ));
            };
            for c in &frame.scan.cards {
                outline(&c.quad, egui::Color32::GREEN);
                painter.text(
                    to_screen(c.quad[0]),
                    egui::Align2::LEFT_BOTTOM,
                    &c.code,
                    egui::FontId::proportional(16.0),
                    egui::Color32::YELLOW,
                );
            }
            for q in &frame.scan.unread {
                outline(&q.quad, egui::Color32::RED);
            }
            for b in &frame.scan.backs {
                outline(&b.quad, egui::Color32::LIGHT_BLUE);
            }
            for d in &frame.scan.dice {
                let c = to_screen(d.center);
                painter.circle_stroke(
                    c,
                    d.size * scale / 2.0,
                    egui::Stroke::new(2.0, egui::Color32::GREEN),
                );
                painter.text(
                    c,
                    egui::Align2::CENTER_CENTER,
                    d.value.to_string(),
                    egui::FontId::proportional(16.0),
                    egui::Color32::YELLOW,
                );
            }
            for d in &frame.scan.unread_dice {
                painter.circle_stroke(
                    to_screen(d.center),
                    d.size * scale / 2.0,
                    egui::Stroke::new(2.0, egui::Color32::RED),
                );
            }
        }
        let scan = &frame.scan;
        cols[1].heading(format!("Read in {:.1} ms", scan.ms));
        let cards = list_or_none(scan.cards.iter().map(|c| c.code.clone()));
        cols[1].label(format!("Cards: {cards}"));
        cols[1].label(format!("Unread cards: {}", scan.unread.len()));
        let backs = list_or_none(scan.backs.iter().map(|b| b.colour.clone()));
        cols[1].label(format!("Face-down cards: {backs}"));
        let dice = list_or_none(scan.dice.iter().map(|d| d.value.to_string()));
        cols[1].label(format!("Dice: {dice}"));
        cols[1].label(format!("Unread dice: {}", scan.unread_dice.len()));
    });
}

fn new_t52(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = state.library.get(GameId::T52) else {
        ui.label("The T52 ruleset did not load.");
        return;
    };
    if ui.button("Back").clicked() {
        cmds.push(Command::GoHome);
    }
    ui.heading("New T52 game");
    ui.label("Type each regiment as card codes: units separated by spaces, cards lying under or beside a unit joined with +, upgrades after a colon. Example: XR As Ad 8c+7s 4h+5c+Qd:mob,tough 3s");
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
        ui.horizontal(|ui| {
            let l = ui.label(format!("Player {} name:", i + 1));
            ui.text_edit_singleline(name).labelled_by(l.id);
            let l = ui.label(format!("Player {} units:", i + 1));
            ui.add(egui::TextEdit::singleline(units).desired_width(420.0))
                .labelled_by(l.id);
            if camera && ui.button(format!("Player {} from camera", i + 1)).clicked() {
                cmds.push(Command::UnitsFromCamera(i));
            }
        });
    }
    ui.horizontal(|ui| {
        let l = ui.label("Terrain:");
        ui.text_edit_singleline(&mut form.terrain).labelled_by(l.id);
        let l = ui.label("Objective cards:");
        ui.text_edit_singleline(&mut form.objectives)
            .labelled_by(l.id);
    });
    if form != state.form {
        cmds.push(Command::EditForm(form.clone()));
    }
    match form.setup(rs) {
        Ok(_) => {
            if ui.button("Start game").clicked() {
                cmds.push(Command::StartT52);
            }
        }
        Err(problems) => {
            for p in problems {
                ui.colored_label(egui::Color32::from_rgb(220, 160, 60), p);
            }
        }
    }
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
