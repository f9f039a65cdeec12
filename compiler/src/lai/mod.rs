//! Linear Assembly Input (LAI): target assembly with symbolic registers, parsed into
//! machine-level SSA (`mir::Module`, SSA form of docs/design.md), as used by the
//! LAO of Rastello, de Ferrière and Guillon (CGO 2004, §2 and the figures' code).
//!
//! ```text
//! file      := line*                      comments: `#` or `//` to the end of the line
//! .target st231|st120                     (or the caller's hint)
//! .word NAME, v, v, ...    .space NAME, n global data (4-byte aligned words / zeroes)
//! .proc NAME ... .endp                    one function
//!   .frame NAME, SIZE                     a stack object (SP-relative accesses name it)
//!   .input %a=$r16, %b^$r17               parameters pinned to their registers (entry)
//!   .output %r=$r16                       values live out, before the next return
//!   .freq N                               frequency of the current block (kept aside)
//!   LABEL:                                starts a block (a block that falls through
//!                                         gets an explicit `goto`)
//!   %c = phi(%a:L1, %b:L2)                phi (both targets)
//!   ST231:  add %d = %a, 3    ldw %x = 4[%p]    stw buf+4[$r12] = %x    br %b, L
//!           mov %d = %s (copy) | imm     call %r = f, %a, %b    syscall 2, %x    return
//!   ST120:  [%g?|G3?] ADD %d, %a, %b    LDW %x, @(%p !+ 1)    %g! GOTO L    MORE %x, 5
//!           MOVE/MOVEA/MOVEG %d, %s (copy)    CALL %r = f, %a    TRAP 2, %x    RTS
//! operand   := %name[^pin] | physical register[^pin] | immediate
//! pin       := physical register | %name  (a tied operand / the resource of %name)
//! ```
//!
//! Symbolic registers may be assigned several times (non-SSA input): SSA is always
//! (re)constructed by [`ssa::construct`]. A tied ST120 operand (`MORE`, `MOREA`, `NOTG`,
//! post-modified bases) names one register that is both read and written. Register classes
//! come from the operand positions (an ST231 compare result is `$b` when a `br`/`slct`
//! reads it, `$r` otherwise). Unpinned call/syscall arguments and results get their ABI
//! registers in order. Immediates that name a `.frame` object are `Imm::Frame` (BYTE
//! offsets on both targets), labels are blocks, other names globals/functions.
//!
//! Errors are [`Diagnostics`] (file:line:col, source line, caret), never panics; nothing
//! recurses on the input. Complexity: linear in the text, plus SSA construction.

pub mod ops;
pub mod ssa;
pub mod syntax;

use crate::front::diag::{Diag, DiagSink, Diagnostics, SourceMap, Span};
use crate::ir;
use crate::mir::target::{arg_regs, result_reg};
use crate::mir::verify::{signature, verify_module, Form};
use crate::mir::*;
use ops::{RawImm, RawInst, RawOp};
use simulator::isa::Target;
use std::collections::HashMap;
use std::sync::Arc;
use syntax::{is_name_char, reg_operand, PErr, PResult, RegSyn};

/// Most statements per file (a cap on input-driven work).
pub const MAX_LINES: usize = 1_000_000;

/// A parsed LAI file: the module plus the per-block frequencies written with `.freq`.
#[derive(Clone, Debug)]
pub struct LaiModule {
    pub module: Module,
    /// Per function (module order): per block, the `.freq` given (if any).
    pub freqs: Vec<Vec<Option<u64>>>,
}

/// Decodes the text of a test oracle directive such as `# expected: 4 9\n17 20\n` (used by
/// LAI programs, the bench manifest and the file tests): `\n`, `\t` and `\\` are the only
/// escapes; any other backslash is an error naming it. Linear in the text.
pub fn unescape_directive(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            other => {
                return Err(format!(
                    "unknown escape `\\{}` (use \\n, \\t or \\\\)",
                    other.map_or(String::new(), String::from)
                ))
            }
        }
    }
    Ok(out)
}

/// Parses LAI text `text` (file name `name`) into a machine SSA module. The target comes from
/// `.target`, else from `target_hint`.
pub fn parse_lai(
    name: &str,
    text: &str,
    target_hint: Option<Target>,
) -> Result<Module, Diagnostics> {
    parse_lai_full(name, text, target_hint).map(|m| m.module)
}

