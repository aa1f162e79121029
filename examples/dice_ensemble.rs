//! Score an ensemble of dice models on the tune part: candidates from the
//! first model's detector, class probabilities averaged over every model's
//! classifier (each with the reader's test-time augmentation), thresholds
//! chosen as the fitter does ([`fit::choose_thresholds`]):
//! `cargo run --release --example dice_ensemble -- SET_DIR MODEL...`
//! With `HELD=1`, also scores the held-out part with the tune-chosen
//! thresholds (read it only after deciding on the tune part). `DETS=0.8,0.9`
//! also prints the tune score at those detector thresholds.
use adjutant::vision::dice::classify::{TTA_EARLY_EXIT, candidate_features, probs_tta};
use adjutant::vision::dice::cpu::Cpu;
use adjutant::vision::dice::find::Candidate;
use adjutant::vision::dice::fit::{self, LabelledImage, Part, load_set, mined_part};
use adjutant::vision::dice::model::{DiceModel, N_CLASSES};
use std::path::PathBuf;

type Scored = (Vec<fit::LabelledDie>, Vec<(Candidate, [f32; N_CLASSES])>);

fn score_part(
    items: &[LabelledImage],
    models: &[DiceModel],
    part: Part,
) -> anyhow::Result<Vec<Scored>> {
    let cpu = Cpu::detect();
    let mut out = Vec::new();
    for (img, it, cands) in mined_part(items, &models[0], part)? {
        let c = cands
            .into_iter()
            .map(|c| {
                // One crop per candidate; each model's classifier reads it
                // as `classify` does.
                let f = candidate_features(&img, &c, cpu);
                let mut acc = [0f32; N_CLASSES];
                for m in models {
                    let p = probs_tta(&m.classifier, &f, TTA_EARLY_EXIT).0;
                    for (a, v) in acc.iter_mut().zip(p) {
                        *a += v / models.len() as f32;
                    }
                }
                (c, acc)
            })
            .collect();
        out.push((it.dice.clone(), c));
    }
    Ok(out)
}

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let usage = || anyhow::anyhow!("usage: dice_ensemble SET_DIR MODEL...");
    let items = load_set(&PathBuf::from(a.get(1).ok_or_else(usage)?))?;
    let models = a[2..]
        .iter()
        .map(|p| Ok(DiceModel::from_bytes(&std::fs::read(p)?)?))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if models.is_empty() {
        return Err(usage());
    }
    let tune = score_part(&items, &models, Part::Tune)?;
    let pairs: Vec<_> = tune
        .iter()
        .map(|(d, c)| (d.as_slice(), c.as_slice()))
        .collect();
    let best = fit::choose_thresholds(&pairs);
    println!(
        "tune: {} images; chosen det {} read {}: score {}, exact {}, tp {}",
        pairs.len(),
        best.2,
        best.3,
        best.0,
        best.1,
        best.4
    );
    // `DETS=0.8,0.9`: the tune score at other detector thresholds (with the
    // chosen read threshold), e.g. above the fitter's grid.
    for dt in std::env::var("DETS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|v| v.parse::<f32>().ok())
    {
        let (score, exact, tp, reads) = fit::threshold_score(&pairs, dt, best.3);
        println!("tune at det {dt}: score {score}, exact {exact}, tp {tp}, reads {reads}");
    }
    if std::env::var("HELD").is_ok_and(|v| v == "1") {
        let held = score_part(&items, &models, Part::HeldOut)?;
        let pairs: Vec<_> = held
            .iter()
            .map(|(d, c)| (d.as_slice(), c.as_slice()))
            .collect();
        let (score, exact, tp, reads) = fit::threshold_score(&pairs, best.2, best.3);
        let dice: usize = held.iter().map(|(d, _)| d.len()).sum();
        println!(
            "held: {} images, {} dice; score {}, exact {} ({:.1}%), tp {}, reads {}: P {:.2}% R {:.2}%",
            pairs.len(),
            dice,
            score,
            exact,
            100.0 * exact as f64 / pairs.len() as f64,
            tp,
            reads,
            100.0 * tp as f64 / reads.max(1) as f64,
            100.0 * tp as f64 / dice.max(1) as f64
        );
    }
    Ok(())
}
