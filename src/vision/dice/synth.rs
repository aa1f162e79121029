//! Synthetic dice for fitting the face classifier: a d6 of random colours
//! drawn onto a patch of a real table photo, at a random angle, with the
//! side faces a camera sees when the die is off the optical axis.
//!
//! Why: the photo set holds a few dozen dice designs, so the classifier
//! ties pip counts to the colours it has seen (a blue die with red pips, a
//! red die with white pips and dark marbled dice read wrong on the held-out
//! part). Drawn dice take any face and pip colour, marbling, glare, pip
//! size and spacing, and side faces whose foreshortened pips must be
//! ignored, so what decides the value is the top face's pip layout.
//!
//! Used by `fit-dice --synthetic N`; the built-in model is fitted with 8000
//! per epoch since round s24 (`docs/models.md`, "Synthetic dice of any
//! colour"), drawn by [`SynthStyle::V1`]. `--synthetic-style 2` draws with
//! [`SynthStyle::V2`] (round s25).

use super::fit::LabelledDie;
use super::mlp::XorShift;
use crate::vision::geometry::dist;
use image::RgbImage;

/// Range of the drawn top face's side (px); the photo set's die boxes span
/// 21-69 px.
const FACE_SIDE: (f32, f32) = (20.0, 58.0);
/// Canvas side as a multiple of the face side: the widest crop (1.15 face
/// sides, rotated, plus size and centre jitter) stays inside.
const CANVAS_FACTOR: f32 = 2.8;
/// Probability that side faces show (the die is off the optical axis).
const SIDE_PROB: f32 = 0.6;
/// Range of the side band's depth as a share of the face side.
const SIDE_DEPTH: (f32, f32) = (0.05, 0.35);
/// Pip centre offset from the face centre (share of the face side) for the
/// corner and edge pips.
const PIP_OFFSET: (f32, f32) = (0.23, 0.3);
/// Pip radius range (share of the face side).
const PIP_RADIUS: (f32, f32) = (0.065, 0.11);
/// Probability that a drawn 1 has a large single pip (many dice makers
/// enlarge or decorate the 1).
const BIG_ONE_PROB: f32 = 0.3;
/// Probability of a marbled (two-colour swirl) face.
const MARBLE_PROB: f32 = 0.3;
/// Probability of a specular highlight on the top face.
const GLARE_PROB: f32 = 0.3;
/// Style 2: probability of a long, curved specular streak across the top
/// face (glossy dice under a strip light; the streak runs over the pips).
const STREAK_PROB: f32 = 0.35;
/// Style 2: probability of a translucent body, whose opposite face's pips
/// show faintly through the top face.
const GHOST_PROB: f32 = 0.25;
/// Style 2: range of the side band's depth (deeper than style 1: dice near
/// the frame's edge under a wide-angle lens).
const SIDE_DEPTH_2: (f32, f32) = (0.05, 0.5);
/// Style 2: probability of pips that stand out only a little from the face
/// (dark dice with dark red pips).
const LOW_CONTRAST_PROB: f32 = 0.25;
/// Colour distance (RGB units) a pip keeps from its face: normally, and for
/// style 2's low-contrast dice.
const PIP_CONTRAST: f32 = 110.0;
/// See [`PIP_CONTRAST`].
const PIP_CONTRAST_LOW: f32 = 55.0;

/// Which renderer [`render_die_styled`] draws with. Style 1 is the one the
/// built-in model was fitted with (it must keep drawing the same pixels from
/// the same random stream, so the documented fit command rebuilds the model
/// byte for byte); style 2 adds specular streaks, translucent bodies, deeper
/// side faces and low-contrast pips.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SynthStyle {
    /// The round-s24 renderer.
    #[default]
    V1,
    /// Style 1 plus streaks, ghost pips, deeper sides, low-contrast pips.
    V2,
}

impl SynthStyle {
    /// The style numbered `n` (1 or 2), as `fit-dice --synthetic-style`.
    pub fn from_number(n: u8) -> Option<Self> {
        match n {
            1 => Some(Self::V1),
            2 => Some(Self::V2),
            _ => None,
        }
    }
}

