//! Keeping camera frames as labelled dice photos, in the photo-set format the
//! readers are measured on (`labels.json` beside `images/`, as in
//! `../shared/data/FORMAT.md`): `adjutant eval DIR` then scores the dice
//! reader on a player's own table, light and dice, and the photos can join a
//! fitting set. The labels are the dice as the player confirmed them (read,
//! or named with a click), so a frame with an unread die is refused.

use super::eval::EvalError;
use super::scan::DieOut;
use crate::files::{WriteError, write_atomic};
use image::RgbImage;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// JPEG quality of kept frames: close to the camera's own, a few hundred KB
/// per 720p frame.
const JPEG_QUALITY: u8 = 92;

/// Why a frame was not kept.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// A die in the frame is unread: its label would be missing.
    #[error("{0} unread in this frame: name every die first")]
    Unread(String),
    /// The set's `labels.json` exists but is not a photo-set file; it is left
    /// as it is.
    #[error("{0}")]
    Labels(#[from] EvalError),
    /// The set's `labels.json` parses but has no `items` list.
    #[error("{}: no \"items\" list; the file is left as it is", path.display())]
    NotASet {
        /// The labels file.
        path: PathBuf,
    },
    /// The frame could not be encoded.
    #[error("cannot encode the frame: {0}")]
    Encode(#[from] image::ImageError),
    /// A file could not be written.
    #[error("{0}")]
    Write(#[from] WriteError),
}

/// Adds `frame` to the dice photo set in `set_dir` as `images/NAME.jpg`
/// (NAME from `stem`, made unique), labelled with `dice` (boxes `[x, y, w,
/// h]` from each die's centre and size). `unread` is the number of unread
/// dice in the frame: any makes it an error. Creates the set when it does
/// not exist; the image and then `labels.json` are written atomically.
/// Returns the image path.
pub fn keep_dice_photo(
    set_dir: &Path,
    frame: &RgbImage,
    dice: &[DieOut],
    unread: usize,
    stem: &str,
) -> Result<PathBuf, CaptureError> {
    if unread > 0 {
        let what = if unread == 1 {
            "1 die".into()
        } else {
            format!("{unread} dice")
        };
        return Err(CaptureError::Unread(what));
    }
    let labels_path = set_dir.join("labels.json");
    let mut set = match std::fs::read_to_string(&labels_path) {
        Ok(text) => parse_labels(&labels_path, &text)?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => new_set(),
        Err(source) => {
            return Err(EvalError::Io {
                path: labels_path,
                source,
            }
            .into());
        }
    };
    let rel = unique_image_name(set_dir, stem);
    let mut bytes = Vec::new();
    let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut bytes, JPEG_QUALITY);
    frame.write_with_encoder(encoder)?;
    let image_path = set_dir.join(&rel);
    write_atomic(&image_path, &bytes)?;
    let item = json!({
        "image": rel,
        "dice": dice.iter().map(|d| d.value).collect::<Vec<_>>(),
        "boxes": dice.iter().map(|d| {
            let half = d.size / 2.0;
            // A tenth of a pixel is finer than any box the reader gives.
            let px = |v: f32| (f64::from(v) * 10.0).round() / 10.0;
            json!({
                "label": d.value,
                "bbox": [px(d.center[0] - half), px(d.center[1] - half), px(d.size), px(d.size)],
                "what": "die",
            })
        }).collect::<Vec<_>>(),
    });
    match set.get_mut("items").and_then(Value::as_array_mut) {
        Some(items) => items.push(item),
        None => return Err(CaptureError::NotASet { path: labels_path }),
    }
    // `to_string_pretty` of a `Value` cannot fail.
    let text = serde_json::to_string_pretty(&set).unwrap_or_default();
    write_atomic(&labels_path, text.as_bytes())?;
    Ok(image_path)
}

/// The labels file as JSON, or where it is broken.
fn parse_labels(path: &Path, text: &str) -> Result<Value, CaptureError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| EvalError::labels(path.to_path_buf(), &e))?;
    if v.get("items").is_some_and(Value::is_array) {
        Ok(v)
    } else {
        Err(CaptureError::NotASet {
            path: path.to_path_buf(),
        })
    }
}

