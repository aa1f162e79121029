//! Index-first detection: find corner indices directly from ink glyphs, without
//! a card outline. Used as a second path for cards whose outline is lost (light
//! or textured tables where the paper mask leaks, fanned cards whose index
//! corner has no clean right-angled outline corner).
//!
//! Ink is thresholded locally (darker than [`INK_LEVEL`] of the brightest pixel
//! in the surrounding 3x3 blocks of [`BLOCK`] px; again at the stricter
//! levels of [`BLOB_INK_LEVELS`] where a component was too large for a
//! glyph), 8-connected components of glyph size are kept, and every
//! rank-glyph candidate is paired with a plausible suit pip below it *in the
//! pair's own orientation*: the rank -> pip vector gives the card's long-side
//! direction and its length the card scale.
//! Each pair becomes a [`CornerFrame`] that the normal index reader then reads
//! (and rejects, if it is not an index).

use super::find::CornerFrame;
use crate::vision::geometry::{Point, Quad, dist};
use image::RgbImage;

/// Block size (sampled px) for the local paper level.
pub const BLOCK: usize = 16;
/// Ink = darker than this share of the local paper level (as [`super::index::INK_LEVEL`]).
pub const INK_LEVEL: f32 = 0.72;
/// Local paper level below which a block is table / shadow, not card face.
pub const MIN_PAPER: u8 = 110;
/// Ink levels at which glyph blobs are collected: the normal level, then a
/// stricter one whose extra blobs are glyphs that the normal level joined to
/// something larger than a glyph (an index pip to a card edge in a shadow or
/// a warm-lit paper gradient, a rank glyph to a court frame on a small card).
/// 4-fold cross-validation on edje train_* (the fold models of the
/// development split): 474 -> 482 correct of 525 with 0.55 or 0.6 (0.5: 479
/// and one more wrong read, 0.65: 477; three levels 0.72/0.62/0.5 or
/// 0.72/0.55/0.4: 476 / 475, the extra blobs crowd the hypothesis budget);
/// wrong reads 2 throughout.
pub const BLOB_INK_LEVELS: [f32; 2] = [INK_LEVEL, 0.55];
/// Ink level of the extra pass around red blobs (`add_faint_red_glyphs`):
/// faint pink rank glyphs of webcam frames, whose strokes lie at 80-90% of
/// the paper level, break into fragments at [`INK_LEVEL`] and never pair
/// with their pip. 4-fold cross-validation on edje train_* (development
/// split, fold models unchanged: fitting does not use these blobs): 482 ->
/// 485 correct of 525 at 0.78, 0.82, 0.86 and 0.9 (0.75: 484); wrong reads
/// 2 throughout.
pub const FAINT_RED_INK_LEVEL: f32 = 0.82;
/// Blobs at least this red (mean `r - max(g, b)`) get the faint pass
/// around them: red pips (~60-70) and not black ink (~0). Same split: 485 at
/// 10, 20, 30 and 45 (486 at 15, a lone spike), 484 when every blob gets it.
pub const FAINT_RED_MIN: f32 = 30.0;
/// Blocks within this many blob sizes of a red blob's centre are scanned
/// again (the rank glyph lies ~1.4 pip sizes from its pip). Same split: 485
/// at 1, 2 and 3.
pub const FAINT_RED_REACH: f32 = 2.0;
/// A stricter-level blob whose centre lies within this share of the larger
/// size of a normal-level blob ...
pub const DUPLICATE_BLOB_DIST: f32 = 0.3;
/// ... and that keeps more than this share of its size is the same glyph.
pub const DUPLICATE_BLOB_SIZE: f32 = 0.6;
/// Smallest glyph extent (sampled px): a 10 px rank glyph's pip is ~7 px.
pub const MIN_GLYPH_PX: u32 = 5;
/// Largest glyph extent as a share of the frame's short side.
pub const MAX_GLYPH_SHARE: f32 = 0.12;
/// Frames above this many pixels are sampled every 2nd (3rd...) pixel.
pub const FULL_RES_PIXELS: u64 = 1_300_000;
/// More glyph components than this: clutter, keep only the first ones.
pub const MAX_BLOBS: usize = 4000;
/// Distance rank centre -> pip centre, in card widths (measured on fitted
/// photos: rank centre at ~(0.083, 0.121) W, pip centre ~0.15 W below).
pub const RANK_TO_PIP: f32 = 0.15;
/// Rank glyph centre in card-width units from the card corner.
pub const RANK_CENTRE: (f32, f32) = (0.083, 0.121);
/// Pip size / rank size window. On the fitted photos (edje train_*, sarm
/// single_*) correct index-first reads had 0.50-1.0 (1-99%: 0.56-0.90); centre
/// pips paired with each other have ~1.0, so the top is kept below that.
pub const PIP_SIZE_RATIO: (f32, f32) = (0.45, 0.95);
/// Rank -> pip distance over the rank's extent along that direction (correct
/// reads on the fitted photos: 0.70-1.24).
pub const PAIR_DIST_RATIO: (f32, f32) = (0.6, 1.35);
/// The rank glyph the reader locates must lie within this distance (card
/// widths, per axis) of [`RANK_CENTRE`]: otherwise the reader found another
/// glyph than the one paired (correct reads: within 0.025).
pub const RANK_CENTRE_TOLERANCE: f32 = 0.035;
/// Largest difference in mean redness between rank and pip (same ink).
pub const MAX_RED_DIFF: f32 = 75.0;
/// A read's card width (from its rank glyph) must lie within this ratio of the
/// width implied by the glyph pair's spacing.
pub const WIDTH_AGREEMENT: (f32, f32) = (0.7, 1.45);
/// Smallest ink share of a pip's bounding box (pips are solid shapes).
pub const MIN_PIP_FILL: f32 = 0.3;
/// Glyph width / height assumed when correcting bounding-box extents of
/// turned glyphs (`Blob::extent`). Before, a card turned by ~45 degrees had
/// its rank and pip extents overstated by up to 1.8x and the pair was
/// rejected as too close. 4-fold cross-validation on edje train_* (fold
/// models fitted without the fold): 465 of 525 correct without the
/// correction, 470 at 0.25-0.4, 469 at 0.15 and 0.5, 464 at 0.7, 452 at 1.0
/// (more clutter pairs then); wrong reads 3 throughout.
pub const TURNED_GLYPH_ASPECT: f32 = 0.3;
/// Rank and pip centres must lie at least this share of the two glyphs'
/// summed extents apart along their line (glyphs of a pair do not overlap).
pub const MIN_PAIR_GAP: f32 = 0.45;
/// Looser [`MIN_PAIR_GAP`] used only for a rank glyph that has no partner
/// under the strict one: the "J" and heart of `train_IMG_2611`'s Jh, cut by
/// the frame edge, lie 14.0 px apart where 0.45 asks for 14.3. As a plain
/// loosening it read that Jh but pushed `train_IMG_2589`'s 9s (20th pair)
/// out of `MAX_INDEX_READS`; as a fallback after crowd ranking, development
/// split (4-fold CV, fixed fold models) 510 -> 511 correct, wrong 1, at
/// 0.42, 0.4, 0.35 and 0.3 alike (only 2611 changes).
pub const FALLBACK_PAIR_GAP: f32 = 0.4;

