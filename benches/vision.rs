//! Recognition cost, one thread, criterion medians.
//!
//! - `read/WxH/N`: card reading on 1280x720 and 1920x1080 frames composed at
//!   load time from the sarm single-card photos (each pasted at half size: one
//!   card ~78 px wide) on a dark canvas, with N = 0, 1, 4, 8 cards. Falls back
//!   to synthetic blank cards without the data set.
//! - `read_backs/1280x720/8`: eight synthetic face-down cards (red and blue
//!   lattice backs, as T52 terrain) in the same layout.
//! - `dice_read_1280x720`: dice reading on a 1280x720 frame made of two byler-d6
//!   held-out photos side by side (skipped, with a message, without the data).
//! - `dice_read_enlarged/1280x720/S`: the same frame shrunk to 0.6 of each side
//!   (768x432, dice of a webcam far above the table) read enlarged S = 1.5 and 2
//!   times, as `--dice-scale` does once a camera's scale is chosen; and
//!   `dice_read_every_scale/768x432`, one frame of the measurement (1, 1.5 and
//!   2x).
//!
//! Data root: `ADJUTANT_DATA`, default `../shared/data` beside the crate.

use adjutant::vision::cards::CardReader;
use adjutant::vision::dice::DiceReader;
use adjutant::vision::dice::scale::READ_SCALES;
use adjutant::vision::scan::{BUILTIN_CARD_MODEL, BUILTIN_DICE_MODEL};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use image::DynamicImage;
use std::hint::black_box;

include!("common/frames.rs");

fn cards(c: &mut Criterion) {
    let reader = CardReader::from_model_bytes(BUILTIN_CARD_MODEL).expect("built-in card model");
    let tiles = card_tiles();
    let mut g = c.benchmark_group("read");
    g.sample_size(30);
    for (w, h) in [(1280u32, 720u32), (1920, 1080)] {
        for n in [0usize, 1, 4, 8] {
            let img = card_frame(w, h, n, &tiles);
            g.bench_with_input(BenchmarkId::new(format!("{w}x{h}"), n), &img, |b, img| {
                b.iter(|| reader.read(black_box(img)))
            });
        }
    }
    g.finish();
    let backs = card_frame(1280, 720, 8, &back_tiles());
    c.bench_function("read_backs/1280x720/8", |b| {
        b.iter(|| reader.read(black_box(&backs)))
    });
}

fn dice(c: &mut Criterion) {
    let Some(img) = dice_frame(1280, 720).map(DynamicImage::ImageRgb8) else {
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
    let small = DynamicImage::ImageRgb8(image::imageops::resize(
        &img.to_rgb8(),
        768,
        432,
        image::imageops::FilterType::Triangle,
    ));
    for scale in [1.5f32, 2.0] {
        c.bench_with_input(
            BenchmarkId::new("dice_read_enlarged/1280x720", scale),
            &scale,
            |b, &s| {
                b.iter(|| {
                    reader
                        .read_at_scales(black_box(&small), [s])
                        .map(|[scan]| scan.dice.len())
                })
            },
        );
    }
    c.bench_function("dice_read_every_scale/768x432", |b| {
        b.iter(|| {
            reader
                .read_at_scales(black_box(&small), READ_SCALES)
                .map(|s| s.len())
        })
    });
}

criterion_group!(benches, cards, dice);
criterion_main!(benches);
