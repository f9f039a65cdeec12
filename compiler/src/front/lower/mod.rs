//! Lowering of the checked program ([`crate::front::tast`]) to the mid-level IR.
//!
//! Contract with the rest of the pipeline (see `docs/design.md`, "The mid-level IR"):
//! * a local scalar whose address is never taken (and that is not `volatile`) is a virtual
//!   register, assigned as often as the program assigns it — not SSA; SSA construction
//!   renames it. Address-taken locals, arrays and structs get stack slots;
//! * globals, static locals and string literals (read-only, deduplicated) are
//!   [`ir::Global`]s; static functions and objects nobody references are dropped;
//! * a value of a narrow C type (`char`, `short`) is always held sign- or zero-extended in
//!   its 32-bit register: conversions emit `sext8`/`zext8`/`sext16`/`zext16`, loads extend;
//! * `&&`, `||` lower to control flow, `?:` too unless both arms are constants or register
//!   reads (then a `select`); `switch` lowers to a compare chain, or a balanced binary search
//!   over the sorted case values when there are more than four;
//! * struct assignment copies words, halves or bytes as the alignment allows (a loop for
//!   large structs); calls pass argument values in order; the entry block `b0` is never a
//!   jump target; unreachable blocks are removed at the end.
//!
//! Complexity: linear in the size of the typed tree (a switch costs O(n log n) to sort).

mod expr;
mod stmt;
#[cfg(test)]
mod tests;

use super::tast::*;
use super::types::*;
use crate::ir::{self, BlockId, Function, Op, SlotId, Terminator, Ty, Value};
use std::collections::{HashMap, HashSet};

/// Where a variable lives during a function.
#[derive(Clone, Debug)]
enum Loc {
    Reg(Value),
    Slot(SlotId),
    Global(String),
}

/// IR name of string literal `id`.
pub fn string_symbol(id: StrId) -> String {
    format!(".str.{id}")
}

fn ir_ty(t: &Type) -> Ty {
    match t {
        Type::Ptr(_) | Type::Array(..) | Type::Struct(_) => Ty::Ptr,
        _ => Ty::I32,
    }
}

fn symbol_name(prog: &Program, r: &SymRef) -> String {
    match r {
        SymRef::Var(v) => match &prog.vars[*v as usize].kind {
            VarKind::Global { symbol } => symbol.clone(),
            _ => prog.vars[*v as usize].name.clone(),
        },
        SymRef::Str(s) => string_symbol(*s),
        SymRef::Func(f) => prog.funcs[*f as usize].name.clone(),
    }
}

/// Lowers a checked program (which must have no errors) to an IR module.
pub fn lower(prog: &Program) -> ir::Module {
    let mut m = ir::Module::default();
    for g in &prog.globals {
        let VarKind::Global { symbol } = &prog.vars[g.var as usize].kind else {
            continue;
        };
        m.globals.push(ir::Global {
            name: symbol.clone(),
            size: g.size,
            align: g.align,
            init: g.init.clone(),
            relocs: g
                .relocs
                .iter()
                .map(|(off, r, add)| ir::Reloc {
                    offset: *off,
                    symbol: symbol_name(prog, r),
                    addend: *add,
                })
                .collect(),
            readonly: g.readonly,
        });
    }
    for (k, s) in prog.strings.iter().enumerate() {
        m.globals.push(ir::Global {
            name: string_symbol(k as StrId),
            size: s.len() as u32,
            align: 1,
            init: s.clone(),
            relocs: Vec::new(),
            readonly: true,
        });
    }
    for body in &prog.bodies {
        m.functions.push(FnLower::lower(prog, body));
    }
    drop_unreferenced(prog, &mut m);
    m
}

