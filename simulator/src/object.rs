//! The "ssalab object" format: machine code, initialised data, bss size, entry point,
//! symbols (functions and globals with sizes) and per-operation annotations (copy, spill
//! load, spill store, swap part) that let the simulator count what the compiler inserted.
//!
//! Byte layout (all integers little-endian):
//! ```text
//! magic "SSLB" | u16 version | u8 target | u8 0
//! u32 code_base | u32 entry | u32 data_base | u32 bss_size
//! u32 code_len  | code bytes
//! u32 data_len  | data bytes
//! u32 nsym      | nsym x (u8 kind | u32 addr | u32 size | u16 name_len | name UTF-8)
//! u32 nannot    | nannot x (u32 addr | u8 flags)
//! u32 checksum  (FNV-1a 32 of every byte before it)
//! ```
//! [`Object::from_bytes`] checks every length against the remaining input, the checksum, the
//! version, the enumerations, and the layout (see [`Object::validate`]); a corrupt file is an
//! [`ObjectError`], never a panic. Reading and writing are linear in the file size.

use bitflags::bitflags;
use std::fmt;

pub use crate::isa::Target;

/// File magic.
pub const MAGIC: &[u8; 4] = b"SSLB";
/// Current format version; files with another version are rejected.
pub const VERSION: u16 = 1;

/// Default of [`max_image_bytes`]: 64 MiB, four times the simulator's default guest memory.
pub const DEFAULT_MAX_IMAGE_BYTES: u64 = 64 << 20;

/// The environment variable that raises (or lowers) [`max_image_bytes`].
pub const MAX_IMAGE_ENV: &str = "SSALAB_MAX_IMAGE_BYTES";

/// The largest memory image (code + data + bss bytes) the assembler builds and an object file
/// may describe: [`DEFAULT_MAX_IMAGE_BYTES`], or the value of the environment variable
/// [`MAX_IMAGE_ENV`]. A bound, so that a one-line `.space` or a forged header cannot make the
/// tools allocate or simulate gigabytes; the error names the limit and the variable.
pub fn max_image_bytes() -> u64 {
    std::env::var(MAX_IMAGE_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(DEFAULT_MAX_IMAGE_BYTES)
}

/// The message of an image beyond [`max_image_bytes`]: `what` would need `bytes`.
pub fn image_limit_message(what: &str, bytes: u64) -> String {
    format!(
        "{what} would make the memory image {bytes} bytes, beyond the limit of {} bytes (raise it with the environment variable {MAX_IMAGE_ENV}=BYTES)",
        max_image_bytes()
    )
}

/// A symbol: a function or a global object, with its address and size in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: SymbolKind,
    pub addr: u32,
    pub size: u32,
}

/// What a symbol names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    /// Code: per-function counters are attributed to these.
    Function,
    /// Data.
    Object,
}

bitflags! {
    /// Compiler annotations of one operation.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct OpFlags: u8 {
        /// A register copy inserted or kept by the compiler (counted as a "move").
        const COPY = 1;
        /// A load that reloads a spilled value.
        const SPILL_LOAD = 2;
        /// A store that spills a value.
        const SPILL_STORE = 4;
        /// One operation of a swap sequence (the swap counter counts sequences: operations
        /// with this flag whose previous operation in the code does not have it).
        const SWAP_PART = 8;
    }
}

/// Flags of the operation at `addr` (the address of its syllable / instruction word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Annotation {
    pub addr: u32,
    pub flags: OpFlags,
}

/// A loadable program for one target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub target: Target,
    /// Address of the first code byte.
    pub code_base: u32,
    /// Encoded machine code.
    pub code: Vec<u8>,
    /// Address of the first data byte.
    pub data_base: u32,
    /// Initialised data.
    pub data: Vec<u8>,
    /// Zero-initialised bytes right after `data`.
    pub bss_size: u32,
    /// Where execution starts.
    pub entry: u32,
    pub symbols: Vec<Symbol>,
    pub annotations: Vec<Annotation>,
}

