//! The home screen and the rules screen (and the rules search both use).

use super::*;

pub(super) fn home(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
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
                SaveCondition::InPart { why, .. } => {
                    ui.colored_label(WARNING, "(resumes in part)")
                        .on_hover_text(why);
                }
            }
        });
    }
}

/// The colour of a problem that does not stop play (a setup form's, a
/// damaged save's).
pub(super) const WARNING: egui::Color32 = egui::Color32::from_rgb(220, 160, 60);

/// How long ago `then` was, in words ("just now", "5 min ago", "3 days ago").
pub(super) fn ago(now: u64, then: u64) -> String {
    let s = now.saturating_sub(then);
    match s {
        0..60 => "just now".into(),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        _ => format!("{} day(s) ago", s / 86_400),
    }
}

/// The button that opens a game's setup form.
pub(super) fn new_game_button(game: GameId) -> (&'static str, Command) {
    match game {
        GameId::T52 => ("New T52 game", Command::NewT52),
        GameId::Gunfight => ("New Gunfight game", Command::NewGunfight),
        GameId::Napoleonic => ("New Napoleonic game", Command::NewNapoleonic),
        GameId::CardActivation => ("New Card-Activation game", Command::NewCardActivation),
        GameId::GentlemenOfWar => ("New Gentlemen of War game", Command::NewGentlemen),
    }
}

pub(super) fn rules(state: &AppState, game: GameId, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = state.library.get(game) else {
        ui.label("This game's ruleset did not load.");
        return;
    };
    if ui.button("Back").clicked() {
        cmds.push(Command::GoHome);
    }
    ui.heading(&rs.title);
    // The search box is the page's only field: typing goes there.
    let take_keyboard = ui.memory(|m| m.focused().is_none());
    rules_search(state, rs, ui, cmds, f32::INFINITY, take_keyboard);
}

/// A search box over a ruleset's entries and the entries matching it (all
/// of them when the box is empty), in a scroll area at most `max_height` tall.
/// The box takes the keyboard when `take_keyboard`. Returns whether Escape
/// was pressed in the box.
pub(super) fn rules_search(
    state: &AppState,
    rs: &crate::rules::Ruleset,
    ui: &mut egui::Ui,
    cmds: &mut Vec<Command>,
    max_height: f32,
    take_keyboard: bool,
) -> bool {
    let mut query = state.rules_query.clone();
    let field = ui
        .horizontal(|ui| {
            let label = ui.label("Search rules:");
            ui.text_edit_singleline(&mut query).labelled_by(label.id)
        })
        .inner;
    if take_keyboard {
        field.request_focus();
    }
    let escaped = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Escape));
    if query != state.rules_query {
        cmds.push(Command::SetRulesQuery(query.clone()));
    }
    egui::ScrollArea::vertical()
        .id_salt("rules")
        .max_height(max_height)
        .show(ui, |ui| {
            let found = crate::rules::lookup::lookup_as_typed(rs, &query);
            if found.is_empty() {
                ui.label(crate::rules::lookup::nothing_found(
                    rs,
                    &query,
                    "clear the box to list every entry",
                ));
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
    escaped
}
