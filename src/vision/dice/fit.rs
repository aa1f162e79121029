//! Fitting the dice model from a labelled set (`shared/data/FORMAT.md`), and
//! evaluating a reader on held-out images.
//!
//! Split (by position in file-name order of the 250 byler-d6 images, which is
//! also time order; see [`Part`]): neighbouring photos show the same dice, so
//! parts are contiguous blocks, and a guard band of photos just before each
//! held-out block is used for nothing.
//!
//! Classifier fitting uses online augmentation: the positive crops (labelled
//! dice and the detector's hits on them) are re-sampled every epoch with
//! fresh geometric (centre, size, angle), photometric (brightness, colour
//! gains, contrast), channel-order, blur, low-resolution, noise and
//! specular-glint jitter under a random dihedral transform; all card-photo
//! "not a die" crops and a fresh subsample of the other fixed negatives are
//! added; after every epoch the network is scored on the tune part's detector
//! candidates and the best snapshot (from 30 % of the epochs on) is kept,
//! unless the weight average of the last 40 % of the epochs scores better.
//! The tune part then chooses the thresholds (multiset matches minus three times
//! the reads matching nothing). Everything is seeded: the same command gives
//! the same model bytes.

use std::path::{Path, PathBuf};

use image::RgbImage;

use super::classify::{CROP_SCALE, classify, probs_of};
use super::cnn::{self, FaceNet};
use super::cpu::Cpu;
use super::crop::{GRID, N_CROP_FEATURES, aligned_crop, crop_features, transform_features};
use super::find::{
    Candidate, DET_STRIDE, cell_center, find_candidates_reference, nms, passes_prefilter, to_frame,
};
use super::mlp::{Mlp, TrainOptions, XorShift, sigmoid};
use super::model::{DiceModel, N_CLASSES};
use super::prep::{N_DET_FEATURES, det_features, prepare};
use super::synth;
use super::{DiceReader, MAX_PIXELS};
use crate::vision::error::VisionError;

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
    let img = image::open(path).map_err(|source| VisionError::Decode {
        path: path.to_path_buf(),
        source,
    })?;
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

/// Options of [`fit`].
#[derive(Debug, Clone)]
pub struct FitOptions {
    /// Dice set directory (with labels.json).
    pub set_dir: PathBuf,
    /// Directories of card photos used only as "not a die" examples: all
    /// their photos but `single_*`, at `CARD_LONG_SIDES`, every epoch.
    pub card_dirs: Vec<PathBuf>,
    /// Further card photo sets (directory, file-name prefix) used only as
    /// "not a die" examples: the photos whose name starts with the prefix, at
    /// their own size, [`SAMPLED_CARD_NEG_PER_EPOCH`] of them drawn per epoch.
    pub sampled_card_sets: Vec<(PathBuf, String)>,
    /// Random seed.
    pub seed: u64,
    /// Detector epochs.
    pub det_epochs: usize,
    /// Classifier epochs.
    pub clf_epochs: usize,
    /// Output channels of the classifier's two convolutions (the shipped
    /// model: [`cnn::C1`], [`cnn::C2`]).
    pub cnn_widths: (usize, usize),
    /// Print progress to stderr.
    pub verbose: bool,
    /// Which images fit the weights and how the thresholds are set.
    pub protocol: Protocol,
    /// Synthetic dice ([`super::synth`]) drawn per classifier epoch on
    /// patches of the training photos, as extra positives (0: none).
    pub synthetic_per_epoch: usize,
    /// Renderer of the synthetic dice.
    pub synthetic_style: synth::SynthStyle,
    /// Jittered crops per epoch around each detector candidate on a training
    /// die (besides its plain crop), so the classifier sees more crops with
    /// the detector's centre and size errors (0: none, the shipped model).
    pub candidate_jitter: usize,
    /// Further labelled dice sets whose images all join the training part
    /// (after the main set's, whose split is unchanged).
    pub extra_train_sets: Vec<PathBuf>,
    /// Table photo sets (directory, file-name prefix) on which
    /// [`DICE_PER_SCENE`] drawn dice are placed, one scene per photo, as
    /// extra detector training images: the photo set's light box is the
    /// only table the detector would otherwise see (none: the shipped fit
    /// before round s30).
    pub detector_scene_sets: Vec<(PathBuf, String)>,
}

/// How a fit uses the tune part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Protocol {
    /// Weights on the training part; the classifier snapshot and both
    /// thresholds chosen on the tune part.
    Select,
    /// As [`Protocol::Select`] but choosing on tune half A only; half B is
    /// left out (as a guard band) and the held-out part is not evaluated. The
    /// baseline of [`Protocol::CheckFinal`] on half B.
    CheckSelect,
    /// Weights on the training and tune parts for the fixed epoch count, the
    /// final weights kept (no snapshot choice: the tune part is trained on),
    /// and the given thresholds (from a [`Protocol::Select`] fit).
    Final {
        /// Detector threshold.
        det_threshold: f32,
        /// Read threshold.
        read_threshold: f32,
    },
    /// As [`Protocol::Final`] but with only tune half A added to the training
    /// images ([`in_tune_half_a`]); half B stays the tune part (logged per
    /// epoch, chosen on nothing) and the held-out part is not evaluated. Checks
    /// the final protocol against [`Protocol::Select`] on half B.
    CheckFinal {
        /// Detector threshold.
        det_threshold: f32,
        /// Read threshold.
        read_threshold: f32,
    },
}

impl Protocol {
    /// The fixed thresholds of a final fit (`None` for a selection fit).
    fn fixed_thresholds(self) -> Option<(f32, f32)> {
        match self {
            Protocol::Select | Protocol::CheckSelect => None,
            Protocol::Final {
                det_threshold,
                read_threshold,
            }
            | Protocol::CheckFinal {
                det_threshold,
                read_threshold,
            } => Some((det_threshold, read_threshold)),
        }
    }

    /// The part an image takes in this fit: tune images that the protocol
    /// trains on count as training images.
    fn part_of(self, index: usize) -> Part {
        let p = part_of(index);
        match (self, p) {
            (Protocol::Final { .. }, Part::Tune) => Part::Train,
            (Protocol::CheckFinal { .. }, Part::Tune) if in_tune_half_a(index) == Some(true) => {
                Part::Train
            }
            (Protocol::CheckSelect, Part::Tune) if in_tune_half_a(index) == Some(false) => {
                Part::Guard
            }
            _ => p,
        }
    }
}

impl FitOptions {
    /// Defaults used for the shipped model.
    pub fn new(set_dir: PathBuf) -> Self {
        Self {
            set_dir,
            card_dirs: Vec::new(),
            sampled_card_sets: Vec::new(),
            seed: 7,
            det_epochs: 12,
            clf_epochs: 80,
            cnn_widths: (cnn::C1, cnn::C2),
            verbose: true,
            protocol: Protocol::Select,
            synthetic_per_epoch: 0,
            synthetic_style: synth::SynthStyle::V1,
            candidate_jitter: 0,
            extra_train_sets: Vec::new(),
            detector_scene_sets: Vec::new(),
        }
    }
}

/// Fit only the detector, as [`fit`] would (same images, same random
/// numbers), and return it with the fit log: for swapping a refitted
/// detector into a model whose classifier is kept
/// (`fit-dice --detector-only`).
pub fn fit_detector_only(opts: &FitOptions) -> Result<(Mlp, String), VisionError> {
    let mut out = String::new();
    let (items, parts) = fit_images(opts)?;
    let mut rng = XorShift::new(opts.seed);
    let mut images: Vec<Option<RgbImage>> = Vec::with_capacity(items.len());
    for (it, p) in items.iter().zip(&parts) {
        images.push(if *p == Part::Train {
            Some(load_rgb(&it.path)?)
        } else {
            None
        });
    }
    let det = fit_detector(opts, &items, &parts, &images, &mut rng, &mut out)?;
    Ok((det, out))
}

/// The images of a fit and the part each takes: the main set split by the
/// protocol, then every image of the extra training sets as training images.
fn fit_images(opts: &FitOptions) -> Result<(Vec<LabelledImage>, Vec<Part>), VisionError> {
    let mut items = load_set(&opts.set_dir)?;
    if items.is_empty() {
        return Err(VisionError::InvalidInput {
            what: "empty labels.json".into(),
        });
    }
    let protocol = opts.protocol;
    let mut parts: Vec<Part> = (0..items.len()).map(|i| protocol.part_of(i)).collect();
    for dir in &opts.extra_train_sets {
        let extra = load_set(dir)?;
        parts.extend(std::iter::repeat_n(Part::Train, extra.len()));
        items.extend(extra);
    }
    Ok((items, parts))
}

/// Card photos are resized to these long sides (px) before mining "not a die"
/// examples: cards then span roughly 150-400 px, as at webcam distances.
const CARD_LONG_SIDES: [u32; 3] = [640, 960, 1280];

/// "Not a die" examples drawn per epoch (without replacement) from the pool
/// mined on [`FitOptions::sampled_card_sets`]: cluttered phone photos (text,
/// carpet, card faces) give thousands of candidates; a fixed-size draw keeps
/// the epoch cost bounded while every epoch sees a fresh part of them.
pub const SAMPLED_CARD_NEG_PER_EPOCH: usize = 2000;
/// Random dihedral transforms per candidate mined on the sampled card sets
/// (fewer than the 4 of the every-epoch card photos: the pool is larger and
/// the crop positions matter more than their rotations).
const SAMPLED_CARD_TRANSFORMS: usize = 2;
/// Seed offset of the generators used only for the sampled card sets, so that
/// a fit without them draws exactly the same numbers as before they existed.
const SAMPLED_CARD_SEED: u64 = 0x5A4D_0C4D;

