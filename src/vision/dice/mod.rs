//! d6 dice reader: finds every die in a top-down frame and reads its up face.
//!
//! Pipeline (see `REPORT.md` of the experimental crate for figures):
//! 1. [`prep`]: half-resolution colour planes, local background, foreground
//!    channels and integral images.
//! 2. [`find`]: a fitted MLP scores grid cells (stride 4 px, coarse to fine) for "die centre"
//!    and regresses the die size; local maxima + NMS give candidates.
//! 3. [`crop`]: each candidate is cropped at full resolution, rotated so the
//!    face edges are axis-aligned (gradient orientation), and turned into five
//!    16x16 maps (polarity-free distance to the face colour, luminance
//!    difference, standardised RGB) plus scalar and pip-blob-count features.
//! 4. [`cnn`] + [`classify`]: a fitted tiny CNN says "not a die" or the value
//!    1-6 (probabilities averaged over the 8 rotations/flips of the crop,
//!    unless the plain crop alone is at least
//!    [`classify::TTA_EARLY_EXIT`] sure, or the plain crop and its mirror
//!    image together [`classify::TTA_PAIR_EXIT`] sure).
//! 5. Candidates classified as dice but below the read threshold are reported
//!    as unread rather than guessed.
//!
//! The model (detector MLP, CNN and thresholds) is loaded from bytes, see
//! [`model`]; it is produced by [`fit::fit`].

pub mod adapt;
pub mod classify;
pub mod cnn;
pub mod cpu;
pub mod crop;
pub mod exposure;
pub mod find;
pub mod fit;
pub mod mlp;
pub mod model;
pub mod prep;
pub mod scale;
pub mod synth;
pub mod tables;

use crate::vision::error::VisionError;
use model::DiceModel;

/// Largest accepted frame in pixels (40 MP); bigger frames are refused with
/// [`VisionError::ImageTooLarge`] to bound memory and time.
pub const MAX_PIXELS: u64 = 40_000_000;

/// Frames smaller than this on either side cannot hold a readable die (the
/// model was fitted on dice of 21 px and more); they give an empty scan.
const MIN_SIDE: u32 = 16;

thread_local! {
    /// The last prepared frame read on this thread: the next read of a frame
    /// of the same size writes its integral image into the same buffer
    /// instead of allocating and zeroing 3.7 MB (at 720p) again. Holds that
    /// much memory per reading thread between reads.
    static SPARE_PREPARED: std::cell::Cell<Option<prep::Prepared>> =
        const { std::cell::Cell::new(None) };
}

/// A read die.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DieRead {
    /// Up-face value 1-6.
    pub value: u8,
    /// Centre `[x, y]` in frame pixels.
    pub center: [f32; 2],
    /// Side of the die's bounding box in frame pixels.
    pub size: f32,
    /// Probability of the value according to the classifier, in [0, 1].
    pub confidence: f32,
}

/// A die that was found but whose face could not be read confidently.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct UnreadDie {
    /// Centre `[x, y]` in frame pixels.
    pub center: [f32; 2],
    /// Side of the die's bounding box in frame pixels.
    pub size: f32,
}

/// Result of reading one frame.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DiceScan {
    /// Dice whose face was read.
    pub dice: Vec<DieRead>,
    /// Dice found but not read.
    pub unread: Vec<UnreadDie>,
}

/// The dice reader; cheap to share between threads (read-only model).
#[derive(Debug, Clone)]
pub struct DiceReader {
    model: DiceModel,
}

impl DiceReader {
    /// Load a reader from model bytes (e.g. `include_bytes!("models/dice.bin")`).
    pub fn from_model_bytes(bytes: &[u8]) -> Result<Self, VisionError> {
        Ok(Self {
            model: DiceModel::from_bytes(bytes)?,
        })
    }

    /// Build a reader from an in-memory model (used by the fitter).
    pub fn from_model(model: DiceModel) -> Self {
        Self { model }
    }

    /// The loaded model.
    pub fn model(&self) -> &DiceModel {
        &self.model
    }

    /// Find and read all dice in `image` (any colour type / bit depth).
    pub fn read(&self, image: &image::DynamicImage) -> Result<DiceScan, VisionError> {
        let [scan] = self.read_at_scales(image, [1.0])?;
        Ok(scan)
    }

    /// [`Self::read`] with the frame enlarged by each of `scales` in turn
    /// ([`Self::read_scaled`]; centres and sizes in `image`'s pixels).
    pub fn read_at_scales<const N: usize>(
        &self,
        image: &image::DynamicImage,
        scales: [f32; N],
    ) -> Result<[DiceScan; N], VisionError> {
        let (w, h) = (image.width(), image.height());
        let px = w as u64 * h as u64;
        if px > MAX_PIXELS {
            return Err(VisionError::ImageTooLarge {
                width: w,
                height: h,
                limit: MAX_PIXELS,
            });
        }
        if w < MIN_SIDE || h < MIN_SIDE {
            return Ok(scales.map(|_| DiceScan::default()));
        }
        let owned;
        let rgb = match image.as_rgb8() {
            Some(r) => r,
            None => {
                owned = image.to_rgb8();
                &owned
            }
        };
        Ok(scales.map(|s| self.read_scaled(rgb, s)))
    }

    /// Read an 8-bit RGB frame (caller guarantees the size checks of [`Self::read`]).
    ///
    /// A frame dimmer than the photos the model was fitted on is brightened
    /// first ([`exposure`]).
    pub fn read_rgb(&self, rgb: &image::RgbImage) -> DiceScan {
        match exposure::exposure_gain(rgb) {
            Some(gain) => self.read_as_is(&exposure::brighten(rgb, gain)),
            None => self.read_as_is(rgb),
        }
    }

    /// Read a frame at its own light.
    pub fn read_as_is(&self, rgb: &image::RgbImage) -> DiceScan {
        let m = &self.model;
        // The SIMD paths, chosen once for all stages of this read.
        let cpu = cpu::Cpu::detect();
        let spare = SPARE_PREPARED
            .try_with(std::cell::Cell::take)
            .ok()
            .flatten();
        let p = prep::prepare_reusing(rgb, cpu, spare);
        let cands = find::find_candidates(&p, &m.detector, m.det_threshold, m.nms_factor);
        // Kept for the next read on this thread (if the thread is not
        // shutting down); the classifier does not need it.
        let _ = SPARE_PREPARED.try_with(|s| s.set(Some(p)));
        let mut scan = DiceScan::default();
        let mut sc = classify::ClassifyScratch::with_cpu(cpu);
        for c in cands {
            let v = classify::classify_scratch(rgb, &m.classifier, &c, &mut sc);
            match v.decide(m.read_threshold) {
                classify::Decision::NotDie => {}
                classify::Decision::Unread => scan.unread.push(UnreadDie {
                    center: c.center,
                    size: c.size,
                }),
                classify::Decision::Read { value, confidence } => scan.dice.push(DieRead {
                    value,
                    center: c.center,
                    size: c.size,
                    confidence,
                }),
            }
        }
        scan
    }
}
