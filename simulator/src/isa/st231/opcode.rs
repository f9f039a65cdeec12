//! ST231 opcode table: every operation of isa.md §A3/§A7 with its mnemonic, operand format,
//! functional unit, result latency, encoding class and properties, plus the [`Op`] value that
//! the assembler, encoder, decoder, simulator and compiler exchange.
//!
//! The table is static ([`Opcode::info`] is an array lookup). Latencies are isa.md §A4:
//! ALU 1, multiply 3, load 3; stores and control operations produce no register result except
//! `call`/`icall`, which write `$r63` (ASSUMPTION: with ALU latency 1).
//!
//! Tied operands: the ST231 has no 2-operand forms; the only fixed-register constraint is the
//! link register `$r63`, implicit in `call`/`icall` (defined) and `icall`/`igoto`/`return`
//! (used) — see [`OpProps::DEFS_LINK`] and [`OpProps::USES_LINK`] (isa.md §A5).

use bitflags::bitflags;
use std::fmt;

/// Functional unit / issue resource of an operation (isa.md §A2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Integer ALU (4 per bundle).
    Alu,
    /// Multiplier (2 per bundle, odd lanes).
    Mul,
    /// Load/store unit (1 per bundle).
    Mem,
    /// Branch unit (1 per bundle, first syllable).
    Ctl,
    /// Alone in its bundle (`syscall`).
    Sys,
}

/// How the operands of an operation are written in assembly and laid out in the syllable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `op $d|$b = $s1, $s2|imm` (RRR or RI; `sub` prints the operands in the other order).
    Binary,
    /// `op $d = $s1` (RI opcode 0x4E, sub-opcode in the imm9 field).
    Monadic,
    /// `slct $d = $b, $s1, $s2|imm`.
    Select,
    /// `addcg $d, $bd = $b, $s1, $s2`.
    Carry,
    /// `ldw $d = imm[$s1]`.
    Load,
    /// `stw imm[$s1] = $s2`.
    Store,
    /// `pft imm[$s1]`.
    Prefetch,
    /// `br $b, label`.
    Branch,
    /// `call label`, `goto label`.
    Jump,
    /// `icall $r63`, `igoto $r63` (`return $r63`).
    Indirect,
    /// `syscall n`.
    Syscall,
    /// `nop`.
    Nop,
}

bitflags! {
    /// Properties of an opcode.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct OpProps: u32 {
        /// Second operand may be an immediate (RI form, long immediate allowed).
        const IMM_FORM = 1 << 0;
        /// Compare-like: the destination may be a `$r` (0/1) or a `$b`.
        const COMPARE = 1 << 1;
        /// Multiply: odd lane, 2 per bundle, latency 3.
        const MUL = 1 << 2;
        /// Destination may not be `$r63` (operand class `nolink`, isa.md §A1).
        const NOLINK = 1 << 3;
        const LOAD = 1 << 4;
        const STORE = 1 << 5;
        /// Dismissible (speculative) load `.d`.
        const DISMISSIBLE = 1 << 6;
        /// Control transfer (branch unit).
        const CONTROL = 1 << 7;
        /// Conditional branch.
        const COND_BRANCH = 1 << 8;
        const CALL = 1 << 9;
        /// Indirect jump through `$r63` (`igoto`/`return`).
        const INDIRECT = 1 << 10;
        /// Writes `$r63` implicitly.
        const DEFS_LINK = 1 << 11;
        /// Reads `$r63` implicitly.
        const USES_LINK = 1 << 12;
        /// Reads a `$b` register.
        const READS_B = 1 << 13;
        /// Writes a second result into a `$b` register (addcg, divs).
        const WRITES_B2 = 1 << 14;
        /// Must be alone in its bundle.
        const ALONE = 1 << 15;
        /// Commutative in its two register operands.
        const COMMUTATIVE = 1 << 16;
    }
}

/// How an opcode is encoded (isa.md §A3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Enc {
    /// Class 00: RRR opcode `opc`, RI opcode `opc + 0x40`; compares into `$b` use
    /// `opc + 0x10` (RRR) and `opc + 0x50` (RI).
    Int(u8),
    /// Class 00, RI opcode 0x4E, monadic sub-opcode in imm9.
    Mono(u16),
    /// Class 01, `[27:24]` op4 (register form; immediate form = op4 | 8 for slct/slctf).
    Special(u8),
    /// Class 10, `[27:23]` opc5.
    Mem(u8),
    /// Class 11, `[27:23]` opc5 (call 0, icall 1, goto 2, igoto 3).
    Ctl(u8),
    /// Class 11, `[27:26]` = 10 (br) or 11 (brf).
    Br(u8),
    /// Class 01, `[27:21]` = 1111110, 21-bit number.
    Syscall,
    /// The all-zero syllable (`add $r0 = $r0, $r0`).
    Nop,
}

