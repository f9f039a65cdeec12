//! Function entry and exit, calls and the builtins (isa.md §B5 ABI; Rastello et al. 2004
//! Fig. 2 S0, S3, S8: `.input`, call and `.output` pinned to ABI registers).
//!
//! * Integer arguments go in `R0..R3`, pointer arguments in `P0..P2`: two separate
//!   sequences chosen by the **callee's** parameter types ([`crate::isel::signature`]).
//!   Further arguments are stored, in parameter order, at `SP + 4k` (ASSUMPTION isa.md §B5 /
//!   backend.md: no scratch area, word slots) before the call, and `frame.outgoing_size`
//!   covers them; the callee loads them from `IncomingArg(k)` frame objects (ASSUMPTION
//!   backend.md: incoming argument k at `frame.size + 4k`, resolved by the frame pass).
//! * Results: `R0` (int) or `P0` (pointer). `CALL` takes its register arguments as uses
//!   pinned to their registers and defines the result pinned to its register.
//! * Builtins (no definition in the module): `print_int` = `TRAP 2`, `print_char` /
//!   `putchar` = `TRAP 3`, `exit` = `TRAP 1`, `abort` = `exit(134)`, the argument pinned to
//!   `R0` (ASSUMPTION, project convention: `TRAP n` with `R0`/`P0`, simulator
//!   `machine::output`); `printf` is expanded at compile
//!   time ([`super::printf`]). Intrinsics of `ssalab.h` map to operations
//!   ([`super::intrinsics`]).
//! * Division and remainder call the runtime routines (`R0`, `R1` → `R0`).

use super::{class_of, op, Selector};
use crate::ir::Value;
use crate::isel::{signature, IselError};
use crate::mir::{FrameKind, Imm, Inst, Opc, Operand, PReg, Pin, RegClass, VReg};
use simulator::isa::st120::{AddrMode, BinOp as MB, LoadKind, Opcode as O, StoreKind};
use simulator::isa::Target;

/// System call numbers (simulator `machine::output`).
pub(crate) const SYS_EXIT: i32 = 1;
pub(crate) const SYS_PRINT_INT: i32 = 2;
pub(crate) const SYS_PRINT_CHAR: i32 = 3;
pub(crate) const SYS_WRITE: i32 = 4;

/// Exit status of `abort()` (SIGABRT convention, backend.md).
const ABORT_STATUS: i32 = 134;

/// Assigns ABI locations to values of classes `classes`: `Ok(reg)` or `Err(stack slot k)`.
fn assign(classes: &[RegClass]) -> Vec<Result<PReg, u32>> {
    let (mut nr, mut np, mut ns) = (0usize, 0usize, 0u32);
    classes
        .iter()
        .map(|&c| {
            let regs = mir::target::arg_regs(Target::St120, c);
            let n = if c == RegClass::P { &mut np } else { &mut nr };
            if *n < regs.len() {
                *n += 1;
                Ok(PReg::new(c, regs[*n - 1]))
            } else {
                ns += 1;
                Err(ns - 1)
            }
        })
        .collect()
}

use crate::mir;

fn result_reg(c: RegClass) -> PReg {
    mir::target::result_reg(Target::St120, c).expect("R and P return registers")
}

/// `.input` and the loads of stack-passed parameters, in the entry block.
pub(crate) fn select_input(s: &mut Selector<'_>) -> Result<(), IselError> {
    let f = s.f;
    let classes: Vec<RegClass> = f.params.iter().map(|&p| class_of(f.value_ty(p))).collect();
    let locs = assign(&classes);
    let mut defs = Vec::new();
    let mut stack = Vec::new();
    for ((&p, &c), loc) in f.params.iter().zip(&classes).zip(locs) {
        match loc {
            Ok(r) => {
                let v = s.mf.new_vreg(c);
                defs.push(Operand::pinned(v, Pin::Phys(r)));
                s.set_val(p, c, v);
            }
            Err(k) => stack.push((p, c, k)),
        }
    }
    let at = s.here();
    s.put(at, Inst::new(Opc::Input, defs, vec![], Imm::None));
    for (p, c, k) in stack {
        let idx =
            s.mf.new_frame_object(4, 4, FrameKind::IncomingArg(k), &format!("arg{k}"));
        let kind = if c == RegClass::P {
            LoadKind::Aw
        } else {
            LoadKind::W
        };
        let v = s.mf.new_vreg(c);
        let at = s.here();
        s.put(
            at,
            op(
                O::Load(kind, AddrMode::PlusImm),
                vec![Operand::new(v)],
                vec![Operand::new(Selector::sp())],
                Imm::Frame { idx, offset: 0 },
            ),
        );
        s.set_val(p, c, v);
    }
    let here = s.point();
    for &p in &f.params {
        s.vals[p.index()].site = Some(here);
    }
    Ok(())
}

