//! Where frames come from: a camera, or a replay of recorded images. The app
//! loop only sees this trait, so it is tested without a camera.

use std::path::{Path, PathBuf};

/// Why a frame could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    /// The source has no more frames.
    #[error("no more frames")]
    Exhausted,
    /// The source is gone (camera unplugged, photo folder removed).
    #[error("Lost the camera or photo folder: {0}")]
    Lost(String),
    /// The source could not be opened (no such camera, no photos there).
    #[error("{0}")]
    Unavailable(String),
    /// A recorded image could not be read or decoded.
    #[error("{message}")]
    Unreadable {
        /// The image file.
        path: PathBuf,
        /// What went wrong, naming the file.
        message: String,
    },
}

/// A source of frames.
pub trait FrameSource {
    /// A short description ("replay of 12 images in ./frames").
    fn describe(&self) -> String;
    /// The next frame.
    fn next_frame(&mut self) -> Result<image::DynamicImage, FrameError>;
    /// Where the last frame came from, for sources with named frames
    /// ("photo 2 of 3, b.png"); `None` for a camera.
    fn last_frame_label(&self) -> Option<String> {
        None
    }
    /// The file the last frame was read from, for sources of files.
    fn last_frame_path(&self) -> Option<PathBuf> {
        None
    }
}

/// Replays the images of a directory (sorted by name), looping forever.
#[derive(Debug)]
pub struct ReplaySource {
    files: Vec<PathBuf>,
    next: usize,
    dir: PathBuf,
    /// Photos that failed to read one after another: a whole loop of them
    /// means none can be read, and the replay stops saying so.
    unreadable_run: usize,
}

impl ReplaySource {
    /// Lists the `.jpg`/`.jpeg`/`.png` files of `dir`.
    pub fn open(dir: &Path) -> Result<ReplaySource, FrameError> {
        // A photo named where its folder is meant: said as that, not as
        // "Not a directory (os error 20)" (audit BK K8).
        if dir.is_file() {
            return Err(FrameError::Unavailable(format!(
                "{} is a file, not a folder: give the folder of photos it is in",
                dir.display()
            )));
        }
        let rd = std::fs::read_dir(dir).map_err(|e| {
            FrameError::Unavailable(format!("Cannot read photos from {}: {e}", dir.display()))
        })?;
        let mut files: Vec<PathBuf> = rd
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.extension().and_then(|x| x.to_str()).is_some_and(|x| {
                    matches!(x.to_ascii_lowercase().as_str(), "jpg" | "jpeg" | "png")
                })
            })
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(FrameError::Unavailable(format!(
                "No .jpg or .png photos in {}",
                dir.display()
            )));
        }
        Ok(ReplaySource {
            files,
            next: 0,
            dir: dir.to_path_buf(),
            unreadable_run: 0,
        })
    }
}

impl ReplaySource {
    /// Whether any photo of the list reads as an image (a folder of none
    /// is not worth starting again: it would only fail once more).
    pub fn has_readable_photo(&self) -> bool {
        (self.files.iter()).any(|p| super::image_file::open_image(p).is_ok())
    }

    fn open_next(&mut self) -> Result<image::DynamicImage, FrameError> {
        let path = self
            .files
            .get(self.next % self.files.len().max(1))
            .cloned()
            .ok_or(FrameError::Exhausted)?;
        self.next += 1;
        super::image_file::open_image(&path).map_err(|e| FrameError::Unreadable {
            message: e.about_image(&path),
            path,
        })
    }
}

impl FrameSource for ReplaySource {
    fn describe(&self) -> String {
        format!(
            "replay of {} images in {}",
            self.files.len(),
            self.dir.display()
        )
    }

    fn next_frame(&mut self) -> Result<image::DynamicImage, FrameError> {
        let read = self.next_listed_frame();
        if matches!(read, Err(FrameError::Unreadable { .. })) {
            self.unreadable_run += 1;
            // Each bad photo was said as it came; past a whole loop of them
            // the replay would show "No frame yet" for ever.
            if self.unreadable_run > self.files.len() {
                return Err(FrameError::Unavailable(format!(
                    "None of the {} photos in {} can be read as an image",
                    self.files.len(),
                    self.dir.display()
                )));
            }
        } else {
            self.unreadable_run = 0;
        }
        read
    }

    fn last_frame_label(&self) -> Option<String> {
        let n = self.files.len();
        let i = (self.next + n - 1) % n.max(1);
        let name = self
            .files
            .get(i)?
            .file_name()?
            .to_string_lossy()
            .into_owned();
        Some(format!("photo {} of {n}, {name}; the folder loops", i + 1))
    }

    fn last_frame_path(&self) -> Option<PathBuf> {
        let n = self.files.len();
        self.files.get((self.next + n - 1) % n.max(1)).cloned()
    }
}

