//! SSA verifier: checks that a function is in strict SSA form and structurally sound, and
//! reports every problem with its place (function, block, instruction index).
//!
//! Checked:
//! * structure — at least one block; branch targets exist and differ; every value number is
//!   in range;
//! * phis — only at the head of a block, never in the entry block, always with a result, and
//!   exactly one argument per CFG predecessor (no missing, duplicate or foreign predecessor);
//! * single definition — each value is defined once (parameters count as definitions);
//! * dominance — every used value has a definition that dominates the use: an earlier
//!   instruction of the same block or a definition in a strictly dominating block; for a phi
//!   argument, the definition dominates the end of the corresponding predecessor.
//!   Uses in unreachable blocks (and phi arguments from unreachable predecessors) are exempt
//!   from the dominance check, dominance being undefined there.
//!
//! [`verify_module`] also checks calls against their callees (argument count, result).
//!
//! Register types (`i32`/`ptr`) are not checked: they are hints for register-class choice and
//! the front end mixes them freely in address arithmetic.
//!
//! At most [`MAX_ERRORS`] errors are reported per function. Complexity: O(instructions), with
//! O(1) dominance queries.

use crate::analysis::cfg::Cfg;
use crate::analysis::defuse::{Def, DefUse, TERM};
use crate::analysis::dom::DomTree;
use crate::ir::{BlockId, Function, Module, Op, Value};
use std::fmt;

/// Maximum number of errors reported for one function.
pub const MAX_ERRORS: usize = 50;

/// One verification failure, located.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    pub function: String,
    pub block: Option<BlockId>,
    /// Instruction index in the block; `None` with a block means the terminator.
    pub inst: Option<usize>,
    pub message: String,
}

