//! Bit-exact ST231 syllable and bundle encoding (isa.md §A3).
//!
//! ```text
//! bit 31 stop | 30 reserved (0) | 29:28 class (00 int, 01 special, 10 mem, 11 control)
//! RRR  class00 b27=0: [27:21]opc7 [20:18]bdest [17:12]dest [11:6]src2 [5:0]src1
//! RI   class00 b27=1: [27:21]opc7 [20:12]imm9  [11:6]dest (or [8:6]bdest) [5:0]src1
//! MEM  class10:       [27:23]opc5 [22:21]0 [20:12]imm9 [11:6]dest|storeval [5:0]base
//! SLCT class01:       [27:24]op4 [23:21]$b then RRR fields (or RI fields for op4 1000/1001)
//! IMMX class01:       [27:23] 01010 imml (extends the syllable before) / 01011 immr (after),
//!                     [22:0] imm[31:9]
//! SYSCALL class01:    [27:21] 1111110, [20:0] number (O64 isa_pack / SocLib specific.isa)
//! CTRL class11:       [27:23] 00000 call, 00001 icall, 00010 goto, 00011 igoto/return;
//!                     [22:0] word offset
//! BR   class11:       [27:26] 10 br / 11 brf, [25:23] $b, [22:0] word offset
//! nop = 0x00000000 (add $r0 = $r0, $r0)
//! ```
//! Immediates: imm9 sign-extended; with an extension imm32 = (ext23 << 9) | imm9. Branch
//! targets: bundle address + sext(offset23) * 4.
//!
//! The decoder is strict: reserved bit 30, unused fields (bdest of `$r` compares, dest of
//! `$b` compares, `[11:9]` of RI `$b` compares, `[22:21]` of memory syllables, the base-value
//! field of `pft`, the offset of `icall`/`igoto`) must be zero, and undefined opcodes are
//! illegal; so decoding is the exact inverse of encoding. Every function is O(1) per syllable
//! (bundle arrangement tries at most 4! x 2^2 orders).

use super::issue::{check_bundle, IssueError};
use super::opcode::{Dest, Enc, Format, Op, OpProps, Opcode, Src};
use std::fmt;

/// Stop bit: set on the last syllable of a bundle.
pub const STOP: u32 = 1 << 31;
/// Most syllables in a bundle.
pub const MAX_SYLLABLES: usize = 4;

const CLASS_INT: u32 = 0;
const CLASS_SPECIAL: u32 = 1 << 28;
const CLASS_MEM: u32 = 2 << 28;
const CLASS_CTL: u32 = 3 << 28;
const IMML: u32 = 0x0A;
const IMMR: u32 = 0x0B;
const SYSCALL_OP7: u32 = 0x7E;
const MONADIC_OPC: u32 = 0x4E;

/// Why an operation or bundle cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

fn err<T>(msg: impl Into<String>) -> Result<T, EncodeError> {
    Err(EncodeError(msg.into()))
}

fn gpr(r: u8) -> Result<u32, EncodeError> {
    if r < 64 {
        Ok(u32::from(r))
    } else {
        err(format!("no register $r{r}"))
    }
}

fn br(b: u8) -> Result<u32, EncodeError> {
    if b < 8 {
        Ok(u32::from(b))
    } else {
        err(format!("no branch register $b{b}"))
    }
}

/// imm9 field and optional 23-bit extension of a 32-bit immediate.
fn split_imm(v: i32) -> (u32, Option<u32>) {
    let field = (v as u32) & 0x1FF;
    if (-256..=255).contains(&v) {
        (field << 12, None)
    } else {
        (field << 12, Some(((v as u32) >> 9) & 0x7F_FFFF))
    }
}

fn word_offset(disp: i32) -> Result<u32, EncodeError> {
    if disp % 4 != 0 {
        return err(format!("branch displacement {disp} is not a multiple of 4"));
    }
    let w = disp / 4;
    if !(-(1 << 22)..(1 << 22)).contains(&w) {
        return err(format!("branch displacement {disp} out of range"));
    }
    Ok((w as u32) & 0x7F_FFFF)
}

