//! Reading the corner index: sample the corner patch, split rank glyph and suit pip.

use super::find::CornerFrame;
use super::glyphs::{root_of, union_roots};
use super::prep::{SampleRow, inside_for_bilinear, sample_rgb, sample_row_inside};
use image::RgbImage;

/// Patch resolution: pixels per card width (a rank glyph ~0.1 W becomes ~12 px,
/// enough to separate glyph parts; more only costs time).
pub const PATCH_PX_PER_WIDTH: f32 = 120.0;
/// Patch extent along the short side, in card widths (index sits within ~0.17).
pub const PATCH_U: f32 = 0.26;
/// The patch starts this far outside the corner (card widths). Tried 0.03 to
/// keep glyphs near the edge whole: recall fell (table ink merges with them).
pub const PATCH_MARGIN: f32 = 0.0;
/// Patch extent along the long side, in card widths (rank + pip end near ~0.3).
pub const PATCH_V: f32 = 0.5;
/// Ink = darker than this share of the paper level (solid glyphs are < 50% of
/// paper, thin faint red strokes ~65-75%, shading on paper rarely below 80%).
pub const INK_LEVEL: f32 = 0.72;
/// Stricter ink level tried when no pip was found: only the glyph cores remain,
/// which separates an index pip blurred into a neighbouring centre pip.
pub const INK_LEVEL_STRICT: f32 = 0.5;
/// Darkest acceptable paper level (85th percentile of the patch, 0..255):
/// below this the patch is table or shadow, not a card corner.
pub const MIN_PAPER_LEVEL: f32 = 60.0;
/// Largest share of ink in an index corner patch: rank + pip + a bit of a
/// centre pip or court frame stay well under half.
pub const MAX_INK_SHARE: f32 = 0.5;
/// Smallest glyph part in card-width^2 units: a rank glyph is ~0.1 x 0.07 W
/// (~0.004 W^2 of ink at least), the "0" of "10" ~0.0015; specks below are dust.
pub const MIN_PART_AREA: f32 = 0.0006;
/// Smallest rank glyph height, in card widths (Bicycle index ~0.1 W tall).
pub const MIN_RANK_HEIGHT: f32 = 0.045;
/// Largest rank glyph height, in card widths (beyond this it is a court figure / pip).
pub const MAX_RANK_HEIGHT: f32 = 0.2;
/// Scale of [`IndexFeatures::redness`] (redness per unit of ink darkness).
pub const REDNESS_SCALE: f32 = 100.0;
/// Smallest mean ink darkness (0..255) used to normalise redness, so that
/// nearly paper-coloured specks do not get extreme values.
pub const MIN_INK_DARKNESS: f32 = 20.0;
/// Side of the square rank feature image.
pub const RANK_SIDE: usize = 20;
/// Side of the square suit feature image.
pub const SUIT_SIDE: usize = 16;

/// Features of one corner index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexFeatures {
    /// Normalised rank glyph image (`RANK_SIDE^2`, zero mean, unit norm).
    pub rank: Vec<f32>,
    /// Normalised suit pip image (`SUIT_SIDE^2`), if a pip was found below the rank.
    pub suit: Option<Vec<f32>>,
    /// `r - max(g, b)` over the pip's ink (or the rank's without a pip) per
    /// unit of ink darkness (`paper - min(r, g, b)`), times [`REDNESS_SCALE`]:
    /// red ink ~60+ whatever its contrast, black ~0.
    pub redness: f32,
    /// Mean ink darkness relative to paper (0..1); low for faint glyphs.
    pub contrast: f32,
    /// Rank glyph height in card widths (for scale estimation).
    pub rank_height: f32,
    /// Rank glyph bounding-box centre in card widths from the corner (u, v).
    pub rank_centre: [f32; 2],
}

/// One connected ink part of a sampled patch (pixel box, inclusive).
#[derive(Debug, Clone, Copy)]
pub(super) struct Part {
    pub x0: usize,
    pub y0: usize,
    pub x1: usize,
    pub y1: usize,
    pub area: usize,
    /// Whether the part touches the patch border.
    pub touches: bool,
}

impl Part {
    /// A part with no pixels yet.
    const EMPTY: Part = Part {
        x0: usize::MAX,
        y0: usize::MAX,
        x1: 0,
        y1: 0,
        area: 0,
        touches: false,
    };

