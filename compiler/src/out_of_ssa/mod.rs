//! Out-of-SSA translation: the pieces shared by every algorithm of the family (Rastello et
//! al.; Sreedhar et al.; Boissinot et al.), starting with the sequentialisation of parallel
//! copies into ordinary moves.

pub mod back_edges;
pub mod boissinot;
pub mod isolation;
pub mod leung_george;
pub mod naive_abi;
pub mod parallel_copy;
pub mod pinning_phi;
pub mod sreedhar3;

use crate::mir::print::inst_to_string;
use crate::mir::target::stack_pointer;
use crate::mir::{Function, Inst, Operand, Pin, RegClass};
use simulator::isa::Target;

/// An affinity between two variables of an out-of-SSA translation: a phi operand pair or a
/// copy, weighted by `5^loop depth` of the block the copy would sit in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TracedAffinity {
    /// Destination and source (phi result and argument for a phi pair).
    pub dst: String,
    pub src: String,
    pub weight: u64,
    /// Where the copy is (or would be): `start of bN`, `end of bN`, `bN`.
    pub place: String,
    /// True if the two ends ended in different classes: the copy stays and splits them.
    pub split: bool,
}

/// The congruence classes an out-of-SSA translation built (Sreedhar et al.'s phi congruence
/// classes, Boissinot et al.'s coalesced classes) and the affinities inside and between
/// them, recorded for `viz` (issue 26). Variables are named as in the machine IR (`%N`);
/// a virtual copy variable of Boissinot's virtualised variants is `%R'` (phi result `%R`)
/// or `%R'bP` (its argument from predecessor `bP`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CongruenceTrace {
    pub classes: Vec<Vec<String>>,
    pub affinities: Vec<TracedAffinity>,
}

/// A phi result pinned to a register (LAI `%x^R0 = phi …`, Rastello et al. Fig. 4 and
/// Appendix A: "if pinned_def(i, 1) then let r be the dedicated register required"), made
/// acceptable to the translations that take no pinned phi — Naive_ABI, the baseline
/// isolation, Sreedhar III: the phi defines a fresh unpinned variable `x'` and a pinned copy
/// `x^R = x'` follows the block's phis (a move placed locally after the constrained
/// instruction, as Naive_ABI does for every other pinned definition). A pin to the stack
/// pointer is dropped instead: SP versions and their phis are pinning_SP's, which finds them
/// from their webs. Pinned phi *arguments* are an error: a phi's arguments implicitly take
/// its result's resource (§2.1). Returns the number of copies inserted.
///
/// O(instructions).
pub fn isolate_pinned_phi_results(f: &mut Function) -> Result<u64, String> {
    let sp = stack_pointer(f.target);
    let mut copies = 0;
    for bi in 0..f.blocks.len() {
        let mut after: Vec<Inst> = Vec::new();
        for k in 0..f.blocks[bi].phi_end() {
            let inst = &f.blocks[bi].insts[k];
            let bad = |m: &str| {
                format!(
                    "out-of-SSA: @{} b{bi}: `{}`: {m}",
                    f.name,
                    inst_to_string(f, inst)
                )
            };
            if inst.uses.iter().any(|o| o.pin.is_some()) {
                return Err(bad(
                    "pinned phi argument (a phi's arguments take its result's resource)",
                ));
            }
            let Some(d) = inst.defs.first().copied() else {
                continue;
            };
            match d.pin {
                None => {}
                Some(Pin::Phys(r)) if r == sp => f.blocks[bi].insts[k].defs[0].pin = None,
                Some(Pin::Phys(r)) => {
                    let Some(v) = d.vreg() else {
                        return Err(bad("phi defines a physical register"));
                    };
                    if f.target == Target::St231 && r.class == RegClass::B {
                        return Err(bad(
                            "a phi result pinned to a branch register cannot be isolated \
                             (ST231 has no branch-register copy)",
                        ));
                    }
                    let fresh = f.new_vreg(r.class);
                    f.blocks[bi].insts[k].defs[0] = Operand::new(fresh);
                    after.push(Inst::copy(Operand::pinned(v, Pin::Phys(r)), fresh));
                    copies += 1;
                }
                Some(Pin::Var(_)) => return Err(bad("phi result tied to another variable")),
            }
        }
        let at = f.blocks[bi].phi_end();
        f.blocks[bi].insts.splice(at..at, after);
    }
    Ok(copies)
}

