//! The window, driven through AccessKit like a player would (no GPU needed).

mod common;

use adjutant::app::dice_entry::DiceEntry;
use adjutant::app::{AdjutantApp, AppState, Screen};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

/// The app at the size of its real window (1000x700).
fn window<'a>(state: AppState) -> Harness<'a, AppState> {
    window_sized(state, 1000.0, 700.0)
}

/// The app in a window of `width` x `height` points.
fn window_sized<'a>(state: AppState, width: f32, height: f32) -> Harness<'a, AppState> {
    Harness::builder()
        .with_size(egui::vec2(width, height))
        // A message panel that gains its scroll bar and sticks to its
        // bottom can take 6 frames to settle (seen now and then).
        .with_max_steps(8)
        .build_ui_state(AdjutantApp::frame, state)
}

/// The prompt of the request the open game is waiting on ("" if none).
fn pending_prompt(harness: &Harness<'_, AppState>) -> String {
    harness
        .state()
        .session
        .as_ref()
        .and_then(|(s, _)| s.pending().map(|r| r.prompt.clone()))
        .unwrap_or_default()
}

fn state(dir: &std::path::Path) -> AppState {
    AppState::new(Some(dir.join("rulesets")), Some(dir.join("saves")))
}

#[test]
fn home_lists_games_and_opens_a_rules_lookup() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, state(dir.path()));
    harness.run();
    harness.get_by_label("T52").click();
    harness.run();
    assert_eq!(
        harness.state().screen,
        Screen::Rules(adjutant::rules::GameId::T52)
    );
    harness.get_by_label("Panic Test");
    harness.get_by_label("Search rules:").focus();
    harness.run();
    harness.get_by_label("Search rules:").type_text("objective");
    harness.run();
    assert_eq!(harness.state().rules_query, "objective");
    assert!(
        harness.query_by_label("Panic Test").is_none(),
        "filtered out"
    );
    harness.get_by_label("Objectives");
    harness.get_by_label("Back").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::Home);
}

/// A T52 save whose roll-off waits for Red's die.
const ROLL_OFF_SAVE: &str = "(format: 1, game: T52, seed: 3, events: [Edit(AddSide(name: \"Red\", back: None)), Edit(AddSide(name: \"Blue\", back: None)), Begin(RollOff(sides: [0, 1]))])";

/// A Gunfight save of a game not yet begun.
const EMPTY_GUNFIGHT_SAVE: &str = "(format: 1, game: Gunfight, seed: 3, events: [])";

/// Writes `text` as the save `name` in the save folder of `dir`; its path.
fn write_save(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let saves = dir.join("saves");
    std::fs::create_dir_all(&saves).unwrap_or_else(|e| panic!("{e}"));
    let path = saves.join(name);
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    path
}

/// `--resume` when the newest save (and every backup of it) is garbage:
/// the older game that reads is opened, and the player is told why; with
/// no game that reads, why the newest cannot be resumed is said.
#[test]
fn resuming_says_when_the_newest_save_cannot_be_resumed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let good = write_save(dir.path(), "t52-1.ron", ROLL_OFF_SAVE);
    let bad = write_save(dir.path(), "t52-2.ron", "garbage");
    let age = |path: &std::path::Path, secs: u64| {
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(secs);
        std::fs::File::options()
            .write(true)
            .open(path)
            .and_then(|f| f.set_modified(when))
            .unwrap_or_else(|e| panic!("{e}"));
    };
    age(&good, 60);
    age(&bad, 10);
    let mut st = state(dir.path());
    st.resume_newest();
    assert_eq!(st.screen, Screen::Play);
    assert_eq!(
        st.session.as_ref().map(|(_, a)| a.path.clone()),
        Some(good.clone())
    );
    assert!(
        st.messages.iter().any(|m| m
            .starts_with("The newest saved game, t52-2.ron, cannot be resumed (")
            && m.contains("t52-1.ron, the newest that can, is open instead")),
        "{:?}",
        st.messages
    );
    std::fs::remove_file(&good).unwrap_or_else(|e| panic!("{e}"));
    let mut st = state(dir.path());
    st.resume_newest();
    assert!(st.session.is_none());
    assert!(
        st.messages
            .iter()
            .any(|m| m.starts_with("No saved game can be resumed: the newest, t52-2.ron, cannot (")),
        "{:?}",
        st.messages
    );
}

/// A save holding no setup opens to a sentence saying so, not a blank
/// screen.
#[test]
fn a_save_without_its_setup_says_so() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_save(dir.path(), "gunfight-1.ron", EMPTY_GUNFIGHT_SAVE);
    let mut st = state(dir.path());
    st.resume_newest();
    let mut harness = window(st);
    harness.run();
    harness.get_by_label_contains("This saved game holds no setup");
}

#[test]
fn a_saved_game_can_be_resumed_and_undone() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let saves = dir.path().join("saves");
    write_save(dir.path(), "t52-1.ron", ROLL_OFF_SAVE);
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, state(dir.path()));
    harness.run();
    harness.get_by_label("Resume t52-1.ron").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::Play);
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    let events = harness
        .state()
        .session
        .as_ref()
        .map_or(0, |(s, _)| s.events().len());
    assert_eq!(events, 4);
    // Red's die came from the virtual roller; Blue's is typed by hand.
    harness.get_by_label("Die 6").click();
    harness.run();
    let s = harness
        .state()
        .session
        .as_ref()
        .map(|(s, _)| (s.events().len(), s.pending().is_some()));
    assert_eq!(s.map(|x| x.0), Some(5));
    harness.get_by_label("Undo").click();
    harness.run();
    harness.get_by_label("Undo").click();
    harness.run();
    let events = harness
        .state()
        .session
        .as_ref()
        .map_or(0, |(s, _)| s.events().len());
    assert_eq!(events, 3);
    // The autosave followed the undo: both answers are out of the log and
    // kept to be redone.
    let (lib, _) = adjutant::rules::games::Library::builtin();
    let saved = adjutant::rules::save::read(&saves.join("t52-1.ron"), &lib)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(saved.events().len(), 3);
    assert_eq!(saved.redo_len(), 2);
}

#[test]
fn a_broken_ruleset_is_shown_not_fatal() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(dir.path().join("rulesets")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("rulesets/t52.ron"), "Ruleset(")
        .unwrap_or_else(|e| panic!("{e}"));
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, state(dir.path()));
    harness.run();
    assert!(
        harness
            .state()
            .messages
            .iter()
            .any(|m| m.contains("t52.ron:1:"))
    );
    harness.get_by_label("Dismiss").click();
    harness.run();
    assert!(harness.state().messages.is_empty());
}

/// A T52 game resumed from a save (in `dir`) whose roll-off asks for dice.
fn waiting_for_roll_off(dir: &std::path::Path) -> AppState {
    let save = write_save(dir, "t52-2.ron", ROLL_OFF_SAVE);
    let mut st = state(dir);
    st.execute(adjutant::app::Command::Resume(save));
    st
}

#[test]
fn a_pending_dice_request_can_be_answered_by_the_camera() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    // What the camera saw: one die showing 5.
    st.show_frame(frame_with(vec![], vec![die(5, [4.0, 4.0])]));
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, st);
    harness.run();
    harness.get_by_label("Use the camera's dice [5]").click();
    harness.run();
    let session = harness.state().session.as_ref().map(|(s, _)| s.clone());
    let session = session.unwrap_or_else(|| panic!("no session"));
    match session.events().last() {
        Some(adjutant::rules::Event::Answer(adjutant::rules::Answer::Dice(d))) => {
            assert_eq!(d.len(), 1);
            assert_eq!(d[0].value.get(), 5);
            assert_eq!(d[0].source, adjutant::table::DieSource::Camera);
        }
        other => panic!("expected the camera's dice as the answer, got {other:?}"),
    }
    // The next roll (Blue's): the same die lying where it lay is the last
    // answer, not this one.
    harness
        .state_mut()
        .show_frame(frame_with(vec![], vec![die(5, [5.0, 4.0])]));
    harness.run();
    assert!(
        pending_prompt(&harness).contains("Blue"),
        "{}",
        pending_prompt(&harness)
    );
    harness.get_by_label_contains("The camera still shows the dice that answered an earlier roll");
    assert!(harness.query_by_label_contains("Use the camera").is_none());
    // Rolled again: offered.
    harness
        .state_mut()
        .show_frame(frame_with(vec![], vec![die(2, [120.0, 60.0])]));
    harness.run();
    harness.get_by_label("Use the camera's dice [2]").click();
    harness.run();
    assert_eq!(last_dice(&harness), vec![2]);
}

#[test]
fn a_camera_roll_is_offered_only_once_the_dice_rest() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    // As a camera source sets it up.
    st.roll =
        adjutant::vision::settle::RollWatcher::new(adjutant::vision::settle::SettleRule::LIVE);
    // Tumbling across the table: a new place and face each frame.
    st.show_frame(frame_with(vec![], vec![die(2, [40.0, 40.0])]));
    st.show_frame(frame_with(vec![], vec![die(6, [55.0, 40.0])]));
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, st);
    harness.run();
    assert!(harness.query_by_label_contains("Use the camera").is_none());
    harness.get_by_label_contains("1 die still rolling");
    // At rest showing 3, with one frame misread as 5: voted 3 on the third
    // frame at rest.
    for v in [3, 5] {
        harness
            .state_mut()
            .show_frame(frame_with(vec![], vec![die(v, [70.0, 40.0])]));
        harness.run();
        assert!(harness.query_by_label_contains("Use the camera").is_none());
    }
    harness
        .state_mut()
        .show_frame(frame_with(vec![], vec![die(3, [70.5, 40.0])]));
    harness.run();
    assert!(harness.query_by_label_contains("still rolling").is_none());
    harness.get_by_label("Use the camera's dice [3]").click();
    harness.run();
    let session = harness.state().session.as_ref().map(|(s, _)| s.clone());
    let session = session.unwrap_or_else(|| panic!("no session"));
    match session.events().last() {
        Some(adjutant::rules::Event::Answer(adjutant::rules::Answer::Dice(d))) => {
            assert_eq!(d.iter().map(|d| d.value.get()).collect::<Vec<_>>(), vec![3]);
        }
        other => panic!("expected the camera's dice as the answer, got {other:?}"),
    }
}

/// Clicks the widget labelled `label` and lets the window answer.
fn click(harness: &mut Harness<'_, AppState>, label: &str) {
    harness.get_by_label(label).click();
    harness.run();
}

/// A misread die is fixed where the question is: each of the camera's dice
/// is a menu (a doubtful read marked "?"): a die left from the last roll
/// goes with "Not a die", a misread one gets its face, an unread one is
/// named; then the whole reading is offered; or one die of several is
/// taken ("Use this die").
#[test]
fn the_camera_dice_are_fixed_from_the_question() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    let mut doubtful = die(5, [200.0, 40.0]);
    doubtful.confidence = 0.5;
    st.show_frame(frame_with(vec![], vec![die(2, [40.0, 40.0]), doubtful]));
    let mut harness = window(st);
    harness.run();
    click(&mut harness, "5?");
    click(&mut harness, "shows 4");
    // The 2 is left from before: not part of this roll.
    click(&mut harness, "2");
    click(&mut harness, "Not a die (or not this roll)");
    click(&mut harness, "Use the camera's dice [4]");
    assert_eq!(last_dice(&harness), vec![4]);
    // The log says where the roll came from: the face was named by the
    // player, not read (audit CC C6).
    let log = harness
        .state()
        .session
        .as_ref()
        .map(|(s, _)| s.state().log.clone());
    let roll = log
        .unwrap_or_default()
        .into_iter()
        .rev()
        .find(|l| l.text.contains("rolled [4]"));
    let roll = roll.map(|l| l.text).unwrap_or_default();
    assert!(!roll.is_empty() && !roll.contains("camera"), "{roll}");
    // A die the camera read is said so.
    click(&mut harness, "Undo");
    harness
        .state_mut()
        .show_frame(frame_with(vec![], vec![die(4, [40.0, 140.0])]));
    harness.run();
    click(&mut harness, "Use the camera's dice [4]");
    assert_logged(&harness, "rolled [4] (read by the camera)");
    // An unread die is named from the question too.
    let frame = with_unread_die(frame_with(vec![], vec![]));
    harness.state_mut().show_frame(frame);
    harness.run();
    click(&mut harness, "?");
    click(&mut harness, "shows 6");
    click(&mut harness, "Use the camera's dice [6]");
    assert_eq!(last_dice(&harness), vec![6]);
    // Both players rolled together: each takes one die of the two in view.
    click(&mut harness, "Undo");
    click(&mut harness, "Undo");
    let frame = frame_with(vec![], vec![die(3, [60.0, 150.0]), die(5, [260.0, 150.0])]);
    harness.state_mut().show_frame(frame);
    harness.run();
    click(&mut harness, "3");
    click(&mut harness, "Use this die (3)");
    assert_eq!(last_dice(&harness), vec![3]);
    // Taken from the camera, and said so (audit AL5).
    assert_logged(&harness, "rolled [3] (read by the camera)");
    // The 3 lies there still: not offered again, so the other die answers
    // the next roll with one click.
    harness.get_by_label("3 (used)");
    click(&mut harness, "Use the camera's dice [5]");
    assert_eq!(last_dice(&harness), vec![5]);
}

/// A die taken with "Use this die" is not offered again while it lies
/// where it lay; rolled again (elsewhere) it is; an Undo frees it.
#[test]
fn a_camera_die_used_alone_is_not_offered_again_until_rolled() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    let two = frame_with(vec![], vec![die(3, [60.0, 150.0]), die(5, [260.0, 150.0])]);
    st.show_frame(two.clone());
    let mut harness = window(st);
    harness.run();
    click(&mut harness, "5");
    click(&mut harness, "Use this die (5)");
    assert_eq!(last_dice(&harness), vec![5]);
    // Only the 5 in view now: used already, and the hint says so.
    let used_only = frame_with(vec![], vec![die(5, [262.0, 151.0])]);
    harness.state_mut().show_frame(used_only);
    harness.run();
    harness.get_by_label_contains("The camera reads only dice used already (1 die)");
    assert!(harness.query_by_label_contains("Use the camera").is_none());
    // Undone: the 5 may answer again.
    click(&mut harness, "Undo");
    harness.state_mut().show_frame(two);
    harness.run();
    assert!(harness.query_by_label("5 (used)").is_none());
    // Redone: it answered again, so it is used again (audit BE N4).
    click(&mut harness, "Redo");
    harness.get_by_label("5 (used)");
    // Named anew, it is still the die that answered (audit BE N1).
    click(&mut harness, "5 (used)");
    click(&mut harness, "shows 6");
    harness.get_by_label("6 (used)");
    // Rolled again, the same face elsewhere: a new die.
    harness
        .state_mut()
        .show_frame(frame_with(vec![], vec![die(5, [500.0, 300.0])]));
    harness.run();
    click(&mut harness, "Use the camera's dice [5]");
    assert_eq!(last_dice(&harness), vec![5]);
}

/// Faces typed that are exactly the dice in view were typed from those
/// dice: they answered, and are not offered to the next roll (audit BE N5);
/// a typed face not in view leaves the camera's dice free.
#[test]
fn dice_typed_from_the_ones_in_view_are_not_offered_again() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    st.show_frame(frame_with(vec![], vec![die(4, [60.0, 150.0])]));
    st.execute(adjutant::app::Command::EnterDie(4));
    let mut harness = window(st);
    harness.run();
    assert_eq!(last_dice(&harness), vec![4]);
    harness.get_by_label("4 (used)");
    assert!(harness.query_by_label_contains("Use the camera").is_none());
    // Undone, then typed as another face: the 4 in view answered nothing.
    click(&mut harness, "Undo");
    harness
        .state_mut()
        .execute(adjutant::app::Command::EnterDie(2));
    harness.run();
    assert_eq!(last_dice(&harness), vec![2]);
    click(&mut harness, "Use the camera's dice [4]");
    assert_eq!(last_dice(&harness), vec![4]);
}

