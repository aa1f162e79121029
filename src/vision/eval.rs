//! Measuring the readers on labelled photo sets (`../shared/data/FORMAT.md`):
//! per-item precision and recall by multiset match per image, exact-read rate,
//! confusions, unread counts and time per image.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One labelled image of a set.
#[derive(Debug, Clone, Deserialize)]
pub struct LabelledItem {
    /// Image path relative to the set directory.
    pub image: String,
    /// Card codes visible (card sets).
    #[serde(default)]
    pub cards: Option<Vec<String>>,
    /// Dice up faces (dice sets).
    #[serde(default)]
    pub dice: Option<Vec<u8>>,
    /// Boxes from the source's annotations, when it had them.
    #[serde(default)]
    pub boxes: Vec<LabelBox>,
}

/// A pixel box around a labelled object.
#[derive(Debug, Clone, Deserialize)]
pub struct LabelBox {
    /// Card code (string) or die face (number).
    pub label: serde_json::Value,
    /// `[x, y, w, h]` in pixels.
    pub bbox: [f32; 4],
    /// What the box covers: `card`, `corner` or `die`.
    #[serde(default)]
    pub what: String,
}

/// A `labels.json` file.
#[derive(Debug, Clone, Deserialize)]
pub struct LabelSet {
    /// Where the images come from.
    #[serde(default)]
    pub source: String,
    /// The images.
    pub items: Vec<LabelledItem>,
}

/// Why a set could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// `labels.json` missing or unreadable.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// OS error.
        source: std::io::Error,
    },
    /// `labels.json` is not valid.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Labels {
        /// The file.
        path: PathBuf,
        /// Line.
        line: usize,
        /// Column.
        column: usize,
        /// Parser message.
        message: String,
    },
    /// An item labels something no card or die can be.
    #[error("{}: item {item} ({image}): {message}", path.display())]
    BadItem {
        /// The file.
        path: PathBuf,
        /// The item's number, from 1.
        item: usize,
        /// Its image.
        image: String,
        /// What is wrong.
        message: String,
    },
}

impl EvalError {
    /// A `labels.json` that does not parse, with where.
    pub(crate) fn labels(path: PathBuf, e: &serde_json::Error) -> EvalError {
        // The position leads the message; serde_json's own copy of it at
        // the end would say it twice.
        let said = e.to_string();
        let tail = format!(" at line {} column {}", e.line(), e.column());
        EvalError::Labels {
            path,
            line: e.line(),
            column: e.column(),
            message: said.strip_suffix(&tail).unwrap_or(&said).to_string(),
        }
    }
}

