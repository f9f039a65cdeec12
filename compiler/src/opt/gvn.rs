//! Dominator-based value numbering: common-subexpression elimination over the dominator tree
//! with a scoped hash table (Briggs, Cooper, Simpson, "Value Numbering", SP&E 1997, the
//! dominator-tree variant).
//!
//! Walking the dominator tree in pre-order, each pure instruction gets a key (operation and
//! operands, operands already replaced by their leaders). If an instruction with the same key
//! dominates it (is in the table), its result replaces this one's everywhere and the
//! instruction is deleted; otherwise it becomes the leader for the blocks it dominates. Leaving
//! a block pops its entries.
//!
//! * Commutative operations are normalised (operands ordered; `cmp.lt b, a` = `cmp.gt a, b`).
//! * Trapping divisions are numbered too: the dominating one already ran without trapping.
//! * Loads are only merged inside one block with no store, call or volatile access between
//!   them (the key carries the block and a memory epoch); volatile loads never.
//! * Phis of one block with identical arguments are merged.
//!
//! Preserves strict SSA: a leader dominates every instruction it replaces.
//! Complexity: O(instructions) expected (hashing), plus O(k²) per block with k phis, capped.

use super::{InstMarks, Subst};
use crate::analysis::cfg::Cfg;
use crate::analysis::dom::DomTree;
use crate::ir::{BinOp, BlockId, CmpOp, Function, MemTy, Op, SlotId, UnOp, Value};
use std::collections::HashMap;

/// Blocks with more phis than this are not searched for duplicate phis (quadratic search).
const MAX_PHIS_COMPARED: usize = 64;

/// What value numbering did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GvnStats {
    pub insts_removed: usize,
    pub phis_removed: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key {
    Const(i32),
    Bin(BinOp, Value, Value),
    Un(UnOp, Value),
    Cmp(CmpOp, Value, Value),
    Select(Value, Value, Value),
    SymAddr(u32, i32),
    SlotAddr(SlotId),
    Load {
        ty: MemTy,
        addr: Value,
        block: BlockId,
        epoch: u32,
    },
}

/// Runs value numbering on `f` (see the module doc).
pub fn gvn(f: &mut Function) -> GvnStats {
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(&cfg);
    let mut subst = Subst::new(f.num_values());
    let mut marks = InstMarks::new(f);
    let mut stats = GvnStats::default();
    {
        let mut walk = Walk {
            f,
            table: HashMap::new(),
            log: Vec::new(),
            symbols: HashMap::new(),
            subst: &mut subst,
            marks: &mut marks,
            stats: &mut stats,
        };
        walk.run(&dom);
    }
    marks.delete_marked(f);
    subst.apply(f);
    stats
}

struct Walk<'f, 's> {
    f: &'f Function,
    table: HashMap<Key, Value>,
    log: Vec<Key>,
    symbols: HashMap<&'f str, u32>,
    subst: &'s mut Subst,
    marks: &'s mut InstMarks,
    stats: &'s mut GvnStats,
}

