//! Reading dice that look smaller than the dice the model was fitted on.
//!
//! The detector was fitted on dice of 21-69 px (byler-d6, median 40 px) and
//! sizes anything smaller into that range, so a frame's own reads cannot tell
//! that its dice are small: a webcam 60 cm above the table sees a 16 mm die at
//! about 24 px. Enlarging the frame before reading brings such dice back into
//! range. Measured on the held-out byler-d6 photos shrunk to 0.6 of their
//! resolution (dice of 13-41 px), exact images go from 22.8 % read as they are
//! to 68.4 % enlarged 1.5 times; shrunk to half, from 3.5 % to 70.2 % enlarged
//! twice. But enlarging a frame whose dice are already large makes the
//! detector find pips as dice (as taken, 84.2 % drops to 12.3 % at 1.5x).
//!
//! Which enlargement suits a camera is measured, not guessed: the scale that
//! reads a set best also reads it surest. Over the frames of one camera (its
//! dice keep about one size) or one batch of photos, the scale whose reads
//! are, on average, most confident wins ([`ScaleCalibration`]), with gates
//! that keep a table without dice from choosing ([`SURE_FRAME`],
//! [`SURE_SCALE`]). Per frame this is noisy (a frame with one die decides
//! little); per camera it is clear.

use super::{DiceReader, DiceScan, MIN_SIDE};
use image::RgbImage;

/// The enlargements an automatic choice reads at, smallest first. (Ten
/// steps per doubling were tried: the confidence is flat over a broad range
/// of scales while the reads are not, so the finer choice read no better;
/// docs/models.md, round s29.)
pub const READ_SCALES: [f32; 3] = [1.0, 1.5, 2.0];

/// The largest enlargement a fixed setting may ask for.
pub const MAX_SCALE: f32 = 3.0;

/// Frames with dice, read at every scale, before [`ScaleCalibration`]
/// chooses: enough that one misread frame does not decide.
pub const FRAMES_TO_CHOOSE: usize = 5;

/// Frames are enlarged to at most this many pixels (a 1080p frame at 2x, a
/// 4K frame as it is). A frame that large already shows dice at more pixels
/// than the model needs unless the camera is very far away, and an enlarged
/// 4K frame would cost four times a 4K read and 100 MB.
pub const MAX_ENLARGED_PIXELS: u64 = 3840 * 2160;

/// A frame counts towards the choice only if at some scale its dice read at
/// least this sure on average. Real dice read at the right scale at 0.9 on
/// average (byler-d6); the phantom dice a frame without dice gives (card pips,
/// clutter) read at about 0.2, and without this gate the card photos of
/// `../shared/data` measured as needing 2x, which would then misread real dice.
pub const SURE_FRAME: f64 = 0.6;

/// The mean confidence a scale must reach over the frames to be chosen:
/// dice read at the right scale reach 0.89-0.92 over byler-d6 at any of the
/// sizes tried; phantom dice on the card photos 0.2-0.5.
pub const SURE_SCALE: f64 = 0.75;

/// Frames a camera's measurement judges by (the most recent that counted).
pub const CAMERA_FRAMES: usize = 8;

/// A larger scale must beat a smaller one's mean confidence by this much to be
/// chosen: reading larger costs more (2x reads four times the pixels) and
/// finds pips as dice when the dice are not small after all.
pub const LARGER_SCALE_MARGIN: f64 = 0.02;

/// How a reader decides the enlargement of the frames it reads.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum DiceScale {
    /// Measure it over the first frames with dice (see [`ScaleCalibration`]).
    #[default]
    Auto,
    /// Always read at this enlargement (1 to [`MAX_SCALE`]).
    Fixed(f32),
}

impl DiceScale {
    /// Reading every frame as it is.
    pub const AS_IS: DiceScale = DiceScale::Fixed(1.0);
}

impl std::fmt::Display for DiceScale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiceScale::Auto => f.write_str("auto"),
            DiceScale::Fixed(s) => write!(f, "{s}"),
        }
    }
}

impl std::str::FromStr for DiceScale {
    type Err = String;