/// Encode one operation: its syllable (stop bit clear) and, for a long immediate, the
/// 23-bit payload of its extension syllable.
pub fn encode_op(op: &Op) -> Result<(u32, Option<u32>), EncodeError> {
    let info = op.opc.info();
    let props = info.props;
    if props.contains(OpProps::NOLINK) && op.dest == Dest::R(63) {
        return err(format!("{} may not write $r63", op.opc));
    }
    let s1 = gpr(op.s1)?;
    Ok(match (info.enc, info.format) {
        (Enc::Nop, _) => (0, None),
        (Enc::Int(opc), Format::Binary) => {
            let (dfield_rrr, dfield_ri, to_b) = match op.dest {
                Dest::R(d) => (gpr(d)? << 12, gpr(d)? << 6, false),
                Dest::B(b) if props.contains(OpProps::COMPARE) => (br(b)? << 18, br(b)? << 6, true),
                Dest::B(_) => return err(format!("{} cannot write a branch register", op.opc)),
                Dest::None => return err("missing destination"),
            };
            let opc = u32::from(opc) + if to_b { 0x10 } else { 0 };
            match op.s2 {
                Src::R(r) => (CLASS_INT | opc << 21 | dfield_rrr | gpr(r)? << 6 | s1, None),
                Src::Imm(v) => {
                    let (f, ext) = split_imm(v);
                    (CLASS_INT | (opc + 0x40) << 21 | f | dfield_ri | s1, ext)
                }
                Src::None => return err("missing second operand"),
            }
        }
        (Enc::Mono(sub), _) => {
            let Dest::R(d) = op.dest else {
                return err("monadic operations write a $r");
            };
            (
                CLASS_INT | MONADIC_OPC << 21 | u32::from(sub) << 12 | gpr(d)? << 6 | s1,
                None,
            )
        }
        (Enc::Special(op4), Format::Select) => {
            let Dest::R(d) = op.dest else {
                return err("slct writes a $r");
            };
            let head = CLASS_SPECIAL | br(op.b)? << 21;
            match op.s2 {
                Src::R(r) => (
                    head | u32::from(op4) << 24 | gpr(d)? << 12 | gpr(r)? << 6 | s1,
                    None,
                ),
                Src::Imm(v) => {
                    let (f, ext) = split_imm(v);
                    (head | u32::from(op4 | 8) << 24 | f | gpr(d)? << 6 | s1, ext)
                }
                Src::None => return err("missing second operand"),
            }
        }
        (Enc::Special(op4), _) => {
            let (Dest::R(d), Src::R(r)) = (op.dest, op.s2) else {
                return err("addcg/divs take $d, $b = $b, $r, $r");
            };
            let w = CLASS_SPECIAL | u32::from(op4) << 24 | br(op.b)? << 21 | br(op.bdest)? << 18;
            (w | gpr(d)? << 12 | gpr(r)? << 6 | s1, None)
        }
        (Enc::Mem(opc5), fmt) => {
            let (f, ext) = split_imm(op.imm);
            let mid = match fmt {
                Format::Load => match op.dest {
                    Dest::R(d) => gpr(d)?,
                    _ => return err("loads write a $r"),
                },
                Format::Store => match op.s2 {
                    Src::R(r) => gpr(r)?,
                    _ => return err("stores take a register value"),
                },
                _ => 0,
            };
            (CLASS_MEM | u32::from(opc5) << 23 | f | mid << 6 | s1, ext)
        }
        (Enc::Ctl(k), Format::Jump) => {
            (CLASS_CTL | u32::from(k) << 23 | word_offset(op.imm)?, None)
        }
        (Enc::Ctl(k), _) => (CLASS_CTL | u32::from(k) << 23, None),
        (Enc::Br(k), _) => (
            CLASS_CTL | u32::from(k) << 26 | br(op.b)? << 23 | word_offset(op.imm)?,
            None,
        ),
        (Enc::Syscall, _) => {
            if !(0..1 << 21).contains(&op.imm) {
                return err(format!("syscall number {} out of range", op.imm));
            }
            (CLASS_SPECIAL | SYSCALL_OP7 << 21 | op.imm as u32, None)
        }
        (Enc::Int(_), _) => return err("bad format"),
    })
}

/// An extension syllable carrying `payload` (imm[31:9]); `right` = `immr`.
pub fn encode_extension(payload: u32, right: bool) -> u32 {
    CLASS_SPECIAL | (if right { IMMR } else { IMML }) << 23 | (payload & 0x7F_FFFF)
}

/// One decoded syllable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syllable {
    /// An operation (immediates hold the sign-extended imm9 only).
    Op(Op),
    /// `imml` (`right` false) or `immr` extension with imm[31:9].
    Ext { right: bool, payload: u32 },
}

fn sext9(x: u32) -> i32 {
    ((x << 23) as i32) >> 23
}

fn sext23(x: u32) -> i32 {
    ((x << 9) as i32) >> 9
}

fn int_opcode(base: u32) -> Option<Opcode> {
    Opcode::ALL
        .iter()
        .copied()
        .find(|o| o.info().enc == Enc::Int(base as u8))
}

