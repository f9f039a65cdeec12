//! Golden structure checks of the Minir export (`compiler::mir::minir`) on every LAI example
//! of `programs/lai`, on an LAI function with `.freq`, and on C programs after instruction
//! selection for both targets.
//!
//! The YAML is read back with a small structural reader of the block/flow layout the exporter
//! writes (no YAML crate in this workspace): document keys, functions, blocks with `freq`,
//! `preds`, `succs` and `ops`, each op a flow mapping whose values are scalars or (nested)
//! flow sequences. The checks then account for every operation, definition and use of the
//! machine function, following the mapping the module documents: one op per instruction
//! (none for `.input`/`.output`), one `_COPY` into a dedicated register before the op per use
//! pinned to a physical register, one `_COPY` out of it after the op per such definition;
//! phi uses in `preds` order; the CFG, frequencies and SSA property (each `V` defined once,
//! every used `V` defined) preserved.

use compiler::backend::add_runtime;
use compiler::isel::{select_module, IselOptions};
use compiler::lai::parse_lai_full;
use compiler::mir::cfg::CfgInfo;
use compiler::mir::minir::{minir_block, minir_reg, module_to_minir};
use compiler::mir::{BlockId, Control, Function, Inst, Module, Opc, Pin, Reg};
use compiler::pipeline::{mid_level_passes, run_passes, OptLevel};
use simulator::isa::Target;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// A flow value: a scalar or a sequence.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Scalar(String),
    Seq(Vec<Val>),
}

impl Val {
    fn seq(&self) -> &[Val] {
        match self {
            Val::Seq(v) => v,
            Val::Scalar(s) => panic!("expected a sequence, found {s:?}"),
        }
    }
    fn text(&self) -> String {
        match self {
            Val::Scalar(s) => s.clone(),
            Val::Seq(v) => format!(
                "[{}]",
                v.iter().map(Val::text).collect::<Vec<_>>().join(", ")
            ),
        }
    }
}

#[derive(Debug, Default)]
struct YOp {
    fields: HashMap<String, Val>,
}

impl YOp {
    fn op(&self) -> String {
        self.fields["op"].text()
    }
    fn list(&self, key: &str) -> Vec<String> {
        self.fields
            .get(key)
            .map_or(vec![], |v| v.seq().iter().map(Val::text).collect())
    }
}

#[derive(Debug, Default)]
struct YBlock {
    label: String,
    freq: u64,
    preds: Vec<String>,
    succs: Vec<String>,
    has_flow: (bool, bool),
    ops: Vec<YOp>,
}

#[derive(Debug, Default)]
struct YFunc {
    label: String,
    bbs: Vec<YBlock>,
}

/// Parses a flow value starting at `s[*i]` (depth-capped).
fn flow_value(s: &[char], i: &mut usize, depth: usize) -> Val {
    assert!(depth < 8, "nesting too deep");
    while s[*i] == ' ' {
        *i += 1;
    }
    if s[*i] == '[' {
        *i += 1;
        let mut items = Vec::new();
        loop {
            while s[*i] == ' ' {
                *i += 1;
            }
            if s[*i] == ']' {
                *i += 1;
                return Val::Seq(items);
            }
            items.push(flow_value(s, i, depth + 1));
            while s[*i] == ' ' {
                *i += 1;
            }
            match s[*i] {
                ',' => *i += 1,
                ']' => {}
                c => panic!("unexpected {c:?} in a sequence"),
            }
        }
    }
    let start = *i;
    while !matches!(s[*i], ',' | ']' | '}') {
        *i += 1;
    }
    Val::Scalar(s[start..*i].iter().collect::<String>().trim().to_string())
}

