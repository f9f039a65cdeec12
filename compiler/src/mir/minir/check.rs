//! The rules of the LAO's Minir reader (`kalray/lao`, `LAO/ECL/LIR/Minir.c`, with the operand
//! counts of the generic operators from `LAO/kvx/kv3/Operator.tuple`), checked on a document
//! read by [`super::read`]: what would make the reader throw, or leave an SSA function the
//! LAO's `SSAForm_destruct` cannot handle. Facts only; no code of the LAO.
//!
//! Checked: `SSA: true`; block names (one alphabetic prefix for the whole document, not
//! `Block_`, then a decimal number without leading zeros; unique in their function); every
//! block with `preds` or `succs` (required under SSA), names that exist, `preds` listing
//! exactly the blocks whose `succs` name the block, in `bbs` order (the order of the entering
//! edges, which phi uses follow); every operation a known operator with known keys; the
//! operand counts of each operator (every `_APPLY` has exactly one result; a `_PHI` has one
//! result and one use per `preds` entry; `_PCOPY` as many results as uses); control
//! operations last in their block; `target` naming a block and equal to the label operand;
//! operands well formed (`$reg`, `V<n>`, an integer, a block name where a label is expected, a
//! symbol sequence); SSA: every variable defined once, every used variable defined, no
//! dedicated register or immediate as a phi or parallel-copy operand. With `kv3_registers`, every `$` name must be a kv3
//! general register `$r0`–`$r63` (the only registers a kv3 build of the LAO can name).
//!
//! Complexity: linear in the document (hash sets per function).

use super::read::{MDoc, MFunction, MOp, Val};
use std::collections::{HashMap, HashSet};

/// (operator, results, uses): `None` for a list (any count).
const OPERATORS: &[(&str, Option<usize>, Option<usize>)] = &[
    ("_APPLY", Some(1), None),
    ("_PHI", Some(1), None),
    ("_PSI", Some(1), None),
    ("_PCOPY", None, None),
    ("_COPY", Some(1), Some(1)),
    ("_ADD", Some(1), Some(2)),
    ("_SUB", Some(1), Some(2)),
    ("_MUL", Some(1), Some(2)),
    ("_GOTO", Some(0), Some(1)),
    ("_IFTRUE", Some(0), Some(2)),
    ("_CALL", Some(0), Some(1)),
    ("_RETURN", Some(0), Some(0)),
];

/// Operators with the `Control` attribute among those above.
const CONTROL: &[&str] = &["_GOTO", "_IFTRUE", "_CALL", "_RETURN"];

const OP_KEYS: &[&str] = &[
    "op",
    "defs",
    "uses",
    "target",
    "freq",
    "fallthru",
    "implicit_defs",
    "clobbers",
    "node",
    "flags",
];

/// Every violation of the reader's rules in `doc`, each naming its line.
pub fn lao_reader_rules(doc: &MDoc, kv3_registers: bool) -> Vec<String> {
    let mut errs = Vec::new();
    if doc.ssa != Some(true) {
        errs.push("the document does not say `SSA: true`".to_string());
    }
    let mut prefix: Option<String> = None;
    for f in &doc.functions {
        check_function(f, &mut prefix, kv3_registers, &mut errs);
    }
    errs
}

/// The number of a block name with the program's prefix, or why not.
fn block_number(name: &str, prefix: &mut Option<String>) -> Result<u64, String> {
    let digits = name
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(name.len());
    let (p, num) = name.split_at(digits);
    let want = prefix.get_or_insert_with(|| p.to_string());
    if p.is_empty() || p == "Block_" || p != want {
        return Err(format!(
            "block name `{name}`: prefix `{p}` (the program's is `{want}`; not empty, not `Block_`)"
        ));
    }
    if p.starts_with(['V', 'T', '_', '$']) {
        return Err(format!("block name `{name}` reads as an operand"));
    }
    if num.is_empty() || (num.len() > 1 && num.starts_with('0')) {
        return Err(format!("block name `{name}`: no decimal number"));
    }
    num.parse::<u64>()
        .map_err(|_| format!("block name `{name}`: no decimal number"))
}

