//! The vision layer: frames in, detections out. It knows cards and dice as
//! shapes and codes, nothing about any game.

pub mod eval;
pub mod frame_source;
