//! The vision layer: frames in, detections out. It knows cards and dice as
//! shapes and codes, nothing about any game.
//!
//! - [`cards`]: finds playing cards and reads their corner indices and backs.
//! - [`dice`]: finds d6 and reads their up faces.
//! - [`contours`]: border following on binary masks.
//! - [`scan`]: both readers over one image, in the `scan --json` shape.
//! - [`image_file`]: image files opened, a JPEG cut short refused.
//! - [`capture`]: frames kept as labelled dice photos (the photo-set format).
//! - [`settle`]: dice followed across live frames: resting or moving, reads voted.
//! - [`eval`]: scoring against labelled photo sets.
//! - [`frame_source`] / `camera`: where frames come from.

#[cfg(feature = "camera")]
pub mod camera;
pub mod capture;
pub mod cards;
pub mod contours;
pub mod dice;
pub mod error;
pub mod eval;
pub mod frame_source;
pub mod geometry;
pub mod image_file;
pub mod scan;
pub mod settle;
pub mod settle_cards;

pub use error::VisionError;
pub use geometry::{Point, Quad};
