//! Hide sets of Prosser's macro-expansion algorithm, interned.
//!
//! A hide set is the set of macro names a token must not be expanded by (C99 §6.10.3.4:
//! a macro's name is not replaced again while rescanning its own expansion). Each distinct
//! set is stored once as a sorted vector and named by a `u32` (0 = empty set); unions,
//! intersections and insertions are memoised, so a token carries its set in 4 bytes and the
//! operations cost a hash lookup after the first time.

use crate::front::lexer::Sym;
use std::collections::HashMap;

#[derive(Debug)]
pub struct HideSets {
    sets: Vec<Vec<Sym>>,
    index: HashMap<Vec<Sym>, u32>,
    unions: HashMap<(u32, u32), u32>,
    intersections: HashMap<(u32, u32), u32>,
    inserts: HashMap<(u32, Sym), u32>,
}

impl Default for HideSets {
    fn default() -> Self {
        Self::new()
    }
}

impl HideSets {
    pub fn new() -> Self {
        let mut index = HashMap::new();
        index.insert(Vec::new(), 0);
        HideSets {
            sets: vec![Vec::new()],
            index,
            unions: HashMap::new(),
            intersections: HashMap::new(),
            inserts: HashMap::new(),
        }
    }

    fn intern(&mut self, v: Vec<Sym>) -> u32 {
        if let Some(&k) = self.index.get(&v) {
            return k;
        }
        let k = self.sets.len() as u32;
        self.sets.push(v.clone());
        self.index.insert(v, k);
        k
    }

    pub fn contains(&self, hs: u32, name: Sym) -> bool {
        self.sets[hs as usize].binary_search(&name).is_ok()
    }

    pub fn insert(&mut self, hs: u32, name: Sym) -> u32 {
        if let Some(&k) = self.inserts.get(&(hs, name)) {
            return k;
        }
        let mut v = self.sets[hs as usize].clone();
        if let Err(pos) = v.binary_search(&name) {
            v.insert(pos, name);
        }
        let k = self.intern(v);
        self.inserts.insert((hs, name), k);
        k
    }

    pub fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == b || b == 0 {
            return a;
        }
        if a == 0 {
            return b;
        }
        let key = (a.min(b), a.max(b));
        if let Some(&k) = self.unions.get(&key) {
            return k;
        }
        let (x, y) = (&self.sets[a as usize], &self.sets[b as usize]);
        let mut v = Vec::with_capacity(x.len() + y.len());
        let (mut i, mut j) = (0, 0);
        while i < x.len() || j < y.len() {
            if j == y.len() || (i < x.len() && x[i] < y[j]) {
                v.push(x[i]);
                i += 1;
            } else if i == x.len() || y[j] < x[i] {
                v.push(y[j]);
                j += 1;
            } else {
                v.push(x[i]);
                i += 1;
                j += 1;
            }
        }
        let k = self.intern(v);
        self.unions.insert(key, k);
        k
    }

    pub fn intersect(&mut self, a: u32, b: u32) -> u32 {
        if a == b {
            return a;
        }
        if a == 0 || b == 0 {
            return 0;
        }
        let key = (a.min(b), a.max(b));
        if let Some(&k) = self.intersections.get(&key) {
            return k;
        }
        let y = &self.sets[b as usize];
        let v: Vec<Sym> = self.sets[a as usize]
            .iter()
            .copied()
            .filter(|s| y.binary_search(s).is_ok())
            .collect();
        let k = self.intern(v);
        self.intersections.insert(key, k);
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_operations() {
        let mut h = HideSets::new();
        let a = h.insert(0, Sym(3));
        let a = h.insert(a, Sym(1));
        let b = h.insert(0, Sym(2));
        let b = h.insert(b, Sym(3));
        let u = h.union(a, b);
        assert!(h.contains(u, Sym(1)) && h.contains(u, Sym(2)) && h.contains(u, Sym(3)));
        let i = h.intersect(a, b);
        assert!(h.contains(i, Sym(3)) && !h.contains(i, Sym(1)));
        assert_eq!(h.union(a, 0), a);
        assert_eq!(h.intersect(a, 0), 0);
        // Interning: the same set has the same id.
        let one = h.insert(0, Sym(1));
        let c = h.insert(one, Sym(3));
        assert_eq!(c, a);
    }
}
