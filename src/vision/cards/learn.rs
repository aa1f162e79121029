//! Fitting a [`CardModel`] from labelled photos, and "teach my deck".

use super::classify::{classify_corner, dot};
use super::faces::{face_feature, is_picture_card};
use super::find::{CornerFrame, quad_frames};
use super::index::{IndexFeatures, read_corner};
use super::model::{CardModel, FaceSample, Sample};
use super::{candidates, checked_rgb};
use crate::vision::error::VisionError;
use std::path::{Path, PathBuf};

/// At most this many samples per class are kept (evenly spread), bounding model
/// size (< 1 MB) and reading time.
pub const MAX_PER_CLASS: usize = 100;
/// Fitting augmentation: (corner shift along the diagonal, width scale), in card
/// widths. Outline corners found on the rounded arc sit ~0.02 W inside.
pub const AUGMENT: [(f32, f32); 4] = [(0.0, 1.0), (-0.02, 1.0), (0.02, 1.0), (0.0, 0.92)];
/// Negative ("not an index") samples kept at most.
pub const MAX_NEGATIVES: usize = 300;
/// A negative sample this close (cosine distance) to a real glyph sample is
/// dropped: it is probably a real index (4-index decks) and would veto reads.
pub const NEGATIVE_MIN_DIST: f32 = 0.3;
/// Rank glyph height (card widths) used if none was measured (Bicycle ~0.1).
pub const DEFAULT_RANK_HEIGHT: f32 = 0.1;
/// Red threshold used when the fitting set lacks one of the colours.
pub const DEFAULT_RED_THRESHOLD: f32 = 40.0;

/// One labelled photo for fitting.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelledImage {
    /// Image file.
    pub path: PathBuf,
    /// Card codes visible in the photo.
    pub cards: Vec<String>,
    /// Optional whole-card boxes `(code, [x, y, w, h])`.
    pub boxes: Vec<(String, [f32; 4])>,
}

/// Whether `code` is a valid card code (`As`, `Th`, `XR`, `XB`).
pub fn valid_code(code: &str) -> bool {
    let b = code.as_bytes();
    b.len() == 2
        && ((b"A23456789TJQK".contains(&b[0]) && b"shdc".contains(&b[1]))
            || (b[0] == b'X' && (b[1] == b'R' || b[1] == b'B')))
}

/// Maps a sarm single-card file name (`single_c10.jpg`, `single_hq.jpg`) to a code.
pub fn sarm_code(file_name: &str) -> Option<String> {
    let stem = file_name.split('.').next()?;
    let rest = stem.strip_prefix("single_")?;
    let (suit, rank) = rest.split_at_checked(1)?;
    let r = match rank {
        "a" => 'A',
        "10" => 'T',
        "j" => 'J',
        "q" => 'Q',
        "k" => 'K',
        d if d.len() == 1 && ("2"..="9").contains(&d) => d.chars().next()?,
        _ => return None,
    };
    if !"shdc".contains(suit) {
        return None;
    }
    Some(format!("{r}{suit}"))
}

/// Copies sarm single-card photos from `src` into `dst` under code names
/// (`single_c10.jpg` -> `Tc.jpg`), ready for [`learn_deck`]. Returns the count.
pub fn copy_sarm_singles(src: &Path, dst: &Path) -> Result<usize, VisionError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| VisionError::Io { path, source }
    };
    std::fs::create_dir_all(dst).map_err(io(dst))?;
    let mut n = 0;
    for e in std::fs::read_dir(src).map_err(io(src))? {
        let e = e.map_err(io(src))?;
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(code) = sarm_code(&name) {
            let ext = name.rsplit('.').next().unwrap_or("jpg");
            let to = dst.join(format!("{code}.{ext}"));
            std::fs::copy(e.path(), &to).map_err(io(&to))?;
            n += 1;
        }
    }
    Ok(n)
}

