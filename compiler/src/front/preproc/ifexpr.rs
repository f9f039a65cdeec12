//! Evaluation of `#if` / `#elif` controlling expressions (C99 §6.10.1).
//!
//! After macro expansion (with `defined` handled during expansion), the line is an integer
//! constant expression in which every remaining identifier counts as 0. Arithmetic is done
//! in `intmax_t`/`uintmax_t`, which are 64 bits with gcc on the host; ssalab follows gcc so
//! that the same `#if` chooses the same branch under both compilers. The usual arithmetic
//! conversions apply (an unsigned operand makes the operation unsigned), `&&`, `||` and `?:`
//! do not evaluate the operand they skip (so `0 && 1/0` is fine), and division by zero in an
//! evaluated operand is an error. Nesting is capped at [`MAX_IF_DEPTH`].

use super::{Preprocessor, TokKind, Token};
use crate::front::literals::{decode_char, parse_int};

/// Maximum nesting of parentheses and unary operators in an `#if` expression.
pub const MAX_IF_DEPTH: usize = 256;

/// A value of the preprocessor's arithmetic: 64 bits, signed or unsigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct V {
    v: u64,
    unsigned: bool,
}

impl V {
    fn int(v: i64) -> V {
        V {
            v: v as u64,
            unsigned: false,
        }
    }
    fn truth(self) -> bool {
        self.v != 0
    }
}

struct IfParser<'p, 'a> {
    pp: &'p mut Preprocessor<'a>,
    toks: &'p [Token],
    pos: usize,
    depth: usize,
}

