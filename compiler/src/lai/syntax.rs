//! LAI operand syntax: the lexical pieces shared by both targets — symbolic and physical
//! registers with pins, integer and symbol immediates, ST231 `off[base]` and ST120
//! `@(base op off)` memory operands — and top-level operand splitting.
//!
//! Everything works on one line (no recursion; `()`/`[]` nesting only counted). Positions are
//! byte offsets into the whole source so errors can be located.
//!
//! Complexity: linear in the line length.

use crate::mir::target::parse_reg;
use crate::mir::PReg;
use simulator::isa::Target;

/// A located error: byte range in the source and a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PErr {
    pub lo: usize,
    pub hi: usize,
    pub msg: String,
}

impl PErr {
    pub fn at(lo: usize, len: usize, msg: impl Into<String>) -> PErr {
        PErr {
            lo,
            hi: lo + len.max(1),
            msg: msg.into(),
        }
    }
}

pub type PResult<T> = Result<T, PErr>;

/// A register as written: a symbolic name (`%x`) or a physical register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegSyn {
    Sym(String),
    Phys(PReg),
}

/// A register operand with its optional pin (`%x^$r16`, `%y^%x`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegOp {
    pub reg: RegSyn,
    pub pin: Option<RegSyn>,
    pub pos: usize,
    pub len: usize,
}

/// An immediate as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImmSyn {
    Int(i64),
    /// `name`, `name+4`, `name-4`; `part` is 0 (whole), 1 (`%hi`), 2 (`%lo`).
    Name {
        name: String,
        offset: i64,
        part: u8,
    },
}

/// One operand item of an operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Reg(RegOp),
    Imm(ImmSyn, usize, usize),
    /// ST231 `off[base]`.
    Mem231(Option<ImmSyn>, RegOp),
    /// ST120 `@(base op off)`: post-modify, minus, offset.
    Mem120 {
        base: RegOp,
        post: bool,
        minus: bool,
        off: Option<Box<Item>>,
    },
}

impl Item {
    pub fn pos(&self) -> usize {
        match self {
            Item::Reg(r) => r.pos,
            Item::Imm(_, p, _) => *p,
            Item::Mem231(_, r) => r.pos,
            Item::Mem120 { base, .. } => base.pos,
        }
    }
}

/// True for characters of a symbolic name or label.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Splits `s` (at byte `pos` of the source) at commas outside brackets; each part trimmed,
/// with its position. An empty `s` gives no parts.
pub fn split_commas(s: &str, pos: usize) -> Vec<(&str, usize)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push((start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s.trim().is_empty() {
        out.push((start, &s[start..]));
    }
    out.into_iter()
        .map(|(o, a)| {
            let lead = a.len() - a.trim_start().len();
            (a.trim(), pos + o + lead)
        })
        .collect()
}

/// Finds `c` at bracket depth 0 in `s`.
pub fn find_top(s: &str, c: char) -> Option<usize> {
    let mut depth = 0i32;
    for (i, ch) in s.char_indices() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ if ch == c && depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// A register (symbolic or physical) at the start of `s`; returns it and its length.
fn reg_prefix(t: Target, s: &str, pos: usize) -> PResult<Option<(RegSyn, usize)>> {
    if let Some(rest) = s.strip_prefix('%') {
        let lower = rest.to_ascii_lowercase();
        if lower.starts_with("hi(") || lower.starts_with("lo(") {
            return Ok(None);
        }
        let n = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
        if n == 0 {
            return Err(PErr::at(pos, 1, "expected a register name after `%`"));
        }
        return Ok(Some((RegSyn::Sym(rest[..n].to_string()), n + 1)));
    }
    let n = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '$' || c == '.'))
        .unwrap_or(s.len());
    let w = &s[..n];
    let phys = match t {
        Target::St231 => {
            if !w.starts_with('$') {
                return Ok(None);
            }
            let canon = match w {
                "$sp" => "$r12".to_string(),
                "$lr" => "$r63".to_string(),
                _ => match w.strip_prefix("$r0.") {
                    Some(d) => format!("$r{d}"),
                    None => w.to_string(),
                },
            };
            parse_reg(t, &canon)
        }
        Target::St120 => {
            let up = w.to_ascii_uppercase();
            if up == "SP" {
                parse_reg(t, "P15")
            } else if up.len() > 1
                && up.starts_with(['R', 'P', 'G'])
                && up[1..].bytes().all(|b| b.is_ascii_digit())
            {
                parse_reg(t, &up)
            } else {
                return Ok(None);
            }
        }
    };
    match phys {
        Some(p) => Ok(Some((RegSyn::Phys(p), n))),
        None => Err(PErr::at(pos, n, format!("`{w}` is not a {t} register"))),
    }
}

