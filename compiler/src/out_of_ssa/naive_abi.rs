//! `Naive_ABI`: local copies around every renaming-constrained operand, in SSA.
//!
//! Source: Rastello, de Ferrière and Guillon, "Optimizing translation out of SSA using
//! renaming constraints" (LIP RR-2005-34), §5: "[Naive_ABI] is an algorithm that adds when
//! necessary move instructions locally around renaming constrained instructions. This pass
//! can be used when the pinning_ABI pass has not been activated." It is the SSA-to-SSA
//! cousin of the pin isolation of the baseline (`super::isolation`, SSA book §21.1,
//! Fig. 21.4): there the copies are inserted while leaving SSA; here SSA form is kept, so
//! that the pinning phases and out-of-pinned-SSA (`super::leung_george`) run after it.
//!
//! # What it does
//! For every operation with a pinned operand (ABI argument and result registers of calls,
//! `.input` / `.output`, system-call arguments, ST120 fixed registers, tied uses):
//! * a use `x` pinned to register `r` becomes a fresh variable `t` pinned to `r`, defined by
//!   `t := x` right before the operation (one `t` per distinct (value, register) pair);
//! * a def `y` pinned to `r` becomes a fresh variable `t` pinned to `r`, and `y := t` follows
//!   the operation (a guarded copy under the same guard when the ST120 operation is guarded,
//!   so that `y` stays a partial definition as psi-SSA expects);
//! * a tied use `x` pinned to its def `y` (`Pin::Var(y)`) becomes `t := x` before the
//!   operation and the use `t` tied to the (possibly renamed) def.
//!
//! Afterwards every pinned operand is a fresh variable live only between its copy and its
//! operation, so `pinning_ABI` pins it trivially (it dies at its pinned use, or is born at its
//! pinned def), and out-of-pinned-SSA never needs a repair for it. Physical-register operands
//! (SP, `$r0`, the link register, `G15`) are left alone: they are not variables.
//!
//! Variables pinned to the stack pointer are left alone too: they are versions of SP (a
//! live-range pinning, SSA book §21.1), which `pinning_SP` puts into SP as a whole web.
//!
//! Copies before a control operation (a pinned use of a branch or return) are placed before
//! the block's first control operation, so that the block still ends with its control
//! operations. A control operation with a pinned def is an error (no place for the copy).
//!
//! # Preconditions and result
//! Input: SSA form (`docs/design.md`) with pins; no pins on psis or phi arguments (a pinned phi result first gets its local copy, `super::isolate_pinned_phi_results`). Output: SSA form
//! (`mir::verify` `Form::Ssa`) with the same phis and psis; new `copy` instructions flagged
//! COPY. On ST231 no `B` value is ever copied (SSA form forbids `B` copies): a pinned `B`
//! operand is reported as an error naming the operation. Two different values pinned to one
//! register at one operation (Fig. 5 case 2) or two defs pinned to one register (case 1) are
//! errors naming the operation.
//!
//! # Complexity
//! One pass over the instructions; per operation O(operands²) to share the fresh variable of
//! a value used twice in one register (operand lists are short).

use crate::mir::print::inst_to_string;
use crate::mir::target::stack_pointer;
use crate::mir::{BlockId, Function, Inst, InstFlags, Operand, PReg, Pin, Reg, RegClass, VReg};
use crate::pipeline::PassDetail;
use simulator::isa::Target;

/// What the pass did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Copies of uses pinned to a register (`t := x` before the operation).
    pub use_copies: u64,
    /// Copies of defs pinned to a register (`y := t` after the operation).
    pub def_copies: u64,
    /// Copies of tied uses.
    pub tie_copies: u64,
}

impl Stats {
    pub fn detail(&self) -> PassDetail {
        vec![
            ("abi_use_copies", self.use_copies),
            ("abi_def_copies", self.def_copies),
            ("abi_tie_copies", self.tie_copies),
        ]
    }
}

