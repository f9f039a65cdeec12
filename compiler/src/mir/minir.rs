//! Export of machine-level SSA to the LAO's **Minir** YAML (Rastello, de Ferrière and Guillon's
//! Linear Assembly Optimizer, open-sourced as `kalray/lao`), so the LAO's out-of-SSA can be run
//! on exactly the function ssalab compiles and its `n_moves` compared with ours.
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
//!           - {op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}  # br
//! ```
//!
//! # What the LAO's reader accepts (facts read in `kalray/lao`, `LAO/ECL/LIR/Minir.c`)
//!
//! * **Document** (`Minir_parseProgram`): a mapping with `SSA: true|false` (only the words
//!   `true`/`false`, `Yaml_GET_BOOL`), `functions:` (a sequence), optional `label`/`file`,
//!   `arch` (a processor name; default: processor 1 of the build), `keep index`, `objects`.
//!   Unknown keys give a warning. Several programs may share a file, separated by `---`.
//! * **Function** (`Minir_parseFunction`): `label` (or `function`) required; `bbs` (or
//!   `body`/`blocks`); optional `test` (a self-test banner that also relaxes the
//!   fall-through checks), `entries` (at most one, and it must be the first block), `exits`,
//!   `frame`, `objects`, `section`, `align`, `linkage`, `fixed frame`, `args size`.
//!   Under SSA a function must have exactly one code region.
//! * **Block** (`Minir_newBasicBlock`, `Minir_mappingIsBlock`): a mapping whose **first** key
//!   is `label` (or `block`); `freq`/`frequency` (a float, default 0), `succs`/`successors`,
//!   `preds`/`predecessors`, `ops`/`operations`, `labels` (extra names), `loop`, `flags`.
//!   **Block names** (`Minir_bbIndexOfName`): one alphabetic prefix shared by every block of
//!   the program followed by a non-negative integer (`int_of_string`, base 0: no leading
//!   zeros); the prefix `Block_` is **rejected** ("would be confusing with LAO internal
//!   representation"). Names must not start with `V`, `T`, `_` or `$` (those are read as
//!   operands first).
//! * **Control flow** (`Minir_connectBasicBlocks`): as soon as one block has `succs` or
//!   `preds`, edges come only from those lists (a repeated edge is made once); under
//!   `SSA: true` **every** block needs `succs` or `preds`. A block with phis needs `preds`
//!   listing exactly its entering edges in the order of `BasicBlock_makeEnterEdges(.., true)`,
//!   which sorts by the origin block's index (`BasicBlockEdge_gt`, `LIR/BasicBlock.c`), i.e.
//!   by position in `bbs`; phi uses follow `preds` (`Minir_parseBasicBlockOperations`).
//!   `BasicBlock_getFallEdge` takes only the **first** leaving edge as the fall-through one.
//! * **Operations** (`Minir_parseOperation`): a mapping with `op` (or `O_<n>`), `defs`,
//!   `uses`, optional `target` (a block name, checked against a label operand), `freq`,
//!   `fallthru` (`.next` or the next block's name), `implicit_defs`/`clobbers` (register
//!   names, ranges `$r0-$r9` allowed), `node`, `flags` (`PureCopy`, `MemorySafe`); others warn.
//!   The operator name is looked up by short name or mnemonic; its parameter table fixes
//!   the number of defs and uses unless it is a list operator: too many ("There remains %d
//!   parameters unused") or too few ("Trying to get a definition but no more item!") throws.
//!   **A control operation must be the last of its block** ("Previous operator `%s' is
//!   Control but is not the last of the basic block!") — calls included (`Minir.c` treats a
//!   call as "implicit control", and every call of the LAO's inputs ends its block).
//! * **Operands** (`Minir_parseTemporary`): `$name` a dedicated register of the processor
//!   (`Register_fromName`); `V<n>`, `T<n>`, `_<n>` (also `V_<n>`) a virtual, all three
//!   spellings naming the same temporary `<n>`; under SSA each virtual is an SSA variable
//!   whose producer is its (last) definition; an integer (base 0, sign allowed) an immediate;
//!   a block name a label; `a+b-c` an immediate sum; a procedure name a symbol; a flow
//!   sequence `[sym, +off, -off, '@reloc']` a symbol (`Minir_parseSymbolic`: relocations only
//!   warn). `@` cannot start a plain YAML scalar, so a relocation must be quoted.
//! * **Generic operators seen in the LAO's own inputs** (`LIR/0/Minir.0`, `PFA/0/Sreedhar.0`,
//!   `PFA/0/SSAForm.0`): `_PHI` (uses one per `preds`), `_COPY` (1 def, 1 use), `_PCOPY`
//!   (lists), `_APPLY` (1 def; 1 or 2 uses seen), `_ADD`/`_SUB`/`_MUL` (2 uses), `_ADJUST`,
//!   `_IFTRUE` (uses `[condition, label]`), `_GOTO`/`_JUMP` (uses `[label]`), `_CALL` (uses
//!   `[[symbol]]`, no defs: arguments and results travel through `_COPY`s to and from
//!   dedicated registers), `_RETURN` (no operands). `LIR/Operator.c` also defines
//!   `Operator_PSI`, `_SIGMA`, `_KILL`, `_ECOPY`, `_LCOPY`. The operator tables themselves
//!   (`Operator.tuple`) are generated from the kv3 machine description and are not in the
//!   repository: target opcodes are kv3 mnemonics only.
//!
//! # The mapping
//!
//! * **Blocks**: our block `bN` is `BBN`. A call ends a Minir block, so the operations after
//!   a call continue in a new block `BB<n+k>` (k = 0, 1, … over the function, n = our block
//!   count) whose only pred is the call's block. A block ending `br c, T; goto F` exports
//!   `_IFTRUE [c, T]`; its fall-through `F` must then be the next block of `bbs`: when it is
//!   not, a jump block `BB<n+k>` holding `_GOTO F` is inserted right after. `brf`/`GOTO.f`/
//!   `JUMP.f` (branch on false) are exported as `_IFTRUE` on the swapped pair (`brf c, T;
//!   goto F` ≡ `br c, F; goto T`), so no unseen `_IFFALSE` is needed; `br c, T; goto T` is
//!   `_GOTO T`. Every block lists `preds` (in `bbs` order) and `succs` (fall-through first),
//!   and `freq`: the LAI file's `.freq` for the block when given, else our weight
//!   5^loop-depth; the blocks split off `bN` inherit its `freq` (a jump block's true frequency
//!   is that of its edge, which we do not know: an upper bound).
//! * **Operands**: `%N` → `VN`; ST231 `$r0` (reads as zero) as a use → `0`; other physical
//!   registers `$`-prefixed (`$r12`, `$b0`; ST120 `$R0`,
//!   `$P15`, `$G0`); integer immediates as integers; symbol addresses `[name, +off]` (plus
//!   `'@hi'`/`'@lo'` for ST120 `MAKE`/`MORE` halves), call targets `[name]`, frame objects
//!   `[__frame_fN, +off]`; an immediate is the last use.
//! * **Pins** (renaming constraints) → dedicated registers, as the LAO models them: an operand
//!   `%v` pinned to a physical register `R` is written `$R` at the operation and connected
//!   by an explicit copy — `_COPY $R = Vv` right before the operation for a use, `_COPY Vv =
//!   $R` right after it for a definition. `.input`/`.output` emit only these copies. A call
//!   keeps only its callee in `uses` (`[name]`, or the register of an indirect call); its
//!   argument and result registers appear only in these copies (as in the LAO's inputs) and
//!   in the operation's trailing comment. Tied operands (`Pin::Var`, ST120 2-operand forms)
//!   and pins on phi operands have no Minir spelling: they are written unpinned with a
//!   `# tied`/`# pinned` comment.
//! * **Operations**: `phi` → `_PHI`, `copy` → `_COPY`, `parcopy` → `_PCOPY`, `psi` → `_PSI`,
//!   returns → `_RETURN` (operands only in the comment), every other target operation →
//!   `_APPLY` with its defs and uses; each line ends with a comment naming our operation.
//!
//! # Gaps (what the LAO needs and we cannot give)
//!
//! * Target operations: the LAO build knows kv3 operators only, so ours are `_APPLY`.
//!   ASSUMPTION: `_APPLY` accepts any number of defs and uses (its uses are a list in the
//!   LAO's inputs — 1 and 2 are both accepted; only 1 def is ever shown), and `_PSI` is the
//!   short name of `Operator_PSI`. Out-of-SSA only looks at data flow, copies, phis and
//!   control, which this keeps.
//! * Registers: the reader resolves `$name` in the kv3 register file. ST231 `$r0`–`$r63`
//!   coincide in spelling with kv3's GPRs (both use `$r12` as stack pointer); ST231 `$b` and
//!   all ST120 names (`$R`, `$P`, `$G`) do not exist there, so such dedicated registers
//!   cannot be read by a kv3 build (`implicit_defs` keeps only `$r` names for that reason;
//!   the rest is in the comment).
//! * Tied operands and pinned phi operands (comments only, see above).
//!
//! # Our counts and the LAO's `n_moves`
//!
//! `SSAForm_dumpStats` (`LAO/ECL/PFA/SSAForm.c`), called at the end of `SSAForm_destruct`
//! when `PFA_STATS` is set, counts **every operation whose operator is a sequential copy**
//! (`Operator_isSeqCopy`) left in the function after `SSAForm_makeConventional` (which runs
//! the selected coalescer: Sreedhar, Boissinot or Decoalesce) and `SSAForm_eliminate`;
//! `weighted_moves` adds each copy's block `freq`. `SSAForm_eliminate` expands every
//! `PCOPY` into `COPY`s (`SSAForm_expandParCopyOperation`: one per component whose two sides
//! are in different webs, plus one more per cycle, broken through a new temporary), deletes
//! phis and every `COPY` whose two operands are variables of the same web, and **keeps every
//! `COPY` with a dedicated register on either side** (those operands are not variables;
//! `SSAForm_makeConventional` only offers copies between two variables to the coalescer).
//! So on an export, `n_moves` = *D* + *R*, where *D* is the number of `_COPY` lines with a
//! `$` operand (printed per function as `# dedicated-register copies: D`) and *R* the
//! copies between virtuals that the LAO's out-of-SSA and coalescing leave (phi-related
//! copies it inserted and could not coalesce, copies of the input it could not coalesce,
//! `PCOPY` sequentialisation).
//! Ours: `moves_ssa_out` counts the copies (`copy`, and each `parcopy` component whose two
//! sides are not one physical register — components, not the sequentialised moves with
//! their cycle temporaries) right after our first allocation-form pass (out-of-SSA), and
//! `moves_coalesced` the same after the last one (the paper's coalescing C). Since the
//! LAO's count is taken **after** its coalescer (inside `SSAForm_destruct`), the figure to
//! hold against `n_moves` is `moves_coalesced` (`moves_ssa_out` only for a configuration
//! without a separate coalescing pass), with three known differences, none of which we can
//! remove from the outside: (1) the LAO never coalesces a copy with a dedicated register at
//! this stage, so all *D* pin copies stay, whereas our pinning passes and coalescing make
//! many of them unnecessary — compare `n_moves − D` with our count minus the copies we keep
//! between a variable and a physical register, or compare only functions without pins;
//! (2) the LAO counts one extra copy per cycle of a parallel copy, we count components;
//! (3) which coalescer runs is the environment's choice (`FORCE_COALESCING`: Sreedhar,
//! Boissinot, Decoalesce; the `kv3-lao` driver is hard-wired to Boissinot), so name the
//! LAO variant next to the configuration of ours. `moves_final` (after register
//! allocation) and the dynamic counts have no LAO counterpart. With 5^depth frequencies
//! the LAO's `weighted_moves` is on the scale of our weighted counts (jump blocks carry
//! their origin's frequency, an upper bound).
//!
//! The exporter reads the LAO only through its documented format (no code of it here).
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

