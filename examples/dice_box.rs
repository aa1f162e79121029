//! Box-size refinement, measured (issue 4, round s26): an MLP reads the crop
//! features of a wider crop around a detector candidate and predicts the log
//! ratio of the die's labelled box side to the candidate's; the candidate is
//! then re-cropped at the corrected size and classified. Fitted on the
//! training part, scored on the tune and training parts at the shipped
//! thresholds:
//! `cargo run --release --example dice_box -- SET_DIR MODEL`
//! Env: CTX (context factor of the regressor's crop, default 1.3), EPOCHS,
//! HIDDEN, JITTER (jittered boxes per labelled die), CENTRE=1 (also move the
//! centre by the predicted offset), HELD=1 (also the
//! held-out part; read only after deciding).
//!
//! `REFINE=profile` (round s27) fits nothing: the box is re-measured from the
//! colour-distance-to-background channel of the detector's planes, its column
//! and row sums over a window of `CTX` candidate sides; the run around the
//! centre above `LEVEL` (default 0.5) of the way from the window's lowest to
//! its highest sum gives the new centre (and, with `SIZE=1`, side).
use adjutant::vision::dice::classify::{TTA_EARLY_EXIT, candidate_features, probs_tta};
use adjutant::vision::dice::cpu::Cpu;
use adjutant::vision::dice::crop::estimate_angle;
use adjutant::vision::dice::find::Candidate;
use adjutant::vision::dice::fit::{self, LabelledImage, MinedImage, Part, load_set, mined_part};
use adjutant::vision::dice::mlp::{Mlp, TrainOptions, XorShift};
use adjutant::vision::dice::model::{DiceModel, N_CLASSES};
use adjutant::vision::dice::prep::{DETECT_DOWNSAMPLE, Prepared, prepare};
use std::path::PathBuf;

