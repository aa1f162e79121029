//! The reader never panics: random, blank, tiny, grayscale, 16-bit and float
//! images, read as they are and enlarged; oversized frames are refused with an
//! error.
use adjutant::vision::dice::scale::READ_SCALES;
use adjutant::vision::dice::{DiceReader, MAX_PIXELS};
use adjutant::vision::error::VisionError;
use image::{DynamicImage, ImageBuffer, Luma, Rgb, Rgba};
use proptest::prelude::*;

const MODEL: &[u8] = include_bytes!("../models/dice.bin");

fn reader() -> DiceReader {
    match DiceReader::from_model_bytes(MODEL) {
        Ok(r) => r,
        Err(e) => panic!("shipped model does not load: {e}"),
    }
}

/// Reads `img` as it is and enlarged at every scale `--dice-scale` offers.
fn check_scan(img: &DynamicImage) {
    let scans = match reader().read_at_scales(img, READ_SCALES) {
        Ok(s) => s,
        Err(e) => panic!("read failed on a small image: {e}"),
    };
    for scan in &scans {
        for d in &scan.dice {
            assert!((1..=6).contains(&d.value));
            assert!((0.0..=1.0).contains(&d.confidence));
            assert!(d.center.iter().all(|v| v.is_finite()) && d.size.is_finite());
        }
        for u in &scan.unread {
            assert!(u.center.iter().all(|v| v.is_finite()) && u.size.is_finite());
        }
    }
}

#[test]
fn tiny_and_blank_images() {
    for (w, h) in [(1, 1), (1, 300), (300, 1), (15, 15), (16, 16), (17, 33)] {
        check_scan(&DynamicImage::new_rgb8(w, h));
    }
    let blank = DynamicImage::ImageRgb8(ImageBuffer::from_pixel(640, 480, Rgb([200, 200, 200])));
    let scan = reader().read(&blank).ok();
    assert_eq!(scan.map(|s| (s.dice.len(), s.unread.len())), Some((0, 0)));
}

#[test]
fn other_colour_types() {
    let g8 = ImageBuffer::from_fn(120, 90, |x, y| Luma([((x * 7 + y * 3) % 256) as u8]));
    check_scan(&DynamicImage::ImageLuma8(g8));
    let g16 = ImageBuffer::from_fn(120, 90, |x, y| Luma([((x * 977 + y * 311) % 65536) as u16]));
    check_scan(&DynamicImage::ImageLuma16(g16));
    let rgba16 = ImageBuffer::from_fn(100, 70, |x, y| {
        Rgba([(x * 600) as u16, (y * 900) as u16, 40000, 65535])
    });
    check_scan(&DynamicImage::ImageRgba16(rgba16));
    let f32img = ImageBuffer::from_fn(64, 64, |x, _| Rgb([x as f32 / 64.0, 2.0, -1.0]));
    check_scan(&DynamicImage::ImageRgb32F(f32img));
}

#[test]
fn huge_image_is_refused() {
    // 8000 x 5001 = 40.008 MP > MAX_PIXELS (8-bit gray, 40 MB).
    let img = DynamicImage::new_luma8(8000, 5001);
    match reader().read(&img) {
        Err(VisionError::ImageTooLarge {
            width,
            height,
            limit,
        }) => {
            assert_eq!((width, height, limit), (8000, 5001, MAX_PIXELS));
        }
        other => panic!("expected ImageTooLarge, got {other:?}"),
    }
}

#[test]
fn corrupt_models_are_errors() {
    assert!(DiceReader::from_model_bytes(&[]).is_err());
    assert!(DiceReader::from_model_bytes(&MODEL[..MODEL.len() / 2]).is_err());
    let mut m = MODEL.to_vec();
    m[100] ^= 0xff;
    assert!(matches!(
        DiceReader::from_model_bytes(&m),
        Err(VisionError::ModelCorrupt { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn random_rgb_never_panics(w in 1u32..160, h in 1u32..160, seed in any::<u64>()) {
        let mut s = seed | 1;
        let img = ImageBuffer::from_fn(w, h, |_, _| {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            Rgb([s as u8, (s >> 8) as u8, (s >> 16) as u8])
        });
        check_scan(&DynamicImage::ImageRgb8(img));
    }

    #[test]
    fn random_blocks_never_panic(w in 16u32..300, h in 16u32..300, seed in any::<u64>()) {
        // Piecewise-constant images make die-like blobs and edges.
        let mut s = seed | 1;
        let mut next = || { s ^= s << 13; s ^= s >> 7; s ^= s << 17; s };
        let cols: Vec<[u8; 3]> = (0..64).map(|_| { let v = next(); [v as u8, (v >> 8) as u8, (v >> 16) as u8] }).collect();
        let bs = 4 + (next() % 40) as u32;
        let img = ImageBuffer::from_fn(w, h, |x, y| Rgb(cols[((x / bs) * 7 + (y / bs) * 13) as usize % 64]));
        check_scan(&DynamicImage::ImageRgb8(img));
    }

    #[test]
    fn random_gray16_never_panics(w in 1u32..120, h in 1u32..120, v in any::<u16>()) {
        let img = ImageBuffer::from_fn(w, h, |x, y| Luma([v.wrapping_add((x * y) as u16)]));
        check_scan(&DynamicImage::ImageLuma16(img));
    }
}
