//! Register allocation tests: hand-built allocation-form functions on both targets (high
//! pressure with `--regs`, loops with copies, calls crossing live values, pins, tied
//! operands, guarded partial definitions), each allocated by `regalloc::irc`, laid out by
//! `regalloc::frame` and verified by `regalloc::checker`; ST231 functions are also executed
//! before and after allocation by a small reference interpreter below (which clobbers every
//! caller-saved register at calls and checks SP, the return address and the callee-saved
//! registers at returns); planted bugs must be found by the checker; and every program of
//! `programs/` goes through ST231 isel → out-of-SSA → allocation → frame with the checker.

mod common;
use compiler::mir::{
    self, target, BlockId, Function, Imm, Inst, InstFlags, Opc, Operand, PReg, Pin, Reg, RegClass,
    VReg,
};
use compiler::pipeline::PassDetail;
use compiler::regalloc::{checker, frame, irc, RegallocOptions};
use simulator::isa::st120::{self, AddrMode, CmpCond, CmpKind, UnOp};
use simulator::isa::st231::Opcode as O;
use simulator::isa::Target;
use std::collections::HashMap;

// ------------------------------------------------------------------------------------------
// Building functions

fn r231(n: u8) -> PReg {
    PReg::new(RegClass::R, n)
}

fn st231_op(o: O, defs: &[VReg], uses: &[VReg], imm: Imm) -> Inst {
    Inst::new(
        Opc::St231(o),
        defs.iter().map(|&v| Operand::new(v)).collect(),
        uses.iter().map(|&v| Operand::new(v)).collect(),
        imm,
    )
}

fn ret231() -> Inst {
    Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None)
}

fn goto231(b: BlockId) -> Inst {
    Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(b))
}

/// `.input` of `n` ST231 word parameters, isolated by copies (as out-of-SSA leaves them).
fn input231(f: &mut Function, n: usize) -> Vec<VReg> {
    let pinned: Vec<VReg> = (0..n).map(|_| f.new_vreg(RegClass::R)).collect();
    let defs = pinned
        .iter()
        .enumerate()
        .map(|(i, &v)| Operand::pinned(v, Pin::Phys(r231(16 + i as u8))))
        .collect();
    f.push(BlockId(0), Inst::new(Opc::Input, defs, vec![], Imm::None));
    pinned
        .iter()
        .map(|&p| {
            let v = f.new_vreg(RegClass::R);
            f.push(BlockId(0), Inst::copy(v, p));
            v
        })
        .collect()
}

/// `.output v` (isolated) and return, in block `b`.
fn output231(f: &mut Function, b: BlockId, v: VReg) {
    let p = f.new_vreg(RegClass::R);
    f.push(b, Inst::copy(p, v));
    f.push(
        b,
        Inst::new(
            Opc::Output,
            vec![],
            vec![Operand::pinned(p, Pin::Phys(r231(16)))],
            Imm::None,
        ),
    );
    f.push(b, ret231());
}

/// `d = call name(args)` with isolation copies, in block `b`.
fn call231(f: &mut Function, b: BlockId, name: &str, args: &[VReg]) -> VReg {
    let mut uses = Vec::new();
    for (i, &a) in args.iter().enumerate() {
        let p = f.new_vreg(RegClass::R);
        f.push(b, Inst::copy(p, a));
        uses.push(Operand::pinned(p, Pin::Phys(r231(16 + i as u8))));
    }
    let res = f.new_vreg(RegClass::R);
    f.push(
        b,
        Inst::new(
            Opc::St231(O::Call),
            vec![Operand::pinned(res, Pin::Phys(r231(16)))],
            uses,
            Imm::Func(name.into()),
        ),
    );
    let d = f.new_vreg(RegClass::R);
    f.push(b, Inst::copy(d, res));
    d
}

// ------------------------------------------------------------------------------------------
// A reference interpreter for the ST231 subset used here (before: vregs; after: registers)

const SP0: i64 = 0x8000;
const GARBAGE: i64 = 0x5A5A_5A5A;

struct Machine<'m> {
    module: &'m HashMap<String, Function>,
    regs: HashMap<Reg, i64>,
    mem: HashMap<i64, i64>,
    steps: u64,
    token: i64,
}