/// SSA → SSA: isolates every renaming-constrained operand (operands with a pin) by local
/// copies around its operation, so that after it every pinned operand is a fresh variable
/// live only between the copy and the operation (Rastello et al. §5, `Naive_ABI`).
pub fn naive_abi(f: &mut Function) -> Result<PassDetail, String> {
    Ok(translate(f)?.detail())
}

/// Same as [`naive_abi`], with the statistics as a struct.
pub fn translate(f: &mut Function) -> Result<Stats, String> {
    let mut stats = Stats::default();
    super::isolate_pinned_phi_results(f)?;
    let sp = stack_pointer(f.target);
    for bi in 0..f.blocks.len() {
        let insts = std::mem::take(&mut f.blocks[bi].insts);
        let term = insts.len() - insts.iter().rev().take_while(|i| i.is_terminator()).count();
        let mut out: Vec<Inst> = Vec::with_capacity(insts.len() + 4);
        let mut term_at = 0;
        let mut result = Ok(());
        for (k, inst) in insts.into_iter().enumerate() {
            if k == term {
                term_at = out.len();
            }
            if !has_variable_pin(&inst, sp) {
                out.push(inst);
                continue;
            }
            let iso = match isolate(f, BlockId(bi as u32), inst, &mut stats) {
                Ok(x) => x,
                Err(e) => {
                    result = Err(e);
                    break;
                }
            };
            if k >= term {
                if !iso.after.is_empty() {
                    result = Err(err_at(
                        f,
                        BlockId(bi as u32),
                        &iso.inst,
                        "a control operation with a pinned def",
                    ));
                    break;
                }
                // Before the first control operation: the block must end with them.
                let n = iso.before.len();
                out.splice(term_at..term_at, iso.before);
                term_at += n;
            } else {
                out.extend(iso.before);
            }
            out.push(iso.inst);
            out.extend(iso.after);
        }
        f.blocks[bi].insts = out;
        result?;
    }
    Ok(stats)
}

/// True if some operand of `inst` is a pinned variable to isolate (a pinned physical
/// register operand is already in its place; a variable pinned to the stack pointer is a
/// version of SP, a live-range pinning that `pinning_SP` handles, not an operand pinning).
fn has_variable_pin(inst: &Inst, sp: PReg) -> bool {
    inst.defs
        .iter()
        .chain(&inst.uses)
        .any(|o| o.vreg().is_some() && o.pin.is_some_and(|p| p != Pin::Phys(sp)))
}

fn err_at(f: &Function, b: BlockId, inst: &Inst, msg: &str) -> String {
    format!(
        "naive-abi: @{} {b}: `{}`: {msg}",
        f.name,
        inst_to_string(f, inst)
    )
}

/// One operation with its isolation copies.
struct Isolated {
    before: Vec<Inst>,
    inst: Inst,
    after: Vec<Inst>,
}