/// Hidden units of the detector MLP.
const DET_HIDDEN: usize = 24;
/// Initial learning rate of the classifier (decays linearly).
pub(super) const CLF_LR: f32 = 0.02;
/// Hidden units of the classifier MLP.
const CLF_HIDDEN: usize = 32;
/// A cell is a positive detector example within this share of the die size of
/// its centre (at least [`POS_MIN_PX`]).
const POS_FRACTION: f32 = 0.15;
/// Minimum positive radius (frame px): half a grid step diagonal plus margin.
const POS_MIN_PX: f32 = 3.0;
/// A cell is a negative detector example beyond this share of the die size.
const NEG_FRACTION: f32 = 0.45;
/// Negatives within this share of a die size are "hard" and all kept.
const HARD_FRACTION: f32 = 1.5;
/// Share of the remaining (easy) negatives kept.
const EASY_KEEP: f32 = 0.08;
/// Detector threshold used when mining candidates for the classifier and when
/// tuning (the tuned threshold is never below it).
pub const MINE_THRESHOLD: f32 = 0.1;
/// NMS radius as share of die size (touching dice have centres about one die
/// side apart; the box of a rotated die is up to 1.4 sides).
const NMS_FACTOR: f32 = 0.55;
/// Full range (radians) of the random angle error added to jittered training
/// crops, simulating orientation-estimate error.
const ANGLE_JITTER: f32 = 0.3;
/// Jittered training crops per labelled die and epoch (online augmentation:
/// every epoch draws fresh crops, each under one random dihedral transform).
const JITTERED_PER_DIE: usize = 4;
/// Table / synthetic-card "not a die" examples drawn (without replacement)
/// from the fixed pool per epoch; card-photo negatives are all used every
/// epoch.
const NEG_PER_EPOCH: usize = 4000;
/// Overall brightness gain jitter (relative, either way).
const BRIGHT_JITTER: f32 = 0.2;
/// Contrast jitter around the crop mean (relative, either way).
const CONTRAST_JITTER: f32 = 0.15;
/// Probability that a jittered crop is blurred (3x3 binomial) to simulate
/// defocus and small dice.
const BLUR_PROB: f32 = 0.15;
/// Probability that a jittered crop gets a synthetic specular glint (bright
/// band), as seen on glossy / translucent dice.
const GLINT_PROB: f32 = 0.2;
/// Standard deviation range of added pixel noise (0-255 units).
const NOISE_MAX: f32 = 3.0;
/// Model selection: the CNN snapshot scoring best on the tune part after any
/// epoch from this share of the epochs on is kept.
const SELECT_FROM: f32 = 0.3;
/// The weights averaged over every epoch from this share of the epochs on
/// (stochastic weight averaging) compete with the best single snapshot on
/// the tune part.
const SWA_FROM: f32 = 0.6;
/// Threshold tuning: cost of a read that matches no labelled value, in
/// multiset matches (an unread die costs 1).
const MISREAD_COST: i64 = 3;
/// Centre jitter of training crops, as share of die size (either way).
const CENTER_JITTER: f32 = 0.1;
/// Size jitter of training crops (relative, either way).
const SIZE_JITTER: f32 = 0.25;
/// Colour gain jitter of training crops (relative, either way, per channel).
const GAIN_JITTER: f32 = 0.12;
/// Probability that a jittered crop gets its colour channels permuted (one
/// of the 5 non-identity orders): face and pip colours then take hues the
/// training dice do not have (e.g. red pips on a blue face).
const CHANNEL_PERM_PROB: f32 = 0.3;
/// Probability that a jittered crop is degraded to a lower resolution
/// (box-downsampled to [`SHRINK_CELLS`] cells across, then bilinearly
/// upsampled back to the grid): a die of about 32 px already spans the grid
/// at one pixel per cell, so this mimics smaller, defocused or heavily
/// compressed dice more faithfully than the 3x3 blur.
const SHRINK_PROB: f32 = 0.2;
/// Range of the degraded resolution (cells across the crop).
const SHRINK_CELLS: (usize, usize) = (GRID * 13 / 24, GRID * 21 / 24);
/// Salt of the synthetic dice's random stream.
const SYNTH_SEED: u64 = 0x5D1C_E5ED;
/// A detection matches a labelled die when within this share of its size.
const MATCH_FRACTION: f32 = 0.4;
/// Drawn dice per table photo in the detector's scenes.
pub const DICE_PER_SCENE: usize = 6;
/// Top-face sides (px) of the detector scenes' drawn dice: with their side
/// faces, boxes of about the photo set's 21-69 px.
pub const SCENE_FACE_SIDE: (f32, f32) = (18.0, 46.0);
/// Seed of the detector scenes' own random stream (xored with the fit seed).
const SCENE_SEED: u64 = 0x7AB1_E5CE;