    /// Adds pixel (`x`, `y`) of a `w` x `h` patch.
    fn add(&mut self, x: usize, y: usize, w: usize, h: usize) {
        self.x0 = self.x0.min(x);
        self.x1 = self.x1.max(x);
        self.y0 = self.y0.min(y);
        self.y1 = self.y1.max(y);
        self.area += 1;
        if x == 0 || y == 0 || x + 1 == w || y + 1 == h {
            self.touches = true;
        }
    }

    pub fn h(&self) -> usize {
        self.y1 - self.y0 + 1
    }
    pub fn w(&self) -> usize {
        self.x1 - self.x0 + 1
    }
}

/// Samples the corner patch and extracts rank / suit features; `None` when no
/// plausible glyph is there.
pub fn read_corner(img: &RgbImage, f: &CornerFrame) -> Option<IndexFeatures> {
    read_corner_with(
        img,
        f,
        MIN_RANK_HEIGHT,
        MAX_RANK_HEIGHT,
        &[INK_LEVEL, INK_LEVEL_STRICT],
    )
}

/// [`read_corner`] at the strict ink level only: a second opinion when the
/// normal split merges the rank glyph with a neighbour (court frame, blur).
pub fn read_corner_strict(img: &RgbImage, f: &CornerFrame) -> Option<IndexFeatures> {
    read_corner_with(
        img,
        f,
        MIN_RANK_HEIGHT,
        MAX_RANK_HEIGHT,
        &[INK_LEVEL_STRICT],
    )
}

/// [`read_corner`] with an explicit rank-height window (card widths); a wide
/// window serves to locate the glyph when the card scale is only guessed.
/// The patch is split at each ink level of `levels` in turn until one finds a
/// pip under the rank (keeping the first level's rank glyph if the later one
/// broke it apart, see [`RANK_BROKEN_RATIO`]); otherwise the first level's
/// result is returned.
pub fn read_corner_with(
    img: &RgbImage,
    f: &CornerFrame,
    min_rank_height: f32,
    max_rank_height: f32,
    levels: &[f32],
) -> Option<IndexFeatures> {
    sample_patch(img, f)?.read(min_rank_height, max_rank_height, levels)
}

/// A corner patch sampled in card coordinates, kept so that several ink
/// levels can be tried on it without sampling the photo again (the sampling
/// costs as much as a split).
pub struct Patch {
    pw: usize,
    ph: usize,
    rgb: Vec<[f32; 3]>,
    lum: Vec<f32>,
    paper: f32,
    /// The pre-check grid holds [`MAX_INK_SHARE`] or more of ink: only a
    /// looser `sample_patch_with` accepts the patch.
    crowded: bool,
}

/// Samples the corner patch of `f`; `None` when it cannot hold an index (bad
/// width, too much ink, too dark): then no ink level can read it.
pub fn sample_patch(img: &RgbImage, f: &CornerFrame) -> Option<Patch> {
    sample_patch_with(img, f, MAX_INK_SHARE)
}

/// As [`sample_patch`], refusing patches whose sparse pre-check grid holds
/// `max_ink_share` or more of ink; a patch past [`MAX_INK_SHARE`] is marked
/// [`Patch::crowded`].
pub fn sample_patch_with(img: &RgbImage, f: &CornerFrame, max_ink_share: f32) -> Option<Patch> {
    if !(f.width.is_finite() && f.width > 4.0) {
        return None;
    }
    let ink = precheck_ink(img, f)?;
    if !ink.below(max_ink_share) {
        return None;
    }
    let crowded = !ink.below(MAX_INK_SHARE);
    let pw = (PATCH_U * PATCH_PX_PER_WIDTH) as usize;
    let ph = (PATCH_V * PATCH_PX_PER_WIDTH) as usize;
    let at = |x: usize, y: usize| {
        f.at(
            (x as f32 + 0.5) / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
            (y as f32 + 0.5) / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
        )
    };
    // Most patches lie well inside the frame: sample them without clamping.
    let inside = inside_for_bilinear(
        img,
        &[at(0, 0), at(pw - 1, 0), at(0, ph - 1), at(pw - 1, ph - 1)],
    );
    let mut rgb = Vec::with_capacity(pw * ph);
    let mut lum = Vec::with_capacity(pw * ph);
    // `f.at(u, v)` is `origin + width * (u * r + v * d)`: the `u` and `v`
    // products are taken once per column and row, and each point adds them
    // in the same order, so every point has the same bits as `at(x, y)`.
    let coord = |i: usize| (i as f32 + 0.5) / PATCH_PX_PER_WIDTH - PATCH_MARGIN;
    let ux: Vec<f32> = (0..pw).map(|x| coord(x) * f.r[0]).collect();
    let uy: Vec<f32> = (0..pw).map(|x| coord(x) * f.r[1]).collect();
    for y in 0..ph {
        let v = coord(y);
        let points = SampleRow {
            origin: f.origin,
            width: f.width,
            ux: &ux,
            uy: &uy,
            v: [v * f.d[0], v * f.d[1]],
        };
        // Whole rows at a time (exact-size extends, no capacity check per
        // sample).
        let row = rgb.len();
        if inside {
            sample_row_inside(img, &points, &mut rgb);
            lum.extend(rgb[row..].iter().map(|&c| min3_finite(c)));
        } else {
            rgb.extend((0..points.len()).map(|k| {
                let [x, y] = points.point(k);
                sample_rgb(img, x, y)
            }));
            lum.extend(rgb[row..].iter().map(|c| c[0].min(c[1]).min(c[2])));
        }
    }
    // Paper level: 85th percentile of the patch.
    let mut hist = [0u32; 256];
    for &v in &lum {
        hist[(v as usize).min(255)] += 1;
    }
    let target = (lum.len() * 85) / 100;
    let mut acc = 0usize;
    let mut paper = 255.0f32;
    for (i, &c) in hist.iter().enumerate() {
        acc += c as usize;
        if acc > target {
            paper = i as f32 + 0.5;
            break;
        }
    }
    if paper < MIN_PAPER_LEVEL {
        return None;
    }
    Some(Patch {
        pw,
        ph,
        rgb,
        lum,
        paper,
        crowded,
    })
}

