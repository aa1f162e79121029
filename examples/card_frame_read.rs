//! Reads the 8-card 1280x720 bench frame (`benches/vision.rs`, `read/1280x720/8`)
//! N times, for profiling: `cargo run --release --example card_frame_read -- N [CARDS]`
//! (CARDS: how many card tiles the frame holds, default 8; 0 is the empty
//! frame of `read/1280x720/0`). `SAVE_FRAME=PATH` also writes the frame to
//! PATH (to scan it with `adjutant scan`); `BACKS=1` lays the cards face down
//! (the frame of `read_backs/1280x720/8`).

use adjutant::vision::cards::CardReader;
use adjutant::vision::scan::BUILTIN_CARD_MODEL;

include!("../benches/common/frames.rs");

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let n_cards: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let tiles = if std::env::var("BACKS").is_ok_and(|v| v == "1") {
        back_tiles()
    } else {
        card_tiles()
    };
    let img = card_frame(1280, 720, n_cards, &tiles);
    if let Ok(path) = std::env::var("SAVE_FRAME") {
        img.save(path)?;
    }
    let reader = CardReader::from_model_bytes(BUILTIN_CARD_MODEL)?;
    let t = std::time::Instant::now();
    let (mut cards, mut backs) = (0, 0);
    for _ in 0..n {
        let scan = reader.read(&img)?;
        (cards, backs) = (scan.cards.len(), scan.backs.len());
    }
    println!(
        "{cards} cards, {backs} backs, {:.2} ms per read",
        t.elapsed().as_secs_f64() * 1e3 / n as f64
    );
    Ok(())
}