/// One ink component, full-resolution pixel coordinates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blob {
    /// Bounding box (inclusive), full resolution.
    pub x0: f32,
    /// Top.
    pub y0: f32,
    /// Right.
    pub x1: f32,
    /// Bottom.
    pub y1: f32,
    /// Pixel count (sampled pixels).
    pub area: u32,
    /// Centroid, full resolution.
    pub c: Point,
    /// Mean `r - max(g, b)`.
    pub red: f32,
    /// Sampling step (1 at full resolution).
    pub step: f32,
}

impl Blob {
    fn w(&self) -> f32 {
        self.x1 - self.x0 + self.step
    }
    fn h(&self) -> f32 {
        self.y1 - self.y0 + self.step
    }
    fn size(&self) -> f32 {
        self.w().max(self.h())
    }
    fn fill(&self) -> f32 {
        self.area as f32 * self.step * self.step / (self.w() * self.h()).max(1.0)
    }
    /// Extent of the glyph along unit direction `d`, from its bounding box
    /// projected on `d`. A glyph `H` tall and `W` wide turned by `t` projects
    /// as `H + W sin 2t`; taking `W ~` [`TURNED_GLYPH_ASPECT`] `H` that growth
    /// is divided out, so that the glyphs of turned cards pair like those of
    /// upright ones (nothing changes for upright or sideways cards).
    fn extent(&self, d: Point) -> f32 {
        let sin2t = 2.0 * (d[0] * d[1]).abs();
        (self.w() * d[0].abs() + self.h() * d[1].abs()) / (1.0 + TURNED_GLYPH_ASPECT * sin2t)
    }
}

/// An index hypothesis: a corner frame (with estimated card width) and the
/// rank glyph centre it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IndexHyp {
    /// Corner frame predicted from the glyph pair.
    pub frame: CornerFrame,
    /// Rank glyph centre (full resolution).
    pub glyph: Point,
    /// Implausibility (lower is better): pair geometry plus
    /// [`CROWD_WEIGHT`] per neighbour in `crowd`.
    pub score: f32,
    /// Pip size / rank size.
    pub size_ratio: f32,
    /// Rank -> pip distance / rank extent along it.
    pub dist_ratio: f32,
    /// Other ink blobs of about the rank glyph's size near it (`crowd`):
    /// letters in a line of text have several, a card index next to none.
    pub crowd: u32,
}