/// Smallest channel of a sample with finite, non-negative channels (what
/// `f32::min` gives there, without its NaN handling).
#[inline]
fn min3_finite(c: [f32; 3]) -> f32 {
    let m = if c[1] < c[0] { c[1] } else { c[0] };
    if c[2] < m { c[2] } else { m }
}

/// A rank glyph found at a later (stricter) ink level this much smaller than
/// at the first level has broken apart: the first level's rank is kept with
/// the later level's pip (small blurred cards, whose pip only separates from
/// the rank at the strict level; 4-fold cross-validation on edje train_*:
/// one more correct read, none wrong; taking the first rank always also gave
/// a wrong read).
pub const RANK_BROKEN_RATIO: f32 = 0.8;

/// The features to return when the first ink level found no pip and a later
/// one did (`later`): see [`RANK_BROKEN_RATIO`].
fn rank_with_later_pip(first: IndexFeatures, later: IndexFeatures) -> IndexFeatures {
    if later.rank_height < RANK_BROKEN_RATIO * first.rank_height {
        IndexFeatures {
            suit: later.suit,
            redness: later.redness,
            ..first
        }
    } else {
        later
    }
}

impl Patch {
    /// Whether only a looser ink share than [`MAX_INK_SHARE`] accepted
    /// this patch (a court picture filling an off-corner frame, say).
    pub fn crowded(&self) -> bool {
        self.crowded
    }

    /// As [`read_corner_with`] on this patch.
    pub fn read(
        &self,
        min_rank_height: f32,
        max_rank_height: f32,
        levels: &[f32],
    ) -> Option<IndexFeatures> {
        self.read_split(min_rank_height, max_rank_height, levels, 0)
    }

    /// As [`Self::read`]; when `split_radius` is not 0, a level that finds a
    /// rank glyph but no pip under it looks for the pip inside a larger ink
    /// part below the rank (see `split_pip`).
    pub fn read_split(
        &self,
        min_rank_height: f32,
        max_rank_height: f32,
        levels: &[f32],
        split_radius: usize,
    ) -> Option<IndexFeatures> {
        let mut first = None;
        for (k, &level) in levels.iter().enumerate() {
            let r = analyse(
                &self.lum,
                &self.rgb,
                self.geometry(
                    level,
                    (min_rank_height, max_rank_height),
                    split_radius,
                    None,
                ),
            );
            if r.as_ref().is_some_and(|f| f.suit.is_some()) {
                return match (first, r) {
                    (Some(a), Some(b)) => Some(rank_with_later_pip(a, b)),
                    (_, r) => r,
                };
            }
            if k == 0 {
                first = r;
            }
        }
        first
    }

    /// The read at `level`, with the suit pip looked for at `pip_level`
    /// when `level` finds none under the rank glyph (a pale glyph whole only
    /// at a faint level, where its pip joins a neighbour or the patch
    /// border); the flag says whether the pip came from `pip_level`.
    pub fn read_with_pip_level(
        &self,
        min_rank_height: f32,
        max_rank_height: f32,
        level: f32,
        pip_level: f32,
    ) -> Option<(IndexFeatures, bool)> {
        analyse_split(
            &self.lum,
            &self.rgb,
            self.geometry(
                level,
                (min_rank_height, max_rank_height),
                0,
                Some(pip_level),
            ),
        )
    }