fn check_function(f: &MFunction, prefix: &mut Option<String>, kv3: bool, errs: &mut Vec<String>) {
    let at = |line: usize| format!("line {line} (@{})", f.label);
    if f.label.is_empty() {
        errs.push(format!("{}: a function without a label", at(f.line)));
    }
    let mut pos: HashMap<&str, usize> = HashMap::new();
    let mut numbers = HashSet::new();
    for (k, b) in f.blocks.iter().enumerate() {
        match block_number(&b.label, prefix) {
            Ok(n) if !numbers.insert(n) => errs.push(format!(
                "{}: block number of `{}` twice",
                at(b.line),
                b.label
            )),
            Ok(_) => {}
            Err(e) => errs.push(format!("{}: {e}", at(b.line))),
        }
        pos.insert(&b.label, k);
        if b.preds.is_none() && b.succs.is_none() {
            errs.push(format!(
                "{}: block `{}` has neither `preds` nor `succs` (required under SSA)",
                at(b.line),
                b.label
            ));
        }
        if let Some(fr) = &b.freq {
            if fr.parse::<f32>().is_err() {
                errs.push(format!("{}: `freq: {fr}` is not a float", at(b.line)));
            }
        }
    }
    // Edges: from `succs` and `preds` (the reader takes both); `preds` must list them all.
    let mut entering: Vec<Vec<usize>> = vec![Vec::new(); f.blocks.len()];
    for (k, b) in f.blocks.iter().enumerate() {
        for s in b.succs.iter().flatten() {
            match pos.get(s.as_str()) {
                Some(&q) if !entering[q].contains(&k) => entering[q].push(k),
                Some(_) => {}
                None => errs.push(format!("{}: unknown successor `{s}`", at(b.line))),
            }
        }
    }
    for (k, b) in f.blocks.iter().enumerate() {
        for p in b.preds.iter().flatten() {
            match pos.get(p.as_str()) {
                Some(&q) if !entering[k].contains(&q) => entering[k].push(q),
                Some(_) => {}
                None => errs.push(format!("{}: unknown predecessor `{p}`", at(b.line))),
            }
        }
    }
    for (k, b) in f.blocks.iter().enumerate() {
        let mut want = entering[k].clone();
        want.sort_unstable();
        let want: Vec<&str> = want.iter().map(|&q| f.blocks[q].label.as_str()).collect();
        let got: Vec<&str> = b.preds.iter().flatten().map(String::as_str).collect();
        if got != want {
            errs.push(format!(
                "{}: `preds: [{}]` of `{}` must list its entering edges in `bbs` order: [{}]",
                at(b.line),
                got.join(", "),
                b.label,
                want.join(", ")
            ));
        }
    }
    let mut defined: HashMap<String, usize> = HashMap::new();
    let mut used: Vec<(String, usize)> = Vec::new();
    for b in &f.blocks {
        let npreds = b.preds.as_ref().map_or(0, Vec::len);
        for (i, op) in b.ops.iter().enumerate() {
            let name = op.op();
            let ctx = format!("{}: `{name}`", at(op.line));
            check_operation(op, &ctx, &pos, npreds, kv3, errs);
            if CONTROL.contains(&name.as_str()) && i + 1 != b.ops.len() {
                errs.push(format!("{ctx} is control but not the last of its block"));
            }
            for d in op.list("defs") {
                if is_variable(&d) {
                    *defined.entry(var_key(&d)).or_default() += 1;
                }
            }
            for u in op.list("uses") {
                if is_variable(&u) {
                    used.push((var_key(&u), op.line));
                }
            }
        }
    }
    for (v, n) in &defined {
        if *n > 1 {
            errs.push(format!("@{}: V{v} defined {n} times (not SSA)", f.label));
        }
    }
    for (v, line) in used {
        if !defined.contains_key(&v) {
            errs.push(format!("{}: V{v} used but never defined", at(line)));
        }
    }
}