/// `frame` with a die the reader could not read at (120, 80).
fn with_unread_die(mut frame: adjutant::app::live::LiveFrame) -> adjutant::app::live::LiveFrame {
    frame
        .raw
        .unread_dice
        .push(adjutant::vision::scan::UnreadDieOut {
            center: [120.0, 80.0],
            size: 30.0,
        });
    frame
}

#[test]
fn the_camera_says_why_it_cannot_answer_a_roll_and_an_unread_die_is_named_with_clicks() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    // The roll-off wants 1 die; the camera reads 2.
    st.show_frame(frame_with(
        vec![],
        vec![die(2, [40.0, 40.0]), die(6, [200.0, 40.0])],
    ));
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, st);
    harness.run();
    harness.get_by_label_contains("The camera reads 2 dice; this roll needs 1. Click a die below");
    assert!(harness.query_by_label_contains("Use the camera").is_none());
    // One die the reader cannot read.
    let frame = with_unread_die(frame_with(vec![], vec![]));
    harness.state_mut().show_frame(frame);
    harness.run();
    harness.get_by_label_contains("The camera cannot read 1 die: click its ? to name it");
    // A die read beside one that is not: the read one is no answer yet (the
    // unread die might be the one rolled), so nothing is offered.
    let frame = with_unread_die(frame_with(vec![], vec![die(5, [40.0, 40.0])]));
    harness.state_mut().show_frame(frame);
    harness.run();
    harness.get_by_label_contains("The camera cannot read 1 die: click its ? to name it");
    assert!(harness.query_by_label_contains("Use the camera").is_none());
    assert!(harness.state().camera_answer().is_none());
    let frame = with_unread_die(frame_with(vec![], vec![]));
    harness.state_mut().show_frame(frame);
    harness.run();
    // Named in two clicks in the table view, then offered as the answer.
    harness.get_by_label("Table view (camera)").click();
    harness.run();
    harness.get_by_label("unread die 1").click();
    harness.run();
    harness.get_by_label("shows 4").click();
    harness.run();
    harness.get_by_label("Back").click();
    harness.run();
    assert!(
        harness
            .query_by_label_contains("The camera cannot read")
            .is_none()
    );
    harness.get_by_label("Use the camera's dice [4]").click();
    harness.run();
    let session = harness.state().session.as_ref().map(|(s, _)| s.clone());
    let session = session.unwrap_or_else(|| panic!("no session"));
    assert!(
        matches!(
            session.events().last(),
            Some(adjutant::rules::Event::Answer(adjutant::rules::Answer::Dice(d)))
                if d.len() == 1 && d[0].value.get() == 4
        ),
        "{:?}",
        session.events().last()
    );
}

#[test]
fn a_t52_game_is_set_up_from_typed_cards_and_played_from_the_window() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, state(dir.path()));
    harness.run();
    harness.get_by_label("New T52 game").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::NewT52);
    // A regiment left out: the problem is shown and Start does nothing.
    let mut form = harness.state().form.clone();
    let second = std::mem::take(&mut form.second_units);
    harness.state_mut().form = form;
    harness.run();
    harness.get_by_label("Start game").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::NewT52);
    harness.get_by_label("Player 2 units:").focus();
    harness.run();
    harness.get_by_label("Player 2 units:").type_text(&second);
    harness.run();
    // Two regiments and the usual objectives (a centre Jack and four
    // Kings) come filled in, a game as they stand.
    assert_eq!(harness.state().form.first_units, "XR As 8c+7s:mean 6s+9c");
    assert_eq!(harness.state().form.second_units, "XB Ac Tc+3s 4d+5c+Qc");
    assert_eq!(harness.state().form.objectives, "Jd Kh Ks Kd Kc");
    harness.get_by_label("Start game").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::Play);
    // The initiative roll-off asks for dice: let the virtual roller answer.
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    let (events, units) = harness
        .state()
        .session
        .as_ref()
        .map_or((0, 0), |(s, _)| (s.events().len(), s.state().units.len()));
    assert_eq!(events, 2);
    assert_eq!(units, 8);
    // Upgrades are shown by name beside their unit, for both players to see.
    let upgraded: Vec<String> = harness
        .state()
        .session
        .as_ref()
        .map_or(Vec::new(), |(s, _)| {
            let st = s.state();
            let with = st.units.iter().filter(|u| !u.upgrades.is_empty());
            with.flat_map(|u| u.upgrades.iter())
                .filter_map(|id| s.ruleset().upgrade(id).map(|up| up.name.clone()))
                .collect()
        });
    assert_eq!(upgraded, ["Mean"]);
    for name in &upgraded {
        let label = format!("; {name}");
        let shown = harness.query_all_by_label_contains(&label).count();
        assert!(shown >= 1, "{name} not shown");
    }
    // The game was saved as it went.
    assert_eq!(
        adjutant::rules::save::list(&dir.path().join("saves")).len(),
        1
    );
}

fn die(value: u8, center: [f32; 2]) -> adjutant::vision::scan::DieOut {
    adjutant::vision::scan::DieOut {
        value,
        center,
        size: 30.0,
        confidence: 0.9,
    }
}

fn card(code: &str, x: f32) -> adjutant::vision::scan::CardOut {
    adjutant::vision::scan::CardOut {
        code: code.into(),
        quad: [[x, 10.0], [x + 60.0, 10.0], [x + 60.0, 100.0], [x, 100.0]],
        confidence: 0.8,
    }
}

/// A 320x240 frame the camera "read" as the given cards and dice.
fn frame_with(
    cards: Vec<adjutant::vision::scan::CardOut>,
    dice: Vec<adjutant::vision::scan::DieOut>,
) -> adjutant::app::live::LiveFrame {
    let scan = adjutant::vision::scan::ScanRecord {
        image: "frame".into(),
        width: 320,
        height: 240,
        ms: 1.0,
        cards,
        unread: vec![],
        backs: vec![],
        dice,
        unread_dice: vec![],
    };
    let picture = image::DynamicImage::new_rgb8(320, 240);
    adjutant::app::live::preview(&picture, scan)
}

/// A click just beside a card (inside its grown outline only) picks it, and
/// also offers to add a card there: one tucked under it (audit Q6).
#[test]
fn a_click_beside_a_card_can_add_the_card_tucked_there() {
    use adjutant::app::Command;
    use adjutant::app::corrections::Target;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = state(dir.path());
    st.show_frame(frame_with(vec![card("4h", 100.0)], vec![]));
    st.execute(Command::OpenTable);
    st.execute(Command::SelectBeside(Target::Card(0), [95.0, 50.0]));
    let mut harness = window(st);
    harness.run();
    harness
        .get_by_label("Not this card: add one where I clicked")
        .click();
    harness.run();
    assert_eq!(harness.state().selected, Some(Target::Spot([95.0, 50.0])));
    // The next frame reads the same: the spot stays a spot (audit Z2-1).
    harness
        .state_mut()
        .show_frame(frame_with(vec![card("4h", 100.0)], vec![]));
    harness.run();
    assert_eq!(harness.state().selected, Some(Target::Spot([95.0, 50.0])));
    harness.get_by_label("5c").click();
    harness.run();
    let codes: Vec<String> = (harness.state().live_frame.as_ref())
        .map(|f| f.scan.cards.iter().map(|c| c.code.clone()).collect())
        .unwrap_or_default();
    assert_eq!(codes.len(), 2, "{codes:?}");
    assert!(codes.contains(&"5c".to_string()) && codes.contains(&"4h".to_string()));
    // A plain pick of the card offers no such button.
    harness
        .state_mut()
        .execute(Command::Select(Some(Target::Card(0))));
    harness.run();
    assert!(
        harness
            .query_by_label("Not this card: add one where I clicked")
            .is_none()
    );
}

#[test]
fn a_misread_card_or_die_is_corrected_with_a_click_and_stays_corrected() {
    use adjutant::app::Command;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = state(dir.path());
    st.show_frame(frame_with(
        vec![card("Kd", 10.0), card("As", 100.0)],
        vec![die(5, [250.0, 150.0])],
    ));
    st.execute(Command::OpenTable);
    let mut harness = window(st);
    harness.run();
    // Pick the misread card from the list, then name it.
    harness.get_by_label("Kd 80%").click();
    harness.run();
    assert_eq!(
        harness.state().selected,
        Some(adjutant::app::corrections::Target::Card(0))
    );
    harness.get_by_label("Kh").click();
    harness.run();
    harness.get_by_label("die 5 90%").click();
    harness.run();
    harness.get_by_label("shows 6").click();
    harness.run();
    let codes = |h: &Harness<'_, AppState>| -> Vec<String> {
        let scan = &h.state().live_frame.as_ref().map(|f| f.scan.clone());
        let scan = scan.clone().unwrap_or_else(|| panic!("no frame"));
        let mut v: Vec<String> = scan.cards.iter().map(|c| c.code.clone()).collect();
        v.extend(scan.dice.iter().map(|d| d.value.to_string()));
        v
    };
    assert!(
        harness.state().messages.is_empty(),
        "{:?}",
        harness.state().messages
    );
    assert_eq!(codes(&harness), ["Kh", "As", "6"]);
    // The next frame reads the same misreads, a little moved: still corrected.
    harness.state_mut().show_frame(frame_with(
        vec![card("As", 102.0), card("Kd", 12.0)],
        vec![die(5, [252.0, 151.0])],
    ));
    harness.run();
    assert_eq!(codes(&harness), ["As", "Kh", "6"]);
    harness.get_by_label("2 correction(s) in force.");
    harness.get_by_label("Forget corrections").click();
    harness.run();
    assert_eq!(codes(&harness), ["As", "Kd", "5"]);
}

/// Fixes are pinned to places in one source's frames: stopping it, or
/// reading another folder, forgets them (a card named at an empty spot was
/// offered as an answer from the next folder's photos).
#[test]
fn corrections_go_with_the_source_they_were_made_on() {
    use adjutant::app::Command;
    use adjutant::app::corrections::{Fix, Target};
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let photos = |name: &str| {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
        d
    };
    let (first, second) = (photos("first"), photos("second"));
    let mut st = state(dir.path());
    let fix = |st: &mut AppState| {
        st.show_frame(frame_with(vec![card("Kd", 10.0)], vec![]));
        st.execute(Command::Correct(Target::Card(0), Fix::Card("Kh".into())));
        st.execute(Command::Correct(
            Target::Spot([200.0, 50.0]),
            Fix::Card("5c".into()),
        ));
        assert_eq!(st.corrections.len(), 2, "{:?}", st.messages);
    };
    fix(&mut st);
    st.execute(Command::StopLive);
    assert!(st.corrections.is_empty(), "stopped: {:?}", st.corrections);
    st.execute(Command::Replay(first.clone()));
    fix(&mut st);
    st.execute(Command::Replay(first));
    assert_eq!(st.corrections.len(), 2, "the same folder keeps them");
    st.execute(Command::Replay(second));
    assert!(
        st.corrections.is_empty(),
        "another folder: {:?}",
        st.corrections
    );
}

#[test]
fn a_frame_is_kept_as_a_labelled_dice_photo_once_every_die_is_named() {
    use adjutant::app::Command;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = state(dir.path());
    let mut frame = frame_with(vec![], vec![die(5, [250.0, 150.0])]);
    frame
        .raw
        .unread_dice
        .push(adjutant::vision::scan::UnreadDieOut {
            center: [60.0, 60.0],
            size: 30.0,
        });
    st.show_frame(frame);
    st.execute(Command::OpenTable);
    let mut harness = window(st);
    harness.run();
    // An unread die would be a missing label: refused, with the reason.
    harness
        .get_by_label("Keep as a labelled dice photo")
        .click();
    harness.run();
    let last = |h: &Harness<'_, AppState>| h.state().messages.last().cloned().unwrap_or_default();
    assert!(
        last(&harness).contains("1 die unread"),
        "{}",
        last(&harness)
    );
    let set = dir.path().join("captures").join("dice");
    assert!(!set.join("labels.json").exists());
    // Named with two clicks, then kept.
    harness.get_by_label("unread die 1").click();
    harness.run();
    harness.get_by_label("shows 2").click();
    harness.run();
    harness
        .get_by_label("Keep as a labelled dice photo")
        .click();
    harness.run();
    assert!(
        last(&harness).contains("labelled with its 2 dice"),
        "{}",
        last(&harness)
    );
    let labels = adjutant::vision::eval::LabelSet::load(&set).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(labels.items.len(), 1);
    let mut dice = labels.items[0].dice.clone().unwrap_or_default();
    dice.sort_unstable();
    assert_eq!(dice, vec![2, 5]);
    let img = image::open(set.join(&labels.items[0].image)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((img.width(), img.height()), (320, 240), "the full frame");
}

#[test]
fn a_gunfight_is_set_up_and_cards_are_picked_with_clicks() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("New Gunfight game").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::NewGunfight);
    harness.get_by_label("Add a player").click();
    harness.run();
    // A third gang with no gunmen cannot start.
    harness.get_by_label("Start game").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::NewGunfight);
    harness.get_by_label("Remove player 3").click();
    harness.run();
    harness.get_by_label("Start game").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::Play);
    harness.get_by_label("Done").click();
    harness.run();
    // A card picked by mistake is taken back with a click.
    let picked = |codes: &[&str]| -> Vec<adjutant::table::Card> {
        codes.iter().filter_map(|c| c.parse().ok()).collect()
    };
    harness.state_mut().cards_entry = picked(&["As", "Kh"]);
    harness.run();
    harness.get_by_label("Take back the last").click();
    harness.run();
    assert_eq!(harness.state().cards_entry, picked(&["As"]));
    harness.get_by_label("Clear").click();
    harness.run();
    // Initiative bids: Red picks 9h, Blue picks 4c.
    harness.get_by_label("9h").click();
    harness.run();
    harness.get_by_label("4c").click();
    harness.run();
    assert_logged(&harness, "Order of play: Red (9h), Blue (4c)");
    harness.get_by_label("Kid (pistol): 6/6 lives");
    harness.get_by_label("[Red (9h)], Blue (4c)");
    // A rules question mid-game: the lookup on the play screen finds it.
    assert!(harness.query_by_label("Overwatch").is_none(), "folded away");
    harness.get_by_label("Rules lookup").click();
    harness.run();
    harness.get_by_label("Search rules:").focus();
    harness.run();
    harness.get_by_label("Search rules:").type_text("overwatch");
    harness.run();
    harness.get_by_label("Overwatch");
    assert!(
        harness.query_by_label("Civilian reactions").is_none(),
        "filtered out"
    );
    assert_eq!(harness.state().screen, Screen::Play);
    harness.get_by_label("Move a gunman").click();
    harness.run();
    harness.get_by_label("Kid (Red, pistol, 6 lives)").click();
    harness.run();
    let asked = pending_prompt(&harness);
    assert!(asked.contains("How many cards"), "{asked}");
}