/// [`parse_lai`] plus block frequencies.
pub fn parse_lai_full(
    name: &str,
    text: &str,
    target_hint: Option<Target>,
) -> Result<LaiModule, Diagnostics> {
    let mut map = SourceMap::new();
    let file = map.add(name.to_string(), None, text.to_string());
    let fail = |map: SourceMap, e: PErr| {
        let mut sink = DiagSink::new();
        sink.report(Diag::error(
            Span::new(file, e.lo as u32, e.hi.min(text.len()).max(e.lo) as u32),
            e.msg,
        ));
        Err(sink.finish(Arc::new(map)))
    };
    match parse(text, target_hint) {
        Ok(m) => Ok(m),
        Err(e) => fail(map, e),
    }
}

/// One source line without its comment: text and byte position.
fn lines(text: &str) -> impl Iterator<Item = (&str, usize)> {
    let mut pos = 0;
    text.split('\n').map(move |l| {
        let p = pos;
        pos += l.len() + 1;
        let cut = [l.find('#'), l.find("//")].into_iter().flatten().min();
        let l = &l[..cut.unwrap_or(l.len())];
        let l = l.trim_end().trim_end_matches(";;").trim_end();
        let lead = l.len() - l.trim_start().len();
        (&l[lead..], p + lead)
    })
}

fn word(s: &str) -> (&str, &str) {
    let n = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..n], &s[n..])
}

/// A function being collected: name, position of `.proc`, body lines.
type OpenProc<'a> = (String, usize, Vec<(&'a str, usize)>);

fn parse(text: &str, hint: Option<Target>) -> PResult<LaiModule> {
    let mut target = hint;
    let mut globals = Vec::new();
    let mut functions = Vec::new();
    let mut freqs = Vec::new();
    let mut current: Option<OpenProc<'_>> = None;
    let mut proc_pos: HashMap<String, usize> = HashMap::new();
    for (k, (l, pos)) in lines(text).enumerate() {
        if k >= MAX_LINES {
            return Err(PErr::at(pos, 1, "too many lines"));
        }
        if l.is_empty() {
            continue;
        }
        let (w, rest) = word(l);
        let rpos = pos + w.len() + (rest.len() - rest.trim_start().len());
        let rest = rest.trim();
        if let Some((fname, fpos, body)) = current.as_mut() {
            if w == ".endp" {
                let t = target.ok_or_else(|| {
                    PErr::at(
                        *fpos,
                        5,
                        "no target: write `.target st231` or `.target st120` first",
                    )
                })?;
                let (f, fr) = function(t, fname, *fpos, body, text)?;
                proc_pos.insert(fname.clone(), *fpos);
                functions.push(f);
                freqs.push(fr);
                current = None;
            } else if w == ".proc" {
                return Err(PErr::at(
                    pos,
                    5,
                    "`.proc` inside a function (missing `.endp`?)",
                ));
            } else {
                body.push((l, pos));
            }
            continue;
        }
        match w {
            ".target" => {
                target = Some(rest.parse().map_err(|_| {
                    PErr::at(
                        rpos,
                        rest.len(),
                        format!("unknown target `{rest}` (st231, st120)"),
                    )
                })?);
            }
            ".proc" => {
                let ok = !rest.is_empty() && rest.chars().all(is_name_char);
                if !ok {
                    return Err(PErr::at(
                        rpos,
                        rest.len(),
                        format!("bad function name `{rest}`"),
                    ));
                }
                current = Some((rest.to_string(), pos, vec![]));
            }
            ".word" | ".space" => globals.push(global(w, rest, rpos)?),
            ".text" | ".data" | ".global" | ".globl" => {}
            _ => {
                return Err(PErr::at(
                    pos,
                    w.len(),
                    format!("expected `.target`, `.proc`, `.word` or `.space`, found `{w}`"),
                ))
            }
        }
    }
    if let Some((_, fpos, _)) = current {
        return Err(PErr::at(fpos, 5, "missing `.endp` for this `.proc`"));
    }
    let Some(target) = target else {
        return Err(PErr::at(
            0,
            1,
            "no target: write `.target st231` or `.target st120`",
        ));
    };
    if functions.is_empty() {
        return Err(PErr::at(0, 1, "no function (`.proc NAME` ... `.endp`)"));
    }
    let module = Module {
        target,
        functions,
        globals,
    };
    let errs = verify_module(&module, Form::Ssa);
    if let Some(e) = errs.first() {
        // Module-level facts (e.g. a call to an unknown function): at the function's `.proc`.
        let at = proc_pos.get(&e.function).copied().unwrap_or(0);
        return Err(PErr::at(at, 5, format!("machine-IR verifier: {e}")));
    }
    Ok(LaiModule { module, freqs })
}

