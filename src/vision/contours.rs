//! Border following (Suzuki and Abe) on binary masks: a port of
//! `imageproc::contours::find_contours` (imageproc 0.27, MIT licence) that
//! gives the same contours, in the same order, with the same points, border
//! types and parents (unit test against imageproc on random and structured
//! masks), at a fraction of the cost: the mask is converted in one
//! vectorisable pass instead of a bounds-checked `get_pixel` per pixel, and
//! the rotating neighbour order is an index into a fixed table instead of a
//! `VecDeque` rotated (with a search) at every border pixel.

use image::GrayImage;
use imageproc::contours::{BorderType, Contour};
use imageproc::point::Point;

/// The 8 neighbour offsets in imageproc's order: w, nw, n, ne, e, se, s, sw
/// (clockwise in image coordinates).
const DIRS: [(i32, i32); 8] = [
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
];

/// Index of the east offset in [`DIRS`].
const EAST: usize = 4;

/// Index in [`DIRS`] of the offset `(dx, dy)` (a neighbour's; 0 otherwise,
/// which border following never asks for).
fn dir_index(dx: i32, dy: i32) -> usize {
    DIRS.iter().position(|&d| d == (dx, dy)).unwrap_or(0)
}

/// Bytes OR-ed per step by [`is_empty_mask`]: a block the compiler keeps in
/// a vector register.
const EMPTY_CHECK_LANES: usize = 32;

/// Whether every byte of the mask `m` is zero (whole blocks OR-ed, no early
/// exit per byte): an empty mask has no border, and the card masks skip
/// their cleaning passes when empty.
pub fn is_empty_mask(m: &[u8]) -> bool {
    let mut blocks = m.chunks_exact(EMPTY_CHECK_LANES);
    let any_block = blocks.any(|c| c.iter().fold(0u8, |a, &v| a | v) != 0);
    !any_block && blocks.remainder().iter().all(|&v| v == 0)
}

/// Bytes of a mask row checked at once by [`find_contours`]' scan.
const ZERO_RUN: usize = 16;

/// All borders of the foreground (non-zero pixels) of `image`, as
/// `imageproc::contours::find_contours::<i32>` returns them. The row scan
/// steps over aligned runs of `ZERO_RUN` background bytes of the mask at
/// once: background pixels are never relabelled (border following writes
/// only foreground pixels) and change no state of the scan, so skipping them
/// gives the same contours.
pub fn find_contours(image: &GrayImage) -> Vec<Contour<i32>> {
    let width = image.width() as usize;
    let height = image.height() as usize;
    // No foreground, no border (and no i32 copy of the mask to make).
    if is_empty_mask(image.as_raw()) {
        return Vec::new();
    }
    let mut values: Vec<i32> = image.as_raw().iter().map(|&v| i32::from(v > 0)).collect();
    let at = |x: usize, y: usize| x + width * y;
    // The pixel at `(x, y)` if it lies in the image and is non-zero.
    let non_zero = |values: &[i32], x: i32, y: i32| -> Option<(usize, usize)> {
        let inside = x >= 0 && (x as usize) < width && y >= 0 && (y as usize) < height;
        (inside && values[at(x as usize, y as usize)] != 0).then_some((x as usize, y as usize))
    };
    let mut contours: Vec<Contour<i32>> = Vec::new();
    let mut curr_border_num: i32 = 1;
    let raw = image.as_raw();
    for y in 0..height {
        let mut parent_border_num: usize = 1;
        let row = &raw[y * width..(y + 1) * width];
        let mut x = 0;
        while x < width {
            if x % ZERO_RUN == 0
                && let Some(run) = row.get(x..x + ZERO_RUN)
                && let Ok(run) = <[u8; ZERO_RUN]>::try_from(run)
                && u128::from_ne_bytes(run) == 0
            {
                x += ZERO_RUN;
                continue;
            }
            // This pixel is `x`; the loop goes on at the next one.
            let cur = x;
            x += 1;
            let x = cur;
            let v = values[at(x, y)];
            if v == 0 {
                continue;
            }
            let start = if v == 1 && x > 0 && values[at(x - 1, y)] == 0 {
                Some(((x as i32 - 1, y as i32), BorderType::Outer))
            } else if v > 0 && x + 1 < width && values[at(x + 1, y)] == 0 {
                if v > 1 {
                    parent_border_num = v as usize;
                }
                Some(((x as i32 + 1, y as i32), BorderType::Hole))
            } else {
                None
            };
            if let Some((adj, border_type)) = start {
                curr_border_num += 1;
                let parent = if parent_border_num > 1 {
                    let parent_index = parent_border_num - 2;
                    let parent_contour = &contours[parent_index];
                    if (border_type == BorderType::Outer)
                        ^ (parent_contour.border_type == BorderType::Outer)
                    {
                        Some(parent_index)
                    } else {
                        parent_contour.parent
                    }
                } else {
                    None
                };
                let points =
                    follow_border(&mut values, width, (x, y), adj, curr_border_num, &non_zero);
                contours.push(Contour::new(points, border_type, parent));
            }
            let v = values[at(x, y)];
            if v != 1 {
                parent_border_num = v.unsigned_abs() as usize;
            }
        }
    }
    contours
}

