//! Bounded, byte-addressed, little-endian guest memory with checked accesses.
//!
//! Addresses `0..CODE_BASE` are unmapped; `CODE_BASE..code_end` is the read-only code image;
//! everything from `code_end` to `size` is readable and writable (data, bss, heap, stack).
//! Every access checks alignment first (ASSUMPTION isa.md A4: misaligned accesses trap), then
//! the range; each check is one or two comparisons, O(1).
//!
//! The bytes live in an anonymous memory mapping: the host kernel hands out zero pages on
//! first touch, so a 16 MiB guest memory costs only the pages a program touches. (A zeroed
//! heap vector cost a full 16 MiB memset per run once the allocator recycled freed blocks —
//! 12–18% of a fuzz campaign.) When the mapping cannot be made, a zeroed vector is used.

use super::trap::TrapKind;
use super::{align_up, CODE_BASE, DATA_ALIGN};
use crate::object::Object;

/// Largest guest memory the simulators accept (1 GiB), so that a typo in a size option cannot
/// exhaust the host.
pub const MAX_MEM_SIZE: u32 = 1 << 30;

/// Zero-initialised bytes that cost only the pages touched: an anonymous mapping, or a
/// zeroed vector when no mapping can be made. Also used by the compiler's IR interpreters.
pub enum Backing {
    Mapped(memmap2::MmapMut),
    Heap(Vec<u8>),
}

impl Backing {
    /// `size` zero bytes.
    pub fn zeroed(size: usize) -> Backing {
        match memmap2::MmapMut::map_anon(size) {
            Ok(m) if size > 0 => Backing::Mapped(m),
            _ => Backing::Heap(vec![0; size]),
        }
    }
}

impl std::ops::Deref for Backing {
    type Target = [u8];
    #[inline(always)]
    fn deref(&self) -> &[u8] {
        match self {
            Backing::Mapped(m) => m,
            Backing::Heap(v) => v,
        }
    }
}

impl std::ops::DerefMut for Backing {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Backing::Mapped(m) => m,
            Backing::Heap(v) => v,
        }
    }
}

impl Clone for Backing {
    fn clone(&self) -> Backing {
        let mut b = Backing::zeroed(self.len());
        b.copy_from_slice(self);
        b
    }
}

impl std::fmt::Debug for Backing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} bytes", self.len())
    }
}

/// Guest memory.
#[derive(Clone, Debug)]
pub struct Memory {
    bytes: Backing,
    /// First writable address (end of the code image).
    writable_from: u32,
}

impl Memory {
    /// `size` bytes of zeroed memory with nothing read-only.
    pub fn new(size: u32) -> Memory {
        Memory {
            bytes: Backing::zeroed(size as usize),
            writable_from: CODE_BASE,
        }
    }

    /// Memory of `size` bytes holding the object's code, data and zeroed bss. Fails when the
    /// image does not fit or the object's layout is invalid.
    pub fn with_image(obj: &Object, size: u32) -> Result<Memory, TrapKind> {
        obj.validate()
            .map_err(|e| TrapKind::BadObject(e.to_string()))?;
        if size > MAX_MEM_SIZE {
            return Err(TrapKind::BadObject(format!(
                "memory size {size:#x} above the {MAX_MEM_SIZE:#x}-byte limit"
            )));
        }
        let top = obj.code_end().max(obj.data_end());
        if top > u64::from(size) {
            return Err(TrapKind::BadObject(format!(
                "image ends at {top:#x}, beyond the {size:#x}-byte memory"
            )));
        }
        let mut mem = Memory::new(size);
        let cb = obj.code_base as usize;
        mem.bytes[cb..cb + obj.code.len()].copy_from_slice(&obj.code);
        let db = obj.data_base as usize;
        mem.bytes[db..db + obj.data.len()].copy_from_slice(&obj.data);
        mem.writable_from = obj.code_end() as u32;
        Ok(mem)
    }

    /// Size in bytes (one past the highest address).
    pub fn size(&self) -> u32 {
        self.bytes.len() as u32
    }

    /// Initial stack pointer: the top of memory aligned down to 8 (ASSUMPTION: 8-byte stack
    /// alignment, isa.md A6/B5).
    pub fn initial_sp(&self) -> u32 {
        self.size() & !7
    }

    /// Check an access of `size` bytes (1, 2 or 4) at `addr`; returns the host index.
    #[inline(always)]
    fn check(&self, addr: u32, size: u32) -> Result<usize, TrapKind> {
        if addr & (size - 1) != 0 {
            return Err(TrapKind::Misaligned { addr, size });
        }
        let a = addr as usize;
        if addr < CODE_BASE || a + size as usize > self.bytes.len() {
            return Err(TrapKind::BadAddress { addr });
        }
        Ok(a)
    }

    #[inline(always)]
    fn check_store(&self, addr: u32, size: u32) -> Result<usize, TrapKind> {
        let a = self.check(addr, size)?;
        if addr < self.writable_from {
            return Err(TrapKind::WriteToCode { addr });
        }
        Ok(a)
    }

