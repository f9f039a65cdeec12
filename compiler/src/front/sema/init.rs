//! Initialisers (C99 §6.7.8): braced lists with brace elision and designators, string
//! literals for character arrays, struct copies, unions (the first member, or the designated
//! one), arrays of unknown size completed by their initialiser (the largest index
//! initialised). The result is a flat list of [`InitItem`]s at byte offsets, in list order
//! (a later item overwrites an earlier one it overlaps, §6.7.8p19); static objects turn it
//! into bytes and relocations (address constants), automatic ones into stores.
//!
//! Brace elision: when an aggregate member meets a plain expression, the member's own
//! elements are taken from the same list. Recursion follows the type's nesting and the
//! braces' nesting, both bounded.
//!
//! Designators (§6.7.8p17-20): a designation `[i].m = x` belongs to the braced list it
//! appears in. The aggregate that owns that list resolves its first designator and moves its
//! position there; each further designator is resolved by the sub-aggregate it names, which
//! then goes on filling its following members from the list (as GCC does) until it ends or
//! meets a fresh designation. A fresh designation met while filling a sub-aggregate by brace
//! elision ends that elision, handing the designation back to the list's owner.

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
    /// Designators of the current item already resolved.
    applied: usize,
}

impl<'i> Cursor<'i> {
    fn new(items: &'i [Initializer]) -> Self {
        Cursor {
            items,
            pos: 0,
            cached: None,
            applied: 0,
        }
    }

    fn done(&self) -> bool {
        self.pos >= self.items.len()
    }