impl<'m> Machine<'m> {
    fn new(module: &'m HashMap<String, Function>) -> Machine<'m> {
        let mut regs = HashMap::new();
        regs.insert(Reg::P(r231(12)), SP0);
        Machine {
            module,
            regs,
            mem: HashMap::new(),
            steps: 0,
            token: 0x1000,
        }
    }

    fn get(&self, r: Reg) -> i64 {
        if r == Reg::P(r231(0)) {
            return 0;
        }
        *self.regs.get(&r).unwrap_or(&GARBAGE)
    }

    fn set(&mut self, r: Reg, v: i64) {
        if r != Reg::P(r231(0)) {
            self.regs.insert(r, v as i32 as i64);
        }
    }

    fn operand(&self, i: &Inst, k: usize) -> i64 {
        match i.uses.get(k) {
            Some(o) => self.get(o.reg),
            None => match i.imm {
                Imm::Int(n) => i64::from(n),
                _ => panic!("no second operand"),
            },
        }
    }

    fn offset(i: &Inst) -> i64 {
        match i.imm {
            Imm::Int(n) => i64::from(n),
            Imm::None => 0,
            ref x => panic!("unresolved immediate {x:?}"),
        }
    }

    /// Runs `name`; virtual functions get `args` directly, physical ones in `$r16..`.
    fn call(&mut self, name: &str, args: &[i64]) -> Result<i64, String> {
        let f = self.module.get(name).ok_or("unknown function")?;
        let physical = f.frame.finalized;
        let saved: Vec<(PReg, i64)> = if physical {
            let t = Target::St231;
            (0..64)
                .map(r231)
                .filter(|&p| target::is_callee_saved(t, p) || p == r231(12))
                .map(|p| (p, self.get(Reg::P(p))))
                .collect()
        } else {
            Vec::new()
        };
        let token = self.token;
        self.token += 1;
        let outer_regs = if physical {
            None
        } else {
            Some(std::mem::take(&mut self.regs))
        };
        if physical {
            self.set(Reg::P(r231(63)), token);
            for (i, &a) in args.iter().enumerate() {
                self.set(Reg::P(r231(16 + i as u8)), a);
            }
        } else {
            self.regs
                .insert(Reg::P(r231(12)), SP0 - 0x1000 * (token - 0x1000 + 1));
        }
        let mut result = 0;
        let mut b = 0usize;
        let mut k = 0usize;
        loop {
            self.steps += 1;
            if self.steps > 1_000_000 {
                return Err("step limit".into());
            }
            let i = f.blocks[b].insts.get(k).ok_or("fell off a block")?.clone();
            k += 1;
            match i.opc {
                Opc::Input => {
                    if !physical {
                        for (d, &a) in i.defs.iter().zip(args) {
                            self.set(d.reg, a);
                        }
                    }
                }
                Opc::Output => {
                    if let Some(u) = i.uses.first() {
                        result = self.get(u.reg);
                    }
                }
                Opc::Copy => {
                    let v = self.get(i.uses[0].reg);
                    self.set(i.defs[0].reg, v);
                }
                Opc::St231(op) => match op {
                    O::Add | O::Sub | O::Cmplt | O::Mul32 => {
                        let (a, c) = (self.operand(&i, 0), self.operand(&i, 1));
                        let v = match op {
                            O::Add => a.wrapping_add(c),
                            O::Sub => a.wrapping_sub(c),
                            O::Mul32 => a.wrapping_mul(c),
                            _ => i64::from(a < c),
                        };
                        self.set(i.defs[0].reg, v);
                    }
                    O::Ldw => {
                        let addr = self.get(i.uses[0].reg) + Self::offset(&i);
                        let v = *self.mem.get(&addr).unwrap_or(&GARBAGE);
                        self.set(i.defs[0].reg, v);
                    }
                    O::Stw => {
                        let addr = self.get(i.uses[0].reg) + Self::offset(&i);
                        let v = self.get(i.uses[1].reg);
                        self.mem.insert(addr, v);
                    }
                    O::Br => {
                        if self.get(i.uses[0].reg) != 0 {
                            b = i.branch_target().unwrap().index();
                            k = 0;
                        }
                    }
                    O::Goto => {
                        b = i.branch_target().unwrap().index();
                        k = 0;
                    }
                    O::Call => {
                        let Imm::Func(callee) = &i.imm else {
                            return Err("call without target".into());
                        };
                        if physical {
                            let args: Vec<i64> = i.uses.iter().map(|o| self.get(o.reg)).collect();
                            self.call(callee, &args)?;
                            // Everything the ABI lets a callee clobber becomes garbage.
                            for &p in target::call_clobbers(Target::St231) {
                                if p.class == RegClass::R && p.num != 16 {
                                    self.set(Reg::P(p), GARBAGE + i64::from(p.num));
                                }
                            }
                        } else {
                            let args: Vec<i64> = i.uses.iter().map(|o| self.get(o.reg)).collect();
                            let r = self.call(callee, &args)?;
                            self.set(i.defs[0].reg, r);
                        }
                    }
                    O::Igoto => break,
                    other => return Err(format!("interpreter: unsupported {other:?}")),
                },
                other => return Err(format!("interpreter: unsupported {other:?}")),
            }
        }
        if physical {
            if self.get(Reg::P(r231(63))) != token {
                return Err(format!("@{name}: return address lost"));
            }
            for (p, v) in saved {
                if self.get(Reg::P(p)) != v {
                    return Err(format!("@{name}: callee-saved $r{} not preserved", p.num));
                }
            }
            result = self.get(Reg::P(r231(16)));
        }
        if let Some(r) = outer_regs {
            self.regs = r;
        }
        Ok(result)
    }
}

fn run_module(fs: &[Function], entry: &str, args: &[i64]) -> Result<i64, String> {
    let module: HashMap<String, Function> =
        fs.iter().map(|f| (f.name.clone(), f.clone())).collect();
    Machine::new(&module).call(entry, args)
}

// ------------------------------------------------------------------------------------------
// The pipeline under test

fn detail(d: &PassDetail, key: &str) -> u64 {
    d.iter()
        .find(|(k, _)| *k == key)
        .map(|&(_, v)| v)
        .unwrap_or_else(|| panic!("no {key} in {d:?}"))
}

/// Allocates, checks, finalizes and checks again; returns the final function and details.
fn allocate(before: &Function, regs: Option<u32>) -> (Function, PassDetail) {
    let mut after = before.clone();
    let d = irc::allocate(&mut after, &RegallocOptions { regs })
        .unwrap_or_else(|e| panic!("allocation failed: {e}\n{before}"));
    for inst in after.blocks.iter().flat_map(|b| &b.insts) {
        for o in inst.defs.iter().chain(&inst.uses) {
            assert!(matches!(o.reg, Reg::P(_)), "virtual operand left:\n{after}");
        }
    }
    checker::check(before, &after).unwrap_or_else(|e| panic!("{e}\n{before}\n{after}"));
    let mut fin = after.clone();
    frame::finalize(&mut fin).unwrap_or_else(|e| panic!("{e}\n{after}"));
    checker::check(before, &fin).unwrap_or_else(|e| panic!("{e}\n{fin}"));
    assert!(fin.frame.finalized);
    for inst in fin.blocks.iter().flat_map(|b| &b.insts) {
        assert!(
            !matches!(inst.imm, Imm::Frame { .. }),
            "unresolved frame immediate"
        );
    }
    (fin, d)
}

// ------------------------------------------------------------------------------------------
// ST231 functions

/// `f(p) = Σ_{i<n} (p·(i+1) + i)` with all `n` terms live at once.
fn pressure231(n: usize) -> Function {
    let mut f = Function::new("pressure", Target::St231);
    let p = input231(&mut f, 1)[0];
    let b0 = BlockId(0);
    let mut vals = Vec::new();
    for i in 0..n {
        let k = f.new_vreg(RegClass::R);
        f.push(b0, st231_op(O::Mul32, &[k], &[p], Imm::Int(i as i32 + 1)));
        let v = f.new_vreg(RegClass::R);
        f.push(b0, st231_op(O::Add, &[v], &[k], Imm::Int(i as i32)));
        vals.push(v);
    }
    let mut s = vals[0];
    for &v in &vals[1..] {
        let t = f.new_vreg(RegClass::R);
        f.push(b0, st231_op(O::Add, &[t], &[s, v], Imm::None));
        s = t;
    }
    output231(&mut f, b0, s);
    f
}

fn pressure_expected(p: i64, n: usize) -> i64 {
    (0..n as i64).fold(0i64, |s, i| s.wrapping_add(p * (i + 1) + i)) as i32 as i64
}

#[test]
fn st231_forty_live_values_spill_under_regs_8() {
    let f = pressure231(40);
    let (fin, d) = allocate(&f, Some(8));
    assert!(
        detail(&d, "spill_loads") > 0 && detail(&d, "spill_stores") > 0,
        "{d:?}"
    );
    assert!(detail(&d, "spilled_vregs") > 0);
    assert!(detail(&d, "regs_used_r") <= 8, "{d:?}");
    assert!(fin.frame.size >= 4 * detail(&d, "spilled_vregs") as u32);
    for p in [0, 1, -7, 123_456] {
        let want = pressure_expected(p, 40);
        assert_eq!(
            run_module(std::slice::from_ref(&f), "pressure", &[p]),
            Ok(want)
        );
        assert_eq!(
            run_module(std::slice::from_ref(&fin), "pressure", &[p]),
            Ok(want)
        );
    }
    // With the whole register file nothing spills and every copy coalesces.
    let (fin64, d64) = allocate(&f, None);
    assert_eq!(detail(&d64, "spill_loads"), 0, "{d64:?}");
    assert_eq!(detail(&d64, "copies_after"), 0, "{d64:?}\n{fin64}");
    assert_eq!(
        run_module(&[fin64], "pressure", &[3]),
        Ok(pressure_expected(3, 40))
    );
}

#[test]
fn st231_every_register_budget_works() {
    let f = pressure231(24);
    for regs in [3, 4, 5, 8, 16, 30] {
        let (fin, d) = allocate(&f, Some(regs));
        assert!(detail(&d, "regs_used_r") <= u64::from(regs), "{d:?}");
        assert_eq!(
            run_module(&[fin], "pressure", &[5]),
            Ok(pressure_expected(5, 24)),
            "regs {regs}"
        );
    }
}

/// `sum(n) = Σ_{i<n} i` as a loop with the copies out-of-SSA leaves at the back edge.
fn loop231() -> Function {
    let mut f = Function::new("sum", Target::St231);
    let n = input231(&mut f, 1)[0];
    let head = f.new_block();
    let exit = f.new_block();
    let (i, s) = (f.new_vreg(RegClass::R), f.new_vreg(RegClass::R));
    f.push(BlockId(0), st231_op(O::Add, &[i], &[], Imm::Int(0)));
    f.blocks[0].insts.last_mut().unwrap().uses = vec![Operand::new(r231(0))];
    f.push(BlockId(0), Inst::copy(s, i));
    f.push(BlockId(0), goto231(head));
    let (s2, i2, c) = (
        f.new_vreg(RegClass::R),
        f.new_vreg(RegClass::R),
        f.new_vreg(RegClass::B),
    );
    f.push(head, st231_op(O::Add, &[s2], &[s, i], Imm::None));
    f.push(head, st231_op(O::Add, &[i2], &[i], Imm::Int(1)));
    f.push(head, Inst::copy(s, s2));
    f.push(head, Inst::copy(i, i2));
    f.push(head, st231_op(O::Cmplt, &[c], &[i, n], Imm::None));
    f.push(head, st231_op(O::Br, &[], &[c], Imm::Block(head)));
    f.push(head, goto231(exit));
    output231(&mut f, exit, s);
    f
}

#[test]
fn st231_loop_copies_coalesce() {
    let f = loop231();
    let (fin, d) = allocate(&f, None);
    assert_eq!(detail(&d, "copies_before"), 5);
    // The back-edge copies coalesce; `s := i` (both live in the loop) and one of the two
    // ABI copies (n and s both want $r16) must stay.
    assert!(
        fin.blocks[1].insts.iter().all(|i| i.opc != Opc::Copy),
        "copy left in the loop:\n{fin}"
    );
    assert_eq!(detail(&d, "copies_after"), 2, "{d:?}\n{fin}");
    assert_eq!(detail(&d, "spill_loads"), 0);
    for n in [1, 2, 10, 100] {
        let want = (0..n).sum::<i64>();
        assert_eq!(run_module(std::slice::from_ref(&f), "sum", &[n]), Ok(want));
        assert_eq!(
            run_module(std::slice::from_ref(&fin), "sum", &[n]),
            Ok(want)
        );
    }
    // Under a 2-register budget the loop still runs (spilling if it must).
    let (fin2, d2) = allocate(&f, Some(2));
    assert!(detail(&d2, "regs_used_r") <= 2);
    assert_eq!(run_module(&[fin2], "sum", &[10]), Ok(45));
}

/// `caller(a) = g(a+1) + (a+2) + (a+1)` and `g(v) = 3v` — two values live across the call.
fn call_pair231() -> (Function, Function) {
    let mut f = Function::new("caller", Target::St231);
    let a = input231(&mut f, 1)[0];
    let b0 = BlockId(0);
    let (x, y) = (f.new_vreg(RegClass::R), f.new_vreg(RegClass::R));
    f.push(b0, st231_op(O::Add, &[x], &[a], Imm::Int(1)));
    f.push(b0, st231_op(O::Add, &[y], &[a], Imm::Int(2)));
    let r = call231(&mut f, b0, "g", &[x]);
    let (t, z) = (f.new_vreg(RegClass::R), f.new_vreg(RegClass::R));
    f.push(b0, st231_op(O::Add, &[t], &[r, y], Imm::None));
    f.push(b0, st231_op(O::Add, &[z], &[t, x], Imm::None));
    output231(&mut f, b0, z);
    let mut g = Function::new("g", Target::St231);
    let v = input231(&mut g, 1)[0];
    let w = g.new_vreg(RegClass::R);
    g.push(BlockId(0), st231_op(O::Mul32, &[w], &[v], Imm::Int(3)));
    output231(&mut g, BlockId(0), w);
    (f, g)
}

#[test]
fn st231_values_live_across_calls() {
    let (f, g) = call_pair231();
    let want = |a: i64| 3 * (a + 1) + (a + 2) + (a + 1);
    assert_eq!(
        run_module(&[f.clone(), g.clone()], "caller", &[4]),
        Ok(want(4))
    );
    for regs in [None, Some(8), Some(3)] {
        let (ff, d) = allocate(&f, regs);
        let (gg, _) = allocate(&g, regs);
        if regs.is_none() {
            // Callee-saved registers carry x and y: saved and restored, no spill.
            assert_eq!(detail(&d, "spill_loads"), 0, "{d:?}\n{ff}");
            let saves = ff.blocks[0]
                .insts
                .iter()
                .filter(|i| i.flags.contains(InstFlags::FRAME) && i.opc == Opc::St231(O::Stw))
                .count();
            assert!(saves >= 3, "two callee-saved registers and $r63:\n{ff}");
        } else {
            // Only caller-saved registers: the values crossing the call are spilled.
            assert!(detail(&d, "spill_stores") >= 2, "{d:?}\n{ff}");
        }
        for a in [0, 4, -9] {
            assert_eq!(
                run_module(&[ff.clone(), gg.clone()], "caller", &[a]),
                Ok(want(a)),
                "regs {regs:?}\n{ff}"
            );
        }
    }
}

/// `n` compare results into `$b` live at once, consumed by a chain of selects.
fn bees231(n: usize) -> Function {
    let mut f = Function::new("bees", Target::St231);
    let a = input231(&mut f, 1)[0];
    let b0 = BlockId(0);
    let bs: Vec<VReg> = (0..n).map(|_| f.new_vreg(RegClass::B)).collect();
    for (i, &b) in bs.iter().enumerate() {
        f.push(b0, st231_op(O::Cmplt, &[b], &[a], Imm::Int(i as i32)));
    }
    let mut acc = a;
    for &b in &bs {
        let t = f.new_vreg(RegClass::R);
        f.push(b0, st231_op(O::Slct, &[t], &[b, acc], Imm::Int(1)));
        acc = t;
    }
    output231(&mut f, b0, acc);
    f
}

#[test]
fn st231_branch_registers_that_cannot_colour_are_a_clear_error() {
    // Nine live branch registers: eight `$b`, and no spill code for them.
    let mut f = bees231(9);
    let e = irc::allocate(&mut f, &RegallocOptions::default()).unwrap_err();
    assert!(e.contains("class B") && e.contains("bees"), "{e}");
    // Eight are fine, also under --regs 4 (which restricts only classes that can spill).
    let (_, d) = allocate(&bees231(8), None);
    assert_eq!(detail(&d, "regs_used_b"), 8);
    let (_, d) = allocate(&bees231(8), Some(4));
    assert_eq!(detail(&d, "regs_used_b"), 8);
    assert!(detail(&d, "regs_used_r") <= 4);
}

// ------------------------------------------------------------------------------------------
// Planted bugs

fn first_use_of(f: &Function, pred: impl Fn(&Inst) -> bool) -> (usize, usize) {
    for (b, block) in f.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            if pred(inst) {
                return (b, i);
            }
        }
    }
    panic!("no such instruction");
}

