//! Per-node lists that concatenate in O(1): singly linked chains in one arena, with a head
//! and a tail per node. Iterated Register Coalescing merges the move list of every coalesced
//! node into its representative's (`moveList[u] ∪= moveList[v]`, George & Appel 1996,
//! Appendix A `Combine`); with vectors, chains of coalesced nodes copy the growing list
//! again at every step — quadratic time on large functions. Here the order of the items is
//! that of the vector version (u's items, then v's), so the allocator's choices do not change.
//!
//! Invariants: every arena entry belongs to at most one list; `retain` unlinks entries (they
//! stay in the arena, unused). Memory: O(nodes + pushes).

const NIL: u32 = u32::MAX;

/// One list per node, of `u32` items.
#[derive(Clone, Debug, Default)]
pub struct ConcatLists {
    head: Vec<u32>,
    tail: Vec<u32>,
    item: Vec<u32>,
    next: Vec<u32>,
}

impl ConcatLists {
    /// `n` empty lists.
    pub fn new(n: usize) -> ConcatLists {
        ConcatLists {
            head: vec![NIL; n],
            tail: vec![NIL; n],
            item: Vec::new(),
            next: Vec::new(),
        }
    }

    /// Lists filled from vectors, in order.
    pub fn from_vecs(lists: &[Vec<u32>]) -> ConcatLists {
        let mut c = ConcatLists::new(lists.len());
        for (node, list) in lists.iter().enumerate() {
            for &x in list {
                c.push(node, x);
            }
        }
        c
    }

    /// Appends `x` to the list of `node`.
    pub fn push(&mut self, node: usize, x: u32) {
        let e = self.item.len() as u32;
        self.item.push(x);
        self.next.push(NIL);
        match self.tail[node] {
            NIL => self.head[node] = e,
            t => self.next[t as usize] = e,
        }
        self.tail[node] = e;
    }

    /// Moves the whole list of `from` to the end of the list of `to` (`from` becomes empty).
    pub fn append(&mut self, to: usize, from: usize) {
        if to == from || self.head[from] == NIL {
            return;
        }
        match self.tail[to] {
            NIL => self.head[to] = self.head[from],
            t => self.next[t as usize] = self.head[from],
        }
        self.tail[to] = self.tail[from];
        self.head[from] = NIL;
        self.tail[from] = NIL;
    }

    pub fn is_empty(&self, node: usize) -> bool {
        self.head[node] == NIL
    }

    /// The items of `node`'s list, in order.
    pub fn iter(&self, node: usize) -> impl Iterator<Item = u32> + '_ {
        let mut e = self.head[node];
        std::iter::from_fn(move || {
            if e == NIL {
                return None;
            }
            let x = self.item[e as usize];
            e = self.next[e as usize];
            Some(x)
        })
    }

    /// The `k`-th entry handle of a walk: `first(node)` then `after(entry)`; lets a caller
    /// walk a list while mutating other state (the handles stay valid unless the entry is
    /// unlinked by `retain`).
    pub fn first(&self, node: usize) -> Option<u32> {
        (self.head[node] != NIL).then_some(self.head[node])
    }

    pub fn after(&self, entry: u32) -> Option<u32> {
        let n = self.next[entry as usize];
        (n != NIL).then_some(n)
    }

    pub fn item(&self, entry: u32) -> u32 {
        self.item[entry as usize]
    }

    /// Unlinks the items of `node`'s list for which `keep` is false, keeping the order.
    /// Drops items from the front of `node`'s list while `drop` holds for them: O(dropped + 1).
    pub fn drop_front_while(&mut self, node: usize, mut drop: impl FnMut(u32) -> bool) {
        let mut e = self.head[node];
        while e != NIL && drop(self.item[e as usize]) {
            e = self.next[e as usize];
        }
        self.head[node] = e;
        if e == NIL {
            self.tail[node] = NIL;
        }
    }

    pub fn retain(&mut self, node: usize, mut keep: impl FnMut(u32) -> bool) {
        let mut prev = NIL;
        let mut e = self.head[node];
        while e != NIL {
            let next = self.next[e as usize];
            if keep(self.item[e as usize]) {
                prev = e;
            } else {
                match prev {
                    NIL => self.head[node] = next,
                    p => self.next[p as usize] = next,
                }
            }
            e = next;
        }
        self.tail[node] = prev;
        if prev != NIL {
            self.next[prev as usize] = NIL;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(c: &ConcatLists, n: usize) -> Vec<u32> {
        c.iter(n).collect()
    }

    #[test]
    fn drop_front_while_stops_at_the_first_kept_item() {
        let mut c = ConcatLists::from_vecs(&[vec![1, 2, 3, 4], vec![5]]);
        c.drop_front_while(0, |x| x < 3);
        assert_eq!(items(&c, 0), vec![3, 4]);
        c.drop_front_while(0, |_| true);
        assert!(c.is_empty(0));
        c.push(0, 7); // the tail was reset with the head
        c.append(0, 1);
        assert_eq!(items(&c, 0), vec![7, 5]);
    }

    #[test]
    fn append_keeps_the_order_of_vector_concatenation() {
        let mut c = ConcatLists::from_vecs(&[vec![1, 2], vec![3], vec![], vec![4, 5]]);
        c.append(0, 1);
        assert_eq!(items(&c, 0), vec![1, 2, 3]);
        assert!(c.is_empty(1));
        c.append(2, 0); // into an empty list
        assert_eq!(items(&c, 2), vec![1, 2, 3]);
        c.append(3, 2);
        c.push(3, 6);
        assert_eq!(items(&c, 3), vec![4, 5, 1, 2, 3, 6]);
        c.append(3, 0); // from an empty list
        c.append(3, 3); // onto itself
        assert_eq!(items(&c, 3), vec![4, 5, 1, 2, 3, 6]);
    }

    #[test]
    fn retain_unlinks_and_keeps_the_tail_right() {
        let mut c = ConcatLists::from_vecs(&[vec![1, 2, 3, 4, 5], vec![9]]);
        c.retain(0, |x| x % 2 == 0);
        assert_eq!(items(&c, 0), vec![2, 4]);
        c.push(0, 7);
        c.append(0, 1);
        assert_eq!(items(&c, 0), vec![2, 4, 7, 9]);
        c.retain(0, |_| false);
        assert!(c.is_empty(0));
        c.push(0, 8);
        assert_eq!(items(&c, 0), vec![8]);
    }
}
