//! Unit tests of the frame preparation helpers (sampling, masks, thresholds).

use super::*;

#[test]
fn inside_sampling_matches_clamped() {
    let img = RgbImage::from_fn(9, 7, |x, y| {
        image::Rgb([
            (x * 29 + y * 7) as u8,
            (x * 3 + y * 41) as u8,
            (x * y * 5) as u8,
        ])
    });
    assert!(!inside_for_bilinear(&img, &[[0.5, 3.0]]));
    assert!(!inside_for_bilinear(&img, &[[6.5, 3.0]]));
    assert!(inside_for_bilinear(&img, &[[1.0, 1.0], [5.9, 3.9]]));
    for (x, y) in [(1.0, 1.0), (2.37, 3.81), (5.99, 3.5), (4.5, 1.01)] {
        assert_eq!(sample_rgb_inside(&img, x, y), sample_rgb(&img, x, y));
    }
}

/// One step of the linear congruential generator the tests draw their
/// random images and masks from (seeded, so every run is the same).
fn lcg_step(seed: u32) -> u32 {
    seed.wrapping_mul(1_103_515_245).wrapping_add(12345)
}

/// `n` random bytes from `seed` (advanced).
fn random_bytes(seed: &mut u32, n: usize) -> Vec<u8> {
    (0..n)
        .map(|_| {
            *seed = lcg_step(*seed);
            (*seed >> 16) as u8
        })
        .collect()
}

#[test]
fn inside_sampling_sse2_matches_scalar() {
    let mut seed = 99u32;
    let img = RgbImage::from_fn(37, 23, |_, _| {
        seed = lcg_step(seed);
        let v = seed >> 8;
        image::Rgb([v as u8, (v >> 8) as u8, (v >> 16) as u8])
    });
    // Positions over the whole inside range, including its last column
    // and row, with fractions of every size.
    for j in 0..=200 {
        for i in 0..=300 {
            let x = 1.0 + 33.0 * i as f32 / 300.0;
            let y = 1.0 + 19.0 * j as f32 / 200.0;
            let s = sample_rgb_inside(&img, x, y);
            let r = sample_rgb_inside_scalar(&img, x, y);
            assert_eq!(s.map(f32::to_bits), r.map(f32::to_bits), "{x} {y}");
        }
    }
}

/// Rows of points (rotated frames, every fraction, up to the frame's
/// last inside column and row, where the AVX2 gathers must stop and the
/// per-point path take over) sample bit for bit as one call per point.
#[test]
fn row_sampling_matches_per_point() {
    let mut seed = 7u32;
    let (w, h) = (41u32, 29u32);
    let img =
        RgbImage::from_raw(w, h, random_bytes(&mut seed, (w * h * 3) as usize)).expect("image");
    let mut long_rows = 0;
    for (angle, width) in [(0.0f32, 30.0f32), (0.3, 25.0), (-1.1, 33.0), (2.5, 19.0)] {
        let (r, d) = ([angle.cos(), angle.sin()], [-angle.sin(), angle.cos()]);
        let n = 37;
        let ux: Vec<f32> = (0..n).map(|k| (k as f32 + 0.5) / 40.0 * r[0]).collect();
        let uy: Vec<f32> = (0..n).map(|k| (k as f32 + 0.5) / 40.0 * r[1]).collect();
        for row in 0..40 {
            let v = (row as f32 + 0.5) / 40.0;
            let vd = [v * d[0], v * d[1]];
            let origin = [20.0 - width * 0.4, 14.0 - width * 0.3];
            let inside: Vec<bool> = (0..n)
                .map(|k| {
                    let p = [
                        origin[0] + width * (ux[k] + vd[0]),
                        origin[1] + width * (uy[k] + vd[1]),
                    ];
                    inside_for_bilinear(&img, &[p])
                })
                .collect();
            // Only the run of inside points from the first on.
            let Some(first) = inside.iter().position(|&i| i) else {
                continue;
            };
            let len = inside[first..].iter().take_while(|&&i| i).count();
            long_rows += usize::from(len >= 16);
            let (ux, uy) = (&ux[first..first + len], &uy[first..first + len]);
            let mut got = Vec::new();
            let points = SampleRow {
                origin,
                width,
                ux,
                uy,
                v: vd,
            };
            sample_row_inside(&img, &points, &mut got);
            let want: Vec<[f32; 3]> = (0..len)
                .map(|k| {
                    let x = origin[0] + width * (ux[k] + vd[0]);
                    let y = origin[1] + width * (uy[k] + vd[1]);
                    sample_rgb_inside_scalar(&img, x, y)
                })
                .collect();
            let bits = |v: &[[f32; 3]]| v.iter().map(|c| c.map(f32::to_bits)).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "angle {angle} row {row}");
        }
    }
    assert!(long_rows >= 40, "{long_rows} rows of 16 or more points");
    // The last inside pixel of the frame: its lower right neighbour is
    // the frame's last pixel, whose gather would read past the end.
    let last = [(w - 2) as f32 + 0.5, (h - 2) as f32 + 0.5];
    let ux = vec![0.0f32; 8];
    let mut got = Vec::new();
    let row = SampleRow {
        origin: last,
        width: 1.0,
        ux: &ux,
        uy: &ux,
        v: [0.0, 0.0],
    };
    sample_row_inside(&img, &row, &mut got);
    let want = sample_rgb_inside_scalar(&img, last[0], last[1]);
    assert_eq!(got.len(), 8);
    assert!(
        got.iter()
            .all(|c| c.map(f32::to_bits) == want.map(f32::to_bits))
    );
}