#[test]
fn checker_finds_planted_bugs() {
    let f = pressure231(30);
    let mut after = f.clone();
    irc::allocate(&mut after, &RegallocOptions { regs: Some(6) }).unwrap();
    checker::check(&f, &after).unwrap();

    // 1. A wrong register on a use.
    let mut bad = after.clone();
    let (b, i) = first_use_of(&bad, |i| {
        i.opc == Opc::St231(O::Add) && i.uses.len() == 2 && i.uses[0].reg != i.uses[1].reg
    });
    let other = bad.blocks[b].insts[i].uses[1].reg;
    bad.blocks[b].insts[i].uses[0].reg = other;
    let e = checker::check(&f, &bad).unwrap_err();
    assert!(e.message.contains("expects"), "{e}");
    assert_eq!(e.block, b as u32);
    assert_eq!(e.inst, i);
    assert!(e.to_string().contains("pressure"), "{e}");

    // 2. A missing spill reload.
    let mut bad = after.clone();
    let (b, i) = first_use_of(&bad, |i| i.flags.contains(InstFlags::SPILL_LOAD));
    bad.blocks[b].insts.remove(i);
    let e = checker::check(&f, &bad).unwrap_err();
    assert!(e.message.contains("expects"), "{e}");

    // 3. A reload from the wrong slot.
    let mut bad = after.clone();
    let loads: Vec<(usize, usize)> = bad
        .blocks
        .iter()
        .enumerate()
        .flat_map(|(b, bl)| {
            bl.insts
                .iter()
                .enumerate()
                .filter(|(_, i)| i.flags.contains(InstFlags::SPILL_LOAD))
                .map(move |(i, _)| (b, i))
        })
        .collect();
    let (b0, i0) = loads[0];
    let other = loads
        .iter()
        .map(|&(b, i)| bad.blocks[b].insts[i].imm.clone())
        .find(|imm| *imm != bad.blocks[b0].insts[i0].imm)
        .expect("two slots");
    bad.blocks[b0].insts[i0].imm = other;
    assert!(checker::check(&f, &bad).is_err());

    // 4. A clobbered callee-saved register: drop a restore from the epilogue.
    let (c, g) = call_pair231();
    let mut ca = c.clone();
    irc::allocate(&mut ca, &RegallocOptions::default()).unwrap();
    frame::finalize(&mut ca).unwrap();
    checker::check(&c, &ca).unwrap();
    let mut bad = ca.clone();
    let (b, i) = first_use_of(&bad, |i| {
        i.flags.contains(InstFlags::FRAME)
            && i.opc == Opc::St231(O::Ldw)
            && i.defs[0].reg != Reg::P(r231(63))
    });
    bad.blocks[b].insts.remove(i);
    let e = checker::check(&c, &bad).unwrap_err();
    assert!(e.message.contains("callee-saved"), "{e}");
    // ... and the interpreter agrees that it is a real bug.
    let mut ga = g.clone();
    irc::allocate(&mut ga, &RegallocOptions::default()).unwrap();
    frame::finalize(&mut ga).unwrap();
    assert!(run_module(&[bad, ga.clone()], "caller", &[1]).is_err());

    // 5. The link register not restored.
    let mut bad = ca.clone();
    let (b, i) = first_use_of(&bad, |i| {
        i.flags.contains(InstFlags::FRAME)
            && i.opc == Opc::St231(O::Ldw)
            && i.defs[0].reg == Reg::P(r231(63))
    });
    bad.blocks[b].insts.remove(i);
    let e = checker::check(&c, &bad).unwrap_err();
    assert!(e.message.contains("link register"), "{e}");

    // 6. A pinned operand moved off its register.
    let mut bad = after.clone();
    let (b, i) = first_use_of(&bad, |i| i.opc == Opc::Output);
    bad.blocks[b].insts[i].uses[0].reg = Reg::P(r231(17));
    let e = checker::check(&f, &bad).unwrap_err();
    assert!(
        e.message.contains("pinned") || e.message.contains("expects"),
        "{e}"
    );

    // 7. SP not restored.
    let mut bad = ca.clone();
    let (b, i) = {
        let mut found = None;
        for (bb, block) in bad.blocks.iter().enumerate() {
            for (ii, inst) in block.insts.iter().enumerate() {
                if inst.flags.contains(InstFlags::FRAME)
                    && inst.opc == Opc::St231(O::Add)
                    && matches!(inst.imm, Imm::Int(n) if n > 0)
                {
                    found = Some((bb, ii));
                }
            }
        }
        found.expect("epilogue SP adjustment")
    };
    bad.blocks[b].insts.remove(i);
    let e = checker::check(&c, &bad).unwrap_err();
    assert!(e.message.contains("SP"), "{e}");
}

