//! The dice model file: a detector MLP, a face classifier MLP and the decision
//! thresholds, in a small versioned little-endian binary format.
//!
//! Layout (all integers `u32` LE, all reals `f32` LE):
//! ```text
//! magic  b"ADJDICE\0"            8 bytes
//! version                        u32 (= MODEL_VERSION)
//! detector   MLP block
//! conv1 block, conv2 block       face classifier convolutions
//! head       MLP block           face classifier head
//! n_params, then n_params f32    det_threshold, read_threshold, nms_factor
//! fnv1a-32 checksum of all preceding bytes
//! MLP block: n_in, n_hidden, n_out, then in_mean[n_in], in_scale[n_in],
//!            w1[n_hidden*n_in], b1[n_hidden], w2[n_out*n_hidden], b2[n_out]
//! conv block: cin, cout, then w[cout*cin*9], b[cout]
//! ```
//! The conv blocks carry the classifier's widths (8 and 16 channels in the
//! shipped model; `fit-dice --cnn-widths` fits others), so any widths that
//! chain (conv1's output = conv2's input, each at most
//! [`super::cnn::MAX_WIDTH`]) load without a format change.

use super::cnn::{Conv, FaceNet};
use super::crop::N_CROP_FEATURES;
use super::mlp::Mlp;
use super::prep::N_DET_FEATURES;
use crate::vision::error::VisionError;

/// File magic.
pub const MAGIC: &[u8; 8] = b"ADJDICE\0";
/// Current format version; bump when the feature definitions change.
pub const MODEL_VERSION: u32 = 3;
/// Output classes of the face classifier: 0 = not a die, 1..=6 = face value.
pub const N_CLASSES: usize = 7;
/// Largest layer width accepted when loading (guards against absurd allocations).
const MAX_LAYER: usize = 4096;

/// Everything the reader loads at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct DiceModel {
    /// Per-cell detector: outputs `[objectness logit, ln(die size px)]`.
    pub detector: Mlp,
    /// Face classifier on crop features: outputs 7 class logits.
    pub classifier: FaceNet,
    /// Minimum detector probability for a local maximum to become a candidate.
    pub det_threshold: f32,
    /// Minimum face probability for a die to be reported as read (else unread).
    pub read_threshold: f32,
    /// Non-maximum suppression radius as a fraction of the predicted die size.
    pub nms_factor: f32,
}

fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= *b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_f32s(out: &mut Vec<u8>, v: &[f32]) {
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
}

fn put_conv(out: &mut Vec<u8>, c: &Conv) {
    put_u32(out, c.cin as u32);
    put_u32(out, c.cout as u32);
    put_f32s(out, &c.w);
    put_f32s(out, &c.b);
}

