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

use adjutant::vision::dice::DiceReader;
use adjutant::vision::dice::fit::{LabelledImage, Part, load_rgb, load_set, part_of};
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

/// Right reads, wrong-or-extra reads and whether the image is read exactly.
fn score(item: &LabelledImage, read: &[u8]) -> (usize, usize, bool) {
    let mut want: Vec<u8> = item.dice.iter().map(|d| d.value).collect();
    let mut right = 0;
    for v in read {
        if let Some(i) = want.iter().position(|w| w == v) {
            want.swap_remove(i);
            right += 1;
        }
    }
    let exact = right == item.dice.len() && read.len() == item.dice.len();
    (right, read.len() - right, exact)
}

#[derive(Default)]
struct Tally {
    right: usize,
    wrong: usize,
    exact: usize,
    images: usize,
    labelled: usize,
}

impl Tally {
    fn add(&mut self, item: &LabelledImage, read: &[u8]) {
        let (r, w, e) = score(item, read);
        self.right += r;
        self.wrong += w;
        self.exact += usize::from(e);
        self.images += 1;
        self.labelled += item.dice.len();
    }

    fn line(&self, name: &str) -> String {
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        format!(
            "{name:<28} exact {:5.1}%  precision {:5.1}%  recall {:5.1}%  ({} right, {} wrong, of {} dice in {} images)",
            pct(self.exact, self.images),
            pct(self.right, self.right + self.wrong),
            pct(self.right, self.labelled),
            self.right,
            self.wrong,
            self.labelled,
            self.images
        )
    }
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
    let (mut clean, mut single, mut settled) =
        (Tally::default(), Tally::default(), Tally::default());
    let mut still_moving = 0;
    let mut jitter: Vec<f32> = Vec::new();
    let items = load_set(std::path::Path::new(set))?;
    for (i, item) in items.iter().enumerate() {
        if part_of(i) != part {
            continue;
        }
        let img = load_rgb(&item.path)?;
        let values = |s: &adjutant::vision::dice::DiceScan| -> Vec<u8> {
            s.dice.iter().map(|d| d.value).collect()
        };
        clean.add(item, &values(&reader.read_rgb(&img)));
        let mut watcher = RollWatcher::new(SettleRule::LIVE);
        let mut last = None;
        let mut before: Vec<([f32; 2], f32)> = Vec::new();
        for _ in 0..frames {
            let f = noisy_frame(&img, &mut rng, sigma, gain, shift);
            let s = reader.read_rgb(&f);
            single.add(item, &values(&s));
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
            settled.add(item, &s.dice.iter().map(|d| d.value).collect::<Vec<_>>());
        }
    }
    println!("{frames} frames per photo, noise sigma {sigma}, gain +-{gain}, shift +-{shift} px");
    println!("{}", clean.line("photo as taken"));
    println!("{}", single.line("single noisy frames"));
    println!("{}", settled.line("settled over the frames"));
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
