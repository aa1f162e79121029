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

mod augment;
mod data;
mod evaluate;
mod negatives;
mod thresholds;

pub(in crate::vision::dice) use augment::*;
pub use data::*;
pub use evaluate::*;
use negatives::*;
pub use thresholds::*;

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
