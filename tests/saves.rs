//! Saves never lose a game: atomic writes, rotated backups, and recovery from
//! a save truncated at any byte.

mod common;

use adjutant::rules::games::{GameId, Library};
use adjutant::rules::save::{self, Autosave, SaveCondition, SaveError};
use adjutant::rules::session::{Event, Session};
use adjutant::rules::{Answer, Effect, ProcedureSpec};
use adjutant::table::{D6, Die, DieSource};

fn library() -> Library {
    let (lib, errors) = Library::builtin();
    assert!(errors.is_empty(), "{errors:?}");
    lib
}

fn die(v: u8) -> Answer {
    let value = D6::new(v).unwrap_or_else(|| panic!("bad face {v}"));
    Answer::Dice(vec![Die {
        value,
        source: DieSource::Camera,
    }])
}

/// Plays a few events, autosaving after each; returns the session.
fn play_some(autosave: &Autosave, lib: &Library) -> Session {
    let rs = lib
        .get(GameId::T52)
        .cloned()
        .unwrap_or_else(|| panic!("no t52"));
    let mut s = Session::new(GameId::T52, rs, 11);
    let events = [
        Event::Edit(Effect::AddSide {
            name: "Red".into(),
            back: None,
        }),
        Event::Edit(Effect::AddSide {
            name: "Blue".into(),
            back: None,
        }),
        Event::Begin(ProcedureSpec::RollOff { sides: vec![0, 1] }),
        Event::Answer(die(3)),
        Event::Answer(die(5)),
    ];
    for e in events {
        autosave.apply(&mut s, e).unwrap_or_else(|e| panic!("{e}"));
    }
    s
}

#[test]
fn every_event_is_saved_and_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let autosave = Autosave::new_in(dir.path(), GameId::T52);
    let s = play_some(&autosave, &lib);
    let loaded = save::load(&autosave.path, &lib).unwrap_or_else(|e| panic!("{e}"));
    assert!(loaded.skipped.is_empty());
    assert_eq!(loaded.session.state(), s.state());
    assert_eq!(loaded.session.events(), s.events());
    // Backups hold the previous saves: .1 is one event behind.
    let one_back = save::read(
        &dir.path().join(format!("{}.1", file_name(&autosave))),
        &lib,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(one_back.events().len(), s.events().len() - 1);
    assert!(
        !dir.path()
            .join(format!("{}.4", file_name(&autosave)))
            .exists()
    );
    assert_eq!(
        save::list(dir.path()).len(),
        1,
        "backups are not listed as games"
    );
}

#[test]
fn undone_events_stay_redoable_after_a_restart() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let autosave = Autosave::new_in(dir.path(), GameId::T52);
    let mut s = play_some(&autosave, &lib);
    let whole = s.clone();
    s.undo();
    s.undo();
    save::save(&s, &autosave.path).unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&autosave.path).unwrap_or_else(|e| panic!("{e}"));
    assert!(text.contains("redo:"), "{text}");

    // The app closed (or crashed) here; it resumes with Redo still possible.
    let mut resumed = save::load(&autosave.path, &lib)
        .unwrap_or_else(|e| panic!("{e}"))
        .session;
    assert_eq!(resumed.state(), s.state());
    assert_eq!(resumed.redo_len(), 2);
    while resumed.redo().unwrap_or_else(|e| panic!("{e}")) {}
    assert_eq!(resumed.events(), whole.events());
    assert_eq!(resumed.state(), whole.state());

    // A new answer after Undo ends what can be redone, in the file too.
    autosave
        .apply(&mut s, Event::Answer(die(6)))
        .unwrap_or_else(|e| panic!("{e}"));
    let text = std::fs::read_to_string(&autosave.path).unwrap_or_else(|e| panic!("{e}"));
    assert!(!text.contains("redo:"), "{text}");
    let resumed = save::load(&autosave.path, &lib).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resumed.session.redo_len(), 0);
}

#[test]
fn a_save_without_a_redo_field_still_loads() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("old.ron");
    // As written before Redo was saved: no `redo` field.
    let old = "(format: 1, game: T52, seed: 5, events: [Edit(AddSide(name: \"Red\", back: None))])";
    std::fs::write(&path, old).unwrap_or_else(|e| panic!("{e}"));
    let s = save::read(&path, &library()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.events().len(), 1);
    assert_eq!(s.redo_len(), 0);
}

