//! Sequentialisation of a parallel copy with the minimum number of moves.
//!
//! Source: Rastello, "SSA destruction for machine code", SSA book ch. 21 §21.3,
//! "Sequentialization of Parallel Copies" (Algorithm 21.6, after Boissinot et al., CGO 2009,
//! and the windmill-graph traversal of Algorithm 3.6 in ch. 3.2).
//!
//! A parallel copy `(b_1, …, b_n) := (a_1, …, a_n)` reads all its sources before writing any
//! destination. Its *location graph* has an edge `a -> b` per copy; since every location is
//! written at most once, each connected component is a "windmill": at most one cycle (the
//! wheel) with trees (blades) hanging from it. Sequentialising copies the blades from their
//! tips inwards — a location is overwritten as soon as its value has been saved elsewhere —
//! then breaks each remaining cycle:
//!
//! * with a **temporary**: one extra move per cycle (`n := b`, … , `x := n`), which is the
//!   minimum for a cycle without duplication; or
//! * with **swaps**, where the target has them: `k - 1` swaps for a cycle of length `k`.
//!
//! Self copies `a := a` are dropped. Preconditions: every destination appears once; the
//! temporary is not a location of the copy. Result: `moves = copies - self copies + cycles`
//! (temporary variant), which is optimal. Complexity: O(n) time with dense location indices
//! (locations are `u32`; a reusable [`Sequentializer`] keeps its tables between calls).

/// One sequential operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// `dst := src`.
    Copy { dst: u32, src: u32 },
    /// Exchange the contents of two locations.
    Swap { a: u32, b: u32 },
}

/// How cycles are broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CycleBreaker {
    /// Through this free location (one extra copy per cycle).
    Temp(u32),
    /// With swap operations (`k - 1` swaps per cycle of length `k`).
    Swap,
}

/// Errors in a parallel copy given to [`Sequentializer::sequentialize`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParallelCopyError {
    /// A location is written twice.
    DuplicateDestination(u32),
    /// The temporary is also a source or destination.
    TempInUse(u32),
}

const NONE: u32 = u32::MAX;

/// Reusable tables for sequentialisation (dense arrays indexed by location).
#[derive(Default, Debug)]
pub struct Sequentializer {
    /// `loc[a]`: where the initial value of `a` can be found now (NONE if `a` is no source).
    loc: Vec<u32>,
    /// `pred[b]`: the location whose initial value `b` must receive (NONE if `b` is no
    /// destination).
    pred: Vec<u32>,
    ready: Vec<u32>,
    to_do: Vec<u32>,
    /// Locations touched, to reset the tables in O(n).
    touched: Vec<u32>,
}

impl Sequentializer {
    pub fn new() -> Self {
        Self::default()
    }

    fn grow(&mut self, l: u32) {
        let need = l as usize + 1;
        if self.loc.len() < need {
            self.loc.resize(need, NONE);
            self.pred.resize(need, NONE);
        }
    }

    fn clear(&mut self) {
        for &l in &self.touched {
            self.loc[l as usize] = NONE;
            self.pred[l as usize] = NONE;
        }
        self.touched.clear();
        self.ready.clear();
        self.to_do.clear();
    }

    /// Sequentialises the parallel copy `copies` (pairs `(dst, src)`), appending the moves
    /// to `out`.
    pub fn sequentialize(
        &mut self,
        copies: &[(u32, u32)],
        breaker: CycleBreaker,
        out: &mut Vec<Move>,
    ) -> Result<(), ParallelCopyError> {
        self.clear();
        let result = self.run(copies, breaker, out);
        self.clear();
        result
    }