/// `{key: value, ...}  # comment` → fields.
fn flow_mapping(line: &str) -> YOp {
    let s: Vec<char> = line.chars().collect();
    assert_eq!(s[0], '{', "{line}");
    let mut i = 1;
    let mut op = YOp::default();
    loop {
        while s[i] == ' ' {
            i += 1;
        }
        if s[i] == '}' {
            i += 1;
            break;
        }
        let start = i;
        while s[i] != ':' {
            i += 1;
        }
        let key: String = s[start..i].iter().collect();
        i += 1;
        let v = flow_value(&s, &mut i, 0);
        assert!(
            op.fields.insert(key.trim().to_string(), v).is_none(),
            "{line}"
        );
        while s[i] == ' ' {
            i += 1;
        }
        if s[i] == ',' {
            i += 1;
        }
    }
    let rest: String = s[i..].iter().collect();
    let rest = rest.trim();
    assert!(
        rest.is_empty() || rest.starts_with('#'),
        "trailing {rest:?}"
    );
    op
}

fn inline_list(v: &str) -> Vec<String> {
    let Val::Seq(items) = flow_value(&v.chars().chain([',']).collect::<Vec<_>>(), &mut 0, 0) else {
        panic!("not a list: {v}")
    };
    items.iter().map(Val::text).collect()
}

/// Reads the exporter's layout back.
fn read_minir(text: &str) -> Vec<YFunc> {
    let mut funcs: Vec<YFunc> = Vec::new();
    let mut saw_ssa = false;
    for line in text.lines() {
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let indent = line.len() - body.len();
        match (indent, body) {
            (0, "SSA: true") => saw_ssa = true,
            (0, "functions:") | (4, "bbs:") | (8, "ops:") => {}
            (2, b) if b.starts_with("- label: ") => funcs.push(YFunc {
                label: b["- label: ".len()..].to_string(),
                ..YFunc::default()
            }),
            (6, b) if b.starts_with("- label: ") => funcs.last_mut().unwrap().bbs.push(YBlock {
                label: b["- label: ".len()..].to_string(),
                ..YBlock::default()
            }),
            (8, b) => {
                let blk = funcs.last_mut().unwrap().bbs.last_mut().unwrap();
                let (k, v) = b.split_once(": ").unwrap_or_else(|| panic!("{line}"));
                match k {
                    "freq" => blk.freq = v.parse().unwrap(),
                    "preds" => {
                        blk.preds = inline_list(v);
                        blk.has_flow.0 = true
                    }
                    "succs" => {
                        blk.succs = inline_list(v);
                        blk.has_flow.1 = true
                    }
                    _ => panic!("unknown block key {line}"),
                }
            }
            (10, b) if b.starts_with("- {") => {
                let blk = funcs.last_mut().unwrap().bbs.last_mut().unwrap();
                blk.ops.push(flow_mapping(&b[2..]));
            }
            _ => panic!("unexpected line {line:?}"),
        }
    }
    assert!(saw_ssa, "no `SSA: true`");
    funcs
}

fn vname(r: Reg, t: Target) -> String {
    match r {
        Reg::V(v) => format!("V{}", v.0),
        Reg::P(p) => minir_reg(t, p),
    }
}

/// A variable pinned to a physical register (exported through a dedicated-register copy).
fn phys_pinned(o: &compiler::mir::Operand) -> bool {
    matches!((o.reg, o.pin), (Reg::V(_), Some(Pin::Phys(_))))
}

/// The LAO's control operators: each must end its Minir block (`Minir.c`).
const CONTROL: [&str; 5] = ["_CALL", "_IFTRUE", "_GOTO", "_JUMP", "_RETURN"];