impl LabelSet {
    /// Reads `dir/labels.json`.
    pub fn load(dir: &Path) -> Result<LabelSet, EvalError> {
        let path = dir.join("labels.json");
        let not_a_set = |why: &str| EvalError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, why),
        };
        if !dir.is_dir() {
            return Err(not_a_set(
                "no such folder (a set is a folder holding labels.json)",
            ));
        }
        if !path.is_file() {
            return Err(not_a_set(
                "no labels.json here (a set is a folder holding labels.json; see FORMAT.md)",
            ));
        }
        let text = std::fs::read_to_string(&path).map_err(|source| EvalError::Io {
            path: path.clone(),
            source,
        })?;
        if text.trim().is_empty() {
            return Err(EvalError::Io {
                path,
                source: std::io::Error::new(std::io::ErrorKind::InvalidData, "the file is empty"),
            });
        }
        let set: LabelSet =
            serde_json::from_str(&text).map_err(|e| EvalError::labels(path.clone(), &e))?;
        set.check(&path)?;
        Ok(set)
    }

    /// Refuses labels no reader could match: a die face outside 1-6, a
    /// card code that names no card (`XX`, a joker of unknown colour, is
    /// allowed), an item with both or neither of cards and dice, a set
    /// mixing card and dice items, an image listed twice, and (once the
    /// labels themselves are sound) an image file that is not there.
    fn check(&self, path: &Path) -> Result<(), EvalError> {
        let dice_set = self.is_dice();
        let mut seen = std::collections::BTreeSet::new();
        for (i, it) in self.items.iter().enumerate() {
            let bad = |message: String| EvalError::BadItem {
                path: path.to_path_buf(),
                item: i + 1,
                image: it.image.clone(),
                message,
            };
            if !seen.insert(it.image.as_str()) {
                return Err(bad("the image is listed twice".into()));
            }
            match (&it.cards, &it.dice) {
                (Some(_), Some(_)) => {
                    return Err(bad(
                        "both `cards` and `dice`: one set labels one kind".into()
                    ));
                }
                (None, None) => return Err(bad("neither `cards` nor `dice`".into())),
                (Some(_), None) if dice_set => {
                    return Err(bad("`cards` in a dice set: one set labels one kind".into()));
                }
                (Some(cards), None) => {
                    if let Some(c) = cards
                        .iter()
                        .find(|c| *c != "XX" && c.parse::<crate::table::Card>().is_err())
                    {
                        return Err(bad(format!(
                            "`{c}` is not a card code (rank A 2-9 T J Q K and suit s h d c, or XR / XB / XX)"
                        )));
                    }
                }
                (None, Some(dice)) => {
                    if let Some(d) = dice.iter().find(|d| !(1..=6).contains(*d)) {
                        return Err(bad(format!("die face {d} is not 1 to 6")));
                    }
                }
            }
        }
        // A labelled image that is not there would count its labels as
        // missed and lower the scores without a word.
        let dir = path.parent().unwrap_or(Path::new("."));
        if let Some((i, it)) = self
            .items
            .iter()
            .enumerate()
            .find(|(_, it)| !dir.join(&it.image).is_file())
        {
            return Err(EvalError::BadItem {
                path: path.to_path_buf(),
                item: i + 1,
                image: it.image.clone(),
                message: format!("no such image file ({})", dir.join(&it.image).display()),
            });
        }
        Ok(())
    }

    /// True when the set labels dice rather than cards.
    pub fn is_dice(&self) -> bool {
        self.items.iter().any(|i| i.dice.is_some())
    }
}

/// What a reader said about one image, reduced to what is scored.
#[derive(Debug, Clone, Default)]
pub struct ImageResult {
    /// Labels predicted (card codes, or dice faces as text).
    pub predicted: Vec<String>,
    /// Objects found but not read.
    pub unread: usize,
    /// Recognition time, decode excluded.
    pub ms: f64,
    /// Set when the image could not be processed.
    pub error: Option<String>,
}

/// Scores of one set.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SetScore {
    /// Set name (directory name).
    pub set: String,
    /// "cards" or "dice".
    pub kind: String,
    /// Images scored.
    pub images: usize,
    /// Labelled objects.
    pub labelled: usize,
    /// Predicted objects.
    pub predicted: usize,
    /// Correct predictions (multiset intersection per image).
    pub tp: usize,
    /// tp / predicted.
    pub precision: f64,
    /// tp / labelled.
    pub recall: f64,
    /// Share of images read exactly.
    pub exact: f64,
    /// Objects found but unread.
    pub unread: usize,
    /// Images that failed to load or read.
    pub errors: usize,
    /// Median ms per image.
    pub ms_median: f64,
    /// 95th percentile ms per image.
    pub ms_p95: f64,
    /// Most frequent confusions "truth->predicted" (or "->none").
    pub top_confusions: Vec<(String, usize)>,
    /// For dice: `counts[truth-1][predicted-1]` over matched pairs.
    pub dice_confusion: Option<[[usize; 6]; 6]>,
}

fn counts(v: &[String]) -> BTreeMap<&str, usize> {
    let mut m = BTreeMap::new();
    for x in v {
        *m.entry(x.as_str()).or_insert(0) += 1;
    }
    m
}

