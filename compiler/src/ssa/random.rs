//! Random IR programs for differential testing of the SSA passes (and of any later stage).
//!
//! Three generators, all deterministic functions of a seed ([`Rng`], SplitMix64):
//!
//! * [`random_program`] — a *structured* `main` in non-SSA form, as a front end would emit
//!   it: a few variables (virtual registers assigned many times), straight-line arithmetic,
//!   copies and swaps (copy folding turns these into the lost-copy and swap problems),
//!   if/else diamonds, counted loops with `break`, array loads and stores indexed by the loop
//!   counters (strength-reduction candidates), repeated expressions (value numbering), constant
//!   conditions (constant propagation), prints. Every variable is initialised first, loops are
//!   bounded, divisions cannot trap and array indices stay in bounds, so a run always ends
//!   normally and prints a checksum of all variables.
//! * [`random_cfg_program`] — an *arbitrary* CFG (irreducible graphs included) in the same
//!   non-SSA style, made terminating by a fuel counter checked in every block.
//! * [`random_cfg_function`] — an arbitrary CFG with a few variable assignments, not meant to
//!   run (unreachable blocks and jumps back to the entry included), for analysis tests.

use crate::ir::*;

/// SplitMix64: tiny, fast, good enough for test generation, no dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// Size and shape parameters of [`random_program`].
#[derive(Clone, Debug)]
pub struct ProgramShape {
    /// Number of variables (virtual registers assigned repeatedly).
    pub vars: usize,
    /// Maximum nesting of ifs and loops.
    pub max_depth: usize,
    /// Statements per block of structured code (upper bound).
    pub max_stmts: usize,
    /// Stop adding top-level statements once the function has this many instructions.
    pub target_insts: usize,
    /// Loop trip counts are drawn from `0..=max_trip`.
    pub max_trip: u32,
}

impl ProgramShape {
    /// Small programs for property tests (tens of instructions to a few hundred).
    pub fn small() -> Self {
        ProgramShape {
            vars: 4,
            max_depth: 3,
            max_stmts: 4,
            target_insts: 40,
            max_trip: 4,
        }
    }

    /// A large function of about `insts` instructions (for speed measurements).
    pub fn large(insts: usize) -> Self {
        ProgramShape {
            vars: 12,
            max_depth: 4,
            max_stmts: 6,
            target_insts: insts,
            max_trip: 3,
        }
    }
}

/// Number of 32-bit elements of the global array the programs index.
const ARRAY_LEN: u32 = 16;

const ARITH: [BinOp; 9] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
    BinOp::Shl,
    BinOp::ShrS,
    BinOp::ShrU,
];

struct Builder<'r> {
    rng: &'r mut Rng,
    f: Function,
    cur: BlockId,
    vars: Vec<Value>,
    shape: ProgramShape,
    /// Exit blocks of the enclosing loops (targets of `break`) and their counters.
    loops: Vec<(BlockId, Value)>,
}

