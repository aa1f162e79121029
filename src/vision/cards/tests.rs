//! Unit tests of the card reader's whole-frame paths (synthetic frames).

use super::*;
use crate::vision::geometry::dist;
use image::Rgb;

/// Past the first [`MAX_INDEX_READS`] hypotheses only those whose rank
/// glyph lies inside an unread outline are read.
#[test]
fn extra_index_reads_only_inside_unread_outlines() {
    let hyp = |i: usize| {
        let glyph = [10.0 * i as f32, 5.0];
        glyphs::IndexHyp {
            frame: glyphs::frame_at(glyph, [1.0, 0.0], [0.0, 1.0], 50.0),
            glyph,
            score: i as f32,
            size_ratio: 0.7,
            dist_ratio: 1.0,
            crowd: 0,
        }
    };
    let hyps: Vec<_> = (0..MAX_INDEX_READS + MAX_OUTLINE_INDEX_READS)
        .map(hyp)
        .collect();
    // An outline around the glyph of hypothesis MAX_INDEX_READS + 2 only.
    let x = 10.0 * (MAX_INDEX_READS + 2) as f32;
    let unread = [Quad([
        [x - 3.0, 0.0],
        [x + 3.0, 0.0],
        [x + 3.0, 10.0],
        [x - 3.0, 10.0],
    ])];
    let none = index_reads(hyps.clone(), &[]);
    assert_eq!(none.len(), MAX_INDEX_READS);
    let read = index_reads(hyps, &unread);
    assert_eq!(read.len(), MAX_INDEX_READS + 1);
    assert_eq!(read[MAX_INDEX_READS].glyph, [x, 5.0]);
}

/// Adds `feat` to `model` as the rank and suit samples of an As (and its
/// rank height), as `fit-cards` would from a labelled corner.
fn learn_ace_of_spades(model: &mut CardModel, feat: &index::IndexFeatures) {
    model.rank_height = feat.rank_height;
    model.rank.push(model::Sample {
        label: b'A',
        feat: feat.rank.clone(),
    });
    model.suit.push(model::Sample {
        label: b's',
        feat: feat.suit.clone().expect("pip"),
    });
}

fn empty_model() -> CardModel {
    CardModel {
        red_threshold: 40.0,
        rank_height: 0.1,
        rank: Vec::new(),
        suit: Vec::new(),
        faces: Vec::new(),
    }
}

/// A 126x176 card at (137, 112) on a dark table; `inner` fills the inside
/// of a 7 px white border.
fn card_image(inner: Rgb<u8>) -> DynamicImage {
    let mut img = RgbImage::from_pixel(400, 400, Rgb([30, 32, 30]));
    for y in 112..288 {
        for x in 137..263 {
            let border = !(144..256).contains(&x) || !(119..281).contains(&y);
            img.put_pixel(x, y, if border { Rgb([235, 235, 232]) } else { inner });
        }
    }
    DynamicImage::ImageRgb8(img)
}

#[test]
fn red_and_blue_backs_are_reported() {
    let reader = CardReader::from_model(empty_model());
    for (inner, colour) in [
        (Rgb([170, 30, 40]), BackColour::Red),
        (Rgb([30, 50, 160]), BackColour::Blue),
    ] {
        let scan = reader.read(&card_image(inner)).unwrap();
        assert!(scan.cards.is_empty());
        assert_eq!(scan.backs.len(), 1, "{scan:?}");
        assert_eq!(scan.backs[0].colour, colour);
    }
}

#[test]
fn blank_face_is_unread_not_guessed() {
    let reader = CardReader::from_model(empty_model());
    let scan = reader.read(&card_image(Rgb([235, 235, 232]))).unwrap();
    assert!(scan.cards.is_empty());
    assert_eq!(scan.unread.len(), 1);
    let q = scan.unread[0];
    assert!(
        (q.area() - 126.0 * 176.0).abs() < 0.1 * 126.0 * 176.0,
        "{q:?}"
    );
}

/// A face-up card with no index ink but a picture (a red and a blue
/// block, not a back's edge-to-edge print) on a dark table.
fn picture_card(turned: bool) -> DynamicImage {
    let mut img = RgbImage::from_pixel(400, 400, Rgb([30, 32, 30]));
    for y in 112..288u32 {
        for x in 137..263u32 {
            let (u, v) = ((x - 137) as f32 / 126.0, (y - 112) as f32 / 176.0);
            let (u, v) = if turned { (1.0 - u, 1.0 - v) } else { (u, v) };
            let px = if (0.3..0.7).contains(&u) && (0.25..0.5).contains(&v) {
                Rgb([190, 40, 40])
            } else if (0.3..0.55).contains(&u) && (0.5..0.75).contains(&v) {
                Rgb([40, 60, 170])
            } else {
                Rgb([235, 235, 232])
            };
            img.put_pixel(x, y, px);
        }
    }
    DynamicImage::ImageRgb8(img)
}

