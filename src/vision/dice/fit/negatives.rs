//! "Not a die" examples from card photos and synthetic cards.

use super::*;

/// Width of the synthetic card as a multiple of the median die size (a real
/// card is 63 mm wide, a d6 16 mm: about 4x; 3-5x covers perspective).
const SYN_CARD_WIDTH: (f32, f32) = (3.0, 5.0);

pub(super) fn disc(img: &mut RgbImage, cx: f32, cy: f32, r: f32, c: image::Rgb<u8>) {
    let (w, h) = (img.width() as i64, img.height() as i64);
    for y in (cy - r).floor() as i64..=(cy + r).ceil() as i64 {
        for x in (cx - r).floor() as i64..=(cx + r).ceil() as i64 {
            if x >= 0 && y >= 0 && x < w && y < h {
                let d = ((x as f32 - cx).powi(2) + (y as f32 - cy).powi(2)).sqrt();
                if d <= r {
                    img.put_pixel(x as u32, y as u32, c);
                }
            }
        }
    }
}

/// Paste a synthetic card (white rectangle, red or black pips in a number-card
/// layout, blobby corner indices) where it overlaps no labelled die, then mine
/// the detector's candidates on it and crops at its corners as negatives.
pub(super) fn card_negatives_synthetic(
    img: &RgbImage,
    dice: &[LabelledDie],
    det: &Mlp,
    rng: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    let mut sizes: Vec<f32> = dice.iter().map(|d| d.size).collect();
    sizes.sort_by(|a, b| a.total_cmp(b));
    let die = sizes.get(sizes.len() / 2).copied().unwrap_or(40.0);
    let cw = die * (SYN_CARD_WIDTH.0 + (SYN_CARD_WIDTH.1 - SYN_CARD_WIDTH.0) * rng.unit());
    let ch = cw * 1.4;
    let (iw, ih) = (img.width() as f32, img.height() as f32);
    if cw + 2.0 >= iw || ch + 2.0 >= ih {
        return;
    }
    let mut spot = None;
    for _ in 0..20 {
        let (x0, y0) = (rng.unit() * (iw - cw), rng.unit() * (ih - ch));
        let clear = dice.iter().all(|d| {
            let m = d.size * 0.6;
            d.center[0] < x0 - m
                || d.center[0] > x0 + cw + m
                || d.center[1] < y0 - m
                || d.center[1] > y0 + ch + m
        });
        if clear {
            spot = Some((x0, y0));
            break;
        }
    }
    let Some((x0, y0)) = spot else { return };
    let mut card = img.clone();
    let paper = 235 + rng.below(20) as u8;
    for y in y0 as u32..(y0 + ch) as u32 {
        for x in x0 as u32..(x0 + cw) as u32 {
            card.put_pixel(
                x,
                y,
                image::Rgb([paper, paper, paper.saturating_sub(rng.below(8) as u8)]),
            );
        }
    }
    let ink = if rng.unit() < 0.5 {
        image::Rgb([200, 30, 40])
    } else {
        image::Rgb([25, 25, 25])
    };
    let n_pips = 2 + rng.below(9);
    let pr = cw * (0.06 + 0.04 * rng.unit());
    for k in 0..n_pips {
        let col = if n_pips <= 3 {
            0.5
        } else if k % 2 == 0 {
            0.3
        } else {
            0.7
        };
        let rowf = 0.2 + 0.6 * (k / 2) as f32 / ((n_pips.div_ceil(2)).max(2) - 1) as f32;
        disc(&mut card, x0 + col * cw, y0 + rowf * ch, pr, ink);
    }
    // Corner indices: a glyph-sized blob pair top-left and bottom-right.
    for (fx, fy) in [(0.12, 0.1), (0.88, 0.9)] {
        disc(&mut card, x0 + fx * cw, y0 + fy * ch, cw * 0.05, ink);
        disc(
            &mut card,
            x0 + fx * cw,
            y0 + (fy + 0.08) * ch * if fy < 0.5 { 1.0 } else { -1.0 } / 1.0,
            cw * 0.04,
            ink,
        );
    }
    let inside = |c: [f32; 2]| {
        c[0] > x0 - 0.3 * die
            && c[0] < x0 + cw + 0.3 * die
            && c[1] > y0 - 0.3 * die
            && c[1] < y0 + ch + 0.3 * die
    };
    let pr_ = prepare(&card);
    for c in find_candidates_reference(&pr_, det, MINE_THRESHOLD, NMS_FACTOR, 1) {
        if inside(c.center) {
            let tr = random_transforms(rng, 4);
            push_crop(
                &card,
                &CropSpec::plain(c.center, c.size, 0),
                &tr,
                rows,
                classes,
            );
        }
    }
    for (fx, fy) in [
        (0.0, 0.0),
        (1.0, 0.0),
        (0.0, 1.0),
        (1.0, 1.0),
        (0.15, 0.12),
        (0.85, 0.88),
    ] {
        let c = [x0 + fx * cw, y0 + fy * ch];
        let sz = die * (0.7 + 0.6 * rng.unit());
        let tr = random_transforms(rng, 2);
        push_crop(&card, &CropSpec::plain(c, sz, 0), &tr, rows, classes);
    }
}