#[test]
fn cards_are_typed_as_codes_and_a_bad_code_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    let type_cards = |harness: &mut Harness<'_, AppState>, text: &str| {
        harness.get_by_label("Or type them (Qh 10s XR):").focus();
        harness.run();
        harness
            .get_by_label("Or type them (Qh 10s XR):")
            .type_text(text);
        harness.run();
        harness.key_press(egui::Key::Enter);
        harness.run();
    };
    let events = event_count(&harness);
    // Red's bid wants one card: two are refused, and so is a code that
    // names no card; nothing is entered and the text stays to mend.
    type_cards(&mut harness, "9h 4c");
    assert_eq!(event_count(&harness), events);
    let said = harness.state().messages.join("\n");
    assert!(
        said.contains("2 cards typed; the question wants 1 card"),
        "{said}"
    );
    harness.state_mut().cards_typed.clear();
    type_cards(&mut harness, "9z");
    let said = harness.state().messages.join("\n");
    assert!(said.contains("9z: not a card"), "{said}");
    assert_eq!(harness.state().cards_typed, "9z");
    assert!(harness.state().cards_entry.is_empty());
    // Mended: the Enter button enters it, and the refusal goes.
    harness.state_mut().cards_typed = "9H".into();
    harness.run();
    harness.get_by_label("Enter").click();
    harness.run();
    assert_eq!(event_count(&harness), events + 1);
    assert!(
        harness.state().messages.is_empty(),
        "{:?}",
        harness.state().messages
    );
    assert!(harness.state().cards_typed.is_empty());
    // After Enter the box keeps the keyboard for the next player's card;
    // with nothing typed in it, Ctrl+Z is the game's (the box has nothing
    // to take back), and the box still has the keyboard.
    harness.get_by_label("Undo").click();
    harness.run();
    type_cards(&mut harness, "9h");
    assert_eq!(event_count(&harness), events + 1);
    let typing = harness.get_by_label("Or type them (Qh 10s XR):");
    assert!(typing.is_focused(), "Blue's card can be typed at once");
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(event_count(&harness), events, "Red's card taken back");
    let typing = harness.get_by_label("Or type them (Qh 10s XR):");
    assert!(typing.is_focused(), "Red's card can be typed again at once");
    // With something typed, Ctrl+Z is the box's own.
    harness.state_mut().cards_typed = "9".into();
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(event_count(&harness), events);
    harness.state_mut().cards_typed.clear();
    harness.run();
    type_cards(&mut harness, "9h");
    assert_eq!(event_count(&harness), events + 1);
    type_cards(&mut harness, "4c");
    assert_logged(&harness, "Order of play: Red (9h), Blue (4c)");
}

#[test]
fn a_napoleonic_game_starts_from_the_form_and_the_cut_is_drawn() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Napoleonic game");
    assert_eq!(harness.state().screen, Screen::Play);
    // The decks have no jokers: the picker offers none.
    harness.get_by_label("As");
    assert!(harness.query_by_label("XR (red joker)").is_none());
    // ...and a typed one is refused.
    harness.state_mut().cards_typed = "XR".into();
    harness.run();
    harness.get_by_label("Enter").click();
    harness.run();
    let said = harness.state().messages.join("\n");
    assert!(
        said.contains("XR: this game's deck has no jokers"),
        "{said}"
    );
    // A code that names no card is explained without jokers, which it has not.
    harness.state_mut().cards_typed = "9z".into();
    harness.run();
    harness.get_by_label("Enter").click();
    harness.run();
    let said = harness.state().messages.join("\n");
    let line = said.lines().find(|l| l.contains("9z: not a card"));
    assert!(line.is_some_and(|l| !l.contains("joker")), "{said}");
    // The cut: the virtual deck draws for both sides until one is higher
    // (a new game's seed is random: ties, each about 1 in 17, draw again).
    for _ in 0..40 {
        if harness.query_by_label("Roll / draw for me").is_none() {
            break;
        }
        harness.get_by_label("Roll / draw for me").click();
        harness.run();
    }
    let asked = pending_prompt(&harness);
    assert!(asked.contains("step 1"), "{asked}");
    harness.get_by_label("Line: 12 men in ranks, 0 confused, 0 lost");
}

#[test]
fn a_card_activation_game_deals_from_the_virtual_deck_and_asks_for_assignments() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    let asked = pending_prompt(&harness);
    assert!(
        asked.contains("which card goes face down beside Rifles"),
        "{asked}"
    );
    // The units list says where each unit's turn stands (weapons start
    // prepped, nothing taken yet).
    let shown = harness
        .query_all_by_label_contains("Rifles: 5/5 soldiers, 0 wounds; 0 of 2 actions taken")
        .count();
    assert_eq!(shown, 1);
    // Its values (move, morale...) are a hover away, and the panel says so.
    harness.get_by_label("Hover a unit for its profile.");
    harness
        .get_by_label_contains("Rifles: 5/5 soldiers")
        .hover();
    harness.run();
    harness.get_by_label_contains("Generic unit: ");
}

#[test]
fn a_gentlemen_game_starts_from_the_form_and_a_skill_check_draws_from_the_deck() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gentlemen of War game");
    assert_eq!(harness.state().screen, Screen::Play);
    // Red (3 models against 4) chooses; then both deploy.
    let asked = pending_prompt(&harness);
    assert!(asked.contains("Red has fewer models"), "{asked}");
    harness
        .get_by_label("Deploy second, activate first")
        .click();
    harness.run();
    harness.get_by_label("Done").click();
    harness.run();
    harness.get_by_label("Sharpe (0/2 wounds)").click();
    harness.run();
    harness.get_by_label("Rifle: Fire (♦, draws 4)").click();
    harness.run();
    // The target is named before the draw (range and cover depend on it).
    let asked = pending_prompt(&harness);
    assert!(asked.contains("on whom?"), "{asked}");
    harness.get_by_label_contains("Jean (0/").click();
    harness.run();
    // No extra points, no modifiers (entered with the keyboard: Enter
    // answers as OK does); the virtual deck draws the four cards.
    harness.get_by_label("OK").click();
    harness.run();
    harness.get_by_label("Number (-40 to 40):").focus();
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
    let asked = pending_prompt(&harness);
    assert!(asked.contains("draws 4"), "{asked}");
    // The camera reads four cards, one of them twice (a misread): the right
    // count, but the deck holds one 5d, so it is not offered and the hint
    // says why before any click.
    harness.state_mut().show_frame(frame_with(
        vec![
            card("5d", 10.0),
            card("5d", 90.0),
            card("9s", 170.0),
            card("Ac", 250.0),
        ],
        vec![],
    ));
    harness.run();
    assert!(
        harness
            .query_by_label_contains("Use the camera's")
            .is_none()
    );
    harness.get_by_label_contains("The camera's 5d 5d 9s Ac cannot answer this: ");
    harness.get_by_label_contains("holds it 1 time(s)");
    harness.state_mut().show_frame(frame_with(
        vec![
            card("5d", 10.0),
            card("Kd", 90.0),
            card("9s", 170.0),
            card("Ac", 250.0),
        ],
        vec![],
    ));
    harness.run();
    harness.get_by_label("Use the camera's cards [5d Kd 9s Ac]");
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    let session = harness.state().session.as_ref().map(|(s, _)| s);
    let drawn = session.map_or(0, |s| 54 - s.state().decks[0].draw_pile.len());
    assert!(drawn >= 4, "{drawn} cards left Red's deck");
    assert!(
        session.is_some_and(|s| s
            .state()
            .log
            .iter()
            .any(|l| l.text.starts_with("Drawn from Red's deck for "))),
        "the drawn cards are logged"
    );
}

/// Runs the window until `done` holds, for at most 30 s of wall time (the
/// frame-source loop runs on its own thread). Not a speed check: the bound
/// only stops a broken loop from hanging the test.
fn run_until(harness: &mut Harness<'_, AppState>, done: impl Fn(&AppState) -> bool) {
    let start = std::time::Instant::now();
    while !done(harness.state()) && start.elapsed() < std::time::Duration::from_secs(30) {
        std::thread::sleep(std::time::Duration::from_millis(20));
        // The loop's thread answers whenever it is ready, so how many frames
        // the window needs to settle depends on timing: step without
        // requiring it to settle within the harness's step limit.
        harness.run_ok();
    }
}

/// Runs the window for `time` of real time, while a frame source's thread
/// goes on (a photo that should be held has time to be replaced).
fn run_for(harness: &mut Harness<'_, AppState>, time: std::time::Duration) {
    let start = std::time::Instant::now();
    while start.elapsed() < time {
        std::thread::sleep(std::time::Duration::from_millis(50));
        harness.run_ok();
    }
}

/// A folder `photos` in `dir` holding one photo, a copy of a die fixture;
/// returns the folder and the fixture.
fn photo_folder(dir: &std::path::Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let photos = dir.join("photos");
    std::fs::create_dir_all(&photos).unwrap_or_else(|e| panic!("{e}"));
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/die_4_19.png");
    std::fs::copy(&fixture, photos.join("frame.png")).unwrap_or_else(|e| panic!("{e}"));
    (photos, fixture)
}

#[test]
fn photos_from_a_folder_are_read_in_the_table_view_and_a_bad_folder_is_named() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (photos, fixture) = photo_folder(dir.path());
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Table view (camera)").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::Table);

    // A folder that does not exist: the message names it and the box stays.
    let missing = dir.path().join("no-such-folder");
    harness.get_by_label("Read photos from folder:").focus();
    harness.run();
    harness
        .get_by_label("Read photos from folder:")
        .type_text(&missing.display().to_string());
    harness.run();
    harness.get_by_label("Read photos").click();
    harness.run_ok();
    run_until(&mut harness, |s| !s.messages.is_empty());
    let said = harness.state().messages.join("\n");
    assert!(said.contains("no-such-folder"), "{said}");
    assert!(harness.state().live.is_none());

    // A real folder: its photo arrives read, as a camera frame would, and
    // the start-up "no camera" message goes with the first frame.
    harness
        .state_mut()
        .messages
        .push(adjutant::app::NO_CAMERA.to_string());
    harness
        .state_mut()
        .execute(adjutant::app::Command::SetReplayDir(String::new()));
    harness.run();
    harness.get_by_label("Read photos from folder:").focus();
    harness.run();
    harness
        .get_by_label("Read photos from folder:")
        .type_text(&photos.display().to_string());
    harness.run();
    harness.get_by_label("Read photos").click();
    harness.run_ok();
    run_until(&mut harness, |s| s.live_frame.is_some());
    let frame = harness.state().live_frame.as_ref().map(|f| f.raw.clone());
    let frame = frame.unwrap_or_else(|| panic!("no frame read from {}", photos.display()));
    let size = image::image_dimensions(&fixture).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((frame.width, frame.height), size);
    assert!(harness.state().live.is_some());
    assert!(
        !harness
            .state()
            .messages
            .iter()
            .any(|m| m == adjutant::app::NO_CAMERA),
        "{:?}",
        harness.state().messages
    );

    // The folder removed while it is read: said once, the source stops and
    // its last frame no longer stands for the table.
    harness.state_mut().messages.clear();
    std::fs::remove_dir_all(&photos).unwrap_or_else(|e| panic!("{e}"));
    run_until(&mut harness, |s| s.live.is_none());
    assert!(harness.state().live.is_none(), "the source stopped");
    assert!(harness.state().live_frame.is_none());
    let said = harness.state().messages.clone();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("Lost the camera or photo folder") && said[0].contains("photos"),
        "{said:?}"
    );

    // Looked for again every few seconds: not there, nothing more is said.
    for _ in 0..12 {
        harness.step();
    }
    assert!(harness.state().live.is_none());
    assert_eq!(harness.state().messages, said, "said once");
    // Once the photos are back they are read again on their own (harness
    // steps are a quarter second), and the loss is no longer news.
    let _ = photo_folder(dir.path());
    run_until(&mut harness, |s| s.live_frame.is_some());
    assert!(harness.state().live_frame.is_some(), "read again");
    assert!(
        harness.state().messages.is_empty(),
        "{:?}",
        harness.state().messages
    );
    // Stopped by the player, a source is not looked for again.
    harness.get_by_label("Stop").click();
    harness.run();
    std::fs::remove_dir_all(&photos).unwrap_or_else(|e| panic!("{e}"));
    let _ = photo_folder(dir.path());
    for _ in 0..12 {
        harness.step();
    }
    assert!(harness.state().live.is_none(), "stopped stays stopped");
    // The folder is still in the box: Enter in it reads it again.
    assert_eq!(harness.state().replay_dir, photos.display().to_string());
    harness.get_by_label("Read photos from folder:").focus();
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run_ok();
    run_until(&mut harness, |s| s.live_frame.is_some());
    assert!(harness.state().live_frame.is_some(), "read again");

    // The camera can be looked for again from here, without a restart.
    harness.get_by_label("Stop").click();
    harness.run();
    harness.state_mut().messages.clear();
    harness.get_by_label("Use the camera").click();
    harness.run_ok();
    let state = harness.state();
    assert!(
        state.live.is_some() || state.messages.iter().any(|m| m == adjutant::app::NO_CAMERA),
        "{:?}",
        state.messages
    );
}

/// The last event of the open game, as the dice it answered with.
fn last_dice(harness: &Harness<'_, AppState>) -> Vec<u8> {
    let session = harness.state().session.as_ref().map(|(s, _)| s.clone());
    match session.as_ref().and_then(|s| s.events().last()) {
        Some(adjutant::rules::Event::Answer(adjutant::rules::Answer::Dice(d))) => {
            d.iter().map(|d| d.value.get()).collect()
        }
        other => panic!("expected dice as the last answer, got {other:?}"),
    }
}

#[test]
fn faces_entered_for_one_question_never_count_for_another_and_keys_enter_faces() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(waiting_for_roll_off(dir.path()));
    harness.run();
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    assert_logged(&harness, "(rolled by Adjutant)");
    // A face already entered for a roll of several dice is shown...
    harness.state_mut().dice_entry = DiceEntry::typed(&[5]);
    harness.run();
    harness.get_by_label_contains("entered (1 of");
    // ...and dropped when Undo brings up another question.
    harness.get_by_label("Undo").click();
    harness.run();
    assert!(harness.state().dice_entry.is_empty());
    harness.get_by_label("Click (or type 1-6) the 1 die:");
    // Red's die again, typed on the keyboard this time.
    harness.key_press(egui::Key::Num6);
    harness.run();
    assert_eq!(last_dice(&harness), vec![6]);
    harness.get_by_label("Undo").click();
    harness.run();
    harness.state_mut().dice_entry = DiceEntry::typed(&[2]);
    harness.run();
    harness.get_by_label("Redo").click();
    harness.run();
    assert!(harness.state().dice_entry.is_empty());
    assert_eq!(last_dice(&harness), vec![6]);
}

/// Opening the rules lookup while a die is asked for gives its box the
/// keyboard: "black 5" is a question, not a 5 rolled for initiative; Escape
/// in the box folds the lookup away and the keys answer the game again.
#[test]
fn an_opened_lookup_takes_the_keys_a_dice_question_would() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(waiting_for_roll_off(dir.path()));
    harness.run();
    harness.get_by_label("Click (or type 1-6) the 1 die:");
    let before = event_count(&harness);
    harness.get_by_label("Rules lookup").click();
    harness.run();
    harness.event(egui::Event::Text("black 5".into()));
    harness.run();
    assert_eq!(harness.state().rules_query, "black 5");
    assert_eq!(event_count(&harness), before, "no die was entered");
    harness.key_press(egui::Key::Escape);
    harness.run();
    assert!(harness.query_by_label("Search rules:").is_none(), "folded");
    harness.key_press(egui::Key::Num6);
    harness.run();
    assert_eq!(last_dice(&harness), vec![6]);
}

