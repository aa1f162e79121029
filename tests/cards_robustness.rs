//! The reader must never panic: odd sizes, pixel formats, noise, corrupt models.

use adjutant::vision::VisionError;
use adjutant::vision::cards::{CardModel, CardReader, MAX_PIXELS};
use image::{DynamicImage, GrayImage, ImageBuffer, Luma, Rgb, RgbImage, Rgba};
use proptest::prelude::*;

const MODEL: &[u8] = include_bytes!("../models/cards.bin");

fn reader() -> CardReader {
    CardReader::from_model_bytes(MODEL).expect("embedded model loads")
}

#[test]
fn empty_and_tiny_frames_read_nothing() {
    let r = reader();
    for (w, h) in [(0, 0), (1, 1), (1, 500), (500, 1), (3, 2)] {
        let img = DynamicImage::ImageRgb8(RgbImage::new(w, h));
        let scan = r.read(&img).expect("small frames are fine");
        assert!(scan.cards.is_empty());
    }
}

#[test]
fn blank_white_and_black_frames() {
    let r = reader();
    for v in [0u8, 128, 255] {
        let img = DynamicImage::ImageRgb8(RgbImage::from_pixel(640, 480, Rgb([v, v, v])));
        assert!(r.read(&img).expect("blank ok").cards.is_empty());
    }
}

#[test]
fn huge_frame_is_refused() {
    // 1 byte per pixel keeps the test light: 6400 x 6400 = 41 MP.
    let img = DynamicImage::ImageLuma8(GrayImage::new(6400, 6400));
    const { assert!(6400u64 * 6400 > MAX_PIXELS) };
    match reader().read(&img) {
        Err(VisionError::ImageTooLarge { width, height, .. }) => {
            assert_eq!((width, height), (6400, 6400));
        }
        other => panic!("expected ImageTooLarge, got {other:?}"),
    }
}

#[test]
fn other_pixel_formats() {
    let r = reader();
    let g16: ImageBuffer<Luma<u16>, Vec<u16>> =
        ImageBuffer::from_fn(300, 200, |x, y| Luma([((x * y) % 65535) as u16]));
    r.read(&DynamicImage::ImageLuma16(g16))
        .expect("16-bit gray");
    let rgba: ImageBuffer<Rgba<u8>, Vec<u8>> =
        ImageBuffer::from_fn(200, 300, |x, y| Rgba([x as u8, y as u8, 200, 128]));
    r.read(&DynamicImage::ImageRgba8(rgba)).expect("rgba");
    let f32img =
        DynamicImage::ImageRgb32F(ImageBuffer::from_pixel(64, 64, Rgb([0.5f32, 2.0, -1.0])));
    r.read(&f32img).expect("float");
}

#[test]
fn corrupt_model_bytes_are_errors() {
    assert!(CardReader::from_model_bytes(&[]).is_err());
    assert!(CardReader::from_model_bytes(b"ADJCARDS").is_err());
    assert!(CardReader::from_model_bytes(&MODEL[..MODEL.len() / 2]).is_err());
    let m = CardModel::from_bytes(MODEL).expect("model");
    assert_eq!(CardModel::from_bytes(&m.to_bytes()).expect("round trip"), m);
}

/// Simple xorshift so the noise is deterministic per seed.
fn noise(w: u32, h: u32, seed: u64, gray: bool) -> DynamicImage {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    if gray {
        DynamicImage::ImageLuma8(GrayImage::from_fn(w, h, |_, _| Luma([next() as u8])))
    } else {
        DynamicImage::ImageRgb8(RgbImage::from_fn(w, h, |_, _| {
            let v = next();
            Rgb([v as u8, (v >> 8) as u8, (v >> 16) as u8])
        }))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_noise_never_panics(w in 0u32..700, h in 0u32..700, seed in any::<u64>(), gray in any::<bool>()) {
        let r = reader();
        let scan = r.read(&noise(w, h, seed, gray));
        prop_assert!(scan.is_ok());
        if let Ok(s) = scan {
            for c in &s.cards {
                prop_assert!((0.0..=1.0).contains(&c.confidence));
            }
        }
    }

    #[test]
    fn random_blocks_never_panic(w in 1u32..400, h in 1u32..400, seed in any::<u64>()) {
        // Large flat white rectangles on noise: exercises card finding paths.
        let mut img = RgbImage::from_pixel(w, h, Rgb([20, 20, 25]));
        let mut s = seed | 1;
        for _ in 0..6 {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let x0 = (s >> 33) as u32 % w;
            let y0 = (s >> 17) as u32 % h;
            let bw = 1 + (s >> 45) as u32 % (w / 2 + 1);
            let bh = 1 + (s >> 9) as u32 % (h / 2 + 1);
            for y in y0..(y0 + bh).min(h) {
                for x in x0..(x0 + bw).min(h.max(w)).min(w) {
                    img.put_pixel(x, y, Rgb([240, 240, 235]));
                }
            }
        }
        prop_assert!(reader().read(&DynamicImage::ImageRgb8(img)).is_ok());
    }

    #[test]
    fn random_model_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let _ = CardModel::from_bytes(&bytes);
    }

    #[test]
    fn mutated_model_never_panics(pos in 0usize..64, val in any::<u8>()) {
        let mut b = MODEL.to_vec();
        let p = pos.min(b.len() - 1);
        b[p] = val;
        let _ = CardModel::from_bytes(&b);
    }
}
