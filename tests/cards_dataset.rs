//! Accuracy regression guards on the labelled photo sets (shared/data).
//! Skipped with a message when the data is missing; `ADJUTANT_DATA` overrides
//! the data root (default `../shared/data` beside the crate).

use adjutant::vision::cards::faces::{classify_face, face_feature, is_picture_card};
use adjutant::vision::cards::learn::{copy_sarm_singles, learn_deck};
use adjutant::vision::cards::{CardModel, CardReader};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const MODEL: &[u8] = include_bytes!("../models/cards.bin");

fn data_root() -> PathBuf {
    std::env::var("ADJUTANT_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")))
}

/// (image path, codes) for items whose file name starts with `prefix`.
fn labelled(set: &Path, prefix: &str) -> Option<Vec<(PathBuf, Vec<String>)>> {
    let text = std::fs::read_to_string(set.join("labels.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let mut out = Vec::new();
    for it in v["items"].as_array()? {
        let img = it["image"].as_str()?;
        let name = Path::new(img).file_name()?.to_string_lossy().to_string();
        if name.starts_with(prefix) {
            let cards = it["cards"]
                .as_array()?
                .iter()
                .filter_map(|c| c.as_str().map(String::from))
                .collect();
            out.push((set.join(img), cards));
        }
    }
    Some(out)
}

/// (true positives, predicted, labelled) by per-image multiset match.
fn score(reader: &CardReader, items: &[(PathBuf, Vec<String>)]) -> (usize, usize, usize) {
    let (mut tp, mut pred, mut lab) = (0, 0, 0);
    for (path, truth) in items {
        let img = image::open(path).expect("dataset image decodes");
        let scan = reader.read(&img).expect("read");
        let mut want: HashMap<&str, usize> = HashMap::new();
        for t in truth {
            *want.entry(t.as_str()).or_default() += 1;
        }
        for c in &scan.cards {
            if let Some(n) = want.get_mut(c.code.as_str()).filter(|n| **n > 0) {
                *n -= 1;
                tp += 1;
            }
        }
        pred += scan.cards.len();
        lab += truth.len();
    }
    (tp, pred, lab)
}

#[test]
fn general_model_on_edje_test() {
    let set = data_root().join("cards/edje-pinochle-phone");
    let Some(items) = labelled(&set, "test_") else {
        println!("skipped: {} not found", set.display());
        return;
    };
    let reader = CardReader::from_model_bytes(MODEL).expect("model");
    let (tp, pred, lab) = score(&reader, &items);
    let (p, r) = (
        tp as f32 / pred.max(1) as f32,
        tp as f32 / lab.max(1) as f32,
    );
    println!("edje test: precision {p:.3} recall {r:.3}");
    // Reached: precision 0.993, recall 0.951 (README "How well it reads"),
    // with the faint red glyph pass chosen on the development split of
    // train_* (482 -> 486 of 525 correct). The floor was lowered to 0.94 when
    // the stricter blob level read 135 of 143 (0.944); it is back at 0.95.
    // Since the dim outline pass and centre pips (docs/models.md): precision
    // 0.986 (one more wrong read), recall 0.951; floors unchanged. Since the
    // pip check of number cards: precision 0.993 (136 of 137; the wrong one is
    // the Kd label we believe wrong), recall 0.951; precision floor raised.
    // Since the local paper mask and the far-rank rule: precision 0.993 (137
    // of 138), recall 0.958 (137 of 143); recall floor raised to one card
    // below it. Since the crowd ranking of glyph pairs, faint levels at
    // merged-blob corners and the close-pair fallback (round s18): precision
    // 0.993 (139 of 140), recall 0.972 (139 of 143); recall floor raised to
    // one card below it. Since the pip split, the fainter 0.87 level and its
    // pip rescue (round s19): precision 0.993 (140 of 141), recall 0.979 (140
    // of 143); recall floor raised to one card below it. Since picture cards
    // are read from the part of their face that shows at merged-blob corners
    // (round s23): precision 0.993 (142 of 143), recall 0.993 (142 of 143;
    // the one miss is the Kd label we believe wrong); recall floor raised to
    // the 0.98 (one card below the figure reached).
    assert!(p >= 0.99, "precision {p}");
    assert!(r >= 0.98, "recall {r}");
}

#[test]
fn general_model_on_sarm_scenes() {
    let set = data_root().join("cards/sarm-slate-phone");
    let Some(items) = labelled(&set, "scene_") else {
        println!("skipped: {} not found", set.display());
        return;
    };
    let reader = CardReader::from_model_bytes(MODEL).expect("model");
    let (tp, pred, lab) = score(&reader, &items);
    let (p, r) = (
        tp as f32 / pred.max(1) as f32,
        tp as f32 / lab.max(1) as f32,
    );
    println!("sarm scenes, general model: precision {p:.3} recall {r:.3}");
    // Reached: precision 1.000, recall 1.000 (README "How well it reads";
    // 0.981 before the index-first mid ink level). The floor leaves room for
    // one missed card of 53.
    assert!(p >= 0.98, "precision {p}");
    assert!(r >= 0.98, "recall {r}");
}

#[test]
fn taught_deck_on_sarm_scenes() {
    let set = data_root().join("cards/sarm-slate-phone");
    let Some(items) = labelled(&set, "scene_") else {
        println!("skipped: {} not found", set.display());
        return;
    };
    let tmp = std::env::temp_dir().join(format!("adjutant-deck-test-{}", std::process::id()));
    let n = copy_sarm_singles(&set.join("images"), &tmp).expect("copy singles");
    assert_eq!(n, 52);
    let model: CardModel = learn_deck(&tmp).expect("learn deck");
    let _ = std::fs::remove_dir_all(&tmp);
    let reader = CardReader::from_model(model);
    let (tp, pred, lab) = score(&reader, &items);
    let (p, r) = (
        tp as f32 / pred.max(1) as f32,
        tp as f32 / lab.max(1) as f32,
    );
    println!("sarm scenes, taught deck: precision {p:.3} recall {r:.3}");
    // Every court of the deck's single photos is learned by its face too.
    let mut courts: Vec<[u8; 2]> = reader.model().faces.iter().map(|f| f.code).collect();
    courts.sort();
    courts.dedup();
    assert_eq!(courts.len(), 12, "court faces learned: {courts:?}");
    // Reached: precision 1.000, recall 1.000 (README "How well it reads";
    // 0.981 before the index-first mid ink level). The floor leaves room for
    // one missed card of 53.
    assert!(p >= 0.98, "precision {p}");
    assert!(r >= 0.98, "recall {r}");
}

/// The picture-card reader agrees with the index reader: on the held-out
/// edje photos, every court read from its index at a known outline is given
/// to the face classifier (the model's face samples, fitted on `train_*`):
/// it must never name another card, and must name most of them.
#[test]
fn court_faces_agree_with_index_reads_on_edje_test() {
    let set = data_root().join("cards/edje-pinochle-phone");
    let Some(items) = labelled(&set, "test_") else {
        println!("skipped: {} not found", set.display());
        return;
    };
    let model = CardModel::from_bytes(MODEL).expect("model");
    let faces = model.faces.clone();
    let reader = CardReader::from_model(CardModel {
        faces: Vec::new(),
        ..model
    });
    let (mut agree, mut abstain) = (0, 0);
    for (path, _) in &items {
        let img = image::open(path).expect("dataset image decodes");
        let rgb = img.to_rgb8();
        let scan = reader.read(&img).expect("read");
        for card in scan.cards.iter().filter(|c| is_picture_card(&c.code)) {
            let read = face_feature(&rgb, &card.quad).and_then(|f| classify_face(&faces, &f));
            match read {
                Some((code, _)) => {
                    assert_eq!(
                        code,
                        card.code,
                        "{}: face and index disagree",
                        path.display()
                    );
                    agree += 1;
                }
                None => abstain += 1,
            }
        }
    }
    println!("edje test courts: face agrees {agree}, no face read {abstain}");
    // Reached: 37 agree, 34 no read (outlines predicted from one corner, and
    // fanned or covered cards), none disagree.
    assert!(agree >= 34, "face reads {agree}");
}