/// The rules page's search box has the keyboard from the start.
#[test]
fn the_rules_page_takes_typing_at_once() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("T52").click();
    harness.run();
    harness.event(egui::Event::Text("panic".into()));
    harness.run();
    assert_eq!(harness.state().rules_query, "panic");
}

/// The window with a game begun from its setup form's defaults (`button`
/// is the home screen's "New ... game").
fn started<'a>(dir: &std::path::Path, button: &str) -> Harness<'a, AppState> {
    let mut harness = window(state(dir));
    start_game(&mut harness, button);
    harness
}

/// Begins a game from the home screen with its setup form's defaults.
fn start_game(harness: &mut Harness<'_, AppState>, button: &str) {
    harness.run();
    harness.get_by_label(button).click();
    harness.run();
    harness.get_by_label("Start game").click();
    harness.run();
}

/// A Gunfight begun with its defaults, the bids typed (Red 9h, Blue 4c) and
/// Kid about to move: the question asks how many cards he plays.
/// A Gunfight game whose initiative bids (Red 9h, Blue 4c) are clicked in:
/// Red's first action is asked.
fn gunfight_red_to_act<'a>(dir: &std::path::Path) -> Harness<'a, AppState> {
    let mut harness = started(dir, "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    for card in ["9h", "4c"] {
        harness.get_by_label(card).click();
        harness.run();
    }
    harness
}

fn gunfight_moving_kid<'a>(dir: &std::path::Path) -> Harness<'a, AppState> {
    let mut harness = started(dir, "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    let cards = "Or type them (Qh 10s XR):";
    type_into(&mut harness, cards, "9h");
    type_into(&mut harness, cards, "4c");
    harness.get_by_label("Move a gunman").click();
    harness.run();
    harness.get_by_label("Kid (Red, pistol, 6 lives)").click();
    harness.run();
    assert!(pending_prompt(&harness).contains("How many cards"));
    harness
}

/// The open game's log has a line containing `text`.
fn assert_logged(harness: &Harness<'_, AppState>, text: &str) {
    let log: Vec<String> = harness
        .state()
        .session
        .as_ref()
        .map(|(s, _)| s.state().log.iter().map(|l| l.text.clone()).collect())
        .unwrap_or_default();
    assert!(
        log.iter().any(|l| l.contains(text)),
        "{text:?} not in {log:?}"
    );
}

/// The lines shown under the question as what the last answer did.
fn lines_of(harness: &Harness<'_, AppState>) -> Vec<String> {
    let state = harness.state();
    state
        .session
        .as_ref()
        .map_or(Vec::new(), |(s, _)| state.last_answer_lines(s))
}

/// Events in the open game.
fn event_count(harness: &Harness<'_, AppState>) -> usize {
    harness
        .state()
        .session
        .as_ref()
        .map_or(0, |(s, _)| s.events().len())
}

#[test]
fn keys_undo_redo_and_take_back_a_face_but_not_while_typing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(waiting_for_roll_off(dir.path()));
    harness.run();
    let start = event_count(&harness);
    // Nothing to redo yet: the key does nothing (no "cannot redo" message).
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    harness.run();
    assert!(
        harness.state().messages.is_empty(),
        "{:?}",
        harness.state().messages
    );
    harness.key_press(egui::Key::Num4);
    harness.run();
    assert_eq!(event_count(&harness), start + 1);
    assert_eq!(last_dice(&harness), vec![4]);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(event_count(&harness), start);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Y);
    harness.run();
    assert_eq!(event_count(&harness), start + 1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(event_count(&harness), start);
    // Ctrl+Shift+Z redoes; it must not be read as Ctrl+Z.
    harness.key_press_modifiers(
        egui::Modifiers::COMMAND | egui::Modifiers::SHIFT,
        egui::Key::Z,
    );
    harness.run();
    assert_eq!(event_count(&harness), start + 1);
    assert_eq!(last_dice(&harness), vec![4]);
    // A button that has the focus (after a click, or Tab) does not stop
    // the keys: only a text field does.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    harness.get_by_label("Die 2").focus();
    harness.run();
    harness.key_press(egui::Key::Num4);
    harness.run();
    assert_eq!(event_count(&harness), start + 1);
    assert_eq!(last_dice(&harness), vec![4]);
    // Backspace takes back a face entered for the question on screen.
    harness.state_mut().dice_entry = DiceEntry::typed(&[5]);
    harness.run();
    harness.key_press(egui::Key::Backspace);
    harness.run();
    assert!(harness.state().dice_entry.is_empty());
    // In the rules search box the keys edit the text, not the game.
    harness.get_by_label("Rules lookup").click();
    harness.run();
    harness.get_by_label("Search rules:").focus();
    harness.run();
    harness.get_by_label("Search rules:").type_text("panic");
    harness.run();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.key_press(egui::Key::Backspace);
    harness.key_press(egui::Key::Num2);
    harness.run();
    assert_eq!(event_count(&harness), start + 1);
    assert_eq!(last_dice(&harness), vec![4]);
}

#[test]
fn every_message_shows_wrapped_once_and_each_can_be_dismissed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = state(dir.path());
    let long = format!("Cannot resume: {}", "a-damaged-save.ron, ".repeat(40));
    st.notify(long.clone());
    st.notify("Second problem");
    // A problem that recurs (a broken photo met on every loop) is shown once.
    st.notify(long.clone());
    assert_eq!(st.messages.len(), 2);
    let mut harness = window(st);
    harness.run();
    // Wrapped to the window: the Dismiss buttons stay on screen.
    let first = harness.get_by_label_contains("a-damaged-save.ron").rect();
    assert!(first.width() <= 1000.0, "{first:?}");
    assert!(first.height() > 20.0, "one long line: {first:?}");
    if let Some(first) = harness.get_all_by_label("Dismiss").next() {
        first.click();
    }
    harness.run();
    assert_eq!(harness.state().messages, vec!["Second problem".to_string()]);
    harness.state_mut().notify("Third");
    harness.run();
    harness.get_by_label("Dismiss all").click();
    harness.run();
    assert!(harness.state().messages.is_empty());
}

#[test]
fn a_rules_search_without_a_match_says_so() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("T52").click();
    harness.run();
    harness.state_mut().rules_query = "zzqx".into();
    harness.run();
    harness.get_by_label_contains("No T52 rule mentions \"zzqx\". Try another word");
    harness.get_by_label_contains("or clear the box to list every entry");
    // Only question words: asked what it is about (audit BL L6).
    harness.state_mut().rules_query = "how ".into();
    harness.run();
    harness.get_by_label_contains("\"how\" is only question words");
}

#[test]
fn the_dice_size_is_measured_and_can_be_set_with_a_click() {
    use adjutant::vision::dice::scale::DiceScale;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (photos, _) = photo_folder(dir.path());
    let mut s = state(dir.path());
    s.start_replay(photos);
    s.screen = Screen::Table;
    let mut harness = window(s);
    run_until(&mut harness, |s| s.live_frame.is_some());
    // Auto by default, and says what it is doing.
    assert_eq!(harness.state().dice_scale, DiceScale::Auto);
    assert!(
        harness.query_by_label_contains("Dice read at").is_some()
            || harness
                .query_by_label_contains("Measuring the dice size")
                .is_some()
    );
    harness.get_by_label("Small (1.5x)").click();
    harness.run_ok();
    assert_eq!(harness.state().dice_scale, DiceScale::Fixed(1.5));
    let shared = harness
        .state()
        .live
        .as_ref()
        .map(|l| l.dice_scale_state().setting);
    assert_eq!(shared, Some(DiceScale::Fixed(1.5)));
    harness.get_by_label_contains("Dice read at 1.5x (set by you).");
    // Frames read from then on are read at 1.5x.
    run_until(&mut harness, |s| {
        s.live_frame.as_ref().is_some_and(|f| f.dice_scale == 1.5)
    });
    assert_eq!(
        harness.state().live_frame.as_ref().map(|f| f.dice_scale),
        Some(1.5)
    );
    // Auto measures again from nothing.
    harness.get_by_label("Auto").click();
    harness.run_ok();
    assert_eq!(harness.state().dice_scale, DiceScale::Auto);
}

/// Audit AI1: the buttons below the camera's hints and offers stay put
/// as readings come and go (a click meant for one landed on another).
#[test]
fn the_answer_buttons_stay_put_as_the_camera_reading_changes() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    st.show_frame(frame_with(vec![], vec![]));
    let mut harness = window(st);
    harness.run();
    let before = harness.get_by_label("Die 3").rect();
    let frames = [
        frame_with(vec![], vec![die(5, [40.0, 40.0])]),
        with_unread_die(frame_with(vec![], vec![])),
        frame_with(vec![], vec![die(2, [40.0, 40.0]), die(6, [200.0, 40.0])]),
        frame_with(vec![], vec![]),
    ];
    for frame in frames {
        harness.state_mut().show_frame(frame);
        harness.run();
        assert_eq!(harness.get_by_label("Die 3").rect(), before);
    }
    // Nor when the camera stops mid-question (audit CC C3).
    harness.state_mut().show_frame(frame_with(
        vec![],
        vec![die(2, [40.0, 40.0]), die(6, [200.0, 40.0])],
    ));
    harness.run();
    harness
        .state_mut()
        .execute(adjutant::app::Command::StopLive);
    harness.run();
    assert!(harness.state().live_frame.is_none());
    assert_eq!(harness.get_by_label("Die 3").rect(), before);
    // Once answered, the next question has no camera slot to keep.
    click(&mut harness, "Die 3");
    harness.run();
    assert_ne!(
        harness.query_by_label("Die 3").map(|n| n.rect()),
        Some(before)
    );
}

/// Audit AI2: while a menu on one of the camera's dice is open, the
/// replay holds its frame (the menu names a die of that frame); it goes on
/// once the menu closes.
#[test]
fn a_replay_holds_its_frame_while_a_die_menu_is_open() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let (photos, fixture) = photo_folder(dir.path());
    std::fs::copy(&fixture, photos.join("second.png")).unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    st.start_replay(photos);
    let mut harness = window(st);
    let label = |s: &AppState| s.live_frame.as_ref().and_then(|f| f.label.clone());
    run_until(&mut harness, |s| {
        s.live_frame
            .as_ref()
            .is_some_and(|f| !f.scan.dice.is_empty() || !f.scan.unread_dice.is_empty())
    });
    let die = ["4", "4?", "?"]
        .into_iter()
        .find(|l| harness.query_by_label(l).is_some())
        .unwrap_or_else(|| panic!("no camera die on screen"));
    harness.get_by_label(die).click();
    harness.run_ok();
    let held = label(harness.state());
    run_for(&mut harness, adjutant::app::live::REPLAY_PAUSE * 3);
    assert_eq!(label(harness.state()), held);
    harness.get_by_label("shows 6");
    // Closed, and the pointer moved off the camera's dice, the replay goes
    // on.
    harness.key_press(egui::Key::Escape);
    harness.event(egui::Event::PointerGone);
    run_until(&mut harness, |s| label(s) != held);
    assert_ne!(label(harness.state()), held);
    // While the pointer is over the camera's answers, the photo holds:
    // the buttons do not change under it (audit CC C4).
    let die = ["4", "4?", "?", "3", "3?"]
        .into_iter()
        .find(|l| harness.query_by_label(l).is_some())
        .unwrap_or_else(|| panic!("no camera die on screen"));
    harness.get_by_label(die).hover();
    harness.run_ok();
    let held = label(harness.state());
    run_for(&mut harness, adjutant::app::live::REPLAY_PAUSE * 3);
    assert_eq!(label(harness.state()), held);
    harness.event(egui::Event::PointerGone);
    run_until(&mut harness, |s| label(s) != held);
    assert_ne!(label(harness.state()), held);
    // A die picked in the table view holds the photo until it is fixed or
    // let go (audit AK2).
    let target = match harness.state().live_frame.as_ref() {
        Some(f) if !f.scan.dice.is_empty() => adjutant::app::corrections::Target::Die(0),
        _ => adjutant::app::corrections::Target::UnreadDie(0),
    };
    harness
        .state_mut()
        .execute(adjutant::app::Command::OpenTable);
    harness
        .state_mut()
        .execute(adjutant::app::Command::Select(Some(target)));
    harness.run_ok();
    let held = label(harness.state());
    run_for(&mut harness, adjutant::app::live::REPLAY_PAUSE * 3);
    assert_eq!(label(harness.state()), held);
    harness
        .state_mut()
        .execute(adjutant::app::Command::Select(None));
    run_until(&mut harness, |s| label(s) != held);
    assert_ne!(label(harness.state()), held);
}

#[test]
fn the_die_buttons_stay_put_and_the_last_die_can_be_taken_back() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(waiting_for_roll_off(dir.path()));
    harness.run();
    let before = harness.get_by_label("Die 3").rect();
    harness.state_mut().dice_entry = DiceEntry::typed(&[6, 2]);
    harness.run();
    harness.get_by_label_contains("entered (2 of 1)");
    assert_eq!(harness.get_by_label("Die 3").rect(), before);
    harness.get_by_label("Take back the last").click();
    harness.run();
    assert_eq!(harness.state().dice_entry.faces(), vec![6]);
    // Any face entered is taken out with a click on it.
    harness.state_mut().dice_entry = DiceEntry::typed(&[6, 2, 5]);
    harness.run();
    harness.get_by_label("2").click();
    harness.run();
    assert_eq!(harness.state().dice_entry.faces(), vec![6, 5]);
}

/// A big roll entered (a canister's 18 dice) wraps on a small window: its
/// last dice and the Clear button stay inside it.
#[test]
fn many_dice_entered_wrap_inside_a_small_window() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let width = 1024.0;
    let mut harness = window_sized(waiting_for_roll_off(dir.path()), width, 600.0);
    harness.run();
    harness.state_mut().dice_entry = DiceEntry::typed(&[6; 18]);
    harness.run();
    let clear = harness.get_by_label("Clear").rect();
    assert!(clear.right() <= width, "Clear at {clear:?}");
    let faces = harness.get_by_label("Die 1").rect();
    assert!(
        clear.top() > faces.bottom(),
        "a row of its own: {clear:?} {faces:?}"
    );
}

#[test]
fn the_home_screen_scrolls_to_every_saved_game() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for i in 0..30 {
        write_save(
            dir.path(),
            &format!("gunfight-{i}.ron"),
            EMPTY_GUNFIGHT_SAVE,
        );
    }
    let mut harness = window(state(dir.path()));
    harness.run();
    // The oldest save is far below the window's foot; scrolling reaches it.
    let oldest = harness.get_by_label("Resume gunfight-0.ron");
    oldest.scroll_to_me();
    harness.run();
    let oldest = harness.get_by_label("Resume gunfight-0.ron");
    let rect = oldest.rect();
    assert!(rect.max.y <= 700.0, "{rect:?}");
    oldest.click();
    harness.run();
    harness.get_by_label_contains("Gunfight Gang");
}

#[test]
fn a_refusal_notice_goes_once_the_question_is_answered() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    let before = st.messages.len();
    // A number where a die is asked: refused, with a message.
    st.execute(adjutant::app::Command::Apply(
        adjutant::rules::Event::Answer(adjutant::rules::Answer::Number(3)),
    ));
    assert_eq!(st.messages.len(), before + 1, "{:?}", st.messages);
    st.execute(adjutant::app::Command::EnterDie(4));
    assert_eq!(st.messages.len(), before, "{:?}", st.messages);
}