/// Static description of an opcode.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub mnemonic: &'static str,
    pub format: Format,
    pub unit: Unit,
    /// Cycles from issue until the result can be read by an ALU consumer (0 = no result).
    pub latency: u8,
    pub props: OpProps,
    pub enc: Enc,
    /// Memory access width in bytes (loads, stores, prefetch), 0 otherwise.
    pub mem_width: u8,
    /// Loads: sign-extend the loaded value.
    pub mem_signed: bool,
}

macro_rules! opcodes {
    ($($name:ident = $mn:literal, $fmt:ident, $unit:ident, $lat:literal, $enc:expr, $w:literal, $sg:literal, [$($p:ident)|*];)*) => {
        /// Every ST231 operation ssalab models.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode { $($name,)* }

        impl Opcode {
            /// All opcodes, in table order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name,)*];
        }

        static TABLE: &[OpInfo] = &[$(OpInfo {
            mnemonic: $mn,
            format: Format::$fmt,
            unit: Unit::$unit,
            latency: $lat,
            props: OpProps::empty() $(.union(OpProps::$p))*,
            enc: $enc,
            mem_width: $w,
            mem_signed: $sg,
        },)*];
    };
}

use Enc::*;
opcodes! {
    Add = "add", Binary, Alu, 1, Int(0x00), 0, false, [IMM_FORM | COMMUTATIVE];
    Sub = "sub", Binary, Alu, 1, Int(0x01), 0, false, [IMM_FORM];
    Shl = "shl", Binary, Alu, 1, Int(0x02), 0, false, [IMM_FORM];
    Shr = "shr", Binary, Alu, 1, Int(0x03), 0, false, [IMM_FORM];
    Shru = "shru", Binary, Alu, 1, Int(0x04), 0, false, [IMM_FORM];
    Sh1add = "sh1add", Binary, Alu, 1, Int(0x05), 0, false, [IMM_FORM];
    Sh2add = "sh2add", Binary, Alu, 1, Int(0x06), 0, false, [IMM_FORM];
    Sh3add = "sh3add", Binary, Alu, 1, Int(0x07), 0, false, [IMM_FORM];
    Sh4add = "sh4add", Binary, Alu, 1, Int(0x08), 0, false, [IMM_FORM];
    And = "and", Binary, Alu, 1, Int(0x09), 0, false, [IMM_FORM | COMMUTATIVE];
    Andc = "andc", Binary, Alu, 1, Int(0x0A), 0, false, [IMM_FORM];
    Or = "or", Binary, Alu, 1, Int(0x0B), 0, false, [IMM_FORM | COMMUTATIVE];
    Orc = "orc", Binary, Alu, 1, Int(0x0C), 0, false, [IMM_FORM];
    Xor = "xor", Binary, Alu, 1, Int(0x0D), 0, false, [IMM_FORM | COMMUTATIVE];
    Mullhus = "mullhus", Binary, Mul, 3, Int(0x0F), 0, false, [IMM_FORM | MUL | NOLINK];
    Max = "max", Binary, Alu, 1, Int(0x10), 0, false, [IMM_FORM | COMMUTATIVE];
    Maxu = "maxu", Binary, Alu, 1, Int(0x11), 0, false, [IMM_FORM | COMMUTATIVE];
    Min = "min", Binary, Alu, 1, Int(0x12), 0, false, [IMM_FORM | COMMUTATIVE];
    Minu = "minu", Binary, Alu, 1, Int(0x13), 0, false, [IMM_FORM | COMMUTATIVE];
    Mulhhs = "mulhhs", Binary, Mul, 3, Int(0x14), 0, false, [IMM_FORM | MUL | NOLINK];
    Mull = "mull", Binary, Mul, 3, Int(0x15), 0, false, [IMM_FORM | MUL | NOLINK];
    Mullu = "mullu", Binary, Mul, 3, Int(0x16), 0, false, [IMM_FORM | MUL | NOLINK];
    Mulh = "mulh", Binary, Mul, 3, Int(0x17), 0, false, [IMM_FORM | MUL | NOLINK];
    Mulhu = "mulhu", Binary, Mul, 3, Int(0x18), 0, false, [IMM_FORM | MUL | NOLINK];
    Mulll = "mulll", Binary, Mul, 3, Int(0x19), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Mulllu = "mulllu", Binary, Mul, 3, Int(0x1A), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Mullh = "mullh", Binary, Mul, 3, Int(0x1B), 0, false, [IMM_FORM | MUL | NOLINK];
    Mullhu = "mullhu", Binary, Mul, 3, Int(0x1C), 0, false, [IMM_FORM | MUL | NOLINK];
    Mulhh = "mulhh", Binary, Mul, 3, Int(0x1D), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Mulhhu = "mulhhu", Binary, Mul, 3, Int(0x1E), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Mulhs = "mulhs", Binary, Mul, 3, Int(0x1F), 0, false, [IMM_FORM | MUL | NOLINK];
    Cmpeq = "cmpeq", Binary, Alu, 1, Int(0x20), 0, false, [IMM_FORM | COMPARE | COMMUTATIVE];
    Cmpne = "cmpne", Binary, Alu, 1, Int(0x21), 0, false, [IMM_FORM | COMPARE | COMMUTATIVE];
    Cmpge = "cmpge", Binary, Alu, 1, Int(0x22), 0, false, [IMM_FORM | COMPARE];
    Cmpgeu = "cmpgeu", Binary, Alu, 1, Int(0x23), 0, false, [IMM_FORM | COMPARE];
    Cmpgt = "cmpgt", Binary, Alu, 1, Int(0x24), 0, false, [IMM_FORM | COMPARE];
    Cmpgtu = "cmpgtu", Binary, Alu, 1, Int(0x25), 0, false, [IMM_FORM | COMPARE];
    Cmple = "cmple", Binary, Alu, 1, Int(0x26), 0, false, [IMM_FORM | COMPARE];
    Cmpleu = "cmpleu", Binary, Alu, 1, Int(0x27), 0, false, [IMM_FORM | COMPARE];
    Cmplt = "cmplt", Binary, Alu, 1, Int(0x28), 0, false, [IMM_FORM | COMPARE];
    Cmpltu = "cmpltu", Binary, Alu, 1, Int(0x29), 0, false, [IMM_FORM | COMPARE];
    Andl = "andl", Binary, Alu, 1, Int(0x2A), 0, false, [IMM_FORM | COMPARE | COMMUTATIVE];
    Nandl = "nandl", Binary, Alu, 1, Int(0x2B), 0, false, [IMM_FORM | COMPARE | COMMUTATIVE];
    Orl = "orl", Binary, Alu, 1, Int(0x2C), 0, false, [IMM_FORM | COMPARE | COMMUTATIVE];
    Norl = "norl", Binary, Alu, 1, Int(0x2D), 0, false, [IMM_FORM | COMPARE | COMMUTATIVE];
    Mul32 = "mul32", Binary, Mul, 3, Int(0x2E), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Mul64h = "mul64h", Binary, Mul, 3, Int(0x2F), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Mul64hu = "mul64hu", Binary, Mul, 3, Int(0x3E), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Mulfrac = "mulfrac", Binary, Mul, 3, Int(0x3F), 0, false, [IMM_FORM | MUL | NOLINK | COMMUTATIVE];
    Sxtb = "sxtb", Monadic, Alu, 1, Mono(0), 0, false, [];
    Sxth = "sxth", Monadic, Alu, 1, Mono(1), 0, false, [];
    Bswap = "bswap", Monadic, Alu, 1, Mono(2), 0, false, [];
    Zxth = "zxth", Monadic, Alu, 1, Mono(3), 0, false, [];
    Clz = "clz", Monadic, Alu, 1, Mono(4), 0, false, [];
    Slct = "slct", Select, Alu, 1, Special(0), 0, false, [IMM_FORM | READS_B];
    Slctf = "slctf", Select, Alu, 1, Special(1), 0, false, [IMM_FORM | READS_B];
    Addcg = "addcg", Carry, Alu, 1, Special(2), 0, false, [READS_B | WRITES_B2];
    Divs = "divs", Carry, Alu, 1, Special(4), 0, false, [READS_B | WRITES_B2];
    Ldw = "ldw", Load, Mem, 3, Mem(0x00), 4, true, [LOAD];
    LdwD = "ldw.d", Load, Mem, 3, Mem(0x01), 4, true, [LOAD | DISMISSIBLE];
    Ldh = "ldh", Load, Mem, 3, Mem(0x02), 2, true, [LOAD | NOLINK];
    LdhD = "ldh.d", Load, Mem, 3, Mem(0x03), 2, true, [LOAD | NOLINK | DISMISSIBLE];
    Ldhu = "ldhu", Load, Mem, 3, Mem(0x04), 2, false, [LOAD | NOLINK];
    LdhuD = "ldhu.d", Load, Mem, 3, Mem(0x05), 2, false, [LOAD | NOLINK | DISMISSIBLE];
    Ldb = "ldb", Load, Mem, 3, Mem(0x06), 1, true, [LOAD | NOLINK];
    LdbD = "ldb.d", Load, Mem, 3, Mem(0x07), 1, true, [LOAD | NOLINK | DISMISSIBLE];
    Ldbu = "ldbu", Load, Mem, 3, Mem(0x08), 1, false, [LOAD | NOLINK];
    LdbuD = "ldbu.d", Load, Mem, 3, Mem(0x09), 1, false, [LOAD | NOLINK | DISMISSIBLE];
    Stw = "stw", Store, Mem, 0, Mem(0x0A), 4, false, [STORE];
    Sth = "sth", Store, Mem, 0, Mem(0x0B), 2, false, [STORE];
    Stb = "stb", Store, Mem, 0, Mem(0x0C), 1, false, [STORE];
    Pft = "pft", Prefetch, Mem, 0, Mem(0x0D), 0, false, [];
    Call = "call", Jump, Ctl, 1, Ctl(0), 0, false, [CONTROL | CALL | DEFS_LINK];
    Icall = "icall", Indirect, Ctl, 1, Ctl(1), 0, false, [CONTROL | CALL | DEFS_LINK | USES_LINK | INDIRECT];
    Goto = "goto", Jump, Ctl, 0, Ctl(2), 0, false, [CONTROL];
    Igoto = "igoto", Indirect, Ctl, 0, Ctl(3), 0, false, [CONTROL | USES_LINK | INDIRECT];
    Br = "br", Branch, Ctl, 0, Br(2), 0, false, [CONTROL | COND_BRANCH | READS_B];
    Brf = "brf", Branch, Ctl, 0, Br(3), 0, false, [CONTROL | COND_BRANCH | READS_B];
    Syscall = "syscall", Syscall, Sys, 0, Syscall, 0, false, [ALONE];
    Nop = "nop", Nop, Alu, 0, Nop, 0, false, [];
}

