//! The five games Adjutant knows, their ruleset files, and what each file must hold.

use super::ruleset::{Ruleset, RulesetError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One of the supported games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum GameId {
    /// T52: Turnip28 played with a deck.
    T52,
    /// Gentlemen of War.
    GentlemenOfWar,
    /// Napoleonic card combat.
    Napoleonic,
    /// Card-activation skirmish.
    CardActivation,
    /// Gunfight gang.
    Gunfight,
}

/// The `.ron` files of the ruleset folder `dir` that no game reads. On a
/// file system that ignores case, `T52.ron` is read as `t52.ron`, so it is
/// not reported there; on one that does not, it is.
/// Reads the house rule at `path` as `game`'s: checked against the built-in
/// ruleset, and a misspelt key named with the key meant.
fn load_override(
    path: &Path,
    game: GameId,
    builtin: Option<&Ruleset>,
) -> Result<Ruleset, RulesetError> {
    Ruleset::load(path, Some(game))
        .and_then(|rs| check_against_builtin(rs, builtin, path))
        .map_err(|e| with_unknown_keys(e, builtin))
}

/// The `id` of the ruleset file at `path`, read without the rest of it
/// (whose problems are then told as its game's).
fn ruleset_id(path: &Path) -> Result<String, RulesetError> {
    /// A ruleset's `id` alone (named as the file's struct, so RON takes it).
    #[derive(serde::Deserialize)]
    struct Ruleset {
        id: String,
    }
    match std::fs::read_to_string(path).map(|t| ron::from_str::<Ruleset>(&t)) {
        Ok(Ok(rs)) => Ok(rs.id),
        // Unreadable, or not even an id: the full parse says what and where.
        _ => super::ruleset::Ruleset::load(path, None).map(|rs| rs.id),
    }
}

fn stray_files(dir: &Path) -> Vec<RulesetError> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let games: Vec<String> = GameId::ALL
        .iter()
        .map(|g| format!("{}.ron", g.id()))
        .collect();
    let present: Vec<String> = rd
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| {
            Path::new(n)
                .extension()
                .is_some_and(|x| x.eq_ignore_ascii_case("ron"))
        })
        .collect();
    let read = |name: &String| {
        games.contains(name)
            || games.iter().any(|g| {
                g.eq_ignore_ascii_case(name) && !present.contains(g) && dir.join(g).exists()
            })
    };
    let mut stray: Vec<&String> = present.iter().filter(|n| !read(n)).collect();
    stray.sort();
    stray
        .into_iter()
        .map(|name| RulesetError::NamesNoGame {
            file: dir.join(name),
            games: format!("one of {}", games.join(", ")),
        })
        .collect()
}

/// What a game's ruleset file must contain for the code to run.
pub struct Requirements {
    /// Keys of `numbers`.
    pub numbers: &'static [&'static str],
    /// Profile ids.
    pub profiles: &'static [&'static str],
    /// Rules entry ids cited by the game's procedures.
    pub rules: &'static [&'static str],
    /// Upgrade ids.
    pub upgrades: &'static [&'static str],
    /// Keys of `numbers` that count something or divide: at least 1.
    pub at_least_one: &'static [&'static str],
    /// Keys of `numbers` with the most that still makes a game (cards in a
    /// hand dealt from one pack), and why.
    pub at_most: &'static [(&'static str, i64, &'static str)],
    /// Pairs of keys of `numbers`: the first may not exceed the second
    /// (cards bid out of a hand no bigger).
    pub not_above: &'static [(&'static str, &'static str)],
}

impl GameId {
    /// Every game, in menu order.
    pub const ALL: [GameId; 5] = [
        GameId::T52,
        GameId::GentlemenOfWar,
        GameId::Napoleonic,
        GameId::CardActivation,
        GameId::Gunfight,
    ];