/// Rewrites the pinned operands of `inst` into fresh variables and returns the copies.
fn isolate(
    f: &mut Function,
    b: BlockId,
    mut inst: Inst,
    stats: &mut Stats,
) -> Result<Isolated, String> {
    if inst.is_phi() || inst.opc == crate::mir::Opc::Psi {
        return Err(err_at(f, b, &inst, "pinned phi/psi operand"));
    }
    let original = inst.clone();
    let bad = |f: &Function, m: &str| err_at(f, b, &original, m);
    let sp = stack_pointer(f.target);
    let no_b_copy = |f: &Function, c: RegClass| f.target == Target::St231 && c == RegClass::B;
    let guard = inst.guard().map(|g| g.reg);
    let mut after = Vec::new();
    // Defs first: a tied use names the (renamed) def.
    let mut renamed: Vec<(VReg, VReg)> = Vec::new();
    let mut def_regs: Vec<PReg> = Vec::new();
    for j in 0..inst.defs.len() {
        let o = inst.defs[j];
        if o.pin == Some(Pin::Phys(sp)) {
            continue; // an SP version: pinning_SP's
        }
        let (Some(v), Some(Pin::Phys(r))) = (o.vreg(), o.pin) else {
            if let (Some(v), Some(Pin::Var(w))) = (o.vreg(), o.pin) {
                if v != w {
                    return Err(bad(f, "def pinned to another variable"));
                }
            }
            continue;
        };
        if f.class_of(v) != r.class {
            return Err(bad(f, "def pinned to a register of another class"));
        }
        if no_b_copy(f, r.class) {
            return Err(bad(
                f,
                "a pinned B def cannot be isolated in ST231 SSA (no B copies)",
            ));
        }
        if def_regs.contains(&r) {
            return Err(bad(f, "two defs pinned to one register (Fig. 5 case 1)"));
        }
        def_regs.push(r);
        let t = f.new_vreg(r.class);
        inst.defs[j] = Operand::pinned(t, Pin::Phys(r));
        renamed.push((v, t));
        let mut c = Inst::copy(v, t);
        if let Some(g) = guard {
            // A guarded operation's def is partial: copy only where it was written.
            c.uses.push(Operand::new(g));
            c.flags |= InstFlags::GUARDED;
        }
        after.push(c);
        stats.def_copies += 1;
    }
    let mut before = Vec::new();
    let mut fresh: Vec<((Reg, PReg), VReg)> = Vec::new();
    for j in 0..inst.uses.len() {
        let o = inst.uses[j];
        let Some(pin) = o.pin else { continue };
        if pin == Pin::Phys(sp) && o.vreg().is_some() {
            continue; // an SP version: pinning_SP's
        }
        if let Reg::P(p) = o.reg {
            if matches!(pin, Pin::Phys(r) if r != p) {
                return Err(bad(f, "physical register use pinned elsewhere"));
            }
            continue;
        }
        let class = f.reg_class(o.reg);
        if no_b_copy(f, class) {
            return Err(bad(
                f,
                "a pinned B use cannot be isolated in ST231 SSA (no B copies)",
            ));
        }
        match pin {
            Pin::Phys(r) => {
                if class != r.class {
                    return Err(bad(f, "use pinned to a register of another class"));
                }
                if fresh.iter().any(|((x, q), _)| *q == r && *x != o.reg) {
                    return Err(bad(f, "two values pinned to one register (Fig. 5 case 2)"));
                }
                let t = match fresh.iter().find(|(key, _)| *key == (o.reg, r)) {
                    Some(&(_, t)) => t,
                    None => {
                        let t = f.new_vreg(class);
                        fresh.push(((o.reg, r), t));
                        before.push(Inst::copy(t, Operand::new(o.reg)));
                        stats.use_copies += 1;
                        t
                    }
                };
                inst.uses[j] = Operand::pinned(t, Pin::Phys(r));
            }
            Pin::Var(d) => {
                if !original.defs.iter().any(|x| x.reg == Reg::V(d)) {
                    return Err(bad(
                        f,
                        "use tied to a variable this operation does not define",
                    ));
                }
                let td = renamed.iter().find(|(v, _)| *v == d).map_or(d, |&(_, t)| t);
                if class != f.class_of(td) {
                    return Err(bad(f, "use tied to a def of another class"));
                }
                let t = f.new_vreg(class);
                before.push(Inst::copy(t, Operand::new(o.reg)));
                inst.uses[j] = Operand::pinned(t, Pin::Var(td));
                stats.tie_copies += 1;
            }
        }
    }
    Ok(Isolated {
        before,
        inst,
        after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::interp::run_module;
    use crate::mir::parse::parse_module;
    use crate::mir::verify::{verify_function, verify_module, Form};

    fn pinned_operands_are_local(f: &Function) {
        // Every pinned variable has exactly one def (a copy or its operation) and one use
        // (its operation or a copy), in the same block.
        let mut defs = vec![0u32; f.vregs.len()];
        let mut uses = vec![0u32; f.vregs.len()];
        let mut home = vec![usize::MAX; f.vregs.len()];
        let mut pinned = vec![false; f.vregs.len()];
        for (bi, b) in f.blocks.iter().enumerate() {
            for i in &b.insts {
                for o in &i.defs {
                    if let Some(v) = o.vreg() {
                        defs[v.index()] += 1;
                        home[v.index()] = bi;
                        pinned[v.index()] |= o.pin.is_some();
                    }
                }
                for o in &i.uses {
                    if let Some(v) = o.vreg() {
                        uses[v.index()] += 1;
                        pinned[v.index()] |= o.pin.is_some();
                        assert!(home[v.index()] == bi || o.pin.is_none(), "{f}");
                    }
                }
            }
        }
        for v in 0..f.vregs.len() {
            if pinned[v] {
                assert_eq!((defs[v], uses[v] <= 1), (1, true), "%{v} in\n{f}");
            }
        }
    }

    const CALLS: &str = "mfunc @g st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:r = add %0, %1
  .output %2^$r16
  return
}
mfunc @main st231 {
b0:
  %0:r = add $r0, #7
  %1:r = add $r0, #3
  %2:r^$r16 = call %0^$r16, %1^$r17, fn @g
  %3:r^$r16 = call %2^$r16, %2^$r17, fn @g
  %4:r = add %3, %2
  syscall %4^$r16, #2
  %5:r = add $r0, #0
  .output %5^$r16
  return
}";

    #[test]
    fn calls_inputs_outputs_are_isolated_and_behaviour_kept() {
        // @g: 2 input defs + 1 output use = 3 copies. @main: call 1: 2 uses + 1 def; call 2
        // uses %2 twice in two registers (2 fresh variables) + 1 def; syscall 1; output 1:
        // 3 + 3 + 1 + 1 = 8.
        let mut m = parse_module(CALLS).unwrap();
        let before = run_module(&m, "main", &Default::default()).unwrap();
        let mut counts = Vec::new();
        for f in &mut m.functions {
            let s = translate(f).unwrap();
            counts.push(s.use_copies + s.def_copies + s.tie_copies);
            assert_eq!(verify_function(f, Form::Ssa), vec![], "{f}");
            pinned_operands_are_local(f);
        }
        assert_eq!(counts, vec![3, 8]);
        let after = run_module(&m, "main", &Default::default()).unwrap();
        assert_eq!(before.output, after.output);
        // g(7, 3) = 10; g(10, 10) = 20; 20 + 10.
        assert_eq!(before.output, b"30");
    }

    #[test]
    fn tied_use_gets_a_fresh_variable_tied_to_its_def() {
        let mut m = parse_module(
            "mfunc @main st231 {
b0:
  %0:r = add $r0, #5
  %1:r = add %0^%1, #4
  %2:r = add %1, %0
  syscall %2^$r16, #2
  %3:r = add $r0, #0
  .output %3^$r16
  return
}",
        )
        .unwrap();
        let f = &mut m.functions[0];
        let s = translate(f).unwrap();
        assert_eq!((s.tie_copies, s.use_copies), (1, 2), "{f}");
        assert!(verify_module(&m, Form::Ssa).is_empty());
        let f = &m.functions[0];
        let add = &f.blocks[0].insts[2];
        let (Some(t), Some(Pin::Var(d))) = (add.uses[0].vreg(), add.uses[0].pin) else {
            panic!("tied use kept: {f}")
        };
        assert_ne!(t, VReg(0));
        assert_eq!(add.defs[0].reg, Reg::V(d));
        assert_eq!(
            run_module(&m, "main", &Default::default()).unwrap().output,
            b"14"
        );
    }

    #[test]
    fn two_values_in_one_register_is_an_error() {
        let mut m = parse_module(
            "mfunc @main st231 {
b0:
  %0:r = add $r0, #5
  %1:r = add $r0, #6
  %2:r^$r16 = call %0^$r16, %1^$r16, fn @main
  .output %2^$r16
  return
}",
        )
        .unwrap();
        let e = translate(&mut m.functions[0]).unwrap_err();
        assert!(e.contains("case 2") && e.contains("b0"), "{e}");
    }
}
