//! How the dice reader reads one part of a labelled dice set at each of a list
//! of enlargements: the mean frame confidence (what `--dice-scale auto`
//! compares) and the `eval` figures, per scale. Shows how well confidence
//! tracks the reads, e.g. on a copy shrunk by `examples/shrink_set.rs`.
//!
//! `cargo run --release --example dice_scales -- SET_DIR 1,1.25,1.5,2 [held|tune]`

use adjutant::vision::dice::DiceReader;
use adjutant::vision::dice::fit::{Evaluation, Part, load_rgb, load_set, part_of};
use adjutant::vision::dice::scale::frame_confidence;
use adjutant::vision::scan::BUILTIN_DICE_MODEL;
use anyhow::{Context, bail};

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let (Some(set), Some(scales)) = (a.get(1), a.get(2)) else {
        bail!("usage: dice_scales SET_DIR SCALE,SCALE,... [held|tune]");
    };
    let part = match a.get(3).map(String::as_str) {
        Some("tune") => Part::Tune,
        _ => Part::HeldOut,
    };
    let scales = scales
        .split(',')
        .map(|s| {
            s.trim()
                .parse::<f32>()
                .with_context(|| format!("scale {s}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let reader = DiceReader::from_model_bytes(BUILTIN_DICE_MODEL)?;
    let photos = load_set(std::path::Path::new(set))?
        .into_iter()
        .enumerate()
        .filter(|(i, _)| part_of(*i) == part)
        .map(|(_, it)| Ok((it.dice.clone(), load_rgb(&it.path)?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    for s in scales {
        let mut e = Evaluation::default();
        let mut confidence = 0.0;
        for (truth, img) in &photos {
            let scan = reader.read_scaled(img, s);
            confidence += frame_confidence(&scan).unwrap_or(0.0);
            e.add(truth, &scan);
        }
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        println!(
            "{s:.2}x: mean confidence {:.3}  exact {:.1}%  precision {:.1}%  recall {:.1}%",
            confidence / photos.len().max(1) as f64,
            pct(e.exact, e.images),
            pct(e.tp, e.predicted),
            pct(e.tp, e.labelled)
        );
    }
    Ok(())
}