impl fmt::Display for VerifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@{}", self.function)?;
        match (self.block, self.inst) {
            (Some(b), Some(i)) => write!(f, " {b} inst {i}")?,
            (Some(b), None) => write!(f, " {b} terminator")?,
            _ => {}
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for VerifyError {}

/// Verifies every function of the module, and every call against its callee: a call to a
/// function of the module passes as many arguments as it has parameters and expects a result
/// only from a function that returns one; any other callee must be an interpreter builtin.
pub fn verify_module(m: &Module) -> Result<(), Vec<VerifyError>> {
    let mut errors: Vec<VerifyError> = m
        .functions
        .iter()
        .filter_map(|f| verify_function(f).err())
        .flatten()
        .collect();
    for f in &m.functions {
        check_calls(m, f, &mut errors);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

fn check_calls(m: &Module, f: &Function, errors: &mut Vec<VerifyError>) {
    for b in f.block_ids() {
        for (i, inst) in f.block(b).insts.iter().enumerate() {
            let Op::Call { callee, args } = &inst.op else {
                continue;
            };
            let message = match m.function(callee) {
                Some(g) if g.params.len() != args.len() => format!(
                    "call to @{callee} with {} argument(s); it takes {}",
                    args.len(),
                    g.params.len()
                ),
                Some(g) if inst.dst.is_some() && g.ret.is_none() => {
                    format!("call expects a result from @{callee}, which returns none")
                }
                Some(_) => continue,
                None if crate::interp::builtins::NAMES.contains(&callee.as_str()) => continue,
                None => format!("call to unknown function @{callee}"),
            };
            if errors.len() < MAX_ERRORS {
                errors.push(VerifyError {
                    function: f.name.clone(),
                    block: Some(b),
                    inst: Some(i),
                    message,
                });
            }
        }
    }
}

/// Verifies one function (see the module doc for what is checked).
pub fn verify_function(f: &Function) -> Result<(), Vec<VerifyError>> {
    let mut v = Verifier {
        f,
        errors: Vec::new(),
    };
    if f.blocks.is_empty() {
        v.error(None, None, "function has no blocks".to_string());
        return Err(v.errors);
    }
    v.check_structure();
    if v.errors.is_empty() {
        // Dominance needs a sound CFG and in-range values.
        let cfg = Cfg::compute(f);
        let dom = DomTree::compute(&cfg);
        v.check_phis(&cfg);
        let du = DefUse::compute(f);
        v.check_single_definition(&du);
        v.check_dominance(&cfg, &dom, &du);
    }
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Verifier<'f> {
    f: &'f Function,
    errors: Vec<VerifyError>,
}

impl Verifier<'_> {
    fn error(&mut self, block: Option<BlockId>, inst: Option<usize>, message: String) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(VerifyError {
                function: self.f.name.clone(),
                block,
                inst,
                message,
            });
        }
    }

    fn check_structure(&mut self) {
        let f = self.f;
        let (nb, nv) = (f.num_blocks(), f.num_values());
        for p in &f.params {
            if p.index() >= nv {
                self.error(None, None, format!("parameter {p} out of range"));
            }
        }
        for b in f.block_ids() {
            let block = f.block(b);
            let mut seen_non_phi = false;
            for (i, inst) in block.insts.iter().enumerate() {
                let mut bad = Vec::new();
                inst.op.for_each_use(|v| {
                    if v.index() >= nv {
                        bad.push(v)
                    }
                });
                if let Some(d) = inst.dst {
                    if d.index() >= nv {
                        bad.push(d);
                    }
                }
                for v in bad {
                    self.error(Some(b), Some(i), format!("value {v} out of range"));
                }
                if let Op::Phi(args) = &inst.op {
                    if seen_non_phi {
                        self.error(Some(b), Some(i), "phi after a non-phi instruction".into());
                    }
                    if b == BlockId::ENTRY {
                        self.error(Some(b), Some(i), "phi in the entry block".into());
                    }
                    if inst.dst.is_none() {
                        self.error(Some(b), Some(i), "phi without a result".into());
                    }
                    for (p, _) in args {
                        if p.index() >= nb {
                            self.error(Some(b), Some(i), format!("phi names missing block {p}"));
                        }
                    }
                } else {
                    seen_non_phi = true;
                }
            }
            let mut bad = Vec::new();
            block.term.for_each_use(|v| {
                if v.index() >= nv {
                    bad.push(v)
                }
            });
            for v in bad {
                self.error(Some(b), None, format!("value {v} out of range"));
            }
            let succs = block.term.successors();
            for s in succs {
                if s.index() >= nb {
                    self.error(Some(b), None, format!("jump to missing block {s}"));
                }
            }
            if succs.len() == 2 && succs.as_slice()[0] == succs.as_slice()[1] {
                self.error(Some(b), None, "branch with two equal targets".into());
            }
        }
    }

    fn check_phis(&mut self, cfg: &Cfg) {
        let f = self.f;
        for b in f.block_ids() {
            let preds = cfg.preds(b);
            for (i, inst) in f.block(b).insts.iter().enumerate() {
                let Op::Phi(args) = &inst.op else { break };
                for &p in preds {
                    let n = args.iter().filter(|(q, _)| *q == p).count();
                    if n != 1 {
                        let what = if n == 0 { "no" } else { "several" };
                        self.error(
                            Some(b),
                            Some(i),
                            format!("phi has {what} argument(s) for predecessor {p}"),
                        );
                    }
                }
                for (q, _) in args {
                    if !preds.contains(q) {
                        self.error(
                            Some(b),
                            Some(i),
                            format!("phi argument for {q}, which is not a predecessor"),
                        );
                    }
                }
            }
        }
    }

    fn check_single_definition(&mut self, du: &DefUse) {
        let f = self.f;
        let mut seen = vec![false; f.num_values()];
        for p in &f.params {
            if std::mem::replace(&mut seen[p.index()], true) {
                self.error(None, None, format!("parameter {p} listed twice"));
            }
        }
        for b in f.block_ids() {
            for (i, inst) in f.block(b).insts.iter().enumerate() {
                if let Some(d) = inst.dst {
                    if std::mem::replace(&mut seen[d.index()], true) {
                        self.error(
                            Some(b),
                            Some(i),
                            format!("{d} is defined {} times", du.num_defs(d)),
                        );
                    }
                }
            }
        }
    }

    fn check_dominance(&mut self, cfg: &Cfg, dom: &DomTree, du: &DefUse) {
        let f = self.f;
        for v in 0..f.num_values() {
            let v = Value(v as u32);
            let uses = du.uses(v);
            if uses.is_empty() {
                continue;
            }
            let def = du.def(v);
            for u in uses {
                let inst = (u.inst != TERM).then_some(u.inst as usize);
                let Some(def) = def else {
                    self.error(
                        Some(u.block),
                        inst,
                        format!("use of {v}, which is never defined"),
                    );
                    continue;
                };
                let at = u.live_block();
                if !cfg.is_reachable(u.block) || !cfg.is_reachable(at) {
                    continue;
                }
                let ok = match (def, u.phi_pred) {
                    (Def::Param(_), _) => true,
                    (Def::Inst { block, .. }, Some(pred)) => dom.dominates(block, pred),
                    (Def::Inst { block, inst: di }, None) => {
                        if block == u.block {
                            u.inst == TERM || di < u.inst
                        } else {
                            dom.strictly_dominates(block, u.block)
                        }
                    }
                };
                if !ok {
                    let place = match u.phi_pred {
                        Some(p) => format!("the end of predecessor {p}"),
                        None => "its use".to_string(),
                    };
                    self.error(
                        Some(u.block),
                        inst,
                        format!(
                            "definition of {v} (in {}) does not dominate {place}",
                            def.block()
                        ),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::cfg::tests::func;

    fn errors(src: &str) -> Vec<String> {
        match verify_function(&func(src)) {
            Ok(()) => vec![],
            Err(e) => e.iter().map(|e| e.to_string()).collect(),
        }
    }

    #[test]
    fn accepts_valid_ssa() {
        assert!(errors(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  jmp b1
b1:
  %2:i32 = phi [b0: %1], [b2: %3]
  %4:i32 = cmp.lt %2, %0
  br %4, b2, b3
b2:
  %5:i32 = const 1
  %3:i32 = add %2, %5
  jmp b1
b3:
  ret %2
}"
        )
        .is_empty());
    }

    #[test]
    fn reports_double_definition_and_non_dominating_def() {
        let e = errors(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  br %0, b1, b2
b1:
  %1:i32 = const 1
  %2:i32 = const 2
  jmp b2
b2:
  ret %2
}",
        );
        assert_eq!(
            e,
            vec![
                "@f b1 inst 0: %1 is defined 2 times",
                "@f b2 terminator: definition of %2 (in b1) does not dominate its use",
            ]
        );
    }

    #[test]
    fn reports_phi_problems() {
        let e = errors(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  br %0, b1, b2
b1:
  %3:i32 = const 3
  jmp b2
b2:
  %4:i32 = add %1, %1
  %2:i32 = phi [b0: %1], [b0: %1], [b1: %3]
  %5:i32 = phi [b0: %3], [b1: %1]
  %6:i32 = phi [b1: %1], [b3: %1]
  ret %2
b3:
  jmp b2
}",
        );
        assert_eq!(
            e,
            vec![
                "@f b2 inst 1: phi after a non-phi instruction",
                "@f b2 inst 2: phi after a non-phi instruction",
                "@f b2 inst 3: phi after a non-phi instruction",
            ]
        );
        let e = errors(
            "func @f(%0:i32) -> i32 {
b0:
  %1:i32 = const 0
  br %0, b1, b2
b1:
  %3:i32 = const 3
  jmp b2
b2:
  %2:i32 = phi [b0: %1], [b0: %1], [b1: %3]
  %5:i32 = phi [b0: %3], [b1: %1]
  %6:i32 = phi [b1: %1], [b3: %1]
  ret %2
b3:
  ret %1
}",
        );
        assert_eq!(
            e,
            vec![
                "@f b2 inst 0: phi has several argument(s) for predecessor b0",
                "@f b2 inst 2: phi has no argument(s) for predecessor b0",
                "@f b2 inst 2: phi argument for b3, which is not a predecessor",
                "@f b2 inst 1: definition of %3 (in b1) does not dominate the end of predecessor b0",
            ]
        );
    }

    #[test]
    fn reports_bad_calls() {
        let m = crate::ir::parse_module(
            "func @g(%0:i32) {
b0:
  ret
}
func @main() -> i32 {
b0:
  %0:i32 = const 1
  call @g(%0, %0)
  %1:i32 = call @g(%0)
  call @nowhere()
  call @print_int(%0)
  ret %0
}",
        )
        .unwrap();
        let e: Vec<String> = verify_module(&m)
            .unwrap_err()
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            e,
            vec![
                "@main b0 inst 1: call to @g with 2 argument(s); it takes 1",
                "@main b0 inst 2: call expects a result from @g, which returns none",
                "@main b0 inst 3: call to unknown function @nowhere",
            ]
        );
    }

    #[test]
    fn reports_undefined_use_and_entry_phi() {
        let e = errors(
            "func @f() -> i32 {
b0:
  %0:i32 = phi
  ret %1
}",
        );
        assert_eq!(e, vec!["@f b0 inst 0: phi in the entry block",]);
        let e = errors(
            "func @f() -> i32 {
b0:
  ret %1
}",
        );
        assert_eq!(
            e,
            vec!["@f b0 terminator: use of %1, which is never defined"]
        );
    }
}
