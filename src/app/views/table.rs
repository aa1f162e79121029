//! The table view: the camera's picture, what it read, and corrections.

use super::*;

/// The dice size setting: dice that look small (a camera far above the
/// table) read better enlarged; Auto measures which enlargement suits.
pub(super) fn dice_scale_row(
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

pub(super) fn table(state: &AppState, ui: &mut egui::Ui, cmds: &mut Vec<Command>) {
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
                // A lost source is looked for until it is back or the
                // player stops the looking (audit CC C2).
                if let Some(lost) = &state.lost_source {
                    let what = match lost {
                        crate::app::FrameSourceKind::Camera(n) => format!("camera {n}"),
                        crate::app::FrameSourceKind::Replay(dir) => {
                            format!("the photo folder {}", dir.display())
                        }
                    };
                    ui.label(format!(
                        "Looking for {what} again every few seconds; dice and cards can be entered by hand meanwhile."
                    ));
                    if ui.button("Stop").clicked() {
                        cmds.push(Command::StopLive);
                    }
                } else {
                    ui.label(
                        "Not reading a camera or photos; dice and cards can always be entered by hand.",
                    );
                }
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
        // The picks its hint speaks of are here too (audit BN, J6), in a
        // slot of kept height: the picture below does not move as hints
        // come and go (audit CD1).
        let hovered = camera_slot(state, ui, |ui| {
            if !camera_button(state, ui, cmds) {
                camera_pick_row(state, ui, cmds);
            }
        });
        if hovered {
            cmds.push(Command::HoldReplayPhoto);
        }
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
                if target.is_card() && !target.outline_holds(&frame.scan, p) {
                    cmds.push(Command::SelectBeside(target, p));
                } else {
                    cmds.push(Command::Select(Some(target)));
                }
            }
            let origin = resp.rect.min;
            overlay(&painter, &frame.scan, state.selected, |p| {
                origin + egui::vec2(p[0], p[1]) * scale
            });
            // Aiming at a die or card: a replay holds its photo (audit CD1).
            if resp.hovered() {
                cmds.push(Command::HoldReplayPhoto);
            }
        }
        detections(state, &frame.scan, &mut cols[1], cmds);
        if cols[1].ui_contains_pointer() {
            cmds.push(Command::HoldReplayPhoto);
        }
    });
}

/// Gap between a die's outline and its tag above it (points).
const DIE_TAG_GAP: f32 = 10.0;

/// Outlines and tags over the picture: green read, amber read with doubt
/// ("5?"), red unread, light blue face down; the picked detection is drawn
/// thicker in yellow.
pub(super) fn overlay(
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
    // A die's tag sits above it, off its pips, so the read can be checked
    // against the picture.
    let die = |c: [f32; 2], size: f32, stroke: egui::Stroke, text: &str| {
        let c = to_screen(c);
        let r = (to_screen([size / 2.0, 0.0]).x - to_screen([0.0, 0.0]).x).max(3.0);
        painter.circle_stroke(c, r, stroke);
        tag(c - egui::vec2(0.0, r + DIE_TAG_GAP), text);
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
        let (text, doubtful) = die_label(d.value, d.confidence);
        let colour = if doubtful {
            DOUBTFUL_COLOUR
        } else {
            egui::Color32::GREEN
        };
        die(
            d.center,
            d.size,
            stroke(Some(Target::Die(i)), colour),
            &text,
        );
    }
    for (i, d) in scan.unread_dice.iter().enumerate() {
        let s = stroke(Some(Target::UnreadDie(i)), egui::Color32::RED);
        die(d.center, d.size, s, "?");
    }
}

/// The list of what was read, each entry a button that picks it for
/// correcting, and the picker for the picked one.
pub(super) fn detections(
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
            let text = match state.corrections.names_at(c.centre(), true) {
                true => format!("{} (yours)", c.code),
                false => format!("{} {:.0}%", c.code, c.confidence * 100.0),
            };
            entry(ui, Target::Card(i), text);
        }
        for i in 0..scan.unread.len() {
            entry(ui, Target::UnreadCard(i), format!("unread card {}", i + 1));
        }
        let moving = state.live_frame.as_ref().map_or(0, |f| f.moving_cards);
        if scan.cards.is_empty() && scan.unread.is_empty() && moving == 0 {
            ui.label("none");
        }
        if moving > 0 {
            ui.label(format!("({moving} still moving)"));
        }
    });
    let backs = list_or_none(scan.backs.iter().map(|b| b.colour.clone()));
    ui.label(format!("Face-down cards: {backs}"));
    ui.horizontal_wrapped(|ui| {
        ui.label("Dice:");
        for (i, d) in scan.dice.iter().enumerate() {
            // A face the player named is theirs, not a sure read (a stale
            // one would hide behind "100%": audit BD6).
            let text = match state.corrections.names_at(d.center, false) {
                true => format!("die {} (yours)", d.value),
                false => {
                    let (face, _) = die_label(d.value, d.confidence);
                    format!("die {face} {:.0}%", d.confidence * 100.0)
                }
            };
            entry(ui, Target::Die(i), text);
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
        picker(target, state.selected_beside, ui, cmds);
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

/// One click names the picked card or die. `beside`: the click that picked
/// a card only by its grown outline, where another card may lie unread.
pub(super) fn picker(
    target: Target,
    beside: Option<crate::vision::geometry::Point>,
    ui: &mut egui::Ui,
    cmds: &mut Vec<Command>,
) {
    if !target.is_die() {
        ui.label(if target.is_card() {
            "This card is:"
        } else {
            "Nothing was read here. Add a card:"
        });
        if let Some(at) = beside.filter(|_| target.is_card()) {
            // A click just off the card: the card itself, or one tucked
            // beside or under it that the reader missed.
            if ui
                .button("Not this card: add one where I clicked")
                .clicked()
            {
                cmds.push(Command::Select(Some(Target::Spot(at))));
            }
        }
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
