//! The vision layer's one error type.

use std::path::{Path, PathBuf};

/// Everything that can go wrong reading a frame or loading / fitting a model.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    /// The frame has more pixels than the readers accept.
    #[error("image too large: {width}x{height} exceeds the limit of {limit} pixels")]
    ImageTooLarge {
        /// Frame width in pixels.
        width: u32,
        /// Frame height in pixels.
        height: u32,
        /// The pixel limit that was exceeded.
        limit: u64,
    },
    /// A model file could not be decoded.
    #[error("model file corrupt: {what} (at byte {offset})")]
    ModelCorrupt {
        /// What was wrong.
        what: String,
        /// Byte offset where the problem was noticed (0 when unknown).
        offset: usize,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A model file could not be used; `source` says why.
    #[error("{}: {source}", path.display())]
    ModelFile {
        /// The model file.
        path: PathBuf,
        /// What was wrong with it.
        source: Box<VisionError>,
    },
    /// An image file could not be decoded.
    #[error("{}: {}", path.display(), plain_decode_error(source))]
    Decode {
        /// The file involved.
        path: PathBuf,
        /// The decoder error.
        source: image::ImageError,
    },
    /// An image file ends before its image does (a copy still being made, a
    /// download cut short): decoded, it would show part of the table.
    #[error("{}: the file ends before its image does ({what}); copy or save it again", path.display())]
    Truncated {
        /// The file involved.
        path: PathBuf,
        /// What was found.
        what: String,
    },
    /// A file that is no photo the readers take (empty, or far too big).
    #[error("{}: {why}", path.display())]
    NotAPhoto {
        /// The file involved.
        path: PathBuf,
        /// Why, in words.
        why: String,
    },
    /// Fitting a model was impossible (e.g. no usable samples).
    #[error("cannot fit model: {0}")]
    Fit(String),
    /// Invalid input to a fitter (e.g. an empty data set).
    #[error("invalid input: {what}")]
    InvalidInput {
        /// What was wrong.
        what: String,
    },
}

/// A decoder's error as a player would say it: not an image at all, or
/// an image whose data is damaged (the decoder's words after it).
fn plain_decode_error(e: &image::ImageError) -> String {
    match e {
        image::ImageError::Unsupported(u)
            if matches!(
                u.kind(),
                image::error::UnsupportedErrorKind::Format(image::error::ImageFormatHint::Unknown)
            ) =>
        {
            "not an image file (no image format recognised in it)".into()
        }
        image::ImageError::Unsupported(u) => format!("an image this build cannot read ({u})"),
        // On one line: decoders end some messages with a line break
        // (audit CC C8: a lone ")" under the message).
        image::ImageError::Decoding(d) => format!(
            "the image data is damaged; copy or save it again (the decoder says: {})",
            d.to_string()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        ),
        other => format!("cannot read the image ({other})"),
    }
}

impl VisionError {
    /// This problem, found in the model file at `path` (file errors already
    /// name it).
    pub fn in_model_file(self, path: &Path) -> VisionError {
        match self {
            e @ (VisionError::Io { .. } | VisionError::ModelFile { .. }) => e,
            e => VisionError::ModelFile {
                path: path.to_path_buf(),
                source: Box::new(e),
            },
        }
    }

    /// The message for a problem with the image at `path`, naming the file
    /// once (file errors already name it) and without the trailing newline
    /// some decoders add.
    pub fn about_image(&self, path: &Path) -> String {
        let said = self.to_string();
        let said = said.trim_end();
        let name = path.display().to_string();
        if said.contains(&name) {
            said.to_string()
        } else {
            format!("{name}: {said}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_problem_names_its_file_once_and_ends_cleanly() {
        let big = VisionError::ImageTooLarge {
            width: 8000,
            height: 6000,
            limit: 40_000_000,
        };
        assert_eq!(
            big.about_image(Path::new("photos/big.png")),
            "photos/big.png: image too large: 8000x6000 exceeds the limit of 40000000 pixels"
        );
        let missing = VisionError::Io {
            path: "photos/gone.jpg".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "not found\n"),
        };
        assert_eq!(
            missing.about_image(Path::new("photos/gone.jpg")),
            "photos/gone.jpg: not found"
        );
    }
}
