//! The ST120 opcode table (isa.md §B4, §B6): every operation of the modelled GP32 subset
//! with its mnemonic, operand kinds in assembly order (register classes, definitions, uses,
//! tied operands, immediates with width and scaling), implicit registers, functional unit,
//! result latency (§B3 and its ASSUMPTION list), memory access and property flags.
//!
//! Families of operations that differ only in a sub-operation (`ADD`/`SUB`/..., the 48
//! multiplies, the 24 compares, the load and store widths x addressing modes) are one
//! [`Opcode`] variant carrying a small enum, so that the table stays data and every
//! combination is enumerable ([`Opcode::all`]). [`Opcode::info`] is O(1) and allocation-free.
//!
//! An operation instance is an [`Inst`]: opcode, guard and operand values. Register operands
//! are stored in `regs` in the order of the operand list (immediates and branch targets are
//! skipped there), the single immediate or branch offset in `imm`, always *as written in
//! assembly* (memory offsets unscaled, branch offsets in words).

use super::{Reg, RegClass, GUARD_TRUE, JUMP_TARGET, LINK};
use bitflags::bitflags;

/// Functional unit (isa.md §B2: ISSUE 2, AU 2, DU 2, GU 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Address unit: pointer arithmetic, pointer compares, cross-file copies.
    Au,
    /// Data unit: 40-bit arithmetic, logic, shifts, packed, multiply, MAC, data compares,
    /// guard logic, BOOL.
    Du,
    /// Branch / control unit (one per group): branches, calls, returns, TRAP, NOP.
    Gu,
    /// Load/store (issued on the AU, counted apart for the memory limits).
    Mem,
}

bitflags! {
    /// Properties of an opcode (machine description for the compiler and the simulator).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub struct OpProps: u32 {
        const LOAD = 1 << 0;
        const STORE = 1 << 1;
        /// Conditional branch (`Gx! GOTO`, `Gx! JUMP`).
        const BRANCH = 1 << 2;
        /// Unconditional direct or indirect jump (`GOTO`, `JUMP`).
        const JUMP = 1 << 3;
        /// Target taken from a register (P3 or P11) instead of a pc-relative offset.
        const INDIRECT = 1 << 4;
        const CALL = 1 << 5;
        const RETURN = 1 << 6;
        /// Same-file register copy (MOVE, MOVEA, MOVEG, MOVEP).
        const COPY = 1 << 7;
        /// Copy between register files (COPYA DU->AU, COPYD AU->DU).
        const XCOPY = 1 << 8;
        const MUL = 1 << 9;
        /// Multiply-accumulate (MA.., MS..): separate accumulator input, not tied.
        const MAC = 1 << 10;
        const PACKED = 1 << 11;
        /// Executes when the guard is FALSE (`Gx!`): conditional branches.
        const ON_FALSE = 1 << 12;
        /// Not guarded: the guard field must be G15 (`GOTO s`, `JUMP`, `NOP`).
        const UNGUARDED = 1 << 13;
        /// Has a tied (2-operand) register: read and written, same register.
        const TIED = 1 << 14;
        /// Post-modify addressing: the base pointer is updated.
        const POST_MODIFY = 1 << 15;
        /// System call (TRAP); alone in its issue group.
        const SYSCALL = 1 << 16;
        const NOP = 1 << 17;
        /// Writes a guard from a comparison.
        const COMPARE = 1 << 18;
        /// Result zero-extended from bit 31 (`..U` operations).
        const UNSIGNED = 1 << 19;
        /// Result sign-extended from bit 31 (32-bit-typed signed operations).
        const WORD = 1 << 20;
    }
}

impl OpProps {
    /// Any control transfer (possibly taken).
    pub const CONTROL: OpProps = OpProps::BRANCH
        .union(OpProps::JUMP)
        .union(OpProps::CALL)
        .union(OpProps::RETURN);
}

/// An immediate operand: width, signedness and the scale applied before use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Imm {
    pub bits: u8,
    pub signed: bool,
    /// The value is multiplied by this before use (1, 2 or 4).
    pub scale: u8,
}

impl Imm {
    pub const fn u(bits: u8) -> Imm {
        Imm {
            bits,
            signed: false,
            scale: 1,
        }
    }
    pub const fn s(bits: u8) -> Imm {
        Imm {
            bits,
            signed: true,
            scale: 1,
        }
    }
    pub const fn scaled(bits: u8, scale: u8) -> Imm {
        Imm {
            bits,
            signed: false,
            scale,
        }
    }
    /// Smallest and largest value as written in assembly.
    pub fn range(self) -> (i64, i64) {
        if self.signed {
            (-(1i64 << (self.bits - 1)), (1i64 << (self.bits - 1)) - 1)
        } else {
            (0, (1i64 << self.bits) - 1)
        }
    }
    pub fn contains(self, v: i64) -> bool {
        let (lo, hi) = self.range();
        (lo..=hi).contains(&v)
    }
}

/// One operand of an operation, in assembly order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A register written by the operation.
    Def(RegClass),
    /// A register read by the operation.
    Use(RegClass),
    /// A register read and written (2-operand form; isa.md §B4 `Same_Res`).
    Tied(RegClass),
    /// An immediate.
    Imm(Imm),
    /// A pc-relative branch target: signed word offset (20 bits in the encoding).
    Target,
}

impl Operand {
    pub fn is_reg(self) -> bool {
        matches!(self, Operand::Def(_) | Operand::Use(_) | Operand::Tied(_))
    }
}

/// Bits of the branch offset field (isa.md §B7 ASSUMPTION: signed, in words).
pub const BRANCH_OFFSET_BITS: u8 = 20;

// ---------------------------------------------------------------------------------------
// Sub-operation enums

macro_rules! sub_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $mn:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($(#[$vm])* $v),* }
        impl $name {
            /// Every member, in code order (the code is the index).
            pub const ALL: &'static [$name] = &[$($name::$v),*];
            /// Assembly mnemonic.
            pub fn mnemonic(self) -> &'static str {
                match self { $($name::$v => $mn),* }
            }
            /// Index in [`Self::ALL`].
            pub fn code(self) -> u8 {
                self as u8
            }
            /// Inverse of [`Self::code`].
            pub fn from_code(c: u8) -> Option<$name> {
                Self::ALL.get(usize::from(c)).copied()
            }
        }
    };
}