    /// The id used on the command line and as the ruleset file stem.
    pub fn id(self) -> &'static str {
        match self {
            GameId::T52 => "t52",
            GameId::GentlemenOfWar => "gentlemen-of-war",
            GameId::Napoleonic => "napoleonic",
            GameId::CardActivation => "card-activation",
            GameId::Gunfight => "gunfight",
        }
    }

    /// Parses a game id (also accepts a few obvious aliases).
    pub fn from_id(s: &str) -> Option<GameId> {
        let s = s.trim().to_lowercase();
        GameId::ALL
            .into_iter()
            .find(|g| g.id() == s)
            .or(match s.as_str() {
                "gow" | "gentlemen" => Some(GameId::GentlemenOfWar),
                "napoleonic-card-combat" => Some(GameId::Napoleonic),
                "card-activation-skirmish" | "skirmish" => Some(GameId::CardActivation),
                "gunfight-gang" => Some(GameId::Gunfight),
                _ => None,
            })
    }

    /// The embedded default ruleset text.
    pub fn default_ruleset(self) -> &'static str {
        match self {
            GameId::T52 => include_str!("../../rulesets/t52.ron"),
            GameId::GentlemenOfWar => include_str!("../../rulesets/gentlemen-of-war.ron"),
            GameId::Napoleonic => include_str!("../../rulesets/napoleonic.ron"),
            GameId::CardActivation => include_str!("../../rulesets/card-activation.ron"),
            GameId::Gunfight => include_str!("../../rulesets/gunfight.ron"),
        }
    }

    /// What the game's code needs from its ruleset file.
    pub fn requirements(self) -> Requirements {
        match self {
            GameId::T52 => super::t52::REQUIREMENTS,
            GameId::Gunfight => super::gunfight::REQUIREMENTS,
            GameId::Napoleonic => super::napoleonic::REQUIREMENTS,
            GameId::CardActivation => super::card_activation::REQUIREMENTS,
            GameId::GentlemenOfWar => super::gentlemen::REQUIREMENTS,
        }
    }
}

/// Where a loaded ruleset came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RulesetSource {
    /// Built into the binary.
    Builtin,
    /// A file in the user's override directory.
    File(PathBuf),
}

/// All rulesets available to this run: the built-in defaults, each replaced by
/// a file of the same name in the override directory when that file is valid.
#[derive(Debug, Clone)]
pub struct Library {
    rulesets: BTreeMap<GameId, (Ruleset, RulesetSource)>,
}

impl Library {
    /// Loads the defaults, then overrides from `dir` (when it exists). Every
    /// bad file yields an error in the second list, and that game falls back
    /// to its built-in default; the other games are unaffected.
    pub fn load(dir: Option<&Path>) -> (Library, Vec<RulesetError>) {
        let mut errors = Vec::new();
        let mut rulesets = BTreeMap::new();
        for game in GameId::ALL {
            let name = PathBuf::from(format!("<built-in>/{}.ron", game.id()));
            match Ruleset::parse(game.default_ruleset(), &name) {
                Ok(rs) => {
                    rulesets.insert(game, (rs, RulesetSource::Builtin));
                }
                Err(e) => errors.push(e),
            }
            let Some(dir) = dir else { continue };
            let path = dir.join(format!("{}.ron", game.id()));
            if !path.exists() {
                continue;
            }
            let builtin = rulesets.get(&game).map(|(rs, _)| rs.clone());
            match load_override(&path, game, builtin.as_ref()) {
                Ok(rs) => {
                    rulesets.insert(game, (rs, RulesetSource::File(path)));
                }
                Err(e) => errors.push(e),
            }
        }
        // A house rule in a file that names no game (`Gunfight.ron`,
        // `gunfight-house.ron`) would be ignored without a word.
        if let Some(dir) = dir {
            errors.extend(stray_files(dir));
        }
        (Library { rulesets }, errors)
    }