/// An outline no index names is read from its face when the model holds
/// that face, either way up; without face samples it stays unread.
#[test]
fn picture_card_without_index_is_read_from_its_face() {
    let img = picture_card(false);
    let scan = CardReader::from_model(empty_model()).read(&img).unwrap();
    assert!(scan.cards.is_empty());
    assert_eq!(scan.unread.len(), 1, "{scan:?}");
    let feat = faces::face_feature(&img.to_rgb8(), &scan.unread[0]).unwrap();
    let mut model = empty_model();
    model.faces.push(model::FaceSample { code: *b"Kh", feat });
    let reader = CardReader::from_model(model);
    for turned in [false, true] {
        let scan = reader.read(&picture_card(turned)).unwrap();
        assert!(scan.unread.is_empty(), "{scan:?}");
        assert_eq!(scan.cards.len(), 1);
        assert_eq!(scan.cards[0].code, "Kh");
        assert!(scan.cards[0].confidence > 0.8);
    }
}

#[test]
fn blank_outline_too_small_to_read_is_not_reported() {
    let reader = CardReader::from_model(empty_model());
    // A blank card-shaped patch `w` px wide (5:7) on a dark table.
    let unread = |w: u32| {
        let h = w * 7 / 5;
        let mut img = RgbImage::from_pixel(300, 300, Rgb([30, 32, 30]));
        for y in 100..100 + h {
            for x in 100..100 + w {
                img.put_pixel(x, y, Rgb([235, 235, 232]));
            }
        }
        let scan = reader.read(&DynamicImage::ImageRgb8(img)).unwrap();
        assert!(scan.cards.is_empty());
        scan.unread.len()
    };
    assert_eq!(unread(70), 1);
    assert_eq!(unread(36), 0);
}

/// An index (ring "rank" over a solid "pip") on a card that lies on a
/// white table, so no card outline exists: only the index-first path can
/// find it. `quarter` rotates the image by 90 degrees.
fn outline_less_index(quarter: bool) -> RgbImage {
    let mut img = RgbImage::from_pixel(300, 300, Rgb([232, 232, 230]));
    // Drawn on a 2x grid: card corner at (60, 60), width 180, so the rank
    // ring is 18x30 px and the pip 18x18 px.
    let mut put = |x: u32, y: u32| {
        for (sx, sy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
            let (x, y) = (2 * x + sx, 2 * y + sy);
            let (x, y) = if quarter { (299 - y, x) } else { (x, y) };
            img.put_pixel(x, y, Rgb([25, 25, 25]));
        }
    };
    for y in 35..50 {
        for x in 34..43 {
            if !(36..41).contains(&x) || !(37..48).contains(&y) {
                put(x, y);
            }
        }
    }
    for y in 52..61 {
        for x in 34..43 {
            put(x, y);
        }
    }
    img
}

#[test]
fn index_first_reads_a_card_without_outline() {
    // The model: this index's own features, read at the frame the glyph
    // pair implies (synthetic hard-edged glyphs are too clean for a
    // one-sample model to tolerate other sampling offsets), upright and
    // rotated. The test covers components, pairing, orientation, scale,
    // the read and the predicted outline.
    let mut model = empty_model();
    for quarter in [false, true] {
        let img = outline_less_index(quarter);
        let hyps = glyphs::index_hypotheses(&glyphs::ink_blobs(&img, &[]), 10);
        assert_eq!(hyps.len(), 1, "{hyps:?}");
        let feat = index::read_corner(&img, &hyps[0].frame).expect("index");
        learn_ace_of_spades(&mut model, &feat);
    }
    let reader = CardReader::from_model(model);
    for quarter in [false, true] {
        let scan = reader
            .read(&DynamicImage::ImageRgb8(outline_less_index(quarter)))
            .unwrap();
        let codes: Vec<&str> = scan.cards.iter().map(|c| c.code.as_str()).collect();
        assert_eq!(codes, ["As"], "quarter {quarter}: {scan:?}");
        // The predicted outline starts near the true corner.
        let corner = if quarter { [239.0, 60.0] } else { [60.0, 60.0] };
        let q = scan.cards[0].quad;
        assert!(q.0.iter().any(|p| dist(*p, corner) < 12.0), "{q:?}");
    }
    // A blank white frame gives nothing.
    let blank = RgbImage::from_pixel(300, 300, Rgb([232, 232, 230]));
    let scan = reader.read(&DynamicImage::ImageRgb8(blank)).unwrap();
    assert!(scan.cards.is_empty());
}