fn file_name(a: &Autosave) -> String {
    a.path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[test]
fn a_save_truncated_at_any_byte_falls_back_to_a_good_backup() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let autosave = Autosave::new_in(dir.path(), GameId::T52);
    let s = play_some(&autosave, &lib);
    let full = std::fs::read(&autosave.path).unwrap_or_else(|e| panic!("{e}"));
    let backup = save::read(
        &dir.path().join(format!("{}.1", file_name(&autosave))),
        &lib,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    for cut in 0..full.len() {
        std::fs::write(&autosave.path, &full[..cut]).unwrap_or_else(|e| panic!("{e}"));
        let loaded =
            save::load(&autosave.path, &lib).unwrap_or_else(|e| panic!("cut at {cut}: {e}"));
        if loaded.from == autosave.path {
            // Only trailing whitespace may be cut without losing anything.
            assert!(full[cut..].iter().all(u8::is_ascii_whitespace), "cut {cut}");
            assert_eq!(loaded.session.state(), s.state());
        } else {
            assert_eq!(loaded.skipped.len(), 1, "cut {cut}");
            assert_eq!(loaded.session.state(), backup.state(), "cut {cut}");
        }
    }
}

#[test]
fn a_corrupt_save_names_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("broken.ron");
    std::fs::write(&path, "(format: 1,\n game: Nope, seed: 1, events: [])")
        .unwrap_or_else(|e| panic!("{e}"));
    let err = save::read(&path, &library()).err();
    match err {
        Some(SaveError::Corrupt { line, column, .. }) => {
            assert_eq!(line, 2);
            assert!(column > 1);
        }
        other => panic!("expected a corrupt-save error, got {other:?}"),
    }
    let msg = save::load(&path, &library())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains("broken.ron:2:"), "{msg}");
    // A byte that is not text is placed too (audit Y6).
    // What reading the save says once it holds `bytes`.
    let said_of = |bytes: &[u8]| {
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("{e}"));
        save::read(&path, &library())
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let msg = said_of(b"(format: 1,\n game: T\xFF52, seed: 1, events: [])");
    assert!(
        msg.contains("broken.ron:2:9: not a valid save: byte 0xFF is not UTF-8"),
        "{msg}"
    );
    // An empty file is said to be empty (audit AI5).
    let msg = said_of(b"");
    assert!(
        msg.contains("broken.ron:1:1: not a valid save: the file is empty"),
        "{msg}"
    );
    // One that stops short is said to be cut off (audit BK K10).
    let msg = said_of(b"(format: 1,\n game: T52, seed: 1, events: [");
    assert!(
        msg.contains("not a valid save: the file ends too soon"),
        "{msg}"
    );
}

#[test]
fn a_log_that_does_not_replay_is_refused_with_the_event_index() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("bad-log.ron");
    // An answer with nothing asked cannot replay.
    std::fs::write(
        &path,
        "(format: 1, game: T52, seed: 1, events: [Answer(Confirm)])",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let msg = save::read(&path, &library())
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains("event 1 of the log"), "{msg}");
}