/// A whole register operand `reg[^pin]` (all of `s`), or `None` if `s` is not a register.
pub fn reg_operand(t: Target, s: &str, pos: usize) -> PResult<Option<RegOp>> {
    let Some((reg, n)) = reg_prefix(t, s, pos)? else {
        return Ok(None);
    };
    let rest = &s[n..];
    let (pin, used) = if let Some(p) = rest.strip_prefix('^') {
        match reg_prefix(t, p, pos + n + 1)? {
            Some((pr, m)) => (Some(pr), n + 1 + m),
            None => {
                return Err(PErr::at(
                    pos + n,
                    1,
                    format!("expected a pin register after `^`, found `{p}`"),
                ))
            }
        }
    } else {
        (None, n)
    };
    if used != s.len() {
        return Err(PErr::at(
            pos + used,
            s.len() - used,
            format!("unexpected `{}` after the register", &s[used..]),
        ));
    }
    Ok(Some(RegOp {
        reg,
        pin,
        pos,
        len: s.len(),
    }))
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i64::from_str_radix(h, 16).ok()?
    } else if body.len() == 3 && body.starts_with('\'') && body.ends_with('\'') {
        body.as_bytes()[1] as i64
    } else if !body.is_empty() && body.bytes().all(|b| b.is_ascii_digit()) {
        body.parse().ok()?
    } else {
        return None;
    };
    if v > 0xFFFF_FFFF {
        return None;
    }
    Some(if neg { -v } else { v })
}

/// An immediate: integer (`-3`, `0x10`, `'a'`), `name[+-int]`, `%hi(..)`, `%lo(..)`.
pub fn imm(s: &str, pos: usize) -> PResult<ImmSyn> {
    let lower = s.to_ascii_lowercase();
    for (pre, part) in [("%hi(", 1u8), ("%lo(", 2u8)] {
        if lower.starts_with(pre) {
            let inner = s[pre.len()..]
                .strip_suffix(')')
                .ok_or_else(|| PErr::at(pos, s.len(), format!("missing `)` in `{s}`")))?;
            return match imm(inner.trim(), pos + pre.len())? {
                ImmSyn::Int(v) => {
                    let v = v as u32;
                    Ok(ImmSyn::Int(if part == 1 {
                        i64::from((v >> 16) as i16)
                    } else {
                        i64::from(v & 0xFFFF)
                    }))
                }
                ImmSyn::Name { name, offset, .. } => Ok(ImmSyn::Name { name, offset, part }),
            };
        }
    }
    if let Some(v) = parse_int(s) {
        if v < i64::from(i32::MIN) {
            return Err(PErr::at(
                pos,
                s.len(),
                format!("`{s}` is out of the 32-bit range"),
            ));
        }
        return Ok(ImmSyn::Int(v));
    }
    if s.trim_start_matches('-')
        .starts_with(|c: char| c.is_ascii_digit())
        && s.bytes().skip(1).all(|b| b.is_ascii_alphanumeric())
    {
        return Err(PErr::at(
            pos,
            s.len(),
            format!("`{s}` is not a 32-bit integer"),
        ));
    }
    let n = s.find(|c: char| !is_name_char(c)).unwrap_or(s.len());
    if n > 0 && !s.starts_with(|c: char| c.is_ascii_digit()) {
        let rest = s[n..].trim();
        let offset = if rest.is_empty() {
            Some(0)
        } else {
            parse_int(&rest.replace(' ', "")).filter(|_| rest.starts_with(['+', '-']))
        };
        if let Some(offset) = offset {
            return Ok(ImmSyn::Name {
                name: s[..n].to_string(),
                offset,
                part: 0,
            });
        }
    }
    Err(PErr::at(
        pos,
        s.len(),
        format!("expected a register or an immediate, found `{s}`"),
    ))
}

