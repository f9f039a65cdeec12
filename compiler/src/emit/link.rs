//! The linker: scheduled functions + globals → [`Object`].
//!
//! Layout (ASSUMPTION, the project memory map of `simulator::machine` and the conventions
//! of `simulator::asm::driver`, so that a program runs exactly as its assembly text would): code at `machine::CODE_BASE`, functions in module order
//! (`main` need not be first; the entry is `main`, else `_start`, else the first code
//! address), blocks in index order; data at the end of the code rounded up to 16
//! (`machine::DATA_ALIGN`), each initialised global aligned (relative to the data start,
//! as `.align` does) with its bytes, zero tail and 32-bit relocations; zero-initialised
//! globals (no bytes, no relocations) in bss, which starts at the data end rounded up to 8,
//! the data vector then padded with zeros up to the bss start.
//!
//! Two passes over the code. ST231 bundle sizes depend only on the operations (long
//! immediates; symbols always take an extension, like the assembler) and on the bundle
//! address modulo 8 (the encoder may pad with a `nop` to put a multiply in an odd lane),
//! never on branch displacements (23-bit fields), so one pass in address order fixes every
//! address exactly; the second pass encodes with the resolved displacements and checks
//! that no size changed. ST120 operations are one word each.
//!
//! Symbols: every function (with its size in bytes), every global (object, its size) except
//! names starting with `.L` (local labels for the assembler). Annotations: the COPY,
//! SPILL_LOAD, SPILL_STORE and SWAP flags of each operation at its syllable/word address.
//! Linear in the code and data size.

use super::{st120 as e120, EmitError, Fixup, LoweredOp, MachOp};
use crate::ir::Global;
use crate::mir::{self, SymPart};
use crate::sched::{self, SchedOptions, ScheduledFunction};
use simulator::isa::st120 as isa120;
use simulator::isa::st231::{self as isa231, Format, Src};
use simulator::isa::Target;
use simulator::machine::memory::data_base_after;
use simulator::machine::CODE_BASE;
use simulator::object::{Annotation, Object, Symbol, SymbolKind};
use std::collections::HashMap;

/// Counts of one link.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    pub code_bytes: u32,
    pub data_bytes: u32,
    pub bss_bytes: u32,
    pub bundles: u64,
    /// `nop` syllables the ST231 encoder added to put multiplies in odd lanes.
    pub padding_nops: u64,
}

/// Where each global goes.
struct DataLayout {
    data: Vec<u8>,
    /// (global index, offset in its section, in bss).
    places: Vec<(usize, u32, bool)>,
    bss: u32,
}

fn valid_align(g: &Global) -> Result<u32, EmitError> {
    let a = g.align.max(1);
    if !a.is_power_of_two() || a > 4096 {
        return Err(EmitError::new(format!(
            "global @{}: alignment {} is not a power of two up to 4096",
            g.name, g.align
        )));
    }
    Ok(a)
}

/// Whether a global goes to bss (zero-initialised: no bytes, no relocations).
pub fn in_bss(g: &Global) -> bool {
    g.init.is_empty() && g.relocs.is_empty()
}

fn layout_data(globals: &[Global]) -> Result<DataLayout, EmitError> {
    let mut d = DataLayout {
        data: Vec::new(),
        places: Vec::with_capacity(globals.len()),
        bss: 0,
    };
    for (i, g) in globals.iter().enumerate() {
        let align = valid_align(g)?;
        if g.init.len() > g.size as usize {
            return Err(EmitError::new(format!(
                "global @{}: {} initial bytes for a size of {}",
                g.name,
                g.init.len(),
                g.size
            )));
        }
        if in_bss(g) {
            d.bss = d.bss.div_ceil(align) * align;
            d.places.push((i, d.bss, true));
            d.bss = d
                .bss
                .checked_add(g.size)
                .ok_or_else(|| EmitError::new("bss too large"))?;
        } else {
            let pad = (align - (d.data.len() as u32 % align)) % align;
            d.data.resize(d.data.len() + pad as usize, 0);
            d.places.push((i, d.data.len() as u32, false));
            d.data.extend_from_slice(&g.init);
            d.data
                .resize(d.data.len() + g.size as usize - g.init.len(), 0);
        }
        if d.data.len() > 1 << 28 {
            return Err(EmitError::new("data too large"));
        }
    }
    Ok(d)
}

