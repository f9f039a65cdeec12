//! LAI operations: one assembly statement of either target, with symbolic registers, turned
//! into a pre-SSA [`RawInst`] (operands still named by symbol). Operand order follows the
//! machine IR contract of `mir::function` (ST231 formats of `st231::Format`; ST120 in the
//! order of `OpInfo::operands()`, a tied operand going to both defs and uses, the use
//! pinned to the def's variable, the guard last).
//!
//! Complexity: linear in the statement length (ST120 mnemonic candidates are at most a few
//! dozen opcodes).

use super::syntax::*;
use crate::mir::{InstFlags, Opc, PReg, RegClass};
use simulator::isa::st120::{self, opcode::Operand as O120, AddrMode, OpProps};
use simulator::isa::{st231, Target};
use std::collections::HashMap;
use std::sync::OnceLock;

/// How a symbolic immediate must be resolved (by the function parser).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawImm {
    None,
    Int(i64),
    /// A name: label (branches), function (calls), frame object or global (others).
    Name {
        name: String,
        offset: i64,
        part: u8,
        pos: usize,
        len: usize,
    },
}

/// An operand before symbols are numbered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawOp {
    pub reg: RegSyn,
    pub pin: Option<RegSyn>,
    pub pos: usize,
    pub len: usize,
    /// A tied use: pinned to the variable of the def with the same name (set by the
    /// function parser after renaming).
    pub tied: bool,
}

impl RawOp {
    fn from(r: &RegOp) -> RawOp {
        RawOp {
            reg: r.reg.clone(),
            pin: r.pin.clone(),
            pos: r.pos,
            len: r.len,
            tied: false,
        }
    }
}

/// One parsed statement.
#[derive(Clone, Debug)]
pub struct RawInst {
    pub opc: Opc,
    pub defs: Vec<RawOp>,
    pub uses: Vec<RawOp>,
    pub imm: RawImm,
    pub flags: InstFlags,
    /// Phi: the predecessor label of each use.
    pub phi_labels: Vec<(String, usize)>,
    /// Calls and system calls: unpinned arguments/results get ABI pins after class inference.
    pub abi: bool,
    pub pos: usize,
    pub len: usize,
}

impl RawInst {
    fn new(opc: Opc, pos: usize, len: usize) -> RawInst {
        RawInst {
            opc,
            defs: vec![],
            uses: vec![],
            imm: RawImm::None,
            flags: InstFlags::empty(),
            phi_labels: vec![],
            abi: false,
            pos,
            len,
        }
    }
}

fn raw_imm(i: &ImmSyn, pos: usize, len: usize) -> RawImm {
    match i {
        ImmSyn::Int(v) => RawImm::Int(*v),
        ImmSyn::Name { name, offset, part } => RawImm::Name {
            name: name.clone(),
            offset: *offset,
            part: *part,
            pos,
            len,
        },
    }
}

fn want_reg(it: &Item, what: &str) -> PResult<RawOp> {
    match it {
        Item::Reg(r) => Ok(RawOp::from(r)),
        _ => Err(PErr::at(it.pos(), 1, format!("expected {what}"))),
    }
}

fn want_imm(it: &Item, what: &str) -> PResult<RawImm> {
    match it {
        Item::Imm(i, p, l) => Ok(raw_imm(i, *p, *l)),
        _ => Err(PErr::at(it.pos(), 1, format!("expected {what}"))),
    }
}

fn items(t: Target, s: &str, pos: usize) -> PResult<Vec<Item>> {
    split_commas(s, pos)
        .into_iter()
        .map(|(a, p)| item(t, a, p))
        .collect()
}

