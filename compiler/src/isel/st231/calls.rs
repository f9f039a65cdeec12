//! ST231 calls: the embedded ABI (isa.md §A6), the output/exit builtins as system calls, and
//! division/remainder through the runtime routines (isa.md §A5: no divide instruction).
//!
//! * Arguments 0..8 are uses of the `call` pinned to `$r16..$r23`; argument `8 + k` is stored
//!   with `stw $r12, #16+4k` into the outgoing area (above the 16-byte scratch area) before
//!   the call, and `frame.outgoing_size` grows to `16 + 4 * extra` (at least 16 in any function
//!   that calls). The result is a definition of the call pinned to `$r16` (Rastello et al.
//!   §2.1, Fig. 2 statement S3).
//! * An argument value passed in two registers of the same call is copied first, so that no
//!   variable is pinned to two resources by one operation (Rastello et al. §2.2, Fig. 5).
//! * Builtins (no definition in the module): `print_int` = syscall 2, `print_char`/`putchar`
//!   = 3 (`putchar` returns `c & 255`, as C and the IR interpreter do), `exit` = 1,
//!   `abort()` = `exit(134)`, `printf` with a literal format is expanded ([`super::printf`]).
//! * Division by a constant is done inline ([`super::divconst`]); every other division calls
//!   `__ssalab_divs/divu/mods/modu` with the operands pinned to `$r16`/`$r17`.

use super::{pinned_arg, sp, Sel, Src2};
use crate::ir::{BinOp, Value};
use crate::isel::{self, IselError};
use crate::mir::{Imm, Inst, Opc, Operand, VReg};
use simulator::isa::st231::{self as isa, Opcode as O};

/// Syscall numbers (project convention, `simulator::machine::output`).
pub(crate) const SYS_EXIT: i32 = 1;
pub(crate) const SYS_PRINT_INT: i32 = 2;
pub(crate) const SYS_PRINT_CHAR: i32 = 3;
pub(crate) const SYS_WRITE: i32 = 4;

/// Exit code of `abort()` (128 + SIGABRT, as a shell reports it).
const ABORT_CODE: i32 = 134;

impl<'a> Sel<'a> {
    pub(crate) fn select_call(
        &mut self,
        dst: Option<Value>,
        callee: &str,
        args: &[Value],
    ) -> Result<(), IselError> {
        if let Some(sig) = isel::signature(self.module, callee) {
            if dst.is_some() && sig.ret.is_none() {
                return Err(self.err(format!("the result of void function `{callee}` is used")));
            }
            let regs: Vec<VReg> = args.iter().map(|&a| self.vreg(a)).collect();
            let d = dst.map(|d| self.vreg(d));
            self.call(callee, &regs, d);
            return Ok(());
        }
        self.select_builtin(dst, callee, args)
    }

    /// Emits a call of `callee` with the ABI pins (module doc).
    pub(crate) fn call(&mut self, callee: &str, args: &[VReg], result: Option<VReg>) {
        let nregs = isa::ARG_REGS.len();
        let extra = args.len().saturating_sub(nregs) as u32;
        let need = isa::STACK_ARG_OFFSET + 4 * extra;
        self.out.frame.outgoing_size = self.out.frame.outgoing_size.max(need);
        for (k, &v) in args.iter().enumerate().skip(nregs) {
            let off = isa::STACK_ARG_OFFSET as i32 + 4 * (k - nregs) as i32;
            self.emit(Inst::new(
                Opc::St231(O::Stw),
                vec![],
                vec![sp(), v.into()],
                Imm::Int(off),
            ));
        }
        let uses = self.distinct_pinned(&args[..args.len().min(nregs)]);
        let defs = result.map(|r| vec![pinned_arg(r, 0)]).unwrap_or_default();
        self.emit(Inst::new(
            Opc::St231(O::Call),
            defs,
            uses,
            Imm::Func(callee.to_string()),
        ));
    }

    /// Register arguments pinned to `$r16..`, with a copy for each repeated value.
    fn distinct_pinned(&mut self, args: &[VReg]) -> Vec<Operand> {
        let mut seen: Vec<VReg> = Vec::with_capacity(args.len());
        let mut uses = Vec::with_capacity(args.len());
        for (k, &v) in args.iter().enumerate() {
            let v = if seen.contains(&v) {
                let c = self.new_r();
                self.emit(Inst::copy(c, v));
                c
            } else {
                seen.push(v);
                v
            };
            uses.push(pinned_arg(v, k));
        }
        uses
    }

    fn select_builtin(
        &mut self,
        dst: Option<Value>,
        callee: &str,
        args: &[Value],
    ) -> Result<(), IselError> {
        let want = |n: usize| -> Result<(), IselError> {
            if args.len() == n {
                Ok(())
            } else {
                Err(self.err(format!(
                    "`{callee}` takes {n} argument(s), {} given",
                    args.len()
                )))
            }
        };
        let no_result = |s: &Self| -> Result<(), IselError> {
            match dst {
                Some(_) => Err(s.err(format!("`{callee}` returns no value"))),
                None => Ok(()),
            }
        };
        match callee {
            "print_int" | "print_char" => {
                want(1)?;
                no_result(self)?;
                let n = if callee == "print_int" {
                    SYS_PRINT_INT
                } else {
                    SYS_PRINT_CHAR
                };
                let v = self.vreg(args[0]);
                self.syscall(n, &[v]);
            }
            "putchar" => {
                want(1)?;
                let v = self.vreg(args[0]);
                self.syscall(SYS_PRINT_CHAR, &[v]);
                if let Some(d) = dst {
                    let d = self.vreg(d);
                    self.binary(O::And, d, v, Src2::I(255));
                }
            }
            "exit" => {
                want(1)?;
                no_result(self)?;
                let v = self.vreg(args[0]);
                self.syscall(SYS_EXIT, &[v]);
            }
            "abort" => {
                want(0)?;
                no_result(self)?;
                let c = self.constant(ABORT_CODE);
                self.syscall(SYS_EXIT, &[c]);
            }
            "printf" => self.select_printf(dst, args)?,
            _ => {
                return Err(self.err(format!(
                    "call to `{callee}`: not a function of the program and not a builtin \
                     (print_int, print_char, putchar, printf, exit, abort)"
                )))
            }
        }
        Ok(())
    }

    /// Division and remainder: powers of two inline, everything else through the runtime.
    pub(crate) fn select_divrem(
        &mut self,
        d: VReg,
        op: BinOp,
        a: Value,
        b: Value,
    ) -> Result<(), IselError> {
        if let Some(c) = self.const_of(b) {
            let x = self.vreg(a);
            if self.divrem_by_constant(d, op, x, c) {
                return Ok(());
            }
        }
        let routine = match op {
            BinOp::DivS => isel::RUNTIME_DIVS,
            BinOp::DivU => isel::RUNTIME_DIVU,
            BinOp::RemS => isel::RUNTIME_MODS,
            _ => isel::RUNTIME_MODU,
        };
        if isel::signature(self.module, routine).is_none() {
            return Err(self.err(format!(
                "`{}` needs the runtime routine `{routine}`, which the module lacks \
                 (append isel::RUNTIME_SOURCE)",
                op.name()
            )));
        }
        let (x, y) = (self.vreg(a), self.vreg(b));
        self.call(routine, &[x, y], Some(d));
        Ok(())
    }
}
