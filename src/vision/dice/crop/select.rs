//! The `k`-th smallest value in [`f32::total_cmp`] order by radix select.

/// `x`'s position in [`f32::total_cmp`]'s order as an unsigned key (the
/// same bit transform `total_cmp` makes, with the sign bit flipped so that
/// unsigned order is that order).
fn total_key(x: f32) -> u32 {
    let b = x.to_bits() as i32;
    ((b ^ ((((b >> 31) as u32) >> 1) as i32)) as u32) ^ 0x8000_0000
}

/// The value whose [`total_key`] is `key` (the transform is its own
/// inverse once the sign bit is restored).
fn from_total_key(key: u32) -> f32 {
    let t = (key ^ 0x8000_0000) as i32;
    f32::from_bits((t ^ ((((t >> 31) as u32) >> 1) as i32)) as u32)
}

/// The value `select_nth_unstable_by(k, f32::total_cmp)` leaves at index `k`
/// (the `k`-th smallest in the total order; the last value if `k` is out of
/// range, NaN if `v` is empty), by a radix select on [`total_key`]: four
/// byte-wide counting passes, each keeping only the values in the byte
/// bucket where the `k`-th one lies. Values equal in the total order have the
/// same bits, so the result is the same value as the selection's, in about a
/// fifth of its instructions for the 400-value crop cores.
pub(super) fn kth_total_order(v: &[f32], k: usize) -> f32 {
    if v.is_empty() {
        return f32::NAN;
    }
    let mut k = k.min(v.len() - 1);
    let mut keys: Vec<u32> = v.iter().map(|&x| total_key(x)).collect();
    for shift in [24u32, 16, 8, 0] {
        let byte = |key: u32| ((key >> shift) & 0xff) as usize;
        let mut hist = [0usize; 256];
        for &key in &keys {
            hist[byte(key)] += 1;
        }
        let mut b = 0;
        while b < 255 && k >= hist[b] {
            k -= hist[b];
            b += 1;
        }
        // The keys in bucket `b`, in order (what `retain` keeps), moved
        // without a branch per key: each key is written at the next free
        // place, which advances only when the key is kept.
        let mut kept = 0;
        for i in 0..keys.len() {
            let key = keys[i];
            keys[kept] = key;
            kept += (byte(key) == b) as usize;
        }
        keys.truncate(kept);
    }
    keys.first().map_or(f32::NAN, |&key| from_total_key(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_select_matches_selection() {
        let mut rng = 4242u32;
        let mut next = || {
            rng = rng.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            rng
        };
        let special = [
            0.0f32,
            -0.0,
            1.5,
            -1.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MIN_POSITIVE,
            255.0,
        ];
        for len in [1usize, 2, 3, 17, 100, 400] {
            for mode in 0..3 {
                let v: Vec<f32> = (0..len)
                    .map(|_| match mode {
                        // Crop-like values: few distinct, many ties.
                        0 => (next() >> 16) as f32 % 7.0 * 0.25,
                        1 => f32::from_bits(next()),
                        _ => special[(next() >> 16) as usize % special.len()],
                    })
                    .collect();
                for k in 0..len {
                    let mut w = v.clone();
                    w.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
                    let got = kth_total_order(&v, k);
                    assert_eq!(got.to_bits(), w[k].to_bits(), "len {len} mode {mode} k {k}");
                }
            }
        }
    }
}