fn dist(a: [f32; 2], b: [f32; 2]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// Nearest labelled die to `p`: (distance, index).
fn nearest(dice: &[LabelledDie], p: [f32; 2]) -> Option<(f32, usize)> {
    dice.iter()
        .enumerate()
        .map(|(i, d)| (dist(d.center, p), i))
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

/// Where a detector candidate lies among a frame's labelled dice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CandidateOn<'a> {
    /// Within `MATCH_FRACTION` (0.4) of this die's side of its centre: a read
    /// of it.
    Die(&'a LabelledDie),
    /// Off the nearest die's centre but within `NEG_FRACTION` (0.45) of its side:
    /// neither a die's crop nor a clean "not a die" (left out).
    NearDie,
    /// Away from every die: "not a die".
    NoDie,
}

/// Match a candidate centred at `center` against the labelled `dice` (the
/// nearest one decides), as the fitter labels its mined candidates.
pub fn candidate_on(dice: &[LabelledDie], center: [f32; 2]) -> CandidateOn<'_> {
    match nearest(dice, center) {
        Some((nd, ni)) if nd < MATCH_FRACTION * dice[ni].size => CandidateOn::Die(&dice[ni]),
        Some((nd, ni)) if nd < NEG_FRACTION * dice[ni].size => CandidateOn::NearDie,
        _ => CandidateOn::NoDie,
    }
}

/// A die's training crops for one epoch: its plain crop under photometric
/// jitter, then `jittered` fully jittered crops, each under one random
/// dihedral transform (the random draws in that order).
pub(super) fn push_die_crops(
    img: &RgbImage,
    d: &LabelledDie,
    jittered: usize,
    r: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    let base = CropSpec::plain(d.center, d.size, d.value as usize).photometric(r);
    push_crop(img, &base, &[r.below(8)], rows, classes);
    for _ in 0..jittered {
        let spec = CropSpec::jittered(d, r);
        push_crop(img, &spec, &[r.below(8)], rows, classes);
    }
}

fn log(verbose: bool, s: &str, out: &mut String) {
    if verbose {
        eprintln!("{s}");
    }
    out.push_str(s);
    out.push('\n');
}

/// Result of [`fit`].
#[derive(Debug, Clone)]
pub struct FitOutcome {
    /// The fitted model.
    pub model: DiceModel,
    /// Human-readable log (sample counts, tuning, held-out evaluation).
    pub log: String,
    /// Held-out images (for writing a labels subset for score.py).
    pub held_out: Vec<LabelledImage>,
    /// Held-out evaluation.
    pub eval: Evaluation,
}

fn detector_samples(
    img: &RgbImage,
    dice: &[LabelledDie],
    rng: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    targets: &mut Vec<(f32, f32)>,
) -> (usize, usize) {
    let p = prepare(img);
    let gw = p.w / DET_STRIDE;
    let gh = p.h / DET_STRIDE;
    let mut f = [0f32; N_DET_FEATURES];
    let mut missed_prefilter = 0;
    let mut pos = 0;
    for gy in 0..gh {
        for gx in 0..gw {
            let (cx, cy) = cell_center(gx, gy);
            let fc = [to_frame(cx as f32), to_frame(cy as f32)];
            let (d, i) = nearest(dice, fc).unwrap_or((f32::INFINITY, 0));
            let s = dice.get(i).map(|d| d.size).unwrap_or(40.0);
            let is_pos = d <= (POS_FRACTION * s).max(POS_MIN_PX);
            let pass = passes_prefilter(&p, cx, cy);
            if !pass {
                if is_pos {
                    missed_prefilter += 1;
                }
                continue;
            }
            let t = if is_pos {
                pos += 1;
                1.0
            } else if d > NEG_FRACTION * s {
                if d > HARD_FRACTION * s && rng.unit() > EASY_KEEP {
                    continue;
                }
                0.0
            } else {
                continue;
            };
            det_features(&p, cx, cy, &mut f);
            rows.push(f.to_vec());
            targets.push((t, s.ln()));
        }
    }
    (pos, missed_prefilter)
}

/// Fit the detector on the training part's cells (and, with
/// [`FitOptions::detector_scene_sets`], on drawn dice on other tables),
/// drawing from `rng` exactly as a fit without scenes always has.
fn fit_detector(
    opts: &FitOptions,
    items: &[LabelledImage],
    parts: &[Part],
    images: &[Option<RgbImage>],
    rng: &mut XorShift,
    out: &mut String,
) -> Result<Mlp, VisionError> {
    let v = opts.verbose;
    let mut rows = Vec::new();
    let mut targets = Vec::new();
    let (mut npos, mut nmiss) = (0, 0);
    for ((it, p), img) in items.iter().zip(parts).zip(images) {
        if let (Part::Train, Some(img)) = (p, img) {
            let (a, b) = detector_samples(img, &it.dice, rng, &mut rows, &mut targets);
            npos += a;
            nmiss += b;
        }
    }
    if !opts.detector_scene_sets.is_empty() {
        // A stream of its own, so the byler-d6 part above and everything
        // after draw the same numbers as a fit without scenes.
        let mut rs = XorShift::new(opts.seed ^ SCENE_SEED);
        let (mut scenes, mut drawn) = (0, 0);
        for (dir, prefix) in &opts.detector_scene_sets {
            for path in photo_paths(dir, prefix)? {
                let photo = load_rgb(&path)?;
                let (scene, dice) =
                    synth::draw_scene(&mut rs, &photo, DICE_PER_SCENE, SCENE_FACE_SIDE, &[], true);
                let (a, b) = detector_samples(&scene, &dice, &mut rs, &mut rows, &mut targets);
                npos += a;
                nmiss += b;
                scenes += 1;
                drawn += dice.len();
            }
        }
        log(
            v,
            &format!("detector scenes: {drawn} dice drawn on {scenes} table photos"),
            out,
        );
    }
    log(
        v,
        &format!(
            "detector: {} samples, {} positive cells, {} positive cells failed the prefilter",
            rows.len(),
            npos,
            nmiss
        ),
        out,
    );
    let mut det = Mlp::new(N_DET_FEATURES, DET_HIDDEN, 2, rng);
    det.set_standardisation(&rows);
    let topts = TrainOptions {
        epochs: opts.det_epochs,
        batch: 64,
        lr: 0.02,
        momentum: 0.9,
        weight_decay: 1e-5,
        seed: opts.seed + 1,
        verbose: v,
        clip_gradients: false,
    };
    let loss = det.train(&rows, &topts, |i, o, d| {
        let (t, ls) = targets[i];
        let p = sigmoid(o[0]);
        d[0] = p - t;
        let mut loss = -(t * p.max(1e-6).ln() + (1.0 - t) * (1.0 - p).max(1e-6).ln());
        if t > 0.5 {
            let e = o[1] - ls;
            d[1] = e;
            loss += 0.5 * e * e;
        } else {
            d[1] = 0.0;
        }
        loss
    });
    log(v, &format!("detector final loss {loss:.4}"), out);
    Ok(det)
}

/// One classifier training crop: where, which class, and its augmentation.
#[derive(Debug, Clone, Copy)]
pub(super) struct CropSpec {
    center: [f32; 2],
    size: f32,
    class: usize,
    /// Angle error added to the estimated face angle (radians).
    angle: f32,
    /// Per-channel colour gain (simulated white balance / lighting).
    gain: [f32; 3],
    /// Contrast factor around the crop mean.
    contrast: f32,
    /// Blur the sampled cells with a 3x3 binomial kernel.
    blur: bool,
    /// Pixel noise standard deviation (0-255 units) and its seed.
    noise: f32,
    noise_seed: u64,
    /// Specular glint: a bright band across the crop (glossy and
    /// translucent dice), as (angle, offset from the centre in cells,
    /// half-width in cells, strength 0-1); strength 0 = none.
    glint: [f32; 4],
    /// Colour channel order (index into [`CHANNEL_ORDERS`]; 0 = unchanged).
    perm: usize,
    /// Simulated crop resolution in cells across (box-downsampled to this
    /// and upsampled back); 0 = none.
    shrink: usize,
}

/// The 6 orders of the R, G, B channels; the first is the identity.
const CHANNEL_ORDERS: [[usize; 3]; 6] = [
    [0, 1, 2],
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
];

impl CropSpec {
    pub(super) fn plain(center: [f32; 2], size: f32, class: usize) -> Self {
        Self {
            center,
            size,
            class,
            angle: 0.0,
            gain: [1.0; 3],
            contrast: 1.0,
            blur: false,
            noise: 0.0,
            noise_seed: 0,
            glint: [0.0; 4],
            perm: 0,
            shrink: 0,
        }
    }
    /// Photometric jitter only (brightness, colour gains, contrast).
    pub(super) fn photometric(mut self, rng: &mut XorShift) -> Self {
        let b = 1.0 + (rng.unit() - 0.5) * 2.0 * BRIGHT_JITTER;
        let mut g = || b * (1.0 + (rng.unit() - 0.5) * 2.0 * GAIN_JITTER);
        self.gain = [g(), g(), g()];
        self.contrast = 1.0 + (rng.unit() - 0.5) * 2.0 * CONTRAST_JITTER;
        self
    }
    /// Full jitter: geometry (centre, size, angle), photometric, blur, noise.
    pub(super) fn jittered(d: &LabelledDie, rng: &mut XorShift) -> Self {
        let center = [
            d.center[0] + (rng.unit() - 0.5) * 2.0 * CENTER_JITTER * d.size,
            d.center[1] + (rng.unit() - 0.5) * 2.0 * CENTER_JITTER * d.size,
        ];
        let size = d.size * (1.0 + (rng.unit() - 0.5) * 2.0 * SIZE_JITTER);
        let mut s = Self::plain(center, size, d.value as usize).photometric(rng);
        s.angle = (rng.unit() - 0.5) * ANGLE_JITTER;
        s.blur = rng.unit() < BLUR_PROB;
        s.noise = rng.unit() * NOISE_MAX;
        s.noise_seed = rng.next_u64();
        if rng.unit() < GLINT_PROB {
            s.glint = [
                rng.unit() * std::f32::consts::PI,
                (rng.unit() - 0.5) * GRID as f32 * 0.6,
                0.6 + 1.4 * rng.unit(),
                0.4 + 0.5 * rng.unit(),
            ];
        }
        if rng.unit() < CHANNEL_PERM_PROB {
            s.perm = 1 + rng.below(CHANNEL_ORDERS.len() - 1);
        }
        if rng.unit() < SHRINK_PROB {
            s.shrink = SHRINK_CELLS.0 + rng.below(SHRINK_CELLS.1 - SHRINK_CELLS.0 + 1);
        }
        s
    }
}

/// Apply the photometric part of `spec` to sampled crop cells.
// Index loops over several parallel arrays read clearer than zipped iterators here.
#[allow(clippy::needless_range_loop)]
fn augment_cells(cells: &mut [[f32; 3]], side_cells: usize, spec: &CropSpec) {
    if spec.perm != 0 {
        let order = CHANNEL_ORDERS[spec.perm % CHANNEL_ORDERS.len()];
        for p in cells.iter_mut() {
            *p = [p[order[0]], p[order[1]], p[order[2]]];
        }
    }
    if spec.shrink > 0 && cells.len() == side_cells * side_cells {
        shrink_cells(cells, side_cells, spec.shrink);
    }
    if spec.blur && cells.len() == side_cells * side_cells {
        let src = cells.to_vec();
        let g = side_cells as i64;
        let at = |x: i64, y: i64| src[(y.clamp(0, g - 1) * g + x.clamp(0, g - 1)) as usize];
        for y in 0..g {
            for x in 0..g {
                let mut acc = [0f32; 3];
                for (dy, wy) in [(-1i64, 1.0f32), (0, 2.0), (1, 1.0)] {
                    for (dx, wx) in [(-1i64, 1.0f32), (0, 2.0), (1, 1.0)] {
                        let p = at(x + dx, y + dy);
                        for c in 0..3 {
                            acc[c] += p[c] * wx * wy / 16.0;
                        }
                    }
                }
                cells[(y * g + x) as usize] = acc;
            }
        }
    }
    if spec.gain != [1.0; 3] || spec.contrast != 1.0 {
        let n = cells.len().max(1) as f32;
        let mut mean = [0f32; 3];
        for p in cells.iter() {
            for c in 0..3 {
                mean[c] += p[c] * spec.gain[c] / n;
            }
        }
        for p in cells.iter_mut() {
            for c in 0..3 {
                let v = p[c] * spec.gain[c];
                p[c] = (mean[c] + (v - mean[c]) * spec.contrast).clamp(0.0, 255.0);
            }
        }
    }
    if spec.glint[3] > 0.0 && cells.len() == side_cells * side_cells {
        let [ang, off, half, strength] = spec.glint;
        let (sn, cs) = ang.sin_cos();
        let c = (side_cells as f32 - 1.0) / 2.0;
        for (k, p) in cells.iter_mut().enumerate() {
            let (x, y) = ((k % side_cells) as f32 - c, (k / side_cells) as f32 - c);
            let d = (x * cs + y * sn - off).abs();
            if d < half + 1.0 {
                let w = strength * (half + 1.0 - d).min(1.0);
                for v in p.iter_mut() {
                    *v += (250.0 - *v) * w;
                }
            }
        }
    }
    if spec.noise > 0.0 {
        let mut rng = XorShift::new(spec.noise_seed);
        for p in cells.iter_mut() {
            for c in 0..3 {
                p[c] = (p[c] + rng.normal() * spec.noise).clamp(0.0, 255.0);
            }
        }
    }
}

/// Degrade a `g x g` cell grid to the resolution of an `n x n` image: box
/// (area) downsampling to `n x n`, then bilinear upsampling back to `g x g`.
fn shrink_cells(cells: &mut [[f32; 3]], g: usize, n: usize) {
    if n == 0 || n >= g {
        return;
    }
    let k = g as f32 / n as f32;
    let mut small = vec![[0f32; 3]; n * n];
    // Area weights of source cell i in target cell j along one axis.
    let overlap = |j: usize, i: usize| {
        let (a, b) = (j as f32 * k, (j + 1) as f32 * k);
        ((i + 1) as f32).min(b) - (i as f32).max(a)
    };
    for ty in 0..n {
        let ys = (ty as f32 * k) as usize..(((ty + 1) as f32 * k).ceil() as usize).min(g);
        for tx in 0..n {
            let xs = (tx as f32 * k) as usize..(((tx + 1) as f32 * k).ceil() as usize).min(g);
            let mut acc = [0f32; 3];
            let mut wsum = 0f32;
            for y in ys.clone() {
                let wy = overlap(ty, y).max(0.0);
                for x in xs.clone() {
                    let w = wy * overlap(tx, x).max(0.0);
                    for (a, v) in acc.iter_mut().zip(cells[y * g + x]) {
                        *a += w * v;
                    }
                    wsum += w;
                }
            }
            small[ty * n + tx] = acc.map(|a| a / wsum.max(1e-6));
        }
    }
    for y in 0..g {
        let sy = ((y as f32 + 0.5) / k - 0.5).clamp(0.0, (n - 1) as f32);
        let (y0, fy) = (sy.floor() as usize, sy.fract());
        let y1 = (y0 + 1).min(n - 1);
        for x in 0..g {
            let sx = ((x as f32 + 0.5) / k - 0.5).clamp(0.0, (n - 1) as f32);
            let (x0, fx) = (sx.floor() as usize, sx.fract());
            let x1 = (x0 + 1).min(n - 1);
            let mut v = [0f32; 3];
            for (c, o) in v.iter_mut().enumerate() {
                let top = small[y0 * n + x0][c] * (1.0 - fx) + small[y0 * n + x1][c] * fx;
                let bot = small[y1 * n + x0][c] * (1.0 - fx) + small[y1 * n + x1][c] * fx;
                *o = top * (1.0 - fy) + bot * fy;
            }
            cells[y * g + x] = v;
        }
    }
}

/// Add the crop under the given dihedral transforms.
pub(super) fn push_crop(
    img: &RgbImage,
    spec: &CropSpec,
    transforms: &[usize],
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    // Fitting is not per frame: the cached feature query per crop is enough.
    let cpu = Cpu::detect();
    let (mut cells, side) = aligned_crop(
        img,
        spec.center[0],
        spec.center[1],
        spec.size,
        CROP_SCALE,
        spec.angle,
        cpu,
    );
    augment_cells(&mut cells, GRID, spec);
    for &t in transforms {
        rows.push(crop_features(&cells, side, t, cpu));
        classes.push(spec.class);
    }
}

pub(super) fn random_transforms(rng: &mut XorShift, n: usize) -> Vec<usize> {
    let start = rng.below(8);
    (0..n).map(|k| (start + k * 3) % 8).collect()
}

/// Fit the model on the Train part, choose thresholds on the Tune part and
/// evaluate on the HeldOut part.
pub fn fit(opts: &FitOptions) -> Result<FitOutcome, VisionError> {
    let mut out = String::new();
    let v = opts.verbose;
    if !FaceNet::widths_ok(opts.cnn_widths) {
        let (c1, c2) = opts.cnn_widths;
        return Err(VisionError::InvalidInput {
            what: format!(
                "classifier widths {c1},{c2}: each must be 1-{}",
                cnn::MAX_WIDTH
            ),
        });
    }
    let (items, parts) = fit_images(opts)?;
    let mut rng = XorShift::new(opts.seed);
    let protocol = opts.protocol;
    let count = |p: Part| parts.iter().filter(|q| **q == p).count();
    log(
        v,
        &format!(
            "images: {} train, {} tune, {} guard, {} held out",
            count(Part::Train),
            count(Part::Tune),
            count(Part::Guard),
            count(Part::HeldOut)
        ),
        &mut out,
    );
    let mut images: Vec<Option<RgbImage>> = Vec::with_capacity(items.len());
    for (it, p) in items.iter().zip(&parts) {
        images.push(if *p == Part::Guard {
            None
        } else {
            Some(load_rgb(&it.path)?)
        });
    }
    // ---- detector ----
    let det = fit_detector(opts, &items, &parts, &images, &mut rng, &mut out)?;
    // ---- classifier ----
    // Positives are kept as crop positions and re-cropped with fresh
    // augmentation every epoch; "not a die" examples form a fixed pool that is
    // subsampled per epoch.
    let mut pos: Vec<(usize, LabelledDie, bool)> = Vec::new();
    let mut rows: Vec<Vec<f32>> = Vec::new();
    let mut classes: Vec<usize> = Vec::new();
    let mut det_hits = 0;
    let mut det_fp = 0;
    for (k, ((it, p), img)) in items.iter().zip(&parts).zip(&images).enumerate() {
        let (Part::Train, Some(img)) = (p, img) else {
            continue;
        };
        for d in &it.dice {
            pos.push((k, *d, true));
            // Off-centre crop (half die / between touching dice) as a negative.
            let ang = rng.unit() * std::f32::consts::TAU;
            let r = d.size * (0.55 + 0.25 * rng.unit());
            let c = [d.center[0] + r * ang.cos(), d.center[1] + r * ang.sin()];
            if let Some((nd, ni)) = nearest(&it.dice, c)
                && nd > NEG_FRACTION * it.dice[ni].size
            {
                let tr = random_transforms(&mut rng, 2);
                push_crop(
                    img,
                    &CropSpec::plain(c, d.size, 0),
                    &tr,
                    &mut rows,
                    &mut classes,
                );
            }
        }
        // Mined detector candidates.
        let pr = prepare(img);
        for c in find_candidates_reference(&pr, &det, MINE_THRESHOLD, NMS_FACTOR, 1) {
            match candidate_on(&it.dice, c.center) {
                CandidateOn::Die(d) => {
                    det_hits += 1;
                    let die = LabelledDie {
                        value: d.value,
                        center: c.center,
                        size: c.size,
                    };
                    pos.push((k, die, false));
                }
                CandidateOn::NearDie => {}
                CandidateOn::NoDie => {
                    det_fp += 1;
                    let tr = random_transforms(&mut rng, 4);
                    push_crop(
                        img,
                        &CropSpec::plain(c.center, c.size, 0),
                        &tr,
                        &mut rows,
                        &mut classes,
                    );
                }
            }
        }
        // A synthetic playing card pasted on the table: everything the detector
        // finds on it, and crops at its corners, are "not a die".
        card_negatives_synthetic(img, &it.dice, &det, &mut rng, &mut rows, &mut classes);
        // Random background crops.
        for _ in 0..8 {
            let c = [
                rng.unit() * img.width() as f32,
                rng.unit() * img.height() as f32,
            ];
            let s = 21.0 + 48.0 * rng.unit();
            if let Some((nd, ni)) = nearest(&it.dice, c)
                && nd > NEG_FRACTION * it.dice[ni].size
            {
                push_crop(
                    img,
                    &CropSpec::plain(c, s, 0),
                    &[rng.below(8)],
                    &mut rows,
                    &mut classes,
                );
            }
        }
    }
    log(
        v,
        &format!("mined on train: {det_hits} candidates on dice, {det_fp} off dice"),
        &mut out,
    );
    let mut card_negs = 0;
    let n_table_negs = rows.len();
    for cd in &opts.card_dirs {
        card_negs += card_negatives(cd, &det, &mut rng, &mut rows, &mut classes)?;
    }
    log(v, &format!("card-photo negatives: {card_negs}"), &mut out);
    let neg_pool = rows;
    let sampled_pool = sampled_card_negatives(&opts.sampled_card_sets, &det, opts.seed)?;
    if !opts.sampled_card_sets.is_empty() {
        log(
            v,
            &format!(
                "sampled card-photo negatives: {} in the pool, {} per epoch",
                sampled_pool.len(),
                SAMPLED_CARD_NEG_PER_EPOCH.min(sampled_pool.len())
            ),
            &mut out,
        );
    }
    log(
        v,
        &format!(
            "classifier: {} positive crop positions, {} negative pool; per epoch {} + {} jittered per labelled die + all {} card-photo negatives + {} other negatives",
            pos.len(),
            neg_pool.len(),
            pos.len(),
            JITTERED_PER_DIE,
            neg_pool.len() - n_table_negs,
            NEG_PER_EPOCH.min(n_table_negs)
        ),
        &mut out,
    );
    // Tune-part candidates for model selection between epochs.
    let mut tune_cands: Vec<(usize, Vec<Vec<f32>>, Option<usize>)> = Vec::new();
    let cpu = Cpu::detect();
    for (k, ((it, p), img)) in items.iter().zip(&parts).zip(&images).enumerate() {
        let (Part::Tune, Some(img)) = (p, img) else {
            continue;
        };
        let pr = prepare(img);
        for c in find_candidates_reference(&pr, &det, MINE_THRESHOLD, NMS_FACTOR, 1) {
            let (cells, side) =
                aligned_crop(img, c.center[0], c.center[1], c.size, CROP_SCALE, 0.0, cpu);
            let f0 = crop_features(&cells, side, 0, cpu);
            let feats: Vec<Vec<f32>> = (0..8).map(|t| transform_features(&f0, t)).collect();
            let class = match candidate_on(&it.dice, c.center) {
                CandidateOn::Die(d) => Some(d.value as usize),
                CandidateOn::NearDie => None,
                CandidateOn::NoDie => Some(0),
            };
            tune_cands.push((k, feats, class));
        }
    }
    // Table photos the synthetic dice are drawn on: the training part's.
    let train_tables: Vec<&RgbImage> = images
        .iter()
        .zip(&parts)
        .filter(|(_, p)| **p == Part::Train)
        .filter_map(|(img, _)| img.as_ref())
        .collect();
    if opts.synthetic_per_epoch > 0 {
        log(
            v,
            &format!(
                "synthetic dice: {} per epoch (style {:?}) on {} training photos",
                opts.synthetic_per_epoch,
                opts.synthetic_style,
                train_tables.len()
            ),
            &mut out,
        );
    }
    let regen = |epoch: usize, rows: &mut Vec<Vec<f32>>, classes: &mut Vec<usize>| {
        let mut r = XorShift::new(opts.seed.wrapping_mul(1_000_003).wrapping_add(epoch as u64));
        rows.clear();
        classes.clear();
        for (k, d, jitter) in &pos {
            let Some(img) = images[*k].as_ref() else {
                continue;
            };
            // Labelled boxes get the usual jittered crops; detector
            // candidates only with `candidate_jitter` (none draws no random
            // numbers, so the shipped fit is unchanged).
            let extra = if *jitter {
                JITTERED_PER_DIE
            } else {
                opts.candidate_jitter
            };
            push_die_crops(img, d, extra, &mut r, rows, classes);
        }
        // Synthetic dice from their own random stream, so the real crops
        // and negatives are drawn as without them.
        if opts.synthetic_per_epoch > 0 && !train_tables.is_empty() {
            let mut rs = XorShift::new(
                opts.seed
                    .wrapping_mul(0x9E37_79B9)
                    .wrapping_add(epoch as u64)
                    ^ SYNTH_SEED,
            );
            for i in 0..opts.synthetic_per_epoch {
                let table = train_tables[rs.below(train_tables.len())];
                let value = 1 + (i % 6) as u8;
                if let Some((img, d)) =
                    synth::render_die_styled(&mut rs, table, value, opts.synthetic_style)
                {
                    let spec = CropSpec::jittered(&d, &mut rs);
                    push_crop(&img, &spec, &[rs.below(8)], rows, classes);
                }
            }
        }
        // Card-photo negatives every epoch (cards on the table are the
        // likeliest false dice), a fresh subsample of the other negatives.
        for f in &neg_pool[n_table_negs..] {
            rows.push(f.clone());
            classes.push(0);
        }
        push_draw(
            &neg_pool[..n_table_negs],
            NEG_PER_EPOCH,
            &mut r,
            rows,
            classes,
        );
        push_sampled(&sampled_pool, opts.seed, epoch, rows, classes);
    };
    let mut best_net: Option<(usize, usize, f64, FaceNet)> = None;
    let select_from = (opts.clf_epochs as f32 * SELECT_FROM) as usize;
    let mut epoch_log = String::new();
    let mut swa: Option<(FaceNet, usize)> = None;
    let swa_from = (opts.clf_epochs as f32 * SWA_FROM) as usize;
    // Sums of the per-candidate tune nll and of the right candidates over the
    // late epochs, and their count: a variant's level that moves much less
    // between fits than the chosen snapshot's count (see `fit`'s log).
    let mut late_nll = (0f64, 0f64, 0usize);
    let after = |epoch: usize, net: &FaceNet| {
        let (correct, nll, n) = tune_score(net, &tune_cands);
        let line = format!(
            "  tune after epoch {epoch}: {correct}/{n} candidates right, nll {:.4}",
            nll / n.max(1) as f64
        );
        if v {
            eprintln!("{line}");
        }
        epoch_log.push_str(&line);
        epoch_log.push('\n');
        let better = match &best_net {
            None => true,
            Some((_, c, l, _)) => (correct, -nll) > (*c, -*l),
        };
        if epoch >= select_from && better && protocol.fixed_thresholds().is_none() {
            best_net = Some((epoch, correct, nll, net.clone()));
        }
        if epoch >= swa_from {
            late_nll.0 += nll / n.max(1) as f64;
            late_nll.1 += correct as f64;
            late_nll.2 += 1;
            match &mut swa {
                None => swa = Some((net.clone(), 1)),
                Some((sum, k)) => {
                    for (a, b) in sum.params_mut().into_iter().zip(net.params()) {
                        a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    }
                    *k += 1;
                }
            }
        }
    };
    let mut clf = FaceNet::new_with_widths(
        N_CROP_FEATURES,
        opts.cnn_widths,
        CLF_HIDDEN,
        N_CLASSES,
        &mut rng,
    );
    let copts = TrainOptions {
        epochs: opts.clf_epochs,
        batch: 32,
        lr: CLF_LR,
        momentum: 0.9,
        weight_decay: 1e-4,
        seed: opts.seed + 2,
        verbose: v,
        // A fixed-epoch fit keeps its last weights, so one outlier batch can
        // ruin it (a seed-8 check fit diverged to a constant output); a
        // selection fit falls back on its best tune snapshot and is fitted
        // as the shipped model was (clipping it scored lower on the tune part
        // with seeds 7 and 8).
        clip_gradients: protocol.fixed_thresholds().is_some(),
    };
    // Initial sample set (for the scalar standardisation).
    let mut rows: Vec<Vec<f32>> = Vec::new();
    let mut classes: Vec<usize> = Vec::new();
    regen(usize::MAX / 2, &mut rows, &mut classes);
    let mut hist = [0usize; N_CLASSES];
    classes.iter().for_each(|c| hist[*c] += 1);
    log(
        v,
        &format!("per epoch: {} samples, per class {hist:?}", rows.len()),
        &mut out,
    );
    let loss = clf.train_with(&mut rows, &mut classes, &copts, &regen, after);
    drop(rows);
    out.push_str(&epoch_log);
    if let Some((e, c, l, net)) = best_net {
        log(
            v,
            &format!(
                "classifier final loss {loss:.4}; kept the snapshot after epoch {e} ({c} tune candidates right, nll {:.4})",
                l / tune_cands.iter().filter(|t| t.2.is_some()).count().max(1) as f64
            ),
            &mut out,
        );
        clf = net;
    } else {
        log(v, &format!("classifier final loss {loss:.4}"), &mut out);
    }
    if late_nll.2 > 0 {
        let k = late_nll.2 as f64;
        log(
            v,
            &format!(
                "mean over the last {} epochs: tune nll {:.4}, {:.1} tune candidates right (compare fit variants by these)",
                late_nll.2,
                late_nll.0 / k,
                late_nll.1 / k
            ),
            &mut out,
        );
    }
    // The weight average of the late epochs competes with the best snapshot
    // on the same tune criterion (a final fit keeps the last weights: `clf`
    // after training).
    if let (Some((mut avg, k)), None) = (swa, protocol.fixed_thresholds()) {
        for p in avg.params_mut() {
            p.iter_mut().for_each(|x| *x /= k as f32);
        }
        let (c_avg, l_avg, n) = tune_score(&avg, &tune_cands);
        let (c_best, l_best, _) = tune_score(&clf, &tune_cands);
        let keep = (c_avg, -l_avg) > (c_best, -l_best);
        log(
            v,
            &format!(
                "weight average of the last {k} epochs: {c_avg}/{n} tune candidates right, nll {:.4}; {}",
                l_avg / n.max(1) as f64,
                if keep { "kept" } else { "not kept" }
            ),
            &mut out,
        );
        if keep {
            clf = avg;
        }
    }
    // ---- thresholds on the tune part ----
    let mut model = DiceModel {
        detector: det,
        classifier: clf,
        det_threshold: MINE_THRESHOLD,
        read_threshold: 0.0,
        nms_factor: NMS_FACTOR,
    };
    if let Some((dt, rt)) = protocol.fixed_thresholds() {
        model.det_threshold = dt;
        model.read_threshold = rt;
        log(
            v,
            &format!("fixed thresholds: det_threshold {dt} read_threshold {rt}"),
            &mut out,
        );
    } else {
        let (dt, rt, line) = tune_thresholds(&items, &parts, &images, &model);
        model.det_threshold = dt;
        model.read_threshold = rt;
        log(v, &line, &mut out);
    }
    // ---- held-out evaluation ----
    let reader = DiceReader::from_model(model.clone());
    let held: Vec<LabelledImage> = items
        .iter()
        .zip(&parts)
        .filter(|(_, p)| **p == Part::HeldOut)
        .map(|(it, _)| it.clone())
        .collect();
    let mut eval = Evaluation::default();
    // A protocol check must not look at the held-out part.
    let evaluate = !matches!(
        protocol,
        Protocol::CheckFinal { .. } | Protocol::CheckSelect
    );
    for ((it, p), img) in items.iter().zip(&parts).zip(&images) {
        if let (Part::HeldOut, Some(img), true) = (p, img, evaluate) {
            eval.add(&it.dice, &reader.read_rgb(img));
        }
    }
    log(v, &eval.summary(), &mut out);
    Ok(FitOutcome {
        model,
        log: out,
        held_out: held,
        eval,
    })
}

/// Choose both thresholds of a fitted model on the tune images (`parts`):
/// returns (detector threshold, read threshold, log line).
fn tune_thresholds(
    items: &[LabelledImage],
    parts: &[Part],
    images: &[Option<RgbImage>],
    model: &DiceModel,
) -> (f32, f32, String) {
    let tune: Vec<(&LabelledImage, &RgbImage)> = items
        .iter()
        .zip(parts)
        .zip(images)
        .filter_map(|((it, p), img)| match (p, img) {
            (Part::Tune, Some(img)) => Some((it, img)),
            _ => None,
        })
        .collect();
    let scored: Vec<Vec<(Candidate, [f32; N_CLASSES])>> = tune
        .iter()
        .map(|(_, img)| {
            let pr = prepare(img);
            find_candidates_reference(&pr, &model.detector, MINE_THRESHOLD, NMS_FACTOR, 1)
                .into_iter()
                .map(|c| (c, classify(img, &model.classifier, &c).0))
                .collect()
        })
        .collect();
    // Objective: multiset matches minus MISREAD_COST per read that matches
    // nothing (a misread or false die costs more than an unread die), then
    // exact images.
    let pairs: Vec<TuneImage> = tune
        .iter()
        .zip(&scored)
        .map(|((it, _), c)| (it.dice.as_slice(), c.as_slice()))
        .collect();
    let best = choose_thresholds(&pairs);
    let line = format!(
        "tuned on {} tune images: det_threshold {} read_threshold {} (score {}, exact {}, tp {})",
        tune.len(),
        best.2,
        best.3,
        best.0,
        best.1,
        best.4
    );
    (best.2, best.3, line)
}

/// Tune-part candidates as (image index, the 8 dihedral feature vectors,
/// class: 0 = not a die, 1-6 = value, `None` = ambiguous, not scored).
type TuneCands = [(usize, Vec<Vec<f32>>, Option<usize>)];

/// Model-selection score of a classifier on the tune candidates (8-way TTA):
/// (candidates right, summed negative log-likelihood, candidates scored).
fn tune_score(net: &FaceNet, tune_cands: &TuneCands) -> (usize, f64, usize) {
    let (mut correct, mut nll, mut n) = (0usize, 0f64, 0usize);
    for (_, feats, class) in tune_cands {
        let Some(class) = class else { continue };
        let mut acc = [0f32; N_CLASSES];
        for f in feats {
            let p = probs_of(net, f);
            for (a, v) in acc.iter_mut().zip(p.0) {
                *a += v / feats.len() as f32;
            }
        }
        let arg = (0..N_CLASSES)
            .max_by(|a, b| acc[*a].total_cmp(&acc[*b]))
            .unwrap_or(0);
        correct += (arg == *class) as usize;
        nll -= (acc[*class].max(1e-6) as f64).ln();
        n += 1;
    }
    (correct, nll, n)
}

/// One tune image for [`choose_thresholds`]: its labelled dice and its
/// detector candidates with class probabilities.
pub type TuneImage<'a> = (&'a [LabelledDie], &'a [(Candidate, [f32; N_CLASSES])]);

/// Detector thresholds tried by [`choose_thresholds`].
const DET_THRESHOLDS: [f32; 8] = [0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7];
/// Read thresholds tried by [`choose_thresholds`].
const READ_THRESHOLDS: [f32; 13] = [
    0.0, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.9, 0.95,
];

/// Choose the detector and read thresholds on tune images given as (labelled
/// dice, detector candidates at `MINE_THRESHOLD` with class probabilities).
/// Objective: multiset matches minus `MISREAD_COST` per read that matches
/// nothing, then exact images; among equal objectives the highest detector
/// threshold (fewer candidates on clutter and cards, less work) and then the
/// lowest read threshold win. Returns (score, exact, det threshold, read
/// threshold, matches).
pub fn choose_thresholds(tune: &[TuneImage]) -> (i64, usize, f32, f32, usize) {
    let mut best = (i64::MIN, 0usize, MINE_THRESHOLD, 0.0f32, 0usize);
    for dt in DET_THRESHOLDS {
        for rt in READ_THRESHOLDS {
            let (score, exact, tp, _) = threshold_score(tune, dt, rt);
            let key = (score, exact);
            if key > (best.0, best.1) || (key == (best.0, best.1) && dt > best.2) {
                best = (score, exact, dt, rt, tp);
            }
        }
    }
    best
}

/// Score of one threshold pair on tune images (as [`choose_thresholds`]):
/// (matches minus `MISREAD_COST` per unmatched read, exact images, matches,
/// reads).
pub fn threshold_score(tune: &[TuneImage], dt: f32, rt: f32) -> (i64, usize, usize, usize) {
    let mut exact = 0;
    let mut tp = 0;
    let mut npred = 0;
    for (dice, cands) in tune {
        let reads: Vec<u8> = cands
            .iter()
            .filter(|(c, _)| c.score >= dt)
            .filter_map(|(_, p)| match super::classify::FaceProbs(*p).decide(rt) {
                super::classify::Decision::Read { value, .. } => Some(value),
                _ => None,
            })
            .collect();
        let (t, ex) = multiset_match(dice, &reads);
        tp += t;
        npred += reads.len();
        exact += ex as usize;
    }
    let score = tp as i64 - MISREAD_COST * (npred - tp) as i64;
    (score, exact, tp, npred)
}

/// Evaluate a reader on the held-out part of a set (position-matched
/// confusion matrix and multiset figures, as printed by [`fit`]).
pub fn evaluate_held_out(reader: &DiceReader, set_dir: &Path) -> Result<Evaluation, VisionError> {
    evaluate_held_out_taken(reader, set_dir, |img| img)
}

/// [`evaluate_held_out`] on the held-out photos as `take` changes them (dimmer,
/// turned, ...): how the reader holds up when the same dice are photographed
/// another way.
pub fn evaluate_held_out_taken(
    reader: &DiceReader,
    set_dir: &Path,
    take: impl Fn(RgbImage) -> RgbImage,
) -> Result<Evaluation, VisionError> {
    let items = load_set(set_dir)?;
    let mut eval = Evaluation::default();
    for (i, it) in items.iter().enumerate() {
        if part_of(i) == Part::HeldOut {
            let img = take(load_rgb(&it.path)?);
            eval.add(&it.dice, &reader.read_rgb(&img));
        }
    }
    Ok(eval)
}

/// [`evaluate_held_out_taken`] with the frames enlarged before reading as
/// `dice_scale` says ([`super::scale`]): for `Auto`, every photo is read at
/// every scale and the figures are those of the one scale the part's photos
/// favour. Returns the figures and the scale read at. The figures are the
/// multiset ones and, when `take` keeps the photos' geometry, the
/// position-matched ones.
pub fn evaluate_held_out_scaled(
    reader: &DiceReader,
    set_dir: &Path,
    take: impl Fn(RgbImage) -> RgbImage,
    dice_scale: super::scale::DiceScale,
) -> Result<(Evaluation, f32), VisionError> {
    use super::scale::{DiceScale, READ_SCALES, ScaleCalibration};
    let items = load_set(set_dir)?;
    let mut reads = Vec::new();
    let mut calibration = ScaleCalibration::default();
    for (i, it) in items.iter().enumerate() {
        if part_of(i) == Part::HeldOut {
            let img = take(load_rgb(&it.path)?);
            let scans = match dice_scale {
                DiceScale::Auto => READ_SCALES.map(|s| reader.read_scaled(&img, s)),
                DiceScale::Fixed(s) => {
                    let scan = reader.read_scaled(&img, s);
                    [scan.clone(), scan.clone(), scan]
                }
            };
            calibration.observe(&scans);
            reads.push((&it.dice, scans));
        }
    }
    let (scale, at) = match dice_scale {
        DiceScale::Auto => {
            let at = calibration.leading_index();
            (READ_SCALES[at], at)
        }
        DiceScale::Fixed(s) => (s, 0),
    };
    let mut eval = Evaluation::default();
    for (truth, scans) in &reads {
        eval.add(truth, &scans[at]);
    }
    Ok((eval, scale))
}

/// Width of the synthetic card as a multiple of the median die size (a real
/// card is 63 mm wide, a d6 16 mm: about 4x; 3-5x covers perspective).
const SYN_CARD_WIDTH: (f32, f32) = (3.0, 5.0);

fn disc(img: &mut RgbImage, cx: f32, cy: f32, r: f32, c: image::Rgb<u8>) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    for y in (cy - r).floor() as i64..=(cy + r).ceil() as i64 {
        for x in (cx - r).floor() as i64..=(cx + r).ceil() as i64 {
            if x >= 0 && y >= 0 && x < w && y < h {
                let d = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt();
                if d <= r {
                    img.put_pixel(x as u32, y as u32, c);
                }
            }
        }
    }
}