/// Ink components of glyph size; pixels in blocks whose centre lies inside one
/// of `skip` (cards already read) are ignored.
pub fn ink_blobs(rgb: &RgbImage, skip: &[Quad]) -> Vec<Blob> {
    let (fw, fh) = rgb.dimensions();
    if fw < 8 || fh < 8 {
        return Vec::new();
    }
    let px = fw as u64 * fh as u64;
    let mut step = 1usize;
    while px / (step * step) as u64 > FULL_RES_PIXELS {
        step += 1;
    }
    let (gw, gh) = (fw as usize / step, fh as usize / step);
    let raw = rgb.as_raw();
    let fwu = fw as usize;
    // Block maxima from every 4th sample of every 2nd row (cheap, and a 16x16
    // block of paper has plenty of bright samples).
    let (bw, bh) = (gw.div_ceil(BLOCK), gh.div_ceil(BLOCK));
    let mut bmax = vec![0u8; bw * bh];
    for y in (0..gh).step_by(2) {
        let row = &raw[y * step * fwu * 3..(y * step * fwu + fwu) * 3];
        let brow = &mut bmax[(y / BLOCK) * bw..(y / BLOCK + 1) * bw];
        for (bx, m) in brow.iter_mut().enumerate() {
            let mut mm = *m;
            for x in (bx * BLOCK..((bx + 1) * BLOCK).min(gw)).step_by(4) {
                let i = x * step * 3;
                mm = mm.max(row[i].min(row[i + 1]).min(row[i + 2]));
            }
            *m = mm;
        }
    }
    let geo = BlockGrid {
        step,
        gw,
        gh,
        bw,
        bh,
    };
    let paper = block_paper(&bmax, &geo, skip);
    let mut out: Vec<Blob> = Vec::new();
    // Blocks crossed by an oversized component at the previous level: a
    // stricter level can only find new glyphs there, so only they are
    // scanned again.
    let mut rescan = vec![true; bw * bh];
    for (k, level) in BLOB_INK_LEVELS.into_iter().enumerate() {
        let thr = level_thresholds(&paper, &rescan, level);
        let (found, oversized_blocks) = blobs_at_level(rgb, skip, &thr, &geo);
        rescan = oversized_blocks;
        if k == 0 {
            out = found;
            continue;
        }
        // A stricter level adds only glyphs the looser one did not already
        // give (the same glyph shrinks a little at a stricter level).
        add_new_blobs(&mut out, found, |o, b| {
            dist(o.c, b.c) < DUPLICATE_BLOB_DIST * o.size().max(b.size())
                && b.size() > DUPLICATE_BLOB_SIZE * o.size()
        });
    }
    add_faint_red_glyphs(rgb, skip, &paper, &geo, &mut out);
    out
}

/// Faint red indices (pink webcam ink, strokes at 80-90% of the paper
/// level) break into fragments at [`INK_LEVEL`] while their solid pip
/// survives: around every red blob the blocks are scanned again at
/// [`FAINT_RED_INK_LEVEL`], adding the glyphs that are not already there
/// (the fragments stay; the joined glyph pairs with the pip).
fn add_faint_red_glyphs(
    rgb: &RgbImage,
    skip: &[Quad],
    paper: &[u8],
    geo: &BlockGrid,
    out: &mut Vec<Blob>,
) {
    let (bw, bh) = (geo.bw, geo.bh);
    let bpx = (BLOCK * geo.step) as f32;
    let mut mark = vec![false; bw * bh];
    let mut any = false;
    for b in out.iter().filter(|b| b.red >= FAINT_RED_MIN) {
        let r = FAINT_RED_REACH * b.size();
        let (bx0, bx1) = (
            ((b.c[0] - r) / bpx).max(0.0) as usize,
            ((b.c[0] + r) / bpx) as usize,
        );
        let (by0, by1) = (
            ((b.c[1] - r) / bpx).max(0.0) as usize,
            ((b.c[1] + r) / bpx) as usize,
        );
        for by in by0..=by1.min(bh - 1) {
            for bx in bx0..=bx1.min(bw - 1) {
                mark[by * bw + bx] = true;
                any = true;
            }
        }
    }
    if !any {
        return;
    }
    let thr = level_thresholds(paper, &mark, FAINT_RED_INK_LEVEL);
    let (found, _) = blobs_at_level(rgb, skip, &thr, geo);
    // A fainter level grows glyphs: the same glyph is a blob of similar
    // size at the same place; a larger one made of fragments is new.
    add_new_blobs(out, found, |o, b| {
        let (lo, hi) = (o.size().min(b.size()), o.size().max(b.size()));
        dist(o.c, b.c) < DUPLICATE_BLOB_DIST * hi && lo > DUPLICATE_BLOB_SIZE * hi
    });
}

