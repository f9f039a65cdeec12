//! Pruned SSA construction (Cytron, Ferrante, Rosen, Wegman, Zadeck, "Efficiently Computing
//! Static Single Assignment Form and the Control Dependence Graph", TOPLAS 1991), with phis
//! pruned by liveness (Choi, Cytron, Ferrante 1991): no phi is placed where its variable is
//! dead, so every phi has a (transitive) real use.
//!
//! Input: the front end's non-SSA IR, where a virtual register may be assigned by several
//! instructions (promoted C variables); parameters are defined at the top of the entry block.
//! Steps:
//! 1. unreachable blocks are removed and, if the entry block has predecessors, a fresh entry is
//!    put in front of it (phis cannot sit in the entry);
//! 2. a scan finds, per register, its definition blocks and the blocks where it is read
//!    before any definition (upward-exposed); registers never upward-exposed are block-local
//!    temporaries and need no phi;
//! 3. for each other register, its live-in blocks are found by walking predecessors
//!    backwards from the upward-exposed uses, stopping at definitions (per-register liveness:
//!    the cost is the size of its live range, not blocks × registers), and phis go to the
//!    blocks of the iterated dominance frontier of its definition blocks where it is live-in;
//! 4. renaming walks the dominator tree (iteratively, no recursion) with one "current name"
//!    table and an undo log (the value stacks of Cytron et al., flattened), fills phi arguments
//!    from each predecessor, and gives every definition a new name. The first definition met of
//!    a register keeps its number, later ones get fresh values of the same type, so code
//!    without reassignments comes out unchanged.
//!
//! **Undefined values.** A register read on a path where it was never assigned (C: reading an
//! uninitialised variable, undefined behaviour) gets an explicit definition `%u = const 0`:
//! right before the reading instruction, or at the end of the predecessor block for a phi
//! argument (one per block and type, reused). The result is *strict* SSA — every use is
//! dominated by its definition — which the verifier, the fast liveness check and SSA-based
//! register allocation rely on, and the live range of the stand-in is as short as possible.
//! The interpreter would have trapped on a real use of the undefined register before SSA; after
//! SSA it reads 0, a legitimate refinement of undefined behaviour. (Pruning means this is rare:
//! only a variable assigned on some paths and then read on a path where it may be unassigned.)
//!
//! Complexity: O(instructions) for the scan and the renaming, plus, per crossing register, the
//! size of its live range and of its iterated dominance frontier.

use crate::analysis::cfg::{ensure_entry_has_no_preds, remove_unreachable_blocks, Cfg, NONE};
use crate::analysis::dom::{DomFrontiers, DomTree, IdfScratch};
use crate::ir::{BlockId, Function, Inst, Op, Ty, Value};
use std::fmt;

/// What SSA construction did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SsaStats {
    pub phis: usize,
    /// `const 0` stand-ins inserted for reads of never-assigned registers.
    pub undefined: usize,
    pub blocks_removed: usize,
}

/// Input that SSA construction refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaError {
    pub function: String,
    pub message: String,
}

impl fmt::Display for SsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}: {}", self.function, self.message)
    }
}

impl std::error::Error for SsaError {}

/// Converts `f` to pruned SSA in place. A function that already has phis is accepted
/// unchanged if every register has at most one definition (it is SSA already).
pub fn construct_ssa(f: &mut Function) -> Result<SsaStats, SsaError> {
    if f.blocks
        .iter()
        .any(|b| b.insts.iter().any(|i| i.op.is_phi()))
    {
        return if has_multiple_definitions(f) {
            Err(SsaError {
                function: f.name.clone(),
                message: "input mixes phis with registers assigned more than once".to_string(),
            })
        } else {
            Ok(SsaStats::default())
        };
    }
    let mut stats = SsaStats {
        blocks_removed: remove_unreachable_blocks(f),
        ..Default::default()
    };
    ensure_entry_has_no_preds(f);
    let cfg = Cfg::compute(f);
    let dom = DomTree::compute(&cfg);
    let phis = place_phis(f, &cfg, &dom);
    stats.phis = phis.iter().map(Vec::len).sum();
    stats.undefined = Renamer::new(f, &cfg, phis).run(f, &dom);
    Ok(stats)
}

