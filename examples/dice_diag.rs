//! Dice reader diagnostics on one part of the byler-d6 split: for every
//! labelled die, whether the detector found it (and at which score), what the
//! classifier said, and false positives; writes failing crops as PNG.
//!
//! `cargo run --release --example dice_diag -- SET_DIR [MODEL] [OUT_DIR] [PART]`
//! with PART one of `held`, `tune`, `train`, `tuneA`, `tuneB` (the halves of
//! the tune part, `fit::in_tune_half_a`; default `held`). Also compares
//! the decisions with crops at the labelled box ("oracle") and with
//! probabilities averaged over several crop scales. Candidates are taken down
//! to a detector score of 0.02 so near-misses of the detector show up.
//! `DICE_DIAG_ALIGNED=1` also writes the face-aligned crop the classifier
//! sees for every die with a candidate (`aligned_*.png`, 8x enlarged).

use adjutant::vision::dice::classify::{Decision, classify};
use adjutant::vision::dice::find::find_candidates;
use adjutant::vision::dice::fit::{Part, in_tune_half_a, load_rgb, load_set, part_of};
use adjutant::vision::dice::model::DiceModel;
use adjutant::vision::dice::prep::prepare;
use std::path::PathBuf;

/// Writes the face-aligned crop the classifier sees (`DICE_DIAG_ALIGNED=1`),
/// 8x enlarged.
fn save_aligned(
    img: &image::RgbImage,
    c: &adjutant::vision::dice::find::Candidate,
    path: &std::path::Path,
) {
    use adjutant::vision::dice::crop::{GRID, aligned_crop};
    let cpu = adjutant::vision::dice::cpu::Cpu::detect();
    let scale = adjutant::vision::dice::classify::CROP_SCALE;
    let (cells, _) = aligned_crop(img, c.center[0], c.center[1], c.size, scale, 0.0, cpu);
    let g = GRID as u32;
    let out = image::RgbImage::from_fn(g * 8, g * 8, |x, y| {
        let p = cells[((y / 8) * g + x / 8) as usize];
        image::Rgb([p[0] as u8, p[1] as u8, p[2] as u8])
    });
    let _ = out.save(path);
}

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let set = PathBuf::from(
        a.get(1)
            .ok_or_else(|| anyhow::anyhow!("usage: dice_diag SET_DIR [MODEL] [OUT_DIR] [PART]"))?,
    );
    let model_path = a.get(2).cloned().unwrap_or("models/dice.bin".into());
    let out = PathBuf::from(a.get(3).cloned().unwrap_or("/tmp/dice_diag".into()));
    let (part, half_a) = match a.get(4).map(|s| s.as_str()) {
        Some("tune") => (Part::Tune, None),
        Some("tuneA") => (Part::Tune, Some(true)),
        Some("tuneB") => (Part::Tune, Some(false)),
        Some("train") => (Part::Train, None),
        _ => (Part::HeldOut, None),
    };
    std::fs::create_dir_all(&out)?;
    let m = DiceModel::from_bytes(&std::fs::read(model_path)?)?;
    let items = load_set(&set)?;
    let (mut n, mut ok, mut wrong, mut unread, mut notdie, mut miss_low, mut miss) =
        (0, 0, 0, 0, 0, 0, 0);
    let (mut fp_read, mut fp_unread) = (0, 0);
    let mut size_err = Vec::new();
    let mut alt = [[0usize; 3]; 1 + SCALES.len()];
    for (i, it) in items.iter().enumerate() {
        if part_of(i) != part || half_a.is_some_and(|h| in_tune_half_a(i) != Some(h)) {
            continue;
        }
        let img = load_rgb(&it.path)?;
        let p = prepare(&img);
        let cands = find_candidates(&p, &m.detector, 0.02, m.nms_factor);
        let mut used = vec![false; cands.len()];
        let name = it
            .rel
            .rsplit('/')
            .next()
            .unwrap_or("x")
            .trim_end_matches(".jpg");
        for (k, d) in it.dice.iter().enumerate() {
            n += 1;
            let best = cands
                .iter()
                .enumerate()
                .filter(|(j, c)| {
                    !used[*j]
                        && ((c.center[0] - d.center[0]).powi(2)
                            + (c.center[1] - d.center[1]).powi(2))
                        .sqrt()
                            < 0.5 * d.size
                })
                .max_by(|a, b| a.1.score.total_cmp(&b.1.score));
            let tag;
            let mut info = String::new();
            match best {
                None => {
                    miss += 1;
                    tag = "miss";
                }
                Some((j, c)) if c.score < m.det_threshold => {
                    used[j] = true;
                    miss_low += 1;
                    tag = "lowdet";
                    let pr = classify(&img, &m.classifier, c);
                    info = format!("det {:.3} probs {:?}", c.score, fmt(&pr.0));
                }
                Some((j, c)) => {
                    used[j] = true;
                    size_err.push(c.size / d.size);
                    if std::env::var("DICE_DIAG_ALIGNED").is_ok() {
                        save_aligned(
                            &img,
                            c,
                            &out.join(format!("aligned_{name}_{k}_v{}.png", d.value)),
                        );
                    }
                    let pr = classify(&img, &m.classifier, c);
                    info = format!(
                        "det {:.3} size {:.1}/{:.1} probs {:?}",
                        c.score,
                        c.size,
                        d.size,
                        fmt(&pr.0)
                    );
                    let oc = adjutant::vision::dice::find::Candidate {
                        center: d.center,
                        size: d.size,
                        score: 1.0,
                    };
                    tally(
                        &mut alt[0],
                        classify(&img, &m.classifier, &oc).decide(m.read_threshold),
                        d.value,
                    );
                    for (si, sc) in SCALES.iter().enumerate() {
                        let mut acc = [0f32; 7];
                        for f in sc.iter() {
                            let c2 = adjutant::vision::dice::find::Candidate {
                                size: c.size * f,
                                ..*c
                            };
                            let q = classify(&img, &m.classifier, &c2);
                            for (a, v) in acc.iter_mut().zip(q.0) {
                                *a += v / sc.len() as f32;
                            }
                        }
                        tally(
                            &mut alt[1 + si],
                            adjutant::vision::dice::classify::FaceProbs(acc)
                                .decide(m.read_threshold),
                            d.value,
                        );
                    }
                    tag = match pr.decide(m.read_threshold) {
                        Decision::NotDie => {
                            notdie += 1;
                            "notdie"
                        }
                        Decision::Unread => {
                            unread += 1;
                            "unread"
                        }
                        Decision::Read { value, .. } if value == d.value => {
                            ok += 1;
                            "ok"
                        }
                        Decision::Read { .. } => {
                            wrong += 1;
                            "wrong"
                        }
                    };
                }
            }
            if tag != "ok" {
                println!(
                    "{name} die{k} v{} at ({:.0},{:.0}) s{:.0}: {tag} {info}",
                    d.value, d.center[0], d.center[1], d.size
                );
                save_crop(
                    &img,
                    d.center,
                    d.size,
                    &out.join(format!("{tag}_{name}_{k}_v{}.png", d.value)),
                );
            }
        }
        for (j, c) in cands.iter().enumerate() {
            if used[j] || c.score < m.det_threshold {
                continue;
            }
            let near = it.dice.iter().any(|d| {
                ((c.center[0] - d.center[0]).powi(2) + (c.center[1] - d.center[1]).powi(2)).sqrt()
                    < 0.5 * d.size
            });
            let pr = classify(&img, &m.classifier, c);
            match pr.decide(m.read_threshold) {
                Decision::NotDie => {}
                dcs => {
                    if matches!(dcs, Decision::Read { .. }) {
                        fp_read += 1
                    } else {
                        fp_unread += 1
                    }
                    println!(
                        "{name} FP at ({:.0},{:.0}) s{:.0} near_die {near} det {:.3} {:?}",
                        c.center[0], c.center[1], c.size, c.score, dcs
                    );
                    save_crop(
                        &img,
                        c.center,
                        c.size,
                        &out.join(format!("fp_{name}_{j}.png")),
                    );
                }
            }
        }
    }
    println!(
        "oracle crop [ok, wrong, unread/notdie] {:?}; multi-scale {:?}: {:?}",
        alt[0],
        SCALES,
        &alt[1..]
    );
    size_err.sort_by(|a, b| a.total_cmp(b));
    let q = |f: f32| {
        size_err
            .get((f * size_err.len() as f32) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    println!(
        "dice {n}: ok {ok}, wrong {wrong}, unread {unread}, classed not-a-die {notdie}, below det threshold {miss_low}, no candidate {miss}; FP read {fp_read}, FP unread {fp_unread}; size ratio q10 {:.2} q50 {:.2} q90 {:.2}",
        q(0.1),
        q(0.5),
        q(0.9)
    );
    Ok(())
}

const SCALES: [&[f32]; 4] = [
    &[0.85, 1.0, 1.15],
    &[0.9, 1.0, 1.1],
    &[0.8, 0.9, 1.0, 1.1, 1.2],
    &[1.0, 1.1],
];

fn tally(t: &mut [usize; 3], d: Decision, v: u8) {
    match d {
        Decision::Read { value, .. } if value == v => t[0] += 1,
        Decision::Read { .. } => t[1] += 1,
        _ => t[2] += 1,
    }
}

fn fmt(p: &[f32]) -> Vec<String> {
    p.iter().map(|v| format!("{v:.2}")).collect()
}

fn save_crop(img: &image::RgbImage, c: [f32; 2], s: f32, path: &std::path::Path) {
    let half = s;
    let x0 = (c[0] - half).max(0.0) as u32;
    let y0 = (c[1] - half).max(0.0) as u32;
    let w = ((2.0 * half) as u32)
        .min(img.width().saturating_sub(x0))
        .max(1);
    let h = ((2.0 * half) as u32)
        .min(img.height().saturating_sub(y0))
        .max(1);
    let sub = image::imageops::crop_imm(img, x0, y0, w, h).to_image();
    let big = image::imageops::resize(&sub, w * 3, h * 3, image::imageops::FilterType::Nearest);
    let _ = big.save(path);
}