/// Per-block ink thresholds at `level` of the block's paper level, in the
/// blocks `scan` marks (0 elsewhere: nothing there is ink).
fn level_thresholds(paper: &[u8], scan: &[bool], level: f32) -> Vec<u8> {
    paper
        .iter()
        .zip(scan)
        .map(|(&m, &i)| if i { (m as f32 * level) as u8 } else { 0 })
        .collect()
}

/// Appends the blobs of another ink level that `same` does not match with
/// a blob already in `out` (compared with those only, not with each other),
/// up to [`MAX_BLOBS`].
fn add_new_blobs(out: &mut Vec<Blob>, found: Vec<Blob>, same: impl Fn(&Blob, &Blob) -> bool) {
    let first = out.len();
    for b in found {
        let dup = out[..first].iter().any(|o| same(o, &b));
        if !dup && out.len() < MAX_BLOBS {
            out.push(b);
        }
    }
}

/// Sampling geometry of [`ink_blobs`]: step, sampled size, block grid size.
struct BlockGrid {
    step: usize,
    gw: usize,
    gh: usize,
    bw: usize,
    bh: usize,
}

/// Local paper level per block (0 = no ink to look for there): the
/// brightest of the 3x3 neighbouring blocks; blocks darker than [`MIN_PAPER`]
/// or lying inside a card already read (one of `skip`) get 0.
fn block_paper(bmax: &[u8], geo: &BlockGrid, skip: &[Quad]) -> Vec<u8> {
    let BlockGrid { step, bw, bh, .. } = *geo;
    let mut paper = vec![0u8; bw * bh];
    for by in 0..bh {
        for bx in 0..bw {
            let mut m = 0u8;
            for ny in by.saturating_sub(1)..(by + 2).min(bh) {
                for nx in bx.saturating_sub(1)..(bx + 2).min(bw) {
                    m = m.max(bmax[ny * bw + nx]);
                }
            }
            if m < MIN_PAPER {
                continue;
            }
            let (x0, y0) = ((bx * BLOCK * step) as f32, (by * BLOCK * step) as f32);
            let e = (BLOCK * step) as f32;
            let corners = [[x0, y0], [x0 + e, y0], [x0, y0 + e], [x0 + e, y0 + e]];
            if skip.iter().any(|q| corners.iter().all(|&c| q.contains(c))) {
                continue;
            }
            paper[by * bw + bx] = m;
        }
    }
    paper
}