    /// `auto`, or a number from 1 to [`MAX_SCALE`] (`1`, `1.5`, `2`, optionally with an
    /// `x`: `1.5x`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim().to_ascii_lowercase();
        if t == "auto" {
            return Ok(DiceScale::Auto);
        }
        let number = t.strip_suffix('x').unwrap_or(&t);
        match number.parse::<f32>() {
            Ok(v) if (1.0..=MAX_SCALE).contains(&v) => Ok(DiceScale::Fixed(v)),
            _ => Err(format!(
                "dice scale '{s}' is not auto or a number from 1 to 3, e.g. 1.5 (how much to enlarge frames before reading dice)"
            )),
        }
    }
}

/// How sure the reader is of a frame's dice: the mean confidence of its reads,
/// a die found but not read counting as 0. `None` when it found no die.
/// (One scan on its own; a frame read at several scales is judged by
/// [`cross_scale_confidences`].)
pub fn frame_confidence(scan: &DiceScan) -> Option<f64> {
    let n = scan.dice.len() + scan.unread.len();
    let sum: f64 = scan.dice.iter().map(|d| f64::from(d.confidence)).sum();
    (n > 0).then(|| sum / n as f64)
}

/// A die one scale's read found: where, how large, and how sure (0 for a die
/// found but not read), in the frame's own pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sighting {
    /// Centre.
    pub center: [f32; 2],
    /// Side of its box.
    pub size: f32,
    /// Read confidence; 0 when the die was found but not read.
    pub confidence: f32,
}

impl Sighting {
    /// The sightings of one scan: read dice at their confidence, unread ones at 0.
    pub fn of_scan(scan: &DiceScan) -> Vec<Sighting> {
        Sighting::of_dice(
            scan.dice.iter().map(|d| (d.center, d.size, d.confidence)),
            scan.unread.iter().map(|u| (u.center, u.size)),
        )
    }

    /// Sightings of `read` dice (centre, size, confidence) and `unread` ones
    /// (centre, size; confidence 0).
    pub fn of_dice(
        read: impl Iterator<Item = ([f32; 2], f32, f32)>,
        unread: impl Iterator<Item = ([f32; 2], f32)>,
    ) -> Vec<Sighting> {
        let read = read.map(|(center, size, confidence)| Sighting {
            center,
            size,
            confidence,
        });
        let unread = unread.map(|(center, size)| Sighting {
            center,
            size,
            confidence: 0.0,
        });
        read.chain(unread).collect()
    }
}

/// How sure each scale's read of one frame is: the mean, over the dice it
/// is judged on, of the scale's confidence in its read of each (0 where it
/// did not read it or did not find it at all). A scale is judged on the dice
/// it found and on every die some scale read surely ([`SURE_FRAME`]); a die
/// only one scale found, and none surely (a pip or a speck found as a die at
/// 2x), counts only for the scale that found it, where it lowers the mean as
/// before. A die is the same at two scales when their centres lie within
/// half a die side. `None` for a scale judged on no die.
///
/// Counting a die missed at a scale as 0 matters: a frame of large dice read
/// at 2x finds fewer of them, each read surely, and by its read dice alone
/// 2x looked surer than 1x (a window locked onto 2x this way and then
/// misread every roll).
pub fn cross_scale_confidences<const K: usize>(sightings: &[Vec<Sighting>; K]) -> [Option<f64>; K] {
    // Every die found at any scale: the best confidence each scale gave it,
    // and which scales found it.
    let mut dice: Vec<(Sighting, [f32; K], [bool; K])> = Vec::new();
    for (k, seen) in sightings.iter().enumerate() {
        for s in seen {
            let same = dice.iter_mut().find(|(d, _, _)| {
                let (dx, dy) = (d.center[0] - s.center[0], d.center[1] - s.center[1]);
                (dx * dx + dy * dy).sqrt() < 0.5 * d.size.max(s.size)
            });
            match same {
                Some((_, best, found)) => {
                    best[k] = best[k].max(s.confidence);
                    found[k] = true;
                }
                None => {
                    let (mut best, mut found) = ([0.0; K], [false; K]);
                    best[k] = s.confidence;
                    found[k] = true;
                    dice.push((*s, best, found));
                }
            }
        }
    }
    std::array::from_fn(|k| {
        let judged: Vec<f64> = dice
            .iter()
            .filter(|(_, best, found)| found[k] || best.iter().any(|&b| f64::from(b) >= SURE_FRAME))
            .map(|(_, best, _)| f64::from(best[k]))
            .collect();
        (!judged.is_empty()).then(|| judged.iter().sum::<f64>() / judged.len() as f64)
    })
}

