//! Saves that never lose a game: RON, written atomically (temp file, fsync,
//! rename) after every event, with rotated backups; a corrupt or truncated
//! save falls back to the newest backup that loads.

use super::games::{GameId, Library};
use super::session::{Event, Session, SessionError};
use serde::{Deserialize, Serialize};
use std::fs;
use std::path::{Path, PathBuf};

/// Save format version written by this build.
pub const SAVE_FORMAT: u32 = 1;
/// Backups kept beside each save (`name.ron.1` newest .. `name.ron.N`).
pub const BACKUPS: usize = 3;

/// What a save file holds: enough to replay the game exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SaveFile {
    /// Format version.
    pub format: u32,
    /// The game.
    pub game: GameId,
    /// RNG seed of the session.
    pub seed: u64,
    /// The event log.
    pub events: Vec<Event>,
    /// Events undone and not yet redone, the next to redo last, so that
    /// Redo still works after the app is closed or crashes; left out of the
    /// file when empty (saves from before it hold none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redo: Vec<Event>,
    /// Who plays and how far the game got ("Red v Blue, round 3"), for the
    /// list of saved games; not read back into the game (saves from before
    /// it have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

impl SaveFile {
    /// Captures a session.
    pub fn of(session: &Session) -> SaveFile {
        SaveFile {
            format: SAVE_FORMAT,
            game: session.game(),
            seed: session.seed(),
            events: session.events().to_vec(),
            redo: session.redo_events().to_vec(),
            summary: Some(summary_of(session)),
        }
    }

    /// Rebuilds the session with the game's ruleset from `library`.
    pub fn restore(self, library: &Library, file: &Path) -> Result<Session, SaveError> {
        let ruleset = library
            .get(self.game)
            .cloned()
            .ok_or_else(|| SaveError::Invalid {
                file: file.to_path_buf(),
                message: format!("no usable ruleset for {}", self.game.id()),
            })?;
        let mut session =
            Session::replay(self.game, ruleset, self.seed, self.events).map_err(|e| {
                SaveError::Invalid {
                    file: file.to_path_buf(),
                    message: e.to_string(),
                }
            })?;
        session.set_redo(self.redo);
        Ok(session)
    }

    /// Rebuilds as much of the session as still replays (see
    /// [`Session::replay_longest`]); `None` when not even the game's ruleset
    /// is available. The second value says where and why the replay stopped.
    fn restore_longest(self, library: &Library) -> Option<(Session, Option<String>)> {
        let ruleset = library.get(self.game).cloned()?;
        let total = self.events.len();
        // House rules changed since the game was played are the likely cause.
        let house_rules = match library.source(self.game) {
            Some(super::games::RulesetSource::File(f)) => format!(
                "; this game is played under the house rules in {}, which may have changed since",
                f.display()
            ),
            _ => String::new(),
        };
        let (session, stop) = Session::replay_longest(self.game, ruleset, self.seed, self.events);
        Some((
            session,
            stop.map(|e| match e {
                SessionError::Replay { index, reason } => format!(
                    "event {} of {total} no longer applies ({reason}){house_rules}",
                    index + 1
                ),
                other => other.to_string(),
            }),
        ))
    }
}

/// Why a save could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// Reading or writing failed.
    #[error("{}: {source}", file.display())]
    Io {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not a valid save (truncated, corrupt, wrong version).
    #[error("{}:{line}:{column}: not a valid save: {message}", file.display())]
    Corrupt {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Parser message.
        message: String,
    },
    /// The file parsed but cannot be replayed.
    #[error("{}: {message}", file.display())]
    Invalid {
        /// The file.
        file: PathBuf,
        /// Why.
        message: String,
    },
    /// Neither the save nor any backup could be used.
    #[error("no usable save: {}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    NothingUsable(Vec<SaveError>),
}