#[test]
fn centre_pips_read_a_ten_of_a_known_rank_only() {
    let (img, quad) = pips::tests::card(&pips::tests::layout(b'T'), Rgb([20, 20, 20]));
    let p = pips::read_pips(&img, &quad).expect("pips");
    // Suit samples: the drawn (square) pip as clubs, a diagonal stroke
    // as spades.
    let mut diagonal = vec![0f32; index::SUIT_SIDE * index::SUIT_SIDE];
    for i in 0..index::SUIT_SIDE {
        diagonal[i * index::SUIT_SIDE + i] = 1.0;
    }
    index::normalise(&mut diagonal);
    let mut model = empty_model();
    model.suit.push(model::Sample {
        label: b'c',
        feat: p.pips[0].clone(),
    });
    model.suit.push(model::Sample {
        label: b's',
        feat: diagonal,
    });
    // Without a ten among the model's ranks (a deck without tens) the
    // pip count is not trusted.
    let reader = CardReader::from_model(model.clone());
    assert_eq!(reader.read_pips(&img, &quad), None);
    model.rank.push(model::Sample {
        label: b'T',
        feat: vec![0.0; index::RANK_SIDE * index::RANK_SIDE],
    });
    let reader = CardReader::from_model(model);
    let r = reader.read_pips(&img, &quad).expect("read");
    assert_eq!(r.code, "Tc");
    assert!(r.confidence >= PIP_MIN_CONFIDENCE);
    // The pip check of corner reads: another suit or rank is vetoed, the
    // same code passes, a court card (no pip layout) is not checked.
    let corner = |code: &str| CornerRead {
        code: code.into(),
        confidence: 0.9,
    };
    assert!(reader.pips_disagree(&img, &quad, &corner("Ts")));
    assert!(reader.pips_disagree(&img, &quad, &corner("9c")));
    assert!(!reader.pips_disagree(&img, &quad, &corner("Tc")));
    assert!(!reader.pips_disagree(&img, &quad, &corner("Ks")));
    // Through the whole reader: the outline is found, its indices (bars
    // unknown to the model) give nothing, the pips read the card.
    let scan = reader.read(&DynamicImage::ImageRgb8(img)).unwrap();
    let codes: Vec<&str> = scan.cards.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(codes, ["Tc"], "{scan:?}");
}

/// A grey card in shade (paper score ~106) on a dark table (~36), in a
/// frame whose other half is white paper (~229): the frame's paper
/// threshold lies above the card, the local mask finds it, when reading
/// only (`fit-cards` keeps the plain outlines).
#[test]
fn local_mask_finds_a_card_in_shade() {
    let img = RgbImage::from_fn(400, 300, |x, y| {
        if x < 200 {
            Rgb([235, 235, 232])
        } else if (260..330).contains(&x) && (80..180).contains(&y) {
            Rgb([110, 110, 108])
        } else {
            Rgb([40, 38, 36])
        }
    });
    let work = prep::work_image(&img);
    assert!(prep::paper_threshold(&work) > 110);
    let at_card = |c: &Candidates| {
        c.singles
            .iter()
            .filter(|(q, _)| q.contains([295.0, 130.0]))
            .map(|(q, _)| *q)
            .collect::<Vec<_>>()
    };
    assert!(at_card(&candidates(&img, false)).is_empty());
    let c = candidates(&img, true);
    let found = at_card(&c);
    assert_eq!(found.len(), 1, "{:?}", c.singles);
    assert!(
        (found[0].area() - 70.0 * 100.0).abs() < 0.1 * 7000.0,
        "{found:?}"
    );
    assert!(c.local_from < c.singles.len());
    // The white half is an outline of its own and sets the scale; the
    // local outline does not.
    let w = c.width_estimate.expect("scale");
    assert!((w - 200.0).abs() < 8.0, "{w}");
}

