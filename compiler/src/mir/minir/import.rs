//! Re-import of an exported Minir document (read by [`super::read`]) into machine SSA: the
//! inverse of [`super::module_to_minir`], for the round trip of `tests/minir.rs` (export,
//! re-import, same out-of-SSA move counts).
//!
//! What the LAO sees is rebuilt from the Minir structure: blocks `BBn` → `bn`, the
//! control-flow graph from the terminators and `succs`, phis with their uses in `preds`
//! order, copies and parallel copies, every operation's results (the fresh never-used ones
//! dropped: `# fresh results from V<n>`) and uses, pins from the dedicated-register copies
//! around an operation (a use `$R` after `_COPY $R = Vv` is `%v^R`, a result `$R` before
//! `_COPY Vv = $R` is `%v^R`), `.input`/`.output` from their copies, a pinned phi result from
//! its `_PHI` and the copies after the phis. What Minir cannot say is
//! read from the trailing comments the exporter writes (the LAO ignores them): our operation
//! name (the first note; `_APPLY` is every target operation), the registers a call reads and
//! writes, the several results of one operation, tied operands, ST120 guards, ST231 `$r0`
//! written as `0`, and the jump after a conditional branch. Register classes are inferred
//! from the operand positions of each operation (`mir::verify::signature`), pins, and copies
//! and phis (both sides of one class). Frame objects get placeholder sizes (Minir has none;
//! out-of-SSA does not look at them); the module has no globals.
//!
//! Errors name the line. Complexity: linear in the document (plus near-linear union-find for
//! the classes).

use super::note;
use super::read::{parse, MFunction, MOp, Val};
use crate::mir::function::*;
use crate::mir::target::{parse_reg, st120_op_from_name, RegClass};
use crate::mir::verify::{signature, ClassSet};
use simulator::isa::{st231, Target};
use std::collections::HashMap;

/// Rebuilds the module a Minir document was exported from (see the module doc).
pub fn module_from_minir(text: &str, target: Target) -> Result<Module, String> {
    let doc = parse(text)?;
    let functions = doc
        .functions
        .iter()
        .map(|f| function_from_minir(f, target))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Module {
        target,
        functions,
        globals: Vec::new(),
    })
}

/// An operand being rebuilt: a finished operand, or a dedicated register `$R` whose copy
/// (before or after the operation) names the variable pinned to it.
#[derive(Clone, Debug)]
enum Slot {
    Done(Operand),
    Dedicated(PReg),
}

/// An instruction being rebuilt.
struct Pending {
    inst: Inst,
    defs: Vec<Slot>,
}

struct Importer<'a> {
    t: Target,
    f: &'a MFunction,
    fresh: Option<u32>,
    preds: Vec<Vec<BlockId>>,
}

fn function_from_minir(mf: &MFunction, t: Target) -> Result<Function, String> {
    let fresh = mf
        .comments
        .iter()
        .find_map(|c| c.strip_prefix(note::FRESH))
        .map(|n| n.trim().parse::<u32>())
        .transpose()
        .map_err(|e| format!("line {}: bad fresh-result comment: {e}", mf.line))?;
    let mut index: HashMap<&str, BlockId> = HashMap::new();
    for (k, b) in mf.blocks.iter().enumerate() {
        if b.label != format!("BB{k}") {
            return Err(format!(
                "line {}: block `{}` where `BB{k}` was expected",
                b.line, b.label
            ));
        }
        index.insert(&b.label, BlockId(k as u32));
    }
    let lookup = |name: &str, line: usize| {
        index
            .get(name)
            .copied()
            .ok_or_else(|| format!("line {line}: unknown block `{name}`"))
    };
    let mut preds = Vec::with_capacity(mf.blocks.len());
    for b in &mf.blocks {
        let p: Result<Vec<BlockId>, String> = b
            .preds
            .iter()
            .flatten()
            .map(|n| lookup(n, b.line))
            .collect();
        preds.push(p?);
    }
    let mut im = Importer {
        t,
        f: mf,
        fresh,
        preds,
    };
    let mut func = Function::new(&mf.label, t);
    func.blocks = Vec::with_capacity(mf.blocks.len());
    for k in 0..mf.blocks.len() {
        let insts = im.block(k, &index)?;
        func.blocks.push(Block { insts });
    }
    add_frame_placeholders(&mut func);
    infer_classes(&mut func, fresh.unwrap_or(0) as usize)?;
    Ok(func)
}