    fn run(
        &mut self,
        copies: &[(u32, u32)],
        breaker: CycleBreaker,
        out: &mut Vec<Move>,
    ) -> Result<(), ParallelCopyError> {
        for &(b, a) in copies {
            self.grow(a.max(b));
            self.touched.push(a);
            self.touched.push(b);
        }
        if let CycleBreaker::Temp(t) = breaker {
            self.grow(t);
            self.touched.push(t);
        }
        // Initialisation: every non-trivial copy is to do; record sources and destinations.
        for &(b, a) in copies {
            if a == b {
                continue;
            }
            if self.pred[b as usize] != NONE {
                return Err(ParallelCopyError::DuplicateDestination(b));
            }
            self.loc[a as usize] = a;
            self.pred[b as usize] = a;
            self.to_do.push(b);
        }
        // A destination that is also written by a self copy is written twice.
        for &(b, a) in copies {
            if a == b && self.pred[b as usize] != NONE {
                return Err(ParallelCopyError::DuplicateDestination(b));
            }
        }
        if let CycleBreaker::Temp(t) = breaker {
            if self.loc[t as usize] != NONE || self.pred[t as usize] != NONE {
                return Err(ParallelCopyError::TempInUse(t));
            }
        }
        // Blade tips: destinations whose own value nobody needs.
        for &b in &self.to_do {
            if self.loc[b as usize] == NONE {
                self.ready.push(b);
            }
        }
        while let Some(&b) = self.to_do.last() {
            self.copy_ready_blades(out);
            self.to_do.pop();
            if self.loc[b as usize] != b {
                // Either `b` was written already (its own value, if needed, was saved first)
                // or it is no source: nothing left to do for it.
                continue;
            }
            // `b` still holds its value and waits for its copy: it lies on a cycle whose
            // values are all still in place.
            match breaker {
                CycleBreaker::Temp(t) => {
                    out.push(Move::Copy { dst: t, src: b });
                    self.loc[b as usize] = t;
                    self.ready.push(b);
                }
                CycleBreaker::Swap => self.swap_cycle(b, out),
            }
        }
        Ok(())
    }

    /// Emits the copies of every ready destination, making new ones ready as their values
    /// get saved.
    fn copy_ready_blades(&mut self, out: &mut Vec<Move>) {
        while let Some(b) = self.ready.pop() {
            let a = self.pred[b as usize];
            let c = self.loc[a as usize];
            out.push(Move::Copy { dst: b, src: c });
            self.loc[a as usize] = b;
            if a == c && self.pred[a as usize] != NONE {
                self.ready.push(a);
            }
        }
    }

    /// Resolves the pure cycle through `start` (all its values still in place) with swaps.
    /// Walking the cycle backwards, `swap(b, pred(b))` puts `pred(b)`'s value into `b` and
    /// carries `start`'s original value one step back; the last swap puts it into `start`'s
    /// successor: `k - 1` swaps for `k` locations.
    fn swap_cycle(&mut self, start: u32, out: &mut Vec<Move>) {
        let mut b = start;
        let mut a = self.pred[b as usize];
        while a != start {
            out.push(Move::Swap { a: b, b: a });
            self.loc[a as usize] = b; // `a`'s value reached `b`
            b = a;
            a = self.pred[b as usize];
        }
        self.loc[start as usize] = b;
    }
}