fn global(w: &str, rest: &str, rpos: usize) -> PResult<ir::Global> {
    let parts = syntax::split_commas(rest, rpos);
    let Some(&(name, npos)) = parts.first() else {
        return Err(PErr::at(rpos, 1, format!("`{w}` needs a name")));
    };
    if name.is_empty() || !name.chars().all(is_name_char) {
        return Err(PErr::at(
            npos,
            name.len(),
            format!("bad global name `{name}`"),
        ));
    }
    let mut vals = Vec::new();
    for &(v, p) in &parts[1..] {
        match syntax::imm(v, p)? {
            syntax::ImmSyn::Int(x) => vals.push(x),
            _ => return Err(PErr::at(p, v.len(), "expected an integer")),
        }
    }
    let (size, init) = if w == ".word" {
        let init: Vec<u8> = vals
            .iter()
            .flat_map(|&x| (x as i32).to_le_bytes())
            .collect();
        (init.len() as u32, init)
    } else {
        match vals.as_slice() {
            [n] if (0..=1 << 24).contains(n) => (*n as u32, vec![]),
            _ => {
                return Err(PErr::at(
                    npos,
                    rest.len(),
                    "`.space NAME, bytes` (at most 16 MiB)",
                ))
            }
        }
    };
    Ok(ir::Global {
        name: name.to_string(),
        size: size.max(4),
        align: 4,
        init,
        relocs: vec![],
        readonly: false,
    })
}

/// State of one function being read.
struct Fn<'a> {
    t: Target,
    text: &'a str,
    vars: HashMap<String, u32>,
    names: Vec<String>,
    classes: Vec<Option<RegClass>>,
    first: Vec<usize>,
    labels: HashMap<String, BlockId>,
    frames: HashMap<String, FrameIdx>,
}

impl Fn<'_> {
    fn var(&mut self, n: &str, pos: usize) -> VReg {
        if let Some(&v) = self.vars.get(n) {
            return VReg(v);
        }
        let v = self.names.len() as u32;
        self.vars.insert(n.to_string(), v);
        self.names.push(n.to_string());
        self.classes.push(None);
        self.first.push(pos);
        VReg(v)
    }
    fn reg(&mut self, r: &RegSyn, pos: usize) -> Reg {
        match r {
            RegSyn::Sym(n) => Reg::V(self.var(n, pos)),
            RegSyn::Phys(p) => Reg::P(*p),
        }
    }
    fn operand(&mut self, o: &RawOp) -> Operand {
        let reg = self.reg(&o.reg, o.pos);
        let pin = if o.tied {
            reg.vreg().map(Pin::Var)
        } else {
            o.pin.as_ref().map(|p| match self.reg(p, o.pos) {
                Reg::V(v) => Pin::Var(v),
                Reg::P(p) => Pin::Phys(p),
            })
        };
        Operand { reg, pin }
    }
    fn set_class(&mut self, r: Reg, c: RegClass, pos: usize) -> PResult<bool> {
        let Reg::V(v) = r else { return Ok(false) };
        match self.classes[v.index()] {
            Some(old) if old != c => Err(PErr::at(
                pos,
                1,
                format!(
                    "%{} is used as a {} register here but as a {} register elsewhere",
                    self.names[v.index()],
                    c.suffix(),
                    old.suffix()
                ),
            )),
            Some(_) => Ok(false),
            None => {
                self.classes[v.index()] = Some(c);
                Ok(true)
            }
        }
    }
    fn imm(&self, r: &RawImm, opc: Opc, f: &Function) -> PResult<Imm> {
        let fit = |v: i64, pos: usize| -> PResult<i32> {
            i32::try_from(v)
                .or_else(|_| u32::try_from(v).map(|u| u as i32))
                .map_err(|_| PErr::at(pos, 1, "immediate out of the 32-bit range"))
        };
        Ok(match r {
            RawImm::None => Imm::None,
            RawImm::Int(v) => Imm::Int(fit(*v, 0)?),
            RawImm::Name {
                name,
                offset,
                part,
                pos,
                len,
            } => {
                let probe = Inst::new(opc, vec![], vec![], Imm::None);
                let is_call = probe.control() == Control::Call;
                let is_branch = matches!(probe.control(), Control::CondBranch | Control::Jump);
                if is_branch {
                    let b = self
                        .labels
                        .get(name)
                        .ok_or_else(|| PErr::at(*pos, *len, format!("unknown label `{name}`")))?;
                    Imm::Block(*b)
                } else if is_call {
                    Imm::Func(name.clone())
                } else if let Some(&idx) = self.frames.get(name) {
                    let _ = f;
                    Imm::Frame {
                        idx,
                        offset: fit(*offset, *pos)?,
                    }
                } else {
                    Imm::Sym {
                        name: name.clone(),
                        offset: fit(*offset, *pos)?,
                        part: match part {
                            1 => SymPart::Hi16,
                            2 => SymPart::Lo16,
                            _ => SymPart::Full,
                        },
                    }
                }
            }
        })
    }
}