    /// Checks one ruleset file as [`Library::load`] would read it as a
    /// house rule, wherever it is (an edited copy before it is put in
    /// place): for the game its file is named after, else the game its `id`
    /// names. Returns that game, or every problem with file, line and column.
    pub fn check_file(path: &Path) -> Result<GameId, RulesetError> {
        let named = path
            .file_stem()
            .and_then(|s| s.to_str())
            .and_then(GameId::from_id);
        let game = match named {
            Some(g) => g,
            None => {
                // Only its `id` is read first: the whole file is then
                // checked as that game's, with the same hints (a misspelt
                // key and the key meant) as a file named after it (audit
                // AK1).
                let id = ruleset_id(path)?;
                match GameId::from_id(&id) {
                    Some(g) => g,
                    None => {
                        // An id that is no game: the full parse names it
                        // (audit AM4).
                        Ruleset::load(path, None)?;
                        return Err(RulesetError::NamesNoGame {
                            file: path.to_path_buf(),
                            games: format!(
                                "one of {}",
                                GameId::ALL.map(|g| format!("{}.ron", g.id())).join(", ")
                            ),
                        });
                    }
                }
            }
        };
        let builtin = Ruleset::parse(game.default_ruleset(), Path::new(game.id())).ok();
        load_override(path, game, builtin.as_ref())?;
        Ok(game)
    }

    /// Only the built-in rulesets.
    pub fn builtin() -> (Library, Vec<RulesetError>) {
        Library::load(None)
    }

    /// A game's ruleset.
    pub fn get(&self, game: GameId) -> Option<&Ruleset> {
        self.rulesets.get(&game).map(|(r, _)| r)
    }

    /// Where a game's ruleset came from.
    pub fn source(&self, game: GameId) -> Option<&RulesetSource> {
        self.rulesets.get(&game).map(|(_, s)| s)
    }

    /// Games with a usable ruleset.
    pub fn games(&self) -> impl Iterator<Item = (GameId, &Ruleset)> {
        self.rulesets.iter().map(|(g, (r, _))| (*g, r))
    }
}

/// Letters a misspelt number key may differ by to be named as meant.
const MAX_KEY_TYPO: usize = 3;