/// Code layout: address of every block and bundle.
struct CodeLayout {
    func_start: Vec<u32>,
    func_end: Vec<u32>,
    /// [function][block] start address.
    block_addr: Vec<Vec<u32>>,
    /// [function][block][bundle] (address, words).
    bundle_at: Vec<Vec<Vec<(u32, usize)>>>,
    end: u32,
}

/// Operations of an ST231 bundle with placeholder values, and the forced extensions.
fn st231_ops(ops: &[LoweredOp]) -> (Vec<isa231::Op>, Vec<bool>) {
    (
        ops.iter().filter_map(|l| l.st231()).collect(),
        ops.iter().map(|l| l.force_extension()).collect(),
    )
}

fn bundle_words(
    f: &ScheduledFunction,
    b: mir::BlockId,
    ops: &[LoweredOp],
    addr: u32,
) -> Result<usize, EmitError> {
    match f.target {
        Target::St231 => {
            let (o, force) = st231_ops(ops);
            isa231::encoding::encode_bundle_forced(&o, &force, addr)
                .map(|e| e.words.len())
                .map_err(|e| EmitError::at(&f.name, Some(b), format!("cannot encode bundle: {e}")))
        }
        Target::St120 => Ok(ops.len()),
    }
}

fn layout_code(funcs: &[ScheduledFunction]) -> Result<CodeLayout, EmitError> {
    let mut addr = CODE_BASE;
    let mut l = CodeLayout {
        func_start: Vec::new(),
        func_end: Vec::new(),
        block_addr: Vec::new(),
        bundle_at: Vec::new(),
        end: 0,
    };
    for f in funcs {
        l.func_start.push(addr);
        let mut blocks = Vec::with_capacity(f.blocks.len());
        let mut bundles = Vec::with_capacity(f.blocks.len());
        for b in &f.blocks {
            blocks.push(addr);
            let mut at = Vec::with_capacity(b.bundles.len());
            for bundle in &b.bundles {
                let w = bundle_words(f, b.id, &bundle.ops, addr)?;
                at.push((addr, w));
                addr = addr
                    .checked_add(4 * w as u32)
                    .filter(|a| *a < 0x4000_0000)
                    .ok_or_else(|| EmitError::new("code too large"))?;
            }
            bundles.push(at);
        }
        l.block_addr.push(blocks);
        l.bundle_at.push(bundles);
        l.func_end.push(addr);
    }
    l.end = addr;
    Ok(l)
}

/// Addresses of every function and global.
fn symbol_addresses(
    funcs: &[ScheduledFunction],
    code: &CodeLayout,
    globals: &[Global],
    data: &DataLayout,
    data_base: u32,
    bss_base: u32,
) -> Result<HashMap<String, u32>, EmitError> {
    let mut syms = HashMap::new();
    for (i, f) in funcs.iter().enumerate() {
        if syms.insert(f.name.clone(), code.func_start[i]).is_some() {
            return Err(EmitError::new(format!(
                "function @{} defined twice",
                f.name
            )));
        }
    }
    for &(gi, off, bss) in &data.places {
        let base = if bss { bss_base } else { data_base };
        let name = &globals[gi].name;
        if syms.insert(name.clone(), base + off).is_some() {
            return Err(EmitError::new(format!("symbol @{name} defined twice")));
        }
    }
    Ok(syms)
}

/// Resolves fixups of one function.
struct Resolver<'a> {
    f: &'a ScheduledFunction,
    blocks: &'a [u32],
    syms: &'a HashMap<String, u32>,
}

