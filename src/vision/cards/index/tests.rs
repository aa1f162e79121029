//! Unit tests of corner-index reading (patches, glyph splitting, features).

use super::*;

#[test]
fn normalise_gives_unit_norm() {
    let mut v = vec![1.0, 2.0, 3.0, 4.0];
    normalise(&mut v);
    let n: f32 = v.iter().map(|x| x * x).sum();
    assert!((n - 1.0).abs() < 1e-5);
}

#[test]
fn paper_level_is_the_sorted_85th_percentile() {
    assert_eq!(paper_level(&mut []), None);
    let mut seed = 7u32;
    for n in [1usize, 2, 7, 100, 1001] {
        let v: Vec<f32> = (0..n)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (seed >> 16) as f32 / 300.0
            })
            .collect();
        let mut sorted = v.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let mut sel = v;
        assert_eq!(paper_level(&mut sel), Some(sorted[n * 85 / 100]), "n {n}");
    }
}

/// The former flood-fill labelling: the reference for [`components`].
fn components_flood(ink: &[bool], w: usize, h: usize) -> (Vec<usize>, Vec<Part>) {
    let mut labels = vec![usize::MAX; w * h];
    let mut parts = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if !ink[start] || labels[start] != usize::MAX {
            continue;
        }
        let id = parts.len();
        let mut p = Part::EMPTY;
        labels[start] = id;
        stack.push(start);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            p.add(x, y, w, h);
            for dy in -1i64..=1 {
                for dx in -1i64..=1 {
                    let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                    if nx < 0 || ny < 0 || nx >= w as i64 || ny >= h as i64 {
                        continue;
                    }
                    let j = ny as usize * w + nx as usize;
                    if ink[j] && labels[j] == usize::MAX {
                        labels[j] = id;
                        stack.push(j);
                    }
                }
            }
        }
        parts.push(p);
    }
    (labels, parts)
}

#[test]
fn components_match_flood_fill() {
    // Random masks of several densities (at 50-65% many components join
    // late in the raster scan).
    let mut seed = 12345u32;
    for (w, h) in [
        (1, 1),
        (1, 9),
        (9, 1),
        (2, 2),
        (3, 50),
        (31, 60),
        (17, 23),
        (64, 64),
    ] {
        for density in [0u32, 10, 35, 50, 58, 65, 90, 100] {
            let ink: Vec<bool> = (0..w * h)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (seed >> 16) % 100 < density
                })
                .collect();
            let (l1, p1) = components(&ink, w, h);
            let (l2, p2) = components_flood(&ink, w, h);
            assert_eq!(l1, l2, "{w}x{h} at {density}%");
            assert_eq!(format!("{p1:?}"), format!("{p2:?}"));
        }
    }
}

#[test]
fn components_counts_blobs() {
    let w = 5;
    let ink = vec![
        false, false, false, false, false, //
        false, true, false, true, false, //
        false, true, false, true, false, //
        false, false, false, false, false,
    ];
    let (_, parts) = components(&ink, w, 4);
    assert_eq!(parts.len(), 2);
    assert!(parts.iter().all(|p| !p.touches && p.area == 2));
}

#[test]
fn patch_points_match_frame_at() {
    let img = RgbImage::from_fn(300, 260, |x, y| {
        let v = (x * 7 + y * 13) % 251;
        image::Rgb([
            200 + (v % 50) as u8,
            190 + (v % 60) as u8,
            180 + (v % 70) as u8,
        ])
    });
    // A turned frame inside the image, and one crossing its edge.
    for origin in [[60.3, 40.7], [-10.0, 200.0]] {
        let (s, c) = (0.3f32.sin(), 0.3f32.cos());
        let f = CornerFrame {
            origin,
            r: [c, s],
            d: [-s, c],
            width: 180.0,
        };
        let patch = sample_patch(&img, &f).expect("paper patch");
        for y in 0..patch.ph {
            for x in 0..patch.pw {
                let p = f.at(
                    (x as f32 + 0.5) / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
                    (y as f32 + 0.5) / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
                );
                let want = sample_rgb(&img, p[0], p[1]);
                assert_eq!(patch.rgb[y * patch.pw + x], want, "{x} {y}");
                assert_eq!(
                    patch.lum[y * patch.pw + x],
                    want[0].min(want[1]).min(want[2])
                );
            }
        }
    }
}

/// A patch whose pre-check grid is two thirds ink is refused at the
/// default share and sampled when a looser share is asked for.
#[test]
fn ink_share_check_is_a_parameter() {
    // The patch spans x 10..36; its grid columns lie at x ~12, 16, 21,
    // 25, 29, 34: the first four on ink.
    let img = RgbImage::from_fn(200, 200, |x, _| {
        if x < 27 {
            image::Rgb([30, 30, 30])
        } else {
            image::Rgb([230, 230, 230])
        }
    });
    let f = CornerFrame {
        origin: [10.0, 10.0],
        r: [1.0, 0.0],
        d: [0.0, 1.0],
        width: 100.0,
    };
    assert!(sample_patch(&img, &f).is_none());
    assert!(sample_patch_with(&img, &f, 0.8).is_some_and(|p| p.crowded()));
}