/// `%d = phi(%a:L1, %b:L2)` (both targets).
pub fn phi(t: Target, defs: &str, dpos: usize, args: &str, apos: usize) -> PResult<RawInst> {
    let mut ri = RawInst::new(Opc::Phi, dpos, defs.len());
    for (d, p) in split_commas(defs, dpos) {
        let r = reg_operand(t, d, p)?
            .ok_or_else(|| PErr::at(p, d.len(), format!("expected a register, found `{d}`")))?;
        ri.defs.push(RawOp::from(&r));
    }
    if ri.defs.len() != 1 {
        return Err(PErr::at(
            dpos,
            defs.len(),
            "a phi defines exactly one register",
        ));
    }
    let inner = args.trim();
    let lead = args.len() - args.trim_start().len();
    let body = inner
        .strip_prefix('(')
        .and_then(|b| b.strip_suffix(')'))
        .ok_or_else(|| {
            PErr::at(
                apos,
                args.len(),
                "expected `phi(%v:label, ...)` with parentheses",
            )
        })?;
    for (a, p) in split_commas(body, apos + lead + 1) {
        let colon = a.rfind(':').ok_or_else(|| {
            PErr::at(
                p,
                a.len(),
                format!("phi operand `{a}` needs its predecessor: `%v:label`"),
            )
        })?;
        let rs = a[..colon].trim();
        let r = reg_operand(t, rs, p)?
            .ok_or_else(|| PErr::at(p, rs.len(), format!("expected a register, found `{rs}`")))?;
        ri.uses.push(RawOp::from(&r));
        let lab = a[colon + 1..].trim();
        ri.phi_labels
            .push((lab.to_string(), p + a.len() - lab.len()));
    }
    Ok(ri)
}

// ---------------------------------------------------------------------------------------
// ST231