#[test]
fn paper_score_prefers_white() {
    assert!(paper_score(240, 240, 235) > 200);
    assert!(paper_score(200, 160, 120) < 100);
    assert_eq!(paper_score(20, 20, 20), 20);
}

#[test]
fn otsu_splits_two_modes() {
    let mut h = [0u32; 256];
    h[30] = 100;
    h[220] = 50;
    let t = otsu(&h);
    assert!((30..220).contains(&t));
}

/// The former morphology on `bool` masks (one pass per window offset):
/// the reference for [`morph_into`].
fn morph_reference(src: &[bool], w: usize, h: usize, r: usize, dilate: bool) -> Vec<bool> {
    let op = |a: bool, b: bool| if dilate { a | b } else { a & b };
    let mut tmp = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut v = !dilate;
            for xx in x as i64 - r as i64..=(x + r) as i64 {
                let inside = xx >= 0 && (xx as usize) < w;
                v = op(v, inside && src[y * w + xx as usize]);
            }
            tmp[y * w + x] = v;
        }
    }
    let mut out = vec![false; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut v = !dilate;
            for yy in y as i64 - r as i64..=(y + r) as i64 {
                let inside = yy >= 0 && (yy as usize) < h;
                v = op(v, inside && tmp[yy as usize * w + x]);
            }
            out[y * w + x] = v;
        }
    }
    out
}

/// The AVX2 build of [`morph_into`] against the portable one, bit for
/// bit, and the blocked cleaning on masks too wide for the reference.
#[cfg(target_arch = "x86_64")]
#[test]
fn morph_avx2_matches_portable() {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return;
    }
    let mut seed = 17u32;
    for (w, h) in [(640, 360), (95, 40), (31, 3)] {
        let m: Vec<u8> = (0..w * h)
            .map(|_| {
                seed = lcg_step(seed);
                u8::from((seed >> 16) % 100 < 60)
            })
            .collect();
        for r in [1, 2, 4] {
            for dilate in [false, true] {
                let (mut t0, mut o0) = (vec![0u8; w * h], vec![0u8; w * h]);
                let (mut t1, mut o1) = (vec![0u8; w * h], vec![0u8; w * h]);
                if dilate {
                    morph_impl::<true>(&m, w, h, r, &mut t0, &mut o0);
                } else {
                    morph_impl::<false>(&m, w, h, r, &mut t0, &mut o0);
                }
                // SAFETY: the CPU has AVX2 (checked above).
                unsafe { morph_avx2(&m, w, h, r, dilate, &mut t1, &mut o1) };
                assert_eq!(o1, o0, "{w}x{h} r {r} {dilate}");
            }
        }
    }
}