/// A session restored from disk, and what went wrong on the way.
#[derive(Debug)]
pub struct Loaded {
    /// The session.
    pub session: Session,
    /// The file it came from (the save itself or a backup).
    pub from: PathBuf,
    /// Errors for newer files that were skipped (empty when the save was fine).
    pub skipped: Vec<SaveError>,
    /// Set when no file replayed whole and the game was restored from the
    /// newest file that parses, up to the first event that no longer applies:
    /// says which event and why (keep the whole file with [`keep_whole`]).
    pub cut_short: Option<String>,
    /// When this build refuses the game's setup (a house rule's profile
    /// whose ruleset is not loaded now, audit Z1), what it says: then no
    /// later event applies, and resuming with those rulesets in place
    /// brings the game back whole.
    pub refused_setup: Option<String>,
}

fn backup_path(path: &Path, n: usize) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(format!(".{n}"));
    PathBuf::from(s)
}

fn io(file: &Path) -> impl FnOnce(std::io::Error) -> SaveError + '_ {
    move |source| SaveError::Io {
        file: file.to_path_buf(),
        source,
    }
}

/// Writes `bytes` to `path` atomically (see [`crate::files::write_atomic`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SaveError> {
    Ok(crate::files::write_atomic(path, bytes)?)
}

impl From<crate::files::WriteError> for SaveError {
    fn from(e: crate::files::WriteError) -> SaveError {
        SaveError::Io {
            file: e.path,
            source: e.source,
        }
    }
}

/// Saves a session: rotates backups (the previous save becomes `.1`), then
/// writes the new save atomically. A previous save that no longer parses
/// (damaged outside Adjutant) is not rotated in, where it would push out a
/// good backup: it is kept beside them as `<save>.damaged`.
pub fn save(session: &Session, path: &Path) -> Result<(), SaveError> {
    let text = ron::ser::to_string_pretty(&SaveFile::of(session), ron::ser::PrettyConfig::new())
        .map_err(|e| SaveError::Invalid {
            file: path.to_path_buf(),
            message: e.to_string(),
        })?;
    if path.exists() {
        // Read once: checked, then kept as the newest backup or set aside.
        let previous = fs::read(path).map_err(io(path))?;
        let sound = std::str::from_utf8(&previous).is_ok_and(|t| parse_text(path, t).is_ok());
        // A save that failed to write left the backups rotated already, the
        // newest holding this same previous save: rotating again would push
        // an older, different backup out on every failed try.
        let first = backup_path(path, 1);
        // (Sizes first: a save after a new event differs in size, so the
        // backup is read only when it may be the same.)
        let backed_up = fs::metadata(&first).is_ok_and(|m| m.len() == previous.len() as u64)
            && fs::read(&first).is_ok_and(|b| b == previous);
        if sound && !backed_up {
            // Copied rather than renamed, so the save itself never
            // disappears; the older backups move down only once the copy is
            // written whole, so a full disk costs none of them.
            let rotate = || {
                for n in (1..BACKUPS).rev() {
                    let from = backup_path(path, n);
                    if from.exists() {
                        fs::rename(&from, backup_path(path, n + 1)).map_err(|source| {
                            crate::files::WriteError {
                                path: from.clone(),
                                source,
                            }
                        })?;
                    }
                }
                Ok(())
            };
            crate::files::write_atomic_then(&first, &previous, rotate)?;
        } else if !sound {
            write_atomic(&unused_damaged_path(path), &previous)?;
        }
    }
    write_atomic(path, text.as_bytes())
}

/// Reads one save file (no fallback).
pub fn read(path: &Path, library: &Library) -> Result<Session, SaveError> {
    parse(path)?.restore(library, path)
}

/// Parses one save file and checks its format version.
fn parse(path: &Path) -> Result<SaveFile, SaveError> {
    let bytes = fs::read(path).map_err(io(path))?;
    // A stray byte is placed like any other damage (audit Y6).
    let text = crate::files::utf8_text(bytes).map_err(|e| SaveError::Corrupt {
        file: path.to_path_buf(),
        line: e.line,
        column: e.column,
        message: e.to_string(),
    })?;
    parse_text(path, &text)
}

