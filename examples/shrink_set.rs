//! Writes a copy of a labelled photo set at a lower resolution: every photo
//! shrunk by FACTOR (bilinear, as `image`'s Triangle filter) and saved as PNG
//! (no second JPEG loss), `labels.json` with the new file names and the boxes
//! scaled. A set of small dice, as a webcam far above the table sees them,
//! made from a set of large ones: `adjutant eval` and `../shared/tools/score.py`
//! then measure the readers on it like on any set.
//!
//! `cargo run --release --example shrink_set -- SET_DIR OUT_DIR FACTOR`
//! (e.g. `../shared/data/dice/byler-d6 /tmp/byler-d6-x0.6 0.6`).

use anyhow::{Context, bail};
use image::imageops::{self, FilterType};
use serde_json::Value;
use std::path::Path;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let [_, set, out, factor] = a.as_slice() else {
        bail!("usage: shrink_set SET_DIR OUT_DIR FACTOR");
    };
    let factor: f32 = factor.parse().context("FACTOR")?;
    if !(factor > 0.0 && factor <= 1.0) {
        bail!("FACTOR must be in (0, 1], got {factor}");
    }
    let (set, out) = (Path::new(set), Path::new(out));
    let text = std::fs::read_to_string(set.join("labels.json"))
        .with_context(|| format!("reading {}", set.join("labels.json").display()))?;
    let mut labels: Value = serde_json::from_str(&text)?;
    let note = format!(
        "{} Shrunk to {factor} of the resolution by examples/shrink_set.rs.",
        labels["notes"].as_str().unwrap_or_default()
    );
    labels["notes"] = Value::String(note);
    let items = labels["items"]
        .as_array_mut()
        .context("labels.json has no items")?;
    for item in items {
        let name = item["image"].as_str().context("an item has no image")?;
        let photo = image::open(set.join(name))
            .with_context(|| format!("reading {name}"))?
            .to_rgb8();
        let (w, h) = (
            ((photo.width() as f32 * factor).round() as u32).max(1),
            ((photo.height() as f32 * factor).round() as u32).max(1),
        );
        let small = imageops::resize(&photo, w, h, FilterType::Triangle);
        let png = Path::new(name).with_extension("png");
        let target = out.join(&png);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        small
            .save(&target)
            .with_context(|| format!("writing {}", target.display()))?;
        item["image"] = Value::String(png.to_string_lossy().into_owned());
        if let Some(boxes) = item["boxes"].as_array_mut() {
            for b in boxes {
                if let Some(v) = b["bbox"].as_array_mut() {
                    for x in v.iter_mut() {
                        if let Some(f) = x.as_f64() {
                            *x = Value::from((f * factor as f64 * 10.0).round() / 10.0);
                        }
                    }
                }
            }
        }
    }
    std::fs::create_dir_all(out)?;
    std::fs::write(
        out.join("labels.json"),
        serde_json::to_string_pretty(&labels)?,
    )?;
    Ok(())
}
