//! Where Adjutant keeps user files: ruleset and model overrides in the config
//! directory, saves and learned decks in the data directory. Both can be
//! overridden (flags, or `ADJUTANT_CONFIG_DIR` / `ADJUTANT_DATA_DIR`).

use std::path::PathBuf;

/// The user's Adjutant config directory (`~/.config/adjutant` on Linux).
pub fn config_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("ADJUTANT_CONFIG_DIR") {
        return PathBuf::from(d);
    }
    directories::ProjectDirs::from("", "", "adjutant").map_or_else(
        || PathBuf::from(".adjutant/config"),
        |p| p.config_dir().to_path_buf(),
    )
}

/// The user's Adjutant data directory (`~/.local/share/adjutant` on Linux).
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("ADJUTANT_DATA_DIR") {
        return PathBuf::from(d);
    }
    directories::ProjectDirs::from("", "", "adjutant").map_or_else(
        || PathBuf::from(".adjutant/data"),
        |p| p.data_dir().to_path_buf(),
    )
}

/// Ruleset overrides: `<config>/rulesets/<game>.ron`.
pub fn ruleset_dir() -> PathBuf {
    config_dir().join("rulesets")
}

/// Saved sessions: `<data>/saves/`.
pub fn save_dir() -> PathBuf {
    data_dir().join("saves")
}

/// Model overrides: `<config>/models/{cards,dice}.bin`.
pub fn model_dir() -> PathBuf {
    config_dir().join("models")
}

/// Learned decks: `<data>/decks/<name>.bin`.
pub fn deck_dir() -> PathBuf {
    data_dir().join("decks")
}

/// The learned deck the readers use: the newest `.bin` in `dir` (the
/// user's [`deck_dir`]).
pub fn newest_deck(dir: &std::path::Path) -> Option<PathBuf> {
    let rd = std::fs::read_dir(dir).ok()?;
    rd.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "bin"))
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
}