/// Audit BC C1: the home list replays each save, so one that resumes only
/// in part says so, with where it resumes instead of its stored summary.
#[test]
fn the_checked_list_says_a_save_resumes_in_part() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let text = "(format: 1, game: T52, seed: 3, summary: Some(\"Red v Blue, over: victory to Red\"), events: [Edit(AddSide(name: \"Red\", back: None)), Edit(AddSide(name: \"Blue\", back: None)), Begin(RollOff(sides: [0, 1])), Answer(Number(4)), Answer(Number(2))])";
    std::fs::write(dir.path().join("t52-7.ron"), text).unwrap_or_else(|e| panic!("{e}"));
    // Unchecked, the stored summary stands.
    let plain = save::list(dir.path());
    assert_eq!(
        plain[0].summary.as_deref(),
        Some("Red v Blue, over: victory to Red")
    );
    let checked = save::list_checked(dir.path(), &lib);
    match &checked[0].condition {
        SaveCondition::InPart { at, why } => {
            assert_eq!(at, "Red v Blue, setting up");
            assert!(why.starts_with("event 4 of 5 no longer applies"), "{why}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        checked[0].summary.as_deref(),
        Some("Red v Blue, setting up")
    );
    assert!(checked[0].resumable());
}

/// A log written when a question was asked differently (an older Adjutant, a
/// ruleset house-ruled since) resumes up to the first answer that no longer
/// fits, says so, and keeps the whole log beside the save.
#[test]
fn a_log_that_no_longer_replays_whole_resumes_as_far_as_it_does() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let path = dir.path().join("t52-7.ron");
    // The roll-off asks Red for a die; a number answer does not fit it.
    let text = "(format: 1, game: T52, seed: 3, events: [Edit(AddSide(name: \"Red\", back: None)), Edit(AddSide(name: \"Blue\", back: None)), Begin(RollOff(sides: [0, 1])), Answer(Number(4)), Answer(Number(2))])";
    std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    assert!(save::read(&path, &lib).is_err());
    let loaded = save::load(&path, &lib).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.session.events().len(), 3);
    assert!(
        loaded.session.pending().is_some(),
        "Red's die is asked again"
    );
    let cut = loaded.cut_short.unwrap_or_default();
    assert!(cut.starts_with("event 4 of 5 no longer applies"), "{cut}");
    assert!(!cut.contains("house rules"), "built-in rules: {cut}");
    // Under house rules, they are named as the likely cause.
    let rules = dir.path().join("rulesets");
    std::fs::create_dir_all(&rules).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(rules.join("t52.ron"), GameId::T52.default_ruleset())
        .unwrap_or_else(|e| panic!("{e}"));
    let (house, errors) = Library::load(Some(&rules));
    assert!(errors.is_empty(), "{errors:?}");
    let cut = save::load(&path, &house)
        .map(|l| l.cut_short.unwrap_or_default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        cut.contains("played under the house rules in") && cut.contains("t52.ron"),
        "{cut}"
    );
    // Loading writes nothing (`adjutant log` only reads); the app keeps the
    // whole log before its next autosave.
    let whole = save::whole_log_path(&path);
    assert!(!whole.exists());
    let kept = save::keep_whole(&path, &loaded.from).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kept, whole);
    assert_eq!(std::fs::read_to_string(&whole).ok().as_deref(), Some(text));
    // The copy is not offered as a game of its own.
    let listed: Vec<_> = save::list(dir.path()).into_iter().map(|s| s.path).collect();
    assert_eq!(listed, vec![path.clone()]);
    // A file that does not even begin a game is still refused.
    std::fs::write(
        &path,
        "(format: 1, game: T52, seed: 3, events: [Answer(Number(4))])",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(save::load(&path, &lib).is_err());
}

#[test]
fn a_damaged_save_is_set_aside_not_rotated_over_a_good_backup() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let autosave = Autosave::new_in(dir.path(), GameId::T52);
    play_some(&autosave, &lib);
    let backup = dir.path().join(format!("{}.1", file_name(&autosave)));
    let good = std::fs::read(&backup).unwrap_or_else(|e| panic!("{e}"));
    // Damaged outside Adjutant; the game resumes from the backup and goes on.
    std::fs::write(&autosave.path, b"(format: 1, ga").unwrap_or_else(|e| panic!("{e}"));
    let mut loaded = save::load(&autosave.path, &lib).unwrap_or_else(|e| panic!("{e}"));
    autosave
        .apply(&mut loaded.session, Event::Answer(die(5)))
        .unwrap_or_else(|e| panic!("{e}"));
    // The good backup is still there, the damaged file kept beside it.
    assert_eq!(
        std::fs::read(&backup).unwrap_or_else(|e| panic!("{e}")),
        good
    );
    let aside = save::damaged_path(&autosave.path);
    assert_eq!(
        std::fs::read(&aside).unwrap_or_else(|e| panic!("{e}")),
        b"(format: 1, ga"
    );
    assert!(save::read(&autosave.path, &lib).is_ok());
    assert_eq!(
        save::list(dir.path()).len(),
        1,
        "{:?}",
        save::list(dir.path())
    );
    // Damaged again: kept beside the first copy, not over it (audit AI7).
    std::fs::write(&autosave.path, b"garbage").unwrap_or_else(|e| panic!("{e}"));
    let mut loaded = save::load(&autosave.path, &lib).unwrap_or_else(|e| panic!("{e}"));
    autosave
        .apply(&mut loaded.session, Event::Answer(die(4)))
        .unwrap_or_else(|e| panic!("{e}"));
    let mut second = aside.clone().into_os_string();
    second.push(".2");
    assert_eq!(
        std::fs::read(&aside).unwrap_or_else(|e| panic!("{e}")),
        b"(format: 1, ga"
    );
    assert_eq!(
        std::fs::read(&second).unwrap_or_else(|e| panic!("{e}")),
        b"garbage"
    );
}

