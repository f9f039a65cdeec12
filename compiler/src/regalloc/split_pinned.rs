//! Splitting the live ranges of precoloured (pinned) vregs: the fallback of [`super::irc`]
//! when a class does not colour because long precoloured ranges leave too few registers for
//! the temporaries that spill code needs.
//!
//! Why: a coalescer that ignores colourability (Rastello et al.'s `C`, §5) may merge a value
//! live across a whole loop with an argument or result register (`%a^R0`). IRC cannot spill
//! a precoloured node, so with a small register file (`--regs 4`) an operation needing more
//! operands than the registers the pinned ranges leave free cannot be coloured at all — the
//! allocation used to fail ("cannot colour … spill temporaries"). Splitting gives each
//! pinned vreg `p` a twin `q` that carries the value everywhere `p` is not required: IRC can
//! spill `q`, and coalesces the split copies back where the graph allows it.
//!
//! The transformation (allocation form in, allocation form out), for every vreg `p` pinned
//! to an allocatable register, not part of a tied operand pair (`Pin::Var`), and not defined
//! by a control transfer:
//! * an operand of `p` that carries the pin stays `p`; every other operand becomes `q`;
//! * before an operation with a pinned use of `p` (or a guarded, hence partial, pinned
//!   definition of `p`): `p := q`;
//! * after an operation with a pinned definition of `p`: `q := p`.
//!
//! `p` then lives only between a split copy and the operation that needs the register.
//! Pins to registers outside the allocatable set (the stack pointer) are left alone: they
//! are never colour candidates.
//!
//! Complexity: one pass over the operands, O(instructions + operands).

use super::interference::pins;
use crate::mir::{target, Function, Inst, InstFlags, Operand, PReg, Pin, Reg, VReg};

/// Splits the pinned vregs of `f` (see the module doc); returns how many were split.
pub fn split_pinned_ranges(f: &mut Function) -> Result<u64, String> {
    let pin_of = pins(f)?;
    let splittable = splittable_vregs(f, &pin_of);
    let mut twin: Vec<Option<VReg>> = vec![None; f.vregs.len()];
    let mut count = 0;
    for (v, &ok) in splittable.iter().enumerate() {
        if ok {
            twin[v] = Some(f.new_vreg(f.class_of(VReg(v as u32))));
            count += 1;
        }
    }
    if count == 0 {
        return Ok(0);
    }
    for b in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[b].insts);
        let mut insts = Vec::with_capacity(old.len());
        for inst in old {
            split_around(inst, &twin, &pin_of, &mut insts);
        }
        f.blocks[b].insts = insts;
    }
    Ok(count)
}

/// The vregs the split applies to (see the module doc).
fn splittable_vregs(f: &Function, pin_of: &[Option<PReg>]) -> Vec<bool> {
    let mut ok: Vec<bool> = pin_of
        .iter()
        .map(|p| p.is_some_and(|r| target::allocatable(f.target, r.class).contains(&r.num)))
        .collect();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        for o in inst.defs.iter().chain(&inst.uses) {
            if let Some(Pin::Var(t)) = o.pin {
                for v in [Some(t), o.vreg()].into_iter().flatten() {
                    if let Some(x) = ok.get_mut(v.index()) {
                        *x = false;
                    }
                }
            }
        }
        if inst.is_terminator() {
            for d in inst.def_vregs() {
                ok[d.index()] = false;
            }
        }
    }
    ok
}

/// Pushes `inst` with its operands renamed and its split copies around it onto `out`.
fn split_around(
    mut inst: Inst,
    twin: &[Option<VReg>],
    pin_of: &[Option<PReg>],
    out: &mut Vec<Inst>,
) {
    let guarded = inst.flags.contains(InstFlags::GUARDED);
    let mut before: Vec<VReg> = Vec::new();
    let mut after: Vec<VReg> = Vec::new();
    for o in inst.uses.iter_mut().chain(inst.defs.iter_mut()) {
        let Some(v) = o.vreg() else { continue };
        let Some(q) = twin[v.index()] else { continue };
        if matches!(o.pin, Some(Pin::Phys(_))) {
            continue;
        }
        o.reg = Reg::V(q);
    }
    for o in &inst.uses {
        if let (Some(v), Some(Pin::Phys(_))) = (o.vreg(), o.pin) {
            if twin[v.index()].is_some() && !before.contains(&v) {
                before.push(v);
            }
        }
    }
    for o in &inst.defs {
        if let (Some(v), Some(Pin::Phys(_))) = (o.vreg(), o.pin) {
            if twin[v.index()].is_some() {
                if guarded && !before.contains(&v) {
                    before.push(v);
                }
                if !after.contains(&v) {
                    after.push(v);
                }
            }
        }
    }
    let copy = |dst: VReg, src: VReg, pinned_dst: bool, r: PReg| {
        let d = if pinned_dst {
            Operand::pinned(dst, Pin::Phys(r))
        } else {
            Operand::new(dst)
        };
        let s = if pinned_dst {
            Operand::new(src)
        } else {
            Operand::pinned(src, Pin::Phys(r))
        };
        Inst::copy(d, s)
    };
    for v in before {
        let (q, r) = (
            twin[v.index()].expect("split"),
            pin_of[v.index()].expect("pinned"),
        );
        out.push(copy(v, q, true, r));
    }
    out.push(inst);
    for v in after {
        let (q, r) = (
            twin[v.index()].expect("split"),
            pin_of[v.index()].expect("pinned"),
        );
        out.push(copy(q, v, false, r));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::interp::run_module;
    use crate::mir::parse::parse_module;
    use crate::mir::verify::{verify_module, Form};

    /// `%1` (pinned `$r16` at its definition) is read by two unpinned operations: they read
    /// its twin; `%3` and `%5` are pinned at their definitions (copies into `$r17`/`$r16`)
    /// and `%5` again at `.output`: 3 vregs split, 3 copies after pinned definitions and 1
    /// before the pinned use; the program computes the same exit code.
    #[test]
    fn pinned_vregs_keep_only_their_pinned_operands() {
        let src = "
mfunc @main st231 {
b0:
  .input
  %1:r^$r16 = add $r0, #7
  %2:r = add %1, #1
  %3:r^$r17 = copy %2 !copy
  %4:r = add %1, %3
  %5:r^$r16 = copy %4 !copy
  .output %5^$r16
  return
}
";
        let mut m = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
        let before = run_module(&m, "main", &Default::default()).expect("runs");
        let copies = |f: &Function| {
            f.blocks[0]
                .insts
                .iter()
                .filter(|i| i.opc == crate::mir::Opc::Copy)
                .count()
        };
        let f = &mut m.functions[0];
        let copies_before = copies(f);
        assert_eq!(split_pinned_ranges(f).unwrap(), 3);
        assert_eq!(copies(f), copies_before + 4);
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            for o in inst.defs.iter().chain(&inst.uses) {
                let Some(v) = o.vreg() else { continue };
                if [1, 3, 5].contains(&v.0) {
                    let pinned = matches!(o.pin, Some(Pin::Phys(_)));
                    assert!(pinned || inst.opc == crate::mir::Opc::Copy, "{inst:?}");
                }
            }
        }
        assert!(verify_module(&m, Form::Allocation).is_empty());
        let after = run_module(&m, "main", &Default::default()).expect("runs");
        assert_eq!(
            (before.exit_code, &before.output),
            (after.exit_code, &after.output)
        );
        // Nothing pinned is left to split in the twins: a second split adds only new twins
        // of the same three pinned vregs.
        assert_eq!(split_pinned_ranges(&mut m.functions[0]).unwrap(), 3);
    }
}
