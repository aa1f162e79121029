//! One scan of one image with both readers, in the shape of the
//! `adjutant scan --json` contract.

use super::cards::{CardModel, CardReader, CardScan};
use super::dice::scale::{DiceScale, READ_SCALES, ScaleCalibration, Sighting};
use super::dice::{DiceReader, DiceScan, DieRead, UnreadDie};
use super::error::VisionError;
use super::geometry::Point;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The general card model shipped with Adjutant.
pub const BUILTIN_CARD_MODEL: &[u8] = include_bytes!("../../models/cards.bin");
/// The dice model shipped with Adjutant.
pub const BUILTIN_DICE_MODEL: &[u8] = include_bytes!("../../models/dice.bin");

/// A card read, as printed.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CardOut {
    /// Card code (`As`, `Th`, `XR`).
    pub code: String,
    /// Outline corners in image pixels.
    pub quad: [Point; 4],
    /// Confidence in [0, 1].
    pub confidence: f32,
}

impl CardOut {
    /// Centre of its outline.
    pub fn centre(&self) -> Point {
        crate::vision::Quad(self.quad).centre()
    }

    /// Its long side (the card's length in the picture).
    pub fn length(&self) -> f32 {
        let q = crate::vision::Quad(self.quad);
        q.side(0).max(q.side(1))
    }
}

/// An outline found but not read.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QuadOut {
    /// Outline corners in image pixels.
    pub quad: [Point; 4],
}

/// A face-down card.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BackOut {
    /// "red", "blue" or "other".
    pub colour: String,
    /// Outline corners in image pixels.
    pub quad: [Point; 4],
}

/// A die read.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DieOut {
    /// Up face 1-6.
    pub value: u8,
    /// Centre in image pixels.
    pub center: Point,
    /// Side in pixels.
    pub size: f32,
    /// Confidence in [0, 1].
    pub confidence: f32,
}

/// A die found but not read.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnreadDieOut {
    /// Centre in image pixels.
    pub center: Point,
    /// Side in pixels.
    pub size: f32,
}

impl ScanRecord {
    /// The dice of this record as [`Sighting`]s (unread ones at confidence 0).
    pub fn dice_sightings(&self) -> Vec<Sighting> {
        Sighting::of_dice(
            self.dice.iter().map(|d| (d.center, d.size, d.confidence)),
            self.unread_dice.iter().map(|u| (u.center, u.size)),
        )
    }
}

impl From<&DieRead> for DieOut {
    fn from(d: &DieRead) -> DieOut {
        DieOut {
            value: d.value,
            center: d.center,
            size: d.size,
            confidence: d.confidence,
        }
    }
}

impl From<&UnreadDie> for UnreadDieOut {
    fn from(d: &UnreadDie) -> UnreadDieOut {
        UnreadDieOut {
            center: d.center,
            size: d.size,
        }
    }
}

/// Everything read in one image (one JSON line of `scan --json`).
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ScanRecord {
    /// The image path as given.
    pub image: String,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Recognition time in milliseconds (decode excluded).
    pub ms: f64,
    /// Cards read.
    pub cards: Vec<CardOut>,
    /// Card outlines not read.
    pub unread: Vec<QuadOut>,
    /// Face-down cards.
    pub backs: Vec<BackOut>,
    /// Dice read.
    pub dice: Vec<DieOut>,
    /// Dice found but not read.
    pub unread_dice: Vec<UnreadDieOut>,
}

/// What to look for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Looking {
    /// Read cards.
    pub cards: bool,
    /// Read dice.
    pub dice: bool,
}

impl Looking {
    /// Cards and dice.
    pub const ALL: Looking = Looking {
        cards: true,
        dice: true,
    };
}

/// Both readers, loaded once.
#[derive(Debug, Clone)]
pub struct Readers {
    /// The card reader (general model or a learned deck).
    pub cards: CardReader,
    /// The dice reader.
    pub dice: DiceReader,
}

/// The readers with the model files of a folder in place of the built-in
/// ones (`Readers::with_overrides`).
#[derive(Debug)]
pub struct WithOverrides {
    /// The readers to use.
    pub readers: Readers,
    /// The model files that replaced a built-in model.
    pub used: Vec<PathBuf>,
    /// The model files that did not load (the built-in model is kept).
    pub problems: Vec<VisionError>,
}