/// Ink components below the per-block thresholds `thr` (0 = skip the block);
/// also returns which blocks an oversized component (larger than a glyph)
/// crossed.
fn blobs_at_level(
    rgb: &RgbImage,
    skip: &[Quad],
    thr: &[u8],
    geo: &BlockGrid,
) -> (Vec<Blob>, Vec<bool>) {
    let BlockGrid {
        step, gw, gh, bw, ..
    } = *geo;
    let (fw, fh) = rgb.dimensions();
    let raw = rgb.as_raw();
    let fwu = fw as usize;
    // Ink runs per row, joined 8-connectedly with union-find over runs.
    let short = fw.min(fh) as f32;
    let max_size = (MAX_GLYPH_SHARE * short).max(MIN_GLYPH_PX as f32 * 2.0);
    let mut runs: Vec<Run> = Vec::new();
    let mut row_start = vec![0usize; gh + 1];
    let mut parent: Vec<u32> = Vec::new();
    for y in 0..gh {
        row_start[y] = runs.len();
        let trow = &thr[(y / BLOCK) * bw..(y / BLOCK + 1) * bw];
        let mut start: Option<usize> = None;
        for (bx, &t) in trow.iter().enumerate() {
            let (xs, xe) = (bx * BLOCK, ((bx + 1) * BLOCK).min(gw));
            if t == 0 {
                if let Some(s0) = start.take() {
                    runs.push(Run {
                        y,
                        x0: s0,
                        x1: xs - 1,
                    });
                }
                continue;
            }
            // The block's sampled pixels as an iterator over the row (at
            // full resolution, most frames, exact 3-byte chunks): no index
            // arithmetic or bounds check per pixel.
            let row = &raw[(y * step * fwu + xs * step) * 3..(y * step * fwu + fwu) * 3];
            let lum = |p: &[u8]| p[0].min(p[1]).min(p[2]);
            if step == 1 {
                let px = row[..(xe - xs) * 3].chunks_exact(3).map(lum);
                push_runs(px, xs, t, y, &mut start, &mut runs);
            } else {
                let px = row.chunks(3 * step).take(xe - xs).map(lum);
                push_runs(px, xs, t, y, &mut start, &mut runs);
            }
        }
        if let Some(s0) = start {
            runs.push(Run {
                y,
                x0: s0,
                x1: gw - 1,
            });
        }
        while parent.len() < runs.len() {
            parent.push(parent.len() as u32);
        }
        row_start[y + 1] = runs.len();
        if y > 0 {
            // Join with overlapping (8-connected) runs of the previous row.
            let (mut j, pe) = (row_start[y - 1], row_start[y]);
            for i in row_start[y]..runs.len() {
                let (a0, a1) = (runs[i].x0, runs[i].x1);
                while j < pe && runs[j].x1 + 1 < a0 {
                    j += 1;
                }
                let mut k = j;
                while k < pe && runs[k].x0 <= a1 + 1 {
                    union_roots(&mut parent, i as u32, k as u32);
                    k += 1;
                }
            }
        }
    }
    struct Acc {
        x0: usize,
        y0: usize,
        x1: usize,
        y1: usize,
        n: u32,
        sx: f32,
        sy: f32,
    }
    let mut accs: Vec<Acc> = Vec::new();
    let mut slot = vec![u32::MAX; runs.len()];
    for (i, run) in runs.iter().enumerate() {
        let r = root_of(&mut parent, i as u32) as usize;
        if slot[r] == u32::MAX {
            slot[r] = accs.len() as u32;
            accs.push(Acc {
                x0: usize::MAX,
                y0: usize::MAX,
                x1: 0,
                y1: 0,
                n: 0,
                sx: 0.0,
                sy: 0.0,
            });
        }
        let a = &mut accs[slot[r] as usize];
        let len = (run.x1 - run.x0 + 1) as u32;
        a.x0 = a.x0.min(run.x0);
        a.x1 = a.x1.max(run.x1);
        a.y0 = a.y0.min(run.y);
        a.y1 = a.y1.max(run.y);
        a.n += len;
        a.sx += (run.x0 + run.x1) as f32 * 0.5 * len as f32;
        a.sy += run.y as f32 * len as f32;
    }
    let s = step as f32;
    let mut keep = vec![u32::MAX; accs.len()];
    let mut oversized = vec![false; accs.len()];
    let mut out = Vec::new();
    for (k, a) in accs.iter().enumerate() {
        let (w, h) = ((a.x1 - a.x0 + 1) as u32, (a.y1 - a.y0 + 1) as u32);
        let size = w.max(h) as f32 * s;
        oversized[k] = size > max_size;
        if w.max(h) < MIN_GLYPH_PX || w.min(h) < 2 || size > max_size || a.n < 8 {
            continue;
        }
        if out.len() >= MAX_BLOBS {
            break;
        }
        let c = [a.sx / a.n as f32 * s + 0.5, a.sy / a.n as f32 * s + 0.5];
        if skip.iter().any(|q| q.contains(c)) {
            continue;
        }
        keep[k] = out.len() as u32;
        out.push(Blob {
            x0: a.x0 as f32 * s,
            y0: a.y0 as f32 * s,
            x1: a.x1 as f32 * s,
            y1: a.y1 as f32 * s,
            area: a.n,
            c,
            red: 0.0,
            step: s,
        });
    }
    // Mean redness of the kept blobs only; blocks crossed by an oversized
    // component are the only ones where a stricter level can find a new
    // glyph (a smaller or thinner component stays too small).
    let mut joined = vec![false; thr.len()];
    for (i, run) in runs.iter().enumerate() {
        let r = root_of(&mut parent, i as u32) as usize;
        if oversized[slot[r] as usize] {
            let row = (run.y / BLOCK) * bw;
            for b in run.x0 / BLOCK..=run.x1 / BLOCK {
                joined[row + b] = true;
            }
        }
        let o = keep[slot[r] as usize];
        if o == u32::MAX {
            continue;
        }
        let row = run.y * step * fw as usize;
        let mut red = 0f32;
        for x in run.x0..=run.x1 {
            let k = (row + x * step) * 3;
            red += raw[k] as f32 - raw[k + 1].max(raw[k + 2]) as f32;
        }
        out[o as usize].red += red;
    }
    for b in &mut out {
        b.red /= b.area.max(1) as f32;
    }
    (out, joined)
}

/// Extends the ink runs of row `y` over sampled pixels `x0..` with minimum
/// channel values `lum`: ink is below `t`; `start` is the open run's start.
fn push_runs(
    lum: impl Iterator<Item = u8>,
    x0: usize,
    t: u8,
    y: usize,
    start: &mut Option<usize>,
    runs: &mut Vec<Run>,
) {
    for (x, l) in (x0..).zip(lum) {
        match (l < t, *start) {
            (true, None) => *start = Some(x),
            (false, Some(s0)) => {
                runs.push(Run {
                    y,
                    x0: s0,
                    x1: x - 1,
                });
                *start = None;
            }
            _ => {}
        }
    }
}

/// A horizontal ink run (sampled px, inclusive).
struct Run {
    y: usize,
    x0: usize,
    x1: usize,
}