    /// This patch's [`Geometry`] for a split at `level` with rank glyph
    /// heights in `rank_heights` (min, max).
    fn geometry(
        &self,
        level: f32,
        rank_heights: (f32, f32),
        split_radius: usize,
        pip_level: Option<f32>,
    ) -> Geometry {
        Geometry {
            pw: self.pw,
            ph: self.ph,
            paper: self.paper,
            level,
            min_rank_height: rank_heights.0,
            max_rank_height: rank_heights.1,
            split_radius,
            pip_level,
        }
    }
}

/// Paper level of sampled card luminances: their 85th percentile (paper is
/// most of a card, ink a small share); reorders `lum` (a selection, not a
/// full sort: the same value). `None` when empty.
pub(super) fn paper_level(lum: &mut [f32]) -> Option<f32> {
    let k = lum.len() * 85 / 100;
    if k >= lum.len() {
        return None;
    }
    Some(*lum.select_nth_unstable_by(k, |a, b| a.total_cmp(b)).1)
}

/// Ink found by [`precheck_ink`]: `ink` of `n` grid samples.
struct PrecheckInk {
    ink: usize,
    n: usize,
}

impl PrecheckInk {
    /// Less than `share` of the samples are ink.
    fn below(&self, share: f32) -> bool {
        (self.ink as f32) < share * self.n as f32
    }
}

/// Cheap pre-check on a sparse grid: an index corner is bright paper
/// (`None` when it is too dark), with how much ink on it.
fn precheck_ink(img: &RgbImage, f: &CornerFrame) -> Option<PrecheckInk> {
    const NU: usize = 6;
    const NV: usize = 10;
    let mut lum = [0f32; NU * NV];
    for j in 0..NV {
        for i in 0..NU {
            let p = f.at(
                PATCH_U * (i as f32 + 0.5) / NU as f32 - PATCH_MARGIN,
                PATCH_V * (j as f32 + 0.5) / NV as f32 - PATCH_MARGIN,
            );
            let c = sample_rgb(img, p[0], p[1]);
            lum[j * NU + i] = c[0].min(c[1]).min(c[2]);
        }
    }
    let paper = paper_level(&mut lum).unwrap_or(0.0);
    if paper < MIN_PAPER_LEVEL {
        return None;
    }
    let ink = lum.iter().filter(|&&v| v < paper * INK_LEVEL).count();
    Some(PrecheckInk { ink, n: lum.len() })
}

/// How [`analyse`] splits a patch: its size and paper level, the ink level,
/// the rank-height window (card widths) and the pip-split radius (0: none).
struct Geometry {
    pw: usize,
    ph: usize,
    paper: f32,
    level: f32,
    min_rank_height: f32,
    max_rank_height: f32,
    split_radius: usize,
    pip_level: Option<f32>,
}

/// Splits the patch into glyph parts at ink level `level` and builds features.
fn analyse(lum: &[f32], rgb: &[[f32; 3]], g: Geometry) -> Option<IndexFeatures> {
    analyse_split(lum, rgb, g).map(|(x, _)| x)
}

/// Ink parts of the patch at `level` (components of the pixels darker than
/// `level` x paper), with the indices of the parts large enough to be glyph
/// parts and off the patch border, top-most first.
fn split_at(lum: &[f32], pw: usize, ph: usize, thr: f32) -> (Vec<usize>, Vec<Part>, Vec<usize>) {
    let ink: Vec<bool> = lum.iter().map(|&v| v < thr).collect();
    let (labels, parts) = components(&ink, pw, ph);
    let mut order: Vec<usize> = (0..parts.len())
        .filter(|&i| {
            !parts[i].touches
                && parts[i].area as f32 >= MIN_PART_AREA * PATCH_PX_PER_WIDTH * PATCH_PX_PER_WIDTH
        })
        .collect();
    order.sort_by_key(|&i| parts[i].y0);
    (labels, parts, order)
}

