//! IR data types: values, operations, blocks, functions, globals, modules.

use std::fmt;

/// A virtual register, printed `%N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Value(pub u32);

/// A basic block, printed `bN`. The entry block is always `BlockId(0)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BlockId(pub u32);

/// A stack slot of the current activation, printed `sN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotId(pub u32);

impl Value {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl BlockId {
    pub const ENTRY: BlockId = BlockId(0);
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl SlotId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}", self.0)
    }
}
impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b{}", self.0)
    }
}
impl fmt::Display for SlotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0)
    }
}

/// Register type. Every register is 32 bits wide; `Ptr` marks address values so that a back end
/// with separate address registers (ST120 P registers) can choose the register class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    I32,
    Ptr,
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::Ptr => "ptr",
        }
    }
}

/// Width and signedness of a memory access. Loads extend to 32 bits; stores use the width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemTy {
    I8,
    U8,
    I16,
    U16,
    I32,
}

impl MemTy {
    pub fn size(self) -> u32 {
        match self {
            MemTy::I8 | MemTy::U8 => 1,
            MemTy::I16 | MemTy::U16 => 2,
            MemTy::I32 => 4,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            MemTy::I8 => "i8",
            MemTy::U8 => "u8",
            MemTy::I16 => "i16",
            MemTy::U16 => "u16",
            MemTy::I32 => "i32",
        }
    }
    pub const ALL: [MemTy; 5] = [MemTy::I8, MemTy::U8, MemTy::I16, MemTy::U16, MemTy::I32];
}

/// Two-operand arithmetic. All wrap modulo 2^32; shifts use the amount modulo 32.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
}

impl BinOp {
    pub const ALL: [BinOp; 13] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::DivS,
        BinOp::DivU,
        BinOp::RemS,
        BinOp::RemU,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::ShrS,
        BinOp::ShrU,
    ];
    pub fn name(self) -> &'static str {
        match self {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            BinOp::DivS => "divs",
            BinOp::DivU => "divu",
            BinOp::RemS => "rems",
            BinOp::RemU => "remu",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::Xor => "xor",
            BinOp::Shl => "shl",
            BinOp::ShrS => "shrs",
            BinOp::ShrU => "shru",
        }
    }
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
        )
    }
    /// Division and remainder can trap (division by zero), so they are not freely removable
    /// or speculable.
    pub fn can_trap(self) -> bool {
        matches!(self, BinOp::DivS | BinOp::DivU | BinOp::RemS | BinOp::RemU)
    }
    /// Evaluates the operation; `None` on division by zero.
    pub fn eval(self, a: i32, b: i32) -> Option<i32> {
        let (ua, ub) = (a as u32, b as u32);
        Some(match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::DivS => {
                if b == 0 {
                    return None;
                }
                a.wrapping_div(b)
            }
            BinOp::DivU => ua.checked_div(ub)? as i32,
            BinOp::RemS => {
                if b == 0 {
                    return None;
                }
                a.wrapping_rem(b)
            }
            BinOp::RemU => ua.checked_rem(ub)? as i32,
            BinOp::And => a & b,
            BinOp::Or => a | b,
            BinOp::Xor => a ^ b,
            BinOp::Shl => ua.wrapping_shl(ub & 31) as i32,
            BinOp::ShrS => a.wrapping_shr(ub & 31),
            BinOp::ShrU => ua.wrapping_shr(ub & 31) as i32,
        })
    }
}

/// One-operand arithmetic and the conversions C needs between widths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    Sext8,
    Zext8,
    Sext16,
    Zext16,
}

impl UnOp {
    pub const ALL: [UnOp; 6] = [
        UnOp::Neg,
        UnOp::Not,
        UnOp::Sext8,
        UnOp::Zext8,
        UnOp::Sext16,
        UnOp::Zext16,
    ];
    pub fn name(self) -> &'static str {
        match self {
            UnOp::Neg => "neg",
            UnOp::Not => "not",
            UnOp::Sext8 => "sext8",
            UnOp::Zext8 => "zext8",
            UnOp::Sext16 => "sext16",
            UnOp::Zext16 => "zext16",
        }
    }
    pub fn eval(self, a: i32) -> i32 {
        match self {
            UnOp::Neg => a.wrapping_neg(),
            UnOp::Not => !a,
            UnOp::Sext8 => a as i8 as i32,
            UnOp::Zext8 => a as u8 as i32,
            UnOp::Sext16 => a as i16 as i32,
            UnOp::Zext16 => a as u16 as i32,
        }
    }
}