impl Resolver<'_> {
    fn block(&self, b: mir::BlockId, at: mir::BlockId) -> Result<u32, EmitError> {
        self.blocks.get(b.index()).copied().ok_or_else(|| {
            EmitError::at(
                &self.f.name,
                Some(at),
                format!("branch to missing block {b}"),
            )
        })
    }

    fn sym(&self, name: &str, at: mir::BlockId) -> Result<u32, EmitError> {
        self.syms.get(name).copied().ok_or_else(|| {
            EmitError::at(&self.f.name, Some(at), format!("undefined symbol @{name}"))
        })
    }

    /// The absolute address a fixup names (`None` for no fixup).
    fn target(&self, fx: &Fixup, at: mir::BlockId) -> Result<Option<i64>, EmitError> {
        Ok(match fx {
            Fixup::None => None,
            Fixup::Block(b) => Some(i64::from(self.block(*b, at)?)),
            Fixup::Func(n) => Some(i64::from(self.sym(n, at)?)),
            Fixup::Sym { name, offset, .. } => {
                Some(i64::from(self.sym(name, at)?) + i64::from(*offset))
            }
        })
    }
}

/// The final ST231 operations of a bundle at `addr`.
fn resolve_231(
    r: &Resolver,
    ops: &[LoweredOp],
    addr: u32,
    at: mir::BlockId,
) -> Result<Vec<isa231::Op>, EmitError> {
    let mut out = Vec::with_capacity(ops.len());
    for l in ops {
        let MachOp::St231(mut op) = l.op else {
            return Err(EmitError::at(
                &r.f.name,
                Some(at),
                "ST120 operation in ST231 code",
            ));
        };
        if let Some(v) = r.target(&l.fixup, at)? {
            match (&l.fixup, op.opc.info().format) {
                (Fixup::Block(_) | Fixup::Func(_), _) => op.imm = (v - i64::from(addr)) as i32,
                (Fixup::Sym { .. }, Format::Binary | Format::Select) => {
                    op.s2 = Src::Imm(v as u32 as i32)
                }
                (Fixup::Sym { .. }, _) => op.imm = v as u32 as i32,
                (Fixup::None, _) => {}
            }
        }
        out.push(op);
    }
    Ok(out)
}

/// The final ST120 operations of a group at `addr`.
fn resolve_120(
    r: &Resolver,
    ops: &[LoweredOp],
    addr: u32,
    at: mir::BlockId,
) -> Result<Vec<isa120::Inst>, EmitError> {
    let mut out = Vec::with_capacity(ops.len());
    for (k, l) in ops.iter().enumerate() {
        let MachOp::St120(mut inst) = l.op else {
            return Err(EmitError::at(
                &r.f.name,
                Some(at),
                "ST231 operation in ST120 code",
            ));
        };
        let pc = i64::from(addr) + 4 * k as i64;
        if let Some(v) = r.target(&l.fixup, at)? {
            let imm = match &l.fixup {
                Fixup::Block(_) | Fixup::Func(_) => (v - pc) / 4,
                Fixup::Sym { part, .. } => e120::sym_part_value(v, *part),
                Fixup::None => 0,
            };
            inst.imm = i32::try_from(imm).map_err(|_| {
                EmitError::at(&r.f.name, Some(at), format!("immediate {imm} out of range"))
            })?;
            if let Fixup::Sym {
                part: SymPart::Full,
                name,
                ..
            } = &l.fixup
            {
                if inst.validate().is_err() {
                    return Err(EmitError::at(
                        &r.f.name,
                        Some(at),
                        format!(
                            "the address of @{name} does not fit {}",
                            inst.opcode.mnemonic()
                        ),
                    ));
                }
            }
        }
        out.push(inst);
    }
    Ok(out)
}

/// Link scheduled functions and globals into an object.
pub fn link_module(
    funcs: &[ScheduledFunction],
    globals: &[Global],
    target: Target,
) -> Result<Object, EmitError> {
    link_module_stats(funcs, globals, target).map(|(o, _)| o)
}

/// Schedule (with `opts`) and link a final-form module.
pub fn link_mir_module(m: &mir::Module, opts: &SchedOptions) -> Result<Object, EmitError> {
    let funcs = sched::schedule_module(m, opts)?;
    link_module(&funcs, &m.globals, m.target)
}

