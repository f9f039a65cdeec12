//! Export of machine-level SSA to the LAO's **Minir** YAML (Rastello, de Ferrière and Guillon's
//! Linear Assembly Optimizer, open-sourced as `kalray/lao`), so the LAO's out-of-SSA can be run
//! on exactly the function ssalab compiles and its `n_moves` compared with ours; [`read`]
//! reads the export back, [`check`] holds it against the rules of the LAO's reader, and
//! [`import`] rebuilds the machine function from it (the round trip of `tests/minir.rs`).
//! The mapping of our counts onto the LAO's is in `docs/minir.md`.
//!
//! Input: a function in SSA form (`mir::verify::Form::Ssa`: instruction selection's output or
//! a parsed LAI file — before out-of-SSA). Output, per module:
//!
//! ```text
//! SSA: true
//! functions:
//!   - label: f
//!     # dedicated-register copies: 2
//!     bbs:
//!       - label: BB0
//!         freq: 1
//!         preds: []
//!         succs: [BB1]
//!         ops:
//!           - {op: _COPY, defs: [V0], uses: [$r16]}  # pin of .input
//!           - {op: _GOTO, defs: [], uses: [BB1], target: BB1}  # goto
//!       - label: BB1
//!         freq: 5
//!         preds: [BB0, BB1]
//!         succs: [BB2, BB1]
//!         ops:
//!           - {op: _PHI, defs: [V1], uses: [V0, V2]}  # phi
//!           - {op: _APPLY, defs: [V2], uses: [V1, 1]}  # add
//!           - {op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}  # br; then goto
//! ```
//!
//! # What the LAO's reader accepts (facts read in `kalray/lao`, `LAO/ECL/LIR/Minir.c`, and the
//! operator table `LAO/kvx/kv3/Operator.tuple`)
//!
//! * **Document** (`Minir_parseProgram`): a mapping with `SSA: true|false` (only the words
//!   `true`/`false`), `functions:` (a sequence), optional `label`/`file`, `arch`,
//!   `keep index`, `objects`. Unknown keys give a warning.
//! * **Function** (`Minir_parseFunction`): `label` (or `function`) and `bbs` (or
//!   `body`/`blocks`); optional `test`, `entries` (at most one, the first block), `exits`,
//!   `frame`, `objects`, `section`, `align`, `linkage`, `fixed frame`, `args size`.
//! * **Block** (`Minir_newBasicBlock`): a mapping whose **first** key is `label` (or `block`);
//!   `freq` (a float, default 0), `succs`, `preds`, `ops`, `labels`, `loop`, `flags`. **Block
//!   names** (`Minir_bbIndexOfName`): one alphabetic prefix shared by the whole program, then a
//!   non-negative integer (base 0); the prefix `Block_` is rejected.
//! * **Control flow** (`Minir_connectBasicBlocks`): once a block has `succs` or `preds`, edges
//!   come only from those lists (a repeated edge is made once; no fall-through edge is added,
//!   and nothing checks that a conditional branch's other successor is the next block); under
//!   `SSA: true` every block needs `succs` or `preds`. A block with phis needs `preds` listing
//!   exactly its entering edges in the order `BasicBlock_makeEnterEdges(.., true)` sorts them,
//!   by origin block (position in `bbs`); phi uses follow `preds`
//!   (`Minir_parseBasicBlockOperations`).
//! * **Operations** (`Minir_parseOperation`): `op`, `defs`, `uses`, optional `target`,
//!   `freq`, `fallthru`, `implicit_defs`/`clobbers`, `node`, `flags`. The operator's parameter
//!   table fixes the number of defs and uses unless it is a list: `_APPLY` has **exactly one**
//!   result and a list of uses, `_PHI`/`_PSI` one result and a list, `_PCOPY` lists, `_COPY`
//!   1/1, `_GOTO` 0/1, `_IFTRUE` 0/2, `_CALL` 0/1, `_RETURN` 0/0; too few items throws
//!   "Trying to get a definition but no more item!", too many "There remains %d parameters
//!   unused". No generic operator has zero results and a list of uses. **A control operation
//!   (`_GOTO`, `_IFTRUE`, `_CALL`, `_RETURN`, …) must be the last of its block.**
//! * **Operands** (`Minir_parseTemporary`): `$name` a dedicated register of the processor,
//!   `V<n>` a virtual (an SSA variable under `SSA: true`), an integer an immediate, a block
//!   name a label, a flow sequence `[sym, +off, '@reloc']` a symbol.
//! * **SSA input** (`SSAForm_constructAfterMinir`): the SSA form is taken as written — no
//!   SSA construction, so no folding or dead-code cleaning of the input. `SSAForm_destruct`
//!   then requires every phi operand to be a variable (`SSAForm_makeConventional`): a
//!   dedicated register cannot be a phi result. Pins (`Variable` `PINNED`) have no Minir
//!   syntax: the reader only knows dedicated registers.
//!
//! # The mapping
//!
//! * **Blocks**: our block `bN` is `BBN`, in order, and nothing else: the control-flow graph
//!   is ours, edge for edge. `preds` are our predecessors in block order (the LAO's
//!   entering-edge order), `succs` our successors with the fall-through first (the LAO takes
//!   the first leaving edge as the fall-through edge); `freq` is the LAI file's `.freq` for
//!   the block when given, else 5^loop-depth.
//! * **Terminators**: `goto L` → `_GOTO [L]`; `br c, T; goto F` → `_IFTRUE [c, T]` with
//!   `succs: [F, T]` (F need not be the next block: no jump block is added);
//!   `brf c, T; goto F` → `_IFTRUE [c, F]`, `succs: [T, F]`; `br c, T; goto T` → `_IFTRUE
//!   [c, T]`, `succs: [T]`; returns → `_RETURN`.
//! * **Operations**: `phi` → `_PHI` (uses in `preds` order), `copy` → `_COPY`, `parcopy` →
//!   `_PCOPY`, `psi` → `_PSI`, every other target operation, calls included, → `_APPLY`
//!   (calls are not `_CALL`, which is control and would have to end the block, splitting
//!   ours). An `_APPLY` has exactly one result: an operation without one (stores, `syscall`,
//!   calls without a register result, …) gets a fresh variable `V<n>` never used anywhere,
//!   `n` ≥ our vreg count (the function comment `# fresh results from V<n>` says where they
//!   start); one with several results becomes one `_APPLY` per result, the first reading all
//!   the uses; pinned phi results take fresh variables too (below). Each line ends with a
//!   comment naming our operation.
//! * **Operands**: `%N` → `VN`; ST231 `$r0` (reads as zero) as a use → `0`; other physical
//!   registers `$`-prefixed (`$r12`, `$b0`; ST120 `$R0`, `$P15`, `$G0`); immediates last:
//!   integers, symbol addresses `[name, +off]` (plus `'@hi'`/`'@lo'`), callees `[name]`,
//!   frame objects `[__frame_fN, +off]`.
//! * **Pins** → dedicated registers, as the LAO's inputs model constraints: a use `%v^R` is
//!   written `$R` at the operation after `_COPY $R = Vv`; a definition `%v^R` is written `$R`,
//!   followed by `_COPY Vv = $R`; `.input`/`.output` are only these copies; a call reads only
//!   its callee, its argument and result registers appear in these copies. A **pinned phi
//!   result** `%x^R = phi(…)` is exported as our out-of-SSA translations take it
//!   (`out_of_ssa::isolate_pinned_phi_results`: the phi defines a fresh `x'`, and the pinned
//!   copy `x^R = x'` follows the block's phis): `_PHI [V'] = …` with a fresh `V'`, then after
//!   the phis `_COPY $R = V'` and `_COPY Vx = $R` (a dedicated register cannot be a phi
//!   result in the LAO). Tied operands (`Pin::Var`, ST120 two-operand forms) and pinned phi
//!   *arguments* have no Minir spelling: comments only.
//!
//! # Gaps (what the LAO needs and we cannot give)
//!
//! * Target operations: the LAO build knows kv3 operators only, so ours are `_APPLY`; out-of-SSA
//!   only looks at data flow, copies, phis and control, which this keeps.
//! * Registers: the reader resolves `$name` in the kv3 register file. ST231 `$r0`–`$r63`
//!   coincide in spelling with kv3's GPRs; ST231 `$b` and all ST120 names (`$R`, `$P`, `$G`)
//!   do not exist there (`implicit_defs` keeps only `$r` names; the rest is in the comment).
//! * Tied operands and pinned phi arguments (comments only, see above).
//!
//! The exporter reads the LAO only through its documented format (no code of it here).
//! Complexity: linear in the function (plus the loop analysis for the default frequencies).