fn has_multiple_definitions(f: &Function) -> bool {
    let mut seen = vec![false; f.num_values()];
    let defs = f.params.iter().copied().chain(
        f.blocks
            .iter()
            .flat_map(|b| b.insts.iter().filter_map(|i| i.dst)),
    );
    for d in defs {
        if std::mem::replace(&mut seen[d.index()], true) {
            return true;
        }
    }
    false
}

/// For every block, the registers that need a phi there.
fn place_phis(f: &Function, cfg: &Cfg, dom: &DomTree) -> Vec<Vec<Value>> {
    let n = f.num_blocks();
    let mut phis: Vec<Vec<Value>> = vec![Vec::new(); n];
    let sites = LocalSites::collect(f);
    if sites.upward.is_empty() {
        return phis;
    }
    let df = DomFrontiers::compute(cfg, dom);
    let mut idf = IdfScratch::new();
    let mut frontier = Vec::new();
    let (mut def_mark, mut live_mark) = (vec![0u32; n], vec![0u32; n]);
    let mut work: Vec<BlockId> = Vec::new();
    for var in 0..f.num_values() {
        let (defs, upward) = (sites.defs.of(var), sites.upward.of(var));
        if defs.is_empty() || upward.is_empty() {
            continue; // block-local, or never assigned (reads get a stand-in)
        }
        let stamp = var as u32 + 1;
        for b in defs {
            def_mark[b.index()] = stamp;
        }
        // Live-in blocks: backwards from the upward-exposed uses, stopping at definitions.
        work.clear();
        for &b in upward {
            live_mark[b.index()] = stamp;
            work.push(b);
        }
        while let Some(b) = work.pop() {
            for &p in cfg.preds(b) {
                if live_mark[p.index()] != stamp && def_mark[p.index()] != stamp {
                    live_mark[p.index()] = stamp;
                    work.push(p);
                }
            }
        }
        idf.iterated_frontier(&df, defs, &mut frontier);
        for &y in &frontier {
            if live_mark[y.index()] == stamp {
                phis[y.index()].push(Value(var as u32));
            }
        }
    }
    phis
}

/// Per register: the blocks defining it and the blocks where it is upward-exposed (read
/// before any definition in the block), each block listed once.
struct LocalSites {
    defs: Compressed,
    upward: Compressed,
}

/// `(register, block)` pairs grouped by register.
struct Compressed {
    start: Vec<u32>,
    blocks: Vec<BlockId>,
}

impl Compressed {
    fn new(num_values: usize, pairs: &[(u32, u32)]) -> Self {
        let mut start = vec![0u32; num_values + 1];
        for &(v, _) in pairs {
            start[v as usize + 1] += 1;
        }
        for v in 0..num_values {
            start[v + 1] += start[v];
        }
        let mut cursor = start[..num_values].to_vec();
        let mut blocks = vec![BlockId(0); pairs.len()];
        for &(v, b) in pairs {
            blocks[cursor[v as usize] as usize] = BlockId(b);
            cursor[v as usize] += 1;
        }
        Compressed { start, blocks }
    }

    fn of(&self, v: usize) -> &[BlockId] {
        &self.blocks[self.start[v] as usize..self.start[v + 1] as usize]
    }

    fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

impl LocalSites {
    fn collect(f: &Function) -> Self {
        let nv = f.num_values();
        // defined_in[v] / upward_in[v]: last block where v was recorded as defined / exposed.
        let (mut defined_in, mut upward_in) = (vec![NONE; nv], vec![NONE; nv]);
        let (mut defs, mut upward) = (Vec::new(), Vec::new());
        for p in &f.params {
            defined_in[p.index()] = 0;
            defs.push((p.0, 0));
        }
        for (b, block) in f.blocks.iter().enumerate() {
            let b = b as u32;
            for inst in &block.insts {
                inst.op.for_each_use(|v| {
                    if defined_in[v.index()] != b && upward_in[v.index()] != b {
                        upward_in[v.index()] = b;
                        upward.push((v.0, b));
                    }
                });
                if let Some(d) = inst.dst {
                    if defined_in[d.index()] != b {
                        defined_in[d.index()] = b;
                        defs.push((d.0, b));
                    }
                }
            }
            block.term.for_each_use(|v| {
                if defined_in[v.index()] != b && upward_in[v.index()] != b {
                    upward_in[v.index()] = b;
                    upward.push((v.0, b));
                }
            });
        }
        LocalSites {
            defs: Compressed::new(nv, &defs),
            upward: Compressed::new(nv, &upward),
        }
    }
}

/// Renaming state (see the module doc).
struct Renamer<'a> {
    cfg: &'a Cfg,
    /// Current SSA name of each original register (`NONE`: not assigned on this path).
    cur: Vec<u32>,
    /// Original registers whose own number is already used by a definition.
    taken: Vec<bool>,
    undo: Vec<(u32, u32)>,
    /// Phis per block: original register and the phi instruction being built.
    phis: Vec<Vec<(Value, Inst)>>,
    /// `const 0` stand-ins already made in the block being renamed, per type.
    undef_here: [Option<Value>; 2],
    undefined: usize,
    /// Per block, its position among the predecessors of its first and second successor
    /// (the phi argument it fills). Found once: searching the predecessor list per edge cost
    /// O(n^2) on a join of `n` predecessors (a long `else if` chain).
    pred_pos: Vec<[u32; 2]>,
}

