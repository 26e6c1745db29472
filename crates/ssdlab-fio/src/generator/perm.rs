//! Mixing and permutations: the SplitMix64 finaliser and the Feistel-network
//! bijection of `[0, n)` behind the random map and rank scattering.

/// SplitMix64 finaliser: a bijective 64-bit mix.
pub(super) fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const FEISTEL_ROUNDS: usize = 4;

/// A bijection of `[0, n)`: a balanced Feistel network over `[0, 4^h)` with
/// `4^h ≥ n`, restricted to `[0, n)` by cycle walking (under 4 steps on
/// average since `4^h < 4n`).
#[derive(Clone, Debug)]
pub(super) struct Perm {
    n: u64,
    half_bits: u32,
    keys: [u64; FEISTEL_ROUNDS],
}

impl Perm {
    pub(super) fn new(n: u64, key: u64) -> Perm {
        debug_assert!(n >= 1);
        // Bits for [0, n): ceil(log2(n)), at least 2, rounded up to even.
        let bits = (64 - (n.max(2) - 1).leading_zeros()).max(2);
        let bits = bits + (bits & 1);
        let mut keys = [0u64; FEISTEL_ROUNDS];
        let mut k = key;
        for slot in &mut keys {
            k = mix64(k);
            *slot = k;
        }
        Perm {
            n,
            half_bits: bits / 2,
            keys,
        }
    }

    fn feistel(&self, x: u64) -> u64 {
        let h = self.half_bits;
        let mask = (1u64 << h) - 1;
        let mut l = x >> h;
        let mut r = x & mask;
        for &k in &self.keys {
            let f = mix64(r ^ k) & mask;
            let nl = r;
            r = l ^ f;
            l = nl;
        }
        (l << h) | r
    }

    /// Image of `x < n`.
    pub(super) fn apply(&self, x: u64) -> u64 {
        let mut y = self.feistel(x);
        while y >= self.n {
            y = self.feistel(y);
        }
        y
    }
}
