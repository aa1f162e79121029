//! What the window remembers between runs: its size, and for each game how
//! tall its question box has grown (so the panes below stay put after a
//! restart as they do during a session). Kept in `<data>/window.ron`; a
//! missing file is the defaults, a bad one is reported and replaced.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// File name of the layout, in the data folder.
pub const WINDOW_LAYOUT_FILE: &str = "window.ron";

/// The window's size when nothing is remembered (points).
pub const DEFAULT_WINDOW_SIZE: [f32; 2] = [1000.0, 700.0];

/// A remembered size is never restored smaller than this (points): a window
/// shrunk to a sliver by mistake would otherwise come back as one.
pub const MIN_WINDOW_SIZE: [f32; 2] = [480.0, 360.0];

/// How many games' question heights are kept (the newest games).
pub const KEPT_GAMES: usize = 32;

/// A height change smaller than this (points) is not worth a write.
pub const HEIGHT_STEP: f32 = 1.0;

/// The remembered layout.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WindowLayout {
    /// Inner size of the window when it was last seen (points).
    pub size: Option<[f32; 2]>,
    /// Tallest question box per game (by the game's seed), oldest first.
    pub question_heights: Vec<(u64, f32)>,
}

impl WindowLayout {
    /// Reads `path`. A missing file gives the defaults; an unreadable or
    /// malformed one gives the defaults and a message naming the file.
    pub fn load(path: &Path) -> (WindowLayout, Option<String>) {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (WindowLayout::default(), None);
            }
            Err(e) => {
                return (
                    WindowLayout::default(),
                    Some(format!(
                        "Window layout not read ({}: {e}); using the default size.",
                        path.display()
                    )),
                );
            }
        };
        match ron::from_str::<WindowLayout>(&text) {
            Ok(l) => (l, None),
            Err(e) => (
                WindowLayout::default(),
                Some(format!(
                    "Window layout not read ({}:{}:{}: {}); using the default size.",
                    path.display(),
                    e.span.start.line,
                    e.span.start.col,
                    e.code
                        .to_string()
                        .replace("struct `WindowLayout`", "a window layout")
                )),
            ),
        }
    }

    /// Writes the layout to `path` (atomically).
    pub fn save(&self, path: &Path) -> Result<(), crate::files::WriteError> {
        let text =
            ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::default()).unwrap_or_default();
        crate::files::write_atomic(path, text.as_bytes())
    }

    /// The size to open the window at: the remembered one, never below
    /// [`MIN_WINDOW_SIZE`], or [`DEFAULT_WINDOW_SIZE`].
    pub fn opening_size(&self) -> [f32; 2] {
        match self.size {
            Some([w, h]) if w.is_finite() && h.is_finite() => {
                [w.max(MIN_WINDOW_SIZE[0]), h.max(MIN_WINDOW_SIZE[1])]
            }
            _ => DEFAULT_WINDOW_SIZE,
        }
    }

    /// Notes the window's inner size; true when it changed.
    pub fn note_size(&mut self, size: [f32; 2]) -> bool {
        let changed = self
            .size
            .is_none_or(|[w, h]| (w - size[0]).abs() >= 1.0 || (h - size[1]).abs() >= 1.0);
        if changed {
            self.size = Some(size);
        }
        changed
    }

    /// The tallest question box of the game with `seed` (0 when unknown).
    pub fn question_height(&self, seed: u64) -> f32 {
        self.question_heights
            .iter()
            .find(|(s, _)| *s == seed)
            .map_or(0.0, |(_, h)| *h)
    }

    /// Keeps `height` for the game with `seed` if it is taller than what is
    /// kept; true when it changed. The game becomes the newest; only the
    /// newest [`KEPT_GAMES`] are kept.
    pub fn keep_question_height(&mut self, seed: u64, height: f32) -> bool {
        if !height.is_finite() || height < self.question_height(seed) + HEIGHT_STEP {
            return false;
        }
        self.question_heights.retain(|(s, _)| *s != seed);
        self.question_heights.push((seed, height));
        let excess = self.question_heights.len().saturating_sub(KEPT_GAMES);
        self.question_heights.drain(..excess);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_layout_loads_back() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(WINDOW_LAYOUT_FILE);
        let mut l = WindowLayout::default();
        l.note_size([1200.0, 800.0]);
        l.keep_question_height(7, 150.0);
        l.save(&path).expect("saved");
        assert_eq!(WindowLayout::load(&path), (l, None));
    }

    #[test]
    fn a_missing_file_is_the_defaults_and_a_bad_one_is_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(WINDOW_LAYOUT_FILE);
        assert_eq!(WindowLayout::load(&path), (WindowLayout::default(), None));
        std::fs::write(&path, "(size: Some((1.0, \"x\")))").expect("written");
        let (l, msg) = WindowLayout::load(&path);
        assert_eq!(l, WindowLayout::default());
        let msg = msg.expect("a message");
        assert!(msg.contains("window.ron:1:"), "{msg}");
    }

    #[test]
    fn the_opening_size_is_never_a_sliver() {
        let mut l = WindowLayout::default();
        assert_eq!(l.opening_size(), DEFAULT_WINDOW_SIZE);
        l.size = Some([100.0, 2000.0]);
        assert_eq!(l.opening_size(), [MIN_WINDOW_SIZE[0], 2000.0]);
        l.size = Some([f32::NAN, 500.0]);
        assert_eq!(l.opening_size(), DEFAULT_WINDOW_SIZE);
    }

    #[test]
    fn heights_only_grow_and_the_newest_games_are_kept() {
        let mut l = WindowLayout::default();
        assert!(l.keep_question_height(1, 100.0));
        assert!(!l.keep_question_height(1, 90.0));
        assert!(!l.keep_question_height(1, 100.5));
        assert_eq!(l.question_height(1), 100.0);
        for seed in 2..=(KEPT_GAMES as u64 + 1) {
            l.keep_question_height(seed, 50.0);
        }
        assert_eq!(l.question_heights.len(), KEPT_GAMES);
        assert_eq!(l.question_height(1), 0.0, "the oldest game went");
        assert!(l.keep_question_height(2, 60.0));
        assert_eq!(l.question_heights.last(), Some(&(2, 60.0)));
    }

    #[test]
    fn a_size_change_under_a_point_is_no_change() {
        let mut l = WindowLayout::default();
        assert!(l.note_size([800.0, 600.0]));
        assert!(!l.note_size([800.4, 600.0]));
        assert!(l.note_size([810.0, 600.0]));
    }
}