/// Two overlapping cards on a dark table (one merged blob, so no
/// whole-card outline) whose free top-left corner holds a pale index
/// (ink at 85% of the paper level: a ring "rank" over a solid "pip"),
/// drawn for the first guessed card width.
fn pale_corner_frame() -> RgbImage {
    let mut img = RgbImage::from_pixel(600, 450, Rgb([30, 32, 30]));
    let paper = Rgb([235, 235, 232]);
    let width = (WIDTH_GUESSES[0] * 450.0) as u32;
    for y in 60..60 + width * 7 / 5 {
        for x in 60..60 + width {
            img.put_pixel(x, y, paper);
        }
    }
    for y in 200..420 {
        for x in 180..400 {
            img.put_pixel(x, y, paper);
        }
    }
    let ink = Rgb([200, 200, 198]);
    let at = |u: f32| 60 + (u * width as f32) as u32;
    for y in at(0.07)..at(0.17) {
        for x in at(0.04)..at(0.12) {
            let inner = (at(0.06)..at(0.10)).contains(&x) && (at(0.09)..at(0.15)).contains(&y);
            if !inner {
                img.put_pixel(x, y, ink);
            }
        }
    }
    for y in at(0.19)..at(0.27) {
        for x in at(0.04)..at(0.12) {
            img.put_pixel(x, y, ink);
        }
    }
    img
}

/// A pale index at a merged-blob corner: no rank glyph at the normal ink
/// level, so the located-glyph read gives nothing; the faint levels at
/// the guessed width read it, and the whole reader reports the card.
#[test]
fn faint_levels_read_a_pale_merged_corner() {
    let img = pale_corner_frame();
    let cands = candidates(&img, true);
    assert!(cands.singles.is_empty(), "{:?}", cands.singles);
    let corner = cands
        .merged
        .iter()
        .flat_map(|(_, c)| c.iter())
        .find(|c| dist(c.origin, [60.0, 60.0]) < 4.0)
        .copied()
        .expect("corner at (60, 60)");
    let guesses = [WIDTH_GUESSES[0] * 450.0];
    let f = CornerFrame {
        width: guesses[0],
        ..corner
    };
    // The model: this index as read at the pale level.
    let feat = index::sample_patch(&img, &f)
        .and_then(|p| {
            p.read(
                index::MIN_RANK_HEIGHT,
                index::MAX_RANK_HEIGHT,
                &[OUTLINE_PALE_INK_LEVEL],
            )
        })
        .expect("pale index");
    let mut model = empty_model();
    learn_ace_of_spades(&mut model, &feat);
    let reader = CardReader::from_model(model);
    assert!(reader.read_unscaled(&img, &corner, &guesses).is_none());
    let (r, _) = reader
        .read_corner_faint(&img, &corner, &guesses)
        .expect("faint read");
    assert_eq!(r.code, "As");
    let scan = reader.read(&DynamicImage::ImageRgb8(img)).unwrap();
    let codes: Vec<&str> = scan.cards.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(codes, ["As"], "{scan:?}");
}

/// A card corner (frame at (60, 60), 200 px wide, upright) whose rank
/// glyph is a dark stem with a faint hook (86% of the paper level) and
/// whose dark pip is joined to the hook by a paler smear (92%): at 0.84
/// the hook is cut off, at 0.95 hook, smear and pip are one part; only
/// [`OUTLINE_FAINTER_INK_LEVEL`] sees the whole glyph over its pip.
fn faint_hook_corner() -> (RgbImage, CornerFrame) {
    let paper = Rgb([235, 235, 235]);
    let mut img = RgbImage::from_pixel(400, 400, paper);
    let f = CornerFrame {
        origin: [60.0, 60.0],
        r: [1.0, 0.0],
        d: [0.0, 1.0],
        width: 200.0,
    };
    let mut fill = |u: (f32, f32), v: (f32, f32), grey: u8| {
        let px = |t: f32| 60 + (t * 200.0) as u32;
        for y in px(v.0)..px(v.1) {
            for x in px(u.0)..px(u.1) {
                img.put_pixel(x, y, Rgb([grey; 3]));
            }
        }
    };
    fill((0.08, 0.1), (0.07, 0.13), 120); // stem
    fill((0.04, 0.1), (0.13, 0.17), 202); // faint hook
    fill((0.04, 0.06), (0.17, 0.19), 216); // paler smear
    fill((0.04, 0.12), (0.19, 0.27), 120); // pip
    (img, f)
}

