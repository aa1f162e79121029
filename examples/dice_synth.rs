//! Writes a sheet of synthetic dice (`vision::dice::synth`) drawn on patches
//! of a table photo, for looking at: `dice_synth TABLE.jpg OUT.png [SEED]`.
//! With `DICE_SYNTH_SCORE=N` it also reads N drawn dice with the built-in
//! model or `DICE_MODEL` (the drawn die's box as the candidate) and counts
//! the reads; `V=1` also lists each wrong read with its pip-blob counts and
//! saves the canvas in /tmp. `DICE_SYNTH_STYLE=2` draws with renderer style 2.
use adjutant::vision::dice::classify::{CROP_SCALE, Decision, TTA_EARLY_EXIT, probs_tta};
use adjutant::vision::dice::cpu::Cpu;
use adjutant::vision::dice::crop::{GRID, aligned_crop, crop_features, pip_counts};
use adjutant::vision::dice::fit::load_rgb;
use adjutant::vision::dice::mlp::XorShift;
use adjutant::vision::dice::model::DiceModel;
use adjutant::vision::dice::synth::{SynthStyle, render_die_styled};

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let table =
        load_rgb(std::path::Path::new(a.get(1).ok_or_else(|| {
            anyhow::anyhow!("usage: dice_synth TABLE OUT [SEED]")
        })?))?;
    let seed = a.get(3).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = XorShift::new(seed);
    // `DICE_SYNTH_STYLE=2` draws with renderer style 2.
    let style = std::env::var("DICE_SYNTH_STYLE")
        .ok()
        .and_then(|s| s.parse().ok())
        .and_then(SynthStyle::from_number)
        .unwrap_or_default();
    let cell = 170u32;
    let mut sheet = image::RgbImage::new(cell * 8, cell * 4);
    for k in 0..32u32 {
        let value = 1 + (k % 6) as u8;
        if let Some((img, d)) = render_die_styled(&mut rng, &table, value, style) {
            let (x, y) = ((k % 8) * cell, (k / 8) * cell);
            image::imageops::overlay(&mut sheet, &img, x as i64, y as i64);
            println!(
                "{k}: value {value} box centre {:?} side {:.1}",
                d.center, d.size
            );
        }
    }
    sheet.save(a.get(2).map(String::as_str).unwrap_or("/tmp/synth.png"))?;
    if let Some(n) = std::env::var("DICE_SYNTH_SCORE")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        let m = DiceModel::from_bytes(&std::fs::read(
            std::env::var("DICE_MODEL").unwrap_or_else(|_| "models/dice.bin".into()),
        )?)?;
        let verbose = std::env::var("V").is_ok();
        let cpu = Cpu::detect();
        let mut t = [[0usize; 3]; 7];
        for i in 0..n {
            let value = 1 + (i % 6) as u8;
            let Some((img, d)) = render_die_styled(&mut rng, &table, value, style) else {
                continue;
            };
            // The crop the reader takes at the drawn die's box, and its
            // probabilities as `classify` gives them.
            let (cells, side) =
                aligned_crop(&img, d.center[0], d.center[1], d.size, CROP_SCALE, 0.0, cpu);
            let f = crop_features(&cells, side, 0, cpu);
            let k = match probs_tta(&m.classifier, &f, TTA_EARLY_EXIT).decide(m.read_threshold) {
                Decision::Read { value: v, .. } if v == value => 0,
                Decision::Read { value: v, .. } => {
                    if verbose {
                        println!(
                            "{i}: {value} read {v}, pip-blob counts {:?}",
                            pip_counts(&f)
                        );
                        let _ = img.save(format!("/tmp/syn_{i}_{value}_{v}.png"));
                        let g = GRID as u32;
                        let out = image::RgbImage::from_fn(g * 4, g * 4, |x, y| {
                            let p = cells[((y / 4) * g + x / 4) as usize];
                            image::Rgb([p[0] as u8, p[1] as u8, p[2] as u8])
                        });
                        let _ = out.save(format!("/tmp/synal_{i}_{value}_{v}.png"));
                    }
                    1
                }
                _ => 2,
            };
            t[value as usize][k] += 1;
        }
        println!("by value [right, wrong, unread/not a die]: {:?}", &t[1..]);
    }
    Ok(())
}
