// The frames the speed figures are measured on, shared by `benches/vision.rs`
// and the cost examples (`examples/card_frame_read.rs`, `examples/dice_cost.rs`)
// through `include!`, so a profile and a bench always read the same pixels.
// Paths are written out in full: the includers' imports are not assumed, and
// each includer uses only some of these items (hence `allow(dead_code)`).

/// Data root: `ADJUTANT_DATA`, default `../shared/data` beside the crate.
#[allow(dead_code)]
fn data_root() -> std::path::PathBuf {
    std::env::var("ADJUTANT_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|_| {
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data"))
        })
}

/// The eight sarm single-card photos at half size (240x320 tiles, one card
/// ~78 px wide); synthetic blank cards, with a message, without the data set.
#[allow(dead_code)]
fn card_tiles() -> Vec<image::RgbImage> {
    use image::{Rgb, RgbImage, imageops};
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

/// Eight face-down cards (240x320 tiles like [`card_tiles`]'s, the card
/// 78x110 px): a white border round a red or blue back printed with a white
/// diagonal lattice, as a Bicycle back seen from a webcam; synthetic (the data
/// sets have no backs). Terrain in T52 is laid face down, so frames of backs
/// are ordinary.
#[allow(dead_code)]
fn back_tiles() -> Vec<image::RgbImage> {
    use image::{Rgb, RgbImage};
    (0..8)
        .map(|i| {
            let ink = if i % 2 == 0 { Rgb([170, 30, 40]) } else { Rgb([30, 60, 150]) };
            let mut t = RgbImage::from_pixel(240, 320, Rgb([25, 25, 30]));
            for y in 105u32..215 {
                for x in 81u32..159 {
                    let border = !(86..154).contains(&x) || !(110..210).contains(&y);
                    let lattice = (x + y) % 7 == 0 || (x + 320 - y) % 7 == 0;
                    let white = Rgb([236, 234, 228]);
                    t.put_pixel(x, y, if border || lattice { white } else { ink });
                }
            }
            t
        })
        .collect()
}

/// `n` card tiles pasted left to right, top to bottom on a dark `w` x `h`
/// canvas.
#[allow(dead_code)]
fn card_frame(w: u32, h: u32, n: usize, tiles: &[image::RgbImage]) -> image::DynamicImage {
    let mut canvas = image::RgbImage::from_pixel(w, h, image::Rgb([25, 25, 30]));
    let cols = (w / 240).max(1);
    for i in 0..n {
        let t = &tiles[i % tiles.len()];
        let x = (i as u32 % cols) * 240;
        let y = (i as u32 / cols) * 320;
        image::imageops::overlay(&mut canvas, t, x as i64, y as i64);
    }
    image::DynamicImage::ImageRgb8(canvas)
}

/// Photos tiled into the dice frames (many dice each, from the held-out part).
#[allow(dead_code)]
const DICE_PHOTOS: [&str; 2] = ["IMG_20191208_112933.jpg", "IMG_20191208_113019.jpg"];

/// Tile of a dice frame: each photo fills 640x720 (rows and columns past the
/// photo repeat its last ones).
#[allow(dead_code)]
const DICE_TILE: (u32, u32) = (640, 720);

/// A `w` x `h` frame of the two dice photos in alternating tiles (at 1280x720
/// the two side by side, the bench's frame); `None` without the data set.
#[allow(dead_code)]
fn dice_frame(w: u32, h: u32) -> Option<image::RgbImage> {
    let dir = data_root().join("dice/byler-d6/images");
    let mut photos = Vec::new();
    for name in DICE_PHOTOS {
        photos.push(image::open(dir.join(name)).ok()?.to_rgb8());
    }
    Some(image::RgbImage::from_fn(w, h, |x, y| {
        let (tx, ty) = (x / DICE_TILE.0, y / DICE_TILE.1);
        let p = &photos[((tx + ty) % 2) as usize];
        let sx = (x % DICE_TILE.0).min(p.width().saturating_sub(1));
        let sy = (y % DICE_TILE.1).min(p.height().saturating_sub(1));
        *p.get_pixel(sx, sy)
    }))
}
