//! Helpers shared by the integration tests.

use image::RgbImage;
use std::path::PathBuf;

/// A small image from `tests/fixtures` (see its README), as RGB.
#[allow(dead_code)] // each test binary that includes this module uses part of it
pub fn fixture(name: &str) -> RgbImage {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    match image::open(&p) {
        Ok(i) => i.to_rgb8(),
        Err(e) => panic!("fixture {} missing: {e}", p.display()),
    }
}

/// The session a shipped script (`tests/scripts/NAME`) leaves, played with
/// the built-in rulesets.
#[allow(dead_code)] // each test binary that includes this module uses part of it
pub fn played_script(name: &str) -> adjutant::rules::session::Session {
    use adjutant::rules::games::Library;
    use adjutant::rules::script::{Script, play};
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name);
    let script = Script::load(&file).unwrap_or_else(|e| panic!("{e}"));
    let (lib, _) = Library::builtin();
    play(&script, &lib, &mut std::io::sink()).unwrap_or_else(|e| panic!("{e}"))
}