/// Chooses the enlargement for one camera (or one batch of photos of one
/// table) from frames read at every [`READ_SCALES`] entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ScaleCalibration {
    /// The confidence at every scale ([`cross_scale_confidences`]) of each
    /// frame that counted, oldest first, at most `keep` of them.
    frames: std::collections::VecDeque<[f64; READ_SCALES.len()]>,
    /// How many recent frames are kept.
    keep: usize,
}

impl Default for ScaleCalibration {
    /// Keeps every frame (a batch of photos).
    fn default() -> Self {
        Self::recent(usize::MAX)
    }
}

impl ScaleCalibration {
    /// Judges by the last `keep` frames that counted, so that a camera's
    /// dice, once they appear, outweigh what came before (a table with only
    /// cards on it gives a few frames of phantom dice).
    pub fn recent(keep: usize) -> Self {
        ScaleCalibration {
            frames: std::collections::VecDeque::new(),
            keep: keep.max(1),
        }
    }

    /// Adds one frame read at every scale (`scans[i]` at `READ_SCALES[i]`).
    pub fn observe(&mut self, scans: &[DiceScan; READ_SCALES.len()]) {
        self.observe_sightings(&scans.each_ref().map(Sighting::of_scan));
    }

    /// Adds one frame by the dice each scale found in it
    /// ([`cross_scale_confidences`]).
    pub fn observe_sightings(&mut self, sightings: &[Vec<Sighting>; READ_SCALES.len()]) {
        self.observe_confidences(cross_scale_confidences(sightings));
    }

    /// Adds one frame by its confidence at every scale
    /// ([`cross_scale_confidences`]). A frame in
    /// which no scale reads its dice at least [`SURE_FRAME`] sure says
    /// nothing and is skipped (no dice, or phantom dice only); a scale that
    /// found none where another did counts 0 for the frame.
    pub fn observe_confidences(&mut self, confidences: [Option<f64>; READ_SCALES.len()]) {
        if !confidences.iter().flatten().any(|&c| c >= SURE_FRAME) {
            return;
        }
        if self.frames.len() == self.keep {
            self.frames.pop_front();
        }
        self.frames.push_back(confidences.map(|c| c.unwrap_or(0.0)));
    }

    /// Frames that counted, of those kept.
    pub fn frames(&self) -> usize {
        self.frames.len()
    }

    /// Mean confidence per scale over the frames kept (`None`
    /// before the first frame that counted).
    pub fn means(&self) -> Option<[f64; READ_SCALES.len()]> {
        let n = self.frames.len();
        (n > 0).then(|| {
            let mut sums = [0.0; READ_SCALES.len()];
            for f in &self.frames {
                for (s, c) in sums.iter_mut().zip(f) {
                    *s += c;
                }
            }
            sums.map(|s| s / n as f64)
        })
    }

    /// The scale the frames so far favour: the smallest, unless a larger one
    /// reads at least [`SURE_SCALE`] sure and beats the best so far by
    /// [`LARGER_SCALE_MARGIN`]. 1 before any frame counted.
    pub fn leading(&self) -> f32 {
        READ_SCALES[self.leading_index()]
    }

    /// Where [`Self::leading`] is in [`READ_SCALES`] (to pick its reads out
    /// of a frame read at every scale).
    pub fn leading_index(&self) -> usize {
        let Some(means) = self.means() else {
            return 0;
        };
        let mut best = 0;
        for (i, m) in means.iter().enumerate().skip(1) {
            if *m >= SURE_SCALE && *m > means[best] + LARGER_SCALE_MARGIN {
                best = i;
            }
        }
        best
    }

    /// What the frames so far say, for a person: the mean confidence at each
    /// scale and the number of frames.
    pub fn describe(&self) -> String {
        match self.means() {
            None => "no dice seen yet".into(),
            Some(m) => {
                let per_scale: Vec<String> = READ_SCALES
                    .iter()
                    .zip(m)
                    .map(|(s, c)| format!("{c:.2} at {s}x"))
                    .collect();
                let n = self.frames.len();
                format!(
                    "mean read confidence {} over {n} frame{} with dice",
                    per_scale.join(", "),
                    if n == 1 { "" } else { "s" }
                )
            }
        }
    }

