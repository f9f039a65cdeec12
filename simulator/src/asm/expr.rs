//! Operand expressions shared by the assemblers: integer literals (decimal, `0x` hex, `0b`
//! binary, `'c'` characters, optional sign), identifiers, parentheses, and sums `a + b - c`
//! of those, where an identifier is a symbol and `.` is the current location. Constant
//! operands may also be multiplied, divided, taken modulo and shifted (`4*8`, `1<<12`,
//! `(N+1)/2`; these bind tighter than `+`/`-`, as in the GNU assembler); a symbol may only be
//! added or subtracted (the value stays "symbol + constant" for relocation). Parsed with nom;
//! O(n), nesting depth capped at [`MAX_DEPTH`].
//!
//! Arithmetic is checked: an expression whose value does not fit its 64-bit signed evaluation
//! (`1 << 200`, `1 << 63`, `0x7fffffffffffffff + 1`, `i64::MIN / -1`), or a shift count
//! outside 0..=63, is an error, never a silently wrapped value. Whether the value then fits
//! the field it fills is checked where it is used.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{anychar, char, multispace0, satisfy};
use nom::combinator::{map, map_res, opt, recognize};
use nom::sequence::{delimited, pair, preceded};
use nom::IResult;

/// One term of an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Atom {
    Num(i64),
    Sym(String),
    /// The current location `.`.
    Dot,
}

/// A signed sum of atoms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub terms: Vec<(bool, Atom)>,
}

impl Expr {
    /// A plain number.
    pub fn num(v: i64) -> Expr {
        Expr {
            terms: vec![(false, Atom::Num(v))],
        }
    }

    /// The value when the expression has no symbols (and its sum fits 64 bits).
    pub fn constant(&self) -> Option<i64> {
        if self.has_symbols() {
            return None;
        }
        self.eval(&|_| None, 0).ok()
    }

    /// True when the expression names a symbol or `.`.
    pub fn has_symbols(&self) -> bool {
        self.terms.iter().any(|(_, a)| !matches!(a, Atom::Num(_)))
    }

    /// Evaluate, looking symbols up with `sym` and `.` with `dot`; the error names the
    /// undefined symbol.
    pub fn eval(&self, sym: &dyn Fn(&str) -> Option<i64>, dot: i64) -> Result<i64, String> {
        let mut v: i64 = 0;
        for (neg, a) in &self.terms {
            let x = match a {
                Atom::Num(n) => *n,
                Atom::Dot => dot,
                Atom::Sym(s) => sym(s).ok_or_else(|| format!("undefined symbol `{s}`"))?,
            };
            v = if *neg {
                v.checked_sub(x)
            } else {
                v.checked_add(x)
            }
            .ok_or_else(|| OVERFLOW.to_string())?;
        }
        Ok(v)
    }
}

/// The error of a sum whose value does not fit 64 bits.
pub const OVERFLOW: &str = "the expression's value does not fit its 64-bit evaluation";

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// An identifier: `[A-Za-z_.][A-Za-z0-9_.]*`.
pub fn ident(i: &str) -> IResult<&str, &str> {
    recognize(pair(satisfy(is_ident_start), take_while(is_ident_char)))(i)
}

fn radix_number(i: &str) -> IResult<&str, i64> {
    alt((
        map_res(
            preceded(
                alt((tag("0x"), tag("0X"))),
                take_while1(|c: char| c.is_ascii_hexdigit()),
            ),
            |s| i64::from_str_radix(s, 16),
        ),
        map_res(
            preceded(
                alt((tag("0b"), tag("0B"))),
                take_while1(|c: char| c == '0' || c == '1'),
            ),
            |s| i64::from_str_radix(s, 2),
        ),
        map_res(take_while1(|c: char| c.is_ascii_digit()), |s: &str| {
            s.parse::<i64>()
        }),
        map(delimited(char('\''), anychar, char('\'')), |c| c as i64),
    ))(i)
}

/// An integer literal with optional sign.
pub fn number(i: &str) -> IResult<&str, i64> {
    let (i, neg) = opt(alt((char('-'), char('+'))))(i)?;
    let (i, v) = radix_number(i)?;
    Ok((
        i,
        if neg == Some('-') {
            v.wrapping_neg()
        } else {
            v
        },
    ))
}

fn atom(i: &str) -> IResult<&str, Atom> {
    alt((
        map(radix_number, Atom::Num),
        map(ident, |s: &str| {
            if s == "." {
                Atom::Dot
            } else {
                Atom::Sym(s.to_string())
            }
        }),
    ))(i)
}

