//! A tiny one-hidden-layer perceptron (ReLU hidden layer, linear outputs) with
//! input standardisation, used by both the die detector and the face classifier.
//! Fitting (mini-batch SGD with momentum) lives here too so that the model and
//! its trainer cannot drift apart.

/// A fitted one-hidden-layer perceptron.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlp {
    /// Number of inputs.
    pub n_in: usize,
    /// Number of hidden ReLU units.
    pub n_hidden: usize,
    /// Number of (linear) outputs.
    pub n_out: usize,
    /// Per-input mean subtracted before the first layer.
    pub in_mean: Vec<f32>,
    /// Per-input scale multiplied after subtracting the mean (1 / std).
    pub in_scale: Vec<f32>,
    /// Hidden weights, row-major `[n_hidden][n_in]`.
    pub w1: Vec<f32>,
    /// Hidden biases.
    pub b1: Vec<f32>,
    /// Output weights, row-major `[n_out][n_hidden]`.
    pub w2: Vec<f32>,
    /// Output biases.
    pub b2: Vec<f32>,
}

/// Minimum per-input standard deviation used for standardisation, so that a
/// constant input does not blow up to infinity.
const MIN_STD: f32 = 1e-3;

/// Small deterministic xorshift generator (fitting must be reproducible and we
/// avoid a `rand` dependency for it).
#[derive(Debug, Clone)]
pub struct XorShift(u64);

impl XorShift {
    /// Create a generator from a seed (0 is remapped).
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// Next raw 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// Uniform integer in [0, n) (n > 0).
    /// Fisher-Yates shuffle of `items` in place.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// Approximately normal(0, 1) (sum of uniforms).
    pub fn normal(&mut self) -> f32 {
        (0..4).map(|_| self.unit()).sum::<f32>() * 1.732 - 3.464
    }
}

impl Mlp {
    /// A randomly initialised network (He initialisation).
    pub fn new(n_in: usize, n_hidden: usize, n_out: usize, rng: &mut XorShift) -> Self {
        let s1 = (2.0 / n_in.max(1) as f32).sqrt();
        let s2 = (1.0 / n_hidden.max(1) as f32).sqrt();
        Self {
            n_in,
            n_hidden,
            n_out,
            in_mean: vec![0.0; n_in],
            in_scale: vec![1.0; n_in],
            w1: (0..n_in * n_hidden).map(|_| rng.normal() * s1).collect(),
            b1: vec![0.0; n_hidden],
            w2: (0..n_hidden * n_out).map(|_| rng.normal() * s2).collect(),
            b2: vec![0.0; n_out],
        }
    }

    /// Check that all array lengths agree with the declared shape and that all
    /// values are finite.
    pub fn is_consistent(&self) -> bool {
        self.in_mean.len() == self.n_in
            && self.in_scale.len() == self.n_in
            && self.w1.len() == self.n_in * self.n_hidden
            && self.b1.len() == self.n_hidden
            && self.w2.len() == self.n_hidden * self.n_out
            && self.b2.len() == self.n_out
            && [
                &self.in_mean,
                &self.in_scale,
                &self.w1,
                &self.b1,
                &self.w2,
                &self.b2,
            ]
            .iter()
            .all(|v| v.iter().all(|x| x.is_finite()))
    }

    /// Set the input standardisation from a sample matrix (rows of `n_in`).
    pub fn set_standardisation(&mut self, rows: &[Vec<f32>]) {
        let n = rows.len().max(1) as f64;
        for i in 0..self.n_in {
            let mean = rows.iter().map(|r| r[i] as f64).sum::<f64>() / n;
            let var = rows
                .iter()
                .map(|r| (r[i] as f64 - mean).powi(2))
                .sum::<f64>()
                / n;
            self.in_mean[i] = mean as f32;
            self.in_scale[i] = 1.0 / (var.sqrt() as f32).max(MIN_STD);
        }
    }

