//! How the dice reader does on other tables than the light box of its photo
//! set: drawn dice ([`super::synth::draw_scene`]) are placed on real table photos
//! and the whole frame is read. The same drawn dice go on every table, so a
//! table that reads worse than the light box does so because of the table.
//! Used by `examples/dice_tables` and `tests/dice_other_tables.rs`
//! (`docs/models.md`, round s30).

use std::path::{Path, PathBuf};

use image::{Rgb, RgbImage};

use super::fit::{LabelledDie, load_rgb};
use super::mlp::XorShift;
use super::synth::draw_scene;
use super::{DiceReader, DiceScan};
use crate::vision::error::VisionError;
use crate::vision::geometry::dist;

/// A read belongs to a drawn die when its centre is this close (share of the
/// die's side).
const MATCH_SHARE: f32 = 0.5;

/// Range of the drawn top faces' sides (px): with their side faces, boxes of
/// about 22-50 px, as most byler-d6 held-out dice.
pub const FACE_SIDE: (f32, f32) = (20.0, 36.0);

/// Photos of one table: each photo with the labelled dice already on it
/// (kept clear of, and not counted as phantoms).
#[derive(Debug, Clone)]
pub struct TablePhotos {
    /// What the table is, for reports.
    pub name: String,
    /// The photos and their own dice.
    pub frames: Vec<(PathBuf, Vec<LabelledDie>)>,
    /// Card photos: keep the drawn dice off white card faces.
    pub avoid_cards: bool,
}

impl TablePhotos {
    /// The scene of round `round` on photo `index` (already loaded as
    /// `bare`): the same dice for the same index and round, whoever draws it.
    pub fn scene(
        &self,
        bare: &RgbImage,
        index: usize,
        round: u64,
        per_frame: usize,
        face_side: (f32, f32),
    ) -> (RgbImage, Vec<LabelledDie>) {
        let labels = self.frames.get(index).map_or(&[][..], |f| &f.1[..]);
        let mut rng = XorShift::new(1 + index as u64 * 1000 + round);
        draw_scene(
            &mut rng,
            bare,
            per_frame,
            face_side,
            labels,
            self.avoid_cards,
        )
    }
}

/// What became of the drawn dice on one table.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TableTally {
    /// Scenes read (photos with at least one die drawn, times rounds).
    pub frames: usize,
    /// Dice drawn.
    pub placed: usize,
    /// Read with the drawn value.
    pub right: usize,
    /// Read with another value.
    pub wrong: usize,
    /// Found but reported unread.
    pub unread: usize,
    /// Not found at all.
    pub missed: usize,
    /// Reads on no drawn and no labelled die, over all scenes.
    pub phantoms: usize,
    /// The same on the photos without drawn dice, over all photos.
    pub bare_phantoms: usize,
}

impl TableTally {
    /// Share of the drawn dice the reader found (read or unread).
    pub fn found_share(&self) -> f64 {
        (self.placed - self.missed) as f64 / self.placed.max(1) as f64
    }

    /// Share of the drawn dice read right.
    pub fn right_share(&self) -> f64 {
        self.right as f64 / self.placed.max(1) as f64
    }

    /// One line: the shares of right, wrong, unread and missed dice and the
    /// phantoms per frame.
    pub fn summary(&self, photos: usize) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.placed.max(1) as f64;
        format!(
            "{} frames of {} photos, {} dice: right {:.1} %, wrong {:.1} %, unread {:.1} %, missed {:.1} %; phantoms per frame {:.2} (bare photos {:.2})",
            self.frames,
            photos,
            self.placed,
            pct(self.right),
            pct(self.wrong),
            pct(self.unread),
            pct(self.missed),
            self.phantoms as f64 / self.frames.max(1) as f64,
            self.bare_phantoms as f64 / photos.max(1) as f64,
        )
    }
}