/// One ST231 statement `mnemonic [defs =] operands` (`name` at `npos`).
pub fn st231_op(name: &str, npos: usize, rest: &str, rpos: usize) -> PResult<RawInst> {
    let t = Target::St231;
    let (defs_s, dpos, uses_s, upos) = match find_top(rest, '=') {
        Some(i) => (&rest[..i], rpos, &rest[i + 1..], rpos + i + 1),
        None => ("", rpos, rest, rpos),
    };
    let defs = items(t, defs_s, dpos)?;
    let uses = items(t, uses_s, upos)?;
    let len = name.len() + rest.len() + 1;
    if name == "mov" {
        let (d, s) = match (defs.as_slice(), uses.as_slice()) {
            ([d], [s]) => (d, s),
            _ => return Err(PErr::at(npos, len, "expected `mov $d = $s|imm`")),
        };
        let d = want_reg(d, "a destination register")?;
        return Ok(match s {
            Item::Reg(r) => {
                let mut ri = RawInst::new(Opc::Copy, npos, len);
                ri.flags |= InstFlags::COPY;
                ri.defs.push(d);
                ri.uses.push(RawOp::from(r));
                ri
            }
            _ => {
                let mut ri = RawInst::new(Opc::St231(st231::Opcode::Add), npos, len);
                ri.defs.push(d);
                ri.uses.push(RawOp {
                    reg: RegSyn::Phys(PReg::new(RegClass::R, 0)),
                    pin: None,
                    pos: npos,
                    len: 3,
                    tied: false,
                });
                ri.imm = want_imm(s, "an immediate")?;
                ri
            }
        });
    }
    let op = st231::Opcode::from_mnemonic(name).ok_or_else(|| {
        PErr::at(
            npos,
            name.len(),
            format!("unknown ST231 operation `{name}`"),
        )
    })?;
    let mut ri = RawInst::new(Opc::St231(op), npos, len);
    let bad = |form: &str| PErr::at(npos, len, format!("`{name}` expects `{form}`"));
    use st231::Format as F;
    let regs = |v: &[Item], what: &str| -> PResult<Vec<RawOp>> {
        v.iter().map(|i| want_reg(i, what)).collect()
    };
    match op.info().format {
        F::Binary | F::Select => {
            let n = if op.info().format == F::Select { 3 } else { 2 };
            if defs.len() != 1 || uses.len() != n {
                return Err(bad(if n == 2 {
                    "op $d = $s1, $s2|imm"
                } else {
                    "slct $d = $b, $s1, $s2|imm"
                }));
            }
            ri.defs = regs(&defs, "a destination register")?;
            if op == st231::Opcode::Sub {
                // `sub $d = x, y` is x - y; the machine computes src2 - src1 (isa.md §A3),
                // so the IR operands are [y, x] / [y] with imm x / `add $d = x, -imm`.
                match (&uses[0], &uses[1]) {
                    (x, Item::Reg(y)) => {
                        ri.uses.push(RawOp::from(y));
                        match x {
                            Item::Reg(x) => ri.uses.push(RawOp::from(x)),
                            other => ri.imm = want_imm(other, "a register or an immediate")?,
                        }
                    }
                    (Item::Reg(x), Item::Imm(ImmSyn::Int(v), _, _)) => {
                        ri.opc = Opc::St231(st231::Opcode::Add);
                        ri.uses.push(RawOp::from(x));
                        ri.imm = RawImm::Int(-*v);
                    }
                    _ => return Err(bad("sub $d = $x|imm, $y  or  sub $d = $x, constant")),
                }
                return Ok(ri);
            }
            ri.uses = regs(&uses[..n - 1], "a source register")?;
            match &uses[n - 1] {
                Item::Reg(r) => ri.uses.push(RawOp::from(r)),
                other => ri.imm = want_imm(other, "a register or an immediate")?,
            }
        }
        F::Monadic => {
            if defs.len() != 1 || uses.len() != 1 {
                return Err(bad("op $d = $s"));
            }
            ri.defs = regs(&defs, "a destination register")?;
            ri.uses = regs(&uses, "a source register")?;
        }
        F::Carry => {
            if defs.len() != 2 || uses.len() != 3 {
                return Err(bad("op $d, $bd = $b, $s1, $s2"));
            }
            ri.defs = regs(&defs, "a destination register")?;
            ri.uses = regs(&uses, "a source register")?;
        }
        F::Load => {
            let (Some(d), [Item::Mem231(off, base)]) = (defs.first(), uses.as_slice()) else {
                return Err(bad("ld $d = off[$base]"));
            };
            if defs.len() != 1 {
                return Err(bad("ld $d = off[$base]"));
            }
            ri.defs.push(want_reg(d, "a destination register")?);
            ri.uses.push(RawOp::from(base));
            ri.imm = off
                .as_ref()
                .map_or(RawImm::Int(0), |o| raw_imm(o, base.pos, 1));
        }
        F::Store => {
            let ([Item::Mem231(off, base)], [v]) = (defs.as_slice(), uses.as_slice()) else {
                return Err(bad("st off[$base] = $v"));
            };
            ri.uses.push(RawOp::from(base));
            ri.uses.push(want_reg(v, "the stored register")?);
            ri.imm = off
                .as_ref()
                .map_or(RawImm::Int(0), |o| raw_imm(o, base.pos, 1));
        }
        F::Prefetch => {
            let (true, [Item::Mem231(off, base)]) = (defs.is_empty(), uses.as_slice()) else {
                return Err(bad("pft off[$base]"));
            };
            ri.uses.push(RawOp::from(base));
            ri.imm = off
                .as_ref()
                .map_or(RawImm::Int(0), |o| raw_imm(o, base.pos, 1));
        }
        F::Branch => {
            let (true, [b, l]) = (defs.is_empty(), uses.as_slice()) else {
                return Err(bad("br $b, label"));
            };
            ri.uses.push(want_reg(b, "a branch register")?);
            ri.imm = want_imm(l, "a label")?;
        }
        F::Jump if op == st231::Opcode::Call => {
            let Some((f, args)) = uses.split_first() else {
                return Err(bad("call [$res =] function, args..."));
            };
            ri.imm = want_imm(f, "a function name")?;
            ri.defs = regs(&defs, "a result register")?;
            ri.uses = regs(args, "an argument register")?;
            ri.abi = true;
        }
        F::Jump => {
            let (true, [l]) = (defs.is_empty(), uses.as_slice()) else {
                return Err(bad("goto label"));
            };
            ri.imm = want_imm(l, "a label")?;
        }
        F::Indirect if op == st231::Opcode::Igoto => {
            // `return`, `return $r63`, `igoto $r63`: the link register is implicit.
            let lr = PReg::new(RegClass::R, 63);
            let ok = defs.is_empty()
                && match uses.as_slice() {
                    [] => true,
                    [Item::Reg(r)] => r.reg == RegSyn::Phys(lr) && r.pin.is_none(),
                    _ => false,
                };
            if !ok {
                return Err(bad("return [$r63]"));
            }
        }
        F::Indirect => {
            return Err(PErr::at(
                npos,
                name.len(),
                "indirect calls are not supported in LAI",
            ))
        }
        F::Syscall => {
            let Some((n, args)) = uses.split_first().filter(|_| defs.is_empty()) else {
                return Err(bad("syscall n, args..."));
            };
            ri.imm = want_imm(n, "a system call number")?;
            ri.uses = regs(args, "an argument register")?;
            ri.abi = true;
        }
        F::Nop => {
            if !defs.is_empty() || !uses.is_empty() {
                return Err(bad("nop"));
            }
        }
    }
    Ok(ri)
}