fn put_mlp(out: &mut Vec<u8>, m: &Mlp) {
    put_u32(out, m.n_in as u32);
    put_u32(out, m.n_hidden as u32);
    put_u32(out, m.n_out as u32);
    for v in [&m.in_mean, &m.in_scale, &m.w1, &m.b1, &m.w2, &m.b2] {
        put_f32s(out, v);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

fn corrupt(what: &str) -> VisionError {
    VisionError::ModelCorrupt {
        what: what.to_string(),
        offset: 0,
    }
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], VisionError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or_else(|| corrupt("length overflow"))?;
        let s = self
            .bytes
            .get(self.pos..end)
            .ok_or_else(|| corrupt("truncated"))?;
        self.pos = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, VisionError> {
        let s = self.take(4)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    fn f32s(&mut self, n: usize) -> Result<Vec<f32>, VisionError> {
        let s = self.take(n.checked_mul(4).ok_or_else(|| corrupt("length overflow"))?)?;
        Ok(s.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
    fn dim(&mut self) -> Result<usize, VisionError> {
        let v = self.u32()? as usize;
        if v == 0 || v > MAX_LAYER {
            return Err(corrupt("layer size out of range"));
        }
        Ok(v)
    }
    fn conv(&mut self) -> Result<Conv, VisionError> {
        let (cin, cout) = (self.dim()?, self.dim()?);
        Ok(Conv {
            cin,
            cout,
            w: self.f32s(cin * cout * 9)?,
            b: self.f32s(cout)?,
        })
    }
    fn mlp(&mut self) -> Result<Mlp, VisionError> {
        let (n_in, n_hidden, n_out) = (self.dim()?, self.dim()?, self.dim()?);
        let m = Mlp {
            n_in,
            n_hidden,
            n_out,
            in_mean: self.f32s(n_in)?,
            in_scale: self.f32s(n_in)?,
            w1: self.f32s(n_in * n_hidden)?,
            b1: self.f32s(n_hidden)?,
            w2: self.f32s(n_out * n_hidden)?,
            b2: self.f32s(n_out)?,
        };
        if !m.is_consistent() {
            return Err(corrupt("non-finite weights"));
        }
        Ok(m)
    }
}

impl DiceModel {
    /// Serialise to the binary model format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, MODEL_VERSION);
        put_mlp(&mut out, &self.detector);
        put_conv(&mut out, &self.classifier.conv1);
        put_conv(&mut out, &self.classifier.conv2);
        put_mlp(&mut out, &self.classifier.head);
        let params = [self.det_threshold, self.read_threshold, self.nms_factor];
        put_u32(&mut out, params.len() as u32);
        put_f32s(&mut out, &params);
        let sum = fnv1a(&out);
        put_u32(&mut out, sum);
        out
    }

    /// Parse and validate the binary model format.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, VisionError> {
        if bytes.len() < MAGIC.len() + 8 {
            return Err(corrupt("file too short"));
        }
        let (body, tail) = bytes.split_at(bytes.len() - 4);
        let stored = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        if &body[..MAGIC.len()] != MAGIC {
            return Err(corrupt("bad magic (not a dice model)"));
        }
        if fnv1a(body) != stored {
            return Err(corrupt("checksum mismatch"));
        }
        let mut r = Reader {
            bytes: body,
            pos: MAGIC.len(),
        };
        let version = r.u32()?;
        if version != MODEL_VERSION {
            return Err(corrupt(&format!(
                "version {version}, this reader needs {MODEL_VERSION}"
            )));
        }
        let detector = r.mlp()?;
        let classifier = FaceNet {
            conv1: r.conv()?,
            conv2: r.conv()?,
            head: r.mlp()?,
        };
        if !classifier.is_consistent() {
            return Err(corrupt("classifier network inconsistent"));
        }
        if detector.n_in != N_DET_FEATURES || detector.n_out != 2 {
            return Err(corrupt(
                "detector shape does not match the feature definition",
            ));
        }
        if classifier.n_features() != N_CROP_FEATURES || classifier.head.n_out != N_CLASSES {
            return Err(corrupt(
                "classifier shape does not match the feature definition",
            ));
        }
        let n = r.u32()? as usize;
        if n != 3 {
            return Err(corrupt("unexpected parameter count"));
        }
        let p = r.f32s(n)?;
        if p.iter().any(|v| !v.is_finite()) {
            return Err(corrupt("non-finite parameter"));
        }
        if r.pos != body.len() {
            return Err(corrupt("trailing bytes"));
        }
        Ok(Self {
            detector,
            classifier,
            det_threshold: p[0],
            read_threshold: p[1],
            nms_factor: p[2],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::mlp::XorShift;
    use super::*;

    fn tiny() -> DiceModel {
        let mut rng = XorShift::new(5);
        DiceModel {
            detector: Mlp::new(N_DET_FEATURES, 3, 2, &mut rng),
            classifier: FaceNet::new(N_CROP_FEATURES, 3, N_CLASSES, &mut rng),
            det_threshold: 0.5,
            read_threshold: 0.6,
            nms_factor: 0.7,
        }
    }

    #[test]
    fn round_trip() {
        let m = tiny();
        let b = m.to_bytes();
        assert_eq!(DiceModel::from_bytes(&b).ok(), Some(m));
    }

    /// The conv blocks carry the classifier's widths, so a model fitted
    /// with `fit-dice --cnn-widths` loads without a format change; widths
    /// that do not chain are a typed error.
    #[test]
    fn wider_classifier_round_trips() {
        let mut rng = XorShift::new(6);
        let mut m = tiny();
        m.classifier = FaceNet::new_with_widths(N_CROP_FEATURES, (12, 24), 3, N_CLASSES, &mut rng);
        let b = m.to_bytes();
        assert_eq!(DiceModel::from_bytes(&b).ok(), Some(m.clone()));
        // conv2 reading 8 channels from a 12-channel conv1.
        m.classifier.conv2 = Conv {
            cin: 8,
            cout: 24,
            w: vec![0.0; 24 * 8 * 9],
            b: vec![0.0; 24],
        };
        match DiceModel::from_bytes(&m.to_bytes()) {
            Err(VisionError::ModelCorrupt { what, .. }) => {
                assert!(what.contains("inconsistent"), "{what}")
            }
            other => panic!("expected a corrupt-model error, got {other:?}"),
        }
    }

    #[test]
    fn rejects_corruption() {
        let b = tiny().to_bytes();
        for cut in [0, 5, 12, b.len() / 2, b.len() - 1] {
            assert!(DiceModel::from_bytes(&b[..cut]).is_err());
        }
        let mut flipped = b.clone();
        flipped[40] ^= 0x55;
        assert!(DiceModel::from_bytes(&flipped).is_err());
    }
}
