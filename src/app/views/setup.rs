//! The setup forms of the five games.

use super::*;

pub(super) fn new_t52(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
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
    // Both regiments share one deck and one table; the camera takes every
    // card in view (audit AL2).
    if camera {
        ui.weak(
            "From the camera: lay one regiment, press its player's button, pick it up, then \
             lay the other (the camera takes every card in view).",
        );
    }
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
pub(super) fn form_header<'a>(
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
pub(super) fn side_rows(
    ui: &mut egui::Ui,
    sides: &mut [crate::app::setup_forms::SideForm],
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
pub(super) fn start_or_problems<T>(
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

pub(super) fn new_gunfight(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
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
        if form.gangs.len() < crate::app::setup_forms::MAX_GANGS
            && ui.button("Add a player").clicked()
        {
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

pub(super) fn new_napoleonic(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
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

pub(super) fn new_card_activation(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = form_header(
        state,
        ui,
        cmds,
        GameId::CardActivation,
        "Card-Activation",
        "New Card-Activation Skirmish game",
        "One line per side: a name and its units as Name:models, with one Field Commander as Name:commander (join a name's words with _, as Red_Rifles:5). Unit values come from the ruleset's editable profiles; a house rule's own profile is named after the name, as Bows:archers:3.",
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

pub(super) fn new_gentlemen(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
    let Some(rs) = form_header(
        state,
        ui,
        cmds,
        GameId::GentlemenOfWar,
        "Gentlemen of War",
        "New Gentlemen of War game",
        "One line per band: a name, the back colour of the player's 54-card deck, and its units as Name:profile (a name may have spaces), optionally with the unit's own stats from your roster sheet (Sharpe:rifleman:h1d4c3s2a0 for Hearts, Diamonds, Clubs, Spades, armour; e empty hands, w hands its weapons take, m mounted, t Mounted Training, g Strong, i Guard range, r rounds).",
    ) else {
        return;
    };
    let profiles: Vec<String> = rs
        .profiles
        .iter()
        .map(|p| format!("{} ({})", p.id, p.name))
        .collect();
    // Named where a player running the binary can reach it (audit BK K7).
    ui.label(format!(
        "Profiles: {}. They are an example roster by Adjutant (the rulebook's roster sheets are not in its text). For your own, run `adjutant rules gentlemen-of-war --export` and edit the file it writes, {}; Adjutant reads it at start.",
        profiles.join(", "),
        crate::paths::ruleset_dir().join("gentlemen-of-war.ron").display()
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
pub(super) fn list_or_none(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(" ")
    }
}

/// Width of a player's name field in the setup forms: room for a name of
/// about 25 letters ("Marshal Michel Ney" showed as "Marshal Michel").
pub(super) const NAME_FIELD_WIDTH: f32 = 170.0;
