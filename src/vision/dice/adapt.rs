//! Teaching the reader a player's own dice: fine-tune the face classifier of
//! a fitted model on frames whose dice the player has confirmed or
//! corrected, so dice designs the shipped model barely knows (translucent,
//! marbled, odd pip colours) are read from then on.
//!
//! The detector is kept as it is (every held-out die already gets a
//! candidate); only the classifier's weights move, from the fitted ones, with
//! a small learning rate and few epochs, and with "replay" examples (dice and
//! non-dice the model was fitted on) mixed in so the rest of what it knows is
//! not forgotten.

use super::cnn::FaceNet;
use super::find::find_candidates_reference;
use super::fit::{
    CLF_LR, CandidateOn, CropSpec, LabelledDie, MINE_THRESHOLD, candidate_on, push_crop,
    push_die_crops, random_transforms,
};
use super::mlp::{TrainOptions, XorShift};
use super::model::DiceModel;
use super::prep::prepare;
use image::RgbImage;

/// A frame and every die on it with its confirmed value (a die left out is
/// taken for "not a die" wherever the detector finds it).
#[derive(Debug, Clone)]
pub struct TaughtFrame {
    /// The frame as the reader saw it.
    pub image: RgbImage,
    /// Every die on the frame: centre, box side and the true value.
    pub dice: Vec<LabelledDie>,
}

/// How hard to fine-tune.
#[derive(Debug, Clone)]
pub struct AdaptOptions {
    /// Passes over the taught examples.
    pub epochs: usize,
    /// Jittered crops per taught die and epoch (besides its plain crop).
    pub jittered_per_die: usize,
    /// Initial learning rate (decays linearly), a fraction of the fit's.
    pub lr: f32,
    /// Replay dice drawn per epoch (one jittered crop each), and as many
    /// replay "not a die" crops.
    pub replay_per_epoch: usize,
    /// Seed of the crop and order draws.
    pub seed: u64,
    /// Print the loss per epoch.
    pub verbose: bool,
}

impl Default for AdaptOptions {
    fn default() -> Self {
        Self {
            epochs: 8,
            jittered_per_die: 12,
            lr: CLF_LR * 0.25,
            replay_per_epoch: 2000,
            seed: 1,
            verbose: false,
        }
    }
}

/// Crop positions of one set of frames: dice (plain box or detector
/// candidate, with the value) and detector candidates on no die.
#[derive(Debug, Default)]
struct Positions {
    /// (frame index, die, jitter it): labelled boxes are jittered, detector
    /// candidates are cropped as the reader crops them.
    dice: Vec<(usize, LabelledDie, bool)>,
    /// (frame index, candidate centre, size).
    non_dice: Vec<(usize, [f32; 2], f32)>,
}

fn positions(model: &DiceModel, frames: &[TaughtFrame]) -> Positions {
    let mut out = Positions::default();
    for (k, f) in frames.iter().enumerate() {
        for d in &f.dice {
            out.dice.push((k, *d, true));
        }
        let pr = prepare(&f.image);
        for c in
            find_candidates_reference(&pr, &model.detector, MINE_THRESHOLD, model.nms_factor, 1)
        {
            match candidate_on(&f.dice, c.center) {
                CandidateOn::Die(d) => {
                    let die = LabelledDie {
                        value: d.value,
                        center: c.center,
                        size: c.size,
                    };
                    out.dice.push((k, die, false));
                }
                CandidateOn::NearDie => {}
                CandidateOn::NoDie => out.non_dice.push((k, c.center, c.size)),
            }
        }
    }
    out
}