#[test]
fn fainter_level_reads_a_hook_that_joins_the_pip_when_paler() {
    let (img, f) = faint_hook_corner();
    let patch = index::sample_patch(&img, &f).expect("patch");
    let at = |level: f32| patch.read(index::MIN_RANK_HEIGHT, index::MAX_RANK_HEIGHT, &[level]);
    let feat = at(OUTLINE_FAINTER_INK_LEVEL).expect("whole glyph");
    assert!(feat.suit.is_some());
    let mut model = empty_model();
    learn_ace_of_spades(&mut model, &feat);
    let reader = CardReader::from_model(model);
    let code = |level: f32| at(level).and_then(|x| reader.classify(&x)).map(|r| r.code);
    for level in [
        index::INK_LEVEL,
        INDEX_FAINT_INK_LEVEL,
        OUTLINE_FAINTEST_INK_LEVEL,
        OUTLINE_PALE_INK_LEVEL,
    ] {
        assert_eq!(code(level), None, "level {level}");
    }
    let r = reader
        .read_frame(&img, &f)
        .expect("read at the fainter level");
    assert_eq!(r.code, "As");
}

/// [`faint_hook_corner`] without the paler smear, and with a smear at
/// the hook's ink level from the pip to the patch's left border: at the
/// fainter level the glyph is whole but its pip joins the smear (a part
/// touching the border is no pip); at the normal level the pip is alone
/// and the glyph is only its stem.
fn faint_hook_smeared_pip_corner() -> (RgbImage, CornerFrame) {
    let (mut img, f) = faint_hook_corner();
    let mut fill = |u: (f32, f32), v: (f32, f32), grey: u8| {
        let px = |t: f32| 60 + (t * 200.0) as u32;
        for y in px(v.0)..px(v.1) {
            for x in px(u.0)..px(u.1) {
                img.put_pixel(x, y, Rgb([grey; 3]));
            }
        }
    };
    fill((0.04, 0.06), (0.17, 0.19), 235); // no paler smear
    fill((0.0, 0.04), (0.21, 0.25), 202); // smear to the border
    (img, f)
}

#[test]
fn pip_rescue_takes_the_pip_at_the_normal_level() {
    let (img, f) = faint_hook_smeared_pip_corner();
    let patch = index::sample_patch(&img, &f).expect("patch");
    let (lo, hi) = (index::MIN_RANK_HEIGHT, index::MAX_RANK_HEIGHT);
    let faint = patch
        .read(lo, hi, &[OUTLINE_FAINTER_INK_LEVEL])
        .expect("glyph");
    assert!(faint.suit.is_none());
    let (split, rescued) = patch
        .read_with_pip_level(lo, hi, OUTLINE_FAINTER_INK_LEVEL, OUTLINE_RESCUE_PIP_LEVEL)
        .expect("rescued pip");
    assert!(rescued);
    assert!(split.suit.is_some());
    // Same rank glyph, and a pip of the normal level's split.
    assert_eq!(split.rank, faint.rank);
    assert_eq!(split.rank_height, faint.rank_height);
    let normal = patch
        .read(lo, hi, &[OUTLINE_RESCUE_PIP_LEVEL])
        .expect("stem");
    assert!(normal.rank_height < 0.8 * faint.rank_height);
    let mut model = empty_model();
    learn_ace_of_spades(&mut model, &split);
    let reader = CardReader::from_model(model);
    for level in [
        index::INK_LEVEL,
        INDEX_FAINT_INK_LEVEL,
        OUTLINE_FAINTEST_INK_LEVEL,
        OUTLINE_FAINTER_INK_LEVEL,
        OUTLINE_PALE_INK_LEVEL,
    ] {
        let code = patch
            .read(lo, hi, &[level])
            .and_then(|x| reader.classify(&x))
            .map(|r| r.code);
        assert_eq!(code, None, "level {level}");
    }
    let r = reader.read_frame(&img, &f).expect("rescued read");
    assert_eq!(r.code, "As");
}

#[test]
fn pip_rescue_is_the_plain_read_when_the_faint_level_has_a_pip() {
    let (img, f) = faint_hook_corner();
    let patch = index::sample_patch(&img, &f).expect("patch");
    let (lo, hi) = (index::MIN_RANK_HEIGHT, index::MAX_RANK_HEIGHT);
    let plain = patch
        .read(lo, hi, &[OUTLINE_FAINTER_INK_LEVEL])
        .expect("plain");
    assert!(plain.suit.is_some());
    let split =
        patch.read_with_pip_level(lo, hi, OUTLINE_FAINTER_INK_LEVEL, OUTLINE_RESCUE_PIP_LEVEL);
    assert_eq!(split, Some((plain, false)));
}

#[test]
fn model_bytes_round_trip_through_reader() {
    let bytes = empty_model().to_bytes();
    let reader = CardReader::from_model_bytes(&bytes).unwrap();
    assert_eq!(reader.model(), &empty_model());
    assert!(CardReader::from_model_bytes(&bytes[..10]).is_err());
}