impl Readers {
    /// The readers with the models built into the binary.
    pub fn builtin() -> Result<Readers, VisionError> {
        Ok(Readers {
            cards: CardReader::from_model_bytes(BUILTIN_CARD_MODEL)?,
            dice: DiceReader::from_model_bytes(BUILTIN_DICE_MODEL)?,
        })
    }

    /// The built-in readers, with `dir/cards.bin` and `dir/dice.bin`
    /// replacing the built-in models where those files exist. A file that
    /// does not load is reported in `problems` and the built-in model is
    /// kept for it; one that loads is listed in `used`, so that nothing reads
    /// with another model than the built-in one without saying so.
    pub fn with_overrides(dir: &Path) -> Result<WithOverrides, VisionError> {
        let mut readers = Readers::builtin()?;
        let mut used = Vec::new();
        let mut problems = Vec::new();
        let cards = dir.join("cards.bin");
        if cards.exists() {
            match readers.clone().with_card_model_file(&cards) {
                Ok(r) => {
                    readers = r;
                    used.push(cards);
                }
                Err(e) => problems.push(e),
            }
        }
        let dice = dir.join("dice.bin");
        if dice.exists() {
            let loaded = std::fs::read(&dice)
                .map_err(|source| VisionError::Io {
                    path: dice.clone(),
                    source,
                })
                .and_then(|b| DiceReader::from_model_bytes(&b))
                .map_err(|e| e.in_model_file(&dice));
            match loaded {
                Ok(d) => {
                    readers.dice = d;
                    used.push(dice);
                }
                Err(e) => problems.push(e),
            }
        }
        Ok(WithOverrides {
            readers,
            used,
            problems,
        })
    }