impl Builder<'_> {
    fn emit(&mut self, op: Op) -> Value {
        let ty = match op {
            Op::SymAddr(..) | Op::SlotAddr(_) => Ty::Ptr,
            _ => Ty::I32,
        };
        let v = self.f.new_value(ty);
        self.f.push(self.cur, Some(v), op);
        v
    }

    fn assign(&mut self, var: Value, op: Op) {
        self.f.push(self.cur, Some(var), op);
    }

    fn konst(&mut self, c: i32) -> Value {
        self.emit(Op::Const(c))
    }

    fn var(&mut self) -> Value {
        let k = self.rng.below(self.vars.len() as u64) as usize;
        self.vars[k]
    }

    fn small_const(&mut self) -> i32 {
        self.rng.below(21) as i32 - 10
    }

    /// An operand: a variable, or sometimes a fresh constant.
    fn operand(&mut self) -> Value {
        if self.rng.chance(25) {
            let c = self.small_const();
            self.konst(c)
        } else {
            self.var()
        }
    }

    fn statement(&mut self, depth: usize) {
        let nested = depth < self.shape.max_depth;
        match self.rng.below(100) {
            0..=27 => self.arith(),
            28..=35 => {
                let (d, s) = (self.var(), self.var());
                self.assign(d, Op::Copy(s));
            }
            36..=40 => self.swap(),
            41..=44 => self.repeated_expression(),
            45..=49 => self.division(),
            50..=55 => self.array_access(),
            56..=59 => {
                let v = self.var();
                self.print(v);
            }
            60..=74 if nested => self.if_else(depth),
            75..=86 if nested => self.counted_loop(depth),
            87..=90 if !self.loops.is_empty() => self.break_if(),
            91..=93 => self.constant_branch(depth),
            _ => self.arith(),
        }
    }

    fn arith(&mut self) {
        let d = self.var();
        let (a, b) = (self.operand(), self.operand());
        let op = self.rng.pick(&ARITH);
        if self.rng.chance(15) {
            let u = self.rng.pick(&UnOp::ALL);
            self.assign(d, Op::Un(u, a));
        } else if self.rng.chance(10) {
            let c = self.rng.pick(&CmpOp::ALL);
            let t = self.emit(Op::Cmp(c, a, b));
            let (x, y) = (self.operand(), self.operand());
            self.assign(d, Op::Select(t, x, y));
        } else {
            self.assign(d, Op::Bin(op, a, b));
        }
    }

    /// `t = a; a = b; b = t` through a temporary variable (the swap problem after folding).
    fn swap(&mut self) {
        let (a, b) = (self.var(), self.var());
        let t = self.f.new_value(Ty::I32);
        self.f.push(self.cur, Some(t), Op::Copy(a));
        self.assign(a, Op::Copy(b));
        self.assign(b, Op::Copy(t));
    }

    /// The same expression computed twice into two variables (for value numbering).
    fn repeated_expression(&mut self) {
        let (a, b) = (self.var(), self.var());
        let op = self.rng.pick(&ARITH);
        let (d1, d2) = (self.var(), self.var());
        self.assign(d1, Op::Bin(op, a, b));
        let (x, y) = if op.is_commutative() && self.rng.chance(50) {
            (b, a)
        } else {
            (a, b)
        };
        let t = self.emit(Op::Bin(op, x, y));
        self.assign(d2, Op::Bin(BinOp::Add, t, d2));
    }

    /// A division by a value forced odd (never zero).
    fn division(&mut self) {
        let d = self.var();
        let (a, b) = (self.var(), self.var());
        let one = self.konst(1);
        let nz = self.emit(Op::Bin(BinOp::Or, b, one));
        let op = self
            .rng
            .pick(&[BinOp::DivS, BinOp::DivU, BinOp::RemS, BinOp::RemU]);
        self.assign(d, Op::Bin(op, a, nz));
    }

    /// `@arr[i]` load or store, `i` a loop counter (strength-reduction candidate) or a masked
    /// variable; the address is `base + (i << 2)` as a front end computes it.
    fn array_access(&mut self) {
        let index = match self.loops.last() {
            Some(&(_, counter)) if self.rng.chance(70) => match self.rng.below(10) {
                0..=2 => {
                    // arr[i + 1]: counters stay below max_trip < ARRAY_LEN - 1.
                    let one = self.konst(1);
                    self.emit(Op::Bin(BinOp::Add, counter, one))
                }
                3 | 4 => {
                    // arr[i + (v & 7)], v often loop-invariant.
                    let v = self.var();
                    let seven = self.konst(7);
                    let m = self.emit(Op::Bin(BinOp::And, v, seven));
                    self.emit(Op::Bin(BinOp::Add, m, counter))
                }
                5 if self.loops.len() >= 2 => {
                    // arr[j + i] with i the enclosing loop's counter.
                    let outer = self.loops[self.loops.len() - 2].1;
                    self.emit(Op::Bin(BinOp::Add, counter, outer))
                }
                _ => counter,
            },
            _ => {
                let v = self.var();
                let mask = self.konst(ARRAY_LEN as i32 - 1);
                self.emit(Op::Bin(BinOp::And, v, mask))
            }
        };
        let base = self.emit(Op::SymAddr("arr".to_string(), 0));
        let scaled = if self.rng.chance(50) {
            let two = self.konst(2);
            self.emit(Op::Bin(BinOp::Shl, index, two))
        } else {
            let four = self.konst(4);
            self.emit(Op::Bin(BinOp::Mul, index, four))
        };
        let addr = self.f.new_value(Ty::Ptr);
        self.f
            .push(self.cur, Some(addr), Op::Bin(BinOp::Add, base, scaled));
        if self.rng.chance(50) {
            let v = self.var();
            self.f.push(
                self.cur,
                None,
                Op::Store {
                    ty: MemTy::I32,
                    addr,
                    value: v,
                    volatile: false,
                },
            );
        } else {
            let d = self.var();
            let ty = self.rng.pick(&MemTy::ALL);
            self.assign(
                d,
                Op::Load {
                    ty,
                    addr,
                    volatile: false,
                },
            );
        }
    }

    fn print(&mut self, v: Value) {
        self.f.push(
            self.cur,
            None,
            Op::Call {
                callee: "print_int".to_string(),
                args: vec![v],
            },
        );
        let sep = self.konst(i32::from(b' '));
        self.f.push(
            self.cur,
            None,
            Op::Call {
                callee: "print_char".to_string(),
                args: vec![sep],
            },
        );
    }

    fn condition(&mut self) -> Value {
        let (a, b) = (self.var(), self.operand());
        let c = self.rng.pick(&CmpOp::ALL);
        self.emit(Op::Cmp(c, a, b))
    }

    fn block_of_statements(&mut self, depth: usize) {
        let n = 1 + self.rng.below(self.shape.max_stmts as u64);
        for _ in 0..n {
            self.statement(depth);
        }
    }

    fn if_else(&mut self, depth: usize) {
        let cond = self.condition();
        self.diamond(cond, depth);
    }

    fn diamond(&mut self, cond: Value, depth: usize) {
        let then_ = self.f.new_block();
        let join = self.f.new_block();
        let else_ = if self.rng.chance(60) {
            self.f.new_block()
        } else {
            join
        };
        self.f
            .set_term(self.cur, Terminator::Branch { cond, then_, else_ });
        self.cur = then_;
        self.block_of_statements(depth + 1);
        self.f.set_term(self.cur, Terminator::Jump(join));
        if else_ != join {
            self.cur = else_;
            self.block_of_statements(depth + 1);
            self.f.set_term(self.cur, Terminator::Jump(join));
        }
        self.cur = join;
    }

    /// An `if` on a condition between two constants (folded by constant propagation).
    fn constant_branch(&mut self, depth: usize) {
        let (a, b) = (self.small_const(), self.small_const());
        let (a, b) = (self.konst(a), self.konst(b));
        let c = self.rng.pick(&CmpOp::ALL);
        let cond = self.emit(Op::Cmp(c, a, b));
        if depth < self.shape.max_depth {
            self.diamond(cond, depth);
        } else {
            let d = self.var();
            let (x, y) = (self.operand(), self.operand());
            self.assign(d, Op::Select(cond, x, y));
        }
    }

    /// `for (i = 0; i < n; i++) { ... }` with a fresh counter register.
    fn counted_loop(&mut self, depth: usize) {
        let counter = self.f.new_value(Ty::I32);
        let trip = self.rng.below(self.shape.max_trip as u64 + 1) as i32;
        self.assign(counter, Op::Const(0));
        let header = self.f.new_block();
        let body = self.f.new_block();
        let exit = self.f.new_block();
        self.f.set_term(self.cur, Terminator::Jump(header));
        self.cur = header;
        let limit = self.konst(trip);
        let cond = self.emit(Op::Cmp(CmpOp::LtS, counter, limit));
        self.f.set_term(
            header,
            Terminator::Branch {
                cond,
                then_: body,
                else_: exit,
            },
        );
        self.cur = body;
        self.loops.push((exit, counter));
        self.block_of_statements(depth + 1);
        self.loops.pop();
        let one = self.konst(1);
        self.assign(counter, Op::Bin(BinOp::Add, counter, one));
        self.f.set_term(self.cur, Terminator::Jump(header));
        self.cur = exit;
    }

    fn break_if(&mut self) {
        let (exit, _) = *self.loops.last().expect("inside a loop");
        let cond = self.condition();
        let cont = self.f.new_block();
        self.f.set_term(
            self.cur,
            Terminator::Branch {
                cond,
                then_: exit,
                else_: cont,
            },
        );
        self.cur = cont;
    }
}