/// Decode one syllable (the stop bit is ignored). `None` = illegal encoding.
pub fn decode_syllable(word: u32) -> Option<Syllable> {
    let w = word & !STOP;
    if w & (1 << 30) != 0 {
        return None;
    }
    if w == 0 {
        return Some(Syllable::Op(Op::nop()));
    }
    let f = |hi: u32, n: u32| (w >> hi) & ((1 << n) - 1);
    let s1 = f(0, 6) as u8;
    let op = match w >> 28 {
        0 => {
            let opc7 = f(21, 7);
            if opc7 & 0x40 == 0 {
                // RRR.
                let (base, to_b) = if (0x30..=0x3D).contains(&opc7) {
                    (opc7 - 0x10, true)
                } else {
                    (opc7, false)
                };
                let opc = int_opcode(base)?;
                let dest = if to_b {
                    if f(12, 6) != 0 {
                        return None;
                    }
                    Dest::B(f(18, 3) as u8)
                } else {
                    if f(18, 3) != 0 {
                        return None;
                    }
                    Dest::R(f(12, 6) as u8)
                };
                Op::binary(opc, dest, s1, Src::R(f(6, 6) as u8))
            } else if opc7 == MONADIC_OPC {
                let opc = Opcode::ALL
                    .iter()
                    .copied()
                    .find(|o| o.info().enc == Enc::Mono(f(12, 9) as u16))?;
                Op::monadic(opc, f(6, 6) as u8, s1)
            } else {
                let base = opc7 - 0x40;
                let (base, to_b) = if (0x30..=0x3D).contains(&base) {
                    (base - 0x10, true)
                } else {
                    (base, false)
                };
                let opc = int_opcode(base)?;
                let dest = if to_b {
                    if f(9, 3) != 0 {
                        return None;
                    }
                    Dest::B(f(6, 3) as u8)
                } else {
                    Dest::R(f(6, 6) as u8)
                };
                Op::binary(opc, dest, s1, Src::Imm(sext9(f(12, 9))))
            }
        }
        1 => {
            let op4 = f(24, 4);
            let b = f(21, 3) as u8;
            match op4 {
                0 | 1 => {
                    if f(18, 3) != 0 {
                        return None;
                    }
                    let opc = if op4 == 0 {
                        Opcode::Slct
                    } else {
                        Opcode::Slctf
                    };
                    Op::select(opc, f(12, 6) as u8, b, s1, Src::R(f(6, 6) as u8))
                }
                8 | 9 => {
                    let opc = if op4 == 8 {
                        Opcode::Slct
                    } else {
                        Opcode::Slctf
                    };
                    Op::select(opc, f(6, 6) as u8, b, s1, Src::Imm(sext9(f(12, 9))))
                }
                2 | 4 => {
                    let opc = if op4 == 2 {
                        Opcode::Addcg
                    } else {
                        Opcode::Divs
                    };
                    Op::carry(opc, f(12, 6) as u8, f(18, 3) as u8, b, s1, f(6, 6) as u8)
                }
                5 => {
                    return Some(Syllable::Ext {
                        right: f(23, 1) == 1,
                        payload: f(0, 23),
                    });
                }
                15 if f(21, 7) == SYSCALL_OP7 => Op::syscall(f(0, 21)),
                _ => return None,
            }
        }
        2 => {
            let opc5 = f(23, 5) as u8;
            if f(21, 2) != 0 {
                return None;
            }
            let opc = Opcode::ALL
                .iter()
                .copied()
                .find(|o| o.info().enc == Enc::Mem(opc5))?;
            let off = sext9(f(12, 9));
            let mid = f(6, 6) as u8;
            match opc.info().format {
                Format::Load => Op::load(opc, mid, s1, off),
                Format::Store => Op::store(opc, s1, off, mid),
                _ => {
                    if mid != 0 {
                        return None;
                    }
                    Op::prefetch(s1, off)
                }
            }
        }
        _ => {
            let off = sext23(f(0, 23)) * 4;
            match f(26, 2) {
                2 => Op::branch(Opcode::Br, f(23, 3) as u8, off),
                3 => Op::branch(Opcode::Brf, f(23, 3) as u8, off),
                _ => match f(23, 5) {
                    0 => Op::jump(Opcode::Call, off),
                    2 => Op::jump(Opcode::Goto, off),
                    1 | 3 if f(0, 23) == 0 => Op::jump(
                        if f(23, 5) == 1 {
                            Opcode::Icall
                        } else {
                            Opcode::Igoto
                        },
                        0,
                    ),
                    _ => return None,
                },
            }
        }
    };
    if op.opc.props().contains(OpProps::NOLINK) && op.dest == Dest::R(63) {
        return None;
    }
    Some(Syllable::Op(op))
}

/// A decoded bundle: its operations (long immediates folded in) with the syllable index of
/// each operation, and its length in syllables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodedBundle {
    pub ops: Vec<(Op, usize)>,
    pub syllables: usize,
}