/// `.output` (the result pinned to `R0`/`P0`) and `RTS`.
pub(crate) fn select_return(s: &mut Selector<'_>, v: Option<Value>) -> Result<(), IselError> {
    let mut uses = Vec::new();
    if let Some(v) = v {
        let c = class_of(s.f.ret.unwrap_or(s.ty(v)));
        let r = s.get(v, c)?;
        uses.push(Operand::pinned(r, Pin::Phys(result_reg(c))));
    }
    let at = s.here();
    s.put(at, Inst::new(Opc::Output, vec![], uses, Imm::None));
    let at = s.here();
    s.put(at, op(O::Rts, vec![], vec![], Imm::None));
    Ok(())
}

/// A call of `name` with register arguments `args` (already in their classes), passing
/// further ones on the stack; returns the result register if `ret` is set.
fn emit_call(
    s: &mut Selector<'_>,
    name: &str,
    args: &[(VReg, RegClass)],
    ret: Option<RegClass>,
) -> Option<VReg> {
    let classes: Vec<RegClass> = args.iter().map(|a| a.1).collect();
    let mut uses = Vec::new();
    for (&(v, c), loc) in args.iter().zip(assign(&classes)) {
        match loc {
            Ok(r) => uses.push(Operand::pinned(v, Pin::Phys(r))),
            Err(k) => {
                let kind = if c == RegClass::P {
                    StoreKind::Aw
                } else {
                    StoreKind::W
                };
                let at = s.here();
                // ASSUMPTION (isa.md §B5): outgoing stack argument k at SP + 4k.
                s.put(
                    at,
                    op(
                        O::Store(kind, AddrMode::PlusImm),
                        vec![],
                        vec![Operand::new(Selector::sp()), Operand::new(v)],
                        Imm::Int(k as i32),
                    ),
                );
                s.mf.frame.outgoing_size = s.mf.frame.outgoing_size.max(4 * (k + 1));
            }
        }
    }
    let mut defs = Vec::new();
    let result = ret.map(|c| {
        let d = s.mf.new_vreg(c);
        defs.push(Operand::pinned(d, Pin::Phys(result_reg(c))));
        d
    });
    let at = s.here();
    s.put(at, op(O::Call, defs, uses, Imm::Func(name.to_string())));
    result
}

/// A call of a runtime routine `(int, int) -> int`.
pub(crate) fn call_runtime(s: &mut Selector<'_>, name: &str, args: &[VReg]) -> VReg {
    let a: Vec<(VReg, RegClass)> = args.iter().map(|&v| (v, RegClass::R)).collect();
    emit_call(s, name, &a, Some(RegClass::R)).expect("has a result")
}

/// A call to a runtime routine without result, arguments in the given classes.
pub(crate) fn call_runtime_void(s: &mut Selector<'_>, name: &str, args: &[(VReg, RegClass)]) {
    emit_call(s, name, args, None);
}

/// `TRAP n` with `arg` pinned to `R0` (and `ptr` to `P0`).
pub(crate) fn trap(s: &mut Selector<'_>, n: i32, arg: Option<VReg>, ptr: Option<VReg>) {
    let mut uses = Vec::new();
    if let Some(a) = arg {
        uses.push(Operand::pinned(a, Pin::Phys(PReg::new(RegClass::R, 0))));
    }
    if let Some(p) = ptr {
        uses.push(Operand::pinned(p, Pin::Phys(PReg::new(RegClass::P, 0))));
    }
    let at = s.here();
    s.put(at, op(O::Trap, vec![], uses, Imm::Int(n)));
}

