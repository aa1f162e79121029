//! Card reading cost on 1280x720 and 1920x1080 frames composed at load time
//! from the sarm single-card photos (each pasted at half size: one card ~78 px
//! wide) on a dark canvas. Falls back to synthetic blank cards without data.

use adjutant::vision::cards::CardReader;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use image::{DynamicImage, Rgb, RgbImage, imageops};
use std::hint::black_box;
use std::path::PathBuf;

const MODEL: &[u8] = include_bytes!("../models/cards.bin");

fn tiles() -> Vec<RgbImage> {
    let root = std::env::var("ADJUTANT_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")));
    let dir = root.join("cards/sarm-slate-phone/images");
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

fn bench(c: &mut Criterion) {
    let reader = CardReader::from_model_bytes(MODEL).expect("model");
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

criterion_group!(benches, bench);
criterion_main!(benches);
