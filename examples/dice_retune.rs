//! Re-run the fitter's threshold choice ([`fit::choose_thresholds`]) for a
//! fitted model on the tune part, without refitting the networks, and
//! optionally write the model with those thresholds:
//! `cargo run --release --example dice_retune -- SET_DIR MODEL [OUT] [HALF]`
//! (OUT `-` writes nothing; HALF `A` or `B` uses only that half of the tune
//! part, `fit::in_tune_half_a`). Also prints the score of the model's own
//! thresholds on the same images.
use adjutant::vision::dice::classify::classify;
use adjutant::vision::dice::find::find_candidates_reference;
use adjutant::vision::dice::fit::{self, MINE_THRESHOLD, Part, load_rgb, load_set, part_of};
use adjutant::vision::dice::model::DiceModel;
use adjutant::vision::dice::prep::prepare;
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let usage = || anyhow::anyhow!("usage: dice_retune SET_DIR MODEL [OUT] [A|B]");
    let half = a.get(4).map(|h| h == "A");
    let set = PathBuf::from(a.get(1).ok_or_else(usage)?);
    let mut m = DiceModel::from_bytes(&std::fs::read(a.get(2).ok_or_else(usage)?)?)?;
    let items = load_set(&set)?;
    let mut tune = Vec::new();
    for (i, it) in items.iter().enumerate() {
        if part_of(i) != Part::Tune || half.is_some_and(|h| fit::in_tune_half_a(i) != Some(h)) {
            continue;
        }
        let img = load_rgb(&it.path)?;
        let pr = prepare(&img);
        let c: Vec<_> =
            find_candidates_reference(&pr, &m.detector, MINE_THRESHOLD, m.nms_factor, 1)
                .into_iter()
                .map(|c| (c, classify(&img, &m.classifier, &c).0))
                .collect();
        tune.push((it.dice.clone(), c));
    }
    let pairs: Vec<_> = tune
        .iter()
        .map(|(d, c)| (d.as_slice(), c.as_slice()))
        .collect();
    let best = fit::choose_thresholds(&pairs);
    let own = fit::threshold_score(&pairs, m.det_threshold, m.read_threshold);
    println!(
        "{} images; own thresholds det {} read {}: score {}, exact {}, tp {}, reads {}",
        pairs.len(),
        m.det_threshold,
        m.read_threshold,
        own.0,
        own.1,
        own.2,
        own.3
    );
    println!(
        "was det {} read {}; chosen det {} read {} (score {}, exact {}, tp {})",
        m.det_threshold, m.read_threshold, best.2, best.3, best.0, best.1, best.4
    );
    if let Some(out) = a.get(3).filter(|o| *o != "-") {
        m.det_threshold = best.2;
        m.read_threshold = best.3;
        // `DET=0.85` writes that detector threshold instead of the chosen one.
        if let Some(dt) = std::env::var("DET").ok().and_then(|v| v.parse().ok()) {
            m.det_threshold = dt;
        }
        std::fs::write(out, m.to_bytes())?;
    }
    Ok(())
}