/// Checks the rules of the LAO's reader that do not depend on our function: block names
/// (one prefix, not `Block_`, unique), every block with `preds` and `succs`, `preds` equal
/// to the blocks naming it in `succs` in `bbs` order, control operations last, operand
/// counts of the generic control operators, fall-through first.
fn check_reader_rules(y: &YFunc) {
    let pos: HashMap<&str, usize> = y
        .bbs
        .iter()
        .enumerate()
        .map(|(k, b)| (b.label.as_str(), k))
        .collect();
    assert_eq!(
        pos.len(),
        y.bbs.len(),
        "@{}: duplicate block names",
        y.label
    );
    for (k, b) in y.bbs.iter().enumerate() {
        let ctx = format!("@{} {}", y.label, b.label);
        let num = b
            .label
            .strip_prefix("BB")
            .unwrap_or_else(|| panic!("{ctx}: prefix"));
        assert!(
            num.parse::<usize>().is_ok() && (num == "0" || !num.starts_with('0')),
            "{ctx}"
        );
        assert!(
            b.has_flow.0 && b.has_flow.1,
            "{ctx}: preds and succs required under SSA"
        );
        for s in &b.succs {
            assert!(pos.contains_key(s.as_str()), "{ctx}: unknown succ {s}");
        }
        let want: Vec<String> = y
            .bbs
            .iter()
            .filter(|p| p.succs.contains(&b.label))
            .map(|p| p.label.clone())
            .collect();
        assert_eq!(
            b.preds, want,
            "{ctx}: preds = the blocks naming it, in bbs order"
        );
        for (i, op) in b.ops.iter().enumerate() {
            let name = op.op();
            if CONTROL.contains(&name.as_str()) {
                assert_eq!(i + 1, b.ops.len(), "{ctx}: control {name} not last");
            }
            let (defs, uses) = (op.list("defs"), op.list("uses"));
            let target = op.fields.get("target").map(Val::text);
            match name.as_str() {
                "_IFTRUE" => {
                    assert_eq!(defs.len(), 0, "{ctx}");
                    assert_eq!(uses.len(), 2, "{ctx}: [condition, label]");
                    assert_eq!(Some(&uses[1]), target.as_ref(), "{ctx}");
                    assert_eq!(b.succs.len(), 2, "{ctx}: two successors");
                    assert_eq!(b.succs[1], uses[1], "{ctx}: taken edge second");
                    let next = y.bbs.get(k + 1).map(|n| n.label.clone());
                    assert_eq!(
                        Some(&b.succs[0]),
                        next.as_ref(),
                        "{ctx}: fall-through first"
                    );
                }
                "_GOTO" => {
                    assert_eq!(uses.len(), 1, "{ctx}");
                    assert_eq!(Some(&uses[0]), target.as_ref(), "{ctx}");
                    assert_eq!(b.succs, uses, "{ctx}");
                }
                "_CALL" => {
                    assert!(defs.is_empty() && uses.len() == 1, "{ctx}: [callee] only");
                    assert_eq!(b.succs, vec![y.bbs[k + 1].label.clone()], "{ctx}");
                }
                "_RETURN" => {
                    assert!(
                        defs.is_empty() && uses.is_empty() && b.succs.is_empty(),
                        "{ctx}"
                    )
                }
                "_COPY" => assert!(defs.len() == 1 && uses.len() == 1, "{ctx}"),
                _ => {}
            }
            for u in uses.iter().filter(|u| u.contains('@')) {
                assert!(u.contains("'@"), "{ctx}: a relocation must be quoted: {u}");
            }
        }
    }
}

