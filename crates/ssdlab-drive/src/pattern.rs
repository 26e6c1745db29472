//! The bytes written: a pseudo-random pattern (as fio's default buffers),
//! so that a drive that compresses or deduplicates sees data it cannot
//! shrink. Deterministic from a seed.

/// Fills `buf` from `seed` (xorshift64*, eight bytes at a time).
pub fn fill(buf: &mut [u8], seed: u64) {
    let mut x = seed ^ 0x9E37_79B9_7F4A_7C15;
    for chunk in buf.chunks_mut(8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let v = x.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}