sub_enum! {
    /// Two-input data-unit operations (`Rm, Rn, Rp`; most also `Rm, Rn, u8`).
    BinOp {
        Add = "ADD", Addu = "ADDU", Sub = "SUB", Subu = "SUBU",
        And = "AND", Or = "OR", Xor = "XOR", Andn = "ANDN", Orn = "ORN",
        Nand = "NAND", Nor = "NOR", Xnor = "XNOR",
        Shl = "SHL", Shlu = "SHLU", Shr = "SHR", Shru = "SHRU", Shrw = "SHRW", Shruw = "SHRUW",
        Addp = "ADDP", Subp = "SUBP", Addup = "ADDUP", Subup = "SUBUP",
        Andp = "ANDP", Orp = "ORP", Xorp = "XORP",
    }
}

impl BinOp {
    pub fn is_shift(self) -> bool {
        matches!(
            self,
            BinOp::Shl | BinOp::Shlu | BinOp::Shr | BinOp::Shru | BinOp::Shrw | BinOp::Shruw
        )
    }
    pub fn is_packed(self) -> bool {
        self >= BinOp::Addp
    }
    /// Has an immediate form (`u8`, or `u5` for shifts). Packed operations do not.
    pub fn has_imm(self) -> bool {
        !self.is_packed()
    }
    /// Immediate kind of the immediate form.
    pub fn imm(self) -> Imm {
        if self.is_shift() {
            Imm::u(5)
        } else {
            Imm::u(8)
        }
    }
    fn result_props(self) -> OpProps {
        use BinOp::*;
        match self {
            Add | Sub | Shl | Shrw | Addp | Subp | Andp | Orp | Xorp => OpProps::WORD,
            Addu | Subu | Shlu | Shruw | Addup | Subup => OpProps::UNSIGNED,
            _ => OpProps::empty(),
        }
    }
}

sub_enum! {
    /// One-input data-unit operations (`Rm, Rn`).
    UnOp {
        Neg = "NEG", Negu = "NEGU", Move = "MOVE",
        Extb = "EXTB", Extub = "EXTUB", Exth = "EXTH", Extuh = "EXTUH",
        Extw = "EXTW", Extuw = "EXTUW", Clampw = "CLAMPW", Lzcw = "LZCW", Movep = "MOVEP",
    }
}

/// Multiply family: plain product, multiply-add, multiply-subtract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MulFamily {
    /// `MPxxyy Rm, Rn, Rp`: Rm = half(Rn) * half(Rp).
    Mp,
    /// `MAxxyy Rm, Rq, Rn, Rp`: Rm = Rq + half(Rn) * half(Rp).
    Ma,
    /// `MSxxyy Rm, Rq, Rn, Rp`: Rm = Rq - half(Rn) * half(Rp).
    Ms,
}

impl MulFamily {
    pub const ALL: [MulFamily; 3] = [MulFamily::Mp, MulFamily::Ma, MulFamily::Ms];
    fn index(self) -> usize {
        self as usize
    }
}

/// The four letters of a multiply mnemonic (`MPSUHL`: op1 Signed, op2 Unsigned, High half of
/// op1, Low half of op2), packed as bit 3 = op1 unsigned, bit 2 = op2 unsigned, bit 1 = op1
/// high half, bit 0 = op2 high half.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MulVariant(u8);

impl MulVariant {
    pub fn new(op1_unsigned: bool, op2_unsigned: bool, op1_high: bool, op2_high: bool) -> Self {
        MulVariant(
            (u8::from(op1_unsigned) << 3)
                | (u8::from(op2_unsigned) << 2)
                | (u8::from(op1_high) << 1)
                | u8::from(op2_high),
        )
    }
    /// From the 4-bit code; `None` beyond 15.
    pub fn from_code(c: u8) -> Option<MulVariant> {
        (c < 16).then_some(MulVariant(c))
    }
    pub fn code(self) -> u8 {
        self.0
    }
    pub fn op1_unsigned(self) -> bool {
        self.0 & 8 != 0
    }
    pub fn op2_unsigned(self) -> bool {
        self.0 & 4 != 0
    }
    pub fn op1_high(self) -> bool {
        self.0 & 2 != 0
    }
    pub fn op2_high(self) -> bool {
        self.0 & 1 != 0
    }
    /// Every variant.
    pub fn all() -> impl Iterator<Item = MulVariant> {
        (0..16).map(MulVariant)
    }
}

/// Mnemonics of the 48 multiplies, `[family][variant code]`.
const MUL_NAMES: [[&str; 16]; 3] = [
    [
        "MPSSLL", "MPSSLH", "MPSSHL", "MPSSHH", "MPSULL", "MPSULH", "MPSUHL", "MPSUHH", "MPUSLL",
        "MPUSLH", "MPUSHL", "MPUSHH", "MPUULL", "MPUULH", "MPUUHL", "MPUUHH",
    ],
    [
        "MASSLL", "MASSLH", "MASSHL", "MASSHH", "MASULL", "MASULH", "MASUHL", "MASUHH", "MAUSLL",
        "MAUSLH", "MAUSHL", "MAUSHH", "MAUULL", "MAUULH", "MAUUHL", "MAUUHH",
    ],
    [
        "MSSSLL", "MSSSLH", "MSSSHL", "MSSSHH", "MSSULL", "MSSULH", "MSSUHL", "MSSUHH", "MSUSLL",
        "MSUSLH", "MSUSHL", "MSUSHH", "MSUULL", "MSUULH", "MSUUHL", "MSUUHH",
    ],
];

sub_enum! {
    /// Comparison condition.
    CmpCond { Eq = "EQ", Ne = "NE", Lt = "LT", Le = "LE", Gt = "GT", Ge = "GE" }
}

sub_enum! {
    /// What a compare compares: the low 32 bits signed (`..W`) or unsigned (`..UW`), all 40
    /// bits signed (`..E`), or two pointers (`..A`, in the AU; ASSUMPTION: unsigned).
    CmpKind { W = "W", Uw = "UW", E = "E", A = "A" }
}

/// Compare mnemonics `[kind][cond]`.
const CMP_NAMES: [[&str; 6]; 4] = [
    ["EQW", "NEW", "LTW", "LEW", "GTW", "GEW"],
    ["EQUW", "NEUW", "LTUW", "LEUW", "GTUW", "GEUW"],
    ["EQE", "NEE", "LTE", "LEE", "GTE", "GEE"],
    ["EQA", "NEA", "LTA", "LEA", "GTA", "GEA"],
];