    /// Replaces the card model with one read from a file (a learned deck).
    pub fn with_card_model_file(mut self, path: &Path) -> Result<Readers, VisionError> {
        let bytes = std::fs::read(path).map_err(|source| VisionError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        self.cards = CardReader::from_model_bytes(&bytes).map_err(|e| e.in_model_file(path))?;
        Ok(self)
    }

    /// Adds a learned deck to the card model: the deck's own examples join
    /// the general ones, so that deck reads as well as when taught alone and
    /// other decks still read with the general examples.
    /// A damaged deck file is an error naming it, and leaves the readers
    /// as they were.
    pub fn add_learned_deck(&mut self, path: &Path) -> Result<(), VisionError> {
        let bytes = std::fs::read(path).map_err(|source| VisionError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let deck = CardModel::from_bytes(&bytes).map_err(|e| e.in_model_file(path))?;
        let mut merged = self.cards.model().clone();
        merged.merge(&deck);
        self.cards = CardReader::from_model(merged);
        Ok(())
    }

    /// Reads one decoded image.
    pub fn scan(
        &self,
        name: &str,
        image: &image::DynamicImage,
        looking: Looking,
    ) -> Result<ScanRecord, VisionError> {
        let [record] = self.scan_at_scales(name, image, looking, [1.0])?;
        Ok(record)
    }

    /// [`Self::scan`] with the dice read in the frame enlarged by each of
    /// `scales` in turn ([`DiceReader::read_scaled`]); the cards are read
    /// once. One record per scale, each with the `ms` of the whole call.
    pub fn scan_at_scales<const N: usize>(
        &self,
        name: &str,
        image: &image::DynamicImage,
        looking: Looking,
        scales: [f32; N],
    ) -> Result<[ScanRecord; N], VisionError> {
        let start = Instant::now();
        let cards = if looking.cards {
            self.cards.read(image)?
        } else {
            CardScan::default()
        };
        let mut dice = if looking.dice {
            self.dice.read_at_scales(image, scales)?
        } else {
            scales.map(|_| DiceScan::default())
        };
        for d in &mut dice {
            drop_dice_on_card_faces(&cards, d);
        }
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        Ok(dice.map(|d| record(name, image, &cards, &d, ms)))
    }
}

/// The scan record of one image from what its readers read.
fn record(
    name: &str,
    image: &image::DynamicImage,
    cards: &CardScan,
    dice: &DiceScan,
    ms: f64,
) -> ScanRecord {
    ScanRecord {
        image: name.to_string(),
        width: image.width(),
        height: image.height(),
        ms: (ms * 100.0).round() / 100.0,
        cards: cards
            .cards
            .iter()
            .map(|c| CardOut {
                code: c.code.clone(),
                quad: c.quad.0,
                confidence: c.confidence,
            })
            .collect(),
        unread: cards.unread.iter().map(|q| QuadOut { quad: q.0 }).collect(),
        backs: cards
            .backs
            .iter()
            .map(|b| BackOut {
                colour: b.colour.to_string(),
                quad: b.quad.0,
            })
            .collect(),
        dice: dice.dice.iter().map(DieOut::from).collect(),
        unread_dice: dice.unread.iter().map(UnreadDieOut::from).collect(),
    }
}

/// Drops the dice (read or not) whose centre lies on the face of a card read
/// in the same frame. Seen from above, a group of a card's pips looks like a
/// die's face (on the card photos of `../shared/data` about half of the false
/// dice lay on a read card); and a real die resting on a unit card is a
/// marker, not a roll, so dice are read only off the cards.
pub fn drop_dice_on_card_faces(cards: &CardScan, dice: &mut DiceScan) {
    let on_a_face = |c: [f32; 2]| cards.cards.iter().any(|card| card.quad.contains(c));
    dice.dice.retain(|d| !on_a_face(d.center));
    dice.unread.retain(|d| !on_a_face(d.center));
}

pub use super::image_file::open_image;

/// What [`scan_batch`] read.
#[derive(Debug)]
pub struct BatchScan {
    /// One result per path, in the order given.
    pub records: Vec<Result<ScanRecord, VisionError>>,
    /// The enlargement the dice were read at.
    pub dice_scale: f32,
    /// For [`DiceScale::Auto`], the measurement that chose it.
    pub calibration: Option<ScaleCalibration>,
}

/// Reads the images at `paths` (named as given), calling `progress` after
/// each. With a fixed `dice_scale` the dice are read at it; with
/// [`DiceScale::Auto`] every image is read at every scale and the records of
/// the one scale the whole batch favours are kept ([`ScaleCalibration`]): a
/// batch is taken to be photos of one table by one camera.
pub fn scan_batch(
    readers: &Readers,
    paths: &[PathBuf],
    looking: Looking,
    dice_scale: DiceScale,
    mut progress: impl FnMut(),
) -> BatchScan {
    let name = |p: &PathBuf| p.display().to_string();
    match dice_scale {
        DiceScale::Auto if looking.dice => {
            let mut calibration = ScaleCalibration::default();
            let all: Vec<Result<[ScanRecord; READ_SCALES.len()], VisionError>> = paths
                .iter()
                .map(|p| {
                    let r = open_image(p).and_then(|img| {
                        readers.scan_at_scales(&name(p), &img, looking, READ_SCALES)
                    });
                    if let Ok(records) = &r {
                        calibration
                            .observe_sightings(&records.each_ref().map(ScanRecord::dice_sightings));
                    }
                    progress();
                    r
                })
                .collect();
            let at = calibration.leading_index();
            BatchScan {
                records: all
                    .into_iter()
                    .map(|r| r.map(|records| records.into_iter().nth(at).unwrap_or_default()))
                    .collect(),
                dice_scale: READ_SCALES[at],
                calibration: Some(calibration),
            }
        }
        _ => {
            let scale = match dice_scale {
                DiceScale::Fixed(s) => s,
                DiceScale::Auto => 1.0,
            };
            BatchScan {
                records: paths
                    .iter()
                    .map(|p| {
                        let r = open_image(p).and_then(|img| {
                            readers
                                .scan_at_scales(&name(p), &img, looking, [scale])
                                .map(|[r]| r)
                        });
                        progress();
                        r
                    })
                    .collect(),
                dice_scale: scale,
                calibration: None,
            }
        }
    }
}

/// Scan records built by hand, for the tests of the layers that use them.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{CardOut, DieOut, Point, ScanRecord};

    /// A die read as `value` (a 30 px side, confidence 0.9) at `center`.
    pub fn die_at(value: u8, center: Point) -> DieOut {
        DieOut {
            value,
            center,
            size: 30.0,
            confidence: 0.9,
        }
    }

    /// A card read as `code` (confidence 0.8), its 60 x 90 outline from (x, y).
    pub fn card_at(code: &str, x: f32, y: f32) -> CardOut {
        CardOut {
            code: code.into(),
            quad: [[x, y], [x + 60.0, y], [x + 60.0, y + 90.0], [x, y + 90.0]],
            confidence: 0.8,
        }
    }

    /// A 640 x 480 frame's record with these cards and dice, nothing else.
    pub fn record(cards: Vec<CardOut>, dice: Vec<DieOut>) -> ScanRecord {
        ScanRecord {
            image: "frame".into(),
            width: 640,
            height: 480,
            ms: 1.0,
            cards,
            unread: Vec::new(),
            backs: Vec::new(),
            dice,
            unread_dice: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::cards::CardRead;
    use crate::vision::dice::{DieRead, UnreadDie};
    use crate::vision::geometry::Quad;

    #[test]
    fn dice_on_a_read_card_face_are_dropped() {
        let cards = CardScan {
            cards: vec![CardRead {
                code: "4c".into(),
                quad: Quad([
                    [100.0, 100.0],
                    [200.0, 100.0],
                    [200.0, 240.0],
                    [100.0, 240.0],
                ]),
                confidence: 0.9,
            }],
            ..CardScan::default()
        };
        let die = |x: f32, y: f32| DieRead {
            value: 4,
            center: [x, y],
            size: 30.0,
            confidence: 0.9,
        };
        let mut dice = DiceScan {
            // On the face, beside the card, and half over its edge (centre off).
            dice: vec![die(150.0, 170.0), die(300.0, 170.0), die(210.0, 120.0)],
            unread: vec![
                UnreadDie {
                    center: [120.0, 130.0],
                    size: 30.0,
                },
                UnreadDie {
                    center: [20.0, 20.0],
                    size: 30.0,
                },
            ],
        };
        drop_dice_on_card_faces(&cards, &mut dice);
        let centres: Vec<[f32; 2]> = dice.dice.iter().map(|d| d.center).collect();
        assert_eq!(centres, vec![[300.0, 170.0], [210.0, 120.0]]);
        assert_eq!(dice.unread.len(), 1);
        assert_eq!(dice.unread[0].center, [20.0, 20.0]);
        // Unread outlines and backs do not drop dice: an unread outline may
        // be the paper sheet the dice were rolled on.
        let sheet = CardScan {
            unread: vec![Quad([
                [0.0, 0.0],
                [400.0, 0.0],
                [400.0, 400.0],
                [0.0, 400.0],
            ])],
            ..CardScan::default()
        };
        let mut dice = DiceScan {
            dice: vec![die(150.0, 170.0)],
            unread: Vec::new(),
        };
        drop_dice_on_card_faces(&sheet, &mut dice);
        assert_eq!(dice.dice.len(), 1);
    }

    #[test]
    fn model_overrides_replace_builtins_and_bad_files_fall_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // No files: the built-ins, no problems.
        let loaded = Readers::with_overrides(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert!(loaded.problems.is_empty() && loaded.used.is_empty());
        // A good card override (the built-in bytes) loads; a broken dice file is
        // reported and the built-in dice model kept.
        std::fs::write(dir.path().join("cards.bin"), BUILTIN_CARD_MODEL)
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("dice.bin"), b"ADJDICE\0 truncated")
            .unwrap_or_else(|e| panic!("{e}"));
        let WithOverrides {
            readers,
            used,
            problems,
        } = Readers::with_overrides(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(used, [dir.path().join("cards.bin")]);
        assert_eq!(problems.len(), 1, "{problems:?}");
        let VisionError::ModelFile { path, source } = &problems[0] else {
            panic!("{problems:?}");
        };
        assert!(
            matches!(**source, VisionError::ModelCorrupt { .. }),
            "{problems:?}"
        );
        // The message names the file, so the player knows which to mend.
        assert_eq!(path, &dir.path().join("dice.bin"));
        let said = problems[0].to_string();
        assert!(said.starts_with(&path.display().to_string()), "{said}");
        let img = image::DynamicImage::new_rgb8(64, 48);
        let scan = readers
            .scan("blank", &img, Looking::ALL)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(scan.cards.is_empty() && scan.dice.is_empty());
    }
}