#[test]
fn going_home_lists_the_game_just_played_first() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // t52-1 was played an hour ago, t52-2 ten minutes ago.
    for (name, ago) in [("t52-1.ron", 3600), ("t52-2.ron", 600)] {
        let save = write_save(dir.path(), name, ROLL_OFF_SAVE);
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(ago);
        std::fs::File::options()
            .write(true)
            .open(&save)
            .and_then(|f| f.set_modified(when))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Resume last game (t52-2.ron)");
    harness.get_by_label("Resume t52-1.ron").click();
    harness.run();
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    harness.get_by_label("Home").click();
    harness.run();
    harness.get_by_label("Resume last game (t52-1.ron)");
}

/// When the save folder cannot be written, the header says the game is not
/// being saved instead of "Saving to", and says it again once saving works.
#[test]
fn the_header_says_when_the_game_is_not_saved() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // A file where the save folder should be: nothing can be saved there.
    let blocked = dir.path().join("saves");
    std::fs::write(&blocked, b"not a folder").unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("New Gunfight game").click();
    harness.run();
    harness.get_by_label("Start game").click();
    harness.run();
    assert!(harness.state().save_failed);
    harness.get_by_label_contains("Not saved: ");
    assert!(harness.query_by_label_contains("Saving to").is_none());
    // The folder is freed: the next answer saves, and the header says so.
    std::fs::remove_file(&blocked).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(&blocked).unwrap_or_else(|e| panic!("{e}"));
    harness.get_by_label("Done").click();
    harness.run();
    assert!(!harness.state().save_failed);
    harness.get_by_label_contains("Saving to");
}

/// A house-rule file whose name names no game is named in the window, as not
/// used; the game it was meant for still starts.
#[test]
fn a_house_rule_file_named_for_no_game_is_reported() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let rules = dir.path().join("rulesets");
    std::fs::create_dir_all(&rules).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(rules.join("Gunfight.ron"), "()").unwrap_or_else(|e| panic!("{e}"));
    let st = state(dir.path());
    let said = st.messages.join("\n");
    assert!(said.starts_with("House rules not used: "), "{said}");
    assert!(said.contains("Gunfight.ron"), "{said}");
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.run();
    assert_eq!(harness.state().screen, Screen::Play);
}

/// A second game begun in the same second (`gunfight-<secs>-2.ron`) is
/// listed under its game's title like the first.
#[test]
fn a_same_second_save_is_listed_with_its_game() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_save(dir.path(), "gunfight-1700000000-2.ron", EMPTY_GUNFIGHT_SAVE);
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label_contains("Gunfight Gang, last played");
}

/// Types `text` into the field labelled `label` and presses Enter.
fn type_into(harness: &mut Harness<'_, AppState>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    harness.run();
    harness.get_by_label(label).type_text(text);
    harness.run();
    harness.key_press(egui::Key::Enter);
    harness.run();
}

/// Audit AN6: a question answered with Done takes key 0, as the options
/// that close a step do.
#[test]
fn a_done_question_is_answered_with_key_zero() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done");
    let events = event_count(&harness);
    harness.key_press(egui::Key::Num0);
    harness.run();
    assert_eq!(event_count(&harness), events + 1);
}

#[test]
fn a_typed_number_is_refused_saying_why_and_what_an_answer_did_shows_above_the_next_question() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    type_into(&mut harness, "Or type them (Qh 10s XR):", "9h");
    type_into(&mut harness, "Or type them (Qh 10s XR):", "4c");
    harness.get_by_label("Move a gunman").click();
    harness.run();
    harness.state_mut().execute(adjutant::app::Command::Apply(
        adjutant::rules::Event::Answer(adjutant::rules::Answer::Choice("g0".into())),
    ));
    harness.run();
    let events = event_count(&harness);
    let field = "Number (1 to 4):";
    // Not a number, then too many cards: both refused by name, nothing
    // entered, and the text stays as typed (not clamped to 4).
    harness.state_mut().number_typed = Some(String::new());
    harness.run();
    type_into(&mut harness, field, "x");
    assert_eq!(event_count(&harness), events);
    let said = harness.state().messages.join("\n");
    assert!(said.contains("\"x\" is not a whole number"), "{said}");
    harness.state_mut().number_typed = Some(String::new());
    harness.run();
    type_into(&mut harness, field, "7");
    assert_eq!(event_count(&harness), events);
    let said = harness.state().messages.join("\n");
    assert!(said.contains("7 is more than 4"), "{said}");
    assert!(!said.contains("\"x\""), "a mended refusal goes: {said}");
    assert_eq!(harness.state().refusals().len(), 1);
    // Digits past what a number holds are too many, not "not a number".
    harness.state_mut().number_typed = Some(String::new());
    harness.run();
    type_into(&mut harness, field, "99999999999999999999");
    let said = harness.state().messages.join("\n");
    assert!(
        said.contains("99999999999999999999 is more than 4"),
        "{said}"
    );
    harness.state_mut().number_typed = Some(String::new());
    harness.run();
    type_into(&mut harness, field, "7");
    assert_eq!(harness.state().number_typed.as_deref(), Some("7"));
    // The field keeps the keyboard to mend the number.
    assert!(harness.get_by_label(field).is_focused());
    // The - and + buttons step within the range.
    harness.get_by_label("-").click();
    harness.run();
    assert_eq!(harness.state().number_typed.as_deref(), Some("4"));
    harness.get_by_label("-").click();
    harness.run();
    harness.get_by_label("OK").click();
    harness.run();
    assert_eq!(event_count(&harness), events + 1);
    let number_lines = lines_of(&harness);
    // The bid card shown again: the rules refuse it like any refused
    // answer: said in red with the question, nothing logged, the codes kept
    // in the field to mend.
    let typing = "Or type them (Qh 10s XR):";
    // The grid greys out the bid card (played this turn), not the others.
    assert!(harness.get_by_label("9h").accesskit_node().is_disabled());
    assert!(!harness.get_by_label("2c").accesskit_node().is_disabled());
    // The camera sees the bid card still lying there beside the move's:
    // it is neither offered as a pick nor as part of the camera's answer.
    harness.state_mut().show_frame(frame_with(
        vec![card("9h", 10.0), card("2c", 90.0), card("3c", 170.0)],
        vec![],
    ));
    harness.run();
    // (Measured once frames come in: they add the camera's rows.)
    let typing_at = harness.get_by_label(typing).rect();
    assert_eq!(
        harness.state().camera_picks(),
        vec![
            "2c".parse().unwrap_or_else(|e| panic!("{e}")),
            "3c".parse().unwrap_or_else(|e| panic!("{e}"))
        ]
    );
    assert!(harness.state().camera_answer().is_none());
    harness.state_mut().show_frame(frame_with(vec![], vec![]));
    harness.run();
    type_into(&mut harness, typing, "9h 2c 3c");
    assert_eq!(event_count(&harness), events + 1, "not taken");
    let refusals = harness.state().refusals().join("\n");
    assert!(
        refusals.contains("9h has been played this turn already"),
        "{refusals}"
    );
    let shown = harness.query_all_by_label_contains("9h has been played this turn already");
    assert!(shown.count() >= 1);
    assert_eq!(harness.state().cards_typed, "9h 2c 3c");
    assert!(harness.get_by_label(typing).is_focused());
    assert!(pending_prompt(&harness).contains("Show the cards Kid moves with"));
    let log = harness
        .state()
        .session
        .as_ref()
        .map(|(s, _)| {
            s.state()
                .log
                .iter()
                .map(|l| l.text.clone())
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    assert!(
        !log.iter().any(|l| l.contains("9h has been played")),
        "{log:?}"
    );
    // The refusal takes the last answer's rows, so the answer widgets stay
    // put between questions (to within a fraction of a pixel of rounding).
    let moved = harness.get_by_label(typing).rect().min - typing_at.min;
    assert!(moved.length() < 0.5, "moved by {moved:?}");
    // Mended, the answer is taken and the refusal goes.
    harness.state_mut().cards_typed.clear();
    harness.run();
    type_into(&mut harness, typing, "2c 3c 5c");
    assert_eq!(event_count(&harness), events + 2);
    assert!(harness.state().refusals().is_empty());
    // Undone, the lines shown are those of the number answer again.
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(lines_of(&harness), number_lines);
}

#[test]
fn cards_the_deck_refuses_come_back_as_typed_codes_to_mend() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    let count = harness
        .state()
        .session
        .as_ref()
        .and_then(|(s, _)| s.pending().cloned())
        .map_or(0, |r| match r.ask {
            adjutant::rules::procedure::Ask::Cards { count, .. } => count as usize,
            _ => 0,
        });
    assert!(count >= 2, "a deal of several cards is asked");
    let mut codes = vec!["Ah", "Ah", "2h", "3h", "4h", "5h", "6h", "7h", "8h"];
    codes.truncate(count);
    let typed = codes.join(" ");
    let events = event_count(&harness);
    let field_at = harness.get_by_label("Or type them (Qh 10s 3d):").rect();
    type_into(&mut harness, "Or type them (Qh 10s 3d):", &typed);
    assert_eq!(event_count(&harness), events);
    let said = harness.state().messages.join("\n");
    assert!(said.starts_with("Ah is named 2 times"), "{said}");
    assert_eq!(harness.state().cards_typed, typed);
    assert!(harness.state().cards_entry.is_empty());
    // Said with the question, above the field (not at the window's foot),
    // and the field keeps the keyboard to mend the codes.
    let field = "Or type them (Qh 10s 3d):";
    let refusal = harness.get_by_label_contains("Ah is named 2 times").rect();
    assert!(refusal.max.y <= harness.get_by_label(field).rect().min.y);
    assert!(harness.query_by_label("Dismiss").is_none());
    assert!(harness.get_by_label(field).is_focused());
    // It takes the last answer's rows: the field and the grid stay put.
    let moved = harness.get_by_label(field).rect().min.y - field_at.min.y;
    assert!(moved.abs() < 1.0, "the field moved {moved} px");
    // Mended and taken: the refusal goes.
    harness.get_by_label(field).type_text("x");
    harness.run();
    harness
        .state_mut()
        .execute(adjutant::app::Command::SetCardsTyped(
            typed.replacen("Ah", "Kh", 1),
        ));
    harness.key_press(egui::Key::Enter);
    harness.run();
    assert!(event_count(&harness) > events);
    assert!(
        harness
            .query_by_label_contains("Ah is named 2 times")
            .is_none()
    );
    assert!(
        harness.state().messages.is_empty(),
        "{:?}",
        harness.state().messages
    );
}

/// A question with one option is not put to the player: the window takes it,
/// says so with the last answer's lines, and Undo takes it back together
/// with the answer that led to it (Redo puts both back).
#[test]
fn a_question_with_one_option_answers_itself_and_undoes_with_the_answer_before() {
    use adjutant::rules::procedure::Answer;
    use adjutant::rules::session::Event;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // The Card-activation script up to the Captain's second move: a first
    // move of 6 in cannot reach a charge by distance, so "No charge" is the
    // only answer to the charge question it brings.
    let played = common::played_script("card-activation-turn.ron");
    let events = played.events();
    let at = events
        .windows(2)
        .position(|w| {
            w == [
                Event::Answer(Answer::Choice("move".into())),
                Event::Answer(Answer::Choice("none".into())),
            ]
        })
        .unwrap_or_else(|| panic!("the script moves with no charge possible"));
    let before = first_events(&played, at);
    let path = write_save(dir.path(), "card-activation-1.ron", "");
    adjutant::rules::save::save(&before, &path).unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    let saved = harness.state().saves.first().map(|s| s.path.clone());
    let name = saved
        .as_ref()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| panic!("no save listed"));
    harness
        .get_by_label(&format!("Resume last game ({name})"))
        .click();
    harness.run();
    let asked = pending_prompt(&harness);
    assert!(asked.contains("Captain has 2 action(s) left"), "{asked}");
    harness.get_by_label("Move").click();
    harness.run();
    assert_eq!(
        event_count(&harness),
        at + 2,
        "the move and its only answer"
    );
    assert!(pending_prompt(&harness).contains("Captain has 1 action(s) left"));
    harness
        .get_by_label_contains("Taken, the only answer: No charge (Captain moves up to 6 in. Did the move end in contact as a charge?)")
        .hover();
    assert_logged(&harness, "Captain moves up to 6 in");
    // The autosave has the answer, as a script would give it.
    let saved = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(saved.matches("Choice(\"none\")").count(), 1, "{saved}");
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(event_count(&harness), at);
    assert_eq!(pending_prompt(&harness), asked);
    harness.get_by_label("Redo").click();
    harness.run();
    assert_eq!(event_count(&harness), at + 2);
    assert!(pending_prompt(&harness).contains("Captain has 1 action(s) left"));
}

/// After Undo, the question on screen shows again what the answer before it
/// did (not nothing, not the undone answer's lines); Redo shows the redone
/// answer's lines again.
#[test]
fn undo_shows_what_the_answer_before_did() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_save(dir.path(), "t52-1.ron", ROLL_OFF_SAVE);
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Resume t52-1.ron").click();
    harness.run();
    harness.get_by_label("Die 3").click();
    harness.run();
    let first = lines_of(&harness);
    assert!(!first.is_empty(), "the first roll is logged");
    harness.get_by_label("Die 6").click();
    harness.run();
    let second = lines_of(&harness);
    assert!(!second.is_empty() && second != first, "{second:?}");
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(lines_of(&harness), first);
    harness.get_by_label("Redo").click();
    harness.run();
    assert_eq!(lines_of(&harness), second);
    // Home and back to the same game: what can be redone is kept.
    harness.get_by_label("Undo").click();
    harness.run();
    harness.get_by_label("Home").click();
    harness.run();
    harness.get_by_label("Resume t52-1.ron").click();
    harness.run();
    let redo = harness.state().session.as_ref().map(|(s, _)| s.redo_len());
    assert_eq!(redo, Some(1));
    assert_eq!(lines_of(&harness), first);
    // The app closed and started again: Redo still brings the answer back.
    drop(harness);
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Resume t52-1.ron").click();
    harness.run();
    harness.get_by_label("Redo").click();
    harness.run();
    let redo = harness.state().session.as_ref().map(|(s, _)| s.redo_len());
    assert_eq!(redo, Some(0));
    assert_eq!(lines_of(&harness), second);
}

/// The panes under the question stay put when a short question follows a
/// tall one (the card picker), so the log does not jump at every answer.
#[test]
fn the_panes_stay_put_from_a_card_question_to_a_choice() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    assert!(pending_prompt(&harness).contains("Deal 4 activation card(s)"));
    let log_at = harness.get_by_label("Log").rect().top();
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    assert!(pending_prompt(&harness).contains("which card goes face down"));
    assert_eq!(harness.get_by_label("Log").rect().top(), log_at);
}

/// The question box's kept height and the window's size outlive the app:
/// after a restart the panes are where they were before (not where a
/// one-row question would put them), and the window opens at its last size.
#[test]
fn the_panes_and_the_window_size_are_kept_across_a_restart() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window_sized(state(dir.path()), 1100.0, 720.0);
    start_game(&mut harness, "New Card-Activation game");
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    assert!(pending_prompt(&harness).contains("which card goes face down"));
    let log_at = harness.get_by_label("Log").rect().top();
    // Six steps of a quarter second: the layout has rested and is written.
    for _ in 0..6 {
        harness.step();
    }
    drop(harness);
    let kept = state(dir.path()).layout;
    assert_eq!(kept.opening_size(), [1100.0, 720.0]);
    let mut harness = window_sized(state(dir.path()), 1100.0, 720.0);
    harness.run();
    let name = harness
        .state()
        .saves
        .first()
        .and_then(|s| s.path.file_name())
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| panic!("no save listed"));
    harness
        .get_by_label(&format!("Resume last game ({name})"))
        .click();
    harness.run();
    assert!(pending_prompt(&harness).contains("which card goes face down"));
    assert_eq!(harness.get_by_label("Log").rect().top(), log_at);
}