impl Opcode {
    /// Number of opcodes.
    pub const COUNT: usize = Opcode::ALL.len();

    /// The static description.
    #[inline]
    pub fn info(self) -> &'static OpInfo {
        &TABLE[self as usize]
    }

    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    pub fn props(self) -> OpProps {
        self.info().props
    }

    /// The opcode whose mnemonic is `s` (`return` is `igoto`).
    pub fn from_mnemonic(s: &str) -> Option<Opcode> {
        if s == "return" {
            return Some(Opcode::Igoto);
        }
        Opcode::ALL.iter().copied().find(|o| o.mnemonic() == s)
    }

    pub fn is_mul(self) -> bool {
        self.props().contains(OpProps::MUL)
    }

    pub fn is_load(self) -> bool {
        self.props().contains(OpProps::LOAD)
    }

    pub fn is_store(self) -> bool {
        self.props().contains(OpProps::STORE)
    }

    /// Uses the load/store unit (loads, stores, prefetch).
    pub fn is_mem(self) -> bool {
        self.info().unit == Unit::Mem
    }

    pub fn is_control(self) -> bool {
        self.props().contains(OpProps::CONTROL)
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.mnemonic())
    }
}

/// Where a result goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dest {
    None,
    /// General register `$rN`.
    R(u8),
    /// Branch register `$bN`.
    B(u8),
}