fn new_set() -> Value {
    json!({
        "source": "frames kept from Adjutant's table view",
        "license": "the player's own photos",
        "notes": "dice labels as the player confirmed them in the table view; boxes are the reader's (what: die)",
        "items": [],
    })
}

/// `images/STEM.jpg`, or `images/STEM-2.jpg` and so on if taken.
fn unique_image_name(set_dir: &Path, stem: &str) -> String {
    let stem: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut rel = format!("images/{stem}.jpg");
    let mut k = 2;
    while set_dir.join(&rel).exists() {
        rel = format!("images/{stem}-{k}.jpg");
        k += 1;
    }
    rel
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::eval::LabelSet;

    fn die(value: u8, x: f32) -> DieOut {
        crate::vision::scan::fixtures::die_at(value, [x, 50.0])
    }

    fn frame() -> RgbImage {
        RgbImage::from_pixel(160, 120, image::Rgb([120, 130, 140]))
    }

    #[test]
    fn kept_frames_form_a_set_eval_reads() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let set = dir.path().join("captures");
        let a = keep_dice_photo(&set, &frame(), &[die(3, 40.0), die(6, 100.0)], 0, "frame 1")
            .unwrap_or_else(|e| panic!("{e}"));
        let b =
            keep_dice_photo(&set, &frame(), &[], 0, "frame 1").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(a, set.join("images/frame_1.jpg"));
        assert_eq!(b, set.join("images/frame_1-2.jpg"));
        assert_eq!(image::open(&a).map(|i| i.width()).ok(), Some(160));
        let labels = LabelSet::load(&set).unwrap_or_else(|e| panic!("{e}"));
        assert!(labels.is_dice());
        assert_eq!(labels.items.len(), 2);
        assert_eq!(labels.items[0].dice, Some(vec![3, 6]));
        assert_eq!(labels.items[0].boxes[1].bbox, [85.0, 35.0, 30.0, 30.0]);
        assert_eq!(labels.items[0].boxes[1].what, "die");
        assert_eq!(
            labels.items[1].dice,
            Some(vec![]),
            "a frame without dice is a negative"
        );
        // The dice fitter's loader reads the same boxes.
        let items = crate::vision::dice::fit::load_set(&set).unwrap_or_else(|e| panic!("{e}"));
        let first = items.iter().find(|i| i.rel == "images/frame_1.jpg");
        let dice = first.map(|i| i.dice.clone()).unwrap_or_default();
        assert_eq!(dice.len(), 2);
        assert_eq!((dice[0].value, dice[0].center), (3, [40.0, 50.0]));
    }

    #[test]
    fn an_unread_die_or_a_broken_labels_file_keeps_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let set = dir.path().join("captures");
        let err = keep_dice_photo(&set, &frame(), &[die(2, 40.0)], 1, "f").err();
        assert!(matches!(err, Some(CaptureError::Unread(_))), "{err:?}");
        assert!(!set.exists(), "nothing written");
        std::fs::create_dir_all(&set).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            set.join("labels.json"),
            "{\"items\": [\n  {\"image\": }\n]}",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let err = keep_dice_photo(&set, &frame(), &[die(2, 40.0)], 0, "f").err();
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.contains("labels.json:2:"),
            "names file and line: {text}"
        );
        assert!(!set.join("images").exists(), "no image without its label");
        std::fs::write(set.join("labels.json"), "{\"pictures\": []}")
            .unwrap_or_else(|e| panic!("{e}"));
        let err = keep_dice_photo(&set, &frame(), &[die(2, 40.0)], 0, "f").err();
        assert!(matches!(err, Some(CaptureError::NotASet { .. })), "{err:?}");
        assert_eq!(
            std::fs::read_to_string(set.join("labels.json")).unwrap_or_default(),
            "{\"pictures\": []}",
            "left as it was"
        );
    }
}