/// Binary operators with their precedence (higher binds tighter).
fn binary_prec(s: &str) -> Option<u8> {
    Some(match s {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl IfParser<'_, '_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn peek_punct(&self) -> Option<&str> {
        match self.peek() {
            Some(t) if t.kind == TokKind::Punct => Some(self.pp.spelling(t)),
            _ => None,
        }
    }

    fn fail<T>(&mut self, msg: impl Into<String>) -> Result<T, ()> {
        let span = match self.peek() {
            Some(t) => t.span,
            None => self.toks.last().map(|t| t.span).unwrap_or_default(),
        };
        self.pp.diags.error(span, msg);
        Err(())
    }

    fn expr(&mut self, live: bool) -> Result<V, ()> {
        let mut v = self.cond(live)?;
        while self.peek_punct() == Some(",") {
            self.pos += 1;
            v = self.cond(live)?;
        }
        Ok(v)
    }

    fn cond(&mut self, live: bool) -> Result<V, ()> {
        let c = self.binary(1, live)?;
        if self.peek_punct() != Some("?") {
            return Ok(c);
        }
        self.pos += 1;
        self.enter()?;
        let a = self.expr(live && c.truth())?;
        if self.peek_punct() != Some(":") {
            return self.fail("expected ':' in preprocessor expression");
        }
        self.pos += 1;
        let b = self.cond(live && !c.truth())?;
        self.depth -= 1;
        let unsigned = a.unsigned || b.unsigned;
        let r = if c.truth() { a } else { b };
        Ok(V { v: r.v, unsigned })
    }

    fn enter(&mut self) -> Result<(), ()> {
        self.depth += 1;
        if self.depth > MAX_IF_DEPTH {
            return self.fail(format!(
                "preprocessor expression nested too deeply (more than {MAX_IF_DEPTH} levels)"
            ));
        }
        Ok(())
    }

    fn binary(&mut self, min_prec: u8, live: bool) -> Result<V, ()> {
        let mut lhs = self.unary(live)?;
        loop {
            let Some(op) = self.peek_punct().map(str::to_string) else {
                return Ok(lhs);
            };
            let Some(prec) = binary_prec(&op) else {
                return Ok(lhs);
            };
            if prec < min_prec {
                return Ok(lhs);
            }
            let op_tok = self.pos;
            self.pos += 1;
            let rhs_live = match op.as_str() {
                "&&" => live && lhs.truth(),
                "||" => live && !lhs.truth(),
                _ => live,
            };
            let rhs = self.binary(prec + 1, rhs_live)?;
            lhs = match apply(&op, lhs, rhs) {
                Some(v) => v,
                None if live => {
                    let span = self.toks[op_tok].span;
                    self.pp.diags.error(span, "division by zero in #if");
                    return Err(());
                }
                None => V::int(0),
            };
        }
    }

    fn unary(&mut self, live: bool) -> Result<V, ()> {
        self.enter()?;
        let r = self.unary_inner(live);
        self.depth -= 1;
        r
    }

    fn unary_inner(&mut self, live: bool) -> Result<V, ()> {
        let Some(&t) = self.peek() else {
            return self.fail("expected a value in preprocessor expression");
        };
        let spelling = self.pp.spelling(&t).to_string();
        match t.kind {
            TokKind::Punct => {
                self.pos += 1;
                match spelling.as_str() {
                    "(" => {
                        let v = self.expr(live)?;
                        if self.peek_punct() != Some(")") {
                            return self.fail("missing ')' in preprocessor expression");
                        }
                        self.pos += 1;
                        Ok(v)
                    }
                    "+" => self.unary(live),
                    "-" => {
                        let v = self.unary(live)?;
                        Ok(V {
                            v: v.v.wrapping_neg(),
                            unsigned: v.unsigned,
                        })
                    }
                    "~" => {
                        let v = self.unary(live)?;
                        Ok(V {
                            v: !v.v,
                            unsigned: v.unsigned,
                        })
                    }
                    "!" => {
                        let v = self.unary(live)?;
                        Ok(V::int(!v.truth() as i64))
                    }
                    _ => {
                        self.pos -= 1;
                        self.fail(format!(
                            "token `{spelling}` is not valid in preprocessor expressions"
                        ))
                    }
                }
            }
            TokKind::Number => {
                self.pos += 1;
                match parse_int(&spelling) {
                    Ok(lit) => {
                        if lit.overflow {
                            self.pos -= 1;
                            return self.fail("integer constant is too large");
                        }
                        let unsigned = lit.unsigned || lit.value > i64::MAX as u64;
                        Ok(V {
                            v: lit.value,
                            unsigned,
                        })
                    }
                    Err(msg) => {
                        self.pos -= 1;
                        let msg = if msg.contains("floating") {
                            "floating constant in preprocessor expression".to_string()
                        } else {
                            msg
                        };
                        self.fail(msg)
                    }
                }
            }
            TokKind::Char => {
                self.pos += 1;
                match decode_char(&spelling) {
                    Ok(c) => Ok(V::int(c as i64)),
                    Err(msg) => {
                        self.pos -= 1;
                        self.fail(msg)
                    }
                }
            }
            // §6.10.1p4: identifiers left after expansion (keywords too) are 0.
            TokKind::Ident => {
                self.pos += 1;
                if self.peek_punct() == Some("(") {
                    self.pos -= 1;
                    return self.fail(format!("function-like macro `{spelling}` is not defined"));
                }
                Ok(V::int(0))
            }
            _ => self.fail(format!(
                "token `{spelling}` is not valid in preprocessor expressions"
            )),
        }
    }
}

/// Applies a binary operator with the usual arithmetic conversions; `None` on division by
/// zero.
fn apply(op: &str, a: V, b: V) -> Option<V> {
    let unsigned = a.unsigned || b.unsigned;
    let (x, y) = (a.v, b.v);
    let (sx, sy) = (x as i64, y as i64);
    let arith = |v: u64| V { v, unsigned };
    let boolean = |c: bool| V::int(c as i64);
    Some(match op {
        "+" => arith(x.wrapping_add(y)),
        "-" => arith(x.wrapping_sub(y)),
        "*" => arith(x.wrapping_mul(y)),
        "/" | "%" => {
            if y == 0 {
                return None;
            }
            let v = match (op, unsigned) {
                ("/", true) => x / y,
                ("/", false) => sx.wrapping_div(sy) as u64,
                (_, true) => x % y,
                _ => sx.wrapping_rem(sy) as u64,
            };
            arith(v)
        }
        // Shifts have the type of the left operand; out-of-range amounts give 0 (or -1 for a
        // negative value shifted right), which is what gcc computes.
        "<<" | ">>" => {
            let amount: i128 = if b.unsigned { y as i128 } else { sy as i128 };
            let left = (op == "<<") == (amount >= 0);
            let amount = amount.unsigned_abs().min(64) as u32;
            let v = if left {
                if amount >= 64 {
                    0
                } else {
                    x << amount
                }
            } else if a.unsigned {
                if amount >= 64 {
                    0
                } else {
                    x >> amount
                }
            } else {
                (sx >> amount.min(63)) as u64
            };
            V {
                v,
                unsigned: a.unsigned,
            }
        }
        "<" => boolean(if unsigned { x < y } else { sx < sy }),
        ">" => boolean(if unsigned { x > y } else { sx > sy }),
        "<=" => boolean(if unsigned { x <= y } else { sx <= sy }),
        ">=" => boolean(if unsigned { x >= y } else { sx >= sy }),
        "==" => boolean(x == y),
        "!=" => boolean(x != y),
        "&" => arith(x & y),
        "^" => arith(x ^ y),
        "|" => arith(x | y),
        "&&" => boolean(a.truth() && b.truth()),
        "||" => boolean(a.truth() || b.truth()),
        _ => return None,
    })
}

impl Preprocessor<'_> {
    /// Evaluates the expression of an `#if`/`#elif` line; errors count as false.
    pub(super) fn eval_if(&mut self, args: &[Token], name_tok: Token) -> bool {
        if args.is_empty() {
            self.diags.error(name_tok.span, "#if with no expression");
            return false;
        }
        let toks = self.expand_list(args.to_vec(), true);
        let mut p = IfParser {
            pp: self,
            toks: &toks,
            pos: 0,
            depth: 0,
        };
        let Ok(v) = p.expr(true) else {
            return false;
        };
        if p.pos < toks.len() {
            let s = p.pp.spelling(&toks[p.pos]).to_string();
            let _ = p.fail::<()>(format!(
                "missing binary operator before token `{s}` in preprocessor expression"
            ));
            return false;
        }
        v.truth()
    }
}
