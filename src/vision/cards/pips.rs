//! Reading a number card from its centre pips: a second opinion for whole-card
//! outlines whose corner indices gave no read (blurred webcam frames, where a
//! corner index is a few pixels tall but the centre pips are still large).
//!
//! The card is rectified through its outline; the ink inside is split into
//! parts; every part outside the corner-index zones must be a pip of one
//! size, and the pips must form a standard layout (side columns of equal
//! counts, a centre column, point symmetry about the card centre). The count
//! is the rank; the pips' shapes give the suit (by the model's suit samples,
//! see `classify::classify_pips`). Court cards (J, Q, K), aces and sevens
//! (asymmetric) are never read here.

use super::find::CARD_ASPECT;
use super::index::{
    INK_LEVEL, INK_LEVEL_STRICT, MIN_INK_DARKNESS, MIN_PAPER_LEVEL, REDNESS_SCALE, SUIT_SIDE,
};
use super::index::{Part, components, glyph_feature, paper_level};
use super::prep::QuadSampler;
use crate::vision::geometry::{Point, Quad};
use image::RgbImage;

/// Rectified card resolution: pixels per card width (a centre pip ~0.17 W
/// becomes ~11 px, plenty to count and to resample to the suit feature).
pub const GRID_PX_PER_WIDTH: usize = 64;

/// Ink within this many card widths of the outline is ignored: outlines found
/// in the paper mask sit a little off the true edge, so the table or an edge
/// shadow shows along it.
pub const BORDER_INSET: f32 = 0.05;

/// Corner-index zones (card widths from each corner along the short and the
/// long side): parts lying wholly inside one are the indices, not pips.
pub const INDEX_ZONE: (f32, f32) = (0.24, 0.45);

/// Ink levels (shares of the paper level) tried in turn: the normal index
/// level, then stricter ones that separate blurred pips which touch.
pub const PIP_INK_LEVELS: [f32; 3] = [INK_LEVEL, INK_LEVEL_STRICT, 0.35];

/// Ink parts smaller than this (card widths squared) are specks and ignored.
pub const SPECK_AREA: f32 = 0.003;

/// Height window of a centre pip in card widths (Bicycle-like number cards:
/// ~0.17-0.2 W; blur grows them a little).
pub const PIP_HEIGHT: (f32, f32) = (0.1, 0.32);

/// Largest ratio between the ink areas of the largest and the smallest pip.
pub const PIP_AREA_RATIO: f32 = 2.0;

/// A pip belongs to the centre column when its centre lies this close (card
/// widths) to the card's long axis.
pub const CENTRE_COLUMN_TOL: f32 = 0.07;

/// Distance window (card widths) of the side columns from the long axis.
pub const SIDE_OFFSET: (f32, f32) = (0.12, 0.34);

/// Every side pip's distance from the long axis lies this close (card widths)
/// to the side pips' mean distance.
pub const SIDE_COLUMN_TOL: f32 = 0.06;

/// Point symmetry: each pip has a partner within this distance (card widths)
/// of its reflection through the card centre.
pub const SYMMETRY_TOL: f32 = 0.08;

/// Pips whose centre lies this close (card widths) to the card's middle row
/// have no clear up or down: their shape is not used for the suit.
pub const MIDDLE_ROW_TOL: f32 = 0.12;

/// Mean darkness of the pip ink relative to paper (0..1) at least: fainter
/// "pips" are shadows.
pub const MIN_PIP_CONTRAST: f32 = 0.3;

/// The standard layouts read: (rank, pips in each side column, pips in the
/// centre column). Sevens (one unpaired centre pip) are left out: the
/// symmetry check would refuse them.
pub const LAYOUTS: [(u8, usize, usize); 8] = [
    (b'2', 0, 2),
    (b'3', 0, 3),
    (b'4', 2, 0),
    (b'5', 2, 1),
    (b'6', 3, 0),
    (b'8', 3, 2),
    (b'9', 4, 1),
    (b'T', 4, 2),
];

/// What the centre pips say about a card.
#[derive(Debug, Clone, PartialEq)]
pub struct PipCard {
    /// Rank from the pip count (`2-6 8 9 T`).
    pub rank: u8,
    /// Suit features ([`SUIT_SIDE`]^2, as an index pip's) of the pips off
    /// the middle row, turned upright.
    pub pips: Vec<Vec<f32>>,
    /// Redness of the pip ink (as `IndexFeatures::redness`).
    pub redness: f32,
}

