//! Bounded, byte-addressed, little-endian guest memory for the interpreter.
//!
//! Addresses below [`super::DATA_BASE`] are unmapped so that null-pointer accesses trap.
//! Misaligned accesses are allowed here (the IR does not require alignment); the simulator
//! enforces the targets' alignment rules.

use super::{TrapKind, DATA_BASE};
use crate::ir::MemTy;
use simulator::machine::memory::Backing;

/// The bytes are zero pages mapped on first touch (see [`Backing`]), so a 16 MiB memory costs
/// only what the program touches.
pub struct Memory {
    bytes: Backing,
}

impl Memory {
    pub fn new(size: u32) -> Self {
        Memory {
            bytes: Backing::zeroed(size as usize),
        }
    }

    /// Checks `[addr, addr+size)` is mapped and returns its range in `bytes`.
    #[inline]
    fn range(&self, addr: u32, size: u32) -> Result<std::ops::Range<usize>, TrapKind> {
        let end = addr as u64 + size as u64;
        if addr < DATA_BASE || end > self.bytes.len() as u64 {
            return Err(TrapKind::BadAddress { addr, size });
        }
        Ok(addr as usize..end as usize)
    }

    /// Writes bytes during loading; the loader has checked that they fit.
    pub fn write_bytes(&mut self, addr: u32, data: &[u8]) {
        if let Ok(r) = self.range(addr, data.len() as u32) {
            self.bytes[r].copy_from_slice(data);
        }
    }

    #[inline]
    pub fn load(&self, addr: u32, ty: MemTy) -> Result<i32, TrapKind> {
        let r = self.range(addr, ty.size())?;
        let b = &self.bytes[r];
        Ok(match ty {
            MemTy::I8 => b[0] as i8 as i32,
            MemTy::U8 => b[0] as i32,
            MemTy::I16 => i16::from_le_bytes([b[0], b[1]]) as i32,
            MemTy::U16 => u16::from_le_bytes([b[0], b[1]]) as i32,
            MemTy::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        })
    }

    #[inline]
    pub fn store(&mut self, addr: u32, ty: MemTy, v: i32) -> Result<(), TrapKind> {
        let r = self.range(addr, ty.size())?;
        let le = v.to_le_bytes();
        let n = r.len();
        self.bytes[r].copy_from_slice(&le[..n]);
        Ok(())
    }

    /// Reads a NUL-terminated string of at most `max` bytes.
    pub fn c_string(&self, addr: u32, max: usize) -> Result<Vec<u8>, TrapKind> {
        let mut out = Vec::new();
        let mut a = addr;
        loop {
            let c = self.load(a, MemTy::U8)? as u8;
            if c == 0 {
                return Ok(out);
            }
            if out.len() >= max {
                return Err(TrapKind::Builtin(format!(
                    "string at {addr:#x} longer than {max} bytes"
                )));
            }
            out.push(c);
            a = a.wrapping_add(1);
        }
    }
}
