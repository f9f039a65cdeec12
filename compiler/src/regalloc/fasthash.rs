//! A fast, non-cryptographic hasher for hash maps and sets keyed by small integers (vreg and
//! node indices, packed pairs) on the hot paths of the back end. The standard library's
//! SipHash resists hash flooding, which keys chosen by the compiler itself do not need, and
//! costs several times more per key.
//!
//! The mixing is a multiply by an odd 64-bit constant followed by a fold of the high half
//! into the low half (so that the bucket index, taken from the low bits, depends on every
//! input bit). Iteration order of a map or set using it is still unspecified: users must not
//! depend on it for anything they output (the back end's passes only use these sets for
//! membership and counts).
//!
//! Complexity: O(1) per integer written; O(len) for byte slices.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Odd multiplier (2^64 / golden ratio, rounded to odd).
const K: u64 = 0x9e37_79b9_7f4a_7c15;

/// The hasher state.
#[derive(Default, Clone, Copy)]
pub struct FastHasher(u64);

impl FastHasher {
    fn mix(&mut self, x: u64) {
        let h = (self.0.rotate_left(26) ^ x).wrapping_mul(K);
        self.0 = h ^ (h >> 32);
    }
}

impl Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for c in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            self.mix(u64::from_le_bytes(b));
        }
    }
    fn write_u8(&mut self, x: u8) {
        self.mix(u64::from(x));
    }
    fn write_u16(&mut self, x: u16) {
        self.mix(u64::from(x));
    }
    fn write_u32(&mut self, x: u32) {
        self.mix(u64::from(x));
    }
    fn write_u64(&mut self, x: u64) {
        self.mix(x);
    }
    fn write_usize(&mut self, x: usize) {
        self.mix(x as u64);
    }
}

/// Builds [`FastHasher`]s.
pub type BuildFast = BuildHasherDefault<FastHasher>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<T> = HashSet<T, BuildFast>;
/// A `HashMap` with [`FastHasher`].
pub type FastMap<K, V> = HashMap<K, V, BuildFast>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn consecutive_integers_spread_over_low_bits() {
        let b = BuildFast::default();
        let low: FastSet<u64> = (0u32..1024).map(|i| b.hash_one(i) & 1023).collect();
        assert!(low.len() > 600, "only {} distinct buckets", low.len());
    }

    #[test]
    fn sets_and_maps_work() {
        let mut s: FastSet<u32> = FastSet::default();
        for i in 0..1000 {
            s.insert(i * 7);
        }
        assert!(s.contains(&700) && !s.contains(&701));
        let mut m: FastMap<(u32, u32), u8> = FastMap::default();
        m.insert((1, 2), 3);
        assert_eq!(m.get(&(1, 2)), Some(&3));
        assert_eq!(m.get(&(2, 1)), None);
    }
}