/// Paste a synthetic card (white rectangle, red or black pips in a number-card
/// layout, blobby corner indices) where it overlaps no labelled die, then mine
/// the detector's candidates on it and crops at its corners as negatives.
fn card_negatives_synthetic(
    img: &RgbImage,
    dice: &[LabelledDie],
    det: &Mlp,
    rng: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    let mut sizes: Vec<f32> = dice.iter().map(|d| d.size).collect();
    sizes.sort_by(|a, b| a.total_cmp(b));
    let die = sizes.get(sizes.len() / 2).copied().unwrap_or(40.0);
    let cw = die * (SYN_CARD_WIDTH.0 + (SYN_CARD_WIDTH.1 - SYN_CARD_WIDTH.0) * rng.unit());
    let ch = cw * 1.4;
    let (iw, ih) = (img.width() as f32, img.height() as f32);
    if cw + 2.0 >= iw || ch + 2.0 >= ih {
        return;
    }
    let mut spot = None;
    for _ in 0..20 {
        let (x0, y0) = (rng.unit() * (iw - cw), rng.unit() * (ih - ch));
        let clear = dice.iter().all(|d| {
            let m = d.size * 0.6;
            d.center[0] < x0 - m
                || d.center[0] > x0 + cw + m
                || d.center[1] < y0 - m
                || d.center[1] > y0 + ch + m
        });
        if clear {
            spot = Some((x0, y0));
            break;
        }
    }
    let Some((x0, y0)) = spot else { return };
    let mut card = img.clone();
    let paper = 235 + rng.below(20) as u8;
    for y in y0 as u32..(y0 + ch) as u32 {
        for x in x0 as u32..(x0 + cw) as u32 {
            card.put_pixel(
                x,
                y,
                image::Rgb([paper, paper, paper.saturating_sub(rng.below(8) as u8)]),
            );
        }
    }
    let ink = if rng.unit() < 0.5 {
        image::Rgb([200, 30, 40])
    } else {
        image::Rgb([25, 25, 25])
    };
    let n_pips = 2 + rng.below(9);
    let pr = cw * (0.06 + 0.04 * rng.unit());
    for k in 0..n_pips {
        let col = if n_pips <= 3 {
            0.5
        } else if k % 2 == 0 {
            0.3
        } else {
            0.7
        };
        let rowf = 0.2 + 0.6 * (k / 2) as f32 / ((n_pips.div_ceil(2)).max(2) - 1) as f32;
        disc(&mut card, x0 + col * cw, y0 + rowf * ch, pr, ink);
    }
    // Corner indices: a glyph-sized blob pair top-left and bottom-right.
    for (fx, fy) in [(0.12, 0.1), (0.88, 0.9)] {
        disc(&mut card, x0 + fx * cw, y0 + fy * ch, cw * 0.05, ink);
        disc(
            &mut card,
            x0 + fx * cw,
            y0 + (fy + 0.08) * ch * if fy < 0.5 { 1.0 } else { -1.0 } / 1.0,
            cw * 0.04,
            ink,
        );
    }
    let inside = |c: [f32; 2]| {
        c[0] > x0 - 0.3 * die
            && c[0] < x0 + cw + 0.3 * die
            && c[1] > y0 - 0.3 * die
            && c[1] < y0 + ch + 0.3 * die
    };
    let pr_ = prepare(&card);
    for c in find_candidates_reference(&pr_, det, MINE_THRESHOLD, NMS_FACTOR, 1) {
        if inside(c.center) {
            let tr = random_transforms(rng, 4);
            push_crop(
                &card,
                &CropSpec::plain(c.center, c.size, 0),
                &tr,
                rows,
                classes,
            );
        }
    }
    for (fx, fy) in [
        (0.0, 0.0),
        (1.0, 0.0),
        (0.0, 1.0),
        (1.0, 1.0),
        (0.15, 0.12),
        (0.85, 0.88),
    ] {
        let c = [x0 + fx * cw, y0 + fy * ch];
        let sz = die * (0.7 + 0.6 * rng.unit());
        let tr = random_transforms(rng, 2);
        push_crop(&card, &CropSpec::plain(c, sz, 0), &tr, rows, classes);
    }
}