/// A house rule's numbers and profile stats are those the game reads (its
/// built-in ruleset's): a misspelt key would otherwise be kept and never
/// read, and a stat left out would read as 0.
fn check_against_builtin(
    rs: Ruleset,
    builtin: Option<&Ruleset>,
    path: &Path,
) -> Result<Ruleset, RulesetError> {
    let Some(builtin) = builtin else {
        return Ok(rs);
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let problems = key_problems(&rs, builtin, &text);
    if problems.is_empty() {
        return Ok(rs);
    }
    Err(RulesetError::Invalid {
        file: path.to_path_buf(),
        problems,
    })
}

/// An override refused for its values is also checked for keys the game
/// does not read (audit Y2): a misspelt key is often why a value is said
/// to be missing, so it is listed first, in the same run of `check`.
fn with_unknown_keys(e: RulesetError, builtin: Option<&Ruleset>) -> RulesetError {
    let (RulesetError::Invalid { file, problems }, Some(builtin)) = (&e, builtin) else {
        return e;
    };
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let Ok(rs) = ron::from_str::<Ruleset>(&text) else {
        return e;
    };
    let mut keys = key_problems(&rs, builtin, &text);
    if keys.is_empty() {
        return e;
    }
    keys.retain(|k| !problems.contains(k));
    // A key meant by a misspelt one reads as missing, and other values
    // are measured against it: those follow from the misspelling, which
    // is said with the key meant (audit Z4).
    let meant: Vec<String> = keys
        .iter()
        .filter_map(|k| k.message.split("did you mean `").nth(1))
        .filter_map(|rest| rest.split('`').next())
        .map(|k| format!("`{k}`"))
        .collect();
    let follows =
        |p: &super::ruleset::Problem| meant.iter().any(|k| p.message.contains(k.as_str()));
    let values = problems.iter().filter(|p| !follows(p)).cloned();
    RulesetError::Invalid {
        file: file.clone(),
        problems: keys.into_iter().chain(values).collect(),
    }
}

/// Numbers and profile stats of `rs` that its game does not read, and
/// stats it leaves out, each placed in `text`.
fn key_problems(rs: &Ruleset, builtin: &Ruleset, text: &str) -> Vec<super::ruleset::Problem> {
    let mut messages: Vec<String> = rs
        .numbers
        .keys()
        .filter(|k| !builtin.numbers.contains_key(*k))
        .map(|unknown| {
            let nearest = did_you_mean(unknown, builtin.numbers.keys());
            format!("numbers: `{unknown}` is not a number this game reads{nearest}")
        })
        .collect();
    messages.extend(stat_problems(rs, builtin));
    let mut problems: Vec<super::ruleset::Problem> = messages
        .into_iter()
        .map(|m| super::ruleset::Problem::named_in(text, m))
        .collect();
    // In the file's order, as a reader goes down it.
    problems.sort_by_key(|p| p.at.unwrap_or((usize::MAX, usize::MAX)));
    problems
}

/// ` (did you mean `k`?)` for the name in `known` nearest `name`, within
/// [`MAX_KEY_TYPO`] letters; empty when none is that near.
fn did_you_mean<'a>(name: &str, known: impl Iterator<Item = &'a String>) -> String {
    known
        .map(|k| (strsim::levenshtein(k, name), k))
        .min()
        .filter(|(d, _)| *d <= MAX_KEY_TYPO)
        .map(|(_, k)| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default()
}

/// A profile's stats against the game's: those of the built-in profile of
/// the same id, or for a new profile the stats every built-in profile has
/// (required) and any has (read).
fn stat_problems(rs: &Ruleset, builtin: &Ruleset) -> Vec<String> {
    use std::collections::BTreeSet;
    let keys = |p: &super::ruleset::Profile| p.stats.keys().cloned().collect::<BTreeSet<_>>();
    let all: Vec<BTreeSet<String>> = builtin.profiles.iter().map(keys).collect();
    let read: BTreeSet<String> = all.iter().flatten().cloned().collect();
    let everywhere: BTreeSet<String> = read
        .iter()
        .filter(|k| all.iter().all(|s| s.contains(*k)))
        .cloned()
        .collect();
    let mut out = Vec::new();
    for p in &rs.profiles {
        let (required, known) = match builtin.profiles.iter().find(|b| b.id == p.id) {
            Some(b) => (keys(b), keys(b)),
            None => (everywhere.clone(), read.clone()),
        };
        let listed = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join(", ");
        let unknown: Vec<&String> = p.stats.keys().filter(|k| !known.contains(*k)).collect();
        // A misspelt stat is one the profile lacks (audit Z2-4); it is
        // said once, as the misspelling with the stat meant.
        let lacking: Vec<&String> = known.iter().filter(|k| !p.stats.contains_key(*k)).collect();
        let nearest = |u: &str| did_you_mean(u, lacking.iter().copied());
        let meant: Vec<String> = (unknown.iter())
            .filter_map(|u| {
                let near = nearest(u);
                (!near.is_empty()).then(|| near.split('`').nth(1).unwrap_or_default().to_string())
            })
            .collect();
        for missing in required.iter().filter(|k| !p.stats.contains_key(*k)) {
            if !meant.contains(missing) {
                out.push(format!(
                    "profiles: `{}` has no `{missing}` stat (it needs {})",
                    p.id,
                    listed(&required)
                ));
            }
        }
        for unknown in unknown {
            out.push(format!(
                "profiles: `{}` has a stat `{unknown}` this game never reads{} (it reads {})",
                p.id,
                nearest(unknown),
                listed(&known)
            ));
        }
    }
    out
}
