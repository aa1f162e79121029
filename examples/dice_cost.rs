//! Cost probe for the dice reader, for `valgrind --tool=callgrind` (steadier
//! than wall time on a shared machine) or a quick wall-clock check.
//!
//! `cargo run --release --example dice_cost -- [WxH] [ROUNDS] [MODEL]` reads the
//! frame that `benches/vision.rs` composes from two byler-d6 held-out photos
//! (default 1280x720, 10 rounds) and prints the median time per read and the
//! number of dice read. Under callgrind, collect only the reads with
//! `--toggle-collect='*DiceReader*read_rgb*'`.

use adjutant::vision::dice::DiceReader;
use adjutant::vision::scan::BUILTIN_DICE_MODEL;
use std::time::Instant;

include!("../benches/common/frames.rs");

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
    let frame = dice_frame(w, h).ok_or("byler-d6 photos not found (set ADJUTANT_DATA)")?;
    // An optional third argument reads with another model file (e.g. a
    // wider classifier fitted with `fit-dice --cnn-widths`).
    let bytes = match args.get(3) {
        Some(p) => std::fs::read(p)?,
        None => BUILTIN_DICE_MODEL.to_vec(),
    };
    let reader = DiceReader::from_model_bytes(&bytes)?;
    let mut times = Vec::new();
    let mut n = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        let scan = reader.read_rgb(&frame);
        times.push(t.elapsed().as_secs_f64() * 1e3);
        n = scan.dice.len();
    }
    times.sort_by(f64::total_cmp);
    let at = |q: usize| times.get(times.len() * q / 100).copied().unwrap_or(0.0);
    // The fastest reads and the lower quartile: on a shared machine the
    // median moves with the other jobs' load, the low end much less.
    let (min, q1, med) = (at(0), at(25), at(50));
    println!(
        "{w}x{h}: {n} dice read, median {med:.2} ms over {rounds} reads (min {min:.2}, lower quartile {q1:.2})"
    );
    Ok(())
}
