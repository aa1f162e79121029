//! The card model: labelled glyph samples for nearest-neighbour reading, and
//! its versioned binary file format.
//!
//! # File format (version 2, little endian)
//! ```text
//! magic      8 bytes  "ADJCARDS"
//! version    u32      2 (version 1 files, without the face part, still load)
//! red_thr    f32      redness above which ink is red
//! rank_h     f32      typical rank glyph height in card widths (scale cue)
//! rank_dim   u32      length of a rank feature (RANK_SIDE^2 = 400)
//! suit_dim   u32      length of a suit feature (SUIT_SIDE^2 = 256)
//! n_rank     u32      then n_rank records: label u8, scale f32, rank_dim x i8
//! n_suit     u32      then n_suit records: label u8, scale f32, suit_dim x i8
//! face_dim   u32      length of a face feature (FACE_DIM = 648)   } version 2
//! n_face     u32      then n_face records: code 2 bytes, scale f32, } only
//!                     face_dim x i8
//! ```
//! A feature value is `i8 * scale`. Rank labels: `A 2-9 T J Q K`, `X` (joker),
//! `?` (not an index: a negative sample). Suit labels: `s h d c`. Face codes
//! are card codes of picture cards (`Kh`, `XR`; see `faces`).

use super::faces::{FACE_DIM, face_distance, is_picture_card};
use super::index::{RANK_SIDE, SUIT_SIDE};
use crate::vision::error::VisionError;

/// File magic.
pub const MAGIC: &[u8; 8] = b"ADJCARDS";
/// Current format version.
pub const VERSION: u32 = 2;
/// The older version still read (no face samples).
pub const VERSION_NO_FACES: u32 = 1;
/// Largest sample count accepted from a file (guards allocation on corrupt input).
pub const MAX_SAMPLES: u32 = 200_000;

/// One labelled feature vector.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Class label (ASCII, see module docs).
    pub label: u8,
    /// Unit-norm feature vector.
    pub feat: Vec<f32>,
}

/// The whole face of one picture card (see `faces`).
#[derive(Debug, Clone, PartialEq)]
pub struct FaceSample {
    /// Card code, e.g. `*b"Kh"`.
    pub code: [u8; 2],
    /// Unit-norm face feature ([`FACE_DIM`] values).
    pub feat: Vec<f32>,
}

/// A fitted card model.
#[derive(Debug, Clone, PartialEq)]
pub struct CardModel {
    /// Redness (mean `r - max(g,b)` of index ink) above which a card is red.
    pub red_threshold: f32,
    /// Typical rank glyph height in card widths, used to find the card scale
    /// from a glyph when no whole card is visible.
    pub rank_height: f32,
    /// Rank glyph samples.
    pub rank: Vec<Sample>,
    /// Suit pip samples.
    pub suit: Vec<Sample>,
    /// Face samples of picture cards (courts, jokers).
    pub faces: Vec<FaceSample>,
}