/// Checks one exported function against the machine function it came from.
fn check_function(f: &Function, y: &YFunc, freqs: Option<&[Option<u64>]>) {
    assert_eq!(y.label, f.name);
    check_reader_rules(y);
    let n = f.blocks.len();
    // Each Minir block belongs to the last `BB<b>` (b < n) before it.
    let mut origin: Vec<usize> = Vec::with_capacity(y.bbs.len());
    let mut firsts = Vec::new();
    for (k, yb) in y.bbs.iter().enumerate() {
        let id: usize = yb.label[2..].parse().unwrap();
        if id < n {
            firsts.push(id);
            origin.push(id);
        } else {
            assert!(k > 0, "@{}: first block must be BB0", f.name);
            origin.push(origin[k - 1]);
        }
    }
    assert_eq!(
        firsts,
        (0..n).collect::<Vec<_>>(),
        "@{}: our blocks in order",
        f.name
    );
    let pos: HashMap<String, usize> = y
        .bbs
        .iter()
        .enumerate()
        .map(|(k, b)| (b.label.clone(), k))
        .collect();
    // The CFG: edges into first blocks, by origin, are ours; other edges stay inside.
    let mut edges = HashSet::new();
    for (k, yb) in y.bbs.iter().enumerate() {
        for s in &yb.succs {
            let q = pos[s];
            if y.bbs[q].label == minir_block(compiler::mir::BlockId(origin[q] as u32)) {
                edges.insert((origin[k], origin[q]));
            } else {
                assert_eq!(
                    origin[q], origin[k],
                    "@{}: {s} continues another block",
                    f.name
                );
            }
        }
    }
    let ours: HashSet<(usize, usize)> = f
        .block_ids()
        .flat_map(|b| {
            f.block(b)
                .successors()
                .into_iter()
                .map(move |s| (b.index(), s.index()))
        })
        .collect();
    assert_eq!(edges, ours, "@{}: the CFG", f.name);
    let info = CfgInfo::compute(f);
    let mut defined: HashMap<String, usize> = HashMap::new();
    let mut used: HashSet<String> = HashSet::new();
    let mut vars: HashSet<String> = HashSet::new();
    for b in f.block_ids() {
        let ctx = format!("@{} b{}", f.name, b.0);
        let mine: Vec<usize> = (0..y.bbs.len())
            .filter(|&k| origin[k] == b.index())
            .collect();
        let want_freq = freqs
            .and_then(|v| v.get(b.index()).copied().flatten())
            .unwrap_or_else(|| info.weight(b));
        for &k in &mine {
            assert_eq!(
                y.bbs[k].freq, want_freq,
                "{ctx}: freq of {}",
                y.bbs[k].label
            );
        }
        let first = &y.bbs[mine[0]];
        let pred_origins: Vec<usize> = first.preds.iter().map(|p| origin[pos[p]]).collect();
        let ops: Vec<&YOp> = mine.iter().flat_map(|&k| &y.bbs[k].ops).collect();
        let insts = &f.block(b).insts;
        let term_at = insts
            .iter()
            .rposition(|i| !i.is_terminator())
            .map_or(0, |k| k + 1);
        let mut at = 0;
        for inst in insts {
            for o in inst.defs.iter().chain(&inst.uses) {
                if let Reg::V(v) = o.reg {
                    vars.insert(format!("V{}", v.0));
                }
            }
        }
        for inst in &insts[..term_at] {
            at = check_inst(f, inst, &ops, at, &pred_origins, &ctx);
        }
        at = check_terminators(f, b, &insts[term_at..], &ops, at, &ctx);
        assert_eq!(at, ops.len(), "{ctx}: ops left over");
        for op in &ops {
            for d in op.list("defs").into_iter().filter(|d| d.starts_with('V')) {
                *defined.entry(d).or_default() += 1;
            }
            used.extend(op.list("uses").into_iter().filter(|u| u.starts_with('V')));
        }
    }
    for (v, n) in &defined {
        assert_eq!(*n, 1, "@{}: {v} defined {n} times (not SSA)", f.name);
    }
    for u in &used {
        assert!(
            defined.contains_key(u),
            "@{}: {u} used, never defined",
            f.name
        );
    }
    let named: HashSet<String> = defined.keys().chain(&used).cloned().collect();
    assert_eq!(named, vars, "@{}: the variables of the export", f.name);
}