/// Removes static functions, static objects and string literals that no kept function or
/// object refers to (the built-in library headers define many static functions).
fn drop_unreferenced(prog: &Program, m: &mut ir::Module) {
    let mut is_static: HashSet<String> = prog
        .funcs
        .iter()
        .filter(|f| f.is_static)
        .map(|f| f.name.clone())
        .collect();
    for v in &prog.vars {
        if let VarKind::Global { symbol } = &v.kind {
            if v.is_static {
                is_static.insert(symbol.clone());
            }
        }
    }
    for k in 0..prog.strings.len() {
        is_static.insert(string_symbol(k as StrId));
    }
    let funcs: HashMap<&str, &Function> =
        m.functions.iter().map(|f| (f.name.as_str(), f)).collect();
    let globals: HashMap<&str, &ir::Global> =
        m.globals.iter().map(|g| (g.name.as_str(), g)).collect();
    let mut live: HashSet<String> = HashSet::new();
    let mut work: Vec<String> = funcs
        .keys()
        .chain(globals.keys())
        .filter(|n| !is_static.contains(**n))
        .map(|n| n.to_string())
        .collect();
    while let Some(n) = work.pop() {
        if !live.insert(n.clone()) {
            continue;
        }
        if let Some(f) = funcs.get(n.as_str()) {
            for b in &f.blocks {
                for i in &b.insts {
                    match &i.op {
                        Op::Call { callee, .. } => work.push(callee.clone()),
                        Op::SymAddr(s, _) => work.push(s.clone()),
                        _ => {}
                    }
                }
            }
        }
        if let Some(g) = globals.get(n.as_str()) {
            work.extend(g.relocs.iter().map(|r| r.symbol.clone()));
        }
    }
    m.functions.retain(|f| live.contains(&f.name));
    m.globals.retain(|g| live.contains(&g.name));
}

/// Lowering state of one function.
struct FnLower<'p> {
    prog: &'p Program,
    f: Function,
    cur: BlockId,
    vars: HashMap<VarId, Loc>,
    /// Registers that hold variables (never retargeted as temporaries).
    var_regs: HashSet<Value>,
    labels: Vec<Option<BlockId>>,
    cases: Vec<Option<BlockId>>,
    breaks: Vec<BlockId>,
    continues: Vec<BlockId>,
    ret: Option<Ty>,
    is_main: bool,
    /// A function returning a struct: the hidden first parameter, the address the caller
    /// provides for the result (docs/c-coverage.md "Structs by value").
    sret: Option<Value>,
}

impl<'p> FnLower<'p> {
    fn lower(prog: &'p Program, body: &FuncBody) -> Function {
        let info = &prog.funcs[body.func as usize];
        let mut f = Function::new(&info.name);
        let returns_struct = matches!(info.ty.ret.ty, Type::Struct(_));
        let ret = (!info.ty.ret.ty.is_void() && !returns_struct).then(|| ir_ty(&info.ty.ret.ty));
        f.ret = ret;
        let sret = returns_struct.then(|| f.add_param(Ty::Ptr));
        let mut l = FnLower {
            prog,
            f,
            cur: BlockId::ENTRY,
            vars: HashMap::new(),
            var_regs: HashSet::new(),
            labels: vec![None; body.num_labels as usize],
            cases: vec![None; body.num_cases as usize],
            breaks: Vec::new(),
            continues: Vec::new(),
            ret,
            is_main: info.name == "main",
            sret,
        };
        l.params(body, info.kr);
        l.stmt(&body.body);
        let end = if l.is_main || ret.is_some() {
            let z = l.konst(0, ret.unwrap_or(Ty::I32));
            Terminator::Return(Some(z))
        } else {
            Terminator::Return(None)
        };
        l.f.set_term(l.cur, end);
        remove_unreachable(&mut l.f);
        l.f
    }

    /// Parameters: IR parameters in order; those in memory are stored to their slots;
    /// narrow parameters of old-style definitions are narrowed (callers pass promoted
    /// values). `main`'s parameters, if any, are zero (the interpreter passes none).
    fn params(&mut self, body: &FuncBody, kr: bool) {
        for &v in &body.params {
            let info = &self.prog.vars[v as usize];
            let ty = info.ty.clone();
            let incoming = if self.is_main {
                self.konst(0, ir_ty(&ty.ty))
            } else {
                self.f.add_param(ir_ty(&ty.ty))
            };
            let value = if kr {
                self.conv_value(incoming, &Type::Int(IntKind::Int), &ty.ty)
            } else {
                incoming
            };
            let in_reg = ty.ty.is_scalar() && !info.addr_taken && !ty.cv.is_volatile;
            if in_reg && value == incoming && !self.is_main {
                // The parameter's own register is the variable (no entry copy).
                self.vars.insert(v, Loc::Reg(incoming));
                self.var_regs.insert(incoming);
                continue;
            }
            let loc = self.alloc_var(v);
            match loc {
                Loc::Reg(r) => self.push(Some(r), Op::Copy(value)),
                Loc::Slot(s) => {
                    let addr = self.emit(Ty::Ptr, Op::SlotAddr(s));
                    if let Type::Struct(_) = ty.ty {
                        // A struct parameter arrives as the address of the caller's object:
                        // the callee copies it into its own slot before anything else runs.
                        let size = self.prog.types.size_of(&ty.ty).unwrap_or(0);
                        let align = self.prog.types.align_of(&ty.ty);
                        self.copy_bytes(addr, value, size, align, false);
                    } else {
                        self.store_mem(addr, &ty, value);
                    }
                }
                Loc::Global(_) => {}
            }
        }
    }