/// `.input`/`.output` operand list: `%a=$r16, %b^$r17`.
fn io_list(t: Target, s: &str, pos: usize) -> PResult<Vec<RawOp>> {
    syntax::split_commas(s, pos)
        .into_iter()
        .map(|(a, p)| {
            let a2 = a.replacen('=', "^", 1);
            let r = reg_operand(t, &a2, p)?.ok_or_else(|| {
                PErr::at(
                    p,
                    a.len(),
                    format!("expected `%name=register`, found `{a}`"),
                )
            })?;
            Ok(RawOp {
                reg: r.reg,
                pin: r.pin,
                pos: p,
                len: a.len(),
                tied: false,
            })
        })
        .collect()
}

fn is_return(i: &RawInst) -> bool {
    Inst::new(i.opc, vec![], vec![], Imm::None).control() == Control::Return
}

type FnResult = (Function, Vec<Option<u64>>);

fn function(
    t: Target,
    name: &str,
    fpos: usize,
    body: &[(&str, usize)],
    text: &str,
) -> PResult<FnResult> {
    let mut st = Fn {
        t,
        text,
        vars: HashMap::new(),
        names: vec![],
        classes: vec![],
        first: vec![],
        labels: HashMap::new(),
        frames: HashMap::new(),
    };
    let mut f = Function::new(name, t);
    // Pass 1: labels and the block of every line. A function not starting with a label has
    // an implicit entry block; a statement after a conditional branch (other than an
    // unconditional jump) or after an unconditional one starts an implicit block.
    let mut line_block = Vec::with_capacity(body.len());
    let mut nblocks = 0u32;
    let mut prev = Kind::Other;
    for &(l, pos) in body {
        let mut rest = l;
        if let Some(lab) = label_of(l) {
            if st.labels.contains_key(lab) {
                return Err(PErr::at(
                    pos,
                    lab.len(),
                    format!("label `{lab}` defined twice"),
                ));
            }
            nblocks += 1;
            st.labels.insert(lab.to_string(), BlockId(nblocks - 1));
            prev = Kind::Other;
            rest = l[lab.len() + 1..].trim_start();
        }
        if !rest.is_empty() {
            let k = kind(t, rest);
            let split = match prev {
                Kind::Other => false,
                Kind::Cond => k != Kind::Uncond,
                Kind::Uncond => true,
            };
            if nblocks == 0 || split {
                nblocks += 1;
            }
            prev = k;
        }
        line_block.push(nblocks.max(1) as usize - 1);
    }
    let nblocks = nblocks.max(1);
    let mut blocks: Vec<Vec<RawInst>> = (0..nblocks).map(|_| vec![]).collect();
    let mut freqs = vec![None; nblocks as usize];
    let mut pending_output: Option<RawInst> = None;
    let mut prev_block = 0;
    for (&(l, pos), &lb) in body.iter().zip(&line_block) {
        if lb != prev_block {
            if let Some(o) = pending_output.take() {
                return Err(PErr::at(
                    o.pos,
                    o.len,
                    "`.output` must come right before a return",
                ));
            }
            prev_block = lb;
        }
        let mut l = l;
        let mut pos = pos;
        if let Some(lab) = label_of(l) {
            let after = l[lab.len()..]
                .trim_start()
                .trim_start_matches(':')
                .trim_start();
            pos += l.len() - after.len();
            l = after;
            if l.is_empty() {
                continue;
            }
        }
        let b = lb;
        let (w, rest) = word(l);
        let rpos = pos + w.len() + (rest.len() - rest.trim_start().len());
        let rest = rest.trim();
        match w {
            ".freq" => {
                freqs[b] =
                    Some(rest.parse().map_err(|_| {
                        PErr::at(rpos, rest.len(), format!("bad frequency `{rest}`"))
                    })?);
                continue;
            }
            ".frame" => {
                let parts = syntax::split_commas(rest, rpos);
                let (Some(&(n, np)), Some(&(sz, sp))) = (parts.first(), parts.get(1)) else {
                    return Err(PErr::at(pos, l.len(), "expected `.frame NAME, SIZE`"));
                };
                let size: u32 = sz
                    .parse()
                    .ok()
                    .filter(|s| *s <= 1 << 24)
                    .ok_or_else(|| PErr::at(sp, sz.len(), format!("bad size `{sz}`")))?;
                if st.frames.contains_key(n) || !n.chars().all(is_name_char) {
                    return Err(PErr::at(
                        np,
                        n.len(),
                        format!("bad or repeated frame name `{n}`"),
                    ));
                }
                let idx = f.new_frame_object(size, 4, FrameKind::Local, n);
                st.frames.insert(n.to_string(), idx);
                continue;
            }
            ".input" => {
                if b != 0 || !blocks[0].is_empty() {
                    return Err(PErr::at(
                        pos,
                        w.len(),
                        "`.input` must be the first statement of the entry block",
                    ));
                }
                let mut ri = raw(Opc::Input, pos, l.len());
                ri.defs = io_list(t, rest, rpos)?;
                blocks[b].push(ri);
                continue;
            }
            ".output" => {
                let mut ri = raw(Opc::Output, pos, l.len());
                ri.uses = io_list(t, rest, rpos)?;
                pending_output = Some(ri);
                continue;
            }
            _ => {}
        }
        let ri = statement(t, l, pos)?;
        if ri.flags.contains(InstFlags::GUARDED) {
            if let Some(d) = ri.defs.iter().find(|d| matches!(d.reg, RegSyn::Sym(_))) {
                // A guarded definition is partial (the old value survives when the guard is
                // false): SSA needs a psi for it, which LAI does not build.
                return Err(PErr::at(
                    d.pos,
                    d.len,
                    "a guarded operation cannot define a symbolic register in LAI \
                     (partial definitions need psi-SSA); use a physical register or a branch",
                ));
            }
        }
        if ri.opc == Opc::Phi && blocks[b].iter().any(|i| i.opc != Opc::Phi) {
            return Err(PErr::at(
                pos,
                l.len(),
                "phis must come first in their block",
            ));
        }
        if is_return(&ri) {
            blocks[b].push(
                pending_output
                    .take()
                    .unwrap_or_else(|| raw(Opc::Output, pos, 1)),
            );
        } else if pending_output.is_some() {
            return Err(PErr::at(
                pos,
                w.len(),
                "`.output` must come right before a return",
            ));
        }
        blocks[b].push(ri);
    }
    if let Some(o) = pending_output {
        return Err(PErr::at(
            o.pos,
            o.len,
            "`.output` must come right before a return",
        ));
    }
    if blocks[0].first().map(|i| i.opc) != Some(Opc::Input) {
        blocks[0].insert(0, raw(Opc::Input, fpos, 1));
    }
    // Operands → variables.
    let mut insts: Vec<Vec<(Inst, usize, usize)>> = vec![];
    for blk in &blocks {
        let mut out = vec![];
        for ri in blk {
            let defs: Vec<Operand> = ri.defs.iter().map(|o| st.operand(o)).collect();
            let uses: Vec<Operand> = ri.uses.iter().map(|o| st.operand(o)).collect();
            let mut imm = st.imm(&ri.imm, ri.opc, &f)?;
            if ri.opc == Opc::Phi {
                let mut bl = vec![];
                for (lab, p) in &ri.phi_labels {
                    bl.push(*st.labels.get(lab.as_str()).ok_or_else(|| {
                        PErr::at(*p, lab.len(), format!("unknown label `{lab}`"))
                    })?);
                }
                imm = Imm::Blocks(bl);
            }
            out.push((
                Inst {
                    opc: ri.opc,
                    defs,
                    uses,
                    imm,
                    flags: ri.flags,
                },
                ri.pos,
                ri.len,
            ));
        }
        insts.push(out);
    }
    infer_classes(&mut st, &insts)?;
    for (k, c) in st.classes.iter().enumerate() {
        if c.is_none() {
            return Err(PErr::at(
                st.first[k],
                st.names[k].len() + 1,
                format!("the register class of %{} cannot be inferred", st.names[k]),
            ));
        }
    }
    f.vregs = st
        .classes
        .iter()
        .map(|c| VRegInfo {
            class: c.unwrap_or(RegClass::R),
        })
        .collect();
    // ABI pins for calls and system calls; explicit fall-through gotos.
    f.blocks = vec![Block::default(); nblocks as usize];
    let mut positions: Vec<Vec<(usize, usize)>> = vec![];
    for (bi, blk) in insts.into_iter().enumerate() {
        let mut pv = vec![];
        for (k, (mut inst, pos, len)) in blk.into_iter().enumerate() {
            if blocks[bi][k].abi {
                abi_pins(t, &f, &mut inst).map_err(|m| PErr::at(pos, len, m))?;
            }
            f.blocks[bi].insts.push(inst);
            pv.push((pos, len));
        }
        let ends = f.blocks[bi]
            .insts
            .last()
            .is_some_and(|i| matches!(i.control(), Control::Jump | Control::Return));
        if !ends {
            if bi + 1 >= nblocks as usize {
                let p = pv.last().map_or(fpos, |x| x.0);
                return Err(PErr::at(
                    p,
                    1,
                    "the last block falls off the end of the function (add a return)",
                ));
            }
            let opc = match t {
                Target::St231 => Opc::St231(simulator::isa::st231::Opcode::Goto),
                Target::St120 => Opc::St120(simulator::isa::st120::Opcode::Goto),
            };
            f.blocks[bi].insts.push(Inst::new(
                opc,
                vec![],
                vec![],
                Imm::Block(BlockId(bi as u32 + 1)),
            ));
        }
        positions.push(pv);
    }
    ssa::construct(&mut f, &st.names).map_err(|e| {
        let (p, l) = positions
            .get(e.block.index())
            .and_then(|v| v.get(e.inst))
            .copied()
            .unwrap_or((fpos, 1));
        PErr::at(p, l, e.message)
    })?;
    let errs = crate::mir::verify::verify_function(&f, Form::Ssa);
    if let Some(e) = errs.first() {
        let (p, l) = match (e.block, e.inst) {
            (Some(b), Some(i)) => positions
                .get(b.index())
                .and_then(|v| {
                    let nphi = f.blocks[b.index()].phi_end();
                    let user_phis = v.len().min(nphi);
                    v.get(i.saturating_sub(nphi - user_phis))
                })
                .copied()
                .unwrap_or((fpos, 1)),
            _ => (fpos, 1),
        };
        let _ = st.text;
        return Err(PErr::at(
            p,
            l,
            format!("invalid machine SSA: {}", e.message),
        ));
    }
    Ok((f, freqs))
}