    /// The chosen scale, once [`FRAMES_TO_CHOOSE`] frames counted and the
    /// leading scale reads them at least [`SURE_SCALE`] sure (until then a
    /// camera keeps measuring).
    pub fn chosen(&self) -> Option<f32> {
        (self.frames.len() >= FRAMES_TO_CHOOSE && self.is_sure()).then(|| self.leading())
    }

    /// Whether the leading scale reads the frames so far at least
    /// [`SURE_SCALE`] sure (a batch of photos is read at the leading scale
    /// either way; this says whether the choice means anything).
    pub fn is_sure(&self) -> bool {
        let i = self.leading_index();
        self.means().is_some_and(|m| m[i] >= SURE_SCALE)
    }
}

impl DiceReader {
    /// Reads `rgb` enlarged `scale` times (bilinear), with centres and sizes
    /// given in `rgb`'s own pixels. A scale of 1 is [`DiceReader::read_rgb`];
    /// a frame is enlarged to at most [`MAX_ENLARGED_PIXELS`]
    /// ([`enlarged_size`]), and one still too small to hold a die reads as
    /// empty.
    pub fn read_scaled(&self, rgb: &RgbImage, scale: f32) -> DiceScan {
        let (sw, sh) = enlarged_size(rgb.width(), rgb.height(), scale);
        if sw < MIN_SIDE || sh < MIN_SIDE {
            return DiceScan::default();
        }
        if (sw, sh) == (rgb.width(), rgb.height()) {
            return self.read_rgb(rgb);
        }
        let Some(larger) = enlarge(rgb, sw, sh) else {
            return self.read_rgb(rgb);
        };
        let mut scan = self.read_rgb(&larger);
        // Pixel centres map as (x + 0.5) * s - 0.5 when resizing.
        let (fx, fy) = (
            sw as f32 / rgb.width() as f32,
            sh as f32 / rgb.height() as f32,
        );
        let back = |c: [f32; 2]| [(c[0] + 0.5) / fx - 0.5, (c[1] + 0.5) / fy - 0.5];
        for d in &mut scan.dice {
            d.center = back(d.center);
            d.size /= fx;
        }
        for u in &mut scan.unread {
            u.center = back(u.center);
            u.size /= fx;
        }
        scan
    }
}

/// The size of a `w` x `h` frame enlarged `scale` times, but to at most
/// [`MAX_ENLARGED_PIXELS`] (and never shrunk).
pub fn enlarged_size(w: u32, h: u32, scale: f32) -> (u32, u32) {
    let (fw, fh) = (w as f64, h as f64);
    let limit = (MAX_ENLARGED_PIXELS as f64 / (fw * fh).max(1.0)).sqrt();
    let s = (scale as f64).min(limit).max(1.0);
    ((fw * s).round() as u32, (fh * s).round() as u32)
}