/// The second source operand of binary and select operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Src {
    None,
    R(u8),
    Imm(i32),
}

/// One decoded / assembled ST231 operation. Field use by format:
///
/// | format | fields |
/// |---|---|
/// | Binary | `dest` (R, or B for compares), `s1`, `s2` (R or Imm) |
/// | Monadic | `dest`, `s1` |
/// | Select | `dest`, `b` (condition), `s1`, `s2` (R or Imm) |
/// | Carry | `dest`, `bdest`, `b` (carry in), `s1`, `s2` (R) |
/// | Load | `dest`, `s1` (base), `imm` (offset) |
/// | Store | `s1` (base), `s2` (R: value), `imm` (offset) |
/// | Prefetch | `s1` (base), `imm` |
/// | Branch | `b`, `imm` (byte displacement from the bundle address) |
/// | Jump | `imm` (byte displacement from the bundle address) |
/// | Indirect | (none: `$r63`) |
/// | Syscall | `imm` (0 ..= 2^21-1) |
///
/// Unused fields are zero / `None` (the constructors below keep them so, which makes `==`
/// meaningful for round trips).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    pub opc: Opcode,
    pub dest: Dest,
    pub bdest: u8,
    pub b: u8,
    pub s1: u8,
    pub s2: Src,
    pub imm: i32,
}