/// Comparisons; the result is 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    LtS,
    LeS,
    GtS,
    GeS,
    LtU,
    LeU,
    GtU,
    GeU,
}

impl CmpOp {
    pub const ALL: [CmpOp; 10] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::LtS,
        CmpOp::LeS,
        CmpOp::GtS,
        CmpOp::GeS,
        CmpOp::LtU,
        CmpOp::LeU,
        CmpOp::GtU,
        CmpOp::GeU,
    ];
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::LtS => "lt",
            CmpOp::LeS => "le",
            CmpOp::GtS => "gt",
            CmpOp::GeS => "ge",
            CmpOp::LtU => "ltu",
            CmpOp::LeU => "leu",
            CmpOp::GtU => "gtu",
            CmpOp::GeU => "geu",
        }
    }
    pub fn eval(self, a: i32, b: i32) -> bool {
        let (ua, ub) = (a as u32, b as u32);
        match self {
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
            CmpOp::LtS => a < b,
            CmpOp::LeS => a <= b,
            CmpOp::GtS => a > b,
            CmpOp::GeS => a >= b,
            CmpOp::LtU => ua < ub,
            CmpOp::LeU => ua <= ub,
            CmpOp::GtU => ua > ub,
            CmpOp::GeU => ua >= ub,
        }
    }
    /// The comparison with its operands exchanged: `a op b == b op.swapped() a`.
    pub fn swapped(self) -> CmpOp {
        match self {
            CmpOp::Eq | CmpOp::Ne => self,
            CmpOp::LtS => CmpOp::GtS,
            CmpOp::LeS => CmpOp::GeS,
            CmpOp::GtS => CmpOp::LtS,
            CmpOp::GeS => CmpOp::LeS,
            CmpOp::LtU => CmpOp::GtU,
            CmpOp::LeU => CmpOp::GeU,
            CmpOp::GtU => CmpOp::LtU,
            CmpOp::GeU => CmpOp::LeU,
        }
    }
    /// The logical negation: `!(a op b) == a op.inverted() b`.
    pub fn inverted(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::LtS => CmpOp::GeS,
            CmpOp::LeS => CmpOp::GtS,
            CmpOp::GtS => CmpOp::LeS,
            CmpOp::GeS => CmpOp::LtS,
            CmpOp::LtU => CmpOp::GeU,
            CmpOp::LeU => CmpOp::GtU,
            CmpOp::GtU => CmpOp::LeU,
            CmpOp::GeU => CmpOp::LtU,
        }
    }
}

/// An operation. Its result, if any, is the instruction's `dst`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Const(i32),
    Copy(Value),
    Bin(BinOp, Value, Value),
    Un(UnOp, Value),
    Cmp(CmpOp, Value, Value),
    /// `cond != 0 ? a : b`.
    Select(Value, Value, Value),
    /// Address of a global or function symbol plus a byte offset.
    SymAddr(String, i32),
    /// Address of a stack slot of the current activation.
    SlotAddr(SlotId),
    Load {
        ty: MemTy,
        addr: Value,
        volatile: bool,
    },
    Store {
        ty: MemTy,
        addr: Value,
        value: Value,
        volatile: bool,
    },
    /// Direct call; `dst` is the result if the callee returns one. Builtins (see
    /// [`crate::interp::builtins`]) are called by name like any function.
    Call {
        callee: String,
        args: Vec<Value>,
    },
    /// SSA merge: one argument per predecessor block, only at the head of a block.
    Phi(Vec<(BlockId, Value)>),
}

impl Op {
    /// Calls `f` on every value the operation reads, in operand order.
    pub fn for_each_use(&self, mut f: impl FnMut(Value)) {
        match self {
            Op::Const(_) | Op::SymAddr(..) | Op::SlotAddr(_) => {}
            Op::Copy(a) | Op::Un(_, a) => f(*a),
            Op::Bin(_, a, b) | Op::Cmp(_, a, b) => {
                f(*a);
                f(*b)
            }
            Op::Select(c, a, b) => {
                f(*c);
                f(*a);
                f(*b)
            }
            Op::Load { addr, .. } => f(*addr),
            Op::Store { addr, value, .. } => {
                f(*addr);
                f(*value)
            }
            Op::Call { args, .. } => args.iter().copied().for_each(f),
            Op::Phi(args) => args.iter().for_each(|&(_, v)| f(v)),
        }
    }