/// A pip part in card widths.
struct Pip {
    id: usize,
    centre: Point,
    area: usize,
}

/// The rectified card: samples in card-width units, row-major.
struct Grid {
    w: usize,
    h: usize,
    rgb: Vec<[f32; 3]>,
    lum: Vec<f32>,
}

fn rectify(rgb: &RgbImage, quad: &Quad) -> Option<Grid> {
    let aspect = CARD_ASPECT;
    let card = [[0.0, 0.0], [1.0, 0.0], [1.0, aspect], [0.0, aspect]];
    let sampler = QuadSampler::new(rgb, &card, &quad.0)?;
    let w = GRID_PX_PER_WIDTH;
    let gh = (GRID_PX_PER_WIDTH as f32 * aspect).round() as usize;
    let mut out = Grid {
        w,
        h: gh,
        rgb: Vec::with_capacity(w * gh),
        lum: Vec::with_capacity(w * gh),
    };
    let px = GRID_PX_PER_WIDTH as f32;
    for y in 0..gh {
        for x in 0..w {
            let c = sampler.sample(rgb, [(x as f32 + 0.5) / px, (y as f32 + 0.5) / px])?;
            out.rgb.push(c);
            out.lum.push(c[0].min(c[1]).min(c[2]));
        }
    }
    Some(out)
}

/// Whether a part (pixel box) lies wholly in one of the four index zones.
fn in_index_zone(p: &Part, w: usize, h: usize) -> bool {
    let px = GRID_PX_PER_WIDTH as f32;
    let (zu, zv) = ((INDEX_ZONE.0 * px) as usize, (INDEX_ZONE.1 * px) as usize);
    let left = p.x1 < zu;
    let right = p.x0 + zu >= w;
    let top = p.y1 < zv;
    let bottom = p.y0 + zv >= h;
    (left || right) && (top || bottom)
}

/// Reads the centre pips of the card outlined by `quad` (short side first,
/// as `find` orients it); `None` unless, at one of [`PIP_INK_LEVELS`], every
/// ink part off the indices is a pip of a standard layout.
pub fn read_pips(rgb: &RgbImage, quad: &Quad) -> Option<PipCard> {
    let g = rectify(rgb, quad)?;
    let inset = (BORDER_INSET * GRID_PX_PER_WIDTH as f32).ceil() as usize;
    let (xs, ys) = (
        inset..g.w.saturating_sub(inset),
        inset..g.h.saturating_sub(inset),
    );
    // Paper level: 85th percentile inside the inset border.
    let mut lums: Vec<f32> = ys
        .clone()
        .flat_map(|y| g.lum[y * g.w + xs.start..y * g.w + xs.end].iter().copied())
        .collect();
    let paper = paper_level(&mut lums)?;
    if paper < MIN_PAPER_LEVEL {
        return None;
    }
    let mut ink = vec![false; g.w * g.h];
    PIP_INK_LEVELS.iter().find_map(|&level| {
        let thr = paper * level;
        for y in ys.clone() {
            let row = y * g.w;
            for x in xs.clone() {
                ink[row + x] = g.lum[row + x] < thr;
            }
        }
        read_split(&g, paper, &ink)
    })
}

/// The parts of `ink` that are pips, in card widths; `None` when a part off
/// the index zones is not pip-sized.
fn pip_parts(g: &Grid, parts: &[Part]) -> Option<Vec<Pip>> {
    let px = GRID_PX_PER_WIDTH as f32;
    let speck = (SPECK_AREA * px * px) as usize;
    let (hmin, hmax) = (PIP_HEIGHT.0 * px, PIP_HEIGHT.1 * px);
    let mut pips: Vec<Pip> = Vec::new();
    for (id, p) in parts.iter().enumerate() {
        if p.area < speck || in_index_zone(p, g.w, g.h) {
            continue;
        }
        let (ph, pw) = (p.h() as f32, p.w() as f32);
        // Anything else must be a pip: court figures, text, other cards
        // and shadows leave the card unread.
        if ph < hmin || ph > hmax || pw > hmax {
            return None;
        }
        pips.push(Pip {
            id,
            centre: [
                (p.x0 + p.x1 + 1) as f32 / 2.0 / px,
                (p.y0 + p.y1 + 1) as f32 / 2.0 / px,
            ],
            area: p.area,
        });
    }
    Some(pips)
}