/// Card photos (any image files in `dir` whose name does not start with
/// `single_`, which are kept for the card test) at two scales: every detector
/// candidate is a "not a die" example.
pub(super) fn card_negatives(
    dir: &Path,
    det: &Mlp,
    rng: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) -> Result<usize, VisionError> {
    let mut n = 0;
    for p in photo_paths(dir, "")? {
        let img = load_rgb(&p)?;
        for long_side in CARD_LONG_SIDES {
            let (w, h) = (img.width().max(1), img.height().max(1));
            let k = long_side as f32 / w.max(h) as f32;
            let nw = ((w as f32 * k) as u32).max(1);
            let nh = ((h as f32 * k) as u32).max(1);
            let small =
                image::imageops::resize(&img, nw, nh, image::imageops::FilterType::Triangle);
            let pr = prepare(&small);
            let cands = nms(
                find_candidates_reference(&pr, det, MINE_THRESHOLD, NMS_FACTOR, 1),
                NMS_FACTOR,
            );
            for c in cands {
                let tr = random_transforms(rng, 4);
                push_crop(
                    &small,
                    &CropSpec::plain(c.center, c.size, 0),
                    &tr,
                    rows,
                    classes,
                );
                n += tr.len();
            }
        }
    }
    Ok(n)
}

/// Appends this epoch's draw of [`SAMPLED_CARD_NEG_PER_EPOCH`] rows of the
/// sampled card-photo pool (nothing, and no random numbers, when it is empty).
pub(super) fn push_sampled(
    pool: &[Vec<f32>],
    seed: u64,
    epoch: usize,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    if pool.is_empty() {
        return;
    }
    let mut r = XorShift::new(
        seed.wrapping_mul(1_000_003)
            .wrapping_add(epoch as u64)
            .wrapping_add(SAMPLED_CARD_SEED),
    );
    push_draw(pool, SAMPLED_CARD_NEG_PER_EPOCH, &mut r, rows, classes);
}

/// Appends `take` rows of `pool` (all when it has fewer) drawn without
/// replacement, as "not a die" examples (a partial Fisher-Yates shuffle).
pub(super) fn push_draw(
    pool: &[Vec<f32>],
    take: usize,
    r: &mut XorShift,
    rows: &mut Vec<Vec<f32>>,
    classes: &mut Vec<usize>,
) {
    let mut idx: Vec<usize> = (0..pool.len()).collect();
    for i in 0..take.min(idx.len()) {
        let j = i + r.below(idx.len() - i);
        idx.swap(i, j);
        rows.push(pool[idx[i]].clone());
        classes.push(0);
    }
}

/// Image files in `dir` whose name starts with `prefix` (never `single_*`,
/// kept for the card test), sorted by name.
pub(super) fn photo_paths(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, VisionError> {
    let rd = std::fs::read_dir(dir).map_err(|source| VisionError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut paths: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or_default();
            n.starts_with(prefix)
                && !n.starts_with("single_")
                && (n.ends_with(".jpg") || n.ends_with(".png"))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// Mines "not a die" rows on the sampled card sets: every detector candidate
/// of each photo at its own size (as `scan` sees it), under
/// [`SAMPLED_CARD_TRANSFORMS`] random dihedral transforms.
pub(super) fn sampled_card_negatives(
    sets: &[(PathBuf, String)],
    det: &Mlp,
    seed: u64,
) -> Result<Vec<Vec<f32>>, VisionError> {
    let mut rng = XorShift::new(seed.wrapping_add(SAMPLED_CARD_SEED));
    let (mut rows, mut classes) = (Vec::new(), Vec::new());
    for (dir, prefix) in sets {
        for p in photo_paths(dir, prefix)? {
            let img = load_rgb(&p)?;
            let pr = prepare(&img);
            let cands = nms(
                find_candidates_reference(&pr, det, MINE_THRESHOLD, NMS_FACTOR, 1),
                NMS_FACTOR,
            );
            for c in cands {
                let tr = random_transforms(&mut rng, SAMPLED_CARD_TRANSFORMS);
                push_crop(
                    &img,
                    &CropSpec::plain(c.center, c.size, 0),
                    &tr,
                    &mut rows,
                    &mut classes,
                );
            }
        }
    }
    Ok(rows)
}