sub_enum! {
    /// Two-input guard logic (`Gy, Gc, Gd`).
    GuardOp {
        And = "ANDG", Or = "ORG", Xor = "XORG", Nand = "NANDG", Nor = "NORG",
        Andn = "ANDNG", Orn = "ORNG",
    }
}

sub_enum! {
    /// Address-unit arithmetic `Pm, Pn, Pq|u9`, the offset scaled by 1, 2 or 4.
    AuOp {
        AddB = "ADDBA", AddH = "ADDHA", AddW = "ADDWA",
        SubB = "SUBBA", SubH = "SUBHA", SubW = "SUBWA",
    }
}

impl AuOp {
    /// Offset scale in bytes.
    pub fn scale(self) -> u8 {
        match self {
            AuOp::AddB | AuOp::SubB => 1,
            AuOp::AddH | AuOp::SubH => 2,
            AuOp::AddW | AuOp::SubW => 4,
        }
    }
    pub fn is_sub(self) -> bool {
        matches!(self, AuOp::SubB | AuOp::SubH | AuOp::SubW)
    }
}

sub_enum! {
    /// Load widths: into a data register (`LD..`) or a pointer register (`LA..`).
    LoadKind {
        B = "LDB", Ub = "LDUB", H = "LDH", Uh = "LDUH", W = "LDW", P = "LDP",
        Aw = "LAW", Ah = "LAH",
    }
}

impl LoadKind {
    /// Access size in bytes.
    pub fn size(self) -> u8 {
        match self {
            LoadKind::B | LoadKind::Ub => 1,
            LoadKind::H | LoadKind::Uh | LoadKind::Ah => 2,
            LoadKind::W | LoadKind::P | LoadKind::Aw => 4,
        }
    }
    /// Sign-extended into the destination.
    pub fn signed(self) -> bool {
        matches!(self, LoadKind::B | LoadKind::H | LoadKind::W | LoadKind::P)
    }
    /// Register class of the destination.
    pub fn class(self) -> RegClass {
        match self {
            LoadKind::Aw | LoadKind::Ah => RegClass::P,
            _ => RegClass::R,
        }
    }
}

sub_enum! {
    /// Store widths: from a data register (`SD..`) or a pointer register (`SA..`).
    StoreKind { B = "SDB", H = "SDH", W = "SDW", P = "SDP", Aw = "SAW", Ah = "SAH" }
}

impl StoreKind {
    pub fn size(self) -> u8 {
        match self {
            StoreKind::B => 1,
            StoreKind::H | StoreKind::Ah => 2,
            StoreKind::W | StoreKind::P | StoreKind::Aw => 4,
        }
    }
    pub fn class(self) -> RegClass {
        match self {
            StoreKind::Aw | StoreKind::Ah => RegClass::P,
            _ => RegClass::R,
        }
    }
}

sub_enum! {
    /// Addressing modes (isa.md §B4); offsets are scaled by the access size.
    AddrMode {
        /// `@(Pn + u9)`.
        PlusImm = "+u9",
        /// `@(Pn - u9)`.
        MinusImm = "-u9",
        /// `@(Pn + Pq)`.
        PlusReg = "+Pq",
        /// `@(Pn - Pq)`.
        MinusReg = "-Pq",
        /// `@(Pn !+ u5)`: access at Pn, then Pn += u5 * size.
        PostIncImm = "!+u5",
        /// `@(Pn !- u5)`.
        PostDecImm = "!-u5",
        /// `@(Pn !+ Pq)`.
        PostIncReg = "!+Pq",
        /// `@(Pn !- Pq)`.
        PostDecReg = "!-Pq",
    }
}

impl AddrMode {
    pub fn is_post_modify(self) -> bool {
        self >= AddrMode::PostIncImm
    }
    pub fn is_reg_offset(self) -> bool {
        matches!(
            self,
            AddrMode::PlusReg | AddrMode::MinusReg | AddrMode::PostIncReg | AddrMode::PostDecReg
        )
    }
    pub fn is_minus(self) -> bool {
        matches!(
            self,
            AddrMode::MinusImm | AddrMode::MinusReg | AddrMode::PostDecImm | AddrMode::PostDecReg
        )
    }
    /// The assembly operator between base and offset: `+`, `-`, `!+`, `!-`.
    pub fn operator(self) -> &'static str {
        match (self.is_post_modify(), self.is_minus()) {
            (false, false) => "+",
            (false, true) => "-",
            (true, false) => "!+",
            (true, true) => "!-",
        }
    }
    /// Width of the immediate offset (9 bits, 5 for post-modify).
    pub fn imm_bits(self) -> u8 {
        if self.is_post_modify() {
            5
        } else {
            9
        }
    }
    /// Mode from its operator and offset kind.
    pub fn from_parts(post: bool, minus: bool, reg: bool) -> AddrMode {
        match (post, minus, reg) {
            (false, false, false) => AddrMode::PlusImm,
            (false, true, false) => AddrMode::MinusImm,
            (false, false, true) => AddrMode::PlusReg,
            (false, true, true) => AddrMode::MinusReg,
            (true, false, false) => AddrMode::PostIncImm,
            (true, true, false) => AddrMode::PostDecImm,
            (true, false, true) => AddrMode::PostIncReg,
            (true, true, true) => AddrMode::PostDecReg,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Opcodes

/// An ST120 GP32 operation (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opcode {
    /// `NOP` (unguarded).
    Nop,
    /// `OP Rm, Rn, Rp`.
    Bin(BinOp),
    /// `OP Rm, Rn, u8` (`u5` for shifts); not for packed operations.
    BinI(BinOp),
    /// `OP Rm, Rn`.
    Un(UnOp),
    /// `MAKE Rm, s16`: Rm = sign-extended s16.
    Make,
    /// `MORE Rm, u16` (tied): Rm = (Rm << 16) | u16, 32-bit typed.
    More,
    /// `MAKEP Rm, u16`: both 16-bit lanes = u16.
    MakeP,
    /// `MAKEA Pm, s16`.
    MakeA,
    /// `MOREA Pm, u16` (tied): Pm = (Pm << 16) | u16.
    MoreA,
    /// Multiplies and multiply-accumulates.
    Mul(MulFamily, MulVariant),
    /// `OPk Gy, Rn, Rp` (`Gy, Pn, Pq` for kind A).
    Cmp(CmpKind, CmpCond),
    /// `OPk Gy, Rn, u8` (`Gy, Pn, u8` for kind A).
    CmpI(CmpKind, CmpCond),
    /// `OPG Gy, Gc, Gd`.
    Guard(GuardOp),
    /// `NOTG Gy` (tied): Gy = !Gy.
    NotG,
    /// `MOVEG Gy, Gc`.
    MoveG,
    /// `SETG Gy`.
    SetG,
    /// `CLRG Gy`.
    ClrG,
    /// `BOOL Rm, Gc`: Rm = Gc ? 1 : 0.
    Bool,
    /// `COPYA Pm, Rn`: DU -> AU, low 32 bits.
    CopyA,
    /// `COPYD Rm, Pn`: AU -> DU, bit 31 sign-extended into the guard bits (ASSUMPTION).
    CopyD,
    /// `MOVEA Pm, Pn`.
    MoveA,
    /// `OPA Pm, Pn, Pq`, Pq scaled.
    Au(AuOp),
    /// `OPA Pm, Pn, u9`, u9 scaled.
    AuI(AuOp),
    /// `LDx Rm, @(Pn op off)` / `LAx Pm, @(...)`.
    Load(LoadKind, AddrMode),
    /// `SDx @(Pn op off), Rm` / `SAx @(...), Pm`.
    Store(StoreKind, AddrMode),
    /// `GOTO target` (unguarded).
    Goto,
    /// `Gx! GOTO target`: taken when Gx is false.
    GotoF,
    /// `Gx? CALL target`: P11 = return address.
    Call,
    /// `JUMP` through P3 (unguarded).
    Jump,
    /// `Gx! JUMP` through P3, taken when Gx is false.
    JumpF,
    /// `Gx? LINK`: indirect call through P3.
    Link,
    /// `Gx? RTS`: return through P11.
    Rts,
    /// `Gx? TRAP u8`: system call (ASSUMPTION, project convention).
    Trap,
}

/// Memory access of a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// Bytes: 1, 2 or 4.
    pub size: u8,
    /// Loads: sign-extend (else zero-extend).
    pub signed: bool,
    /// Register class of the loaded or stored value.
    pub class: RegClass,
    pub mode: AddrMode,
}