use super::cfg::CfgInfo;
use super::function::*;
use super::print::opc_name;
use super::target::{call_clobbers, reg_name};
use simulator::isa::{st120, st231, Target};
use std::fmt::Write;

pub mod check;
pub mod import;
pub mod read;

/// Words of the comments that [`import`] reads back (the LAO ignores comments).
pub(crate) mod note {
    /// Function comment: `# fresh results from V<n>`: every `V<k>` with `k >= n` is the
    /// never-used result given to an operation that has none in ours.
    pub const FRESH: &str = "fresh results from V";
    /// Copy comment: `pin of <operation>` (a dedicated-register copy standing for a pin).
    pub const PIN_OF: &str = "pin of ";
    /// Comment of a phi whose result is pinned (its `_PHI` writes a fresh variable) and of
    /// the two copies after the phis: `pinned phi result V<x>^$R`.
    pub const PHI_RESULT: &str = "pinned phi result ";
    /// Operation comment: `result <i> of <n>` (one `_APPLY` per result of ours).
    pub const RESULT: &str = "result ";
    /// Call comment: the call's own operand lists.
    pub const READS: &str = "reads";
    pub const WRITES: &str = "writes";
    /// Operation comment: `use <k> is $r0` (ST231 `$r0` written as the immediate 0).
    pub const ZERO: &str = " is $r0";
    pub const TIED: &str = "tied ";
    pub const PINNED: &str = "pinned ";
    pub const GUARDED: &str = "guarded";
    /// Conditional branch comment: `then <goto>` (the jump of ours that follows it).
    pub const THEN: &str = "then ";
    pub const ON_FALSE: &str = "on false";
}

