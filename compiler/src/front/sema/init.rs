//! Initialisers (C99 §6.7.8, without designators): braced lists with brace elision, string
//! literals for character arrays, struct copies, arrays of unknown size completed by their
//! initialiser. The result is a flat list of [`InitItem`]s at byte offsets; static objects
//! turn it into bytes and relocations (address constants), automatic ones into stores.
//!
//! Brace elision: when an aggregate member meets a plain expression, the member's own
//! elements are taken from the same list. Recursion follows the type's nesting and the
//! braces' nesting, both bounded.

use super::consteval::{CVal, NotConst};
use super::Sema;
use crate::front::ast::{self, ExprKind, Initializer};
use crate::front::tast::*;
use crate::front::types::*;

/// Position in a braced list, with the value of the current element once it was checked.
struct Cursor<'i> {
    items: &'i [Initializer],
    pos: usize,
    cached: Option<TExpr>,
}

impl<'i> Cursor<'i> {
    fn done(&self) -> bool {
        self.pos >= self.items.len()
    }
}

fn is_char_kind(t: &Type) -> bool {
    matches!(
        t,
        Type::Int(IntKind::Char | IntKind::SChar | IntKind::UChar)
    )
}

impl Sema<'_> {
    /// The items of an initialiser for an object of type `ty`, and the type completed by
    /// the initialiser (`int a[] = {1, 2}` has type `int [2]`).
    pub(super) fn init_items(
        &mut self,
        ty: &QualType,
        init: &Initializer,
    ) -> Option<(QualType, Vec<InitItem>)> {
        let mut out = Vec::new();
        let n = self.init_object(ty, 0, init, &mut out);
        let ty = match &ty.ty {
            Type::Array(elem, None) => {
                if n == 0 {
                    self.error(init.span(), "zero-size array from an empty initializer");
                    return None;
                }
                let t = Type::Array(elem.clone(), Some(n));
                if self.prog.types.size_of(&t).is_none() {
                    self.error(init.span(), "array is too large");
                    return None;
                }
                QualType { ty: t, cv: ty.cv }
            }
            _ => ty.clone(),
        };
        Some((ty, out))
    }

    /// Initialiser of an automatic variable.
    pub(super) fn local_init(
        &mut self,
        ty: &QualType,
        init: &Initializer,
    ) -> Option<(QualType, LocalInit)> {
        let (ty, items) = self.init_items(ty, init)?;
        let size = self.prog.types.size_of(&ty.ty).unwrap_or(0);
        let covered: u32 = items
            .iter()
            .map(|i| match i {
                InitItem::Scalar { expr, .. } => self.prog.types.size_of(&expr.ty.ty).unwrap_or(0),
                InitItem::Bytes { bytes, .. } => bytes.len() as u32,
                InitItem::Struct { size, .. } => *size,
            })
            .sum();
        Some((
            ty,
            LocalInit {
                zero_fill: covered < size,
                items,
            },
        ))
    }

    /// Initialises the object of type `ty` at `off` from one initialiser. Returns the
    /// number of array elements initialised (for arrays of unknown size).
    fn init_object(
        &mut self,
        ty: &QualType,
        off: u32,
        init: &Initializer,
        out: &mut Vec<InitItem>,
    ) -> u32 {
        match init {
            Initializer::Expr(e) => {
                if let Some(n) = self.string_init(ty, off, e, out) {
                    return n;
                }
                if let Type::Array(..) = ty.ty {
                    self.error(
                        e.span,
                        "array must be initialised with a brace-enclosed list",
                    );
                    return 0;
                }
                let v = self.value_expr(e);
                self.single_item(ty, off, v, out);
                1
            }
            Initializer::List(items, span) => match &ty.ty {
                Type::Array(..) | Type::Struct(_) => {
                    let mut cur = Cursor {
                        items,
                        pos: 0,
                        cached: None,
                    };
                    let n = self.fill_aggregate(ty, off, &mut cur, out);
                    if !cur.done() {
                        self.error(items[cur.pos].span(), "excess elements in initializer");
                    }
                    n
                }
                Type::Error => 0,
                _ => {
                    match items.first() {
                        None => self.error(*span, "empty scalar initializer"),
                        Some(first) => {
                            if items.len() > 1 {
                                self.error(
                                    items[1].span(),
                                    "excess elements in scalar initializer",
                                );
                            }
                            self.init_object(ty, off, first, out);
                        }
                    }
                    1
                }
            },
        }
    }

    /// A character array initialised by a string literal: `Some(length)` if it applies.
    fn string_init(
        &mut self,
        ty: &QualType,
        off: u32,
        e: &ast::Expr,
        out: &mut Vec<InitItem>,
    ) -> Option<u32> {
        let Type::Array(elem, n) = &ty.ty else {
            return None;
        };
        let ExprKind::Str(bytes) = &e.kind else {
            return None;
        };
        if !is_char_kind(&elem.ty) {
            return None;
        }
        let len = bytes.len() as u32;
        let n = match n {
            Some(n) => {
                if len > *n {
                    self.error(
                        e.span,
                        format!("initializer string is too long for `char [{n}]`"),
                    );
                }
                *n
            }
            None => len + 1,
        };
        let mut b = bytes.clone();
        b.push(0);
        b.truncate(n as usize);
        out.push(InitItem::Bytes {
            offset: off,
            bytes: b,
        });
        Some(n)
    }

    fn single_item(&mut self, ty: &QualType, off: u32, v: TExpr, out: &mut Vec<InitItem>) {
        match &ty.ty {
            Type::Error => {}
            Type::Struct(_) => {
                let v = self.assign_convert(v, ty, "initialization");
                if !v.ty.ty.is_error() {
                    let size = self.prog.types.size_of(&ty.ty).unwrap_or(0);
                    out.push(InitItem::Struct {
                        offset: off,
                        expr: v,
                        size,
                    });
                }
            }
            _ => {
                let v = self.assign_convert(v, ty, "initialization");
                out.push(InitItem::Scalar {
                    offset: off,
                    expr: v,
                });
            }
        }
    }

    /// Fills an array or struct from the cursor (brace elision). Returns the number of
    /// array elements filled.
    fn fill_aggregate(
        &mut self,
        ty: &QualType,
        off: u32,
        cur: &mut Cursor<'_>,
        out: &mut Vec<InitItem>,
    ) -> u32 {
        match &ty.ty {
            Type::Array(elem, n) => {
                let esize = self.prog.types.size_of(&elem.ty).unwrap_or(0);
                let mut i = 0u32;
                while !cur.done() && n.is_none_or(|n| i < n) {
                    let before = cur.pos;
                    let elem_off = off.wrapping_add(i.wrapping_mul(esize));
                    self.fill_member(elem, elem_off, cur, out);
                    i += 1;
                    if cur.pos == before {
                        break;
                    }
                }
                i
            }
            Type::Struct(id) => {
                let fields = self.prog.types.get(*id).fields.clone();
                for f in fields {
                    if cur.done() {
                        break;
                    }
                    let fty = f.ty.with_cv(ty.cv);
                    self.fill_member(&fty, off + f.offset, cur, out);
                }
                1
            }
            _ => 0,
        }
    }

    fn fill_member(
        &mut self,
        ty: &QualType,
        off: u32,
        cur: &mut Cursor<'_>,
        out: &mut Vec<InitItem>,
    ) {
        let item = &cur.items[cur.pos];
        let e = match item {
            Initializer::List(..) => {
                cur.pos += 1;
                cur.cached = None;
                self.init_object(ty, off, item, out);
                return;
            }
            Initializer::Expr(e) => e,
        };
        match &ty.ty {
            Type::Array(elem, _)
                if is_char_kind(&elem.ty) && matches!(e.kind, ExprKind::Str(_)) =>
            {
                cur.pos += 1;
                cur.cached = None;
                self.string_init(ty, off, e, out);
            }
            Type::Array(..) => {
                self.fill_aggregate(ty, off, cur, out);
            }
            Type::Struct(id) => {
                let id = *id;
                let v = match cur.cached.take() {
                    Some(v) => v,
                    None => self.value_expr(e),
                };
                if matches!(v.ty.ty, Type::Struct(x) if x == id) {
                    cur.pos += 1;
                    self.single_item(ty, off, v, out);
                } else {
                    cur.cached = Some(v);
                    self.fill_aggregate(ty, off, cur, out);
                }
            }
            _ => {
                let v = match cur.cached.take() {
                    Some(v) => v,
                    None => self.value_expr(e),
                };
                cur.pos += 1;
                self.single_item(ty, off, v, out);
            }
        }
    }

    /// Turns the items of a static object's initialiser into bytes and relocations.
    pub(super) fn static_data(&mut self, items: &[InitItem], data: &mut GlobalData) {
        let mut bytes = vec![0u8; data.size as usize];
        let mut used = 0usize;
        for item in items {
            match item {
                InitItem::Bytes { offset, bytes: b } => {
                    let o = *offset as usize;
                    if o + b.len() <= bytes.len() {
                        bytes[o..o + b.len()].copy_from_slice(b);
                        used = used.max(o + b.len());
                    }
                }
                InitItem::Struct { expr, .. } => {
                    self.error(expr.span, "initializer element is not a constant");
                }
                InitItem::Scalar { offset, expr } => {
                    if expr.ty.ty.is_error() {
                        continue;
                    }
                    let size = self.prog.types.size_of(&expr.ty.ty).unwrap_or(4) as usize;
                    let o = *offset as usize;
                    if o + size > bytes.len() {
                        continue;
                    }
                    match self.eval_const(expr) {
                        Ok(CVal::Int(v)) => {
                            bytes[o..o + size].copy_from_slice(&v.to_le_bytes()[..size]);
                            used = used.max(o + size);
                        }
                        Ok(CVal::Addr(sym, addend)) => {
                            if size != 4 {
                                self.error(
                                    expr.span,
                                    "initializer element is not computable at load time",
                                );
                            } else {
                                data.relocs.push((*offset, sym, addend));
                            }
                        }
                        Err(NotConst::DivZero(span)) => {
                            self.error(span, "division by zero in constant expression");
                        }
                        Err(NotConst::Other(_)) => {
                            self.error(expr.span, "initializer element is not a constant");
                        }
                    }
                }
            }
        }
        // Trailing zero bytes are implicit.
        while used > 0 && bytes[used - 1] == 0 {
            used -= 1;
        }
        bytes.truncate(used);
        data.init = bytes;
    }
}
