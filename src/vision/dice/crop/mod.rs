//! Face-crop features for the value classifier: a square crop around a die
//! candidate is resampled to a fixed grid and turned into polarity-free
//! "differs from the face colour" maps, so white-on-black and black-on-white
//! pips look alike.

mod angle;
mod blobs;
mod features;
mod sample;
mod select;

use crate::vision::dice::cpu::Cpu;
use features::{N_PIP_FEATURES, N_SCALARS};
use image::RgbImage;

pub use angle::{estimate_angle, estimate_angle_portable};
pub use features::{
    N_PIP_COUNTS, crop_features, crop_features_portable, dihedral, face_colour, pip_counts,
    transform_features, transform_features_into,
};
pub use sample::sample_crop;

/// Side of the resampled crop grid (pips are about 4.7 cells wide).
pub const GRID: usize = 32;

/// Side of the (2x2-averaged) maps fed to the classifier; coarser than
/// [`GRID`] so the classifier has fewer inputs to overfit on.
pub const MAP: usize = GRID / 2;

/// Maps per crop: colour distance to the face, signed luminance difference,
/// and the crop's R, G, B standardised within the crop.
pub const N_MAPS: usize = 5;

/// Number of crop features: the maps, a few scalars and the pip features.
pub const N_CROP_FEATURES: usize = N_MAPS * MAP * MAP + N_SCALARS + N_PIP_FEATURES;

/// Smallest ratio of face side to bounding-box side (a square at 45 degrees
/// has 1/sqrt(2) = 0.707); guards against a wrong angle estimate.
const MIN_FACE_RATIO: f32 = 0.72;

/// Face-aligned crop of a die whose axis-aligned box has side `box_side`:
/// estimates the face angle, converts the box side to the face side and samples
/// a crop of `scale` times that side, on the SIMD paths `cpu` allows. Returns
/// the cells and the crop side.
pub fn aligned_crop(
    img: &RgbImage,
    cx: f32,
    cy: f32,
    box_side: f32,
    scale: f32,
    angle_jitter: f32,
    cpu: Cpu,
) -> (Vec<[f32; 3]>, f32) {
    let a = estimate_angle(img, cx, cy, box_side, cpu);
    let ratio = (1.0 / (a.cos().abs() + a.sin().abs())).max(MIN_FACE_RATIO);
    let side = box_side * ratio * scale;
    (sample_crop(img, cx, cy, side, a + angle_jitter, cpu), side)
}

/// The bit patterns of `v` (for bit-for-bit comparisons).
#[cfg(test)]
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}