/// `rgb` resized to `w` x `h` with a bilinear filter (`fast_image_resize`:
/// SIMD, about ten times quicker than `image`'s own resize, which cost more
/// than the read it enlarged). `None` if the crate refuses the buffers, which
/// a well-formed `RgbImage` never makes it do.
fn enlarge(rgb: &RgbImage, w: u32, h: u32) -> Option<RgbImage> {
    use fast_image_resize::images::{Image, ImageRef};
    use fast_image_resize::{FilterType, PixelType, ResizeAlg, ResizeOptions, Resizer};
    let src = ImageRef::new(rgb.width(), rgb.height(), rgb.as_raw(), PixelType::U8x3).ok()?;
    let mut dst = Image::new(w, h, PixelType::U8x3);
    let options = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::Bilinear));
    Resizer::new().resize(&src, &mut dst, &options).ok()?;
    RgbImage::from_raw(w, h, dst.into_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::dice::{DieRead, UnreadDie};

    /// A scan with read dice at x = 0, 100, ... and then the unread ones, so
    /// that the k-th die found is the same die at every scale.
    fn scan(confidences: &[f32], unread: usize) -> DiceScan {
        let at = |k: usize| [100.0 * k as f32, 10.0];
        DiceScan {
            dice: confidences
                .iter()
                .enumerate()
                .map(|(k, &confidence)| DieRead {
                    value: 3,
                    center: at(k),
                    size: 30.0,
                    confidence,
                })
                .collect(),
            unread: (0..unread)
                .map(|j| UnreadDie {
                    center: at(confidences.len() + j),
                    size: 30.0,
                })
                .collect(),
        }
    }

    #[test]
    fn dice_scale_parses_what_it_prints() {
        for s in ["auto", "1", "1.5", "2", "1.32"] {
            let parsed: DiceScale = s.parse().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(parsed.to_string(), s);
        }
        assert_eq!("1.5x".parse(), Ok(DiceScale::Fixed(1.5)));
        assert_eq!(" AUTO ".parse(), Ok(DiceScale::Auto));
        for bad in ["", "3.5", "0.5", "big", "nan", "-1"] {
            let e = bad.parse::<DiceScale>().err().unwrap_or_default();
            assert!(e.contains("auto or a number from 1 to 3"), "{bad}: {e}");
        }
    }

    #[test]
    fn frame_confidence_counts_unread_dice_as_unsure() {
        assert_eq!(frame_confidence(&scan(&[], 0)), None);
        assert_eq!(frame_confidence(&scan(&[], 2)), Some(0.0));
        let c = frame_confidence(&scan(&[1.0, 0.5], 2)).unwrap_or(-1.0);
        assert!((c - 0.375).abs() < 1e-9, "{c}");
    }

    #[test]
    fn calibration_waits_for_frames_with_dice_then_picks_the_surest_scale() {
        let mut cal = ScaleCalibration::default();
        assert_eq!(cal.leading(), 1.0);
        // Frames without dice at any scale say nothing.
        for _ in 0..10 {
            cal.observe(&[scan(&[], 0), scan(&[], 0), scan(&[], 0)]);
        }
        assert_eq!((cal.frames(), cal.chosen()), (0, None));
        for i in 0..FRAMES_TO_CHOOSE {
            // Small dice: unsure as they are (or not found at all), sure at 1.5x.
            let as_is = if i % 2 == 0 {
                scan(&[0.5], 1)
            } else {
                scan(&[], 0)
            };
            cal.observe(&[as_is, scan(&[0.95, 0.9], 0), scan(&[0.9, 0.85], 0)]);
            assert_eq!(cal.leading(), 1.5);
            assert_eq!(cal.chosen().is_some(), i + 1 == FRAMES_TO_CHOOSE);
        }
        assert_eq!(cal.chosen(), Some(1.5));
        let means = cal.means().unwrap_or_default();
        assert!((means[0] - 0.15).abs() < 1e-9, "{means:?}");
    }

    #[test]
    fn phantom_dice_neither_count_nor_choose_a_larger_scale() {
        let mut cal = ScaleCalibration::default();
        // Card pips found as unsure dice at 2x: not counted at all.
        for _ in 0..20 {
            cal.observe(&[scan(&[], 0), scan(&[0.3], 1), scan(&[0.5, 0.4], 0)]);
        }
        assert_eq!((cal.frames(), cal.leading(), cal.chosen()), (0, 1.0, None));
        // Surer phantoms count, but 2x is not sure enough over them to win,
        // and nothing is chosen until some scale reads surely.
        for _ in 0..20 {
            cal.observe(&[scan(&[], 0), scan(&[], 0), scan(&[0.65], 0)]);
        }
        assert_eq!((cal.frames(), cal.leading(), cal.chosen()), (20, 1.0, None));
    }

    #[test]
    fn a_die_missed_at_a_scale_counts_against_it() {
        // Three large dice: read surely as they are; at 2x only one is found
        // (surely) and the others are missed. By the read dice alone 2x
        // would look surer.
        let as_is = scan(&[0.9, 0.85, 0.9], 0);
        let at_2x = scan(&[1.0], 0);
        assert!(frame_confidence(&at_2x) > frame_confidence(&as_is));
        let c = cross_scale_confidences(&[
            Sighting::of_scan(&as_is),
            Sighting::of_scan(&scan(&[0.6, 0.5], 0)),
            Sighting::of_scan(&at_2x),
        ]);
        let c = c.map(|c| c.unwrap_or(-1.0));
        assert!((c[0] - 2.65 / 3.0).abs() < 1e-6, "{c:?}");
        assert!((c[1] - 1.1 / 3.0).abs() < 1e-6, "{c:?}");
        assert!((c[2] - 1.0 / 3.0).abs() < 1e-6, "{c:?}");
        let mut cal = ScaleCalibration::default();
        for _ in 0..FRAMES_TO_CHOOSE {
            cal.observe(&[as_is.clone(), scan(&[0.6, 0.5], 0), at_2x.clone()]);
        }
        assert_eq!(cal.chosen(), Some(1.0));
        // Dice apart are different dice; one die seen at two scales is one.
        let one = |x: f32, confidence: f32| Sighting {
            center: [x, 0.0],
            size: 30.0,
            confidence,
        };
        let c = cross_scale_confidences(&[vec![one(0.0, 0.8)], vec![one(14.0, 0.6)], vec![]]);
        assert_eq!(
            c,
            [Some(0.800000011920929), Some(0.6000000238418579), Some(0.0)]
        );
        let c = cross_scale_confidences(&[vec![one(0.0, 0.8)], vec![one(16.0, 0.6)], vec![]]);
        assert_eq!(
            c.map(|c| c.map(|c| (c * 100.0).round())),
            [Some(40.0), Some(30.0), Some(0.0)]
        );
        assert_eq!(
            cross_scale_confidences::<3>(&[vec![], vec![], vec![]]),
            [None; 3]
        );
    }

    #[test]
    fn an_unsure_die_only_one_scale_finds_counts_only_there() {
        // Four dice read alike at every scale, 2x a little less sure and
        // finding one phantom (a pip) besides: 1x stays the choice.
        let at = |k: usize| [100.0 * k as f32, 10.0];
        let dice = |c: f32, extra: Option<f32>| -> Vec<Sighting> {
            (0..4)
                .map(|k| (at(k), c))
                .chain(extra.map(|c| (at(4), c)))
                .map(|(center, confidence)| Sighting {
                    center,
                    size: 30.0,
                    confidence,
                })
                .collect()
        };
        let c =
            cross_scale_confidences(&[dice(0.9, None), dice(0.9, None), dice(0.88, Some(0.45))]);
        let c = c.map(|c| c.unwrap_or(-1.0));
        assert!(
            (c[0] - 0.9).abs() < 1e-6 && (c[1] - 0.9).abs() < 1e-6,
            "{c:?}"
        );
        assert!((c[2] - (4.0 * 0.88 + 0.45) / 5.0).abs() < 1e-6, "{c:?}");
        let mut cal = ScaleCalibration::default();
        for _ in 0..FRAMES_TO_CHOOSE {
            cal.observe_sightings(&[dice(0.9, None), dice(0.9, None), dice(0.88, Some(0.45))]);
        }
        assert_eq!(cal.chosen(), Some(1.0));
    }

    #[test]
    fn a_camera_judges_by_its_recent_frames() {
        let mut cal = ScaleCalibration::recent(3);
        for _ in 0..10 {
            cal.observe(&[scan(&[0.95], 0), scan(&[0.4], 0), scan(&[0.3], 0)]);
        }
        assert_eq!(cal.frames(), 3);
        assert_eq!(cal.leading(), 1.0);
        // The dice change size (the camera was raised): three frames decide.
        for _ in 0..3 {
            cal.observe(&[
                scan(&[0.5], 1),
                scan(&[0.95, 0.9], 0),
                scan(&[0.9, 0.85], 0),
            ]);
        }
        assert_eq!(cal.leading(), 1.5);
    }

    #[test]
    fn a_larger_scale_must_be_clearly_surer() {
        let mut cal = ScaleCalibration::default();
        // 2x a little surer than 1x, but within the margin: stay as is.
        cal.observe(&[scan(&[0.9], 0), scan(&[0.5], 0), scan(&[0.91], 0)]);
        assert_eq!(cal.leading(), 1.0);
        let mut cal = ScaleCalibration::default();
        cal.observe(&[scan(&[0.8], 0), scan(&[0.85], 0), scan(&[0.95], 0)]);
        assert_eq!(cal.leading(), 2.0);
    }

    fn reader() -> DiceReader {
        DiceReader::from_model_bytes(crate::vision::scan::BUILTIN_DICE_MODEL)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// A real die (a 56 px crop of a byler-d6 training photo, showing 4) on
    /// a frame of its table's colour, shrunk by `factor`.
    fn die_frame(factor: f32) -> RgbImage {
        let crop = image::load_from_memory(include_bytes!("../../../tests/fixtures/die_4_19.png"))
            .unwrap_or_else(|e| panic!("{e}"))
            .to_rgb8();
        let mut frame = RgbImage::from_pixel(160, 120, *crop.get_pixel(0, 0));
        image::imageops::replace(&mut frame, &crop, 40, 30);
        let (w, h) = (
            (160.0 * factor).round() as u32,
            (120.0 * factor).round() as u32,
        );
        image::imageops::resize(&frame, w, h, image::imageops::FilterType::Triangle)
    }

    fn found(s: &DiceScan) -> Vec<([f32; 2], f32)> {
        s.dice
            .iter()
            .map(|d| (d.center, d.size))
            .chain(s.unread.iter().map(|u| (u.center, u.size)))
            .collect()
    }

    #[test]
    fn an_enlarged_read_reports_positions_in_the_frames_own_pixels() {
        let r = reader();
        let as_is = r.read_scaled(&die_frame(1.0), 1.0);
        assert_eq!(found(&as_is).len(), 1, "{as_is:?}");
        // The same die at half the resolution, read enlarged twice, is where
        // it is in the small frame and about half the size.
        let twice = r.read_scaled(&die_frame(0.5), 2.0);
        let f = found(&twice);
        assert_eq!(f.len(), 1, "{twice:?}");
        let ([x, y], size) = f[0];
        let [ax, ay] = found(&as_is)[0].0;
        // Pixel centres: (x + 0.5) / 2 - 0.5 in the half-size frame. The
        // detector centres a blurred, enlarged die a few pixels differently
        // (8 enlarged px with round s30's detector), so the tolerance is a
        // sixth of the half-size die: reads left in enlarged pixels would be
        // about 33 px off.
        let (ex, ey) = ((ax + 0.5) / 2.0 - 0.5, (ay + 0.5) / 2.0 - 0.5);
        let tolerance = found(&as_is)[0].1 / 2.0 / 6.0;
        assert!(
            (x - ex).abs() < tolerance && (y - ey).abs() < tolerance,
            "{f:?} vs {as_is:?}"
        );
        let ratio = size / found(&as_is)[0].1;
        assert!((0.35..0.65).contains(&ratio), "{f:?} vs {as_is:?}");
        assert_eq!(twice.dice.first().map(|d| d.value), Some(4), "{twice:?}");
    }

    #[test]
    fn enlarged_frames_stay_within_the_pixel_limit() {
        assert_eq!(enlarged_size(1280, 720, 1.5), (1920, 1080));
        assert_eq!(enlarged_size(1920, 1080, 2.0), (3840, 2160));
        // Larger frames are enlarged less, a 4K one not at all, none shrunk.
        let (w, h) = enlarged_size(2560, 1440, 2.0);
        assert!(w as u64 * h as u64 <= MAX_ENLARGED_PIXELS + 4000, "{w}x{h}");
        assert!(w > 2560 && h > 1440, "{w}x{h}");
        assert_eq!(enlarged_size(3840, 2160, 2.0), (3840, 2160));
        assert_eq!(enlarged_size(8000, 6000, 1.5), (8000, 6000));
        assert_eq!(enlarged_size(640, 480, 1.0), (640, 480));
    }

    #[test]
    fn enlarging_never_goes_past_the_pixel_limit() {
        let r = reader();
        // A 1 px high frame is refused as too small at any scale: empty scan.
        let thin = RgbImage::new(200, 1);
        assert_eq!(r.read_scaled(&thin, 2.0), DiceScan::default());
        let blank = image::DynamicImage::ImageRgb8(RgbImage::new(40, 30));
        let all = r
            .read_at_scales(&blank, READ_SCALES)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(all.iter().all(|s| s.dice.is_empty()));
    }
}