/// Deepest parenthesis/sign nesting an expression may have (input-driven recursion).
pub const MAX_DEPTH: u32 = 64;

/// `sum := [+-]? term ([+-] term)*`, spaces allowed around the operators.
pub fn expr(i: &str) -> IResult<&str, Expr> {
    sum(i, 0)
}

fn sum(i: &str, depth: u32) -> IResult<&str, Expr> {
    let (mut i, mut acc) = term(i, depth)?;
    loop {
        let r: IResult<&str, char> = preceded(multispace0, alt((char('+'), char('-'))))(i);
        let Ok((rest, op)) = r else { break };
        // A term that cannot start here ends the sum; one that started and is invalid (a
        // product of a symbol, a division by zero, too deep) is the expression's error.
        let (rest, t) = match term(rest, depth) {
            Ok(x) => x,
            Err(nom::Err::Error(_)) => break,
            Err(e) => return Err(e),
        };
        acc.terms
            .extend(t.terms.into_iter().map(|(neg, a)| (neg != (op == '-'), a)));
        i = rest;
    }
    Ok((i, acc))
}

/// The binary operators of a term.
#[derive(Clone, Copy)]
enum MulOp {
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
}

fn mul_op(i: &str) -> IResult<&str, MulOp> {
    preceded(
        multispace0,
        alt((
            map(tag("<<"), |_| MulOp::Shl),
            map(tag(">>"), |_| MulOp::Shr),
            map(char('*'), |_| MulOp::Mul),
            map(char('/'), |_| MulOp::Div),
            map(char('%'), |_| MulOp::Rem),
        )),
    )(i)
}

/// `term := factor (op factor)*`; with an operator, every factor must be a constant.
fn term(i: &str, depth: u32) -> IResult<&str, Expr> {
    let (mut i, first) = factor(i, depth)?;
    let mut value: Option<i64> = None;
    while let Ok((rest, op)) = mul_op(i) {
        let (rest, rhs) = factor(rest, depth)?;
        let lhs = match value {
            Some(v) => v,
            None => first.constant().ok_or_else(|| failure(i))?,
        };
        let rhs = rhs.constant().ok_or_else(|| failure(i))?;
        value = Some(apply(op, lhs, rhs).ok_or_else(|| failure(i))?);
        i = rest;
    }
    Ok((i, value.map_or(first, Expr::num)))
}

/// `a op b`; `None` for a division by zero, a shift count outside 0..=63, or a result that
/// does not fit 64 bits (a left shift must not lose bits: `a << b >> b == a`).
fn apply(op: MulOp, a: i64, b: i64) -> Option<i64> {
    let shift = u32::try_from(b).ok().filter(|&s| s < 64);
    match op {
        MulOp::Mul => a.checked_mul(b),
        MulOp::Div => a.checked_div(b),
        MulOp::Rem => a.checked_rem(b),
        MulOp::Shl => {
            let s = shift?;
            let v = a << s;
            (v >> s == a).then_some(v)
        }
        MulOp::Shr => Some(a >> shift?),
    }
}

/// An unrecoverable parse error (a non-constant product, a division by zero, nesting too
/// deep): callers report the expression as invalid at this point.
fn failure(i: &str) -> nom::Err<nom::error::Error<&str>> {
    nom::Err::Failure(nom::error::Error::new(i, nom::error::ErrorKind::Verify))
}

/// `factor := [+-] factor | '(' sum ')' | atom`.
fn factor(i: &str, depth: u32) -> IResult<&str, Expr> {
    if depth >= MAX_DEPTH {
        return Err(failure(i));
    }
    let (i, _) = multispace0(i)?;
    if let Ok((rest, sign)) = alt((char::<&str, nom::error::Error<&str>>('-'), char('+')))(i) {
        let (rest, mut e) = factor(rest, depth + 1)?;
        if sign == '-' {
            for t in &mut e.terms {
                t.0 = !t.0;
            }
        }
        return Ok((rest, e));
    }
    if let Ok((rest, _)) = char::<&str, nom::error::Error<&str>>('(')(i) {
        let (rest, e) = sum(rest, depth + 1)?;
        let (rest, _) = preceded(multispace0, char(')'))(rest)?;
        return Ok((rest, e));
    }
    map(atom, |a| Expr {
        terms: vec![(false, a)],
    })(i)
}

