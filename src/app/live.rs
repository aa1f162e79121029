//! The frame-source loop: a worker thread pulls frames from a source, reads
//! them, and hands the latest picture and detections to the UI, which drains
//! them once per frame. A lost source becomes a message; the game goes on
//! with manual entry and virtual dice.

use crate::vision::dice::scale::{
    CAMERA_FRAMES, DiceScale, FRAMES_TO_CHOOSE, READ_SCALES, SURE_SCALE, ScaleCalibration,
};
use crate::vision::frame_source::{FrameError, FrameSource};
use crate::vision::scan::{Looking, Readers, ScanRecord};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

/// Longest side of the picture sent to the UI: enough to check the table,
/// small enough to upload every frame.
pub const PREVIEW_MAX_SIDE: u32 = 640;

/// What a player can do when the frame source cannot be had.
const SOURCE_GONE: &str = "Carry on with manual entry or virtual dice; Adjutant tries again every few seconds and reads the camera or photos as soon as it can.";

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
    /// Cards in this frame that have not lain still long enough yet (held
    /// back from the reading, see [`crate::vision::settle_cards`]).
    pub moving_cards: usize,
    /// Resting dice this frame did not show, still reported from the frames
    /// before (a detector miss, a hand passing over).
    pub unseen_dice: usize,
    /// The frame at full resolution (kept as a labelled photo on request).
    pub picture: Arc<image::RgbImage>,
    /// The enlargement its dice were read at.
    pub dice_scale: f32,
    /// Where the frame came from, when the source names its frames.
    pub label: Option<String>,
    /// The file it was read from, for a folder of photos.
    pub path: Option<std::path::PathBuf>,
}

/// How the worker enlarges frames before reading dice, shared with the window:
/// the player's setting, and for [`DiceScale::Auto`] the measurement so far.
#[derive(Debug, Clone, PartialEq)]
pub struct DiceScaleState {
    /// The player's setting.
    pub setting: DiceScale,
    /// Frames measured for [`DiceScale::Auto`] (reset when Auto is picked).
    pub calibration: ScaleCalibration,
    /// How many times the setting was picked: a new pick measures the
    /// photos of a folder afresh.
    pub picks: u64,
}

impl Default for DiceScaleState {
    fn default() -> Self {
        Self::new(DiceScale::Auto)
    }
}

impl DiceScaleState {
    /// A state with `setting` and nothing measured.
    pub fn new(setting: DiceScale) -> DiceScaleState {
        DiceScaleState {
            setting,
            calibration: ScaleCalibration::recent(CAMERA_FRAMES),
            picks: 0,
        }
    }

    /// The one scale the next frame is read at: the fixed or chosen one
    /// (`None` while an automatic choice is still being measured: then
    /// every scale).
    fn settled_scale(&self) -> Option<f32> {
        match self.setting {
            DiceScale::Fixed(s) => Some(s),
            DiceScale::Auto => self.calibration.chosen(),
        }
    }

    /// For the window: how dice are being read, in a sentence.
    pub fn describe(&self) -> String {
        match (self.setting, self.calibration.chosen()) {
            (DiceScale::Fixed(s), _) => format!("Dice read at {s}x (set by you)."),
            (DiceScale::Auto, Some(s)) => format!(
                "Dice read at {s}x, measured on {} frames with dice.",
                self.calibration.frames()
            ),
            (DiceScale::Auto, None) => match self.calibration.frames() {
                n if n >= FRAMES_TO_CHOOSE => format!(
                    "Measuring the dice size: at no size do the dice of the last {n} frames read surely enough yet ({SURE_SCALE} on average); frames are still read at 1x, 1.5x and 2x."
                ),
                n => format!(
                    "Measuring the dice size: frames are read at 1x, 1.5x and 2x until {FRAMES_TO_CHOOSE} frames show dice read surely ({n} so far)."
                ),
            },
        }
    }

    /// The measurement behind [`Self::describe`] (mean read confidence per
    /// scale), for a closer look.
    pub fn details(&self) -> String {
        format!(
            "Enlarging the frame helps read dice that look small (a camera far above the table). Auto keeps the scale whose reads are surest: {}.",
            self.calibration.describe()
        )
    }
}

/// The dice-scale state shared by a worker and the window.
pub type SharedDiceScale = Arc<Mutex<DiceScaleState>>;

