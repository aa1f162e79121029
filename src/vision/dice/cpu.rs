//! The SIMD code paths the CPU allows, detected once per read and passed to
//! every stage (instead of a feature query per call or per grid cell).
//!
//! Every SIMD variant in the dice reader does the same integer and float
//! operations in the same order as its portable version (no fused
//! multiply-add), so the choice changes speed, never results.

/// Instruction-set extensions the dice reader's SIMD variants use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Cpu {
    /// AVX (detector MLP, CNN convolutions and head).
    pub avx: bool,
    /// AVX2 and POPCNT (`prepare`, the detector's box means).
    pub avx2: bool,
    /// AVX-512F and AVX-512VL (detector MLP pairs, CNN convolutions). Valgrind emulates no AVX-512 and reports none, so
    /// instruction counts measured there are those of the AVX2 paths.
    pub avx512: bool,
}

impl Cpu {
    /// What this CPU has (a cached query of the standard library).
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            Self {
                avx: has!("avx"),
                avx2: has!("avx") && has!("avx2") && has!("popcnt"),
                avx512: has!("avx512f") && has!("avx512vl"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Self::portable()
        }
    }

    /// No extensions: the portable code everywhere (for tests).
    pub fn portable() -> Self {
        Self::default()
    }
}