impl Op {
    fn base(opc: Opcode) -> Op {
        Op {
            opc,
            dest: Dest::None,
            bdest: 0,
            b: 0,
            s1: 0,
            s2: Src::None,
            imm: 0,
        }
    }

    /// `nop`.
    pub fn nop() -> Op {
        Op::base(Opcode::Nop)
    }

    /// Binary operation `opc dest = s1, s2`.
    pub fn binary(opc: Opcode, dest: Dest, s1: u8, s2: Src) -> Op {
        Op {
            dest,
            s1,
            s2,
            ..Op::base(opc)
        }
    }

    /// Monadic operation `opc $d = $s`.
    pub fn monadic(opc: Opcode, d: u8, s: u8) -> Op {
        Op {
            dest: Dest::R(d),
            s1: s,
            ..Op::base(opc)
        }
    }

    /// `slct`/`slctf $d = $b, $s1, s2`.
    pub fn select(opc: Opcode, d: u8, b: u8, s1: u8, s2: Src) -> Op {
        Op {
            dest: Dest::R(d),
            b,
            s1,
            s2,
            ..Op::base(opc)
        }
    }

    /// `addcg`/`divs $d, $bd = $b, $s1, $s2`.
    pub fn carry(opc: Opcode, d: u8, bd: u8, b: u8, s1: u8, s2: u8) -> Op {
        Op {
            dest: Dest::R(d),
            bdest: bd,
            b,
            s1,
            s2: Src::R(s2),
            ..Op::base(opc)
        }
    }

    /// Load `opc $d = off[$base]`.
    pub fn load(opc: Opcode, d: u8, base: u8, off: i32) -> Op {
        Op {
            dest: Dest::R(d),
            s1: base,
            imm: off,
            ..Op::base(opc)
        }
    }

    /// Store `opc off[$base] = $v`.
    pub fn store(opc: Opcode, base: u8, off: i32, v: u8) -> Op {
        Op {
            s1: base,
            s2: Src::R(v),
            imm: off,
            ..Op::base(opc)
        }
    }

    /// `pft off[$base]`.
    pub fn prefetch(base: u8, off: i32) -> Op {
        Op {
            s1: base,
            imm: off,
            ..Op::base(Opcode::Pft)
        }
    }

    /// `br`/`brf $b, disp` (disp in bytes from the bundle address).
    pub fn branch(opc: Opcode, b: u8, disp: i32) -> Op {
        Op {
            b,
            imm: disp,
            ..Op::base(opc)
        }
    }

    /// `call`/`goto disp`; `icall`/`igoto` (disp ignored, 0).
    pub fn jump(opc: Opcode, disp: i32) -> Op {
        let imm = if opc.info().format == Format::Jump {
            disp
        } else {
            0
        };
        Op {
            imm,
            ..Op::base(opc)
        }
    }

    /// `syscall n`.
    pub fn syscall(n: u32) -> Op {
        Op {
            imm: n as i32,
            ..Op::base(Opcode::Syscall)
        }
    }

    /// The immediate that goes into the imm9 field and, when it does not fit in 9 signed
    /// bits, into an extension syllable (ALU immediates and memory offsets).
    pub fn extendable_imm(&self) -> Option<i32> {
        match self.opc.info().format {
            Format::Binary | Format::Select => match self.s2 {
                Src::Imm(v) => Some(v),
                _ => None,
            },
            Format::Load | Format::Store | Format::Prefetch => Some(self.imm),
            _ => None,
        }
    }