impl ReplaySource {
    /// The next photo of the list, listing the folder again when it went.
    fn next_listed_frame(&mut self) -> Result<image::DynamicImage, FrameError> {
        match self.open_next() {
            // The photo went: list the folder again (it may be gone too).
            Err(FrameError::Unreadable { path, .. }) if !path.exists() => {
                let fresh = ReplaySource::open(&self.dir).map_err(|e| {
                    FrameError::Lost(match e {
                        FrameError::Unavailable(why) => why,
                        other => other.to_string(),
                    })
                })?;
                // Go on from the photo after the one that went (the list is
                // sorted), not from the first.
                self.next = fresh.files.partition_point(|p| p < &path);
                self.files = fresh.files;
                self.open_next()
            }
            read => read,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replay_loops_and_reports_bad_images() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let img = image::RgbImage::new(4, 3);
        img.save(dir.path().join("a.png"))
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.path().join("b.png"), b"not a png").unwrap_or_else(|e| panic!("{e}"));
        let mut src = ReplaySource::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(src.next_frame().map(|f| f.width()).ok(), Some(4));
        assert_eq!(
            src.last_frame_label().as_deref(),
            Some("photo 1 of 2, a.png; the folder loops")
        );
        let err = src.next_frame();
        assert!(matches!(err, Err(FrameError::Unreadable { .. })), "{err:?}");
        let said = err.map(|_| ()).map_err(|e| e.to_string());
        assert!(
            said.as_ref()
                .is_err_and(|s| s.contains("b.png") && s == s.trim_end()),
            "{said:?}"
        );
        assert!(src.next_frame().is_ok(), "loops back to the first image");
    }

    /// A folder of photos none of which reads stops the replay after one
    /// loop, saying so, rather than showing no frame for ever (audit Y5).
    #[test]
    fn a_folder_of_unreadable_photos_stops_after_one_loop() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for name in ["a.png", "b.jpg"] {
            std::fs::write(dir.path().join(name), b"no image").unwrap_or_else(|e| panic!("{e}"));
        }
        let mut src = ReplaySource::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        for _ in 0..2 {
            let err = src.next_frame();
            assert!(matches!(err, Err(FrameError::Unreadable { .. })), "{err:?}");
        }
        let err = src.next_frame().err().map(|e| e.to_string());
        assert!(
            err.as_deref()
                .is_some_and(|e| e.starts_with("None of the 2 photos in")),
            "{err:?}"
        );
        // Not started again while that holds (audit Z2).
        assert!(!src.has_readable_photo());
        // One good photo among bad ones keeps the replay going.
        image::RgbImage::new(4, 3)
            .save(dir.path().join("c.png"))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut src = ReplaySource::open(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        assert!(src.has_readable_photo());
        let reads: Vec<bool> = (0..9).map(|_| src.next_frame().is_ok()).collect();
        assert_eq!(reads.iter().filter(|r| **r).count(), 3, "{reads:?}");
    }

    #[test]
    fn a_photo_removed_is_skipped_and_a_folder_removed_is_lost() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let photos = dir.path().join("photos");
        std::fs::create_dir(&photos).unwrap_or_else(|e| panic!("{e}"));
        for (name, w) in [("a.png", 4), ("b.png", 5), ("c.png", 6)] {
            image::RgbImage::new(w, 3)
                .save(photos.join(name))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let mut src = ReplaySource::open(&photos).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(src.next_frame().map(|f| f.width()).ok(), Some(4));
        std::fs::remove_file(photos.join("b.png")).unwrap_or_else(|e| panic!("{e}"));
        // b.png went: the folder is listed again and the replay goes on
        // with the photo after it.
        assert_eq!(src.next_frame().map(|f| f.width()).ok(), Some(6));
        assert_eq!(
            src.describe(),
            format!("replay of 2 images in {}", photos.display())
        );
        assert_eq!(src.next_frame().map(|f| f.width()).ok(), Some(4), "loops");
        std::fs::remove_dir_all(&photos).unwrap_or_else(|e| panic!("{e}"));
        let lost = src.next_frame();
        assert!(matches!(lost, Err(FrameError::Lost(_))), "{lost:?}");
        let said = lost.map(|_| ()).map_err(|e| e.to_string());
        assert!(
            said.as_ref().is_err_and(
                |s| s.starts_with("Lost the camera or photo folder") && s.contains("photos")
            ),
            "{said:?}"
        );
    }

    #[test]
    fn empty_or_missing_dirs_are_errors() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let empty = ReplaySource::open(dir.path()).map(|_| ());
        let said = empty.map_err(|e| e.to_string());
        assert_eq!(
            said,
            Err(format!(
                "No .jpg or .png photos in {}",
                dir.path().display()
            ))
        );
        let missing = ReplaySource::open(&dir.path().join("nope")).map(|_| ());
        let said = missing.map_err(|e| e.to_string()).err().unwrap_or_default();
        assert!(said.starts_with("Cannot read photos from "), "{said}");
        assert!(said.contains("nope"), "{said}");
    }
}