/// [`analyse`], with the suit pip looked for at `pip_level` (when given)
/// if `level` finds none under the rank glyph; the flag says whether it was.
fn analyse_split(lum: &[f32], rgb: &[[f32; 3]], g: Geometry) -> Option<(IndexFeatures, bool)> {
    let Geometry {
        pw,
        ph,
        paper,
        level,
        min_rank_height,
        max_rank_height,
        split_radius,
        pip_level,
    } = g;
    let (mut labels, mut parts, order) = split_at(lum, pw, ph, paper * level);
    let min_h = ((min_rank_height * PATCH_PX_PER_WIDTH) as usize).max(4);
    let max_h = (max_rank_height * PATCH_PX_PER_WIDTH) as usize;
    // Rank: the top-most part of plausible height.
    // Rank: of the parts of plausible height, the one nearest the corner.
    let first = *order
        .iter()
        .filter(|&&i| parts[i].h() >= min_h && parts[i].h() <= max_h)
        .min_by_key(|&&i| parts[i].x0 + parts[i].y0)?;
    let a = parts[first];
    let mut group = vec![first];
    let mut rb = a;
    for &i in &order {
        if i == first {
            continue;
        }
        let p = parts[i];
        let ov = (rb.y1.min(p.y1) as i64 - rb.y0.max(p.y0) as i64 + 1).max(0) as usize;
        let gap = if p.x0 > rb.x1 {
            p.x0 - rb.x1
        } else {
            rb.x0.saturating_sub(p.x1)
        };
        if ov * 2 >= p.h().min(a.h()) && gap * 2 <= a.h() && p.h() * 3 >= a.h() {
            group.push(i);
            rb.x0 = rb.x0.min(p.x0);
            rb.x1 = rb.x1.max(p.x1);
            rb.y0 = rb.y0.min(p.y0);
            rb.y1 = rb.y1.max(p.y1);
        }
    }
    if rb.w() > rb.h() * 2 {
        return None;
    }
    // Suit: largest part starting below the rank, overlapping it horizontally;
    // failing that, split off a joined centre pip (`split_radius`), or look at
    // `pip_level` (where given).
    let mut suit = pick_suit(&parts, &order, &group, &rb);
    if suit.is_none() && split_radius > 0 {
        suit = split_pip(&mut labels, &mut parts, pw, &group, &rb, split_radius);
    }
    let pip_split = match (suit, pip_level) {
        (None, Some(l)) => {
            let (l2, p2, o2) = split_at(lum, pw, ph, paper * l);
            suit = pick_suit(&p2, &o2, &[], &rb);
            suit.map(|_| (l2, p2))
        }
        _ => None,
    };
    let (pip_labels, pip_parts) = match &pip_split {
        Some((l2, p2)) => (l2, p2),
        None => (&labels, &parts),
    };
    let darkness = |v: f32| ((paper - v) / paper).clamp(0.0, 1.0);
    let rank_feat = glyph_feature(lum, &labels, &group, pw, &rb, RANK_SIDE, &darkness);
    let suit_feat = suit.map(|s| {
        let p = pip_parts[s];
        glyph_feature(lum, pip_labels, &[s], pw, &p, SUIT_SIDE, &darkness)
    });
    // Contrast over the ink of rank + suit; colour from the pip when there is
    // one (solid, so its hue is reliable; some rank glyphs are thin and dull).
    let (mut red, mut con, mut n) = (0f32, 0f32, 0f32);
    let (mut pip_red, mut pip_n) = (0f32, 0f32);
    let (mut dark, mut pip_dark) = (0f32, 0f32);
    for (i, &l) in labels.iter().enumerate() {
        let in_pip = pip_labels[i] != usize::MAX && Some(pip_labels[i]) == suit;
        if l == usize::MAX && !in_pip {
            continue;
        }
        if group.contains(&l) || in_pip {
            let c = rgb[i];
            let r = c[0] - c[1].max(c[2]);
            red += r;
            con += darkness(lum[i]);
            dark += paper - lum[i];
            n += 1.0;
            if in_pip {
                pip_red += r;
                pip_dark += paper - lum[i];
                pip_n += 1.0;
            }
        }
    }
    if n == 0.0 {
        return None;
    }
    // Redness relative to how dark the ink is: a pale or blurred red pip is
    // as red for its darkness as a crisp one, black ink stays near 0.
    let red = if pip_n > 0.0 {
        REDNESS_SCALE * pip_red / pip_dark.max(MIN_INK_DARKNESS * pip_n)
    } else {
        REDNESS_SCALE * red / dark.max(MIN_INK_DARKNESS * n)
    };
    let feat = IndexFeatures {
        rank: rank_feat,
        suit: suit_feat,
        redness: red,
        contrast: con / n,
        rank_height: rb.h() as f32 / PATCH_PX_PER_WIDTH,
        rank_centre: [
            (rb.x0 + rb.x1 + 1) as f32 / 2.0 / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
            (rb.y0 + rb.y1 + 1) as f32 / 2.0 / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
        ],
    };
    Some((feat, pip_split.is_some()))
}

