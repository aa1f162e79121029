//! Criterion bench: dice reading on a 1280x720 frame composed at load time from
//! two byler-d6 photos side by side (rows 640-719 repeat the last photo row).
//! Needs the data set (`ADJUTANT_DATA`, default `/work/shared/data`); without it
//! the bench prints why and does nothing.
use std::hint::black_box;
use std::path::PathBuf;

use adjutant::vision::dice::DiceReader;
use criterion::{Criterion, criterion_group, criterion_main};
use image::{DynamicImage, RgbImage};

const MODEL: &[u8] = include_bytes!("../models/dice.bin");
/// Photos used for the composed frame (many dice each, from the held-out part).
const PHOTOS: [&str; 2] = ["IMG_20191208_112933.jpg", "IMG_20191208_113019.jpg"];

fn frame() -> Option<DynamicImage> {
    let root = std::env::var("ADJUTANT_DATA").unwrap_or_else(|_| "/work/shared/data".into());
    let dir = PathBuf::from(root).join("dice/byler-d6/images");
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

fn bench(c: &mut Criterion) {
    let Some(img) = frame() else {
        eprintln!("dice bench skipped: byler-d6 photos not found (set ADJUTANT_DATA)");
        return;
    };
    let reader = match DiceReader::from_model_bytes(MODEL) {
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

criterion_group!(benches, bench);
criterion_main!(benches);
