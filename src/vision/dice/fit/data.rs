//! The labelled set: its split into parts, its images and labelled dice.

use super::*;

/// Which part of the split an image belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Used to fit the MLP weights.
    Train,
    /// Used to choose the decision thresholds.
    Tune,
    /// Used for nothing (separates fitted images from held-out ones).
    Guard,
    /// Used only for reporting.
    HeldOut,
}

/// Split rule by index in file-name order (250 images): train 0-77 and 121-199,
/// tune 78-92 and 200-214, guard 93-95 and 215-217, held out 96-120 (end of
/// the 2019-12-08 session) and 218-249 (end of the 2019-12-09 session).
pub fn part_of(index: usize) -> Part {
    match index {
        0..=77 | 121..=199 => Part::Train,
        78..=92 | 200..=214 => Part::Tune,
        93..=95 | 215..=217 => Part::Guard,
        _ => Part::HeldOut,
    }
}

/// Halves of the tune part by time, used only to check the final-fit protocol
/// ([`Protocol::CheckFinal`]) without the held-out part: `Some(true)` for
/// half A (78-85, 200-207), `Some(false)` for the later half B (86-92,
/// 208-214, which like the held-out part follows what is fitted on), `None`
/// outside the tune part.
pub fn in_tune_half_a(index: usize) -> Option<bool> {
    match index {
        78..=85 | 200..=207 => Some(true),
        86..=92 | 208..=214 => Some(false),
        _ => None,
    }
}

/// One labelled die.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LabelledDie {
    /// Face value 1-6.
    pub value: u8,
    /// Centre (frame px).
    pub center: [f32; 2],
    /// Box side (frame px).
    pub size: f32,
}

/// One labelled image.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledImage {
    /// Path relative to the set directory, as in labels.json.
    pub rel: String,
    /// Absolute path.
    pub path: PathBuf,
    /// The dice.
    pub dice: Vec<LabelledDie>,
}

#[derive(serde::Deserialize)]
struct RawSet {
    items: Vec<RawItem>,
}

#[derive(serde::Deserialize)]
struct RawItem {
    image: String,
    #[serde(default)]
    boxes: Vec<RawBox>,
}

#[derive(serde::Deserialize)]
struct RawBox {
    label: serde_json::Value,
    bbox: [f32; 4],
}

/// Load `labels.json` of a dice set, sorted by image name.
pub fn load_set(set_dir: &Path) -> Result<Vec<LabelledImage>, VisionError> {
    let lp = set_dir.join("labels.json");
    let text = std::fs::read_to_string(&lp).map_err(|source| VisionError::Io {
        path: lp.to_path_buf(),
        source,
    })?;
    let raw: RawSet = serde_json::from_str(&text).map_err(|e| VisionError::InvalidInput {
        what: format!("{}: {e}", lp.display()),
    })?;
    let mut items: Vec<LabelledImage> = raw
        .items
        .into_iter()
        .map(|it| LabelledImage {
            path: set_dir.join(&it.image),
            dice: it
                .boxes
                .iter()
                .filter_map(|b| {
                    let v = b.label.as_u64()?;
                    (1..=6).contains(&v).then(|| LabelledDie {
                        value: v as u8,
                        center: [b.bbox[0] + b.bbox[2] / 2.0, b.bbox[1] + b.bbox[3] / 2.0],
                        size: (b.bbox[2] + b.bbox[3]) / 2.0,
                    })
                })
                .collect(),
            rel: it.image,
        })
        .collect();
    items.sort_by(|a, b| a.rel.cmp(&b.rel));
    Ok(items)
}

/// Load an image file as 8-bit RGB.
pub fn load_rgb(path: &Path) -> Result<RgbImage, VisionError> {
    let img = crate::vision::image_file::open_image(path)?;
    if img.width() as u64 * img.height() as u64 > MAX_PIXELS {
        return Err(VisionError::ImageTooLarge {
            width: img.width(),
            height: img.height(),
            limit: MAX_PIXELS,
        });
    }
    Ok(img.to_rgb8())
}

/// A loaded image of a set, its labels and its detector candidates.
pub type MinedImage<'a> = (RgbImage, &'a LabelledImage, Vec<Candidate>);

/// The images of one `part` of a set, each loaded with its labelled dice and
/// the candidates `model`'s detector finds on it down to [`MINE_THRESHOLD`]
/// (what the fitter scores thresholds on), in set order.
pub fn mined_part<'a>(
    items: &'a [LabelledImage],
    model: &DiceModel,
    part: Part,
) -> Result<Vec<MinedImage<'a>>, VisionError> {
    let mut out = Vec::new();
    for (i, it) in items.iter().enumerate() {
        if part_of(i) != part {
            continue;
        }
        let img = load_rgb(&it.path)?;
        let cands = find_candidates_reference(
            &prepare(&img),
            &model.detector,
            MINE_THRESHOLD,
            model.nms_factor,
            1,
        );
        out.push((img, it, cands));
    }
    Ok(out)
}