/// Minir name of a physical register: `$` + its assembly name (ST231 names already have it).
pub fn minir_reg(t: Target, p: PReg) -> String {
    let n = reg_name(t, p);
    if n.starts_with('$') {
        n
    } else {
        format!("${n}")
    }
}

/// Minir name of our block `b`. The LAO rejects the prefix `Block_` (`Minir_bbIndexOfName`).
pub fn minir_block(b: BlockId) -> String {
    format!("BB{}", b.0)
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

/// One Minir operation.
struct Op {
    name: &'static str,
    defs: Vec<String>,
    uses: Vec<String>,
    target: Option<String>,
    implicit_defs: Vec<String>,
    comment: String,
}

impl Op {
    fn new(name: &'static str, defs: Vec<String>, uses: Vec<String>, comment: String) -> Op {
        Op {
            name,
            defs,
            uses,
            target: None,
            implicit_defs: Vec::new(),
            comment,
        }
    }

    fn is_dedicated_copy(&self) -> bool {
        self.name == "_COPY"
            && self
                .defs
                .iter()
                .chain(&self.uses)
                .any(|o| o.starts_with('$'))
    }
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
        if let Some(t) = &self.target {
            write!(f, ", target: {t}")?;
        }
        write!(f, "}}")?;
        if !self.comment.is_empty() {
            write!(f, "  # {}", self.comment)?;
        }
        Ok(())
    }
}

/// One Minir block: our block, its operations and its successors (fall-through first).
struct MBlock {
    ops: Vec<Op>,
    succs: Vec<BlockId>,
}

/// The state of one function's export: the next fresh result number.
struct Exporter<'a> {
    f: &'a Function,
    t: Target,
    fresh_base: u32,
    next_fresh: u32,
}

fn write_function(out: &mut String, f: &Function, freqs: Option<&[Option<u64>]>) {
    let info = CfgInfo::compute(f);
    let preds = f.predecessors();
    let base = f.vregs.len() as u32;
    let mut ex = Exporter {
        f,
        t: f.target,
        fresh_base: base,
        next_fresh: base,
    };
    let blocks: Vec<MBlock> = f
        .block_ids()
        .map(|b| ex.block(b, &preds[b.index()]))
        .collect();
    let dedicated = blocks
        .iter()
        .flat_map(|b| &b.ops)
        .filter(|o| o.is_dedicated_copy())
        .count();
    let _ = writeln!(
        out,
        "  - label: {}\n    # dedicated-register copies: {dedicated}",
        f.name
    );
    if ex.next_fresh > ex.fresh_base {
        let _ = writeln!(out, "    # {}{}", note::FRESH, ex.fresh_base);
    }
    let _ = writeln!(out, "    bbs:");
    let names = |v: &[BlockId]| v.iter().map(|&b| minir_block(b)).collect::<Vec<_>>();
    for (b, mb) in f.block_ids().zip(&blocks) {
        let freq = freqs
            .and_then(|v| v.get(b.index()).copied().flatten())
            .unwrap_or_else(|| info.weight(b));
        let _ = writeln!(out, "      - label: {}", minir_block(b));
        let _ = writeln!(out, "        freq: {freq}");
        let _ = writeln!(
            out,
            "        preds: [{}]",
            names(&preds[b.index()]).join(", ")
        );
        let _ = writeln!(out, "        succs: [{}]", names(&mb.succs).join(", "));
        let _ = writeln!(out, "        ops:");
        for op in &mb.ops {
            let _ = writeln!(out, "          - {op}");
        }
    }
}