/// Root of `i` in the union-find forest `parent` (halving the path on the way).
pub(super) fn root_of(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let p = parent[parent[i as usize] as usize];
        parent[i as usize] = p;
        i = p;
    }
    i
}

/// Joins the sets of `a` and `b`: the lower root becomes the root, which keeps
/// roots stable in raster order and the trees shallow enough.
pub(super) fn union_roots(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (root_of(parent, a), root_of(parent, b));
    if ra != rb {
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[hi as usize] = lo;
    }
}

/// The corner frame whose rank glyph centre is `glyph` (see [`RANK_CENTRE`]).
pub fn frame_at(glyph: Point, r: Point, d: Point, width: f32) -> CornerFrame {
    CornerFrame {
        origin: [
            glyph[0] - width * (RANK_CENTRE.0 * r[0] + RANK_CENTRE.1 * d[0]),
            glyph[1] - width * (RANK_CENTRE.0 * r[1] + RANK_CENTRE.1 * d[1]),
        ],
        r,
        d,
        width,
    }
}

/// Neighbours counted by `crowd` lie within this many rank-glyph sizes of
/// the rank glyph's centre (a line of text has its next letters there; a card
/// index has its pip, excluded, and paper). Must stay within the pairing
/// window of [`index_hypotheses`] (1.5 x the far end of [`PAIR_DIST_RATIO`]).
pub const CROWD_RADIUS: f32 = 2.0;
/// Size window (over the rank glyph's size) of the neighbours counted by
/// `crowd`: glyph-like blobs, not court-picture specks or centre pips.
pub const CROWD_SIZE: (f32, f32) = (0.5, 1.5);
/// Added to a hypothesis' implausibility per neighbour counted by `crowd`,
/// so pairs of letters in text (10-25 neighbours) fall behind pairs with
/// paper around them. `train_IMG_2507`'s Kh (no neighbour) was the 33rd
/// pair, behind a recipe book's letters, past `MAX_INDEX_READS` (20).
/// Development split (4-fold CV, fixed fold models): 508 -> 509 correct,
/// wrong 1, at 0.005-0.2 alike (0.002: 508; 0.5, 1, 5: 509 / 2 wrong).
pub const CROWD_WEIGHT: f32 = 0.05;

/// Blobs among `near` (indices into `blobs`) other than the pair `ab` and
/// the "10" companion whose centre lies within [`CROWD_RADIUS`] rank sizes of
/// the rank glyph `ab[0]` and whose size is within [`CROWD_SIZE`] of it.
fn crowd(blobs: &[Blob], near: &[usize], ab: [usize; 2], companion: Option<usize>) -> u32 {
    let a = &blobs[ab[0]];
    let sa = a.size();
    let r2 = (CROWD_RADIUS * sa) * (CROWD_RADIUS * sa);
    let mut n = 0;
    for &ci in near {
        if ab.contains(&ci) || companion == Some(ci) {
            continue;
        }
        let c = &blobs[ci];
        let (dx, dy) = (c.c[0] - a.c[0], c.c[1] - a.c[1]);
        let sc = c.size();
        if dx * dx + dy * dy < r2 && sc >= CROWD_SIZE.0 * sa && sc <= CROWD_SIZE.1 * sa {
            n += 1;
        }
    }
    n
}

/// The "1" of a "10" among `near` (indices into `blobs`): a blob other than
/// the pair `ab` beside the rank glyph `ab[0]`, across the rank -> pip
/// direction `d`, of about the rank glyph's extent along `d`.
fn ten_companion(blobs: &[Blob], near: &[usize], ab: [usize; 2], d: [f32; 2]) -> Option<usize> {
    let a = &blobs[ab[0]];
    let r = [d[1], -d[0]];
    let ea = a.extent(d);
    near.iter().copied().find(|&ci| {
        if ab.contains(&ci) {
            return false;
        }
        let c = &blobs[ci];
        let w = [c.c[0] - a.c[0], c.c[1] - a.c[1]];
        let along = w[0] * d[0] + w[1] * d[1];
        let across = (w[0] * r[0] + w[1] * r[1]).abs();
        along.abs() < 0.25 * ea
            && across > 0.25 * ea
            && across < 1.1 * ea
            && (c.extent(d) / ea - 1.0).abs() < 0.3
    })
}