/// Static description of one opcode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpInfo {
    pub mnemonic: &'static str,
    operands: [Operand; 4],
    n_operands: u8,
    /// Registers read without appearing in the operand list.
    pub implicit_uses: &'static [Reg],
    /// Registers written without appearing in the operand list.
    pub implicit_defs: &'static [Reg],
    pub unit: Unit,
    /// Cycles from issue until a dependent operation can issue without stalling (isa.md §B3
    /// ASSUMPTION). For post-modify memory operations this is the latency of the loaded
    /// value; the updated base has [`POST_MODIFY_LATENCY`].
    pub latency: u8,
    pub props: OpProps,
    pub mem: Option<MemAccess>,
}

/// Latency of the updated base pointer of a post-modify access (isa.md §B3: "post-modified
/// P 1").
pub const POST_MODIFY_LATENCY: u8 = 1;
/// Bubble cycles after a taken branch, call or return. ASSUMPTION (isa.md §B3: PC latency 4
/// -> 3 bubble cycles).
pub const TAKEN_BRANCH_BUBBLES: u8 = 3;

const LINK_REG: &[Reg] = &[Reg::p(LINK)];
const JUMP_REG: &[Reg] = &[Reg::p(JUMP_TARGET)];
const TRAP_REGS: &[Reg] = &[Reg::r(0), Reg::p(0)];

impl OpInfo {
    /// Operands in assembly order.
    pub fn operands(&self) -> &[Operand] {
        &self.operands[..usize::from(self.n_operands)]
    }
    /// Number of register operands (the length of `Inst::regs` that is used).
    pub fn num_regs(&self) -> usize {
        self.operands().iter().filter(|o| o.is_reg()).count()
    }
    /// The immediate operand, if any.
    pub fn imm(&self) -> Option<Imm> {
        self.operands().iter().find_map(|o| match o {
            Operand::Imm(i) => Some(*i),
            _ => None,
        })
    }
    pub fn has_target(&self) -> bool {
        self.operands().contains(&Operand::Target)
    }
}

struct Builder {
    info: OpInfo,
}

impl Builder {
    fn new(mnemonic: &'static str, unit: Unit, latency: u8, ops: &[Operand]) -> Builder {
        let mut operands = [Operand::Target; 4];
        operands[..ops.len()].copy_from_slice(ops);
        let tied = ops.iter().any(|o| matches!(o, Operand::Tied(_)));
        Builder {
            info: OpInfo {
                mnemonic,
                operands,
                n_operands: ops.len() as u8,
                implicit_uses: &[],
                implicit_defs: &[],
                unit,
                latency,
                props: if tied {
                    OpProps::TIED
                } else {
                    OpProps::empty()
                },
                mem: None,
            },
        }
    }
    fn props(mut self, p: OpProps) -> Builder {
        self.info.props |= p;
        self
    }
    fn uses(mut self, r: &'static [Reg]) -> Builder {
        self.info.implicit_uses = r;
        self
    }
    fn defs(mut self, r: &'static [Reg]) -> Builder {
        self.info.implicit_defs = r;
        self
    }
    fn mem(mut self, m: MemAccess) -> Builder {
        self.info.mem = Some(m);
        self
    }
}

use Operand::{Def, Imm as I, Tied, Use};
use RegClass::{G, P, R};

// ASSUMPTION (isa.md §B3 simulator latencies): AU op 1, DU op 1, MPY/MAC 2, load->R use 1
// (the MDS says 0), load->P use 6, COPYA 5, COPYD 1, compare->guard 1; BOOL 2 (table).
const LAT_ALU: u8 = 1;
const LAT_MUL: u8 = 2;
const LAT_LOAD_R: u8 = 1;
const LAT_LOAD_P: u8 = 6;
const LAT_COPYA: u8 = 5;
const LAT_COPYD: u8 = 1;
const LAT_GUARD: u8 = 1;
const LAT_BOOL: u8 = 2;