/// Follows the border starting at `curr` (whose background neighbour is
/// `adj`), marking its pixels with `border_num`; returns its points.
fn follow_border(
    values: &mut [i32],
    width: usize,
    curr: (usize, usize),
    adj: (i32, i32),
    border_num: i32,
    non_zero: &impl Fn(&[i32], i32, i32) -> Option<(usize, usize)>,
) -> Vec<Point<i32>> {
    let at = |x: usize, y: usize| x + width * y;
    let (cx, cy) = (curr.0 as i32, curr.1 as i32);
    let mut points = Vec::new();
    // Clockwise from the background neighbour: the first foreground pixel.
    let r = dir_index(adj.0 - cx, adj.1 - cy);
    let first = (0..8).find_map(|i| {
        let (dx, dy) = DIRS[(r + i) % 8];
        non_zero(values, cx + dx, cy + dy)
    });
    let Some(pos1) = first else {
        // An isolated pixel.
        points.push(Point::new(cx, cy));
        values[at(curr.0, curr.1)] = -border_num;
        return points;
    };
    let (mut pos2, mut pos3) = (pos1, curr);
    loop {
        points.push(Point::new(pos3.0 as i32, pos3.1 as i32));
        let (x3, y3) = (pos3.0 as i32, pos3.1 as i32);
        let r = dir_index(pos2.0 as i32 - x3, pos2.1 as i32 - y3);
        // Counter-clockwise from the previous pixel: the next one (the
        // previous pixel itself is non-zero, so one is always found).
        let next = (0..8).rev().find_map(|i| {
            let (dx, dy) = DIRS[(r + i) % 8];
            non_zero(values, x3 + dx, y3 + dy).map(|p| (p, i))
        });
        let Some((pos4, k)) = next else {
            break;
        };
        // Whether the east neighbour was examined (and found background)
        // before the next pixel: the border's right edge.
        let is_right_edge = (k + 1..8).any(|i| (r + i) % 8 == EAST);
        let i3 = at(pos3.0, pos3.1);
        if pos3.0 + 1 == width || is_right_edge {
            values[i3] = -border_num;
        } else if values[i3] == 1 {
            values[i3] = border_num;
        }
        if pos4 == curr && pos3 == pos1 {
            break;
        }
        pos2 = pos3;
        pos3 = pos4;
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &[Contour<i32>], b: &[Contour<i32>]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(p, q)| {
                p.points == q.points && p.border_type == q.border_type && p.parent == q.parent
            })
    }

    #[test]
    fn matches_imageproc_on_random_masks() {
        let mut seed = 2024u32;
        let mut rnd = move || {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            seed >> 16
        };
        for (w, h) in [(1, 1), (1, 7), (7, 1), (2, 2), (23, 17), (64, 40)] {
            for density in [5u32, 30, 50, 70, 95] {
                let img = GrayImage::from_fn(w, h, |_, _| {
                    image::Luma([if rnd() % 100 < density { 255 } else { 0 }])
                });
                let want = imageproc::contours::find_contours::<i32>(&img);
                assert!(same(&find_contours(&img), &want), "{w}x{h} at {density}%");
            }
        }
    }

    #[test]
    fn matches_imageproc_on_nested_shapes() {
        // Rings inside rings, blocks touching the image edge, single pixels
        // and thin lines, with non-255 foreground values.
        let img = GrayImage::from_fn(90, 70, |x, y| {
            let (dx, dy) = (x as i32 - 45, y as i32 - 35);
            let r2 = dx * dx + dy * dy;
            let ring = (r2 / 60) % 2 == 0 && r2 < 900;
            let edge = x < 6 || y > 64;
            let dots = x % 11 == 3 && y % 13 == 5;
            let line = y == 20 && x > 60;
            image::Luma([if ring || edge || dots || line {
                1 + (x % 200) as u8
            } else {
                0
            }])
        });
        let want = imageproc::contours::find_contours::<i32>(&img);
        assert!(want.len() > 10);
        assert!(same(&find_contours(&img), &want));
    }
}
