//! Print every detector candidate of one image (resized to 720 px high) with
//! its class probabilities: `cargo run --release --example dice_probe -- IMG [MODEL]`.
use adjutant::vision::dice::classify::classify;
use adjutant::vision::dice::find::find_candidates;
use adjutant::vision::dice::model::DiceModel;
use adjutant::vision::dice::prep::prepare;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let path = a
        .get(1)
        .ok_or_else(|| anyhow::anyhow!("usage: dice_probe IMG [MODEL]"))?;
    let model_path = a.get(2).cloned().unwrap_or("models/dice.bin".into());
    let m = DiceModel::from_bytes(&std::fs::read(model_path)?)?;
    let img = image::open(path)?;
    let k = 720.0 / img.height().max(1) as f32;
    let img = img
        .resize(
            (img.width() as f32 * k) as u32,
            720,
            image::imageops::FilterType::Triangle,
        )
        .to_rgb8();
    let p = prepare(&img);
    for c in find_candidates(&p, &m.detector, m.det_threshold, m.nms_factor) {
        let pr = classify(&img, &m.classifier, &c);
        let v: Vec<String> = pr.0.iter().map(|v| format!("{v:.3}")).collect();
        println!(
            "({:.0},{:.0}) s{:.1} det {:.3} probs [{}] -> {:?}",
            c.center[0],
            c.center[1],
            c.size,
            c.score,
            v.join(", "),
            pr.decide(m.read_threshold)
        );
    }
    Ok(())
}