/// Builds a deck-specific model from a folder of one-card photos named by code
/// (`As.jpg`, `Th.png`, `XR.jpg`, ...). Files with other names are ignored.
pub fn learn_deck(dir: &Path) -> Result<CardModel, VisionError> {
    let rd = std::fs::read_dir(dir).map_err(|source| VisionError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut items = Vec::new();
    for e in rd.flatten() {
        let p = e.path();
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        if valid_code(&stem) {
            items.push(LabelledImage {
                path: p,
                cards: vec![stem],
                boxes: Vec::new(),
            });
        }
    }
    items.sort_by(|a, b| a.path.cmp(&b.path));
    fit_card_model(&items)
}

struct Collected {
    rank: Vec<Sample>,
    suit: Vec<Sample>,
    neg: Vec<Sample>,
    red: Vec<f32>,
    black: Vec<f32>,
    heights: Vec<f32>,
    faces: Vec<FaceCandidate>,
}

/// A picture card's face seen at a labelled outline, kept as a face sample
/// only if the outline's own index corners read as its label
/// ([`FaceCandidate::confirmed`]): a label is given to an outline by the box
/// holding its centre (or to the only outline of a one-card photo), and an
/// outline around several cards or a sheet of paper would otherwise teach
/// the wrong picture.
struct FaceCandidate {
    sample: FaceSample,
    corners: Vec<IndexFeatures>,
}

impl FaceCandidate {
    /// Some index corner reads the label with the fitted model, and none
    /// reads another card.
    fn confirmed(&self, model: &CardModel) -> bool {
        let reads: Vec<_> = self
            .corners
            .iter()
            .filter_map(|f| classify_corner(model, f))
            .collect();
        !reads.is_empty() && reads.iter().all(|r| r.code.as_bytes() == self.sample.code)
    }
}

fn add_positive(c: &mut Collected, f: IndexFeatures, code: &str) {
    let b = code.as_bytes();
    c.heights.push(f.rank_height);
    if b[0] == b'X' {
        c.rank.push(Sample {
            label: b'X',
            feat: f.rank,
        });
        return;
    }
    // A face index always has a pip under the rank; without one the "rank"
    // part is probably something else (a pip, a faint glyph lost) - skip it.
    let Some(s) = f.suit else {
        return;
    };
    c.rank.push(Sample {
        label: b[0],
        feat: f.rank,
    });
    if b[1] == b'h' || b[1] == b'd' {
        c.red.push(f.redness);
    } else {
        c.black.push(f.redness);
    }
    c.suit.push(Sample {
        label: b[1],
        feat: s,
    });
}

/// Fits a model from labelled photos: every whole, isolated card whose label is
/// unambiguous (the only card of the photo, or the only box containing its
/// centre) gives rank/suit samples from its two index corners and negative
/// samples from the other two corners. Inconsistent samples are dropped
/// (leave-one-out nearest neighbour disagrees with the label).
pub fn fit_card_model(images: &[LabelledImage]) -> Result<CardModel, VisionError> {
    let mut c = Collected {
        rank: Vec::new(),
        suit: Vec::new(),
        neg: Vec::new(),
        red: Vec::new(),
        black: Vec::new(),
        heights: Vec::new(),
        faces: Vec::new(),
    };
    for item in images {
        let img = crate::vision::image_file::open_image(&item.path)?;
        let Some(rgb) = checked_rgb(&img)? else {
            continue;
        };
        let cands = candidates(&rgb, false);
        let clear: Vec<_> = cands.singles.iter().filter(|(_, amb)| !amb).collect();
        for (quad, _) in &clear {
            let code = if item.cards.len() == 1 && clear.len() == 1 && item.boxes.len() <= 1 {
                Some(item.cards[0].clone())
            } else {
                let ctr = quad.centre();
                let hits: Vec<&(String, [f32; 4])> = item
                    .boxes
                    .iter()
                    .filter(|(_, b)| {
                        ctr[0] >= b[0]
                            && ctr[0] <= b[0] + b[2]
                            && ctr[1] >= b[1]
                            && ctr[1] <= b[1] + b[3]
                    })
                    .collect();
                if hits.len() == 1 {
                    Some(hits[0].0.clone())
                } else {
                    None
                }
            };
            let Some(code) = code.filter(|c| valid_code(c)) else {
                continue;
            };
            let mut face = match (
                is_picture_card(&code),
                face_feature(&rgb, quad),
                code.as_bytes(),
            ) {
                (true, Some(feat), [r, s]) => Some(FaceCandidate {
                    sample: FaceSample {
                        code: [*r, *s],
                        feat,
                    },
                    corners: Vec::new(),
                }),
                _ => None,
            };
            let frames = quad_frames(quad, true);
            for (k, f) in frames.iter().enumerate() {
                if k >= 2 {
                    if let Some(feat) = read_corner(&rgb, f) {
                        c.neg.push(Sample {
                            label: b'?',
                            feat: feat.rank,
                        });
                    }
                    continue;
                }
                // Augment: the outline corner may sit on the rounded arc or
                // outside it, and the width may be off a little.
                for (a, (shift, scale)) in AUGMENT.into_iter().enumerate() {
                    let g = CornerFrame {
                        origin: f.at(shift, shift),
                        width: f.width * scale,
                        ..*f
                    };
                    if let Some(feat) = read_corner(&rgb, &g) {
                        // The face is confirmed by the corner as found (no shift).
                        if let (Some(face), 0) = (&mut face, a) {
                            face.corners.push(feat.clone());
                        }
                        add_positive(&mut c, feat, &code);
                    }
                }
            }
            c.faces.extend(face);
            // Off-scale negatives: the same corner read as if the card were larger.
            if let Some(f) = frames.first() {
                let big = CornerFrame {
                    width: f.width * 1.8,
                    ..*f
                };
                if let Some(feat) = read_corner(&rgb, &big) {
                    c.neg.push(Sample {
                        label: b'?',
                        feat: feat.rank,
                    });
                }
            }
        }
    }
    if c.rank.is_empty() {
        return Err(VisionError::Fit(
            "no readable card corners in the fitting images".into(),
        ));
    }
    let rank = cap(clean(c.rank));
    let suit = cap(clean(c.suit));
    let mut neg: Vec<Sample> = c
        .neg
        .into_iter()
        .filter(|n| {
            rank.iter()
                .all(|s| 1.0 - dot(&s.feat, &n.feat) >= NEGATIVE_MIN_DIST)
        })
        .collect();
    neg = spread(neg, MAX_NEGATIVES);
    let mut rank = rank;
    rank.extend(neg);
    let red_threshold = match (median(&mut c.red), median(&mut c.black)) {
        (Some(r), Some(b)) if r > b => (r + b) / 2.0,
        _ => DEFAULT_RED_THRESHOLD,
    };
    let rank_height = median(&mut c.heights).unwrap_or(DEFAULT_RANK_HEIGHT);
    let mut model = CardModel {
        red_threshold,
        rank_height,
        rank,
        suit,
        faces: Vec::new(),
    };
    model.faces = c
        .faces
        .into_iter()
        .filter(|f| f.confirmed(&model))
        .map(|f| f.sample)
        .collect();
    Ok(model)
}

fn median(v: &mut [f32]) -> Option<f32> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    Some(v[v.len() / 2])
}