fn raw(opc: Opc, pos: usize, len: usize) -> RawInst {
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

/// Control role of a statement, judged from its text (for block boundaries).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Other,
    Cond,
    Uncond,
}

fn kind(t: Target, l: &str) -> Kind {
    let (w, rest) = word(l);
    match t {
        Target::St231 => match w {
            "br" | "brf" => Kind::Cond,
            "goto" | "return" | "igoto" => Kind::Uncond,
            _ => Kind::Other,
        },
        Target::St120 => {
            let guard = w.ends_with('?') || w.ends_with('!');
            let op = if guard { word(rest.trim_start()).0 } else { w };
            let op = op.to_ascii_uppercase();
            match (op.as_str(), guard) {
                ("GOTO" | "JUMP", true) => Kind::Cond,
                ("GOTO" | "JUMP" | "RTS", false) => Kind::Uncond,
                _ => Kind::Other,
            }
        }
    }
}

fn label_of(l: &str) -> Option<&str> {
    let n = l.find(|c: char| !is_name_char(c)).unwrap_or(l.len());
    (n > 0 && l[n..].starts_with(':') && !l.starts_with('.')).then(|| &l[..n])
}

/// One operation statement.
fn statement(t: Target, l: &str, pos: usize) -> PResult<RawInst> {
    // Phi: `%d = phi(...)`.
    if let Some(eq) = syntax::find_top(l, '=') {
        let rhs = l[eq + 1..].trim_start();
        if let Some(args) = rhs.strip_prefix("phi") {
            if args.trim_start().starts_with('(') {
                let apos = pos + l.len() - args.len();
                return ops::phi(t, l[..eq].trim(), pos, args, apos);
            }
        }
    }
    match t {
        Target::St231 => {
            let (w, rest) = word(l);
            let rpos = pos + w.len();
            ops::st231_op(w, pos, rest, rpos)
        }
        Target::St120 => {
            let (first, after) = word(l);
            let (guard, l2, p2) = if first.ends_with('?') || first.ends_with('!') {
                let g = &first[..first.len() - 1];
                let r = reg_operand(t, g, pos)?
                    .ok_or_else(|| PErr::at(pos, first.len(), format!("bad guard `{first}`")))?;
                let lead = after.len() - after.trim_start().len();
                (
                    Some((r, first.ends_with('!'))),
                    after.trim_start(),
                    pos + first.len() + lead,
                )
            } else {
                (None, l, pos)
            };
            let (w, rest) = word(l2);
            ops::st120_op(guard, w, p2, rest, p2 + w.len())
        }
    }
}