impl CardModel {
    /// Serialises to the current binary format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.red_threshold.to_le_bytes());
        out.extend_from_slice(&self.rank_height.to_le_bytes());
        out.extend_from_slice(&((RANK_SIDE * RANK_SIDE) as u32).to_le_bytes());
        out.extend_from_slice(&((SUIT_SIDE * SUIT_SIDE) as u32).to_le_bytes());
        for set in [&self.rank, &self.suit] {
            out.extend_from_slice(&(set.len() as u32).to_le_bytes());
            for s in set.iter() {
                out.push(s.label);
                push_feature(&mut out, &s.feat);
            }
        }
        out.extend_from_slice(&(FACE_DIM as u32).to_le_bytes());
        out.extend_from_slice(&(self.faces.len() as u32).to_le_bytes());
        for f in &self.faces {
            out.extend_from_slice(&f.code);
            push_feature(&mut out, &f.feat);
        }
        out
    }

    /// Parses the binary format; never panics on malformed input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, VisionError> {
        let mut r = Reader { b: bytes, pos: 0 };
        let magic = r.take(8, "magic")?;
        if magic != MAGIC {
            return Err(corrupt("bad magic (not an Adjutant card model)", 0));
        }
        let version = r.u32("version")?;
        if version != VERSION && version != VERSION_NO_FACES {
            return Err(corrupt(&format!("unsupported version {version}"), 8));
        }
        let red_threshold = r.f32("red threshold")?;
        if !red_threshold.is_finite() {
            return Err(corrupt("red threshold not finite", r.pos - 4));
        }
        let rank_height = r.f32("rank height")?;
        if !(rank_height.is_finite() && rank_height > 0.0 && rank_height < 1.0) {
            return Err(corrupt("rank height out of range", r.pos - 4));
        }
        let rank_dim = r.u32("rank dim")? as usize;
        let suit_dim = r.u32("suit dim")? as usize;
        if rank_dim != RANK_SIDE * RANK_SIDE || suit_dim != SUIT_SIDE * SUIT_SIDE {
            return Err(corrupt(
                "feature dimensions do not match this reader",
                r.pos - 8,
            ));
        }
        let mut sets = Vec::new();
        for (dim, what) in [(rank_dim, "rank"), (suit_dim, "suit")] {
            let n = r.u32(what)?;
            if n > MAX_SAMPLES {
                return Err(corrupt(
                    &format!("{what} sample count {n} too large"),
                    r.pos - 4,
                ));
            }
            let mut v = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let label = r.take(1, what)?[0];
                let feat = r.feature(dim, what)?;
                v.push(Sample { label, feat });
            }
            sets.push(v);
        }
        let mut faces = Vec::new();
        if version >= VERSION {
            let face_dim = r.u32("face dim")? as usize;
            if face_dim != FACE_DIM {
                return Err(corrupt(
                    "face feature dimension does not match this reader",
                    r.pos - 4,
                ));
            }
            let n = r.u32("face")?;
            if n > MAX_SAMPLES {
                return Err(corrupt(
                    &format!("face sample count {n} too large"),
                    r.pos - 4,
                ));
            }
            for _ in 0..n {
                let at = r.pos;
                let c = r.take(2, "face")?;
                let code = [c[0], c[1]];
                if !std::str::from_utf8(&code).is_ok_and(is_picture_card) {
                    return Err(corrupt(
                        "face sample of a card that is not a picture card",
                        at,
                    ));
                }
                let feat = r.feature(face_dim, "face")?;
                faces.push(FaceSample { code, feat });
            }
        }
        if r.pos != bytes.len() {
            return Err(corrupt("trailing bytes after model", r.pos));
        }
        let suit = sets.pop().unwrap_or_default();
        let rank = sets.pop().unwrap_or_default();
        Ok(CardModel {
            red_threshold,
            rank_height,
            rank,
            suit,
            faces,
        })
    }

    /// Adds all samples of `other` (e.g. a taught deck on top of the general model).
    pub fn merge(&mut self, other: &CardModel) {
        self.rank.extend(other.rank.iter().cloned());
        self.suit.extend(other.suit.iter().cloned());
        self.faces.extend(other.faces.iter().cloned());
        self.red_threshold = (self.red_threshold + other.red_threshold) / 2.0;
        self.rank_height = (self.rank_height + other.rank_height) / 2.0;
    }

    /// Drops samples within cosine distance `min_dist` of an earlier kept
    /// sample of the same label (near-duplicates, e.g. the shifted copies of
    /// one corner): a smaller model classifies faster, and each class's nearest
    /// distance grows by at most `min_dist`. Returns how many were dropped.
    pub fn condense(&mut self, min_dist: f32) -> usize {
        let near = |k: &Sample, s: &Sample| {
            k.label == s.label
                && k.feat.len() == s.feat.len()
                && 1.0 - k.feat.iter().zip(&s.feat).map(|(a, b)| a * b).sum::<f32>() < min_dist
        };
        let before = self.rank.len() + self.suit.len() + self.faces.len();
        let after = keep_first_of_each(&mut self.rank, near)
            + keep_first_of_each(&mut self.suit, near)
            + keep_first_of_each(&mut self.faces, |k, f| {
                k.code == f.code && face_distance(&k.feat, &f.feat) < min_dist
            });
        before - after
    }
}

/// Drops every item of `v` that `near` pairs with an earlier kept item;
/// returns how many are kept.
fn keep_first_of_each<T>(v: &mut Vec<T>, near: impl Fn(&T, &T) -> bool) -> usize {
    let mut kept: Vec<T> = Vec::with_capacity(v.len());
    for s in v.drain(..) {
        if !kept.iter().any(|k| near(k, &s)) {
            kept.push(s);
        }
    }
    *v = kept;
    v.len()
}

/// Appends a feature as its scale (`f32`) and `i8` values.
fn push_feature(out: &mut Vec<u8>, feat: &[f32]) {
    let mx = feat.iter().fold(0f32, |m, v| m.max(v.abs()));
    let scale = if mx > 0.0 { mx / 127.0 } else { 1.0 };
    out.extend_from_slice(&scale.to_le_bytes());
    for v in feat {
        out.push(((v / scale).round().clamp(-127.0, 127.0) as i8) as u8);
    }
}