/// Parses the text of the save at `path` and checks its format version.
fn parse_text(path: &Path, text: &str) -> Result<SaveFile, SaveError> {
    // Said as what it is, not as a missing opening bracket (audit AI5).
    if text.trim().is_empty() {
        return Err(SaveError::Corrupt {
            file: path.to_path_buf(),
            line: 1,
            column: 1,
            message: "the file is empty (a save cut off before it was written?)".into(),
        });
    }
    let file: SaveFile = ron::from_str(text).map_err(|e| SaveError::Corrupt {
        file: path.to_path_buf(),
        line: e.span.start.line,
        column: e.span.start.col,
        // Said as a player would: "Expected a saved game", not the type;
        // a file that stops short as a save cut off (audit BK K10).
        message: match e.code {
            ron::Error::Eof => {
                "the file ends too soon (a save cut off while it was written?)".into()
            }
            code => code
                .to_string()
                .replace("struct `SaveFile`", "a saved game"),
        },
    })?;
    if file.format != SAVE_FORMAT {
        return Err(SaveError::Invalid {
            file: path.to_path_buf(),
            message: format!(
                "save format {} is not supported (this build reads {SAVE_FORMAT})",
                file.format
            ),
        });
    }
    Ok(file)
}

/// Where a damaged save is kept when a new one replaces it (`<save>.damaged`,
/// not listed as a save, never rotated).
pub fn damaged_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".damaged");
    PathBuf::from(s)
}

/// [`damaged_path`], or when a damaged save of the same game is kept there
/// already, the first of `<save>.damaged.2`, `.3`... not taken: one damage
/// does not overwrite the copy of another (audit AI7).
fn unused_damaged_path(path: &Path) -> PathBuf {
    let first = damaged_path(path);
    if !first.exists() {
        return first;
    }
    (2..MAX_DAMAGED_COPIES)
        .map(|n| {
            let mut s = first.as_os_str().to_owned();
            s.push(format!(".{n}"));
            PathBuf::from(s)
        })
        .find(|p| !p.exists())
        .unwrap_or(first)
}

/// The most damaged copies kept of one save; past that the first is
/// overwritten.
const MAX_DAMAGED_COPIES: usize = 100;

/// Where the whole log of a save restored only in part is kept
/// (`<save>.whole`, not listed as a save, never rotated).
pub fn whole_log_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".whole");
    PathBuf::from(s)
}

/// Loads a save, falling back to its backups newest first.
///
/// A file that does not parse is skipped. A file that parses but no longer
/// replays whole (written by an older Adjutant, or under a ruleset
/// house-ruled since) is resumed as far as it replays, unless an older
/// backup replays whole at least as far: a change of rules breaks the backups
/// at the same event, so the newest file, cut short, keeps the most of the
/// game, while a backup that replays whole wins over a newer file that breaks
/// earlier.
pub fn load(path: &Path, library: &Library) -> Result<Loaded, SaveError> {
    let mut loaded = load_newest_usable(path, library)?;
    // Each said as a clause of one sentence (they end with a full stop).
    let refused: Vec<&str> = (loaded.session.state().log.iter())
        .filter_map(|l| l.text.strip_prefix(super::common::SETUP_REFUSED))
        .map(|t| t.trim_end_matches('.'))
        .collect();
    if !refused.is_empty() {
        loaded.refused_setup = Some(refused.join("; "));
    }
    Ok(loaded)
}

/// [`load`], before the setup is looked at.
fn load_newest_usable(path: &Path, library: &Library) -> Result<Loaded, SaveError> {
    let mut skipped = Vec::new();
    // The newest file that replays in part, and how many files were skipped
    // before it.
    let mut partial: Option<(Loaded, usize)> = None;
    for candidate in candidates(path) {
        let file = match parse(&candidate) {
            Ok(f) => f,
            Err(e) => {
                skipped.push(e);
                continue;
            }
        };
        match file.clone().restore(library, &candidate) {
            Ok(session) => {
                if let Some((p, newer)) = partial
                    && p.session.events().len() > session.events().len()
                {
                    skipped.truncate(newer);
                    return Ok(Loaded { skipped, ..p });
                }
                return Ok(Loaded {
                    session,
                    from: candidate,
                    skipped,
                    cut_short: None,
                    refused_setup: None,
                });
            }
            Err(e) => {
                if partial.is_none()
                    && let Some((session, Some(stop))) = file.restore_longest(library)
                    && session
                        .events()
                        .iter()
                        .any(|e| matches!(e, Event::Begin(_)))
                {
                    let loaded = Loaded {
                        session,
                        from: candidate,
                        skipped: Vec::new(),
                        cut_short: Some(format!(
                            "{stop}; the game goes on from the event before it"
                        )),
                        refused_setup: None,
                    };
                    partial = Some((loaded, skipped.len()));
                }
                skipped.push(e);
            }
        }
    }
    match partial {
        Some((p, newer)) => {
            skipped.truncate(newer);
            Ok(Loaded { skipped, ..p })
        }
        None => Err(SaveError::NothingUsable(skipped)),
    }
}