/// Keeps samples whose nearest other sample carries the same label (classes
/// with a single sample are kept).
fn clean(samples: Vec<Sample>) -> Vec<Sample> {
    let keep: Vec<bool> = samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut best: Option<(f32, u8)> = None;
            for (j, t) in samples.iter().enumerate() {
                if i == j {
                    continue;
                }
                let d = 1.0 - dot(&s.feat, &t.feat);
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, t.label));
                }
            }
            let alone = samples.iter().filter(|t| t.label == s.label).count() == 1;
            alone || best.is_none_or(|(_, l)| l == s.label)
        })
        .collect();
    samples
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect()
}

/// Caps each class at [`MAX_PER_CLASS`] samples.
fn cap(samples: Vec<Sample>) -> Vec<Sample> {
    let mut labels: Vec<u8> = samples.iter().map(|s| s.label).collect();
    labels.sort();
    labels.dedup();
    let mut out = Vec::new();
    for l in labels {
        let class: Vec<Sample> = samples.iter().filter(|s| s.label == l).cloned().collect();
        out.extend(spread(class, MAX_PER_CLASS));
    }
    out
}

/// At most `n` samples, evenly spread over the input order.
fn spread(v: Vec<Sample>, n: usize) -> Vec<Sample> {
    if v.len() <= n {
        return v;
    }
    let len = v.len();
    v.into_iter()
        .enumerate()
        .filter(|(i, _)| (i * n) / len != ((i + 1) * n) / len)
        .map(|(_, s)| s)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sarm_names_map_to_codes() {
        assert_eq!(sarm_code("single_c10.jpg").as_deref(), Some("Tc"));
        assert_eq!(sarm_code("single_hq.jpg").as_deref(), Some("Qh"));
        assert_eq!(sarm_code("single_s2.jpg").as_deref(), Some("2s"));
        assert_eq!(sarm_code("single_da.jpg").as_deref(), Some("Ad"));
        assert_eq!(sarm_code("scene_test01.jpg"), None);
        assert_eq!(sarm_code("single_x9.jpg"), None);
    }

    #[test]
    fn codes_validate() {
        assert!(valid_code("As") && valid_code("Th") && valid_code("XR"));
        assert!(!valid_code("1s") && !valid_code("Ax") && !valid_code("XX") && !valid_code("A"));
    }

    #[test]
    fn spread_keeps_n() {
        let v: Vec<Sample> = (0..10)
            .map(|i| Sample {
                label: i,
                feat: vec![],
            })
            .collect();
        assert_eq!(spread(v, 4).len(), 4);
    }
}