impl<'a> Renamer<'a> {
    fn new(f: &Function, cfg: &'a Cfg, phi_vars: Vec<Vec<Value>>) -> Self {
        let n = f.num_values();
        let phis = phi_vars
            .into_iter()
            .enumerate()
            .map(|(b, vars)| {
                vars.into_iter()
                    .map(|v| {
                        let args = cfg
                            .preds(BlockId(b as u32))
                            .iter()
                            .map(|&p| (p, v))
                            .collect();
                        (
                            v,
                            Inst {
                                dst: None,
                                op: Op::Phi(args),
                            },
                        )
                    })
                    .collect()
            })
            .collect();
        let mut r = Renamer {
            cfg,
            cur: vec![NONE; n],
            taken: vec![false; n],
            undo: Vec::new(),
            phis,
            undef_here: [None; 2],
            undefined: 0,
            pred_pos: predecessor_positions(cfg),
        };
        for p in &f.params {
            r.cur[p.index()] = p.0;
            r.taken[p.index()] = true;
        }
        r
    }

    /// Renames the whole function; returns the number of undefined stand-ins created.
    fn run(mut self, f: &mut Function, dom: &DomTree) -> usize {
        let mut blocks = std::mem::take(&mut f.blocks);
        // Iterative dominator-tree walk: (block, next child, undo mark).
        let mut stack: Vec<(BlockId, usize, usize)> = Vec::new();
        self.rename_block(f, &mut blocks, BlockId::ENTRY);
        stack.push((BlockId::ENTRY, 0, 0));
        while let Some(&mut (b, ref mut next, mark)) = stack.last_mut() {
            if let Some(&c) = dom.children(b).get(*next) {
                *next += 1;
                let mark = self.undo.len();
                self.rename_block(f, &mut blocks, c);
                stack.push((c, 0, mark));
            } else {
                while self.undo.len() > mark {
                    let (var, old) = self.undo.pop().expect("undo entry");
                    self.cur[var as usize] = old;
                }
                stack.pop();
            }
        }
        // Put the phis at the head of their blocks.
        for (b, phis) in self.phis.into_iter().enumerate() {
            if phis.is_empty() {
                continue;
            }
            let body = std::mem::take(&mut blocks[b].insts);
            let mut insts: Vec<Inst> = phis.into_iter().map(|(_, inst)| inst).collect();
            insts.extend(body);
            blocks[b].insts = insts;
        }
        f.blocks = blocks;
        self.undefined
    }

    /// A new name for a definition of `var`: its own number the first time, else a fresh value.
    fn define(&mut self, f: &mut Function, var: Value) -> Value {
        let name = if self.taken[var.index()] {
            f.new_value(f.value_ty(var))
        } else {
            self.taken[var.index()] = true;
            var
        };
        self.undo.push((var.0, self.cur[var.index()]));
        self.cur[var.index()] = name.0;
        name
    }

    /// The current name of `var`, or a `const 0` stand-in appended to `out`.
    fn read(&mut self, f: &mut Function, var: Value, out: &mut Vec<Inst>) -> Value {
        match self.cur.get(var.index()) {
            Some(&c) if c != NONE => Value(c),
            _ => {
                let ty = f.value_ty(var);
                let slot = usize::from(ty == Ty::Ptr);
                if let Some(u) = self.undef_here[slot] {
                    return u;
                }
                let u = f.new_value(ty);
                out.push(Inst {
                    dst: Some(u),
                    op: Op::Const(0),
                });
                self.undefined += 1;
                self.undef_here[slot] = Some(u);
                u
            }
        }
    }

