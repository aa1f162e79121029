//! One scan of one image with both readers, in the shape of the
//! `adjutant scan --json` contract.

use super::cards::{CardModel, CardReader, CardScan};
use super::dice::{DiceReader, DiceScan};
use super::error::VisionError;
use super::geometry::Point;
use serde::Serialize;
use std::path::Path;
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

/// Everything read in one image (one JSON line of `scan --json`).
#[derive(Debug, Clone, Serialize, PartialEq)]
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
    /// does not load is reported in the second list and the built-in model is
    /// kept for it.
    pub fn with_overrides(dir: &Path) -> Result<(Readers, Vec<VisionError>), VisionError> {
        let mut readers = Readers::builtin()?;
        let mut problems = Vec::new();
        let cards = dir.join("cards.bin");
        if cards.exists() {
            match readers.clone().with_card_model_file(&cards) {
                Ok(r) => readers = r,
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
                .and_then(|b| DiceReader::from_model_bytes(&b));
            match loaded {
                Ok(d) => readers.dice = d,
                Err(e) => problems.push(e),
            }
        }
        Ok((readers, problems))
    }

    /// Replaces the card model with one read from a file (a learned deck).
    pub fn with_card_model_file(mut self, path: &Path) -> Result<Readers, VisionError> {
        let bytes = std::fs::read(path).map_err(|source| VisionError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        self.cards = CardReader::from_model_bytes(&bytes)?;
        Ok(self)
    }

    /// Adds a learned deck to the card model: the deck's own examples join
    /// the general ones, so that deck reads as well as when taught alone and
    /// other decks still read with the general examples.
    pub fn with_learned_deck(mut self, path: &Path) -> Result<Readers, VisionError> {
        let bytes = std::fs::read(path).map_err(|source| VisionError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let deck = CardModel::from_bytes(&bytes)?;
        let mut merged = self.cards.model().clone();
        merged.merge(&deck);
        self.cards = CardReader::from_model(merged);
        Ok(self)
    }

    /// Reads one decoded image.
    pub fn scan(
        &self,
        name: &str,
        image: &image::DynamicImage,
        looking: Looking,
    ) -> Result<ScanRecord, VisionError> {
        let start = Instant::now();
        let cards = if looking.cards {
            self.cards.read(image)?
        } else {
            CardScan::default()
        };
        let dice = if looking.dice {
            self.dice.read(image)?
        } else {
            DiceScan::default()
        };
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        Ok(ScanRecord {
            image: name.to_string(),
            width: image.width(),
            height: image.height(),
            ms: (ms * 100.0).round() / 100.0,
            cards: cards
                .cards
                .into_iter()
                .map(|c| CardOut {
                    code: c.code,
                    quad: c.quad.0,
                    confidence: c.confidence,
                })
                .collect(),
            unread: cards
                .unread
                .into_iter()
                .map(|q| QuadOut { quad: q.0 })
                .collect(),
            backs: cards
                .backs
                .into_iter()
                .map(|b| BackOut {
                    colour: b.colour.to_string(),
                    quad: b.quad.0,
                })
                .collect(),
            dice: dice
                .dice
                .into_iter()
                .map(|d| DieOut {
                    value: d.value,
                    center: d.center,
                    size: d.size,
                    confidence: d.confidence,
                })
                .collect(),
            unread_dice: dice
                .unread
                .into_iter()
                .map(|d| UnreadDieOut {
                    center: d.center,
                    size: d.size,
                })
                .collect(),
        })
    }
}

/// Decodes an image file, naming the file in the error.
pub fn open_image(path: &Path) -> Result<image::DynamicImage, VisionError> {
    let reader = image::ImageReader::open(path)
        .map_err(|source| VisionError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .with_guessed_format()
        .map_err(|source| VisionError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    reader.decode().map_err(|source| VisionError::Decode {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_overrides_replace_builtins_and_bad_files_fall_back() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        // No files: the built-ins, no problems.
        let (_, problems) = Readers::with_overrides(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert!(problems.is_empty());
        // A good card override (the built-in bytes) loads; a broken dice file is
        // reported and the built-in dice model kept.
        std::fs::write(dir.path().join("cards.bin"), BUILTIN_CARD_MODEL)
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("dice.bin"), b"ADJDICE\0 truncated")
            .unwrap_or_else(|e| panic!("{e}"));
        let (readers, problems) =
            Readers::with_overrides(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            matches!(problems[0], VisionError::ModelCorrupt { .. }),
            "{problems:?}"
        );
        let img = image::DynamicImage::new_rgb8(64, 48);
        let scan = readers
            .scan("blank", &img, Looking::ALL)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(scan.cards.is_empty() && scan.dice.is_empty());
    }
}
