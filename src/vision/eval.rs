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
}

impl EvalError {
    /// A `labels.json` that does not parse, with where.
    pub(crate) fn labels(path: PathBuf, e: &serde_json::Error) -> EvalError {
        EvalError::Labels {
            path,
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        }
    }
}

impl LabelSet {
    /// Reads `dir/labels.json`.
    pub fn load(dir: &Path) -> Result<LabelSet, EvalError> {
        let path = dir.join("labels.json");
        let text = std::fs::read_to_string(&path).map_err(|source| EvalError::Io {
            path: path.clone(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| EvalError::labels(path, &e))
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
