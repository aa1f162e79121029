//! Face-down cards: telling a card back from a face and naming its colour.

use super::find::CornerFrame;
use super::prep::sample_rgb;
use image::RgbImage;

/// A face has mostly white paper inside (court figures cover < ~60% of the
/// interior); a back pattern leaves under this share of white.
pub const BACK_MAX_WHITE: f32 = 0.15;
/// Channel difference that makes a back clearly red or blue rather than "other".
pub const BACK_HUE_MARGIN: f32 = 18.0;
/// Pixel counts as white when its min channel is above this share of the
/// brightest interior level.
const WHITE_SHARE: f32 = 0.8;

/// Colour of a card back (the shared table type).
pub use crate::table::BackColour;

/// Decides whether the card whose top-left index frame is `f` shows its back;
/// returns the back colour if so.
pub fn back_colour(img: &RgbImage, f: &CornerFrame, height_in_widths: f32) -> Option<BackColour> {
    const N: usize = 12;
    let mut px = Vec::with_capacity(N * N);
    for j in 0..N {
        for i in 0..N {
            let u = 0.2 + 0.6 * (i as f32 + 0.5) / N as f32;
            let v = height_in_widths * (0.2 + 0.6 * (j as f32 + 0.5) / N as f32);
            let p = f.at(u, v);
            px.push(sample_rgb(img, p[0], p[1]));
        }
    }
    // Paper reference: the border strip just inside the edge.
    let mut border = 0f32;
    for k in 0..N {
        let p = f.at(0.04, height_in_widths * (k as f32 + 0.5) / N as f32);
        let c = sample_rgb(img, p[0], p[1]);
        border = border.max(c[0].min(c[1]).min(c[2]));
    }
    if border < 60.0 {
        return None;
    }
    let white = px
        .iter()
        .filter(|c| c[0].min(c[1]).min(c[2]) > WHITE_SHARE * border)
        .count() as f32
        / px.len() as f32;
    if white > BACK_MAX_WHITE {
        return None;
    }
    let n = px.len() as f32;
    let r = px.iter().map(|c| c[0]).sum::<f32>() / n;
    let b = px.iter().map(|c| c[2]).sum::<f32>() / n;
    Some(if r > b + BACK_HUE_MARGIN {
        BackColour::Red
    } else if b > r + BACK_HUE_MARGIN {
        BackColour::Blue
    } else {
        BackColour::Other
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    fn frame() -> CornerFrame {
        CornerFrame {
            origin: [10.0, 10.0],
            r: [1.0, 0.0],
            d: [0.0, 1.0],
            width: 60.0,
        }
    }

    #[test]
    fn red_back_is_red() {
        let mut img = RgbImage::from_pixel(100, 120, Rgb([240, 240, 240]));
        for y in 16..88 {
            for x in 16..64 {
                img.put_pixel(x, y, Rgb([170, 30, 40]));
            }
        }
        assert_eq!(back_colour(&img, &frame(), 1.4), Some(BackColour::Red));
    }

    #[test]
    fn white_face_is_not_back() {
        let img = RgbImage::from_pixel(100, 120, Rgb([240, 240, 240]));
        assert_eq!(back_colour(&img, &frame(), 1.4), None);
    }
}