    /// Load a 32-bit word.
    #[inline(always)]
    pub fn load32(&self, addr: u32) -> Result<u32, TrapKind> {
        let a = self.check(addr, 4)?;
        let b = &self.bytes[a..a + 4];
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Load a 16-bit half-word, zero-extended.
    #[inline(always)]
    pub fn load16(&self, addr: u32) -> Result<u32, TrapKind> {
        let a = self.check(addr, 2)?;
        Ok(u32::from(u16::from_le_bytes([
            self.bytes[a],
            self.bytes[a + 1],
        ])))
    }

    /// Load a byte, zero-extended.
    #[inline(always)]
    pub fn load8(&self, addr: u32) -> Result<u32, TrapKind> {
        let a = self.check(addr, 1)?;
        Ok(u32::from(self.bytes[a]))
    }

    /// Store a 32-bit word.
    #[inline(always)]
    pub fn store32(&mut self, addr: u32, v: u32) -> Result<(), TrapKind> {
        let a = self.check_store(addr, 4)?;
        self.bytes[a..a + 4].copy_from_slice(&v.to_le_bytes());
        Ok(())
    }

    /// Store the low 16 bits of `v`.
    #[inline(always)]
    pub fn store16(&mut self, addr: u32, v: u32) -> Result<(), TrapKind> {
        let a = self.check_store(addr, 2)?;
        self.bytes[a..a + 2].copy_from_slice(&(v as u16).to_le_bytes());
        Ok(())
    }

    /// Store the low 8 bits of `v`.
    #[inline(always)]
    pub fn store8(&mut self, addr: u32, v: u32) -> Result<(), TrapKind> {
        let a = self.check_store(addr, 1)?;
        self.bytes[a] = v as u8;
        Ok(())
    }

    /// `len` bytes starting at `addr` (for the write system call and for tests).
    pub fn read_bytes(&self, addr: u32, len: u32) -> Result<&[u8], TrapKind> {
        let end = u64::from(addr) + u64::from(len);
        if addr < CODE_BASE || end > self.bytes.len() as u64 {
            return Err(TrapKind::BadAddress { addr });
        }
        Ok(&self.bytes[addr as usize..end as usize])
    }
}

/// Where the data section of an object whose code is `code_len` bytes at `code_base` starts
/// (ASSUMPTION, project memory map: right after the code, aligned to 16).
pub fn data_base_after(code_base: u32, code_len: u32) -> u32 {
    align_up(code_base.saturating_add(code_len), DATA_ALIGN)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Target;

    #[test]
    fn little_endian_and_checks() {
        let mut m = Memory::new(0x2000);
        m.store32(0x1800, 0x1122_3344).unwrap();
        assert_eq!(m.load8(0x1800).unwrap(), 0x44);
        assert_eq!(m.load16(0x1802).unwrap(), 0x1122);
        assert_eq!(m.load32(0x1800).unwrap(), 0x1122_3344);
        assert_eq!(
            m.load32(0x1802),
            Err(TrapKind::Misaligned {
                addr: 0x1802,
                size: 4
            })
        );
        assert_eq!(
            m.load16(0x1801),
            Err(TrapKind::Misaligned {
                addr: 0x1801,
                size: 2
            })
        );
        assert_eq!(m.load32(0), Err(TrapKind::BadAddress { addr: 0 }));
        assert_eq!(m.load32(0x2000), Err(TrapKind::BadAddress { addr: 0x2000 }));
        assert_eq!(
            m.load32(0xFFFF_FFFC),
            Err(TrapKind::BadAddress { addr: 0xFFFF_FFFC })
        );
        assert_eq!(
            m.store8(0xFFF, 1),
            Err(TrapKind::BadAddress { addr: 0xFFF })
        );
        assert_eq!(m.load8(0x1FFF).unwrap(), 0);
        assert!(m.read_bytes(0x1FFF, 2).is_err());
        assert!(m.read_bytes(0xFFFF_FFFF, 2).is_err());
    }

    #[test]
    fn image_and_read_only_code() {
        let mut o = Object::new(Target::St231);
        o.code = vec![0xAA; 8];
        o.data_base = 0x1010;
        o.data = vec![1, 2];
        o.bss_size = 4;
        let mut m = Memory::with_image(&o, 0x4000).unwrap();
        assert_eq!(m.load8(0x1000).unwrap(), 0xAA);
        assert_eq!(m.load8(0x1011).unwrap(), 2);
        assert_eq!(
            m.store32(0x1004, 0),
            Err(TrapKind::WriteToCode { addr: 0x1004 })
        );
        m.store32(0x1010, 7).unwrap();
        assert_eq!(m.initial_sp(), 0x4000);
        assert!(Memory::with_image(&o, 0x1008).is_err());
        assert!(Memory::with_image(&o, MAX_MEM_SIZE + 1).is_err());
        assert_eq!(data_base_after(0x1000, 8), 0x1010);
    }
}
