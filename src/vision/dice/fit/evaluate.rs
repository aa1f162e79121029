//! Scoring a reader on the held-out part of a set.

use super::*;
use crate::vision::dice::DiceScan;
use crate::vision::dice::scale::DiceScale;

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
/// `dice_scale` says ([`crate::vision::dice::scale`]): for `Auto`, every photo is read at
/// every scale and the figures are those of the one scale the part's photos
/// favour. Returns the figures and the scale read at. The figures are the
/// multiset ones and, when `take` keeps the photos' geometry, the
/// position-matched ones.
pub fn evaluate_held_out_scaled(
    reader: &DiceReader,
    set_dir: &Path,
    take: impl Fn(RgbImage) -> RgbImage,
    dice_scale: DiceScale,
) -> Result<(Evaluation, f32), VisionError> {
    use crate::vision::dice::scale::{READ_SCALES, ScaleCalibration};
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
    pub fn add(&mut self, truth: &[LabelledDie], scan: &DiceScan) {
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