/// Why a bundle cannot be decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// Syllable `index` is not a valid encoding.
    Illegal { index: usize, word: u32 },
    /// The syllables do not form a legal bundle.
    Bundle(&'static str),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Illegal { word, .. } => write!(f, "illegal encoding {word:#010x}"),
            DecodeError::Bundle(why) => write!(f, "illegal bundle: {why}"),
        }
    }
}

impl From<IssueError> for DecodeError {
    fn from(e: IssueError) -> DecodeError {
        DecodeError::Bundle(e.0)
    }
}

/// Number of syllables of the bundle starting at `words[0]`: up to and including the first
/// syllable with the stop bit; `None` when no stop bit comes within 4 syllables / the input.
pub fn bundle_length(words: &[u32]) -> Option<usize> {
    words
        .iter()
        .take(MAX_SYLLABLES)
        .position(|w| w & STOP != 0)
        .map(|i| i + 1)
}

/// Decode the bundle starting at `words[0]` and check the issue rules (isa.md §A2 and the
/// ASSUMPTION there: width, one memory operation, one control operation in first position,
/// two multiplies, `syscall` alone, extension syllables next to an operation that takes a
/// long immediate). The odd-lane rule is not checked (ASSUMPTION isa.md §A2: encoder only).
pub fn decode_bundle(words: &[u32]) -> Result<DecodedBundle, DecodeError> {
    let n = bundle_length(words).ok_or(DecodeError::Bundle("no stop bit within 4 syllables"))?;
    let mut syl = [None; MAX_SYLLABLES];
    for (i, w) in words[..n].iter().enumerate() {
        syl[i] = Some(decode_syllable(*w).ok_or(DecodeError::Illegal { index: i, word: *w })?);
    }
    let mut ops: Vec<(Op, usize)> = Vec::with_capacity(n);
    let mut extended = [false; MAX_SYLLABLES];
    for i in 0..n {
        let Some(Syllable::Ext { right, payload }) = syl[i] else {
            continue;
        };
        let j = if right { i + 1 } else { i.wrapping_sub(1) };
        let target = if j < n { syl[j] } else { None };
        let Some(Syllable::Op(mut op)) = target else {
            return Err(DecodeError::Bundle(
                "extension syllable without an operation beside it",
            ));
        };
        if extended[j] || op.extendable_imm().is_none() {
            return Err(DecodeError::Bundle(
                "extension of an operation without a long immediate",
            ));
        }
        extended[j] = true;
        let low = op.extendable_imm().unwrap_or(0) as u32 & 0x1FF;
        let full = ((payload << 9) | low) as i32;
        match op.opc.info().format {
            Format::Binary | Format::Select => op.s2 = Src::Imm(full),
            _ => op.imm = full,
        }
        syl[j] = Some(Syllable::Op(op));
    }
    for (i, s) in syl.iter().enumerate().take(n) {
        if let Some(Syllable::Op(op)) = s {
            ops.push((*op, i));
        }
    }
    check_bundle(ops.iter().map(|(o, i)| (o, *i)))?;
    Ok(DecodedBundle { ops, syllables: n })
}

/// One slot of an arranged bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Op(usize),
    Ext { of: usize, right: bool },
}

/// Try to order `ops` (with their extensions) so that the control operation is first and
/// every multiply sits in an odd lane (syllable address bit 2 set) for a bundle starting at
/// `addr`. Orders are tried with the written order first, `imml` before `immr`.
fn arrange(ops: &[Op], ext: &[bool], addr: u32) -> Option<Vec<Slot>> {
    let n = ops.len();
    let mut perm: Vec<usize> = (0..n).collect();
    let ext_ops: Vec<usize> = (0..n).filter(|&i| ext[i]).collect();
    loop {
        for mask in 0..(1u32 << ext_ops.len()) {
            let mut slots = Vec::with_capacity(MAX_SYLLABLES);
            for &i in &perm {
                let right = ext_ops
                    .iter()
                    .position(|&e| e == i)
                    .is_some_and(|k| mask & (1 << k) != 0);
                if ext[i] && right {
                    slots.push(Slot::Ext { of: i, right: true });
                }
                slots.push(Slot::Op(i));
                if ext[i] && !right {
                    slots.push(Slot::Ext {
                        of: i,
                        right: false,
                    });
                }
            }
            let ok = slots.iter().enumerate().all(|(pos, s)| match s {
                Slot::Op(i) => {
                    let lane_odd = ((addr >> 2) + pos as u32) & 1 == 1;
                    (!ops[*i].opc.is_mul() || lane_odd) && (!ops[*i].opc.is_control() || pos == 0)
                }
                Slot::Ext { .. } => true,
            });
            if ok {
                return Some(slots);
            }
        }
        if !next_permutation(&mut perm) {
            return None;
        }
    }
}