/// Number of dense opcode indices (see [`Opcode::dense_index`]).
const N_DENSE: usize = 1
    + 2 * BinOp::ALL.len()
    + UnOp::ALL.len()
    + 5
    + 3 * 16
    + 2 * CmpKind::ALL.len() * CmpCond::ALL.len()
    + GuardOp::ALL.len()
    + 8
    + 2 * AuOp::ALL.len()
    + AddrMode::ALL.len() * (LoadKind::ALL.len() + StoreKind::ALL.len())
    + 8;

impl Opcode {
    /// The static description of this opcode: a lookup in a table built once from
    /// [`Opcode::describe`] (the fuzz driver and the pre-decoder ask for it often). O(1).
    pub fn info(self) -> OpInfo {
        static TABLE: std::sync::OnceLock<Vec<Option<OpInfo>>> = std::sync::OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let mut t = vec![None; N_DENSE];
            for op in Opcode::all() {
                t[op.dense_index()] = Some(op.describe());
            }
            t
        });
        // Opcodes outside `all()` (immediate forms of packed operations) are described on
        // the spot.
        match table.get(self.dense_index()) {
            Some(Some(info)) => *info,
            _ => self.describe(),
        }
    }

    /// A distinct index below `N_DENSE` for every opcode (families laid out one after the
    /// other, members by code).
    fn dense_index(self) -> usize {
        let bins = BinOp::ALL.len();
        let conds = CmpCond::ALL.len();
        let cmps = CmpKind::ALL.len() * conds;
        let aus = AuOp::ALL.len();
        let base_un = 1 + 2 * bins;
        let base_misc = base_un + UnOp::ALL.len();
        let base_mul = base_misc + 5;
        let base_cmp = base_mul + 3 * 16;
        let base_guard = base_cmp + 2 * cmps;
        let base_g2 = base_guard + GuardOp::ALL.len();
        let base_au = base_g2 + 8;
        let base_mem = base_au + 2 * aus;
        let per_mode = LoadKind::ALL.len() + StoreKind::ALL.len();
        let base_ctl = base_mem + AddrMode::ALL.len() * per_mode;
        let c = |x: u8| usize::from(x);
        match self {
            Opcode::Nop => 0,
            Opcode::Bin(b) => 1 + c(b.code()),
            Opcode::BinI(b) => 1 + bins + c(b.code()),
            Opcode::Un(u) => base_un + c(u.code()),
            Opcode::Make => base_misc,
            Opcode::More => base_misc + 1,
            Opcode::MakeP => base_misc + 2,
            Opcode::MakeA => base_misc + 3,
            Opcode::MoreA => base_misc + 4,
            Opcode::Mul(f, v) => base_mul + 16 * f.index() + c(v.code() & 15),
            Opcode::Cmp(k, cond) => base_cmp + conds * c(k.code()) + c(cond.code()),
            Opcode::CmpI(k, cond) => base_cmp + cmps + conds * c(k.code()) + c(cond.code()),
            Opcode::Guard(g) => base_guard + c(g.code()),
            Opcode::NotG => base_g2,
            Opcode::MoveG => base_g2 + 1,
            Opcode::SetG => base_g2 + 2,
            Opcode::ClrG => base_g2 + 3,
            Opcode::Bool => base_g2 + 4,
            Opcode::CopyA => base_g2 + 5,
            Opcode::CopyD => base_g2 + 6,
            Opcode::MoveA => base_g2 + 7,
            Opcode::Au(a) => base_au + c(a.code()),
            Opcode::AuI(a) => base_au + aus + c(a.code()),
            Opcode::Load(k, m) => base_mem + per_mode * c(m.code()) + c(k.code()),
            Opcode::Store(k, m) => {
                base_mem + per_mode * c(m.code()) + LoadKind::ALL.len() + c(k.code())
            }
            Opcode::Goto => base_ctl,
            Opcode::GotoF => base_ctl + 1,
            Opcode::Call => base_ctl + 2,
            Opcode::Jump => base_ctl + 3,
            Opcode::JumpF => base_ctl + 4,
            Opcode::Link => base_ctl + 5,
            Opcode::Rts => base_ctl + 6,
            Opcode::Trap => base_ctl + 7,
        }
    }

    /// The static description of this opcode, worked out (what [`Opcode::info`] caches).
    fn describe(self) -> OpInfo {
        let b = match self {
            Opcode::Nop => {
                Builder::new("NOP", Unit::Gu, 0, &[]).props(OpProps::NOP | OpProps::UNGUARDED)
            }
            Opcode::Bin(op) => {
                let p = if op.is_packed() {
                    OpProps::PACKED
                } else {
                    OpProps::empty()
                };
                Builder::new(op.mnemonic(), Unit::Du, LAT_ALU, &[Def(R), Use(R), Use(R)])
                    .props(p | op.result_props())
            }
            Opcode::BinI(op) => Builder::new(
                op.mnemonic(),
                Unit::Du,
                LAT_ALU,
                &[Def(R), Use(R), I(op.imm())],
            )
            .props(op.result_props()),
            Opcode::Un(op) => {
                let p = match op {
                    UnOp::Move | UnOp::Movep => OpProps::COPY,
                    UnOp::Negu | UnOp::Extub | UnOp::Extuh | UnOp::Extuw => OpProps::UNSIGNED,
                    UnOp::Neg | UnOp::Extw | UnOp::Clampw => OpProps::WORD,
                    _ => OpProps::empty(),
                };
                Builder::new(op.mnemonic(), Unit::Du, LAT_ALU, &[Def(R), Use(R)]).props(p)
            }
            Opcode::Make => Builder::new("MAKE", Unit::Du, LAT_ALU, &[Def(R), I(Imm::s(16))]),
            Opcode::More => Builder::new("MORE", Unit::Du, LAT_ALU, &[Tied(R), I(Imm::u(16))])
                .props(OpProps::WORD),
            Opcode::MakeP => Builder::new("MAKEP", Unit::Du, LAT_ALU, &[Def(R), I(Imm::u(16))])
                .props(OpProps::PACKED | OpProps::WORD),
            Opcode::MakeA => Builder::new("MAKEA", Unit::Au, LAT_ALU, &[Def(P), I(Imm::s(16))]),
            Opcode::MoreA => Builder::new("MOREA", Unit::Au, LAT_ALU, &[Tied(P), I(Imm::u(16))]),
            Opcode::Mul(fam, v) => {
                let name = MUL_NAMES[fam.index()][usize::from(v.code())];
                match fam {
                    MulFamily::Mp => {
                        Builder::new(name, Unit::Du, LAT_MUL, &[Def(R), Use(R), Use(R)])
                            .props(OpProps::MUL)
                    }
                    MulFamily::Ma | MulFamily::Ms => {
                        Builder::new(name, Unit::Du, LAT_MUL, &[Def(R), Use(R), Use(R), Use(R)])
                            .props(OpProps::MUL | OpProps::MAC)
                    }
                }
            }
            Opcode::Cmp(kind, cond) => {
                let (unit, c) = cmp_unit_class(kind);
                Builder::new(
                    cmp_name(kind, cond),
                    unit,
                    LAT_GUARD,
                    &[Def(G), Use(c), Use(c)],
                )
                .props(OpProps::COMPARE)
            }
            Opcode::CmpI(kind, cond) => {
                let (unit, c) = cmp_unit_class(kind);
                Builder::new(
                    cmp_name(kind, cond),
                    unit,
                    LAT_GUARD,
                    &[Def(G), Use(c), I(Imm::u(8))],
                )
                .props(OpProps::COMPARE)
            }
            Opcode::Guard(op) => Builder::new(
                op.mnemonic(),
                Unit::Du,
                LAT_GUARD,
                &[Def(G), Use(G), Use(G)],
            ),
            Opcode::NotG => Builder::new("NOTG", Unit::Du, LAT_GUARD, &[Tied(G)]),
            Opcode::MoveG => {
                Builder::new("MOVEG", Unit::Du, LAT_GUARD, &[Def(G), Use(G)]).props(OpProps::COPY)
            }
            Opcode::SetG => Builder::new("SETG", Unit::Du, LAT_GUARD, &[Def(G)]),
            Opcode::ClrG => Builder::new("CLRG", Unit::Du, LAT_GUARD, &[Def(G)]),
            Opcode::Bool => Builder::new("BOOL", Unit::Du, LAT_BOOL, &[Def(R), Use(G)]),
            Opcode::CopyA => {
                Builder::new("COPYA", Unit::Au, LAT_COPYA, &[Def(P), Use(R)]).props(OpProps::XCOPY)
            }
            Opcode::CopyD => {
                Builder::new("COPYD", Unit::Au, LAT_COPYD, &[Def(R), Use(P)]).props(OpProps::XCOPY)
            }
            Opcode::MoveA => {
                Builder::new("MOVEA", Unit::Au, LAT_ALU, &[Def(P), Use(P)]).props(OpProps::COPY)
            }
            Opcode::Au(op) => {
                Builder::new(op.mnemonic(), Unit::Au, LAT_ALU, &[Def(P), Use(P), Use(P)])
            }
            Opcode::AuI(op) => Builder::new(
                op.mnemonic(),
                Unit::Au,
                LAT_ALU,
                &[Def(P), Use(P), I(Imm::scaled(9, op.scale()))],
            ),
            Opcode::Load(kind, mode) => {
                let lat = if kind.class() == P {
                    LAT_LOAD_P
                } else {
                    LAT_LOAD_R
                };
                let [base, off] = mem_operands(mode, kind.size());
                Builder::new(
                    kind.mnemonic(),
                    Unit::Mem,
                    lat,
                    &[Def(kind.class()), base, off],
                )
                .props(OpProps::LOAD | post_props(mode))
                .mem(MemAccess {
                    size: kind.size(),
                    signed: kind.signed(),
                    class: kind.class(),
                    mode,
                })
            }
            Opcode::Store(kind, mode) => {
                let [base, off] = mem_operands(mode, kind.size());
                Builder::new(
                    kind.mnemonic(),
                    Unit::Mem,
                    0,
                    &[base, off, Use(kind.class())],
                )
                .props(OpProps::STORE | post_props(mode))
                .mem(MemAccess {
                    size: kind.size(),
                    signed: false,
                    class: kind.class(),
                    mode,
                })
            }
            Opcode::Goto => Builder::new("GOTO", Unit::Gu, 0, &[Operand::Target])
                .props(OpProps::JUMP | OpProps::UNGUARDED),
            Opcode::GotoF => Builder::new("GOTO", Unit::Gu, 0, &[Operand::Target])
                .props(OpProps::BRANCH | OpProps::ON_FALSE),
            Opcode::Call => Builder::new("CALL", Unit::Gu, LAT_ALU, &[Operand::Target])
                .props(OpProps::CALL)
                .defs(LINK_REG),
            Opcode::Jump => Builder::new("JUMP", Unit::Gu, 0, &[])
                .props(OpProps::JUMP | OpProps::INDIRECT | OpProps::UNGUARDED)
                .uses(JUMP_REG),
            Opcode::JumpF => Builder::new("JUMP", Unit::Gu, 0, &[])
                .props(OpProps::BRANCH | OpProps::INDIRECT | OpProps::ON_FALSE)
                .uses(JUMP_REG),
            Opcode::Link => Builder::new("LINK", Unit::Gu, LAT_ALU, &[])
                .props(OpProps::CALL | OpProps::INDIRECT)
                .uses(JUMP_REG)
                .defs(LINK_REG),
            Opcode::Rts => Builder::new("RTS", Unit::Gu, 0, &[])
                .props(OpProps::RETURN | OpProps::INDIRECT)
                .uses(LINK_REG),
            Opcode::Trap => Builder::new("TRAP", Unit::Gu, 0, &[I(Imm::u(8))])
                .props(OpProps::SYSCALL)
                .uses(TRAP_REGS),
        };
        b.info
    }

    /// Every opcode of the modelled subset (for tests and table dumps).
    pub fn all() -> Vec<Opcode> {
        let mut v = vec![Opcode::Nop];
        v.extend(BinOp::ALL.iter().map(|&o| Opcode::Bin(o)));
        v.extend(
            BinOp::ALL
                .iter()
                .filter(|o| o.has_imm())
                .map(|&o| Opcode::BinI(o)),
        );
        v.extend(UnOp::ALL.iter().map(|&o| Opcode::Un(o)));
        v.extend([
            Opcode::Make,
            Opcode::More,
            Opcode::MakeP,
            Opcode::MakeA,
            Opcode::MoreA,
        ]);
        for f in MulFamily::ALL {
            v.extend(MulVariant::all().map(|m| Opcode::Mul(f, m)));
        }
        for &k in CmpKind::ALL {
            v.extend(CmpCond::ALL.iter().map(|&c| Opcode::Cmp(k, c)));
            v.extend(CmpCond::ALL.iter().map(|&c| Opcode::CmpI(k, c)));
        }
        v.extend(GuardOp::ALL.iter().map(|&o| Opcode::Guard(o)));
        v.extend([
            Opcode::NotG,
            Opcode::MoveG,
            Opcode::SetG,
            Opcode::ClrG,
            Opcode::Bool,
            Opcode::CopyA,
            Opcode::CopyD,
            Opcode::MoveA,
        ]);
        v.extend(AuOp::ALL.iter().map(|&o| Opcode::Au(o)));
        v.extend(AuOp::ALL.iter().map(|&o| Opcode::AuI(o)));
        for &m in AddrMode::ALL {
            v.extend(LoadKind::ALL.iter().map(|&k| Opcode::Load(k, m)));
            v.extend(StoreKind::ALL.iter().map(|&k| Opcode::Store(k, m)));
        }
        v.extend([
            Opcode::Goto,
            Opcode::GotoF,
            Opcode::Call,
            Opcode::Jump,
            Opcode::JumpF,
            Opcode::Link,
            Opcode::Rts,
            Opcode::Trap,
        ]);
        v
    }

    /// The mnemonic (shared by the register and immediate forms).
    pub fn mnemonic(self) -> &'static str {
        self.info().mnemonic
    }

    /// Whether this opcode exists (an immediate form of a packed operation does not).
    pub fn is_valid(self) -> bool {
        !matches!(self, Opcode::BinI(op) if !op.has_imm())
    }
}

