//! Cost probe for the dice reader, for `valgrind --tool=callgrind` (steadier
//! than wall time on a shared machine) or a quick wall-clock check.
//!
//! `cargo run --release --example dice_cost -- [WxH] [ROUNDS]` reads the
//! frame that `benches/vision.rs` composes from two byler-d6 held-out photos
//! (default 1280x720, 10 rounds) and prints the median time per read and the
//! number of dice read. Under callgrind, collect only the reads with
//! `--toggle-collect='*DiceReader*read_rgb*'`.

use adjutant::vision::dice::DiceReader;
use adjutant::vision::scan::BUILTIN_DICE_MODEL;
use image::RgbImage;
use std::path::PathBuf;
use std::time::Instant;

/// Photos tiled into the frame (the bench's two held-out photos).
const PHOTOS: [&str; 2] = ["IMG_20191208_112933.jpg", "IMG_20191208_113019.jpg"];

/// Tile size: each photo fills a 640x720 tile (rows past its 640 repeat the
/// last one), as in the bench's 1280x720 frame.
const TILE: (u32, u32) = (640, 720);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (w, h) = match args.get(1) {
        Some(s) => {
            let (a, b) = s.split_once('x').ok_or("size must be WxH")?;
            (a.parse::<u32>()?, b.parse::<u32>()?)
        }
        None => (1280, 720),
    };
    let rounds: usize = match args.get(2) {
        Some(s) => s.parse()?,
        None => 10,
    };
    let root = std::env::var("ADJUTANT_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data")));
    let dir = root.join("dice/byler-d6/images");
    let photos: Vec<RgbImage> = PHOTOS
        .iter()
        .map(|n| image::open(dir.join(n)).map(|i| i.to_rgb8()))
        .collect::<Result<_, _>>()?;
    let frame = RgbImage::from_fn(w, h, |x, y| {
        let (tx, ty) = (x / TILE.0, y / TILE.1);
        let p = &photos[((tx + ty) % 2) as usize];
        let sx = (x % TILE.0).min(p.width() - 1);
        let sy = (y % TILE.1).min(p.height() - 1);
        *p.get_pixel(sx, sy)
    });
    let reader = DiceReader::from_model_bytes(BUILTIN_DICE_MODEL)?;
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        let scan = reader.read_rgb(&frame);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        n = scan.dice.len();
    }
    times.sort_by(f64::total_cmp);
    let med = times.get(times.len() / 2).copied().unwrap_or(0.0);
    println!("{w}x{h}: {n} dice read, median {med:.2} ms over {rounds} reads");
    Ok(())
}
