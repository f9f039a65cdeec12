//! ST231 issue rules for one bundle (isa.md §A2): at most 4 syllables (a long immediate
//! counts 2), at most one memory operation, at most one control operation and it must be the
//! first syllable, at most two multiplies, `syscall` alone. ASSUMPTION (isa.md §A2): the
//! simulator checks exactly these; the odd-lane rule for multiplies is enforced only by the
//! encoder. ASSUMPTION (ours, not in isa.md): two operations of one bundle may not write the
//! same register (other than `$r0`), since the result would be ambiguous.
//! O(n) in the bundle size.

use super::opcode::{Op, OpProps, Unit};
use std::fmt;

/// Most multiplies per bundle.
pub const MAX_MUL: usize = 2;
/// Most memory operations per bundle.
pub const MAX_MEM: usize = 1;
/// Issue width in syllables.
pub const ISSUE_WIDTH: usize = 4;

/// A broken issue rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssueError(pub &'static str);

impl fmt::Display for IssueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Check one bundle given its operations and the syllable position of each.
pub fn check_bundle<'a>(ops: impl Iterator<Item = (&'a Op, usize)>) -> Result<(), IssueError> {
    let (mut n, mut syl, mut mem, mut mul, mut ctl, mut alone) = (0, 0, 0, 0, 0, false);
    let mut written: u128 = 0;
    for (op, pos) in ops {
        let info = op.opc.info();
        n += 1;
        syl += op.syllables();
        match info.unit {
            Unit::Mem => mem += 1,
            Unit::Mul => mul += 1,
            Unit::Ctl => {
                ctl += 1;
                if pos != 0 {
                    return Err(IssueError("a control operation must be the first syllable"));
                }
            }
            Unit::Sys => alone = true,
            Unit::Alu => {}
        }
        if info.props.contains(OpProps::ALONE) {
            alone = true;
        }
        for d in op.dests() {
            if written & (1u128 << d) != 0 {
                return Err(IssueError(
                    "two operations of the bundle write the same register",
                ));
            }
            written |= 1u128 << d;
        }
    }
    if syl > ISSUE_WIDTH {
        return Err(IssueError("more than 4 syllables"));
    }
    if mem > MAX_MEM {
        return Err(IssueError("more than one memory operation"));
    }
    if ctl > 1 {
        return Err(IssueError("more than one control operation"));
    }
    if mul > MAX_MUL {
        return Err(IssueError("more than two multiplies"));
    }
    if alone && n > 1 {
        return Err(IssueError("syscall must be alone in its bundle"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::st231::opcode::{Dest, Opcode, Src};

    fn at(ops: &[Op]) -> Result<(), IssueError> {
        check_bundle(ops.iter().enumerate().map(|(i, o)| (o, i)))
    }

    #[test]
    fn rules() {
        let add = |d| Op::binary(Opcode::Add, Dest::R(d), 1, Src::R(2));
        let mul = |d| Op::binary(Opcode::Mul32, Dest::R(d), 1, Src::R(2));
        let big = |d| Op::binary(Opcode::Add, Dest::R(d), 1, Src::Imm(1000));
        assert!(at(&[add(1), add(2), add(3), add(4)]).is_ok());
        assert!(
            at(&[add(1), add(2), add(3), big(4)]).is_err(),
            "5 syllables"
        );
        assert!(at(&[big(1), big(2)]).is_ok());
        assert!(at(&[mul(1), mul(2), mul(3)]).is_err());
        assert!(at(&[add(1), add(1)]).is_err(), "same destination");
        assert!(at(&[add(0), add(0)]).is_ok(), "$r0 may be written twice");
        assert!(at(&[Op::jump(Opcode::Goto, 0), Op::jump(Opcode::Goto, 0)]).is_err());
        assert!(at(&[Op::syscall(1), Op::nop()]).is_err());
        assert!(at(&[
            Op::load(Opcode::Ldw, 1, 2, 0),
            Op::store(Opcode::Stw, 2, 0, 1)
        ])
        .is_err());
    }
}