    fn rename_block(&mut self, f: &mut Function, blocks: &mut [crate::ir::Block], b: BlockId) {
        self.undef_here = [None; 2];
        let bi = b.index();
        for k in 0..self.phis[bi].len() {
            let var = self.phis[bi][k].0;
            let name = self.define(f, var);
            self.phis[bi][k].1.dst = Some(name);
        }
        let old = std::mem::take(&mut blocks[bi].insts);
        let mut out = Vec::with_capacity(old.len());
        for mut inst in old {
            // Operands are read before the definition; a stand-in lands before the instruction.
            inst.op
                .for_each_use_mut(|v| *v = self.read(f, *v, &mut out));
            if let Some(d) = inst.dst {
                inst.dst = Some(self.define(f, d));
            }
            out.push(inst);
        }
        let mut term = std::mem::replace(&mut blocks[bi].term, crate::ir::Terminator::Unreachable);
        term.for_each_use_mut(|v| *v = self.read(f, *v, &mut out));
        blocks[bi].term = term;
        // Phi arguments of the successors for the edge from `b`.
        let cfg = self.cfg;
        for (k, &succ) in cfg.succs(b).iter().enumerate() {
            let s = succ.index();
            let pos = self.pred_pos[bi].get(k).copied().unwrap_or(NONE);
            assert!(pos != NONE, "b is a predecessor of its successor");
            let pos = pos as usize;
            for k in 0..self.phis[s].len() {
                let var = self.phis[s][k].0;
                let r = self.read(f, var, &mut out);
                if let Op::Phi(args) = &mut self.phis[s][k].1.op {
                    args[pos].1 = r;
                }
            }
        }
        blocks[bi].insts = out;
    }
}