/// The save and its backups that exist, newest first.
fn candidates(path: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    std::iter::once(path.to_path_buf())
        .chain((1..=BACKUPS).map(|n| backup_path(path, n)))
        .filter(move |c| c == path || c.exists())
}

/// Copies the file a game was resumed from only in part (`from`, see
/// [`Loaded::cut_short`]) to [`whole_log_path`] of its save, before the next
/// autosave overwrites it; returns where.
pub fn keep_whole(path: &Path, from: &Path) -> Result<PathBuf, SaveError> {
    let whole = whole_log_path(path);
    fs::copy(from, &whole).map_err(io(&whole))?;
    Ok(whole)
}

/// A saved game found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedGame {
    /// The save file.
    pub path: PathBuf,
    /// Last change, seconds since the Unix epoch.
    pub modified: u64,
    /// Who plays and how far the game got, when the save says.
    pub summary: Option<String>,
    /// Whether it can be resumed, and from which file.
    pub condition: SaveCondition,
}

/// Whether a listed save can be resumed (read when the list is made, so a
/// damaged one is said before it is picked).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveCondition {
    /// The save reads.
    Sound,
    /// The save is damaged; its newest backup that reads is resumed.
    FromBackup,
    /// Neither the save nor a backup reads: why the save does not.
    Unusable(String),
    /// It reads but replays only in part (an older Adjutant, a house rule
    /// changed since): where it resumes and why (see [`Loaded::cut_short`]).
    InPart {
        /// Where the game resumes ("turn 1").
        at: String,
        /// Which event stops the replay, and why.
        why: String,
    },
}

impl SavedGame {
    /// Whether resuming it can work.
    pub fn resumable(&self) -> bool {
        !matches!(self.condition, SaveCondition::Unusable(_))
    }
}

/// The summary of the first of `path` and its backups that reads, and
/// which that was.
fn look_at(path: &Path) -> (Option<String>, SaveCondition) {
    match parse(path) {
        Ok(file) => (file.summary, SaveCondition::Sound),
        Err(e) => match (1..=BACKUPS).find_map(|n| parse(&backup_path(path, n)).ok()) {
            Some(file) => (file.summary, SaveCondition::FromBackup),
            None => (None, SaveCondition::Unusable(e.to_string())),
        },
    }
}

/// "Red v Blue, round 3", or "Red v Blue, over: victory to Red".
fn summary_of(session: &Session) -> String {
    let st = session.state();
    let sides: Vec<&str> = st.sides.iter().map(|s| s.name.as_str()).collect();
    let sides = sides.join(" v ");
    let when = match &st.outcome {
        Some(o) => match o.winner {
            Some(w) => format!("over: victory to {}", st.side_name(w)),
            None => "over: a draw".to_string(),
        },
        None if st.round > 0 => format!("round {}", st.round),
        None if st.turn > 0 => format!("turn {}", st.turn),
        None => "setting up".to_string(),
    };
    if sides.is_empty() {
        when
    } else {
        format!("{sides}, {when}")
    }
}

/// Folder (inside the saves folder) that saves put away are moved to.
pub const PUT_AWAY_DIR: &str = "put-away";

/// Takes a save off the list without losing it: moves it and its backups
/// into [`PUT_AWAY_DIR`] beside it (a file there of the same name is
/// replaced). Returns the folder.
pub fn put_away(path: &Path) -> Result<PathBuf, SaveError> {
    let dir = path
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join(PUT_AWAY_DIR);
    fs::create_dir_all(&dir).map_err(io(&dir))?;
    let Some(name) = path.file_name() else {
        return Err(SaveError::Invalid {
            file: path.to_path_buf(),
            message: "not a file name".into(),
        });
    };
    // Backups first: a failure part-way leaves the save itself listed.
    for n in (1..=BACKUPS).rev() {
        let backup = backup_path(path, n);
        if backup.exists() {
            let to = backup_path(&dir.join(name), n);
            fs::rename(&backup, &to).map_err(io(&backup))?;
        }
    }
    fs::rename(path, dir.join(name)).map_err(io(path))?;
    Ok(dir)
}