/// Fine-tune `model`'s classifier on `taught` frames, replaying `replay`
/// frames (the fit's own, when available) against forgetting. Returns the
/// adapted model (detector and thresholds unchanged).
pub fn adapt(
    model: &DiceModel,
    taught: &[TaughtFrame],
    replay: &[TaughtFrame],
    opts: &AdaptOptions,
) -> DiceModel {
    let teach = positions(model, taught);
    let old = positions(model, replay);
    let regen = |epoch: usize, rows: &mut Vec<Vec<f32>>, classes: &mut Vec<usize>| {
        let mut r = XorShift::new(opts.seed.wrapping_mul(7_919).wrapping_add(epoch as u64));
        rows.clear();
        classes.clear();
        for (k, d, jitter) in &teach.dice {
            let extra = if *jitter { opts.jittered_per_die } else { 0 };
            push_die_crops(&taught[*k].image, d, extra, &mut r, rows, classes);
        }
        for (k, c, s) in &teach.non_dice {
            let tr = random_transforms(&mut r, 2);
            push_crop(
                &taught[*k].image,
                &CropSpec::plain(*c, *s, 0),
                &tr,
                rows,
                classes,
            );
        }
        if !old.dice.is_empty() {
            for _ in 0..opts.replay_per_epoch {
                let (k, d, _) = &old.dice[r.below(old.dice.len())];
                let spec = CropSpec::jittered(d, &mut r);
                push_crop(&replay[*k].image, &spec, &[r.below(8)], rows, classes);
            }
        }
        if !old.non_dice.is_empty() {
            for _ in 0..opts.replay_per_epoch {
                let (k, c, s) = &old.non_dice[r.below(old.non_dice.len())];
                let spec = CropSpec::plain(*c, *s, 0).photometric(&mut r);
                push_crop(&replay[*k].image, &spec, &[r.below(8)], rows, classes);
            }
        }
    };
    let topts = TrainOptions {
        epochs: opts.epochs,
        batch: 32,
        lr: opts.lr,
        momentum: 0.9,
        weight_decay: 1e-4,
        seed: opts.seed,
        verbose: opts.verbose,
        clip_gradients: true,
    };
    let mut net: FaceNet = model.classifier.clone();
    let (mut rows, mut classes) = (Vec::new(), Vec::new());
    net.train_epochs_with(&mut rows, &mut classes, &topts, regen, |_, _| {});
    DiceModel {
        classifier: net,
        ..model.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::dice::classify::classify_with_face;
    use crate::vision::dice::find::Candidate;
    use crate::vision::dice::synth::render_die;
    use crate::vision::scan::BUILTIN_DICE_MODEL;

    /// A grey table with some texture, for the renderer to draw on.
    fn table() -> RgbImage {
        RgbImage::from_fn(160, 160, |x, y| {
            let v = 90 + ((x * 7 + y * 13) % 23) as u8;
            image::Rgb([v, v + 10, v + 5])
        })
    }

    /// The classifier's probability of `value` on the taught die's box.
    fn p_value(model: &DiceModel, f: &TaughtFrame, value: u8) -> f32 {
        let d = f.dice[0];
        let c = Candidate {
            center: d.center,
            size: d.size,
            score: 1.0,
        };
        classify_with_face(&f.image, &model.classifier, &c).0.0[value as usize]
    }

    #[test]
    fn teaching_a_die_raises_its_value_and_keeps_the_rest() {
        let Ok(model) = DiceModel::from_bytes(BUILTIN_DICE_MODEL) else {
            panic!("the built-in dice model loads");
        };
        let mut rng = XorShift::new(11);
        let t = table();
        // Drawn dice taught as the next value up: a player's dice whose
        // faces mean something else than their pips say (the strongest
        // correction there is; the model reads the drawn pips well).
        let frames: Vec<(TaughtFrame, u8, f32)> = (0..4)
            .filter_map(|i| {
                let drawn = 1 + (i % 6) as u8;
                let (image, mut die) = render_die(&mut rng, &t, drawn)?;
                die.value = drawn % 6 + 1;
                let f = TaughtFrame {
                    image,
                    dice: vec![die],
                };
                let p = p_value(&model, &f, die.value);
                Some((f, die.value, p))
            })
            .collect();
        assert_eq!(frames.len(), 4, "the renderer draws on a 160 px table");
        let taught: Vec<TaughtFrame> = frames.iter().map(|f| f.0.clone()).collect();
        // Four dice give two batches an epoch: more epochs than the
        // default (sized for a hundred taught dice) to take as many steps.
        let opts = AdaptOptions {
            epochs: 24,
            replay_per_epoch: 0,
            ..AdaptOptions::default()
        };
        let adapted = adapt(&model, &taught, &[], &opts);
        for (f, value, before) in &frames {
            let after = p_value(&adapted, f, *value);
            eprintln!("taught value {value}: {before} -> {after}");
            assert!(
                *before < 0.2 && after > 0.5,
                "taught value {value}: probability {before} -> {after}"
            );
        }
        // Only the classifier moves.
        assert_eq!(adapted.det_threshold, model.det_threshold);
        assert_eq!(adapted.read_threshold, model.read_threshold);
        assert_eq!(adapted.detector, model.detector);
        assert_ne!(adapted.classifier.params(), model.classifier.params());
        // The same frames and seed give the same model.
        let again = adapt(&model, &taught, &[], &opts);
        assert_eq!(again.to_bytes(), adapted.to_bytes());
    }
}