/// Reads the card from one ink split of the rectified card.
fn read_split(g: &Grid, paper: f32, ink: &[bool]) -> Option<PipCard> {
    let (labels, parts) = components(ink, g.w, g.h);
    let pips = pip_parts(g, &parts)?;
    let rank = layout_rank(&pips)?;
    let (amin, amax) = pips
        .iter()
        .fold((usize::MAX, 0), |(a, b), p| (a.min(p.area), b.max(p.area)));
    if amax as f32 > PIP_AREA_RATIO * amin as f32 {
        return None;
    }
    // Contrast and colour over the pip ink.
    let (mut con, mut red, mut dark, mut n) = (0f32, 0f32, 0f32, 0f32);
    for (i, &l) in labels.iter().enumerate() {
        if l == usize::MAX || !pips.iter().any(|p| p.id == l) {
            continue;
        }
        let c = g.rgb[i];
        con += ((paper - g.lum[i]) / paper).clamp(0.0, 1.0);
        red += c[0] - c[1].max(c[2]);
        dark += paper - g.lum[i];
        n += 1.0;
    }
    if n == 0.0 || con / n < MIN_PIP_CONTRAST {
        return None;
    }
    let redness = REDNESS_SCALE * red / dark.max(MIN_INK_DARKNESS * n);
    let darkness = |v: f32| ((paper - v) / paper).clamp(0.0, 1.0);
    let mid = CARD_ASPECT / 2.0;
    let feats: Vec<Vec<f32>> = pips
        .iter()
        .filter(|p| (p.centre[1] - mid).abs() >= MIDDLE_ROW_TOL)
        .map(|p| {
            let bb = &parts[p.id];
            let mut f = glyph_feature(&g.lum, &labels, &[p.id], g.w, bb, SUIT_SIDE, &darkness);
            // Pips of the lower half stand upside down: a half turn of a
            // row-major square image reverses it.
            if p.centre[1] > mid {
                f.reverse();
            }
            f
        })
        .collect();
    if feats.is_empty() {
        return None;
    }
    Some(PipCard {
        rank,
        pips: feats,
        redness,
    })
}