fn env<T: std::str::FromStr>(k: &str, d: T) -> T {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

/// The labelled die a candidate lies on, as the fitter matches them.
fn matched(it: &LabelledImage, c: &Candidate) -> Option<fit::LabelledDie> {
    match fit::candidate_on(&it.dice, c.center) {
        fit::CandidateOn::Die(d) => Some(*d),
        _ => None,
    }
}

fn features(img: &image::RgbImage, c: &Candidate, ctx: f32, cpu: Cpu) -> Vec<f32> {
    let mut w = *c;
    w.size *= ctx;
    candidate_features(img, &w, cpu)
}

/// Regression targets of candidate `c` on die `d`: the log side ratio and
/// the centre offset in the crop's frame (the crop is turned by the face
/// angle: image offset = R(angle) (u, v)), in candidate sides.
fn targets_of(
    img: &image::RgbImage,
    c: &Candidate,
    d: &fit::LabelledDie,
    ctx: f32,
    cpu: Cpu,
) -> [f32; 3] {
    let a = estimate_angle(img, c.center[0], c.center[1], c.size * ctx, cpu);
    let (sn, cs) = a.sin_cos();
    let (ox, oy) = (
        (d.center[0] - c.center[0]) / c.size,
        (d.center[1] - c.center[1]) / c.size,
    );
    [
        (d.size / c.size).ln(),
        ox * cs + oy * sn,
        -ox * sn + oy * cs,
    ]
}

/// The candidate moved and resized by the regressor's output `o` (the centre
/// only with `CENTRE=1`).
fn refine(img: &image::RgbImage, c: &Candidate, o: &[f32], ctx: f32, cpu: Cpu) -> Candidate {
    let mut c1 = *c;
    c1.size *= o[0].clamp(-0.35, 0.35).exp();
    if std::env::var("CENTRE").is_ok_and(|v| v == "1") {
        let a = estimate_angle(img, c.center[0], c.center[1], c.size * ctx, cpu);
        let (sn, cs) = a.sin_cos();
        let (u, v) = (o[1].clamp(-0.25, 0.25), o[2].clamp(-0.25, 0.25));
        c1.center[0] += (u * cs - v * sn) * c.size;
        c1.center[1] += (u * sn + v * cs) * c.size;
    }
    c1
}

/// The run of `profile` around index `mid` above `level` of the way from its
/// lowest to its highest value, as a half-open index range.
fn run_around(profile: &[f32], mid: usize, level: f32) -> (usize, usize) {
    let lo = profile.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = profile.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let cut = lo + level * (hi - lo);
    let mid = mid.min(profile.len().saturating_sub(1));
    let (mut a, mut b) = (mid, mid + 1);
    while a > 0 && profile[a - 1] >= cut {
        a -= 1;
    }
    while b < profile.len() && profile[b] >= cut {
        b += 1;
    }
    (a, b)
}

/// The candidate re-measured from the colour-distance profiles (see the
/// module docs); unchanged when the window leaves nothing to measure.
fn refine_by_profile(p: &Prepared, c: &Candidate, ctx: f32) -> Candidate {
    let f = DETECT_DOWNSAMPLE as f32;
    let (cx, cy, half) = (c.center[0] / f, c.center[1] / f, c.size * ctx / f / 2.0);
    let (x0, x1) = ((cx - half).floor() as i64, (cx + half).ceil() as i64);
    let (y0, y1) = ((cy - half).floor() as i64, (cy + half).ceil() as i64);
    let (x0, y0) = (x0.max(0), y0.max(0));
    let (x1, y1) = (x1.min(p.w as i64), y1.min(p.h as i64));
    if x1 - x0 < 3 || y1 - y0 < 3 {
        return *c;
    }
    let level: f32 = env("LEVEL", 0.5);
    let cols: Vec<f32> = (x0..x1).map(|x| p.box_mean(0, x, y0, x + 1, y1)).collect();
    let rows: Vec<f32> = (y0..y1).map(|y| p.box_mean(0, x0, y, x1, y + 1)).collect();
    let (ax, bx) = run_around(&cols, (cx as i64 - x0) as usize, level);
    let (ay, by) = run_around(&rows, (cy as i64 - y0) as usize, level);
    let mut c1 = *c;
    c1.center = [
        (x0 as f32 + (ax + bx) as f32 / 2.0) * f,
        (y0 as f32 + (ay + by) as f32 / 2.0) * f,
    ];
    if std::env::var("SIZE").is_ok_and(|v| v == "1") {
        let side = ((bx - ax) + (by - ay)) as f32 / 2.0 * f;
        c1.size = side.clamp(c.size * 0.7, c.size * 1.4);
    }
    // A centre that runs off with a neighbour is not trusted.
    let moved =
        ((c1.center[0] - c.center[0]).powi(2) + (c1.center[1] - c.center[1]).powi(2)).sqrt();
    if moved > 0.3 * c.size {
        return *c;
    }
    c1
}

type Scored = (Vec<fit::LabelledDie>, Vec<(Candidate, [f32; N_CLASSES])>);

/// Score a part: every candidate classified at its own size, and at the
/// refined size; also the median |log size ratio| of matched candidates.
fn score(
    mined: &[MinedImage<'_>],
    m: &DiceModel,
    refine_with: &dyn Fn(&image::RgbImage, &Prepared, &Candidate) -> Candidate,
) -> (Vec<Scored>, Vec<Scored>, f32, f32, f32, f32) {
    let cpu = Cpu::detect();
    let (mut base, mut refined) = (Vec::new(), Vec::new());
    let (mut e0, mut e1) = (Vec::new(), Vec::new());
    let (mut d0, mut d1) = (Vec::new(), Vec::new());
    for (img, it, cands) in mined {
        let p = prepare(img);
        let (mut b, mut r) = (Vec::new(), Vec::new());
        for c in cands {
            let p0 = probs_tta(
                &m.classifier,
                &candidate_features(img, c, cpu),
                TTA_EARLY_EXIT,
            )
            .0;
            let c1 = refine_with(img, &p, c);
            let p1 = probs_tta(
                &m.classifier,
                &candidate_features(img, &c1, cpu),
                TTA_EARLY_EXIT,
            )
            .0;
            if let Some(d) = matched(it, c) {
                e0.push((d.size / c.size).ln().abs());
                e1.push((d.size / c1.size).ln().abs());
                let off = |q: &Candidate| {
                    ((d.center[0] - q.center[0]).powi(2) + (d.center[1] - q.center[1]).powi(2))
                        .sqrt()
                        / d.size
                };
                d0.push(off(c));
                d1.push(off(&c1));
            }
            b.push((*c, p0));
            r.push((*c, p1));
        }
        base.push((it.dice.clone(), b));
        refined.push((it.dice.clone(), r));
    }
    let med = |v: &mut Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    (
        base,
        refined,
        med(&mut e0),
        med(&mut e1),
        med(&mut d0),
        med(&mut d1),
    )
}

fn line(name: &str, s: &[Scored], m: &DiceModel) -> String {
    let pairs: Vec<_> = s
        .iter()
        .map(|(d, c)| (d.as_slice(), c.as_slice()))
        .collect();
    let (score, exact, tp, reads) = fit::threshold_score(&pairs, m.det_threshold, m.read_threshold);
    let best = fit::choose_thresholds(&pairs);
    format!(
        "{name}: score {score}, exact {exact}/{}, tp {tp}, reads {reads} (best {} at det {} read {})",
        pairs.len(),
        best.0,
        best.2,
        best.3
    )
}

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let usage = || anyhow::anyhow!("usage: dice_box SET_DIR MODEL");
    let items = load_set(&PathBuf::from(a.get(1).ok_or_else(usage)?))?;
    let m = DiceModel::from_bytes(&std::fs::read(a.get(2).ok_or_else(usage)?)?)?;
    let ctx: f32 = env("CTX", 1.3);
    let cpu = Cpu::detect();
    let mut parts = vec![("tune", Part::Tune), ("train", Part::Train)];
    if std::env::var("HELD").is_ok_and(|v| v == "1") {
        parts.push(("held", Part::HeldOut));
    }
    if std::env::var("REFINE").is_ok_and(|v| v == "profile") {
        for (name, part) in parts {
            let mined = mined_part(&items, &m, part)?;
            let by_profile =
                |_: &image::RgbImage, p: &Prepared, c: &Candidate| refine_by_profile(p, c, ctx);
            report(name, &score(&mined, &m, &by_profile), &m);
        }
        return Ok(());
    }
    let mut rng = XorShift::new(env("SEED", 5u64));
    let train = mined_part(&items, &m, Part::Train)?;
    let (mut rows, mut targets) = (Vec::new(), Vec::new());
    for (img, it, cands) in &train {
        for c in cands {
            if let Some(d) = matched(it, c) {
                rows.push(features(img, c, ctx, cpu));
                targets.push(targets_of(img, c, &d, ctx, cpu));
            }
        }
        for d in &it.dice {
            for _ in 0..env("JITTER", 6usize) {
                let c = Candidate {
                    center: [
                        d.center[0] + (rng.unit() - 0.5) * 0.2 * d.size,
                        d.center[1] + (rng.unit() - 0.5) * 0.2 * d.size,
                    ],
                    size: d.size * (0.75 + 0.55 * rng.unit()),
                    score: 1.0,
                };
                rows.push(features(img, &c, ctx, cpu));
                targets.push(targets_of(img, &c, d, ctx, cpu));
            }
        }
    }
    println!("{} regression samples", rows.len());
    let mut reg = Mlp::new(rows[0].len(), env("HIDDEN", 32usize), 3, &mut rng);
    reg.set_standardisation(&rows);
    let topts = TrainOptions {
        epochs: env("EPOCHS", 30usize),
        batch: 32,
        lr: 0.01,
        momentum: 0.9,
        weight_decay: 1e-4,
        seed: 3,
        verbose: false,
        clip_gradients: false,
    };
    let loss = reg.train(&rows, &topts, |i, o, d| {
        let mut loss = 0.0;
        for k in 0..3 {
            let e = o[k] - targets[i][k];
            d[k] = e;
            loss += 0.5 * e * e;
        }
        loss
    });
    println!("regressor loss {loss:.5}");
    for (name, part) in parts {
        let mined = mined_part(&items, &m, part)?;
        let by_mlp = |img: &image::RgbImage, _: &Prepared, c: &Candidate| {
            refine(img, c, &reg.forward(&features(img, c, ctx, cpu)), ctx, cpu)
        };
        report(name, &score(&mined, &m, &by_mlp), &m);
    }
    Ok(())
}

fn report(
    name: &str,
    (b, r, e0, e1, d0, d1): &(Vec<Scored>, Vec<Scored>, f32, f32, f32, f32),
    m: &DiceModel,
) {
    println!(
        "{name}: median |log size error| {e0:.3} -> {e1:.3}, median centre error {d0:.3} -> {d1:.3} sides"
    );
    println!("  {}", line("base", b, m));
    println!("  {}", line("refined", r, m));
}
