//! The vision layer's one error type.

use std::path::PathBuf;

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
    /// An image file could not be decoded.
    #[error("cannot decode image {}: {source}", path.display())]
    Decode {
        /// The file involved.
        path: PathBuf,
        /// The decoder error.
        source: image::ImageError,
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