/// The terminators: `_RETURN`; `_GOTO`; or `_IFTRUE` on the branch's condition whose
/// label is where control goes when it holds (`br`: its target; `brf`: the goto's), then
/// possibly the jump block's `_GOTO` to the other block.
fn check_terminators(
    f: &Function,
    b: BlockId,
    terms: &[Inst],
    ops: &[&YOp],
    mut at: usize,
    ctx: &str,
) -> usize {
    let t = f.target;
    let name = |k: usize| ops.get(k).map(|o| o.op()).unwrap_or_default();
    match terms {
        [] => {}
        [r] if r.control() == Control::Return => {
            assert_eq!(name(at), "_RETURN", "{ctx}");
            at += 1;
        }
        [j] => {
            assert_eq!(name(at), "_GOTO", "{ctx}");
            assert_eq!(
                ops[at].list("uses"),
                vec![minir_block(j.branch_target().unwrap())]
            );
            at += 1;
        }
        [br, j] => {
            let (bt, jt) = (br.branch_target().unwrap(), j.branch_target().unwrap());
            if bt == jt {
                assert_eq!(name(at), "_GOTO", "{ctx}");
                return at + 1;
            }
            let on_false = matches!(
                br.opc,
                Opc::St231(simulator::isa::st231::Opcode::Brf)
                    | Opc::St120(
                        simulator::isa::st120::Opcode::GotoF | simulator::isa::st120::Opcode::JumpF
                    )
            );
            let (when_true, otherwise) = if on_false { (jt, bt) } else { (bt, jt) };
            assert_eq!(name(at), "_IFTRUE", "{ctx}");
            let uses = ops[at].list("uses");
            assert_eq!(uses[0], vname(br.uses[0].reg, t), "{ctx}: the condition");
            assert_eq!(
                uses[1],
                minir_block(when_true),
                "{ctx}: taken when the condition holds"
            );
            at += 1;
            if otherwise.index() != b.index() + 1 {
                assert_eq!(name(at), "_GOTO", "{ctx}: jump block");
                assert_eq!(ops[at].list("uses"), vec![minir_block(otherwise)], "{ctx}");
                at += 1;
            }
        }
        _ => panic!("{ctx}: unexpected terminators {terms:?}"),
    }
    at
}

/// Checks the ops of one (non-terminator) instruction starting at `ops[at]`; returns the
/// index after them.
fn check_inst(
    f: &Function,
    inst: &Inst,
    ops: &[&YOp],
    mut at: usize,
    pred_origins: &[usize],
    ctx: &str,
) -> usize {
    let t = f.target;
    let op_at = |k: usize| {
        *ops.get(k)
            .unwrap_or_else(|| panic!("{ctx}: missing op for {inst:?}"))
    };
    if inst.is_phi() {
        let op = op_at(at);
        assert_eq!(op.op(), "_PHI", "{ctx}");
        assert_eq!(op.list("defs"), vec![vname(inst.defs[0].reg, t)], "{ctx}");
        let uses = op.list("uses");
        assert_eq!(
            uses.len(),
            pred_origins.len(),
            "{ctx}: one phi use per pred"
        );
        for (b, u) in inst.phi_blocks().iter().zip(&inst.uses) {
            let k = pred_origins.iter().position(|p| *p == b.index()).unwrap();
            assert_eq!(uses[k], vname(u.reg, t), "{ctx}: phi use from {b}");
        }
        return at + 1;
    }
    // Copies into dedicated registers, one per use pinned to a physical register, in order.
    for u in inst.uses.iter().filter(|o| phys_pinned(o)) {
        let Some(Pin::Phys(p)) = u.pin else {
            unreachable!()
        };
        let op = op_at(at);
        assert_eq!(op.op(), "_COPY", "{ctx}: pin copy before {inst:?}");
        assert_eq!(op.list("defs"), vec![minir_reg(t, p)], "{ctx}");
        assert_eq!(op.list("uses"), vec![vname(u.reg, t)], "{ctx}");
        at += 1;
    }
    if !matches!(inst.opc, Opc::Input | Opc::Output) {
        let op = op_at(at);
        let want = match inst.opc {
            Opc::Copy => "_COPY",
            Opc::ParCopy => "_PCOPY",
            Opc::Psi => "_PSI",
            _ if inst.control() == Control::Call => "_CALL",
            _ => "_APPLY",
        };
        assert_eq!(op.op(), want, "{ctx}");
        if want == "_CALL" {
            // The callee only; registers travel through the copies.
            let uses = op.list("uses");
            assert_eq!(uses.len(), 1, "{ctx}");
            assert!(
                uses[0].starts_with('[') || uses[0].starts_with('V'),
                "{ctx}: callee {uses:?}"
            );
        } else {
            let defs = op.list("defs");
            assert_eq!(defs.len(), inst.defs.len(), "{ctx}: defs of {inst:?}");
            for (d, o) in defs.iter().zip(&inst.defs) {
                match (o.reg, o.pin) {
                    (Reg::V(_), Some(Pin::Phys(p))) => assert_eq!(*d, minir_reg(t, p), "{ctx}"),
                    _ => assert_eq!(*d, vname(o.reg, t), "{ctx}"),
                }
            }
            let uses = op.list("uses");
            assert!(uses.len() >= inst.uses.len(), "{ctx}: uses of {inst:?}");
            for (u, o) in uses.iter().zip(&inst.uses) {
                match (o.reg, o.pin) {
                    (Reg::V(_), Some(Pin::Phys(p))) => assert_eq!(*u, minir_reg(t, p), "{ctx}"),
                    // ST231 `$r0` reads as zero; kv3's `$r0` does not: the immediate 0.
                    (Reg::P(p), None)
                        if t == Target::St231
                            && p.num == 0
                            && p.class == compiler::mir::RegClass::R =>
                    {
                        assert_eq!(*u, "0", "{ctx}")
                    }
                    _ => assert_eq!(*u, vname(o.reg, t), "{ctx}"),
                }
            }
            assert!(
                uses.len() <= inst.uses.len() + 1,
                "{ctx}: at most one immediate"
            );
        }
        at += 1;
    }
    for d in inst.defs.iter().filter(|o| phys_pinned(o)) {
        let Some(Pin::Phys(p)) = d.pin else {
            unreachable!()
        };
        let op = op_at(at);
        assert_eq!(op.op(), "_COPY", "{ctx}: pin copy after {inst:?}");
        assert_eq!(op.list("defs"), vec![vname(d.reg, t)], "{ctx}");
        assert_eq!(op.list("uses"), vec![minir_reg(t, p)], "{ctx}");
        at += 1;
    }
    at
}

