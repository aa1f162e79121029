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
//! top faces' sides in px.

use adjutant::vision::dice::DiceReader;
use adjutant::vision::dice::fit::{Part, load_set, part_of};
use adjutant::vision::dice::tables::{FACE_SIDE, TablePhotos, card_photos, read_drawn_dice};
use adjutant::vision::scan::BUILTIN_DICE_MODEL;
use std::path::PathBuf;

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
    for table in &tables {
        let shown = out_dir.as_deref();
        let t = read_drawn_dice(&reader, table, per_frame, rounds, face_side, shown)?;
        println!("{}: {}", table.name, t.summary(table.frames.len()));
    }
    Ok(())
}
