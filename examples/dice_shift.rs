//! Read-time crop search (issue 4, round s26): classify each candidate on
//! crops shifted and shrunk around the detector's box and combine them by a
//! named rule, scored as the fitter scores (thresholds chosen on the tune
//! part, then applied to the training part):
//! `cargo run --release --example dice_shift -- SET_DIR MODEL [held]`
//! `held` also scores the held-out part (read it only after deciding).
use adjutant::vision::dice::classify::{TTA_EARLY_EXIT, candidate_features, probs_tta};
use adjutant::vision::dice::cpu::Cpu;
use adjutant::vision::dice::find::Candidate;
use adjutant::vision::dice::fit::{self, LabelledImage, Part, load_set, mined_part};
use adjutant::vision::dice::model::{DiceModel, N_CLASSES};
use std::path::PathBuf;

type P = [f32; N_CLASSES];
/// Per image: labelled dice, and per candidate its probabilities on every crop.
type Scored = (Vec<fit::LabelledDie>, Vec<(Candidate, Vec<P>)>);
/// Per image: labelled dice, and per candidate its combined probabilities.
type Combined = (Vec<fit::LabelledDie>, Vec<(Candidate, P)>);

/// Crop offsets (fractions of the box side) and scales searched; index 0 is
/// the reader's own crop.
fn crops(step: f32) -> Vec<(f32, f32, f32)> {
    let mut v = vec![(0.0, 0.0, 1.0)];
    for s in [1.0f32, 0.85] {
        for dy in [-1.0f32, 0.0, 1.0] {
            for dx in [-1.0f32, 0.0, 1.0] {
                if s == 1.0 && dx == 0.0 && dy == 0.0 {
                    continue;
                }
                v.push((dx * step, dy * step, s));
            }
        }
    }
    v
}

fn score_part(
    items: &[LabelledImage],
    m: &DiceModel,
    part: Part,
    step: f32,
) -> anyhow::Result<Vec<Scored>> {
    let cpu = Cpu::detect();
    let grid = crops(step);
    let mut out = Vec::new();
    for (img, it, cands) in mined_part(items, m, part)? {
        let c = cands
            .into_iter()
            .map(|c| {
                let ps = grid
                    .iter()
                    .map(|&(dx, dy, s)| {
                        let mut c2 = c;
                        c2.center = [c.center[0] + dx * c.size, c.center[1] + dy * c.size];
                        c2.size = c.size * s;
                        let f = candidate_features(&img, &c2, cpu);
                        probs_tta(&m.classifier, &f, TTA_EARLY_EXIT).0
                    })
                    .collect();
                (c, ps)
            })
            .collect();
        out.push((it.dice.clone(), c));
    }
    Ok(out)
}

fn best_value(p: &P) -> f32 {
    p[1..].iter().copied().fold(0.0, f32::max)
}

/// Combine one candidate's crop probabilities by rule `r`.
fn combine(r: &str, ps: &[P], gate: f32) -> P {
    let base = ps[0];
    let mean = |sel: &[usize]| -> P {
        let mut a = [0f32; N_CLASSES];
        for &k in sel {
            for (x, v) in a.iter_mut().zip(ps[k]) {
                *x += v / sel.len() as f32;
            }
        }
        a
    };
    let argmax = |sel: &[usize]| -> P {
        *sel.iter()
            .map(|&k| &ps[k])
            .max_by(|a, b| best_value(a).total_cmp(&best_value(b)))
            .unwrap_or(&base)
    };
    let all: Vec<usize> = (0..ps.len()).collect();
    let full: Vec<usize> = (0..9).collect();
    let small: Vec<usize> = std::iter::once(0).chain(9..ps.len()).collect();
    let uncertain = best_value(&base) < gate && base[0] < 0.5;
    match r {
        "base" => base,
        "mean_all" => mean(&all),
        "mean_full" => mean(&full),
        "max_all" if uncertain => argmax(&all),
        "max_full" if uncertain => argmax(&full),
        "max_small" if uncertain => argmax(&small),
        "gmean_all" if uncertain => mean(&all),
        "gmean_small" if uncertain => mean(&small),
        _ => base,
    }
}

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let usage = || anyhow::anyhow!("usage: dice_shift SET_DIR MODEL [held]");
    let items = load_set(&PathBuf::from(a.get(1).ok_or_else(usage)?))?;
    let m = DiceModel::from_bytes(&std::fs::read(a.get(2).ok_or_else(usage)?)?)?;
    let step: f32 = std::env::var("STEP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.1);
    let held = a.get(3).is_some_and(|v| v == "held");
    let tune = score_part(&items, &m, Part::Tune, step)?;
    let train = score_part(&items, &m, Part::Train, step)?;
    let heldp = if held {
        Some(score_part(&items, &m, Part::HeldOut, step)?)
    } else {
        None
    };
    let rules = [
        "base",
        "mean_all",
        "mean_full",
        "max_all",
        "max_full",
        "max_small",
        "gmean_all",
        "gmean_small",
    ];
    for gate in [0.9f32, 0.99] {
        for r in rules {
            let view = |s: &[Scored]| -> Vec<Combined> {
                s.iter()
                    .map(|(d, c)| {
                        (
                            d.clone(),
                            c.iter().map(|(c, ps)| (*c, combine(r, ps, gate))).collect(),
                        )
                    })
                    .collect()
            };
            let tv = view(&tune);
            let pairs: Vec<_> = tv
                .iter()
                .map(|(d, c)| (d.as_slice(), c.as_slice()))
                .collect();
            let best = fit::choose_thresholds(&pairs);
            let (ts, te, ttp, tr) = fit::threshold_score(&pairs, m.det_threshold, m.read_threshold);
            let trv = view(&train);
            let tp: Vec<_> = trv
                .iter()
                .map(|(d, c)| (d.as_slice(), c.as_slice()))
                .collect();
            let (s, e, tpp, rd) = fit::threshold_score(&tp, m.det_threshold, m.read_threshold);
            let mut line = format!(
                "gate {gate} {r:12} tune@ship score {ts} exact {te} tp {ttp} reads {tr} | tune best {} (det {} read {}) | train@ship score {s} exact {e} tp {tpp} reads {rd}",
                best.0, best.2, best.3
            );
            if let Some(h) = &heldp {
                let hv = view(h);
                let hp: Vec<_> = hv
                    .iter()
                    .map(|(d, c)| (d.as_slice(), c.as_slice()))
                    .collect();
                let (s, e, tpp, rd) = fit::threshold_score(&hp, m.det_threshold, m.read_threshold);
                line += &format!(
                    " | held@ship score {s} exact {e}/{} tp {tpp} reads {rd}",
                    hp.len()
                );
            }
            println!("{line}");
        }
    }
    Ok(())
}