/// Machine-IR functions shared by the tests of several out-of-SSA algorithms.
#[cfg(test)]
pub(crate) mod fixtures {
    /// Class 3 of Leung & George §3 / Rastello et al. Algorithm 2 (`Variable_stronglyInterfere`,
    /// Case 3 only if `a_i ≠ b_j`): two phis of different blocks with the common predecessors
    /// b0 and b1 — the loop header b1 and the loop exit b2. The exit phi %8 takes `arg` from
    /// b0 and %6 from b1; with `arg` = `%1` its arguments are those of the header phi %4
    /// (identical arguments), with `%0` they differ.
    pub(crate) fn class3(arg: &str) -> String {
        format!(
            "mfunc @c3 st231 {{
b0:
  %0:r^$r16 = .input
  %1:r = add $r0, #0
  %2:b = cmplt %0, #1
  br %2, b2
  goto b1
b1:
  %3:r = phi [b0: %0], [b1: %5]
  %4:r = phi [b0: %1], [b1: %6]
  %5:r = add %3, #-1
  %6:r = add %4, %3
  %7:b = cmplt %5, #1
  br %7, b2
  goto b1
b2:
  %8:r = phi [b0: {arg}], [b1: %6]
  %9:r = add %8, #1
  .output %9^$r16
  return
}}"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::parse::parse_module;
    use crate::mir::verify::{verify_function, Form};

    fn func(text: &str) -> Function {
        let m = parse_module(text).expect("test input parses");
        m.functions.into_iter().next().expect("one function")
    }

    const PINNED_PHI: &str = "mfunc @f st231 {
b0:
  %0:r^$r16, %1:r^$r17 = .input
  %2:b = cmplt %0, %1
  br %2, b2
  goto b1
b1:
  goto b2
b2:
  %3:r^$r16 = phi [b0: %0], [b1: %1]
  %4:r = add %3, #1
  .output %4^$r16
  return
}";

    #[test]
    fn a_pinned_phi_result_becomes_a_pinned_copy_after_the_phis() {
        let mut f = func(PINNED_PHI);
        assert_eq!(isolate_pinned_phi_results(&mut f).unwrap(), 1);
        let b2 = &f.blocks[2].insts;
        assert!(b2[0].is_phi() && b2[0].defs[0].pin.is_none());
        assert_eq!(b2[1].opc, crate::mir::Opc::Copy);
        assert_eq!(b2[1].defs[0].vreg(), Some(crate::mir::VReg(3)));
        assert!(matches!(b2[1].defs[0].pin, Some(Pin::Phys(_))));
        assert_eq!(b2[1].uses[0].vreg(), b2[0].defs[0].vreg());
        assert!(verify_function(&f, Form::Ssa).is_empty(), "{f}");
        // Idempotent: nothing pinned is left on a phi.
        assert_eq!(isolate_pinned_phi_results(&mut f).unwrap(), 0);
    }

    #[test]
    fn a_pinned_phi_argument_is_an_error_naming_the_phi() {
        let mut f = func(PINNED_PHI);
        let r17 = match f.blocks[0].insts[0].defs[1].pin {
            Some(p) => p,
            None => panic!("the input's second def is pinned"),
        };
        f.blocks[2].insts[0].uses[1].pin = Some(r17);
        let e = isolate_pinned_phi_results(&mut f).unwrap_err();
        assert!(e.contains("pinned phi argument") && e.contains("b2"), "{e}");
    }
}