/// The register a phi's result is pinned to, if any.
fn pinned_phi_reg(phi: &Inst) -> Option<PReg> {
    match phi.defs.first() {
        Some(Operand {
            reg: Reg::V(_),
            pin: Some(Pin::Phys(p)),
        }) => Some(*p),
        _ => None,
    }
}

impl Exporter<'_> {
    /// Our block `b`: its phis, its operations, its terminators. A phi whose result `x` is
    /// pinned to `R` is exported as our out-of-SSA translations take it
    /// (`out_of_ssa::isolate_pinned_phi_results`): the phi writes a fresh variable `x'`, and
    /// after the block's phis the pinned copy `x^R = x'` is written as a definition pin:
    /// `_COPY $R = x'`, then `_COPY x = $R` (a dedicated register cannot be a phi result in
    /// the LAO).
    fn block(&mut self, b: BlockId, preds: &[BlockId]) -> MBlock {
        let (f, t) = (self.f, self.t);
        let insts = &f.block(b).insts;
        let phi_end = f.block(b).phi_end();
        let term_at = f.block(b).terminator_start().max(phi_end);
        let mut ops = Vec::with_capacity(insts.len());
        let mut pins = Vec::new();
        for phi in &insts[..phi_end] {
            let mut op = export_phi(t, phi, preds);
            if let Some(r) = pinned_phi_reg(phi) {
                let x = reg_text(t, phi.defs[0].reg);
                let reg = minir_reg(t, r);
                let fresh = self.fresh();
                let c = format!("{}{x}^{reg}", note::PHI_RESULT);
                let _ = write!(op.comment, "; {c}");
                op.defs = vec![fresh.clone()];
                pins.push(copy_op(reg.clone(), fresh, &c));
                pins.push(copy_op(x, reg, &c));
            }
            ops.push(op);
        }
        ops.extend(pins);
        for inst in &insts[phi_end..term_at] {
            let ex = export_inst(f, inst);
            ops.extend(ex.before);
            ops.extend(
                ex.op
                    .map(|op| self.one_result_each(op))
                    .into_iter()
                    .flatten(),
            );
            ops.extend(ex.after);
        }
        let succs = export_terminators(f, &insts[term_at..], &mut ops);
        MBlock { ops, succs }
    }

    /// A fresh variable, never used in ours.
    fn fresh(&mut self) -> String {
        self.next_fresh += 1;
        format!("V{}", self.next_fresh - 1)
    }

    /// The LAO's `_APPLY` has exactly one result (`Operator.tuple`: WRITECOUNT(1), and the
    /// reader throws on a missing one): an operation without a result gets a fresh,
    /// never-used variable; one with `n > 1` results becomes `n` `_APPLY`s, the first
    /// reading every use and writing the first result, the others reading nothing (so that
    /// the uses die and all the results are born at the same place as in ours).
    fn one_result_each(&mut self, mut op: Op) -> Vec<Op> {
        if op.name != "_APPLY" {
            return vec![op];
        }
        match op.defs.len() {
            0 => {
                op.defs.push(self.fresh());
                vec![op]
            }
            1 => vec![op],
            n => {
                let defs = std::mem::take(&mut op.defs);
                let mut out = Vec::with_capacity(n);
                for (i, d) in defs.into_iter().enumerate() {
                    let comment = format!("{}; {}{} of {n}", op.comment, note::RESULT, i + 1);
                    let uses = if i == 0 {
                        std::mem::take(&mut op.uses)
                    } else {
                        Vec::new()
                    };
                    let mut o = Op::new("_APPLY", vec![d], uses, comment);
                    if i == 0 {
                        o.implicit_defs = std::mem::take(&mut op.implicit_defs);
                    }
                    out.push(o);
                }
                out
            }
        }
    }
}

