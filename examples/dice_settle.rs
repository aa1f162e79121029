//! What voting over frames ([`adjutant::vision::settle`]) does to the dice
//! reads of a still scene seen by a camera, simulated from photos: each photo
//! becomes `FRAMES` frames with sensor noise (`SIGMA` grey levels per channel,
//! about Gaussian), a brightness gain within +-`GAIN` and a shift of up to
//! `SHIFT` px, read one by one and followed by a `RollWatcher` with the live
//! rule. Prints, per part, the exact-image rate and die precision / recall of
//! the undisturbed photo, of single noisy frames (mean over frames) and of the
//! watcher's settled reads after the last frame.
//!
//! `cargo run --release --example dice_settle -- SET_DIR [PART]` with PART
//! `held` (default), `tune` or `train` (the byler-d6 split of `fit-dice`).

use adjutant::vision::dice::fit::{Part, load_rgb, part_of};
use adjutant::vision::dice::{DiceReader, DiceScan};
use adjutant::vision::eval::{self, ImageResult, LabelSet, LabelledItem};
use adjutant::vision::scan::{BUILTIN_DICE_MODEL, DieOut, UnreadDieOut};
use adjutant::vision::settle::{RollWatcher, SettleRule};
use image::RgbImage;
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

fn env_f32(name: &str, default: f32) -> f32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One simulated camera frame of `img`.
fn noisy_frame(
    img: &RgbImage,
    rng: &mut ChaCha8Rng,
    sigma: f32,
    gain: f32,
    shift: i64,
) -> RgbImage {
    let g = 1.0 + rng.random_range(-gain..=gain);
    let (dx, dy) = (
        rng.random_range(-shift..=shift),
        rng.random_range(-shift..=shift),
    );
    let (w, h) = (img.width() as i64, img.height() as i64);
    RgbImage::from_fn(img.width(), img.height(), |x, y| {
        let sx = (x as i64 - dx).clamp(0, w - 1) as u32;
        let sy = (y as i64 - dy).clamp(0, h - 1) as u32;
        let p = img.get_pixel(sx, sy).0;
        image::Rgb(p.map(|c| {
            // A sum of three uniforms on [-1, 1] has variance 1.
            let n: f32 = (0..3).map(|_| rng.random_range(-1.0f32..=1.0)).sum();
            (c as f32 * g + n * sigma).round().clamp(0.0, 255.0) as u8
        }))
    })
}

/// The dice values a read reports, as the scorer takes them.
fn result(values: impl Iterator<Item = u8>, unread: usize) -> ImageResult {
    ImageResult {
        predicted: values.map(|v| v.to_string()).collect(),
        unread,
        ..ImageResult::default()
    }
}

/// One line of figures from [`eval::score`] (the `adjutant eval` scorer).
fn line(name: &str, labels: Vec<LabelledItem>, results: &[ImageResult]) -> String {
    let set = LabelSet {
        source: String::new(),
        items: labels,
    };
    let s = eval::score(name, &set, results);
    format!(
        "{name:<28} exact {:5.1}%  precision {:5.1}%  recall {:5.1}%  ({} right, {} wrong, of {} dice in {} images)",
        100.0 * s.exact,
        100.0 * s.precision,
        100.0 * s.recall,
        s.tp,
        s.predicted - s.tp,
        s.labelled,
        s.images
    )
}

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let set = a
        .get(1)
        .ok_or_else(|| anyhow::anyhow!("usage: dice_settle SET_DIR [held|tune|train]"))?;
    let part = match a.get(2).map(String::as_str) {
        Some("tune") => Part::Tune,
        Some("train") => Part::Train,
        _ => Part::HeldOut,
    };
    let frames = env_f32("FRAMES", 8.0) as usize;
    let (sigma, gain, shift) = (
        env_f32("SIGMA", 4.0),
        env_f32("GAIN", 0.05),
        env_f32("SHIFT", 2.0) as i64,
    );
    let reader = DiceReader::from_model_bytes(BUILTIN_DICE_MODEL)?;
    let mut rng = ChaCha8Rng::seed_from_u64(27);
    let (mut clean, mut single, mut settled) = (Vec::new(), Vec::new(), Vec::new());
    let (mut photos, mut frame_labels) = (Vec::new(), Vec::new());
    let mut still_moving = 0;
    let mut jitter: Vec<f32> = Vec::new();
    let dir = std::path::Path::new(set);
    // In name order, as the fitter's split numbers them.
    let mut labels = LabelSet::load(dir)?;
    labels.items.sort_by(|a, b| a.image.cmp(&b.image));
    for (i, item) in labels.items.into_iter().enumerate() {
        if part_of(i) != part {
            continue;
        }
        let img = load_rgb(&dir.join(&item.image))?;
        let read = |s: &DiceScan| result(s.dice.iter().map(|d| d.value), s.unread.len());
        clean.push(read(&reader.read_rgb(&img)));
        let mut watcher = RollWatcher::new(SettleRule::LIVE);
        let mut last = None;
        let mut before: Vec<([f32; 2], f32)> = Vec::new();
        for _ in 0..frames {
            let f = noisy_frame(&img, &mut rng, sigma, gain, shift);
            let s = reader.read_rgb(&f);
            single.push(read(&s));
            frame_labels.push(item.clone());
            let now: Vec<([f32; 2], f32)> = s
                .dice
                .iter()
                .map(|d| (d.center, d.size))
                .chain(s.unread.iter().map(|d| (d.center, d.size)))
                .collect();
            // How far the same resting die's centre moves between frames.
            for &(c, size) in &now {
                let near = before
                    .iter()
                    .map(|&(b, _)| adjutant::vision::geometry::dist(b, c) / size)
                    .fold(f32::INFINITY, f32::min);
                if near < 0.6 {
                    jitter.push(near);
                }
            }
            before = now;
            let dice: Vec<DieOut> = s.dice.iter().map(DieOut::from).collect();
            let unread: Vec<UnreadDieOut> = s.unread.iter().map(UnreadDieOut::from).collect();
            last = Some(watcher.observe(&dice, &unread));
        }
        if let Some(s) = last {
            still_moving += s.moving;
            settled.push(result(s.dice.iter().map(|d| d.value), s.unread_dice.len()));
        }
        photos.push(item);
    }
    println!("{frames} frames per photo, noise sigma {sigma}, gain +-{gain}, shift +-{shift} px");
    println!("{}", line("photo as taken", photos.clone(), &clean));
    println!("{}", line("single noisy frames", frame_labels, &single));
    println!("{}", line("settled over the frames", photos, &settled));
    println!("dice not settled after the last frame: {still_moving}");
    jitter.sort_by(f32::total_cmp);
    let q = |p: f64| {
        jitter
            .get(((jitter.len() as f64 - 1.0) * p).round() as usize)
            .copied()
    };
    println!(
        "centre moves between frames, fraction of die size: median {:?}, q90 {:?}, q99 {:?}, max {:?} ({} moves)",
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
        jitter.len()
    );
    Ok(())
}