/// Whether part `p` can be the suit pip under the rank glyph box `rb`: it
/// starts below the rank (within one rank height), overlaps it
/// horizontally, and is between a third and twice the rank's height.
fn pip_under(p: &Part, rb: &Part) -> bool {
    if p.y0 + 2 < rb.y1 || p.y0 > rb.y1 + rb.h() {
        return false;
    }
    let hov = (rb.x1.min(p.x1) as i64 - rb.x0.max(p.x0) as i64 + 1).max(0) as usize;
    hov * 2 >= p.w().min(rb.w()) && p.h() * 3 >= rb.h() && p.h() <= rb.h() * 2
}

/// The largest part of `order` (not of the rank `group`) that is a pip
/// under the rank box `rb` ([`pip_under`]).
fn pick_suit(parts: &[Part], order: &[usize], group: &[usize], rb: &Part) -> Option<usize> {
    let mut suit: Option<usize> = None;
    for &i in order {
        let p = parts[i];
        if group.contains(&i) || !pip_under(&p, rb) {
            continue;
        }
        if suit.is_none_or(|s| parts[s].area < p.area) {
            suit = Some(i);
        }
    }
    suit
}

/// The index pip of a small blurred card can join the neighbouring centre
/// pip (or reach the patch border with it) at the level where its rank
/// glyph is whole, so no part is a pip under the rank. Each larger part
/// below the rank that overlaps it horizontally is opened (eroded, then
/// grown back, by a square of `radius`): a neck thinner than `2 radius + 1`
/// px breaks, and a piece that is a pip under the rank ([`pip_under`], not
/// touching the border) becomes a new part, relabelled in `labels`. Returns
/// the largest such piece.
fn split_pip(
    labels: &mut [usize],
    parts: &mut Vec<Part>,
    pw: usize,
    group: &[usize],
    rb: &Part,
    radius: usize,
) -> Option<usize> {
    let ph = labels.len() / pw.max(1);
    let mut best: Option<usize> = None;
    for i in 0..parts.len() {
        let p = parts[i];
        if group.contains(&i) || p.y1 <= rb.y1 || p.y0 > rb.y1 + rb.h() {
            continue;
        }
        let hov = (rb.x1.min(p.x1) as i64 - rb.x0.max(p.x0) as i64 + 1).max(0);
        if hov == 0 || (!p.touches && pip_under(&p, rb)) {
            continue;
        }
        let (bw, bh) = (p.w(), p.h());
        let inside = |x: usize, y: usize| labels[(p.y0 + y) * pw + p.x0 + x] == i;
        let mask: Vec<bool> = (0..bw * bh).map(|k| inside(k % bw, k / bw)).collect();
        let pieces = split_at_necks(&mask, bw, bh, radius);
        let n = pieces.iter().copied().max().unwrap_or(0) as usize;
        let mut subs = vec![Part::EMPTY; n];
        for (j, &c) in pieces.iter().enumerate() {
            if c != 0 {
                subs[c as usize - 1].add(j % bw, j / bw, bw, bh);
            }
        }
        for (k, sp) in subs.iter().enumerate() {
            if sp.area == 0 {
                continue;
            }
            let piece = Part {
                x0: p.x0 + sp.x0,
                y0: p.y0 + sp.y0,
                x1: p.x0 + sp.x1,
                y1: p.y0 + sp.y1,
                area: sp.area,
                touches: p.x0 + sp.x0 == 0
                    || p.y0 + sp.y0 == 0
                    || p.x0 + sp.x1 + 1 == pw
                    || p.y0 + sp.y1 + 1 == ph,
            };
            let min_area = MIN_PART_AREA * PATCH_PX_PER_WIDTH * PATCH_PX_PER_WIDTH;
            if piece.touches || (piece.area as f32) < min_area || !pip_under(&piece, rb) {
                continue;
            }
            if best.is_some_and(|b| parts[b].area >= piece.area) {
                continue;
            }
            let id = parts.len();
            for (j, _) in pieces
                .iter()
                .enumerate()
                .filter(|(_, c)| **c as usize == k + 1)
            {
                labels[(p.y0 + j / bw) * pw + p.x0 + j % bw] = id;
            }
            parts.push(piece);
            best = Some(id);
        }
    }
    best
}