/// Pins unpinned call/syscall operands to the ABI registers, in order, per class.
fn abi_pins(t: Target, f: &Function, inst: &mut Inst) -> Result<(), String> {
    let mut next: HashMap<RegClass, usize> = HashMap::new();
    for u in inst.uses.iter_mut() {
        let c = f.reg_class(u.reg);
        let k = next.entry(c).or_insert(0);
        if u.pin.is_none() {
            // Stack-passed arguments would need stores to the outgoing area: not in LAI.
            let &r = arg_regs(t, c).get(*k).ok_or_else(|| {
                format!(
                    "argument {} of class {} has no ABI register left (stack arguments are \
                     not supported in LAI; pin it explicitly)",
                    *k + 1,
                    c.suffix()
                )
            })?;
            u.pin = Some(Pin::Phys(PReg::new(c, r)));
        }
        *k += 1;
    }
    for d in inst.defs.iter_mut() {
        if d.pin.is_none() {
            let r = result_reg(t, f.reg_class(d.reg)).ok_or_else(|| {
                format!(
                    "no ABI result register for class {}",
                    f.reg_class(d.reg).suffix()
                )
            })?;
            d.pin = Some(Pin::Phys(r));
        }
    }
    Ok(())
}

/// Register classes of the variables from pins, operand positions, copies and phis.
fn infer_classes(st: &mut Fn<'_>, insts: &[Vec<(Inst, usize, usize)>]) -> PResult<()> {
    let mut changed = true;
    let mut rounds = 0;
    let class_of = |st: &Fn<'_>, r: Reg| match r {
        Reg::V(v) => st.classes[v.index()],
        Reg::P(p) => Some(p.class),
    };
    while changed && rounds < 64 {
        changed = false;
        rounds += 1;
        for (inst, pos, _) in insts.iter().flatten() {
            for o in inst.defs.iter().chain(&inst.uses) {
                if let Some(Pin::Phys(p)) = o.pin {
                    changed |= st.set_class(o.reg, p.class, *pos)?;
                }
                if let Some(Pin::Var(v)) = o.pin {
                    if let Some(c) = class_of(st, o.reg) {
                        changed |= st.set_class(Reg::V(v), c, *pos)?;
                    }
                }
            }
            match inst.opc {
                Opc::Phi | Opc::Copy => {
                    let all: Vec<Reg> = inst.defs.iter().chain(&inst.uses).map(|o| o.reg).collect();
                    if let Some(c) = all.iter().find_map(|&r| class_of(st, r)) {
                        for &r in &all {
                            changed |= st.set_class(r, c, *pos)?;
                        }
                    }
                }
                Opc::St231(_) | Opc::St120(_) => {
                    let sig = signature(st.t, inst);
                    let guarded = inst.flags.contains(InstFlags::GUARDED);
                    for (k, d) in inst.defs.iter().enumerate() {
                        if let Some(c) = sig.def_class(k).and_then(|s| s.single()) {
                            changed |= st.set_class(d.reg, c, *pos)?;
                        }
                    }
                    let n = inst.uses.len() - usize::from(guarded);
                    for (k, u) in inst.uses[..n].iter().enumerate() {
                        if let Some(c) = sig.use_class(k).and_then(|s| s.single()) {
                            changed |= st.set_class(u.reg, c, *pos)?;
                        }
                    }
                    if guarded {
                        changed |= st.set_class(inst.uses[n].reg, RegClass::G, *pos)?;
                    }
                }
                _ => {}
            }
        }
        if !changed {
            // Ambiguous positions (ST231 compare results, call operands): default to R once.
            for (inst, pos, _) in insts.iter().flatten() {
                for o in inst.defs.iter().chain(&inst.uses) {
                    if class_of(st, o.reg).is_none() {
                        changed |= st.set_class(o.reg, RegClass::R, *pos)?;
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn directive_escapes_are_decoded_and_unknown_ones_refused() {
        assert_eq!(
            super::unescape_directive(r"a\nb\tc\\d").unwrap(),
            "a\nb\tc\\d"
        );
        let e = super::unescape_directive(r"x\q").unwrap_err();
        assert!(e.contains(r"\q"), "{e}");
        assert!(super::unescape_directive("trailing\\").is_err());
    }

    use super::*;

    #[test]
    fn diagnostics_are_located_with_a_caret() {
        let src = ".target st231\n.proc main\n    add %a = %b, @@\n    return\n.endp\n";
        let e = parse_lai("t.lai", src, None).unwrap_err();
        assert!(e.short().starts_with("t.lai:3:18"), "{}", e.short());
        let r = e.render();
        assert!(r.contains('^') && r.contains("@@"), "{r}");
    }

    #[test]
    fn non_ssa_input_gets_phis_and_tied_pins() {
        let src = ".target st120\n.proc main\n    MAKE %x, 1\nl:\n    MORE %x, 2\n    ADD %x, %x, 1\n    LTW %c, %x, 100\n    %c! GOTO e\n    GOTO l\ne:\n    .output %x=R0\n    RTS\n.endp\n";
        let m = parse_lai("t.lai", src, None).unwrap();
        let f = &m.functions[0];
        let l = &f.blocks[1];
        assert!(l.insts[0].is_phi(), "{f}");
        let more = &l.insts[1];
        assert_eq!(
            more.uses[0].pin,
            Some(Pin::Var(more.defs[0].vreg().unwrap()))
        );
        assert_ne!(more.uses[0].reg, more.defs[0].reg);
        assert!(verify_module(&m, Form::Ssa).is_empty());
    }

    #[test]
    fn pinned_phis_and_frequencies_are_kept() {
        let src = ".target st120\n.proc main\na:\n    MAKE %x, 1\n    GOTO b\nb:\n    .freq 7\n    %y^R0 = phi(%x:a)\n    .output %y=R0\n    RTS\n.endp\n";
        let m = parse_lai_full("t.lai", src, None).unwrap();
        let phi = &m.module.functions[0].blocks[1].insts[0];
        assert!(phi.is_phi());
        assert_eq!(phi.defs[0].pin, Some(Pin::Phys(PReg::new(RegClass::R, 0))));
        assert_eq!(m.freqs[0], vec![None, Some(7)]);
    }

    #[test]
    fn hint_and_missing_target() {
        let src = ".proc main\n    return\n.endp\n";
        assert!(parse_lai("t.lai", src, Some(Target::St231)).is_ok());
        let e = parse_lai("t.lai", src, None).unwrap_err();
        assert!(e.short().contains("no target"), "{}", e.short());
    }

    #[test]
    fn garbage_never_panics() {
        let junk = [
            ".target st120\n.proc f\n  LDW %a, @(\n.endp",
            ".target st120\n.proc f\n  %g? GOTO x\n.endp",
            ".target st231\n.proc f\n  x:\n x:\n.endp",
            ".target st231\n.proc f\n  %a = phi(%b)\n.endp",
            ".target st231\n.proc f\n  ldw %a = [\n.endp",
            ".target st231\n.word\n",
            ".target st231\n.proc f\n  stw 0[%p] = \n  return\n.endp",
            ".target st120\n.proc f\n  ADD %a, %b\n.endp",
            "\u{0}\u{1}%%%^^^",
        ];
        for j in junk {
            assert!(parse_lai("j.lai", j, None).is_err(), "{j}");
        }
    }
}