fn cmp_name(kind: CmpKind, cond: CmpCond) -> &'static str {
    CMP_NAMES[usize::from(kind.code())][usize::from(cond.code())]
}

fn cmp_unit_class(kind: CmpKind) -> (Unit, RegClass) {
    match kind {
        CmpKind::A => (Unit::Au, P),
        _ => (Unit::Du, R),
    }
}

fn post_props(mode: AddrMode) -> OpProps {
    if mode.is_post_modify() {
        OpProps::POST_MODIFY | OpProps::TIED
    } else {
        OpProps::empty()
    }
}

/// Base and offset operands of a memory access (the base is tied when post-modified).
fn mem_operands(mode: AddrMode, size: u8) -> [Operand; 2] {
    let base = if mode.is_post_modify() {
        Tied(P)
    } else {
        Use(P)
    };
    let off = if mode.is_reg_offset() {
        Use(P)
    } else {
        I(Imm::scaled(mode.imm_bits(), size))
    };
    [base, off]
}

/// One operation: opcode, guard and operand values (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub opcode: Opcode,
    /// Guard register number; 15 (always true) for unguarded operations.
    pub guard: u8,
    /// Register numbers of the register operands, in operand order; unused slots are 0.
    pub regs: [u8; 4],
    /// The immediate as written (unscaled), or the branch offset in words; 0 if none.
    pub imm: i32,
}