/// One operand item of target `t`.
pub fn item(t: Target, s: &str, pos: usize) -> PResult<Item> {
    if s.is_empty() {
        return Err(PErr::at(pos, 1, "missing operand"));
    }
    if t == Target::St120 && s.starts_with('@') {
        return mem120(s, pos);
    }
    if t == Target::St231 && s.ends_with(']') {
        let open = s
            .rfind('[')
            .ok_or_else(|| PErr::at(pos, s.len(), format!("missing `[` in `{s}`")))?;
        let inner = s[open + 1..s.len() - 1].trim();
        let base = reg_operand(t, inner, pos + open + 1)?.ok_or_else(|| {
            PErr::at(
                pos + open + 1,
                inner.len(),
                format!("expected a base register in `[..]`, found `{inner}`"),
            )
        })?;
        let off_s = s[..open].trim();
        let off = if off_s.is_empty() {
            None
        } else {
            Some(imm(off_s, pos)?)
        };
        return Ok(Item::Mem231(off, base));
    }
    if let Some(r) = reg_operand(t, s, pos)? {
        return Ok(Item::Reg(r));
    }
    Ok(Item::Imm(imm(s, pos)?, pos, s.len()))
}

/// `@(base)`, `@(base + off)`, `@(base - off)`, `@(base !+ off)`, `@(base !- off)`.
fn mem120(s: &str, pos: usize) -> PResult<Item> {
    let bad = || {
        PErr::at(
            pos,
            s.len(),
            format!("bad memory operand `{s}` (expected `@(Pn op offset)`)"),
        )
    };
    let body = s[1..].trim_start();
    let inner_pos = pos + s.len() - body.len() + 1;
    let inner = body
        .strip_prefix('(')
        .and_then(|b| b.strip_suffix(')'))
        .ok_or_else(bad)?;
    let opi = inner.find(['+', '-', '!']);
    let (base_s, rest) = match opi {
        Some(i) => (&inner[..i], &inner[i..]),
        None => (inner, ""),
    };
    let lead = base_s.len() - base_s.trim_start().len();
    let base = reg_operand(Target::St120, base_s.trim(), inner_pos + lead)?.ok_or_else(bad)?;
    if rest.is_empty() {
        return Ok(Item::Mem120 {
            base,
            post: false,
            minus: false,
            off: None,
        });
    }
    let post = rest.starts_with('!');
    let r = rest.trim_start_matches('!');
    let minus = r.starts_with('-');
    if !(r.starts_with('+') || minus) {
        return Err(bad());
    }
    let off_s = &r[1..];
    let off_pos = inner_pos + (inner.len() - off_s.len());
    let lead = off_s.len() - off_s.trim_start().len();
    let off = item(Target::St120, off_s.trim(), off_pos + lead)?;
    if matches!(off, Item::Mem120 { .. }) {
        return Err(bad());
    }
    Ok(Item::Mem120 {
        base,
        post,
        minus,
        off: Some(Box::new(off)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::RegClass;

    #[test]
    fn registers_pins_and_immediates() {
        let r = reg_operand(Target::St231, "%a^$r16", 0).unwrap().unwrap();
        assert_eq!(r.reg, RegSyn::Sym("a".into()));
        assert_eq!(r.pin, Some(RegSyn::Phys(PReg::new(RegClass::R, 16))));
        assert!(reg_operand(Target::St231, "$r99", 0).is_err());
        let r = reg_operand(Target::St120, "SP", 0).unwrap().unwrap();
        assert_eq!(r.reg, RegSyn::Phys(PReg::new(RegClass::P, 15)));
        assert_eq!(imm("-12", 0).unwrap(), ImmSyn::Int(-12));
        assert_eq!(imm("0x10", 0).unwrap(), ImmSyn::Int(16));
        assert_eq!(
            imm("buf+4", 0).unwrap(),
            ImmSyn::Name {
                name: "buf".into(),
                offset: 4,
                part: 0
            }
        );
        assert_eq!(imm("%hi(0x12345678)", 0).unwrap(), ImmSyn::Int(0x1234));
        assert!(imm("1+", 0).is_err());
    }

    #[test]
    fn memory_operands() {
        let m = item(Target::St231, "8[%p]", 0).unwrap();
        assert!(matches!(m, Item::Mem231(Some(ImmSyn::Int(8)), _)));
        let m = item(Target::St120, "@(%p !+ 1)", 0).unwrap();
        assert!(matches!(
            m,
            Item::Mem120 {
                post: true,
                minus: false,
                ..
            }
        ));
        assert!(item(Target::St120, "@(%p ? 1)", 0).is_err());
        let parts = split_commas("a, @(P1 + 2), b", 10);
        assert_eq!(parts[1], ("@(P1 + 2)", 13));
    }
}
