//! C types of the subset and their ILP32 layout (char 8, short 16, int/long/pointer 32
//! bits, plain `char` signed, little-endian), with integer promotions and the usual
//! arithmetic conversions (C99 §6.3.1).
//!
//! Types are small trees shared through `Rc`: a chain of pointer/array derivations ending in
//! an integer, `void`, a struct or a function. Structs live in a [`TypeTable`] and are named
//! by index, which allows self-referential structs (`struct node *next`). Enumerated types
//! are represented by the integer type gcc gives them (`unsigned int` if no enumerator is
//! negative, else `int`), so they behave exactly as under the host compiler. Sema bounds the
//! length of derivation chains, which bounds every recursion here.

use super::ast::Cv;
use super::diag::Span;
use super::lexer::{Interner, Sym};
use crate::ir::MemTy;
use std::rc::Rc;

/// Maximum length of a chain of pointer/array derivations.
pub const MAX_TYPE_DEPTH: usize = 512;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntKind {
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

impl IntKind {
    pub fn size(self) -> u32 {
        match self {
            IntKind::Char | IntKind::SChar | IntKind::UChar => 1,
            IntKind::Short | IntKind::UShort => 2,
            _ => 4,
        }
    }

    pub fn signed(self) -> bool {
        matches!(
            self,
            IntKind::Char | IntKind::SChar | IntKind::Short | IntKind::Int | IntKind::Long
        )
    }

    /// Conversion rank (C99 §6.3.1.1).
    pub fn rank(self) -> u8 {
        match self {
            IntKind::Char | IntKind::SChar | IntKind::UChar => 1,
            IntKind::Short | IntKind::UShort => 2,
            IntKind::Int | IntKind::UInt => 3,
            IntKind::Long | IntKind::ULong => 4,
        }
    }

    /// Integer promotion: every type narrower than `int` fits in `int`.
    pub fn promote(self) -> IntKind {
        if self.rank() < 3 {
            IntKind::Int
        } else {
            self
        }
    }

    pub fn to_unsigned(self) -> IntKind {
        match self {
            IntKind::Char | IntKind::SChar | IntKind::UChar => IntKind::UChar,
            IntKind::Short | IntKind::UShort => IntKind::UShort,
            IntKind::Int | IntKind::UInt => IntKind::UInt,
            IntKind::Long | IntKind::ULong => IntKind::ULong,
        }
    }

    /// Memory access width and extension of a value of this type.
    pub fn mem_ty(self) -> MemTy {
        match (self.size(), self.signed()) {
            (1, true) => MemTy::I8,
            (1, false) => MemTy::U8,
            (2, true) => MemTy::I16,
            (2, false) => MemTy::U16,
            _ => MemTy::I32,
        }
    }

    /// Converts a 32-bit pattern to this type's value (truncation then sign/zero extension),
    /// as a 32-bit register holds it.
    pub fn wrap(self, v: i32) -> i32 {
        match self.mem_ty() {
            MemTy::I8 => v as i8 as i32,
            MemTy::U8 => v as u8 as i32,
            MemTy::I16 => v as i16 as i32,
            MemTy::U16 => v as u16 as i32,
            MemTy::I32 => v,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IntKind::Char => "char",
            IntKind::SChar => "signed char",
            IntKind::UChar => "unsigned char",
            IntKind::Short => "short",
            IntKind::UShort => "unsigned short",
            IntKind::Int => "int",
            IntKind::UInt => "unsigned int",
            IntKind::Long => "long",
            IntKind::ULong => "unsigned long",
        }
    }
}

/// The usual arithmetic conversions on two promoted integer types (C99 §6.3.1.8) for ILP32:
/// `long` cannot hold every `unsigned int`, so `long` with `unsigned int` is `unsigned long`.
pub fn usual_arith(a: IntKind, b: IntKind) -> IntKind {
    let (a, b) = (a.promote(), b.promote());
    if a == b {
        return a;
    }
    if a.signed() == b.signed() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (s, u) = if a.signed() { (a, b) } else { (b, a) };
    if u.rank() >= s.rank() {
        u
    } else if s.size() > u.size() {
        s
    } else {
        s.to_unsigned()
    }
}

pub type StructId = u32;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    Void,
    Int(IntKind),
    Ptr(Rc<QualType>),
    /// Element type and length (`None`: incomplete, `int a[]`).
    Array(Rc<QualType>, Option<u32>),
    Func(Rc<FuncType>),
    Struct(StructId),
    /// The type of an erroneous expression: accepted everywhere, to avoid cascades.
    Error,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QualType {
    pub ty: Type,
    pub cv: Cv,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FuncType {
    pub ret: QualType,
    pub params: Vec<QualType>,
    /// Declared with a parameter type list (`(void)` included).
    pub prototype: bool,
    pub variadic: bool,
}

impl QualType {
    pub fn new(ty: Type) -> QualType {
        QualType { ty, cv: Cv::NONE }
    }
    pub fn int(k: IntKind) -> QualType {
        QualType::new(Type::Int(k))
    }
    pub fn with_cv(mut self, cv: Cv) -> QualType {
        self.cv = self.cv.union(cv);
        self
    }
    pub fn unqual(&self) -> QualType {
        QualType::new(self.ty.clone())
    }
    pub fn error() -> QualType {
        QualType::new(Type::Error)
    }
}

impl Type {
    pub fn ptr_to(t: QualType) -> Type {
        Type::Ptr(Rc::new(t))
    }
    pub fn is_int(&self) -> bool {
        matches!(self, Type::Int(_))
    }
    pub fn is_ptr(&self) -> bool {
        matches!(self, Type::Ptr(_))
    }
    pub fn is_scalar(&self) -> bool {
        matches!(self, Type::Int(_) | Type::Ptr(_))
    }
    pub fn is_error(&self) -> bool {
        matches!(self, Type::Error)
    }
    pub fn is_void(&self) -> bool {
        matches!(self, Type::Void)
    }
    pub fn int_kind(&self) -> Option<IntKind> {
        match self {
            Type::Int(k) => Some(*k),
            _ => None,
        }
    }
    pub fn pointee(&self) -> Option<&QualType> {
        match self {
            Type::Ptr(p) => Some(p),
            _ => None,
        }
    }
    /// Pointers and `int`-sized integers are unsigned/signed 32-bit values; this is the
    /// signedness used for comparisons and shifts.
    pub fn is_signed(&self) -> bool {
        matches!(self, Type::Int(k) if k.signed())
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: Sym,
    pub ty: QualType,
    pub offset: u32,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct StructDef {
    pub tag: Option<Sym>,
    pub fields: Vec<Field>,
    pub size: u32,
    pub align: u32,
    pub complete: bool,
    pub span: Span,
    /// Members whose declaration was rejected (already diagnosed): a later use of one of
    /// these names reports nothing more.
    pub rejected: Vec<Sym>,
    /// A union: every member at offset 0, size the largest member's, rounded to the
    /// alignment (C99 §6.7.2.1p14).
    pub is_union: bool,
}

/// All struct types of a translation unit.
#[derive(Clone, Debug, Default)]
pub struct TypeTable {
    pub structs: Vec<StructDef>,
}

impl TypeTable {
    pub fn new_struct(&mut self, tag: Option<Sym>, span: Span) -> StructId {
        self.structs.push(StructDef {
            tag,
            fields: Vec::new(),
            size: 0,
            align: 1,
            complete: false,
            span,
            rejected: Vec::new(),
            is_union: false,
        });
        self.structs.len() as StructId - 1
    }

    pub fn get(&self, id: StructId) -> &StructDef {
        &self.structs[id as usize]
    }

    /// Lays out the fields in order with natural alignment and completes the struct.
    /// Returns false if the struct is too large for the 32-bit address space.
    pub fn complete(&mut self, id: StructId, fields: Vec<(Sym, QualType, Span)>) -> bool {
        let mut offset: u64 = 0;
        let mut align = 1u32;
        let mut out = Vec::with_capacity(fields.len());
        let is_union = self.structs[id as usize].is_union;
        let mut end: u64 = 0;
        for (name, ty, span) in fields {
            let a = self.align_of(&ty.ty);
            let s = self.size_of(&ty.ty).unwrap_or(0);
            if is_union {
                offset = 0;
            }
            offset = offset.div_ceil(a as u64) * a as u64;
            out.push(Field {
                name,
                ty,
                offset: offset as u32,
                span,
            });
            offset += s as u64;
            end = end.max(offset);
            align = align.max(a);
        }
        let offset = end;
        let size = offset.div_ceil(align as u64) * align as u64;
        let s = &mut self.structs[id as usize];
        s.fields = out;
        s.align = align;
        s.size = size.min(u32::MAX as u64) as u32;
        s.complete = true;
        size <= i32::MAX as u64
    }

    /// Size in bytes of a complete object type; `None` for void, functions, incomplete types.
    pub fn size_of(&self, t: &Type) -> Option<u32> {
        match t {
            Type::Int(k) => Some(k.size()),
            Type::Ptr(_) => Some(4),
            Type::Array(e, Some(n)) => {
                let s = self.size_of(&e.ty)? as u64 * *n as u64;
                (s <= i32::MAX as u64).then_some(s as u32)
            }
            Type::Struct(id) => {
                let s = self.get(*id);
                s.complete.then_some(s.size)
            }
            Type::Error => Some(4),
            Type::Void | Type::Func(_) | Type::Array(_, None) => None,
        }
    }

    pub fn align_of(&self, t: &Type) -> u32 {
        match t {
            Type::Int(k) => k.size(),
            Type::Array(e, _) => self.align_of(&e.ty),
            Type::Struct(id) => self.get(*id).align,
            _ => 4,
        }
    }

    /// The alignment of a static-storage object (global or `static` local) of type `t`:
    /// GCC's i386 rule at `-O1` and above (`ix86_data_alignment`, observed with `gcc -m32
    /// -O1 -S`): an array or struct of 32 bytes or more is aligned to 32 bytes, one of 4 bytes
    /// or more to at least 4; scalars and smaller aggregates keep their type's alignment.
    /// The type's own alignment (`sizeof`, struct layout, `_Alignof`) does not change. A
    /// program that carves words out of a static `char` array relies on this.
    pub fn data_align_of(&self, t: &Type) -> u32 {
        self.object_align(t, 32, 32)
    }

    /// The alignment of an automatic object of type `t`: GCC's i386 rule
    /// (`ix86_local_alignment`: an aggregate of 16 bytes or more to 16, one of 4 bytes or
    /// more to at least 4), with 16 capped at the targets' stack alignment, 8 bytes
    /// (`STACK_ALIGN`, isa.md §A6/§B5): the frame cannot promise more.
    pub fn stack_align_of(&self, t: &Type) -> u32 {
        self.object_align(t, 16, 8)
    }

    /// `align_of(t)`, raised for an aggregate to `big_align` from `big_size` bytes and to 4
    /// from 4 bytes.
    fn object_align(&self, t: &Type, big_size: u32, big_align: u32) -> u32 {
        let a = self.align_of(t);
        if !matches!(t, Type::Array(..) | Type::Struct(_)) {
            return a;
        }
        match self.size_of(t).unwrap_or(0) {
            s if s >= big_size => a.max(big_align),
            s if s >= 4 => a.max(4),
            _ => a,
        }
    }

    pub fn is_complete(&self, t: &Type) -> bool {
        self.size_of(t).is_some()
    }

    pub fn field(&self, id: StructId, name: Sym) -> Option<&Field> {
        self.get(id).fields.iter().find(|f| f.name == name)
    }

    /// Compatible types (C99 §6.2.7), ignoring top-level qualifiers of `a` and `b`.
    pub fn compatible(&self, a: &Type, b: &Type) -> bool {
        match (a, b) {
            (Type::Error, _) | (_, Type::Error) => true,
            (Type::Void, Type::Void) => true,
            (Type::Int(x), Type::Int(y)) => x == y,
            (Type::Ptr(x), Type::Ptr(y)) => x.cv == y.cv && self.compatible(&x.ty, &y.ty),
            (Type::Array(x, n), Type::Array(y, m)) => {
                (n.is_none() || m.is_none() || n == m)
                    && x.cv == y.cv
                    && self.compatible(&x.ty, &y.ty)
            }
            (Type::Struct(x), Type::Struct(y)) => x == y,
            (Type::Func(f), Type::Func(g)) => {
                if !self.compatible(&f.ret.ty, &g.ret.ty) {
                    return false;
                }
                if f.prototype && g.prototype {
                    f.variadic == g.variadic
                        && f.params.len() == g.params.len()
                        && f.params
                            .iter()
                            .zip(&g.params)
                            .all(|(p, q)| self.compatible(&p.ty, &q.ty))
                } else {
                    true
                }
            }
            _ => false,
        }
    }

    /// A readable spelling of a type for messages (`int *`, `struct s [3]`, …).
    pub fn display(&self, t: &QualType, interner: &Interner) -> String {
        let mut prefix = String::new();
        if t.cv.is_const {
            prefix += "const ";
        }
        if t.cv.is_volatile {
            prefix += "volatile ";
        }
        match &t.ty {
            Type::Void => prefix + "void",
            Type::Int(k) => prefix + k.name(),
            Type::Error => "<error>".into(),
            Type::Struct(id) => match self.get(*id).tag {
                Some(t) => {
                    let kind = if self.get(*id).is_union {
                        "union"
                    } else {
                        "struct"
                    };
                    format!("{prefix}{kind} {}", interner.get(t))
                }
                None if self.get(*id).is_union => format!("{prefix}union <anonymous>"),
                None => format!("{prefix}struct <anonymous>"),
            },
            Type::Ptr(p) => {
                let inner = self.display(p, interner);
                let mut s = format!("{inner} *");
                if t.cv.is_const {
                    s += " const";
                }
                s
            }
            Type::Array(e, n) => {
                let inner = self.display(e, interner);
                match n {
                    Some(n) => format!("{inner} [{n}]"),
                    None => format!("{inner} []"),
                }
            }
            Type::Func(f) => {
                let params: Vec<String> =
                    f.params.iter().map(|p| self.display(p, interner)).collect();
                format!("{} ({})", self.display(&f.ret, interner), params.join(", "))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use IntKind::*;

    #[test]
    fn promotions_and_conversions() {
        assert_eq!(Char.promote(), Int);
        assert_eq!(UShort.promote(), Int);
        assert_eq!(UInt.promote(), UInt);
        assert_eq!(usual_arith(Short, Short), Int);
        assert_eq!(usual_arith(Int, UInt), UInt);
        assert_eq!(usual_arith(Int, Long), Long);
        assert_eq!(usual_arith(UInt, Long), ULong);
        assert_eq!(usual_arith(Long, ULong), ULong);
        assert_eq!(usual_arith(UChar, Char), Int);
        assert_eq!(usual_arith(UShort, UInt), UInt);
    }

    #[test]
    fn wrapping() {
        assert_eq!(Char.wrap(200), -56);
        assert_eq!(UChar.wrap(-1), 255);
        assert_eq!(Short.wrap(40000), -25536);
        assert_eq!(UShort.wrap(-1), 65535);
        assert_eq!(UInt.wrap(-1), -1);
    }

    #[test]
    fn struct_layout() {
        let mut t = TypeTable::default();
        let s = t.new_struct(None, Span::NONE);
        let f = |n: u32, k: IntKind| (Sym(n), QualType::int(k), Span::NONE);
        // struct { char a; int b; short c; char d[3]; } -> offsets 0, 4, 8, 10; size 16.
        let arr = (
            Sym(3),
            QualType::new(Type::Array(Rc::new(QualType::int(Char)), Some(3))),
            Span::NONE,
        );
        assert!(t.complete(s, vec![f(0, Char), f(1, Int), f(2, Short), arr]));
        let d = t.get(s);
        let offs: Vec<u32> = d.fields.iter().map(|f| f.offset).collect();
        assert_eq!(offs, [0, 4, 8, 10]);
        assert_eq!((d.size, d.align), (16, 4));
        // struct { short a; char b; } -> size 4, align 2; an array of 3 of them is 12 bytes.
        let s2 = t.new_struct(None, Span::NONE);
        t.complete(s2, vec![f(0, Short), f(1, Char)]);
        assert_eq!((t.get(s2).size, t.get(s2).align), (4, 2));
        let a = Type::Array(Rc::new(QualType::new(Type::Struct(s2))), Some(3));
        assert_eq!(t.size_of(&a), Some(12));
        assert_eq!(t.align_of(&a), 2);
        // Nested struct keeps the inner alignment.
        let s3 = t.new_struct(None, Span::NONE);
        t.complete(
            s3,
            vec![
                f(0, Char),
                (Sym(1), QualType::new(Type::Struct(s)), Span::NONE),
            ],
        );
        assert_eq!(t.get(s3).fields[1].offset, 4);
        assert_eq!(t.get(s3).size, 20);
    }
}
