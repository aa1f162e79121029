//! Reads the 8-card 1280x720 bench frame (`benches/vision.rs`, `read/1280x720/8`)
//! N times, for profiling: `cargo run --release --example card_frame_read -- N`.

use adjutant::vision::cards::CardReader;
use adjutant::vision::scan::BUILTIN_CARD_MODEL;
use image::{DynamicImage, Rgb, RgbImage, imageops};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data"))
        .join("cards/sarm-slate-phone/images");
    let mut canvas = RgbImage::from_pixel(1280, 720, Rgb([25, 25, 30]));
    let names = [
        "single_s9",
        "single_hk",
        "single_d10",
        "single_ca",
        "single_h9",
        "single_sq",
        "single_dj",
        "single_c9",
    ];
    for (i, name) in names.iter().enumerate() {
        let img = image::open(dir.join(format!("{name}.jpg")))?;
        let t = imageops::resize(&img.to_rgb8(), 240, 320, imageops::FilterType::Triangle);
        let (x, y) = ((i as u32 % 5) * 240, (i as u32 / 5) * 320);
        imageops::overlay(&mut canvas, &t, x as i64, y as i64);
    }
    let img = DynamicImage::ImageRgb8(canvas);
    let reader = CardReader::from_model_bytes(BUILTIN_CARD_MODEL)?;
    let t = std::time::Instant::now();
    let mut cards = 0;
    for _ in 0..n {
        cards = reader.read(&img)?.cards.len();
    }
    println!(
        "{cards} cards, {:.2} ms per read",
        t.elapsed().as_secs_f64() * 1e3 / n as f64
    );
    Ok(())
}