/// Why an object file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObjectError {
    BadMagic,
    UnsupportedVersion(u16),
    UnknownTarget(u8),
    /// The file ends before the field named here.
    Truncated(&'static str),
    BadSymbolKind(u8),
    BadSymbolName,
    BadAnnotationFlags(u8),
    ChecksumMismatch {
        stored: u32,
        computed: u32,
    },
    TrailingBytes(usize),
    /// The sections do not form a valid memory image (overlap, overflow, misalignment,
    /// entry outside the code, ...).
    BadLayout(String),
}

impl fmt::Display for ObjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjectError::BadMagic => write!(f, "not an ssalab object (bad magic)"),
            ObjectError::UnsupportedVersion(v) => {
                write!(f, "unsupported object version {v} (expected {VERSION})")
            }
            ObjectError::UnknownTarget(t) => write!(f, "unknown target byte {t}"),
            ObjectError::Truncated(what) => write!(f, "object file truncated in {what}"),
            ObjectError::BadSymbolKind(k) => write!(f, "bad symbol kind {k}"),
            ObjectError::BadSymbolName => write!(f, "symbol name is not UTF-8"),
            ObjectError::BadAnnotationFlags(b) => write!(f, "bad annotation flags {b:#x}"),
            ObjectError::ChecksumMismatch { stored, computed } => write!(
                f,
                "object checksum mismatch (stored {stored:#010x}, computed {computed:#010x})"
            ),
            ObjectError::TrailingBytes(n) => write!(f, "{n} trailing bytes after the object"),
            ObjectError::BadLayout(why) => write!(f, "bad object layout: {why}"),
        }
    }
}

impl std::error::Error for ObjectError {}