fn check_operation(
    op: &MOp,
    ctx: &str,
    blocks: &HashMap<&str, usize>,
    npreds: usize,
    kv3: bool,
    errs: &mut Vec<String>,
) {
    let name = op.op();
    for (k, _) in &op.fields {
        if !OP_KEYS.contains(&k.as_str()) {
            errs.push(format!("{ctx}: unknown key `{k}`"));
        }
    }
    let Some(&(_, nd, nu)) = OPERATORS.iter().find(|(n, _, _)| *n == name) else {
        errs.push(format!("{ctx}: unknown operator"));
        return;
    };
    let (defs, uses) = (seq(op, "defs"), seq(op, "uses"));
    if nd.is_some_and(|n| n != defs.len()) {
        errs.push(format!(
            "{ctx}: {} results where the operator has {}{}",
            defs.len(),
            nd.unwrap(),
            if name == "_APPLY" {
                " (every `_APPLY` needs exactly one result)"
            } else {
                ""
            }
        ));
    }
    if nu.is_some_and(|n| n != uses.len()) {
        errs.push(format!(
            "{ctx}: {} uses where the operator has {}",
            uses.len(),
            nu.unwrap()
        ));
    }
    match name.as_str() {
        "_PHI" => {
            if uses.len() != npreds {
                errs.push(format!(
                    "{ctx}: {} uses for {npreds} predecessors (one per `preds` entry)",
                    uses.len()
                ));
            }
            // Every phi operand must be a variable (`SSAForm_makeConventional`).
            for o in defs.iter().chain(&uses) {
                if !o.as_scalar().is_some_and(is_variable) {
                    errs.push(format!(
                        "{ctx}: phi operand `{}` is not a variable",
                        o.text()
                    ));
                }
            }
        }
        "_PCOPY" if defs.len() != uses.len() => {
            errs.push(format!(
                "{ctx}: {} results for {} uses",
                defs.len(),
                uses.len()
            ));
        }
        _ => {}
    }
    // Labels: where control expects one (the last use of `_GOTO`/`_IFTRUE`), and `target`.
    let label_at = match name.as_str() {
        "_GOTO" | "_IFTRUE" => uses.len().checked_sub(1),
        _ => None,
    };
    let label = label_at.and_then(|k| uses[k].as_scalar());
    if let Some(l) = label {
        if !blocks.contains_key(l) {
            errs.push(format!("{ctx}: `{l}` is not a block"));
        }
    }
    if let Some(t) = op.get("target") {
        if label.is_none_or(|l| Some(l) != t.as_scalar()) {
            errs.push(format!(
                "{ctx}: `target: {}` is not the label operand",
                t.text()
            ));
        }
    }
    for (k, o) in defs.iter().enumerate() {
        match o.as_scalar() {
            Some(s) if is_variable(s) => {}
            Some(s) if s.starts_with('$') => check_register(s, ctx, kv3, errs),
            _ => errs.push(format!(
                "{ctx}: result {k} `{}` is not a register",
                o.text()
            )),
        }
    }
    for (k, o) in uses.iter().enumerate() {
        if Some(k) == label_at {
            continue;
        }
        match o {
            Val::Seq(items) => check_symbol(items, ctx, errs),
            Val::Scalar(s) if is_variable(s) || is_integer(s) => {}
            Val::Scalar(s) if s.starts_with('$') => check_register(s, ctx, kv3, errs),
            Val::Scalar(s) => errs.push(format!("{ctx}: use `{s}` is not an operand")),
        }
    }
    for r in op.list("implicit_defs") {
        check_register(&r, ctx, kv3, errs);
    }
}

fn seq(op: &MOp, key: &str) -> Vec<Val> {
    match op.get(key) {
        Some(Val::Seq(v)) => v.clone(),
        _ => vec![],
    }
}

trait AsScalar {
    fn as_scalar(&self) -> Option<&str>;
}

impl AsScalar for Val {
    fn as_scalar(&self) -> Option<&str> {
        match self {
            Val::Scalar(s) => Some(s),
            Val::Seq(_) => None,
        }
    }
}

fn check_register(s: &str, ctx: &str, kv3: bool, errs: &mut Vec<String>) {
    let ok = s.len() > 1 && s[1..].chars().all(|c| c.is_ascii_alphanumeric());
    if !ok {
        errs.push(format!("{ctx}: `{s}` is not a register name"));
    } else if kv3 && !super::kv3_nameable(s) {
        errs.push(format!("{ctx}: `{s}` is not a kv3 register ($r0-$r63)"));
    }
}

/// `[symbol, +off, -off, '@reloc']` (`Minir_parseSymbolic`).
fn check_symbol(items: &[Val], ctx: &str, errs: &mut Vec<String>) {
    let ok = match items.split_first() {
        Some((Val::Scalar(name), rest)) => {
            !name.is_empty()
                && rest.iter().all(|v| match v.as_scalar() {
                    Some(s) if s.starts_with('+') || s.starts_with('-') => is_integer(&s[1..]),
                    Some(s) => s.starts_with("'@") && s.ends_with('\''),
                    None => false,
                })
        }
        _ => false,
    };
    if !ok {
        let text = Val::Seq(items.to_vec()).text();
        errs.push(format!("{ctx}: `{text}` is not a symbol operand"));
    }
}