/// Lexicographic next permutation; false after the last one.
fn next_permutation(p: &mut [usize]) -> bool {
    let n = p.len();
    if n < 2 {
        return false;
    }
    let Some(i) = (0..n - 1).rev().find(|&i| p[i] < p[i + 1]) else {
        return false;
    };
    let j = (i + 1..n).rev().find(|&j| p[j] > p[i]).unwrap_or(i + 1);
    p.swap(i, j);
    p[i + 1..].reverse();
    true
}

/// An encoded bundle: its words (stop bit on the last) and, for each input operation, the
/// index of its syllable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodedBundle {
    pub words: Vec<u32>,
    pub op_slots: Vec<usize>,
}

/// Encode `ops` as one bundle starting at address `addr`: checks the issue rules, orders the
/// syllables for the lane rules (control first, multiplies in odd lanes — ASSUMPTION isa.md
/// §A2: the encoder may reorder syllables or pad with `nop`; one `nop` is appended when no
/// order works and a lane is free) and sets the stop bit.
pub fn encode_bundle(ops: &[Op], addr: u32) -> Result<EncodedBundle, EncodeError> {
    encode_bundle_forced(ops, &vec![false; ops.len()], addr)
}

/// Like [`encode_bundle`], but operation `i` gets an extension syllable whenever
/// `force_ext[i]` (used by the assembler for immediates that name symbols, whose size must be
/// fixed before their value is known; a small value is then encoded with a sign-extension
/// payload, which decodes to the same value). At most one padding `nop`: the compiler's
/// scheduler asks this function whether a bundle is legal, so this is the bundle shape its
/// schedules are built for (two multiplies alone at an even address are refused; the
/// assembler accepts them through [`encode_bundle_padded`]).
pub fn encode_bundle_forced(
    ops: &[Op],
    force_ext: &[bool],
    addr: u32,
) -> Result<EncodedBundle, EncodeError> {
    encode_bundle_padded(ops, force_ext, addr, 1)
}

