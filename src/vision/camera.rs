//! The webcam as a [`FrameSource`], through nokhwa. Opening a missing camera
//! is an error ([`FrameError::Unavailable`]), never a panic; a camera
//! unplugged mid-game makes `next_frame` return [`FrameError::Lost`].

use super::frame_source::{FrameError, FrameSource};
use nokhwa::Camera;
use nokhwa::pixel_format::RgbFormat;
use nokhwa::utils::{CameraIndex, RequestedFormat, RequestedFormatType};

/// A webcam stream.
pub struct CameraSource {
    camera: Camera,
    name: String,
}

impl std::fmt::Debug for CameraSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CameraSource")
            .field("name", &self.name)
            .finish()
    }
}

impl CameraSource {
    /// Opens camera `index` at its highest resolution that decodes to RGB.
    pub fn open(index: u32) -> Result<CameraSource, FrameError> {
        let requested =
            RequestedFormat::new::<RgbFormat>(RequestedFormatType::AbsoluteHighestResolution);
        let mut camera = Camera::new(CameraIndex::Index(index), requested).map_err(|e| {
            FrameError::Unavailable(format!("Camera {index} cannot be opened: {e}"))
        })?;
        camera.open_stream().map_err(|e| {
            FrameError::Unavailable(format!("Camera {index} gives no picture: {e}"))
        })?;
        let name = camera.info().human_name();
        Ok(CameraSource { camera, name })
    }

    /// Names of the cameras the system reports (empty when there are none).
    pub fn list() -> Vec<String> {
        nokhwa::query(nokhwa::utils::ApiBackend::Auto)
            .map(|cams| cams.iter().map(|c| c.human_name()).collect())
            .unwrap_or_default()
    }
}

impl FrameSource for CameraSource {
    fn describe(&self) -> String {
        format!("camera {}", self.name)
    }

    fn next_frame(&mut self) -> Result<image::DynamicImage, FrameError> {
        let buffer = self
            .camera
            .frame()
            .map_err(|e| FrameError::Lost(format!("{}: {e}", self.name)))?;
        let rgb = buffer
            .decode_image::<RgbFormat>()
            .map_err(|e| FrameError::Lost(format!("{}: cannot decode frame: {e}", self.name)))?;
        Ok(image::DynamicImage::ImageRgb8(rgb))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_camera_is_an_error_not_a_panic() {
        // CI machines and this sandbox have no /dev/video*; a real camera at a
        // high index is equally absent.
        let r = CameraSource::open(97);
        assert!(r.is_err());
    }
}