// ------------------------------------------------------------------------------------------
// ST120: two data classes, guards, tied operands, guarded partial definitions

fn op120(o: st120::Opcode, defs: Vec<Operand>, uses: Vec<Operand>, imm: Imm) -> Inst {
    Inst::new(Opc::St120(o), defs, uses, imm)
}

fn pr(n: u8) -> PReg {
    PReg::new(RegClass::P, n)
}

fn rr(n: u8) -> PReg {
    PReg::new(RegClass::R, n)
}

/// `f(int a, int *p)`: loads through `p` with post-increment (tied), guarded update of a sum
/// (partial definition), a call that many values cross, MAKE/MORE (tied).
fn st120_function(n_live: usize, with_call: bool) -> Function {
    use st120::{BinOp, LoadKind, Opcode as S};
    let mut f = Function::new("dsp", Target::St120);
    let b0 = BlockId(0);
    let (a0, p0) = (f.new_vreg(RegClass::R), f.new_vreg(RegClass::P));
    f.push(
        b0,
        Inst::new(
            Opc::Input,
            vec![
                Operand::pinned(a0, Pin::Phys(rr(0))),
                Operand::pinned(p0, Pin::Phys(pr(0))),
            ],
            vec![],
            Imm::None,
        ),
    );
    let (a, p) = (f.new_vreg(RegClass::R), f.new_vreg(RegClass::P));
    f.push(b0, Inst::copy(a, a0));
    f.push(b0, Inst::copy(p, p0));
    // Constant via MAKE/MORE (MORE is tied).
    let k = f.new_vreg(RegClass::R);
    f.push(b0, op120(S::Make, vec![k.into()], vec![], Imm::Int(1)));
    f.push(
        b0,
        op120(
            S::More,
            vec![k.into()],
            vec![Operand::pinned(k, Pin::Var(k))],
            Imm::Int(2),
        ),
    );
    // Post-increment loads: the base is tied.
    let mut vals = vec![k];
    for _ in 0..n_live {
        let v = f.new_vreg(RegClass::R);
        f.push(
            b0,
            op120(
                S::Load(LoadKind::W, AddrMode::PostIncImm),
                vec![v.into(), p.into()],
                vec![Operand::pinned(p, Pin::Var(p))],
                Imm::Int(1),
            ),
        );
        vals.push(v);
    }
    // Guards: several compares live together.
    let gs: Vec<VReg> = (0..3).map(|_| f.new_vreg(RegClass::G)).collect();
    for (i, &g) in gs.iter().enumerate() {
        f.push(
            b0,
            op120(
                S::CmpI(CmpKind::W, CmpCond::Gt),
                vec![g.into()],
                vec![a.into()],
                Imm::Int(i as i32),
            ),
        );
    }
    let mut live_ptrs = Vec::new();
    for i in 0..4 {
        let q = f.new_vreg(RegClass::P);
        f.push(
            b0,
            op120(
                S::AuI(st120::AuOp::AddW),
                vec![q.into()],
                vec![p.into()],
                Imm::Int(i),
            ),
        );
        live_ptrs.push(q);
    }
    if with_call {
        let arg = f.new_vreg(RegClass::R);
        f.push(b0, Inst::copy(arg, a));
        let res = f.new_vreg(RegClass::R);
        f.push(
            b0,
            op120(
                S::Call,
                vec![Operand::pinned(res, Pin::Phys(rr(0)))],
                vec![Operand::pinned(arg, Pin::Phys(rr(0)))],
                Imm::Func("h".into()),
            ),
        );
        let r = f.new_vreg(RegClass::R);
        f.push(b0, Inst::copy(r, res));
        vals.push(r);
    }
    // Sum, with guarded (partial) updates.
    let s = f.new_vreg(RegClass::R);
    f.push(b0, Inst::copy(s, vals[0]));
    for (i, &v) in vals[1..].iter().enumerate() {
        let g = gs[i % gs.len()];
        f.push(
            b0,
            op120(
                S::Bin(BinOp::Add),
                vec![s.into()],
                vec![s.into(), v.into(), g.into()],
                Imm::None,
            )
            .with_flags(InstFlags::GUARDED),
        );
    }
    for &q in &live_ptrs {
        let d = f.new_vreg(RegClass::R);
        f.push(
            b0,
            op120(S::CopyD, vec![d.into()], vec![q.into()], Imm::None),
        );
        f.push(
            b0,
            op120(
                S::Bin(BinOp::Add),
                vec![s.into()],
                vec![s.into(), d.into()],
                Imm::None,
            ),
        );
    }
    let m = f.new_vreg(RegClass::R);
    f.push(
        b0,
        op120(S::Un(UnOp::Move), vec![m.into()], vec![s.into()], Imm::None),
    );
    let out = f.new_vreg(RegClass::R);
    f.push(b0, Inst::copy(out, m));
    f.push(
        b0,
        Inst::new(
            Opc::Output,
            vec![],
            vec![Operand::pinned(out, Pin::Phys(rr(0)))],
            Imm::None,
        ),
    );
    f.push(b0, op120(S::Rts, vec![], vec![], Imm::None));
    f
}