/// Convenience wrapper: sequentialises one parallel copy with a fresh [`Sequentializer`].
pub fn sequentialize(
    copies: &[(u32, u32)],
    breaker: CycleBreaker,
) -> Result<Vec<Move>, ParallelCopyError> {
    let mut out = Vec::new();
    Sequentializer::new().sequentialize(copies, breaker, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `moves` on locations holding their own index and returns the final contents.
    fn execute(moves: &[Move], n: usize) -> Vec<u32> {
        let mut regs: Vec<u32> = (0..n as u32).collect();
        for m in moves {
            match *m {
                Move::Copy { dst, src } => regs[dst as usize] = regs[src as usize],
                Move::Swap { a, b } => regs.swap(a as usize, b as usize),
            }
        }
        regs
    }

    /// Number of cycles of the location graph that have no blade (no duplication of any of
    /// their values to a location outside the cycle): each needs one extra move.
    fn pure_cycles(copies: &[(u32, u32)], n: usize) -> (usize, usize) {
        let mut pred = vec![None; n];
        let mut fan_out = vec![0usize; n];
        for &(b, a) in copies {
            if a != b {
                pred[b as usize] = Some(a);
                fan_out[a as usize] += 1;
            }
        }
        let mut seen = vec![false; n];
        let (mut cycles, mut cycle_nodes) = (0, 0);
        for s in 0..n {
            if seen[s] {
                continue;
            }
            // Follow predecessors from s; a cycle is found if we come back to a node of this
            // walk.
            let mut path = Vec::new();
            let mut x = s;
            let mut on_path = vec![false; n];
            loop {
                if on_path[x] {
                    let k = path.iter().position(|&y| y == x).expect("on path");
                    let cyc = &path[k..];
                    if cyc.iter().all(|&y: &usize| fan_out[y] == 1) {
                        cycles += 1;
                        cycle_nodes += cyc.len();
                    }
                    break;
                }
                if seen[x] {
                    break;
                }
                on_path[x] = true;
                path.push(x);
                match pred[x] {
                    Some(p) => x = p as usize,
                    None => break,
                }
            }
            for y in path {
                seen[y] = true;
            }
        }
        (cycles, cycle_nodes)
    }

    /// Checks one parallel copy under both cycle breakers: correct values, and the optimal
    /// number of moves.
    fn check(copies: &[(u32, u32)], n: usize) {
        let non_trivial = copies.iter().filter(|(b, a)| a != b).count();
        let (cycles, cycle_nodes) = pure_cycles(copies, n);
        let mut expected: Vec<u32> = (0..n as u32).collect();
        for &(b, a) in copies {
            expected[b as usize] = a;
        }
        let temp = n as u32;
        let moves = sequentialize(copies, CycleBreaker::Temp(temp)).expect("valid");
        let got = execute(&moves, n + 1);
        assert_eq!(&got[..n], &expected[..], "temp: {copies:?} -> {moves:?}");
        assert_eq!(moves.len(), non_trivial + cycles, "temp count: {copies:?}");

        let moves = sequentialize(copies, CycleBreaker::Swap).expect("valid");
        let got = execute(&moves, n);
        assert_eq!(got, expected, "swap: {copies:?} -> {moves:?}");
        // A pure cycle of k locations costs k - 1 swaps instead of k copies.
        assert_eq!(
            moves.len(),
            non_trivial - cycle_nodes + (cycle_nodes - cycles),
            "swap count: {copies:?} -> {moves:?}"
        );
    }

    /// Every parallel copy over up to 6 locations: each location is either not written or
    /// receives the value of any location (itself included), which covers all permutations,
    /// duplications and self copies.
    #[test]
    fn exhaustive_up_to_six_locations() {
        for n in 1..=6usize {
            let choices = n + 1; // "not a destination" or one of n sources
            let total = choices.pow(n as u32);
            let mut copies = Vec::with_capacity(n);
            for code in 0..total {
                copies.clear();
                let mut c = code;
                for b in 0..n as u32 {
                    let pick = c % choices;
                    c /= choices;
                    if pick > 0 {
                        copies.push((b, pick as u32 - 1));
                    }
                }
                check(&copies, n);
            }
        }
    }

    #[test]
    fn randomised_large_copies() {
        // A simple LCG: deterministic, no dependency.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % m
        };
        let mut seq = Sequentializer::new();
        let mut out = Vec::new();
        for _ in 0..2000 {
            let n = 1 + next(40) as usize;
            let mut copies = Vec::new();
            for b in 0..n as u32 {
                if next(4) != 0 {
                    copies.push((b, next(n as u64) as u32));
                }
            }
            check(&copies, n);
            // The reusable context gives the same result as a fresh one.
            out.clear();
            seq.sequentialize(&copies, CycleBreaker::Temp(n as u32), &mut out)
                .expect("valid");
            assert_eq!(
                out,
                sequentialize(&copies, CycleBreaker::Temp(n as u32)).unwrap()
            );
        }
    }

    #[test]
    fn swap_problem_and_rotation() {
        // (a, b) := (b, a): one cycle of two, three copies with a temporary, one swap.
        let moves = sequentialize(&[(0, 1), (1, 0)], CycleBreaker::Temp(9)).unwrap();
        assert_eq!(moves.len(), 3);
        let moves = sequentialize(&[(0, 1), (1, 0)], CycleBreaker::Swap).unwrap();
        assert_eq!(moves, vec![Move::Swap { a: 1, b: 0 }]);
        // A cycle with a blade needs no temporary: (b, c, a) := (a, a, c) saves a in c first.
        let moves = sequentialize(&[(1, 0), (2, 0), (0, 2)], CycleBreaker::Temp(9)).unwrap();
        assert!(moves
            .iter()
            .all(|m| !matches!(m, Move::Copy { dst: 9, .. })));
        assert_eq!(moves.len(), 3);
    }

    #[test]
    fn invalid_copies_are_errors() {
        assert_eq!(
            sequentialize(&[(0, 1), (0, 2)], CycleBreaker::Swap),
            Err(ParallelCopyError::DuplicateDestination(0))
        );
        assert_eq!(
            sequentialize(&[(0, 0), (0, 2)], CycleBreaker::Swap),
            Err(ParallelCopyError::DuplicateDestination(0))
        );
        assert_eq!(
            sequentialize(&[(0, 1)], CycleBreaker::Temp(1)),
            Err(ParallelCopyError::TempInUse(1))
        );
    }
}