    /// Calls `f` on a mutable reference to every value the operation reads.
    pub fn for_each_use_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        match self {
            Op::Const(_) | Op::SymAddr(..) | Op::SlotAddr(_) => {}
            Op::Copy(a) | Op::Un(_, a) => f(a),
            Op::Bin(_, a, b) | Op::Cmp(_, a, b) => {
                f(a);
                f(b)
            }
            Op::Select(c, a, b) => {
                f(c);
                f(a);
                f(b)
            }
            Op::Load { addr, .. } => f(addr),
            Op::Store { addr, value, .. } => {
                f(addr);
                f(value)
            }
            Op::Call { args, .. } => args.iter_mut().for_each(f),
            Op::Phi(args) => args.iter_mut().for_each(|(_, v)| f(v)),
        }
    }

    /// The values read, collected (convenience for non-hot code).
    pub fn uses(&self) -> Vec<Value> {
        let mut v = Vec::new();
        self.for_each_use(|x| v.push(x));
        v
    }

    pub fn is_phi(&self) -> bool {
        matches!(self, Op::Phi(_))
    }

    /// True if removing the operation when its result is unused would change behaviour
    /// (memory writes, calls, volatile accesses, traps).
    pub fn has_side_effects(&self) -> bool {
        match self {
            Op::Store { .. } | Op::Call { .. } => true,
            Op::Load { volatile, .. } => *volatile,
            Op::Bin(op, ..) => op.can_trap(),
            _ => false,
        }
    }
}

/// An instruction: an operation and the register it defines, if any.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    pub dst: Option<Value>,
    pub op: Op,
}

/// How control leaves a block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Terminator {
    Jump(BlockId),
    /// `cond != 0` goes to `then_`, else to `else_`; the two targets always differ.
    Branch {
        cond: Value,
        then_: BlockId,
        else_: BlockId,
    },
    Return(Option<Value>),
    Unreachable,
}

impl Terminator {
    /// The successor blocks, in order (`then_` before `else_`).
    pub fn successors(&self) -> Succs {
        match *self {
            Terminator::Jump(b) => Succs {
                list: [b, b],
                len: 1,
            },
            Terminator::Branch { then_, else_, .. } => Succs {
                list: [then_, else_],
                len: 2,
            },
            Terminator::Return(_) | Terminator::Unreachable => Succs {
                list: [BlockId(0); 2],
                len: 0,
            },
        }
    }
    pub fn for_each_use(&self, mut f: impl FnMut(Value)) {
        match self {
            Terminator::Branch { cond, .. } => f(*cond),
            Terminator::Return(Some(v)) => f(*v),
            _ => {}
        }
    }
    pub fn for_each_use_mut(&mut self, mut f: impl FnMut(&mut Value)) {
        match self {
            Terminator::Branch { cond, .. } => f(cond),
            Terminator::Return(Some(v)) => f(v),
            _ => {}
        }
    }
    /// Redirects every edge to `from` so that it goes to `to`.
    pub fn replace_successor(&mut self, from: BlockId, to: BlockId) {
        match self {
            Terminator::Jump(b) if *b == from => *b = to,
            Terminator::Branch { then_, else_, .. } => {
                if *then_ == from {
                    *then_ = to
                }
                if *else_ == from {
                    *else_ = to
                }
            }
            _ => {}
        }
    }
}

/// Successor list of a terminator: at most two blocks, no allocation.
#[derive(Clone, Copy, Debug)]
pub struct Succs {
    list: [BlockId; 2],
    len: u8,
}

impl Succs {
    pub fn as_slice(&self) -> &[BlockId] {
        &self.list[..self.len as usize]
    }
    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl IntoIterator for Succs {
    type Item = BlockId;
    type IntoIter = std::iter::Take<std::array::IntoIter<BlockId, 2>>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter().take(self.len as usize)
    }
}

/// A basic block: instructions (phis first, in SSA form) and a terminator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub insts: Vec<Inst>,
    pub term: Terminator,
}

impl Block {
    pub fn new() -> Self {
        Block {
            insts: Vec::new(),
            term: Terminator::Unreachable,
        }
    }
    /// Number of phi instructions at the head of the block.
    pub fn phi_count(&self) -> usize {
        self.insts.iter().take_while(|i| i.op.is_phi()).count()
    }
}

