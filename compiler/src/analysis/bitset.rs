//! Dense bit sets and bit matrices over `u64` words, the workhorse of the set-based analyses
//! (liveness sets, reachability).
//!
//! A [`BitMatrix`] stores `rows` bit sets of the same width in one flat vector, so that a
//! per-block set costs no allocation of its own and rows can be combined word by word.
//! Complexity: every whole-row operation is O(width / 64).

/// A fixed-width set of small integers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
    len: usize,
}

impl BitSet {
    /// An empty set able to hold `0..len`.
    pub fn new(len: usize) -> Self {
        BitSet {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Empties the set and makes it hold `0..len`, reusing the allocation.
    pub fn reset(&mut self, len: usize) {
        self.words.clear();
        self.words.resize(len.div_ceil(64), 0);
        self.len = len;
    }

    pub fn capacity(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        debug_assert!(i < self.len);
        self.words[i / 64] >> (i % 64) & 1 != 0
    }

    /// Adds `i`; returns true if it was not there before.
    #[inline]
    pub fn insert(&mut self, i: usize) -> bool {
        debug_assert!(i < self.len);
        let w = &mut self.words[i / 64];
        let bit = 1u64 << (i % 64);
        let fresh = *w & bit == 0;
        *w |= bit;
        fresh
    }

    #[inline]
    pub fn remove(&mut self, i: usize) {
        debug_assert!(i < self.len);
        self.words[i / 64] &= !(1u64 << (i % 64));
    }

    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The members in increasing order.
    pub fn iter(&self) -> BitIter<'_> {
        BitIter::new(&self.words)
    }

    pub fn words(&self) -> &[u64] {
        &self.words
    }
}

/// `rows` bit sets of `width` bits each, stored contiguously.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitMatrix {
    words: Vec<u64>,
    row_words: usize,
    rows: usize,
    width: usize,
}

impl BitMatrix {
    pub fn new(rows: usize, width: usize) -> Self {
        let mut m = BitMatrix::default();
        m.reset(rows, width);
        m
    }

    /// Clears every row and changes the shape, reusing the allocation.
    pub fn reset(&mut self, rows: usize, width: usize) {
        self.row_words = width.div_ceil(64);
        self.rows = rows;
        self.width = width;
        self.words.clear();
        self.words.resize(rows * self.row_words, 0);
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Words per row.
    pub fn row_words(&self) -> usize {
        self.row_words
    }

    #[inline]
    pub fn row(&self, r: usize) -> &[u64] {
        &self.words[r * self.row_words..(r + 1) * self.row_words]
    }

    #[inline]
    pub fn row_mut(&mut self, r: usize) -> &mut [u64] {
        &mut self.words[r * self.row_words..(r + 1) * self.row_words]
    }

    #[inline]
    pub fn contains(&self, r: usize, i: usize) -> bool {
        debug_assert!(r < self.rows && i < self.width);
        self.words[r * self.row_words + i / 64] >> (i % 64) & 1 != 0
    }

    #[inline]
    pub fn insert(&mut self, r: usize, i: usize) -> bool {
        debug_assert!(r < self.rows && i < self.width);
        let w = &mut self.words[r * self.row_words + i / 64];
        let bit = 1u64 << (i % 64);
        let fresh = *w & bit == 0;
        *w |= bit;
        fresh
    }

    /// `row[dst] |= row[src]`; returns true if `dst` changed.
    pub fn union_rows(&mut self, dst: usize, src: usize) -> bool {
        if dst == src {
            return false;
        }
        let n = self.row_words;
        let (d, s) = if dst < src {
            let (a, b) = self.words.split_at_mut(src * n);
            (&mut a[dst * n..(dst + 1) * n], &b[..n])
        } else {
            let (a, b) = self.words.split_at_mut(dst * n);
            (&mut b[..n], &a[src * n..(src + 1) * n])
        };
        let mut changed = false;
        for (x, &y) in d.iter_mut().zip(s) {
            let old = *x;
            *x |= y;
            changed |= *x != old;
        }
        changed
    }

    /// The members of row `r` in increasing order.
    pub fn iter_row(&self, r: usize) -> BitIter<'_> {
        BitIter::new(self.row(r))
    }
}

/// Iterator over the set bits of a word slice.
pub struct BitIter<'a> {
    words: &'a [u64],
    index: usize,
    current: u64,
}

impl<'a> BitIter<'a> {
    pub fn new(words: &'a [u64]) -> Self {
        BitIter {
            words,
            index: 0,
            current: words.first().copied().unwrap_or(0),
        }
    }
}

impl Iterator for BitIter<'_> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        loop {
            if self.current != 0 {
                let bit = self.current.trailing_zeros() as usize;
                self.current &= self.current - 1;
                return Some(self.index * 64 + bit);
            }
            self.index += 1;
            if self.index >= self.words.len() {
                return None;
            }
            self.current = self.words[self.index];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let mut s = BitSet::new(130);
        assert!(s.insert(0));
        assert!(s.insert(64));
        assert!(s.insert(129));
        assert!(!s.insert(64));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 64, 129]);
        s.remove(64);
        assert!(!s.contains(64));
        assert_eq!(s.count(), 2);
        s.reset(10);
        assert!(s.is_empty());
    }

    #[test]
    fn matrix_union() {
        let mut m = BitMatrix::new(3, 100);
        m.insert(0, 3);
        m.insert(2, 99);
        assert!(m.union_rows(1, 0));
        assert!(m.union_rows(1, 2));
        assert!(!m.union_rows(1, 2));
        assert!(m.union_rows(2, 1));
        assert_eq!(m.iter_row(1).collect::<Vec<_>>(), vec![3, 99]);
        assert_eq!(m.iter_row(2).collect::<Vec<_>>(), vec![3, 99]);
        assert!(!m.contains(0, 99));
    }
}
