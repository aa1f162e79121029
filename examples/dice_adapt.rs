//! Teaching the reader a player's dice, measured (issue 4, round s26): the
//! first half of each held-out block of a dice set plays the frames a player
//! confirmed, the second half the game after it. Scores the model before and
//! after `adapt` on the second halves, and on the tune part (forgetting):
//! `cargo run --release --example dice_adapt -- SET_DIR MODEL [OUT]`
//! Env: EPOCHS, JIT (jittered crops per taught die), LR, REPLAY (0 = none),
//! SEED, SPLIT=alt (every other frame of a block teaches instead of its
//! first half), MODE=tuneAB (tune half A teaches, half B tests: no held-out
//! frame is read) or MODE=final (the whole tune part teaches; write OUT and
//! score it with `adjutant eval --held-out`) or MODE=train (the training
//! part teaches, the tune part tests: a classifier brought to a refitted
//! detector's boxes).
use adjutant::vision::dice::DiceReader;
use adjutant::vision::dice::adapt::{AdaptOptions, TaughtFrame, adapt};
use adjutant::vision::dice::fit::{
    Evaluation, LabelledImage, Part, in_tune_half_a, load_rgb, load_set, part_of,
};
use adjutant::vision::dice::model::DiceModel;
use std::path::PathBuf;

fn env<T: std::str::FromStr>(k: &str, d: T) -> T {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

fn frames(items: &[LabelledImage], idx: &[usize]) -> anyhow::Result<Vec<TaughtFrame>> {
    idx.iter()
        .map(|&i| {
            Ok(TaughtFrame {
                image: load_rgb(&items[i].path)?,
                dice: items[i].dice.clone(),
            })
        })
        .collect()
}

fn score(m: &DiceModel, fs: &[TaughtFrame]) -> Evaluation {
    let reader = DiceReader::from_model(m.clone());
    let mut e = Evaluation::default();
    for f in fs {
        e.add(&f.dice, &reader.read_rgb(&f.image));
    }
    e
}

/// Held-out blocks (runs of consecutive indices) split into taught and
/// tested frames: the first half of each block teaches, or with `SPLIT=alt`
/// every other frame (the same dice on both sides).
fn held_split(held: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    for &i in held {
        match blocks.last_mut() {
            Some(b) if b.last() == Some(&(i - 1)) => b.push(i),
            _ => blocks.push(vec![i]),
        }
    }
    let (mut teach, mut test) = (Vec::new(), Vec::new());
    let alternate = std::env::var("SPLIT").is_ok_and(|v| v == "alt");
    for b in &blocks {
        if alternate {
            teach.extend(b.iter().step_by(2));
            test.extend(b.iter().skip(1).step_by(2));
        } else {
            let h = b.len().div_ceil(2);
            teach.extend_from_slice(&b[..h]);
            test.extend_from_slice(&b[h..]);
        }
    }
    (teach, test)
}

fn main() -> anyhow::Result<()> {
    let a: Vec<String> = std::env::args().collect();
    let usage = || anyhow::anyhow!("usage: dice_adapt SET_DIR MODEL [OUT]");
    let items = load_set(&PathBuf::from(a.get(1).ok_or_else(usage)?))?;
    let model = DiceModel::from_bytes(&std::fs::read(a.get(2).ok_or_else(usage)?)?)?;
    let of = |p: Part| -> Vec<usize> { (0..items.len()).filter(|i| part_of(*i) == p).collect() };
    let mode = std::env::var("MODE").unwrap_or_else(|_| "held".into());
    let (teach_idx, test_idx) = match mode.as_str() {
        // Teach tune half A, test on the later half B: no held-out frame read.
        "tuneAB" => (
            (0..items.len())
                .filter(|i| in_tune_half_a(*i) == Some(true))
                .collect(),
            (0..items.len())
                .filter(|i| in_tune_half_a(*i) == Some(false))
                .collect(),
        ),
        // Teach the whole tune part (a fit on train + tune); nothing tested
        // here: score the written model with `adjutant eval --held-out`.
        "final" => (of(Part::Tune), Vec::new()),
        // Teach the training part again (a classifier adapted to another
        // detector's boxes, round s30); test on the tune part.
        "train" => (of(Part::Train), of(Part::Tune)),
        _ => held_split(&of(Part::HeldOut)),
    };
    let teach = frames(&items, &teach_idx)?;
    let test = frames(&items, &test_idx)?;
    let tune = if mode == "held" {
        frames(&items, &of(Part::Tune))?
    } else {
        Vec::new()
    };
    let replay = if env("REPLAY", 2000usize) > 0 {
        frames(&items, &of(Part::Train))?
    } else {
        Vec::new()
    };
    let opts = AdaptOptions {
        epochs: env("EPOCHS", AdaptOptions::default().epochs),
        jittered_per_die: env("JIT", AdaptOptions::default().jittered_per_die),
        lr: env("LR", AdaptOptions::default().lr),
        replay_per_epoch: env("REPLAY", AdaptOptions::default().replay_per_epoch),
        seed: env("SEED", 1u64),
        verbose: true,
    };
    println!(
        "teach {} frames ({} dice), test {} frames ({} dice); {opts:?}",
        teach.len(),
        teach.iter().map(|f| f.dice.len()).sum::<usize>(),
        test.len(),
        test.iter().map(|f| f.dice.len()).sum::<usize>()
    );
    println!("before, taught frames: {}", score(&model, &teach).summary());
    println!("before, test frames: {}", score(&model, &test).summary());
    if !tune.is_empty() {
        println!("before, tune part: {}", score(&model, &tune).summary());
    }
    let t = std::time::Instant::now();
    let adapted = adapt(&model, &teach, &replay, &opts);
    println!("adapt took {:.1} s", t.elapsed().as_secs_f64());
    println!(
        "after, taught frames: {}",
        score(&adapted, &teach).summary()
    );
    println!("after, test frames: {}", score(&adapted, &test).summary());
    if !tune.is_empty() {
        println!("after, tune part: {}", score(&adapted, &tune).summary());
    }
    if let Some(out) = a.get(3) {
        std::fs::write(out, adapted.to_bytes())?;
    }
    Ok(())
}
