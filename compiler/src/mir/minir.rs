//! Export of machine-level SSA to the LAO's **Minir** YAML (Rastello, de Ferrière and Guillon's
//! Linear Assembly Optimizer, open-sourced as `kalray/lao`; the format is read by its
//! `ECL/LIR/Minir.c`; facts in /work/shared/research/lao-anchor.md §4), so the LAO's
//! out-of-SSA can be run on exactly the function ssalab compiles and its `n_moves` compared
//! with ours.
//!
//! Input: a function in SSA form (`mir::verify::Form::Ssa`: instruction selection's output or
//! a parsed LAI file — before out-of-SSA). Output, per module:
//!
//! ```text
//! SSA: true
//! functions:
//!   - label: f4
//!     bbs:
//!       - label: Block_0
//!         freq: 1
//!         preds: []
//!         succs: [Block_1]
//!         ops:
//!           - {op: _COPY, defs: [V0], uses: [$r16]}        # .input
//!           - {op: _APPLY, defs: [V4], uses: [V0, 1000]}   # mull
//!           - {op: _IFTRUE, uses: [V7], target: Block_2}  # br
//!           - {op: _GOTO, uses: [], target: Block_1}      # goto
//! ```
//!
//! Mapping (one line per rule; every op of the function is accounted for):
//! * blocks: `bN` → `Block_N`, in function order, each with `freq`, `preds` and `succs` (the
//!   CFG made explicit, as Minir requires under SSA); `freq` is the LAI file's `.freq` for
//!   the block when given, else the weight 5^loop-depth our weighted counts use — so the
//!   LAO's `weighted_moves` (sum of `freq` over the copies) is on our scale;
//! * operands: `%N` → `VN`; physical registers `$`-prefixed (`$r12`, `$b0`; ST120 `$R0`,
//!   `$P15`, `$G0`); integer immediates as integers; symbol addresses as `[name, +off]` (plus
//!   `@hi`/`@lo` for ST120 `MAKE`/`MORE` halves), call targets `[name]`, frame objects
//!   `[__frame_fN, +off]`; an immediate is the last use;
//! * **pins** (renaming constraints) → dedicated registers, as the LAO models them: an operand
//!   `%v` pinned to a physical register `R` is written `$R` at the operation, and the value is
//!   connected by an explicit copy — `_COPY $R = Vv` right before the operation for a use,
//!   `_COPY Vv = $R` right after it for a definition. `.input` and `.output` emit no
//!   operation of their own, only these copies (parameters arrive in, results leave through,
//!   the dedicated registers). Tied operands (`Pin::Var`, ST120 2-operand forms) and pins on
//!   phi operands have no Minir spelling: they are written unpinned with a trailing
//!   `# tied`/`# pinned` comment;
//! * operations: `phi` → `_PHI` (uses in the order of the block's `preds`), `copy` → `_COPY`,
//!   `parcopy` → `_PCOPY`, `psi` → `_PSI`, conditional branches → `_IFTRUE` (`_IFFALSE` for
//!   ST231 `brf` and ST120 `GOTO.f`/`JUMP.f`) with `target`, jumps → `_GOTO` with `target`,
//!   returns → `_RETURN`, calls → `_CALL` (callee first in `uses`, the registers a call
//!   clobbers as `implicit_defs`), every other target operation → `_APPLY` with its defs
//!   and uses. Each op line ends with a comment naming our operation (the target mnemonic).
//!   Our blocks end with an explicit `goto` after a conditional branch (no fall-through);
//!   the export keeps both, each with its `target`.
//!
//! **Our counts and the LAO's `n_moves`.** The LAO prints `n_moves` at `SSAForm_destruct`: every
//! `COPY` left after its out-of-SSA, including copies from and into dedicated registers.
//! On an export, that corresponds to our `moves_ssa_out` — copies (`copy` and each
//! component of a `parcopy`, a copy whose source and destination are one physical register
//! excluded) right after our out-of-SSA pass — because both count the copies that make the
//! pinned values meet their dedicated registers (ours: isolation or the pinning passes'
//! repair copies; the LAO's: the `_COPY`s above that its coalescer could not remove).
//! `moves_coalesced` (after the paper's coalescing C) is the figure to hold against an LAO
//! run with a coalescing variant (`FORCE_COALESCING`); `moves_final` (after register
//! allocation, spill code excluded) and the dynamic counts have no LAO counterpart (the LAO
//! has no load/store or cycle counters). The LAO's `weighted_moves` is the sum of the
//! copies' block `freq`; with 5^depth frequencies it is our weighted count of the same stage
//! (`weighted_copies_after` of the out-of-SSA pass in `--time-passes`; the CSV's
//! `weighted_moves` is that of the final code).
//!
//! The exporter reads the LAO only through its documented format (no code of it here). The
//! LAO build here knows only kv3 operators: our target operations are therefore all
//! `_APPLY`, which is enough for its out-of-SSA (only data flow, copies, phis and control
//! matter there). ASSUMPTION: `_APPLY`, `_IFFALSE` and `_PSI` are read as generic operators
//! with any number of operands (the anchor lists `_APPLY` among the generic operators;
//! `_IFFALSE`/`_PSI` by analogy with `_IFTRUE`/`_PHI`).
//!
//! Complexity: linear in the function (plus the loop analysis for the default frequencies).