// ---------------------------------------------------------------------------------------
// ST120

fn by_mnemonic() -> &'static HashMap<&'static str, Vec<st120::Opcode>> {
    static TABLE: OnceLock<HashMap<&'static str, Vec<st120::Opcode>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut m: HashMap<&'static str, Vec<st120::Opcode>> = HashMap::new();
        for op in st120::Opcode::all().into_iter().filter(|o| o.is_valid()) {
            m.entry(op.mnemonic()).or_default().push(op);
        }
        m
    })
}

fn class_120(c: st120::RegClass) -> RegClass {
    match c {
        st120::RegClass::R => RegClass::R,
        st120::RegClass::P => RegClass::P,
        st120::RegClass::G => RegClass::G,
    }
}

/// Flat operand atoms of an ST120 statement, with the addressing mode of its memory operand.
fn flatten(items: &[Item]) -> PResult<(Option<AddrMode>, Vec<Item>)> {
    let mut mode = None;
    let mut out = Vec::new();
    for it in items {
        match it {
            Item::Mem120 {
                base,
                post,
                minus,
                off,
            } => {
                if mode.is_some() {
                    return Err(PErr::at(it.pos(), 1, "at most one memory operand"));
                }
                let is_reg = matches!(off.as_deref(), Some(Item::Reg(_)));
                mode = Some(AddrMode::from_parts(*post, *minus, is_reg));
                out.push(Item::Reg(base.clone()));
                out.push(match off {
                    Some(o) => (**o).clone(),
                    None => Item::Imm(ImmSyn::Int(0), base.pos, 1),
                });
            }
            other => out.push(other.clone()),
        }
    }
    Ok((mode, out))
}

/// Matches flat atoms against `op`'s operand list; fills `ri`.
fn match_120(op: st120::Opcode, atoms: &[Item], ri: &mut RawInst) -> PResult<bool> {
    let info = op.info();
    if info.operands().len() != atoms.len() {
        return Ok(false);
    }
    let mut defs = vec![];
    let mut uses = vec![];
    let mut imm = RawImm::None;
    for (want, got) in info.operands().iter().zip(atoms) {
        match (want, got) {
            (O120::Def(c) | O120::Use(c) | O120::Tied(c), Item::Reg(r)) => {
                if let RegSyn::Phys(p) = r.reg {
                    if p.class != class_120(*c) {
                        return Ok(false);
                    }
                }
                let o = RawOp::from(r);
                match want {
                    O120::Def(_) => defs.push(o),
                    O120::Use(_) => uses.push(o),
                    _ => {
                        let mut u = o.clone();
                        u.tied = true;
                        u.pin = None;
                        defs.push(o);
                        uses.push(u);
                    }
                }
            }
            (O120::Imm(spec), Item::Imm(ImmSyn::Int(v), p, l)) => {
                let (lo, hi) = spec.range();
                // MAKE/MAKEA also take the 16-bit pattern of a negative value (as the
                // assembler does).
                let v = if spec.signed && spec.bits == 16 && (0x8000..=0xFFFF).contains(v) {
                    v - 0x10000
                } else {
                    *v
                };
                if v < lo || v > hi {
                    return Err(PErr::at(
                        *p,
                        *l,
                        format!(
                            "immediate {v} out of range {lo}..={hi} for `{}`",
                            info.mnemonic
                        ),
                    ));
                }
                imm = RawImm::Int(v);
            }
            (O120::Imm(_) | O120::Target, Item::Imm(i, p, l)) => imm = raw_imm(i, *p, *l),
            _ => return Ok(false),
        }
    }
    ri.opc = Opc::St120(op);
    ri.defs = defs;
    ri.uses = uses;
    ri.imm = imm;
    Ok(true)
}