    /// True when the operation needs an `imml`/`immr` extension syllable.
    pub fn needs_extension(&self) -> bool {
        self.extendable_imm()
            .is_some_and(|v| !(-256..=255).contains(&v))
    }

    /// Syllables this operation occupies (1, or 2 with an extension).
    pub fn syllables(&self) -> usize {
        1 + self.needs_extension() as usize
    }

    /// Registers read, as indices in the unified file (`$rN` = N, `$bN` = 64 + N), without
    /// `$r0`; `$r63` included for operations that use the link register.
    pub fn sources(&self) -> impl Iterator<Item = u8> {
        let info = self.opc.info();
        let mut v = [None; 4];
        let reg = |r: u8| if r == 0 { None } else { Some(r) };
        match info.format {
            Format::Binary | Format::Monadic | Format::Load | Format::Prefetch => {
                v[0] = reg(self.s1);
            }
            Format::Store => v[0] = reg(self.s1),
            Format::Select | Format::Carry => {
                v[0] = reg(self.s1);
                v[2] = Some(64 + self.b);
            }
            Format::Branch => v[2] = Some(64 + self.b),
            Format::Indirect => v[3] = Some(63),
            Format::Syscall => {
                v[0] = Some(16);
                v[1] = Some(17);
            }
            Format::Jump | Format::Nop => {}
        }
        if let Src::R(r) = self.s2 {
            v[1] = reg(r);
        }
        v.into_iter().flatten()
    }

    /// Registers written, as unified indices (see [`Op::sources`]), `$r0` excluded.
    pub fn dests(&self) -> impl Iterator<Item = u8> {
        let mut v = [None; 2];
        match self.dest {
            Dest::R(r) if r != 0 => v[0] = Some(r),
            Dest::B(b) => v[0] = Some(64 + b),
            _ => {}
        }
        if self.opc.props().contains(OpProps::WRITES_B2) {
            v[1] = Some(64 + self.bdest);
        }
        if self.opc.props().contains(OpProps::DEFS_LINK) {
            v[1] = Some(63);
        }
        v.into_iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_consistent() {
        assert_eq!(TABLE.len(), Opcode::ALL.len());
        for (i, o) in Opcode::ALL.iter().enumerate() {
            assert_eq!(*o as usize, i);
            assert_eq!(Opcode::from_mnemonic(o.mnemonic()), Some(*o));
            if o.is_mul() {
                assert_eq!(o.info().latency, 3, "{o}");
                assert_eq!(o.info().unit, Unit::Mul);
            }
            if o.is_load() {
                assert_eq!(o.info().latency, 3, "{o}");
            }
        }
        assert_eq!(Opcode::from_mnemonic("return"), Some(Opcode::Igoto));
        assert_eq!(Opcode::from_mnemonic("frob"), None);
    }

    #[test]
    fn extension_need() {
        let a = Op::binary(Opcode::Add, Dest::R(1), 2, Src::Imm(255));
        assert!(!a.needs_extension());
        let b = Op::binary(Opcode::Add, Dest::R(1), 2, Src::Imm(256));
        assert!(b.needs_extension());
        assert!(Op::load(Opcode::Ldw, 1, 2, -257).needs_extension());
        assert!(!Op::load(Opcode::Ldw, 1, 2, -256).needs_extension());
        assert_eq!(Op::syscall(1000).syllables(), 1);
    }

    #[test]
    fn sources_and_dests() {
        let s = Op::carry(Opcode::Addcg, 3, 2, 1, 4, 5);
        assert_eq!(s.sources().collect::<Vec<_>>(), vec![4, 5, 65]);
        assert_eq!(s.dests().collect::<Vec<_>>(), vec![3, 66]);
        let c = Op::jump(Opcode::Call, 16);
        assert_eq!(c.dests().collect::<Vec<_>>(), vec![63]);
        let r = Op::jump(Opcode::Igoto, 0);
        assert_eq!(r.sources().collect::<Vec<_>>(), vec![63]);
        let st = Op::store(Opcode::Stw, 12, 8, 0);
        assert_eq!(st.sources().collect::<Vec<_>>(), vec![12]);
    }
}