/// The module every generator returns: `@arr` (zero-initialised array) and the function.
fn module_with(f: Function) -> Module {
    Module {
        globals: vec![Global {
            name: "arr".to_string(),
            size: ARRAY_LEN * 4,
            align: 4,
            init: Vec::new(),
            relocs: Vec::new(),
            readonly: false,
        }],
        functions: vec![f],
    }
}

/// A structured, terminating, trap-free `main` in non-SSA form (see the module doc).
pub fn random_program(rng: &mut Rng, shape: &ProgramShape) -> Module {
    let mut f = Function::new("main");
    f.ret = Some(Ty::I32);
    let vars: Vec<Value> = (0..shape.vars.max(1))
        .map(|_| f.new_value(Ty::I32))
        .collect();
    let mut b = Builder {
        rng,
        f,
        cur: BlockId::ENTRY,
        vars: vars.clone(),
        shape: shape.clone(),
        loops: Vec::new(),
    };
    for &v in &vars {
        let c = b.small_const();
        b.assign(v, Op::Const(c));
    }
    while b.f.num_insts() < shape.target_insts {
        b.statement(0);
    }
    for &v in &vars {
        b.print(v);
    }
    b.f.set_term(b.cur, Terminator::Return(Some(vars[0])));
    module_with(b.f)
}