/// One frame object per `Imm::Frame` index used (Minir has no sizes).
fn add_frame_placeholders(f: &mut Function) {
    let n = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| match i.imm {
            Imm::Frame { idx, .. } => Some(idx.0 + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    for k in 0..n {
        f.new_frame_object(4, 4, FrameKind::Local, &format!("f{k}"));
    }
}

impl Importer<'_> {
    fn err(&self, op: &MOp, m: impl std::fmt::Display) -> String {
        format!("line {} (@{}): {m}", op.line, self.f.label)
    }

    /// A register operand as written: `V<n>`, `$name`, or `0` for ST231 `$r0`.
    fn reg(&self, op: &MOp, s: &str) -> Result<Reg, String> {
        if let Some(n) = s.strip_prefix('V') {
            let v: u32 = n
                .parse()
                .map_err(|_| self.err(op, format!("bad variable `{s}`")))?;
            return Ok(Reg::V(VReg(v)));
        }
        if s == "0" && self.t == Target::St231 {
            return Ok(Reg::P(PReg::new(RegClass::R, 0)));
        }
        let name = if self.t == Target::St231 {
            s
        } else {
            s.strip_prefix('$').unwrap_or(s)
        };
        parse_reg(self.t, name)
            .map(Reg::P)
            .ok_or_else(|| self.err(op, format!("unknown register `{s}`")))
    }

    fn is_fresh(&self, s: &str) -> bool {
        let n = s.strip_prefix('V').and_then(|n| n.parse::<u32>().ok());
        matches!((n, self.fresh), (Some(n), Some(f)) if n >= f)
    }

    /// A result: fresh (dropped), a dedicated register (waiting for its copy), a variable.
    fn def_slot(&self, op: &MOp, s: &str) -> Result<Option<Slot>, String> {
        if self.is_fresh(s) {
            return Ok(None);
        }
        Ok(Some(match self.reg(op, s)? {
            Reg::P(p) if s.starts_with('$') => Slot::Dedicated(p),
            r => Slot::Done(Operand::new(r)),
        }))
    }

    fn imm(&self, op: &MOp, v: &Val, call: bool) -> Result<Imm, String> {
        match v {
            Val::Scalar(s) => s
                .parse::<i32>()
                .map(Imm::Int)
                .map_err(|_| self.err(op, format!("bad immediate `{s}`"))),
            Val::Seq(items) => {
                let mut it = items.iter().map(Val::text);
                let name = it.next().ok_or_else(|| self.err(op, "empty symbol"))?;
                let (mut offset, mut part) = (0i32, SymPart::Full);
                for x in it {
                    match x.as_str() {
                        "'@hi'" => part = SymPart::Hi16,
                        "'@lo'" => part = SymPart::Lo16,
                        o => {
                            offset = o
                                .trim_start_matches('+')
                                .parse()
                                .map_err(|_| self.err(op, format!("bad offset `{o}`")))?
                        }
                    }
                }
                if let Some(k) = name.strip_prefix("__frame_f").and_then(|k| k.parse().ok()) {
                    return Ok(Imm::Frame {
                        idx: FrameIdx(k),
                        offset,
                    });
                }
                if call && offset == 0 && part == SymPart::Full {
                    return Ok(Imm::Func(name));
                }
                Ok(Imm::Sym { name, offset, part })
            }
        }
    }

    /// Our operation named by the comment's first note.
    fn opc(&self, op: &MOp) -> Result<Opc, String> {
        let name = op.notes().first().copied().unwrap_or_default();
        match name {
            "copy" => return Ok(Opc::Copy),
            "parcopy" => return Ok(Opc::ParCopy),
            "psi" => return Ok(Opc::Psi),
            _ => {}
        }
        match self.t {
            Target::St231 => st231::Opcode::from_mnemonic(name).map(Opc::St231),
            Target::St120 => st120_op_from_name(name).map(Opc::St120),
        }
        .ok_or_else(|| self.err(op, format!("unknown operation `{name}` in the comment")))
    }

    /// Rebuilds block `k`.
    fn block(&mut self, k: usize, index: &HashMap<&str, BlockId>) -> Result<Vec<Inst>, String> {
        let mb = &self.f.blocks[k];
        let preds = self.preds[k].clone();
        let mut phis: Vec<Inst> = Vec::new();
        let mut body: Vec<Pending> = Vec::new();
        let mut use_pins: Vec<(PReg, Reg)> = Vec::new();
        let mut input: Vec<Operand> = Vec::new();
        let mut output: Vec<Operand> = Vec::new();
        let mut terms: Vec<Inst> = Vec::new();
        for op in &mb.ops {
            let name = op.op();
            let notes = op.notes();
            let first = notes.first().copied().unwrap_or_default();
            let (defs, uses) = (op.list("defs"), op.list("uses"));
            if name != "_COPY" || !first.starts_with(note::PIN_OF) || !first.ends_with(".output") {
                flush_marker(&mut body, &mut output, Opc::Output);
            }
            if name != "_COPY" || !first.ends_with(".input") {
                flush_marker(&mut body, &mut input, Opc::Input);
            }
            match name.as_str() {
                "_PHI" => {
                    let mut d =
                        Operand::new(self.reg(op, defs.first().map_or("", String::as_str))?);
                    if let Some(x) = notes.iter().find_map(|n| n.strip_prefix(note::PHI_RESULT)) {
                        // `_PHI [x'] = …  # pinned phi result Vx^$R`: our `%x^R = phi(…)`.
                        let (x, pin) = self.pin_note(op, x)?;
                        d = Operand::pinned(x, pin);
                    }
                    let mut us = Vec::with_capacity(uses.len());
                    for u in &uses {
                        us.push(Operand::new(self.reg(op, u)?));
                    }
                    if us.len() != preds.len() {
                        return Err(self.err(op, "one phi use per predecessor expected"));
                    }
                    phis.push(Inst::new(Opc::Phi, vec![d], us, Imm::Blocks(preds.clone())));
                }
                // The copies `$R = x'`, `x = $R` of a pinned phi result (see `_PHI`).
                "_COPY" if first.starts_with(note::PHI_RESULT) => {}
                "_COPY" if first.starts_with(note::PIN_OF) => {
                    let (d, u) = (defs.first().cloned(), uses.first().cloned());
                    let (d, u) = d.zip(u).ok_or_else(|| self.err(op, "a copy has 1/1"))?;
                    if d.starts_with('$') {
                        let Reg::P(p) = self.reg(op, &d)? else {
                            unreachable!()
                        };
                        let v = self.reg(op, &u)?;
                        if first.ends_with(".output") {
                            output.push(Operand::pinned(v, Pin::Phys(p)));
                        } else {
                            use_pins.push((p, v));
                        }
                    } else {
                        let Reg::P(p) = self.reg(op, &u)? else {
                            return Err(self.err(op, "a pin copy reads a dedicated register"));
                        };
                        let v = Operand::pinned(self.reg(op, &d)?, Pin::Phys(p));
                        if first.ends_with(".input") {
                            input.push(v);
                        } else {
                            self.attach_def_pin(op, &mut body, p, v)?;
                        }
                    }
                }
                "_COPY" | "_PCOPY" | "_PSI" | "_APPLY" => {
                    if let Some(rest) = notes.iter().find_map(|n| n.strip_prefix(note::RESULT)) {
                        if !rest.starts_with("1 ") {
                            // A further result of the operation before.
                            let last = body
                                .last_mut()
                                .ok_or_else(|| self.err(op, "a further result of nothing"))?;
                            for d in &defs {
                                last.defs.extend(self.def_slot(op, d)?);
                            }
                            continue;
                        }
                    }
                    let p = self.operation(op, &mut use_pins)?;
                    body.push(p);
                }
                "_GOTO" => {
                    let to = self.label(op, index)?;
                    terms.push(Inst::new(self.opc(op)?, vec![], vec![], Imm::Block(to)));
                }
                "_IFTRUE" => terms.extend(self.branch(op, k, index)?),
                "_RETURN" => {
                    let mut us = Vec::new();
                    if let Some(r) = notes.iter().find_map(|n| n.strip_prefix(note::READS)) {
                        let r = r.trim();
                        for s in r.split(", ").filter(|s| !s.is_empty()) {
                            us.push(Operand::new(self.reg(op, s)?));
                        }
                    }
                    terms.push(Inst::new(self.opc(op)?, vec![], us, Imm::None));
                }
                other => return Err(self.err(op, format!("unexpected operator `{other}`"))),
            }
        }
        flush_marker(&mut body, &mut output, Opc::Output);
        flush_marker(&mut body, &mut input, Opc::Input);
        if let Some((p, _)) = use_pins.first() {
            return Err(format!(
                "block BB{k} (@{}): a copy into {p:?} that no operation reads",
                self.f.label
            ));
        }
        let mut out = phis;
        for p in body {
            out.push(finish(p).map_err(|m| format!("block BB{k} (@{}): {m}", self.f.label))?);
        }
        out.extend(terms);
        Ok(out)
    }

    /// A def-pin copy `_COPY Vv = $R` after an operation: the operation's result `$R`.
    fn attach_def_pin(
        &self,
        op: &MOp,
        body: &mut [Pending],
        p: PReg,
        v: Operand,
    ) -> Result<(), String> {
        let last = body
            .last_mut()
            .ok_or_else(|| self.err(op, "a result pin after no operation"))?;
        let slot = last
            .defs
            .iter_mut()
            .find(|s| matches!(s, Slot::Dedicated(q) if *q == p))
            .ok_or_else(|| self.err(op, "a result pin the operation before does not write"))?;
        *slot = Slot::Done(v);
        Ok(())
    }

    /// A copy, parallel copy, psi or target operation (`_APPLY`; calls with their
    /// `reads`/`writes` notes).
    fn operation(&self, op: &MOp, use_pins: &mut Vec<(PReg, Reg)>) -> Result<Pending, String> {
        let notes = op.notes();
        let opc = match op.op().as_str() {
            "_COPY" => Opc::Copy,
            "_PCOPY" => Opc::ParCopy,
            "_PSI" => Opc::Psi,
            _ => self.opc(op)?,
        };
        let reads = notes
            .iter()
            .find_map(|n| n.strip_prefix(note::READS).map(str::trim));
        let writes = notes
            .iter()
            .find_map(|n| n.strip_prefix(note::WRITES).map(str::trim));
        let items = match op.get("uses") {
            Some(Val::Seq(v)) => v.clone(),
            _ => vec![],
        };
        let call = reads.is_some();
        let split = |s: Option<&str>| -> Vec<String> {
            s.unwrap_or_default()
                .split(", ")
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        };
        let (def_texts, use_texts, imm) = if call {
            let callee = items
                .first()
                .ok_or_else(|| self.err(op, "a call without callee"))?;
            let mut uses = split(reads);
            let imm = match callee {
                Val::Seq(_) => self.imm(op, callee, true)?,
                Val::Scalar(r) => {
                    uses.insert(0, r.clone());
                    Imm::None
                }
            };
            (split(writes), uses, imm)
        } else {
            let zero_uses: Vec<usize> = notes
                .iter()
                .filter_map(|n| {
                    n.strip_prefix("use ")?
                        .strip_suffix(note::ZERO)?
                        .parse()
                        .ok()
                })
                .collect();
            let mut uses: Vec<String> = items.iter().map(Val::text).collect();
            let mut imm = Imm::None;
            if let Some(last) = items.last() {
                let is_imm = match last {
                    Val::Seq(_) => true,
                    Val::Scalar(s) => {
                        !s.starts_with('V')
                            && !s.starts_with('$')
                            && !zero_uses.contains(&(items.len() - 1))
                    }
                };
                if is_imm {
                    imm = self.imm(op, last, false)?;
                    uses.pop();
                }
            }
            (op.list("defs"), uses, imm)
        };
        let mut defs = Vec::with_capacity(def_texts.len());
        for d in &def_texts {
            defs.extend(self.def_slot(op, d)?);
        }
        let mut uses = Vec::with_capacity(use_texts.len());
        for u in &use_texts {
            let r = self.reg(op, u)?;
            let pinned = match r {
                Reg::P(p) if u.starts_with('$') => use_pins
                    .iter()
                    .position(|(q, _)| *q == p)
                    .map(|k| use_pins.remove(k)),
                _ => None,
            };
            uses.push(match pinned {
                Some((p, v)) => Operand::pinned(v, Pin::Phys(p)),
                None => Operand::new(r),
            });
        }
        if let Some((p, _)) = use_pins.first() {
            return Err(self.err(
                op,
                format!("a copy into {p:?} that the operation does not read"),
            ));
        }
        for n in &notes {
            if let Some(rest) = n.strip_prefix(note::TIED) {
                let (u, v) = self.pin_note(op, rest)?;
                if let Some(o) = uses.iter_mut().find(|o| o.reg == u && o.pin.is_none()) {
                    o.pin = Some(v);
                }
            } else if let Some(rest) = n.strip_prefix(note::PINNED) {
                let (d, v) = self.pin_note(op, rest)?;
                for s in defs.iter_mut() {
                    if let Slot::Done(o) = s {
                        if o.reg == d && o.pin.is_none() {
                            o.pin = Some(v);
                            break;
                        }
                    }
                }
            }
        }
        let mut inst = Inst::new(opc, vec![], uses, imm);
        if matches!(opc, Opc::Copy | Opc::ParCopy) {
            inst.flags |= InstFlags::COPY;
        }
        if notes.iter().any(|n| n.starts_with(note::GUARDED)) {
            inst.flags |= InstFlags::GUARDED;
        }
        Ok(Pending { inst, defs })
    }

    /// `V5^V3` or `V5^$r16` (a comment note) → (register, pin).
    fn pin_note(&self, op: &MOp, s: &str) -> Result<(Reg, Pin), String> {
        let s = s.split(' ').next().unwrap_or_default();
        let (r, p) = s
            .split_once('^')
            .ok_or_else(|| self.err(op, format!("bad pin note `{s}`")))?;
        let pin = match self.reg(op, p)? {
            Reg::V(v) => Pin::Var(v),
            Reg::P(q) => Pin::Phys(q),
        };
        Ok((self.reg(op, r)?, pin))
    }

    fn label(&self, op: &MOp, index: &HashMap<&str, BlockId>) -> Result<BlockId, String> {
        let l = op.list("uses").last().cloned().unwrap_or_default();
        index
            .get(l.as_str())
            .copied()
            .ok_or_else(|| self.err(op, format!("`{l}` is not a block")))
    }

    /// `_IFTRUE [c, T]` with `succs: [F, T]` → `br c, T; goto F` (or `brf c, F; goto T`
    /// when the comment says the branch was on false; `goto T` when both ways go to T).
    fn branch(
        &self,
        op: &MOp,
        k: usize,
        index: &HashMap<&str, BlockId>,
    ) -> Result<Vec<Inst>, String> {
        let notes = op.notes();
        let taken = self.label(op, index)?;
        let succs = self.f.blocks[k].succs.clone().unwrap_or_default();
        let fall = match succs.as_slice() {
            [one] if index.get(one.as_str()) == Some(&taken) => taken,
            [f, _] => *index
                .get(f.as_str())
                .ok_or_else(|| self.err(op, "unknown successor"))?,
            _ => return Err(self.err(op, "a conditional branch with bad `succs`")),
        };
        let jump_name = notes
            .iter()
            .find_map(|n| n.strip_prefix(note::THEN))
            .ok_or_else(|| self.err(op, "no `then <goto>` in the comment"))?;
        let jump = match self.t {
            Target::St231 => st231::Opcode::from_mnemonic(jump_name).map(Opc::St231),
            Target::St120 => st120_op_from_name(jump_name).map(Opc::St120),
        }
        .ok_or_else(|| self.err(op, format!("unknown jump `{jump_name}`")))?;
        let on_false = notes.iter().any(|n| n.starts_with(note::ON_FALSE));
        let (br_to, goto_to) = if on_false {
            (fall, taken)
        } else {
            (taken, fall)
        };
        let uses = op.list("uses");
        let mut us = Vec::new();
        for u in &uses[..uses.len().saturating_sub(1)] {
            us.push(Operand::new(self.reg(op, u)?));
        }
        let mut br = Inst::new(self.opc(op)?, vec![], us, Imm::Block(br_to));
        if notes.iter().any(|n| n.starts_with(note::GUARDED)) {
            br.flags |= InstFlags::GUARDED;
        }
        Ok(vec![
            br,
            Inst::new(jump, vec![], vec![], Imm::Block(goto_to)),
        ])
    }
}

/// Turns the operands collected by `.input`/`.output` copies into the marker instruction.
fn flush_marker(body: &mut Vec<Pending>, ops: &mut Vec<Operand>, opc: Opc) {
    if ops.is_empty() {
        return;
    }
    let ops = std::mem::take(ops);
    let (defs, uses) = if opc == Opc::Input {
        (ops.into_iter().map(Slot::Done).collect(), vec![])
    } else {
        (vec![], ops)
    };
    body.push(Pending {
        inst: Inst::new(opc, vec![], uses, Imm::None),
        defs,
    });
}

fn finish(p: Pending) -> Result<Inst, String> {
    let mut inst = p.inst;
    for s in p.defs {
        match s {
            Slot::Done(o) => inst.defs.push(o),
            Slot::Dedicated(r) => {
                return Err(format!(
                    "result {r:?} of `{}` has no copy naming its variable",
                    crate::mir::print::opc_name(inst.opc)
                ))
            }
        }
    }
    Ok(inst)
}

/// Register classes: every operand position allows a set of classes (the operation's
/// signature, a physical pin, the guard of a guarded ST120 operation); copies, phis, psis
/// and tied operands put their operands in one class; each group takes the first class, in
/// the order R, B, P, G, that all its positions allow.
fn infer_classes(f: &mut Function, at_least: usize) -> Result<(), String> {
    const ORDER: [RegClass; 4] = [RegClass::R, RegClass::B, RegClass::P, RegClass::G];
    let n = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .flat_map(|i| i.defs.iter().chain(&i.uses))
        .flat_map(|o| {
            let pin = match o.pin {
                Some(Pin::Var(v)) => Some(v.0),
                _ => None,
            };
            o.reg.vreg().map(|v| v.0).into_iter().chain(pin)
        })
        .max()
        .map_or(0, |m| m as usize + 1)
        .max(at_least);
    let mut allowed = vec![0b1111u8; n];
    let mut parent: Vec<usize> = (0..n).collect();
    fn find(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    let mask = |s: ClassSet| -> u8 {
        ORDER
            .iter()
            .enumerate()
            .filter(|(_, c)| s.contains(**c))
            .fold(0, |m, (k, _)| m | 1 << k)
    };
    let t = f.target;
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let target_op = matches!(inst.opc, Opc::St231(_) | Opc::St120(_));
        let sig = target_op.then(|| signature(t, inst));
        let guard = inst.flags.contains(InstFlags::GUARDED);
        let nuses = inst.uses.len();
        for (k, o) in inst.defs.iter().enumerate() {
            let Some(v) = o.reg.vreg() else { continue };
            let mut m = 0b1111;
            if let Some(s) = &sig {
                if let Some(c) = s.defs.get(k).copied().or(s.extra_defs) {
                    m &= mask(c);
                }
            }
            if let Some(Pin::Phys(p)) = o.pin {
                m &= mask(ClassSet::of(p.class));
            }
            allowed[v.index()] &= m;
        }
        for (k, o) in inst.uses.iter().enumerate() {
            let Some(v) = o.reg.vreg() else { continue };
            let mut m = 0b1111;
            if guard && k + 1 == nuses {
                m &= mask(ClassSet::of(RegClass::G));
            } else if let Some(s) = &sig {
                if let Some(c) = s.uses.get(k).copied().or(s.extra_uses) {
                    m &= mask(c);
                }
            }
            match o.pin {
                Some(Pin::Phys(p)) => m &= mask(ClassSet::of(p.class)),
                Some(Pin::Var(w)) => {
                    let (a, b) = (find(&mut parent, v.index()), find(&mut parent, w.index()));
                    parent[a] = b;
                }
                None => {}
            }
            allowed[v.index()] &= m;
        }
        let joined: Vec<(Reg, Reg)> = match inst.opc {
            Opc::Copy | Opc::ParCopy => inst
                .defs
                .iter()
                .zip(&inst.uses)
                .map(|(d, u)| (d.reg, u.reg))
                .collect(),
            Opc::Phi => inst
                .uses
                .iter()
                .map(|u| (inst.defs[0].reg, u.reg))
                .collect(),
            _ => vec![],
        };
        for (a, b) in joined {
            if let (Some(a), Some(b)) = (a.vreg(), b.vreg()) {
                let (x, y) = (find(&mut parent, a.index()), find(&mut parent, b.index()));
                parent[x] = y;
            }
        }
    }
    let mut group = vec![0b1111u8; n];
    for (v, &a) in allowed.iter().enumerate() {
        let r = find(&mut parent, v);
        group[r] &= a;
    }
    let mut vregs = Vec::with_capacity(n);
    for v in 0..n {
        let m = group[find(&mut parent, v)];
        let k = (0..4).find(|k| m & (1 << k) != 0).ok_or_else(|| {
            format!(
                "@{}: no register class fits %{v} and the registers joined to it",
                f.name
            )
        })?;
        vregs.push(VRegInfo { class: ORDER[k] });
    }
    f.vregs = vregs;
    Ok(())
}