    /// Forward pass with caller-provided scratch (no allocation once the
    /// buffers have grown): standardised inputs in `xs`, hidden activations in
    /// `hidden`, outputs in `out`.
    pub fn forward_buf(
        &self,
        x: &[f32],
        xs: &mut Vec<f32>,
        hidden: &mut Vec<f32>,
        out: &mut Vec<f32>,
    ) {
        let n = self.n_in.min(x.len());
        xs.clear();
        xs.extend((0..n).map(|i| (x[i] - self.in_mean[i]) * self.in_scale[i]));
        xs.resize(self.n_in, 0.0);
        hidden.clear();
        hidden.extend((0..self.n_hidden).map(|h| {
            let row = &self.w1[h * self.n_in..(h + 1) * self.n_in];
            let mut acc = self.b1[h];
            for (w, v) in row.iter().zip(xs.iter()) {
                acc += w * v;
            }
            acc.max(0.0)
        }));
        out.clear();
        out.extend((0..self.n_out).map(|o| {
            let row = &self.w2[o * self.n_hidden..(o + 1) * self.n_hidden];
            let mut acc = self.b2[o];
            for (w, v) in row.iter().zip(hidden.iter()) {
                acc += w * v;
            }
            acc
        }));
    }

    fn forward_into(&self, x: &[f32], hidden: &mut Vec<f32>, out: &mut Vec<f32>) {
        let mut xs = Vec::new();
        self.forward_buf(x, &mut xs, hidden, out);
    }

    /// Evaluate the network on one input row.
    pub fn forward(&self, x: &[f32]) -> Vec<f32> {
        let mut hidden = Vec::new();
        let mut out = Vec::new();
        self.forward_into(x, &mut hidden, &mut out);
        out
    }

    /// Fit by mini-batch SGD with momentum. `grad_fn(row_index, outputs, d_outputs)`
    /// must write dLoss/dOutput for that sample into `d_outputs` and return the loss.
    // Index loops over several parallel arrays read clearer than zipped iterators here.
    #[allow(clippy::needless_range_loop)]
    pub fn train<F>(&mut self, rows: &[Vec<f32>], opts: &TrainOptions, mut grad_fn: F) -> f32
    where
        F: FnMut(usize, &[f32], &mut [f32]) -> f32,
    {
        let mut rng = XorShift::new(opts.seed);
        let mut order: Vec<usize> = (0..rows.len()).collect();
        let (ni, nh, no) = (self.n_in, self.n_hidden, self.n_out);
        let mut v_w1 = vec![0f32; self.w1.len()];
        let mut v_b1 = vec![0f32; nh];
        let mut v_w2 = vec![0f32; self.w2.len()];
        let mut v_b2 = vec![0f32; no];
        let mut g_w1 = vec![0f32; self.w1.len()];
        let mut g_b1 = vec![0f32; nh];
        let mut g_w2 = vec![0f32; self.w2.len()];
        let mut g_b2 = vec![0f32; no];
        let mut hidden = vec![0f32; nh];
        let mut out = vec![0f32; no];
        let mut d_out = vec![0f32; no];
        let mut d_hid = vec![0f32; nh];
        let mut xs = vec![0f32; ni];
        let mut last_loss = 0.0;
        for epoch in 0..opts.epochs {
            rng.shuffle(&mut order);
            let lr = opts.lr * (1.0 - epoch as f32 / opts.epochs.max(1) as f32).max(0.05);
            let mut total = 0.0f64;
            for batch in order.chunks(opts.batch.max(1)) {
                g_w1.iter_mut().for_each(|g| *g = 0.0);
                g_b1.iter_mut().for_each(|g| *g = 0.0);
                g_w2.iter_mut().for_each(|g| *g = 0.0);
                g_b2.iter_mut().for_each(|g| *g = 0.0);
                for &r in batch {
                    self.forward_buf(&rows[r], &mut xs, &mut hidden, &mut out);
                    total += grad_fn(r, &out, &mut d_out) as f64;
                    for o in 0..no {
                        g_b2[o] += d_out[o];
                        let row = &mut g_w2[o * nh..(o + 1) * nh];
                        for h in 0..nh {
                            row[h] += d_out[o] * hidden[h];
                        }
                    }
                    for h in 0..nh {
                        let mut d = 0.0;
                        if hidden[h] > 0.0 {
                            for o in 0..no {
                                d += d_out[o] * self.w2[o * nh + h];
                            }
                        }
                        d_hid[h] = d;
                    }
                    for h in 0..nh {
                        let d = d_hid[h];
                        if d == 0.0 {
                            continue;
                        }
                        g_b1[h] += d;
                        let row = &mut g_w1[h * ni..(h + 1) * ni];
                        for i in 0..ni {
                            row[i] += d * xs[i];
                        }
                    }
                }
                let scale = 1.0 / batch.len() as f32;
                let step = |w: &mut [f32], v: &mut [f32], g: &[f32], decay: f32| {
                    for k in 0..w.len() {
                        v[k] = opts.momentum * v[k] - lr * (g[k] * scale + decay * w[k]);
                        w[k] += v[k];
                    }
                };
                step(&mut self.w1, &mut v_w1, &g_w1, opts.weight_decay);
                step(&mut self.b1, &mut v_b1, &g_b1, 0.0);
                step(&mut self.w2, &mut v_w2, &g_w2, opts.weight_decay);
                step(&mut self.b2, &mut v_b2, &g_b2, 0.0);
            }
            last_loss = (total / rows.len().max(1) as f64) as f32;
            if opts.verbose {
                eprintln!("  epoch {epoch:3} loss {last_loss:.4}");
            }
        }
        last_loss
    }
}

