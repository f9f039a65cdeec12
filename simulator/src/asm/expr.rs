//! Operand expressions shared by the assemblers: integer literals (decimal, `0x` hex, `0b`
//! binary, `'c'` characters, optional sign), identifiers, and sums `a + b - c` of those,
//! where an identifier is a symbol and `.` is the current location. Parsed with nom; O(n).

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

    /// The value when the expression has no symbols.
    pub fn constant(&self) -> Option<i64> {
        let mut v: i64 = 0;
        for (neg, a) in &self.terms {
            let x = match a {
                Atom::Num(n) => *n,
                _ => return None,
            };
            v = if *neg {
                v.wrapping_sub(x)
            } else {
                v.wrapping_add(x)
            };
        }
        Some(v)
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
                v.wrapping_sub(x)
            } else {
                v.wrapping_add(x)
            };
        }
        Ok(v)
    }
}

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

/// `[+-]? atom ([+-] atom)*`, spaces allowed around the operators.
pub fn expr(i: &str) -> IResult<&str, Expr> {
    let (mut i, first_sign) = opt(preceded(multispace0, alt((char('-'), char('+')))))(i)?;
    let (rest, a) = preceded(multispace0, atom)(i)?;
    i = rest;
    let mut terms = vec![(first_sign == Some('-'), a)];
    loop {
        let r: IResult<&str, (char, Atom)> = pair(
            preceded(multispace0, alt((char('+'), char('-')))),
            preceded(multispace0, atom),
        )(i);
        match r {
            Ok((rest, (op, a))) => {
                terms.push((op == '-', a));
                i = rest;
            }
            Err(_) => break,
        }
    }
    Ok((i, Expr { terms }))
}

/// Parse a whole string as an expression (surrounding spaces allowed).
pub fn parse_expr(s: &str) -> Result<Expr, String> {
    match expr(s) {
        Ok((rest, e)) if rest.trim().is_empty() => Ok(e),
        Ok((rest, _)) => Err(format!("unexpected `{}` in expression", rest.trim())),
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
}