/// Pairs rank-glyph candidates with a pip below them; returns at most `max`
/// hypotheses, most plausible first.
pub fn index_hypotheses(blobs: &[Blob], max: usize) -> Vec<IndexHyp> {
    let mut order: Vec<usize> = (0..blobs.len()).collect();
    order.sort_by(|&a, &b| blobs[a].c[0].total_cmp(&blobs[b].c[0]));
    let xs: Vec<f32> = order.iter().map(|&i| blobs[i].c[0]).collect();
    let mut out = Vec::new();
    for &ai in &order {
        // The best pair under the strict gap and under the fallback gap,
        // with the blobs that make it up (its crowd is counted at the end).
        let mut best: Option<(IndexHyp, [usize; 2], Option<usize>)> = None;
        let mut fallback = None;
        let a = &blobs[ai];
        let sa = a.size();
        // Rank glyphs are not much more elongated than 3:1 ("1" is handled
        // as a companion of "0").
        if a.w().max(a.h()) > 3.5 * a.w().min(a.h()) {
            continue;
        }
        let reach = PAIR_DIST_RATIO.1 * sa * 1.5;
        let lo = xs.partition_point(|&x| x < a.c[0] - reach);
        let hi = xs.partition_point(|&x| x <= a.c[0] + reach);
        for &bi in &order[lo..hi] {
            if bi == ai {
                continue;
            }
            let b = &blobs[bi];
            let sb = b.size();
            if sb < PIP_SIZE_RATIO.0 * sa || sb > PIP_SIZE_RATIO.1 * sa {
                continue;
            }
            if (a.red - b.red).abs() > MAX_RED_DIFF || b.fill() < MIN_PIP_FILL {
                continue;
            }
            if b.w().max(b.h()) > 2.5 * b.w().min(b.h()) {
                continue;
            }
            let v = [b.c[0] - a.c[0], b.c[1] - a.c[1]];
            let dd = (v[0] * v[0] + v[1] * v[1]).sqrt();
            if dd < 1e-3 {
                continue;
            }
            let d = [v[0] / dd, v[1] / dd];
            let ext = a.extent(d);
            let ratio = dd / ext.max(1e-3);
            if ratio < PAIR_DIST_RATIO.0 || ratio > PAIR_DIST_RATIO.1 {
                continue;
            }
            let span = ext + b.extent(d);
            if dd < FALLBACK_PAIR_GAP * span {
                continue;
            }
            let tight = dd < MIN_PAIR_GAP * span;
            if tight && best.is_some() {
                continue;
            }
            let score = ratio.ln().abs() + (sb / sa / 0.72).ln().abs();
            // "10": a companion glyph beside the rank (perpendicular to d)
            // moves the rank centre to the middle of the pair.
            let companion = ten_companion(blobs, &order[lo..hi], [ai, bi], d);
            let g = companion.map_or(a.c, |ci| {
                let c = &blobs[ci];
                [(a.c[0] + c.c[0]) / 2.0, (a.c[1] + c.c[1]) / 2.0]
            });
            let v = [b.c[0] - g[0], b.c[1] - g[1]];
            let dd = (v[0] * v[0] + v[1] * v[1]).sqrt().max(1e-3);
            let d = [v[0] / dd, v[1] / dd];
            let r = [d[1], -d[0]];
            let slot = if tight { &mut fallback } else { &mut best };
            if slot.as_ref().is_none_or(|(h, _, _)| score < h.score) {
                let hyp = IndexHyp {
                    frame: frame_at(g, r, d, dd / RANK_TO_PIP),
                    glyph: g,
                    score,
                    size_ratio: sb / sa,
                    dist_ratio: ratio,
                    crowd: 0,
                };
                *slot = Some((hyp, [ai, bi], companion));
            }
        }
        // One pip per rank glyph: the most plausible by its geometry; then
        // ranked among the others with its crowd (counted once, for it).
        out.extend(best.or(fallback).map(|(h, pair, companion)| {
            let crowd = crowd(blobs, &order[lo..hi], pair, companion);
            IndexHyp {
                score: h.score + CROWD_WEIGHT * crowd as f32,
                crowd,
                ..h
            }
        }));
    }
    out.sort_by(|a, b| a.score.total_cmp(&b.score));
    out.truncate(max);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// White card area with a dark "rank" bar above a dark square "pip".
    fn index_image(rotate: bool) -> RgbImage {
        let mut img = RgbImage::from_pixel(200, 200, Rgb([230, 230, 228]));
        let mut put = |x: u32, y: u32| {
            let (x, y) = if rotate { (199 - y, x) } else { (x, y) };
            img.put_pixel(x, y, Rgb([20, 20, 20]));
        };
        // rank: 8 wide, 14 tall ring at (60..68, 50..64)
        for y in 50..64 {
            for x in 60..68 {
                if !(62..66).contains(&x) || !(52..62).contains(&y) {
                    put(x, y);
                }
            }
        }
        // pip: 9x9 solid square at (59..68, 68..77)
        for y in 68..77 {
            for x in 59..68 {
                put(x, y);
            }
        }
        img
    }

    #[test]
    fn finds_glyph_blobs() {
        let blobs = ink_blobs(&index_image(false), &[]);
        assert_eq!(blobs.len(), 2, "{blobs:?}");
        let skip = Quad([[0.0, 0.0], [200.0, 0.0], [200.0, 200.0], [0.0, 200.0]]);
        assert!(ink_blobs(&index_image(false), &[skip]).is_empty());
        assert!(ink_blobs(&RgbImage::new(3, 3), &[]).is_empty());
    }

    #[test]
    fn pair_gives_orientation_and_scale() {
        for rotate in [false, true] {
            let blobs = ink_blobs(&index_image(rotate), &[]);
            let hyps = index_hypotheses(&blobs, 10);
            assert!(!hyps.is_empty());
            let f = hyps[0].frame;
            // Rank above pip: d points from rank to pip.
            let want_d = if rotate { [-1.0, 0.0] } else { [0.0, 1.0] };
            assert!((f.d[0] - want_d[0]).abs() < 0.1 && (f.d[1] - want_d[1]).abs() < 0.1);
            // Centres ~16 px apart -> width ~ 16 / 0.15.
            assert!(
                (f.width - 16.0 / RANK_TO_PIP).abs() < 0.2 * f.width,
                "{f:?}"
            );
            assert!(crate::vision::geometry::cross(f.r, f.d) > 0.0);
        }
    }

    /// A solid blob of `w` x `h` px centred on (`x`, `y`).
    fn blob(x: f32, y: f32, w: f32, h: f32) -> Blob {
        Blob {
            x0: x - w / 2.0,
            y0: y - h / 2.0,
            x1: x + w / 2.0 - 1.0,
            y1: y + h / 2.0 - 1.0,
            area: (w * h) as u32,
            c: [x, y],
            red: 0.0,
            step: 1.0,
        }
    }

    /// A glyph pair among letters of its size falls behind a pair with
    /// paper around it, even when its geometry is the better one.
    #[test]
    fn crowded_pairs_rank_behind_lone_pairs() {
        let mut blobs = vec![
            // Lone index: pip a little small for its rank.
            blob(100.0, 100.0, 10.0, 14.0),
            blob(100.0, 116.0, 9.0, 9.0),
            // The same pair with the ideal pip size, in a line of "text".
            blob(300.0, 100.0, 10.0, 14.0),
            blob(300.0, 116.0, 10.0, 10.0),
        ];
        let alone = index_hypotheses(&blobs, 10);
        assert_eq!(alone.len(), 2);
        assert_eq!(alone[0].glyph, [300.0, 100.0], "better geometry first");
        assert!(alone.iter().all(|h| h.crowd == 0));
        for (x, y) in [(283.0, 100.0), (317.0, 100.0), (300.0, 80.0)] {
            blobs.push(blob(x, y, 10.0, 14.0));
        }
        let hyps = index_hypotheses(&blobs, 10);
        assert_eq!(hyps[0].glyph, [100.0, 100.0], "{hyps:?}");
        assert_eq!(hyps[0].crowd, 0);
        let text = hyps.iter().find(|h| h.glyph == [300.0, 100.0]);
        assert!(text.is_some_and(|h| h.crowd >= 3), "{hyps:?}");
    }

    /// A rank glyph whose only pip lies a little too close for
    /// [`MIN_PAIR_GAP`] still pairs through [`FALLBACK_PAIR_GAP`]; one with a
    /// partner at the strict gap keeps that partner.
    #[test]
    fn close_pip_pairs_only_as_fallback() {
        // Rank 14 tall, pip 10 tall: span 24 px, strict gap 10.8, loose 9.6.
        let rank = blob(100.0, 100.0, 10.0, 14.0);
        let close = blob(100.0, 110.5, 10.0, 10.0);
        let hyps = index_hypotheses(&[rank, close], 10);
        let h = hyps.iter().find(|h| h.glyph == rank.c);
        assert!(
            h.is_some_and(|h| (h.frame.width - 10.5 / RANK_TO_PIP).abs() < 0.5),
            "{hyps:?}"
        );
        // A smaller pip at the strict gap: worse geometry, but preferred.
        let far = blob(100.0, 118.0, 7.0, 7.0);
        let hyps = index_hypotheses(&[rank, close, far], 10);
        let h = hyps.iter().find(|h| h.glyph == rank.c);
        assert!(
            h.is_some_and(|h| (h.frame.width - 18.0 / RANK_TO_PIP).abs() < 0.5),
            "{hyps:?}"
        );
    }

    #[test]
    fn blank_and_dark_frames_give_nothing() {
        let img = RgbImage::from_pixel(100, 80, Rgb([20, 20, 20]));
        assert!(ink_blobs(&img, &[]).is_empty());
        let img = RgbImage::from_pixel(100, 80, Rgb([240, 240, 240]));
        assert!(ink_blobs(&img, &[]).is_empty());
        assert!(index_hypotheses(&[], 5).is_empty());
    }
}