fn check_module(m: &Module, freqs: Option<&[Vec<Option<u64>>]>) -> String {
    let text = module_to_minir(m, freqs);
    let funcs = read_minir(&text);
    assert_eq!(funcs.len(), m.functions.len());
    for (k, (f, y)) in m.functions.iter().zip(&funcs).enumerate() {
        check_function(f, y, freqs.and_then(|v| v.get(k)).map(Vec::as_slice));
    }
    text
}

#[test]
fn every_lai_example_exports_completely() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../programs/lai");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "lai") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let lai = parse_lai_full(&p.display().to_string(), &text, None)
            .unwrap_or_else(|d| panic!("{}", d.render()));
        check_module(&lai.module, Some(&lai.freqs));
        n += 1;
    }
    assert!(n >= 8, "the eight examples");
}

/// A loop with `.freq` (overrides 5^depth), a call with ABI pins, a swap of two phis.
const SWAP_LAI: &str = "\
.target st231
.proc f
    .input %a=$r16, %b=$r17
    mov %n = 3
loop:
    .freq 40
    mov %t = %a
    mov %a = %b
    mov %b = %t
    sub %n = %n, 1
    cmpgt %c = %n, 0
    br %c, loop
    goto out
out:
    call %r = g, %a, %b
    .output %r=$r16
    return
.endp
.proc g
    .input %x=$r16, %y=$r17
    sub %d = %x, %y
    .output %d=$r16
    return
.endp
";

#[test]
fn lai_frequencies_calls_and_swaps() {
    let lai =
        parse_lai_full("swap.lai", SWAP_LAI, None).unwrap_or_else(|d| panic!("{}", d.render()));
    let text = check_module(&lai.module, Some(&lai.freqs));
    assert!(text.contains("freq: 40"), "{text}");
    let funcs = read_minir(&text);
    let ops: Vec<&YOp> = funcs[0].bbs.iter().flat_map(|b| &b.ops).collect();
    let call = ops.iter().find(|o| o.op() == "_CALL").expect("a call");
    // As in the LAO's inputs: the callee only; arguments and result through `_COPY`s.
    assert_eq!(call.list("uses"), ["[g]"]);
    assert!(call.list("defs").is_empty());
    assert!(call.list("implicit_defs").contains(&"$r16".to_string()));
    // The loop's two variables swap: after SSA construction, phis (the copies fold away).
    let phis = ops.iter().filter(|o| o.op() == "_PHI").count();
    assert!(phis >= 2, "{text}");
}