fn goto_op(to: BlockId, comment: String) -> Op {
    let mut op = Op::new("_GOTO", vec![], vec![minir_block(to)], comment);
    op.target = Some(minir_block(to));
    op
}

/// Exports a block's terminators into `ops`; returns the block's Minir successors, the
/// fall-through (the `goto` after a conditional branch) first, as the LAO takes the first
/// leaving edge as the fall-through edge. The fall-through need not be the next block: with
/// explicit `succs`/`preds` the reader makes edges from those lists only, so no jump block
/// is added.
fn export_terminators(f: &Function, terms: &[Inst], ops: &mut Vec<Op>) -> Vec<BlockId> {
    match terms {
        [] => vec![],
        [j] if j.control() == Control::Jump && j.branch_target().is_some() => {
            let to = j.branch_target().unwrap();
            ops.push(goto_op(to, opc_name(j.opc)));
            vec![to]
        }
        [r] if r.control() == Control::Return => {
            let ex = export_inst(f, r);
            ops.extend(ex.before);
            let mut op = Op::new("_RETURN", vec![], vec![], opc_name(r.opc));
            let regs: Vec<String> = r.uses.iter().map(|o| reg_text(f.target, o.reg)).collect();
            if !regs.is_empty() {
                let _ = write!(op.comment, "; {} {}", note::READS, regs.join(", "));
            }
            ops.push(op);
            vec![]
        }
        [br, j]
            if br.control() == Control::CondBranch
                && j.control() == Control::Jump
                && br.branch_target().is_some()
                && j.branch_target().is_some() =>
        {
            let (t, g) = (br.branch_target().unwrap(), j.branch_target().unwrap());
            let on_false = branches_on_false(br.opc);
            // `brf c, T; goto F` ≡ `br c, F; goto T`: no `_IFFALSE` needed.
            let (taken, fall) = if on_false { (g, t) } else { (t, g) };
            let ex = export_inst(f, br);
            ops.extend(ex.before);
            let mut op = ex.op.expect("a branch is an operation");
            op.name = "_IFTRUE";
            op.defs.clear();
            op.uses.push(minir_block(taken));
            op.target = Some(minir_block(taken));
            let _ = write!(op.comment, "; {}{}", note::THEN, opc_name(j.opc));
            if on_false {
                let _ = write!(
                    op.comment,
                    "; {}: taken/fall-through swapped",
                    note::ON_FALSE
                );
            }
            ops.push(op);
            if t == g {
                // Both ways to one block: one edge (the reader makes a repeated edge once).
                let _ = write!(op_last(ops).comment, "; both ways to b{}", t.0);
                vec![t]
            } else {
                vec![fall, taken]
            }
        }
        _ => {
            // Not produced by isel or the LAI parser; exported operation by operation.
            let mut succs = Vec::new();
            for t in terms {
                let ex = export_inst(f, t);
                ops.extend(ex.before);
                ops.extend(ex.op.map(|mut o| {
                    o.comment.push_str("; unusual terminator sequence");
                    o
                }));
                ops.extend(ex.after);
                if let Some(to) = t.branch_target() {
                    if !succs.contains(&to) {
                        succs.push(to);
                    }
                }
            }
            succs
        }
    }
}

fn op_last(ops: &mut [Op]) -> &mut Op {
    ops.last_mut().expect("an operation was just pushed")
}

fn reg_text(t: Target, r: Reg) -> String {
    match r {
        Reg::V(v) => format!("V{}", v.0),
        Reg::P(p) => minir_reg(t, p),
    }
}

/// ST231 `$r0` (reads as zero).
fn is_st231_zero(t: Target, r: Reg) -> bool {
    matches!(r, Reg::P(p) if t == Target::St231 && p.class == super::target::RegClass::R && p.num == 0)
}

/// A register as a use: ST231 `$r0` reads as zero (isa.md), while kv3's `$r0` is an ordinary
/// register, so it is written as the immediate `0` (the LAO's constants are `_APPLY`s of
/// immediates, as in `_APPLY [V100] = [1]`).
fn use_text(t: Target, r: Reg) -> String {
    if is_st231_zero(t, r) {
        "0".to_string()
    } else {
        reg_text(t, r)
    }
}