#[test]
fn st120_classes_ties_guards_and_calls() {
    for (n, call) in [(4, false), (12, false), (20, true), (6, true)] {
        let f = st120_function(n, call);
        for regs in [None, Some(6), Some(4)] {
            let (fin, d) = allocate(&f, regs);
            if let Some(k) = regs {
                // Guards are not restricted by --regs (they cannot be spilled).
                assert!(detail(&d, "regs_used_r") <= u64::from(k), "{d:?}");
                assert!(detail(&d, "regs_used_p") <= u64::from(k), "{d:?}");
            }
            if n >= 12 && regs.is_some() {
                assert!(detail(&d, "spill_loads") > 0, "{d:?}\n{fin}");
            }
            if call && regs.is_none() {
                // The pointers and guards that cross the call sit in callee-saved registers,
                // so the frame saves them (guards through R12) and the link register P11.
                let frame_ops = fin.blocks[0]
                    .insts
                    .iter()
                    .filter(|i| i.flags.contains(InstFlags::FRAME))
                    .count();
                assert!(frame_ops >= 4, "{fin}");
            }
        }
    }
}

#[test]
fn st120_guards_live_across_a_call_use_callee_saved_guards() {
    let f = st120_function(2, true);
    let (fin, _) = allocate(&f, None);
    let saves_guard = fin.blocks[0]
        .insts
        .iter()
        .any(|i| i.flags.contains(InstFlags::FRAME) && i.opc == Opc::St120(st120::Opcode::Bool));
    assert!(saves_guard, "{fin}");
    // Planted bug: the guard restore compare removed.
    let mut bad = fin.clone();
    let (b, i) = first_use_of(&bad, |i| {
        i.flags.contains(InstFlags::FRAME) && matches!(i.opc, Opc::St120(st120::Opcode::CmpI(..)))
    });
    bad.blocks[b].insts.remove(i);
    let e = checker::check(&f, &bad).unwrap_err();
    assert!(e.message.contains("callee-saved"), "{e}");
}