/// [`morph_into`] on 0 / 1 bytes into fresh buffers.
fn morph(src: &[bool], w: usize, h: usize, r: usize, dilate: bool) -> Vec<bool> {
    let m: Vec<u8> = src.iter().map(|&b| u8::from(b)).collect();
    let (mut tmp, mut out) = (vec![7u8; w * h], vec![7u8; w * h]);
    morph_into(&m, w, h, r, dilate, &mut tmp, &mut out);
    out.iter().map(|&v| v != 0).collect()
}

#[test]
fn morph_erodes_and_dilates() {
    let (w, h) = (7, 7);
    let mut m = vec![false; w * h];
    for y in 1..6 {
        for x in 1..6 {
            m[y * w + x] = true;
        }
    }
    let e = morph(&m, w, h, 1, false);
    assert_eq!(e.iter().filter(|&&v| v).count(), 9);
    let d = morph(&e, w, h, 1, true);
    assert_eq!(d, m);
    let edge = vec![true; w * h];
    let e2 = morph(&edge, w, h, 1, false);
    assert!(!e2[0] && e2[w + 1]);
}

/// The blocked morphology (and the cleaning built on it) against the
/// per-pixel reference, on random masks of sizes around the block width.
#[test]
fn morph_matches_reference() {
    let mut seed = 5u32;
    let sizes = [
        (1, 1),
        (3, 9),
        (31, 7),
        (32, 5),
        (33, 40),
        (70, 33),
        (200, 19),
    ];
    for (w, h) in sizes {
        for density in [3u32, 50, 97] {
            let m: Vec<bool> = (0..w * h)
                .map(|_| {
                    seed = lcg_step(seed);
                    (seed >> 16) % 100 < density
                })
                .collect();
            for r in [1, 2, 3] {
                for dilate in [false, true] {
                    let want = morph_reference(&m, w, h, r, dilate);
                    assert_eq!(morph(&m, w, h, r, dilate), want, "{w}x{h} r {r} {dilate}");
                }
            }
            let mut want = morph_reference(&m, w, h, 1, false);
            want = morph_reference(&want, w, h, 1, true);
            want = morph_reference(&want, w, h, 2, true);
            want = morph_reference(&want, w, h, 2, false);
            let bytes: Vec<u8> = m.iter().map(|&b| u8::from(b)).collect();
            let got = cleaned(bytes, w, h);
            let want: Vec<u8> = want.iter().map(|&b| if b { 255 } else { 0 }).collect();
            assert_eq!(got.as_raw(), &want, "cleaned {w}x{h} at {density}%");
        }
    }
    assert!(cleaned(vec![0; 12], 4, 3).as_raw().iter().all(|&v| v == 0));
}

/// The former per-pixel downscale: the reference for [`block_scores`].
fn block_scores_per_pixel(full: &RgbImage, f: usize) -> Vec<u8> {
    let (w, h) = full.dimensions();
    let (ww, wh) = ((w as usize) / f, (h as usize) / f);
    let raw = full.as_raw();
    let stride = w as usize * 3;
    let offs = [f / 4, (3 * f) / 4];
    let mut out = vec![0u8; ww * wh];
    for y in 0..wh {
        let r0 = &raw[(y * f + offs[0]) * stride..(y * f + offs[0] + 1) * stride];
        let r1 = &raw[(y * f + offs[1]) * stride..(y * f + offs[1] + 1) * stride];
        let dst = &mut out[y * ww..(y + 1) * ww];
        let (o0, o1) = (offs[0] * 3, offs[1] * 3);
        for ((d, b0), b1) in dst
            .iter_mut()
            .zip(r0.chunks_exact(3 * f))
            .zip(r1.chunks_exact(3 * f))
        {
            let (a, b) = (&b0[o0..o0 + 3], &b0[o1..o1 + 3]);
            let (c, e) = (&b1[o0..o0 + 3], &b1[o1..o1 + 3]);
            let px = |k: usize| ((a[k] as u32 + b[k] as u32 + c[k] as u32 + e[k] as u32) / 4) as u8;
            *d = paper_score(px(0), px(1), px(2));
        }
    }
    out
}