fn sym_text(name: &str, offset: i32, part: Option<&str>) -> String {
    let mut s = format!("[{name}");
    if offset != 0 {
        let _ = write!(s, ", {offset:+}");
    }
    if let Some(p) = part {
        // `@` cannot start a plain YAML scalar: quoted, as in the LAO's `LIR/0/Minir.0`.
        let _ = write!(s, ", '@{p}'");
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

/// The Minir operator of a (non-marker, non-terminator) instruction. Calls are `_APPLY`s:
/// the LAO's `_CALL` is a control operator and must end its block, which would split ours.
fn op_name(inst: &Inst) -> &'static str {
    match inst.opc {
        Opc::Phi => "_PHI",
        Opc::Copy => "_COPY",
        Opc::ParCopy => "_PCOPY",
        Opc::Psi => "_PSI",
        _ => match inst.control() {
            Control::Return => "_RETURN",
            _ => "_APPLY",
        },
    }
}

fn branches_on_false(opc: Opc) -> bool {
    matches!(
        opc,
        Opc::St231(st231::Opcode::Brf) | Opc::St120(st120::Opcode::GotoF | st120::Opcode::JumpF)
    )
}

/// A register the kv3 build of the LAO can name (`$r0`–`$r63`).
pub fn kv3_nameable(name: &str) -> bool {
    name.strip_prefix("$r")
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| n < 64 && (n == 0 || !name[2..].starts_with('0')))
}

/// The Minir operations of one instruction: copies into dedicated registers, the operation
/// itself (none for `.input`/`.output`), copies out of dedicated registers.
struct Exported {
    before: Vec<Op>,
    op: Option<Op>,
    after: Vec<Op>,
}

