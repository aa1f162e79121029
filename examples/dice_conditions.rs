//! How the dice reader holds up when the same photos are taken another way:
//! each photo of a part of a labelled dice set is read as taken, turned by a
//! quarter, half and three quarters, dimmer, brighter, under warm and cool
//! light, with a flatter or steeper tone curve, at 0.6 of its resolution and
//! recompressed as a low-quality JPEG. Prints the `adjutant eval` figures
//! ([`eval::score`]) of each condition, so a reader that depends on the
//! table's orientation or light shows as a drop from the first line.
//!
//! `cargo run --release --example dice_conditions -- SET_DIR [held|tune|train|all] [MODEL]`
//! (parts as in `fit-dice`'s byler-d6 split; `all` reads every photo).

use adjutant::vision::dice::DiceReader;
use adjutant::vision::dice::fit::{Part, load_rgb, part_of};
use adjutant::vision::eval::{self, ImageResult, LabelSet};
use adjutant::vision::scan::BUILTIN_DICE_MODEL;
use image::{RgbImage, imageops};

/// A way of taking the photo again.
type Condition = (&'static str, fn(&RgbImage) -> RgbImage);

/// Every channel through `f`.
fn map_channels(img: &RgbImage, f: impl Fn(usize, f32) -> f32) -> RgbImage {
    let mut out = img.clone();
    for p in out.pixels_mut() {
        for (c, v) in p.0.iter_mut().enumerate() {
            *v = f(c, *v as f32).round().clamp(0.0, 255.0) as u8;
        }
    }
    out
}

fn low_res(img: &RgbImage) -> RgbImage {
    let (w, h) = (img.width() * 3 / 5, img.height() * 3 / 5);
    imageops::resize(img, w.max(1), h.max(1), imageops::FilterType::Triangle)
}

fn jpeg(img: &RgbImage) -> RgbImage {
    let mut bytes = Vec::new();
    let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, 35);
    if img.write_with_encoder(enc).is_err() {
        return img.clone();
    }
    image::load_from_memory(&bytes)
        .map(|d| d.to_rgb8())
        .unwrap_or_else(|_| img.clone())
}

fn low_res_back(img: &RgbImage) -> RgbImage {
    imageops::resize(
        &low_res(img),
        img.width(),
        img.height(),
        imageops::FilterType::Triangle,
    )
}

fn half_res(img: &RgbImage) -> RgbImage {
    imageops::resize(
        img,
        img.width() / 2,
        img.height() / 2,
        imageops::FilterType::Triangle,
    )
}

fn dim(img: &RgbImage) -> RgbImage {
    map_channels(img, |_, v| v * 0.55)
}

fn dim_stretched(img: &RgbImage) -> RgbImage {
    map_channels(&dim(img), |_, v| v / 0.55)
}

const CONDITIONS: [Condition; 15] = [
    ("as taken", |i| i.clone()),
    ("turned 90", imageops::rotate90),
    ("turned 180", imageops::rotate180),
    ("turned 270", imageops::rotate270),
    ("dim (x0.55)", dim),
    ("bright (x1.3)", |i| map_channels(i, |_, v| v * 1.3)),
    ("warm light", |i| {
        map_channels(i, |c, v| v * [1.08, 0.97, 0.75][c])
    }),
    ("cool light", |i| {
        map_channels(i, |c, v| v * [0.8, 0.95, 1.08][c])
    }),
    ("flat tones (gamma 0.7)", |i| {
        map_channels(i, |_, v| 255.0 * (v / 255.0).powf(0.7))
    }),
    ("low resolution (x0.6)", low_res),
    ("JPEG quality 35", jpeg),
    ("low res, scaled back up", low_res_back),
    ("half resolution", half_res),
    ("dimmer (x0.75)", |i| map_channels(i, |_, v| v * 0.75)),
    ("dim, stretched back", dim_stretched),
];

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let set = a.get(1).ok_or_else(|| {
        anyhow::anyhow!("usage: dice_conditions SET_DIR [held|tune|train|all] [MODEL]")
    })?;
    let part = match a.get(2).map(String::as_str) {
        Some("tune") => Some(Part::Tune),
        Some("train") => Some(Part::Train),
        Some("all") => None,
        _ => Some(Part::HeldOut),
    };
    let bytes = match a.get(3) {
        Some(p) => std::fs::read(p)?,
        None => BUILTIN_DICE_MODEL.to_vec(),
    };
    let reader = DiceReader::from_model_bytes(&bytes)?;
    let dir = std::path::Path::new(set);
    // In name order, as the fitter's split numbers them.
    let mut labels = LabelSet::load(dir)?;
    labels.items.sort_by(|a, b| a.image.cmp(&b.image));
    let items: Vec<_> = labels
        .items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| part.is_none_or(|p| part_of(*i) == p))
        .map(|(_, item)| item)
        .collect();
    let photos = items
        .iter()
        .map(|item| load_rgb(&dir.join(&item.image)))
        .collect::<Result<Vec<_>, _>>()?;
    let set = LabelSet {
        source: String::new(),
        items,
    };
    for (name, take) in CONDITIONS {
        let results: Vec<ImageResult> = photos
            .iter()
            .map(|p| {
                let scan = reader.read_rgb(&take(p));
                ImageResult {
                    predicted: scan.dice.iter().map(|d| d.value.to_string()).collect(),
                    unread: scan.unread.len(),
                    ..ImageResult::default()
                }
            })
            .collect();
        let s = eval::score(name, &set, &results);
        println!(
            "{name:<24} exact {:5.1}%  precision {:5.1}%  recall {:5.1}%  ({} right, {} wrong, {} unread, of {} dice in {} images)",
            100.0 * s.exact,
            100.0 * s.precision,
            100.0 * s.recall,
            s.tp,
            s.predicted - s.tp,
            results.iter().map(|r| r.unread).sum::<usize>(),
            s.labelled,
            s.images
        );
    }
    Ok(())
}