/// An arbitrary CFG of `n` nodes (often irreducible) as a terminating non-SSA `main`: every
/// node decrements a fuel counter and leaves for the exit block when it runs out.
pub fn random_cfg_program(rng: &mut Rng, n: usize, fuel: i32) -> Module {
    let n = n.max(1);
    let mut f = Function::new("main");
    f.ret = Some(Ty::I32);
    let vars: Vec<Value> = (0..3).map(|_| f.new_value(Ty::I32)).collect();
    let fuel_var = f.new_value(Ty::I32);
    let nodes: Vec<BlockId> = (0..n).map(|_| f.new_block()).collect();
    let exit = f.new_block();
    let mut b = Builder {
        rng,
        f,
        cur: BlockId::ENTRY,
        vars: vars.clone(),
        shape: ProgramShape::small(),
        loops: Vec::new(),
    };
    for &v in &vars {
        let c = b.small_const();
        b.assign(v, Op::Const(c));
    }
    b.assign(fuel_var, Op::Const(fuel));
    b.f.set_term(BlockId::ENTRY, Terminator::Jump(nodes[0]));
    for &node in &nodes {
        b.cur = node;
        for _ in 0..b.rng.below(3) {
            b.arith();
        }
        if b.rng.chance(20) {
            let (d, s) = (b.var(), b.var());
            b.assign(d, Op::Copy(s));
        }
        let one = b.konst(1);
        b.assign(fuel_var, Op::Bin(BinOp::Sub, fuel_var, one));
        let zero = b.konst(0);
        let ok = b.emit(Op::Cmp(CmpOp::GtS, fuel_var, zero));
        let dispatch = b.f.new_block();
        b.f.set_term(
            node,
            Terminator::Branch {
                cond: ok,
                then_: dispatch,
                else_: exit,
            },
        );
        b.cur = dispatch;
        let t = match b.rng.below(10) {
            0 => Terminator::Jump(exit),
            1..=3 => Terminator::Jump(b.rng.pick(&nodes)),
            _ => {
                let cond = b.condition();
                Terminator::Branch {
                    cond,
                    then_: b.rng.pick(&nodes),
                    else_: b.rng.pick(&nodes),
                }
            }
        };
        b.f.set_term(dispatch, t);
    }
    b.cur = exit;
    for &v in &vars {
        b.print(v);
    }
    b.f.set_term(exit, Terminator::Return(Some(vars[0])));
    module_with(b.f)
}

/// An arbitrary CFG of `n` blocks with assignments to three variables (`%1..%3`, parameter
/// `%0`), not meant to run: random jumps (to the entry too), branches, returns, dead blocks.
pub fn random_cfg_function(rng: &mut Rng, n: usize) -> Function {
    let n = n.max(1);
    let mut f = Function::new("f");
    f.ret = Some(Ty::I32);
    let p = f.add_param(Ty::I32);
    let vars: Vec<Value> = (0..3).map(|_| f.new_value(Ty::I32)).collect();
    for _ in 1..n {
        f.new_block();
    }
    for &v in &vars {
        f.push(BlockId::ENTRY, Some(v), Op::Const(1));
    }
    let all: Vec<Value> = std::iter::once(p).chain(vars.iter().copied()).collect();
    for b in 0..n {
        let b = BlockId(b as u32);
        for _ in 0..rng.below(3) {
            let (d, x, y) = (rng.pick(&vars), rng.pick(&all), rng.pick(&all));
            f.push(b, Some(d), Op::Bin(BinOp::Add, x, y));
        }
        let target = |rng: &mut Rng| BlockId(rng.below(n as u64) as u32);
        let t = match rng.below(10) {
            0 | 1 => Terminator::Return(Some(rng.pick(&all))),
            2..=4 => Terminator::Jump(target(rng)),
            _ => Terminator::Branch {
                cond: rng.pick(&all),
                then_: target(rng),
                else_: target(rng),
            },
        };
        f.set_term(b, t);
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::{run, Options};

    #[test]
    fn generated_programs_run_cleanly() {
        let mut rng = Rng::new(1);
        for _ in 0..200 {
            let m = random_program(&mut rng, &ProgramShape::small());
            let text = m.to_string();
            assert_eq!(parse_module(&text).expect("reparses"), m);
            let out = run(&m, "main", &Options::default()).expect("loads");
            assert_eq!(out.trap, None, "\n{m}");
        }
        for _ in 0..100 {
            let n = 1 + rng.below(8) as usize;
            let m = random_cfg_program(&mut rng, n, 50);
            let out = run(&m, "main", &Options::default()).expect("loads");
            assert_eq!(out.trap, None, "\n{m}");
        }
    }

    #[test]
    fn large_programs_reach_their_size() {
        let mut rng = Rng::new(5);
        let m = random_program(&mut rng, &ProgramShape::large(5000));
        assert!(m.functions[0].num_insts() >= 5000);
    }
}