use super::cfg::CfgInfo;
use super::function::*;
use super::target::{call_clobbers, reg_name};
use simulator::isa::{st120, st231, Target};
use std::fmt::Write;

/// Minir name of a physical register: `$` + its assembly name (ST231 names already have it).
pub fn minir_reg(t: Target, p: PReg) -> String {
    let n = reg_name(t, p);
    if n.starts_with('$') {
        n
    } else {
        format!("${n}")
    }
}

/// Minir name of a block.
pub fn minir_block(b: BlockId) -> String {
    format!("Block_{}", b.0)
}

/// The whole module as one Minir document. `freqs`: per function (module order), per block,
/// a frequency to use instead of 5^loop-depth (LAI `.freq`).
pub fn module_to_minir(m: &Module, freqs: Option<&[Vec<Option<u64>>]>) -> String {
    let mut out = format!(
        "# ssalab machine SSA ({}) in the LAO's Minir form (compiler::mir::minir)\nSSA: true\nfunctions:\n",
        m.target
    );
    for (k, f) in m.functions.iter().enumerate() {
        let fr = freqs.and_then(|v| v.get(k)).map(Vec::as_slice);
        write_function(&mut out, f, fr);
    }
    out
}

/// One function as a Minir `functions:` entry (indented for [`module_to_minir`]).
pub fn function_to_minir(f: &Function, freqs: Option<&[Option<u64>]>) -> String {
    let mut out = String::new();
    write_function(&mut out, f, freqs);
    out
}

fn write_function(out: &mut String, f: &Function, freqs: Option<&[Option<u64>]>) {
    let info = CfgInfo::compute(f);
    let preds = f.predecessors();
    let _ = writeln!(out, "  - label: {}\n    bbs:", f.name);
    for b in f.block_ids() {
        let freq = freqs
            .and_then(|v| v.get(b.index()).copied().flatten())
            .unwrap_or_else(|| info.weight(b));
        let _ = writeln!(
            out,
            "      - label: {}\n        freq: {freq}",
            minir_block(b)
        );
        let _ = writeln!(out, "        preds: [{}]", block_list(&preds[b.index()]));
        let succs = f.block(b).successors();
        let _ = writeln!(out, "        succs: [{}]", block_list(&succs));
        let _ = writeln!(out, "        ops:");
        let mut ops = Vec::new();
        for inst in &f.block(b).insts {
            export_inst(f, inst, &preds[b.index()], &mut ops);
        }
        for op in ops {
            let _ = writeln!(out, "          - {op}");
        }
    }
}