/// [`link_module`], also returning the link counts.
pub fn link_module_stats(
    funcs: &[ScheduledFunction],
    globals: &[Global],
    target: Target,
) -> Result<(Object, LinkStats), EmitError> {
    if let Some(f) = funcs.iter().find(|f| f.target != target) {
        return Err(EmitError::at(
            &f.name,
            None,
            format!("function for {} in a {target} link", f.target),
        ));
    }
    let code = layout_code(funcs)?;
    let code_size = code.end - CODE_BASE;
    let data = layout_data(globals)?;
    let data_base = data_base_after(CODE_BASE, code_size);
    let data_len = data.data.len() as u32;
    let bss_base = data_base + data_len.div_ceil(8) * 8;
    let syms = symbol_addresses(funcs, &code, globals, &data, data_base, bss_base)?;
    let mut stats = LinkStats {
        code_bytes: code_size,
        data_bytes: data_len,
        bss_bytes: data.bss,
        ..LinkStats::default()
    };
    let mut bytes = Vec::with_capacity(code_size as usize);
    let mut annotations = Vec::new();
    for (fi, f) in funcs.iter().enumerate() {
        let r = Resolver {
            f,
            blocks: &code.block_addr[fi],
            syms: &syms,
        };
        for (bi, b) in f.blocks.iter().enumerate() {
            for (k, bundle) in b.bundles.iter().enumerate() {
                let (addr, words) = code.bundle_at[fi][bi][k];
                let slots =
                    encode_bundle(&r, &bundle.ops, addr, words, b.id, &mut bytes, &mut stats)?;
                for (l, slot) in bundle.ops.iter().zip(slots) {
                    let flags = l.annotation();
                    if !flags.is_empty() {
                        annotations.push(Annotation {
                            addr: addr + 4 * slot as u32,
                            flags,
                        });
                    }
                }
            }
        }
    }
    let mut data_bytes = data.data;
    for &(gi, off, bss) in &data.places {
        let g = &globals[gi];
        for rel in &g.relocs {
            let end = u64::from(rel.offset) + 4;
            if bss || end > u64::from(g.size) {
                return Err(EmitError::new(format!(
                    "global @{}: relocation at offset {} outside the object",
                    g.name, rel.offset
                )));
            }
            let v = syms.get(&rel.symbol).ok_or_else(|| {
                EmitError::new(format!(
                    "global @{}: relocation names undefined symbol @{}",
                    g.name, rel.symbol
                ))
            })?;
            let val = v.wrapping_add(rel.addend as u32);
            let at = (off + rel.offset) as usize;
            data_bytes[at..at + 4].copy_from_slice(&val.to_le_bytes());
        }
    }
    let mut symbols = Vec::new();
    for (fi, f) in funcs.iter().enumerate() {
        symbols.push(Symbol {
            name: f.name.clone(),
            kind: SymbolKind::Function,
            addr: code.func_start[fi],
            size: code.func_end[fi] - code.func_start[fi],
        });
    }
    for bss_pass in [false, true] {
        for &(gi, off, bss) in &data.places {
            let g = &globals[gi];
            if bss != bss_pass || g.name.starts_with(".L") {
                continue;
            }
            symbols.push(Symbol {
                name: g.name.clone(),
                kind: SymbolKind::Object,
                addr: if bss { bss_base } else { data_base } + off,
                size: g.size,
            });
        }
    }
    let entry = ["main", "_start"]
        .iter()
        .find_map(|n| funcs.iter().position(|f| f.name == *n))
        .map_or(CODE_BASE, |i| code.func_start[i]);
    let mut obj = Object::new(target);
    obj.code = bytes;
    obj.data_base = data_base;
    obj.data = data_bytes;
    if data.bss > 0 {
        obj.data.resize((bss_base - data_base) as usize, 0);
    }
    obj.bss_size = data.bss;
    obj.entry = entry;
    obj.symbols = symbols;
    obj.annotations = annotations;
    obj.validate()
        .map_err(|e| EmitError::new(format!("linked object is invalid: {e}")))?;
    Ok((obj, stats))
}