/// A copy of the shared state (a panicked holder's state is still read).
fn snapshot(shared: &SharedDiceScale) -> DiceScaleState {
    shared
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// While a camera's dice scale is measured, one frame in this many is read
/// at every scale (about seven plain reads' worth at 720p) and the others
/// at the scale leading so far: the measurement then takes about 15 frames
/// (a second or two of camera time), and a table that never shows dice, so
/// never settles it, costs about three reads per frame instead of seven.
pub const MEASURE_EVERY: u64 = 3;

/// Whether frame number `n` (counting from 1) is read at every scale while
/// a measurement is open: the first, then one in [`MEASURE_EVERY`].
fn is_measured_frame(n: u64) -> bool {
    n.saturating_sub(1).is_multiple_of(MEASURE_EVERY)
}

/// Which frames are read at every scale while an automatic dice scale is
/// measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    /// A camera: one frame in [`MEASURE_EVERY`].
    Sometimes,
    /// A photo of a folder measured fewer than [`FRAMES_TO_CHOOSE`] times:
    /// this one (a folder's loop may be as long as [`MEASURE_EVERY`] or a
    /// multiple, so that one frame in three would always be the same photo:
    /// audit AI3).
    This,
    /// A photo measured that often already: its dice would only say again
    /// what they said (a folder of card photos, with no dice to settle the
    /// scale, was read at every scale for ever: audit BJ).
    Not,
}

impl Measure {
    /// For a camera's frame (`still` false), or a still photo measured
    /// `times` so far (`None` when the source does not name its file).
    fn of(still: bool, times: Option<usize>) -> Measure {
        match (still, times) {
            (false, _) => Measure::Sometimes,
            (true, Some(n)) if n >= FRAMES_TO_CHOOSE => Measure::Not,
            (true, _) => Measure::This,
        }
    }
}

/// Reads frame number `n` with its dice at the scale `dice_scale` says,
/// measuring every scale as `measure` says while an automatic choice is
/// open.
fn read_frame(
    readers: &Readers,
    n: u64,
    frame: &image::DynamicImage,
    dice_scale: &SharedDiceScale,
    measure: Measure,
) -> Result<(ScanRecord, f32), crate::vision::error::VisionError> {
    let name = format!("frame {n}");
    let state = snapshot(dice_scale);
    let settled = state.settled_scale();
    let measuring = settled.is_none()
        && match measure {
            Measure::Sometimes => is_measured_frame(n),
            Measure::This => true,
            Measure::Not => false,
        };
    if !measuring {
        let scale = settled.unwrap_or_else(|| state.calibration.leading());
        let [record] = readers.scan_at_scales(&name, frame, Looking::ALL, [scale])?;
        return Ok((record, scale));
    }
    let records = readers.scan_at_scales(&name, frame, Looking::ALL, READ_SCALES)?;
    let mut guard = dice_scale.lock().unwrap_or_else(PoisonError::into_inner);
    // The window may have changed the setting meanwhile: measure only for
    // the same open choice.
    if guard.setting == DiceScale::Auto && guard.calibration == state.calibration {
        guard
            .calibration
            .observe_sightings(&records.each_ref().map(ScanRecord::dice_sightings));
    }
    let at = guard.calibration.leading_index();
    drop(guard);
    let scale = READ_SCALES[at];
    let record = records.into_iter().nth(at).unwrap_or_default();
    Ok((record, scale))
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
    /// How dice are read (shared with the worker; see
    /// [`Self::set_dice_scale`]).
    dice_scale: SharedDiceScale,
}