/// Hyper-parameters of [`Mlp::train`].
#[derive(Debug, Clone)]
pub struct TrainOptions {
    /// Passes over the data.
    pub epochs: usize,
    /// Samples per gradient step.
    pub batch: usize,
    /// Initial learning rate (decays linearly to 5 %).
    pub lr: f32,
    /// Momentum coefficient.
    pub momentum: f32,
    /// L2 weight decay on weights (not biases).
    pub weight_decay: f32,
    /// Shuffle seed.
    pub seed: u64,
    /// Print the loss after every epoch to stderr.
    pub verbose: bool,
    /// Scale down outlier batch gradients (the face classifier's
    /// `FaceNet::train_with` only; [`Mlp::train`] ignores it).
    pub clip_gradients: bool,
}

/// Numerically safe logistic function.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x.clamp(-40.0, 40.0)).exp())
}

/// In-place softmax.
pub fn softmax(v: &mut [f32]) {
    let m = v.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let mut s = 0.0;
    for x in v.iter_mut() {
        *x = (*x - m).exp();
        s += *x;
    }
    if s > 0.0 {
        v.iter_mut().for_each(|x| *x /= s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learns_xor() {
        let rows: Vec<Vec<f32>> = vec![
            vec![0.0, 0.0],
            vec![0.0, 1.0],
            vec![1.0, 0.0],
            vec![1.0, 1.0],
        ];
        let y = [0.0f32, 1.0, 1.0, 0.0];
        let mut rng = XorShift::new(3);
        let mut m = Mlp::new(2, 8, 1, &mut rng);
        m.set_standardisation(&rows);
        let opts = TrainOptions {
            epochs: 800,
            batch: 4,
            lr: 0.1,
            momentum: 0.9,
            weight_decay: 0.0,
            seed: 1,
            verbose: false,
            clip_gradients: false,
        };
        m.train(&rows, &opts, |i, out, d| {
            let p = sigmoid(out[0]);
            d[0] = p - y[i];
            (p - y[i]).powi(2)
        });
        for (r, t) in rows.iter().zip(y) {
            let p = sigmoid(m.forward(r)[0]);
            assert!((p - t).abs() < 0.3, "{r:?} -> {p}");
        }
        assert!(m.is_consistent());
    }

    #[test]
    fn softmax_sums_to_one() {
        let mut v = [1.0, 2.0, 3.0];
        softmax(&mut v);
        assert!((v.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