#[test]
fn games_started_in_the_same_second_get_their_own_files() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    // Three games begun at once: each name is new when it is chosen (the
    // first game has saved by then), so none writes over another.
    let mut paths = Vec::new();
    for _ in 0..3 {
        let autosave = Autosave::new_in(dir.path(), GameId::T52);
        play_some(&autosave, &lib);
        paths.push(autosave.path);
    }
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), 3, "{paths:?}");
    assert_eq!(save::list(dir.path()).len(), 3);
    // A name whose save is gone but whose backup is left is not reused.
    let last = paths.pop().unwrap_or_else(|| panic!("no path"));
    std::fs::remove_file(&last).unwrap_or_else(|e| panic!("{e}"));
    let again = Autosave::new_in(dir.path(), GameId::T52);
    assert_ne!(again.path, last);
    // Nor is the open game's name when its file is not on disk (its saves
    // failed), or two games begun in one second would share a file.
    let open = Autosave::new_in(&dir.path().join("nowhere"), GameId::T52);
    let next =
        Autosave::new_in_avoiding(&dir.path().join("nowhere"), GameId::T52, Some(&open.path));
    assert_ne!(next.path, open.path);
}

/// The file that keeps the most of the game is resumed: the newest one cut
/// short at the event that no longer applies, unless an older backup replays
/// whole at least as far.
#[test]
fn the_file_that_keeps_most_of_the_game_is_resumed() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let path = dir.path().join("t52-9.ron");
    let save_with = |file: &std::path::Path, answers: &str| {
        let text = format!(
            "(format: 1, game: T52, seed: 3, events: [Edit(AddSide(name: \"Red\", back: None)), Edit(AddSide(name: \"Blue\", back: None)), Begin(RollOff(sides: [0, 1])){answers}])"
        );
        std::fs::write(file, text).unwrap_or_else(|e| panic!("{e}"));
    };
    let backup = |n: usize| dir.path().join(format!("t52-9.ron.{n}"));
    let red_3 = ", Answer(Dice([(value: 3, source: Manual)]))";
    // As after a house rule: the save and its newer backups break at the same
    // answer, the oldest backup stops before it.
    save_with(&path, &format!("{red_3}, Answer(Number(2))"));
    save_with(&backup(1), &format!("{red_3}, Answer(Number(2))"));
    save_with(&backup(2), red_3);
    save_with(&backup(3), "");
    // .2 replays whole as far as the save's good part: a whole file wins the tie.
    let loaded = save::load(&path, &lib).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.session.events().len(), 4);
    assert_eq!(loaded.from, backup(2));
    assert!(loaded.cut_short.is_none());
    // Without it, the save itself is resumed in part (4 events), not the
    // older .3 that replays whole (3 events), and it is not called skipped.
    std::fs::remove_file(backup(2)).unwrap_or_else(|e| panic!("{e}"));
    let loaded = save::load(&path, &lib).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.session.events().len(), 4);
    assert_eq!(loaded.from, path);
    let cut = loaded.cut_short.unwrap_or_default();
    assert!(cut.starts_with("event 5 of 5 no longer applies"), "{cut}");
    assert!(loaded.skipped.is_empty(), "{:?}", loaded.skipped);
    // A save that breaks earlier than a backup that replays whole: the backup.
    save_with(&path, ", Answer(Number(9)), Answer(Number(2))");
    save_with(&backup(1), red_3);
    let loaded = save::load(&path, &lib).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(loaded.from, backup(1));
    assert_eq!(loaded.session.events().len(), 4);
    assert_eq!(loaded.skipped.len(), 1);
}