/// Scores results against labels, the same way `shared/tools/score.py` does.
pub fn score(set: &str, labels: &LabelSet, results: &[ImageResult]) -> SetScore {
    let dice = labels.is_dice();
    let (mut tp, mut lab_n, mut pred_n, mut exact, mut unread, mut errors) = (0, 0, 0, 0, 0, 0);
    let mut confusions: BTreeMap<String, usize> = BTreeMap::new();
    let mut matrix = [[0usize; 6]; 6];
    let mut ms: Vec<f64> = Vec::new();
    for (item, res) in labels.items.iter().zip(results) {
        let truth: Vec<String> = if dice {
            item.dice.iter().flatten().map(|d| d.to_string()).collect()
        } else {
            item.cards.iter().flatten().cloned().collect()
        };
        let (t, p) = (counts(&truth), counts(&res.predicted));
        let hit: usize = t
            .iter()
            .map(|(k, n)| (*n).min(p.get(k).copied().unwrap_or(0)))
            .sum();
        tp += hit;
        lab_n += truth.len();
        pred_n += res.predicted.len();
        unread += res.unread;
        errors += usize::from(res.error.is_some());
        exact += usize::from(t == p);
        if res.error.is_none() {
            ms.push(res.ms);
        }
        // Pair each lost label with an extra prediction, in sorted order (as score.py).
        let mut lost: Vec<&str> = Vec::new();
        for (k, n) in &t {
            lost.extend(std::iter::repeat_n(
                *k,
                n.saturating_sub(p.get(k).copied().unwrap_or(0)),
            ));
        }
        let mut extra: Vec<&str> = Vec::new();
        for (k, n) in &p {
            extra.extend(std::iter::repeat_n(
                *k,
                n.saturating_sub(t.get(k).copied().unwrap_or(0)),
            ));
        }
        let mut extra = extra.into_iter();
        for a in lost {
            let b = extra.next();
            *confusions
                .entry(format!("{a}->{}", b.unwrap_or("none")))
                .or_insert(0) += 1;
            if dice
                && let (Ok(x), Some(Ok(y))) = (a.parse::<usize>(), b.map(str::parse::<usize>))
                && (1..=6).contains(&x)
                && (1..=6).contains(&y)
            {
                matrix[x - 1][y - 1] += 1;
            }
        }
        if dice {
            for (k, n) in &t {
                if let Ok(x) = k.parse::<usize>()
                    && (1..=6).contains(&x)
                {
                    matrix[x - 1][x - 1] += (*n).min(p.get(k).copied().unwrap_or(0));
                }
            }
        }
    }
    ms.sort_by(f64::total_cmp);
    let pct = |q: f64| -> f64 {
        if ms.is_empty() {
            return 0.0;
        }
        let i = ((q * ms.len() as f64) as usize).min(ms.len() - 1);
        ms[i]
    };
    let median = if ms.is_empty() {
        0.0
    } else if ms.len() % 2 == 1 {
        ms[ms.len() / 2]
    } else {
        (ms[ms.len() / 2 - 1] + ms[ms.len() / 2]) / 2.0
    };
    let mut top: Vec<(String, usize)> = confusions.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    top.truncate(8);
    let n = labels.items.len();
    let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    SetScore {
        set: set.to_string(),
        kind: if dice { "dice" } else { "cards" }.into(),
        images: n,
        labelled: lab_n,
        predicted: pred_n,
        tp,
        precision: ratio(tp, pred_n),
        recall: ratio(tp, lab_n),
        exact: ratio(exact, n),
        unread,
        errors,
        ms_median: median,
        ms_p95: pct(0.95),
        top_confusions: top,
        dice_confusion: dice.then_some(matrix),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(cards: &[&str]) -> LabelledItem {
        LabelledItem {
            image: "x.jpg".into(),
            cards: Some(cards.iter().map(|s| s.to_string()).collect()),
            dice: None,
            boxes: vec![],
        }
    }

    fn res(p: &[&str]) -> ImageResult {
        ImageResult {
            predicted: p.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    /// Writes `json` as a set's labels and loads it; the error, if any.
    fn load_error(json: &str) -> Option<String> {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("labels.json"), json).unwrap_or_else(|e| panic!("{e}"));
        LabelSet::load(dir.path()).err().map(|e| e.to_string())
    }

    #[test]
    fn labels_no_reader_could_match_are_refused_by_item() {
        let cases = [
            (
                r#"{"items":[{"image":"a.jpg","dice":[3]},{"image":"b.jpg","dice":[9,0]}]}"#,
                "item 2 (b.jpg): die face 9 is not 1 to 6",
            ),
            (
                r#"{"items":[{"image":"a.jpg","cards":["As","Zz"]}]}"#,
                "item 1 (a.jpg): `Zz` is not a card code",
            ),
            (
                r#"{"items":[{"image":"a.jpg","cards":["As"],"dice":[1]}]}"#,
                "both `cards` and `dice`",
            ),
            (
                r#"{"items":[{"image":"a.jpg"}]}"#,
                "neither `cards` nor `dice`",
            ),
            (
                r#"{"items":[{"image":"a.jpg","dice":[1]},{"image":"b.jpg","cards":[]}]}"#,
                "item 2 (b.jpg): `cards` in a dice set",
            ),
            (
                r#"{"items":[{"image":"a.jpg","cards":["As"]},{"image":"a.jpg","cards":["Kh"]}]}"#,
                "item 2 (a.jpg): the image is listed twice",
            ),
        ];
        for (json, said) in cases {
            let err = load_error(json);
            assert!(
                err.as_deref()
                    .is_some_and(|e| e.contains("labels.json: ") && e.contains(said)),
                "{json}: {err:?}"
            );
        }
        // Where a file does not parse is said once; an empty file and a
        // missing folder say so.
        let err = load_error(r#"{"items":[],}"#).unwrap_or_default();
        assert!(err.ends_with("labels.json:1:13: trailing comma"), "{err}");
        let err = load_error("  ").unwrap_or_default();
        assert!(err.ends_with("labels.json: the file is empty"), "{err}");
        let err = LabelSet::load(Path::new("/no/such/set"))
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("/no/such/set: no such folder (a set is a folder holding labels.json)")
        );
        let bare = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let err = LabelSet::load(bare.path()).err().map(|e| e.to_string());
        assert!(
            err.as_deref().is_some_and(|e| e.ends_with(
                "no labels.json here (a set is a folder holding labels.json; see FORMAT.md)"
            )),
            "{err:?}"
        );
        // Jokers of unknown colour, tens typed as 10 and empty tables are
        // fine, once the images are there.
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let labels = r#"{"items":[{"image":"a.jpg","cards":["XX","10h","Th"]},{"image":"b.jpg","cards":[]}]}"#;
        std::fs::write(dir.path().join("labels.json"), labels).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("a.jpg"), b"x").unwrap_or_else(|e| panic!("{e}"));
        let err = LabelSet::load(dir.path()).err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.contains("item 2 (b.jpg): no such image file")),
            "{err:?}"
        );
        std::fs::write(dir.path().join("b.jpg"), b"x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            LabelSet::load(dir.path()).err().map(|e| e.to_string()),
            None
        );
    }

    /// Every shipped photo set's labels pass the checks (skipped, saying
    /// so, without `../shared/data`).
    #[test]
    fn the_shared_sets_labels_pass_the_checks() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data");
        if !root.exists() {
            eprintln!("skipped: {} is not here", root.display());
            return;
        }
        for kind in ["cards", "dice"] {
            let Ok(sets) = std::fs::read_dir(root.join(kind)) else {
                continue;
            };
            for set in sets.filter_map(Result::ok) {
                if set.path().join("labels.json").exists() {
                    let loaded = LabelSet::load(&set.path());
                    assert!(loaded.is_ok(), "{:?}", loaded.err().map(|e| e.to_string()));
                }
            }
        }
    }

    #[test]
    fn multiset_scoring_matches_score_py() {
        let labels = LabelSet {
            source: String::new(),
            items: vec![item(&["As", "As", "Kh"]), item(&["2c"]), item(&[])],
        };
        let results = [res(&["As", "Kd"]), res(&["2c"]), res(&["3s"])];
        let s = score("t", &labels, &results);
        assert_eq!((s.labelled, s.predicted, s.tp), (4, 4, 2));
        assert!((s.precision - 0.5).abs() < 1e-9);
        assert!((s.recall - 0.5).abs() < 1e-9);
        assert!((s.exact - 1.0 / 3.0).abs() < 1e-9);
        assert!(s.top_confusions.contains(&("As->Kd".to_string(), 1)));
        assert!(s.top_confusions.contains(&("Kh->none".to_string(), 1)));
    }

    #[test]
    fn dice_confusion_matrix() {
        let labels = LabelSet {
            source: String::new(),
            items: vec![LabelledItem {
                image: "d.jpg".into(),
                cards: None,
                dice: Some(vec![6, 6, 1]),
                boxes: vec![],
            }],
        };
        let s = score("d", &labels, &[res(&["6", "5", "1"])]);
        let m = s.dice_confusion.unwrap_or([[0; 6]; 6]);
        assert_eq!(m[5][5], 1);
        assert_eq!(m[5][4], 1);
        assert_eq!(m[0][0], 1);
        assert_eq!(s.kind, "dice");
    }
}