/// The rank whose layout the pip centres (card widths) form, if any.
fn layout_rank(pips: &[Pip]) -> Option<u8> {
    let axis = 0.5;
    let centre: [f32; 2] = [0.5, CARD_ASPECT / 2.0];
    let mut n_centre = 0;
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for p in pips {
        let off = p.centre[0] - axis;
        if off.abs() <= CENTRE_COLUMN_TOL {
            n_centre += 1;
        } else if off < 0.0 {
            left.push(-off);
        } else {
            right.push(off);
        }
    }
    if left.len() != right.len() {
        return None;
    }
    let sides: Vec<f32> = left.iter().chain(&right).copied().collect();
    if !sides.is_empty() {
        let mean = sides.iter().sum::<f32>() / sides.len() as f32;
        if !(SIDE_OFFSET.0..=SIDE_OFFSET.1).contains(&mean)
            || sides.iter().any(|s| (s - mean).abs() > SIDE_COLUMN_TOL)
        {
            return None;
        }
    }
    let symmetric = pips.iter().all(|p| {
        let m = [2.0 * centre[0] - p.centre[0], 2.0 * centre[1] - p.centre[1]];
        pips.iter()
            .any(|q| crate::vision::geometry::dist(q.centre, m) <= SYMMETRY_TOL)
    });
    if !symmetric {
        return None;
    }
    LAYOUTS
        .iter()
        .find(|&&(_, s, c)| s == left.len() && c == n_centre)
        .map(|&(r, _, _)| r)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use image::Rgb;

    /// Card width in pixels of the synthetic frames.
    const W: f32 = 150.0;

    /// A white card (width [`W`], top-left at (40, 30)) on a dark table with
    /// solid diamond "pips" 0.18 W across at the given centres (card widths),
    /// ink `ink`; plus a small corner index (rank bar and pip) at the top
    /// left and bottom right.
    pub(crate) fn card(centres: &[[f32; 2]], ink: Rgb<u8>) -> (RgbImage, Quad) {
        let (ox, oy) = (40.0, 30.0);
        let h = W * CARD_ASPECT;
        let mut img = RgbImage::from_pixel(260, 300, Rgb([40, 45, 40]));
        let fill = |img: &mut RgbImage, u0: f32, v0: f32, u1: f32, v1: f32, c: Rgb<u8>| {
            for y in (oy + v0 * W) as u32..(oy + v1 * W) as u32 {
                for x in (ox + u0 * W) as u32..(ox + u1 * W) as u32 {
                    img.put_pixel(x, y, c);
                }
            }
        };
        fill(&mut img, 0.0, 0.0, 1.0, CARD_ASPECT, Rgb([235, 235, 230]));
        // Diamond pips (a solid square would give a flat, shapeless feature).
        let s = 0.09;
        for c in centres {
            let (cx, cy) = (ox + c[0] * W, oy + c[1] * W);
            for y in (cy - s * W) as u32..=(cy + s * W) as u32 {
                for x in (cx - s * W) as u32..=(cx + s * W) as u32 {
                    if (x as f32 - cx).abs() + (y as f32 - cy).abs() <= s * W {
                        img.put_pixel(x, y, ink);
                    }
                }
            }
        }
        // Corner indices: rank bar and pip, and their half-turned copies.
        fill(&mut img, 0.06, 0.05, 0.12, 0.16, ink);
        fill(&mut img, 0.05, 0.19, 0.13, 0.27, ink);
        let a = CARD_ASPECT;
        fill(&mut img, 0.88, a - 0.16, 0.94, a - 0.05, ink);
        fill(&mut img, 0.87, a - 0.27, 0.95, a - 0.19, ink);
        let quad = Quad([[ox, oy], [ox + W, oy], [ox + W, oy + h], [ox, oy + h]]);
        (img, quad)
    }

    /// Standard pip centres (card widths) for a 9 or a 10.
    pub(crate) fn layout(rank: u8) -> Vec<[f32; 2]> {
        let mut v = Vec::new();
        for row in [0.25, 0.55, 0.85, 1.15] {
            v.push([0.3, row]);
            v.push([0.7, row]);
        }
        match rank {
            b'9' => v.push([0.5, 0.7]),
            _ => {
                v.push([0.5, 0.4]);
                v.push([0.5, 1.0]);
            }
        }
        v
    }

    #[test]
    fn counts_nine_and_ten() {
        for rank in [b'9', b'T'] {
            let (img, quad) = card(&layout(rank), Rgb([20, 20, 20]));
            let p = read_pips(&img, &quad).expect("pips");
            assert_eq!(p.rank, rank);
            // Middle-row pips (the 9's centre one) give no suit shape.
            assert_eq!(p.pips.len(), if rank == b'9' { 8 } else { 10 });
            assert!(p.redness.abs() < 5.0, "{}", p.redness);
            assert!(p.pips.iter().all(|f| f.len() == SUIT_SIDE * SUIT_SIDE));
        }
    }

    #[test]
    fn red_pips_are_red() {
        let (img, quad) = card(&layout(b'T'), Rgb([200, 30, 40]));
        let p = read_pips(&img, &quad).expect("pips");
        assert_eq!(p.rank, b'T');
        assert!(p.redness > 60.0, "{}", p.redness);
    }

    #[test]
    fn rotated_frame_reads_the_same() {
        // The same 9 seen through the outline listed from the far corner
        // (the card turned half round).
        let (img, quad) = card(&layout(b'9'), Rgb([20, 20, 20]));
        let q = Quad([quad.0[2], quad.0[3], quad.0[0], quad.0[1]]);
        assert_eq!(read_pips(&img, &q).map(|p| p.rank), Some(b'9'));
    }

    #[test]
    fn broken_layouts_are_not_read() {
        // One pip missing from a 10: the sides no longer match.
        let mut v = layout(b'T');
        v.remove(0);
        let (img, quad) = card(&v, Rgb([20, 20, 20]));
        assert_eq!(read_pips(&img, &quad), None);
        // Not point-symmetric (a 9 whose centre pip sits high).
        let mut v = layout(b'9');
        v[8] = [0.5, 0.45];
        let (img, quad) = card(&v, Rgb([20, 20, 20]));
        assert_eq!(read_pips(&img, &quad), None);
        // A lone big blob (ace-like) and a court-like frame are not pip cards.
        let (mut img, quad) = card(&[], Rgb([20, 20, 20]));
        for y in 90..200 {
            for x in 80..150 {
                img.put_pixel(x, y, Rgb([30, 30, 160]));
            }
        }
        assert_eq!(read_pips(&img, &quad), None);
        // A blank card has no pips.
        let (img, quad) = card(&[], Rgb([20, 20, 20]));
        assert_eq!(read_pips(&img, &quad), None);
    }
}