/// Lists the saves in `dir`, newest first (backups and temp files excluded).
pub fn list(dir: &Path) -> Vec<SavedGame> {
    let Ok(rd) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<SavedGame> = rd
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "ron"))
        .map(|e| {
            // Older saves have no summary.
            let (summary, condition) = look_at(&e.path());
            (e, summary, condition)
        })
        .map(|(e, summary, condition)| SavedGame {
            summary,
            condition,
            path: e.path(),
            modified: e
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs()),
        })
        .collect();
    out.sort_by(|a, b| {
        b.modified
            .cmp(&a.modified)
            .then_with(|| a.path.cmp(&b.path))
    });
    out
}

/// [`list`], each save that reads also replayed under `library`: one that
/// replays only in part says where it resumes and why, and its summary is
/// the game as it resumes (its stored one said "over" of a game that
/// resumes at turn 1: audit BC C1).
pub fn list_checked(dir: &Path, library: &Library) -> Vec<SavedGame> {
    let mut saves = list(dir);
    for s in saves.iter_mut().filter(|s| s.resumable()) {
        match load(&s.path, library) {
            Ok(Loaded {
                session,
                cut_short: Some(why),
                ..
            }) => {
                let at = summary_of(&session);
                s.summary = Some(at.clone());
                s.condition = SaveCondition::InPart { at, why };
            }
            Ok(_) => {}
            Err(e) => s.condition = SaveCondition::Unusable(e.to_string()),
        }
    }
    saves
}

/// Keeps a session on disk: saves after every change.
#[derive(Debug, Clone)]
pub struct Autosave {
    /// Where the session is saved.
    pub path: PathBuf,
}

impl Autosave {
    /// A new autosave target `dir/<game>-<unix seconds>.ron`, or
    /// `<game>-<unix seconds>-2.ron` and so on when a game started in the same
    /// second already has that name (a save or its backups): a new game never
    /// writes over another.
    pub fn new_in(dir: &Path, game: GameId) -> Autosave {
        Autosave::new_in_avoiding(dir, game, None)
    }

    /// [`Autosave::new_in`], never at `in_use` (the open game's file, which
    /// may not be on disk yet when its saves fail: a game begun in the same
    /// second would otherwise get its name, and the two overwrite each other).
    pub fn new_in_avoiding(dir: &Path, game: GameId, in_use: Option<&Path>) -> Autosave {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let taken = |p: &Path| {
            in_use == Some(p) || p.exists() || (1..=BACKUPS).any(|n| backup_path(p, n).exists())
        };
        let mut path = dir.join(format!("{}-{secs}.ron", game.id()));
        let mut n = 2;
        while taken(&path) {
            path = dir.join(format!("{}-{secs}-{n}.ron", game.id()));
            n += 1;
        }
        Autosave { path }
    }

    /// Applies an event and saves at once; the event stays applied even if
    /// saving fails (the error says so, and the next save catches up).
    pub fn apply(&self, session: &mut Session, event: Event) -> Result<(), AutosaveError> {
        session.apply(event).map_err(AutosaveError::Refused)?;
        self.save(session)
    }

    /// Saves `session` as it stands (an event applied to it already).
    pub fn save(&self, session: &Session) -> Result<(), AutosaveError> {
        save(session, &self.path).map_err(AutosaveError::Save)
    }
}

/// Result of [`Autosave::apply`].
#[derive(Debug, thiserror::Error)]
pub enum AutosaveError {
    /// The event was refused; nothing changed.
    #[error("{0}")]
    Refused(super::session::SessionError),
    /// The event applied but the save failed.
    #[error(
        "The change is kept, but the game could not be saved ({0}); Adjutant tries again at the next change"
    )]
    Save(SaveError),
}
