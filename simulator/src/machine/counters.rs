//! Event counters of a run (totals and per function).
//!
//! Conventions: `ops` counts every executed operation including `nop`s and excluding
//! long-immediate extension syllables; `loads`/`stores` EXCLUDE spill loads/stores, which are
//! counted apart in `spill_loads`/`spill_stores` (so all memory accesses = loads + stores +
//! spill_loads + spill_stores); `moves` counts operations annotated COPY; `swaps` counts swap
//! sequences (see [`crate::object::OpFlags::SWAP_PART`]); `cycles` = `bundles` + stall cycles
//! + branch penalty cycles.

use std::ops::{Add, AddAssign, Sub};

/// One set of counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Elapsed cycles.
    pub cycles: u64,
    /// Cycles lost waiting for an operand (register scoreboard interlock).
    pub stall_operand: u64,
    /// Cycles lost waiting for the memory port.
    pub stall_memport: u64,
    /// Issued bundles (issue groups).
    pub bundles: u64,
    /// Executed operations (nops included).
    pub ops: u64,
    /// Executed `nop` operations.
    pub nops: u64,
    /// Executed register copies (operations annotated COPY).
    pub moves: u64,
    /// Executed swap sequences.
    pub swaps: u64,
    /// Executed loads, spill loads excluded.
    pub loads: u64,
    /// Executed stores, spill stores excluded.
    pub stores: u64,
    /// Executed spill loads.
    pub spill_loads: u64,
    /// Executed spill stores.
    pub spill_stores: u64,
    /// Taken control transfers (branches, gotos, calls, returns).
    pub taken_branches: u64,
}

impl Counters {
    /// Field names, in the order of [`Counters::values`] (used as CSV/JSON keys).
    pub const NAMES: [&'static str; 13] = [
        "cycles",
        "stall_operand",
        "stall_memport",
        "bundles",
        "ops",
        "nops",
        "moves",
        "swaps",
        "loads",
        "stores",
        "spill_loads",
        "spill_stores",
        "taken_branches",
    ];

    /// Field values, in the order of [`Counters::NAMES`].
    pub fn values(&self) -> [u64; 13] {
        [
            self.cycles,
            self.stall_operand,
            self.stall_memport,
            self.bundles,
            self.ops,
            self.nops,
            self.moves,
            self.swaps,
            self.loads,
            self.stores,
            self.spill_loads,
            self.spill_stores,
            self.taken_branches,
        ]
    }

    /// Inverse of [`Counters::values`].
    pub fn from_values(v: [u64; 13]) -> Counters {
        Counters {
            cycles: v[0],
            stall_operand: v[1],
            stall_memport: v[2],
            bundles: v[3],
            ops: v[4],
            nops: v[5],
            moves: v[6],
            swaps: v[7],
            loads: v[8],
            stores: v[9],
            spill_loads: v[10],
            spill_stores: v[11],
            taken_branches: v[12],
        }
    }

    /// All stall cycles.
    pub fn stalls(&self) -> u64 {
        self.stall_operand + self.stall_memport
    }
}

/// Field-by-field arithmetic (written out so that profiler events stay cheap).
macro_rules! fieldwise {
    ($a:expr, $b:expr, $f:ident) => {
        Counters {
            cycles: $a.cycles.$f($b.cycles),
            stall_operand: $a.stall_operand.$f($b.stall_operand),
            stall_memport: $a.stall_memport.$f($b.stall_memport),
            bundles: $a.bundles.$f($b.bundles),
            ops: $a.ops.$f($b.ops),
            nops: $a.nops.$f($b.nops),
            moves: $a.moves.$f($b.moves),
            swaps: $a.swaps.$f($b.swaps),
            loads: $a.loads.$f($b.loads),
            stores: $a.stores.$f($b.stores),
            spill_loads: $a.spill_loads.$f($b.spill_loads),
            spill_stores: $a.spill_stores.$f($b.spill_stores),
            taken_branches: $a.taken_branches.$f($b.taken_branches),
        }
    };
}

impl Add for Counters {
    type Output = Counters;
    #[inline]
    fn add(self, o: Counters) -> Counters {
        fieldwise!(self, o, wrapping_add)
    }
}

impl AddAssign for Counters {
    #[inline]
    fn add_assign(&mut self, o: Counters) {
        *self = *self + o;
    }
}

impl Sub for Counters {
    type Output = Counters;
    #[inline]
    fn sub(self, o: Counters) -> Counters {
        fieldwise!(self, o, wrapping_sub)
    }
}

/// Counters of one function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FunctionStats {
    pub name: String,
    /// Address of the function symbol.
    pub addr: u32,
    /// Times the function was entered by a call (the entry function counts 1).
    pub calls: u64,
    /// Everything that happened while the function was active, callees included (recursive
    /// activations counted once).
    pub inclusive: Counters,
    /// Everything that happened while the function was the innermost activation.
    pub exclusive: Counters,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_and_names() {
        let a = Counters {
            cycles: 10,
            ops: 4,
            loads: 1,
            ..Counters::default()
        };
        let b = Counters {
            cycles: 3,
            ops: 1,
            ..Counters::default()
        };
        assert_eq!((a - b).cycles, 7);
        assert_eq!((a + b).ops, 5);
        assert_eq!(Counters::from_values(a.values()), a);
        assert_eq!(Counters::NAMES.len(), a.values().len());
    }
}