/// `V<n>`, `T<n>`, `_<n>`, `V_<n>`: a virtual register (an SSA variable).
fn is_variable(s: &str) -> bool {
    let rest = s
        .strip_prefix("V_")
        .or_else(|| s.strip_prefix(['V', 'T', '_']));
    rest.is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_digit()))
}

/// The temporary number a variable names (`V7`, `T7`, `_7` are one temporary).
fn var_key(s: &str) -> String {
    s.trim_start_matches(['V', 'T', '_'])
        .trim_start_matches('0')
        .to_string()
}

fn is_integer(s: &str) -> bool {
    let d = s.strip_prefix(['-', '+']).unwrap_or(s);
    !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::super::read::parse;
    use super::*;

    const OK: &str = "SSA: true\nfunctions:\n  - label: f\n    bbs:\n      - label: BB0\n        preds: []\n        succs: [BB1, BB2]\n        ops:\n          - {op: _APPLY, defs: [V1], uses: [1]}\n          - {op: _IFTRUE, defs: [], uses: [V1, BB2], target: BB2}\n      - label: BB1\n        preds: [BB0]\n        succs: [BB2]\n        ops:\n          - {op: _APPLY, defs: [V2], uses: [V1, [g, +4]]}\n          - {op: _GOTO, defs: [], uses: [BB2], target: BB2}\n      - label: BB2\n        preds: [BB0, BB1]\n        succs: []\n        ops:\n          - {op: _PHI, defs: [V3], uses: [V1, V2]}\n          - {op: _COPY, defs: [$r16], uses: [V3]}\n          - {op: _RETURN, defs: [], uses: []}\n";

    fn errors(text: &str) -> Vec<String> {
        lao_reader_rules(&parse(text).unwrap(), true)
    }

    #[test]
    fn a_valid_document_passes() {
        assert_eq!(errors(OK), Vec::<String>::new());
    }

    /// Each rule on its own: one edit, one violation naming it.
    #[test]
    fn each_rule_catches_its_violation() {
        let cases = [
            (
                "defs: [V2], uses: [V1, [g",
                "defs: [], uses: [V1, [g",
                "exactly one result",
            ),
            (
                "uses: [V1, V2]}",
                "uses: [V1]}",
                "1 uses for 2 predecessors",
            ),
            ("preds: [BB0, BB1]", "preds: [BB1, BB0]", "in `bbs` order"),
            (
                "        preds: [BB0]\n        succs: [BB2]\n",
                "",
                "neither `preds` nor `succs`",
            ),
            ("label: BB2", "label: Block_2", "prefix"),
            (
                "[V1, BB2], target: BB2",
                "[V1, BB2], target: BB1",
                "is not the label operand",
            ),
            (
                "defs: [V3], uses",
                "defs: [$r16], uses",
                "is not a variable",
            ),
            ("defs: [$r16]", "defs: [$b1]", "not a kv3 register"),
            ("defs: [V2]", "defs: [V1]", "defined 2 times"),
            (
                "uses: [V1, [g, +4]]",
                "uses: [V9, [g, +4]]",
                "never defined",
            ),
            ("[g, +4]", "[g, @lo]", "not a symbol operand"),
            (
                "_APPLY, defs: [V1]",
                "_APPLYX, defs: [V1]",
                "unknown operator",
            ),
        ];
        for (from, to, want) in cases {
            let bad = OK.replacen(from, to, 1);
            assert_ne!(bad, OK, "{from}");
            let e = errors(&bad);
            assert!(e.iter().any(|m| m.contains(want)), "{want}: {e:?}");
        }
        // A control operation before the end of its block.
        let bad = OK.replacen(
            "          - {op: _COPY, defs: [$r16], uses: [V3]}\n          - {op: _RETURN, defs: [], uses: []}\n",
            "          - {op: _RETURN, defs: [], uses: []}\n          - {op: _COPY, defs: [$r16], uses: [V3]}\n",
            1,
        );
        assert!(errors(&bad).iter().any(|m| m.contains("not the last")));
    }
}