    /// The current item, its designators stripped once all are resolved.
    fn item(&self) -> &'i Initializer {
        match &self.items[self.pos] {
            Initializer::Designated(ds, inner, _) if self.applied >= ds.len() => inner,
            it => it,
        }
    }

    /// The next designator of the current item still to resolve, and whether it is the
    /// item's first (a fresh designation, owned by the list's aggregate).
    fn pending(&self) -> Option<(&'i ast::Designator, bool)> {
        match self.items.get(self.pos)? {
            Initializer::Designated(ds, _, _) => {
                ds.get(self.applied).map(|d| (d, self.applied == 0))
            }
            _ => None,
        }
    }

    fn advance(&mut self) {
        self.pos += 1;
        self.cached = None;
        self.applied = 0;
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
        // Bytes covered by the items, overlaps (designators) counted once: O(n log n).
        let mut spans: Vec<(u32, u32)> = items
            .iter()
            .map(|i| match i {
                InitItem::Scalar { offset, expr } => {
                    (*offset, self.prog.types.size_of(&expr.ty.ty).unwrap_or(0))
                }
                InitItem::Bytes { offset, bytes } => (*offset, bytes.len() as u32),
                InitItem::Struct { offset, size, .. } => (*offset, *size),
            })
            .collect();
        spans.sort_unstable();
        let (mut covered, mut end) = (0u64, 0u64);
        for (o, n) in spans {
            let (o, e) = (u64::from(o), u64::from(o) + u64::from(n));
            if e > end {
                covered += e - o.max(end);
                end = e;
            }
        }
        Some((
            ty,
            LocalInit {
                zero_fill: covered < u64::from(size),
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
            Initializer::Designated(_, _, span) => {
                self.error(*span, "designator outside a braced initializer list");
                0
            }
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
                    let mut cur = Cursor::new(items);
                    let n = self.fill_aggregate(ty, off, &mut cur, out, true);
                    if !cur.done() {
                        self.error(items[cur.pos].span(), "excess elements in initializer");
                    }
                    n
                }
                Type::Error => 0,
                _ => {
                    if let Some(d) = items
                        .iter()
                        .find(|i| matches!(i, Initializer::Designated(..)))
                    {
                        self.error(d.span(), "designator in the initializer of a scalar");
                        return 1;
                    }
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

    /// Fills an array or struct from the cursor. `owner`: the cursor's list is this
    /// aggregate's own braced list (it resolves fresh designations); otherwise it is filled by
    /// brace elision or continues after a designator. Returns the number of array elements
    /// (one more than the largest index filled).
    fn fill_aggregate(
        &mut self,
        ty: &QualType,
        off: u32,
        cur: &mut Cursor<'_>,
        out: &mut Vec<InitItem>,
        owner: bool,
    ) -> u32 {
        match &ty.ty {
            Type::Array(elem, n) => {
                let esize = self.prog.types.size_of(&elem.ty).unwrap_or(0);
                let mut i = 0u32;
                let mut count = 0u32;
                loop {
                    if cur.done() {
                        break;
                    }
                    if let Some((d, fresh)) = cur.pending() {
                        if fresh && !owner {
                            break;
                        }
                        match self.array_designator(d, *n) {
                            Some(k) => i = k,
                            None => {
                                cur.advance();
                                continue;
                            }
                        }
                        cur.applied += 1;
                    } else if n.is_some_and(|n| i >= n) {
                        break;
                    }
                    let before = (cur.pos, cur.applied);
                    let elem_off = off.wrapping_add(i.wrapping_mul(esize));
                    self.fill_member(elem, elem_off, cur, out);
                    i += 1;
                    count = count.max(i);
                    if (cur.pos, cur.applied) == before {
                        break;
                    }
                }
                count
            }
            Type::Struct(id) => {
                let def = self.prog.types.get(*id);
                let (fields, is_union) = (def.fields.clone(), def.is_union);
                let mut k = 0usize;
                loop {
                    if cur.done() {
                        break;
                    }
                    if let Some((d, fresh)) = cur.pending() {
                        if fresh && !owner {
                            break;
                        }
                        match self.member_designator(d, *id, &fields) {
                            Some(j) => k = j,
                            None => {
                                cur.advance();
                                continue;
                            }
                        }
                        cur.applied += 1;
                    } else if k >= fields.len() || (is_union && k > 0) {
                        // A union takes one initialiser, for its first member (§6.7.8p17)
                        // unless designated.
                        break;
                    }
                    let f = &fields[k];
                    let fty = f.ty.clone().with_cv(ty.cv);
                    self.fill_member(&fty, off + f.offset, cur, out);
                    k = if is_union { fields.len() } else { k + 1 };
                }
                1
            }
            _ => 0,
        }
    }

    /// The index an array designator names, or `None` after reporting why not.
    fn array_designator(&mut self, d: &ast::Designator, n: Option<u32>) -> Option<u32> {
        let ast::Designator::Index(e) = d else {
            let ast::Designator::Member(_, span) = d else {
                return None;
            };
            self.error(*span, "member designator in the initializer of an array");
            return None;
        };
        let v = self.value_expr(e);
        if v.ty.ty.is_error() {
            return None;
        }
        let k = match self.eval_const(&v) {
            Ok(CVal::Int(k)) => k,
            _ => {
                self.error(
                    e.span,
                    "array designator is not an integer constant expression",
                );
                return None;
            }
        };
        if k < 0 || n.is_some_and(|n| k as u32 >= n) || k >= 1 << 24 {
            self.error(
                e.span,
                format!("array designator index {k} is out of bounds"),
            );
            return None;
        }
        Some(k as u32)
    }

    /// The field a member designator names, or `None` after reporting why not.
    fn member_designator(
        &mut self,
        d: &ast::Designator,
        id: StructId,
        fields: &[Field],
    ) -> Option<usize> {
        match d {
            ast::Designator::Member(m, span) => {
                let k = fields.iter().position(|f| f.name == *m);
                if k.is_none() && !self.prog.types.get(id).rejected.contains(m) {
                    let msg = format!(
                        "no member named `{}` in `{}`",
                        self.name(*m),
                        self.show(&QualType::new(Type::Struct(id)))
                    );
                    self.error(*span, msg);
                }
                k
            }
            ast::Designator::Index(e) => {
                self.error(
                    e.span,
                    "array designator in the initializer of a struct or union",
                );
                None
            }
        }
    }

    fn fill_member(
        &mut self,
        ty: &QualType,
        off: u32,
        cur: &mut Cursor<'_>,
        out: &mut Vec<InitItem>,
    ) {
        if cur.pending().is_some() {
            // More designators: they name a member of this sub-object.
            if matches!(ty.ty, Type::Array(..) | Type::Struct(_)) {
                self.fill_aggregate(ty, off, cur, out, false);
            } else {
                let span = cur.items[cur.pos].span();
                self.error(span, "designator for a member of a scalar");
                cur.advance();
            }
            return;
        }
        let item = cur.item();
        let e = match item {
            Initializer::List(..) => {
                cur.advance();
                self.init_object(ty, off, item, out);
                return;
            }
            Initializer::Designated(..) => {
                // A fresh designation met by an elided member: its list's owner resolves it.
                return;
            }
            Initializer::Expr(e) => e,
        };
        match &ty.ty {
            Type::Array(elem, _)
                if is_char_kind(&elem.ty) && matches!(e.kind, ExprKind::Str(_)) =>
            {
                cur.advance();
                self.string_init(ty, off, e, out);
            }
            Type::Array(..) => {
                self.fill_aggregate(ty, off, cur, out, false);
            }
            Type::Struct(id) => {
                let id = *id;
                let v = match cur.cached.take() {
                    Some(v) => v,
                    None => self.value_expr(e),
                };
                if matches!(v.ty.ty, Type::Struct(x) if x == id) {
                    cur.advance();
                    self.single_item(ty, off, v, out);
                } else {
                    cur.cached = Some(v);
                    self.fill_aggregate(ty, off, cur, out, false);
                }
            }
            _ => {
                let v = match cur.cached.take() {
                    Some(v) => v,
                    None => self.value_expr(e),
                };
                cur.advance();
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