/// The list of saved games says who plays and how far each game got (an
/// ended one says who won); saves written before summaries list without.
#[test]
fn saved_games_are_listed_with_who_plays_and_how_far() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let played = common::played_script("gunfight-showdown.ron");
    save::save(&played, &dir.path().join("gunfight-1.ron")).unwrap_or_else(|e| panic!("{e}"));
    let events = played.events();
    let early = Session::replay(
        played.game(),
        played.ruleset().clone(),
        played.seed(),
        events[..3].to_vec(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    save::save(&early, &dir.path().join("gunfight-2.ron")).unwrap_or_else(|e| panic!("{e}"));
    // An older save: the same game without the summary line.
    let text = std::fs::read_to_string(dir.path().join("gunfight-2.ron")).unwrap_or_default();
    let old: String = text
        .lines()
        .filter(|l| !l.contains("summary"))
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(dir.path().join("gunfight-3.ron"), old).unwrap_or_else(|e| panic!("{e}"));
    let mut listed: Vec<(String, Option<String>)> = save::list(dir.path())
        .into_iter()
        .map(|s| {
            (
                s.path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                s.summary,
            )
        })
        .collect();
    listed.sort();
    assert_eq!(
        listed,
        [
            (
                "gunfight-1.ron".into(),
                Some("Red v Blue, over: victory to Red".into())
            ),
            ("gunfight-2.ron".into(), Some("Red v Blue, turn 1".into())),
            ("gunfight-3.ron".into(), None),
        ]
    );
    // The older save still resumes.
    assert!(save::read(&dir.path().join("gunfight-3.ron"), &library()).is_ok());
}

/// A T52 game autosaved in a fresh folder, for the tests of what a failed
/// save does to the backups.
struct Saved {
    dir: tempfile::TempDir,
    lib: Library,
    autosave: Autosave,
    session: Session,
    name: String,
}

impl Saved {
    fn new() -> Saved {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let lib = library();
        let autosave = Autosave::new_in(dir.path(), GameId::T52);
        let session = play_some(&autosave, &lib);
        let name = file_name(&autosave);
        Saved {
            dir,
            lib,
            autosave,
            session,
            name,
        }
    }

    /// The bytes of `path`.
    fn read(&self, path: &std::path::Path) -> Vec<u8> {
        std::fs::read(path).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The save's backup `n`, read.
    fn backup(&self, n: usize) -> Vec<u8> {
        self.read(&self.dir.path().join(format!("{}.{n}", self.name)))
    }

    /// Backups 1 to 3, read.
    fn backups(&self) -> Vec<Vec<u8>> {
        (1..=3).map(|n| self.backup(n)).collect()
    }

    /// A folder where the file `suffix` after the save's name would be
    /// written, so that writing it fails (for root too, unlike a read-only
    /// folder), as on a full disk.
    fn block(&self, suffix: &str) -> std::path::PathBuf {
        let tmp = self.dir.path().join(format!("{}{suffix}", self.name));
        std::fs::create_dir(&tmp).unwrap_or_else(|e| panic!("{e}"));
        tmp
    }

    /// Saves one more event (an objective `K<n>` added).
    fn save_one(&mut self, n: usize) -> Result<(), String> {
        let e = Event::Edit(Effect::AddObjective {
            name: format!("K{n}"),
            card: None,
        });
        (self.autosave.apply(&mut self.session, e)).map_err(|e| e.to_string())
    }
}

#[test]
fn failed_saves_keep_the_backups_they_had() {
    let mut t = Saved::new();
    let last_good = t.read(&t.autosave.path);
    // The save cannot be written (its temp file's name is taken).
    let tmp = t.block(".tmp");
    assert!(t.save_one(1).is_err());
    let after_one = t.backups();
    assert_eq!(after_one[0], last_good, "the last good save is backed up");
    for n in 2..=3 {
        assert!(t.save_one(n).is_err());
    }
    assert_eq!(t.backups(), after_one, "no backup pushed out by a retry");
    assert_eq!(t.read(&t.autosave.path), last_good);
    // Writable again: the whole game is saved, and resumes.
    std::fs::remove_dir(&tmp).unwrap_or_else(|e| panic!("{e}"));
    t.save_one(4).unwrap_or_else(|e| panic!("{e}"));
    let resumed = save::read(&t.autosave.path, &t.lib).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resumed.state(), t.session.state());
    assert_eq!(t.backup(1), last_good);
    assert!(!tmp.exists());
}

/// A full disk that stops the newest backup from being written (audit Y1:
/// a plain write left it empty, and each retry rotated again until every
/// backup was empty) moves no backup and empties none.
#[test]
fn a_backup_that_cannot_be_written_pushes_no_backup_out() {
    let mut t = Saved::new();
    // Three different backups, then the save as it stands.
    for n in 1..=3 {
        t.save_one(n).unwrap_or_else(|e| panic!("{e}"));
    }
    let before = t.backups();
    assert!(before.iter().all(|b| !b.is_empty()));
    assert_ne!(before[0], before[1]);
    let last_good = t.read(&t.autosave.path);
    // The newest backup's temp file cannot be written.
    let tmp = t.block(".1.tmp");
    for n in 4..=6 {
        let msg = t.save_one(n).err().unwrap_or_default();
        assert!(msg.contains(".1.tmp"), "names the file: {msg}");
    }
    assert_eq!(t.backups(), before, "every backup kept");
    assert_eq!(t.read(&t.autosave.path), last_good);
    std::fs::remove_dir(&tmp).unwrap_or_else(|e| panic!("{e}"));
    t.save_one(7).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(t.backup(1), last_good);
    assert_eq!(t.backup(2), before[0]);
}

/// A damaged save is listed as such before it is picked: one with a good
/// backup resumes from it, one without any is not offered.
#[test]
fn damaged_saves_are_listed_with_what_resuming_them_does() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let lib = library();
    let autosave = Autosave::new_in(dir.path(), GameId::T52);
    play_some(&autosave, &lib);
    std::fs::write(&autosave.path, b"(format: 1, ga").unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("napoleonic-555.ron"), [0u8, 159, 146, 150])
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.path().join("t52-444.ron"),
        "Script(game: \"t52\", seed: 1, setup: [], answers: [])",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let listed = save::list(dir.path());
    let condition = |name: &str| {
        listed
            .iter()
            .find(|s| s.path.ends_with(name))
            .map(|s| s.condition.clone())
            .unwrap_or_else(|| panic!("{name} not listed: {listed:?}"))
    };
    assert_eq!(condition(&file_name(&autosave)), SaveCondition::FromBackup);
    for name in ["napoleonic-555.ron", "t52-444.ron"] {
        match condition(name) {
            SaveCondition::Unusable(why) => assert!(why.contains(name), "{why}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    assert_eq!(listed.iter().filter(|s| s.resumable()).count(), 1);
}

/// A game begun with a house rule's own profile, resumed without that
/// ruleset, says why nothing after its setup applies (audit Z1).
#[test]
fn a_game_resumed_without_its_house_rules_says_so() {
    use adjutant::rules::card_activation::{GameSetup, SideSetup, parse_units};
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let rules = dir.path().join("rulesets");
    std::fs::create_dir(&rules).unwrap_or_else(|e| panic!("{e}"));
    let builtin = GameId::CardActivation.default_ruleset();
    let house = builtin.replacen(
        "profiles: [",
        "profiles: [\n        (id: \"archers\", name: \"Archers\", soldiers: 5, stats: {\"actions\": 2, \"move\": 6, \"weapon_prep\": 2, \"morale\": 7, \"melee_dice\": 1, \"ballistic_dice\": 2, \"weapon_range\": 30}),",
        1,
    );
    std::fs::write(rules.join("card-activation.ron"), house).unwrap_or_else(|e| panic!("{e}"));
    let (with_house, errors) = Library::load(Some(&rules));
    assert!(errors.is_empty(), "{errors:?}");
    let rs =
        (with_house.get(GameId::CardActivation).cloned()).unwrap_or_else(|| panic!("no rules"));
    let side = |name: &str, units: &str| SideSetup {
        name: name.into(),
        units: parse_units(units).unwrap_or_else(|e| panic!("{e}")),
    };
    let setup = GameSetup {
        sides: vec![
            side("Red", "Bows:archers:3 Captain:commander"),
            side("Blue", "Guards:5 Militia:5"),
        ],
        question_order: 0,
    };
    let autosave = Autosave::new_in(&dir.path().join("saves"), GameId::CardActivation);
    let mut s = Session::new(GameId::CardActivation, rs, 3);
    let deal = ["Ah", "5s", "9d"].map(|c| c.parse().unwrap_or_else(|e| panic!("{e}")));
    for e in [
        Event::Begin(ProcedureSpec::CardActivation(setup)),
        Event::Answer(Answer::Cards(deal.to_vec())),
    ] {
        autosave.apply(&mut s, e).unwrap_or_else(|e| panic!("{e}"));
    }
    // Resumed with the house rules: whole.
    let loaded = save::load(&autosave.path, &with_house).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((loaded.cut_short, loaded.refused_setup), (None, None));
    // Without them: the refused setup is said, with why.
    let loaded = save::load(&autosave.path, &library()).unwrap_or_else(|e| panic!("{e}"));
    let refused = loaded.refused_setup.unwrap_or_default();
    assert!(refused.contains("`archers`"), "{refused}");
}
