//! The frame-source loop: a worker thread pulls frames from a source, reads
//! them, and hands the latest picture and detections to the UI, which drains
//! them once per frame. A lost source becomes a message; the game goes on
//! with manual entry and virtual dice.

use crate::vision::frame_source::{FrameError, FrameSource};
use crate::vision::scan::{Looking, Readers, ScanRecord};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// Longest side of the picture sent to the UI: enough to check the table,
/// small enough to upload every frame.
pub const PREVIEW_MAX_SIDE: u32 = 640;

/// Pause between replayed frames, so a replay looks like a slow camera.
pub const REPLAY_PAUSE: Duration = Duration::from_millis(700);

/// Opens a frame source; run on the worker thread.
pub type OpenSource = Box<dyn FnOnce() -> Result<Box<dyn FrameSource>, FrameError> + Send>;

/// One read frame, ready to show.
#[derive(Debug, Clone)]
pub struct LiveFrame {
    /// Downscaled RGB picture.
    pub preview: image::RgbImage,
    /// Preview pixels per frame pixel.
    pub scale: f32,
    /// What was read, in frame pixels, with the player's corrections.
    pub scan: ScanRecord,
    /// What the readers read, before corrections (dice settled and voted
    /// across frames, see [`crate::vision::settle`]).
    pub raw: ScanRecord,
    /// Dice in this frame that have not come to rest yet.
    pub moving_dice: usize,
    /// Resting dice this frame did not show, still reported from the frames
    /// before (a detector miss, a hand passing over).
    pub unseen_dice: usize,
    /// The frame at full resolution (kept as a labelled photo on request).
    pub picture: Arc<image::RgbImage>,
}

/// What the worker sends.
#[derive(Debug)]
pub enum LiveUpdate {
    /// A new frame.
    Frame(Box<LiveFrame>),
    /// A problem; `fatal` when the source stopped.
    Problem {
        /// Message for the player.
        message: String,
        /// The source is gone.
        fatal: bool,
    },
}

/// A running frame-source loop.
pub struct Live {
    /// Source description.
    pub source: String,
    rx: Receiver<LiveUpdate>,
    stop: Arc<AtomicBool>,
    worker: Option<JoinHandle<()>>,
}

impl Live {
    /// Opens a source with `open` on a worker thread (a camera handle may not
    /// cross threads) and reads it there.
    pub fn start(description: String, open: OpenSource, readers: Readers, pause: Duration) -> Live {
        // A queue of one: the UI only ever wants the newest frame.
        let (tx, rx) = sync_channel(1);
        let stop = Arc::new(AtomicBool::new(false));
        let stop_worker = Arc::clone(&stop);
        let worker = std::thread::spawn(move || {
            let mut source = match open() {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.send(LiveUpdate::Problem {
                        message: format!("{e}. Carry on with manual entry or virtual dice."),
                        fatal: true,
                    });
                    return;
                }
            };
            let mut n = 0u64;
            while !stop_worker.load(Ordering::Relaxed) {
                n += 1;
                let update = match source.next_frame() {
                    Ok(frame) => match readers.scan(&format!("frame {n}"), &frame, Looking::ALL) {
                        Ok(scan) => LiveUpdate::Frame(Box::new(preview(&frame, scan))),
                        Err(e) => LiveUpdate::Problem {
                            message: format!("Frame {n} not read: {e}"),
                            fatal: false,
                        },
                    },
                    Err(e @ (FrameError::Lost(_) | FrameError::Exhausted)) => {
                        let _ = tx.send(LiveUpdate::Problem {
                            message: format!("{e}. Carry on with manual entry or virtual dice."),
                            fatal: true,
                        });
                        return;
                    }
                    Err(e) => LiveUpdate::Problem {
                        message: e.to_string(),
                        fatal: false,
                    },
                };
                if tx.send(update).is_err() {
                    return;
                }
                std::thread::sleep(pause);
            }
        });
        Live {
            source: description,
            rx,
            stop,
            worker: Some(worker),
        }
    }

    /// Takes every update that arrived since the last call.
    pub fn drain(&mut self) -> Vec<LiveUpdate> {
        let mut out = Vec::new();
        loop {
            match self.rx.try_recv() {
                Ok(u) => out.push(u),
                Err(TryRecvError::Empty | TryRecvError::Disconnected) => return out,
            }
        }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Unblock a worker waiting on a full queue, then wait for it.
        while self.rx.try_recv().is_ok() {}
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// Downscales `frame` for the window and pairs it with its scan.
pub fn preview(frame: &image::DynamicImage, scan: ScanRecord) -> LiveFrame {
    let long = frame.width().max(frame.height()).max(1);
    let scale = (PREVIEW_MAX_SIDE as f32 / long as f32).min(1.0);
    let w = ((frame.width() as f32 * scale).round() as u32).max(1);
    let h = ((frame.height() as f32 * scale).round() as u32).max(1);
    let picture = frame.to_rgb8();
    let preview = image::imageops::resize(&picture, w, h, image::imageops::FilterType::Triangle);
    LiveFrame {
        preview,
        scale,
        raw: scan.clone(),
        scan,
        moving_dice: 0,
        unseen_dice: 0,
        picture: Arc::new(picture),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::frame_source::ReplaySource;

    /// Waits for the worker's next update; generous, since CI machines are slow.
    fn next_update(live: &mut Live) -> Option<LiveUpdate> {
        for _ in 0..600 {
            if let Some(u) = live.drain().into_iter().next() {
                return Some(u);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    fn readers() -> Readers {
        Readers::builtin().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn replayed_frames_arrive_read_and_downscaled() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        image::RgbImage::from_pixel(1280, 720, image::Rgb([90, 90, 90]))
            .save(dir.path().join("a.png"))
            .unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().to_path_buf();
        let open: OpenSource =
            Box::new(move || Ok(Box::new(ReplaySource::open(&path)?) as Box<dyn FrameSource>));
        let mut live = Live::start("test".into(), open, readers(), Duration::ZERO);
        match next_update(&mut live) {
            Some(LiveUpdate::Frame(f)) => {
                assert_eq!(f.preview.width(), PREVIEW_MAX_SIDE);
                assert_eq!((f.scan.width, f.scan.height), (1280, 720));
                assert!(f.scan.cards.is_empty() && f.scan.dice.is_empty());
            }
            other => panic!("expected a frame, got {other:?}"),
        }
    }

    #[test]
    fn a_source_that_cannot_open_is_a_fatal_problem_not_a_panic() {
        let open: OpenSource =
            Box::new(|| Err(FrameError::Lost("camera 0: no such device".into())));
        let mut live = Live::start("camera 0".into(), open, readers(), Duration::ZERO);
        match next_update(&mut live) {
            Some(LiveUpdate::Problem { message, fatal }) => {
                assert!(fatal);
                assert!(message.contains("no such device"), "{message}");
            }
            other => panic!("expected a problem, got {other:?}"),
        }
    }
}
