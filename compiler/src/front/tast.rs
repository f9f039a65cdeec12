//! The checked program: the typed tree produced by [`crate::front::sema`] and consumed by
//! [`crate::front::lower`].
//!
//! Every implicit conversion of C is explicit here: lvalue-to-rvalue loads ([`TKind::Load`]),
//! array-to-pointer decay ([`TKind::AddrOf`] of the array), integer promotions and the usual
//! arithmetic conversions ([`TKind::Conv`]), the conversion of an assigned value to the
//! target's type, pointer arithmetic scaled by the element size ([`TKind::PtrAdd`],
//! [`TKind::PtrDiff`]). So lowering needs no C typing rules: an arithmetic node computes in
//! its own type, a conversion node converts its operand's value to its own type.
//!
//! Invariant: a value of integer type `T` in a register is always the 32-bit sign- or
//! zero-extension of a `T` (lowering keeps it so); struct-typed expressions denote addresses.

use super::diag::Span;
use super::types::{FuncType, QualType, TypeTable};
use std::rc::Rc;

pub type VarId = u32;
pub type FuncId = u32;
pub type StrId = u32;
pub type LabelId = u32;
pub type CaseId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpKind {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// The operation of a compound assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompoundOp {
    /// Integer arithmetic in the computation type.
    Arith(ArithOp),
    /// `p += n` / `p -= n`: pointer plus the (possibly negated) index times the element size.
    PtrAdd { elem_size: u32, negate: bool },
}

#[derive(Clone, Debug)]
pub enum TKind {
    /// Integer constant, already wrapped to the node's type.
    Const(i32),
    // ---- lvalues ----
    Var(VarId),
    /// A string literal object (array lvalue).
    Str(StrId),
    /// `*p`: the operand is a pointer rvalue.
    Deref(Box<TExpr>),
    /// A member at a byte offset of a struct-typed operand (lvalue or struct value).
    Member(Box<TExpr>, u32),
    // ---- rvalues ----
    /// Lvalue-to-rvalue conversion of a scalar lvalue.
    Load(Box<TExpr>),
    /// Address of an lvalue (`&x`, and array-to-pointer decay).
    AddrOf(Box<TExpr>),
    /// Converts the operand's value to the node's type (integer and pointer conversions, or
    /// to `void`: evaluate and discard).
    Conv(Box<TExpr>),
    Neg(Box<TExpr>),
    BitNot(Box<TExpr>),
    /// `!x` on a scalar: 1 if zero.
    LogNot(Box<TExpr>),
    /// Arithmetic in the node's type. For shifts the node's type is the promoted left
    /// operand's; the right operand keeps its own promoted type.
    Arith(ArithOp, Box<TExpr>, Box<TExpr>),
    /// Comparison of two operands of the same type (integer or pointer; pointers compare
    /// unsigned). Result `int` 0/1.
    Cmp(CmpKind, Box<TExpr>, Box<TExpr>),
    /// Pointer plus integer index (an `int`/`unsigned` rvalue) times `elem_size`.
    PtrAdd(Box<TExpr>, Box<TExpr>, u32),
    /// Difference of two pointers divided by `elem_size` (an `int`).
    PtrDiff(Box<TExpr>, Box<TExpr>, u32),
    LogAnd(Box<TExpr>, Box<TExpr>),
    LogOr(Box<TExpr>, Box<TExpr>),
    Cond(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    /// Left evaluated for its effects, then the right's value.
    Comma(Box<TExpr>, Box<TExpr>),
    /// Scalar assignment; the right side is already converted to the left's type. Value:
    /// the stored value.
    Assign(Box<TExpr>, Box<TExpr>),
    /// Struct assignment (copy of `size` bytes); value: the left struct.
    StructAssign(Box<TExpr>, Box<TExpr>),
    /// `lv op= rv`: load `lv`, convert to `op_ty`, combine with `rv` (already of `op_ty`, or
    /// the index for pointers), convert back and store. Value: the stored value.
    CompoundAssign {
        op: CompoundOp,
        lv: Box<TExpr>,
        rv: Box<TExpr>,
        op_ty: QualType,
    },
    /// `++`/`--`: adds `delta` (1, -1, or ± the element size for pointers).
    IncDec {
        lv: Box<TExpr>,
        delta: i32,
        post: bool,
    },
    /// Direct call; arguments already converted (prototype) or promoted.
    Call(FuncId, Vec<TExpr>),
    /// A function designator (only valid as a callee; kept for error recovery).
    FuncName(FuncId),
}

#[derive(Clone, Debug)]
pub struct TExpr {
    pub kind: TKind,
    pub ty: QualType,
    pub span: Span,
}

impl TExpr {
    pub fn is_lvalue(&self) -> bool {
        match &self.kind {
            TKind::Var(_) | TKind::Str(_) | TKind::Deref(_) => true,
            TKind::Member(b, _) => b.is_lvalue(),
            _ => false,
        }
    }
    pub fn as_const(&self) -> Option<i32> {
        match self.kind {
            TKind::Const(v) => Some(v),
            _ => None,
        }
    }
}

/// Where a variable lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VarKind {
    /// Automatic variable of a function.
    Local,
    /// Parameter `index` of its function.
    Param(u32),
    /// File-scope variable or static local; `symbol` is its IR name.
    Global { symbol: String },
}

