//! Helpers shared by the integration tests.

use image::RgbImage;
use std::path::PathBuf;

/// A small image from `tests/fixtures` (see its README), as RGB.
pub fn fixture(name: &str) -> RgbImage {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    match image::open(&p) {
        Ok(i) => i.to_rgb8(),
        Err(e) => panic!("fixture {} missing: {e}", p.display()),
    }
}