/// The photos of a card set whose file names start with `prefix`, sorted,
/// with no dice of their own.
pub fn card_photos(
    dir: &Path,
    prefix: &str,
) -> Result<Vec<(PathBuf, Vec<LabelledDie>)>, VisionError> {
    let rd = std::fs::read_dir(dir).map_err(|source| VisionError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .map(|p| (p, Vec::new()))
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Every read of a scan as (centre, value; 0 = found but unread).
fn reads(scan: &DiceScan) -> Vec<([f32; 2], u8)> {
    let mut v: Vec<_> = scan.dice.iter().map(|d| (d.center, d.value)).collect();
    v.extend(scan.unread.iter().map(|u| (u.center, 0)));
    v
}

/// Reads not on any labelled die of the photo itself.
fn off_labels(r: &[([f32; 2], u8)], labels: &[LabelledDie]) -> Vec<([f32; 2], u8)> {
    r.iter()
        .copied()
        .filter(|(c, _)| {
            !labels
                .iter()
                .any(|d| dist(*c, d.center) < MATCH_SHARE * d.size + 4.0)
        })
        .collect()
}

fn mark(img: &mut RgbImage, c: [f32; 2], half: f32, colour: Rgb<u8>) {
    let side = (2.0 * half).max(2.0) as u32;
    let r =
        imageproc::rect::Rect::at((c[0] - half) as i32, (c[1] - half) as i32).of_size(side, side);
    imageproc::drawing::draw_hollow_rect_mut(img, r, colour);
}

/// Draw `per_frame` dice on every photo of `table`, `rounds` times with
/// fixed seeds, read each scene and tally the drawn dice. With `shown`, every
/// scene is also written there with its outcome drawn (green right, red
/// wrong, yellow unread, blue missed, magenta phantom).
pub fn read_drawn_dice(
    reader: &DiceReader,
    table: &TablePhotos,
    per_frame: usize,
    rounds: u64,
    face_side: (f32, f32),
    shown: Option<&Path>,
) -> Result<TableTally, VisionError> {
    let mut t = TableTally::default();
    for (fi, (path, labels)) in table.frames.iter().enumerate() {
        let bare = load_rgb(path)?;
        let bare_reads = reads(&reader.read_rgb(&bare));
        t.bare_phantoms += off_labels(&bare_reads, labels).len();
        for round in 0..rounds {
            let (frame, placed) = table.scene(&bare, fi, round, per_frame, face_side);
            if placed.is_empty() {
                continue;
            }
            t.frames += 1;
            t.placed += placed.len();
            let scan = reader.read_rgb(&frame);
            let mut left = off_labels(&reads(&scan), labels);
            let mut picture = shown.map(|_| frame);
            for d in &placed {
                let near = left
                    .iter()
                    .enumerate()
                    .map(|(i, (c, _))| (dist(*c, d.center), i))
                    .filter(|(e, _)| *e < MATCH_SHARE * d.size)
                    .min_by(|x, y| x.0.total_cmp(&y.0));
                let colour = match near {
                    Some((_, i)) => {
                        let (_, v) = left.swap_remove(i);
                        if v == d.value {
                            t.right += 1;
                            Rgb([0, 220, 0])
                        } else if v == 0 {
                            t.unread += 1;
                            Rgb([240, 220, 0])
                        } else {
                            t.wrong += 1;
                            Rgb([255, 0, 0])
                        }
                    }
                    None => {
                        t.missed += 1;
                        Rgb([0, 80, 255])
                    }
                };
                if let Some(img) = picture.as_mut() {
                    mark(img, d.center, d.size / 2.0 + 2.0, colour);
                }
            }
            t.phantoms += left.len();
            if let (Some(mut img), Some(dir)) = (picture, shown) {
                for (c, _) in &left {
                    mark(&mut img, *c, 12.0, Rgb([255, 0, 255]));
                }
                std::fs::create_dir_all(dir).map_err(|source| VisionError::Io {
                    path: dir.to_path_buf(),
                    source,
                })?;
                let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("frame");
                let file = dir.join(format!("{stem}_{round}.png"));
                img.save(&file).map_err(|e| VisionError::InvalidInput {
                    what: format!("writing {}: {e}", file.display()),
                })?;
            }
        }
    }
    Ok(t)
}
