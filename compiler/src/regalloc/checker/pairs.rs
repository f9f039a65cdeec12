//! The checker's abstract state for one kind of location: the relation "location `k` holds
//! the value of vreg `x`" as one sorted vector of `(k, x)` pairs.
//!
//! Why not a set per location: the checker clones its state at every kept copy (a choice
//! point of the copy matching) and at every block, and a target has up to 256 registers of
//! which a handful hold anything. A flat sorted vector clones with one allocation and one
//! memory copy, and a merge (set intersection per location) is one linear walk.
//!
//! Complexity: membership O(log n); insertion and removal of one pair O(n); removing a vreg
//! everywhere, aliasing and meeting O(n), where n is the number of pairs (≈ live values).

/// Sorted `(location, vreg)` pairs without duplicates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Pairs<K> {
    v: Vec<(K, u32)>,
}

impl<K> Default for Pairs<K> {
    fn default() -> Self {
        Pairs { v: Vec::new() }
    }
}

impl<K: Ord + Copy> Pairs<K> {
    /// The index range of location `k`'s pairs.
    fn range(&self, k: K) -> std::ops::Range<usize> {
        let lo = self.v.partition_point(|p| p.0 < k);
        let hi = lo + self.v[lo..].partition_point(|p| p.0 == k);
        lo..hi
    }

    /// Does `k` hold `x`?
    pub fn has(&self, k: K, x: u32) -> bool {
        self.v.binary_search(&(k, x)).is_ok()
    }

    /// The vregs `k` holds, sorted.
    pub fn get(&self, k: K) -> Vec<u32> {
        self.v[self.range(k)].iter().map(|p| p.1).collect()
    }

    /// `k` also holds `x`.
    pub fn insert(&mut self, k: K, x: u32) {
        if let Err(i) = self.v.binary_search(&(k, x)) {
            self.v.insert(i, (k, x));
        }
    }

    /// `k` holds nothing.
    pub fn clear(&mut self, k: K) {
        let r = self.range(k);
        self.v.drain(r);
    }

    /// `k` holds exactly `xs` (sorted, without duplicates).
    pub fn set(&mut self, k: K, xs: &[u32]) {
        let r = self.range(k);
        self.v.splice(r, xs.iter().map(|&x| (k, x)));
    }

    /// No location holds `x` any more.
    pub fn kill(&mut self, x: u32) {
        self.v.retain(|p| p.1 != x);
    }

    /// `x` is held exactly where `u` is (nothing changes when `x == u`).
    pub fn alias(&mut self, x: u32, u: u32) {
        if x == u {
            return;
        }
        self.kill(x);
        let holders: Vec<K> = self.holders(u).collect();
        for k in holders {
            self.insert(k, x);
        }
    }

    /// The locations holding `x`, in order.
    pub fn holders(&self, x: u32) -> impl Iterator<Item = K> + '_ {
        self.v.iter().filter(move |p| p.1 == x).map(|p| p.0)
    }

    /// Per location, the vregs both relations give it.
    pub fn meet(&self, o: &Pairs<K>) -> Pairs<K> {
        let (mut i, mut j) = (0, 0);
        let mut v = Vec::with_capacity(self.v.len().min(o.v.len()));
        while i < self.v.len() && j < o.v.len() {
            match self.v[i].cmp(&o.v[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    v.push(self.v[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        Pairs { v }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_get_clear_and_set_keep_each_location_sorted() {
        let mut p = Pairs::default();
        p.insert(3u16, 9);
        p.insert(1, 5);
        p.insert(3, 2);
        p.insert(3, 9);
        assert_eq!(p.get(3), vec![2, 9]);
        assert_eq!(p.get(1), vec![5]);
        assert!(p.get(2).is_empty());
        p.set(3, &[4]);
        assert_eq!(p.get(3), vec![4]);
        p.clear(1);
        assert!(!p.has(1, 5));
        assert!(p.has(3, 4));
    }

    #[test]
    fn kill_alias_and_holders() {
        let mut p = Pairs::default();
        p.insert(0u16, 7);
        p.insert(4, 7);
        p.insert(4, 8);
        p.insert(6, 8);
        p.alias(7, 7);
        assert_eq!(p.holders(7).collect::<Vec<_>>(), vec![0, 4]);
        p.alias(8, 7);
        assert_eq!(p.holders(8).collect::<Vec<_>>(), vec![0, 4]);
        p.kill(7);
        assert_eq!(p.holders(7).count(), 0);
        assert_eq!(p.get(4), vec![8]);
    }

    #[test]
    fn meet_intersects_per_location() {
        let mut a = Pairs::default();
        let mut b = Pairs::default();
        for (k, x) in [(0u16, 1), (0, 2), (5, 3), (7, 4)] {
            a.insert(k, x);
        }
        for (k, x) in [(0u16, 2), (5, 3), (5, 9), (8, 4)] {
            b.insert(k, x);
        }
        let m = a.meet(&b);
        assert_eq!(m.get(0), vec![2]);
        assert_eq!(m.get(5), vec![3]);
        assert!(m.get(7).is_empty() && m.get(8).is_empty());
    }
}
