//! Syntax tree of a C translation unit as parsed (before any type checking).
//!
//! Declarators keep C's inside-out structure flattened into a list of derivations read from
//! the identifier outwards ([`Declarator::derived`]): `int *a[3]` gives `[Array(3),
//! Pointer]` ("a is an array of 3 pointers to int"). Labels are stored with the statement
//! they label, and `else if` chains as one statement with several arms, so neither makes the
//! tree deeper than the source's real nesting. The parser bounds that nesting
//! ([`crate::front::parser::MAX_DEPTH`]), which bounds every recursion over the tree.

use super::ctoken::Kw;
use super::diag::Span;
use super::lexer::Sym;
use super::literals::IntLit;

/// `const` / `volatile` qualifiers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cv {
    pub is_const: bool,
    pub is_volatile: bool,
}

impl Cv {
    pub const NONE: Cv = Cv {
        is_const: false,
        is_volatile: false,
    };
    pub fn union(self, o: Cv) -> Cv {
        Cv {
            is_const: self.is_const || o.is_const,
            is_volatile: self.is_volatile || o.is_volatile,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    Typedef,
    Extern,
    Static,
    Auto,
    Register,
}

/// The base type named by the type specifiers of a declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum BaseType {
    Void,
    /// An integer type (resolved from the specifier keywords).
    Int(IntSpec),
    Struct(Box<StructSpec>),
    Enum(Box<EnumSpec>),
    /// A typedef name.
    Named(Sym, Span),
    /// Something outside the subset, already reported by the parser.
    Error,
}

/// The C integer types of the subset (plain `char` is separate from `signed char`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntSpec {
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructSpec {
    /// `union` rather than `struct`.
    pub is_union: bool,
    pub tag: Option<(Sym, Span)>,
    /// `None` for a reference (`struct s`), `Some` for a definition.
    pub members: Option<Vec<MemberDecl>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct MemberDecl {
    pub specs: DeclSpecs,
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumSpec {
    pub tag: Option<(Sym, Span)>,
    pub enumerators: Option<Vec<Enumerator>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Enumerator {
    pub name: Sym,
    pub span: Span,
    pub value: Option<Expr>,
}

/// Declaration specifiers: storage class, qualifiers and the base type.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclSpecs {
    pub storage: Option<(Storage, Span)>,
    pub cv: Cv,
    pub base: BaseType,
    /// True when no type specifier was written (implicit int, C89).
    pub implicit_int: bool,
    pub span: Span,
}

/// One step of a declarator, from the identifier outwards.
#[derive(Clone, Debug, PartialEq)]
pub enum Derived {
    Pointer(Cv),
    Array(Option<Box<Expr>>, Span),
    Function(FuncDeclarator),
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDeclarator {
    /// Prototype parameters (empty for `()` and `(void)`).
    pub params: Vec<ParamDecl>,
    /// `(void)` or a non-empty parameter type list: a prototype.
    pub prototype: bool,
    pub variadic: bool,
    /// Old-style identifier list `f(a, b)`.
    pub kr_names: Vec<(Sym, Span)>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    pub specs: DeclSpecs,
    pub declarator: Declarator,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    /// The declared name (`None` in abstract declarators).
    pub name: Option<(Sym, Span)>,
    pub derived: Vec<Derived>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    List(Vec<Initializer>, Span),
    /// `designator... = initializer` inside a braced list (C99 §6.7.8p1).
    Designated(Vec<Designator>, Box<Initializer>, Span),
}

/// One designator: `[constant-expression]` or `.member`.
#[derive(Clone, Debug, PartialEq)]
pub enum Designator {
    Index(Expr),
    Member(Sym, Span),
}

impl Initializer {
    pub fn span(&self) -> Span {
        match self {
            Initializer::Expr(e) => e.span,
            Initializer::List(_, s) | Initializer::Designated(_, _, s) => *s,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct InitDeclarator {
    pub declarator: Declarator,
    pub init: Option<Initializer>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    pub specs: DeclSpecs,
    pub declarators: Vec<InitDeclarator>,
    pub span: Span,
}

/// A type name (in casts and `sizeof`).
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    pub specs: DeclSpecs,
    pub declarator: Declarator,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Plus,
    Neg,
    BitNot,
    LogNot,
    Deref,
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    LogAnd,
    LogOr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(IntLit),
    Char(i32),
    /// Adjacent string literals, already concatenated.
    Str(Vec<u8>),
    Ident(Sym),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
    /// `a = b` (op `None`) or `a op= b`.
    Assign(Option<BinaryOp>, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Comma(Box<Expr>, Box<Expr>),
    Call(Box<Expr>, Vec<Expr>),
    Index(Box<Expr>, Box<Expr>),
    /// `a.m` (`arrow` false) or `p->m`.
    Member(Box<Expr>, Sym, Span, bool),
    Cast(Box<TypeName>, Box<Expr>),
    SizeofType(Box<TypeName>),
    SizeofExpr(Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// A label in front of a statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Label {
    Named(Sym, Span),
    Case(Expr, Span),
    Default(Span),
}

#[derive(Clone, Debug, PartialEq)]
pub enum ForInit {
    None,
    Expr(Expr),
    Decl(Declaration),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Empty,
    Expr(Expr),
    Decl(Declaration),
    Compound(Vec<Stmt>),
    /// `if (c1) s1 else if (c2) s2 … else s`.
    If(Vec<(Expr, Stmt)>, Option<Box<Stmt>>),
    While(Expr, Box<Stmt>),
    DoWhile(Box<Stmt>, Expr),
    For(Box<ForInit>, Option<Expr>, Option<Expr>, Box<Stmt>),
    Switch(Expr, Box<Stmt>),
    Goto(Sym, Span),
    Break,
    Continue,
    Return(Option<Expr>),
    /// Labels followed by the statement they label.
    Labeled(Vec<Label>, Box<Stmt>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    pub specs: DeclSpecs,
    pub declarator: Declarator,
    /// Declarations of an old-style (K&R) parameter list.
    pub kr_decls: Vec<Declaration>,
    pub body: Stmt,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExternalDecl {
    Func(Box<FuncDef>),
    Decl(Declaration),
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct TranslationUnit {
    pub items: Vec<ExternalDecl>,
}

/// Keywords that may start a declaration (besides typedef names).
pub fn starts_declaration(k: Kw) -> bool {
    matches!(
        k,
        Kw::Auto
            | Kw::Char
            | Kw::Const
            | Kw::Double
            | Kw::Enum
            | Kw::Extern
            | Kw::Float
            | Kw::Inline
            | Kw::Int
            | Kw::Long
            | Kw::Register
            | Kw::Restrict
            | Kw::Short
            | Kw::Signed
            | Kw::Static
            | Kw::Struct
            | Kw::Typedef
            | Kw::Union
            | Kw::Unsigned
            | Kw::Void
            | Kw::Volatile
            | Kw::Bool
            | Kw::Complex
            | Kw::Attribute
            | Kw::Extension
            | Kw::Typeof
            | Kw::VaList
    )
}