#[test]
fn st120_tied_operands_share_a_register_and_bugs_are_caught() {
    let f = st120_function(5, false);
    let mut after = f.clone();
    irc::allocate(&mut after, &RegallocOptions { regs: Some(4) }).unwrap();
    checker::check(&f, &after).unwrap();
    let mut bad = after.clone();
    let (b, i) = first_use_of(&bad, |i| i.opc == Opc::St120(st120::Opcode::More));
    let d = bad.blocks[b].insts[i].defs[0].reg;
    let other = if d == Reg::P(rr(0)) { rr(1) } else { rr(0) };
    bad.blocks[b].insts[i].defs[0].reg = Reg::P(other);
    let e = checker::check(&f, &bad).unwrap_err();
    assert!(e.message.contains("tied"), "{e}");
}

#[test]
fn allocation_form_violations_are_errors_not_panics() {
    // Two values pinned to $r16 live at once.
    let mut f = Function::new("clash", Target::St231);
    let (a, b) = (f.new_vreg(RegClass::R), f.new_vreg(RegClass::R));
    f.push(
        BlockId(0),
        Inst::new(
            Opc::Input,
            vec![Operand::pinned(a, Pin::Phys(r231(16)))],
            vec![],
            Imm::None,
        ),
    );
    f.push(
        BlockId(0),
        Inst::new(
            Opc::St231(O::Add),
            vec![Operand::pinned(b, Pin::Phys(r231(16)))],
            vec![Operand::new(r231(0))],
            Imm::Int(1),
        ),
    );
    let s = f.new_vreg(RegClass::R);
    f.push(BlockId(0), st231_op(O::Add, &[s], &[a, b], Imm::None));
    output231(&mut f, BlockId(0), s);
    let e = irc::allocate(&mut f.clone(), &RegallocOptions::default()).unwrap_err();
    assert!(e.contains("clash") && e.contains("$r16"), "{e}");
    // A phi left over.
    let mut g = pressure231(2);
    let v = g.new_vreg(RegClass::R);
    g.blocks[0]
        .insts
        .insert(1, Inst::phi(v, vec![(BlockId(0), v)]));
    assert!(irc::allocate(&mut g, &RegallocOptions::default()).is_err());
    // Finalizing twice.
    let (mut fin, _) = allocate(&pressure231(2), None);
    assert!(frame::finalize(&mut fin).is_err());
}