fn export_inst(f: &Function, inst: &Inst) -> Exported {
    let t = f.target;
    let ours = opc_name(inst.opc);
    let marker = matches!(inst.opc, Opc::Input | Opc::Output);
    let call = inst.control() == Control::Call;
    let mut notes: Vec<String> = Vec::new();
    let mut before = Vec::new();
    let mut uses = Vec::with_capacity(inst.uses.len() + 2);
    for (k, o) in inst.uses.iter().enumerate() {
        match (o.reg, o.pin) {
            (Reg::V(_), Some(Pin::Phys(p))) => {
                let r = minir_reg(t, p);
                before.push(copy_op(
                    r.clone(),
                    reg_text(t, o.reg),
                    &format!("{}{ours}", note::PIN_OF),
                ));
                uses.push(r);
            }
            (_, Some(Pin::Var(v))) => {
                notes.push(format!("{}{}^V{}", note::TIED, reg_text(t, o.reg), v.0));
                uses.push(reg_text(t, o.reg));
            }
            _ => {
                if is_st231_zero(t, o.reg) {
                    notes.push(format!("use {k}{}", note::ZERO));
                }
                uses.push(use_text(t, o.reg));
            }
        }
    }
    uses.extend(imm_text(&inst.imm));
    let mut defs = Vec::with_capacity(inst.defs.len());
    let mut after = Vec::new();
    for o in &inst.defs {
        match (o.reg, o.pin) {
            (Reg::V(_), Some(Pin::Phys(p))) => {
                let r = minir_reg(t, p);
                after.push(copy_op(
                    reg_text(t, o.reg),
                    r.clone(),
                    &format!("{}{ours}", note::PIN_OF),
                ));
                defs.push(r);
            }
            (_, Some(pin)) => {
                notes.push(format!(
                    "{}{}^{}",
                    note::PINNED,
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
            if let Some(first) = before.first_mut().or(after.first_mut()) {
                let _ = write!(first.comment, "; {ours} also names {}", loose.join(", "));
            }
        }
        return Exported {
            before,
            op: None,
            after,
        };
    }
    if inst.flags.contains(InstFlags::GUARDED) {
        notes.push(format!("{}: last register use is the guard", note::GUARDED));
    }
    notes.insert(0, ours);
    let mut op = Op::new(op_name(inst), defs, uses, String::new());
    if call {
        call_shape(t, inst, &mut op, &mut notes);
    }
    op.comment = notes.join("; ");
    Exported {
        before,
        op: Some(op),
        after,
    }
}

/// A call as the LAO's inputs write it: it reads only its callee (`[name]`); the registers
/// it reads and writes travel through the dedicated-register copies around it and are
/// listed in the comment (`reads …; writes …`), the kv3-nameable clobbers in `implicit_defs`.
fn call_shape(t: Target, inst: &Inst, op: &mut Op, notes: &mut Vec<String>) {
    let regs = std::mem::take(&mut op.uses);
    let callee = imm_text(&inst.imm);
    let (callee, args): (String, &[String]) = match callee {
        Some(c) => (c, &regs[..regs.len() - 1]),
        // Indirect: the target register is the first use.
        None if !regs.is_empty() => (regs[0].clone(), &regs[1..]),
        None => ("0".to_string(), &regs[..]),
    };
    notes.push(format!("{} {}", note::READS, args.join(", ")));
    notes.push(format!("{} {}", note::WRITES, op.defs.join(", ")));
    op.uses = vec![callee];
    op.defs.clear();
    let clobbers: Vec<String> = call_clobbers(t).iter().map(|&p| minir_reg(t, p)).collect();
    let (kv3, other): (Vec<String>, Vec<String>) =
        clobbers.into_iter().partition(|n| kv3_nameable(n));
    op.implicit_defs = kv3;
    if !other.is_empty() {
        notes.push(format!("also clobbers {}", other.join(" ")));
    }
}

/// A phi with its uses in `preds` order (the order of the block's entering edges, which
/// the LAO's reader requires); `0` for a predecessor the phi does not name.
fn export_phi(t: Target, inst: &Inst, preds: &[BlockId]) -> Op {
    let mut notes = vec![opc_name(inst.opc)];
    for o in &inst.uses {
        if let Some(pin) = o.pin {
            notes.push(format!(
                "{}{}^{} (a pinned phi argument: no Minir spelling)",
                note::PINNED,
                reg_text(t, o.reg),
                pin_text(t, pin)
            ));
        }
    }
    let uses = preds
        .iter()
        .map(|b| {
            inst.phi_blocks()
                .iter()
                .position(|pb| pb == b)
                .map_or_else(|| "0".to_string(), |k| reg_text(t, inst.uses[k].reg))
        })
        .collect();
    for pb in inst.phi_blocks() {
        if !preds.contains(pb) {
            notes.push(format!("edge from b{} is not a CFG edge", pb.0));
        }
    }
    let defs = inst.defs.iter().map(|o| reg_text(t, o.reg)).collect();
    Op::new("_PHI", defs, uses, notes.join("; "))
}

fn copy_op(def: String, use_: String, comment: &str) -> Op {
    Op::new("_COPY", vec![def], vec![use_], comment.to_string())
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

    /// Checks that `lines` appear in `text` in this order.
    fn in_order(text: &str, expect: &[&str]) {
        let lines: Vec<&str> = text.lines().collect();
        let mut at = 0;
        for e in expect {
            match lines[at..].iter().position(|l| l == e) {
                Some(k) => at += k + 1,
                None => panic!("missing (in order) {e:?} in\n{text}"),
            }
        }
    }

    #[test]
    fn exports_blocks_pins_and_phis() {
        let text = function_to_minir(&looped(), None);
        in_order(
            &text,
            &[
                "  - label: f",
                "    # dedicated-register copies: 2",
                "      - label: BB0",
                "        freq: 1",
                "        preds: []",
                "        succs: [BB1]",
                "          - {op: _COPY, defs: [V0], uses: [$r16]}  # pin of .input",
                "          - {op: _GOTO, defs: [], uses: [BB1], target: BB1}  # goto",
                "      - label: BB1",
                "        freq: 5",
                "        preds: [BB0, BB1]",
                // The fall-through (BB2) first: the LAO's fall edge.
                "        succs: [BB2, BB1]",
                "          - {op: _PHI, defs: [V1], uses: [V0, V2]}  # phi",
                "          - {op: _APPLY, defs: [V2], uses: [V1, 1]}  # add",
                "          - {op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}  # br; then goto",
                "      - label: BB2",
                "        freq: 1",
                "          - {op: _COPY, defs: [$r16], uses: [V2]}  # pin of .output",
                "          - {op: _RETURN, defs: [], uses: []}  # igoto",
            ],
        );
        assert!(
            !text.contains("fresh results"),
            "every operation has its result"
        );
        assert!(
            !text.contains("Block_"),
            "the LAO rejects the prefix Block_"
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

    /// `brf c, T; goto F` is `_IFTRUE [c, F]` falling through to `T`; a fall-through that is
    /// not the next block adds no block: `succs` say where it goes.
    #[test]
    fn branch_on_false_swaps_and_far_fall_throughs_add_no_block() {
        let mut f = looped();
        // b1: brf c, b2; goto b1 — taken b1 when c holds, fall-through b2.
        let n = f.blocks[1].insts.len();
        f.blocks[1].insts[n - 2].opc = Opc::St231(O::Brf);
        f.blocks[1].insts[n - 2].imm = Imm::Block(BlockId(2));
        f.blocks[1].insts[n - 1].imm = Imm::Block(BlockId(1));
        let text = function_to_minir(&f, None);
        assert!(
            text.contains(
                "{op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}  # brf; then goto; on false"
            ),
            "{text}"
        );
        assert!(text.contains("succs: [BB2, BB1]"), "{text}");
        // br c, b1; goto b0 — the fall-through b0 is not the next block.
        let mut g = looped();
        let n = g.blocks[1].insts.len();
        g.blocks[1].insts[n - 1].imm = Imm::Block(BlockId(0));
        g.blocks[0]
            .insts
            .insert(0, Inst::phi(VReg(9), vec![(BlockId(1), VReg(2))]));
        let text = function_to_minir(&g, None);
        in_order(
            &text,
            &[
                "      - label: BB0",
                "        preds: [BB1]",
                "          - {op: _PHI, defs: [V9], uses: [V2]}  # phi",
                "      - label: BB1",
                "        succs: [BB0, BB1]",
                "          - {op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}  # br; then goto",
                "      - label: BB2",
            ],
        );
        assert_eq!(text.matches("- label: BB").count(), 3, "{text}");
    }

    /// A call stays in its block as an `_APPLY` reading its callee, with a fresh result;
    /// its argument and result travel through dedicated-register copies.
    #[test]
    fn calls_stay_in_their_block() {
        let mut f = looped();
        let r16 = Pin::Phys(PReg::new(RegClass::R, 16));
        let r = f.new_vreg(RegClass::R);
        f.blocks[2].insts.insert(
            0,
            Inst::new(
                Opc::St231(O::Call),
                vec![Operand::pinned(r, r16)],
                vec![Operand::pinned(VReg(2), r16)],
                Imm::Func("g".into()),
            ),
        );
        let text = function_to_minir(&f, None);
        in_order(
            &text,
            &[
                "    # fresh results from V5",
                "      - label: BB2",
                "        succs: []",
                "          - {op: _COPY, defs: [$r16], uses: [V2]}  # pin of call",
                "          - {op: _COPY, defs: [V4], uses: [$r16]}  # pin of call",
                "          - {op: _RETURN, defs: [], uses: []}  # igoto",
            ],
        );
        let call = text.lines().find(|l| l.contains("# call")).unwrap();
        assert!(
            call.contains("{op: _APPLY, defs: [V5], uses: [[g]], implicit_defs: [$r"),
            "{call}"
        );
        assert!(!call.split('#').next().unwrap().contains("$b"), "{call}");
        assert!(call.contains("reads $r16; writes $r16"), "{call}");
        assert_eq!(text.matches("- label: BB").count(), 3, "{text}");
        assert!(text.contains("# dedicated-register copies: 4"), "{text}");
    }

    /// Two results: two `_APPLY`s, the first reading the uses; no result: a fresh one.
    #[test]
    fn one_result_per_apply() {
        let mut f = looped();
        let (d, b) = (f.new_vreg(RegClass::R), f.new_vreg(RegClass::B));
        let add = Inst::new(
            Opc::St231(O::Addcg),
            vec![d.into(), b.into()],
            vec![VReg(3).into(), VReg(1).into(), VReg(2).into()],
            Imm::None,
        );
        let store = Inst::new(
            Opc::St231(O::Stw),
            vec![],
            vec![VReg(1).into(), d.into()],
            Imm::Int(4),
        );
        f.blocks[1].insts.insert(2, add);
        f.blocks[1].insts.insert(3, store);
        let text = function_to_minir(&f, None);
        in_order(
            &text,
            &[
                "    # fresh results from V6",
                "          - {op: _APPLY, defs: [V4], uses: [V3, V1, V2]}  # addcg; result 1 of 2",
                "          - {op: _APPLY, defs: [V5], uses: []}  # addcg; result 2 of 2",
                "          - {op: _APPLY, defs: [V6], uses: [V1, V4, 4]}  # stw",
            ],
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
            "[tab, -4, '@hi']"
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
        assert!(kv3_nameable("$r63") && !kv3_nameable("$r64") && !kv3_nameable("$b1"));
        assert!(!kv3_nameable("$R3"));
        let zero = Reg::P(PReg::new(RegClass::R, 0));
        assert_eq!(use_text(Target::St231, zero), "0");
        assert_eq!(use_text(Target::St120, zero), "$R0");
    }
}
