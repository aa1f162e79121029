//! A camera's roll from frames to a settled answer: real die crops (the
//! fixtures cut from a training photo) pasted on a grey table, one tumbling
//! for two frames and then resting under sensor noise, read by the shipped
//! readers frame by frame and followed by a `RollWatcher` as the app does.

mod common;

use adjutant::vision::scan::{Looking, Readers};
use adjutant::vision::settle::{RollWatcher, SettleRule};
use common::fixture;
use image::{DynamicImage, Rgb, RgbImage};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// A 480x320 grey table with `dice` (fixture, top-left corner) pasted on
/// it, plus pixel noise of up to +-`noise` levels (seeded).
fn frame(dice: &[(&RgbImage, (i64, i64))], noise: i16, rng: &mut ChaCha8Rng) -> DynamicImage {
    let mut img = RgbImage::from_pixel(480, 320, Rgb([178, 178, 172]));
    for (die, (x, y)) in dice {
        image::imageops::replace(&mut img, *die, *x, *y);
    }
    for p in img.pixels_mut() {
        for c in &mut p.0 {
            let n = rng.random_range(-noise..=noise);
            *c = (i16::from(*c) + n).clamp(0, 255) as u8;
        }
    }
    DynamicImage::ImageRgb8(img)
}

#[test]
fn a_roll_is_answered_once_its_dice_rest_with_their_voted_values() {
    let readers = Readers::builtin().unwrap_or_else(|e| panic!("{e}"));
    let (four, two) = (fixture("die_4_19.png"), fixture("die_2_1.png"));
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut watcher = RollWatcher::new(SettleRule::LIVE);
    let mut read = |dice: &[(&RgbImage, (i64, i64))], rng: &mut ChaCha8Rng| {
        let img = frame(dice, 4, rng);
        let scan = readers
            .scan("frame", &img, Looking::ALL)
            .unwrap_or_else(|e| panic!("{e}"));
        watcher.observe_scan(&scan)
    };
    // The 2 rests from the start; the 4 is thrown across the table (its
    // own width per frame), seen upside down on the way.
    let flipped = image::imageops::rotate180(&four);
    for (k, at) in [(40, 60), (110, 90)].into_iter().enumerate() {
        let tumbling = if k % 2 == 0 { &flipped } else { &four };
        let (_, moving, _) = read(&[(&two, (320, 200)), (tumbling, at)], &mut rng);
        assert!(moving >= 1, "frame {k}: a tumbling die counts as moving");
    }
    // It stops at (180, 120): settled on the third frame at rest.
    let mut last = None;
    for k in 0..3 {
        let (scan, moving, unseen) = read(&[(&two, (320, 200)), (&four, (180, 120))], &mut rng);
        if k < 2 {
            assert_eq!(moving, 1, "rest frame {k}: not settled yet");
        }
        last = Some((scan, moving, unseen));
    }
    let Some((scan, moving, unseen)) = last else {
        panic!("no frame read")
    };
    assert_eq!(
        (moving, unseen),
        (0, 0),
        "both dice rest in sight: {scan:?}"
    );
    let mut values: Vec<u8> = scan.dice.iter().map(|d| d.value).collect();
    values.sort_unstable();
    assert_eq!(values, vec![2, 4], "{scan:?}");
    assert!(scan.unread_dice.is_empty(), "{scan:?}");
    // Each settled die sits where the frame shows it (fixtures are 56 px,
    // the die at their centre).
    let at = |x: f32, y: f32| {
        scan.dice
            .iter()
            .any(|d| (d.center[0] - x).abs() < 10.0 && (d.center[1] - y).abs() < 10.0)
    };
    assert!(at(208.0, 148.0) && at(348.0, 228.0), "{scan:?}");
    // A hand covers the 2 for a frame: still reported, counted as unseen.
    let (scan, moving, unseen) = read(&[(&four, (180, 120))], &mut rng);
    let mut values: Vec<u8> = scan.dice.iter().map(|d| d.value).collect();
    values.sort_unstable();
    assert_eq!((values, moving, unseen), (vec![2, 4], 0, 1), "{scan:?}");
}