/// Splits the `w` x `h` mask at its necks: the mask is eroded by a
/// `(2 radius + 1)`-square, each 8-connected piece of what is left is a
/// core, and every mask pixel joins the core it is reached from first when
/// all cores grow together inside the mask (8-connected steps; ties go to
/// the lower core). Returns per pixel `core + 1`, or 0 (off the mask or not
/// reached). Unlike an opening, each piece keeps its own outline; a neck is
/// shared out between the pieces it joined.
fn split_at_necks(mask: &[bool], w: usize, h: usize, radius: usize) -> Vec<u32> {
    let r = radius;
    let mut eroded = vec![false; w * h];
    for y in r..h.saturating_sub(r) {
        for x in r..w.saturating_sub(r) {
            eroded[y * w + x] =
                (y - r..=y + r).all(|yy| (x - r..=x + r).all(|xx| mask[yy * w + xx]));
        }
    }
    let (core_labels, _) = components(&eroded, w, h);
    let mut out: Vec<u32> = core_labels
        .iter()
        .map(|&l| if l == usize::MAX { 0 } else { l as u32 + 1 })
        .collect();
    let mut front: Vec<usize> = (0..w * h).filter(|&i| out[i] != 0).collect();
    while !front.is_empty() {
        let mut next = Vec::new();
        let mut claims: Vec<(usize, u32)> = Vec::new();
        for &i in &front {
            let (x, y) = (i % w, i / w);
            for ny in y.saturating_sub(1)..(y + 2).min(h) {
                for nx in x.saturating_sub(1)..(x + 2).min(w) {
                    let j = ny * w + nx;
                    if mask[j] && out[j] == 0 {
                        claims.push((j, out[i]));
                    }
                }
            }
        }
        // Every pixel reached in this step goes to the lowest core reaching it.
        claims.sort_unstable();
        for (j, c) in claims {
            if out[j] == 0 {
                out[j] = c;
                next.push(j);
            }
        }
        front = next;
    }
    out
}

/// Crops the bbox of the given parts into a centred square and resamples it.
pub(super) fn glyph_feature(
    lum: &[f32],
    labels: &[usize],
    parts: &[usize],
    pw: usize,
    bb: &Part,
    side: usize,
    darkness: &impl Fn(f32) -> f32,
) -> Vec<f32> {
    // Stretch the bbox to the square: tolerant of perspective foreshortening.
    let (sw, sh) = (bb.w() as f32, bb.h() as f32);
    let cx = (bb.x0 + bb.x1 + 1) as f32 / 2.0;
    let cy = (bb.y0 + bb.y1 + 1) as f32 / 2.0;
    let mut out = vec![0f32; side * side];
    let (stepx, stepy) = (sw / side as f32, sh / side as f32);
    let sub = 2usize;
    // Sample columns (rows) depend on the output column (row) and sub-sample
    // only: computed once each, with the same arithmetic as per sample.
    let xs = sample_coords(cx - sw / 2.0, stepx, side, sub, bb.x0, bb.x1);
    let ys = sample_coords(cy - sh / 2.0, stepy, side, sub, bb.y0, bb.y1);
    // Each pixel of the box is sampled about three times: its darkness is
    // taken once. Only ink belonging to the chosen parts (and its
    // anti-aliased rim) counts; the others add 0, which leaves every sum
    // as it was when they were skipped (the darkness is never negative).
    let bw = bb.x1 + 1 - bb.x0;
    let mut vals = Vec::with_capacity(bw * (bb.y1 + 1 - bb.y0));
    for y in bb.y0..=bb.y1 {
        let row = y * pw + bb.x0..y * pw + bb.x1 + 1;
        vals.extend(labels[row.clone()].iter().zip(&lum[row]).map(|(&l, &v)| {
            if l == usize::MAX || parts.contains(&l) {
                darkness(v)
            } else {
                0.0
            }
        }));
    }
    for (oy, out_row) in out.chunks_exact_mut(side).enumerate() {
        for (ox, o) in out_row.iter_mut().enumerate() {
            let mut acc = 0.0;
            for yi in &ys[oy * sub..(oy + 1) * sub] {
                for xi in &xs[ox * sub..(ox + 1) * sub] {
                    let (Some(yi), Some(xi)) = (yi, xi) else {
                        continue;
                    };
                    acc += vals[(yi - bb.y0) * bw + (xi - bb.x0)];
                }
            }
            *o = acc / (sub * sub) as f32;
        }
    }
    normalise(&mut out);
    out
}

