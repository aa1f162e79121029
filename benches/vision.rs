//! Recognition cost, one thread, criterion medians.
//!
//! - `read/WxH/N`: card reading on 1280x720 and 1920x1080 frames composed at
//!   load time from the sarm single-card photos (each pasted at half size: one
//!   card ~78 px wide) on a dark canvas, with N = 0, 1, 4, 8 cards. Falls back
//!   to synthetic blank cards without the data set.
//! - `dice_read_1280x720`: dice reading on a 1280x720 frame made of two byler-d6
//!   held-out photos side by side (skipped, with a message, without the data).
//!
//! Data root: `ADJUTANT_DATA`, default `../shared/data` beside the crate.

use adjutant::vision::cards::CardReader;
use adjutant::vision::dice::DiceReader;
use adjutant::vision::scan::{BUILTIN_CARD_MODEL, BUILTIN_DICE_MODEL};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use image::{DynamicImage, Rgb, RgbImage, imageops};
use std::hint::black_box;
use std::path::PathBuf;

fn data_root() -> PathBuf {
    std::env::var("ADJUTANT_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")))
}

fn tiles() -> Vec<RgbImage> {
    let dir = data_root().join("cards/sarm-slate-phone/images");
    let mut out = Vec::new();
    for name in [
        "single_s9",
        "single_hk",
        "single_d10",
        "single_ca",
        "single_h9",
        "single_sq",
        "single_dj",
        "single_c9",
    ] {
        if let Ok(img) = image::open(dir.join(format!("{name}.jpg"))) {
            let small = imageops::resize(&img.to_rgb8(), 240, 320, imageops::FilterType::Triangle);
            out.push(small);
        }
    }
    if out.is_empty() {
        eprintln!("bench: dataset missing, using synthetic cards");
        for _ in 0..8 {
            let mut t = RgbImage::from_pixel(240, 320, Rgb([25, 25, 30]));
            for y in 100..210 {
                for x in 80..158 {
                    t.put_pixel(x, y, Rgb([235, 235, 230]));
                }
            }
            out.push(t);
        }
    }
    out
}

fn frame(w: u32, h: u32, n: usize, tiles: &[RgbImage]) -> DynamicImage {
    let mut canvas = RgbImage::from_pixel(w, h, Rgb([25, 25, 30]));
    let cols = (w / 240).max(1);
    for i in 0..n {
        let t = &tiles[i % tiles.len()];
        let x = (i as u32 % cols) * 240;
        let y = (i as u32 / cols) * 320;
        imageops::overlay(&mut canvas, t, x as i64, y as i64);
    }
    DynamicImage::ImageRgb8(canvas)
}

fn cards(c: &mut Criterion) {
    let reader = CardReader::from_model_bytes(BUILTIN_CARD_MODEL).expect("built-in card model");
    let tiles = tiles();
    let mut g = c.benchmark_group("read");
    g.sample_size(30);
    for (w, h) in [(1280u32, 720u32), (1920, 1080)] {
        for n in [0usize, 1, 4, 8] {
            let img = frame(w, h, n, &tiles);
            g.bench_with_input(BenchmarkId::new(format!("{w}x{h}"), n), &img, |b, img| {
                b.iter(|| reader.read(black_box(img)))
            });
        }
    }
    g.finish();
}

/// Photos used for the composed frame (many dice each, from the held-out part).
const PHOTOS: [&str; 2] = ["IMG_20191208_112933.jpg", "IMG_20191208_113019.jpg"];

fn dice_frame() -> Option<DynamicImage> {
    let dir = data_root().join("dice/byler-d6/images");
    let mut out = RgbImage::new(1280, 720);
    for (k, name) in PHOTOS.iter().enumerate() {
        let img = image::open(dir.join(name)).ok()?.to_rgb8();
        for y in 0..720u32 {
            for x in 0..640u32 {
                let sy = y.min(img.height().saturating_sub(1));
                let sx = x.min(img.width().saturating_sub(1));
                out.put_pixel(k as u32 * 640 + x, y, *img.get_pixel(sx, sy));
            }
        }
    }
    Some(DynamicImage::ImageRgb8(out))
}

fn dice(c: &mut Criterion) {
    let Some(img) = dice_frame() else {
        eprintln!("dice bench skipped: byler-d6 photos not found (set ADJUTANT_DATA)");
        return;
    };
    let reader = match DiceReader::from_model_bytes(BUILTIN_DICE_MODEL) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("dice bench skipped: {e}");
            return;
        }
    };
    c.bench_function("dice_read_1280x720", |b| {
        b.iter(|| reader.read(black_box(&img)).map(|s| s.dice.len()))
    });
}

criterion_group!(benches, cards, dice);
criterion_main!(benches);