/// A 31 x 60 patch: a ring "rank" glyph, a diamond pip below it joined by
/// a neck (rows `neck.0..neck.0 + neck.1`, from column `neck.2`) to a
/// large blob reaching the right border (a centre pip of a small blurred
/// card).
fn joined_pip_patch(neck: (usize, usize, usize)) -> Patch {
    let (pw, ph) = (31, 60);
    let ink = |x: usize, y: usize| {
        let ring = (5..19).contains(&y)
            && (5..13).contains(&x)
            && !((7..17).contains(&y) && (7..11).contains(&x));
        // A diamond 10 px across (a flat square would give a flat feature).
        let pip = (x as f32 - 8.5).abs() + (y as f32 - 28.5).abs() <= 5.0;
        let neck = (neck.0..neck.0 + neck.1).contains(&y) && (neck.2..20).contains(&x);
        let blob = (20..41).contains(&y) && x >= 20;
        ring || pip || neck || blob
    };
    let lum: Vec<f32> = (0..pw * ph)
        .map(|i| if ink(i % pw, i / pw) { 40.0 } else { 220.0 })
        .collect();
    Patch {
        pw,
        ph,
        rgb: lum.iter().map(|&v| [v, v, v]).collect(),
        lum,
        paper: 220.0,
        crowded: false,
    }
}

/// The pip joined to a border-touching blob is no pip; the split finds
/// it when the neck is thinner than its square, and not when the two
/// are joined along the pip's whole height.
#[test]
fn pip_split_off_a_joined_centre_pip() {
    let (lo, hi) = (MIN_RANK_HEIGHT, MAX_RANK_HEIGHT);
    let thin = joined_pip_patch((27, 3, 14));
    let plain = thin.read(lo, hi, &[INK_LEVEL]).expect("rank glyph");
    assert!(plain.suit.is_none());
    let split = thin
        .read_split(lo, hi, &[INK_LEVEL], 2)
        .expect("rank glyph");
    assert_eq!(split.rank, plain.rank);
    assert!(split.suit.is_some());
    // The pip alone gives about the same pip feature as the piece split
    // off (which keeps part of the neck).
    let alone = joined_pip_patch((27, 0, 14));
    let want = alone.read(lo, hi, &[INK_LEVEL]).and_then(|f| f.suit);
    let got = split.suit.unwrap_or_default();
    let d = 1.0
        - want
            .unwrap_or_default()
            .iter()
            .zip(&got)
            .map(|(a, b)| a * b)
            .sum::<f32>();
    assert!(d < 0.5, "cosine distance {d}");
    let thick = joined_pip_patch((24, 10, 10));
    assert!(
        thick
            .read_split(lo, hi, &[INK_LEVEL], 2)
            .is_some_and(|f| f.suit.is_none())
    );
}

/// Two squares joined by a neck split into two pieces at a radius whose
/// square does not fit the neck, each keeping its whole outline.
#[test]
fn necks_split_pieces_keep_their_outline() {
    let (w, h) = (24, 9);
    // Squares 9 x 9 at x 0..9 and 15..24, a neck 3 px tall at x 9..15.
    let mask: Vec<bool> = (0..w * h)
        .map(|i| {
            let (x, y) = (i % w, i / w);
            !(9..15).contains(&x) || (3..6).contains(&y)
        })
        .collect();
    let pieces = split_at_necks(&mask, w, h, 2);
    assert!(pieces.iter().zip(&mask).all(|(&c, &m)| (c != 0) == m));
    assert!((0..h).all(|y| pieces[y * w] == 1 && pieces[y * w + w - 1] == 2));
    let left = pieces.iter().filter(|&&c| c == 1).count();
    assert_eq!(left, 81 + 9, "a square and half the neck");
    // A 3 x 3 square fits the 3 px neck: one piece.
    let pieces = split_at_necks(&mask, w, h, 1);
    assert!(pieces.iter().zip(&mask).all(|(&c, &m)| c == u32::from(m)));
    assert!(split_at_necks(&[], 0, 0, 2).is_empty());
}

#[test]
fn blank_patch_reads_nothing() {
    let img = RgbImage::from_pixel(200, 200, image::Rgb([230, 230, 230]));
    let f = CornerFrame {
        origin: [10.0, 10.0],
        r: [1.0, 0.0],
        d: [0.0, 1.0],
        width: 100.0,
    };
    assert!(read_corner(&img, &f).is_none());
}