impl<'f> Walk<'f, '_> {
    fn run(&mut self, dom: &DomTree) {
        let mut stack: Vec<(BlockId, usize, usize)> = Vec::new();
        if !dom.is_reachable(BlockId::ENTRY) {
            return;
        }
        self.visit_block(BlockId::ENTRY);
        stack.push((BlockId::ENTRY, 0, 0));
        while let Some(&mut (b, ref mut next, mark)) = stack.last_mut() {
            if let Some(&c) = dom.children(b).get(*next) {
                *next += 1;
                let mark = self.log.len();
                self.visit_block(c);
                stack.push((c, 0, mark));
            } else {
                for key in self.log.drain(mark..) {
                    self.table.remove(&key);
                }
                stack.pop();
            }
        }
    }

    fn visit_block(&mut self, b: BlockId) {
        let f = self.f;
        let block = f.block(b);
        self.merge_phis(b);
        let mut epoch = 0u32;
        for (i, inst) in block.insts.iter().enumerate() {
            if inst.op.is_phi() {
                continue;
            }
            let key = self.key(&inst.op, b, epoch);
            if clobbers_memory(&inst.op) {
                epoch += 1;
            }
            let (Some(key), Some(d)) = (key, inst.dst) else {
                continue;
            };
            match self.table.get(&key) {
                Some(&leader) => {
                    self.subst.set(d, leader);
                    self.marks.mark(b.index(), i);
                    self.stats.insts_removed += 1;
                }
                None => {
                    self.table.insert(key, d);
                    self.log.push(key);
                }
            }
        }
    }

    /// Merges phis of `b` whose (resolved) arguments are identical.
    fn merge_phis(&mut self, b: BlockId) {
        let f = self.f;
        let block = f.block(b);
        let nphi = block.phi_count();
        if !(2..=MAX_PHIS_COMPARED).contains(&nphi) {
            return;
        }
        let mut seen: Vec<(Vec<(BlockId, Value)>, Value)> = Vec::with_capacity(nphi);
        for (i, inst) in block.insts[..nphi].iter().enumerate() {
            let (Op::Phi(args), Some(d)) = (&inst.op, inst.dst) else {
                continue;
            };
            let mut key: Vec<(BlockId, Value)> = args
                .iter()
                .map(|&(p, v)| (p, self.subst.resolve(v)))
                .collect();
            key.sort_unstable();
            if let Some((_, leader)) = seen.iter().find(|(k, _)| *k == key) {
                if f.value_ty(*leader) == f.value_ty(d) {
                    self.subst.set(d, *leader);
                    self.marks.mark(b.index(), i);
                    self.stats.phis_removed += 1;
                    continue;
                }
            }
            seen.push((key, d));
        }
    }

    fn key(&mut self, op: &'f Op, block: BlockId, epoch: u32) -> Option<Key> {
        let mut r = |v: &Value| self.subst.resolve(*v);
        Some(match op {
            Op::Const(c) => Key::Const(*c),
            Op::Bin(o, a, b) => {
                let (mut a, mut b) = (r(a), r(b));
                if o.is_commutative() && a > b {
                    std::mem::swap(&mut a, &mut b);
                }
                Key::Bin(*o, a, b)
            }
            Op::Un(o, a) => Key::Un(*o, r(a)),
            Op::Cmp(c, a, b) => {
                let (a, b) = (r(a), r(b));
                if a > b {
                    Key::Cmp(c.swapped(), b, a)
                } else {
                    Key::Cmp(*c, a, b)
                }
            }
            Op::Select(c, a, b) => Key::Select(r(c), r(a), r(b)),
            Op::SymAddr(s, off) => {
                let next = self.symbols.len() as u32;
                let id = *self.symbols.entry(s.as_str()).or_insert(next);
                Key::SymAddr(id, *off)
            }
            Op::SlotAddr(s) => Key::SlotAddr(*s),
            Op::Load {
                ty,
                addr,
                volatile: false,
            } => Key::Load {
                ty: *ty,
                addr: r(addr),
                block,
                epoch,
            },
            Op::Copy(_)
            | Op::Load { volatile: true, .. }
            | Op::Store { .. }
            | Op::Call { .. }
            | Op::Phi(_) => return None,
        })
    }
}

/// Operations after which a load may see a different value.
fn clobbers_memory(op: &Op) -> bool {
    matches!(
        op,
        Op::Store { .. } | Op::Call { .. } | Op::Load { volatile: true, .. }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse::parse_function;

    fn run(src: &str) -> (String, GvnStats) {
        let mut f = parse_function(src).expect("parse");
        let stats = gvn(&mut f);
        if let Err(e) = crate::ssa::verify_function(&f) {
            panic!("{e:?}\n{f}");
        }
        (f.to_string(), stats)
    }

    fn text(src: &str) -> String {
        parse_function(src).expect("parse").to_string()
    }

    #[test]
    fn commutative_and_dominated_expressions() {
        let (out, stats) = run("func @f(%0:i32, %1:i32) -> i32 {
b0:
  %2:i32 = add %0, %1
  %3:i32 = cmp.lt %0, %1
  br %3, b1, b2
b1:
  %4:i32 = add %1, %0
  %5:i32 = cmp.gt %1, %0
  ret %5
b2:
  %6:i32 = mul %0, %1
  ret %6
b3:
  ret %4
}");
        assert_eq!(stats.insts_removed, 2);
        assert_eq!(
            out,
            text(
                "func @f(%0:i32, %1:i32) -> i32 {
b0:
  %2:i32 = add %0, %1
  %3:i32 = cmp.lt %0, %1
  br %3, b1, b2
b1:
  ret %3
b2:
  %6:i32 = mul %0, %1
  ret %6
b3:
  ret %2
}"
            )
        );
    }

    #[test]
    fn siblings_do_not_share_and_loads_respect_stores() {
        let (out, stats) = run("func @f(%0:ptr, %9:i32) -> i32 {
b0:
  br %9, b1, b2
b1:
  %1:i32 = load.i32 %0
  %2:i32 = load.i32 %0
  store.i32 %0, %1
  %3:i32 = load.i32 %0
  %4:i32 = load.i32.volatile %0
  %5:i32 = load.i32.volatile %0
  ret %3
b2:
  %6:i32 = load.i32 %0
  ret %6
}");
        // Only %2 merges with %1; %3 follows a store; volatile loads and the sibling block's
        // load stay.
        assert_eq!(stats.insts_removed, 1);
        assert!(out.contains("%3:i32 = load.i32 %0"));
        assert!(out.contains("%6:i32 = load.i32 %0"));
        assert!(!out.contains("%2:i32"));
    }

    #[test]
    fn identical_phis_merge() {
        let (out, stats) = run("func @f(%0:i32) -> i32 {
b0:
  br %0, b1, b2
b1:
  jmp b2
b2:
  %1:i32 = phi [b0: %0], [b1: %0]
  %2:i32 = phi [b1: %0], [b0: %0]
  %3:i32 = add %1, %2
  ret %3
}");
        assert_eq!(stats.phis_removed, 1);
        assert!(out.contains("%3:i32 = add %1, %1"));
    }
}