impl Live {
    /// Opens a source with `open` on a worker thread (a camera handle may not
    /// cross threads) and reads it there, its dice as `dice_scale` says.
    pub fn start(
        description: String,
        open: OpenSource,
        readers: Readers,
        pause: Duration,
        dice_scale: DiceScale,
    ) -> Live {
        let shared: SharedDiceScale = Arc::new(Mutex::new(DiceScaleState::new(dice_scale)));
        let worker_scale = Arc::clone(&shared);
        // A queue of one: the UI only ever wants the newest frame.
        let (tx, rx) = sync_channel(1);
        let stop = Arc::new(AtomicBool::new(false));
        let stop_worker = Arc::clone(&stop);
        let worker = std::thread::spawn(move || {
            let mut source = match open() {
                Ok(s) => s,
                Err(e) => {
                    let _ = tx.send(LiveUpdate::Problem {
                        message: format!("{e}. {SOURCE_GONE}"),
                        fatal: true,
                    });
                    return;
                }
            };
            let mut n = 0u64;
            // How often each photo of a folder was measured (see
            // `Measure`), since the setting was last picked.
            let mut measured = std::collections::HashMap::new();
            let mut picks = 0;
            while !stop_worker.load(Ordering::Relaxed) {
                n += 1;
                let update = match source.next_frame() {
                    Ok(frame) => {
                        // Worked out once a frame: a named frame is a still
                        // photo, measured once.
                        let label = source.last_frame_label();
                        let path = source.last_frame_path();
                        let now = snapshot(&worker_scale).picks;
                        if now != picks {
                            (picks, measured) = (now, Default::default());
                        }
                        let times = path.as_ref().map(|p| measured.get(p).copied().unwrap_or(0));
                        let measure = Measure::of(label.is_some(), times);
                        let read = read_frame(&readers, n, &frame, &worker_scale, measure);
                        if read.is_ok()
                            && measure == Measure::This
                            && let Some(p) = &path
                        {
                            *measured.entry(p.clone()).or_insert(0) += 1;
                        }
                        match read {
                            Ok((scan, scale)) => LiveUpdate::Frame(Box::new(LiveFrame {
                                dice_scale: scale,
                                label,
                                path,
                                ..preview(&frame, scan)
                            })),
                            Err(e) => LiveUpdate::Problem {
                                message: format!("Frame {n} not read: {e}"),
                                fatal: false,
                            },
                        }
                    }
                    Err(
                        e @ (FrameError::Lost(_)
                        | FrameError::Unavailable(_)
                        | FrameError::Exhausted),
                    ) => {
                        let _ = tx.send(LiveUpdate::Problem {
                            message: format!("{e}. {SOURCE_GONE}"),
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
            dice_scale: shared,
        }
    }

    /// How dice are being read now.
    pub fn dice_scale_state(&self) -> DiceScaleState {
        snapshot(&self.dice_scale)
    }

    /// Reads dice as `setting` says from the next frame on; for
    /// [`DiceScale::Auto`], measuring afresh.
    pub fn set_dice_scale(&self, setting: DiceScale) {
        let mut state = self
            .dice_scale
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *state = DiceScaleState {
            picks: state.picks + 1,
            ..DiceScaleState::new(setting)
        };
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
        moving_cards: 0,
        unseen_dice: 0,
        picture: Arc::new(picture),
        dice_scale: 1.0,
        label: None,
        path: None,
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

    /// Reads the photos in `dir` as a camera, its dice as `dice_scale` says.
    fn replay(dir: &std::path::Path, dice_scale: DiceScale) -> Live {
        let path = dir.to_path_buf();
        let open: OpenSource =
            Box::new(move || Ok(Box::new(ReplaySource::open(&path)?) as Box<dyn FrameSource>));
        Live::start("test".into(), open, readers(), Duration::ZERO, dice_scale)
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
        let mut live = replay(dir.path(), DiceScale::AS_IS);
        match next_update(&mut live) {
            Some(LiveUpdate::Frame(f)) => {
                assert_eq!(f.preview.width(), PREVIEW_MAX_SIDE);
                assert_eq!((f.scan.width, f.scan.height), (1280, 720));
                assert!(f.scan.cards.is_empty() && f.scan.dice.is_empty());
            }
            other => panic!("expected a frame, got {other:?}"),
        }
    }

    /// A folder with one frame: a real die showing 4 (a byler-d6 training
    /// crop) at half its size, about 21 px, on its table's colour.
    fn small_die_frames() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let crop = image::load_from_memory(include_bytes!("../../tests/fixtures/die_4_19.png"))
            .unwrap_or_else(|e| panic!("{e}"))
            .to_rgb8();
        let mut frame = image::RgbImage::from_pixel(320, 240, *crop.get_pixel(0, 0));
        image::imageops::replace(&mut frame, &crop, 120, 90);
        image::imageops::resize(&frame, 160, 120, image::imageops::FilterType::Triangle)
            .save(dir.path().join("a.png"))
            .unwrap_or_else(|e| panic!("{e}"));
        dir
    }

    #[test]
    fn small_dice_are_measured_then_read_at_the_scale_that_suits_them() {
        let dir = small_die_frames();
        let mut live = replay(dir.path(), DiceScale::Auto);
        let mut last = None;
        for _ in 0..(FRAMES_TO_CHOOSE as u64 * MEASURE_EVERY + 3) {
            match next_update(&mut live) {
                Some(LiveUpdate::Frame(f)) => last = Some(f),
                other => panic!("expected a frame, got {other:?}"),
            }
        }
        let state = live.dice_scale_state();
        let chosen = state.calibration.chosen();
        assert!(matches!(chosen, Some(s) if s > 1.0), "{state:?}");
        assert!(
            state.describe().contains("measured on"),
            "{}",
            state.describe()
        );
        assert!(
            state.details().contains("mean read confidence"),
            "{}",
            state.details()
        );
        let f = last.unwrap_or_else(|| panic!("no frame"));
        assert_eq!(Some(f.dice_scale), chosen);
        let values: Vec<u8> = f.scan.dice.iter().map(|d| d.value).collect();
        assert_eq!(values, [4], "{:?}", f.scan);
        // Read as it is, the die is sized into the detector's range (about
        // 35 px for 21) and read less surely.
        let means = state.calibration.means().unwrap_or_default();
        assert!(means[0] < means[1].max(means[2]), "{means:?}");
        assert!(f.scan.dice[0].size < 30.0, "{:?}", f.scan);
    }

    /// Audit BJ: a photo of a folder is measured as often as a choice
    /// needs, then read at one scale: a folder without dice is not read at
    /// every scale for ever.
    #[test]
    fn a_photo_is_measured_only_as_often_as_a_choice_needs() {
        assert_eq!(Measure::of(false, None), Measure::Sometimes);
        assert_eq!(Measure::of(true, Some(0)), Measure::This);
        assert_eq!(Measure::of(true, Some(FRAMES_TO_CHOOSE - 1)), Measure::This);
        assert_eq!(Measure::of(true, Some(FRAMES_TO_CHOOSE)), Measure::Not);
        assert_eq!(Measure::of(true, None), Measure::This);
    }

    #[test]
    fn one_frame_in_three_is_measured() {
        let measured: Vec<u64> = (1..=10).filter(|n| is_measured_frame(*n)).collect();
        assert_eq!(measured, [1, 4, 7, 10]);
    }

    /// Audit AI3: a folder of three photos with dice on one only; measured
    /// one frame in three, the same blank photo would always be measured.
    #[test]
    fn a_folder_as_long_as_the_measuring_step_is_measured_all_the_same() {
        let dir = small_die_frames();
        let blank = image::RgbImage::from_pixel(160, 120, image::Rgb([120, 120, 120]));
        for name in ["0.png", "b.png"] {
            blank
                .save(dir.path().join(name))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let mut live = replay(dir.path(), DiceScale::Auto);
        for _ in 0..(FRAMES_TO_CHOOSE as u64 * 3 + 3) {
            match next_update(&mut live) {
                Some(LiveUpdate::Frame(_)) => {}
                other => panic!("expected a frame, got {other:?}"),
            }
        }
        let state = live.dice_scale_state();
        assert!(state.calibration.chosen().is_some(), "{state:?}");
    }

    #[test]
    fn a_fixed_dice_scale_reads_every_frame_at_it() {
        let dir = small_die_frames();
        let mut live = replay(dir.path(), DiceScale::Fixed(2.0));
        match next_update(&mut live) {
            Some(LiveUpdate::Frame(f)) => {
                assert_eq!(f.dice_scale, 2.0);
                assert_eq!(f.scan.dice.iter().map(|d| d.value).collect::<Vec<_>>(), [4]);
            }
            other => panic!("expected a frame, got {other:?}"),
        }
        let state = live.dice_scale_state();
        assert_eq!(state.calibration.frames(), 0, "nothing is measured");
        assert_eq!(state.describe(), "Dice read at 2x (set by you).");
    }

    #[test]
    fn a_source_that_cannot_open_is_a_fatal_problem_not_a_panic() {
        let open: OpenSource =
            Box::new(|| Err(FrameError::Lost("camera 0: no such device".into())));
        let mut live = Live::start(
            "camera 0".into(),
            open,
            readers(),
            Duration::ZERO,
            DiceScale::Auto,
        );
        match next_update(&mut live) {
            Some(LiveUpdate::Problem { message, fatal }) => {
                assert!(fatal);
                assert!(message.contains("no such device"), "{message}");
            }
            other => panic!("expected a problem, got {other:?}"),
        }
    }
}