/// One ST120 statement: `[guard? | guard!] MNEMONIC operands` (`name` at `npos`, guard
/// already split off).
pub fn st120_op(
    guard: Option<(RegOp, bool)>,
    name: &str,
    npos: usize,
    rest: &str,
    rpos: usize,
) -> PResult<RawInst> {
    let t = Target::St120;
    let up = name.to_ascii_uppercase();
    let len = name.len() + rest.len() + 1;
    let mut ri = RawInst::new(Opc::St120(st120::Opcode::Nop), npos, len);
    let on_false = matches!(guard, Some((_, true)));
    // Calls and traps: `CALL [res =] f, args...`, `TRAP n, args...`.
    if up == "CALL" || up == "TRAP" {
        let (defs_s, uses_s, upos) = match find_top(rest, '=') {
            Some(i) => (&rest[..i], &rest[i + 1..], rpos + i + 1),
            None => ("", rest, rpos),
        };
        let defs = items(t, defs_s, rpos)?;
        let uses = items(t, uses_s, upos)?;
        let Some((first, args)) = uses.split_first() else {
            return Err(PErr::at(npos, len, format!("`{up}` needs its target")));
        };
        ri.opc = Opc::St120(if up == "CALL" {
            st120::Opcode::Call
        } else {
            if !defs.is_empty() {
                return Err(PErr::at(npos, len, "TRAP defines no register"));
            }
            st120::Opcode::Trap
        });
        ri.imm = want_imm(first, "a target")?;
        ri.defs = defs
            .iter()
            .map(|d| want_reg(d, "a result register"))
            .collect::<PResult<_>>()?;
        ri.uses = args
            .iter()
            .map(|d| want_reg(d, "an argument register"))
            .collect::<PResult<_>>()?;
        ri.abi = true;
    } else {
        let items = items(t, rest, rpos)?;
        // Unguarded register moves are the copies of the LAI (coalescing candidates).
        if guard.is_none() && matches!(up.as_str(), "MOVE" | "MOVEA" | "MOVEG") {
            if let [Item::Reg(d), Item::Reg(s)] = items.as_slice() {
                ri.opc = Opc::Copy;
                ri.flags |= InstFlags::COPY;
                ri.defs.push(RawOp::from(d));
                ri.uses.push(RawOp::from(s));
                return Ok(ri);
            }
        }
        let cands = by_mnemonic().get(up.as_str()).ok_or_else(|| {
            PErr::at(
                npos,
                name.len(),
                format!("unknown ST120 operation `{name}`"),
            )
        })?;
        let (mode, atoms) = flatten(&items)?;
        let mut found = false;
        for &op in cands {
            let p = op.info().props;
            if p.contains(OpProps::ON_FALSE) != on_false {
                continue;
            }
            if p.contains(OpProps::UNGUARDED) && guard.is_some() {
                continue;
            }
            let op_mode = match op {
                st120::Opcode::Load(_, m) | st120::Opcode::Store(_, m) => Some(m),
                _ => None,
            };
            if op_mode != mode {
                continue;
            }
            if match_120(op, &atoms, &mut ri)? {
                found = true;
                break;
            }
        }
        if !found {
            let why = if on_false
                && !cands
                    .iter()
                    .any(|o| o.info().props.contains(OpProps::ON_FALSE))
            {
                format!("only GOTO and JUMP take a `Gn!` guard (taken on false), not `{up}`")
            } else if guard.is_some()
                && !on_false
                && cands
                    .iter()
                    .any(|o| o.info().props.contains(OpProps::ON_FALSE))
            {
                format!("a conditional {up} is taken when the guard is FALSE: write `%g! {up}`")
            } else {
                format!("operands do not match any form of `{up}`")
            };
            return Err(PErr::at(npos, len, why));
        }
    }
    if let Some((g, _)) = guard {
        ri.uses.push(RawOp::from(&g));
        ri.flags |= InstFlags::GUARDED;
    }
    Ok(ri)
}
