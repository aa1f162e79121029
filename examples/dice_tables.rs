//! Does the dice reader find and read dice on other tables than the light box
//! it was fitted on? Drawn dice (`vision::dice::synth`, renderer style 1, the
//! one the classifier is fitted with) are placed on real table photos (the
//! byler-d6 light box as the reference, and the card sets' dark slate, wood,
//! carpet and cloth, away from the cards) and the whole frame is read
//! (`vision::dice::tables`). Since the same drawn dice go on every table, a
//! drop from the light-box line is the table's doing.
//!
//! `cargo run --release --example dice_tables -- DATA_ROOT [MODEL|-] [DICE_PER_FRAME] [ROUNDS]`
//! (`DATA_ROOT` is `../shared/data`; defaults 4 dice, 2 rounds). `OUT=DIR`
//! also writes every scene with its reads drawn (green right, red wrong,
//! yellow unread, blue missed, magenta phantom); `FACE=LO,HI` sets the drawn
//! top faces' sides in px. `SCENES=DIR` writes the first round's scenes of
//! every table as a labelled dice set, `DIR/<table>/` with `images/` and
//! `labels.json` in the data sets' format (the photo's own dice included), so
//! `adjutant eval DIR/<table>` and `score.py` score them as whole scans.

use adjutant::vision::dice::DiceReader;
use adjutant::vision::dice::fit::{LabelledDie, Part, load_rgb, load_set, part_of};
use adjutant::vision::dice::tables::{FACE_SIDE, TablePhotos, card_photos, read_drawn_dice};
use adjutant::vision::scan::BUILTIN_DICE_MODEL;
use std::path::{Path, PathBuf};

/// Writes the first round's scene of every photo of `table` (the seeds
/// `read_drawn_dice` uses) as a labelled dice set in `dir`.
fn write_scenes(
    table: &TablePhotos,
    per_frame: usize,
    face_side: (f32, f32),
    dir: &Path,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir.join("images"))?;
    let mut items = Vec::new();
    for (fi, (path, labels)) in table.frames.iter().enumerate() {
        let bare = load_rgb(path)?;
        let (scene, placed) = table.scene(&bare, fi, 0, per_frame, face_side);
        if placed.is_empty() {
            continue;
        }
        let name = format!("images/scene_{fi:03}.png");
        scene.save(dir.join(&name))?;
        let all: Vec<&LabelledDie> = labels.iter().chain(&placed).collect();
        let boxes: Vec<_> = all
            .iter()
            .map(|d| {
                let h = d.size / 2.0;
                serde_json::json!({"label": d.value, "what": "die",
                    "bbox": [d.center[0] - h, d.center[1] - h, d.size, d.size]})
            })
            .collect();
        let values: Vec<u8> = all.iter().map(|d| d.value).collect();
        items.push(serde_json::json!({"image": name, "dice": values, "boxes": boxes}));
    }
    let set = serde_json::json!({
        "source": format!("drawn dice (examples/dice_tables) on {}", table.name),
        "license": "as the photos' set",
        "notes": "synthetic dice drawn by vision::dice::synth on real table photos; boxes are the drawn dice's",
        "items": items,
    });
    std::fs::write(dir.join("labels.json"), serde_json::to_string_pretty(&set)?)?;
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let root = PathBuf::from(a.get(1).map(String::as_str).unwrap_or("../shared/data"));
    let reader = match a.get(2).filter(|m| m.as_str() != "-") {
        Some(m) => DiceReader::from_model_bytes(&std::fs::read(m)?)?,
        None => DiceReader::from_model_bytes(BUILTIN_DICE_MODEL)?,
    };
    let per_frame: usize = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(4);
    let rounds: u64 = a.get(4).and_then(|s| s.parse().ok()).unwrap_or(2);
    let out_dir = std::env::var("OUT").ok().map(PathBuf::from);
    let face_side = std::env::var("FACE")
        .ok()
        .and_then(|s| {
            let (lo, hi) = s.split_once(',')?;
            Some((lo.parse().ok()?, hi.parse().ok()?))
        })
        .unwrap_or(FACE_SIDE);

    let byler = load_set(&root.join("dice/byler-d6"))?;
    let held: Vec<_> = byler
        .iter()
        .enumerate()
        .filter(|(i, _)| part_of(*i) == Part::HeldOut)
        .map(|(_, im)| (im.path.clone(), im.dice.clone()))
        .collect();
    let cards = root.join("cards");
    let edje = cards.join("edje-pinochle-phone/images");
    let tables = [
        TablePhotos {
            name: "light box: byler-d6 held-out photos".into(),
            frames: held,
            avoid_cards: false,
        },
        TablePhotos {
            name: "dark slate: sarm-slate single_*".into(),
            frames: card_photos(&cards.join("sarm-slate-phone/images"), "single_")?,
            avoid_cards: true,
        },
        TablePhotos {
            name: "wood, carpet, cloth: edje test_*".into(),
            frames: card_photos(&edje, "test_")?,
            avoid_cards: true,
        },
        TablePhotos {
            name: "wood grain (scenes fitted since round s30): edje train_cam*".into(),
            frames: card_photos(&edje, "train_cam")?,
            avoid_cards: true,
        },
    ];
    println!(
        "{per_frame} drawn dice per frame, {rounds} rounds; right / wrong / unread / missed of the drawn dice; phantoms per frame with and without them"
    );
    let scenes_dir = std::env::var("SCENES").ok().map(PathBuf::from);
    for table in &tables {
        if let Some(dir) = &scenes_dir {
            let slug: String = table
                .name
                .split([':', '('])
                .next()
                .unwrap_or("table")
                .trim()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            write_scenes(table, per_frame, face_side, &dir.join(slug))?;
        }
        let shown = out_dir.as_deref();
        let t = read_drawn_dice(&reader, table, per_frame, rounds, face_side, shown)?;
        println!("{}: {}", table.name, t.summary(table.frames.len()));
    }
    Ok(())
}