#[test]
fn block_scores_match_per_pixel() {
    let mut seed = 7u32;
    for (w, h) in [(641, 400), (1280, 720), (1300, 1950), (2000, 7)] {
        let img = RgbImage::from_fn(w, h, |_, _| {
            seed = lcg_step(seed);
            let v = seed >> 8;
            image::Rgb([v as u8, (v >> 8) as u8, (v >> 16) as u8])
        });
        let work = work_image(&img);
        let f = work.factor as usize;
        assert!(f >= 2);
        assert_eq!(
            work.score.as_raw(),
            &block_scores_per_pixel(&img, f),
            "{w}x{h}"
        );
    }
}

/// The AVX2 build of [`block_scores`] against the portable one, bit for
/// bit.
#[cfg(target_arch = "x86_64")]
#[test]
fn block_scores_avx2_matches_portable() {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return;
    }
    let mut seed = 9u32;
    for (w, h, f) in [
        (1280, 720, 2),
        (641, 400, 2),
        (1300, 1950, 4),
        (2000, 7, 4),
        (97, 50, 3),
    ] {
        let raw = random_bytes(&mut seed, w * h * 3);
        let (ww, wh) = (w / f, h / f);
        let portable = block_scores_body(&raw, w, ww, wh, f);
        // SAFETY: the CPU has AVX2 (checked above).
        let avx2 = unsafe { block_scores_avx2(&raw, w, ww, wh, f) };
        assert_eq!(avx2, portable, "{w}x{h} / {f}");
    }
}

/// [`local_above`] against window means taken pixel by pixel.
#[test]
fn local_above_matches_brute_force() {
    let mut seed = 11u32;
    for (w, h, r) in [
        (37, 23, 4),
        (40, 9, 12),
        (1, 5, 2),
        (64, 48, 1),
        (9, 6, 4),
        (150, 60, 17),
    ] {
        let s = random_bytes(&mut seed, w * h);
        let got = local_above(&s, w, h, r, 10, 30);
        for y in 0..h {
            for x in 0..w {
                let (mut sum, mut n) = (0u32, 0u32);
                for yy in y.saturating_sub(r)..(y + r + 1).min(h) {
                    for xx in x.saturating_sub(r)..(x + r + 1).min(w) {
                        sum += s[yy * w + xx] as u32;
                        n += 1;
                    }
                }
                let v = s[y * w + x];
                let want = v > 30 && v as f32 > sum as f32 / n as f32 + 10.0;
                assert_eq!(got[y * w + x] != 0, want, "{w}x{h} r {r} at ({x}, {y})");
            }
        }
    }
}

/// The AVX2 build of [`local_above`] against the portable one, bit for
/// bit (random scores, radii clipping one side, both or neither).
#[cfg(target_arch = "x86_64")]
#[test]
fn local_above_avx2_matches_portable() {
    if !std::arch::is_x86_feature_detected!("avx2") {
        return;
    }
    let mut seed = 3u32;
    for (w, h, r) in [
        (64, 36, 7),
        (33, 20, 20),
        (200, 90, 24),
        (5, 5, 1),
        (17, 3, 8),
    ] {
        let s = random_bytes(&mut seed, w * h);
        for (offset, floor) in [(10, 15), (0, 0), (40, 200)] {
            let portable = local_above_body(&s, w, h, r, offset, floor);
            // SAFETY: the CPU has AVX2 (checked above).
            let avx2 = unsafe { local_above_avx2(&s, w, h, r, offset, floor) };
            assert_eq!(avx2, portable, "{w}x{h} r {r}");
            assert!(portable.contains(&1) || floor == 200);
        }
    }
}

#[test]
fn work_image_of_slivers() {
    for (w, h) in [(1, 2000), (2000, 1), (3, 1041)] {
        let w = work_image(&RgbImage::new(w, h));
        assert!(w.score.width() >= 1 && w.score.height() >= 1);
    }
}

#[test]
fn work_image_of_tiny_frame() {
    let img = RgbImage::new(1, 1);
    let w = work_image(&img);
    assert_eq!(w.score.dimensions(), (1, 1));
    let m = paper_mask(&w);
    assert_eq!(m.dimensions(), (1, 1));
}
