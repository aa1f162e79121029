//! Diagnostics of the card reader: `cargo run --release --example card_diag --
//! MODEL IMAGE...` prints the best 40 (`DIAG_MAX=N`: N) index-first hypotheses
//! (glyph pairs) and, for every card-shaped outline and each index corner,
//! whether a patch was sampled, the glyph features found at each ink level and
//! the nearest rank and suit samples (label, cosine distance, distance of the
//! next label).
//! `DIAG_IDX_ONLY=1` skips the outlines; `DIAG_AT=X,Y,R` lists the ink blobs
//! whose centre lies within R px (per axis) of (X, Y); `DIAG_SPLIT=N` reads
//! the hypotheses with the pip split of radius N (`index::Patch::read_split`).

use adjutant::vision::cards::classify::{classify_corner, dot};
use adjutant::vision::cards::model::Sample;
use adjutant::vision::cards::{CardModel, debug_candidates, find, glyphs, index};

fn nearest(samples: &[Sample], feat: &[f32]) -> String {
    let mut per: Vec<(u8, f32)> = Vec::new();
    for s in samples.iter().filter(|s| s.feat.len() == feat.len()) {
        let d = 1.0 - dot(&s.feat, feat);
        match per.iter_mut().find(|(l, _)| *l == s.label) {
            Some(e) => e.1 = e.1.min(d),
            None => per.push((s.label, d)),
        }
    }
    per.sort_by(|a, b| a.1.total_cmp(&b.1));
    per.iter()
        .take(3)
        .map(|(l, d)| format!("{}:{d:.3}", *l as char))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One index read: rank glyph size and place, contrast, redness, the
/// nearest rank and suit samples and the classifier's decision.
fn describe(model: &CardModel, x: &index::IndexFeatures) -> String {
    format!(
        "h {:.3} at ({:.3},{:.3}) contrast {:.2} red {:.0} rank [{}] suit [{}] -> {:?}",
        x.rank_height,
        x.rank_centre[0],
        x.rank_centre[1],
        x.contrast,
        x.redness,
        nearest(&model.rank, &x.rank),
        x.suit
            .as_ref()
            .map(|s| nearest(&model.suit, s))
            .unwrap_or_default(),
        classify_corner(model, x).map(|r| (r.code, r.confidence)),
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (model_path, images) = args
        .split_first()
        .ok_or("usage: card_diag MODEL IMAGE...")?;
    let model = CardModel::from_bytes(&std::fs::read(model_path)?)?;
    for path in images {
        let rgb = image::open(path)?.to_rgb8();
        let blobs = glyphs::ink_blobs(&rgb, &[]);
        let hyps = glyphs::index_hypotheses(
            &blobs,
            std::env::var("DIAG_MAX")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(40),
        );
        println!("{path}: {} blobs, {} hyps", blobs.len(), hyps.len());
        if let Ok(at) = std::env::var("DIAG_AT") {
            let v: Vec<f32> = at.split(',').filter_map(|x| x.parse().ok()).collect();
            if let [x, y, r] = v[..] {
                for b in blobs
                    .iter()
                    .filter(|b| (b.c[0] - x).abs() < r && (b.c[1] - y).abs() < r)
                {
                    println!("  blob {b:?}");
                }
            }
        }
        let split: usize = std::env::var("DIAG_SPLIT")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        for h in &hyps {
            let f = h.frame;
            let desc = index::sample_patch(&rgb, &f).map(|p| {
                [index::INK_LEVEL, index::INK_LEVEL_STRICT, 0.78]
                    .iter()
                    .map(|&l| {
                        match p.read_split(
                            index::MIN_RANK_HEIGHT,
                            index::MAX_RANK_HEIGHT,
                            &[l],
                            split,
                        ) {
                            None => format!("[{l}: none]"),
                            Some(x) => format!("[{l}: {}]", describe(&model, &x)),
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            });
            println!(
                "  hyp glyph ({:.0},{:.0}) w {:.0} score {:.2} size {:.2} dist {:.2}: {}",
                h.glyph[0],
                h.glyph[1],
                f.width,
                h.score,
                h.size_ratio,
                h.dist_ratio,
                desc.unwrap_or_else(|| "no patch".into())
            );
        }
        if std::env::var("DIAG_IDX_ONLY").is_ok() {
            continue;
        }
        let (singles, merged, _) = debug_candidates(&rgb);
        println!(
            "{path}: {} outlines, {} merged blobs",
            singles.len(),
            merged.len()
        );
        for (k, corners) in merged.iter().enumerate() {
            for c in corners {
                println!(
                    "  merged {k} corner ({:.0},{:.0}) axis ({:.2},{:.2})",
                    c.origin[0], c.origin[1], c.r[0], c.r[1]
                );
                if std::env::var("DIAG_MERGED").is_err() {
                    continue;
                }
                let short = rgb.width().min(rgb.height()) as f32;
                for g in adjutant::vision::cards::WIDTH_GUESSES {
                    let f = find::CornerFrame {
                        width: g * short,
                        ..*c
                    };
                    let Some(p) = index::sample_patch(&rgb, &f) else {
                        println!("    w {:.0}: no patch", f.width);
                        continue;
                    };
                    for level in [index::INK_LEVEL, index::INK_LEVEL_STRICT, 0.78, 0.84, 0.9] {
                        if let Some(x) = p.read(0.045, 0.22, &[level]) {
                            println!("    w {:.0} ink {level}: {}", f.width, describe(&model, &x));
                        }
                    }
                }
            }
        }
        for q in &singles {
            let c = q.centre();
            println!(
                "  outline at ({:.0},{:.0}) sides {:.0} {:.0}",
                c[0],
                c[1],
                q.side(0),
                q.side(1)
            );
            for f in find::quad_frames(q, true) {
                let Some(p) = index::sample_patch(&rgb, &f) else {
                    println!(
                        "    corner ({:.0},{:.0}) w {:.0}: no patch",
                        f.origin[0], f.origin[1], f.width
                    );
                    continue;
                };
                for level in [index::INK_LEVEL, index::INK_LEVEL_STRICT, 0.78] {
                    match p.read(index::MIN_RANK_HEIGHT, index::MAX_RANK_HEIGHT, &[level]) {
                        None => println!(
                            "    corner ({:.0},{:.0}) w {:.0} ink {level}: no glyphs",
                            f.origin[0], f.origin[1], f.width
                        ),
                        Some(x) => println!(
                            "    corner ({:.0},{:.0}) w {:.0} ink {level}: {}",
                            f.origin[0],
                            f.origin[1],
                            f.width,
                            describe(&model, &x)
                        ),
                    }
                }
            }
        }
    }
    Ok(())
}