fn block_list(bs: &[BlockId]) -> String {
    bs.iter()
        .map(|&b| minir_block(b))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One Minir operation being built.
struct Op {
    name: &'static str,
    defs: Vec<String>,
    uses: Vec<String>,
    target: Option<BlockId>,
    implicit_defs: Vec<String>,
    comment: String,
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{{op: {}, defs: [{}], uses: [{}]",
            self.name,
            self.defs.join(", "),
            self.uses.join(", ")
        )?;
        if !self.implicit_defs.is_empty() {
            write!(f, ", implicit_defs: [{}]", self.implicit_defs.join(", "))?;
        }
        if let Some(t) = self.target {
            write!(f, ", target: {}", minir_block(t))?;
        }
        write!(f, "}}")?;
        if !self.comment.is_empty() {
            write!(f, "  # {}", self.comment)?;
        }
        Ok(())
    }
}

fn copy_op(def: String, use_: String, comment: &str) -> Op {
    Op {
        name: "_COPY",
        defs: vec![def],
        uses: vec![use_],
        target: None,
        implicit_defs: vec![],
        comment: comment.to_string(),
    }
}

fn reg_text(t: Target, r: Reg) -> String {
    match r {
        Reg::V(v) => format!("V{}", v.0),
        Reg::P(p) => minir_reg(t, p),
    }
}

fn sym_text(name: &str, offset: i32, part: Option<&str>) -> String {
    let mut s = format!("[{name}");
    if offset != 0 {
        let _ = write!(s, ", {offset:+}");
    }
    if let Some(p) = part {
        let _ = write!(s, ", @{p}");
    }
    s.push(']');
    s
}

/// The immediate as a Minir use, if it is one (branch targets and phi blocks are not).
fn imm_text(imm: &Imm) -> Option<String> {
    match imm {
        Imm::None | Imm::Block(_) | Imm::Blocks(_) => None,
        Imm::Int(v) => Some(v.to_string()),
        Imm::Sym { name, offset, part } => Some(sym_text(
            name,
            *offset,
            match part {
                SymPart::Full => None,
                SymPart::Hi16 => Some("hi"),
                SymPart::Lo16 => Some("lo"),
            },
        )),
        Imm::Func(name) => Some(sym_text(name, 0, None)),
        Imm::Frame { idx, offset } => Some(sym_text(&format!("__frame_f{}", idx.0), *offset, None)),
    }
}

/// The Minir operator of a (non-marker) instruction and our name for it.
fn op_name(inst: &Inst) -> (&'static str, String) {
    let ours = super::print::opc_name(inst.opc);
    let name = match inst.opc {
        Opc::Phi => "_PHI",
        Opc::Copy => "_COPY",
        Opc::ParCopy => "_PCOPY",
        Opc::Psi => "_PSI",
        Opc::Input | Opc::Output => "_APPLY",
        Opc::St231(_) | Opc::St120(_) => match inst.control() {
            Control::CondBranch if branches_on_false(inst.opc) => "_IFFALSE",
            Control::CondBranch => "_IFTRUE",
            Control::Jump => "_GOTO",
            Control::Return => "_RETURN",
            Control::Call => "_CALL",
            Control::None => "_APPLY",
        },
    };
    (name, ours)
}

fn branches_on_false(opc: Opc) -> bool {
    matches!(
        opc,
        Opc::St231(st231::Opcode::Brf) | Opc::St120(st120::Opcode::GotoF | st120::Opcode::JumpF)
    )
}

/// The Minir operations of one instruction: copies into dedicated registers, the operation
/// itself (none for `.input`/`.output`), copies out of dedicated registers.
fn export_inst(f: &Function, inst: &Inst, preds: &[BlockId], out: &mut Vec<Op>) {
    let t = f.target;
    let start = out.len();
    let marker = matches!(inst.opc, Opc::Input | Opc::Output);
    let (name, ours) = op_name(inst);
    let mut notes: Vec<String> = Vec::new();
    if inst.is_phi() {
        // Uses follow the block's `preds`; pins on phi operands have no Minir spelling.
        let mut uses = vec![String::new(); preds.len()];
        for (b, u) in inst.phi_blocks().iter().zip(&inst.uses) {
            match preds.iter().position(|p| p == b) {
                Some(i) => uses[i] = reg_text(t, u.reg),
                None => notes.push(format!("edge from {} is not a CFG edge", minir_block(*b))),
            }
        }
        for o in inst.defs.iter().chain(&inst.uses) {
            if let Some(pin) = o.pin {
                notes.push(format!(
                    "pinned {}^{}",
                    reg_text(t, o.reg),
                    pin_text(t, pin)
                ));
            }
        }
        let defs = inst.defs.iter().map(|o| reg_text(t, o.reg)).collect();
        notes.insert(0, ours);
        out.push(Op {
            name,
            defs,
            uses,
            target: None,
            implicit_defs: vec![],
            comment: notes.join("; "),
        });
        return;
    }
    let terminator = inst.is_terminator();
    let mut uses = Vec::with_capacity(inst.uses.len() + 2);
    if inst.control() == Control::Call {
        if let Some(callee) = imm_text(&inst.imm) {
            uses.push(callee);
        }
    }
    for o in &inst.uses {
        match (o.reg, o.pin) {
            (Reg::V(_), Some(Pin::Phys(p))) => {
                let r = minir_reg(t, p);
                out.push(copy_op(
                    r.clone(),
                    reg_text(t, o.reg),
                    &format!("pin of {ours}"),
                ));
                uses.push(r);
            }
            (_, Some(Pin::Var(v))) => {
                notes.push(format!("tied {}^V{}", reg_text(t, o.reg), v.0));
                uses.push(reg_text(t, o.reg));
            }
            _ => uses.push(reg_text(t, o.reg)),
        }
    }
    if inst.control() != Control::Call {
        uses.extend(imm_text(&inst.imm));
    }
    let mut defs = Vec::with_capacity(inst.defs.len());
    let mut after = Vec::new();
    for o in &inst.defs {
        match (o.reg, o.pin) {
            (Reg::V(_), Some(Pin::Phys(p))) if !terminator => {
                let r = minir_reg(t, p);
                after.push(copy_op(
                    reg_text(t, o.reg),
                    r.clone(),
                    &format!("pin of {ours}"),
                ));
                defs.push(r);
            }
            (_, Some(pin)) => {
                notes.push(format!(
                    "pinned {}^{}",
                    reg_text(t, o.reg),
                    pin_text(t, pin)
                ));
                defs.push(reg_text(t, o.reg));
            }
            _ => defs.push(reg_text(t, o.reg)),
        }
    }
    if marker {
        // `.input`/`.output` are only their dedicated-register copies; an operand without a
        // pin (not produced by isel or the LAI parser) is recorded in a comment.
        let loose: Vec<String> = inst
            .defs
            .iter()
            .chain(&inst.uses)
            .filter(|o| !matches!((o.reg, o.pin), (Reg::V(_), Some(Pin::Phys(_)))))
            .map(|o| reg_text(t, o.reg))
            .collect();
        if !loose.is_empty() {
            if let Some(first) = out[start..].first_mut().or(after.first_mut()) {
                let _ = write!(first.comment, "; {ours} also names {}", loose.join(", "));
            }
        }
        out.extend(after);
        return;
    }
    let implicit_defs = if inst.control() == Control::Call {
        call_clobbers(t).iter().map(|&p| minir_reg(t, p)).collect()
    } else {
        Vec::new()
    };
    if inst.flags.contains(InstFlags::GUARDED) {
        notes.push("guarded: last use is the guard".into());
    }
    notes.insert(0, ours);
    out.push(Op {
        name,
        defs,
        uses,
        target: inst.branch_target(),
        implicit_defs,
        comment: notes.join("; "),
    });
    out.extend(after);
}

fn pin_text(t: Target, pin: Pin) -> String {
    match pin {
        Pin::Phys(p) => minir_reg(t, p),
        Pin::Var(v) => format!("V{}", v.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::RegClass;
    use simulator::isa::st231::Opcode as O;

    /// `f(a) { loop: x = phi(a, y); y = x + 1; if (y < 10) goto loop; return y }`.
    fn looped() -> Function {
        let mut f = Function::new("f", Target::St231);
        let b1 = f.new_block();
        let b2 = f.new_block();
        let a = f.new_vreg(RegClass::R);
        let x = f.new_vreg(RegClass::R);
        let y = f.new_vreg(RegClass::R);
        let c = f.new_vreg(RegClass::B);
        let r16 = Pin::Phys(PReg::new(RegClass::R, 16));
        let goto = |b| Inst::new(Opc::St231(O::Goto), vec![], vec![], Imm::Block(b));
        f.push(
            BlockId(0),
            Inst::new(Opc::Input, vec![Operand::pinned(a, r16)], vec![], Imm::None),
        );
        f.push(BlockId(0), goto(b1));
        f.push(b1, Inst::phi(x, vec![(BlockId(0), a), (b1, y)]));
        f.push(
            b1,
            Inst::new(
                Opc::St231(O::Add),
                vec![y.into()],
                vec![x.into()],
                Imm::Int(1),
            ),
        );
        f.push(
            b1,
            Inst::new(
                Opc::St231(O::Cmplt),
                vec![c.into()],
                vec![y.into()],
                Imm::Int(10),
            ),
        );
        f.push(
            b1,
            Inst::new(Opc::St231(O::Br), vec![], vec![c.into()], Imm::Block(b1)),
        );
        f.push(b1, goto(b2));
        f.push(
            b2,
            Inst::new(
                Opc::Output,
                vec![],
                vec![Operand::pinned(y, r16)],
                Imm::None,
            ),
        );
        f.push(
            b2,
            Inst::new(Opc::St231(O::Igoto), vec![], vec![], Imm::None),
        );
        f
    }

    #[test]
    fn exports_blocks_pins_and_phis() {
        let text = function_to_minir(&looped(), None);
        let expect = [
            "  - label: f",
            "      - label: Block_0",
            "        freq: 1",
            "        preds: []",
            "        succs: [Block_1]",
            "          - {op: _COPY, defs: [V0], uses: [$r16]}  # pin of .input",
            "          - {op: _GOTO, defs: [], uses: [], target: Block_1}  # goto",
            "      - label: Block_1",
            "        freq: 5",
            "        preds: [Block_0, Block_1]",
            "        succs: [Block_1, Block_2]",
            "          - {op: _PHI, defs: [V1], uses: [V0, V2]}  # phi",
            "          - {op: _APPLY, defs: [V2], uses: [V1, 1]}  # add",
            "          - {op: _IFTRUE, defs: [], uses: [V3], target: Block_1}  # br",
            "        freq: 1",
            "          - {op: _COPY, defs: [$r16], uses: [V2]}  # pin of .output",
            "          - {op: _RETURN, defs: [], uses: []}  # igoto",
        ];
        let lines: Vec<&str> = text.lines().collect();
        let mut at = 0;
        for e in expect {
            match lines[at..].iter().position(|l| *l == e) {
                Some(k) => at += k + 1,
                None => panic!("missing (in order) {e:?} in\n{text}"),
            }
        }
        // Every line is either structure or one op; ops: 2 + 5 + 2.
        assert_eq!(
            text.lines().filter(|l| l.contains("{op: ")).count(),
            9,
            "{text}"
        );
    }

    #[test]
    fn phi_uses_follow_preds_and_frequencies_override() {
        let mut f = looped();
        // Swap the phi's incoming order: the export still follows `preds`.
        let phi = &mut f.blocks[1].insts[0];
        phi.uses.reverse();
        if let Imm::Blocks(b) = &mut phi.imm {
            b.reverse();
        }
        let text = function_to_minir(&f, Some(&[Some(7), Some(100), None]));
        assert!(
            text.contains("{op: _PHI, defs: [V1], uses: [V0, V2]}"),
            "{text}"
        );
        assert!(
            text.contains("freq: 7") && text.contains("freq: 100"),
            "{text}"
        );
    }

    #[test]
    fn symbols_frames_and_registers() {
        assert_eq!(
            imm_text(&Imm::Sym {
                name: "tab".into(),
                offset: -4,
                part: SymPart::Hi16
            })
            .unwrap(),
            "[tab, -4, @hi]"
        );
        assert_eq!(
            imm_text(&Imm::Frame {
                idx: FrameIdx(2),
                offset: 8
            })
            .unwrap(),
            "[__frame_f2, +8]"
        );
        assert_eq!(imm_text(&Imm::Func("g".into())).unwrap(), "[g]");
        assert_eq!(minir_reg(Target::St120, PReg::new(RegClass::P, 15)), "$P15");
        assert_eq!(minir_reg(Target::St231, PReg::new(RegClass::B, 1)), "$b1");
    }
}
