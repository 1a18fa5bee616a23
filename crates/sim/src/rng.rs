//! Random streams: one seeded generator per component, its seed derived from the
//! scenario seed and a stable name, so adding a flow changes no other flow's numbers.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

pub type SimRng = Pcg64Mcg;

/// SplitMix64's finaliser: a bijective mix of 64 bits.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of stream (`kind`, `a`, `b`) of a run with seed `seed`
/// (e.g. ("flow", spec index, copy) or ("queue", link, direction)).
pub fn stream_seed(seed: u64, kind: &str, a: u64, b: u64) -> u64 {
    // FNV-1a of the kind, then mixed with the indices.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in kind.bytes() {
        h ^= byte as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    mix64(mix64(mix64(seed ^ h) ^ a) ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

pub fn stream_rng(seed: u64) -> SimRng {
    SimRng::seed_from_u64(seed)
}