#[derive(Clone, Debug)]
pub struct VarInfo {
    pub name: String,
    pub ty: QualType,
    pub kind: VarKind,
    pub span: Span,
    /// `&` was applied to it (so it must live in memory).
    pub addr_taken: bool,
    /// File-scope `static` (or static local): not visible to other units.
    pub is_static: bool,
    /// A global with a definition (initialised or tentative); `extern` ones have none.
    pub defined: bool,
    pub used: bool,
}

#[derive(Clone, Debug)]
pub struct FuncInfo {
    pub name: String,
    pub ty: Rc<FuncType>,
    pub span: Span,
    pub defined: bool,
    pub is_static: bool,
    /// Defined with an old-style parameter list: callers pass promoted arguments.
    pub kr: bool,
    pub used: bool,
}

/// A piece of an initialiser, at a byte offset of the object.
#[derive(Clone, Debug)]
pub enum InitItem {
    /// A scalar value of the given (member) type.
    Scalar { offset: u32, expr: TExpr },
    /// Bytes of a string literal initialising a char array (NUL included when it fits).
    Bytes { offset: u32, bytes: Vec<u8> },
    /// A struct copied from a struct-typed expression.
    Struct { offset: u32, expr: TExpr, size: u32 },
}

/// Initialiser of an automatic variable: zero the object first if `zero_fill`.
#[derive(Clone, Debug)]
pub struct LocalInit {
    pub zero_fill: bool,
    pub items: Vec<InitItem>,
}

/// A reference to an object or function address in static data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymRef {
    Var(VarId),
    Str(StrId),
    Func(FuncId),
}

/// Static data of a global variable: bytes and address relocations.
#[derive(Clone, Debug)]
pub struct GlobalData {
    pub var: VarId,
    pub size: u32,
    pub align: u32,
    pub init: Vec<u8>,
    pub relocs: Vec<(u32, SymRef, i32)>,
    pub readonly: bool,
}

/// Statement labels: named labels (goto targets) and the case/default labels of switches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TLabel {
    Named(LabelId),
    Case(CaseId),
}

#[derive(Clone, Debug)]
pub enum TStmt {
    Empty,
    Expr(TExpr),
    /// Declaration of an automatic variable with its initialiser.
    Decl(VarId, Option<LocalInit>),
    Block(Vec<TStmt>),
    If(Vec<(TExpr, TStmt)>, Option<Box<TStmt>>),
    While(TExpr, Box<TStmt>),
    DoWhile(Box<TStmt>, TExpr),
    For(Option<Box<TStmt>>, Option<TExpr>, Option<TExpr>, Box<TStmt>),
    /// `cond` is promoted; `cases` hold values converted to its type.
    Switch {
        cond: TExpr,
        cases: Vec<(i32, CaseId)>,
        default: Option<CaseId>,
        body: Box<TStmt>,
    },
    Labeled(Vec<TLabel>, Box<TStmt>),
    Goto(LabelId),
    Break,
    Continue,
    Return(Option<TExpr>),
}

/// A function definition.
#[derive(Clone, Debug)]
pub struct FuncBody {
    pub func: FuncId,
    pub params: Vec<VarId>,
    pub body: TStmt,
    pub num_labels: u32,
    pub num_cases: u32,
    pub span: Span,
}

/// The checked translation unit.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub types: TypeTable,
    pub vars: Vec<VarInfo>,
    pub funcs: Vec<FuncInfo>,
    /// String literal objects (NUL included), deduplicated.
    pub strings: Vec<Vec<u8>>,
    /// Static data of every defined global and static local, in definition order.
    pub globals: Vec<GlobalData>,
    pub bodies: Vec<FuncBody>,
}