/// For each block, its position among the predecessors of each of its (at most two)
/// successors, its first occurrence if listed twice; `NONE` where there is no successor.
/// O(edges).
fn predecessor_positions(cfg: &Cfg) -> Vec<[u32; 2]> {
    let mut pos = vec![[NONE; 2]; cfg.num_blocks()];
    for s in 0..cfg.num_blocks() {
        let succ = BlockId(s as u32);
        for (k, &p) in cfg.preds(succ).iter().enumerate() {
            for (slot, _) in cfg.succs(p).iter().enumerate().filter(|(_, &x)| x == succ) {
                if let Some(v) = pos[p.index()].get_mut(slot).filter(|v| **v == NONE) {
                    *v = k as u32;
                }
            }
        }
    }
    pos
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;
    use crate::interp::{run, Options};
    use crate::ir::parse::parse_function;
    use crate::ir::Module;
    use crate::ssa::random::{random_cfg_program, random_program, ProgramShape, Rng};
    use crate::ssa::verify::verify_function;

    fn ssa(src: &str) -> Function {
        let mut f = func(src);
        construct_ssa(&mut f).expect("construct");
        if let Err(e) = verify_function(&f) {
            panic!("{e:?}\n{f}");
        }
        f
    }

    fn same_text(f: &Function, expected: &str) {
        let want = parse_function(expected).expect("expected text parses");
        assert_eq!(f.to_string(), want.to_string());
    }

    #[test]
    fn diamond_gets_one_phi() {
        let f = ssa("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  br %0, b1, b2
b1:
  %1:i32 = const 2
  jmp b2
b2:
  ret %1
}");
        same_text(
            &f,
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  br %0, b1, b2
b1:
  %2:i32 = const 2
  jmp b2
b2:
  %3:i32 = phi [b0: %1], [b1: %2]
  ret %3
}",
        );
    }

    #[test]
    fn loop_counter_and_dead_variable_get_no_dead_phi() {
        // %2 is reassigned in the loop but never read after: pruning places no phi for it.
        let f = ssa("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  jmp b1
b1:
  %3:i32 = cmp.lt %1, %0
  br %3, b2, b3
b2:
  %2:i32 = const 7
  %4:i32 = const 1
  %1:i32 = add %1, %4
  jmp b1
b3:
  ret %1
}");
        same_text(
            &f,
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  jmp b1
b1:
  %5:i32 = phi [b0: %1], [b2: %6]
  %3:i32 = cmp.lt %5, %0
  br %3, b2, b3
b2:
  %2:i32 = const 7
  %4:i32 = const 1
  %6:i32 = add %5, %4
  jmp b1
b3:
  ret %5
}",
        );
    }

    #[test]
    fn undefined_reads_get_a_local_zero() {
        // %1 is assigned only on the b1 path; b2 reads it anyway.
        let f = ssa("func @f(%0:i32) -> i32 {
b0:
  br %0, b1, b2
b1:
  %1:i32 = const 5
  jmp b2
b2:
  ret %1
}");
        same_text(
            &f,
            "func @f(%0:i32) -> i32 {
b0:
  %2:i32 = const 0
  br %0, b1, b2
b1:
  %1:i32 = const 5
  jmp b2
b2:
  %3:i32 = phi [b0: %2], [b1: %1]
  ret %3
}",
        );
    }

    #[test]
    fn parameters_reassigned_and_entry_loop() {
        // The entry block is a loop head: a fresh entry is put in front.
        let f = ssa("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  %0:i32 = sub %0, %1
  br %0, b0, b1
b1:
  ret %0
}");
        same_text(
            &f,
            "func @f(%0:i32) -> i32 {
b0:
  jmp b2
b1:
  ret %3
b2:
  %2:i32 = phi [b0: %0], [b2: %3]
  %1:i32 = const 1
  %3:i32 = sub %2, %1
  br %3, b2, b1
}",
        );
    }

    fn interp(m: &Module) -> (String, i32) {
        let out = run(m, "main", &Options::default()).expect("load");
        assert_eq!(out.trap, None, "{m}");
        (out.output_string(), out.exit_code)
    }

    /// Random structured and unstructured programs: same output after SSA, verifier happy.
    #[test]
    fn random_programs_keep_their_behaviour() {
        let mut rng = Rng::new(99);
        for round in 0..300 {
            let mut m = if round % 3 == 0 {
                let n = 1 + rng.below(10) as usize;
                random_cfg_program(&mut rng, n, 40)
            } else {
                random_program(&mut rng, &ProgramShape::small())
            };
            let before = interp(&m);
            let f = &mut m.functions[0];
            construct_ssa(f).expect("construct");
            if let Err(e) = verify_function(f) {
                panic!("{e:?}\n{f}");
            }
            assert_every_phi_reaches_a_real_use(f);
            assert_eq!(interp(&m), before, "\n{m}");
        }
    }

    /// Pruned SSA: every phi feeds, directly or through other phis, a non-phi instruction or
    /// a terminator. (That instruction may itself be dead code: pruning is by liveness.)
    fn assert_every_phi_reaches_a_real_use(f: &Function) {
        let du = crate::analysis::DefUse::compute(f);
        let mut useful = vec![false; f.num_values()];
        let mut work: Vec<Value> = Vec::new();
        for v in 0..f.num_values() {
            let v = Value(v as u32);
            if du.uses(v).iter().any(|u| u.phi_pred.is_none()) {
                useful[v.index()] = true;
                work.push(v);
            }
        }
        while let Some(v) = work.pop() {
            if let Some(crate::analysis::defuse::Def::Inst { block, inst }) = du.def(v) {
                if let Op::Phi(args) = &f.block(block).insts[inst as usize].op {
                    for &(_, a) in args {
                        if !std::mem::replace(&mut useful[a.index()], true) {
                            work.push(a);
                        }
                    }
                }
            }
        }
        for block in &f.blocks {
            for inst in block.insts.iter().take_while(|i| i.op.is_phi()) {
                let d = inst.dst.expect("phi result");
                assert!(useful[d.index()], "useless phi {d}\n{f}");
            }
        }
    }

    #[test]
    fn ssa_input_is_left_alone_and_mixed_input_refused() {
        let mut f = ssa("func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 1
  br %0, b1, b2
b1:
  %1:i32 = const 2
  jmp b2
b2:
  ret %1
}");
        let before = f.clone();
        assert_eq!(construct_ssa(&mut f), Ok(SsaStats::default()));
        assert_eq!(f, before);
        f.push(BlockId(1), Some(Value(1)), Op::Const(3));
        assert!(construct_ssa(&mut f).is_err());
    }
}