// ------------------------------------------------------------------------------------------
// Every program of programs/: ST231 isel → out-of-SSA → allocation → frame → checker

mod programs {
    use super::*;
    use compiler::ir::Module;
    use compiler::isel::{self, IselOptions};
    use compiler::pipeline::{self, OptLevel};
    use std::path::Path;
    use std::sync::atomic::{AtomicU64, Ordering};

    static ALLOC_NANOS: AtomicU64 = AtomicU64::new(0);
    const TOTALS: [&str; 5] = [
        "copies_before",
        "copies_after",
        "spill_loads",
        "spill_stores",
        "spill_everywhere_fallback",
    ];
    static TOTAL_VALUES: [AtomicU64; 5] = [
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
        AtomicU64::new(0),
    ];

    fn build(path: &Path, opt: OptLevel) -> Result<Module, String> {
        let mut m =
            compiler::front::compile_to_ir(path, &Default::default()).map_err(|d| d.render())?;
        pipeline::run_passes(&mut m, &pipeline::mid_level_passes(opt), &mut |_, _| Ok(()))
            .map_err(|e| e.to_string())?;
        compiler::backend::add_runtime(&mut m, opt)?;
        Ok(m)
    }

    /// Functions checked, upstream failures, allocator failures, and the modules before
    /// and after allocation when every function went through.
    type RunResult = (
        usize,
        Vec<String>,
        Vec<String>,
        Option<(mir::Module, mir::Module)>,
    );

