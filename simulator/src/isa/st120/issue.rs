//! Issue-group rules of the ST120 in GP32 mode (isa.md §B2).
//!
//! A group holds 1 or 2 operations issued in the same cycle (ISSUE 2; AU 2 and DU 2 can
//! never be exceeded by 2 operations). Rules checked, each O(1) per group:
//!
//! * at most one control operation (branch, call, return, jump; GU 1), and it must be in
//!   slot 1, i.e. the last operation of its group (ST's templates put BRA/SUB classes only in
//!   execution slot E1; a lone operation counts as being in slot 1 with a NOP in slot 0);
//! * `TRAP` (system call) is alone in its group (ASSUMPTION, like `syscall` on ST231);
//! * ASSUMPTION (isa.md §B2 memory): at most 2 memory operations, at most 1 of them a store.
//!
//! Two operations of a group may write the same register (a predicated select written as
//! `G1? MOVE R1, R2` and `G2? MOVE R1, R3`); if both execute, the one in slot 1 wins
//! (ASSUMPTION). All operations of a group read their operands before any writes.

use super::opcode::{Inst, OpProps};

/// Most operations per issue group.
pub const MAX_GROUP: usize = 2;

/// Check a group; the error names the broken rule.
pub fn check_group(ops: &[Inst]) -> Result<(), &'static str> {
    if ops.is_empty() {
        return Err("empty issue group");
    }
    if ops.len() > MAX_GROUP {
        return Err("more than 2 operations in an issue group");
    }
    let mut stores = 0;
    for (i, op) in ops.iter().enumerate() {
        let p = op.opcode.info().props;
        if p.intersects(OpProps::CONTROL) && i + 1 != ops.len() {
            return Err("a branch, call or return must be the last operation of its group");
        }
        if p.contains(OpProps::SYSCALL) && ops.len() != 1 {
            return Err("TRAP must be alone in its issue group");
        }
        if p.contains(OpProps::STORE) {
            stores += 1;
        }
    }
    if stores > 1 {
        return Err("more than one store in an issue group");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::st120::opcode::{AddrMode, BinOp, LoadKind, Opcode, StoreKind};

    #[test]
    fn rules() {
        let add = Inst::new(Opcode::Bin(BinOp::Add), &[1, 2, 3], 0);
        let goto = Inst::new(Opcode::Goto, &[], -4);
        let ld = Inst::new(Opcode::Load(LoadKind::W, AddrMode::PostIncImm), &[1, 2], 1);
        let st = Inst::new(Opcode::Store(StoreKind::W, AddrMode::PlusImm), &[2, 1], 0);
        let trap = Inst::new(Opcode::Trap, &[], 2);
        assert!(check_group(&[add, goto]).is_ok());
        assert!(check_group(&[goto]).is_ok());
        assert!(check_group(&[goto, add]).is_err());
        assert!(check_group(&[goto, goto]).is_err());
        assert!(check_group(&[ld, ld]).is_ok());
        assert!(check_group(&[ld, st]).is_ok());
        assert!(check_group(&[st, st]).is_err());
        assert!(check_group(&[add, add, add]).is_err());
        assert!(check_group(&[trap]).is_ok());
        assert!(check_group(&[add, trap]).is_err());
        assert!(check_group(&[]).is_err());
    }
}