/// Card photos (any image files in `dir` whose name does not start with
/// `single_`, which are kept for the card test) at two scales: every detector
/// candidate is a "not a die" example.
fn card_negatives(
    dir: &Path,
    det: &Mlp,
    rng: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) -> Result<usize, VisionError> {
    let mut n = 0;
    for p in photo_paths(dir, "")? {
        let img = load_rgb(&p)?;
        for long_side in CARD_LONG_SIDES {
            let (w, h) = (img.width().max(1), img.height().max(1));
            let k = long_side as f32 / w.max(h) as f32;
            let nw = ((w as f32 * k) as u32).max(1);
            let nh = ((h as f32 * k) as u32).max(1);
            let small =
                image::imageops::resize(&img, nw, nh, image::imageops::FilterType::Triangle);
            let pr = prepare(&small);
            let cands = nms(
                find_candidates_reference(&pr, det, MINE_THRESHOLD, NMS_FACTOR, 1),
                NMS_FACTOR,
            );
            for c in cands {
                let tr = random_transforms(rng, 4);
                push_crop(
                    &small,
                    &CropSpec::plain(c.center, c.size, 0),
                    &tr,
                    rows,
                    classes,
                );
                n += tr.len();
            }
        }
    }
    Ok(n)
}

/// Appends this epoch's draw of [`SAMPLED_CARD_NEG_PER_EPOCH`] rows of the
/// sampled card-photo pool (nothing, and no random numbers, when it is empty).
fn push_sampled(
    pool: &[Vec<f32>],
    seed: u64,
    epoch: usize,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    if pool.is_empty() {
        return;
    }
    let mut r = XorShift::new(
        seed.wrapping_mul(1_000_003)
            .wrapping_add(epoch as u64)
            .wrapping_add(SAMPLED_CARD_SEED),
    );
    push_draw(pool, SAMPLED_CARD_NEG_PER_EPOCH, &mut r, rows, classes);
}