fn corrupt(what: &str, offset: usize) -> VisionError {
    VisionError::ModelCorrupt {
        what: what.to_string(),
        offset,
    }
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], VisionError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.b.len());
        match end {
            Some(e) => {
                let s = &self.b[self.pos..e];
                self.pos = e;
                Ok(s)
            }
            None => Err(corrupt(
                &format!("truncated while reading {what}"),
                self.pos,
            )),
        }
    }
    fn u32(&mut self, what: &str) -> Result<u32, VisionError> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn f32(&mut self, what: &str) -> Result<f32, VisionError> {
        Ok(f32::from_bits(self.u32(what)?))
    }
    /// A feature written by [`push_feature`].
    fn feature(&mut self, dim: usize, what: &str) -> Result<Vec<f32>, VisionError> {
        let scale = self.f32(what)?;
        if !scale.is_finite() {
            return Err(corrupt("sample scale not finite", self.pos - 4));
        }
        let raw = self.take(dim, what)?;
        Ok(raw.iter().map(|&b| (b as i8) as f32 * scale).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> CardModel {
        let mut f = vec![0.0; RANK_SIDE * RANK_SIDE];
        f[3] = 0.5;
        f[7] = -0.25;
        let mut g = vec![0.0; SUIT_SIDE * SUIT_SIDE];
        g[1] = 1.0;
        CardModel {
            red_threshold: 40.0,
            rank_height: 0.1,
            rank: vec![Sample {
                label: b'A',
                feat: f,
            }],
            suit: vec![Sample {
                label: b's',
                feat: g,
            }],
            faces: vec![FaceSample {
                code: *b"Qd",
                feat: (0..FACE_DIM)
                    .map(|k| if k == 5 { 0.8 } else { 0.0 })
                    .collect(),
            }],
        }
    }

    #[test]
    fn condense_drops_near_duplicates_of_the_same_label_only() {
        let smp = |label: u8, x: f32| {
            let n = (x * x + 1.0).sqrt();
            Sample {
                label,
                feat: vec![x / n, 1.0 / n],
            }
        };
        let mut m = CardModel {
            red_threshold: 40.0,
            rank_height: 0.1,
            rank: vec![
                smp(b'A', 0.0),
                smp(b'A', 0.01),
                smp(b'K', 0.0),
                smp(b'A', 5.0),
            ],
            suit: vec![smp(b's', 0.0), smp(b's', 0.0)],
            faces: Vec::new(),
        };
        assert_eq!(m.condense(0.01), 2);
        let labels: Vec<u8> = m.rank.iter().map(|s| s.label).collect();
        assert_eq!(labels, [b'A', b'K', b'A']);
        assert_eq!(m.suit.len(), 1);
        assert_eq!(m.condense(0.0), 0);
    }

    #[test]
    fn round_trip() {
        let m = tiny();
        let back = CardModel::from_bytes(&m.to_bytes()).unwrap();
        assert_eq!(back.rank.len(), 1);
        assert_eq!(back.rank[0].label, b'A');
        assert!((back.rank[0].feat[3] - 0.5).abs() < 0.01);
        assert!((back.rank[0].feat[7] + 0.25).abs() < 0.01);
        assert_eq!(back.faces.len(), 1);
        assert_eq!(&back.faces[0].code, b"Qd");
        assert!((back.faces[0].feat[5] - 0.8).abs() < 0.01);
    }

    /// Models written before face samples existed (version 1: the same
    /// layout without the face part) still load, with no faces.
    #[test]
    fn version_one_files_load_without_faces() {
        let mut m = tiny();
        let full = m.to_bytes();
        m.faces.clear();
        let mut old = m.to_bytes();
        // Drop the empty face part (dim and count) and mark it version 1.
        old.truncate(old.len() - 8);
        old[8..12].copy_from_slice(&VERSION_NO_FACES.to_le_bytes());
        let back = CardModel::from_bytes(&old).unwrap();
        assert!(back.faces.is_empty());
        assert_eq!(back.rank.len(), 1);
        // A version-1 header on a file with a face part has trailing bytes.
        let mut mislabelled = full;
        mislabelled[8..12].copy_from_slice(&VERSION_NO_FACES.to_le_bytes());
        assert!(CardModel::from_bytes(&mislabelled).is_err());
    }

    #[test]
    fn a_face_of_a_number_card_is_corrupt() {
        let mut m = tiny();
        m.faces[0].code = *b"9d";
        let err = CardModel::from_bytes(&m.to_bytes()).unwrap_err();
        assert!(err.to_string().contains("not a picture card"), "{err}");
    }

    #[test]
    fn corrupt_inputs_are_errors() {
        let good = tiny().to_bytes();
        for cut in [0, 5, 12, 30, good.len() - 1] {
            assert!(CardModel::from_bytes(&good[..cut]).is_err());
        }
        let mut bad = good.clone();
        bad[0] = b'X';
        assert!(CardModel::from_bytes(&bad).is_err());
        let mut long = good;
        long.push(0);
        assert!(CardModel::from_bytes(&long).is_err());
    }
}