/// Why an [`Inst`] is not a valid operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstError(pub String);

impl std::fmt::Display for InstError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InstError {}

impl Inst {
    /// An operation guarded by G15 (always executed).
    pub fn new(opcode: Opcode, regs: &[u8], imm: i32) -> Inst {
        let mut r = [0u8; 4];
        r[..regs.len()].copy_from_slice(regs);
        Inst {
            opcode,
            guard: GUARD_TRUE,
            regs: r,
            imm,
        }
    }

    /// The same operation under guard `g`.
    pub fn guarded(self, g: u8) -> Inst {
        Inst { guard: g, ..self }
    }

    /// Registers read (operand uses, tied operands, the guard unless G15, implicit uses).
    pub fn uses(&self) -> Vec<Reg> {
        let info = self.opcode.info();
        let mut out = Vec::with_capacity(5);
        if self.guard != GUARD_TRUE {
            out.push(Reg::g(self.guard));
        }
        for (op, reg) in self.reg_operands(&info) {
            if let Operand::Use(c) | Operand::Tied(c) = op {
                out.push(Reg { class: c, num: reg });
            }
        }
        out.extend_from_slice(info.implicit_uses);
        out
    }

    /// Registers written, each with its latency.
    pub fn defs(&self) -> Vec<(Reg, u8)> {
        let info = self.opcode.info();
        let mut out = Vec::with_capacity(3);
        for (op, reg) in self.reg_operands(&info) {
            match op {
                Operand::Def(c) => out.push((Reg { class: c, num: reg }, info.latency)),
                Operand::Tied(c) => {
                    let lat = if info.props.contains(OpProps::POST_MODIFY) {
                        POST_MODIFY_LATENCY
                    } else {
                        info.latency
                    };
                    out.push((Reg { class: c, num: reg }, lat));
                }
                _ => {}
            }
        }
        out.extend(info.implicit_defs.iter().map(|&r| (r, info.latency)));
        out
    }