/// Appends `take` rows of `pool` (all when it has fewer) drawn without
/// replacement, as "not a die" examples (a partial Fisher-Yates shuffle).
fn push_draw(
    pool: &[Vec<f32>],
    take: usize,
    r: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    let mut idx: Vec<usize> = (0..pool.len()).collect();
    for i in 0..take.min(idx.len()) {
        let j = i + r.below(idx.len() - i);
        idx.swap(i, j);
        rows.push(pool[idx[i]].clone());
        classes.push(0);
    }
}

/// Image files in `dir` whose name starts with `prefix` (never `single_*`,
/// kept for the card test), sorted by name.
fn photo_paths(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, VisionError> {
    let rd = std::fs::read_dir(dir).map_err(|source| VisionError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            n.starts_with(prefix)
                && !n.starts_with("single_")
                && (n.ends_with(".jpg") || n.ends_with(".png"))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// Mines "not a die" rows on the sampled card sets: every detector candidate
/// of each photo at its own size (as `scan` sees it), under
/// [`SAMPLED_CARD_TRANSFORMS`] random dihedral transforms.
fn sampled_card_negatives(
    sets: &[(PathBuf, String)],
    det: &Mlp,
    seed: u64,
) -> Result<Vec<Vec<f32>>, VisionError> {
    let mut rng = XorShift::new(seed.wrapping_add(SAMPLED_CARD_SEED));
    let (mut rows, mut classes) = (Vec::new(), Vec::new());
    for (dir, prefix) in sets {
        for p in photo_paths(dir, prefix)? {
            let img = load_rgb(&p)?;
            let pr = prepare(&img);
            let cands = nms(
                find_candidates_reference(&pr, det, MINE_THRESHOLD, NMS_FACTOR, 1),
                NMS_FACTOR,
            );
            for c in cands {
                let tr = random_transforms(&mut rng, SAMPLED_CARD_TRANSFORMS);
                push_crop(
                    &img,
                    &CropSpec::plain(c.center, c.size, 0),
                    &tr,
                    &mut rows,
                    &mut classes,
                );
            }
        }
    }
    Ok(rows)
}

/// Multiset match of labelled values and read values: (matches, exact).
pub fn multiset_match(truth: &[LabelledDie], reads: &[u8]) -> (usize, bool) {
    let mut a = [0usize; 7];
    let mut b = [0usize; 7];
    truth.iter().for_each(|d| a[d.value as usize] += 1);
    reads.iter().for_each(|v| b[(*v as usize).min(6)] += 1);
    let tp = (1..7).map(|k| a[k].min(b[k])).sum();
    (tp, a == b)
}

/// Held-out evaluation counts.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evaluation {
    /// Images evaluated.
    pub images: usize,
    /// Images whose multiset of read values equals the truth.
    pub exact: usize,
    /// Labelled dice.
    pub labelled: usize,
    /// Read dice.
    pub predicted: usize,
    /// Multiset matches.
    pub tp: usize,
    /// Position-matched confusion: `conf[truth-1][pred]` with pred 0-5 = value
    /// 1-6, 6 = reported unread, 7 = not found.
    pub conf: [[usize; 8]; 6],
    /// Read dice matching no labelled die by position.
    pub false_reads: usize,
    /// Unread dice matching no labelled die by position.
    pub false_unread: usize,
}

impl Evaluation {
    /// Add one image.
    pub fn add(&mut self, truth: &[LabelledDie], scan: &super::DiceScan) {
        let reads: Vec<u8> = scan.dice.iter().map(|d| d.value).collect();
        let (tp, ex) = multiset_match(truth, &reads);
        self.images += 1;
        self.exact += ex as usize;
        self.labelled += truth.len();
        self.predicted += reads.len();
        self.tp += tp;
        // Position matching: each prediction to the nearest free labelled die.
        let mut used = vec![false; truth.len()];
        let mut preds: Vec<([f32; 2], Option<u8>)> = scan
            .dice
            .iter()
            .map(|d| (d.center, Some(d.value)))
            .collect();
        preds.extend(scan.unread.iter().map(|u| (u.center, None)));
        for (c, val) in preds {
            let m = truth
                .iter()
                .enumerate()
                .filter(|(i, d)| !used[*i] && dist(d.center, c) < 0.5 * d.size)
                .min_by(|a, b| dist(a.1.center, c).total_cmp(&dist(b.1.center, c)));
            match (m, val) {
                (Some((i, d)), v) => {
                    used[i] = true;
                    let col = v.map(|v| v as usize - 1).unwrap_or(6);
                    self.conf[d.value as usize - 1][col] += 1;
                }
                (None, Some(_)) => self.false_reads += 1,
                (None, None) => self.false_unread += 1,
            }
        }
        for (i, d) in truth.iter().enumerate() {
            if !used[i] {
                self.conf[d.value as usize - 1][7] += 1;
            }
        }
    }

    /// Multi-line text summary with the confusion matrix.
    pub fn summary(&self) -> String {
        let r = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let mut s = format!(
            "held out: {} images, exact {:.4}, labelled {}, read {}, tp {}, precision {:.4}, recall {:.4}, false reads (no die there) {}, false unread {}\n",
            self.images,
            r(self.exact, self.images),
            self.labelled,
            self.predicted,
            self.tp,
            r(self.tp, self.predicted),
            r(self.tp, self.labelled),
            self.false_reads,
            self.false_unread
        );
        s.push_str("truth\\read    1    2    3    4    5    6 unread missed\n");
        for (i, row) in self.conf.iter().enumerate() {
            s.push_str(&format!("{:>10}", i + 1));
            for v in row {
                s.push_str(&format!(" {v:>4}"));
            }
            s.push('\n');
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampled_card_draw_is_bounded_and_deterministic() {
        let (mut rows, mut classes) = (Vec::new(), Vec::new());
        push_sampled(&[], 7, 0, &mut rows, &mut classes);
        assert!(rows.is_empty() && classes.is_empty());
        let pool: Vec<Vec<f32>> = (0..SAMPLED_CARD_NEG_PER_EPOCH + 10)
            .map(|i| vec![i as f32])
            .collect();
        push_sampled(&pool, 7, 3, &mut rows, &mut classes);
        assert_eq!(rows.len(), SAMPLED_CARD_NEG_PER_EPOCH);
        assert!(classes.iter().all(|&c| c == 0));
        let (mut again, mut c2) = (Vec::new(), Vec::new());
        push_sampled(&pool, 7, 3, &mut again, &mut c2);
        assert_eq!(rows, again);
        let mut distinct: Vec<i64> = rows.iter().map(|r| r[0] as i64).collect();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), rows.len(), "drawn without replacement");
    }

    #[test]
    fn augmentation_is_deterministic_and_bounded() {
        let d = LabelledDie {
            value: 4,
            center: [30.0, 30.0],
            size: 40.0,
        };
        let cells: Vec<[f32; 3]> = (0..GRID * GRID)
            .map(|k| {
                if k % 7 == 0 {
                    [20.0; 3]
                } else {
                    [200.0, 120.0, 40.0]
                }
            })
            .collect();
        let (mut r1, mut r2) = (XorShift::new(5), XorShift::new(5));
        for _ in 0..50 {
            let (a, b) = (
                CropSpec::jittered(&d, &mut r1),
                CropSpec::jittered(&d, &mut r2),
            );
            let (mut ca, mut cb) = (cells.clone(), cells.clone());
            augment_cells(&mut ca, GRID, &a);
            augment_cells(&mut cb, GRID, &b);
            assert_eq!(ca, cb);
            assert!(
                ca.iter()
                    .flatten()
                    .all(|v| v.is_finite() && *v >= 0.0 && *v <= 255.0)
            );
            assert_eq!(a.class, 4);
        }
        // A glint brightens the band through the centre and nothing far off.
        let mut g = CropSpec::plain([0.0; 2], 40.0, 1);
        g.glint = [0.0, 0.0, 1.0, 0.8];
        let mut c = vec![[100.0f32; 3]; GRID * GRID];
        augment_cells(&mut c, GRID, &g);
        let mid = GRID / 2;
        assert!(c[mid * GRID + mid][0] > 200.0);
        assert_eq!(c[mid * GRID][0], 100.0);
    }

    #[test]
    fn shrink_keeps_flat_grids_and_softens_edges() {
        let mut flat = vec![[80.0f32, 120.0, 200.0]; GRID * GRID];
        shrink_cells(&mut flat, GRID, SHRINK_CELLS.0);
        assert!(
            flat.iter()
                .flatten()
                .zip([80.0, 120.0, 200.0].iter().cycle())
                .all(|(a, b)| (a - b).abs() < 1e-3)
        );
        // A one-cell bright line is spread over its neighbours.
        let mut line: Vec<[f32; 3]> = (0..GRID * GRID)
            .map(|k| {
                if k % GRID == GRID / 2 {
                    [255.0; 3]
                } else {
                    [0.0; 3]
                }
            })
            .collect();
        shrink_cells(&mut line, GRID, SHRINK_CELLS.0);
        let row = &line[GRID * 3..GRID * 4];
        assert!(row[GRID / 2][0] < 255.0 && row[GRID / 2 + 1][0] > 0.0);
    }

    #[test]
    fn extra_sets_join_the_training_part_and_leave_the_split_alone() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let set = |name: &str, n: usize| {
            let d = dir.path().join(name);
            let items: Vec<String> = (0..n)
                .map(|i| format!("{{\"image\": \"images/{i:03}.jpg\", \"dice\": [3], \"boxes\": [{{\"label\": 3, \"bbox\": [10, 10, 30, 30], \"what\": \"die\"}}]}}"))
                .collect();
            std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
            std::fs::write(
                d.join("labels.json"),
                format!("{{\"items\": [{}]}}", items.join(",")),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            d
        };
        let mut opts = FitOptions::new(set("main", 250));
        let (items, parts) = fit_images(&opts).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(items.len(), 250);
        opts.extra_train_sets = vec![set("mine", 7), set("more", 2)];
        let (with, with_parts) = fit_images(&opts).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(with.len(), 259);
        assert_eq!(
            &with_parts[..250],
            &parts[..],
            "the main set's split is unchanged"
        );
        assert!(with_parts[250..].iter().all(|p| *p == Part::Train));
        assert!(with[250].path.starts_with(dir.path().join("mine")));
        assert_eq!(with[258].dice[0].value, 3);
        opts.extra_train_sets = vec![dir.path().join("missing")];
        assert!(
            fit_images(&opts).is_err(),
            "a missing extra set is an error"
        );
    }

    #[test]
    fn split_blocks() {
        let parts: Vec<Part> = (0..250).map(part_of).collect();
        assert_eq!(parts.iter().filter(|p| **p == Part::HeldOut).count(), 57);
        assert_eq!(parts.iter().filter(|p| **p == Part::Guard).count(), 6);
        // Every held-out block is preceded by a guard band.
        for i in 1..250 {
            if parts[i] == Part::HeldOut && parts[i - 1] != Part::HeldOut {
                assert_eq!(parts[i - 1], Part::Guard);
            }
        }
        // The tune halves cover exactly the tune part; half A comes first.
        for (i, p) in parts.iter().enumerate() {
            assert_eq!(in_tune_half_a(i).is_some(), *p == Part::Tune, "{i}");
        }
        let a = (0..250)
            .filter(|i| in_tune_half_a(*i) == Some(true))
            .count();
        assert_eq!(a, 16);
        assert_eq!(in_tune_half_a(85), Some(true));
        assert_eq!(in_tune_half_a(86), Some(false));
        // A protocol check trains on half A, a final fit on the whole tune part.
        let check = Protocol::CheckFinal {
            det_threshold: 0.7,
            read_threshold: 0.5,
        };
        assert_eq!(check.part_of(80), Part::Train);
        assert_eq!(check.part_of(90), Part::Tune);
        let fin = Protocol::Final {
            det_threshold: 0.7,
            read_threshold: 0.5,
        };
        assert_eq!(fin.part_of(90), Part::Train);
        assert_eq!(fin.part_of(100), Part::HeldOut);
        assert_eq!(Protocol::Select.part_of(80), Part::Tune);
        assert_eq!(Protocol::CheckSelect.part_of(80), Part::Tune);
        assert_eq!(Protocol::CheckSelect.part_of(90), Part::Guard);
    }

    #[test]
    fn multiset() {
        let d = |v| LabelledDie {
            value: v,
            center: [0.0, 0.0],
            size: 10.0,
        };
        assert_eq!(multiset_match(&[d(1), d(2), d(2)], &[2, 1, 2]), (3, true));
        assert_eq!(multiset_match(&[d(1), d(2)], &[2, 2]), (1, false));
    }
}