/// On a short screen (1024x600) the box keeps less than a card question's
/// height for a one-row question: the panes get the room.
#[test]
fn on_a_short_screen_a_choice_gives_the_panes_room() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window_sized(state(dir.path()), 1024.0, 560.0);
    start_game(&mut harness, "New Card-Activation game");
    let log_at = harness.get_by_label("Log").rect().top();
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    assert!(pending_prompt(&harness).contains("which card goes face down"));
    let now = harness.get_by_label("Log").rect().top();
    assert!(now < log_at - 30.0, "the log moved up: {log_at} -> {now}");
}

/// The open game's saves fail (its folder became a file): leaving it for
/// another game warns once that its latest answers would be lost; once the
/// folder is back the game is saved before it is left.
#[test]
fn a_game_whose_answers_are_not_saved_is_not_left_without_a_word() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    let first = harness
        .state()
        .session
        .as_ref()
        .map(|(_, a)| a.path.clone())
        .unwrap_or_else(|| panic!("no game"));
    let saves = dir.path().join("saves");
    let aside = dir.path().join("saves-aside");
    let break_saves = || {
        std::fs::rename(&saves, &aside).unwrap_or_else(|e| panic!("{e}"));
        // A file where the folder was: writes fail even for root.
        std::fs::write(&saves, b"").unwrap_or_else(|e| panic!("{e}"));
    };
    let mend_saves = || {
        std::fs::remove_file(&saves).unwrap_or_else(|e| panic!("{e}"));
        std::fs::rename(&aside, &saves).unwrap_or_else(|e| panic!("{e}"));
    };
    break_saves();
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    assert!(harness.state().save_failed);
    let answered = event_count(&harness);
    // From the game, or from the form a refused start stays on.
    let open = |h: &mut Harness<'_, AppState>| {
        if h.query_by_label("Home").is_some() {
            h.get_by_label("Home").click();
            h.run();
            h.get_by_label("New Card-Activation game").click();
            h.run();
        }
        h.get_by_label("Start game").click();
        h.run();
        h.state()
            .session
            .as_ref()
            .map(|(_, a)| a.path.clone())
            .unwrap_or_default()
    };
    // Refused once, with what would be lost and how to keep it.
    assert_eq!(open(&mut harness), first);
    assert!(
        harness
            .state()
            .messages
            .iter()
            .any(|m| m.contains("latest answers would be lost") && m.contains("once more")),
        "{:?}",
        harness.state().messages
    );
    // Mended: the game is saved whole, then left.
    mend_saves();
    assert_ne!(open(&mut harness), first);
    let (lib, _) = adjutant::rules::games::Library::builtin();
    let kept = adjutant::rules::save::read(&first, &lib).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kept.events().len(), answered);

    // Not mended: the second attempt leaves it unsaved, as warned.
    let second = harness
        .state()
        .session
        .as_ref()
        .map(|(_, a)| a.path.clone())
        .unwrap_or_default();
    break_saves();
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    assert_eq!(open(&mut harness), second);
    assert_ne!(open(&mut harness), second);
}

/// A card as the camera read it, its 60 x 90 outline at (x, y).
fn card_at(code: &str, x: f32, y: f32) -> adjutant::vision::scan::CardOut {
    adjutant::vision::scan::CardOut {
        code: code.into(),
        quad: [[x, y], [x + 60.0, y], [x + 60.0, y + 90.0], [x, y + 90.0]],
        confidence: 0.8,
    }
}

/// "Player 1 from camera" groups the cards by where they lie, not by the
/// order the reader found them in: equipment stacked under a Follower joins
/// it, units come row by row.
#[test]
fn a_regiment_from_the_camera_is_grouped_by_where_the_cards_lie() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = state(dir.path());
    st.show_frame(frame_with(
        vec![
            card_at("7s", 168.0, 14.0),
            card_at("Th", 10.0, 130.0),
            card_at("XR", 10.0, 10.0),
            card_at("8d", 150.0, 10.0),
            card_at("As", 80.0, 12.0),
            card_at("5c", 28.0, 150.0),
            // Objective markers on the table: not part of the regiment.
            card_at("Kd", 400.0, 300.0),
            card_at("Jc", 600.0, 300.0),
        ],
        vec![],
    ));
    let mut harness = window(st);
    harness.run();
    harness.get_by_label("New T52 game").click();
    harness.run();
    harness.get_by_label("Player 1 from camera").click();
    harness.run();
    assert_eq!(harness.state().form.first_units, "XR As 8d+7s Th+5c");
    // Joined to the objectives typed (the one Jack seen in place of the
    // one typed), not in place of them all (audit BJ J5).
    assert_eq!(harness.state().form.objectives, "Jc Kh Ks Kd Kc");
    let said = harness.state().messages.join("\n");
    assert!(
        said.contains("Objective cards now Jc Kh Ks Kd Kc, with the camera's Jc Kd"),
        "{said}"
    );
}

/// A card question while the camera reads more cards than it needs: the
/// hint says so and each read card is picked with one click.
#[test]
fn a_card_the_camera_reads_is_picked_with_one_click() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    assert!(pending_prompt(&harness).contains("initiative card"));
    harness.state_mut().show_frame(frame_with(
        vec![card("Ac", 10.0), card("2s", 90.0), card("4d", 170.0)],
        vec![],
    ));
    harness.run();
    harness.get_by_label(
        "The camera reads 3 cards (Ac 2s 4d); this needs 1: click Use on the one(s) played.",
    );
    assert!(harness.query_by_label_contains("Use the camera").is_none());
    harness.get_by_label("Use Ac").click();
    harness.run();
    assert!(
        matches!(
            harness.state().session.as_ref().and_then(|(s, _)| s.events().last()),
            Some(adjutant::rules::Event::Answer(adjutant::rules::Answer::Cards(c)))
                if c.len() == 1 && c[0].to_string() == "Ac"
        ),
        "Red's bid is the camera's Ac"
    );
    // Blue's bid: Ac is Red's now; 2s is taken with a click too.
    harness.get_by_label("Use 2s").click();
    harness.run();
    assert_logged(&harness, "Order of play:");
}

/// A card picked from several the camera reads stays where its button was,
/// greyed and marked taken: a double click does not also take the card
/// that would slide under the pointer (audit BJ J3).
#[test]
fn a_card_picked_from_the_camera_keeps_its_place_greyed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    let asked = pending_prompt(&harness);
    assert!(asked.contains("Deal 4 activation card(s)"), "{asked}");
    harness.state_mut().show_frame(frame_with(
        vec![
            card("Ah", 10.0),
            card("2s", 90.0),
            card("5d", 170.0),
            card("9c", 250.0),
            card("Kd", 330.0),
        ],
        vec![],
    ));
    harness.run();
    let next_at = harness.get_by_label("Use 2s").rect();
    harness.get_by_label("Use Ah").click();
    harness.run();
    let taken = harness.get_by_label("Ah taken");
    assert!(taken.accesskit_node().is_disabled());
    assert_eq!(harness.get_by_label("Use 2s").rect(), next_at);
    // A second click where the first was takes nothing more.
    harness.get_by_label("Ah taken").click();
    harness.run();
    assert_eq!(harness.state().cards_entry.len(), 1);
    // A card the camera cannot read is said, not left out silently
    // (audit BJ J2).
    let mut frame = frame_with(vec![card("2s", 90.0)], vec![]);
    frame.raw.unread.push(adjutant::vision::scan::QuadOut {
        quad: [[200.0, 20.0], [260.0, 20.0], [260.0, 110.0], [200.0, 110.0]],
    });
    harness.state_mut().show_frame(frame);
    harness.run();
    let hint = harness.state().camera_hint().unwrap_or_default();
    assert!(
        hint.contains("The camera also sees 1 card-like shape it cannot read"),
        "{hint}"
    );
}

/// From a live camera a card is read once it lies still: a card being laid
/// (blurred, read wrong on the way) is held back, and said so (audit BJ J1).
#[test]
fn a_card_being_laid_is_read_once_it_lies_still() {
    use adjutant::vision::settle::SettleRule;
    use adjutant::vision::settle_cards::CardWatcher;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    harness.state_mut().cards_watch = CardWatcher::new(SettleRule::LIVE);
    // On the way down the 2d reads as a King.
    let mut blurred = card("Kd", 10.0);
    blurred.confidence = 0.65;
    harness
        .state_mut()
        .show_frame(frame_with(vec![blurred], vec![]));
    harness.run();
    assert!(harness.state().camera_answer().is_none());
    let hint = harness.state().camera_hint().unwrap_or_default();
    assert!(
        hint.contains("The camera sees 1 card still moving"),
        "{hint}"
    );
    assert!(harness.query_by_label("Use Kd").is_none());
    for _ in 0..3 {
        harness
            .state_mut()
            .show_frame(frame_with(vec![card("2d", 40.0)], vec![]));
    }
    harness.run();
    harness.get_by_label_contains("Use the camera's cards [2d]");
}

/// "Roll / draw for me" with cards entered already draws only the rest:
/// the cards laid stay in the answer (audit BM M2).
#[test]
fn draw_for_me_keeps_the_cards_entered() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    let asked = pending_prompt(&harness);
    assert!(asked.contains("Deal 4 activation card(s)"), "{asked}");
    let ten: adjutant::table::Card = "Ts".parse().unwrap_or_else(|e| panic!("{e}"));
    harness
        .state_mut()
        .execute(adjutant::app::Command::EnterCard(ten));
    harness.run();
    click(&mut harness, "Roll / draw for me");
    let session = harness.state().session.as_ref().map(|(s, _)| s.clone());
    let session = session.unwrap_or_else(|| panic!("no session"));
    match session.events().last() {
        Some(adjutant::rules::Event::Answer(
            a @ adjutant::rules::Answer::AdjutantDrew { entered, .. },
        )) => {
            assert_eq!(entered, &vec![ten]);
            let c = a.cards().unwrap_or_default();
            assert_eq!(c.len(), 4, "{c:?}");
            assert_eq!(c[0], ten, "{c:?}");
            assert_eq!(c.iter().filter(|x| **x == ten).count(), 1, "{c:?}");
        }
        other => panic!("expected the deal, got {other:?}"),
    }
    // The log says which cards Adjutant drew (audit BP P4).
    let said = |text: &str| session.state().log.iter().any(|l| l.text.contains(text));
    assert!(
        said("(3 of 4 drawn by Adjutant)"),
        "{:?}",
        session.state().log
    );
    // A whole draw by Adjutant is said too.
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    click(&mut harness, "Roll / draw for me");
    let session = harness.state().session.as_ref().map(|(s, _)| s.clone());
    let log = session.map(|s| s.state().log.clone()).unwrap_or_default();
    assert!(
        log.iter()
            .any(|l| l.text.starts_with("Drawn from") && l.text.ends_with(" (drawn by Adjutant)")),
        "{log:?}"
    );
}

/// Undo goes back to the game's first question, not past it: a game without
/// its setup would be an empty screen (and the save a dead one to resume).
#[test]
fn undo_stops_at_the_first_question() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    let first = pending_prompt(&harness);
    assert!(
        harness.get_by_label("Undo").accesskit_node().is_disabled(),
        "nothing to undo yet"
    );
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    assert_ne!(pending_prompt(&harness), first);
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(pending_prompt(&harness), first);
    assert!(harness.get_by_label("Undo").accesskit_node().is_disabled());
    // Ctrl+Z there does nothing either.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(pending_prompt(&harness), first);
    assert_eq!(event_count(&harness), 1);
}

/// A damaged save is resumed from its newest good backup, and the player is
/// told that the latest change(s) may be missing.
#[test]
fn a_game_restored_from_a_backup_says_its_latest_changes_may_be_missing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    write_save(dir.path(), "t52-1.ron", "(format: 1, game: T52, seed:");
    write_save(dir.path(), "t52-1.ron.1", ROLL_OFF_SAVE);
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Resume t52-1.ron").click();
    harness.run();
    assert_eq!(harness.state().screen, Screen::Play);
    let said = harness.state().messages.join("\n");
    assert!(
        said.contains("Restored from backup") && said.contains("check the last answers"),
        "{said}"
    );
}

/// Cards the camera shows are offered one by one only while they can still
/// be drawn: not while the table still shows what answered the last
/// question, and not once dealt (a stale card left in view, not a draw).
#[test]
fn a_card_already_drawn_is_not_offered_again_as_a_pick() {
    use adjutant::rules::procedure::{Answer, Ask};
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    let count = |h: &Harness<'_, AppState>| {
        let pending = h
            .state()
            .session
            .as_ref()
            .and_then(|(s, _)| s.pending().cloned());
        match pending.map(|r| r.ask) {
            Some(Ask::Cards { count, .. }) => count as usize,
            _ => 0,
        }
    };
    let red = count(&harness);
    assert!(red >= 2, "Red's deal comes first");
    let codes = ["Ah", "5s", "9d", "Kc", "7h", "8h"];
    let dealt: Vec<_> = (0..red)
        .map(|i| card(codes[i], 10.0 + 80.0 * i as f32))
        .collect();
    harness.state_mut().show_frame(frame_with(dealt, vec![]));
    harness.run();
    harness
        .get_by_label_contains("Use the camera's cards")
        .click();
    harness.run();
    // Red places the cards dealt; Blue's deal is next.
    while count(&harness) == 0 {
        let option = harness
            .state()
            .session
            .as_ref()
            .and_then(|(s, _)| s.pending().cloned())
            .and_then(|r| match r.ask {
                Ask::Choose { options } => options.first().map(|o| o.id.clone()),
                _ => None,
            });
        let option = option.unwrap_or_else(|| panic!("asked {}", pending_prompt(&harness)));
        harness.state_mut().execute(adjutant::app::Command::Apply(
            adjutant::rules::Event::Answer(Answer::Choice(option)),
        ));
        harness.run();
    }
    assert!(pending_prompt(&harness).contains("Blue"));
    // Cards laid beside Red's units are out of the deck: greyed out in the
    // grid (the one left over went to the discards, which the deck holds).
    let greyed = codes[..red]
        .iter()
        .filter(|c| harness.get_by_label(c).accesskit_node().is_disabled())
        .count();
    assert_eq!(greyed, red - 1);
    assert!(!harness.get_by_label("2c").accesskit_node().is_disabled());
    // The one in the discards can be picked, but says where it lies.
    let in_discards = codes[..red]
        .iter()
        .copied()
        .find(|c| !harness.get_by_label(c).accesskit_node().is_disabled())
        .unwrap_or_default();
    harness.get_by_label(in_discards).hover();
    harness.run();
    harness.get_by_label_contains("In the discards: taken only if your table shuffled it back");
    harness.get_by_label("2c").hover();
    harness.run();
    assert!(harness.query_by_label_contains("In the discards").is_none());
    // The dealt cards still lie where they were: nothing is offered.
    harness.get_by_label_contains(
        "The camera still shows the cards that answered an earlier question",
    );
    assert!(harness.query_by_label_contains("Use ").is_none());
    // Ah moved aside and 2c laid: only 2c can be Blue's.
    harness.state_mut().show_frame(frame_with(
        vec![card("Ah", 400.0), card("2c", 480.0)],
        vec![],
    ));
    harness.run();
    harness.get_by_label("Use 2c");
    assert!(harness.query_by_label("Use Ah").is_none());
    // The right count with Red's discarded card among them (a draw the
    // rules would take, typed): not offered whole, and the hint names it.
    let discarded = codes[..red]
        .iter()
        .copied()
        .find(|c| !harness.get_by_label(c).accesskit_node().is_disabled())
        .unwrap_or_default();
    let blue = count(&harness);
    let mut laid = vec![card(discarded, 400.0)];
    laid.extend(
        ["2c", "3c", "4c", "5c", "6c"][..blue - 1]
            .iter()
            .enumerate()
            .map(|(i, c)| card(c, 480.0 + 80.0 * i as f32)),
    );
    harness.state_mut().show_frame(frame_with(laid, vec![]));
    harness.run();
    assert!(
        harness
            .query_by_label_contains("Use the camera's")
            .is_none()
    );
    harness.get_by_label_contains(&format!(": {discarded} drawn already"));
    // Too few cards, one of them drawn already: the hint says why it is
    // not among the picks (audit AM2).
    assert!(blue > 2, "two cards in view are too few for Blue's {blue}");
    harness.state_mut().show_frame(frame_with(
        vec![card(discarded, 400.0), card("2c", 480.0)],
        vec![],
    ));
    harness.run();
    harness.get_by_label_contains(&format!("{discarded} drawn already, so not offered"));
    // Only dealt cards in view: the hint says so rather than "click below".
    harness
        .state_mut()
        .show_frame(frame_with(vec![card("Ah", 400.0)], vec![]));
    harness.run();
    harness.get_by_label_contains("none of them still to draw");
    // A card picked for this answer is greyed out in the grid too.
    harness
        .state_mut()
        .show_frame(frame_with(vec![card("2c", 480.0)], vec![]));
    harness.run();
    assert!(!harness.get_by_label("2c").accesskit_node().is_disabled());
    harness.get_by_label("Use 2c").click();
    harness.run();
    assert!(harness.get_by_label("2c").accesskit_node().is_disabled());
}