    /// Chooses and records the location of a parameter or automatic variable.
    fn alloc_var(&mut self, v: VarId) -> Loc {
        let info = &self.prog.vars[v as usize];
        let in_reg = info.ty.ty.is_scalar() && !info.addr_taken && !info.ty.cv.is_volatile;
        let loc = match &info.kind {
            VarKind::Global { symbol } => Loc::Global(symbol.clone()),
            _ if in_reg => {
                let r = self.f.new_value(ir_ty(&info.ty.ty));
                self.var_regs.insert(r);
                Loc::Reg(r)
            }
            _ => {
                let size = self.prog.types.size_of(&info.ty.ty).unwrap_or(4).max(1);
                let align = self.prog.types.stack_align_of(&info.ty.ty);
                Loc::Slot(self.f.new_slot(size, align, &info.name))
            }
        };
        self.vars.insert(v, loc.clone());
        loc
    }

    fn loc(&mut self, v: VarId) -> Loc {
        match self.vars.get(&v) {
            Some(l) => l.clone(),
            None => self.alloc_var(v),
        }
    }

    // ---- emission helpers -----------------------------------------------------------------

    fn push(&mut self, dst: Option<Value>, op: Op) {
        self.f.push(self.cur, dst, op);
    }

    fn emit(&mut self, ty: Ty, op: Op) -> Value {
        let v = self.f.new_value(ty);
        self.push(Some(v), op);
        v
    }

    fn konst(&mut self, c: i32, ty: Ty) -> Value {
        self.emit(ty, Op::Const(c))
    }

    fn new_block(&mut self) -> BlockId {
        self.f.new_block()
    }

    /// Ends the current block with `t`; following code goes to a fresh (unreachable until
    /// something jumps there) block.
    fn terminate(&mut self, t: Terminator) {
        self.f.set_term(self.cur, t);
        self.cur = self.f.new_block();
    }

    fn jump(&mut self, to: BlockId) {
        self.terminate(Terminator::Jump(to));
    }

    /// Jumps to `b` and continues there.
    fn enter(&mut self, b: BlockId) {
        self.jump(b);
        self.cur = b;
    }
}

/// Removes blocks not reachable from the entry and renumbers the others in order.
fn remove_unreachable(f: &mut Function) {
    let n = f.blocks.len();
    let mut reach = vec![false; n];
    let mut work = vec![BlockId::ENTRY];
    reach[0] = true;
    while let Some(b) = work.pop() {
        for s in f.block(b).term.successors() {
            if !reach[s.index()] {
                reach[s.index()] = true;
                work.push(s);
            }
        }
    }
    if reach.iter().all(|&r| r) {
        return;
    }
    let mut map = vec![BlockId(0); n];
    let mut next = 0u32;
    for k in 0..n {
        if reach[k] {
            map[k] = BlockId(next);
            next += 1;
        }
    }
    let old = std::mem::take(&mut f.blocks);
    for (k, mut b) in old.into_iter().enumerate() {
        if !reach[k] {
            continue;
        }
        b.term = match b.term {
            Terminator::Jump(t) => Terminator::Jump(map[t.index()]),
            Terminator::Branch { cond, then_, else_ } => Terminator::Branch {
                cond,
                then_: map[then_.index()],
                else_: map[else_.index()],
            },
            t => t,
        };
        f.blocks.push(b);
    }
}