/// Encode one bundle at `addr` (expected size `words`), append its bytes, and return the
/// syllable/word index of each operation.
fn encode_bundle(
    r: &Resolver,
    ops: &[LoweredOp],
    addr: u32,
    words: usize,
    at: mir::BlockId,
    out: &mut Vec<u8>,
    stats: &mut LinkStats,
) -> Result<Vec<usize>, EmitError> {
    let err = |m: String| EmitError::at(&r.f.name, Some(at), m);
    stats.bundles += 1;
    match r.f.target {
        Target::St231 => {
            let real = resolve_231(r, ops, addr, at)?;
            let force: Vec<bool> = ops.iter().map(|l| l.force_extension()).collect();
            let enc = isa231::encoding::encode_bundle_forced(&real, &force, addr)
                .map_err(|e| err(format!("cannot encode bundle: {e}")))?;
            if enc.words.len() != words {
                return Err(err("internal: bundle size changed between passes".into()));
            }
            isa231::issue::check_bundle(real.iter().zip(enc.op_slots.iter().copied()))
                .map_err(|e| err(format!("illegal bundle: {e}")))?;
            let used: usize = ops.iter().map(|l| l.syllables()).sum();
            stats.padding_nops += (enc.words.len() - used) as u64;
            for w in &enc.words {
                out.extend_from_slice(&w.to_le_bytes());
            }
            Ok(enc.op_slots)
        }
        Target::St120 => {
            let real = resolve_120(r, ops, addr, at)?;
            isa120::issue::check_group(&real).map_err(|e| err(format!("illegal group: {e}")))?;
            for (k, inst) in real.iter().enumerate() {
                let w = isa120::encoding::encode(inst, k + 1 == real.len())
                    .map_err(|e| err(format!("cannot encode: {e}")))?;
                out.extend_from_slice(&w.to_le_bytes());
            }
            Ok((0..real.len()).collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Reloc;

    fn g(name: &str, size: u32, align: u32, init: &[u8]) -> Global {
        Global {
            name: name.into(),
            size,
            align,
            init: init.to_vec(),
            relocs: vec![],
            readonly: false,
        }
    }

    #[test]
    fn data_and_bss_layout_follow_the_assembler() {
        let mut p = g("p", 4, 4, &[]);
        p.relocs.push(Reloc {
            offset: 0,
            symbol: "a".into(),
            addend: 1,
        });
        let globals = vec![
            g("a", 3, 1, b"xyz"),
            g("z", 10, 8, &[]),
            g("b", 8, 8, &[1]),
            p,
            g("w", 4, 4, &[]),
        ];
        let d = layout_data(&globals).unwrap();
        // a at 0 (3 bytes), b aligned to 8, p at 16; bss: z at 0, w at 12
        assert_eq!(
            d.places,
            vec![
                (0, 0, false),
                (1, 0, true),
                (2, 8, false),
                (3, 16, false),
                (4, 12, true)
            ]
        );
        assert_eq!(d.data.len(), 20);
        assert_eq!(d.bss, 16);
        assert_eq!(&d.data[8..16], &[1, 0, 0, 0, 0, 0, 0, 0]);
        let obj = link_module(&[], &globals, Target::St231).unwrap();
        assert_eq!(obj.data_base, CODE_BASE);
        assert_eq!(
            obj.data.len(),
            24,
            "data padded up to the 8-aligned bss start"
        );
        let a = obj.symbol("a").unwrap().addr;
        assert_eq!(&obj.data[16..20], &(a + 1).to_le_bytes());
        assert_eq!(obj.symbol("w").unwrap().addr, CODE_BASE + 24 + 12);
    }

    #[test]
    fn bad_globals_are_errors() {
        assert!(layout_data(&[g("x", 2, 4, b"abc")]).is_err());
        assert!(layout_data(&[g("x", 2, 3, b"")]).is_err());
        let mut r = g("r", 4, 4, &[0]);
        r.relocs.push(Reloc {
            offset: 2,
            symbol: "r".into(),
            addend: 0,
        });
        assert!(link_module(&[], &[r], Target::St120).is_err());
    }
}