/// Pip positions of each value in units of the pip offset (x right, y down).
fn layout(value: u8) -> &'static [(f32, f32)] {
    match value {
        1 => &[(0.0, 0.0)],
        2 => &[(-1.0, -1.0), (1.0, 1.0)],
        3 => &[(-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)],
        4 => &[(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)],
        5 => &[
            (-1.0, -1.0),
            (1.0, -1.0),
            (0.0, 0.0),
            (-1.0, 1.0),
            (1.0, 1.0),
        ],
        _ => &[
            (-1.0, -1.0),
            (-1.0, 0.0),
            (-1.0, 1.0),
            (1.0, -1.0),
            (1.0, 0.0),
            (1.0, 1.0),
        ],
    }
}

/// Colour from hue, saturation, value (all 0-1) as 0-255 floats.
fn hsv(h: f32, s: f32, v: f32) -> [f32; 3] {
    let h6 = (h.rem_euclid(1.0)) * 6.0;
    let c = v * s;
    let x = c * (1.0 - ((h6 % 2.0) - 1.0).abs());
    let (r, g, b) = match h6 as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [(r + m) * 255.0, (g + m) * 255.0, (b + m) * 255.0]
}

fn luma(c: [f32; 3]) -> f32 {
    0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
}

fn lerp(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

fn uniform(rng: &mut XorShift, range: (f32, f32)) -> f32 {
    range.0 + (range.1 - range.0) * rng.unit()
}

/// A face colour: white or ivory, black or dark, or any hue.
fn face_colour(rng: &mut XorShift) -> [f32; 3] {
    let kind = rng.unit();
    if kind < 0.3 {
        hsv(rng.unit(), 0.15 * rng.unit(), uniform(rng, (0.8, 1.0)))
    } else if kind < 0.5 {
        hsv(rng.unit(), 0.4 * rng.unit(), uniform(rng, (0.05, 0.3)))
    } else {
        hsv(
            rng.unit(),
            uniform(rng, (0.4, 1.0)),
            uniform(rng, (0.3, 1.0)),
        )
    }
}

/// A pip colour that stands out from `face`: black or white, red, gold or
/// any hue, redrawn until the colour distance is large enough.
fn pip_colour(rng: &mut XorShift, face: [f32; 3], min_distance: f32) -> [f32; 3] {
    for _ in 0..20 {
        let kind = rng.unit();
        let c = if kind < 0.3 {
            if luma(face) > 128.0 {
                hsv(0.0, 0.0, uniform(rng, (0.0, 0.15)))
            } else {
                hsv(0.0, 0.0, uniform(rng, (0.85, 1.0)))
            }
        } else if kind < 0.5 {
            hsv(
                uniform(rng, (-0.03, 0.03)),
                uniform(rng, (0.7, 1.0)),
                uniform(rng, (0.6, 1.0)),
            )
        } else if kind < 0.65 {
            hsv(
                uniform(rng, (0.1, 0.16)),
                uniform(rng, (0.5, 0.9)),
                uniform(rng, (0.7, 1.0)),
            )
        } else {
            hsv(
                rng.unit(),
                uniform(rng, (0.3, 1.0)),
                uniform(rng, (0.2, 1.0)),
            )
        };
        let d =
            ((c[0] - face[0]).powi(2) + (c[1] - face[1]).powi(2) + (c[2] - face[2]).powi(2)).sqrt();
        if d > min_distance {
            return c;
        }
    }
    if luma(face) > 128.0 {
        [20.0; 3]
    } else {
        [240.0; 3]
    }
}

/// Signed distance (px, negative inside) from face coordinates (u, w) to
/// the outline of a rounded square of half side `half`, corner radius `rho`.
fn square_signed_distance(u: f32, w: f32, half: f32, rho: f32) -> f32 {
    let qx = u.abs() - (half - rho);
    let qy = w.abs() - (half - rho);
    (qx.max(0.0).powi(2) + qy.max(0.0).powi(2)).sqrt() + qx.max(qy).min(0.0) - rho
}

/// Position across the nearest pip of `value` along the light direction
/// (0 on the lit edge, 1 on the shaded edge; 0 away from pips).
fn pip_slope(value: u8, u: f32, w: f32, offset: f32, radius: f32) -> f32 {
    layout(value)
        .iter()
        .map(|&(px, py)| (u - px * offset, w - py * offset))
        .find(|(du, dw)| du * du + dw * dw <= radius * radius)
        .map_or(0.0, |(du, dw)| {
            (0.5 + 0.35 * (du + dw) / radius.max(1e-3)).clamp(0.0, 1.0)
        })
}

/// Coverage (0-1) of a rounded square of half side `half` and corner radius
/// `rho` at face coordinates (u, w), anti-aliased over one pixel.
fn square_coverage(u: f32, w: f32, half: f32, rho: f32) -> f32 {
    (0.5 - square_signed_distance(u, w, half, rho)).clamp(0.0, 1.0)
}

/// Pip coverage (0-1) of `value`'s layout at face coordinates (u, w).
fn pip_coverage(value: u8, u: f32, w: f32, offset: f32, radius: f32) -> f32 {
    layout(value)
        .iter()
        .map(|&(px, py)| {
            let d = ((u - px * offset).powi(2) + (w - py * offset).powi(2)).sqrt();
            (0.5 - (d - radius)).clamp(0.0, 1.0)
        })
        .fold(0.0, f32::max)
}

/// Blurred pip coverage (0-1) of `value`'s layout: full at a pip's centre,
/// fading to 0 at `radius` (a pip seen through translucent plastic).
fn pip_coverage_soft(value: u8, u: f32, w: f32, offset: f32, radius: f32) -> f32 {
    layout(value)
        .iter()
        .map(|&(px, py)| {
            let d2 = (u - px * offset).powi(2) + (w - py * offset).powi(2);
            (1.0 - d2 / (radius * radius).max(1e-3)).max(0.0)
        })
        .fold(0.0, f32::max)
}

/// The look of one drawn die.
struct Style {
    face: [f32; 3],
    face2: [f32; 3],
    pip: [f32; 3],
    marble: Option<[f32; 5]>,
    glare: Option<[f32; 4]>,
    /// Brightness gradient across the top face (gain per face side, x and y).
    gradient: [f32; 2],
    top_gain: f32,
    side_gain: f32,
    /// Darkening across a drilled pip (0 = flat paint).
    pip_shade: f32,
    /// Darkening at the rounded edges of the top face.
    bevel: f32,
    /// Style 2 streak: unit normal (x, y), offset and curvature (per px)
    /// of its centre line, half width (px) and strength.
    streak: Option<[f32; 6]>,
    /// Style 2 translucency: parallax shift (u, w, px), blur growth of the
    /// pip radius and strength of the opposite face's pips.
    ghost: Option<[f32; 4]>,
}

impl Style {
    fn draw(rng: &mut XorShift, side: f32, style: SynthStyle) -> Self {
        let face = face_colour(rng);
        let face2 = lerp(face, face_colour(rng), uniform(rng, (0.3, 0.7)));
        let contrast = if style == SynthStyle::V2 && rng.unit() < LOW_CONTRAST_PROB {
            PIP_CONTRAST_LOW
        } else {
            PIP_CONTRAST
        };
        let pip = pip_colour(rng, face, contrast);
        let marble = (rng.unit() < MARBLE_PROB).then(|| {
            [
                uniform(rng, (1.5, 5.0)) / side,
                uniform(rng, (1.5, 5.0)) / side,
                uniform(rng, (0.5, 2.5)),
                uniform(rng, (2.0, 6.0)) / side,
                rng.unit() * std::f32::consts::TAU,
            ]
        });
        let glare = (rng.unit() < GLARE_PROB).then(|| {
            [
                uniform(rng, (-0.35, 0.35)) * side,
                uniform(rng, (-0.35, 0.35)) * side,
                uniform(rng, (0.08, 0.3)) * side,
                uniform(rng, (0.3, 0.85)),
            ]
        });
        Self {
            face,
            face2,
            pip,
            marble,
            glare,
            gradient: [uniform(rng, (-0.15, 0.15)), uniform(rng, (-0.15, 0.15))],
            top_gain: uniform(rng, (0.85, 1.1)),
            side_gain: uniform(rng, (0.4, 0.8)),
            pip_shade: uniform(rng, (0.0, 0.4)),
            bevel: uniform(rng, (0.0, 0.3)),
            streak: None,
            ghost: None,
        }
    }

    /// Style 2's streak and translucency (drawn once the side band is).
    fn draw_v2(&mut self, rng: &mut XorShift, side: f32) {
        if rng.unit() < STREAK_PROB {
            let a = rng.unit() * std::f32::consts::TAU;
            self.streak = Some([
                a.cos(),
                a.sin(),
                uniform(rng, (-0.35, 0.35)) * side,
                uniform(rng, (-2.0, 2.0)) / side,
                uniform(rng, (0.03, 0.1)) * side,
                uniform(rng, (0.4, 0.95)),
            ]);
        }
        if rng.unit() < GHOST_PROB {
            self.ghost = Some([
                uniform(rng, (-0.1, 0.1)) * side,
                uniform(rng, (-0.1, 0.1)) * side,
                uniform(rng, (1.0, 1.6)),
                uniform(rng, (0.15, 0.45)),
            ]);
        }
    }

    /// Body colour at face coordinates (u, w).
    fn body(&self, u: f32, w: f32) -> [f32; 3] {
        match self.marble {
            Some([fx, fy, amp, g, phase]) => {
                // A soft swirl: the second colour fades in and out smoothly.
                let t = 0.5 + 0.5 * (fx * u + fy * w + amp * (g * (u - w) + phase).sin()).sin();
                lerp(self.face, self.face2, t * t * (3.0 - 2.0 * t))
            }
            None => self.face,
        }
    }
}

/// Side (px) of the square canvas a die of top-face side `side` is drawn on.
fn canvas_side(side: f32) -> u32 {
    (side * CANVAS_FACTOR).ceil() as u32
}

/// Draw a die showing `value` on a patch of `table` (a real table photo)
/// and return the canvas and the die's label: the centre and side of its
/// axis-aligned box (top face and visible side faces), as the photo set
/// labels dice. `None` when `table` is smaller than the canvas.
pub fn render_die(
    rng: &mut XorShift,
    table: &RgbImage,
    value: u8,
) -> Option<(RgbImage, LabelledDie)> {
    render_die_styled(rng, table, value, SynthStyle::V1)
}

/// [`render_die`] with the renderer `style`.
pub fn render_die_styled(
    rng: &mut XorShift,
    table: &RgbImage,
    value: u8,
    style_kind: SynthStyle,
) -> Option<(RgbImage, LabelledDie)> {
    let side = uniform(rng, FACE_SIDE);
    let canvas = canvas_side(side);
    if table.width() < canvas || table.height() < canvas {
        return None;
    }
    let x0 = rng.below((table.width() - canvas + 1) as usize) as u32;
    let y0 = rng.below((table.height() - canvas + 1) as usize) as u32;
    let mut img = image::imageops::crop_imm(table, x0, y0, canvas, canvas).to_image();
    let label = paint_die(rng, &mut img, side, value, style_kind)?;
    Some((img, label))
}

/// Draw a die showing `value` into `frame` with its canvas centred at
/// `center` (frame px), and return its label in frame coordinates: a
/// whole-frame scene for measuring the detector on other tables
/// (`examples/dice_tables`). `None` when the canvas does not fit inside the
/// frame there. The top face's side is drawn from `face_side` (px), so a
/// scene can hold dice of the sizes its photos show.
pub fn render_die_into(
    rng: &mut XorShift,
    frame: &mut RgbImage,
    center: [f32; 2],
    face_side: (f32, f32),
    value: u8,
    style_kind: SynthStyle,
) -> Option<LabelledDie> {
    let side = uniform(rng, face_side);
    let canvas = canvas_side(side);
    let x0 = (center[0] - canvas as f32 / 2.0).round();
    let y0 = (center[1] - canvas as f32 / 2.0).round();
    if x0 < 0.0
        || y0 < 0.0
        || x0 as u32 + canvas > frame.width()
        || y0 as u32 + canvas > frame.height()
    {
        return None;
    }
    let (x0, y0) = (x0 as u32, y0 as u32);
    let mut img = image::imageops::crop_imm(frame, x0, y0, canvas, canvas).to_image();
    let mut label = paint_die(rng, &mut img, side, value, style_kind)?;
    image::imageops::replace(frame, &img, x0 as i64, y0 as i64);
    label.center = [label.center[0] + x0 as f32, label.center[1] + y0 as f32];
    Some(label)
}

/// Closest two dice of a drawn scene may be, centre to centre, as a multiple
/// of the largest face side: apart, so each read belongs to one die.
const SCENE_APART: f32 = 2.2;
/// Half side of the window around a scene die's centre, as a multiple of the
/// largest face side, that must be free of card white, and the share of
/// card-white pixels in it that rejects the spot (dice go on the table, not
/// on the cards; "dice next to cards" is measured on its own).
const SCENE_CARD_WINDOW: f32 = 1.25;
const SCENE_CARD_WHITE: f32 = 0.02;
/// Spots tried per die of a scene.
const SCENE_TRIES: usize = 100;

/// A pixel of a white card face: bright and nearly grey.
fn is_card_white(p: &image::Rgb<u8>) -> bool {
    let [r, g, b] = p.0;
    let (lo, hi) = (r.min(g).min(b), r.max(g).max(b));
    lo > 150 && hi - lo < 45
}

/// Share of card-white pixels in the square of half side `half` at `c`.
fn card_white_share(img: &RgbImage, c: [f32; 2], half: f32) -> f32 {
    let (w, h) = (img.width() as i64, img.height() as i64);
    let (x0, x1) = ((c[0] - half) as i64, (c[0] + half) as i64);
    let (y0, y1) = ((c[1] - half) as i64, (c[1] + half) as i64);
    let (mut white, mut all) = (0usize, 0usize);
    for y in y0.max(0)..=y1.min(h - 1) {
        for x in x0.max(0)..=x1.min(w - 1) {
            all += 1;
            white += usize::from(is_card_white(img.get_pixel(x as u32, y as u32)));
        }
    }
    white as f32 / all.max(1) as f32
}

/// Draw up to `count` dice of random values on a real table photo, apart
/// from each other, from `keep_clear` (dice already in the photo) and, with
/// `avoid_cards`, from white card faces; return the scene and the drawn
/// dice's labels. Used to measure and to fit the detector on other tables
/// than the photo set's light box (`docs/models.md`, round s30).
pub fn draw_scene(
    rng: &mut XorShift,
    photo: &RgbImage,
    count: usize,
    face_side: (f32, f32),
    keep_clear: &[LabelledDie],
    avoid_cards: bool,
) -> (RgbImage, Vec<LabelledDie>) {
    let mut frame = photo.clone();
    let mut placed: Vec<LabelledDie> = Vec::new();
    let apart = SCENE_APART * face_side.1;
    for _ in 0..count * SCENE_TRIES {
        if placed.len() == count {
            break;
        }
        let c = [
            rng.unit() * frame.width() as f32,
            rng.unit() * frame.height() as f32,
        ];
        let far = |d: &LabelledDie, min: f32| dist(d.center, c) > min;
        let clear = placed.iter().all(|d| far(d, apart))
            && keep_clear
                .iter()
                .all(|d| far(d, apart / 2.0 + d.size / 2.0))
            && (!avoid_cards
                || card_white_share(photo, c, SCENE_CARD_WINDOW * face_side.1) < SCENE_CARD_WHITE);
        if !clear {
            continue;
        }
        let value = 1 + rng.below(6) as u8;
        if let Some(d) = render_die_into(rng, &mut frame, c, face_side, value, SynthStyle::V1) {
            placed.push(d);
        }
    }
    (frame, placed)
}

/// Draw a die of top-face side `side` showing `value` at the centre of the
/// square canvas `img` and return its label in canvas coordinates.
fn paint_die(
    rng: &mut XorShift,
    img: &mut RgbImage,
    side: f32,
    value: u8,
    style_kind: SynthStyle,
) -> Option<LabelledDie> {
    let canvas = img.width();
    let half = side / 2.0;
    let rho = side * uniform(rng, (0.06, 0.2));
    let theta = rng.unit() * std::f32::consts::TAU;
    let (sin, cos) = theta.sin_cos();
    let centre = canvas as f32 / 2.0;
    let offset = side * uniform(rng, PIP_OFFSET);
    let radius = side * uniform(rng, PIP_RADIUS);
    let top_radius = if value == 1 && rng.unit() < BIG_ONE_PROB {
        side * uniform(rng, (0.13, 0.2))
    } else {
        radius
    };
    let mut style = Style::draw(rng, side, style_kind);
    // The side band: seen from `dir` (the die's top face is shifted away
    // from the camera's axis), `depth` px deep.
    let (depth, dir) = if rng.unit() < SIDE_PROB {
        let a = rng.unit() * std::f32::consts::TAU;
        let range = match style_kind {
            SynthStyle::V1 => SIDE_DEPTH,
            SynthStyle::V2 => SIDE_DEPTH_2,
        };
        (side * uniform(rng, range), [a.cos(), a.sin()])
    } else {
        (0.0, [1.0, 0.0])
    };
    let side_values = [1 + rng.below(6) as u8, 1 + rng.below(6) as u8];
    if style_kind == SynthStyle::V2 {
        style.draw_v2(rng, side);
    }
    // The opposite face's value, seen mirrored through a translucent body.
    let back_value = 7 - value;
    // Face coordinates of a canvas point.
    let to_face = |x: f32, y: f32| {
        let (dx, dy) = (x - centre, y - centre);
        (cos * dx + sin * dy, -sin * dx + cos * dy)
    };
    // Only points this close to the centre can hang below the top face.
    let reach = half * std::f32::consts::SQRT_2 + depth + 1.0;
    let (mut bx0, mut by0, mut bx1, mut by1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    for py in 0..canvas {
        for px in 0..canvas {
            let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
            let (u, w) = to_face(x, y);
            let top = square_coverage(u, w, half, rho);
            // The side face: the first point towards `dir` that is on the
            // top face, within the band's depth.
            let mut side_px = None;
            if depth > 0.0 && top < 1.0 && u * u + w * w <= reach * reach {
                let steps = (depth * 2.0).ceil().max(1.0) as usize;
                for k in 1..=steps {
                    let t = depth * k as f32 / steps as f32;
                    let (hu, hw) = to_face(x + t * dir[0], y + t * dir[1]);
                    if square_coverage(hu, hw, half, rho) >= 0.5 {
                        side_px = Some((hu, hw, t / depth));
                        break;
                    }
                }
            }
            let mut colour = None;
            let mut alpha = 0.0f32;
            if let Some((hu, hw, frac)) = side_px {
                // Side face coordinates: along the edge it hangs from and down
                // its depth, mapped onto a virtual face for the pip layout.
                let (along, which) = if hu.abs() > hw.abs() {
                    (hw, 0)
                } else {
                    (hu, 1)
                };
                let v = (frac - 0.5) * side;
                let pip = pip_coverage(side_values[which], along, v, offset, radius);
                let body = style.body(along, v);
                let c = lerp(body, style.pip, pip);
                colour = Some(c.map(|q| q * style.side_gain));
                alpha = 1.0;
            }
            if top > 0.0 {
                let pip = pip_coverage(value, u, w, offset, top_radius);
                // Drilled pips: darker on the side away from the light.
                let pip_colour = style.pip.map(|q| {
                    q * (1.0 - style.pip_shade * pip_slope(value, u, w, offset, top_radius))
                });
                let mut body = style.body(u, w);
                if let Some([gu, gw, grow, gs]) = style.ghost {
                    let ghost =
                        pip_coverage_soft(back_value, -(u - gu), w - gw, offset, radius * grow);
                    body = lerp(body, lerp(body, style.pip, 0.6), gs * ghost);
                }
                let mut c = lerp(body, pip_colour, pip);
                // Rounded edges catch less light than the flat face.
                let edge =
                    (-square_signed_distance(u, w, half, rho) / (0.12 * side)).clamp(0.0, 1.0);
                c = c.map(|q| q * (1.0 - style.bevel * (1.0 - edge)));
                let gain = style.top_gain
                    * (1.0 + style.gradient[0] * u / side + style.gradient[1] * w / side);
                c = c.map(|q| q * gain);
                if let Some([gx, gy, gr, gs]) = style.glare {
                    let d2 = ((u - gx).powi(2) + (w - gy).powi(2)) / (gr * gr);
                    c = lerp(c, [255.0; 3], gs * (-d2).exp());
                }
                if let Some([nx, ny, off, curv, hw, ss]) = style.streak {
                    // Distance from a parabolic centre line across the face.
                    let across = nx * u + ny * w - off;
                    let along = -ny * u + nx * w;
                    let d = (across - 0.5 * curv * along * along) / hw;
                    c = lerp(c, [255.0; 3], ss * (-d * d).exp());
                }
                colour = Some(match colour {
                    Some(sc) => lerp(sc, c, top),
                    None => c,
                });
                alpha = alpha.max(top);
            }
            if let Some(c) = colour {
                let p = img.get_pixel_mut(px, py);
                for (q, ck) in p.0.iter_mut().zip(c) {
                    *q = (*q as f32 + (ck - *q as f32) * alpha).clamp(0.0, 255.0) as u8;
                }
                if alpha >= 0.5 {
                    bx0 = bx0.min(x - 0.5);
                    by0 = by0.min(y - 0.5);
                    bx1 = bx1.max(x + 0.5);
                    by1 = by1.max(y + 0.5);
                }
            }
        }
    }
    if bx1 <= bx0 {
        return None;
    }
    Some(LabelledDie {
        value,
        center: [(bx0 + bx1) / 2.0, (by0 + by1) / 2.0],
        size: ((bx1 - bx0) + (by1 - by0)) / 2.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`style_1_fingerprint`] of the round-s24 renderer.
    const STYLE_1_FINGERPRINT: u64 = 17_449_210_352_182_758_833;

    fn grey_table() -> RgbImage {
        RgbImage::from_pixel(200, 200, image::Rgb([180, 180, 175]))
    }

    #[test]
    fn a_drawn_die_is_labelled_around_its_face() {
        let mut rng = XorShift::new(5);
        for value in 1..=6u8 {
            let (img, d) = render_die(&mut rng, &grey_table(), value).expect("canvas fits");
            assert_eq!(d.value, value);
            let c = img.width() as f32 / 2.0;
            // The box holds the top face (centred on the canvas) and at most
            // a side band, so its centre is near the canvas centre.
            assert!((d.center[0] - c).abs() < 0.25 * d.size, "{d:?}");
            assert!((d.center[1] - c).abs() < 0.25 * d.size, "{d:?}");
            assert!(
                d.size >= FACE_SIDE.0 * 0.95 && d.size <= FACE_SIDE.1 * 1.41 * 1.4,
                "{d:?}"
            );
            // Something was drawn: the centre differs from the table.
            let changed = img.pixels().filter(|p| p.0 != [180, 180, 175]).count();
            assert!(
                changed as f32 > 0.5 * FACE_SIDE.0 * FACE_SIDE.0,
                "{changed}"
            );
        }
    }

    #[test]
    fn a_scene_keeps_its_dice_apart_off_cards_and_off_the_photo_dice() {
        // A dark table with a white card in its left half and a real die.
        let mut photo = RgbImage::from_pixel(640, 400, image::Rgb([40, 38, 36]));
        for y in 50..350 {
            for x in 40..260 {
                photo.put_pixel(x, y, image::Rgb([235, 235, 230]));
            }
        }
        let real = LabelledDie {
            value: 3,
            center: [500.0, 200.0],
            size: 30.0,
        };
        let face = (20.0, 30.0);
        let mut rng = XorShift::new(11);
        let (scene, dice) = draw_scene(&mut rng, &photo, 4, face, &[real], true);
        assert_eq!(dice.len(), 4, "{dice:?}");
        for (i, d) in dice.iter().enumerate() {
            assert!((1..=6).contains(&d.value));
            // Off the card (with its margin) and off the real die.
            assert!(d.center[0] > 260.0 + face.1 * 0.5, "{d:?}");
            let from_real = (d.center[0] - 500.0).hypot(d.center[1] - 200.0);
            assert!(from_real > SCENE_APART * face.1 / 2.0 + 15.0, "{d:?}");
            for e in &dice[i + 1..] {
                let apart = (d.center[0] - e.center[0]).hypot(d.center[1] - e.center[1]);
                assert!(apart > SCENE_APART * face.1, "{d:?} {e:?}");
            }
            // The die is drawn where its label says.
            let p = scene.get_pixel(d.center[0] as u32, d.center[1] as u32);
            assert_ne!(p.0, [40, 38, 36], "{d:?}");
        }
        // The card and the rest of the photo are untouched far from the dice.
        assert_eq!(scene.get_pixel(150, 200).0, [235, 235, 230]);
        // A photo that is all card takes no dice.
        let card = RgbImage::from_pixel(300, 300, image::Rgb([240, 240, 240]));
        let (_, none) = draw_scene(&mut rng, &card, 3, face, &[], true);
        assert!(none.is_empty());
    }

    #[test]
    fn pips_follow_the_layout() {
        for value in 1..=6u8 {
            let n = layout(value).len();
            assert_eq!(n, value as usize);
            // Every pip centre is covered, the face centre only for odd values.
            for &(px, py) in layout(value) {
                assert_eq!(pip_coverage(value, px * 10.0, py * 10.0, 10.0, 3.0), 1.0);
            }
            let centre = pip_coverage(value, 0.0, 0.0, 10.0, 3.0);
            assert_eq!(centre > 0.5, value % 2 == 1, "value {value}");
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_die() {
        let draw = |seed| render_die(&mut XorShift::new(seed), &grey_table(), 6);
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }

    /// FNV-1a of the pixels and labels of six style-1 dice from seed 3.
    fn style_1_fingerprint() -> u64 {
        let mut rng = XorShift::new(3);
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let mut eat = |b: u8| h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        for value in 1..=6u8 {
            let (img, d) = render_die(&mut rng, &grey_table(), value).expect("canvas fits");
            img.as_raw().iter().for_each(|b| eat(*b));
            for f in [d.center[0], d.center[1], d.size] {
                f.to_le_bytes().into_iter().for_each(&mut eat);
            }
        }
        h
    }

    #[test]
    fn style_1_draws_what_the_shipped_model_was_fitted_on() {
        // The documented fit command rebuilds `models/dice.bin` byte for
        // byte only while style 1 draws the same pixels from the same random
        // stream; a change here needs a new style, not an edit of style 1.
        assert_eq!(style_1_fingerprint(), STYLE_1_FINGERPRINT);
    }

    #[test]
    fn style_2_draws_other_dice_labelled_around_their_face() {
        let (mut r1, mut r2) = (XorShift::new(8), XorShift::new(8));
        let mut differ = 0;
        for value in 1..=6u8 {
            let a = render_die_styled(&mut r1, &grey_table(), value, SynthStyle::V1);
            let b = render_die_styled(&mut r2, &grey_table(), value, SynthStyle::V2);
            let ((ia, _), (ib, d)) = (a.expect("fits"), b.expect("fits"));
            differ += (ia != ib) as usize;
            assert_eq!(d.value, value);
            let c = ib.width() as f32 / 2.0;
            // A side band up to half a face deep moves the box centre by
            // at most a quarter face.
            assert!((d.center[0] - c).abs() < 0.3 * d.size, "{d:?}");
            assert!((d.center[1] - c).abs() < 0.3 * d.size, "{d:?}");
        }
        assert!(differ > 0);
        assert_eq!(SynthStyle::from_number(2), Some(SynthStyle::V2));
        assert_eq!(SynthStyle::from_number(3), None);
    }

    #[test]
    fn a_small_table_gives_no_die() {
        let mut rng = XorShift::new(1);
        assert!(render_die(&mut rng, &RgbImage::new(10, 10), 3).is_none());
    }

    #[test]
    fn pips_stand_out_from_the_face() {
        let mut rng = XorShift::new(9);
        for _ in 0..200 {
            let f = face_colour(&mut rng);
            let p = pip_colour(&mut rng, f, PIP_CONTRAST);
            let d = ((p[0] - f[0]).powi(2) + (p[1] - f[1]).powi(2) + (p[2] - f[2]).powi(2)).sqrt();
            assert!(d > 100.0, "{f:?} {p:?}");
            let p = pip_colour(&mut rng, f, PIP_CONTRAST_LOW);
            let d = ((p[0] - f[0]).powi(2) + (p[1] - f[1]).powi(2) + (p[2] - f[2]).powi(2)).sqrt();
            assert!(d > 50.0, "{f:?} {p:?}");
        }
    }
}