    /// Register operands paired with their register numbers.
    pub fn reg_operands<'a>(
        &'a self,
        info: &'a OpInfo,
    ) -> impl Iterator<Item = (Operand, u8)> + 'a {
        info.operands()
            .iter()
            .copied()
            .filter(|o| o.is_reg())
            .zip(self.regs)
    }

    /// Check register numbers, immediate ranges and the guard rules. The encoder and the
    /// assembler call this; every `Inst` the decoder returns passes it.
    pub fn validate(&self) -> Result<(), InstError> {
        let info = self.opcode.info();
        let err = |m: String| Err(InstError(format!("{}: {m}", info.mnemonic)));
        if !self.opcode.is_valid() {
            return err("no immediate form".into());
        }
        if self.guard > 15 {
            return err(format!("guard G{} does not exist", self.guard));
        }
        if info.props.contains(OpProps::UNGUARDED) && self.guard != GUARD_TRUE {
            return err("this operation is not guarded".into());
        }
        let n = info.num_regs();
        for (op, reg) in self.reg_operands(&info) {
            if reg > 15 {
                return err(format!("register number {reg} out of range"));
            }
            if matches!(op, Operand::Def(G) | Operand::Tied(G)) && reg == GUARD_TRUE {
                return err("G15 is always true and cannot be written".into());
            }
        }
        if self.regs[n..].iter().any(|&r| r != 0) {
            return err("unused register slots must be 0".into());
        }
        if let Some(imm) = info.imm() {
            if !imm.contains(i64::from(self.imm)) {
                let (lo, hi) = imm.range();
                return err(format!("immediate {} out of range {lo}..={hi}", self.imm));
            }
        } else if info.has_target() {
            let lim = 1i64 << (BRANCH_OFFSET_BITS - 1);
            if !(-lim..lim).contains(&i64::from(self.imm)) {
                return err(format!("branch offset {} words out of range", self.imm));
            }
        } else if self.imm != 0 {
            return err("takes no immediate".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached descriptions: every opcode (immediate forms of packed operations
    /// included) has its own dense index, and `info` gives what `describe` works out.
    #[test]
    fn info_table_matches_the_descriptions() {
        let mut every = Opcode::all();
        every.extend(BinOp::ALL.iter().map(|&b| Opcode::BinI(b)));
        let mut seen = std::collections::HashMap::new();
        for op in every {
            let i = op.dense_index();
            assert!(i < N_DENSE, "{op:?}");
            if let Some(other) = seen.insert(i, op) {
                assert_eq!(other, op, "index {i} shared");
            }
            assert_eq!(op.info(), op.describe(), "{op:?}");
        }
    }

    #[test]
    fn table_is_complete_and_consistent() {
        let all = Opcode::all();
        // NOP, 25 BinOp, 18 immediate forms (no packed), 12 UnOp, 5 make/more, 48 multiplies,
        // 48 compares, 7 guard ops, 8 single ops, 12 AU, 8 modes x (8 loads + 6 stores), 8 control
        assert_eq!(
            all.len(),
            1 + 25 + 18 + 12 + 5 + 48 + 48 + 7 + 8 + 12 + 112 + 8
        );
        for op in &all {
            let info = op.info();
            assert!(!info.mnemonic.is_empty());
            assert!(info.num_regs() <= 4, "{op:?}");
            assert!(
                info.operands()
                    .iter()
                    .filter(|o| matches!(o, Operand::Imm(_)))
                    .count()
                    <= 1
            );
            let tied = info
                .operands()
                .iter()
                .any(|o| matches!(o, Operand::Tied(_)));
            assert_eq!(tied, info.props.contains(OpProps::TIED), "{op:?}");
        }
    }

    #[test]
    fn mnemonics() {
        let v = MulVariant::new(false, true, true, false);
        assert_eq!(Opcode::Mul(MulFamily::Mp, v).mnemonic(), "MPSUHL");
        assert_eq!(
            Opcode::Mul(MulFamily::Ma, MulVariant::new(true, false, false, true)).mnemonic(),
            "MAUSLH"
        );
        assert_eq!(
            Opcode::Mul(MulFamily::Ma, MulVariant::new(true, true, false, false)).mnemonic(),
            "MAUULL"
        );
        assert_eq!(Opcode::Cmp(CmpKind::Uw, CmpCond::Ge).mnemonic(), "GEUW");
        assert_eq!(
            Opcode::Load(LoadKind::Ub, AddrMode::PlusImm).mnemonic(),
            "LDUB"
        );
    }

    #[test]
    fn latencies_follow_the_assumptions() {
        assert_eq!(Opcode::Bin(BinOp::Add).info().latency, 1);
        assert_eq!(
            Opcode::Mul(MulFamily::Ma, MulVariant::new(false, false, false, false))
                .info()
                .latency,
            2
        );
        assert_eq!(
            Opcode::Load(LoadKind::W, AddrMode::PostIncImm)
                .info()
                .latency,
            1
        );
        assert_eq!(
            Opcode::Load(LoadKind::Aw, AddrMode::PlusImm).info().latency,
            6
        );
        assert_eq!(Opcode::CopyA.info().latency, 5);
        assert_eq!(Opcode::CopyD.info().latency, 1);
        assert_eq!(Opcode::Bool.info().latency, 2);
    }

    #[test]
    fn tied_and_mac_operands() {
        // MAC has a separate accumulator input: not tied (isa.md §B4).
        let mac = Opcode::Mul(MulFamily::Ma, MulVariant::new(false, false, false, false)).info();
        assert!(!mac.props.contains(OpProps::TIED));
        assert_eq!(mac.operands(), &[Def(R), Use(R), Use(R), Use(R)]);
        // The post-modified base is tied, and its offset is scaled by the access size.
        let ld = Opcode::Load(LoadKind::W, AddrMode::PostIncImm).info();
        assert_eq!(ld.operands(), &[Def(R), Tied(P), I(Imm::scaled(5, 4))]);
        let i = Inst::new(Opcode::Load(LoadKind::W, AddrMode::PostIncImm), &[1, 2], 1);
        assert_eq!(i.defs(), vec![(Reg::r(1), 1), (Reg::p(2), 1)]);
        assert_eq!(i.uses(), vec![Reg::p(2)]);
        assert!(Opcode::More.info().props.contains(OpProps::TIED));
        assert!(Opcode::NotG.info().props.contains(OpProps::TIED));
    }

    #[test]
    fn validation() {
        assert!(Inst::new(Opcode::BinI(BinOp::Add), &[1, 2], 255)
            .validate()
            .is_ok());
        assert!(Inst::new(Opcode::BinI(BinOp::Add), &[1, 2], 256)
            .validate()
            .is_err());
        assert!(Inst::new(Opcode::BinI(BinOp::Addp), &[1, 2], 1)
            .validate()
            .is_err());
        assert!(Inst::new(Opcode::SetG, &[15], 0).validate().is_err());
        assert!(Inst::new(Opcode::Goto, &[], 5)
            .guarded(3)
            .validate()
            .is_err());
        assert!(Inst::new(Opcode::GotoF, &[], -5)
            .guarded(3)
            .validate()
            .is_ok());
        assert!(Inst::new(Opcode::Make, &[1], -32768).validate().is_ok());
        assert!(Inst::new(Opcode::Make, &[1], 32768).validate().is_err());
        assert!(Inst::new(Opcode::Bin(BinOp::Add), &[1, 2, 16], 0)
            .validate()
            .is_err());
    }
}