/// Like [`encode_bundle_forced`], padding with up to `max_nops` `nop`s, as few as the lane
/// rules need (two multiplies alone at an even address need two: nop, mul, nop, mul).
pub fn encode_bundle_padded(
    ops: &[Op],
    force_ext: &[bool],
    addr: u32,
    max_nops: usize,
) -> Result<EncodedBundle, EncodeError> {
    if ops.is_empty() {
        return err("empty bundle");
    }
    let mut ext: Vec<bool> = ops
        .iter()
        .zip(force_ext.iter().chain(std::iter::repeat(&false)))
        .map(|(o, &f)| o.needs_extension() || (f && o.extendable_imm().is_some()))
        .collect();
    let total = ops.len() + ext.iter().filter(|&&e| e).count();
    if total > MAX_SYLLABLES {
        return err("more than 4 syllables");
    }
    // Positions are chosen by `arrange` below (control first), so check the counts only.
    check_bundle(ops.iter().map(|o| (o, 0))).map_err(|e| EncodeError(e.0.to_string()))?;
    // Pad with as few `nop`s as the lanes need (two multiplies at an even address need two:
    // nop, mul, nop, mul).
    let mut padded: Vec<Op> = ops.to_vec();
    let mut size = total;
    let slots = loop {
        if let Some(s) = arrange(&padded, &ext, addr) {
            break s;
        }
        if size >= MAX_SYLLABLES || padded.len() - ops.len() >= max_nops {
            return err("no legal lane assignment for this bundle (multiplies need odd lanes)");
        }
        padded.push(Op::nop());
        ext.push(false);
        size += 1;
    };
    let mut words = Vec::with_capacity(slots.len());
    let mut op_slots = vec![0; ops.len()];
    let encoded: Vec<(u32, Option<u32>)> =
        padded.iter().map(encode_op).collect::<Result<_, _>>()?;
    for (pos, s) in slots.iter().enumerate() {
        match *s {
            Slot::Op(i) => {
                if i < ops.len() {
                    op_slots[i] = pos;
                }
                words.push(encoded[i].0);
            }
            Slot::Ext { of, right } => {
                let payload = encoded[of].1.unwrap_or_else(|| {
                    (padded[of].extendable_imm().unwrap_or(0) as u32 >> 9) & 0x7F_FFFF
                });
                words.push(encode_extension(payload, right));
            }
        }
    }
    if let Some(last) = words.last_mut() {
        *last |= STOP;
    }
    Ok(EncodedBundle { words, op_slots })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Opcode::*;

    fn enc(op: Op) -> u32 {
        encode_op(&op).unwrap().0
    }

    fn dec(w: u32) -> Op {
        match decode_syllable(w) {
            Some(Syllable::Op(o)) => o,
            other => panic!("{w:#x}: {other:?}"),
        }
    }

    /// Words computed by hand from the §A3 layouts (field values shifted into place).
    #[test]
    fn hand_computed_words() {
        // add $r1 = $r2, $r3: RRR opc 0, dest 1<<12, src2 3<<6, src1 2.
        assert_eq!(enc(Op::binary(Add, Dest::R(1), 2, Src::R(3))), 0x0000_10C2);
        // sub $r4 = $r5, $r6 (x=5 in src2, y=6 in src1): opc 1<<21 | 4<<12 | 5<<6 | 6.
        assert_eq!(enc(Op::binary(Sub, Dest::R(4), 6, Src::R(5))), 0x0020_4146);
        // add $r1 = $r2, 10: RI opc 0x40<<21 = 0x0800_0000 | 10<<12 | 1<<6 | 2.
        assert_eq!(
            enc(Op::binary(Add, Dest::R(1), 2, Src::Imm(10))),
            0x0800_A042
        );
        // add $r1 = $r2, -1: imm9 0x1FF<<12 = 0x1F_F000.
        assert_eq!(
            enc(Op::binary(Add, Dest::R(1), 2, Src::Imm(-1))),
            0x081F_F042
        );
        // cmplt $b3 = $r1, $r2: RRR opc 0x38<<21 = 0x0700_0000 | 3<<18 | 2<<6 | 1.
        assert_eq!(
            enc(Op::binary(Cmplt, Dest::B(3), 1, Src::R(2))),
            0x070C_0081
        );
        // cmplt $r7 = $r1, $r2: opc 0x28<<21 = 0x0500_0000 | 7<<12 | 2<<6 | 1.
        assert_eq!(
            enc(Op::binary(Cmplt, Dest::R(7), 1, Src::R(2))),
            0x0500_7081
        );
        // cmpeq $b1 = $r4, 5: RI opc 0x70<<21 = 0x0E00_0000 | 5<<12 | 1<<6 | 4.
        assert_eq!(
            enc(Op::binary(Cmpeq, Dest::B(1), 4, Src::Imm(5))),
            0x0E00_5044
        );
        // mul32 $r8 = $r9, $r10: opc 0x2E<<21 = 0x05C0_0000 | 8<<12 | 10<<6 | 9.
        assert_eq!(
            enc(Op::binary(Mul32, Dest::R(8), 9, Src::R(10))),
            0x05C0_8289
        );
        // sxth $r1 = $r2: 0x4E<<21 = 0x09C0_0000 | 1<<12 | 1<<6 | 2 (O64: sxth = 0x09c01000).
        assert_eq!(enc(Op::monadic(Sxth, 1, 2)), 0x09C0_1042);
        // zxtb = and $d = $s, 255 (O64: zxtb = 0x092ff000).
        assert_eq!(
            enc(Op::binary(And, Dest::R(0), 0, Src::Imm(255))),
            0x092F_F000
        );
        // slct $r1 = $b2, $r3, $r4: class01 | 0<<24 | 2<<21 | 1<<12 | 4<<6 | 3.
        assert_eq!(enc(Op::select(Slct, 1, 2, 3, Src::R(4))), 0x1040_1103);
        // mfb $r5 = $b1 = slctf $r5 = $b1, $r0, 1: 0x1900_0000 | 1<<21 | 1<<12 | 5<<6.
        assert_eq!(enc(Op::select(Slctf, 5, 1, 0, Src::Imm(1))), 0x1920_1140);
        // addcg $r1, $b2 = $b3, $r4, $r5: 0x1200_0000 | 3<<21 | 2<<18 | 1<<12 | 5<<6 | 4.
        assert_eq!(enc(Op::carry(Addcg, 1, 2, 3, 4, 5)), 0x1268_1144);
        // ldw $r1 = 8[$r2]: class10 | 0 | 8<<12 | 1<<6 | 2.
        assert_eq!(enc(Op::load(Ldw, 1, 2, 8)), 0x2000_8042);
        // stw -4[$r12] = $r63: 0x0A<<23 = 0x0500_0000 | 0x1FC<<12 | 63<<6 | 12.
        assert_eq!(enc(Op::store(Stw, 12, -4, 63)), 0x251F_CFCC);
        // ldbu $r3 = 0[$r4]: 0x08<<23 = 0x0400_0000.
        assert_eq!(enc(Op::load(Ldbu, 3, 4, 0)), 0x2400_00C4);
        // call +16 bytes: class11 | 0 | 4.
        assert_eq!(enc(Op::jump(Call, 16)), 0x3000_0004);
        // goto -8 bytes: 2<<23 | 0x7FFFFE.
        assert_eq!(enc(Op::jump(Goto, -8)), 0x317F_FFFE);
        // return $r63 = igoto (O64: 0x31800000); icall 0x30800000.
        assert_eq!(enc(Op::jump(Igoto, 0)), 0x3180_0000);
        assert_eq!(enc(Op::jump(Icall, 0)), 0x3080_0000);
        // br $b1, +8: 0x3800_0000 | 1<<23 | 2; brf $b0, -4: 0x3C00_0000 | 0x7FFFFF.
        assert_eq!(enc(Op::branch(Br, 1, 8)), 0x3880_0002);
        assert_eq!(enc(Op::branch(Brf, 0, -4)), 0x3C7F_FFFF);
        // syscall 2 (O64 syscall_i 0x1fc00000).
        assert_eq!(enc(Op::syscall(2)), 0x1FC0_0002);
        assert_eq!(enc(Op::nop()), 0);
    }

    #[test]
    fn long_immediates() {
        // add $r1 = $r0, 0x12345678: imm9 = 0x078, ext = 0x12345678 >> 9 = 0x91A2B.
        let (w, e) = encode_op(&Op::binary(Add, Dest::R(1), 0, Src::Imm(0x1234_5678))).unwrap();
        assert_eq!(w, 0x0807_8040);
        assert_eq!(e, Some(0x09_1A2B));
        assert_eq!(encode_extension(0x09_1A2B, false), 0x1509_1A2B);
        assert_eq!(encode_extension(0x09_1A2B, true), 0x1589_1A2B);
        let b = decode_bundle(&[w, 0x1509_1A2B | STOP]).unwrap();
        assert_eq!(b.syllables, 2);
        assert_eq!(
            b.ops,
            vec![(Op::binary(Add, Dest::R(1), 0, Src::Imm(0x1234_5678)), 0)]
        );
        // immr before the operation.
        let b = decode_bundle(&[0x1589_1A2B, w | STOP]).unwrap();
        assert_eq!(b.ops[0].0.s2, Src::Imm(0x1234_5678));
        // Negative long immediate: -1000 -> imm9 = 0x018, ext = 0x7FFFFE.
        let op = Op::load(Ldw, 1, 2, -1000);
        let (w, e) = encode_op(&op).unwrap();
        assert_eq!(e, Some(0x7F_FFFE));
        let b = decode_bundle(&[w, encode_extension(e.unwrap(), false) | STOP]).unwrap();
        assert_eq!(b.ops[0].0, op);
    }

    #[test]
    fn decode_inverts_encode() {
        let ops = [
            Op::binary(Sub, Dest::R(4), 6, Src::Imm(-7)),
            Op::binary(Norl, Dest::B(7), 63, Src::Imm(100)),
            Op::binary(Mulfrac, Dest::R(62), 1, Src::R(2)),
            Op::monadic(Clz, 9, 10),
            Op::select(Slctf, 1, 7, 2, Src::Imm(-256)),
            Op::carry(Divs, 1, 7, 6, 5, 4),
            Op::store(Sth, 3, 255, 4),
            Op::prefetch(5, -256),
            Op::load(LdhuD, 3, 4, 6),
            Op::branch(Brf, 5, -(1 << 24)),
            Op::jump(Call, (1 << 24) - 4),
            Op::syscall((1 << 21) - 1),
        ];
        for op in ops {
            assert_eq!(dec(enc(op)), op, "{op:?}");
        }
    }

    #[test]
    fn illegal_words() {
        assert_eq!(decode_syllable(0x4000_0000), None, "reserved bit");
        assert_eq!(
            decode_syllable(0x01C0_0000),
            None,
            "RRR opcode 0x0E undefined"
        );
        assert_eq!(decode_syllable(0x09C0_5000), None, "monadic sub-opcode 5");
        assert_eq!(
            decode_syllable(0x0000_1000 | (1 << 18)),
            None,
            "bdest set on $r add"
        );
        assert_eq!(
            decode_syllable(0x2000_0000 | (1 << 21)),
            None,
            "mem [22:21] set"
        );
        assert_eq!(decode_syllable(0x2700_0000), None, "mem opcode 0x0E");
        assert_eq!(decode_syllable(0x3200_0000), None, "rfi not modelled");
        assert_eq!(decode_syllable(0x3080_0001), None, "icall with offset");
        assert_eq!(decode_syllable(0x1300_0000), None, "special op4 3");
        // mul32 $r63 = ...: nolink.
        assert_eq!(decode_syllable(0x05C3_F000), None);
        assert!(encode_op(&Op::binary(Mul32, Dest::R(63), 1, Src::R(2))).is_err());
        assert!(encode_op(&Op::load(Ldb, 63, 1, 0)).is_err());
        assert!(encode_op(&Op::load(Ldw, 63, 1, 0)).is_ok());
    }

    #[test]
    fn bundle_rules() {
        let add = enc(Op::binary(Add, Dest::R(1), 2, Src::R(3)));
        let ld = enc(Op::load(Ldw, 1, 2, 0));
        let goto = enc(Op::jump(Goto, 0));
        assert!(decode_bundle(&[add, add, add, add]).is_err(), "no stop bit");
        assert!(
            decode_bundle(&[add, add, add, add, add | STOP]).is_err(),
            "5 syllables"
        );
        assert!(
            decode_bundle(&[ld, ld | STOP]).is_err(),
            "two memory operations"
        );
        assert!(
            decode_bundle(&[add, goto | STOP]).is_err(),
            "control not first"
        );
        assert!(decode_bundle(&[goto, add | STOP]).is_ok());
        assert!(
            decode_bundle(&[encode_extension(1, false) | STOP]).is_err(),
            "dangling imml"
        );
        assert!(
            decode_bundle(&[add, encode_extension(1, false) | STOP]).is_err(),
            "RRR extended"
        );
        let sys = enc(Op::syscall(1));
        assert!(
            decode_bundle(&[sys, add | STOP]).is_err(),
            "syscall not alone"
        );
        assert!(matches!(
            decode_bundle(&[0x4000_0000 | STOP]),
            Err(DecodeError::Illegal { index: 0, .. })
        ));
    }

    #[test]
    fn arrangement_for_lanes() {
        let mul = Op::binary(Mul32, Dest::R(1), 2, Src::R(3));
        let add = Op::binary(Add, Dest::R(4), 5, Src::R(6));
        // At an address with bit 2 clear, a lone multiply needs a nop before it.
        let b = encode_bundle(&[mul], 0x1000).unwrap();
        assert_eq!(b.words.len(), 2);
        assert_eq!(b.words[0], 0);
        assert_eq!(b.op_slots, vec![1]);
        // At 0x1004 it fits as written.
        let b = encode_bundle(&[mul], 0x1004).unwrap();
        assert_eq!(b.words, vec![enc(mul) | STOP]);
        // mul, add at 0x1000 is reordered to add, mul.
        let b = encode_bundle(&[mul, add], 0x1000).unwrap();
        assert_eq!(b.words, vec![enc(add), enc(mul) | STOP]);
        assert_eq!(b.op_slots, vec![1, 0]);
        // Two multiplies and two adds at 0x1000: lanes 1 and 3.
        let mul2 = Op::binary(Mul32, Dest::R(7), 2, Src::R(3));
        let add2 = Op::binary(Add, Dest::R(8), 5, Src::R(6));
        let b = encode_bundle(&[mul, mul2, add, add2], 0x1000).unwrap();
        assert_eq!(decode_syllable(b.words[1]), Some(Syllable::Op(mul)));
        assert_eq!(
            decode_syllable(b.words[3] & !STOP),
            Some(Syllable::Op(mul2))
        );
        // Two multiplies alone at 0x1000 need two nops: nop, mul, nop, mul (the assembler's
        // padding; the compiler's one-nop form refuses them).
        let pad = |ops: &[Op], addr| encode_bundle_padded(ops, &[false; 4], addr, 4);
        assert!(encode_bundle(&[mul, mul2], 0x1000).is_err());
        let b = pad(&[mul, mul2], 0x1000).unwrap();
        assert_eq!(b.words.len(), 4);
        assert_eq!((b.words[0], b.words[2]), (0, 0));
        assert_eq!(b.op_slots, vec![1, 3]);
        // At 0x1004 one nop between them: mul, nop, mul (both forms).
        for b in [
            pad(&[mul, mul2], 0x1004),
            encode_bundle(&[mul, mul2], 0x1004),
        ] {
            let b = b.unwrap();
            assert_eq!(
                (b.words.len(), b.words[1], b.op_slots.clone()),
                (3, 0, vec![0, 2])
            );
        }
        // Two multiplies and a long immediate at 0x1000 leave no room for the padding.
        let big = Op::binary(Add, Dest::R(4), 5, Src::Imm(100_000));
        assert!(pad(&[mul, mul2, big], 0x1000).is_err());
        // Three multiplies are illegal.
        let mul3 = Op::binary(Mul32, Dest::R(9), 2, Src::R(3));
        assert!(encode_bundle(&[mul, mul2, mul3], 0x1004).is_err());
        // A forced extension keeps a small value correct.
        let small = Op::binary(Add, Dest::R(1), 0, Src::Imm(-3));
        let b = encode_bundle_forced(&[small], &[true], 0x1000).unwrap();
        assert_eq!(b.words.len(), 2);
        assert_eq!(decode_bundle(&b.words).unwrap().ops[0].0, small);
        // A control op goes first.
        let g = Op::jump(Goto, 8);
        let b = encode_bundle(&[add, g], 0x1000).unwrap();
        assert_eq!(b.op_slots, vec![1, 0]);
    }
}