/// Minir name of the first (or only) Minir block of our block `b`. The LAO rejects the
/// prefix `Block_` (`Minir_bbIndexOfName`).
pub fn minir_block(b: BlockId) -> String {
    block_label(b.index())
}

fn block_label(id: usize) -> String {
    format!("BB{id}")
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

/// A successor before the layout is known: the first Minir block of one of ours, or a
/// Minir block by position.
#[derive(Clone, Copy, PartialEq)]
enum Succ {
    Ours(BlockId),
    Pos(usize),
}

/// One Minir basic block: all or part of one of our blocks, or a jump block.
struct Part {
    id: usize,
    origin: BlockId,
    ops: Vec<Op>,
    succs: Vec<Succ>,
    note: &'static str,
}

/// One Minir operation being built. Phis keep their arguments by our pred block until the
/// Minir `preds` are known.
struct Op {
    name: &'static str,
    defs: Vec<String>,
    uses: Vec<String>,
    phi_args: Vec<(BlockId, String)>,
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
            phi_args: Vec::new(),
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

fn write_function(out: &mut String, f: &Function, freqs: Option<&[Option<u64>]>) {
    let info = CfgInfo::compute(f);
    let mut parts = build_parts(f);
    let n = parts.len();
    let first_pos = first_positions(&parts, f.blocks.len());
    let resolve = |s: Succ| match s {
        Succ::Ours(b) => first_pos[b.index()],
        Succ::Pos(p) => p,
    };
    let succs: Vec<Vec<usize>> = parts
        .iter()
        .map(|p| {
            let mut v: Vec<usize> = Vec::new();
            for &s in &p.succs {
                let q = resolve(s);
                if !v.contains(&q) {
                    v.push(q);
                }
            }
            v
        })
        .collect();
    // Preds in `bbs` order: the order the LAO sorts entering edges in.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (p, ss) in succs.iter().enumerate() {
        for &s in ss {
            if !preds[s].contains(&p) {
                preds[s].push(p);
            }
        }
    }
    for (k, part) in parts.iter_mut().enumerate() {
        let pred_origins: Vec<BlockId> =
            preds[k].iter().map(|&q| origin_of(q, &first_pos)).collect();
        for op in part.ops.iter_mut().filter(|o| o.name == "_PHI") {
            op.uses = pred_origins
                .iter()
                .map(|b| {
                    op.phi_args
                        .iter()
                        .find(|(pb, _)| pb == b)
                        .map_or_else(|| "0".to_string(), |(_, v)| v.clone())
                })
                .collect();
            for (pb, _) in &op.phi_args {
                if !pred_origins.contains(pb) {
                    let _ = write!(op.comment, "; edge from b{} is not a CFG edge", pb.0);
                }
            }
        }
    }
    let dedicated = parts
        .iter()
        .flat_map(|p| &p.ops)
        .filter(|o| o.is_dedicated_copy())
        .count();
    let _ = writeln!(
        out,
        "  - label: {}\n    # dedicated-register copies: {dedicated}\n    bbs:",
        f.name
    );
    for (k, part) in parts.iter().enumerate() {
        let b = part.origin;
        let freq = freqs
            .and_then(|v| v.get(b.index()).copied().flatten())
            .unwrap_or_else(|| info.weight(b));
        let _ = writeln!(out, "      - label: {}", block_label(part.id));
        if !part.note.is_empty() {
            let _ = writeln!(out, "        # {} of b{}", part.note, b.0);
        }
        let _ = writeln!(out, "        freq: {freq}");
        let names = |v: &[usize]| {
            v.iter()
                .map(|&q| block_label(parts[q].id))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(out, "        preds: [{}]", names(&preds[k]));
        let _ = writeln!(out, "        succs: [{}]", names(&succs[k]));
        let _ = writeln!(out, "        ops:");
        for op in &part.ops {
            let _ = writeln!(out, "          - {op}");
        }
    }
}

/// Our block a Minir block at position `pos` belongs to (`first_pos` is increasing).
fn origin_of(pos: usize, first_pos: &[usize]) -> BlockId {
    let b = first_pos.partition_point(|&p| p <= pos).saturating_sub(1);
    BlockId(b as u32)
}

fn first_positions(parts: &[Part], nblocks: usize) -> Vec<usize> {
    let mut first = vec![0; nblocks];
    for (k, p) in parts.iter().enumerate() {
        if p.id < nblocks {
            first[p.id] = k;
        }
    }
    first
}

/// Splits our blocks into Minir blocks: after each call, and a jump block where the
/// fall-through of a conditional branch is not the next block.
fn build_parts(f: &Function) -> Vec<Part> {
    let nblocks = f.blocks.len();
    let mut next_id = nblocks;
    let mut parts: Vec<Part> = Vec::with_capacity(nblocks);
    for b in f.block_ids() {
        let insts = &f.block(b).insts;
        let term_at = insts
            .iter()
            .rposition(|i| !i.is_terminator())
            .map_or(0, |k| k + 1);
        let mut cur = Part {
            id: b.index(),
            origin: b,
            ops: Vec::new(),
            succs: Vec::new(),
            note: "",
        };
        for inst in &insts[..term_at] {
            let ex = export_inst(f, inst);
            cur.ops.extend(ex.before);
            let is_call = ex.op.as_ref().is_some_and(|o| o.name == "_CALL");
            cur.ops.extend(ex.op);
            if is_call {
                // A call ends its Minir block: the rest continues in a new one.
                let pos = parts.len() + 1;
                cur.succs.push(Succ::Pos(pos));
                parts.push(cur);
                cur = Part {
                    id: next_id,
                    origin: b,
                    ops: Vec::new(),
                    succs: Vec::new(),
                    note: "continuation after a call",
                };
                next_id += 1;
            }
            cur.ops.extend(ex.after);
        }
        let jump = export_terminators(f, b, &insts[term_at..], &mut cur);
        parts.push(cur);
        if let Some(fall) = jump {
            let pos = parts.len();
            parts.last_mut().unwrap().succs.insert(0, Succ::Pos(pos));
            let mut j = Part {
                id: next_id,
                origin: b,
                ops: Vec::new(),
                succs: vec![Succ::Ours(fall)],
                note: "jump block for the fall-through",
            };
            next_id += 1;
            j.ops
                .push(goto_op(fall, "goto of the fall-through edge".into()));
            parts.push(j);
        }
    }
    parts
}

fn goto_op(to: BlockId, comment: String) -> Op {
    let mut op = Op::new("_GOTO", vec![], vec![minir_block(to)], comment);
    op.target = Some(minir_block(to));
    op
}

/// Exports a block's terminators into `cur` (setting its successors); returns the
/// fall-through block when it is not the next block, for a jump block to reach it.
fn export_terminators(f: &Function, b: BlockId, terms: &[Inst], cur: &mut Part) -> Option<BlockId> {
    let next = BlockId(b.0 + 1);
    match terms {
        [] => None,
        [j] if j.control() == Control::Jump && j.branch_target().is_some() => {
            let to = j.branch_target().unwrap();
            cur.ops.push(goto_op(to, super::print::opc_name(j.opc)));
            cur.succs.push(Succ::Ours(to));
            None
        }
        [r] if r.control() == Control::Return => {
            let ex = export_inst(f, r);
            cur.ops.extend(ex.before);
            let mut op = Op::new("_RETURN", vec![], vec![], super::print::opc_name(r.opc));
            let regs: Vec<String> = r.uses.iter().map(|o| reg_text(f.target, o.reg)).collect();
            if !regs.is_empty() {
                let _ = write!(op.comment, "; reads {}", regs.join(", "));
            }
            cur.ops.push(op);
            None
        }
        [br, j]
            if br.control() == Control::CondBranch
                && j.control() == Control::Jump
                && br.branch_target().is_some()
                && j.branch_target().is_some() =>
        {
            let (t, g) = (br.branch_target().unwrap(), j.branch_target().unwrap());
            if t == g {
                cur.ops.push(goto_op(
                    g,
                    format!(
                        "{} to the goto's block, then goto",
                        super::print::opc_name(br.opc)
                    ),
                ));
                cur.succs.push(Succ::Ours(g));
                return None;
            }
            let on_false = branches_on_false(br.opc);
            let (taken, fall) = if on_false { (g, t) } else { (t, g) };
            let ex = export_inst(f, br);
            cur.ops.extend(ex.before);
            let mut op = ex.op.expect("a branch is an operation");
            op.name = "_IFTRUE";
            op.defs.clear();
            op.uses.push(minir_block(taken));
            op.target = Some(minir_block(taken));
            if on_false {
                op.comment
                    .push_str("; on false: taken/fall-through swapped");
            }
            cur.ops.push(op);
            cur.succs.push(Succ::Ours(taken));
            if fall == next {
                cur.succs.insert(0, Succ::Ours(fall));
                None
            } else {
                Some(fall)
            }
        }
        _ => {
            // Not produced by isel or the LAI parser; exported operation by operation.
            for t in terms {
                let ex = export_inst(f, t);
                cur.ops.extend(ex.before);
                cur.ops.extend(ex.op.map(|mut o| {
                    o.comment.push_str("; unusual terminator sequence");
                    o
                }));
                cur.ops.extend(ex.after);
                if let Some(to) = t.branch_target() {
                    cur.succs.push(Succ::Ours(to));
                }
            }
            None
        }
    }
}

fn reg_text(t: Target, r: Reg) -> String {
    match r {
        Reg::V(v) => format!("V{}", v.0),
        Reg::P(p) => minir_reg(t, p),
    }
}

/// A register as a use: ST231 `$r0` reads as zero (isa.md), while kv3's `$r0` is an ordinary
/// register, so it is written as the immediate `0` (the LAO's constants are `_APPLY`s of
/// immediates, as in `_APPLY [V100] = [1]`).
fn use_text(t: Target, r: Reg) -> String {
    match r {
        Reg::P(p) if t == Target::St231 && p.class == super::target::RegClass::R && p.num == 0 => {
            "0".to_string()
        }
        _ => reg_text(t, r),
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

/// The Minir operator of a (non-marker, non-terminator) instruction.
fn op_name(inst: &Inst) -> &'static str {
    match inst.opc {
        Opc::Phi => "_PHI",
        Opc::Copy => "_COPY",
        Opc::ParCopy => "_PCOPY",
        Opc::Psi => "_PSI",
        _ => match inst.control() {
            Control::Call => "_CALL",
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
fn kv3_nameable(name: &str) -> bool {
    name.strip_prefix("$r")
        .and_then(|n| n.parse::<u32>().ok())
        .is_some_and(|n| n < 64)
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
    let ours = super::print::opc_name(inst.opc);
    if inst.is_phi() {
        return Exported {
            before: vec![],
            op: Some(export_phi(t, inst, ours)),
            after: vec![],
        };
    }
    let marker = matches!(inst.opc, Opc::Input | Opc::Output);
    let call = inst.control() == Control::Call;
    let mut notes: Vec<String> = Vec::new();
    let mut before = Vec::new();
    let mut uses = Vec::with_capacity(inst.uses.len() + 2);
    for o in &inst.uses {
        match (o.reg, o.pin) {
            (Reg::V(_), Some(Pin::Phys(p))) => {
                let r = minir_reg(t, p);
                before.push(copy_op(
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
            _ => uses.push(use_text(t, o.reg)),
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
        notes.push("guarded: last use is the guard".into());
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

/// A call as the LAO's inputs write it: `uses: [callee]`, no defs; the registers it reads
/// and writes go to the comment, the kv3-nameable clobbers to `implicit_defs`.
fn call_shape(t: Target, inst: &Inst, op: &mut Op, notes: &mut Vec<String>) {
    let regs = std::mem::take(&mut op.uses);
    let callee = imm_text(&inst.imm);
    let (callee, args): (String, &[String]) = match callee {
        Some(c) => (c, &regs[..regs.len() - 1]),
        // Indirect: the target register is the first use. ASSUMPTION: `_CALL` reads it as
        // its one operand (only a symbol is shown in the LAO's inputs).
        None if !regs.is_empty() => (regs[0].clone(), &regs[1..]),
        None => ("0".to_string(), &regs[..]),
    };
    if !args.is_empty() {
        notes.push(format!("reads {}", args.join(", ")));
    }
    if !op.defs.is_empty() {
        notes.push(format!("writes {}", op.defs.join(", ")));
    }
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

fn export_phi(t: Target, inst: &Inst, ours: String) -> Op {
    let mut notes = vec![ours];
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
    let mut op = Op::new("_PHI", defs, vec![], notes.join("; "));
    op.phi_args = inst
        .phi_blocks()
        .iter()
        .zip(&inst.uses)
        .map(|(&b, u)| (b, reg_text(t, u.reg)))
        .collect();
    op
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
                // The fall-through (BB2, next in `bbs`) first: the LAO's fall edge.
                "        succs: [BB2, BB1]",
                "          - {op: _PHI, defs: [V1], uses: [V0, V2]}  # phi",
                "          - {op: _APPLY, defs: [V2], uses: [V1, 1]}  # add",
                "          - {op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}  # br",
                "      - label: BB2",
                "        freq: 1",
                "          - {op: _COPY, defs: [$r16], uses: [V2]}  # pin of .output",
                "          - {op: _RETURN, defs: [], uses: []}  # igoto",
            ],
        );
        // The goto to the next block is implied by the fall-through: 2 + 4 + 2 ops.
        assert_eq!(
            text.lines().filter(|l| l.contains("{op: ")).count(),
            8,
            "{text}"
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

    /// `brf c, T; goto F` is `_IFTRUE [c, F]` falling through to `T`; when the fall-through
    /// is not the next block a jump block reaches it, and the phi there follows the new
    /// `preds` (the jump block, by position in `bbs`).
    #[test]
    fn branch_on_false_swaps_and_jump_blocks_keep_phis_right() {
        let mut f = looped();
        // b1: brf c, b2; goto b1 — taken b1 when c holds, fall-through b2 (next): no jump block.
        let n = f.blocks[1].insts.len();
        f.blocks[1].insts[n - 2].opc = Opc::St231(O::Brf);
        f.blocks[1].insts[n - 2].imm = Imm::Block(BlockId(2));
        f.blocks[1].insts[n - 1].imm = Imm::Block(BlockId(1));
        let text = function_to_minir(&f, None);
        assert!(
            text.contains("{op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}"),
            "{text}"
        );
        assert!(text.contains("succs: [BB2, BB1]"), "{text}");
        assert!(!text.contains("_IFFALSE"), "{text}");
        // br c, b1; goto b0 — the fall-through b0 is not next: a jump block BB3 after BB1.
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
                "        preds: [BB3]",
                "          - {op: _PHI, defs: [V9], uses: [V2]}  # phi",
                "      - label: BB1",
                "        succs: [BB3, BB1]",
                "          - {op: _IFTRUE, defs: [], uses: [V3, BB1], target: BB1}  # br",
                "      - label: BB3",
                "        # jump block for the fall-through of b1",
                // b1's frequency (b0 and b1 now form an outer loop around b1's own).
                "        freq: 25",
                "        preds: [BB1]",
                "        succs: [BB0]",
                "          - {op: _GOTO, defs: [], uses: [BB0], target: BB0}  # goto of the fall-through edge",
                "      - label: BB2",
            ],
        );
    }

    /// A call ends its Minir block; the result copy continues in a new block, the call
    /// reads only its callee, and only kv3-nameable clobbers are listed.
    #[test]
    fn calls_end_blocks() {
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
                "      - label: BB2",
                "        succs: [BB3]",
                "          - {op: _COPY, defs: [$r16], uses: [V2]}  # pin of call",
                "      - label: BB3",
                "        # continuation after a call of b2",
                "        preds: [BB2]",
                "        succs: []",
                "          - {op: _COPY, defs: [V4], uses: [$r16]}  # pin of call",
                "          - {op: _RETURN, defs: [], uses: []}  # igoto",
            ],
        );
        let call = text.lines().find(|l| l.contains("_CALL")).unwrap();
        assert!(
            call.contains("defs: [], uses: [[g]], implicit_defs: [$r"),
            "{call}"
        );
        assert!(
            !call.contains("implicit_defs: [$b") && !call.contains(", $b"),
            "{call}"
        );
        assert!(call.contains("reads $r16; writes $r16"), "{call}");
        // Three dedicated copies: .input, the argument, the result (+ .output).
        assert!(text.contains("# dedicated-register copies: 4"), "{text}");
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
