//! Writes the dice classifier's five 16x16 input maps of the candidate
//! nearest to (x, y) as a PNG (maps side by side, each min-max scaled) and
//! prints its class probabilities and scalar features:
//! `dice_maps IMAGE X Y OUT.png [MODEL]`.
use adjutant::vision::dice::classify::{TTA_EARLY_EXIT, candidate_features, probs_tta};
use adjutant::vision::dice::cpu::Cpu;
use adjutant::vision::dice::crop::{MAP, N_MAPS};
use adjutant::vision::dice::find::find_candidates;
use adjutant::vision::dice::fit::load_rgb;
use adjutant::vision::dice::model::DiceModel;
use adjutant::vision::dice::prep::prepare;

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        anyhow::bail!("usage: dice_maps IMAGE X Y OUT.png [MODEL]");
    }
    let img = load_rgb(std::path::Path::new(&a[1]))?;
    let (x, y): (f32, f32) = (a[2].parse()?, a[3].parse()?);
    let model = a.get(5).map_or("models/dice.bin", String::as_str);
    let m = DiceModel::from_bytes(&std::fs::read(model)?)?;
    let p = prepare(&img);
    let cands = find_candidates(&p, &m.detector, m.det_threshold, m.nms_factor);
    let c = cands
        .iter()
        .min_by(|a, b| {
            let da = (a.center[0] - x).powi(2) + (a.center[1] - y).powi(2);
            let db = (b.center[0] - x).powi(2) + (b.center[1] - y).powi(2);
            da.total_cmp(&db)
        })
        .ok_or_else(|| anyhow::anyhow!("no candidate"))?;
    let cpu = Cpu::detect();
    let f = candidate_features(&img, c, cpu);
    // The reader's probabilities, from the same crop features.
    println!(
        "cand {:?} size {:.1} probs {:?}",
        c.center,
        c.size,
        probs_tta(&m.classifier, &f, TTA_EARLY_EXIT).0
    );
    println!("scalars+pips {:?}", &f[N_MAPS * MAP * MAP..]);
    let planes: Vec<&[f32]> = f[..N_MAPS * MAP * MAP].chunks_exact(MAP * MAP).collect();
    let ranges: Vec<(f32, f32)> = planes
        .iter()
        .map(|p| {
            p.iter()
                .fold((f32::MAX, f32::MIN), |(l, h), &q| (l.min(q), h.max(q)))
        })
        .collect();
    let z = 12u32;
    let out = image::RgbImage::from_fn(z * (MAP * N_MAPS) as u32, z * MAP as u32, |px, py| {
        let (mi, u, v) = (
            (px / z) as usize / MAP,
            (px / z) as usize % MAP,
            (py / z) as usize,
        );
        let (lo, hi) = ranges[mi];
        let q = ((planes[mi][v * MAP + u] - lo) / (hi - lo).max(1e-6) * 255.0) as u8;
        image::Rgb([q, q, q])
    });
    out.save(&a[4])?;
    Ok(())
}