pub(crate) fn select_call(
    s: &mut Selector<'_>,
    dst: Option<Value>,
    callee: &str,
    args: &[Value],
) -> Result<(), IselError> {
    if super::intrinsics::select(s, dst, callee, args)? {
        return Ok(());
    }
    if let Some(sig) = signature(s.module(), callee) {
        let mut regs = Vec::with_capacity(args.len());
        for (k, &a) in args.iter().enumerate() {
            let t = sig.params.get(k).copied().unwrap_or(s.ty(a));
            let c = class_of(t);
            regs.push((s.get(a, c)?, c));
        }
        let want = dst.filter(|_| sig.ret.is_some());
        let ret = want.map(|_| class_of(sig.ret.expect("checked")));
        let r = emit_call(s, callee, &regs, ret);
        if let (Some(d), Some(r), Some(c)) = (want, r, ret) {
            s.define_here(d, c, r);
        }
        if let (Some(d), None) = (dst, want) {
            // A result from a function returning nothing: undefined, use 0.
            s.vals[d.index()].site = Some(s.point());
            let z = s.const_into(s.here(), RegClass::R, 0);
            s.set_val(d, RegClass::R, z);
        }
        return Ok(());
    }
    builtin(s, dst, callee, args)
}

fn builtin(
    s: &mut Selector<'_>,
    dst: Option<Value>,
    callee: &str,
    args: &[Value],
) -> Result<(), IselError> {
    let arg0 = |s: &mut Selector<'_>| -> Result<VReg, IselError> {
        let a = *args
            .first()
            .ok_or_else(|| s.error(format!("{callee} needs an argument")))?;
        s.get(a, RegClass::R)
    };
    match callee {
        "print_int" => {
            let a = arg0(s)?;
            trap(s, SYS_PRINT_INT, Some(a), None);
            define_result(s, dst, None, 0);
        }
        "print_char" | "putchar" => {
            let a = arg0(s)?;
            trap(s, SYS_PRINT_CHAR, Some(a), None);
            // Both return the character as an unsigned char (the interpreter's builtins).
            if let Some(d) = dst {
                let r = s.emit_here(O::BinI(MB::And), RegClass::R, &[a], Imm::Int(255));
                s.define_here(d, RegClass::R, r);
            }
        }
        "exit" => {
            let a = arg0(s)?;
            trap(s, SYS_EXIT, Some(a), None);
            define_result(s, dst, None, 0);
        }
        "abort" => {
            let at = s.here();
            let a = s.const_into(at, RegClass::R, ABORT_STATUS);
            trap(s, SYS_EXIT, Some(a), None);
            define_result(s, dst, None, 0);
        }
        "printf" => super::printf::expand(s, dst, args)?,
        _ => {
            return Err(s.error(format!(
                "call to `{callee}`, which is neither defined in the module nor a builtin"
            )))
        }
    }
    Ok(())
}

/// Defines `dst` (if any) as `r`, or as the constant `k` when `r` is `None`.
pub(crate) fn define_result(s: &mut Selector<'_>, dst: Option<Value>, r: Option<VReg>, k: i32) {
    if let Some(d) = dst {
        let r = r.unwrap_or_else(|| {
            let at = s.here();
            s.const_into(at, RegClass::R, k)
        });
        s.define_here(d, RegClass::R, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separate_sequences_and_stack_slots_in_order() {
        use RegClass::{P, R};
        let locs = assign(&[R, P, R, R, P, R, R, P, P, R]);
        let r = |n| Ok(PReg::new(R, n));
        let p = |n| Ok(PReg::new(P, n));
        assert_eq!(
            locs,
            vec![
                r(0),
                p(0),
                r(1),
                r(2),
                p(1),
                r(3),
                Err(0),
                p(2),
                Err(1),
                Err(2)
            ]
        );
    }
}
