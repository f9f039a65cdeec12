//! The system-call operation both targets share (ASSUMPTION, project convention, see
//! `docs/isa.md` §S): number in the operation's immediate, arguments in the first two
//! argument registers (ST231 `$r16`, `$r17`; ST120 `R0`, and `P0` for the write pointer).
//!
//! | n | call | effect |
//! |---|---|---|
//! | 1 | exit(code) | the run ends with exit code `code` |
//! | 2 | print_int(v) | `v` as a signed decimal, no newline |
//! | 3 | print_char(c) | the low byte of `c` |
//! | 4 | write(ptr, len) | `len` bytes of memory from `ptr` |
//!
//! Output is collected into a byte vector (never printed by the library), capped by
//! `RunOptions::max_output`.

use super::memory::Memory;
use super::trap::TrapKind;

/// System-call numbers.
pub const SYS_EXIT: u32 = 1;
pub const SYS_PRINT_INT: u32 = 2;
pub const SYS_PRINT_CHAR: u32 = 3;
pub const SYS_WRITE: u32 = 4;

/// What the simulator does after a system call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyscallOutcome {
    Continue,
    Exit(i32),
}

/// Perform system call `n`. `arg` is the argument of exit / print_int / print_char; `ptr` and
/// `len` are the arguments of write (each target maps its own registers onto these).
/// Output beyond `max_output` bytes traps.
pub fn syscall(
    n: u32,
    arg: u32,
    ptr: u32,
    len: u32,
    mem: &Memory,
    out: &mut Vec<u8>,
    max_output: usize,
) -> Result<SyscallOutcome, TrapKind> {
    match n {
        SYS_EXIT => return Ok(SyscallOutcome::Exit(arg as i32)),
        SYS_PRINT_INT => out.extend_from_slice((arg as i32).to_string().as_bytes()),
        SYS_PRINT_CHAR => out.push(arg as u8),
        SYS_WRITE => {
            if len as usize > max_output {
                return Err(TrapKind::OutputLimit);
            }
            out.extend_from_slice(mem.read_bytes(ptr, len)?);
        }
        _ => return Err(TrapKind::BadSyscall { n }),
    }
    if out.len() > max_output {
        return Err(TrapKind::OutputLimit);
    }
    Ok(SyscallOutcome::Continue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls() {
        let mut m = Memory::new(0x2000);
        m.store8(0x1800, b'h' as u32).unwrap();
        m.store8(0x1801, b'i' as u32).unwrap();
        let mut out = Vec::new();
        assert_eq!(
            syscall(2, (-42i32) as u32, 0, 0, &m, &mut out, 100),
            Ok(SyscallOutcome::Continue)
        );
        syscall(3, 0x10A, 0, 0, &m, &mut out, 100).unwrap();
        syscall(4, 0, 0x1800, 2, &m, &mut out, 100).unwrap();
        assert_eq!(out, b"-42\nhi");
        assert_eq!(
            syscall(1, 7, 0, 0, &m, &mut out, 100),
            Ok(SyscallOutcome::Exit(7))
        );
        assert_eq!(
            syscall(9, 0, 0, 0, &m, &mut out, 100),
            Err(TrapKind::BadSyscall { n: 9 })
        );
        assert!(syscall(4, 0, 0x1FFF, 2, &m, &mut out, 100).is_err());
        assert_eq!(
            syscall(2, 12345, 0, 0, &m, &mut out, 8),
            Err(TrapKind::OutputLimit)
        );
    }
}