/// Patch pixel index of each sample position along one axis of
/// [`glyph_feature`] (`side` cells of `sub` samples, `step` px per cell from
/// `start`); `None` outside `lo..=hi`.
fn sample_coords(
    start: f32,
    step: f32,
    side: usize,
    sub: usize,
    lo: usize,
    hi: usize,
) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(side * sub);
    for o in 0..side {
        for s in 0..sub {
            let x = start + (o as f32 + (s as f32 + 0.5) / sub as f32) * step;
            out.push((x >= lo as f32 && x as usize <= hi).then_some(x as usize));
        }
    }
    out
}

/// Zero mean, unit L2 norm (left at zero if flat).
pub fn normalise(v: &mut [f32]) {
    let n = v.len().max(1) as f32;
    let m = v.iter().sum::<f32>() / n;
    for x in v.iter_mut() {
        *x -= m;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 1e-6 {
        for x in v.iter_mut() {
            *x /= norm;
        }
    }
}

/// 8-connected components of `ink`; labels `usize::MAX` = background.
/// Components are numbered in the raster order of their first pixel (the
/// order a flood fill from each unlabelled pixel in turn gives). Two passes
/// over the patch: provisional labels joined with union-find, then final
/// numbers and part boxes (a flood fill cost ~5x more per ink pixel).
pub(super) fn components(ink: &[bool], w: usize, h: usize) -> (Vec<usize>, Vec<Part>) {
    let mut labels = vec![usize::MAX; w * h];
    if w == 0 || ink.len() < w * h {
        return (labels, Vec::new());
    }
    // Pass 1: horizontal ink runs, row by row; a run joins every run of the
    // row above that it touches (8-connected: overlapping, or diagonal at an
    // end), and takes the first one's provisional label.
    let mut parent: Vec<u32> = Vec::new();
    // (row, first x, last x, provisional label), in raster order.
    let mut runs: Vec<(usize, usize, usize, u32)> = Vec::new();
    let mut above = 0..0;
    for (y, row) in ink.chunks_exact(w).take(h).enumerate() {
        let here = runs.len();
        let mut x = 0;
        // Runs of the row above that end before this run's reach are
        // passed once: both rows' runs are in x order.
        let mut k = above.start;
        while x < w {
            if !row[x] {
                x += 1;
                continue;
            }
            let x0 = x;
            while x < w && row[x] {
                x += 1;
            }
            let x1 = x - 1;
            let mut label = u32::MAX;
            while k < above.end && runs[k].2 + 1 < x0 {
                k += 1;
            }
            let mut j = k;
            while j < above.end && runs[j].1 <= x1 + 1 {
                let l = runs[j].3;
                if label == u32::MAX {
                    label = l;
                } else {
                    union_roots(&mut parent, label, l);
                }
                j += 1;
            }
            if label == u32::MAX {
                parent.push(parent.len() as u32);
                label = parent.len() as u32 - 1;
            }
            runs.push((y, x0, x1, label));
        }
        above = here..runs.len();
    }
    // Pass 2: final numbers in first-pixel raster order (a part's first
    // pixel starts its first run), and the part boxes.
    let mut number = vec![usize::MAX; parent.len()];
    let mut parts: Vec<Part> = Vec::new();
    for &(y, x0, x1, p) in &runs {
        let root = root_of(&mut parent, p) as usize;
        if number[root] == usize::MAX {
            number[root] = parts.len();
            parts.push(Part::EMPTY);
        }
        let id = number[root];
        labels[y * w + x0..=y * w + x1].fill(id);
        let part = &mut parts[id];
        part.x0 = part.x0.min(x0);
        part.x1 = part.x1.max(x1);
        part.y0 = part.y0.min(y);
        part.y1 = part.y1.max(y);
        part.area += x1 - x0 + 1;
        if x0 == 0 || y == 0 || x1 + 1 == w || y + 1 == h {
            part.touches = true;
        }
    }
    (labels, parts)
}

/// The sampled corner patch (debugging aid).
pub fn corner_patch(img: &RgbImage, f: &CornerFrame) -> RgbImage {
    let pw = (PATCH_U * PATCH_PX_PER_WIDTH) as u32;
    let ph = (PATCH_V * PATCH_PX_PER_WIDTH) as u32;
    RgbImage::from_fn(pw, ph, |x, y| {
        let p = f.at(
            (x as f32 + 0.5) / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
            (y as f32 + 0.5) / PATCH_PX_PER_WIDTH - PATCH_MARGIN,
        );
        let c = sample_rgb(img, p[0], p[1]);
        image::Rgb([c[0] as u8, c[1] as u8, c[2] as u8])
    })
}

#[cfg(test)]
mod tests;