    /// Runs the back end up to the final frame on one module; returns (functions checked,
    /// upstream failures, allocator failures, and both modules when every function went
    /// through).
    fn run(m: &Module, t: Target, regs: Option<u32>, name: &str) -> RunResult {
        let mut checked = 0;
        let mut upstream = Vec::new();
        let mut mine = Vec::new();
        let mm = match isel::select_module(m, t, &IselOptions::default()) {
            Ok(mm) => mm,
            Err(e) => {
                upstream.push(format!("{name} {t}: isel: {e}"));
                return (0, upstream, mine, None);
            }
        };
        let mut before_m = mm.clone();
        let mut after_m = mm.clone();
        let mut complete = true;
        for (k, f) in mm.functions.iter().enumerate() {
            let mut before = f.clone();
            if let Err(e) = compiler::out_of_ssa::isolation::run(&mut before) {
                upstream.push(format!("{name} {t} @{}: out-of-SSA: {e}", f.name));
                complete = false;
                continue;
            }
            let mut after = before.clone();
            let t0 = std::time::Instant::now();
            let alloc = irc::allocate(&mut after, &RegallocOptions { regs });
            ALLOC_NANOS.fetch_add(t0.elapsed().as_nanos() as u64, Ordering::Relaxed);
            if let Ok(d) = &alloc {
                for (k, v) in d {
                    if let Some(slot) = TOTALS.iter().position(|n| n == k) {
                        TOTAL_VALUES[slot].fetch_add(*v, Ordering::Relaxed);
                    }
                }
            }
            let step = alloc
                .and_then(|_| checker::check(&before, &after).map_err(|e| e.to_string()))
                .and_then(|_| frame::finalize(&mut after))
                .and_then(|_| checker::check(&before, &after).map_err(|e| e.to_string()));
            match step {
                Ok(_) => checked += 1,
                // A violation of the allocation-form contract by out-of-SSA (two values
                // pinned to one register live at once) is reported, not blamed on us.
                Err(e) if e.contains("out-of-SSA must isolate pinned operands") => {
                    complete = false;
                    upstream.push(format!("{name} {t} @{} regs {regs:?}: {e}", f.name))
                }
                Err(e) => {
                    complete = false;
                    if std::env::var("REGALLOC_DUMP").is_ok_and(|d| d == f.name) {
                        let mut a = before.clone();
                        let _ = irc::allocate(&mut a, &RegallocOptions { regs });
                        eprintln!("{e}\n{before}\n{a}");
                    }
                    mine.push(format!("{name} {t} @{} regs {regs:?}: {e}", f.name))
                }
            }
            before_m.functions[k] = before;
            after_m.functions[k] = after;
        }
        (
            checked,
            upstream,
            mine,
            complete.then_some((before_m, after_m)),
        )
    }

    /// Every program on both targets, -O0/-O2, whole register file and --regs 8: the
    /// allocation checker accepts every function, and the MIR interpreter gives the same
    /// output and exit code before allocation and in final form.
    #[test]
    fn every_program_allocates_checks_and_runs_alike() {
        let paths = common::c_programs();
        assert!(!paths.is_empty(), "programs/ not found");
        let (mut checked, mut upstream, mut mine) = (0, Vec::new(), Vec::new());
        let mut compared = 0;
        let opts = compiler::mir::interp::InterpOptions {
            max_steps: 20_000_000,
            ..Default::default()
        };
        for p in &paths {
            for opt in [OptLevel::O0, OptLevel::O2] {
                let name = format!("{} {opt:?}", p.display());
                let m = match build(p, opt) {
                    Ok(m) => m,
                    Err(e) => {
                        upstream.push(format!("{name}: front end: {e}"));
                        continue;
                    }
                };
                for t in [Target::St231, Target::St120] {
                    for regs in [None, Some(8)] {
                        let (c, u, e, mods) = run(&m, t, regs, &name);
                        checked += c;
                        upstream.extend(u);
                        mine.extend(e);
                        let Some((before, after)) = mods else {
                            continue;
                        };
                        let r0 = compiler::mir::interp::run_module(&before, "main", &opts);
                        let r1 = compiler::mir::interp::run_module(&after, "main", &opts);
                        match (r0, r1) {
                            (Ok(a), Ok(b)) => {
                                compared += 1;
                                if a.output != b.output || a.exit_code != b.exit_code {
                                    mine.push(format!(
                                        "{name} {t} regs {regs:?}: output differs after \
                                         allocation (exit {} vs {})",
                                        a.exit_code, b.exit_code
                                    ));
                                }
                            }
                            (Err(e), _) => upstream.push(format!(
                                "{name} {t}: allocation form does not run: {} in @{}",
                                e.kind, e.function
                            )),
                            (Ok(_), Err(e)) => mine.push(format!(
                                "{name} {t} regs {regs:?}: final form traps: {} in @{} b{} \
                                 #{} `{}`",
                                e.kind, e.function, e.block.0, e.inst, e.text
                            )),
                        }
                    }
                }
            }
        }
        for u in upstream.iter().take(30) {
            eprintln!("upstream (not the allocator): {u}");
        }
        eprintln!(
            "checked {checked} allocated functions; {compared} program runs compared; {} \
             upstream failures; allocation time {:.3} s in total",
            upstream.len(),
            ALLOC_NANOS.load(Ordering::Relaxed) as f64 * 1e-9
        );
        for (k, v) in TOTALS.iter().zip(&TOTAL_VALUES) {
            eprintln!("  total {k}: {}", v.load(Ordering::Relaxed));
        }
        assert!(
            mine.is_empty(),
            "{} failures:\n{}",
            mine.len(),
            mine.join("\n")
        );
        assert!(
            checked > 100,
            "only {checked} functions reached the allocator"
        );
    }
}

#[allow(dead_code)]
fn parse(src: &str) -> Function {
    mir::parse::parse_function(src).unwrap_or_else(|e| panic!("{e:?}"))
}