/// The checks are not vacuous: an export with a pin copy dropped, or with a block's `preds`
/// reordered, is rejected.
#[test]
fn the_checks_reject_a_tampered_export() {
    let lai = parse_lai_full("swap.lai", SWAP_LAI, None).unwrap();
    let text = module_to_minir(&lai.module, Some(&lai.freqs));
    let f = &lai.module.functions[0];
    let check = |t: String| {
        std::panic::catch_unwind(|| {
            let funcs = read_minir(&t);
            check_function(f, &funcs[0], Some(&lai.freqs[0]));
        })
    };
    assert!(check(text.clone()).is_ok());
    let mut dropped = false;
    let no_copy: String = text
        .lines()
        .filter(|l| {
            let hit = !dropped && l.contains("{op: _COPY, defs: [V");
            dropped |= hit;
            !hit
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(dropped);
    assert!(check(no_copy).is_err(), "a missing pin copy");
    let swapped = text.replacen("preds: [BB0, BB1]", "preds: [BB1, BB0]", 1);
    assert_ne!(swapped, text);
    assert!(check(swapped).is_err(), "phi uses out of preds order");
    // An operation after a control operation in the same block (the LAO throws).
    let mut moved = false;
    let after_call: String = text
        .lines()
        .map(|l| {
            let mut s = format!("{l}\n");
            if !moved && l.contains("{op: _CALL") {
                s.push_str("          - {op: _APPLY, defs: [V999], uses: [1]}\n");
                moved = true;
            }
            s
        })
        .collect();
    assert!(moved);
    assert!(
        check(after_call).is_err(),
        "an op after a call in its block"
    );
    // The prefix `Block_` (rejected by `Minir_bbIndexOfName`).
    assert!(
        check(text.replace("BB", "Block_")).is_err(),
        "Block_ labels"
    );
    // A relocation left unquoted (`@` cannot start a YAML plain scalar).
    let t2 = text.replacen("uses: [[g]]", "uses: [[g, @lo]]", 1);
    assert_ne!(t2, text);
    assert!(check(t2).is_err(), "unquoted relocation");
}

fn c_module(src: &str, target: Target) -> Module {
    let mut m = compiler::front::compile_source_to_ir("t.c", src, &Default::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    run_passes(&mut m, &mid_level_passes(OptLevel::O2), &mut |_, _| Ok(())).unwrap();
    add_runtime(&mut m, OptLevel::O2).unwrap();
    select_module(&m, target, &IselOptions::default()).unwrap()
}

const C_SRC: &str = "\
int dot(const short *a, const short *b, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}
int pick(int a, int b, int c) { return c ? b : a; }
short xs[4] = {1, 2, 3, 4};
short ys[4] = {5, 6, 7, 8};
int main(void) { return dot(xs, ys, 4) + pick(1, 2, 3) / 3; }
";

#[test]
fn c_programs_export_completely_on_both_targets() {
    for t in [Target::St231, Target::St120] {
        let m = c_module(C_SRC, t);
        let text = check_module(&m, None);
        let funcs = read_minir(&text);
        let dot = funcs.iter().find(|f| f.label == "dot").unwrap();
        // The loop body is weighted 5, the entry 1.
        assert_eq!(dot.bbs[0].freq, 1);
        assert!(dot.bbs.iter().any(|b| b.freq == 5), "{t}: {text}");
        // Parameters arrive in dedicated registers.
        let first = &dot.bbs[0].ops[0];
        assert_eq!(first.op(), "_COPY", "{t}: {text}");
        assert!(
            first.list("uses")[0].starts_with('$'),
            "{t}: first op copies a parameter out of its register: {text}"
        );
    }
}