/// FNV-1a, 32 bits: cheap corruption detection (not a security measure).
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Bounds-checked little-endian reader over a byte slice.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ObjectError> {
        let end = self
            .pos
            .checked_add(n)
            .ok_or(ObjectError::Truncated(what))?;
        let s = self
            .bytes
            .get(self.pos..end)
            .ok_or(ObjectError::Truncated(what))?;
        self.pos = end;
        Ok(s)
    }
    fn u8(&mut self, what: &'static str) -> Result<u8, ObjectError> {
        Ok(self.take(1, what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, ObjectError> {
        let s = self.take(2, what)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, ObjectError> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
    /// A u32 count of items each at least `min_item` bytes long, checked against the input
    /// left so that a corrupt count cannot make us allocate gigabytes.
    fn count(&mut self, min_item: usize, what: &'static str) -> Result<usize, ObjectError> {
        let n = self.u32(what)? as usize;
        let left = self.bytes.len() - self.pos;
        if n.saturating_mul(min_item) > left {
            return Err(ObjectError::Truncated(what));
        }
        Ok(n)
    }
}

impl Object {
    /// An empty object for `target` with the default memory map (code at
    /// [`crate::machine::CODE_BASE`]).
    pub fn new(target: Target) -> Object {
        let base = crate::machine::CODE_BASE;
        Object {
            target,
            code_base: base,
            code: Vec::new(),
            data_base: base,
            data: Vec::new(),
            bss_size: 0,
            entry: base,
            symbols: Vec::new(),
            annotations: Vec::new(),
        }
    }

    /// Serialise (see the module documentation for the layout).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.code.len() + self.data.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(self.target.to_byte());
        out.push(0);
        for v in [self.code_base, self.entry, self.data_base, self.bss_size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&(self.code.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.code);
        out.extend_from_slice(&(self.data.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.data);
        out.extend_from_slice(&(self.symbols.len() as u32).to_le_bytes());
        for s in &self.symbols {
            out.push(match s.kind {
                SymbolKind::Function => 0,
                SymbolKind::Object => 1,
            });
            out.extend_from_slice(&s.addr.to_le_bytes());
            out.extend_from_slice(&s.size.to_le_bytes());
            let name = &s.name.as_bytes()[..s.name.len().min(u16::MAX as usize)];
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(name);
        }
        out.extend_from_slice(&(self.annotations.len() as u32).to_le_bytes());
        for a in &self.annotations {
            out.extend_from_slice(&a.addr.to_le_bytes());
            out.push(a.flags.bits());
        }
        let sum = fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// Parse and check an object file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Object, ObjectError> {
        if bytes.len() < 4 || &bytes[..4] != MAGIC {
            return Err(ObjectError::BadMagic);
        }
        if bytes.len() < 8 {
            return Err(ObjectError::Truncated("header"));
        }
        let body_len = bytes
            .len()
            .checked_sub(4)
            .ok_or(ObjectError::Truncated("checksum"))?;
        let mut r = Reader {
            bytes: &bytes[..body_len],
            pos: 4,
        };
        let version = r.u16("header")?;
        if version != VERSION {
            return Err(ObjectError::UnsupportedVersion(version));
        }
        let stored = u32::from_le_bytes(bytes[body_len..].try_into().expect("4 bytes"));
        let computed = fnv1a(&bytes[..body_len]);
        if stored != computed {
            return Err(ObjectError::ChecksumMismatch { stored, computed });
        }
        let tb = r.u8("header")?;
        let target = Target::from_byte(tb).ok_or(ObjectError::UnknownTarget(tb))?;
        r.u8("header")?;
        let code_base = r.u32("header")?;
        let entry = r.u32("header")?;
        let data_base = r.u32("header")?;
        let bss_size = r.u32("header")?;
        let n = r.count(1, "code")?;
        let code = r.take(n, "code")?.to_vec();
        let n = r.count(1, "data")?;
        let data = r.take(n, "data")?.to_vec();
        let nsym = r.count(11, "symbols")?;
        let mut symbols = Vec::with_capacity(nsym);
        for _ in 0..nsym {
            let kind = match r.u8("symbols")? {
                0 => SymbolKind::Function,
                1 => SymbolKind::Object,
                k => return Err(ObjectError::BadSymbolKind(k)),
            };
            let addr = r.u32("symbols")?;
            let size = r.u32("symbols")?;
            let len = r.u16("symbols")? as usize;
            let name = std::str::from_utf8(r.take(len, "symbols")?)
                .map_err(|_| ObjectError::BadSymbolName)?
                .to_string();
            symbols.push(Symbol {
                name,
                kind,
                addr,
                size,
            });
        }
        let nann = r.count(5, "annotations")?;
        let mut annotations = Vec::with_capacity(nann);
        for _ in 0..nann {
            let addr = r.u32("annotations")?;
            let b = r.u8("annotations")?;
            let flags = OpFlags::from_bits(b).ok_or(ObjectError::BadAnnotationFlags(b))?;
            annotations.push(Annotation { addr, flags });
        }
        if r.pos != body_len {
            return Err(ObjectError::TrailingBytes(body_len - r.pos));
        }
        let image = code.len() as u64 + data.len() as u64 + u64::from(bss_size);
        if image > max_image_bytes() {
            return Err(ObjectError::BadLayout(image_limit_message(
                "the object's sections",
                image,
            )));
        }
        let obj = Object {
            target,
            code_base,
            code,
            data_base,
            data,
            bss_size,
            entry,
            symbols,
            annotations,
        };
        obj.validate()?;
        Ok(obj)
    }

    /// End of the code section (exclusive), as u64 so that it cannot overflow.
    pub fn code_end(&self) -> u64 {
        u64::from(self.code_base) + self.code.len() as u64
    }

    /// End of data + bss (exclusive), as u64.
    pub fn data_end(&self) -> u64 {
        u64::from(self.data_base) + self.data.len() as u64 + u64::from(self.bss_size)
    }

    /// Check that the sections form a memory image: code 4-byte aligned and a whole number of
    /// 32-bit words, at or above [`crate::machine::CODE_BASE`], data after code without
    /// overlap, everything below 4 GiB, entry inside the code (or the code empty).
    pub fn validate(&self) -> Result<(), ObjectError> {
        let bad = |s: String| Err(ObjectError::BadLayout(s));
        if !self.code_base.is_multiple_of(4) || !self.code.len().is_multiple_of(4) {
            return bad("code is not a whole number of aligned 32-bit words".into());
        }
        if self.code_base < crate::machine::CODE_BASE {
            return bad(format!(
                "code base {:#x} is below {:#x}",
                self.code_base,
                crate::machine::CODE_BASE
            ));
        }
        if self.code_end() > u64::from(u32::MAX) || self.data_end() > u64::from(u32::MAX) {
            return bad("sections extend beyond 4 GiB".into());
        }
        let data_len = self.data.len() as u64 + u64::from(self.bss_size);
        if data_len > 0 && u64::from(self.data_base) < self.code_end() {
            return bad("data overlaps or precedes code".into());
        }
        if !self.code.is_empty()
            && (u64::from(self.entry) >= self.code_end()
                || self.entry < self.code_base
                || !self.entry.is_multiple_of(4))
        {
            return bad(format!("entry {:#x} is not a code word", self.entry));
        }
        Ok(())
    }

    /// The function symbol named `name`.
    pub fn function(&self, name: &str) -> Option<&Symbol> {
        self.symbols
            .iter()
            .find(|s| s.kind == SymbolKind::Function && s.name == name)
    }

    /// The symbol (any kind) named `name`.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// Flags of the operation at `addr` (empty when not annotated).
    pub fn flags_at(&self, addr: u32) -> OpFlags {
        self.annotations
            .iter()
            .filter(|a| a.addr == addr)
            .fold(OpFlags::empty(), |f, a| f | a.flags)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Object {
        let mut o = Object::new(Target::St231);
        o.code = vec![1, 2, 3, 4, 5, 6, 7, 8];
        o.data_base = 0x1010;
        o.data = vec![9, 9, 9];
        o.bss_size = 13;
        o.entry = 0x1004;
        o.symbols = vec![
            Symbol {
                name: "main".into(),
                kind: SymbolKind::Function,
                addr: 0x1000,
                size: 8,
            },
            Symbol {
                name: "tab".into(),
                kind: SymbolKind::Object,
                addr: 0x1010,
                size: 3,
            },
        ];
        o.annotations = vec![Annotation {
            addr: 0x1004,
            flags: OpFlags::COPY | OpFlags::SWAP_PART,
        }];
        o
    }

    #[test]
    fn round_trip() {
        let o = sample();
        let b = o.to_bytes();
        assert_eq!(&b[..4], b"SSLB");
        assert_eq!(Object::from_bytes(&b).unwrap(), o);
    }

    #[test]
    fn rejects_corruption() {
        let b = sample().to_bytes();
        assert_eq!(Object::from_bytes(&b[..2]), Err(ObjectError::BadMagic));
        assert!(Object::from_bytes(&b[..b.len() - 1]).is_err());
        let mut c = b.clone();
        c[30] ^= 0x40;
        assert!(matches!(
            Object::from_bytes(&c),
            Err(ObjectError::ChecksumMismatch { .. })
        ));
        let mut v = b.clone();
        v[4] = 9;
        assert_eq!(
            Object::from_bytes(&v),
            Err(ObjectError::UnsupportedVersion(9))
        );
    }

    #[test]
    fn every_truncation_is_an_error() {
        let b = sample().to_bytes();
        for n in 0..b.len() {
            assert!(Object::from_bytes(&b[..n]).is_err(), "prefix {n}");
        }
    }

    #[test]
    fn checks_layout() {
        let mut o = sample();
        o.entry = 0x2000;
        assert!(matches!(o.validate(), Err(ObjectError::BadLayout(_))));
        let mut o = sample();
        o.data_base = 0x1004;
        assert!(matches!(o.validate(), Err(ObjectError::BadLayout(_))));
        let mut o = sample();
        o.code_base = 0;
        o.entry = 0;
        assert!(matches!(o.validate(), Err(ObjectError::BadLayout(_))));
    }

    #[test]
    fn flags_lookup() {
        let o = sample();
        assert_eq!(o.flags_at(0x1004), OpFlags::COPY | OpFlags::SWAP_PART);
        assert_eq!(o.flags_at(0x1000), OpFlags::empty());
    }
}