/// Parse a whole string as an expression (surrounding spaces allowed).
pub fn parse_expr(s: &str) -> Result<Expr, String> {
    match expr(s) {
        Ok((rest, e)) if rest.trim().is_empty() => Ok(e),
        Ok((rest, _)) => Err(format!("unexpected `{}` in expression", rest.trim())),
        Err(nom::Err::Failure(_)) => Err(format!(
            "invalid expression `{}`: only constants may be multiplied, divided or shifted (no division by zero, shift counts 0..63, results that fit the 64-bit evaluation, at most {MAX_DEPTH} levels of nesting)",
            s.trim()
        )),
        Err(_) => Err(format!("expected a number or symbol, found `{}`", s.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(number("42").unwrap().1, 42);
        assert_eq!(number("-0x10").unwrap().1, -16);
        assert_eq!(number("0b101").unwrap().1, 5);
        assert_eq!(number("'A'").unwrap().1, 65);
        assert!(number("x").is_err());
    }

    #[test]
    fn expressions() {
        let e = parse_expr("tab + 8 - 0x2").unwrap();
        let look = |s: &str| if s == "tab" { Some(100) } else { None };
        assert_eq!(e.eval(&look, 0), Ok(106));
        assert_eq!(parse_expr(". - f").unwrap().eval(&|_| Some(10), 30), Ok(20));
        assert_eq!(parse_expr("-5").unwrap().constant(), Some(-5));
        assert!(parse_expr("nope").unwrap().eval(&look, 0).is_err());
        assert!(parse_expr("1 +").is_err());
        assert!(parse_expr("").is_err());
    }

    #[test]
    fn products_shifts_and_parentheses() {
        let c = |t: &str| parse_expr(t).unwrap().constant();
        assert_eq!(c("1+2*3"), Some(7));
        assert_eq!(c("(1+2)*3"), Some(9));
        assert_eq!(c("(4)"), Some(4));
        assert_eq!(c("1<<12"), Some(4096));
        assert_eq!(c("-(2+3)"), Some(-5));
        assert_eq!(c("100/7 - 100%7"), Some(12));
        assert_eq!(c("-8 >> 1"), Some(-4));
        assert_eq!(c("2 * -3"), Some(-6));
        // A symbol may be added or subtracted, also inside parentheses.
        let look = |s: &str| if s == "tab" { Some(100) } else { None };
        assert_eq!(parse_expr("tab + 4*3").unwrap().eval(&look, 0), Ok(112));
        assert_eq!(parse_expr("8 - (tab - 2)").unwrap().eval(&look, 0), Ok(-90));
        // ... but not multiplied; division by zero and deep nesting are errors, not panics.
        for bad in ["2*tab", "tab/2", "1/0", "5%0", "(1", "1*", "1 << tab"] {
            assert!(parse_expr(bad).is_err(), "{bad}");
        }
        // After `+`/`-` and inside parentheses too, with the reason named.
        for bad in ["1 + 2*tab", "tab - 4/0", "(1 + 2*tab)", "8 - (1 + tab*tab)"] {
            let e = parse_expr(bad).unwrap_err();
            assert!(e.contains("only constants may be multiplied"), "{bad}: {e}");
        }
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert!(parse_expr(&deep).is_err());
        let deep_neg = format!("{}1", "-".repeat(100_000));
        assert!(parse_expr(&deep_neg).is_err());
        assert_eq!(
            c(&format!("{}1{}", "(".repeat(60), ")".repeat(60))),
            Some(1)
        );
        // Nothing wraps: a value that leaves 64 bits is an error, not a panic or a wrap.
        for bad in [
            "1 << 200",
            "1 << 63",
            "1 << -1",
            "3 << 62",
            "4611686018427387904 * 2",
            "(-9223372036854775807 - 1) / -1",
            "(-9223372036854775807 - 1) % -1",
            "8 >> 64",
        ] {
            let e = parse_expr(bad).unwrap_err();
            assert!(e.contains("64-bit evaluation"), "{bad}: {e}");
        }
        assert_eq!(c("1 << 62"), Some(1 << 62));
        assert_eq!(c("-1 << 63"), Some(i64::MIN));
        // A sum that overflows is caught when it is evaluated.
        let big = parse_expr("9223372036854775807 + 1").unwrap();
        assert_eq!(big.constant(), None);
        assert_eq!(big.eval(&|_| None, 0), Err(OVERFLOW.to_string()));
        let sym = parse_expr("tab + 9223372036854775807").unwrap();
        assert!(sym.eval(&look, 0).is_err());
    }
}