impl Default for Block {
    fn default() -> Self {
        Self::new()
    }
}

/// A stack slot: a piece of the activation record with an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackSlot {
    pub size: u32,
    pub align: u32,
    pub name: String,
}

/// A function: parameters, blocks, stack slots and the types of its virtual registers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub params: Vec<Value>,
    pub ret: Option<Ty>,
    pub blocks: Vec<Block>,
    pub slots: Vec<StackSlot>,
    value_types: Vec<Ty>,
}

impl Function {
    /// A function with an empty entry block `b0` and no parameters.
    pub fn new(name: &str) -> Self {
        Function {
            name: name.to_string(),
            params: Vec::new(),
            ret: None,
            blocks: vec![Block::new()],
            slots: Vec::new(),
            value_types: Vec::new(),
        }
    }

    pub fn new_value(&mut self, ty: Ty) -> Value {
        self.value_types.push(ty);
        Value(self.value_types.len() as u32 - 1)
    }

    /// Adds a parameter register of the given type.
    pub fn add_param(&mut self, ty: Ty) -> Value {
        let v = self.new_value(ty);
        self.params.push(v);
        v
    }

    pub fn value_ty(&self, v: Value) -> Ty {
        self.value_types[v.index()]
    }

    pub fn set_value_ty(&mut self, v: Value, ty: Ty) {
        self.value_types[v.index()] = ty;
    }

    /// Number of virtual registers ever created (values are `0..num_values()`).
    pub fn num_values(&self) -> usize {
        self.value_types.len()
    }

    /// Makes sure values `0..n` exist (used by the text parser); new ones are `i32`.
    pub fn reserve_values(&mut self, n: usize) {
        if self.value_types.len() < n {
            self.value_types.resize(n, Ty::I32);
        }
    }

    pub fn new_block(&mut self) -> BlockId {
        self.blocks.push(Block::new());
        BlockId(self.blocks.len() as u32 - 1)
    }

    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    pub fn block(&self, b: BlockId) -> &Block {
        &self.blocks[b.index()]
    }

    pub fn block_mut(&mut self, b: BlockId) -> &mut Block {
        &mut self.blocks[b.index()]
    }

    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> {
        (0..self.blocks.len() as u32).map(BlockId)
    }

    pub fn new_slot(&mut self, size: u32, align: u32, name: &str) -> SlotId {
        self.slots.push(StackSlot {
            size,
            align: align.max(1),
            name: name.to_string(),
        });
        SlotId(self.slots.len() as u32 - 1)
    }

    /// Appends an instruction to block `b`.
    pub fn push(&mut self, b: BlockId, dst: Option<Value>, op: Op) {
        self.blocks[b.index()].insts.push(Inst { dst, op });
    }

    /// Sets the terminator of `b`; a branch whose two targets are equal becomes a jump.
    pub fn set_term(&mut self, b: BlockId, t: Terminator) {
        let t = match t {
            Terminator::Branch { then_, else_, .. } if then_ == else_ => Terminator::Jump(then_),
            t => t,
        };
        self.blocks[b.index()].term = t;
    }

    /// Predecessor lists, in block order, computed from the terminators.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for b in self.block_ids() {
            for s in self.block(b).term.successors() {
                preds[s.index()].push(b);
            }
        }
        preds
    }

    /// Number of instructions over all blocks (terminators excluded).
    pub fn num_insts(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }
}

/// A 32-bit little-endian address of `symbol + addend` stored at `offset` in a global.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reloc {
    pub offset: u32,
    pub symbol: String,
    pub addend: i32,
}

/// A global variable (or string literal, or static local).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Global {
    pub name: String,
    pub size: u32,
    pub align: u32,
    /// Initial bytes; shorter than `size` (or empty) means the rest is zero.
    pub init: Vec<u8>,
    pub relocs: Vec<Reloc>,
    pub readonly: bool,
}

/// A translation unit after linking: globals and function definitions.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Module {
    pub globals: Vec<Global>,
    pub functions: Vec<Function>,
}

impl Module {
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
    pub fn function_mut(&mut self, name: &str) -> Option<&mut Function> {
        self.functions.iter_mut().find(|f| f.name == name)
    }
    pub fn global(&self, name: &str) -> Option<&Global> {
        self.globals.iter().find(|g| g.name == name)
    }
}
