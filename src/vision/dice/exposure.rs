//! Bringing a dim frame to the light the dice model was fitted on.
//!
//! The model was fitted on one photo set (byler-d6, a light box: the brightest
//! 1 % of every photo is at 190-219), and its detector reads absolute colour
//! distances. Measured on the held-out blocks of that set
//! (`examples/dice_conditions`), the same photos dimmed to 0.55 of their
//! brightness read 52.6 % of images exactly against 84.2 % (to 0.75: 68.4 %),
//! mostly dice the detector no longer finds, while the information is still
//! there: dimmed and stretched back they read 82.5 %. So a frame dimmer than the
//! fitting photos is brightened before the model sees it (dimmed to 0.55, the
//! held-out photos then read 80.7 %; to 0.75, 82.5 %).

use image::RgbImage;

/// The brightest 1 % of the pixels (by their largest channel) of every photo the
/// model was fitted on is at least this bright (190-219 over byler-d6); a frame
/// whose highlights are dimmer is brightened to it.
pub const FITTED_HIGHLIGHT: f32 = 190.0;

/// The most a dim frame is brightened: beyond it the sensor noise of a dark
/// frame is amplified more than its dice gain.
pub const MAX_GAIN: f32 = 2.5;

/// Gains below this leave the frame as it is (the fitting photos' own spread).
const MIN_GAIN: f32 = 1.05;

/// Pixels sampled for the highlight level: every `HIGHLIGHT_STEP`-th pixel of
/// every `HIGHLIGHT_STEP`-th row (58 000 of a 720p frame).
const HIGHLIGHT_STEP: usize = 4;

/// The gain that brings a frame's highlights to [`FITTED_HIGHLIGHT`], if the
/// frame is dimmer than the fitting photos (`None` otherwise).
pub fn exposure_gain(rgb: &RgbImage) -> Option<f32> {
    let mut histogram = [0u32; 256];
    let mut n = 0u32;
    for row in rgb.rows().step_by(HIGHLIGHT_STEP) {
        for p in row.step_by(HIGHLIGHT_STEP) {
            histogram[p.0.into_iter().max().unwrap_or(0) as usize] += 1;
            n += 1;
        }
    }
    // The level with 1 % of the samples at or above it.
    let mut above = 0u32;
    let mut highlight = 0usize;
    for level in (0..256).rev() {
        above += histogram[level];
        if above * 100 >= n {
            highlight = level;
            break;
        }
    }
    let gain = (FITTED_HIGHLIGHT / highlight.max(1) as f32).min(MAX_GAIN);
    (gain >= MIN_GAIN).then_some(gain)
}

/// `rgb` with every channel multiplied by `gain` (saturating).
pub fn brighten(rgb: &RgbImage, gain: f32) -> RgbImage {
    let lut: Vec<u8> = (0..256)
        .map(|v| (v as f32 * gain).round().min(255.0) as u8)
        .collect();
    let mut out = rgb.clone();
    for v in out.iter_mut() {
        *v = lut[*v as usize];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(level: u8) -> RgbImage {
        RgbImage::from_fn(64, 48, |x, y| {
            // A few highlights over a darker table, as dice on a table.
            if (x / 8 + y / 8) % 5 == 0 {
                image::Rgb([level, level, level.saturating_sub(10)])
            } else {
                image::Rgb([level / 2, level / 2, level / 3])
            }
        })
    }

    #[test]
    fn a_frame_as_bright_as_the_fitting_photos_is_left_alone() {
        assert_eq!(exposure_gain(&frame(200)), None);
        assert_eq!(exposure_gain(&frame(255)), None);
    }

    #[test]
    fn a_dim_frame_is_brightened_to_the_fitted_highlights() {
        let gain = exposure_gain(&frame(100)).expect("dim frame");
        assert!((gain - 1.9).abs() < 0.01, "{gain}");
        let bright = brighten(&frame(100), gain);
        assert_eq!(exposure_gain(&bright), None);
        assert_eq!(bright.get_pixel(0, 0).0, [190, 190, 171]);
    }

    #[test]
    fn a_black_frame_gets_at_most_the_largest_gain() {
        assert_eq!(exposure_gain(&frame(0)), Some(MAX_GAIN));
        assert_eq!(exposure_gain(&RgbImage::new(1, 1)), Some(MAX_GAIN));
    }
}