/// A game that has ended says who won at the top of the play screen, not
/// only in the log.
#[test]
fn an_ended_game_names_its_winner_at_the_top() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let played = common::played_script("gunfight-showdown.ron");
    assert!(played.pending().is_none(), "the script plays to the end");
    let path = write_save(dir.path(), "gunfight-1.ron", "");
    adjutant::rules::save::save(&played, &path).unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Resume gunfight-1.ron").click();
    harness.run();
    // The heading line and the log's last line.
    assert!(
        harness
            .query_all_by_label("Game over: victory to Red. Red is the last gang standing")
            .count()
            >= 2
    );
    // Nobody is left to act: no order of play.
    assert!(harness.query_by_label("Order of play").is_none());
}

/// Unequal Napoleonic armies may be played by agreement: the form says so
/// before the start (the log's note scrolls away once play begins).
#[test]
fn the_napoleonic_form_says_when_the_sides_are_unequal() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("New Napoleonic game").click();
    harness.run();
    assert!(
        harness
            .query_by_label_contains("The sides are unequal")
            .is_none()
    );
    let mut form = harness.state().napoleonic_form.clone();
    form.armies[0].units = "Line:inf:14 Hussars:cav:6 Battery:art:3".into();
    harness
        .state_mut()
        .execute(adjutant::app::Command::EditNapoleonicForm(form));
    harness.run();
    harness.get_by_label_contains("The sides are unequal");
    assert!(
        !harness
            .get_by_label("Start game")
            .accesskit_node()
            .is_disabled()
    );
}

/// What the last answer did is shown with the question after a restart
/// too, and Undo past it shows the answer before's lines.
#[test]
fn the_last_answers_lines_come_back_after_a_restart() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Napoleonic game");
    // The cut: each side's card drawn, each answer logging its draw.
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    let first = lines_of(&harness);
    assert!(!first.is_empty(), "the first draw says what it drew");
    harness.get_by_label("Roll / draw for me").click();
    harness.run();
    let second = lines_of(&harness);
    assert!(!second.is_empty() && second != first, "{second:?}");
    drop(harness);
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label_contains("Resume last game").click();
    harness.run();
    assert_eq!(lines_of(&harness), second);
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(lines_of(&harness), first);
}

/// The window reads with the learned deck too; a damaged one is said, and
/// cards are still read (with the general model).
#[test]
fn a_damaged_learned_deck_is_said_in_the_window() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let decks = dir.path().join("decks");
    std::fs::create_dir_all(&decks).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(decks.join("mine.bin"), b"not a deck").unwrap_or_else(|e| panic!("{e}"));
    let app = state(dir.path());
    let said = app.messages.join("\n");
    assert!(
        said.contains("Your learned deck is not used") && said.contains("mine.bin"),
        "{said}"
    );
    assert!(app.readers.is_some(), "cards and dice are still read");
}

/// A save that no copy of can be read is listed saying why, and is not
/// offered to resume (nor as the last game).
#[test]
fn an_unusable_save_is_listed_as_such_and_not_offered() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let saves = dir.path().join("saves");
    std::fs::create_dir_all(&saves).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(saves.join("napoleonic-555.ron"), b"garbage(").unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    assert!(
        harness
            .query_all_by_label_contains("Cannot be resumed")
            .count()
            == 1
    );
    assert!(
        harness
            .query_all_by_label_contains("Resume last game")
            .next()
            .is_none()
    );
    harness.get_by_label("Resume napoleonic-555.ron").click();
    harness.run();
    assert!(harness.state().session.is_none(), "not offered");
}

/// What was rolled stays in view under the next question when the roll's
/// consequences take more rows than there are.
#[test]
fn the_roll_stays_in_view_with_what_it_did() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(waiting_for_roll_off(dir.path()));
    harness.run();
    harness.key_press(egui::Key::Num5);
    harness.run();
    harness.key_press(egui::Key::Num2);
    harness.run();
    let state = harness.state();
    let rows = state
        .session
        .as_ref()
        .map_or(Vec::new(), |(s, _)| state.last_answer_rows(s, 2));
    assert!(
        lines_of(&harness).len() > 2,
        "more lines than rows: {:?}",
        lines_of(&harness)
    );
    assert!(
        rows.first().is_some_and(|r| r.contains("rolled [2]")),
        "{rows:?}"
    );
}

/// A click at `pos` (press and release in one frame, as a quick click).
fn click_at(harness: &Harness<'_, AppState>, pos: egui::Pos2) {
    harness.event(egui::Event::PointerMoved(pos));
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::default(),
        });
    }
}

/// A new question's typed field has the keyboard at once, and the second
/// click of a double click, landing on the next question's buttons within
/// moments, answers nothing (the audit gave a territory away so).
#[test]
fn a_new_question_takes_the_keyboard_and_a_double_click_answers_once() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // Frames 50 ms apart, as a real window draws while the mouse moves.
    let mut harness = Harness::builder()
        .with_size(egui::vec2(1000.0, 700.0))
        .with_max_steps(40)
        .with_step_dt(0.05)
        .build_ui_state(AdjutantApp::frame, state(dir.path()));
    start_game(&mut harness, "New Napoleonic game");
    let field = "Or type them (Qh 10s 3d):";
    assert!(
        harness.get_by_label(field).is_focused(),
        "the cut can be typed"
    );
    for card in ["9h", "4c"] {
        harness.get_by_label(field).type_text(card);
        harness.run();
        harness.key_press(egui::Key::Enter);
        harness.run();
    }
    assert!(pending_prompt(&harness).contains("French, step 1"));
    let events = event_count(&harness);
    let at = harness.get_by_label("Done moving").rect().center();
    click_at(&harness, at);
    harness.step();
    harness.step();
    assert_eq!(event_count(&harness), events + 1);
    let next = pending_prompt(&harness);
    assert!(next.contains("French, step 2"), "{next}");
    // The second click of the double click, one frame later, on whatever
    // button of step 2 now lies there: not taken.
    click_at(&harness, at);
    harness.step();
    harness.step();
    assert_eq!(event_count(&harness), events + 1);
    assert_eq!(pending_prompt(&harness), next);
    // A click once the question has settled is an answer.
    harness.run();
    click_at(&harness, at);
    harness.run();
    assert_eq!(event_count(&harness), events + 2);
}

/// A finished or unwanted game is put away from the home screen: off the
/// list, its file and backups kept in a folder beside the saves; the game
/// open in the window cannot be.
#[test]
fn a_saved_game_is_put_away_off_the_list_and_kept() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let saves = dir.path().join("saves");
    write_save(dir.path(), "t52-1.ron", ROLL_OFF_SAVE);
    write_save(dir.path(), "t52-1.ron.1", ROLL_OFF_SAVE);
    write_save(dir.path(), "gunfight-2.ron", EMPTY_GUNFIGHT_SAVE);
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Resume gunfight-2.ron").click();
    harness.run();
    harness.get_by_label("Home").click();
    harness.run();
    assert_eq!(harness.state().saves.len(), 2);
    let buttons: Vec<bool> = harness
        .query_all_by_label("Put away")
        .map(|b| b.accesskit_node().is_disabled())
        .collect();
    assert_eq!(buttons.len(), 2);
    assert_eq!(buttons.iter().filter(|d| **d).count(), 1, "the open game's");
    harness
        .query_all_by_label("Put away")
        .find(|b| !b.accesskit_node().is_disabled())
        .unwrap_or_else(|| panic!("no button"))
        .click();
    harness.run();
    let listed: Vec<String> = harness
        .state()
        .saves
        .iter()
        .map(|s| s.path.display().to_string())
        .collect();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(listed[0].ends_with("gunfight-2.ron"), "{listed:?}");
    let away = saves.join(adjutant::rules::save::PUT_AWAY_DIR);
    assert!(away.join("t52-1.ron").exists() && away.join("t52-1.ron.1").exists());
    assert!(!saves.join("t52-1.ron").exists() && !saves.join("t52-1.ron.1").exists());
    let said = harness.state().messages.join("\n");
    assert!(said.contains("t52-1.ron is put away in"), "{said}");
    // News, not a problem: said on the home screen only (audit BR R6).
    let news = harness
        .state()
        .messages
        .iter()
        .find(|m| m.contains("is put away"));
    assert!(news.is_some_and(|m| harness.state().is_news(m)));
    click(&mut harness, "New Gunfight game");
    harness.run();
    let said = harness.state().messages.join("\n");
    assert!(!said.contains("is put away"), "{said}");
}

/// A new Napoleonic game from the window, drawn for up to its first step-1
/// question (the cut draws again on a tie; a new game's seed is random).
fn napoleonic_step_one<'a>(dir: &std::path::Path) -> Harness<'a, AppState> {
    let mut harness = started(dir, "New Napoleonic game");
    for _ in 0..40 {
        if harness.query_by_label("Roll / draw for me").is_none() {
            break;
        }
        harness.get_by_label("Roll / draw for me").click();
        harness.run();
    }
    assert!(pending_prompt(&harness).contains("step 1"));
    harness
}

/// Options that close a step (Done, End, None, Stop) sit on a row of their
/// own, at its start, so they stay put from question to question.
#[test]
fn closing_options_stay_put_on_a_row_of_their_own() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let harness = napoleonic_step_one(dir.path());
    let first = harness.get_by_label("Rally a unit").rect();
    let done = harness.get_by_label("Done moving").rect();
    let stop = harness.get_by_label("Stop the game here").rect();
    assert!(done.top() >= first.bottom(), "{done:?} under {first:?}");
    assert!(
        (done.left() - first.left()).abs() < 1.0,
        "{done:?} {first:?}"
    );
    assert!(
        (stop.top() - done.top()).abs() < 1.0,
        "one row: {stop:?} {done:?}"
    );
}

/// The option that closes a step keeps key 0, shown as "0:", however many
/// options come before it (Card-activation's "End" moved from 8 to 7 when
/// an option above it went).
#[test]
fn key_zero_takes_the_option_that_closes_a_step() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = napoleonic_step_one(dir.path());
    let zero = harness.get_by_label("0:").rect();
    let done = harness.get_by_label("Done moving").rect();
    assert!(
        (zero.center().y - done.center().y).abs() < 2.0 && zero.right() <= done.left(),
        "0: {zero:?} before Done moving {done:?}"
    );
    let before = event_count(&harness);
    // Stopping the game has no key: a digit from habit never ends a game
    // (audit AN2).
    assert!(harness.query_by_label("4:").is_none());
    harness.key_press(egui::Key::Num4);
    harness.run();
    assert_eq!(event_count(&harness), before);
    harness.key_press(egui::Key::Num0);
    harness.run();
    assert_eq!(event_count(&harness), before + 1);
    let answered = harness
        .state()
        .session
        .as_ref()
        .and_then(|(s, _)| s.events().last().cloned());
    assert_eq!(
        answered,
        Some(adjutant::rules::Event::Answer(
            adjutant::rules::Answer::Choice("done".into())
        ))
    );
}

/// A card the camera reads that the rules would turn down for a one-card
/// question (a Heart to shoot with) is not offered as a pick.
#[test]
fn a_card_the_rules_would_refuse_is_not_offered_from_the_camera() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = gunfight_red_to_act(dir.path());
    for choice in ["Shoot", "Kid (Red, pistol, 6 lives)"] {
        harness.get_by_label(choice).click();
        harness.run();
    }
    harness
        .query_all_by_label_contains("(Blue, ")
        .next()
        .unwrap_or_else(|| panic!("no Blue gunman"))
        .click();
    harness.run();
    let asked = pending_prompt(&harness);
    assert!(asked.contains("play a Spade or Diamond"), "{asked}");
    harness.state_mut().show_frame(frame_with(
        vec![card("Ah", 10.0), card("2s", 90.0), card("5d", 170.0)],
        vec![],
    ));
    harness.run();
    harness.get_by_label("Use 2s");
    harness.get_by_label("Use 5d");
    assert!(harness.query_by_label("Use Ah").is_none());
    // Only the Heart in view: not offered, and the hint says why.
    harness
        .state_mut()
        .show_frame(frame_with(vec![card("Ah", 10.0)], vec![]));
    harness.run();
    assert!(
        harness
            .query_by_label_contains("Use the camera's")
            .is_none()
    );
    harness.get_by_label_contains("The camera's Ah cannot answer this: Ah cannot be played here");
}

/// A card picked from the camera's reading for one question lies there
/// still: the next question (the other player's initiative card) is not
/// offered it again, but is offered the card beside it, until it is picked
/// up.
#[test]
fn a_card_picked_from_the_camera_is_not_offered_to_the_next_question() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    let first = pending_prompt(&harness);
    assert!(first.contains("initiative"), "{first}");
    // The camera reads these cards at these places (x).
    let show = |h: &mut Harness<'_, AppState>, cards: &[(&str, f32)]| {
        let cards = cards.iter().map(|(code, x)| card(code, *x)).collect();
        h.state_mut().show_frame(frame_with(cards, vec![]));
        h.run();
    };
    let table = [("Ks", 10.0), ("9h", 90.0)];
    show(&mut harness, &table);
    harness.get_by_label("Use 9h");
    harness.get_by_label("Use Ks").click();
    harness.run();
    let second = pending_prompt(&harness);
    assert_ne!(second, first, "Ks answered");
    // The same frame again, as a camera sends it over and over: 9h is the
    // camera's whole answer now.
    show(&mut harness, &table);
    assert!(
        harness.query_by_label("Use Ks").is_none(),
        "Ks offered again"
    );
    harness.get_by_label_contains("Use the camera's cards [9h]");
    // Alone in view it is not the whole answer either; a card laid beside
    // it is.
    show(&mut harness, &[("Ks", 10.0)]);
    assert!(
        harness
            .query_by_label_contains("Use the camera's")
            .is_none()
    );
    show(&mut harness, &[("Ks", 10.0), ("Qd", 300.0)]);
    harness.get_by_label_contains("Use the camera's cards [Qd]");
    // Cards laid beside it change nothing; picked up and laid again, Ks
    // is offered afresh.
    show(&mut harness, &[("Ks", 10.0), ("9h", 90.0), ("2c", 170.0)]);
    assert!(
        harness.query_by_label("Use Ks").is_none(),
        "Ks offered again"
    );
    harness.get_by_label("Use 2c");
    // The hint counts only the cards it offers.
    let hint = harness.state().camera_hint().unwrap_or_default();
    // (and says why the Ks in view is left out: audit AI7).
    assert!(
        hint.contains("reads 2 cards (9h 2c; Ks used already)"),
        "{hint}"
    );
    show(&mut harness, &[("9h", 90.0)]);
    show(&mut harness, &[("Ks", 250.0), ("9h", 90.0)]);
    harness.get_by_label("Use Ks");
}

/// Undo takes back only the undone answer's cards: Red's initiative card,
/// used before it, still lies there and is still not offered to Blue.
#[test]
fn undo_frees_only_the_cards_of_the_answer_it_takes_back() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    harness
        .state_mut()
        .show_frame(frame_with(vec![card("Ks", 10.0), card("9h", 90.0)], vec![]));
    harness.run();
    harness.get_by_label("Use Ks").click();
    harness.run();
    let blue = pending_prompt(&harness);
    harness
        .get_by_label_contains("Use the camera's cards [9h]")
        .click();
    harness.run();
    assert_ne!(pending_prompt(&harness), blue, "Blue answered with 9h");
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(pending_prompt(&harness), blue);
    assert!(
        harness.query_by_label("Use Ks").is_none(),
        "Ks offered again"
    );
    harness.get_by_label_contains("Use the camera's cards [9h]");
}

/// A choice question's options are numbered and a digit key picks one, so
/// a keyboard player need not Tab past the window's buttons; in the rules
/// lookup's box the digits are typed instead.
#[test]
fn a_digit_key_picks_the_numbered_option() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = gunfight_red_to_act(dir.path());
    let options = options_shown(
        harness
            .state()
            .session
            .as_ref()
            .and_then(|(s, _)| s.pending()),
    );
    let shoot = options
        .iter()
        .position(|o| o == "Shoot")
        .unwrap_or_else(|| panic!("no Shoot in {options:?}"));
    harness.get_by_label(&format!("{}:", shoot + 1));
    let keys = [
        egui::Key::Num1,
        egui::Key::Num2,
        egui::Key::Num3,
        egui::Key::Num4,
    ];
    let before = event_count(&harness);
    harness.get_by_label("Rules lookup").click();
    harness.run();
    harness.key_press(keys[shoot]);
    harness.run();
    assert_eq!(event_count(&harness), before, "typed into the lookup");
    harness.key_press(egui::Key::Escape);
    harness.run();
    // Held down, the key answers once: its repeats answer nothing (a digit
    // held for a die answered the next two questions).
    let down = |h: &mut Harness<'_, AppState>, pressed: bool| {
        h.event(egui::Event::Key {
            key: keys[shoot],
            physical_key: None,
            pressed,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        });
        h.run();
    };
    down(&mut harness, true);
    assert_eq!(event_count(&harness), before + 1);
    harness.get_by_label("Kid (Red, pistol, 6 lives)");
    for _ in 0..3 {
        down(&mut harness, true);
    }
    assert_eq!(event_count(&harness), before + 1, "a repeat answered");
    down(&mut harness, false);
}

/// A number question's field has the keyboard with its default selected:
/// a typed digit replaces it, and Ctrl+Z before anything is typed takes
/// back the last answer.
#[test]
fn a_number_field_takes_the_keyboard_with_its_default_selected() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = gunfight_moving_kid(dir.path());
    let field = "Number (1 to 4):";
    assert!(harness.get_by_label(field).is_focused());
    assert_eq!(
        harness.state().number_typed,
        None,
        "the default is not typed"
    );
    let events = event_count(&harness);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::Z);
    harness.run();
    assert_eq!(event_count(&harness), events - 1, "Ctrl+Z took Kid back");
    harness.get_by_label("Kid (Red, pistol, 6 lives)").click();
    harness.run();
    harness.get_by_label(field).type_text("2");
    harness.run();
    assert_eq!(harness.state().number_typed.as_deref(), Some("2"));
}

/// A new game's first card question takes the keyboard, though the game
/// before stood at the same point (the same number of events).
#[test]
fn a_new_games_card_question_takes_the_keyboard_as_the_last_one_did() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    let cards = "Or type them (Qh 10s XR):";
    assert!(harness.get_by_label(cards).is_focused());
    harness.get_by_label("Home").click();
    harness.run();
    start_game(&mut harness, "New Gunfight game");
    harness.get_by_label("Done").click();
    harness.run();
    assert!(harness.get_by_label(cards).is_focused());
}

/// A game resumed at a number question: the field has the keyboard at
/// once (the first frames of a window may be drawn twice by egui).
#[test]
fn a_resumed_number_question_has_the_keyboard() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    drop(gunfight_moving_kid(dir.path()));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label_contains("Resume last game").click();
    harness.run();
    assert!(pending_prompt(&harness).contains("How many cards"));
    assert!(harness.get_by_label("Number (1 to 4):").is_focused());
}

/// A roll of several dice undone comes back entered: the wrong die is
/// taken out with a click and the right face entered, which answers again
/// (not the whole roll retyped); a face pressed while all are entered is
/// refused with what to do.
#[test]
fn an_undone_roll_comes_back_to_mend_one_die() {
    use adjutant::rules::games::Library;
    use adjutant::rules::script::{Script, play};
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/t52-four-rounds.ron");
    let mut script = Script::load(&file).unwrap_or_else(|e| panic!("{e}"));
    // Up to 8c's eight volley dice, then those dice.
    script.answers.truncate(11);
    let (lib, _) = Library::builtin();
    let session = play(&script, &lib, &mut std::io::sink()).unwrap_or_else(|e| panic!("{e}"));
    let saves = dir.path().join("saves");
    std::fs::create_dir_all(&saves).unwrap_or_else(|e| panic!("{e}"));
    adjutant::rules::save::save(&session, &saves.join("t52-1.ron"))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut st = state(dir.path());
    st.resume_newest();
    let mut harness = window(st);
    harness.run();
    assert_eq!(last_dice(&harness), vec![6, 5, 5, 2, 3, 1, 4, 2]);
    harness.get_by_label("Undo").click();
    harness.run();
    assert_eq!(
        harness.state().dice_entry.faces(),
        vec![6, 5, 5, 2, 3, 1, 4, 2]
    );
    harness.get_by_label_contains("The undone roll");
    // Full: a face is not taken until one is out.
    harness.key_press(egui::Key::Num3);
    harness.run();
    assert_eq!(harness.state().dice_entry.len(), 8);
    assert!(
        harness
            .state()
            .messages
            .iter()
            .any(|m| m.starts_with("All 8 dice are entered"))
    );
    // The 1 was a 6: out with a click, in with a key; the roll answers again.
    harness.get_by_label("1").click();
    harness.run();
    assert_eq!(
        harness.state().dice_entry.faces(),
        vec![6, 5, 5, 2, 3, 4, 2]
    );
    harness.key_press(egui::Key::Num6);
    harness.run();
    assert_eq!(last_dice(&harness), vec![6, 5, 5, 2, 3, 4, 2, 6]);
    assert!(harness.state().dice_entry.is_empty());
}

/// In a narrow window the options wrap, each number with its button: a
/// "5:" left at the end of a row, its button on the next, misled a click.
#[test]
fn an_option_number_wraps_with_its_button() {
    use adjutant::rules::procedure::Answer;
    use adjutant::rules::session::Event;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    // The Card-activation script at its first action menu (7 options).
    let played = common::played_script("card-activation-turn.ron");
    let events = played.events();
    let at = (events.iter())
        .position(|e| *e == Event::Answer(Answer::Choice("move".into())))
        .unwrap_or_else(|| panic!("the script moves"));
    let menu = first_events(&played, at);
    let labels = options_shown(menu.pending());
    let path = write_save(dir.path(), "card-activation-1.ron", "");
    adjutant::rules::save::save(&menu, &path).unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window_sized(state(dir.path()), 640.0, 800.0);
    harness.run();
    harness.get_by_label("Resume card-activation-1.ron").click();
    harness.run();
    let mut rows = std::collections::BTreeSet::new();
    assert!(labels.len() <= 9, "{labels:?}");
    for (i, label) in labels.iter().enumerate() {
        // The last, closing the activation, is 0; the others count from 1.
        let key = if i + 1 == labels.len() { 0 } else { i + 1 };
        let number = harness.get_by_label(&format!("{key}:")).rect();
        let button = harness.get_by_label(label).rect();
        assert!(
            (number.center().y - button.center().y).abs() < 4.0
                && number.right() <= button.left() + 1.0,
            "{key}: at {number:?}, {label} at {button:?}"
        );
        rows.insert(button.center().y as i32);
    }
    assert!(rows.len() > 2, "the options wrap: {rows:?}");
}

/// The game `played` was after its first `count` events.
fn first_events(
    played: &adjutant::rules::session::Session,
    count: usize,
) -> adjutant::rules::session::Session {
    adjutant::rules::session::Session::replay(
        played.game(),
        played.ruleset().clone(),
        played.seed(),
        played.events()[..count].to_vec(),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A choice question's option labels in the order the window shows (and
/// numbers) them: the options that close a step last.
fn options_shown(request: Option<&adjutant::rules::procedure::Request>) -> Vec<String> {
    match request.map(|r| &r.ask) {
        Some(adjutant::rules::procedure::Ask::Choose { options }) => {
            let (closing, main): (Vec<_>, Vec<_>) = options
                .iter()
                .partition(|o| ["end", "done", "none", "stop"].contains(&o.id.as_str()));
            main.into_iter()
                .chain(closing)
                .map(|o| o.label.clone())
                .collect()
        }
        other => panic!("not a choice: {other:?}"),
    }
}

/// An objectives question after an activation in which no unit moved or
/// left the table is settled ("No change"): the window takes it and says
/// why.
#[test]
fn a_settled_question_is_taken_and_said_with_its_reason() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let played = common::played_script("t52-four-rounds.ron");
    let at = (1..played.events().len())
        .find(|&n| {
            first_events(&played, n)
                .pending()
                .is_some_and(|r| r.settled.is_some())
        })
        .unwrap_or_else(|| panic!("the script has a settled question"));
    let path = write_save(dir.path(), "t52-1.ron", "");
    adjutant::rules::save::save(&first_events(&played, at), &path)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut harness = window(state(dir.path()));
    harness.run();
    harness.get_by_label("Resume t52-1.ron").click();
    harness.run();
    assert_eq!(event_count(&harness), at + 1, "taken by the window");
    harness.get_by_label_contains("Taken, no unit moved or left the table: No change (Objectives:");
    assert!(!pending_prompt(&harness).starts_with("Objectives:"));
}

/// The typed-card example names only cards the game's deck holds: no Joker
/// in a game played without them (audit U7).
#[test]
fn the_typed_card_example_names_no_joker_where_the_deck_has_none() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let harness = started(dir.path(), "New Napoleonic game");
    assert!(
        pending_prompt(&harness).contains("cut"),
        "{}",
        pending_prompt(&harness)
    );
    assert!(
        harness
            .query_by_label("Or type them (Qh 10s 3d):")
            .is_some()
    );
    assert!(
        harness
            .query_by_label("Or type them (Qh 10s XR):")
            .is_none()
    );
}

/// A game begun with a house profile, resumed without its ruleset, says
/// once why nothing is asked and what to do; the whole log is kept (audits
/// Z1, Z2-3).
#[test]
fn a_game_whose_setup_is_refused_now_says_why_once() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let save = write_save(
        dir.path(),
        "card-activation-5.ron",
        r#"(format: 1, game: CardActivation, seed: 3, events: [
            Begin(CardActivation((sides: [
                (name: "Red", units: [(name: "Bows", profile: "archers", models: Some(3)), (name: "Captain", profile: "field-commander")]),
                (name: "Blue", units: [(name: "Guards", models: Some(5))]),
            ]))),
            Answer(Cards(["Ah", "5s", "9d"])),
        ])"#,
    );
    let mut st = state(dir.path());
    st.execute(adjutant::app::Command::Resume(save));
    let said: Vec<&String> = st
        .messages
        .iter()
        .filter(|m| m.contains("setup is refused now"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", st.messages);
    assert!(said[0].contains("`archers`"), "{}", said[0]);
    assert!(!said[0].contains(".)"), "one sentence: {}", said[0]);
    assert!(said[0].contains("The whole log is kept in"), "{}", said[0]);
    assert!(
        !st.messages.iter().any(|m| m.contains("Resumed in part")),
        "{:?}",
        st.messages
    );
    let mut harness = Harness::new_ui_state(AdjutantApp::frame, st);
    harness.run();
    harness.get_by_label_contains(
        "the game's setup was refused (see the log). Start a new game from Home.",
    );
}

/// A photo folder that is gone is looked for again; the Table view says so
/// and its Stop ends the looking (audit CC C2: no Stop was shown).
#[test]
fn a_lost_folder_is_looked_for_until_stopped() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut st = waiting_for_roll_off(dir.path());
    st.start_replay(dir.path().join("not-there"));
    let mut harness = window(st);
    run_until(&mut harness, |s| s.live.is_none());
    harness
        .state_mut()
        .execute(adjutant::app::Command::OpenTable);
    harness.run();
    harness.get_by_label_contains("Looking for the photo folder");
    let said = harness.state().messages.join("\n");
    assert!(said.contains("tries again"), "{said}");
    harness.get_by_label("Stop").click();
    harness.run();
    // Nor does the foot still say so (audit CD2).
    let said = harness.state().messages.join("\n");
    assert!(!said.contains("tries again"), "{said}");
    assert!(
        harness
            .query_by_label_contains("Looking for the photo folder")
            .is_none()
    );
    harness.get_by_label_contains("Not reading a camera or photos");
}

/// The camera's whole reading replaces cards entered by hand: the button
/// says so rather than dropping them silently (audits CC C7, BJ J7).
#[test]
fn the_camera_answer_says_it_replaces_what_was_entered() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut harness = started(dir.path(), "New Card-Activation game");
    let ten: adjutant::table::Card = "Ts".parse().unwrap_or_else(|e| panic!("{e}"));
    harness
        .state_mut()
        .execute(adjutant::app::Command::EnterCard(ten));
    let cards = [("2h", 0.0), ("3h", 65.0), ("4h", 130.0), ("5h", 195.0)];
    let frame = frame_with(cards.map(|(c, x)| card(c, x)).to_vec(), vec![]);
    harness.state_mut().show_frame(frame);
    harness.run();
    harness
        .get_by_label_contains("instead of the 1 entered")
        .click();
    harness.run();
    let session = harness.state().session.as_ref().map(|(s, _)| s.clone());
    let dealt = session.and_then(|s| match s.events().last() {
        Some(adjutant::rules::Event::Answer(a)) => a.cards(),
        _ => None,
    });
    let codes: Vec<String> = dealt
        .unwrap_or_default()
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(codes, ["2h", "3h", "4h", "5h"]);
}
